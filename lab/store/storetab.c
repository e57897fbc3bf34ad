/* storetab: see storetab.h. */
#include "storetab.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "util.h"

#define NFEAT STORETAB_NFEAT

static const char *const COLS[10] = {"row",     "customer",  "cutoff",     "label",
                                     "recency", "orders_90", "spend_90",   "orders_365",
                                     "spend_365", "tenure"};

int storetab_load(const char *path, storetab *t, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t n = 0;
    int rc = -1;
    t->x = NULL;
    t->nrows = 0;
    if (ut_read_file(path, &buf, &n, err, errlen) != 0)
        return -1;
    size_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    t->x = malloc((lines + 1) * sizeof *t->x);
    if (!t->x) {
        ut_seterr(err, errlen, "%s: out of memory", path);
        goto done;
    }
    char *p = buf, *end = buf + n;
    long lineno = 0;
    uint32_t nrows = 0;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        *le = '\0';
        lineno++;
        char *f[10];
        int nf = 0;
        char *q = p;
        for (;;) {
            char *t = strchr(q, '\t');
            if (nf < 10)
                f[nf] = q;
            nf++;
            if (!t)
                break;
            *t = '\0';
            q = t + 1;
        }
        if (nf != 10) {
            ut_seterr(err, errlen, "%s: line %ld: %d fields, expected 10 (%s ... %s)", path,
                      lineno, nf, COLS[0], COLS[9]);
            goto done;
        }
        if (lineno == 1) {
            for (int k = 0; k < 10; k++)
                if (strcmp(f[k], COLS[k]) != 0) {
                    ut_seterr(err, errlen, "%s: line 1: field %d is '%s', expected '%s'", path,
                              k + 1, f[k], COLS[k]);
                    goto done;
                }
        } else {
            char why[128];
            int64_t r;
            if (opt_i64(f[0], 0, UINT32_MAX, &r, why, sizeof why) != 0 || r != nrows) {
                ut_seterr(err, errlen, "%s: line %ld: field row is '%s', expected %" PRIu32,
                          path, lineno, f[0], nrows);
                goto done;
            }
            if (opt_i64(f[1], INT64_MIN, INT64_MAX, &r, why, sizeof why) != 0) {
                ut_seterr(err, errlen, "%s: line %ld: field customer: '%s': %s", path, lineno, f[1],
                          why);
                goto done;
            }
            if (!f[2][0]) {
                ut_seterr(err, errlen, "%s: line %ld: field cutoff is empty", path, lineno);
                goto done;
            }
            if (strcmp(f[3], "0") != 0 && strcmp(f[3], "1") != 0) {
                ut_seterr(err, errlen, "%s: line %ld: field label is '%s', expected 0 or 1",
                          path, lineno, f[3]);
                goto done;
            }
            for (int k = 0; k < NFEAT; k++) {
                const char *s = f[4 + k];
                /* opt_f64 checks the text; the value is strtof's, rounded
                 * once straight to float (a double cast to float could round
                 * twice).  Underflow to a subnormal or zero is a value;
                 * overflow is not. */
                double d;
                float v = 0;
                int ok = opt_f64(s, -HUGE_VAL, HUGE_VAL, &d, why, sizeof why) == 0;
                if (ok) {
                    errno = 0;
                    v = strtof(s, NULL);
                    ok = !(errno == ERANGE && isinf(v));
                    if (!ok)
                        snprintf(why, sizeof why, "beyond the range of a float");
                }
                if (!ok) {
                    ut_seterr(err, errlen, "%s: line %ld: field %s: '%s' is not a number (%s)", path,
                              lineno, COLS[4 + k], s, why);
                    goto done;
                }
                t->x[nrows][k] = v;
            }
            if (nrows == UINT32_MAX - 1) {
                ut_seterr(err, errlen, "%s: line %ld: too many rows", path, lineno);
                goto done;
            }
            nrows++;
        }
        p = le + 1;
    }
    if (lineno == 0) {
        ut_seterr(err, errlen, "%s: line 1: empty file, expected the header", path);
        goto done;
    }
    if (nrows == 0) {
        ut_seterr(err, errlen, "%s: line 2: no rows after the header", path);
        goto done;
    }
    t->nrows = nrows;
    rc = 0;
done:
    free(buf);
    if (rc != 0)
        storetab_free(t);
    return rc;
}

void storetab_free(storetab *t)
{
    free(t->x);
    t->x = NULL;
    t->nrows = 0;
}
