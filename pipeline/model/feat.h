/* feat: the six numbers per customer and cutoff, and the label.
 *
 * For a cutoff day c (the 1st of a month, 00:00) and every customer with at
 * least one ordinary order (an 'N' invoice) strictly before c:
 *   x[0] recency     days from the last order to c (orders before c)
 *   x[1] orders_90   ordinary invoices with day in [c-90, c)
 *   x[2] spend_90    net spend (ordinary lines plus return lines) in [c-90, c)
 *   x[3] orders_365  ordinary invoices with day in [c-365, c)
 *   x[4] spend_365   net spend in [c-365, c)
 *   x[5] tenure      days from the first order to c
 *   label            1 when an ordinary invoice has day in [c, c+30)
 * An invoice's day is the day of its lines; its lines need not be adjacent.
 * Adjustments ('A') count for nothing.  Features are floats, as XGBoost and
 * the scoring service see them.
 *
 * Ownership: feat_build allocates *rows; the caller frees it with free().
 * Rows come out ordered by cutoff, then customer id.
 */
#ifndef PIPELINE_FEAT_H
#define PIPELINE_FEAT_H

#include <stddef.h>
#include <stdint.h>

#include "shop.h"

#define FEAT_N 6

typedef struct {
    int32_t customer;
    int32_t cutoff;   /* days since 1970-01-01 */
    uint8_t label;
    float x[FEAT_N];
} feat_row;

extern const char *const feat_names[FEAT_N];

int feat_build(const shop_data *d, const int32_t *cutoffs, size_t ncut, feat_row **rows, size_t *n,
               char *err, size_t errlen);

#endif
