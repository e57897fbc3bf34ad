/* playpct: see playpct.h for the contract. */
#include "playpct.h"

#include <math.h>

#include "util.h"

static void swap64(int64_t *x, int64_t *y)
{
    int64_t t = *x;
    *x = *y;
    *y = t;
}

/* Put the k-th smallest of v[0..n) at v[k], smaller ones before it. */
static void select_k(int64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap64(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap64(&v[hi], &v[lo]);
        if (v[hi] < v[mid])
            swap64(&v[hi], &v[mid]);
        int64_t piv = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < piv)
                i++;
            while (v[j] > piv)
                j--;
            if (i <= j) {
                swap64(&v[i], &v[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* v[i] moves down the min-heap v[0..m) to its place. */
static void sift_down(int64_t *v, size_t m, size_t i)
{
    int64_t x = v[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= m)
            break;
        if (c + 1 < m && v[c + 1] < v[c])
            c++;
        if (v[c] >= x)
            break;
        v[i] = v[c];
        i = c;
    }
    v[i] = x;
}

/* The m largest of v[0..n) into a min-heap at v[0..m) (1 <= m <= n). */
static void top_m(int64_t *v, size_t n, size_t m)
{
    for (size_t i = m / 2; i-- > 0;)
        sift_down(v, m, i);
    for (size_t i = m; i < n; i++)
        if (v[i] > v[0]) {
            swap64(&v[0], &v[i]);
            sift_down(v, m, 0);
        }
}

double ppct_of(int64_t *v, size_t n, double p)
{
    size_t lo;
    double frac = ut_pct_rank(n, p, &lo);
    size_t m = n - lo; /* v[lo] and above: the m largest */
    int64_t x, next;   /* the order statistics of ranks lo and lo + 1 (x at the top) */
    if (m <= 1 + n / 16) { /* a high percentile: the top few in a heap */
        top_m(v, n, m);
        x = v[0]; /* the smallest of the m largest: rank lo */
        next = m == 1 ? x : m == 2 || v[1] < v[2] ? v[1] : v[2];
    } else {
        select_k(v, n, lo);
        x = v[lo];
        next = lo + 1 < n ? v[lo + 1] : v[lo];
        for (size_t i = lo + 2; i < n; i++)
            if (v[i] < next)
                next = v[i];
    }
    return ut_pct_between((double)x, (double)next, frac);
}
