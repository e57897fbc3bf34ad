/* Floods, freezes, false timeouts, the prediction and the odds
 * (pipeline/RESULTS.md: missed_seconds ... false_timeouts, predicted,
 * per_second standin_share, odds, results/prediction.json and its
 * registration in provenance/prereg.json).
 *
 * Units: fl_seconds on hand-made seconds, the false-timeout join on
 * hand-made rows, the Wilson and Clopper-Pearson intervals against
 * numbers computed independently, the UTC reader.
 *
 * The study (syn_kind_run: 20 requests a second, 50 ms apart; a K or E
 * request's lookup timed out after 25 ms).  Every planned wait is the
 * dice's (RAWFORMAT.md, wait H, freeze_share 0.01; the values below
 * worked out with python3 from the page).  Per second, the requests that
 * are not L (the rest are L):
 *   H4-r2-r1 (6 s): s1 11 K, s2 10 K (exactly half: not missed), s3 15 K,
 *     s4 10 K + 10 E, s5 20 K: missed s1 s3 s4 s5 = 4; flooded from 3,
 *     to the end (drained false).  Store rows: no freeze in round 1 among
 *     req 0..119 (the first is req 140); every K and E request's planned
 *     wait is under the 25 ms it waited: 76 false timeouts; line 4 at req
 *     5 and 9 at req 30: longest_line 9.  Per second standin_share 0,
 *     11/20, 10/20, 15/20, 10/20, 1.
 *   H4-r2-r2 (6 s): s1 s2 s3 12 K each: missed 3, flooded from 1, drained
 *     (s5 is calm).  req 67 (K) freezes (1,970,347,780 ns: 1 of 120 rows)
 *     and req 30 (K) plans 26,782,872 ns: neither under the 25 ms waited,
 *     so 34 of the 36 K are false timeouts.
 *   H4-r2-r3: req 81 and 83 (K) freeze: 2 freezes, 20 of 22 false timeouts.
 *   H4-r2-r3 (6 s): s2 and s4 11 K: missed 2, apart: not flooded.
 *   H3-none-r1 (2 s, N = min(3, 2) = 2): s0 11 K: missed 1, not flooded.
 *   H3-none-r2 (2 s): s0 and s1 11 K: flooded from 0, drained false.
 * H3-none's p99 is about 25 ms: p99_over_1s in 0 of 2 rounds.
 * start_utc: H4-r2-r2 2026-12-01T10:00:03.5Z is the earliest; the
 * prediction is registered at 10:00:00Z.
 *
 * The twin (RESULTS.md, "`twin`"): the same study with a format 2
 * prediction with noise (each run's and claim's seconds the schedule's
 * 2) and a flood claim for H3-none (500 of 1000).
 * Scored: H4-r2-r3 p 0.1 y 0, H4-r2-r1 p 0.4 y 1, H4-r2-r2 p 0.8 y 1,
 * H3-none-r2 p 1.0 y 1 (H3-none-r1's twin is null):
 *   brier (0.01 + 0.36 + 0.04 + 0) / 4 = 0.1025;
 *   brier_yes_no, predicted flooded true, false, true, false:
 *     (0 + 1 + 1 + 1) / 4 = 0.75 (r1 1-1, r2 0-1, r3 1-0, H3-none-r2 0-1);
 *   brier_odds, p 0.29 for H4-r2 and 0.5 for H3-none:
 *     (0.5041 + 0.5041 + 0.0841 + 0.25) / 4 = 0.335575;
 *   calibration: 0.1 in [0.05, 0.25) (0 of 1, cp95 [0, 0.975]), 0.4 in
 *     [0.25, 0.5), 0.8 in [0.75, 0.95), 1.0 in [0.95, 1] (1 of 1 each,
 *     cp95 [0.025, 1]), the other two bins empty.
 *   outside (measured stand-in share against predicted, tolerance 0.01):
 *     H3-none-r1 11/40 = 0.275 vs 0.25, no twin: "stand-ins beyond the
 *     tolerance"; H4-r2-r1 66/120 = 0.55 vs 0.4, q [0.3, 0.6]: "stand-ins
 *     beyond the tolerance; inside ..."; H4-r2-r2 36/120 = 0.3 vs 0.1,
 *     q [0, 0.2]: "flooded, predicted calm; outside ..."; H4-r2-r3
 *     22/120 vs 0.1, q [0.05, 0.15]: "calm, predicted to flood; outside
 *     ..."; H3-none-r2 22/40 = 0.55 vs 0.55: not outside.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flood.h"
#include "odds.h"
#include "rawcols.h"
#include "tstudy.h"
#include "vtime.h"

/* ---- units: the seconds ---- */

/* bad[s] of 20 arrivals are stand-ins (errors when err is set) */
static void seconds_case(const int *bad, const int *err, int nsec, fl_flood *f)
{
    long long a[16], st[16], e[16];
    for (int s = 0; s < nsec; s++) {
        a[s] = bad[s] < 0 ? 0 : 20;
        st[s] = bad[s] < 0 ? 0 : bad[s] - (err ? err[s] : 0);
        e[s] = err ? err[s] : 0;
    }
    fl_seconds(a, st, e, nsec, f);
}

Test(flood_units, a_flood_that_drains)
{
    /* s1 alone, s2 exactly half, s3 s4 s5 (s4: 10 stand-ins + 10 errors), s6 s7 calm */
    int bad[8] = {0, 11, 10, 11, 20, 15, 0, 3}, err[8] = {0, 0, 0, 0, 10, 0, 0, 0};
    fl_flood f;
    seconds_case(bad, err, 8, &f);
    cr_expect_eq(f.missed, 4);
    cr_expect_eq(f.flooded, 1);
    cr_expect_eq(f.from_s, 3);
    cr_expect_eq(f.drained, 1);
}

Test(flood_units, a_flood_to_the_end)
{
    /* two missed in a row (not enough), then the last three */
    int bad[6] = {11, 11, 0, 20, 20, 20};
    fl_flood f;
    seconds_case(bad, NULL, 6, &f);
    cr_expect_eq(f.missed, 5);
    cr_expect_eq(f.flooded, 1);
    cr_expect_eq(f.from_s, 3);
    cr_expect_eq(f.drained, 0);
}

Test(flood_units, short_runs_need_all_their_seconds)
{
    fl_flood f;
    int both[2] = {11, 20}, one[2] = {11, 0}, single[1] = {11};
    seconds_case(both, NULL, 2, &f); /* N = min(3, 2) = 2 */
    cr_expect(f.flooded && f.from_s == 0 && !f.drained && f.missed == 2);
    seconds_case(one, NULL, 2, &f);
    cr_expect(!f.flooded && f.missed == 1);
    seconds_case(single, NULL, 1, &f); /* N = 1 */
    cr_expect(f.flooded && f.from_s == 0 && !f.drained);
}

Test(flood_units, an_empty_second_breaks_a_flood_and_the_first_counts)
{
    fl_flood f;
    int gap[4] = {11, 11, -1, 11}; /* -1: no arrivals (not missed) */
    seconds_case(gap, NULL, 4, &f);
    cr_expect(!f.flooded && f.missed == 3);
    int two[8] = {12, 12, 12, 0, 12, 12, 12, 0};
    seconds_case(two, NULL, 8, &f);
    cr_expect(f.flooded && f.from_s == 0 && f.drained && f.missed == 6);
}

/* ---- units: freezes and false timeouts ---- */

static rr_row vrow(long long req, int store, const char *outs, const long long *waited)
{
    rr_row r;
    memset(&r, 0, sizeof r);
    r.v[V_REQ] = req;
    r.v[V_STORE] = store;
    for (int k = 0; outs[k]; k++) {
        int cs = V_A0S + 3 * k;
        r.has[cs] = r.has[cs + 1] = r.has[cs + 2] = 1;
        r.v[cs] = 1000000000LL * k;
        r.v[cs + 1] = r.v[cs] + waited[k];
        r.c[cs + 2] = outs[k];
    }
    return r;
}

static rr_row srow(long long req, long long attempt, long long planned, long long line)
{
    rr_row r;
    memset(&r, 0, sizeof r);
    r.v[S_REQ] = req;
    r.v[S_ATTEMPT] = attempt;
    r.v[S_PLANNED] = planned;
    r.v[S_LINE] = line;
    return r;
}

Test(flood_units, false_timeouts_join_on_store_req_and_attempt)
{
    fl_acc a;
    fl_acc_init(&a);
    const long long w[3] = {25000000, 25000000, 5000000};
    rr_row v[4] = {vrow(1, 1, "TTA", w), vrow(2, 2, "T", w), vrow(3, 1, "T", w), vrow(4, 1, "C", w)};
    for (int i = 0; i < 4; i++)
        fl_service_row(&a, &v[i]);
    /* store 1: req 1 lookup 0 planned 10 ms < 25 ms waited (false); lookup 1
     * planned exactly the 25 ms waited (not: strictly shorter), then a second
     * row for it (only the first counts); req 2's row in the wrong store's
     * file; req 4 was not a T; freezes at exactly 1e9 and just under */
    rr_row s1[] = {srow(1, 0, 10000000, 2), srow(1, 1, 25000000, 0), srow(1, 1, 1000, 7), srow(2, 0, 1000, 1),
                   srow(4, 0, 1000, 0),     srow(5, 0, 1000000000LL, 3), srow(6, 0, 999999999LL, 0)};
    for (size_t i = 0; i < sizeof s1 / sizeof *s1; i++)
        fl_store_row(&a, &s1[i], 1);
    rr_row s2 = srow(2, 0, 2000000000LL, 5); /* req 2's own store: a freeze, waited less than planned */
    fl_store_row(&a, &s2, 2);
    cr_expect_eq(a.false_timeouts, 1);
    cr_expect_eq(a.freezes, 2);
    cr_expect_eq(a.rows, 8);
    cr_expect_eq(a.longest_line, 7);
    fl_acc_free(&a);
}

/* healthy timeouts (RESULTS.md): the same join as the false timeouts, but
 * counted when the first row of S plans W < 1e9 (not a freeze), whatever
 * the time waited; the share is over the rows of S with W < 1e9, both
 * stores.  By hand: req 1 lookup 0 (10 ms) and lookup 1 (999,999,999 ns,
 * its first row; the second row is not looked at) count; req 2's row in
 * store 1's file is not its store's, its own row is a freeze; req 3 has no
 * row; req 4 is not a T; req 7 freezes at exactly 1e9.  Healthy rows: the
 * five of store 1 under 1e9 (req 1 x3, req 2, req 4), none of store 2:
 * healthy_timeouts 2, share 2/5.  False timeouts (25 ms waited): only req 1
 * lookup 0, so the two figures differ. */
Test(flood_units, healthy_timeouts_join_like_false_timeouts_and_count_waits_under_1s)
{
    fl_acc a;
    fl_acc_init(&a);
    const long long w[2] = {25000000, 25000000};
    rr_row v[5] = {vrow(1, 1, "TT", w), vrow(2, 2, "T", w), vrow(3, 1, "T", w), vrow(4, 1, "A", w),
                   vrow(7, 1, "T", w)};
    for (int i = 0; i < 5; i++)
        fl_service_row(&a, &v[i]);
    rr_row s1[] = {srow(1, 0, 10000000, 0), srow(1, 1, 999999999LL, 0), srow(1, 1, 5000000, 0),
                   srow(2, 0, 1000, 0),     srow(4, 0, 1000, 0),        srow(7, 0, 1000000000LL, 0),
                   srow(8, 0, 2000000000LL, 0)};
    for (size_t i = 0; i < sizeof s1 / sizeof *s1; i++)
        fl_store_row(&a, &s1[i], 1);
    rr_row s2 = srow(2, 0, 1500000000LL, 0);
    fl_store_row(&a, &s2, 2);
    cr_expect_eq(a.healthy_timeouts, 2);
    cr_expect_eq(a.healthy_rows, 5);
    cr_expect_eq(a.false_timeouts, 1);
    cr_expect_eq(a.freezes, 3);
    cr_expect_eq(a.rows, 8);
    fl_acc_free(&a);
}

/* no row of S under 1e9 (or none at all): no healthy timeouts over nothing */
Test(flood_units, healthy_timeouts_without_healthy_rows)
{
    fl_acc a;
    fl_acc_init(&a);
    const long long w[1] = {25000000};
    rr_row v = vrow(1, 1, "T", w);
    fl_service_row(&a, &v);
    cr_expect(a.healthy_rows == 0 && a.healthy_timeouts == 0);
    rr_row s = srow(1, 0, 1200000000LL, 0);
    fl_store_row(&a, &s, 1);
    cr_expect(a.healthy_rows == 0 && a.healthy_timeouts == 0 && a.freezes == 1);
    fl_acc_free(&a);
}

/* ---- units: the intervals ----
 * Reference numbers: python3 with math only (math.comb, math.fsum; bisection
 * 200 halvings; the Wilson formula of RESULTS.md):
 *   z = 1.959963984540054
 *   wilson(k, n): p = k/n; ((p + z*z/(2n)) -+ z*sqrt(p(1-p)/n + z*z/(4n*n))) / (1 + z*z/n)
 *   ge(k, n, p) = fsum(comb(n, i) p**i (1-p)**(n-i) for i in k..n), le likewise 0..k
 * and the closed forms cp(0, n) upper = 1 - 0.025**(1/n), cp(n, n) lower =
 * 0.025**(1/n), cp(1, 2) = (1 - sqrt(0.975), sqrt(0.975)). */
#define W290_LO 0.26272203499392915
#define W290_HI 0.31888520357000394
#define W990_LO 0.98169053112968518
#define W990_HI 0.99455924555447084
#define CP15_LO 0.0050507633794680575
#define CP15_HI 0.71641793611808957
#define CP35_LO 0.14663279963467313
#define CP35_HI 0.94725504947368311
#define CP23_LO 0.094299324050246075
#define CP23_HI 0.99159624134038737
#define CP02_HI 0.841886116991581

Test(odds_units, wilson_and_clopper_pearson)
{
    double lo, hi;
    cr_assert_eq(od_wilson(290, 1000, &lo, &hi), 0);
    cr_expect(fabs(lo - W290_LO) < 1e-15 && fabs(hi - W290_HI) < 1e-15, "wilson %.17g %.17g", lo, hi);
    cr_assert_eq(od_clopper_pearson(1, 5, &lo, &hi), 0);
    cr_expect(fabs(lo - CP15_LO) < 2e-12 && fabs(hi - CP15_HI) < 2e-12, "cp(1,5) %.17g %.17g", lo, hi);
    cr_expect(fabs(lo - 0.00505) < 1e-5 && fabs(hi - 0.7164) < 1e-4); /* DESIGN.md 5.8: 0.5% to 72% */
    cr_assert_eq(od_clopper_pearson(0, 5, &lo, &hi), 0);
    cr_expect(lo == 0 && fabs(hi - (1 - pow(0.025, 0.2))) < 2e-12, "cp(0,5) %.17g %.17g", lo, hi);
    cr_assert_eq(od_clopper_pearson(5, 5, &lo, &hi), 0);
    cr_expect(hi == 1 && fabs(lo - pow(0.025, 0.2)) < 2e-12, "cp(5,5) %.17g %.17g", lo, hi);
    cr_assert_eq(od_clopper_pearson(1, 2, &lo, &hi), 0);
    cr_expect(fabs(lo - (1 - sqrt(0.975))) < 2e-12 && fabs(hi - sqrt(0.975)) < 2e-12);
    cr_assert_eq(od_clopper_pearson(3, 5, &lo, &hi), 0);
    cr_expect(fabs(lo - CP35_LO) < 2e-12 && fabs(hi - CP35_HI) < 2e-12);
    /* the k successes are exactly at the 2.5% tail at the ends found */
    cr_expect(fabs(od_binom_ge(3, 5, lo) - 0.025) < 1e-11 && fabs(od_binom_le(3, 5, hi) - 0.025) < 1e-11);
    cr_expect_eq(od_clopper_pearson(0, 0, &lo, &hi), -1);
    cr_expect_eq(od_wilson(0, 0, &lo, &hi), -1);
    cr_expect_eq(od_wilson(3, 2, &lo, &hi), -1);
    cr_expect(od_overlap(0.1, 0.2, 0.2, 0.3) && !od_overlap(0.1, 0.2, 0.2000001, 0.3));
}

Test(odds_units, utc_times)
{
    long long s;
    long ns;
    cr_assert_eq(vt_parse_utc("1970-01-02T00:00:01Z", &s, &ns), 0);
    cr_expect(s == 86401 && ns == 0);
    cr_assert_eq(vt_parse_utc("2026-12-01T10:00:03.5Z", &s, &ns), 0);
    cr_expect(s == 1796119203LL && ns == 500000000L, "%lld %ld", s, ns);
    cr_assert_eq(vt_parse_utc("2024-02-29T23:59:59.123456789+00:00", &s, &ns), 0);
    cr_expect_eq(ns, 123456789L);
    const char *bad[] = {"2026-12-01 10:00:00Z", "2026-12-01T10:00:00", "2025-02-29T00:00:00Z",
                         "2026-13-01T00:00:00Z", "2026-12-01T10:00:00.Z", "2026-12-01T10:00:00+01:00"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect_eq(vt_parse_utc(bad[i], &s, &ns), -1, "%s", bad[i]);
}

/* ---- the study ---- */

static char *f_root;
static syn_ref f_ref;

static void f_setup(void)
{
    f_root = th_tmpdir();
    cr_assert(f_root);
    syn_make_ref(&f_ref, 40, 7);
}

static void f_teardown(void)
{
    syn_free_ref(&f_ref);
    th_rmrf(f_root);
    free(f_root);
}

static const char *COMPARISONS = "a\tb\tfigure\tnote\nH4-r2\tH3-none\tlongest_line\tthe line\n";
static const char *GUESSES = "id\tguess\tpredicate\n"
                             "G1\tA freeze is drawn at 450/s.\tany H4-r2.freezes >= 1 and every H4-r2.false_timeouts >= 20\n";

static syn_srow *store_row(syn_run *r, long long req)
{
    for (size_t i = 0; i < r->ns; i++)
        if (r->s[i].req == req)
            return &r->s[i];
    cr_assert_fail("no store row for req %lld", req);
    return NULL;
}

/* per second s: the first bad[s] of its 20 requests get kind[s], the rest L */
static void kinds_of(char *kinds, const int *bad, const char *kind, int nsec)
{
    for (int s = 0; s < nsec; s++)
        for (int i = 0; i < 20; i++)
            kinds[20 * s + i] = i < bad[s] ? kind[s] : 'L';
    kinds[20 * nsec] = 0;
}

static void make_run(syn_run *r, const char *arm, int round, const char *kinds, const char *start_utc)
{
    long long t0 = 5000000000000LL + 100000000000LL * round + (arm[1] == '4') * 10000000000000LL;
    syn_kind_run(r, arm, round, kinds, &f_ref, t0);
    r->start_utc = start_utc;
}

/* H4-r2-r1; planned0: req 0's planned_ns (-1: as the dice draw it; the tamper changes it) */
static void run_r1(syn_run *r, long long planned0)
{
    char kinds[128];
    int bad[6] = {0, 11, 10, 15, 20, 20};
    kinds_of(kinds, bad, "LKKKEK", 6);
    memset(kinds + 80, 'K', 10); /* s4: 10 K, then 10 E */
    make_run(r, "H4-r2", 1, kinds, "2026-12-01T10:00:04Z");
    store_row(r, 5)->line = 4;
    store_row(r, 30)->line = 9;
    if (planned0 >= 0)
        store_row(r, 0)->planned = planned0;
}

static const char *PREDICTION =
    "{\"format\": \"lab-prediction 1\", \"profile\": \"tiny\", \"seconds\": 6, \"rounds\": [1, 2, 3],\n"
    " \"runs\": {\"H4-r2-r1\": {\"p99_ms\": 26.5, \"standin_share\": 0.4, \"lookups_per_request\": 1.0,"
    " \"flooded\": true, \"flood_from_s\": 3},\n"
    "  \"H4-r2-r2\": {\"p99_ms\": 25.9, \"standin_share\": 0.3, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null},\n"
    "  \"H4-r2-r3\": {\"p99_ms\": 25.1, \"standin_share\": 0.1, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null},\n"
    "  \"H3-none-r1\": {\"p99_ms\": 25.0, \"standin_share\": 0.25, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null}},\n"
    " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 30,"
    " \"seeds\": \"1-1000\", \"sim_k\": 290, \"sim_n\": 1000},\n"
    "  {\"claim\": \"p99 over 1 s\", \"arm\": \"H3-none\", \"event\": \"p99_over_1s\", \"seconds\": 30,"
    " \"seeds\": \"1-1000\", \"sim_k\": 990, \"sim_n\": 1000}],\n"
    " \"sizing\": []}\n";

/* the prediction build_study writes (NULL: PREDICTION) */
static const char *f_pred;

static char *f_path(const char *rel)
{
    return vu_xasprintf("%s/%s", f_root, rel);
}

/* provenance/prereg.json: the guesses' sha256 and the prediction as it is now */
static void write_prereg(const char *registered_utc)
{
    unsigned char *b;
    size_t len;
    char err[256], gsha[65], psha[65];
    char *gp = f_path("data/guesses.tsv"), *pp = f_path("results/prediction.json"), *rp = f_path("provenance/prereg.json");
    cr_assert_eq(vu_read_file(gp, &b, &len, err, sizeof err), 0);
    vu_sha256_hex(b, len, gsha);
    size_t glen = len;
    free(b);
    cr_assert_eq(vu_read_file(pp, &b, &len, err, sizeof err), 0);
    vu_sha256_hex(b, len, psha);
    free(b);
    char *t = vu_xasprintf("{\"files\": [{\"path\": \"data/guesses.tsv\", \"sha256\": \"%s\", \"size\": %zu}],\n"
                           " \"prediction\": {\"path\": \"results/prediction.json\", \"sha256\": \"%s\", \"size\": %zu,"
                           " \"registered_utc\": \"%s\"}}\n",
                           gsha, glen, psha, len, registered_utc);
    cr_assert_eq(syn_write_text(rp, t), 0);
    free(t);
    free(gp);
    free(pp);
    free(rp);
}

static void build_study(void)
{
    syn_run r;
    run_r1(&r, -1);
    cr_assert_eq(syn_write_run(f_root, &r, 1), 0);
    syn_free_run(&r);
    int b2[6] = {0, 12, 12, 12, 0, 0}, b3[6] = {0, 0, 11, 0, 11, 0}, n1[2] = {11, 0}, n2[2] = {11, 11};
    char k[128];
    kinds_of(k, b2, "KKKKKK", 6);
    make_run(&r, "H4-r2", 2, k, "2026-12-01T10:00:03.5Z");
    cr_assert_eq(syn_write_run(f_root, &r, 1), 0);
    syn_free_run(&r);
    kinds_of(k, b3, "KKKKKK", 6);
    make_run(&r, "H4-r2", 3, k, "2026-12-01T10:09:00Z");
    cr_assert_eq(syn_write_run(f_root, &r, 1), 0);
    syn_free_run(&r);
    kinds_of(k, n1, "KK", 2);
    make_run(&r, "H3-none", 1, k, "2026-12-01T10:03:00Z");
    cr_assert_eq(syn_write_run(f_root, &r, 1), 0);
    syn_free_run(&r);
    kinds_of(k, n2, "KK", 2);
    make_run(&r, "H3-none", 2, k, "2026-12-01T10:04:00+00:00");
    cr_assert_eq(syn_write_run(f_root, &r, 1), 0);
    syn_free_run(&r);
    cr_assert_eq(syn_write_reference(f_root, &f_ref), 0);
    cr_assert_eq(syn_write_manifest(f_root), 0);
    cr_assert_eq(syn_write_quiet(f_root, NULL), 0);
    ts_write_texts(f_root, COMPARISONS, GUESSES);
    char *pp = f_path("results/prediction.json");
    cr_assert_eq(syn_write_text(pp, f_pred ? f_pred : PREDICTION), 0);
    free(pp);
    write_prereg("2026-12-01T10:00:00Z");
    ts_promote(f_root);
}

static int f_verify(char **out)
{
    const char *a[] = {"--root", f_root, "--no-scan", NULL};
    return th_run(out, a);
}

static void expect_clean(void)
{
    char *out;
    int rc = f_verify(&out);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    free(out);
}

#define EXPECT_PAIR(node, a, b, tol)                                                                       \
    do {                                                                                                   \
        const vj_node *p_ = (node);                                                                        \
        cr_assert(p_ && p_->type == VJ_ARR && p_->n == 2, "not a pair");                                   \
        cr_expect(fabs(p_->items[0]->num - (a)) <= (tol) && fabs(p_->items[1]->num - (b)) <= (tol),        \
                  "[%s, %s], expected [%.17g, %.17g]", p_->items[0]->text, p_->items[1]->text, (double)(a), \
                  (double)(b));                                                                            \
    } while (0)

static int is_bool(const vj_node *n, int b)
{
    return n && n->type == VJ_BOOL && n->b == b;
}

Test(flood_study, hand_values, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    expect_clean();
    vj_node *v = ts_verified(f_root);
    static const char *const runs[] = {"H4-r2-r1", "H4-r2-r2", "H4-r2-r3", "H3-none-r1", "H3-none-r2"};
    static const int missed[] = {4, 3, 2, 1, 2}, flooded[] = {1, 1, 0, 0, 1}, from[] = {3, 1, -1, -1, 0},
                     drained[] = {0, 1, -1, -1, 0};
    for (int i = 0; i < 5; i++) {
        TS_NUM(v, runs[i], "missed_seconds", missed[i]);
        cr_expect(is_bool(ts_field(v, runs[i], "flooded"), flooded[i]), "%s flooded", runs[i]);
        if (from[i] < 0)
            cr_expect_eq(ts_field(v, runs[i], "flood_from_s")->type, VJ_NULL, "%s", runs[i]);
        else
            TS_NUM(v, runs[i], "flood_from_s", from[i]);
        if (drained[i] < 0)
            cr_expect_eq(ts_field(v, runs[i], "drained")->type, VJ_NULL, "%s", runs[i]);
        else
            cr_expect(is_bool(ts_field(v, runs[i], "drained"), drained[i]), "%s drained", runs[i]);
    }
    TS_NUM(v, "H4-r2-r1", "freezes", 0);
    TS_NUM(v, "H4-r2-r1", "freeze_share", 0);
    TS_NUM(v, "H4-r2-r1", "false_timeouts", 76);
    TS_NUM(v, "H4-r2-r1", "longest_line", 9);
    TS_NUM(v, "H4-r2-r2", "freezes", 1);
    TS_NUM(v, "H4-r2-r2", "freeze_share", 1.0 / 120);
    TS_NUM(v, "H4-r2-r2", "false_timeouts", 34);
    TS_NUM(v, "H4-r2-r2", "longest_line", 0);
    TS_NUM(v, "H4-r2-r3", "freezes", 2);
    TS_NUM(v, "H4-r2-r3", "false_timeouts", 20);
    const vj_node *ps = ts_field(v, "H4-r2-r1", "per_second");
    static const double share[6] = {0, 0.55, 0.5, 0.75, 0.5, 1};
    cr_assert_eq(ps->n, 6);
    for (int s = 0; s < 6; s++) {
        const vj_node *x = vj_get(ps->items[s], "standin_share");
        cr_expect(x && x->type == VJ_NUM && fabs(x->num - share[s]) < 1e-15, "s %d: %s", s, x ? x->text : "-");
    }
    /* predicted: the file's entry as written; none for H3-none-r2 */
    const vj_node *p = ts_field(v, "H4-r2-r1", "predicted");
    cr_assert_eq(p->type, VJ_OBJ);
    cr_expect_eq(p->n, 6);
    cr_expect_eq(vj_get(p, "twin")->type, VJ_NULL); /* format 1: no twin */
    cr_expect_eq(vj_get(v, "twin")->type, VJ_NULL);
    cr_expect(fabs(vj_get(p, "p99_ms")->num - 26.5) < 1e-12 && is_bool(vj_get(p, "flooded"), 1));
    cr_expect_eq(vj_get(p, "flood_from_s")->i, 3);
    cr_expect_eq(ts_field(v, "H3-none-r2", "predicted")->type, VJ_NULL);
    /* the odds: two claims, then the lesson's 3 of 5 */
    const vj_node *o = vj_get(v, "odds");
    cr_assert(o && o->type == VJ_ARR && o->n == 3);
    const vj_node *f = o->items[0], *q = o->items[1], *out = o->items[2];
    cr_expect(fabs(vj_get(f, "sim_share")->num - 0.29) < 1e-15);
    EXPECT_PAIR(vj_get(f, "sim_wilson95"), W290_LO, W290_HI, 1e-15);
    cr_expect(vj_get(f, "k")->i == 2 && vj_get(f, "n")->i == 3);
    const vj_node *rr = vj_get(f, "rounds");
    cr_expect(rr->n == 2 && rr->items[0]->i == 1 && rr->items[1]->i == 2);
    EXPECT_PAIR(vj_get(f, "cp95"), CP23_LO, CP23_HI, 2e-12);
    cr_expect(is_bool(vj_get(f, "agree"), 1));
    cr_expect(!vj_get(f, "source"));
    EXPECT_PAIR(vj_get(q, "sim_wilson95"), W990_LO, W990_HI, 1e-15);
    cr_expect(vj_get(q, "k")->i == 0 && vj_get(q, "n")->i == 2 && vj_get(q, "rounds")->n == 0);
    EXPECT_PAIR(vj_get(q, "cp95"), 0, CP02_HI, 2e-12);
    cr_expect(is_bool(vj_get(q, "agree"), 0)); /* [0, 0.842] against [0.982, 0.995] */
    cr_expect_str_eq(vj_get_str(out, "source"), "the timeouts lesson");
    cr_expect(vj_get(out, "k")->i == 3 && vj_get(out, "n")->i == 5 && vj_get(out, "rounds")->type == VJ_NULL);
    cr_expect(vj_get(out, "sim_k")->i == 290 && vj_get(out, "sim_n")->i == 1000);
    EXPECT_PAIR(vj_get(out, "cp95"), CP35_LO, CP35_HI, 2e-12);
    cr_expect(is_bool(vj_get(out, "agree"), 1));
    /* each claim's seconds copied from prediction.json; the lesson's rounds were 30 s */
    for (int i = 0; i < 3; i++)
        cr_expect_eq(vj_get(o->items[i], "seconds")->num, 30, "odds[%d].seconds", i);
    const vj_node *c = vj_get(vj_get(v, "checks"), "prediction");
    cr_expect_str_eq(vj_get_str(c, "first_run"), "H4-r2-r2");
    cr_expect(is_bool(vj_get(c, "registered_before_first_run"), 1));
    cr_expect_eq(vj_get(c, "runs_with_entry")->i, 4);
    vj_free(v);
}

/* the must-show of a planned wait changed in a raw store file, in format
 * 4: the file no longer holds the planned waits (the verifier draws them
 * from the dice), so what a tamper can change is the store's own times.
 * Request 0's lookup held its slot 1.5 s longer after results.json was
 * written (run.json and the manifest made to match): slot time, not a
 * freeze (a freeze is the dice's W >= 1 s, 3,647,492 ns here) */
Test(flood_study, a_slot_held_longer_is_slot_time_not_a_freeze, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    syn_run r;
    run_r1(&r, 1500000000LL); /* the lab's own log's planned_ns: not written in format 4 */
    store_row(&r, 0)->end += 1500000000LL;
    cr_assert_eq(syn_write_run(f_root, &r, 1), 0);
    syn_free_run(&r);
    cr_assert_eq(syn_write_manifest(f_root), 0);
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r1 slot_ms_total: lab "), "%s", out);
    cr_expect(!strstr(out, "freeze"), "the dice's waits are unchanged:\n%s", out);
    free(out);
}

/* a false timeout is a T lookup whose drawn wait W is shorter than the
 * time the service waited: request 20's lookup (W = 829,002 ns by the
 * dice) given up after 0.8 ms instead of 25 ms is no longer one */
Test(flood_study, a_timeout_shorter_than_its_wait_is_not_a_false_timeout, .init = f_setup, .fini = f_teardown,
     .timeout = 60)
{
    build_study();
    syn_run r;
    run_r1(&r, -1);
    for (size_t i = 0; i < r.nv; i++)
        if (r.v[i].req == 20)
            r.v[i].a_end[0] = r.v[i].a_start[0] + 800000;
    cr_assert_eq(syn_write_run(f_root, &r, 1), 0);
    syn_free_run(&r);
    cr_assert_eq(syn_write_manifest(f_root), 0);
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r1 false_timeouts: lab 76, verify 75\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH arms.H4-r2 false_timeouts.max: lab 76, verify 75\n"), "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES"), "%s", out);
    free(out);
}

/* edit results.json: path of members, a new JSON value text */
static void edit_results(const char *run, const char *member, const char *json)
{
    char *rp = f_path("results/results.json");
    vj_node *lab, *val;
    char err[512];
    cr_assert_eq(vj_parse_file(rp, &lab, err, sizeof err), 0, "%s", err);
    cr_assert_eq(vj_parse(json, strlen(json), "edit", &val, err, sizeof err), 0, "%s", err);
    vj_node *at = run ? vj_get(vj_get(lab, "runs"), run) : lab;
    cr_assert(at);
    vj_obj_set(at, member, val);
    vu_buf b = {0};
    vj_write(lab, &b);
    cr_assert_eq(syn_write_text(rp, b.p), 0);
    vu_buf_free(&b);
    vj_free(lab);
    free(rp);
}

Test(flood_study, results_json_wrong_on_a_flood, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    edit_results("H4-r2-r2", "drained", "false");
    edit_results("H4-r2-r3", "flood_from_s", "2");
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r2 drained: lab false, verify true\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r3 flood_from_s: lab 2, verify null\n"), "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES"), "%s", out);
    free(out);
}

Test(prediction, registered_late_or_at_the_first_start, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    /* after H4-r2-r2's start (10:00:03.5), before every other run's */
    write_prereg("2026-12-01T10:00:03.6Z");
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH provenance/prereg.json prediction.registered_utc: lab 2026-12-01T10:00:03.6Z, "
                          "verify before 2026-12-01T10:00:03.5Z (start_utc of H4-r2-r2"),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
    write_prereg("2026-12-01T10:00:03.500Z"); /* the same instant is not before */
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
    write_prereg("2026-12-01T10:00:03.499999999Z");
    expect_clean();
}

Test(prediction, a_changed_file_is_a_mismatch, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    char *pp = f_path("results/prediction.json");
    char *t = vu_xasprintf("%s\n", PREDICTION); /* one byte more, after the registration */
    cr_assert_eq(syn_write_text(pp, t), 0);
    free(t);
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH provenance/prereg.json prediction.sha256: lab "), "%s", out);
    char *size = vu_xasprintf("MISMATCH provenance/prereg.json prediction.size: lab %zu, verify %zu (bytes of ",
                              strlen(PREDICTION), strlen(PREDICTION) + 1);
    cr_expect(strstr(out, size), "%s", out);
    free(size);
    cr_expect(strstr(out, "\n2 MISMATCHES"), "%s", out);
    free(out);
    /* a figure changed and registered again: results.json's predicted no longer agrees */
    char *t2 = vu_xstrdup(PREDICTION);
    memcpy(strstr(t2, "26.5"), "27.5", 4);
    cr_assert_eq(syn_write_text(pp, t2), 0);
    free(t2);
    write_prereg("2026-12-01T10:00:00Z");
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r1 predicted.p99_ms: lab 26.5, verify 27.5\n"), "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
    free(pp);
}

Test(prediction, unregistered_missing_or_without_start_times, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    char *rp = f_path("provenance/prereg.json"), *pp = f_path("results/prediction.json");
    cr_assert_eq(syn_write_text(rp, "{\"files\": []}\n"), 0);
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH provenance/prereg.json prediction: lab (absent)"), "%s", out);
    free(out);
    write_prereg("2026-12-01T10:00:00Z");
    syn_run r;
    run_r1(&r, -1);
    r.start_utc = NULL;
    cr_assert_eq(syn_write_run(f_root, &r, 1), 0);
    syn_free_run(&r);
    cr_assert_eq(syn_write_manifest(f_root), 0);
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r1 run.json start_utc: lab (absent)"), "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
    cr_assert_eq(unlink(pp), 0);
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH results/prediction.json file: lab registered in provenance/prereg.json, verify "
                          "missing\n"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r1 predicted: lab "), "%s", out);
    free(out);
    free(rp);
    free(pp);
}

Test(prediction, odds_compared_within_their_tolerance, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    char t[256];
    snprintf(t, sizeof t, "[{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 30, \"sim_k\": 290, "
                          "\"sim_n\": 1000, \"sim_share\": 0.29, \"sim_wilson95\": [%.17g, %.17g], \"k\": 2, \"n\": 3",
             W290_LO, W290_HI);
    /* the first entry rewritten by hand: cp95 5e-12 off passes, 1e-9 off does not */
    char *ok = vu_xasprintf("%s, \"rounds\": [1, 2], \"cp95\": [%.17g, %.17g], \"agree\": true}]", t,
                            CP23_LO + 5e-12, CP23_HI);
    char *res = f_path("results/results.json");
    vj_node *lab, *mine;
    char err[512];
    cr_assert_eq(vj_parse_file(res, &lab, err, sizeof err), 0);
    cr_assert_eq(vj_parse(ok, strlen(ok), "odds", &mine, err, sizeof err), 0, "%s", err);
    vj_node *odds = vj_get(lab, "odds");
    cr_assert(odds && odds->n == 3);
    vj_free(odds->items[0]);
    odds->items[0] = mine->items[0];
    mine->n = 0;
    vj_free(mine);
    vu_buf b = {0};
    vj_write(lab, &b);
    cr_assert_eq(syn_write_text(res, b.p), 0);
    vu_buf_free(&b);
    expect_clean();
    /* 1e-9 off, and the lesson's count claimed as 3 of 4 */
    vj_get(odds->items[0], "cp95")->items[0]->num = CP23_LO + 1e-9;
    vj_get(odds->items[2], "n")->num = 4;
    vj_get(odds->items[2], "n")->i = 4;
    vj_write(lab, &b);
    cr_assert_eq(syn_write_text(res, b.p), 0);
    vu_buf_free(&b);
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH odds[0] (flood H4-r2 flooded) cp95[0]: lab "), "%s", out);
    cr_expect(strstr(out, "MISMATCH odds[2] (flood H4-r2 flooded, outside) n: lab 4, verify 5\n"), "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES"), "%s", out);
    free(out);
    vj_free(lab);
    free(ok);
    free(res);
}

/* RESULTS.md, odds: an outside observation carries the lessons' 30 s and
 * its agree is null when the claim it borrows sim_* from simulated rounds
 * of another length (the same chance per round cannot be assumed) */
Test(prediction, odds_carry_seconds_and_the_outside_agree_needs_the_same, .init = f_setup, .fini = f_teardown,
     .timeout = 60)
{
    build_study();
    char *pp = f_path("results/prediction.json");
    char *t = vu_xstrdup(PREDICTION);
    char *at = strstr(t, "\"seconds\": 30");
    cr_assert(at);
    memcpy(at, "\"seconds\":  6", 13); /* the flood claim over rounds of 6 s */
    cr_assert_eq(syn_write_text(pp, t), 0);
    free(t);
    write_prereg("2026-12-01T10:00:00Z");
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    /* results.json (made with 30 s) now differs in exactly these two members */
    cr_expect(strstr(out, "MISMATCH odds[0] (flood H4-r2 flooded) seconds: lab 30, verify 6\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH odds[2] (flood H4-r2 flooded, outside) agree: lab true, verify null\n"), "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES"), "%s", out);
    free(out);
    vj_node *v = ts_verified(f_root);
    const vj_node *o = vj_get(v, "odds");
    cr_assert(o && o->n == 3);
    cr_expect_eq(vj_get(o->items[0], "seconds")->num, 6);
    cr_expect(is_bool(vj_get(o->items[0], "agree"), 1)); /* the claim's own agree is unchanged */
    cr_expect_eq(vj_get(o->items[2], "seconds")->num, 30);
    cr_expect_eq(vj_get(o->items[2], "agree")->type, VJ_NULL);
    cr_expect_eq(vj_get(o->items[2], "sim_k")->i, 290); /* sim_* still borrowed */
    vj_free(v);
    /* a claim without seconds is a fault of prediction.json */
    t = vu_xstrdup(PREDICTION);
    at = strstr(t, "\"seconds\": 30,");
    memcpy(at, "\"second\":  30,", 14);
    cr_assert_eq(syn_write_text(pp, t), 0);
    free(t);
    write_prereg("2026-12-01T10:00:00Z");
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH results/prediction.json odds[0].seconds: lab (absent), verify the seconds of the "
                          "simulated rounds"),
              "%s", out);
    free(out);
    free(pp);
}

/* ---- the twin ---- */

static const char *TWIN_PREDICTION =
    "{\"format\": \"lab-prediction 2\", \"profile\": \"tiny\", \"rounds\": [1, 2, 3],\n"
    " \"noise\": {\"path\": \"data/noise.tsv\", \"sha256\": \"00\", \"replicas\": 10},\n"
    " \"runs\": {\"H4-r2-r1\": {\"seconds\": 2, \"p99_ms\": 26.5, \"standin_share\": 0.4, \"lookups_per_request\": 1.0,"
    " \"flooded\": true, \"flood_from_s\": 3,"
    " \"twin\": {\"replicas\": 10, \"flooded\": 4, \"p_flood\": 0.4, \"standin_share_q\": [0.3, 0.45, 0.6]}},\n"
    "  \"H4-r2-r2\": {\"seconds\": 2, \"p99_ms\": 25.9, \"standin_share\": 0.1, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null,"
    " \"twin\": {\"replicas\": 10, \"flooded\": 8, \"p_flood\": 0.8, \"standin_share_q\": [0, 0.1, 0.2]}},\n"
    "  \"H4-r2-r3\": {\"seconds\": 2, \"p99_ms\": 25.1, \"standin_share\": 0.1, \"lookups_per_request\": 1,"
    " \"flooded\": true, \"flood_from_s\": 2,"
    " \"twin\": {\"replicas\": 10, \"flooded\": 1, \"p_flood\": 0.1, \"standin_share_q\": [0.05, 0.1, 0.15]}},\n"
    "  \"H3-none-r1\": {\"seconds\": 2, \"p99_ms\": 25.0, \"standin_share\": 0.25, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null, \"twin\": null},\n"
    "  \"H3-none-r2\": {\"seconds\": 2, \"p99_ms\": 25.0, \"standin_share\": 0.55, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null,"
    " \"twin\": {\"replicas\": 10, \"flooded\": 10, \"p_flood\": 1, \"standin_share_q\": [0.4, 0.5, 0.6]}}},\n"
    " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 2, \"planned_rounds\": 3,"
    " \"seeds\": \"1-1000\", \"sim_k\": 290, \"sim_n\": 1000, \"p_seen\": 0.642089},\n"
    "  {\"claim\": \"flood\", \"arm\": \"H3-none\", \"event\": \"flooded\", \"seconds\": 2, \"planned_rounds\": 3,"
    " \"seeds\": \"1-1000\", \"sim_k\": 500, \"sim_n\": 1000, \"p_seen\": 0.875}],\n"
    " \"sizing\": []}\n";

static void build_twin_study(void)
{
    f_pred = TWIN_PREDICTION;
    build_study();
    f_pred = NULL;
}

static double num_at(const vj_node *n)
{
    cr_assert(n && n->type == VJ_NUM, "not a number: %s", n ? n->text : "(absent)");
    return n->num;
}

Test(twin, scored_by_hand, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_twin_study();
    expect_clean();
    vj_node *v = ts_verified(f_root);
    static const char *const runs[] = {"H4-r2-r1", "H4-r2-r2", "H4-r2-r3", "H3-none-r1", "H3-none-r2"};
    static const double share[] = {0.55, 0.3, 22.0 / 120, 0.275, 0.55};
    for (int i = 0; i < 5; i++) {
        cr_expect(is_bool(ts_field(v, runs[i], "quiet"), 1), "%s quiet", runs[i]);
        TS_NUM(v, runs[i], "standin_share", share[i]);
    }
    /* predicted.twin copied as written; null where the entry's is */
    const vj_node *pt = vj_get(ts_field(v, "H4-r2-r2", "predicted"), "twin");
    cr_assert(pt && pt->type == VJ_OBJ);
    cr_expect_eq(vj_get(pt, "flooded")->i, 8);
    cr_expect_eq(vj_get(pt, "replicas")->i, 10);
    cr_expect(fabs(num_at(vj_get(pt, "p_flood")) - 0.8) < 1e-15);
    cr_expect_eq(vj_get(pt, "standin_share_q")->n, 3);
    cr_expect_eq(vj_get(ts_field(v, "H3-none-r1", "predicted"), "twin")->type, VJ_NULL);
    const vj_node *cp = vj_get(vj_get(v, "checks"), "prediction");
    cr_expect(is_bool(vj_get(cp, "noise"), 1));
    cr_expect_eq(vj_get(cp, "twins")->i, 4);
    /* results.json's twin */
    const vj_node *t = vj_get(v, "twin");
    cr_assert(t && t->type == VJ_OBJ);
    cr_expect_eq(vj_get(t, "runs")->i, 4);
    cr_expect_eq(vj_get(t, "flooded")->i, 3);
    cr_expect(fabs(num_at(vj_get(t, "brier")) - 0.1025) < 1e-15);
    cr_expect(fabs(num_at(vj_get(t, "brier_yes_no")) - 0.75) < 1e-15);
    cr_expect(fabs(num_at(vj_get(t, "brier_odds")) - 0.335575) < 1e-15);
    const vj_node *cal = vj_get(t, "calibration");
    cr_assert(cal && cal->type == VJ_ARR && cal->n == 6);
    static const double from[] = {0, 0.05, 0.25, 0.5, 0.75, 0.95}, to[] = {0.05, 0.25, 0.5, 0.75, 0.95, 1};
    static const int nb[] = {0, 1, 1, 0, 1, 1}, kb[] = {0, 0, 1, 0, 1, 1};
    static const double mp[] = {0, 0.1, 0.4, 0, 0.8, 1.0};
    for (int b = 0; b < 6; b++) {
        const vj_node *c = cal->items[b];
        cr_expect_eq(num_at(vj_get(c, "from")), from[b], "bin %d", b);
        cr_expect_eq(num_at(vj_get(c, "to")), to[b], "bin %d", b);
        cr_expect_eq(vj_get(c, "runs")->i, nb[b], "bin %d", b);
        cr_expect_eq(vj_get(c, "flooded")->i, kb[b], "bin %d", b);
        if (!nb[b]) {
            cr_expect(vj_get(c, "mean_p")->type == VJ_NULL && vj_get(c, "share")->type == VJ_NULL &&
                          vj_get(c, "cp95")->type == VJ_NULL,
                      "bin %d", b);
            continue;
        }
        cr_expect(fabs(num_at(vj_get(c, "mean_p")) - mp[b]) < 1e-15, "bin %d", b);
        cr_expect_eq(num_at(vj_get(c, "share")), kb[b], "bin %d", b);
        /* 0 of 1: [0, 0.975]; 1 of 1: [0.025, 1] */
        if (kb[b])
            EXPECT_PAIR(vj_get(c, "cp95"), 0.025, 1, 2e-12);
        else
            EXPECT_PAIR(vj_get(c, "cp95"), 0, 0.975, 2e-12);
    }
    const vj_node *o = vj_get(t, "outside");
    cr_assert(o && o->type == VJ_ARR && o->n == 4, "outside: %zu", o ? o->n : 0);
    static const char *const orun[] = {"H3-none-r1", "H4-r2-r1", "H4-r2-r2", "H4-r2-r3"};
    static const char *const why[] = {"stand-ins beyond the tolerance",
                                      "stand-ins beyond the tolerance; inside the twin's 5-95% spread",
                                      "flooded, predicted calm; outside the twin's 5-95% spread",
                                      "calm, predicted to flood; outside the twin's 5-95% spread"};
    static const double meas[] = {0.275, 0.55, 0.3, 22.0 / 120}, pred[] = {0.25, 0.4, 0.1, 0.1};
    for (int i = 0; i < 4; i++) {
        const vj_node *e = o->items[i];
        cr_expect_str_eq(vj_get_str(e, "run"), orun[i]);
        cr_expect_str_eq(vj_get_str(e, "reason"), why[i]);
        cr_expect(fabs(num_at(vj_get(e, "measured")) - meas[i]) < 1e-15, "%s", orun[i]);
        cr_expect(fabs(num_at(vj_get(e, "predicted")) - pred[i]) < 1e-15, "%s", orun[i]);
    }
    cr_expect(vj_get(o->items[0], "twin_q05")->type == VJ_NULL && vj_get(o->items[0], "p_flood")->type == VJ_NULL &&
              vj_get(o->items[0], "within_twin")->type == VJ_NULL);
    cr_expect(is_bool(vj_get(o->items[1], "within_twin"), 1) && is_bool(vj_get(o->items[1], "flooded"), 1) &&
              is_bool(vj_get(o->items[1], "predicted_flooded"), 1));
    cr_expect(fabs(num_at(vj_get(o->items[1], "twin_q05")) - 0.3) < 1e-15 &&
              fabs(num_at(vj_get(o->items[1], "twin_q95")) - 0.6) < 1e-15);
    cr_expect(fabs(num_at(vj_get(o->items[2], "p_flood")) - 0.8) < 1e-15);
    cr_expect(is_bool(vj_get(o->items[3], "within_twin"), 0) && is_bool(vj_get(o->items[3], "flooded"), 0) &&
              is_bool(vj_get(o->items[3], "predicted_flooded"), 1));
    vj_free(v);
}


/* results.json as the clean study's, then one member forged: refused, naming it */
static void expect_forged(const char *path, const char *val, const char *line)
{
    ts_promote(f_root);
    expect_clean();
    ts_set_result(f_root, path, val);
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, line), "%s\nexpected: %s", out, line);
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
}

Test(twin, forged_results_are_refused, .init = f_setup, .fini = f_teardown, .timeout = 120)
{
    build_twin_study();
    /* within 1e-12 passes */
    ts_set_result(f_root, "twin.brier", "0.1025000000000005");
    expect_clean();
    expect_forged("twin.brier", "0.1", "MISMATCH results.json twin.brier: lab 0.1, verify 0.1025");
    expect_forged("twin.brier_odds", "0.33", "MISMATCH results.json twin.brier_odds: lab 0.33, verify 0.335575");
    expect_forged("twin.calibration.#1.runs", "2", "MISMATCH results.json twin.calibration[1].runs: lab 2, verify 1");
    expect_forged("twin.calibration.#5.flooded", "0",
                  "MISMATCH results.json twin.calibration[5].flooded: lab 0, verify 1");
    expect_forged("twin.outside.#2.reason", "\"flooded, predicted calm; inside the twin's 5-95% spread\"",
                  "MISMATCH results.json twin.outside[2] (H4-r2-r2).reason: lab \"flooded, predicted calm; inside "
                  "the twin's 5-95% spread\", verify \"flooded, predicted calm; outside the twin's 5-95% spread\"");
    expect_forged("runs.H4-r2-r1.predicted.twin.p_flood", "0.5",
                  "MISMATCH H4-r2-r1 predicted.twin.p_flood: lab 0.5, verify 0.4");
    expect_forged("runs.H3-none-r1.predicted.twin", "{\"replicas\": 10, \"flooded\": 0, \"p_flood\": 0, "
                  "\"standin_share_q\": [0, 0, 0]}", "MISMATCH H3-none-r1 predicted.twin: lab ");
    expect_forged("twin.extra", "1", "MISMATCH results.json twin.extra: lab 1, verify (a member RESULTS.md does not define)");
    /* a results.json without the twin while the prediction has one */
    ts_promote(f_root);
    ts_set_result(f_root, "twin", "null");
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH results.json twin: lab null, verify "), "%s", out);
    free(out);
}

/* prediction.json with from replaced by to, registered again; returns verify's output */
static char *with_prediction(const char *from, const char *to)
{
    char *t = vu_xstrdup(TWIN_PREDICTION), *at = strstr(t, from);
    cr_assert(at, "%s", from);
    char *n = vu_xasprintf("%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
    char *pp = f_path("results/prediction.json");
    cr_assert_eq(syn_write_text(pp, n), 0);
    write_prereg("2026-12-01T10:00:00Z");
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    free(pp);
    free(n);
    free(t);
    return out;
}

Test(twin, inconsistent_twins_are_refused, .init = f_setup, .fini = f_teardown, .timeout = 120)
{
    build_twin_study();
    char *out = with_prediction("\"flooded\": 4, \"p_flood\": 0.4", "\"flooded\": 5, \"p_flood\": 0.4");
    cr_expect(strstr(out, "MISMATCH results/prediction.json runs.H4-r2-r1.twin.p_flood: lab 0.4, verify 0.5 "
                          "(flooded 5 / replicas 10, within 1e-9)"),
              "%s", out);
    free(out);
    out = with_prediction("\"flooded\": 8,", "\"flooded\": 11,");
    cr_expect(strstr(out, "MISMATCH results/prediction.json runs.H4-r2-r2.twin.flooded: lab 11, verify an integer "
                          "0 .. replicas"),
              "%s", out);
    free(out);
    out = with_prediction("\"replicas\": 10, \"flooded\": 1,", "\"replicas\": 0, \"flooded\": 1,");
    cr_expect(strstr(out, "MISMATCH results/prediction.json runs.H4-r2-r3.twin.replicas: lab 0"), "%s", out);
    free(out);
    out = with_prediction("[0.3, 0.45, 0.6]", "[0.3, 0.25, 0.6]");
    cr_expect(strstr(out, "MISMATCH results/prediction.json runs.H4-r2-r1.twin.standin_share_q: lab [0.3, 0.25, 0.6]"),
              "%s", out);
    free(out);
    out = with_prediction("[0.4, 0.5, 0.6]", "[0.4, 0.5, 1.5]");
    cr_expect(strstr(out, "MISMATCH results/prediction.json runs.H3-none-r2.twin.standin_share_q: lab [0.4, 0.5, 1.5]"),
              "%s", out);
    free(out);
    /* a twin beside a noise that is null: a mismatch, and no twin scored */
    out = with_prediction("\"noise\": {\"path\": \"data/noise.tsv\", \"sha256\": \"00\", \"replicas\": 10}",
                          "\"noise\": null");
    cr_expect(strstr(out, "MISMATCH results/prediction.json runs.H4-r2-r1.twin: lab a twin, verify null: the top "
                          "level's noise is null or absent (no twin)"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r1 predicted.twin: lab "), "%s", out);
    free(out);
    vj_node *v = ts_verified(f_root);
    cr_expect_eq(vj_get(v, "twin")->type, VJ_NULL);
    cr_expect_eq(vj_get(ts_field(v, "H4-r2-r1", "predicted"), "twin")->type, VJ_NULL);
    vj_free(v);
}

/* the published study's results.json is older than the twin: no top-level
 * twin and no predicted.twin, not asked for while the verifier's is null */
Test(twin, an_older_results_json_is_not_asked_for_it, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study(); /* format 1: no twin */
    char *res = f_path("results/results.json"), err[512];
    vj_node *lab;
    cr_assert_eq(vj_parse_file(res, &lab, err, sizeof err), 0, "%s", err);
    vj_node *old = ts_without(lab, "twin"), *runs = vj_get(old, "runs");
    for (size_t i = 0; i < runs->n; i++) {
        vj_node *p = vj_get(runs->items[i], "predicted");
        if (p && p->type == VJ_OBJ)
            vj_obj_set(runs->items[i], "predicted", ts_without(p, "twin"));
    }
    ts_write_back(old, res);
    vj_free(lab);
    expect_clean();
    /* a results.json with the twin (null) has predicted.twin too */
    ts_set_result(f_root, "twin", "null");
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r1 predicted.twin: lab (absent), verify null"), "%s", out);
    free(out);
}

/* ---- healthy timeouts in the study (RESULTS.md, healthy_timeouts,
 * healthy_timeout_share and the arms' list) ----
 * By hand from the study above: every K and E request's lookup is a T
 * with its row of S; H4-r2-r1 has no freeze among its 120 rows: 76 of
 * 120; H4-r2-r2's req 67 (K) freezes: 35 of the 36 K (req 30's 26.78 ms is
 * not a freeze, though not a false timeout either) over 119 rows; H4-r2-r3's
 * req 81 and 83 freeze: 20 of 22 over 118.  The arm: healthy_timeouts
 * median 35, min 20, max 76; the share's median 35/119, min 20/118, max
 * 76/120. */
Test(healthy, hand_values, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    expect_clean();
    vj_node *v = ts_verified(f_root);
    TS_NUM(v, "H4-r2-r1", "healthy_timeouts", 76);
    TS_NUM(v, "H4-r2-r1", "healthy_timeout_share", 76.0 / 120);
    TS_NUM(v, "H4-r2-r2", "healthy_timeouts", 35);
    TS_NUM(v, "H4-r2-r2", "healthy_timeout_share", 35.0 / 119);
    TS_NUM(v, "H4-r2-r3", "healthy_timeouts", 20);
    TS_NUM(v, "H4-r2-r3", "healthy_timeout_share", 20.0 / 118);
    const vj_node *arm = vj_get(vj_get(v, "arms"), "H4-r2");
    cr_assert(arm);
    const vj_node *h = vj_get(arm, "healthy_timeouts"), *hs = vj_get(arm, "healthy_timeout_share");
    cr_assert(h && h->type == VJ_OBJ && hs && hs->type == VJ_OBJ);
    cr_expect(vj_get(h, "median")->num == 35 && vj_get(h, "min")->num == 20 && vj_get(h, "max")->num == 76);
    cr_expect(fabs(vj_get(hs, "median")->num - 35.0 / 119) < 1e-15, "%s", vj_get(hs, "median")->text);
    cr_expect(fabs(vj_get(hs, "min")->num - 20.0 / 118) < 1e-15, "%s", vj_get(hs, "min")->text);
    cr_expect(fabs(vj_get(hs, "max")->num - 76.0 / 120) < 1e-15, "%s", vj_get(hs, "max")->text);
    vj_free(v);
}

/* a forged share in results.json is named (the run, and the arm's maximum) */
Test(healthy, forged_results_are_named, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    ts_set_result(f_root, "runs.H4-r2-r2.healthy_timeout_share", "0.3");
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r2 healthy_timeout_share: lab 0.3, verify 0.294117647"), "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
    /* a share off by 1e-13 relative still agrees (ratios: 1e-12) */
    char val[64];
    snprintf(val, sizeof val, "%.17g", 35.0 / 119 * (1 + 1e-13));
    ts_set_result(f_root, "runs.H4-r2-r2.healthy_timeout_share", val);
    expect_clean();
    /* the count and the arm's statistics too */
    ts_set_result(f_root, "runs.H4-r2-r1.healthy_timeouts", "75");
    ts_set_result(f_root, "arms.H4-r2.healthy_timeout_share.max", "0.5");
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r1 healthy_timeouts: lab 75, verify 76\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH arms.H4-r2 healthy_timeout_share.max: lab 0.5, verify 0.6333333"), "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES"), "%s", out);
    free(out);
}

/* results.json with every healthy member taken out of runs and arms */
static void drop_healthy(const char *keep_run)
{
    static const char *const two[] = {"healthy_timeouts", "healthy_timeout_share"};
    ts_drop_members(f_root, keep_run, two, 2);
}

/* the published study's results.json is older than the two members: not
 * asked for them while it has neither anywhere; once any run has one,
 * every run and arm must */
Test(healthy, an_older_results_json_is_not_asked_for_them, .init = f_setup, .fini = f_teardown, .timeout = 60)
{
    build_study();
    drop_healthy(NULL);
    expect_clean();
    vj_node *v = ts_verified(f_root);
    TS_NUM(v, "H4-r2-r1", "healthy_timeouts", 76); /* the verifier still writes its own */
    vj_free(v);
    build_study();
    drop_healthy("H4-r2-r1");
    char *out;
    cr_expect_eq(f_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H4-r2-r2 healthy_timeouts: lab (absent), verify 35\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH arms.H4-r2 healthy_timeout_share: lab (absent)"), "%s", out);
    cr_expect(!strstr(out, "MISMATCH H4-r2-r1 healthy"), "%s", out);
    free(out);
}
