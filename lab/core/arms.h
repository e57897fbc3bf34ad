/* arms: the lab's arms, read from lab/arms.tsv (data, not code).
 *
 * One line per arm, tab-separated, after a header line naming the columns
 * (lab/base/tsv.h's grammar: lines starting with '#' are comments, empty
 * lines nothing):
 *   name       e.g. H3-fb25, H550-r2 (<wait><rate>-<policy>[-<fault>]: the rule "name")
 *   wait       Z F L H (see waits.h)
 *   rate       requests a second (open loop), or "max" (closed loop: capacity)
 *   policy     a label: none, tT, fbT, fbqQ, dl, dldown, r2, r2b, r2bj, hedge, hedge2 ...
 *   try_ms     limit on one lookup try (0: none)
 *   tries      lookups tried one after another at most (1 + retries)
 *   pause      none | fixed | jitter: before retry k (k = 1, 2 ...) wait
 *              pause_ms[k-1], or uniform in [0, pause_ms[k-1]) with jitter
 *   pause_ms   comma-separated list, "-" when pause is none
 *   hedge_ms   a second lookup after this long without an answer (0: none)
 *   limit_ms   a limit on the whole lookup phase from arrival (0: none)
 *   deadline_ms the tester's deadline from the scheduled arrival, sent as
 *              the request's budget header (0: none); the service then
 *              limits the lookup to what is left minus reserve_ms
 *   reserve_ms kept back for scoring and answering
 *   down       1: the remaining budget travels with the lookup to the store
 *   standin    1: on expiry answer the stand-in score; 0: answer 504
 *   fault      how the store fails in this arm's runs: a scenario of
 *              lab/core/faults.h (none, down, hang, reset, never, flaky,
 *              missing, slow, slowboth), optionally with its window,
 *              "down@0.2-0.5"
 * The defences (lab/core/policy.h says what each does; 0 is "off" everywhere):
 *   brk_fails  circuit breaker: open after this many failed lookups in a row
 *   brk_window circuit breaker: or open when, of the last brk_window lookups,
 *   brk_share  at least brk_share percent failed (1 to 100)
 *   brk_cool_ms how long the breaker stays open (above 0: the arm has one)
 *   brk_probes lookups let through when half open (1 or more with a breaker)
 *   store2     percent of the table's rows kept by a second, healthy store
 *              (their requests ask it instead of the first); 0: one store
 *   inflight   limit on lookups in flight (0: none): one limit shared by
 *              both stores (bulkhead 0), or one per store (bulkhead 1)
 *   bulkhead   1: each store its own compartment of `inflight` lookups
 *   rb_pct     retry budget: retries over the last second at most rb_pct
 *              percent of the requests started in it ...
 *   rb_floor   ... plus rb_floor retries (0 and 0: no budget)
 *   hedge_p    adaptive hedge: the hedge delay is this percentile of the
 *              last POL_HEDGE_WINDOW lookup latencies, starting from
 *              hedge_ms (0: the fixed hedge_ms)
 *   limit_pm   adaptive limit (the false-timeout rule): the limit per try
 *              is this per-mille percentile (999: p99.9) of the last
 *              POL_LIMIT_WINDOW lookup latencies answered, late answers
 *              included, starting from try_ms (0: the fixed try_ms)
 *   hedge2     1: the hedge's lookup (attempt 1) goes to a second store
 *              holding a copy of the whole table (0: to the first store)
 * The pause column also takes exp, expfull and expequal: capped exponential
 * backoff, pause_ms "base,cap", before retry k min(cap, base * 2^(k-1)),
 * whole, uniform in [0, that), or half of it plus uniform in the other half.
 *
 * The rulebook: arms_check is the one check of an arm's meaning, used by
 * arms_load for every line (so by the service, measure, run and demo, which
 * all load arms through it) and by play for an arm built from settings.
 * Each rule is stated once, in the table ARMS_RULES of arms.c (an id and one
 * sentence); a line that breaks one is named "<file>:<line>: arm <name>
 * breaks rule <id>: <sentence>".  Syntax (a field that is not a number, a
 * wrong field count) is checked before, naming the field.
 *
 * An arm has two stores when store2 is above 0 or hedge2 is 1 (arms_stores).
 *
 * A file written before the last columns were added, its header without
 * hedge2 (27 columns) or without limit_pm and hedge2 (26: the published
 * study's registered copy is one), is read with those columns 0; any other
 * header is refused, naming the one wanted.
 *
 * Ownership: arms_load allocates the table; arms_free frees it.
 */
#ifndef LAB_ARMS_H
#define LAB_ARMS_H

#include <stddef.h>
#include <stdint.h>

#include "faults.h"
#include "waits.h"

#define ARMS_MAXPAUSE 4
/* The most lookups one request may send (tries, or a hedge's two): the
 * service's and the policy's arrays are this long (POL_MAX_LOOKUPS). */
#define ARMS_MAX_LOOKUPS 5

typedef enum { PAUSE_NONE, PAUSE_FIXED, PAUSE_JITTER, PAUSE_EXP, PAUSE_EXPFULL, PAUSE_EXPEQUAL } arm_pause;

typedef struct {
    char name[32];
    wait_kind wait;
    int rate;          /* requests/s; 0 = closed loop ("max") */
    char policy[16];
    int64_t try_ns;
    int tries;
    arm_pause pause;
    int npause;
    int64_t pause_ns[ARMS_MAXPAUSE];
    int64_t hedge_ns;
    int64_t limit_ns;
    int64_t deadline_ns;
    int64_t reserve_ns;
    int down;
    int standin;
    fault_spec fault;
    int brk_fails, brk_window, brk_share; /* breaker: opening rules */
    int64_t brk_cool_ns;                  /* > 0: the arm has a breaker */
    int brk_probes;
    int store2;                           /* percent of rows on the second store */
    int inflight, bulkhead;
    int rb_pct, rb_floor;                 /* retry budget */
    int hedge_p;                          /* adaptive hedge percentile */
    int limit_pm;                         /* adaptive limit per-mille percentile */
    int hedge2;                           /* 1: the hedge's lookup to the second store, a copy */
} arm;

/* The pause column's words, indexed by arm_pause. */
extern const char *const ARMS_PAUSE_NAMES[6];

typedef struct {
    arm *v;
    size_t n;
} arm_table;

int arms_load(const char *path, arm_table *t, char *err, size_t errlen);
/* 0 when `a` keeps every rule; otherwise -1 and "rule <id>: <sentence>"
 * in why. */
int arms_check(const arm *a, char *why, size_t whylen);
/* The rules the policy code needs (not how a file names its arms): for an
 * arm built from settings, as play's are. */
int arms_check_policy(const arm *a, char *why, size_t whylen);
const arm *arms_find(const arm_table *t, const char *name);
/* The stores an arm's runs have: 2 when store2 is above 0 or hedge2 is 1,
 * else 1 (the one owner of that rule: the service, run, play). */
int arms_stores(const arm *a);
/* 1 when the name writes its rate out (H550-r2, H300-fb25: rule `name`'s
 * 2 to 7 digits), 0 for a rate code (H3-r2) or another name. */
int arms_rate_written(const char *name);
void arms_free(arm_table *t);

#endif
