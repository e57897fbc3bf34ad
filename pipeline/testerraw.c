/* testerraw: see testerraw.h for the contract. */
#include "testerraw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "opt.h"
#include "util.h"

enum { MAXF = 39 };  /* fields per line we look at; more is an error */

void testerraw_free(testerraw_run *r)
{
    if (!r)
        return;
    free(r->row);
    free(r->kind);
    memset(r, 0, sizeof *r);
}

/* Splits s in place at tabs; returns the number of fields (at most max + 1,
 * so that "too many" shows). */
static int split_tabs(char *s, char **f, int max)
{
    int n = 0;
    f[n++] = s;
    for (char *p = s; *p; p++) {
        if (*p == '\t') {
            *p = 0;
            if (n > max)
                return n;
            f[n++] = p + 1;
        }
    }
    return n;
}

/* The reader's state between lines. */
typedef struct {
    const char *path;
    size_t ntest, lineno, cap;
    int ncols, cj, crow, ckind;
    testerraw_run *out;
} reader;

/* Line 2: where j, row and kind are. */
static int read_header(reader *rd, char **f, int nf, char *err, size_t errlen)
{
    rd->ncols = nf;
    rd->cj = rd->crow = rd->ckind = -1;
    for (int c = 0; c < nf; c++) {
        if (!strcmp(f[c], "j"))
            rd->cj = c;
        else if (!strcmp(f[c], "row"))
            rd->crow = c;
        else if (!strcmp(f[c], "kind"))
            rd->ckind = c;
    }
    if (rd->cj < 0 || rd->crow < 0 || rd->ckind < 0 || nf > MAXF) {
        ut_seterr(err, errlen, "%s: line 2: the columns must include j, row and kind", rd->path);
        return -1;
    }
    return 0;
}

static int append(reader *rd, int32_t row, char kind, char *err, size_t errlen)
{
    testerraw_run *o = rd->out;
    if (o->n == rd->cap) {
        rd->cap = rd->cap ? rd->cap * 2 : 16384;
        int32_t *nr = realloc(o->row, rd->cap * sizeof *nr);
        if (nr)
            o->row = nr;
        char *nk = realloc(o->kind, rd->cap);
        if (nk)
            o->kind = nk;
        if (!nr || !nk) {
            ut_seterr(err, errlen, "%s: out of memory", rd->path);
            return -1;
        }
    }
    o->row[o->n] = row;
    o->kind[o->n] = kind;
    o->n++;
    return 0;
}

/* A data line: j in order, row in the table, kind one of L K D E. */
static int read_data(reader *rd, char **f, int nf, char *err, size_t errlen)
{
    const char *path = rd->path;
    size_t lineno = rd->lineno, n = rd->out->n;
    char why[96];
    if (nf != rd->ncols) {
        ut_seterr(err, errlen, "%s: line %zu: %d fields, expected %d", path, lineno, nf, rd->ncols);
        return -1;
    }
    for (int c = 0; c < nf; c++)
        if (!f[c][0]) {
            ut_seterr(err, errlen, "%s: line %zu: empty field %d", path, lineno, c + 1);
            return -1;
        }
    int64_t j, row;
    if (opt_i64(f[rd->cj], 0, INT64_MAX, &j, why, sizeof why) != 0) {
        ut_seterr(err, errlen, "%s: line %zu: j \"%s\": %s", path, lineno, f[rd->cj], why);
        return -1;
    }
    if (j != (int64_t)n) {
        ut_seterr(err, errlen, "%s: line %zu: j is \"%s\", expected %zu (rows in schedule order)", path, lineno,
                  f[rd->cj], n);
        return -1;
    }
    if (rd->ntest == 0 || opt_i64(f[rd->crow], 0, (int64_t)rd->ntest - 1, &row, why, sizeof why) != 0) {
        ut_seterr(err, errlen, "%s: line %zu: row \"%s\" is not a table row (0 to %zu): %s", path, lineno,
                  f[rd->crow], rd->ntest ? rd->ntest - 1 : 0, rd->ntest ? why : "the table is empty");
        return -1;
    }
    const char *k = f[rd->ckind];
    if (k[1] || !strchr("LKDE", k[0])) {
        ut_seterr(err, errlen, "%s: line %zu: kind \"%s\" is not L, K, D or E", path, lineno, k);
        return -1;
    }
    return append(rd, (int32_t)row, k[0], err, errlen);
}

int testerraw_read(const char *path, size_t ntest, testerraw_run *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        ut_seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    gzbuffer(gz, 1 << 17);
    reader rd = {path, ntest, 0, 0, 0, -1, -1, -1, out};
    char line[4096];
    char *f[MAXF + 1];
    int rc = -1;
    while (gzgets(gz, line, sizeof line)) {
        rd.lineno++;
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            ut_seterr(err, errlen, "%s: line %zu: %s", path, rd.lineno,
                      len + 1 == sizeof line ? "longer than 4095 bytes" : "does not end with a newline");
            goto done;
        }
        line[len - 1] = 0;
        if (rd.lineno == 1) {
            if (strcmp(line, "# lab-raw 1 tester") != 0) {
                ut_seterr(err, errlen, "%s: line 1: expected \"# lab-raw 1 tester\"", path);
                goto done;
            }
            continue;
        }
        int nf = split_tabs(line, f, MAXF);
        if ((rd.lineno == 2 ? read_header(&rd, f, nf, err, errlen) : read_data(&rd, f, nf, err, errlen)) != 0)
            goto done;
    }
    int zerr = Z_OK;
    const char *zmsg = gzerror(gz, &zerr);
    if (zerr != Z_OK) {
        ut_seterr(err, errlen, "%s: after line %zu: %s (truncated or damaged gzip stream)", path, rd.lineno,
                  zmsg);
        goto done;
    }
    if (rd.lineno < 2) {
        ut_seterr(err, errlen, "%s: no header (%zu lines)", path, rd.lineno);
        goto done;
    }
    rc = 0;
done:
    gzclose(gz);
    if (rc != 0)
        testerraw_free(out);
    return rc;
}
