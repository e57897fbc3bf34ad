/* storeproc: the store tests' toolkit (tests/lab/test_store.c and
 * tests/lab/test_storefault.c): build/bin/store as a child process on a small
 * table in a fresh folder; a blocking client speaking lab/core/wire.h; the
 * store.tsv.gz log read back with zlib and decoded from lab/RAWFORMAT.md
 * alone (delta-encoded time columns); the retry of a scenario that was only
 * late.  Header-only (static inline), for the tests alone; run from the
 * repository root. */
#ifndef TESTS_STOREPROC_H
#define TESTS_STOREPROC_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "waits.h"
#include "wire.h"

#define ST_BIN "build/bin/store"
#define ST_NROWS 6
#define MS 1000000LL

/* The table's features as written (strings), parsed back independently. */
static const char *const st_feat[ST_NROWS][6] = {
    {"3", "1", "10.5", "2", "20.25", "100"},
    {"0.1", "0", "0", "1", "3.40282347e+38", "1e-40"},
    {"17", "4", "123456.789", "9", "0.333333343", "731"},
    {"-2.5", "2", "1.17549435e-38", "3", "99.9899979", "42"},
    {"365", "0", "0", "0", "0", "1"},
    {"1.5", "7", "8.125", "11", "16.75", "2000"},
};

typedef struct {
    pid_t pid;
    int port;
    int outfd;
    int lockfd;
    int nrows;                /* rows of the table: st_feat's, over and over */
    const char *const *extra; /* more arguments of the store, NULL-ended (may be NULL) */
    char dir[64], table[128], log[128], errp[128];
} st_proc;

typedef struct {
    long long req, attempt, row;
    int64_t arrive, start, end; /* decoded; start/end valid only when has_ */
    int has_start, has_end;
    long long planned, budget;
    char outcome;
    long long line, busy;
} st_rec;

/* The test's store and folder, for the clean-up after a failed assertion. */
static pid_t st_live_pid = -1;
static char st_live_dir[64];

static inline int64_t st_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline float st_x(int row, int k) { return strtof(st_feat[row][k], NULL); }

/* The timing tests hold a lock for their whole run: Criterion runs tests in
 * parallel, and two stores and two clients on this 2-core machine delay
 * each other's timers by milliseconds now and then. */
static inline void st_lock(st_proc *p)
{
    p->lockfd = open("/tmp/lab_test_store.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    cr_assert_geq(p->lockfd, 0);
    cr_assert_eq(flock(p->lockfd, LOCK_EX), 0);
}

static inline void st_mkdir(st_proc *p)
{
    p->lockfd = -1;
    p->nrows = ST_NROWS;
    p->extra = NULL;
    snprintf(p->dir, sizeof p->dir, "/tmp/test_store.XXXXXX");
    cr_assert_not_null(mkdtemp(p->dir));
    snprintf(st_live_dir, sizeof st_live_dir, "%s", p->dir);
    snprintf(p->table, sizeof p->table, "%s/test.tsv", p->dir);
    snprintf(p->log, sizeof p->log, "%s/store.tsv.gz", p->dir);
    snprintf(p->errp, sizeof p->errp, "%s/stderr.txt", p->dir);
}

static inline void st_write_table(const st_proc *p)
{
    FILE *f = fopen(p->table, "w");
    cr_assert_not_null(f);
    fprintf(f, "row\tcustomer\tcutoff\tlabel\trecency\torders_90\tspend_90\torders_365\t"
               "spend_365\ttenure\n");
    for (int i = 0; i < p->nrows; i++) {
        fprintf(f, "%d\t%d\t2011-0%d-01\t%d", i, 12000 + i, 1 + i % 3, i % 2);
        for (int k = 0; k < 6; k++)
            fprintf(f, "\t%s", st_feat[i % ST_NROWS][k]);
        fputc('\n', f);
    }
    cr_assert_eq(fclose(f), 0);
}

static inline pid_t st_spawn(const st_proc *p, const char *wait, const char *slots, const char *freeze,
                      const char *round, int outfd_w)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves no store behind */
        if (getppid() == 1)
            _exit(122);
        int e = open(p->errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (e < 0 || dup2(e, 2) < 0)
            _exit(120);
        if (outfd_w >= 0 && dup2(outfd_w, 1) < 0)
            _exit(121);
        const char *argv[40] = {ST_BIN,   "--port",  "0",     "--table", p->table, "--wait",         wait,
                                "--round", round,     "--out", p->log,    "--slots", slots, "--freeze-share",
                                freeze};
        int n = 15;
        for (int k = 0; p->extra && p->extra[k] && n < 39; k++)
            argv[n++] = p->extra[k];
        argv[n] = NULL;
        execv(ST_BIN, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Start the store on a table of nrows rows, with more arguments `extra`
 * (NULL-ended, or NULL), and read its port from the one line it prints. */
static inline void st_start_x(st_proc *p, const char *wait, int slots, const char *freeze, uint32_t round,
                              int nrows, const char *const *extra)
{
    st_mkdir(p);
    st_lock(p);
    p->nrows = nrows;
    p->extra = extra;
    st_write_table(p);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    char s[16], r[16];
    snprintf(s, sizeof s, "%d", slots);
    snprintf(r, sizeof r, "%u", round);
    p->pid = st_live_pid = st_spawn(p, wait, s, freeze, r, fds[1]);
    close(fds[1]);
    p->outfd = fds[0];
    char line[128];
    size_t n = 0;
    while (n < sizeof line - 1 && !memchr(line, '\n', n)) {
        struct pollfd pf = {.fd = p->outfd, .events = POLLIN};
        cr_assert_gt(poll(&pf, 1, 5000), 0, "store printed no line within 5 s");
        ssize_t k = read(p->outfd, line + n, sizeof line - 1 - n);
        cr_assert_gt(k, 0, "store closed its stdout before listening");
        n += (size_t)k;
    }
    line[n] = '\0';
    cr_assert_eq(sscanf(line, "store: listening on 127.0.0.1:%d\n", &p->port), 1, "line: %s",
                 line);
    cr_assert_gt(p->port, 0);
    cr_assert_eq(strchr(line, '\n') - line + 1, (long)n, "exactly one line: %s", line);
}

static inline void st_start(st_proc *p, const char *wait, int slots, const char *freeze, uint32_t round)
{
    st_start_x(p, wait, slots, freeze, round, ST_NROWS, NULL);
}

static inline int st_stop(st_proc *p)
{
    cr_assert_eq(kill(p->pid, SIGTERM), 0);
    int status;
    cr_assert_eq(waitpid(p->pid, &status, 0), p->pid);
    st_live_pid = -1;
    close(p->outfd);
    cr_assert(WIFEXITED(status), "store died of signal %d", WTERMSIG(status));
    return WEXITSTATUS(status);
}

static inline void st_cleanup(const st_proc *p)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", p->dir);
    (void)!system(cmd);
    st_live_dir[0] = '\0';
    if (p->lockfd >= 0)
        close(p->lockfd);
}

static inline void st_fini(void)
{
    if (st_live_pid > 0) {
        kill(st_live_pid, SIGKILL);
        waitpid(st_live_pid, NULL, 0);
        st_live_pid = -1;
    }
    if (st_live_dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", st_live_dir);
        (void)!system(cmd);
        st_live_dir[0] = '\0';
    }
}

static inline int st_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0, "connect: %s",
                 strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static inline void st_put(unsigned char *b, uint32_t row, uint32_t req, uint16_t attempt,
                   int64_t budget, uint64_t tag)
{
    wire_req r = {.row = row, .req = req, .attempt = attempt, .budget_ns = budget, .tag = tag};
    wire_put_req(b, &r);
}

static inline void st_send_all(int fd, const unsigned char *b, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        cr_assert_gt(w, 0, "send: %s", strerror(errno));
        b += w;
        n -= (size_t)w;
    }
}

/* One answer within timeout_ms: 0; EOF: 1; timeout: -1; error: -2. */
static inline int st_recv(int fd, wire_ans *a, int timeout_ms)
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
        if (k == 0)
            return 1;
        if (k < 0)
            return -2;
        n += (size_t)k;
    }
    cr_assert_eq(wire_get_ans(b, a), 0, "answer with a bad magic");
    return 0;
}

/* Read answers on fd until the one with this tag (others are skipped). */
static inline void st_await_tag(int fd, uint64_t tag)
{
    for (int k = 0; k < 64; k++) {
        wire_ans a;
        cr_assert_eq(st_recv(fd, &a, 5000), 0, "no answer with tag %llu", (unsigned long long)tag);
        if (a.tag == tag) {
            cr_assert_eq(a.status, WIRE_UNKNOWN_ROW);
            return;
        }
    }
    cr_assert_fail("tag %llu never answered", (unsigned long long)tag);
}

static inline void st_check_features(const wire_ans *a, uint32_t row)
{
    cr_assert_eq(a->status, WIRE_OK, "status %u for row %u", a->status, row);
    for (int k = 0; k < 6; k++) {
        float want = st_x((int)row, k);
        cr_assert_eq(memcmp(&a->x[k], &want, sizeof want), 0,
                     "row %u feature %d: %.9g, want %.9g (bit for bit)", row, k,
                     (double)a->x[k], (double)want);
    }
}

/* ---------- reading store.tsv.gz from RAWFORMAT.md ---------- */

static const char *const st_cols =
    "req\tattempt\trow\tarrive_t\tstart_t\tend_t\tplanned_ns\tbudget_ns\toutcome\tline\tbusy";

static inline long long st_int(const char *s, long line)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    cr_assert(s[0] && !*e && !errno, "line %ld: '%s' is not an integer", line, s);
    return v;
}

static inline size_t st_read_log(const char *path, st_rec **out)
{
    gzFile gz = gzopen(path, "rb");
    cr_assert_not_null(gz, "%s: cannot open", path);
    char buf[1024];
    cr_assert_not_null(gzgets(gz, buf, sizeof buf));
    cr_assert_str_eq(buf, "# lab-raw 3 store\n");
    cr_assert_not_null(gzgets(gz, buf, sizeof buf));
    buf[strcspn(buf, "\n")] = '\0';
    cr_assert_str_eq(buf, st_cols);
    size_t n = 0, cap = 64;
    st_rec *r = malloc(cap * sizeof *r);
    int64_t sum[3] = {0, 0, 0};
    long line = 2;
    while (gzgets(gz, buf, sizeof buf)) {
        line++;
        size_t len = strlen(buf);
        cr_assert(len > 0 && buf[len - 1] == '\n', "line %ld does not end in a newline", line);
        buf[len - 1] = '\0';
        char *f[12];
        int nf = 0;
        for (char *s = buf, *t;; s = t + 1) {
            t = strchr(s, '\t');
            if (nf < 12)
                f[nf] = s;
            nf++;
            if (!t)
                break;
            *t = '\0';
        }
        cr_assert_eq(nf, 11, "line %ld: %d fields", line, nf);
        if (n == cap)
            r = realloc(r, (cap *= 2) * sizeof *r);
        st_rec *x = &r[n++];
        memset(x, 0, sizeof *x);
        x->req = st_int(f[0], line);
        x->attempt = st_int(f[1], line);
        x->row = st_int(f[2], line);
        int has[3];
        for (int k = 0; k < 3; k++) { /* the time columns: running sums */
            has[k] = strcmp(f[3 + k], "-") != 0;
            if (has[k])
                sum[k] += st_int(f[3 + k], line);
        }
        cr_assert(has[0], "line %ld: arrive_t absent", line);
        x->arrive = sum[0];
        x->has_start = has[1];
        x->start = sum[1];
        x->has_end = has[2];
        x->end = sum[2];
        x->planned = st_int(f[6], line);
        x->budget = st_int(f[7], line);
        cr_assert_eq(strlen(f[8]), 1, "line %ld: outcome '%s'", line, f[8]);
        x->outcome = f[8][0];
        cr_assert(strchr("ADUPENHR", x->outcome), "line %ld: outcome %c", line, x->outcome);
        x->line = st_int(f[9], line);
        x->busy = st_int(f[10], line);
    }
    int errnum;
    gzerror(gz, &errnum);
    cr_assert(errnum == Z_OK || errnum == Z_STREAM_END, "%s: truncated gzip stream", path);
    gzclose(gz);
    *out = r;
    return n;
}

static inline const st_rec *st_find(const st_rec *r, size_t n, long long req, long long attempt)
{
    const st_rec *hit = NULL;
    for (size_t i = 0; i < n; i++)
        if (r[i].req == req && r[i].attempt == attempt) {
            cr_assert_null(hit, "two rows for lookup (%lld, %lld)", req, attempt);
            hit = &r[i];
        }
    cr_assert_not_null(hit, "no row for lookup (%lld, %lld)", req, attempt);
    return hit;
}

/* Rows in order of end_t, unfinished ones (end absent) last. */
static inline void st_check_order(const st_rec *r, size_t n)
{
    int pending = 0;
    for (size_t i = 0; i < n; i++) {
        if (!r[i].has_end) {
            pending = 1;
            cr_assert_eq(r[i].outcome, 'P');
            continue;
        }
        cr_assert_not(pending, "row %zu has an end after a pending row", i);
        cr_assert_neq(r[i].outcome, 'P');
        if (i > 0)
            cr_assert_geq(r[i].end, r[i - 1].end, "row %zu ends before row %zu", i, i - 1);
        cr_assert_geq(r[i].end, r[i].arrive);
        if (r[i].has_start)
            cr_assert(r[i].start >= r[i].arrive && r[i].end >= r[i].start);
    }
}

/* ---------- timing ---------- */

/* Timing bounds.  A lower bound (never early) is a property of the store and
 * always asserted.  An upper bound is the store's *and the machine's*: on a
 * shared 2-core VM a process is now and then descheduled for milliseconds,
 * so a scenario that was only late is run again, up to 3 times in all; the
 * test fails if it is late every time (or anything else is wrong once). */
static int st_late;

static inline void st_upper(int64_t v, int64_t below, const char *what)
{
    if (v >= below) {
        fprintf(stderr, "test_store: %s took %lld ns (bound %lld ns); will retry\n", what,
                (long long)v, (long long)below);
        st_late = 1;
    }
}

static inline void st_retry(void (*scenario)(void), const char *name)
{
    for (int k = 0; k < 3; k++) {
        st_late = 0;
        scenario();
        if (!st_late)
            return;
    }
    cr_assert_fail("%s: late on 3 runs in a row", name);
}

#endif
