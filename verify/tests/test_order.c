/* What follows what in a run's files (roworder.h; lab/RAWFORMAT.md,
 * docs/DESIGN.md 5.4): one request at a time on a keep-alive connection,
 * the service's rows in the order its answers were written, the store's in
 * the order its lookups ended (unfinished ones last), and the service's
 * answer after the lookup answer it used (crossfile.h).
 *
 * The study: Z-capacity-r1, a closed loop of 12 requests (syn_kind_run:
 * request j sent at S_j = t0 + 50 ms j, t0 = 2,000,000,000,000 ns; wait Z,
 * so every instant is on t0's µs grid and decodes exactly).  A live (L)
 * request: service arrive_t S_j + 15 µs, a0_start_t + 18 µs, store
 * arrive_t and start_t + 26 µs, end_t + 1,026 µs, a0_end_t + 1,035 µs,
 * service answer_t + 1,039 µs, tester answer_t + 1,069 µs.  The next
 * request leaves 50 ms later, so all 12 go out on connection 0; the
 * service's and the store's rows are request 0, 1, ... on lines 3, 4, ...
 * Each test tampers with the rows, promotes results.json (so only the
 * order can tell) and counts the mismatches.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tstudy.h"

#define T0 2000000000000LL
#define MS 1000000LL
#define US 1000LL

static char *o_root;
static syn_ref o_ref;

static void o_setup(void)
{
    o_root = th_tmpdir();
    cr_assert(o_root);
    syn_make_ref(&o_ref, 10, 7);
}

static void o_teardown(void)
{
    syn_free_ref(&o_ref);
    th_rmrf(o_root);
    free(o_root);
}

static void closed_run(syn_run *r, const char *kinds)
{
    syn_kind_run(r, "Z-capacity", 1, kinds, &o_ref, T0);
    for (size_t j = 0; j < r->nt; j++)
        cr_assert_eq(r->t[j].conn, 0, "request %zu on connection %d", j, r->t[j].conn);
}

/* request j, every instant of it in the three files, moved by d ns: the
 * forger's move (syn_shift_request would also give it another connection) */
static void move_whole(syn_run *r, size_t j, long long d)
{
    syn_trow *t = &r->t[j];
    t->sched += d;
    t->send += d;
    t->answer += d;
    for (size_t i = 0; i < r->nv; i++) {
        syn_vrow *v = &r->v[i];
        if (v->req != t->j)
            continue;
        v->arrive += d;
        v->answer += d;
        for (int k = 0; k < 5; k++)
            v->a_start[k] += d, v->a_end[k] += d;
    }
    for (size_t i = 0; i < r->ns; i++) {
        syn_srow *s = &r->s[i];
        if (s->req != t->j)
            continue;
        s->arrive += d;
        s->start += d;
        s->end += d;
    }
}

/* the run written as the study's only run, results.json promoted */
static void write_study(syn_run *r)
{
    cr_assert_eq(syn_write_reference(o_root, &o_ref), 0);
    cr_assert_eq(syn_write_run(o_root, r, 1), 0);
    syn_free_run(r);
    ts_write_texts(o_root, "a\tb\tfigure\tnote\n", "id\tguess\tpredicate\n");
    cr_assert_eq(syn_write_quiet(o_root, NULL), 0);
    cr_assert_eq(syn_write_manifest(o_root), 0);
    ts_promote(o_root);
}

static char *o_verify(int want_rc)
{
    char *out;
    const char *a[] = {"--root", o_root, "--no-scan", "--max-print", "0", NULL};
    int rc = th_run(&out, a);
    cr_expect_eq(rc, want_rc, "exit %d, expected %d:\n%s", rc, want_rc, out);
    return out;
}

#define EXPECT_LINE(out, want) cr_expect(strstr(out, want), "%s\nwanted: %s", out, want)

Test(order, an_honest_study_passes, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    /* with an open-loop run of 94 requests at 50/s beside it (syn_gen_run:
     * 1 in 500 unanswered, its connection not used again) */
    cr_assert_eq(syn_write_reference(o_root, &o_ref), 0);
    syn_run r;
    syn_gen_run(&r, "H3-fb25", 1, 2.0, 50.0, 11, &o_ref, 1000000000000LL);
    cr_assert_eq(syn_write_run(o_root, &r, 1), 0);
    syn_free_run(&r);
    closed_run(&r, "LLLLLLLLLLLL");
    write_study(&r);
    char *out = o_verify(0);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    free(out);
}

Test(order, a_chain_moved_earlier_whole_on_its_connection_is_named, .init = o_setup, .fini = o_teardown,
     .timeout = 60)
{
    /* requests 5 .. 11 moved 49.5 ms earlier, every instant of them, on
     * connection 0 and in their places in the files: request 5 now leaves at
     * S_4 + 0.5 ms = 2,000,200,500,000, before request 4's answer at S_4 +
     * 1.069 ms.  Its service and store rows still follow request 4's (S_4 +
     * 1.539 ms after S_4 + 1.039 ms, S_4 + 1.526 after S_4 + 1.026): only the
     * connection tells */
    syn_run r;
    closed_run(&r, "LLLLLLLLLLLL");
    for (size_t j = 5; j < 12; j++)
        move_whole(&r, j, -49500 * US);
    write_study(&r);
    char *out = o_verify(1);
    EXPECT_LINE(out, "MISMATCH Z-capacity-r1 tester.tsv.gz:8 send_t: lab 2000200500000 (request 5, connection 0), "
                     "verify at or after 2000201069000 - 999, the answer_t of request 4 (tester.tsv.gz:7), the one "
                     "before it on connection 0: a keep-alive connection carries one request at a time\n");
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
}

Test(order, the_same_chain_on_a_connection_of_its_own_passes, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    /* the move of the test above, as a tester would have made it: request 5
     * goes out while request 4 is on connection 0, so on connection 1
     * (syn_assign_conns); 6 .. 11 find connection 0 idle again */
    syn_run r;
    closed_run(&r, "LLLLLLLLLLLL");
    for (size_t j = 5; j < 12; j++)
        move_whole(&r, j, -49500 * US);
    syn_assign_conns(&r);
    cr_expect_eq(r.t[5].conn, 1);
    cr_expect_eq(r.t[6].conn, 0);
    write_study(&r);
    char *out = o_verify(0);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    free(out);
}

Test(order, moved_before_an_unanswered_request_is_named_three_ways, .init = o_setup, .fini = o_teardown,
     .timeout = 60)
{
    /* request 4 unanswered (the tester gave up; its service row stays), then
     * 5 .. 11 moved 50.5 ms earlier on connection 0: request 5 leaves at S_4 -
     * 0.5 ms, before request 4 did (2,000,200,000,000).  Its service row now
     * answers at S_4 + 0.539 ms, before request 4's row above it (S_4 + 1.039
     * ms), and its store row ends at S_4 + 0.526 ms, before S_4 + 1.026 ms */
    syn_run r;
    closed_run(&r, "LLLLLLLLLLLL");
    syn_trow *t = &r.t[4];
    t->has_answer = t->has_score = 0;
    t->status = 0;
    t->kind = 'E';
    for (size_t j = 5; j < 12; j++)
        move_whole(&r, j, -50500 * US);
    write_study(&r);
    char *out = o_verify(1);
    EXPECT_LINE(out, "MISMATCH Z-capacity-r1 tester.tsv.gz:8 send_t: lab 2000199500000 (request 5, connection 0), "
                     "verify at or after 2000200000000 - 999, the send_t of request 4 (tester.tsv.gz:7, no answer), "
                     "the one before it on connection 0: a keep-alive connection carries one request at a time\n");
    EXPECT_LINE(out, "MISMATCH Z-capacity-r1 service.tsv.gz:8 answer_t: lab 2000200539000 (request 5), verify at or "
                     "after 2000201039000 - 999, the answer_t of request 4 (service.tsv.gz:7) above it: the rows are "
                     "in the order the answers were written\n");
    EXPECT_LINE(out, "MISMATCH Z-capacity-r1 store.tsv.gz:8 end_t: lab 2000200526000 (request 5), verify at or "
                     "after 2000201026000 - 999, the end_t of request 4 (store.tsv.gz:7) above it: the rows are in "
                     "the order the lookups ended\n");
    cr_expect(strstr(out, "\n3 MISMATCHES"), "%s", out);
    free(out);
}

Test(order, two_service_rows_swapped_are_one_mismatch, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    /* request 3's row (answer 2,000,151,039,000) on line 5, request 2's
     * (2,000,101,039,000) on line 6: named at line 6; line 7 (request 4)
     * follows line 6 again */
    syn_run r;
    closed_run(&r, "LLLLLLLLLLLL");
    cr_assert(r.v[2].req == 2 && r.v[3].req == 3);
    syn_vrow v = r.v[2];
    r.v[2] = r.v[3];
    r.v[3] = v;
    write_study(&r);
    char *out = o_verify(1);
    EXPECT_LINE(out, "MISMATCH Z-capacity-r1 service.tsv.gz:6 answer_t: lab 2000101039000 (request 2), verify at or "
                     "after 2000151039000 - 999, the answer_t of request 3 (service.tsv.gz:5) above it: the rows are "
                     "in the order the answers were written\n");
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
}

/* request 11 answered K (the service stopped waiting at 25 ms) and its
 * store row still in its slot at the stop: outcome P, no end_t */
static void pending_run(syn_run *r)
{
    closed_run(r, "LLLLLLLLLLLK");
    cr_assert(r->s[11].req == 11);
    r->s[11].outcome = 'P';
    r->s[11].has_end = 0;
}

Test(order, an_unfinished_lookup_comes_last, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    /* last (line 14): passes */
    syn_run r;
    pending_run(&r);
    write_study(&r);
    char *out = o_verify(0);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    free(out);
    /* first (line 3): named once, at the first row with an end_t after it
     * (request 0's, ending at t0 + 1,026 µs) */
    th_rmrf(o_root);
    cr_assert_eq(syn_mkdirs(o_root), 0);
    pending_run(&r);
    syn_srow p = r.s[11];
    memmove(&r.s[1], &r.s[0], 11 * sizeof *r.s);
    r.s[0] = p;
    write_study(&r);
    out = o_verify(1);
    EXPECT_LINE(out, "MISMATCH Z-capacity-r1 store.tsv.gz:4 end_t: lab 2000001026000 (request 0, attempt 0), verify a "
                     "row with end_t before store.tsv.gz:3, the first without one: unfinished lookups come last\n");
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
}

Test(order, a_service_answer_before_the_lookup_it_used_is_named, .init = o_setup, .fini = o_teardown,
     .timeout = 60)
{
    /* request 3's service answer_t 2 µs before its a0_end_t (S_3 + 1,033 µs
     * against S_3 + 1,035 µs, S_3 = 2,000,150,000,000); the tester's answer
     * stays after both */
    syn_run r;
    closed_run(&r, "LLLLLLLLLLLL");
    cr_assert(r.v[3].req == 3 && r.v[3].a_out[0] == 'A');
    r.v[3].answer = r.v[3].a_end[0] - 2 * US;
    write_study(&r);
    char *out = o_verify(1);
    EXPECT_LINE(out, "MISMATCH Z-capacity-r1 service.tsv.gz:6 answer_t: lab 2000151033000 (request 3), verify at or "
                     "after 2000151035000 - 999, its a0_end_t (the answer it used)\n");
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
}

Test(order, a_service_arrival_before_the_tester_sent_is_named, .init = o_setup, .fini = o_teardown, .timeout = 60)
{
    /* request 3's service row arrives 2 µs before the tester sent it (the
     * message naming the tester's line is built only for such a row:
     * crossfile.c) */
    syn_run r;
    closed_run(&r, "LLLLLLLLLLLL");
    cr_assert(r.v[3].req == 3);
    long long send = r.t[3].send;
    r.v[3].arrive = send - 2 * US;
    write_study(&r);
    char *out = o_verify(1);
    char want[256];
    snprintf(want, sizeof want,
             "MISMATCH Z-capacity-r1 service.tsv.gz:6 arrive_t: lab %lld (request 3), verify at or after %lld, the "
             "tester's send_t (tester.tsv.gz:6)\n",
             send - 2 * US, send);
    EXPECT_LINE(out, want);
    free(out);
}
