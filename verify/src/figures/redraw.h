/* redraw: one run's rows against what a reader can draw again
 * (lab/RAWFORMAT.md, "What a reader can draw again", with dice.h).  Format
 * 4 no longer writes the scheduled arrivals nor the planned waits: the
 * decoder (rawdec.h) draws them, so there is nothing left to compare for
 * them, and the run driver's check that the processes' logs held exactly
 * these values is taken on trust.  What still can fail is checked here: in
 * an open-loop run (run.json rate R > 0) the number of tester rows is the
 * number of the schedule's offsets (a row beyond them cannot be decoded:
 * rawdec.h rejects the run); run.json's rate, schedule_seed, freeze_share
 * and arm_spec.wait are usable and as the page says; the first store's
 * outcomes in a flaky or missing run follow the fault dice (E exactly when
 * the flaky dice say so, N exactly when the missing dice say so, for every
 * row whose outcome is not U).
 *
 * Contract: one rd_acc per run.  rd_init reads run.json's rate,
 * schedule_seed, freeze_share and arm_spec.wait (round, seconds and t0_ns
 * were read already): each one absent or wrong is a mismatch naming the
 * field (mm_add).  Then, while runfig reads the files: rd_tester_row for
 * every tester row, rd_tester_end after the last, rd_store_row for every
 * decoded store row (store 1 or 2).  A row that differs is one mismatch
 * naming run, file, line and the request (mm_row).  Nothing to free;
 * nothing read from a file here.
 */
#ifndef REDRAW_H
#define REDRAW_H

#include "dice.h"
#include "outage.h"
#include "rawread.h"
#include "vjson.h"

typedef struct {
    const char *run;
    long long round, t0;
    double seconds, rate;
    int has_rate;           /* 0: rate unusable, no schedule check */
    int closed;             /* rate 0: sched_t = send_t */
    dc_sched sched;
    long long rows;         /* tester rows seen */
    char wait;              /* arm_spec.wait (0: unusable) */
    int has_p;
    double p;               /* freeze_share */
} rd_acc;

void rd_init(rd_acc *a, const vj_node *rj, const char *run, long long round, double seconds, long long t0);
void rd_tester_row(rd_acc *a);
void rd_tester_end(rd_acc *a);
void rd_store_row(rd_acc *a, const ou_fault *fault, int store, long line, const rr_row *row);

#endif
