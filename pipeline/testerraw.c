/* testerraw: see testerraw.h for the contract. */
#include "testerraw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rawfmt.h"
#include "util.h"

void testerraw_free(testerraw_run *r)
{
    if (!r)
        return;
    free(r->row);
    free(r->kind);
    memset(r, 0, sizeof *r);
}

static int append(testerraw_run *o, size_t *cap, int32_t row, char kind)
{
    if (o->n == *cap) {
        *cap = *cap ? *cap * 2 : 16384;
        int32_t *nr = realloc(o->row, *cap * sizeof *nr);
        if (nr)
            o->row = nr;
        char *nk = realloc(o->kind, *cap);
        if (nk)
            o->kind = nk;
        if (!nr || !nk)
            return -1;
    }
    o->row[o->n] = row;
    o->kind[o->n] = kind;
    o->n++;
    return 0;
}

int testerraw_read(const char *path, size_t ntest, testerraw_run *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    rawfmt_reader *rd;
    if (rawfmt_open(&rd, path, RAWFMT_TESTER, err, errlen) != 0)
        return -1;
    int64_t v[RAWFMT_TESTER_NCOLS];
    size_t cap = 0;
    int got, rc = -1;
    while ((got = rawfmt_next(rd, v, err, errlen)) == 1) {
        long line = rawfmt_line(rd);
        if (v[RAWFMT_TESTER_j] != (int64_t)out->n) {
            ut_seterr(err, errlen, "%s:%ld: column j: %lld, expected %zu (rows in schedule order)", path, line,
                      (long long)v[RAWFMT_TESTER_j], out->n);
            goto done;
        }
        int64_t row = v[RAWFMT_TESTER_row];
        if (row < 0 || (size_t)row >= ntest) {
            ut_seterr(err, errlen, "%s:%ld: column row: %lld is not a table row (0 to %zu)", path, line,
                      (long long)row, ntest ? ntest - 1 : 0);
            goto done;
        }
        if (append(out, &cap, (int32_t)row, (char)v[RAWFMT_TESTER_kind]) != 0) {
            ut_seterr(err, errlen, "%s: out of memory", path);
            goto done;
        }
    }
    rc = got == 0 ? 0 : -1;
done:
    rawfmt_close(rd);
    if (rc != 0)
        testerraw_free(out);
    return rc;
}
