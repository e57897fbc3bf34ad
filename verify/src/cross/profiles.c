/* profiles: data/profiles.tsv, the registered design; see profiles.h. */
#include "profiles.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vfiles.h"
#include "vnum.h"
#include "vutil.h"

static void fault(const pf_file *f, long line, const char *field, const char *lab, const char *want)
{
    char where[4200];
    snprintf(where, sizeof where, "%s:%ld", f->path, line);
    mm_add(NULL, where, field, lab, want);
}

/* a-b, 1 <= a <= b: 0, or -1 */
static int seeds_of(const char *t, long *a, long *b)
{
    const char *d = strchr(t, '-');
    long long x, y;
    if (!d || vn_i64(t, (size_t)(d - t), 1, 1L << 40, &x) || vn_i64(d + 1, strlen(d + 1), 1, 1L << 40, &y) || x > y)
        return -1;
    *a = (long)x;
    *b = (long)y;
    return 0;
}

static void push_arm(pf_group *g, const char *name)
{
    g->arms = vu_xrealloc(g->arms, (g->narms + 1) * sizeof *g->arms);
    g->arms[g->narms++] = vu_xstrdup(name);
}

/* the first earlier group of the same profile that names arm, or NULL */
static const pf_group *named_before(const pf_file *f, size_t upto, const char *profile, const char *arm)
{
    for (size_t i = 0; i < upto; i++) {
        const pf_group *g = &f->v[i];
        if (g->star || strcmp(g->profile, profile))
            continue;
        for (size_t k = 0; k < g->narms; k++)
            if (!strcmp(g->arms[k], arm))
                return g;
    }
    return NULL;
}

/* one group line (fields already split): its faults, then kept */
static void read_group(pf_file *f, const am_file *arms, char **fl, long line)
{
    f->v = vu_xrealloc(f->v, (f->n + 1) * sizeof *f->v);
    pf_group *g = &f->v[f->n];
    memset(g, 0, sizeof *g);
    g->line = line;
    g->ok = 1;
    if (!*fl[0] || strlen(fl[0]) >= sizeof g->profile) {
        fault(f, line, "profile", fl[0], "a profile's name");
        g->ok = 0;
    }
    if (!*fl[1] || strlen(fl[1]) >= sizeof g->group) {
        fault(f, line, "group", fl[1], "a group's name");
        g->ok = 0;
    }
    snprintf(g->profile, sizeof g->profile, "%s", fl[0]);
    snprintf(g->group, sizeof g->group, "%s", fl[1]);
    int seeds_seen = 0; /* odds_seeds compared with the profile's first line that has them */
    for (size_t i = 0; i < f->n; i++) {
        const pf_group *o = &f->v[i];
        char want[160];
        if (strcmp(o->profile, g->profile))
            continue;
        if (!strcmp(o->group, g->group)) {
            snprintf(want, sizeof want, "a group unique within profile %s (line %ld has it)", g->profile, o->line);
            fault(f, line, "group", fl[1], want);
            g->ok = 0;
        }
        if (o->star && !strcmp(fl[2], "*")) {
            snprintf(want, sizeof want, "at most one * line in profile %s (line %ld is one)", g->profile, o->line);
            fault(f, line, "arms", fl[2], want);
            g->ok = 0;
        }
        if (o->seeds_a && !seeds_seen++ && seeds_of(fl[5], &g->seeds_a, &g->seeds_b) == 0 &&
            (o->seeds_a != g->seeds_a || o->seeds_b != g->seeds_b)) {
            snprintf(want, sizeof want, "%ld-%ld, the same on every line of profile %s (line %ld)", o->seeds_a,
                     o->seeds_b, g->profile, o->line);
            fault(f, line, "odds_seeds", fl[5], want);
            g->ok = 0;
        }
    }
    if (!strcmp(fl[2], "*")) {
        g->star = 1;
    } else {
        char *list = vu_xstrdup(fl[2]);
        for (char *p = list, *c;; p = c + 1) {
            c = strchr(p, ',');
            if (c)
                *c = 0;
            const pf_group *o;
            char want[4300];
            if (!*p || !am_find(arms, p)) {
                snprintf(want, sizeof want, "a name of %s", arms->path);
                fault(f, line, "arms", *p ? p : "(an empty name)", want);
                g->ok = 0;
            } else if ((o = named_before(f, f->n, g->profile, p))) {
                snprintf(want, sizeof want, "each arm once in profile %s (line %ld names it)", g->profile, o->line);
                fault(f, line, "arms", p, want);
                g->ok = 0;
            } else {
                for (size_t k = 0; k < g->narms; k++)
                    if (!strcmp(g->arms[k], p)) {
                        fault(f, line, "arms", p, "each arm once in the profile (named twice on this line)");
                        g->ok = 0;
                    }
                push_arm(g, p);
            }
            if (!c)
                break;
        }
        free(list);
    }
    long long r;
    if (vn_i64(fl[3], strlen(fl[3]), 1, 1000000, &r)) {
        fault(f, line, "rounds", fl[3], "an integer >= 1");
        g->ok = 0;
    } else {
        g->rounds = (long)r;
    }
    if (strlen(fl[4]) >= sizeof g->seconds_text || vn_f64(fl[4], strlen(fl[4]), &g->seconds) || !(g->seconds > 0)) {
        fault(f, line, "seconds", fl[4], "a decimal number > 0");
        g->ok = 0;
    } else {
        snprintf(g->seconds_text, sizeof g->seconds_text, "%s", fl[4]);
    }
    if (seeds_of(fl[5], &g->seeds_a, &g->seeds_b)) {
        fault(f, line, "odds_seeds", fl[5], "a-b with 1 <= a <= b");
        g->ok = 0;
        g->seeds_a = g->seeds_b = 0;
    }
    f->n++;
}

/* a * line: every arm of the arms file no other line of its profile names */
static void expand_stars(pf_file *f, const am_file *arms)
{
    for (size_t i = 0; i < f->n; i++) {
        pf_group *g = &f->v[i];
        if (!g->star)
            continue;
        /* profiles.h: a * line names nothing before it is expanded */
        assert(g->narms == 0);
        for (size_t k = 0; k < arms->n; k++)
            if (!named_before(f, f->n, g->profile, arms->v[k].name))
                push_arm(g, arms->v[k].name);
    }
}

int pf_load(const char *path, const am_file *arms, pf_file *f)
{
    memset(f, 0, sizeof *f);
    char *shown = vf_shown(path);
    snprintf(f->path, sizeof f->path, "%s", shown);
    free(shown);
    unsigned char *b;
    size_t len;
    char err[4300];
    if (vu_read_file(path, &b, &len, err, sizeof err)) {
        mm_add(NULL, f->path, "file", "missing or unreadable", err);
        return -1;
    }
    vu_sha256_hex(b, len, f->sha256);
    f->size = len;
    char *p = (char *)b, *end = p + len;
    long line = 0;
    int header = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (*p == '#') {
            p = e + 1;
            continue;
        }
        if (!header) {
            if (strcmp(p, PF_HEADER)) {
                fault(f, line, "header", p, "profile group arms rounds seconds odds_seeds (tab-separated)");
                break;
            }
            header = 1;
            p = e + 1;
            continue;
        }
        char *fl[6];
        int nf = vu_split_tabs(p, fl, 6);
        if (nf != 6) {
            char lab[32];
            snprintf(lab, sizeof lab, "%d fields", nf);
            fault(f, line, "fields", lab, "6 (profile group arms rounds seconds odds_seeds)");
        } else {
            read_group(f, arms, fl, line);
        }
        p = e + 1;
    }
    if (!header && (line == 0 || p >= end))
        fault(f, line ? line : 1, "header", "(absent)", "profile group arms rounds seconds odds_seeds (tab-separated)");
    free(b);
    expand_stars(f, arms);
    return 0;
}

int pf_profile_has(const pf_file *f, const char *profile)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].profile, profile))
            return 1;
    return 0;
}

void pf_free(pf_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        for (size_t k = 0; k < f->v[i].narms; k++)
            free(f->v[i].arms[k]);
        free(f->v[i].arms);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}
