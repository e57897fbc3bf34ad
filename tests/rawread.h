/* rawread: the tests' and benchmarks' view of a raw event file, columns by
 * name: a thin wrapper over lab/rawfmt.c's checked reader (the format is
 * lab/RAWFORMAT.md).  Each column comes back as int64 values (times
 * decoded, codes as their character, floats as their bits); RR_NONE marks
 * an absent value.  Header-only; rr_free frees what rr_read allocated. */
#ifndef TESTS_RAWREAD_H
#define TESTS_RAWREAD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rawfmt.h"

#define RR_NONE RAW_NONE

typedef struct {
    rawfmt_file f;
    const char *kind; /* "tester", "service" or "store" (line 1 of the file) */
    int ncols;
    size_t n;                /* rows */
    int64_t *v[RAW_MAXCOLS]; /* v[c][i]: column c of row i (f's arrays) */
} rr_file;

static inline int rr_col(const rr_file *f, const char *name) { return rawfmt_col_index(f->f.t, name); }

static inline int64_t rr_get(const rr_file *f, const char *name, size_t row)
{
    int c = rr_col(f, name);
    return c < 0 || row >= f->n ? RR_NONE : f->v[c][row];
}

static inline float rr_float(int64_t bits) { return rawfmt_float(bits); }

static inline void rr_free(rr_file *f)
{
    rawfmt_file_free(&f->f);
    memset(f, 0, sizeof *f);
}

/* 0, or -1 on any malformed input (the reason, naming file and line, on
 * stderr).  Any of the three kinds: the one line 1 names. */
static inline int rr_read(const char *path, rr_file *f)
{
    char err[512];
    memset(f, 0, sizeof *f);
    if (rawfmt_read(path, RAWFMT_ANY, &f->f, err, sizeof err) != 0) {
        fprintf(stderr, "rr_read: %s\n", err);
        return -1;
    }
    f->kind = f->f.t->name;
    f->ncols = f->f.t->ncols;
    f->n = f->f.n;
    memcpy(f->v, f->f.col, sizeof f->v);
    return 0;
}

#endif
