/* tester: the lab's open-loop load tester (DESIGN.md section 5).
 *
 *   tester --port P --rate R|max --seconds S --seed N --rows NROWS
 *          --out FILE.tsv.gz --summary FILE.json
 *          [--deadline-ms D] [--conns C] [--gate 1|0] [--gate-wait-s 60]
 *          [--drain-s 10] [--store-port Q] [--store2-port Q2]
 *
 * Open loop (numeric R).  The schedule is Poisson and depends on (seed, R, S)
 * only.  With g = ut_rng seeded with N, and every time in integer ns:
 *     off = 0; repeat: off += llround(ut_rng_exp(g) * 1e9 / R);
 *                      stop when off >= llround(S * 1e9); else append off
 * so request j (0, 1, 2 ...) has offset off_j (the first one gap after 0),
 * asks for row j % NROWS and is scheduled at sched_t = t0 + off_j, where t0
 * is CLOCK_MONOTONIC 20 ms after the idle gate passed and the C keep-alive
 * connections were opened.  The program sleeps (a timerfd at the absolute
 * scheduled time, inside a libevent loop built with
 * EVENT_BASE_FLAG_PRECISE_TIMER); at each wake-up it sends every request
 * whose time has come, each on an idle connection (the most recently used
 * first) or, when none is idle, on a connection opened for it at once (the
 * request's `waited` is 1).  A connection carries one request at a time.  No
 * arrival is dropped: every scheduled request gets a row.  After the last
 * send it waits up to --drain-s (10 s) for outstanding answers.
 *
 * Closed loop (--rate max, the capacity arm): C connections (default 16)
 * each send the next request as soon as the previous answer arrived, during
 * S seconds from t0; j in send order, sched_t = send_t.
 *
 * Times: send_t is read just before the send() that hands the request's
 * first byte to the kernel; answer_t just after the recv() that brought the
 * answer's last byte.  Latency = answer_t - sched_t.  With --deadline-ms D
 * every request carries "X-Budget-Ns: D ms - (send_t - sched_t)" in ns (the
 * deadline runs from the scheduled arrival; never below 0).  An answer whose
 * body "id" is not the request's j is a fatal error.  A request whose
 * connection fails or is closed by the server before its answer, or that is
 * still unanswered after the drain, has status 0, kind E, answer_t absent.
 * A connection the server closed is reopened (in the background) for later
 * requests, unless it was closed within 100 ms of opening without serving.
 *
 * Idle gate (--gate 1, the default), before anything else: lab/watch/gate.h
 * (idle share >= 0.95 over a 1 s window of /proc/stat, lab/watch/gate.h); when no window
 * passed within --gate-wait-s seconds (at least one window is always
 * tried), the summary is written with passed=false and the program exits 3.
 * With --gate-note FILE the gate may instead be the window of the run
 * before's settling, when its note is recent (lab/watch/gate.h): then no
 * window is waited for here, and the summary's gate says how long before
 * (before_s).
 * Answers are read by lab/tester/answer.h; the command line is lab/tester/topts.h.
 *
 * The store's clock (--store-port Q): right after t0 is fixed and before the
 * first request, one clock frame (lab/core/wire.h) carrying t0 goes to the store
 * on a connection of its own, closed at once; a failed connect is exit 1
 * naming the port.  With --store2-port Q2 (run gives it when the second
 * store has a fault too: slowboth) the same frame goes to that store next.  t0 is printed on stdout too ("tester: t0_ns N").
 *
 * Machine watch (--machine FILE, --watch-pids): lab/watch/watch.h, read at t0 and
 * each second after on a timer of lower priority than the sends.
 *
 * Output: --out, the rows of lab/RAWFORMAT.md's tester.tsv.gz (via rawlog,
 * written at the end in j order); --machine, likewise; --summary, a JSON
 * object written atomically.  Exit codes: 0 done, 1 run failed (no files written),
 * 2 bad options, 3 idle gate not passed.
 *
 * Ownership: everything is allocated and freed inside this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "answer.h"
#include "exits.h"
#include "gate.h"
#include "topts.h"
#include "trecord.h"
#include "util.h"
#include "watch.h"
#include "wire.h"

#define NS_PER_S 1000000000LL
#define START_DELAY_NS (20 * 1000000LL) /* t0 = connections open + 20 ms */
#define REOPEN_MIN_NS (100 * 1000000LL) /* see the header: reopen guard */
#define MAX_ANSWER_BYTES (1 << 20)

/* ----------------------------------------------------------------- the run */

enum { C_CONNECTING, C_IDLE, C_BUSY, C_DEAD };

typedef struct run run;

typedef struct {
    run *r;
    int idx, fd, state;
    struct event *ev_r, *ev_w;
    int64_t j;           /* request in flight (or waiting for the connect), -1 none */
    int64_t opened_at;   /* when connect() was called */
    long served;         /* answers read on it */
    char *rb;            /* answer bytes */
    size_t rn, rcap;
    char wb[512];        /* request bytes not yet sent */
    size_t wn, woff;
} conn;

struct run {
    topts o;
    struct event_base *base;
    struct sockaddr_in addr;
    trec *req;
    size_t nreq, capreq;
    size_t next;        /* open loop: next request to send */
    int64_t t0, t_end;  /* t_end: closed loop's end of sending */
    conn **conns;
    size_t nconns, capconns;
    conn **idle;
    size_t nidle;
    size_t outstanding; /* requests given to a connection and not finished */
    int sending_done;
    int tfd;
    struct event *ev_tick, *ev_timer;
    uint64_t waited, opened, reopened, open_failed;
    int fatal;
    struct event *ev_watch; /* the machine watch: a reading at t0, then every second */
    watch_log watch;
    int64_t watch_k;        /* readings taken */
};

static void finish_check(run *r)
{
    if (r->sending_done && r->outstanding == 0)
        event_base_loopbreak(r->base);
}

static void die(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void die(run *r, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!r->fatal)
        ut_err("%s", msg);
    r->fatal = 1;
    event_base_loopbreak(r->base);
}

static void on_read(evutil_socket_t fd, short what, void *arg);
static void on_write(evutil_socket_t fd, short what, void *arg);
static void conn_send(conn *c, int64_t j);
static void closed_next(conn *c);

static int grow_conns(run *r)
{
    if (r->nconns < r->capconns)
        return 0;
    size_t cap = r->capconns ? r->capconns * 2 : 64;
    conn **a = realloc(r->conns, cap * sizeof *a);
    if (!a)
        return -1;
    r->conns = a;
    conn **b = realloc(r->idle, cap * sizeof *b);
    if (!b)
        return -1;
    r->idle = b;
    r->capconns = cap;
    return 0;
}

/* A new connection to the service: fd < 0 opens one (nonblocking connect);
 * otherwise fd is an already connected socket.  NULL on failure. */
static conn *conn_new(run *r, int fd)
{
    int64_t now = ut_mono_ns();
    int connecting = 0;
    if (grow_conns(r) != 0)
        return NULL;
    if (fd < 0) {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return NULL;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, (struct sockaddr *)&r->addr, sizeof r->addr) != 0) {
            if (errno != EINPROGRESS) {
                close(fd);
                return NULL;
            }
            connecting = 1;
        }
    }
    conn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return NULL;
    }
    c->r = r;
    c->fd = fd;
    c->idx = (int)r->nconns;
    c->j = -1;
    c->opened_at = now;
    c->rcap = 4096;
    c->rb = malloc(c->rcap + 1);
    c->ev_r = event_new(r->base, fd, EV_READ | EV_PERSIST, on_read, c);
    c->ev_w = event_new(r->base, fd, EV_WRITE, on_write, c);
    if (!c->rb || !c->ev_r || !c->ev_w) {
        if (c->ev_r)
            event_free(c->ev_r);
        if (c->ev_w)
            event_free(c->ev_w);
        free(c->rb);
        free(c);
        close(fd);
        return NULL;
    }
    event_priority_set(c->ev_r, 1);
    event_priority_set(c->ev_w, 1);
    event_add(c->ev_r, NULL);
    c->state = connecting ? C_CONNECTING : C_IDLE;
    if (connecting)
        event_add(c->ev_w, NULL);
    r->conns[r->nconns++] = c;
    r->opened++;
    return c;
}

/* A request ends without an answer (its fields keep status 0, kind E). */
static void req_lost(run *r, conn *c)
{
    if (c->j >= 0) {
        c->j = -1;
        r->outstanding--;
    }
}

static void conn_ready(conn *c);

static void conn_close(conn *c)
{
    run *r = c->r;
    int reopen = !r->sending_done && !r->fatal &&
                 (c->served > 0 || ut_mono_ns() - c->opened_at >= REOPEN_MIN_NS);
    if (c->state == C_IDLE) /* take it out of the idle stack */
        for (size_t i = 0; i < r->nidle; i++)
            if (r->idle[i] == c) {
                memmove(&r->idle[i], &r->idle[i + 1], (r->nidle - i - 1) * sizeof *r->idle);
                r->nidle--;
                break;
            }
    req_lost(r, c);
    event_free(c->ev_r);
    event_free(c->ev_w);
    c->ev_r = c->ev_w = NULL;
    close(c->fd);
    c->fd = -1;
    free(c->rb);
    c->rb = NULL;
    c->state = C_DEAD;
    if (reopen) {
        conn *n = conn_new(r, -1);
        if (n) {
            r->reopened++;
            if (n->state == C_IDLE)
                conn_ready(n);
        } else {
            r->open_failed++;
        }
    }
    finish_check(r);
}

/* A connection with nothing in flight: next request (closed loop) or idle. */
static void conn_ready(conn *c)
{
    run *r = c->r;
    c->state = C_IDLE;
    if (r->o.closed && !r->sending_done)
        closed_next(c);
    else
        r->idle[r->nidle++] = c;
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    conn *c = arg;
    run *r = c->r;
    if (c->state == C_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            err = errno;
        if (err) {
            r->open_failed++;
            c->served = 0;
            c->opened_at = ut_mono_ns(); /* a failed connect is never reopened */
            conn_close(c);
            return;
        }
        if (c->j >= 0) {
            c->state = C_BUSY;
            conn_send(c, c->j);
        } else {
            conn_ready(c);
        }
        return;
    }
    if (c->state != C_BUSY || c->woff >= c->wn)
        return;
    trec *q = &r->req[c->j];
    if (c->woff == 0)
        q->send = ut_mono_ns();
    ssize_t w = send(fd, c->wb + c->woff, c->wn - c->woff, MSG_NOSIGNAL);
    if (w < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            event_add(c->ev_w, NULL);
            return;
        }
        conn_close(c);
        return;
    }
    c->woff += (size_t)w;
    if (c->woff < c->wn)
        event_add(c->ev_w, NULL);
}

/* Hand request j to connection c (connected, nothing in flight). */
static void conn_send(conn *c, int64_t j)
{
    run *r = c->r;
    trec *q = &r->req[j];
    c->j = j;
    c->state = C_BUSY;
    q->conn = c->idx;
    int64_t now = ut_mono_ns();
    if (r->o.closed)
        q->sched = now;
    char body[64], budget[64] = "";
    int bn = snprintf(body, sizeof body, "{\"id\":%" PRId64 ",\"row\":%" PRId64 "}", j,
                      j % r->o.rows);
    if (r->o.have_deadline) {
        int64_t b = (int64_t)llround(r->o.deadline_ms * 1e6) - (now - q->sched);
        snprintf(budget, sizeof budget, "X-Budget-Ns: %" PRId64 "\r\n", b > 0 ? b : 0);
    }
    int n = snprintf(c->wb, sizeof c->wb,
                     "POST /score HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     "Content-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s",
                     bn, budget, body);
    c->wn = (size_t)n;
    c->woff = 0;
    q->send = now;
    ssize_t w = send(c->fd, c->wb, c->wn, MSG_NOSIGNAL);
    if (w < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            q->send = RAW_NONE; /* set when the first byte goes */
            event_add(c->ev_w, NULL);
            return;
        }
        q->send = RAW_NONE; /* nothing reached the kernel */
        conn_close(c);
        return;
    }
    c->woff = (size_t)w;
    if (c->woff < c->wn)
        event_add(c->ev_w, NULL);
}

/* Closed loop: the next request on c, or idle once sending has ended. */
static void closed_next(conn *c)
{
    run *r = c->r;
    if (r->sending_done || ut_mono_ns() >= r->t_end) {
        c->state = C_IDLE;
        r->idle[r->nidle++] = c;
        return;
    }
    if (r->nreq == r->capreq) {
        size_t cap = r->capreq ? r->capreq * 2 : 65536;
        trec *a = realloc(r->req, cap * sizeof *a);
        if (!a) {
            die(r, "out of memory after %zu requests", r->nreq);
            return;
        }
        r->req = a;
        r->capreq = cap;
    }
    int64_t j = (int64_t)r->nreq++;
    r->req[j] = (trec){.sched = RAW_NONE, .send = RAW_NONE, .answer = RAW_NONE, .conn = -1, .kind = 'E'};
    r->outstanding++;
    conn_send(c, j);
}

/* Open loop: request j's time has come. */
static void dispatch(run *r, int64_t j)
{
    r->outstanding++;
    if (r->nidle > 0) {
        conn_send(r->idle[--r->nidle], j);
        return;
    }
    trec *q = &r->req[j];
    q->waited = 1;
    r->waited++;
    conn *c = conn_new(r, -1);
    if (!c) { /* not even a socket: the request is lost */
        static int warned;
        if (!warned++)
            ut_err("request %" PRId64 ": cannot open a connection: %s (counted as lost)", j,
                   strerror(errno));
        r->open_failed++;
        r->outstanding--;
        return;
    }
    q->conn = c->idx;
    c->j = j;
    if (c->state == C_IDLE) /* connected at once */
        conn_send(c, j);
}

static void arm_timer(run *r, int64_t t)
{
    struct itimerspec its = {.it_value = {.tv_sec = t / NS_PER_S, .tv_nsec = t % NS_PER_S}};
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
        its.it_value.tv_nsec = 1;
    if (timerfd_settime(r->tfd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
        die(r, "timerfd_settime: %s", strerror(errno));
}

static void on_drain_end(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    run *r = arg;
    event_base_loopbreak(r->base);
}

static void start_drain(run *r)
{
    r->sending_done = 1;
    if (r->ev_timer)
        event_free(r->ev_timer);
    r->ev_timer = evtimer_new(r->base, on_drain_end, r);
    struct timeval tv = {.tv_sec = (time_t)r->o.drain_s,
                         .tv_usec = (suseconds_t)((r->o.drain_s - floor(r->o.drain_s)) * 1e6)};
    if (!r->ev_timer || evtimer_add(r->ev_timer, &tv) != 0)
        die(r, "cannot arm the drain timer");
    finish_check(r);
}

/* Open loop: the timerfd fired; send everything due. */
static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    run *r = arg;
    uint64_t expirations;
    if (read(fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
        die(r, "timerfd read: %s", strerror(errno));
    int64_t now = ut_mono_ns();
    while (r->next < r->nreq && r->req[r->next].sched <= now && !r->fatal) {
        dispatch(r, (int64_t)r->next++);
        now = ut_mono_ns();
    }
    if (r->fatal)
        return;
    if (r->next < r->nreq) {
        arm_timer(r, r->req[r->next].sched);
    } else {
        event_del(r->ev_tick);
        start_drain(r);
    }
}

/* Closed loop: t0 and the end of sending. */
static void on_closed_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    run *r = arg;
    if (r->t_end == 0) { /* t0 */
        r->t_end = r->t0 + (int64_t)llround(r->o.seconds * 1e9);
        struct timeval tv = {.tv_sec = (time_t)r->o.seconds,
                             .tv_usec = (suseconds_t)((r->o.seconds - floor(r->o.seconds)) * 1e6)};
        evtimer_add(r->ev_timer, &tv);
        size_t n = r->nidle;
        conn **ready = malloc(n * sizeof *ready);
        if (!ready) {
            die(r, "out of memory");
            return;
        }
        memcpy(ready, r->idle, n * sizeof *ready);
        r->nidle = 0;
        for (size_t i = 0; i < n && !r->fatal; i++)
            closed_next(ready[i]);
        free(ready);
        return;
    }
    start_drain(r);
}

/* ---------------------------------------------------- watching the machine */

/* The next reading, due at t0 + k s. */
static void watch_arm(run *r)
{
    int64_t due = r->t0 + r->watch_k * NS_PER_S, d = due - ut_mono_ns();
    if (d < 0)
        d = 0;
    struct timeval tv = {.tv_sec = (time_t)(d / NS_PER_S), .tv_usec = (suseconds_t)((d % NS_PER_S + 999) / 1000)};
    if (evtimer_add(r->ev_watch, &tv) != 0)
        die(r, "cannot arm the machine watch's timer");
}

/* A reading; of lower priority than sending, so never before a due send. */
static void on_watch(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    run *r = arg;
    char err[256];
    int rc = r->watch_k == 0 ? watch_log_start(&r->watch, r->watch.mask, r->watch.pid, r->watch.npid, err, sizeof err)
                             : watch_log_sample(&r->watch, ut_mono_ns(), err, sizeof err);
    if (rc != 0) {
        die(r, "machine watch: %s", err);
        return;
    }
    r->watch_k++;
    watch_arm(r);
}

static int watch_begin(run *r)
{
    char err[256];
    unsigned char mask[WATCH_MAXCPU / 8];
    if (watch_mask_self(mask, err, sizeof err) != 0) {
        ut_err("%s", err);
        return -1;
    }
    memcpy(r->watch.mask, mask, sizeof mask);
    /* the run's own processes: this one, and the store's and the service's */
    r->watch.pid[r->watch.npid++] = getpid();
    for (int i = 0; i < r->o.nwatch_pids && r->watch.npid < WATCH_MAXPIDS; i++)
        r->watch.pid[r->watch.npid++] = r->o.watch_pids[i];
    r->ev_watch = evtimer_new(r->base, on_watch, r);
    if (!r->ev_watch || event_priority_set(r->ev_watch, 1) != 0) {
        ut_err("cannot create the machine watch's timer");
        return -1;
    }
    watch_arm(r);
    return r->fatal ? -1 : 0;
}

/* ------------------------------------------------------- reading an answer */

/* One complete answer to c's request, its last byte read at `now`. */
static void answer_done(conn *c, int status, const char *body, int64_t now)
{
    run *r = c->r;
    int64_t j = c->j;
    trec *q = &r->req[j];
    char kind, why[512];
    float score = 0;
    if (ans_body_parse(body, status, j, &kind, &score, why, sizeof why) != 0) {
        die(r, "answer to request %" PRId64 " %s", j, why);
        return;
    }
    if (kind != 'E') {
        q->score = score;
        q->has_score = 1;
    }
    q->answer = now;
    q->status = (int16_t)status;
    q->kind = kind;
    c->j = -1;
    c->served++;
    r->outstanding--;
}

/* Parse as many complete answers as c's buffer holds.  Returns 1 when the
 * server asked to close, -1 on a fatal error, else 0. */
static int parse_answers(conn *c, int64_t now)
{
    run *r = c->r;
    int close_after = 0;
    while (c->rn > 0) {
        c->rb[c->rn] = 0;
        ans_head h;
        char why[256];
        int hrc = ans_head_parse(c->rb, c->rn, MAX_ANSWER_BYTES, &h, why, sizeof why);
        if (hrc == 0)
            return close_after;
        if (c->j < 0) {
            die(r, "connection %d: an answer arrived with no request in flight", c->idx);
            return -1;
        }
        if (hrc < 0) {
            die(r, "answer to request %" PRId64 ": %s", c->j, why);
            return -1;
        }
        close_after |= h.close;
        size_t total = h.head_len + h.body_len;
        if (c->rn < total) {
            if (total > c->rcap) {
                char *nb = realloc(c->rb, total + 1);
                if (!nb) {
                    die(r, "out of memory");
                    return -1;
                }
                c->rb = nb;
                c->rcap = total;
            }
            return close_after;
        }
        char save = c->rb[total];
        c->rb[total] = 0;
        answer_done(c, h.status, c->rb + h.head_len, now);
        c->rb[total] = save;
        if (r->fatal)
            return -1;
        memmove(c->rb, c->rb + total, c->rn - total);
        c->rn -= total;
        if (close_after)
            return 1;
        if (c->rn == 0)
            conn_ready(c);
    }
    return close_after;
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    conn *c = arg;
    run *r = c->r;
    if (c->rn == c->rcap) {
        size_t cap = c->rcap * 2;
        char *nb = cap <= MAX_ANSWER_BYTES + 65536 ? realloc(c->rb, cap + 1) : NULL;
        if (!nb) {
            die(r, "connection %d: answer too long", c->idx);
            return;
        }
        c->rb = nb;
        c->rcap = cap;
    }
    ssize_t n = recv(fd, c->rb + c->rn, c->rcap - c->rn, 0);
    int64_t now = ut_mono_ns();
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) { /* closed by the server, or reset */
        conn_close(c);
        return;
    }
    c->rn += (size_t)n;
    int rc = parse_answers(c, now);
    if (rc < 0)
        return;
    if (rc == 1) {
        conn_close(c);
        return;
    }
    finish_check(r);
}

/* ------------------------------------------------------------------ output */

static int write_summary(const run *r, const gate_res *g)
{
    const topts *o = &r->o;
    trec_run info = {.closed = o->closed, .rate = o->rate, .seconds = o->seconds, .seed = o->seed,
                     .rows = o->rows, .have_deadline = o->have_deadline, .deadline_ms = o->deadline_ms,
                     .conns = o->conns, .t0 = r->t0, .opened = r->opened, .reopened = r->reopened,
                     .open_failed = r->open_failed, .waited = r->waited};
    return trec_write_summary(o->summary, r->req, r->nreq, &info, g);
}

/* ------------------------------------------------------------------- main */

static int open_initial(run *r)
{
    for (int i = 0; i < r->o.conns; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            ut_err("socket: %s", strerror(errno));
            return -1;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, (struct sockaddr *)&r->addr, sizeof r->addr) != 0) {
            ut_err("cannot connect to 127.0.0.1:%d (connection %d): %s", r->o.port, i,
                   strerror(errno));
            close(fd);
            return -1;
        }
        if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
            ut_err("fcntl: %s", strerror(errno));
            close(fd);
            return -1;
        }
        conn *c = conn_new(r, fd);
        if (!c) {
            ut_err("out of memory");
            return -1;
        }
        r->idle[r->nidle++] = c;
    }
    return 0;
}

/* The clock frame (lab/core/wire.h) on a connection of its own to the store
 * on `port` (`opt` the option that named it): the store's fault windows
 * run from t0.  0, or -1 after a message naming the port. */
static int send_clock(const run *r, int port, const char *opt)
{
    struct sockaddr_in a = r->addr;
    a.sin_port = htons((uint16_t)port);
    unsigned char b[WIRE_REQ_SIZE];
    wire_put_clock(b, r->t0);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
             send(fd, b, sizeof b, MSG_NOSIGNAL) == (ssize_t)sizeof b, e = errno;
    if (fd >= 0)
        close(fd);
    if (!ok)
        ut_err("cannot send the clock frame to the store on 127.0.0.1:%d (%s): %s", port, opt, strerror(e));
    return ok ? 0 : -1;
}

static void run_free(run *r)
{
    for (size_t i = 0; i < r->nconns; i++) {
        conn *c = r->conns[i];
        if (c->ev_r)
            event_free(c->ev_r);
        if (c->ev_w)
            event_free(c->ev_w);
        if (c->fd >= 0)
            close(c->fd);
        free(c->rb);
        free(c);
    }
    free(r->conns);
    free(r->idle);
    free(r->req);
    if (r->ev_tick)
        event_free(r->ev_tick);
    if (r->ev_timer)
        event_free(r->ev_timer);
    if (r->ev_watch)
        event_free(r->ev_watch);
    watch_log_free(&r->watch);
    if (r->tfd >= 0)
        close(r->tfd);
    if (r->base)
        event_base_free(r->base);
}

static int run_load(run *r)
{
    struct event_config *cfg = event_config_new();
    if (!cfg)
        return -1;
    event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
    r->base = event_base_new_with_config(cfg);
    event_config_free(cfg);
    if (!r->base || event_base_priority_init(r->base, 2) != 0) {
        ut_err("cannot create the event loop");
        return -1;
    }
    if (open_initial(r) != 0)
        return -1;
    r->t0 = ut_mono_ns() + START_DELAY_NS;
    printf("tester: t0_ns %" PRId64 "\n", r->t0);
    fflush(stdout);
    if ((r->o.store_port && send_clock(r, r->o.store_port, "--store-port") != 0) ||
        (r->o.store2_port && send_clock(r, r->o.store2_port, "--store2-port") != 0) ||
        (r->o.machine && watch_begin(r) != 0))
        return -1;
    if (r->o.closed) {
        r->ev_timer = evtimer_new(r->base, on_closed_timer, r);
        struct timeval tv = {.tv_sec = 0, .tv_usec = START_DELAY_NS / 1000};
        if (!r->ev_timer || evtimer_add(r->ev_timer, &tv) != 0) {
            ut_err("cannot arm a timer");
            return -1;
        }
    } else {
        for (size_t j = 0; j < r->nreq; j++)
            r->req[j].sched += r->t0;
        if (r->nreq == 0) {
            start_drain(r);
        } else {
            r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
            if (r->tfd < 0) {
                ut_err("timerfd_create: %s", strerror(errno));
                return -1;
            }
            r->ev_tick = event_new(r->base, r->tfd, EV_READ | EV_PERSIST, on_tick, r);
            if (!r->ev_tick || event_priority_set(r->ev_tick, 0) != 0 ||
                event_add(r->ev_tick, NULL) != 0) {
                ut_err("cannot watch the timerfd");
                return -1;
            }
            arm_timer(r, r->req[0].sched);
        }
    }
    /* (a loopbreak before the loop starts would be forgotten by libevent) */
    if (!r->fatal && !(r->sending_done && r->outstanding == 0) &&
        event_base_dispatch(r->base) < 0) {
        ut_err("event loop failed");
        return -1;
    }
    return r->fatal ? -1 : 0;
}

int main(int argc, char **argv)
{
    ut_set_prog("tester");
    run R;
    memset(&R, 0, sizeof R);
    R.tfd = -1;
    int prc = topts_parse(argc, argv, &R.o);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* wake at the ns asked, not 50 us later */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    R.addr.sin_family = AF_INET;
    R.addr.sin_port = htons((uint16_t)R.o.port);
    R.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    gate_res g = {.enabled = R.o.gate, .idle_share = NAN, .steal_share = NAN, .before_s = NAN};
    g.users_start = gate_users();
    if (R.o.gate && !(R.o.gate_note && gate_note_take(R.o.gate_note, &g))) {
        int grc = gate_run(R.o.gate_wait_s, &g);
        if (grc < 0)
            return 1;
        if (grc > 0) {
            g.users_end = gate_users();
            ut_err("idle gate: only %.1f%% idle (steal %.1f%%) in the last %g s after %.1f s; "
                   "needs %.0f%%; giving up",
                   100 * g.idle_share, 100 * g.steal_share, GATE_WINDOW_S, g.waited_s, 100 * GATE_IDLE_MIN);
            write_summary(&R, &g);
            return EXIT_NOT_QUIET;
        }
    } else {
        g.passed = 1;
    }

    int rc = 1;
    if (!R.o.closed && trec_schedule(R.o.seed, R.o.rate, R.o.seconds, &R.req, &R.nreq, &R.capreq) != 0) {
        ut_err("out of memory for the schedule");
        goto out;
    }
    if (run_load(&R) != 0)
        goto out;
    g.users_end = gate_users();
    if (trec_write_rows(R.o.out, R.req, R.nreq, R.o.rows) != 0)
        goto out;
    char werr[UT_ERRLEN];
    if (R.o.machine && watch_log_write(&R.watch, R.o.machine, werr, sizeof werr) != 0) {
        ut_err("%s", werr);
        unlink(R.o.out);
        goto out;
    }
    if (write_summary(&R, &g) != 0) {
        unlink(R.o.out);
        goto out;
    }
    rc = 0;
out:
    run_free(&R);
    return rc;
}
