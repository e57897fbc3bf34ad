/* extra: the numbers the report needs beyond the layout of results.json,
 * recomputed from the raw files like every other number of the verifier.
 *
 * Contract: ex_compute returns a new object, the member "extra" of
 * verified.json (documented in verify/README.md, "verified.json: the extra
 * member"), from the study as study_compute left it.  Each accepted run's
 * part was built while its raw files were read, the only time they are
 * read (rf_compute keeps it in rf_run.extra, exrun.h); ex_compute takes
 * those objects over (rf_run.extra is NULL afterwards) and adds what spans
 * the runs (runs that rf_compute rejected are left out):
 *
 *   exceed_grid_ns / exceed_grid_ms   the fixed log grid of latency thresholds
 *   runs.<run>                        exrun.h: n, exceed, exceed_count,
 *                                     frozen_example, slowest_steps, breaker
 *                                     (an arm with a breaker only), machine
 *   machine                           totals of the runs' machine facts
 *   quiet                             the quiet rules, and each run that is not
 *                                     quiet: its rules, per-second steal and lateness
 *                                     (from the reading, kept in the study)
 *   guesses                           the guesses' sentences (id, guess)
 *
 * The caller owns the returned tree (vj_free, or hand it to a parent).
 * ex_grid_ns gives threshold k of the grid (k = 0 .. EX_GRID - 1; exrun.h).
 */
#ifndef EXTRA_H
#define EXTRA_H

#include "exrun.h"
#include "study.h"
#include "vjson.h"

vj_node *ex_compute(study *s, const char *guesses_path);

#endif
