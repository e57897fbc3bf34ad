/* exrun: one run's part of verified.json's "extra", gathered during the run's only reading; see exrun.h. */
#include "exrun.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rawcols.h"
#include "rawdec.h"
#include "vutil.h"

#define ABSENT RX_ABSENT
#define FROZEN_NS 1000000000LL /* a lookup "froze" when its planned wait is over 1 s */

long long ex_grid_ns(int k)
{
    /* 0.1 ms to 3000 ms, EX_GRID points equally spaced in log */
    return llround(1e5 * pow(3e9 / 1e5, (double)k / (EX_GRID - 1)));
}

void ex_run_init(ex_run *x)
{
    memset(x, 0, sizeof *x);
    x->f_req = -1;
}

void ex_run_free(ex_run *x)
{
    free(x->sched);
    free(x->send);
    free(x->answer);
    free(x->kind);
    free(x->row);
    free(x->status);
    free(x->v_has);
    free(x->v_arrive);
    free(x->v_answer);
    free(x->v_last_end);
    free(x->v_a0s);
    free(x->v_a0e);
    free(x->v_a0o);
    free(x->v_kind);
    free(x->v_lookups);
    memset(x, 0, sizeof *x);
    x->f_req = -1;
}

#define GROW(p, cap) ((p) = vu_xrealloc((p), (size_t)(cap) * sizeof *(p)))

void ex_tester_row(ex_run *x, const rr_row *row)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 4096;
        GROW(x->sched, x->cap);
        GROW(x->send, x->cap);
        GROW(x->answer, x->cap);
        GROW(x->kind, x->cap);
        GROW(x->row, x->cap);
        GROW(x->status, x->cap);
    }
    long long j = x->n++;
    x->sched[j] = row->v[T_SCHED];
    x->send[j] = row->has[T_SEND] ? row->v[T_SEND] : ABSENT;
    x->answer[j] = row->has[T_ANSWER] ? row->v[T_ANSWER] : ABSENT;
    x->kind[j] = row->c[T_KIND];
    x->row[j] = row->v[T_ROW];
    x->status[j] = (int)row->v[T_STATUS];
}

void ex_service_row(ex_run *x, const rr_row *row)
{
    if (!x->v_has) { /* the tester's rows are all read: one slot per request */
        size_t m = (size_t)(x->n > 0 ? x->n : 1);
        x->nv = x->n;
        x->v_has = vu_xcalloc(m, 1);
        x->v_arrive = vu_xcalloc(m, sizeof *x->v_arrive);
        x->v_answer = vu_xcalloc(m, sizeof *x->v_answer);
        x->v_last_end = vu_xcalloc(m, sizeof *x->v_last_end);
        x->v_a0s = vu_xcalloc(m, sizeof *x->v_a0s);
        x->v_a0e = vu_xcalloc(m, sizeof *x->v_a0e);
        x->v_a0o = vu_xcalloc(m, 1);
        x->v_kind = vu_xcalloc(m, 1);
        x->v_lookups = vu_xcalloc(m, sizeof *x->v_lookups);
    }
    if (!row->has[V_REQ])
        return;
    long long q = row->v[V_REQ];
    if (q < 0 || q >= x->nv || x->v_has[q])
        return;
    x->v_has[q] = 1;
    x->v_arrive[q] = row->v[V_ARRIVE];
    x->v_answer[q] = row->v[V_ANSWER];
    x->v_kind[q] = row->c[V_KIND];
    x->v_lookups[q] = (int)row->v[V_LOOKUPS];
    long long last = ABSENT;
    for (int a = 0; a < RC_LOOKUPS; a++) {
        int ce = V_A0E + 3 * a;
        if (row->has[ce] && row->v[ce] > last)
            last = row->v[ce];
    }
    x->v_last_end[q] = last;
    x->v_a0s[q] = row->has[V_A0S] ? row->v[V_A0S] : ABSENT;
    x->v_a0e[q] = row->has[V_A0E] ? row->v[V_A0E] : ABSENT;
    x->v_a0o[q] = row->has[V_A0O] ? row->c[V_A0O] : 0;
}

void ex_store_row(ex_run *x, const rr_row *row)
{
    long long q = row->v[S_REQ];
    if (row->v[S_ATTEMPT] != 0 || row->v[S_PLANNED] <= FROZEN_NS || q < 0 || q >= x->n)
        return;
    if (x->f_req >= 0 && q >= x->f_req)
        return;
    x->f_req = q;
    x->f_arrive = row->v[S_ARRIVE];
    x->f_start = row->has[S_START] ? row->v[S_START] : ABSENT;
    x->f_end = row->has[S_END] ? row->v[S_END] : ABSENT;
    x->f_planned = row->v[S_PLANNED];
    x->f_budget = row->v[S_BUDGET];
    x->f_outcome = row->c[S_OUTCOME];
}

/* ------------------------------------------------------------ the object */

static vj_node *ns_or_null(long long t, long long base)
{
    return t == ABSENT ? vj_new_null() : vj_new_int(t - base);
}

static vj_node *code_or_null(char c)
{
    char s[2] = {c, 0};
    return c ? vj_new_str(s) : vj_new_null();
}

/* the first index of the sorted lat[0 .. n) whose value is above g */
static size_t first_above(const long long *lat, size_t n, long long g)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lat[mid] > g)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static vj_node *exceed_json(const ex_run *x, const long long *lat, size_t na, vj_node **counts)
{
    long long unanswered = x->n - (long long)na;
    vj_node *sh = vj_new_arr();
    *counts = vj_new_arr();
    for (int k = 0; k < EX_GRID; k++) {
        long long c = (long long)(na - first_above(lat, na, ex_grid_ns(k))) + unanswered;
        vj_arr_push(*counts, vj_new_int(c));
        vj_arr_push(sh, x->n > 0 ? vj_new_num((double)c / (double)x->n) : vj_new_null());
    }
    return sh;
}

static vj_node *frozen_json(const ex_run *x)
{
    if (x->f_req < 0)
        return vj_new_null();
    long long j = x->f_req, b = x->sched[j];
    int v = j < x->nv && x->v_has[j];
    vj_node *o = vj_new_obj();
    char kind[2] = {x->kind[j], 0};
    vj_obj_set(o, "j", vj_new_int(j));
    vj_obj_set(o, "row", vj_new_int(x->row[j]));
    vj_obj_set(o, "planned_ns", vj_new_int(x->f_planned));
    vj_obj_set(o, "budget_ns", vj_new_int(x->f_budget));
    vj_obj_set(o, "kind", vj_new_str(kind));
    vj_obj_set(o, "status", vj_new_int(x->status[j]));
    vj_obj_set(o, "a0_out", v ? code_or_null(x->v_a0o[j]) : vj_new_null());
    vj_obj_set(o, "store_outcome", code_or_null(x->f_outcome));
    vj_obj_set(o, "lookups", v ? vj_new_int(x->v_lookups[j]) : vj_new_null());
    vj_obj_set(o, "sched_ns", vj_new_int(0));
    vj_obj_set(o, "send_ns", ns_or_null(x->send[j], b));
    vj_obj_set(o, "service_arrive_ns", v ? vj_new_int(x->v_arrive[j] - b) : vj_new_null());
    vj_obj_set(o, "lookup_sent_ns", v ? ns_or_null(x->v_a0s[j], b) : vj_new_null());
    vj_obj_set(o, "service_gave_up_ns", v ? ns_or_null(x->v_a0e[j], b) : vj_new_null());
    vj_obj_set(o, "service_answer_ns", v ? vj_new_int(x->v_answer[j] - b) : vj_new_null());
    vj_obj_set(o, "answer_ns", ns_or_null(x->answer[j], b));
    vj_obj_set(o, "store_arrive_ns", vj_new_int(x->f_arrive - b));
    vj_obj_set(o, "store_start_ns", ns_or_null(x->f_start, b));
    vj_obj_set(o, "store_end_ns", ns_or_null(x->f_end, b));
    return o;
}

/* The slowest k = ceil(na / 100) answered requests, by latency descending
 * and equal latencies by j ascending, found without sorting them: the
 * k-th largest latency thr is lat[na - k] of the sorted list; every
 * request above thr is among them, and the first (by j) of those at thr
 * fill the rest.  The sums are of integers: the same whatever the order. */
static vj_node *steps_json(const ex_run *x, const long long *lat, size_t na)
{
    size_t k = (na + 99) / 100;
    long long sum[6] = {0}, used = 0;
    long long thr = k ? lat[na - k] : 0;
    long long at_thr = k ? (long long)k - (long long)(na - first_above(lat, na, thr)) : 0; /* taken at thr */
    for (long long j = 0; j < x->n && k; j++) {
        if (x->answer[j] == ABSENT)
            continue;
        long long l = x->answer[j] - x->sched[j];
        if (l < thr || (l == thr && at_thr-- <= 0))
            continue;
        if (j >= x->nv || !x->v_has[j] || x->send[j] == ABSENT)
            continue; /* answered unsent: a mismatch already */
        long long arr = x->v_arrive[j], ans = x->v_answer[j];
        long long e = x->v_last_end[j] == ABSENT ? arr : x->v_last_end[j];
        sum[0] += l;
        sum[1] += x->send[j] - x->sched[j];
        sum[2] += arr - x->send[j];
        sum[3] += e - arr;
        sum[4] += ans - e;
        sum[5] += x->answer[j] - ans;
        used++;
    }
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "answered", vj_new_int((long long)na));
    vj_obj_set(o, "requests", vj_new_int((long long)k));
    vj_obj_set(o, "with_service_row", vj_new_int(used));
    vj_obj_set(o, "fastest_of_them_ms", k ? vj_new_num((double)thr / 1e6) : vj_new_null());
    static const char *const names[6] = {"latency_ms", "late_ms", "to_service_ms", "lookups_ms",
                                         "score_answer_ms", "back_ms"};
    for (int i = 0; i < 6; i++)
        vj_obj_set(o, names[i], used ? vj_new_num((double)sum[i] / (double)used / 1e6) : vj_new_null());
    return o;
}

/* the breaker's changes, one by one */
static vj_node *breaker_json(const df_brk *b, long long t0)
{
    static const char *const names[3] = {[DF_CLOSED] = "closed", [DF_OPEN] = "open", [DF_HALF] = "half_open"};
    vj_node *a = vj_new_arr();
    for (size_t i = 0; i < b->n; i++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "t_ms", vj_new_num((double)(b->t[i] - t0) / 1e6));
        vj_obj_set(e, "state", vj_new_str(names[b->st[i]]));
        vj_arr_push(a, e);
    }
    return a;
}

/* run.json's facts about the machine, copied as they are */
static vj_node *machine_json(const vj_node *rj)
{
    vj_node *o = vj_new_obj();
    static const char *const keys[] = {"seconds", "settle_s", "rate", "cores", "tester_nice", "start_utc",
                                       "end_utc", "idle", "cpu", "peak_rss_kb", "host"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        vj_obj_set(o, keys[i], vj_copy(vj_get(rj, keys[i])));
    return o;
}

vj_node *ex_run_json(const ex_run *x, const long long *lat, size_t nlat, int has_brk, const df_brk *brk,
                     long long t0, const vj_node *rj)
{
    vj_node *e = vj_new_obj();
    vj_node *counts;
    vj_obj_set(e, "n", vj_new_int(x->n));
    vj_obj_set(e, "exceed", exceed_json(x, lat, nlat, &counts));
    vj_obj_set(e, "exceed_count", counts);
    vj_obj_set(e, "frozen_example", frozen_json(x));
    vj_obj_set(e, "slowest_steps", steps_json(x, lat, nlat));
    if (has_brk)
        vj_obj_set(e, "breaker", breaker_json(brk, t0));
    vj_obj_set(e, "machine", machine_json(rj));
    return e;
}
