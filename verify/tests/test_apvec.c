/* The vector engine of the bootstrap (src/ap/apvec.[ch]): APV_W resamples
 * a pass, one SIMD lane each.
 *
 * - By hand: the 8-row cutoff of test_apboot.c's hand_problem, its live
 *   order and the programs of its stand-in set {0, 4} (last_known, default,
 *   none), evaluated for 8 lanes of weights at once: lane 0 all ones (the
 *   numerators 4 x 83/120, 4 x 3/4, 4 x 13/28, 4 x 11/24 worked there), lane 1
 *   with customer 1 drawn twice and customer 4 not at all (worked below),
 *   the others random; every lane against aporder.c's scalar apo_eval of the
 *   same weights (within 1e-13), and every code path the CPU has (AVX-512F,
 *   AVX2, generic) against the generic one to the bit.
 * - A base order's sums taken from the live ones (apv_fill_base) against
 *   apv_fill of the base, to the bit.
 * - On a random problem big enough for long runs of ties, floods (base
 *   orders) and rounds resampled: apb_compute with the vector engine against
 *   the scalar engine (every resample's change within 1e-13, the point values
 *   and the dropped resamples identical), with 1, 3 and APV_W resamples a
 *   pass (the same bits), and on every code path (the same bits).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apboot.h"
#include "aporder.h"
#include "apvec.h"
#include "vutil.h"

static const int paths[3] = {APV_GENERIC, APV_AVX2, APV_AVX512};

/* ------------------------------------------------------------- by hand */

/*   row    0    1    2    3    4    5    6    7
 *   live  0.9  0.8  0.8  0.7  0.6  0.5  0.5  0.4     default 0.5
 *   buyer  1    0    1    0    1    0    0    1
 *   lastk 0.8   -    -    -  0.95    -    -    -
 * Lane 1's weights (1, 2, 1, 1, 0, 1, 1, 1): buyer weight pos = 3.
 *   live: ties {0} 1*1/1, {1,2} 1*2/4, {4} weight 0, {7} 1*3/8: 15/8.
 *   last_known (4 on top, 0 into 0.8's tie): {4} 0, {1,2,0} 2*2/4, {7} 1*3/8: 11/8.
 *   default (both into 0.5's tie): {1,2} 1*1/3, {5,6,0,4} 1*2/7, {7} 1*3/8: 167/168.
 *   none (both at -inf): {1,2} 1/3, {7} 1*2/7, {0,4} 1*3/8: 167/168. */
Test(apvec, hand_worked_lanes_scalar_and_paths)
{
    const float live[8] = {0.9f, 0.8f, 0.8f, 0.7f, 0.6f, 0.5f, 0.5f, 0.4f}, d = 0.5f;
    const unsigned char label[8] = {1, 0, 1, 0, 1, 0, 0, 1};
    const uint32_t cust[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const float lastk[8] = {0.8f, 0, 0, 0, 0.95f, 0, 0, 0};
    apo_vrow pairs[8];
    for (uint32_t i = 0; i < 8; i++)
        pairs[i] = (apo_vrow){live[i], i};
    size_t first[2] = {0, 8};
    apo_order o;
    memset(&o, 0, sizeof o);
    apo_order_build(&o, 1, first, pairs, cust, label);
    /* the programs: kind 0 last_known, 1 default, 2 none; then the live vector (no op: one RUN) */
    apo_prog g = {0};
    size_t off[4], len[4];
    const uint32_t srow[2] = {0, 4};
    void *scratch = vu_xmalloc(apo_scratch_size(2));
    for (int k = 0; k < 3; k++) {
        apo_item it[2];
        for (int q = 0; q < 2; q++) {
            uint32_t i = srow[q];
            float y = k == 0 ? lastk[i] : k == 1 ? d : -INFINITY;
            it[q] = (apo_item){0, o.tie_of[i], cust[i] << 1 | label[i], y};
        }
        off[k] = g.n;
        apo_seg_patch(&g, &o, 0, it, 2, scratch);
        len[k] = g.n - off[k];
    }
    off[3] = g.n;
    apo_item none[1];
    apo_seg_patch(&g, &o, 0, none, 0, scratch);
    len[3] = g.n - off[3];
    /* the weights: lane 0 ones, lane 1 worked above, the others random 0..3 */
    uint16_t w16[APV_W][8];
    int32_t *wt = apv_alloc(8 * APV_W * sizeof *wt);
    uint64_t st = 77;
    for (int l = 0; l < APV_W; l++)
        for (int c = 0; c < 8; c++) {
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            w16[l][c] = l == 0 ? 1 : l == 1 ? (c == 1 ? 2 : c == 4 ? 0 : 1) : (uint16_t)((st >> 33) % 4);
            wt[c * APV_W + l] = w16[l][c];
        }
    double R[64];
    R[0] = 0;
    for (int k = 1; k < 64; k++)
        R[k] = 1.0 / k;
    const double hand[2][4] = {{4 * 3.0 / 4, 4 * 13.0 / 28, 4 * 11.0 / 24, 4 * 83.0 / 120},
                               {11.0 / 8, 167.0 / 168, 167.0 / 168, 15.0 / 8}};
    double ref[4][APV_W]; /* the generic path's numbers */
    int ran = 0;
    for (int pi = 0; pi < 3; pi++) {
        if (apv_set_path(paths[pi]))
            continue; /* the CPU lacks it */
        ran++;
        apv_sums x;
        memset(&x, 0, sizeof x);
        apv_fill(&x, &o, 0, wt);
        for (int k = 0; k < 4; k++) {
            double out[APV_W];
            apv_eval(g.op + off[k], len[k], wt, &x, NULL, SIZE_MAX, NULL, out);
            if (k == 3)
                for (int l = 0; l < APV_W; l++)
                    cr_expect(out[l] == x.live[l], "path %s lane %d: the live program is the live sums' numerator",
                              apv_path_name(paths[pi]), l);
            for (int l = 0; l < APV_W; l++) {
                if (l < 2)
                    cr_expect(fabs(out[l] - hand[l][k]) < 1e-14, "path %s kind %d lane %d: %.17g, by hand %.17g",
                              apv_path_name(paths[pi]), k, l, out[l], hand[l][k]);
                apo_sums xs;
                memset(&xs, 0, sizeof xs);
                apo_sums_fill(&xs, &o, w16[l], R, NULL);
                double s = apo_eval(g.op + off[k], len[k], w16[l], &xs, R, NULL, SIZE_MAX, NULL);
                apo_sums_free(&xs);
                cr_expect(fabs(out[l] - s) < 1e-13, "path %s kind %d lane %d: %.17g, scalar %.17g",
                          apv_path_name(paths[pi]), k, l, out[l], s);
                if (pi == 0)
                    ref[k][l] = out[l];
                else
                    cr_expect(memcmp(&out[l], &ref[k][l], sizeof(double)) == 0, "path %s kind %d lane %d: %a vs %a",
                              apv_path_name(paths[pi]), k, l, out[l], ref[k][l]);
            }
        }
        apv_sums_free(&x);
    }
    apv_set_path(APV_AUTO);
    cr_expect(ran >= 1);
    cr_log_info("apvec: %d code paths compared (this CPU's best: %s)", ran, apv_path_name(apv_path()));
    free(wt);
    free(g.op);
    free(scratch);
    apo_order_free(&o);
}

/* apv_fill_base: the hand order without rows 0 and 4 (the base of the
 * stand-in set {0, 4}), its sums from the live ones, against apv_fill of
 * the base order to the bit, on every path; sw, sy the two rows' weight and
 * buyer weight, lane by lane */
Test(apvec, base_sums_from_the_live_ones)
{
    const float live[8] = {0.9f, 0.8f, 0.8f, 0.7f, 0.6f, 0.5f, 0.5f, 0.4f};
    const unsigned char label[8] = {1, 0, 1, 0, 1, 0, 0, 1};
    const uint32_t cust[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    apo_vrow pairs[8], kept[6];
    size_t nk = 0;
    for (uint32_t i = 0; i < 8; i++) {
        pairs[i] = (apo_vrow){live[i], i};
        if (i != 0 && i != 4)
            kept[nk++] = pairs[i];
    }
    size_t first[2] = {0, 8}, bfirst[2] = {0, nk};
    apo_order o, b;
    memset(&o, 0, sizeof o);
    memset(&b, 0, sizeof b);
    apo_order_build(&o, 1, first, pairs, cust, label);
    apo_order_build(&b, 1, bfirst, kept, cust, label);
    int32_t *wt = apv_alloc(8 * APV_W * sizeof *wt);
    uint64_t st = 5;
    for (int l = 0; l < APV_W; l++)
        for (int c = 0; c < 8; c++) {
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            wt[c * APV_W + l] = l == 0 ? 1 : (int32_t)((st >> 33) % 4);
        }
    int ran = 0;
    for (int pi = 0; pi < 3; pi++) {
        if (apv_set_path(paths[pi]))
            continue;
        ran++;
        apv_sums xl, xb, xf;
        memset(&xl, 0, sizeof xl);
        memset(&xb, 0, sizeof xb);
        memset(&xf, 0, sizeof xf);
        apv_fill(&xl, &o, 0, wt);
        apv_fill_base(&xb, &b, &xl, &o, 0, wt);
        apv_fill(&xf, &b, 0, wt);
        cr_expect(memcmp(xb.cum, xf.cum, (nk + 1) * 2 * APV_W * sizeof *xb.cum) == 0, "path %s: cum",
                  apv_path_name(paths[pi]));
        cr_expect(memcmp(xb.bt, xf.bt, b.nbt * 3 * APV_W * sizeof *xb.bt) == 0, "path %s: bt",
                  apv_path_name(paths[pi]));
        cr_expect(memcmp(xb.lp, xf.lp, (b.nbt + 1) * APV_W * sizeof *xb.lp) == 0, "path %s: lp",
                  apv_path_name(paths[pi]));
        cr_expect(memcmp(xb.live, xf.live, sizeof xb.live) == 0 && memcmp(xb.pos, xf.pos, sizeof xb.pos) == 0,
                  "path %s: live, pos", apv_path_name(paths[pi]));
        for (int l = 0; l < APV_W; l++) {
            int32_t w0 = wt[0 * APV_W + l], w4 = wt[4 * APV_W + l];
            cr_expect_eq(xb.sw[l], w0 + w4, "path %s lane %d: sw", apv_path_name(paths[pi]), l);
            cr_expect_eq(xb.sy[l], w0 + w4, "path %s lane %d: sy (both buyers)", apv_path_name(paths[pi]), l);
        }
        apv_sums_free(&xl);
        apv_sums_free(&xb);
        apv_sums_free(&xf);
    }
    apv_set_path(APV_AUTO);
    cr_expect(ran >= 1);
    free(wt);
    apo_order_free(&o);
    apo_order_free(&b);
}

/* ---------------------------------------------------- a random problem */

typedef struct {
    size_t n, ncut, C, S, nr, A;
    size_t cut_first[5], *byrow;
    unsigned char *label;
    uint32_t *cust;
    float **live, **lastk, d;
    size_t R[2], round_arm[6], *srows[6], nsrows[6];
    uint64_t rsig[2];
} big;

static uint64_t g_st;
static double u01(void)
{
    g_st = g_st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(g_st >> 11) / 9007199254740992.0;
}

/* 4 cutoffs of 150..450 rows, 400 customers, scores from 60 values (ties,
 * long runs), 5 seeds; arm 0 with 4 rounds (one empty, one flooded: a third
 * of the rows, computed over the base order), arm 1 with 2 rounds, one
 * repeating arm 0's first set */
static void make_big(big *p, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    g_st = seed;
    p->ncut = 4;
    p->C = 400;
    p->S = 5;
    p->d = 0.5f;
    size_t per[4] = {150, 450, 300, 400};
    p->n = 1300;
    p->byrow = vu_xmalloc(p->n * sizeof *p->byrow);
    p->label = vu_xmalloc(p->n);
    p->cust = vu_xmalloc(p->n * sizeof *p->cust);
    size_t i = 0;
    for (size_t c = 0; c < p->ncut; c++) {
        p->cut_first[c] = i;
        for (size_t k = 0; k < per[c]; k++, i++) {
            p->byrow[i] = i;
            p->cust[i] = (uint32_t)((k * 7 + c) % p->C);
            p->label[i] = u01() < 0.3;
        }
    }
    p->cut_first[p->ncut] = i;
    p->live = vu_xmalloc(p->S * sizeof *p->live);
    p->lastk = vu_xmalloc(p->S * sizeof *p->lastk);
    for (size_t s = 0; s < p->S; s++) {
        p->live[s] = vu_xmalloc(p->n * sizeof **p->live);
        p->lastk[s] = vu_xmalloc(p->n * sizeof **p->lastk);
        for (size_t r = 0; r < p->n; r++) {
            p->live[s][r] = (float)((int)(u01() * 60)) / 60.0f;
            p->lastk[s][r] = u01() < 0.2 ? p->d : (float)((int)(u01() * 60)) / 60.0f;
        }
    }
    p->A = 2;
    p->R[0] = 4;
    p->R[1] = 2;
    p->nr = 6;
    const double share[6] = {0.03, 0.0, 0.33, 0.08, 0.05, -1};
    for (size_t r = 0; r < p->nr; r++) {
        p->round_arm[r] = r < 4 ? 0 : 1;
        p->srows[r] = vu_xmalloc((p->n + 1) * sizeof **p->srows);
        if (share[r] < 0) { /* round 5 repeats round 0's set */
            memcpy(p->srows[r], p->srows[0], p->nsrows[0] * sizeof **p->srows);
            p->nsrows[r] = p->nsrows[0];
            continue;
        }
        for (size_t k = 0; k < p->n; k++)
            if (u01() < share[r])
                p->srows[r][p->nsrows[r]++] = k;
    }
    p->rsig[0] = 21;
    p->rsig[1] = 22;
}

static void free_big(big *p)
{
    for (size_t s = 0; s < p->S; s++) {
        free(p->live[s]);
        free(p->lastk[s]);
    }
    for (size_t r = 0; r < p->nr; r++)
        free(p->srows[r]);
    free(p->live);
    free(p->lastk);
    free(p->byrow);
    free(p->label);
    free(p->cust);
}

static apb_problem big_problem(const big *p)
{
    return (apb_problem){.n = p->n, .ncut = p->ncut, .cut_first = p->cut_first, .byrow = p->byrow,
                         .label = p->label, .cust = p->cust, .C = p->C, .S = p->S,
                         .live = (const float *const *)p->live, .lastk = (const float *const *)p->lastk, .d = p->d,
                         .A = p->A, .R = p->R, .nr = p->nr, .round_arm = p->round_arm,
                         .srows = (const size_t *const *)p->srows, .nsrows = p->nsrows, .B = 45, .K = 4,
                         .sigma = 3, .round_sigma = p->rsig};
}

Test(apvec, engine_against_the_scalar_one_lanes_and_paths)
{
    big p;
    make_big(&p, 99);
    char err[256];
    cr_assert(p.nsrows[1] == 0 && p.nsrows[2] > 100 && p.nsrows[5] == p.nsrows[0] && p.nsrows[0] > 10);
    for (int mode = 0; mode < 3; mode++) {
        apb_problem q = big_problem(&p);
        q.mode = mode;
        q.engine = 1;
        apb_result sc, ve;
        cr_assert_eq(apb_compute(&q, &sc, err, sizeof err), 0, "%s", err);
        q.engine = 0;
        cr_assert_eq(apb_compute(&q, &ve, err, sizeof err), 0, "%s", err);
        cr_expect_eq(ve.used, sc.used);
        cr_expect(sc.used > 30, "most resamples kept (%zu)", sc.used);
        cr_expect_eq(memcmp(ve.dropped, sc.dropped, q.B), 0);
        cr_expect_eq(memcmp(ve.L, sc.L, q.S * sizeof(double)), 0, "point values: the same code");
        cr_expect_eq(memcmp(ve.Ap, sc.Ap, q.S * q.nr * APB_NKINDS * sizeof(double)), 0);
        size_t nd = q.A * APB_NKINDS * q.B, nonzero = 0;
        double worst = 0;
        for (size_t i = 0; i < nd; i++) {
            double x = ve.dstar[i], y = sc.dstar[i];
            if (isnan(y)) {
                cr_expect(isnan(x), "[%zu] dropped", i);
                continue;
            }
            cr_expect(fabs(x - y) < 1e-13, "mode %d [%zu]: vector %.17g, scalar %.17g", mode, i, x, y);
            worst = fmax(worst, fabs(x - y));
            nonzero += y != 0;
        }
        cr_expect(nonzero > nd / 2, "the changes are not all zero (%zu of %zu)", nonzero, nd);
        cr_log_info("apvec mode %d: largest difference from the scalar engine %.3g", mode, worst);
        /* 1, 3 resamples a pass: the same bits */
        for (size_t lanes = 1; lanes <= 3; lanes += 2) {
            apb_result part;
            q.lanes = lanes;
            cr_assert_eq(apb_compute(&q, &part, err, sizeof err), 0, "%s", err);
            cr_expect_eq(memcmp(part.dstar, ve.dstar, nd * sizeof(double)), 0, "mode %d: %zu lanes a pass", mode,
                         lanes);
            apb_result_free(&part);
        }
        q.lanes = 0;
        /* every code path the CPU has: the same bits */
        for (int pi = 0; pi < 3; pi++) {
            if (apv_set_path(paths[pi]))
                continue;
            apb_result other;
            cr_assert_eq(apb_compute(&q, &other, err, sizeof err), 0, "%s", err);
            cr_expect_eq(memcmp(other.dstar, ve.dstar, nd * sizeof(double)), 0, "mode %d: path %s", mode,
                         apv_path_name(paths[pi]));
            apb_result_free(&other);
        }
        apv_set_path(APV_AUTO);
        apb_result_free(&sc);
        apb_result_free(&ve);
    }
    free_big(&p);
}
