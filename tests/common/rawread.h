/* rawread: the tests' and benchmarks' view of a raw event file, columns by
 * name: a thin wrapper over lab/raw/rawfmt.c's checked reader and lab/raw/raw4.c's
 * decoder (the format is lab/RAWFORMAT.md).  A process's own log (version
 * 3) is read as it is; a published tester, service or store file (version
 * 4) is decoded with the rest of its run folder (run.json, the reference of
 * build/prep), into the log's columns.  Each column comes back as int64
 * values (times as absolute ns, codes as their character, floats as their
 * bits); RR_NONE marks an absent value.  Header-only; rr_free frees what
 * rr_read allocated. */
#ifndef TESTS_RAWREAD_H
#define TESTS_RAWREAD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "raw4.h"

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
    rawfmt_kind k = f->f.t->kind;
    if (k == RAWFMT_TESTER4 || k == RAWFMT_SERVICE4 || k == RAWFMT_STORE4) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/'), *base = slash ? slash + 1 : dir;
        int which = !strcmp(base, "tester.tsv.gz")    ? RAW4_TESTER
                    : !strcmp(base, "service.tsv.gz") ? RAW4_SERVICE
                    : !strcmp(base, "store.tsv.gz")   ? RAW4_STORE
                    : !strcmp(base, "store2.tsv.gz")  ? RAW4_STORE2
                                                      : -1;
        if (slash)
            *slash = 0;
        else
            snprintf(dir, sizeof dir, ".");
        rawfmt_file_free(&f->f);
        raw4_run run;
        if (which < 0 || raw4_read_run(dir, "build/prep", &run, err, sizeof err) != 0) {
            fprintf(stderr, "rr_read: %s\n", which < 0 ? "a version 4 file not named as in its run folder" : err);
            return -1;
        }
        f->f = run.f[which];
        memset(&run.f[which], 0, sizeof run.f[which]);
        raw4_run_free(&run);
    }
    f->kind = f->f.t->name;
    f->ncols = f->f.t->ncols;
    f->n = f->f.n;
    memcpy(f->v, f->f.col, sizeof f->v);
    return 0;
}

#endif
