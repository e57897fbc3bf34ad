/* crossfile: the rows of one run's files against each other, written from
 * lab/RAWFORMAT.md (what each time means, which columns may be absent and
 * when).  Checked, each broken promise one mismatch naming run, file, line
 * and the request (mm_row):
 *   - within a row, times in order: tester sched_t <= send_t <= answer_t
 *     (send_t where present: a request never sent has none);
 *     service arrive_t <= answer_t and arrive_t <= aK_start_t <= aK_end_t,
 *     and the aK_end_t of a lookup whose answer it used (A) <= answer_t;
 *     store arrive_t <= start_t <= end_t (where present);
 *   - every service row with a req belongs to a request of tester.tsv.gz
 *     (0 <= req < its rows), one row per request; its arrive_t is not
 *     before the tester's send_t;
 *   - every tester answer (answer_t present) has its service row, with the
 *     same status and kind and an answer_t; the tester's answer_t is not
 *     before the service's arrive_t nor before the end of the lookup whose
 *     answer the service used (aK_out A): what the service did before it
 *     wrote the answer (README, "Readings": the service's own answer_t is
 *     stamped after its write returns, so it may follow the tester's);
 *   - every lookup the service sent (aK_out present, not R O B Y) has its
 *     row in the file of its store (the service row's store, but store 2
 *     for lookup 1 when the arm has hedge2 1: RESULTS.md and docs/DESIGN.md
 *     5.9) with the same req and attempt K,
 *     unless it is X (its connection was lost: the store may never
 *     have read it); the store's arrive_t is not before aK_start_t, and for
 *     a lookup the service used (A) the store's end_t is present and not
 *     after aK_end_t; and every store row is such a lookup, one row each.
 *     A row in the other store's file, and a lookup logged with a store the
 *     run does not have, are left to defence.h (it names the store column).
 * Tester rows without answer_t need no service row; service rows without
 * req (the body gave none) join nothing.  A request never sent (send_us
 * -) has no service row (one is a mismatch naming it) and no time order.
 * The times are format 4's decoded instants (rawdec.h): every order above
 * holds exactly on them (the instants of one request are rounded down on
 * one µs grid), but for the end of an A lookup, the store row's end_t
 * (after start_t + W) and the service's aK_end_t (after aK_start_t + W),
 * each on a grid of its own: the one may pass its start (start_t,
 * aK_start_t) by up to 999 ns, the store's end_t may pass the service's
 * aK_end_t, and the service's aK_end_t the tester's answer_t, by up to
 * 999 ns.  The table row of a request is not written any more (format 4:
 * req mod test_rows), so there is no row to compare.
 *
 * xf_tester_promises checks one tester row's own promises (RAWFORMAT.md,
 * tester.tsv.gz), on the decoded row: with send_us present a conn; with
 * send_us - (never sent) conn, answer_us and score -, status 0, kind E;
 * with answer_us present a status other than 0; without it status 0 and
 * kind E; kinds L K D with status 200 and a score, E without a score and
 * not 200; waited 0 or 1.  Each broken promise one mismatch naming the
 * run, file and line.  (Nothing of these stops the decoding: rawdec.h
 * rejects only what cannot be decoded.)
 *
 * Contract: one xf_acc per run (xf_init, xf_free).  Feed it in runfig's
 * order: xf_tester_row for every tester row in file order, then
 * xf_service_row for every service row, then xf_store_row for every row of
 * store.tsv.gz (store 1) and store2.tsv.gz (store 2), then xf_finish.
 * Memory: a few words per request and per (request, attempt); the lookups
 * are indexed by req * 5 + attempt.  Nothing read from a file here.
 */
#ifndef CROSSFILE_H
#define CROSSFILE_H

#include <stddef.h>

#include "rawread.h"

typedef struct {
    long long send, answer;
    long long status;
    long line, vline;           /* tester line; service line of its row (0: none) */
    char kind;
    unsigned char answered, sent;   /* answer_t, send_t present */
} xf_req;

typedef struct {
    long long start, end;
    long vline, sline;          /* service line (0: not sent); its store row's line (0: none yet) */
    char out;
    unsigned char store, sstore;
} xf_lookup;

typedef struct {
    const char *run;
    xf_req *t;
    size_t nt, cap;
    xf_lookup *lk;
    int stores;
    int hedge2;                 /* arm_spec.hedge2 (0 without it): lookup 1's row is in store2.tsv.gz */
} xf_acc;

/* stores: run.json's stores (1 or 2); x->hedge2 is 0 until the caller sets it
 * (arm_spec.hedge2 1: the hedge, lookup 1, goes to the second store,
 * docs/DESIGN.md 5.9), before the first service row */
void xf_init(xf_acc *x, const char *run, int stores);
void xf_free(xf_acc *x);
void xf_tester_row(xf_acc *x, long line, const rr_row *row);
void xf_tester_promises(const char *run, long line, const rr_row *row);
void xf_service_row(xf_acc *x, long line, const rr_row *row);
/* store: 1 for store.tsv.gz, 2 for store2.tsv.gz */
void xf_store_row(xf_acc *x, int store, long line, const rr_row *row);
void xf_finish(xf_acc *x);

#endif
