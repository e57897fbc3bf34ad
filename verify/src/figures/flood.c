/* flood: see flood.h. */
#include "flood.h"

#include <stdlib.h>
#include <string.h>

#include "rawcols.h"
#include "vutil.h"

static int missed(long long arrivals, long long standins, long long errors)
{
    return arrivals >= 1 && 2 * (standins + errors) > arrivals;
}

void fl_seconds(const long long *arrivals, const long long *standins, const long long *errors, int nsec,
                fl_flood *out)
{
    memset(out, 0, sizeof *out);
    int need = nsec < 3 ? nsec : 3, run = 0;
    for (int s = 0; s < nsec; s++) {
        if (!missed(arrivals[s], standins[s], errors[s])) {
            run = 0;
            continue;
        }
        out->missed++;
        run++;
        /* the first N in a row: the flood starts at their first second */
        if (run == need && !out->flooded) {
            out->flooded = 1;
            out->from_s = s - need + 1;
        }
    }
    if (out->flooded && nsec > 0)
        out->drained = !missed(arrivals[nsec - 1], standins[nsec - 1], errors[nsec - 1]);
}

void fl_acc_init(fl_acc *a)
{
    memset(a, 0, sizeof *a);
}

void fl_acc_free(fl_acc *a)
{
    free(a->t);
    memset(a, 0, sizeof *a);
}

void fl_service_row(fl_acc *a, const rr_row *row)
{
    for (int k = 0; k < RC_LOOKUPS; k++) {
        int cs = V_A0S + 3 * k, ce = cs + 1, co = cs + 2;
        if (!row->has[co] || row->c[co] != 'T' || !row->has[cs] || !row->has[ce])
            continue;
        if (a->nt == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 1024;
            a->t = vu_xrealloc(a->t, a->cap * sizeof *a->t);
        }
        /* its store (RESULTS.md): the row's, but 2 for the hedge (lookup 1) of an arm with hedge2 1 */
        int store = a->hedge2 && k == 1 ? 2 : (int)row->v[V_STORE];
        a->t[a->nt++] = (fl_timeout){row->v[V_REQ], row->v[ce] - row->v[cs], k, store, 0};
    }
    a->sorted = 0;
}

/* by store, req, attempt; ties keep no particular order (each is matched once) */
static int cmp_key(long long st, long long req, long long at, const fl_timeout *b)
{
    if (st != b->store)
        return st < b->store ? -1 : 1;
    if (req != b->req)
        return req < b->req ? -1 : 1;
    if (at != b->attempt)
        return at < b->attempt ? -1 : 1;
    return 0;
}

static int cmp_timeout(const void *x, const void *y)
{
    const fl_timeout *a = x;
    return cmp_key(a->store, a->req, a->attempt, y);
}

void fl_store_row(fl_acc *a, const rr_row *row, int store)
{
    long long planned = row->v[S_PLANNED];
    a->rows++;
    if (planned >= FL_FREEZE_NS)
        a->freezes++;
    else
        a->healthy_rows++;
    if (row->v[S_LINE] > a->longest_line)
        a->longest_line = row->v[S_LINE];
    if (!a->nt)
        return;
    if (!a->sorted) {
        qsort(a->t, a->nt, sizeof *a->t, cmp_timeout);
        a->sorted = 1;
    }
    /* the first entry with this key, then every lookup that carries it (a
     * request logged twice has two); each lookup takes its first row of S */
    long long req = row->v[S_REQ], at = row->v[S_ATTEMPT];
    size_t lo = 0, hi = a->nt;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_key(store, req, at, &a->t[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < a->nt && !cmp_key(store, req, at, &a->t[i]); i++) {
        if (a->t[i].matched)
            continue;
        a->t[i].matched = 1;
        if (planned < a->t[i].waited)
            a->false_timeouts++;
        if (planned < FL_FREEZE_NS)
            a->healthy_timeouts++;
    }
}
