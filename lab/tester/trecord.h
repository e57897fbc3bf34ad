/* trecord: what the tester records of each request, the open loop's
 * schedule of them (trec_schedule, lab/core/arrivals.h), and
 * its two output files: the rows of tester.tsv.gz (lab/RAWFORMAT.md, written through
 * rawfmt) and the summary, a JSON object written atomically:
 *   t0_ns, mode (open|closed), rate, seconds, seed, rows, deadline_ms,
 *   conns, requests, answered, errors, kinds {L,K,D,E}, conns_opened,
 *   conns_reopened, connect_failures, waited, gate {enabled, idle_share,
 *   steal_share, waited_s, passed, users_start, users_end}, late_p50_ns,
 *   late_p99_ns, late_max_ns (send_t - sched_t; linear interpolation
 *   between closest ranks, numpy's default).
 *
 * Ownership: the caller owns the records (trec_schedule mallocs them, the
 * caller frees); nothing here keeps a pointer.  Both writers return 0, or
 * -1 after one message on stderr.
 */
#ifndef LAB_TRECORD_H
#define LAB_TRECORD_H

#include <stddef.h>
#include <stdint.h>

#include "gate.h"
#include "rawlog.h" /* RAW_NONE */

/* Request j (the j-th in the array). */
typedef struct {
    int64_t sched, send, answer; /* RAW_NONE when absent */
    float score;
    int32_t conn; /* -1: none */
    int16_t status;
    char kind, has_score, waited;
} trec;

/* What the summary says besides the records. */
typedef struct {
    int closed; /* --rate max */
    double rate, seconds;
    uint64_t seed;
    int64_t rows;
    int have_deadline;
    double deadline_ms;
    int conns;
    int64_t t0; /* 0: the load never started */
    uint64_t opened, reopened, open_failed, waited;
} trec_run;

/* The schedule of (seed, rate, seconds) (lab/core/arrivals.h) as records:
 * *req (malloc'd, *cap records) gets one record per request, its sched the
 * offset from t0 in ns (the caller adds t0).  0, or -1 when out of memory. */
int trec_schedule(uint64_t seed, double rate, double seconds, trec **req, size_t *n, size_t *cap);

/* tester.tsv.gz: request j asks row j % rows. */
int trec_write_rows(const char *path, const trec *req, size_t n, int64_t rows);
int trec_write_summary(const char *path, const trec *req, size_t n, const trec_run *o, const gate_res *g);

#endif
