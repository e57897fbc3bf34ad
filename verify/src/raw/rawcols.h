/* rawcols: the columns of the five kinds of event file, exactly as
 * lab/RAWFORMAT.md (version 4) lists them (store2.tsv.gz has the store's):
 * name, type, whether "-" is allowed, the codes of a code column, whether
 * "=" is allowed; shared by every reader in the verifier.  Constant data
 * only.
 *
 * Two layouts.  The files' own columns (format 4, what rr_open checks and
 * rr_next yields) are TW_* (tester), VW_* (service), SW_* (store), E_*
 * and M_*.  The rows the checks and figures work on are the *decoded*
 * rows rawdec.h makes of the first three: T_*, V_*, S_*, every instant an
 * absolute ns of CLOCK_MONOTONIC (the names ending in _t), with the values
 * format 4 leaves out filled in (j, row, sched_t, planned_ns). */
#ifndef VERIFY_RAWCOLS_H
#define VERIFY_RAWCOLS_H

#include "rawread.h"

/* the decoded rows (rawdec.h) */
enum { T_J, T_ROW, T_SCHED, T_SEND, T_ANSWER, T_STATUS, T_KIND, T_SCORE, T_CONN, T_WAITED, T_NCOL };
enum { V_REQ, V_ROW, V_ARRIVE, V_ANSWER, V_STATUS, V_KIND, V_LOOKUPS, V_STORE, V_A0S, V_A0E, V_A0O,
       V_A1S, V_A1E, V_A1O, V_A2S, V_A2E, V_A2O, V_A3S, V_A3E, V_A3O, V_A4S, V_A4E, V_A4O, V_NCOL };
/* the lookups of a service row: aK_start_t, aK_end_t, aK_out at V_A0S + 3 K, K < RC_LOOKUPS */
#define RC_LOOKUPS 5
enum { S_REQ, S_ATTEMPT, S_ROW, S_ARRIVE, S_START, S_END, S_PLANNED, S_BUDGET, S_OUTCOME, S_LINE,
       S_BUSY, S_NCOL };

/* the files' columns, format 4 */
enum { TW_SEND, TW_ANSWER, TW_STATUS, TW_KIND, TW_SCORE, TW_CONN, TW_WAITED, TW_NCOL };
enum { VW_REQ, VW_ARRIVE, VW_ANSWER, VW_STATUS, VW_KIND, VW_LOOKUPS, VW_STORE, VW_A0S, VW_NCOL = VW_A0S + 15 };
enum { SW_REQ, SW_ATTEMPT, SW_ARRIVE, SW_START, SW_END, SW_BUDGET, SW_OUTCOME, SW_LINE, SW_BUSY, SW_NCOL };
enum { E_T, E_WHAT, E_CONN, E_TRIES, E_WAIT, E_NCOL };
enum { M_T, M_SCOPE, M_TOTAL, M_IDLE, M_STEAL, M_LAB, M_NCOL };

/* the codes, in RAWFORMAT.md's order (also the order of the count objects
 * store_outcomes and lookup_ends of RESULTS.md) */
#define RC_KINDS "LKDE"
#define RC_LOOKUP_OUTS "ATCDUNXROBY"
/* of those, the lookups tried but not sent (no connection, breaker, compartment, budget) */
#define RC_NOT_SENT "ROBY"
#define RC_STORE_OUTCOMES "ADUENHRP"
#define RC_EVENTS "LFCOWPHK"
/* of those, the circuit breaker's rows (conn -1) */
#define RC_BREAKER "OWPHK"
#define RC_SCOPES "AM"

/* the files' columns (format 4) */
extern const rr_col tester_cols[TW_NCOL];
extern const rr_col service_cols[VW_NCOL];
extern const rr_col store_cols[SW_NCOL];
extern const rr_col events_cols[E_NCOL];
extern const rr_col machine_cols[M_NCOL];

/* the names of the decoded rows' columns, for messages */
extern const char *const tester_dec_names[T_NCOL];
extern const char *const service_dec_names[V_NCOL];
extern const char *const store_dec_names[S_NCOL];

#endif
