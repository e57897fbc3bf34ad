/* The store's fault scenarios (lab/core/faults.h), end to end: a real
 * build/bin/store on loopback with a short schedule (--seconds 0.6: the
 * window is [200 ms, 400 ms) from t0), told t0 by a clock frame
 * (lab/core/wire.h) on a connection of its own, as the tester does.  Each test
 * checks the answers' statuses as they come and, after SIGTERM, every row of
 * store.tsv.gz against the rule of lab/RAWFORMAT.md "Fault scenarios".
 *
 * The clock frame has no answer; to know the store has read it, the test
 * sends a lookup of an unknown row after it on the same connection and
 * waits for that answer (frames of one connection are read in order).  A
 * clock frame's t0 may lie in the past, so a test starts inside its window
 * without waiting for it.  Times never early are always asserted; "soon
 * after" bounds are the machine's too, so a scenario that was only late is
 * run again (st_retry, tests/common/storeproc.h).
 *
 * The dice's reference lists (flaky requests, missing rows) are the ones
 * computed outside the lab in tests/lab/test_faults.c. */
#include "storeproc.h"

#include "faults.h"

#define WIN_FROM (200 * MS) /* --seconds 0.6: [S/3, 2S/3) */
#define WIN_TO (400 * MS)
#define HS_REQ 900000u /* the handshakes' request ids */

static const char *const sf_down[] = {"--fault", "down", "--seconds", "0.6", NULL};
static const char *const sf_never[] = {"--fault", "never", "--seconds", "0.6", NULL};
static const char *const sf_hang[] = {"--fault", "hang", "--seconds", "0.6", NULL};
static const char *const sf_hang30[] = {"--fault", "hang", "--seconds", "30", NULL};
static const char *const sf_reset[] = {"--fault", "reset", "--seconds", "0.6", NULL};
static const char *const sf_flaky[] = {"--fault", "flaky", NULL};
static const char *const sf_missing[] = {"--fault", "missing", NULL};

static void sf_sleep_until(int64_t t)
{
    struct timespec ts = {.tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* Tell the store t0 on fd, and wait until it has read it. */
static void sf_clock(int fd, int64_t t0, uint32_t hs)
{
    unsigned char b[2 * WIRE_REQ_SIZE];
    wire_put_clock(b, t0);
    st_put(b + WIRE_REQ_SIZE, 1000000, hs, 0, 0, hs);
    st_send_all(fd, b, sizeof b);
    st_await_tag(fd, hs);
}

/* One lookup, and its answer (within 5 s). */
static wire_ans sf_ask(int fd, uint32_t row, uint32_t req, uint16_t attempt)
{
    unsigned char b[WIRE_REQ_SIZE];
    st_put(b, row, req, attempt, 0, req);
    st_send_all(fd, b, sizeof b);
    wire_ans a;
    cr_assert_eq(st_recv(fd, &a, 5000), 0, "no answer to lookup %u", req);
    cr_assert_eq(a.tag, req);
    return a;
}

static void sf_zeros(const wire_ans *a)
{
    for (int k = 0; k < WIRE_NFEAT; k++)
        cr_assert_eq(a->x[k], 0.0f, "an error answer carries no features");
}

/* A phase planned at [lo, hi) from t0 ran at t_rel: late if beyond. */
static void sf_phase(int64_t t_rel, int64_t lo, int64_t hi, const char *what)
{
    cr_assert_geq(t_rel, lo, "%s ran early", what);
    st_upper(t_rel, hi, what);
}

static char *sf_stderr(const st_proc *p)
{
    static char msg[2048];
    FILE *f = fopen(p->errp, "r");
    cr_assert_not_null(f);
    size_t k = fread(msg, 1, sizeof msg - 1, f);
    msg[k] = '\0';
    fclose(f);
    return msg;
}

TestSuite(store_fault, .timeout = 60, .fini = st_fini);

/* ---------- down, never ---------- */

static void sf_down_run(void)
{
    st_proc p;
    st_start_x(&p, "F", 16, "0.01", 1, ST_NROWS, sf_down);
    int c = st_connect(p.port), k = st_connect(p.port);
    wire_ans a = sf_ask(c, 1, 1, 0); /* t0 not known yet: no window */
    st_check_features(&a, 1);
    int64_t t0 = st_now() - 300 * MS; /* lookup 1 came at about 300 ms: in the window, had t0 been known */
    sf_clock(k, t0, HS_REQ);
    a = sf_ask(c, 2, 2, 0);
    cr_assert_eq(a.status, WIRE_UNAVAILABLE);
    sf_zeros(&a);
    a = sf_ask(c, ST_NROWS + 3, 3, 0);
    cr_assert_eq(a.status, WIRE_UNKNOWN_ROW, "the unknown-row check comes first");
    sf_clock(k, st_now(), HS_REQ + 1); /* a second t0 is ignored */
    a = sf_ask(c, 4, 4, 1);
    cr_assert_eq(a.status, WIRE_UNAVAILABLE, "the first t0 counts");
    sf_phase(st_now() - t0, 300 * MS, WIN_TO, "the lookups in the window");
    sf_sleep_until(t0 + WIN_TO + 50 * MS);
    a = sf_ask(c, 5, 5, 0);
    st_check_features(&a, 5);
    close(c);
    close(k);
    cr_assert_eq(st_stop(&p), 0);
    cr_assert_not_null(strstr(sf_stderr(&p), "a second clock frame"), "%s", sf_stderr(&p));

    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 7, "5 lookups and 2 handshakes");
    st_check_order(r, n);
    const char want[6] = {0, 'A', 'E', 'U', 'E', 'A'};
    for (int q = 1; q <= 5; q++) {
        const st_rec *x = st_find(r, n, q, q == 4);
        cr_assert_eq(x->outcome, want[q], "lookup %d: %c", q, x->outcome);
        cr_assert_eq(x->planned, 2 * MS, "the dice are logged as usual");
        if (x->outcome == 'E') {
            cr_assert_not(x->has_start, "no slot");
            cr_assert_eq(x->end, x->arrive, "answered at once");
            cr_assert(x->arrive - t0 >= WIN_FROM && x->arrive - t0 < WIN_TO);
        }
    }
    const st_rec *x1 = st_find(r, n, 1, 0), *x5 = st_find(r, n, 5, 0);
    /* lookup 1 arrived at about t0 + 300 ms: in the window but for t0 */
    cr_assert_lt(x1->arrive - t0, 300 * MS);
    st_upper(t0 + 300 * MS - x1->arrive, 100 * MS, "the clock frame after lookup 1");
    cr_assert_geq(x5->arrive - t0, WIN_TO);
    cr_assert(x5->has_start && x5->end - x5->start >= 2 * MS);
    free(r);
    st_cleanup(&p);
}

Test(store_fault, down_answers_unavailable_in_the_window_only) { st_retry(sf_down_run, "down"); }

static void sf_never_run(void)
{
    st_proc p;
    st_start_x(&p, "F", 16, "0.01", 2, ST_NROWS, sf_never);
    int c = st_connect(p.port), k = st_connect(p.port);
    int64_t t0 = st_now() - 100 * MS;
    sf_clock(k, t0, HS_REQ);
    wire_ans a = sf_ask(c, 1, 1, 0);
    st_check_features(&a, 1);
    sf_phase(st_now() - t0, 100 * MS, WIN_FROM, "the lookup before the window");
    sf_sleep_until(t0 + 700 * MS); /* past 2S/3 and past S itself */
    a = sf_ask(c, 2, 2, 0);
    cr_assert_eq(a.status, WIRE_UNAVAILABLE, "never: down to the end");
    close(c);
    close(k);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 3);
    st_check_order(r, n);
    cr_assert_eq(st_find(r, n, 1, 0)->outcome, 'A');
    const st_rec *x = st_find(r, n, 2, 0);
    cr_assert_eq(x->outcome, 'E');
    cr_assert_geq(x->arrive - t0, 700 * MS);
    cr_assert_not(x->has_start);
    free(r);
    st_cleanup(&p);
}

Test(store_fault, never_stays_down_past_the_schedule) { st_retry(sf_never_run, "never"); }

/* ---------- hang ---------- */

static void sf_hang_run(void)
{
    st_proc p;
    st_start_x(&p, "F", 1, "0.01", 1, ST_NROWS, sf_hang);
    int c = st_connect(p.port), k = st_connect(p.port), d = st_connect(p.port);
    int64_t t0 = st_now() - 150 * MS;
    sf_clock(k, t0, HS_REQ);
    wire_ans a = sf_ask(c, 1, 1, 0);
    st_check_features(&a, 1);
    sf_sleep_until(t0 + 250 * MS);
    unsigned char b[3 * WIRE_REQ_SIZE];
    st_put(b, 4, 4, 0, 0, 4); /* on a connection its peer closes: held all the same */
    st_send_all(d, b, WIRE_REQ_SIZE);
    st_put(b, 2, 2, 0, 0, 2);
    st_put(b + WIRE_REQ_SIZE, 3, 3, 1, 5 * MS, 3); /* its budget does not free it */
    st_put(b + 2 * WIRE_REQ_SIZE, ST_NROWS + 9, 9, 0, 0, 9);
    st_send_all(c, b, sizeof b);
    st_await_tag(c, 9); /* unknown rows are answered at once, even in a hang */
    close(d);
    sf_phase(st_now() - t0, 250 * MS, 350 * MS, "sending into the window");
    int64_t got[2];
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(st_recv(c, &a, 3000), 0, "a held lookup is answered when the window ends");
        got[i] = st_now() - t0;
        cr_assert_eq(a.tag, (uint64_t)(2 + i), "in order of arrival");
        cr_assert_eq(a.status, WIRE_UNAVAILABLE);
        sf_zeros(&a);
        cr_assert_geq(got[i], WIN_TO, "answered %lld ns after t0: before the window's end",
                      (long long)got[i]);
        st_upper(got[i], WIN_TO + 30 * MS, "a held lookup's answer");
    }
    sf_sleep_until(t0 + WIN_TO + 50 * MS);
    a = sf_ask(c, 5, 5, 0);
    st_check_features(&a, 5);
    close(c);
    close(k);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 7);
    st_check_order(r, n);
    const st_rec *h2 = st_find(r, n, 2, 0);
    for (int q = 2; q <= 4; q++) {
        const st_rec *x = st_find(r, n, q, q == 3);
        cr_assert_eq(x->outcome, 'H', "lookup %d: %c", q, x->outcome);
        cr_assert_not(x->has_start, "held: no slot");
        cr_assert_eq(x->busy, 0, "the held before it hold no slot");
        cr_assert_eq(x->line, 0);
        cr_assert_eq(x->planned, 2 * MS);
        cr_assert(x->arrive - t0 >= WIN_FROM && x->arrive - t0 < WIN_TO);
        cr_assert_eq(x->end, h2->end, "all released at once");
    }
    cr_assert_geq(h2->end - t0, WIN_TO, "released at the window's end, not before");
    cr_assert_eq(st_find(r, n, 1, 0)->outcome, 'A');
    cr_assert_eq(st_find(r, n, 9, 0)->outcome, 'U');
    const st_rec *x5 = st_find(r, n, 5, 0);
    cr_assert_eq(x5->outcome, 'A');
    cr_assert_eq(x5->start, x5->arrive, "the one slot is free");
    free(r);
    st_cleanup(&p);
}

Test(store_fault, hang_holds_until_the_window_ends) { st_retry(sf_hang_run, "hang"); }

Test(store_fault, hang_unreleased_at_stop_is_pending)
{
    st_proc p;
    st_start_x(&p, "F", 16, "0.01", 1, ST_NROWS, sf_hang30); /* window [10 s, 20 s) */
    int c = st_connect(p.port);
    int64_t t0 = st_now() - 11000 * MS;
    sf_clock(c, t0, HS_REQ);
    unsigned char b[2 * WIRE_REQ_SIZE];
    st_put(b, 1, 1, 0, 0, 1);
    st_put(b + WIRE_REQ_SIZE, ST_NROWS, 2, 0, 0, 2);
    st_send_all(c, b, sizeof b);
    st_await_tag(c, 2);
    cr_assert_eq(st_stop(&p), 0);
    close(c);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 3);
    st_check_order(r, n);
    cr_assert_eq(r[2].req, 1);
    cr_assert_eq(r[2].outcome, 'P');
    cr_assert_not(r[2].has_start);
    cr_assert_not(r[2].has_end);
    free(r);
    st_cleanup(&p);
}

/* ---------- reset ---------- */

/* Connect to the port: the fd, or -errno. */
static int sf_try_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return fd;
    int e = errno;
    close(fd);
    return -e;
}

/* Wait (up to 3 s) until the store closes fd: when, from t0. */
static int64_t sf_closed_at(int fd, int64_t t0)
{
    wire_ans a;
    int rc = st_recv(fd, &a, 3000);
    cr_assert(rc == 1 || rc == -2, "the connection must be closed, not answered (got %d)", rc);
    return st_now() - t0;
}

static void sf_reset_run(void)
{
    st_proc p;
    st_start_x(&p, "H", 1, "1", 2, ST_NROWS, sf_reset); /* every lookup freezes 1 to 2 s */
    int c = st_connect(p.port), k = st_connect(p.port);
    int64_t t0 = st_now() - 100 * MS;
    sf_clock(k, t0, HS_REQ);
    unsigned char b[3 * WIRE_REQ_SIZE];
    st_put(b, 1, 1, 0, 0, 1);                                /* takes the one slot */
    st_put(b + WIRE_REQ_SIZE, 2, 2, 1, 0, 2);                /* waits in line */
    st_put(b + 2 * WIRE_REQ_SIZE, ST_NROWS + 3, 3, 0, 0, 3); /* handshake */
    st_send_all(c, b, sizeof b);
    st_await_tag(c, 3);
    sf_phase(st_now() - t0, 100 * MS, 180 * MS, "the lookups before the window");
    int64_t cut = sf_closed_at(c, t0), cut_k = sf_closed_at(k, t0);
    cr_assert_geq(cut, WIN_FROM, "closed %lld ns after t0: before the window", (long long)cut);
    cr_assert_geq(cut_k, WIN_FROM);
    st_upper(cut, WIN_FROM + 30 * MS, "the close at the window's start");
    close(c);
    close(k);
    sf_sleep_until(t0 + 300 * MS);
    int e = sf_try_connect(p.port);
    cr_assert_eq(e, -ECONNREFUSED, "a connect inside the window is refused (got %d)", e);
    int fd;
    int64_t tried;
    do { /* every ms until the store listens again */
        tried = st_now() - t0;
        cr_assert_lt(tried, 3000 * MS, "the store never listened again");
        fd = sf_try_connect(p.port);
        if (fd < 0) {
            cr_assert_eq(fd, -ECONNREFUSED);
            sf_sleep_until(st_now() + MS);
        }
    } while (fd < 0);
    int64_t back = st_now() - t0;
    cr_assert_geq(back, WIN_TO, "connected %lld ns after t0: inside the window", (long long)back);
    st_upper(tried, WIN_TO + 30 * MS, "listening again at the window's end");
    wire_ans a = sf_ask(fd, 4, 4, 0); /* a freeze: 1 to 2 s */
    st_check_features(&a, 4);
    close(fd);
    cr_assert_eq(st_stop(&p), 0);

    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, 5);
    st_check_order(r, n);
    const st_rec *x1 = st_find(r, n, 1, 0), *x2 = st_find(r, n, 2, 1), *x4 = st_find(r, n, 4, 0);
    cr_assert_eq(x1->outcome, 'R');
    cr_assert(x1->has_start && x1->start == x1->arrive, "lookup 1 was in its slot");
    cr_assert_eq(x2->outcome, 'R');
    cr_assert_not(x2->has_start, "lookup 2 was in line");
    cr_assert_eq(x2->line, 0);
    cr_assert_eq(x2->busy, 1);
    cr_assert_eq(x1->end, x2->end, "both cut at once");
    cr_assert_geq(x1->end - t0, WIN_FROM, "cut at the window's start, not before");
    cr_assert_leq(x1->end - t0, cut, "cut before the client saw its connection close");
    cr_assert_eq(x4->outcome, 'A');
    cr_assert_eq(x4->busy, 0, "the cut lookups' slot is free");
    cr_assert_eq(x4->line, 0);
    cr_assert_eq(x4->start, x4->arrive);
    cr_assert_geq(x4->end - x4->start, x4->planned);
    for (size_t i = 0; i < n; i++)
        cr_assert(r[i].arrive - t0 < WIN_FROM || r[i].arrive - t0 >= WIN_TO, "row %zu arrived in the window", i);
    free(r);
    st_cleanup(&p);
}

Test(store_fault, reset_closes_refuses_then_accepts) { st_retry(sf_reset_run, "reset"); }

/* ---------- flaky, missing: the dice, equal across arms ---------- */

/* Outcome per (req, attempt) of one store process fed `nl` lookups
 * (req[i], att[i], row[i]), over `nconn` connections taking turns. */
static void sf_arm(const char *const *fault, uint32_t round, int nrows, const uint32_t *req, const uint16_t *att,
                   const uint32_t *row, int nl, int nconn, char *out)
{
    st_proc p;
    st_start_x(&p, "Z", 16, "0.01", round, nrows, fault);
    int fd[2] = {st_connect(p.port), st_connect(p.port)};
    for (int i = 0; i < nl; i++) {
        wire_ans a = sf_ask(fd[i % nconn], row[i], req[i], att[i]);
        int ok = a.status == WIRE_OK, e = a.status == WIRE_UNAVAILABLE, nf = a.status == WIRE_NOT_FOUND;
        cr_assert(ok || e || nf, "lookup %u: status %u", req[i], a.status);
        if (ok)
            st_check_features(&a, row[i] % ST_NROWS);
        else
            sf_zeros(&a);
        out[i] = ok ? 'A' : e ? 'E' : 'N';
    }
    close(fd[0]);
    close(fd[1]);
    cr_assert_eq(st_stop(&p), 0);
    st_rec *r;
    size_t n = st_read_log(p.log, &r);
    cr_assert_eq(n, (size_t)nl);
    st_check_order(r, n);
    for (int i = 0; i < nl; i++) {
        const st_rec *x = st_find(r, n, req[i], att[i]);
        cr_assert_eq(x->outcome, out[i], "lookup (%u, %u): logged %c, answered %c", req[i], att[i], x->outcome,
                     out[i]);
        cr_assert_eq(x->row, row[i]);
        if (out[i] != 'A')
            cr_assert(!x->has_start && x->end == x->arrive, "answered at once, no slot");
    }
    free(r);
    st_cleanup(&p);
}

Test(store_fault, flaky_follows_the_dice_equal_across_arms)
{
    static const uint32_t r1a0[] = {3, 7, 29, 31, 46, 61, 63, 79, 101, 125, 148, 158, 159, 178, 183};
    static const uint32_t r1a1[] = {7, 25, 34, 60, 79, 174, 179, 185};
    static const uint32_t r2a0[] = {15, 20, 26, 36, 58, 149, 166, 177};
    enum { NL = 400 };
    uint32_t req[NL], row[NL], req_b[NL], row_b[NL];
    uint16_t att[NL], att_b[NL];
    for (int i = 0; i < NL; i++) {
        req[i] = (uint32_t)(i % 200);
        att[i] = (uint16_t)(i / 200);
        row[i] = req[i] % ST_NROWS;
        req_b[NL - 1 - i] = req[i]; /* arm B: the same lookups backwards */
        att_b[NL - 1 - i] = att[i];
        row_b[NL - 1 - i] = (req[i] + 1) % ST_NROWS; /* and other rows: the row is no key */
    }
    char a[NL], bk[NL], c[NL];
    sf_arm(sf_flaky, 1, ST_NROWS, req, att, row, NL, 1, a); /* no clock frame: flaky needs no t0 */
    sf_arm(sf_flaky, 1, ST_NROWS, req_b, att_b, row_b, NL, 2, bk);
    sf_arm(sf_flaky, 2, ST_NROWS, req, att, row, 200, 1, c);
    fault_spec f = {FAULT_FLAKY, -1, -1};
    fault_window w = {-1, -1};
    size_t h1 = 0, h2 = 0, h3 = 0;
    for (int i = 0; i < NL; i++) {
        int want;
        if (att[i] == 0) {
            want = h1 < 15 && r1a0[h1] == req[i];
            h1 += want;
        } else {
            want = h2 < 8 && r1a1[h2] == req[i];
            h2 += want;
        }
        cr_assert_eq(a[i], want ? 'E' : 'A', "round 1 lookup (%u, %u)", req[i], att[i]);
        cr_assert_eq(bk[NL - 1 - i], a[i], "arm B differs on lookup (%u, %u)", req[i], att[i]);
        cr_assert_eq(fault_lookup(&f, &w, 1, req[i], att[i], row[i], INT64_MIN) == FAULT_UNAVAILABLE, want);
        if (i < 200) {
            int w2 = h3 < 8 && r2a0[h3] == req[i];
            h3 += w2;
            cr_assert_eq(c[i], w2 ? 'E' : 'A', "round 2 lookup %u", req[i]);
        }
    }
    cr_assert(h1 == 15 && h2 == 8 && h3 == 8);
}

Test(store_fault, missing_rows_are_the_same_in_every_round_and_arm)
{
    static const uint32_t miss[] = {0, 67, 175, 243, 268, 302, 314, 348, 363, 367};
    enum { NR = 400 };
    uint32_t req[NR], row[NR], req_b[NR], row_b[NR];
    uint16_t att[NR], att_b[NR];
    for (int i = 0; i < NR; i++) {
        row[i] = (uint32_t)i;
        req[i] = 1000 + (uint32_t)i;
        att[i] = 0;
        row_b[i] = (uint32_t)(NR - 1 - i); /* another round, another order, other requests */
        req_b[i] = 5000 + (uint32_t)i;
        att_b[i] = 2;
    }
    char a[NR], bk[NR];
    sf_arm(sf_missing, 1, NR, req, att, row, NR, 1, a);
    sf_arm(sf_missing, 3, NR, req_b, att_b, row_b, NR, 2, bk);
    size_t h = 0;
    for (int i = 0; i < NR; i++) {
        int want = h < 10 && miss[h] == (uint32_t)i;
        h += want;
        cr_assert_eq(a[i], want ? 'N' : 'A', "row %d", i);
        cr_assert_eq(bk[NR - 1 - i], a[i], "row %d differs in round 3", i);
        cr_assert_eq(fault_row_missing((uint32_t)i), want);
    }
    cr_assert_eq(h, 10);
}

/* ---------- bad input ---------- */

static void sf_refused(const char *const *args, const char *want1, const char *want2)
{
    st_proc p;
    st_mkdir(&p);
    st_write_table(&p);
    p.extra = args;
    pid_t pid = st_spawn(&p, "F", "16", "0.01", "1", -1);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s %s: exit 2", args[0], args[1]);
    const char *msg = sf_stderr(&p);
    cr_assert_not_null(strstr(msg, want1), "%s", msg);
    cr_assert_not_null(strstr(msg, want2), "%s", msg);
    st_cleanup(&p);
}

Test(store_fault, bad_fault_or_seconds_is_exit_2_naming_the_option)
{
    sf_refused((const char *const[]){"--fault", "bogus", "--seconds", "1", NULL}, "--fault", "'bogus'");
    sf_refused((const char *const[]){"--fault", "down@0.5-0.2", "--seconds", "1", NULL}, "--fault", "empty");
    sf_refused((const char *const[]){"--fault", "flaky@0.1-0.2", NULL}, "--fault", "no window");
    sf_refused((const char *const[]){"--fault", "down", NULL}, "--seconds", "required");
    sf_refused((const char *const[]){"--fault", "reset", "--seconds", "0", NULL}, "--seconds", "0");
    sf_refused((const char *const[]){"--fault", "hang", "--seconds", "x", NULL}, "--seconds", "x");
}

Test(store_fault, clock_frame_with_a_bad_t0_closes_only_that_connection)
{
    st_proc p;
    st_start_x(&p, "Z", 16, "0.01", 1, ST_NROWS, sf_down);
    int c1 = st_connect(p.port), c2 = st_connect(p.port);
    unsigned char b[WIRE_REQ_SIZE];
    wire_put_clock(b, -5);
    st_send_all(c1, b, sizeof b);
    wire_ans a;
    int rc = st_recv(c1, &a, 3000);
    cr_assert(rc == 1 || rc == -2, "connection 1 must be closed (got %d)", rc);
    close(c1);
    int64_t t0 = st_now() - 300 * MS; /* c2 still works, and a good t0 still counts */
    sf_clock(c2, t0, HS_REQ);
    a = sf_ask(c2, 1, 1, 0);
    cr_assert_eq(a.status, WIRE_UNAVAILABLE);
    close(c2);
    cr_assert_eq(st_stop(&p), 0);
    cr_assert_not_null(strstr(sf_stderr(&p), "a clock frame with t0 -5"), "%s", sf_stderr(&p));
    st_cleanup(&p);
}
