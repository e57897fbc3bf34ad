/* rawread: a small reader of the raw event files for the tests, written
 * from lab/RAWFORMAT.md (not from lab/rawlog.c).  Each column comes back as
 * int64 values (time columns decoded, codes as their character, floats as
 * their bits); RR_NONE marks an absent value.  Header-only, test use. */
#ifndef TESTS_RAWREAD_H
#define TESTS_RAWREAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define RR_NONE INT64_MIN
#define RR_MAXC 32

typedef struct {
    int ncols;
    char names[RR_MAXC][48];
    size_t n;
    int64_t *v[RR_MAXC];
    char kind[32];
} rr_file;

static inline int rr_col(const rr_file *f, const char *name)
{
    for (int i = 0; i < f->ncols; i++)
        if (!strcmp(f->names[i], name))
            return i;
    return -1;
}

static inline int64_t rr_get(const rr_file *f, const char *name, size_t row)
{
    int c = rr_col(f, name);
    return c < 0 || row >= f->n ? RR_NONE : f->v[c][row];
}

static inline float rr_float(int64_t bits)
{
    union { uint32_t u; float f; } c = {.u = (uint32_t)bits};
    return c.f;
}

static inline void rr_free(rr_file *f)
{
    for (int i = 0; i < f->ncols; i++)
        free(f->v[i]);
    memset(f, 0, sizeof *f);
}

/* 0, or -1 on any malformed input. */
static inline int rr_read(const char *path, rr_file *f)
{
    memset(f, 0, sizeof *f);
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return -1;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int n;
    while ((n = gzread(gz, buf + len, (unsigned)(cap - len - 1))) > 0) {
        len += (size_t)n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    int bad = n < 0;
    gzclose(gz);
    buf[len] = 0;
    if (bad)
        goto fail;
    char *line = buf, *nl = strchr(line, '\n');
    if (!nl || sscanf(line, "# lab-raw 1 %31s", f->kind) != 1)
        goto fail;
    line = nl + 1;
    nl = strchr(line, '\n');
    if (!nl)
        goto fail;
    *nl = 0;
    for (char *tok = strtok(line, "\t"); tok; tok = strtok(NULL, "\t")) {
        if (f->ncols == RR_MAXC)
            goto fail;
        snprintf(f->names[f->ncols++], 48, "%s", tok);
    }
    size_t rows = 0;
    for (char *p = nl + 1; *p; p++)
        rows += *p == '\n';
    for (int c = 0; c < f->ncols; c++)
        f->v[c] = malloc((rows + 1) * sizeof(int64_t));
    int64_t acc[RR_MAXC] = {0};
    line = nl + 1;
    while (*line) {
        nl = strchr(line, '\n');
        if (!nl)
            goto fail;
        *nl = 0;
        char *p = line;
        for (int c = 0; c < f->ncols; c++) {
            char *end = strchr(p, c + 1 < f->ncols ? '\t' : '\0');
            if (!end)
                goto fail;
            *end = 0;
            size_t nlen = strlen(f->names[c]);
            int is_time = nlen > 2 && !strcmp(f->names[c] + nlen - 2, "_t");
            int64_t val;
            if (!strcmp(p, "-"))
                val = RR_NONE;
            else if (!strcmp(f->names[c], "score")) {
                union { float x; uint32_t u; } cv = {.x = strtof(p, NULL)};
                val = cv.u;
            } else if (strlen(p) == 1 && (p[0] < '0' || p[0] > '9'))
                val = p[0];
            else {
                char *e;
                val = strtoll(p, &e, 10);
                if (*e)
                    goto fail;
                if (is_time) {
                    acc[c] += val;
                    val = acc[c];
                }
            }
            f->v[c][f->n] = val;
            p = end + 1;
        }
        f->n++;
        line = nl + 1;
    }
    free(buf);
    return 0;
fail:
    free(buf);
    rr_free(f);
    return -1;
}

#endif
