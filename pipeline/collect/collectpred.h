/* collectpred: collect's reader of results/prediction.json, the
 * simulation's prediction registered before the first timed run
 * (pipeline/RESULTS.md, section "results/prediction.json").
 *
 * collectpred_read reads and checks the whole file before anything is
 * loaded: `format` "lab-prediction 1" (the study published on 2026-12-01)
 * or "lab-prediction 2"; `runs` an object whose every entry has `p99_ms`,
 * `standin_share`, `lookups_per_request` (numbers or null), `flooded`
 * (true or false) and `flood_from_s` (a whole second >= 0 when flooded,
 * else null), and in format 2 `seconds` (a number above 0); `odds` a list
 * whose every entry has `claim` and `arm` (non-empty strings), `event`
 * (`flooded` or `p99_over_1s`), `seconds` (the simulated round's length, a
 * number above 0), `sim_n` (an integer >= 1) and `sim_k` (an integer in
 * 0 .. sim_n), and in format 2 `seeds` (a non-empty string),
 * `planned_rounds` (an integer >= 0) and `p_seen` (a number in 0 .. 1);
 * `sizing` a list whose every entry has `a`, `b`, `figure`, `seeds`
 * (non-empty strings), `q` (0 .. 1), `rounds_90` (an integer 0 .. 20) and
 * `decides_in_5` (format 1) or `seconds_a`, `seconds_b` (above 0),
 * `rounds` (an integer >= 0), `power` (0 .. 1) and `decides` (true or
 * false) (format 2).  Format 2's twin: the top-level `noise` null or
 * absent (no twin), or `path`, `sha256` (non-empty strings) and `replicas`
 * (an integer >= 1); each run's `twin` null or absent, or (only beside a
 * `noise` that is not null) `replicas` (an integer >= 1), `flooded` (an
 * integer in 0 .. replicas), `p_flood` (flooded / replicas, within 1e-9)
 * and `standin_share_q` (three numbers in 0 .. 1, ascending: q05, q50,
 * q95); format 1 has no twin (any `noise` or `twin` there is not read).
 * The top-level `profile`, `seconds` and `rounds` are
 * not collect's and are not checked here.  A file that does not exist is
 * not an error: *out is then NULL.  Any other fault names the file and the
 * field, e.g. "results/prediction.json: runs.H4-r2-r1.flooded: not true
 * or false", and *out is NULL.
 *
 * collectpred_load fills the tables `prediction` (one row: the format),
 * `predicted_runs`, `odds_claims` and `predicted_sizing` (each verdict's
 * q, of which stats.sql takes the verdicts' sizing_q; pipeline/collect/schema.sql),
 * and with format 2's twin `prediction_noise` (one row: the noise) and
 * `predicted_twin` (one row per run whose twin is not null)
 * inside the caller's transaction;
 * with p NULL (no file) it leaves them empty.
 *
 * Ownership: collectpred_read allocates *out, collectpred_free frees it
 * (NULL is fine).  Returns 0 or -1 (err).
 */
#ifndef PIPELINE_COLLECTPRED_H
#define PIPELINE_COLLECTPRED_H

#include <libpq-fe.h>
#include <stddef.h>

typedef struct collectpred collectpred;

int collectpred_read(const char *path, collectpred **out, char *err, size_t errlen);
int collectpred_load(PGconn *db, const collectpred *p, char *err, size_t errlen);
void collectpred_free(collectpred *p);

#endif
