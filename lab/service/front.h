/* front: the scoring service's front door, its client connections and
 * their HTTP/1.1; the policy driver (lab/service/service.c) is behind it.
 *
 * It owns the listening socket on 127.0.0.1 and every client connection:
 * its descriptor, its read buffer (FRONT_CONN_BUF bytes: a head of at most
 * FRONT_MAX_HEAD, a body of at most FRONT_MAX_BODY), its two events, the
 * answer bytes the kernel did not take yet.  It accepts, reads, parses
 * (lab/service/httpparse.h), writes answers and keeps connections alive:
 * a connection serves one request at a time, in order (it is busy from
 * the parse of a request to the last byte of its answer); requests the
 * client sent ahead wait in its buffer, parsed once the answer has gone.
 * It answers by itself GET /health ("ok"), GET /calls (with the driver's
 * counts, calls->counts), a request too large (413) or malformed (400),
 * and anything else (404); POST /score goes to the driver (calls->score),
 * which answers it later with front_send.  Every error answered
 * (front_error: 4xx or 500, before any lookup) is one row of the driver's
 * log, through calls->error_row, after its answer went out.
 *
 * Closing (HTTP/1.1, RFC 9112 section 9): a request with "Connection:
 * close", or of HTTP/1.0 without "Connection: keep-alive", is answered
 * with "Connection: close" on every path, POST /score included, and so is
 * every refusal (400, 413, 500: its framing may be lost; a 404 was read
 * whole and keeps the connection alive); once such an
 * answer has gone the connection lingers: the service's side is shut
 * (the client reads the answer, then EOF), what the client still sends is
 * read and dropped, and the descriptor is closed at the client's EOF or
 * FRONT_LINGER_NS later (closing with unread bytes would send a reset that
 * can destroy the answer in the client's buffer).
 *
 * Timeouts and shedding (front_limits; docs/DESIGN.md, "The front door
 * sheds").  Every connection not serving a request waits in one of three
 * lines, each in the order it joined, so its oldest is its first: idle
 * (no byte of a next request yet: since its last answer, or its accept),
 * head (some bytes of a request head, not all: since the first of them;
 * more bytes do not move it), lingering (since its last answer).  One
 * timer, set for the earliest first's deadline, closes an idle connection
 * after the idle timeout, answers a head unfinished after the header
 * timeout with 408 (no row of the driver's log: no request was read) and
 * lets it linger, and closes a lingering connection
 * after FRONT_LINGER_NS.  When descriptors run short (the client
 * connections reach max_conns, or accept() fails for want of
 * descriptors), one connection waiting in a line is closed for the new
 * one: the first lingering one, else the older of the first idle and the
 * first head; one line says so (once).  Each of these is O(1).  Only when
 * every connection is serving a request does accepting pause, 100 ms at a
 * time (else the listening socket stays readable: a busy loop), one line
 * saying so (once); connections wait in the backlog meanwhile.  A
 * connection costs a descriptor and the part of its buffer it has filled,
 * not time (tests/bench/bench_frontdoor.c).
 *
 * A connection's memory outlives its client: the driver holds a
 * connection (front_hold) for each request it serves and lets go
 * (front_release) when the request is done.  A connection the client
 * closed, or whose write failed, is dead (front_alive 0): closed at once,
 * its requests go on and log, their answers go nowhere; it is freed when
 * the last holder lets go.
 *
 * Ownership: front_open allocates the listening socket's events;
 * front_free closes and frees every connection still there, the listening
 * socket and its events.  The event base stays the caller's and must
 * outlive the front door.  One front door per process: its state is this
 * module's, on the service's one thread.
 */
#ifndef LAB_FRONT_H
#define LAB_FRONT_H

#include <stddef.h>
#include <stdint.h>

#include "httpparse.h"

struct event_base;

#define FRONT_MAX_BODY 65536
#define FRONT_MAX_HEAD 8192
#define FRONT_CONN_BUF (FRONT_MAX_HEAD + FRONT_MAX_BODY + 1024)
#define FRONT_LINGER_NS 2000000000LL /* a closing connection's unread bytes are dropped this long at most */
#define FRONT_FD_RESERVE 64          /* descriptors kept from clients by default: store, log and spill files */

/* The front door's limits (front_open); the service's options set them. */
typedef struct {
    int64_t header_timeout_ns; /* a request head not complete this long after its first byte: 408 */
    int64_t idle_timeout_ns;   /* a keep-alive connection with no request this long: closed */
    int max_conns;             /* client connections at most; 0: the soft limit of open files less
                                * FRONT_FD_RESERVE (less half the limit when that is smaller) */
} front_limits;

typedef struct front_conn front_conn;

typedef struct {
    /* POST /score parsed at `now` on c (busy until its answer has gone);
     * h's parts point into c's buffer and live until the call returns */
    void (*score)(front_conn *c, const http_req *h, int64_t now, void *ctx);
    /* GET /calls: the requests served and the lookups sent so far */
    void (*counts)(uint64_t *requests, uint64_t *lookups, void *ctx);
    /* an error answered at answer_t (RAW_NONE: not answered) to a request
     * that arrived at `arrive` (id and row RAW_NONE when unknown) */
    void (*error_row)(int64_t id, int64_t row, int64_t arrive, int64_t answer_t, int status, void *ctx);
    void *ctx;
} front_calls;

/* Listens on 127.0.0.1:port (0: any free port; the port bound in *bound)
 * and starts accepting on `base` within `lim`.  0, or -1 with errno set
 * when the socket cannot be had (nothing left open). */
int front_open(struct event_base *base, int port, int *bound, const front_calls *calls, const front_limits *lim);

/* The client connections the front door takes at most (lim->max_conns,
 * or what its 0 came to). */
int front_max_conns(void);

/* Sends one answer on c: its status with the reason phrase of 200 400 404
 * 408 413 504 ("Internal Server Error" for any other), Content-Type JSON,
 * the blen bytes of body (a 500 with no body when head and body exceed
 * 1 KiB); with close_after, or when the request asked for it (Connection:
 * close, HTTP/1.0), "Connection: close", and the connection lingers and
 * closes once it has gone.  Returns the time its last byte went to the
 * kernel, or that it was queued (then the time of the queueing; the rest
 * goes when the socket is writable).  A failed write closes the
 * connection. */
int64_t front_send(front_conn *c, int status, const char *body, size_t blen, int close_after);

/* An error answered before any lookup: {"error":reason} (quotes and
 * backslashes escaped, control bytes as spaces, at most about 500 bytes),
 * then its row through calls->error_row. */
void front_error(front_conn *c, int status, int64_t arrive, int64_t id, int64_t row, const char *reason,
                 int close_after);

/* 1 while the client is there (its answers can go out), 0 once dead. */
int front_alive(const front_conn *c);

/* A holder more, or one fewer (the last holder of a dead connection frees it). */
void front_hold(front_conn *c);
void front_release(front_conn *c);

/* After an answer sent from outside c's own handlers (a request finished
 * by a timer or the store): parse the next request c's buffer holds, if c
 * is alive, not busy and not already parsing. */
void front_next(front_conn *c);

/* Closes every client connection still open and the listening socket;
 * frees all (the requests that held connections must be gone). */
void front_free(void);

#endif
