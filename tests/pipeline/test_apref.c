/* apref: the files `make ap` ships so that the whole AP result can be
 * recomputed (pipeline/ap/apref.[ch], pipeline/APCOST.md 1.3 and 1.10-1.13).
 *
 * - The bootstrap's generator as APCOST.md 1.11 writes it, implemented here
 *   from the page alone, equals the lab's ut_rng; the page's worked values
 *   (state words, first draws, the picks for the real C) are the lab's.
 * - The last-known rule (apref_rule) on a hand-made table: accepted, and
 *   each kind of break named with its seed and row.
 * - The whole stage on the real build/prep with 20 model seeds: the shipped
 *   files read back here with zlib alone: seed 1 = scores.tsv byte for byte;
 *   the rule for every row and seed; test_rows_with_last_known; every seed's
 *   live AP and changes and two resamples recomputed from the shipped scores
 *   and the page's generators (customers and rounds, format lab-ap 2); the
 *   interval and its Monte Carlo errors from the shipped resamples; the
 *   manifest; then tampered files refused (by apref_check and by `check`),
 *   and a failed rerun leaves no manifest.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "ap.h"
#include "apcost.h"
#include "apref.h"
#include "opt.h"
#include "util.h"

#define PREP "build/prep"
#define EPS 1e-12

/* ------------------------------------------------------------ the generator, from APCOST.md 1.11 */

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t fin(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static const uint64_t GAMMA = 0x9e3779b97f4a7c15ULL;

static void xo_seed(uint64_t s[4], uint64_t sigma)
{
    for (int k = 0; k < 4; k++)
        s[k] = fin(sigma + (uint64_t)(k + 2) * GAMMA);
}

static uint64_t xo_next(uint64_t s[4])
{
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* The page with every run of white space made one space. */
static char *page(void)
{
    char *buf = NULL, err[UT_ERRLEN];
    size_t n;
    cr_assert_eq(ut_read_file("pipeline/APCOST.md", &buf, &n, err, sizeof err), 0, "%s", err);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int ws = buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t';
        if (ws && o > 0 && buf[o - 1] == ' ')
            continue;
        buf[o++] = ws ? ' ' : buf[i];
    }
    buf[o] = 0;
    return buf;
}

static void says(const char *doc, const char *text)
{
    cr_assert_not_null(strstr(doc, text), "pipeline/APCOST.md does not say \"%s\"", text);
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The distinct customers of build/prep/scores.tsv. */
static size_t real_customers(void)
{
    FILE *f = fopen(PREP "/scores.tsv", "r");
    cr_assert_not_null(f, "run `make prepare` first");
    char line[512];
    int32_t *ids = malloc(40000 * sizeof *ids);
    size_t n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        cr_assert_lt(n, 40000);
        cr_assert_eq(sscanf(line, "%d", &ids[n]), 1);
        n++;
    }
    fclose(f);
    qsort(ids, n, sizeof *ids, int_cmp);
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += i == 0 || ids[i] != ids[i - 1];
    free(ids);
    return c;
}

Test(apref, generator_as_the_page_writes_it)
{
    ut_rng r;
    uint64_t s[4];
    ut_rng_seed(&r, 1);
    xo_seed(s, 1);
    static const uint64_t STATE[4] = {0xbeeb8da1658eec67ULL, 0xf893a2eefb32555eULL, 0x71c18690ee42c90bULL,
                                      0x71bb54d8d101b5b9ULL};
    static const uint64_t FIRST[5] = {18001451845637162709ULL, 15091038358276433251ULL, 7540168338507695658ULL,
                                      10371344164145850652ULL, 5925099412492024740ULL};
    /* "start a standard splitmix64 at sigma, discard its first output" */
    uint64_t x = 1;
    x += GAMMA;
    for (int k = 0; k < 4; k++) {
        x += GAMMA;
        cr_assert_eq(fin(x), STATE[k]);
        cr_assert_eq(r.s[k], STATE[k], "state word %d", k);
        cr_assert_eq(s[k], STATE[k]);
    }
    for (int i = 0; i < 5; i++) {
        uint64_t a = ut_rng_u64(&r), b = xo_next(s);
        cr_assert_eq(a, FIRST[i], "draw %d: %llu", i, (unsigned long long)a);
        cr_assert_eq(b, FIRST[i]);
    }
    for (int i = 0; i < 100000; i++)
        cr_assert_eq(ut_rng_u64(&r), xo_next(s), "draw %d", i + 5);
    /* another seed too: the page's seeding is not special to 1 */
    ut_rng_seed(&r, 977);
    xo_seed(s, 977);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(ut_rng_u64(&r), xo_next(s));

    /* the page's worked values, with the real C */
    char *doc = page(), buf[256];
    size_t C = real_customers();
    for (int k = 0; k < 4; k++) {
        snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)STATE[k]);
        says(doc, buf);
    }
    for (int i = 0; i < 5; i++) {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)FIRST[i]);
        says(doc, buf);
    }
    snprintf(buf, sizeof buf, "the real C = %zu", C);
    says(doc, buf);
    ut_rng_seed(&r, 1);
    size_t o = (size_t)snprintf(buf, sizeof buf, "customer indices ");
    for (int i = 0; i < 10; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%llu", i ? ", " : "",
                              (unsigned long long)(ut_rng_u64(&r) % C));
    says(doc, buf);
    for (size_t i = 10; i < C - 1; i++)
        ut_rng_u64(&r);
    uint64_t last = ut_rng_u64(&r), first1 = ut_rng_u64(&r);
    snprintf(buf, sizeof buf, "(number %zu) is u = %llu, index %llu", C - 1, (unsigned long long)last,
             (unsigned long long)(last % C));
    says(doc, buf);
    snprintf(buf, sizeof buf, "(number %zu) is u = %llu, index %llu", C, (unsigned long long)first1,
             (unsigned long long)(first1 % C));
    says(doc, buf);
    free(doc);
}

/* ------------------------------------------------------------ the rule by hand */

/* Cutoffs 2011-06-01 (c0) and 2011-07-01; customers 7, 8, 9.
 *   row 0: 7 at c0 (a previous-cutoff line at 2011-05-01)
 *   row 1: 8 at c0 (new: default)
 *   row 2: 7 at 2011-07 -> last_known = row 0's score
 *   row 3: 9 at 2011-07 (no row at c0: default)
 *   row 4: 8 at 2011-07 -> last_known = row 1's score
 * Two seeds. */
#define HN 5
static int32_t H_CUST[HN] = {7, 8, 7, 9, 8};
static int32_t H_CUT[HN];
static float H_LIVE[2 * HN] = {.6f, .3f, .7f, .2f, .4f, /* seed 2 */ .61f, .31f, .71f, .21f, .41f};
static float H_LAST[2 * HN] = {.5f, .25f, .6f, .25f, .3f, /* seed 2 */ .51f, .25f, .61f, .25f, .31f};
static int32_t H_PROW[1] = {0}, H_PCUT[1];
static float H_PSCORE[2] = {.5f, .51f};

static apref_scores hand(void)
{
    int32_t c0 = ut_days_from_civil(2011, 6, 1), c1 = ut_days_from_civil(2011, 7, 1);
    for (int i = 0; i < HN; i++)
        H_CUT[i] = i < 2 ? c0 : c1;
    H_PCUT[0] = ut_days_from_civil(2011, 5, 1);
    return (apref_scores){HN, 2, H_CUST, H_CUT, H_LIVE, H_LAST, .25f, 1, H_PROW, H_PCUT, H_PSCORE, 0};
}

Test(apref, rule_by_hand)
{
    char err[UT_ERRLEN] = "";
    size_t with = 99;
    apref_scores sc = hand();
    cr_assert_eq(apref_rule(&sc, &with, err, sizeof err), 0, "%s", err);
    cr_assert_eq(with, 3);  /* rows 0, 2, 4 */

    /* seed 2, row 4: one ulp off its customer's score a month earlier */
    H_LAST[HN + 4] = nextafterf(.31f, 1.0f);
    cr_assert_neq(apref_rule(&sc, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "model seed 2, row 4 (customer 8 at 2011-07-01)") && strstr(err, "(row 1)"), "%s", err);
    H_LAST[HN + 4] = .31f;
    /* a new customer's last_known is the default, in every seed */
    H_LAST[3] = .2f;
    cr_assert_neq(apref_rule(&sc, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "model seed 1, row 3") && strstr(err, "default"), "%s", err);
    H_LAST[3] = .25f;
    /* the previous-cutoff score of the first cutoff */
    H_PSCORE[1] = .52f;
    cr_assert_neq(apref_rule(&sc, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "model seed 2, row 0") && strstr(err, "previous-cutoff score"), "%s", err);
    H_PSCORE[1] = .51f;
    /* prev lines must be the month before */
    H_PCUT[0] = ut_days_from_civil(2011, 4, 1);
    cr_assert_neq(apref_rule(&sc, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "not the month before"), "%s", err);
    /* complete lines (the stage's prev.tsv): rows 2 and 4 need theirs */
    sc = hand();
    sc.prev_complete = 1;
    cr_assert_neq(apref_rule(&sc, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "row 2") && strstr(err, "no previous-cutoff line"), "%s", err);
    int32_t prow[3] = {0, 2, 4}, pcut[3] = {H_PCUT[0], H_CUT[0], H_CUT[0]};
    sc.nprev = 3;
    sc.prev_row = prow;
    sc.prev_cutoff = pcut;
    sc.prev_score = NULL;
    cr_assert_eq(apref_rule(&sc, &with, err, sizeof err), 0, "%s", err);
    cr_assert_eq(with, 3);
    /* a line at a test cutoff without its test row: customer 9 had none at c0 */
    int32_t prow2[2] = {0, 3}, pcut2[2] = {H_PCUT[0], H_CUT[0]};
    sc = hand();
    sc.nprev = 2;
    sc.prev_row = prow2;
    sc.prev_cutoff = pcut2;
    sc.prev_score = NULL;
    cr_assert_neq(apref_rule(&sc, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "customer 9 has no test row at 2011-06-01"), "%s", err);
}

/* ------------------------------------------------------------ the shipped files on the real data */

static char tmp[64];

static void mk_tmp(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/aprefXXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    cr_assert_eq(system(cmd), 0);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* A tester file (raw format 4): request j asks row j (j mod the table's
 * rows), answered with kinds[j]. */
static void write_tester(const char *path, const char *kinds, size_t n)
{
    gzFile gz = gzopen(path, "wb");
    cr_assert_not_null(gz);
    gzprintf(gz, "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n");
    for (size_t j = 0; j < n; j++)
        gzprintf(gz, "50\t2000\t200\t%c\t0.25\t0\t0\n", kinds[j]);
    gzclose(gz);
}

static char *gz_text(const char *path)
{
    gzFile g = gzopen(path, "rb");
    cr_assert_not_null(g, "%s", path);
    size_t cap = 1 << 22, n = 0;
    char *buf = malloc(cap);
    int k;
    while ((k = gzread(g, buf + n, (unsigned)(cap - n - 1))) > 0) {
        n += (size_t)k;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    cr_assert_geq(k, 0, "%s", path);
    gzclose(g);
    buf[n] = 0;
    return buf;
}

static void gz_write_text(const char *path, const char *text)
{
    gzFile g = gzopen(path, "wb");
    cr_assert_not_null(g);
    cr_assert_eq(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
    cr_assert_eq(gzclose(g), Z_OK);
}

/* Lines of a text, each split at tabs: v[line][field]. */
typedef struct {
    size_t n, nf;
    char ***v;
} tab;

static void tab_make(tab *t, char *text, size_t nf)
{
    size_t cap = 1;
    for (char *p = text; *p; p++)
        cap += *p == '\n';
    t->v = malloc(cap * sizeof *t->v);
    t->n = 0;
    t->nf = nf;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        t->v[t->n] = malloc(nf * sizeof **t->v);
        size_t k = 0;
        char *s2 = NULL;
        for (char *f = strtok_r(l, "\t", &s2); f; f = strtok_r(NULL, "\t", &s2)) {
            cr_assert_lt(k, nf, "line %zu has more than %zu fields", t->n + 1, nf);
            t->v[t->n][k++] = f;
        }
        cr_assert_eq(k, nf, "line %zu: %zu fields, not %zu", t->n + 1, k, nf);
        t->n++;
    }
}

static void tab_free(tab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
}

/* A whole decimal integer. */
static long num(const char *s)
{
    int64_t v;
    cr_assert_eq(opt_i64(s, INT64_MIN, INT64_MAX, &v, NULL, 0), 0, "\"%s\" is not an integer", s);
    return (long)v;
}

static float f32(const char *s)
{
    char *e;
    float v = strtof(s, &e);
    cr_assert(*s && !*e, "\"%s\" is not a number", s);
    return v;
}

/* "YYYY-MM-DD" of the month before. */
static void month_before(const char *c, char out[11])
{
    int y, m;
    cr_assert_eq(sscanf(c, "%d-%d", &y, &m), 2);
    cr_assert(y >= 1000 && y <= 9999 && m >= 1 && m <= 12, "%s", c);
    if (--m == 0) {
        m = 12;
        y--;
    }
    snprintf(out, 11, "%04u-%02u-01", (unsigned)y % 10000u, (unsigned)m % 100u);
}

typedef struct {
    int cust;
    const char *cut;
    size_t row;
} key;

static int key_cmp(const void *a, const void *b)
{
    const key *x = a, *y = b;
    int c = strcmp(x->cut, y->cut);
    return c ? c : (x->cust > y->cust) - (x->cust < y->cust);
}

static double jnum(json_t *o, const char *path)
{
    json_t *v = o;
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        v = (*k >= '0' && *k <= '9') ? json_array_get(v, (size_t)num(k)) : json_object_get(v, k);
    cr_assert(json_is_number(v), "%s", path);
    return json_number_value(v);
}

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Everything the shipped files let a verifier recompute, from them alone. */
typedef struct {
    size_t n, S, C;
    tab sc, pv, ref;        /* ap_scores, ap_prev_scores, scores.tsv */
    float *live, *last;     /* [s * n + i] */
    uint8_t *label;
    int32_t *group;         /* cutoff, as a number */
    uint32_t *cidx;         /* row -> customer index (ascending ids) */
    float d;
    int64_t with;
} shipped;

static void shipped_read(shipped *w, char **texts)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp, PATH_AP_SCORES);
    texts[0] = gz_text(path);
    snprintf(path, sizeof path, "%s/%s", tmp, PATH_AP_PREV);
    texts[1] = gz_text(path);
    char *err_buf = NULL, err[UT_ERRLEN];
    size_t len;
    cr_assert_eq(ut_read_file(PREP "/scores.tsv", &err_buf, &len, err, sizeof err), 0);
    texts[2] = err_buf;
    tab_make(&w->ref, texts[2], 5);
    w->n = w->ref.n - 1;
    w->S = 20;
    tab_make(&w->sc, texts[0], 3 + 2 * w->S);
    tab_make(&w->pv, texts[1], 3 + w->S);
    json_t *summ = json_load_file(PREP "/summary.json", 0, NULL);
    cr_assert_not_null(summ);
    w->d = (float)jnum(summ, "default_score");
    w->with = (int64_t)jnum(summ, "test_rows_with_last_known");
    json_decref(summ);
    size_t n = w->n;
    w->live = malloc(w->S * n * sizeof(float));
    w->last = malloc(w->S * n * sizeof(float));
    w->label = malloc(n);
    w->group = malloc(n * sizeof *w->group);
    w->cidx = malloc(n * sizeof *w->cidx);
    int *ids = malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++) {
        char **r = w->ref.v[i + 1], **s = w->sc.v[i + 1];
        int y, m, dd;
        cr_assert_eq(sscanf(r[1], "%d-%d-%d", &y, &m, &dd), 3);
        w->group[i] = y * 10000 + m * 100 + dd;
        w->label[i] = r[2][0] == '1';
        ids[i] = num(r[0]);
        for (size_t k = 0; k < w->S; k++) {
            w->live[k * n + i] = f32(s[3 + 2 * k]);
            w->last[k * n + i] = f32(s[4 + 2 * k]);
        }
    }
    /* customers ascending: index = rank among the distinct ids */
    int *sorted = malloc(n * sizeof *sorted);
    memcpy(sorted, ids, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, int_cmp);
    size_t C = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || sorted[i] != sorted[i - 1])
            sorted[C++] = sorted[i];
    w->C = C;
    for (size_t i = 0; i < n; i++)
        w->cidx[i] = (uint32_t)((int *)bsearch(&ids[i], sorted, C, sizeof *sorted, int_cmp) - sorted);
    free(sorted);
    free(ids);
}

static void shipped_free(shipped *w, char **texts)
{
    tab_free(&w->sc);
    tab_free(&w->pv);
    tab_free(&w->ref);
    free(w->live);
    free(w->last);
    free(w->label);
    free(w->group);
    free(w->cidx);
    for (int i = 0; i < 3; i++)
        free(texts[i]);
}

/* Layout, and seed 1 byte for byte scores.tsv's (APCOST.md 1.10, check 1). */
static void check_layout(const shipped *w)
{
    char h[64];
    for (size_t k = 0; k < 3; k++) {
        const char *names[] = {"row", "customer", "cutoff"};
        cr_assert_str_eq(w->sc.v[0][k], names[k]);
        cr_assert_str_eq(w->pv.v[0][k], names[k]);
    }
    for (size_t s = 1; s <= w->S; s++) {
        snprintf(h, sizeof h, "score_%zu", s);
        cr_assert_str_eq(w->sc.v[0][1 + 2 * s], h);
        cr_assert_str_eq(w->pv.v[0][2 + s], h);
        snprintf(h, sizeof h, "last_known_%zu", s);
        cr_assert_str_eq(w->sc.v[0][2 + 2 * s], h);
    }
    cr_assert_eq(w->sc.n, w->n + 1, "one line per test row");
    for (size_t i = 0; i < w->n; i++) {
        char **s = w->sc.v[i + 1], **r = w->ref.v[i + 1];
        cr_assert_eq((size_t)num(s[0]), i);
        cr_assert_str_eq(s[1], r[0]);
        cr_assert_str_eq(s[2], r[1]);
        cr_assert_str_eq(s[3], r[3], "row %zu: seed 1's score", i);
        cr_assert_str_eq(s[4], r[4], "row %zu: seed 1's last_known", i);
    }
}

/* The last-known rule for every row and seed (APCOST.md 1.3; 1.10 checks
 * 2-4), written here from the page.  Returns the lines of ap_prev_scores. */
static size_t check_rule(const shipped *w)
{
    size_t n = w->n;
    key *k = malloc(n * sizeof *k);
    const char *c0 = w->sc.v[1][2];
    for (size_t i = 0; i < n; i++) {
        k[i] = (key){num(w->sc.v[i + 1][1]), w->sc.v[i + 1][2], i};
        if (strcmp(k[i].cut, c0) < 0)
            c0 = k[i].cut;
    }
    qsort(k, n, sizeof *k, key_cmp);
    long *line_of = malloc(n * sizeof *line_of);
    for (size_t i = 0; i < n; i++)
        line_of[i] = -1;
    char pc[11];
    for (size_t l = 1; l < w->pv.n; l++) {
        char **p = w->pv.v[l];
        size_t r = (size_t)num(p[0]);
        cr_assert_lt(r, n);
        cr_assert_eq(line_of[r], -1, "row %zu named twice", r);
        cr_assert_str_eq(p[1], w->sc.v[r + 1][1]);
        cr_assert_str_eq(w->sc.v[r + 1][2], c0, "a line of ap_prev_scores is at the first test cutoff");
        month_before(c0, pc);
        cr_assert_str_eq(p[2], pc);
        line_of[r] = (long)l;
    }
    int64_t with = 0;
    size_t later = 0;
    for (size_t i = 0; i < n; i++) {
        char **s = w->sc.v[i + 1];
        month_before(s[2], pc);
        key q = {num(s[1]), pc, 0}, *j = bsearch(&q, k, n, sizeof *k, key_cmp);
        with += j || line_of[i] >= 0;
        later += j != NULL;
        for (size_t t = 0; t < w->S; t++) {
            const char *lk = s[4 + 2 * t];
            if (j)
                cr_assert_str_eq(lk, w->sc.v[j->row + 1][3 + 2 * t], "seed %zu row %zu: row %zu a month earlier",
                                 t + 1, i, j->row);
            else if (line_of[i] >= 0)
                cr_assert_str_eq(lk, w->pv.v[line_of[i]][3 + t], "seed %zu row %zu", t + 1, i);
            else
                cr_assert(f32(lk) == w->d, "seed %zu row %zu: %s is not the default", t + 1, i, lk);
        }
    }
    cr_assert_eq(with, w->with, "test_rows_with_last_known");
    cr_assert_gt(later, 0);
    cr_assert_gt(w->pv.n - 1, 0);
    cr_assert_lt(with, (int64_t)n, "some customers are new");
    free(k);
    free(line_of);
    return w->pv.n - 1;
}

/* The stand-in vector of seed s (index), kind k, over the mask. */
static void standin(const shipped *w, size_t s, int kind, const uint8_t *mask, float *v)
{
    for (size_t i = 0; i < w->n; i++)
        v[i] = !mask[i] ? w->live[s * w->n + i]
                        : kind == 0 ? w->last[s * w->n + i] : kind == 1 ? w->d : -INFINITY;
}

/* Every seed's live AP and changes of arm X (round 1 replaces mask's rows,
 * round 2 nothing) from the shipped scores (APCOST.md 1.4). */
static void check_point_values(const shipped *w, json_t *ap, const uint8_t *mask)
{
    float *v = malloc(w->n * sizeof *v);
    json_t *x = json_object_get(json_object_get(ap, "arms"), "X");
    double mean[3] = {0, 0, 0};
    for (size_t s = 0; s < w->S; s++) {
        double L = ap_mean_by_group(w->live + s * w->n, w->label, w->group, w->n);
        char p[128];
        snprintf(p, sizeof p, "live_ap.per_seed.%zu", s);
        cr_assert_float_eq(jnum(ap, p), L, EPS, "seed %zu", s + 1);
        for (int k = 0; k < 3; k++) {
            standin(w, s, k, mask, v);
            double ch = (ap_mean_by_group(v, w->label, w->group, w->n) - L) / 2.0;
            snprintf(p, sizeof p, "kinds.%s.change_per_seed.%zu", apboot_kind_names[k], s);
            cr_assert_float_eq(jnum(x, p), ch, EPS, "seed %zu %s", s + 1, apboot_kind_names[k]);
            mean[k] += ch / (double)w->S;
        }
    }
    for (int k = 0; k < 3; k++) {
        char p[128];
        snprintf(p, sizeof p, "kinds.%s.change", apboot_kind_names[k]);
        cr_assert_float_eq(jnum(x, p), mean[k], EPS);
    }
    free(v);
}

/* AP with row i written w[cidx[i]] times (the weighted AP of 1.5, by its
 * definition). */
static double ap_expanded(const shipped *w, const float *score, const uint32_t *wt)
{
    size_t m = 0;
    for (size_t i = 0; i < w->n; i++)
        m += wt[w->cidx[i]];
    float *s = malloc((m + 1) * sizeof *s);
    uint8_t *y = malloc(m + 1);
    int32_t *g = malloc((m + 1) * sizeof *g);
    size_t o = 0;
    for (size_t i = 0; i < w->n; i++)
        for (uint32_t r = 0; r < wt[w->cidx[i]]; r++) {
            s[o] = score[i];
            y[o] = w->label[i];
            g[o++] = w->group[i];
        }
    double a = ap_mean_by_group(s, y, g, m);
    free(s);
    free(y);
    free(g);
    return a;
}

static double pct(double *v, size_t m, double q)
{
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    double h = (double)(m - 1) * q;
    size_t f = (size_t)floor(h), f1 = f + 1 < m ? f + 1 : m - 1;
    return v[f] + (h - (double)f) * (v[f1] - v[f]);
}

/* The 64-bit FNV-1a hash of a name (APCOST.md 1.11, written here again). */
static uint64_t fnv1a(const char *p)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    while (*p)
        h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
    return h;
}

/* The Monte Carlo error of the bound at q (APCOST.md 1.5). */
static double mc_err(double *v, size_t m, double q)
{
    double d = sqrt(q * (1 - q) / (double)m);
    return (pct(v, m, fmin(1, q + d)) - pct(v, m, fmax(0, q - d))) / 2;
}

/* Resamples 0 and B-1 recomputed with the page's generators (the customers'
 * and arm X's rounds', format lab-ap 2); every line of ap_resamples.tsv.gz;
 * the intervals and their Monte Carlo errors from the shipped values (1.5,
 * 1.13). */
static void check_resamples(const shipped *w, json_t *ap, const uint8_t *mask, size_t B)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp, PATH_AP_RESAMPLES);
    char *text = gz_text(path);
    tab t;
    tab_make(&t, text, 4);
    cr_assert_eq(t.n, 1 + 2 * 3 * B, "arms X and Z, three kinds, B resamples");
    cr_assert_str_eq(t.v[0][0], "arm");
    cr_assert_str_eq(t.v[0][3], "change");
    cr_assert_eq((size_t)jnum(ap, "bootstrap.used"), B);
    double vals[2][3][64];
    for (size_t l = 1; l < t.n; l++) {
        size_t a = (l - 1) / (3 * B), k = (l - 1) / B % 3, b = (l - 1) % B;
        cr_assert_str_eq(t.v[l][0], a ? "Z" : "X");
        cr_assert_str_eq(t.v[l][1], apboot_kind_names[k]);
        cr_assert_eq((size_t)num(t.v[l][2]), b);
        char *e;
        vals[a][k][b] = strtod(t.v[l][3], &e);
        cr_assert(!*e, "%s", t.v[l][3]);
        if (a == 1)
            cr_assert(vals[a][k][b] == 0.0, "Z has no stand-in: exactly 0");
    }
    uint32_t *wt = malloc(w->C * sizeof *wt);
    float *v = malloc(w->n * sizeof *v);
    uint64_t st[4], sr[4];
    xo_seed(st, 1);
    xo_seed(sr, 1 ^ fnv1a("X"));  /* X's rounds: 2 draws per resample, u mod 2 */
    size_t round1_out = 0;
    for (size_t b = 0; b < B; b++) {
        memset(wt, 0, w->C * sizeof *wt);
        for (size_t i = 0; i < w->C; i++)
            wt[xo_next(st) % w->C]++;
        uint32_t m1 = 0;  /* m_b of round 1, the one with the stand-ins */
        for (int j = 0; j < 2; j++)
            m1 += xo_next(sr) % 2 == 0;
        if (m1 == 0) {
            round1_out++;
            for (int k = 0; k < 3; k++)
                cr_assert(vals[0][k][b] == 0.0, "resample %zu drew round 2 twice: exactly 0", b);
        }
        if (b != 0 && b != B - 1)
            continue;
        double acc[3] = {0, 0, 0};
        for (size_t s = 0; s < w->S; s++) {
            double L = ap_expanded(w, w->live + s * w->n, wt);
            for (int k = 0; k < 3; k++) {
                standin(w, s, k, mask, v);
                acc[k] += (double)m1 * (ap_expanded(w, v, wt) - L) / 2.0;
            }
        }
        for (int k = 0; k < 3; k++)
            cr_assert_float_eq(vals[0][k][b], acc[k] / (double)w->S, EPS, "resample %zu %s", b,
                               apboot_kind_names[k]);
    }
    json_t *x = json_object_get(json_object_get(ap, "arms"), "X");
    for (int k = 0; k < 3; k++) {
        char p[128];
        snprintf(p, sizeof p, "kinds.%s.ci95.0", apboot_kind_names[k]);
        cr_assert_float_eq(jnum(x, p), pct(vals[0][k], B, 0.025), EPS);
        snprintf(p, sizeof p, "kinds.%s.ci95.1", apboot_kind_names[k]);
        cr_assert_float_eq(jnum(x, p), pct(vals[0][k], B, 0.975), EPS);
        snprintf(p, sizeof p, "kinds.%s.ci95_mc.0", apboot_kind_names[k]);
        cr_assert_float_eq(jnum(x, p), mc_err(vals[0][k], B, 0.025), EPS);
        snprintf(p, sizeof p, "kinds.%s.ci95_mc.1", apboot_kind_names[k]);
        cr_assert_float_eq(jnum(x, p), mc_err(vals[0][k], B, 0.975), EPS);
    }
    cr_assert_gt(round1_out, 0, "some resample leaves round 1 out");
    free(wt);
    free(v);
    tab_free(&t);
    free(text);
}

static char *slurp_bytes(const char *path, size_t *n)
{
    char *buf = NULL, err[UT_ERRLEN];
    cr_assert_eq(ut_read_file(path, &buf, n, err, sizeof err), 0, "%s", err);
    return buf;
}

static void put_bytes(const char *path, const char *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(buf, 1, n, f), n);
    fclose(f);
}

/* ap_scores.tsv.gz with field `field` of data row `row` replaced by `with`. */
static void tamper(const char *path, size_t row, size_t field, const char *with)
{
    char *text = gz_text(path), *p = text;
    for (size_t l = 0; l < row + 1; l++)
        p = strchr(p, '\n') + 1;
    for (size_t f = 0; f < field; f++)
        p = strchr(p, '\t') + 1;
    size_t old = strcspn(p, "\t\n"), total = strlen(text);
    char *out = malloc(total + strlen(with) + 1);
    size_t pre = (size_t)(p - text);
    memcpy(out, text, pre);
    strcpy(out + pre, with);
    strcpy(out + pre + strlen(with), p + old);
    gz_write_text(path, out);
    free(out);
    free(text);
}

/* The manifest and tampered files (apref_check and `check`), and a failed
 * rerun leaving no manifest.  row2: a row whose customer has a row a month
 * earlier. */
static void check_refusals(const char *arms, size_t row2)
{
    char scores[256], prev[256], man[256], cmd[512], err[UT_ERRLEN] = "";
    snprintf(scores, sizeof scores, "%s/%s", tmp, PATH_AP_SCORES);
    snprintf(prev, sizeof prev, "%s/%s", tmp, PATH_AP_PREV);
    snprintf(man, sizeof man, "%s/provenance/%s", tmp, PATH_AP_MANIFEST);
    size_t S = 0;
    cr_assert_eq(apref_check(tmp, man, PREP "/scores.tsv", PREP "/summary.json", &S, err, sizeof err), 0, "%s", err);
    cr_assert_eq(S, 20);
    int have_check = access("build/bin/check", X_OK) == 0;
    snprintf(cmd, sizeof cmd, "build/bin/check --prov %s/provenance --root %s >/dev/null 2>&1", tmp, tmp);
    if (have_check)
        cr_assert_eq(sh(cmd), 0);
    size_t n0, p0;
    char *orig = slurp_bytes(scores, &n0), *origp = slurp_bytes(prev, &p0);

    /* seed 2's last_known of row2 changed: the manifest no longer matches */
    tamper(scores, row2, 6, "0.123456789");
    cr_assert_neq(apref_check(tmp, man, PREP "/scores.tsv", PREP "/summary.json", NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "manifest-ap.tsv: line 2: " PATH_AP_SCORES), "%s", err);
    if (have_check)
        cr_assert_eq(sh(cmd), 1, "check names the changed file");
    /* with the manifest rewritten to match, the rule catches it, naming seed and row */
    char provdir[256];
    snprintf(provdir, sizeof provdir, "%s/provenance", tmp);
    cr_assert_eq(apref_write_manifest(tmp, provdir, err, sizeof err), 0, "%s", err);
    cr_assert_neq(apref_check(tmp, man, PREP "/scores.tsv", PREP "/summary.json", NULL, err, sizeof err), 0);
    char want[96];
    snprintf(want, sizeof want, "model seed 2, row %zu ", row2);
    cr_assert(strstr(err, want) && strstr(err, "a month earlier"), "%s", err);
    if (have_check)
        cr_assert_eq(sh(cmd), 0, "the hashes match again");
    /* seed 1 must be scores.tsv's, byte for byte: 0.5 vs 0.500000000 is enough */
    put_bytes(scores, orig, n0);
    tamper(scores, 3, 3, "x");
    cr_assert_neq(apref_check(tmp, NULL, PREP "/scores.tsv", PREP "/summary.json", NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "line 5: cutoff") && strstr(err, "seed 1 score x"), "%s", err);
    /* a line of the first cutoff's previous scores dropped: that row now
     * claims the default, which its last_known is not */
    put_bytes(scores, orig, n0);
    char *pt = gz_text(prev), *second = strchr(pt, '\n') + 1, *third = strchr(second, '\n') + 1;
    memmove(second, third, strlen(third) + 1);
    gz_write_text(prev, pt);
    free(pt);
    cr_assert_neq(apref_check(tmp, NULL, PREP "/scores.tsv", PREP "/summary.json", NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "the default score"), "%s", err);
    put_bytes(prev, origp, p0);
    cr_assert_eq(apref_write_manifest(tmp, provdir, err, sizeof err), 0, "%s", err);
    cr_assert_eq(apref_check(tmp, man, PREP "/scores.tsv", PREP "/summary.json", NULL, err, sizeof err), 0, "%s", err);
    free(orig);
    free(origp);

    /* a failed rerun of the stage leaves no manifest vouching for the old files */
    write_text(arms, "arm\nNOPE\n");
    apc_stage_opts o = {tmp, PREP, arms, 2, 2, 10, 1, 1, 0, NULL};
    cr_assert_neq(apc_stage(&o, NULL, NULL, err, sizeof err), 0);
    cr_assert_neq(access(man, F_OK), 0, "manifest-ap.tsv removed");
}

Test(apref, shipped_files_on_the_real_data, .init = mk_tmp, .fini = rm_tmp, .timeout = 900)
{
    char path[256], arms[256], err[UT_ERRLEN] = "", kinds[201];
    const size_t B = 20, M = 200;
    /* arm X: round 1 answers K D L K D L ... (rows j), round 2 only live;
     * arm Z: one round without stand-ins */
    for (size_t j = 0; j < M; j++)
        kinds[j] = "KDL"[j % 3];
    kinds[M] = 0;
    const char *runs[][2] = {{"X-r1", kinds}, {"X-r2", NULL}, {"Z-r1", NULL}};
    char live[201];
    memset(live, 'L', M);
    live[M] = 0;
    for (int r = 0; r < 3; r++) {
        snprintf(path, sizeof path, "%s/results/raw/%s", tmp, runs[r][0]);
        cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0, "%s", err);
        strcat(path, "/tester.tsv.gz");
        write_tester(path, runs[r][1] ? runs[r][1] : live, M);
    }
    snprintf(arms, sizeof arms, "%s/arms.tsv", tmp);
    write_text(arms, "arm\nX\nZ\n");
    apc_stage_opts o = {tmp, PREP, arms, 20, 20, B, 1, 2, 0, NULL};
    json_t *ap = NULL;
    cr_assert_eq(apc_stage(&o, NULL, &ap, err, sizeof err), 0, "%s", err);
    cr_assert_eq(json_array_size(json_object_get(ap, "model_seeds")), 20);

    shipped w = {0};
    char *texts[3];
    shipped_read(&w, texts);
    cr_assert_eq(w.C, (size_t)jnum(ap, "customers"));
    check_layout(&w);
    size_t nprev = check_rule(&w);
    cr_log_info("ap_scores: %zu rows x %zu seeds; ap_prev_scores: %zu lines; %lld rows with a previous score",
                w.n, w.S, nprev, (long long)w.with);
    uint8_t *mask = calloc(w.n, 1);
    for (size_t j = 0; j < M; j++)
        if (kinds[j] != 'L')
            mask[j] = 1;
    check_point_values(&w, ap, mask);
    check_resamples(&w, ap, mask, B);
    /* a row whose customer has a row a month earlier, for the tampering */
    size_t row2 = 0;
    for (size_t i = 0; i < w.n && !row2; i++) {
        char pc[11];
        month_before(w.sc.v[i + 1][2], pc);
        for (size_t j = 0; j < w.n && !row2; j++)
            if (!strcmp(w.sc.v[j + 1][2], pc) && !strcmp(w.sc.v[j + 1][1], w.sc.v[i + 1][1]))
                row2 = i;
    }
    cr_assert_gt(row2, 0);
    free(mask);
    shipped_free(&w, texts);
    json_decref(ap);
    check_refusals(arms, row2);
}
