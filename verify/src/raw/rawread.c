/* rawread: reading the lab's event files fast; see rawread.h. */
#include "rawread.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vgz.h"
#include "vnum.h"
#include "vutil.h"

/* the first buffer; RR_CHUNK lets the fuzz build start tiny, so that its
 * short inputs reach the growing and refilling paths */
#ifndef RR_CHUNK
#define RR_CHUNK (4u << 20)
#endif
#define CHUNK RR_CHUNK

/* Inflate more bytes into f->buf[end..cap).  1 when bytes came, 0 at the end
 * of the stream, -1 on error. */
static int fill(rr_file *f, char *err, size_t errlen)
{
    if (f->zdone)
        return 0;
    for (;;) {
        f->zs.next_out = (Bytef *)f->buf + f->end;
        f->zs.avail_out = (uInt)(f->cap - f->end);
        int r = inflate(&f->zs, Z_NO_FLUSH);
        size_t got = (f->cap - f->end) - f->zs.avail_out;
        f->end += got;
        if (r == Z_STREAM_END) {
            if (f->zs.avail_in > 0) {
                /* another gzip member follows (zcat reads them all) */
                if (f->zs.avail_in >= 2 && f->zs.next_in[0] == 0x1f && f->zs.next_in[1] == 0x8b) {
                    inflateReset(&f->zs);
                    if (got)
                        return 1;
                    continue;
                }
                snprintf(err, errlen, "%s: bytes after the end of the gzip stream", f->path);
                return -1;
            }
            f->zdone = 1;
            return got ? 1 : 0;
        }
        if (r == Z_OK) {
            if (got)
                return 1;
            continue;
        }
        if (r == Z_BUF_ERROR && f->zs.avail_in == 0) {
            snprintf(err, errlen, "%s: gzip stream truncated (after line %ld)", f->path, f->line);
            return -1;
        }
        snprintf(err, errlen, "%s: gzip stream damaged near line %ld: %s", f->path, f->line,
                 f->zs.msg ? f->zs.msg : "inflate error");
        return -1;
    }
}

/* Next line without its "\n", NUL-terminated in place.  1, 0 at end, -1 error */
static int next_line(rr_file *f, char **line, size_t *len, char *err, size_t errlen)
{
    for (;;) {
        char *s = f->buf + f->beg;
        char *nl = memchr(s, '\n', f->end - f->beg);
        if (nl) {
            *nl = 0;
            *line = s;
            *len = (size_t)(nl - s);
            f->beg = (size_t)(nl - f->buf) + 1;
            f->line++;
            return 1;
        }
        /* keep the partial line, make room */
        if (f->beg > 0) {
            memmove(f->buf, f->buf + f->beg, f->end - f->beg);
            f->end -= f->beg;
            f->beg = 0;
        }
        if (f->end + 1 >= f->cap) {
            f->cap *= 2;
            f->buf = vu_xrealloc(f->buf, f->cap);
        }
        int r = fill(f, err, errlen);
        if (r < 0)
            return -1;
        if (r == 0) {
            if (f->end > f->beg) {
                snprintf(err, errlen, "%s:%ld: the last line does not end in a newline", f->path,
                         f->line + 1);
                return -1;
            }
            return 0;
        }
    }
}

int rr_open(rr_file *f, const char *path, const unsigned char *gz, size_t gzlen, const char *kind,
            const rr_col *cols, int ncol, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    f->gz = gz;
    f->gzlen = gzlen;
    f->cols = cols;
    f->ncol = ncol;
    if (gzlen < 2 || gz[0] != 0x1f || gz[1] != 0x8b) {
        snprintf(err, errlen, "%s: not a gzip file", path);
        return -1;
    }
    unsigned char *whole;
    size_t wn;
    if (gzlen <= 0xFFFFFFFFu && vgz_whole(gz, gzlen, 0, 0, &whole, &wn, NULL, NULL) == 0) {
        /* inflated whole at once (vgz.h): the lines are read from it, nothing more to inflate */
        f->buf = (char *)whole;
        f->cap = wn + 1;
        f->end = wn;
        f->zdone = 1;
    } else {
        /* chunk by chunk with zlib, whose messages say what is wrong with the stream */
        if (inflateInit2(&f->zs, 16 + MAX_WBITS) != Z_OK) {
            snprintf(err, errlen, "%s: cannot start zlib", path);
            return -1;
        }
        f->zinit = 1;
        if (gzlen > 0xFFFFFFFFu) {
            snprintf(err, errlen, "%s: file too large", path);
            return -1;
        }
        f->zs.next_in = (Bytef *)gz;
        f->zs.avail_in = (uInt)gzlen;
        f->cap = CHUNK;
        f->buf = vu_xmalloc(f->cap);
    }
    char *line;
    size_t len;
    int r = next_line(f, &line, &len, err, errlen);
    if (r <= 0) {
        if (r == 0)
            snprintf(err, errlen, "%s:1: empty file (no header)", path);
        return -1;
    }
    char want[64];
    snprintf(want, sizeof want, "# lab-raw %d %s", RR_VERSION, kind);
    if (strcmp(line, want) != 0) {
        /* another version is refused, not guessed at: version 1 had fewer
         * codes and no events file; version 2 three lookups per request, no
         * store column, no second store, no breaker rows; version 3 every
         * column, times in ns deltas (RAWFORMAT.md) */
        int other = !strncmp(line, "# lab-raw ", 10) && strncmp(line + 10, want + 10, 2) != 0;
        int v2 = !strncmp(line, "# lab-raw 2 ", 12), v3 = !strncmp(line, "# lab-raw 3 ", 12);
        snprintf(err, errlen, "%s:1: first line is \"%.80s\", expected \"%s\"%s", path, line, want,
                 v2      ? " (this reader reads raw format version 4 only; version 2, before the defences, is "
                           "refused)"
                 : v3    ? " (this reader reads raw format version 4 only; version 3, every column in ns, is refused)"
                 : other ? " (this reader reads raw format version 4 only)"
                         : "");
        return -1;
    }
    r = next_line(f, &line, &len, err, errlen);
    if (r <= 0) {
        if (r == 0)
            snprintf(err, errlen, "%s:2: no column names", path);
        return -1;
    }
    char *p = line;
    for (int k = 0; k < ncol; k++) {
        char *tab = strchr(p, '\t');
        size_t l = tab ? (size_t)(tab - p) : strlen(p);
        if (l != strlen(cols[k].name) || memcmp(p, cols[k].name, l) != 0 || (k < ncol - 1 && !tab) ||
            (k == ncol - 1 && tab)) {
            snprintf(err, errlen, "%s:2: column %d is \"%.*s\", expected \"%s\" (the columns are fixed by RAWFORMAT.md)",
                     path, k + 1, (int)(l > 60 ? 60 : l), p, cols[k].name);
            return -1;
        }
        p = tab ? tab + 1 : p + l;
    }
    return 0;
}

int rr_next(rr_file *f, rr_row *row, char *err, size_t errlen)
{
    char *line;
    size_t len;
    int r = next_line(f, &line, &len, err, errlen);
    if (r <= 0)
        return r;
    char *p = line, *end = line + len;
    for (int k = 0; k < f->ncol; k++) {
        char *q = p;
        while (q < end && *q != '\t')
            q++;
        if (k < f->ncol - 1 && q == end) {
            snprintf(err, errlen, "%s:%ld: %d fields, expected %d", f->path, f->line, k + 1, f->ncol);
            return -1;
        }
        if (k == f->ncol - 1 && q != end) {
            int n = f->ncol;
            for (char *z = q; z < end; z++)
                n += (*z == '\t');
            snprintf(err, errlen, "%s:%ld: %d fields, expected %d", f->path, f->line, n, f->ncol);
            return -1;
        }
        *q = 0;
        size_t l = (size_t)(q - p);
        row->text[k] = p;
        const rr_col *c = &f->cols[k];
        if (l == 0) {
            snprintf(err, errlen, "%s:%ld: field %s is empty", f->path, f->line, c->name);
            return -1;
        }
        if (l == 1 && p[0] == '=' && c->eq) {
            row->has[k] = 2;
            row->f[k] = 0;
        } else if (l == 1 && p[0] == '-') {
            if (!c->optional) {
                snprintf(err, errlen, "%s:%ld: field %s is absent (-), which RAWFORMAT.md does not allow",
                         f->path, f->line, c->name);
                return -1;
            }
            row->has[k] = 0;
        } else {
            row->has[k] = 1;
            switch (c->type) {
            case RR_INT:
            case RR_OFFSET:
            case RR_TIME: {
                long long v;
                int bad = vn_i64(p, l, LLONG_MIN, LLONG_MAX, &v);
                if (bad) {
                    snprintf(err, errlen, "%s:%ld: field %s \"%.40s\" %s", f->path, f->line, c->name, p,
                             bad == VN_RANGE ? "is beyond 64 bits (-2^63 to 2^63-1)" : "is not an integer");
                    return -1;
                }
                if (c->type == RR_TIME) {
                    if (f->tseen[k]) {
                        if (__builtin_add_overflow(f->tsum[k], v, &v)) {
                            snprintf(err, errlen, "%s:%ld: field %s overflows when decoded", f->path,
                                     f->line, c->name);
                            return -1;
                        }
                    }
                    f->tsum[k] = v;
                    f->tseen[k] = 1;
                    if (!f->tmin_line || v < f->tmin) {
                        f->tmin = v;
                        f->tmin_line = f->line;
                        f->tmin_col = k;
                    }
                }
                row->v[k] = v;
                break;
            }
            case RR_FLOAT: {
                float x;
                int bad = vn_f32(p, l, &x);
                if (bad) {
                    snprintf(err, errlen, "%s:%ld: field %s \"%.40s\" %s", f->path, f->line, c->name, p,
                             bad == VN_RANGE ? "is beyond a 32-bit float's range" : "is not a number");
                    return -1;
                }
                row->f[k] = x;
                break;
            }
            case RR_CODE:
                if (l != 1) {
                    snprintf(err, errlen, "%s:%ld: field %s \"%.40s\" is not a one-character code",
                             f->path, f->line, c->name, p);
                    return -1;
                }
                if (c->codes && (p[0] == 0 || !strchr(c->codes, p[0]))) {
                    snprintf(err, errlen, "%s:%ld: field %s \"%c\" is not one of the codes %s", f->path,
                             f->line, c->name, p[0], c->codes);
                    return -1;
                }
                row->c[k] = p[0];
                break;
            }
        }
        p = q + 1;
    }
    return 1;
}

void rr_close(rr_file *f)
{
    if (f->zinit)
        inflateEnd(&f->zs);
    free(f->buf);
    memset(f, 0, sizeof *f);
}

int rr_gunzip(const unsigned char *gz, size_t gzlen, unsigned char **out, size_t *outlen, char *err,
              size_t errlen)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    size_t cap = gzlen * 4 + 65536, n = 0;
    unsigned char *o = vu_xmalloc(cap);
    *out = o;
    *outlen = 0;
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        snprintf(err, errlen, "cannot start zlib");
        return -1;
    }
    zs.next_in = (Bytef *)gz;
    zs.avail_in = (uInt)gzlen;
    int rc = 0;
    for (;;) {
        if (cap - n < 65536) {
            cap *= 2;
            o = vu_xrealloc(o, cap);
        }
        zs.next_out = o + n;
        zs.avail_out = (uInt)(cap - n - 1);
        int r = inflate(&zs, Z_NO_FLUSH);
        n = (size_t)(zs.next_out - o);
        if (r == Z_STREAM_END) {
            if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
                inflateReset(&zs);
                continue;
            }
            if (zs.avail_in > 0) {
                snprintf(err, errlen, "bytes after the end of the gzip stream");
                rc = -1;
            }
            break;
        }
        if (r == Z_OK)
            continue;
        if (r == Z_BUF_ERROR && zs.avail_in == 0) {
            snprintf(err, errlen, "gzip stream truncated");
        } else {
            snprintf(err, errlen, "gzip stream damaged: %s", zs.msg ? zs.msg : "inflate error");
        }
        rc = -1;
        break;
    }
    inflateEnd(&zs);
    o[n] = 0;
    *out = o;
    *outlen = n;
    return rc;
}
