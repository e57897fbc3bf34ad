/* predict: measure's prediction of a study, written before it is measured
 * (build/bin/predict --predict, run by make measure), and the rounds each
 * verdict needs (build/bin/predict --sizing, run by make sizing into
 * docs/SIZING.md).  The options are play's (lab/play/playopt.h); the
 * simulation is play's (lab/play/playsim.h): the stage uses the lab's
 * simulator, the lab knows nothing of the stage.
 *
 * --predict FILE writes pipeline/RESULTS.md's `results/prediction.json`
 * ("lab-prediction 1"), atomically (a temporary file renamed):
 * - `runs`: every arm of the prediction x every round of --rounds, the
 *   round as the seed, --seconds long: p99_ms, standin_share,
 *   lookups_per_request, flooded, flood_from_s (named "<arm>-r<round>",
 *   arms in the order given, then rounds);
 * - `odds`: over --odds-seeds of --odds-seconds, for every arm of the
 *   prediction at PREDICT_FLOOD_RATE requests a second without a fault,
 *   claim "flood", event `flooded`; for PREDICT_SLOW_ARM, claim "slow",
 *   event `p99_over_1s` (p99_ms above 1000); sim_k of sim_n seeds;
 * - `sizing`: per line of --comparisons (in its order) whose two arms are
 *   in the prediction and whose figure play computes (PREDICT_FIGURES
 *   below), over the same seeds: q, the share of seeds whose difference
 *   a - b has the sign most seeds show (a tie, or a null figure, counts
 *   against); rounds_90, the largest R of 2 .. 20 with q^R >= 0.9, 0 when
 *   q^2 < 0.9; decides_in_5, q^5 >= 0.9.
 * --sizing FILE.md writes the same sizing as a Markdown page (with each
 * difference's sign and the two arms' medians, the comparisons play cannot
 * size, and the odds with their Wilson 95% intervals), atomically; it
 * simulates no runs.  Both print one line on stdout: what was simulated
 * and the wall time it took.
 *
 * The seeds run one after another, every arm within a seed, so that one
 * psim_seed draws each seed's dice and arrivals once for all the arms.
 *
 * Exit codes (predict_main): 0; 1 out of memory or a file not written; 2
 * a bad --comparisons file (its line named).  Owns nothing after it returns.
 */
#ifndef PIPE_PREDICT_H
#define PIPE_PREDICT_H

#include "playopt.h"

#define PREDICT_FORMAT "lab-prediction 1"
#define PREDICT_FLOOD_RATE 450    /* the rate of the flood's lesson */
#define PREDICT_SLOW_ARM "H3-none" /* no limit: the slow rounds' lesson */
#define PREDICT_MAX_ROUNDS_90 20
/* The figures play computes, named as RESULTS.md's (and the defences' of
 * lab/play/playdef.h, PDEF_NAMES). */
#define PREDICT_FIGURES                                                                                     \
    "p99_ms p50_ms standin_share lookups_per_request error_share slot_ms_per_request slot_ms_per_lookup " \
    "longest_line during_lookups_per_request first_live_after_ms recovered_s before_lookups_100ms "       \
    "recovery_lookups_100ms_max"

/* --predict or --sizing, as o says: the exit code. */
int predict_main(const playopt *o);

#endif
