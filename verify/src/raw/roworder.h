/* roworder: what follows what across the rows of one file, written from
 * lab/RAWFORMAT.md and docs/DESIGN.md 5.4 alone.  Three orders the
 * documents promise and the rows can show:
 *
 *   - one request at a time on a keep-alive connection (tester.tsv.gz's
 *     conn, "index of the keep-alive connection that carried it"; DESIGN.md
 *     5.4: "a request whose time has come goes out on an idle connection
 *     or a new one"): of two requests on one connection, in file order
 *     (the schedule's; the tester takes them in that order, so a later one
 *     goes out on a connection only once the earlier one has left it), the
 *     later one's send_t is not before the earlier one's answer_t; when the
 *     earlier one has no answer_t (the tester gave up on it, at an instant
 *     the file does not hold), not before its send_t;
 *   - service.tsv.gz's rows "are in the order the answers were written",
 *     and answer_t is read just after each write returned (one process,
 *     one loop): answer_t does not decrease down the file, over the rows
 *     that have one (where a row without answer_t stands, still waiting at
 *     the stop, the page does not say: such rows are skipped);
 *   - store.tsv.gz's and store2.tsv.gz's rows are "written when the lookup
 *     ended (so rows are in order of end_t); lookups still unfinished when
 *     the store stopped come last, with end_t absent": end_t does not
 *     decrease down each file, and no row with end_t follows one without
 *     (named at the first such row after each unfinished one).
 *
 * Each instant is a decoded one (rawdec.h): the logged instant rounded
 * down on its own row's µs grid, so in [x - 999, x] ns.  Two instants of
 * different rows are on different grids; an order of the logged instants
 * holds on the decoded ones within 999 ns, the slack of every check here
 * (no other tolerance: all processes read one CLOCK_MONOTONIC,
 * RAWFORMAT.md).  Each broken order is one mismatch naming the run, the
 * file and line of the later row, and both requests (and, for the tester,
 * the connection and the earlier row's line).
 *
 * What is left out, because the documents do not promise it: the
 * service's answer_t before the tester's (RAWFORMAT.md: the tester may
 * read the answer first, by a few ms), the order of requests across
 * connections, and anything about `waited` beyond 0 or 1 (the page does
 * not say whether the tester opens connections before the first request,
 * nor whether a connection's index is used again).
 *
 * Contract: one ro_acc per run (ro_init, ro_free); feed it the decoded rows
 * in file order, as runfig does (tester, service, store, store2; any
 * interleaving of files, one file's rows in order).  Memory: one entry per
 * connection (an open-addressed table) and a few words per file; one pass.
 */
#ifndef ROWORDER_H
#define ROWORDER_H

#include <stddef.h>

#include "rawread.h"

/* the order slack of two rows' decoded instants (their grids differ) */
#define RO_SLACK 999

typedef struct {
    long long conn;             /* the key */
    long long j, send, answer;  /* the last request carried: its number and instants */
    long line;
    unsigned char used, answered;
} ro_conn;

typedef struct {
    long long last, req;        /* the last end_t (answer_t) seen, its row's req (-1: none) */
    long line;                  /* its line (0: none yet) */
    long open_line;             /* store: the first row without end_t (0: none yet) */
} ro_file;

typedef struct {
    const char *run;
    ro_conn *c;
    size_t cap, n;
    long long j;                /* the next tester row's request number */
    ro_file v, s[2];
} ro_acc;

void ro_init(ro_acc *o, const char *run);
void ro_free(ro_acc *o);
/* a decoded tester row (T_*), in file order */
void ro_tester_row(ro_acc *o, long line, const rr_row *row);
/* a decoded service row (V_*), in file order */
void ro_service_row(ro_acc *o, long line, const rr_row *row);
/* a decoded store row (S_*) of store 1 (store.tsv.gz) or 2 (store2.tsv.gz) */
void ro_store_row(ro_acc *o, int store, long line, const rr_row *row);

#endif
