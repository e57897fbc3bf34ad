/* tsv: see tsv.h for the contract and the grammar. */
#include "tsv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Cut s at tabs into f[0..max); how many fields there were (more than max:
 * max + 1, the rest not cut). */
static int split(char *s, char **f, int max)
{
    int n = 0;
    f[n++] = s;
    for (char *p = s; *p; p++)
        if (*p == '\t') {
            if (n == max)
                return max + 1;
            *p = 0;
            f[n++] = p + 1;
        }
    return n;
}

int tsv_read(const tsv_spec *s, tsv_record_fn fn, void *ctx, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    if (s->nfields < 1 || s->nfields > TSV_MAXFIELDS) {
        ut_seterr(err, errlen, "%s: %d fields asked, at most %d", s->path, s->nfields, TSV_MAXFIELDS);
        return -1;
    }
    if (ut_read_file(s->path, &buf, &len, err, errlen) != 0)
        return -1;
    int rc = -1, header = s->header == NULL;
    tsv_at at = {s->path, 0, 0};
    char *f[TSV_MAXFIELDS];
    for (size_t off = 0; off < len;) {
        char *line = buf + off, *nl = memchr(line, '\n', len - off);
        size_t n = nl ? (size_t)(nl - line) : len - off;
        off += n + (nl != NULL);
        at.line++;
        if (!nl && s->final_newline) {
            ut_seterr(err, errlen, "%s:%zu: the last line does not end with a newline", s->path, at.line);
            goto done;
        }
        if (n > 0 && line[n - 1] == '\r')
            n--;
        line[n] = 0;
        if (n > TSV_MAXLINE) {
            ut_seterr(err, errlen, "%s:%zu: line longer than %d bytes", s->path, at.line, TSV_MAXLINE);
            goto done;
        }
        if (strlen(line) != n) {
            ut_seterr(err, errlen, "%s:%zu: a NUL byte in the line", s->path, at.line);
            goto done;
        }
        if (n == 0 || line[0] == '#')
            continue;
        if (!header) {
            if (strcmp(line, s->header) != 0) {
                ut_seterr(err, errlen, "%s:%zu: the header must be \"%s\"", s->path, at.line, s->header);
                goto done;
            }
            header = 1;
            continue;
        }
        int nf = split(line, f, s->nfields);
        if (nf != s->nfields) {
            char names[1024] = ""; /* the header, its tabs shown as spaces */
            if (s->header) {
                snprintf(names, sizeof names, " (%s)", s->header);
                for (char *p = names; *p; p++)
                    if (*p == '\t')
                        *p = ' ';
            }
            ut_seterr(err, errlen, "%s:%zu: %s%d fields, expected %d%s", s->path, at.line,
                      nf > s->nfields ? "more than " : "", nf > s->nfields ? s->nfields : nf, s->nfields, names);
            goto done;
        }
        at.record++;
        if (fn(ctx, f, nf, &at, err, errlen) != 0)
            goto done;
    }
    if (!header) {
        ut_seterr(err, errlen, "%s: no header line (\"%s\")", s->path, s->header);
        goto done;
    }
    rc = 0;
done:
    free(buf);
    return rc;
}

int tsv_field_err(char *err, size_t errlen, const tsv_at *at, const char *field, const char *value,
                  const char *fmt, ...)
{
    if (!err || errlen == 0)
        return -1;
    int k = snprintf(err, errlen, "%s:%zu: field %s \"%s\" ", at->path, at->line, field, value);
    if (k >= 0 && (size_t)k < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}
