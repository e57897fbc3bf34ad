/* odds: see odds.h. */
#include "odds.h"

#include <math.h>

/* C(n, i) p^i (1-p)^(n-i), the binomial coefficient built up as a double */
static double term(long long n, long long i, double p)
{
    double c = 1;
    long long m = i < n - i ? i : n - i;
    for (long long j = 1; j <= m; j++)
        c = c * (double)(n - m + j) / (double)j;
    return c * pow(p, (double)i) * pow(1 - p, (double)(n - i));
}

double od_binom_ge(long long k, long long n, double p)
{
    double s = 0;
    for (long long i = k < 0 ? 0 : k; i <= n; i++)
        s += term(n, i, p);
    return s;
}

double od_binom_le(long long k, long long n, double p)
{
    double s = 0;
    for (long long i = 0; i <= k && i <= n; i++)
        s += term(n, i, p);
    return s;
}

int od_wilson(long long k, long long n, double *lo, double *hi)
{
    if (n <= 0 || k < 0 || k > n)
        return -1;
    double z = OD_Z95, nn = (double)n, p = (double)k / nn, z2 = z * z;
    double mid = p + z2 / (2 * nn);
    double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
    double den = 1 + z2 / nn;
    *lo = (mid - half) / den;
    *hi = (mid + half) / den;
    return 0;
}

int od_clopper_pearson(long long k, long long n, double *lo, double *hi)
{
    if (n <= 0 || k < 0 || k > n)
        return -1;
    *lo = 0;
    *hi = 1;
    if (k > 0) {
        /* P(X >= k) rises with p */
        double a = 0, b = 1;
        while (b - a > OD_BISECT_TOL) {
            double m = (a + b) / 2;
            if (od_binom_ge(k, n, m) < 0.025)
                a = m;
            else
                b = m;
        }
        *lo = (a + b) / 2;
    }
    if (k < n) {
        /* P(X <= k) falls with p */
        double a = 0, b = 1;
        while (b - a > OD_BISECT_TOL) {
            double m = (a + b) / 2;
            if (od_binom_le(k, n, m) > 0.025)
                a = m;
            else
                b = m;
        }
        *hi = (a + b) / 2;
    }
    return 0;
}

int od_overlap(double a0, double a1, double b0, double b1)
{
    return a0 <= b1 && b0 <= a1;
}
