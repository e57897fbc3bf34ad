/* front: the scoring service's front door (front.h): the listening socket,
 * the client connections, their reading, parsing, answering and keep-alive;
 * the three waiting lines (idle, head, lingering) with their one timer, and
 * the shedding of the oldest waiting connection when descriptors run short.
 * What a request means is the driver's (service.c), reached through
 * front_calls. */
#include <assert.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "front.h"
#include "httpparse.h"
#include "rawlog.h"
#include "util.h"

typedef struct front_conn conn;

struct front_conn {
    int fd;
    struct event rd, wr;
    char *in;
    size_t nin;
    char out[1024];       /* pending answer bytes (rarely used) */
    size_t nout, offout;
    int busy;             /* a request of this connection is being served */
    int closing;          /* close after the pending answer */
    int dead;             /* closed; freed when refs drops to 0 */
    int refs;             /* requests and handlers still holding it */
    int in_process;       /* conn_process is on the stack */
    int req_close;        /* the request being served asked to close after its answer */
    int lingering;        /* its answer has gone and its side is shut: reading and dropping until EOF */
    int rd_off;           /* reading stopped: the buffer is full until the request in it is served */
    int line;             /* the waiting line it is in (LINE_IDLE ...), LINE_NONE while serving */
    int64_t since;        /* when it joined that line */
    conn *lprev, *lnext;  /* its neighbours in that line */
    conn *prev, *next;    /* every connection not yet freed (F.conns), freed at exit */
};

/* The waiting lines of front.h, each in the order it joined. */
enum { LINE_IDLE, LINE_HEAD, LINE_LINGER, NLINES, LINE_NONE = -1 };
static const char *const line_what[NLINES] = {"idle", "with an unfinished request head", "closing"};

static struct {
    struct event_base *base;
    front_calls calls;
    conn *conns;
    int lfd;                        /* the listening socket */
    struct event *acc, *acc_resume; /* the listening socket; the end of a pause in accepting */
    unsigned acc_full_said;         /* accept() found no descriptor (the line is written once) */
    unsigned shed_said;             /* a connection was shed for a new one (the line is written once) */
    int nconns, max_conns;          /* client connections open (lingering ones too); at most */
    int64_t timeout_ns[NLINES];     /* how long a connection may wait in each line */
    struct {
        conn *first, *last;
    } lines[NLINES];
    struct event *sweep;            /* the lines' one timer */
    int64_t sweep_at;               /* when it fires; 0: not set */
} F;

/* ------------------------------------------------------- HTTP answering */

static void conn_close(conn *c);
static void conn_release(conn *c);
static void conn_process(conn *c);
static void conn_write_more(conn *c);
static void conn_process_loop(conn *c);
static void conn_read(evutil_socket_t fd, conn *c);
static void conn_linger(conn *c);
static void line_leave(conn *c);
static void conn_place(conn *c);

static void on_conn_write(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    conn *c = arg;
    c->refs++;
    conn_write_more(c);
    conn_release(c);
}

static void conn_write_more(conn *c)
{
    while (c->offout < c->nout) {
        ssize_t w = write(c->fd, c->out + c->offout, c->nout - c->offout);
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (w <= 0) {
            conn_close(c);
            return;
        }
        c->offout += (size_t)w;
    }
    event_del(&c->wr);
    c->nout = c->offout = 0;
    if (c->closing) {
        conn_linger(c);
        return;
    }
    c->busy = 0;
    conn_process(c);
}

/* Send one answer; returns the time its last byte went to the kernel, or
 * that it was queued (then the time of the queueing). */
int64_t front_send(conn *c, int status, const char *body, size_t blen, int close_after)
{
    /* one answer at a time, to a client still there, while its request keeps the connection busy */
    assert(!c->dead && c->busy && c->nout == 0);
    const char *reason = status == 200   ? "OK"
                         : status == 400 ? "Bad Request"
                         : status == 404 ? "Not Found"
                         : status == 408 ? "Request Timeout"
                         : status == 413 ? "Payload Too Large"
                         : status == 504 ? "Gateway Timeout"
                                         : "Internal Server Error";
    close_after |= c->req_close;
    int n = snprintf(c->out, sizeof c->out,
                     "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n%s\r\n",
                     status, reason, blen, close_after ? "Connection: close\r\n" : "");
    if (n < 0 || (size_t)n + blen > sizeof c->out) {
        blen = 0;
        n = snprintf(c->out, sizeof c->out, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
    }
    memcpy(c->out + n, body, blen);
    c->nout = (size_t)n + blen;
    c->offout = 0;
    c->closing = close_after;
    while (c->offout < c->nout) {
        ssize_t w = write(c->fd, c->out + c->offout, c->nout - c->offout);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            event_add(&c->wr, NULL);
            return ut_mono_ns();
        }
        if (w <= 0) {
            c->nout = 0;
            conn_close(c);
            return ut_mono_ns();
        }
        c->offout += (size_t)w;
    }
    int64_t t = ut_mono_ns();
    c->nout = c->offout = 0;
    if (close_after)
        conn_linger(c);
    else
        c->busy = 0;
    return t;
}

/* An error answered before any lookup. */
void front_error(conn *c, int status, int64_t arrive, int64_t id, int64_t row, const char *reason,
                 int close_after)
{
    char body[512];
    int n = snprintf(body, sizeof body, "{\"error\":\"");
    for (const char *p = reason; *p && n < (int)sizeof body - 8; p++) {
        if (*p == '"' || *p == '\\')
            body[n++] = '\\';
        body[n++] = (char)((unsigned char)*p < 0x20 ? ' ' : *p);
    }
    n += snprintf(body + n, sizeof body - (size_t)n, "\"}");
    int64_t t = front_send(c, status, body, (size_t)n, close_after);
    F.calls.error_row(id, row, arrive, t, status, F.calls.ctx);
}

int front_alive(const conn *c) { return !c->dead; }

void front_hold(conn *c) { c->refs++; }

void front_release(conn *c) { conn_release(c); }

void front_next(conn *c)
{
    if (!c->dead && !c->busy && !c->in_process)
        conn_process(c);
}

/* ------------------------------------------------------ HTTP requests */

static void conn_process(conn *c)
{
    c->in_process = 1;
    conn_process_loop(c);
    c->in_process = 0;
    conn_place(c);
}

static void conn_process_loop(conn *c)
{
    while (!c->busy && !c->dead && c->nin > 0) {
        http_req h;
        char why[160];
        int rc = http_parse(c->in, c->nin, FRONT_MAX_HEAD, FRONT_MAX_BODY, &h, why, sizeof why);
        if (rc == HTTP_INCOMPLETE)
            return;
        line_leave(c); /* a request to serve (or refuse): it waits no more; conn_place puts it back */
        int64_t now = ut_mono_ns();
        if (rc == HTTP_TOO_LARGE) {
            c->busy = 1;
            front_error(c, 413, now, RAW_NONE, RAW_NONE, why, 1);
            return;
        }
        if (rc != HTTP_OK) {
            c->busy = 1;
            front_error(c, 400, now, RAW_NONE, RAW_NONE, why, 1);
            return;
        }
        c->busy = 1;
        c->req_close = h.close; /* front_send honours it on every path */
        int close_after = h.close;
        if (h.method == HTTP_POST && h.path_is_score) {
            F.calls.score(c, &h, now, F.calls.ctx);
        } else if (h.method == HTTP_GET && h.path_is_health) {
            front_send(c, 200, "ok", 2, close_after);
        } else if (h.method == HTTP_GET && h.path_is_calls) {
            char body[128];
            uint64_t requests, lookups;
            F.calls.counts(&requests, &lookups, F.calls.ctx);
            int n = snprintf(body, sizeof body, "{\"requests\":%" PRIu64 ",\"lookups\":%" PRIu64 "}",
                             requests, lookups);
            front_send(c, 200, body, (size_t)n, close_after);
        } else {
            front_error(c, 404, now, RAW_NONE, RAW_NONE, "no such resource: POST /score, GET /health, GET /calls",
                        close_after);
        }
        if (c->dead)
            return;
        assert(h.total <= c->nin); /* a request parsed lies in the bytes read */
        memmove(c->in, c->in + h.total, c->nin - h.total);
        c->nin -= h.total;
        if (c->rd_off) { /* room again in the buffer */
            c->rd_off = 0;
            event_add(&c->rd, NULL);
        }
    }
}

static void on_conn_read(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    conn *c = arg;
    c->refs++;
    conn_read(fd, c);
    conn_release(c);
}

/* A lingering connection: what the client still sends is dropped; its EOF
 * (or an error) ends it. */
static void conn_drop_input(evutil_socket_t fd, conn *c)
{
    char sink[4096];
    for (;;) {
        ssize_t n = read(fd, sink, sizeof sink);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            conn_close(c);
            return;
        }
    }
}

static void conn_read(evutil_socket_t fd, conn *c)
{
    if (c->lingering) {
        conn_drop_input(fd, c);
        return;
    }
    for (;;) {
        if (c->nin == FRONT_CONN_BUF) {
            /* Full: what it holds is parsed first (a head or body over its
             * limit is refused; a busy connection's next requests wait).  No
             * more reading until the buffer has room: a level-triggered
             * readable socket would otherwise call us in a loop. */
            event_del(&c->rd);
            c->rd_off = 1;
            break;
        }
        ssize_t n = read(fd, c->in + c->nin, FRONT_CONN_BUF - c->nin);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            conn_close(c);
            return;
        }
        c->nin += (size_t)n;
        if ((size_t)n < 4096)
            break;
    }
    conn_process(c);
}

/* After an answer with "Connection: close": the service's side is shut
 * (the client reads the answer, then EOF) and what the client still sends
 * is dropped, until its EOF or FRONT_LINGER_NS (the lingering line). */
static void conn_linger(conn *c)
{
    assert(!c->dead && !c->lingering);
    c->lingering = 1;
    event_del(&c->wr);
    if (shutdown(c->fd, SHUT_WR) != 0) {
        conn_close(c);
        return;
    }
    if (c->rd_off) {
        c->rd_off = 0;
        event_add(&c->rd, NULL);
    }
    conn_place(c);
}

static void conn_close(conn *c)
{
    if (c->dead)
        return;
    c->dead = 1;
    F.nconns--;
    line_leave(c);
    event_del(&c->rd);
    event_del(&c->wr);
    close(c->fd);
    /* Requests still waiting for lookups go on; they log but answer nobody.
     * The memory goes when the last of them lets go. */
    c->refs++;
    conn_release(c);
}

static void conn_release(conn *c)
{
    assert(c->refs > 0);
    if (--c->refs == 0 && c->dead) {
        if (c->prev)
            c->prev->next = c->next;
        else
            F.conns = c->next;
        if (c->next)
            c->next->prev = c->prev;
        free(c->in);
        free(c);
    }
}

/* ---------------------------------------------------- the waiting lines */

static void sweep_set(void);

static void line_leave(conn *c)
{
    if (c->line == LINE_NONE)
        return;
    if (c->lprev)
        c->lprev->lnext = c->lnext;
    else
        F.lines[c->line].first = c->lnext;
    if (c->lnext)
        c->lnext->lprev = c->lprev;
    else
        F.lines[c->line].last = c->lprev;
    c->lprev = c->lnext = NULL;
    c->line = LINE_NONE;
}

/* c joins the end of line `line` now (its deadline is the line's latest). */
static void line_join(conn *c, int line)
{
    line_leave(c);
    c->line = line;
    c->since = ut_mono_ns();
    c->lprev = F.lines[line].last;
    if (c->lprev)
        c->lprev->lnext = c;
    else
        F.lines[line].first = c;
    F.lines[line].last = c;
    int64_t due = c->since + F.timeout_ns[line];
    if (!F.sweep_at || due < F.sweep_at)
        sweep_set();
}

/* The line c belongs in now: none while it serves a request, else as
 * front.h says.  Staying in its line keeps its place (a head's further
 * bytes do not move it). */
static void conn_place(conn *c)
{
    int want = c->dead        ? LINE_NONE
               : c->lingering ? LINE_LINGER
               : c->busy      ? LINE_NONE
               : c->nin == 0  ? LINE_IDLE
                              : LINE_HEAD;
    if (want == c->line)
        return;
    if (want == LINE_NONE)
        line_leave(c);
    else
        line_join(c, want);
}

/* The timer for the earliest deadline of the lines' firsts (none: unset). */
static void sweep_set(void)
{
    int64_t at = 0;
    for (int k = 0; k < NLINES; k++) {
        const conn *c = F.lines[k].first;
        if (c && (!at || c->since + F.timeout_ns[k] < at))
            at = c->since + F.timeout_ns[k];
    }
    evtimer_del(F.sweep);
    F.sweep_at = at;
    if (at) {
        struct timeval tv = ut_tv_until(at);
        event_base_update_cache_time(F.base);
        evtimer_add(F.sweep, &tv);
    }
}

/* A head unfinished after the header timeout: 408, then it lingers. */
static void head_timed_out(conn *c)
{
    char body[128];
    int n = snprintf(body, sizeof body, "{\"error\":\"request not complete within %.3g s of its first byte\"}",
                     (double)F.timeout_ns[LINE_HEAD] / 1e9);
    line_leave(c);
    c->busy = 1;
    front_send(c, 408, body, (size_t)n, 1);
}

/* The timer: the connections past their line's timeout go, at most
 * SWEEP_BATCH at a time (thousands timing out together must not hold up
 * the requests: the rest go on the next turn of the loop), then the timer
 * is set for the next deadline. */
#define SWEEP_BATCH 256
static void on_sweep(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what, (void)arg;
    F.sweep_at = 0;
    int64_t now = ut_mono_ns();
    int done = 0;
    for (int k = 0; k < NLINES && done < SWEEP_BATCH; k++) {
        conn *c;
        while (done < SWEEP_BATCH && (c = F.lines[k].first) && c->since + F.timeout_ns[k] <= now) {
            done++;
            if (k == LINE_HEAD)
                head_timed_out(c);
            else
                conn_close(c);
        }
    }
    sweep_set(); /* at once when some are still past their deadline */
}

/* Descriptors run short: the connection that has waited longest goes (the
 * first lingering one, else the older of the first idle and the first
 * head).  0 when none waits (every connection serves a request). */
static int shed_one(const char *why)
{
    conn *c = F.lines[LINE_LINGER].first;
    if (!c) {
        conn *idle = F.lines[LINE_IDLE].first, *head = F.lines[LINE_HEAD].first;
        c = idle && (!head || idle->since <= head->since) ? idle : head;
    }
    if (!c)
        return 0;
    if (!F.shed_said++)
        ut_err("descriptors short (%s; %d client connections, at most %d): the connection waiting longest "
               "(lingering, else idle or with an unfinished head) is closed for each new one; this one %s for "
               "%.1f s (said once)",
               why, F.nconns, F.max_conns, line_what[c->line], (double)(ut_mono_ns() - c->since) / 1e9);
    conn_close(c);
    return 1;
}

/* --------------------------------------------------------- accepting */

/* Accepting stops for 100 ms: every connection serves a request. */
static void accept_pause(const char *why)
{
    struct rlimit rl = {0, 0};
    if (!F.acc_full_said++ && getrlimit(RLIMIT_NOFILE, &rl) == 0)
        ut_err("cannot accept a connection: %s (limit %llu open files, %d client connections, at most %d, each "
               "serving a request); new connections wait in the backlog, accepting paused 100 ms at a time while "
               "full (said once)",
               why, (unsigned long long)rl.rlim_cur, F.nconns, F.max_conns);
    const struct timeval pause = {0, 100000};
    event_del(F.acc);
    evtimer_add(F.acc_resume, &pause);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
    (void)what;
    (void)arg;
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
            int e = errno;
            if (shed_one(strerror(e)))
                continue; /* a descriptor is free again */
            accept_pause(strerror(e));
            return;
        }
        if (fd < 0)
            return;
        if (F.nconns >= F.max_conns && !shed_one("the connection cap"))
            accept_pause("the connection cap"); /* this one is taken, over the cap by one */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        evutil_make_socket_nonblocking(fd);
        conn *c = calloc(1, sizeof *c);
        char *in = malloc(FRONT_CONN_BUF);
        if (!c || !in) {
            free(c);
            free(in);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->in = in;
        c->line = LINE_NONE;
        F.nconns++;
        c->next = F.conns;
        if (F.conns)
            F.conns->prev = c;
        F.conns = c;
        event_assign(&c->rd, F.base, fd, EV_READ | EV_PERSIST, on_conn_read, c);
        event_assign(&c->wr, F.base, fd, EV_WRITE | EV_PERSIST, on_conn_write, c);
        event_add(&c->rd, NULL);
        conn_place(c); /* idle, until its first byte */
        if (!event_pending(F.acc, EV_READ, NULL))
            return; /* accepting paused */
    }
}

static void on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what, (void)arg;
    event_add(F.acc, NULL);
}

static int listen_on(int port, int *out_port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1024) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        close(fd);
        return -1;
    }
    evutil_make_socket_nonblocking(fd);
    *out_port = ntohs(a.sin_port);
    return fd;
}

int front_open(struct event_base *base, int port, int *bound, const front_calls *calls, const front_limits *lim)
{
    F.base = base;
    F.calls = *calls;
    F.timeout_ns[LINE_IDLE] = lim->idle_timeout_ns;
    F.timeout_ns[LINE_HEAD] = lim->header_timeout_ns;
    F.timeout_ns[LINE_LINGER] = FRONT_LINGER_NS;
    F.max_conns = lim->max_conns;
    struct rlimit rl;
    if (F.max_conns <= 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rlim_t limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > INT32_MAX ? INT32_MAX : rl.rlim_cur;
        rlim_t reserve = limit / 2 < FRONT_FD_RESERVE ? limit / 2 : FRONT_FD_RESERVE;
        F.max_conns = (int)(limit - reserve);
    }
    if (F.max_conns <= 0)
        F.max_conns = 1;
    F.lfd = listen_on(port, bound);
    if (F.lfd < 0)
        return -1;
    F.acc = event_new(F.base, F.lfd, EV_READ | EV_PERSIST, on_accept, NULL);
    F.acc_resume = evtimer_new(F.base, on_accept_resume, NULL);
    F.sweep = evtimer_new(F.base, on_sweep, NULL);
    event_add(F.acc, NULL);
    return 0;
}

int front_max_conns(void) { return F.max_conns; }

void front_free(void)
{
    while (F.conns) { /* clients still connected */
        conn *c = F.conns;
        F.conns = c->next;
        if (!c->dead) {
            event_del(&c->rd);
            event_del(&c->wr);
            close(c->fd);
        }
        free(c->in);
        free(c);
    }
    event_free(F.acc);
    event_free(F.acc_resume);
    event_free(F.sweep);
    close(F.lfd);
}
