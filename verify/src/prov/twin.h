/* twin: the twin of results/prediction.json format 2 (each run's replicas
 * under the fitted noise) and results.json's top-level "twin", the
 * registered chances scored against the measurement; written from
 * pipeline/RESULTS.md ("predicted", the twin bullet of
 * "results/prediction.json" format 2, and "`twin`: the registered chances
 * scored against the measurement").
 *
 * Contract:
 *   - tw_has_noise: 1 when pred is format "lab-prediction 2" with a
 *     top-level "noise" that is present and not null (a twin to score).
 *   - tw_of_entry: a new node for predicted.twin of a run whose entry of
 *     prediction.json's runs is e: a copy of e's "twin" when
 *     tw_has_noise(pred), else null (format 1, no noise, no entry, no twin).
 *   - tw_check_prediction: in format 2, "noise" null/absent or an object
 *     {path: string, sha256: string, replicas: integer >= 1}; every run's
 *     "twin" null/absent, or an object with replicas an integer >= 1,
 *     flooded an integer 0 .. replicas, p_flood a number within 1e-9 of
 *     flooded / replicas, standin_share_q three numbers in [0, 1], each
 *     >= the one before; a twin that is not null beside a noise that is
 *     (or is absent) is a mismatch.  Each failure is an mm_add naming
 *     results/prediction.json and the member.  Returns the twins (not
 *     null) checked.
 *   - tw_results: results.json's "twin" recomputed from the study's own
 *     runs (quiet, flooded, standin_share: runfig.h) and prediction.json:
 *     null unless tw_has_noise(pred); else runs, flooded, brier,
 *     brier_yes_no, brier_odds, calibration (six bins, cp95 by
 *     od_clopper_pearson, odds.h) and outside, as RESULTS.md defines them.
 *   - tw_compare: results.json's "twin" (lab) against the verifier's
 *     (mine, the member of s->mine): counts, from and to exactly, the
 *     Brier scores, mean_p, share, measured, predicted, twin_q05,
 *     twin_q95 and p_flood to 1e-12, cp95 to 1e-11 (as the odds'), truth
 *     values and strings exactly; a member RESULTS.md does not define is a
 *     mismatch.  A results.json without a "twin" member (older than it) is
 *     not asked for it while the verifier's is null; when the verifier's
 *     is not null its absence is a mismatch.
 * Owns nothing it is given; the nodes returned are the caller's.
 */
#ifndef TWIN_H
#define TWIN_H

#include "study.h"
#include "vjson.h"

#define TW_P_FLOOD_TOL 1e-9 /* RESULTS.md: p_flood = flooded / replicas within this */
#define TW_NUM_TOL 1e-12    /* the Brier scores, mean_p, share and the shares of outside */
#define TW_NBINS 6
/* DESIGN.md 5.8: a quiet run's stand-in share within this of its
 * prediction; the verifier's one copy (predict.c exports it as
 * checks.prediction.standin_share_tolerance, the twin's `outside` uses it) */
#define TW_STANDIN_TOLERANCE 0.01

int tw_has_noise(const vj_node *pred);
vj_node *tw_of_entry(const vj_node *pred, const vj_node *e);
long tw_check_prediction(const vj_node *pred);
vj_node *tw_results(const study *s, const vj_node *pred);
void tw_compare(const vj_node *lab, const vj_node *mine);

#endif
