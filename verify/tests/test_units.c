/* Unit tests of the verifier's modules, against hand-computed values. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "predicate.h"
#include "rawcols.h"
#include "rawread.h"
#include "runfig.h"
#include "stats.h"
#include "vjson.h"
#include "vutil.h"

Test(stats, percentile_by_hand)
{
    /* numpy.percentile([1, 2, 3, 4], [50, 90]) = 2.5, 3.7 */
    long long v[] = {1, 2, 3, 4};
    cr_expect(fabs(st_pct_ll(v, 4, 0.5) - 2.5) < 1e-12);
    cr_expect(fabs(st_pct_ll(v, 4, 0.9) - 3.7) < 1e-12);
    cr_expect_eq(st_pct_ll(v, 4, 0.0), 1);
    cr_expect_eq(st_pct_ll(v, 4, 1.0), 4);
    /* p99 of 5 latencies 10, 20, 30, 40, 1000 ms: h = 4 * 0.99 = 3.96,
     * 40 + 0.96 * 960 = 961.6 */
    long long w[] = {10, 20, 30, 40, 1000};
    cr_expect(fabs(st_pct_ll(w, 5, 0.99) - 961.6) < 1e-9);
    long long one[] = {7};
    cr_expect_eq(st_pct_ll(one, 1, 0.99), 7);
    cr_expect(isnan(st_pct_ll(NULL, 0, 0.5)));
    double m[] = {3, 1, 2, 10};
    cr_expect_eq(st_median(m, 4), 2.5);
    cr_expect_eq(st_median(m, 3), 2);
}

Test(stats, radix_sort_equals_qsort)
{
    size_t n = 200000;
    long long *a = vu_xmalloc(n * sizeof *a), *b = vu_xmalloc(n * sizeof *b);
    unsigned long long s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        a[i] = (long long)(s >> 20) - (1LL << 42);
        if (i % 7 == 0)
            a[i] = -a[i];
        b[i] = a[i];
    }
    st_sort_ll(a, n);
    for (size_t i = 1; i < n; i++)
        cr_assert_leq(a[i - 1], a[i]);
    long long sa = 0, sb = 0;
    for (size_t i = 0; i < n; i++)
        sa += a[i], sb += b[i];
    cr_expect_eq(sa, sb);
    free(a);
    free(b);
}

/* vu_fmt_double's definition: %.<p>g for the least p that reads back */
static void fmt_by_definition(double d, char *out, size_t n)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(out, n, "%.*g", p, d);
        if (strtod(out, NULL) == d)
            return;
    }
}

static void expect_fmt(double d)
{
    char a[40], b[40];
    vu_fmt_double(d, a, sizeof a);
    fmt_by_definition(d, b, sizeof b);
    cr_expect_str_eq(a, b, "%a", d);
}

/* the bisection of vu_fmt_double gives the definition's text: by hand,
 * then on powers of two (where it does not bisect), their neighbours,
 * short decimals, values near a decade's end, computed ratios and random
 * bit patterns */
/* vu_sort16 against qsort made stable by the original position: by a
 * double descending (many equal, 0 and -0 among them, -inf) and by a
 * 32-bit key, small and large n */
typedef struct {
    double s;
    uint32_t pos, k;
} sort16_el;

static uint64_t s16_desc(const void *x)
{
    return vu_key_desc(((const sort16_el *)x)->s);
}

static uint64_t s16_k(const void *x)
{
    return ((const sort16_el *)x)->k;
}

static int s16_cmp_desc(const void *x, const void *y)
{
    const sort16_el *a = x, *b = y;
    if (a->s != b->s)
        return a->s > b->s ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int s16_cmp_k(const void *x, const void *y)
{
    const sort16_el *a = x, *b = y;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

Test(util, sort16_is_a_stable_sort)
{
    static const double vals[] = {0.0, -0.0, 1.5, -1.5, 0.25, -INFINITY, INFINITY, 1e-300, -1e300, 3.0};
    size_t sizes[] = {0, 1, 2, 31, 32, 33, 1000, 5000};
    unsigned r = 12345;
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t n = sizes[z];
        sort16_el *a = calloc(n + 1, sizeof *a), *b = calloc(n + 1, sizeof *b), *tmp = calloc(n + 1, sizeof *tmp);
        for (int by = 0; by < 2; by++) {
            for (size_t i = 0; i < n; i++) {
                r = r * 1103515245u + 12345u;
                a[i] = (sort16_el){vals[(r >> 16) % 10], (uint32_t)i, (r >> 8) % (by ? 70000u : 5u)};
            }
            memcpy(b, a, n * sizeof *a);
            vu_sort16(a, n, by ? s16_k : s16_desc, by ? 4 : 8, tmp);
            qsort(b, n, sizeof *b, by ? s16_cmp_k : s16_cmp_desc);
            for (size_t i = 0; i < n; i++)
                cr_assert(a[i].pos == b[i].pos, "n %zu, by %d, at %zu: %u against %u", n, by, i, a[i].pos, b[i].pos);
        }
        free(a);
        free(b);
        free(tmp);
    }
}

Test(util, fmt_double_is_the_shortest_that_reads_back)
{
    char t[40];
    vu_fmt_double(0.5, t, sizeof t);
    cr_expect_str_eq(t, "0.5");
    vu_fmt_double(0.1 + 0.2, t, sizeof t);
    cr_expect_str_eq(t, "0.30000000000000004");
    vu_fmt_double(1.0 / 3, t, sizeof t);
    cr_expect_str_eq(t, "0.3333333333333333");
    vu_fmt_double(123456789012.0, t, sizeof t);
    cr_expect_str_eq(t, "123456789012");
    vu_fmt_double(-2.5e-7, t, sizeof t);
    cr_expect_str_eq(t, "-2.5e-07");
    vu_fmt_double(NAN, t, sizeof t);
    cr_expect_str_eq(t, "null");
    expect_fmt(0.0);
    expect_fmt(-0.0);
    expect_fmt(5e-324);
    expect_fmt(1.7976931348623157e308);
    for (int e = -1074; e <= 1023; e++) {
        double p = ldexp(1.0, e);
        expect_fmt(p);
        expect_fmt(-p);
        expect_fmt(nextafter(p, 0));
        expect_fmt(nextafter(p, INFINITY));
    }
    for (int k = 0; k < 20000; k++) {
        expect_fmt(k / 1000.0);
        expect_fmt(9.95 + k * 1e-6);
        expect_fmt((double)k / 9973 / 1e6);
    }
    unsigned long long s = 987654321;
    for (int k = 0; k < 200000; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double d;
        unsigned long long bits = s ^ (s >> 29);
        memcpy(&d, &bits, sizeof d);
        if (isfinite(d))
            expect_fmt(d);
    }
}

/* a fake study for predicates: arm A rounds 1-3, arm B rounds 1-2 (+ 4) */
static size_t f_rounds(void *ctx, const char *arm, int *out, size_t max)
{
    (void)ctx;
    (void)max;
    if (!strcmp(arm, "A")) {
        out[0] = 1, out[1] = 2, out[2] = 3;
        return 3;
    }
    if (!strcmp(arm, "B")) {
        out[0] = 1, out[1] = 2, out[2] = 4;
        return 3;
    }
    return 0;
}

static int f_value(void *ctx, const char *arm, int round, int fig, double *v)
{
    (void)ctx;
    /* p99_ms: A = 10, 20, 30; B = 5, 15, -, 99 (round 4); n: A 100 each; B null */
    if (fig == F_P99_MS) {
        if (!strcmp(arm, "A") && round >= 1 && round <= 3)
            return *v = 10.0 * round, 1;
        if (!strcmp(arm, "B") && round <= 2)
            return *v = 10.0 * round - 5, 1;
        if (!strcmp(arm, "B") && round == 4)
            return *v = 99, 1;
        return 0;
    }
    if (fig == F_N && !strcmp(arm, "A"))
        return *v = 100, 1;
    return 0;
}

static int eval(const char *text)
{
    pr_pred p;
    char err[256];
    cr_assert_eq(pr_parse(text, &p, err, sizeof err), 0, "%s: %s", text, err);
    pr_data d = {NULL, f_rounds, f_value};
    int all = 1;
    for (size_t i = 0; i < p.n; i++)
        all &= pr_eval_clause(&p.c[i], &d);
    pr_free(&p);
    return all;
}

Test(predicate, grammar_by_hand)
{
    cr_expect_eq(eval("every A.p99_ms >= 10"), 1);
    cr_expect_eq(eval("every A.p99_ms > 10"), 0);
    cr_expect_eq(eval("any A.p99_ms > 25"), 1);
    cr_expect_eq(eval("median A.p99_ms <= 20"), 1);  /* median 20 */
    cr_expect_eq(eval("median A.p99_ms < 20"), 0);
    /* round by round over rounds both have (1, 2): 10 > 5, 20 > 15 */
    cr_expect_eq(eval("every A.p99_ms > 1 * B.p99_ms"), 1);
    cr_expect_eq(eval("every A.p99_ms > 1.5 * B.p99_ms"), 0); /* 20 > 22.5 fails */
    cr_expect_eq(eval("any A.p99_ms > 1.5 * B.p99_ms"), 1);   /* 10 > 7.5 */
    /* medians: A 20; B of 5, 15, 99 = 15 */
    cr_expect_eq(eval("median A.p99_ms > 1.3 * B.p99_ms"), 1);
    cr_expect_eq(eval("median A.p99_ms > 1.4 * B.p99_ms"), 0);
    /* apart: rounds 1, 2 both positive -> clearly different */
    cr_expect_eq(eval("apart A B p99_ms"), 1);
    cr_expect_eq(eval("close A B p99_ms"), 0);
    /* a figure without value, an arm without runs: false either way */
    cr_expect_eq(eval("every B.n > 0"), 0);
    cr_expect_eq(eval("apart A B n"), 0);
    cr_expect_eq(eval("close A B n"), 0);
    cr_expect_eq(eval("every Z.p99_ms > 0"), 0);
    cr_expect_eq(eval("close A Z p99_ms"), 0);
    cr_expect_eq(eval("every A.n >= 100 and median A.p99_ms > 1 and any A.p99_ms < 11"), 1);
    cr_expect_eq(eval("every A.n >= 100 and any A.p99_ms > 100"), 0);
}

Test(predicate, bad_text_says_what)
{
    pr_pred p;
    char err[256];
    cr_expect_neq(pr_parse("every A.p99 < 5", &p, err, sizeof err), 0);
    cr_expect(strstr(err, "unknown figure \"p99\""), "%s", err);
    cr_expect_neq(pr_parse("every A.p99_ms = 5", &p, err, sizeof err), 0);
    cr_expect(strstr(err, "\"=\" is not one of"), "%s", err);
    cr_expect_neq(pr_parse("every A.p99_ms < 5 or any A.n > 1", &p, err, sizeof err), 0);
    cr_expect(strstr(err, "\"or\""), "%s", err);
    cr_expect_neq(pr_parse("sometimes A.n > 1", &p, err, sizeof err), 0);
    cr_expect_neq(pr_parse("every A.n > x", &p, err, sizeof err), 0);
    cr_expect_neq(pr_parse("every A.n > 1 *", &p, err, sizeof err), 0);
    cr_expect_neq(pr_parse("apart A B", &p, err, sizeof err), 0);
}

Test(predicate, verdict_rule)
{
    pr_data d = {NULL, f_rounds, f_value};
    pr_verdict v;
    pr_verdict_compute(&d, "A", "B", F_P99_MS, &v);
    cr_assert_eq(v.n, 2);
    cr_expect_eq(v.rounds[0], 1);
    cr_expect_eq(v.rounds[1], 2);
    cr_expect_eq(v.diffs[0], 5);
    cr_expect_eq(v.diffs[1], 5);
    cr_expect_eq(v.clearly, 1);
    cr_expect_eq(v.dir, 1);
    pr_verdict_compute(&d, "B", "A", F_P99_MS, &v);
    cr_expect_eq(v.dir, -1);
    pr_verdict_compute(&d, "A", "A", F_P99_MS, &v);
    cr_expect_eq(v.clearly, 0); /* diffs 0 */
    cr_expect_eq(v.dir, 0);
}

Test(json, reads_and_names_the_line)
{
    vj_node *n;
    char err[256];
    const char *good = "{\"a\": [1, 2.5, -3e2, true, null], \"s\": \"x\\u00e9\\n\", \"big\": 1052957221867}";
    cr_assert_eq(vj_parse(good, strlen(good), "t.json", &n, err, sizeof err), 0, "%s", err);
    vj_node *a = vj_get(n, "a");
    cr_expect_eq(a->n, 5);
    cr_expect_eq(a->items[0]->is_int, 1);
    cr_expect_eq(a->items[1]->num, 2.5);
    cr_expect_eq(a->items[2]->num, -300);
    cr_expect_eq(a->items[3]->b, 1);
    cr_expect_eq(a->items[4]->type, VJ_NULL);
    cr_expect_str_eq(vj_get_str(n, "s"), "x\xc3\xa9\n");
    cr_expect_eq(vj_get(n, "big")->i, 1052957221867LL);
    vj_free(n);
    const char *bad = "{\n \"a\": 1,\n \"b\": [1, 2,]\n}";
    cr_expect_neq(vj_parse(bad, strlen(bad), "r.json", &n, err, sizeof err), 0);
    cr_expect(strstr(err, "r.json:3:"), "%s", err);
    const char *dup = "{\"a\": 1, \"a\": 2}";
    cr_expect_neq(vj_parse(dup, strlen(dup), "d.json", &n, err, sizeof err), 0);
    cr_expect(strstr(err, "duplicate member \"a\""), "%s", err);
    /* writer: the shortest text that reads back */
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "x", vj_new_num(0.1 + 0.2));
    vj_obj_set(o, "y", vj_new_num(25.0));
    vu_buf b = {0};
    vj_write(o, &b);
    cr_expect(strstr(b.p, "\"x\": 0.30000000000000004"), "%s", b.p);
    cr_expect(strstr(b.p, "\"y\": 25\n"), "%s", b.p);
    vu_buf_free(&b);
    vj_free(o);
}

/* gzip bytes of a text, in memory */
static unsigned char *gz_of(const char *text, size_t *len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    size_t cap = strlen(text) + 256;
    unsigned char *out = vu_xmalloc(cap);
    zs.next_in = (Bytef *)text;
    zs.avail_in = (uInt)strlen(text);
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    deflate(&zs, Z_FINISH);
    *len = zs.total_out;
    deflateEnd(&zs);
    return out;
}

static const rr_col cols[] = {{"j", RR_INT, 0, NULL, 0}, {"a_t", RR_TIME, 1, NULL, 0}, {"k", RR_CODE, 0, NULL, 0}, {"x", RR_FLOAT, 1, NULL, 0}};

static int read_all(const char *text, long long *sum, char *err, size_t errlen)
{
    size_t len;
    unsigned char *gz = gz_of(text, &len);
    rr_file f;
    rr_row r;
    int rc = rr_open(&f, "t.tsv.gz", gz, len, "tester", cols, 4, err, errlen);
    *sum = 0;
    while (rc == 0) {
        int k = rr_next(&f, &r, err, errlen);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        if (r.has[1])
            *sum += r.v[1];
    }
    rr_close(&f);
    free(gz);
    return rc;
}

Test(rawread, delta_decoding_and_malformed_rows)
{
    char err[512];
    long long sum;
    /* a_t: 1000, then +5 -> 1005, absent, -10 -> 995: sum of values 3000 */
    cr_assert_eq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1000\tL\t0.5\n1\t5\tL\t-\n2\t-\tE\t-\n3\t-10\tK\t1e-3\n",
                          &sum, err, sizeof err), 0, "%s", err);
    cr_expect_eq(sum, 1000 + 1005 + 995);
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1000\tL\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "t.tsv.gz:3: 3 fields, expected 4"), "%s", err);
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1000\tL\t0.5\t9\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "t.tsv.gz:3: 5 fields, expected 4"), "%s", err);
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1000\tL\t0.5\n-\t1\tL\t-\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "t.tsv.gz:4: field j is absent"), "%s", err);
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t10x\tL\t0.5\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "t.tsv.gz:3: field a_t \"10x\" is not an integer"), "%s", err);
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1\tLL\t0.5\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "not a one-character code"), "%s", err);
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1\t\t0.5\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "field k is empty"), "%s", err);
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1\tL\t0.5", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "does not end in a newline"), "%s", err);
    /* version 1 (before the store could fail) and version 2 (before the
     * defences) are refused, naming file and line */
    cr_expect_neq(read_all("# lab-raw 1 tester\nj\ta_t\tk\tx\n0\t1000\tL\t0.5\n", &sum, err, sizeof err), 0);
    cr_expect_str_eq(err, "t.tsv.gz:1: first line is \"# lab-raw 1 tester\", expected \"# lab-raw 4 tester\" "
                          "(this reader reads raw format version 4 only)");
    cr_expect_neq(read_all("# lab-raw 2 tester\nj\ta_t\tk\tx\n0\t1000\tL\t0.5\n", &sum, err, sizeof err), 0);
    cr_expect_str_eq(err, "t.tsv.gz:1: first line is \"# lab-raw 2 tester\", expected \"# lab-raw 4 tester\" "
                          "(this reader reads raw format version 4 only; version 2, before the defences, is refused)");
    /* version 3 (every column, ns deltas) too: nothing published is in it */
    cr_expect_neq(read_all("# lab-raw 3 tester\nj\ta_t\tk\tx\n0\t1000\tL\t0.5\n", &sum, err, sizeof err), 0);
    cr_expect_str_eq(err, "t.tsv.gz:1: first line is \"# lab-raw 3 tester\", expected \"# lab-raw 4 tester\" "
                          "(this reader reads raw format version 4 only; version 3, every column in ns, is refused)");
    cr_expect_neq(read_all("# lab-raw 4 store\nj\ta_t\tk\tx\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "t.tsv.gz:1: first line is \"# lab-raw 4 store\""), "%s", err);
    cr_expect(!strstr(err, "version 4 only"), "%s", err);
    /* "=" only where the column allows it (x does not) */
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1000\tL\t=\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "t.tsv.gz:3: field x \"=\" is not a number"), "%s", err);
    cr_expect_neq(read_all("# lab-raw 4 tester\nj\tb_t\tk\tx\n", &sum, err, sizeof err), 0);
    cr_expect(strstr(err, "column 2 is \"b_t\", expected \"a_t\""), "%s", err);
    /* a truncated stream */
    size_t len;
    unsigned char *gz = gz_of("# lab-raw 4 tester\nj\ta_t\tk\tx\n0\t1000\tL\t0.5\n1\t5\tL\t-\n", &len);
    rr_file f;
    rr_row r;
    int rc = rr_open(&f, "cut.tsv.gz", gz, len - 10, "tester", cols, 4, err, sizeof err);
    while (rc == 0) {
        int k = rr_next(&f, &r, err, sizeof err);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
    }
    cr_expect_neq(rc, 0);
    cr_expect(strstr(err, "cut.tsv.gz: gzip stream truncated"), "%s", err);
    rr_close(&f);
    free(gz);
}

Test(rawread, unknown_codes_are_refused)
{
    /* a code column with RAWFORMAT.md's codes: anything else is an
     * unparsable value, naming file, line, field and the codes */
    static const rr_col ev[] = {{"t", RR_TIME, 0, NULL, 0}, {"what", RR_CODE, 0, "LFC", 0}};
    char err[512];
    size_t len;
    unsigned char *gz = gz_of("# lab-raw 4 events\nt\twhat\n100\tL\n5\tF\n5\tC\n7\tX\n", &len);
    rr_file f;
    rr_row r;
    int rc = rr_open(&f, "results/raw/A-r1/events.tsv.gz", gz, len, "events", ev, 2, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    const char *want = "LFC";
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(rr_next(&f, &r, err, sizeof err), 1, "%s", err);
        cr_expect_eq(r.c[1], want[i]);
    }
    cr_expect_eq(r.v[0], 110);
    cr_expect_eq(rr_next(&f, &r, err, sizeof err), -1);
    cr_expect_str_eq(err, "results/raw/A-r1/events.tsv.gz:6: field what \"X\" is not one of the codes LFC");
    rr_close(&f);
    free(gz);
    /* the verifier's own tables list RAWFORMAT.md's codes, in its order */
    cr_expect_str_eq(store_cols[SW_OUTCOME].codes, "ADUENHRP");
    cr_expect_str_eq(service_cols[VW_A0S + 3 + 2].codes, "ATCDUNXROBY");
    cr_expect_str_eq(service_cols[VW_A0S + 12 + 2].codes, "ATCDUNXROBY");
    cr_expect_str_eq(service_cols[VW_STORE].name, "store");
    cr_expect_eq(VW_NCOL, 22);
    cr_expect_eq(V_NCOL, 23);
    cr_expect_str_eq(events_cols[E_WHAT].codes, "LFCOWPHK");
    cr_expect_str_eq(tester_cols[TW_KIND].codes, "LKDE");
    /* format 4: "=" only in the tester's score; the offsets end in _us */
    cr_expect_eq(tester_cols[TW_SCORE].eq, 1);
    cr_expect_eq(tester_cols[TW_SEND].type, RR_OFFSET);
    cr_expect_str_eq(store_cols[SW_END].name, "end_us");
}

Test(compare, tolerances)
{
    extern int cmp_num_equal(rf_class c, double lab, double mine);
    cr_expect(cmp_num_equal(RF_MS, 25.1234567, 25.1234567 + 0.9e-6));
    cr_expect(!cmp_num_equal(RF_MS, 25.1234567, 25.1234567 + 1.1e-6));
    cr_expect(cmp_num_equal(RF_US, 118.9, 118.9 + 0.9e-3));
    cr_expect(!cmp_num_equal(RF_US, 118.9, 118.9 + 1.1e-3));
    cr_expect(cmp_num_equal(RF_RATIO, 1.0 / 3, 1.0 / 3));
    cr_expect(!cmp_num_equal(RF_RATIO, 1.0 / 3, 1.0 / 3 + 1e-11));
    cr_expect(!cmp_num_equal(RF_COUNT, 12, 13));
    cr_expect(cmp_num_equal(RF_RATIO, 0, 0));
}
