/* scantext: the text encodings the scanner decodes before its rules.
 *
 * Contract.
 * st_json_unescape: when b holds a JSON escape (\" \\ \/ \b \f \n \r \t
 * \uXXXX, surrogate pairs joined, the code point written as UTF-8), a
 * malloc'd copy with every escape decoded (*out, *outn; the caller frees
 * it and *marks) and returns 1; else 0 and nothing is allocated.  A
 * backslash that starts no valid escape is kept as it is.  st_src maps an
 * offset of the decoded copy back to the source (a byte decoded from an
 * escape maps to the escape's backslash; an offset just past an escape to
 * just past its source).
 * st_utf16: 1 when b looks like UTF-16 little-endian text, 2 big-endian, 0
 * not (a byte-order mark FF FE / FE FF, or, without one, in its first 1 KiB
 * at least 90% of the odd (LE; even: BE) bytes zero, at most 2% of the
 * others, and at least 80% of the others printable ASCII or tab/newline).
 * st_utf16_decode: that text as UTF-8 (malloc'd, the caller frees; a lone
 * surrogate becomes '?', a trailing odd byte is dropped, the mark too).
 * st_b64_text, st_hex_text: a run of base64 (standard or URL-safe
 * alphabet, up to its first other byte, '=' padding included) or of hex
 * digits (pairs) decoded into out, at most max bytes, when every decoded
 * byte is text (printable ASCII, tab, CR, LF, whole UTF-8 characters):
 * the number of bytes; 0 at the first byte that is not (most runs of the
 * lab's files, hashes and numbers, stop within a few bytes).  scan.c
 * decodes the runs of at least ST_DECODE_MIN characters, at most
 * ST_DECODE_MAX bytes of each, ST_DECODE_DEPTH encodings deep (base64
 * inside base64, and no further).
 */
#ifndef SCANTEXT_H
#define SCANTEXT_H

#include <stddef.h>

typedef struct {
    size_t d, s;     /* an escape decoded at d from source offset s */
    size_t dl, sl;   /* its decoded and source lengths */
} st_mark;

int st_json_unescape(const unsigned char *b, size_t n, unsigned char **out, size_t *outn, st_mark **marks,
                     size_t *nmarks);
size_t st_src(const st_mark *m, size_t nm, size_t d);

int st_utf16(const unsigned char *b, size_t n);
void st_utf16_decode(const unsigned char *b, size_t n, int be, unsigned char **out, size_t *outn);

#define ST_DECODE_MIN 16                /* characters of a run, at least */
#define ST_DECODE_MAX ((size_t)64 << 10) /* bytes decoded from one run, at most */
#define ST_DECODE_DEPTH 2               /* encodings inside encodings */
size_t st_b64_text(const unsigned char *s, size_t n, unsigned char *out, size_t max);
size_t st_hex_text(const unsigned char *s, size_t n, unsigned char *out, size_t max);

#endif
