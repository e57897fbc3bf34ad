/* store: the lab's feature store (DESIGN.md section 5; lab/RAWFORMAT.md,
 * section store.tsv.gz; lab/core/wire.h for the protocol).
 *
 *   store --port P --table build/prep/test.tsv --wait Z|F|L|H --round R
 *         --out FILE.tsv.gz [--slots 16] [--freeze-share 0.01]
 *         [--fault none|down|hang|reset|never|flaky|missing|slow|slowboth[@from-to]] [--seconds S]
 *
 * One thread, one libevent loop (precise timers, so timerfd, not epoll's
 * millisecond timeout).  Every lookup read from any connection goes to the
 * queue of lab/core/storeq.c (the rules live there, shared with lab/play/play.c): it
 * gets a slot at once or waits in one FIFO line; in its slot it waits its
 * planned wait (the dice of round, req, attempt, plus a slow store's
 * slowness), then is answered with the
 * row's six features.  A lookup carrying a budget is dropped when the
 * budget runs out, in line or in a slot, and its slot goes to the next in
 * line.  A zero wait is answered at once.
 *
 * Inside:
 * - lookups live in a pool of fixed-size records (allocated in chunks of
 *   1024, never freed before exit, recycled through a free list); the
 *   queue knows them by their address.
 * - one libevent timer runs to the queue's next due time (a slot's end or
 *   a budget in line); when it fires, everything due by then ends, and the
 *   line moves up into the freed slots, in order.
 * - answers go into the connection's output buffer; one deferred event per
 *   loop iteration writes every dirty connection with one send() each.
 * - a connection closed by its peer (or for a bad magic) stays in memory,
 *   its fd closed, until its last outstanding lookup has ended: those still
 *   take their slot time (the store cannot know better) and are logged, but
 *   their answers are thrown away.
 * - every lookup is logged with rawlog when it ends; at SIGTERM/SIGINT the
 *   unfinished ones are logged with outcome P, in order of arrival.
 * - a drain frame (lab/core/wire.h) is answered with a drained frame as
 *   soon as no lookup is live (at once when none is): the run driver's
 *   settling ends then.
 *
 * Faults (lab/core/faults.h decides, lab/RAWFORMAT.md "Fault scenarios" logs):
 * the window runs from t0, which a clock frame (lab/core/wire.h) tells the
 * store on any connection (the first one counts; before it, no window).
 * At arrival, after the unknown-row check, fault_lookup gives the lookup's
 * fate: unavailable (E) or not found (N) at once, no slot; or held (H, no
 * slot, its budget ignored: a black hole) until one timer at t0 + to
 * answers every held lookup *unavailable*.  slow and slowboth: every lookup
 * arriving in the window (whatever becomes of it) plans FAULTS_SLOW_NS more
 * than its dice (fault_slow_ns), logged in planned_ns, its slot held that
 * long.  A reset is two timers: at
 * t0 + from the store closes every connection, cuts every lookup it holds
 * (R, never answered; the queue is emptied) and closes its listening
 * socket, so connects are refused; at t0 + to it listens on the same port
 * again.  A read that finds the close due runs it first, so no lookup
 * arrives inside a reset window.
 *
 * Budgets: 0 means none; a negative budget has run out already, so such a
 * lookup is dropped at once (outcome D, no slot).  An unknown row is
 * answered at once (outcome U) whatever its budget.  The frame's flags are
 * ignored.
 *
 * Exit: 0 after a signal; 2 for bad arguments, a malformed table or an --out
 * folder it cannot write into; 1 for other failures (cannot listen, cannot
 * write the log).
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "faults.h"
#include "opt.h"
#include "rawfmt.h"
#include "rawlog.h"
#include "storeq.h"
#include "storetab.h"
#include "util.h"
#include "waits.h"
#include "wire.h"

_Static_assert(STORETAB_NFEAT == WIRE_NFEAT, "the table's features are the answer's");
#define CHUNK 1024          /* lookups per pool chunk */
#define INBUF (512 * WIRE_REQ_SIZE)
#define OUT_MAX (64u << 20) /* a peer that reads nothing: closed beyond this */

struct conn;

typedef struct lk {
    struct conn *c;
    struct lk *aprev, *anext; /* live lookups in order of arrival; free list */
    int64_t arrive, start, planned, budget;
    uint64_t tag;
    uint32_t req, row;
    uint16_t attempt;
    int32_t line, busy;
    int held; /* by a hang window: no slot, not in the queue */
} lk;

typedef struct conn {
    int fd;
    int closed, dirty, wpending;
    int drain_wait; /* sent a drain frame: answered when no lookup is live */
    unsigned long long id;
    char peer[64];
    struct event rev, wev;
    size_t outstanding;
    struct conn *dnext;       /* dirty list */
    struct conn *prev, *next; /* every connection not yet freed */
    unsigned char *out;
    size_t olen, ooff, ocap;
    size_t inlen;
    unsigned char in[INBUF];
} conn;

static struct {
    /* settings */
    wait_kind kind;
    double freeze;
    uint32_t round;
    storetab tab;
    /* loop */
    struct event_base *base;
    struct event lev, flush_ev;
    struct event *sig_term, *sig_int;
    int lfd;
    int lev_on, flush_on;
    int flush_armed;
    struct event due_ev; /* the queue's next due time */
    int due_on;
    int64_t due_at; /* when due_ev is set to run; INT64_MAX: not set */
    /* state */
    storeq q;
    lk *ahead, *atail;
    lk *free_lk;
    lk **chunks;
    size_t nchunks, capchunks;
    conn *conns;
    conn *dirty;
    unsigned long long next_conn_id;
    /* faults */
    fault_spec fault;
    fault_window win;
    int64_t t0;           /* INT64_MIN until a clock frame tells it */
    struct event edge_ev; /* the next edge of the window */
    int edge_on, edge;    /* edge: EDGE_* */
    int64_t edge_at;
    size_t nheld;
    int ndrain;           /* connections with drain_wait */
    int port;             /* listened on, and again after a reset */
    rawlog *log;
    int log_failed;
    int accept_warned;
} S;

/* ---------- the pool ---------- */

static lk *lk_get(void)
{
    if (!S.free_lk) {
        if (S.nchunks == S.capchunks) {
            size_t cap = S.capchunks ? 2 * S.capchunks : 16;
            lk **nc = realloc(S.chunks, cap * sizeof *nc);
            if (!nc)
                return NULL;
            S.chunks = nc;
            S.capchunks = cap;
        }
        lk *ch = calloc(CHUNK, sizeof *ch);
        if (!ch)
            return NULL;
        S.chunks[S.nchunks++] = ch;
        for (int i = CHUNK - 1; i >= 0; i--) {
            ch[i].anext = S.free_lk;
            S.free_lk = &ch[i];
        }
    }
    lk *l = S.free_lk;
    S.free_lk = l->anext;
    return l;
}

static void lk_put(lk *l)
{
    l->c = NULL;
    l->anext = S.free_lk;
    S.free_lk = l;
}

/* ---------- connections ---------- */

static void conn_free(conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        S.conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c->out);
    free(c);
}

static void conn_maybe_free(conn *c)
{
    if (c->closed && c->outstanding == 0 && !c->dirty)
        conn_free(c);
}

static void conn_close(conn *c)
{
    if (c->closed)
        return;
    if (c->drain_wait) {
        c->drain_wait = 0;
        S.ndrain--;
    }
    event_del(&c->rev);
    event_del(&c->wev);
    close(c->fd);
    c->fd = -1;
    c->closed = 1;
    c->olen = c->ooff = 0;
    c->wpending = 0;
}

/* Write what is buffered; 0 when the connection is still usable. */
static int conn_write(conn *c)
{
    while (c->ooff < c->olen) {
        ssize_t w = send(c->fd, c->out + c->ooff, c->olen - c->ooff, MSG_NOSIGNAL);
        if (w > 0) {
            c->ooff += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!c->wpending) {
                event_add(&c->wev, NULL);
                c->wpending = 1;
            }
            return 0;
        }
        return -1; /* EPIPE, ECONNRESET ...: the peer is gone */
    }
    c->olen = c->ooff = 0;
    if (c->wpending) {
        event_del(&c->wev);
        c->wpending = 0;
    }
    return 0;
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    conn *c = arg;
    if (conn_write(c) != 0)
        conn_close(c);
    conn_maybe_free(c);
}

static void on_flush(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    S.flush_armed = 0;
    while (S.dirty) {
        conn *c = S.dirty;
        S.dirty = c->dnext;
        c->dnext = NULL;
        c->dirty = 0;
        if (!c->closed && !c->wpending && conn_write(c) != 0)
            conn_close(c);
        conn_maybe_free(c);
    }
}

/* Room for one answer-sized frame at c->out + c->olen; 0, or -1 when the
 * peer has left too much unread (c is then closed). */
static int conn_room(conn *c)
{
    if (c->olen + WIRE_ANS_SIZE > c->ocap) {
        if (c->ooff > 0) {
            memmove(c->out, c->out + c->ooff, c->olen - c->ooff);
            c->olen -= c->ooff;
            c->ooff = 0;
        }
        if (c->olen + WIRE_ANS_SIZE > c->ocap) {
            size_t cap = c->ocap ? 2 * c->ocap : 4096;
            unsigned char *o = cap <= OUT_MAX ? realloc(c->out, cap) : NULL;
            if (!o) {
                ut_err("connection %llu (%s): %zu answer bytes unread, closing", c->id, c->peer,
                       c->olen);
                conn_close(c);
                return -1;
            }
            c->out = o;
            c->ocap = cap;
        }
    }
    return 0;
}

/* The frame just put at c->out + c->olen is sent with the next flush. */
static void conn_mark(conn *c)
{
    c->olen += WIRE_ANS_SIZE;
    if (!c->dirty) {
        c->dirty = 1;
        c->dnext = S.dirty;
        S.dirty = c;
        if (!S.flush_armed) {
            S.flush_armed = 1;
            event_active(&S.flush_ev, EV_WRITE, 0);
        }
    }
}

static void conn_answer(conn *c, uint32_t status, uint64_t tag, const float *x)
{
    if (c->closed || conn_room(c) != 0)
        return;
    wire_ans a = {.status = status, .tag = tag};
    if (x)
        memcpy(a.x, x, sizeof a.x);
    wire_put_ans(c->out + c->olen, &a);
    conn_mark(c);
}

static void conn_drained(conn *c)
{
    if (c->closed || conn_room(c) != 0)
        return;
    wire_put_drained(c->out + c->olen);
    conn_mark(c);
}

/* A drain frame: answered now when no lookup is live, else when the last ends. */
static void drain_frame(conn *c)
{
    if (!S.ahead) {
        conn_drained(c);
        return;
    }
    if (!c->drain_wait) {
        c->drain_wait = 1;
        S.ndrain++;
    }
}

/* After a lookup ended: the drain frames waiting are answered once none is live. */
static void drain_check(void)
{
    if (S.ndrain == 0 || S.ahead)
        return;
    for (conn *c = S.conns; c; c = c->next)
        if (c->drain_wait) {
            c->drain_wait = 0;
            conn_drained(c);
        }
    S.ndrain = 0;
}

/* ---------- lookups ---------- */

static void log_row(const lk *l, int64_t end, char outcome)
{
    int64_t v[RAWFMT_STORE_NCOLS];
    v[RAWFMT_STORE_req] = l->req;
    v[RAWFMT_STORE_attempt] = l->attempt;
    v[RAWFMT_STORE_row] = l->row;
    v[RAWFMT_STORE_arrive_t] = l->arrive;
    v[RAWFMT_STORE_start_t] = l->start;
    v[RAWFMT_STORE_end_t] = end;
    v[RAWFMT_STORE_planned_ns] = l->planned;
    v[RAWFMT_STORE_budget_ns] = l->budget;
    v[RAWFMT_STORE_outcome] = outcome;
    v[RAWFMT_STORE_line] = l->line;
    v[RAWFMT_STORE_busy] = l->busy;
    if (rawlog_row(S.log, v) != 0 && !S.log_failed) {
        S.log_failed = 1;
        ut_err("cannot spill log records; the log will be rejected at stop");
    }
}

/* The lookup ends now: log it, answer it (if its peer is still there), and
 * give its record back. */
static void lk_finish(lk *l, int64_t now, char outcome, uint32_t status)
{
    log_row(l, now, outcome);
    conn *c = l->c;
    assert(c && c->outstanding > 0); /* a connection stays until its last lookup has ended */
    conn_answer(c, status, l->tag, status == WIRE_OK ? S.tab.x[l->row] : NULL);
    if (l->aprev)
        l->aprev->anext = l->anext;
    else
        S.ahead = l->anext;
    if (l->anext)
        l->anext->aprev = l->aprev;
    else
        S.atail = l->aprev;
    c->outstanding--;
    lk_put(l);
    conn_maybe_free(c);
    drain_check();
}

/* Carry out what the queue reports. */
static void on_queue(const storeq_event *e)
{
    lk *l = (lk *)(uintptr_t)e->id;
    assert(l->c && !l->held); /* a live lookup; held ones are not in the queue */
    if (e->what == STOREQ_QUEUED)
        return;
    l->start = e->start == STOREQ_NONE ? RAW_NONE : e->start;
    if (e->what == STOREQ_ANSWERED)
        lk_finish(l, e->t, 'A', WIRE_OK);
    else if (e->what != STOREQ_STARTED)
        lk_finish(l, e->t, 'D', WIRE_DROPPED);
}

/* Run ev at `at` (absolute ns).  libevent keeps microseconds and truncates
 * its clock: round up and add one so the timer never fires before `at`
 * (its callbacks check anyway). */
static void timer_at(struct event *ev, int64_t at, int64_t now)
{
    int64_t us = (at - now + 999) / 1000 + 1;
    if (us < 1)
        us = 1;
    struct timeval tv = {.tv_sec = (time_t)(us / 1000000), .tv_usec = (suseconds_t)(us % 1000000)};
    event_add(ev, &tv);
}

/* Set the timer to the queue's next due time, if that changed. */
static void arm_due(int64_t now)
{
    int64_t at = storeq_next(&S.q, NULL);
    if (at == S.due_at)
        return;
    S.due_at = at;
    if (at == INT64_MAX) {
        event_del(&S.due_ev);
        return;
    }
    timer_at(&S.due_ev, at, now);
}

/* Everything due by now ends; after each, the line moves up. */
static void on_due(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    int64_t now = ut_mono_ns();
    S.due_at = INT64_MAX; /* it ran: not set any more */
    storeq_event e;
    while (storeq_end(&S.q, now, &e)) {
        on_queue(&e);
        int rc;
        while ((rc = storeq_fill(&S.q, now, &e)) > 0)
            on_queue(&e);
        if (rc < 0) {
            ut_err("out of memory for the line; stopping");
            event_base_loopbreak(S.base);
            return;
        }
    }
    arm_due(now);
}

static void lookup_arrive(conn *c, const wire_req *r, int64_t now)
{
    lk *l = lk_get();
    if (!l) {
        ut_err("out of memory for lookups; stopping");
        event_base_loopbreak(S.base);
        return;
    }
    l->c = c;
    c->outstanding++;
    l->req = r->req;
    l->attempt = r->attempt;
    l->row = r->row;
    l->tag = r->tag;
    l->budget = r->budget_ns;
    l->arrive = now;
    l->start = RAW_NONE;
    int64_t t_rel = S.t0 == INT64_MIN ? INT64_MIN : now - S.t0;
    /* the dice, and a slow store's slowness (faults.h): the wait it plans */
    l->planned = waits_planned_ns_p(S.kind, S.freeze, S.round, r->req, r->attempt) +
                 fault_slow_ns(&S.fault, &S.win, t_rel);
    assert(l->planned >= 0); /* the dice give a wait, never a negative one (storeq_arrive refuses it) */
    l->line = (int32_t)storeq_line(&S.q);
    l->busy = storeq_busy(&S.q);
    l->held = 0;
    l->aprev = S.atail;
    l->anext = NULL;
    if (S.atail)
        S.atail->anext = l;
    else
        S.ahead = l;
    S.atail = l;
    if (r->row >= S.tab.nrows) {
        lk_finish(l, now, 'U', WIRE_UNKNOWN_ROW);
        return;
    }
    switch (fault_lookup(&S.fault, &S.win, S.round, r->req, r->attempt, r->row, t_rel)) {
    case FAULT_UNAVAILABLE:
        lk_finish(l, now, 'E', WIRE_UNAVAILABLE);
        return;
    case FAULT_NOT_FOUND:
        lk_finish(l, now, 'N', WIRE_NOT_FOUND);
        return;
    case FAULT_HOLD: /* answered when the window ends (on_edge) */
        l->held = 1;
        S.nheld++;
        return;
    case FAULT_PASS:
        break;
    }
    storeq_event e;
    if (storeq_arrive(&S.q, now, (uintptr_t)l, l->planned, r->budget_ns, &e) != 0) {
        ut_err("out of memory for the line; stopping"); /* it stays unfinished: logged P */
        event_base_loopbreak(S.base);
        return;
    }
    on_queue(&e);
    arm_due(now);
}

/* ---------- faults ---------- */

enum { EDGE_NONE, EDGE_RELEASE, EDGE_CLOSE, EDGE_OPEN };

static int listen_on(int64_t port, int announce);

static void edge_set(int edge, int64_t at, int64_t now)
{
    S.edge = edge;
    S.edge_at = at;
    timer_at(&S.edge_ev, at, now);
}

/* A hang window ends: every held lookup is answered unavailable now. */
static void release_held(int64_t now)
{
    for (lk *l = S.ahead, *next; l && S.nheld > 0; l = next) {
        next = l->anext;
        if (l->held) {
            S.nheld--;
            lk_finish(l, now, 'H', WIRE_UNAVAILABLE);
        }
    }
    assert(S.nheld == 0); /* every held lookup is answered when the window ends */
}

/* A reset window starts: every connection closed (the answers already
 * earned written first, best effort), every lookup the store holds cut
 * (R, never answered), the queue emptied, connects refused. */
static void reset_close(int64_t now)
{
    for (conn *c = S.conns; c; c = c->next)
        if (!c->closed) {
            if (!c->wpending)
                (void)conn_write(c);
            conn_close(c);
        }
    for (lk *l = S.ahead, *next; l; l = next) {
        next = l->anext;
        lk_finish(l, now, 'R', WIRE_UNAVAILABLE);
    }
    assert(!S.ahead && !S.atail); /* every lookup the store held is cut */
    S.nheld = 0;
    storeq_reset(&S.q);
    arm_due(now);
    for (conn *c = S.conns, *next; c; c = next) {
        next = c->next;
        conn_maybe_free(c);
    }
    if (S.lev_on) {
        event_del(&S.lev);
        S.lev_on = 0;
    }
    if (S.lfd >= 0)
        close(S.lfd);
    S.lfd = -1;
}

/* The window's next edge is due by now: carry it out, set the next one. */
static void edge_run(int64_t now)
{
    int edge = S.edge;
    S.edge = EDGE_NONE;
    event_del(&S.edge_ev); /* run early by a read, or by its timer */
    if (edge == EDGE_RELEASE) {
        release_held(now);
    } else if (edge == EDGE_CLOSE) {
        reset_close(now);
        if (S.win.to_ns != INT64_MAX)
            edge_set(EDGE_OPEN, S.t0 + S.win.to_ns, now);
    } else if (edge == EDGE_OPEN && listen_on(S.port, 0) != 0) {
        if (S.lfd >= 0)
            close(S.lfd);
        S.lfd = -1;
        ut_err("the reset window is over: listening again in 50 ms");
        edge_set(EDGE_OPEN, now + 50000000, now);
    }
}

static void on_edge(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    int64_t now = ut_mono_ns();
    if (now < S.edge_at) /* never early */
        timer_at(&S.edge_ev, S.edge_at, now);
    else
        edge_run(now);
}

/* A clock frame: the first sets t0 and the window's first edge. */
static void clock_frame(conn *c, int64_t t0, int64_t now)
{
    if (S.t0 != INT64_MIN) {
        if (t0 != S.t0)
            ut_err("connection %llu (%s): a second clock frame (t0 %" PRId64 ", kept %" PRId64 "): ignored",
                   c->id, c->peer, t0, S.t0);
        return;
    }
    S.t0 = t0;
    if (S.fault.kind == FAULT_HANG && S.win.to_ns != INT64_MAX)
        edge_set(EDGE_RELEASE, t0 + S.win.to_ns, now);
    else if (S.fault.kind == FAULT_RESET)
        edge_set(EDGE_CLOSE, t0 + S.win.from_ns, now);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    conn *c = arg;
    ssize_t n;
    for (;;) {
        n = read(fd, c->in + c->inlen, sizeof c->in - c->inlen);
        if (n >= 0 || errno != EINTR)
            break;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) { /* EOF or error: its lookups go on, answers are dropped */
        conn_close(c);
        conn_maybe_free(c);
        return;
    }
    int64_t now = ut_mono_ns();
    c->inlen += (size_t)n;
    size_t off = 0;
    c->outstanding++; /* holds c while its lookups may end (and free it) */
    while (c->inlen - off >= WIRE_REQ_SIZE) {
        if (S.edge == EDGE_CLOSE && now >= S.edge_at) { /* before its timer: c too is closed */
            edge_run(now);
            break;
        }
        wire_req r;
        int64_t t0;
        if (wire_is_drain(c->in + off)) {
            off += WIRE_REQ_SIZE;
            drain_frame(c);
            continue;
        }
        int clock = wire_get_clock(c->in + off, &t0) == 0;
        if (clock && t0 > 0 && t0 < INT64_MAX / 2) {
            off += WIRE_REQ_SIZE;
            clock_frame(c, t0, now);
            continue;
        }
        if (clock || wire_get_req(c->in + off, &r) != 0) {
            uint32_t m;
            memcpy(&m, c->in + off, 4);
            if (clock)
                ut_err("connection %llu (%s): a clock frame with t0 %" PRId64 ", closing it", c->id,
                       c->peer, t0);
            else
                ut_err("connection %llu (%s): bad magic 0x%08x in a request frame, closing it",
                       c->id, c->peer, m);
            if (!c->wpending)
                (void)conn_write(c); /* best effort: the answers it earned */
            conn_close(c);
            c->outstanding--;
            conn_maybe_free(c);
            return;
        }
        off += WIRE_REQ_SIZE;
        lookup_arrive(c, &r, now);
        if (c->closed) /* its output grew past OUT_MAX */
            break;
    }
    c->outstanding--;
    if (c->closed) {
        conn_maybe_free(c);
        return;
    }
    if (off > 0 && off < c->inlen)
        memmove(c->in, c->in + off, c->inlen - off);
    c->inlen -= off;
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
    (void)what;
    (void)arg;
    for (int k = 0; k < 64; k++) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK && !S.accept_warned) {
                S.accept_warned = 1;
                ut_err("accept: %s", strerror(errno));
            }
            return;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *c = calloc(1, sizeof *c);
        if (!c) {
            ut_err("out of memory for a connection; refused");
            close(fd);
            continue;
        }
        c->fd = fd;
        c->id = S.next_conn_id++;
        char ip[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
        snprintf(c->peer, sizeof c->peer, "%s:%u", ip, (unsigned)ntohs(sa.sin_port));
        event_assign(&c->rev, S.base, fd, EV_READ | EV_PERSIST, on_readable, c);
        event_assign(&c->wev, S.base, fd, EV_WRITE | EV_PERSIST, on_writable, c);
        if (event_add(&c->rev, NULL) != 0) {
            ut_err("connection %llu (%s): cannot watch it; refused", c->id, c->peer);
            close(fd);
            free(c);
            continue;
        }
        c->next = S.conns;
        if (S.conns)
            S.conns->prev = c;
        S.conns = c;
    }
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)sig;
    (void)what;
    (void)arg;
    event_base_loopbreak(S.base);
}

/* ---------- main ---------- */

/* The event loop, its flush, timer and signal events, and the first chunk
 * of lookups (now, not under the first lookup).  0, or -1 after a message. */
static int loop_open(struct event_config **cfg)
{
    *cfg = event_config_new();
    if (!*cfg || event_config_set_flag(*cfg, EVENT_BASE_FLAG_PRECISE_TIMER) != 0 ||
        event_config_set_flag(*cfg, EVENT_BASE_FLAG_NO_CACHE_TIME) != 0) {
        ut_err("libevent: cannot configure the event loop");
        return -1;
    }
    S.base = event_base_new_with_config(*cfg);
    if (!S.base) {
        ut_err("libevent: cannot create the event loop");
        return -1;
    }
    event_assign(&S.flush_ev, S.base, -1, 0, on_flush, NULL);
    S.flush_on = 1;
    event_assign(&S.due_ev, S.base, -1, 0, on_due, NULL);
    S.due_on = 1;
    event_assign(&S.edge_ev, S.base, -1, 0, on_edge, NULL);
    S.edge_on = 1;
    lk *l = lk_get();
    if (!l) {
        ut_err("out of memory");
        return -1;
    }
    lk_put(l);
    S.sig_term = evsignal_new(S.base, SIGTERM, on_signal, NULL);
    S.sig_int = evsignal_new(S.base, SIGINT, on_signal, NULL);
    if (!S.sig_term || !S.sig_int || evsignal_add(S.sig_term, NULL) != 0 ||
        evsignal_add(S.sig_int, NULL) != 0) {
        ut_err("libevent: cannot watch SIGTERM and SIGINT");
        return -1;
    }
    return 0;
}

/* Listen on 127.0.0.1:port (0: any) and, when announce, say where (the
 * one line on stdout).  0, or -1 after a message. */
static int listen_on(int64_t port, int announce)
{
    S.lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    if (S.lfd < 0 || setsockopt(S.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(S.lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(S.lfd, 1024) != 0 ||
        getsockname(S.lfd, (struct sockaddr *)&sa, &sl) != 0) {
        ut_err("cannot listen on 127.0.0.1:%" PRId64 ": %s", port, strerror(errno));
        return -1;
    }
    event_assign(&S.lev, S.base, S.lfd, EV_READ | EV_PERSIST, on_accept, NULL);
    S.lev_on = 1;
    if (event_add(&S.lev, NULL) != 0) {
        ut_err("libevent: cannot watch the listening socket");
        return -1;
    }
    S.port = (int)ntohs(sa.sin_port);
    if (announce) {
        printf("store: listening on 127.0.0.1:%d\n", S.port);
        fflush(stdout);
    }
    return 0;
}

/* Everything main made, whether or not it got that far. */
static void cleanup(struct event_config *cfg)
{
    if (S.log)
        rawlog_abort(S.log);
    while (S.conns) {
        conn *c = S.conns;
        conn_close(c);
        conn_free(c);
    }
    for (size_t i = 0; i < S.nchunks; i++)
        free(S.chunks[i]);
    free(S.chunks);
    storeq_free(&S.q);
    if (S.due_on)
        event_del(&S.due_ev);
    if (S.edge_on)
        event_del(&S.edge_ev);
    if (S.lev_on)
        event_del(&S.lev);
    if (S.flush_on)
        event_del(&S.flush_ev);
    if (S.sig_term)
        event_free(S.sig_term);
    if (S.sig_int)
        event_free(S.sig_int);
    if (S.lfd >= 0)
        close(S.lfd);
    if (S.base)
        event_base_free(S.base);
    if (cfg)
        event_config_free(cfg);
    libevent_global_shutdown();
    storetab_free(&S.tab);
}

int main(int argc, char **argv)
{
    ut_set_prog("store");
    const char *table = NULL, *out = NULL, *wait = NULL;
    int64_t port = -1, round = -1;
    int slots = 16;
    double freeze = WAITS_FREEZE_P, seconds = -1;
    const char *fault = "none";
    char err[UT_ERRLEN];
    const opt_spec spec[] = {
        {"--port", OPT_I64, &port, 0, 65535, "P", "listen on 127.0.0.1:P; 0: any free port (required)"},
        {"--table", OPT_STR, &table, 0, 0, "TABLE.tsv", "the test table, build/prep/test.tsv (required)"},
        {"--wait", OPT_STR, &wait, 0, 0, "Z|F|L|H", "the dice's kind (required)"},
        {"--round", OPT_I64, &round, 0, UINT32_MAX, "R", "the round, the dice's key (required)"},
        {"--out", OPT_STR, &out, 0, 0, "FILE.tsv.gz", "the log, written at SIGTERM (required)"},
        {"--slots", OPT_INT, &slots, 1, 1000000, "N", "slots (16)"},
        {"--freeze-share", OPT_DBL, &freeze, 0, 1, "P", "share of H lookups that freeze (0.01)"},
        {"--fault", OPT_STR, &fault, 0, 0, "SPEC", "how the store fails, lab/core/faults.h: down, hang@0.2-0.5 ... (none)"},
        {"--seconds", OPT_DBL, &seconds, 0.001, 1e6, "S",
         "the schedule's length, the window's scale (required with a window)"},
        {0}};
    int prc = opt_parse(argc, argv, spec, "store: the lab's feature store (lab/store/store.c)", NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (port < 0 || round < 0 || !table || !out || !wait) {
        ut_err("--port, --table, --wait, --round and --out are required (try --help)");
        return 2;
    }
    if (waits_kind(wait, &S.kind) != 0) {
        ut_err("--wait: '%s' is not one of Z, F, L, H", wait);
        return 2;
    }
    if (fault_parse(fault, &S.fault, err, sizeof err) != 0) {
        ut_err("--fault: %s", err);
        return 2;
    }
    if (fault_has_window(S.fault.kind) && seconds < 0) {
        ut_err("--fault %s has a window, a share of the schedule: --seconds is required", fault);
        return 2;
    }
    S.win = fault_window_of(&S.fault, seconds);
    S.t0 = INT64_MIN;
    S.edge_at = INT64_MAX;
    S.freeze = freeze;
    S.round = (uint32_t)round;
    S.lfd = -1;
    S.due_at = INT64_MAX;
    (void)storeq_init(&S.q, slots, NULL);

    if (storetab_load(table, &S.tab, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 2;
    }
    int rc = 1;
    struct event_config *cfg = NULL;
    {   /* the log's folder must be writable now, not only at stop */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", out);
        char *slash = strrchr(dir, '/');
        if (slash)
            slash[slash == dir ? 1 : 0] = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        if (access(dir, W_OK | X_OK) != 0) {
            ut_err("%s: cannot write into %s: %s", out, dir, strerror(errno));
            rc = 2;
            goto done;
        }
    }
    if (rawfmt_log_open(&S.log, out, RAWFMT_STORE, err, sizeof err) != 0) {
        ut_err("%s", err);
        goto done;
    }
    signal(SIGPIPE, SIG_IGN);
    /* the kernel may defer a timer by the thread's slack (50 us by default) */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

    if (loop_open(&cfg) != 0 || listen_on(port, 1) != 0)
        goto done;

    if (event_base_dispatch(S.base) < 0) {
        ut_err("libevent: the event loop failed");
        goto done;
    }
    /* stopped: the unfinished lookups, in order of arrival */
    for (lk *l = S.ahead; l; l = l->anext)
        log_row(l, RAW_NONE, 'P');
    rawlog *lg = S.log;
    S.log = NULL;
    if (rawlog_close(lg, err, sizeof err) != 0) {
        ut_err("%s", err);
        goto done;
    }
    rc = 0;
done:
    cleanup(cfg);
    return rc;
}
