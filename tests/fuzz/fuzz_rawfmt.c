/* fuzz_rawfmt: the raw event files' checked reader (rawfmt_read,
 * lab/raw/rawfmt.c).  The first byte picks the kind the caller asks for (any;
 * the processes' logs tester, service, store; machine, events; format 4's
 * tester, service, store: byte % 9) and, with bit 7 set,
 * writes the rest as it is (the gzip layer fuzzed: mostly "not a gzip
 * stream"); else the rest is the text, gzipped into the file.  Properties:
 * a file read has the kind asked for, a '-' only where the column allows
 * it, codes from the column's list, "=" (RAWFMT_REF) only in a score of
 * format 4 and never on kind E; a refusal names the file; and a file read,
 * written again by the lab's writer (lab/raw/rawlog.c, its delta encoding; for
 * format 4 lab/raw/raw4.c's raw4_write_file) and read back, gives the same
 * values.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "fuzzfile.h"
#include "raw4.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    rawfmt_kind kind = (rawfmt_kind)(data[0] % (RAWFMT_NKINDS + 1)) - 1;
    const char *path;
    if (data[0] & 0x80)
        path = fz_file(data + 1, size - 1, "raw.tsv.gz");
    else {
        path = fz_file(NULL, 0, "raw.tsv.gz");
        gzFile gz = gzopen(path, "wb1");
        FZ_ASSERT(gz != NULL);
        FZ_ASSERT(size == 1 || gzwrite(gz, data + 1, (unsigned)(size - 1)) == (int)(size - 1));
        FZ_ASSERT(gzclose(gz) == Z_OK);
    }
    rawfmt_file f;
    char err[UT_ERRLEN] = "";
    if (rawfmt_read(path, kind, &f, err, sizeof err) != 0) {
        FZ_ASSERT(strstr(err, path) != NULL);
        return 0;
    }
    FZ_ASSERT(kind == RAWFMT_ANY || f.t->kind == kind);
    for (int c = 0; c < f.t->ncols; c++)
        for (size_t i = 0; i < f.n; i++) {
            int64_t v = f.col[c][i];
            if (v == RAW_NONE)
                FZ_ASSERT(f.t->cols[c].absent_ok);
            else if (v == RAWFMT_REF && f.t->cols[c].type == 'r') /* an integer may read -2^63 + 1 */
                FZ_ASSERT(f.col[RAWFMT_TESTER4_kind][i] != 'E');
            else if (f.t->cols[c].type == 'c' && f.t->cols[c].codes)
                FZ_ASSERT(v > 0 && v < 256 && strchr(f.t->cols[c].codes, (int)v));
        }
    /* the round trip through the writer */
    char back[700];
    snprintf(back, sizeof back, "%s/back.tsv.gz", fz_tmpdir());
    if (f.t->log_cols) {
        rawlog *w;
        FZ_ASSERT(rawfmt_log_open(&w, back, f.t->kind, err, sizeof err) == 0);
        int64_t row[RAW_MAXCOLS];
        for (size_t i = 0; i < f.n; i++) {
            for (int c = 0; c < f.t->ncols; c++)
                row[c] = f.col[c][i];
            FZ_ASSERT(rawlog_row(w, row) == 0);
        }
        FZ_ASSERT(rawlog_close(w, err, sizeof err) == 0);
    } else
        FZ_ASSERT(raw4_write_file(back, &f, err, sizeof err) == 0);
    rawfmt_file g;
    if (rawfmt_read(back, f.t->kind, &g, err, sizeof err) != 0) {
        fprintf(stderr, "the file written again is refused: %s\n", err);
        FZ_ASSERT(0);
    }
    FZ_ASSERT(g.n == f.n);
    for (int c = 0; c < f.t->ncols; c++)
        FZ_ASSERT(f.n == 0 || memcmp(f.col[c], g.col[c], f.n * sizeof(int64_t)) == 0);
    rawfmt_file_free(&g);
    rawfmt_file_free(&f);
    return 0;
}
