/* playdef: the figures of the defences for one simulated seed of play
 * (lab/play/play.c): the circuit breaker's changes and the time it spent in
 * each state, the lookups the gates refused (O breaker, B compartment, Y
 * retry budget), the retries they let through, and the two stores'
 * requests (live share and p99, over the run and during a fault window).
 * Each figure is defined below, by its enum (the study's per-run figures
 * of the same names are these, counted on the raw files).  Pure logic, no
 * clock; times are ns from t0 = 0.
 *
 * Play calls, per seed:
 *   pdef_begin    with the arm and the schedule's length;
 *   pdef_brk      for every change of the breaker (pol_shared's on_brk);
 *   pdef_tried    for every lookup the policy tried: its attempt, and
 *                 whether a gate refused it (the code O B Y) or it went
 *                 out (0; a lookup refused for want of a connection, R,
 *                 went through the gates: it counts as passed);
 *   pdef_figures  at the end, with every request's arrival, latency,
 *                 answer kind and store.
 * A figure that does not apply to the arm is NAN (null in the CSV):
 * the breaker's without a breaker, budget_refused without a retry budget,
 * inflight_refused without an in-flight limit, retries_passed for one try,
 * the stores' without a second store, their *during* ones without a window.
 *
 * Owns a scratch array of latencies (grown by pdef_figures); pdef_free
 * frees it.
 */
#ifndef LAB_PLAYDEF_H
#define LAB_PLAYDEF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arms.h"
#include "policy.h"

/* The figures, in the order of the CSV columns (pdef_csv_header). */
enum {
    PDEF_BRK_OPENED,      /* breaker rows O W P */
    PDEF_BRK_HALF_OPENED, /* H */
    PDEF_BRK_CLOSED,      /* K */
    PDEF_BRK_OPEN_MS,     /* time OPEN within [0, the schedule's length) */
    PDEF_BRK_HALF_MS,
    PDEF_BRK_CLOSED_MS,
    PDEF_BREAKER_REFUSED, /* lookups ended O */
    PDEF_BUDGET_REFUSED,  /* Y */
    PDEF_INFLIGHT_REFUSED, /* B */
    PDEF_RETRIES_PASSED,  /* lookups with attempt >= 1 not ended O B Y */
    PDEF_STORE1_REQUESTS, /* requests whose lookups go to store 1 ... */
    PDEF_STORE1_LIVE_SHARE,
    PDEF_STORE1_P99_MS,
    PDEF_STORE2_REQUESTS, /* ... and to store 2 */
    PDEF_STORE2_LIVE_SHARE,
    PDEF_STORE2_P99_MS,
    PDEF_STORE1_DURING_REQUESTS, /* the same for the requests arriving in the window */
    PDEF_STORE1_DURING_LIVE_SHARE,
    PDEF_STORE1_DURING_P99_MS,
    PDEF_STORE2_DURING_REQUESTS,
    PDEF_STORE2_DURING_LIVE_SHARE,
    PDEF_STORE2_DURING_P99_MS,
    PDEF_NFIGS
};

extern const char *const PDEF_NAMES[PDEF_NFIGS];

typedef struct {
    double v[PDEF_NFIGS]; /* NAN: null */
} playdef_figs;

typedef struct {
    const arm *a;
    int64_t span;
    /* the breaker: its state since `since`, the time spent in each */
    int state;
    int64_t since, in_state[3];
    uint64_t opened, half_opened, closed;
    uint64_t refused[3], passed; /* O B Y; retries passed */
    int64_t *lat;                /* scratch for the percentiles */
    size_t cap;
} playdef;

/* What pdef_figures reads: n requests, for each its arrival (ns), its
 * latency (ns; valid when answered), its answer (POL_PENDING: none) and
 * its store (0 or 1; NULL: all on the first); the window [from, to) (from
 * below 0: none). */
typedef struct {
    size_t n;
    const int64_t *arrive, *latency;
    const uint8_t *done, *store;
    int64_t from, to;
} playdef_requests;

void pdef_begin(playdef *d, const arm *a, int64_t span);
void pdef_free(playdef *d);
void pdef_brk(playdef *d, const pol_brk_event *e);
static inline void pdef_tried(playdef *d, int attempt, char refused)
{
    if (refused == 'O' || refused == 'B' || refused == 'Y')
        d->refused[refused == 'O' ? 0 : refused == 'B' ? 1 : 2]++;
    else if (attempt >= 1)
        d->passed++;
}
/* 0, or -1 when out of memory. */
int pdef_figures(playdef *d, const playdef_requests *q, playdef_figs *f);

/* The CSV columns ",brk_opened,...", and a row's fields (empty for null). */
void pdef_csv_header(FILE *out);
void pdef_csv_row(const playdef_figs *f, FILE *out);
/* The figures that apply, in a line or two each starting with `prefix`;
 * nothing when none does. */
void pdef_print(const playdef_figs *f, const char *prefix, FILE *out);

#endif
