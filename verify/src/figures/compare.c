/* compare: the lab's results.json against the verifier's own numbers; see compare.h. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vutil.h"

int cmp_num_equal(rf_class c, double lab, double mine)
{
    switch (c) {
    case RF_COUNT: return lab == mine;
    case RF_MS: return fabs(lab - mine) < 1e-6;
    case RF_US: return fabs(lab - mine) < 1e-3;
    case RF_RATIO: return fabs(lab - mine) <= 1e-12 * fmax(fabs(lab), fabs(mine));
    case RF_MEAN: return fabs(lab - mine) < 1e-9;
    /* each end found by bisection to within 1e-12 of the root (RESULTS.md) */
    case RF_INTERVAL: return fabs(lab - mine) <= 1e-11;
    }
    return 0;
}

static void txt(const vj_node *n, char *out, size_t len)
{
    vj_scalar_text(n, out, len);
}

static void mm_nodes(const char *where, const char *what, const vj_node *lab, const vj_node *mine)
{
    char a[256], b[256];
    txt(lab, a, sizeof a);
    txt(mine, b, sizeof b);
    mm_add(NULL, where, what, a, b);
}

/* results.json has a top-level "twin" (RESULTS.md): set by cmp_results */
static int lab_has_twin;

/* figures RESULTS.md added after the published study of 2026-12-01
 * (format still lab-results 1), in groups added together: healthy_timeouts
 * and healthy_timeout_share; then during_standin_share, during_p99_ms,
 * store1_during_busy and store2_during_busy (issue 29, part 2).  A group is
 * demanded in every entry of runs, arms and attempts once results.json has
 * any of its members in any of them; a results.json with none of a group
 * anywhere (older than the members) is not asked for it.  Set by
 * cmp_results. */
#define CMP_LATE_GROUPS 2
static const char *const late_keys[CMP_LATE_GROUPS][5] = {
    {"healthy_timeouts", "healthy_timeout_share", NULL},
    {"during_standin_share", "during_p99_ms", "store1_during_busy", "store2_during_busy", NULL},
};
static int lab_has_late[CMP_LATE_GROUPS];

/* the group of a late figure, or -1 */
static int late_group(const char *k)
{
    for (int g = 0; g < CMP_LATE_GROUPS; g++)
        for (int i = 0; late_keys[g][i]; i++)
            if (!strcmp(k, late_keys[g][i]))
                return g;
    return -1;
}

static int any_late(const vj_node *section, int g)
{
    if (!section || section->type != VJ_OBJ)
        return 0;
    for (size_t i = 0; i < section->n; i++) {
        const vj_node *e = section->items[i];
        for (int j = 0; e->type == VJ_OBJ && late_keys[g][j]; j++)
            if (vj_get(e, late_keys[g][j]))
                return 1;
    }
    return 0;
}

static int all_null_stats(const vj_node *lab)
{
    if (!lab || lab->type != VJ_OBJ)
        return 0;
    for (size_t i = 0; i < lab->n; i++)
        if (lab->items[i]->type != VJ_NULL)
            return 0;
    return 1;
}

static int all_strings(const vj_node *a)
{
    if (!a || a->type != VJ_ARR)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->items[i]->type != VJ_STR)
            return 0;
    return 1;
}

/* a list of names (quiet_rules) is compared whole: one mismatch showing both */
static void cmp_names(const char *where, const char *path, const vj_node *lab, const vj_node *mine)
{
    int same = lab->n == mine->n;
    for (size_t i = 0; same && i < lab->n; i++)
        same = !strcmp(lab->items[i]->text, mine->items[i]->text);
    if (same)
        return;
    vu_buf a = {0}, b = {0};
    const vj_node *l[2] = {lab, mine};
    vu_buf *o[2] = {&a, &b};
    for (int k = 0; k < 2; k++) {
        vu_buf_puts(o[k], "[");
        for (size_t i = 0; i < l[k]->n; i++)
            vu_buf_printf(o[k], "%s\"%s\"", i ? ", " : "", l[k]->items[i]->text);
        vu_buf_puts(o[k], "]");
    }
    mm_add(NULL, where, path, a.p, b.p);
    vu_buf_free(&a);
    vu_buf_free(&b);
}

/* field: the member name that decides the class (median/min/max inherit it) */
static void cmp_node(const char *where, const char *path, const char *field, const vj_node *lab,
                     const vj_node *mine)
{
    if (!lab) {
        mm_nodes(where, path, NULL, mine);
        return;
    }
    switch (mine->type) {
    case VJ_OBJ:
        if (lab->type != VJ_OBJ) {
            mm_nodes(where, path, lab, mine);
            return;
        }
        for (size_t i = 0; i < mine->n; i++) {
            const char *k = mine->keys[i];
            char *sub = *path ? vu_xasprintf("%s.%s", path, k) : vu_xstrdup(k);
            /* predicted.twin: not asked of a results.json older than the twin
             * (no top-level twin) while the verifier's is null */
            if (!strcmp(path, "predicted") && !strcmp(k, "twin") && !lab_has_twin && !vj_get(lab, k) &&
                mine->items[i]->type == VJ_NULL) {
                free(sub);
                continue;
            }
            /* a run's, attempt's or arm's late figures: not asked of an older results.json */
            int g = *path ? -1 : late_group(k);
            if (g >= 0 && !lab_has_late[g] && !vj_get(lab, k)) {
                free(sub);
                continue;
            }
            int stat = !strcmp(k, "median") || !strcmp(k, "min") || !strcmp(k, "max");
            cmp_node(where, sub, stat ? field : k, vj_get(lab, k), mine->items[i]);
            free(sub);
        }
        for (size_t i = 0; i < lab->n; i++) {
            if (vj_get(mine, lab->keys[i]))
                continue;
            char *sub = *path ? vu_xasprintf("%s.%s", path, lab->keys[i]) : vu_xstrdup(lab->keys[i]);
            char a[256];
            txt(lab->items[i], a, sizeof a);
            mm_add(NULL, where, sub, a, "(a member RESULTS.md does not define)");
            free(sub);
        }
        return;
    case VJ_ARR:
        if (lab->type != VJ_ARR) {
            mm_nodes(where, path, lab, mine);
            return;
        }
        if (all_strings(lab) && all_strings(mine) && (lab->n || mine->n)) {
            cmp_names(where, path, lab, mine);
            return;
        }
        if (lab->n != mine->n) {
            char a[64], b[64];
            snprintf(a, sizeof a, "%zu entries", lab->n);
            snprintf(b, sizeof b, "%zu entries", mine->n);
            char *sub = vu_xasprintf("%s (length)", path);
            mm_add(NULL, where, sub, a, b);
            free(sub);
        }
        for (size_t i = 0; i < lab->n && i < mine->n; i++) {
            char *sub = vu_xasprintf("%s[%zu]", path, i);
            cmp_node(where, sub, field, lab->items[i], mine->items[i]);
            free(sub);
        }
        return;
    case VJ_NUM:
        if (lab->type != VJ_NUM || !cmp_num_equal(rf_class_by_field(field), lab->num, mine->num))
            mm_nodes(where, path, lab, mine);
        return;
    case VJ_NULL:
        /* RESULTS.md: an arm figure no run has is null; accept the spelled-out form too */
        if (lab->type != VJ_NULL && !all_null_stats(lab))
            mm_nodes(where, path, lab, mine);
        return;
    case VJ_STR:
        if (lab->type != VJ_STR || strcmp(lab->text, mine->text))
            mm_nodes(where, path, lab, mine);
        return;
    case VJ_BOOL:
        if (lab->type != VJ_BOOL || lab->b != mine->b)
            mm_nodes(where, path, lab, mine);
        return;
    }
}

/* runs, arms or attempts: an object of objects, keyed by name */
static void cmp_keyed(const char *section, const vj_node *lab, const vj_node *mine)
{
    if (!lab || lab->type != VJ_OBJ) {
        mm_nodes("results.json", section, lab, mine);
        return;
    }
    int att = !strcmp(section, "attempts");
    const char *prefix = !strcmp(section, "arms") ? "arms." : att ? "attempts." : "";
    for (size_t i = 0; i < mine->n; i++) {
        char *where = vu_xasprintf("%s%s", prefix, mine->keys[i]);
        const vj_node *l = vj_get(lab, mine->keys[i]);
        if (!l)
            mm_add(NULL, where, "(the whole entry)", "(absent from results.json)",
                   att ? "recomputed from results/attempts/" : "recomputed from results/raw/");
        else
            cmp_node(where, "", "", l, mine->items[i]);
        free(where);
    }
    for (size_t i = 0; i < lab->n; i++) {
        if (vj_get(mine, lab->keys[i]))
            continue;
        char *where = vu_xasprintf("%s%s", prefix, lab->keys[i]);
        mm_add(NULL, where, "(the whole entry)", "present in results.json",
               att ? "(no accepted attempt folder of that name under results/attempts/)"
                   : "(no accepted raw run of that name/arm under results/raw/)");
        free(where);
    }
}

/* each verdict's error rate (RESULTS.md, "Each verdict's error rate"):
 * demanded once results.json has any of it */
static const char *const RATE_KEYS[] = {"n", "false_positive_rate", "sizing_q", "power", "decidable"};
#define N_RATE_KEYS (sizeof RATE_KEYS / sizeof *RATE_KEYS)

static int lab_has_rates(const vj_node *lab)
{
    if (vj_get(lab, "verdict_family"))
        return 1;
    const vj_node *v = vj_get(lab, "verdicts");
    for (size_t i = 0; v && v->type == VJ_ARR && i < v->n; i++)
        for (size_t k = 0; k < N_RATE_KEYS; k++)
            if (vj_get(v->items[i], RATE_KEYS[k]))
                return 1;
    return 0;
}

/* a number of the error rates: n and the counts exactly, the rest to
 * 1e-12 of the larger (q^n and sums of powers of 2, computed apart) */
static void cmp_rate(const char *where, const char *what, const vj_node *l, const vj_node *m, int exact)
{
    if (!l) {
        mm_add(NULL, where, what, "(absent)", "present: results.json has the verdicts' error rates (RESULTS.md)");
        return;
    }
    if (m->type != VJ_NUM) {
        if (l->type != m->type || (m->type == VJ_BOOL && l->b != m->b))
            mm_nodes(where, what, l, m);
        return;
    }
    if (l->type != VJ_NUM || (exact ? l->num != m->num : !cmp_num_equal(RF_RATIO, l->num, m->num)))
        mm_nodes(where, what, l, m);
}

static void cmp_family(const vj_node *lab, const vj_node *mine)
{
    if (!lab || lab->type != VJ_OBJ) {
        mm_nodes("results.json", "verdict_family", lab, mine);
        return;
    }
    for (size_t i = 0; i < mine->n; i++)
        cmp_rate("results.json", mine->keys[i], vj_get(lab, mine->keys[i]), mine->items[i],
                 strcmp(mine->keys[i], "expected_chance") != 0);
    for (size_t i = 0; i < lab->n; i++)
        if (!vj_get(mine, lab->keys[i]))
            mm_add(NULL, "results.json", lab->keys[i], "present in verdict_family",
                   "(a member RESULTS.md does not define)");
}

static void cmp_verdicts(const vj_node *lab, const vj_node *mine, const study *s, int rates)
{
    if (!lab || lab->type != VJ_ARR) {
        mm_nodes("results.json", "verdicts", lab, mine);
        return;
    }
    if (lab->n != mine->n) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%zu entries", lab->n);
        snprintf(b, sizeof b, "%zu entries (lines of comparisons.tsv)", mine->n);
        mm_add(NULL, "verdicts", "(length)", a, b);
    }
    pr_data d = study_pr_data((study *)s);
    for (size_t i = 0; i < lab->n && i < mine->n; i++) {
        const vj_node *l = lab->items[i], *m = mine->items[i];
        char where[512];
        snprintf(where, sizeof where, "verdicts[%zu] (%s %s %s)", i, vj_get_str(m, "a"), vj_get_str(m, "b"),
                 vj_get_str(m, "figure"));
        if (l->type != VJ_OBJ) {
            mm_nodes(where, "(entry)", l, m);
            continue;
        }
        static const char *const strs[] = {"a", "b", "figure", "note", "verdict", "direction"};
        for (size_t k = 0; k < 6; k++)
            cmp_node(where, strs[k], strs[k], vj_get(l, strs[k]), vj_get(m, strs[k]));
        cmp_node(where, "rounds", "rounds", vj_get(l, "rounds"), vj_get(m, "rounds"));
        const vj_node *ld = vj_get(l, "diffs"), *md = vj_get(m, "diffs");
        const pr_verdict *v = &s->verdicts[i];
        int fig = rf_fig_by_name(vj_get_str(m, "figure"));
        rf_class c = rf_fig_class(fig);
        if (!ld || ld->type != VJ_ARR || ld->n != md->n) {
            mm_nodes(where, "diffs", ld, md);
        } else {
            for (size_t k = 0; k < md->n; k++) {
                char what[64];
                snprintf(what, sizeof what, "diffs[%zu]", k);
                const vj_node *x = ld->items[k], *y = md->items[k];
                if (y->type == VJ_NULL || x->type != VJ_NUM) {
                    if (x->type != y->type)
                        mm_nodes(where, what, x, y);
                    continue;
                }
                double tol;
                if (c == RF_COUNT)
                    tol = 0;
                else if (c == RF_MS)
                    tol = 2e-6;
                else if (c == RF_US)
                    tol = 2e-3;
                else if (c == RF_MEAN)
                    tol = 2e-9;
                else {
                    double va = 0, vb = 0;
                    d.value(d.ctx, vj_get_str(m, "a"), v->rounds[k], fig, &va);
                    d.value(d.ctx, vj_get_str(m, "b"), v->rounds[k], fig, &vb);
                    tol = 1e-12 * fmax(fabs(va), fabs(vb));
                }
                int ok = c == RF_COUNT ? x->num == y->num
                         : (c == RF_RATIO ? fabs(x->num - y->num) <= tol : fabs(x->num - y->num) < tol);
                if (!ok)
                    mm_nodes(where, what, x, y);
            }
        }
        for (size_t k = 0; rates && k < N_RATE_KEYS; k++)
            if (vj_get(m, RATE_KEYS[k]))
                cmp_rate(where, RATE_KEYS[k], vj_get(l, RATE_KEYS[k]), vj_get(m, RATE_KEYS[k]), k == 0);
        for (size_t k = 0; k < l->n; k++)
            if (!vj_get(m, l->keys[k]))
                mm_add(NULL, where, l->keys[k], "present", "(a member RESULTS.md does not define)");
    }
}

static void cmp_guesses(const vj_node *lab, const vj_node *mine)
{
    if (!lab || lab->type != VJ_ARR) {
        mm_nodes("results.json", "guesses", lab, mine);
        return;
    }
    if (lab->n != mine->n) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%zu entries", lab->n);
        snprintf(b, sizeof b, "%zu entries (lines of guesses.tsv)", mine->n);
        mm_add(NULL, "guesses", "(length)", a, b);
    }
    for (size_t i = 0; i < lab->n && i < mine->n; i++) {
        char where[256];
        snprintf(where, sizeof where, "guesses[%zu] (%s)", i, vj_get_str(mine->items[i], "id"));
        cmp_node(where, "", "", lab->items[i], mine->items[i]);
    }
}

/* the odds (predict.h builds the verifier's): entry by entry, in order */
static void cmp_odds(const vj_node *lab, const vj_node *mine)
{
    if (!lab || lab->type != VJ_ARR) {
        mm_nodes("results.json", "odds", lab, mine);
        return;
    }
    if (lab->n != mine->n) {
        char a[64], b[128];
        snprintf(a, sizeof a, "%zu entries", lab->n);
        snprintf(b, sizeof b, "%zu entries (prediction.json's claims and the outside observation)", mine->n);
        mm_add(NULL, "odds", "(length)", a, b);
    }
    for (size_t i = 0; i < lab->n && i < mine->n; i++) {
        const vj_node *m = mine->items[i];
        char where[512];
        snprintf(where, sizeof where, "odds[%zu] (%s %s %s%s)", i, vj_get_str(m, "claim"), vj_get_str(m, "arm"),
                 vj_get_str(m, "event"), vj_get(m, "source") ? ", outside" : "");
        cmp_node(where, "", "", lab->items[i], m);
    }
}

void cmp_results(const vj_node *lab, const study *s)
{
    const vj_node *mine = s->mine;
    if (!lab || lab->type != VJ_OBJ) {
        mm_add(NULL, "results.json", "(top level)", "not an object", "an object (RESULTS.md)");
        return;
    }
    lab_has_twin = vj_get(lab, "twin") != NULL;
    for (int g = 0; g < CMP_LATE_GROUPS; g++)
        lab_has_late[g] = any_late(vj_get(lab, "runs"), g) || any_late(vj_get(lab, "arms"), g) ||
                          any_late(vj_get(lab, "attempts"), g);
    cmp_node("results.json", "format", "format", vj_get(lab, "format"), vj_get(mine, "format"));
    cmp_keyed("runs", vj_get(lab, "runs"), vj_get(mine, "runs"));
    cmp_keyed("arms", vj_get(lab, "arms"), vj_get(mine, "arms"));
    int rates = lab_has_rates(lab);
    cmp_verdicts(vj_get(lab, "verdicts"), vj_get(mine, "verdicts"), s, rates);
    if (rates && vj_get(mine, "verdict_family"))
        cmp_family(vj_get(lab, "verdict_family"), vj_get(mine, "verdict_family"));
    /* attempts: {} (or absent, in a study older than the member) when there is none */
    const vj_node *ma = vj_get(mine, "attempts");
    if (ma && (vj_get(lab, "attempts") || ma->n))
        cmp_keyed("attempts", vj_get(lab, "attempts"), ma);
    cmp_guesses(vj_get(lab, "guesses"), vj_get(mine, "guesses"));
    if (vj_get(mine, "odds"))
        cmp_odds(vj_get(lab, "odds"), vj_get(mine, "odds"));
    for (size_t i = 0; i < lab->n; i++)
        if (!vj_get(mine, lab->keys[i]))
            mm_add(NULL, "results.json", lab->keys[i], "present", "(a member RESULTS.md does not define)");
}

/* ---- a member compared whole (cmp_tree) ---- */

static void tree_diff(const char *path, const vj_node *l, const vj_node *m)
{
    char a[256], b[256];
    vj_scalar_text(l, a, sizeof a);
    vj_scalar_text(m, b, sizeof b);
    mm_add(NULL, "results.json", path, l ? a : "(absent)", b);
}

void cmp_tree(const char *path, const char *field, const vj_node *l, const vj_node *m, const cmp_tree_rules *r)
{
    if (!l) {
        tree_diff(path, l, m);
        return;
    }
    switch (m->type) {
    case VJ_OBJ:
        if (l->type != VJ_OBJ) {
            tree_diff(path, l, m);
            return;
        }
        for (size_t i = 0; i < m->n; i++) {
            char *sub = vu_xasprintf("%s.%s", path, m->keys[i]);
            cmp_tree(sub, m->keys[i], vj_get(l, m->keys[i]), m->items[i], r);
            free(sub);
        }
        for (size_t i = 0; i < l->n; i++) {
            if (vj_get(m, l->keys[i]))
                continue;
            char *sub = vu_xasprintf("%s.%s", path, l->keys[i]);
            char a[256];
            vj_scalar_text(l->items[i], a, sizeof a);
            mm_add(NULL, "results.json", sub, a, "(a member RESULTS.md does not define)");
            free(sub);
        }
        return;
    case VJ_ARR:
        if (l->type != VJ_ARR) {
            tree_diff(path, l, m);
            return;
        }
        if (l->n != m->n) {
            char a[64], b[64];
            snprintf(a, sizeof a, "%zu entries", l->n);
            snprintf(b, sizeof b, "%zu entries", m->n);
            char *sub = vu_xasprintf("%s (length)", path);
            mm_add(NULL, "results.json", sub, a, b);
            free(sub);
        }
        for (size_t i = 0; i < l->n && i < m->n; i++) {
            char *sub = r->entry(path, m->items[i], i);
            cmp_tree(sub, field, l->items[i], m->items[i], r);
            free(sub);
        }
        return;
    case VJ_NUM:
        if (l->type != VJ_NUM || !r->num_equal(field, l->num, m->num))
            tree_diff(path, l, m);
        return;
    case VJ_NULL:
        if (l->type != VJ_NULL)
            tree_diff(path, l, m);
        return;
    case VJ_STR:
        if (l->type != VJ_STR || strcmp(l->text, m->text))
            tree_diff(path, l, m);
        return;
    case VJ_BOOL:
        if (l->type != VJ_BOOL || l->b != m->b)
            tree_diff(path, l, m);
        return;
    }
}
