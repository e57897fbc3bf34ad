/* AP on hand-computed cases, ties included (scikit-learn's definition). */
#include <criterion/criterion.h>
#include <math.h>

#include "ap.h"

Test(ap, distinct_scores)
{
    /* Thresholds 0.9: P=1 R=1/2; 0.7: P=2/3 R=1 -> 1/2*1 + 1/2*2/3 = 5/6 */
    float s[] = {0.9f, 0.8f, 0.7f, 0.6f};
    uint8_t y[] = {1, 0, 1, 0};
    cr_assert_float_eq(ap_score(s, y, 4), 5.0 / 6.0, 1e-12);
}

Test(ap, all_tied_is_prevalence)
{
    float s[] = {0.5f, 0.5f, 0.5f, 0.5f};
    uint8_t y[] = {1, 0, 1, 0};
    cr_assert_float_eq(ap_score(s, y, 4), 0.5, 1e-12);
}

Test(ap, ties_enter_together)
{
    /* 0.9: P=0 ; 0.5 (two rows, one positive): P=1/3 dR=1/2 ; 0.1: P=1/2 dR=1/2
     * -> 1/6 + 1/4 = 5/12.  Breaking the tie the lucky way would give more. */
    float s[] = {0.9f, 0.5f, 0.5f, 0.1f};
    uint8_t y[] = {0, 1, 0, 1};
    cr_assert_float_eq(ap_score(s, y, 4), 5.0 / 12.0, 1e-12);
    float s2[] = {0.3f, 0.3f, 0.3f, 0.2f, 0.1f};
    uint8_t y2[] = {1, 1, 0, 0, 1};
    /* 0.3: P=2/3 dR=2/3 ; 0.1: P=3/5 dR=1/3 -> 4/9 + 1/5 */
    cr_assert_float_eq(ap_score(s2, y2, 5), 4.0 / 9.0 + 1.0 / 5.0, 1e-12);
}

Test(ap, order_of_rows_does_not_matter)
{
    float s[] = {0.1f, 0.5f, 0.9f, 0.5f};
    uint8_t y[] = {1, 0, 0, 1};
    cr_assert_float_eq(ap_score(s, y, 4), 5.0 / 12.0, 1e-12);
}

Test(ap, perfect_and_unscored_last)
{
    float s[] = {0.9f, 0.8f, 0.1f};
    uint8_t y[] = {1, 1, 0};
    cr_assert_float_eq(ap_score(s, y, 3), 1.0, 1e-12);
    /* Two unscored rows (ranked last, tied): 0.9 P=1 dR=1/3 ; -inf P=3/4 dR=2/3 */
    float u[] = {0.9f, -INFINITY, -INFINITY, 0.2f};
    uint8_t yu[] = {1, 1, 1, 0};
    cr_assert_float_eq(ap_score(u, yu, 4), 1.0 / 3.0 + 2.0 / 3.0 * 3.0 / 4.0, 1e-12);
}

Test(ap, no_positive_is_nan)
{
    float s[] = {0.2f, 0.1f};
    uint8_t y[] = {0, 0};
    cr_assert(isnan(ap_score(s, y, 2)));
}

Test(ap, mean_by_group_weights_groups_equally)
{
    /* group 7: the 5/6 case; group 3: the 5/12 case (rows interleaved) */
    float s[] = {0.9f, 0.9f, 0.8f, 0.5f, 0.7f, 0.5f, 0.6f, 0.1f};
    uint8_t y[] = {1, 0, 0, 1, 1, 0, 0, 1};
    int32_t g[] = {7, 3, 7, 3, 7, 3, 7, 3};
    cr_assert_float_eq(ap_mean_by_group(s, y, g, 8), (5.0 / 6.0 + 5.0 / 12.0) / 2.0, 1e-12);
}
