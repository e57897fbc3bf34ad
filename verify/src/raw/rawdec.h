/* rawdec: the tester's, the service's and the store's files of format 4
 * (lab/RAWFORMAT.md) decoded into the rows the verifier works on
 * (rawcols.h: T_*, V_*, S_*), every instant an absolute ns, written from
 * the page alone:
 *   - tester: request j is the row's place (line j + 3); its table row
 *     j mod test_rows; sched_t = t0_ns + the schedule's j-th offset in an
 *     open-loop run (dice.h), = send_t in a closed-loop run (rate 0, where
 *     send_us is after t0_ns); send_us and answer_us after sched_t; a score
 *     "=" is its reference (kind L: scores.tsv's score of the row, K its
 *     last_known, D default_score), has[T_SCORE] 2;
 *   - service: row = req mod test_rows when req is present; arrive_us after
 *     sched_t of request req when 0 <= req < requests, else after t0_ns;
 *     answer_us after the tester's answer_t of req when that is present,
 *     else after arrive_t; aK_start_us after arrive_t, aK_end_us after
 *     aK_start_t + W for aK_out A (W the wait dice's of round, req,
 *     attempt K: the dice alone, a slow store's slowness is not in it,
 *     RAWFORMAT.md), else after aK_start_t;
 *   - store (and store2): row = req mod test_rows; planned_ns = the wait
 *     dice's W(arm_spec.wait, round, req, attempt), plus 20 ms when the
 *     scenario slows this store (slow: store 1, slowboth: both) and the
 *     lookup's arrive_t lies in the window (RAWFORMAT.md, "A slow
 *     store's slowness"); arrive_us after the
 *     aK_start_t (K = attempt) of the first service row with this req when
 *     it is present, else after t0_ns; start_us after arrive_t; end_us after
 *     start_t + W for outcome A, else after start_t when present, else
 *     after arrive_t.
 * "mod" is the non-negative remainder.  Instant = base + 1000 value.
 *
 * Contract: one rx_run per run, rx_init (run.json's numbers; ref may be
 * NULL: a "=" then decodes to NaN) ... rx_free.  Decode the files in the
 * page's order, each whole: the tester, then the service, then the stores
 * (rx_open, rx_next until 0, rx_close).  rx_next gives the decoded row in
 * *out (1), 0 at the end, -1 with a message naming file and line when the
 * file is malformed or a value cannot be decoded: a request the schedule
 * does not have, a closed-loop request without send_us, a "=" with kind E,
 * a base that is absent and has no fallback (an aK_end_us without its
 * aK_start_us; an A row without start_us; an A lookup in a service row
 * without req; a service req below requests beyond the tester's rows),
 * the planned wait not drawable for a store row or an A lookup (run.json's
 * arm_spec.wait or, for H, freeze_share unusable), an instant beyond 64
 * bits.  A row's own promises decode whatever they say (a request never
 * sent, send_us -, with a conn or an answer): they are mismatches of
 * crossfile.h's xf_tester_promises, not malformed rows.  A derived
 * column's text is "(not written)", an offset column's the µs written.  The file remembers its lowest decoded instant (tmin,
 * tmin_line, tmin_col).  Memory: a few words per request.
 */
#ifndef RAWDEC_H
#define RAWDEC_H

#include <stddef.h>

#include "dice.h"
#include "rawcols.h"
#include "rawread.h"
#include "reference.h"
#include "vjson.h"

#define RX_ABSENT (-0x7fffffffffffffffLL - 1)
#define RX_SLOW_NS 20000000LL   /* FAULTS_SLOW_NS (docs/DESIGN.md 5.9): 20 ms */

enum { RX_TESTER, RX_SERVICE, RX_STORE };

typedef struct {
    long long req;
    long long start[RC_LOOKUPS];
    size_t seq;
} rx_other;

typedef struct {
    long long t0, round, test_rows, requests;   /* requests: run.json's, -1 when unusable */
    double rate, seconds;
    int has_rate, closed;
    char wait;                  /* arm_spec.wait Z F L H; 0: W cannot be drawn (why_nowait) */
    double p;                   /* freeze_share */
    char why_nowait[160];
    const ref_data *ref;
    dc_sched sched;
    /* the tester's rows, by j */
    long long nt, cap;
    long long *sched_t, *answer_t;
    /* the first service row of each req 0 <= req < nt: its aK_start_t */
    long long *astart;
    unsigned char *vseen;
    /* service rows of other reqs, sorted by (req, place) for the stores */
    rx_other *other;
    size_t no, capo;
    int sorted;
    /* docs/DESIGN.md 5.9, slow and slowboth (run.json's fault, read by
     * rx_init): a lookup arriving at store N (bit N - 1 of slow_mask) in
     * [slow_F, slow_U) plans its wait slow_ns longer than the dice say */
    unsigned slow_mask;
    long long slow_F, slow_U, slow_ns;
    int hedge2;                 /* arm_spec.hedge2 1 (rx_init): lookup 1 goes to store 2 */
} rx_run;

typedef struct {
    rr_file f;
    rx_run *x;
    int kind;
    int store;                  /* RX_STORE: 1 store.tsv.gz (rx_open's default), 2 store2.tsv.gz */
    rr_row raw;
    long long tmin;
    long tmin_line;             /* 0: no instant yet */
    const char *tmin_col;
} rx_file;

void rx_init(rx_run *x, const vj_node *rj, long long round, double seconds, long long t0, const ref_data *ref);
void rx_free(rx_run *x);
/* kind RX_TESTER, RX_SERVICE or RX_STORE (store.tsv.gz and store2.tsv.gz) */
int rx_open(rx_file *f, rx_run *x, int kind, const char *path, const unsigned char *gz, size_t gzlen, char *err,
            size_t errlen);
int rx_next(rx_file *f, rr_row *out, char *err, size_t errlen);

void rx_close(rx_file *f);

#endif
