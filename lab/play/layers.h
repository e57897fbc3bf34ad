/* layers: layered retries in front of a store that is down (issue 29,
 * part 4; make layers, lab/play/layers_main.c).
 *
 * N layers stand in front of the store: layer 0 is the caller, layers 1 to
 * N-1 are services, and layer N-1 calls the store.  Each layer's call is a
 * pol_state of the lab's own policy code (lab/core/policy.h), driven by
 * pol_start and pol_on_answer for the arm lay_arm builds: policy r2's shape
 * (tries T, try_ms 25, no pause, no hedge, standin 0), and with a budget
 * the lab's r2bud (rb_pct 10, rb_floor 10), one pol_shared per layer.  The
 * budget's rule is the policy's (policy.c, budget_allows), not restated
 * here.
 *
 * The store is down for the whole run: every call reaching it is answered
 * POL_ANS_UNAVAILABLE at once.  A layer whose policy gives up (POL_TIMEOUT:
 * its tries are spent, or a gate refused a retry) answers its caller
 * unavailable too.  Calls take no time: a request and every call it causes
 * happen at its arrival instant, so a try's 25 ms limit never runs out
 * (timers never fire).
 *
 * Requests arrive open loop at `rate` a second for `seconds`: evenly spaced
 * (request i at floor(i * 1e9 / rate) ns; every 1 s window then holds
 * exactly `rate` of them when rate is whole), or with `poisson` the lab's
 * Poisson schedule of lab/core/arrivals.h from `seed`.  Deterministic for a
 * given configuration and seed.
 *
 * The steady part of the run: the requests arriving at or after
 * max(1 s, seconds - 20 s), once the budget's 1 s window is full.
 *
 * No memory is kept after lay_run returns (it allocates its pol_shared and
 * frees them).
 */
#ifndef LAB_PLAY_LAYERS_H
#define LAB_PLAY_LAYERS_H

#include <stddef.h>
#include <stdint.h>

#include "arms.h"

#define LAY_MAX_LAYERS 6
#define LAY_TRY_MS 25
#define LAY_RB_PCT 10   /* the lab's r2bud */
#define LAY_RB_FLOOR 10
#define LAY_STEADY_S 20 /* the steady part: the last 20 s ... */
#define LAY_WARM_S 1    /* ... and not the first second, the budget's window */

typedef struct {
    int layers;      /* N: 1 to LAY_MAX_LAYERS */
    int tries;       /* T: 1 to ARMS_MAX_LOOKUPS (a budget needs 2 or more) */
    double rate;     /* requests a second, above 0 */
    double seconds;  /* above 0 */
    uint64_t seed;   /* the Poisson schedule's seed */
    int poisson;     /* 0: evenly spaced; 1: Poisson (lab/core/arrivals.h) */
    unsigned budget; /* bit k: layer k has a retry budget (bit 0 the caller) */
} lay_config;

typedef struct {
    uint64_t requests, steady_requests;
    /* calls[k]: the calls layer k received (calls[0] == requests); calls[N]:
     * the calls that reached the store; steady_*: those of the steady
     * requests */
    uint64_t calls[LAY_MAX_LAYERS + 1], steady_calls[LAY_MAX_LAYERS + 1];
    /* retries refused by layer k's budget (code Y) */
    uint64_t refused[LAY_MAX_LAYERS], steady_refused[LAY_MAX_LAYERS];
    int64_t steady_from_ns; /* where the steady part starts */
} lay_result;

/* The arm of one layer: r2's shape with `tries` tries, and with `budget`
 * r2bud's retry budget.  arms_check_policy passes it when tries is 1 to 5
 * (and 2 or more with a budget). */
void lay_arm(arm *a, int tries, int budget);

/* Run configuration c into r: 0, or -1 with why in err (a bad setting, out
 * of memory, or a layer receiving more requests within 1 s than the
 * budget's window holds, POL_BUDGET_RING). */
int lay_run(const lay_config *c, lay_result *r, char *err, size_t errlen);

/* The calls per request the rule gives at the store in the steady part:
 * without budgets T^N exactly; a layer with a budget receiving Q requests a
 * second sends them on once each plus min((T - 1) Q, Q * rb_pct / 100 +
 * rb_floor) retries (the budget full, as it is while every call fails),
 * a layer without one T Q.  Real-valued (the rule's whole-number
 * rounding left out, so a little above a run's value at most). */
double lay_expected(const lay_config *c);

/* "none", "all", "bottom" or the layers' bits ("caller+1"): the budget's
 * placement in words, into buf. */
const char *lay_budget_name(const lay_config *c, char *buf, size_t len);

#endif
