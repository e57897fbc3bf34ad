/* apvec: the programs of aporder.h evaluated for APV_W resamples at once,
 * each resample a lane of one SIMD vector (the engine apboot.c uses for
 * the bootstrap; aporder.c's apo_eval stays the reference it is tested
 * against).
 *
 * Contract.  The weights of the APV_W resamples at hand are transposed:
 * wt[c * APV_W + l] = lane l's weight of customer c (int32, 64-byte
 * aligned: apv_alloc).  apv_fill computes, for group g of an order (a
 * seed's live order, one cutoff at a time, or a base order's only group),
 * the running weights of every lane at each boundary of the group and, at
 * each buyer tie of it (weighted or not: one without weight in a lane has
 * d = 0 there and its term is an exact 0), its buyer weight d, running
 * buyer weight t and running weight s, and the running sum of the
 * unchanged terms d * t / s (restarting at 0 at the group's first buyer
 * tie).  apv_eval runs one program of aporder.h on them, every op once
 * for the APV_W lanes.
 *
 * Each lane's arithmetic is its own and the same whatever the other lanes
 * hold, whatever the CPU: integer sums, int32 -> double conversions
 * (exact), products and IEEE divisions (correctly rounded; no table of
 * reciprocals, no approximate reciprocal), no fused multiply-add (the
 * build's -std=c11 keeps -ffp-contract=off), every sum in the program's
 * order.  The code is compiled three times (AVX-512F, AVX2, plain x86-64
 * or any other CPU: GCC vector extensions, no intrinsics) and the best the
 * CPU has is chosen at run time; the three give the same bits
 * (tests/test_apvec.c runs every path the CPU has and compares).  A run
 * of untouched ties in a lane with no weight moved above it takes the
 * difference of the running sum of unchanged terms, as aporder.c's scalar
 * evaluation does; in the other lanes the run's terms are summed one after
 * the other.  The numbers differ from apo_eval's (which multiplies by a
 * table of reciprocals and sums a long run in four partial sums) by
 * rounding only: order 1e-16 relative.
 */
#ifndef APVEC_H
#define APVEC_H

#include <stddef.h>
#include <stdint.h>

#include "aporder.h"

#define APV_W 8 /* lanes: resamples per vector */

/* one group's numbers for the APV_W lanes (arrays indexed as aporder.h's:
 * boundaries q = first[g] + g + p, buyer ties k) */
typedef struct {
    int32_t *cum;  /* [(n + ng) * 2 * APV_W] per boundary: t[APV_W], then s[APV_W] */
    double *bt;    /* [nbt * 3 * APV_W] per buyer tie: d, t, s (each [APV_W], integers held as doubles) */
    double *lp;    /* [(nbt + 1) * APV_W] per buyer tie: the unchanged terms before it in its group */
    int32_t pos[APV_W];        /* the group's buyer weight, per lane */
    int32_t sw[APV_W], sy[APV_W]; /* a base's stand-in rows: their weight, their buyers' (apv_fill_base) */
    double live[APV_W];        /* the group's unchanged numerator a_c, per lane */
    size_t capq, capk;
} apv_sums;

/* where an evaluation stands (as aporder.h's apo_state, per lane) */
typedef struct {
    double acc[APV_W];
    int32_t a[APV_W], e[APV_W];
} apv_state;

/* 64-byte aligned memory (free with free); exits on failure */
void *apv_alloc(size_t bytes);
void apv_sums_free(apv_sums *x);
/* group g of order o under the transposed weights wt */
void apv_fill(apv_sums *x, const apo_order *o, size_t g, const int32_t *wt);
/* apv_fill of a base order b (one group): group g of the live order lo
 * with some rows left out, whose sums lv (apv_fill'd) give in x->sw, x->sy
 * the left-out rows' weight and buyer weight (the difference of the totals) */
void apv_fill_base(apv_sums *x, const apo_order *b, const apv_sums *lv, const apo_order *lo, size_t g,
                   const int32_t *wt);
/* run the ops [0, len) from *from (NULL: the start), saving the state at
 * word cp in *at (cp >= len: not saved); each lane's numerator into out */
void apv_eval(const uint32_t *op, size_t len, const int32_t *wt, const apv_sums *x, const apv_state *from, size_t cp,
              apv_state *at, double *out);

/* the code path: APV_AUTO (the best the CPU has), or one forced (tests);
 * apv_set_path returns 0, or -1 when the CPU lacks it (nothing changed) */
enum { APV_AUTO, APV_GENERIC, APV_AVX2, APV_AVX512 };
int apv_set_path(int path);
int apv_path(void); /* the path in use (never APV_AUTO) */
const char *apv_path_name(int path);

#endif
