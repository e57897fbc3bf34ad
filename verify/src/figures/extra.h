/* extra: the numbers the report needs beyond the layout of results.json,
 * recomputed from the raw files like every other number of the verifier.
 *
 * Contract: ex_compute reads, for every accepted run of the study (runs that
 * rf_compute rejected are left out), its three event files and run.json
 * again and returns a new object, the member "extra" of verified.json
 * (documented in verify/README.md, "verified.json: the extra member"):
 *
 *   exceed_grid_ns / exceed_grid_ms   the fixed log grid of latency thresholds
 *   runs.<run>.exceed, exceed_count   share and count of requests waiting longer
 *   runs.<run>.frozen_example         one frozen lookup followed through
 *   runs.<run>.slowest_steps          the slowest 1% split into steps
 *   runs.<run>.machine                run.json's idle, cpu, memory, host facts
 *   runs.<run>.breaker                the breaker's changes one by one (an arm with
 *                                     a breaker only; its rows kept from the first
 *                                     reading, in rf_run)
 *   machine                           totals of those over the runs
 *   quiet                             the quiet rules, and each run that is not
 *                                     quiet: its rules, per-second steal and lateness
 *                                     (from the first reading, kept in the study)
 *   guesses                           the guesses' sentences (id, guess)
 *
 * A file that cannot be read here (it was read once already, so only a file
 * changed in between) is one mismatch (mm_add) and leaves that run out.
 * The caller owns the returned tree (vj_free, or hand it to a parent).
 * ex_grid_ns gives threshold k of the grid (k = 0 .. EX_GRID - 1).
 */
#ifndef EXTRA_H
#define EXTRA_H

#include "study.h"
#include "vjson.h"

#define EX_GRID 60

long long ex_grid_ns(int k);
vj_node *ex_compute(const study *s, const char *guesses_path);

#endif
