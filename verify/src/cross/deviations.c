/* deviations: results/deviations.tsv; see deviations.h. */
#include "deviations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vnum.h"
#include "vutil.h"

static void fault(long line, const char *field, const char *lab, const char *want)
{
    char where[64];
    snprintf(where, sizeof where, DV_REL ":%ld", line);
    mm_add(NULL, where, field, lab, want);
}

/* a value of the field's kind: 0, or -1 */
static int value_of(int seconds, const char *t, double *v)
{
    if (seconds)
        return vn_f64(t, strlen(t), v) || !(*v > 0) ? -1 : 0;
    long long i;
    if (vn_i64(t, strlen(t), 1, 1000000, &i))
        return -1;
    *v = (double)i;
    return 0;
}

static void read_line(dv_file *d, char **f, long line)
{
    d->v = vu_xrealloc(d->v, (d->n + 1) * sizeof *d->v);
    dv_line *l = &d->v[d->n];
    memset(l, 0, sizeof *l);
    l->line = line;
    l->ok = 1;
    if (!*f[0] || strlen(f[0]) >= sizeof l->group) {
        fault(line, "group", f[0], "a group of the profile (data/profiles.tsv)");
        l->ok = 0;
    }
    snprintf(l->group, sizeof l->group, "%s", f[0]);
    l->seconds = !strcmp(f[1], "seconds");
    if (!l->seconds && strcmp(f[1], "rounds")) {
        fault(line, "field", f[1], "rounds or seconds");
        l->ok = 0;
    }
    snprintf(l->field, sizeof l->field, "%s", f[1]);
    const char *kind = l->seconds ? "a decimal number > 0 (seconds)" : "an integer >= 1 (rounds)";
    if (strlen(f[2]) >= sizeof l->registered || value_of(l->seconds, f[2], &l->reg_v)) {
        fault(line, "registered", f[2], kind);
        l->ok = 0;
    }
    if (strlen(f[3]) >= sizeof l->ran || value_of(l->seconds, f[3], &l->ran_v)) {
        fault(line, "ran", f[3], kind);
        l->ok = 0;
    }
    snprintf(l->registered, sizeof l->registered, "%s", f[2]);
    snprintf(l->ran, sizeof l->ran, "%s", f[3]);
    if (!*f[4]) {
        fault(line, "reason", "(empty)", "a non-empty text: why the study departed from its registration");
        l->ok = 0;
    }
    snprintf(l->reason, sizeof l->reason, "%s", f[4]);
    for (size_t i = 0; i < d->n; i++) {
        if (!strcmp(d->v[i].group, l->group) && !strcmp(d->v[i].field, l->field)) {
            char want[128];
            snprintf(want, sizeof want, "a group and field once (line %ld has %s %s)", d->v[i].line, l->group,
                     l->field);
            fault(line, "group and field", l->group, want);
            l->ok = 0;
        }
    }
    d->n++;
}

void dv_load(const char *root, dv_file *d)
{
    memset(d, 0, sizeof *d);
    char *path = vu_xasprintf("%s/" DV_REL, root);
    if (!vu_is_file(path)) {
        free(path);
        return;
    }
    d->present = 1;
    unsigned char *b;
    size_t len;
    char err[4300];
    if (vu_read_file(path, &b, &len, err, sizeof err)) {
        mm_add(NULL, DV_REL, "file", "unreadable", err);
        free(path);
        return;
    }
    free(path);
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
            if (strcmp(p, DV_HEADER)) {
                fault(line, "header", p, "group field registered ran reason (tab-separated)");
                break;
            }
            header = 1;
            p = e + 1;
            continue;
        }
        char *f[5];
        int nf = vu_split_tabs(p, f, 5);
        if (nf != 5) {
            char lab[32];
            snprintf(lab, sizeof lab, "%d fields", nf);
            fault(line, "fields", lab, "5 (group field registered ran reason)");
        } else {
            read_line(d, f, line);
        }
        p = e + 1;
    }
    if (!header && p >= end && (line == 0 || d->n == 0))
        fault(line ? line : 1, "header", "(absent)", "group field registered ran reason (tab-separated)");
    free(b);
}

void dv_free(dv_file *d)
{
    free(d->v);
    memset(d, 0, sizeof *d);
}
