/* scanpath: see scanpath.h.  Why each case is in or out: verify/README.md,
 * "The scanner's rules and why" (machine-path). */
#include "scanpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "vutil.h"

#define NFOLD 3
static char g_fold[NFOLD][4096]; /* the root as given (absolute), the root resolved, the working folder */
static int g_cwd_read;

/* a byte of a file or folder name (UTF-8 names included); '/' separates them */
static int pathc(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == '~' || c >= 0x80;
}

/* in made absolute and lexically clean ("." and ".." resolved, no trailing
 * '/') into out; out is "" unless it has two or more parts (a folder of
 * one part, /work or /data, is too common a word to look for) */
static void absolute(const char *in, char *out, size_t outlen)
{
    char cwd[4096], *full, *parts[512];
    size_t np = 0;
    out[0] = 0;
    if (in[0] == '/')
        full = vu_xstrdup(in);
    else if (getcwd(cwd, sizeof cwd))
        full = vu_xasprintf("%s/%s", cwd, in);
    else
        return;
    for (char *save = NULL, *t = strtok_r(full, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (!strcmp(t, "."))
            continue;
        if (!strcmp(t, "..")) {
            np -= np > 0;
            continue;
        }
        if (np < sizeof parts / sizeof *parts)
            parts[np++] = t;
    }
    size_t o = 0;
    for (size_t i = 0; i < np && o + strlen(parts[i]) + 2 < outlen; i++)
        o += (size_t)sprintf(out + o, "/%s", parts[i]);
    if (np < 2)
        out[0] = 0;
    free(full);
}

void sp_set_root(const char *root)
{
    g_fold[0][0] = g_fold[1][0] = 0;
    if (!root)
        return;
    absolute(root, g_fold[0], sizeof g_fold[0]);
    char *r = realpath(root, NULL);
    if (r) {
        absolute(r, g_fold[1], sizeof g_fold[1]);
        if (!strcmp(g_fold[1], g_fold[0]))
            g_fold[1][0] = 0;
        free(r);
    }
}

static void read_cwd(void)
{
    char cwd[4096];
    if (g_cwd_read)
        return;
    g_cwd_read = 1;
    if (getcwd(cwd, sizeof cwd))
        absolute(cwd, g_fold[2], sizeof g_fold[2]);
}

/* does a path start at b[p] (a '/')?  At the start of the text, after a
 * byte that is no part of a path, after "scheme://" (file:///home/...), or
 * right after a short option glued to its value (-I/home/<name>, -L/root/<x>) */
static int at_start(const unsigned char *b, size_t p)
{
    if (p == 0)
        return 1;
    unsigned char c = b[p - 1];
    if (c == '/') {
        size_t q = p;
        while (q > 0 && b[q - 1] == '/')
            q--;
        return q > 0 && b[q - 1] == ':' && p - q == 2;
    }
    if (!pathc(c))
        return 1;
    int letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    return letter && p >= 2 && b[p - 2] == '-' && (p == 2 || !pathc(b[p - 3]));
}

/* the name at s: its end */
static size_t name_end(const unsigned char *b, size_t n, size_t s)
{
    while (s < n && pathc(b[s]))
        s++;
    return s;
}

/* a name that stands for one: empty (<you>, $USER, {user}, %USERNAME%), a
 * pattern (x-*, a$B), dots, a mktemp template, a word for "the user" */
static int placeholder(const unsigned char *b, size_t n, size_t s, size_t e)
{
    static const char *const words[] = {"user", "username", "yourname", "you", "me", "name", "someone", "somebody",
                                        "example", "login"};
    if (e == s)
        return 1;
    if (e < n && strchr("*$<{%[?", b[e]) && b[e])
        return 1;
    size_t dots = 0;
    for (size_t i = s; i < e; i++)
        dots += b[i] == '.';
    if (dots == e - s || memmem(b + s, e - s, "XXXXXX", 6))
        return 1;
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (strlen(words[k]) == e - s && !strncasecmp((const char *)b + s, words[k], e - s))
            return 1;
    return 0;
}

/* a name mktemp or the system made: systemd-private-..., or one that ends
 * in six letters and digits of at least two kinds (lab.a8Kx2Q) */
static int generated(const unsigned char *s, size_t len)
{
    if (len >= 16 && !memcmp(s, "systemd-private-", 16))
        return 1;
    if (len < 6)
        return 0;
    int up = 0, lo = 0, dg = 0;
    for (const unsigned char *t = s + len - 6; t < s + len; t++) {
        if (*t >= 'A' && *t <= 'Z')
            up = 1;
        else if (*t >= 'a' && *t <= 'z')
            lo = 1;
        else if (*t >= '0' && *t <= '9')
            dg = 1;
        else
            return 0;
    }
    return up + lo + dg >= 2;
}

static int prefix(const unsigned char *b, size_t n, size_t p, const char *s)
{
    size_t l = strlen(s);
    return p + l <= n && !memcmp(b + p, s, l);
}

/* the path b[p..e) (p at its first '/'): a machine's or a user's folder? */
static int machine_path(const unsigned char *b, size_t n, size_t p, size_t e)
{
    for (int k = 0; k < NFOLD; k++) {
        size_t l = strlen(g_fold[k]);
        if (l && p + l <= e && !memcmp(b + p, g_fold[k], l) && (p + l == e || b[p + l] == '/'))
            return 1;
    }
    if (prefix(b, n, p, "/private/"))
        p += 8; /* macOS: /private/tmp, /private/var/folders */
    static const char *const homes[] = {"/home/", "/Users/", "/var/folders/"};
    for (int k = 0; k < 3; k++) {
        if (!prefix(b, n, p, homes[k]))
            continue;
        size_t s = p + strlen(homes[k]), ne = name_end(b, n, s);
        if (k == 1 && ne - s == 6 && !memcmp(b + s, "Shared", 6))
            return 0;
        return !placeholder(b, n, s, ne);
    }
    if (prefix(b, n, p, "/root/") && p + 6 < e)
        return 1; /* inside root's home; the folder named alone is not */
    if (prefix(b, n, p, "/run/user/")) {
        size_t s = p + 10, ne = s;
        while (ne < n && b[ne] >= '0' && b[ne] <= '9')
            ne++;
        return ne > s && (ne == e || b[ne] == '/');
    }
    static const char *const tmps[] = {"/tmp/", "/var/tmp/"};
    for (int k = 0; k < 2; k++) {
        if (!prefix(b, n, p, tmps[k]))
            continue;
        size_t s = p + strlen(tmps[k]), ne = name_end(b, n, s);
        if (placeholder(b, n, s, ne))
            return 0;
        /* a folder with more inside it, or a name mktemp made; a name a
         * program chose alone (/tmp/never.json, a lock file) is not */
        return (ne < e && b[ne] == '/' && ne + 1 < e) || generated(b + s, ne - s);
    }
    return 0;
}

/* C:\Users\<name> */
static void windows_homes(sr_list *l, const unsigned char *b, size_t n)
{
    const unsigned char *q = b, *end = b + n;
    /* each ":\\": a ':' found with memchr, then the byte after it (memmem
     * with a needle this short is several times slower on the raw files) */
    while (q < end && (q = memchr(q, ':', (size_t)(end - q))) != NULL) {
        size_t i = (size_t)(q - b);
        if (i + 1 >= n || b[i + 1] != '\\') {
            q++;
            continue;
        }
        q += 2;
        int letter = i >= 1 && ((b[i - 1] >= 'A' && b[i - 1] <= 'Z') || (b[i - 1] >= 'a' && b[i - 1] <= 'z'));
        if (!letter || (i >= 2 && pathc(b[i - 2])) || i + 8 > n || strncasecmp((const char *)b + i + 2, "users\\", 6))
            continue;
        size_t s = i + 8, ne = name_end(b, n, s);
        if (placeholder(b, n, s, ne) || (ne - s == 6 && !strncasecmp((const char *)b + s, "public", 6)))
            continue;
        size_t e = ne;
        while (e < n && (pathc(b[e]) || b[e] == '\\'))
            e++;
        sr_add(l, "machine-path", i - 1, e - (i - 1));
        q = b + e;
    }
}

void sp_buffer(sr_list *l, const unsigned char *b, size_t n)
{
    read_cwd();
    const unsigned char *q = b, *end = b + n;
    while ((q = memchr(q, '/', (size_t)(end - q))) != NULL) {
        size_t p = (size_t)(q - b);
        q++;
        if (!at_start(b, p))
            continue;
        size_t e = p;
        while (e < n && (pathc(b[e]) || b[e] == '/'))
            e++;
        while (e > p + 1 && b[e - 1] == '.')
            e--; /* a sentence's full stop */
        if (!machine_path(b, n, p, e))
            continue;
        sr_add(l, "machine-path", p, e - p);
        q = b + e;
    }
    windows_homes(l, b, n);
}
