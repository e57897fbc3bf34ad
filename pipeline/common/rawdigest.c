/* rawdigest: see rawdigest.h for the contract. */
#include "rawdigest.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "opt.h"
#include "tsv.h"
#include "util.h"

typedef struct {
    char *path;
    uint64_t size;
    char sha[65];
    size_t line;
} entry;

struct rawdigest_manifest {
    char *path; /* the manifest, for messages */
    entry *v;   /* sorted by path */
    size_t n, cap;
};

static int is_hex64(const char *s)
{
    size_t i = 0;
    for (; s[i]; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return i == 64;
}

static int manifest_row(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    rawdigest_manifest *m = ctx;
    int64_t size;
    char why[96];
    if (!f[0][0])
        return tsv_field_err(err, errlen, at, "path", f[0], "is empty");
    if (opt_i64(f[1], 0, INT64_MAX, &size, why, sizeof why) != 0)
        return tsv_field_err(err, errlen, at, "size", f[1], "%s", why);
    if (!is_hex64(f[2]))
        return tsv_field_err(err, errlen, at, "sha256", f[2], "is not 64 lowercase hex digits");
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        entry *nv = realloc(m->v, cap * sizeof *nv);
        if (!nv) {
            ut_seterr(err, errlen, "%s: out of memory", at->path);
            return -1;
        }
        m->v = nv;
        m->cap = cap;
    }
    entry *e = &m->v[m->n];
    if (!(e->path = strdup(f[0]))) {
        ut_seterr(err, errlen, "%s: out of memory", at->path);
        return -1;
    }
    m->n++;
    e->size = (uint64_t)size;
    strcpy(e->sha, f[2]);
    e->line = at->line;
    return 0;
}

static int by_path(const void *a, const void *b) { return strcmp(((const entry *)a)->path, ((const entry *)b)->path); }

int rawdigest_manifest_load(const char *path, rawdigest_manifest **out, char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    rawdigest_manifest *m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(path))) {
        free(m);
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    tsv_spec s = {path, "path\tsize\tsha256", 3, 1};
    if (tsv_read(&s, manifest_row, m, err, errlen) != 0) {
        rawdigest_manifest_free(m);
        return -1;
    }
    qsort(m->v, m->n, sizeof *m->v, by_path);
    for (size_t i = 1; i < m->n; i++)
        if (!strcmp(m->v[i - 1].path, m->v[i].path)) {
            ut_seterr(err, errlen, "%s:%zu: path %s is given twice (line %zu too)", path, m->v[i].line,
                      m->v[i].path, m->v[i - 1].line);
            rawdigest_manifest_free(m);
            return -1;
        }
    *out = m;
    return 0;
}

void rawdigest_manifest_free(rawdigest_manifest *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].path);
    free(m->v);
    free(m->path);
    free(m);
}

static const entry *find(const rawdigest_manifest *m, const char *path)
{
    entry key = {.path = (char *)path};
    return bsearch(&key, m->v, m->n, sizeof *m->v, by_path);
}

/* The file OUT/REL/NAME (hashed already: sha, size) against the manifest. */
static int held_to_manifest(const rawdigest_manifest *m, const char *root, const char *rel, const char *name,
                            const char *sha, uint64_t size, char *err, size_t errlen)
{
    if (!m)
        return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", rel, name);
    const entry *e = find(m, path);
    if (!e) {
        ut_seterr(err, errlen, "%s/%s: not in %s, which lists every raw file of a complete study: not a file measured",
                  root, path, m->path);
        return -1;
    }
    if (e->size != size || strcmp(e->sha, sha)) {
        ut_seterr(err, errlen, "%s/%s: sha256 %s (%" PRIu64 " bytes), but %s:%zu records %s (%" PRIu64
                  " bytes): not the file measured",
                  root, path, sha, size, m->path, e->line, e->sha, e->size);
        return -1;
    }
    return 0;
}

/* The event files, in the fingerprint's order (after run.json). */
static const char *const EVENT_FILES[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz",
                                          "machine.tsv.gz", "events.tsv.gz", "store2.tsv.gz"};
enum { NEVENT = 6, STORE2 = 5 };

int rawdigest_check_run(const char *root, const char *rel, const rawdigest_manifest *m, char fp[65], char *err,
                        size_t errlen)
{
    char dir[4200], path[4300], sha[65], all[(NEVENT + 1) * 64 + 1] = "";
    snprintf(dir, sizeof dir, "%s/%s", root, rel);
    /* run.json: read once, hashed from the bytes read and parsed from them */
    snprintf(path, sizeof path, "%s/run.json", dir);
    char *text = NULL;
    size_t n = 0;
    if (ut_read_file(path, &text, &n, err, errlen) != 0)
        return -1;
    ut_sha256_buf(text, n, sha);
    strcat(all, sha);
    json_error_t je;
    json_t *rj = json_loadb(text, n, 0, &je);
    free(text);
    if (!rj) {
        ut_seterr(err, errlen, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    int rc = -1;
    if (held_to_manifest(m, root, rel, "run.json", sha, (uint64_t)n, err, errlen) != 0)
        goto done;
    json_t *files = json_object_get(rj, "files");
    if (!json_is_object(files)) {
        ut_seterr(err, errlen, "%s: files: %s: the raw files' sha256s, which collect holds them to", path,
                  files ? "not an object" : "missing");
        goto done;
    }
    for (int k = 0; k < NEVENT; k++) {
        const char *name = EVENT_FILES[k];
        json_t *f = json_object_get(files, name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        struct stat st;
        int there = stat(path, &st) == 0;
        if (k == STORE2 && !there && !f)
            break;
        if (!there) {
            ut_seterr(err, errlen, "%s: missing%s", path, f ? ", yet run.json's files gives its sha256" : "");
            goto done;
        }
        const char *want = json_string_value(json_object_get(f, "sha256"));
        json_t *jsize = json_object_get(f, "size");
        if (!want || !is_hex64(want) || (jsize && (!json_is_integer(jsize) || json_integer_value(jsize) < 0))) {
            ut_seterr(err, errlen, "%s/run.json: files.%s: %s", dir, name,
                      !f      ? "missing: no sha256 to hold the file to"
                      : !want ? "sha256: missing"
                      : !is_hex64(want) ? "sha256: not 64 lowercase hex digits"
                                        : "size: not a whole number >= 0");
            goto done;
        }
        uint64_t size = 0;
        if (ut_sha256_file(path, sha, &size, err, errlen) != 0)
            goto done;
        if (strcmp(sha, want) || (jsize && (uint64_t)json_integer_value(jsize) != size)) {
            char rec[64] = "";
            if (jsize)
                snprintf(rec, sizeof rec, " (%lld bytes)", (long long)json_integer_value(jsize));
            ut_seterr(err, errlen, "%s: sha256 %s (%" PRIu64 " bytes), but run.json records %s%s: not the file measured",
                      path, sha, size, want, rec);
            goto done;
        }
        if (held_to_manifest(m, root, rel, name, sha, size, err, errlen) != 0)
            goto done;
        strcat(all, sha);
    }
    ut_sha256_buf(all, strlen(all), fp);
    rc = 0;
done:
    json_decref(rj);
    return rc;
}

int rawdigest_check_listed(const char *root, const rawdigest_manifest *m, const char *prefix, char *err,
                           size_t errlen)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; m && i < m->n; i++) {
        const entry *e = &m->v[i];
        if (strncmp(e->path, prefix, n) != 0)
            continue;
        char path[4200], sha[65];
        uint64_t size = 0;
        snprintf(path, sizeof path, "%s/%s", root, e->path);
        if (ut_sha256_file(path, sha, &size, err, errlen) != 0)
            return -1;
        if (e->size != size || strcmp(e->sha, sha)) {
            ut_seterr(err, errlen, "%s: sha256 %s (%" PRIu64 " bytes), but %s:%zu records %s (%" PRIu64
                      " bytes): not the file measure wrote",
                      path, sha, size, m->path, e->line, e->sha, e->size);
            return -1;
        }
    }
    return 0;
}
