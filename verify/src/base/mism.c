/* mism: the verifier's list of mismatches; see mism.h. */
#include "mism.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

typedef struct {
    char *name;
    long n;
} group_t;

static FILE *g_out;
static long g_cap;
static long g_count;
static group_t *g_groups;
static size_t g_ngroups, g_capgroups;
/* open addressing over indexes into g_groups (index + 1; 0 = empty) */
static size_t *g_hash;
static size_t g_hashcap;

typedef struct {
    char *group, *where, *what, *lab, *mine;
} rec_t;
struct mm_capture {
    rec_t *v;
    size_t n, cap;
};
static _Thread_local mm_capture *tl_cap;

static char *dup_or_null(const char *s)
{
    return s ? vu_xstrdup(s) : NULL;
}

mm_capture *mm_capture_begin(void)
{
    tl_cap = vu_xcalloc(1, sizeof *tl_cap);
    return tl_cap;
}

void mm_capture_end(void)
{
    tl_cap = NULL;
}

void mm_capture_replay(mm_capture *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        rec_t *r = &c->v[i];
        mm_add(r->group, r->where, r->what, r->lab, r->mine);
        free(r->group);
        free(r->where);
        free(r->what);
        free(r->lab);
        free(r->mine);
    }
    free(c->v);
    free(c);
}

void mm_init(FILE *out, long max_print_per_group)
{
    g_out = out;
    g_cap = max_print_per_group;
}

void mm_reset(void)
{
    g_out = NULL; /* a test's stream may be closed next: back to stdout */
    g_cap = 0;
    for (size_t i = 0; i < g_ngroups; i++)
        free(g_groups[i].name);
    free(g_groups);
    g_groups = NULL;
    g_ngroups = g_capgroups = 0;
    free(g_hash);
    g_hash = NULL;
    g_hashcap = 0;
    g_count = 0;
}


static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void rehash(void)
{
    free(g_hash);
    g_hashcap = g_hashcap ? 2 * g_hashcap : 256;
    g_hash = vu_xcalloc(g_hashcap, sizeof *g_hash);
    for (size_t i = 0; i < g_ngroups; i++) {
        size_t h = hash_str(g_groups[i].name) & (g_hashcap - 1);
        while (g_hash[h])
            h = (h + 1) & (g_hashcap - 1);
        g_hash[h] = i + 1;
    }
}

static group_t *find_group(const char *name)
{
    if (2 * (g_ngroups + 1) > g_hashcap)
        rehash();
    size_t h = hash_str(name) & (g_hashcap - 1);
    while (g_hash[h]) {
        if (!strcmp(g_groups[g_hash[h] - 1].name, name))
            return &g_groups[g_hash[h] - 1];
        h = (h + 1) & (g_hashcap - 1);
    }
    if (g_ngroups == g_capgroups) {
        g_capgroups = g_capgroups ? 2 * g_capgroups : 64;
        g_groups = vu_xrealloc(g_groups, g_capgroups * sizeof *g_groups);
    }
    g_groups[g_ngroups].name = vu_xstrdup(name);
    g_groups[g_ngroups].n = 0;
    g_hash[h] = ++g_ngroups;
    return &g_groups[g_ngroups - 1];
}

void mm_add(const char *group, const char *where, const char *what, const char *lab, const char *mine)
{
    if (tl_cap) {
        mm_capture *c = tl_cap;
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 16;
            c->v = vu_xrealloc(c->v, c->cap * sizeof *c->v);
        }
        c->v[c->n++] = (rec_t){dup_or_null(group), dup_or_null(where), dup_or_null(what), dup_or_null(lab),
                               dup_or_null(mine)};
        return;
    }
    g_count++;
    if (group) {
        group_t *g = find_group(group);
        g->n++;
        if (g_cap > 0 && g->n > g_cap)
            return;
    }
    FILE *o = g_out ? g_out : stdout;
    fprintf(o, "MISMATCH %s %s: lab %s, verify %s\n", where, what, lab, mine);
}

void mm_addf(const char *group, const char *where, const char *what, const char *lab,
             const char *mine_fmt, ...)
{
    char mine[1024];
    va_list ap;
    va_start(ap, mine_fmt);
    vsnprintf(mine, sizeof mine, mine_fmt, ap);
    va_end(ap);
    mm_add(group, where, what, lab, mine);
}

void mm_row(const char *run, const char *file, long line, const char *check, const char *lab, const char *want)
{
    char group[512], what[512];
    snprintf(group, sizeof group, "%s %s %s", run, file, check);
    snprintf(what, sizeof what, "%s:%ld %s", file, line, check);
    mm_add(group, run, what, lab, want);
}

long mm_count(void) { return tl_cap ? (long)tl_cap->n : g_count; }

void mm_finish(void)
{
    FILE *o = g_out ? g_out : stdout;
    for (size_t i = 0; i < g_ngroups; i++)
        if (g_cap > 0 && g_groups[i].n > g_cap)
            fprintf(o, "NOTE %s: %ld more mismatches of this kind not shown (--max-print 0 shows all)\n",
                    g_groups[i].name, g_groups[i].n - g_cap);
}
