/* apfiles: the files `make ap` ships for the verifier, read strictly; see apfiles.h. */
#include "apfiles.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mism.h"
#include "vnum.h"
#include "vutil.h"

static const char *const FILES[4] = {APF_SCORES, APF_PREV, APF_RESAMPLES, APF_JSON};
static const char *const KIND_NAMES[3] = {"last_known", "default", "none"};

/* ------------------------------------------------------------ bytes */

typedef struct {
    unsigned char *b[4];
    size_t len[4];
    int present[4];
} files;

static void read_files(const char *root, files *f)
{
    char err[512];
    for (int k = 0; k < 4; k++) {
        char *p = vu_xasprintf("%s/%s", root, FILES[k]);
        f->present[k] = vu_read_file(p, &f->b[k], &f->len[k], err, sizeof err) == 0;
        if (!f->present[k]) {
            f->b[k] = NULL;
            mm_add(NULL, FILES[k], "file", "(absent)", "present: results/ap.json exists (APCOST.md 1.10, 1.13)");
        }
        free(p);
    }
}

/* one manifest line against file k: 1 when it agrees */
static int manifest_line(const files *f, int k, char **fld, long line)
{
    char where[96];
    snprintf(where, sizeof where, "%s:%ld", APF_MANIFEST, line);
    if (strcmp(fld[0], FILES[k])) {
        mm_add(NULL, where, "path", fld[0], FILES[k]);
        return 0;
    }
    if (!f->present[k])
        return 0;
    int ok = 1;
    long long sz;
    if (vn_i64(fld[1], strlen(fld[1]), 0, LLONG_MAX, &sz) || (size_t)sz != f->len[k]) {
        mm_addf(NULL, FILES[k], "size (manifest-ap.tsv)", fld[1], "%zu", f->len[k]);
        ok = 0;
    }
    char sha[65];
    vu_sha256_hex(f->b[k], f->len[k], sha);
    if (strcmp(sha, fld[2])) {
        mm_add(NULL, FILES[k], "sha256 (manifest-ap.tsv)", fld[2], sha);
        ok = 0;
    }
    return ok;
}

/* provenance/manifest-ap.tsv: 1 when present and right about all four files */
static int check_manifest(const char *root, const files *f)
{
    char err[512];
    char *p = vu_xasprintf("%s/%s", root, APF_MANIFEST);
    unsigned char *b;
    size_t len;
    int rc = vu_read_file(p, &b, &len, err, sizeof err);
    free(p);
    if (rc) {
        mm_add(NULL, APF_MANIFEST, "(the file)", "(absent)", "present: results/ap.json exists (APCOST.md 1.10, 1.13)");
        return 0;
    }
    char *s = (char *)b, *end = s + len;
    long line = 0;
    int ok = 1, nfiles = 0;
    while (s < end) {
        line++;
        char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e)
            e = end;
        *e = 0;
        char *fld[3] = {s, NULL, NULL};
        int nf = 1;
        for (char *q = s; *q; q++)
            if (*q == '\t') {
                *q = 0;
                if (nf < 3)
                    fld[nf] = q + 1;
                nf++;
            }
        s = e + 1;
        char where[96];
        snprintf(where, sizeof where, "%s:%ld", APF_MANIFEST, line);
        if (line == 1) {
            if (nf != 3 || strcmp(fld[0], "path") || strcmp(fld[1], "size") || strcmp(fld[2], "sha256")) {
                mm_add(NULL, where, "header", fld[0], "path size sha256 (tab-separated)");
                ok = 0;
                break;
            }
            continue;
        }
        if (nf != 3) {
            mm_addf(NULL, where, "fields", "", "3 fields (path size sha256), found %d", nf);
            ok = 0;
            continue;
        }
        if (nfiles < 4)
            ok &= manifest_line(f, nfiles, fld, line);
        nfiles++;
    }
    free(b);
    if (line >= 1 && nfiles != 4 && ok) {
        char l[64];
        snprintf(l, sizeof l, "%d files", nfiles);
        mm_add(NULL, APF_MANIFEST, "lines", l, "exactly 4: the two ap_ reference files, ap_resamples.tsv.gz, ap.json");
        ok = 0;
    }
    if (line == 0) {
        mm_add(NULL, APF_MANIFEST, "(the file)", "(empty)", "a header and four lines (APCOST.md 1.10)");
        ok = 0;
    }
    return ok;
}

/* ----------------------------------------------------------- the text */

/* one gzip member, inflated whole: 0, or -1 with a message */
static int inflate_one(const unsigned char *gz, size_t len, char **out, size_t *outlen, char *err, size_t errlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        snprintf(err, errlen, "zlib cannot start");
        return -1;
    }
    size_t cap = len * 4 + 4096, n = 0;
    char *buf = vu_xmalloc(cap + 1);
    z.next_in = (Bytef *)gz;
    z.avail_in = (uInt)len;
    int r = 0;
    do {
        if (n == cap) {
            cap *= 2;
            buf = vu_xrealloc(buf, cap + 1);
        }
        z.next_out = (Bytef *)buf + n;
        z.avail_out = (uInt)(cap - n);
        r = inflate(&z, Z_NO_FLUSH);
        n = cap - z.avail_out;
    } while (r == Z_OK || (r == Z_BUF_ERROR && z.avail_out == 0));
    int rc = 0;
    if (r != Z_STREAM_END) {
        snprintf(err, errlen, "not a whole gzip stream (%s)", z.msg ? z.msg : "truncated");
        rc = -1;
    } else if (z.avail_in != 0) {
        snprintf(err, errlen, "%u bytes after the end of the first gzip member (one member of text, APCOST.md 1.10)",
                 z.avail_in);
        rc = -1;
    }
    inflateEnd(&z);
    buf[n] = 0;
    *out = buf;
    *outlen = n;
    return rc;
}

typedef struct {
    char *p, *end;
    long line;
    const char *name;
} lines;

/* the next line, NUL-terminated in place: 1; 0 at the end; -1 when the
 * last line has no "\n" (a mismatch said here) */
static int next_line(lines *l, char **s)
{
    if (l->p >= l->end)
        return 0;
    l->line++;
    char *e = memchr(l->p, '\n', (size_t)(l->end - l->p));
    if (!e) {
        char where[160];
        snprintf(where, sizeof where, "%s:%ld", l->name, l->line);
        mm_add(NULL, where, "line end", "(none)", "every line ends in \\n (APCOST.md 1.10)");
        return -1;
    }
    *e = 0;
    *s = l->p;
    l->p = e + 1;
    return 1;
}

/* the tab-separated fields of s (changed in place): their number; at most max kept */
static size_t split(char *s, char **f, size_t max)
{
    size_t n = 0;
    for (;;) {
        char *t = strchr(s, '\t');
        if (n < max)
            f[n] = s;
        n++;
        if (!t)
            return n;
        *t = 0;
        s = t + 1;
    }
}

/* one malformed line of a file: a mismatch, printed up to --max-print per file */
static void bad_line(const char *file, long line, const char *what, const char *found, const char *want)
{
    char where[160], group[160];
    snprintf(where, sizeof where, "%s:%ld", file, line);
    snprintf(group, sizeof group, "%s lines", file);
    mm_add(group, where, what, found, want);
}

/* the file's text, inflated; NULL (a mismatch said) when it is not one gzip member */
static char *text_of(const files *f, int k, size_t *len)
{
    if (!f->present[k])
        return NULL;
    char err[512], *t = NULL;
    if (inflate_one(f->b[k], f->len[k], &t, len, err, sizeof err)) {
        mm_add(NULL, FILES[k], "(gzip)", err, "one gzip member of text (APCOST.md 1.10)");
        free(t);
        return NULL;
    }
    return t;
}

/* ------------------------------------------------------ ap_scores.tsv.gz */

/* the header row customer cutoff score_1 last_known_1 ...: S, or 0 (said) */
static size_t scores_header(char *s, long line, int pairs)
{
    const char *file = pairs ? APF_SCORES : APF_PREV;
    size_t nf = 1;
    for (const char *q = s; *q; q++)
        nf += *q == '\t';
    char **f = vu_xmalloc((nf + 1) * sizeof *f);
    split(s, f, nf);
    size_t per = pairs ? 2 : 1, S = nf >= 3 ? (nf - 3) / per : 0;
    int ok = nf > 3 && (nf - 3) % per == 0 && !strcmp(f[0], "row") && !strcmp(f[1], "customer") &&
             !strcmp(f[2], "cutoff");
    for (size_t s1 = 0; ok && s1 < S; s1++) {
        char want[64];
        snprintf(want, sizeof want, "score_%zu", s1 + 1);
        ok = !strcmp(f[3 + per * s1], want);
        snprintf(want, sizeof want, "last_known_%zu", s1 + 1);
        if (ok && pairs)
            ok = !strcmp(f[4 + per * s1], want);
    }
    free(f);
    if (!ok) {
        char where[160];
        snprintf(where, sizeof where, "%s:%ld", file, line);
        mm_add(NULL, where, "header", "(as found)",
               pairs ? "row customer cutoff score_1 last_known_1 ... score_S last_known_S (APCOST.md 1.10)"
                     : "row customer cutoff score_1 ... score_S (APCOST.md 1.10)");
        return 0;
    }
    return S;
}

/* a score field as a 32-bit float: 0, or -1 (a mismatch said) */
static int score_field(const char *file, long line, const char *name, const char *s, float *out)
{
    if (vn_f32(s, strlen(s), out) == VN_OK)
        return 0;
    bad_line(file, line, name, s, "a score (a 32-bit float, %.9g)");
    return -1;
}

/* one data line of ap_scores (f: its 3 + 2S fields) for row k: 0, or -1 when it cannot be read */
static int scores_line(apf_data *d, const ap_table *t, size_t k, char **f, long line)
{
    long long row;
    char want[64];
    snprintf(want, sizeof want, "%zu (line k + 2 is row k)", k);
    if (vn_i64(f[0], strlen(f[0]), 0, LLONG_MAX, &row) || (size_t)row != k) {
        bad_line(APF_SCORES, line, "row", f[0], want);
        return -1;
    }
    if (strcmp(f[1], t->cust[k]))
        bad_line(APF_SCORES, line, "customer", f[1], t->cust[k]);
    if (strcmp(f[2], t->cut[k]))
        bad_line(APF_SCORES, line, "cutoff", f[2], t->cut[k]);
    if (strcmp(f[3], t->score[k]))
        bad_line(APF_SCORES, line, "score_1", f[3], t->score[k]);
    if (strcmp(f[4], t->lastk[k]))
        bad_line(APF_SCORES, line, "last_known_1", f[4], t->lastk[k]);
    int rc = 0;
    for (size_t s = 0; s < d->S; s++) {
        char n1[32], n2[32];
        snprintf(n1, sizeof n1, "score_%zu", s + 1);
        snprintf(n2, sizeof n2, "last_known_%zu", s + 1);
        rc |= score_field(APF_SCORES, line, n1, f[3 + 2 * s], &d->live[s][k]);
        rc |= score_field(APF_SCORES, line, n2, f[4 + 2 * s], &d->lastk[s][k]);
    }
    return rc;
}

static void read_scores(apf_data *d, const files *fl, const ap_table *t)
{
    size_t len;
    char *text = text_of(fl, 0, &len);
    if (!text)
        return;
    lines l = {text, text + len, 0, APF_SCORES};
    char *s;
    int ok = next_line(&l, &s) == 1 && (d->S = scores_header(s, 1, 1)) > 0;
    if (ok) {
        d->live = vu_xcalloc(d->S, sizeof *d->live);
        d->lastk = vu_xcalloc(d->S, sizeof *d->lastk);
        for (size_t k = 0; k < d->S; k++) {
            d->live[k] = vu_xmalloc((t->n + 1) * sizeof **d->live);
            d->lastk[k] = vu_xmalloc((t->n + 1) * sizeof **d->lastk);
        }
    }
    size_t nf = 3 + 2 * d->S, k = 0;
    char **f = vu_xmalloc((nf + 1) * sizeof *f);
    int r = 0;
    while (ok && (r = next_line(&l, &s)) == 1) {
        size_t got = split(s, f, nf);
        if (got != nf) {
            char m[64];
            snprintf(m, sizeof m, "%zu fields (3 + 2 x %zu seeds)", nf, d->S);
            char g[32];
            snprintf(g, sizeof g, "%zu fields", got);
            bad_line(APF_SCORES, l.line, "fields", g, m);
            ok = 0;
        } else if (k >= t->n) {
            char m[64];
            snprintf(m, sizeof m, "%zu data lines (the rows of scores.tsv)", t->n);
            bad_line(APF_SCORES, l.line, "line", "(one line too many)", m);
            ok = 0;
        } else if (scores_line(d, t, k, f, l.line)) {
            ok = 0;
        }
        k++;
    }
    if (ok && r < 0)
        ok = 0;
    if (ok && k != t->n) {
        char g[64], m[64];
        snprintf(g, sizeof g, "%zu data lines", k);
        snprintf(m, sizeof m, "%zu (the rows of scores.tsv)", t->n);
        mm_add(NULL, APF_SCORES, "lines", g, m);
        ok = 0;
    }
    d->scores_ok = ok;
    free(f);
    free(text);
}

/* ------------------------------------------------- ap_prev_scores.tsv.gz */

static void read_prev(apf_data *d, const files *fl, const ap_table *t)
{
    size_t len;
    char *text = text_of(fl, 1, &len);
    if (!text)
        return;
    d->text_prev = text;
    lines l = {text, text + len, 0, APF_PREV};
    char *s;
    size_t S = 0;
    int ok = next_line(&l, &s) == 1 && (S = scores_header(s, 1, 0)) > 0;
    if (ok && d->scores_ok && S != d->S) {
        char g[32], m[64];
        snprintf(g, sizeof g, "%zu seeds", S);
        snprintf(m, sizeof m, "%zu (the seeds of ap_scores.tsv.gz)", d->S);
        mm_add(NULL, APF_PREV ":1", "header", g, m);
        ok = 0;
    }
    size_t cap = 0;
    size_t nf = 3 + S;
    char **f = vu_xmalloc((nf + 1) * sizeof *f);
    if (ok) {
        d->prev = vu_xcalloc(S, sizeof *d->prev);
        d->prev_S = S;
    }
    int r = 0;
    while (ok && (r = next_line(&l, &s)) == 1) {
        size_t got = split(s, f, nf);
        long long row;
        if (got != nf) {
            char g[32], m[64];
            snprintf(g, sizeof g, "%zu fields", got);
            snprintf(m, sizeof m, "%zu fields (3 + %zu seeds)", nf, S);
            bad_line(APF_PREV, l.line, "fields", g, m);
            ok = 0;
            break;
        }
        if (vn_i64(f[0], strlen(f[0]), 0, (long long)t->n - 1, &row)) {
            char m[64];
            snprintf(m, sizeof m, "a row of scores.tsv (0 to %zu)", t->n ? t->n - 1 : 0);
            bad_line(APF_PREV, l.line, "row", f[0], m);
            ok = 0;
            break;
        }
        if (d->nprev == cap) {
            cap = cap ? 2 * cap : 1024;
            d->prev_row = vu_xrealloc(d->prev_row, cap * sizeof *d->prev_row);
            d->prev_line = vu_xrealloc(d->prev_line, cap * sizeof *d->prev_line);
            d->prev_cust = vu_xrealloc(d->prev_cust, cap * sizeof *d->prev_cust);
            d->prev_cut = vu_xrealloc(d->prev_cut, cap * sizeof *d->prev_cut);
            for (size_t k = 0; k < S; k++)
                d->prev[k] = vu_xrealloc(d->prev[k], cap * sizeof **d->prev);
        }
        size_t i = d->nprev++;
        d->prev_row[i] = (size_t)row;
        d->prev_line[i] = l.line;
        d->prev_cust[i] = f[1];
        d->prev_cut[i] = f[2];
        for (size_t k = 0; k < S; k++) {
            char n1[32];
            snprintf(n1, sizeof n1, "score_%zu", k + 1);
            if (score_field(APF_PREV, l.line, n1, f[3 + k], &d->prev[k][i]))
                ok = 0;
        }
    }
    if (ok && r < 0)
        ok = 0;
    free(f);
    d->prev_ok = ok;
}

/* --------------------------------------------------- ap_resamples.tsv.gz */

static int res_line(apf_res *x, char **f, long line)
{
    x->line = line;
    x->arm = f[0];
    x->kind = -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(f[1], KIND_NAMES[k]))
            x->kind = k;
    if (x->kind < 0) {
        bad_line(APF_RESAMPLES, line, "kind", f[1], "last_known, default or none");
        return -1;
    }
    if (vn_i64(f[2], strlen(f[2]), 0, LLONG_MAX, &x->b)) {
        bad_line(APF_RESAMPLES, line, "resample", f[2], "an integer from 0");
        return -1;
    }
    x->dropped = !strcmp(f[3], "dropped");
    if (!x->dropped && vn_f64(f[3], strlen(f[3]), &x->v)) {
        bad_line(APF_RESAMPLES, line, "change", f[3], "a number (%.17g) or dropped");
        return -1;
    }
    return 0;
}

static void read_res(apf_data *d, const files *fl)
{
    size_t len;
    char *text = text_of(fl, 2, &len);
    if (!text)
        return;
    d->text_res = text;
    lines l = {text, text + len, 0, APF_RESAMPLES};
    char *s, *f[5];
    int ok = next_line(&l, &s) == 1;
    if (ok && (split(s, f, 5) != 4 || strcmp(f[0], "arm") || strcmp(f[1], "kind") || strcmp(f[2], "resample") ||
               strcmp(f[3], "change"))) {
        mm_add(NULL, APF_RESAMPLES ":1", "header", "(as found)", "arm kind resample change (APCOST.md 1.10)");
        ok = 0;
    }
    size_t cap = 0;
    int r = 0;
    while (ok && (r = next_line(&l, &s)) == 1) {
        size_t got = split(s, f, 5);
        if (d->nres == cap) {
            cap = cap ? 2 * cap : 4096;
            d->res = vu_xrealloc(d->res, cap * sizeof *d->res);
        }
        if (got != 4) {
            char g[32];
            snprintf(g, sizeof g, "%zu fields", got);
            bad_line(APF_RESAMPLES, l.line, "fields", g, "4 fields (arm kind resample change)");
            ok = 0;
        } else if (res_line(&d->res[d->nres], f, l.line)) {
            ok = 0;
        } else {
            d->nres++;
        }
    }
    if (ok && r < 0)
        ok = 0;
    d->res_ok = ok;
}

/* ------------------------------------------------------------ apf_read */

void apf_read(const char *root, const ap_table *t, apf_data *d)
{
    memset(d, 0, sizeof *d);
    files f;
    memset(&f, 0, sizeof f);
    read_files(root, &f);
    d->manifest_ok = check_manifest(root, &f);
    read_scores(d, &f, t);
    read_prev(d, &f, t);
    read_res(d, &f);
    for (int k = 0; k < 4; k++)
        free(f.b[k]);
}

void apf_free(apf_data *d)
{
    for (size_t s = 0; s < d->S; s++) {
        if (d->live)
            free(d->live[s]);
        if (d->lastk)
            free(d->lastk[s]);
    }
    free(d->live);
    free(d->lastk);
    for (size_t s = 0; s < d->prev_S; s++)
        free(d->prev[s]);
    free(d->prev);
    free(d->prev_row);
    free(d->prev_line);
    free(d->prev_cust);
    free(d->prev_cut);
    free(d->res);
    free(d->text_prev);
    free(d->text_res);
    memset(d, 0, sizeof *d);
}
