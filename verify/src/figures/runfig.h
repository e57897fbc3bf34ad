/* runfig: every figure of one run, recomputed from its raw files.
 *
 * Contract: rf_compute reads <root>/results/raw/<run>/ (rf_compute_in an
 * attempt's folder results/attempts/<run>-a<N>/ the same way: run.json and the
 * five event files, or six with store2.tsv.gz when run.json's stores is 2;
 * lab/RAWFORMAT.md version 4), decodes every row (rawdec.h), checks every
 * answer against the reference (ref may be NULL to skip that), checks the
 * rows against the promises of RAWFORMAT.md, and fills an rf_run with the
 * figures of pipeline/RESULTS.md ("runs.<run>").  It judges the run by the
 * rules (quiet.h): quiet, and the rules broken; and compares run.json's own
 * "quiet" object with that judgement.  Each failed check is recorded with
 * mm_add (mism.h).  A malformed file rejects the whole run: rf_compute then
 * returns non-zero with the message (file and line) in run->reject and
 * run->ok = 0.  rf_free releases the per-second arrays.  Figures without a
 * value (a percentile of nothing, a count over zero) have has[f] = 0 and
 * are written as null; so are the window figures of a run without a fault
 * window (outage.h), and the defences' figures of an arm without that
 * defence (defence.h).  Besides the numeric figures a run has its machine
 * (run.json's label as written, null when not a string: machines.h checks
 * it), its fault's
 * name, two count objects (store_outcomes, lookup_ends) and the list
 * recovery_lookups_100ms, and the flood's truth values (flooded, drained:
 * flood.h).  It keeps the breaker's rows of events.tsv.gz
 * (brk, with has_brk when arm_spec.brk_cool_ms is above 0).  rf_compute
 * (a run of results/raw/, not an attempt) also builds, from the same
 * reading, the run's object of verified.json's extra.runs (exrun.h) in
 * extra, which extra.h gathers: the raw files are read once.
 */
#ifndef RUNFIG_H
#define RUNFIG_H

#include <stddef.h>

#include "defence.h"
#include "flood.h"
#include "outage.h"
#include "quiet.h"
#include "reference.h"
#include "vjson.h"

typedef enum {
    F_N, F_ANSWERED, F_P50_MS, F_P90_MS, F_P99_MS, F_P999_MS, F_MAX_MS,
    F_LIVE, F_LAST_KNOWN, F_DEFAULT, F_ERROR,
    F_LIVE_SHARE, F_LAST_KNOWN_SHARE, F_DEFAULT_SHARE, F_ERROR_SHARE, F_STANDIN_SHARE,
    F_LOOKUPS, F_LOOKUPS_PER_REQUEST, F_SLOT_MS_TOTAL, F_SLOT_MS_PER_LOOKUP, F_SLOT_MS_PER_REQUEST,
    F_CUT_SHORT, F_PENDING_AT_STOP, F_LATE_P50_US, F_LATE_P99_US, F_LATE_MAX_US, F_ANSWERS_PER_S,
    F_STEAL_SHARE, F_STEAL_SECOND_MAX, F_OTHER_IDLE_SHARE, F_FOREIGN_SECOND_MAX,
    F_LOST, F_RETRIED_PERMANENT, F_CONN_LOST, F_CONN_FAILED, F_CONN_REGAINED, F_RECONNECT_WAIT_OVER,
    /* the window figures, in outage.h's order */
    F_WIN0, F_WIN_LAST = F_WIN0 + OU_NFIG - 1,
    /* the defences' figures, in defence.h's order */
    F_DF0, F_DF_LAST = F_DF0 + DF_NFIG - 1,
    /* floods, freezes, false and healthy timeouts (flood.h) */
    F_MISSED_SECONDS, F_FLOOD_FROM_S, F_LONGEST_LINE, F_FREEZES, F_FREEZE_SHARE, F_FALSE_TIMEOUTS,
    F_HEALTHY_TIMEOUTS, F_HEALTHY_TIMEOUT_SHARE,
    F_NFIG
} rf_fig;

/* how a figure is compared: counts exactly, times to the nanosecond, ratios
 * to 1e-12 relative, per-second means (busy slots, line) to 1e-9, the ends
 * of the odds' intervals (sim_wilson95, cp95) to 1e-11 */
typedef enum { RF_COUNT, RF_MS, RF_US, RF_RATIO, RF_MEAN, RF_INTERVAL } rf_class;

extern const char *const rf_fig_name[F_NFIG];
rf_class rf_fig_class(int fig);
int rf_fig_by_name(const char *name);             /* -1 when unknown */
rf_class rf_class_by_field(const char *field);    /* by field name (any layer of results.json) */

#define RF_RAW "results/raw"
#define RF_ATTEMPTS "results/attempts"

typedef struct {
    char name[256];     /* folder name, <arm>-r<round> (an attempt's: <arm>-r<round>-a<N>) */
    char dir[32];       /* the folder it is in, under the root: RF_RAW or RF_ATTEMPTS */
    char planned[256];  /* the planned run it measured, <arm>-r<round> */
    int attempt;        /* an attempt's N; 0 for a run folder */
    char arm[128];
    int round;
    int ok;
    char reject[6144];
    double seconds;
    long long t0;
    double fig[F_NFIG];
    unsigned char has[F_NFIG];
    int nsec;
    long long *arrivals, *standins, *lookups_sent;
    long long *busy_ns, *line_ns;   /* summed lengths of the intervals, ns */
    long long *late_max_ns;         /* the largest send_t - sched_t of the second's arrivals */
    unsigned char *late_has;        /* 0: no arrival in that second (late_max_us null) */
    double *steal_sec;              /* steal / total of row s of MA; NaN: no such row (null) */
    double *foreign_sec;            /* the foreign share of row s of MM; NaN: no such row (null) */
    long long *live_sec, *errors_sec; /* per second: arrivals of kind L, of kind E */
    ou_fault fault;                 /* run.json's fault: scenario and window */
    int has_fault;                  /* 1: fault read from run.json (0: the run rejected before) */
    ou_win win;                     /* the window's counts while the files are read */
    long long store_out[8];         /* store_outcomes, in the order of RC_STORE_OUTCOMES */
    long long lookup_end[12];       /* lookup_ends, in the order of RC_LOOKUP_OUTS */
    long wait_over_line;            /* events.tsv.gz line of the first pause out of bounds (0: none) */
    long brk_illegal_line;          /* events.tsv.gz line of the first illegal breaker row (0: none) */
    long budget_over_line;          /* service.tsv.gz line of the first retry over the budget (0: none) */
    long long rec100[DF_REC_BINS];  /* recovery_lookups_100ms, when has_rec100 */
    int has_rec100;
    int stores;                     /* run.json's stores: 1, or 2 with store2.tsv.gz */
    int has_brk;                    /* 1: the arm has a breaker (arm_spec.brk_cool_ms > 0) */
    df_brk brk;                     /* its rows (t, state), in file order, from the first reading */
    fl_flood flood;                 /* flooded, flood_from_s, drained (flood.h) */
    char start_utc[64];             /* run.json's start_utc as written ("" when absent) */
    char machine[256];              /* run.json's machine as written, when has_machine */
    int has_machine;
    int quiet;                      /* 1: breaks no rule of the quiet file */
    unsigned broken;                /* the rules broken, bit k for rule k of quiet.h */
    long long answers_checked;      /* tester rows of kind L, K, D checked against the reference */
    vj_node *extra;                 /* extra.runs.<run> (exrun.h), built by rf_compute (not rf_compute_in) */
    char *kinds;                    /* tester.tsv.gz's kinds in row order (nkinds), when read whole: for the AP */
    long long nkinds;
} rf_run;

int rf_compute(const char *root, const char *run, const ref_data *ref, const qr_rules *rules, rf_run *out);
/* the same of the folder <root>/<dir>/<folder>/ (RF_RAW or RF_ATTEMPTS):
 * run.json's arm and round must make the name planned; attempt is the
 * attempt's number (0 for a run folder); messages name the folder */
int rf_compute_in(const char *root, const char *dir, const char *folder, const char *planned, int attempt,
                  const ref_data *ref, const qr_rules *rules, rf_run *out);
/* the run's figures as the object "runs.<run>" of results.json */
vj_node *rf_to_json(const rf_run *r);
void rf_free(rf_run *r);

#endif
