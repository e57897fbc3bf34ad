/* runjson: each run's run.json against the study around it (lab/RAWFORMAT.md
 * "run.json"; pipeline/RESULTS.md, "The files around it").
 *
 * Contract: rj_check reads again the run.json of every run folder of the
 * study (a run.json that does not parse was already a rejection and is
 * skipped) and records with mm_add:
 *   - `seconds` other than the schedule's S (line 1 of results/schedule.tsv;
 *     with profile tiny, whose test studies mix run lengths, one NOTE line
 *     for all such runs instead);
 *   - an `arm` the arms file does not have; `rate` other than the arm's
 *     (max is 0); `arm_spec` other than the arm's line, column by column
 *     (a column missing, one too many, another value: arms.h);
 *   - the idle gate: `idle.enabled` and `idle.passed` must be true or
 *     false; `passed` false while `enabled` is true; `enabled` false unless
 *     the profile is tiny (RAWFORMAT.md: switched off in tests only);
 *   - its record provenance/runs/<run>.json (absent: a mismatch unless the
 *     profile is tiny): `exit_code` 0 (the folder is there), and the copies
 *     RESULTS.md lists (`idle`, `cpu`, `peak_rss_kb`, `cores`,
 *     `tester_nice`, `requests`, `quiet`) equal to run.json's, `gate` 1
 *     exactly when `idle.enabled`, and with the gate on `gate_passed`
 *     equal to `idle.passed`.
 * enforce is 0 only for profile tiny.  Returns checks.study.run_json (the
 * caller owns it): runs checked, by what.
 */
#ifndef RUNJSON_H
#define RUNJSON_H

#include "arms.h"
#include "records.h"
#include "schedule.h"
#include "study.h"
#include "vjson.h"

vj_node *rj_check(const study *s, const sd_schedule *sd, const am_file *arms, const pv_records *recs, int enforce);
/* 1 when a and b are the same JSON value (numbers by value, objects in any order) */
int rj_json_equal(const vj_node *a, const vj_node *b);

#endif
