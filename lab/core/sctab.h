/* sctab: the one reader of the prepared reference scores, build/prep/scores.tsv
 * (pipeline/README.md "Prepared files"; lab/RAWFORMAT.md's reference "="),
 * for everyone who reads it: raw format 4's reference (lab/raw/raw4.c),
 * make demo (lab/demo/demo.c), the prepared files' reader
 * (pipeline/model/prepread.c, for ap) and ap's reference check
 * (pipeline/ap/apref.c).  It lives in lab/core so that lab and the stages
 * may all include it.
 *
 * The file: lab/base/tsv.h's grammar ("#" comment lines and empty lines
 * skipped; the last line must end with its newline: prepare writes it),
 * the header "customer cutoff label score last_known" (tab-separated), then
 * one line per test row, in row order: customer (a 32-bit integer), cutoff
 * (a day YYYY-MM-DD), label (0 or 1), score and last_known (finite 32-bit
 * floats; prepare writes them with %.9g, so the text gives the float back).
 * Every number is parsed whole (lab/base/opt.h); a bad one is refused with
 * "PATH:LINE: field NAME ...".  Whether the rows agree with test.tsv is
 * prepread's check, not this file's.
 *
 * Ownership: sctab_load fills a caller's table (malloc'd columns; the
 * caller may take a column over, setting it to NULL); sctab_free frees what
 * is left (safe on a zeroed or failed table).  0, or -1 with a message.
 */
#ifndef LAB_SCTAB_H
#define LAB_SCTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t n, cap;                /* rows */
    int32_t *customer, *cutoff;   /* cutoff: days since 1970-01-01 (ut_days_from_civil) */
    uint8_t *label;
    float *score, *last;
    /* with keep_text: the score and last_known fields as written (for
     * byte-for-byte comparisons), pointing into text */
    char **score_txt, **last_txt, *text;
    size_t text_len, text_cap;
} sctab;

int sctab_load(const char *path, int keep_text, sctab *t, char *err, size_t errlen);
void sctab_free(sctab *t);

#endif
