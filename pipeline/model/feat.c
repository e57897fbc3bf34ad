/* feat: see feat.h. */
#include "feat.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const feat_names[FEAT_N] = {"recency", "orders_90", "spend_90",
                                        "orders_365", "spend_365", "tenure"};

/* One invoice of one customer. */
typedef struct {
    int32_t customer, invoice, day;
    char kind;
    double amount;
} order;

static int by_cust_inv(const void *a, const void *b)
{
    const order *x = a, *y = b;
    if (x->customer != y->customer)
        return (x->customer > y->customer) - (x->customer < y->customer);
    if (x->kind != y->kind)
        return (x->kind > y->kind) - (x->kind < y->kind);
    return (x->invoice > y->invoice) - (x->invoice < y->invoice);
}

static int by_cust_day(const void *a, const void *b)
{
    const order *x = a, *y = b;
    if (x->customer != y->customer)
        return (x->customer > y->customer) - (x->customer < y->customer);
    if (x->day != y->day)
        return (x->day > y->day) - (x->day < y->day);
    if (x->kind != y->kind)
        return (x->kind > y->kind) - (x->kind < y->kind);
    return (x->invoice > y->invoice) - (x->invoice < y->invoice);
}

int feat_build(const shop_data *d, const int32_t *cutoffs, size_t ncut, feat_row **rows, size_t *n,
               char *err, size_t errlen)
{
    *rows = NULL;
    *n = 0;
    order *o = malloc((d->n ? d->n : 1) * sizeof *o);
    feat_row *out = NULL;
    size_t *start = NULL;
    int rc = -1;
    if (!o)
        goto oom;
    /* Lines -> invoices: sort the lines' (customer, kind, invoice) and merge. */
    for (size_t i = 0; i < d->n; i++) {
        const shop_line *l = &d->lines[i];
        o[i] = (order){l->customer, l->invoice, l->day, l->kind, l->amount};
    }
    qsort(o, d->n, sizeof *o, by_cust_inv);
    size_t no = 0;
    for (size_t i = 0; i < d->n;) {
        size_t j = i;
        order acc = o[i];
        acc.amount = 0.0;
        while (j < d->n && o[j].customer == o[i].customer && o[j].kind == o[i].kind &&
               o[j].invoice == o[i].invoice) {
            acc.amount += o[j].amount;
            if (o[j].day < acc.day)
                acc.day = o[j].day;
            j++;
        }
        if (acc.kind == 'N' || acc.kind == 'C')
            o[no++] = acc;
        i = j;
    }
    qsort(o, no, sizeof *o, by_cust_day);
    /* Customer runs. */
    size_t ncust = 0;
    start = malloc((no + 1) * sizeof *start);
    if (!start)
        goto oom;
    for (size_t i = 0; i < no; i++)
        if (i == 0 || o[i].customer != o[i - 1].customer)
            start[ncust++] = i;
    start[ncust] = no;
    size_t cap = ncust * (ncut ? ncut : 1);
    out = malloc((cap ? cap : 1) * sizeof *out);
    if (!out)
        goto oom;
    size_t nr = 0;
    for (size_t k = 0; k < ncut; k++) {
        const int32_t c = cutoffs[k];
        for (size_t u = 0; u < ncust; u++) {
            int32_t first = -1, last = -1;
            double s90 = 0, s365 = 0;
            int n90 = 0, n365 = 0;
            uint8_t label = 0;
            for (size_t i = start[u]; i < start[u + 1]; i++) {
                const order *q = &o[i];
                if (q->day >= c) {
                    if (q->kind == 'N' && q->day < c + 30)
                        label = 1;
                    continue;
                }
                if (q->kind == 'N') {
                    if (first < 0)
                        first = q->day;
                    last = q->day;
                }
                if (q->day >= c - 90) {
                    s90 += q->amount;
                    n90 += q->kind == 'N';
                }
                if (q->day >= c - 365) {
                    s365 += q->amount;
                    n365 += q->kind == 'N';
                }
            }
            if (first < 0)
                continue; /* no ordinary order before the cutoff */
            feat_row *r = &out[nr++];
            r->customer = o[start[u]].customer;
            r->cutoff = c;
            r->label = label;
            r->x[0] = (float)(c - last);
            r->x[1] = (float)n90;
            r->x[2] = (float)s90;
            r->x[3] = (float)n365;
            r->x[4] = (float)s365;
            r->x[5] = (float)(c - first);
        }
    }
    *rows = out;
    *n = nr;
    out = NULL;
    rc = 0;
    goto done;
oom:
    ut_seterr(err, errlen, "features: out of memory");
done:
    free(o);
    free(start);
    free(out);
    return rc;
}
