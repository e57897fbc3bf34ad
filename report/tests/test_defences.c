/* Tests of the page's section "The defences" (src/defences.c), the
 * breaker's panel and band on the outage timeline (src/outage.c), and the
 * defences' arms in the arms table.
 *
 * The fixture predates the defences, so the section is checked twice: on
 * the fixture as it is (the new arms are not measured: every figure still
 * exists and says so, the sentences say "not measured", nothing crashes),
 * and on a variant with made-up runs, arm statistics and verdicts of the
 * new arms (with_defences, below), whose values are chosen here so that
 * each sentence can be checked by hand.  In the variant H4-r2's round 2
 * has the most stand-ins, so the 450/s figure and its sentence are round 2
 * (round 1's runs carry other numbers); H3-fb25-never, H3-brk-hang and
 * H3-hedge stay unmeasured, so a sentence must say "not measured" for them
 * in the middle of measured numbers.  H3-brk-down's round 1 (the timeline's
 * round) carries extra.runs.<run>.breaker, the band's source, with four
 * open and four half-open stretches; a second variant drops it, and the
 * panel must say that the breaker's changes were not exported.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

/* the HTML from the heading with id to the next h2 (free it) */
static char *section_of(const char *html, const char *id)
{
    char key[100];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *a = strstr(html, key), *b = a ? strstr(a, "<h2") : NULL;
    cr_assert(a && b, "no section \"%s\"", id);
    return strndup(a, (size_t)(b - a));
}

/* ------------------------------------------------------------ the variant */

static json_t *stat3(double med, double lo, double hi)
{
    return json_pack("{s:f,s:f,s:f}", "median", med, "min", lo, "max", hi);
}

/* set key to v in obj (v is stolen) */
static void put(json_t *obj, const char *key, json_t *v)
{
    cr_assert(obj, "no object for %s", key);
    json_object_set_new(obj, key, v);
}

/* a new arm: H3-fb25's statistics with rounds 1 and 2, returned for the
 * figures the test sets */
static json_t *new_arm(json_t *root, const char *arm)
{
    json_t *arms = json_object_get(root, "arms");
    json_t *a = json_deep_copy(json_object_get(arms, "H3-fb25"));
    cr_assert(a, "the fixture has H3-fb25");
    put(a, "rounds", json_pack("[i,i]", 1, 2));
    put(a, "rounds_disturbed", json_array());
    json_object_set_new(arms, arm, a);
    return a;
}

/* a new run of arm, a copy of the fixture's run `like` (its per-second
 * list and figures), returned for the figures the test sets */
static json_t *new_run(json_t *root, const char *arm, int round, const char *like)
{
    json_t *runs = json_object_get(root, "runs");
    json_t *r = json_deep_copy(json_object_get(runs, like));
    cr_assert(r, "the fixture has %s", like);
    put(r, "arm", json_string(arm));
    put(r, "round", json_integer(round));
    char name[96];
    snprintf(name, sizeof name, "%s-r%d", arm, round);
    json_object_set_new(runs, name, r);
    return r;
}

/* the study's verdict on a against b on fig, made up (replacing the
 * fixture's own, which a fixture remade with these arms has) */
static void verdict(json_t *root, const char *a, const char *b, const char *fig, double d1, double d2)
{
    int same = (d1 > 0) == (d2 > 0);
    json_t *vs = json_object_get(root, "verdicts");
    for (size_t i = json_array_size(vs); i-- > 0;) {
        json_t *v = json_array_get(vs, i);
        if (!strcmp(json_string_value(json_object_get(v, "a")), a) &&
            !strcmp(json_string_value(json_object_get(v, "b")), b) &&
            !strcmp(json_string_value(json_object_get(v, "figure")), fig))
            json_array_remove(vs, i);
    }
    json_array_append_new(vs, json_pack("{s:s,s:s,s:s,s:s,s:[i,i],s:[f,f],s:s,s:s?}", "a", a, "b", b, "figure", fig,
                                    "note", "made up", "rounds", 1, 2, "diffs", d1, d2, "verdict",
                                    same ? "clearly different" : "too close to call", "direction",
                                    same ? (d1 > 0 ? "a>b" : "a<b") : NULL));
}

/* the breaker of H3-brk-down round 1 (window 1000-2000 ms): four times open
 * (5 failures, then each probe fails while the store is down), closed after
 * the window; open 1000.0 ms, half open 1.9 ms, closed 1998.1 ms */
static json_t *breaker_changes(void)
{
    static const struct {
        double t;
        const char *s;
    } C[] = {{1005.0, "open"},      {1255.0, "half_open"}, {1255.4, "open"},      {1505.5, "half_open"},
             {1505.9, "open"},      {1756.0, "half_open"}, {1756.3, "open"},      {2006.1, "half_open"},
             {2006.9, "closed"}};
    json_t *l = json_array();
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++)
        json_array_append_new(l, json_pack("{s:f,s:s}", "t_ms", C[i].t, "state", C[i].s));
    return l;
}

static void with_breaker(json_t *root)
{
    /* the timeline's breaker panel: rounds 1 and 2 (round 2 + 1000 in its counts) */
    for (int r = 1; r <= 2; r++) {
        char like[64];
        snprintf(like, sizeof like, "H3-fb25-down-r%d", r);
        json_t *run = new_run(root, "H3-brk-down", r, like);
        int plus = r == 2 ? 1000 : 0;
        put(run, "during_standins", json_integer(301 + plus));
        put(run, "during_requests", json_integer(302 + plus));
        put(run, "during_lost", json_integer(0 + plus));
        put(run, "during_lookups", json_integer(16 + plus));
        put(json_object_get(run, "lookup_ends"), "O", json_integer(286 + plus));
        put(run, "brk_opened", json_integer(4 + plus));
        put(run, "brk_half_opened", json_integer(4 + plus));
        put(run, "brk_closed", json_integer(1 + plus));
        put(run, "brk_transitions", json_integer(9 + plus));
        put(run, "brk_open_ms", json_real(1000.0 + plus));
        put(run, "brk_half_ms", json_real(1.9 + plus));
        put(run, "brk_closed_ms", json_real(1998.1 + plus));
        put(run, "brk_illegal", json_integer(0 + plus));
    }
    put(json_object_get(json_object_get(root, "extra"), "runs"), "H3-brk-down-r1",
        json_pack("{s:o}", "breaker", breaker_changes()));
    json_t *a = new_arm(root, "H3-brk-down");
    put(a, "during_lookups_per_request", stat3(0.052, 0.05, 0.054));
    put(a, "first_live_after_ms", stat3(251.5, 250.2, 252.8));
    put(a, "recovered_s", stat3(1, 1, 1));
    put(a, "brk_opened", stat3(4, 4, 4));
    put(a, "brk_transitions", stat3(9, 9, 9));
    put(a, "brk_open_ms", stat3(1000, 1000, 1000));
    put(a, "brk_half_ms", stat3(1.9, 1.9, 1.9));
    put(a, "brk_closed_ms", stat3(1998.1, 1998.1, 1998.1));
    a = new_arm(root, "H3-brkr2-down");
    put(a, "during_lookups_per_request", stat3(0.081, 0.08, 0.082));
    a = new_arm(root, "H3-brkw-down");
    put(a, "during_lookups_per_request", stat3(0.061, 0.06, 0.062));
    a = new_arm(root, "H3-brk-never");
    put(a, "brk_opened", stat3(11, 10, 12));
    put(a, "brk_open_ms", stat3(2010, 2000, 2020));
    put(a, "brk_half_ms", stat3(12.5, 12, 13));
    put(a, "lookups_per_request", stat3(0.42, 0.41, 0.43));
    a = new_arm(root, "H3-brk-reset");
    put(a, "first_live_after_ms", stat3(640, 600, 680));
    a = new_arm(root, "H4-brkr2");
    put(a, "lookups_per_request", stat3(1.105, 1.1, 1.11));
    json_t *arms = json_object_get(root, "arms");
    a = json_object_get(arms, "H3-r2-down");
    put(a, "during_lookups_per_request", stat3(2.985, 2.97, 3.0));
    a = json_object_get(arms, "H3-fb25-down");
    put(a, "during_lookups_per_request", stat3(1, 1, 1));
    put(a, "first_live_after_ms", stat3(0.6, 0.5, 0.7));
    put(a, "recovered_s", stat3(0, 0, 0));
    put(json_object_get(arms, "H4-r2"), "lookups_per_request", stat3(1.52, 1.015, 2.025));
    verdict(root, "H3-brk-down", "H3-r2-down", "during_lookups_per_request", -2.95, -2.96);
    verdict(root, "H3-brk-down", "H3-fb25-down", "first_live_after_ms", 249.6, 252.3);
}

static void with_storm(json_t *root)
{
    static const struct {
        const char *arm;
        int v[10];
        double before, max[3], before_arm[3], p99[3];
    } S[3] = {
        {"H3-r4x-down", {41, 33, 30, 29, 31, 30, 30, 28, 31, 30}, 30.26, {41, 40, 42}, {30.26, 30.1, 30.4},
         {131, 130, 132}},
        {"H3-r4xf-down", {36, 31, 30, 30, 29, 31, 30, 30, 29, 30}, 30.4, {35.5, 35, 36}, {30.3, 30.2, 30.4},
         {95.5, 95, 96}},
        {"H3-r4xe-down", {38, 32, 30, 30, 30, 30, 31, 29, 30, 30}, 29.8, {38, 38, 38}, {29.9, 29.8, 30},
         {112, 111, 113}},
    };
    for (int i = 0; i < 3; i++) {
        for (int r = 1; r <= 2; r++) {
            char like[64];
            snprintf(like, sizeof like, "H3-r2-down-r%d", r);
            json_t *run = new_run(root, S[i].arm, r, like);
            int plus = r == 2 ? 1000 : 0, mx = 0;
            json_t *l = json_array();
            for (int k = 0; k < 10; k++) {
                json_array_append_new(l, json_integer(S[i].v[k] + plus));
                mx = S[i].v[k] > mx ? S[i].v[k] : mx;
            }
            put(run, "recovery_lookups_100ms", l);
            put(run, "recovery_lookups_100ms_max", json_integer(mx + plus));
            put(run, "before_lookups_100ms", json_real(S[i].before + plus));
        }
        json_t *a = new_arm(root, S[i].arm);
        put(a, "recovery_lookups_100ms_max", stat3(S[i].max[0], S[i].max[1], S[i].max[2]));
        put(a, "before_lookups_100ms", stat3(S[i].before_arm[0], S[i].before_arm[1], S[i].before_arm[2]));
        put(a, "p99_ms", stat3(S[i].p99[0], S[i].p99[1], S[i].p99[2]));
    }
    put(json_object_get(json_object_get(root, "arms"), "H3-r2-down"), "p99_ms", stat3(20.2, 15, 25.4));
    json_t *a = new_arm(root, "H4-r4xf");
    put(a, "lookups_per_request", stat3(1.311, 1.3, 1.322));
    verdict(root, "H3-r4xf-down", "H3-r4x-down", "recovery_lookups_100ms_max", -5, -6);
}

static void with_450(json_t *root)
{
    static const struct {
        const char *arm;
        double share, lpr;   /* round 2's; round 1 has other numbers */
        int standins[3];     /* round 2's per second */
    } R[5] = {
        {"H4-r2", 0.31, 1.62, {40, 160, 220}},
        {"H4-r2bud", 0.045, 1.098, {20, 22, 19}},
        {"H4-r2dl", 0.12, 1.41, {30, 60, 71}},
        {"H4-hedge", 0.008, 1.062, {3, 4, 4}},
        {"H4-fb25", 0.03, 1.0, {14, 13, 13}},
    };
    for (int i = 0; i < 5; i++)
        for (int r = 1; r <= 2; r++) {
            char like[64];
            snprintf(like, sizeof like, "H4-r2-r%d", r);
            json_t *run = i ? new_run(root, R[i].arm, r, like) : json_object_get(json_object_get(root, "runs"), like);
            put(run, "standin_share", json_real(r == 2 ? R[i].share : 0.05));
            put(run, "lookups_per_request", json_real(r == 2 ? R[i].lpr : 1.001));
            json_t *ps = json_object_get(run, "per_second");
            for (size_t s = 0; s < json_array_size(ps) && s < 3; s++)
                put(json_array_get(ps, s), "standins", json_integer(r == 2 ? R[i].standins[s] : 1));
            if (i == 1) {
                put(run, "budget_refused", json_integer(r == 2 ? 812 : 5));
                put(run, "budget_over", json_integer(0));
            }
        }
    json_t *a = new_arm(root, "H4-r2bud");
    put(a, "standin_share", stat3(0.04, 0.035, 0.045));
    put(a, "lookups_per_request", stat3(1.095, 1.092, 1.098));
    put(a, "budget_refused", stat3(800, 788, 812));
    a = new_arm(root, "H4-r2dl");
    put(a, "standin_share", stat3(0.1, 0.08, 0.12));
    put(a, "lookups_per_request", stat3(1.4, 1.39, 1.41));
    a = new_arm(root, "H4-hedge");
    put(a, "standin_share", stat3(0.0075, 0.007, 0.008));
    put(a, "lookups_per_request", stat3(1.06, 1.058, 1.062));
    put(a, "p99_ms", stat3(24.4, 24.1, 24.7));
    a = new_arm(root, "H4-fb25");
    put(a, "standin_share", stat3(0.03, 0.03, 0.03));
    put(a, "lookups_per_request", stat3(1, 1, 1));
    put(a, "p99_ms", stat3(25.6, 25.5, 25.7));
    a = json_object_get(json_object_get(root, "arms"), "H4-r2");
    put(a, "standin_share", stat3(0.18, 0.05, 0.31));
    a = new_arm(root, "H3-r2bud-down");
    put(a, "during_lookups_per_request", stat3(1.15, 1.14, 1.16));
    verdict(root, "H4-r2bud", "H4-r2", "lookups_per_request", -0.1, -0.5);
}

static void with_bulkhead(json_t *root)
{
    static const struct {
        const char *arm;
        int s1req, s2req, refused;
        double s1live, s1p99, s2live, s2p99, s2p99all;
    } B[2] = {
        {"H3-pool-hang", 150, 149, 5100, 0.0, 250.3, 0.2, 3.0, 4.2},
        {"H3-bulk-hang", 151, 148, 2300, 0.0, 250.4, 0.98, 2.8, 3.3},
    };
    for (int i = 0; i < 2; i++) {
        for (int r = 1; r <= 2; r++) {
            char like[64];
            snprintf(like, sizeof like, "H3-fb25-down-r%d", r);
            json_t *run = new_run(root, B[i].arm, r, like);
            int plus = r == 2 ? 1000 : 0;
            put(run, "store1_during_requests", json_integer(B[i].s1req + plus));
            put(run, "store1_during_live_share", json_real(B[i].s1live));
            put(run, "store1_during_p99_ms", json_real(B[i].s1p99 + plus));
            put(run, "store2_during_requests", json_integer(B[i].s2req + plus));
            put(run, "store2_during_live_share", json_real(B[i].s2live + (r == 2 ? 0.01 : 0)));
            put(run, "store2_during_p99_ms", json_real(B[i].s2p99 + (r == 2 ? 0.2 : 0)));
            put(run, "store2_p99_ms", json_real(B[i].s2p99all));
            /* round 1 leaves inflight_refused null: the table says not measured */
            put(run, "inflight_refused", r == 2 ? json_integer(B[i].refused) : json_null());
        }
    }
    json_t *a = new_arm(root, "H3-pool-hang");
    put(a, "store1_during_live_share", stat3(0, 0, 0));
    put(a, "store2_during_live_share", stat3(0.21, 0.2, 0.22));
    put(a, "store2_during_p99_ms", stat3(3.1, 3.0, 3.2));
    put(a, "store2_p99_ms", stat3(4.2, 4.2, 4.2));
    put(a, "inflight_refused", stat3(5100, 5100, 5100));
    a = new_arm(root, "H3-bulk-hang");
    put(a, "store1_during_live_share", stat3(0, 0, 0));
    put(a, "store2_during_live_share", stat3(0.985, 0.98, 0.99));
    put(a, "store2_during_p99_ms", stat3(2.9, 2.8, 3.0));
    put(a, "store2_p99_ms", stat3(3.3, 3.3, 3.3));
    put(a, "inflight_refused", stat3(2300, 2300, 2300));
    verdict(root, "H3-bulk-hang", "H3-pool-hang", "store2_during_live_share", 0.78, 0.77);
}

static void with_hedge(json_t *root)
{
    json_t *arms = json_object_get(root, "arms");
    json_t *a = new_arm(root, "L3-ahedge");
    put(a, "p99_ms", stat3(11.2, 11.0, 11.4));
    put(a, "lookups_per_request", stat3(1.081, 1.08, 1.082));
    a = json_object_get(arms, "L3-hedge");
    put(a, "p99_ms", stat3(12.9, 12.5, 13.3));
    put(a, "lookups_per_request", stat3(1.053, 1.052, 1.054));
    a = new_arm(root, "H3-ahedge");
    put(a, "p99_ms", stat3(22.2, 22.0, 22.4));
    a = new_arm(root, "H3-t23");
    put(a, "p99_ms", stat3(23.4, 23.3, 23.5));
    put(a, "error_share", stat3(0.0152, 0.015, 0.0154));
    a = json_object_get(arms, "H3-dl");
    put(a, "p99_ms", stat3(23.1, 23.0, 23.2));
    put(a, "standin_share", stat3(0.0151, 0.015, 0.0152));
    verdict(root, "H3-t23", "H3-dl", "p99_ms", 0.3, -0.1);
}

/* The defences' verdicts are the variant's alone: a fixture remade with
 * some of these arms has verdicts of its own on comparisons the variant
 * does not make up. */
static void drop_defence_verdicts(json_t *root)
{
    static const char *const arms[] = {"H3-brk-down",  "H3-brk-hang",   "H3-brk-reset",  "H3-brk-never",
                                       "H3-brkw-down", "H3-brkr2-down", "H3-brkr2-hang", "H4-brkr2",
                                       "H3-r4x-down",  "H3-r4xf-down",  "H3-r4xe-down",  "H4-r4xf",
                                       "H3-pool-hang", "H3-bulk-hang",  "H3-r2bud-down", "H4-r2bud",
                                       "H4-r2dl",      "H3-t23",        "H4-hedge",      "L3-ahedge",
                                       "H3-ahedge"};
    json_t *vs = json_object_get(root, "verdicts");
    for (size_t i = json_array_size(vs); i-- > 0;) {
        const char *a = json_string_value(json_object_get(json_array_get(vs, i), "a"));
        for (size_t k = 0; a && k < sizeof arms / sizeof arms[0]; k++)
            if (!strcmp(a, arms[k])) {
                json_array_remove(vs, i);
                break;
            }
    }
}

static void with_defences(json_t *root)
{
    drop_defence_verdicts(root);
    with_breaker(root);
    with_storm(root);
    with_450(root);
    with_bulkhead(root);
    with_hedge(root);
}

static void with_defences_no_band(json_t *root)
{
    with_defences(root);
    json_object_del(json_object_get(json_object_get(root, "extra"), "runs"), "H3-brk-down-r1");
}

/* ------------------------------------------------------------ tests */

#define EN "\xe2\x80\x93"

Test(defences, the_variant_s_sentences_by_hand, .timeout = 120)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, with_defences);
    char *d = rt_rendered_dir(in);
    char *html = rt_page(d, "report.html"), *sec = section_of(html, "defences"), *plain = rt_plain(sec);
    const char *says[] = {
        /* the breaker */
        "round): the breaker in front of the 25 ms stand-in (H3-brk-down) 0.052 (0.050" EN "0.054); in front of two "
        "retries (H3-brkr2-down) 0.081 (0.080" EN "0.082); opening on a failure share of the last 20 results "
        "instead of five failures in a row (H3-brkw-down) 0.061 (0.060" EN "0.062); two retries without it "
        "(H3-r2-down) 2.985 (2.970" EN "3.000); the plain stand-in (H3-fb25-down) 1.000 (1.000" EN "1.000). The "
        "study's verdicts, over the rounds both arms have: H3-brk-down against H3-r2-down on "
        "during_lookups_per_request: clearly different, a<b.",
        "The first live answer after the window's end: with the breaker (H3-brk-down) 252 (250" EN "253) ms; with "
        "the plain stand-in (H3-fb25-down) 0.600 (0.500" EN "0.700) ms. Whole seconds after it until under 1 in 100 "
        "requests were not live: with the breaker (H3-brk-down) 1 (1" EN "1); with the plain stand-in "
        "(H3-fb25-down) 0 (0" EN "0).",
        "the first live answer: with the breaker (H3-brk-reset) 640 (600" EN "680) ms;",
        "H3-brk-down against H3-fb25-down on first_live_after_ms: clearly different, a>b.",
        "A store that never comes back (H3-brk-never), median over rounds: the breaker opened 11 (10" EN "12) "
        "times, was open 2,010 (2,000" EN "2,020) ms and half open 12.5 (12.0" EN "13.0) ms; lookups per request "
        "0.420 (0.410" EN "0.430), against not measured for the plain stand-in (H3-fb25-never).",
        "the slowest 1 in 100: with the breaker (H3-brk-hang) not measured;",
        "lookups per request: the breaker in front of two retries (H4-brkr2) 1.105 (1.100" EN "1.110); two retries "
        "without it (H4-r2) 1.520 (1.015" EN "2.025).",
        /* capped backoff: round 1 is drawn (the lowest the three share) */
        "In the rounds drawn, the busiest 100 ms after the window against the mean 100 ms before it: no jitter "
        "(H3-r4x-down, round 1) 41 against 30.3; full jitter (H3-r4xf-down, round 1) 36 against 30.4; equal "
        "jitter (H3-r4xe-down, round 1) 38 against 29.8.",
        "the busiest 100 ms after the window: no jitter (H3-r4x-down) 41 (40" EN "42); full jitter (H3-r4xf-down) "
        "35.5 (35" EN "36); equal jitter (H3-r4xe-down) 38 (38" EN "38);",
        "the slowest 1 in 100: no jitter (H3-r4x-down) 131 (130" EN "132) ms; full jitter (H3-r4xf-down) 95.5 "
        "(95.0" EN "96.0) ms; two retries at once (H3-r2-down) 20.2 (15.0" EN "25.4) ms.",
        "At 450/s, lookups per request: full jitter (H4-r4xf) 1.311 (1.300" EN "1.322);",
        "H3-r4xf-down against H3-r4x-down on recovery_lookups_100ms_max: clearly different, a<b.",
        /* 450/s: round 2, where H4-r2 had the most stand-ins */
        "In round 2 (the round the arms share in which two retries gave the most stand-ins), stand-ins and "
        "lookups per request: two retries at once (H4-r2) 31.0% and 1.620; under a retry budget (H4-r2bud) "
        "4.50% and 1.098, with 812 retries refused by the budget and 0 let through over it; deadline passed "
        "down (H4-r2dl) 12.0% and 1.410; asking twice (H4-hedge) 0.800% and 1.062.",
        "stand-ins: two retries at once (H4-r2) 18.0% (5.00%" EN "31.0%); under the budget (H4-r2bud) 4.00% "
        "(3.50%" EN "4.50%); with the deadline passed down (H4-r2dl) 10.0% (8.00%" EN "12.0%); asking twice "
        "(H4-hedge) 0.750% (0.700%" EN "0.800%); one try (H4-fb25) 3.00% (3.00%" EN "3.00%).",
        "Lookups per request: two retries at once (H4-r2) 1.520 (1.015" EN "2.025); under the budget (H4-r2bud) "
        "1.095 (1.092" EN "1.098); with the deadline passed down (H4-r2dl) 1.400 (1.390" EN "1.410); asking twice "
        "(H4-hedge) 1.060 (1.058" EN "1.062); one try (H4-fb25) 1.000 (1.000" EN "1.000).",
        "Retries the budget refused, per round: 800 (788" EN "812).",
        "The slowest 1 in 100: asking twice (H4-hedge) 24.4 (24.1" EN "24.7) ms; one try (H4-fb25) 25.6 (25.5" EN
        "25.7) ms.",
        "in the window: under the budget (H3-r2bud-down) 1.150 (1.140" EN "1.160);",
        "H4-r2bud against H4-r2 on lookups_per_request: clearly different, a<b.",
        /* the bulkhead */
        "answered live: without the bulkhead (H3-pool-hang) 21.0% (20.0%" EN "22.0%); with it (H3-bulk-hang) 98.5% "
        "(98.0%" EN "99.0%); their slowest 1 in 100: without the bulkhead (H3-pool-hang) 3.10 (3.00" EN "3.20) ms; "
        "with it (H3-bulk-hang) 2.90 (2.80" EN "3.00) ms; over the whole run: without the bulkhead (H3-pool-hang) "
        "4.20 (4.20" EN "4.20) ms; with it (H3-bulk-hang) 3.30 (3.30" EN "3.30) ms.",
        "Lookups refused by a full compartment: without the bulkhead (H3-pool-hang) 5,100 (5,100" EN "5,100); with "
        "it (H3-bulk-hang) 2,300 (2,300" EN "2,300).",
        "H3-bulk-hang against H3-pool-hang on store2_during_live_share: clearly different, a>b.",
        /* hedges and H3-t23 */
        "The slowest 1 in 100 on the long tail: adaptive (L3-ahedge) 11.2 (11.0" EN "11.4) ms; fixed (L3-hedge) "
        "12.9 (12.5" EN "13.3) ms; lookups per request: adaptive (L3-ahedge) 1.081 (1.080" EN "1.082); fixed "
        "(L3-hedge) 1.053 (1.052" EN "1.054).",
        "With freezes, the slowest 1 in 100: adaptive (H3-ahedge) 22.2 (22.0" EN "22.4) ms; fixed (H3-hedge) not "
        "measured.",
        "A plain 23 ms limit with an error (H3-t23): the slowest 1 in 100 23.4 (23.3" EN "23.5) ms, errors 1.52% "
        "(1.50%" EN "1.54%). The deadline with the stand-in (H3-dl): 23.1 (23.0" EN "23.2) ms, stand-ins 1.51% "
        "(1.50%" EN "1.52%). The study's verdicts, over the rounds both arms have: H3-t23 against H3-dl on p99_ms: "
        "too close to call.",
    };
    int shown = 0;
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++) {
        cr_expect(strstr(plain, says[i]), "the section does not say: %s", says[i]);
        if (!strstr(plain, says[i]) && !shown++) cr_log_warn("the section says:\n%s", plain);
    }
    cr_expect(!strstr(sec, "/runs/H4-r2-r1/") && !strstr(sec, "/runs/H4-r2bud-r1/"),
              "a 450/s sentence cites a round that is not drawn");

    /* the tables: the breaker arms (8 rows, 2 not measured), the bulkhead's runs */
    const char *t0 = strstr(sec, "<table class=\"breakers\">"), *t1 = t0 ? strstr(t0, "</table>") : NULL;
    cr_assert(t0 && t1, "no table of the breaker arms");
    char *table = strndup(t0, (size_t)(t1 - t0));
    cr_expect_eq(rt_count(table, "<tr>") - 1, 8);
    cr_expect_eq(rt_count(table, "colspan=\"8\" class=\"l\"><span class=\"nm\">not measured"), 2,
                 "H3-brk-hang and H3-brkr2-hang are not measured");
    cr_expect(strstr(table, "data-src=\"/arms/H3-brk-down/brk_half_ms/median\" data-fmt=\"ms\">1.90</span>"));
    free(table);
    t0 = strstr(sec, "<table class=\"bulkhead\">");
    t1 = t0 ? strstr(t0, "</table>") : NULL;
    cr_assert(t0 && t1, "no table of the bulkhead's runs");
    table = strndup(t0, (size_t)(t1 - t0));
    cr_expect_eq(rt_count(table, "<tr>") - 1, 4, "two rounds of each arm");
    cr_expect(strstr(table, "data-src=\"/runs/H3-bulk-hang-r2/store1_during_p99_ms\" data-fmt=\"ms\">1,250</span>"));
    cr_expect(strstr(table, "data-src=\"/runs/H3-pool-hang-r2/inflight_refused\" data-fmt=\"int\">5,100</span>"));
    cr_expect_eq(rt_count(table, "not measured"), 2, "round 1's null inflight_refused, each arm");
    free(table);

    /* the breaker's sentence in "The store goes down": round 1, the timeline's */
    char *out = section_of(html, "outage"), *oplain = rt_plain(out);
    const char *o = "In the round drawn (H3-brk-down, round 1) 301 of 302 requests in the window got the stand-in "
                    "and 0 no answer at all; it sent 16 lookups in the window and refused 286 in the whole run. It "
                    "opened 4 times, went half open 4 times and closed 1 times; it was open 1,000 ms, half open "
                    "1.90 ms and closed 1,998 ms of the run, with 0 changes its state machine does not allow.";
    cr_expect(strstr(oplain, o), "the outage section does not say: %s", o);
    cr_expect(!strstr(oplain, "not export"), "the band's source is there");

    /* every printed value of the page equals the variant */
    json_error_t e;
    json_t *root = json_load_file(in, 0, &e);
    cr_assert(root, "%s", e.text);
    rt_expect_values(html, root, NULL, NULL, NULL);

    /* the figures */
    char *s = rt_check_svg(d, "outage"), *t = rt_svg_text(s);
    cr_expect(strstr(t, "H3-brk-down, round 1: freezes, 300/s, breaker, 25 ms limit, stand-in; store down"));
    cr_expect(!strstr(t, "not exported") && !strstr(t, "not measured"));
    /* the band: four open and four half-open stretches, plus each colour's legend square */
    cr_expect_eq(rt_count(s, "fill=\"#E6851E\""), 4 + 1, "open stretches");
    cr_expect_eq(rt_count(s, "fill=\"#E377C2\""), 4 + 1, "half-open stretches");
    free(s);
    free(t);
    s = rt_check_svg(d, "retry450");
    t = rt_svg_text(s);
    cr_expect(strstr(t, "round 2, every arm"));
    cr_expect(strstr(t, "H4-r2bud: under a retry budget") && strstr(t, "H4-hedge: asking twice"));
    cr_expect(!strstr(t, "not measured"));
    free(s);
    free(t);
    s = rt_check_svg(d, "storm");
    t = rt_svg_text(s);
    cr_expect(strstr(t, "round 1") && strstr(t, "H3-r4xe-down: equal jitter") && !strstr(t, "not measured"));
    free(s);
    free(t);
    s = rt_check_svg(d, "bulkhead");
    t = rt_svg_text(s);
    /* the bars' labels: the medians */
    cr_expect(strstr(t, "98.5%") && strstr(t, "21.0%") && strstr(t, "2.90") && strstr(t, "4.20"));
    cr_expect(!strstr(t, "not measured"));
    free(s);
    free(t);

    /* the arms table: the new arms in the lab's order, measured or not */
    const char *order[] = {"H3-brk-down", "H3-brk-hang", "H3-brk-reset", "H3-brk-never", "H3-brkw-down",
                           "H3-brkr2-down", "H3-brkr2-hang", "H4-brkr2", "H3-r4x-down", "H3-r4xf-down",
                           "H3-r4xe-down", "H4-r4xf", "H3-pool-hang", "H3-bulk-hang", "H3-r2bud-down",
                           "H4-r2bud", "H4-r2dl", "H3-t23", "H4-hedge", "L3-ahedge", "H3-ahedge"};
    const char *arms_sec = strstr(html, "id=\"arms-time\""), *prev = arms_sec;
    cr_assert(arms_sec);
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        char th[120];
        snprintf(th, sizeof th, "<th scope=\"row\">%s</th>", order[i]);
        const char *q = strstr(prev, th);
        cr_expect(q, "%s is not in the arms table, or out of order", order[i]);
        if (q) prev = q;
    }
    cr_expect(strstr(arms_sec, "<th scope=\"row\">H4-r2dl</th><th scope=\"row\">freezes, 450/s, 2 retries, "
                               "deadline passed down</th>"));
    cr_expect(strstr(arms_sec, "<th scope=\"row\">H3-r4xf-down</th><th scope=\"row\">freezes, 300/s, 4 retries, "
                               "capped pauses, full jitter; store down</th>"));

    json_decref(root);
    free(oplain);
    free(out);
    free(plain);
    free(sec);
    free(html);
    rt_rmrf(d);
    free(d);
    free(in);
    rt_rmrf(w);
    free(w);
}

Test(defences, without_the_breaker_s_changes_the_panel_says_so, .timeout = 120)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, with_defences_no_band);
    char *d = rt_rendered_dir(in);
    char *s = rt_check_svg(d, "outage"), *t = rt_svg_text(s);
    cr_expect_eq(rt_count(t, "breaker changes not exported"), 1);
    cr_expect_eq(rt_count(s, "fill=\"#E6851E\""), 1, "only the legend's square is orange");
    char *html = rt_page(d, "report.html"), *out = section_of(html, "outage"), *plain = rt_plain(out);
    cr_expect(strstr(plain, "The verifier does not export its changes one by one (extra.runs.<run>.breaker)"));
    cr_expect(strstr(plain, "It opened 4 times"), "the verified totals are still printed");
    free(plain);
    free(out);
    free(html);
    free(s);
    free(t);
    rt_rmrf(d);
    free(d);
    free(in);
    rt_rmrf(w);
    free(w);
}

/* The fixture has none of the new arms but H4-r2 (and once remade with
 * report/tests/make_study.sh, H3-brk-down, H3-pool-hang, H3-bulk-hang,
 * H4-r2bud, H4-r2dl and H4-hedge): the page renders, every figure exists,
 * and each absent arm is "not measured" in the sentences and figures. */
Test(defences, the_fixture_renders_and_says_not_measured, .timeout = 120)
{
    char *d = rt_rendered_dir(FIXTURE);
    json_error_t e;
    json_t *fx = json_load_file(FIXTURE, 0, &e);
    cr_assert(fx, "%s", e.text);
    json_t *arms = json_object_get(fx, "arms");
    char *html = rt_page(d, "report.html"), *md = rt_page(d, "report.md");
    char *sec = section_of(html, "defences"), *plain = rt_plain(sec);
    cr_expect(strstr(md, "## The defences"));
    static const char *const figs[] = {"storm", "retry450", "bulkhead"};
    for (int i = 0; i < 3; i++) {
        char link[80];
        snprintf(link, sizeof link, "](figures/%s.svg)", figs[i]);
        cr_expect(strstr(md, link), "the Markdown does not link %s", figs[i]);
        free(rt_check_svg(d, figs[i]));
    }
    /* arms no study of this fixture measures */
    const char *nm[] = {"in front of two retries (H3-brkr2-down) not measured;",
                        "no jitter (H3-r4x-down) not measured;",
                        "the long tail: adaptive (L3-ahedge) not measured;",
                        "A plain 23 ms limit with an error (H3-t23): the slowest 1 in 100 not measured, errors not "
                        "measured."};
    for (size_t i = 0; i < sizeof nm / sizeof nm[0]; i++)
        cr_expect(strstr(plain, nm[i]), "the section does not say: %s", nm[i]);
    char *s = rt_check_svg(d, "storm"), *t = rt_svg_text(s);
    cr_expect(strstr(t, "capped backoff with the store down: not measured"));
    free(s);
    free(t);
    s = rt_check_svg(d, "bulkhead");
    t = rt_svg_text(s);
    int bulk_absent = !json_object_get(arms, "H3-pool-hang") + !json_object_get(arms, "H3-bulk-hang");
    cr_expect_eq(rt_count(t, "not measured"), 2 * bulk_absent, "bulkhead.svg: one \"not measured\" per absent arm and panel");
    free(s);
    free(t);
    s = rt_check_svg(d, "retry450");
    t = rt_svg_text(s);
    static const char *const r450[] = {"H4-r2bud", "H4-r2dl", "H4-hedge"};
    for (int i = 0; i < 3; i++) {
        char want[80];
        snprintf(want, sizeof want, "%s: not measured", r450[i]);
        cr_expect_eq(strstr(t, want) != NULL, json_object_get(arms, r450[i]) == NULL, "retry450.svg: %s", r450[i]);
    }
    free(s);
    free(t);
    json_decref(fx);
    free(plain);
    free(sec);
    free(html);
    free(md);
    rt_rmrf(d);
    free(d);
}
