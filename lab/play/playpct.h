/* playpct: the percentile of lab/base/util.h (ut_pct_rank, ut_pct_between:
 * the one definition, linear interpolation between closest ranks) of a list
 * of int64 values, for play (lab/play/playsim.c, lab/play/playdef.c), in
 * linear time: the list is reordered in place, not sorted, and the two
 * order statistics of ranks floor(h) and floor(h) + 1 the interpolation
 * needs are selected.  A high percentile (p99: the top 1 in 100) keeps the
 * largest values in a heap at the front of the list; any other, a
 * quickselect.  The same numbers as ut_pct_sorted of the sorted list.
 * Pure; owns nothing.
 */
#ifndef LAB_PLAYPCT_H
#define LAB_PLAYPCT_H

#include <stddef.h>
#include <stdint.h>

/* Percentile p (0 to 1) of v[0..n), n above 0; v is reordered. */
double ppct_of(int64_t *v, size_t n, double p);

#endif
