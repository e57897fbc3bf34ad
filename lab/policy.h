/* policy: what the service does while it waits for a lookup, as pure logic.
 *
 * The service tells the policy what happened (a request started, one of its
 * two timers fired, a lookup answered) and carries out the pol_action it
 * gets back: lookups to send (attempt number and the budget to pass down),
 * lookups to stop waiting for (with the code logged for them), the two
 * timers to set, keep or clear, and whether the request is finished (live
 * answer, stand-in, 504).  No I/O and no clock here, so every policy is
 * tested with made-up times (tests/test_policy.c).
 *
 * Timer 0 runs the current try's limit, or the pause before a retry.
 * Timer 1 runs the hedge delay.  A try's limit is the earliest of: try_ms
 * after it started, the request's deadline minus reserve_ms, and limit_ms
 * after the request arrived.  Everything an arm can ask for is data in
 * lab/arms.tsv (see arms.h); a new policy (retry budget, circuit breaker,
 * bulkhead, adaptive hedge delay) is new columns and a few lines here.
 *
 * No memory is owned: pol_state lives inside the service's request.
 */
#ifndef LAB_POLICY_H
#define LAB_POLICY_H

#include <stdint.h>

#include "arms.h"

#define POL_MAX_LOOKUPS ARMS_MAX_LOOKUPS
#define POL_TIMER_KEEP INT64_MIN
#define POL_TIMER_OFF (INT64_MIN + 1)

enum { POL_PENDING, POL_LIVE, POL_STANDIN, POL_TIMEOUT, POL_FAILED };
/* What became of a lookup, as the service tells the policy (and the code
 * logged for it in service.tsv.gz's aK_out).  Transient (retried while
 * tries are left): DROPPED (D, the store's budget drop), UNAVAILABLE (U),
 * LOST (X, its connection was lost while it waited) and REFUSED (R, not
 * sent: no connection to the store).  Permanent (straight to the fallback,
 * no retry): NOT_FOUND (N).  A try's limit running out (T) is transient
 * too: the timer path. */
enum { POL_ANS_OK, POL_ANS_DROPPED, POL_ANS_UNAVAILABLE, POL_ANS_NOT_FOUND, POL_ANS_LOST, POL_ANS_REFUSED };

typedef struct {
    uint32_t round, req;
    int64_t arrive;
    int has_deadline;
    int64_t deadline;  /* when has_deadline */
    int64_t try_end;   /* the current try's limit; INT64_MAX: none */
    int sent;          /* lookups sent so far */
    unsigned waiting;  /* bit k: attempt k is outstanding */
    int pausing;       /* timer 0 runs a pause */
} pol_state;

typedef struct {
    int nsend;
    struct {
        int attempt;
        int64_t budget_ns; /* 0: none */
    } send[POL_MAX_LOOKUPS];
    char ended[POL_MAX_LOOKUPS]; /* 0, or the code logged: A T C D */
    int64_t timer[2];            /* absolute time, POL_TIMER_KEEP or POL_TIMER_OFF */
    int done;                    /* POL_PENDING ... */
} pol_action;

/* budget_ns: the request's budget header (0: already spent; -1: none, then
 * an arm with a deadline uses its own deadline_ms from arrival). */
void pol_start(pol_state *s, const arm *a, uint32_t round, uint32_t req, int64_t now, int64_t budget_ns,
               pol_action *out);
void pol_on_timer(pol_state *s, const arm *a, int which, int64_t now, pol_action *out);
void pol_on_answer(pol_state *s, const arm *a, int attempt, int answer, int64_t now, pol_action *out);

/* The pause before retry k (k = 1, 2 ...), drawn for (round, req, k). */
int64_t pol_pause_ns(const arm *a, uint32_t round, uint32_t req, int k);

/* Reconnecting to the store: exponential backoff with full jitter.  After
 * the k-th failed try in a row (k = 0: the connection was just lost) the
 * service waits uniform [0, min(CAP, BASE * 2^k)) before the next try,
 * drawn from ut_hash4(POL_RECONNECT_KEY + round, conn, outage, k), where
 * outage counts the connection's losses (0, 1, ...). */
#define POL_RECONNECT_BASE_NS 10000000LL  /* 10 ms */
#define POL_RECONNECT_CAP_NS 1000000000LL /* 1 s */
#define POL_RECONNECT_KEY 0x5245434f4eULL /* "RECON" */
int64_t pol_reconnect_cap_ns(int k);
int64_t pol_reconnect_ns(uint32_t round, int conn, uint32_t outage, int k);

#endif
