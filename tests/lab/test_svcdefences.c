/* The service's defences against real sockets (suite service, so that
 * tests/lab/test_asan.c runs them under the sanitizers too): the circuit
 * breaker against a fake store answering unavailable (opens after 5
 * failures, refuses without sending, half open after its cooldown, a failed
 * probe opens it again, 3 good probes close it; every change a row of
 * events.tsv.gz); two stores, each request's lookups on the store its row's
 * dice give (store.tsv.gz and store2.tsv.gz checked against RAWFORMAT.md's
 * formula), the second store's connections lost alone; compartments against
 * a first store that never answers: with a bulkhead the second store's
 * requests still go through, without one they are refused (B) like the
 * first's, each with its stand-in at once.  Bad option pairs refused. */
#include "svcproc.h"

#define MS 1000000LL

/* Which store row `row` asks (1 or 2), as lab/RAWFORMAT.md says, for an arm
 * with store2 = p. */
static int store_of_row(uint32_t row, int p)
{
    return ut_u64_unit(ut_hash4(0x53544f524532ULL, row, 0, 0)) * 100 < (double)p ? 2 : 1;
}

/* The first n rows (from 10 on, clear of the fake store's special rows)
 * that ask store `which` with store2 = p. */
static void rows_of_store(int which, int p, uint32_t *rows, int n)
{
    uint32_t r = 10;
    for (int k = 0; k < n; r++)
        if (store_of_row(r, p) == which)
            rows[k++] = r;
}

/* Request `id` was refused by a gate (code O or B): one lookup, tried and
 * ended on arrival, never sent; its stand-in answered. */
static void expect_refused(const rr_file *f, int64_t id, char code, int store)
{
    char outs[2] = {code, 0};
    expect_logged(f, id, 1, outs, 200, 0);
    size_t i = svc_row(f, id);
    int64_t arrive = rr_get(f, "arrive_t", i);
    cr_assert_eq(rr_get(f, "a0_start_t", i), arrive, "request %lld: tried on arrival", (long long)id);
    cr_assert_eq(rr_get(f, "a0_end_t", i), arrive, "request %lld: ended on arrival", (long long)id);
    cr_assert_eq(rr_get(f, "store", i), store, "request %lld", (long long)id);
}

/* The breaker rows of an events file, in order: what, tries, wait_ns, t. */
typedef struct {
    char what;
    int64_t tries, wait, t;
} brk_row;

static int breaker_rows(const char *path, brk_row *out, int cap)
{
    rr_file f;
    cr_assert_eq(rr_read(path, &f), 0, "%s", path);
    int n = 0;
    for (size_t i = 0; i < f.n; i++) {
        if (rr_get(&f, "conn", i) != -1)
            continue;
        cr_assert_lt(n, cap);
        out[n++] = (brk_row){(char)rr_get(&f, "what", i), rr_get(&f, "tries", i), rr_get(&f, "wait_ns", i),
                             rr_get(&f, "t", i)};
    }
    rr_free(&f);
    return n;
}

/* H3-brk-down: brk_fails 5, brk_cool_ms 250, brk_probes 3, one try of
 * 25 ms, a stand-in.  Row 6 is answered unavailable, row 10 answered. */
Test(service, breaker_opens_refuses_probes_and_closes, .timeout = 60)
{
    make_dir();
    char path[160], count[160], ev[160];
    snprintf(count, sizeof count, "%s/fake.count", dir);
    snprintf(ev, sizeof ev, "%s/events.tsv.gz", dir);
    int fport, vport;
    pid_t fs = fake_store_ex(&fport, 0, count);
    pid_t sv = start_service(fport, "lab/arms.tsv", "H3-brk-down", "service", NULL, &vport);
    int fd = dial_to(vport);
    for (uint32_t j = 1; j <= 5; j++)
        expect_standin(fd, j, 6);
    /* the 6th: the breaker is open, the stand-in at once, nothing sent */
    expect_standin(fd, 6, 6);
    cr_assert_eq(calls_lookups(fd), 5);
    cr_assert_eq(fake_count(count), 5, "no lookup of request 6 reached the store");
    usleep(300000);
    /* past the cooldown: half open, request 7's lookup a probe; it fails */
    expect_standin(fd, 7, 6);
    cr_assert_eq(fake_count(count), 6);
    expect_standin(fd, 8, 6); /* open again (unless this machine paused 250 ms: see below) */
    usleep(300000);
    /* three probes answered: closed; then lookups flow */
    char ans[512];
    for (uint32_t j = 9; j <= 12; j++) {
        cr_assert_eq(post(fd, j, 10, ans, sizeof ans), 200, "%s", ans);
        cr_assert(strstr(ans, "\"kind\":\"live\""), "request %u: %s", j, ans);
    }
    close(fd);
    cr_assert_eq(stop_pid(sv), 0, "the service stops cleanly");
    kill(fs, SIGKILL);
    waitpid(fs, NULL, 0);

    rr_file f;
    snprintf(path, sizeof path, "%s/service.tsv.gz", dir);
    cr_assert_eq(rr_read(path, &f), 0);
    for (int j = 1; j <= 5; j++)
        expect_logged(&f, j, 1, "U", 200, 0);
    expect_refused(&f, 6, 'O', 1);
    for (int j = 9; j <= 12; j++)
        expect_logged(&f, j, 1, "A", 200, 'L');
    brk_row b[8];
    int nb = breaker_rows(ev, b, 8);
    conn_events ce[2];
    cr_assert_eq(check_events(ev, 2, 0, ce), (size_t)nb, "only breaker rows: the connections stayed up");
    /* O after the 5th failure, at its end; H at request 7's try, the time
     * since the opening; P at its failure; H at request 9's; K at 11's */
    int64_t open_t = rr_get(&f, "a0_end_t", svc_row(&f, 5));
    cr_assert(b[0].what == 'O' && b[0].tries == 5 && b[0].wait == 0 && b[0].t == open_t);
    /* each failed probe: H at its try (wait: the time since the opening),
     * P at its failure.  Request 8 comes within the cooldown of request
     * 7's P and is refused, unless this shared machine paused the test for
     * 250 ms: then it is a failed probe too. */
    int k = 1, probes = 7;
    size_t r8 = svc_row(&f, 8);
    if (rr_get(&f, "a0_out", r8) == 'O')
        expect_refused(&f, 8, 'O', 1);
    else
        probes = 8;
    for (int j = 7; j <= probes; j++, k += 2) {
        size_t r = svc_row(&f, j);
        int64_t t = rr_get(&f, "a0_start_t", r);
        expect_logged(&f, j, 1, "U", 200, 0);
        cr_assert(b[k].what == 'H' && b[k].tries == 0 && b[k].t == t, "row %d: %c", k, b[k].what);
        cr_assert_eq(b[k].wait, t - b[k - 1].t);
        cr_assert_geq(b[k].wait, 250 * MS);
        cr_assert(b[k + 1].what == 'P' && b[k + 1].tries == 0 && b[k + 1].wait == 0, "row %d", k + 1);
        cr_assert_eq(b[k + 1].t, rr_get(&f, "a0_end_t", r));
    }
    /* the good probes: H at request 9's try, K (tries: the probes) at 11's answer */
    int64_t t9 = rr_get(&f, "a0_start_t", svc_row(&f, 9));
    cr_assert(b[k].what == 'H' && b[k].t == t9 && b[k].wait == t9 - b[k - 1].t && b[k].wait >= 250 * MS);
    cr_assert(b[k + 1].what == 'K' && b[k + 1].tries == 3 && b[k + 1].wait == 0);
    cr_assert_eq(b[k + 1].t, rr_get(&f, "a0_end_t", svc_row(&f, 11)));
    cr_assert_eq(nb, k + 2, "breaker rows: %d", nb);
    rr_free(&f);
    /* lookups sent: 5 failures, the failed probes, 4 answered */
    cr_assert_eq(fake_count(count), 5 + (probes - 6) + 4);
    remove_dir();
}

/* Two real stores at no wait, arm H3-bulk-hang (store2 50): each request
 * goes to its row's store and to no other; then the second store stops and
 * only its connections (2 and 3) are lost, only its requests fall back. */
Test(service, two_stores_each_request_on_its_rows_store, .timeout = 60)
{
    make_dir();
    char path[160], ans[512];
    int p1, p2, vport;
    pid_t s1 = start_store("0", "Z", "0", "store.tsv.gz", &p1);
    pid_t s2 = start_store("0", "Z", "0", "store2.tsv.gz", &p2);
    pid_t sv = start_service2(p1, p2, "lab/arms.tsv", "H3-bulk-hang", "service", NULL, &vport);
    int fd = dial_to(vport), on2 = 0;
    for (uint32_t j = 0; j < 40; j++) {
        cr_assert_eq(post(fd, j, j, ans, sizeof ans), 200, "%s", ans);
        cr_assert(strstr(ans, "\"kind\":\"live\""), "request %u: %s", j, ans);
        on2 += store_of_row(j, 50) == 2;
    }
    cr_assert(on2 >= 8 && on2 <= 32, "rows 0-39: %d on the second store", on2);
    int64_t t_stop = ut_mono_ns();
    cr_assert_eq(stop_pid(s2), 0, "the second store stops cleanly");
    usleep(100000); /* the service sees both connections closed */
    for (uint32_t j = 40; j < 60; j++) {
        cr_assert_eq(post(fd, j, j, ans, sizeof ans), 200, "%s", ans);
        int live = strstr(ans, "\"kind\":\"live\"") != NULL;
        cr_assert_eq(live, store_of_row(j, 50) == 1, "request %u (store %d): %s", j, store_of_row(j, 50), ans);
    }
    close(fd);
    cr_assert_eq(stop_pid(sv), 0, "the service stops cleanly");
    cr_assert_eq(stop_pid(s1), 0, "the first store stops cleanly");

    /* each store's log holds exactly the lookups of its rows */
    rr_file st[2], f;
    int seen[60] = {0};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, k ? "store2.tsv.gz" : "store.tsv.gz");
        cr_assert_eq(rr_read(path, &st[k]), 0, "%s", path);
        cr_assert_str_eq(st[k].kind, "store");
        for (size_t i = 0; i < st[k].n; i++) {
            int64_t req = rr_get(&st[k], "req", i), row = rr_get(&st[k], "row", i);
            cr_assert(req >= 0 && req < 60 && row == req);
            cr_assert_eq(store_of_row((uint32_t)row, 50), k + 1, "row %lld in store %d's log", (long long)row, k + 1);
            seen[req]++;
        }
        rr_free(&st[k]);
    }
    snprintf(path, sizeof path, "%s/service.tsv.gz", dir);
    cr_assert_eq(rr_read(path, &f), 0);
    for (int j = 0; j < 60; j++) {
        size_t i = svc_row(&f, j);
        int want = store_of_row((uint32_t)j, 50);
        cr_assert_eq(rr_get(&f, "store", i), want, "request %d", j);
        if (j < 40 || want == 1) {
            expect_logged(&f, j, 1, "A", 200, 'L');
            cr_assert_eq(seen[j], 1, "request %d reached one store once", j);
        } else {
            expect_logged(&f, j, 1, "R", 200, 0); /* no live connection to the second store */
            cr_assert_eq(seen[j], 0);
        }
    }
    rr_free(&f);
    /* events: connections 2 and 3 (the second store's) lost, never back; 0 and 1 calm */
    conn_events ev[4];
    snprintf(path, sizeof path, "%s/events.tsv.gz", dir);
    check_events(path, 4, t_stop, ev);
    for (int c = 0; c < 4; c++) {
        cr_assert_eq(ev[c].l, c >= 2, "conn %d lost %d times", c, ev[c].l);
        cr_assert_eq(ev[c].c, 0, "conn %d", c);
    }
    remove_dir();
}

/* Compartments: the first store never answers, the second answers at
 * once; tries of 1 s.  n requests on the first store's rows fill the
 * limit; then one more on each store. */
static void compartments(const char *arm, int n, char want2)
{
    make_dir();
    char arms[128], path[160], c1[160], c2[160], ans[512];
    snprintf(arms, sizeof arms, "%s/arms.tsv", dir);
    write_file(arms, ARMS_HEADER
               "H3-bulk-hang\tH\t300\tbulk\t1000\t1\tnone\t-\t0\t0\t0\t0\t0\t1\thang\t0\t0\t0\t0\t0\t50\t8\t1\t0\t0\t0\t0\t0\n"
               "H3-pool-hang\tH\t300\tpool\t1000\t1\tnone\t-\t0\t0\t0\t0\t0\t1\thang\t0\t0\t0\t0\t0\t50\t16\t0\t0\t0\t0\t0\t0\n");
    snprintf(c1, sizeof c1, "%s/store1.count", dir);
    snprintf(c2, sizeof c2, "%s/store2.count", dir);
    int p1, p2, vport;
    pid_t f1 = fake_store_ex(&p1, 1, c1), f2 = fake_store_ex(&p2, 0, c2);
    pid_t sv = start_service2(p1, p2, arms, arm, "service", NULL, &vport);
    uint32_t r1[17], r2[1];
    rows_of_store(1, 50, r1, n + 1);
    rows_of_store(2, 50, r2, 1);
    int fds[16], fd = dial_to(vport);
    for (int i = 0; i < n; i++) {
        fds[i] = dial_to(vport);
        char req[160], body[64];
        int bl = snprintf(body, sizeof body, "{\"id\":%d,\"row\":%u}", 100 + i, r1[i]);
        int m = snprintf(req, sizeof req, "POST /score HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s", bl, body);
        send_all(fds[i], req, (size_t)m);
    }
    int64_t t0 = ut_mono_ns();
    while (calls_lookups(fd) < n) {
        cr_assert_lt(ut_mono_ns() - t0, 900 * MS, "the %d lookups were not all sent within 0.9 s", n);
        usleep(2000);
    }
    /* the limit is full: the first store's next request is refused at once */
    expect_standin(fd, 200, r1[n]);
    /* the second store's: through with a bulkhead, refused without one */
    cr_assert_eq(post(fd, 201, r2[0], ans, sizeof ans), 200, "%s", ans);
    if (want2 == 'A') {
        cr_assert(strstr(ans, "\"kind\":\"live\""), "%s", ans);
    } else {
        char want[256];
        standin_answer(201, r2[0], want, sizeof want);
        cr_assert_str_eq(ans, want);
    }
    for (int i = 0; i < n; i++) { /* the held ones: their stand-ins after the 1 s try */
        char want[256];
        standin_answer(100 + (uint32_t)i, r1[i], want, sizeof want);
        cr_assert_eq(read_answer(fds[i], ans, sizeof ans), 200, "%s", ans);
        cr_assert_str_eq(ans, want);
        close(fds[i]);
    }
    close(fd);
    cr_assert_eq(stop_pid(sv), 0, "the service stops cleanly");
    kill(f1, SIGKILL);
    kill(f2, SIGKILL);
    waitpid(f1, NULL, 0);
    waitpid(f2, NULL, 0);

    rr_file f;
    snprintf(path, sizeof path, "%s/service.tsv.gz", dir);
    cr_assert_eq(rr_read(path, &f), 0);
    for (int i = 0; i < n; i++) {
        expect_logged(&f, 100 + i, 1, "T", 200, 0);
        cr_assert_eq(rr_get(&f, "store", svc_row(&f, 100 + i)), 1);
    }
    expect_refused(&f, 200, 'B', 1);
    if (want2 == 'A') {
        expect_logged(&f, 201, 1, "A", 200, 'L');
        cr_assert_eq(rr_get(&f, "store", svc_row(&f, 201)), 2);
    } else {
        expect_refused(&f, 201, 'B', 2);
    }
    rr_free(&f);
    cr_assert_eq(fake_count(c1), n, "lookups that reached the first store");
    cr_assert_eq(fake_count(c2), want2 == 'A', "lookups that reached the second store");
    snprintf(path, sizeof path, "%s/events.tsv.gz", dir);
    conn_events ev[4];
    cr_assert_eq(check_events(path, 4, 0, ev), 0, "no connection lost, no breaker");
    remove_dir();
}

Test(service, bulkhead_keeps_the_healthy_store_going, .timeout = 60) { compartments("H3-bulk-hang", 8, 'A'); }

Test(service, shared_limit_refuses_the_healthy_store_too, .timeout = 60) { compartments("H3-pool-hang", 16, 'B'); }

/* An arm with a second store (store2, or hedge2: the copy) needs
 * --store2-port; one without refuses it. */
Test(service, store2_port_goes_with_the_arm, .timeout = 30)
{
    make_dir();
    const struct {
        const char *arm, *port2, *want;
    } bad[] = {
        {"H3-bulk-hang", NULL, "arm H3-bulk-hang has a second store (store2 50, hedge2 0): needs --store2-port"},
        {"L3-hedge2-slow", NULL, "arm L3-hedge2-slow has a second store (store2 0, hedge2 1): needs --store2-port"},
        {"L3-hedge2", NULL, "arm L3-hedge2 has a second store (store2 0, hedge2 1): needs --store2-port"},
        {"H3-fb25", "1", "arm H3-fb25 has no second store (store2 0, hedge2 0): --store2-port is not for it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[1024], log[160], *text = NULL, err[UT_ERRLEN];
        size_t n;
        snprintf(log, sizeof log, "%s/log", dir);
        snprintf(cmd, sizeof cmd,
                 "%s/service --port 0 --store-port 1 %s %s --arm %s --round 1 --model build/prep/model.json "
                 "--standin build/prep/standin.tsv --out %s/s.tsv.gz > %s 2>&1",
                 bin_dir(), bad[i].port2 ? "--store2-port" : "", bad[i].port2 ? bad[i].port2 : "", bad[i].arm,
                 dir, log);
        int rc = system(cmd);
        cr_assert_eq(ut_read_file(log, &text, &n, err, sizeof err), 0, "%s", err);
        cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "%s: status %d: %s", bad[i].arm, rc, text);
        cr_assert(strstr(text, bad[i].want), "%s", text);
        free(text);
    }
    remove_dir();
}
