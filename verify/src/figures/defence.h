/* defence: the figures and checks of the defences of one run (a circuit
 * breaker, compartments, a retry budget, a second store), written from
 * lab/RAWFORMAT.md (run.json's arm_spec and stores, the service's store
 * column and codes O B Y, the breaker's rows of events.tsv.gz,
 * store2.tsv.gz) and pipeline/RESULTS.md (brk_*, retries_passed,
 * budget_refused, budget_over, inflight_refused, storeN_*,
 * before_lookups_100ms, recovery_lookups_100ms).
 *
 * Contract: one df_acc per run, filled while runfig reads the files and
 * freed with df_free.
 *   - df_read_spec reads the arm_spec columns the figures need and
 *     run.json's stores: -1 (the run is rejected, message in err) when one
 *     is absent or not an integer, or stores is not 1 or 2, or hedge2 is
 *     present and not 0 or 1 (absent: 0, RESULTS.md); 0 otherwise (a stores
 *     that disagrees with arm_spec.store2 and hedge2 is a mismatch: 2
 *     exactly when store2 is above 0 or hedge2 is 1, docs/DESIGN.md 5.9).
 *     df_store_row names a store row in the file of another store than
 *     its lookup's (the request's; store 2 for attempt 1 under hedge2).
 *   - df_brk_row takes each breaker row of events.tsv.gz (what one of
 *     RC_BREAKER) in file order: counts, brk_illegal, the row's promises
 *     (mm_row) and the state it puts the breaker in from its t on.
 *     df_brk_times gives the time in each state within [t0, end);
 *     df_brk_refusal_ok whether a lookup refused with O at t met the
 *     breaker OPEN or HALF OPEN.
 *   - df_tester_row (every tester row, in j order), df_service_row (every
 *     service row, after the events), df_store_row (every row of
 *     store.tsv.gz and store2.tsv.gz) collect what the figures need and
 *     check the service's new columns and codes (mm_row).
 *   - df_figs writes the figures in the DF_* order (NaN: null) and the
 *     list recovery_lookups_100ms (*has_rec 0: null).
 * Nothing here reads a file.
 */
#ifndef DEFENCE_H
#define DEFENCE_H

#include <stddef.h>

#include "outage.h"
#include "rawread.h"
#include "vjson.h"

/* the figures, in pipeline/RESULTS.md's order; per store N (1, 2) the four
 * requests, live, live_share, p99_ms at DF_STORE0 + 4 (N - 1) over the run
 * and DF_STORE_DURING0 + 4 (N - 1) in the window */
enum {
    DF_BRK_OPENED, DF_BRK_HALF_OPENED, DF_BRK_CLOSED, DF_BRK_TRANSITIONS,
    DF_BRK_CLOSED_MS, DF_BRK_OPEN_MS, DF_BRK_HALF_MS, DF_BRK_ILLEGAL,
    DF_RETRIES_PASSED, DF_BUDGET_REFUSED, DF_BUDGET_OVER, DF_INFLIGHT_REFUSED,
    DF_STORE0, DF_STORE_DURING0 = DF_STORE0 + 8,
    DF_BEFORE_LOOKUPS_100MS = DF_STORE_DURING0 + 8,
    DF_RECOVERY_LOOKUPS_100MS_MAX,
    DF_NFIG
};
#define DF_REC_BINS 10

/* arm_spec's columns (lab/RAWFORMAT.md: every column of lab/arms.tsv) and stores */
typedef struct {
    long long tries, brk_fails, brk_window, brk_share, brk_cool_ms, brk_probes, store2, inflight, bulkhead, rb_pct,
        rb_floor;
    long long hedge2;           /* 0 or 1; 0 when arm_spec has no hedge2 (RESULTS.md) */
    int stores;
} df_spec;

enum { DF_CLOSED, DF_OPEN, DF_HALF };

typedef struct {
    long long *t;               /* the breaker's rows: from t[i] on it is in st[i] */
    unsigned char *st;
    size_t n, cap;
    int state;                  /* after the rows so far (CLOSED before the first) */
    int has_open;
    long long open_t;           /* t of the last O, W or P row */
    long long opened, half, closed, illegal;
    long first_illegal_line;    /* events.tsv.gz line of the first (0: none) */
} df_brk;

typedef struct {
    long long t;
    long line;
} df_tline;

typedef struct {
    df_spec sp;
    const char *run;            /* for the breaker rows' messages */
    df_brk brk;
    long long t0;
    /* with a retry budget: the retries passed (K >= 1, not O B Y), their
     * aK_start_t and service line; the requests started (a0_start_t
     * present), their arrive_t */
    df_tline *rt;
    long long *qt;
    size_t nr, capr, nq, capq;
    long long retries_passed;
    /* tester rows by j, and the store each req was logged with (0: none) */
    long long *sched, *lat;
    unsigned char *answered;
    char *kind;
    size_t nt, capt;
    unsigned char *store_of;
    /* rows of S by arrive_t: before the window, and in the 100 ms bins after it */
    long long before, bin[DF_REC_BINS];
} df_acc;

int df_read_spec(const vj_node *rj, const char *path, const char *run, df_spec *sp, char *err, size_t errlen);
void df_init(df_acc *d, const df_spec *sp, long long t0);
void df_free(df_acc *d);

void df_brk_init(df_brk *b);
void df_brk_free(df_brk *b);
void df_brk_row(df_brk *b, const df_spec *sp, const char *run, long line, long long t, char what, long long conn,
                long long tries, long long wait);
void df_brk_times(const df_brk *b, long long t0, long long end, long long ns[3]);
int df_brk_refusal_ok(const df_brk *b, long long t);

void df_tester_row(df_acc *d, long long sched, int has_answer, long long answer, char kind);
/* lookups: the lookups tried (present aK_start_t) */
void df_service_row(df_acc *d, const char *run, long line, const rr_row *row, int lookups);
/* store: 1 for store.tsv.gz, 2 for store2.tsv.gz */
void df_store_row(df_acc *d, const ou_fault *w, const char *run, const char *file, long line, const rr_row *row,
                  int store);

/* budget_over alone (d's retries and requests, sorted here); *first_line:
 * the service.tsv.gz line of the first retry over (0: none) */
long long df_budget_over(df_acc *d, long *first_line);
/* refused: the counts of lookup ends B and Y */
void df_figs(df_acc *d, const ou_fault *w, long long refused_b, long long refused_y,
             double fig[DF_NFIG], long long rec[DF_REC_BINS], int *has_rec, long *budget_over_line);

#endif
