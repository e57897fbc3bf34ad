/* arrivals: the open loop's schedule (arrivals.h). */
#include "arrivals.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

void arrivals_start(arrivals_gen *a, uint64_t seed, double rate, double seconds)
{
    assert(rate > 0 && seconds >= 0);
    ut_rng_seed(&a->g, seed);
    a->rate = rate;
    a->span = (int64_t)llround(seconds * 1e9);
    a->off = 0;
}

int64_t arrivals_next(arrivals_gen *a)
{
    if (a->off < 0)
        return -1;
    int64_t next = a->off + (int64_t)llround(ut_rng_exp(&a->g) * 1e9 / a->rate);
    assert(next >= a->off); /* ascending: a gap is never negative */
    a->off = next < a->span ? next : -1;
    return a->off;
}

int arrivals_schedule(uint64_t seed, double rate, double seconds, int64_t **off, size_t *n)
{
    arrivals_gen a;
    arrivals_start(&a, seed, rate, seconds);
    size_t cap = (size_t)(rate * seconds * 1.2) + 64;
    *n = 0;
    if (!(*off = malloc(cap * sizeof **off)))
        return -1;
    for (int64_t t; (t = arrivals_next(&a)) >= 0;) {
        if (*n == cap) {
            int64_t *b = realloc(*off, 2 * cap * sizeof *b);
            if (!b) {
                free(*off);
                *off = NULL;
                return -1;
            }
            *off = b;
            cap *= 2;
        }
        (*off)[(*n)++] = t;
    }
    return 0;
}
