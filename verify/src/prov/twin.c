/* twin: prediction.json's twin checked, results.json's twin recomputed and
 * compared; see twin.h. */
#include "twin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "mism.h"
#include "odds.h"
#include "vutil.h"

#define PRED_REL "results/prediction.json"

static int is_num(const vj_node *n)
{
    return n && n->type == VJ_NUM;
}

static int is_int(const vj_node *n)
{
    return n && n->type == VJ_NUM && n->is_int;
}

int tw_has_noise(const vj_node *pred)
{
    const char *f = vj_get_str(pred, "format");
    const vj_node *n = vj_get(pred, "noise");
    return f && !strcmp(f, "lab-prediction 2") && n && n->type != VJ_NULL;
}

vj_node *tw_of_entry(const vj_node *pred, const vj_node *e)
{
    const vj_node *t = vj_get(e, "twin");
    return tw_has_noise(pred) && t ? vj_copy(t) : vj_new_null();
}

/* ---- prediction.json's twin entries ---- */

static void bad(const char *what, const vj_node *v, const char *want)
{
    char lab[256];
    vj_scalar_text(v, lab, sizeof lab);
    mm_add(NULL, PRED_REL, what, v ? lab : "(absent)", want);
}

static void check_noise(const vj_node *n)
{
    if (n->type != VJ_OBJ) {
        bad("noise", n, "null or {path, sha256, replicas} (RESULTS.md, the twin)");
        return;
    }
    if (!vj_get_str(n, "path"))
        bad("noise.path", vj_get(n, "path"), "a string (RESULTS.md, the twin)");
    if (!vj_get_str(n, "sha256"))
        bad("noise.sha256", vj_get(n, "sha256"), "a string (RESULTS.md, the twin)");
    const vj_node *r = vj_get(n, "replicas");
    if (!is_int(r) || r->i < 1)
        bad("noise.replicas", r, "an integer >= 1 (RESULTS.md, the twin)");
}

/* one run's twin (not null) */
static void check_twin(const char *run, const vj_node *t)
{
    char w[512];
    if (t->type != VJ_OBJ) {
        snprintf(w, sizeof w, "runs.%s.twin", run);
        bad(w, t, "null or {replicas, flooded, p_flood, standin_share_q} (RESULTS.md, the twin)");
        return;
    }
    const vj_node *r = vj_get(t, "replicas"), *f = vj_get(t, "flooded"), *p = vj_get(t, "p_flood");
    int r_ok = is_int(r) && r->i >= 1;
    if (!r_ok) {
        snprintf(w, sizeof w, "runs.%s.twin.replicas", run);
        bad(w, r, "an integer >= 1");
    }
    int f_ok = is_int(f) && f->i >= 0 && (!r_ok || f->i <= r->i);
    if (!f_ok) {
        snprintf(w, sizeof w, "runs.%s.twin.flooded", run);
        bad(w, f, "an integer 0 .. replicas (the replicas that flooded)");
    }
    snprintf(w, sizeof w, "runs.%s.twin.p_flood", run);
    if (!is_num(p)) {
        bad(w, p, "a number, flooded / replicas");
    } else if (r_ok && f_ok) {
        double want = (double)f->i / (double)r->i;
        if (!(fabs(p->num - want) <= TW_P_FLOOD_TOL)) {
            char lab[64];
            vj_scalar_text(p, lab, sizeof lab);
            mm_addf(NULL, PRED_REL, w, lab, "%.17g (flooded %lld / replicas %lld, within 1e-9)", want, f->i, r->i);
        }
    }
    const vj_node *q = vj_get(t, "standin_share_q");
    int q_ok = q && q->type == VJ_ARR && q->n == 3;
    for (size_t k = 0; q_ok && k < 3; k++)
        q_ok = is_num(q->items[k]) && q->items[k]->num >= 0 && q->items[k]->num <= 1 &&
               (k == 0 || q->items[k]->num >= q->items[k - 1]->num);
    if (!q_ok) {
        snprintf(w, sizeof w, "runs.%s.twin.standin_share_q", run);
        if (q && q->type == VJ_ARR) {
            vu_buf b = {0};
            vu_buf_puts(&b, "[");
            for (size_t k = 0; k < q->n; k++) {
                char x[64];
                vj_scalar_text(q->items[k], x, sizeof x);
                vu_buf_printf(&b, "%s%s", k ? ", " : "", x);
            }
            vu_buf_puts(&b, "]");
            mm_add(NULL, PRED_REL, w, b.p, "three shares in [0, 1], ascending (q05, q50, q95)");
            vu_buf_free(&b);
        } else {
            bad(w, q, "three shares in [0, 1], ascending (q05, q50, q95)");
        }
    }
}

long tw_check_prediction(const vj_node *pred)
{
    const char *f = vj_get_str(pred, "format");
    if (!f || strcmp(f, "lab-prediction 2"))
        return 0;
    const vj_node *noise = vj_get(pred, "noise");
    int has = noise && noise->type != VJ_NULL;
    if (has)
        check_noise(noise);
    const vj_node *runs = vj_get(pred, "runs");
    long n = 0;
    for (size_t i = 0; runs && runs->type == VJ_OBJ && i < runs->n; i++) {
        const vj_node *t = vj_get(runs->items[i], "twin");
        if (!t || t->type == VJ_NULL)
            continue;
        n++;
        if (!has) {
            char w[512];
            snprintf(w, sizeof w, "runs.%s.twin", runs->keys[i]);
            mm_add(NULL, PRED_REL, w, "a twin", "null: the top level's noise is null or absent (no twin)");
        }
        check_twin(runs->keys[i], t);
    }
    return n;
}

/* ---- results.json's twin ---- */

static const double BIN_FROM[TW_NBINS] = {0, 0.05, 0.25, 0.5, 0.75, 0.95};
static const double BIN_TO[TW_NBINS] = {0.05, 0.25, 0.5, 0.75, 0.95, 1};

/* the bin of p: [from, to), the last [0.95, 1]; -1 outside [0, 1] */
static int bin_of(double p)
{
    if (!(p >= 0 && p <= 1))
        return -1;
    for (int b = 0; b < TW_NBINS - 1; b++)
        if (p < BIN_TO[b])
            return b;
    return TW_NBINS - 1;
}

/* whole numbers as integers (0, 1), the rest as doubles */
static vj_node *bound(double x)
{
    return x == floor(x) ? vj_new_int((long long)x) : vj_new_num(x);
}

static int by_name(const void *a, const void *b)
{
    const rf_run *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

/* the first usable flood claim of arm in prediction.json's odds: 1 with its chance */
static int flood_claim(const vj_node *pred, const char *arm, double *p)
{
    const vj_node *odds = vj_get(pred, "odds");
    for (size_t i = 0; odds && odds->type == VJ_ARR && i < odds->n; i++) {
        const vj_node *e = odds->items[i];
        const char *c = vj_get_str(e, "claim"), *a = vj_get_str(e, "arm");
        if (!c || !a || strcmp(c, "flood") || strcmp(a, arm))
            continue;
        const vj_node *k = vj_get(e, "sim_k"), *n = vj_get(e, "sim_n");
        if (!is_int(k) || !is_int(n) || n->i < 1 || k->i < 0 || k->i > n->i)
            continue; /* predict.c names it */
        *p = (double)k->i / (double)n->i;
        return 1;
    }
    return 0;
}

/* predicted.twin.standin_share_q's first and last: 1 when there */
static int twin_q(const vj_node *t, double *q05, double *q95)
{
    const vj_node *q = vj_get(t, "standin_share_q");
    if (!t || t->type != VJ_OBJ || !q || q->type != VJ_ARR || q->n < 1 || !is_num(q->items[0]) ||
        !is_num(q->items[q->n - 1]))
        return 0;
    *q05 = q->items[0]->num;
    *q95 = q->items[q->n - 1]->num;
    return 1;
}

static vj_node *outside_entry(const rf_run *r, const vj_node *e, double ms, double ps)
{
    const vj_node *t = vj_get(e, "twin"), *pf = vj_get(e, "flooded");
    int has_t = t && t->type == VJ_OBJ;
    double q05 = 0, q95 = 0;
    int has_q = has_t && twin_q(t, &q05, &q95);
    int flooded = r->flood.flooded != 0, pflooded = pf && pf->type == VJ_BOOL && pf->b;
    int within = has_q && q05 <= ms && ms <= q95;
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "run", vj_new_str(r->name));
    vj_obj_set(o, "measured", vj_new_num(ms));
    vj_obj_set(o, "predicted", vj_new_num(ps));
    vj_obj_set(o, "twin_q05", has_q ? vj_new_num(q05) : vj_new_null());
    vj_obj_set(o, "twin_q95", has_q ? vj_new_num(q95) : vj_new_null());
    vj_obj_set(o, "flooded", vj_new_bool(flooded));
    vj_obj_set(o, "predicted_flooded", pf ? vj_copy(pf) : vj_new_null());
    const vj_node *p = has_t ? vj_get(t, "p_flood") : NULL;
    vj_obj_set(o, "p_flood", p ? vj_copy(p) : vj_new_null());
    vj_obj_set(o, "within_twin", has_q ? vj_new_bool(within) : vj_new_null());
    const char *why = flooded && !pflooded   ? "flooded, predicted calm"
                      : !flooded && pflooded ? "calm, predicted to flood"
                                             : "stand-ins beyond the tolerance";
    char *reason = has_q ? vu_xasprintf("%s; %s the twin's 5-95%% spread", why, within ? "inside" : "outside")
                         : vu_xstrdup(why);
    vj_obj_set(o, "reason", vj_new_str(reason));
    free(reason);
    return o;
}

vj_node *tw_results(const study *s, const vj_node *pred)
{
    if (!tw_has_noise(pred))
        return vj_new_null();
    const rf_run **rs = vu_xcalloc(s->nruns + 1, sizeof *rs);
    size_t nr = 0;
    for (size_t i = 0; i < s->nruns; i++)
        if (s->runs[i].ok && s->runs[i].quiet)
            rs[nr++] = &s->runs[i];
    qsort(rs, nr, sizeof *rs, by_name);
    const vj_node *pruns = vj_get(pred, "runs");
    long long scored = 0, yes = 0, bn[TW_NBINS] = {0}, bk[TW_NBINS] = {0};
    double sb = 0, syn = 0, sod = 0, bp[TW_NBINS] = {0};
    vj_node *outside = vj_new_arr();
    for (size_t i = 0; i < nr; i++) {
        const rf_run *r = rs[i];
        const vj_node *e = pruns && pruns->type == VJ_OBJ ? vj_get(pruns, r->name) : NULL;
        if (!e || e->type != VJ_OBJ)
            continue;
        const vj_node *t = vj_get(e, "twin"), *pf = vj_get(e, "flooded");
        const vj_node *p = t && t->type == VJ_OBJ ? vj_get(t, "p_flood") : NULL;
        double podds = 0;
        if (is_num(p) && flood_claim(pred, r->arm, &podds)) {
            /* a scored run */
            int y = r->flood.flooded != 0;
            double pyn = pf && pf->type == VJ_BOOL && pf->b ? 1 : 0;
            scored++;
            yes += y;
            sb += (p->num - y) * (p->num - y);
            syn += (pyn - y) * (pyn - y);
            sod += (podds - y) * (podds - y);
            int b = bin_of(p->num);
            if (b >= 0) {
                bn[b]++;
                bk[b] += y;
                bp[b] += p->num;
            }
        }
        const vj_node *ps = vj_get(e, "standin_share");
        if (r->has[F_STANDIN_SHARE] && is_num(ps) && fabs(r->fig[F_STANDIN_SHARE] - ps->num) > TW_STANDIN_TOLERANCE)
            vj_arr_push(outside, outside_entry(r, e, r->fig[F_STANDIN_SHARE], ps->num));
    }
    free(rs);
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "runs", vj_new_int(scored));
    vj_obj_set(o, "flooded", vj_new_int(yes));
    vj_obj_set(o, "brier", scored ? vj_new_num(sb / (double)scored) : vj_new_null());
    vj_obj_set(o, "brier_yes_no", scored ? vj_new_num(syn / (double)scored) : vj_new_null());
    vj_obj_set(o, "brier_odds", scored ? vj_new_num(sod / (double)scored) : vj_new_null());
    vj_node *cal = vj_new_arr();
    for (int b = 0; b < TW_NBINS; b++) {
        vj_node *c = vj_new_obj();
        vj_obj_set(c, "from", bound(BIN_FROM[b]));
        vj_obj_set(c, "to", bound(BIN_TO[b]));
        vj_obj_set(c, "runs", vj_new_int(bn[b]));
        vj_obj_set(c, "mean_p", bn[b] ? vj_new_num(bp[b] / (double)bn[b]) : vj_new_null());
        vj_obj_set(c, "flooded", vj_new_int(bk[b]));
        vj_obj_set(c, "share", bn[b] ? vj_new_num((double)bk[b] / (double)bn[b]) : vj_new_null());
        double lo = 0, hi = 0;
        if (bn[b] && !od_clopper_pearson(bk[b], bn[b], &lo, &hi)) {
            vj_node *ci = vj_new_arr();
            vj_arr_push(ci, vj_new_num(lo));
            vj_arr_push(ci, vj_new_num(hi));
            vj_obj_set(c, "cp95", ci);
        } else {
            vj_obj_set(c, "cp95", vj_new_null());
        }
        vj_arr_push(cal, c);
    }
    vj_obj_set(o, "calibration", cal);
    vj_obj_set(o, "outside", outside);
    return o;
}

/* ---- the comparison ---- */

static int loose(const char *field)
{
    static const char *const F[] = {"brier",    "brier_yes_no", "brier_odds", "mean_p",  "share",
                                    "measured", "predicted",    "twin_q05",   "twin_q95", "p_flood"};
    for (size_t i = 0; i < sizeof F / sizeof *F; i++)
        if (!strcmp(F[i], field))
            return 1;
    return 0;
}

/* an entry of a list, named by its run when it has one (outside) */
static char *tw_entry(const char *path, const vj_node *m, size_t i)
{
    const char *run = vj_get_str(m, "run");
    return run ? vu_xasprintf("%s[%zu] (%s)", path, i, run) : vu_xasprintf("%s[%zu]", path, i);
}

/* cp95 to 1e-11 (as odds'), the loose fields to TW_NUM_TOL, every other number exactly */
static int tw_num_equal(const char *field, double l, double m)
{
    if (!strcmp(field, "cp95"))
        return cmp_num_equal(RF_INTERVAL, l, m);
    if (loose(field))
        return fabs(l - m) <= TW_NUM_TOL;
    return l == m;
}

void tw_compare(const vj_node *lab, const vj_node *mine)
{
    const vj_node *l = vj_get(lab, "twin"), *m = vj_get(mine, "twin");
    if (!m)
        return;
    if (!l) {
        if (m->type != VJ_NULL)
            mm_add(NULL, "results.json", "twin", "(absent)",
                   "the twin scored: prediction.json has a twin (RESULTS.md, \"twin\")");
        return;
    }
    cmp_tree("twin", "twin", l, m, &(cmp_tree_rules){tw_entry, tw_num_equal});
}
