/* apseeds: the reference scores checked (pipeline/APCOST.md 1.3, 1.10):
 * every model seed's last_known against the same customer's score a month
 * earlier.
 *
 * Contract.  aps_index reads the test table's customers (decimal ids) and
 * cutoffs (YYYY-MM-DD): each row's customer index (0 = the smallest id, the
 * bootstrap's indexing, APCOST.md 1.11), the number of customers C, and the
 * row of the same customer at the cutoff one calendar month earlier when
 * that is a test cutoff.  A customer that is no decimal id, a cutoff that
 * is no date, a customer with two rows at one cutoff or a cutoff after the
 * first whose month before is no test cutoff is a mismatch naming
 * scores.tsv's line (and ok or rule_ok is 0: what needs it is not done).
 * aps_index_free frees it.
 *
 * aps_check_rule checks the rule of 1.3 for seeds 0..S-1 (live, lastk:
 * [S][n], 32-bit floats compared bit for bit) with the lines of
 * ap_prev_scores.tsv.gz (f, when f->prev_ok; otherwise the rows of the
 * first cutoff cannot be checked and are skipped), and the checks of 1.10 (the prev lines name rows at c0 with their customer
 * and the month before c0, in ascending rows; the rows with a previous
 * score number summary.json's test_rows_with_last_known, rows_with_lk).
 * file names the checked file in mismatches: ap_scores.tsv.gz (line r + 2,
 * fields last_known_s) or scores.tsv (seed 1 only, field last_known).
 * Returns the rows with a previous-cutoff score, -1 when it is unknown.
 */
#ifndef APSEEDS_H
#define APSEEDS_H

#include <stddef.h>
#include <stdint.h>

#include "apfiles.h"
#include "aptable.h"

typedef struct {
    int ok;              /* every customer a decimal id: cust and C are usable */
    int rule_ok;         /* and every cutoff a date, the months consecutive, one row per customer
                            and cutoff: prevrow is usable */
    size_t C;
    uint32_t *cust;      /* [n]: the customer index */
    long long *prevrow;  /* [n]: the same customer's row at the month before, -1 none, -2 first cutoff */
    size_t c0;           /* the first cutoff (0) */
    char c0prev[16];     /* the month before it, YYYY-MM-01 */
} aps_index;

void aps_index_build(const ap_table *t, aps_index *x);
void aps_index_free(aps_index *x);

long long aps_check_rule(const ap_table *t, const aps_index *x, size_t S, const float *const *live,
                         const float *const *lastk, float d, const apf_data *f, long long rows_with_lk,
                         const char *file);

#endif
