/* arrivals: the open loop's schedule, its one owner.  The tester sends by
 * it (lab/tester/tester.c), the run driver checks the tester's log against
 * it (lab/raw/raw4.c), play simulates it (lab/play/playsim.c), and
 * lab/RAWFORMAT.md states it for the verifier.
 *
 * Round r's seed is arrivals_seed(r) = 1000003 * r + 17, the same for every
 * arm of the round, so the arms of a round meet the same arrivals.  From a
 * seed, the arrivals are a Poisson process of `rate` requests a second: the
 * k-th gap is ut_rng_exp (lab/base/util.h) * 1e9 / rate, rounded to whole
 * ns (llround), added to the offset before it (from 0); the schedule is
 * every offset below the span, seconds * 1e9 rounded.
 *
 * arrivals_next walks the offsets one by one (no memory);
 * arrivals_schedule collects them into an array the caller frees.
 */
#ifndef LAB_ARRIVALS_H
#define LAB_ARRIVALS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The seed of round r's schedule. */
static inline uint64_t arrivals_seed(uint64_t round) { return 1000003ULL * round + 17; }

typedef struct {
    ut_rng g;
    double rate;
    int64_t span, off;
} arrivals_gen;

/* A walk over the arrivals of (seed, rate > 0, seconds). */
void arrivals_start(arrivals_gen *a, uint64_t seed, double rate, double seconds);
/* The next arrival's offset from t0 in ns (ascending), or -1 past the span. */
int64_t arrivals_next(arrivals_gen *a);
/* Every offset, into *off (malloc'd, never NULL on success, even when *n
 * is 0; the caller frees it).  0, or -1 when out of memory (*off NULL). */
int arrivals_schedule(uint64_t seed, double rate, double seconds, int64_t **off, size_t *n);

#endif
