/* arms: the lab's arms, read from lab/arms.tsv (data, not code).
 *
 * One line per arm, tab-separated, after a header line naming the columns
 * (lines starting with '#' are comments):
 *   name       e.g. H3-fb25
 *   wait       Z F L H (see waits.h)
 *   rate       requests a second (open loop), or "max" (closed loop: capacity)
 *   policy     a label: none, tT, fbT, dl, dldown, r2, r2b, r2bj, hedge
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
 *              lab/faults.h (none, down, hang, reset, never, flaky,
 *              missing), optionally with its window, "down@0.2-0.5"
 * Room for later policies (retry budget, circuit breaker, bulkhead, adaptive
 * hedge delay) is new columns and new rules.
 *
 * The rulebook: arms_check is the one check of an arm's meaning, used by
 * arms_load for every line (so by the service, measure, run and demo, which
 * all load arms through it) and by play for an arm built from settings.
 * Each rule is stated once, in the table ARMS_RULES of arms.c (an id and one
 * sentence); a line that breaks one is named "<file>:<line>: arm <name>
 * breaks rule <id>: <sentence>".  Syntax (a field that is not a number, a
 * wrong field count) is checked before, naming the field.
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
#define ARMS_MAX_LOOKUPS 3

typedef enum { PAUSE_NONE, PAUSE_FIXED, PAUSE_JITTER } arm_pause;

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
} arm;

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
void arms_free(arm_table *t);

#endif
