/* profiles: see profiles.h for the contract. */
#include "profiles.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tsv.h"
#include "util.h"

#define PROF_HEADER "profile\tgroup\tarms\trounds\tseconds\todds_seeds"
#define DEV_HEADER "group\tfield\tregistered\tran\treason"
#define DEV_FIRST "# lab-deviations 1: what this study ran otherwise than data/profiles.tsv registers\n"

typedef struct {
    const char *want;
    const arm_table *arms;
    prof_design *d;
    int *named;   /* per arm of the table: the group that names it, -1 */
    int star;     /* the group of the `*` line, -1 */
    int star_line;
} load_ctx;

static int parse_int(const char *s, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (!*s || *end || errno || x < 1 || x > PROF_MAX_ROUNDS)
        return -1;
    *v = (int)x;
    return 0;
}

static int parse_seconds(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (!*s || *end || errno || !(x > 0) || x > 3600)
        return -1;
    *v = x;
    return 0;
}

static int parse_seeds(const char *s)
{
    unsigned a, b;
    char tail;
    if (sscanf(s, "%u-%u%c", &a, &b, &tail) != 2 || a < 1 || b < a)
        return -1;
    return 0;
}

static long arm_index(const arm_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].name, name))
            return (long)i;
    return -1;
}

static int on_line(void *vc, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    load_ctx *c = vc;
    prof_design *d = c->d;
    if (strcmp(f[0], c->want))
        return 0;
    if (!f[1][0] || strlen(f[1]) >= PROF_NAME)
        return tsv_field_err(err, errlen, at, "group", f[1], "is empty or longer than %d bytes", PROF_NAME - 1);
    for (int i = 0; i < d->ng; i++)
        if (!strcmp(d->g[i].name, f[1]))
            return tsv_field_err(err, errlen, at, "group", f[1], "is named twice in profile %s (line %d too)",
                                 c->want, d->g[i].line);
    prof_group g = {.line = (int)at->line};
    snprintf(g.name, sizeof g.name, "%s", f[1]);
    if (parse_int(f[3], &g.reg_rounds) != 0)
        return tsv_field_err(err, errlen, at, "rounds", f[3], "is not a whole number from 1 to %d", PROF_MAX_ROUNDS);
    if (parse_seconds(f[4], &g.reg_seconds) != 0 || strlen(f[4]) >= sizeof g.seconds_s)
        return tsv_field_err(err, errlen, at, "seconds", f[4], "is not a number above 0 and at most 3600");
    if (parse_seeds(f[5]) != 0 || strlen(f[5]) >= sizeof d->odds_seeds)
        return tsv_field_err(err, errlen, at, "odds_seeds", f[5], "is not a-b with 1 <= a <= b");
    if (d->ng == 0)
        snprintf(d->odds_seeds, sizeof d->odds_seeds, "%s", f[5]);
    else if (strcmp(d->odds_seeds, f[5]))
        return tsv_field_err(err, errlen, at, "odds_seeds", f[5], "differs from %s on the profile's first line",
                             d->odds_seeds);
    g.rounds = g.reg_rounds;
    g.seconds = g.reg_seconds;
    snprintf(g.seconds_s, sizeof g.seconds_s, "%s", f[4]);
    snprintf(g.reg_seconds_s, sizeof g.reg_seconds_s, "%s", f[4]);
    int gi = d->ng;
    if (!strcmp(f[2], "*")) {
        if (c->star >= 0)
            return tsv_field_err(err, errlen, at, "arms", f[2], "a second * line in profile %s (line %d has one)",
                                 c->want, c->star_line);
        c->star = gi;
        c->star_line = (int)at->line;
    } else {
        char *list = f[2], *save = NULL;
        if (!*list)
            return tsv_field_err(err, errlen, at, "arms", f[2], "is empty");
        for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            long k = arm_index(c->arms, p);
            if (k < 0)
                return tsv_field_err(err, errlen, at, "arms", p, "is no arm of the arms file");
            if (c->named[k] >= 0)
                return tsv_field_err(err, errlen, at, "arms", p, "is named twice in profile %s (line %d too)", c->want,
                                     d->g[c->named[k]].line);
            c->named[k] = gi;
        }
    }
    prof_group *ng = realloc(d->g, (size_t)(d->ng + 1) * sizeof *ng);
    if (!ng)
        return tsv_field_err(err, errlen, at, "group", f[1], "out of memory");
    d->g = ng;
    d->g[d->ng++] = g;
    return 0;
}

static void check_invariants(const prof_design *d)
{
#ifndef NDEBUG
    int R = 0;
    for (int i = 0; i < d->ng; i++) {
        assert(d->g[i].rounds >= 1 && d->g[i].seconds > 0);
        if (d->g[i].rounds > R)
            R = d->g[i].rounds;
    }
    assert(R == prof_rounds(d));
    for (int i = 0; i < d->np; i++)
        assert(d->p[i].group >= 0 && d->p[i].group < d->ng);
#else
    (void)d;
#endif
}

int prof_load(prof_design *d, const char *path, const char *profile, const arm_table *arms, const char *arms_path,
              char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    if (!profile || !*profile || strlen(profile) >= PROF_NAME) {
        ut_seterr(err, errlen, "%s: no profile named \"%s\"", path, profile ? profile : "");
        return -1;
    }
    snprintf(d->profile, sizeof d->profile, "%s", profile);
    load_ctx c = {.want = profile, .arms = arms, .d = d, .star = -1};
    c.named = malloc((arms->n ? arms->n : 1) * sizeof *c.named);
    if (!c.named) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < arms->n; i++)
        c.named[i] = -1;
    tsv_spec spec = {.path = path, .header = PROF_HEADER, .nfields = 6, .final_newline = 0};
    int rc = tsv_read(&spec, on_line, &c, err, errlen);
    if (rc == 0 && d->ng == 0) {
        ut_seterr(err, errlen, "%s: no line of profile %s", path, profile);
        rc = -1;
    }
    if (rc == 0) {
        d->p = malloc((arms->n ? arms->n : 1) * sizeof *d->p);
        if (!d->p) {
            ut_seterr(err, errlen, "out of memory");
            rc = -1;
        }
    }
    for (size_t i = 0; rc == 0 && i < arms->n; i++) {
        int gi = c.named[i] >= 0 ? c.named[i] : c.star;
        if (gi >= 0)
            d->p[d->np++] = (prof_plan){&arms->v[i], gi};
    }
    if (rc == 0 && d->np == 0) {
        ut_seterr(err, errlen, "%s: profile %s names no arm of %s", path, profile, arms_path);
        rc = -1;
    }
    free(c.named);
    if (rc != 0) {
        prof_free(d);
        return -1;
    }
    check_invariants(d);
    return 0;
}

void prof_free(prof_design *d)
{
    free(d->g);
    free(d->p);
    free(d->dev);
    memset(d, 0, sizeof *d);
}

int prof_rounds(const prof_design *d)
{
    int R = 0;
    for (int i = 0; i < d->ng; i++)
        if (d->g[i].rounds > R)
            R = d->g[i].rounds;
    return R;
}

const prof_group *prof_group_of(const prof_design *d, const char *arm)
{
    for (int i = 0; i < d->np; i++)
        if (!strcmp(d->p[i].a->name, arm))
            return &d->g[d->p[i].group];
    return NULL;
}

int prof_in_round(const prof_design *d, const prof_plan *p, int r)
{
    return r >= 1 && r <= d->g[p->group].rounds;
}

/* The deviation of (group, field): its entry, added when absent. */
static prof_dev *dev_slot(prof_design *d, const char *group, const char *field)
{
    for (int i = 0; i < d->ndev; i++)
        if (!strcmp(d->dev[i].group, group) && !strcmp(d->dev[i].field, field))
            return &d->dev[i];
    prof_dev *nd = realloc(d->dev, (size_t)(d->ndev + 1) * sizeof *nd);
    if (!nd)
        return NULL;
    d->dev = nd;
    prof_dev *v = &d->dev[d->ndev++];
    memset(v, 0, sizeof *v);
    snprintf(v->group, sizeof v->group, "%s", group);
    snprintf(v->field, sizeof v->field, "%s", field);
    return v;
}

static void dev_drop(prof_design *d, const char *group, const char *field)
{
    for (int i = 0; i < d->ndev; i++)
        if (!strcmp(d->dev[i].group, group) && !strcmp(d->dev[i].field, field)) {
            memmove(&d->dev[i], &d->dev[i + 1], (size_t)(d->ndev - i - 1) * sizeof *d->dev);
            d->ndev--;
            return;
        }
}

static int note_dev(prof_design *d, prof_group *g, const char *field, const char *reg, const char *ran,
                    const char *reason, char *err, size_t errlen)
{
    if (!strcmp(reg, ran)) {
        dev_drop(d, g->name, field);
        return 0;
    }
    prof_dev *v = dev_slot(d, g->name, field);
    if (!v) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    snprintf(v->registered, sizeof v->registered, "%s", reg);
    snprintf(v->ran, sizeof v->ran, "%s", ran);
    snprintf(v->reason, sizeof v->reason, "%s", reason && *reason ? reason : PROF_NO_REASON);
    for (char *p = v->reason; *p; p++) /* one field of one line */
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    return 0;
}

int prof_set_rounds(prof_design *d, int rounds, const char *reason, char *err, size_t errlen)
{
    if (rounds < 1 || rounds > PROF_MAX_ROUNDS) {
        ut_seterr(err, errlen, "--rounds %d: not from 1 to %d", rounds, PROF_MAX_ROUNDS);
        return -1;
    }
    for (int i = 0; i < d->ng; i++) {
        char reg[32], ran[32];
        snprintf(reg, sizeof reg, "%d", d->g[i].reg_rounds);
        snprintf(ran, sizeof ran, "%d", rounds);
        d->g[i].rounds = rounds;
        if (note_dev(d, &d->g[i], "rounds", reg, ran, reason, err, errlen) != 0)
            return -1;
    }
    check_invariants(d);
    return 0;
}

int prof_set_closed_seconds(prof_design *d, double seconds, const char *reason, char *err, size_t errlen)
{
    if (!(seconds > 0) || seconds > 3600) {
        ut_seterr(err, errlen, "--closed-s %g: not above 0 and at most 3600", seconds);
        return -1;
    }
    int found = 0;
    for (int i = 0; i < d->np; i++) {
        if (d->p[i].a->rate != 0)
            continue;
        prof_group *g = &d->g[d->p[i].group];
        found = 1;
        char ran[32];
        snprintf(ran, sizeof ran, "%g", seconds);
        g->seconds = seconds;
        snprintf(g->seconds_s, sizeof g->seconds_s, "%s", ran);
        if (note_dev(d, g, "seconds", g->reg_seconds_s, ran, reason, err, errlen) != 0)
            return -1;
    }
    if (!found) {
        ut_seterr(err, errlen, "--closed-s: profile %s has no closed-loop arm", d->profile);
        return -1;
    }
    check_invariants(d);
    return 0;
}

/* ------------------------------------------------------------ deviations.tsv */

typedef struct {
    prof_design *d;
    int *seen; /* per group: bit 1 rounds, bit 2 seconds */
} dev_ctx;

static int on_dev(void *vc, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    dev_ctx *c = vc;
    prof_design *d = c->d;
    int gi = -1;
    for (int i = 0; i < d->ng; i++)
        if (!strcmp(d->g[i].name, f[0]))
            gi = i;
    if (gi < 0)
        return tsv_field_err(err, errlen, at, "group", f[0], "is no group of profile %s", d->profile);
    prof_group *g = &d->g[gi];
    int bit = !strcmp(f[1], "rounds") ? 1 : !strcmp(f[1], "seconds") ? 2 : 0;
    if (!bit)
        return tsv_field_err(err, errlen, at, "field", f[1], "is neither rounds nor seconds");
    if (c->seen[gi] & bit)
        return tsv_field_err(err, errlen, at, "field", f[1], "of group %s a second time", g->name);
    c->seen[gi] |= bit;
    if (!f[4][0])
        return tsv_field_err(err, errlen, at, "reason", f[4], "is empty: a departure needs its reason");
    if (bit == 1) {
        int reg, ran;
        if (parse_int(f[2], &reg) != 0 || reg != g->reg_rounds)
            return tsv_field_err(err, errlen, at, "registered", f[2], "is not the registered rounds of %s, %d", g->name,
                                 g->reg_rounds);
        if (parse_int(f[3], &ran) != 0)
            return tsv_field_err(err, errlen, at, "ran", f[3], "is not a whole number from 1 to %d", PROF_MAX_ROUNDS);
        g->rounds = ran;
    } else {
        double reg, ran;
        if (parse_seconds(f[2], &reg) != 0 || reg != g->reg_seconds)
            return tsv_field_err(err, errlen, at, "registered", f[2], "is not the registered seconds of %s, %s",
                                 g->name, g->reg_seconds_s);
        if (parse_seconds(f[3], &ran) != 0 || strlen(f[3]) >= sizeof g->seconds_s)
            return tsv_field_err(err, errlen, at, "ran", f[3], "is not a number above 0 and at most 3600");
        g->seconds = ran;
        snprintf(g->seconds_s, sizeof g->seconds_s, "%s", f[3]);
    }
    prof_dev *v = dev_slot(d, g->name, f[1]);
    if (!v)
        return tsv_field_err(err, errlen, at, "group", f[0], "out of memory");
    snprintf(v->registered, sizeof v->registered, "%s", f[2]);
    snprintf(v->ran, sizeof v->ran, "%s", f[3]);
    snprintf(v->reason, sizeof v->reason, "%s", f[4]);
    return 0;
}

int prof_read_deviations(prof_design *d, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    dev_ctx c = {.d = d, .seen = calloc((size_t)d->ng, sizeof(int))};
    if (!c.seen) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    tsv_spec spec = {.path = path, .header = DEV_HEADER, .nfields = 5, .final_newline = 1};
    int rc = tsv_read(&spec, on_dev, &c, err, errlen);
    free(c.seen);
    if (rc == 0)
        check_invariants(d);
    return rc;
}

char *prof_deviations_text(const prof_design *d)
{
    if (d->ndev == 0)
        return NULL;
    size_t cap = 256 + (size_t)d->ndev * (PROF_REASON + 128), n = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    n += (size_t)snprintf(t + n, cap - n, "%s%s\n", DEV_FIRST, DEV_HEADER);
    for (int i = 0; i < d->ndev; i++)
        n += (size_t)snprintf(t + n, cap - n, "%s\t%s\t%s\t%s\t%s\n", d->dev[i].group, d->dev[i].field,
                              d->dev[i].registered, d->dev[i].ran, d->dev[i].reason);
    return t;
}
