/* The scoring service against bad input of every kind: each gets a clear
 * answer, and after each the service still answers correctly.  And the
 * service against a store that fails: killed outright mid-traffic (the
 * service stays up, answers with the stand-in at once, reconnects with
 * backoff, logged in events.tsv.gz), and a fake store answering not found,
 * unavailable, unknown row and malformed frames (error classes). */
#include "svcproc.h"

static pid_t store_pid, svc_pid;
static int svc_port;

static void start(void)
{
    make_dir();
    int port;
    store_pid = start_store("0", "F", "0.01", "store.tsv.gz", &port);
    svc_pid = start_service(port, "lab/arms.tsv", "F3-none", "service", NULL, &svc_port);
}

static void stop(void)
{
    int rc = stop_pid(svc_pid);
    cr_assert_eq(rc, 0, "the service stops cleanly (exit %d)", rc);
    rc = stop_pid(store_pid);
    cr_assert_eq(rc, 0, "the store stops cleanly (exit %d)", rc);
    remove_dir();
}

TestSuite(service, .timeout = 60);

static int dial(void) { return dial_to(svc_port); }

/* The service still answers row 3 with the reference score. */
static void still_correct(void)
{
    FILE *f = fopen("build/prep/scores.tsv", "r");
    char line[256];
    for (int i = 0; i < 5; i++)
        cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    char want[64];
    cr_assert_eq(sscanf(line, "%*d\t%*s\t%*d\t%63s", want), 1);
    int fd = dial();
    char ans[512], expect[160];
    cr_assert_eq(ask(fd, "{\"id\":77,\"row\":3}", ans, sizeof ans), 200);
    snprintf(expect, sizeof expect, "{\"id\":77,\"score\":%s,\"kind\":\"live\"}", want);
    cr_assert_str_eq(ans, expect);
    close(fd);
}

static void expect_error(const char *raw, int status, const char *reason)
{
    int fd = dial();
    send_all(fd, raw, strlen(raw));
    char ans[1024];
    cr_assert_eq(read_answer(fd, ans, sizeof ans), status, "%s", ans);
    cr_assert(strstr(ans, reason), "answer %s lacks \"%s\"", ans, reason);
    close(fd);
    still_correct();
}

Test(service, live_answer_health_and_calls, .init = start, .fini = stop)
{
    still_correct();
    int fd = dial();
    send_all(fd, "GET /health HTTP/1.1\r\n\r\n", 24);
    char ans[256];
    cr_assert_eq(read_answer(fd, ans, sizeof ans), 200);
    cr_assert_str_eq(ans, "ok");
    send_all(fd, "GET /calls HTTP/1.1\r\n\r\n", 23);
    cr_assert_eq(read_answer(fd, ans, sizeof ans), 200);
    cr_assert_str_eq(ans, "{\"requests\":1,\"lookups\":1}");
    /* keep-alive: many requests on one connection */
    for (int i = 0; i < 50; i++)
        cr_assert_eq(ask(fd, "{\"row\":10,\"id\":5}", ans, sizeof ans), 200);
    close(fd);
}

Test(service, malformed_http_is_400, .init = start, .fini = stop)
{
    expect_error("GARBAGE\r\n\r\n", 400, "malformed request line");
    expect_error("POST /score SPDY/3\r\n\r\n", 400, "not HTTP/1.1");
    expect_error("POST /score HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400, "Content-Length is not a number");
    expect_error("POST /score HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "Transfer-Encoding");
    expect_error("GET /nothing HTTP/1.1\r\n\r\n", 404, "no such resource");
}

Test(service, bad_bodies_are_400_with_a_reason, .init = start, .fini = stop)
{
    struct {
        const char *body, *reason;
    } cases[] = {
        {"not json", "not a JSON object"},
        {"{\"id\":1,\"row\":", "whole number"},
        {"{\"id\":1}", "field row is missing"},
        {"{\"row\":1}", "field id is missing"},
        {"{\"id\":1,\"row\":-4}", "field row is not a whole number"},
        {"{\"id\":1,\"row\":2.5}", "field row is not a whole number"},
        {"{\"id\":1,\"row\":2,\"x\":3}", "unknown field"},
        {"{\"id\":1,\"row\":99999999}", "not in the table"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int fd = dial();
        char ans[512];
        cr_assert_eq(ask(fd, cases[i].body, ans, sizeof ans), 400, "%s -> %s", cases[i].body, ans);
        cr_assert(strstr(ans, cases[i].reason), "%s -> %s", cases[i].body, ans);
        /* a refusal closes the connection once its answer has gone (lab/service/front.h) */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        char c;
        cr_assert_gt(poll(&p, 1, 2000), 0, "%s: still open 2 s after its 400", cases[i].body);
        cr_assert_eq(read(fd, &c, 1), 0, "%s: no EOF after its 400", cases[i].body);
        close(fd);
    }
    still_correct();
}

Test(service, body_over_64k_is_413, .init = start, .fini = stop)
{
    expect_error("POST /score HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", 413, "over the 65536 allowed");
}

Test(service, half_request_does_not_delay_others, .init = start, .fini = stop)
{
    int slow = dial();
    const char *half = "POST /score HTTP/1.1\r\nContent-Length: 16\r\n\r\n{\"id\":";
    send_all(slow, half, strlen(half));
    /* An upper time bound: retried up to 3 times, as this shared VM now and
     * then pauses a process (a service blocked by the half request would
     * miss it every time). */
    int64_t took = 0;
    for (int k = 0; k < 3; k++) {
        int64_t t0 = ut_mono_ns();
        for (int i = 0; i < 20; i++)
            still_correct();
        took = ut_mono_ns() - t0;
        if (took < 1000000000LL)
            break;
        fprintf(stderr, "test_service: 20 answers took %lld ns; will retry\n", (long long)took);
    }
    cr_assert_lt(took, 1000000000LL, "20 answers while one client stalls, late 3 times");
    /* the stalled client finishes later and gets its answer */
    send_all(slow, "1,\"row\":3}", 10);
    char ans[256];
    cr_assert_eq(read_answer(slow, ans, sizeof ans), 200, "%s", ans);
    cr_assert(strstr(ans, "\"id\":1,"), "%s", ans);
    close(slow);
}

/* ------------------------------------------------ a store that fails */

Test(service, store_killed_midway_service_stays_up)
{
    make_dir();
    char arms[128], path[160], ans[512];
    snprintf(arms, sizeof arms, "%s/arms.tsv", dir);
    /* r2 with a 5 s try limit: a fallback "at once" is far below it */
    write_file(arms, ARMS_HEADER "H3-r2\tH\t300\tr2\t5000\t3\tnone\t-\t0\t0\t0\t0\t0\t1\tnone" NO_DEFENCES "\n");
    int sport, vport, bound;
    /* every lookup freezes 1 to 2 s: requests wait on the store when it dies */
    pid_t st = start_store("0", "H", "1", "store1.tsv.gz", &sport);
    pid_t sv = start_service(sport, arms, "H3-r2", "service", NULL, &vport);
    int fds[4];
    for (int i = 0; i < 4; i++) {
        fds[i] = dial_to(vport);
        char req[160], body[64];
        int bl = snprintf(body, sizeof body, "{\"id\":%d,\"row\":%d}", 100 + i, 10 + i);
        int n = snprintf(req, sizeof req, "POST /score HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s", bl, body);
        send_all(fds[i], req, (size_t)n);
    }
    usleep(200000);
    int64_t t_kill = ut_mono_ns();
    kill(st, SIGKILL);
    cr_assert_eq(waitpid(st, NULL, 0), st);
    /* the requests waiting on the lost connections: the stand-in at once */
    for (int i = 0; i < 4; i++) {
        char want[256];
        standin_answer(100 + (uint32_t)i, 10 + (uint32_t)i, want, sizeof want);
        cr_assert_eq(read_answer(fds[i], ans, sizeof ans), 200, "%s", ans);
        cr_assert_str_eq(ans, want);
        close(fds[i]);
    }
    cr_assert_lt(ut_mono_ns() - t_kill, 1000000000LL, "waiting requests fell back within 1 s of the kill");
    /* new requests with no store: the stand-in at once, well under the 5 s try limit */
    int fd = dial_to(vport);
    for (uint32_t j = 0; j < 20; j++) {
        int64_t t0 = ut_mono_ns();
        expect_standin(fd, 200 + j, 20 + j);
        cr_assert_lt(ut_mono_ns() - t0, 1000000000LL, "request %u took %lld ns", 200 + j,
                     (long long)(ut_mono_ns() - t0));
    }
    usleep(300000); /* a few reconnect tries fail */
    int64_t t_restart = ut_mono_ns();
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", sport);
    pid_t st2 = start_store(portstr, "Z", "0", "store2.tsv.gz", &bound);
    cr_assert_eq(bound, sport);
    int64_t t_listen = ut_mono_ns();
    /* live again once a try finds the new store (pauses are below 1 s) */
    int live = 0;
    for (uint32_t j = 0; !live && ut_mono_ns() - t_listen < 5000000000LL; j++) {
        cr_assert_eq(post(fd, 300 + j, 30, ans, sizeof ans), 200, "%s", ans);
        live = strstr(ans, "\"kind\":\"live\"") != NULL;
        if (!live)
            usleep(10000);
    }
    cr_assert(live, "no live answer within 5 s of the new store");
    usleep(1200000); /* the other connection too: no pause is 1 s or longer */
    for (uint32_t j = 0; j < 10; j++) {
        cr_assert_eq(post(fd, 400 + j, 40 + j, ans, sizeof ans), 200, "%s", ans);
        cr_assert(strstr(ans, "\"kind\":\"live\""), "request %u: %s", 400 + j, ans);
    }
    close(fd);
    cr_assert_eq(stop_pid(sv), 0, "the service stops cleanly");
    cr_assert_eq(stop_pid(st2), 0, "the new store stops cleanly");

    /* events.tsv.gz, by default beside service.tsv.gz: each connection lost
     * once after the kill, tries failed until the new store, then back */
    conn_events ev[2];
    snprintf(path, sizeof path, "%s/events.tsv.gz", dir);
    check_events(path, 2, t_kill, ev);
    for (int c = 0; c < 2; c++) {
        cr_assert_eq(ev[c].l, 1, "conn %d lost once", c);
        cr_assert_geq(ev[c].f, 1, "conn %d: failed tries while the store was away", c);
        cr_assert_eq(ev[c].c, 1, "conn %d back once", c);
        cr_assert_geq(ev[c].c_t, t_restart, "conn %d: back before the new store", c);
        cr_assert_lt(ev[c].c_t - t_listen, 2000000000LL, "conn %d: back within the cap and some", c);
    }
    /* service.tsv.gz: waiting lookups lost (X), then refused (R) */
    rr_file f;
    snprintf(path, sizeof path, "%s/service.tsv.gz", dir);
    cr_assert_eq(rr_read(path, &f), 0);
    for (int i = 0; i < 4; i++) {
        /* the retry went on the other connection if its loss was not seen yet */
        expect_logged(&f, 100 + i, 3, "X?R", 200, 0);
        size_t r = svc_row(&f, 100 + i);
        int64_t a1 = rr_get(&f, "a1_out", r);
        cr_assert(a1 == 'X' || a1 == 'R', "request %d: a1_out %c", 100 + i, (char)a1);
        cr_assert_geq(rr_get(&f, "a0_end_t", r), t_kill);
    }
    for (int j = 0; j < 20; j++) {
        expect_logged(&f, 200 + j, 3, "RRR", 200, 0);
        size_t r = svc_row(&f, 200 + j);
        int64_t arrive = rr_get(&f, "arrive_t", r);
        for (int a = 0; a < 3; a++) {
            char s0[16], s1[16];
            snprintf(s0, sizeof s0, "a%d_start_t", a);
            snprintf(s1, sizeof s1, "a%d_end_t", a);
            cr_assert_eq(rr_get(&f, s0, r), arrive, "request %d lookup %d refused on arrival", 200 + j, a);
            cr_assert_eq(rr_get(&f, s1, r), arrive);
        }
    }
    for (int j = 0; j < 10; j++)
        expect_logged(&f, 400 + j, 1, "A", 200, 'L');
    rr_free(&f);
    remove_dir();
}

Test(service, error_classes_against_a_fake_store)
{
    make_dir();
    char arms[128], ev_r2[160], ev_t25[160], path[160];
    snprintf(arms, sizeof arms, "%s/arms.tsv", dir);
    write_file(arms, ARMS_HEADER "H3-r2\tH\t300\tr2\t25\t3\tnone\t-\t0\t0\t0\t0\t0\t1\tnone" NO_DEFENCES "\n"
                                 "H3-t25\tH\t300\tt25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t0\tnone" NO_DEFENCES "\n");
    snprintf(ev_r2, sizeof ev_r2, "%s/r2-events.tsv.gz", dir);
    snprintf(ev_t25, sizeof ev_t25, "%s/t25-events.tsv.gz", dir);
    int fport, r2port, t25port;
    pid_t fs = fake_store(&fport);
    pid_t r2 = start_service(fport, arms, "H3-r2", "r2", ev_r2, &r2port);
    pid_t t25 = start_service(fport, arms, "H3-t25", "t25", ev_t25, &t25port);

    /* r2: not found and unknown row are permanent (one lookup), unavailable
     * is transient (three); the store counts what it was sent */
    int fd = dial_to(r2port);
    expect_standin(fd, 1, 5);
    cr_assert_eq(calls_lookups(fd), 1);
    expect_standin(fd, 2, 6);
    cr_assert_eq(calls_lookups(fd), 4);
    expect_standin(fd, 3, 7);
    cr_assert_eq(calls_lookups(fd), 5);
    /* without a stand-in: 504 either way, after one lookup */
    int fd2 = dial_to(t25port);
    char ans[512];
    cr_assert_eq(post(fd2, 11, 5, ans, sizeof ans), 504, "%s", ans);
    cr_assert_eq(post(fd2, 12, 6, ans, sizeof ans), 504, "%s", ans);
    cr_assert_eq(calls_lookups(fd2), 2);
    close(fd2);
    /* a malformed answer frame costs its connection, not the service: the
     * retry goes on the other one (malformed too), then none is left */
    expect_standin(fd, 4, 8);
    usleep(200000); /* both back: the fake store accepts at once */
    int64_t before = calls_lookups(fd);
    expect_standin(fd, 6, 5);
    cr_assert_eq(calls_lookups(fd), before + 1, "sent again after reconnecting");
    close(fd);
    cr_assert_eq(stop_pid(r2), 0, "the r2 service stops cleanly");
    cr_assert_eq(stop_pid(t25), 0, "the t25 service stops cleanly");
    kill(fs, SIGKILL);
    waitpid(fs, NULL, 0);

    rr_file f;
    snprintf(path, sizeof path, "%s/r2.tsv.gz", dir);
    cr_assert_eq(rr_read(path, &f), 0);
    expect_logged(&f, 1, 1, "N", 200, 0);
    expect_logged(&f, 2, 3, "UUU", 200, 0);
    expect_logged(&f, 3, 1, "N", 200, 0);
    expect_logged(&f, 4, 3, "XX?", 200, 0);
    int64_t a2 = rr_get(&f, "a2_out", svc_row(&f, 4));
    cr_assert(a2 == 'X' || a2 == 'R', "the third try: lost on a reconnected conn, or refused (%c)", (char)a2);
    expect_logged(&f, 6, 1, "N", 200, 0);
    rr_free(&f);
    snprintf(path, sizeof path, "%s/t25.tsv.gz", dir);
    cr_assert_eq(rr_read(path, &f), 0);
    expect_logged(&f, 11, 1, "N", 504, 'E');
    expect_logged(&f, 12, 1, "U", 504, 'E');
    rr_free(&f);

    /* both connections of r2 lost and back, with no failed try; t25 calm */
    conn_events ev[2];
    cr_assert_geq(check_events(ev_r2, 2, 0, ev), 4);
    for (int c = 0; c < 2; c++) {
        cr_assert_geq(ev[c].l, 1, "conn %d lost", c);
        cr_assert_eq(ev[c].f, 0, "conn %d", c);
        cr_assert_eq(ev[c].c, ev[c].l, "conn %d back after each loss", c);
    }
    cr_assert_eq(check_events(ev_t25, 2, 0, ev), 0);
    remove_dir();
}
