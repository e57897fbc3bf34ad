/* redact: see redact.h. */
#include "redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "prov.h"

static int is_hex(int c) { return isxdigit((unsigned char)c); }
static int is_word(int c) { return isalnum((unsigned char)c) || c == '-' || c == '_'; }

/* Length of an IPv4 address at s (not part of a longer dotted number), or 0. */
static size_t ipv4_at(const char *s, const char *start, int *loopback_or_any)
{
    if (s > start && (isdigit((unsigned char)s[-1]) || s[-1] == '.'))
        return 0;
    const char *p = s;
    int oct[4];
    for (int i = 0; i < 4; i++) {
        if (!isdigit((unsigned char)*p))
            return 0;
        int v = 0, n = 0;
        while (isdigit((unsigned char)*p) && n < 4) {
            v = v * 10 + (*p - '0');
            p++;
            n++;
        }
        if (n > 3 || v > 255)
            return 0;
        oct[i] = v;
        if (i < 3) {
            if (*p != '.')
                return 0;
            p++;
        }
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
        return 0;
    *loopback_or_any = oct[0] == 127 || (oct[0] == 0 && oct[1] == 0 && oct[2] == 0 && oct[3] == 0);
    return (size_t)(p - s);
}

/* Length of an IPv6 address at s (at least two colons, hex groups), or 0. */
static size_t ipv6_at(const char *s, const char *start, int *loopback_or_any)
{
    if (s > start && (is_hex(s[-1]) || s[-1] == ':'))
        return 0;
    const char *p = s;
    int colons = 0, hexes = 0, dbl = 0;
    while (is_hex(*p) || *p == ':') {
        if (*p == ':') {
            colons++;
            if (p[1] == ':')
                dbl = 1;
        } else
            hexes++;
        p++;
    }
    /* an IPv4 tail (::ffff:10.1.2.3) is part of the address */
    if (*p == '.') {
        const char *last = p;
        while (last > s && last[-1] != ':')
            last--;
        int any;
        size_t v4 = last > s ? ipv4_at(last, last, &any) : 0;
        if (last + v4 > p)
            p = last + v4;
    }
    size_t len = (size_t)(p - s);
    if (colons < 2 || (colons < 7 && !dbl) || len < 2)
        return 0;
    /* times like 12:34:56 are not addresses: require a hex letter, "::" or 7 colons */
    int letters = 0;
    for (const char *q = s; q < p; q++)
        letters += isalpha((unsigned char)*q);
    if (!letters && !dbl && colons < 7)
        return 0;
    *loopback_or_any = (len == 3 && !strncmp(s, "::1", 3)) || (len == 2 && !strncmp(s, "::", 2));
    (void)hexes;
    return len;
}

static const char *const SUFFIXES[] = {".com", ".net", ".org", ".io", ".internal", ".local", ".cloud",
                                       ".dev", ".app", ".edu", ".gov", ".co", ".info", ".biz"};

/* Length of a dotted host name ending in a known suffix at s, or 0. */
static size_t host_at(const char *s, const char *start)
{
    if (s > start && (is_word(s[-1]) || s[-1] == '.'))
        return 0;
    const char *p = s;
    int dots = 0, alpha = 0;
    while (is_word(*p) || (*p == '.' && is_word(p[1]))) {
        dots += *p == '.';
        alpha += isalpha((unsigned char)*p) != 0;
        p++;
    }
    if (dots < 1 || !alpha)
        return 0;
    size_t len = (size_t)(p - s);
    for (size_t i = 0; i < sizeof SUFFIXES / sizeof SUFFIXES[0]; i++) {
        size_t sl = strlen(SUFFIXES[i]);
        if (len > sl && !strncasecmp(p - sl, SUFFIXES[i], sl))
            return len;
    }
    return 0;
}

static size_t resource_id_at(const char *s, const char *start)
{
    static const char *const P[] = {"i-", "sg-", "vpc-", "subnet-", "eni-", "ami-", "vol-", "snap-", "igw-", "rtb-"};
    if (s > start && is_word(s[-1]))
        return 0;
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++) {
        size_t pl = strlen(P[i]);
        if (strncmp(s, P[i], pl) != 0)
            continue;
        size_t n = 0;
        while (is_hex(s[pl + n]))
            n++;
        if ((n == 8 || n == 17) && !is_word(s[pl + n]))
            return pl + n;
    }
    return 0;
}

static size_t digits12_at(const char *s, const char *start)
{
    if (s > start && (isdigit((unsigned char)s[-1]) || s[-1] == '.'))
        return 0;
    size_t n = 0;
    while (isdigit((unsigned char)s[n]))
        n++;
    if (n == 12 && s[n] != '.')
        return 12;
    return 0;
}

static size_t key_at(const char *s, const char *start)
{
    if (s > start && is_word(s[-1]))
        return 0;
    if ((!strncmp(s, "AKIA", 4) || !strncmp(s, "ASIA", 4))) {
        size_t n = 4;
        while (isupper((unsigned char)s[n]) || isdigit((unsigned char)s[n]))
            n++;
        if (n == 20)
            return 20;
    }
    static const char *const K[] = {"key=", "secret=", "token=", "password=", "passwd="};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        size_t kl = strlen(K[i]);
        if (!strncasecmp(s, K[i], kl)) {
            size_t n = 0;
            while (s[kl + n] && !isspace((unsigned char)s[kl + n]) && s[kl + n] != '&' && s[kl + n] != ',')
                n++;
            if (n >= 8)
                return kl + n;
        }
    }
    return 0;
}

static size_t email_at(const char *s, const char *start)
{
    if (s > start && (is_word(s[-1]) || s[-1] == '.'))
        return 0;
    const char *p = s;
    while (is_word(*p) || *p == '.' || *p == '+')
        p++;
    if (p == s || *p != '@')
        return 0;
    const char *q = p + 1;
    int dots = 0;
    while (is_word(*q) || (*q == '.' && is_word(q[1]))) {
        dots += *q == '.';
        q++;
    }
    return dots ? (size_t)(q - s) : 0;
}

static int redact_masked(const char *in, char *out, size_t outlen);

/* Passwords first, as every record of the lab masks them (prov_mask), then the rest. */
int redact_line(const char *in, char *out, size_t outlen)
{
    size_t cap = PROV_MASK_CAP(strlen(in));
    char *m = malloc(cap);
    if (!m)
        exit(1);
    int n = prov_mask(in, m, cap);
    n += redact_masked(m, out, outlen);
    free(m);
    return n;
}

static int redact_masked(const char *in, char *out, size_t outlen)
{
    static char host[256];
    static int have_host = -1;
    if (have_host < 0) {
        have_host = gethostname(host, sizeof host) == 0 && strlen(host) >= 3;
        if (have_host && (!strcmp(host, "localhost")))
            have_host = 0;
    }
    size_t o = 0;
    int n = 0;
    /* from: where the text the output shows begins; after a replacement,
     * what follows is judged as the output reads ("[ip6]" then a host
     * name), not glued to the characters replaced */
    const char *p = in, *from = in;
    while (*p && o + 16 < outlen) {
        const char *word = NULL;
        size_t len = 0;
        int safe = 0;
        if ((len = key_at(p, from)))
            word = "[key]";
        else if ((len = email_at(p, from)))
            word = "[email]";
        else if ((len = resource_id_at(p, from)))
            word = "[id]";
        else if ((len = ipv4_at(p, from, &safe)) && !safe)
            word = "[ip]";
        else if (len && safe)
            word = NULL;
        else if ((len = ipv6_at(p, from, &safe)) && !safe)
            word = "[ip6]";
        else if (len && safe)
            word = NULL;
        else if ((len = host_at(p, from)))
            word = "[host]";
        else if (have_host && !strncmp(p, host, strlen(host)) && !(p > from && is_word(p[-1])) &&
                 !is_word(p[strlen(host)]))
            len = strlen(host), word = "[host]";
        else if ((len = digits12_at(p, from)))
            word = "[account]";
        if (word) {
            size_t wl = strlen(word);
            memcpy(out + o, word, wl);
            o += wl;
            p += len;
            from = p;
            n++;
        } else if (len) {
            memcpy(out + o, p, len < outlen - o - 1 ? len : outlen - o - 1);
            o += len < outlen - o - 1 ? len : outlen - o - 1;
            p += len;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = 0;
    return n;
}
