/* tscan: helpers of the scanner's tests (header only).
 *
 * tsc_rand: len characters drawn from alphabet by a fixed generator (the
 * fake secrets are made at test time, so nothing committed looks like one;
 * malloc'd).  tsc_found: the findings of scan_buffer over a text, with
 * their rules and masked excerpts.  The writers build, in a vu_buf, a tar
 * (ustar headers, a pax header or a GNU long name for long names; a
 * header's user name set: tsc_tar_uname), a zip (stored or deflated
 * members, an extra field in the directory or the local header, a central
 * directory), and gzip (tsc_gzip_hdr: with FNAME, FCOMMENT, FEXTRA), bzip2
 * and xz streams.  tsc_scan runs scan_paths on one path with the given bounds
 * and returns everything it printed (malloc'd) and the findings.
 */
#ifndef TSCAN_H
#define TSCAN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef SCAN_HAVE_BZ2
#include <bzlib.h>
#endif
#ifdef SCAN_HAVE_LZMA
#include <lzma.h>
#endif

#include "scan.h"
#include "vutil.h"

#define CAT(...) vu_xasprintf(__VA_ARGS__)

static const char TSC_AL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
static const char TSC_HEX[] = "0123456789abcdef";
static const char TSC_WD[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
static const char TSC_UP[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
static const char TSC_LOW[] = "abcdefghijklmnopqrstuvwxyz0123456789";

static unsigned long long tsc_seed = 0x9E3779B97F4A7C15ull;

static inline char *tsc_rand(const char *alphabet, size_t len)
{
    size_t al = strlen(alphabet);
    char *s = vu_xmalloc(len + 1);
    for (size_t i = 0; i < len; i++) {
        tsc_seed ^= tsc_seed << 13;
        tsc_seed ^= tsc_seed >> 7;
        tsc_seed ^= tsc_seed << 17;
        s[i] = alphabet[(tsc_seed >> 11) % al];
    }
    s[len] = 0;
    return s;
}

typedef struct {
    char rules[32][48];
    char masked[32][160];
    char via[32][96];   /* where a finding in decoded bytes was decoded ("" when not) */
    size_t offs[32], lens[32];
    int n;
} tsc_found_t;

static inline void tsc_collect(void *ctx, const scan_finding *f)
{
    tsc_found_t *g = ctx;
    if (g->n < 32) {
        snprintf(g->rules[g->n], sizeof g->rules[0], "%s", f->rule);
        snprintf(g->masked[g->n], sizeof g->masked[0], "%s", f->masked);
        snprintf(g->via[g->n], sizeof g->via[0], "%s", f->via);
        g->offs[g->n] = f->offset;
        g->lens[g->n] = f->len;
    }
    g->n++;
}

static inline tsc_found_t tsc_found(const char *s)
{
    tsc_found_t g;
    memset(&g, 0, sizeof g);
    scan_buffer((const unsigned char *)s, strlen(s), tsc_collect, &g);
    return g;
}

static inline int tsc_has(const tsc_found_t *g, const char *rule)
{
    for (int k = 0; k < g->n && k < 32; k++)
        if (!strcmp(g->rules[k], rule))
            return 1;
    return 0;
}

/* ---- tar ---- */

static inline void tsc_tar_header(vu_buf *t, const char *name, size_t size, char type)
{
    unsigned char h[512];
    memset(h, 0, sizeof h);
    size_t nl = strlen(name);
    if (nl > 100)
        nl = 100;
    memcpy(h, name, nl);
    memcpy(h + 100, "0000644", 7);
    memcpy(h + 108, "0001750", 7);
    memcpy(h + 116, "0001750", 7);
    char sz[32];
    snprintf(sz, sizeof sz, "%011llo", (unsigned long long)size & 077777777777ull);
    memcpy(h + 124, sz, 11);
    memcpy(h + 136, "15100000000", 11);
    h[156] = (unsigned char)type;
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    memcpy(h + 265, "lab", 3);
    memcpy(h + 297, "lab", 3);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    vu_buf_add(t, h, 512);
}

static inline void tsc_tar_data(vu_buf *t, const void *d, size_t n)
{
    static const unsigned char zero[512];
    vu_buf_add(t, d, n);
    if (n % 512)
        vu_buf_add(t, zero, 512 - n % 512);
}

/* a member; a name over 100 bytes goes in a pax header (pax = 1) or a GNU long name (pax = 0) */
static inline void tsc_tar_add(vu_buf *t, const char *name, const void *d, size_t n, int pax)
{
    if (strlen(name) > 100) {
        if (pax) {
            char rec[4200];
            size_t body = strlen(name) + strlen(" path=\n");
            size_t len = body + 1;
            while ((size_t)snprintf(NULL, 0, "%zu", len) + body != len)
                len++;
            int rl = snprintf(rec, sizeof rec, "%zu path=%s\n", len, name);
            tsc_tar_header(t, "PaxHeaders/x", (size_t)rl, 'x');
            tsc_tar_data(t, rec, (size_t)rl);
        } else {
            tsc_tar_header(t, "././@LongLink", strlen(name) + 1, 'L');
            tsc_tar_data(t, name, strlen(name) + 1);
        }
    }
    tsc_tar_header(t, name, n, '0');
    tsc_tar_data(t, d, n);
}

static inline void tsc_tar_end(vu_buf *t)
{
    static const unsigned char zero[1024];
    vu_buf_add(t, zero, sizeof zero);
}

/* ---- zip ---- */

typedef struct {
    vu_buf body, dir;
    unsigned entries;
} tsc_zip;

static inline void tsc_le(vu_buf *b, unsigned long v, int bytes)
{
    for (int i = 0; i < bytes; i++) {
        unsigned char c = (unsigned char)(v >> (8 * i));
        vu_buf_add(b, &c, 1);
    }
}

/* a member with an extra field (x, xl bytes) in its directory entry (dir_extra) or its local header */
static inline void tsc_zip_add_x(tsc_zip *z, const char *name, const void *d, size_t n, int deflated, const void *x,
                                 size_t xl, int dir_extra);

static inline void tsc_zip_add(tsc_zip *z, const char *name, const void *d, size_t n, int deflated)
{
    tsc_zip_add_x(z, name, d, n, deflated, NULL, 0, 0);
}

static inline void tsc_zip_add_x(tsc_zip *z, const char *name, const void *d, size_t n, int deflated, const void *x,
                                 size_t xl, int dir_extra)
{
    unsigned char *cd = (unsigned char *)d;
    size_t cn = n;
    unsigned char *tmp = NULL;
    if (deflated) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
        tmp = vu_xmalloc(deflateBound(&zs, n) + 16);
        zs.next_in = (Bytef *)d;
        zs.avail_in = (uInt)n;
        zs.next_out = tmp;
        zs.avail_out = (uInt)(deflateBound(&zs, n) + 16);
        deflate(&zs, Z_FINISH);
        cn = zs.total_out;
        deflateEnd(&zs);
        cd = tmp;
    }
    unsigned long crc = crc32(0, d, (uInt)n), off = (unsigned long)z->body.len;
    size_t nl = strlen(name);
    tsc_le(&z->body, 0x04034b50, 4);
    tsc_le(&z->body, 20, 2);
    tsc_le(&z->body, 0, 2);
    tsc_le(&z->body, deflated ? 8 : 0, 2);
    tsc_le(&z->body, 0, 4);
    tsc_le(&z->body, crc, 4);
    tsc_le(&z->body, cn, 4);
    tsc_le(&z->body, n, 4);
    tsc_le(&z->body, nl, 2);
    tsc_le(&z->body, dir_extra ? 0 : xl, 2);
    vu_buf_add(&z->body, name, nl);
    if (!dir_extra && xl)
        vu_buf_add(&z->body, x, xl);
    vu_buf_add(&z->body, cd, cn);
    tsc_le(&z->dir, 0x02014b50, 4);
    tsc_le(&z->dir, 20, 2);
    tsc_le(&z->dir, 20, 2);
    tsc_le(&z->dir, 0, 2);
    tsc_le(&z->dir, deflated ? 8 : 0, 2);
    tsc_le(&z->dir, 0, 4);
    tsc_le(&z->dir, crc, 4);
    tsc_le(&z->dir, cn, 4);
    tsc_le(&z->dir, n, 4);
    tsc_le(&z->dir, nl, 2);
    tsc_le(&z->dir, dir_extra ? xl : 0, 2);
    tsc_le(&z->dir, 0, 2);
    tsc_le(&z->dir, 0, 2);
    tsc_le(&z->dir, 0, 2);
    tsc_le(&z->dir, 0, 4);
    tsc_le(&z->dir, off, 4);
    vu_buf_add(&z->dir, name, nl);
    if (dir_extra && xl)
        vu_buf_add(&z->dir, x, xl);
    z->entries++;
    free(tmp);
}

/* the archive (z is freed) */
static inline void tsc_zip_end(tsc_zip *z, vu_buf *out)
{
    vu_buf_add(out, z->body.p, z->body.len);
    vu_buf_add(out, z->dir.p, z->dir.len);
    tsc_le(out, 0x06054b50, 4);
    tsc_le(out, 0, 2);
    tsc_le(out, 0, 2);
    tsc_le(out, z->entries, 2);
    tsc_le(out, z->entries, 2);
    tsc_le(out, z->dir.len, 4);
    tsc_le(out, z->body.len, 4);
    tsc_le(out, 0, 2);
    vu_buf_free(&z->body);
    vu_buf_free(&z->dir);
}

/* ---- compressed streams ---- */

static inline void tsc_gzip(const void *d, size_t n, vu_buf *out)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&zs, n) + 64;
    unsigned char *o = vu_xmalloc(cap);
    zs.next_in = (Bytef *)d;
    zs.avail_in = (uInt)n;
    zs.next_out = o;
    zs.avail_out = (uInt)cap;
    deflate(&zs, Z_FINISH);
    vu_buf_add(out, o, zs.total_out);
    deflateEnd(&zs);
    free(o);
}

/* a gzip member with header fields (each NULL for none; the extra field
 * of xl bytes) appended to out */
static inline void tsc_gzip_hdr(const void *d, size_t n, const char *fname, const char *fcomment, const void *extra,
                                unsigned xl, vu_buf *out)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
    gz_header h;
    memset(&h, 0, sizeof h);
    h.os = 3;
    h.name = (Bytef *)fname;
    h.comment = (Bytef *)fcomment;
    h.extra = (Bytef *)extra;
    h.extra_len = extra ? xl : 0;
    deflateSetHeader(&zs, &h);
    size_t cap = deflateBound(&zs, n) + 4096 + xl;
    unsigned char *o = vu_xmalloc(cap);
    zs.next_in = (Bytef *)d;
    zs.avail_in = (uInt)n;
    zs.next_out = o;
    zs.avail_out = (uInt)cap;
    deflate(&zs, Z_FINISH);
    vu_buf_add(out, o, zs.total_out);
    deflateEnd(&zs);
    free(o);
}

/* the tar header at off of t: its user name set, the checksum made again */
static inline void tsc_tar_uname(vu_buf *t, size_t off, const char *uname)
{
    unsigned char *h = (unsigned char *)t->p + off;
    memset(h + 265, 0, 32);
    memcpy(h + 265, uname, strlen(uname) < 32 ? strlen(uname) : 31);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
}

#ifdef SCAN_HAVE_BZ2
static inline void tsc_bz2(const void *d, size_t n, vu_buf *out)
{
    unsigned cap = (unsigned)(n + n / 100 + 700);
    char *o = vu_xmalloc(cap);
    BZ2_bzBuffToBuffCompress(o, &cap, (char *)d, (unsigned)n, 9, 0, 0);
    vu_buf_add(out, o, cap);
    free(o);
}
#endif

#ifdef SCAN_HAVE_LZMA
static inline void tsc_xz(const void *d, size_t n, vu_buf *out)
{
    size_t cap = lzma_stream_buffer_bound(n), pos = 0;
    unsigned char *o = vu_xmalloc(cap);
    lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, d, n, o, &pos, cap);
    vu_buf_add(out, o, pos);
    free(o);
}
#endif

static inline void tsc_write(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(d, 1, n, f);
    fclose(f);
}

/* scan_paths over one path in the --scan layout: what it printed (malloc'd) */
static inline char *tsc_scan(const char *path, size_t max_bytes, int max_depth, scan_stats *st, int *rc)
{
    char *text = NULL;
    size_t tl = 0;
    FILE *o = open_memstream(&text, &tl);
    scan_opts opts;
    scan_opts_default(&opts, o, SCAN_LINES, 0);
    if (max_bytes)
        opts.max_bytes = max_bytes;
    if (max_depth)
        opts.max_depth = max_depth;
    char err[512];
    const char *paths[] = {path};
    *rc = scan_paths(paths, 1, &opts, st, err, sizeof err);
    if (*rc)
        fprintf(o, "ERROR %s\n", err);
    fclose(o);
    return text;
}

#endif
