/* Tests of the page's section "The store goes down" and its timeline figure.
 *
 * The fixture's study predates the arms whose store fails, so the section
 * is checked twice: on the fixture as it is (every such arm not measured:
 * the figure still exists and says so in each panel, the text and the
 * table say "not measured"), and on a variant of it with made-up runs and
 * arm statistics of six of those arms (H3-none-down, H3-fb25-down,
 * H3-r2-down, H3-fb25-reset, H3-r2-missing, H3-fb25-missing) whose values
 * are chosen here, so that each printed sentence can be checked by hand.
 * In the variant H3-fb25-reset's round 1 is disturbed, so the only round
 * all four timeline arms share is round 2: every panel and every sentence
 * about a drawn run must be round 2 (round 1's runs carry other numbers).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

/* the HTML from the section's heading to the next h2 (free it) */
static char *section_of(const char *html)
{
    const char *a = strstr(html, "id=\"outage\""), *b = a ? strstr(a, "<h2") : NULL;
    cr_assert(a && b, "no section \"outage\"");
    return strndup(a, (size_t)(b - a));
}

/* ------------------------------------------------------------ the variant */

static json_t *stat3(double med, double lo, double hi)
{
    return json_pack("{s:f,s:f,s:f}", "median", med, "min", lo, "max", hi);
}

/* a made-up run of 3 s, window [1 s, 2 s) (none for missing); round 1's
 * numbers are round 2's plus 1000, so a sentence citing the wrong round
 * shows */
static json_t *run_of(const char *arm, int round, const char *fault, const int ps[3][5], const int during[4],
                      const int conn[4])
{
    int plus = round == 1 ? 1000 : 0;
    json_t *per = json_array();
    for (int s = 0; s < 3; s++)
        json_array_append_new(per, json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "s", s, "arrivals", ps[s][0] + plus,
                                             "lookups_sent", ps[s][1] + plus, "live", ps[s][2] + plus, "standins",
                                             ps[s][3] + plus, "errors", ps[s][4] + plus));
    json_t *r = json_pack("{s:s,s:i,s:s,s:b,s:[],s:o}", "arm", arm, "round", round, "fault", fault, "quiet", 1,
                          "quiet_rules", "per_second", per);
    int windowed = strcmp(fault, "missing") != 0;
    json_object_set_new(r, "win_from_ms", windowed ? json_real(1000) : json_null());
    json_object_set_new(r, "win_to_ms", windowed ? json_real(2000) : json_null());
    static const char *const dk[4] = {"during_requests", "during_errors", "during_standins", "during_lost"};
    static const char *const ck[4] = {"conn_lost", "conn_failed", "conn_regained", "reconnect_wait_over"};
    for (int k = 0; k < 4; k++) {
        json_object_set_new(r, dk[k], windowed ? json_integer(during[k] + plus) : json_null());
        json_object_set_new(r, ck[k], json_integer(conn[k] + plus));
    }
    return r;
}

static void with_outage(json_t *root)
{
    static const struct {
        const char *arm, *fault;
        int ps[3][5];     /* per second: arrivals, lookups_sent, live, standins, errors */
        int during[4];    /* requests, errors, stand-ins, lost in the window */
        int conn[4];      /* lost, failed, regained, wait over */
    } A[6] = {
        {"H3-none-down", "down", {{300, 300, 297, 0, 3}, {301, 301, 0, 0, 301}, {299, 299, 296, 0, 3}},
         {300, 299, 0, 1}, {0, 0, 0, 0}},
        {"H3-fb25-down", "down", {{300, 300, 297, 3, 0}, {301, 301, 0, 301, 0}, {299, 299, 296, 3, 0}},
         {301, 0, 298, 0}, {0, 0, 0, 0}},
        {"H3-r2-down", "down", {{300, 304, 298, 2, 0}, {302, 906, 0, 302, 0}, {299, 303, 297, 2, 0}},
         {302, 0, 297, 0}, {0, 0, 0, 0}},
        {"H3-fb25-reset", "reset", {{300, 300, 297, 3, 0}, {298, 298, 0, 298, 0}, {299, 299, 280, 19, 0}},
         {298, 0, 298, 0}, {4, 23, 4, 0}},
        {"H3-r2-missing", "missing", {{300, 303, 293, 7, 0}, {300, 303, 294, 6, 0}, {300, 304, 293, 7, 0}},
         {0, 0, 0, 0}, {0, 0, 0, 0}},
        {"H3-fb25-missing", "missing", {{300, 300, 291, 9, 0}, {300, 300, 291, 9, 0}, {300, 300, 292, 8, 0}},
         {0, 0, 0, 0}, {0, 0, 0, 0}},
    };
    json_t *runs = json_object_get(root, "runs"), *arms = json_object_get(root, "arms");
    /* the defences' arms whose store fails, which a remade fixture has, are not in this variant */
    static const char *const drop[] = {"H3-brk-down", "H3-pool-hang", "H3-bulk-hang"};
    for (int i = 0; i < 3; i++) json_object_del(arms, drop[i]);
    json_t *base = json_object_get(arms, "H3-fb25");
    cr_assert(base, "the fixture has H3-fb25");
    for (int i = 0; i < 6; i++) {
        for (int r = 1; r <= 2; r++) {
            char name[96];
            snprintf(name, sizeof name, "%s-r%d", A[i].arm, r);
            json_object_set_new(runs, name, run_of(A[i].arm, r, A[i].fault, A[i].ps, A[i].during, A[i].conn));
        }
        /* the other figures as H3-fb25's, the outage ones as below */
        json_t *a = json_deep_copy(base);
        int reset = !strcmp(A[i].arm, "H3-fb25-reset");
        json_object_set_new(a, "rounds", reset ? json_pack("[i]", 2) : json_pack("[i,i]", 1, 2));
        json_object_set_new(a, "rounds_disturbed", reset ? json_pack("[i]", 1) : json_array());
        json_object_set_new(a, "lost", stat3(0, 0, 0));
        json_object_set_new(a, "retried_permanent", stat3(0, 0, 0));
        json_object_set_new(a, "during_lookups_per_request", json_null());
        json_object_set_new(a, "first_live_after_ms", json_null());
        json_object_set_new(a, "recovered_s", json_null());
        json_object_set_new(arms, A[i].arm, a);
    }
    json_t *a;
    a = json_object_get(arms, "H3-r2-down");
    json_object_set_new(a, "during_lookups_per_request", stat3(2.985, 2.97, 3.0));
    json_object_set_new(a, "first_live_after_ms", stat3(0.9, 0.7, 1.1));
    json_object_set_new(a, "recovered_s", stat3(1, 1, 1));
    a = json_object_get(arms, "H3-fb25-down");
    json_object_set_new(a, "during_lookups_per_request", stat3(1, 1, 1));
    json_object_set_new(a, "first_live_after_ms", stat3(0.6, 0.5, 0.7));
    a = json_object_get(arms, "H3-fb25-reset");
    json_object_set_new(a, "first_live_after_ms", stat3(212, 212, 212));
    a = json_object_get(arms, "H3-none-down");
    json_object_set_new(a, "lost", stat3(1, 1, 1));
    a = json_object_get(arms, "H3-r2-missing");
    json_object_set_new(a, "lookups_per_request", stat3(1.012, 1.01, 1.014));
    json_object_set_new(a, "standin_share", stat3(0.021, 0.02, 0.022));
    a = json_object_get(arms, "H3-fb25-missing");
    json_object_set_new(a, "lookups_per_request", stat3(1, 1, 1));
    json_object_set_new(a, "standin_share", stat3(0.0295, 0.029, 0.03));
    json_array_append_new(json_object_get(root, "verdicts"),
                          json_pack("{s:s,s:s,s:s,s:s,s:[i,i],s:[f,f],s:s,s:s}", "a", "H3-r2-missing", "b",
                                    "H3-fb25-missing", "figure", "standin_share", "note", "made up", "rounds", 1, 2,
                                    "diffs", -0.009, -0.008, "verdict", "clearly different", "direction", "a<b"));
}

/* ------------------------------------------------------------ tests */

Test(outage, the_variant_s_numbers_by_hand, .timeout = 120)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, with_outage);
    char *d = rt_rendered_dir(in);
    char *html = rt_page(d, "report.html"), *sec = section_of(html), *plain = rt_plain(sec);
    /* the drawn runs: round 2, the only round H3-fb25-reset has quiet */
    const char *says[] = {
        "Without a limit or a stand-in (H3-none-down, round 2), 299 of 300 got an error and 1 no answer at all.",
        "With the 25 ms stand-in (H3-fb25-down, round 2), 298 of 301 got the stand-in and 0 no answer at all.",
        "With two retries at once and the stand-in (H3-r2-down, round 2), 297 of 302 got the stand-in",
        /* the arms' medians (lowest–highest round) */
        "2.985 (2.970\xe2\x80\x93" "3.000) with two retries at once (H3-r2-down)",
        "not measured with random pauses (H3-r2bj-down)",
        "against 1.000 (1.000\xe2\x80\x93" "1.000) for the plain stand-in (H3-fb25-down)",
        "the first live answer came 0.600 (0.500\xe2\x80\x93" "0.700) ms after the window's end with the stand-in "
        "and 0.900 (0.700\xe2\x80\x93" "1.10) ms with retries",
        "not answered live: \xe2\x80\x94 and 1 (1\xe2\x80\x93" "1)",
        "In the round drawn (H3-fb25-reset, round 2) it lost 4 connections, was refused 23 times and connected "
        "again 4 times, with 0 pauses outside the backoff's bounds.",
        "The first live answer came 212 (212\xe2\x80\x93" "212) ms after the window's end",
        /* retry only transient errors */
        "two retries (H3-r2-missing) sent 1.012 (1.010\xe2\x80\x93" "1.014) lookups per request against 1.000",
        "requests that tried again after a not found: 0 (0\xe2\x80\x93" "0).",
        "Stand-ins: 2.10% (2.00%\xe2\x80\x93" "2.20%) with retries against 2.95% (2.90%\xe2\x80\x93" "3.00%) "
        "without (the verdict over the rounds both have: clearly different, a<b)",
    };
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        cr_expect(strstr(plain, says[i]), "the section does not say: %s", says[i]);
    cr_expect(!strstr(sec, "/runs/H3-none-down-r1/") && !strstr(sec, "/runs/H3-fb25-reset-r1/"),
              "a sentence cites a round that is not drawn");

    /* every printed value of the page equals the variant */
    json_error_t e;
    json_t *root = json_load_file(in, 0, &e);
    cr_assert(root, "%s", e.text);
    const char *lo = strstr(html, sec);
    int in_sec;
    rt_expect_values(html, root, lo, lo ? lo + strlen(sec) : NULL, &in_sec);
    cr_expect_geq(in_sec, 80, "only %d values in the section", in_sec);

    /* the table: one row per arm whose store fails, the design's 14, the defences' 13 and the four of
     * correlated slowness; 6 measured */
    const char *t0 = strstr(sec, "<table class=\"outage\">"), *t1 = t0 ? strstr(t0, "</table>") : NULL;
    cr_assert(t0 && t1, "no table of the arms whose store fails");
    char *table = strndup(t0, (size_t)(t1 - t0));
    cr_expect_eq(rt_count(table, "<tr>") - 1, 31, "%d rows", rt_count(table, "<tr>") - 1);
    cr_expect_eq(rt_count(table, "not measured"), 25);
    cr_expect(strstr(table, "<th scope=\"row\">L3-hedge2-slowboth</th><th scope=\"row\">long tail, 300/s, ask a copy "
                            "after 10 ms; store and its copy slow together</th>"),
              "a slow arm's words name its scenario");
    cr_expect(strstr(table, "<th scope=\"row\">H3-r2-missing</th><th scope=\"row\">freezes, 300/s, 2 retries at "
                            "once, stand-in; missing rows</th>"),
              "the arm's words name its scenario");
    cr_expect(strstr(table, "data-src=\"/arms/H3-none-down/lost/max\" data-fmt=\"int\">1</span>"));
    free(table);

    /* the figure: four panels, round 2 each, the windows, the legend; the
     * breaker's panel (H3-brk-down, not in this variant: test_defences.c) */
    char *s = rt_check_svg(d, "outage"), *t = rt_svg_text(s);
    const char *heads[] = {"H3-none-down, round 2: freezes, 300/s, no limit; store down",
                           "H3-fb25-down, round 2: freezes, 300/s, 25 ms limit, stand-in; store down",
                           "H3-r2-down, round 2: freezes, 300/s, 2 retries at once, stand-in; store down",
                           "H3-fb25-reset, round 2: freezes, 300/s, 25 ms limit, stand-in; store resets",
                           "requests scheduled", "lookups tried", "live answers", "stand-ins",
                           "errors or no answer"};
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
        cr_expect(strstr(t, heads[i]), "the figure lacks \"%s\"", heads[i]);
    cr_expect_eq(rt_count(t, "store down"), 3 + 3 + 1, "three panels' heads and windows and the breaker's head say store down");
    cr_expect_eq(rt_count(t, "store closed, refusing"), 1);
    cr_expect_eq(rt_count(t, "not measured"), 1, "only the breaker's panel is not measured");
    cr_expect(strstr(t, "H3-brk-down: freezes, 300/s, breaker, 25 ms limit, stand-in; store down"));
    free(s);
    free(t);
    json_decref(root);
    free(plain);
    free(sec);
    free(html);
    rt_rmrf(d);
    free(d);
    free(in);
    rt_rmrf(w);
    free(w);
}

/* The fixture (report/tests/make_study.sh) measures six of the 14 arms whose
 * store fails, the four drawn among them, and (once remade with the
 * defences) H3-brk-down, H3-pool-hang and H3-bulk-hang: the timeline cites
 * runs, and the table's 27 rows say "not measured" exactly for the arms the
 * fixture lacks; the breaker's panel says "not measured" exactly when the
 * fixture lacks H3-brk-down. */
Test(outage, the_fixture_s_outage_arms_are_drawn_and_cited, .timeout = 120)
{
    char *d = rt_rendered_dir(FIXTURE);
    char *html = rt_page(d, "report.html"), *md = rt_page(d, "report.md");
    char *sec = section_of(html), *plain = rt_plain(sec);
    const char *absent[] = {"H3-none-down: not measured.", "H3-fb25-down: not measured.", "H3-r2-down: not measured.",
                            "H3-fb25-reset: not measured.", "two retries (H3-r2-missing) sent not measured"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        cr_expect(!strstr(plain, absent[i]), "the section says: %s", absent[i]);
    cr_expect(strstr(sec, "data-src=\"/runs/H3-r2-down-r"), "the drawn runs are cited");
    cr_expect(strstr(sec, "data-src=\"/runs/H3-fb25-reset-r"), "the reset run is cited");
    const char *t0 = strstr(sec, "<table class=\"outage\">"), *t1 = t0 ? strstr(t0, "</table>") : NULL;
    cr_assert(t0 && t1);
    char *table = strndup(t0, (size_t)(t1 - t0));
    cr_expect_eq(rt_count(table, "<tr>") - 1, 31, "%d rows", rt_count(table, "<tr>") - 1);
    json_error_t e;
    json_t *fx = json_load_file(FIXTURE, 0, &e);
    cr_assert(fx, "%s", e.text);
    json_t *fx_arms = json_object_get(fx, "arms");
    int rows = 0;
    for (const char *q = strstr(table, "<tr><th scope=\"row\">"); q; q = strstr(q + 1, "<tr><th scope=\"row\">")) {
        char arm[64];
        cr_assert_eq(sscanf(q, "<tr><th scope=\"row\">%63[^<]", arm), 1);
        const char *end = strstr(q + 1, "</tr>");
        char *row = strndup(q, (size_t)(end - q));
        cr_expect_eq(strstr(row, "not measured") != NULL, json_object_get(fx_arms, arm) == NULL,
                     "%s: \"not measured\" against the fixture", arm);
        free(row);
        rows++;
    }
    cr_expect_eq(rows, 31);
    free(table);
    char *s = rt_check_svg(d, "outage"), *t = rt_svg_text(s);
    cr_expect_eq(rt_count(t, "not measured"), json_object_get(fx_arms, "H3-brk-down") ? 0 : 1,
                 "every panel has its run, but the breaker's when the fixture lacks it");
    json_decref(fx);
    cr_expect(strstr(html, "<figure id=\"fig-outage\">"), "the page does not inline it");
    cr_expect(strstr(md, "](figures/outage.svg)"), "the Markdown does not link it");
    cr_expect(strstr(md, "## The store goes down"));
    free(s);
    free(t);
    free(plain);
    free(sec);
    free(html);
    free(md);
    rt_rmrf(d);
    free(d);
}
