/* exrun: one run's part of verified.json's "extra" (extra.h), gathered
 * while the run's raw files are read the first (and only) time (runfig.h):
 * the rows it needs are handed over one by one as they are decoded, and
 * the run's object extra.runs.<run> is built once the files are read.
 *
 * Contract: ex_run_init, then (in the order runfig.c reads the files)
 * ex_tester_row for every decoded tester row (request j is the row's
 * place: rows come in j order), ex_service_row for every service row
 * (the first row of each req 0 <= req < the tester's rows is kept),
 * ex_store_row for every row of store.tsv.gz, then store2.tsv.gz (the
 * frozen attempt-0 lookup of the lowest req: planned wait over 1 s; of
 * two with that req, the first read); then ex_run_json builds the object
 * and ex_run_free releases the rows.  ex_run_json takes the run's
 * latencies (answer_t - sched_t of every answered request) sorted
 * ascending, as runfig.c has them for the percentiles, and the run's
 * run.json (its machine facts are copied).  The object's members, in this
 * order (verify/README.md, "verified.json: the extra member"):
 *
 *   n                          the tester's rows
 *   exceed, exceed_count       share and count of requests waiting longer
 *                              than each threshold of the grid (an
 *                              unanswered request waits longer than all)
 *   frozen_example             the frozen lookup followed through (null: none)
 *   slowest_steps              the slowest 1% (ceil(answered / 100) of them:
 *                              by latency descending, equal ones by j
 *                              ascending) split into steps
 *   breaker                    the breaker's changes (only an arm with one)
 *   machine                    run.json's idle, cpu, memory, host facts
 *
 * The grid: EX_GRID thresholds, ex_grid_ns(k) for k = 0 .. EX_GRID - 1,
 * 0.1 ms to 3000 ms equally spaced in log, rounded to whole ns.
 */
#ifndef EXRUN_H
#define EXRUN_H

#include <stddef.h>

#include "defence.h"
#include "rawread.h"
#include "vjson.h"

#define EX_GRID 60

long long ex_grid_ns(int k);

/* one run's rows, indexed by request j */
typedef struct {
    long long n, cap;
    long long *sched, *send, *answer; /* tester; send, answer RX_ABSENT when none */
    char *kind;
    long long *row;
    int *status;
    /* service, by req (its first row): sized n when the first service row comes */
    long long nv;
    unsigned char *v_has;
    long long *v_arrive, *v_answer, *v_last_end, *v_a0s, *v_a0e;
    char *v_a0o, *v_kind;
    int *v_lookups;
    /* store: the frozen attempt-0 lookup of the lowest req (f_req -1: none) */
    long long f_req, f_arrive, f_start, f_end, f_planned, f_budget;
    char f_outcome;
} ex_run;

void ex_run_init(ex_run *x);
void ex_run_free(ex_run *x);
void ex_tester_row(ex_run *x, const rr_row *row);
void ex_service_row(ex_run *x, const rr_row *row);
void ex_store_row(ex_run *x, const rr_row *row);
/* the object extra.runs.<run>: lat[0 .. nlat) the answered requests'
 * latencies sorted ascending; brk the breaker's rows when has_brk (t0 the
 * run's start); rj the run's run.json */
vj_node *ex_run_json(const ex_run *x, const long long *lat, size_t nlat, int has_brk, const df_brk *brk,
                     long long t0, const vj_node *rj);

#endif
