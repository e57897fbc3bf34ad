/* defence: see defence.h. */
#include "defence.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "rawcols.h"
#include "stats.h"
#include "vutil.h"

#define NS_PER_S 1000000000LL
#define NS_PER_100MS 100000000LL

/* ---- run.json: arm_spec and stores ---- */

int df_read_spec(const vj_node *rj, const char *path, const char *run, df_spec *sp, char *err, size_t errlen)
{
    static const char *const cols[] = {"tries",      "brk_fails",  "brk_window", "brk_share", "brk_cool_ms", "brk_probes",
                                       "store2",     "inflight",   "bulkhead",   "rb_pct",    "rb_floor"};
    long long *dst[] = {&sp->tries,  &sp->brk_fails, &sp->brk_window, &sp->brk_share, &sp->brk_cool_ms, &sp->brk_probes,
                        &sp->store2, &sp->inflight,  &sp->bulkhead,   &sp->rb_pct,    &sp->rb_floor};
    memset(sp, 0, sizeof *sp);
    const vj_node *spec = vj_get(rj, "arm_spec");
    if (!spec || spec->type != VJ_OBJ) {
        snprintf(err, errlen, "%s: arm_spec is %s (RAWFORMAT.md: the arm's line of lab/arms.tsv as an object)", path,
                 spec ? "not an object" : "absent");
        return -1;
    }
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
        const vj_node *v = vj_get(spec, cols[k]);
        if (!v || v->type != VJ_NUM || !v->is_int) {
            snprintf(err, errlen, "%s:%d: arm_spec.%s is %s (RAWFORMAT.md: an integer, every column of the arm)", path,
                     v ? v->line : spec->line, cols[k], v ? "not an integer" : "absent");
            return -1;
        }
        *dst[k] = v->i;
    }
    /* hedge2 (docs/DESIGN.md 5.9, the 28th column; RESULTS.md: an arm_spec
     * without it has it 0): 0 or 1 */
    const vj_node *h2 = vj_get(spec, "hedge2");
    if (h2 && (h2->type != VJ_NUM || !h2->is_int || (h2->i != 0 && h2->i != 1))) {
        snprintf(err, errlen, "%s:%d: arm_spec.hedge2 is not 0 or 1 (docs/DESIGN.md 5.9: the column hedge2, 0 or 1)",
                 path, h2->line);
        return -1;
    }
    sp->hedge2 = h2 ? h2->i : 0;
    const vj_node *st = vj_get(rj, "stores");
    if (!st || st->type != VJ_NUM || !st->is_int || (st->i != 1 && st->i != 2)) {
        snprintf(err, errlen, "%s:%d: stores is %s (RAWFORMAT.md: 1, or 2 when store2.tsv.gz is among the files)", path,
                 st ? st->line : 1, st ? "not 1 or 2" : "absent");
        return -1;
    }
    sp->stores = (int)st->i;
    /* RAWFORMAT.md: 2 when the arm has a second store; docs/DESIGN.md 5.9:
     * "An arm has two stores when store2 is above 0 or hedge2 is 1" */
    int two = sp->store2 > 0 || sp->hedge2 == 1;
    if ((sp->stores == 2) != two) {
        char lab[32];
        snprintf(lab, sizeof lab, "%d", sp->stores);
        mm_addf(NULL, run, "run.json stores", lab,
                "%d (arm_spec.store2 is %lld and hedge2 %lld: 2 exactly when store2 is above 0 or hedge2 is 1)",
                two ? 2 : 1, sp->store2, sp->hedge2);
    }
    return 0;
}

/* ---- growable vectors ---- */

static void push_ll(long long **v, size_t *n, size_t *cap, long long x)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 4096;
        *v = vu_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = x;
}

void df_init(df_acc *d, const df_spec *sp, long long t0)
{
    memset(d, 0, sizeof *d);
    d->sp = *sp;
    d->t0 = t0;
    df_brk_init(&d->brk);
}

void df_free(df_acc *d)
{
    df_brk_free(&d->brk);
    free(d->rt);
    free(d->qt);
    free(d->sched);
    free(d->lat);
    free(d->answered);
    free(d->kind);
    free(d->store_of);
    memset(d, 0, sizeof *d);
}

/* ---- the circuit breaker (RAWFORMAT.md, "The circuit breaker") ---- */

void df_brk_init(df_brk *b)
{
    memset(b, 0, sizeof *b);
    b->state = DF_CLOSED;
}

void df_brk_free(df_brk *b)
{
    free(b->t);
    free(b->st);
    memset(b, 0, sizeof *b);
}

/* RESULTS.md's brk_illegal: 1 when the row is not allowed in the state
 * before it */
static int brk_illegal(const df_brk *b, const df_spec *sp, long long t, char what, long long wait)
{
    switch (what) {
    case 'O':
    case 'W': return b->state != DF_CLOSED;
    case 'H': {
        if (b->state != DF_OPEN || !b->has_open)
            return 1;
        long long since = t - b->open_t;
        return since < sp->brk_cool_ms * 1000000LL || wait != since;
    }
    default: return b->state != DF_HALF;   /* P, K */
    }
}

/* the row's tries (its count) and wait_ns as RAWFORMAT.md gives them; the
 * wait_ns of H is brk_illegal's */
static void brk_promises(const df_spec *sp, const char *run, long line, char what, long long tries, long long wait)
{
    const char *fn = "events.tsv.gz";
    char lab[32], want[200];
    snprintf(lab, sizeof lab, "%lld", tries);
    want[0] = 0;
    if (what == 'O' && (sp->brk_fails <= 0 || tries != sp->brk_fails))
        snprintf(want, sizeof want, "%lld (O: brk_fails failures in a row%s)", sp->brk_fails,
                 sp->brk_fails <= 0 ? "; arm_spec.brk_fails is 0: no O row" : "");
    else if (what == 'W' && (sp->brk_window <= 0 || tries < 0 || tries > sp->brk_window ||
                             100 * (__int128)tries < (__int128)sp->brk_share * sp->brk_window))
        snprintf(want, sizeof want,
                 "0 to brk_window %lld with 100 * tries >= brk_share %lld * brk_window (W: the failures among the last "
                 "brk_window results%s)",
                 sp->brk_window, sp->brk_share, sp->brk_window <= 0 ? "; arm_spec.brk_window is 0: no W row" : "");
    else if (what == 'H' && tries != 0)
        snprintf(want, sizeof want, "0 (H)");
    else if (what == 'P' && (tries < 0 || tries >= sp->brk_probes))
        snprintf(want, sizeof want, "0 to brk_probes - 1 = %lld (P: the probes that had succeeded before)",
                 sp->brk_probes - 1);
    else if (what == 'K' && tries != sp->brk_probes)
        snprintf(want, sizeof want, "%lld (K: brk_probes probes succeeded)", sp->brk_probes);
    if (want[0])
        mm_row(run, fn, line, "tries", lab, want);
    if (what != 'H' && wait != 0) {
        snprintf(lab, sizeof lab, "%lld", wait);
        mm_row(run, fn, line, "wait_ns", lab, "0 (a breaker row other than H)");
    }
}

void df_brk_row(df_brk *b, const df_spec *sp, const char *run, long line, long long t, char what, long long conn,
                long long tries, long long wait)
{
    const char *fn = "events.tsv.gz";
    char lab[32];
    if (conn != -1) {
        snprintf(lab, sizeof lab, "%lld", conn);
        mm_row(run, fn, line, "conn", lab, "-1 (a breaker row)");
    }
    if (sp->brk_cool_ms <= 0) {
        snprintf(lab, sizeof lab, "%c", what);
        mm_row(run, fn, line, "what", lab, "not a breaker row: arm_spec.brk_cool_ms is 0 (no circuit breaker)");
    }
    brk_promises(sp, run, line, what, tries, wait);
    if (brk_illegal(b, sp, t, what, wait)) {
        b->illegal++;
        if (!b->first_illegal_line)
            b->first_illegal_line = line;
    }
    /* every row puts the breaker in the state it names, allowed or not
     * (RESULTS.md, brk_closed_ms ...) */
    if (what == 'O' || what == 'W' || what == 'P') {
        b->state = DF_OPEN;
        b->has_open = 1;
        b->open_t = t;
        b->opened++;
    } else if (what == 'H') {
        b->state = DF_HALF;
        b->half++;
    } else {
        b->state = DF_CLOSED;
        b->closed++;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->t = vu_xrealloc(b->t, b->cap * sizeof *b->t);
        b->st = vu_xrealloc(b->st, b->cap);
    }
    b->t[b->n] = t;
    b->st[b->n++] = (unsigned char)b->state;
}

void df_brk_times(const df_brk *b, long long t0, long long end, long long ns[3])
{
    ns[0] = ns[1] = ns[2] = 0;
    long long cur = t0;
    int st = DF_CLOSED;
    for (size_t i = 0; i < b->n; i++) {
        long long x = b->t[i] < t0 ? t0 : b->t[i] > end ? end : b->t[i];
        if (x > cur) {
            ns[st] += x - cur;
            cur = x;
        }
        st = b->st[i];
    }
    if (end > cur)
        ns[st] += end - cur;
}

/* The state at t is the one the last row at or before t set.  A refusal
 * and a change of state stamped with the same nanosecond cannot be
 * ordered from the files, so any state the breaker had at t counts: the
 * one before the rows at t, and each of theirs.  Rows are in time order
 * (checked with the events file). */
int df_brk_refusal_ok(const df_brk *b, long long t)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->t[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k > 0 && b->t[k - 1] == t)
        if (b->st[--k] != DF_CLOSED)
            return 1;
    return k > 0 && b->st[k - 1] != DF_CLOSED;
}

/* a refusal whose aK_start_t was decoded from µs at t (RAWFORMAT.md,
 * format 4): the logged instant lies in [t, t + 999], so any state the
 * breaker had in that span counts */
static int refusal_ok_us(const df_brk *b, long long t)
{
    if (df_brk_refusal_ok(b, t))
        return 1;
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->t[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k < b->n && (unsigned long long)b->t[k] - (unsigned long long)t <= 999; k++)
        if (b->st[k] != DF_CLOSED)
            return 1;
    return 0;
}

/* ---- the tester's, the service's and the stores' rows ---- */

void df_tester_row(df_acc *d, long long sched, int has_answer, long long answer, char kind)
{
    if (d->nt == d->capt) {
        d->capt = d->capt ? 2 * d->capt : 4096;
        d->sched = vu_xrealloc(d->sched, d->capt * sizeof *d->sched);
        d->lat = vu_xrealloc(d->lat, d->capt * sizeof *d->lat);
        d->answered = vu_xrealloc(d->answered, d->capt);
        d->kind = vu_xrealloc(d->kind, d->capt);
    }
    d->sched[d->nt] = sched;
    d->lat[d->nt] = has_answer ? answer - sched : 0;
    d->answered[d->nt] = has_answer ? 1 : 0;
    d->kind[d->nt++] = kind;
}

/* the store column: 1 or 2, 2 only with a second store, 1 without lookups */
static void store_column(df_acc *d, const char *run, long line, const rr_row *row, int lookups)
{
    const char *fn = "service.tsv.gz";
    long long s = row->v[V_STORE];
    if (s != 1 && s != 2)
        mm_row(run, fn, line, "store", row->text[V_STORE], "1 or 2");
    else if (s == 2 && d->sp.stores != 2)
        mm_row(run, fn, line, "store", row->text[V_STORE], "1 (run.json stores is 1: no second store)");
    else if (s == 2 && lookups == 0)
        mm_row(run, fn, line, "store", row->text[V_STORE], "1 (a request that tried no lookup)");
    if (!d->store_of)
        d->store_of = vu_xcalloc(d->nt + 1, 1);
    if (row->has[V_REQ] && row->v[V_REQ] >= 0 && (size_t)row->v[V_REQ] < d->nt && (s == 1 || s == 2) &&
        !d->store_of[row->v[V_REQ]])
        d->store_of[row->v[V_REQ]] = (unsigned char)s;
}

/* a lookup tried but not sent: the gate that refused it must be the arm's,
 * and an O must fall while the breaker is OPEN or HALF OPEN */
static void refused_lookup(df_acc *d, const char *run, long line, const rr_row *row, int k)
{
    const char *fn = "service.tsv.gz";
    int cs = V_A0S + 3 * k, co = cs + 2;
    char c = row->c[co], what[16], lab[64], want[256];
    snprintf(what, sizeof what, "a%d_out", k);
    if (c == 'O') {
        snprintf(lab, sizeof lab, "O at %lld", row->v[cs]);
        if (d->sp.brk_cool_ms <= 0)
            mm_row(run, fn, line, what, lab, "not O: arm_spec.brk_cool_ms is 0 (no circuit breaker)");
        else if (!refusal_ok_us(&d->brk, row->v[cs])) {
            snprintf(want, sizeof want,
                     "O only while the breaker is OPEN or HALF OPEN; events.tsv.gz has it CLOSED at %lld "
                     "(a verifier check)",
                     row->v[cs]);
            mm_row(run, fn, line, what, lab, want);
        }
    } else if (c == 'B' && d->sp.inflight <= 0) {
        mm_row(run, fn, line, what, "B", "not B: arm_spec.inflight is 0 (no compartment)");
    } else if (c == 'Y' && d->sp.rb_pct <= 0) {
        mm_row(run, fn, line, what, "Y", "not Y: arm_spec.rb_pct is 0 (no retry budget)");
    } else if (c == 'Y' && k == 0) {
        mm_row(run, fn, line, what, "Y", "not Y on lookup 0 (the retry budget refuses retries only)");
    }
}

void df_service_row(df_acc *d, const char *run, long line, const rr_row *row, int lookups)
{
    const char *fn = "service.tsv.gz";
    store_column(d, run, line, row, lookups);
    int refused = -1;
    for (int k = 0; k < RC_LOOKUPS; k++) {
        int cs = V_A0S + 3 * k, co = cs + 2;
        if (!row->has[co])
            continue;
        char c = row->c[co];
        if (refused >= 0) {
            char what[16], want[160];
            snprintf(what, sizeof what, "a%d_out", k);
            snprintf(want, sizeof want,
                     "- (lookup %d was refused with %c: the request goes at once to its fallback, no retry)", refused,
                     row->c[V_A0S + 3 * refused + 2]);
            mm_row(run, fn, line, what, row->text[co], want);
        }
        int gate = c == 'O' || c == 'B' || c == 'Y';
        if (gate) {
            refused = k;
            if (row->has[cs])
                refused_lookup(d, run, line, row, k);
        }
        /* RESULTS.md's retries_passed: K >= 1, not refused by a gate */
        if (k >= 1 && !gate && row->has[cs]) {
            d->retries_passed++;
            if (d->sp.rb_pct > 0) {
                if (d->nr == d->capr) {
                    d->capr = d->capr ? 2 * d->capr : 4096;
                    d->rt = vu_xrealloc(d->rt, d->capr * sizeof *d->rt);
                }
                d->rt[d->nr++] = (df_tline){row->v[cs], line};
            }
        }
    }
    if (d->sp.rb_pct > 0 && row->has[V_A0S])
        push_ll(&d->qt, &d->nq, &d->capq, row->v[V_ARRIVE]);
}

void df_store_row(df_acc *d, const ou_fault *w, const char *run, const char *file, long line, const rr_row *row,
                  int store)
{
    long long q = row->v[S_REQ], a = row->v[S_ARRIVE];
    /* the lookup's store (RESULTS.md): the request's, but 2 for the hedge
     * (attempt 1) of an arm with hedge2 1 */
    int hedge = d->sp.hedge2 == 1 && row->v[S_ATTEMPT] == 1;
    if (hedge && store != 2) {
        mm_row(run, file, line, "attempt", row->text[S_ATTEMPT],
               "not 1 in store.tsv.gz (arm_spec.hedge2 1: the hedge, lookup 1, goes to the copy, store2.tsv.gz; "
               "docs/DESIGN.md 5.9)");
    } else if (!hedge && d->store_of && q >= 0 && (size_t)q < d->nt && d->store_of[q] && d->store_of[q] != store) {
        char want[160];
        snprintf(want, sizeof want, "a request the service logged with store %d (service.tsv.gz has store %d for it)",
                 store, d->store_of[q]);
        mm_row(run, file, line, "req", row->text[S_REQ], want);
    }
    /* the storm at recovery: rows of S by arrive_t (RESULTS.md) */
    if (!w->has_window)
        return;
    if (a >= d->t0 && a < w->F)
        d->before++;
    if (!w->to_end && a >= w->U && a - w->U < DF_REC_BINS * NS_PER_100MS)
        d->bin[(a - w->U) / NS_PER_100MS]++;
}

/* ---- the figures ---- */

static size_t upper(const long long *v, size_t n, long long x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_tline(const void *x, const void *y)
{
    const df_tline *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

long long df_budget_over(df_acc *d, long *first_line)
{
    *first_line = 0;
    df_tline *r = d->rt;
    long long *rt = vu_xcalloc(d->nr + 1, sizeof *rt);
    qsort(r, d->nr, sizeof *r, cmp_tline);
    for (size_t i = 0; i < d->nr; i++)
        rt[i] = r[i].t;
    st_sort_ll(d->qt, d->nq);
    long long over = 0;
    for (size_t i = 0; i < d->nr; i++) {
        /* R and Q over (t - 1 s, t]: those at or before t, less those at or before t - 1 s */
        long long t = rt[i];
        __int128 R = (__int128)(upper(rt, d->nr, t) - upper(rt, d->nr, t - NS_PER_S));
        __int128 Q = (__int128)(upper(d->qt, d->nq, t) - upper(d->qt, d->nq, t - NS_PER_S));
        if (100 * R > (__int128)d->sp.rb_pct * Q + 100 * (__int128)d->sp.rb_floor) {
            over++;
            if (!*first_line || r[i].line < *first_line)
                *first_line = r[i].line;
        }
    }
    free(rt);
    return over;
}

/* storeN_*: over the rows of T whose request the service logged with store
 * N, all of them or those in phase during; four figures at out */
static void store_figs(const df_acc *d, const ou_fault *w, int n, int during, double *out)
{
    long long *lat = vu_xcalloc(d->nt + 1, sizeof *lat);
    size_t nl = 0;
    long long req = 0, live = 0;
    for (size_t j = 0; j < d->nt; j++) {
        if (!d->store_of || d->store_of[j] != n)
            continue;
        if (during && ou_phase(w, d->sched[j]) != 1)
            continue;
        req++;
        if (d->kind[j] == 'L')
            live++;
        if (d->answered[j])
            lat[nl++] = d->lat[j];
    }
    st_sort_ll(lat, nl);
    out[0] = (double)req;
    out[1] = (double)live;
    out[2] = req > 0 ? (double)live / (double)req : NAN;
    out[3] = st_pct_ll(lat, nl, 0.99) / 1e6;
    free(lat);
}

void df_figs(df_acc *d, const ou_fault *w, long long refused_b, long long refused_y,
             double fig[DF_NFIG], long long rec[DF_REC_BINS], int *has_rec, long *budget_over_line)
{
    const df_spec *sp = &d->sp;
    for (int k = 0; k < DF_NFIG; k++)
        fig[k] = NAN;
    *budget_over_line = 0;
    if (sp->brk_cool_ms > 0) {
        const df_brk *b = &d->brk;
        long long ns[3];
        df_brk_times(b, d->t0, w->end, ns);
        fig[DF_BRK_OPENED] = (double)b->opened;
        fig[DF_BRK_HALF_OPENED] = (double)b->half;
        fig[DF_BRK_CLOSED] = (double)b->closed;
        fig[DF_BRK_TRANSITIONS] = (double)(b->opened + b->half + b->closed);
        fig[DF_BRK_CLOSED_MS] = (double)ns[DF_CLOSED] / 1e6;
        fig[DF_BRK_OPEN_MS] = (double)ns[DF_OPEN] / 1e6;
        fig[DF_BRK_HALF_MS] = (double)ns[DF_HALF] / 1e6;
        fig[DF_BRK_ILLEGAL] = (double)b->illegal;
    }
    if (sp->tries > 1)
        fig[DF_RETRIES_PASSED] = (double)d->retries_passed;
    if (sp->rb_pct > 0) {
        fig[DF_BUDGET_REFUSED] = (double)refused_y;
        fig[DF_BUDGET_OVER] = (double)df_budget_over(d, budget_over_line);
    }
    if (sp->inflight > 0)
        fig[DF_INFLIGHT_REFUSED] = (double)refused_b;
    if (sp->stores == 2) {
        for (int n = 1; n <= 2; n++) {
            store_figs(d, w, n, 0, &fig[DF_STORE0 + 4 * (n - 1)]);
            if (w->has_window)
                store_figs(d, w, n, 1, &fig[DF_STORE_DURING0 + 4 * (n - 1)]);
        }
    }
    *has_rec = 0;
    if (w->has_window && w->from_ns != 0)
        fig[DF_BEFORE_LOOKUPS_100MS] = (double)d->before / ((double)w->from_ns / 1e8);
    if (w->has_window && !w->to_end && w->U <= w->end - NS_PER_S) {
        long long mx = 0;
        for (int i = 0; i < DF_REC_BINS; i++) {
            rec[i] = d->bin[i];
            if (d->bin[i] > mx)
                mx = d->bin[i];
        }
        *has_rec = 1;
        fig[DF_RECOVERY_LOOKUPS_100MS_MAX] = (double)mx;
    }
}
