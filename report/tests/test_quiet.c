/* Tests of the page's "Quiet runs" section and the disturbed-run figures.
 *
 * The fixture's study had one run disturbed on purpose (tests/make_study.sh):
 * H3-t25-r2's tester was stopped for 100 ms, so its lateness broke both
 * lateness rules of the study's quiet file (p99 limit 20 ms, maximum 40 ms);
 * the other 15 runs were quiet.  The tests check the section against that
 * hand-known case and against runs.*.quiet and runs.*.quiet_rules (the
 * per-run judgement, a different part of verified.json from the list the
 * section prints); then variants of the fixture: every run quiet, a
 * foreign_share series (a third panel), and more disturbed runs than
 * figures drawn.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

/* the figures named disturbed-*.svg in dir/figures */
static int disturbed_figs(const char *dir)
{
    char p[700];
    snprintf(p, sizeof p, "%s/figures", dir);
    DIR *d = opendir(p);
    cr_assert(d, "no %s", p);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "disturbed-", 10)) n++;
    closedir(d);
    return n;
}

/* the HTML of the table of class cls, "" when none (free it) */
static char *table_of(const char *html, const char *cls)
{
    char open[80];
    snprintf(open, sizeof open, "<table class=\"%s\">", cls);
    const char *a = strstr(html, open), *b = a ? strstr(a, "</table>") : NULL;
    return a && b ? strndup(a, (size_t)(b - a)) : strdup("");
}

static json_t *fixture(void)
{
    json_error_t e;
    json_t *r = json_load_file(FIXTURE, 0, &e);
    cr_assert(r, "%s", e.text);
    return r;
}

/* the index of rule name in extra.quiet.rules, or -1 */
static int rule_index(json_t *root, const char *name)
{
    json_t *rules = json_object_get(json_object_get(json_object_get(root, "extra"), "quiet"), "rules");
    for (size_t k = 0; k < json_array_size(rules); k++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(rules, k), "rule")), name)) return (int)k;
    return -1;
}

Test(quiet, the_section_lists_exactly_the_disturbed_runs_with_their_rules, .timeout = 120)
{
    char *d = rt_rendered_dir(FIXTURE);
    char *html = rt_page(d, "report.html"), *md = rt_page(d, "report.md");
    json_t *root = fixture();

    /* the reference: the runs judged not quiet, with their rules */
    const char *run;
    json_t *e;
    char want[16][96];
    json_t *want_rules[16];
    int nw = 0;
    json_object_foreach(json_object_get(root, "runs"), run, e)
    {
        if (json_is_true(json_object_get(e, "quiet"))) continue;
        cr_assert(nw < 16);
        snprintf(want[nw], sizeof want[nw], "%s", run);
        want_rules[nw++] = json_object_get(e, "quiet_rules");
    }
    /* and by hand: the run stopped on purpose, and only it */
    cr_assert_eq(nw, 1, "%d runs not quiet in the fixture", nw);
    cr_assert_str_eq(want[0], "H3-t25-r2");
    cr_assert_eq(json_array_size(want_rules[0]), 2);
    cr_assert_str_eq(json_string_value(json_array_get(want_rules[0], 0)), "late_p99_max_ms");
    cr_assert_str_eq(json_string_value(json_array_get(want_rules[0], 1)), "late_max_max_ms");
    json_t *lm = json_object_get(json_object_get(json_object_get(root, "runs"), "H3-t25-r2"), "late_max_us");
    cr_assert_geq(json_number_value(lm), 90000, "a 100 ms stop shows in the largest lateness");

    /* the table of disturbed runs: one row per run, its rules as printed */
    char *t = table_of(html, "disturbed");
    int rows = 0;
    for (const char *q = strstr(t, "<th scope=\"row\">"); q; q = strstr(q + 1, "<th scope=\"row\">")) {
        char name[96];
        cr_assert_eq(sscanf(q, "<th scope=\"row\">%95[^<]", name), 1);
        int k = 0;
        while (k < nw && strcmp(want[k], name)) k++;
        cr_expect(k < nw, "%s is listed as disturbed but its run is quiet", name);
        rows++;
        if (k == nw) continue;
        const char *end = strstr(q, "</tr>");
        size_t nr = 0;
        for (const char *s = strstr(q, "<span data-src=\"/extra/quiet/disturbed/"); s && s < end;
             s = strstr(s + 1, "<span data-src=\"/extra/quiet/disturbed/")) {
            size_t i, r;
            if (sscanf(s, "<span data-src=\"/extra/quiet/disturbed/%zu/rules/%zu\"", &i, &r) != 2) continue;
            const char *t0 = strchr(s, '>') + 1, *t1 = strstr(t0, "</span>");
            char text[128];
            snprintf(text, sizeof text, "%.*s", (int)(t1 - t0), t0);
            cr_expect_eq(r, nr, "%s: rule %zu printed as number %zu", name, nr, r);
            cr_expect_str_eq(text, json_string_value(json_array_get(want_rules[k], nr)), "%s: rule %zu", name, nr);
            nr++;
        }
        cr_expect_eq(nr, json_array_size(want_rules[k]), "%s: %zu rules printed", name, nr);
        /* in words, with the run's figure and the rule's limit */
        char plain[4096], row[8192];
        snprintf(row, sizeof row, "%.*s", (int)(end - q), q);
        rt_unhtml(q, (size_t)(end - q), plain, sizeof plain);
        static const char *const words[][3] = {
            {"late_p99_max_ms", "the tester's lateness, the slowest one in a hundred (late_p99_max_ms): ", "late_p99_us"},
            {"late_max_max_ms", "the tester's largest lateness (late_max_max_ms): ", "late_max_us"}};
        for (int w = 0; w < 2; w++) {
            cr_expect(strstr(plain, words[w][1]), "%s: no \"%s\" in %s", name, words[w][1], plain);
            int li = rule_index(root, words[w][0]);
            cr_assert_geq(li, 0, "no limit for %s", words[w][0]);
            char fig[160], lim[160];
            snprintf(fig, sizeof fig, "<span data-src=\"/extra/quiet/disturbed/0/%s\" data-fmt=\"us_ms\">", words[w][2]);
            snprintf(lim, sizeof lim, " ms, above its limit of <span data-src=\"/extra/quiet/rules/%d/limit\" "
                     "data-fmt=\"ms\">", li);
            cr_expect(strstr(row, fig) && strstr(row, lim), "%s: the figure or the limit of %s", name, words[w][0]);
            /* and the figure does break the limit */
            json_t *jq = json_object_get(json_object_get(root, "extra"), "quiet");
            double v = json_number_value(json_object_get(json_array_get(json_object_get(jq, "disturbed"), 0), words[w][2]));
            double l = json_number_value(json_object_get(json_array_get(json_object_get(jq, "rules"), (size_t)li), "limit"));
            cr_expect_gt(v / 1000, l, "%s: %g ms is not above %g ms", words[w][0], v / 1000, l);
        }
    }
    cr_expect_eq(rows, nw, "%d rows for %d disturbed runs", rows, nw);
    free(t);
    cr_expect(strstr(md, "| H3-t25-r2 | H3-t25 | 2 | the tester's lateness"), "the Markdown lacks the disturbed run");

    /* the counts, and the arm whose median leaves round 2 out */
    cr_expect(strstr(html, "data-src=\"/extra/quiet/quiet_runs\" data-fmt=\"int\">39</span>"));
    cr_expect(strstr(html, "data-src=\"/extra/quiet/disturbed_runs\" data-fmt=\"int\">1</span>"));
    cr_expect(strstr(html, "<li>H3-t25: over round <span data-src=\"/arms/H3-t25/rounds/0\" data-fmt=\"int\">1</span>; "
                           "left out, disturbed: round <span data-src=\"/arms/H3-t25/rounds_disturbed/0\" "
                           "data-fmt=\"int\">2</span></li>"),
              "the list of arms with rounds left out");
    cr_expect(strstr(html, "(left out, disturbed: <span data-src=\"/arms/H3-t25/rounds_disturbed/0\""),
              "the arms table does not name the round left out");
    cr_expect(!strstr(html, "every run was quiet"));
    /* every run's figures, the disturbed one marked */
    cr_expect(strstr(html, "<th scope=\"row\">H3-t25-r2</th><td><span data-src=\"/runs/H3-t25-r2/quiet\" "
                           "data-fmt=\"tf\">false</span></td>"));
    json_decref(root);
    free(html);
    free(md);
    rt_rmrf(d);
    free(d);
}

Test(quiet, a_disturbed_run_gets_a_well_formed_figure, .timeout = 120)
{
    char *d = rt_rendered_dir(FIXTURE);
    char *html = rt_page(d, "report.html"), *md = rt_page(d, "report.md");
    cr_expect_eq(disturbed_figs(d), 1);
    char *s = rt_check_svg(d, "disturbed-H3-t25-r2"), *t = rt_svg_text(s);
    cr_expect(strstr(t, "H3-t25-r2, a disturbed run"), "no title");
    cr_expect(strstr(t, "rules broken: late_p99_max_ms, late_max_max_ms"), "no rules");
    cr_expect(strstr(t, "steal, whole machine") && strstr(t, "tester's largest lateness"), "the two panels");
    cr_expect(strstr(t, "limit on the largest: 40.0 ms"), "the lateness limit");
    cr_expect(strstr(t, "limit in any one second: 100.0%"), "the steal limit");
    cr_expect(strstr(t, "others' share"), "the fixture's runs carry foreign_share: a third panel");
    cr_expect(strstr(html, "<figure id=\"fig-disturbed-H3-t25-r2\">"), "the page does not inline it");
    cr_expect(strstr(md, "](figures/disturbed-H3-t25-r2.svg)"), "the Markdown does not link it");
    free(s);
    free(t);
    free(html);
    free(md);
    rt_rmrf(d);
    free(d);
}

static void all_quiet(json_t *r)
{
    const char *k;
    json_t *e;
    json_object_foreach(json_object_get(r, "runs"), k, e)
    {
        json_object_set_new(e, "quiet", json_true());
        json_object_set_new(e, "quiet_rules", json_array());
    }
    json_object_foreach(json_object_get(r, "arms"), k, e) json_object_set_new(e, "rounds_disturbed", json_array());
    json_t *q = json_object_get(json_object_get(r, "extra"), "quiet");
    json_object_set_new(q, "disturbed", json_array());
    json_object_set(q, "quiet_runs", json_object_get(q, "runs"));
    json_object_set_new(q, "disturbed_runs", json_integer(0));
}

Test(quiet, a_study_whose_runs_are_all_quiet_says_so_and_draws_none, .timeout = 120)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, all_quiet);
    char *d = rt_rendered_dir(in);
    char *html = rt_page(d, "report.html"), *md = rt_page(d, "report.md");
    cr_expect(strstr(html, "every run was quiet"));
    cr_expect(strstr(md, "every run was quiet"));
    cr_expect_eq(disturbed_figs(d), 0);
    cr_expect(!strstr(html, "fig-disturbed-") && !strstr(md, "figures/disturbed-"), "a disturbed-run figure");
    cr_expect(!strstr(html, "<table class=\"disturbed\">"), "a table of disturbed runs");
    cr_expect(!strstr(html, "left out, disturbed"), "a round left out");
    free(html);
    free(md);
    rt_rmrf(d);
    free(d);
    free(in);
    rt_rmrf(w);
    free(w);
}

/* the disturbed run also used the measured cores' time for others: 5%, 35%,
 * then no reading, against a limit of 20% */
static void with_foreign(json_t *r)
{
    json_t *q = json_object_get(json_object_get(r, "extra"), "quiet");
    json_t *rules = json_object_get(q, "rules"), *rule;
    size_t i;
    int found = 0;
    json_array_foreach(rules, i, rule) /* the fixture's file limits it at 100%: 20% here */
        if (!strcmp(json_string_value(json_object_get(rule, "rule")), "foreign_second_max")) {
            json_object_set_new(rule, "limit", json_real(0.2));
            found = 1;
        }
    if (!found)
        json_array_append_new(rules, json_pack("{s:s,s:f}", "rule", "foreign_second_max", "limit", 0.2));
    json_t *d = json_array_get(json_object_get(q, "disturbed"), 0);
    json_array_append_new(json_object_get(d, "rules"), json_string("foreign_second_max"));
    json_object_set_new(d, "foreign_second_max", json_real(0.35));
    json_t *ps = json_object_get(d, "per_second");
    json_t *v[3] = {json_real(0.05), json_real(0.35), json_null()};
    for (size_t s = 0; s < json_array_size(ps) && s < 3; s++)
        json_object_set_new(json_array_get(ps, s), "foreign_share", v[s]);
}

Test(quiet, foreign_share_is_a_third_panel_when_present, .timeout = 120)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, with_foreign);
    char *d = rt_rendered_dir(in);
    char *s = rt_check_svg(d, "disturbed-H3-t25-r2"), *t = rt_svg_text(s);
    cr_expect(strstr(t, "measured cores: others' share"), "no third panel");
    cr_expect(strstr(t, "limit in any one second: 20.0%"), "no foreign limit");
    int nr = 0;
    for (const char *q = strstr(t, "no reading"); q; q = strstr(q + 1, "no reading")) nr++;
    cr_expect_eq(nr, 1, "%d seconds said to have no reading (the third second's foreign_share is null)", nr);
    char *html = rt_page(d, "report.html"), *plain = malloc(strlen(html) + 1);
    rt_unhtml(html, strlen(html), plain, strlen(html) + 1);
    cr_expect(strstr(plain, "in the worst second (foreign_second_max): 35.0%, above its limit of 20.0%"),
              "the foreign rule in words");
    free(plain);
    free(html);
    free(s);
    free(t);
    rt_rmrf(d);
    free(d);
    free(in);
    rt_rmrf(w);
    free(w);
}

/* 13 disturbed runs: the fixture's, and 12 copies under other names */
static void thirteen(json_t *r)
{
    json_t *q = json_object_get(json_object_get(r, "extra"), "quiet");
    json_t *list = json_object_get(q, "disturbed");
    json_t *one = json_array_get(list, 0);
    for (int k = 1; k <= 12; k++) {
        json_t *c = json_deep_copy(one);
        char name[32];
        snprintf(name, sizeof name, "H3-t25-r%d", 100 + k);
        json_object_set_new(c, "run", json_string(name));
        json_array_append_new(list, c);
    }
    json_object_set_new(q, "disturbed_runs", json_integer(13));
}

Test(quiet, at_most_twelve_figures_and_the_page_says_so, .timeout = 120)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, thirteen);
    char *d = rt_rendered_dir(in);
    char *html = rt_page(d, "report.html");
    cr_expect_eq(disturbed_figs(d), 12);
    free(rt_check_svg(d, "disturbed-H3-t25-r111"));
    cr_expect(strstr(html, "Only the first twelve of the <span data-src=\"/extra/quiet/disturbed_runs\" "
                           "data-fmt=\"int\">13</span> disturbed runs are drawn"));
    char *t = table_of(html, "disturbed");
    int rows = 0;
    for (const char *q = strstr(t, "<th scope=\"row\">"); q; q = strstr(q + 1, "<th scope=\"row\">")) rows++;
    cr_expect_eq(rows, 13, "the table lists every disturbed run: %d rows", rows);
    free(t);
    free(html);
    rt_rmrf(d);
    free(d);
    free(in);
    rt_rmrf(w);
    free(w);
}

/* ------------------------------------------------ kept attempts (issue 27) */

/* a kept attempt "<run>-a<n>": the run's figures, disturbed by rule, with
 * its N, a stand-in share and p99 of its own and, when given, its start */
static void add_attempt(json_t *r, const char *run, int n, const char *rule, double standin, double p99,
                        const char *start)
{
    json_t *att = json_object_get(r, "attempts");
    if (!att) {
        att = json_object();
        json_object_set_new(r, "attempts", att);
    }
    json_t *a = json_deep_copy(json_object_get(json_object_get(r, "runs"), run));
    cr_assert(a, "the fixture has no run %s", run);
    json_object_set_new(a, "attempt", json_integer(n));
    json_object_set_new(a, "quiet", json_false());
    json_object_set_new(a, "quiet_rules", json_pack("[s]", rule));
    json_object_set_new(a, "standin_share", json_real(standin));
    json_object_set_new(a, "p99_ms", json_real(p99));
    if (start)
        json_object_set_new(a, "start_utc", json_string(start));
    char name[128];
    snprintf(name, sizeof name, "%s-a%d", run, n);
    json_object_set_new(att, name, a);
}

/* every run kept quiet, but two runs measured again: H3-t25-r2 twice (its
 * tester late), H3-fb25-r1 once (steal) */
static void all_quiet_with_attempts(json_t *r)
{
    all_quiet(r);
    add_attempt(r, "H3-t25-r2", 2, "late_max_max_ms", 0.25, 150.5, NULL);
    add_attempt(r, "H3-t25-r2", 1, "late_max_max_ms", 0.125, 812.5, "2026-12-02T01:02:03Z");
    add_attempt(r, "H3-fb25-r1", 1, "steal_run_max", 0.5, 33.25, NULL);
    /* the second's start from the verifier's extra, as it exports a run's */
    json_object_set_new(json_object_get(r, "extra"), "attempts",
                        json_pack("{s:{s:{s:s}}}", "H3-t25-r2-a2", "machine", "start_utc", "2026-12-02T02:00:00Z"));
}

static void no_attempts(json_t *r) { json_object_set_new(r, "attempts", json_object()); }

Test(quiet, kept_attempts_are_listed_and_the_runs_measured_again_counted, .timeout = 120)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, all_quiet_with_attempts);
    json_error_t e;
    json_t *root = json_load_file(in, 0, &e);
    cr_assert(root, "%s", e.text);
    char *d = rt_rendered_dir(in);
    char *html = rt_page(d, "report.html"), *md = rt_page(d, "report.md"), *plain = rt_plain(html);
    /* where the page says every run kept was quiet, it says how many were measured again, and why */
    cr_expect(strstr(plain, "so every run kept was quiet and every round counts; yet 2 runs were measured again "
                            "because an attempt was disturbed (3 attempts kept, breaking "),
              "%s", strstr(plain, "judged by these rules"));
    cr_expect(strstr(plain, "(late_max_max_ms), ") && strstr(plain, "(steal_run_max))"), "the rules, named");
    cr_expect(!strstr(plain, "every run was quiet"), "every run was quiet, though two were measured again");
    /* the list: one row per attempt, by run then attempt, each value its attempt's */
    char *t = table_of(html, "attempts");
    const char *want[][2] = {{"H3-fb25-r1", "1"}, {"H3-t25-r2", "1"}, {"H3-t25-r2", "2"}};
    int rows = 0;
    for (const char *q = strstr(t, "<th scope=\"row\">"); q; q = strstr(q + 1, "<th scope=\"row\">"), rows++) {
        cr_assert_lt(rows, 3, "more rows than attempts");
        char name[96];
        cr_assert_eq(sscanf(q, "<th scope=\"row\">%95[^<]", name), 1);
        cr_expect_str_eq(name, want[rows][0], "row %d", rows);
        const char *end = strstr(q, "</tr>");
        int spans = 0;
        for (const char *s = strstr(q, "<span data-src=\""); s && s < end; s = strstr(s + 1, "<span data-src=\"")) {
            char path[200], kind[16], why[300], text[128];
            cr_assert_eq(sscanf(s, "<span data-src=\"%199[^\"]\" data-fmt=\"%15[^\"]\"", path, kind), 2);
            const char *t0 = strchr(s, '>') + 1, *t1 = strstr(t0, "</span>");
            snprintf(text, sizeof text, "%.*s", (int)(t1 - t0), t0);
            /* its own values; its start may come from the verifier's extra */
            char pre[128], pre2[128];
            snprintf(pre, sizeof pre, "/attempts/%s-a%s/", want[rows][0], want[rows][1]);
            snprintf(pre2, sizeof pre2, "/extra/runs/%s-a%s/machine/start_utc", want[rows][0], want[rows][1]);
            char pre3[128];
            snprintf(pre3, sizeof pre3, "/extra/attempts/%s-a%s/machine/start_utc", want[rows][0], want[rows][1]);
            cr_expect(!strncmp(path, pre, strlen(pre)) || !strcmp(path, pre2) || !strcmp(path, pre3),
                      "row %d prints %s", rows, path);
            cr_expect_eq(rt_check_value(root, path, kind, text, why, sizeof why), 0, "%s", why);
            spans++;
        }
        cr_expect_eq(spans, 5, "row %d: attempt, one rule, start, stand-ins, p99", rows);
    }
    cr_expect_eq(rows, 3);
    /* by hand: attempt 1 of H3-t25-r2 started at its time, 12.5% stand-ins, p99 812.5 ms */
    char *r1 = strstr(t, "/attempts/H3-t25-r2-a1/start_utc");
    cr_assert(r1);
    cr_expect(!strncmp(strchr(r1, '>') + 1, "2026-12-02T01:02:03Z<", 21));
    cr_expect(strstr(t, "data-src=\"/attempts/H3-t25-r2-a1/standin_share\" data-fmt=\"pct\">12.5%<"));
    cr_expect(strstr(t, "data-src=\"/extra/runs/H3-fb25-r1-a1/machine/start_utc\" data-fmt=\"str\">\xe2\x80\x94<"),
              "no start time anywhere: a dash");
    cr_expect(strstr(t, "data-src=\"/extra/attempts/H3-t25-r2-a2/machine/start_utc\" data-fmt=\"str\">"
                        "2026-12-02T02:00:00Z<"),
              "the start the verifier exported");
    cr_expect(strstr(md, "### Attempts measured again"));
    cr_expect(strstr(md, "| H3-t25-r2 | 1 | late_max_max_ms | 2026-12-02T01:02:03Z | 12.5% |"), "%s",
              strstr(md, "### Attempts measured again"));
    free(t);
    free(plain);
    free(html);
    free(md);
    json_decref(root);
    rt_rmrf(d);
    free(d);
    free(in);
    rt_rmrf(w);
    free(w);
}

Test(quiet, without_kept_attempts_no_list_and_the_page_says_why, .timeout = 120)
{
    /* the fixture: a verified.json without `attempts` (an older verifier) */
    char *d = rt_rendered_dir(FIXTURE);
    char *html = rt_page(d, "report.html"), *plain = rt_plain(html);
    cr_expect(!strstr(html, "<table class=\"attempts\">"), "a list of attempts from nothing");
    cr_expect(strstr(plain, "This verified.json does not list the kept attempts"));
    free(plain);
    free(html);
    rt_rmrf(d);
    free(d);
    /* an empty `attempts`: none kept, every run's first attempt quiet */
    char *w = rt_tmpdir(), *in = rt_write_variant(w, no_attempts);
    d = rt_rendered_dir(in);
    html = rt_page(d, "report.html");
    plain = rt_plain(html);
    cr_expect(!strstr(html, "<table class=\"attempts\">"));
    cr_expect(strstr(plain, "No attempt is kept: no run was measured again because an attempt was disturbed."));
    cr_expect(!strstr(plain, "attempts kept, breaking") && !strstr(plain, "attempt kept, breaking"),
              "a count of runs measured again, with none kept");
    free(plain);
    free(html);
    rt_rmrf(d);
    free(d);
    free(in);
    rt_rmrf(w);
    free(w);
}
