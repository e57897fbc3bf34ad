/* vfiles: see vfiles.h. */
#include "vfiles.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mism.h"
#include "vutil.h"

typedef struct {
    char *rel;
    long long size;
    char sha[65];
} vf_entry;

static struct {
    int on;
    char *cwd, *root, *out; /* absolute, normalised */
    vf_entry *v;
    size_t n, cap;
    size_t *slot; /* open addressing: index + 1 into v, 0 empty */
    size_t nslot;
} L;

/* path made absolute against cwd, "", "." and ".." resolved lexically */
static char *normalise(const char *path)
{
    char *abs = path[0] == '/' ? vu_xstrdup(path) : vu_xasprintf("%s/%s", L.cwd, path);
    size_t n = strlen(abs);
    char *out = vu_xmalloc(n + 2);
    size_t o = 0;
    for (const char *s = abs; *s;) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        size_t l = (size_t)(e - s);
        if (l == 0 || (l == 1 && s[0] == '.')) {
            /* nothing */
        } else if (l == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            out[o++] = '/';
            memcpy(out + o, s, l);
            o += l;
        }
        s = e;
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = 0;
    free(abs);
    return out;
}

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void rehash(void)
{
    size_t ns = L.nslot ? 2 * L.nslot : 1024;
    size_t *slot = vu_xcalloc(ns, sizeof *slot);
    for (size_t i = 0; i < L.n; i++) {
        size_t h = hash(L.v[i].rel) & (ns - 1);
        while (slot[h])
            h = (h + 1) & (ns - 1);
        slot[h] = i + 1;
    }
    free(L.slot);
    L.slot = slot;
    L.nslot = ns;
}

static vf_entry *find(const char *rel)
{
    if (!L.nslot)
        return NULL;
    for (size_t h = hash(rel) & (L.nslot - 1); L.slot[h]; h = (h + 1) & (L.nslot - 1))
        if (!strcmp(L.v[L.slot[h] - 1].rel, rel))
            return &L.v[L.slot[h] - 1];
    return NULL;
}

int vf_written_after(const char *rel)
{
    return !strcmp(rel, "results/report.md") || !strcmp(rel, "results/report.html") ||
           !strcmp(rel, "results/figures") || !strncmp(rel, "results/figures/", 16);
}

/* the path relative to the root, or NULL when it is not under it (or is
 * verified.json, or written after it: vf_written_after) */
static char *under_root(const char *path)
{
    char *a = normalise(path);
    size_t rl = strlen(L.root);
    char *rel = NULL;
    if (strcmp(a, L.out) && !strncmp(a, L.root, rl)) {
        if (rl == 1)
            rel = vu_xstrdup(a + 1);
        else if (a[rl] == '/' && a[rl + 1])
            rel = vu_xstrdup(a + rl + 1);
    }
    free(a);
    /* the committed verified.json is no input either, wherever --out writes */
    if (rel && (vf_written_after(rel) || !strcmp(rel, "results/verified.json"))) {
        free(rel);
        rel = NULL;
    }
    return rel;
}

char *vf_shown(const char *path)
{
    char *rel = L.on ? under_root(path) : NULL;
    return rel ? rel : vu_xstrdup(path);
}

/* the list is shared by the threads of vpar.h */
static pthread_mutex_t L_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_read_locked(char *rel, const char *sha, size_t len);

static void on_read(void *ctx, const char *path, const unsigned char *buf, size_t len)
{
    (void)ctx;
    char *rel = under_root(path);
    if (!rel)
        return;
    char sha[65];
    vu_sha256_hex(buf, len, sha);
    pthread_mutex_lock(&L_lock);
    on_read_locked(rel, sha, len);
    pthread_mutex_unlock(&L_lock);
}

/* takes rel */
static void on_read_locked(char *rel, const char *sha, size_t len)
{
    vf_entry *e = find(rel);
    if (e) {
        if (e->size != (long long)len || strcmp(e->sha, sha)) {
            char *was = vu_xasprintf("%lld bytes, sha256 %s when first read", e->size, e->sha);
            mm_addf(NULL, rel, "file read twice", was, "the same bytes (now %zu bytes, sha256 %s): it changed while "
                    "the verifier read it", len, sha);
            free(was);
        }
        free(rel);
        return;
    }
    if (L.n == L.cap) {
        L.cap = L.cap ? 2 * L.cap : 256;
        L.v = vu_xrealloc(L.v, L.cap * sizeof *L.v);
    }
    e = &L.v[L.n++];
    e->rel = rel;
    e->size = (long long)len;
    memcpy(e->sha, sha, sizeof e->sha);
    if (2 * L.n > L.nslot)
        rehash();
    else {
        size_t h = hash(rel) & (L.nslot - 1);
        while (L.slot[h])
            h = (h + 1) & (L.nslot - 1);
        L.slot[h] = L.n;
    }
}

void vf_start(const char *root, const char *out)
{
    vf_stop();
    char buf[4096];
    L.cwd = vu_xstrdup(getcwd(buf, sizeof buf) ? buf : "/");
    L.root = normalise(root);
    L.out = normalise(out);
    L.on = 1;
    vu_set_read_hook(on_read, NULL);
}

static void add_tree(const char *rel)
{
    char *dir = vu_xasprintf("%s/%s", L.root, rel);
    char **names;
    size_t n;
    char err[512];
    if (vu_list_dir(dir, &names, &n, err, sizeof err)) {
        free(dir);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char *r = vu_xasprintf("%s/%s", rel, names[i]);
        char *full = vu_xasprintf("%s/%s", L.root, r);
        if (vf_written_after(r)) {
            /* not read: written after the verifier */
        } else if (vu_is_dir(full)) {
            add_tree(r);
        } else if (vu_is_file(full) && !find(r)) {
            unsigned char *b;
            size_t len;
            if (!vu_read_file(full, &b, &len, err, sizeof err))
                free(b); /* the hook lists it */
        }
        free(r);
        free(full);
    }
    vu_free_names(names, n);
    free(dir);
}

void vf_add_tree(const char *rel)
{
    if (L.on)
        add_tree(rel);
}

static int cmp_entry(const void *x, const void *y)
{
    /* strcmp compares as unsigned char: byte order */
    return strcmp(((const vf_entry *)x)->rel, ((const vf_entry *)y)->rel);
}

vj_node *vf_json(void)
{
    vf_entry *s = vu_xmalloc((L.n + 1) * sizeof *s);
    if (L.n)
        memcpy(s, L.v, L.n * sizeof *s);
    qsort(s, L.n, sizeof *s, cmp_entry);
    vj_node *a = vj_new_arr();
    for (size_t i = 0; i < L.n; i++) {
        /* vfiles.h: one entry per file, in byte order of path */
        assert(i == 0 || strcmp(s[i - 1].rel, s[i].rel) < 0);
        vj_node *o = vj_new_obj();
        vj_obj_set(o, "path", vj_new_str(s[i].rel));
        vj_obj_set(o, "size", vj_new_int(s[i].size));
        vj_obj_set(o, "sha256", vj_new_str(s[i].sha));
        vj_arr_push(a, o);
    }
    free(s);
    return a;
}

size_t vf_count(void)
{
    return L.n;
}

void vf_stop(void)
{
    vu_set_read_hook(NULL, NULL);
    for (size_t i = 0; i < L.n; i++)
        free(L.v[i].rel);
    free(L.v);
    free(L.slot);
    free(L.cwd);
    free(L.root);
    free(L.out);
    memset(&L, 0, sizeof L);
}
