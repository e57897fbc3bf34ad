/* playpct: RESULTS.md's percentile of a list of int64 values (linear
 * interpolation between closest ranks: h = (n - 1) p, v[floor(h)] + (h -
 * floor(h)) (v[floor(h) + 1] - v[floor(h)]) of the sorted list), for play
 * (lab/play/playsim.c, lab/play/playdef.c), in linear time: the list is reordered in
 * place, not sorted.  A high percentile (p99: the top 1 in 100) keeps the
 * largest values in a heap at the front of the list; any other, a
 * quickselect.  Pure; owns nothing.
 */
#ifndef LAB_PLAYPCT_H
#define LAB_PLAYPCT_H

#include <stddef.h>
#include <stdint.h>

/* Percentile p (0 to 1) of v[0..n), n above 0; v is reordered. */
double ppct_of(int64_t *v, size_t n, double p);

#endif
