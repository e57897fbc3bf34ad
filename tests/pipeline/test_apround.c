/* apround: format lab-ap 2 of `make ap` (pipeline/APCOST.md 1.5, 1.7, 1.11,
 * 1.12): the rounds resampled with the customers, each bound's Monte Carlo
 * error, the verdict's margin, and the flooded runs measured on their own.
 *
 * - FNV-1a-64 and the arm's round picks, from a small implementation of the
 *   page's text written here: the hash of "H3-fb25" and its first picks for
 *   R = 5 by hand, equal to pipeline/ap/apboot.c's and to the worked values
 *   APCOST.md 1.11 prints.
 * - A stand-in cost in one round of two: every resample's change is m_b(1)
 *   times its customers-only change, bit for bit (m_b from the generator
 *   written here); the customers-only interval lies clearly below zero, the
 *   one with the rounds resampled reaches 0 (a quarter of the resamples
 *   draw round 2 twice) and is too close to call.
 * - The Monte Carlo error on known sorted lists, by hand.
 * - The verdict's margin: hi -1e-4 with e_hi 2e-4 is too close to call.
 * - flooded_runs: exactly results.json's runs with flooded and quiet true, of
 *   any arm, each an arm of one round with all its requests; their lines in
 *   ap_resamples.tsv.gz; a malformed results.json names the file and
 *   field; without results.json, flooded_runs is {}.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ap.h"
#include "apboot.h"
#include "apcost.h"
#include "apstudy.h"
#include "util.h"

#define EPS 1e-12

/* ------------------------------------------------------------ the page's generator, written again */

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t fin(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void xo_seed(uint64_t s[4], uint64_t sigma)
{
    for (int k = 0; k < 4; k++)
        s[k] = fin(sigma + (uint64_t)(k + 2) * 0x9e3779b97f4a7c15ULL);
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

static uint64_t fnv(const char *p)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    while (*p)
        h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
    return h;
}

/* m[b * R + k] for resamples 0..B-1 of arm `name` (APCOST.md 1.11) */
static void picks(const char *name, uint64_t sigma, size_t R, size_t B, uint32_t *m)
{
    uint64_t s[4];
    xo_seed(s, sigma ^ fnv(name));
    memset(m, 0, B * R * sizeof *m);
    for (size_t b = 0; b < B; b++)
        for (size_t j = 0; j < R; j++)
            m[b * R + xo_next(s) % R]++;
}

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

Test(apround, fnv_and_the_round_picks_by_hand)
{
    /* FNV-1a-64's published test values: "" is the offset basis, "a" */
    cr_assert_eq(fnv(""), 0xcbf29ce484222325ULL);
    cr_assert_eq(fnv("a"), 0xaf63dc4c8601ec8cULL);
    cr_assert_eq(apboot_fnv1a("a"), 0xaf63dc4c8601ec8cULL);
    const uint64_t H = 0x7d51655a4cc6a6beULL;
    cr_assert_eq(fnv("H3-fb25"), H);
    cr_assert_eq(apboot_fnv1a("H3-fb25"), H, "%016llx", (unsigned long long)apboot_fnv1a("H3-fb25"));
    /* sigma = 1 ^ h: the first five draws, and the picks u mod 5 */
    static const uint64_t U[5] = {11190111655663323606ULL, 10782181270459255081ULL, 7435491442049795335ULL,
                                  17382724404834004673ULL, 7083368330005893921ULL};
    static const int IDX0[5] = {1, 1, 0, 3, 1}, IDX1[5] = {2, 4, 0, 1, 2};
    uint64_t s[4];
    xo_seed(s, 1 ^ H);
    cr_assert_eq(1 ^ H, 0x7d51655a4cc6a6bfULL);
    ut_rng r;
    ut_rng_seed(&r, 1 ^ H);
    for (int i = 0; i < 5; i++) {
        uint64_t a = xo_next(s);
        cr_assert_eq(a, U[i], "draw %d: %llu", i, (unsigned long long)a);
        cr_assert_eq(ut_rng_u64(&r), U[i]);
        cr_assert_eq((int)(a % 5), IDX0[i]);
    }
    for (int i = 0; i < 5; i++)
        cr_assert_eq((int)(xo_next(s) % 5), IDX1[i], "resample 1, pick %d", i);
    /* m_0 = (1, 3, 0, 1, 0), m_1 = (1, 1, 2, 0, 1): apboot's and ours, and
     * 200 resamples more alike */
    enum { B = 200 };
    uint32_t *mine = malloc(B * 5 * sizeof *mine), *lab = malloc(B * 5 * sizeof *lab);
    picks("H3-fb25", 1, 5, B, mine);
    apboot_round_picks("H3-fb25", 1, 5, B, lab);
    static const uint32_t M01[10] = {1, 3, 0, 1, 0, 1, 1, 2, 0, 1};
    cr_assert_eq(memcmp(mine, M01, sizeof M01), 0);
    cr_assert_eq(memcmp(lab, mine, B * 5 * sizeof *lab), 0);
    for (size_t b = 0; b < B; b++) {
        uint32_t sum = 0;
        for (int k = 0; k < 5; k++)
            sum += lab[b * 5 + k];
        cr_assert_eq(sum, 5, "resample %zu draws R rounds", b);
    }
    /* R = 1 (a flooded run): every pick is the one round */
    apboot_round_picks("H4-r2-r3", 1, 1, B, lab);
    for (size_t b = 0; b < B; b++)
        cr_assert_eq(lab[b], 1);
    free(mine);
    free(lab);

    /* the page prints these worked values */
    char *doc = page();
    const char *said[] = {"0x7d51655a4cc6a6be (9030110166364104382)", "0x7d51655a4cc6a6bf",
                          "11190111655663323606, 10782181270459255081, 7435491442049795335, 17382724404834004673, "
                          "7083368330005893921",
                          "indices 1, 1, 0, 3, 1, so m<sub>0</sub> = (1, 3, 0, 1, 0)",
                          "are 2, 4, 0, 1, 2, so m<sub>1</sub> = (1, 1, 2, 0, 1)"};
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
        cr_assert_not_null(strstr(doc, said[i]), "pipeline/APCOST.md 1.11 does not say \"%s\"", said[i]);
    cr_assert(strstr(doc, "\"format\": \"lab-ap 2\""), "the example of 1.7 is format 2");
    free(doc);
}

/* ------------------------------------------------------------ one round of two with a cost */

/* One cutoff, 40 customers of one row each: rows 0..19 buyers scored
 * .99 - i/100, rows 20..39 not, scored .5 - (i-20)/100: live AP 1.  Round 1
 * of the arm gives "no score" to the buyers 0..9, round 2 to nobody. */
enum { TN = 40 };
static int32_t T_CUT[TN], T_CUST[TN];
static uint8_t T_LAB[TN];
static float T_LIVE[TN];

static apboot_ctx *one_of_two(int resampled, size_t B, int threads, apstudy_arm *arm, apstudy_round *rd,
                              apboot_table *t)
{
    for (int i = 0; i < TN; i++) {
        T_CUT[i] = 100;
        T_CUST[i] = 1000 + i;
        T_LAB[i] = i < 20;
        T_LIVE[i] = i < 20 ? .99f - (float)i / 100 : .5f - (float)(i - 20) / 100;
    }
    memset(rd, 0, 2 * sizeof *rd);
    for (int q = 0; q < 2; q++) {
        rd[q].round = q + 1;
        rd[q].requests = rd[q].requests_in_run = 40;
        rd[q].mask = calloc(TN, 1);
    }
    for (int i = 0; i < 10; i++)
        rd[0].mask[i] = 1;
    rd[0].rows = rd[0].last_known = 10;
    memset(arm, 0, sizeof *arm);
    snprintf(arm->name, sizeof arm->name, "H3-fb25");
    arm->nrounds = 2;
    arm->rounds = rd;
    *t = (apboot_table){TN, T_CUT, T_LAB, T_CUST};
    char err[UT_ERRLEN] = "";
    apboot_opts o = {B, 1, threads, 1, {APBOOT_NONE}, resampled};
    apboot_ctx *c = apboot_new(t, arm, 1, 1, &o, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    cr_assert_eq(apboot_add_seed(c, 1, T_LIVE, T_LIVE, .5f, 1, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(apboot_finish(c, err, sizeof err), 0, "%s", err);
    return c;
}

Test(apround, rounds_resampled_widen_a_cost_seen_in_one_round_of_two)
{
    enum { B = 400 };
    apstudy_arm a1, a2, a3;
    apstudy_round r1[2], r2[2], r3[2];
    apboot_table t1, t2, t3;
    apboot_ctx *c1 = one_of_two(0, B, 1, &a1, r1, &t1), *c2 = one_of_two(1, B, 1, &a2, r2, &t2),
               *c3 = one_of_two(1, B, 3, &a3, r3, &t3);
    const apboot_arm_result *x1 = &apboot_result_of(c1)->arm[0], *x2 = &apboot_result_of(c2)->arm[0],
                            *x3 = &apboot_result_of(c3)->arm[0];
    int k = APBOOT_NONE;
    /* the point value: round 1 ranks buyers 10..19 first (recall 1/20 each
     * at precision 1), then the 20 others, then buyers 0..9 tied at "no
     * score", one threshold: recall 10/20 at precision 20/40.  AP = 1/2 +
     * 1/4 = 3/4 against the live 1; round 2 changes nothing: the arm's
     * change is (-1/4 + 0) / 2 = -1/8. */
    cr_assert_float_eq(x2->change[k], -0.125, EPS);
    cr_assert(x1->change[k] == x2->change[k], "the point value does not depend on the resampling");
    /* one customer per row and one cutoff: every resample keeps a buyer */
    cr_assert_eq(apboot_result_of(c2)->resamples_used, B);
    /* the round weights: the generator written here, bit for bit */
    uint32_t m[2 * B];
    picks("H3-fb25", 1, 2, B, m);
    cr_assert_eq(memcmp(x2->round_w, m, sizeof m), 0);
    size_t zero = 0;
    for (size_t b = 0; b < B; b++) {
        cr_assert_eq(x1->round_w[2 * b], 1, "format 1: every round once");
        /* customers only: round 1's change halved, below 0 unless no buyer of 0..9 was drawn */
        cr_assert_lt(x1->boot[k][b], 0.0, "resample %zu", b);
        cr_assert(x2->boot[k][b] == (double)m[2 * b] * x1->boot[k][b], "resample %zu: %.17g, m %u, %.17g", b,
                  x2->boot[k][b], m[2 * b], x1->boot[k][b]);
        cr_assert(x3->boot[k][b] == x2->boot[k][b], "threads change resample %zu", b);
        zero += m[2 * b] == 0;
    }
    /* about a quarter of the resamples draw round 2 twice: their change is 0 */
    cr_assert_gt(zero, B / 8);
    cr_assert_lt(zero, B / 2);
    /* customers only: clearly lower; rounds too: 0 is the 97.5% bound */
    cr_assert_lt(x1->hi[k] + x1->e_hi[k], 0.0);
    const char *dir;
    cr_assert_str_eq(apboot_verdict(x1->lo[k], x1->hi[k], x1->e_lo[k], x1->e_hi[k], &dir), "clearly different");
    cr_assert_str_eq(dir, "lower");
    cr_assert(x2->hi[k] == 0.0 && x2->e_hi[k] == 0.0, "hi %.17g ± %.17g", x2->hi[k], x2->e_hi[k]);
    cr_assert_lt(x2->lo[k], x1->lo[k], "the interval widens: %.6f against %.6f", x2->lo[k], x1->lo[k]);
    cr_assert_str_eq(apboot_verdict(x2->lo[k], x2->hi[k], x2->e_lo[k], x2->e_hi[k], &dir), "too close to call");
    cr_assert_null(dir);
    /* the published interval is the percentiles of the published resamples */
    double v[B];
    memcpy(v, x2->boot[k], sizeof v);
    cr_assert(apboot_percentile(v, B, 0.025) == x2->lo[k]);
    cr_assert(apboot_mc_error(v, B, 0.025) == x2->e_lo[k]);
    cr_assert_gt(x2->e_lo[k], 0.0);
    apboot_free(c1);
    apboot_free(c2);
    apboot_free(c3);
    for (int q = 0; q < 2; q++) {
        apstudy_round_free(&r1[q]);
        apstudy_round_free(&r2[q]);
        apstudy_round_free(&r3[q]);
    }
}

/* ------------------------------------------------------------ the Monte Carlo error and the verdict */

Test(apround, monte_carlo_error_by_hand)
{
    /* {1, 2, 4, 8, 16}, m = 5.  q = 0.975: d = sqrt(0.975 * 0.025 / 5) =
     * 0.0698212; P(1) = 16; q - d = 0.9051788: h = 3.6207152, P = 8 +
     * 0.6207152 * 8 = 12.9657216; e = (16 - 12.9657216) / 2 = 1.5171392.
     * q = 0.025: P(0) = 1; q + d = 0.0948212: h = 0.3792848, P = 1.3792848;
     * e = 0.1896424. */
    double v[] = {16, 4, 1, 8, 2};
    double d = sqrt(0.975 * 0.025 / 5);
    cr_assert_float_eq(apboot_mc_error(v, 5, 0.975), (16 - (8 + (4 * (0.975 - d) - 3) * 8)) / 2, EPS);
    cr_assert_float_eq(apboot_mc_error(v, 5, 0.975), 1.5171392035015163, 1e-12);
    cr_assert_float_eq(apboot_mc_error(v, 5, 0.025), 0.18964240043768943, 1e-12);
    /* 0, 1, ..., 999: the percentile is 999 q inside the list, so e = 999 d */
    double *w = malloc(1000 * sizeof *w);
    for (int i = 0; i < 1000; i++)
        w[i] = 999 - i;
    cr_assert_float_eq(apboot_mc_error(w, 1000, 0.025), 999 * sqrt(0.025 * 0.975 / 1000), 1e-9);
    cr_assert_float_eq(apboot_mc_error(w, 1000, 0.975), 4.932167310118341, 1e-9);
    free(w);
    /* a quarter of zeros at the top: the upper bound 0 and its error 0 */
    double z[] = {-5, -4, -3, -2, -1, 0, 0, 0, 0, 0};
    cr_assert(apboot_mc_error(z, 10, 0.975) == 0.0);
    cr_assert_float_eq(apboot_mc_error(z, 10, 0.025), 0.33466969865397944, 1e-12);
    double one[] = {3};
    cr_assert(apboot_mc_error(one, 1, 0.025) == 0.0);
    cr_assert(isnan(apboot_mc_error(v, 0, 0.025)));
}

Test(apround, the_verdicts_margin)
{
    const char *dir = "x";
    /* zero lies outside [.., -1e-4] by less than its error 2e-4 */
    cr_assert_str_eq(apboot_verdict(-3e-4, -1e-4, 1e-5, 2e-4, &dir), "too close to call");
    cr_assert_null(dir);
    cr_assert_str_eq(apboot_verdict(-3e-4, -1e-4, 1e-5, 5e-5, &dir), "clearly different");
    cr_assert_str_eq(dir, "lower");
    cr_assert_str_eq(apboot_verdict(1e-4, 3e-4, 2e-4, 1e-5, &dir), "too close to call");
    cr_assert_null(dir);
    cr_assert_str_eq(apboot_verdict(3e-4, 5e-4, 1e-4, 1e-5, &dir), "clearly different");
    cr_assert_str_eq(dir, "higher");
    /* hi + e_hi exactly 0: not below 0 */
    cr_assert_str_eq(apboot_verdict(-2.0, -0.5, 0.1, 0.5, &dir), "too close to call");
    /* no stand-in anywhere: [0, 0] with errors 0 */
    cr_assert_str_eq(apboot_verdict(0, 0, 0, 0, &dir), "too close to call");
    cr_assert_null(dir);
    cr_assert_str_eq(apboot_verdict(NAN, NAN, NAN, NAN, &dir), "no interval");
    cr_assert_null(dir);
}

/* ------------------------------------------------------------ the flooded runs, on build/prep */

#define PREP "build/prep"

static char tmp[64];

static void mk_tmp(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/aproundXXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    cr_assert_eq(system(cmd), 0);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* a tester file of raw format 4 (request j asks row j): kinds[j] */
static void tester(const char *run, const char *kinds)
{
    char path[256], err[UT_ERRLEN];
    snprintf(path, sizeof path, "%s/results/raw/%s", tmp, run);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/results/raw/%s/tester.tsv.gz", tmp, run);
    gzFile gz = gzopen(path, "wb");
    cr_assert_not_null(gz);
    gzprintf(gz, "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n");
    for (const char *k = kinds; *k; k++)
        gzprintf(gz, "50\t%s\t%d\t%c\t%s\t0\t0\n", *k == 'E' ? "-" : "2000", *k == 'E' ? 504 : 200, *k,
                 *k == 'E' ? "-" : "0.25");
    gzclose(gz);
}

static int stage(const char *arms, size_t B, json_t **out, char *err, size_t errlen)
{
    apc_stage_opts o = {tmp, PREP, arms, 1, 1, B, 1, 2, 0, NULL};
    return apc_stage(&o, NULL, out, err, errlen);
}

static const char *RESULTS =
    "{\"format\": \"x\", \"runs\": {"
    " \"Y-r2\": {\"arm\": \"Y\", \"round\": 2, \"flooded\": true, \"quiet\": true, \"fault\": \"none\"},"
    " \"X-r2\": {\"arm\": \"X\", \"round\": 2, \"flooded\": true, \"quiet\": true, \"fault\": \"none\"},"
    " \"X-r1\": {\"arm\": \"X\", \"round\": 1, \"flooded\": false, \"quiet\": true, \"fault\": \"none\"},"
    " \"Y-r1\": {\"arm\": \"Y\", \"round\": 1, \"flooded\": true, \"quiet\": false, \"fault\": \"none\"},"
    " \"Z-down-r1\": {\"arm\": \"Z-down\", \"round\": 1, \"flooded\": true, \"quiet\": true, \"fault\": \"down\"},"
    " \"Y-r10\": {\"arm\": \"Y\", \"round\": 10, \"flooded\": false, \"quiet\": false, \"fault\": \"none\"}}}\n";

Test(apround, flooded_runs_are_results_jsons_quiet_flooded_runs, .init = mk_tmp, .fini = rm_tmp, .timeout = 120)
{
    if (access(PREP "/summary.json", R_OK) != 0)
        cr_skip_test("run `make prepare` first");
    char arms[256], path[256], err[UT_ERRLEN] = "";
    /* X (chosen): r1 6 requests, r2 7 (M = 6); Y (not chosen): r1, r2 (9 requests), r10 */
    tester("X-r1", "LKDLKL");
    tester("X-r2", "LLKLLLK");   /* 7 requests: as an arm's round only 6 count, on its own all 7 */
    tester("Y-r1", "DDDDDD");
    tester("Y-r2", "LDDKDEDDL");
    tester("Y-r10", "LL");
    snprintf(arms, sizeof arms, "%s/arms.tsv", tmp);
    put(arms, "arm\nX\n");

    /* without results.json: no flooded run */
    json_t *ap = NULL;
    cr_assert_eq(stage(arms, 30, &ap, err, sizeof err), 0, "%s", err);
    cr_assert(json_is_object(json_object_get(ap, "flooded_runs")));
    cr_assert_eq(json_object_size(json_object_get(ap, "flooded_runs")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(ap, "format")), "lab-ap 2");
    cr_assert(json_is_true(json_object_get(json_object_get(ap, "bootstrap"), "rounds_resampled")));
    json_decref(ap);

    snprintf(path, sizeof path, "%s/results/results.json", tmp);
    put(path, RESULTS);
    cr_assert_eq(stage(arms, 30, &ap, err, sizeof err), 0, "%s", err);
    json_t *fr = json_object_get(ap, "flooded_runs");
    cr_assert_eq(json_object_size(fr), 2);
    /* exactly the quiet flooded runs of arms without a fault (Z-down-r1's
     * outage is none), in byte order of the name */
    void *it = json_object_iter(fr);
    cr_assert_str_eq(json_object_iter_key(it), "X-r2");
    cr_assert_str_eq(json_object_iter_key(json_object_iter_next(fr, it)), "Y-r2");
    json_t *y = json_object_get(fr, "Y-r2"), *x = json_object_get(fr, "X-r2");
    cr_assert_str_eq(json_string_value(json_object_get(y, "arm")), "Y");
    cr_assert_eq(json_integer_value(json_object_get(y, "round")), 2);
    /* Y-r2: 9 requests L D D K D E D D L: 6 stand-ins (E is none) on rows 1..4, 6, 7 */
    cr_assert_eq(json_integer_value(json_object_get(y, "requests")), 9);
    cr_assert_eq(json_integer_value(json_object_get(y, "standin_requests")), 6);
    cr_assert_float_eq(json_real_value(json_object_get(y, "standin_share")), 6.0 / 9.0, EPS);
    cr_assert_eq(json_integer_value(json_object_get(y, "standin_rows")), 6);
    /* X-r2 on its own: all 7 requests, the K at j = 6 counts */
    cr_assert_eq(json_integer_value(json_object_get(x, "requests")), 7);
    cr_assert_eq(json_integer_value(json_object_get(x, "standin_requests")), 2);
    /* while as X's round 2 only the first 6 count */
    json_t *xr2 = json_array_get(json_object_get(json_object_get(json_object_get(ap, "arms"), "X"), "per_round"), 1);
    cr_assert_eq(json_integer_value(json_object_get(xr2, "standin_requests")), 1);
    int ntest = (int)json_integer_value(json_object_get(ap, "test_rows"));
    cr_assert_float_eq(json_real_value(json_object_get(y, "standin_rows_share")), 6.0 / ntest, EPS);
    /* each kind of a flooded run: its one round's change, an interval with its errors, a verdict by the rule */
    const char *kn[3] = {"last_known", "default", "none"};
    for (int k = 0; k < 3; k++) {
        json_t *e = json_object_get(json_object_get(y, "kinds"), kn[k]);
        cr_assert_not_null(e, "%s", kn[k]);
        json_t *ci = json_object_get(e, "ci95"), *mc = json_object_get(e, "ci95_mc");
        cr_assert_eq(json_array_size(ci), 2);
        cr_assert_eq(json_array_size(mc), 2);
        double lo = json_real_value(json_array_get(ci, 0)), hi = json_real_value(json_array_get(ci, 1));
        double elo = json_real_value(json_array_get(mc, 0)), ehi = json_real_value(json_array_get(mc, 1));
        cr_assert_leq(lo, hi);
        cr_assert_geq(elo, 0.0);
        cr_assert_geq(ehi, 0.0);
        const char *dir, *v = apboot_verdict(lo, hi, elo, ehi, &dir);
        cr_assert_str_eq(json_string_value(json_object_get(e, "verdict")), v);
        cr_assert(dir ? !strcmp(json_string_value(json_object_get(e, "direction")), dir)
                      : json_is_null(json_object_get(e, "direction")));
        cr_assert(json_real_value(json_object_get(e, "change")) ==
                  json_real_value(json_object_get(e, "change_default_seed")));
        /* the arm's kinds carry ci95_mc too */
        json_t *xk = json_object_get(json_object_get(json_object_get(ap, "arms"), "X"), "kinds");
        json_t *ax = json_object_get(xk, kn[k]);
        cr_assert_eq(json_array_size(json_object_get(ax, "ci95_mc")), 2);
    }
    json_decref(ap);

    /* ap_resamples.tsv.gz: 3 B lines of X, then of X-r2 and Y-r2 */
    snprintf(path, sizeof path, "%s/results/ap_resamples.tsv.gz", tmp);
    gzFile gz = gzopen(path, "rb");
    cr_assert_not_null(gz);
    char line[512];
    size_t n = 0, nx = 0, nx2 = 0, ny2 = 0;
    cr_assert_not_null(gzgets(gz, line, sizeof line));
    cr_assert_str_eq(line, "arm\tkind\tresample\tchange\n");
    while (gzgets(gz, line, sizeof line)) {
        char *tab = strchr(line, '\t');
        cr_assert_not_null(tab);
        *tab = 0;
        const char *want = n < 90 ? "X" : n < 180 ? "X-r2" : "Y-r2";
        cr_assert_str_eq(line, want, "line %zu", n + 2);
        nx += !strcmp(line, "X");
        nx2 += !strcmp(line, "X-r2");
        ny2 += !strcmp(line, "Y-r2");
        n++;
    }
    gzclose(gz);
    cr_assert_eq(n, 270);
    cr_assert(nx == 90 && nx2 == 90 && ny2 == 90);

    /* a malformed results.json: the file and the field named, nothing new written */
    snprintf(path, sizeof path, "%s/results/results.json", tmp);
    put(path, "{\"runs\": {\"X-r2\": {\"arm\": \"X\", \"round\": 2, \"flooded\": \"yes\", \"quiet\": true}}}\n");
    cr_assert_neq(stage(arms, 30, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "results/results.json: runs.X-r2.flooded: not true or false"), "%s", err);
    snprintf(path, sizeof path, "%s/provenance/manifest-ap.tsv", tmp);
    cr_assert_neq(access(path, F_OK), 0, "a failed stage leaves no manifest");
    snprintf(path, sizeof path, "%s/results/results.json", tmp);
    put(path, "{\"runs\": {\"X-r2\": {\"arm\": \"X\", \"round\": 3, \"flooded\": true, \"quiet\": true, \"fault\": \"none\"}}}\n");
    cr_assert_neq(stage(arms, 30, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "runs.X-r2: arm and round do not name the run"), "%s", err);
    /* a quiet flooded run without its fault: named */
    put(path, "{\"runs\": {\"X-r2\": {\"arm\": \"X\", \"round\": 2, \"flooded\": true, \"quiet\": true}}}\n");
    cr_assert_neq(stage(arms, 30, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "runs.X-r2.fault: missing or not a string"), "%s", err);
    /* a quiet flooded run without its tester file: named */
    put(path, "{\"runs\": {\"W-r1\": {\"arm\": \"W\", \"round\": 1, \"flooded\": true, \"quiet\": true, \"fault\": \"none\"}}}\n");
    cr_assert_neq(stage(arms, 30, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "flooded run W-r1") && strstr(err, "W-r1/tester.tsv.gz"), "%s", err);
}
