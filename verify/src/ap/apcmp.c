/* apcmp: one number, string or member list of results/ap.json compared with the verifier's; see apcmp.h. */
#include "apcmp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mism.h"
#include "vutil.h"

static void fmt_d(double d, char *out, size_t n)
{
    if (isnan(d))
        snprintf(out, n, "null");
    else
        vu_fmt_double(d, out, n);
}

void apcmp_mm(const char *path, const vj_node *lab, const char *mine)
{
    char a[256];
    vj_scalar_text(lab, a, sizeof a);
    mm_add(NULL, "ap.json", path, a, mine);
}

int apcmp_is_num(const vj_node *n)
{
    return n && n->type == VJ_NUM;
}

void apcmp_count(const char *path, const vj_node *lab, long long mine)
{
    if (apcmp_is_num(lab) && lab->num == (double)mine)
        return;
    char m[64];
    snprintf(m, sizeof m, "%lld", mine);
    apcmp_mm(path, lab, m);
}

void apcmp_num(const char *path, const vj_node *lab, double mine, double tol, const char *why)
{
    int ok;
    if (isnan(mine))
        ok = lab && lab->type == VJ_NULL;
    else if (!apcmp_is_num(lab))
        ok = 0;
    else if (tol == 0)
        ok = lab->num == mine;
    else if (tol < 0)
        ok = fabs(lab->num - mine) <= -tol * fmax(fabs(lab->num), fabs(mine));
    else
        ok = fabs(lab->num - mine) <= tol;
    if (ok)
        return;
    char m[256], d[64];
    fmt_d(mine, d, sizeof d);
    snprintf(m, sizeof m, "%s%s%s", d, why ? " " : "", why ? why : "");
    apcmp_mm(path, lab, m);
}

void apcmp_str(const char *path, const vj_node *lab, const char *mine)
{
    if (lab && lab->type == VJ_STR && !strcmp(lab->text, mine))
        return;
    char m[512];
    snprintf(m, sizeof m, "\"%s\"", mine);
    apcmp_mm(path, lab, m);
}

void apcmp_members(const char *path, const vj_node *lab, const char *const *allowed)
{
    if (!lab || lab->type != VJ_OBJ)
        return;
    for (size_t i = 0; i < lab->n; i++) {
        int known = 0;
        for (size_t k = 0; allowed[k] && !known; k++)
            known = !strcmp(lab->keys[i], allowed[k]);
        if (known)
            continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", lab->keys[i]);
        apcmp_mm(sub, lab->items[i], "(a member APCOST.md does not define)");
    }
}

const vj_node *apcmp_need(const char *path, const vj_node *parent, const char *key, vj_type type)
{
    const vj_node *n = vj_get(parent, key);
    if (n && n->type == type)
        return n;
    char sub[512];
    snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key);
    apcmp_mm(sub, n, type == VJ_OBJ ? "an object (APCOST.md 1.7)" : "a list (APCOST.md 1.7)");
    return NULL;
}

const char *apcmp_at(char *q, size_t qn, const char *prefix, const char *name)
{
    snprintf(q, qn, "%s.%s", prefix, name);
    return q;
}
