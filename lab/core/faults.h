/* faults: how the store fails, by scenario (the second lesson: a provider
 * that goes down).  Pure logic, no I/O, no clock: the store (lab/store/store.c)
 * and the simulation (lab/play/play.c) both ask this module what happens to a
 * lookup, so every arm of a round meets the same failures.
 *
 * The scenarios, one table (FAULTS in faults.c; docs/DESIGN.md section 5a
 * and lab/RAWFORMAT.md say the same in words).  S is the schedule's length
 * (run.json's `seconds`); times run from the run's t0; the window is
 * [from, to):
 *
 *   name     window                   what happens to a lookup
 *   none     -                        nothing
 *   down     [S/3, 2S/3)              arriving in the window: answered at once
 *                                     with *unavailable* (transient)
 *   hang     [S/3, 2S/3)              arriving in the window: taken, held, and
 *                                     answered *unavailable* when it ends
 *   reset    [S/3, 2S/3)              at `from` the store closes every
 *                                     connection (lookups in flight are cut)
 *                                     and refuses new ones until `to`
 *   never    [S/3, end of the run)    as down, and the store never comes back
 *   flaky    -                        throughout, a lookup whose dice say so
 *                                     (5 in 100, keyed by round, request,
 *                                     attempt) is answered *unavailable*
 *   missing  -                        throughout, the rows whose dice say so
 *                                     (2 in 100, keyed by the row alone: the
 *                                     same rows in every round) are answered
 *                                     *not found* (permanent)
 *   slow     [S/3, 2S/3)              arriving in the window: served as usual
 *                                     but planned FAULTS_SLOW_NS longer than
 *                                     its dice say (the store is slow); the
 *                                     first store only
 *   slowboth [S/3, 2S/3)              as slow, at both stores (an arm with a
 *                                     second store: both copies slow at once)
 *
 * The `fault` column of lab/arms.tsv names a scenario, optionally with its
 * own window in fractions of the schedule: "down@0.2-0.5", "never@0.5-end".
 * A windowless scenario takes no window; a window must have
 * 0 <= from < to <= 1 (or to "end").
 *
 * A lookup that arrives before the store knows t0 (the tester tells it
 * with a clock frame, lab/core/wire.h, before its first request) meets no window.
 */
#ifndef LAB_FAULTS_H
#define LAB_FAULTS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    FAULT_NONE,
    FAULT_DOWN,
    FAULT_HANG,
    FAULT_RESET,
    FAULT_NEVER,
    FAULT_FLAKY,
    FAULT_MISSING,
    FAULT_SLOW,
    FAULT_SLOWBOTH
} fault_kind;

#define FAULTS_FLAKY_P 0.05
#define FAULTS_MISSING_P 0.02
#define FAULTS_FLAKY_KEY 0x464c414b59ULL   /* "FLAKY" */
#define FAULTS_MISSING_KEY 0x4d495353ULL   /* "MISS" */
#define FAULTS_END (-1.0)                  /* a window's `to`: the end of the run */
#define FAULTS_SLOW_NS 20000000LL          /* slow, slowboth: 20 ms more than the dice */

typedef struct {
    fault_kind kind;
    double from, to; /* fractions of the schedule; to FAULTS_END: the end of the run; both -1 when windowless */
} fault_spec;

/* The window in ns from t0 for a schedule of `seconds`: from_ns, and to_ns
 * (INT64_MAX: the end of the run).  Windowless: both -1. */
typedef struct {
    int64_t from_ns, to_ns;
} fault_window;

/* What happens to one lookup. */
typedef enum {
    FAULT_PASS,        /* served as usual (slot, planned wait) */
    FAULT_UNAVAILABLE, /* answered at once: unavailable */
    FAULT_NOT_FOUND,   /* answered at once: not found */
    FAULT_HOLD         /* held until the window's end, then unavailable */
} fault_fate;

/* Parse "none", "down", "down@0.2-0.5", "never@0.5-end" ...; 0, or -1 and why. */
int fault_parse(const char *text, fault_spec *f, char *why, size_t whylen);
/* The canonical text of f ("down", or "down@0.2-0.5" when not the default). */
void fault_format(const fault_spec *f, char *buf, size_t len);
const char *fault_name(fault_kind k);
/* 1 when the scenario has a window. */
int fault_has_window(fault_kind k);
fault_window fault_window_of(const fault_spec *f, double seconds);

/* The fate of lookup (round, req, attempt, row) arriving `t_rel` ns after
 * t0 (t_rel INT64_MIN: t0 not known yet).  A reset answers FAULT_PASS here:
 * its connections are the store's business (fault_reset_closed); slow and
 * slowboth too: their lookups are served, only longer (fault_slow_ns). */
fault_fate fault_lookup(const fault_spec *f, const fault_window *w, uint32_t round, uint32_t req, uint32_t attempt,
                        uint32_t row, int64_t t_rel);
/* The ns a store that has the fault adds to the planned wait (the dice) of
 * a lookup arriving t_rel ns after t0 (INT64_MIN: t0 not known yet):
 * FAULTS_SLOW_NS for slow and slowboth in the window, else 0.  The store
 * (lab/store/store.c), play (lab/play/playsim.c) and format 4's reader of
 * planned_ns (lab/raw/raw4.c) all ask this. */
int64_t fault_slow_ns(const fault_spec *f, const fault_window *w, int64_t t_rel);
/* 1 when store `store` (0 the first, 1 the second) of an arm has the fault:
 * the first always; the second only for slowboth (the other scenarios are
 * the first store's; an arm with a second store has it healthy). */
int fault_at_store(fault_kind k, int store);
/* 1 when a reset scenario refuses connections at t_rel. */
int fault_reset_closed(const fault_spec *f, const fault_window *w, int64_t t_rel);
/* 1 when row is one of the missing scenario's rows. */
int fault_row_missing(uint32_t row);

#endif
