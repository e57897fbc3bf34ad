/* The load tester (lab/tester/tester.c) against a tiny HTTP server of this file.
 *
 * The server runs in a thread of the test on 127.0.0.1 (an ephemeral port),
 * keep-alive, one answer per request, Content-Length always.  Its answer to
 * request id J is fixed by J (so every row can be checked exactly):
 *   J % 50 == 13  504 {"id":J,"error":"deadline"}
 *   J % 10 == 7   200 kind last_known, score (J % 1000) / 1000 + 0.0001 (as float)
 *   J % 10 == 9   200 kind default, score 0.123456789 (as float)
 *   otherwise     200 kind live, score 0.5
 * It can stall once (sleep before answering request stall_id, reading
 * nothing meanwhile) and drop one request (close its connection unanswered).
 * It records the X-Budget-Ns header of every request.  A second listener
 * stands in for the store: it takes the tester's clock frame (--store-port).
 *
 * The tester binary is build/bin/tester (tests run from the repository root).
 * The tests read tester.tsv.gz back with zlib and decode it from
 * lab/RAWFORMAT.md, not with the lab's writer.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "gate.h"
#include "util.h"
#include "wire.h"
#include "tsh.h"

#ifndef TESTER /* -DTESTER='"path"' runs another build, e.g. a sanitizer one */
#define TESTER "build/bin/tester"
#endif
#define SRV_MAXID 65536

/* ------------------------------------------------------------ the server */

typedef struct {
    int fd;
    size_t n;
    char b[16384];
} sconn;

static struct {
    int lfd, ep, port;
    pthread_t th;
    volatile int stop;
    int64_t stall_id, stall_ns, drop_id;
    int64_t stall_begin, stall_end; /* CLOCK_MONOTONIC ns, 0 if no stall */
    int64_t budget[SRV_MAXID];      /* X-Budget-Ns per id, -1 when absent */
    long answered;
    sconn *open[8192]; /* connections not yet closed (slots reused) */
} S;

static void srv_track(sconn *c, sconn *put)
{
    for (size_t i = 0; i < sizeof S.open / sizeof S.open[0]; i++)
        if (S.open[i] == c) {
            S.open[i] = put;
            return;
        }
}

static float srv_score(int64_t id, const char **kind)
{
    if (id % 10 == 7) {
        *kind = "last_known";
        return (float)((double)(id % 1000) / 1000.0 + 0.0001);
    }
    if (id % 10 == 9) {
        *kind = "default";
        return 0.123456789f;
    }
    *kind = "live";
    return 0.5f;
}

static int srv_send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN || errno == EINTR) {
                usleep(100);
                continue;
            }
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Answers every complete request in c's buffer; -1 closes the connection. */
static int srv_serve(sconn *c)
{
    for (;;) {
        c->b[c->n] = 0;
        char *hend = strstr(c->b, "\r\n\r\n");
        if (!hend)
            return 0;
        long clen = 0;
        int64_t budget = -1;
        for (char *l = strstr(c->b, "\r\n") + 2; l < hend; l = strstr(l, "\r\n") + 2) {
            if (!strncasecmp(l, "Content-Length:", 15))
                clen = strtol(l + 15, NULL, 10);
            else if (!strncasecmp(l, "X-Budget-Ns:", 12))
                budget = strtoll(l + 12, NULL, 10);
        }
        size_t total = (size_t)(hend + 4 - c->b) + (size_t)clen;
        if (c->n < total)
            return 0;
        char body[256];
        snprintf(body, sizeof body, "%.*s", (int)clen, hend + 4);
        char *idp = strstr(body, "\"id\":");
        int64_t id = idp ? strtoll(idp + 5, NULL, 10) : -1;
        if (id >= 0 && id < SRV_MAXID)
            S.budget[id] = budget;
        if (id == S.drop_id)
            return -1;
        if (id == S.stall_id && S.stall_begin == 0) {
            S.stall_begin = ut_mono_ns();
            struct timespec ts = {.tv_sec = S.stall_ns / 1000000000, .tv_nsec = S.stall_ns % 1000000000};
            while (nanosleep(&ts, &ts) == EINTR)
                ;
            S.stall_end = ut_mono_ns();
        }
        char ans[256], out[512];
        int an, status = 200;
        if (id % 50 == 13) {
            status = 504;
            an = snprintf(ans, sizeof ans, "{\"id\":%lld,\"error\":\"deadline\"}", (long long)id);
        } else {
            const char *kind;
            float s = srv_score(id, &kind);
            an = snprintf(ans, sizeof ans, "{\"id\":%lld,\"score\":%.9g,\"kind\":\"%s\"}",
                          (long long)id, (double)s, kind);
        }
        int on = snprintf(out, sizeof out,
                          "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
                          "Content-Length: %d\r\n\r\n%s",
                          status, status == 200 ? "OK" : "Gateway Timeout", an, ans);
        if (srv_send_all(c->fd, out, (size_t)on) != 0)
            return -1;
        S.answered++;
        memmove(c->b, c->b + total, c->n - total);
        c->n -= total;
    }
}

static void *srv_main(void *arg)
{
    (void)arg;
    struct epoll_event evs[64];
    while (!S.stop) {
        int n = epoll_wait(S.ep, evs, 64, 50);
        for (int i = 0; i < n; i++) {
            if (evs[i].data.ptr == NULL) {
                int fd;
                while ((fd = accept4(S.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    sconn *c = calloc(1, sizeof *c);
                    c->fd = fd;
                    srv_track(NULL, c);
                    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
                    epoll_ctl(S.ep, EPOLL_CTL_ADD, fd, &ev);
                }
                continue;
            }
            sconn *c = evs[i].data.ptr;
            ssize_t r = recv(c->fd, c->b + c->n, sizeof c->b - 1 - c->n, 0);
            if (r < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (r > 0)
                c->n += (size_t)r;
            if (r <= 0 || srv_serve(c) != 0) {
                epoll_ctl(S.ep, EPOLL_CTL_DEL, c->fd, NULL);
                srv_track(c, NULL);
                close(c->fd);
                free(c);
            }
        }
    }
    for (size_t i = 0; i < sizeof S.open / sizeof S.open[0]; i++)
        if (S.open[i]) {
            close(S.open[i]->fd);
            free(S.open[i]);
            S.open[i] = NULL;
        }
    return NULL;
}

static void srv_start(int64_t stall_id, int64_t stall_ms, int64_t drop_id)
{
    memset(&S, 0, sizeof S);
    S.stall_id = stall_id;
    S.stall_ns = stall_ms * 1000000;
    S.drop_id = drop_id;
    for (int i = 0; i < SRV_MAXID; i++)
        S.budget[i] = -2; /* never asked */
    S.lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    cr_assert(S.lfd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert(bind(S.lfd, (struct sockaddr *)&a, sizeof a) == 0);
    cr_assert(listen(S.lfd, 4096) == 0);
    socklen_t len = sizeof a;
    getsockname(S.lfd, (struct sockaddr *)&a, &len);
    S.port = ntohs(a.sin_port);
    S.ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(S.ep, EPOLL_CTL_ADD, S.lfd, &ev);
    cr_assert(pthread_create(&S.th, NULL, srv_main, NULL) == 0);
}

static void srv_stop(void)
{
    S.stop = 1;
    pthread_join(S.th, NULL);
    close(S.lfd);
    close(S.ep);
}

/* ------------------------------------------------------------ the tester */

/* Runs the tester with argv (NULL-ended, argv[0] ignored); its stderr into
 * err.  Returns its exit code. */
static int run_tester(const char **argv, char *err, size_t errlen)
{
    struct stat st;
    cr_assert(stat(TESTER, &st) == 0, "%s is missing: build it before the tests", TESTER);
    int p[2];
    cr_assert(pipe(p) == 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 2);
        int dn = open("/dev/null", O_WRONLY);
        dup2(dn, 1);
        close(p[0]);
        close(p[1]);
        argv[0] = TESTER;
        execv(TESTER, (char *const *)argv);
        _exit(127);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t r;
    char sink[256];
    while ((r = read(p[0], n + 1 < errlen ? err + n : sink,
                     n + 1 < errlen ? errlen - 1 - n : sizeof sink)) > 0)
        if (n + 1 < errlen)
            n += (size_t)r;
    err[n] = 0;
    close(p[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

typedef struct {
    int64_t j, row, sched, send, answer, status, conn, waited;
    int has_send, has_answer, has_score, has_conn;
    char kind;
    float score;
} trow;

/* Reads tester.tsv.gz per lab/RAWFORMAT.md; returns the number of rows. */
static size_t read_rows(const char *path, trow **out)
{
    gzFile gz = gzopen(path, "rb");
    cr_assert(gz != NULL, "cannot open %s", path);
    char line[1024];
    cr_assert(gzgets(gz, line, sizeof line) != NULL);
    cr_assert_str_eq(line, "# lab-raw 3 tester\n");
    cr_assert(gzgets(gz, line, sizeof line) != NULL);
    cr_assert_str_eq(line, "j\trow\tsched_t\tsend_t\tanswer_t\tstatus\tkind\tscore\tconn\twaited\n");
    size_t n = 0, cap = 1024;
    trow *rows = malloc(cap * sizeof *rows);
    int64_t sum[3] = {0, 0, 0};
    int have[3] = {0, 0, 0};
    int lineno = 2;
    while (gzgets(gz, line, sizeof line)) {
        lineno++;
        size_t len = strlen(line);
        cr_assert(len > 0 && line[len - 1] == '\n', "%s:%d: line not ended", path, lineno);
        line[len - 1] = 0;
        char *f[10], *save = NULL, *tok;
        int nf = 0;
        for (tok = strtok_r(line, "\t", &save); tok; tok = strtok_r(NULL, "\t", &save))
            if (nf < 10)
                f[nf++] = tok;
            else
                nf++;
        cr_assert_eq(nf, 10, "%s:%d: %d fields", path, lineno, nf);
        if (n == cap)
            rows = realloc(rows, (cap *= 2) * sizeof *rows);
        trow *t = &rows[n++];
        memset(t, 0, sizeof *t);
        t->j = strtoll(f[0], NULL, 10);
        t->row = strtoll(f[1], NULL, 10);
        int64_t *tv[3] = {&t->sched, &t->send, &t->answer};
        int *th[3] = {NULL, &t->has_send, &t->has_answer};
        for (int c = 0; c < 3; c++) {
            if (!strcmp(f[2 + c], "-")) {
                cr_assert(c != 0, "%s:%d: sched_t absent", path, lineno);
                continue;
            }
            int64_t v = strtoll(f[2 + c], NULL, 10);
            sum[c] = have[c] ? sum[c] + v : v;
            have[c] = 1;
            *tv[c] = sum[c];
            if (th[c])
                *th[c] = 1;
        }
        t->status = strtoll(f[5], NULL, 10);
        cr_assert_eq(strlen(f[6]), 1);
        t->kind = f[6][0];
        if (strcmp(f[7], "-")) {
            t->has_score = 1;
            t->score = strtof(f[7], NULL);
        }
        if (strcmp(f[8], "-")) {
            t->has_conn = 1;
            t->conn = strtoll(f[8], NULL, 10);
        }
        t->waited = strtoll(f[9], NULL, 10);
    }
    int zerr;
    gzerror(gz, &zerr);
    cr_assert(zerr == Z_OK || zerr == Z_STREAM_END, "%s: gzip error", path);
    gzclose(gz);
    *out = rows;
    return n;
}

/* The number after "key": in the summary (keys are unique in it). */
static double jnum(const char *js, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(js, k);
    cr_assert(p != NULL, "summary has no %s", key);
    p += strlen(k);
    while (*p == ' ')
        p++;
    if (!strncmp(p, "true", 4))
        return 1;
    if (!strncmp(p, "false", 5))
        return 0;
    char *end;
    double v = strtod(p, &end);
    cr_assert(end != p, "summary's %s is not a number", key);
    return v;
}

static int64_t jint(const char *js, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(js, k);
    cr_assert(p != NULL, "summary has no %s", key);
    return strtoll(p + strlen(k), NULL, 10);
}

/* The schedule, regenerated from its definition in lab/tester/tester.c's header. */
static size_t poisson(uint64_t seed, double rate, double seconds, int64_t **out)
{
    ut_rng g;
    ut_rng_seed(&g, seed);
    int64_t span = llround(seconds * 1e9), off = 0;
    size_t n = 0, cap = 1024;
    int64_t *a = malloc(cap * sizeof *a);
    for (;;) {
        off += llround(ut_rng_exp(&g) * 1e9 / rate);
        if (off >= span)
            break;
        if (n == cap)
            a = realloc(a, (cap *= 2) * sizeof *a);
        a[n++] = off;
    }
    *out = a;
    return n;
}

typedef struct {
    char dir[64], out[128], sum[128], port[16];
} tmpfiles;

static void tmp_make(tmpfiles *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/test_tester.XXXXXX");
    cr_assert(mkdtemp(t->dir) != NULL);
    snprintf(t->out, sizeof t->out, "%s/tester.tsv.gz", t->dir);
    snprintf(t->sum, sizeof t->sum, "%s/summary.json", t->dir);
    snprintf(t->port, sizeof t->port, "%d", S.port);
}

static void tmp_clean(tmpfiles *t)
{
    unlink(t->out);
    unlink(t->sum);
    rmdir(t->dir);
}

/* Every answered row matches what the server answers for its j. */
static void check_answer(const trow *t)
{
    if (t->j % 50 == 13) {
        cr_assert_eq(t->status, 504, "j=%lld", (long long)t->j);
        cr_assert_eq(t->kind, 'E');
        cr_assert(!t->has_score);
        return;
    }
    const char *kind;
    float s = srv_score(t->j, &kind);
    cr_assert_eq(t->status, 200, "j=%lld", (long long)t->j);
    cr_assert_eq(t->kind, kind[0] == 'l' ? (kind[1] == 'i' ? 'L' : 'K') : 'D', "j=%lld",
                 (long long)t->j);
    cr_assert(t->has_score && t->score == s, "j=%lld score %.9g, want %.9g", (long long)t->j,
              (double)t->score, (double)s);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------- the tests */


/* Upper time bounds, as in test_store.c: a scenario that was only late
 * (this shared 2-core VM now and then pauses a process for milliseconds) is
 * run again, up to 3 times in all, and fails if it is late every time. */
static int tester_late;

static void tester_upper(double v, double below, const char *what)
{
    if (v >= below) {
        fprintf(stderr, "test_tester: %s was %.0f (bound %.0f); will retry\n", what, v, below);
        tester_late = 1;
    }
}

static void tester_retry(void (*scenario)(void), const char *name)
{
    for (int k = 0; k < 3; k++) {
        tester_late = 0;
        scenario();
        if (!tester_late)
            return;
    }
    cr_assert_fail("%s: late on 3 runs in a row", name);
}

static void sc_poisson(void)
{
    srv_start(-1, 0, -1);
    tmpfiles tf;
    tmp_make(&tf);
    char err[4096];
    const char *argv[] = {"", "--port", tf.port, "--rate", "500", "--seconds", "2", "--seed",
                          "20240601", "--rows", "37", "--out", tf.out, "--summary", tf.sum,
                          "--deadline-ms", "25", "--gate", "0", NULL};
    int rc = run_tester(argv, err, sizeof err);
    srv_stop();
    cr_assert_eq(rc, 0, "tester exit %d: %s", rc, err);

    int64_t *off;
    size_t n = poisson(20240601, 500, 2, &off);
    trow *t;
    size_t nr = read_rows(tf.out, &t);
    char *js = slurp(tf.sum);
    int64_t t0 = jint(js, "t0_ns");
    /* (c) one row per scheduled request, in j order */
    cr_assert_eq(nr, n, "rows %zu, schedule %zu", nr, n);
    cr_assert_eq(jint(js, "requests"), (int64_t)n);
    cr_assert_eq(jint(js, "answered"), (int64_t)n);
    cr_assert_eq(jint(js, "errors"), 0);
    cr_assert_eq(jint(js, "waited"), 0);
    cr_assert_eq(jint(js, "conns_opened"), 64);
    int64_t *late = malloc(n * sizeof *late);
    for (size_t j = 0; j < n; j++) {
        cr_assert_eq(t[j].j, (int64_t)j);
        cr_assert_eq(t[j].row, (int64_t)(j % 37));
        /* (a) the schedule, to the nanosecond */
        cr_assert_eq(t[j].sched - t0, off[j], "j=%zu: offset %lld, schedule %lld", j,
                     (long long)(t[j].sched - t0), (long long)off[j]);
        cr_assert(t[j].has_send && t[j].has_answer);
        cr_assert(t[j].send >= t[j].sched && t[j].answer > t[j].send, "j=%zu", j);
        cr_assert(t[j].has_conn && t[j].conn >= 0 && t[j].conn < 64 && t[j].waited == 0);
        check_answer(&t[j]);
        /* the budget runs from the scheduled arrival: 25 ms - lateness */
        int64_t want = 25000000 - (t[j].send - t[j].sched);
        cr_assert_eq(S.budget[j], want > 0 ? want : 0, "j=%zu: budget %lld, want %lld", j,
                     (long long)S.budget[j], (long long)want);
        late[j] = t[j].send - t[j].sched;
    }
    cr_assert_eq(S.budget[n], -2, "the server saw a request beyond the schedule");
    /* (a) Poisson at 500/s: mean gap within 10% of 2 ms, gaps' CV near 1 */
    double mean = (double)(t[n - 1].sched - t[0].sched) / (double)(n - 1), ss = 0;
    for (size_t j = 1; j < n; j++) {
        double g = (double)(t[j].sched - t[j - 1].sched) - mean;
        ss += g * g;
    }
    double cv = sqrt(ss / (double)(n - 2)) / mean;
    cr_assert(fabs(mean - 2e6) < 0.1 * 2e6, "mean gap %.0f ns", mean);
    cr_assert(cv > 0.85 && cv < 1.15, "coefficient of variation of the gaps %.3f", cv);
    cr_assert(n > 900 && n < 1100, "%zu requests in 2 s at 500/s", n);
    /* lateness: the summary's percentiles are the rows' (linear interpolation) */
    qsort(late, n, sizeof *late, cmp64);
    double h = (double)(n - 1) * 0.99;
    size_t lo = (size_t)h;
    double p99 = (double)late[lo] + (h - (double)lo) * (double)(late[lo + 1] - late[lo]);
    cr_assert(fabs(jnum(js, "late_p99_ns") - p99) < 1e-6 * (p99 + 1));
    cr_assert_eq(jint(js, "late_max_ns"), late[n - 1]);
    /* a sanity bound only (other tests may share the cores): sleeping timers
     * that were off by milliseconds would fail it */
    tester_upper((double)late[n / 2], 1e6, "median lateness (ns)");
    cr_log_info("lateness at 500/s: p50 %lld ns, p99 %.0f ns, max %lld ns", (long long)late[n / 2],
                p99, (long long)late[n - 1]);
    free(late);
    free(off);
    free(t);
    free(js);
    tmp_clean(&tf);
}

Test(tester, schedule_is_the_seeded_poisson, .timeout = 180) { tester_retry(sc_poisson, "schedule_is_the_seeded_poisson"); }

Test(tester, latency_runs_from_the_scheduled_time, .timeout = 60)
{
    /* the server stops reading for 200 ms when request 500 (about 1 s in) arrives */
    srv_start(500, 200, -1);
    tmpfiles tf;
    tmp_make(&tf);
    char err[4096];
    const char *argv[] = {"", "--port", tf.port, "--rate", "500", "--seconds", "2", "--seed", "7",
                          "--rows", "1000", "--out", tf.out, "--summary", tf.sum, "--conns",
                          "256", "--gate", "0", NULL};
    int rc = run_tester(argv, err, sizeof err);
    srv_stop();
    cr_assert_eq(rc, 0, "tester exit %d: %s", rc, err);
    cr_assert(S.stall_begin > 0 && S.stall_end - S.stall_begin >= 200000000);
    trow *t;
    size_t n = read_rows(tf.out, &t);
    char *js = slurp(tf.sum);
    cr_assert_eq(jint(js, "requests"), (int64_t)n);
    cr_assert_eq(jint(js, "waited"), 0, "256 connections are enough: none waited");
    size_t in_stall = 0, early = 0;
    for (size_t j = 0; j < n; j++) {
        cr_assert(t[j].has_answer, "j=%zu unanswered", j);
        check_answer(&t[j]);
        if (t[j].sched < S.stall_begin || t[j].sched >= S.stall_end)
            continue;
        in_stall++;
        /* its latency holds the rest of the stall, however early it was sent */
        int64_t lat = t[j].answer - t[j].sched, rest = S.stall_end - t[j].sched;
        cr_assert(lat >= rest, "j=%zu: latency %lld ns < remaining stall %lld ns", j,
                  (long long)lat, (long long)rest);
        /* ... and it was sent on time, while the server was stalled */
        if (t[j].sched < S.stall_end - 10000000) {
            early++;
            cr_assert(t[j].send < S.stall_end, "j=%zu: sent %lld ns after the stall", j,
                      (long long)(t[j].send - S.stall_end));
            cr_assert(t[j].answer - t[j].send < lat);
        }
    }
    /* 500/s over 200 ms: about 100 requests, 95 of them more than 10 ms before its end */
    cr_assert(in_stall >= 60 && in_stall <= 150, "%zu requests scheduled in the stall", in_stall);
    cr_assert(early >= 50);
    free(t);
    free(js);
    tmp_clean(&tf);
}

Test(tester, every_arrival_gets_a_row_with_few_connections, .timeout = 60)
{
    /* 2 connections; a 150 ms stall at request 300 forces new ones; request
     * 100's connection is closed by the server without an answer */
    srv_start(300, 150, 100);
    tmpfiles tf;
    tmp_make(&tf);
    char err[4096];
    const char *argv[] = {"", "--port", tf.port, "--rate", "400", "--seconds", "1.5", "--seed",
                          "99", "--rows", "5", "--out", tf.out, "--summary", tf.sum, "--conns",
                          "2", "--gate", "0", NULL};
    int rc = run_tester(argv, err, sizeof err);
    srv_stop();
    cr_assert_eq(rc, 0, "tester exit %d: %s", rc, err);
    int64_t *off;
    size_t ns = poisson(99, 400, 1.5, &off);
    trow *t;
    size_t n = read_rows(tf.out, &t);
    char *js = slurp(tf.sum);
    cr_assert_eq(n, ns);
    cr_assert_eq(jint(js, "requests"), (int64_t)n);
    cr_assert_eq(jint(js, "answered"), (int64_t)n - 1);
    cr_assert_eq(jint(js, "errors"), 1);
    int64_t waited = jint(js, "waited"), t0 = jint(js, "t0_ns");
    cr_assert(waited >= 20, "only %lld requests waited for a connection", (long long)waited);
    cr_assert_eq(jint(js, "conns_reopened"), 1);
    cr_assert_eq(jint(js, "conns_opened"), 2 + waited + 1);
    char *seen = calloc((size_t)(2 + waited + 1), 1);
    int64_t nw = 0;
    for (size_t j = 0; j < n; j++) {
        cr_assert_eq(t[j].j, (int64_t)j);
        cr_assert_eq(t[j].row, (int64_t)(j % 5));
        cr_assert_eq(t[j].sched - t0, off[j]);
        cr_assert(t[j].has_send && t[j].has_conn);
        if (j == 100) { /* lost with its connection */
            cr_assert(!t[j].has_answer && t[j].status == 0 && t[j].kind == 'E' && !t[j].has_score);
            continue;
        }
        cr_assert(t[j].has_answer, "j=%zu", j);
        check_answer(&t[j]);
        if (t[j].waited) { /* each on a connection of its own, opened for it */
            nw++;
            cr_assert(t[j].conn >= 2 && t[j].conn < 2 + waited + 1 && !seen[t[j].conn]);
            seen[t[j].conn] = 1;
        }
    }
    cr_assert_eq(nw, waited);
    free(seen);
    free(off);
    free(t);
    free(js);
    tmp_clean(&tf);
}

static void sc_drain(void)
{
    /* the server freezes 2.5 s at request 150 (about 0.75 s in); the tester
     * waits only 0.5 s after its last send */
    srv_start(150, 2500, -1);
    tmpfiles tf;
    tmp_make(&tf);
    char err[4096];
    const char *argv[] = {"", "--port", tf.port, "--rate", "200", "--seconds", "1", "--seed", "11",
                          "--rows", "50", "--out", tf.out, "--summary", tf.sum, "--drain-s", "0.5",
                          "--gate", "0", NULL};
    int64_t start = ut_mono_ns();
    int rc = run_tester(argv, err, sizeof err);
    int64_t took = ut_mono_ns() - start;
    srv_stop();
    cr_assert_eq(rc, 0, "tester exit %d: %s", rc, err);
    tester_upper((double)took, 2.5e9, "the tester's wait past its last send and drain (ns)");
    trow *t;
    size_t n = read_rows(tf.out, &t);
    char *js = slurp(tf.sum);
    cr_assert_eq(jint(js, "requests"), (int64_t)n);
    int64_t lost = 0, e504 = 0;
    for (size_t j = 0; j < n; j++) {
        cr_assert(t[j].has_send, "j=%zu never sent", j);
        e504 += t[j].status == 504;
        if (t[j].sched >= S.stall_begin) {
            cr_assert(!t[j].has_answer && t[j].status == 0 && t[j].kind == 'E' && !t[j].has_score,
                      "j=%zu answered during the freeze", j);
        } else if (t[j].sched < S.stall_begin - 5000000) {
            cr_assert(t[j].has_answer, "j=%zu", j);
            check_answer(&t[j]);
        }
        lost += !t[j].has_answer;
    }
    cr_assert(lost >= 30, "only %lld requests unanswered", (long long)lost);
    cr_assert_eq(jint(js, "errors"), lost);
    cr_assert_eq(jint(js, "answered"), (int64_t)n - lost);
    cr_assert_eq(jint(js, "E"), lost + e504); /* kinds: no answer, or an error status */
    free(t);
    free(js);
    tmp_clean(&tf);
}

Test(tester, unanswered_after_the_drain_are_rows_with_status_0, .timeout = 180) { tester_retry(sc_drain, "unanswered_after_the_drain"); }

static void sc_closed(void)
{
    srv_start(-1, 0, -1);
    tmpfiles tf;
    tmp_make(&tf);
    char err[4096];
    const char *argv[] = {"", "--port", tf.port, "--rate", "max", "--seconds", "1", "--seed", "1",
                          "--rows", "100", "--out", tf.out, "--summary", tf.sum, "--gate", "0",
                          NULL};
    int rc = run_tester(argv, err, sizeof err);
    long served = S.answered;
    srv_stop();
    cr_assert_eq(rc, 0, "tester exit %d: %s", rc, err);
    trow *t;
    size_t n = read_rows(tf.out, &t);
    char *js = slurp(tf.sum);
    cr_assert_gt(n, 0);
    tester_upper(1000.0 / (double)n, 1.0, "1000 over the closed loop's answers in 1 s");
    cr_assert_eq(jint(js, "requests"), (int64_t)n);
    cr_assert_eq(jint(js, "answered"), (int64_t)n);
    cr_assert_eq((long)n, served);
    cr_assert_eq(jint(js, "conns_opened"), 16);
    int64_t t0 = jint(js, "t0_ns");
    for (size_t j = 0; j < n; j++) {
        cr_assert_eq(t[j].j, (int64_t)j);
        cr_assert_eq(t[j].sched, t[j].send, "j=%zu", j);
        cr_assert(t[j].has_answer && t[j].answer > t[j].send);
        cr_assert(t[j].conn >= 0 && t[j].conn < 16);
        if (j)
            cr_assert(t[j].send >= t[j - 1].send, "j in send order");
        cr_assert(t[j].send >= t0);
        check_answer(&t[j]);
    }
    tester_upper((double)(t[n - 1].send - t0), 1.2e9, "the last closed-loop send after t0 (ns)");
    cr_log_info("closed loop, 16 connections: %zu answers in 1 s", n);
    free(t);
    free(js);
    tmp_clean(&tf);
}

Test(tester, closed_loop_capacity, .timeout = 180) { tester_retry(sc_closed, "closed_loop_capacity"); }

/* ------------------------------------------------- the store's clock frame */

/* The store's stand-in: accepts one connection (within 10 s) and reads it
 * to its end. */
static struct {
    int lfd, port;
    pthread_t th;
    unsigned char b[64];
    size_t n;
    int64_t accepted; /* CLOCK_MONOTONIC ns when the connection was taken */
} K;

static void *clock_main(void *arg)
{
    (void)arg;
    int fd = accept(K.lfd, NULL, NULL);
    K.accepted = ut_mono_ns();
    ssize_t r;
    while (fd >= 0 && K.n < sizeof K.b && (r = read(fd, K.b + K.n, sizeof K.b - K.n)) > 0)
        K.n += (size_t)r;
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* A port on 127.0.0.1: listened on (listen 1) or, with listen 0, free. */
static int loopback_port(int listen_too, int *fd_out)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    cr_assert(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    if (listen_too) {
        struct timeval tv = {10, 0}; /* accept gives up after 10 s: a tester that never comes fails, not hangs */
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        cr_assert(listen(fd, 8) == 0);
        *fd_out = fd;
    } else {
        close(fd);
    }
    return ntohs(a.sin_port);
}

static void sc_clock(void)
{
    srv_start(-1, 0, -1);
    memset(&K, 0, sizeof K);
    K.port = loopback_port(1, &K.lfd);
    cr_assert(pthread_create(&K.th, NULL, clock_main, NULL) == 0);
    tmpfiles tf;
    tmp_make(&tf);
    char err[4096], sport[16];
    snprintf(sport, sizeof sport, "%d", K.port);
    const char *argv[] = {"", "--port", tf.port, "--rate", "200", "--seconds", "0.5", "--seed", "5", "--rows",
                          "100", "--out", tf.out, "--summary", tf.sum, "--gate", "0", "--store-port", sport, NULL};
    int rc = run_tester(argv, err, sizeof err);
    srv_stop();
    pthread_join(K.th, NULL);
    close(K.lfd);
    cr_assert_eq(rc, 0, "tester exit %d: %s", rc, err);
    trow *t;
    size_t n = read_rows(tf.out, &t);
    char *js = slurp(tf.sum);
    /* one frame of 32 bytes, then the connection closed */
    cr_assert_eq(K.n, WIRE_REQ_SIZE, "%zu bytes on the store's connection", K.n);
    uint32_t magic, zero4;
    memcpy(&magic, K.b, 4);
    memcpy(&zero4, K.b + 4, 4);
    cr_assert_eq(magic, 0x4b434c4bu, "magic %#x", magic);
    cr_assert_eq(zero4, 0);
    for (int i = 16; i < 32; i++)
        cr_assert_eq(K.b[i], 0, "byte %d", i);
    int64_t t0;
    cr_assert_eq(wire_get_clock(K.b, &t0), 0);
    /* the tester's own t0: in its summary, and the base of every sched_t */
    cr_assert_eq(t0, jint(js, "t0_ns"));
    int64_t *off;
    size_t ns = poisson(5, 200, 0.5, &off);
    cr_assert(n == ns && n > 0, "%zu rows, %zu scheduled", n, ns);
    cr_assert_eq(t[0].sched - t0, off[0]);
    /* taken before the first request went (that is at least 20 ms after t0
     * was fixed; a thread of this test can be late on this shared VM) */
    cr_assert(t[0].has_send);
    tester_upper((double)(K.accepted - t[0].send), 0, "the clock frame's arrival after the first send (ns)");
    free(off);
    free(t);
    free(js);
    tmp_clean(&tf);
}

Test(tester, clock_frame_tells_the_store_t0_before_the_first_request, .timeout = 120)
{
    tester_retry(sc_clock, "clock_frame_tells_the_store_t0_before_the_first_request");
}

Test(tester, store_port_not_listening_is_exit_1_naming_the_port, .timeout = 30)
{
    srv_start(-1, 0, -1);
    tmpfiles tf;
    tmp_make(&tf);
    int dummy = -1, port = loopback_port(0, &dummy);
    char err[4096], sport[16], want[64];
    snprintf(sport, sizeof sport, "%d", port);
    const char *argv[] = {"", "--port", tf.port, "--rate", "100", "--seconds", "0.5", "--seed", "5", "--rows",
                          "100", "--out", tf.out, "--summary", tf.sum, "--gate", "0", "--store-port", sport, NULL};
    int rc = run_tester(argv, err, sizeof err);
    srv_stop();
    cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
    snprintf(want, sizeof want, "127.0.0.1:%d (--store-port)", port);
    cr_assert(strstr(err, want), "message '%s'", err);
    struct stat st;
    cr_assert(stat(tf.out, &st) != 0 && stat(tf.sum, &st) != 0, "files written after the failure");
    cr_assert_eq(S.answered, 0, "requests were sent: %ld", S.answered);
    tmp_clean(&tf);
}

Test(tester, bad_options_exit_2_naming_the_option, .timeout = 30)
{
    static const struct {
        const char *opt, *val, *name;
    } cases[] = {
        {"--rate", "abc", "--rate"},   {"--rate", "-5", "--rate"},     {"--port", "0", "--port"},
        {"--port", "70000", "--port"}, {"--seconds", "0", "--seconds"}, {"--conns", "0", "--conns"},
        {"--gate", "2", "--gate"},     {"--rows", "x", "--rows"},      {"--bogus", "1", "--bogus"},
        {"--deadline-ms", "-1", "--deadline-ms"}, {"--seed", "-3", "--seed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[] = {"", "--port", "1", "--rate", "10", "--seconds", "1", "--seed", "1",
                              "--rows", "10", "--out", "/tmp/never.tsv.gz", "--summary",
                              "/tmp/never.json", "--gate", "0", cases[i].opt, cases[i].val, NULL};
        char err[4096];
        int rc = run_tester(argv, err, sizeof err);
        cr_assert_eq(rc, 2, "%s %s: exit %d", cases[i].opt, cases[i].val, rc);
        cr_assert(strstr(err, cases[i].name) != NULL, "%s %s: message '%s'", cases[i].opt,
                  cases[i].val, err);
        cr_assert(strchr(err, '\n') == strrchr(err, '\n'), "one message: '%s'", err);
    }
    /* a required option left out is named */
    const char *argv[] = {"", "--port", "1", "--rate", "10", "--seconds", "1", "--seed", "1",
                          "--rows", "10", "--summary", "/tmp/never.json", NULL};
    char err[4096];
    cr_assert_eq(run_tester(argv, err, sizeof err), 2);
    cr_assert(strstr(err, "--out") != NULL, "message '%s'", err);
}

Test(tester, idle_gate_reports_what_it_saw, .timeout = 60)
{
    srv_start(-1, 0, -1);
    tmpfiles tf;
    tmp_make(&tf);
    char err[4096];
    const char *argv[] = {"", "--port", tf.port, "--rate", "50", "--seconds", "0.2", "--seed",
                          "3", "--rows", "10", "--out", tf.out, "--summary", tf.sum,
                          "--gate-wait-s", "0", NULL};
    int64_t t = ut_mono_ns();
    int rc = run_tester(argv, err, sizeof err);
    int64_t took = ut_mono_ns() - t;
    srv_stop();
    /* one window of GATE_WINDOW_S: passed (exit 0) or not (exit 3), never anything else */
    cr_assert(rc == 0 || rc == 3, "exit %d: %s", rc, err);
    cr_assert(took >= (long long)(GATE_WINDOW_S * 1e9), "the gate took %lld ns, less than its window",
              (long long)took);
    char *js = slurp(tf.sum);
    double idle = jnum(js, "idle_share"), steal = jnum(js, "steal_share");
    cr_assert(idle >= 0 && idle <= 1 && steal >= 0 && steal <= 1);
    cr_assert(jnum(js, "waited_s") >= GATE_WINDOW_S);
    cr_assert(jint(js, "users_start") >= 0 && jint(js, "users_end") >= 0);
    int passed = (int)jnum(js, "passed");
    cr_assert_eq(passed, idle >= 0.95, "passed %d with idle share %.4f", passed, idle);
    cr_assert_eq(passed, rc == 0);
    struct stat st;
    if (rc == 3) {
        cr_assert(stat(tf.out, &st) != 0, "no rows when the gate did not pass");
        cr_assert_eq(jint(js, "requests"), 0);
        cr_assert(strstr(err, "idle") != NULL);
    } else {
        cr_assert(stat(tf.out, &st) == 0);
    }
    cr_log_info("idle gate: idle %.4f steal %.4f passed %d", idle, steal, passed);
    free(js);
    tmp_clean(&tf);
}
