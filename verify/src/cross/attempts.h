/* attempts: results/attempts/<run>-a<N>/, attempts measured again, held to
 * the schedule, the run's record and the quiet rules (pipeline/RESULTS.md,
 * "results/attempts/<run>-a<N>/: attempts measured again").
 *
 * Contract: at_check runs after study_compute (which read every attempt
 * folder like a run folder: every raw-file rule and answer check,
 * study.h; the manifest lists their files: manifest.h) and records with
 * mm_add, naming results/attempts/<folder>:
 *   - a folder whose run the schedule does not plan;
 *   - run.json's seconds other than the run's (sd_line_seconds);
 *   - N not below the `attempt` of the run's record
 *     provenance/runs/<run>.json; no such record (a NOTE in profile tiny,
 *     where records are not required);
 *   - an attempt judged quiet by the quiet rules: it was replaced without
 *     cause.
 * An attempt counts in nothing (study.h keeps it out of arms, verdicts,
 * guesses and odds).  Returns checks.study.attempts (the caller owns it).
 */
#ifndef ATTEMPTS_H
#define ATTEMPTS_H

#include "arms.h"
#include "records.h"
#include "schedule.h"
#include "study.h"
#include "vjson.h"

vj_node *at_check(const study *s, const sd_schedule *sd, const am_file *arms, const pv_records *recs, int enforce);

#endif
