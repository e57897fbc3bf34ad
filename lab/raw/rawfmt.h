/* rawfmt: the columns of every raw event file, and their one row reader
 * (the format itself is lab/RAWFORMAT.md; the processes' writer is
 * lab/raw/rawlog.c, the format 4 rewrite and decoder lab/raw/raw4.c).
 *
 * Two sets of tables.  The *logs* (RAWFMT_TESTER, _SERVICE, _STORE): what
 * the processes write during a run, every instant in ns (version 3 of the
 * page: "# lab-raw 3 <kind>"); they live only in the run's temporary
 * folder, and their columns are also the decoded view every reader of a
 * run uses (lab/raw/raw4.h fills them from the published files).  The
 * *published* files: RAWFMT_MACHINE and RAWFMT_EVENTS (written as they are
 * by the tester and the service) and RAWFMT_TESTER4, _SERVICE4, _STORE4
 * (version 4, written by the run driver: offsets in us, '=' scores).
 *
 * The column lists below are the lab side's only copy: the tester, the
 * service and the store write with rawfmt_log_open, lab/raw/raw4.c writes and
 * reads the version 4 files, and collect, demo, the tests and the
 * benchmarks read through lab/raw/raw4.h.  Each line
 * of a list is one column: X(name, type, may be absent, codes), where type
 * is rawlog's 't' time, 'i' integer, 'f' float, 'c' code; "may be absent"
 * is 1 for the columns RAWFORMAT.md allows "-" in; codes lists the
 * characters a code column may hold.  Each list also gives an enum of
 * column indices (RAWFMT_TESTER_answer_t ...) and a count
 * (RAWFMT_TESTER_NCOLS), so adding a column is one line here plus its use.
 * Type 'r' (version 4's score) is a float or "=" (its reference), read as
 * RAWFMT_REF.
 * (verify/ keeps its own copy, written from RAWFORMAT.md.)
 *
 * Values, written and read: one int64 per column, in table order; RAW_NONE
 * for an absent value; times as absolute CLOCK_MONOTONIC ns (the reader
 * undoes the delta encoding); a code as its character; a float as its 32
 * bits (raw_f to write, rawfmt_float to read back).
 *
 * The reader checks everything the page states: a gzip stream whole (a cut
 * stream is an error, not an early end), line 1 "# lab-raw <version> <kind>", line
 * 2 the kind's column names exactly, then per row: the number of fields,
 * each value's syntax (integers through opt_i64: no overflow), a "-" only
 * where allowed, codes from the list, no time sum leaving 64 bits.  An
 * error names the file, the line and the column: "t.tsv.gz:7: column
 * sched_t: \"x\": not an integer".
 *
 * Ownership: rawfmt_open allocates a reader, rawfmt_close frees it;
 * rawfmt_read fills a rawfmt_file whose columns rawfmt_file_free frees.
 * The tables are static and never freed.
 */
#ifndef LAB_RAWFMT_H
#define LAB_RAWFMT_H

#include <stddef.h>
#include <stdint.h>

#include "rawlog.h"

/* tester.tsv.gz: one row per request the schedule planned. */
#define RAWFMT_TESTER_COLS(X)       \
    X(j,           'i', 0, NULL)    \
    X(row,         'i', 0, NULL)    \
    X(sched_t,     't', 0, NULL)    \
    X(send_t,      't', 1, NULL)    \
    X(answer_t,    't', 1, NULL)    \
    X(status,      'i', 0, NULL)    \
    X(kind,        'c', 0, "LKDE")  \
    X(score,       'f', 1, NULL)    \
    X(conn,        'i', 1, NULL)    \
    X(waited,      'i', 0, NULL)

/* service.tsv.gz: one row per HTTP request read.  The aK_ columns of
 * lookup K come in threes, K = 0 .. 4 (the service relies on that). */
#define RAWFMT_SERVICE_COLS(X)      \
    X(req,         'i', 1, NULL)    \
    X(row,         'i', 1, NULL)    \
    X(arrive_t,    't', 0, NULL)    \
    X(answer_t,    't', 1, NULL)    \
    X(status,      'i', 0, NULL)    \
    X(kind,        'c', 0, "LKDE")  \
    X(lookups,     'i', 0, NULL)    \
    X(store,       'i', 0, NULL)    \
    X(a0_start_t,  't', 1, NULL)    \
    X(a0_end_t,    't', 1, NULL)    \
    X(a0_out,      'c', 1, RAWFMT_LOOKUP_CODES) \
    X(a1_start_t,  't', 1, NULL)    \
    X(a1_end_t,    't', 1, NULL)    \
    X(a1_out,      'c', 1, RAWFMT_LOOKUP_CODES) \
    X(a2_start_t,  't', 1, NULL)    \
    X(a2_end_t,    't', 1, NULL)    \
    X(a2_out,      'c', 1, RAWFMT_LOOKUP_CODES) \
    X(a3_start_t,  't', 1, NULL)    \
    X(a3_end_t,    't', 1, NULL)    \
    X(a3_out,      'c', 1, RAWFMT_LOOKUP_CODES) \
    X(a4_start_t,  't', 1, NULL)    \
    X(a4_end_t,    't', 1, NULL)    \
    X(a4_out,      'c', 1, RAWFMT_LOOKUP_CODES)
/* What became of a lookup: see RAWFORMAT.md; R O B Y: tried, not sent. */
#define RAWFMT_LOOKUP_CODES "ATCDXUNROBY"

/* store.tsv.gz: one row per lookup received. */
#define RAWFMT_STORE_COLS(X)        \
    X(req,         'i', 0, NULL)    \
    X(attempt,     'i', 0, NULL)    \
    X(row,         'i', 0, NULL)    \
    X(arrive_t,    't', 0, NULL)    \
    X(start_t,     't', 1, NULL)    \
    X(end_t,       't', 1, NULL)    \
    X(planned_ns,  'i', 0, NULL)    \
    X(budget_ns,   'i', 0, NULL)    \
    X(outcome,     'c', 0, "ADUPENHR")  \
    X(line,        'i', 0, NULL)    \
    X(busy,        'i', 0, NULL)

/* Version 4's tester.tsv.gz, service.tsv.gz, store.tsv.gz (and
 * store2.tsv.gz): offsets in whole us from a base (lab/RAWFORMAT.md). */
#define RAWFMT_TESTER4_COLS(X)      \
    X(send_us,     'i', 1, NULL)    \
    X(answer_us,   'i', 1, NULL)    \
    X(status,      'i', 0, NULL)    \
    X(kind,        'c', 0, "LKDE")  \
    X(score,       'r', 1, NULL)    \
    X(conn,        'i', 1, NULL)    \
    X(waited,      'i', 0, NULL)

#define RAWFMT_SERVICE4_COLS(X)     \
    X(req,         'i', 1, NULL)    \
    X(arrive_us,   'i', 0, NULL)    \
    X(answer_us,   'i', 1, NULL)    \
    X(status,      'i', 0, NULL)    \
    X(kind,        'c', 0, "LKDE")  \
    X(lookups,     'i', 0, NULL)    \
    X(store,       'i', 0, NULL)    \
    X(a0_start_us, 'i', 1, NULL)    \
    X(a0_end_us,   'i', 1, NULL)    \
    X(a0_out,      'c', 1, RAWFMT_LOOKUP_CODES) \
    X(a1_start_us, 'i', 1, NULL)    \
    X(a1_end_us,   'i', 1, NULL)    \
    X(a1_out,      'c', 1, RAWFMT_LOOKUP_CODES) \
    X(a2_start_us, 'i', 1, NULL)    \
    X(a2_end_us,   'i', 1, NULL)    \
    X(a2_out,      'c', 1, RAWFMT_LOOKUP_CODES) \
    X(a3_start_us, 'i', 1, NULL)    \
    X(a3_end_us,   'i', 1, NULL)    \
    X(a3_out,      'c', 1, RAWFMT_LOOKUP_CODES) \
    X(a4_start_us, 'i', 1, NULL)    \
    X(a4_end_us,   'i', 1, NULL)    \
    X(a4_out,      'c', 1, RAWFMT_LOOKUP_CODES)

#define RAWFMT_STORE4_COLS(X)       \
    X(req,         'i', 0, NULL)    \
    X(attempt,     'i', 0, NULL)    \
    X(arrive_us,   'i', 0, NULL)    \
    X(start_us,    'i', 1, NULL)    \
    X(end_us,      'i', 1, NULL)    \
    X(budget_ns,   'i', 0, NULL)    \
    X(outcome,     'c', 0, "ADUPENHR")  \
    X(line,        'i', 0, NULL)    \
    X(busy,        'i', 0, NULL)

/* machine.tsv.gz: per reading of /proc/stat, the whole machine (A) then
 * the measured cores (M). */
#define RAWFMT_MACHINE_COLS(X)      \
    X(t,           't', 0, NULL)    \
    X(scope,       'c', 0, "AM")    \
    X(total,       'i', 0, NULL)    \
    X(idle,        'i', 0, NULL)    \
    X(steal,       'i', 0, NULL)    \
    X(lab,         'i', 0, NULL)

/* events.tsv.gz: the service's own state changes, one row each, in time
 * order: its connections to the store lost (L), a reconnect try refused
 * or failed (F), connected again (C); its circuit breaker opened (O, W,
 * P), half open (H), closed (K). */
#define RAWFMT_EVENTS_COLS(X)       \
    X(t,           't', 0, NULL)    \
    X(what,        'c', 0, "LFCOWPHK")   \
    X(conn,        'i', 0, NULL)    \
    X(tries,       'i', 0, NULL)    \
    X(wait_ns,     'i', 0, NULL)

#define RAWFMT_ENUM_TESTER(name, type, absent, codes) RAWFMT_TESTER_##name,
#define RAWFMT_ENUM_SERVICE(name, type, absent, codes) RAWFMT_SERVICE_##name,
#define RAWFMT_ENUM_STORE(name, type, absent, codes) RAWFMT_STORE_##name,
#define RAWFMT_ENUM_MACHINE(name, type, absent, codes) RAWFMT_MACHINE_##name,
#define RAWFMT_ENUM_EVENTS(name, type, absent, codes) RAWFMT_EVENTS_##name,
#define RAWFMT_ENUM_TESTER4(name, type, absent, codes) RAWFMT_TESTER4_##name,
#define RAWFMT_ENUM_SERVICE4(name, type, absent, codes) RAWFMT_SERVICE4_##name,
#define RAWFMT_ENUM_STORE4(name, type, absent, codes) RAWFMT_STORE4_##name,
enum { RAWFMT_TESTER_COLS(RAWFMT_ENUM_TESTER) RAWFMT_TESTER_NCOLS };
enum { RAWFMT_SERVICE_COLS(RAWFMT_ENUM_SERVICE) RAWFMT_SERVICE_NCOLS };
enum { RAWFMT_STORE_COLS(RAWFMT_ENUM_STORE) RAWFMT_STORE_NCOLS };
enum { RAWFMT_MACHINE_COLS(RAWFMT_ENUM_MACHINE) RAWFMT_MACHINE_NCOLS };
enum { RAWFMT_EVENTS_COLS(RAWFMT_ENUM_EVENTS) RAWFMT_EVENTS_NCOLS };
enum { RAWFMT_TESTER4_COLS(RAWFMT_ENUM_TESTER4) RAWFMT_TESTER4_NCOLS };
enum { RAWFMT_SERVICE4_COLS(RAWFMT_ENUM_SERVICE4) RAWFMT_SERVICE4_NCOLS };
enum { RAWFMT_STORE4_COLS(RAWFMT_ENUM_STORE4) RAWFMT_STORE4_NCOLS };

/* A score "=" of version 4: its reference (lab/raw/raw4.c looks it up). */
#define RAWFMT_REF (INT64_MIN + 1)

typedef enum {
    RAWFMT_ANY = -1,
    RAWFMT_TESTER,
    RAWFMT_SERVICE,
    RAWFMT_STORE,
    RAWFMT_MACHINE,
    RAWFMT_EVENTS,
    RAWFMT_TESTER4,
    RAWFMT_SERVICE4,
    RAWFMT_STORE4,
    RAWFMT_NKINDS
} rawfmt_kind;

typedef struct {
    const char *name;
    char type;         /* 't', 'i', 'f', 'c', 'r' */
    int absent_ok;     /* "-" allowed */
    const char *codes; /* 'c' columns: the characters allowed; else NULL */
} rawfmt_col;

typedef struct {
    rawfmt_kind kind;
    const char *name;        /* "tester": line 1's word, and the file "tester.tsv.gz" */
    const char *version;     /* line 1's version: "3" a process's log, "4" published */
    const rawfmt_col *cols;
    const raw_col *log_cols; /* the same columns, as rawlog_open takes them (NULL: not a log) */
    int ncols;
} rawfmt_table;

const rawfmt_table *rawfmt_table_of(rawfmt_kind kind);
/* The index of column `name`, or -1. */
int rawfmt_col_index(const rawfmt_table *t, const char *name);

/* rawlog_open with the kind's columns and version (the logs, machine and
 * events: the kinds rawlog can write). */
int rawfmt_log_open(rawlog **out, const char *path, rawfmt_kind kind, char *err, size_t errlen);

/* Row by row.  kind RAWFMT_ANY takes whichever kind line 1 names. */
typedef struct rawfmt_reader rawfmt_reader;
int rawfmt_open(rawfmt_reader **out, const char *path, rawfmt_kind kind, char *err, size_t errlen);
/* The next row into v[ncols]: 1 a row, 0 the end of the file, -1 an error
 * (message in err; the reader is then only good for rawfmt_close). */
int rawfmt_next(rawfmt_reader *r, int64_t *v, char *err, size_t errlen);
const rawfmt_table *rawfmt_reader_table(const rawfmt_reader *r);
long rawfmt_line(const rawfmt_reader *r); /* line of the last row read (3 for the first) */
void rawfmt_close(rawfmt_reader *r);

/* A whole file, column by column: col[c][i] is column c of row i. */
typedef struct {
    const rawfmt_table *t;
    size_t n;
    int64_t *col[RAW_MAXCOLS];
} rawfmt_file;
int rawfmt_read(const char *path, rawfmt_kind kind, rawfmt_file *out, char *err, size_t errlen);
void rawfmt_file_free(rawfmt_file *f);

/* A float column's value (its bits) back to the float. */
static inline float rawfmt_float(int64_t bits)
{
    union { uint32_t u; float f; } c = {.u = (uint32_t)bits};
    return c.f;
}

#endif
