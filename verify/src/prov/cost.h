/* cost: results/cost.json recomputed from the provenance records, exactly
 * as pipeline/APCOST.md part 2 defines it (2.1 Sources, 2.2 the fields).
 *
 * Contract: co_check builds the verifier's own cost.json from
 *   - the stages: every <root>/provenance/stage-<name>.json but
 *     stage-cost.json, in name order: stage = <name>; wall_s, cpu_user_s,
 *     cpu_sys_s, start_utc, end_utc, exit_code as the record has them;
 *     cpu_s = user + sys;
 *   - the runs: the union of the records of provenance/runs (records.h) and
 *     the folders of results/raw with a run.json, in name order; a record is
 *     the source when there is one ("provenance/runs": its wall_s,
 *     exit_code, start_utc, end_utc, cpu), else run.json ("results/raw
 *     run.json": wall_s = end_utc - start_utc in whole seconds, exit_code 0);
 *     cpu = {tester, service, store: {user_s, sys_s}} of the source's cpu
 *     block, cpu_s their sum (both null without a cpu block);
 *   - the totals and the rental of 2.2 (the rental's three settings are
 *     cost.json's own, checked against the --start, --end and
 *     --price-per-hour of provenance/stage-cost.json's argv when that
 *     record exists);
 * and compares it with <root>/results/cost.json member by member: counts
 * (exit_code, totals.stages, totals.runs), strings, truth values and null
 * exactly, every other number within 1e-9; a member missing, one too many
 * or an array of another length is a mismatch (mm_add), and so is a record
 * field the computation needs that is missing.  A missing cost.json is a
 * mismatch when enforce (every profile but tiny), else a NOTE.  Returns
 * checks.study.cost (the caller owns it).
 */
#ifndef COST_H
#define COST_H

#include "records.h"
#include "vjson.h"

#define CO_REL "results/cost.json"
#define CO_TOL 1e-9

vj_node *co_check(const char *root, const pv_records *recs, int enforce);

#endif
