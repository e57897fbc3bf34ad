/* The feature store, end to end: build/bin/store runs as a child process on a
 * small table in a fresh folder; a blocking client speaks lab/core/wire.h to it;
 * after SIGTERM its store.tsv.gz is read back with zlib and decoded from
 * lab/RAWFORMAT.md alone (delta-encoded time columns), and every row is
 * checked against what was sent, the dice (waits_planned_ns) and the clock.
 * The toolkit is tests/common/storeproc.h; the fault scenarios are in
 * tests/lab/test_storefault.c.  Run from the repository root. */
#include "storeproc.h"

TestSuite(store, .timeout = 60, .fini = st_fini);

Test(store, multiplexed_lookups_planned_waits_and_one_row_each)
{
    st_proc p;
    st_start(&p, "L", 16, "0.01", 3);
    int fd = st_connect(p.port);
    enum { N = 40, U = 2 };
    unsigned char b[(N + U) * WIRE_REQ_SIZE];
    for (int i = 0; i < N + U; i++) {
        uint32_t row = i < N ? (uint32_t)(i % ST_NROWS) : (uint32_t)(ST_NROWS + i);
        st_put(b + i * WIRE_REQ_SIZE, row, 5000 + (uint32_t)i, (uint16_t)(i % 3), 0,
               0xabc000000ULL + (uint64_t)i);
    }
    st_send_all(fd, b, sizeof b);
    int seen[N + U] = {0}, in_order = 1;
    for (int i = 0; i < N + U; i++) {
        wire_ans a;
        cr_assert_eq(st_recv(fd, &a, 3000), 0, "answer %d of %d", i, N + U);
        cr_assert_geq(a.tag, 0xabc000000ULL);
        int k = (int)(a.tag - 0xabc000000ULL);
        cr_assert_lt(k, N + U);
        cr_assert_not(seen[k], "tag %d answered twice", k);
        seen[k] = 1;
        in_order &= k == i;
        if (k < N) {
            st_check_features(&a, (uint32_t)(k % ST_NROWS));
        } else {
            cr_assert_eq(a.status, WIRE_UNKNOWN_ROW);
            for (int j = 0; j < 6; j++)
                cr_assert_eq(a.x[j], 0.0f);
        }
    }
    cr_assert_not(in_order, "lognormal waits must answer out of send order");
    close(fd);
    cr_assert_eq(st_stop(&p), 0);

    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, (size_t)(N + U), "%zu rows for %d lookups", n, N + U);
    st_check_order(r, n);
    for (int i = 0; i < N + U; i++) {
        const st_rec *x = st_find(r, n, 5000 + i, i % 3);
        cr_assert_eq(x->planned, waits_planned_ns(WAIT_L, 3, 5000 + (uint32_t)i,
                                                  (uint32_t)(i % 3)),
                     "planned_ns of lookup %d", i);
        cr_assert_eq(x->budget, 0);
        if (i < N) {
            cr_assert_eq(x->row, i % ST_NROWS);
            cr_assert_eq(x->outcome, 'A');
            cr_assert(x->has_start && x->has_end);
            cr_assert_geq(x->end - x->start, x->planned, "lookup %d left its slot early", i);
            cr_assert_leq(x->busy, 16);
        } else {
            cr_assert_eq(x->row, ST_NROWS + i);
            cr_assert_eq(x->outcome, 'U');
            cr_assert_not(x->has_start);
            cr_assert_eq(x->end, x->arrive, "an unknown row is answered at once");
        }
    }
    free(r);
    st_cleanup(&p);
}

static void st_fixed_wait(void)
{
    st_proc p;
    st_start(&p, "F", 16, "0.01", 1);
    int fd = st_connect(p.port);
    enum { N = 12 };
    unsigned char b[N * WIRE_REQ_SIZE];
    for (int i = 0; i < N; i++)
        st_put(b + i * WIRE_REQ_SIZE, (uint32_t)(i % ST_NROWS), (uint32_t)i, 0, 0, (uint64_t)i);
    st_send_all(fd, b, sizeof b);
    for (int i = 0; i < N; i++) {
        wire_ans a;
        cr_assert_eq(st_recv(fd, &a, 3000), 0);
        cr_assert_lt(a.tag, (uint64_t)N);
        st_check_features(&a, (uint32_t)(a.tag % ST_NROWS));
    }
    close(fd);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, (size_t)N);
    st_check_order(r, n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r[i].outcome, 'A');
        cr_assert_eq(r[i].planned, 2 * MS);
        cr_assert(r[i].has_start && r[i].has_end);
        int64_t slot = r[i].end - r[i].start;
        cr_assert_geq(slot, 2 * MS, "slot time %lld ns", (long long)slot);
        st_upper(slot, 5 * MS, "a 2 ms slot");
        cr_assert_eq(r[i].start, r[i].arrive, "16 slots: no line");
        cr_assert_eq(r[i].line, 0);
    }
    free(r);
    st_cleanup(&p);
}

static void st_fifo(void)
{
    st_proc p;
    st_start(&p, "F", 2, "0.01", 1);
    int fd = st_connect(p.port);
    enum { N = 6 };
    unsigned char b[N * WIRE_REQ_SIZE];
    for (int i = 0; i < N; i++)
        st_put(b + i * WIRE_REQ_SIZE, (uint32_t)i, (uint32_t)i, 0, 0, (uint64_t)i);
    st_send_all(fd, b, sizeof b);
    for (int i = 0; i < N; i++) {
        wire_ans a;
        cr_assert_eq(st_recv(fd, &a, 3000), 0);
        st_check_features(&a, (uint32_t)a.tag);
    }
    close(fd);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, (size_t)N);
    st_check_order(r, n);
    const st_rec *x[N];
    for (int i = 0; i < N; i++) {
        x[i] = st_find(r, n, i, 0);
        cr_assert_eq(x[i]->outcome, 'A');
        cr_assert_eq(x[i]->busy, i < 2 ? i : 2, "lookup %d: busy %lld", i, x[i]->busy);
        cr_assert_eq(x[i]->line, i < 2 ? 0 : i - 2, "lookup %d: line %lld", i, x[i]->line);
        int64_t slot = x[i]->end - x[i]->start;
        cr_assert_geq(slot, 2 * MS, "lookup %d: slot time %lld", i, (long long)slot);
        st_upper(slot, 5 * MS, "a 2 ms slot");
        if (i > 0)
            cr_assert_geq(x[i]->start, x[i - 1]->start, "FIFO: %d started before %d", i, i - 1);
    }
    cr_assert_eq(x[0]->start, x[0]->arrive);
    cr_assert_eq(x[1]->start, x[1]->arrive);
    /* each pair takes over the slots the previous pair frees, the moment they free */
    for (int i = 2; i < N; i += 2) {
        int64_t e1 = x[i - 2]->end, e2 = x[i - 1]->end;
        cr_assert_eq(x[i]->start, e1 < e2 ? e1 : e2, "lookup %d starts when a slot frees", i);
        cr_assert_eq(x[i + 1]->start, e1 < e2 ? e2 : e1, "lookup %d takes the other slot",
                     i + 1);
    }
    free(r);
    st_cleanup(&p);
}

static void st_budget(void)
{
    st_proc p;
    st_start(&p, "H", 1, "1", 2); /* every lookup freezes 1 to 2 s */
    int fd = st_connect(p.port);
    unsigned char b[3 * WIRE_REQ_SIZE];
    st_put(b, 1, 10, 0, 5 * MS, 100);                     /* A: slot, dropped at 5 ms */
    st_put(b + WIRE_REQ_SIZE, 2, 11, 1, 20 * MS, 101);    /* B: line, then A's slot */
    st_put(b + 2 * WIRE_REQ_SIZE, 3, 12, 2, 3 * MS, 102); /* C: dropped in line */
    int64_t t0 = st_now();
    st_send_all(fd, b, sizeof b);
    int64_t got[3];
    uint64_t order[3];
    for (int i = 0; i < 3; i++) {
        wire_ans a;
        cr_assert_eq(st_recv(fd, &a, 3000), 0);
        got[i] = st_now() - t0;
        order[i] = a.tag;
        cr_assert_eq(a.status, WIRE_DROPPED, "tag %llu", (unsigned long long)a.tag);
    }
    cr_assert_eq(order[0], 102);
    cr_assert_eq(order[1], 100);
    cr_assert_eq(order[2], 101);
    cr_assert_geq(got[1], 5 * MS, "A dropped after %lld ns", (long long)got[1]);
    cr_assert_geq(got[0], 3 * MS, "C dropped after %lld ns", (long long)got[0]);
    cr_assert_geq(got[2], 20 * MS, "B dropped after %lld ns", (long long)got[2]);
    st_upper(got[1], 8 * MS, "answer to A (budget 5 ms)");
    st_upper(got[0], 6 * MS, "answer to C (budget 3 ms)");
    st_upper(got[2], 23 * MS, "answer to B (budget 20 ms)");
    close(fd);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 3);
    st_check_order(r, n);
    const st_rec *A = st_find(r, n, 10, 0), *B = st_find(r, n, 11, 1), *C = st_find(r, n, 12, 2);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(r[i].outcome, 'D');
        cr_assert_eq(r[i].planned,
                     waits_planned_ns_p(WAIT_H, 1.0, 2, (uint32_t)r[i].req,
                                        (uint32_t)r[i].attempt));
        cr_assert_geq(r[i].planned, 1000 * MS, "a freeze is 1 to 2 s");
        cr_assert_leq(r[i].planned, 2000 * MS);
    }
    cr_assert_eq(A->budget, 5 * MS);
    cr_assert_eq(B->budget, 20 * MS);
    cr_assert_eq(C->budget, 3 * MS);
    cr_assert(A->has_start && A->start == A->arrive);
    cr_assert_geq(A->end - A->arrive, 5 * MS);
    st_upper(A->end - A->arrive, 8 * MS, "A's drop in the log");
    cr_assert_eq(B->line, 0);
    cr_assert_eq(B->busy, 1);
    cr_assert_eq(C->line, 1);
    cr_assert_eq(C->busy, 1);
    cr_assert(B->has_start, "B got the slot A freed");
    cr_assert_eq(B->start, A->end, "B starts the moment A is dropped");
    cr_assert_geq(B->end - B->arrive, 20 * MS);
    st_upper(B->end - B->arrive, 23 * MS, "B's drop in the log");
    cr_assert_not(C->has_start, "C's deadline passed in line: it never had a slot");
    cr_assert_geq(C->end - C->arrive, 3 * MS);
    st_upper(C->end - C->arrive, 6 * MS, "C's drop in the log");
    free(r);
    st_cleanup(&p);
}

Test(store, fixed_wait_holds_the_slot_2ms) { st_retry(st_fixed_wait, "fixed wait"); }
Test(store, full_slots_make_a_fifo_line) { st_retry(st_fifo, "fifo line"); }
Test(store, budget_drops_in_slot_and_in_line_and_frees_the_slot)
{
    st_retry(st_budget, "budget");
}

Test(store, bad_magic_closes_only_that_connection)
{
    st_proc p;
    st_start(&p, "Z", 16, "0.01", 1);
    int c1 = st_connect(p.port), c2 = st_connect(p.port);
    unsigned char b[2 * WIRE_REQ_SIZE];
    st_put(b, 4, 1, 0, 0, 7);
    st_put(b + WIRE_REQ_SIZE, 4, 2, 0, 0, 8);
    uint32_t bad = 0xdeadbeefu;
    memcpy(b + WIRE_REQ_SIZE, &bad, 4);
    st_send_all(c1, b, sizeof b);
    wire_ans a;
    cr_assert_eq(st_recv(c1, &a, 3000), 0, "the good frame before the bad one is answered");
    cr_assert_eq(a.tag, 7);
    st_check_features(&a, 4);
    int rc = st_recv(c1, &a, 3000);
    cr_assert(rc == 1 || rc == -2, "connection 1 must be closed (got %d)", rc);
    close(c1);
    for (int i = 0; i < 3; i++) {
        st_put(b, (uint32_t)i, 100 + (uint32_t)i, 0, 0, 200 + (uint64_t)i);
        st_send_all(c2, b, WIRE_REQ_SIZE);
        cr_assert_eq(st_recv(c2, &a, 3000), 0, "connection 2 still answered");
        cr_assert_eq(a.tag, 200 + (uint64_t)i);
        st_check_features(&a, (uint32_t)i);
    }
    close(c2);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 4, "the bad frame is no lookup");
    st_check_order(r, n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r[i].outcome, 'A');
        cr_assert_eq(r[i].planned, 0);
        cr_assert_eq(r[i].start, r[i].arrive);
        cr_assert_eq(r[i].end, r[i].arrive, "a zero wait ends at once");
    }
    free(r);
    FILE *f = fopen(p.errp, "r");
    cr_assert_not_null(f);
    char msg[512] = "";
    size_t k = fread(msg, 1, sizeof msg - 1, f);
    msg[k] = '\0';
    fclose(f);
    cr_assert_not_null(strstr(msg, "bad magic 0xdeadbeef"), "stderr: %s", msg);
    cr_assert_not_null(strstr(msg, "connection 0 (127.0.0.1:"), "stderr: %s", msg);
    cr_assert_eq(strchr(msg, '\n') - msg + 1, (long)k, "one line: %s", msg);
    st_cleanup(&p);
}

Test(store, closed_peer_lookups_still_take_their_slot)
{
    st_proc p;
    st_start(&p, "F", 1, "0.01", 1);
    int c1 = st_connect(p.port);
    unsigned char b[5 * WIRE_REQ_SIZE];
    for (int i = 0; i < 4; i++)
        st_put(b + i * WIRE_REQ_SIZE, 0, (uint32_t)i, 0, 0, (uint64_t)i);
    /* A lookup of an unknown row is answered at once: once its answer is
     * back, the store has taken the four before it (a handshake, not a
     * sleep). */
    st_put(b + 4 * WIRE_REQ_SIZE, ST_NROWS + 1, 99, 0, 0, 99);
    st_send_all(c1, b, sizeof b);
    st_await_tag(c1, 99);
    close(c1); /* its answers have nowhere to go */
    int c2 = st_connect(p.port);
    st_put(b, 5, 9, 0, 0, 9);
    st_send_all(c2, b, WIRE_REQ_SIZE);
    wire_ans a;
    cr_assert_eq(st_recv(c2, &a, 3000), 0);
    cr_assert_eq(a.tag, 9);
    st_check_features(&a, 5);
    close(c2);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 6);
    st_check_order(r, n);
    for (size_t i = 0; i < n; i++) {
        if (r[i].req == 99) {
            cr_assert_eq(r[i].outcome, 'U');
            continue;
        }
        cr_assert_eq(r[i].outcome, 'A');
        cr_assert_geq(r[i].end - r[i].start, 2 * MS);
    }
    const st_rec *x = st_find(r, n, 9, 0);
    /* the closed peer's lookups still held the slot and the line */
    int in_line = 0;
    for (int i = 0; i < 4; i++) {
        const st_rec *y = st_find(r, n, i, 0);
        cr_assert_lt(y->arrive, x->arrive, "the first connection's data came first");
        in_line += y->start > x->arrive;
    }
    cr_assert_geq(in_line, 1);
    cr_assert_eq(x->line, in_line);
    cr_assert_eq(x->busy, 1);
    cr_assert_eq(x->start, st_find(r, n, 3, 0)->end, "FIFO across connections");
    free(r);
    st_cleanup(&p);
}

Test(store, stop_logs_pending_lookups_last)
{
    st_proc p;
    st_start(&p, "H", 2, "1", 4);
    int c1 = st_connect(p.port), c2 = st_connect(p.port);
    unsigned char b[4 * WIRE_REQ_SIZE];
    for (int i = 0; i < 3; i++)
        st_put(b + i * WIRE_REQ_SIZE, (uint32_t)i, 20 + (uint32_t)i, 0, 0, (uint64_t)i);
    /* handshake: the unknown row's answer means the three are taken */
    st_put(b + 3 * WIRE_REQ_SIZE, ST_NROWS + 5, 98, 0, 0, 98);
    st_send_all(c1, b, sizeof b);
    st_await_tag(c1, 98);
    st_put(b, 0, 30, 0, 4 * MS, 30);
    st_send_all(c2, b, WIRE_REQ_SIZE);
    wire_ans a;
    cr_assert_eq(st_recv(c2, &a, 3000), 0);
    cr_assert_eq(a.status, WIRE_DROPPED);
    close(c1);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 5);
    st_check_order(r, n);
    cr_assert_eq(r[0].req, 98, "the unknown row ended first");
    cr_assert_eq(r[0].outcome, 'U');
    cr_assert_eq(r[1].req, 30);
    cr_assert_eq(r[1].outcome, 'D');
    cr_assert_not(r[1].has_start);
    cr_assert_eq(r[1].line, 1);
    for (int i = 2; i < 5; i++) { /* in order of arrival */
        cr_assert_eq(r[i].req, 20 + i - 2);
        cr_assert_eq(r[i].outcome, 'P');
        cr_assert_not(r[i].has_end);
        cr_assert_eq(r[i].has_start, i < 4, "two had slots, one was in line");
        cr_assert_eq(r[i].planned, waits_planned_ns_p(WAIT_H, 1.0, 4, 20 + (uint32_t)i - 2, 0));
    }
    free(r);
    /* nothing else left behind: table, log, stderr */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 3", p.dir);
    cr_assert_eq(system(cmd), 0, "spill or temporary files left in %s", p.dir);
    st_cleanup(&p);
}

/* 40 bytes on fd within timeout_ms: 0 and a drained frame, -1 nothing (or
 * something else) in time. */
static int recv_drained(int fd, int timeout_ms)
{
    unsigned char b[WIRE_ANS_SIZE];
    size_t n = 0;
    int64_t until = st_now() + (int64_t)timeout_ms * MS;
    while (n < sizeof b) {
        int left = (int)((until - st_now()) / MS);
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (left < 0 || poll(&pf, 1, left) <= 0)
            return -1;
        ssize_t k = recv(fd, b + n, sizeof b - n, 0);
        if (k <= 0)
            return -1;
        n += (size_t)k;
    }
    return wire_is_drained(b) ? 0 : -1;
}

/* The drain frame (lab/core/wire.h): answered at once by an idle store, and
 * by a busy one only once its last lookup has ended, so the run driver's
 * settling ends exactly when every slot's time is on record. */
Test(store, drain_answered_when_no_lookup_is_live)
{
    st_proc p;
    st_start(&p, "H", 2, "1", 4); /* every lookup freezes 1 to 2 s */
    unsigned char b[2 * WIRE_REQ_SIZE];
    int c0 = st_connect(p.port);
    wire_put_drain(b);
    st_send_all(c0, b, WIRE_REQ_SIZE);
    cr_assert_eq(recv_drained(c0, 500), 0, "an idle store says so at once");
    close(c0);

    int c1 = st_connect(p.port), c2 = st_connect(p.port);
    st_put(b, 0, 20, 0, 0, 20);
    st_put(b + WIRE_REQ_SIZE, ST_NROWS + 5, 98, 0, 0, 98); /* handshake: the lookup is taken */
    st_send_all(c1, b, sizeof b);
    st_await_tag(c1, 98);
    wire_put_drain(b);
    st_send_all(c2, b, WIRE_REQ_SIZE);
    int64_t asked = st_now();
    cr_assert_eq(recv_drained(c2, 300), -1, "not drained while the freeze holds its slot");
    wire_ans a;
    cr_assert_eq(st_recv(c1, &a, 3000), 0);
    cr_assert_eq(a.tag, 20);
    int64_t answered = st_now();
    cr_assert_eq(recv_drained(c2, 500), 0, "drained once the last lookup ended");
    int64_t planned = waits_planned_ns_p(WAIT_H, 1.0, 4, 20, 0);
    cr_assert_geq(planned, 1000 * MS, "the lookup froze");
    cr_assert_geq(answered - asked, 300 * MS);
    close(c1);
    close(c2);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 2, "the drain frames are no lookups");
    for (size_t i = 0; i < n; i++)
        cr_assert_neq(r[i].outcome, 'P', "nothing pending at the stop");
    free(r);
    st_cleanup(&p);
}

static void st_bad_table(const char *body, const char *want1, const char *want2)
{
    st_proc p;
    st_mkdir(&p);
    FILE *f = fopen(p.table, "w");
    cr_assert_not_null(f);
    fputs(body, f);
    fclose(f);
    pid_t pid = st_spawn(&p, "F", "16", "0.01", "1", -1);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status));
    cr_assert_eq(WEXITSTATUS(status), 2);
    f = fopen(p.errp, "r");
    char msg[512] = "";
    size_t k = fread(msg, 1, sizeof msg - 1, f);
    msg[k] = '\0';
    fclose(f);
    cr_assert_not_null(strstr(msg, p.table), "names the file: %s", msg);
    cr_assert_not_null(strstr(msg, want1), "%s", msg);
    cr_assert_not_null(strstr(msg, want2), "%s", msg);
    st_cleanup(&p);
}

#define ST_HDR "row\tcustomer\tcutoff\tlabel\trecency\torders_90\tspend_90\torders_365\tspend_365\ttenure\n"

Test(store, malformed_table_names_file_line_field)
{
    st_bad_table(ST_HDR "0\t1\t2011-01-01\t1\t3\t1\t10.5\t2\t20.25\t100\n"
                        "1\t2\t2011-01-01\t0\t3\t1\tabc\t2\t20.25\t100\n",
                 ".tsv:3: field spend_90 \"abc\"", "not a number");
    st_bad_table(ST_HDR "0\t1\t2011-01-01\t1\t3\t1\t10.5\t2\t20.25\t100\n"
                        "5\t2\t2011-01-01\t0\t3\t1\t1\t2\t20.25\t100\n",
                 ".tsv:3: field row \"5\"", "expected 1");
    st_bad_table(ST_HDR "0\t1\t2011-01-01\t1\t3\t1\t10.5\t2\t20.25\n", ".tsv:2:", "9 fields");
    st_bad_table("row\tcustomer\n", ".tsv:1:", "the header must be");
    /* the one grammar: a comment or an empty line is not a row */
    st_bad_table("# a comment\n" ST_HDR "\n", ".tsv", "no rows after the header");
}
