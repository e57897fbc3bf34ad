/* collectmap: collect's side of the map (pipeline/RESULTS.md: the
 * prediction's `map`, and results.json's `map`).
 *
 * collectmap_check checks the prediction's `map` whole (called by
 * collectpred_read before anything is loaded; an absent or null `map` is
 * no map): `seconds` above 0, `seeds` a non-empty string, `capacity_p` in
 * (0, 1), `trigger_load` an integer, `loads` a non-empty list of integers
 * above 0, ascending; `policies` a list, each with `policy` and `template`
 * (non-empty strings), `cells` one per load in the order of `loads` (each
 * `load` that load, `n` an integer >= 1, `k` in 0 .. n, `onset_median_s`
 * and `standin_share_median` numbers or null), `trigger.flooded` and
 * `trigger.calm` each with `counts` a list of integers >= 0, and `arms` a
 * list of {`arm` (a non-empty string naming an arm of the prediction's
 * runs: some run "<arm>-r<round>"), `load` (one of `loads`)}.  A fault
 * names the file and the field ("results/prediction.json:
 * map.policies[0].cells[3].k: not an integer in 0 .. n").
 *
 * collectmap_load fills the tables map_top, map_loads, map_policies,
 * map_cells, map_trigger (one row per value with a count) and map_arms
 * (pipeline/collect/schema.sql) inside the caller's transaction; stats.sql
 * computes map_cell_stats, map_capacity, map_trigger_stats and map_points
 * from them, and pipeline/collect/collectexport.c writes results.json's
 * `map` from those tables.  Each returns 0 or -1 (err).
 */
#ifndef PIPELINE_COLLECTMAP_H
#define PIPELINE_COLLECTMAP_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stddef.h>

int collectmap_check(const char *path, json_t *root, char *err, size_t errlen);
int collectmap_load(PGconn *db, json_t *root, char *err, size_t errlen);

#endif
