/* mfiles: see mfiles.h for the contract. */
#include "mfiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const char *const MF_EVENT_FILES[MF_NEVENT] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz", "events.tsv.gz",
                                               "machine.tsv.gz"};
const char *const MF_PREP_FILES[MF_NPREP] = {"test.tsv", "model.json", "standin.tsv", "scores.tsv",
                                             "summary.json"};
const char *const MF_REF_FILES[MF_NREF] = {"scores.tsv", "summary.json"};
const char *const MF_PROGS[MF_NPROG] = {"run", "store", "service", "tester"};

int mf_event_files(int stores, const char **names)
{
    int n = 0;
    for (; n < MF_NEVENT; n++)
        names[n] = MF_EVENT_FILES[n];
    if (stores == 2)
        names[n++] = MF_STORE2_FILE;
    return n;
}

char *mf_str(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(stderr, "%s: out of memory\n", ut_prog());
        exit(1);
    }
    return s;
}

char *mf_shq(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *o = malloc(n), *q = o;
    if (!o)
        exit(1);
    *q++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(q, "'\\''", 4);
            q += 4;
        } else {
            *q++ = *p;
        }
    }
    *q++ = '\'';
    *q = 0;
    return o;
}

void mf_list_add(mf_list *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            exit(1);
    }
    l->v[l->n++] = s;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void mf_list_sort(mf_list *l)
{
    if (l->n)
        qsort(l->v, l->n, sizeof *l->v, cmp_str);
}

void mf_list_free(mf_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

int mf_rm_rf(const char *path) { return ut_rm_tree(path); }

void mf_list_dir(const char *dir, mf_list *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        mf_list_add(out, mf_str("%s", e->d_name));
    }
    closedir(d);
    mf_list_sort(out);
}

void mf_list_files(const char *root, const char *rel, mf_list *out)
{
    char *dir = mf_str("%s/%s", root, rel);
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *r = mf_str("%s/%s", rel, e->d_name), *full = mf_str("%s/%s", root, r);
        struct stat st;
        int ok = lstat(full, &st) == 0;
        if (ok && S_ISDIR(st.st_mode)) {
            mf_list_files(root, r, out);
            free(r);
        } else if (ok && S_ISREG(st.st_mode)) {
            mf_list_add(out, r);
        } else {
            free(r);
        }
        free(full);
    }
    closedir(d);
    free(dir);
}

int mf_write_json(const char *path, json_t *o, char *err, size_t errlen)
{
    char *text = json_dumps(o, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (!text) {
        ut_seterr(err, errlen, "%s: cannot encode", path);
        return -1;
    }
    int rc = ut_write_file(path, text, strlen(text), err, errlen);
    free(text);
    return rc;
}

void mf_attempt_keep(const char *runsdir, const char *run)
{
    char *rec = mf_str("%s/%s.json", runsdir, run);
    if (access(rec, F_OK) == 0)
        for (int n = 1; n < 1000; n++) {
            char *old = mf_str("%s/%s.attempt-%d.json", runsdir, run, n);
            int taken = access(old, F_OK) == 0;
            if (!taken && rename(rec, old) != 0)
                ut_err("%s: cannot keep as %s: %s", rec, old, strerror(errno));
            free(old);
            if (!taken)
                break;
        }
    free(rec);
}

json_t *mf_attempts(const char *runsdir, const char *run)
{
    json_t *a = json_array();
    for (int n = 1; n < 1000; n++) {
        char *name = mf_str("%s.attempt-%d.json", run, n), *old = mf_str("%s/%s", runsdir, name);
        int there = access(old, F_OK) == 0;
        if (there)
            json_array_append_new(a, json_string(name));
        free(old);
        free(name);
        if (!there)
            break;
    }
    return a;
}

int mf_attempt_next(const char *runsdir, const char *run)
{
    int n = 1;
    for (; n < 1000; n++) {
        char *old = mf_str("%s/%s.attempt-%d.json", runsdir, run, n);
        int there = access(old, F_OK) == 0;
        free(old);
        if (!there)
            break;
    }
    return n;
}

int mf_attempt_move(const char *raw, const char *attdir, const char *runsdir, const char *run, int *moved, char *err,
                    size_t errlen)
{
    *moved = 0;
    char *from = mf_str("%s/%s", raw, run);
    struct stat st;
    if (lstat(from, &st) != 0) {
        free(from);
        return 0;
    }
    int n = mf_attempt_next(runsdir, run), rc = 0;
    char *to = mf_str("%s/%s-a%d", attdir, run, n);
    if (ut_mkdir_p(attdir, err, errlen) != 0) {
        rc = -1;
    } else if (lstat(to, &st) == 0 || errno != ENOENT) {
        ut_seterr(err, errlen, "%s: already there: the disturbed attempt %s is not moved over it (nothing is "
                  "overwritten); move one of them away", to, from);
        rc = -1;
    } else if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) != 0 &&
               (errno != EINVAL && errno != ENOSYS ? 1 : rename(from, to) != 0)) {
        ut_seterr(err, errlen, "%s: cannot move to %s: %s", from, to, strerror(errno));
        rc = -1;
    } else {
        *moved = n;
    }
    free(from);
    free(to);
    return rc;
}

int mf_attempt_parse(const char *name, char *run, size_t rl, int *n)
{
    const char *a = strrchr(name, '-');
    if (!a || a == name || a[1] != 'a' || a[2] < '1' || a[2] > '9' || (size_t)(a - name) >= rl)
        return -1;
    long v = 0;
    for (const char *p = a + 2; *p; p++) {
        if (*p < '0' || *p > '9' || v > 100000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    snprintf(run, rl, "%.*s", (int)(a - name), name);
    *n = (int)v;
    return 0;
}

int mf_write_manifest(const char *path, const char *root, const mf_list *files, char *err, size_t errlen)
{
    ut_afile a;
    if (ut_aopen(&a, path, err, errlen) != 0)
        return -1;
    fprintf(a.f, "path\tsize\tsha256\n");
    for (size_t i = 0; i < files->n; i++) {
        char *full = mf_str("%s/%s", root, files->v[i]), sha[65];
        uint64_t size = 0;
        int bad = ut_sha256_file(full, sha, &size, err, errlen) != 0;
        free(full);
        if (bad) {
            ut_aclose(&a, 0, NULL, 0);
            return -1;
        }
        fprintf(a.f, "%s\t%llu\t%s\n", files->v[i], (unsigned long long)size, sha);
    }
    return ut_aclose(&a, 1, err, errlen);
}
