/* floodmap: the map of floods by load, registered in results/prediction.json
 * (top-level "map") and results.json's "map"; written from
 * pipeline/RESULTS.md ("`map`: where each policy tips, predicted and
 * measured", and the bullet "The map" of "results/prediction.json").
 *
 * Contract:
 *   - fm_has_map: 1 when pred has a top-level "map" that is present and
 *     not null (any format: RESULTS.md computes results.json's map "when
 *     results/prediction.json has a map").
 *   - fm_check_prediction: the registered map against its own counts and
 *     the study, each failure an mm_add naming results/prediction.json and
 *     the field path (map.policies[<policy>].cells[load <L>].share ...):
 *     the top level (seconds a number > 0, seeds "a-b" with 1 <= a <= b,
 *     capacity_p in (0, 1], trigger_load a load of loads, loads numbers
 *     ascending and distinct); per policy (policy a string, named once;
 *     template H4-<policy>, or H3-<policy> when the arms file has no
 *     H4-<policy>, and an arm of the arms file); cells: their loads are
 *     loads in its order; k, n integers, n >= 1, 0 <= k <= n, n the number
 *     of seeds; share within FM_PRED_TOL of k / n; wilson95 within
 *     FM_PRED_TOL of od_wilson (odds.h); onset_median_s null exactly when
 *     k = 0 (else a number >= 0), standin_share_median null exactly when
 *     k = n (else a number in [0, 1]); hidden_capacity (load, interval,
 *     tips) equal to fm_hidden_capacity of the cells; the trigger's
 *     flooded and calm: counts integers >= 0 whose last is above 0, n their
 *     sum, median fm_counts_median, flooded.n the k and calm.n the n - k
 *     of the cell at trigger_load; arms: each {arm, load} once, load a load
 *     of loads, arm an arm of the prediction's runs and of the arms file
 *     whose line is the template's but for name and rate, with rate =
 *     load, and a flood claim (claim "flood", that arm, no "source") in the
 *     prediction's odds; every arm of the prediction's runs that has such
 *     a claim and is the template at a rate of loads listed (one without
 *     a claim is not: listing it is a mismatch); and a listed arm whose
 *     flood claim in the prediction's odds is over the map's seeds and
 *     seconds has sim_k, sim_n = the cell's k, n (the same simulation).
 *     Nothing without a map.  Returns the policies checked.
 *   - fm_results: results.json's "map" recomputed: null unless
 *     fm_has_map(pred) and the map is an object; else seconds, seeds,
 *     capacity_p, trigger_load, loads, and per policy policy and template
 *     copied; cells with load, k, n, onset_median_s, standin_share_median
 *     copied and share, wilson95 recomputed (null when k, n are not
 *     usable); hidden_capacity recomputed; trigger with counts copied and
 *     n, median recomputed; points, one per entry of the policy's arms:
 *     arm and load from the entry, and from the first entry of odds (the
 *     verifier's own results.json odds, predict.h) with claim "flood",
 *     that arm and no "source": seconds, sim_k, sim_n, k, n, rounds,
 *     cp95; on_curve (that claim's seconds equal the map's); agree, when
 *     on_curve and cp95 is a pair, od_overlap of cp95 and the cell's
 *     recomputed wilson95 at the arm's load, else null.  An arm without
 *     such a claim: seconds, sim_k, sim_n, k, n, rounds, cp95 null,
 *     on_curve false, agree null.
 *   - fm_hidden_capacity: {load, interval: [lo, hi], tips} of a list of
 *     cells (each with a numeric load and integer k, n; 0 <= k <= n, n >=
 *     1), the shares and Wilson bounds recomputed from k and n: load the
 *     highest load L whose cells at L and at every lower load have share
 *     < capacity_p (null when none), lo and hi the same with wilson95[1]
 *     and wilson95[0], tips whether a cell has share >= capacity_p.  NULL
 *     when a cell is not usable.
 *   - fm_counts_median: of counts (a list of integers >= 0): *n their sum
 *     and *median the percentile 0.5 (stats.h's definition) of the list in
 *     which each v appears counts[v] times (NaN when n = 0), found by rank
 *     without building the list.  -1 when counts is not such a list (or
 *     its sum exceeds 2^62).
 *   - fm_compare: results.json's "map" (lab) against the verifier's (the
 *     member of mine): counts, loads, seconds, medians and copied values
 *     exactly; share and standin_share_median to FM_SHARE_TOL; the ends of
 *     wilson95 and cp95 to 1e-11 (cmp_num_equal, as the odds'); truth
 *     values and strings exactly; a member RESULTS.md does not define is a
 *     mismatch.  A results.json without a "map" member (older than it) is
 *     not asked for it while the verifier's is null; when the verifier's
 *     is not null its absence is a mismatch.
 * Owns nothing it is given; the nodes returned are the caller's.
 */
#ifndef FLOODMAP_H
#define FLOODMAP_H

#include "arms.h"
#include "vjson.h"

#define FM_PRED_TOL 1e-9   /* the registered share and Wilson ends against k and n */
#define FM_SHARE_TOL 1e-12 /* results.json's share and standin_share_median */

int fm_has_map(const vj_node *pred);
long fm_check_prediction(const vj_node *pred, const am_file *arms);
vj_node *fm_results(const vj_node *pred, const vj_node *odds);
vj_node *fm_hidden_capacity(const vj_node *cells, double capacity_p);
int fm_counts_median(const vj_node *counts, long long *n, double *median);
void fm_compare(const vj_node *lab, const vj_node *mine);

#endif
