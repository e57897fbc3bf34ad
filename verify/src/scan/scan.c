/* scan: the secret scanner over one text: the tokens, the first rules, one finding per place; see scan.h. */
#include "scan.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scanassign.h"
#include "scanpath.h"
#include "scanrules.h"
#include "scantext.h"
#include "vutil.h"

/* ---- character classes ---- */

enum {
    C_B64 = 1,    /* A-Z a-z 0-9 + /   (base64; '=' padding left out) */
    C_URL = 2,    /* A-Z a-z 0-9 - _   (base64url, ids) */
    C_DD = 4,     /* 0-9 .             (dotted numbers) */
    C_HC = 8,     /* 0-9 a-f A-F :     (IPv6) */
    C_COLON = 16,
    C_SEP = 32,   /* - _ inside a url run */
    C_ALPHA = 64, /* A-Z a-z */
};

static unsigned char cls[256];
static int cls_ready;

static void init_cls(void)
{
    if (cls_ready)
        return;
    for (int c = 0; c < 256; c++) {
        unsigned char v = 0;
        int alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (alnum || c == '+' || c == '/')
            v |= C_B64;
        if (alnum || c == '-' || c == '_')
            v |= C_URL;
        if (c == '-' || c == '_')
            v |= C_SEP;
        if ((c >= '0' && c <= '9') || c == '.')
            v |= C_DD;
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':')
            v |= C_HC;
        if (c == ':')
            v |= C_COLON;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
            v |= C_ALPHA;
        cls[c] = v;
    }
    cls_ready = 1;
}

static inline int is_alnum(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
static inline int is_upnum(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
static inline int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}
static inline int is_lhex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

typedef sr_list flist;

/* case-insensitive look for any of words in the up-to-max bytes before s on the same line */
static int context_before(const unsigned char *b, size_t s, size_t max, const char *const *words, size_t nw)
{
    char win[128];
    if (max > sizeof win - 1)
        max = sizeof win - 1;
    size_t from = s > max ? s - max : 0;
    for (size_t i = s; i > from; i--)
        if (b[i - 1] == '\n') {
            from = i;
            break;
        }
    size_t l = s - from;
    for (size_t i = 0; i < l; i++)
        win[i] = (char)tolower(b[from + i]);
    win[l] = 0;
    for (size_t k = 0; k < nw; k++)
        if (memmem(win, l, words[k], strlen(words[k])))
            return 1;
    return 0;
}

/* ---- token rules ---- */

static const char *const keyish[] = {"secret", "key", "token", "passw", "credential", "auth"};
static const char *const acctish[] = {"account", "acct", "owner", "arn:aws"};

static int is_hash_like(const unsigned char *s, size_t n)
{
    if (n != 40 && n != 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_lhex(s[i]))
            return 0;
    return 1;
}

static void entropy_rule(flist *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    size_t len = e - s;
    if (len < 32)
        return;
    const unsigned char *t = b + s;
    if (is_hash_like(t, len))
        return;
    if (sr_is_example(b, n, s, e))
        return;
    /* data:image/...;base64, payloads (figures embedded in HTML) */
    if (s >= 7 && !memcmp(b + s - 7, "base64,", 7)) {
        size_t from = s > 100 ? s - 100 : 0;
        if (memmem(b + from, s - from, "data:image/", 11))
            return;
    }
    int digit = 0, letter = 0, upper = 0, lower = 0, hexonly = 1, slashes = 0;
    int switches = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = t[i];
        int d = is_digit(c), L = (c >= 'A' && c <= 'Z'), lo = (c >= 'a' && c <= 'z');
        digit |= d;
        letter |= L | lo;
        upper |= L;
        lower |= lo;
        if (!(d || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            hexonly = 0;
        slashes += c == '/';
        if (i > 0) {
            unsigned char p = t[i - 1];
            int pd = is_digit(p), pl = isalpha(p) != 0;
            if ((pd && (L || lo)) || (pl && d))
                switches++;
        }
    }
    /* a structured name: parts split by '/', '-' or '_' (a path, a URL, a
     * file name like 911_debian_XF86Config_to_XF86Config-4) where at least
     * half of the parts are plain (lowercase words, Capitalized words,
     * numbers): judge each part alone */
    size_t parts = 0, plain = 0, p0 = 0, seps = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && t[i] != '/' && t[i] != '-' && t[i] != '_')
            continue;
        seps += i < len;
        size_t pl = i - p0;
        if (pl > 0) {
            parts++;
            int lower = pl >= 2, digits = 1, cap = pl >= 3 && t[p0] >= 'A' && t[p0] <= 'Z';
            for (size_t k = p0; k < i; k++) {
                lower &= t[k] >= 'a' && t[k] <= 'z';
                digits &= is_digit(t[k]);
                if (k > p0)
                    cap &= t[k] >= 'a' && t[k] <= 'z';
            }
            plain += (size_t)(lower || digits || cap);
        }
        p0 = i + 1;
    }
    if (seps >= 2 && 2 * plain >= parts) {
        p0 = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i < len && t[i] != '/' && t[i] != '-' && t[i] != '_')
                continue;
            if (i - p0 >= 32)
                entropy_rule(l, b, n, s + p0, s + i);
            p0 = i + 1;
        }
        return;
    }
    (void)slashes;
    if (!digit || !letter)
        return;
    if (hexonly && upper && lower)
        hexonly = 0;
    double h = sr_entropy(t, len);
    if (hexonly) {
        if (h >= 3.0)
            sr_add(l, "high-entropy-token", s, len);
        return;
    }
    if (switches >= 3 && h >= 4.0)
        sr_add(l, "high-entropy-token", s, len);
}

/* a run of [A-Za-z0-9+/] */
static void b64_run(flist *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    size_t len = e - s;
    /* AWS access key ids inside the run */
    for (size_t i = s; i + 20 <= e; i++) {
        if (b[i] != 'A' || b[i + 2] != 'I' || b[i + 3] != 'A' || (b[i + 1] != 'K' && b[i + 1] != 'S'))
            continue;
        if (i > 0 && is_upnum(b[i - 1]))
            continue;
        size_t k = 4;
        while (k < 20 && is_upnum(b[i + k]))
            k++;
        if (k < 20 || (i + 20 < n && is_upnum(b[i + 20])))
            continue;
        if (sr_is_example(b, n, i, i + 20))
            continue;
        sr_add(l, "aws-access-key-id", i, 20);
        i += 19;
    }
    /* a secret key: exactly 40 base64 chars after a key-ish name */
    if (len == 40 && !is_hash_like(b + s, len) && !sr_is_example(b, n, s, e)) {
        int letter = 0;
        for (size_t i = s; i < e; i++)
            letter |= isalpha(b[i]) != 0;
        if (letter && context_before(b, s, 40, keyish, sizeof keyish / sizeof keyish[0]))
            sr_add(l, "aws-secret-key", s, len);
    }
    entropy_rule(l, b, n, s, e);
}

/* a run of [A-Za-z0-9_-] holding at least one - or _ */
static void url_run(flist *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    static const char *const pre[] = {"i", "sg", "vpc", "eni", "subnet", "ami", "vol", "snap"};
    for (size_t j = s + 1; j < e; j++) {
        if (b[j] != '-')
            continue;
        size_t k = j;
        while (k > s && is_alnum(b[k - 1]))
            k--;
        size_t pl = j - k;
        int match = 0;
        for (size_t q = 0; q < sizeof pre / sizeof pre[0]; q++)
            if (strlen(pre[q]) == pl && !memcmp(b + k, pre[q], pl))
                match = 1;
        if (!match)
            continue;
        size_t h = j + 1;
        while (h < e && is_lhex(b[h]))
            h++;
        size_t hl = h - j - 1;
        if ((hl == 8 || hl == 17) && (h >= n || !is_alnum(b[h])))
            sr_add(l, "cloud-resource-id", k, h - k);
    }
    int sep = 0;
    for (size_t i = s; i < e; i++)
        sep |= (b[i] == '-' || b[i] == '_');
    if (sep)
        entropy_rule(l, b, n, s, e);
}

/* a run of [0-9.] */
static void dd_run(flist *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    size_t len = e - s;
    if (len > 1 && b[e - 1] == '.')
        len--; /* a sentence's full stop */
    int dots = 0;
    for (size_t i = s; i < s + len; i++)
        dots += b[i] == '.';
    if (dots == 0 && len == 12) {
        if (context_before(b, s, 48, acctish, sizeof acctish / sizeof acctish[0]) ||
            (s + len + 8 <= n && !memcmp(b + s + len, ".dkr.ecr", 8)))
            sr_add(l, "account-number", s, len);
        return;
    }
    if (dots != 3)
        return;
    int oct[4], k = 0, v = -1, nd = 0;
    for (size_t i = s; i <= s + len; i++) {
        if (i == s + len || b[i] == '.') {
            if (nd == 0 || nd > 3 || v > 255)
                return;
            oct[k++] = v;
            v = -1;
            nd = 0;
        } else {
            if (++nd > 3)
                return; /* not an octet (and v must not overflow) */
            v = (v < 0 ? 0 : v) * 10 + (b[i] - '0');
        }
    }
    if (oct[0] == 127)
        return; /* loopback */
    /* a version, not an address: v1.2.3.4, 1.2.3.4-1 (Debian revision), 1.2.3.4+x, 1.2.3.4~rc1 */
    if (s > 0 && (b[s - 1] == 'v' || b[s - 1] == 'V'))
        return;
    if (s + len + 1 < n && (b[s + len] == '-' || b[s + len] == '+' || b[s + len] == '~') && is_alnum(b[s + len + 1]))
        return;
    if (oct[0] == 0 && oct[1] == 0 && oct[2] == 0 && oct[3] == 0)
        return; /* unspecified */
    sr_add(l, "ipv4-address", s, len);
}

/* groups of an IPv6 part "a:b:c" (may be empty); -1 when not valid */
static int v6_groups(const unsigned char *t, size_t len, unsigned *g, int max)
{
    int ng = 0;
    if (len == 0)
        return 0;
    size_t i = 0;
    for (;;) {
        size_t j = i;
        unsigned v = 0;
        while (j < len && t[j] != ':') {
            int c = t[j];
            v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
            j++;
        }
        if (j == i || j - i > 4 || ng == max)
            return -1;
        g[ng++] = v;
        if (j == len)
            return ng;
        i = j + 1;
        if (i == len)
            return -1; /* a trailing single colon */
    }
}

/* a run of [0-9A-Fa-f:] with at least two colons */
static void hc_run(flist *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    if (s > 0 && (is_alnum(b[s - 1]) || b[s - 1] == '_' || b[s - 1] == '.'))
        return;
    if (e < n && (is_alnum(b[e]) || b[e] == '_'))
        return;
    if (e < n && b[e] == '.' && e + 1 < n && is_digit(b[e + 1]))
        return; /* IPv4 tail: the IPv4 rule sees it */
    size_t len = e - s;
    const unsigned char *t = b + s;
    const unsigned char *dc = memmem(t, len, "::", 2);
    unsigned full[8] = {0}, head[8], tail[8];
    if (dc) {
        size_t p = (size_t)(dc - t);
        if (memmem(dc + 1, len - p - 1, "::", 2))
            return; /* "::" twice, or ":::" */
        int nh = v6_groups(t, p, head, 8);
        int nt = v6_groups(dc + 2, len - p - 2, tail, 8);
        if (nh < 0 || nt < 0 || nh + nt > 7)
            return;
        for (int i = 0; i < nh; i++)
            full[i] = head[i];
        for (int i = 0; i < nt; i++)
            full[8 - nt + i] = tail[i];
    } else {
        if (v6_groups(t, len, full, 8) != 8)
            return;
    }
    int zeros7 = 1;
    for (int i = 0; i < 7; i++)
        zeros7 &= full[i] == 0;
    if (zeros7 && (full[7] == 0 || full[7] == 1))
        return; /* :: and ::1 */
    sr_add(l, "ipv6-address", s, len);
}

/* ---- literal rules, within one token (a run of classed bytes) ---- */

static void host_rules(flist *l, const unsigned char *b, size_t n, size_t ts, size_t te)
{
    static const char *const suffix[] = {"amazonaws.com", ".compute.internal", ".ec2.internal", ".cloudapp.net",
                                         ".cloudapp.azure.com", ".googleusercontent.com"};
    size_t tl = te - ts;
    for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; k++) {
        size_t sl = strlen(suffix[k]);
        if (sl > tl)
            continue;
        const unsigned char *p = memmem(b + ts, tl, suffix[k], sl);
        if (!p)
            continue;
        size_t s = (size_t)(p - b), e = s + sl;
        while (s > ts && (is_alnum(b[s - 1]) || b[s - 1] == '-' || b[s - 1] == '.'))
            s--;
        sr_add(l, "cloud-host-name", s, e - s);
    }
    static const char *const pfx[] = {"ec2-", "ip-"};
    for (size_t k = 0; k < 2; k++) {
        size_t pl = strlen(pfx[k]);
        const unsigned char *p = b + ts, *end = b + te;
        while (p < end && (p = memmem(p, (size_t)(end - p), pfx[k], pl)) != NULL) {
            size_t s = (size_t)(p - b), i = s + pl;
            p += pl;
            if (s > 0 && is_alnum(b[s - 1]))
                continue;
            int oct[4], ok = 1;
            for (int q = 0; q < 4 && ok; q++) {
                int v = 0, nd = 0;
                while (i < n && is_digit(b[i]) && nd < 4)
                    v = v * 10 + (b[i++] - '0'), nd++;
                if (nd == 0 || nd > 3 || v > 255)
                    ok = 0;
                oct[q] = v;
                if (ok && q < 3) {
                    if (i < n && b[i] == '-')
                        i++;
                    else
                        ok = 0;
                }
            }
            if (!ok || (i < n && is_digit(b[i])))
                continue;
            if (oct[0] == 127 || (oct[0] == 0 && oct[1] == 0 && oct[2] == 0 && oct[3] == 0))
                continue;
            sr_add(l, "cloud-host-name", s, i - s);
        }
    }
}

/* a token ending in "-----BEGIN": is the rest of its line a private key's header? */
static void key_block(flist *l, const unsigned char *b, size_t n, size_t ts, size_t te)
{
    const unsigned char *p = memmem(b + ts, te - ts, "-----BEGIN", 10);
    if (!p)
        return;
    size_t s = (size_t)(p - b), e = s + 10;
    while (e < n && e < s + 80 && b[e] != '\n')
        e++;
    const unsigned char *k = memmem(b + s, e - s, "PRIVATE KEY", 11);
    if (k) {
        e = (size_t)(k - b) + 11;
        while (e < n && b[e] == '-')
            e++;
        sr_add(l, "private-key", s, e - s);
    }
}

/* ---- the scan ---- */

static int cmp_find(const void *x, const void *y)
{
    const scan_finding *a = x, *b = y;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return strcmp(a->rule, b->rule);
}

typedef void (*run_fn)(flist *l, const unsigned char *b, size_t n, size_t s, size_t e);

static void hc_run_checked(flist *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    int colons = 0;
    for (size_t i = s; i < e; i++)
        colons += b[i] == ':';
    if (colons >= 2)
        hc_run(l, b, n, s, e);
}

static void url_run_checked(flist *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    for (size_t i = s; i < e; i++)
        if (b[i] == '-' || b[i] == '_') {
            url_run(l, b, n, s, e);
            return;
        }
}

/* the maximal runs of class x inside the token [ts, te) that are at least min long */
static void sub_runs(flist *l, const unsigned char *b, size_t n, size_t ts, size_t te, unsigned x, size_t min,
                     run_fn fn)
{
    size_t i = ts;
    while (i < te) {
        while (i < te && !(cls[b[i]] & x))
            i++;
        size_t s = i;
        while (i < te && (cls[b[i]] & x))
            i++;
        if (i - s >= min)
            fn(l, b, n, s, i);
    }
}

/* a token that is the payload of data:image/...;base64, (a figure embedded in HTML) */
static int data_image(const unsigned char *b, size_t s)
{
    if (s < 7 || memcmp(b + s - 7, "base64,", 7))
        return 0;
    size_t from = s > 100 ? s - 100 : 0;
    return memmem(b + from, s - from, "data:image/", 11) != NULL;
}

/* ---- base64 and hex runs, decoded and scanned again ---- */

static void scan_text(flist *l, const unsigned char *b, size_t n, int depth);
static size_t keep_best(flist *l);

/* the decoded text d[0..dn) of the run [s, e) of b (how: "base64", "hex"):
 * every rule over it, each finding kept added to l spanning the run */
static void decoded(flist *l, const unsigned char *d, size_t dn, size_t s, size_t e, const char *how, int depth)
{
    flist sub = {NULL, 0, 0, d};
    scan_text(&sub, d, dn, depth + 1);
    size_t kept = keep_best(&sub);
    for (size_t k = 0; k < kept; k++) {
        scan_finding f = sub.v[k];
        char inner[sizeof f.via];
        memcpy(inner, f.via, sizeof inner);
        snprintf(f.via, sizeof f.via, "in %s at byte %zu%s%.60s", how, f.offset, inner[0] ? " > " : "", inner);
        f.offset = s;
        f.len = e - s;
        sr_push(l, &f);
    }
    free(sub.v);
}

/* Runs of at least ST_DECODE_MIN characters of [A-Za-z0-9+/] (with '='
 * padding) or [A-Za-z0-9_-] (base64url), and runs of hex digits, decoded
 * when what they decode to is text (scantext.h) and scanned again.  A run
 * of digits alone is a number; a run of hex digits with a letter is read
 * as hex, not base64; a run mixing both alphabets ('/' and '-': a path) is
 * not base64, its hex runs still are; a figure's data:image payload is
 * not read.  One buffer for a text, taken at the first run that decodes
 * (the lab's runs, hashes and numbers, stop at their first byte or two). */
typedef struct {
    int depth;            /* encodings around the text scanned */
    unsigned char *buf;   /* the decoded bytes, taken at the first run that decodes */
    size_t cap;
} decoder;

static unsigned char *dec_buf(decoder *dc)
{
    if (!dc->buf)
        dc->buf = vu_xmalloc(dc->cap);
    return dc->buf;
}

/* a run [s, e) decoded to text is judged by what it decodes to: the
 * entropy rule's findings within it (added for its token, the tail of l
 * from ts on) go */
static void drop_entropy_in(flist *l, size_t ts, size_t s, size_t e)
{
    size_t k = l->n, kept = l->n;
    while (k > 0 && l->v[k - 1].offset >= ts)
        k--;
    kept = k;
    for (; k < l->n; k++) {
        scan_finding *f = &l->v[k];
        if (!strcmp(f->rule, "high-entropy-token") && f->offset >= s && f->offset + f->len <= e)
            continue;
        if (kept != k)
            l->v[kept] = *f;
        kept++;
    }
    l->n = kept;
}

/* the runs inside the token [ts, te) of b (rules() calls it for each token
 * of 16 bytes or more with a letter, '-' or '_': a line of the lab's
 * numbers costs nothing more) */
static void decode_token(flist *l, const unsigned char *b, size_t n, size_t ts, size_t te, decoder *dc)
{
    size_t i = ts, cap = dc->cap;
    int depth = dc->depth;
    unsigned char probe[8];
    while (i < te) {
        while (i < te && !(cls[b[i]] & (C_B64 | C_URL)))
            i++;
        size_t s = i;
        int std = 0, url = 0, nondigit = 0, nonhex = 0;
        while (i < te && (cls[b[i]] & (C_B64 | C_URL))) {
            unsigned char c = b[i++];
            std |= c == '+' || c == '/';
            url |= c == '-' || c == '_';
            nondigit |= !is_digit(c);
            nonhex |= !(cls[c] & C_HC);
        }
        size_t e = i;
        if (e - s < ST_DECODE_MIN || !nondigit)
            continue;
        if (!nonhex) {   /* hex: a hash's or an id's digits mostly, which stop at the first pair */
            if ((e - s) % 2 == 0 && st_hex_text(b + s, e - s, probe, sizeof probe)) {
                unsigned char *buf = dec_buf(dc);
                size_t dn = st_hex_text(b + s, e - s, buf, cap);
                if (dn) {
                    drop_entropy_in(l, ts, s, e);
                    decoded(l, buf, dn, s, e, "hex", depth);
                }
            }
            continue;
        }
        if (!(std && url) && !data_image(b, s) && st_b64_text(b + s, e - s, probe, sizeof probe)) {
            size_t pe = e;
            while (pe < n && pe < e + 2 && b[pe] == '=')
                pe++;
            unsigned char *buf = dec_buf(dc);
            size_t dn = st_b64_text(b + s, e - s, buf, cap);
            if (dn) {
                drop_entropy_in(l, ts, s, pe);
                decoded(l, buf, dn, s, pe, "base64", depth);
            }
        }
        /* the hex runs inside (0x70617373..., id=70617373...) */
        for (size_t h = s; h < e;) {
            while (h < e && !(cls[b[h]] & C_HC))
                h++;
            size_t hs = h;
            int letter = 0;
            while (h < e && (cls[b[h]] & C_HC)) {
                letter |= !is_digit(b[h]);
                h++;
            }
            if (h - hs >= ST_DECODE_MIN && letter && (h - hs) % 2 == 0 && st_hex_text(b + hs, h - hs, probe, sizeof probe)) {
                unsigned char *buf = dec_buf(dc);
                size_t dn = st_hex_text(b + hs, h - hs, buf, cap);
                if (dn) {
                    drop_entropy_in(l, ts, hs, h);
                    decoded(l, buf, dn, hs, h, "hex", depth);
                }
            }
        }
    }
}


/* every rule over b (and, with dc, over what its runs decode to) */
static void rules(flist *l, const unsigned char *b, size_t n, decoder *dc)
{
    init_cls();
    size_t i = 0;
    const unsigned RUNS = C_B64 | C_URL | C_DD | C_HC;
    while (i < n) {
        while (i < n && !cls[b[i]])
            i++;
        if (i >= n)
            break;
        /* a token: bytes that belong to some class */
        size_t s = i;
        unsigned orr = 0, andd = 0xFF, c;
        while (i < n && (c = cls[b[i]]) != 0) {
            orr |= c;
            andd &= c;
            i++;
        }
        size_t len = i - s;
        if (len < 7 && !(orr & C_COLON))
            continue; /* too short for any rule */
        andd &= RUNS;
        if (len >= 20 && (orr & C_B64)) {
            if (andd & C_B64)
                b64_run(l, b, n, s, i);
            else
                sub_runs(l, b, n, s, i, C_B64, 20, b64_run);
        }
        if (len >= 10 && (orr & C_SEP))
            sub_runs(l, b, n, s, i, C_URL, 10, url_run_checked);
        if (orr & C_DD) {
            if (andd & C_DD)
                dd_run(l, b, n, s, i);
            else
                sub_runs(l, b, n, s, i, C_DD, 7, dd_run);
        }
        if (orr & C_COLON)
            sub_runs(l, b, n, s, i, C_HC, 2, hc_run_checked);
        if (dc && len >= ST_DECODE_MIN && (orr & (C_ALPHA | C_SEP)))
            decode_token(l, b, n, s, i, dc);
        if ((orr & C_ALPHA) && len >= 7) {
            if (orr & (C_DD | C_SEP))
                host_rules(l, b, n, s, i);
            key_block(l, b, n, s, i);
            if (!data_image(b, s))
                sr_token(l, b, n, s, i);
        }
    }
    sa_buffer(l, b, n);
    sp_buffer(l, b, n);
}

/* One finding per place: a finding overlapped by one of a better rank
 * (scanrules.h: a known token over an assignment over the entropy rule)
 * goes, and so does one inside an earlier one of the same rule. */
static size_t keep_best(flist *l)
{
    size_t kept = 0, maxend[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < l->n; k++) {
        scan_finding *f = &l->v[k];
        size_t end = f->offset + f->len;
        int r = sr_rank(f->rule), drop = 0;
        for (int q = 1; q < r; q++)
            drop |= maxend[q] > f->offset;
        for (size_t j = k + 1; j < l->n && l->v[j].offset < end && !drop; j++)
            drop |= sr_rank(l->v[j].rule) < r;
        if (end > maxend[r])
            maxend[r] = end;
        for (size_t j = kept; j-- > 0 && !drop;) {
            if (l->v[j].offset + l->v[j].len <= f->offset)
                break;
            if (!strcmp(l->v[j].rule, f->rule))
                drop = 1;
        }
        if (!drop)
            l->v[kept++] = *f;
    }
    return kept;
}

/* every rule over b, then over what its runs decode to: the findings in l, in offset order */
static void scan_text(flist *l, const unsigned char *b, size_t n, int depth)
{
    decoder dc = {depth, NULL, n < ST_DECODE_MAX ? n : ST_DECODE_MAX};
    rules(l, b, n, depth < ST_DECODE_DEPTH ? &dc : NULL);
    free(dc.buf);
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, cmp_find);
}

size_t scan_buffer(const unsigned char *b, size_t n, scan_cb cb, void *ctx)
{
    unsigned char *d = NULL;
    size_t dn = 0, nm = 0;
    st_mark *m = NULL;
    /* JSON-escaped text is judged decoded; offsets point into b */
    int dec = memchr(b, '\\', n) && st_json_unescape(b, n, &d, &dn, &m, &nm);
    flist l = {NULL, 0, 0, dec ? d : b};
    scan_text(&l, dec ? d : b, dec ? dn : n, 0);
    size_t kept = keep_best(&l);
    for (size_t k = 0; k < kept; k++) {
        scan_finding *f = &l.v[k];
        if (dec) {
            size_t s = st_src(m, nm, f->offset), e = f->offset + f->len >= dn ? n : st_src(m, nm, f->offset + f->len);
            f->offset = s;
            f->len = e > s ? e - s : 1;
        }
        if (cb)
            cb(ctx, f);
    }
    free(l.v);
    free(d);
    free(m);
    return kept;
}
