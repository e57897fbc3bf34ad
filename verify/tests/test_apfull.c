/* The whole AP result recomputed (src/ap/apfull.[ch], apfiles, apseeds;
 * pipeline/APCOST.md 1.3-1.5, 1.10-1.13) on the hand-made study of
 * tests/tapstudy.h: three model seeds, two arms, 1000 resamples of 8
 * customers (some dropped: a cutoff without a buyer drawn).
 *
 * Seed 2 by hand (scores in tapstudy.h; d = 0.25 ties with live scores):
 *   live, 06-01: 0.75{1, 1}, 0.5{1, 0}, 0.25(0), 0.125(0):
 *     2/3 * 1 + 1/3 * 3/4 = 11/12; 07-01: 0.875(1), 0.625(1), 0.5{0, 1},
 *     0.25{0, 0}: 1/3 + 1/3 + 1/3 * 3/4 = 11/12.  L2 = 11/12.
 *   none, round 1 (rows 0, 2, 7 at -inf): 06-01: 0.75(1), 0.5(0), 0.25(0),
 *     0.125(0), -inf{1, 1}: 1/3 + 2/3 * 3/6 = 2/3; 07-01: 0.875(1),
 *     0.625(1), 0.5(0), 0.25{0, 0}, -inf{1}: 1/3 + 1/3 + 1/3 * 3/6 = 5/6;
 *     A = 3/4, change -1/6.  Round 2 (rows 4, 10, 11): 06-01: 0.75(1),
 *     0.5{1, 0}, 0.25(0), 0.125(0), -inf{1}: 1/3 + 1/3 * 2/3 + 1/3 * 3/6 =
 *     13/18; 07-01: 0.875(1), 0.5{0, 1}, 0.25(0), -inf{0, 1}: 13/18;
 *     change 13/18 - 11/12 = -7/36.  Over rounds: -13/72.
 *   default, round 1 (rows 0, 2, 7 at 0.25, joining the live tie there):
 *     06-01: 0.75(1), 0.5(0), 0.25{1, 1, 0}, 0.125(0): 1/3 + 2/3 * 3/5 =
 *     11/15; 07-01: 0.875(1), 0.625(1), 0.5(0), 0.25{1, 0, 0}: 5/6;
 *     A = 47/60, change -2/15.  Round 2 (rows 4, 10, 11): 06-01: 0.75(1),
 *     0.5{1, 0}, 0.25{0, 1}, 0.125(0): 1/3 + 2/9 + 1/3 * 3/5 = 34/45;
 *     07-01: 0.875(1), 0.5{0, 1}, 0.25{0, 0, 1}: 1/3 + 2/9 + 1/3 * 3/6 =
 *     13/18; A = 133/180, change -8/45.  Over rounds: -7/45.
 * Seed 3: live 06-01: 0.625{1, 0, 1}, 0.375{0, 1}, 0.25(0): 2/3 * 2/3 +
 *   1/3 * 3/5 = 29/45; 07-01: 0.75{0, 0}, 0.5{1, 1}, 0.25(1), 0.125(0):
 *   2/3 * 2/4 + 1/3 * 3/5 = 8/15.  L3 = 53/90; the mean of the three
 *   seeds (59/90 + 11/12 + 53/90) / 3 = 389/540.
 * The other changes and every resample against slow computations: the
 * direct AP code of aptable.h (checked by hand in test_ap.c) over each
 * stand-in vector, and each resample's AP over the rows repeated as often
 * as their customer was drawn.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apboot.h"
#include "apfiles.h"
#include "aptable.h"
#include "stats.h"
#include "synap.h"
#include "tapstudy.h"
#include "vjson.h"
#include "vutil.h"

static char *g_root;

static void setup(void)
{
    g_root = th_tmpdir();
    cr_assert(g_root);
    tap_good_study(g_root);
    tap_ap_files(g_root);
}

static void teardown(void)
{
    th_rmrf(g_root);
    free(g_root);
}

static const size_t S1[3] = {0, 2, 7}, S2[3] = {4, 10, 11};

/* seed s's vector: round 0 live, else round r's stand-ins of kind k */
static void vec(int s, int r, int k, double *v)
{
    for (int i = 0; i < 12; i++)
        v[i] = TAP_LIVE[s][i];
    const size_t *S = r == 1 ? S1 : S2;
    for (int q = 0; r && q < 3; q++)
        v[S[q]] = k == 0 ? TAP_LK[s][S[q]] : k == 1 ? 0.25 : -INFINITY;
}

/* AP with each row repeated w[customer] times (customer 101 + k is index k) */
static double rep_ap(const double *v, const uint16_t *w)
{
    ap_pair x[12 * 9];
    double sum = 0;
    for (int c = 0; c < 2; c++) {
        size_t m = 0;
        for (int i = 6 * c; i < 6 * c + 6; i++)
            for (int t = 0; t < w[atoi(TAP_CUST[i]) - 101]; t++)
                x[m++] = (ap_pair){v[i], (unsigned char)TAP_LABEL[i]};
        sum += ap_average_precision(x, m);
    }
    return sum / 2;
}

Test(apfull, every_seed_and_resample_recomputed, .init = setup, .fini = teardown, .timeout = 120)
{
    char *out;
    tap_run_verify(g_root, 0, &out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    cr_expect(strstr(out, "ap.json: recomputed 3 model seeds (6 stand-in vectors each) and 1000 resamples of 3 seeds"),
              "%s", out);
    free(out);
    vj_node *v = tap_verified(g_root);
    const vj_node *ap = vj_get(v, "ap");
    TAP_NEAR(ap, "live_ap/per_seed/#0", 59.0 / 90);
    TAP_NEAR(ap, "live_ap/per_seed/#1", 11.0 / 12);
    TAP_NEAR(ap, "live_ap/per_seed/#2", 53.0 / 90);
    TAP_NEAR(ap, "live_ap/mean", 389.0 / 540);
    TAP_NEAR(ap, "arms/H3-fb25/kinds/none/change_per_seed/#1", -13.0 / 72);
    TAP_NEAR(ap, "arms/H3-fb25/kinds/default/change_per_seed/#1", -7.0 / 45);
    /* every seed and kind against the direct AP code */
    char *sp = vu_xasprintf("%s/results/reference/scores.tsv", g_root), err[256];
    ap_table t;
    cr_assert_eq(ap_table_load(sp, &t, err, sizeof err), 0, "%s", err);
    free(sp);
    static const char *const K[3] = {"last_known", "default", "none"};
    double x[12];
    for (int k = 0; k < 3; k++) {
        double mean = 0;
        for (int s = 0; s < 3; s++) {
            vec(s, 0, k, x);
            double L = ap_mean_by_cutoff(&t, x);
            vec(s, 1, k, x);
            double a1 = ap_mean_by_cutoff(&t, x);
            vec(s, 2, k, x);
            double a2 = ap_mean_by_cutoff(&t, x), c = ((a1 - L) + (a2 - L)) / 2;
            char p[128];
            snprintf(p, sizeof p, "arms/H3-fb25/kinds/%s/change_per_seed/#%d", K[k], s);
            TAP_NEAR(ap, p, c);
            snprintf(p, sizeof p, "arms/H4-r2/kinds/%s/change_per_seed/#%d", K[k], s);
            cr_expect_eq(tap_at(ap, p), 0);
            mean += c / 3;
        }
        char p[128];
        snprintf(p, sizeof p, "arms/H3-fb25/kinds/%s/change", K[k]);
        TAP_NEAR(ap, p, mean);
    }
    ap_table_free(&t);
    /* every resample, the slow way: the picks of APCOST.md 1.11 with C = 8 */
    uint16_t w[1000 * 8];
    apb_weights(1, 1000, 8, w);
    size_t used = 0;
    for (int k = 0; k < 3; k++) {
        double kept[1000];
        size_t n = 0;
        for (int b = 0; b < 1000; b++) {
            const uint16_t *wb = w + 8 * b;
            vec(0, 0, 0, x);
            int dropped = isnan(rep_ap(x, wb));
            char p[128];
            snprintf(p, sizeof p, "resamples/H3-fb25/%s/#%d", K[k], b);
            const vj_node *got = tap_node(ap, p);
            cr_assert(got, "%s", p);
            if (dropped) {
                cr_expect_eq(got->type, VJ_NULL, "%s", p);
                continue;
            }
            used += k == 0;
            double acc = 0;
            for (int s = 0; s < 3; s++) {
                vec(s, 0, k, x);
                double lb = rep_ap(x, wb), sum = 0;
                for (int r = 1; r <= 2; r++) {
                    vec(s, r, k, x);
                    sum += rep_ap(x, wb) - lb;
                }
                acc += sum / 2;
            }
            kept[n++] = acc / 3;
            cr_expect(got->type == VJ_NUM && fabs(got->num - acc / 3) < 1e-13, "%s: %.17g vs %.17g", p, got->num,
                      acc / 3);
            snprintf(p, sizeof p, "resamples/H4-r2/%s/#%d", K[k], b);
            cr_expect_eq(tap_at(ap, p), 0);
        }
        st_sort_d(kept, n);
        char p[128];
        snprintf(p, sizeof p, "arms/H3-fb25/kinds/%s/ci95/#0", K[k]);
        TAP_NEAR(ap, p, st_pct_d(kept, n, 0.025));
        snprintf(p, sizeof p, "arms/H3-fb25/kinds/%s/ci95/#1", K[k]);
        TAP_NEAR(ap, p, st_pct_d(kept, n, 0.975));
    }
    cr_expect(used > 900 && used < 1000, "some resamples dropped, most kept: %zu", used);
    TAP_NEAR(ap, "bootstrap/used", used);
    cr_expect_eq(tap_at(ap, "arms/H4-r2/kinds/none/ci95/#1"), 0);
    cr_expect_str_eq(tap_node(ap, "arms/H4-r2/kinds/none/verdict")->text, "too close to call");
    vj_free(v);
}

/* ap.json parsed, changed by f, written back; manifest-ap.tsv follows */
static void change_ap(void (*f)(vj_node *))
{
    char *p = vu_xasprintf("%s/results/ap.json", g_root), err[256];
    vj_node *o;
    cr_assert_eq(vj_parse_file(p, &o, err, sizeof err), 0, "%s", err);
    f(o);
    vu_buf b = {0};
    vj_write(o, &b);
    cr_assert_eq(syn_write_text(p, b.p), 0);
    vu_buf_free(&b);
    vj_free(o);
    free(p);
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
}

/* seeds 2 and 3 of H3-fb25's default change made up, the mean and an
 * interval that does not hold it made to agree, the verdict following the
 * interval: consistent in itself, so only the recomputation can tell */
static void made_up(vj_node *o)
{
    vj_node *k = (vj_node *)tap_node(o, "arms/H3-fb25/kinds/default");
    cr_assert(k);
    vj_node *ps = vj_get(k, "change_per_seed");
    double s0 = ps->items[0]->num;
    vj_free(ps->items[1]);
    vj_free(ps->items[2]);
    ps->items[1] = vj_new_num(-0.02);
    ps->items[2] = vj_new_num(-0.01);
    vj_obj_set(k, "change", vj_new_num((s0 - 0.03) / 3));
    vj_node *ci = vj_new_arr();
    vj_arr_push(ci, vj_new_num(-0.005));
    vj_arr_push(ci, vj_new_num(-0.001));
    vj_obj_set(k, "ci95", ci);
    vj_obj_set(k, "verdict", vj_new_str("clearly different"));
    vj_obj_set(k, "direction", vj_new_str("lower"));
}

Test(apfull, made_up_seeds_and_interval_are_found, .init = setup, .fini = teardown, .timeout = 120)
{
    change_ap(made_up);
    char *out;
    tap_run_verify(g_root, 1, &out);
    const char *want[] = {"MISMATCH ap.json arms.H3-fb25.kinds.default.change_per_seed[1]: lab -0.02, verify -0.15555",
                          "MISMATCH ap.json arms.H3-fb25.kinds.default.change_per_seed[2]: lab -0.01, verify ",
                          "MISMATCH ap.json arms.H3-fb25.kinds.default.change: lab ",
                          "MISMATCH ap.json arms.H3-fb25.kinds.default.ci95[0]: lab -0.005, verify ",
                          "MISMATCH ap.json arms.H3-fb25.kinds.default.ci95[1]: lab -0.001, verify ",
                          "(the percentile 2.5 of ap_resamples.tsv.gz's values)"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(out, want[i]), "%s\n%s", want[i], out);
    cr_expect(!strstr(out, "manifest-ap.tsv"), "the hashes were rewritten:\n%s", out);
    free(out);
}

/* the line of (arm 0 H3-fb25, kind none, resample b) in ap_resamples.tsv.gz */
static int res_line(int b)
{
    return 2 + 2 * 1000 + b;
}

Test(apfull, one_changed_resample_is_one_mismatch, .init = setup, .fini = teardown, .timeout = 120)
{
    /* a kept resample whose change is the median: far from the percentiles' ranks */
    vj_node *v = tap_verified(g_root);
    const vj_node *l = tap_node(v, "ap/resamples/H3-fb25/none");
    cr_assert(l && l->n == 1000);
    double kept[1000];
    size_t n = 0;
    for (size_t b = 0; b < 1000; b++)
        if (l->items[b]->type == VJ_NUM)
            kept[n++] = l->items[b]->num;
    st_sort_d(kept, n);
    int bm = -1;
    for (size_t b = 0; b < 1000 && bm < 0; b++)
        if (l->items[b]->type == VJ_NUM && l->items[b]->num == kept[n / 2])
            bm = (int)b;
    double x = l->items[bm]->num;
    vj_free(v);
    char *line = tap_gz_get(g_root, APF_RESAMPLES, res_line(bm)), text[160];
    char want[160];
    snprintf(want, sizeof want, "H3-fb25\tnone\t%d\t", bm);
    cr_assert(!strncmp(line, want, strlen(want)), "%s", line);
    free(line);
    snprintf(text, sizeof text, "H3-fb25\tnone\t%d\t%.17g", bm, x + 1e-9);
    tap_gz_line(g_root, APF_RESAMPLES, res_line(bm), text);
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    char *out;
    tap_run_verify(g_root, 1, &out);
    snprintf(want, sizeof want, "MISMATCH results/ap_resamples.tsv.gz:%d change (arm H3-fb25, kind none, resample %d)",
             res_line(bm), bm);
    cr_expect(strstr(out, want), "%s\n%s", want, out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(out);
    /* dropped where the recomputation keeps it */
    snprintf(text, sizeof text, "H3-fb25\tnone\t%d\tdropped", bm);
    tap_gz_line(g_root, APF_RESAMPLES, res_line(bm), text);
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, ": lab dropped, verify "), "%s", out);
    free(out);
}

Test(apfull, a_changed_last_known_is_named, .init = setup, .fini = teardown, .timeout = 120)
{
    /* seed 2, row 9 (customer 103 at 2011-07-01): 0.75, the same customer's
     * score at 2011-06-01 (row 2), made 0.5 (hashes rewritten) */
    char *line = tap_gz_get(g_root, APF_SCORES, 11);
    cr_assert_str_eq(line, "9\t103\t2011-07-01\t0.5625\t0.625\t0.25\t0.75\t0.75\t0.625");
    free(line);
    tap_gz_line(g_root, APF_SCORES, 11, "9\t103\t2011-07-01\t0.5625\t0.625\t0.25\t0.5\t0.75\t0.625");
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    char *out;
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_scores.tsv.gz:11 last_known_2 (row 9, customer 103, cutoff "
                          "2011-07-01, seed 2): lab 0.5, verify 0.75 (the score of row 2, the same customer at "
                          "2011-06-01, APCOST.md 1.3)"),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "row 9 got no stand-in: nothing else moves\n%s", out);
    free(out);
    /* seed 1, in scores.tsv and ap_scores.tsv.gz alike (both manifests rewritten) */
    tap_gz_line(g_root, APF_SCORES, 11, "9\t103\t2011-07-01\t0.5625\t0.5\t0.25\t0.75\t0.75\t0.625");
    tap_replace(g_root, "results/reference/scores.tsv", "103\t2011-07-01", "0.5625\t0.625", "0.5625\t0.5");
    cr_assert_eq(syn_write_manifest(g_root), 0);
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_scores.tsv.gz:11 last_known_1 (row 9, customer 103, cutoff "
                          "2011-07-01, seed 1): lab 0.5, verify 0.625"),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(out);
}

Test(apfull, a_changed_previous_month_score_is_named, .init = setup, .fini = teardown, .timeout = 120)
{
    /* seed 3's score of customer 105 at 2011-05-01 (row 4's last_known) made 0.125 */
    char *line = tap_gz_get(g_root, APF_PREV, 5);
    cr_assert_str_eq(line, "4\t105\t2011-05-01\t0.75\t0.125\t0.0625");
    free(line);
    tap_gz_line(g_root, APF_PREV, 5, "4\t105\t2011-05-01\t0.75\t0.125\t0.125");
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    char *out;
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_scores.tsv.gz:6 last_known_3 (row 4, customer 105, cutoff "
                          "2011-06-01, seed 3): lab 0.0625, verify 0.125 (results/reference/ap_prev_scores.tsv.gz "
                          "line 5, APCOST.md 1.3)"),
              "%s", out);
    free(out);
    /* a line for the wrong month, and one more row than summary.json counts */
    tap_gz_line(g_root, APF_PREV, 5, "4\t105\t2011-04-01\t0.75\t0.125\t0.0625");
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_prev_scores.tsv.gz:5 cutoff: lab 2011-04-01, verify "
                          "2011-05-01 (the month before 2011-06-01)"),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(out);
    tap_replace(g_root, "results/reference/summary.json", "", "\"test_rows_with_last_known\": 8",
                "\"test_rows_with_last_known\": 9");
    cr_assert_eq(syn_write_manifest(g_root), 0);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/summary.json test_rows_with_last_known: lab 9, verify 8 (rows "
                          "with a previous-cutoff score"),
              "%s", out);
    free(out);
}

Test(apfull, malformed_and_missing_files, .init = setup, .fini = teardown, .timeout = 120)
{
    char *out;
    /* seed 1's text must be scores.tsv's byte for byte: 0.8750 is the same float */
    char *line = tap_gz_get(g_root, APF_SCORES, 2);
    tap_gz_line(g_root, APF_SCORES, 2, "0\t101\t2011-06-01\t0.8750\t0.5\t0.5\t0.25\t0.625\t0.5");
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_scores.tsv.gz:2 score_1: lab 0.8750, verify 0.875"), "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(out);
    /* a score that is no number: the file is not used, only seed 1 is recomputed */
    tap_gz_line(g_root, APF_SCORES, 2, "0\t101\t2011-06-01\t0.875\t0.5\t0.5x\t0.25\t0.625\t0.5");
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_scores.tsv.gz:2 score_2: lab 0.5x, verify a score"), "%s", out);
    cr_expect(strstr(out, "NOTE ap.json: only seed 1 is recomputed"), "%s", out);
    free(out);
    tap_gz_line(g_root, APF_SCORES, 2, line);
    free(line);
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    tap_run_verify(g_root, 0, &out);
    free(out);
    /* a changed byte without a new manifest-ap.tsv */
    tap_replace(g_root, "results/ap.json", "", "\"format\": \"lab-ap 1\"", "\"format\":  \"lab-ap 1\"");
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/ap.json sha256 (manifest-ap.tsv): "), "%s", out);
    cr_expect(strstr(out, "MISMATCH results/ap.json size (manifest-ap.tsv): "), "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES\n"), "%s", out);
    free(out);
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    /* an ap_ file listed by both manifests */
    char *mp = vu_xasprintf("%s/provenance/manifest-measure.tsv", g_root);
    char *ap = vu_xasprintf("%s/provenance/manifest-ap.tsv", g_root), err[256];
    unsigned char *m, *a;
    size_t ml, al;
    cr_assert_eq(vu_read_file(mp, &m, &ml, err, sizeof err), 0);
    cr_assert_eq(vu_read_file(ap, &a, &al, err, sizeof err), 0);
    char *both = vu_xasprintf("%s%.*s", (char *)m, (int)(strchr(strchr((char *)a, '\n') + 1, '\n') - (char *)a),
                              (char *)a);
    char *nl = strstr(both, "path\tsize\tsha256\nresults/reference/ap_scores"); /* the second header */
    cr_assert(nl);
    memmove(nl, nl + strlen("path\tsize\tsha256\n"), strlen(nl + strlen("path\tsize\tsha256\n")) + 1);
    strcat(both, "\n");
    cr_assert_eq(syn_write_text(mp, both), 0);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_scores.tsv.gz manifest: lab listed by manifest-measure.tsv "
                          "and manifest-ap.tsv, verify listed by exactly one"),
              "%s", out);
    free(out);
    cr_assert_eq(syn_write_text(mp, (char *)m), 0);
    free(both);
    free(m);
    free(a);
    free(mp);
    /* without ap_prev_scores.tsv.gz, and without manifest-ap.tsv */
    char *pp = vu_xasprintf("%s/%s", g_root, APF_PREV);
    cr_assert_eq(unlink(pp), 0);
    free(pp);
    cr_assert_eq(unlink(ap), 0);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_prev_scores.tsv.gz file: lab (absent)"), "%s", out);
    cr_expect(strstr(out, "MISMATCH provenance/manifest-ap.tsv (the file): lab (absent)"), "%s", out);
    cr_expect(strstr(out, "MISMATCH results/reference/ap_scores.tsv.gz manifest: lab (not listed)"), "%s", out);
    free(out);
    /* manifest-ap.tsv without ap.json */
    cr_assert_eq(sap_write_manifest_ap(g_root), 0 - 1, "ap_prev_scores is gone: the manifest lacks a line");
    char *jp = vu_xasprintf("%s/%s", g_root, APF_JSON);
    cr_assert_eq(unlink(jp), 0);
    free(jp);
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/ap.json file: lab (absent), verify present: provenance/manifest-ap.tsv "
                          "lists it"),
              "%s", out);
    free(out);
    free(ap);
}

Test(apfull, resample_lines_out_of_order, .init = setup, .fini = teardown, .timeout = 120)
{
    char *l5 = tap_gz_get(g_root, APF_RESAMPLES, 5), *l6 = tap_gz_get(g_root, APF_RESAMPLES, 6);
    tap_gz_line(g_root, APF_RESAMPLES, 5, l6);
    tap_gz_line(g_root, APF_RESAMPLES, 6, l5);
    free(l5);
    free(l6);
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    char *out;
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH results/ap_resamples.tsv.gz:5 arm kind resample: lab H3-fb25 last_known 4, verify "
                          "H3-fb25 last_known 3"),
              "%s", out);
    free(out);
}
