/* The bootstrap's generator and the fast AP engine (src/ap/apboot.[ch]).
 *
 * The generator against the worked values of pipeline/APCOST.md 1.11 (the
 * lab's own tests check the same numbers against its ut_rng).  The engine
 * against the definitions computed the slow way: each AP by
 * ap_average_precision (aptable.h, itself checked on hand values in
 * test_ap.c) over the stand-in vector's rows, a resample's AP over the rows
 * repeated as often as their customer was drawn (APCOST.md 1.5: "as if each
 * row of customer c appeared w_b(c) times"), on random tables with many
 * ties, stand-ins equal to live scores and to the default, rows asked in
 * several rounds, an empty round, and cutoffs without buyers in some
 * resamples.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apboot.h"
#include "dice.h"
#include "aptable.h"
#include "vutil.h"

Test(apboot, generator_worked_values)
{
    dc_gen r;
    dc_seed(&r, 1);
    cr_expect_eq(r.s[0], 0xbeeb8da1658eec67ULL);
    cr_expect_eq(r.s[1], 0xf893a2eefb32555eULL);
    cr_expect_eq(r.s[2], 0x71c18690ee42c90bULL);
    cr_expect_eq(r.s[3], 0x71bb54d8d101b5b9ULL);
    const uint64_t first[5] = {18001451845637162709ULL, 15091038358276433251ULL, 7540168338507695658ULL,
                               10371344164145850652ULL, 5925099412492024740ULL};
    for (int i = 0; i < 5; i++)
        cr_expect_eq(dc_next(&r), first[i], "draw %d", i);
}

Test(apboot, picks_with_the_real_number_of_customers)
{
    /* C = 5577: resample 0's first ten picks, its last draw, resample 1's first */
    const size_t C = 5577;
    dc_gen r;
    dc_seed(&r, 1);
    const uint64_t idx[10] = {3381, 1414, 4629, 1768, 1119, 952, 664, 3717, 5305, 5298};
    uint64_t u = 0;
    for (size_t i = 0; i <= C; i++) {
        u = dc_next(&r);
        if (i < 10)
            cr_expect_eq(u % C, idx[i], "pick %zu", i);
        if (i == C - 1) {
            cr_expect_eq(u, 2317138128826919291ULL);
            cr_expect_eq(u % C, 1466);
        }
    }
    cr_expect_eq(u, 10890305539537828866ULL);
    cr_expect_eq(u % C, 3465);
    /* the weights: resample 0 counts those picks */
    uint16_t *w = vu_xmalloc(2 * C * sizeof *w);
    apb_weights(1, 2, C, w);
    size_t sum0 = 0, sum1 = 0;
    for (size_t k = 0; k < C; k++) {
        sum0 += w[k];
        sum1 += w[C + k];
    }
    cr_expect_eq(sum0, C);
    cr_expect_eq(sum1, C);
    cr_expect(w[3381] >= 1 && w[1466] >= 1 && w[C + 3465] >= 1);
    free(w);
}

/* ---------------------------------------------- the engine, the slow way */

typedef struct {
    size_t n, ncut, C, S, nr, A, B;
    size_t cut_first[8], *byrow;
    unsigned char *label;
    uint32_t *cust;
    float **live, **lastk, d;
    size_t *R, *round_arm, **srows, *nsrows;
} rnd;

static uint64_t g_st;
static double u01(void)
{
    g_st = g_st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(g_st >> 11) / 9007199254740992.0;
}

/* scores from a few values (ties everywhere), some equal to the default */
static float pick_score(float d)
{
    static const float v[7] = {0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f, 0.875f};
    return u01() < 0.15 ? d : v[(int)(u01() * 7)];
}

static void make_rnd(rnd *p, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    g_st = seed;
    p->ncut = 3;
    p->C = 12;
    p->S = 3;
    p->d = 0.25f; /* equal to one of the score values: a stand-in can join a live tie */
    size_t per[3] = {10, 9, 8};
    p->n = 27;
    p->byrow = vu_xmalloc(p->n * sizeof *p->byrow);
    p->label = vu_xmalloc(p->n);
    p->cust = vu_xmalloc(p->n * sizeof *p->cust);
    size_t i = 0;
    for (size_t c = 0; c < 3; c++) {
        p->cut_first[c] = i;
        for (size_t k = 0; k < per[c]; k++, i++) {
            p->byrow[i] = i;
            p->cust[i] = (uint32_t)k; /* customer k has a row in each cutoff that is long enough */
            p->label[i] = u01() < 0.35;
        }
    }
    p->cut_first[3] = i;
    p->live = vu_xmalloc(p->S * sizeof *p->live);
    p->lastk = vu_xmalloc(p->S * sizeof *p->lastk);
    for (size_t s = 0; s < p->S; s++) {
        p->live[s] = vu_xmalloc(p->n * sizeof **p->live);
        p->lastk[s] = vu_xmalloc(p->n * sizeof **p->lastk);
        for (size_t r = 0; r < p->n; r++) {
            p->live[s][r] = pick_score(p->d);
            p->lastk[s][r] = u01() < 0.3 ? p->live[s][r] : pick_score(p->d);
        }
    }
    /* arm 0: 3 rounds (the second empty), arm 1: 1 round */
    p->A = 2;
    p->nr = 4;
    p->R = vu_xmalloc(2 * sizeof *p->R);
    p->R[0] = 3;
    p->R[1] = 1;
    p->round_arm = vu_xmalloc(4 * sizeof *p->round_arm);
    p->srows = vu_xmalloc(4 * sizeof *p->srows);
    p->nsrows = vu_xmalloc(4 * sizeof *p->nsrows);
    for (size_t r = 0; r < 4; r++) {
        p->round_arm[r] = r < 3 ? 0 : 1;
        p->srows[r] = vu_xmalloc(p->n * sizeof **p->srows);
        p->nsrows[r] = 0;
        if (r == 1)
            continue;
        for (size_t x = 0; x < p->n; x++)
            if (u01() < (r == 3 ? 0.6 : 0.25))
                p->srows[r][p->nsrows[r]++] = x;
    }
    p->B = 60;
}

static void free_rnd(rnd *p)
{
    for (size_t s = 0; s < p->S; s++) {
        free(p->live[s]);
        free(p->lastk[s]);
    }
    for (size_t r = 0; r < p->nr; r++)
        free(p->srows[r]);
    free(p->live);
    free(p->lastk);
    free(p->srows);
    free(p->nsrows);
    free(p->R);
    free(p->round_arm);
    free(p->byrow);
    free(p->label);
    free(p->cust);
}

/* AP of vector v with every row repeated w(customer) times (w NULL: once); NaN if a cutoff has no buyer */
static double slow_ap(const rnd *p, const double *v, const uint16_t *w)
{
    ap_pair *x = vu_xmalloc(64 * p->n * sizeof *x);
    double sum = 0;
    for (size_t c = 0; c < p->ncut; c++) {
        size_t m = 0;
        for (size_t i = p->cut_first[c]; i < p->cut_first[c + 1]; i++) {
            size_t times = w ? w[p->cust[i]] : 1;
            for (size_t t = 0; t < times; t++)
                x[m++] = (ap_pair){v[i], p->label[i]};
        }
        sum += ap_average_precision(x, m);
    }
    free(x);
    return sum / (double)p->ncut;
}

/* the vector of seed s, round r, kind k (NULL round: live) */
static void vector(const rnd *p, size_t s, int r, int k, double *v)
{
    for (size_t i = 0; i < p->n; i++)
        v[i] = p->live[s][i];
    if (r < 0)
        return;
    for (size_t q = 0; q < p->nsrows[r]; q++) {
        size_t i = p->srows[r][q];
        v[i] = k == 0 ? p->lastk[s][i] : k == 1 ? p->d : -INFINITY;
    }
}

/* problem `seed` in mode `mode`: the resamples dropped */
static size_t check_engine(uint64_t seed, int mode)
{
    size_t dropped_somewhere = 0;
    {
        rnd p;
        make_rnd(&p, seed * 7919);
        apb_problem q = {.n = p.n, .ncut = p.ncut, .cut_first = p.cut_first, .byrow = p.byrow, .label = p.label,
                         .cust = p.cust, .C = p.C, .S = p.S, .live = (const float *const *)p.live,
                         .lastk = (const float *const *)p.lastk, .d = p.d, .A = p.A, .R = p.R, .nr = p.nr,
                         .round_arm = p.round_arm, .srows = (const size_t *const *)p.srows, .nsrows = p.nsrows,
                         .B = p.B, .K = 2, .sigma = seed, .mode = mode};
        apb_result res;
        char err[256];
        cr_assert_eq(apb_compute(&q, &res, err, sizeof err), 0, "%s", err);
        double *v = vu_xmalloc(p.n * sizeof *v);
        /* the point values */
        for (size_t s = 0; s < p.S; s++) {
            vector(&p, s, -1, 0, v);
            double L = slow_ap(&p, v, NULL);
            cr_expect(fabs(res.L[s] - L) < 1e-13 || (isnan(L) && isnan(res.L[s])), "seed %zu L %.17g vs %.17g", s,
                      res.L[s], L);
            for (int r = 0; r < 4; r++)
                for (int k = 0; k < 3; k++) {
                    vector(&p, s, r, k, v);
                    double A = slow_ap(&p, v, NULL), got = res.Ap[(s * p.nr + (size_t)r) * 3 + (size_t)k];
                    cr_expect(fabs(got - A) < 1e-13 || (isnan(A) && isnan(got)),
                              "problem %llu seed %zu round %d kind %d: %.17g vs %.17g", (unsigned long long)seed, s,
                              r, k, got, A);
                }
        }
        /* every resample: dropped, and the change of each arm and kind */
        uint16_t *w = vu_xmalloc(p.B * p.C * sizeof *w);
        apb_weights(seed, p.B, p.C, w);
        size_t used = 0, checked = 0;
        for (size_t b = 0; b < p.B; b++) {
            const uint16_t *wb = w + b * p.C;
            vector(&p, 0, -1, 0, v);
            int dropped = isnan(slow_ap(&p, v, wb));
            cr_expect_eq(res.dropped[b], dropped, "resample %zu", b);
            used += !dropped;
            for (size_t a = 0; a < p.A; a++)
                for (int k = 0; k < 3; k++) {
                    double acc = 0;
                    for (size_t s = 0; s < 2; s++) {
                        vector(&p, s, -1, 0, v);
                        double lb = slow_ap(&p, v, wb), sum = 0;
                        for (size_t r = 0; r < p.nr; r++) {
                            if (p.round_arm[r] != a || !p.nsrows[r])
                                continue;
                            vector(&p, s, (int)r, k, v);
                            sum += slow_ap(&p, v, wb) - lb;
                        }
                        acc += sum / (double)p.R[a];
                    }
                    double want = acc / 2, got = res.dstar[(a * 3 + (size_t)k) * p.B + b];
                    if (dropped) {
                        cr_expect(isnan(got));
                    } else {
                        cr_expect(fabs(got - want) < 1e-13, "problem %llu resample %zu arm %zu kind %d: %.17g vs %.17g",
                                  (unsigned long long)seed, b, a, k, got, want);
                        checked += want != 0;
                    }
                }
        }
        cr_expect_eq(res.used, used);
        dropped_somewhere += p.B - used;
        cr_expect(checked > 100, "the resamples' changes are not all zero (%zu)", checked);
        free(w);
        free(v);
        apb_result_free(&res);
        free_rnd(&p);
    }
    return dropped_somewhere;
}

/* in each mode: the rounds' cutoffs by patching the live order, over the
 * base order, and chosen by the share of stand-in rows (in these small
 * cutoffs an eighth is one or two rows: mostly the base) */
Test(apboot, engine_equals_the_definitions)
{
    for (int mode = 0; mode < 3; mode++) {
        size_t dropped = 0;
        for (uint64_t seed = 1; seed <= 6; seed++)
            dropped += check_engine(seed, mode);
        cr_expect(dropped > 0, "some resample is dropped");
    }
}

Test(apboot, malformed_problem_is_refused)
{
    rnd p;
    make_rnd(&p, 3);
    p.srows[0][0] = p.n; /* a row beyond the table */
    apb_problem q = {.n = p.n, .ncut = p.ncut, .cut_first = p.cut_first, .byrow = p.byrow, .label = p.label,
                     .cust = p.cust, .C = p.C, .S = p.S, .live = (const float *const *)p.live,
                     .lastk = (const float *const *)p.lastk, .d = p.d, .A = p.A, .R = p.R, .nr = p.nr,
                     .round_arm = p.round_arm, .srows = (const size_t *const *)p.srows, .nsrows = p.nsrows,
                     .B = p.B, .K = 2, .sigma = 1};
    apb_result res;
    char err[256];
    cr_expect_eq(apb_compute(&q, &res, err, sizeof err), -1);
    cr_expect(strstr(err, "stand-in row 27"), "%s", err);
    free_rnd(&p);
}

/* ------------------------------------- repeated stand-in sets, lanes */

/* One cutoff of 8 rows (customers 0..7), worked by hand (APCOST.md 1.4:
 * each distinct score one threshold, AP = sum (R_t - R_t-1) P_t):
 *
 *   row    0    1    2    3    4    5    6    7
 *   live  0.9  0.8  0.8  0.7  0.6  0.5  0.5  0.4     default 0.5 (a live tie)
 *   buyer  1    0    1    0    1    0    0    1
 *   lastk 0.8   -   0.4   -   0.95   -    -    -
 *
 * live: 1/4 (1 + 2/3 + 3/5 + 1/2) = 83/120.  Stand-ins {0, 4}: last_known
 * (4 on top, 0 into the 0.8 tie) 1/4 + 2/4 * 3/4 + 1/4 * 1/2 = 3/4; default
 * (both into the 0.5 tie) 1/4 * 1/2 + 2/4 * 3/7 + 1/4 * 1/2 = 13/28; none
 * (both at -inf, tied) 1/4 * 1/2 + 1/4 * 1/3 + 2/4 * 1/2 = 11/24.
 * Stand-in {2}: last_known (into 0.4's tie) 1/4 + 1/4 * 1/2 + 2/4 * 1/2 =
 * 5/8; default and none 1/4 + 1/4 * 1/2 + 1/4 * 3/7 + 1/4 * 1/2 = 17/28.
 * Round 0 and round 1 (another arm) have the same set {0, 4}, given in
 * another order: the engine computes it once (apboot.c, make_split), and
 * its numbers must be those of the set computed alone. */
static void hand_problem(apb_problem *q, int dup, int mode, size_t *cf, size_t *byrow, unsigned char *label,
                         uint32_t *cust, const float **live, const float **lastk, size_t *R, size_t *arm,
                         const size_t **rows, size_t *ns)
{
    static const float lv[8] = {0.9f, 0.8f, 0.8f, 0.7f, 0.6f, 0.5f, 0.5f, 0.4f};
    static const float lk[8] = {0.8f, 0.8f, 0.4f, 0.7f, 0.95f, 0.5f, 0.5f, 0.4f};
    static const unsigned char lb[8] = {1, 0, 1, 0, 1, 0, 0, 1};
    static const size_t s04[2] = {0, 4}, s40[2] = {4, 0}, s2[1] = {2};
    cf[0] = 0;
    cf[1] = 8;
    for (size_t i = 0; i < 8; i++) {
        byrow[i] = i;
        label[i] = lb[i];
        cust[i] = (uint32_t)i;
    }
    live[0] = lv;
    lastk[0] = lk;
    /* dup: arm 0 rounds {0,4} and {2}, arm 1 round {4,0}; else arm 0 round {4,0} alone */
    size_t nr = dup ? 3 : 1;
    rows[0] = dup ? s04 : s40;
    ns[0] = 2;
    arm[0] = 0;
    if (dup) {
        rows[1] = s2;
        ns[1] = 1;
        arm[1] = 0;
        rows[2] = s40;
        ns[2] = 2;
        arm[2] = 1;
        R[0] = 2;
        R[1] = 1;
    } else {
        R[0] = 1;
    }
    *q = (apb_problem){.n = 8, .ncut = 1, .cut_first = cf, .byrow = byrow, .label = label, .cust = cust, .C = 8,
                       .S = 1, .live = (const float *const *)live, .lastk = (const float *const *)lastk, .d = 0.5f,
                       .A = dup ? 2 : 1, .R = R, .nr = nr, .round_arm = arm, .srows = (const size_t *const *)rows,
                       .nsrows = ns, .B = 7, .K = 1, .sigma = 5, .mode = mode};
}

Test(apboot, hand_made_vectors_and_a_repeated_set)
{
    for (int mode = 0; mode < 3; mode++) {
        size_t cf[2], byrow[8], R[2], arm[3], ns[3];
        unsigned char label[8];
        uint32_t cust[8];
        const float *live[1], *lastk[1];
        const size_t *rows[3];
        apb_problem q1, q2;
        apb_result r1, r2;
        char err[256];
        hand_problem(&q1, 1, mode, cf, byrow, label, cust, live, lastk, R, arm, rows, ns);
        cr_assert_eq(apb_compute(&q1, &r1, err, sizeof err), 0, "%s", err);
        cr_expect(fabs(r1.L[0] - 83.0 / 120) < 1e-15, "mode %d live %.17g", mode, r1.L[0]);
        const double want[2][3] = {{3.0 / 4, 13.0 / 28, 11.0 / 24}, {5.0 / 8, 17.0 / 28, 17.0 / 28}};
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 3; k++)
                cr_expect(fabs(r1.Ap[r * 3 + k] - want[r][k]) < 1e-15, "mode %d round %d kind %d: %.17g, want %.17g",
                          mode, r, k, r1.Ap[r * 3 + k], want[r][k]);
        /* the repeated set: the same numbers to the bit, here and computed alone */
        size_t cf2[2], byrow2[8], R2[2], arm2[3], ns2[3];
        unsigned char label2[8];
        uint32_t cust2[8];
        const float *live2[1], *lastk2[1];
        const size_t *rows2[3];
        hand_problem(&q2, 0, mode, cf2, byrow2, label2, cust2, live2, lastk2, R2, arm2, rows2, ns2);
        cr_assert_eq(apb_compute(&q2, &r2, err, sizeof err), 0, "%s", err);
        cr_expect_eq(memcmp(&r1.Ap[0], &r1.Ap[2 * 3], 3 * sizeof(double)), 0, "mode %d: round 2 = round 0", mode);
        cr_expect_eq(memcmp(&r1.Ap[2 * 3], &r2.Ap[0], 3 * sizeof(double)), 0, "mode %d: as computed alone", mode);
        /* arm 1 of q1 (the repeated set) against arm 0 of q2 (the set alone):
         * the same resamples (sigma, B), every change to the bit */
        cr_expect_eq(r1.used, r2.used);
        cr_expect_eq(memcmp(&r1.dstar[3 * q1.B], &r2.dstar[0], 3 * q1.B * sizeof(double)), 0,
                     "mode %d: resample changes", mode);
        size_t nonzero = 0;
        for (size_t i = 0; i < 3 * q2.B; i++)
            nonzero += !isnan(r2.dstar[i]) && r2.dstar[i] != 0;
        cr_expect(nonzero > 5, "the resample changes are not all zero (%zu)", nonzero);
        apb_result_free(&r1);
        apb_result_free(&r2);
    }
}

/* the kept resamples go through the programs APO_LANES at a time: a
 * resample's numbers must not depend on which others share its pass.  The
 * random problem of make_rnd with a fifth round repeating round 0's set
 * (reversed) in arm 1, rounds resampled (format 2: some lanes of a pass do
 * not draw a round), with B = 61 and with fewer resamples (other passes):
 * every change to the bit; and arm 1 as in the same problem without round 0
 * (where its repeated set is computed as its own); and B = 61 again one
 * resample a pass (no lanes): every change to the bit */
Test(apboot, lanes_and_repeated_sets_change_no_bit)
{
    rnd p;
    make_rnd(&p, 4242);
    p.srows = vu_xrealloc(p.srows, 5 * sizeof *p.srows);
    p.nsrows = vu_xrealloc(p.nsrows, 5 * sizeof *p.nsrows);
    p.round_arm = vu_xrealloc(p.round_arm, 5 * sizeof *p.round_arm);
    p.srows[4] = vu_xmalloc((p.nsrows[0] + 1) * sizeof **p.srows);
    for (size_t k = 0; k < p.nsrows[0]; k++)
        p.srows[4][k] = p.srows[0][p.nsrows[0] - 1 - k];
    p.nsrows[4] = p.nsrows[0];
    p.round_arm[4] = 1;
    p.R[1] = 2;
    p.nr = 5;
    cr_assert(p.nsrows[0] > 1);
    uint64_t rsig[2] = {11, 12};
    apb_result full;
    char err[256];
    for (int mode = 0; mode < 3; mode++) {
        apb_problem q = {.n = p.n, .ncut = p.ncut, .cut_first = p.cut_first, .byrow = p.byrow, .label = p.label,
                         .cust = p.cust, .C = p.C, .S = p.S, .live = (const float *const *)p.live,
                         .lastk = (const float *const *)p.lastk, .d = p.d, .A = p.A, .R = p.R, .nr = p.nr,
                         .round_arm = p.round_arm, .srows = (const size_t *const *)p.srows, .nsrows = p.nsrows,
                         .B = 61, .K = 3, .sigma = 9, .round_sigma = rsig, .mode = mode};
        cr_assert_eq(apb_compute(&q, &full, err, sizeof err), 0, "%s", err);
        cr_expect(full.used < 61 && full.used > 30, "some resamples dropped, most kept (%zu kept)", full.used);
        cr_expect_eq(memcmp(&full.Ap[0], &full.Ap[4 * 3], 3 * sizeof(double)), 0, "seed 0: round 4 = round 0");
        for (size_t B = 1; B <= 61; B += B < 9 ? 2 : 52) {
            apb_result part;
            q.B = B;
            q.lanes = B == 61 ? 1 : 0; /* B = 61: one resample a pass */
            cr_assert_eq(apb_compute(&q, &part, err, sizeof err), 0, "%s", err);
            for (size_t i = 0; i < p.A * 3; i++)
                for (size_t b = 0; b < B; b++) {
                    double x = part.dstar[i * B + b], y = full.dstar[i * 61 + b];
                    cr_expect(memcmp(&x, &y, sizeof x) == 0, "mode %d B %zu lanes %zu: [%zu][%zu] %.17g vs %.17g", mode,
                              B, q.lanes, i, b, x, y);
                }
            apb_result_free(&part);
        }
        /* without round 0: arm 0 has rounds 1 and 2, arm 1 the same two as before */
        size_t R0[2] = {2, 2}, arm0[4] = {0, 0, 1, 1}, ns0[4] = {p.nsrows[1], p.nsrows[2], p.nsrows[3], p.nsrows[4]};
        const size_t *rows0[4] = {p.srows[1], p.srows[2], p.srows[3], p.srows[4]};
        apb_problem q0 = q;
        q0.B = 61;
        q0.R = R0;
        q0.nr = 4;
        q0.round_arm = arm0;
        q0.srows = rows0;
        q0.nsrows = ns0;
        apb_result alone;
        q0.lanes = 0;
        cr_assert_eq(apb_compute(&q0, &alone, err, sizeof err), 0, "%s", err);
        cr_expect_eq(memcmp(&full.dstar[3 * 61], &alone.dstar[3 * 61], 3 * 61 * sizeof(double)), 0,
                     "mode %d: arm 1 with its set repeated from round 0 and computed as its own", mode);
        for (size_t s = 0; s < p.S; s++)
            cr_expect_eq(memcmp(&full.Ap[(s * 5 + 3) * 3], &alone.Ap[(s * 4 + 2) * 3], 6 * sizeof(double)), 0,
                         "mode %d seed %zu: rounds 3 and 4", mode, s);
        apb_result_free(&alone);
        apb_result_free(&full);
    }
    free_rnd(&p);
}
