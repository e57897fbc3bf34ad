/* vgz.[ch]: a gzip file inflated whole with libdeflate, or -1 for the
 * callers' zlib path, and the two readers that use it (rawread.h, the
 * scanner's sp_gunzip): the same bytes, rows and header fields whichever
 * path reads a file.  The zlib path is forced by a header with FHCRC,
 * which vgz leaves to zlib (zlib checks that header CRC). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rawcols.h"
#include "rawread.h"
#include "scanpack.h"
#include "vgz.h"
#include "vutil.h"

/* text as one gzip member (FNAME name when not NULL, FHCRC when hcrc) appended to b */
static void member(vu_buf *b, const char *text, const char *name, int hcrc)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
    gz_header h;
    memset(&h, 0, sizeof h);
    h.name = (Bytef *)name;
    h.hcrc = hcrc;
    h.os = 3;
    cr_assert_eq(deflateSetHeader(&z, &h), Z_OK);
    size_t n = strlen(text), cap = deflateBound(&z, n) + 64;
    unsigned char *o = malloc(cap);
    z.next_in = (Bytef *)text;
    z.avail_in = (uInt)n;
    z.next_out = o;
    z.avail_out = (uInt)cap;
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    vu_buf_add(b, o, cap - z.avail_out);
    deflateEnd(&z);
    free(o);
}

/* a raw tester file's text of three rows (format 4) */
static const char *TESTER =
    "# lab-raw 4 tester\n"
    "send_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n"
    "0\t1500\t200\tL\t=\t1\t0\n"
    "3\t2100\t200\tK\t=\t1\t0\n"
    "-\t-\t0\tE\t-\t-\t0\n";

Test(vgz, members_starts_tail_and_cap)
{
    if (!vgz_available())
        return; /* built without libdeflate: vgz_whole is always -1 (the zlib paths) */
    vu_buf b = {0};
    member(&b, "first member\n", "a.txt", 0);
    size_t second = b.len;
    member(&b, "second\n", NULL, 0);
    unsigned char *out;
    size_t n, *st, ns;
    cr_assert_eq(vgz_whole((unsigned char *)b.p, b.len, 0, 0, &out, &n, &st, &ns), 0);
    cr_expect_eq(n, 20);
    cr_expect(!memcmp(out, "first member\nsecond\n", 20) && out[20] == 0);
    cr_expect_eq(ns, 2);
    cr_expect_eq(st[0], 0);
    cr_expect_eq(st[1], second);
    free(out);
    free(st);
    /* the cap: 20 bytes need a cap of 21 or more */
    cr_expect_eq(vgz_whole((unsigned char *)b.p, b.len, 20, 0, &out, &n, NULL, NULL), -1);
    cr_expect_eq(vgz_whole((unsigned char *)b.p, b.len, 21, 0, &out, &n, NULL, NULL), 0);
    free(out);
    /* zeros after the last member: only with zero_tail; another byte: never */
    vu_buf_add(&b, "\0\0\0", 3);
    cr_expect_eq(vgz_whole((unsigned char *)b.p, b.len, 0, 0, &out, &n, NULL, NULL), -1);
    cr_expect_eq(vgz_whole((unsigned char *)b.p, b.len, 0, 1, &out, &n, NULL, NULL), 0);
    free(out);
    vu_buf_add(&b, "x", 1);
    cr_expect_eq(vgz_whole((unsigned char *)b.p, b.len, 0, 1, &out, &n, NULL, NULL), -1);
    /* cut short, a flipped bit, an FHCRC header: left to zlib */
    cr_expect_eq(vgz_whole((unsigned char *)b.p, second - 1, 0, 0, &out, &n, NULL, NULL), -1);
    b.p[second - 9] ^= 1; /* the first member's CRC-32 */
    cr_expect_eq(vgz_whole((unsigned char *)b.p, second, 0, 0, &out, &n, NULL, NULL), -1);
    vu_buf h = {0};
    member(&h, "with a header crc\n", NULL, 1);
    cr_expect_eq(vgz_whole((unsigned char *)h.p, h.len, 0, 0, &out, &n, NULL, NULL), -1);
    vu_buf_free(&b);
    vu_buf_free(&h);
}

/* every row of a tester file as text, one line each (an absent field's
 * v is what the row before left there: only has[] says it is absent) */
static char *rows_of(const vu_buf *gz)
{
    rr_file f;
    rr_row row;
    char err[512];
    vu_buf t = {0};
    cr_assert_eq(rr_open(&f, "t.gz", (unsigned char *)gz->p, gz->len, "tester", tester_cols, TW_NCOL, err, sizeof err),
                 0, "%s", err);
    int k;
    while ((k = rr_next(&f, &row, err, sizeof err)) == 1) {
        char l[256];
        snprintf(l, sizeof l, "%lld %lld %lld %c %d %d|", row.v[TW_SEND], row.v[TW_ANSWER], row.v[TW_STATUS],
                 row.c[TW_KIND], row.has[TW_SEND], row.has[TW_SCORE]);
        vu_buf_puts(&t, l);
    }
    cr_expect_eq(k, 0, "%s", err);
    rr_close(&f);
    vu_buf_puts(&t, "");
    return t.p;
}

/* the raw reader: the same rows inflated whole and through zlib (FHCRC),
 * of one member and of the text split over two */
Test(vgz, rawread_same_rows_either_path)
{
    vu_buf a = {0}, z = {0}, two = {0};
    member(&a, TESTER, NULL, 0);
    member(&z, TESTER, NULL, 1);
    size_t cut = strlen(TESTER) - 20;
    char *head = vu_xasprintf("%.*s", (int)cut, TESTER);
    member(&two, head, NULL, 0);
    member(&two, TESTER + cut, NULL, 0);
    char *ra = rows_of(&a), *rz = rows_of(&z), *r2 = rows_of(&two);
    cr_expect_str_eq(ra, "0 1500 200 L 1 2|3 2100 200 K 1 2|3 2100 0 E 0 0|");
    cr_expect_str_eq(rz, ra);
    cr_expect_str_eq(r2, ra);
    free(ra);
    free(rz);
    free(r2);
    free(head);
    vu_buf_free(&a);
    vu_buf_free(&z);
    vu_buf_free(&two);
}

/* the raw reader's messages come from the zlib path: cut short, bytes after the end */
Test(vgz, rawread_messages_unchanged)
{
    vu_buf a = {0};
    member(&a, TESTER, NULL, 0);
    rr_file f;
    rr_row row;
    char err[512] = "";
    int rc = rr_open(&f, "t.gz", (unsigned char *)a.p, a.len - 12, "tester", tester_cols, TW_NCOL, err, sizeof err);
    while (rc == 0 && (rc = rr_next(&f, &row, err, sizeof err)) == 1)
        rc = 0;
    rr_close(&f);
    cr_expect(strstr(err, "t.gz: gzip stream truncated (after line"), "%s", err);
    vu_buf_add(&a, "\0", 1);
    rc = rr_open(&f, "t.gz", (unsigned char *)a.p, a.len, "tester", tester_cols, TW_NCOL, err, sizeof err);
    while (rc == 0 && (rc = rr_next(&f, &row, err, sizeof err)) == 1)
        rc = 0;
    rr_close(&f);
    cr_expect_str_eq(err, "t.gz: bytes after the end of the gzip stream");
    vu_buf_free(&a);
}

static void meta_names(void *ctx, const sp_entry *e)
{
    vu_buf *b = ctx;
    vu_buf_puts(b, e->name);
    vu_buf_puts(b, "=");
    vu_buf_add(b, e->data, e->size);
    vu_buf_puts(b, "|");
}

/* the scanner: the same bytes and the same header fields, in order, either path */
Test(vgz, gunzip_same_bytes_and_fields_either_path)
{
    vu_buf a = {0}, z = {0};
    member(&a, "one\n", "first.txt", 0);
    member(&a, "two\n", "second.txt", 0);
    vu_buf_add(&a, "\0\0", 2);
    member(&z, "one\n", "first.txt", 1);
    member(&z, "two\n", "second.txt", 1);
    vu_buf_add(&z, "\0\0", 2);
    unsigned char *oa, *oz;
    size_t na, nz;
    char err[256];
    vu_buf ma = {0}, mz = {0};
    cr_expect_eq(sp_gunzip((unsigned char *)a.p, a.len, 1 << 20, &oa, &na, err, sizeof err, meta_names, &ma), SP_OK);
    cr_expect_eq(sp_gunzip((unsigned char *)z.p, z.len, 1 << 20, &oz, &nz, err, sizeof err, meta_names, &mz), SP_OK);
    cr_expect(na == 8 && nz == 8 && !memcmp(oa, "one\ntwo\n", 8) && !memcmp(oz, oa, 8));
    vu_buf_puts(&ma, "");
    vu_buf_puts(&mz, "");
    cr_expect_str_eq(ma.p, "(gzip member 1 FNAME)=first.txt|(gzip member 2 FNAME)=second.txt|");
    cr_expect_str_eq(mz.p, ma.p);
    free(oa);
    free(oz);
    /* a cap below the output's size: SP_CAP and the first cap bytes (zlib's path: vgz stops under the cap) */
    cr_expect_eq(sp_gunzip((unsigned char *)a.p, a.len, 7, &oa, &na, err, sizeof err, NULL, NULL), SP_CAP);
    cr_expect(na == 7 && !memcmp(oa, "one\ntwo", 7));
    free(oa);
    vu_buf_free(&a);
    vu_buf_free(&z);
    vu_buf_free(&ma);
    vu_buf_free(&mz);
}
