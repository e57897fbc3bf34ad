/* storeconn: see storeconn.h. */
#include "storeconn.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "policy.h"
#include "util.h"

enum { LIVE, DOWN, CONNECTING };

typedef struct {
    sconn *owner;
    int idx;  /* its number in the service (first + place) */
    int slot; /* its place here, 0 .. n-1 */
    int fd; /* -1 when DOWN */
    int state;
    struct event rd, wr; /* assigned for each new socket */
    struct event pend;   /* CONNECTING: the socket writable, or the try's time out */
    struct event retry;  /* DOWN: the pause before the next try */
    unsigned char in[WIRE_ANS_SIZE * 256];
    size_t nin;
    unsigned char *out;
    size_t nout, capout;
    uint32_t losses; /* losses so far */
    uint32_t outage; /* the number of the current (or last) outage */
    int fails;       /* failed tries in a row in this outage */
} chan;

struct sconn {
    struct event_base *base;
    int port, n, next;
    uint32_t round;
    sconn_calls calls;
    chan ch[SCONN_MAX];
    struct event *flush;
    int flush_pending;
    evlog *events;
};

static void on_read(evutil_socket_t fd, short what, void *arg);
static void on_write(evutil_socket_t fd, short what, void *arg);
static void on_retry(evutil_socket_t fd, short what, void *arg);

static void log_event(sconn *s, int64_t t, char what, int conn, int tries, int64_t wait_ns)
{
    evlog_row(s->events, t, what, conn, tries, wait_ns);
}

static struct sockaddr_in store_addr(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* The socket fd (non-blocking, connected) becomes connection l. */
static void up(chan *l, int fd)
{
    sconn *s = l->owner;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    l->fd = fd;
    l->state = LIVE;
    l->nin = l->nout = 0;
    event_assign(&l->rd, s->base, fd, EV_READ | EV_PERSIST, on_read, l);
    event_assign(&l->wr, s->base, fd, EV_WRITE | EV_PERSIST, on_write, l);
    event_add(&l->rd, NULL);
}

/* The next try at the absolute time `at`.  libevent adds a relative timeout
 * to its cached clock: measure the timeout first, refresh the cache after,
 * and round up to whole microseconds, so that the try is never early. */
static void retry_at(chan *l, int64_t at)
{
    struct timeval tv = ut_tv_until(at);
    event_base_update_cache_time(l->owner->base);
    l->state = DOWN;
    evtimer_add(&l->retry, &tv);
}

static void lose(chan *l)
{
    sconn *s = l->owner;
    assert(l->state == LIVE && l->fd >= 0); /* only a live connection is lost */
    event_del(&l->rd);
    event_del(&l->wr);
    close(l->fd);
    l->fd = -1;
    l->nin = l->nout = 0;
    l->outage = l->losses++;
    l->fails = 0;
    int64_t t = ut_mono_ns(), w = pol_reconnect_ns(s->round, l->idx, l->outage, 0);
    log_event(s, t, 'L', l->idx, 0, w);
    retry_at(l, t + w);
    s->calls.lost(l->idx, t, s->calls.ctx);
}

static void try_failed(chan *l)
{
    sconn *s = l->owner;
    l->fails++;
    int64_t t = ut_mono_ns(), w = pol_reconnect_ns(s->round, l->idx, l->outage, l->fails);
    log_event(s, t, 'F', l->idx, l->fails, w);
    retry_at(l, t + w);
}

static void try_done(chan *l, int fd)
{
    up(l, fd);
    log_event(l->owner, ut_mono_ns(), 'C', l->idx, l->fails, 0);
}

static void on_connected(evutil_socket_t fd, short what, void *arg)
{
    chan *l = arg;
    assert(l->state == CONNECTING && l->fd == fd);
    int e = 0;
    socklen_t len = sizeof e;
    if (what & EV_TIMEOUT)
        e = ETIMEDOUT;
    else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
        e = errno;
    if (e != 0) {
        close(fd);
        l->fd = -1;
        try_failed(l);
        return;
    }
    try_done(l, fd);
}

static void on_retry(evutil_socket_t unused, short what, void *arg)
{
    (void)unused;
    (void)what;
    chan *l = arg;
    assert(l->state == DOWN && l->fd < 0); /* a try only after a loss or a failed try */
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        try_failed(l);
        return;
    }
    struct sockaddr_in a = store_addr(l->owner->port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        try_done(l, fd);
        return;
    }
    if (errno != EINPROGRESS) {
        close(fd);
        try_failed(l);
        return;
    }
    l->fd = fd;
    l->state = CONNECTING;
    struct timeval tv = {.tv_sec = SCONN_CONNECT_TIMEOUT_NS / 1000000000LL,
                         .tv_usec = SCONN_CONNECT_TIMEOUT_NS % 1000000000LL / 1000};
    event_assign(&l->pend, l->owner->base, fd, EV_WRITE, on_connected, l);
    event_add(&l->pend, &tv);
}

/* Writes what is queued; 0, or -1 when the connection was lost. */
static int flush_link(chan *l)
{
    size_t off = 0;
    while (off < l->nout) {
        ssize_t w = write(l->fd, l->out + off, l->nout - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            break;
        if (w <= 0) {
            lose(l);
            return -1;
        }
        off += (size_t)w;
    }
    memmove(l->out, l->out + off, l->nout - off);
    l->nout -= off;
    if (l->nout)
        event_add(&l->wr, NULL);
    else
        event_del(&l->wr);
    return 0;
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    flush_link(arg);
}

/* Lookups queued during one pass of the event loop go out together, in one
 * write per connection, when the pass's other events are done. */
static void on_flush(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    sconn *s = arg;
    s->flush_pending = 0;
    for (int i = 0; i < s->n; i++) {
        chan *l = &s->ch[i];
        if (l->state == LIVE && l->nout && !event_pending(&l->wr, EV_WRITE, NULL))
            flush_link(l);
    }
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    chan *l = arg;
    sconn *s = l->owner;
    for (;;) {
        ssize_t n = read(fd, l->in + l->nin, sizeof l->in - l->nin);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            lose(l); /* closed by the store, or a read error */
            return;
        }
        l->nin += (size_t)n;
        int64_t now = ut_mono_ns();
        size_t off = 0;
        while (l->nin - off >= WIRE_ANS_SIZE) {
            wire_ans a;
            if (wire_get_ans(l->in + off, &a) != 0) {
                lose(l); /* a malformed frame: nothing after it can be trusted */
                return;
            }
            s->calls.answer(&a, now, s->calls.ctx);
            off += WIRE_ANS_SIZE;
        }
        memmove(l->in, l->in + off, l->nin - off);
        l->nin -= off;
        if ((size_t)n < sizeof l->in / 2)
            return; /* drained: no need for a read that says EAGAIN */
    }
}

int sconn_send(sconn *s, const wire_req *q)
{
    for (int k = 0; k < s->n; k++) {
        chan *l = &s->ch[(s->next + k) % s->n];
        if (l->state != LIVE)
            continue;
        if (l->nout + WIRE_REQ_SIZE > l->capout) {
            size_t nc = l->capout ? l->capout * 2 : 4096;
            unsigned char *no = realloc(l->out, nc);
            if (!no)
                return SCONN_NOMEM;
            l->out = no;
            l->capout = nc;
        }
        s->next = (l->slot + 1) % s->n;
        assert(l->idx == s->ch[0].idx + l->slot && l->nout + WIRE_REQ_SIZE <= l->capout);
        wire_put_req(l->out + l->nout, q);
        l->nout += WIRE_REQ_SIZE;
        if (!s->flush_pending) {
            s->flush_pending = 1;
            event_active(s->flush, EV_TIMEOUT, 0);
        }
        return l->idx;
    }
    return SCONN_NONE;
}

int sconn_live(const sconn *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->ch[i].state == LIVE;
    return n;
}

void sconn_free(sconn *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        chan *l = &s->ch[i];
        if (l->state == LIVE) {
            event_del(&l->rd);
            event_del(&l->wr);
        }
        if (l->state == CONNECTING)
            event_del(&l->pend);
        event_del(&l->retry);
        if (l->fd >= 0)
            close(l->fd);
        free(l->out);
    }
    if (s->flush)
        event_free(s->flush);
    free(s);
}

int sconn_open(sconn **out, struct event_base *base, int port, int n, int first, uint32_t round, evlog *events,
               const sconn_calls *calls, char *err, size_t errlen)
{
    *out = NULL;
    if (n < 1 || n > SCONN_MAX) {
        ut_seterr(err, errlen, "%d connections to the store: 1 to %d allowed", n, SCONN_MAX);
        return -1;
    }
    sconn *s = calloc(1, sizeof *s);
    if (!s) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    s->base = base;
    s->port = port;
    s->round = round;
    s->events = events;
    s->calls = *calls;
    for (int i = 0; i < SCONN_MAX; i++) {
        s->ch[i].owner = s;
        s->ch[i].idx = first + i;
        s->ch[i].slot = i;
        s->ch[i].fd = -1;
        s->ch[i].state = DOWN;
        evtimer_assign(&s->ch[i].retry, base, on_retry, &s->ch[i]);
    }
    s->flush = event_new(base, -1, 0, on_flush, s);
    if (!s->flush) {
        ut_seterr(err, errlen, "cannot create an event");
        sconn_free(s);
        return -1;
    }
    /* At start the store must be there: a blocking connect each. */
    for (int i = 0; i < n; i++, s->n++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = store_addr(port);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            ut_seterr(err, errlen, "cannot connect to the store on 127.0.0.1:%d: %s", port, strerror(errno));
            if (fd >= 0)
                close(fd);
            sconn_free(s);
            return -1;
        }
        evutil_make_socket_nonblocking(fd);
        up(&s->ch[i], fd);
    }
    *out = s;
    return 0;
}
