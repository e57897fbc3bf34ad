/* storetab: the one reader of the store's table, build/prep/test.tsv
 * (written by pipeline/prepare): the test rows' six features for the store,
 * and their number for the run driver (the tester's --rows) and play (the
 * rows a missing fault or a second store counts).  Through the one TSV
 * reader (lab/base/tsv.h: `#` and empty lines are comments):
 *
 *   row customer cutoff label recency orders_90 spend_90 orders_365 spend_365 tenure
 *
 * a header line naming exactly these columns, then one line per row: `row`
 * counts 0, 1, 2 ...; `customer` an integer; `cutoff` not empty; `label` 0
 * or 1; the six features numbers, each rounded once to a float (strtof;
 * underflow is a value, overflow is not).  A bad line is named by file,
 * line and field ("PATH:LINE: field NAME ...").  The stages read the same
 * file whole for the model, keys and label too (pipeline/model/prepread.h's
 * prepread_test, into feat_row), with the same numbers.
 *
 * Ownership: storetab_load allocates t->x (nothing left allocated when it
 * fails); storetab_free frees it.
 */
#ifndef LAB_STORETAB_H
#define LAB_STORETAB_H

#include <stddef.h>
#include <stdint.h>

#define STORETAB_NFEAT 6

typedef struct {
    float (*x)[STORETAB_NFEAT]; /* x[row][k] */
    uint32_t nrows;
} storetab;

/* 0, or -1 and why in err (file, line, field). */
int storetab_load(const char *path, storetab *t, char *err, size_t errlen);
/* The number of rows (the file read and checked whole, as storetab_load). */
int storetab_rows(const char *path, uint32_t *rows, char *err, size_t errlen);
void storetab_free(storetab *t);

#endif
