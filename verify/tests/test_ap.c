/* The results/ap.json check (src/apcheck.[ch], pipeline/APCOST.md part 1):
 * the AP helper on hand values, then build/verify on a hand-made study.
 *
 * The study: 12 test rows, two cutoffs, 8 customers, default score 0.25
 * (every score a binary fraction, so floats hold them exactly).
 *
 *   row customer cutoff     label score  last_known
 *    0   101    2011-06-01   1    0.875   0.5
 *    1   102    2011-06-01   0    0.75    0.125
 *    2   103    2011-06-01   1    0.625   0.25  (new a month earlier: the default)
 *    3   104    2011-06-01   0    0.5     0.375
 *    4   105    2011-06-01   1    0.375   0.75
 *    5   106    2011-06-01   0    0.125   0.25  (new)
 *    6   101    2011-07-01   0    0.9375  0.875
 *    7   102    2011-07-01   1    0.8125  0.75
 *    8   107    2011-07-01   1    0.6875  0.25  (new)
 *    9   103    2011-07-01   0    0.5625  0.625
 *   10   108    2011-07-01   0    0.4375  0.25  (new)
 *   11   104    2011-07-01   1    0.3125  0.5
 *
 * AP of one cutoff = sum over thresholds (distinct scores, descending) of
 * (R_t - R_t-1) * P_t.  Live, cutoff 2011-06-01 (3 buyers): buyers at ranks
 * 1, 3, 5: 1/3 * (1 + 2/3 + 3/5) = 34/45.  Cutoff 2011-07-01: buyers at
 * ranks 2, 3, 6: 1/3 * (1/2 + 2/3 + 1/2) = 5/9.  L = (34/45 + 25/45) / 2 =
 * 59/90.
 *
 * Arm H3-fb25, two rounds; request j asks row j mod 12.
 *   round 1, 14 requests: K at j = 0, 7, 12 (row 0 again), 13; D at j = 2;
 *     E at j = 5.
 *   round 2, 13 requests: K at j = 4, 11; D at j = 10.
 *   M = min(14, 13) = 13, so j = 13 of round 1 does not count.
 *   S1 = {0, 2, 7} (row 0 asked twice counts once); S2 = {4, 10, 11}.
 *   Counts: round 1 live 8, last_known 3, default 1, error 1, stand-in
 *   requests 4 (share 4/13), stand-in rows 3 (share 3/12); round 2 live 10,
 *   last_known 2, default 1, error 0, stand-ins 3 (3/13), rows 3 (3/12).
 *   Arm: requests 2 x 13 = 26, stand-ins 7 (5 K, 2 D), share 7/26, rows
 *   share 0.25.
 *
 * Round 1 (S1 = {0, 2, 7}):
 *   last_known: rows 0, 2, 7 get 0.5, 0.25, 0.75.  06-01 sorted: 0.75(0),
 *     0.5{row 0: 1, row 3: 0}, 0.375(1), 0.25(1), 0.125(0):
 *     1/3 * (1/3 + 2/4 + 3/5) = 43/90; 07-01 keeps its order (0.75 stays
 *     between 0.9375 and 0.6875): 5/9.  A = (43/90 + 50/90) / 2 = 31/60,
 *     change = 31/60 - 59/90 = -5/36.
 *   default (0.25): 06-01: 0.75(0), 0.5(0), 0.375(1), 0.25{1, 1}, 0.125(0):
 *     1/3 * 1/3 + 2/3 * 3/5 = 23/45; 07-01: 0.9375(0), 0.6875(1), 0.5625(0),
 *     0.4375(0), 0.3125(1), 0.25(1): 1/3 * (1/2 + 2/5 + 3/6) = 7/15.
 *     A = (23/45 + 21/45) / 2 = 22/45, change = -1/6.
 *   none (-inf, ranked last, tied): 06-01: 0.75(0), 0.5(0), 0.375(1),
 *     0.125(0), -inf{1, 1}: 1/3 * 1/3 + 2/3 * 3/6 = 4/9; 07-01: as default,
 *     7/15.  A = (40/90 + 42/90) / 2 = 41/90, change = -1/5.
 * Round 2 (S2 = {4, 10, 11}):
 *   last_known: rows 4, 10, 11 get 0.75, 0.25, 0.5.  06-01: 0.875(1),
 *     0.75{row 1: 0, row 4: 1}, 0.625(1), 0.5(0), 0.125(0):
 *     1/3 * (1 + 2/3 + 3/4) = 29/36; 07-01: 0.9375(0), 0.8125(1), 0.6875(1),
 *     0.5625(0), 0.5(1), 0.25(0): 1/3 * (1/2 + 2/3 + 3/5) = 53/90.
 *     A = (145/180 + 106/180) / 2 = 251/360, change = +1/24.
 *   default: the ranks do not move (0.375 -> 0.25 stays above 0.125; rows
 *     10 and 11 tie at 0.25 last): A = 59/90, change 0.
 *   none: 06-01: buyers at ranks 1, 3 and the -inf tie of 1 at rank 6:
 *     1/3 * (1 + 2/3 + 3/6) = 13/18; 07-01: 1/3 * (1/2 + 2/3 + 3/6) = 5/9.
 *     A = (13/18 + 10/18) / 2 = 23/36, change = 23/36 - 59/90 = -1/60.
 * Over rounds: last_known (-5/36 + 1/24) / 2 = -7/144; default
 *   (-1/6 + 0) / 2 = -1/12; none (-1/5 - 1/60) / 2 = -13/120.
 *
 * Arm H4-r2: one round of 12 live answers: no stand-in, so every A = L,
 * every change exactly 0 and ci95 [0, 0].  Arm H4-fb25 is chosen
 * (pipeline/ap_arms.tsv) but has no run: skipped.
 *
 * The 20-seed part is made up (3 model seeds here): it cannot be
 * recomputed, only checked for consistency.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apcheck.h"
#include "aptable.h"
#include "synth.h"
#include "thelp.h"
#include "vjson.h"
#include "vutil.h"

/* ------------------------------------------------------------ AP units */

Test(ap_units, average_precision_by_hand)
{
    /* scikit-learn's documented example: average_precision_score(
     * [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) = 0.8333...: buyers at ranks 1
     * and 3: 1/2 * (1 + 2/3) */
    ap_pair p[4] = {{0.1, 0}, {0.4, 0}, {0.35, 1}, {0.8, 1}};
    cr_expect(fabs(ap_average_precision(p, 4) - 5.0 / 6) < 1e-15);
    /* a tie is one threshold: {0.5: 1, 0, 1} then 0.1(0): R 1 at P 2/3 */
    ap_pair t[4] = {{0.5, 1}, {0.5, 0}, {0.5, 1}, {0.1, 0}};
    cr_expect(fabs(ap_average_precision(t, 4) - 2.0 / 3) < 1e-15);
    /* -inf rows tie last: 0.3(0), then {-inf: 1, 1, 0}: P 2/4 */
    ap_pair n[4] = {{-INFINITY, 1}, {0.3, 0}, {-INFINITY, 1}, {-INFINITY, 0}};
    cr_expect(fabs(ap_average_precision(n, 4) - 0.5) < 1e-15);
    /* no buyer: undefined */
    ap_pair z[2] = {{0.3, 0}, {0.2, 0}};
    cr_expect(isnan(ap_average_precision(z, 2)));
}

/* ------------------------------------------------------------ the study */

static const char *const CUST[12] = {"101", "102", "103", "104", "105", "106",
                                     "101", "102", "107", "103", "108", "104"};
static const char *const CUT[12] = {"2011-06-01", "2011-06-01", "2011-06-01", "2011-06-01",
                                    "2011-06-01", "2011-06-01", "2011-07-01", "2011-07-01",
                                    "2011-07-01", "2011-07-01", "2011-07-01", "2011-07-01"};
static const int LABEL[12] = {1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1};
static const double SCORE[12] = {0.875, 0.75, 0.625, 0.5, 0.375, 0.125, 0.9375, 0.8125, 0.6875, 0.5625, 0.4375, 0.3125};
static const double LK[12] = {0.5, 0.125, 0.25, 0.375, 0.75, 0.25, 0.875, 0.75, 0.25, 0.625, 0.25, 0.5};

/*                              j: 0123456789abcd */
static const char *ROUND1 = "KLDLLELKLLLLKK";
static const char *ROUND2 = "LLLLKLLLLLDKL";
static const char *ROUND2_MOVED = "LLLKLLLLLLDKL"; /* the stand-in of j = 4 moved to j = 3 */

static char *g_root;

static void setup(void)
{
    g_root = th_tmpdir();
    cr_assert(g_root);
}

static void teardown(void)
{
    th_rmrf(g_root);
    free(g_root);
}

static void the_ref(syn_ref *ref)
{
    ref->rows = 12;
    ref->score = vu_xmalloc(12 * sizeof(float));
    ref->last_known = vu_xmalloc(12 * sizeof(float));
    ref->default_score = 0.25f;
    for (int i = 0; i < 12; i++) {
        ref->score[i] = (float)SCORE[i];
        ref->last_known[i] = (float)LK[i];
    }
}

static void write_runs(const char *root, const char *round2)
{
    syn_ref ref;
    the_ref(&ref);
    cr_assert_eq(syn_write_reference_table(root, &ref, CUST, CUT, LABEL), 0);
    syn_run r;
    syn_kind_run(&r, "H3-fb25", 1, ROUND1, &ref, 1000000000000LL);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_kind_run(&r, "H3-fb25", 2, round2, &ref, 1100000000000LL);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_kind_run(&r, "H4-r2", 1, "LLLLLLLLLLLL", &ref, 1200000000000LL);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_free_ref(&ref);
    cr_assert_eq(syn_write_manifest(root), 0);
}

static void write_inputs(const char *root)
{
    char *p = vu_xasprintf("%s/pipeline", root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/data", root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/pipeline/comparisons.tsv", root);
    syn_write_text(p, "a\tb\tfigure\tnote\n");
    free(p);
    p = vu_xasprintf("%s/data/guesses.tsv", root);
    syn_write_text(p, "id\tguess\tpredicate\n");
    free(p);
    cr_assert_eq(syn_write_quiet(root, NULL), 0);
    p = vu_xasprintf("%s/pipeline/ap_arms.tsv", root);
    syn_write_text(p, "arm\nH3-fb25\n# the retries at 450/s, with and without a stand-in\n\nH4-r2\nH4-fb25\n");
    free(p);
}

static void run_verify(const char *root, int want_rc, char **out)
{
    const char *a[] = {"--root", root, "--no-scan", NULL};
    int rc = th_run(out, a);
    cr_assert_eq(rc, want_rc, "verify exit %d, expected %d:\n%s", rc, want_rc, *out);
}

/* results.json from the verifier's own numbers, so that only ap.json can mismatch */
static void make_results(const char *root)
{
    char *rp = vu_xasprintf("%s/results/results.json", root);
    syn_write_text(rp, "{\"format\": \"lab-results 1\", \"runs\": {}, \"arms\": {}, \"verdicts\": [], \"guesses\": []}\n");
    free(rp);
    char *out;
    run_verify(root, 1, &out);
    free(out);
    cr_assert_eq(syn_results_from_verified(root), 0);
}

static vj_node *kind_obj(double cds, const double *per_seed, size_t S, double lo, double hi)
{
    vj_node *k = vj_new_obj();
    double sum = 0;
    vj_node *ps = vj_new_arr();
    for (size_t s = 0; s < S; s++) {
        double x = s == 0 ? cds : per_seed[s];
        sum += x;
        vj_arr_push(ps, vj_new_num(x));
    }
    vj_obj_set(k, "change", vj_new_num(sum / (double)S));
    vj_obj_set(k, "change_default_seed", vj_new_num(cds));
    vj_obj_set(k, "change_per_seed", ps);
    vj_node *ci = vj_new_arr();
    vj_arr_push(ci, vj_new_num(lo));
    vj_arr_push(ci, vj_new_num(hi));
    vj_obj_set(k, "ci95", ci);
    int close = lo <= 0 && 0 <= hi;
    vj_obj_set(k, "verdict", vj_new_str(close ? "too close to call" : "clearly different"));
    vj_obj_set(k, "direction", close ? vj_new_null() : vj_new_str(hi < 0 ? "lower" : "higher"));
    return k;
}

static vj_node *three(double a, double b, double c)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "last_known", vj_new_num(a));
    vj_obj_set(o, "default", vj_new_num(b));
    vj_obj_set(o, "none", vj_new_num(c));
    return o;
}

static vj_node *round_obj(int round, long long in_run, long long M, long long live, long long lk, long long def,
                          long long err, long long srows, const double *ap, const double *chg)
{
    vj_node *e = vj_new_obj();
    vj_obj_set(e, "round", vj_new_int(round));
    vj_obj_set(e, "requests_in_run", vj_new_int(in_run));
    vj_obj_set(e, "requests", vj_new_int(M));
    vj_obj_set(e, "live", vj_new_int(live));
    vj_obj_set(e, "last_known", vj_new_int(lk));
    vj_obj_set(e, "default", vj_new_int(def));
    vj_obj_set(e, "error", vj_new_int(err));
    vj_obj_set(e, "standin_requests", vj_new_int(lk + def));
    vj_obj_set(e, "standin_share", vj_new_num((double)(lk + def) / (double)M));
    vj_obj_set(e, "standin_rows", vj_new_int(srows));
    vj_obj_set(e, "standin_rows_share", vj_new_num((double)srows / 12.0));
    vj_obj_set(e, "ap_default_seed", three(ap[0], ap[1], ap[2]));
    vj_obj_set(e, "change_default_seed", three(chg[0], chg[1], chg[2]));
    return e;
}

/* ap.json as `make ap` would write it for this study, seed 1 by hand (top comment) */
static void write_ap_json(const char *root)
{
    const double L = 59.0 / 90;
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "format", vj_new_str("lab-ap 1"));
    vj_obj_set(o, "definitions", vj_new_str("pipeline/APCOST.md"));
    vj_obj_set(o, "test_rows", vj_new_int(12));
    vj_obj_set(o, "customers", vj_new_int(8));
    vj_node *c = vj_new_arr();
    vj_arr_push(c, vj_new_str("2011-06-01"));
    vj_arr_push(c, vj_new_str("2011-07-01"));
    vj_obj_set(o, "cutoffs", c);
    vj_obj_set(o, "default_score", vj_new_num(0.25));
    vj_node *k = vj_new_arr();
    vj_arr_push(k, vj_new_str("last_known"));
    vj_arr_push(k, vj_new_str("default"));
    vj_arr_push(k, vj_new_str("none"));
    vj_obj_set(o, "kinds", k);
    vj_node *ms = vj_new_arr();
    for (int s = 1; s <= 3; s++) vj_arr_push(ms, vj_new_int(s));
    vj_obj_set(o, "model_seeds", ms);
    vj_obj_set(o, "default_seed", vj_new_int(1));
    vj_node *la = vj_new_obj();
    vj_obj_set(la, "default_seed", vj_new_num(L));
    double per[3] = {L, 0.66, 0.65};
    vj_obj_set(la, "mean", vj_new_num((per[0] + per[1] + per[2]) / 3));
    vj_node *ps = vj_new_arr();
    for (int s = 0; s < 3; s++) vj_arr_push(ps, vj_new_num(per[s]));
    vj_obj_set(la, "per_seed", ps);
    vj_obj_set(o, "live_ap", la);
    vj_node *bs = vj_new_obj();
    vj_obj_set(bs, "resamples", vj_new_int(1000));
    vj_obj_set(bs, "seed", vj_new_int(1));
    vj_obj_set(bs, "model_seeds", vj_new_int(3));
    vj_obj_set(bs, "used", vj_new_int(998));
    vj_obj_set(bs, "interval", vj_new_str("percentiles 2.5 and 97.5"));
    vj_obj_set(o, "bootstrap", bs);

    vj_node *arms = vj_new_obj();
    /* H3-fb25 */
    vj_node *a = vj_new_obj();
    vj_node *rr = vj_new_arr();
    vj_arr_push(rr, vj_new_int(1));
    vj_arr_push(rr, vj_new_int(2));
    vj_obj_set(a, "rounds", rr);
    vj_obj_set(a, "requests_per_round", vj_new_int(13));
    vj_obj_set(a, "requests", vj_new_int(26));
    vj_obj_set(a, "standin_requests", vj_new_int(7));
    vj_obj_set(a, "last_known_requests", vj_new_int(5));
    vj_obj_set(a, "default_requests", vj_new_int(2));
    vj_obj_set(a, "standin_share", vj_new_num(7.0 / 26));
    vj_obj_set(a, "standin_rows_share", vj_new_num(0.25));
    vj_node *pr = vj_new_arr();
    double ap1[3] = {31.0 / 60, 22.0 / 45, 41.0 / 90}, ch1[3] = {-5.0 / 36, -1.0 / 6, -1.0 / 5};
    double ap2[3] = {251.0 / 360, 59.0 / 90, 23.0 / 36}, ch2[3] = {1.0 / 24, 0, -1.0 / 60};
    vj_arr_push(pr, round_obj(1, 14, 13, 8, 3, 1, 1, 3, ap1, ch1));
    vj_arr_push(pr, round_obj(2, 13, 13, 10, 2, 1, 0, 3, ap2, ch2));
    vj_obj_set(a, "per_round", pr);
    vj_node *kinds = vj_new_obj();
    double o_lk[3] = {0, -0.05, -0.04}, o_def[3] = {0, -0.08, -0.09}, o_none[3] = {0, -0.1, -0.12};
    vj_obj_set(kinds, "last_known", kind_obj(-7.0 / 144, o_lk, 3, -0.1, 0.02));
    vj_obj_set(kinds, "default", kind_obj(-1.0 / 12, o_def, 3, -0.15, -0.02));
    vj_obj_set(kinds, "none", kind_obj(-13.0 / 120, o_none, 3, -0.2, -0.03));
    vj_obj_set(a, "kinds", kinds);
    vj_obj_set(arms, "H3-fb25", a);
    /* H4-r2: no stand-in at all */
    a = vj_new_obj();
    rr = vj_new_arr();
    vj_arr_push(rr, vj_new_int(1));
    vj_obj_set(a, "rounds", rr);
    vj_obj_set(a, "requests_per_round", vj_new_int(12));
    vj_obj_set(a, "requests", vj_new_int(12));
    vj_obj_set(a, "standin_requests", vj_new_int(0));
    vj_obj_set(a, "last_known_requests", vj_new_int(0));
    vj_obj_set(a, "default_requests", vj_new_int(0));
    vj_obj_set(a, "standin_share", vj_new_num(0));
    vj_obj_set(a, "standin_rows_share", vj_new_num(0));
    pr = vj_new_arr();
    double apL[3] = {L, L, L}, z[3] = {0, 0, 0};
    vj_arr_push(pr, round_obj(1, 12, 12, 12, 0, 0, 0, 0, apL, z));
    vj_obj_set(a, "per_round", pr);
    kinds = vj_new_obj();
    vj_obj_set(kinds, "last_known", kind_obj(0, z, 3, 0, 0));
    vj_obj_set(kinds, "default", kind_obj(0, z, 3, 0, 0));
    vj_obj_set(kinds, "none", kind_obj(0, z, 3, 0, 0));
    vj_obj_set(a, "kinds", kinds);
    vj_obj_set(arms, "H4-r2", a);
    vj_obj_set(o, "arms", arms);
    vj_node *sk = vj_new_arr();
    vj_arr_push(sk, vj_new_str("H4-fb25"));
    vj_obj_set(o, "skipped_arms", sk);

    vu_buf b = {0};
    vj_write(o, &b);
    vj_free(o);
    char *p = vu_xasprintf("%s/results/ap.json", root);
    cr_assert_eq(syn_write_text(p, b.p), 0);
    free(p);
    vu_buf_free(&b);
}

static void good_study(const char *root)
{
    write_runs(root, ROUND2);
    write_inputs(root);
    make_results(root);
}

static vj_node *read_verified(const char *root)
{
    char *vp = vu_xasprintf("%s/results/verified.json", root);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    free(vp);
    return v;
}

/* a number at a path of object keys and array indexes ("#3") */
static double at(const vj_node *n, const char *path)
{
    char *p = vu_xstrdup(path);
    for (char *tok = strtok(p, "/"); tok && n; tok = strtok(NULL, "/")) {
        if (tok[0] == '#') {
            size_t i = (size_t)atoi(tok + 1);
            n = n->type == VJ_ARR && i < n->n ? n->items[i] : NULL;
        } else {
            n = vj_get(n, tok);
        }
    }
    cr_assert(n && n->type == VJ_NUM, "%s is not a number", path);
    free(p);
    return n->num;
}

#define NEAR(v, path, x) cr_expect(fabs(at(v, path) - (x)) < 1e-13, "%s = %.17g, expected %.17g", path, at(v, path), (double)(x))

Test(ap_study, without_ap_json_nothing_is_checked, .init = setup, .fini = teardown, .timeout = 60)
{
    good_study(g_root);
    char *out;
    run_verify(g_root, 0, &out);
    cr_expect(strstr(out, "ap.json absent"), "%s", out);
    free(out);
    vj_node *v = read_verified(g_root);
    cr_expect_eq(vj_get(v, "ap")->type, VJ_NULL);
    cr_expect_eq(vj_get(vj_get(vj_get(v, "checks"), "ap"), "checked")->b, 0);
    vj_free(v);
}

Test(ap_study, hand_made_ap_json_passes, .init = setup, .fini = teardown, .timeout = 60)
{
    good_study(g_root);
    write_ap_json(g_root);
    char *out;
    run_verify(g_root, 0, &out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);
    vj_node *v = read_verified(g_root);
    vj_node *ap = vj_get(v, "ap");
    cr_assert(ap && ap->type == VJ_OBJ);
    cr_expect_eq(vj_get(ap, "checked")->b, 1);
    cr_expect_eq(vj_get(vj_get(vj_get(v, "checks"), "ap"), "checked")->b, 1);
    /* the verifier's own seed-1 numbers: the hand values of the top comment */
    NEAR(ap, "live_ap/default_seed", 59.0 / 90);
    NEAR(ap, "customers", 8);
    NEAR(ap, "test_rows", 12);
    NEAR(ap, "default_score", 0.25);
    const char *A = "arms/H3-fb25/";
    char p[256];
#define P(s) (snprintf(p, sizeof p, "%s%s", A, s), p)
    NEAR(ap, P("requests_per_round"), 13);
    NEAR(ap, P("requests"), 26);
    NEAR(ap, P("standin_requests"), 7);
    NEAR(ap, P("last_known_requests"), 5);
    NEAR(ap, P("default_requests"), 2);
    NEAR(ap, P("standin_share"), 7.0 / 26);
    NEAR(ap, P("standin_rows_share"), 0.25);
    NEAR(ap, P("per_round/#0/requests_in_run"), 14);
    NEAR(ap, P("per_round/#0/live"), 8);
    NEAR(ap, P("per_round/#0/last_known"), 3);
    NEAR(ap, P("per_round/#0/error"), 1);
    NEAR(ap, P("per_round/#0/standin_rows"), 3);
    NEAR(ap, P("per_round/#0/ap_default_seed/last_known"), 31.0 / 60);
    NEAR(ap, P("per_round/#0/ap_default_seed/default"), 22.0 / 45);
    NEAR(ap, P("per_round/#0/ap_default_seed/none"), 41.0 / 90);
    NEAR(ap, P("per_round/#1/ap_default_seed/last_known"), 251.0 / 360);
    NEAR(ap, P("per_round/#1/change_default_seed/last_known"), 1.0 / 24);
    NEAR(ap, P("per_round/#1/change_default_seed/default"), 0);
    NEAR(ap, P("per_round/#1/ap_default_seed/none"), 23.0 / 36);
    NEAR(ap, P("kinds/last_known/change_default_seed"), -7.0 / 144);
    NEAR(ap, P("kinds/default/change_default_seed"), -1.0 / 12);
    NEAR(ap, P("kinds/none/change_default_seed"), -13.0 / 120);
#undef P
    cr_expect_eq(at(ap, "arms/H4-r2/kinds/none/change_default_seed"), 0);
    cr_expect_eq(at(ap, "arms/H4-r2/per_round/#0/ap_default_seed/none"), 59.0 / 90);
    /* what could not be recomputed is copied, and says so */
    vj_node *cp = vj_get(ap, "copied_from_ap_json");
    cr_assert(cp && cp->type == VJ_OBJ);
    cr_expect_eq(vj_get(cp, "recomputed")->b, 0);
    NEAR(cp, "arms/H3-fb25/kinds/default/ci95/#0", -0.15);
    NEAR(cp, "arms/H3-fb25/kinds/default/change", (-1.0 / 12 - 0.08 - 0.09) / 3);
    cr_expect_str_eq(vj_get_str(vj_get(vj_get(vj_get(vj_get(cp, "arms"), "H3-fb25"), "kinds"), "default"), "direction"),
                     "lower");
    cr_expect_str_eq(vj_get(ap, "skipped_arms")->items[0]->text, "H4-fb25");
    vj_free(v);
}

/* in ap.json, after the text after, give member key (its first occurrence) the number text to */
static void edit_ap(const char *root, const char *after, const char *key, const char *to)
{
    char *rp = vu_xasprintf("%s/results/ap.json", root);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(rp, &b, &len, err, sizeof err), 0);
    char *s = (char *)b;
    char *at0 = strstr(s, after);
    cr_assert(at0, "no %s in ap.json", after);
    char *k = vu_xasprintf("\"%s\": ", key);
    char *q = strstr(at0, k);
    cr_assert(q, "no %s after %s", k, after);
    q += strlen(k);
    char *e = q;
    while (*e && strchr("0123456789.-+eE", *e)) e++;
    vu_buf o = {0};
    vu_buf_add(&o, s, (size_t)(q - s));
    vu_buf_puts(&o, to);
    vu_buf_puts(&o, e);
    free(k);
    cr_assert_eq(syn_write_text(rp, o.p), 0);
    vu_buf_free(&o);
    free(b);
    free(rp);
}

Test(ap_study, one_changed_ap_is_exactly_one_mismatch, .init = setup, .fini = teardown, .timeout = 60)
{
    good_study(g_root);
    write_ap_json(g_root);
    /* round 2's AP with no score: 23/36 = 0.63888...; 1e-13 off is within the tolerance */
    edit_ap(g_root, "\"round\": 2", "none", "0.6388888888889888");
    char *out;
    run_verify(g_root, 0, &out);
    free(out);
    /* 1e-9 off is one mismatch, naming the number */
    edit_ap(g_root, "\"round\": 2", "none", "0.638888889888889");
    run_verify(g_root, 1, &out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.per_round[1].ap_default_seed.none: lab 0.638888889888889, "
                          "verify 0.6388888888888"),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(out);
    vj_node *v = read_verified(g_root);
    cr_expect_eq(at(v, "checks/mismatches_by_check/ap_json"), 1);
    cr_expect_eq(vj_get(v, "ok")->b, 0);
    vj_free(v);
}

Test(ap_study, a_moved_stand_in_is_found, .init = setup, .fini = teardown, .timeout = 60)
{
    good_study(g_root);
    write_ap_json(g_root);
    /* round 2's first stand-in moves from j = 4 (row 4) to j = 3 (row 3):
     * the files, run.json, the manifest and results.json all follow, and
     * every count stays the same; only the APs can tell.  With S2 = {3, 10,
     * 11}, last_known: 06-01 has buyers at ranks 1, 3 and in the tie at
     * 0.375 {rows 3, 4} (rank 5): 34/45; 07-01 53/90: A = 121/180. */
    write_runs(g_root, ROUND2_MOVED);
    char *out;
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    th_run(&out, a);
    free(out);
    cr_assert_eq(syn_results_from_verified(g_root), 0);
    run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.per_round[1].ap_default_seed.last_known: lab "
                          "0.6972222222222"),
              "%s", out);
    cr_expect(strstr(out, "verify 0.6722222222222"), "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.kinds.none.change_default_seed: "), "%s", out);
    cr_expect(!strstr(out, "standin_rows"), "the counts are the same:\n%s", out);
    int all = th_count_lines(out, "MISMATCH "), ap = th_count_lines(out, "MISMATCH ap.json arms.H3-fb25");
    cr_expect(all > 0 && all == ap, "only H3-fb25's AP numbers differ:\n%s", out);
    free(out);
}

Test(ap_study, the_twenty_seed_part_is_checked_for_consistency, .init = setup, .fini = teardown, .timeout = 60)
{
    good_study(g_root);
    write_ap_json(g_root);
    /* an interval holding zero called clearly different; a mean that is not
     * the mean; an arm without stand-ins with a nonzero interval */
    char *rp = vu_xasprintf("%s/results/ap.json", g_root);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(rp, &b, &len, err, sizeof err), 0);
    char *s = (char *)b;
    /* H3-fb25 last_known: ci95 [-0.1, 0.02] -> verdict must stay too close */
    char *q = strstr(s, "\"verdict\": \"too close to call\"");
    cr_assert(q);
    vu_buf o = {0};
    vu_buf_add(&o, s, (size_t)(q - s));
    vu_buf_puts(&o, "\"verdict\": \"clearly different\"");
    vu_buf_puts(&o, q + strlen("\"verdict\": \"too close to call\""));
    cr_assert_eq(syn_write_text(rp, o.p), 0);
    vu_buf_free(&o);
    free(b);
    free(rp);
    edit_ap(g_root, "\"H4-r2\"", "change", "1e-15");
    char *out;
    run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.kinds.last_known.verdict: lab \"clearly different\", "
                          "verify \"too close to call\""),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H4-r2.kinds.last_known.change: lab 1e-15, verify 0 (no stand-in"),
              "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES\n"), "%s", out);
    free(out);
}
