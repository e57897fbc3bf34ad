/* testerraw: what the `ap` stage reads of a run's tester file
 * (results/raw/RUN/tester.tsv.gz, lab/RAWFORMAT.md): per request, in j
 * order, the table row it asked for and the kind of its answer.
 *
 * Deliberately small and self-contained (its own line splitting, no column
 * table): it is the one place of the pipeline's AP part that knows the raw
 * format, so that it can later read through lab's shared raw-format reader
 * without touching anything else.
 *
 * Checks: the first line is "# lab-raw 1 tester"; the header names j, row
 * and kind (other columns are allowed and ignored); every data line has the
 * header's number of fields, none empty; j counts 0, 1, 2, ... (an integer,
 * overflow refused); row is an integer in [0, ntest); kind is one of L K D
 * E; the gzip stream is whole.  Any failure names the file and line.
 *
 * Ownership: testerraw_read fills *out, which the caller releases with
 * testerraw_free (also safe on a zeroed or already released run).  On
 * failure *out holds nothing.  Returns 0 or -1 with the message in err.
 */
#ifndef PIPELINE_TESTERRAW_H
#define PIPELINE_TESTERRAW_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t n;        /* requests (data lines) */
    int32_t *row;    /* [n]: the row request j asked for */
    char *kind;      /* [n]: 'L' live, 'K' last-known stand-in, 'D' default stand-in, 'E' no answer */
} testerraw_run;

int testerraw_read(const char *path, size_t ntest, testerraw_run *out, char *err, size_t errlen);
void testerraw_free(testerraw_run *r);

#endif
