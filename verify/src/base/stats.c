/* stats: the one definition of a percentile, the median and the sorts; see stats.h. */
#include "stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

/* stats.h: v sorted ascending, 0 <= q <= 1 */
static void assert_sorted_ll(const long long *v, size_t n, double q)
{
    assert(q >= 0 && q <= 1);
    for (size_t i = 1; i < n; i++)
        assert(v[i - 1] <= v[i]);
    (void)v, (void)n, (void)q;
}

static void assert_sorted_d(const double *v, size_t n, double q)
{
    assert(q >= 0 && q <= 1);
    for (size_t i = 1; i < n; i++)
        assert(!(v[i] < v[i - 1]));
    (void)v, (void)n, (void)q;
}

double st_pct_ll(const long long *v, size_t n, double q)
{
    assert_sorted_ll(v, n, q);
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * q;
    double fl = floor(h);
    size_t f = (size_t)fl;
    if (f > n - 1)
        f = n - 1;
    size_t g = f + 1 < n ? f + 1 : n - 1;
    /* the difference is taken in integers, exact */
    return (double)v[f] + (h - fl) * (double)(v[g] - v[f]);
}

double st_pct_d(const double *v, size_t n, double q)
{
    assert_sorted_d(v, n, q);
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * q;
    double fl = floor(h);
    size_t f = (size_t)fl;
    if (f > n - 1)
        f = n - 1;
    size_t g = f + 1 < n ? f + 1 : n - 1;
    return v[f] + (h - fl) * (v[g] - v[f]);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* radix sort for the large latency lists (qsort is fine but slower) */
void st_sort_ll(long long *v, size_t n)
{
    if (n < 4096) {
        qsort(v, n, sizeof *v, cmp_ll);
        return;
    }
    unsigned long long *a = (unsigned long long *)v;
    unsigned long long *tmp = vu_xmalloc(n * sizeof *tmp);
    const unsigned long long flip = 1ULL << 63;
    for (size_t i = 0; i < n; i++)
        a[i] ^= flip;
    unsigned long long *src = a, *dst = tmp;
    size_t *cnt = vu_xmalloc(65537 * sizeof *cnt);
    for (int shift = 0; shift < 64; shift += 16) {
        memset(cnt, 0, 65537 * sizeof *cnt);
        for (size_t i = 0; i < n; i++)
            cnt[((src[i] >> shift) & 0xFFFF) + 1]++;
        if (cnt[((src[0] >> shift) & 0xFFFF) + 1] == n)
            continue; /* all equal on this digit */
        for (int d = 0; d < 65536; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> shift) & 0xFFFF]++] = src[i];
        unsigned long long *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] ^= flip;
    free(cnt);
    free(tmp);
}

void st_sort_d(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_d);
}

double st_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = vu_xmalloc(n * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    st_sort_d(c, n);
    double m = st_pct_d(c, n, 0.5);
    free(c);
    return m;
}
