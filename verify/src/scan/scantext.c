/* scantext: the text encodings the scanner decodes before its rules; see scantext.h. */
#include "scantext.h"

#include <string.h>

#include "vutil.h"

static int hexv(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* \uXXXX at p (p[0] = '\\'): the unit, or -1 */
static long u4(const unsigned char *b, size_t n, size_t p)
{
    if (p + 6 > n || b[p + 1] != 'u')
        return -1;
    long v = 0;
    for (int k = 2; k < 6; k++) {
        int h = hexv(b[p + k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static size_t utf8(unsigned long cp, unsigned char *o)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* the escape at p: its decoded bytes in o (their number in *ol) and its source length, or 0 */
static size_t escape(const unsigned char *b, size_t n, size_t p, unsigned char *o, size_t *ol)
{
    if (p + 1 >= n)
        return 0;
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = memchr(from, b[p + 1], sizeof from - 1);
    if (k) {
        o[0] = (unsigned char)to[k - from];
        *ol = 1;
        return 2;
    }
    long u = u4(b, n, p);
    if (u < 0)
        return 0;
    if (u >= 0xD800 && u <= 0xDBFF) {   /* a high surrogate: with its low one, one code point */
        long lo = u4(b, n, p + 6);
        if (p + 6 < n && b[p + 6] == '\\' && lo >= 0xDC00 && lo <= 0xDFFF) {
            *ol = utf8(0x10000 + (((unsigned long)u - 0xD800) << 10) + ((unsigned long)lo - 0xDC00), o);
            return 12;
        }
        o[0] = '?';
        *ol = 1;
        return 6;
    }
    if (u >= 0xDC00 && u <= 0xDFFF) {
        o[0] = '?';
        *ol = 1;
        return 6;
    }
    *ol = utf8((unsigned long)u, o);
    return 6;
}

int st_json_unescape(const unsigned char *b, size_t n, unsigned char **out, size_t *outn, st_mark **marks,
                     size_t *nmarks)
{
    const unsigned char *p = memchr(b, '\\', n);
    unsigned char tmp[4];
    size_t tl;
    while (p && !escape(b, n, (size_t)(p - b), tmp, &tl)) {
        size_t i = (size_t)(p - b) + 1;
        p = i < n ? memchr(b + i, '\\', n - i) : NULL;
    }
    if (!p)
        return 0;
    unsigned char *o = vu_xmalloc(n + 1);
    st_mark *m = NULL;
    size_t nm = 0, cap = 0, d = 0, i = 0;
    while (i < n) {
        const unsigned char *q = memchr(b + i, '\\', n - i);
        size_t run = q ? (size_t)(q - b) - i : n - i;
        memcpy(o + d, b + i, run);
        d += run;
        i += run;
        if (!q)
            break;
        size_t sl = escape(b, n, i, o + d, &tl);
        if (!sl) {   /* not an escape: the backslash stays */
            o[d++] = b[i++];
            continue;
        }
        if (nm == cap) {
            cap = cap ? 2 * cap : 64;
            m = vu_xrealloc(m, cap * sizeof *m);
        }
        m[nm++] = (st_mark){d, i, tl, sl};
        d += tl;
        i += sl;
    }
    o[d] = 0;
    *out = o;
    *outn = d;
    *marks = m;
    *nmarks = nm;
    return 1;
}

size_t st_src(const st_mark *m, size_t nm, size_t d)
{
    size_t lo = 0, hi = nm;   /* the first mark with m.d > d */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m[mid].d <= d)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return d;
    const st_mark *k = &m[lo - 1];
    if (d < k->d + k->dl)
        return k->s;
    return k->s + k->sl + (d - k->d - k->dl);
}

int st_utf16(const unsigned char *b, size_t n)
{
    if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE)
        return n >= 4 && !b[2] && !b[3] ? 0 : 1; /* not UTF-32 */
    if (n >= 2 && b[0] == 0xFE && b[1] == 0xFF)
        return 2;
    if (n < 8)
        return 0;
    size_t m = n < 1024 ? n & ~(size_t)1 : 1024, z[2] = {0, 0}, ascii[2] = {0, 0};
    for (size_t i = 0; i < m; i++) {
        z[i & 1] += b[i] == 0;
        ascii[i & 1] += b[i] >= 0x09 && b[i] < 0x7F;
    }
    size_t half = m / 2;
    /* LE: nearly every odd byte zero, the even bytes text; BE the other way */
    if (z[1] * 10 >= half * 9 && z[0] * 50 <= half && ascii[0] * 10 >= half * 8)
        return 1;
    if (z[0] * 10 >= half * 9 && z[1] * 50 <= half && ascii[1] * 10 >= half * 8)
        return 2;
    return 0;
}

void st_utf16_decode(const unsigned char *b, size_t n, int be, unsigned char **out, size_t *outn)
{
    unsigned char *o = vu_xmalloc(n / 2 * 3 + 4);
    size_t d = 0, i = 0;
    if (n >= 2 && ((!be && b[0] == 0xFF && b[1] == 0xFE) || (be && b[0] == 0xFE && b[1] == 0xFF)))
        i = 2;
    for (; i + 1 < n; i += 2) {
        unsigned long u = be ? ((unsigned long)b[i] << 8 | b[i + 1]) : ((unsigned long)b[i + 1] << 8 | b[i]);
        if (u >= 0xD800 && u <= 0xDBFF && i + 3 < n) {
            unsigned long lo = be ? ((unsigned long)b[i + 2] << 8 | b[i + 3]) : ((unsigned long)b[i + 3] << 8 | b[i + 2]);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                d += utf8(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00), o + d);
                i += 2;
                continue;
            }
        }
        if (u >= 0xD800 && u <= 0xDFFF)
            u = '?';
        d += utf8(u, o + d);
    }
    o[d] = 0;
    *out = o;
    *outn = d;
}

/* ---- base64 and hex runs: decoded when they are text ---- */

/* one more decoded byte c: 1 while the bytes so far are text (printable
 * ASCII, tab, CR, LF, or UTF-8 of a code point from U+00A0), keeping the
 * UTF-8 state in *more (continuation bytes still expected) */
static int text_byte(unsigned char c, int *more)
{
    if (*more) {
        if ((c & 0xC0) != 0x80)
            return 0;
        (*more)--;
        return 1;
    }
    if (c >= 0x20 && c < 0x7F)
        return 1;
    if (c == '\t' || c == '\n' || c == '\r')
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        *more = 1;
    else if (c >= 0xE0 && c <= 0xEF)
        *more = 2;
    else if (c >= 0xF0 && c <= 0xF4)
        *more = 3;
    else
        return 0;
    return 1;
}

static int b64val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

size_t st_b64_text(const unsigned char *s, size_t n, unsigned char *out, size_t max)
{
    unsigned acc = 0;
    int bits = 0, more = 0;
    size_t o = 0;
    for (size_t i = 0; i < n && o < max; i++) {
        int v = b64val(s[i]);
        if (v < 0)
            break;
        acc = (acc << 6 | (unsigned)v) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            unsigned char c = (unsigned char)(acc >> bits);
            if (!text_byte(c, &more))
                return 0;
            out[o++] = c;
        }
    }
    return more && o < max ? 0 : o;   /* a character cut by max is let be */
}

size_t st_hex_text(const unsigned char *s, size_t n, unsigned char *out, size_t max)
{
    int more = 0;
    size_t o = 0;
    for (size_t i = 0; i + 1 < n && o < max; i += 2) {
        int h = hexv(s[i]), l = hexv(s[i + 1]);
        if (h < 0 || l < 0)
            break;
        unsigned char c = (unsigned char)(h << 4 | l);
        if (!text_byte(c, &more))
            return 0;
        out[o++] = c;
    }
    return more && o < max ? 0 : o;   /* a character cut by max is let be */
}
