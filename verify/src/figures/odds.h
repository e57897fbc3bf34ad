/* odds: the two intervals of a rare event's chance, written from
 * pipeline/RESULTS.md ("odds").
 *
 * Contract: pure functions, nothing allocated.
 *   - od_wilson: the Wilson score interval at z = 1.959963984540054 of
 *     k successes in n: (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) /
 *     (1 + z^2/n), p = k/n.  -1 when n <= 0 or k is outside [0, n].
 *   - od_clopper_pearson: the exact 95% interval of k in n: lower 0 when
 *     k = 0, else the p with P(X >= k) = 0.025; upper 1 when k = n, else
 *     the p with P(X <= k) = 0.025, X ~ Binomial(n, p); each by bisection
 *     on [0, 1] until the bracket is at most 1e-12 wide (the middle is
 *     returned), the binomial sums computed term by term in doubles.
 *     -1 when n <= 0 or k is outside [0, n].
 *   - od_binom_ge, od_binom_le: P(X >= k), P(X <= k) for X ~ Binomial(n, p).
 *   - od_overlap: 1 when the closed intervals [a0, a1] and [b0, b1] share
 *     a point (RESULTS.md's agree).
 */
#ifndef ODDS_H
#define ODDS_H

#define OD_Z95 1.959963984540054
#define OD_BISECT_TOL 1e-12

int od_wilson(long long k, long long n, double *lo, double *hi);
int od_clopper_pearson(long long k, long long n, double *lo, double *hi);
double od_binom_ge(long long k, long long n, double p);
double od_binom_le(long long k, long long n, double p);
int od_overlap(double a0, double a1, double b0, double b1);

#endif
