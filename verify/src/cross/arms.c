/* arms: see arms.h. */
#include "arms.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnum.h"
#include "vutil.h"

#define MAXCOL 64

static int is_string_col(const char *c)
{
    return !strcmp(c, "name") || !strcmp(c, "wait") || !strcmp(c, "policy") || !strcmp(c, "pause") ||
           !strcmp(c, "fault");
}

/* one field as its arm_spec value: NULL when it is not of its column's type */
static vj_node *value_of(const char *col, const char *v)
{
    long long x;
    if (is_string_col(col))
        return *v ? vj_new_str(v) : NULL;
    if (!strcmp(col, "pause_ms")) {
        vj_node *a = vj_new_arr();
        if (!strcmp(v, "-"))
            return a;
        for (const char *p = v;;) {
            const char *c = strchr(p, ',');
            size_t l = c ? (size_t)(c - p) : strlen(p);
            if (vn_i64(p, l, LLONG_MIN, LLONG_MAX, &x)) {
                vj_free(a);
                return NULL;
            }
            vj_arr_push(a, vj_new_int(x));
            if (!c)
                break;
            p = c + 1;
        }
        return a;
    }
    if (!strcmp(col, "rate") && !strcmp(v, "max"))
        return vj_new_int(0);
    if (vn_i64(v, strlen(v), LLONG_MIN, LLONG_MAX, &x))
        return NULL;
    return vj_new_int(x);
}

static int split(char *p, char **f)
{
    int n = 0;
    for (;;) {
        if (n < MAXCOL)
            f[n] = p;
        n++;
        p = strchr(p, '\t');
        if (!p)
            return n;
        *p++ = 0;
    }
}

/* one arm's line: 0, or 2 with err */
static int read_arm(am_file *a, char **cols, int ncol, char *text, long line, size_t *cap, char *err, size_t errlen)
{
    char *f[MAXCOL];
    int nf = split(text, f);
    if (nf != ncol) {
        snprintf(err, errlen, "%s:%ld: %d fields, expected %d (the header's columns)", a->path, line, nf, ncol);
        return 2;
    }
    vj_node *spec = vj_new_obj();
    const char *name = NULL;
    for (int k = 0; k < ncol; k++) {
        vj_node *v = value_of(cols[k], f[k]);
        if (!v) {
            snprintf(err, errlen, "%s:%ld: %s \"%.40s\" is not %s", a->path, line, cols[k], f[k],
                     is_string_col(cols[k])       ? "a name"
                     : !strcmp(cols[k], "pause_ms") ? "- or integers separated by commas"
                     : !strcmp(cols[k], "rate")     ? "an integer or max"
                                                    : "an integer");
            vj_free(spec);
            return 2;
        }
        if (!strcmp(cols[k], "name"))
            name = f[k];
        vj_obj_set(spec, cols[k], v);
    }
    if (strlen(name) >= sizeof a->v->name || am_find(a, name)) {
        snprintf(err, errlen, "%s:%ld: arm \"%.60s\" %s", a->path, line, name,
                 strlen(name) >= sizeof a->v->name ? "has too long a name" : "is named twice");
        vj_free(spec);
        return 2;
    }
    if (a->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        a->v = vu_xrealloc(a->v, *cap * sizeof *a->v);
    }
    am_arm *m = &a->v[a->n++];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->line = line;
    m->spec = spec;
    return 0;
}

static int check_header(const am_file *a, char **cols, int ncol, long line, char *err, size_t errlen)
{
    int name = 0, rate = 0;
    if (ncol > MAXCOL) {
        snprintf(err, errlen, "%s:%ld: %d columns, at most %d", a->path, line, ncol, MAXCOL);
        return 2;
    }
    for (int k = 0; k < ncol; k++) {
        name += !strcmp(cols[k], "name");
        rate += !strcmp(cols[k], "rate");
        for (int j = 0; j < k; j++)
            if (!strcmp(cols[j], cols[k])) {
                snprintf(err, errlen, "%s:%ld: column %s named twice", a->path, line, cols[k]);
                return 2;
            }
    }
    if (name != 1 || rate != 1) {
        snprintf(err, errlen, "%s:%ld: the header has no column %s", a->path, line, name ? "rate" : "name");
        return 2;
    }
    return 0;
}

int am_load(const char *path, am_file *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    snprintf(a->path, sizeof a->path, "%s", path);
    unsigned char *b;
    size_t len;
    if (vu_read_file(path, &b, &len, err, errlen))
        return 2;
    vu_sha256_hex(b, len, a->sha256);
    char *p = (char *)b, *end = p + len, *cols[MAXCOL];
    int ncol = 0, rc = 0;
    long line = 0;
    size_t cap = 0;
    while (p < end && !rc) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (e > p && e[-1] == '\r')
            e[-1] = 0;
        if (*p && *p != '#') {
            if (!ncol) {
                ncol = split(p, cols);
                rc = check_header(a, cols, ncol, line, err, errlen);
            } else {
                rc = read_arm(a, cols, ncol, p, line, &cap, err, errlen);
            }
        }
        p = e + 1;
    }
    if (!rc && !ncol) {
        snprintf(err, errlen, "%s: no header line (the column names)", path);
        rc = 2;
    }
    free(b);
    if (rc)
        am_free(a);
    return rc;
}

const am_arm *am_find(const am_file *a, const char *name)
{
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->v[i].name, name))
            return &a->v[i];
    return NULL;
}

void am_free(am_file *a)
{
    for (size_t i = 0; i < a->n; i++)
        vj_free(a->v[i].spec);
    free(a->v);
    a->v = NULL;
    a->n = 0;
}
