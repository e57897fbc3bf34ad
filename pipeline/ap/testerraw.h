/* testerraw: what the `ap` stage reads of a run's tester file
 * (results/raw/RUN/tester.tsv.gz, lab/RAWFORMAT.md): per request, in j
 * order, the table row it asked for and the kind of its answer.
 *
 * It reads through lab/rawfmt (the one reader of the raw files on the lab
 * side: header, field count, numbers, codes and the gzip stream checked);
 * raw format 4 leaves j and the row out: request j is the j-th row and asks
 * for row j mod ntest (ntest: run.json's test_rows, the prepared table's
 * rows).  Any failure names the file and line.
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
