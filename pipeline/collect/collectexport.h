/* collectexport: collect's export, the tables stats.sql computed into
 * results/results.json (pipeline/RESULTS.md defines every field).
 *
 * collectexport_results reads, in this order, run_stats (its runs into
 * `runs`, its kept attempts, attempt not null, into `attempts`), the runs' machine,
 * per_second, predicted_runs, arm_stats and the arms' totals, verdicts (with
 * each verdict's error rate), verdict_family,
 * guess_results, odds, and the twin (predicted_twin into each run's
 * predicted, twin_scores, twin_calibration, twin_outside: `twin`, null
 * without a twin_scores row), the map (map_top and its tables: `map`, null
 * without a map_top row), and writes `path` atomically (ut_write_file) as
 * one JSON object: keys sorted, indent 1, reals with 17 significant
 * digits, so the same tables give the same bytes.  Every value PostgreSQL
 * printed is read back whole (opt_i64 / opt_f64); the first that does not
 * parse, or a query that fails, is named in err and nothing is written.
 *
 * Returns 0 or -1 (err).  The caller owns db.
 */
#ifndef PIPELINE_COLLECTEXPORT_H
#define PIPELINE_COLLECTEXPORT_H

#include <libpq-fe.h>
#include <stddef.h>

int collectexport_results(PGconn *db, const char *path, char *err, size_t errlen);

#endif
