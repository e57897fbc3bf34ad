/* ap: the stand-ins' cost in AP (pipeline/ap/apcost.[ch] and the modules it
 * uses: prepread, testerraw, apstudy, apboot; pipeline/APCOST.md).
 * AP with stand-ins on a hand-made table, by hand; the weighted AP of the
 * bootstrap against a duplicated table; the bootstrap's pairing (swapping
 * the kinds' order changes nothing), zero stand-ins (every change exactly
 * 0, interval [0, 0]), thread count and reruns (identical output); the raw
 * reader's errors; the prepared-file and raw readers' checked numbers
 * (overflow named with file and line); the whole stage on the real
 * build/prep with hand-made tester files, recomputed here from scores.tsv;
 * and the program's options and PostgreSQL load. */
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
#include "apboot.h"
#include "apcost.h"
#include "apstudy.h"
#include "prepread.h"
#include "testerraw.h"
#include "util.h"
#include "tsh.h"

#define EPS 1e-12

/* ------------------------------------------------------------ the hand-made table
 * Two cutoffs (100: rows 0-3, 200: rows 4-7); customers 10..13 each have
 * one row per cutoff (rows i and i+4).
 *   labels  1 0 1 0 | 0 1 1 0
 *   live   .9 .8 .7 .6 | .9 .8 .7 .6
 *   last   .85 .95 .65 .6 | .5 d .95 .4     d = 0.65 (row 5's customer was new)
 * Live AP: cutoff 100: thresholds .9 (P 1, dR 1/2), .7 (P 2/3, dR 1/2) = 5/6;
 *          cutoff 200: .8 (P 1/2, dR 1/2), .7 (P 2/3, dR 1/2) = 7/12;
 *          mean 17/24.
 * Round 1 replaces row 0 (a buyer):
 *   last_known .85: the order is unchanged: 17/24, change 0.
 *   default .65: cutoff 100 ranks .8(0) .7(1) .65(1) .6(0): 1/2*1/2 + 1/2*2/3
 *     = 7/12; mean (7/12 + 7/12)/2 = 14/24, change -3/24 = -1/8.
 *   none: .8(0) .7(1) .6(0) -inf(1): 1/2*1/2 + 1/2*2/4 = 1/2; mean 13/24,
 *     change -4/24 = -1/6.
 * Round 2 replaces rows 5 and 6 (both buyers of cutoff 200):
 *   last_known (.65, .95): .95(1) .9(0) .65(1) .6(0): 1/2*1 + 1/2*2/3 = 5/6;
 *     mean 20/24, change +3/24 = +1/8.
 *   default (.65, .65): .9(0), then .65 twice (one threshold, both buyers):
 *     1 * 2/3 = 2/3; mean 18/24, change +1/24.
 *   none: .9(0) .6(0) then -inf twice: 1 * 2/4 = 1/2; mean 16/24, change -1/24.
 * The arm's change (rounds weigh equally): last_known (0 + 1/8)/2 = 1/16,
 * default (-1/8 + 1/24)/2 = -1/24, none (-1/6 - 1/24)/2 = -5/48. */
static const int32_t H_CUT[8] = {100, 100, 100, 100, 200, 200, 200, 200};
static const uint8_t H_LAB[8] = {1, 0, 1, 0, 0, 1, 1, 0};
static const int32_t H_CUST[8] = {10, 11, 12, 13, 10, 11, 12, 13};
static const float H_LIVE[8] = {.9f, .8f, .7f, .6f, .9f, .8f, .7f, .6f};
static const float H_D = .65f;
static const float H_LAST[8] = {.85f, .95f, .65f, .6f, .5f, .65f, .95f, .4f};

static apstudy_round mk_round(int round, const int *rows, size_t nrows)
{
    apstudy_round r = {0};
    r.round = round;
    r.requests = r.requests_in_run = 10;
    r.mask = calloc(8, 1);
    for (size_t i = 0; i < nrows; i++) {
        r.mask[rows[i]] = 1;
        r.last_known++;
    }
    r.rows = nrows;
    r.live = 10 - nrows;
    return r;
}

typedef struct {
    apstudy_round rounds_a[2], rounds_b[2];
    apstudy_arm arms[2];
    apboot_table t;
} hand;

static void hand_make(hand *h)
{
    static const int r1[] = {0}, r2[] = {5, 6};
    memset(h, 0, sizeof *h);
    h->rounds_a[0] = mk_round(1, r1, 1);
    h->rounds_a[1] = mk_round(2, r2, 2);
    h->rounds_b[0] = mk_round(1, NULL, 0);
    h->rounds_b[1] = mk_round(2, NULL, 0);
    snprintf(h->arms[0].name, sizeof h->arms[0].name, "A");
    h->arms[0].nrounds = 2;
    h->arms[0].rounds = h->rounds_a;
    snprintf(h->arms[1].name, sizeof h->arms[1].name, "ZERO");
    h->arms[1].nrounds = 2;
    h->arms[1].rounds = h->rounds_b;
    h->t = (apboot_table){8, H_CUT, H_LAB, H_CUST};
}

static void hand_free(hand *h)
{
    for (int i = 0; i < 2; i++) {
        apstudy_round_free(&h->rounds_a[i]);
        apstudy_round_free(&h->rounds_b[i]);
    }
}

static apboot_ctx *hand_run(hand *h, const int *kinds, int threads, size_t B)
{
    char err[UT_ERRLEN] = "";
    apboot_opts o = {B, 7, threads, 3, {kinds[0], kinds[1], kinds[2]}, 1};  /* format 2: rounds resampled */
    apboot_ctx *c = apboot_new(&h->t, h->arms, 2, 2, &o, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    /* seed 1: the table above; seed 2: the same scores, so the same changes */
    cr_assert_eq(apboot_add_seed(c, 1, H_LIVE, H_LAST, H_D, 1, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(apboot_add_seed(c, 2, H_LIVE, H_LAST, H_D, 1, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(apboot_finish(c, err, sizeof err), 0, "%s", err);
    return c;
}

static const int KINDS[3] = {APBOOT_LAST_KNOWN, APBOOT_DEFAULT, APBOOT_NONE};
static const int KINDS_SWAPPED[3] = {APBOOT_NONE, APBOOT_LAST_KNOWN, APBOOT_DEFAULT};

Test(apstage, ap_with_standins_by_hand)
{
    hand h;
    hand_make(&h);
    apboot_ctx *c = hand_run(&h, KINDS, 1, 20);
    const apboot_result *r = apboot_result_of(c);
    cr_assert_float_eq(r->live_ap[0], 17.0 / 24.0, EPS);
    cr_assert_eq(r->ncustomers, 4);
    cr_assert_eq(r->ngroups, 2);
    const apboot_arm_result *a = &r->arm[0];
    /* per round, seed 1 */
    const double want[2][3] = {{17.0 / 24, 14.0 / 24, 13.0 / 24}, {20.0 / 24, 18.0 / 24, 16.0 / 24}};
    for (int q = 0; q < 2; q++)
        for (int k = 0; k < 3; k++)
            cr_assert_float_eq(a->round_ap[q].ap[k], want[q][k], EPS, "round %d kind %s: %.17g", q + 1,
                               apboot_kind_names[k], a->round_ap[q].ap[k]);
    /* the arm's change, per seed and averaged */
    const double ch[3] = {1.0 / 16, -1.0 / 24, -5.0 / 48};
    for (int k = 0; k < 3; k++) {
        cr_assert_float_eq(a->seed_change[k][0], ch[k], EPS, "%s", apboot_kind_names[k]);
        cr_assert_float_eq(a->seed_change[k][1], ch[k], EPS);
        cr_assert_float_eq(a->change[k], ch[k], EPS);
    }
    /* the same through lab/core/ap.h directly */
    float v[8];
    memcpy(v, H_LIVE, sizeof v);
    v[0] = -INFINITY;
    cr_assert_float_eq(ap_mean_by_group(v, H_LAB, H_CUT, 8), 13.0 / 24, EPS);
    apboot_free(c);
    hand_free(&h);
}

Test(apstage, none_ranks_below_every_score)
{
    /* One cutoff: c .9 buyer, a 0.0 buyer, b .5 non-buyer.  Round 1 gives b
     * a stand-in.  "none" (-inf) ranks b strictly below a's 0.0:
     * .9 (dR 1/2, P 1), 0.0 (dR 1/2, P 2/2), -inf (no buyer): AP 1, live
     * AP .9, .5, 0.0 -> 1/2 + 1/2 * 2/3 = 5/6: change +1/6.  (Had "none"
     * been a score tied with 0.0 the AP would be 5/6: change 0.) */
    static const int32_t cut[3] = {1, 1, 1};
    static const uint8_t lab[3] = {1, 1, 0};
    static const int32_t cust[3] = {1, 2, 3};
    static const float live[3] = {.9f, 0.0f, .5f}, last[3] = {.9f, 0.0f, .5f};
    uint8_t mask[3] = {0, 0, 1};
    apstudy_round rd = {1, 3, 3, 2, 1, 0, 0, 1, mask};
    apstudy_arm arm = {"A", 1, &rd};
    apboot_table t = {3, cut, lab, cust};
    apboot_opts o = {10, 1, 1, 3, {APBOOT_LAST_KNOWN, APBOOT_DEFAULT, APBOOT_NONE}, 1};
    char err[UT_ERRLEN] = "";
    apboot_ctx *c = apboot_new(&t, &arm, 1, 1, &o, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    cr_assert_eq(apboot_add_seed(c, 1, live, last, 0.0f, 1, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(apboot_finish(c, err, sizeof err), 0, "%s", err);
    const apboot_result *r = apboot_result_of(c);
    cr_assert_float_eq(r->live_ap[0], 5.0 / 6.0, EPS);
    cr_assert_float_eq(r->arm[0].change[APBOOT_NONE], 1.0 / 6.0, EPS);
    cr_assert_float_eq(r->arm[0].change[APBOOT_DEFAULT], 0.0, EPS);  /* default 0.0 ties with a: 5/6 */
    cr_assert(r->arm[0].change[APBOOT_LAST_KNOWN] == 0.0);           /* last_known = live */
    apboot_free(c);
}

Test(apstage, weighted_ap_by_hand)
{
    /* Customers 10, 11, 12, 13 drawn 2, 0, 1, 1 times.  Cutoff 100: buyers'
     * weight 3; .9 (weight 2, buyer): dR 2/3, P 1; .8 weighs 0; .7 (buyer):
     * dR 1/3, P 3/3: AP 1.  Cutoff 200: buyers' weight 1 (row 5 weighs 0);
     * .9 (weight 2, no buyer), .8 weighs 0, .7 (buyer): dR 1, P 1/3.
     * Mean (1 + 1/3)/2 = 2/3. */
    const uint32_t w[8] = {2, 0, 1, 1, 2, 0, 1, 1};
    cr_assert_float_eq(apboot_ap_weighted(H_LIVE, H_LAB, H_CUT, w, 8), 2.0 / 3.0, EPS);
    cr_assert_float_eq(apboot_ap_weighted(H_LIVE, H_LAB, H_CUT, NULL, 8), 17.0 / 24.0, EPS);
    /* no buyer left in a cutoff: undefined */
    const uint32_t w0[8] = {0, 1, 0, 1, 1, 1, 1, 1};
    cr_assert(isnan(apboot_ap_weighted(H_LIVE, H_LAB, H_CUT, w0, 8)));
}

Test(apstage, weighted_ap_equals_duplicated_rows)
{
    /* an independent reference: lab/core/ap.h on the table with row i written
     * w[i] times, ties and unscored rows included */
    ut_rng rng;
    ut_rng_seed(&rng, 42);
    enum { N = 3000 };
    static float s[N], s2[N * 4];
    static uint8_t y[N], y2[N * 4];
    static int32_t g[N], g2[N * 4];
    static uint32_t w[N];
    for (int rep = 0; rep < 5; rep++) {
        size_t m = 0;
        for (int i = 0; i < N; i++) {
            uint64_t u = ut_rng_u64(&rng);
            s[i] = (u % 7 == 0) ? -INFINITY : (float)((u >> 8) % 50) / 50.0f;  /* many ties */
            y[i] = (u >> 20) % 3 == 0;
            g[i] = (int32_t)((u >> 30) % 4);
            w[i] = (uint32_t)((u >> 40) % 4);
            for (uint32_t k = 0; k < w[i]; k++) {
                s2[m] = s[i];
                y2[m] = y[i];
                g2[m] = g[i];
                m++;
            }
        }
        double a = apboot_ap_weighted(s, y, g, w, N), b = ap_mean_by_group(s2, y2, g2, m);
        cr_assert(isfinite(b));
        cr_assert_float_eq(a, b, EPS, "rep %d: %.17g vs %.17g", rep, a, b);
        cr_assert_float_eq(apboot_ap_weighted(s, y, g, NULL, N), ap_mean_by_group(s, y, g, N), EPS);
    }
}

Test(apstage, bootstrap_same_picks_for_every_kind)
{
    /* Computing the kinds in another order must give every interval and every
     * resample's value bit for bit: the picks do not depend on the kind. */
    hand h1, h2;
    hand_make(&h1);
    hand_make(&h2);
    apboot_ctx *a = hand_run(&h1, KINDS, 1, 200), *b = hand_run(&h2, KINDS_SWAPPED, 1, 200);
    const apboot_result *ra = apboot_result_of(a), *rb = apboot_result_of(b);
    cr_assert_eq(ra->resamples_used, rb->resamples_used);
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(memcmp(&ra->arm[0].lo[k], &rb->arm[0].lo[k], sizeof(double)), 0, "%s", apboot_kind_names[k]);
        cr_assert_eq(memcmp(&ra->arm[0].hi[k], &rb->arm[0].hi[k], sizeof(double)), 0);
        cr_assert_eq(memcmp(ra->arm[0].boot[k], rb->arm[0].boot[k], 200 * sizeof(double)), 0);
        cr_assert_eq(memcmp(&ra->arm[0].change[k], &rb->arm[0].change[k], sizeof(double)), 0);
        cr_assert_leq(ra->arm[0].lo[k], ra->arm[0].hi[k]);
    }
    /* 4 customers: some resamples leave a cutoff without a buyer, dropped
     * for every kind alike */
    cr_assert_lt(ra->resamples_used, 200);
    cr_assert_gt(ra->resamples_used, 50);
    apboot_free(a);
    apboot_free(b);
    hand_free(&h1);
    hand_free(&h2);
}

Test(apstage, bootstrap_resample_values)
{
    /* Only round 1 (row 0, a buyer, stand-in for customer 10).  last_known
     * (.85 for the top score .9) keeps every ranking, so in every resample
     * its change is exactly 0, and so is its interval.  "none" ranks the
     * buyer last: in a resample it is 0 when customer 10 was not drawn, and
     * never above 0. */
    hand h;
    hand_make(&h);
    h.rounds_a[1].mask[5] = h.rounds_a[1].mask[6] = 0;
    h.rounds_a[1].rows = 0;
    apboot_ctx *c = hand_run(&h, KINDS, 1, 100);
    const apboot_result *r = apboot_result_of(c);
    size_t zeros = 0, kept = 0;
    for (size_t b = 0; b < 100; b++) {
        double lk = r->arm[0].boot[APBOOT_LAST_KNOWN][b], no = r->arm[0].boot[APBOOT_NONE][b];
        if (isnan(lk))
            continue;  /* a dropped resample (a cutoff without a buyer) */
        kept++;
        cr_assert(lk == 0.0, "resample %zu: %.17g", b, lk);
        cr_assert_leq(no, 1e-15);
        zeros += no == 0.0;
    }
    cr_assert_eq(kept, r->resamples_used);
    cr_assert_gt(zeros, 0);
    cr_assert_lt(zeros, kept);
    cr_assert(r->arm[0].lo[APBOOT_LAST_KNOWN] == 0.0 && r->arm[0].hi[APBOOT_LAST_KNOWN] == 0.0);
    cr_assert_lt(r->arm[0].lo[APBOOT_NONE], 0.0);
    /* point values: round 1 -1/6, round 2 nothing: mean -1/12 */
    cr_assert_float_eq(r->arm[0].change[APBOOT_NONE], -1.0 / 12.0, EPS);
    apboot_free(c);
    hand_free(&h);
}

Test(apstage, zero_standins_give_exact_zero)
{
    hand h;
    hand_make(&h);
    apboot_ctx *c = hand_run(&h, KINDS, 2, 100);
    const apboot_result *r = apboot_result_of(c);
    const apboot_arm_result *z = &r->arm[1];
    for (int k = 0; k < 3; k++) {
        cr_assert(z->change[k] == 0.0, "%s: %.17g", apboot_kind_names[k], z->change[k]);
        for (size_t s = 0; s < 2; s++)
            cr_assert(z->seed_change[k][s] == 0.0);
        for (size_t b = 0; b < 100; b++)
            cr_assert(z->boot[k][b] == 0.0 || isnan(z->boot[k][b]));
        cr_assert(z->lo[k] == 0.0 && z->hi[k] == 0.0, "[%g, %g]", z->lo[k], z->hi[k]);
        for (int q = 0; q < 2; q++)
            cr_assert(z->round_ap[q].ap[k] == r->live_ap[0]);
    }
    apboot_free(c);
    hand_free(&h);
}

Test(apstage, threads_do_not_change_the_numbers)
{
    hand h1, h2;
    hand_make(&h1);
    hand_make(&h2);
    apboot_ctx *a = hand_run(&h1, KINDS, 1, 300), *b = hand_run(&h2, KINDS, 3, 300);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(memcmp(apboot_result_of(a)->arm[0].boot[k], apboot_result_of(b)->arm[0].boot[k],
                            300 * sizeof(double)),
                     0);
    apboot_free(a);
    apboot_free(b);
    hand_free(&h1);
    hand_free(&h2);
}

Test(apstage, percentile_by_hand)
{
    double v[] = {4, 1, 3, 2, 5};
    /* sorted 1..5: q=0.025 -> h=0.1 -> 1.1; q=0.975 -> h=3.9 -> 4.9 */
    cr_assert_float_eq(apboot_percentile(v, 5, 0.025), 1.1, EPS);
    cr_assert_float_eq(apboot_percentile(v, 5, 0.975), 4.9, EPS);
    cr_assert_float_eq(apboot_percentile(v, 5, 0.5), 3.0, EPS);
    double one[] = {7};
    cr_assert_float_eq(apboot_percentile(one, 1, 0.975), 7.0, EPS);
    cr_assert(isnan(apboot_percentile(v, 0, 0.5)));
}

/* ------------------------------------------------------------ raw files */

static char tmp[64];

static void mk_tmp(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/apstageXXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    cr_assert_eq(system(cmd), 0);
}

/* A tester file of raw format 4: kinds[j] for request j, which asks for
 * row j mod the table's rows (the format leaves the row out: rows[] only
 * says which, for the reader of the test); times as offsets in us. */
static void write_tester(const char *path, const int *rows, const char *kinds, size_t n, int cut)
{
    gzFile gz = gzopen(path, "wb");
    cr_assert_not_null(gz);
    gzprintf(gz, "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n");
    (void)rows;
    for (size_t j = 0; j < n; j++) {
        char k = kinds[j];
        gzprintf(gz, "50\t%s\t%d\t%c\t%s\t0\t0\n", k == 'E' ? "-" : "2000", k == 'E' ? 504 : 200, k,
                 k == 'E' ? "-" : "0.25");
    }
    gzclose(gz);
    if (cut) {
        struct stat st;
        cr_assert_eq(stat(path, &st), 0);
        cr_assert_eq(truncate(path, st.st_size - 12), 0);
    }
}

Test(apstage, raw_reader_and_selection, .init = mk_tmp, .fini = rm_tmp)
{
    char path[256], err[UT_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/t.tsv.gz", tmp);
    /* j:    0  1  2  3  4  5
     * row:  0  1  2  0  1  2    (j mod 3: a table of 3 rows)
     * kind: L  K  D  E  K  D    -> among the first 5: K, D, K = 3 stand-ins,
     *                              rows {1, 2} (row 1 asked twice counts once) */
    const int rows[] = {0, 1, 2, 0, 1, 2};
    write_tester(path, rows, "LKDEKD", 6, 0);
    testerraw_run raw;
    cr_assert_eq(testerraw_read(path, 3, &raw, err, sizeof err), 0, "%s", err);
    cr_assert_eq(raw.n, 6);
    cr_assert_eq(raw.row[4], 1);
    cr_assert_eq(raw.row[5], 2);
    cr_assert_eq(raw.kind[3], 'E');
    apstudy_round rd;
    cr_assert_eq(apstudy_round_select(&raw, 3, 5, 3, &rd, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rd.round, 3);
    cr_assert_eq(rd.requests_in_run, 6);
    cr_assert_eq(rd.requests, 5);
    cr_assert_eq(rd.live, 1);
    cr_assert_eq(rd.last_known, 2);
    cr_assert_eq(rd.dflt, 1);
    cr_assert_eq(rd.error, 1);
    cr_assert_eq(rd.rows, 2);
    const uint8_t want[3] = {0, 1, 1};
    cr_assert_arr_eq(rd.mask, want, 3);
    apstudy_round_free(&rd);
    cr_assert_neq(apstudy_round_select(&raw, 3, 7, 3, &rd, err, sizeof err), 0);
    testerraw_free(&raw);

    /* no table */
    cr_assert_neq(testerraw_read(path, 0, &raw, err, sizeof err), 0);
    cr_assert(strstr(err, path) && strstr(err, "no table rows"), "%s", err);
    /* a truncated gzip stream */
    write_tester(path, rows, "LKDEKD", 6, 1);
    cr_assert_neq(testerraw_read(path, 10, &raw, err, sizeof err), 0);
    cr_assert(strstr(err, path), "%s", err);
    /* a bad kind, and a row with a missing field */
    gzFile gz = gzopen(path, "wb");
    gzprintf(gz, "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n" "0\t5\t200\tL\t0.5\t0\t0\n0\t5\t200\tX\t0.5\t0\t0\n");
    gzclose(gz);
    cr_assert_neq(testerraw_read(path, 10, &raw, err, sizeof err), 0);
    cr_assert(strstr(err, ":4:") && strstr(err, "kind"), "%s", err);
    gz = gzopen(path, "wb");
    gzprintf(gz, "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n" "0\t0\n");
    gzclose(gz);
    cr_assert_neq(testerraw_read(path, 10, &raw, err, sizeof err), 0);
    cr_assert(strstr(err, ":3:") && strstr(err, "field"), "%s", err);
    gz = gzopen(path, "wb");
    gzprintf(gz, "# lab-raw 4 store\nj\trow\tkind\n");
    gzclose(gz);
    cr_assert_neq(testerraw_read(path, 10, &raw, err, sizeof err), 0);
    cr_assert(strstr(err, ":1:") || strstr(err, "line 1"), "%s", err);
}

/* ------------------------------------------------------------ checked parsing */

static void put_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

#define FEATS "recency\torders_90\tspend_90\torders_365\tspend_365\ttenure"
#define ROW6 "\t1\t2\t3.5\t4\t5.25\t6\n"

/* err names the file, the line and why */
static void refused(int rc, const char *err, const char *path, const char *line, const char *why)
{
    cr_assert_neq(rc, 0, "accepted: %s", path);
    cr_assert(strstr(err, path) && strstr(err, line) && strstr(err, why), "%s", err);
}

Test(apstage, prepared_rows_with_overflowing_integers_are_refused, .init = mk_tmp, .fini = rm_tmp)
{
    char train[256], test[256], prev[256], err[UT_ERRLEN] = "";
    prepread_rows rows = {0}, trows = {0}, prows = {0};
    int32_t *prow = NULL;
    snprintf(train, sizeof train, "%s/train.tsv", tmp);
    snprintf(test, sizeof test, "%s/test.tsv", tmp);
    snprintf(prev, sizeof prev, "%s/prev.tsv", tmp);

    /* a well-formed file is read, every field exactly */
    put_text(train, "customer\tcutoff\tlabel\t" FEATS "\n12345\t2011-06-01\t1" ROW6 "7\t2011-07-01\t0" ROW6);
    cr_assert_eq(prepread_train(train, &rows, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rows.n, 2);
    cr_assert_eq(rows.r[0].customer, 12345);
    cr_assert_eq(rows.r[0].cutoff, ut_days_from_civil(2011, 6, 1));
    cr_assert_eq(rows.r[0].label, 1);
    cr_assert(rows.r[1].x[2] == 3.5f && rows.r[1].x[4] == 5.25f);
    prepread_rows_free(&rows);

    /* beyond 64 bits: named as an overflow, with file and line */
    put_text(train, "customer\tcutoff\tlabel\t" FEATS "\n1\t2011-06-01\t1" ROW6
                    "99999999999999999999\t2011-06-01\t0" ROW6);
    refused(prepread_train(train, &rows, err, sizeof err), err, train, "line 3", "overflow");
    cr_assert(strstr(err, "customer"), "%s", err);
    prepread_rows_free(&rows);
    /* beyond 32 bits: the id would not fit the table, refused (not truncated) */
    put_text(train, "customer\tcutoff\tlabel\t" FEATS "\n4294967297\t2011-06-01\t1" ROW6);
    refused(prepread_train(train, &rows, err, sizeof err), err, train, "line 2", "out of range");
    prepread_rows_free(&rows);
    /* a label that overflows, and a feature beyond a 32-bit float */
    put_text(train, "customer\tcutoff\tlabel\t" FEATS "\n1\t2011-06-01\t-99999999999999999999" ROW6);
    refused(prepread_train(train, &rows, err, sizeof err), err, train, "line 2", "overflow");
    prepread_rows_free(&rows);
    put_text(train, "customer\tcutoff\tlabel\t" FEATS "\n1\t2011-06-01\t1\t1e39\t2\t3\t4\t5\t6\n");
    refused(prepread_train(train, &rows, err, sizeof err), err, train, "line 2", "recency");
    prepread_rows_free(&rows);

    /* test.tsv: the row number overflows */
    put_text(test, "row\tcustomer\tcutoff\tlabel\t" FEATS "\n0\t5\t2011-06-01\t1" ROW6
                   "18446744073709551617\t6\t2011-06-01\t0" ROW6);
    refused(prepread_test(test, &trows, err, sizeof err), err, test, "line 3", "overflow");
    cr_assert(strstr(err, "row"), "%s", err);
    prepread_rows_free(&trows);

    /* prev.tsv against a good test.tsv: its row overflows */
    put_text(test, "row\tcustomer\tcutoff\tlabel\t" FEATS "\n0\t5\t2011-06-01\t1" ROW6);
    cr_assert_eq(prepread_test(test, &trows, err, sizeof err), 0, "%s", err);
    put_text(prev, "row\tcustomer\tcutoff\t" FEATS "\n99999999999999999999\t5\t2011-05-01" ROW6);
    refused(prepread_prev(prev, &trows, &prows, &prow, err, sizeof err), err, prev, "line 2", "overflow");
    free(prow);
    prepread_rows_free(&prows);
    prepread_rows_free(&trows);

    /* a tester file whose status overflows */
    char raw[256];
    snprintf(raw, sizeof raw, "%s/t.tsv.gz", tmp);
    gzFile gz = gzopen(raw, "wb");
    gzprintf(gz, "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n" "0\t5\t200\tL\t0.5\t0\t0\n0\t5\t99999999999999999999\tK\t0.5\t0\t0\n");
    gzclose(gz);
    testerraw_run run;
    refused(testerraw_read(raw, 10, &run, err, sizeof err), err, raw, ":4:", "overflow");
}

/* ------------------------------------------------------------ the stage, on build/prep */

#define PREP "build/prep"

static void write_arms(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* Scores and labels of build/prep/scores.tsv, for an independent recomputation. */
typedef struct {
    size_t n;
    float *score, *last;
    uint8_t *label;
    int32_t *cut;
} refs;

static void load_refs(refs *r)
{
    FILE *f = fopen(PREP "/scores.tsv", "r");
    cr_assert_not_null(f, "run `make prepare` first");
    char line[512];
    r->score = malloc(40000 * sizeof(float));
    r->last = malloc(40000 * sizeof(float));
    r->label = malloc(40000);
    r->cut = malloc(40000 * sizeof(int32_t));
    r->n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        int c, y, m, d, l;
        cr_assert_eq(sscanf(line, "%d\t%d-%d-%d\t%d\t%f\t%f", &c, &y, &m, &d, &l, &r->score[r->n], &r->last[r->n]),
                     7);
        r->label[r->n] = (uint8_t)l;
        r->cut[r->n] = ut_days_from_civil(y, m, d);
        r->n++;
    }
    fclose(f);
}

static void free_refs(refs *r)
{
    free(r->score);
    free(r->last);
    free(r->label);
    free(r->cut);
}

static int stage(const char *root, const char *arms, int seeds, size_t B, int threads, json_t **out, char *err,
                 size_t errlen)
{
    apc_stage_opts o = {root, PREP, arms, seeds, seeds, B, 1, threads, 0, NULL};
    return apc_stage(&o, NULL, out, err, errlen);
}

Test(apstage, stage_on_prepared_files, .init = mk_tmp, .fini = rm_tmp, .timeout = 120)
{
    char path[256], arms[256], err[UT_ERRLEN] = "";
    /* arm X: round 1 has 7 requests, round 2 has 6: M = 6.
     *   r1 rows 0..6 kinds L K D L K L K -> first 6: K at 1, D at 2, K at 4
     *   r2 rows 0..5 kinds L L L L L L   -> none
     * arm N: no runs (skipped).  arm Z: one round without stand-ins. */
    snprintf(path, sizeof path, "%s/results/raw/X-r1", tmp);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/results/raw/X-r2", tmp);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/results/raw/Z-r1", tmp);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/results/raw/X-r01", tmp);  /* not a round: leading zero */
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0);
    const int rows[] = {0, 1, 2, 3, 4, 5, 6};
    snprintf(path, sizeof path, "%s/results/raw/X-r1/tester.tsv.gz", tmp);
    write_tester(path, rows, "LKDLKLK", 7, 0);
    snprintf(path, sizeof path, "%s/results/raw/X-r2/tester.tsv.gz", tmp);
    write_tester(path, rows, "LLLLLL", 6, 0);
    snprintf(path, sizeof path, "%s/results/raw/Z-r1/tester.tsv.gz", tmp);
    write_tester(path, rows, "LLLLLEL", 7, 0);
    snprintf(arms, sizeof arms, "%s/arms.tsv", tmp);
    write_arms(arms, "# the chosen arms (lab/base/tsv.h: comments anywhere)\narm\nX\n# a comment\n\nN\nZ\n");

    json_t *ap = NULL;
    cr_assert_eq(stage(tmp, arms, 2, 50, 2, &ap, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(ap, "skipped_arms"), 0)), "N");
    json_t *x = json_object_get(json_object_get(ap, "arms"), "X");
    cr_assert_not_null(x);
    cr_assert_eq(json_integer_value(json_object_get(x, "requests_per_round")), 6);
    cr_assert_eq(json_integer_value(json_object_get(x, "requests")), 12);
    cr_assert_eq(json_integer_value(json_object_get(x, "standin_requests")), 3);
    cr_assert_eq(json_integer_value(json_object_get(x, "last_known_requests")), 2);
    cr_assert_eq(json_integer_value(json_object_get(x, "default_requests")), 1);
    cr_assert_float_eq(json_real_value(json_object_get(x, "standin_share")), 3.0 / 12.0, EPS);
    json_t *r1 = json_array_get(json_object_get(x, "per_round"), 0);
    cr_assert_eq(json_integer_value(json_object_get(r1, "requests_in_run")), 7);
    cr_assert_eq(json_integer_value(json_object_get(r1, "standin_rows")), 3);

    /* Recompute the default seed's numbers here, from scores.tsv alone. */
    refs rf;
    load_refs(&rf);
    json_t *summ = json_load_file(PREP "/summary.json", 0, NULL);
    float d = (float)json_number_value(json_object_get(summ, "default_score"));
    json_decref(summ);
    cr_assert_float_eq(json_real_value(json_object_get(x, "standin_rows_share")), 3.0 / (double)rf.n / 2.0, EPS);
    double live = ap_mean_by_group(rf.score, rf.label, rf.cut, rf.n);
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(ap, "live_ap"), "default_seed")), live, EPS);
    float *v = malloc(rf.n * sizeof *v);
    for (int k = 0; k < 3; k++) {
        memcpy(v, rf.score, rf.n * sizeof *v);
        const int S[] = {1, 2, 4};
        for (int i = 0; i < 3; i++)
            v[S[i]] = k == 0 ? rf.last[S[i]] : k == 1 ? d : -INFINITY;
        double a = ap_mean_by_group(v, rf.label, rf.cut, rf.n);
        json_t *e = json_object_get(json_object_get(json_object_get(x, "kinds"), apboot_kind_names[k]),
                                    "change_default_seed");
        cr_assert_float_eq(json_real_value(e), (a - live) / 2.0, EPS, "%s", apboot_kind_names[k]);
        json_t *pa = json_object_get(json_object_get(r1, "ap_default_seed"), apboot_kind_names[k]);
        cr_assert_float_eq(json_real_value(pa), a, EPS);
    }
    free(v);
    /* the mean over the 2 seeds is the mean of change_per_seed, whose first is the default seed's */
    for (int k = 0; k < 3; k++) {
        json_t *e = json_object_get(json_object_get(x, "kinds"), apboot_kind_names[k]);
        json_t *ps = json_object_get(e, "change_per_seed");
        cr_assert_eq(json_array_size(ps), 2);
        cr_assert(json_real_value(json_array_get(ps, 0)) == json_real_value(json_object_get(e, "change_default_seed")));
        cr_assert_float_eq(json_real_value(json_object_get(e, "change")),
                           (json_real_value(json_array_get(ps, 0)) + json_real_value(json_array_get(ps, 1))) / 2, EPS);
        json_t *ci = json_object_get(e, "ci95");
        cr_assert_leq(json_real_value(json_array_get(ci, 0)), json_real_value(json_array_get(ci, 1)));
    }
    /* Z: no stand-in: exact zeros, interval [0, 0], too close to call */
    json_t *z = json_object_get(json_object_get(json_object_get(ap, "arms"), "Z"), "kinds");
    for (int k = 0; k < 3; k++) {
        json_t *e = json_object_get(z, apboot_kind_names[k]);
        cr_assert(json_real_value(json_object_get(e, "change")) == 0.0);
        cr_assert(json_real_value(json_array_get(json_object_get(e, "ci95"), 0)) == 0.0);
        cr_assert(json_real_value(json_array_get(json_object_get(e, "ci95"), 1)) == 0.0);
        cr_assert_str_eq(json_string_value(json_object_get(e, "verdict")), "too close to call");
    }
    free_refs(&rf);

    /* A seeded run gives identical output twice, whatever the threads. */
    snprintf(path, sizeof path, "%s/results/ap.json", tmp);
    char *first = slurp(path);
    json_decref(ap);
    ap = NULL;
    cr_assert_eq(stage(tmp, arms, 2, 50, 1, &ap, err, sizeof err), 0, "%s", err);
    char *second = slurp(path);
    cr_assert_str_eq(first, second);
    free(first);
    free(second);
    json_decref(ap);

    /* No chosen arm with runs: a failure naming the arms file. */
    write_arms(arms, "arm\nN\n");
    cr_assert_neq(stage(tmp, arms, 1, 10, 1, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "none of the arms"), "%s", err);
    /* A malformed raw file fails the stage, naming it. */
    write_arms(arms, "arm\nX\n");
    snprintf(path, sizeof path, "%s/results/raw/X-r2/tester.tsv.gz", tmp);
    write_tester(path, rows, "LLLLLL", 6, 1);
    cr_assert_neq(stage(tmp, arms, 1, 10, 1, NULL, err, sizeof err), 0);
    cr_assert(strstr(err, "X-r2/tester.tsv.gz"), "%s", err);
}

/* The program and its PostgreSQL load (skipped when build/bin/ap is not built). */
static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(apstage, program_loads_postgresql, .init = mk_tmp, .fini = rm_tmp, .timeout = 180)
{
    if (access("build/bin/ap", X_OK) != 0)
        cr_skip_test("build/bin/ap is not built");
    char path[256], cmd[2048], url[512], err[UT_ERRLEN];
    snprintf(path, sizeof path, "%s/results/raw/X-r1", tmp);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0);
    const int rows[] = {0, 1, 2, 3, 4, 5, 6};
    snprintf(path, sizeof path, "%s/results/raw/X-r1/tester.tsv.gz", tmp);
    write_tester(path, rows, "LKDLKLK", 7, 0);
    /* a quiet flooded run of an arm not chosen (format 2: the table ap_flooded_runs) */
    snprintf(path, sizeof path, "%s/results/raw/F-r1", tmp);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/results/raw/F-r1/tester.tsv.gz", tmp);
    write_tester(path, rows, "DDDDDLL", 7, 0);
    snprintf(path, sizeof path, "%s/results/results.json", tmp);
    write_arms(path, "{\"runs\": {\"F-r1\": {\"arm\": \"F\", \"round\": 1, \"flooded\": true, \"quiet\": true, "
                     "\"fault\": \"none\"}}}\n");
    snprintf(path, sizeof path, "%s/arms.tsv", tmp);
    write_arms(path, "arm\nX\n");
    FILE *p = popen("bash pipeline/common/pg.sh start build/pgaptest", "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(url, sizeof url, p));
    url[strcspn(url, "\n")] = 0;
    cr_assert_eq(pclose(p), 0);
    /* a table of format 1 (without the columns of format 2), which the load extends */
    snprintf(cmd, sizeof cmd,
             "psql -q '%s' -c 'DROP TABLE IF EXISTS ap_costs' -c 'DROP TABLE IF EXISTS ap_flooded_runs' -c "
             "'CREATE TABLE ap_costs (arm text NOT NULL, kind text NOT NULL, rounds integer NOT NULL, requests bigint "
             "NOT NULL, standin_requests bigint NOT NULL, standin_share double precision NOT NULL, standin_rows_share "
             "double precision NOT NULL, model_seeds integer NOT NULL, resamples integer NOT NULL, live_ap double "
             "precision NOT NULL, change double precision, change_default_seed double precision, ci_lo double "
             "precision, ci_hi double precision, verdict text NOT NULL, PRIMARY KEY (arm, kind))' >/dev/null 2>&1",
             url);
    cr_assert_eq(sh(cmd), 0);
    for (int rep = 0; rep < 2; rep++) {  /* the second run replaces the arm's rows */
        snprintf(cmd, sizeof cmd,
                 "build/bin/ap --root %s --arms %s/arms.tsv --seeds 1 --resamples 20 --pgurl '%s' >/dev/null", tmp,
                 tmp, url);
        cr_assert_eq(sh(cmd), 0, "%s", cmd);
    }
    snprintf(cmd, sizeof cmd,
             "test \"$(psql -At '%s' -c \"SELECT count(*), sum(standin_requests), min(rounds) FROM ap_costs WHERE "
             "arm = 'X'\")\" = '3|12|1'",
             url);
    int ok = sh(cmd);
    snprintf(cmd, sizeof cmd,
             "test \"$(psql -At '%s' -c \"SELECT count(*), count(ci_lo_mc), count(ci_hi_mc) FROM ap_costs\")\" = "
             "'3|3|3' && test \"$(psql -At '%s' -c \"SELECT count(*), min(run), min(arm), sum(requests), "
             "sum(standin_requests), sum(standin_rows), count(ci_lo_mc) FROM ap_flooded_runs\")\" = '3|F-r1|F|21|15|15|3'",
             url, url);
    int okf = sh(cmd);
    snprintf(path, sizeof path, "%s/provenance/stage-ap.json", tmp);
    json_t *prov = json_load_file(path, 0, NULL);
    /* an unreachable database: exit 1, its password masked, nothing written */
    snprintf(cmd, sizeof cmd,
             "rm -f %s/results/ap.json; build/bin/ap --root %s --arms %s/arms.tsv --seeds 1 --pgurl "
             "'host=/nonexistent dbname=x password=hunter2' 2>%s/err.txt; test $? -eq 1 && ! grep -q hunter2 "
             "%s/err.txt && grep -q 'cannot reach PostgreSQL' %s/err.txt && test ! -e %s/results/ap.json",
             tmp, tmp, tmp, tmp, tmp, tmp, tmp);
    int ok2 = sh(cmd);
    sh("bash pipeline/common/pg.sh stop build/pgaptest");
    cr_assert_eq(ok, 0, "ap_costs does not hold 3 rows for X with 3 stand-ins per kind");
    cr_assert_eq(okf, 0, "ap_costs lacks ci95_mc, or ap_flooded_runs does not hold F-r1's 3 rows of 7 requests, 5 stand-ins");
    cr_assert_not_null(prov);
    cr_assert_eq(json_integer_value(json_object_get(prov, "exit_code")), 0);
    json_decref(prov);
    cr_assert_eq(ok2, 0, "unreachable database");
}

/* The program's options (lab/base/opt.h): a bad value names the option and exits
 * 2 before anything is read or written. */
Test(apstage, program_checks_its_options, .init = mk_tmp, .fini = rm_tmp)
{
    if (access("build/bin/ap", X_OK) != 0)
        cr_skip_test("build/bin/ap is not built");
    const char *bad[][2] = {{"--seeds", "99999999999999999999"}, {"--seeds", "0"}, {"--seeds", "2x"},
                            {"--threads", "0"}, {"--resamples", "1000001"}, {"--boot-seed", "-1"},
                            {"--boot-seeds", "1e3"}};
    char cmd[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 "build/bin/ap --root %s %s '%s' 2>%s/err.txt >/dev/null; test $? -eq 2 && "
                 "grep -q -- '%s' %s/err.txt && test ! -e %s/results",
                 tmp, bad[i][0], bad[i][1], tmp, bad[i][0], tmp, tmp);
        cr_assert_eq(sh(cmd), 0, "%s", cmd);
    }
    snprintf(cmd, sizeof cmd, "build/bin/ap --root %s --seeds 2 --boot-seeds 3 2>/dev/null; test $? -eq 2", tmp);
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "build/bin/ap --seeds 2 2>/dev/null; test $? -eq 2");
    cr_assert_eq(sh(cmd), 0, "no --root");
}
