/* rawlog: the raw event files (the exact format is lab/RAWFORMAT.md).
 *
 * A file is a gzip stream of text: a first line "# lab-raw <version> <kind>", a
 * header line of tab-separated column names, then one tab-separated row per
 * event.  Column types: 't' time (integer ns of CLOCK_MONOTONIC: the first
 * present value of the column is written whole, each later one as the
 * difference from the column's previous present value), 'i' integer, 'f'
 * float (%.9g, round-trips), 'c' one character.  An absent value is "-".
 *
 * During a run rows cost almost nothing: rawlog_row copies one fixed-size
 * binary record into a 1 MiB buffer, spilled to "<path>.spill.<pid>" when
 * full (so memory stays small however long the run).  rawlog_close turns
 * the records into the gzip text file "<path>" atomically and removes the
 * spill; rawlog_abort removes everything.
 *
 * Ownership: rawlog_open allocates; rawlog_close / rawlog_abort free.
 */
#ifndef LAB_RAWLOG_H
#define LAB_RAWLOG_H

#include <stddef.h>
#include <stdint.h>

#define RAW_NONE INT64_MIN /* an absent value */
#define RAW_MAXCOLS 32

typedef struct {
    const char *name;
    char type; /* 't', 'i', 'f', 'c' */
} raw_col;

typedef struct rawlog rawlog;

/* version and kind: line 1's words (lab/raw/rawfmt.h's tables give them). */
int rawlog_open(rawlog **out, const char *path, const char *version, const char *kind, const raw_col *cols,
                int ncols, char *err, size_t errlen);
/* vals[ncols]: for 'f' columns pass raw_f(x); for 'c' the character. */
int rawlog_row(rawlog *r, const int64_t *vals);
int rawlog_close(rawlog *r, char *err, size_t errlen);
void rawlog_abort(rawlog *r);
size_t rawlog_rows(const rawlog *r);

static inline int64_t raw_f(float x)
{
    union { float f; uint32_t u; } c = {.f = x};
    return (int64_t)c.u;
}

#endif
