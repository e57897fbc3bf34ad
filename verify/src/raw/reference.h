/* reference: the reference scores every answer is checked against.
 *
 * Contract: ref_load reads <root>/results/reference/scores.tsv (header
 * "customer cutoff label score last_known", one line per table row, row 0
 * first) and <root>/results/reference/summary.json (default_score,
 * test_rows), keeping score and last_known of each row as 32-bit floats.
 * default_score is read from the JSON number's text as a 32-bit float.
 * ref_free releases what ref_load allocated.  Errors name file and line.
 */
#ifndef REFERENCE_H
#define REFERENCE_H

#include <stddef.h>

typedef struct {
    size_t rows;            /* data lines of scores.tsv */
    float *score;           /* [rows] */
    float *last_known;      /* [rows] */
    float default_score;
    long long test_rows;    /* summary.json's test_rows, -1 if absent */
    long long rows_with_lk; /* summary.json's test_rows_with_last_known, -1 if absent */
    char scores_path[4096];
} ref_data;

int ref_load(const char *root, ref_data *ref, char *err, size_t errlen);
void ref_free(ref_data *ref);

#endif
