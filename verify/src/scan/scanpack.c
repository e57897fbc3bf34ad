/* scanpack: the containers and compressed streams a release can hold, read without trusting them; see scanpack.h. */
#include "scanpack.h"

#include <limits.h>
#include <stdint.h>
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

#include "vgz.h"
#include "vutil.h"

#define CHUNK ((size_t)1 << 30)   /* the libraries count in unsigned int */

/* ---- what a buffer holds ---- */

static unsigned long long octal(const unsigned char *f, size_t len, int *ok)
{
    unsigned long long v = 0;
    size_t i = 0;
    *ok = 0;
    while (i < len && f[i] == ' ')
        i++;
    size_t d = 0;
    while (i < len && f[i] >= '0' && f[i] <= '7') {
        if (v > (ULLONG_MAX >> 3))
            return 0;
        v = v * 8 + (unsigned long long)(f[i++] - '0');
        d++;
    }
    while (i < len && (f[i] == ' ' || f[i] == 0))
        i++;
    *ok = d > 0 && i == len;
    return v;
}

/* a tar header block at h: its checksum is right */
static int tar_sum_ok(const unsigned char *h)
{
    int ok;
    unsigned long long want = octal(h + 148, 8, &ok);
    if (!ok)
        return 0;
    unsigned long long u = 0;
    long long s = 0;
    for (int i = 0; i < 512; i++) {
        unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];
        u += c;
        s += (signed char)c;
    }
    return want == u || (long long)want == s;
}

sp_kind sp_detect(const unsigned char *b, size_t n)
{
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return SP_GZIP;
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x9d)
        return SP_COMPRESS;
    if (n >= 10 && !memcmp(b, "BZh", 3) && b[3] >= '1' && b[3] <= '9' &&
        (!memcmp(b + 4, "\x31\x41\x59\x26\x53\x59", 6) || !memcmp(b + 4, "\x17\x72\x45\x38\x50\x90", 6)))
        return SP_BZ2;
    if (n >= 6 && !memcmp(b,
                          "\xfd"
                          "7zXZ\0",
                          6))
        return SP_XZ;
    if (n >= 4 && !memcmp(b, "\x28\xb5\x2f\xfd", 4))
        return SP_ZSTD;
    if (n >= 6 && !memcmp(b, "7z\xbc\xaf\x27\x1c", 6))
        return SP_7Z;
    if (n >= 4 && !memcmp(b, "LZIP", 4))
        return SP_LZIP;
    if (n >= 4 && (!memcmp(b, "PK\3\4", 4) || !memcmp(b, "PK\5\6", 4)))
        return SP_ZIP;
    if (n >= 512 && tar_sum_ok(b)) {
        int ustar = !memcmp(b + 257, "ustar", 5);
        int v7 = b[0] != 0 && (b[156] == 0 || (b[156] >= '0' && b[156] <= '7'));
        if (ustar || v7)
            return SP_TAR;
    }
    return SP_PLAIN;
}

const char *sp_kind_name(sp_kind k)
{
    static const char *const names[] = {"plain", "gzip", "bzip2", "xz", "zip", "tar", "zstd", "7z", "lzip", "compress"};
    return names[k];
}

/* ---- output that grows up to a bound ---- */

typedef struct {
    unsigned char *p;
    size_t n, cap, limit;
} sink;

static void sink_init(sink *o, size_t in, size_t limit)
{
    o->limit = limit;
    o->cap = in < limit / 4 ? 4 * in + 65536 : limit;
    if (o->cap > limit)
        o->cap = limit;
    o->p = vu_xmalloc(o->cap + 1);
    o->n = 0;
}

/* room for more: 1, or 0 at the bound */
static int sink_room(sink *o)
{
    if (o->n < o->cap)
        return 1;
    if (o->cap >= o->limit)
        return 0;
    o->cap = o->cap > o->limit / 2 ? o->limit : 2 * o->cap;
    o->p = vu_xrealloc(o->p, o->cap + 1);
    return 1;
}

static size_t out_room(const sink *o)
{
    size_t r = o->cap - o->n;
    return r > CHUNK ? CHUNK : r;
}

static int sink_done(sink *o, int rc, unsigned char **out, size_t *outn)
{
    o->p[o->n] = 0;
    *out = o->p;
    *outn = o->n;
    return rc;
}

/* the input left after a stream ended: another stream (magic) follows, or
 * only zero bytes (block padding) */
static int next_is(const unsigned char *p, size_t left, const char *magic, size_t ml)
{
    return left >= ml && !memcmp(p, magic, ml);
}
static int all_zero(const unsigned char *p, size_t left)
{
    for (size_t i = 0; i < left; i++)
        if (p[i])
            return 0;
    return 1;
}

/* ---- zlib: gzip and raw deflate ---- */

/* an extra field of gzip (RFC 1952 FEXTRA) or zip (APPNOTE 4.5): subfields
 * of a 2-byte id, a 2-byte little-endian length and that many bytes, each
 * subfield's bytes appended to o on a line of their own (so that a text in
 * one is not glued to the binary header before it); what does not parse
 * as subfields is appended as it is */
static void extra_text(const unsigned char *x, size_t xl, vu_buf *o)
{
    size_t i = 0;
    while (i + 4 <= xl) {
        size_t len = (size_t)x[i + 2] | (size_t)x[i + 3] << 8;
        if (i + 4 + len > xl)
            break;
        vu_buf_add(o, "\n", 1);
        if (len)
            vu_buf_add(o, x + i + 4, len);
        i += 4 + len;
    }
    if (i < xl) {
        vu_buf_add(o, "\n", 1);
        vu_buf_add(o, x + i, xl - i);
    }
}

/* the header fields of the gzip member at b[p..n) (RFC 1952: FEXTRA, FNAME,
 * FCOMMENT; the fixed fields are numbers), each given to cb as an SP_META
 * entry named "(gzip member K FNAME)" ...; a field cut by the end of the
 * input is given as far as it goes */
static void gzip_fields(const unsigned char *b, size_t n, size_t p, unsigned member, sp_entry_cb cb, void *ctx)
{
    if (!cb || p + 10 > n || b[p] != 0x1f || b[p + 1] != 0x8b)
        return;
    unsigned flg = b[p + 3];
    size_t q = p + 10;
    char name[64];
    if ((flg & 4) && q + 2 <= n) {   /* FEXTRA: XLEN, then XLEN bytes of subfields */
        size_t xl = (size_t)b[q] | (size_t)b[q + 1] << 8, s = q + 2;
        size_t e = s + xl > n ? n : s + xl;
        snprintf(name, sizeof name, "(gzip member %u FEXTRA)", member);
        vu_buf t = {0};
        extra_text(b + s, e - s, &t);
        sp_entry x = {name, NULL, (const unsigned char *)t.p, t.len, SP_META, 0, 0};
        if (t.len)
            cb(ctx, &x);
        vu_buf_free(&t);
        q = s + xl;
    }
    static const struct { unsigned bit; const char *what; } strs[] = {{8, "FNAME"}, {16, "FCOMMENT"}};
    for (int k = 0; k < 2; k++) {
        if (!(flg & strs[k].bit) || q >= n)
            continue;
        const unsigned char *z = memchr(b + q, 0, n - q);
        size_t e = z ? (size_t)(z - b) : n;
        snprintf(name, sizeof name, "(gzip member %u %s)", member, strs[k].what);
        sp_entry x = {name, NULL, b + q, e - q, SP_META, 0, 0};
        cb(ctx, &x);
        q = e + 1;
    }
}

static int zlib_run(int wbits, const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn,
                    char *err, size_t errlen, sp_entry_cb meta, void *mctx)
{
    if (wbits > 15 && cap > 0) {
        /* gzip inflated whole at once when it can be (vgz.h: under cap), else chunk by chunk below */
        size_t *starts, ns;
        if (vgz_whole(b, n, cap, 1, out, outn, &starts, &ns) == 0) {
            for (size_t k = 0; k < ns; k++)
                gzip_fields(b, n, starts[k], (unsigned)k + 1, meta, mctx);
            free(starts);
            return SP_OK;
        }
    }
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    sink o;
    sink_init(&o, n, cap);
    if (inflateInit2(&zs, wbits) != Z_OK) {
        snprintf(err, errlen, "cannot start zlib");
        return sink_done(&o, SP_BAD, out, outn);
    }
    size_t in = 0;
    unsigned member = 1;
    int rc = SP_OK;
    if (wbits > 15)
        gzip_fields(b, n, 0, member, meta, mctx);
    for (;;) {
        if (zs.avail_in == 0 && in < n) {
            size_t c = n - in > CHUNK ? CHUNK : n - in;
            zs.next_in = (Bytef *)(b + in);
            zs.avail_in = (uInt)c;
            in += c;
        }
        if (!sink_room(&o)) {
            rc = SP_CAP;
            break;
        }
        zs.next_out = o.p + o.n;
        zs.avail_out = (uInt)out_room(&o);
        int r = inflate(&zs, Z_NO_FLUSH);
        o.n = (size_t)(zs.next_out - o.p);
        if (r == Z_STREAM_END) {
            const unsigned char *rest = zs.avail_in ? zs.next_in : b + in;
            size_t left = zs.avail_in + (n - in);
            if (wbits > 15 && next_is(rest, left, "\x1f\x8b", 2)) {
                gzip_fields(b, n, (size_t)(rest - b), ++member, meta, mctx);
                inflateReset(&zs);
                continue;
            }
            if (left > 0 && !all_zero(rest, left)) {
                snprintf(err, errlen, "%zu bytes after the end of the stream", left);
                rc = SP_BAD;
            }
            break;
        }
        if (r == Z_OK || (r == Z_BUF_ERROR && zs.avail_out == 0))
            continue;
        if (r == Z_BUF_ERROR && zs.avail_in == 0 && in == n)
            snprintf(err, errlen, "the stream is truncated");
        else
            snprintf(err, errlen, "the stream is damaged: %s", zs.msg ? zs.msg : "inflate error");
        rc = SP_BAD;
        break;
    }
    inflateEnd(&zs);
    return sink_done(&o, rc, out, outn);
}

int sp_inflate_raw(const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn, char *err,
                   size_t errlen)
{
    return zlib_run(-15, b, n, cap, out, outn, err, errlen, NULL, NULL);
}

int sp_gunzip(const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn, char *err,
              size_t errlen, sp_entry_cb meta, void *ctx)
{
    *out = NULL;
    *outn = 0;
    return zlib_run(16 + 15, b, n, cap, out, outn, err, errlen, meta, ctx);
}

/* ---- bzip2 ---- */

#ifdef SCAN_HAVE_BZ2
static int bz2_run(const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn, char *err,
                   size_t errlen)
{
    bz_stream s;
    memset(&s, 0, sizeof s);
    sink o;
    sink_init(&o, n, cap);
    if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK) {
        snprintf(err, errlen, "cannot start libbz2");
        return sink_done(&o, SP_BAD, out, outn);
    }
    size_t in = 0;
    int rc = SP_OK;
    for (;;) {
        if (s.avail_in == 0 && in < n) {
            size_t c = n - in > CHUNK ? CHUNK : n - in;
            s.next_in = (char *)(b + in);
            s.avail_in = (unsigned)c;
            in += c;
        }
        if (!sink_room(&o)) {
            rc = SP_CAP;
            break;
        }
        s.next_out = (char *)(o.p + o.n);
        s.avail_out = (unsigned)out_room(&o);
        int r = BZ2_bzDecompress(&s);
        o.n = (size_t)((unsigned char *)s.next_out - o.p);
        if (r == BZ_STREAM_END) {
            const unsigned char *rest = s.avail_in ? (const unsigned char *)s.next_in : b + in;
            size_t left = s.avail_in + (n - in);
            if (next_is(rest, left, "BZh", 3)) {
                BZ2_bzDecompressEnd(&s);
                unsigned ai = s.avail_in;
                char *ni = s.next_in;
                memset(&s, 0, sizeof s);
                s.next_in = ni;
                s.avail_in = ai;
                if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK) {
                    snprintf(err, errlen, "cannot start libbz2");
                    rc = SP_BAD;
                    break;
                }
                continue;
            }
            if (left > 0 && !all_zero(rest, left)) {
                snprintf(err, errlen, "%zu bytes after the end of the stream", left);
                rc = SP_BAD;
            }
            break;
        }
        if (r == BZ_OK && (s.avail_out == 0 || s.avail_in > 0 || in < n))
            continue;
        snprintf(err, errlen, r == BZ_OK ? "the stream is truncated" : "the stream is damaged (libbz2 error %d)", r);
        rc = SP_BAD;
        break;
    }
    BZ2_bzDecompressEnd(&s);
    return sink_done(&o, rc, out, outn);
}
#endif

/* ---- xz ---- */

#ifdef SCAN_HAVE_LZMA
static int xz_run(const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn, char *err,
                  size_t errlen)
{
    lzma_stream s = LZMA_STREAM_INIT;
    sink o;
    sink_init(&o, n, cap);
    if (lzma_stream_decoder(&s, (uint64_t)512 << 20, LZMA_CONCATENATED) != LZMA_OK) {
        snprintf(err, errlen, "cannot start liblzma");
        return sink_done(&o, SP_BAD, out, outn);
    }
    size_t in = 0;
    int rc = SP_OK;
    for (;;) {
        if (s.avail_in == 0 && in < n) {
            size_t c = n - in > CHUNK ? CHUNK : n - in;
            s.next_in = b + in;
            s.avail_in = c;
            in += c;
        }
        if (!sink_room(&o)) {
            rc = SP_CAP;
            break;
        }
        s.next_out = o.p + o.n;
        s.avail_out = out_room(&o);
        lzma_ret r = lzma_code(&s, s.avail_in == 0 && in == n ? LZMA_FINISH : LZMA_RUN);
        o.n = (size_t)(s.next_out - o.p);
        if (r == LZMA_STREAM_END)
            break;
        if (r == LZMA_OK)
            continue;
        if (r == LZMA_BUF_ERROR && s.avail_out == 0)
            continue;
        snprintf(err, errlen, "%s (liblzma error %d)",
                 r == LZMA_MEMLIMIT_ERROR ? "it needs more than 512 MiB to decode"
                 : r == LZMA_BUF_ERROR   ? "the stream is truncated"
                                         : "the stream is damaged",
                 (int)r);
        rc = SP_BAD;
        break;
    }
    lzma_end(&s);
    return sink_done(&o, rc, out, outn);
}
#endif

int sp_decompress(sp_kind k, const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn,
                  char *err, size_t errlen)
{
    *out = NULL;
    *outn = 0;
    switch (k) {
    case SP_GZIP:
        return zlib_run(16 + 15, b, n, cap, out, outn, err, errlen, NULL, NULL);
    case SP_BZ2:
#ifdef SCAN_HAVE_BZ2
        return bz2_run(b, n, cap, out, outn, err, errlen);
#else
        snprintf(err, errlen, "this verifier was built without libbz2");
        return SP_NOLIB;
#endif
    case SP_XZ:
#ifdef SCAN_HAVE_LZMA
        return xz_run(b, n, cap, out, outn, err, errlen);
#else
        snprintf(err, errlen, "this verifier was built without liblzma");
        return SP_NOLIB;
#endif
    default:
        snprintf(err, errlen, "%s is not read by this verifier", sp_kind_name(k));
        return SP_NOLIB;
    }
}

/* ---- tar ---- */

/* a NUL-terminated copy of a field of at most len bytes */
static char *field(const unsigned char *f, size_t len)
{
    size_t l = 0;
    while (l < len && f[l])
        l++;
    return vu_xstrndup((const char *)f, l);
}

/* the size field: octal, or base-256 when its first byte has the top bit */
static int tar_size(const unsigned char *h, unsigned long long *size)
{
    if (h[124] & 0x80) {
        unsigned long long v = h[124] & 0x7f;
        for (int i = 125; i < 136; i++) {
            if (v > (ULLONG_MAX >> 8))
                return 0;
            v = (v << 8) | h[i];
        }
        *size = v;
        return 1;
    }
    int ok;
    *size = octal(h + 124, 12, &ok);
    return ok || all_zero(h + 124, 12);
}

/* the records of a pax header: path= and linkpath= (the next entry's names) */
static void pax_names(const unsigned char *d, size_t n, char **path, char **link)
{
    size_t i = 0;
    while (i < n) {
        size_t len = 0, j = i;
        while (j < n && d[j] >= '0' && d[j] <= '9' && len < n)
            len = len * 10 + (size_t)(d[j++] - '0');
        if (j >= n || d[j] != ' ' || len == 0 || i + len > n || len <= j - i + 1)
            return;
        const unsigned char *kv = d + j + 1, *end = d + i + len - 1;   /* the record ends in '\n' */
        const unsigned char *eq = memchr(kv, '=', (size_t)(end - kv));
        if (eq) {
            char **dst = (eq - kv == 4 && !memcmp(kv, "path", 4))       ? path
                         : (eq - kv == 8 && !memcmp(kv, "linkpath", 8)) ? link
                                                                        : NULL;
            if (dst) {
                free(*dst);
                *dst = vu_xstrndup((const char *)eq + 1, (size_t)(end - eq - 1));
            }
        }
        i += len;
    }
}

static int tar_kind(unsigned char t)
{
    switch (t) {
    case 0: case '0': case '7': return SP_FILE;
    case '5': return SP_DIR;
    case '1': case '2': return SP_LINK;
    case '3': case '4': case '6': case 'V': case 'M': return SP_OTHER;
    case 'S': return SP_SPARSE;
    default: return SP_FILE;   /* POSIX: an unknown type is read as a regular file */
    }
}

#define TAR_REST (3 * (431 + 511) / 2 + 8)

/* the runs of non-NUL bytes of f[from, to) appended to o, each after a '\n' */
static size_t runs_of(const unsigned char *f, size_t from, size_t to, unsigned char *o, size_t on)
{
    for (size_t i = from; i < to; i++) {
        if (!f[i])
            continue;
        o[on++] = '\n';
        while (i < to && f[i])
            o[on++] = f[i++];
    }
    return on;
}

/* the bytes of the tar header h that are neither numbers (mode, ids, size,
 * times, checksum, type, magic, device numbers) nor the name or link read
 * from it (the name and link fields up to their NUL, when they are the
 * entry's: those are scanned as names), then the padding after the data
 * (pad, pn bytes): the user and group names, whatever hides after a NUL,
 * the rest of the block.  Into o, its length: at most 431 header bytes and
 * 511 of padding, each run with its '\n' (a run is 1 byte or more, so at
 * most 3/2 of them): under TAR_REST bytes. */
static size_t tar_rest(const unsigned char *h, int name_used, int link_used, const unsigned char *pad, size_t pn,
                       unsigned char *o)
{
    int posix = !memcmp(h + 257, "ustar", 6);
    size_t on = 0, nl = 0, ll = 0, pl = 0;
    if (name_used) {
        while (nl < 100 && h[nl])
            nl++;
        while (posix && pl < 155 && h[345 + pl])
            pl++;
    }
    while (link_used && ll < 100 && h[157 + ll])
        ll++;
    on = runs_of(h, nl, 100, o, on);              /* name */
    on = runs_of(h, 157 + ll, 257, o, on);        /* linkname */
    on = runs_of(h, 265, 329, o, on);             /* uname, gname */
    on = runs_of(h, 345 + pl, 512, o, on);        /* prefix (GNU: times, sparse map), the block's end */
    on = runs_of(pad, 0, pn, o, on);              /* after the data, to the block's end */
    return on;
}

int sp_tar(const unsigned char *b, size_t n, sp_entry_cb cb, void *ctx, char *err, size_t errlen)
{
    unsigned char rest[TAR_REST];
    char *lname = NULL, *llink = NULL;   /* from a pax header or a GNU long-name entry */
    size_t off = 0;
    int rc = SP_OK;
    while (off + 512 <= n) {
        const unsigned char *h = b + off;
        unsigned long long size;
        if (all_zero(h, 512)) {   /* the end: anything but zeros after it is scanned too */
            size_t z = off + 512;
            while (z < n && !b[z])
                z++;
            if (z < n) {
                sp_entry e = {"(after the tar archive's end)", NULL, b + z, n - z, SP_META, 0, 0};
                cb(ctx, &e);
            }
            break;
        }
        if (!tar_sum_ok(h) || !tar_size(h, &size)) {
            snprintf(err, errlen, "no valid tar header at byte %zu", off);
            rc = SP_BAD;
            break;
        }
        size_t avail = n - off - 512;
        int trunc = size > avail;
        size_t dl = trunc ? avail : (size_t)size;
        const unsigned char *data = h + 512;
        unsigned char t = h[156];
        size_t pn = trunc || dl % 512 == 0 ? 0 : 512 - dl % 512, after = avail - dl;
        if (pn > after)
            pn = after;   /* the archive ends inside the padding */
        int meta = t == 'x' || t == 'g' || t == 'L' || t == 'K';
        size_t rn = tar_rest(h, !meta && !lname, !meta && !llink && (t == '1' || t == '2'), data + dl, pn, rest);
        if (rn) {   /* what the header holds besides numbers and the names read from it */
            char hn[64];
            snprintf(hn, sizeof hn, "(tar header at byte %zu)", off);
            sp_entry e = {hn, NULL, rest, rn, SP_META, 0, 0};
            cb(ctx, &e);
        }
        if (meta) {
            if (t == 'x' || t == 'g') {   /* its records are text to scan; a long name is scanned as a name */
                sp_entry e = {"(pax header)", NULL, data, dl, SP_META, 0, 0};
                cb(ctx, &e);
            }
            if (t == 'x')
                pax_names(data, dl, &lname, &llink);
            if (t == 'L' || t == 'K') {
                char **dst = t == 'L' ? &lname : &llink;
                free(*dst);
                *dst = field(data, dl);
            }
        } else {
            char *name = lname, *link = llink;
            if (!name) {
                /* the prefix field is POSIX ustar's ("ustar\0"); old GNU headers ("ustar  ") keep times there */
                char *nm = field(h, 100), *pre = !memcmp(h + 257, "ustar", 6) ? field(h + 345, 155) : vu_xstrdup("");
                name = pre[0] ? vu_xasprintf("%s/%s", pre, nm) : vu_xstrdup(nm);
                free(nm);
                free(pre);
            }
            if (!link && (t == '1' || t == '2'))
                link = field(h + 157, 100);
            sp_entry e = {name, link, data, dl, tar_kind(t), 0, 0};
            cb(ctx, &e);
            free(name);
            free(link);
            lname = llink = NULL;
        }
        if (trunc) {
            snprintf(err, errlen, "the tar entry at byte %zu is truncated (%llu bytes, %zu there)", off, size, avail);
            rc = SP_BAD;
            break;
        }
        off += 512 + (size_t)((size + 511) / 512 * 512);
    }
    if (rc == SP_OK && off < n && off + 512 > n && !all_zero(b + off, n - off)) {
        snprintf(err, errlen, "the tar archive ends inside a header at byte %zu", off);
        rc = SP_BAD;
    }
    free(lname);
    free(llink);
    return rc;
}

/* ---- zip ---- */

static unsigned u16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}
static unsigned long u32(const unsigned char *p)
{
    return (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24;
}

/* one central-directory entry at p: its length, or 0 (err set) */
static size_t zip_entry(const unsigned char *b, size_t n, size_t p, sp_entry_cb cb, void *ctx, size_t *cov,
                        char *err, size_t errlen)
{
    if (p + 46 > n || memcmp(b + p, "PK\1\2", 4)) {
        snprintf(err, errlen, "no zip directory entry at byte %zu", p);
        return 0;
    }
    const unsigned char *c = b + p;
    unsigned flags = u16(c + 8), method = u16(c + 10), nl = u16(c + 28), el = u16(c + 30), cl = u16(c + 32);
    unsigned long cs = u32(c + 20), lho = u32(c + 42);
    if (p + 46 + nl + el + cl > n) {
        snprintf(err, errlen, "the zip directory entry at byte %zu is truncated", p);
        return 0;
    }
    char *name = vu_xstrndup((const char *)c + 46, nl);
    if (cs == 0xFFFFFFFFul || lho == 0xFFFFFFFFul) {
        snprintf(err, errlen, "%s: a zip64 entry (not read by this verifier)", name);
        free(name);
        return 0;
    }
    if (lho + 30 > n || memcmp(b + lho, "PK\3\4", 4) || lho + 30 + u16(b + lho + 26) + u16(b + lho + 28) + cs > n) {
        snprintf(err, errlen, "%s: its data (local header at byte %lu) is not within the archive", name, lho);
        free(name);
        return 0;
    }
    unsigned lnl = u16(b + lho + 26), lel = u16(b + lho + 28);
    size_t data = lho + 30 + lnl + lel;
    int dir = nl > 0 && name[nl - 1] == '/';
    sp_entry e = {name, NULL, b + data, cs, dir ? SP_DIR : SP_FILE, (int)method, (int)(flags & 1)};
    cb(ctx, &e);
    /* the extra fields (directory's and local header's) and the local
     * header's name when it is not the directory's: text to scan */
    if (el || lel || lnl != nl || memcmp(b + lho + 30, c + 46, nl)) {
        vu_buf x = {0};
        extra_text(c + 46 + nl, el, &x);
        extra_text(b + lho + 30 + lnl, lel, &x);
        if (lnl != nl || memcmp(b + lho + 30, c + 46, nl)) {
            vu_buf_add(&x, "\n", 1);
            vu_buf_add(&x, b + lho + 30, lnl);
        }
        char *xn = vu_xasprintf("%s (extra fields)", name);
        sp_entry xe = {xn, NULL, (const unsigned char *)x.p, x.len, SP_META, 0, 0};
        cb(ctx, &xe);
        free(xn);
        vu_buf_free(&x);
    }
    if (cov) {
        cov[0] = lho;
        cov[1] = data + cs;
    }
    if (cl) {
        char *cn = vu_xasprintf("%s (comment)", name);
        sp_entry ce = {cn, NULL, c + 46 + nl + el, cl, SP_META, 0, 0};
        cb(ctx, &ce);
        free(cn);
    }
    free(name);
    return 46 + nl + el + cl;
}

static int cmp_range(const void *x, const void *y)
{
    const size_t *a = x, *c = y;
    return a[0] < c[0] ? -1 : a[0] > c[0];
}

/* the non-NUL runs of b[from, to) appended to g, each on its own line */
static void gap_runs(const unsigned char *b, size_t from, size_t to, vu_buf *g)
{
    for (size_t i = from; i < to; i++) {
        if (!b[i])
            continue;
        vu_buf_add(g, "\n", 1);
        size_t s = i;
        while (i < to && b[i])
            i++;
        vu_buf_add(g, b + s, i - s);
    }
}

/* a local header at p whose name, extra field and data (its size known:
 * no data descriptor) lie inside [p, to): the member is given to cb as
 * "(not in the directory) <name>" and the end of its data returned; 0
 * when there is none */
static size_t unlisted_member(const unsigned char *b, size_t p, size_t to, sp_entry_cb cb, void *ctx)
{
    if (p + 30 > to || memcmp(b + p, "PK\3\4", 4))
        return 0;
    const unsigned char *h = b + p;
    unsigned flags = u16(h + 6), method = u16(h + 8), nl = u16(h + 26), el = u16(h + 28);
    unsigned long cs = u32(h + 18);
    size_t data = p + 30 + nl + el;
    if (data > to || cs > to - data || ((flags & 8) && cs == 0))
        return 0;
    char *nm = vu_xstrndup((const char *)h + 30, nl);
    char *name = vu_xasprintf("(not in the directory) %s", nm);
    sp_entry e = {name, NULL, b + data, cs, nl && nm[nl - 1] == '/' ? SP_DIR : SP_FILE, (int)method, (int)(flags & 1)};
    cb(ctx, &e);
    if (el) {
        vu_buf x = {0};
        extra_text(h + 30 + nl, el, &x);
        char *xn = vu_xasprintf("%s (extra fields)", name);
        sp_entry xe = {xn, NULL, (const unsigned char *)x.p, x.len, SP_META, 0, 0};
        cb(ctx, &xe);
        free(xn);
        vu_buf_free(&x);
    }
    free(name);
    free(nm);
    return data + cs;
}

/* the bytes of the archive outside every range read (nc ranges [from, to)
 * in cov): a member the directory does not list is read as a member (its
 * local header gives its name, method and size); the rest (a data
 * descriptor, a prefix such as a self-extractor's) is one SP_META entry of
 * its non-NUL runs */
static void zip_gaps(const unsigned char *b, size_t n, size_t *cov, size_t nc, sp_entry_cb cb, void *ctx)
{
    qsort(cov, nc, 2 * sizeof *cov, cmp_range);
    vu_buf g = {0};
    size_t at = 0;
    for (size_t k = 0; k <= nc; k++) {
        size_t from = k < nc ? cov[2 * k] : n, to = k < nc ? cov[2 * k + 1] : n;
        if (from > n)
            from = n;
        size_t text = at, look = at;   /* the gap [at, from): its text from text, members looked for from look */
        while (look < from) {
            const unsigned char *q = memmem(b + look, from - look, "PK\3\4", 4);
            if (!q)
                break;
            size_t qs = (size_t)(q - b), end = unlisted_member(b, qs, from, cb, ctx);
            if (end) {
                gap_runs(b, text, qs, &g);
                text = end;
            }
            look = end ? end : qs + 1;
        }
        if (from > text)
            gap_runs(b, text, from, &g);
        if (from > at)
            at = from;
        if (to > at)
            at = to;
    }
    if (g.len) {
        sp_entry e = {"(zip bytes outside its entries)", NULL, (const unsigned char *)g.p, g.len, SP_META, 0, 0};
        cb(ctx, &e);
    }
    vu_buf_free(&g);
}

int sp_zip(const unsigned char *b, size_t n, sp_entry_cb cb, void *ctx, char *err, size_t errlen)
{
    size_t eo = 0;
    int found = 0;
    for (size_t p = n >= 22 ? n - 22 + 1 : 0; p-- > 0 && n - p <= 22 + 65535;)
        if (!memcmp(b + p, "PK\5\6", 4)) {
            eo = p;
            found = 1;
            break;
        }
    if (!found) {
        snprintf(err, errlen, "no zip end record (truncated?)");
        return SP_BAD;
    }
    const unsigned char *e = b + eo;
    unsigned entries = u16(e + 10), cml = u16(e + 20);
    unsigned long cdo = u32(e + 16);
    if (entries == 0xFFFF || cdo == 0xFFFFFFFFul) {
        snprintf(err, errlen, "a zip64 archive (not read by this verifier)");
        return SP_BAD;
    }
    if (cml && eo + 22 + cml <= n) {
        sp_entry ce = {"(zip comment)", NULL, e + 22, cml, SP_META, 0, 0};
        cb(ctx, &ce);
    }
    /* the byte ranges read: each member's local header and data, the
     * directory, the end record (with its comment) */
    size_t *cov = vu_xmalloc(((size_t)entries + 2) * 2 * sizeof *cov), nc = 0;
    size_t p = cdo;
    for (unsigned k = 0; k < entries; k++) {
        size_t used = zip_entry(b, n, p, cb, ctx, cov + 2 * nc, err, errlen);
        if (!used) {
            free(cov);
            return SP_BAD;
        }
        nc++;
        p += used;
    }
    cov[2 * nc] = cdo;
    cov[2 * nc + 1] = p;
    cov[2 * nc + 2] = eo;
    cov[2 * nc + 3] = eo + 22 + cml > n ? n : eo + 22 + cml;
    nc += 2;
    zip_gaps(b, n, cov, nc, cb, ctx);
    free(cov);
    return SP_OK;
}
