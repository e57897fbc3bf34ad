/* policy: what the service does while it waits for a lookup, as pure logic.
 *
 * The service tells the policy what happened (a request started, one of its
 * two timers fired, a lookup answered) and carries out the pol_action it
 * gets back: lookups to send (attempt number and the budget to pass down),
 * lookups to stop waiting for (with the code logged for them), the two
 * timers to set, keep or clear, and whether the request is finished (live
 * answer, stand-in, 504).  No I/O and no clock here, so every policy is
 * tested with made-up times (tests/lab/test_policy.c).
 *
 * Timer 0 runs the current try's limit, or the pause before a retry.
 * Timer 1 runs the hedge delay.  A try's limit is the earliest of: try_ms
 * after it started, the request's deadline minus reserve_ms, and limit_ms
 * after the request arrived.  Everything an arm can ask for is data in
 * lab/arms.tsv (see arms.h).
 *
 * The defences that look across requests keep their state in one
 * pol_shared per service (NULL for an arm that has none of them):
 *
 * - The gates.  Before a lookup goes out, in this order: the retry budget
 *   (a retry only: attempt 1 and on, not a hedge's second lookup), the
 *   compartment (in-flight limit), the circuit breaker.  A lookup a gate
 *   refuses is tried but not sent: it ends at once with code Y (budget), B
 *   (compartment full) or O (breaker open, or half open with its probes
 *   all out), and the request goes at once to its fallback (a stand-in, or
 *   504 without one), no retry; a refused hedge lookup leaves the first to
 *   answer.
 * - Retry budget: a retry at `now` is allowed when 100 * (R + 1) <=
 *   rb_pct * Q + 100 * rb_floor, Q the requests started and R the retries
 *   sent in (now - 1 s, now] (a request counts once it tries its first
 *   lookup, this one included).
 * - Compartments: a sent lookup is in flight until the service stops
 *   waiting for it (any code).  With bulkhead 1 each store has `inflight`
 *   places; with bulkhead 0 the two share `inflight` places; 0: no limit.
 *   A request's store: the second one when
 *   ut_u64_unit(ut_hash4(POL_STORE2_KEY, row, 0, 0)) * 100 < store2.
 *   A lookup's store is its request's, except the hedge's lookup
 *   (attempt 1) of an arm with hedge2, which goes to the second store, the
 *   copy (pol_lookup_store); each lookup counts in its own store's
 *   compartment.
 * - Circuit breaker, in front of the (one) store.  A lookup's result:
 *   success A or N (the store answered), failure D U X R T, neither C.
 *   CLOSED counts every result: it opens (event O) after brk_fails failures
 *   in a row, or (event W) when its last brk_window results hold at least
 *   brk_share percent failures.  OPEN refuses every lookup; the first
 *   lookup tried at or after brk_cool_ms from the opening turns it HALF
 *   OPEN (event H).  HALF OPEN lets brk_probes lookups through as probes
 *   and refuses the rest; only the probes' results count: one failure
 *   opens it again (event P), brk_probes successes close it (event K), a
 *   probe ended with C gives its place back.  Results of non-probe lookups
 *   while OPEN or HALF OPEN are ignored.  Every change is reported to
 *   pol_shared's on_brk (the service writes it to events.tsv.gz).
 * - Adaptive hedge (hedge_p above 0): a request's hedge delay is the
 *   hedge_p-th percentile (nearest rank) of the latencies (end - start) of
 *   the last POL_HEDGE_WINDOW lookups that ended A, at the request's start;
 *   the window starts filled with hedge_ms.
 * - Adaptive limit (limit_pm above 0: the false-timeout rule): a request's
 *   limit per try is the limit_pm-th per-mille percentile (nearest rank)
 *   of the latencies (answer - start) of the last POL_LIMIT_WINDOW lookups
 *   the store answered A, at the request's start, late answers included:
 *   an answer to a lookup no longer waited for counts (pol_on_answer sees
 *   those of a request still going on; the service and play hand those of
 *   a finished request to pol_late_answer).  The window starts filled with
 *   try_ms.
 *
 * No memory is owned: pol_state lives inside the service's request, and
 * pol_shared is the caller's (large: keep it static or on the heap).
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

#define POL_HEDGE_WINDOW 1000
#define POL_LIMIT_WINDOW 4000
#define POL_WINDOW_MAX 4000 /* the longer of the two */
#define POL_BUDGET_RING 8192   /* request and retry times kept for the budget (a second's worth) */
#define POL_STORE2_KEY 0x53544f524532ULL /* "STORE2" */

enum { POL_BRK_CLOSED, POL_BRK_OPEN, POL_BRK_HALF };

/* A change of the breaker's state: what is the events file's code (O W P:
 * to OPEN, H: to HALF OPEN, K: to CLOSED); count: the failures that opened
 * it (O: in a row, W: in the window), the probes that had succeeded (P),
 * the probes (K), 0 (H); wait_ns: for H the time since it opened, else 0. */
typedef struct {
    int64_t t;
    char what;
    int count;
    int64_t wait_ns;
} pol_brk_event;

/* A sliding percentile (the adaptive hedge's and the adaptive limit's):
 * the nearest-rank percentile of the last n samples, read after each one.
 * The window in order (each sample with its number, so that every one has
 * its own key (value, number)); and, sorted by key, those above a
 * threshold key: the high end of the window, from which the percentile is
 * read (policy.c, win_sample). */
typedef struct {
    int n, rank0; /* the window's length, the percentile's rank (0-based) */
    int64_t fifo[POL_WINDOW_MAX];
    uint64_t fifo_no[POL_WINDOW_MAX], no;
    int64_t top[POL_WINDOW_MAX];
    uint64_t top_no[POL_WINDOW_MAX];
    int ntop;
    int64_t tv; /* the threshold key: (tv, tno); keys above it are in top */
    uint64_t tno;
    int pos;
    int64_t now; /* the percentile now */
} pol_window;

typedef struct {
    const void *arm; /* the arm it was set up for */
    /* circuit breaker */
    int brk_state, brk_row, brk_probes_out, brk_probes_ok;
    int64_t brk_open_at, brk_open_until;
    unsigned char brk_ring[1000]; /* 1: a failure; the last brk_window results */
    int brk_ring_n, brk_ring_pos, brk_ring_fail;
    void (*on_brk)(const pol_brk_event *e, void *ctx);
    void *ctx;
    /* retry budget: times in (now - 1 s, now] */
    int64_t bud_req[POL_BUDGET_RING], bud_retry[POL_BUDGET_RING];
    int bud_req_head, bud_req_n, bud_retry_head, bud_retry_n;
    /* compartments */
    int inflight[2];
    /* adaptive hedge (hedge_p) and adaptive limit (limit_pm): their windows */
    pol_window hed, lim;
} pol_shared;

/* Set up g for arm a (all counts zero, breaker CLOSED, hedge window full
 * of hedge_ms); on_brk (may be NULL) hears every breaker change. */
void pol_shared_init(pol_shared *g, const arm *a, void (*on_brk)(const pol_brk_event *e, void *ctx), void *ctx);
/* The store row `row` asks: 0 the first, 1 the second. */
int pol_store_of(const arm *a, uint32_t row);

typedef struct {
    pol_shared *g;     /* NULL: no shared defences */
    int store;         /* 0 or 1 */
    uint32_t round, req;
    int64_t arrive;
    int has_deadline;
    int64_t deadline;  /* when has_deadline */
    int64_t try_end;   /* the current try's limit; INT64_MAX: none */
    int sent;          /* lookups sent so far */
    unsigned waiting;  /* bit k: attempt k is outstanding */
    int pausing;       /* timer 0 runs a pause */
    unsigned probe;    /* bit k: attempt k is a breaker probe */
    int64_t start[POL_MAX_LOOKUPS];
    int64_t hedge_ns;  /* this request's hedge delay (0: none) */
    int64_t try_ns;    /* this request's limit per try (0: none) */
} pol_state;

/* The store lookup `attempt` of request s goes to: 0 the first, 1 the
 * second; s->store (the request's, pol_store_of), except attempt 1 of an
 * arm with hedge2: the second store, the copy. */
int pol_lookup_store(const pol_state *s, const arm *a, int attempt);

typedef struct {
    int nsend;
    struct {
        int attempt;
        int64_t budget_ns; /* 0: none */
    } send[POL_MAX_LOOKUPS];
    /* 0, or the code logged for attempt k: A T C D U N X R; or O B Y for an
     * attempt tried now but not sent (a gate refused it) */
    char ended[POL_MAX_LOOKUPS];
    int64_t timer[2];            /* absolute time, POL_TIMER_KEEP or POL_TIMER_OFF */
    int done;                    /* POL_PENDING ... */
} pol_action;

/* budget_ns: the request's budget header (0: already spent; -1: none, then
 * an arm with a deadline uses its own deadline_ms from arrival).  g: the
 * service's shared state, set up for a (NULL when the arm has no breaker,
 * budget, compartment or adaptive hedge). */
void pol_start(pol_state *s, pol_shared *g, const arm *a, uint32_t round, uint32_t req, uint32_t row, int64_t now,
               int64_t budget_ns, pol_action *out);
void pol_on_timer(pol_state *s, const arm *a, int which, int64_t now, pol_action *out);
void pol_on_answer(pol_state *s, const arm *a, int attempt, int answer, int64_t now, pol_action *out);

/* The direct path (play's speed: lab/play/playsim.c).  A request started
 * at `now` without a budget header (pol_start's budget_ns -1) is *direct*
 * when its first lookup goes out at once and the store answers it A
 * strictly before pol_direct_window(g, a, now) ns have passed: then
 * nothing happens to it before that answer (no timer fires, no second
 * lookup), which ends it live.  The window is the earliest of its first
 * try's limit and its hedge delay (INT64_MAX: neither), or 0 when its
 * first lookup would not go out at once (the try's limit already spent,
 * the compartment full, the breaker not closed).  Such a request needs no
 * pol_state: pol_direct_start(g, a, now) is what pol_start does to g, its
 * lookup carries pol_direct_budget(a), and pol_direct_end(g, a, latency,
 * now) is what the answer (pol_on_answer ... POL_ANS_OK) does to g, the
 * latency being the answer's time after the start.  With g NULL neither
 * does anything, and the window is the same at every `now` (a caller may
 * ask once). */
int64_t pol_direct_window(const pol_shared *g, const arm *a, int64_t now);
int64_t pol_direct_budget(const arm *a);
void pol_direct_start(pol_shared *g, const arm *a, int64_t now);
void pol_direct_end(pol_shared *g, const arm *a, int64_t latency, int64_t now);

/* The store answered A, at `latency` after it was sent, a lookup of a
 * request already finished: a sample of the adaptive limit's window (no
 * effect for an arm without limit_pm). */
void pol_late_answer(pol_shared *g, const arm *a, int64_t latency);
/* The adaptive limit a request starting now gets (try_ms without one). */
int64_t pol_limit_now(const pol_shared *g, const arm *a);

/* 1 when arm a needs a pol_shared. */
int pol_needs_shared(const arm *a);

/* The pause before retry k (k = 1, 2 ...), drawn for (round, req, k):
 * fixed: pause_ms[k-1]; jitter: floor(u * pause_ms[k-1]); with
 * d = min(cap, base * 2^(k-1)): exp d, expfull floor(u * d), expequal
 * d/2 + floor(u * (d - d/2)) (d/2 rounded down); u the dice of
 * (round, req, k). */
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
