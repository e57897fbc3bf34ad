/* storetab: the one reader of test.tsv (storetab.h). */
#include "storetab.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "tsv.h"
#include "util.h"

#define NFEAT STORETAB_NFEAT

static const char *const COLS[10] = {"row",     "customer",  "cutoff",     "label",
                                     "recency", "orders_90", "spend_90",   "orders_365",
                                     "spend_365", "tenure"};

typedef struct {
    storetab *t;
    size_t cap;
} loader;

static int table_row(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    loader *L = ctx;
    storetab *t = L->t;
    char why[128];
    int64_t r;
    if (opt_i64(f[0], 0, UINT32_MAX - 1, &r, why, sizeof why) != 0 || r != t->nrows)
        return tsv_field_err(err, errlen, at, "row", f[0], "expected %" PRIu32, t->nrows);
    if (opt_i64(f[1], INT64_MIN, INT64_MAX, &r, why, sizeof why) != 0)
        return tsv_field_err(err, errlen, at, "customer", f[1], "%s", why);
    if (!f[2][0])
        return tsv_field_err(err, errlen, at, "cutoff", f[2], "is empty");
    if (strcmp(f[3], "0") != 0 && strcmp(f[3], "1") != 0)
        return tsv_field_err(err, errlen, at, "label", f[3], "expected 0 or 1");
    if (t->nrows == L->cap) {
        size_t cap = L->cap ? 2 * L->cap : 4096;
        float(*x)[NFEAT] = realloc(t->x, cap * sizeof *x);
        if (!x) {
            ut_seterr(err, errlen, "%s: out of memory", at->path);
            return -1;
        }
        t->x = x;
        L->cap = cap;
    }
    for (int k = 0; k < NFEAT; k++) {
        const char *s = f[4 + k];
        /* opt_f64 checks the text; the value is strtof's, rounded once
         * straight to float (a double cast to float could round twice).
         * Underflow to a subnormal or zero is a value; overflow is not. */
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
        if (!ok)
            return tsv_field_err(err, errlen, at, COLS[4 + k], s, "is not a number (%s)", why);
        t->x[t->nrows][k] = v;
    }
    t->nrows++;
    return 0;
}

int storetab_load(const char *path, storetab *t, char *err, size_t errlen)
{
    t->x = NULL;
    t->nrows = 0;
    loader L = {t, 0};
    tsv_spec s = {path, "row\tcustomer\tcutoff\tlabel\trecency\torders_90\tspend_90\torders_365\tspend_365\ttenure",
                  10, 0};
    if (tsv_read(&s, table_row, &L, err, errlen) != 0) {
        storetab_free(t);
        return -1;
    }
    if (t->nrows == 0) {
        ut_seterr(err, errlen, "%s: no rows after the header", path);
        storetab_free(t);
        return -1;
    }
    return 0;
}

int storetab_rows(const char *path, uint32_t *rows, char *err, size_t errlen)
{
    storetab t;
    if (storetab_load(path, &t, err, errlen) != 0)
        return -1;
    *rows = t.nrows;
    storetab_free(&t);
    return 0;
}

void storetab_free(storetab *t)
{
    free(t->x);
    t->x = NULL;
    t->nrows = 0;
}
