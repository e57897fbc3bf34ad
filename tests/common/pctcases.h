/* pctcases: hand-computed cases of the one percentile (lab/base/util.h),
 * for tests/lab/test_pct.c and tests/pipeline/test_appct.c.  Values are
 * 1..n (or {10, 20} for n = 2); h = (n - 1) q, lo = floor(h), the
 * percentile v_lo + (h - lo)(v_(lo+1) - v_lo), worked out in each comment.
 * Header only. */
#ifndef TESTS_PCTCASES_H
#define TESTS_PCTCASES_H

#include <stddef.h>
#include <stdint.h>

#define PCT_MAXN 100

typedef struct {
    const char *name;
    size_t n;   /* the values: 1, 2, ..., n; n = 2: 10 and 20 */
    double q, want;
} pct_case;

static const pct_case PCT_CASES[] = {
    {"n=1 q=0", 1, 0.0, 1.0},           /* h = 0: v_0 */
    {"n=1 q=0.5", 1, 0.5, 1.0},         /* h = 0 */
    {"n=1 q=0.99", 1, 0.99, 1.0},       /* h = 0 */
    {"n=1 q=1", 1, 1.0, 1.0},           /* h = 0 */
    {"n=2 q=0", 2, 0.0, 10.0},          /* h = 0: 10 */
    {"n=2 q=0.5", 2, 0.5, 15.0},        /* h = 0.5: 10 + 0.5 * 10 */
    {"n=2 q=0.99", 2, 0.99, 19.9},      /* h = 0.99: 10 + 0.99 * 10 */
    {"n=2 q=1", 2, 1.0, 20.0},          /* h = 1: v_1, the last */
    {"1..100 q=0", 100, 0.0, 1.0},      /* h = 0 */
    {"1..100 q=0.5", 100, 0.5, 50.5},   /* h = 49.5: 50 + 0.5 * (51 - 50) */
    {"1..100 q=0.99", 100, 0.99, 99.01},/* h = 98.01: 99 + 0.01 * (100 - 99) */
    {"1..100 q=1", 100, 1.0, 100.0},    /* h = 99: the last */
};

static inline int64_t pct_value(const pct_case *c, size_t i) { return c->n == 2 ? 10 * (int64_t)(i + 1) : (int64_t)(i + 1); }

#endif
