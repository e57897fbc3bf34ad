/* bench_frontdoor: the service's front door under idle and stalled
 * connections, for `make bench-frontdoor` (also the last part of `make
 * bench`).  Figures side by side, not a test.
 *
 *   bench_frontdoor [--idle 10000] [--slow 1000] [--heads 20000] [--rate 300] [--seconds 10]
 *                   [--probe-ms 20] [--core 1] [--bin build/bin] [--prep build/prep]
 *                   [--dir build/bench/frontdoor]
 *
 * A real store (wait F) and service (arm F3-none, its default front-door
 * limits: lab/core/doortimes.h, lab/service/front.h) pinned to --core; the
 * lab's open-loop tester, pinned likewise, sends --rate requests a second
 * for --seconds three times: alone; with --idle keep-alive connections held
 * open (each has had one request answered, then says nothing); and with
 * --slow connections more, each having sent half a request head and then
 * stalling.  Each phase prints the tester's latency (p50, p99, max, from
 * the scheduled arrival; lab/RAWFORMAT.md), its errors, and the service's
 * VmRSS and VmHWM (/proc/<pid>/status) at its end; then how many held
 * connections the service closed (the half heads outlive the header
 * timeout, 10 s).  Targets (issue 17): p99 with the held connections
 * within 2x of the p99 alone, and the service under 256 MB with 10,000
 * connections.
 *
 * A fresh client (issue 31): every --probe-ms for --seconds a new
 * connection, one POST /score, its answer, closed; its latency from the
 * connect to the answer's last byte.  Measured with the --idle connections
 * held (before the half heads come); then, with every earlier connection
 * closed and a service of its own whose header timeout (600 s) outlasts
 * the case (what is measured is the shedding; the phase above shows the
 * timeout), while --heads connections each send half a request head and
 * stall, and for --seconds once they are all held: more than the
 * service's cap (the limit of open files less 64), so it sheds the
 * oldest to take the newcomers.  The heads are held by child processes
 * of at most HOLDER_CONNS each (each process has the limit of open
 * files).  The fresh client and each holder dial from a loopback address
 * of their own (dial_from: else the client's kernel, searching its
 * ephemeral ports among 20,000 held, adds ms to each connect).  Target:
 * the fresh client's p99 within 10 ms.
 *
 * The file-descriptor limit is raised to the hard limit (the service
 * inherits it); it needs idle + slow + about 100, and each holder its
 * connections + about 100.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "doortimes.h"

#include "opt.h"
#include "rawfmt.h"
#include "util.h"

typedef struct {
    int idle, slow, heads, rate, seconds, probe_ms, core;
    const char *bin, *prep, *dir;
} bench_opts;

/* A fresh client's figures: each connect to the answer's last byte. */
typedef struct {
    double p50, p99, max; /* ms */
    size_t n, failed;
} probe;

#define HOLDER_CONNS 10000  /* half heads one holder process keeps open at most */
#define FD_SPARE 100        /* descriptors a process needs beside its held connections */
#define FRESH_TARGET_MS 10.0 /* the fresh client's p99 target */
#define HEADS_HEADER_TIMEOUT_S 600 /* the half heads' case: the service's header timeout outlasts it */
#define FILL_MAX_S 120       /* the longest the fresh client is measured while the heads are opened */
#define FRESH_SRC 0x7f000002u  /* 127.0.0.2: the fresh client's own loopback address (dial_from) */
#define HOLDER_SRC 0x7f000010u /* 127.0.0.16, .17 ...: each holder's */
#define SERVICE_FD_RESERVE 64 /* the service's descriptors kept from clients (FRONT_FD_RESERVE, lab/service/front.h) */

typedef struct {
    const char *name;
    double p50, p99, max; /* ms */
    size_t n, errors;
    long rss_kb, hwm_kb;
} phase;

static pid_t kids[2]; /* the store and the service, stopped on any way out */

static void stop_kids(void)
{
    for (int i = 1; i >= 0; i--)
        if (kids[i] > 0) {
            kill(kids[i], SIGTERM);
            waitpid(kids[i], NULL, 0);
            kids[i] = 0;
        }
}

static void die(const char *what)
{
    fprintf(stderr, "bench_frontdoor: %s\n", what);
    stop_kids();
    exit(1);
}

/* A child pinned to core, its stdout (when pipe_out) on a pipe whose read end goes to *out. */
static pid_t spawn(char *const argv[], int core, int pipe_out, int *out)
{
    int fd[2] = {-1, -1};
    if (pipe_out && pipe(fd) != 0)
        die("pipe");
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        cpu_set_t s;
        CPU_ZERO(&s);
        CPU_SET(core, &s);
        sched_setaffinity(0, sizeof s, &s);
        if (pipe_out) {
            dup2(fd[1], 1);
            close(fd[0]);
            close(fd[1]);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    if (pipe_out) {
        close(fd[1]);
        *out = fd[0];
    }
    return pid;
}

/* "...: listening on 127.0.0.1:PORT" from a child's first line. */
static int read_port(int fd, const char *who)
{
    char line[256];
    size_t n = 0;
    while (n < sizeof line - 1) {
        ssize_t r = read(fd, line + n, 1);
        if (r <= 0 || line[n] == '\n')
            break;
        n++;
    }
    line[n] = 0;
    char *colon = strrchr(line, ':');
    int port = colon ? atoi(colon + 1) : 0;
    if (port <= 0) {
        fprintf(stderr, "bench_frontdoor: %s did not start: %s\n", who, line);
        exit(1);
    }
    return port;
}

/* A connection to 127.0.0.1:port from the loopback address `src` (host
 * order; 0: the kernel's choice, 127.0.0.1).  With thousands of
 * connections held from one address to one port, the client's kernel
 * searches the ephemeral ports for a free 4-tuple at each connect (ms with
 * 15,000 held): the fresh client and each holder dial from an address of
 * their own (IP_BIND_ADDRESS_NO_PORT: the port is chosen at connect, for
 * that address alone), so that search is not counted as the service's. */
static int dial_from(int port, uint32_t src)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && src) {
        int one = 1;
        struct sockaddr_in b = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(src)};
        if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) != 0 ||
            bind(fd, (struct sockaddr *)&b, sizeof b) != 0) {
            close(fd);
            return -1;
        }
    }
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int dial(int port) { return dial_from(port, 0); }

/* One request on fd (not read yet): 0 or -1. */
static int send_one(int fd, int id)
{
    char req[256], body[64];
    int bl = snprintf(body, sizeof body, "{\"id\":%d,\"row\":%d}", id, id % 100);
    int n = snprintf(req, sizeof req,
                     "POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                     bl, body);
    return write(fd, req, (size_t)n) == n ? 0 : -1;
}

/* The whole answer on fd (head and Content-Length body): 0 when 200, else -1. */
static int read_one(int fd)
{
    char buf[4096];
    size_t got = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0)
            return -1;
        ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
        buf[got] = 0;
        char *end = strstr(buf, "\r\n\r\n"), *cl = strcasestr(buf, "Content-Length:");
        if (end && cl && got >= (size_t)(end - buf) + 4 + (size_t)atol(cl + 15))
            return atoi(buf + 9) == 200 ? 0 : -1;
        if (got == sizeof buf - 1)
            return -1;
    }
}

static void mem_of(pid_t pid, long *rss, long *hwm)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    *rss = *hwm = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "VmRSS:", 6))
            *rss = atol(line + 6);
        if (!strncmp(line, "VmHWM:", 6))
            *hwm = atol(line + 6);
    }
    if (f)
        fclose(f);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double pct(const int64_t *v, size_t n, double q)
{
    if (!n)
        return 0;
    double h = (double)(n - 1) * q;
    size_t f = (size_t)h, c = f + 1 < n ? f + 1 : n - 1;
    return (double)v[f] + (h - (double)f) * (double)(v[c] - v[f]);
}

/* The tester for one phase; its latencies from tester.tsv.gz. */
static void run_phase(const bench_opts *o, int port, long rows, pid_t service, phase *ph, int k)
{
    char exe[4200], s_port[16], s_rate[16], s_secs[16], s_rows[32], f_out[4300], f_sum[4300];
    snprintf(exe, sizeof exe, "%s/tester", o->bin);
    snprintf(s_port, sizeof s_port, "%d", port);
    snprintf(s_rate, sizeof s_rate, "%d", o->rate);
    snprintf(s_secs, sizeof s_secs, "%d", o->seconds);
    snprintf(s_rows, sizeof s_rows, "%ld", rows);
    snprintf(f_out, sizeof f_out, "%s/tester%d.tsv.gz", o->dir, k);
    snprintf(f_sum, sizeof f_sum, "%s/tester%d.json", o->dir, k);
    char *argv[] = {exe, "--port", s_port, "--rate", s_rate, "--seconds", s_secs, "--seed", "17", "--rows", s_rows,
                    "--out", f_out, "--summary", f_sum, "--gate", "0", NULL};
    int tfd;
    pid_t t = spawn(argv, o->core, 1, &tfd); /* its t0 line: read and dropped */
    char sink[256];
    while (read(tfd, sink, sizeof sink) > 0)
        ;
    close(tfd);
    int st;
    waitpid(t, &st, 0);
    mem_of(service, &ph->rss_kb, &ph->hwm_kb);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_frontdoor: the tester failed (status %d) in phase %s\n", st, ph->name);
        return;
    }
    rawfmt_file f;
    char err[512];
    if (rawfmt_read(f_out, RAWFMT_TESTER, &f, err, sizeof err) != 0) {
        fprintf(stderr, "bench_frontdoor: %s\n", err);
        return;
    }
    int64_t *lat = malloc((f.n + 1) * sizeof *lat);
    size_t nl = 0;
    for (size_t i = 0; i < f.n; i++) {
        int64_t a = f.col[RAWFMT_TESTER_answer_t][i];
        if (a != RAW_NONE && f.col[RAWFMT_TESTER_status][i] == 200)
            lat[nl++] = a - f.col[RAWFMT_TESTER_sched_t][i];
    }
    qsort(lat, nl, sizeof *lat, cmp64);
    ph->n = f.n;
    ph->errors = f.n - nl;
    ph->p50 = pct(lat, nl, 0.5) / 1e6;
    ph->p99 = pct(lat, nl, 0.99) / 1e6;
    ph->max = nl ? (double)lat[nl - 1] / 1e6 : 0;
    free(lat);
    rawfmt_file_free(&f);
}

/* A holder: a child process keeping `count` connections that each sent
 * half a request head (holder_main). */
typedef struct {
    pid_t pid;
    int ctl, report; /* the parent's ends */
} holder;

/* 1 when every holder has said it holds all its connections (its report
 * is readable). */
static int holders_filled(const holder *hs, int nh)
{
    for (int k = 0; k < nh; k++) {
        struct pollfd p = {hs[k].report, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0)
            return 0;
    }
    return 1;
}

/* A fresh client every o->probe_ms: `cap` of them, or (hs given) until
 * every holder holds its connections; each one's start (ns,
 * CLOCK_MONOTONIC) in start[k] and its latency in lat[k] (-1: failed).
 * Returns how many. */
static size_t fresh_clients_until(const bench_opts *o, int port, int64_t *start, int64_t *lat, size_t cap,
                                  const holder *hs, int nh)
{
    int64_t t_first = ut_mono_ns(), gap = (int64_t)o->probe_ms * 1000000;
    size_t k = 0;
    for (; k < cap && !(hs && holders_filled(hs, nh)); k++) {
        int64_t due = t_first + (int64_t)k * gap, now = ut_mono_ns();
        if (due > now) {
            struct timespec ts = {(time_t)((due - now) / 1000000000), (long)((due - now) % 1000000000)};
            nanosleep(&ts, NULL);
        }
        int64_t t0 = ut_mono_ns();
        int fd = dial_from(port, FRESH_SRC);
        int ok = fd >= 0 && send_one(fd, 2000000 + (int)k) == 0 && read_one(fd) == 0;
        int64_t t1 = ut_mono_ns();
        if (fd >= 0)
            close(fd);
        start[k] = t0;
        lat[k] = ok ? t1 - t0 : -1;
    }
    return k;
}

/* The fresh clients of o->seconds. */
static size_t probe_count(const bench_opts *o) { return (size_t)o->seconds * 1000 / (size_t)o->probe_ms + 1; }

static size_t fresh_clients(const bench_opts *o, int port, int64_t *start, int64_t *lat)
{
    return fresh_clients_until(o, port, start, lat, probe_count(o), NULL, 0);
}

/* The figures of the fresh clients that started in [from, to). */
static void probe_stats(const int64_t *start, const int64_t *lat, size_t n, int64_t from, int64_t to, probe *pr)
{
    int64_t *v = malloc((n + 1) * sizeof *v);
    if (!v)
        die("out of memory");
    size_t m = 0;
    memset(pr, 0, sizeof *pr);
    for (size_t k = 0; k < n; k++)
        if (start[k] >= from && start[k] < to) {
            pr->n++;
            if (lat[k] < 0)
                pr->failed++;
            else
                v[m++] = lat[k];
        }
    qsort(v, m, sizeof *v, cmp64);
    pr->p50 = pct(v, m, 0.5) / 1e6;
    pr->p99 = pct(v, m, 0.99) / 1e6;
    pr->max = m ? (double)v[m - 1] / 1e6 : 0;
    free(v);
}

/* A holder's life: it opens `count` connections, each sending half a
 * request head; says on `report` how many it opened and when it was done,
 * then, when `ctl` has a byte (or EOF), how many the service has closed
 * since; and exits. */

static const char half_head[] = "POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: appli";

static int closed_by_service(const int *fds, int n);

static void holder_main(int port, int count, uint32_t src, int ctl, int report)
{
    int *fds = malloc(sizeof *fds * (size_t)count), opened = 0;
    for (int i = 0; fds && i < count; i++) {
        fds[i] = dial_from(port, src);
        if (fds[i] < 0 || write(fds[i], half_head, sizeof half_head - 1) != (ssize_t)(sizeof half_head - 1)) {
            if (fds[i] >= 0)
                close(fds[i]);
            break;
        }
        opened++;
    }
    int64_t done = ut_mono_ns(); /* CLOCK_MONOTONIC: the parent's clock too */
    if (write(report, &opened, sizeof opened) != (ssize_t)sizeof opened ||
        write(report, &done, sizeof done) != (ssize_t)sizeof done)
        _exit(1);
    char c;
    if (read(ctl, &c, 1) < 0)
        _exit(1);
    int closed = fds ? closed_by_service(fds, opened) : 0;
    if (write(report, &closed, sizeof closed) != (ssize_t)sizeof closed)
        _exit(1);
    _exit(0);
}

static holder start_holder(int port, int count, uint32_t src)
{
    int ctl[2], rep[2];
    if (pipe(ctl) != 0 || pipe(rep) != 0)
        die("pipe");
    holder h = {.pid = fork()};
    if (h.pid < 0)
        die("fork");
    if (h.pid == 0) {
        close(ctl[1]);
        close(rep[0]);
        holder_main(port, count, src, ctl[0], rep[1]);
    }
    close(ctl[0]);
    close(rep[1]);
    h.ctl = ctl[1];
    h.report = rep[0];
    return h;
}

/* One int from a holder (-1 when it is gone). */
static int holder_says(const holder *h)
{
    int v = -1;
    return read(h->report, &v, sizeof v) == (ssize_t)sizeof v ? v : -1;
}

/* When a holder had opened all its connections (0 when it is gone). */
static int64_t holder_done_at(const holder *h)
{
    int64_t t = 0;
    return read(h->report, &t, sizeof t) == (ssize_t)sizeof t ? t : 0;
}

/* Held connections the service has closed (readable at EOF, or an error). */
static int closed_by_service(const int *fds, int n)
{
    int closed = 0;
    for (int i = 0; i < n; i++) {
        struct pollfd p = {fds[i], POLLIN | POLLRDHUP, 0};
        char c;
        if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR) || recv(fds[i], &c, 1, MSG_PEEK) == 0))
            closed++;
    }
    return closed;
}

int main(int argc, char **argv)
{
    ut_set_prog("bench_frontdoor");
    bench_opts o = {.idle = 10000, .slow = 1000, .heads = 20000, .rate = 300, .seconds = 10, .probe_ms = 20,
                    .core = 1, .bin = "build/bin", .prep = "build/prep", .dir = "build/bench/frontdoor"};
    const opt_spec spec[] = {
        {"--idle", OPT_INT, &o.idle, 0, 100000, "N", "idle keep-alive connections held (10000)"},
        {"--slow", OPT_INT, &o.slow, 0, 100000, "N", "connections with half a request head (1000)"},
        {"--heads", OPT_INT, &o.heads, 0, 100000, "N",
         "half heads held beside the fresh client, more than the service's cap (20000)"},
        {"--probe-ms", OPT_INT, &o.probe_ms, 1, 10000, "MS", "a fresh client every MS ms (20)"},
        {"--rate", OPT_INT, &o.rate, 1, 100000, "R", "the open-loop client's requests a second (300)"},
        {"--seconds", OPT_INT, &o.seconds, 1, 3600, "S", "each phase's length (10)"},
        {"--core", OPT_INT, &o.core, 0, 1023, "C", "the CPU store, service and tester are pinned to (1)"},
        {"--bin", OPT_STR, &o.bin, 0, 0, "DIR", "store, service, tester (build/bin)"},
        {"--prep", OPT_STR, &o.prep, 0, 0, "DIR", "the prepared files (build/prep)"},
        {"--dir", OPT_STR, &o.dir, 0, 0, "DIR", "the testers' files (build/bench/frontdoor)"},
        {0}};
    int rc = opt_parse(argc, argv, spec, "bench_frontdoor: the service's front door under held connections", NULL);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? 0 : 2;
    char err[UT_ERRLEN];
    if (ut_mkdir_p(o.dir, err, sizeof err) != 0)
        die(err);
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rlim_t need = (rlim_t)(o.idle + o.slow + 200);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    printf("file descriptors: limit %llu (the service inherits it; it needs about %llu: one per connection + ~100)\n",
           (unsigned long long)rl.rlim_cur, (unsigned long long)need);
    if (rl.rlim_cur < need)
        die("the hard limit of open files is too low: raise it (ulimit -Hn) or use --idle/--slow");
    if (rl.rlim_cur < FD_SPARE + 1)
        die("the hard limit of open files is too low for a holder of half heads: raise it (ulimit -Hn)");
    int per_holder = rl.rlim_cur - FD_SPARE < HOLDER_CONNS ? (int)(rl.rlim_cur - FD_SPARE) : HOLDER_CONNS;

    char table[4200], model[4200], standin[4200], st_exe[4200], sv_exe[4200], s_port[16];
    snprintf(table, sizeof table, "%s/test.tsv", o.prep);
    snprintf(model, sizeof model, "%s/model.json", o.prep);
    snprintf(standin, sizeof standin, "%s/standin.tsv", o.prep);
    snprintf(st_exe, sizeof st_exe, "%s/store", o.bin);
    snprintf(sv_exe, sizeof sv_exe, "%s/service", o.bin);
    long rows = -1;
    FILE *tf = fopen(table, "r");
    if (!tf)
        die("no prepared table: run make prepare");
    for (int ch; (ch = getc(tf)) != EOF;)
        rows += ch == '\n';
    fclose(tf);
    char f_store[4300], f_service[4300], f_events[4300];
    snprintf(f_store, sizeof f_store, "%s/store.tsv.gz", o.dir);
    snprintf(f_service, sizeof f_service, "%s/service.tsv.gz", o.dir);
    snprintf(f_events, sizeof f_events, "%s/events.tsv.gz", o.dir);
    int pfd;
    char *sa[] = {st_exe, "--port", "0", "--table", table, "--wait", "F", "--round", "1", "--out", f_store, NULL};
    kids[0] = spawn(sa, o.core, 1, &pfd);
    snprintf(s_port, sizeof s_port, "%d", read_port(pfd, "the store"));
    char *va[] = {sv_exe, "--port", "0", "--store-port", s_port, "--arm", "F3-none", "--arms", "lab/arms.tsv",
                  "--round", "1", "--model", model, "--standin", standin, "--out", f_service, "--events", f_events,
                  NULL};
    int vfd;
    pid_t service = kids[1] = spawn(va, o.core, 1, &vfd);
    int port = read_port(vfd, "the service");

    phase ph[3] = {{.name = "alone"}, {.name = "+ idle keep-alive"}, {.name = "+ half requests"}};
    run_phase(&o, port, rows, service, &ph[0], 0);

    int *fds = malloc(sizeof *fds * (size_t)(o.idle + o.slow + 1));
    int64_t t0 = ut_mono_ns();
    for (int b = 0; b < o.idle; b += 500) { /* 500 at a time: each asks, then each reads its answer */
        int e = b + 500 < o.idle ? b + 500 : o.idle;
        for (int i = b; i < e; i++)
            if ((fds[i] = dial(port)) < 0 || send_one(fds[i], 1000000 + i) != 0) {
                fprintf(stderr, "bench_frontdoor: idle connection %d: %s\n", i, strerror(errno));
                die("stopped");
            }
        for (int i = b; i < e; i++)
            if (read_one(fds[i]) != 0) {
                fprintf(stderr, "bench_frontdoor: idle connection %d: no answer 200\n", i);
                die("stopped");
            }
    }
    long rss, hwm;
    mem_of(service, &rss, &hwm);
    printf("%d idle keep-alive connections open (one request answered on each) in %.1f s; service VmRSS %.1f MB\n",
           o.idle, (double)(ut_mono_ns() - t0) / 1e9, rss / 1024.0);
    run_phase(&o, port, rows, service, &ph[1], 1);
    size_t nprobe = probe_count(&o);
    int64_t *p_start = malloc(nprobe * sizeof *p_start), *p_lat = malloc(nprobe * sizeof *p_lat);
    if (!p_start || !p_lat)
        die("out of memory");
    probe fresh_idle;
    fresh_clients(&o, port, p_start, p_lat);
    probe_stats(p_start, p_lat, nprobe, INT64_MIN, INT64_MAX, &fresh_idle);

    for (int i = o.idle; i < o.idle + o.slow; i++) {
        fds[i] = dial(port);
        if (fds[i] < 0 || write(fds[i], half_head, sizeof half_head - 1) != (ssize_t)(sizeof half_head - 1)) {
            fprintf(stderr, "bench_frontdoor: half-request connection %d: %s\n", i - o.idle, strerror(errno));
            die("stopped");
        }
    }
    printf("%d connections sent half a request head and stall\n", o.slow);
    run_phase(&o, port, rows, service, &ph[2], 2);
    int closed_idle = closed_by_service(fds, o.idle), closed_slow = closed_by_service(fds + o.idle, o.slow);

    printf("\n%-20s %9s %9s %9s %9s %8s %11s %11s\n", "phase", "requests", "p50 ms", "p99 ms", "max ms", "errors",
           "VmRSS MB", "VmHWM MB");
    for (int k = 0; k < 3; k++)
        printf("%-20s %9zu %9.3f %9.3f %9.3f %8zu %11.1f %11.1f\n", ph[k].name, ph[k].n, ph[k].p50, ph[k].p99,
               ph[k].max, ph[k].errors, ph[k].rss_kb / 1024.0, ph[k].hwm_kb / 1024.0);
    double base = ph[0].p99 > 0 ? ph[0].p99 : 1e-9;
    printf("p99 / p99 alone: %.2fx with %d idle, %.2fx with %d half requests more (target: within 2x)\n",
           ph[1].p99 / base, o.idle, ph[2].p99 / base, o.slow);
    printf("service memory with %d connections: VmHWM %.1f MB (target: under 256 MB)\n", o.idle + o.slow,
           ph[2].hwm_kb / 1024.0);
    printf("held connections the service closed by the end: %d of %d idle, %d of %d half requests\n", closed_idle,
           o.idle, closed_slow, o.slow);
    for (int i = 0; i < o.idle + o.slow; i++)
        close(fds[i]);
    free(fds);

    /* The fresh client while --heads half heads are held, more than the
     * cap: a service of its own whose header timeout outlasts the case, so
     * that what is measured is the shedding, not the timeout (the phase
     * above shows the timeout). */
    struct timespec let_go = {1, 0}; /* the old service closes the connections just let go */
    nanosleep(&let_go, NULL);
    kill(kids[1], SIGTERM);
    waitpid(kids[1], NULL, 0);
    char s_hold[32];
    snprintf(s_hold, sizeof s_hold, "%d", HEADS_HEADER_TIMEOUT_S);
    char *va2[sizeof va / sizeof va[0] + 2];
    memcpy(va2, va, sizeof va);
    va2[sizeof va / sizeof va[0] - 1] = "--header-timeout-s";
    va2[sizeof va / sizeof va[0]] = s_hold;
    va2[sizeof va / sizeof va[0] + 1] = NULL;
    service = kids[1] = spawn(va2, o.core, 1, &vfd);
    port = read_port(vfd, "the service for the half heads");

    int nholders = (o.heads + per_holder - 1) / per_holder, opened = 0, shed = 0;
    holder *hs = calloc((size_t)nholders + 1, sizeof *hs);
    size_t fill_cap = (size_t)FILL_MAX_S * 1000 / (size_t)o.probe_ms + 1;
    int64_t *f_start = malloc(fill_cap * sizeof *f_start), *f_lat = malloc(fill_cap * sizeof *f_lat);
    if (!hs || !f_start || !f_lat)
        die("out of memory");
    t0 = ut_mono_ns();
    for (int k = 0, left = o.heads; k < nholders; k++, left -= per_holder)
        hs[k] = start_holder(port, left < per_holder ? left : per_holder, HOLDER_SRC + (uint32_t)k);
    size_t nfill = fresh_clients_until(&o, port, f_start, f_lat, fill_cap, hs, nholders);
    int64_t filled = t0;
    for (int k = 0; k < nholders; k++) {
        opened += holder_says(&hs[k]);
        int64_t done = holder_done_at(&hs[k]);
        filled = done > filled ? done : filled;
    }
    probe fill, held;
    probe_stats(f_start, f_lat, nfill, INT64_MIN, INT64_MAX, &fill);
    fresh_clients(&o, port, p_start, p_lat);
    probe_stats(p_start, p_lat, nprobe, INT64_MIN, INT64_MAX, &held);
    free(f_start);
    free(f_lat);
    free(p_start);
    free(p_lat);
    mem_of(service, &rss, &hwm);
    for (int k = 0; k < nholders; k++) {
        if (write(hs[k].ctl, "r", 1) != 1)
            die("a holder of half heads is gone");
        shed += holder_says(&hs[k]);
        waitpid(hs[k].pid, NULL, 0);
        close(hs[k].ctl);
        close(hs[k].report);
    }
    free(hs);
    printf("\n%d half heads (%d opened) by %d processes, all open %.1f s after the first; %d of them closed by the "
           "service by the end, %.1f s after the first (its cap %d: the limit of open files less %d; header timeout "
           "%d s for this case); service VmRSS %.1f MB, VmHWM %.1f MB\n",
           o.heads, opened, nholders, (double)(filled - t0) / 1e9, shed, (double)(ut_mono_ns() - t0) / 1e9,
           (int)rl.rlim_cur - SERVICE_FD_RESERVE, SERVICE_FD_RESERVE, HEADS_HEADER_TIMEOUT_S, rss / 1024.0,
           hwm / 1024.0);
    printf("\n%-40s %9s %9s %9s %9s %8s\n", "fresh client (connect to answer)", "clients", "p50 ms", "p99 ms",
           "max ms", "failed");
    char label[64];
    snprintf(label, sizeof label, "beside %d idle", o.idle);
    printf("%-40s %9zu %9.3f %9.3f %9.3f %8zu\n", label, fresh_idle.n, fresh_idle.p50, fresh_idle.p99,
           fresh_idle.max, fresh_idle.failed);
    snprintf(label, sizeof label, "while %d half heads are opened", o.heads);
    printf("%-40s %9zu %9.3f %9.3f %9.3f %8zu\n", label, fill.n, fill.p50, fill.p99, fill.max, fill.failed);
    snprintf(label, sizeof label, "beside %d half heads held", o.heads);
    printf("%-40s %9zu %9.3f %9.3f %9.3f %8zu\n", label, held.n, held.p50, held.p99, held.max, held.failed);
    printf("fresh client p99: %.3f ms beside %d idle; %.3f ms while %d half heads are opened, %.3f ms beside them "
           "held (target: within %.0f ms, none failed)\n",
           fresh_idle.p99, o.idle, fill.p99, o.heads, held.p99, FRESH_TARGET_MS);
    stop_kids();
    return 0;
}
