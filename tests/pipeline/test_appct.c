/* pipeline/ap's percentile (apboot_percentile, the bootstrap's 95%
 * intervals) is lab/base/util.h's one percentile: the hand-computed cases
 * of tests/common/pctcases.h give the numbers ut_pct_sorted gives, bit for
 * bit (tests/lab/test_pct.c: the lab's paths). */
#include <criterion/criterion.h>
#include <math.h>

#include "apboot.h"
#include "pctcases.h"
#include "util.h"

Test(pct, the_ap_bootstraps_intervals)
{
    double d[PCT_MAXN];
    int64_t v[PCT_MAXN];
    for (size_t k = 0; k < sizeof PCT_CASES / sizeof PCT_CASES[0]; k++) {
        const pct_case *c = &PCT_CASES[k];
        for (size_t i = 0; i < c->n; i++) {
            v[i] = pct_value(c, i);
            d[c->n - 1 - i] = (double)v[i]; /* descending: apboot_percentile sorts */
        }
        double got = apboot_percentile(d, c->n, c->q);
        cr_assert_float_eq(got, c->want, 1e-9, "%s: %.17g", c->name, got);
        cr_assert(got == ut_pct_sorted(v, c->n, c->q), "%s: not ut_pct_sorted's", c->name);
    }
    cr_assert(isnan(apboot_percentile(d, 0, 0.5)));
}
