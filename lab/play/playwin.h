/* playwin: the figures of a fault for one simulated run of play
 * (lab/play/play.c): what became of the lookups and connections (playwin_counts,
 * counted by play itself), and the figures of a fault window, defined here
 * (playwin_figs) and counted as the simulation goes.  Pure logic, no clock;
 * times are ns from t0 = 0.
 *
 * The phases: a request belongs to *before*, *during* or *after* by its
 * arrival (F = from, U = to: before < F <= during < U <= after), a lookup
 * by the time it was sent.  Play calls:
 *   pwin_begin     once per seed (the window, the schedule's length);
 *   pwin_arrive    for each request when it arrives;
 *   pwin_answer    when it is answered (live, stand-in or 504);
 *   pwin_sent      for each lookup sent to a store (a refused one is not
 *                  sent: a phase's lookups are the sent ones, and a lookup
 *                  ending R, O, B or Y was not sent; the rows of S for
 *                  before_lookups_100ms and recovery_lookups_100ms);
 *   pwin_unanswered for each sent lookup whose end is T, C or X;
 * (a request never answered keeps its lookups in the counts; the lab's
 * service.tsv.gz has no row for it, so lookups counted from the raw files
 * leave them out: only a hang to the run's end with no limit differs);
 * then pwin_figures.  The names of the figures (and of the CSV columns,
 * pwin_csv_header) are the study's per-run figures of the same names:
 * before_requests ... recovered_s.
 *
 * Owns the per-second counts of recovery (grown by pwin_begin); pwin_free
 * frees them.
 */
#ifndef LAB_PLAYWIN_H
#define LAB_PLAYWIN_H

#include <stdint.h>
#include <stdio.h>

#include "faults.h"

enum { PWIN_BEFORE, PWIN_DURING, PWIN_AFTER, PWIN_NPHASES };
#define PWIN_REC_BINS 10 /* the second after U in tenths */
#define PWIN_REC_NS 100000000LL

/* Per run: requests never answered, the store's outcomes by code (store_E:
 * code E of lab/RAWFORMAT.md's store rows ...), lookups and connections. */
typedef struct {
    uint64_t lost;                             /* requests never answered */
    uint64_t store_E, store_N, store_H, store_R; /* the store's outcomes: unavailable, not found, held, cut */
    uint64_t lookup_ends_R;                    /* lookups not sent: no connection */
    uint64_t conn_lost, conn_failed, conn_regained;
} playwin_counts;

typedef struct {
    playwin_counts c; /* play counts these */
    int on;           /* the run has a window */
    int64_t from, to; /* ns from t0; to INT64_MAX: the end of the run */
    int64_t span;     /* the schedule's length, ns */
    uint64_t requests[PWIN_NPHASES], live[PWIN_NPHASES], standins[PWIN_NPHASES], errors[PWIN_NPHASES],
        lookups[PWIN_NPHASES], unanswered[PWIN_NPHASES];
    uint64_t rec100[PWIN_REC_BINS]; /* lookups sent in [U + i * 100 ms, U + (i + 1) * 100 ms) */
    int64_t first_live; /* the earliest live answer at or after U; INT64_MAX: none */
    /* whole seconds [U + k s, U + (k+1) s) inside the schedule: requests
     * arriving in each, and how many of them were answered live */
    uint32_t *rows, *nlive;
    size_t nbins, cap;
} playwin;

/* The figures; NAN for null: the window's without a window.
 * during_lookups_per_request = lookups[DURING] / requests[DURING] (null when
 * no request arrived during it); first_live_after_ms: the earliest live
 * answer at or after U, minus U (null: none); recovered_s: the first whole
 * second k = 0, 1, ... after U, [U + k s, U + (k+1) s) inside the schedule,
 * with n >= 1 arrivals whose share not live is within 1 point of the share
 * not live before the window (pwin_back, in integers; null: never);
 * before_lookups_100ms: the store's lookups before F per 100 ms of [0, F)
 * (null when F is 0); recovery_lookups_100ms: the lookups sent in each
 * tenth of the second after U, and their most. */
typedef struct {
    playwin_counts c;
    int on;
    double win_from_ms, win_to_ms;
    uint64_t requests[PWIN_NPHASES], live[PWIN_NPHASES], standins[PWIN_NPHASES], errors[PWIN_NPHASES],
        lost[PWIN_NPHASES], lookups[PWIN_NPHASES], unanswered_lookups[PWIN_NPHASES];
    double during_lookups_per_request, first_live_after_ms, recovered_s;
    /* the store's lookups per 100 ms before F, and in each tenth of the
     * second after U (NAN when U + 1 s is past the schedule's end) and the
     * most of them */
    double before_lookups_100ms, recovery_lookups_100ms[PWIN_REC_BINS], recovery_lookups_100ms_max;
} playwin_figs;

/* Start a seed: the window w (from fault_window_of; windowless: w->from_ns
 * < 0, then every call below does nothing) of a schedule `span` ns long.
 * 0, or -1 when out of memory. */
int pwin_begin(playwin *p, const fault_window *w, int64_t span);
void pwin_free(playwin *p);

static inline int pwin_phase(const playwin *p, int64_t t)
{
    return t < p->from ? PWIN_BEFORE : t < p->to ? PWIN_DURING : PWIN_AFTER;
}

void pwin_arrive(playwin *p, int64_t arrive);
/* done: POL_LIVE, POL_STANDIN or another (an error: 504). */
void pwin_answer(playwin *p, int64_t arrive, int done, int64_t now);
static inline void pwin_sent(playwin *p, int64_t t)
{
    if (!p->on)
        return;
    p->lookups[pwin_phase(p, t)]++;
    if (t >= p->to && t - p->to < PWIN_REC_BINS * PWIN_REC_NS)
        p->rec100[(t - p->to) / PWIN_REC_NS]++;
}
static inline void pwin_unanswered(playwin *p, int64_t sent)
{
    if (p->on)
        p->unanswered[pwin_phase(p, sent)]++;
}

void pwin_figures(const playwin *p, playwin_figs *f);

/* ",lost,store_E,...,conn_regained,win_from_ms,...,recovered_s,
 * before_lookups_100ms,recovery_lookups_100ms_max" and the
 * row's fields (the window's empty without a window, or for a null). */
void pwin_csv_header(FILE *out);
void pwin_csv_row(const playwin_figs *f, FILE *out);
/* The counts in a line, and the window's figures as a small table; each
 * line starts with `prefix`. */
void pwin_print(const playwin_figs *f, const char *prefix, FILE *out);

#endif
