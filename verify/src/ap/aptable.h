/* aptable: scikit-learn's average precision and the test table it is
 * computed over (pipeline/APCOST.md 1.2-1.4), for the ap.json check.
 *
 * Contract.  ap_table_load reads customer, cutoff and label of every data
 * line of results/reference/scores.tsv (the header must be "customer cutoff
 * label score last_known"; the scores themselves come from reference.h) and
 * groups the rows by cutoff; the table owns its arrays (ap_table_free).
 * ap_mean_by_cutoff is the AP of one score vector over all rows: the mean,
 * with equal weights, of each cutoff's AP.  No I/O besides ap_table_load.
 */
#ifndef APTABLE_H
#define APTABLE_H

#include <stddef.h>

/* one (score, label) of a cutoff's rows */
typedef struct {
    double s;
    unsigned char y;
} ap_pair;

/* scikit-learn's average precision of n pairs (sorted in place, by score
 * descending): each distinct score is one threshold (ties enter together,
 * -inf included), AP = sum over thresholds of (R_t - R_{t-1}) * P_t.  NaN
 * when no pair has label 1. */
double ap_average_precision(ap_pair *p, size_t n);

/* the test table: rows grouped by cutoff */
typedef struct {
    size_t n;                 /* N: data lines of scores.tsv */
    unsigned char *label;     /* [n] */
    size_t ncut;
    char **cutoffs;           /* [ncut], ascending */
    size_t *cut_first;        /* [ncut + 1]: rows of cutoff c are byrow[cut_first[c] .. cut_first[c+1]) */
    size_t *byrow;            /* [n] */
    size_t customers;         /* distinct `customer` values */
    ap_pair *scratch;         /* [n] */
    /* the text of each row's fields, as scores.tsv has them (for the checks
     * of the reference scores: APCOST.md 1.10) */
    char *text;               /* scores.tsv, split in place */
    char **cust, **cut, **score, **lastk; /* [n] */
    size_t *rowcut;           /* [n]: the index of the row's cutoff */
} ap_table;

/* read every line of scores.tsv (its fields kept as text): 0, or an error
 * code with the file and line in err */
int ap_table_load(const char *scores_path, ap_table *t, char *err, size_t errlen);
void ap_table_free(ap_table *t);
/* AP(v) over all rows: the mean over cutoffs (ascending) of each cutoff's AP */
double ap_mean_by_cutoff(const ap_table *t, const double *v);
/* the same in a scratch of the caller's (n pairs), so that threads may
 * compute at once over one table */
double ap_mean_by_cutoff_in(const ap_table *t, const double *v, ap_pair *scratch);

#endif
