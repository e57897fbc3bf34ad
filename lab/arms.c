/* arms: see arms.h. */
#include "arms.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const COLS[] = {"name",     "wait",     "rate",     "policy",      "try_ms",
                                   "tries",    "pause",    "pause_ms", "hedge_ms",    "limit_ms",
                                   "deadline_ms", "reserve_ms", "down", "standin"};
enum { NCOLS = sizeof COLS / sizeof COLS[0] };

static int num(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_line(char *line, arm *a, const char *path, int lineno, char *err, size_t errlen)
{
    char *f[NCOLS + 1];
    int n = 0;
    for (char *p = line;;) {
        if (n <= NCOLS)
            f[n] = p;
        n++;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = 0;
        p = tab + 1;
    }
    if (n != NCOLS) {
        ut_seterr(err, errlen, "%s:%d: %d fields, expected %d (%s ... %s)", path, lineno, n, NCOLS,
                  COLS[0], COLS[NCOLS - 1]);
        return -1;
    }
    memset(a, 0, sizeof *a);
    long v;
#define FIELD_ERR(i, why)                                                                          \
    do {                                                                                           \
        ut_seterr(err, errlen, "%s:%d: field %s \"%s\" %s", path, lineno, COLS[i], f[i], why);     \
        return -1;                                                                                 \
    } while (0)
    if (!f[0][0] || strlen(f[0]) >= sizeof a->name)
        FIELD_ERR(0, "is empty or too long");
    snprintf(a->name, sizeof a->name, "%s", f[0]);
    if (waits_kind(f[1], &a->wait) != 0)
        FIELD_ERR(1, "is not one of Z F L H");
    if (strcmp(f[2], "max") == 0)
        a->rate = 0;
    else if (num(f[2], 1, 1000000, &v) == 0)
        a->rate = (int)v;
    else
        FIELD_ERR(2, "is not a rate (1 to 1000000, or max)");
    if (!f[3][0] || strlen(f[3]) >= sizeof a->policy)
        FIELD_ERR(3, "is empty or too long");
    snprintf(a->policy, sizeof a->policy, "%s", f[3]);
    const int ms_cols[] = {4, 8, 9, 10, 11};
    int64_t *ms_dst[] = {&a->try_ns, &a->hedge_ns, &a->limit_ns, &a->deadline_ns, &a->reserve_ns};
    for (int k = 0; k < 5; k++) {
        if (num(f[ms_cols[k]], 0, 600000, &v) != 0)
            FIELD_ERR(ms_cols[k], "is not a whole number of ms (0 to 600000)");
        *ms_dst[k] = v * 1000000LL;
    }
    if (num(f[5], 1, 8, &v) != 0)
        FIELD_ERR(5, "is not a number of tries (1 to 8)");
    a->tries = (int)v;
    if (!strcmp(f[6], "none"))
        a->pause = PAUSE_NONE;
    else if (!strcmp(f[6], "fixed"))
        a->pause = PAUSE_FIXED;
    else if (!strcmp(f[6], "jitter"))
        a->pause = PAUSE_JITTER;
    else
        FIELD_ERR(6, "is not none, fixed or jitter");
    if (a->pause == PAUSE_NONE) {
        if (strcmp(f[7], "-") != 0)
            FIELD_ERR(7, "must be - when pause is none");
    } else {
        char *s = f[7];
        while (*s) {
            char *comma = strchr(s, ',');
            if (comma)
                *comma = 0;
            if (a->npause == ARMS_MAXPAUSE || num(s, 0, 600000, &v) != 0)
                FIELD_ERR(7, "is not a list of up to 4 whole ms");
            a->pause_ns[a->npause++] = v * 1000000LL;
            if (!comma)
                break;
            s = comma + 1;
        }
        if (a->npause < a->tries - 1)
            FIELD_ERR(7, "has fewer pauses than retries");
    }
    if (num(f[12], 0, 1, &v) != 0)
        FIELD_ERR(12, "is not 0 or 1");
    a->down = (int)v;
    if (num(f[13], 0, 1, &v) != 0)
        FIELD_ERR(13, "is not 0 or 1");
    a->standin = (int)v;
    if ((a->down || a->reserve_ns) && !a->deadline_ns)
        FIELD_ERR(12, "needs a deadline_ms");
#undef FIELD_ERR
    return 0;
}

int arms_load(const char *path, arm_table *t, char *err, size_t errlen)
{
    t->v = NULL;
    t->n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        ut_seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, header = 0, rc = -1;
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strcspn(line, "\r\n");
        if (line[len] == 0 && !feof(f)) {
            ut_seterr(err, errlen, "%s:%d: line too long", path, lineno);
            goto done;
        }
        line[len] = 0;
        if (line[0] == '#' || line[0] == 0)
            continue;
        if (!header) {
            char want[256] = "";
            for (int i = 0; i < NCOLS; i++) {
                strcat(want, COLS[i]);
                if (i + 1 < NCOLS)
                    strcat(want, "\t");
            }
            if (strcmp(line, want) != 0) {
                ut_seterr(err, errlen, "%s:%d: header is not the arm columns (%s ... %s)", path,
                          lineno, COLS[0], COLS[NCOLS - 1]);
                goto done;
            }
            header = 1;
            continue;
        }
        if (t->n == cap) {
            cap = cap ? cap * 2 : 32;
            arm *nv = realloc(t->v, cap * sizeof *nv);
            if (!nv) {
                ut_seterr(err, errlen, "%s: out of memory", path);
                goto done;
            }
            t->v = nv;
        }
        if (parse_line(line, &t->v[t->n], path, lineno, err, errlen) != 0)
            goto done;
        if (arms_find(t, t->v[t->n].name)) {
            ut_seterr(err, errlen, "%s:%d: arm %s is listed twice", path, lineno, t->v[t->n].name);
            goto done;
        }
        t->n++;
    }
    if (!header || t->n == 0) {
        ut_seterr(err, errlen, "%s: no arms", path);
        goto done;
    }
    rc = 0;
done:
    fclose(f);
    if (rc != 0)
        arms_free(t);
    return rc;
}

const arm *arms_find(const arm_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].name, name) == 0)
            return &t->v[i];
    return NULL;
}

void arms_free(arm_table *t)
{
    free(t->v);
    t->v = NULL;
    t->n = 0;
}
