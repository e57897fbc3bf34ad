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

long mm_count(void) { return g_count; }

void mm_finish(void)
{
    FILE *o = g_out ? g_out : stdout;
    for (size_t i = 0; i < g_ngroups; i++)
        if (g_cap > 0 && g_groups[i].n > g_cap)
            fprintf(o, "NOTE %s: %ld more mismatches of this kind not shown (--max-print 0 shows all)\n",
                    g_groups[i].name, g_groups[i].n - g_cap);
}
