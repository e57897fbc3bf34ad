/* A store that goes down: raw format version 3 end to end, on a run whose
 * window figures are worked out by hand below.
 *
 * Arm H3-r2-down (fault down), 6 s, 60 requests 0.1 s apart (a closed-loop
 * run: each sent when scheduled; planned waits from the dice):
 *   sched_j = t0 + j 0.1 s (+ 1000 ns unless j % 20 == 0, so that j = 20 is
 *   scheduled exactly at the window's start F and j = 40 exactly at its end U).
 *   The default window of 6 s is [2 s, 4 s): F = t0 + 2e9, U = t0 + 4e9.
 *   row = j % 10; rows 6 and 7 were new a month earlier (stand-in D, else K).
 *
 *   before (j 0..19):  live with one lookup, except
 *       j = 5   lost: no answer at all (no service row)
 *       j = 12  504: lookups T, T (the store answers them late, A) and D
 *   during (j 20..39): three lookups answered unavailable (U; store E), stand-in, except
 *       j = 25  three lookups not sent (R): no connection; stand-in
 *       j = 30  lookup 0 lost with its connection (X; the store answered E),
 *               lookups 1 and 2 not sent (R); stand-in.  events: L, F, F, C
 *       j = 33  lost (no service row)
 *       j = 39  lookups 0 and 1 U; lookup 2 sent at U + 0.1 ms (phase after)
 *               answered live at U + 0.651 ms: the first live answer after U
 *   after (j 40..59):  live (j = 40 answered at U + 1 ms), except
 *       j = 41  lookup T (the store answers late, A): stand-in K
 *       j = 55  three lookups T (late A): 504
 *
 * By hand:
 *   before:  requests 20, live 18, standins 0, errors 1 (j 12), lost 1 (j 5),
 *            lookups 18 + 3 = 21, unanswered 2 (j 12's two T)
 *   during:  requests 20, live 1 (j 39), standins 16 + 2 = 18, errors 0, lost 1 (j 33),
 *            lookups 16 x 3 + 1 (j 30's X) + 2 (j 39) = 51 (R not sent), unanswered 1 (X)
 *   after:   requests 20, live 18, standins 1, errors 1, lost 0,
 *            lookups 18 + 1 + 3 + 1 (j 39's third) = 23, unanswered 1 + 3 = 4
 *   during_lookups_per_request = 51 / 20 = 2.55
 *   during_standin_share = 18 / 20 = 0.9
 *   during_p99_ms: the 19 answered rows of phase during (j 33 lost), by
 *            latency: j 25 0.5 ms, sixteen 0.7 ms, j 30 2.7 ms, j 39
 *            U + 0.651 ms - (t0 + 3.9 s + 1 us) = 100.65 ms; h = 18 0.99 =
 *            17.82: 2.7 + 0.82 (100.65 - 2.7) = 83.019 ms
 *   store1_during_busy 0: no row of S has a slot inside [F, U) (the window's
 *            lookups are E, at once; the last slot before it ends at j 19's
 *            s + 0.698 ms, the first after starts at U + 0.108 ms);
 *            store2_during_busy null (stores 1)
 *   first_live_after_ms = 651,000 ns = 0.651 (j 39, before j 40's U + 1 ms)
 *   recovered_s: before the window 2 of B = 20 were not live (10%), so a
 *            second is back under 11% not live: 100 B (n - live) < 100 n (B - BL) + n B.
 *            B_0 = [U, U + 1 s) holds j 40..49 with 1 not live (j 41):
 *            100 20 1 = 2000 < 100 10 2 + 10 20 = 2200: 0.  (The old rule,
 *            under 1 in 100 not live, gave null: B_1, j 50..59, has j 55.)
 *   store_outcomes A 18 + 2 + 18 + 1 + 3 + 1 = 43, D 1, E 48 + 1 + 2 = 51, others 0
 *   lookup_ends A 37, T 6, C 0, D 1, U 50, N 0, X 1, R 5
 *   per second (s 0..5): live 9 9 0 1 9 9, errors 1 1 0 1 0 1, standins 0 0 10 8 1 0;
 *            lookups_sent (present aK_start_t, R left out) s2 9 x 3 + 0 (j 25) = 27,
 *            s3 1 (j 30's X; its two R left out) + 7 x 3 + 2 (j 39) = 24
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mism.h"
#include "outage.h"
#include "rawread.h"
#include "synth.h"
#include "thelp.h"
#include "tstudy.h"
#include "vjson.h"
#include "vutil.h"

#define MS 1000000LL
#define SEC 1000000000LL

static char *o_root;

static void o_setup(void)
{
    o_root = th_tmpdir();
    cr_assert(o_root);
}

static void o_teardown(void)
{
    th_rmrf(o_root);
    free(o_root);
}

/* 10 rows; rows 6 and 7 were new a month earlier */
static void ten_rows(syn_ref *ref)
{
    syn_make_ref(ref, 10, 5);
    ref->last_known[6] = ref->last_known[7] = ref->default_score;
}

/* one lookup of service row v: aK, and its store row unless out is R.
 * The store row: A with a slot of slot_ns, or E / D at once (D after a
 * budget of 3 ms in line) */
static void lookup(syn_run *r, syn_vrow *v, int a, long long start, long long end, char out, char store, long long slot_ns)
{
    v->a_has[a] = 1;
    v->a_start[a] = start;
    v->a_end[a] = end;
    v->a_out[a] = out;
    v->lookups = a + 1;
    if (out == 'R')
        return;
    syn_srow *s = &r->s[r->ns++];
    s->req = v->req;
    s->attempt = a;
    s->row = v->row;
    s->arrive = start + 8000;
    s->outcome = store;
    s->has_end = 1;
    if (store == 'A') {
        s->has_start = 1;
        s->start = s->arrive;
        s->end = s->start + slot_ns;
        s->planned = slot_ns;
        s->busy = 1;
    } else if (store == 'D') {
        s->end = s->arrive + 3 * MS;
        s->planned = 4 * MS;
        s->budget = 3 * MS;
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
    t->status = v->status = kind == 'E' ? 504 : 200;
    t->has_score = kind != 'E';
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

/* the events of j = 30's lost connection, from the time it was lost */
static void lost_connection(syn_run *r, long long t, long long second_wait)
{
    r->e = vu_xcalloc(4, sizeof *r->e);
    r->e[r->ne++] = (syn_erow){t, 'L', 0, 0, 7 * MS};
    t += 7100000;
    r->e[r->ne++] = (syn_erow){t, 'F', 0, 1, 15 * MS};
    t += 15050000;
    r->e[r->ne++] = (syn_erow){t, 'F', 0, 2, second_wait};
    t += 50020000;
    r->e[r->ne++] = (syn_erow){t, 'C', 0, 2, 0};
}

static void down_run(syn_run *r, const syn_ref *ref, int round)
{
    memset(r, 0, sizeof *r);
    snprintf(r->arm, sizeof r->arm, "H3-r2-down");
    r->round = round;
    r->seconds = 6;
    r->rate = 10;
    r->t0 = 5000000000000LL + round * 100000000000LL;
    r->test_rows = 10;
    syn_set_fault(r, "down");
    r->t = vu_xcalloc(60, sizeof *r->t);
    r->v = vu_xcalloc(60, sizeof *r->v);
    r->s = vu_xcalloc(200, sizeof *r->s);
    long long U = r->t0 + 4 * SEC;
    for (int j = 0; j < 60; j++) {
        syn_trow *t = &r->t[r->nt++];
        t->j = j;
        t->row = j % 10;
        t->sched = r->t0 + j * 100 * MS + (j % 20 ? 1000 : 0);
        t->send = t->sched + 10000;
        t->conn = j % 4;
        long long s = t->sched;
        if (j == 5 || j == 33) {
            t->kind = 'E'; /* lost: no answer, no service row */
            continue;
        }
        syn_vrow *v = &r->v[r->nv++];
        v->req = j;
        v->row = t->row;
        v->has_req = v->has_row = 1;
        v->arrive = s + 180000;
        char standin = t->row == 6 || t->row == 7 ? 'D' : 'K';
        if (j == 12 || j == 55) {
            lookup(r, v, 0, s + 190000, s + 25190000, 'T', 'A', 40 * MS);
            lookup(r, v, 1, s + 25200000, s + 50200000, 'T', 'A', 40 * MS);
            if (j == 12)
                lookup(r, v, 2, s + 50210000, s + 53227000, 'D', 'D', 0);
            else
                lookup(r, v, 2, s + 50210000, s + 75210000, 'T', 'A', 40 * MS);
            answer(ref, t, v, 'E', s + 75300000, s + 75400000);
        } else if (j == 41) {
            lookup(r, v, 0, s + 190000, s + 25190000, 'T', 'A', 40 * MS);
            answer(ref, t, v, standin, s + 25300000, s + 25500000);
        } else if (j == 25) {
            for (int a = 0; a < 3; a++)
                lookup(r, v, a, s + 190000 + a * 10000, s + 190000 + a * 10000, 'R', 0, 0);
            answer(ref, t, v, standin, s + 300000, s + 500000);
        } else if (j == 30) {
            lookup(r, v, 0, s + 190000, s + 2190000, 'X', 'E', 0);
            lookup(r, v, 1, s + 2300000, s + 2300000, 'R', 0, 0);
            lookup(r, v, 2, s + 2400000, s + 2400000, 'R', 0, 0);
            answer(ref, t, v, standin, s + 2500000, s + 2700000);
            lost_connection(r, s + 2190000, 35 * MS);
        } else if (j == 39) {
            lookup(r, v, 0, s + 190000, s + 207000, 'U', 'E', 0);
            lookup(r, v, 1, s + 50 * MS, s + 50017000, 'U', 'E', 0);
            lookup(r, v, 2, U + 100000, U + 617000, 'A', 'A', 500000);
            answer(ref, t, v, 'L', U + 621000, U + 651000);
        } else if (j >= 20 && j < 40) {
            for (int a = 0; a < 3; a++)
                lookup(r, v, a, s + 190000 + a * 110000, s + 207000 + a * 110000, 'U', 'E', 0);
            answer(ref, t, v, standin, s + 500000, s + 700000);
        } else {
            lookup(r, v, 0, s + 190000, s + 705000, 'A', 'A', 500000);
            answer(ref, t, v, 'L', s + 800000, s + MS);
        }
    }
    /* times of the test's choosing: a closed-loop run; planned waits from the dice */
    syn_closed_loop(r);
    syn_draw_waits(r);
    qsort(r->s, r->ns, sizeof *r->s, cmp_s);
    qsort(r->v, r->nv, sizeof *r->v, cmp_v);
    syn_quiet_machine(r, 7);
}

static const char *O_COMPARISONS = "a\tb\tfigure\tnote\n"
                                   "H3-r2-down\tH3-fb25\tlost\tboth lose a request or none\n"
                                   "H3-r2-down\tH3-fb25\tduring_lookups_per_request\tno window in H3-fb25\n";

static const char *O_GUESSES =
    "id\tguess\tpredicate\n"
    "G1\tRetries multiply the load while the store is down.\tevery H3-r2-down.during_lookups_per_request >= 2.55\n"
    "G2\tNearly every request in the window gets an error.\tevery H3-r2-down.during_errors >= 0.99 * H3-r2-down.during_requests\n"
    "G3\tRecovered within a second.\tmedian H3-r2-down.recovered_s <= 0 and every H3-r2-down.first_live_after_ms < 0.652\n"
    "G4\tNo window, no recovery time.\tany H3-fb25.first_live_after_ms >= 0\n"
    "G5\tTwo requests lost.\tevery H3-r2-down.lost <= 2 and every H3-r2-down.after_lost <= 0 and every H3-fb25.retried_permanent <= 0\n";

/* the down run in rounds 1 and 2, and H3-fb25 without a fault in rounds 1
 * and 2; edit may change round 1 of the down run before it is written */
static void outage_study(const char *root, void (*edit)(syn_run *))
{
    syn_ref ref;
    ten_rows(&ref);
    cr_assert_eq(syn_write_reference(root, &ref), 0);
    syn_run r;
    for (int round = 1; round <= 2; round++) {
        down_run(&r, &ref, round);
        if (edit && round == 1)
            edit(&r);
        cr_assert_eq(syn_write_run(root, &r, 6), 0);
        syn_free_run(&r);
        syn_kind_run(&r, "H3-fb25", round, "LLKLLLDEL", &ref, 7000000000000LL + round * 100000000000LL);
        cr_assert_eq(syn_write_run(root, &r, 6), 0);
        syn_free_run(&r);
    }
    syn_free_ref(&ref);
    ts_write_texts(root, O_COMPARISONS, O_GUESSES);
    cr_assert_eq(syn_write_quiet(root, NULL), 0);
    cr_assert_eq(syn_write_manifest(root), 0);
}

Test(outage, down_run_figures_by_hand, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    outage_study(o_root, NULL);
    ts_promote(o_root);
    char *out;
    const char *a[] = {"--root", o_root, NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    cr_expect(!strstr(out, "NOTE H3-r2-down"), "%s", out);
    free(out);
    vj_node *v = ts_verified(o_root);
    for (int round = 1; round <= 2; round++) {
        const char *R = round == 1 ? "H3-r2-down-r1" : "H3-r2-down-r2";
        cr_expect_str_eq(ts_field(v, R, "fault")->text, "down");
        TS_NUM(v, R, "win_from_ms", 2000);
        TS_NUM(v, R, "win_to_ms", 4000);
        static const char *const ph[3] = {"before", "during", "after"};
        static const char *const what[7] = {"requests", "live", "standins", "errors", "lost", "lookups",
                                            "unanswered_lookups"};
        static const double want[3][7] = {{20, 18, 0, 1, 1, 21, 2}, {20, 1, 18, 0, 1, 51, 1}, {20, 18, 1, 1, 0, 23, 4}};
        for (int p = 0; p < 3; p++)
            for (int k = 0; k < 7; k++) {
                char name[64];
                snprintf(name, sizeof name, "%s_%s", ph[p], what[k]);
                TS_NUM(v, R, name, want[p][k]);
            }
        TS_NUM(v, R, "during_lookups_per_request", 2.55);
        TS_NUM(v, R, "during_standin_share", 0.9);
        TS_NUM(v, R, "during_p99_ms", 83.019);
        TS_NUM(v, R, "store1_during_busy", 0);
        cr_expect_eq(ts_field(v, R, "store2_during_busy")->type, VJ_NULL, "%s: stores 1", R);
        TS_NUM(v, R, "first_live_after_ms", 0.651);
        TS_NUM(v, R, "recovered_s", 0);
        TS_NUM(v, R, "lost", 2);
        TS_NUM(v, R, "retried_permanent", 0);
        TS_NUM(v, R, "conn_lost", 1);
        TS_NUM(v, R, "conn_failed", 2);
        TS_NUM(v, R, "conn_regained", 1);
        TS_NUM(v, R, "reconnect_wait_over", 0);
        TS_NUM(v, R, "lookups", 95);
        TS_NUM(v, R, "live", 37);
        TS_NUM(v, R, "last_known", 15);
        TS_NUM(v, R, "default", 4);
        TS_NUM(v, R, "error", 4);
        const char *so = "ADUENHRP", *le = "ATCDUNXROBY";
        const double want_so[8] = {43, 1, 0, 51, 0, 0, 0, 0}, want_le[11] = {37, 6, 0, 1, 50, 0, 1, 5, 0, 0, 0};
        for (int k = 0; k < 11; k++) {
            char key[2] = {so[k < 8 ? k : 0], 0};
            const vj_node *n = vj_get(ts_field(v, R, "store_outcomes"), key);
            cr_expect(n && n->num == want_so[k < 8 ? k : 0], "%s store_outcomes.%s", R, key);
            key[0] = le[k];
            n = vj_get(ts_field(v, R, "lookup_ends"), key);
            cr_expect(n && n->num == want_le[k], "%s lookup_ends.%s", R, key);
        }
        const vj_node *ps = ts_field(v, R, "per_second");
        cr_assert_eq(ps->n, 6);
        const double live[6] = {9, 9, 0, 1, 9, 9}, errors[6] = {1, 1, 0, 1, 0, 1}, standins[6] = {0, 0, 10, 8, 1, 0};
        for (int s = 0; s < 6; s++) {
            cr_expect_eq(vj_get(ps->items[s], "live")->num, live[s], "%s second %d", R, s);
            cr_expect_eq(vj_get(ps->items[s], "errors")->num, errors[s], "%s second %d", R, s);
            cr_expect_eq(vj_get(ps->items[s], "standins")->num, standins[s], "%s second %d", R, s);
        }
        cr_expect_eq(vj_get(ps->items[2], "lookups_sent")->num, 27, "%s", R);
        cr_expect_eq(vj_get(ps->items[3], "lookups_sent")->num, 24, "%s", R);
    }
    /* a run without a window: every window figure null, the counts there */
    const char *N = "H3-fb25-r1";
    cr_expect_str_eq(ts_field(v, N, "fault")->text, "none");
    static const char *const nulls[] = {"win_from_ms", "win_to_ms", "before_requests", "during_lookups",
                                        "after_unanswered_lookups", "during_lookups_per_request",
                                        "first_live_after_ms", "recovered_s", "during_standin_share",
                                        "during_p99_ms", "store1_during_busy", "store2_during_busy"};
    for (size_t k = 0; k < sizeof nulls / sizeof *nulls; k++)
        cr_expect_eq(ts_field(v, N, nulls[k])->type, VJ_NULL, "%s.%s is not null", N, nulls[k]);
    TS_NUM(v, N, "lost", 0);
    TS_NUM(v, N, "conn_lost", 0);
    cr_expect_eq(vj_get(ts_field(v, N, "store_outcomes"), "A")->num, 9);
    cr_expect_eq(vj_get(ts_field(v, N, "lookup_ends"), "T")->num, 3);
    /* arms: the new statistics; null for an arm whose runs have none */
    const vj_node *arm = vj_get(vj_get(v, "arms"), "H3-r2-down");
    cr_expect_eq(vj_get(vj_get(arm, "during_lookups_per_request"), "median")->num, 2.55);
    const vj_node *p99 = vj_get(vj_get(arm, "during_p99_ms"), "max"), *sh = vj_get(vj_get(arm, "during_standin_share"), "min");
    const vj_node *b1 = vj_get(vj_get(arm, "store1_during_busy"), "median"), *b2 = vj_get(arm, "store2_during_busy");
    cr_assert(p99 && sh && b1 && b2, "arms.H3-r2-down: the four figures");
    cr_expect(p99->type == VJ_NUM && fabs(p99->num - 83.019) < 1e-9, "during_p99_ms.max %s", p99->text);
    cr_expect(sh->type == VJ_NUM && sh->num == 0.9);
    cr_expect(b1->type == VJ_NUM && b1->num == 0);
    cr_expect(b2->type == VJ_NULL || vj_get(b2, "median")->type == VJ_NULL, "store2_during_busy of one store");
    const vj_node *rmax = vj_get(vj_get(arm, "recovered_s"), "max");
    cr_expect(rmax && rmax->type == VJ_NUM && rmax->num == 0, "arms.H3-r2-down.recovered_s.max is not 0");
    cr_expect_eq(vj_get(vj_get(arm, "lost"), "median")->num, 2);
    cr_expect_eq(vj_get(vj_get(vj_get(v, "arms"), "H3-fb25"), "first_live_after_ms")->type, VJ_NULL);
    /* guesses on the new figures: G1 true; G2 false (0 errors of 20);
     * G3 true; G4 false (null); G5 true */
    const vj_node *gs = vj_get(v, "guesses");
    cr_assert_eq(gs->n, 5);
    const int right[5] = {1, 0, 1, 0, 1};
    for (int i = 0; i < 5; i++)
        cr_expect_eq(vj_get(gs->items[i], "right")->b, right[i], "G%d", i + 1);
    /* verdicts: lost 2 - 0 in both rounds: clearly different; a figure
     * null in one arm: no difference to judge */
    const vj_node *vd = vj_get(v, "verdicts");
    cr_expect_str_eq(vj_get_str(vd->items[0], "direction"), "a>b");
    cr_expect_str_eq(vj_get_str(vd->items[1], "verdict"), "too close to call");
    cr_expect_eq(vj_get(vj_get(vj_get(v, "checks"), "reconnect_wait_over"), "total")->num, 0);
    vj_free(v);
}

/* in results.json, after the text after, give member key the number text to */
static void edit_results(const char *root, const char *after, const char *key, const char *to)
{
    char *rp = vu_xasprintf("%s/results/results.json", root);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(rp, &b, &len, err, sizeof err), 0);
    char *s = (char *)b, *at = strstr(s, after);
    cr_assert(at, "no %s in results.json", after);
    char *k = vu_xasprintf("\"%s\": ", key);
    char *q = strstr(at, k);
    cr_assert(q, "no %s after %s", k, after);
    q += strlen(k);
    char *e = q;
    while (*e && strchr("0123456789.-+eE", *e))
        e++;
    vu_buf o = {0};
    vu_buf_add(&o, s, (size_t)(q - s));
    vu_buf_puts(&o, to);
    vu_buf_puts(&o, e);
    cr_assert_eq(syn_write_text(rp, o.p), 0);
    vu_buf_free(&o);
    free(k);
    free(b);
    free(rp);
}

Test(outage, a_wrong_window_figure_names_run_and_field, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    outage_study(o_root, NULL);
    ts_promote(o_root);
    edit_results(o_root, "\"H3-r2-down-r2\"", "during_lookups", "52");
    edit_results(o_root, "\"H3-r2-down-r1\"", "recovered_s", "1");
    edit_results(o_root, "\"H3-r2-down-r1\"", "E", "50");
    char *out;
    const char *a[] = {"--root", o_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r2 during_lookups: lab 52, verify 51\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r1 recovered_s: lab 1, verify 0\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r1 store_outcomes.E: lab 50, verify 51\n"), "%s", out);
    cr_expect(strstr(out, "\n3 MISMATCHES\n"), "%s", out);
    free(out);
}

/* the figures of the window added with issue 29 (RESULTS.md): a forged
 * during_p99_ms or store1_during_busy is named with run and field */
Test(outage, a_forged_during_figure_is_named, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    outage_study(o_root, NULL);
    ts_promote(o_root);
    edit_results(o_root, "\"H3-r2-down-r1\"", "during_p99_ms", "83.02");
    edit_results(o_root, "\"H3-r2-down-r2\"", "store1_during_busy", "0.25");
    edit_results(o_root, "\"H3-r2-down-r2\"", "during_standin_share", "0.85");
    char *out;
    const char *a[] = {"--root", o_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r1 during_p99_ms: lab 83.02, verify 83.019"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r2 store1_during_busy: lab 0.25, verify 0\n"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r2 during_standin_share: lab 0.85, verify 0.9\n"), "%s", out);
    cr_expect(strstr(out, "\n3 MISMATCHES\n"), "%s", out);
    free(out);
}

/* results.json with the four figures of issue 29 taken out of runs and
 * arms, but for the run keep_run (NULL: none kept) */
static void drop_during(const char *keep_run)
{
    static const char *const four[] = {"during_standin_share", "during_p99_ms", "store1_during_busy",
                                       "store2_during_busy"};
    ts_drop_members(o_root, keep_run, four, 4);
}

/* a results.json older than the four (the published study's) is not asked
 * for them; once one run has them, every run and arm must */
Test(outage, an_older_results_json_is_not_asked_for_the_during_figures, .init = o_setup, .fini = o_teardown,
     .timeout = 60)
{
    outage_study(o_root, NULL);
    ts_promote(o_root);
    drop_during(NULL);
    char *out;
    const char *a[] = {"--root", o_root, "--no-scan", NULL};
    cr_expect_eq(th_run(&out, a), 0, "%s", out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);
    vj_node *v = ts_verified(o_root);
    TS_NUM(v, "H3-r2-down-r1", "during_p99_ms", 83.019); /* the verifier still writes its own */
    vj_free(v);
    ts_promote(o_root);
    drop_during("H3-r2-down-r1");
    cr_expect_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r2 during_p99_ms: lab (absent), verify 83.019"), "%s", out);
    cr_expect(strstr(out, "MISMATCH arms.H3-r2-down store1_during_busy: lab (absent)"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r1 store2_during_busy: lab (absent), verify null"), "%s", out);
    cr_expect(!strstr(out, "MISMATCH H3-r2-down-r1 during"), "%s", out);
    free(out);
}

static void wait_too_long(syn_run *r)
{
    /* the second F (tries 2) waits 45 ms: not below min(1 s, 10 ms * 2^2) */
    r->e[2].wait = 45 * MS;
}

Test(outage, a_pause_out_of_bounds_is_counted_and_reported, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    outage_study(o_root, wait_too_long);
    ts_promote(o_root);
    char *out;
    const char *a[] = {"--root", o_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 0, "%s", out);
    /* counted, not a malformed row: the verifier says it on its own */
    cr_expect(strstr(out, "NOTE H3-r2-down-r1 reconnect_wait_over 1: reconnect pauses outside [0, min(1 s, 10 ms * "
                          "2^tries)) (the first at events.tsv.gz:5)"),
              "%s", out);
    cr_expect(!strstr(out, "NOTE H3-r2-down-r2"), "%s", out);
    free(out);
    vj_node *v = ts_verified(o_root);
    TS_NUM(v, "H3-r2-down-r1", "reconnect_wait_over", 1);
    TS_NUM(v, "H3-r2-down-r2", "reconnect_wait_over", 0);
    const vj_node *c = vj_get(vj_get(v, "checks"), "reconnect_wait_over");
    cr_expect_eq(vj_get(c, "total")->num, 1);
    cr_expect_eq(vj_get(vj_get(c, "runs"), "H3-r2-down-r1")->num, 1);
    vj_free(v);
    /* a results.json that says 0 is a mismatch */
    edit_results(o_root, "\"H3-r2-down-r1\"", "reconnect_wait_over", "0");
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r1 reconnect_wait_over: lab 0, verify 1\n"), "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(out);
}


Test(outage, version_1_and_unknown_codes_reject_the_run, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    outage_study(o_root, NULL);
    ts_promote(o_root);
    ts_replace_line(o_root, "H3-r2-down-r1", "events.tsv.gz", 1, "# lab-raw 1 events");
    ts_replace_line(o_root, "H3-r2-down-r2", "store.tsv.gz", 3, "0\t0\t8\t0\t0\t0\tQ\t0\t1");
    ts_replace_line(o_root, "H3-fb25-r2", "service.tsv.gz", 3, "0\t25\t9\t200\tL\t1\t1\t3\t1006\tZ\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-");
    char *out;
    const char *a[] = {"--root", o_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r1 raw files: lab (a run in results/raw/), verify rejected: "), "%s", out);
    cr_expect(strstr(out, "H3-r2-down-r1/events.tsv.gz:1: first line is \"# lab-raw 1 events\", expected \"# lab-raw 4 "
                          "events\" (this reader reads raw format version 4 only)"),
              "%s", out);
    cr_expect(strstr(out, "H3-r2-down-r2/store.tsv.gz:3: field outcome \"Q\" is not one of the codes ADUENHRP"), "%s",
              out);
    cr_expect(strstr(out, "H3-fb25-r2/service.tsv.gz:3: field a0_out \"Z\" is not one of the codes ATCDUNXROBY"), "%s",
              out);
    cr_expect(strstr(out, "verify (no accepted raw run of that name/arm under results/raw/)"), "%s", out);
    free(out);
}

static void broken_promises(syn_run *r)
{
    /* a lookup that arrived in the window answered A; one after it answered E */
    int in = -1, after = -1;
    long long F = r->t0 + 2 * SEC, U = r->t0 + 4 * SEC;
    for (size_t i = 0; i < r->ns; i++) {
        if (in < 0 && r->s[i].arrive >= F && r->s[i].arrive < U)
            in = (int)i;
        if (after < 0 && r->s[i].arrive >= U + SEC)
            after = (int)i;
    }
    /* an A row always had a slot (format 4 decodes its end after start_t + W) */
    r->s[in].outcome = 'A';
    r->s[in].has_start = 1;
    r->s[in].start = r->s[in].arrive;
    r->s[after].outcome = 'E';
    /* a C that came before its pause was over; a row out of time order */
    r->e[3].t = r->e[2].t + 1000;
}

Test(outage, broken_promises_name_file_and_line, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    outage_study(o_root, broken_promises);
    ts_promote(o_root);
    char *out;
    const char *a[] = {"--root", o_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, " outcome: lab A, verify E (arrive_t in the down window ["), "%s", out);
    cr_expect(strstr(out, " outcome: lab E, verify not E (fault down: E is an arrival in a down or never window, or a "
                          "flaky draw)"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r1 events.tsv.gz:6 t: lab 1000, verify at or after "), "%s", out);
    cr_expect(strstr(out, "\n3 MISMATCHES\n"), "%s", out);
    free(out);
}

static void bad_fault(syn_run *r)
{
    r->fault_spec = "down@0.5-0.9";   /* the window written is the default one */
}

static void no_fault_name(syn_run *r)
{
    r->fault = "dwon";
}

static void nested_window(syn_run *r)
{
    r->nested = 1;   /* {"window": {"from_ns": ..., "to_ns": ...}}: not RAWFORMAT.md's form */
}

Test(outage, the_fault_of_run_json_is_checked, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    outage_study(o_root, bad_fault);
    ts_promote(o_root);
    char *out;
    const char *a[] = {"--root", o_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r1 run.json fault.window: lab from_ns 2000000000, to_ns 4000000000, "
                          "verify from_ns 3000000000, to_ns 5400000000 (the window of spec \"down@0.5-0.9\""),
              "%s", out);
    /* round 2's arm_spec is the arm's line no more (the arms file has round 1's) */
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r2 run.json arm_spec.fault: lab \"down\", verify \"down@0.5-0.9\" ("),
              "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES\n"), "%s", out);
    free(out);
    th_rmrf(o_root);
    free(o_root);
    o_setup();
    outage_study(o_root, no_fault_name);
    ts_promote(o_root);
    const char *b[] = {"--root", o_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, b), 1, "%s", out);
    cr_expect(strstr(out, "H3-r2-down-r1/run.json:"), "%s", out);
    cr_expect(strstr(out, ": fault.name \"dwon\" is not one of none down hang reset never flaky missing"), "%s", out);
    free(out);
    /* the window in a fault.window object: rejected, naming run.json */
    th_rmrf(o_root);
    free(o_root);
    o_setup();
    outage_study(o_root, nested_window);
    ts_promote(o_root);
    const char *c[] = {"--root", o_root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, c), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-r2-down-r1 raw files: lab (a run in results/raw/), verify rejected: "), "%s", out);
    cr_expect(strstr(out, "H3-r2-down-r1/run.json:"), "%s", out);
    cr_expect(strstr(out, ": fault.window is not null (a window is from_ns and to_ns in fault itself)"), "%s", out);
    cr_expect(!strstr(out, "H3-r2-down-r2/run.json:"), "%s", out);
    free(out);
}

/* ou_read_fault on the fault object text: 0 or -1, the window, the message */
static int read_fault(const char *fault, ou_fault *w, char *err, size_t errlen)
{
    char *js = vu_xasprintf("{\"fault\": %s}", fault);
    vj_node *rj;
    cr_assert_eq(vj_parse(js, strlen(js), "run.json", &rj, err, errlen), 0, "%s", err);
    err[0] = 0;
    int rc = ou_read_fault(rj, "run.json", "r", 30, 1000, w, err, errlen);
    vj_free(rj);
    free(js);
    return rc;
}

Test(outage, the_fault_object_is_read_as_rawformat_spells_it)
{
    ou_fault w;
    char err[512];
    mm_reset();
    /* RAWFORMAT.md's example, and "window": null */
    cr_assert_eq(read_fault("{\"name\": \"down\", \"spec\": \"down\", \"from_ns\": 10000000000, \"to_ns\": 20000000000}",
                            &w, err, sizeof err), 0, "%s", err);
    cr_expect(w.has_window && !w.to_end && w.F == 1000 + 10 * SEC && w.U == 1000 + 20 * SEC);
    cr_assert_eq(read_fault("{\"name\": \"never\", \"spec\": \"never\", \"from_ns\": 10000000000, \"to_ns\": null}",
                            &w, err, sizeof err), 0, "%s", err);
    cr_expect(w.has_window && w.to_end && w.U == LLONG_MAX);
    cr_assert_eq(read_fault("{\"name\": \"flaky\", \"spec\": \"flaky\", \"window\": null}", &w, err, sizeof err), 0, "%s", err);
    cr_expect(!w.has_window);
    cr_expect_eq(mm_count(), 0);
    /* anything else is refused, naming run.json */
    cr_expect_eq(read_fault("{\"name\": \"down\", \"spec\": \"down\", \"window\": {\"from_ns\": 10000000000, "
                            "\"to_ns\": 20000000000}}", &w, err, sizeof err), -1);
    cr_expect(strstr(err, "run.json:1: fault.window is not null"), "%s", err);
    cr_expect_eq(read_fault("{\"name\": \"down\", \"spec\": \"down\", \"window\": null, \"from_ns\": 10000000000, "
                            "\"to_ns\": 20000000000}", &w, err, sizeof err), -1);
    cr_expect(strstr(err, "fault has both \"window\": null and from_ns/to_ns"), "%s", err);
    cr_expect_eq(read_fault("{\"name\": \"none\", \"spec\": \"none\"}", &w, err, sizeof err), -1);
    cr_expect(strstr(err, "fault has neither from_ns and to_ns nor \"window\": null"), "%s", err);
    cr_expect_eq(read_fault("{\"name\": \"down\", \"spec\": \"down\", \"from_ns\": 10000000000}", &w, err, sizeof err), -1);
    cr_expect(strstr(err, "to_ns is neither an integer nor null"), "%s", err);
    mm_reset();
}

/* 100 requests in [t0, F) = [10 s, 11 s), one in ten a stand-in: BL = 90 */
static void before_tenth_not_live(ou_win *x, const ou_fault *w)
{
    for (int i = 0; i < 100; i++)
        ou_win_request(x, w, 10 * SEC + i * 10 * MS, i % 10 == 3 ? 'D' : 'L', 1, 10 * SEC + i * 10 * MS + MS);
}

Test(outage, window_and_backoff_by_hand)
{
    /* a window [1 s, 2 s) of a 3.5 s run: B_0 = [2 s, 3 s) counts, B_1 would
     * end at 4 s > 3.5 s and does not */
    ou_fault w;
    memset(&w, 0, sizeof w);
    w.scen = OU_DOWN;
    w.has_window = 1;
    w.from_ns = SEC;
    w.to_ns = 2 * SEC;
    w.F = 10 * SEC + SEC;
    w.U = 10 * SEC + 2 * SEC;
    w.end = 10 * SEC + 3500 * MS;
    ou_win x;
    ou_win_init(&x, &w);
    cr_expect_eq(x.nrec, 1);
    cr_expect_eq(ou_phase(&w, w.F - 1), 0);
    cr_expect_eq(ou_phase(&w, w.F), 1);
    cr_expect_eq(ou_phase(&w, w.U), 2);
    /* B = 0 (no request before the window): back under 1 in 100 not live.
     * B_0: 99 live and 1 stand-in (1 in 100 is not under 1 in 100); B_1: all live */
    for (int i = 0; i < 100; i++)
        ou_win_request(&x, &w, w.U + i * 10 * MS, i == 50 ? 'K' : 'L', 1, w.U + i * 10 * MS + MS);
    for (int i = 0; i < 10; i++)
        ou_win_request(&x, &w, w.U + SEC + i * 10 * MS, 'L', 1, w.U + SEC + i * 10 * MS + MS);
    double f[OU_NFIG];
    ou_win_figs(&x, &w, f);
    cr_expect(isnan(f[OU_RECOVERED_S]), "recovered_s %g", f[OU_RECOVERED_S]);
    cr_expect_eq(f[OU_FIRST_LIVE_AFTER_MS], 1.0);
    cr_expect(isnan(f[OU_DURING_LOOKUPS_PER_REQUEST]));
    cr_expect_eq(f[OU_PHASE0 + 2 * OU_PN + OU_P_REQUESTS], 110);
    ou_win_free(&x);
    /* 200 rows with one not live in B_0: 1/200 < 1/100, recovered at once */
    ou_win_init(&x, &w);
    for (int i = 0; i < 200; i++)
        ou_win_request(&x, &w, w.U + i * 5 * MS, i == 7 ? 'E' : 'L', i != 7, w.U + i * 5 * MS);
    ou_win_figs(&x, &w, f);
    cr_expect_eq(f[OU_RECOVERED_S], 0);
    cr_expect_eq(f[OU_FIRST_LIVE_AFTER_MS], 0);
    cr_expect_eq(f[OU_PHASE0 + 2 * OU_PN + OU_P_LOST], 1);
    ou_win_free(&x);
    /* B > 0: back within 1 point of the share not live before the window.
     * Before: B = 100 rows in [t0, F), BL = 90 live (10% not live).  A run
     * of 4 s: B_0 and B_1 count.  B_0: 100 rows, 11 not live (11%):
     * 100 100 11 = 110000 is not < 100 100 10 + 100 100 = 110000.  B_1: 200
     * rows, 21 not live (10.5%): 100 100 21 = 210000 < 100 200 10 + 200 100
     * = 220000: recovered_s 1.  (Under 1 in 100 not live, the old rule: null.) */
    ou_fault w4 = w;
    w4.end = 10 * SEC + 4 * SEC;
    ou_win_init(&x, &w4);
    cr_expect_eq(x.nrec, 2);
    before_tenth_not_live(&x, &w4);
    for (int i = 0; i < 100; i++)
        ou_win_request(&x, &w4, w4.U + i * 10 * MS, i < 11 ? 'E' : 'L', 1, w4.U + i * 10 * MS + MS);
    for (int i = 0; i < 200; i++)
        ou_win_request(&x, &w4, w4.U + SEC + i * 5 * MS, i % 10 == 9 || i == 100 ? 'K' : 'L', 1,
                       w4.U + SEC + i * 5 * MS + MS);
    ou_win_figs(&x, &w4, f);
    cr_expect_eq(f[OU_PHASE0 + OU_P_REQUESTS], 100);
    cr_expect_eq(f[OU_PHASE0 + OU_P_LIVE], 90);
    cr_expect_eq(f[OU_PHASE0 + 2 * OU_PN + OU_P_LIVE], 89 + 179);
    cr_expect_eq(f[OU_RECOVERED_S], 1, "recovered_s %g", f[OU_RECOVERED_S]);
    ou_win_free(&x);
    /* the same before the window, B_0 with 10 not live of 100 (no worse than
     * before): back at once */
    ou_win_init(&x, &w4);
    before_tenth_not_live(&x, &w4);
    for (int i = 0; i < 100; i++)
        ou_win_request(&x, &w4, w4.U + i * 10 * MS, i < 10 ? 'E' : 'L', i >= 5, w4.U + i * 10 * MS + MS);
    ou_win_figs(&x, &w4, f);
    cr_expect_eq(f[OU_RECOVERED_S], 0, "recovered_s %g", f[OU_RECOVERED_S]);
    ou_win_free(&x);
    /* never: no end, so no first live answer after it and no recovery */
    w.to_end = 1;
    w.U = LLONG_MAX;
    ou_win_init(&x, &w);
    ou_win_request(&x, &w, w.F + SEC, 'L', 1, w.F + SEC + MS);
    ou_win_figs(&x, &w, f);
    cr_expect(isnan(f[OU_WIN_TO_MS]) && isnan(f[OU_FIRST_LIVE_AFTER_MS]) && isnan(f[OU_RECOVERED_S]));
    cr_expect_eq(f[OU_PHASE0 + OU_PN + OU_P_LIVE], 1);
    cr_expect_eq(f[OU_DURING_LOOKUPS_PER_REQUEST], 0);
    ou_win_free(&x);
    /* the backoff's bounds: min(1 s, 10 ms * 2^tries) */
    cr_expect_eq(ou_wait_bound(0), 10 * MS);
    cr_expect_eq(ou_wait_bound(2), 40 * MS);
    cr_expect_eq(ou_wait_bound(6), 640 * MS);
    cr_expect_eq(ou_wait_bound(7), SEC);
    cr_expect_eq(ou_wait_bound(1000), SEC);
}
