/* flood: a run's floods, freezes and false timeouts, written from
 * pipeline/RESULTS.md ("runs.<run>": missed_seconds, flooded,
 * flood_from_s, drained, longest_line, freezes, freeze_share,
 * false_timeouts, healthy_timeouts, healthy_timeout_share) and
 * lab/RAWFORMAT.md (store.tsv.gz's planned_ns and
 * line; service.tsv.gz's store column and aK_ triples).
 *
 * Contract:
 *   - fl_seconds judges the per-second counts: a second is missed when
 *     arrivals >= 1 and 2 (standins + errors) > arrivals; a flood is
 *     N = min(3, nsec) missed seconds in a row (nsec = ceil(seconds), the
 *     entries of per_second).  Pure: it reads the arrays, fills *out.
 *   - an fl_acc is filled while runfig reads the files: fl_service_row
 *     for every row of service.tsv.gz (before any store row), then
 *     fl_store_row for every row of store.tsv.gz (store 1) and
 *     store2.tsv.gz (store 2).  fl_acc_free releases it (fl_acc_init
 *     zeroes it; nothing else to allocate).
 * A timed-out lookup (aK_out T) counts as a false timeout when the first
 * row of S with its req and attempt = K, in the file of its store (the
 * row's store, but store 2 for lookup 1 of an arm with hedge2 1: RESULTS.md,
 * "Its *store*"),
 * has planned_ns < aK_end_t - aK_start_t; without such a row it does not
 * count.  The same lookup, joined to the same first row, counts as a
 * healthy timeout when that row's planned_ns < 1e9 (not a freeze); the
 * share's denominator is the rows of S with planned_ns < 1e9 (both
 * stores).  Nothing here reads a file or records a mismatch.
 */
#ifndef FLOOD_H
#define FLOOD_H

#include <stddef.h>

#include "rawread.h"

#define FL_FREEZE_NS 1000000000LL   /* a drawn wait of 1 s or more is a freeze */

typedef struct {
    long long missed;       /* missed_seconds */
    int flooded;            /* 1: N missed seconds in a row */
    int from_s;             /* flood_from_s (when flooded) */
    int drained;            /* when flooded: 1 when the last second is not missed */
} fl_flood;

void fl_seconds(const long long *arrivals, const long long *standins, const long long *errors, int nsec,
                fl_flood *out);

typedef struct {
    long long req, waited;  /* a timed-out lookup: its request, aK_end_t - aK_start_t */
    int attempt, store;
    int matched;            /* 1 once its first row of S has been seen */
} fl_timeout;

typedef struct {
    fl_timeout *t;
    size_t nt, cap;
    int sorted;
    int hedge2;             /* arm_spec.hedge2 (0 without it): set after fl_acc_init, before the service's rows */
    long long rows;         /* rows of S */
    long long freezes;      /* rows of S with planned_ns >= 1e9 */
    long long longest_line; /* the largest line of S (0 when empty) */
    long long false_timeouts;
    long long healthy_rows;     /* rows of S with planned_ns < 1e9 */
    long long healthy_timeouts; /* T lookups whose first row of S has planned_ns < 1e9 */
} fl_acc;

void fl_acc_init(fl_acc *a);
void fl_acc_free(fl_acc *a);
/* one row of service.tsv.gz (columns of rawcols.h) */
void fl_service_row(fl_acc *a, const rr_row *row);
/* one row of store.tsv.gz (store 1) or store2.tsv.gz (store 2) */
void fl_store_row(fl_acc *a, const rr_row *row, int store);

#endif
