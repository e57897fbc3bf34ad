/* predict: results/prediction.json, its registration, each run's
 * predicted figures and the odds of the rare events, written from
 * pipeline/RESULTS.md ("predicted", "odds", "results/prediction.json")
 * and docs/DESIGN.md 5.8.
 *
 * Contract: pd_check runs after study_compute (it reads the study's runs
 * and arms) and before cmp_results.  It adds to s->mine "predicted" in
 * every run (the run's entry of prediction.json, its five figures as
 * written there, and "twin": twin.h's tw_of_entry; null without an entry
 * or a file), "twin" (results.json's twin, twin.h) and "odds" (one entry
 * per claim of prediction.json's odds, in its order, each with the
 * claim's "seconds", then the outside observation: the timeouts lesson's
 * H4-r2 flood in 3 of 5 rounds of 30 s, whose "agree" is null when its
 * claim's seconds are not 30).  It checks that the file is registered in
 * provenance/prereg.json ("prediction": path, sha256, size,
 * registered_utc) with the file's sha256 and size, and that
 * registered_utc is strictly before first (prereg.h: the earliest
 * start_utc of any run.json or provenance/runs record); each failure is
 * a mismatch (mm_add).  The format is "lab-prediction 1" or
 * "lab-prediction 2"; a format 2 prediction is held to the schedule
 * (predsched.h).  It also gives every entry of s->mine's "attempts" its
 * run's predicted, and fills each verdict's error rate and
 * verdict_family from the sizing (verdrate.h).  prediction.json's twin
 * entries are checked by tw_check_prediction (twin.h); checks.prediction
 * says "noise" (a twin to score) and "twins" (entries with one).  The
 * prediction's map is checked by fm_check_prediction and s->mine gets
 * "map" (results.json's map, null without one: floodmap.h, from the odds
 * above); checks.prediction says "map" (the prediction has one) and
 * "map_policies" (its policies checked).  Returns checks.prediction
 * (the caller owns it).
 * Its times are read with vt_parse_utc (vtime.h).
 */
#ifndef PREDICT_H
#define PREDICT_H

#include "arms.h"
#include "prereg.h"
#include "schedule.h"
#include "study.h"
#include "vjson.h"

/* the outside observation of RESULTS.md ("odds") */
#define PD_OUT_CLAIM "flood"
#define PD_OUT_ARM "H4-r2"
#define PD_OUT_EVENT "flooded"
#define PD_OUT_SOURCE "the timeouts lesson"
#define PD_OUT_K 3
#define PD_OUT_N 5
#define PD_OUT_SECONDS 30 /* the lessons' round length */

vj_node *pd_check(study *s, pg_first *first, const sd_schedule *sd, const am_file *arms);

#endif
