/* rawlog: see rawlog.h and lab/RAWFORMAT.md. */
#include "rawlog.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "util.h"

#define BUF_BYTES (1u << 20)

struct rawlog {
    char path[4096], spill[4200], kind[32], version[8];
    raw_col cols[RAW_MAXCOLS];
    char names[RAW_MAXCOLS][48];
    int ncols;
    int64_t *buf;       /* records not yet spilled */
    size_t nbuf, capbuf; /* in records */
    FILE *sp;           /* spill file, opened on first spill */
    size_t rows;
    int failed;
};

int rawlog_open(rawlog **out, const char *path, const char *version, const char *kind, const raw_col *cols,
                int ncols, char *err, size_t errlen)
{
    *out = NULL;
    if (ncols < 1 || ncols > RAW_MAXCOLS) {
        ut_seterr(err, errlen, "%s: %d columns (1 to %d allowed)", path, ncols, RAW_MAXCOLS);
        return -1;
    }
    rawlog *r = calloc(1, sizeof *r);
    if (!r) {
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(r->path, sizeof r->path, "%s", path);
    snprintf(r->spill, sizeof r->spill, "%s.spill.%ld", path, (long)getpid());
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    snprintf(r->version, sizeof r->version, "%s", version);
    r->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        snprintf(r->names[i], sizeof r->names[i], "%s", cols[i].name);
        r->cols[i].name = r->names[i];
        r->cols[i].type = cols[i].type;
        if (!strchr("tifc", cols[i].type)) {
            ut_seterr(err, errlen, "%s: column %s has unknown type '%c'", path, cols[i].name,
                      cols[i].type);
            free(r);
            return -1;
        }
    }
    r->capbuf = BUF_BYTES / (sizeof(int64_t) * (size_t)ncols);
    r->buf = malloc(r->capbuf * sizeof(int64_t) * (size_t)ncols);
    if (!r->buf) {
        free(r);
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    *out = r;
    return 0;
}

static int spill(rawlog *r)
{
    if (r->nbuf == 0)
        return 0;
    if (!r->sp) {
        r->sp = fopen(r->spill, "w+b");
        if (!r->sp)
            return -1;
    }
    size_t n = r->nbuf * (size_t)r->ncols;
    if (fwrite(r->buf, sizeof(int64_t), n, r->sp) != n)
        return -1;
    r->nbuf = 0;
    return 0;
}

int rawlog_row(rawlog *r, const int64_t *vals)
{
    if (r->nbuf == r->capbuf && spill(r) != 0) {
        r->failed = 1;
        return -1;
    }
    assert(r->nbuf < r->capbuf);
    memcpy(r->buf + r->nbuf * (size_t)r->ncols, vals, sizeof(int64_t) * (size_t)r->ncols);
    r->nbuf++;
    r->rows++;
    return 0;
}

size_t rawlog_rows(const rawlog *r) { return r->rows; }

static char *put_row(rawlog *r, char *p, const int64_t *v, int64_t *prev, int *have)
{
    for (int c = 0; c < r->ncols; c++) {
        if (c)
            *p++ = '\t';
        if (v[c] == RAW_NONE) {
            *p++ = '-';
            continue;
        }
        switch (r->cols[c].type) {
        case 't':
            p += ut_put_i64(p, have[c] ? v[c] - prev[c] : v[c]);
            prev[c] = v[c];
            have[c] = 1;
            break;
        case 'i':
            p += ut_put_i64(p, v[c]);
            break;
        case 'f': {
            assert(v[c] >= 0 && v[c] <= UINT32_MAX); /* a float's 32 bits (raw_f) */
            union { uint32_t u; float f; } cv = {.u = (uint32_t)v[c]};
            p += sprintf(p, "%.9g", (double)cv.f);
            break;
        }
        case 'c':
            /* a code is one printable character: a tab or a newline would break the row */
            assert(v[c] > ' ' && v[c] < 127);
            *p++ = (char)v[c];
            break;
        }
    }
    *p++ = '\n';
    return p;
}

int rawlog_close(rawlog *r, char *err, size_t errlen)
{
    int rc = -1;
    char tmp[4200];
    gzFile gz = NULL;
    char *line = NULL;
    int64_t prev[RAW_MAXCOLS] = {0};
    int have[RAW_MAXCOLS] = {0};
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", r->path, (long)getpid());
    if (r->failed) {
        ut_seterr(err, errlen, "%s: could not spill events to %s", r->path, r->spill);
        goto done;
    }
    gz = gzopen(tmp, "wb6");
    line = malloc((size_t)r->ncols * 32 + 2);
    if (!gz || !line) {
        ut_seterr(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        goto done;
    }
    gzbuffer(gz, 1 << 18);
    gzprintf(gz, "# lab-raw %s %s\n", r->version, r->kind);
    for (int c = 0; c < r->ncols; c++)
        gzprintf(gz, "%s%s", c ? "\t" : "", r->cols[c].name);
    gzputc(gz, '\n');
    if (r->sp) { /* the spilled records first, in order */
        if (fflush(r->sp) != 0 || fseek(r->sp, 0, SEEK_SET) != 0)
            goto ioerr;
        int64_t *v = malloc(sizeof(int64_t) * (size_t)r->ncols);
        if (!v)
            goto ioerr;
        while (fread(v, sizeof(int64_t), (size_t)r->ncols, r->sp) == (size_t)r->ncols) {
            char *e = put_row(r, line, v, prev, have);
            if (gzwrite(gz, line, (unsigned)(e - line)) <= 0) {
                free(v);
                goto ioerr;
            }
        }
        free(v);
    }
    for (size_t i = 0; i < r->nbuf; i++) {
        char *e = put_row(r, line, r->buf + i * (size_t)r->ncols, prev, have);
        if (gzwrite(gz, line, (unsigned)(e - line)) <= 0)
            goto ioerr;
    }
    int zrc = gzclose(gz);
    gz = NULL;
    if (zrc != Z_OK)
        goto ioerr;
    if (rename(tmp, r->path) != 0)
        goto ioerr;
    rc = 0;
    goto done;
ioerr:
    ut_seterr(err, errlen, "%s: write failed: %s", r->path, strerror(errno));
done:
    if (gz)
        gzclose(gz);
    if (rc != 0)
        unlink(tmp);
    free(line);
    rawlog_abort(r);
    return rc;
}

void rawlog_abort(rawlog *r)
{
    if (!r)
        return;
    if (r->sp) {
        fclose(r->sp);
        unlink(r->spill);
    }
    free(r->buf);
    free(r);
}
