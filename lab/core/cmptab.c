/* cmptab: see cmptab.h for the contract. */
#include "cmptab.h"

#include <stdlib.h>
#include <string.h>

#include "tsv.h"
#include "util.h"

static int row(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    cmptab *t = ctx;
    static const char *const NAMES[] = {"a", "b", "figure"};
    for (int i = 0; i < 3; i++)
        if (!f[i][0] || strlen(f[i]) >= CMPTAB_NAME)
            return tsv_field_err(err, errlen, at, NAMES[i], f[i], "is %s", f[i][0] ? "longer than 63 bytes" : "empty");
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        cmptab_row *nv = realloc(t->v, cap * sizeof *nv);
        if (!nv) {
            ut_seterr(err, errlen, "%s: out of memory", at->path);
            return -1;
        }
        t->v = nv;
        t->cap = cap;
    }
    cmptab_row *c = &t->v[t->n];
    memset(c, 0, sizeof *c);
    if (!(c->note = strdup(f[3]))) {
        ut_seterr(err, errlen, "%s: out of memory", at->path);
        return -1;
    }
    t->n++;
    strcpy(c->a, f[0]);
    strcpy(c->b, f[1]);
    strcpy(c->figure, f[2]);
    c->k = (int)at->record;
    c->line = at->line;
    return 0;
}

int cmptab_load(const char *path, cmptab *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    tsv_spec s = {path, "a\tb\tfigure\tnote", 4, 0};
    if (tsv_read(&s, row, t, err, errlen) == 0)
        return 0;
    cmptab_free(t);
    return -1;
}

void cmptab_free(cmptab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].note);
    free(t->v);
    memset(t, 0, sizeof *t);
}
