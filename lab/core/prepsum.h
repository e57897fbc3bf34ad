/* prepsum: the one reader of the prepared summary, build/prep/summary.json
 * (pipeline/README.md "Prepared files"), for everyone who reads it: raw
 * format 4's reference (lab/raw/raw4.c: the default score of "="), the
 * prepared files' reader (pipeline/model/prepread.c, for ap: the default
 * score, the model's seed, the test rows) and ap's reference check
 * (pipeline/ap/apref.c: the default score, the test rows with a last-known
 * score).  It lives in lab/core so that lab and the stages may include it.
 *
 * The fields read: default_score (required: a number, finite as a 32-bit
 * float), model_seed, test_rows and test_rows_with_last_known (integers,
 * each -1 here when absent; the test-row counts are >= 0 when present).
 * What a reader requires beyond that (model_seed 1, a count present) is the
 * reader's check.  Other fields are not looked at.
 *
 * Nothing allocated: prepsum_load fills a caller's struct.  0, or -1 with
 * "PATH: ..." in err.
 */
#ifndef LAB_PREPSUM_H
#define LAB_PREPSUM_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    float default_score;                 /* as a 32-bit float */
    int64_t model_seed;                  /* -1: absent */
    int64_t test_rows, test_rows_with_last_known; /* -1: absent */
} prepsum;

int prepsum_load(const char *path, prepsum *s, char *err, size_t errlen);

#endif
