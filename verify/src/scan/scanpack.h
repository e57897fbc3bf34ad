/* scanpack: the containers and compressed streams a release can hold,
 * read for the scanner without trusting them.
 *
 * Contract.
 * sp_detect names what b holds by its first bytes (gzip 1f 8b, bzip2 "BZh",
 * xz fd "7zXZ", zip "PK\3\4" or the empty "PK\5\6", a tar header with a
 * valid checksum at byte 0, and the kinds read nowhere here: zstd, 7z,
 * lzip, compress); SP_PLAIN for anything else.
 * sp_decompress inflates a gzip, bzip2 or xz stream (members or streams
 * one after another too) into a malloc'd buffer of at most cap bytes
 * (*out, *outn: the caller frees *out, also on error) and returns SP_OK,
 * SP_CAP (more than cap bytes: *out holds the first cap), SP_BAD (damaged or
 * truncated: *out holds what inflated; err says why) or SP_NOLIB (built
 * without libbz2 / liblzma: nothing inflated).  sp_inflate_raw does the
 * same for zip's raw deflate.  sp_gunzip is sp_decompress for gzip that
 * also gives each member's header fields to meta (when not NULL) as SP_META
 * entries, in order: "(gzip member K FEXTRA)" (the XLEN bytes, each
 * subfield's data on a line of its own),
 * "(gzip member K FNAME)", "(gzip member K FCOMMENT)" (up to the NUL), K
 * from 1; a field cut short by the input's end is given as far as it goes.
 * sp_tar and sp_zip call cb once per entry, in the archive's order, with
 * its name (NUL-terminated; for tar the ustar prefix, a pax path or a GNU
 * long name applied), its data (inside b; for zip as stored, maybe
 * compressed) and kind; a pax header or an archive or entry comment comes
 * as an SP_META entry whose data is its text, and so do the bytes no
 * entry or name holds: tar "(tar header at byte N)" (a header's bytes that
 * are neither numbers nor the names read from it: user and group names,
 * what follows a NUL, the block's rest, the padding after the data) and
 * "(after the tar archive's end)" (non-zero bytes after the end block);
 * zip "<name> (extra fields)" (the directory's and local header's extra
 * fields, each subfield's data on a line, the local name when it
 * differs), a member the directory does not list, found by its local
 * header in the bytes no entry covers, as "(not in the directory) <name>"
 * (an SP_FILE or SP_DIR entry), and the rest of those bytes as "(zip bytes
 * outside its entries)" (a data descriptor, a prefix); the binary parts as
 * their runs of non-NUL bytes, one a line.  They return SP_OK, or
 * SP_BAD with err naming the byte offset (the entries before the damage
 * were given).  The entry and its strings live only during the call.
 */
#ifndef SCANPACK_H
#define SCANPACK_H

#include <stddef.h>

typedef enum { SP_PLAIN, SP_GZIP, SP_BZ2, SP_XZ, SP_ZIP, SP_TAR, SP_ZSTD, SP_7Z, SP_LZIP, SP_COMPRESS } sp_kind;

enum { SP_OK = 0, SP_CAP = 1, SP_BAD = 2, SP_NOLIB = 3 };

enum { SP_FILE, SP_DIR, SP_LINK, SP_OTHER, SP_SPARSE, SP_META };

typedef struct {
    const char *name;
    const char *link;             /* a tar link's target, else NULL */
    const unsigned char *data;
    size_t size;                  /* bytes at data */
    int kind;                     /* SP_FILE ... */
    int method;                   /* zip: 0 stored, 8 deflate, other: not read here */
    int encrypted;                /* zip: the entry is encrypted */
} sp_entry;

typedef void (*sp_entry_cb)(void *ctx, const sp_entry *e);

sp_kind sp_detect(const unsigned char *b, size_t n);
const char *sp_kind_name(sp_kind k);
int sp_decompress(sp_kind k, const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn,
                  char *err, size_t errlen);
int sp_inflate_raw(const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn, char *err,
                   size_t errlen);
int sp_gunzip(const unsigned char *b, size_t n, size_t cap, unsigned char **out, size_t *outn, char *err,
              size_t errlen, sp_entry_cb meta, void *ctx);
int sp_tar(const unsigned char *b, size_t n, sp_entry_cb cb, void *ctx, char *err, size_t errlen);
int sp_zip(const unsigned char *b, size_t n, sp_entry_cb cb, void *ctx, char *err, size_t errlen);

#endif
