/* outage: the store's fault scenario of one run and what follows from it.
 * Written from lab/RAWFORMAT.md ("Fault scenarios", run.json's `fault`,
 * the store's outcome codes, events.tsv.gz) and pipeline/RESULTS.md ("A
 * fault window", the events figures).
 *
 * Contract:
 *   - ou_read_fault reads run.json's `fault` into an ou_fault (the
 *     scenario and its window as absolute instants F and U).  A `fault` that
 *     cannot be used (absent, not an object, an unknown name, a window that
 *     is not integers) returns -1 with the message in err: the run is
 *     rejected.  What can be used but breaks a promise (the spec, the
 *     window's place in the run, a window where the scenario has none) is a
 *     mismatch (mm_add) and 0.
 *   - ou_phase places an instant before (0), during (1) or after (2) the
 *     window (F <= t < U is during).
 *   - ou_store_check: is a store row's outcome what the scenario allows?
 *     NULL when it is, else the column that is wrong, with the expected
 *     value in want.  ou_store keeps the per-row memory of `missing` (a row
 *     is missing in every lookup or in none); ou_store_free frees it.
 *   - ou_win accumulates the tester's rows and the service's sent lookups
 *     by phase (ou_win_request, ou_win_lookup), and the stores' busy slots
 *     inside [F, U') (ou_win_store_row; U' = U, or the run's end when U
 *     is +infinity); ou_win_figs gives the
 *     window figures in the order of the ou_fig enum (NaN: null, as
 *     RESULTS.md says for a run without a window); ou_win_free frees it.
 *   - ou_events reads events.tsv.gz (whole in memory; the caller frees it)
 *     with its row checks (mm_row) and counts of the connections' rows;
 *     each breaker row (RC_BREAKER) goes to on_brk (defence.h) instead; -1
 *     on a malformed file (err names file and line).
 */
#ifndef OUTAGE_H
#define OUTAGE_H

#include <stddef.h>

#include "rawread.h"
#include "vjson.h"

/* slow, slowboth: docs/DESIGN.md 5.9 (windowed like down; a lookup
 * arriving at a slowed store in the window plans its wait 20 ms longer
 * than its dice say, rawdec.h, and is otherwise served: slow slows the
 * first store only, slowboth both) */
typedef enum { OU_NONE, OU_DOWN, OU_HANG, OU_RESET, OU_NEVER, OU_FLAKY, OU_MISSING, OU_SLOW, OU_SLOWBOTH, OU_NSCEN } ou_scen;

extern const char *const ou_scen_name[OU_NSCEN];

typedef struct {
    ou_scen scen;
    int has_window;
    long long from_ns, to_ns;   /* from t0_ns; to_ns only when !to_end */
    int to_end;                 /* to_ns null: the window lasts to the end of the run */
    long long F, U;             /* t0 + from_ns, t0 + to_ns (U = LLONG_MAX when to_end) */
    long long end;              /* t0 + seconds * 1e9, rounded to the ns */
} ou_fault;


int ou_read_fault(const vj_node *rj, const char *path, const char *run, double seconds, long long t0, ou_fault *out,
                  char *err, size_t errlen);
int ou_phase(const ou_fault *w, long long t);

typedef struct {
    unsigned char *row_state;   /* missing: 0 unseen, 1 not found, 2 served */
    long long nrows;
} ou_store;

void ou_store_init(ou_store *st, const ou_fault *w, long long test_rows);
/* the most a decoded µs instant lies before the logged one (RAWFORMAT.md) */
#define OU_US_SLACK 999
/* start, end: 0 when absent; arrive and end decoded from µs offsets (so
 * within OU_US_SLACK of the logged instants: checked with that slack) */
const char *ou_store_check(const ou_fault *w, ou_store *st, long long row, long long arrive, int has_start,
                           int has_end, long long end, char outcome, char *want, size_t wantlen);
void ou_store_free(ou_store *st);

/* the window figures, in pipeline/RESULTS.md's order; per phase P the
 * seven counts OU_P_REQUESTS ... OU_P_UNANSWERED at OU_PHASE0 + 7 P */
enum { OU_P_REQUESTS, OU_P_LIVE, OU_P_STANDINS, OU_P_ERRORS, OU_P_LOST, OU_P_LOOKUPS, OU_P_UNANSWERED, OU_PN };
enum {
    OU_WIN_FROM_MS,
    OU_WIN_TO_MS,
    OU_PHASE0,
    OU_DURING_LOOKUPS_PER_REQUEST = OU_PHASE0 + 3 * OU_PN,
    OU_FIRST_LIVE_AFTER_MS,
    OU_RECOVERED_S,
    /* RESULTS.md's during_standin_share, during_p99_ms, storeN_during_busy */
    OU_DURING_STANDIN_SHARE,
    OU_DURING_P99_MS,
    OU_STORE1_DURING_BUSY,
    OU_STORE2_DURING_BUSY,
    OU_NFIG
};

typedef struct {
    long long c[3][OU_PN];
    long long first_live;       /* smallest answer_t >= U of a live row; LLONG_MAX: none */
    long long nrec;             /* whole seconds B_k after U inside the run */
    long long *rec_rows, *rec_live;
    long long *dlat;            /* latencies answer_t - sched_t of the answered rows in phase during */
    size_t ndlat, capdlat;
    __int128 busy_ns[2];        /* per store: summed [start_t, e) ∩ [F, U') */
    int stores;                 /* run.json's stores (store2_during_busy null when 1); set after ou_win_init */
} ou_win;

void ou_win_init(ou_win *x, const ou_fault *w);
/* a tester row: kind L K D E, answer_t (has_answer) */
void ou_win_request(ou_win *x, const ou_fault *w, long long sched, char kind, int has_answer, long long answer);
/* a lookup of the service: its aK_start_t and aK_out (R: not sent, not counted) */
void ou_win_lookup(ou_win *x, const ou_fault *w, long long start, char out);
/* a row of S of store 1 or 2: start_t (has_start), end_t (has_end) */
void ou_win_store_row(ou_win *x, const ou_fault *w, int store, int has_start, long long start, int has_end,
                      long long end);
/* sorts the during latencies in place */
void ou_win_figs(ou_win *x, const ou_fault *w, double fig[OU_NFIG]);
void ou_win_free(ou_win *x);

typedef struct {
    long long rows, lost, failed, regained, wait_over;
    long first_over_line;       /* line of the first pause outside its bounds (0: none) */
    long long tmin;             /* the lowest t, at line tmin_line (0: no row) */
    long tmin_line;
} ou_events_count;

/* a breaker row of events.tsv.gz at line (may be NULL: not looked at) */
typedef void (*ou_brk_fn)(void *ctx, long line, const rr_row *row);
int ou_events(const char *path, const unsigned char *gz, size_t gzlen, const char *run, ou_brk_fn on_brk, void *ctx,
              ou_events_count *out, char *err, size_t errlen);
/* the backoff's bound for a pause after `tries` failed tries: min(1e9, 1e7 * 2^tries) ns */
long long ou_wait_bound(long long tries);

#endif
