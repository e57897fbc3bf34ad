/* Tests of the twin's scores in the section "Predicted before measuring"
 * (templates/predicted.md.in, src/floods.c's design.twin): until the
 * verifier exports `twin` (pipeline/RESULTS.md), a variant of the fixture
 * carries the member collect's hand-made study gives
 * (tests/pipeline/test_collecttwin.c: 4 scored rounds, p 0.1 0.4 0.8 1 with
 * y 0 1 1 1: Brier 0.1025 against 0.25 and 0.3991; one round in each of four
 * bins; two runs beyond the tolerance, one without a twin).  A study without
 * `twin`, or with `twin` null, renders the section as before, byte for byte.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

#define EN "\xe2\x80\x93"

static char *section_of(const char *html, const char *id)
{
    char key[100];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *a = strstr(html, key), *b = a ? strstr(a + 1, "<h2") : NULL;
    cr_assert(a && b, "no section \"%s\"", id);
    return strndup(a, (size_t)(b - a));
}

static char *table_of(const char *html, const char *cls)
{
    char key[100];
    snprintf(key, sizeof key, "<table class=\"%s\">", cls);
    const char *a = strstr(html, key), *b = a ? strstr(a, "</table>") : NULL;
    cr_assert(a && b, "no table %s", cls);
    return strndup(a, (size_t)(b - a));
}

static json_t *bin(double from, double to, int runs, double mean_p, int flooded, double lo, double hi)
{
    if (!runs)
        return json_pack("{s:f, s:f, s:i, s:n, s:i, s:n, s:n}", "from", from, "to", to, "runs", 0, "mean_p",
                         "flooded", 0, "share", "cp95");
    return json_pack("{s:f, s:f, s:i, s:f, s:i, s:f, s:[f,f]}", "from", from, "to", to, "runs", runs, "mean_p",
                     mean_p, "flooded", flooded, "share", (double)flooded / runs, "cp95", lo, hi);
}

static void with_twin(json_t *root)
{
    json_t *cal = json_array();
    json_array_append_new(cal, bin(0, 0.05, 0, 0, 0, 0, 0));
    json_array_append_new(cal, bin(0.05, 0.25, 1, 0.1, 0, 0, 0.975));
    json_array_append_new(cal, bin(0.25, 0.5, 1, 0.4, 1, 0.025, 1));
    json_array_append_new(cal, bin(0.5, 0.75, 0, 0, 0, 0, 0));
    json_array_append_new(cal, bin(0.75, 0.95, 1, 0.8, 1, 0.025, 1));
    json_array_append_new(cal, bin(0.95, 1, 1, 1, 1, 0.025, 1));
    json_t *out = json_array();
    json_array_append_new(out, json_pack("{s:s, s:f, s:f, s:f, s:f, s:b, s:b, s:f, s:b, s:s}", "run", "H4-r2-r1",
                                         "measured", 1.0 / 3, "predicted", 0.2, "twin_q05", 0.1, "twin_q95", 0.4,
                                         "flooded", 0, "predicted_flooded", 0, "p_flood", 0.1, "within_twin", 1,
                                         "reason", "stand-ins beyond the tolerance; inside the twin's 5-95% spread"));
    json_array_append_new(out, json_pack("{s:s, s:f, s:f, s:f, s:f, s:b, s:b, s:f, s:b, s:s}", "run", "H4-r2-r2",
                                         "measured", 0.6, "predicted", 0.1, "twin_q05", 0.05, "twin_q95", 0.5,
                                         "flooded", 1, "predicted_flooded", 0, "p_flood", 0.4, "within_twin", 0,
                                         "reason", "flooded, predicted calm; outside the twin's 5-95% spread"));
    json_array_append_new(out, json_pack("{s:s, s:f, s:f, s:n, s:n, s:b, s:b, s:n, s:n, s:s}", "run", "H4-r2-r5",
                                         "measured", 1.0 / 3, "predicted", 0.5, "twin_q05", "twin_q95", "flooded", 0,
                                         "predicted_flooded", 1, "p_flood", "within_twin", "reason",
                                         "calm, predicted to flood"));
    json_object_set_new(root, "twin",
                        json_pack("{s:i, s:i, s:f, s:f, s:f, s:o, s:o}", "runs", 4, "flooded", 3, "brier", 0.1025,
                                  "brier_yes_no", 0.25, "brier_odds", 0.3991, "calibration", cal, "outside", out));
}

/* the twin no better than the yes-or-no prediction, and no run outside */
static void with_worse_twin(json_t *root)
{
    with_twin(root);
    json_t *t = json_object_get(root, "twin");
    json_object_set_new(t, "brier", json_real(0.3));
    json_array_clear(json_object_get(t, "outside"));
}

/* no scored round (a study without a 450/s arm): no scores, no table */
static void with_nothing_scored(json_t *root)
{
    with_twin(root);
    json_t *t = json_object_get(root, "twin"), *b;
    json_object_set_new(t, "runs", json_integer(0));
    json_object_set_new(t, "flooded", json_integer(0));
    const char *nul[] = {"brier", "brier_yes_no", "brier_odds"};
    for (int i = 0; i < 3; i++)
        json_object_set_new(t, nul[i], json_null());
    size_t k;
    json_array_foreach(json_object_get(t, "calibration"), k, b)
    {
        json_object_set_new(b, "runs", json_integer(0));
        json_object_set_new(b, "flooded", json_integer(0));
        json_object_set_new(b, "mean_p", json_null());
        json_object_set_new(b, "share", json_null());
        json_object_set_new(b, "cp95", json_null());
    }
}

static void with_twin_null(json_t *root) { json_object_set_new(root, "twin", json_null()); }

static void as_is(json_t *root) { (void)root; }

/* the section "predicted" of the fixture changed by edit (free it); the
 * page in *html_out and the variant in *root_out when not NULL */
static char *rendered_section(void (*edit)(json_t *), char **html_out, json_t **root_out)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, edit), *d = rt_rendered_dir(in);
    char *html = rt_page(d, "report.html"), *sec = section_of(html, "predicted");
    if (root_out) {
        json_error_t e;
        *root_out = json_load_file(in, 0, &e);
        cr_assert(*root_out, "%s", e.text);
    }
    rt_rmrf(d);
    rt_rmrf(w);
    free(d);
    free(w);
    free(in);
    if (html_out)
        *html_out = html;
    else
        free(html);
    return sec;
}

Test(twin, brier_calibration_and_runs_outside, .timeout = 120)
{
    char *html;
    json_t *root;
    char *sec = rendered_section(with_twin, &html, &root), *plain = rt_plain(sec);
    const char *says[] = {
        "Scored on the 4 quiet rounds of the arms with a flood claim (3 of them flooded), the Brier score, the mean "
        "of (p \xe2\x88\x92 y)\xc2\xb2 with y = 1 for a flood and 0 otherwise (0 is a perfect forecast, 0.250 what p = "
        "\xc2\xbd always scores), is 0.102 for the twin, 0.250 for the noise-free prediction taken as a yes or no, "
        "and 0.399 for the arm's seed-averaged odds. The twin scores better than both.",
    };
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        cr_expect(strstr(plain, says[i]), "the page does not say: %s\nit says:\n%s", says[i], plain);
    /* the calibration: six bins, the empty ones with dashes */
    char *t = table_of(sec, "twin"), *tp = rt_plain(t);
    cr_expect_eq(rt_count(t, "<tr>") - 1, 6, "six bins");
    const char *rows[] = {
        "0%" EN "5.00%0\xe2\x80\x94" "0\xe2\x80\x94\xe2\x80\x94",
        "5.00%" EN "25.0%110.0%00% (0%" EN "97.5%)yes",
        "25.0%" EN "50.0%140.0%1100.0% (2.50%" EN "100.0%)yes",
        "50.0%" EN "75.0%0\xe2\x80\x94" "0\xe2\x80\x94\xe2\x80\x94",
        "75.0%" EN "95.0%180.0%1100.0% (2.50%" EN "100.0%)yes",
        "95.0%" EN "100.0%1100.0%1100.0% (2.50%" EN "100.0%)yes",
    };
    for (size_t i = 0; i < 6; i++)
        cr_expect(strstr(tp, rows[i]), "bin %zu: %s\nthe table: %s", i, rows[i], tp);
    free(tp);
    free(t);
    /* the runs outside, each with its reason; one without a twin */
    t = table_of(sec, "twin-outside");
    tp = rt_plain(t);
    cr_expect_eq(rt_count(t, "<tr>") - 1, 3);
    const char *out[] = {
        "H4-r2-r120.0%33.3%10.0%" EN "40.0%10.0%stand-ins beyond the tolerance; inside the twin's 5-95% spread",
        "H4-r2-r210.0%60.0%5.00%" EN "50.0%40.0%flooded, predicted calm; outside the twin's 5-95% spread",
        "H4-r2-r550.0%33.3%no twin\xe2\x80\x94" "calm, predicted to flood",
    };
    for (size_t i = 0; i < 3; i++)
        cr_expect(strstr(tp, out[i]), "outside %zu: %s\nthe table: %s", i, out[i], tp);
    free(tp);
    free(t);
    /* every printed value is the variant's */
    rt_expect_values(html, root, NULL, NULL, NULL);
    json_decref(root);
    free(plain);
    free(sec);
    free(html);
}

Test(twin, a_twin_no_better_and_nothing_outside, .timeout = 120)
{
    char *sec = rendered_section(with_worse_twin, NULL, NULL), *plain = rt_plain(sec);
    cr_expect(strstr(plain, "is 0.300 for the twin, 0.250 for the noise-free prediction taken as a yes or no, and "
                            "0.399 for the arm's seed-averaged odds. The twin does not score better than both."),
              "%s", plain);
    cr_expect(strstr(plain, "No quiet run has a measured stand-in share more than 1 point from the predicted one."));
    cr_expect(!strstr(sec, "twin-outside"), "no table of runs outside");
    free(plain);
    free(sec);
}

Test(twin, nothing_scored_says_so, .timeout = 120)
{
    char *sec = rendered_section(with_nothing_scored, NULL, NULL), *plain = rt_plain(sec);
    cr_expect(strstr(plain, "No quiet round of an arm with a flood claim has a twin's chance, so there is nothing to "
                            "score."),
              "%s", plain);
    cr_expect(!strstr(plain, "Brier"), "no score without a scored round");
    cr_expect(!strstr(sec, "class=\"twin\""), "no calibration table");
    cr_expect(strstr(sec, "class=\"twin-outside\""), "the runs outside all the same");
    free(plain);
    free(sec);
}

Test(twin, without_a_twin_the_section_is_as_before, .timeout = 120)
{
    char *before = rendered_section(as_is, NULL, NULL), *null = rendered_section(with_twin_null, NULL, NULL);
    cr_expect_str_eq(null, before, "twin null: the section unchanged");
    cr_expect(!strstr(before, "twin"), "no word of the twin without one");
    free(before);
    free(null);
}
