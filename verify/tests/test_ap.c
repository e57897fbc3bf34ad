/* The results/ap.json check (src/ap/apcheck.[ch], pipeline/APCOST.md part 1):
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
 * The study has three model seeds (tests/tapstudy.h); the other two seeds,
 * the bootstrap and the files of APCOST.md 1.10 are test_apfull.c's.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apcheck.h"
#include "aptable.h"
#include "synap.h"
#include "synth.h"
#include "tapstudy.h"
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

static const char *ROUND2_MOVED = "LLLKLLLLLLDKL"; /* the stand-in of j = 4 moved to j = 3 */

#define NEAR TAP_NEAR
#define at tap_at
#define read_verified tap_verified
#define good_study tap_good_study

static void run_verify(const char *root, int want_rc, char **out)
{
    tap_run_verify(root, want_rc, out);
}

/* in ap.json, after the text after, give member key (its first occurrence)
 * the number text to; manifest-ap.tsv follows */
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
    while (*e && strchr("0123456789.-+eE", *e))
        e++;
    vu_buf o = {0};
    vu_buf_add(&o, s, (size_t)(q - s));
    vu_buf_puts(&o, to);
    vu_buf_puts(&o, e);
    free(k);
    cr_assert_eq(syn_write_text(rp, o.p), 0);
    vu_buf_free(&o);
    free(b);
    free(rp);
    cr_assert_eq(sap_write_manifest_ap(root), 0);
}

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

Test(ap_study, seed_1_by_hand, .init = setup, .fini = teardown, .timeout = 60)
{
    good_study(g_root);
    tap_ap_files(g_root);
    char *out;
    run_verify(g_root, 0, &out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);
    vj_node *v = read_verified(g_root);
    vj_node *ap = vj_get(v, "ap");
    cr_assert(ap && ap->type == VJ_OBJ);
    cr_expect_eq(vj_get(ap, "checked")->b, 1);
    cr_expect_eq(vj_get(ap, "whole_result_recomputed")->b, 1);
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
    NEAR(ap, P("kinds/none/change_per_seed/#0"), -13.0 / 120);
#undef P
    cr_expect_eq(at(ap, "arms/H4-r2/kinds/none/change_default_seed"), 0);
    cr_expect_eq(at(ap, "arms/H4-r2/per_round/#0/ap_default_seed/none"), 59.0 / 90);
    cr_expect_str_eq(vj_get(ap, "skipped_arms")->items[0]->text, "H4-fb25");
    /* the chosen-arms file relative to the (absolute) root: no path of the machine */
    cr_expect_str_eq(vj_get(ap, "chosen_arms_from")->text, "pipeline/ap_arms.tsv");
    /* the reference scores: 4 + 4 rows with a score a month earlier */
    NEAR(ap, "reference_scores/rows_with_last_known", 8);
    NEAR(ap, "reference_scores/prev_lines", 4);
    NEAR(ap, "reference_scores/seeds", 3);
    /* ap.json's own numbers are still copied for the report */
    vj_node *cp = vj_get(ap, "copied_from_ap_json");
    cr_assert(cp && cp->type == VJ_OBJ);
    NEAR(cp, "arms/H3-fb25/kinds/none/change_per_seed/#0", -13.0 / 120);
    vj_free(v);
}

Test(ap_study, one_changed_ap_is_exactly_one_mismatch, .init = setup, .fini = teardown, .timeout = 60)
{
    good_study(g_root);
    tap_ap_files(g_root);
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
    tap_ap_files(g_root);
    /* round 2's first stand-in moves from j = 4 (row 4) to j = 3 (row 3):
     * the files, run.json, the manifest and results.json all follow, and
     * every count stays the same; only the APs can tell.  With S2 = {3, 10,
     * 11}, last_known: 06-01 has buyers at ranks 1, 3 and in the tie at
     * 0.375 {rows 3, 4} (rank 5): 34/45; 07-01 53/90: A = 121/180. */
    tap_write_runs(g_root, ROUND2_MOVED);
    char *out;
    tap_verify(g_root, &out);
    free(out);
    cr_assert_eq(syn_results_from_verified(g_root), 0);
    run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.per_round[1].ap_default_seed.last_known: lab "
                          "0.6972222222222"),
              "%s", out);
    cr_expect(strstr(out, "verify 0.6722222222222"), "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.kinds.none.change_default_seed: "), "%s", out);
    cr_expect(!strstr(out, "standin_rows"), "the counts are the same:\n%s", out);
    /* only H3-fb25's AP numbers differ: in ap.json and in its resamples */
    int all = th_count_lines(out, "MISMATCH "), ap = th_count_lines(out, "MISMATCH ap.json arms.H3-fb25"),
        res = th_count_lines(out, "MISMATCH results/ap_resamples.tsv.gz:");
    cr_expect(all > 0 && all == ap + res, "only H3-fb25's AP numbers differ:\n%s", out);
    cr_expect(res > 0 && !strstr(out, "arm H4-r2"), "%s", out);
    free(out);
}

Test(ap_study, without_the_seeds_only_seed_1_and_consistency, .init = setup, .fini = teardown, .timeout = 60)
{
    good_study(g_root);
    tap_ap_files(g_root);
    /* without ap_scores.tsv.gz: its absence is a mismatch; seed 1 is still
     * recomputed and the rest checked for consistency: an interval holding
     * zero called clearly different, and an arm without stand-ins with a
     * nonzero change, are found */
    vj_node *v0 = read_verified(g_root);
    const vj_node *ci = tap_node(v0, "ap/arms/H3-fb25/kinds/last_known/ci95");
    cr_assert(ci && ci->type == VJ_ARR);
    int close = ci->items[0]->num <= 0 && ci->items[1]->num >= 0;
    vj_free(v0);
    tap_replace(g_root, "results/ap.json", "\"last_known\": {", close ? "too close to call" : "clearly different",
                close ? "clearly different" : "too close to call");
    edit_ap(g_root, "\"H4-r2\"", "change", "1e-15");
    char *p = vu_xasprintf("%s/results/reference/ap_scores.tsv.gz", g_root);
    cr_assert_eq(unlink(p), 0);
    free(p);
    char *out;
    run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "NOTE ap.json: only seed 1 is recomputed: results/reference/ap_scores.tsv.gz is missing"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_scores.tsv.gz file: lab (absent)"), "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.kinds.last_known.verdict: "), "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H4-r2.kinds.last_known.change: lab 1e-15, verify 0 (no stand-in"),
              "%s", out);
    /* the file, the verdict, the change */
    cr_expect(strstr(out, "\n3 MISMATCHES\n"), "%s", out);
    free(out);
}
