/* Issue 29, part 2 (pipeline/RESULTS.md, docs/DESIGN.md 5.9): the window's
 * during_standin_share, during_p99_ms, store1_during_busy and
 * store2_during_busy; a lookup's store (the hedge of an arm with hedge2 1
 * is in the copy's file, store2.tsv.gz) for false and healthy timeouts;
 * run.json's stores 2 for hedge2; the scenario slow, whose store plans the
 * dice plus 20 ms for a lookup arriving in its window, and a store row
 * written by RAWFORMAT.md's "A window's edge" (arrive_us rounded up).
 *
 * Units by hand (ou_win, fl_acc), then two small studies end to end:
 *
 * H3-hedge2 (closed loop, kinds L K K K L: request j at t0 + j 50 ms; a K
 * request's lookup 0 timed out after 25 ms, its store row A in store.tsv.gz
 * with a 40 ms slot), arm_spec.hedge2 1 and stores 2.  Each K request also
 * hedges: lookup 1 from a0_start + 10 ms (waited 15 ms) or + 20 ms (waited
 * 5 ms), T at a0_start + 25 ms, its row A in store2.tsv.gz (40 ms slot).
 * The planned waits (RAWFORMAT.md, wait H, freeze_share 0.01; worked out
 * with python3 from the page), in ms:
 *   round 1: W(1,0) 1.083902, W(2,0) 2.159850, W(3,0) 2.566123;
 *            W(1,1) 1.685271, W(2,1) 9.928686, W(3,1) 1.464715
 *   round 2: W(1,0) 0.881431, W(2,0) 1.183071, W(3,0) 0.766422;
 *            W(1,1) 10.433744, W(2,1) 3.395046, W(3,1) 0.486470
 *   r1: every hedge waited 15 ms; request 2's hedge row is planted in
 *       store.tsv.gz instead (the wrong store: not its row of S, and a
 *       mismatch naming it), 1 and 3's only in store2.tsv.gz (counted).
 *       false_timeouts 3 (lookups 0) + 2 (hedges of 1 and 3) = 5; had the
 *       request's store been used for the hedge: 3 + 1 = 4.  healthy 5;
 *       rows of S 6 + 2 = 8, all under 1 s: healthy_timeout_share 5/8.
 *   r2: clean; request 1's hedge waited 5 ms < W(1,1): not false, healthy.
 *       false_timeouts 3 + 2 = 5, healthy_timeouts 6, share 6/8.
 *
 * L3-slow (fault slow, window [1 s, 2 s) of 3 s; wait L): 60 requests
 * 50 ms apart, each K (lookup 0 T after 25 ms, 40 ms slot).  The store
 * plans W + 20 ms for the lookups arriving in [1 s, 2 s) (requests 20 to
 * 39): a false timeout there only when W < 5 ms; outside when W < 25 ms.
 * By the dice (python3 from the page), every W(j, 0) is under 5 ms in the
 * window but round 1's j 32 (5.504588 ms: 25.504588 planned, not false;
 * without the slowness it would be) and round 2's j 30 (26.782872 ms: not
 * false either way); outside it all are under 25 ms.  false_timeouts 59 in
 * both rounds (60 in round 1 if the 20 ms were left out), healthy 60.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flood.h"
#include "outage.h"
#include "rawcols.h"
#include "synth.h"
#include "thelp.h"
#include "tstudy.h"
#include "vjson.h"
#include "vutil.h"

#define MS 1000000LL
#define SEC 1000000000LL

/* ---- units: the four window figures ---- */

static ou_fault window(long long from, long long to, int to_end, long long seconds)
{
    ou_fault w;
    memset(&w, 0, sizeof w);
    w.scen = to_end ? OU_NEVER : OU_SLOW;
    w.has_window = 1;
    w.from_ns = from;
    w.to_ns = to_end ? 0 : to;
    w.to_end = to_end;
    w.F = 10 * SEC + from;
    w.U = to_end ? LLONG_MAX : 10 * SEC + to;
    w.end = 10 * SEC + seconds;
    return w;
}

/* window [1 s, 3 s) of a 4 s run (U' - F = 2 s).  Store 1's slots inside
 * [F, U): one from F - 100 ms to F + 300 ms (starts before F: 300 ms), one
 * from F + 700 ms without end_t (to U' = U: 1300 ms), one from U - 200 ms
 * to U + 1 s (200 ms), and none of a row without start_t, one after U and
 * one before F: 1800 ms / 2 s = 0.9.  Store 2: F + 1 s to F + 1.5 s: 0.25.
 * Requests during: L at F (1 ms), K (25 ms), D (30 ms), E unanswered;
 * before: a K; after: an L.  during_standin_share 2/4; during_p99_ms over
 * 1, 25, 30 ms: h = 2 0.99 = 1.98, 25 + 0.98 5 = 29.9 */
Test(during_units, the_four_figures_by_hand)
{
    ou_fault w = window(SEC, 3 * SEC, 0, 4 * SEC);
    long long F = w.F, U = w.U;
    ou_win x;
    ou_win_init(&x, &w);
    x.stores = 2;
    ou_win_request(&x, &w, F, 'L', 1, F + MS);
    ou_win_request(&x, &w, F + 10 * MS, 'K', 1, F + 35 * MS);
    ou_win_request(&x, &w, F + 20 * MS, 'D', 1, F + 50 * MS);
    ou_win_request(&x, &w, F + 30 * MS, 'E', 0, 0);
    ou_win_request(&x, &w, F - 1, 'K', 1, F + 900 * MS);
    ou_win_request(&x, &w, U, 'L', 1, U + 5 * MS);
    ou_win_store_row(&x, &w, 1, 1, F - 100 * MS, 1, F + 300 * MS);
    ou_win_store_row(&x, &w, 1, 1, F + 700 * MS, 0, 0);
    ou_win_store_row(&x, &w, 1, 1, U - 200 * MS, 1, U + SEC);
    ou_win_store_row(&x, &w, 1, 0, 0, 1, F + 500 * MS);
    ou_win_store_row(&x, &w, 1, 1, U + 10 * MS, 1, U + 20 * MS);
    ou_win_store_row(&x, &w, 1, 1, F - 2 * SEC, 1, F - SEC);
    ou_win_store_row(&x, &w, 2, 1, F + SEC, 1, F + 1500 * MS);
    double f[OU_NFIG];
    ou_win_figs(&x, &w, f);
    cr_expect_eq(f[OU_DURING_STANDIN_SHARE], 0.5);
    cr_expect(fabs(f[OU_DURING_P99_MS] - 29.9) < 1e-9, "during_p99_ms %.12g", f[OU_DURING_P99_MS]);
    cr_expect(fabs(f[OU_STORE1_DURING_BUSY] - 0.9) < 1e-12, "store1 %.12g", f[OU_STORE1_DURING_BUSY]);
    cr_expect(fabs(f[OU_STORE2_DURING_BUSY] - 0.25) < 1e-12, "store2 %.12g", f[OU_STORE2_DURING_BUSY]);
    ou_win_free(&x);
    /* one store: store2_during_busy null (even fed a row) */
    ou_win_init(&x, &w);
    x.stores = 1;
    ou_win_store_row(&x, &w, 1, 1, F, 1, U);
    ou_win_store_row(&x, &w, 2, 1, F, 1, U);
    ou_win_figs(&x, &w, f);
    cr_expect_eq(f[OU_STORE1_DURING_BUSY], 1);
    cr_expect(isnan(f[OU_STORE2_DURING_BUSY]));
    /* no request during: share and p99 null */
    cr_expect(isnan(f[OU_DURING_STANDIN_SHARE]) && isnan(f[OU_DURING_P99_MS]));
    ou_win_free(&x);
}

/* a window without an end (U = +infinity): U' = t0 + seconds 1e9.  [1 s,
 * end) of a 4 s run: U' - F = 3 s.  A slot from F + 1 s without end_t: to
 * U', 2 s; one from F - 500 ms to F + 250 ms: 250 ms.  2.25 / 3 = 0.75.
 * One answered request during (4 ms): its p99 is it.  A run without a
 * window: all four null. */
Test(during_units, a_window_without_an_end_and_none)
{
    ou_fault w = window(SEC, 0, 1, 4 * SEC);
    long long F = w.F;
    ou_win x;
    ou_win_init(&x, &w);
    x.stores = 1;
    ou_win_request(&x, &w, F + 2 * SEC, 'L', 1, F + 2 * SEC + 4 * MS);
    ou_win_store_row(&x, &w, 1, 1, F + SEC, 0, 0);
    ou_win_store_row(&x, &w, 1, 1, F - 500 * MS, 1, F + 250 * MS);
    double f[OU_NFIG];
    ou_win_figs(&x, &w, f);
    cr_expect(fabs(f[OU_STORE1_DURING_BUSY] - 0.75) < 1e-12, "store1 %.12g", f[OU_STORE1_DURING_BUSY]);
    cr_expect(isnan(f[OU_STORE2_DURING_BUSY]));
    cr_expect_eq(f[OU_DURING_P99_MS], 4);
    cr_expect_eq(f[OU_DURING_STANDIN_SHARE], 0);
    ou_win_free(&x);
    ou_fault none;
    memset(&none, 0, sizeof none);
    none.U = LLONG_MAX;
    ou_win_init(&x, &none);
    x.stores = 2;
    ou_win_request(&x, &none, 10 * SEC, 'K', 1, 10 * SEC + MS);
    ou_win_store_row(&x, &none, 1, 1, 10 * SEC, 1, 11 * SEC);
    ou_win_figs(&x, &none, f);
    for (int k = OU_DURING_STANDIN_SHARE; k <= OU_STORE2_DURING_BUSY; k++)
        cr_expect(isnan(f[k]), "figure %d of a run without a window", k);
    ou_win_free(&x);
}

/* ---- units: the hedge's store ---- */

static rr_row vrow(long long req, const char *outs, const long long *waited)
{
    rr_row r;
    memset(&r, 0, sizeof r);
    r.v[V_REQ] = req;
    r.v[V_STORE] = 1;
    for (int k = 0; outs[k]; k++) {
        int cs = V_A0S + 3 * k;
        r.has[cs] = r.has[cs + 1] = r.has[cs + 2] = 1;
        r.v[cs] = 10 * MS * k;
        r.v[cs + 1] = r.v[cs] + waited[k];
        r.c[cs + 2] = outs[k];
    }
    return r;
}

static rr_row srow(long long req, long long attempt, long long planned)
{
    rr_row r;
    memset(&r, 0, sizeof r);
    r.v[S_REQ] = req;
    r.v[S_ATTEMPT] = attempt;
    r.v[S_PLANNED] = planned;
    return r;
}

/* hedge2 1: lookup 1's row of S is in store 2's file, lookup 0's in the
 * request's (store 1).  Req 1: both T (25 and 15 ms), rows store 1 (0) and
 * store 2 (1): 2 false timeouts.  Req 2: its hedge's row planted in store
 * 1's file only: not its row, not counted; lookup 0 counted.  Req 3's
 * lookup 0 row in store 2's file only: not counted.  False 3, healthy 3.
 * Without hedge2 (the same rows): lookup 1 looks in store 1: req 2's
 * planted row counts, req 1's hedge does not: 1 + 1 + 1 = 3 still, but
 * req 1's lookup 1 is unmatched and req 2's matched. */
Test(during_units, the_hedge_of_hedge2_is_in_the_second_store)
{
    const long long w[2] = {25 * MS, 15 * MS};
    rr_row v[3] = {vrow(1, "TT", w), vrow(2, "TT", w), vrow(3, "T", w)};
    rr_row s1[] = {srow(1, 0, 2 * MS), srow(2, 0, 2 * MS), srow(2, 1, 3 * MS)};
    rr_row s2[] = {srow(1, 1, 4 * MS), srow(3, 0, 2 * MS)};
    for (int h = 1; h >= 0; h--) {
        fl_acc a;
        fl_acc_init(&a);
        a.hedge2 = h;
        for (int i = 0; i < 3; i++)
            fl_service_row(&a, &v[i]);
        for (size_t i = 0; i < sizeof s1 / sizeof *s1; i++)
            fl_store_row(&a, &s1[i], 1);
        for (size_t i = 0; i < sizeof s2 / sizeof *s2; i++)
            fl_store_row(&a, &s2[i], 2);
        cr_expect_eq(a.false_timeouts, 3, "hedge2 %d", h);
        cr_expect_eq(a.healthy_timeouts, 3, "hedge2 %d", h);
        int req1_hedge = -1, req2_hedge = -1;
        for (size_t i = 0; i < a.nt; i++) {
            if (a.t[i].req == 1 && a.t[i].attempt == 1)
                req1_hedge = a.t[i].matched;
            if (a.t[i].req == 2 && a.t[i].attempt == 1)
                req2_hedge = a.t[i].matched;
        }
        cr_expect_eq(req1_hedge, h, "hedge2 %d: req 1's hedge row is in store2.tsv.gz", h);
        cr_expect_eq(req2_hedge, !h, "hedge2 %d: req 2's hedge row is in store.tsv.gz", h);
        fl_acc_free(&a);
    }
}

/* ---- end to end: a hedge2 arm ---- */

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

/* the study's texts (comparisons and guesses), quiet rules and manifest, after its runs */
static void d_finish(const char *comparisons, const char *guesses)
{
    ts_write_texts(d_root, comparisons, guesses);
    cr_assert_eq(syn_write_quiet(d_root, NULL), 0);
    cr_assert_eq(syn_write_manifest(d_root), 0);
}

/* the verifier on the study without the scan: its exit status, its output in *out (free it) */
static int d_run(char **out)
{
    const char *a[] = {"--root", d_root, "--no-scan", NULL};
    return th_run(out, a);
}

/* the same, expecting exit 0 and 0 MISMATCHES */
static void d_run_clean(void)
{
    char *out;
    cr_expect_eq(d_run(&out), 0, "%s", out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);
}

static int cmp_end(const void *x, const void *y)
{
    const syn_srow *a = x, *b = y;
    return (a->end > b->end) - (a->end < b->end);
}

/* the hedges of the K requests of a kind run: lookup 1 from a0_start +
 * after[req] ms, T at a0_start + 25 ms; its row in store2.tsv.gz, or in
 * store.tsv.gz for req planted */
static void hedge(syn_run *r, const int *after, long long planted)
{
    r->stores = 2;
    r->spec.hedge2 = 1;
    r->spec.has_hedge2 = 1;
    r->s2 = vu_xcalloc(r->nv + 1, sizeof *r->s2);
    r->s = vu_xrealloc(r->s, (r->ns + r->nv + 1) * sizeof *r->s);
    for (size_t i = 0; i < r->nv; i++) {
        syn_vrow *v = &r->v[i];
        if (v->kind != 'K')
            continue;
        v->a_has[1] = 1;
        v->a_start[1] = v->a_start[0] + after[v->req] * MS;
        v->a_end[1] = v->a_start[0] + 25 * MS;
        v->a_out[1] = 'T';
        v->lookups = 2;
        syn_srow *s = v->req == planted ? &r->s[r->ns++] : &r->s2[r->ns2++];
        memset(s, 0, sizeof *s);
        s->req = v->req;
        s->attempt = 1;
        s->row = v->row;
        s->arrive = v->a_start[1] + 8000;
        s->has_start = s->has_end = 1;
        s->start = s->arrive;
        s->end = s->start + 40 * MS;
        s->outcome = 'A';
    }
    syn_draw_waits(r);
    qsort(r->s, r->ns, sizeof *r->s, cmp_end);
    qsort(r->s2, r->ns2, sizeof *r->s2, cmp_end);
}

static const char *D_COMPARISONS = "a\tb\tfigure\tnote\n"
                                   "H3-hedge2\tH3-fb25\tfalse_timeouts\tthe hedge's own\n";
static const char *D_GUESSES = "id\tguess\tpredicate\n"
                               "G1\tThe hedges time out falsely.\tevery H3-hedge2.false_timeouts >= 5\n";

static void hedge_study(void)
{
    syn_ref ref;
    syn_make_ref(&ref, 10, 5);
    cr_assert_eq(syn_write_reference(d_root, &ref), 0);
    for (int round = 1; round <= 2; round++) {
        syn_run r;
        syn_kind_run(&r, "H3-hedge2", round, "LKKKL", &ref, 5000000000000LL + round * 100000000000LL);
        const int after1[4] = {0, 10, 10, 10}, after2[4] = {0, 20, 10, 10};
        hedge(&r, round == 1 ? after1 : after2, round == 1 ? 2 : -1);
        cr_assert_eq(syn_write_run(d_root, &r, 6), 0);
        syn_free_run(&r);
        syn_kind_run(&r, "H3-fb25", round, "LLKLL", &ref, 7000000000000LL + round * 100000000000LL);
        r.spec.has_hedge2 = 1; /* arms.tsv's 28th column, 0 */
        cr_assert_eq(syn_write_run(d_root, &r, 6), 0);
        syn_free_run(&r);
    }
    syn_free_ref(&ref);
    d_finish(D_COMPARISONS, D_GUESSES);
}

Test(hedge2, the_hedge_row_of_s_is_the_copys, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    hedge_study();
    ts_promote(d_root);
    char *out;
    cr_assert_eq(d_run(&out), 1, "%s", out);
    /* the planted row, and nothing else: stores 2 is right for hedge2 */
    cr_expect(strstr(out, "MISMATCH H3-hedge2-r1 store.tsv.gz:"), "%s", out);
    cr_expect(strstr(out, " attempt: lab 1, verify not 1 in store.tsv.gz (arm_spec.hedge2 1"), "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    cr_expect(!strstr(out, "run.json stores"), "%s", out);
    free(out);
    vj_node *v = ts_verified(d_root);
    TS_NUM(v, "H3-hedge2-r1", "false_timeouts", 5);
    TS_NUM(v, "H3-hedge2-r1", "healthy_timeouts", 5);
    TS_NUM(v, "H3-hedge2-r1", "healthy_timeout_share", 5.0 / 8);
    TS_NUM(v, "H3-hedge2-r2", "false_timeouts", 5);
    TS_NUM(v, "H3-hedge2-r2", "healthy_timeouts", 6);
    TS_NUM(v, "H3-hedge2-r2", "healthy_timeout_share", 6.0 / 8);
    TS_NUM(v, "H3-hedge2-r2", "lookups", 8);
    /* no window: the four null */
    cr_expect_eq(ts_field(v, "H3-hedge2-r2", "store2_during_busy")->type, VJ_NULL);
    vj_free(v);
}

/* hedge2 1 with stores 1 is a mismatch naming run.json's stores */
static void one_store(const char *root)
{
    char *p = vu_xasprintf("%s/results/raw/H3-hedge2-r2/run.json", root);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(p, &b, &len, err, sizeof err), 0, "%s", err);
    char *s = (char *)b, *at = strstr(s, "\"stores\": 2");
    cr_assert(at, "%s", s);
    at[10] = '1';
    cr_assert_eq(syn_write_text(p, s), 0);
    free(b);
    free(p);
}

Test(hedge2, stores_must_be_2, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    hedge_study();
    ts_promote(d_root);
    one_store(d_root);
    char *out;
    d_run(&out);
    cr_expect(strstr(out, "MISMATCH H3-hedge2-r2 run.json stores: lab 1, verify 2 (arm_spec.store2 is 0 and hedge2 1"),
              "%s", out);
    free(out);
}

/* ---- end to end: the scenario slow ---- */

Test(slow, the_store_plans_the_dice_plus_20ms_in_the_window, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    syn_ref ref;
    syn_make_ref(&ref, 10, 5);
    cr_assert_eq(syn_write_reference(d_root, &ref), 0);
    char kinds[61];
    memset(kinds, 'K', 60);
    kinds[60] = 0;
    for (int round = 1; round <= 2; round++) {
        syn_run r;
        syn_kind_run(&r, "L3-slow", round, kinds, &ref, 5000000000000LL + round * 100000000000LL);
        syn_set_fault(&r, "slow"); /* [1 s, 2 s) of 3 s */
        cr_assert_eq(r.seconds, 3);
        syn_draw_waits(&r);        /* the store's planned waits, + 20 ms in the window */
        cr_assert_eq(syn_write_run(d_root, &r, 6), 0);
        syn_free_run(&r);
    }
    syn_free_ref(&ref);
    d_finish("a\tb\tfigure\tnote\n", "id\tguess\tpredicate\n");
    ts_promote(d_root);
    d_run_clean();
    vj_node *v = ts_verified(d_root);
    for (int round = 1; round <= 2; round++) {
        const char *R = round == 1 ? "L3-slow-r1" : "L3-slow-r2";
        cr_expect_str_eq(ts_field(v, R, "fault")->text, "slow");
        TS_NUM(v, R, "false_timeouts", 59);
        TS_NUM(v, R, "healthy_timeouts", 60);
        TS_NUM(v, R, "freezes", 0);
        /* the window's K requests, 20 of 20 stand-ins */
        TS_NUM(v, R, "during_standin_share", 1);
        /* requests 20 to 39 hold a slot of 40 ms each inside [1 s, 2 s) (the
         * first from t0 + 1 s + 26 us, the last to t0 + 1.990026 s), no other
         * slot reaches into it: 0.8 busy slots, less what format 4's whole
         * us take off each slot's end (end_us after start_t + W, rounded
         * down: under 1 us a row, under 2e-5 in all); every K answered
         * 25.052 ms after its sched_t (18 us to lookup 0, 25 ms waited, 34
         * us back) */
        const vj_node *busy = ts_field(v, R, "store1_during_busy");
        cr_expect(busy->num <= 0.8 && busy->num > 0.8 - 2e-5, "%s.store1_during_busy %s", R, busy->text);
        TS_NUM(v, R, "during_p99_ms", 25.052);
        cr_expect_eq(ts_field(v, R, "store2_during_busy")->type, VJ_NULL);
    }
    vj_free(v);
}

/* ---- end to end: a row written by "A window's edge" (RAWFORMAT.md) ----
 *
 * L3-edge (open loop over 3 s, every request K; fault slow, window [1 s,
 * 2 s)): at the first rate from 10/s whose schedule has a request j 26 us
 * to 1.026 ms before the edge and a wait W(j, 0) of 5 to 25 ms, j is sent late (under 1 ms: the run stays
 * quiet) so that its lookup reaches the store exactly at t0 + from_ns.  Its
 * instants are on sched_t's ns grid, off the edge's, so arrive_us floored
 * would decode up to 999 ns before the edge: the writer rounds it up
 * (decoded arrival in (x, x + 999]), writes start_us 0 (start_t = arrive_t)
 * and end_us after start_t + W + 20 ms.  A reader decoding it like any
 * other row plans W + 20 ms for it (25 ms and more: not a false timeout)
 * and finds no mismatch.  The control: the same bytes but arrive_us 1 less
 * (decoded 1 us before the edge): a reader adds no slowness, the lookup
 * (waited 25 ms, W under 25 ms) now counts as a false timeout, its slot
 * ends 20 ms earlier (before the row above it: out of the files' order),
 * and verify reports false_timeouts one above the lab's, slot_ms_total
 * 20 ms below and the row's end_t out of order. */

static long long e_build(const char *root, const syn_ref *ref, long long arrive_us_off)
{
    const int round = 1;
    const double seconds = 3;
    long long t0 = 7000000000000LL, E = t0 + SEC, *off = NULL;
    /* the first rate whose schedule has a request 26 us to 1 ms + 26 us
     * before the edge (sent that late, the run stays quiet) */
    syn_run dice = {.arm = "L3-edge", .round = round};
    int rate;
    size_t n = 0, j = 0;
    for (rate = 10; rate <= 300; rate++) {
        free(off);
        n = syn_schedule(round, rate, seconds, &off);
        for (j = 0; j < n && !(t0 + off[j] + 26000 <= E && t0 + off[j] + 1026000 > E); j++)
            ;
        long long w = j < n ? syn_planned(&dice, (long long)j, 0) : 0;
        if (w >= 5 * MS && w < 25 * MS)
            break;
    }
    cr_assert(rate <= 300, "no rate puts a request just before the edge");
    cr_log_info("L3-edge: rate %d/s, request %zu", rate, j);
    cr_assert_neq((E - (t0 + off[j])) % 1000, 0, "request %zu is on the edge's us grid", j);
    char *kinds = vu_xmalloc(n + 1);
    memset(kinds, 'K', n);
    kinds[n] = 0;
    syn_run r;
    syn_kind_run_open(&r, "L3-edge", round, kinds, ref, t0, rate, seconds);
    syn_set_fault(&r, "slow");
    cr_assert_eq(t0 + r.from_ns, E);
    r.edge_rule = 1;
    syn_send_late(&r, j, E - 26000 - (t0 + off[j]));
    syn_draw_waits(&r);
    syn_srow *s = NULL;
    for (size_t i = 0; i < r.ns; i++)
        if (r.s[i].req == (long long)j)
            s = &r.s[i];
    cr_assert(s && s->arrive == E && s->start == E, "request %zu's lookup reaches the store at the edge", j);
    cr_assert_eq(s->planned, syn_planned(&r, (long long)j, 0) + 20 * MS);
    s->arrive_us_off = arrive_us_off;
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    free(off);
    free(kinds);
    return (long long)j;
}

/* the fields of request j's row of the run's store.tsv.gz (malloc'd text) */
static char *e_store_row(const char *root, long long j)
{
    char *p = vu_xasprintf("%s/results/raw/L3-edge-r1/store.tsv.gz", root), err[256];
    unsigned char *gz, *txt;
    size_t gzlen, len;
    cr_assert_eq(vu_read_file(p, &gz, &gzlen, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rr_gunzip(gz, gzlen, &txt, &len, err, sizeof err), 0, "%s", err);
    char key[64];
    int kl = snprintf(key, sizeof key, "\n%lld\t0\t", j);
    char *at = strstr((char *)txt, key);
    cr_assert(at, "no row of request %lld", j);
    char *e = strchr(at + 1, '\n');
    char *row = vu_xasprintf("%.*s", (int)(e - at - kl), at + kl);
    free(txt);
    free(gz);
    free(p);
    return row;
}

Test(edge, a_row_rounded_up_at_the_window_edge_is_decoded_like_any_other, .init = d_setup, .fini = d_teardown,
     .timeout = 60)
{
    syn_ref ref;
    syn_make_ref(&ref, 10, 5);
    cr_assert_eq(syn_write_reference(d_root, &ref), 0);
    long long j = e_build(d_root, &ref, 0);
    d_finish("a\tb\tfigure\tnote\n", "id\tguess\tpredicate\n");
    /* arrive_us rounded up, start_us 0, end_us after start_t + W + 20 ms
     * (the slot held 40 ms, W 5 to 25 ms: under 15 ms) */
    char *row = e_store_row(d_root, j);
    long long arr, st, en;
    cr_assert_eq(sscanf(row, "%lld\t%lld\t%lld", &arr, &st, &en), 3, "%s", row);
    cr_expect_eq(st, 0, "start_us of %s", row);
    cr_expect(en >= 0 && en < 15000, "end_us of %s", row);
    free(row);
    ts_promote(d_root);
    d_run_clean();
    vj_node *v = ts_verified(d_root);
    long long lab_false = (long long)ts_field(v, "L3-edge-r1", "false_timeouts")->num;
    vj_free(v);

    /* the control: arrive_us 1 less, the rest of the row as it was */
    e_build(d_root, &ref, -1);
    row = e_store_row(d_root, j);
    long long arr2;
    cr_assert_eq(sscanf(row, "%lld", &arr2), 1, "%s", row);
    cr_expect_eq(arr2, arr - 1);
    free(row);
    cr_assert_eq(syn_write_manifest(d_root), 0);
    char *out;
    d_run(&out);
    char want[160];
    snprintf(want, sizeof want, "MISMATCH L3-edge-r1 false_timeouts: lab %lld, verify %lld", lab_false, lab_false + 1);
    cr_expect(strstr(out, want), "want %s in\n%s", want, out);
    const char *at = strstr(out, "MISMATCH L3-edge-r1 slot_ms_total: lab ");
    double lab_slot, ver_slot;
    cr_assert(at && sscanf(at, "MISMATCH L3-edge-r1 slot_ms_total: lab %lf, verify %lf", &lab_slot, &ver_slot) == 2,
              "%s", out);
    cr_expect(fabs(lab_slot - ver_slot - 20) < 1e-6, "slot_ms_total: lab %f, verify %f", lab_slot, ver_slot);
    snprintf(want, sizeof want, "end_t: lab %lld (request %lld), verify at or after ", arr2, j);
    cr_expect(strstr(out, " end_t: lab ") && strstr(out, "the rows are in the order the lookups ended"), "%s", out);
    free(out);
    syn_free_ref(&ref);
}
