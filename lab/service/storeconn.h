/* storeconn: the scoring service's connections to one store, which outlive
 * the store going away.
 *
 * A few persistent TCP connections to 127.0.0.1:port, numbered first ..
 * first+n-1 (the service numbers its connections across its stores: with
 * 2 each, 0-1 go to the first store, 2-3 to the second), each carrying
 * many lookups at once (lab/core/wire.h).  Lookups queued during
 * one pass of the event loop go out together, one write per connection,
 * when the pass's other events are done.  sconn_send picks the next live
 * connection, round robin; with none live it sends nothing and says so
 * (the service then counts the lookup as refused, POL_ANS_REFUSED).
 *
 * A connection is lost when the store closes it, a read or a write fails,
 * or an answer frame is malformed (wrong magic, unknown status).  It is
 * then closed, its unsent lookups dropped, and the service told through
 * calls->lost (every lookup it had sent on that connection and still waits
 * for is lost); it then tries to connect again, with exponential backoff
 * and full jitter (pol_reconnect_ns of lab/core/policy.h: base 10 ms, cap 1 s):
 * after the loss (k = 0) or the k-th failed try in a row it waits
 * pol_reconnect_ns(round, conn, outage, k), outage counting that
 * connection's earlier losses.  A try is a non-blocking connect; one not
 * done within SCONN_CONNECT_TIMEOUT_NS fails like a refused one.
 *
 * Every loss (L), failed try (F) and reconnect (C) is a row of the events
 * file (lab/RAWFORMAT.md, events.tsv.gz), through the caller's evlog.
 *
 * Ownership: sconn_open allocates the connections, their buffers and
 * events; sconn_free frees them all.  The event base and the evlog stay
 * the caller's (and must outlive the sconn).
 */
#ifndef LAB_STORECONN_H
#define LAB_STORECONN_H

#include <stddef.h>
#include <stdint.h>

#include "evlog.h"
#include "wire.h"

struct event_base;

#define SCONN_MAX 16
#define SCONN_NONE (-1)  /* sconn_send: no live connection, nothing sent */
#define SCONN_NOMEM (-2) /* sconn_send: out of memory */
#define SCONN_CONNECT_TIMEOUT_NS 1000000000LL

typedef struct {
    /* an answer frame read (well-formed) */
    void (*answer)(const wire_ans *a, int64_t now, void *ctx);
    /* connection `conn` was lost at `now`: every lookup sent on it is gone */
    void (*lost)(int conn, int64_t now, void *ctx);
    void *ctx;
} sconn_calls;

typedef struct sconn sconn;

/* Connects n (1 to SCONN_MAX) connections to 127.0.0.1:port, each at once
 * (blocking), numbered first .. first+n-1 (in the events file, in the
 * reconnect dice and for calls->lost).  -1 with the reason in err when a
 * connection cannot be made. */
int sconn_open(sconn **out, struct event_base *base, int port, int n, int first, uint32_t round, evlog *events,
               const sconn_calls *calls, char *err, size_t errlen);
/* Queues one lookup: the number of the connection it goes on, SCONN_NONE
 * or SCONN_NOMEM. */
int sconn_send(sconn *s, const wire_req *q);
/* Connections live now. */
int sconn_live(const sconn *s);
/* Closes every connection and frees all (NULL: nothing). */
void sconn_free(sconn *s);

#endif
