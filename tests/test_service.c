/* The scoring service against bad input of every kind: each gets a clear
 * answer, and after each the service still answers correctly. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rawread.h"
#include "util.h"

static pid_t store_pid, svc_pid;
static int svc_port;
static char dir[64];

static pid_t spawn(char *const argv[], int *port)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[256] = "";
    cr_assert_not_null(fgets(line, sizeof line, f), "%s did not start", argv[0]);
    fclose(f);
    char *colon = strrchr(line, ':');
    *port = colon ? atoi(colon + 1) : 0;
    cr_assert_gt(*port, 0, "%s", line);
    return pid;
}

static void start(void)
{
    snprintf(dir, sizeof dir, "/tmp/svctestXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char sout[128], vout[128], sport[16];
    snprintf(sout, sizeof sout, "%s/store.tsv.gz", dir);
    snprintf(vout, sizeof vout, "%s/service.tsv.gz", dir);
    int port;
    /* LAB_BIN=build/asan/bin runs this suite against the sanitizer builds
     * (tests/test_asan.c does). */
    const char *bin = getenv("LAB_BIN") ? getenv("LAB_BIN") : "build/bin";
    char store[256], service[256];
    snprintf(store, sizeof store, "%s/store", bin);
    snprintf(service, sizeof service, "%s/service", bin);
    char *sa[] = {store, "--port", "0", "--table", "build/prep/test.tsv", "--wait", "F",
                  "--round", "1", "--out", sout, NULL};
    store_pid = spawn(sa, &port);
    snprintf(sport, sizeof sport, "%d", port);
    char *va[] = {service, "--port", "0", "--store-port", sport, "--arm", "F3-none",
                  "--round", "1", "--model", "build/prep/model.json", "--standin",
                  "build/prep/standin.tsv", "--out", vout, NULL};
    svc_pid = spawn(va, &svc_port);
}

static void stop(void)
{
    int st;
    kill(svc_pid, SIGTERM);
    waitpid(svc_pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the service stops cleanly (exit %d)", WEXITSTATUS(st));
    kill(store_pid, SIGTERM);
    waitpid(store_pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the store stops cleanly (exit %d)", WEXITSTATUS(st));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(service, .init = start, .fini = stop, .timeout = 60);

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)svc_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void send_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        cr_assert_gt(w, 0);
        s += w;
        n -= (size_t)w;
    }
}

/* Read one answer (head + Content-Length body) within 2 s; returns its status. */
static int read_answer(int fd, char *body, size_t cap)
{
    char buf[8192];
    size_t n = 0;
    int64_t t0 = ut_mono_ns();
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        cr_assert_gt(poll(&p, 1, 2000), 0, "no answer within 2 s");
        ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
        cr_assert_gt(r, 0, "connection closed before an answer");
        n += (size_t)r;
        buf[n] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
            char *cl = strcasestr(buf, "Content-Length:");
            cr_assert_not_null(cl);
            size_t len = (size_t)atol(cl + 15), head = (size_t)(end - buf) + 4;
            if (n >= head + len) {
                cr_assert_lt(len, cap);
                memcpy(body, buf + head, len);
                body[len] = 0;
                return atoi(buf + 9);
            }
        }
        cr_assert_lt(ut_mono_ns() - t0, 2000000000LL);
    }
}

static int ask(int fd, const char *body_json, char *answer, size_t cap)
{
    char req[512];
    int n = snprintf(req, sizeof req,
                     "POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     strlen(body_json), body_json);
    send_all(fd, req, (size_t)n);
    return read_answer(fd, answer, cap);
}

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

Test(service, live_answer_health_and_calls)
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

Test(service, malformed_http_is_400)
{
    expect_error("GARBAGE\r\n\r\n", 400, "malformed request line");
    expect_error("POST /score SPDY/3\r\n\r\n", 400, "not HTTP/1.1");
    expect_error("POST /score HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400, "Content-Length is not a number");
    expect_error("POST /score HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "Transfer-Encoding");
    expect_error("GET /nothing HTTP/1.1\r\n\r\n", 404, "no such resource");
}

Test(service, bad_bodies_are_400_with_a_reason)
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
        /* a bad body does not close a keep-alive connection */
        cr_assert_eq(ask(fd, "{\"id\":1,\"row\":3}", ans, sizeof ans), 200);
        close(fd);
    }
    still_correct();
}

Test(service, body_over_64k_is_413)
{
    expect_error("POST /score HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", 413, "over the 65536 allowed");
}

Test(service, half_request_does_not_delay_others)
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
