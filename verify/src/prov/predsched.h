/* predsched: results/prediction.json format 2 against the schedule
 * (pipeline/RESULTS.md, "results/prediction.json", format 2).
 *
 * Contract: ps_check, for a prediction whose format is "lab-prediction 2"
 * (nothing for format 1, whose seconds prereg.h checks against line 1),
 * records with mm_add, naming results/prediction.json and the member:
 *   - runs.<run>.seconds other than the run's seconds in
 *     results/schedule.tsv (sd_line_seconds), or a run the schedule does
 *     not plan;
 *   - odds[i]: seconds other than the arm's run length in the schedule
 *     (sd_arm_seconds), planned_rounds other than the number of rounds
 *     the schedule plans for the arm, p_seen other than
 *     1 - (1 - sim_k/sim_n)^planned_rounds (to 1e-12);
 *   - sizing[i]: seconds_a, seconds_b other than each arm's run length;
 *     rounds other than the number of rounds both arms have in the
 *     schedule; power other than q^rounds (to 1e-12); decides other than
 *     power >= 0.9.
 * The schedule must have been read (sd->ok); the prediction's format is
 * read and checked by predict.h.  Returns the number of entries checked.
 */
#ifndef PREDSCHED_H
#define PREDSCHED_H

#include "arms.h"
#include "schedule.h"
#include "vjson.h"

long ps_check(const vj_node *pred, const sd_schedule *sd, const am_file *arms);

#endif
