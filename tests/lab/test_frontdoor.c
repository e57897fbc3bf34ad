/* The service's front door sheds (issue 31; lab/service/front.h, docs/DESIGN.md
 * section 5.2): a request head left unfinished is answered 408 and closed
 * after the header timeout, an idle keep-alive connection is closed after
 * the idle timeout, a busy one is not; at the connection cap a fresh
 * client is served and the connection that waited longest (idle, or with
 * an unfinished head) is closed for it, in the order they waited;
 * "Connection: close" and HTTP/1.0 are honoured on POST /score (the answer
 * says "Connection: close", then EOF), and every refusal (400, 413, a
 * head of 10,000 header lines) is followed by EOF.  A real store and
 * service over loopback with short timeouts (--header-timeout-s,
 * --idle-timeout-s, --max-conns); every wait is a poll with a bound. */
#include <errno.h>

#include "doortimes.h"
#include "svcproc.h"

#define SHORT_TIMEOUT_S "0.3"       /* the timeouts the service is given here */
#define SHORT_TIMEOUT_NS 300000000LL
#define WAIT_MS 3000                /* the longest any answer or EOF is waited for */
#define CAP "4"                     /* --max-conns of the shedding tests */
#define CAP_N 4

static pid_t store_pid, svc_pid;
static int svc_port;

/* A store and a service with these front-door options (NULL ends them). */
static void start_with(const char *opt1, const char *val1, const char *opt2, const char *val2)
{
    make_dir();
    int port;
    store_pid = start_store("0", "F", "0.01", "store.tsv.gz", &port);
    char service[256], vout[128], sport[16];
    snprintf(service, sizeof service, "%s/service", bin_dir());
    snprintf(vout, sizeof vout, "%s/service.tsv.gz", dir);
    snprintf(sport, sizeof sport, "%d", port);
    char *va[32] = {service, "--port", "0", "--store-port", sport, "--arm", "F3-none", "--arms", "lab/arms.tsv",
                    "--round", "1", "--model", "build/prep/model.json", "--standin", "build/prep/standin.tsv",
                    "--out", vout};
    int n = 17;
    if (opt1) {
        va[n++] = (char *)opt1;
        va[n++] = (char *)val1;
    }
    if (opt2) {
        va[n++] = (char *)opt2;
        va[n++] = (char *)val2;
    }
    va[n] = NULL;
    svc_pid = spawn(va, &svc_port);
}

static void start_header(void) { start_with("--header-timeout-s", SHORT_TIMEOUT_S, NULL, NULL); }
static void start_idle(void) { start_with("--idle-timeout-s", SHORT_TIMEOUT_S, NULL, NULL); }
static void start_cap(void) { start_with("--max-conns", CAP, NULL, NULL); }
static void start_plain(void) { start_with(NULL, NULL, NULL, NULL); }

static void stop(void)
{
    int rc = stop_pid(svc_pid);
    cr_assert_eq(rc, 0, "the service stops cleanly (exit %d)", rc);
    rc = stop_pid(store_pid);
    cr_assert_eq(rc, 0, "the store stops cleanly (exit %d)", rc);
    remove_dir();
}

TestSuite(frontdoor, .timeout = 60);

/* One whole answer (head and Content-Length body) within WAIT_MS: its
 * status; its head in head (NUL-ended). */
static int answer_with_head(int fd, char *head, size_t cap)
{
    char buf[8192];
    size_t n = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        cr_assert_gt(poll(&p, 1, WAIT_MS), 0, "no answer within %d ms", WAIT_MS);
        ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
        cr_assert_gt(r, 0, "connection closed (or reset: %s) before an answer", r < 0 ? strerror(errno) : "EOF");
        n += (size_t)r;
        buf[n] = 0;
        char *end = strstr(buf, "\r\n\r\n"), *cl = strcasestr(buf, "Content-Length:");
        if (end && cl) {
            size_t hlen = (size_t)(end - buf) + 4;
            if (n >= hlen + (size_t)atol(cl + 15)) {
                cr_assert_eq(n, hlen + (size_t)atol(cl + 15), "bytes after the answer");
                cr_assert_lt(hlen, cap);
                memcpy(head, buf, hlen);
                head[hlen] = 0;
                return atoi(buf + 9);
            }
        }
    }
}

/* The service closes fd within WAIT_MS: an orderly EOF (a reset would
 * destroy an answer not yet read).  Returns when, in ns from `from`. */
static int64_t expect_eof(int fd, int64_t from, const char *what)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    cr_assert_gt(poll(&p, 1, WAIT_MS), 0, "%s: still open after %d ms", what, WAIT_MS);
    char c;
    ssize_t r = read(fd, &c, 1);
    cr_assert_eq(r, 0, "%s: %s instead of EOF", what, r < 0 ? strerror(errno) : "a byte");
    return ut_mono_ns() - from;
}

/* fd is still open: nothing to read, no EOF, for a moment. */
static void expect_open(int fd, const char *what)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    cr_assert_eq(poll(&p, 1, 0), 0, "%s: closed (revents %#x)", what, (unsigned)p.revents);
}

static void send_str(int fd, const char *s) { send_all(fd, s, strlen(s)); }

/* A POST /score of row 3 with the given version and extra header lines. */
static void post_row3(int fd, const char *version, const char *extra)
{
    char req[512];
    const char *body = "{\"id\":9,\"row\":3}";
    snprintf(req, sizeof req, "POST /score %s\r\nHost: x\r\n%sContent-Length: %zu\r\n\r\n%s", version, extra,
             strlen(body), body);
    send_str(fd, req);
}

static void expect_health(int fd, const char *what)
{
    char head[1024];
    send_str(fd, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    cr_assert_eq(answer_with_head(fd, head, sizeof head), 200, "%s: %s", what, head);
}

/* ------------------------------------------------------------ timeouts */

/* The idle timeout run gives the service outlasts the run by 60 s at least
 * (the tester's drain and the store's settling), and is 300 s for the
 * study's runs (15 s, 30 s). */
Test(frontdoor, the_idle_timeout_outlasts_a_run)
{
    const double run_s[] = {1.5, 15, 30, 240, 241, 1000}, want[] = {300, 300, 300, 300, 301, 1060};
    for (size_t i = 0; i < sizeof run_s / sizeof run_s[0]; i++)
        cr_assert_eq(door_idle_timeout_s(run_s[i]), want[i], "a run of %g s: %g", run_s[i],
                     door_idle_timeout_s(run_s[i]));
    cr_assert_eq(DOOR_HEADER_TIMEOUT_S, 10.0);
}

Test(frontdoor, header_timeout_answers_408_and_closes_a_half_sent_head, .init = start_header, .fini = stop)
{
    int slow = dial_to(svc_port);
    int64_t t0 = ut_mono_ns();
    send_str(slow, "POST /score HTTP/1.1\r\nHost: x\r\nContent-Ty");
    /* others are served meanwhile */
    int fd = dial_to(svc_port);
    expect_health(fd, "a client beside the half-sent head");
    char head[1024];
    cr_assert_eq(answer_with_head(slow, head, sizeof head), 408, "%s", head);
    int64_t took = ut_mono_ns() - t0;
    cr_assert(strstr(head, "Connection: close\r\n"), "the 408 does not say it closes: %s", head);
    expect_eof(slow, t0, "the half-sent head after its 408");
    cr_assert_geq(took, SHORT_TIMEOUT_NS, "408 after %lld ns, before the timeout", (long long)took);
    /* the whole request in time is answered: the clock runs from the first byte only */
    expect_health(fd, "the other client after the timeout");
    close(slow);
    close(fd);
}

Test(frontdoor, header_timeout_is_not_restarted_by_a_trickle, .init = start_header, .fini = stop)
{
    int slow = dial_to(svc_port);
    int64_t t0 = ut_mono_ns();
    const char *head = "POST /score HTTP/1.1\r\nHost: x\r\nX-Slow: abcdefghijklmnopqrstuvwxyz";
    int sent = 0;
    /* one byte every 50 ms: the service's 408 must come near 0.3 s, not after the trickle */
    for (const char *p = head; *p; p++) {
        struct pollfd q = {.fd = slow, .events = POLLIN};
        if (poll(&q, 1, 50) > 0)
            break;
        if (write(slow, p, 1) != 1)
            break;
        sent++;
    }
    char ans[1024];
    cr_assert_eq(answer_with_head(slow, ans, sizeof ans), 408, "%s", ans);
    int64_t took = expect_eof(slow, t0, "the trickling head");
    cr_assert_lt(sent, (int)strlen(head), "the whole trickle went in (%d bytes) before any 408", sent);
    cr_assert_lt(took, 2 * WAIT_MS * 1000000LL / 3, "closed after %lld ns", (long long)took);
    close(slow);
}

Test(frontdoor, idle_timeout_closes_an_idle_keepalive_connection_not_a_busy_one, .init = start_idle, .fini = stop)
{
    int idle = dial_to(svc_port), busy = dial_to(svc_port);
    int64_t t0 = ut_mono_ns(); /* before its answer: the service's clock starts after it */
    expect_health(idle, "the idle one's one request");
    /* busy: a request every 50 ms for twice the timeout keeps it open */
    while (ut_mono_ns() - t0 < 2 * SHORT_TIMEOUT_NS) {
        expect_health(busy, "the busy connection");
        struct pollfd q = {.fd = -1};
        poll(&q, 0, 50);
    }
    int64_t took = expect_eof(idle, t0, "the idle keep-alive connection");
    cr_assert_geq(took, SHORT_TIMEOUT_NS, "closed after %lld ns, before the timeout", (long long)took);
    expect_health(busy, "the busy connection after the idle one went");
    close(idle);
    close(busy);
}

/* ------------------------------------------------------------ shedding */

Test(frontdoor, at_the_cap_a_fresh_client_is_served_and_the_oldest_waiting_is_closed, .init = start_cap,
     .fini = stop)
{
    /* in this order: idle, head, idle, head; each settled before the next */
    int held[CAP_N];
    for (int i = 0; i < CAP_N; i++) {
        held[i] = dial_to(svc_port);
        if (i % 2 == 0)
            expect_health(held[i], "an idle connection's request");
        else {
            send_str(held[i], "GET /health HTTP/1.1\r\nHo");
            struct pollfd q = {.fd = -1};
            poll(&q, 0, 20); /* read by the service before the next one comes */
        }
    }
    int64_t t0 = ut_mono_ns();
    int fresh = dial_to(svc_port);
    expect_health(fresh, "the fresh client at the cap");
    expect_eof(held[0], t0, "the oldest idle connection");
    for (int i = 1; i < CAP_N; i++)
        expect_open(held[i], "a younger held connection");
    /* the next fresh client: the oldest waiting is now the first head (the
     * first fresh client, idle since its answer, is younger) */
    int fresh2 = dial_to(svc_port);
    expect_health(fresh2, "the second fresh client at the cap");
    expect_eof(held[1], t0, "the oldest unfinished head");
    expect_open(held[2], "the younger idle connection");
    expect_open(held[3], "the younger head");
    expect_health(fresh, "the first fresh client, still served");
    /* a held head finishes its request and is answered */
    send_str(held[3], "st: x\r\n\r\n");
    char head[1024];
    cr_assert_eq(answer_with_head(held[3], head, sizeof head), 200, "%s", head);
    for (int i = 0; i < CAP_N; i++)
        close(held[i]);
    close(fresh);
    close(fresh2);
}

/* ---------------------------------------------------- Connection: close */

static void expect_score_closes(const char *version, const char *extra)
{
    int fd = dial_to(svc_port);
    int64_t t0 = ut_mono_ns();
    post_row3(fd, version, extra);
    char head[1024];
    cr_assert_eq(answer_with_head(fd, head, sizeof head), 200, "%s %s: %s", version, extra, head);
    cr_assert(strstr(head, "\r\nConnection: close\r\n"), "%s %s: no Connection: close in %s", version, extra, head);
    expect_eof(fd, t0, version);
    close(fd);
}

Test(frontdoor, post_score_honours_connection_close_and_http10, .init = start_plain, .fini = stop)
{
    expect_score_closes("HTTP/1.1", "Connection: close\r\n");
    expect_score_closes("HTTP/1.0", "");
    expect_score_closes("HTTP/1.0", "Connection: close\r\n");
    /* HTTP/1.0 asking for keep-alive, and HTTP/1.1 by default, stay open */
    const char *keep[][2] = {{"HTTP/1.0", "Connection: keep-alive\r\n"}, {"HTTP/1.1", ""}};
    for (int k = 0; k < 2; k++) {
        int fd = dial_to(svc_port);
        char head[1024];
        for (int i = 0; i < 2; i++) {
            post_row3(fd, keep[k][0], keep[k][1]);
            cr_assert_eq(answer_with_head(fd, head, sizeof head), 200, "%s: %s", keep[k][0], head);
            cr_assert_null(strstr(head, "Connection: close"), "%s %s: %s", keep[k][0], keep[k][1], head);
        }
        expect_open(fd, keep[k][0]);
        close(fd);
    }
}

/* raw is refused with `status`, "Connection: close" in the answer, then EOF. */
static void expect_refused_then_eof(const char *raw, size_t len, int status)
{
    int fd = dial_to(svc_port);
    int64_t t0 = ut_mono_ns();
    send_all(fd, raw, len);
    char head[1024];
    cr_assert_eq(answer_with_head(fd, head, sizeof head), status, "%.60s...: %s", raw, head);
    cr_assert(strstr(head, "\r\nConnection: close\r\n"), "%.60s...: no Connection: close in %s", raw, head);
    expect_eof(fd, t0, "a refused request");
    close(fd);
}

#define MANY_HEADERS 10000

Test(frontdoor, a_refusal_is_followed_by_eof, .init = start_plain, .fini = stop)
{
    const char *bad[] = {"GARBAGE\r\n\r\n", "POST /score HTTP/1.1\r\nContent-Length: x\r\n\r\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused_then_eof(bad[i], strlen(bad[i]), 400);
    const char *bad_body[] = {"not json", "{\"id\":1,\"row\":99999999}"}; /* framed well, refused */
    for (size_t i = 0; i < sizeof bad_body / sizeof bad_body[0]; i++) {
        char req[256];
        int n = snprintf(req, sizeof req, "POST /score HTTP/1.1\r\nContent-Length: %zu\r\n\r\n%s",
                         strlen(bad_body[i]), bad_body[i]);
        expect_refused_then_eof(req, (size_t)n, 400);
    }
    const char *big = "POST /score HTTP/1.1\r\nContent-Length: 70000\r\n\r\n";
    expect_refused_then_eof(big, strlen(big), 413);
    /* the reviewer's case: 10,000 header lines (more than the buffer holds) */
    const char line[] = "X-Many: header\r\n", first[] = "GET /health HTTP/1.1\r\n";
    size_t cap = sizeof first + MANY_HEADERS * (sizeof line - 1) + 3, n = 0;
    char *raw = malloc(cap);
    cr_assert_not_null(raw);
    memcpy(raw, first, sizeof first - 1);
    n = sizeof first - 1;
    for (int i = 0; i < MANY_HEADERS; i++, n += sizeof line - 1)
        memcpy(raw + n, line, sizeof line - 1);
    memcpy(raw + n, "\r\n", 2);
    expect_refused_then_eof(raw, n + 2, 400);
    free(raw);
    /* and the service still answers */
    int fd = dial_to(svc_port);
    expect_health(fd, "after the refusals");
    close(fd);
}

/* ------------------------------------------------------- the options */

/* The three options are in the service's usage text, and a timeout out of
 * its range is refused (exit 2) naming the option. */
Test(frontdoor, the_options_are_in_the_usage_and_checked)
{
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd, "%s/service --help 2>&1", bin_dir());
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    cr_assert_eq(pclose(p), 0, "service --help: %s", out);
    const char *opts[] = {"--header-timeout-s H", "--idle-timeout-s I", "--max-conns N"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        cr_assert(strstr(out, opts[i]), "the usage lacks %s:\n%s", opts[i], out);
    const char *bad[] = {"--header-timeout-s 0", "--idle-timeout-s -1", "--max-conns 0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 "%s/service --store-port 1 --arm F3-none --round 1 --model m --standin s --out o %s 2>&1",
                 bin_dir(), bad[i]);
        p = popen(cmd, "r");
        cr_assert_not_null(p);
        n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        int st = pclose(p);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d: %s", bad[i], st, out);
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(bad[i], ' ') - bad[i]), bad[i]);
        cr_assert(strstr(out, name), "%s: the refusal does not name the option: %s", bad[i], out);
    }
}
