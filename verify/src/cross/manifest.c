/* manifest: the raw files against the fingerprint manifest; see manifest.h. */
#include "manifest.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vnum.h"
#include "vutil.h"

typedef struct {
    char **v;
    size_t n, cap;
} strlist;

static void sl_push(strlist *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = vu_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

/* every regular file under root/rel, as paths relative to root */
static void walk(const char *root, const char *rel, strlist *out)
{
    char *dir = vu_xasprintf("%s/%s", root, rel);
    char **names;
    size_t n;
    char err[256];
    if (vu_list_dir(dir, &names, &n, err, sizeof err)) {
        free(dir);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char *r = vu_xasprintf("%s/%s", rel, names[i]);
        char *full = vu_xasprintf("%s/%s", root, r);
        if (vu_is_dir(full)) {
            walk(root, r, out);
            free(r);
        } else {
            sl_push(out, r);
        }
        free(full);
    }
    vu_free_names(names, n);
    free(dir);
}

static int safe_rel(const char *p)
{
    if (!*p || p[0] == '/')
        return 0;
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == 0 || (l == 2 && !strncmp(s, "..", 2)) || (l == 1 && s[0] == '.'))
            return 0;
        s += l;
        if (*s == '/')
            s++;
    }
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the paths provenance/manifest-ap.tsv lists (pipeline/APCOST.md 1.10: the
 * files `make ap` writes, two of them under results/reference/); apcheck.c
 * checks that manifest itself.  Sorted; none when it is absent. */
static void ap_listed(const char *root, strlist *out)
{
    char *p = vu_xasprintf("%s/provenance/manifest-ap.tsv", root);
    unsigned char *b;
    size_t len;
    char err[256];
    int rc = vu_read_file(p, &b, &len, err, sizeof err);
    free(p);
    if (rc)
        return;
    char *s = (char *)b, *end = s + len;
    for (long line = 1; s < end; line++) {
        char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e)
            e = end;
        *e = 0;
        char *tab = strchr(s, '\t');
        if (tab)
            *tab = 0;
        if (line > 1 && *s)
            sl_push(out, vu_xstrdup(s));
        s = e + 1;
    }
    free(b);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_str);
}

int mf_check(const char *root, long *nfiles, char *err, size_t errlen)
{
    *nfiles = 0;
    char *mpath = vu_xasprintf("%s/provenance/manifest-measure.tsv", root);
    unsigned char *buf;
    size_t len;
    if (vu_read_file(mpath, &buf, &len, err, errlen)) {
        free(mpath);
        return 2;
    }
    const char *mname = "provenance/manifest-measure.tsv";
    char *p = (char *)buf, *end = p + len;
    long line = 0;
    strlist listed = {0};
    int rc = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (e > p && e[-1] == '\r')
            e[-1] = 0;
        char *f[3] = {p, NULL, NULL};
        int nf = 1;
        for (char *q = p; *q; q++) {
            if (*q == '\t') {
                *q = 0;
                if (nf < 3)
                    f[nf] = q + 1;
                nf++;
            }
        }
        if (line == 1) {
            if (nf != 3 || strcmp(f[0], "path") || strcmp(f[1], "size") || strcmp(f[2], "sha256")) {
                snprintf(err, errlen, "%s:1: header is not \"path size sha256\" (tab-separated)", mpath);
                rc = 2;
                break;
            }
            p = e + 1;
            continue;
        }
        if (nf == 1 && !*f[0]) {
            p = e + 1;
            continue;
        }
        char where[64];
        snprintf(where, sizeof where, "%s:%ld", mname, line);
        if (nf != 3) {
            mm_addf(NULL, where, "fields", "", "3 fields (path size sha256), found %d", nf);
            p = e + 1;
            continue;
        }
        if (!safe_rel(f[0])) {
            mm_add(NULL, where, "path", f[0], "a relative path inside the root folder");
            p = e + 1;
            continue;
        }
        sl_push(&listed, vu_xstrdup(f[0]));
        char *full = vu_xasprintf("%s/%s", root, f[0]);
        unsigned char *fb;
        size_t fl;
        char ferr[512];
        if (vu_read_file(full, &fb, &fl, ferr, sizeof ferr)) {
            mm_add(NULL, f[0], "file", "listed in the manifest", "missing or unreadable");
        } else {
            (*nfiles)++;
            char sha[65];
            vu_sha256_hex(fb, fl, sha);
            long long sz;
            int num = vn_i64(f[1], strlen(f[1]), 0, LLONG_MAX, &sz);
            if (num)
                mm_addf(NULL, where, "size", f[1], "%s (%s has %zu bytes)",
                        num == VN_RANGE ? "an integer from 0 to 2^63-1" : "a decimal integer", f[0], fl);
            else if ((unsigned long long)sz != (unsigned long long)fl)
                mm_addf(NULL, f[0], "size", f[1], "%zu", fl);
            if (strcmp(sha, f[2]))
                mm_add(NULL, f[0], "sha256", f[2], sha);
            free(fb);
        }
        free(full);
        p = e + 1;
    }
    free(buf);
    if (!rc && line == 0) {
        snprintf(err, errlen, "%s: empty file", mpath);
        rc = 2;
    }
    if (!rc) {
        if (listed.n > 1)
            qsort(listed.v, listed.n, sizeof *listed.v, cmp_str);
        for (size_t i = 1; i < listed.n; i++)
            if (!strcmp(listed.v[i], listed.v[i - 1]))
                mm_add(NULL, listed.v[i], "manifest lines", "listed twice", "listed once");
        strlist found = {0}, ap = {0};
        walk(root, "results/raw", &found);
        walk(root, "results/attempts", &found);
        walk(root, "results/reference", &found);
        ap_listed(root, &ap);
        for (size_t i = 0; i < found.n; i++) {
            /* (an empty list has no array: bsearch must not be handed NULL) */
            int in_m = listed.n && bsearch(&found.v[i], listed.v, listed.n, sizeof *listed.v, cmp_str) != NULL;
            int in_ap = !strncmp(found.v[i], "results/reference/", 18) && ap.n &&
                        bsearch(&found.v[i], ap.v, ap.n, sizeof *ap.v, cmp_str) != NULL;
            if (!in_m && !in_ap)
                mm_add(NULL, found.v[i], "manifest", "(not listed)",
                       "every file under results/raw/, results/attempts/ and results/reference/ is listed (the ap_ "
                       "reference files "
                       "by provenance/manifest-ap.tsv)");
            else if (in_m && in_ap)
                mm_add(NULL, found.v[i], "manifest", "listed by manifest-measure.tsv and manifest-ap.tsv",
                       "listed by exactly one (APCOST.md 1.13)");
            free(found.v[i]);
        }
        free(found.v);
        for (size_t i = 0; i < ap.n; i++)
            free(ap.v[i]);
        free(ap.v);
    }
    for (size_t i = 0; i < listed.n; i++)
        free(listed.v[i]);
    free(listed.v);
    free(mpath);
    return rc;
}
