/* The defences (raw format 3): a circuit breaker, a retry budget, a second
 * store, the storm at recovery; unit cases with made-up times, and a run
 * end to end whose figures are worked out by hand below.
 *
 * Arm H3-def-down (fault down, 6 s, window [2 s, 4 s): F = T + 2 s, U = T + 4 s),
 * arm_spec tries 3, brk_fails 5, brk_cool_ms 250, brk_probes 3, store2 50,
 * inflight 16, bulkhead 1, rb_pct 10, rb_floor 1; stores 2.  60 requests (a
 * closed-loop run: each sent when scheduled; planned waits from the dice):
 *   s_j = T + j 0.1 s (+ 1000 ns unless j % 20 == 0: j = 20 at F, j = 40 at U),
 *   row j % 10 (rows 6 and 7 new a month earlier: stand-in D), service arrive s + 180 us.
 *   Odd j ask store 2 (store2.tsv.gz): a0 [s + 190 us, s + 705 us] A, live,
 *     latency 1 ms + j us.
 *   Even j ask store 1: before the window live (a0 A), latency 2 ms + j us;
 *   after it live (a0 A), latency 1 ms; in it the store is down (U; store E):
 *     j 20  a0, a1, a2 U (a1 at s + 300 us, a2 at s + 410 us)
 *     j 22  a0 U, a1 Y (the budget) at s + 300 us
 *     j 24  a0 U: the 5th failure in a row, breaker O at s + 207 us; a1 Y
 *     j 26, 30, 34, 38  a0 O (open)
 *     j 28, 32, 36  a0: H (cooldown over) at s + 190 us, the probe U, P at s + 207 us;
 *                   a1 Y (j 28), O (j 32, 36: the budget lets it pass, the breaker is open)
 *     stand-ins, latency 0.7 ms + j us
 *   j 40, 42, 44: H at s40 + 190 us, three probes A, K at s44 + 705 us.
 * By hand (ms from T):
 *   events O 2400.208, H 2800.191 (wait 399.983), P 2800.208, H 3200.191, P 3200.208,
 *          H 3600.191, P 3600.208, H 4000.190 (wait 399.982), K 4400.706
 *   brk_opened 4 (O + 3 P), brk_half_opened 4, brk_closed 1, brk_transitions 9, brk_illegal 0
 *   brk_closed_ms 2400.208 + (6000 - 4400.706) = 3999.502
 *   brk_open_ms 3 x 399.983 + 399.982 = 1599.931;  brk_half_ms 3 x 0.017 + 400.516 = 400.567
 *   lookup_ends A 50, U 8, O 6, Y 3; store_outcomes A 50, E 8; lookups 58
 *   retries_passed 2 (j 20's): at 2000.3 R = 1, Q = 10 (arrivals of j 11..20 in (1000.3, 2000.3]);
 *     at 2000.41 R = 2: 100 R = 200 <= 10 Q + 100 = 200, not over: budget_over 0
 *   budget_refused 3, inflight_refused 0
 *   store1: 30 requests, 20 live (2/3), p99 of {0.72..0.738, 1 x 10, 2.000..2.018}:
 *     h = 28.71, 2.016 + 0.71 x 0.002 = 2.01742
 *   store2: 30, 30 live, p99 1.057 + 0.71 x 0.002 = 1.05842
 *   store1_during: 10, 0 live, p99 of 0.720..0.738: h = 8.91, 0.736 + 0.91 x 0.002 = 0.73782
 *   store2_during: 10, 10 live, p99 1.037 + 0.91 x 0.002 = 1.03882
 *   before_lookups_100ms: 20 rows of S (both stores) before F / (2e9 / 1e8) = 1
 *   recovery_lookups_100ms: j 40 + i's lookup arrives in [U + i 0.1 s, ...): ten 1s, max 1
 *   during: requests 20, live 10, stand-ins 10, lookups sent 18 (O and Y left out)
 *   per second lookups_sent: s2 11, s3 7
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "defence.h"
#include "mism.h"
#include "predicate.h"
#include "rawcols.h"
#include "rawread.h"
#include "runfig.h"
#include "synth.h"
#include "thelp.h"
#include "tstudy.h"
#include "vjson.h"
#include "vutil.h"

#define US 1000LL
#define MS 1000000LL
#define SEC 1000000000LL

/* ---- unit cases with made-up times ---- */

static df_spec brk_spec(void)
{
    df_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.tries = 1;
    sp.brk_fails = 5;
    sp.brk_window = 20;
    sp.brk_share = 50;
    sp.brk_cool_ms = 250;
    sp.brk_probes = 3;
    sp.stores = 1;
    return sp;
}

Test(defence_units, breaker_illegal_rows_and_time_in_state)
{
    mm_reset();
    df_spec sp = brk_spec();
    df_brk b;
    df_brk_init(&b);
    /* line, t (ms), what, tries, wait (ms) */
    static const struct {
        long long t;
        char what;
        long long tries, wait;
    } rows[] = {
        {1000, 'K', 3, 0},    /* illegal: CLOSED, not HALF OPEN */
        {2000, 'O', 5, 0},    /* CLOSED -> OPEN */
        {2200, 'H', 0, 200},  /* illegal: 200 ms after the opening, below the 250 ms cooldown */
        {2300, 'K', 3, 0},    /* HALF OPEN -> CLOSED */
        {3000, 'W', 10, 0},   /* 10 of 20 = 50%: CLOSED -> OPEN */
        {3250, 'H', 0, 250},  /* exactly the cooldown: allowed */
        {3300, 'P', 2, 0},    /* HALF OPEN -> OPEN */
        {3600, 'H', 0, 250},  /* illegal: wait_ns 250 ms, the time since P is 300 ms */
        {3700, 'O', 5, 0},    /* illegal: HALF OPEN, not CLOSED (it opens all the same) */
        {3950, 'H', 0, 250},  /* 250 ms after that O: allowed */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        df_brk_row(&b, &sp, "u", (long)i + 3, rows[i].t * MS, rows[i].what, -1, rows[i].tries, rows[i].wait * MS);
    cr_expect_eq(mm_count(), 0, "row promises kept: tries and wait_ns as RAWFORMAT.md gives them");
    cr_expect_eq(b.illegal, 4);
    cr_expect_eq(b.first_illegal_line, 3);
    cr_expect_eq(b.opened, 4);   /* O, W, P, O */
    cr_expect_eq(b.half, 4);
    cr_expect_eq(b.closed, 2);
    /* [0, 5 s): CLOSED [0, 2) + [2.3, 3) = 2.7 s; OPEN [2, 2.2) + [3, 3.25) + [3.3, 3.6)
     * + [3.7, 3.95) = 1.0 s; HALF [2.2, 2.3) + [3.25, 3.3) + [3.6, 3.7) + [3.95, 5) = 1.3 s */
    long long ns[3];
    df_brk_times(&b, 0, 5 * SEC, ns);
    cr_expect_eq(ns[DF_CLOSED], 2700 * MS);
    cr_expect_eq(ns[DF_OPEN], 1000 * MS);
    cr_expect_eq(ns[DF_HALF], 1300 * MS);
    /* the schedule [2.1 s, 3.275 s): rows before it set the state at its start (OPEN) */
    df_brk_times(&b, 2100 * MS, 3275 * MS, ns);
    cr_expect_eq(ns[DF_CLOSED], 700 * MS);
    cr_expect_eq(ns[DF_OPEN], 350 * MS);
    cr_expect_eq(ns[DF_HALF], 125 * MS);
    /* refusals: OPEN or HALF OPEN at t; at a change's own nanosecond either side counts */
    cr_expect(!df_brk_refusal_ok(&b, 500 * MS), "before any row: CLOSED");
    cr_expect(!df_brk_refusal_ok(&b, 2000 * MS - 1));
    cr_expect(df_brk_refusal_ok(&b, 2000 * MS), "the O row's own t");
    cr_expect(df_brk_refusal_ok(&b, 2300 * MS), "K at 2.3 s: HALF OPEN until then");
    cr_expect(!df_brk_refusal_ok(&b, 2300 * MS + 1));
    cr_expect(df_brk_refusal_ok(&b, 4999 * MS));
    df_brk_free(&b);
    mm_reset();
}

Test(defence_units, breaker_row_promises)
{
    mm_reset();
    df_spec sp = brk_spec();
    df_brk b;
    df_brk_init(&b);
    df_brk_row(&b, &sp, "u", 3, 1 * SEC, 'O', 0, 4, 0);        /* conn 0; tries 4, not brk_fails 5 */
    df_brk_row(&b, &sp, "u", 4, 2 * SEC, 'H', -1, 0, 1 * SEC);  /* fine */
    df_brk_row(&b, &sp, "u", 5, 3 * SEC, 'P', -1, 3, 7);        /* tries 3 of 3 probes; wait_ns 7 */
    df_brk_row(&b, &sp, "u", 6, 4 * SEC, 'W', -1, 9, 0);        /* 9 of 20 is under 50% (and not CLOSED) */
    cr_expect_eq(mm_count(), 5);
    cr_expect_eq(b.illegal, 1);
    df_brk_free(&b);
    /* an arm without a breaker has no breaker row */
    mm_reset();
    sp.brk_cool_ms = 0;
    df_brk_init(&b);
    df_brk_row(&b, &sp, "u", 3, 1 * SEC, 'O', -1, 5, 0);
    cr_expect_eq(mm_count(), 1);
    df_brk_free(&b);
    mm_reset();
}

/* a service row: arrive, lookups a0.. with their start (= end) and code */
static void svc_row(df_acc *d, long line, long long arrive, int n, const long long *start, const char *outs)
{
    rr_row row;
    memset(&row, 0, sizeof row);
    row.v[V_ARRIVE] = arrive;
    row.has[V_ARRIVE] = 1;
    row.v[V_STORE] = 1;
    row.text[V_STORE] = "1";
    static char codes[RC_LOOKUPS][2];
    for (int k = 0; k < n; k++) {
        int cs = V_A0S + 3 * k;
        row.has[cs] = row.has[cs + 1] = row.has[cs + 2] = 1;
        row.v[cs] = row.v[cs + 1] = start[k];
        row.c[cs + 2] = outs[k];
        codes[k][0] = outs[k];
        row.text[cs + 2] = codes[k];
    }
    df_service_row(d, "u", line, &row, n);
}

Test(defence_units, budget_over_at_the_edges_of_the_second)
{
    /* rb_pct 10, rb_floor 1: a retry at t is over when 100 R > 10 Q + 100 over (t - 1 s, t].
     * Request k = 1..10 arrives at k 0.1 s (line k + 2) with a0; retries a1:
     *   k 10 at 1.0 s:  R 1, Q 10 (0.1 .. 1.0)                 100 <= 200
     *   k 9  at 1.05 s: R 2, Q 10                               200 <= 200: not over (equal)
     *   k 8  at 1.1 s:  R 3, Q 9 (0.1 s is not in (0.1, 1.1])  300 > 190: over
     *   k 7  at 2.0 s:  R 3 (1.05, 1.1, 2.0; 1.0 is not in (1.0, 2.0]), Q 0: over
     *   k 6  at 3.05 s: R 1, Q 0                                100 <= 100: the floor alone
     *   k 5  at 3.06 s: Y (refused: not a retry passed)
     *   k 4  at 3.5 s:  R (not sent, but passed by the gates) R 2, Q 0: over
     * budget_over 3, the first by line k 4's (line 6); retries_passed 6, budget_refused 1 */
    mm_reset();
    df_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.tries = 3;
    sp.rb_pct = 10;
    sp.rb_floor = 1;
    sp.stores = 1;
    df_acc d;
    df_init(&d, &sp, 0);
    static const long long retry_ms[11] = {0, 0, 0, 0, 3500, 3060, 3050, 2000, 1100, 1050, 1000};
    static const char retry_out[11] = {0, 0, 0, 0, 'R', 'Y', 'A', 'A', 'A', 'A', 'A'};
    for (int k = 1; k <= 10; k++) {
        long long start[2] = {k * 100 * MS, retry_ms[k] * MS};
        char outs[3] = {'A', retry_out[k], 0};
        /* a0 of a request with a retry did not answer: T */
        if (retry_ms[k])
            outs[0] = 'T';
        svc_row(&d, k + 2, k * 100 * MS, retry_ms[k] ? 2 : 1, start, outs);
    }
    cr_expect_eq(mm_count(), 0);
    ou_fault w;
    memset(&w, 0, sizeof w);
    w.U = LLONG_MAX;
    w.end = 6 * SEC;
    double fig[DF_NFIG];
    long long rec[DF_REC_BINS];
    int has_rec;
    long first;
    df_figs(&d, &w, 0, 1, fig, rec, &has_rec, &first);
    cr_expect_eq(fig[DF_BUDGET_OVER], 3);
    cr_expect_eq(first, 6);
    cr_expect_eq(fig[DF_RETRIES_PASSED], 6);
    cr_expect_eq(fig[DF_BUDGET_REFUSED], 1);
    cr_expect(isnan(fig[DF_INFLIGHT_REFUSED]) && isnan(fig[DF_BRK_OPENED]) && isnan(fig[DF_STORE0 + 3]),
              "no compartment, no breaker, one store: null");
    cr_expect(isnan(fig[DF_BEFORE_LOOKUPS_100MS]) && !has_rec, "no window: null");
    df_free(&d);
    /* a Y on lookup 0, a B without a compartment, a lookup after a refused one */
    df_init(&d, &sp, 0);
    long long st[3] = {SEC, SEC, 2 * SEC};
    svc_row(&d, 3, SEC, 1, st, "Y");
    svc_row(&d, 4, SEC, 3, st, "TBA");
    cr_expect_eq(mm_count(), 3);
    df_free(&d);
    mm_reset();
}

static void store_row(df_acc *d, const ou_fault *w, long long arrive)
{
    rr_row row;
    memset(&row, 0, sizeof row);
    row.v[S_ARRIVE] = arrive;
    row.text[S_REQ] = "0";
    df_store_row(d, w, "u", "store.tsv.gz", 3, &row, 1);
}

Test(defence_units, storm_counts_at_the_edges_of_100_ms)
{
    /* t0 10 s, window [2 s, 4 s): F = 12 s, U = 14 s, the run ends at 16 s */
    ou_fault w;
    memset(&w, 0, sizeof w);
    w.scen = OU_DOWN;
    w.has_window = 1;
    w.from_ns = 2 * SEC;
    w.to_ns = 4 * SEC;
    w.F = 12 * SEC;
    w.U = 14 * SEC;
    w.end = 16 * SEC;
    df_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.tries = 1;
    sp.stores = 1;
    df_acc d;
    df_init(&d, &sp, 10 * SEC);
    /* before: [t0, F) holds t0 and F - 1, not t0 - 1 nor F: 2 / (2e9 / 1e8) = 0.1 */
    const long long U = w.U;
    long long at[] = {10 * SEC - 1, 10 * SEC, 12 * SEC - 1, 12 * SEC,
                      /* bins [U + i 0.1 s, U + (i + 1) 0.1 s) */
                      U - 1, U, U + 100 * MS - 1, U + 100 * MS, U + 500 * MS + 3, U + SEC - 1, U + SEC};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++)
        store_row(&d, &w, at[i]);
    double fig[DF_NFIG];
    long long rec[DF_REC_BINS];
    int has_rec;
    long first;
    df_figs(&d, &w, 0, 0, fig, rec, &has_rec, &first);
    cr_expect_eq(fig[DF_BEFORE_LOOKUPS_100MS], 0.1);
    cr_assert(has_rec);
    static const long long want[DF_REC_BINS] = {2, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < DF_REC_BINS; i++)
        cr_expect_eq(rec[i], want[i], "bin %d", i);
    cr_expect_eq(fig[DF_RECOVERY_LOOKUPS_100MS_MAX], 2);
    /* a run ending 1 ns before U + 1 s: no list; a window from 0: no rate before it */
    w.end = U + SEC - 1;
    w.from_ns = 0;
    df_figs(&d, &w, 0, 0, fig, rec, &has_rec, &first);
    cr_expect(!has_rec && isnan(fig[DF_RECOVERY_LOOKUPS_100MS_MAX]));
    cr_expect(isnan(fig[DF_BEFORE_LOOKUPS_100MS]));
    w.end = U + SEC;
    df_figs(&d, &w, 0, 0, fig, rec, &has_rec, &first);
    cr_expect(has_rec, "U + 1 s at the run's end: the list");
    df_free(&d);
}

/* ---- the run end to end ---- */

static char *d_root;

static void d_setup(void)
{
    d_root = th_tmpdir();
    cr_assert(d_root);
}

static void d_teardown(void)
{
    th_rmrf(d_root);
    free(d_root);
}

static void ten_rows(syn_ref *ref)
{
    syn_make_ref(ref, 10, 5);
    ref->last_known[6] = ref->last_known[7] = ref->default_score;
}

/* lookup a of v; a store row (in store 1 or 2) unless it was not sent;
 * store 'A' answered after 500 us in a slot, 'E' unavailable at once */
static void lookup(syn_run *r, syn_vrow *v, int a, long long start, long long end, char out, char store)
{
    v->a_has[a] = 1;
    v->a_start[a] = start;
    v->a_end[a] = end;
    v->a_out[a] = out;
    v->lookups = a + 1;
    if (strchr("ROBY", out))
        return;
    syn_srow *s = v->store == 2 ? &r->s2[r->ns2++] : &r->s[r->ns++];
    s->req = v->req;
    s->attempt = a;
    s->row = v->row;
    s->arrive = start + 8 * US;
    s->outcome = store;
    s->has_end = 1;
    if (store == 'A') {
        s->has_start = 1;
        s->start = s->arrive;
        s->end = s->start + 500 * US;
        s->planned = 500 * US;
        s->busy = 1;
    } else {
        s->end = s->arrive;
        s->planned = 2 * MS;
    }
}

static void answer(const syn_ref *ref, syn_trow *t, syn_vrow *v, char kind, long long served, long long read)
{
    v->answer = served;
    t->has_answer = 1;
    t->answer = read;
    t->kind = v->kind = kind;
    t->status = v->status = 200;
    t->has_score = 1;
    t->score = kind == 'L' ? ref->score[t->row] : kind == 'K' ? ref->last_known[t->row] : ref->default_score;
}

static int cmp_s(const void *x, const void *y)
{
    const syn_srow *a = x, *b = y;
    return (a->end > b->end) - (a->end < b->end);
}

static int cmp_v(const void *x, const void *y)
{
    const syn_vrow *a = x, *b = y;
    return (a->answer > b->answer) - (a->answer < b->answer);
}

/* the request of the window whose lookups go to the store that is down */
static void down_request(syn_run *r, syn_vrow *v, int j, long long s)
{
    switch (j) {
    case 20:
        lookup(r, v, 0, s + 190 * US, s + 207 * US, 'U', 'E');
        lookup(r, v, 1, s + 300 * US, s + 317 * US, 'U', 'E');
        lookup(r, v, 2, s + 410 * US, s + 427 * US, 'U', 'E');
        break;
    case 22:
    case 24:
    case 28:
        lookup(r, v, 0, s + 190 * US, s + 207 * US, 'U', 'E');
        lookup(r, v, 1, s + 300 * US, s + 300 * US, 'Y', 0);
        break;
    case 32:
    case 36:
        lookup(r, v, 0, s + 190 * US, s + 207 * US, 'U', 'E');
        lookup(r, v, 1, s + 300 * US, s + 300 * US, 'O', 0);
        break;
    default: /* 26, 30, 34, 38 */
        lookup(r, v, 0, s + 190 * US, s + 190 * US, 'O', 0);
    }
}

/* the breaker's rows of events.tsv.gz (ms from T in the comment above) */
static void breaker_events(syn_run *r)
{
    long long T = r->t0;
#define S_(j) (T + (j) * 100 * MS + ((j) % 20 ? 1000 : 0))
    r->e = vu_xcalloc(9, sizeof *r->e);
    r->e[r->ne++] = (syn_erow){S_(24) + 207 * US, 'O', -1, 5, 0};
    for (int j = 28; j <= 36; j += 4) {
        long long h = S_(j) + 190 * US, open = r->e[r->ne - 1].t;
        r->e[r->ne++] = (syn_erow){h, 'H', -1, 0, h - open};
        r->e[r->ne++] = (syn_erow){S_(j) + 207 * US, 'P', -1, 0, 0};
    }
    long long h = S_(40) + 190 * US, open = r->e[r->ne - 1].t;
    r->e[r->ne++] = (syn_erow){h, 'H', -1, 0, h - open};
    r->e[r->ne++] = (syn_erow){S_(44) + 705 * US, 'K', -1, 3, 0};
#undef S_
}

static void def_run(syn_run *r, const syn_ref *ref, int round)
{
    memset(r, 0, sizeof *r);
    snprintf(r->arm, sizeof r->arm, "H3-def-down");
    r->round = round;
    r->seconds = 6;
    r->rate = 10;
    r->t0 = 9000000000000LL + round * 100000000000LL;
    r->test_rows = 10;
    r->stores = 2;
    r->spec = (syn_spec){.tries = 3, .brk_fails = 5, .brk_cool_ms = 250, .brk_probes = 3, .store2 = 50,
                         .inflight = 16, .bulkhead = 1, .rb_pct = 10, .rb_floor = 1};
    syn_set_fault(r, "down");
    r->t = vu_xcalloc(60, sizeof *r->t);
    r->v = vu_xcalloc(60, sizeof *r->v);
    r->s = vu_xcalloc(100, sizeof *r->s);
    r->s2 = vu_xcalloc(100, sizeof *r->s2);
    for (int j = 0; j < 60; j++) {
        syn_trow *t = &r->t[r->nt++];
        t->j = j;
        t->row = j % 10;
        t->sched = r->t0 + j * 100 * MS + (j % 20 ? 1000 : 0);
        t->send = t->sched + 10 * US;
        t->conn = j % 4;
        long long s = t->sched;
        syn_vrow *v = &r->v[r->nv++];
        v->req = j;
        v->row = t->row;
        v->has_req = v->has_row = 1;
        v->arrive = s + 180 * US;
        v->store = j % 2 ? 2 : 1;
        if (v->store == 2 || j < 20 || j >= 40) {
            lookup(r, v, 0, s + 190 * US, s + 705 * US, 'A', 'A');
            long long lat = v->store == 2 ? MS + j * US : j < 20 ? 2 * MS + j * US : MS;
            answer(ref, t, v, 'L', s + 800 * US, s + lat);
        } else {
            down_request(r, v, j, s);
            answer(ref, t, v, t->row == 6 || t->row == 7 ? 'D' : 'K', s + 500 * US, s + 700 * US + j * US);
        }
    }
    breaker_events(r);
    /* times of the test's choosing: a closed-loop run; planned waits from the dice */
    syn_closed_loop(r);
    syn_draw_waits(r);
    qsort(r->s, r->ns, sizeof *r->s, cmp_s);
    qsort(r->s2, r->ns2, sizeof *r->s2, cmp_s);
    qsort(r->v, r->nv, sizeof *r->v, cmp_v);
    syn_quiet_machine(r, 7);
}

static const char *D_COMPARISONS = "a\tb\tfigure\tnote\n"
                                   "H3-def-down\tH3-fb25\tp99_ms\tthe breaker's arm against one without\n"
                                   "H3-def-down\tH3-fb25\tbrk_open_ms\tno breaker in H3-fb25\n";

static const char *D_GUESSES =
    "id\tguess\tpredicate\n"
    "G1\tThe breaker opens and probes.\tevery H3-def-down.brk_opened >= 4 and every H3-def-down.brk_illegal <= 0 and "
    "median H3-def-down.brk_half_ms > 400.5\n"
    "G2\tThe healthy store stays live.\tevery H3-def-down.store2_during_live_share >= 1 and every "
    "H3-def-down.store1_during_live_share <= 0 and median H3-def-down.store2_p99_ms < 1.0585\n"
    "G3\tThe budget holds.\tevery H3-def-down.budget_over <= 0 and every H3-def-down.budget_refused >= 3 and every "
    "H3-def-down.inflight_refused <= 0 and every H3-def-down.retries_passed <= 2\n"
    "G4\tNo storm.\tevery H3-def-down.recovery_lookups_100ms_max <= 1 and every H3-def-down.before_lookups_100ms >= 1\n"
    "G5\tNo breaker, no figure.\tany H3-fb25.brk_opened >= 0\n"
    "G6\tMany changes.\tmedian H3-def-down.brk_transitions >= 10\n";

/* H3-def-down and H3-fb25 (one store, no defence, no window) in rounds 1
 * and 2; edit may change round 1 of H3-def-down before it is written */
static void def_study(const char *root, void (*edit)(syn_run *))
{
    syn_ref ref;
    ten_rows(&ref);
    cr_assert_eq(syn_write_reference(root, &ref), 0);
    syn_run r;
    for (int round = 1; round <= 2; round++) {
        def_run(&r, &ref, round);
        if (edit && round == 1)
            edit(&r);
        cr_assert_eq(syn_write_run(root, &r, 6), 0);
        syn_free_run(&r);
        syn_kind_run(&r, "H3-fb25", round, "LLKLLLDEL", &ref, 7000000000000LL + round * 100000000000LL);
        cr_assert_eq(syn_write_run(root, &r, 6), 0);
        syn_free_run(&r);
    }
    syn_free_ref(&ref);
    ts_write_texts(root, D_COMPARISONS, D_GUESSES);
    cr_assert_eq(syn_write_quiet(root, NULL), 0);
    cr_assert_eq(syn_write_manifest(root), 0);
}

static void run_figures_by_hand(const vj_node *v, const char *R)
{
    static const struct {
        const char *name;
        double want;
    } figs[] = {
        {"brk_opened", 4}, {"brk_half_opened", 4}, {"brk_closed", 1}, {"brk_transitions", 9}, {"brk_illegal", 0},
        {"brk_closed_ms", 3999.502}, {"brk_open_ms", 1599.931}, {"brk_half_ms", 400.567},
        {"retries_passed", 2}, {"budget_refused", 3}, {"budget_over", 0}, {"inflight_refused", 0},
        {"store1_requests", 30}, {"store1_live", 20}, {"store1_live_share", 2.0 / 3}, {"store1_p99_ms", 2.01742},
        {"store2_requests", 30}, {"store2_live", 30}, {"store2_live_share", 1}, {"store2_p99_ms", 1.05842},
        {"store1_during_requests", 10}, {"store1_during_live", 0}, {"store1_during_live_share", 0},
        {"store1_during_p99_ms", 0.73782}, {"store2_during_requests", 10}, {"store2_during_live", 10},
        {"store2_during_live_share", 1}, {"store2_during_p99_ms", 1.03882},
        {"before_lookups_100ms", 1}, {"recovery_lookups_100ms_max", 1},
        {"lookups", 58}, {"live", 50}, {"last_known", 8}, {"default", 2}, {"during_requests", 20},
        {"during_live", 10}, {"during_standins", 10}, {"during_lookups", 18}, {"before_lookups", 20},
        {"after_lookups", 20}, {"first_live_after_ms", 1}, {"recovered_s", 0},
    };
    for (size_t k = 0; k < sizeof figs / sizeof *figs; k++)
        TS_NUM(v, R, figs[k].name, figs[k].want);
    const char *le = "ATCDUNXROBY";
    const double want_le[11] = {50, 0, 0, 0, 8, 0, 0, 0, 6, 0, 3};
    for (int k = 0; k < 11; k++) {
        char key[2] = {le[k], 0};
        const vj_node *n = vj_get(ts_field(v, R, "lookup_ends"), key);
        cr_expect(n && n->num == want_le[k], "%s lookup_ends.%s", R, key);
    }
    cr_expect_eq(vj_get(ts_field(v, R, "store_outcomes"), "A")->num, 50);
    cr_expect_eq(vj_get(ts_field(v, R, "store_outcomes"), "E")->num, 8);
    const vj_node *rec = ts_field(v, R, "recovery_lookups_100ms");
    cr_assert(rec->type == VJ_ARR && rec->n == 10, "%s recovery_lookups_100ms is not a list of 10", R);
    for (int i = 0; i < 10; i++)
        cr_expect_eq(rec->items[i]->num, 1, "%s bin %d", R, i);
    const vj_node *ps = ts_field(v, R, "per_second");
    cr_expect_eq(vj_get(ps->items[2], "lookups_sent")->num, 11, "%s", R);
    cr_expect_eq(vj_get(ps->items[3], "lookups_sent")->num, 7, "%s", R);
}

Test(defence, run_figures_by_hand, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    def_study(d_root, NULL);
    ts_promote(d_root);
    char *out;
    const char *a[] = {"--root", d_root, NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    cr_expect(!strstr(out, "NOTE H3-def-down"), "%s", out);
    free(out);
    vj_node *v = ts_verified(d_root);
    run_figures_by_hand(v, "H3-def-down-r1");
    run_figures_by_hand(v, "H3-def-down-r2");
    /* one store, no defence, no window: every new figure null */
    static const char *const nulls[] = {"brk_opened", "brk_transitions", "brk_open_ms", "brk_illegal",
                                        "retries_passed", "budget_refused", "budget_over", "inflight_refused",
                                        "store1_requests", "store2_p99_ms", "store2_during_live_share",
                                        "before_lookups_100ms", "recovery_lookups_100ms",
                                        "recovery_lookups_100ms_max"};
    for (size_t k = 0; k < sizeof nulls / sizeof *nulls; k++)
        cr_expect_eq(ts_field(v, "H3-fb25-r1", nulls[k])->type, VJ_NULL, "H3-fb25-r1.%s is not null", nulls[k]);
    /* arms: the new statistics */
    const vj_node *arm = vj_get(vj_get(v, "arms"), "H3-def-down");
    cr_expect(fabs(vj_get(vj_get(arm, "brk_open_ms"), "median")->num - 1599.931) < 1e-9);
    cr_expect(fabs(vj_get(vj_get(arm, "store2_during_p99_ms"), "max")->num - 1.03882) < 1e-9);
    cr_expect_eq(vj_get(vj_get(arm, "budget_refused"), "min")->num, 3);
    cr_expect_eq(vj_get(vj_get(vj_get(v, "arms"), "H3-fb25"), "brk_opened")->type, VJ_NULL);
    /* the guesses name the new figures: G1-G4 right, G5 (a null figure) and G6 not */
    const vj_node *gs = vj_get(v, "guesses");
    cr_assert_eq(gs->n, 6);
    const int right[6] = {1, 1, 1, 1, 0, 0};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(vj_get(gs->items[i], "right")->b, right[i], "G%d", i + 1);
    const vj_node *vd = vj_get(v, "verdicts");
    cr_expect_str_eq(vj_get_str(vd->items[1], "verdict"), "too close to call");
    const vj_node *checks = vj_get(v, "checks");
    cr_expect_eq(vj_get(vj_get(checks, "brk_illegal"), "total")->num, 0);
    cr_expect_eq(vj_get(vj_get(checks, "budget_over"), "total")->num, 0);
    vj_free(v);
}

/* extra.runs.<run>.breaker: the changes of the comment above (ms from T);
 * an empty list for a breaker arm without a change (H3-brk-never: three
 * failures, none in a row, brk_fails 5); no key for an arm without a breaker */
Test(defence, extra_lists_the_breaker_changes, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    def_study(d_root, NULL);
    syn_ref ref;
    ten_rows(&ref);
    syn_run r;
    syn_kind_run(&r, "H3-brk-never", 1, "LLKLLLDEL", &ref, 5000000000000LL);
    r.spec = (syn_spec){.tries = 1, .brk_fails = 5, .brk_cool_ms = 250, .brk_probes = 3};
    cr_assert_eq(syn_write_run(d_root, &r, 6), 0);
    syn_free_run(&r);
    syn_free_ref(&ref);
    cr_assert_eq(syn_write_manifest(d_root), 0);
    ts_promote(d_root);
    char *out;
    const char *a[] = {"--root", d_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 0, "%s", out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);
    vj_node *v = ts_verified(d_root);
    const vj_node *runs = vj_get(vj_get(v, "extra"), "runs");
    static const struct {
        double t_ms;
        const char *state;
    } want[9] = {{2400.208, "open"}, {2800.191, "half_open"}, {2800.208, "open"},
                 {3200.191, "half_open"}, {3200.208, "open"}, {3600.191, "half_open"},
                 {3600.208, "open"}, {4000.190, "half_open"}, {4400.706, "closed"}};
    for (int round = 1; round <= 2; round++) {
        char name[32];
        snprintf(name, sizeof name, "H3-def-down-r%d", round);
        const vj_node *b = vj_get(vj_get(runs, name), "breaker");
        cr_assert(b && b->type == VJ_ARR && b->n == 9, "%s.breaker is not a list of 9", name);
        for (int i = 0; i < 9; i++) {
            const vj_node *t = vj_get(b->items[i], "t_ms");
            const char *st = vj_get_str(b->items[i], "state");
            cr_expect(t && t->type == VJ_NUM && fabs(t->num - want[i].t_ms) < 1e-9, "%s entry %d t_ms", name, i);
            cr_expect(st && !strcmp(st, want[i].state), "%s entry %d state %s, expected %s", name, i,
                      st ? st : "(absent)", want[i].state);
            cr_expect_eq(b->items[i]->n, 2, "%s entry %d: t_ms and state only", name, i);
        }
    }
    const vj_node *never = vj_get(vj_get(runs, "H3-brk-never-r1"), "breaker");
    cr_expect(never && never->type == VJ_ARR && never->n == 0, "a breaker without a change: an empty list");
    cr_assert(vj_get(runs, "H3-fb25-r1"), "extra.runs.H3-fb25-r1 absent");
    cr_expect(!vj_get(vj_get(runs, "H3-fb25-r1"), "breaker"), "no breaker: no key");
    vj_free(v);
}

static void drop_open_row(syn_run *r)
{
    /* the breaker's first row (O at T + 2400.208 ms) removed */
    memmove(&r->e[0], &r->e[1], (r->ne - 1) * sizeof *r->e);
    r->ne--;
}

Test(defence, a_removed_breaker_row_is_found, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    def_study(d_root, NULL);
    ts_promote(d_root);
    /* the raw files again, without the O row (run.json and manifest rewritten, results.json kept) */
    def_study(d_root, drop_open_row);
    char *out;
    const char *a[] = {"--root", d_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-def-down-r1 brk_opened: lab 4, verify 3\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-def-down-r1 brk_transitions: lab 9, verify 8\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-def-down-r1 brk_illegal: lab 0, verify 1\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-def-down-r1 brk_open_ms: lab 1599.931, verify 1199.948\n"), "%s", out);
    /* H at 2800.191 ms with the breaker CLOSED; j 26's O at 2600.191 ms falls while it is CLOSED */
    cr_expect(strstr(out, "NOTE H3-def-down-r1 brk_illegal 1: breaker changes its state machine does not allow "
                          "(the first at events.tsv.gz:3)"),
              "%s", out);
    cr_expect(strstr(out, " a0_out: lab O at 9102600191000, verify O only while the breaker is OPEN or HALF OPEN; "
                          "events.tsv.gz has it CLOSED at 9102600191000 (a verifier check)"),
              "%s", out);
    cr_expect(!strstr(out, "MISMATCH H3-def-down-r2"), "%s", out);
    free(out);
}

static syn_vrow *request(syn_run *r, int j)
{
    for (size_t i = 0; i < r->nv; i++)
        if (r->v[i].req == j)
            return &r->v[i];
    cr_assert_fail("no service row of request %d", j);
    return NULL;
}

static void refusal_while_closed(syn_run *r)
{
    /* j 26 (its refusal with it) moved 250 ms earlier, before the breaker opened */
    syn_shift_request(r, 26, -250 * MS);
}

Test(defence, an_O_outside_the_open_breaker_is_a_mismatch, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    def_study(d_root, refusal_while_closed);
    ts_promote(d_root);
    char *out;
    const char *a[] = {"--root", d_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-def-down-r1 service.tsv.gz:"), "%s", out);
    cr_expect(strstr(out, " a0_out: lab O at 9102350191000, verify O only while the breaker is OPEN or HALF OPEN; "
                          "events.tsv.gz has it CLOSED at 9102350191000 (a verifier check)\n"),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(out);
}

static void retry_past_the_budget(syn_run *r)
{
    /* j 22's retry sent (U) instead of refused (Y): at 2200.301 ms R = 3
     * (j 20's two and this), Q = 10 (j 13..22): 300 > 200 */
    syn_vrow *v = request(r, 22);
    v->a_out[1] = 'U';
    v->a_end[1] += 17 * US;
    /* a lookup sent has its store row: unavailable at once (the store is down) */
    syn_srow *s = &r->s[r->ns++];
    memset(s, 0, sizeof *s);
    s->req = 22;
    s->attempt = 1;
    s->row = 2;
    s->arrive = v->a_start[1] + 8 * US;
    s->has_end = 1;
    s->end = s->arrive;
    s->outcome = 'E';
    s->planned = syn_planned(r, 22, 1);
    syn_sort_rows(r); /* the store writes its rows in the order the lookups ended (roworder.h) */
}

Test(defence, a_retry_past_the_budget_is_counted, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    def_study(d_root, retry_past_the_budget);
    ts_promote(d_root);
    char *out;
    const char *a[] = {"--root", d_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 0, "%s", out);
    cr_expect(strstr(out, "NOTE H3-def-down-r1 budget_over 1: retries sent while the retry budget was overspent "
                          "(the first at service.tsv.gz:"),
              "%s", out);
    free(out);
    vj_node *v = ts_verified(d_root);
    TS_NUM(v, "H3-def-down-r1", "budget_over", 1);
    TS_NUM(v, "H3-def-down-r1", "retries_passed", 3);
    TS_NUM(v, "H3-def-down-r1", "budget_refused", 2);
    TS_NUM(v, "H3-def-down-r2", "budget_over", 0);
    cr_expect_eq(vj_get(vj_get(vj_get(v, "checks"), "budget_over"), "total")->num, 1);
    vj_free(v);
}


Test(defence, a_missing_store2_file_and_format_2_reject_the_run, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    def_study(d_root, NULL);
    ts_promote(d_root);
    char *p = vu_xasprintf("%s/results/raw/H3-def-down-r1/store2.tsv.gz", d_root);
    cr_assert_eq(unlink(p), 0);
    free(p);
    ts_replace_line(d_root, "H3-def-down-r2", "service.tsv.gz", 1, "# lab-raw 2 service");
    char *out;
    const char *a[] = {"--root", d_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-def-down-r1 raw files: lab (a run in results/raw/), verify rejected: "), "%s",
              out);
    cr_expect(strstr(out, "H3-def-down-r1/store2.tsv.gz"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-def-down-r2 raw files: lab (a run in results/raw/), verify rejected: "), "%s",
              out);
    cr_expect(strstr(out, "H3-def-down-r2/service.tsv.gz:1: first line is \"# lab-raw 2 service\", expected \"# "
                          "lab-raw 4 service\" (this reader reads raw format version 4 only; version 2, before the "
                          "defences, is refused)"),
              "%s", out);
    free(out);
}

static void second_store_in_a_one_store_run(syn_run *r)
{
    /* j 1 logged with store 2 while run.json says stores 1, and its row in store.tsv.gz */
    r->stores = 1;
    r->spec.store2 = 0;
    free(r->s2);
    r->s2 = NULL;
    r->ns2 = 0;
}

Test(defence, stores_and_the_store_column_agree, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    def_study(d_root, second_store_in_a_one_store_run);
    ts_promote(d_root);
    char *out;
    const char *a[] = {"--root", d_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    /* 30 rows say store 2 without a second store; and the two rounds' arm_spec
     * differ, so round 2's cannot equal the arms file's line (written from round 1's) */
    cr_expect(strstr(out, " store: lab 2, verify 1 (run.json stores is 1: no second store)\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-def-down-r2 run.json arm_spec.store2: lab 50, verify 0 ("), "%s", out);
    cr_expect(strstr(out, "\n31 MISMATCHES\n"), "%s", out);
    free(out);
    /* a store2.tsv.gz beside stores 1 is a file too many */
    char *src = vu_xasprintf("%s/results/raw/H3-def-down-r2/store2.tsv.gz", d_root);
    char *cmd = vu_xasprintf("cp '%s' '%s/results/raw/H3-fb25-r1/'", src, d_root);
    cr_assert_eq(system(cmd), 0);
    free(cmd);
    free(src);
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r1 folder: lab store2.tsv.gz, verify only the six files of RAWFORMAT.md "
                          "(stores 1: no store2.tsv.gz)\n"),
              "%s", out);
    free(out);
}

Test(defence_units, the_guesses_may_name_every_figure_data_readme_lists)
{
    /* data/README.md's table of figures (the new ones last) */
    static const char *const figs[] = {
        "n", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "live_share", "standin_share", "last_known_share",
        "default_share", "error_share", "lookups_per_request", "slot_ms_per_lookup", "slot_ms_per_request",
        "cut_short", "answers_per_s", "late_p99_us", "lost", "retried_permanent", "during_lookups_per_request",
        "first_live_after_ms", "recovered_s", "brk_opened", "brk_half_opened", "brk_closed", "brk_transitions",
        "brk_open_ms", "brk_half_ms", "brk_closed_ms", "brk_illegal", "budget_refused", "budget_over",
        "inflight_refused", "store1_during_live_share", "store2_during_live_share", "store2_during_p99_ms",
        "store2_p99_ms", "before_lookups_100ms", "recovery_lookups_100ms_max"};
    for (size_t k = 0; k < sizeof figs / sizeof *figs; k++)
        cr_expect(rf_fig_by_name(figs[k]) >= 0, "%s is not a figure of the grammar", figs[k]);
    static const char *const phase[] = {"before", "during", "after"};
    static const char *const what[] = {"requests", "live", "standins", "errors", "lost", "lookups",
                                       "unanswered_lookups"};
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < 7; k++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%s", phase[p], what[k]);
            cr_expect(rf_fig_by_name(name) >= 0, "%s is not a figure of the grammar", name);
        }
    pr_pred pred;
    char err[256];
    cr_expect_eq(pr_parse("median H3-bulk-hang.store2_during_p99_ms < 0.5 * H3-pool-hang.store2_during_p99_ms and "
                          "every H4-r2bud.budget_over <= 0 and apart H3-brk-down H3-fb25-down brk_open_ms",
                          &pred, err, sizeof err),
                 0, "%s", err);
    pr_free(&pred);
    /* a list is not a figure */
    cr_expect_neq(pr_parse("every H3-r4x-down.recovery_lookups_100ms <= 5", &pred, err, sizeof err), 0);
}
