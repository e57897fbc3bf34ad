/* redraw: one run's rows against what a reader can draw again
 * (lab/RAWFORMAT.md, "What a reader can draw again", with dice.h): in an
 * open-loop run (run.json rate R > 0) every tester row's sched_t is t0_ns
 * plus the schedule's offset of its position and the number of requests is
 * the number of offsets; in a closed-loop run (rate 0) sched_t = send_t
 * (where send_t is present: a request never sent has none);
 * every row of store.tsv.gz and store2.tsv.gz has planned_ns =
 * W(arm_spec.wait, round, req, attempt) with p = run.json's freeze_share;
 * the first store's outcomes in a flaky or missing run follow the fault
 * dice (E exactly when the flaky dice say so, N exactly when the missing
 * dice say so, for every row whose outcome is not U).
 *
 * Contract: one rd_acc per run.  rd_init reads run.json's rate,
 * schedule_seed, freeze_share and arm_spec.wait (round, seconds and t0_ns
 * were read already): each one absent or wrong is a mismatch naming the
 * field (mm_add), and the draws that need it are skipped, nothing assumed
 * (a run.json without freeze_share: no H wait is drawn).  Then, while
 * runfig reads the files: rd_tester_row for every tester row in file order,
 * rd_tester_end after the last, rd_store_row for every store row (store 1
 * or 2).  A row that differs is one mismatch naming run, file, line and the
 * request (mm_row).  Nothing to free; nothing read from a file here.
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
    long long first_extra;  /* position of the first row the schedule lacks (-1: none) */
    long first_extra_line;
    char wait;              /* arm_spec.wait (0: unusable) */
    int has_p;
    double p;               /* freeze_share */
} rd_acc;

void rd_init(rd_acc *a, const vj_node *rj, const char *run, long long round, double seconds, long long t0);
void rd_tester_row(rd_acc *a, long line, const rr_row *row);
void rd_tester_end(rd_acc *a);
void rd_store_row(rd_acc *a, const ou_fault *fault, int store, long line, const rr_row *row);

#endif
