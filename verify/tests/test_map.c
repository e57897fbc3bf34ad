/* The map of floods by load (pipeline/RESULTS.md, "`map`: where each
 * policy tips, predicted and measured", and the bullet "The map" of
 * "results/prediction.json"): src/prov/floodmap.[ch].
 *
 * Units, worked out by hand (z = 1.959963984540054, z^2 = 3.841458820694124;
 * the Wilson ends checked with python3, math only:
 *   z=1.959963984540054; w=lambda k,n: [(k/n+z*z/(2*n)+s*z*(k/n*(1-k/n)/n+z*z/(4*n*n))**.5)/(1+z*z/n) for s in (-1,1)]):
 *   - k = 0 of n = 1000: p = 0, so mid = half = z^2/2n and the interval is
 *     [0, z^2/(n + z^2)] = [0, 3.841458820694124 / 1003.841458820694124]
 *     = [0, 0.0038267584855551...];
 *   - 5 of 1000: [0.0021375355273245, 0.0116509553733751];
 *     20 of 1000: [0.0129836829164151, 0.0306900052297178];
 *   - the policy whose shares are 0, 0.005, 0.02 at 300, 325, 350
 *     (k 0, 5, 20 of 1000), capacity_p 0.01: load 325 (0 and 0.005 are
 *     below 0.01, 0.02 is not); lo, the rule on the upper bounds 0.00383,
 *     0.01165, 0.03069: 300; hi, on the lower bounds 0, 0.00214, 0.01298:
 *     325; tips true.  Interval [300, 325];
 *   - never below 0.01 at the first load (k 20, 0, 0): load null, lo null
 *     (0.03069), hi null (0.01298), tips true; never tipping (k 0, 0, 0):
 *     load 350 (the grid's top), interval [350, 350], tips false; a dip
 *     (k 0, 20, 0): load 300, not 350 (325 is not below); k 0, 10, 10: 10/1000 =
 *     0.01 is not below 0.01, but its lower bound 0.00544 is: 300 [300, 350];
 *   - the trigger's median: counts [0, 0, 1, 3] are the sizes 2, 3, 3, 3:
 *     n 4, h = 1.5, (3 + 3)/2 = 3; [1, 1] is 0, 1: 0.5; [1, 1, 1]: 1;
 *     [0, 3, 0, 1] is 1, 1, 1, 3: 1; [] n 0, no median; a count -1 or 1.5
 *     is not a list of counts.
 *
 * The study (profile tiny, prediction format 2 without noise): H4-r2 at
 * 350/s and H325-r2 at 325/s (syn_kind_run_open: the schedule's requests,
 * sent 10 us late), 2 rounds of 2 s each; their arms-file lines are the
 * same but for name and rate (synth.h's arm_spec).  H4-r2's every request
 * is a stand-in (K): each second missed, flooded in both rounds; H325-r2's
 * all live: calm.  The prediction's odds: H4-r2 flooded 20 of 1000,
 * H325-r2 5 of 1000, each over 2 s rounds, 2 planned rounds (p_seen
 * 1 - 0.98^2 = 0.0396, 1 - 0.995^2 = 0.009975).  Its map: seconds 2,
 * seeds 1-1000, capacity_p 0.01, trigger_load 350, loads 300 325 350, the
 * policy r2 (template H4-r2) with the cells above (onset medians null,
 * 12, 9.5; stand-in share medians 0.0007, 0.0012, 0.004), hidden capacity
 * 325 [300, 325] tips true, trigger at 350: flooded counts [0, 0, 1, 3,
 * 16] (n 20 = the cell's k; ranks 9 and 10 are 4: median 4), calm [400,
 * 500, 80] (n 980 = 1000 - 20; ranks 489 and 490 are 1: median 1), arms
 * H325-r2 at 325 and H4-r2 at 350.  The points: H325-r2 0 of 2 rounds,
 * cp95 [0, 1 - 0.025^(1/2)] = [0, 0.841886], against the cell's
 * [0.00214, 0.01165]: agree; H4-r2 2 of 2 (rounds 1 and 2), cp95
 * [0.025^(1/2), 1] = [0.158114, 1] against [0.01298, 0.03069]: they do
 * not overlap, agree false; both on the curve (2 s claims, a 2 s map).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floodmap.h"
#include "mism.h"
#include "odds.h"
#include "stats.h"
#include "tstudy.h"

#define W0_HI 0.0038267584855551234
#define W5_LO 0.0021375355273244596
#define W5_HI 0.011650955373375111
#define W20_LO 0.012983682916415135
#define W20_HI 0.030690005229717782
#define CP02_HI 0.841886116991581   /* 1 - 0.025^(1/2) */
#define CP22_LO 0.15811388300841897 /* 0.025^(1/2) */

static vj_node *parse(const char *text)
{
    vj_node *n;
    char err[512];
    cr_assert_eq(vj_parse(text, strlen(text), "test", &n, err, sizeof err), 0, "%s", err);
    return n;
}

static int is_bool(const vj_node *n, int b)
{
    return n && n->type == VJ_BOOL && n->b == b;
}

/* a load (or null: -1) */
static long long load_of(const vj_node *n)
{
    cr_assert(n, "absent");
    return n->type == VJ_NULL ? -1 : n->i;
}

#define EXPECT_PAIR(node, a, b, tol)                                                                       \
    do {                                                                                                   \
        const vj_node *p_ = (node);                                                                        \
        cr_assert(p_ && p_->type == VJ_ARR && p_->n == 2, "not a pair");                                   \
        cr_expect(fabs(p_->items[0]->num - (a)) <= (tol) && fabs(p_->items[1]->num - (b)) <= (tol),        \
                  "[%s, %s], expected [%.17g, %.17g]", p_->items[0]->text, p_->items[1]->text, (double)(a), \
                  (double)(b));                                                                            \
    } while (0)

/* ---- units ---- */

Test(map_units, wilson_by_hand)
{
    double lo, hi;
    cr_assert_eq(od_wilson(0, 1000, &lo, &hi), 0);
    cr_expect(fabs(lo) < 1e-15 && fabs(hi - 3.841458820694124 / 1003.841458820694124) < 1e-15, "[%.17g, %.17g]", lo,
              hi);
    cr_expect(fabs(hi - 0.0038267584855551) < 1e-15);
    cr_assert_eq(od_wilson(5, 1000, &lo, &hi), 0);
    cr_expect(fabs(lo - W5_LO) < 1e-15 && fabs(hi - W5_HI) < 1e-15);
    cr_assert_eq(od_wilson(20, 1000, &lo, &hi), 0);
    cr_expect(fabs(lo - W20_LO) < 1e-15 && fabs(hi - W20_HI) < 1e-15);
}

/* cells of 1000 seeds at 300, 325, 350 with k a, b, c */
static vj_node *cells3(int a, int b, int c)
{
    char t[512];
    snprintf(t, sizeof t,
             "[{\"load\": 300, \"k\": %d, \"n\": 1000}, {\"load\": 325, \"k\": %d, \"n\": 1000},"
             " {\"load\": 350, \"k\": %d, \"n\": 1000}]",
             a, b, c);
    return parse(t);
}

static void expect_capacity(int a, int b, int c, long long load, long long lo, long long hi, int tips)
{
    vj_node *cells = cells3(a, b, c), *h = fm_hidden_capacity(cells, 0.01);
    cr_assert(h, "k %d %d %d", a, b, c);
    const vj_node *iv = vj_get(h, "interval");
    cr_assert(iv && iv->n == 2);
    cr_expect_eq(load_of(vj_get(h, "load")), load, "k %d %d %d: load", a, b, c);
    cr_expect_eq(load_of(iv->items[0]), lo, "k %d %d %d: lo", a, b, c);
    cr_expect_eq(load_of(iv->items[1]), hi, "k %d %d %d: hi", a, b, c);
    cr_expect(is_bool(vj_get(h, "tips"), tips), "k %d %d %d: tips", a, b, c);
    vj_free(h);
    vj_free(cells);
}

Test(map_units, hidden_capacity_by_hand)
{
    expect_capacity(0, 5, 20, 325, 300, 325, 1); /* shares 0, 0.005, 0.02 */
    expect_capacity(20, 0, 0, -1, -1, -1, 1);     /* already the lowest load tips */
    expect_capacity(0, 0, 0, 350, 350, 350, 0);   /* never: the grid's top, a lower bound */
    expect_capacity(0, 20, 0, 300, 300, 300, 1);  /* a dip above a tip does not count */
    expect_capacity(0, 10, 10, 300, 300, 350, 1); /* 10/1000 = 0.01 is not below 0.01; its lower bound 0.00543 is */
    /* a cell without usable counts: no capacity */
    vj_node *bad = parse("[{\"load\": 300, \"k\": 2, \"n\": 1}]");
    cr_expect_null(fm_hidden_capacity(bad, 0.01));
    vj_free(bad);
    bad = parse("[{\"load\": 300, \"k\": 0, \"n\": 0}]");
    cr_expect_null(fm_hidden_capacity(bad, 0.01));
    vj_free(bad);
}

static void expect_median(const char *counts, long long n, double median)
{
    vj_node *c = parse(counts);
    long long got_n;
    double got;
    cr_assert_eq(fm_counts_median(c, &got_n, &got), 0, "%s", counts);
    cr_expect_eq(got_n, n, "%s: n %lld", counts, got_n);
    if (isnan(median))
        cr_expect(isnan(got), "%s: %g", counts, got);
    else
        cr_expect_eq(got, median, "%s: median %.17g, expected %g", counts, got, median);
    /* the same as stats.h's percentile of the list written out */
    if (n > 0) {
        long long *v = vu_xcalloc((size_t)n, sizeof *v);
        size_t m = 0;
        for (size_t i = 0; i < c->n; i++)
            for (long long k = 0; k < c->items[i]->i; k++)
                v[m++] = (long long)i;
        cr_expect_eq(st_pct_ll(v, m, 0.5), got, "%s", counts);
        free(v);
    }
    vj_free(c);
}

Test(map_units, trigger_median_by_hand)
{
    expect_median("[0, 0, 1, 3]", 4, 3);
    expect_median("[1, 1]", 2, 0.5);
    expect_median("[1, 1, 1]", 3, 1);
    expect_median("[0, 3, 0, 1]", 4, 1);
    expect_median("[0, 0, 1, 3, 16]", 20, 4);
    expect_median("[400, 500, 80]", 980, 1);
    expect_median("[5]", 5, 0);
    expect_median("[]", 0, NAN);
    static const char *const bad[] = {"[0, -1]", "[1.5]", "[1, \"2\"]", "{}", "[4611686018427387904, 1]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        vj_node *c = parse(bad[i]);
        long long n;
        double m;
        cr_expect_eq(fm_counts_median(c, &n, &m), -1, "%s", bad[i]);
        vj_free(c);
    }
}

/* results.json's map from a prediction and the verifier's odds, in memory */
static const char *UNIT_PRED =
    "{\"format\": \"lab-prediction 2\", \"map\": {\"seconds\": 30, \"seeds\": \"1-1000\", \"capacity_p\": 0.01,"
    " \"trigger_load\": 350, \"loads\": [300, 325, 350],"
    " \"policies\": [{\"policy\": \"r2\", \"template\": \"H4-r2\","
    "   \"cells\": [{\"load\": 300, \"k\": 0, \"n\": 1000, \"share\": 0, \"wilson95\": [0, 0.0038],"
    "               \"onset_median_s\": null, \"standin_share_median\": 0.0007},"
    "              {\"load\": 325, \"k\": 5, \"n\": 1000, \"onset_median_s\": 12, \"standin_share_median\": 0.0012},"
    "              {\"load\": 350, \"k\": 20, \"n\": 1000, \"onset_median_s\": 9.5, \"standin_share_median\": 0.004}],"
    "   \"trigger\": {\"flooded\": {\"n\": 4, \"median\": 3, \"counts\": [0, 0, 1, 3]},"
    "                 \"calm\": {\"n\": 0, \"median\": null, \"counts\": []}},"
    "   \"arms\": [{\"arm\": \"H325-r2\", \"load\": 325}, {\"arm\": \"H4-r2\", \"load\": 350},"
    "              {\"arm\": \"H300-r2\", \"load\": 300}, {\"arm\": \"H9-r2\", \"load\": 300},"
    "              {\"arm\": \"H4x-r2\", \"load\": 350}]}]}}";
/* the verifier's odds: H325-r2 over 30 s rounds, H4-r2 over 4 s (a quick
 * study), H300-r2 no round measured, H9-r2 only the outside observation's
 * arm (not a claim), H4x-r2 0 of 3 at 30 s */
static const char *UNIT_ODDS =
    "[{\"claim\": \"flood\", \"arm\": \"H325-r2\", \"event\": \"flooded\", \"seconds\": 30, \"sim_k\": 5,"
    "  \"sim_n\": 1000, \"k\": 1, \"n\": 5, \"rounds\": [3], \"cp95\": [0.005, 0.716], \"agree\": true},"
    " {\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 4, \"sim_k\": 7, \"sim_n\": 1000,"
    "  \"k\": 2, \"n\": 2, \"rounds\": [1, 2], \"cp95\": [0.158, 1], \"agree\": false},"
    " {\"claim\": \"flood\", \"arm\": \"H300-r2\", \"event\": \"flooded\", \"seconds\": 30, \"sim_k\": 0,"
    "  \"sim_n\": 1000, \"k\": 0, \"n\": 0, \"rounds\": [], \"cp95\": null, \"agree\": null},"
    " {\"claim\": \"flood\", \"arm\": \"H4x-r2\", \"event\": \"flooded\", \"seconds\": 30, \"sim_k\": 20,"
    "  \"sim_n\": 1000, \"k\": 0, \"n\": 3, \"rounds\": [], \"cp95\": [0, 0.7076], \"agree\": true},"
    " {\"claim\": \"flood\", \"arm\": \"H9-r2\", \"event\": \"flooded\", \"source\": \"the timeouts lesson\","
    "  \"seconds\": 30, \"sim_k\": null, \"sim_n\": null, \"k\": 3, \"n\": 5, \"rounds\": null,"
    "  \"cp95\": [0.147, 0.947], \"agree\": null}]";

Test(map_units, results_map_in_memory)
{
    vj_node *pred = parse(UNIT_PRED), *odds = parse(UNIT_ODDS), *m = fm_results(pred, odds);
    cr_assert(m && m->type == VJ_OBJ);
    cr_expect_eq(vj_get(m, "seconds")->i, 30);
    cr_expect_str_eq(vj_get_str(m, "seeds"), "1-1000");
    cr_expect_eq(vj_get(m, "loads")->n, 3);
    const vj_node *p = vj_get(m, "policies")->items[0];
    cr_expect_str_eq(vj_get_str(p, "template"), "H4-r2");
    const vj_node *cells = vj_get(p, "cells");
    cr_assert_eq(cells->n, 3);
    /* share and wilson95 recomputed from k and n (the registered [0, 0.0038] is not copied) */
    cr_expect_eq(vj_get(cells->items[0], "share")->num, 0);
    EXPECT_PAIR(vj_get(cells->items[0], "wilson95"), 0, W0_HI, 1e-15);
    cr_expect_eq(vj_get(cells->items[1], "share")->num, 0.005);
    EXPECT_PAIR(vj_get(cells->items[2], "wilson95"), W20_LO, W20_HI, 1e-15);
    cr_expect_eq(vj_get(cells->items[0], "onset_median_s")->type, VJ_NULL);
    cr_expect_eq(vj_get(cells->items[2], "onset_median_s")->num, 9.5);
    cr_expect_eq(vj_get(cells->items[1], "standin_share_median")->num, 0.0012);
    const vj_node *h = vj_get(p, "hidden_capacity");
    cr_expect_eq(vj_get(h, "load")->i, 325);
    cr_expect(vj_get(h, "interval")->items[0]->i == 300 && vj_get(h, "interval")->items[1]->i == 325);
    const vj_node *fl = vj_get(vj_get(p, "trigger"), "flooded"), *calm = vj_get(vj_get(p, "trigger"), "calm");
    cr_expect(vj_get(fl, "n")->i == 4 && vj_get(fl, "median")->num == 3 && vj_get(fl, "counts")->n == 4);
    cr_expect(vj_get(calm, "n")->i == 0 && vj_get(calm, "median")->type == VJ_NULL);
    const vj_node *pts = vj_get(p, "points");
    cr_assert_eq(pts->n, 5);
    /* H325-r2: on the curve, [0.005, 0.716] against [0.00214, 0.01165]: agree */
    const vj_node *a = pts->items[0];
    cr_expect_str_eq(vj_get_str(a, "arm"), "H325-r2");
    cr_expect(vj_get(a, "load")->i == 325 && vj_get(a, "seconds")->i == 30 && vj_get(a, "sim_k")->i == 5 &&
              vj_get(a, "k")->i == 1 && vj_get(a, "n")->i == 5 && vj_get(a, "rounds")->n == 1);
    EXPECT_PAIR(vj_get(a, "cp95"), 0.005, 0.716, 0);
    cr_expect(is_bool(vj_get(a, "on_curve"), 1) && is_bool(vj_get(a, "agree"), 1));
    cr_expect(!vj_get(a, "event") && !vj_get(a, "claim") && !vj_get(a, "agree_odds"));
    /* H4-r2: 4 s rounds are not the curve's: agree null */
    a = pts->items[1];
    cr_expect(is_bool(vj_get(a, "on_curve"), 0) && vj_get(a, "agree")->type == VJ_NULL);
    cr_expect(vj_get(a, "seconds")->i == 4 && vj_get(a, "sim_k")->i == 7);
    /* H300-r2: no quiet run (n 0): agree null, on the curve all the same */
    a = pts->items[2];
    cr_expect(is_bool(vj_get(a, "on_curve"), 1) && vj_get(a, "agree")->type == VJ_NULL);
    cr_expect(vj_get(a, "n")->i == 0 && vj_get(a, "cp95")->type == VJ_NULL);
    /* H9-r2: only an outside observation names it: no claim */
    a = pts->items[3];
    static const char *const nulls[] = {"seconds", "sim_k", "sim_n", "k", "n", "rounds", "cp95", "agree"};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
        cr_expect_eq(vj_get(a, nulls[i])->type, VJ_NULL, "H9-r2 %s", nulls[i]);
    cr_expect(is_bool(vj_get(a, "on_curve"), 0));
    cr_expect(vj_get(a, "load")->i == 300);
    /* H4x-r2 at 350: [0, 0.7076] against [0.01298, 0.03069]: agree */
    cr_expect(is_bool(vj_get(pts->items[4], "agree"), 1));
    vj_free(m);
    /* no map, or "map": null: null */
    vj_node *none = parse("{\"format\": \"lab-prediction 2\", \"runs\": {}}");
    m = fm_results(none, odds);
    cr_expect_eq(m->type, VJ_NULL);
    cr_expect_eq(fm_has_map(none), 0);
    vj_free(m);
    vj_free(none);
    none = parse("{\"format\": \"lab-prediction 2\", \"map\": null}");
    m = fm_results(none, odds);
    cr_expect_eq(m->type, VJ_NULL);
    vj_free(m);
    vj_free(none);
    m = fm_results(NULL, odds);
    cr_expect_eq(m->type, VJ_NULL);
    vj_free(m);
    vj_free(odds);
    vj_free(pred);
}

/* ---- the study ---- */

static char *M_root;
static syn_ref M_ref;
static const char *M_pred; /* the prediction written (NULL: PREDICTION) */
static int M_h300;         /* the study has H300-r2 too (calm, 300/s) */

static void m_setup(void)
{
    M_root = th_tmpdir();
    cr_assert(M_root);
    syn_make_ref(&M_ref, 40, 13);
    M_pred = NULL;
    M_h300 = 0;
}

static void m_teardown(void)
{
    syn_free_ref(&M_ref);
    th_rmrf(M_root);
    free(M_root);
}

static char *m_path(const char *rel)
{
    return vu_xasprintf("%s/%s", M_root, rel);
}

static const char *COMPARISONS = "a\tb\tfigure\tnote\nH4-r2\tH325-r2\tlongest_line\tthe line\n";
static const char *GUESSES = "id\tguess\tpredicate\nG1\tEvery run answers.\tevery H325-r2.n >= 100\n";

static const char *PREDICTION =
    "{\"format\": \"lab-prediction 2\", \"profile\": \"tiny\", \"rounds\": [1, 2],\n"
    " \"runs\": {\"H4-r2-r1\": {\"seconds\": 2, \"p99_ms\": 30, \"standin_share\": 1, \"lookups_per_request\": 1,"
    " \"flooded\": true, \"flood_from_s\": 0},\n"
    "  \"H4-r2-r2\": {\"seconds\": 2, \"p99_ms\": 30, \"standin_share\": 1, \"lookups_per_request\": 1,"
    " \"flooded\": true, \"flood_from_s\": 0},\n"
    "  \"H325-r2-r1\": {\"seconds\": 2, \"p99_ms\": 2, \"standin_share\": 0, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null},\n"
    "  \"H325-r2-r2\": {\"seconds\": 2, \"p99_ms\": 2, \"standin_share\": 0, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null}},\n"
    " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"seconds\": 2, \"planned_rounds\": 2,"
    " \"seeds\": \"1-1000\", \"sim_k\": 20, \"sim_n\": 1000, \"p_seen\": 0.0396},\n"
    "  {\"claim\": \"flood\", \"arm\": \"H325-r2\", \"event\": \"flooded\", \"seconds\": 2, \"planned_rounds\": 2,"
    " \"seeds\": \"1-1000\", \"sim_k\": 5, \"sim_n\": 1000, \"p_seen\": 0.009975}],\n"
    " \"sizing\": [],\n"
    " \"map\": {\"seconds\": 2, \"seeds\": \"1-1000\", \"capacity_p\": 0.01, \"trigger_load\": 350,"
    " \"loads\": [300, 325, 350],\n"
    "  \"policies\": [{\"policy\": \"r2\", \"template\": \"H4-r2\",\n"
    "   \"cells\": [{\"load\": 300, \"k\": 0, \"n\": 1000, \"share\": 0.0, \"wilson95\": [0.0, 0.00382675848556],"
    " \"onset_median_s\": null, \"standin_share_median\": 0.0007},\n"
    "    {\"load\": 325, \"k\": 5, \"n\": 1000, \"share\": 0.005, \"wilson95\": [0.00213753552732, 0.01165095537338],"
    " \"onset_median_s\": 12, \"standin_share_median\": 0.0012},\n"
    "    {\"load\": 350, \"k\": 20, \"n\": 1000, \"share\": 0.02, \"wilson95\": [0.01298368291642, 0.03069000522972],"
    " \"onset_median_s\": 9.5, \"standin_share_median\": 0.004}],\n"
    "   \"hidden_capacity\": {\"load\": 325, \"interval\": [300, 325], \"tips\": true},\n"
    "   \"trigger\": {\"flooded\": {\"n\": 20, \"median\": 4, \"counts\": [0, 0, 1, 3, 16]},\n"
    "     \"calm\": {\"n\": 980, \"median\": 1, \"counts\": [400, 500, 80]}},\n"
    "   \"arms\": [{\"arm\": \"H325-r2\", \"load\": 325}, {\"arm\": \"H4-r2\", \"load\": 350}]}]}}\n";

/* provenance/prereg.json: the guesses' sha256 and the prediction as it is now */
static void write_prereg(void)
{
    unsigned char *b;
    size_t len;
    char err[256], gsha[65], psha[65];
    char *gp = m_path("data/guesses.tsv"), *pp = m_path("results/prediction.json"), *rp = m_path("provenance/prereg.json");
    cr_assert_eq(vu_read_file(gp, &b, &len, err, sizeof err), 0);
    vu_sha256_hex(b, len, gsha);
    size_t glen = len;
    free(b);
    cr_assert_eq(vu_read_file(pp, &b, &len, err, sizeof err), 0);
    vu_sha256_hex(b, len, psha);
    free(b);
    char *t = vu_xasprintf("{\"files\": [{\"path\": \"data/guesses.tsv\", \"sha256\": \"%s\", \"size\": %zu}],\n"
                           " \"prediction\": {\"path\": \"results/prediction.json\", \"sha256\": \"%s\", \"size\": %zu,"
                           " \"registered_utc\": \"2026-12-01T10:00:00Z\"}}\n",
                           gsha, glen, psha, len);
    cr_assert_eq(syn_write_text(rp, t), 0);
    free(t);
    free(gp);
    free(pp);
    free(rp);
}

/* an open-loop run of 2 s at rate/s, every request of kind k */
static void write_run(const char *arm, int round, int rate, char k, const char *start_utc)
{
    long long *off;
    size_t n = syn_schedule(round, rate, 2, &off);
    free(off);
    char *kinds = vu_xcalloc(n + 1, 1);
    memset(kinds, k, n);
    syn_run r;
    long long t0 = 5000000000000LL + 100000000000LL * round + (rate == 350) * 10000000000000LL +
                   (rate == 300) * 20000000000000LL;
    syn_kind_run_open(&r, arm, round, kinds, &M_ref, t0, rate, 2);
    r.start_utc = start_utc;
    cr_assert_eq(syn_write_run(M_root, &r, 1), 0);
    syn_free_run(&r);
    free(kinds);
}

static void write_prediction(const char *text)
{
    char *pp = m_path("results/prediction.json");
    cr_assert_eq(syn_write_text(pp, text), 0);
    free(pp);
    write_prereg();
}

static void build_study(void)
{
    write_run("H4-r2", 1, 350, 'K', "2026-12-01T10:00:01Z");
    write_run("H4-r2", 2, 350, 'K', "2026-12-01T10:00:05Z");
    write_run("H325-r2", 1, 325, 'L', "2026-12-01T10:00:03Z");
    write_run("H325-r2", 2, 325, 'L', "2026-12-01T10:00:07Z");
    if (M_h300) {
        write_run("H300-r2", 1, 300, 'L', "2026-12-01T10:00:04Z");
        write_run("H300-r2", 2, 300, 'L', "2026-12-01T10:00:08Z");
    }
    cr_assert_eq(syn_write_reference(M_root, &M_ref), 0);
    cr_assert_eq(syn_write_manifest(M_root), 0);
    cr_assert_eq(syn_write_quiet(M_root, NULL), 0);
    ts_write_texts(M_root, COMPARISONS, GUESSES);
    write_prediction(M_pred ? M_pred : PREDICTION);
    ts_promote(M_root);
}

static int m_verify(char **out)
{
    const char *a[] = {"--root", M_root, "--no-scan", NULL};
    return th_run(out, a);
}

static void expect_clean(void)
{
    char *out;
    int rc = m_verify(&out);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    free(out);
}

/* verify, expecting exit 1, the line, and (n >= 0) exactly n mismatches */
static void expect_refused(const char *line, int n)
{
    char *out;
    cr_expect_eq(m_verify(&out), 1, "%s", out);
    cr_expect(strstr(out, line), "%s\nexpected: %s", out, line);
    if (n >= 0) {
        char want[64];
        snprintf(want, sizeof want, "\n%d MISMATCHES", n);
        cr_expect(strstr(out, want), "%s\nexpected %d mismatches", out, n);
    }
    free(out);
}

static const vj_node *policy0(const vj_node *v)
{
    const vj_node *m = vj_get(v, "map"), *ps = vj_get(m, "policies");
    cr_assert(ps && ps->type == VJ_ARR && ps->n == 1, "map.policies");
    return ps->items[0];
}

Test(map_study, recomputed_by_hand, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    build_study();
    expect_clean();
    vj_node *v = ts_verified(M_root);
    static const char *const runs[] = {"H4-r2-r1", "H4-r2-r2", "H325-r2-r1", "H325-r2-r2"};
    for (int i = 0; i < 4; i++) {
        cr_expect(is_bool(ts_field(v, runs[i], "quiet"), 1), "%s quiet", runs[i]);
        cr_expect(is_bool(ts_field(v, runs[i], "flooded"), i < 2), "%s flooded", runs[i]);
    }
    const vj_node *m = vj_get(v, "map");
    cr_assert(m && m->type == VJ_OBJ);
    cr_expect(vj_get(m, "seconds")->i == 2 && vj_get(m, "trigger_load")->i == 350);
    cr_expect_eq(vj_get(m, "capacity_p")->num, 0.01);
    const vj_node *p = policy0(v), *cells = vj_get(p, "cells");
    cr_expect_str_eq(vj_get_str(p, "policy"), "r2");
    cr_assert_eq(cells->n, 3);
    static const double share[] = {0, 0.005, 0.02}, lo[] = {0, W5_LO, W20_LO}, hi[] = {W0_HI, W5_HI, W20_HI};
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(vj_get(cells->items[i], "share")->num, share[i], "cell %d", i);
        EXPECT_PAIR(vj_get(cells->items[i], "wilson95"), lo[i], hi[i], 1e-15);
    }
    const vj_node *h = vj_get(p, "hidden_capacity"), *iv = vj_get(h, "interval");
    cr_expect(vj_get(h, "load")->i == 325 && iv->items[0]->i == 300 && iv->items[1]->i == 325);
    cr_expect(is_bool(vj_get(h, "tips"), 1));
    const vj_node *fl = vj_get(vj_get(p, "trigger"), "flooded"), *calm = vj_get(vj_get(p, "trigger"), "calm");
    cr_expect(vj_get(fl, "n")->i == 20 && vj_get(fl, "median")->num == 4);
    cr_expect(vj_get(calm, "n")->i == 980 && vj_get(calm, "median")->num == 1);
    const vj_node *pts = vj_get(p, "points");
    cr_assert_eq(pts->n, 2);
    const vj_node *a = pts->items[0], *b = pts->items[1];
    cr_expect_str_eq(vj_get_str(a, "arm"), "H325-r2");
    cr_expect(vj_get(a, "k")->i == 0 && vj_get(a, "n")->i == 2 && vj_get(a, "rounds")->n == 0);
    cr_expect(vj_get(a, "sim_k")->i == 5 && vj_get(a, "sim_n")->i == 1000 && vj_get(a, "seconds")->i == 2);
    EXPECT_PAIR(vj_get(a, "cp95"), 0, CP02_HI, 2e-12);
    cr_expect(is_bool(vj_get(a, "on_curve"), 1) && is_bool(vj_get(a, "agree"), 1));
    cr_expect_str_eq(vj_get_str(b, "arm"), "H4-r2");
    cr_expect(vj_get(b, "k")->i == 2 && vj_get(b, "n")->i == 2 && vj_get(b, "rounds")->n == 2);
    EXPECT_PAIR(vj_get(b, "cp95"), CP22_LO, 1, 2e-12);
    cr_expect(is_bool(vj_get(b, "on_curve"), 1) && is_bool(vj_get(b, "agree"), 0));
    const vj_node *c = vj_get(vj_get(v, "checks"), "prediction");
    cr_expect(is_bool(vj_get(c, "map"), 1));
    cr_expect_eq(vj_get(c, "map_policies")->i, 1);
    vj_free(v);
}


/* results.json as the clean study's, then one member forged: exactly one mismatch, naming it */
static void expect_forged(const char *path, const char *val, const char *line)
{
    ts_promote(M_root);
    expect_clean();
    ts_set_result(M_root, path, val);
    expect_refused(line, 1);
}

/* results.json without its `map` member (a results.json older than the member); the lab's map before, in *was */
static void drop_results_map(int *was_null)
{
    char *res = m_path("results/results.json"), err[512];
    vj_node *lab;
    cr_assert_eq(vj_parse_file(res, &lab, err, sizeof err), 0, "%s", err);
    *was_null = vj_get(lab, "map") && vj_get(lab, "map")->type == VJ_NULL;
    vj_node *old = vj_new_obj();
    for (size_t i = 0; i < lab->n; i++)
        if (strcmp(lab->keys[i], "map"))
            vj_obj_set(old, lab->keys[i], vj_copy(lab->items[i]));
    ts_write_back(old, res);
    vj_free(lab);
}

Test(map_study, forged_results_are_refused, .init = m_setup, .fini = m_teardown, .timeout = 120)
{
    build_study();
    /* within the tolerances passes: an end of wilson95 5e-12 off, a share 5e-13 off */
    ts_set_result(M_root, "map.policies.#0.cells.#0.wilson95", "[0, 0.003826758490555]");
    ts_set_result(M_root, "map.policies.#0.cells.#1.share", "0.0050000000005");
    expect_clean();
    expect_forged("map.policies.#0.hidden_capacity.load", "350",
                  "MISMATCH results.json map.policies[r2].hidden_capacity.load: lab 350, verify 325");
    expect_forged("map.policies.#0.hidden_capacity.interval", "[325, 325]",
                  "MISMATCH results.json map.policies[r2].hidden_capacity.interval[0]: lab 325, verify 300");
    expect_forged("map.policies.#0.cells.#1.share", "0.0051",
                  "MISMATCH results.json map.policies[r2].cells[load 325].share: lab 0.0051, verify 0.005");
    expect_forged("map.policies.#0.cells.#2.wilson95", "[0.0129836829, 0.0306900052297178]",
                  "MISMATCH results.json map.policies[r2].cells[load 350].wilson95[0]: lab 0.0129836829, verify "
                  "0.012983682916415");
    expect_forged("map.policies.#0.trigger.flooded.median", "3.5",
                  "MISMATCH results.json map.policies[r2].trigger.flooded.median: lab 3.5, verify 4");
    expect_forged("map.policies.#0.trigger.calm.n", "979",
                  "MISMATCH results.json map.policies[r2].trigger.calm.n: lab 979, verify 980");
    expect_forged("map.policies.#0.points.#1.agree", "true",
                  "MISMATCH results.json map.policies[r2].points[H4-r2].agree: lab true, verify false");
    expect_forged("map.policies.#0.points.#0.on_curve", "false",
                  "MISMATCH results.json map.policies[r2].points[H325-r2].on_curve: lab false, verify true");
    expect_forged("map.policies.#0.points.#1.k", "1",
                  "MISMATCH results.json map.policies[r2].points[H4-r2].k: lab 1, verify 2");
    expect_forged("map.capacity_p", "0.02", "MISMATCH results.json map.capacity_p: lab 0.02, verify 0.01");
    expect_forged("map.extra", "1", "MISMATCH results.json map.extra: lab 1, verify (a member RESULTS.md does not define)");
    /* the map null, or absent, while the prediction has one */
    expect_forged("map", "null", "MISMATCH results.json map: lab null, verify (an object of 6 members)");
    ts_promote(M_root);
    int was_null;
    drop_results_map(&was_null);
    expect_refused("MISMATCH results.json map: lab (absent), verify the map recomputed: prediction.json has a map", 1);
}

/* PREDICTION with from replaced by to (the first occurrence), registered
 * again; results.json stays the clean study's */
static void with_prediction(const char *from, const char *to)
{
    const char *at = strstr(PREDICTION, from);
    cr_assert(at, "%s", from);
    char *n = vu_xasprintf("%.*s%s%s", (int)(at - PREDICTION), PREDICTION, to, at + strlen(from));
    write_prediction(n);
    free(n);
}

static void expect_pred_refused(const char *from, const char *to, const char *line, int n)
{
    with_prediction(from, to);
    expect_refused(line, n);
}

Test(map_study, a_forged_registration_is_refused, .init = m_setup, .fini = m_teardown, .timeout = 240)
{
    build_study();
    /* the registered capacity: results.json's is recomputed (325, as it says), so only the prediction is named */
    expect_pred_refused("\"hidden_capacity\": {\"load\": 325", "\"hidden_capacity\": {\"load\": 350",
                        "MISMATCH results/prediction.json map.policies[r2].hidden_capacity.load: lab 350, verify 325 "
                        "(recomputed from the cells' k and n by the rule of results.json's map, capacity_p 0.01",
                        1);
    expect_pred_refused("\"interval\": [300, 325]", "\"interval\": [300, 350]",
                        "MISMATCH results/prediction.json map.policies[r2].hidden_capacity.interval[1]: lab 350, "
                        "verify 325",
                        1);
    expect_pred_refused("\"tips\": true", "\"tips\": false",
                        "MISMATCH results/prediction.json map.policies[r2].hidden_capacity.tips: lab false, verify true",
                        1);
    /* a share and a Wilson end against k and n (1e-9) */
    expect_pred_refused("\"share\": 0.005,", "\"share\": 0.0051,",
                        "MISMATCH results/prediction.json map.policies[r2].cells[load 325].share: lab 0.0051, verify "
                        "0.0050000000000000001 (k 5 / n 1000, within 1e-9)",
                        1);
    expect_pred_refused("0.01165095537338", "0.0116",
                        "MISMATCH results/prediction.json map.policies[r2].cells[load 325].wilson95[1]: lab 0.0116, "
                        "verify 0.011650955373375",
                        1);
    /* the trigger: n the sum of counts, the median by rank, the counts' end */
    expect_pred_refused("\"n\": 20, \"median\": 4", "\"n\": 21, \"median\": 4",
                        "MISMATCH results/prediction.json map.policies[r2].trigger.flooded.n: lab 21, verify 20 (the "
                        "sum of counts)",
                        1);
    expect_pred_refused("\"n\": 20, \"median\": 4", "\"n\": 20, \"median\": 3",
                        "MISMATCH results/prediction.json map.policies[r2].trigger.flooded.median: lab 3, verify 4 (the "
                        "percentile 0.5",
                        1);
    expect_pred_refused("[400, 500, 80]", "[400, 500, 80, 0]",
                        "MISMATCH results/prediction.json map.policies[r2].trigger.calm.counts[3]: lab 0, verify above "
                        "0: the list ends at the largest size with a seed",
                        -1);
    expect_pred_refused("\"n\": 980, \"median\": 1, \"counts\": [400, 500, 80]",
                        "\"n\": 981, \"median\": 1, \"counts\": [400, 500, 81]",
                        "MISMATCH results/prediction.json map.policies[r2].trigger.calm.n: lab 981, verify 980 (the "
                        "calm seeds of the cell at trigger_load 350: k 20 of n 1000",
                        -1);
    expect_pred_refused("[0, 0, 1, 3, 16]", "[0, 0, -1, 3, 18]",
                        "MISMATCH results/prediction.json map.policies[r2].trigger.flooded.counts: lab [0, 0, -1, 3, "
                        "18], verify a list of counts, integers >= 0",
                        -1);
    /* the cells: their loads are loads, in order; k of n; n the seeds; null medians */
    expect_pred_refused("\"loads\": [300, 325, 350]", "\"loads\": [300, 325, 375]",
                        "MISMATCH results/prediction.json map.policies[r2].cells (loads): lab [300, 325, 350], verify "
                        "[300, 325, 375] (map.loads, in its order",
                        -1);
    expect_pred_refused("\"loads\": [300, 325, 350]", "\"loads\": [300, 350, 325]",
                        "MISMATCH results/prediction.json map.loads: lab [300, 350, 325], verify loads ascending", -1);
    expect_pred_refused("{\"load\": 300, \"k\": 0, \"n\": 1000,", "{\"load\": 300, \"k\": 1001, \"n\": 1000,",
                        "MISMATCH results/prediction.json map.policies[r2].cells[load 300]: lab k 1001, n 1000, verify "
                        "integers 0 <= k <= n, n >= 1",
                        -1);
    expect_pred_refused("{\"load\": 300, \"k\": 0, \"n\": 1000,", "{\"load\": 300, \"k\": 0, \"n\": 999,",
                        "MISMATCH results/prediction.json map.policies[r2].cells[load 300].n: lab 999, verify 1000 (the "
                        "seeds of map.seeds, 1-1000)",
                        -1);
    expect_pred_refused("\"onset_median_s\": 12", "\"onset_median_s\": null",
                        "MISMATCH results/prediction.json map.policies[r2].cells[load 325].onset_median_s: lab null, "
                        "verify a number >= 0",
                        -1);
    expect_pred_refused("\"onset_median_s\": null", "\"onset_median_s\": 3",
                        "MISMATCH results/prediction.json map.policies[r2].cells[load 300].onset_median_s: lab 3, "
                        "verify null: no seed flooded",
                        -1);
    /* the cell and the arm's flood claim over the same seeds and seconds are one simulation */
    expect_pred_refused("\"sim_k\": 5, \"sim_n\": 1000, \"p_seen\": 0.009975",
                        "\"sim_k\": 6, \"sim_n\": 1000, \"p_seen\": 0.011964",
                        "MISMATCH results/prediction.json map.policies[r2].cells[load 325].k: lab 5, verify 6 (sim_k of "
                        "odds[1], H325-r2's flood claim over the same seeds and seconds",
                        -1);
    /* the arms: each the template at its load, every such arm of the runs listed */
    expect_pred_refused("{\"arm\": \"H325-r2\", \"load\": 325}", "{\"arm\": \"H325-r2\", \"load\": 300}",
                        "MISMATCH results/prediction.json map.policies[r2].arms[H325-r2].load: lab 300, verify 325 (the "
                        "arm's rate, lab/arms.tsv:",
                        -1);
    expect_pred_refused("{\"arm\": \"H325-r2\", \"load\": 325}, ", "",
                        "MISMATCH results/prediction.json map.policies[r2].arms: lab (H325-r2 absent), verify H325-r2 "
                        "listed: an arm of the runs with a flood claim (odds[1]) that is the template H4-r2 at 325/s",
                        -1);
    expect_pred_refused("{\"arm\": \"H4-r2\", \"load\": 350}", "{\"arm\": \"H4-r2\", \"load\": 350}, {\"arm\": "
                        "\"H9-r2\", \"load\": 300}",
                        "MISMATCH results/prediction.json map.policies[r2].arms[H9-r2]: lab H9-r2, verify an arm of the "
                        "prediction's runs",
                        -1);
    expect_pred_refused("\"template\": \"H4-r2\"", "\"template\": \"H325-r2\"",
                        "MISMATCH results/prediction.json map.policies[r2].template: lab H325-r2, verify H4-r2 "
                        "(H4-<policy>, or H3-<policy> when there is no H4 one",
                        -1);
    expect_pred_refused("\"trigger_load\": 350", "\"trigger_load\": 450",
                        "MISMATCH results/prediction.json map.trigger_load: lab 450, verify a load of map.loads", -1);
    /* the original registered again passes */
    write_prediction(PREDICTION);
    expect_clean();
}

/* text with each pair's first occurrence of from replaced by to (from must occur) */
static char *replaced(const char *text, const char *const *pairs, size_t n)
{
    char *t = vu_xstrdup(text);
    for (size_t i = 0; i < n; i += 2) {
        char *at = strstr(t, pairs[i]);
        cr_assert(at, "%s", pairs[i]);
        char *u = vu_xasprintf("%.*s%s%s", (int)(at - t), t, pairs[i + 1], at + strlen(pairs[i]));
        free(t);
        t = u;
    }
    return t;
}

/* RESULTS.md, "The map": the arms listed are those with a flood claim in
 * odds that are the template at a load of loads ("H3-r2 is r2 at 300/s but
 * has no flood claim: not listed; H300-r2 is listed").  The study has
 * H300-r2 as well (calm, 300/s, its line the template's but for name and
 * rate); the prediction has its runs, first without a flood claim. */
static const char *H300_RUNS =
    "  \"H300-r2-r1\": {\"seconds\": 2, \"p99_ms\": 2, \"standin_share\": 0, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null},\n"
    "  \"H300-r2-r2\": {\"seconds\": 2, \"p99_ms\": 2, \"standin_share\": 0, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null},\n"
    "  \"H325-r2-r1\"";
/* its claim over the map's seeds and seconds: the cell at 300 (0 of 1000) */
static const char *H300_CLAIM =
    "\"p_seen\": 0.009975},\n"
    "  {\"claim\": \"flood\", \"arm\": \"H300-r2\", \"event\": \"flooded\", \"seconds\": 2, \"planned_rounds\": 2,"
    " \"seeds\": \"1-1000\", \"sim_k\": 0, \"sim_n\": 1000, \"p_seen\": 0}]";
static const char *H300_LISTED = "{\"arm\": \"H4-r2\", \"load\": 350}, {\"arm\": \"H300-r2\", \"load\": 300}]";

/* the prediction of the H300-r2 study, claim and listing as asked; results.json promoted again */
static void h300_prediction(int claim, int listed)
{
    const char *pairs[] = {"  \"H325-r2-r1\"", H300_RUNS, "\"p_seen\": 0.009975}]", H300_CLAIM,
                           "{\"arm\": \"H4-r2\", \"load\": 350}]", H300_LISTED};
    const char *use[6];
    size_t n = 0;
    use[n++] = pairs[0];
    use[n++] = pairs[1];
    if (claim) {
        use[n++] = pairs[2];
        use[n++] = pairs[3];
    }
    if (listed) {
        use[n++] = pairs[4];
        use[n++] = pairs[5];
    }
    char *t = replaced(PREDICTION, use, n);
    write_prediction(t);
    free(t);
    ts_promote(M_root);
}

Test(map_study, only_arms_with_a_flood_claim_are_listed, .init = m_setup, .fini = m_teardown, .timeout = 120)
{
    M_h300 = 1;
    const char *pairs[] = {"  \"H325-r2-r1\"", H300_RUNS};
    char *p = replaced(PREDICTION, pairs, 2);
    M_pred = p;
    build_study();
    /* H300-r2 is r2 at 300/s, a load of loads, but has no flood claim: not required */
    expect_clean();
    vj_node *v = ts_verified(M_root);
    cr_expect(is_bool(ts_field(v, "H300-r2-r1", "quiet"), 1));
    cr_expect_eq(vj_get(policy0(v), "points")->n, 2);
    vj_free(v);
    /* listed without a claim: exactly one mismatch, naming the arm */
    h300_prediction(0, 1);
    expect_refused("MISMATCH results/prediction.json map.policies[r2].arms[H300-r2]: lab listed, verify not listed: "
                   "H300-r2 has no flood claim (claim \"flood\", no source) in the prediction's odds",
                   1);
    /* an entry with a source is no claim here: still not to be listed (the
     * odds' own check names the entry too: RESULTS.md's prediction odds have
     * no source; only the line is asked for) */
    const char *src[] = {"  \"H325-r2-r1\"", H300_RUNS, "\"p_seen\": 0.009975}]", H300_CLAIM,
                         "{\"arm\": \"H4-r2\", \"load\": 350}]", H300_LISTED,
                         "\"arm\": \"H300-r2\", \"event\": \"flooded\",",
                         "\"arm\": \"H300-r2\", \"event\": \"flooded\", \"source\": \"an earlier study\","};
    char *t = replaced(PREDICTION, src, 8);
    write_prediction(t);
    free(t);
    expect_refused("MISMATCH results/prediction.json map.policies[r2].arms[H300-r2]: lab listed, verify not listed", -1);
    /* with a claim and not listed: exactly one mismatch, the arm absent */
    h300_prediction(1, 0);
    expect_refused("MISMATCH results/prediction.json map.policies[r2].arms: lab (H300-r2 absent), verify H300-r2 "
                   "listed: an arm of the runs with a flood claim (odds[2]) that is the template H4-r2 at 300/s",
                   1);
    /* with a claim and listed: passes, its point on the map */
    h300_prediction(1, 1);
    expect_clean();
    v = ts_verified(M_root);
    const vj_node *pts = vj_get(policy0(v), "points");
    cr_assert_eq(pts->n, 3);
    cr_expect_str_eq(vj_get_str(pts->items[2], "arm"), "H300-r2");
    cr_expect(vj_get(pts->items[2], "k")->i == 0 && vj_get(pts->items[2], "n")->i == 2);
    cr_expect(is_bool(vj_get(pts->items[2], "agree"), 1));
    vj_free(v);
    free(p);
}

/* a map of 30 s rounds: the study's 2 s rounds are off the curve */
Test(map_study, off_the_curve_agree_is_null, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    const char *at = strstr(PREDICTION, "\"map\": {\"seconds\": 2");
    cr_assert(at);
    char *p = vu_xasprintf("%.*s\"map\": {\"seconds\": 30%s", (int)(at - PREDICTION), PREDICTION,
                           at + strlen("\"map\": {\"seconds\": 2"));
    M_pred = p;
    build_study();
    expect_clean();
    vj_node *v = ts_verified(M_root);
    const vj_node *pts = vj_get(policy0(v), "points");
    for (size_t i = 0; i < pts->n; i++) {
        cr_expect(is_bool(vj_get(pts->items[i], "on_curve"), 0), "point %zu", i);
        cr_expect_eq(vj_get(pts->items[i], "agree")->type, VJ_NULL, "point %zu", i);
        cr_expect_eq(vj_get(pts->items[i], "seconds")->i, 2, "point %zu", i);
    }
    vj_free(v);
    free(p);
}

/* a prediction without a map (older, or the published study's): map null,
 * and a results.json without the member is not asked for it */
Test(map_study, no_map_is_null, .init = m_setup, .fini = m_teardown, .timeout = 90)
{
    const char *at = strstr(PREDICTION, ",\n \"map\": {");
    cr_assert(at);
    char *p = vu_xasprintf("%.*s}\n", (int)(at - PREDICTION), PREDICTION);
    M_pred = p;
    build_study();
    expect_clean();
    vj_node *v = ts_verified(M_root);
    cr_expect_eq(vj_get(v, "map")->type, VJ_NULL);
    cr_expect(is_bool(vj_get(vj_get(vj_get(v, "checks"), "prediction"), "map"), 0));
    vj_free(v);
    /* results.json without a map member at all */
    int was_null;
    drop_results_map(&was_null);
    cr_expect(was_null, "without a map in the prediction, results.json's map is null");
    expect_clean();
    /* a map in results.json while the prediction has none */
    ts_set_result(M_root, "map", "{\"seconds\": 30}");
    expect_refused("MISMATCH results.json map: lab (an object of 1 members), verify null", 1);
    /* "map": null in the prediction is no map */
    at = strstr(PREDICTION, "\"map\": {");
    char *q = vu_xasprintf("%.*s\"map\": null}\n", (int)(at - PREDICTION), PREDICTION);
    write_prediction(q);
    ts_set_result(M_root, "map", "null");
    expect_clean();
    free(q);
    free(p);
}
