/* vgz: a gzip file inflated whole in one call, fast (libdeflate), for the
 * readers that otherwise inflate it chunk by chunk with zlib (the raw
 * files' reader, rawread.h; the scanner, scanpack.h).
 *
 * Contract: vgz_whole(gz, n, cap, zero_tail, ...) inflates every gzip
 * member of gz[0 .. n) (RFC 1952: each checked against its CRC-32 and
 * ISIZE) and returns 0 with the bytes in *out (malloc'd, *outn of them,
 * one NUL byte after them; the caller frees it) and, when starts is not
 * NULL, the offset in gz of each member's first byte (*starts malloc'd,
 * *nstarts of them).  A member follows another when the next two bytes
 * are 1f 8b.  It returns -1 (nothing allocated) whenever it does not
 * inflate the whole input as the zlib reading would: built without
 * libdeflate (vgz_available() 0); a member damaged or cut short; a header
 * with FHCRC (zlib checks that header CRC, libdeflate skips it); cap bytes
 * or more (cap 0: no bound); bytes after the last member (with zero_tail,
 * bytes that are all zero are allowed, as the scanner allows them).  On -1
 * the caller reads the input its own way (zlib), whose messages name what
 * is wrong: the bytes inflated are the same either way, only faster here.
 * One difference is not ruled out: a crafted deflate stream that one of
 * the two libraries refuses and the other decodes (their rules for odd
 * Huffman codes, an incomplete or empty one, were not compared here); every
 * stream a compressor writes is read the same by both.
 */
#ifndef VGZ_H
#define VGZ_H

#include <stddef.h>

int vgz_available(void);
int vgz_whole(const unsigned char *gz, size_t n, size_t cap, int zero_tail, unsigned char **out, size_t *outn,
              size_t **starts, size_t *nstarts);

#endif
