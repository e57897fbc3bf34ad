/* test_advice: the section "What a service should answer" (templates/advice.tsv,
 * templates/advice.md.in, src/advice.c) on the fixture and on copies of it with one
 * verdict edited: the sentence is the one of the verdict's outcome (clearly
 * different a>b, a<b, too close to call), with its figures and the verdict and
 * guesses it rests on; a verdict removed or without rounds gives no advice and
 * says why; the retry arm's hidden capacity comes from the map when there is one. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

#define MAPFILE REPORT_DIR "/tests/fixture/map.json"

/* the bulkhead's sentences in advice.tsv, and the breaker's advice */
static const char *BULK_GT = "Give each store its own pool (a bulkhead): when one store hangs, the healthy one keeps "
                             "answering live.";
static const char *BULK_LT = "Here the bulkhead gave the healthy store fewer live answers than one shared pool: this "
                             "study does not support it.";
static const char *BULK_CLOSE = "Too close to call: this study cannot say whether a bulkhead keeps the healthy store "
                                "answering while the other hangs, so it gives no advice on it.";
static const char *BRK_LT = "Put a circuit breaker in front of the store: while the store is down it stops the calls, "
                            "where retries multiply them.";

/* the verdict of a against b on fig in root (NULL when none), and its index */
static json_t *verdict(json_t *r, const char *a, const char *b, const char *fig, size_t *at)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(r, "verdicts"), i, v)
    {
        const char *va = json_string_value(json_object_get(v, "a"));
        const char *vb = json_string_value(json_object_get(v, "b"));
        const char *vf = json_string_value(json_object_get(v, "figure"));
        if (va && vb && vf && !strcmp(va, a) && !strcmp(vb, b) && !strcmp(vf, fig)) {
            if (at)
                *at = i;
            return v;
        }
    }
    return NULL;
}

static json_t *bulk(json_t *r)
{
    json_t *v = verdict(r, "H3-bulk-hang", "H3-pool-hang", "store2_during_live_share", NULL);
    cr_assert(v, "the fixture has no verdict H3-bulk-hang against H3-pool-hang on store2_during_live_share");
    return v;
}

static void bulk_close(json_t *r)
{
    json_t *v = bulk(r);
    json_object_set_new(v, "verdict", json_string("too close to call"));
    json_object_set_new(v, "direction", json_null());
}

static void bulk_reversed(json_t *r)
{
    json_object_set_new(bulk(r), "direction", json_string("a<b"));
}

static void breaker_dropped(json_t *r)
{
    size_t at = 0;
    cr_assert(verdict(r, "H3-brk-down", "H3-r2-down", "during_lookups_per_request", &at));
    json_array_remove(json_object_get(r, "verdicts"), at);
}

static void with_map(json_t *r)
{
    json_error_t e;
    json_t *m = json_load_file(MAPFILE, 0, &e);
    cr_assert(m, "cannot read %s: %s", MAPFILE, e.text);
    json_object_set_new(r, "map", m);
}

/* the advice section of a page (from its heading to the next), a copy (free it) */
static char *section(const char *md)
{
    const char *s = strstr(md, "## What a service should answer\n");
    cr_assert(s, "the page has no advice section");
    const char *e = strstr(s + 3, "\n## ");
    cr_assert(e);
    return strndup(s, (size_t)(e - s));
}

/* the advice section of the fixture edited by edit (NULL: as it is); also checks
 * that the HTML says the same first sentence of the section (free it) */
static char *advice_of(void (*edit)(json_t *), const char *in_html)
{
    char *d = rt_tmpdir(), out[700], *msg, *in;
    snprintf(out, sizeof out, "%s/out", d);
    in = edit ? rt_write_variant(d, edit) : strdup(FIXTURE);
    cr_assert_eq(rt_render(in, out, &msg), 0, "%s", msg);
    free(msg);
    char *md = rt_page(out, "report.md"), *sec = section(md);
    if (in_html) {
        char *html = rt_page(out, "report.html"), *plain = rt_plain(html);
        cr_expect(strstr(plain, in_html), "report.html lacks \"%s\"", in_html);
        free(plain);
        free(html);
    }
    free(md);
    free(in);
    rt_rmrf(d);
    free(d);
    return sec;
}

Test(advice, the_fixture_advises_from_its_verdicts_with_their_figures_and_ids)
{
    char *s = advice_of(NULL, BULK_GT);
    /* clearly different (a>b): the bulkhead's advice, its medians (98.5% and 41.6% in the
     * fixture's arms) and round-by-round differences (+50.0 pp, +63.9 pp), its verdict and guesses */
    cr_expect(strstr(s, BULK_GT), "no bulkhead advice in:\n%s", s);
    cr_expect(strstr(s, "median over rounds, 98.5% → 41.6% (H3-bulk-hang → H3-pool-hang); a − b round by round: "
                        "+50.0 pp (round 1), +63.9 pp (round 2)."),
              "the bulkhead's figures are not the fixture's:\n%s", s);
    cr_expect(strstr(s, "Verdict: H3-bulk-hang against H3-pool-hang on `store2_during_live_share`, clearly "
                        "different (a>b), over 2 rounds. Guesses: G39 (right), G40 (wrong)."));
    cr_expect(!strstr(s, BULK_CLOSE));
    /* clearly different (a<b): the breaker; 0.025 against 3.008 lookups a request while the store is down */
    cr_expect(strstr(s, BRK_LT));
    cr_expect(strstr(s, "0.025 → 3.008 (H3-brk-down → H3-r2-down)"));
    /* too close to call (one round, +1.10 pp): the stand-in does not advise, and says the AP cost is missing */
    cr_expect(strstr(s, "Too close to call: this study cannot say whether a stand-in gives fewer errors than an error "
                        "at the same limit, so it gives no advice on it."));
    cr_expect(strstr(s, "+1.10 pp (round 1). Verdict: H3-t25 against H3-fb25 on `error_share`, too close to call, "
                        "over 1 round."));
    cr_expect(strstr(s, "not measured (this verified.json has no AP cost of H3-fb25)"));
    cr_expect(!strstr(s, "When the limit runs out, answer with a stand-in score"));
    /* a verdict without rounds (H3-r2 not measured): no advice, said */
    cr_expect(strstr(s, "No advice: this study has no round in common of H3-r2 and H3-fb25, so their verdict on "
                        "`standin_share` is not measured."));
    /* no map in the fixture: the retry arm's hidden capacity is not measured */
    cr_expect(strstr(s, "The retry arm's hidden capacity (the simulation's map of floods by load): not measured"));
    /* hedging's caveat and the layered retries' arithmetic */
    cr_expect(strstr(s, "the next two items measure a store slow for a window"));
    /* the two items of correlated slowness: the fixture has no verdict of their arms */
    cr_expect(strstr(s, "No advice: this study has no verdict of L3-fb25-slow against L3-hedge2-slow on "
                        "`during_standin_share`."));
    cr_expect(strstr(s, "No advice: this study has no verdict of L3-hedge2-slowboth against L3-hedge2-slow on "
                        "`during_standin_share`."));
    cr_expect(strstr(s, "3 × 3 × 3 = 27 calls to the bottom one while it is down; a retry budget at each layer"));
    /* the false-timeout rule: the fixture has no verdict of its arms, and says so */
    cr_expect(strstr(s, "No advice: this study has no verdict of L3-fbq999 against L300-t25 on "
                        "`healthy_timeout_share`."));
    /* fourteen items, one a line */
    cr_expect_eq(rt_count(s, "\n- "), 14, "%d items", rt_count(s, "\n- "));
    free(s);
}

Test(advice, an_edited_verdict_changes_its_sentence)
{
    char *s = advice_of(bulk_close, BULK_CLOSE);
    cr_expect(strstr(s, BULK_CLOSE), "too close to call: no \"%s\" in:\n%s", BULK_CLOSE, s);
    cr_expect(!strstr(s, BULK_GT), "too close to call still advises the bulkhead");
    cr_expect(strstr(s, "on `store2_during_live_share`, too close to call, over 2 rounds."));
    cr_expect(strstr(s, BRK_LT), "the other items keep their sentences");
    free(s);

    s = advice_of(bulk_reversed, BULK_LT);
    cr_expect(strstr(s, BULK_LT), "a<b: no \"%s\" in:\n%s", BULK_LT, s);
    cr_expect(!strstr(s, BULK_GT));
    cr_expect(strstr(s, "clearly different (a\\<b), over 2 rounds. Guesses: G39"));
    free(s);
}

Test(advice, a_missing_verdict_says_so_instead_of_advising)
{
    const char *none = "No advice: this study has no verdict of H3-brk-down against H3-r2-down on "
                       "`during_lookups_per_request`.";
    char *s = advice_of(breaker_dropped, NULL);
    cr_expect(strstr(s, none), "no \"%s\" in:\n%s", none, s);
    cr_expect(!strstr(s, BRK_LT), "a missing verdict still advises the breaker");
    cr_expect(!strstr(s, "H3-brk-down → H3-r2-down"), "a missing verdict still quotes figures");
    cr_expect(strstr(s, "Guesses: G29 (wrong), G30 (right)."), "its guesses are still named");
    free(s);
}

Test(advice, the_retry_arms_hidden_capacity_from_the_map)
{
    /* the map fixture's policy r2 (template H4-r2) tips at 325/s */
    char *s = advice_of(with_map, NULL);
    cr_expect(strstr(s, "The retry arm's hidden capacity (the simulation's map of floods by load): 325/s."), "%s", s);
    free(s);
}

/* the study's own count and the lesson's for the same arm and event: the
 * study's comes first in verified.json's odds, and the advice names it */
static void with_map_and_floods(json_t *r)
{
    with_map(r);
    json_t *o = json_pack("[{s:s,s:s,s:s,s:i,s:i,s:i,s:f,s:i,s:i,s:[f,f]},"
                          " {s:s,s:s,s:s,s:i,s:s,s:i,s:i,s:f,s:i,s:i,s:[f,f]}]",
                          "claim", "flood", "arm", "H4-r2", "event", "flooded", "seconds", 30, "sim_k", 295, "sim_n",
                          1000, "sim_share", 0.295, "k", 2, "n", 9, "cp95", 0.028144973477992608, 0.6000935737160944,
                          "claim", "flood", "arm", "H4-r2", "event", "flooded", "seconds", 30, "source",
                          "the timeouts lesson", "sim_k", 295, "sim_n", 1000, "sim_share", 0.295, "k", 3, "n", 5, "cp95",
                          0.14663279963451714, 0.9472550494733696);
    cr_assert(o);
    json_object_set_new(r, "odds", o);
}

Test(advice, the_retry_arms_floods_beside_its_hidden_capacity)
{
    char *s = advice_of(with_map_and_floods, NULL);
    cr_expect(strstr(s, "Its floods: H4-r2 flooded the store in 2 of 9 rounds of 30 s (exact 95%: 2.81% to 60.0% a "
                        "round); the simulation, registered before measuring, 29.5% a round."),
              "%s", s);
    cr_expect(strstr(s, "The retry arm's hidden capacity (the simulation's map of floods by load): 325/s."), "%s", s);
    free(s);
    /* without odds for the arm, no word of its floods */
    s = advice_of(with_map, NULL);
    cr_expect(!strstr(s, "Its floods"), "%s", s);
    free(s);
}
