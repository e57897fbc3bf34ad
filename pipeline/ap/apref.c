/* apref: see apref.h for the contract; the files are defined in
 * pipeline/APCOST.md 1.10 and the rule in 1.3. */
#include "apref.h"
#include "paths.h"
#include "prepread.h"

#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "opt.h"
#include "prepsum.h"
#include "sctab.h"
#include "util.h"

/* ================================================================ days and rows */

/* The cutoff one calendar month before `day` (a 1st of a month). */
static int32_t month_before(int32_t day)
{
    int y, m, d;
    ut_civil_from_days(day, &y, &m, &d);
    return m == 1 ? ut_days_from_civil(y - 1, 12, 1) : ut_days_from_civil(y, m - 1, 1);
}

static void day_str(int32_t day, char buf[11])
{
    int y, m, d;
    ut_civil_from_days(day, &y, &m, &d);
    snprintf(buf, 11, "%04d-%02d-%02d", y, m, d);
}

/* The rows ordered by (cutoff, customer), to find a customer at a cutoff. */
typedef struct {
    const int32_t *customer, *cutoff;
    uint32_t *ord;
    size_t n;
} rowindex;

static const rowindex *sort_ctx;

static int by_cut_cust(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const int32_t *c = sort_ctx->cutoff, *u = sort_ctx->customer;
    if (c[x] != c[y])
        return (c[x] > c[y]) - (c[x] < c[y]);
    if (u[x] != u[y])
        return (u[x] > u[y]) - (u[x] < u[y]);
    return (x > y) - (x < y);
}

static int index_make(rowindex *ix, const int32_t *customer, const int32_t *cutoff, size_t n)
{
    *ix = (rowindex){customer, cutoff, malloc((n ? n : 1) * sizeof *ix->ord), n};
    if (!ix->ord)
        return -1;
    for (size_t i = 0; i < n; i++)
        ix->ord[i] = (uint32_t)i;
    sort_ctx = ix;  /* qsort has no context argument; the stage is single-threaded here */
    qsort(ix->ord, n, sizeof *ix->ord, by_cut_cust);
    sort_ctx = NULL;
    return 0;
}

/* The row of customer u at cutoff c, or -1. */
static long index_find(const rowindex *ix, int32_t u, int32_t c)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t r = ix->ord[mid];
        if (ix->cutoff[r] < c || (ix->cutoff[r] == c && ix->customer[r] < u))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ix->n && ix->cutoff[ix->ord[lo]] == c && ix->customer[ix->ord[lo]] == u)
        return (long)ix->ord[lo];
    return -1;
}

/* ================================================================ the rule */

static int same(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The prev lines: each names a row once, ascending, at the month before
 * its row's cutoff; a line at a test cutoff has its test row.  has[row]
 * gets the line's index + 1. */
static int rule_lines(const apref_scores *sc, const rowindex *ix, int32_t c0, size_t *has, char *err, size_t errlen)
{
    for (size_t k = 0; k < sc->nprev; k++) {
        int32_t r = sc->prev_row[k];
        char a[11], b[11];
        if (r < 0 || (size_t)r >= sc->n || (k > 0 && r <= sc->prev_row[k - 1])) {
            ut_seterr(err, errlen, "previous-cutoff line %zu: row %d is out of order or outside 0..%zu", k + 1, r,
                      sc->n - 1);
            return -1;
        }
        if (sc->prev_cutoff[k] != month_before(sc->cutoff[r])) {
            day_str(sc->prev_cutoff[k], a);
            day_str(sc->cutoff[r], b);
            ut_seterr(err, errlen, "previous-cutoff line %zu: row %d is at %s, the line at %s, not the month before",
                      k + 1, r, b, a);
            return -1;
        }
        if (sc->prev_cutoff[k] >= c0 && index_find(ix, sc->customer[r], sc->prev_cutoff[k]) < 0) {
            day_str(sc->prev_cutoff[k], a);
            ut_seterr(err, errlen, "previous-cutoff line %zu: customer %d has no test row at %s", k + 1,
                      sc->customer[r], a);
            return -1;
        }
        has[r] = k + 1;
    }
    return 0;
}

/* Row i against the rule, every seed. */
static int rule_row(const apref_scores *sc, const rowindex *ix, const size_t *has, size_t i, size_t *with, char *err,
                    size_t errlen)
{
    size_t n = sc->n;
    long j = index_find(ix, sc->customer[i], month_before(sc->cutoff[i]));
    char c[11];
    day_str(sc->cutoff[i], c);
    if (j >= 0 && sc->prev_complete && !has[i]) {
        ut_seterr(err, errlen, "row %zu (customer %d at %s): a test row a month earlier (row %ld) but no "
                  "previous-cutoff line", i, sc->customer[i], c, j);
        return -1;
    }
    *with += j >= 0 || has[i];
    for (size_t s = 0; s < sc->nseeds; s++) {
        float lk = sc->lastk[s * n + i], want;
        const char *what;
        if (j >= 0) {
            want = sc->live[s * n + (size_t)j];
            what = "the score of the same customer's row a month earlier";
        } else if (has[i]) {
            if (!sc->prev_score)
                continue;
            want = sc->prev_score[s * sc->nprev + has[i] - 1];
            what = "the previous-cutoff score";
        } else {
            want = sc->dflt;
            what = "the default score (the customer was new a month earlier)";
        }
        if (!same(lk, want)) {
            char jr[32] = "";
            if (j >= 0)
                snprintf(jr, sizeof jr, " (row %ld)", j);
            ut_seterr(err, errlen, "model seed %zu, row %zu (customer %d at %s): last_known %.9g, but %s%s is %.9g",
                      s + 1, i, sc->customer[i], c, lk, what, jr, want);
            return -1;
        }
    }
    return 0;
}

int apref_rule(const apref_scores *sc, size_t *with, char *err, size_t errlen)
{
    if (with)
        *with = 0;
    if (sc->n == 0 || sc->nseeds == 0) {
        ut_seterr(err, errlen, "no rows or no seeds");
        return -1;
    }
    int32_t c0 = sc->cutoff[0];
    for (size_t i = 1; i < sc->n; i++)
        if (sc->cutoff[i] < c0)
            c0 = sc->cutoff[i];
    rowindex ix;
    size_t *has = calloc(sc->n, sizeof *has), count = 0;
    if (!has || index_make(&ix, sc->customer, sc->cutoff, sc->n) != 0) {
        free(has);
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    int rc = rule_lines(sc, &ix, c0, has, err, errlen);
    for (size_t i = 0; rc == 0 && i < sc->n; i++)
        rc = rule_row(sc, &ix, has, i, &count, err, errlen);
    free(has);
    free(ix.ord);
    if (rc == 0 && with)
        *with = count;
    return rc;
}

/* ================================================================ writing */

/* A gzip text file written atomically: ut_aopen's temporary file, gzip on
 * a duplicate of its descriptor (gzdopen writes no time into the header). */
typedef struct {
    ut_afile a;
    gzFile gz;
    int bad;
} gzout;

static int gz_open(gzout *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (ut_aopen(&o->a, path, err, errlen) != 0)
        return -1;
    int fd = dup(fileno(o->a.f));
    o->gz = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
    if (!o->gz) {
        if (fd >= 0)
            close(fd);
        ut_aclose(&o->a, 0, NULL, 0);
        ut_seterr(err, errlen, "%s: cannot start gzip", path);
        return -1;
    }
    gzbuffer(o->gz, 1 << 18);
    return 0;
}

static void gz_put(gzout *o, const char *s, size_t n)
{
    if (!o->bad && n && gzwrite(o->gz, s, (unsigned)n) <= 0)
        o->bad = 1;
}

/* Commit when everything was written, else remove the temporary file. */
static int gz_close(gzout *o, char *err, size_t errlen)
{
    int z = gzclose(o->gz), e = errno;
    int ok = !o->bad && z == Z_OK;
    if (!ok) {
        ut_aclose(&o->a, 0, NULL, 0);
        ut_seterr(err, errlen, "%s: cannot write (gzip): %s", o->a.path, z == Z_ERRNO || o->bad ? strerror(e) : "zlib error");
        return -1;
    }
    return ut_aclose(&o->a, 1, err, errlen);
}

/* A line being built: fields appended, then written whole. */
typedef struct {
    char *s;
    size_t len, cap;
} line;

static int line_add(line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int line_add(line *l, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(l->s + l->len, l->cap - l->len, fmt, ap);
        va_end(ap);
        if (k < 0)
            return -1;
        if ((size_t)k < l->cap - l->len) {
            l->len += (size_t)k;
            return 0;
        }
        size_t nc = (l->cap + (size_t)k + 1) * 2;
        char *ns = realloc(l->s, nc);
        if (!ns)
            return -1;
        l->s = ns;
        l->cap = nc;
    }
}

static int path_in(char *buf, size_t n, const char *root, const char *rel)
{
    return snprintf(buf, n, "%s/%s", root, rel) < (int)n ? 0 : -1;
}

static int write_scores_file(const char *path, const apref_scores *sc, line *l, char *err, size_t errlen)
{
    gzout o;
    if (gz_open(&o, path, err, errlen) != 0)
        return -1;
    int bad = 0;
    l->len = 0;
    bad |= line_add(l, "row\tcustomer\tcutoff");
    for (size_t s = 1; s <= sc->nseeds; s++)
        bad |= line_add(l, "\tscore_%zu\tlast_known_%zu", s, s);
    bad |= line_add(l, "\n");
    gz_put(&o, l->s, l->len);
    char c[11];
    for (size_t i = 0; i < sc->n && !bad; i++) {
        l->len = 0;
        day_str(sc->cutoff[i], c);
        bad |= line_add(l, "%zu\t%d\t%s", i, sc->customer[i], c);
        for (size_t s = 0; s < sc->nseeds; s++)
            bad |= line_add(l, "\t%.9g\t%.9g", sc->live[s * sc->n + i], sc->lastk[s * sc->n + i]);
        bad |= line_add(l, "\n");
        gz_put(&o, l->s, l->len);
    }
    o.bad |= bad;
    return gz_close(&o, err, errlen);
}

static int write_prev_file(const char *path, const apref_scores *sc, int32_t c0, line *l, char *err, size_t errlen)
{
    gzout o;
    if (gz_open(&o, path, err, errlen) != 0)
        return -1;
    int bad = 0;
    l->len = 0;
    bad |= line_add(l, "row\tcustomer\tcutoff");
    for (size_t s = 1; s <= sc->nseeds; s++)
        bad |= line_add(l, "\tscore_%zu", s);
    bad |= line_add(l, "\n");
    gz_put(&o, l->s, l->len);
    char c[11];
    for (size_t k = 0; k < sc->nprev && !bad; k++) {
        if (sc->prev_cutoff[k] >= c0)
            continue;  /* a test row's score: in ap_scores already */
        size_t i = (size_t)sc->prev_row[k];
        l->len = 0;
        day_str(sc->prev_cutoff[k], c);
        bad |= line_add(l, "%zu\t%d\t%s", i, sc->customer[i], c);
        for (size_t s = 0; s < sc->nseeds; s++)
            bad |= line_add(l, "\t%.9g", sc->lastk[s * sc->n + i]);
        bad |= line_add(l, "\n");
        gz_put(&o, l->s, l->len);
    }
    o.bad |= bad;
    return gz_close(&o, err, errlen);
}

int apref_write_scores(const char *root, const apref_scores *sc, char *err, size_t errlen)
{
    char path[4200], dir[4200];
    if (path_in(dir, sizeof dir, root, PATH_REFERENCE_DIR) != 0 || ut_mkdir_p(dir, err, errlen) != 0)
        return -1;
    int32_t c0 = sc->cutoff[0];
    for (size_t i = 1; i < sc->n; i++)
        if (sc->cutoff[i] < c0)
            c0 = sc->cutoff[i];
    line l = {0};
    int rc = path_in(path, sizeof path, root, PATH_AP_SCORES) == 0 && write_scores_file(path, sc, &l, err, errlen) == 0 &&
                     path_in(path, sizeof path, root, PATH_AP_PREV) == 0 &&
                     write_prev_file(path, sc, c0, &l, err, errlen) == 0
                 ? 0
                 : -1;
    free(l.s);
    return rc;
}

int apref_write_resamples(const char *root, const apboot_result *r, const apstudy_arm *arms, size_t narms,
                          size_t resamples, char *err, size_t errlen)
{
    char path[4200];
    if (path_in(path, sizeof path, root, PATH_AP_RESAMPLES) != 0) {
        ut_seterr(err, errlen, "%s: path too long", root);
        return -1;
    }
    gzout o;
    if (gz_open(&o, path, err, errlen) != 0)
        return -1;
    const char *hdr = "arm\tkind\tresample\tchange\n";
    gz_put(&o, hdr, strlen(hdr));
    char buf[256];
    for (size_t a = 0; a < narms; a++)
        for (int k = 0; k < APBOOT_KINDS; k++) {
            if (!r->arm[a].computed[k])
                continue;
            for (size_t b = 0; b < resamples; b++) {
                double v = r->arm[a].boot[k][b];
                int len = isnan(v) ? snprintf(buf, sizeof buf, "%s\t%s\t%zu\tdropped\n", arms[a].name,
                                              apboot_kind_names[k], b)
                                   : snprintf(buf, sizeof buf, "%s\t%s\t%zu\t%.17g\n", arms[a].name,
                                              apboot_kind_names[k], b, v);
                gz_put(&o, buf, (size_t)len);
            }
        }
    return gz_close(&o, err, errlen);
}

static const char *const MANIFEST_FILES[4] = {PATH_AP_SCORES, PATH_AP_PREV, PATH_AP_RESAMPLES, PATH_AP_JSON};

int apref_write_manifest(const char *root, const char *provdir, char *err, size_t errlen)
{
    char path[4200];
    if (ut_mkdir_p(provdir, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s", provdir, PATH_AP_MANIFEST);
    ut_afile a;
    if (ut_aopen(&a, path, err, errlen) != 0)
        return -1;
    fprintf(a.f, "path\tsize\tsha256\n");
    for (int i = 0; i < 4; i++) {
        char full[4200], sha[65];
        uint64_t size = 0;
        if (path_in(full, sizeof full, root, MANIFEST_FILES[i]) != 0 ||
            ut_sha256_file(full, sha, &size, err, errlen) != 0) {
            ut_aclose(&a, 0, NULL, 0);
            return -1;
        }
        fprintf(a.f, "%s\t%llu\t%s\n", MANIFEST_FILES[i], (unsigned long long)size, sha);
    }
    return ut_aclose(&a, 1, err, errlen);
}

/* ================================================================ reading back */

/* A whole gzip file, decompressed, NUL-terminated. */
static int gz_slurp(const char *path, char **out, char *err, size_t errlen)
{
    *out = NULL;
    gzFile g = gzopen(path, "rb");
    if (!g) {
        ut_seterr(err, errlen, "%s: cannot open", path);
        return -1;
    }
    size_t len = 0, cap = 1 << 20;
    char *buf = malloc(cap);
    int bad = !buf;
    while (!bad) {
        if (cap - len < (1 << 16) + 1) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                bad = 1;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        int k = gzread(g, buf + len, 1 << 16);
        if (k < 0)
            bad = 1;
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    int zerr = 0;
    gzerror(g, &zerr);
    bad |= (zerr != Z_OK && zerr != Z_STREAM_END) || gzdirect(g);  /* gzdirect: plain text, not gzip */
    if (gzclose(g) != Z_OK)
        bad = 1;
    if (bad || memchr(buf, 0, len)) {
        free(buf);
        ut_seterr(err, errlen, "%s: not a complete gzip text file", path);
        return -1;
    }
    buf[len] = 0;
    *out = buf;
    return 0;
}

/* The next line of *p, in place (its newline cut); NULL at the end, or
 * with *bad set when the last line has no newline. */
static char *next_line(char **p, int *bad)
{
    if (!**p)
        return NULL;
    char *s = *p, *nl = strchr(s, '\n');
    if (!nl) {
        *bad = 1;
        return NULL;
    }
    *nl = 0;
    *p = nl + 1;
    return s;
}

/* ---------------------------------------------------------------- the files */

/* scores.tsv: the test table and its two score fields as text. */
typedef struct {
    char *buf;
    size_t n;
    int32_t *customer, *cutoff;
    char **score, **last;
} reftab;

static void reftab_free(reftab *t)
{
    free(t->buf);
    free(t->customer);
    free(t->cutoff);
    free(t->score);
    free(t->last);
    memset(t, 0, sizeof *t);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* scores.tsv through its one reader (lab/core/sctab.h), its score fields
 * kept as text: the columns taken over. */
static int read_scores_tsv(const char *path, reftab *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    sctab s;
    if (sctab_load(path, 1, &s, err, errlen) != 0)
        return -1;
    if (s.n == 0) {
        ut_seterr(err, errlen, "%s: no rows", path);
        sctab_free(&s);
        return -1;
    }
    t->n = s.n;
    t->buf = s.text;
    t->customer = s.customer;
    t->cutoff = s.cutoff;
    t->score = s.score_txt;
    t->last = s.last_txt;
    s.text = NULL;
    s.customer = s.cutoff = NULL;
    s.score_txt = s.last_txt = NULL;
    sctab_free(&s);
    return 0;
}

/* One header "row customer cutoff" + per seed names; S from its length. */
static int check_header(char *s, int pairs, size_t *S, const char *path, char *err, size_t errlen)
{
    size_t nf = 1;
    for (char *p = s; *p; p++)
        nf += *p == '\t';
    size_t per = pairs ? 2 : 1;
    int ok = nf > 3 && (nf - 3) % per == 0;
    size_t want = ok ? (nf - 3) / per : 0;
    if (ok && *S && want != *S)
        ok = 0;
    line l = {0};
    ok = ok && line_add(&l, "row\tcustomer\tcutoff") == 0;
    for (size_t k = 1; ok && k <= want; k++)
        ok = (pairs ? line_add(&l, "\tscore_%zu\tlast_known_%zu", k, k) : line_add(&l, "\tscore_%zu", k)) == 0;
    ok = ok && strcmp(l.s, s) == 0;
    free(l.s);
    if (!ok) {
        ut_seterr(err, errlen, "%s: line 1: not \"row customer cutoff %s\"%s", path,
                  pairs ? "score_1 last_known_1 ... score_S last_known_S" : "score_1 ... score_S",
                  *S ? " with the seeds of ap_scores.tsv.gz" : "");
        return -1;
    }
    *S = want;
    return 0;
}

/* The row, customer and cutoff fields of a line, against the table. */
static int row_fields(char **f, const reftab *t, long want_row, size_t *row, int32_t *cut, const char *path,
                      size_t ln, char *err, size_t errlen)
{
    int64_t r, u;
    if (prepread_int_field(f[0], 0, (int64_t)t->n - 1, &r, "row", path, ln, err, errlen) != 0 ||
        prepread_int_field(f[1], INT32_MIN, INT32_MAX, &u, "customer", path, ln, err, errlen) != 0 ||
        prepread_day_field(f[2], cut, path, ln, err, errlen) != 0)
        return -1;
    if (want_row >= 0 && r != want_row) {
        ut_seterr(err, errlen, "%s: line %zu: row %lld where row %ld belongs (rows in order)", path, ln,
                  (long long)r, want_row);
        return -1;
    }
    if (u != t->customer[r]) {
        ut_seterr(err, errlen, "%s: line %zu: row %lld customer %lld, but scores.tsv's row %lld is customer %d",
                  path, ln, (long long)r, (long long)u, (long long)r, t->customer[r]);
        return -1;
    }
    *row = (size_t)r;
    return 0;
}

/* ap_scores.tsv.gz: every row, seed 1 byte for byte scores.tsv's. */
static int read_ap_scores(const char *path, const reftab *t, size_t *S, float **live, float **lastk, char *err,
                          size_t errlen)
{
    char *buf = NULL, *p, *s, **f = NULL;
    int bad = 0, rc = -1;
    if (gz_slurp(path, &buf, err, errlen) != 0)
        return -1;
    p = buf;
    s = next_line(&p, &bad);
    *S = 0;
    if (!s || check_header(s, 1, S, path, err, errlen) != 0) {
        if (!s)
            ut_seterr(err, errlen, "%s: empty", path);
        goto done;
    }
    size_t nf = 3 + 2 * *S, n = t->n;
    f = malloc((nf + 1) * sizeof *f);
    *live = malloc(*S * n * sizeof **live);
    *lastk = malloc(*S * n * sizeof **lastk);
    if (!f || !*live || !*lastk) {
        ut_seterr(err, errlen, "out of memory");
        goto done;
    }
    size_t i = 0, row;
    int32_t cut;
    while ((s = next_line(&p, &bad))) {
        size_t ln = i + 2;
        if (i == n) {
            ut_seterr(err, errlen, "%s: line %zu: more rows than scores.tsv's %zu", path, ln, n);
            goto done;
        }
        if (prepread_split(s, f, nf) != nf) {
            ut_seterr(err, errlen, "%s: line %zu: expected %zu fields", path, ln, nf);
            goto done;
        }
        if (row_fields(f, t, (long)i, &row, &cut, path, ln, err, errlen) != 0)
            goto done;
        if (cut != t->cutoff[i] || strcmp(f[3], t->score[i]) != 0 || strcmp(f[4], t->last[i]) != 0) {
            ut_seterr(err, errlen, "%s: line %zu: cutoff %s, seed 1 score %s last_known %s, but scores.tsv's row "
                      "%zu has %s %s", path, ln, f[2], f[3], f[4], i, t->score[i], t->last[i]);
            goto done;
        }
        for (size_t k = 0; k < *S; k++)
            if (prepread_f32_field(f[3 + 2 * k], &(*live)[k * n + i], "score", path, ln, err, errlen) != 0 ||
                prepread_f32_field(f[4 + 2 * k], &(*lastk)[k * n + i], "last_known", path, ln, err, errlen) != 0)
                goto done;
        i++;
    }
    if (bad || i != n) {
        ut_seterr(err, errlen, "%s: %s", path, bad ? "the last line has no newline" : "fewer rows than scores.tsv");
        goto done;
    }
    rc = 0;
done:
    free(buf);
    free(f);
    return rc;
}

/* ap_prev_scores.tsv.gz: lines of rows at the first test cutoff c0. */
typedef struct {
    size_t n;
    int32_t *row, *cutoff;
    float *score;  /* [S * n] */
} prevlines;

static void prevlines_free(prevlines *v)
{
    free(v->row);
    free(v->cutoff);
    free(v->score);
    memset(v, 0, sizeof *v);
}

static int read_ap_prev(const char *path, const reftab *t, size_t S, int32_t c0, prevlines *v, char *err,
                        size_t errlen)
{
    char *buf = NULL, *p, *s, **f = NULL;
    int bad = 0, rc = -1;
    memset(v, 0, sizeof *v);
    if (gz_slurp(path, &buf, err, errlen) != 0)
        return -1;
    size_t cap = count_lines(buf) + 1, nf = 3 + S;
    p = buf;
    s = next_line(&p, &bad);
    f = malloc((nf + 1) * sizeof *f);
    v->row = malloc(cap * sizeof *v->row);
    v->cutoff = malloc(cap * sizeof *v->cutoff);
    v->score = malloc(S * cap * sizeof *v->score);
    if (!f || !v->row || !v->cutoff || !v->score) {
        ut_seterr(err, errlen, "out of memory");
        goto done;
    }
    if (!s || check_header(s, 0, &S, path, err, errlen) != 0) {
        if (!s)
            ut_seterr(err, errlen, "%s: empty", path);
        goto done;
    }
    while ((s = next_line(&p, &bad))) {
        size_t ln = v->n + 2, row;
        if (prepread_split(s, f, nf) != nf) {
            ut_seterr(err, errlen, "%s: line %zu: expected %zu fields", path, ln, nf);
            goto done;
        }
        if (row_fields(f, t, -1, &row, &v->cutoff[v->n], path, ln, err, errlen) != 0)
            goto done;
        if (t->cutoff[row] != c0) {
            ut_seterr(err, errlen, "%s: line %zu: row %zu is not at the first test cutoff", path, ln, row);
            goto done;
        }
        v->row[v->n] = (int32_t)row;
        for (size_t k = 0; k < S; k++)
            if (prepread_f32_field(f[3 + k], &v->score[k * cap + v->n], "score", path, ln, err, errlen) != 0)
                goto done;
        v->n++;
    }
    if (bad) {
        ut_seterr(err, errlen, "%s: the last line has no newline", path);
        goto done;
    }
    /* the scores were laid out for cap lines: pack them for n */
    for (size_t k = 1; k < S; k++)
        memmove(&v->score[k * v->n], &v->score[k * cap], v->n * sizeof *v->score);
    rc = 0;
done:
    free(buf);
    free(f);
    return rc;
}

/* manifest-ap.tsv: exactly the four files, each with its size and sha256. */
static int check_manifest(const char *root, const char *manifest, char *err, size_t errlen)
{
    char *buf = NULL, *p, *s, *f[4];
    size_t len, ln = 0;
    int bad = 0, rc = -1;
    if (ut_read_file(manifest, &buf, &len, err, errlen) != 0)
        return -1;
    p = buf;
    while ((s = next_line(&p, &bad))) {
        ln++;
        if (ln == 1) {
            if (strcmp(s, "path\tsize\tsha256") != 0) {
                ut_seterr(err, errlen, "%s: line 1: the header must be \"path size sha256\"", manifest);
                goto done;
            }
            continue;
        }
        if (ln > 5 || prepread_split(s, f, 3) != 3 || strcmp(f[0], MANIFEST_FILES[ln - 2]) != 0) {
            ut_seterr(err, errlen, "%s: line %zu: expected %s", manifest, ln,
                      ln > 5 ? "no more lines" : MANIFEST_FILES[ln - 2]);
            goto done;
        }
        char full[4200], sha[65];
        uint64_t size = 0;
        int64_t want;
        if (prepread_int_field(f[1], 0, INT64_MAX, &want, "size", manifest, ln, err, errlen) != 0 ||
            path_in(full, sizeof full, root, f[0]) != 0 || ut_sha256_file(full, sha, &size, err, errlen) != 0)
            goto done;
        if ((uint64_t)want != size || strcmp(sha, f[2]) != 0) {
            ut_seterr(err, errlen, "%s: line %zu: %s has size %llu sha256 %s, not the %s %s listed", manifest, ln,
                      f[0], (unsigned long long)size, sha, f[1], f[2]);
            goto done;
        }
    }
    if (bad || ln != 5) {
        ut_seterr(err, errlen, "%s: %s", manifest, bad ? "the last line has no newline" : "fewer than four files");
        goto done;
    }
    rc = 0;
done:
    free(buf);
    return rc;
}

/* summary.json through its one reader (lab/core/prepsum.h). */
static int read_summary(const char *path, float *dflt, int64_t *with, char *err, size_t errlen)
{
    prepsum sum;
    if (prepsum_load(path, &sum, err, errlen) != 0)
        return -1;
    if (sum.test_rows_with_last_known < 0) {
        ut_seterr(err, errlen, "%s: test_rows_with_last_known must be an integer", path);
        return -1;
    }
    *dflt = sum.default_score;
    *with = sum.test_rows_with_last_known;
    return 0;
}

int apref_check(const char *root, const char *manifest, const char *scores_tsv, const char *summary_json,
                size_t *nseeds, char *err, size_t errlen)
{
    reftab t = {0};
    prevlines pv = {0};
    float *live = NULL, *lastk = NULL, dflt = 0;
    int64_t want_with = 0;
    size_t S = 0, with = 0;
    char sp[4200], pp[4200];
    int rc = -1;
    if ((manifest && check_manifest(root, manifest, err, errlen) != 0) ||
        read_summary(summary_json, &dflt, &want_with, err, errlen) != 0 ||
        read_scores_tsv(scores_tsv, &t, err, errlen) != 0 || path_in(sp, sizeof sp, root, PATH_AP_SCORES) != 0 ||
        path_in(pp, sizeof pp, root, PATH_AP_PREV) != 0 || read_ap_scores(sp, &t, &S, &live, &lastk, err, errlen) != 0)
        goto done;
    int32_t c0 = t.cutoff[0];
    for (size_t i = 1; i < t.n; i++)
        if (t.cutoff[i] < c0)
            c0 = t.cutoff[i];
    if (read_ap_prev(pp, &t, S, c0, &pv, err, errlen) != 0)
        goto done;
    apref_scores sc = {t.n, S, t.customer, t.cutoff, live, lastk, dflt, pv.n, pv.row, pv.cutoff, pv.score, 0};
    if (apref_rule(&sc, &with, err, errlen) != 0) {
        char why[UT_ERRLEN];
        snprintf(why, sizeof why, "%s", err);
        ut_seterr(err, errlen, "%s, %s: %s", sp, pp, why);
        goto done;
    }
    if ((int64_t)with != want_with) {
        ut_seterr(err, errlen, "%s: %zu rows have a previous-cutoff score, but %s says test_rows_with_last_known %lld",
                  sp, with, summary_json, (long long)want_with);
        goto done;
    }
    if (nseeds)
        *nseeds = S;
    rc = 0;
done:
    reftab_free(&t);
    prevlines_free(&pv);
    free(live);
    free(lastk);
    return rc;
}
