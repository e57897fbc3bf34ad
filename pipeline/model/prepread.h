/* prepread: the prepared files of build/prep, read back as the `ap` stage
 * needs them (their columns: pipeline/README.md, "Prepared files").
 *
 *   prepread_tsv      any tab-separated file with an exact header, one
 *                     callback per record, on lab/base/tsv.h (also reads
 *                     pipeline/ap_arms.tsv)
 *   prepread_train    train.tsv   customer cutoff label + the six features
 *   prepread_test     test.tsv    row customer cutoff label + six (row = line order)
 *   prepread_prev     prev.tsv    row customer cutoff + six, rows ascending,
 *                                 each the customer of that test row
 *   prepread_scores   scores.tsv  customer cutoff label score last_known, one
 *                                 line per test row, agreeing with test.tsv
 *                                 (read by its one reader, lab/core/sctab.h)
 *   prepread_summary  summary.json: default_score (as a 32-bit float) and
 *                     model_seed, which must be 1 (the AP study's default seed)
 *   prepread_load     all of the above from one folder, in that order's
 *                     dependencies, plus the cross-checks: test_rows of
 *                     summary.json = test.tsv's rows, and default_score = the
 *                     training buyers' share as a float
 *
 * Numbers are parsed whole (lab/base/opt.h): an integer that overflows or leaves
 * its range (customer and cutoff fit 32 bits, label is 0 or 1), a float that
 * is not a finite 32-bit value, or a malformed day is refused with the
 * file, the line and the field.
 *
 * Ownership: the readers fill caller-owned structures; prepread_rows_free
 * and prepread_free release them (safe on zeroed structures, and every
 * reader leaves its output releasable on failure).  Every function returns 0
 * or -1 with a message in err.
 */
#ifndef PIPELINE_PREPREAD_H
#define PIPELINE_PREPREAD_H

#include <stddef.h>
#include <stdint.h>

#include "feat.h"
#include "prov.h"

/* The field readers, shared with apref.c: each fails with the file, the line
 * and the field named.  prepread_split cuts s at tabs into at most max
 * fields and returns their count (max + 1: too many). */
size_t prepread_split(char *s, char **f, size_t max);
int prepread_int_field(const char *s, int64_t lo, int64_t hi, int64_t *v, const char *what, const char *path,
                       size_t lineno, char *err, size_t errlen);
int prepread_day_field(const char *s, int32_t *day, const char *path, size_t lineno, char *err, size_t errlen);
int prepread_f32_field(const char *s, float *v, const char *what, const char *path, size_t lineno, char *err,
                       size_t errlen);

/* One data line of a TSV: its fields (nf of them), for prepread_tsv. */
typedef int (*prepread_line_fn)(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err,
                                size_t errlen);

/* Reads path with the one TSV reader (lab/base/tsv.h's grammar: "#" and
 * empty lines skipped, the header exactly `header`, then nfields
 * tab-separated fields a line, each record passed to fn with its line);
 * every line ends with a newline; a file without its header is an error. */
int prepread_tsv(const char *path, const char *header, int nfields, prepread_line_fn fn, void *ctx, char *err,
                 size_t errlen);

typedef struct {
    size_t n, cap;
    feat_row *r;
} prepread_rows;

void prepread_rows_free(prepread_rows *r);

int prepread_train(const char *path, prepread_rows *out, char *err, size_t errlen);
int prepread_test(const char *path, prepread_rows *out, char *err, size_t errlen);
/* *row gets, per prev line, its test row (malloc'd; the caller frees it). */
int prepread_prev(const char *path, const prepread_rows *test, prepread_rows *out, int32_t **row, char *err,
                  size_t errlen);
/* score and last are the caller's arrays of test->n floats. */
int prepread_scores(const char *path, const prepread_rows *test, float *score, float *last, char *err,
                    size_t errlen);
/* *test_rows gets summary.json's test_rows (an integer >= 0 when there), or
 * -1 when it has none. */
int prepread_summary(const char *path, float *dflt, int64_t *test_rows, char *err, size_t errlen);

/* Everything the `ap` stage reads of build/prep. */
typedef struct {
    prepread_rows train;     /* train.tsv */
    prepread_rows test;      /* test.tsv, in row order */
    prepread_rows prev;      /* prev.tsv */
    int32_t *prev_row;       /* [prev.n]: the test row of each prev line */
    float *score, *last;     /* [test.n]: scores.tsv's score and last_known */
    float dflt;              /* summary.json's default_score */
} prepread_set;

/* Reads prep/summary.json, train.tsv, test.tsv, prev.tsv, scores.tsv; pv
 * (may be NULL) gets each as an input. */
int prepread_load(const char *prep, prov *pv, prepread_set *out, char *err, size_t errlen);
void prepread_free(prepread_set *s);

#endif
