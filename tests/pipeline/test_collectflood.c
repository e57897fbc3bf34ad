/* collect, issue 14: floods, the store's dice, the prediction and the odds
 * (pipeline/RESULTS.md) on hand-made runs, every value worked out by hand
 * in the comments or, for the intervals, by an independent computation
 * whose command is given.  Suite `collect` (its PostgreSQL is started in
 * tests/pipeline/test_collect.c). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collecthelp.h"
#include "opt.h"
#include "rawfmt.h"
#include "util.h"

/* ------------------------------------------------------------ floods */

#define LIVE(ms) {L_(ms), 'L', L_(2), 0, {{0}}}
#define STAND(ms, k) {L_(ms), (k), L_(30), 0, {{0}}}
#define ERR(ms) {L_(ms), 'E', L_(25), 0, {{0}}}
#define LOST(ms) {L_(ms), 'E', -1, 0, {{0}}}

/* H4-r2 round 1, 6 s, a flood from second 2 that drains:
 *   s0: K L      1 of 2 missed? 2*1 > 2 no (exactly half is not over half)
 *   s1: nothing  not missed; its stand-in share null
 *   s2: K D E    missed (3 of 3)
 *   s3: E (lost) missed (1 of 1)
 *   s4: K K L    missed (2*2 > 3)
 *   s5: L L      not missed: the flood drained
 * N = min(3, 6) = 3: flooded from 2, 3 missed seconds. */
static const hreq DRAIN[] = {
    STAND(100, 'K'), LIVE(500),  STAND(2100, 'K'), STAND(2200, 'D'), ERR(2300), LOST(3500),
    STAND(4100, 'K'), STAND(4200, 'K'), LIVE(4300), LIVE(5100), LIVE(5200),
};
/* H4-r2 rounds 2-5, 2 s (N = 2): s0 L L, s1 K: one missed second, no flood */
static const hreq SHORT1[] = {LIVE(100), LIVE(200), STAND(1100, 'K')};
/* H4-r4xf round 1, 8 s, a flood to the end: missed s0 | s2 s3 | s5 s6 s7
 * (s3: K L K, 2*2 > 3; s7: D E L, 2*2 > 3); s1, s4 live.  The islands of 1
 * and 2 are no flood; the flood starts at 5 and the last second is missed. */
static const hreq TOEND[] = {
    STAND(100, 'K'), LIVE(1100),  STAND(2100, 'D'), STAND(2200, 'D'), STAND(3100, 'K'), LIVE(3200),
    STAND(3300, 'K'), LIVE(4100), ERR(5100),        STAND(6100, 'K'), STAND(7100, 'D'), LOST(7200), LIVE(7300),
};
/* H4-r4xf round 2, 2 s (N = 2): s0 K K, s1 D L E (2*2 > 3): both missed */
static const hreq SHORT2[] = {STAND(100, 'K'), STAND(200, 'K'), STAND(1100, 'D'), LIVE(1200), ERR(1300)};
/* H3-none, 3 s: one live request a second; round 2 answers each after 1.5 s
 * (p99 1500 ms, above 1 s) */
static const hreq FAST[] = {LIVE(100), LIVE(1100), LIVE(2100)};
static const hreq SLOW[] = {{L_(100), 'L', L_(1500), 0, {{0}}},
                            {L_(1100), 'L', L_(1500), 0, {{0}}},
                            {L_(2100), 'L', L_(1500), 0, {{0}}}};

static void put(const char *arm, int round, int seconds, const hreq *q, size_t nq)
{
    hrun h = {arm, NOFAULT, SPEC_T3, round, seconds, 1, q, nq, NULL, NULL, NULL, 0, 0, 0};
    put_run(&h);
}

/* The study the flood and odds tests share: H4-r2 floods in 1 of 5 rounds,
 * H4-r4xf in 2 of 2, H3-none in 0 of 2 (its round 2 slow). */
static void floods_study(void)
{
    put("H4-r2", 1, 6, DRAIN, sizeof DRAIN / sizeof DRAIN[0]);
    for (int r = 2; r <= 5; r++)
        put("H4-r2", r, 2, SHORT1, 3);
    put("H4-r4xf", 1, 8, TOEND, sizeof TOEND / sizeof TOEND[0]);
    put("H4-r4xf", 2, 2, SHORT2, 5);
    put("H3-none", 1, 3, FAST, 3);
    put("H3-none", 2, 3, SLOW, 3);
}

static void check_flood(json_t *r, const char *run, int missed, int from, int drained)
{
    json_t *o = run_of(r, run);
    cr_assert_eq(num(o, "missed_seconds"), missed, "%s: missed_seconds", run);
    cr_assert(json_is_boolean(json_object_get(o, "flooded")), "%s: flooded is a boolean", run);
    cr_assert_eq(json_is_true(json_object_get(o, "flooded")), from >= 0, "%s: flooded", run);
    if (from < 0) {
        cr_assert(json_is_null(json_object_get(o, "flood_from_s")), "%s: no flood, no start", run);
        cr_assert(json_is_null(json_object_get(o, "drained")), "%s: no flood, drained null", run);
        return;
    }
    cr_assert_eq(num(o, "flood_from_s"), from, "%s: flood_from_s", run);
    cr_assert_eq(json_is_true(json_object_get(o, "drained")), drained, "%s: drained", run);
    cr_assert(json_is_boolean(json_object_get(o, "drained")), "%s: drained is a boolean", run);
}

Test(collect, floods_by_hand_and_no_prediction)
{
    floods_study();
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results();
    check_flood(r, "H4-r2-r1", 3, 2, 1);
    for (int k = 2; k <= 5; k++) {
        char run[32];
        snprintf(run, sizeof run, "H4-r2-r%d", k);
        check_flood(r, run, 1, -1, 0);
    }
    check_flood(r, "H4-r4xf-r1", 6, 5, 0);
    check_flood(r, "H4-r4xf-r2", 2, 0, 0);
    check_flood(r, "H3-none-r1", 0, -1, 0);
    /* the stand-in share second by second: K L; none; K D E; E; K K L; L L */
    json_t *ps = json_object_get(run_of(r, "H4-r2-r1"), "per_second");
    cr_assert_eq(json_array_size(ps), 6);
    const double share[6] = {0.5, -1, 2.0 / 3, 0, 2.0 / 3, 0};
    for (size_t s = 0; s < 6; s++) {
        json_t *v = json_object_get(json_array_get(ps, s), "standin_share");
        if (share[s] < 0)
            cr_assert(json_is_null(v), "second %zu has no arrival: share null", s);
        else
            cr_assert_float_eq(json_number_value(v), share[s], 1e-15, "second %zu", s);
    }
    /* no store row: longest line 0, no freeze, share null, no false timeout */
    json_t *o = run_of(r, "H4-r2-r1");
    cr_assert_eq(num(o, "longest_line"), 0);
    cr_assert_eq(num(o, "freezes"), 0);
    cr_assert(json_is_null(json_object_get(o, "freeze_share")));
    cr_assert_eq(num(o, "false_timeouts"), 0);
    cr_assert_eq(num(o, "healthy_timeouts"), 0);
    /* without results/prediction.json: predicted null everywhere, no odds */
    const char *run;
    json_object_foreach(json_object_get(r, "runs"), run, o)
    {
        cr_assert(json_object_get(o, "predicted"), "%s has predicted", run);
        cr_assert(json_is_null(json_object_get(o, "predicted")), "%s: predicted null", run);
    }
    json_t *odds = json_object_get(r, "odds");
    cr_assert(json_is_array(odds) && json_array_size(odds) == 0, "odds: an empty list");
    json_decref(r);
}

/* ------------------------------------------------ the store's dice */

/* a store row with its drawn wait and the line it found */
#define PROW(req, att, at, planned, line) \
    (req), (att), (req), T0 + (at), T0 + (at), T0 + (at) + MS, (planned), 0, 'A', (line), 0

/* H3-bulk, 3 s, two stores, wait H, round 1: every planned wait is the
 * dice's (lab/RAWFORMAT.md; the page's checks give (140,0), (226,0),
 * (303,0), the others printed by waits_planned_ns).  Every lookup of V
 * ends 1 ms after it started (collecthelp's put_run), so a T lookup waited
 * 1 ms:
 *   j0 store 1, T; S1 (0,0) drew 3.647 ms                 not (longer)
 *   j1 store 1, T; S1 (1,0) drew 1.084 ms                 not (longer)
 *   j2 store 1, T; no row of S                            not
 *   j3 store 1, T; S1 (3,0) drew 2.566 ms                 not
 *   j4 store 1, A; S1 (4,0) drew 1.363 ms                 not (not T)
 *   j5 store 1, T then A; S1 has (5,1) 2.490 ms only      not (attempt 0 has no row)
 *   j6 store 2, T; S2 (6,0) drew 0.268 ms                 false timeout
 *   j7 store 2, T; S1 (7,0) 0.942 ms, none in S2          not (the other store's row)
 *   j8 store 1, T, T; S1 (8,0) 1.293 ms, (8,1) 0.683 ms   one (attempt 1)
 * false_timeouts 2.  S: 10 rows in S1 (also (140,0) drawing 1.038 s and
 * (303,0) 1.709 s: freezes), 2 in S2 ((226,0) drawing 1.926 s): freezes 3
 * of 12; the longest line 9 (S2's (6,0)).  The healthy timeouts (a T whose
 * row of S drew under 1 s): j0, j1, j3, j6 and both of j8's, 6, over the 9
 * rows of S that are not freezes. */
static const hreq DICE[] = {
    {L_(100), 'K', L_(30), 1, {{L_(100), 'T'}}}, {L_(200), 'K', L_(30), 1, {{L_(200), 'T'}}},
    {L_(300), 'K', L_(30), 1, {{L_(300), 'T'}}}, {L_(400), 'K', L_(30), 1, {{L_(400), 'T'}}},
    {L_(500), 'L', L_(2), 1, {{L_(500), 'A'}}},  {L_(600), 'L', L_(5), 1, {{L_(600), 'T'}, {L_(602), 'A'}}},
    {L_(700), 'K', L_(30), 2, {{L_(700), 'T'}}}, {L_(800), 'K', L_(30), 2, {{L_(800), 'T'}}},
    {L_(900), 'K', L_(30), 1, {{L_(900), 'T'}, {L_(910), 'T'}}},
};
static const int64_t DICE1[] = {
    PROW(0, 0, L_(100), 3647492, 0),      PROW(1, 0, L_(200), 1083902, 3),      PROW(3, 0, L_(400), 2566123, 0),
    PROW(4, 0, L_(500), 1362685, 7),      PROW(5, 1, L_(602), 2490275, 0),      PROW(7, 0, L_(800), 942013, 2),
    PROW(8, 0, L_(900), 1292573, 0),      PROW(8, 1, L_(910), 683375, 1),       PROW(140, 0, L_(950), 1037673561, 5),
    PROW(303, 0, L_(960), 1709148376, 1),
};
static const int64_t DICE2[] = {PROW(6, 0, L_(700), 267840, 9), PROW(226, 0, L_(750), 1925622370, 4)};
#define DICE_SPEC "{\"tries\":2,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":4,\"store2\":50,\"wait\":\"H\"}"

Test(collect, freezes_false_timeouts_and_longest_line_by_hand)
{
    hrun h = {"H3-bulk", NOFAULT, DICE_SPEC, 1, 3, 2, DICE, sizeof DICE / sizeof DICE[0], DICE1, DICE2, NULL,
              sizeof DICE1 / sizeof DICE1[0], sizeof DICE2 / sizeof DICE2[0], 0};
    put_run(&h);
    /* the guesses may name the new figures (data/README.md): a study's own
     * data folder with one guess of four clauses, the last one wrong */
    char dir[256], p[300], err[UT_ERRLEN], out[8192];
    snprintf(dir, sizeof dir, "%s/data", ct_root);
    cr_assert_eq(ut_mkdir_p(dir, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/guesses.tsv", dir);
    FILE *f = fopen(p, "w");
    fprintf(f, "id\tguess\tpredicate\nD1\tdice\tevery H3-bulk.false_timeouts >= 2 and median H3-bulk.freeze_share < "
               "0.3 and any H3-bulk.longest_line > 8 and every H3-bulk.freezes <= 2\n");
    fclose(f);
    snprintf(p, sizeof p, "cp data/quiet.tsv %s/quiet.tsv", dir);
    cr_assert_eq(sh(p), 0);
    /* H3-bulk, the hand-made run's arm, among the arms the guess may name:
     * H3-bulk-hang's line without its fault */
    char cmd[800];
    snprintf(cmd, sizeof cmd,
             "cp lab/arms.tsv %s/arms.tsv && grep '^H3-bulk-hang\t' lab/arms.tsv | "
             "sed 's/^H3-bulk-hang/H3-bulk/; s/\thang\t/\tnone\t/' >> %s/arms.tsv",
             dir, dir);
    cr_assert_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "--data %s --arms %s/arms.tsv", dir, dir);
    cr_assert_eq(collect_with(cmd, out, sizeof out), 0, "%s", out);
    json_t *r = results(), *o = run_of(r, "H3-bulk-r1");
    cr_assert_eq(num(o, "false_timeouts"), 2);
    cr_assert_eq(num(o, "freezes"), 3);
    cr_assert_float_eq(num(o, "freeze_share"), 3.0 / 12, 1e-15);
    cr_assert_eq(num(o, "longest_line"), 9);
    cr_assert_eq(num(o, "lookups"), 12);
    cr_assert_eq(num(o, "healthy_timeouts"), 6);
    cr_assert_float_eq(num(o, "healthy_timeout_share"), 6.0 / 9, 1e-15);
    /* the arm's statistics carry them: one round, median = min = max */
    json_t *arm = json_object_get(json_object_get(r, "arms"), "H3-bulk");
    const char *figs[] = {"freezes", "freeze_share", "false_timeouts", "longest_line", "healthy_timeouts",
                          "healthy_timeout_share"};
    const double want[] = {3, 3.0 / 12, 2, 9, 6, 6.0 / 9};
    for (int i = 0; i < 6; i++) {
        json_t *s = json_object_get(arm, figs[i]);
        cr_assert_float_eq(num(s, "median"), want[i], 1e-15, "arms.H3-bulk.%s", figs[i]);
        cr_assert_float_eq(num(s, "max"), want[i], 1e-15, "arms.H3-bulk.%s", figs[i]);
    }
    json_t *g = json_array_get(json_object_get(r, "guesses"), 0), *c = json_object_get(g, "clauses");
    cr_assert_str_eq(json_string_value(json_object_get(g, "id")), "D1");
    cr_assert(json_is_true(json_array_get(c, 0)) && json_is_true(json_array_get(c, 1)) &&
                  json_is_true(json_array_get(c, 2)) && json_is_false(json_array_get(c, 3)),
              "clauses true, true, true, false");
    cr_assert(json_is_false(json_object_get(g, "right")));
    json_decref(r);
}

/* A hedge to the copy (arm_spec.hedge2 1, two stores, every request's
 * `store` 1): lookup 1's row of S is in S2 (RESULTS.md, "its store").
 * Wait Z (every planned wait the dice's 0); each lookup of V waited 1 ms
 * (put_run), so a T with a row of S is healthy and false both:
 *   j0 T, T: S1 (0,0), S2 (0,1)        both count
 *   j1 A, T: S1 (1,0); no (1,1) in S2  its hedge counts in neither
 *   j2 T:    S1 (2,0)                  counts
 * healthy_timeouts and false_timeouts 3, over the 4 rows of S.  Joined on
 * the request's store alone, j0's hedge would find no row: 2. */
static const hreq COPYQ[] = {
    {L_(100), 'K', L_(30), 1, {{L_(100), 'T'}, {L_(110), 'T'}}},
    {L_(200), 'L', L_(15), 1, {{L_(200), 'A'}, {L_(210), 'T'}}},
    {L_(300), 'K', L_(30), 1, {{L_(300), 'T'}}},
};
static const int64_t COPY1[] = {PROW(0, 0, L_(100), 0, 0), PROW(1, 0, L_(200), 0, 0), PROW(2, 0, L_(300), 0, 0)};
static const int64_t COPY2[] = {PROW(0, 1, L_(110), 0, 0)};
#define COPY_SPEC \
    "{\"tries\":1,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":0,\"store2\":0,\"hedge2\":1,\"wait\":\"Z\"}"

Test(collect, a_hedge_to_the_copy_finds_its_row_in_the_second_store)
{
    hrun h = {"L3-hedge2", NOFAULT, COPY_SPEC, 1, 3, 2, COPYQ, sizeof COPYQ / sizeof COPYQ[0], COPY1, COPY2, NULL,
              sizeof COPY1 / sizeof COPY1[0], sizeof COPY2 / sizeof COPY2[0], 0};
    put_run(&h);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *o = run_of(r, "L3-hedge2-r1");
    cr_assert_eq(num(o, "healthy_timeouts"), 3);
    cr_assert_float_eq(num(o, "healthy_timeout_share"), 3.0 / 4, 1e-15);
    cr_assert_eq(num(o, "false_timeouts"), 3);
    cr_assert_eq(num(o, "freezes"), 0);
    json_decref(r);
}

/* --------------------------------------------- the prediction, the odds */

static void write_prediction(const char *text)
{
    char p[256], err[UT_ERRLEN];
    snprintf(p, sizeof p, "%s/results", ct_root);
    cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/results/prediction.json", ct_root);
    cr_assert_eq(ut_write_file(p, text, strlen(text), err, sizeof err), 0, "%s", err);
}

static const char PREDICTION[] =
    "{\"format\": \"lab-prediction 1\", \"profile\": \"quick\", \"seconds\": 4, \"rounds\": [1, 2, 3, 4, 5],\n"
    " \"runs\": {\"H4-r2-r1\": {\"p99_ms\": 26.5, \"standin_share\": 0.125, \"lookups_per_request\": 1.016,\n"
    "                         \"flooded\": true, \"flood_from_s\": 2},\n"
    "          \"H4-r2-r2\": {\"p99_ms\": null, \"standin_share\": 0, \"lookups_per_request\": 1,\n"
    "                         \"flooded\": false, \"flood_from_s\": null},\n"
    "          \"Q-none-r1\": {\"p99_ms\": 1, \"standin_share\": 0, \"lookups_per_request\": 1,\n"
    "                         \"flooded\": false, \"flood_from_s\": null}},\n"
    " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 30, \"seeds\": \"1-1000\",\n"
    "           \"sim_k\": 290, \"sim_n\": 1000},\n"
    "          {\"claim\": \"flood\", \"arm\": \"H4-r4xf\", \"event\": \"flooded\", \"seconds\": 30, \"sim_k\": 0, \"sim_n\": 1000},\n"
    "          {\"claim\": \"slow\", \"arm\": \"H3-none\", \"event\": \"p99_over_1s\", \"seconds\": 30, \"sim_k\": 500, \"sim_n\": 1000},\n"
    "          {\"claim\": \"flood\", \"arm\": \"H3-none\", \"event\": \"flooded\", \"seconds\": 30, \"sim_k\": 1000, \"sim_n\": 1000},\n"
    "          {\"claim\": \"flood\", \"arm\": \"Z-none\", \"event\": \"flooded\", \"seconds\": 30, \"sim_k\": 10, \"sim_n\": 1000}],\n"
    " \"sizing\": []}\n";

/* Reference intervals, computed apart from collect with python3's math
 * module, each bound by 200 bisection steps on its own equation:
 *   Wilson: the roots p of (k/n - p)^2 = z^2 p (1 - p) / n, z = 1.959963984540054;
 *   Clopper-Pearson: sum_{i>=k} comb(n,i) p^i (1-p)^(n-i) = 0.025 (lower),
 *   sum_{i<=k} ... = 0.025 (upper); in closed form where there is one:
 *   k=1 n=5 lower 1 - 0.975^(1/5), k=0 n=2 upper 1 - 0.025^(1/2), k=2 n=2 lower 0.025^(1/2).
 *   python3 -c 'import math; ge=lambda k,n,p: sum(math.comb(n,i)*p**i*(1-p)**(n-i) for i in range(k,n+1)); ...'
 */
typedef struct {
    double lo, hi;
} iv;
static const iv W290 = {0.262722034993929, 0.318885203570004}, W0 = {0, 0.00382675848555512},
                W1000 = {0.996173241514445, 1}, W500 = {0.469069600368104, 0.530930399631896},
                W10 = {0.00544075444552925, 0.0183094688703148};
static const iv CP1_5 = {0.00505076337946806, 0.71641793611809}, CP3_5 = {0.146632799634673, 0.947255049473683},
                CP2_2 = {0.158113883008419, 1}, CP1_2 = {0.012579117093425, 0.987420882906575},
                CP0_2 = {0, 0.841886116991581};

static void check_iv(json_t *o, const char *field, iv want, const char *what)
{
    json_t *a = json_object_get(o, field);
    cr_assert(json_is_array(a) && json_array_size(a) == 2, "%s: %s is [lo, hi]", what, field);
    cr_assert_float_eq(json_number_value(json_array_get(a, 0)), want.lo, 1e-11, "%s: %s lower", what, field);
    cr_assert_float_eq(json_number_value(json_array_get(a, 1)), want.hi, 1e-11, "%s: %s upper", what, field);
}

/* one entry of `odds`: agree 1 true, 0 false, -1 null */
static void check_odds(json_t *o, const char *arm, const char *event, int sim_k, iv wil, int k, int n,
                       const int *rounds, int nrounds, const iv *cp, int agree)
{
    char what[64];
    snprintf(what, sizeof what, "%s %s", arm, event);
    cr_assert_str_eq(json_string_value(json_object_get(o, "arm")), arm);
    cr_assert_str_eq(json_string_value(json_object_get(o, "event")), event);
    cr_assert_eq(num(o, "sim_k"), sim_k, "%s", what);
    cr_assert_eq(num(o, "sim_n"), 1000, "%s", what);
    cr_assert_float_eq(num(o, "sim_share"), sim_k / 1000.0, 1e-15, "%s", what);
    check_iv(o, "sim_wilson95", wil, what);
    cr_assert_eq(num(o, "k"), k, "%s: k", what);
    cr_assert_eq(num(o, "n"), n, "%s: n", what);
    if (nrounds < 0)
        cr_assert(json_is_null(json_object_get(o, "rounds")), "%s: rounds null", what);
    else
        check_list(o, "rounds", rounds, (size_t)nrounds);
    if (cp)
        check_iv(o, "cp95", *cp, what);
    else
        cr_assert(json_is_null(json_object_get(o, "cp95")), "%s: cp95 null", what);
    json_t *a = json_object_get(o, "agree");
    if (agree < 0)
        cr_assert(json_is_null(a), "%s: agree null", what);
    else
        cr_assert(json_is_boolean(a) && json_is_true(a) == agree, "%s: agree %d", what, agree);
}

Test(collect, prediction_copied_and_odds_against_independent_values)
{
    floods_study();
    write_prediction(PREDICTION);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results();
    /* predicted, as written there; null for a run without an entry */
    json_t *p1 = json_object_get(run_of(r, "H4-r2-r1"), "predicted"),
           *p2 = json_object_get(run_of(r, "H4-r2-r2"), "predicted");
    cr_assert_eq(json_object_size(p1), 6, "the five figures and twin");
    cr_assert(json_is_null(json_object_get(p1, "twin")), "format 1 has no twin: null");
    cr_assert(json_is_null(json_object_get(r, "twin")) && json_object_get(r, "twin"), "no noise model: twin null");
    cr_assert_float_eq(num(p1, "p99_ms"), 26.5, 0);
    cr_assert_float_eq(num(p1, "standin_share"), 0.125, 0);
    cr_assert_float_eq(num(p1, "lookups_per_request"), 1.016, 0);
    cr_assert(json_is_true(json_object_get(p1, "flooded")));
    cr_assert_eq(num(p1, "flood_from_s"), 2);
    cr_assert(json_is_null(json_object_get(p2, "p99_ms")));
    cr_assert_float_eq(num(p2, "lookups_per_request"), 1, 0);
    cr_assert(json_is_false(json_object_get(p2, "flooded")));
    cr_assert(json_is_null(json_object_get(p2, "flood_from_s")));
    cr_assert(json_is_null(json_object_get(run_of(r, "H4-r2-r3"), "predicted")));
    cr_assert_null(json_object_get(json_object_get(r, "runs"), "Q-none-r1"), "a prediction makes no run");
    /* the odds: the claims in file order, then the lesson's 3 of 5 */
    json_t *odds = json_object_get(r, "odds");
    cr_assert_eq(json_array_size(odds), 6);
    /* H4-r2 floods in round 1 of 5: [0.005, 0.716] meets [0.263, 0.319] */
    check_odds(json_array_get(odds, 0), "H4-r2", "flooded", 290, W290, 1, 5, (const int[]){1}, 1, &CP1_5, 1);
    /* H4-r4xf in 2 of 2 (k = n: upper 1), the simulation never: apart */
    check_odds(json_array_get(odds, 1), "H4-r4xf", "flooded", 0, W0, 2, 2, (const int[]){1, 2}, 2, &CP2_2, 0);
    /* H3-none above 1 s in round 2 of 2 */
    check_odds(json_array_get(odds, 2), "H3-none", "p99_over_1s", 500, W500, 1, 2, (const int[]){2}, 1, &CP1_2, 1);
    /* H3-none never floods (k = 0: lower 0), the simulation always: apart */
    check_odds(json_array_get(odds, 3), "H3-none", "flooded", 1000, W1000, 0, 2, NULL, 0, &CP0_2, 0);
    /* no run of Z-none: n 0, no interval, agree null */
    check_odds(json_array_get(odds, 4), "Z-none", "flooded", 10, W10, 0, 0, NULL, 0, NULL, -1);
    /* the outside observation: the lesson's 3 of 5 beside H4-r2's simulation */
    json_t *x = json_array_get(odds, 5);
    check_odds(x, "H4-r2", "flooded", 290, W290, 3, 5, NULL, -1, &CP3_5, 1);
    cr_assert_str_eq(json_string_value(json_object_get(x, "source")), "the timeouts lesson");
    cr_assert_str_eq(json_string_value(json_object_get(x, "claim")), "flood");
    cr_assert_null(json_object_get(json_array_get(odds, 0), "source"), "a claim has no source");
    cr_assert_float_eq(num(json_array_get(odds, 0), "seconds"), 30, 0);
    cr_assert_float_eq(num(x, "seconds"), 30, 0, "the lesson's rounds were 30 s");
    json_decref(r);
}

/* A quick study simulates 4 s rounds: its chance per round and the lesson's
 * 3 of 30 s rounds are of different things, so they neither agree nor not. */
Test(collect, odds_of_another_round_length_agree_with_nothing)
{
    floods_study();
    char *text = strdup(PREDICTION), *at = strstr(text, "\"seconds\": 30, \"seeds\"");
    cr_assert_not_null(at);
    memcpy(at, "\"seconds\":  4", 13); /* the H4-r2 claim, same length of text */
    write_prediction(text);
    free(text);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *odds = json_object_get(r, "odds");
    check_odds(json_array_get(odds, 0), "H4-r2", "flooded", 290, W290, 1, 5, (const int[]){1}, 1, &CP1_5, 1);
    cr_assert_float_eq(num(json_array_get(odds, 0), "seconds"), 4, 0);
    json_t *x = json_array_get(odds, 5);
    check_odds(x, "H4-r2", "flooded", 290, W290, 3, 5, NULL, -1, &CP3_5, -1);
    cr_assert_float_eq(num(x, "seconds"), 30, 0);
    json_decref(r);
}

/* One number PostgreSQL prints for `sql`, as a double. */
static double psql_f(const char *sql)
{
    char cmd[2048], out[64] = "";
    snprintf(cmd, sizeof cmd, "psql -tA '%s' -c \"%s\" 2>/dev/null", ct_url, sql);
    FILE *q = popen(cmd, "r");
    cr_assert_not_null(q);
    cr_assert_not_null(fgets(out, sizeof out, q), "%s", sql);
    pclose(q);
    double v;
    char why[96];
    out[strcspn(out, "\n")] = 0;
    cr_assert_eq(opt_f64(out, -1e300, 1e300, &v, why, sizeof why), 0, "%s: \"%s\": %s", sql, out, why);
    return v;
}

Test(collect, clopper_pearson_of_pipeline_sql_at_the_edges)
{
    floods_study();
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out); /* stats.sql defines lab_cp */
    /* python3 as above: k=0 n=5 upper 1 - 0.025^(1/5); k=5 n=5 lower
     * 0.025^(1/5); k=4 n=20 and k=1 n=1000 by bisection (n = 1000: the
     * terms that would underflow are left out, not an error) */
    const struct {
        int k, n;
        double lo, hi;
    } c[] = {{0, 5, 0, 0.521823750104982},
             {5, 5, 0.478176249895019, 1},
             {1, 5, 0.00505076337946806, 0.71641793611809},
             {4, 20, 0.0573339970500328, 0.436614002996668},
             {1, 1000, 2.53174874912954e-05, 0.00555892427982668}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char q[128];
        snprintf(q, sizeof q, "SELECT lab_cp(%d, %d, false)", c[i].k, c[i].n);
        cr_assert_float_eq(psql_f(q), c[i].lo, 1e-11, "%s", q);
        snprintf(q, sizeof q, "SELECT lab_cp(%d, %d, true)", c[i].k, c[i].n);
        cr_assert_float_eq(psql_f(q), c[i].hi, 1e-11, "%s", q);
    }
    char q[] = "SELECT coalesce(lab_cp(0, 0, true), -1)";
    cr_assert_eq(psql_f(q), -1, "n = 0: null");
}

Test(collect, malformed_prediction_is_named_and_nothing_written)
{
    floods_study();
    const struct {
        const char *text, *field;
    } bad[] = {
        {"{\"format\": \"lab-prediction 1\", \"runs\": {", "prediction.json:1: not JSON"},
        {"{\"format\": \"lab-prediction 3\", \"runs\": {}, \"odds\": []}", "prediction.json: format"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {}, \"odds\": []}", "prediction.json: sizing: missing"},
        {"{\"format\": \"lab-prediction 2\", \"runs\": {\"H4-r2-r1\": {\"p99_ms\": 1, \"standin_share\": 0, "
         "\"lookups_per_request\": 1, \"flooded\": false, \"flood_from_s\": null}}, \"odds\": [], \"sizing\": []}",
         "prediction.json: runs.H4-r2-r1.seconds: missing"},
        {"{\"format\": \"lab-prediction 2\", \"runs\": {}, \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", "
         "\"event\": \"flooded\", \"seconds\": 30, \"seeds\": \"1-9\", \"sim_k\": 1, \"sim_n\": 9, "
         "\"planned_rounds\": 9, \"p_seen\": 1.5}], \"sizing\": []}",
         "prediction.json: odds[0].p_seen: not a number in 0 .. 1"},
        {"{\"format\": \"lab-prediction 2\", \"runs\": {}, \"odds\": [], \"sizing\": [{\"a\": \"H4-r2\", "
         "\"b\": \"H4-fb25\", \"figure\": \"p99_ms\", \"seeds\": \"1-9\", \"seconds_a\": 30, \"seconds_b\": 15, "
         "\"q\": 0.9, \"rounds\": 6, \"power\": 0.53, \"rounds_90\": 0, \"decides_in_5\": false}]}",
         "prediction.json: sizing[0].decides: missing"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {}, \"odds\": [], \"sizing\": [{\"a\": \"H4-r2\", "
         "\"b\": \"H4-fb25\", \"figure\": \"p99_ms\", \"seeds\": \"1-9\", \"q\": 1.2, \"rounds_90\": 0, "
         "\"decides_in_5\": false}]}",
         "prediction.json: sizing[0].q: not a number in 0 .. 1"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {}}", "prediction.json: odds: missing"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {\"H4-r2-r1\": {\"p99_ms\": 1, \"standin_share\": 0, "
         "\"lookups_per_request\": 1, \"flooded\": \"yes\", \"flood_from_s\": null}}, \"odds\": []}",
         "prediction.json: runs.H4-r2-r1.flooded: not true or false"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {\"H4-r2-r1\": {\"p99_ms\": 1, \"standin_share\": 0, "
         "\"lookups_per_request\": 1, \"flooded\": true, \"flood_from_s\": null}}, \"odds\": []}",
         "prediction.json: runs.H4-r2-r1.flood_from_s"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {\"H4-r2-r1\": {\"p99_ms\": \"26\", \"standin_share\": 0, "
         "\"lookups_per_request\": 1, \"flooded\": false, \"flood_from_s\": null}}, \"odds\": []}",
         "prediction.json: runs.H4-r2-r1.p99_ms"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {}, \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", "
         "\"event\": \"flooded\", \"seconds\": 30, \"sim_k\": 1001, \"sim_n\": 1000}]}",
         "prediction.json: odds[0].sim_k"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {}, \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", "
         "\"event\": \"slow\", \"seconds\": 30, \"sim_k\": 1, \"sim_n\": 1000}]}",
         "prediction.json: odds[0].event"},
        {"{\"format\": \"lab-prediction 1\", \"runs\": {}, \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", "
         "\"event\": \"flooded\", \"sim_k\": 1, \"sim_n\": 1000}]}",
         "prediction.json: odds[0].seconds: missing"},
    };
    char out[8192], p[256];
    snprintf(p, sizeof p, "%s/results/results.json", ct_root);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_prediction(bad[i].text);
        cr_assert_eq(collect(out, sizeof out), 1, "case %zu: refused: %s", i, out);
        cr_assert(strstr(out, bad[i].field), "case %zu: names \"%s\": %s", i, bad[i].field, out);
        cr_assert_eq(access(p, F_OK), -1, "case %zu: no results.json", i);
        /* the database untouched: the file is checked before schema.sql */
        cr_assert_eq(psql_num("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), 0, "case %zu", i);
    }
    /* the file put right: collect goes on */
    write_prediction(PREDICTION);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert_eq(access(p, F_OK), 0);
}

/* ------------------------------------- each verdict's error rate, the family */

/* A comparisons file of our own (collect --pipeline DIR: DIR/comparisons.tsv
 * beside links to the three SQL files), and the registered data as they are. */
static void own_comparisons(const char *lines, char *extra, size_t n)
{
    char pipe[96], data[96], path[300], err[UT_ERRLEN];
    snprintf(pipe, sizeof pipe, "%s/pipe", ct_root);
    snprintf(data, sizeof data, "%s/data", ct_root);
    const char *const link[][2] = {{"pipeline/collect/schema.sql", "collect/schema.sql"},
                                   {"pipeline/collect/stats.sql", "collect/stats.sql"},
                                   {"pipeline/collect/stats_side.sql", "collect/stats_side.sql"}};
    link_files(pipe, link, 3);
    const char *const data_files[][2] = {{"data/guesses.tsv", "guesses.tsv"}, {"data/quiet.tsv", "quiet.tsv"}};
    link_files(data, data_files, 2);
    snprintf(path, sizeof path, "%s/comparisons.tsv", pipe);
    char text[2048];
    snprintf(text, sizeof text, "a\tb\tfigure\tnote\n%s", lines);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    snprintf(extra, n, "--pipeline %s --data %s", pipe, data);
}

static json_t *verdict_at(json_t *r, size_t i)
{
    json_t *v = json_array_get(json_object_get(r, "verdicts"), i);
    cr_assert_not_null(v, "verdict %zu", i);
    return v;
}

/* a number or null (want NAN) */
static void check_num_or_null(json_t *o, const char *f, double want, const char *what)
{
    json_t *v = json_object_get(o, f);
    if (want != want)
        cr_assert(json_is_null(v), "%s: %s is null", what, f);
    else {
        cr_assert(json_is_number(v), "%s: %s is a number", what, f);
        cr_assert_float_eq(json_number_value(v), want, 1e-15, "%s: %s", what, f);
    }
}

/* decidable: 1 true, 0 false, -1 null */
static void check_rate(json_t *v, int n, double fpr, double q, double power, int decidable, const char *what)
{
    cr_assert_eq(num(v, "n"), n, "%s: n", what);
    cr_assert_eq(json_array_size(json_object_get(v, "rounds")), (size_t)n, "%s: n is rounds' size", what);
    check_num_or_null(v, "false_positive_rate", fpr, what);
    check_num_or_null(v, "sizing_q", q, what);
    check_num_or_null(v, "power", power, what);
    json_t *d = json_object_get(v, "decidable");
    if (decidable < 0)
        cr_assert(json_is_null(d), "%s: decidable null", what);
    else
        cr_assert(json_is_boolean(d) && json_is_true(d) == decidable, "%s: decidable %d", what, decidable);
}

/* A study built by hand: H3-none answers after 1.5 s (SLOW) in rounds 1-6,
 * H3-fb25 after 2 ms (FAST) in rounds 1-6, H3-t25 and H3-dl FAST in rounds
 * 1-2.  The verdicts and their error rates, worked out by hand:
 *  0 H3-none/H3-fb25 p99_ms: 6 rounds, every diff > 0: clearly different;
 *    2 * 0.5^6 = 0.03125; the first sizing entry's q 0.9 (the second, 0.5,
 *    is not taken); 0.9^6 = 0.531441 < 0.9: undecidable;
 *  1 H3-t25/H3-dl p99_ms: 2 rounds, diffs 0: too close to call; 2 * 0.5^2 =
 *    0.5; q 0.99, 0.99^2 = 0.9801 >= 0.9: decidable;
 *  2 H4-r2/H4-fb25 p99_ms: no run, n 0: rate null; q 0.7 but n < 2: power
 *    and decidable null (unsized);
 *  3 H3-none/H3-t25 p99_ms: rounds 1-2, clearly different; 0.5; no sizing
 *    entry: q, power, decidable null (unsized).
 * The family: 4 verdicts, 2 clearly different, 3 with a rate, the expected
 * chance 0.03125 + 0.5 + 0.5 = 1.03125, 1 undecidable, 2 unsized. */
Test(collect, each_verdicts_error_rate_and_the_family_by_hand)
{
    for (int r = 1; r <= 6; r++) {
        put("H3-none", r, 3, SLOW, 3);
        put("H3-fb25", r, 3, FAST, 3);
    }
    for (int r = 1; r <= 2; r++) {
        put("H3-t25", r, 3, FAST, 3);
        put("H3-dl", r, 3, FAST, 3);
    }
    char extra[256], out[8192];
    own_comparisons("H3-none\tH3-fb25\tp99_ms\tslow against fast\n"
                    "H3-t25\tH3-dl\tp99_ms\tthe same\n"
                    "H4-r2\tH4-fb25\tp99_ms\tnot measured\n"
                    "H3-none\tH3-t25\tp99_ms\tnot sized\n",
                    extra, sizeof extra);
    write_prediction(
        "{\"format\": \"lab-prediction 2\", \"profile\": \"test\", \"rounds\": [1, 2, 3, 4, 5, 6],\n"
        " \"runs\": {\"H3-none-r1\": {\"seconds\": 3, \"p99_ms\": 1500, \"standin_share\": 0,\n"
        "            \"lookups_per_request\": 1, \"flooded\": false, \"flood_from_s\": null}},\n"
        " \"odds\": [{\"claim\": \"slow\", \"arm\": \"H3-none\", \"event\": \"p99_over_1s\", \"seconds\": 3,\n"
        "           \"seeds\": \"1-10\", \"sim_k\": 5, \"sim_n\": 10, \"planned_rounds\": 6, \"p_seen\": 0.984375}],\n"
        " \"sizing\": [\n"
        "  {\"a\": \"H3-none\", \"b\": \"H3-fb25\", \"figure\": \"p99_ms\", \"seeds\": \"1-10\", \"seconds_a\": 3,\n"
        "   \"seconds_b\": 3, \"q\": 0.9, \"rounds\": 6, \"power\": 0.531441, \"rounds_90\": 0, \"decides\": false},\n"
        "  {\"a\": \"H3-none\", \"b\": \"H3-fb25\", \"figure\": \"p99_ms\", \"seeds\": \"1-10\", \"seconds_a\": 3,\n"
        "   \"seconds_b\": 3, \"q\": 0.5, \"rounds\": 6, \"power\": 0.015625, \"rounds_90\": 0, \"decides\": false},\n"
        "  {\"a\": \"H3-t25\", \"b\": \"H3-dl\", \"figure\": \"p99_ms\", \"seeds\": \"1-10\", \"seconds_a\": 3,\n"
        "   \"seconds_b\": 3, \"q\": 0.99, \"rounds\": 2, \"power\": 0.9801, \"rounds_90\": 10, \"decides\": true},\n"
        "  {\"a\": \"H4-r2\", \"b\": \"H4-fb25\", \"figure\": \"p99_ms\", \"seeds\": \"1-10\", \"seconds_a\": 3,\n"
        "   \"seconds_b\": 3, \"q\": 0.7, \"rounds\": 6, \"power\": 0.117649, \"rounds_90\": 0, \"decides\": false}]}\n");
    cr_assert_eq(collect_with(extra, out, sizeof out), 0, "%s", out);
    json_t *r = results();
    cr_assert_eq(json_array_size(json_object_get(r, "verdicts")), 4);
    json_t *v = verdict_at(r, 0);
    cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "clearly different");
    check_rate(v, 6, 0.03125, 0.9, 0.531441, 0, "H3-none/H3-fb25");
    v = verdict_at(r, 1);
    cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "too close to call");
    check_rate(v, 2, 0.5, 0.99, 0.9801, 1, "H3-t25/H3-dl");
    check_rate(verdict_at(r, 2), 0, NAN, 0.7, NAN, -1, "H4-r2/H4-fb25");
    v = verdict_at(r, 3);
    cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "clearly different");
    check_rate(v, 2, 0.5, NAN, NAN, -1, "H3-none/H3-t25");
    json_t *fam = json_object_get(r, "verdict_family");
    cr_assert(json_is_object(fam) && json_object_size(fam) == 6, "verdict_family: six members");
    cr_assert_eq(num(fam, "verdicts"), 4);
    cr_assert_eq(num(fam, "clearly_different"), 2);
    cr_assert_eq(num(fam, "with_rate"), 3);
    cr_assert_float_eq(num(fam, "expected_chance"), 1.03125, 1e-15);
    cr_assert_eq(num(fam, "undecidable"), 1);
    cr_assert_eq(num(fam, "unsized"), 2);
    json_decref(r);

    /* without a prediction: no q anywhere, the rates all the same */
    char p[256];
    snprintf(p, sizeof p, "%s/results/prediction.json", ct_root);
    cr_assert_eq(unlink(p), 0);
    cr_assert_eq(collect_with(extra, out, sizeof out), 0, "%s", out);
    r = results();
    check_rate(verdict_at(r, 0), 6, 0.03125, NAN, NAN, -1, "H3-none/H3-fb25 unpredicted");
    fam = json_object_get(r, "verdict_family");
    cr_assert_float_eq(num(fam, "expected_chance"), 1.03125, 1e-15);
    cr_assert_eq(num(fam, "undecidable"), 0);
    cr_assert_eq(num(fam, "unsized"), 4);
    json_decref(r);
}

/* The study published on 2026-12-01 kept its prediction in format 1 (its
 * copy: tests/pipeline/fixtures/prediction-format1.json): collect reads it
 * whole, its sizing's q becomes each verdict's sizing_q. */
#define FORMAT1 "tests/pipeline/fixtures/prediction-format1.json"
Test(collect, the_format_1_prediction_of_2026_12_01_is_read)
{
    floods_study();
    char *text = NULL, err[UT_ERRLEN], out[8192];
    size_t n;
    cr_assert_eq(ut_read_file(FORMAT1, &text, &n, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(text, "\"lab-prediction 1\""), "the fixture is format 1");
    write_prediction(text);
    free(text);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *p = json_load_file(FORMAT1, 0, NULL);
    cr_assert_not_null(p);
    /* the first verdict of pipeline/comparisons.tsv and the first sizing entry are the same line */
    json_t *s0 = json_array_get(json_object_get(p, "sizing"), 0), *v0 = verdict_at(r, 0);
    cr_assert_str_eq(json_string_value(json_object_get(v0, "a")), json_string_value(json_object_get(s0, "a")));
    cr_assert_str_eq(json_string_value(json_object_get(v0, "b")), json_string_value(json_object_get(s0, "b")));
    cr_assert_float_eq(num(v0, "sizing_q"), num(s0, "q"), 0);
    json_decref(p);
    json_decref(r);
}

/* ------------------------------------------------------------ the map */

/* A prediction (format 2) with a map of one policy at three loads: r2
 * floods in 0, 5 and 20 of 1,000 seeds at 300, 325, 350/s; its trigger at
 * 450/s seen in four flooded seeds (2, 3, 3, 3 freezes at once); the arm
 * H4-r2 set on its curve at 350/s (a made-up load, to meet the cell by
 * hand).  Wilson bounds from the formula in python3 (math module):
 *   0/1000 [2.2e-19, 0.003826758485555124], 5/1000 [0.0021375355273244596,
 *   0.011650955373375111], 20/1000 [0.012983682916415135, 0.030690005229717782]. */
static const char MAP_PREDICTION[] =
    "{\"format\": \"lab-prediction 2\", \"profile\": \"quick\", \"rounds\": [1], \"noise\": null,\n"
    " \"runs\": {\"H4-r2-r1\": {\"seconds\": 6, \"p99_ms\": 1, \"standin_share\": 0, \"lookups_per_request\": 1,\n"
    "                         \"flooded\": false, \"flood_from_s\": null}},\n"
    " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 30, \"seeds\": \"1-1000\",\n"
    "           \"sim_k\": 290, \"sim_n\": 1000, \"planned_rounds\": 5, \"p_seen\": 0.82}],\n"
    " \"sizing\": [],\n"
    " \"map\": {\"seconds\": 30, \"seeds\": \"1-1000\", \"capacity_p\": 0.01, \"trigger_load\": 450,\n"
    "         \"loads\": [300, 325, 350],\n"
    "         \"policies\": [{\"policy\": \"r2\", \"template\": \"H4-r2\",\n"
    "           \"cells\": [{\"load\": 300, \"k\": 0, \"n\": 1000, \"onset_median_s\": null, \"standin_share_median\": 0.001},\n"
    "                     {\"load\": 325, \"k\": 5, \"n\": 1000, \"onset_median_s\": 12, \"standin_share_median\": 0.002},\n"
    "                     {\"load\": 350, \"k\": 20, \"n\": 1000, \"onset_median_s\": 9.5, \"standin_share_median\": 0.003}],\n"
    "           \"hidden_capacity\": {\"load\": 325, \"interval\": [300, 325], \"tips\": true},\n"
    "           \"trigger\": {\"flooded\": {\"n\": 4, \"median\": 3, \"counts\": [0, 0, 1, 3]},\n"
    "                       \"calm\": {\"n\": 0, \"median\": null, \"counts\": []}},\n"
    "           \"arms\": [{\"arm\": \"H4-r2\", \"load\": 350}]}]}}\n";

Test(collect, the_map_by_hand)
{
    floods_study();
    write_prediction(MAP_PREDICTION);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *m = json_object_get(r, "map");
    cr_assert(json_is_object(m), "a prediction with a map: results.json has it");
    cr_assert_float_eq(num(m, "seconds"), 30, 0);
    cr_assert_str_eq(json_string_value(json_object_get(m, "seeds")), "1-1000");
    json_t *p = json_array_get(json_object_get(m, "policies"), 0), *cells = json_object_get(p, "cells");
    cr_assert_str_eq(json_string_value(json_object_get(p, "policy")), "r2");
    cr_assert_eq(json_array_size(cells), 3);
    const iv w[3] = {{2.1601063852437764e-19, 0.003826758485555124},
                     {0.0021375355273244596, 0.011650955373375111},
                     {0.012983682916415135, 0.030690005229717782}};
    for (int i = 0; i < 3; i++) {
        json_t *c = json_array_get(cells, (size_t)i);
        cr_assert_eq(num(c, "load"), 300 + 25 * i);
        check_iv(c, "wilson95", w[i], "map cell");
        cr_assert_float_eq(num(c, "share"), (i == 0 ? 0 : i == 1 ? 5 : 20) / 1000.0, 1e-15);
    }
    cr_assert(json_is_null(json_object_get(json_array_get(cells, 0), "onset_median_s")));
    cr_assert_float_eq(num(json_array_get(cells, 2), "onset_median_s"), 9.5, 0);
    /* below 1% at 300 and 325 (0.5%), not at 350 (2%): 325; upper bounds below 1% at 300 only
     * (0.0117 at 325); lower bounds at 300 and 325 (0.0130 at 350): [300, 325] */
    json_t *cap = json_object_get(p, "hidden_capacity"), *civ = json_object_get(cap, "interval");
    cr_assert_eq(num(cap, "load"), 325);
    cr_assert(json_integer_value(json_array_get(civ, 0)) == 300 && json_integer_value(json_array_get(civ, 1)) == 325);
    cr_assert(json_is_true(json_object_get(cap, "tips")));
    /* the trigger: 2, 3, 3, 3 has median 3; no calm seed: n 0, median null, counts [] */
    json_t *tf = json_object_get(json_object_get(p, "trigger"), "flooded"),
           *tc = json_object_get(json_object_get(p, "trigger"), "calm");
    cr_assert(num(tf, "n") == 4 && num(tf, "median") == 3);
    check_list(tf, "counts", (const int[]){0, 0, 1, 3}, 4);
    cr_assert(num(tc, "n") == 0 && json_is_null(json_object_get(tc, "median")));
    cr_assert_eq(json_array_size(json_object_get(tc, "counts")), 0);
    /* the point: H4-r2's claim, 1 flood in 5 quiet rounds, [0.005, 0.716] meets the cell's [0.013, 0.031] */
    json_t *pt = json_array_get(json_object_get(p, "points"), 0);
    cr_assert_not_null(pt);
    cr_assert_str_eq(json_string_value(json_object_get(pt, "arm")), "H4-r2");
    cr_assert(num(pt, "load") == 350 && num(pt, "k") == 1 && num(pt, "n") == 5 && num(pt, "sim_k") == 290);
    check_iv(pt, "cp95", CP1_5, "map point");
    check_list(pt, "rounds", (const int[]){1}, 1);
    cr_assert(json_is_true(json_object_get(pt, "on_curve")) && json_is_true(json_object_get(pt, "agree")));
    json_decref(r);
    /* a map whose cell counts more floods than seeds is refused, the field named, nothing written */
    char bad[sizeof MAP_PREDICTION + 16];
    snprintf(bad, sizeof bad, "%s", MAP_PREDICTION);
    char *k = strstr(bad, "\"k\": 20, \"n\": 1000");
    memcpy(k, "\"k\": 2000,\"n\":1000", 18); /* as long as what it replaces */
    write_prediction(bad);
    cr_assert_neq(collect(out, sizeof out), 0);
    cr_assert(strstr(out, "map.policies[0].cells[2].k: not an integer in 0 .. n"), "%s", out);
}
