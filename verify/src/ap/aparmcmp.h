/* aparmcmp: one chosen arm of results/ap.json compared with the verifier's
 * recomputation (pipeline/APCOST.md 1.7, 1.13), for apcheck.c.
 *
 * Contract.  apac_compare_arm compares ap.json's arms.<arm> (lab, an
 * object) with the arm recomputed for seed 1 (aparm.h): its members,
 * rounds, counts, shares, each round's APs and changes, and each kind:
 * with the whole result recomputed (fc->out->done, apfull.h) every seed,
 * the mean, the interval and the verdict; else seed 1 and the consistency
 * of the rest.  N: test rows; S: ap.json's model seeds (0 if unknown);
 * lab_L: ap.json's live_ap.default_seed (NaN if absent), which a round
 * without stand-ins must repeat exactly.  Every difference is a mismatch
 * (apcmp.h); nothing is kept.
 *
 * apac_compare_flood compares flooded_runs.<run> (format lab-ap 2,
 * APCOST.md 1.5, 1.7) with the run recomputed as an arm of one round
 * (aparm.h's ap_arm_of_run; fc->ai its unit index, apfull.h): arm, round,
 * the counts and shares, and each kind as for an arm.  The file's format
 * (fc->in->fmt) says which members a kind has (ci95_mc in format 2) and
 * which verdict rule holds.
 */
#ifndef APARMCMP_H
#define APARMCMP_H

#include <stddef.h>

#include "apfull.h"
#include "aparm.h"
#include "vjson.h"

/* the whole result recomputed, and the arm's index among the recomputed arms */
typedef struct {
    const apfull_in *in;
    const apfull_out *out; /* out->done 0: only seed 1 is recomputed */
    size_t ai;
} apac_full;

void apac_compare_arm(const ap_arm *a, const vj_node *lab, size_t N, size_t S, double lab_L, const apac_full *fc);
void apac_compare_flood(const ap_arm *a, const vj_node *lab, size_t N, size_t S, const apac_full *fc);

#endif
