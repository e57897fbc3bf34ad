/* The tests' build keeps the assert()s of the invariants the headers state
 * (the normal build, run on published studies, has -DNDEBUG): they are
 * compiled in here, and one fires on a broken invariant. */
#include <criterion/criterion.h>
#include <signal.h>

#include "stats.h"

Test(asserts, compiled_in)
{
#ifdef NDEBUG
    cr_assert_fail("the tests are built with -DNDEBUG: the asserts do not run");
#endif
    long long v[] = {1, 2, 3};
    cr_expect_eq(st_pct_ll(v, 3, 0.5), 2);
}

/* stats.h: a percentile of values sorted ascending */
Test(asserts, a_percentile_of_unsorted_values_aborts, .signal = SIGABRT)
{
    long long v[] = {3, 1, 2};
    st_pct_ll(v, 3, 0.5);
}

Test(asserts, a_percentile_outside_0_to_1_aborts, .signal = SIGABRT)
{
    double v[] = {1, 2};
    st_pct_d(v, 2, 1.5);
}
