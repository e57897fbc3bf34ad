/* ap: average precision, as scikit-learn's average_precision_score defines it.
 *
 *   AP = sum over distinct score thresholds t (highest first) of
 *        (R(t) - R(previous t)) * P(t)
 * where P and R are precision and recall counting every row whose score is
 * >= t.  Rows with equal scores enter together (one threshold), which is
 * what makes ties matter.  A row with no score is given -INFINITY, so it is
 * ranked last, tied with the other unscored rows.
 *
 * Ownership: the functions read the caller's arrays and allocate only
 * scratch memory they free before returning.  They return NAN when there is
 * no positive label (scikit-learn warns and gives an undefined value), and
 * NAN on out-of-memory.
 */
#ifndef LAB_AP_H
#define LAB_AP_H

#include <stddef.h>
#include <stdint.h>

double ap_score(const float *score, const uint8_t *label, size_t n);

/* Mean over groups of the AP of each group: `group` gives each row's group
 * (for example its cutoff day); groups are averaged with equal weight. */
double ap_mean_by_group(const float *score, const uint8_t *label, const int32_t *group, size_t n);

#endif
