/* stats: the one definition of a percentile (pipeline/RESULTS.md).
 *
 * Percentile q of n values sorted ascending v[0] <= ... <= v[n-1]:
 * h = (n-1)*q, f = floor(h), v[f] + (h-f)*(v[min(f+1,n-1)] - v[f]) (numpy's
 * default, PostgreSQL's percentile_cont).  Of an empty list: NaN (null).
 * The median over rounds is the percentile 0.5.  Nothing is allocated except
 * by st_median (a sorted copy, freed before it returns) and st_sort_ll
 * (in place).
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

double st_pct_ll(const long long *sorted, size_t n, double q);
double st_pct_d(const double *sorted, size_t n, double q);
/* median of n values in any order (NaN values must be left out by the caller) */
double st_median(const double *v, size_t n);
void st_sort_ll(long long *v, size_t n);
void st_sort_d(double *v, size_t n);

#endif
