/* The exports of extra.[ch] ("extra" in verified.json) on a synthetic study
 * whose values are worked out by hand below.
 *
 * Arm H3-fb25, round 21, 5 requests 0.2 s apart (sched_j = t0 + j 0.2 s +
 * 1000), a closed-loop run (each sent when scheduled).  The planned waits
 * are the dice's (RAWFORMAT.md, wait H) with freeze_share 0.55: in round 21
 * exactly (1, 1), (2, 0) and (3, 0) freeze (u0 0.0763, 0.4793, 0.3617 under
 * 0.55; (0, 0) and (1, 0) have 0.7171 and 0.6250), planning 1,046,969,239,
 * 1,898,157,910 and 1,085,438,795 ns (worked out with python3 from the page):
 *   j = 0  latency 50 us (below the whole grid)
 *   j = 1  latency exactly grid point 20 (3,293,580 ns): counted at k = 19, not at k = 20;
 *          its retry (attempt 1) is frozen: not a candidate (attempt 0 only)
 *   j = 2  the frozen example: attempt 0 plans 1.898 s, the service gives up
 *          at 25.05 ms and answers K; latency 26 ms; the store answers after
 *          its wait, 1,898,227,910 ns after sched
 *   j = 3  also frozen (1.085 s) and answered after 1200 ms: the slowest; its
 *          store row comes first in the file, but j = 2 is the lower j
 *   j = 4  never answered: exceeds every threshold
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extra.h"
#include "synth.h"
#include "thelp.h"
#include "vjson.h"
#include "vutil.h"

static char *x_root;

static void x_setup(void)
{
    x_root = th_tmpdir();
    cr_assert(x_root);
}

static void x_teardown(void)
{
    th_rmrf(x_root);
    free(x_root);
}

#define MS 1000000LL

static void add_store(syn_run *r, long long req, long long att, long long arrive, long long start, long long end,
                      long long planned)
{
    syn_srow *s = &r->s[r->ns++];
    s->req = req;
    s->attempt = att;
    s->row = req;
    s->arrive = arrive;
    s->has_start = 1;
    s->start = start;
    s->has_end = 1;
    s->end = end;
    s->planned = planned;
    s->outcome = 'A';
    s->busy = 1;
}

static void make_run(syn_run *r, const syn_ref *ref)
{
    memset(r, 0, sizeof *r);
    snprintf(r->arm, sizeof r->arm, "H3-fb25");
    r->round = 21;
    r->freeze_share_set = 1;
    r->freeze_share = 0.55;
    r->seconds = 1.0;
    r->rate = 5;
    r->t0 = 3000000000000LL;
    r->test_rows = 10;
    r->t = vu_xcalloc(5, sizeof *r->t);
    r->v = vu_xcalloc(5, sizeof *r->v);
    r->s = vu_xcalloc(8, sizeof *r->s);
    static const long long lat[5] = {50000, 3293580, 26 * MS, 1200 * MS, -1};
    for (int j = 0; j < 5; j++) {
        syn_trow *t = &r->t[r->nt++];
        t->j = j;
        t->row = j;
        t->sched = r->t0 + j * 200 * MS + 1000;
        t->send = t->sched;
        if (lat[j] < 0) {
            t->status = 0;
            t->kind = 'E';
            continue;
        }
        t->has_answer = 1;
        t->answer = t->sched + lat[j];
        t->status = 200;
        t->kind = j == 2 ? 'K' : 'L';
        t->score = j == 2 ? ref->last_known[j] : ref->score[j];
        t->has_score = 1;
    }
    long long S;
    syn_vrow *v;
    /* j = 0, 1: plain service rows */
    for (int j = 0; j < 2; j++) {
        S = r->t[j].sched;
        v = &r->v[r->nv++];
        v->req = v->row = j;
        v->has_req = v->has_row = 1;
        v->arrive = S + 20000;
        v->a_has[0] = 1;
        v->a_start[0] = S + 25000;
        v->a_end[0] = S + 30000;
        v->a_out[0] = 'A';
        v->lookups = 1;
        if (j == 1) {
            v->a_out[0] = 'T';
            v->a_has[1] = 1;
            v->a_start[1] = S + 35000;
            v->a_end[1] = S + 3000000;
            v->a_out[1] = 'A';
            v->lookups = 2;
        }
        v->answer = r->t[j].answer - 1000;
        v->status = 200;
        v->kind = 'L';
        add_store(r, j, 0, S + 26000, S + 26000, S + 29000, 3000);
    }
    add_store(r, 1, 1, r->t[1].sched + 36000, r->t[1].sched + 36000, r->t[1].sched + 2990000, 1100000000LL);
    /* j = 3 first (its store row ends first), then j = 2 */
    S = r->t[3].sched;
    v = &r->v[r->nv++];
    v->req = v->row = 3;
    v->has_req = v->has_row = 1;
    v->arrive = S + 50000;
    v->a_has[0] = 1;
    v->a_start[0] = S + 60000;
    v->a_end[0] = S + 1199800000LL;
    v->a_out[0] = 'A';
    v->lookups = 1;
    v->answer = S + 1199900000LL;
    v->status = 200;
    v->kind = 'L';
    add_store(r, 3, 0, S + 70000, S + 80000, S + 1199080000LL, 1199000000LL);
    S = r->t[2].sched;
    v = &r->v[r->nv++];
    v->req = v->row = 2;
    v->has_req = v->has_row = 1;
    v->arrive = S + 40000;
    v->a_has[0] = 1;
    v->a_start[0] = S + 50000;
    v->a_end[0] = S + 25050000;
    v->a_out[0] = 'T';
    v->lookups = 1;
    v->answer = S + 25100000;
    v->status = 200;
    v->kind = 'K';
    add_store(r, 2, 0, S + 60000, S + 70000, S + 1898227910LL, 1500000000LL);
    syn_closed_loop(r);
    syn_draw_waits(r);
    /* the connections and the files' order a tester and a service give them (roworder.h) */
    syn_assign_conns(r);
    syn_sort_rows(r);
}

/* run.json gets the cpu and memory facts the lab writes (synth leaves them out) */
static void add_machine_facts(const char *root)
{
    char *p = vu_xasprintf("%s/results/raw/H3-fb25-r21/run.json", root);
    vj_node *rj;
    char err[512];
    cr_assert_eq(vj_parse_file(p, &rj, err, sizeof err), 0, "%s", err);
    vj_node *cpu = vj_new_obj();
    vj_node *svc = vj_new_obj();
    vj_obj_set(svc, "user_s", vj_new_num(0.25));
    vj_obj_set(svc, "sys_s", vj_new_num(0.125));
    vj_obj_set(svc, "share", vj_new_num(0.375));
    vj_obj_set(cpu, "service", svc);
    vj_obj_set(cpu, "wall_s", vj_new_num(1.5));
    vj_obj_set(rj, "cpu", cpu);
    vj_node *rss = vj_new_obj();
    vj_obj_set(rss, "service", vj_new_int(22668));
    vj_obj_set(rj, "peak_rss_kb", rss);
    vj_obj_set(rj, "start_utc", vj_new_str("2026-11-30T06:24:25Z"));
    vu_buf b = {0};
    vj_write(rj, &b);
    cr_assert_eq(syn_write_text(p, b.p), 0);
    vu_buf_free(&b);
    vj_free(rj);
    free(p);
}

static void x_results_from_verified(const char *root)
{
    char *vp = vu_xasprintf("%s/results/verified.json", root);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    vj_node *o = vj_new_obj();
    static const char *const keep[] = {"runs", "arms", "verdicts", "guesses", "odds"};
    for (int k = 0; k < 5; k++) {
        for (size_t i = 0; i < v->n; i++)
            if (!strcmp(v->keys[i], keep[k])) {
                vj_obj_set(o, keep[k], v->items[i]);
                v->items[i] = vj_new_null();
            }
    }
    vj_obj_set(o, "format", vj_new_str("lab-results 1"));
    vu_buf b = {0};
    vj_write(o, &b);
    char *rp = vu_xasprintf("%s/results/results.json", root);
    cr_assert_eq(syn_write_text(rp, b.p), 0);
    vu_buf_free(&b);
    vj_free(o);
    vj_free(v);
    free(vp);
    free(rp);
}

static long long ival(const vj_node *o, const char *k)
{
    const vj_node *n = vj_get(o, k);
    cr_assert(n && n->type == VJ_NUM && n->is_int, "%s is not an integer", k);
    return n->i;
}

static double dval(const vj_node *o, const char *k)
{
    const vj_node *n = vj_get(o, k);
    cr_assert(n && n->type == VJ_NUM, "%s is not a number", k);
    return n->num;
}

#define NEAR(x, y) cr_expect(fabs((x) - (y)) < 1e-9, "%s = %.12g, expected %.12g", #x, (double)(x), (double)(y))

Test(extra, grid)
{
    cr_expect_eq(ex_grid_ns(0), 100000);
    cr_expect_eq(ex_grid_ns(20), 3293580);
    cr_expect_eq(ex_grid_ns(EX_GRID - 1), 3000000000LL);
    for (int k = 1; k < EX_GRID; k++) {
        cr_expect(ex_grid_ns(k) > ex_grid_ns(k - 1));
        /* equal steps in log: each point 30000^(1/59) = 1.19092 times the last */
        double ratio = (double)ex_grid_ns(k) / (double)ex_grid_ns(k - 1);
        cr_expect(fabs(ratio - pow(30000.0, 1.0 / 59)) < 1e-4, "k = %d ratio %g", k, ratio);
    }
}

Test(extra, exports_on_a_hand_made_run, .init = x_setup, .fini = x_teardown, .timeout = 60)
{
    syn_ref ref;
    syn_make_ref(&ref, 10, 5);
    cr_assert_eq(syn_write_reference(x_root, &ref), 0);
    syn_run r;
    make_run(&r, &ref);
    cr_assert_eq(syn_write_run(x_root, &r, 6), 0);
    syn_free_run(&r);
    syn_free_ref(&ref);
    add_machine_facts(x_root);
    char *p = vu_xasprintf("%s/data", x_root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/pipeline", x_root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/pipeline/comparisons.tsv", x_root);
    syn_write_text(p, "a\tb\tfigure\tnote\n");
    free(p);
    p = vu_xasprintf("%s/data/guesses.tsv", x_root);
    syn_write_text(p, "id\tguess\tpredicate\nG1\tFive requests, every round.\tevery H3-fb25.n >= 5\n");
    free(p);
    cr_assert_eq(syn_write_quiet(x_root, NULL), 0);
    cr_assert_eq(syn_write_manifest(x_root), 0);
    p = vu_xasprintf("%s/results/results.json", x_root);
    syn_write_text(p, "{\"format\": \"lab-results 1\", \"runs\": {}, \"arms\": {}, \"verdicts\": [], \"guesses\": []}\n");
    free(p);
    char *out;
    const char *a[] = {"--root", x_root, "--no-scan", NULL};
    th_run(&out, a);
    free(out);
    x_results_from_verified(x_root);
    const char *a2[] = {"--root", x_root, NULL};
    int rc = th_run(&out, a2);
    cr_assert_eq(rc, 0, "verify must pass:\n%s", out);
    free(out);

    char *vp = vu_xasprintf("%s/results/verified.json", x_root);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    free(vp);
    vj_node *ex = vj_get(v, "extra");
    cr_assert(ex && ex->type == VJ_OBJ, "no extra in verified.json");
    vj_node *grid = vj_get(ex, "exceed_grid_ns"), *gms = vj_get(ex, "exceed_grid_ms");
    cr_assert_eq(grid->n, EX_GRID);
    cr_assert_eq(gms->n, EX_GRID);
    cr_expect_eq(grid->items[20]->i, 3293580);
    NEAR(gms->items[20]->num, 3.29358);

    vj_node *run = vj_get(vj_get(ex, "runs"), "H3-fb25-r21");
    cr_assert(run, "no extra.runs.H3-fb25-r21");
    cr_expect_eq(ival(run, "n"), 5);
    vj_node *cnt = vj_get(run, "exceed_count"), *sh = vj_get(run, "exceed");
    cr_assert_eq(cnt->n, EX_GRID);
    /* latencies 0.05, 3.29358 (= grid 20), 26, 1200 ms and one unanswered */
    cr_expect_eq(cnt->items[0]->i, 4);        /* 0.1 ms: all but j = 0 */
    cr_expect_eq(cnt->items[19]->i, 4);       /* 2.77 ms: j = 1 still over */
    cr_expect_eq(cnt->items[20]->i, 3);       /* 3.29358 ms: j = 1 equal, not over */
    for (int k = 0; k < EX_GRID; k++) {
        double g = (double)grid->items[k]->i;
        int want = 1 + (3293580 > g) + (26e6 > g) + (1200e6 > g) + (50000 > g);
        cr_expect_eq(cnt->items[k]->i, want, "k = %d", k);
        NEAR(sh->items[k]->num, want / 5.0);
    }
    cr_expect_eq(cnt->items[EX_GRID - 1]->i, 1);   /* 3 s: only the unanswered */

    vj_node *fe = vj_get(run, "frozen_example");
    cr_assert(fe && fe->type == VJ_OBJ, "no frozen example");
    cr_expect_eq(ival(fe, "j"), 2);
    cr_expect_eq(ival(fe, "planned_ns"), 1898157910LL);
    cr_expect_eq(ival(fe, "sched_ns"), 0);
    cr_expect_eq(ival(fe, "send_ns"), 0);
    cr_expect_eq(ival(fe, "service_arrive_ns"), 40000);
    cr_expect_eq(ival(fe, "lookup_sent_ns"), 50000);
    cr_expect_eq(ival(fe, "service_gave_up_ns"), 25050000);
    cr_expect_eq(ival(fe, "service_answer_ns"), 25100000);
    cr_expect_eq(ival(fe, "answer_ns"), 26000000);
    cr_expect_eq(ival(fe, "store_arrive_ns"), 60000);
    cr_expect_eq(ival(fe, "store_start_ns"), 70000);
    cr_expect_eq(ival(fe, "store_end_ns"), 1898227910LL);
    cr_expect_str_eq(vj_get_str(fe, "kind"), "K");
    cr_expect_str_eq(vj_get_str(fe, "a0_out"), "T");
    cr_expect_str_eq(vj_get_str(fe, "store_outcome"), "A");

    /* 4 answered: the slowest 1% is ceil(4 / 100) = 1 request, j = 3:
     * late 0 (closed loop), to the service 50 us, lookups 1199.749795 ms,
     * scoring and answer 0.100205 ms, back to the tester 0.1 ms; they add
     * up to 1200 ms.  The lookup is A, so format 4 writes its end after
     * a0_start_t + W(3, 0) = S + 60000 + 1085438795: the logged end is
     * 114301205 ns later, written 114301 us, decoded S + 1199799795
     * (205 ns before the logged S + 1199800000) */
    vj_node *st = vj_get(run, "slowest_steps");
    cr_expect_eq(ival(st, "answered"), 4);
    cr_expect_eq(ival(st, "requests"), 1);
    cr_expect_eq(ival(st, "with_service_row"), 1);
    NEAR(dval(st, "latency_ms"), 1200);
    NEAR(dval(st, "fastest_of_them_ms"), 1200);
    NEAR(dval(st, "late_ms"), 0);
    NEAR(dval(st, "to_service_ms"), 0.05);
    NEAR(dval(st, "lookups_ms"), 1199.749795);
    NEAR(dval(st, "score_answer_ms"), 0.100205);
    NEAR(dval(st, "back_ms"), 0.1);

    vj_node *m = vj_get(run, "machine");
    NEAR(dval(vj_get(m, "idle"), "idle_share"), 0.987);
    NEAR(dval(vj_get(vj_get(m, "cpu"), "service"), "user_s"), 0.25);
    cr_expect_eq(ival(vj_get(m, "peak_rss_kb"), "service"), 22668);
    NEAR(dval(m, "settle_s"), 2.5);
    vj_node *tot = vj_get(ex, "machine");
    cr_expect_eq(ival(tot, "runs"), 1);
    NEAR(dval(tot, "wall_s"), 1.5);
    NEAR(dval(vj_get(tot, "cpu_s"), "service"), 0.375);
    NEAR(dval(tot, "cpu_s_total"), 0.375);
    NEAR(dval(tot, "idle_share_min"), 0.987);
    NEAR(dval(tot, "steal_share_max"), 0.001);
    cr_expect_eq(ival(vj_get(tot, "peak_rss_kb_max"), "service"), 22668);
    cr_expect_str_eq(vj_get_str(tot, "first_start_utc"), "2026-11-30T06:24:25Z");

    vj_node *g = vj_get(ex, "guesses");
    cr_assert_eq(g->n, 1);
    cr_expect_str_eq(vj_get_str(g->items[0], "id"), "G1");
    cr_expect_str_eq(vj_get_str(g->items[0], "guess"), "Five requests, every round.");
    vj_free(v);
}
