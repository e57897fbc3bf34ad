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
    if (ntest == 0) {
        ut_seterr(err, errlen, "%s: no table rows", path);
        return -1;
    }
    if (rawfmt_open(&rd, path, RAWFMT_TESTER4, err, errlen) != 0)
        return -1;
    int64_t v[RAWFMT_TESTER4_NCOLS];
    size_t cap = 0;
    int got, rc = -1;
    while ((got = rawfmt_next(rd, v, err, errlen)) == 1) {
        /* request j is line j + 3, and asks for row j mod test_rows (format 4) */
        int64_t row = (int64_t)(out->n % ntest);
        if (append(out, &cap, (int32_t)row, (char)v[RAWFMT_TESTER4_kind]) != 0) {
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
