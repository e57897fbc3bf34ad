/* prereg: the rules a study must meet (pipeline/RESULTS.md,
 * "provenance/prereg.json: registered before the first run" and
 * "results/schedule.tsv: the planned runs").
 *
 * Contract:
 *   pg_first_start finds the earliest start_utc of any run: every run
 *   folder's run.json (rejected runs included: they were started all the
 *   same) and every record of provenance/runs.  f->ok is 0 when there is
 *   none.  pg_first_require, called by each check that compares a
 *   registration with f, records once a mismatch for every run.json and
 *   record without a readable start_utc (the order cannot be shown then);
 *   f keeps s and recs for it.
 *   pg_check records with mm_add, with enforce 1 (every profile but tiny):
 *     - provenance/prereg.json missing, without `registered_utc`, or its
 *       `files` not listing the six files in RESULTS.md's order
 *       (data/guesses.tsv, data/design.md, data/quiet.tsv, lab/arms.tsv,
 *       pipeline/comparisons.tsv, pipeline/ap_arms.tsv), then
 *       data/profiles.tsv as the seventh when listed (a study registered
 *       from 2026-12-02; before, six);
 *     - a `files` entry whose path is not one of the seven, or listed
 *       twice, or whose sha256 and size differ from the file as given to
 *       the verifier (in: --guesses, --design, --quiet, --arms,
 *       --comparisons, --ap-arms, --profiles, else the registered copy,
 *       else the root's file: main.c), or that file missing;
 *     - a copy provenance/registered/<path> that differs from its entry
 *       (checked apart when an option gave another file); with the
 *       seventh listed, a registered file without its copy;
 *     - `registered_utc` not strictly before f (the first start);
 *     - results/prediction.json or results/ap.json missing;
 *     - prediction.json's `seconds` other than the schedule's S;
 *   (with enforce 0, profile tiny, the entries and registered_utc that
 *   break a rule are NOTE lines) and in every profile:
 *     - prereg.json, when there, not a JSON object;
 *     - a run the schedule plans that has neither its folder with run.json
 *       nor a record with exit_code other than 0 and a `reason`; a record
 *       that says exit_code 0 for a run without its folder; a run folder
 *       the schedule does not plan; a planned arm the arms file lacks; a
 *       record of a planned run whose run, arm, round, k, profile or
 *       seconds differ from its schedule line;
 *     - prediction.json's `profile` other than the schedule's.
 *   (prediction.json's own registration is predict.h's.)  Returns
 *   checks.study's members "schedule" and "prereg" in *sched_out and
 *   *prereg_out (the caller owns them).
 */
#ifndef PREREG_H
#define PREREG_H

#include "arms.h"
#include "records.h"
#include "schedule.h"
#include "study.h"
#include "vjson.h"

typedef struct {
    int ok;
    long long sec;
    long ns;
    char name[320];     /* the run (or record) that started first */
    char utc[64];
    int required;       /* pg_first_require ran */
    const study *s;
    const pv_records *recs;
} pg_first;

typedef struct {
    const char *guesses, *design, *quiet, *arms, *comparisons, *ap_arms, *profiles;
} pg_inputs;

void pg_first_start(const study *s, const pv_records *recs, pg_first *f);
void pg_first_require(pg_first *f);
void pg_check(const study *s, const sd_schedule *sd, const am_file *arms, const pv_records *recs,
              const pg_inputs *in, pg_first *f, int enforce, vj_node **sched_out, vj_node **prereg_out);

#endif
