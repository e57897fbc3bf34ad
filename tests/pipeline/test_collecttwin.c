/* collect, issue 27 item 3: the twin's registered chances scored against
 * the measurement (pipeline/RESULTS.md, `twin`, and `predicted.twin` of
 * each run) on a hand-made study whose every value is worked out by hand
 * in the comments; and prediction.json's `noise` and `twin` checked whole
 * (a fault named with the file and the field, nothing written).  Suite
 * `collect` (its PostgreSQL is started in tests/pipeline/test_collect.c). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collecthelp.h"
#include "util.h"

#define LIVE(ms) {L_(ms), 'L', L_(2), 0, {{0}}}
#define STAND(ms, k) {L_(ms), (k), L_(30), 0, {{0}}}
#define ERR(ms) {L_(ms), 'E', L_(25), 0, {{0}}}

/* 2 s (a flood needs N = min(3, 2) = 2 missed seconds in a row):
 * CALM   s0 L L, s1 K: one missed second, no flood; stand-ins 1 of 3
 * FLOOD  s0 K K, s1 D L E (2*2 > 3): both missed, flooded; stand-ins 3 of 5
 * LIVE3  one live request a second (3 s): no flood, stand-ins 0 */
static const hreq CALM[] = {LIVE(100), LIVE(200), STAND(1100, 'K')};
static const hreq FLOOD[] = {STAND(100, 'K'), STAND(200, 'K'), STAND(1100, 'D'), LIVE(1200), ERR(1300)};
static const hreq LIVE3[] = {LIVE(100), LIVE(1100), LIVE(2100)};

static void put(const char *arm, int round, int seconds, const hreq *q, size_t nq)
{
    hrun h = {arm, NOFAULT, SPEC_T3, round, seconds, 1, q, nq, NULL, NULL, NULL, 0, 0, 0};
    put_run(&h);
}

/* H4-r2 rounds 1-5 (CALM FLOOD FLOOD FLOOD CALM), H3-none rounds 1-2
 * (LIVE3): every run quiet (no machine row breaks a rule). */
static void twin_study(void)
{
    put("H4-r2", 1, 2, CALM, 3);
    for (int r = 2; r <= 4; r++)
        put("H4-r2", r, 2, FLOOD, 5);
    put("H4-r2", 5, 2, CALM, 3);
    put("H3-none", 1, 3, LIVE3, 3);
    put("H3-none", 2, 3, LIVE3, 3);
}

static void write_prediction(const char *text)
{
    char p[256], err[UT_ERRLEN];
    snprintf(p, sizeof p, "%s/results", ct_root);
    cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/results/prediction.json", ct_root);
    cr_assert_eq(ut_write_file(p, text, strlen(text), err, sizeof err), 0, "%s", err);
}

#define RUN2(share, fl, from) \
    "\"seconds\": 2, \"p99_ms\": 2, \"standin_share\": " share ", \"lookups_per_request\": 1, " \
    "\"flooded\": " fl ", \"flood_from_s\": " from
#define TWIN(k, p, q) ", \"twin\": {\"replicas\": 10, \"flooded\": " k ", \"p_flood\": " p ", \"standin_share_q\": " q "}"
#define NOISE "\"noise\": {\"path\": \"data/noise.tsv\", \"sha256\": \"ab12\", \"replicas\": 10}"

/* The prediction, run by run (p the twin's p_flood, y the measured flood,
 * yes/no the noise-free prediction's flooded; H4-r2's flood claim 290 of
 * 1000 seeds, so p_odds = 0.29 for each of its rounds):
 *
 *   run        measured      predicted        twin                       scored
 *              share  y      share  yes/no    p    q05..q95
 *   H4-r2-r1   1/3    0      0.2    no        0.1  0.1..0.4   (inside)   yes
 *   H4-r2-r2   0.6    1      0.1    no        0.4  0.05..0.5  (outside)  yes
 *   H4-r2-r3   0.6    1      0.6    yes       0.8                        yes
 *   H4-r2-r4   0.6    1      0.595  yes       1.0                        yes
 *   H4-r2-r5   1/3    0      0.5    yes       null                       no: no twin
 *   H3-none-r1 0      0      0.005  no        0    0..0                  no: no flood claim
 *   H3-none-r2 0      0      0.02   no        0    0..0.02    (inside)   no: no flood claim
 *
 * brier        = ((0.1-0)^2 + (0.4-1)^2 + (0.8-1)^2 + (1-1)^2) / 4 = (0.01 + 0.36 + 0.04 + 0) / 4 = 0.1025
 * brier_yes_no = ((0-0)^2 + (0-1)^2 + (1-1)^2 + (1-1)^2) / 4 = 0.25
 * brier_odds   = ((0.29-0)^2 + 3 (0.29-1)^2) / 4 = (0.0841 + 3 * 0.5041) / 4 = 0.3991
 * calibration: [0, 0.05) none; [0.05, 0.25) p 0.1, 0 of 1; [0.25, 0.5) p 0.4,
 *   1 of 1; [0.5, 0.75) none; [0.75, 0.95) p 0.8, 1 of 1; [0.95, 1] p 1, 1 of 1.
 *   Exact intervals in closed form: 0 of 1 [0, 1 - 0.025] = [0, 0.975];
 *   1 of 1 [0.025, 1].
 * outside (|measured - predicted| > 0.01), in byte order:
 *   H3-none-r2  0 vs 0.02, calm as predicted: stand-ins beyond the tolerance; inside (0 <= 0 <= 0.02)
 *   H4-r2-r1    1/3 vs 0.2: stand-ins beyond the tolerance; inside (0.1 <= 1/3 <= 0.4)
 *   H4-r2-r2    0.6 vs 0.1, flooded: flooded, predicted calm; outside (0.6 > 0.5)
 *   H4-r2-r5    1/3 vs 0.5, predicted a flood: calm, predicted to flood (no twin)
 *   not H4-r2-r3 (0 apart), H4-r2-r4 (0.005), H3-none-r1 (0.005). */
static const char PREDICTION2[] =
    "{\"format\": \"lab-prediction 2\", \"profile\": \"quick\", \"rounds\": [1, 2, 3, 4, 5], " NOISE ",\n"
    " \"runs\": {\"H4-r2-r1\": {" RUN2("0.2", "false", "null") TWIN("1", "0.1", "[0.1, 0.2, 0.4]") "},\n"
    "          \"H4-r2-r2\": {" RUN2("0.1", "false", "null") TWIN("4", "0.4", "[0.05, 0.1, 0.5]") "},\n"
    "          \"H4-r2-r3\": {" RUN2("0.6", "true", "0") TWIN("8", "0.8", "[0.3, 0.6, 0.6]") "},\n"
    "          \"H4-r2-r4\": {" RUN2("0.595", "true", "0") TWIN("10", "1", "[0.5, 0.6, 0.7]") "},\n"
    "          \"H4-r2-r5\": {" RUN2("0.5", "true", "1") ", \"twin\": null},\n"
    "          \"H3-none-r1\": {" RUN2("0.005", "false", "null") TWIN("0", "0", "[0, 0, 0]") "},\n"
    "          \"H3-none-r2\": {" RUN2("0.02", "false", "null") TWIN("0", "0.0", "[0, 0.01, 0.02]") "}},\n"
    " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 2, \"seeds\": \"1-1000\",\n"
    "           \"sim_k\": 290, \"sim_n\": 1000, \"planned_rounds\": 5, \"p_seen\": 0.8},\n"
    "          {\"claim\": \"slow\", \"arm\": \"H3-none\", \"event\": \"p99_over_1s\", \"seconds\": 3, \"seeds\": \"1-1000\",\n"
    "           \"sim_k\": 0, \"sim_n\": 1000, \"planned_rounds\": 2, \"p_seen\": 0}],\n"
    " \"sizing\": []}\n";

static void check_bin(json_t *b, double from, double to, int runs, double mean_p, int flooded, double lo, double hi)
{
    char what[48];
    snprintf(what, sizeof what, "bin [%g, %g]", from, to);
    cr_assert_float_eq(num(b, "from"), from, 0, "%s: from", what);
    cr_assert_float_eq(num(b, "to"), to, 0, "%s: to", what);
    cr_assert_eq(num(b, "runs"), runs, "%s: runs", what);
    cr_assert_eq(num(b, "flooded"), flooded, "%s: flooded", what);
    if (!runs) {
        const char *nul[] = {"mean_p", "share", "cp95"};
        check_nulls(b, nul, 3, what);
        return;
    }
    cr_assert_float_eq(num(b, "mean_p"), mean_p, 1e-15, "%s: mean_p", what);
    cr_assert_float_eq(num(b, "share"), (double)flooded / runs, 1e-15, "%s: share", what);
    json_t *cp = json_object_get(b, "cp95");
    cr_assert(json_is_array(cp) && json_array_size(cp) == 2, "%s: cp95 [lo, hi]", what);
    cr_assert_float_eq(json_number_value(json_array_get(cp, 0)), lo, 1e-11, "%s: cp95 lower", what);
    cr_assert_float_eq(json_number_value(json_array_get(cp, 1)), hi, 1e-11, "%s: cp95 upper", what);
}

/* one entry of outside; q05 < 0: no twin (q05, q95, p_flood, within_twin null) */
static void check_outside(json_t *o, const char *run, double measured, double predicted, double q05, double q95,
                          int flooded, int pflooded, double p, int within, const char *reason)
{
    cr_assert_str_eq(json_string_value(json_object_get(o, "run")), run);
    cr_assert_float_eq(num(o, "measured"), measured, 1e-15, "%s: measured", run);
    cr_assert_float_eq(num(o, "predicted"), predicted, 0, "%s: predicted", run);
    cr_assert(json_is_boolean(json_object_get(o, "flooded")) && json_is_true(json_object_get(o, "flooded")) == flooded,
              "%s: flooded", run);
    cr_assert(json_is_boolean(json_object_get(o, "predicted_flooded")) &&
                  json_is_true(json_object_get(o, "predicted_flooded")) == pflooded,
              "%s: predicted_flooded", run);
    if (q05 < 0) {
        const char *nul[] = {"twin_q05", "twin_q95", "p_flood", "within_twin"};
        check_nulls(o, nul, 4, run);
    } else {
        cr_assert_float_eq(num(o, "twin_q05"), q05, 0, "%s: twin_q05", run);
        cr_assert_float_eq(num(o, "twin_q95"), q95, 0, "%s: twin_q95", run);
        cr_assert_float_eq(num(o, "p_flood"), p, 0, "%s: p_flood", run);
        cr_assert(json_is_boolean(json_object_get(o, "within_twin")) &&
                      json_is_true(json_object_get(o, "within_twin")) == within,
                  "%s: within_twin", run);
    }
    cr_assert_str_eq(json_string_value(json_object_get(o, "reason")), reason, "%s: reason", run);
    cr_assert_eq(json_object_size(o), 10, "%s: ten fields", run);
}

Test(collect, twin_scored_by_hand)
{
    twin_study();
    write_prediction(PREDICTION2);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *t = json_object_get(r, "twin");
    cr_assert(json_is_object(t), "a prediction with a noise model: twin scored");
    /* the measured floods as the comments say */
    const char *fl[] = {"H4-r2-r2", "H4-r2-r3", "H4-r2-r4"}, *calm[] = {"H4-r2-r1", "H4-r2-r5", "H3-none-r1"};
    for (int i = 0; i < 3; i++) {
        cr_assert(json_is_true(json_object_get(run_of(r, fl[i]), "flooded")), "%s floods", fl[i]);
        cr_assert(json_is_false(json_object_get(run_of(r, calm[i]), "flooded")), "%s is calm", calm[i]);
        cr_assert(json_is_true(json_object_get(run_of(r, fl[i]), "quiet")), "%s quiet", fl[i]);
        cr_assert(json_is_true(json_object_get(run_of(r, calm[i]), "quiet")), "%s quiet", calm[i]);
    }
    cr_assert_eq(num(t, "runs"), 4);
    cr_assert_eq(num(t, "flooded"), 3);
    cr_assert_float_eq(num(t, "brier"), 0.1025, 1e-15);
    cr_assert_float_eq(num(t, "brier_yes_no"), 0.25, 1e-15);
    cr_assert_float_eq(num(t, "brier_odds"), 0.3991, 1e-15);
    /* the means add up in the twins' order in prediction.json (k; H4-r2-r5
     * has none, H3-none after H4-r2 though it sorts first), the scored
     * runs H4-r2-r1 .. r4 */
    cr_assert_eq(psql_num("SELECT k FROM predicted_twin WHERE run = 'H4-r2-r4'"), 3);
    cr_assert_eq(psql_num("SELECT k FROM predicted_twin WHERE run = 'H3-none-r2'"), 5);
    cr_assert_eq(psql_num("SELECT count(*) FROM predicted_twin"), 6);
    cr_assert_eq(psql_num("SELECT string_agg(k::text, '' ORDER BY run) FROM twin_scored"), 123);
    json_t *cal = json_object_get(t, "calibration");
    cr_assert(json_is_array(cal) && json_array_size(cal) == 6, "six bins");
    check_bin(json_array_get(cal, 0), 0, 0.05, 0, 0, 0, 0, 0);
    check_bin(json_array_get(cal, 1), 0.05, 0.25, 1, 0.1, 0, 0, 0.975);
    check_bin(json_array_get(cal, 2), 0.25, 0.5, 1, 0.4, 1, 0.025, 1);
    check_bin(json_array_get(cal, 3), 0.5, 0.75, 0, 0, 0, 0, 0);
    check_bin(json_array_get(cal, 4), 0.75, 0.95, 1, 0.8, 1, 0.025, 1);
    check_bin(json_array_get(cal, 5), 0.95, 1, 1, 1.0, 1, 0.025, 1);
    json_t *o = json_object_get(t, "outside");
    cr_assert(json_is_array(o) && json_array_size(o) == 4, "four runs outside: %zu", json_array_size(o));
    check_outside(json_array_get(o, 0), "H3-none-r2", 0, 0.02, 0, 0.02, 0, 0, 0, 1,
                  "stand-ins beyond the tolerance; inside the twin's 5-95% spread");
    check_outside(json_array_get(o, 1), "H4-r2-r1", 1.0 / 3, 0.2, 0.1, 0.4, 0, 0, 0.1, 1,
                  "stand-ins beyond the tolerance; inside the twin's 5-95% spread");
    check_outside(json_array_get(o, 2), "H4-r2-r2", 0.6, 0.1, 0.05, 0.5, 1, 0, 0.4, 0,
                  "flooded, predicted calm; outside the twin's 5-95% spread");
    check_outside(json_array_get(o, 3), "H4-r2-r5", 1.0 / 3, 0.5, -1, -1, 0, 1, 0, 0, "calm, predicted to flood");
    /* each run's predicted.twin as written; null without one */
    json_t *p1 = json_object_get(run_of(r, "H4-r2-r1"), "predicted"), *tw = json_object_get(p1, "twin");
    cr_assert_eq(json_object_size(p1), 6, "the five figures and twin");
    cr_assert_eq(json_object_size(tw), 4);
    cr_assert_eq(num(tw, "replicas"), 10);
    cr_assert_eq(num(tw, "flooded"), 1);
    cr_assert_float_eq(num(tw, "p_flood"), 0.1, 0);
    json_t *q = json_object_get(tw, "standin_share_q");
    cr_assert(json_is_array(q) && json_array_size(q) == 3);
    const double qw[] = {0.1, 0.2, 0.4};
    for (size_t i = 0; i < 3; i++)
        cr_assert_float_eq(json_number_value(json_array_get(q, i)), qw[i], 0, "standin_share_q[%zu]", i);
    cr_assert(json_is_null(json_object_get(json_object_get(run_of(r, "H4-r2-r5"), "predicted"), "twin")),
              "a twin null in the file: null");
    cr_assert_not_null(json_object_get(json_object_get(run_of(r, "H4-r2-r5"), "predicted"), "twin"));
    json_decref(r);
}

/* Format 2 without a noise model (noise null, or absent, and no twin):
 * `twin` null, every predicted.twin null; so with no prediction at all. */
Test(collect, twin_null_without_noise)
{
    twin_study();
    const char *tops[] = {"\"noise\": null, ", ""};
    char out[8192];
    for (int k = 0; k < 3; k++) {
        if (k < 2) {
            char text[2048];
            snprintf(text, sizeof text,
                     "{\"format\": \"lab-prediction 2\", %s\"runs\": {\"H4-r2-r1\": {" RUN2("0.2", "false", "null")
                     "}, \"H4-r2-r2\": {" RUN2("0.1", "false", "null") ", \"twin\": null}},\n"
                     " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 2, "
                     "\"seeds\": \"1-1000\", \"sim_k\": 290, \"sim_n\": 1000, \"planned_rounds\": 5, \"p_seen\": 0.8}],"
                     " \"sizing\": []}\n",
                     tops[k]);
            write_prediction(text);
        } else {
            char p[256];
            snprintf(p, sizeof p, "%s/results/prediction.json", ct_root);
            cr_assert_eq(unlink(p), 0);
        }
        cr_assert_eq(collect(out, sizeof out), 0, "case %d: %s", k, out);
        json_t *r = results();
        json_t *t = json_object_get(r, "twin");
        cr_assert(t && json_is_null(t), "case %d: twin null", k);
        for (int i = 1; i <= 2 && k < 2; i++) {
            char run[16];
            snprintf(run, sizeof run, "H4-r2-r%d", i);
            json_t *p = json_object_get(run_of(r, run), "predicted"), *pt = json_object_get(p, "twin");
            cr_assert(pt && json_is_null(pt), "case %d: %s: predicted.twin null", k, run);
        }
        json_decref(r);
    }
}

Test(collect, malformed_twin_is_named_and_nothing_written)
{
    twin_study();
#define HEAD "{\"format\": \"lab-prediction 2\", "
#define TAIL ", \"odds\": [], \"sizing\": []}"
#define ONE(twin) "\"runs\": {\"H4-r2-r1\": {" RUN2("0.2", "false", "null") ", \"twin\": " twin "}}"
    const struct {
        const char *text, *field;
    } bad[] = {
        {HEAD NOISE ", " ONE("{\"replicas\": 0, \"flooded\": 0, \"p_flood\": 0, \"standin_share_q\": [0, 0, 0]}") TAIL,
         "prediction.json: runs.H4-r2-r1.twin.replicas: not an integer in 1 .. 2147483647"},
        {HEAD NOISE ", " ONE("{\"replicas\": 2.5, \"flooded\": 0, \"p_flood\": 0, \"standin_share_q\": [0, 0, 0]}") TAIL,
         "prediction.json: runs.H4-r2-r1.twin.replicas: not an integer"},
        {HEAD NOISE ", " ONE("{\"replicas\": 10, \"flooded\": 11, \"p_flood\": 1, \"standin_share_q\": [0, 0, 0]}") TAIL,
         "prediction.json: runs.H4-r2-r1.twin.flooded: not an integer in 0 .. 10"},
        {HEAD NOISE ", " ONE("{\"replicas\": 10, \"p_flood\": 0, \"standin_share_q\": [0, 0, 0]}") TAIL,
         "prediction.json: runs.H4-r2-r1.twin.flooded: missing"},
        {HEAD NOISE ", " ONE("{\"replicas\": 10, \"flooded\": 3, \"p_flood\": 0.4, \"standin_share_q\": [0, 0, 0]}") TAIL,
         "prediction.json: runs.H4-r2-r1.twin.p_flood: 0.40000000000000002 is not flooded / replicas"},
        {HEAD NOISE ", " ONE("{\"replicas\": 10, \"flooded\": 3, \"p_flood\": \"0.3\", \"standin_share_q\": [0, 0, 0]}")
             TAIL,
         "prediction.json: runs.H4-r2-r1.twin.p_flood: not a number in 0 .. 1"},
        {HEAD NOISE ", " ONE("{\"replicas\": 10, \"flooded\": 3, \"p_flood\": 0.3, \"standin_share_q\": [0.2, 0.1, 0.3]}")
             TAIL,
         "prediction.json: runs.H4-r2-r1.twin.standin_share_q: not three numbers in 0 .. 1 in ascending order"},
        {HEAD NOISE ", " ONE("{\"replicas\": 10, \"flooded\": 3, \"p_flood\": 0.3, \"standin_share_q\": [0.1, 0.2]}") TAIL,
         "prediction.json: runs.H4-r2-r1.twin.standin_share_q: not three numbers"},
        {HEAD NOISE ", " ONE("{\"replicas\": 10, \"flooded\": 3, \"p_flood\": 0.3, \"standin_share_q\": [0, 0.5, 1.5]}")
             TAIL,
         "prediction.json: runs.H4-r2-r1.twin.standin_share_q: not three numbers"},
        {HEAD NOISE ", " ONE("{\"replicas\": 10, \"flooded\": 3, \"p_flood\": 0.3}") TAIL,
         "prediction.json: runs.H4-r2-r1.twin.standin_share_q: missing"},
        {HEAD NOISE ", " ONE("[1, 2]") TAIL, "prediction.json: runs.H4-r2-r1.twin: not an object or null"},
        {HEAD "\"noise\": null, " ONE("{\"replicas\": 10, \"flooded\": 3, \"p_flood\": 0.3, \"standin_share_q\": [0, 0, 0]}")
             TAIL,
         "prediction.json: runs.H4-r2-r1.twin: not null although the top level's noise is null or missing"},
        {HEAD "\"noise\": \"data/noise.tsv\", " ONE("null") TAIL, "prediction.json: noise: not an object or null"},
        {HEAD "\"noise\": {\"path\": \"data/noise.tsv\", \"sha256\": \"ab\"}, " ONE("null") TAIL,
         "prediction.json: noise.replicas: missing"},
        {HEAD "\"noise\": {\"path\": \"\", \"sha256\": \"ab\", \"replicas\": 10}, " ONE("null") TAIL,
         "prediction.json: noise.path: not a non-empty string"},
    };
    char out[8192], p[256];
    snprintf(p, sizeof p, "%s/results/results.json", ct_root);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_prediction(bad[i].text);
        cr_assert_eq(collect(out, sizeof out), 1, "case %zu: refused: %s", i, out);
        cr_assert(strstr(out, bad[i].field), "case %zu: names \"%s\": %s", i, bad[i].field, out);
        cr_assert_eq(access(p, F_OK), -1, "case %zu: no results.json", i);
        cr_assert_eq(psql_num("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), 0, "case %zu", i);
    }
    /* the twin put right: collect goes on */
    write_prediction(HEAD NOISE ", " ONE("{\"replicas\": 10, \"flooded\": 3, \"p_flood\": 0.3, "
                                         "\"standin_share_q\": [0, 0.25, 0.5]}") TAIL);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert_eq(access(p, F_OK), 0);
}
