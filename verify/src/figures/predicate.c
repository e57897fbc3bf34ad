/* predicate: the guesses' grammar and the verdict rule; see predicate.h. */
#include "predicate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfig.h"
#include "stats.h"
#include "vnum.h"
#include "vutil.h"

/* split on single spaces; tokens point into a copy the caller frees;
 * max + 1 when there are more than max (the text is refused, not cut) */
static size_t tokenize(char *s, char **tok, size_t max)
{
    size_t n = 0;
    char *p = s;
    while (*p) {
        if (n == max)
            return max + 1;
        tok[n++] = p;
        char *sp = strchr(p, ' ');
        if (!sp)
            break;
        *sp = 0;
        p = sp + 1;
    }
    return n;
}

static int parse_term(const char *t, char *arm, size_t armlen, int *fig, char *err, size_t errlen)
{
    const char *dot = strrchr(t, '.');
    if (!dot || dot == t || !dot[1]) {
        snprintf(err, errlen, "\"%s\" is not arm.figure", t);
        return -1;
    }
    if ((size_t)(dot - t) >= armlen) {
        snprintf(err, errlen, "arm name too long in \"%s\"", t);
        return -1;
    }
    memcpy(arm, t, (size_t)(dot - t));
    arm[dot - t] = 0;
    *fig = rf_fig_by_name(dot + 1);
    if (*fig < 0) {
        snprintf(err, errlen, "unknown figure \"%s\" (in \"%s\")", dot + 1, t);
        return -1;
    }
    return 0;
}

/* a decimal number (vnum.h): 0, VN_SYNTAX or VN_RANGE */
static int parse_number(const char *t, double *x)
{
    return vn_f64(t, strlen(t), x);
}

int pr_parse(const char *text, pr_pred *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *copy = vu_xstrdup(text);
    char *tok[512];
    size_t nt = tokenize(copy, tok, 512);
    size_t i = 0;
    size_t cap = 0;
    int rc = 0;
    if (nt == 0 || !*text) {
        snprintf(err, errlen, "empty predicate");
        rc = -1;
    } else if (nt > 512) {
        snprintf(err, errlen, "more than 512 words");
        rc = -1;
    }
    size_t at = 0; /* the clause being read (1, 2 ...): named in a message */
    while (!rc && i < nt) {
        at = out->n + 1;
        pr_clause c;
        memset(&c, 0, sizeof c);
        const char *q = tok[i];
        if (!strcmp(q, "apart") || !strcmp(q, "close")) {
            c.q = q[0] == 'a' ? PQ_APART : PQ_CLOSE;
            if (i + 3 >= nt) {
                snprintf(err, errlen, "\"%s\" needs: arm arm figure", q);
                rc = -1;
                break;
            }
            if (strlen(tok[i + 1]) >= sizeof c.arm || strlen(tok[i + 2]) >= sizeof c.arm2) {
                snprintf(err, errlen, "arm name too long");
                rc = -1;
                break;
            }
            strcpy(c.arm, tok[i + 1]);
            strcpy(c.arm2, tok[i + 2]);
            c.fig = rf_fig_by_name(tok[i + 3]);
            if (c.fig < 0) {
                snprintf(err, errlen, "unknown figure \"%s\"", tok[i + 3]);
                rc = -1;
                break;
            }
            c.fig2 = c.fig;
            i += 4;
        } else if (!strcmp(q, "every") || !strcmp(q, "any") || !strcmp(q, "median")) {
            c.q = q[0] == 'e' ? PQ_EVERY : q[0] == 'a' ? PQ_ANY : PQ_MEDIAN;
            if (i + 3 >= nt) {
                snprintf(err, errlen, "\"%s\" needs: arm.figure op rhs", q);
                rc = -1;
                break;
            }
            if (parse_term(tok[i + 1], c.arm, sizeof c.arm, &c.fig, err, errlen)) {
                rc = -1;
                break;
            }
            const char *op = tok[i + 2];
            if (!strcmp(op, "<"))
                c.op = PO_LT;
            else if (!strcmp(op, "<="))
                c.op = PO_LE;
            else if (!strcmp(op, ">"))
                c.op = PO_GT;
            else if (!strcmp(op, ">="))
                c.op = PO_GE;
            else {
                snprintf(err, errlen, "\"%s\" is not one of < <= > >=", op);
                rc = -1;
                break;
            }
            int num = parse_number(tok[i + 3], &c.x);
            if (num) {
                snprintf(err, errlen, "\"%s\" %s", tok[i + 3],
                         num == VN_RANGE ? "is beyond the range of a double" : "is not a number");
                rc = -1;
                break;
            }
            i += 4;
            if (i < nt && !strcmp(tok[i], "*")) {
                if (i + 1 >= nt) {
                    snprintf(err, errlen, "\"*\" needs arm.figure after it");
                    rc = -1;
                    break;
                }
                if (parse_term(tok[i + 1], c.arm2, sizeof c.arm2, &c.fig2, err, errlen)) {
                    rc = -1;
                    break;
                }
                c.has_term = 1;
                i += 2;
            }
        } else {
            snprintf(err, errlen, "\"%s\" is not every, any, median, apart or close", q);
            rc = -1;
            break;
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 4;
            out->c = vu_xrealloc(out->c, cap * sizeof *out->c);
        }
        out->c[out->n++] = c;
        if (i < nt) {
            if (strcmp(tok[i], "and") || i + 1 >= nt) {
                at = out->n + 1;
                snprintf(err, errlen, "expected \" and \" and another clause at \"%s\"", tok[i]);
                rc = -1;
                break;
            }
            i++;
        }
    }
    free(copy);
    if (rc && at) {
        char *m = vu_xasprintf("clause %zu: %s", at, err);
        snprintf(err, errlen, "%s", m);
        free(m);
    }
    if (rc)
        pr_free(out);
    return rc;
}

int pr_check_arms(const pr_pred *p, const char *const *arms, size_t narms, char *err, size_t errlen)
{
    for (size_t k = 0; k < p->n; k++) {
        const pr_clause *c = &p->c[k];
        const char *names[2] = {c->arm, c->has_term || c->q == PQ_APART || c->q == PQ_CLOSE ? c->arm2 : NULL};
        for (int w = 0; w < 2; w++) {
            if (!names[w])
                continue;
            size_t i = 0;
            while (i < narms && strcmp(arms[i], names[w]))
                i++;
            if (i == narms) {
                snprintf(err, errlen, "clause %zu: arm \"%s\" is not a registered arm (not a name of the arms file)",
                         k + 1, names[w]);
                return -1;
            }
        }
    }
    return 0;
}

void pr_free(pr_pred *p)
{
    free(p->c);
    p->c = NULL;
    p->n = 0;
}

static int cmp(double a, pr_op op, double b)
{
    switch (op) {
    case PO_LT: return a < b;
    case PO_LE: return a <= b;
    case PO_GT: return a > b;
    case PO_GE: return a >= b;
    }
    return 0;
}

static int arm_median(const pr_data *d, const char *arm, int fig, double *m)
{
    int r[PR_MAXR];
    double v[PR_MAXR];
    size_t n = d->rounds(d->ctx, arm, r, PR_MAXR), k = 0;
    for (size_t i = 0; i < n; i++)
        if (d->value(d->ctx, arm, r[i], fig, &v[k]))
            k++;
    if (k == 0)
        return 0;
    *m = st_median(v, k);
    return 1;
}

/* rounds both arms have */
static size_t common_rounds(const pr_data *d, const char *a, const char *b, int *out)
{
    int ra[PR_MAXR], rb[PR_MAXR];
    size_t na = d->rounds(d->ctx, a, ra, PR_MAXR), nb = d->rounds(d->ctx, b, rb, PR_MAXR), n = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (ra[i] == rb[j]) {
                out[n++] = ra[i];
                break;
            }
    return n;
}

void pr_verdict_compute(const pr_data *d, const char *a, const char *b, int fig, pr_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->n = common_rounds(d, a, b, out->rounds);
    int pos = 0, neg = 0, missing = 0;
    for (size_t i = 0; i < out->n; i++) {
        double va, vb;
        if (d->value(d->ctx, a, out->rounds[i], fig, &va) && d->value(d->ctx, b, out->rounds[i], fig, &vb)) {
            out->has[i] = 1;
            out->diffs[i] = va - vb;
            pos += out->diffs[i] > 0;
            neg += out->diffs[i] < 0;
        } else {
            missing++;
        }
    }
    if (out->n >= 2 && !missing && pos == (int)out->n) {
        out->clearly = 1;
        out->dir = 1;
    } else if (out->n >= 2 && !missing && neg == (int)out->n) {
        out->clearly = 1;
        out->dir = -1;
    }
}

int pr_eval_clause(const pr_clause *c, const pr_data *d)
{
    if (c->q == PQ_APART || c->q == PQ_CLOSE) {
        pr_verdict v;
        pr_verdict_compute(d, c->arm, c->arm2, c->fig, &v);
        if (v.n == 0)
            return 0;
        for (size_t i = 0; i < v.n; i++)
            if (!v.has[i])
                return 0;
        return c->q == PQ_APART ? v.clearly : !v.clearly;
    }
    if (c->q == PQ_MEDIAN) {
        double ma, mb = 1;
        if (!arm_median(d, c->arm, c->fig, &ma))
            return 0;
        if (c->has_term && !arm_median(d, c->arm2, c->fig2, &mb))
            return 0;
        return cmp(ma, c->op, c->has_term ? c->x * mb : c->x);
    }
    int r[PR_MAXR];
    size_t n;
    if (c->has_term)
        n = common_rounds(d, c->arm, c->arm2, r);
    else
        n = d->rounds(d->ctx, c->arm, r, PR_MAXR);
    if (n == 0)
        return 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        double va, vb = 1;
        int good = d->value(d->ctx, c->arm, r[i], c->fig, &va);
        if (good && c->has_term)
            good = d->value(d->ctx, c->arm2, r[i], c->fig2, &vb);
        if (good && cmp(va, c->op, c->has_term ? c->x * vb : c->x))
            ok++;
    }
    return c->q == PQ_EVERY ? ok == n : ok > 0;
}
