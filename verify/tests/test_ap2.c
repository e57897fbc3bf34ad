/* results/ap.json in format lab-ap 2 (pipeline/APCOST.md 1.5, 1.7, 1.10-1.13):
 * the rounds resampled too, each bound's Monte Carlo error, the verdict's
 * margin and flooded_runs, checked by src/ap/ (apboot, apfull, aparmcmp,
 * apcheck).
 *
 * Units: FNV-1a-64 on the usual test vectors; the round picks of 1.11
 * against a generator written here from the text of 1.11 (splitmix64's
 * finaliser, the seeding, xoshiro256**), not the verifier's dice.h; the
 * Monte Carlo error of 1.5 on an even spread by hand; the verdict rule of
 * both formats, hi < 0 <= hi + e_hi in particular.
 *
 * The study: tests/tapstudy.h's hand-made one (12 rows, 8 customers, 3
 * seeds) with two flooded runs more, both quiet: H3-fb25-r3 (a round of a
 * chosen arm: 13 stand-ins of its 14 requests; as a round of H3-fb25 its
 * first M = 13 count, as a flooded run all 14) and H3-none-r1 (an arm that
 * is not chosen: 11 stand-ins of 12).  H3-fb25 then has three rounds, so
 * its resamples draw rounds.  A third quiet flooded run, H3-down-r1 (11
 * stand-ins of 12), is of an arm with a fault: its store is down from
 * 1/3 s to 2/3 s, where every lookup is refused at once (store E, service
 * U) and answered with a stand-in; an outage, not a flood, so it is no
 * entry of flooded_runs (APCOST.md 1.5, 1.13): left out, the study passes;
 * listed, it is refused.  A stub ap.json in format 2 makes the
 * verifier compute format 2's numbers; they are promoted to ap.json,
 * ap_resamples.tsv.gz (the flooded runs' lines after the arms') and
 * manifest-ap.tsv (synap.h).  The good study test recomputes every
 * resample of H3-fb25 and of both flooded runs here the slow way, from the
 * document alone: each resample's AP over the rows repeated as often as
 * their customer was drawn, each round's stand-ins counted as often as the
 * round was drawn (this file's generator, seeded with 1 XOR FNV-1a-64 of
 * the arm's name), and the intervals and their errors from those values;
 * then the forgeries are refused one by one.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apboot.h"
#include "apfull.h"
#include "aptable.h"
#include "synap.h"
#include "tapstudy.h"
#include "vjson.h"
#include "vutil.h"

/* ------------------------------------------- the generator, from 1.11's text */

typedef struct {
    uint64_t s[4];
} t_gen;

static uint64_t t_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t t_fin(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* s[k] = F(sigma + (k + 2) * gamma) */
static void t_seed(t_gen *g, uint64_t sigma)
{
    for (uint64_t k = 0; k < 4; k++)
        g->s[k] = t_fin(sigma + (k + 2) * 0x9e3779b97f4a7c15ULL);
}

static uint64_t t_next(t_gen *g)
{
    uint64_t *s = g->s, result = t_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = t_rotl(s[3], 45);
    return result;
}

/* h <- 0xcbf29ce484222325; per byte: h <- (h ^ c) * 0x100000001b3 */
static uint64_t t_fnv(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* m[b * R + k]: how often resample b drew round index k */
static void t_round_picks(const char *arm, uint64_t sigma, size_t B, size_t R, unsigned *m)
{
    t_gen g;
    t_seed(&g, sigma ^ t_fnv(arm));
    memset(m, 0, B * R * sizeof *m);
    for (size_t b = 0; b < B; b++)
        for (size_t j = 0; j < R; j++)
            m[b * R + t_next(&g) % R]++;
}

/* the percentile of 1.12: h = (m - 1) q, linear between closest ranks */
static double t_pct(const double *v, size_t m, double q)
{
    double h = (double)(m - 1) * q, f = floor(h);
    size_t i = (size_t)f, j = i + 1 < m ? i + 1 : m - 1;
    return v[i] + (h - f) * (v[j] - v[i]);
}

/* 1.5: e = (P(min(1, q + d)) - P(max(0, q - d))) / 2, d = sqrt(q (1 - q) / m) */
static double t_mc(const double *v, size_t m, double q)
{
    double d = sqrt(q * (1 - q) / (double)m);
    return (t_pct(v, m, fmin(1, q + d)) - t_pct(v, m, fmax(0, q - d))) / 2;
}

static int t_cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* ------------------------------------------------------------------ units */

Test(ap2_units, fnv1a_64_of_known_strings)
{
    cr_expect_eq(apb_fnv1a64(""), 0xcbf29ce484222325ULL);
    cr_expect_eq(apb_fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
    cr_expect_eq(apb_fnv1a64("foobar"), 0x85944171f73967e8ULL);
    cr_expect_eq(apb_fnv1a64("H3-fb25"), t_fnv("H3-fb25"));
}

Test(ap2_units, round_picks_from_the_generator)
{
    /* this file's generator is 1.11's: its worked state and first draws for sigma = 1 */
    t_gen g;
    t_seed(&g, 1);
    cr_expect_eq(g.s[0], 0xbeeb8da1658eec67ULL);
    cr_expect_eq(g.s[3], 0x71bb54d8d101b5b9ULL);
    cr_expect_eq(t_next(&g), 18001451845637162709ULL);
    cr_expect_eq(t_next(&g), 15091038358276433251ULL);
    /* the round picks: draw b * R + j of the arm's own stream, u mod R */
    static const char *const arms[3] = {"H3-fb25", "H4-r2", "a"};
    static const size_t Rs[3] = {5, 3, 7};
    for (int a = 0; a < 3; a++) {
        size_t B = 200, R = Rs[a];
        unsigned *want = vu_xmalloc(B * R * sizeof *want);
        uint16_t *got = vu_xmalloc(B * R * sizeof *got);
        t_round_picks(arms[a], 1, B, R, want);
        apb_round_picks(1 ^ apb_fnv1a64(arms[a]), B, R, got);
        size_t differ = 0, not_one = 0;
        for (size_t b = 0; b < B; b++) {
            unsigned sum = 0;
            for (size_t k = 0; k < R; k++) {
                cr_expect_eq(got[b * R + k], want[b * R + k], "%s resample %zu round index %zu", arms[a], b, k);
                sum += got[b * R + k];
                not_one += got[b * R + k] != 1;
            }
            cr_expect_eq(sum, R, "%s resample %zu: the picks sum to R", arms[a], b);
            differ += b > 0 && memcmp(got + b * R, got, R * sizeof *got) != 0;
        }
        cr_expect(differ > B / 2 && not_one > 0, "%s: the resamples draw different rounds", arms[a]);
        free(want);
        free(got);
    }
    /* one round: m = 1 whatever the stream */
    uint16_t one[10];
    apb_round_picks(12345, 10, 1, one);
    for (int b = 0; b < 10; b++)
        cr_expect_eq(one[b], 1);
    /* resample 0's first picks of H3-fb25 (R = 5) by hand from this file's stream */
    t_seed(&g, 1 ^ t_fnv("H3-fb25"));
    unsigned m0[5] = {0};
    for (int j = 0; j < 5; j++)
        m0[t_next(&g) % 5]++;
    uint16_t m[5];
    apb_round_picks(1 ^ apb_fnv1a64("H3-fb25"), 1, 5, m);
    for (int k = 0; k < 5; k++)
        cr_expect_eq(m[k], m0[k]);
}

Test(ap2_units, monte_carlo_error_by_hand)
{
    /* 1000 values 0 .. 999: P(q) = 999 q, so e = 999 * ((q + d) - (q - d)) / 2 = 999 d */
    double v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = i;
    double d = sqrt(0.025 * 0.975 / 1000);
    cr_expect(fabs(apfull_mc_error(v, 1000, 0.025) - 999 * d) < 1e-9, "%.17g", apfull_mc_error(v, 1000, 0.025));
    cr_expect(fabs(apfull_mc_error(v, 1000, 0.975) - 999 * d) < 1e-9);
    /* clipped at 0 and 1: 3 values, q = 0.025, d = 0.0901: P(0.1151) - P(0) = 2 * 0.1151 */
    double w[3] = {0, 1, 2};
    double d3 = sqrt(0.025 * 0.975 / 3);
    cr_expect(fabs(apfull_mc_error(w, 3, 0.025) - (2 * (0.025 + d3) - 0) / 2) < 1e-15);
    cr_expect(fabs(apfull_mc_error(w, 3, 0.975) - (2 - 2 * (0.975 - d3)) / 2) < 1e-15);
    cr_expect(isnan(apfull_mc_error(v, 0, 0.025)));
    /* all equal: 0 exactly */
    double z[4] = {0, 0, 0, 0};
    cr_expect_eq(apfull_mc_error(z, 4, 0.025), 0);
}

Test(ap2_units, verdict_rule_of_each_format)
{
    const char *dir;
    /* hi < 0 but hi + e_hi >= 0: format 1 calls it, format 2 does not */
    cr_expect_str_eq(apfull_verdict(1, -0.5, -0.01, 0.001, 0.02, &dir), "clearly different");
    cr_expect_str_eq(dir, "lower");
    cr_expect_str_eq(apfull_verdict(2, -0.5, -0.01, 0.001, 0.02, &dir), "too close to call");
    cr_expect(dir == NULL);
    cr_expect_str_eq(apfull_verdict(2, -0.5, -0.01, 0.001, 0.01, &dir), "too close to call"); /* = 0: not < 0 */
    cr_expect_str_eq(apfull_verdict(2, -0.5, -0.03, 0.001, 0.02, &dir), "clearly different");
    cr_expect_str_eq(dir, "lower");
    /* lo > 0: higher only when lo - e_lo > 0 */
    cr_expect_str_eq(apfull_verdict(2, 0.01, 0.5, 0.02, 0.001, &dir), "too close to call");
    cr_expect_str_eq(apfull_verdict(2, 0.03, 0.5, 0.02, 0.001, &dir), "clearly different");
    cr_expect_str_eq(dir, "higher");
    cr_expect_str_eq(apfull_verdict(1, 0.01, 0.5, 0.02, 0.001, &dir), "clearly different");
    cr_expect_str_eq(dir, "higher");
    /* [0, 0] and no interval */
    cr_expect_str_eq(apfull_verdict(2, 0, 0, 0, 0, &dir), "too close to call");
    cr_expect_str_eq(apfull_verdict(1, 0, 0, 0, 0, &dir), "too close to call");
    cr_expect_str_eq(apfull_verdict(2, NAN, NAN, NAN, NAN, &dir), "no interval");
    cr_expect(dir == NULL);
}

/* ------------------------------------------------------------- the study */

static char *g_root;

/* round 3 of H3-fb25 and round 1 of H3-none: more than half stand-ins in their one second */
static const char *TAP2_R3 = "KKDKKLKKKKKKKK";
static const char *TAP2_NONE = "KKDKKKLKKKKK";
/* H3-down-r1: a store down in [1/3 s, 2/3 s): requests 7 .. 11 arrive in the window */
static const char *TAP2_DOWN = "KKDKKLKKKKKK";

static int t_cmp_end(const void *x, const void *y)
{
    const syn_srow *a = x, *b = y;
    return (a->end > b->end) - (a->end < b->end);
}

/* a run of arm H3-down with fault down (RAWFORMAT.md's default window):
 * each store row arriving in the window refused at once (E, no start), its
 * lookup unavailable (U) and the request answered with its stand-in; the
 * stand-ins before the window are timeouts as in any kind run */
static void down_flood_run(syn_run *r, const syn_ref *ref)
{
    syn_kind_run(r, "H3-down", 1, TAP2_DOWN, ref, 1500000000000LL);
    syn_set_fault(r, "down");
    long long F = r->t0 + r->from_ns, U = r->t0 + r->to_ns;
    size_t in = 0;
    for (size_t i = 0; i < r->ns; i++) {
        syn_srow *s = &r->s[i];
        if (s->arrive < F || s->arrive >= U)
            continue;
        cr_assert(TAP2_DOWN[s->req] != 'L', "request %lld in the window is answered live", s->req);
        s->outcome = 'E';
        s->has_start = 0;
        s->end = s->arrive;
        for (size_t k = 0; k < r->nv; k++)
            if (r->v[k].req == s->req) {
                r->v[k].a_out[0] = 'U';
                r->v[k].a_end[0] = r->v[k].a_start[0] + 20000;
            }
        in++;
    }
    cr_assert_eq(in, 5, "requests 7 .. 11 in the down window");
    qsort(r->s, r->ns, sizeof *r->s, t_cmp_end);
}

static void add_flooded_runs(const char *root)
{
    sap_table t;
    tap_table(&t);
    syn_ref ref;
    sap_ref(&t, &ref);
    syn_run r;
    syn_kind_run(&r, "H3-fb25", 3, TAP2_R3, &ref, 1300000000000LL);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_kind_run(&r, "H3-none", 1, TAP2_NONE, &ref, 1400000000000LL);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    down_flood_run(&r, &ref);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_free_ref(&ref);
    sap_free(&t);
    cr_assert_eq(syn_write_manifest(root), 0);
}

static void setup2(void)
{
    g_root = th_tmpdir();
    cr_assert(g_root);
    tap_write_runs(g_root, TAP_ROUND2);
    add_flooded_runs(g_root);
    tap_write_inputs(g_root);
    tap_make_results(g_root);
    sap_table t;
    tap_table(&t);
    cr_assert_eq(sap_write_seed_files(g_root, &t), 0);
    sap_free(&t);
    cr_assert_eq(sap_write_stub_ap_json_fmt(g_root, 1000, 3, "lab-ap 2"), 0);
    char *out;
    tap_run_verify(g_root, 1, &out);
    free(out);
    cr_assert_eq(sap_promote(g_root), 0);
}

static void teardown2(void)
{
    th_rmrf(g_root);
    free(g_root);
}

/* the stand-in rows of a round: rows j mod 12 of the requests j < M of kind K or D */
static void standin_set(const char *kinds, size_t M, unsigned char *in)
{
    memset(in, 0, 12);
    for (size_t j = 0; j < M && kinds[j]; j++)
        if (kinds[j] == 'K' || kinds[j] == 'D')
            in[j % 12] = 1;
}

/* seed s's vector with the stand-ins of kind k on the rows of `in` (NULL: live) */
static void t_vec(int s, const unsigned char *in, int k, double *v)
{
    for (int i = 0; i < 12; i++)
        v[i] = in && in[i] ? (k == 0 ? TAP_LK[s][i] : k == 1 ? 0.25 : -INFINITY) : TAP_LIVE[s][i];
}

/* AP with each row repeated w[customer] times (customer 101 + k is index k: the ids ascending) */
static double t_rep_ap(const double *v, const unsigned *w)
{
    ap_pair x[12 * 9];
    double sum = 0;
    for (int c = 0; c < 2; c++) {
        size_t m = 0;
        for (int i = 6 * c; i < 6 * c + 6; i++)
            for (unsigned t = 0; t < w[atoi(TAP_CUST[i]) - 101]; t++)
                x[m++] = (ap_pair){v[i], (unsigned char)TAP_LABEL[i]};
        sum += ap_average_precision(x, m);
    }
    return sum / 2;
}

/* the customers' weights of 1.11 (C = 8), from this file's generator */
static void t_weights(unsigned *w, size_t B)
{
    t_gen g;
    t_seed(&g, 1);
    memset(w, 0, B * 8 * sizeof *w);
    for (size_t b = 0; b < B; b++)
        for (size_t i = 0; i < 8; i++)
            w[b * 8 + t_next(&g) % 8]++;
}

/* one unit (arm or flooded run) the slow way: its resamples against
 * verified.json's at rpath, its interval and errors against kpath's */
static void check_unit(const vj_node *ap, const char *name, const char *const *rounds, size_t R, size_t M,
                       const char *rpath, const char *kpath)
{
    static const char *const K[3] = {"last_known", "default", "none"};
    unsigned *w = vu_xmalloc(1000 * 8 * sizeof *w), *m = vu_xmalloc(1000 * R * sizeof *m);
    t_weights(w, 1000);
    t_round_picks(name, 1, 1000, R, m);
    unsigned char (*in)[12] = vu_xmalloc(R * sizeof *in);
    for (size_t r = 0; r < R; r++)
        standin_set(rounds[r], M, in[r]);
    double x[12];
    size_t checked_multi = 0;
    for (int k = 0; k < 3; k++) {
        double kept[1000];
        size_t n = 0;
        for (int b = 0; b < 1000; b++) {
            const unsigned *wb = w + 8 * b;
            t_vec(0, NULL, 0, x);
            int dropped = isnan(t_rep_ap(x, wb));
            char p[200];
            snprintf(p, sizeof p, "%s/%s/#%d", rpath, K[k], b);
            const vj_node *got = tap_node(ap, p);
            cr_assert(got, "%s", p);
            if (dropped) {
                cr_expect_eq(got->type, VJ_NULL, "%s", p);
                continue;
            }
            double acc = 0;
            for (int s = 0; s < 3; s++) {
                t_vec(s, NULL, 0, x);
                double lb = t_rep_ap(x, wb), sum = 0;
                for (size_t r = 0; r < R; r++) {
                    t_vec(s, in[r], k, x);
                    sum += m[b * R + r] * (t_rep_ap(x, wb) - lb);
                }
                acc += sum / (double)R;
            }
            kept[n++] = acc / 3;
            for (size_t r = 0; r < R; r++)
                checked_multi += m[b * R + r] != 1;
            cr_expect(got->type == VJ_NUM && fabs(got->num - acc / 3) < 1e-13, "%s: %.17g vs %.17g", p, got->num,
                      acc / 3);
        }
        qsort(kept, n, sizeof *kept, t_cmp);
        char p[200];
        snprintf(p, sizeof p, "%s/%s/ci95/#0", kpath, K[k]);
        TAP_NEAR(ap, p, t_pct(kept, n, 0.025));
        snprintf(p, sizeof p, "%s/%s/ci95/#1", kpath, K[k]);
        TAP_NEAR(ap, p, t_pct(kept, n, 0.975));
        snprintf(p, sizeof p, "%s/%s/ci95_mc/#0", kpath, K[k]);
        TAP_NEAR(ap, p, t_mc(kept, n, 0.025));
        snprintf(p, sizeof p, "%s/%s/ci95_mc/#1", kpath, K[k]);
        TAP_NEAR(ap, p, t_mc(kept, n, 0.975));
        /* the verdict of format 2 on these numbers */
        double lo = t_pct(kept, n, 0.025), hi = t_pct(kept, n, 0.975);
        double elo = t_mc(kept, n, 0.025), ehi = t_mc(kept, n, 0.975);
        const char *v = hi + ehi < 0 || lo - elo > 0 ? "clearly different" : "too close to call";
        snprintf(p, sizeof p, "%s/%s/verdict", kpath, K[k]);
        cr_expect_str_eq(tap_node(ap, p)->text, v, "%s", p);
    }
    if (R > 1)
        cr_expect(checked_multi > 1000, "%s: rounds drawn more than once or not at all (%zu)", name, checked_multi);
    free(in);
    free(w);
    free(m);
}

Test(ap2_study, format_2_recomputed_and_passes, .init = setup2, .fini = teardown2, .timeout = 180)
{
    char *out;
    tap_run_verify(g_root, 0, &out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);
    vj_node *v = tap_verified(g_root);
    /* H3-down-r1 is a quiet flooded run by the verifier's own figures, of an arm with a fault */
    const vj_node *dn = tap_node(v, "runs/H3-down-r1");
    cr_assert(dn, "runs.H3-down-r1");
    cr_expect(tap_node(dn, "flooded")->b, "H3-down-r1 floods");
    cr_expect(tap_node(dn, "quiet")->b, "H3-down-r1 is quiet");
    cr_expect_eq(tap_at(dn, "during_standins"), 5);
    cr_expect_eq(tap_at(v, "checks/ap/flooded_runs_recomputed"), 2);
    cr_expect_eq(tap_at(v, "checks/ap/flooded_runs_outages_left_out"), 1);
    const vj_node *ap = vj_get(v, "ap");
    const vj_node *fr = vj_get(ap, "flooded_runs");
    cr_assert(fr && fr->type == VJ_OBJ && fr->n == 2,
              "flooded_runs: the two quiet flooded runs of arms without a fault (not H3-down-r1)");
    cr_expect(!vj_get(fr, "H3-down-r1"));
    cr_expect(!tap_node(ap, "flooded_resamples/H3-down-r1"));
    cr_expect_str_eq(fr->keys[0], "H3-fb25-r3");
    cr_expect_str_eq(fr->keys[1], "H3-none-r1");
    cr_expect_str_eq(tap_node(fr, "H3-fb25-r3/arm")->text, "H3-fb25");
    cr_expect_eq(tap_at(fr, "H3-fb25-r3/round"), 3);
    cr_expect_eq(tap_at(fr, "H3-fb25-r3/requests"), 14);  /* all its rows: M = its own */
    cr_expect_eq(tap_at(fr, "H3-fb25-r3/standin_requests"), 13);
    cr_expect_eq(tap_at(fr, "H3-fb25-r3/standin_rows"), 11);
    TAP_NEAR(fr, "H3-fb25-r3/standin_share", 13.0 / 14);
    TAP_NEAR(fr, "H3-fb25-r3/standin_rows_share", 11.0 / 12);
    cr_expect_eq(tap_at(fr, "H3-none-r1/requests"), 12);
    cr_expect_eq(tap_at(fr, "H3-none-r1/standin_requests"), 11);
    cr_expect_eq(tap_at(ap, "arms/H3-fb25/requests_per_round"), 13);
    cr_expect(tap_node(ap, "bootstrap/rounds_resampled")->b);
    /* the flooded runs' changes per seed: A - L of the one round */
    double x[12];
    unsigned char in[12];
    standin_set(TAP2_NONE, 12, in);
    static const char *const K[3] = {"last_known", "default", "none"};
    char sp[256], err[256];
    snprintf(sp, sizeof sp, "%s/results/reference/scores.tsv", g_root);
    ap_table t;
    cr_assert_eq(ap_table_load(sp, &t, err, sizeof err), 0, "%s", err);
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++) {
            t_vec(s, NULL, k, x);
            double L = ap_mean_by_cutoff(&t, x);
            t_vec(s, in, k, x);
            double A = ap_mean_by_cutoff(&t, x);
            char p[160];
            snprintf(p, sizeof p, "H3-none-r1/kinds/%s/change_per_seed/#%d", K[k], s);
            TAP_NEAR(fr, p, A - L);
        }
    ap_table_free(&t);
    /* every resample the slow way: H3-fb25 with its three rounds drawn, the flooded runs alone */
    const char *fb[3] = {TAP_ROUND1, TAP_ROUND2, TAP2_R3};
    check_unit(ap, "H3-fb25", fb, 3, 13, "resamples/H3-fb25", "arms/H3-fb25/kinds");
    const char *r3[1] = {TAP2_R3}, *nn[1] = {TAP2_NONE};
    check_unit(ap, "H3-fb25-r3", r3, 1, 14, "flooded_resamples/H3-fb25-r3", "flooded_runs/H3-fb25-r3/kinds");
    check_unit(ap, "H3-none-r1", nn, 1, 12, "flooded_resamples/H3-none-r1", "flooded_runs/H3-none-r1/kinds");
    /* H4-r2 has no stand-in: every error exactly 0 */
    cr_expect_eq(tap_at(ap, "arms/H4-r2/kinds/none/ci95_mc/#1"), 0);
    /* copied_from_ap_json carries ap.json's ci95_mc and flooded_runs as written (the report reads them) */
    const vj_node *cp = vj_get(ap, "copied_from_ap_json");
    cr_assert(cp && cp->type == VJ_OBJ);
    TAP_NEAR(cp, "arms/H3-fb25/kinds/default/ci95_mc/#1", tap_at(ap, "arms/H3-fb25/kinds/default/ci95_mc/#1"));
    const vj_node *cfr = vj_get(cp, "flooded_runs");
    cr_assert(cfr && cfr->type == VJ_OBJ && cfr->n == 2, "copied flooded_runs");
    cr_expect_str_eq(cfr->keys[0], "H3-fb25-r3");
    cr_expect_eq(tap_at(cfr, "H3-fb25-r3/standin_requests"), 13);
    TAP_NEAR(cfr, "H3-none-r1/kinds/none/ci95_mc/#0", tap_at(fr, "H3-none-r1/kinds/none/ci95_mc/#0"));
    TAP_NEAR(cfr, "H3-none-r1/kinds/none/change", tap_at(fr, "H3-none-r1/kinds/none/change"));
    vj_free(v);
    /* ap.json as promoted: format 2, the flooded runs' lines after the arms' (3 kinds x 1000 each) */
    char *line = tap_gz_get(g_root, APF_RESAMPLES, 2 + 2 * 3000);
    cr_expect(!strncmp(line, "H3-fb25-r3\tlast_known\t0\t", 24), "%s", line);
    free(line);
    line = tap_gz_get(g_root, APF_RESAMPLES, 2 + 3 * 3000);
    cr_expect(!strncmp(line, "H3-none-r1\tlast_known\t0\t", 24), "%s", line);
    free(line);
}

/* ap.json parsed, changed by f, written back; manifest-ap.tsv follows */
static void change_ap2(void (*f)(vj_node *))
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

static char *verify_refused(void)
{
    char *out;
    tap_run_verify(g_root, 1, &out);
    cr_expect(!strstr(out, "manifest-ap.tsv"), "the hashes were rewritten:\n%s", out);
    return out;
}

static void forge_mc(vj_node *o)
{
    vj_node *mc = (vj_node *)tap_node(o, "arms/H3-fb25/kinds/default/ci95_mc");
    cr_assert(mc && mc->type == VJ_ARR && mc->n == 2);
    mc->items[1]->num += 1e-6;
    mc->items[1]->is_int = 0;
}

Test(ap2_study, forged_monte_carlo_error_is_refused, .init = setup2, .fini = teardown2, .timeout = 180)
{
    change_ap2(forge_mc);
    char *out = verify_refused();
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.kinds.default.ci95_mc[1]: lab "), "%s", out);
    cr_expect(strstr(out, "(the Monte Carlo errors of the recomputed bounds, APCOST.md 1.5)"), "%s", out);
    cr_expect(strstr(out, "(the Monte Carlo error of the percentile 97.5 of ap_resamples.tsv.gz's values)"), "%s", out);
    free(out);
}

/* a kind whose verdict is too close to call made "clearly different": its
 * interval and errors left as they are (hi + e_hi >= 0), so the rule
 * refuses it; the one with the largest hi < 0 when some has one (format 1
 * would call that one), else the first */
static char g_kind[160];
static void forge_verdict(vj_node *o)
{
    static const char *const U[4] = {"arms/H3-fb25", "arms/H4-r2", "flooded_runs/H3-fb25-r3",
                                     "flooded_runs/H3-none-r1"};
    static const char *const K[3] = {"last_known", "default", "none"};
    vj_node *best = NULL;
    double best_hi = INFINITY;
    for (int u = 0; u < 4; u++)
        for (int k = 0; k < 3; k++) {
            char p[160];
            snprintf(p, sizeof p, "%s/kinds/%s", U[u], K[k]);
            vj_node *e = (vj_node *)tap_node(o, p);
            cr_assert(e, "%s", p);
            if (strcmp(vj_get(e, "verdict")->text, "too close to call"))
                continue;
            double hi = tap_at(e, "ci95/#1"), ehi = tap_at(e, "ci95_mc/#1");
            cr_assert(hi + ehi >= 0, "%s", p);
            double key = hi < 0 ? -hi : INFINITY - 1;
            if (!best || key < best_hi) {
                best = e;
                best_hi = key;
                snprintf(g_kind, sizeof g_kind, "%s.kinds.%s", U[u], K[k]);
                *strchr(g_kind, '/') = '.';
            }
        }
    cr_assert(best, "no kind is too close to call");
    vj_obj_set(best, "verdict", vj_new_str("clearly different"));
    vj_obj_set(best, "direction", vj_new_str("lower"));
}

Test(ap2_study, forged_verdict_is_refused, .init = setup2, .fini = teardown2, .timeout = 180)
{
    change_ap2(forge_verdict);
    char *out = verify_refused();
    char want[256];
    snprintf(want, sizeof want, "MISMATCH ap.json %s.verdict: lab \"clearly different\", verify \"too close to call\"\n",
             g_kind);
    cr_expect(strstr(out, want), "%s\n%s", want, out);
    snprintf(want, sizeof want, "MISMATCH ap.json %s.direction: lab \"lower\", verify null\n", g_kind);
    cr_expect(strstr(out, want), "%s\n%s", want, out);
    free(out);
}

/* the line of ap_resamples.tsv.gz of unit u (0, 1 arms; 2, 3 flooded runs), kind k, resample b */
static int res_line2(int u, int k, int b)
{
    return 2 + u * 3000 + k * 1000 + b;
}

Test(ap2_study, forged_resample_values_are_refused, .init = setup2, .fini = teardown2, .timeout = 180)
{
    /* a kept resample of H3-fb25 (rounds drawn) and one of a flooded run, each moved by 1e-9 */
    int lines[2] = {0, 0};
    for (int u = 0; u < 2; u++) {
        int unit = u == 0 ? 0 : 3;
        for (int b = 500; b < 1000 && !lines[u]; b++) {
            char *l = tap_gz_get(g_root, APF_RESAMPLES, res_line2(unit, 2, b));
            char *tab = strrchr(l, '\t');
            if (strcmp(tab + 1, "dropped") && strtod(tab + 1, NULL) != 0) {
                char nl[256];
                *tab = 0;
                snprintf(nl, sizeof nl, "%s\t%.17g", l, strtod(tab + 1, NULL) + 1e-9);
                tap_gz_line(g_root, APF_RESAMPLES, res_line2(unit, 2, b), nl);
                lines[u] = res_line2(unit, 2, b);
            }
            free(l);
        }
        cr_assert(lines[u]);
    }
    cr_assert_eq(sap_write_manifest_ap(g_root), 0);
    char *out = verify_refused();
    char want[128];
    for (int u = 0; u < 2; u++) {
        snprintf(want, sizeof want, "MISMATCH results/ap_resamples.tsv.gz:%d change (%s", lines[u],
                 u ? "flooded run H3-none-r1, kind none" : "arm H3-fb25, kind none");
        cr_expect(strstr(out, want), "%s\n%s", want, out);
    }
    free(out);
}

static void drop_flood(vj_node *o)
{
    vj_node *fr = vj_get(o, "flooded_runs");
    cr_assert(fr && fr->n == 2 && !strcmp(fr->keys[1], "H3-none-r1"));
    vj_free(fr->items[1]);
    free(fr->keys[1]);
    fr->n = 1;
}

Test(ap2_study, missing_flooded_run_is_refused, .init = setup2, .fini = teardown2, .timeout = 180)
{
    change_ap2(drop_flood);
    char *out = verify_refused();
    cr_expect(strstr(out, "MISMATCH ap.json flooded_runs.H3-none-r1: lab (absent), verify a quiet flooded run of the "
                          "study of an arm without a fault (arm H3-none, round 1; APCOST.md 1.5, 1.13)\n"),
              "%s", out);
    free(out);
}

static void extra_flood(vj_node *o)
{
    vj_node *fr = vj_get(o, "flooded_runs");
    cr_assert(fr && fr->n == 2);
    vj_node *x = vj_copy(fr->items[1]);
    vj_obj_set(x, "arm", vj_new_str("H4-r2"));
    vj_obj_set(fr, "H4-r2-r1", x);
}

Test(ap2_study, extra_run_in_flooded_runs_is_refused, .init = setup2, .fini = teardown2, .timeout = 180)
{
    change_ap2(extra_flood);
    char *out = verify_refused();
    cr_expect(strstr(out, "MISMATCH ap.json flooded_runs.H4-r2-r1: lab (present), verify (not a flooded run: its "
                          "flooded is false, recomputed from its raw files)\n"),
              "%s", out);
    free(out);
}

/* H3-down-r1 listed: H3-none-r1's entry under its name, arm and round */
static void outage_flood(vj_node *o)
{
    vj_node *fr = vj_get(o, "flooded_runs");
    cr_assert(fr && fr->n == 2 && !strcmp(fr->keys[1], "H3-none-r1"));
    vj_node *x = vj_copy(fr->items[1]);
    vj_obj_set(x, "arm", vj_new_str("H3-down"));
    vj_obj_set(fr, "H3-down-r1", x);
}

Test(ap2_study, outage_run_in_flooded_runs_is_refused, .init = setup2, .fini = teardown2, .timeout = 180)
{
    change_ap2(outage_flood);
    char *out = verify_refused();
    cr_expect(strstr(out, "MISMATCH ap.json flooded_runs.H3-down-r1: lab (present), verify (a quiet flooded run of an "
                          "arm with a fault, run.json's fault.name down: an outage, not a flood; APCOST.md 1.5 takes "
                          "arms without a fault only)\n"),
              "%s", out);
    /* the two runs that belong there are not named */
    cr_expect(!strstr(out, "flooded_runs.H3-none-r1"), "%s", out);
    cr_expect(!strstr(out, "flooded_runs.H3-fb25-r3"), "%s", out);
    free(out);
}

static void to_format_1(vj_node *o)
{
    vj_obj_set(o, "format", vj_new_str("lab-ap 1"));
}

Test(ap2_study, format_2_members_in_format_1_are_refused, .init = setup2, .fini = teardown2, .timeout = 180)
{
    change_ap2(to_format_1);
    char *out = verify_refused();
    cr_expect(strstr(out, "MISMATCH ap.json flooded_runs: lab "), "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json bootstrap.rounds_resampled: lab true, verify (a member APCOST.md does not "
                          "define)\n"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.kinds.none.ci95_mc: lab "), "%s", out);
    free(out);
}

/* H3-fb25's none: hi < 0 but hi + e_hi >= 0, called clearly different (format 1's rule would) */
static void forge_margin(vj_node *o)
{
    vj_node *e = (vj_node *)tap_node(o, "arms/H3-fb25/kinds/none");
    cr_assert(e);
    vj_node *ci = vj_new_arr(), *mc = vj_new_arr();
    vj_arr_push(ci, vj_new_num(-0.25));
    vj_arr_push(ci, vj_new_num(-0.001));
    vj_arr_push(mc, vj_new_num(0.002));
    vj_arr_push(mc, vj_new_num(0.0015));
    vj_obj_set(e, "ci95", ci);
    vj_obj_set(e, "ci95_mc", mc);
    vj_obj_set(e, "verdict", vj_new_str("clearly different"));
    vj_obj_set(e, "direction", vj_new_str("lower"));
}

Test(ap2_study, without_the_seeds_the_margin_rule_on_the_lab_numbers, .init = setup2, .fini = teardown2,
     .timeout = 180)
{
    /* only seed 1 recomputed (ap_scores.tsv.gz gone): the verdict is
     * checked by format 2's rule on ap.json's own interval and errors */
    change_ap2(forge_margin);
    char *p = vu_xasprintf("%s/results/reference/ap_scores.tsv.gz", g_root);
    cr_assert_eq(unlink(p), 0);
    free(p);
    char *out;
    tap_run_verify(g_root, 1, &out);
    cr_expect(strstr(out, "NOTE ap.json: only seed 1 is recomputed"), "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.kinds.none.verdict: lab \"clearly different\", verify \"too "
                          "close to call\"\n"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH ap.json arms.H3-fb25.kinds.none.direction: lab \"lower\", verify null (too close "
                          "to call)\n"),
              "%s", out);
    /* the flooded runs are still there, each checked for seed 1 */
    cr_expect(!strstr(out, "flooded_runs.H3-none-r1"), "%s", out);
    free(out);
}
