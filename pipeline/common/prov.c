/* prov: see prov.h. */
#include "prov.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include "facts.h"
#include "paths.h"
#include "util.h"

typedef struct {
    char *path;
    unsigned long long size;
    char sha[65];
} fileprint;

struct prov {
    char stage[64];
    json_t *argv;
    char start[32];
    int64_t t0;
    fileprint *in, *out;
    size_t nin, nout, capin, capout;
    json_t *libs;
    json_t *facts;
};

prov *prov_begin(const char *stage, int argc, char **argv)
{
    prov *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->stage, sizeof p->stage, "%s", stage);
    p->argv = json_array();
    for (int i = 0; i < argc; i++)
        json_array_append_new(p->argv, json_string(argv[i]));
    ut_utc_iso(p->start);
    p->t0 = ut_mono_ns();
    p->libs = json_object();
    char z[64];
    snprintf(z, sizeof z, "%s", zlibVersion());
    json_object_set_new(p->libs, "zlib", json_string(z));
    json_object_set_new(p->libs, "openssl", json_string(OpenSSL_version(OPENSSL_VERSION)));
    json_object_set_new(p->libs, "jansson", json_string(jansson_version_str()));
    return p;
}

static int add(fileprint **v, size_t *n, size_t *cap, const char *path, char *err, size_t errlen)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        fileprint *nv = realloc(*v, nc * sizeof *nv);
        if (!nv) {
            ut_seterr(err, errlen, "provenance: out of memory");
            return -1;
        }
        *v = nv;
        *cap = nc;
    }
    fileprint *f = &(*v)[*n];
    uint64_t size = 0;
    if (ut_sha256_file(path, f->sha, &size, err, errlen) != 0)
        return -1;
    f->size = size;
    f->path = strdup(path);
    if (!f->path) {
        ut_seterr(err, errlen, "provenance: out of memory");
        return -1;
    }
    (*n)++;
    return 0;
}

int prov_input(prov *p, const char *path, char *err, size_t errlen)
{
    return add(&p->in, &p->nin, &p->capin, path, err, errlen);
}

int prov_output(prov *p, const char *path, char *err, size_t errlen)
{
    return add(&p->out, &p->nout, &p->capout, path, err, errlen);
}

void prov_lib(prov *p, const char *name, const char *version)
{
    json_object_set_new(p->libs, name, json_string(version));
}

void prov_facts(prov *p, void *obj)
{
    if (p->facts)
        json_decref(p->facts);
    p->facts = obj;
}

static json_t *prints(const fileprint *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "path", json_string(v[i].path));
        json_object_set_new(o, "size", json_integer((json_int_t)v[i].size));
        json_object_set_new(o, "sha256", json_string(v[i].sha));
        json_array_append_new(a, o);
    }
    return a;
}

int prov_manifest(const prov *p, const char *path, char *err, size_t errlen)
{
    ut_afile a;
    if (ut_aopen(&a, path, err, errlen) != 0)
        return -1;
    fprintf(a.f, "path\tsize\tsha256\n");
    for (size_t i = 0; i < p->nin; i++)
        fprintf(a.f, "%s\t%llu\t%s\n", p->in[i].path, p->in[i].size, p->in[i].sha);
    for (size_t i = 0; i < p->nout; i++)
        fprintf(a.f, "%s\t%llu\t%s\n", p->out[i].path, p->out[i].size, p->out[i].sha);
    return ut_aclose(&a, 1, err, errlen);
}

int prov_end(prov *p, int exit_code, const char *dir, char *err, size_t errlen)
{
    int rc = -1;
    json_t *r = json_object();
    char end[32];
    ut_utc_iso(end);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    json_object_set_new(r, "stage", json_string(p->stage));
    json_object_set(r, "argv", p->argv);
    json_object_set_new(r, "start_utc", json_string(p->start));
    json_object_set_new(r, "end_utc", json_string(end));
    json_object_set_new(r, "exit_code", json_integer(exit_code));
    json_object_set_new(r, "wall_s", json_real((double)(ut_mono_ns() - p->t0) / 1e9));
    json_object_set_new(r, "cpu_user_s", json_real(ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6));
    json_object_set_new(r, "cpu_sys_s", json_real(ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6));
    json_object_set_new(r, "build", facts_build());
    json_object_set(r, "libraries", p->libs);
    json_object_set_new(r, "host", facts_host());
    if (p->facts)
        json_object_set(r, "facts", p->facts);
    json_object_set_new(r, "inputs", prints(p->in, p->nin));
    json_object_set_new(r, "outputs", prints(p->out, p->nout));
    prov_mask_json(r); /* argv, facts, paths: no password in the record */
    char path[4096];
    snprintf(path, sizeof path, "%s/stage-%s.json", dir, p->stage);
    char *text = json_dumps(r, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (!text) {
        ut_seterr(err, errlen, "provenance: cannot encode record");
    } else if (ut_mkdir_p(dir, err, errlen) == 0 &&
               ut_write_file(path, text, strlen(text), err, errlen) == 0) {
        rc = 0;
    }
    free(text);
    json_decref(r);
    json_decref(p->argv);
    json_decref(p->libs);
    if (p->facts)
        json_decref(p->facts);
    for (size_t i = 0; i < p->nin; i++)
        free(p->in[i].path);
    for (size_t i = 0; i < p->nout; i++)
        free(p->out[i].path);
    free(p->in);
    free(p->out);
    free(p);
    return rc;
}

/* ------------------------------------------------------------------ secrets */

/* Appends n bytes of src to out (cut at outlen - 1). */
static void put(char *out, size_t outlen, size_t *o, const char *src, size_t n)
{
    size_t room = outlen - 1 - *o;
    if (n > room)
        n = room;
    memcpy(out + *o, src, n);
    *o += n;
}

/* The end of an unquoted password= value: a space, '&' (a URL's query), '#' or a quote. */
static int ends_value(char c)
{
    return !c || isspace((unsigned char)c) || c == '&' || c == '#' || c == '"' || c == '\'';
}

/* At s, just after "://": the length up to the user part's ':' + 1 and the
 * password's length (the rest up to the last '@' of the authority); 0 when
 * the authority has no user part with a password. */
static size_t url_password(const char *s, size_t *pwlen)
{
    size_t end = 0, at = 0, colon = 0;
    for (; s[end] && !isspace((unsigned char)s[end]) && !strchr("/?#\"'", s[end]); end++)
        if (s[end] == '@')
            at = end + 1;
    if (!at)
        return 0;
    for (; colon < at - 1 && s[colon] != ':'; colon++)
        ;
    if (colon + 1 >= at - 1) /* no ':', or an empty password */
        return 0;
    *pwlen = at - 1 - (colon + 1);
    return colon + 1;
}

/* At s, "password" (any case): the length up to the value and the value's
 * length; 0 when no value follows. */
static size_t setting_password(const char *s, size_t *vlen)
{
    if (strncasecmp(s, "password", 8) != 0)
        return 0;
    size_t j = 8;
    while (s[j] == ' ' || s[j] == '\t')
        j++;
    if (s[j] != '=')
        return 0;
    j++;
    while (s[j] == ' ' || s[j] == '\t')
        j++;
    size_t k = j;
    if (s[k] == '\'' || s[k] == '"') { /* a quoted value, whole (libpq: backslash escapes) */
        char q = s[k++];
        while (s[k] && s[k] != q)
            k += s[k] == '\\' && s[k + 1] ? 2 : 1;
        k += s[k] == q;
    } else
        while (!ends_value(s[k]))
            k++;
    *vlen = k - j;
    return k > j ? j : 0;
}

int prov_mask(const char *in, char *out, size_t outlen)
{
    size_t o = 0;
    int n = 0;
    if (!outlen)
        return 0;
    for (const char *p = in; *p;) {
        size_t keep = 0, len = 0;
        if (!strncmp(p, "://", 3) && (keep = url_password(p + 3, &len)))
            keep += 3;
        else
            keep = setting_password(p, &len);
        if (keep) {
            put(out, outlen, &o, p, keep);
            put(out, outlen, &o, "***", 3);
            n += !(len == 3 && !strncmp(p + keep, "***", 3));
            p += keep + len;
        } else
            put(out, outlen, &o, p++, 1);
    }
    out[o] = 0;
    return n;
}

/* The folder the program runs in, written "." in a record (no path of this
 * machine is published): "/abs/repo/build/pg/sock" -> "./build/pg/sock".
 * Returns 1 when s was changed. */
static int mask_cwd(json_t *j)
{
    static char cwd[4096];
    static size_t clen;
    if (!clen && (!getcwd(cwd, sizeof cwd) || (clen = strlen(cwd)) < 2))
        return clen = 0, 0; /* no cwd, or "/": nothing to mask */
    const char *s = json_string_value(j), *hit = NULL;
    for (const char *p = s; (p = strstr(p, cwd)); p += clen)
        if (p[clen] == '/' || p[clen] == 0 || p[clen] == ' ' || p[clen] == '"') {
            hit = p;
            break;
        }
    if (!hit)
        return 0;
    size_t cap = strlen(s) + 1, o = 0;
    char *m = malloc(cap);
    if (!m)
        exit(1);
    for (const char *p = s; *p;) {
        if (!strncmp(p, cwd, clen) && (p[clen] == '/' || p[clen] == 0 || p[clen] == ' ' || p[clen] == '"')) {
            m[o++] = '.';
            p += clen;
        } else
            m[o++] = *p++;
    }
    m[o] = 0;
    json_string_set(j, m);
    free(m);
    return 1;
}

int prov_mask_json(void *json)
{
    json_t *j = json;
    int n = 0;
    if (json_is_string(j)) {
        mask_cwd(j);
        const char *s = json_string_value(j);
        if (!strstr(s, "://") && !strcasestr(s, "password"))
            return 0;
        size_t cap = PROV_MASK_CAP(strlen(s));
        char *m = malloc(cap);
        if (!m)
            exit(1);
        if ((n = prov_mask(s, m, cap)) > 0 && json_string_set(j, m) != 0)
            json_string_set(j, "***");
        free(m);
    } else if (json_is_object(j)) {
        const char *key;
        json_t *v;
        json_object_foreach(j, key, v)
            n += prov_mask_json(v);
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v)
            n += prov_mask_json(v);
    }
    return n;
}

/* ------------------------------------------------------------------ the preregistration */

const char *const PROV_PREREG_FILES[PROV_NPREREG] = {"data/guesses.tsv",         "data/design.md",
                                                     "data/quiet.tsv",           "lab/arms.tsv",
                                                     "pipeline/comparisons.tsv", "pipeline/ap_arms.tsv",
                                                     "data/profiles.tsv"};

int prov_prereg_compare(const void *reg, const char *const paths[PROV_NPREREG], int st[PROV_NPREREG],
                        char sha[PROV_NPREREG][65], unsigned long long size[PROV_NPREREG], char *err,
                        size_t errlen)
{
    const json_t *files = reg ? json_object_get(reg, "files") : NULL;
    for (int i = 0; i < PROV_NPREREG; i++) {
        uint64_t sz = 0;
        if (ut_sha256_file(paths[i], sha[i], &sz, err, errlen) != 0)
            return -1;
        size[i] = sz;
        st[i] = PROV_REG_ABSENT;
        size_t k;
        const json_t *e;
        json_array_foreach(files, k, e)
        {
            const char *path = json_string_value(json_object_get(e, "path"));
            if (!path || strcmp(path, PROV_PREREG_FILES[i]) != 0)
                continue;
            const char *want = json_string_value(json_object_get(e, "sha256"));
            const json_t *wsize = json_object_get(e, "size");
            st[i] = want && !strcmp(want, sha[i]) && json_is_integer(wsize) &&
                            json_integer_value(wsize) == (json_int_t)sz
                        ? PROV_REG_SAME
                        : PROV_REG_CHANGED;
            break;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the registered copies */

#define STAGED_DIR ".registered.tmp"
#define OLD_DIR ".registered.old"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* dir and everything under it; 0 when it is gone (or was never there). */
static int rm_tree(const char *dir)
{
    if (access(dir, F_OK) != 0)
        return 0;
    return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int prov_prereg_copies_match(const char *provdir, const char *const paths[PROV_NPREREG])
{
    int same = 1;
    for (int i = 0; i < PROV_NPREREG && same; i++) {
        char copy[4600], err[UT_ERRLEN], *a = NULL, *b = NULL;
        size_t an = 0, bn = 0;
        snprintf(copy, sizeof copy, "%s/" PATH_REGISTERED "/%s", provdir, PROV_PREREG_FILES[i]);
        same = ut_read_file(paths[i], &a, &an, err, sizeof err) == 0 &&
               ut_read_file(copy, &b, &bn, err, sizeof err) == 0 && an == bn && !memcmp(a, b, an);
        free(a);
        free(b);
    }
    return same;
}

int prov_prereg_stage_copies(const char *provdir, const char *const paths[PROV_NPREREG], char *err, size_t errlen)
{
    char stage[4200];
    snprintf(stage, sizeof stage, "%s/" STAGED_DIR, provdir);
    if (rm_tree(stage) != 0) {
        ut_seterr(err, errlen, "%s: cannot remove: %s", stage, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < PROV_NPREREG && !rc; i++) {
        char copy[4600], dir[4600], *buf = NULL;
        size_t n = 0;
        snprintf(copy, sizeof copy, "%s/%s", stage, PROV_PREREG_FILES[i]);
        snprintf(dir, sizeof dir, "%s", copy);
        *strrchr(dir, '/') = 0;
        rc = ut_read_file(paths[i], &buf, &n, err, errlen) != 0 || ut_mkdir_p(dir, err, errlen) != 0 ||
                     ut_write_file(copy, buf, n, err, errlen) != 0
                 ? -1
                 : 0;
        free(buf);
    }
    if (rc != 0)
        rm_tree(stage);
    return rc;
}

int prov_prereg_commit_copies(const char *provdir, char *err, size_t errlen)
{
    char stage[4200], dst[4200], old[4200];
    snprintf(stage, sizeof stage, "%s/" STAGED_DIR, provdir);
    snprintf(dst, sizeof dst, "%s/" PATH_REGISTERED, provdir);
    snprintf(old, sizeof old, "%s/" OLD_DIR, provdir);
    rm_tree(old);
    if (access(dst, F_OK) == 0 && rename(dst, old) != 0) {
        ut_seterr(err, errlen, "%s: cannot be replaced: %s", dst, strerror(errno));
        rm_tree(stage);
        return -1;
    }
    if (rename(stage, dst) != 0) {
        ut_seterr(err, errlen, "%s: cannot be renamed to %s: %s", stage, dst, strerror(errno));
        rename(old, dst);
        rm_tree(stage);
        return -1;
    }
    rm_tree(old);
    return 0;
}

void prov_prereg_drop_copies(const char *provdir)
{
    char stage[4200];
    snprintf(stage, sizeof stage, "%s/" STAGED_DIR, provdir);
    rm_tree(stage);
}
