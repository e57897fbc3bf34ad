/* floodmap: the prediction's map checked, results.json's map recomputed and
 * compared; see floodmap.h. */
#include "floodmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "mism.h"
#include "odds.h"
#include "runjson.h"
#include "vfiles.h"
#include "vutil.h"

#define PRED_REL "results/prediction.json"
#define WHY_MAP "RESULTS.md, \"The map\""

static int is_num(const vj_node *n)
{
    return n && n->type == VJ_NUM;
}

static int is_int(const vj_node *n)
{
    return n && n->type == VJ_NUM && n->is_int;
}

static int is_null(const vj_node *n)
{
    return !n || n->type == VJ_NULL;
}

int fm_has_map(const vj_node *pred)
{
    return !is_null(vj_get(pred, "map"));
}

/* a cell's k and n: 1 when integers with n >= 1 and 0 <= k <= n */
static int cell_kn(const vj_node *c, long long *k, long long *n)
{
    const vj_node *vk = vj_get(c, "k"), *vn = vj_get(c, "n");
    if (!is_int(vk) || !is_int(vn) || vn->i < 1 || vk->i < 0 || vk->i > vn->i)
        return 0;
    *k = vk->i;
    *n = vn->i;
    return 1;
}

/* whole numbers as integers (0, 325), the rest as doubles */
static vj_node *num_node(double x)
{
    return isfinite(x) && x == floor(x) && fabs(x) < 9e15 ? vj_new_int((long long)x) : vj_new_num(x);
}

static vj_node *pair(double a, double b)
{
    vj_node *p = vj_new_arr();
    vj_arr_push(p, vj_new_num(a));
    vj_arr_push(p, vj_new_num(b));
    return p;
}

/* ---- the rules ---- */

/* the value at rank r (0-based) of the list in which v appears counts[v] times */
static long long value_at(const vj_node *counts, long long r)
{
    long long cum = 0;
    for (size_t v = 0; v < counts->n; v++) {
        cum += counts->items[v]->i;
        if (cum > r)
            return (long long)v;
    }
    return (long long)counts->n - 1; /* not reached: r < the sum */
}

int fm_counts_median(const vj_node *counts, long long *n, double *median)
{
    *n = 0;
    *median = NAN;
    if (!counts || counts->type != VJ_ARR)
        return -1;
    long long sum = 0;
    for (size_t v = 0; v < counts->n; v++) {
        const vj_node *c = counts->items[v];
        if (!is_int(c) || c->i < 0 || c->i > (1LL << 62) - sum)
            return -1;
        sum += c->i;
    }
    *n = sum;
    if (!sum)
        return 0;
    /* stats.h: h = (n - 1) q, f = floor(h), v[f] + (h - f)(v[min(f + 1, n - 1)] - v[f]); q = 0.5 */
    long long f = (sum - 1) / 2;
    double frac = (sum - 1) % 2 ? 0.5 : 0;
    double lo = (double)value_at(counts, f), hi = (double)value_at(counts, f + 1 < sum ? f + 1 : sum - 1);
    *median = lo + frac * (hi - lo);
    return 0;
}

/* the highest load whose cells at it and at every lower load have vals < p; -1 when none */
static long highest_below(const double *load, const double *vals, size_t m, double p)
{
    long best = -1;
    for (size_t i = 0; i < m; i++) {
        int ok = 1;
        for (size_t j = 0; j < m && ok; j++)
            if (load[j] <= load[i] && !(vals[j] < p))
                ok = 0;
        if (ok && (best < 0 || load[i] > load[best]))
            best = (long)i;
    }
    return best;
}

vj_node *fm_hidden_capacity(const vj_node *cells, double p)
{
    if (!cells || cells->type != VJ_ARR || !isfinite(p))
        return NULL;
    size_t m = cells->n;
    double *load = vu_xcalloc(m + 1, sizeof *load), *sh = vu_xcalloc(m + 1, sizeof *sh);
    double *wl = vu_xcalloc(m + 1, sizeof *wl), *wh = vu_xcalloc(m + 1, sizeof *wh);
    int ok = 1, tips = 0;
    for (size_t i = 0; i < m && ok; i++) {
        const vj_node *c = cells->items[i], *l = vj_get(c, "load");
        long long k, n;
        ok = is_num(l) && cell_kn(c, &k, &n) && !od_wilson(k, n, &wl[i], &wh[i]);
        if (!ok)
            break;
        load[i] = l->num;
        sh[i] = (double)k / (double)n;
        tips |= !(sh[i] < p);
    }
    vj_node *o = NULL;
    if (ok) {
        long b = highest_below(load, sh, m, p), lo = highest_below(load, wh, m, p), hi = highest_below(load, wl, m, p);
        o = vj_new_obj();
        vj_obj_set(o, "load", b >= 0 ? vj_copy(vj_get(cells->items[b], "load")) : vj_new_null());
        vj_node *iv = vj_new_arr();
        vj_arr_push(iv, lo >= 0 ? vj_copy(vj_get(cells->items[lo], "load")) : vj_new_null());
        vj_arr_push(iv, hi >= 0 ? vj_copy(vj_get(cells->items[hi], "load")) : vj_new_null());
        vj_obj_set(o, "interval", iv);
        vj_obj_set(o, "tips", vj_new_bool(tips));
    }
    free(load);
    free(sh);
    free(wl);
    free(wh);
    return o;
}

/* the first cell of cells at load (usable k and n): NULL when none */
static const vj_node *cell_at(const vj_node *cells, double load)
{
    long long k, n;
    for (size_t i = 0; cells && cells->type == VJ_ARR && i < cells->n; i++) {
        const vj_node *l = vj_get(cells->items[i], "load");
        if (is_num(l) && l->num == load && cell_kn(cells->items[i], &k, &n))
            return cells->items[i];
    }
    return NULL;
}

/* ---- results.json's map ---- */

static vj_node *copy_of(const vj_node *o, const char *key)
{
    return vj_copy(vj_get(o, key));
}

static vj_node *result_cell(const vj_node *c)
{
    vj_node *o = vj_new_obj();
    long long k, n;
    double lo, hi;
    int ok = cell_kn(c, &k, &n) && !od_wilson(k, n, &lo, &hi);
    vj_obj_set(o, "load", copy_of(c, "load"));
    vj_obj_set(o, "k", copy_of(c, "k"));
    vj_obj_set(o, "n", copy_of(c, "n"));
    vj_obj_set(o, "share", ok ? vj_new_num((double)k / (double)n) : vj_new_null());
    vj_obj_set(o, "wilson95", ok ? pair(lo, hi) : vj_new_null());
    vj_obj_set(o, "onset_median_s", copy_of(c, "onset_median_s"));
    vj_obj_set(o, "standin_share_median", copy_of(c, "standin_share_median"));
    return o;
}

static vj_node *result_group(const vj_node *g)
{
    vj_node *o = vj_new_obj();
    const vj_node *counts = vj_get(g, "counts");
    long long n;
    double med;
    int ok = !fm_counts_median(counts, &n, &med);
    vj_obj_set(o, "n", ok ? vj_new_int(n) : vj_new_null());
    vj_obj_set(o, "median", ok && n ? num_node(med) : vj_new_null());
    vj_obj_set(o, "counts", vj_copy(counts));
    return o;
}

/* the arm's flood claim among results.json's odds (claims only: no source) */
static const vj_node *flood_entry(const vj_node *odds, const char *arm)
{
    for (size_t i = 0; arm && odds && odds->type == VJ_ARR && i < odds->n; i++) {
        const vj_node *e = odds->items[i];
        const char *c = vj_get_str(e, "claim"), *a = vj_get_str(e, "arm");
        if (c && a && !strcmp(c, "flood") && !strcmp(a, arm) && !vj_get(e, "source"))
            return e;
    }
    return NULL;
}

static vj_node *result_point(const vj_node *a, const vj_node *odds, const vj_node *cells, const vj_node *seconds)
{
    vj_node *o = vj_new_obj();
    const vj_node *load = vj_get(a, "load");
    const vj_node *e = flood_entry(odds, vj_get_str(a, "arm"));
    static const char *const copied[] = {"seconds", "sim_k", "sim_n", "k", "n", "rounds", "cp95"};
    vj_obj_set(o, "arm", copy_of(a, "arm"));
    vj_obj_set(o, "load", vj_copy(load));
    for (size_t i = 0; i < sizeof copied / sizeof *copied; i++)
        vj_obj_set(o, copied[i], e ? copy_of(e, copied[i]) : vj_new_null());
    const vj_node *es = vj_get(e, "seconds");
    int on_curve = e && is_num(es) && is_num(seconds) && es->num == seconds->num;
    vj_obj_set(o, "on_curve", vj_new_bool(on_curve));
    const vj_node *cp = vj_get(e, "cp95");
    const vj_node *cell = is_num(load) ? cell_at(cells, load->num) : NULL;
    long long k = 0, n = 0;
    double lo, hi;
    int agree = -1;
    if (on_curve && cp && cp->type == VJ_ARR && cp->n == 2 && is_num(cp->items[0]) && is_num(cp->items[1]) && cell &&
        cell_kn(cell, &k, &n) && !od_wilson(k, n, &lo, &hi))
        agree = od_overlap(cp->items[0]->num, cp->items[1]->num, lo, hi);
    vj_obj_set(o, "agree", agree < 0 ? vj_new_null() : vj_new_bool(agree));
    return o;
}

vj_node *fm_results(const vj_node *pred, const vj_node *odds)
{
    const vj_node *m = vj_get(pred, "map");
    if (!fm_has_map(pred) || m->type != VJ_OBJ)
        return vj_new_null();
    vj_node *o = vj_new_obj();
    static const char *const top[] = {"seconds", "seeds", "capacity_p", "trigger_load", "loads"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        vj_obj_set(o, top[i], copy_of(m, top[i]));
    const vj_node *cp = vj_get(m, "capacity_p");
    vj_node *pols = vj_new_arr();
    const vj_node *ps = vj_get(m, "policies");
    for (size_t i = 0; ps && ps->type == VJ_ARR && i < ps->n; i++) {
        const vj_node *p = ps->items[i], *cells = vj_get(p, "cells");
        vj_node *po = vj_new_obj();
        vj_obj_set(po, "policy", copy_of(p, "policy"));
        vj_obj_set(po, "template", copy_of(p, "template"));
        vj_node *cs = vj_new_arr();
        for (size_t j = 0; cells && cells->type == VJ_ARR && j < cells->n; j++)
            vj_arr_push(cs, result_cell(cells->items[j]));
        vj_obj_set(po, "cells", cs);
        vj_node *hc = is_num(cp) ? fm_hidden_capacity(cells, cp->num) : NULL;
        vj_obj_set(po, "hidden_capacity", hc ? hc : vj_new_null());
        const vj_node *tr = vj_get(p, "trigger");
        vj_node *t = vj_new_obj();
        vj_obj_set(t, "flooded", result_group(vj_get(tr, "flooded")));
        vj_obj_set(t, "calm", result_group(vj_get(tr, "calm")));
        vj_obj_set(po, "trigger", t);
        vj_node *pts = vj_new_arr();
        const vj_node *arms = vj_get(p, "arms");
        for (size_t j = 0; arms && arms->type == VJ_ARR && j < arms->n; j++)
            vj_arr_push(pts, result_point(arms->items[j], odds, cells, vj_get(m, "seconds")));
        vj_obj_set(po, "points", pts);
        vj_arr_push(pols, po);
    }
    vj_obj_set(o, "policies", pols);
    return o;
}

/* ---- prediction.json's map ---- */

static void bad(const char *what, const vj_node *v, const char *want)
{
    char lab[256];
    vj_scalar_text(v, lab, sizeof lab);
    mm_add(NULL, PRED_REL, what, lab, want);
}

/* a list of numbers on one line, for a message */
static void list_text(vu_buf *b, const vj_node *l, const char *key)
{
    vu_buf_puts(b, "[");
    for (size_t i = 0; l && l->type == VJ_ARR && i < l->n; i++) {
        char x[64];
        vj_scalar_text(key ? vj_get(l->items[i], key) : l->items[i], x, sizeof x);
        vu_buf_printf(b, "%s%s", i ? ", " : "", x);
    }
    vu_buf_puts(b, "]");
}

/* a name for a policy, a cell, an arm: by its name, else its index */
static char *pol_where(const vj_node *p, size_t i)
{
    const char *name = vj_get_str(p, "policy");
    return name ? vu_xasprintf("map.policies[%s]", name) : vu_xasprintf("map.policies[%zu]", i);
}

static char *cell_where(const char *pw, const vj_node *c, size_t j)
{
    const vj_node *l = vj_get(c, "load");
    return is_num(l) ? vu_xasprintf("%s.cells[load %s]", pw, l->text) : vu_xasprintf("%s.cells[%zu]", pw, j);
}

typedef struct {
    const vj_node *map, *loads, *pred;
    const am_file *arms;
    long long seeds;            /* the number of seeds; -1 unknown */
    double p;                   /* capacity_p; NaN unusable */
    int trigger_ok;             /* trigger_load is a load of loads */
    char *arms_shown;           /* the arms file as verified.json names it */
    char **run_arms;            /* the arms of the prediction's runs */
    size_t nrun_arms;
} fm_ctx;

static int in_loads(const fm_ctx *c, double x)
{
    for (size_t i = 0; c->loads && c->loads->type == VJ_ARR && i < c->loads->n; i++)
        if (is_num(c->loads->items[i]) && c->loads->items[i]->num == x)
            return 1;
    return 0;
}

/* the arm of a run name <arm>-r<round>: 0 when it has that form */
static int arm_of_run(const char *run, char *out, size_t len)
{
    const char *d = strrchr(run, '-');
    if (!d || d == run || d[1] != 'r' || !d[2])
        return -1;
    for (const char *q = d + 2; *q; q++)
        if (*q < '0' || *q > '9')
            return -1;
    snprintf(out, len, "%.*s", (int)(d - run), run);
    return 0;
}

static void collect_run_arms(fm_ctx *c)
{
    const vj_node *runs = vj_get(c->pred, "runs");
    size_t cap = runs && runs->type == VJ_OBJ ? runs->n : 0;
    c->run_arms = vu_xcalloc(cap + 1, sizeof *c->run_arms);
    for (size_t i = 0; i < cap; i++) {
        char a[256];
        if (arm_of_run(runs->keys[i], a, sizeof a))
            continue;
        size_t k = 0;
        while (k < c->nrun_arms && strcmp(c->run_arms[k], a))
            k++;
        if (k == c->nrun_arms)
            c->run_arms[c->nrun_arms++] = vu_xstrdup(a);
    }
}

static int is_run_arm(const fm_ctx *c, const char *arm)
{
    for (size_t k = 0; k < c->nrun_arms; k++)
        if (!strcmp(c->run_arms[k], arm))
            return 1;
    return 0;
}

/* the first column of the arm's line that differs from the template's,
 * name and rate aside (NULL: none) */
static const char *differs_from_template(const am_arm *a, const am_arm *t)
{
    for (size_t k = 0; k < t->spec->n; k++) {
        const char *key = t->spec->keys[k];
        if (!strcmp(key, "name") || !strcmp(key, "rate"))
            continue;
        if (!rj_json_equal(vj_get(a->spec, key), t->spec->items[k]))
            return key;
    }
    return NULL;
}

static void check_top(fm_ctx *c)
{
    const vj_node *m = c->map, *v;
    v = vj_get(m, "seconds");
    if (!is_num(v) || !(v->num > 0))
        bad("map.seconds", v, "a number above 0: the simulated round's seconds (" WHY_MAP ")");
    v = vj_get(m, "seeds");
    long long a = 0, b = 0;
    int used = 0;
    const char *s = vj_get_str(m, "seeds");
    if (s && sscanf(s, "%lld-%lld%n", &a, &b, &used) == 2 && !s[used] && a >= 1 && a <= b && s[0] != '+')
        c->seeds = b - a + 1;
    else
        bad("map.seeds", v, "\"a-b\", 1 <= a <= b: the seeds run (" WHY_MAP ")");
    v = vj_get(m, "capacity_p");
    if (is_num(v) && v->num > 0 && v->num <= 1)
        c->p = v->num;
    else
        bad("map.capacity_p", v, "a chance in (0, 1] (" WHY_MAP ")");
    const vj_node *l = c->loads;
    int lok = l && l->type == VJ_ARR;
    for (size_t i = 0; lok && i < l->n; i++)
        lok = is_num(l->items[i]) && (i == 0 || l->items[i]->num > l->items[i - 1]->num);
    if (!lok) {
        if (l && l->type == VJ_ARR) {
            vu_buf t = {0};
            list_text(&t, l, NULL);
            mm_add(NULL, PRED_REL, "map.loads", t.p, "loads ascending, each once (" WHY_MAP ")");
            vu_buf_free(&t);
        } else {
            bad("map.loads", l, "a list of loads (" WHY_MAP ")");
        }
    }
    v = vj_get(m, "trigger_load");
    c->trigger_ok = is_num(v) && in_loads(c, v->num);
    if (!c->trigger_ok)
        bad("map.trigger_load", v, "a load of map.loads: the trigger is counted over a cell's seeds (" WHY_MAP ")");
}

static void check_cell(const fm_ctx *c, const char *cw, const vj_node *cell)
{
    char what[600];
    long long k, n;
    if (!cell_kn(cell, &k, &n)) {
        char a[48], b[48], lab[128];
        vj_scalar_text(vj_get(cell, "k"), a, sizeof a);
        vj_scalar_text(vj_get(cell, "n"), b, sizeof b);
        snprintf(lab, sizeof lab, "k %s, n %s", a, b);
        mm_add(NULL, PRED_REL, cw, lab, "integers 0 <= k <= n, n >= 1 (seeds that flooded, seeds run)");
        return;
    }
    if (c->seeds >= 0 && n != c->seeds) {
        snprintf(what, sizeof what, "%s.n", cw);
        mm_addf(NULL, PRED_REL, what, vj_get(cell, "n")->text, "%lld (the seeds of map.seeds, %s)", c->seeds,
                vj_get_str(c->map, "seeds"));
    }
    double share = (double)k / (double)n, lo, hi;
    const vj_node *v = vj_get(cell, "share");
    snprintf(what, sizeof what, "%s.share", cw);
    if (!is_num(v) || !(fabs(v->num - share) <= FM_PRED_TOL)) {
        char lab[64];
        vj_scalar_text(v, lab, sizeof lab);
        mm_addf(NULL, PRED_REL, what, lab, "%.17g (k %lld / n %lld, within 1e-9)", share, k, n);
    }
    od_wilson(k, n, &lo, &hi);
    v = vj_get(cell, "wilson95");
    int wok = v && v->type == VJ_ARR && v->n == 2 && is_num(v->items[0]) && is_num(v->items[1]);
    double want[2] = {lo, hi};
    for (size_t e = 0; e < 2; e++) {
        if (wok && fabs(v->items[e]->num - want[e]) <= FM_PRED_TOL)
            continue;
        snprintf(what, sizeof what, "%s.wilson95[%zu]", cw, e);
        char lab[64];
        vj_scalar_text(wok ? v->items[e] : v, lab, sizeof lab);
        mm_addf(NULL, PRED_REL, what, lab, "%.17g (the Wilson interval of k %lld of n %lld at z = 1.959963984540054, "
                "within 1e-9)", want[e], k, n);
    }
    v = vj_get(cell, "onset_median_s");
    if (k == 0 ? !is_null(v) || !v : !is_num(v) || v->num < 0) {
        snprintf(what, sizeof what, "%s.onset_median_s", cw);
        bad(what, v, k == 0 ? "null: no seed flooded (" WHY_MAP ")"
                            : "a number >= 0: the median of the flooded seeds' flood_from_s (" WHY_MAP ")");
    }
    v = vj_get(cell, "standin_share_median");
    if (k == n ? !is_null(v) || !v : !is_num(v) || v->num < 0 || v->num > 1) {
        snprintf(what, sizeof what, "%s.standin_share_median", cw);
        bad(what, v, k == n ? "null: no seed is calm (" WHY_MAP ")"
                            : "a share in [0, 1]: the median of the calm seeds' stand-in shares (" WHY_MAP ")");
    }
}

/* the registered hidden_capacity against the rule */
static void check_capacity(const fm_ctx *c, const char *pw, const vj_node *p)
{
    const vj_node *cells = vj_get(p, "cells"), *h = vj_get(p, "hidden_capacity");
    vj_node *mine = isfinite(c->p) ? fm_hidden_capacity(cells, c->p) : NULL;
    char what[600];
    if (!mine) {
        /* the cells or capacity_p are already named */
        if (!h || h->type != VJ_OBJ) {
            snprintf(what, sizeof what, "%s.hidden_capacity", pw);
            bad(what, h, "{load, interval, tips} (" WHY_MAP ")");
        }
        return;
    }
    static const char *const why = "recomputed from the cells' k and n by the rule of results.json's map, "
                                   "capacity_p";
    if (!h || h->type != VJ_OBJ) {
        snprintf(what, sizeof what, "%s.hidden_capacity", pw);
        bad(what, h, "{load, interval, tips} (" WHY_MAP ")");
        vj_free(mine);
        return;
    }
    const vj_node *ml = vj_get(mine, "load"), *hl = vj_get(h, "load");
    char a[64], b[64];
    if (!rj_json_equal(hl, ml)) {
        snprintf(what, sizeof what, "%s.hidden_capacity.load", pw);
        vj_scalar_text(hl, a, sizeof a);
        vj_scalar_text(ml, b, sizeof b);
        mm_addf(NULL, PRED_REL, what, a, "%s (%s %.15g)", b, why, c->p);
    }
    const vj_node *mi = vj_get(mine, "interval"), *hi = vj_get(h, "interval");
    int iok = hi && hi->type == VJ_ARR && hi->n == 2;
    if (!iok) {
        snprintf(what, sizeof what, "%s.hidden_capacity.interval", pw);
        bad(what, hi, "[lo, hi] (" WHY_MAP ")");
    }
    static const char *const bound[] = {"the upper Wilson bounds", "the lower Wilson bounds"};
    for (size_t e = 0; iok && e < 2; e++) {
        if (rj_json_equal(hi->items[e], mi->items[e]))
            continue;
        snprintf(what, sizeof what, "%s.hidden_capacity.interval[%zu]", pw, e);
        vj_scalar_text(hi->items[e], a, sizeof a);
        vj_scalar_text(mi->items[e], b, sizeof b);
        mm_addf(NULL, PRED_REL, what, a, "%s (%s %.15g, the rule applied to %s)", b, why, c->p, bound[e]);
    }
    const vj_node *mt = vj_get(mine, "tips"), *ht = vj_get(h, "tips");
    if (!rj_json_equal(ht, mt)) {
        snprintf(what, sizeof what, "%s.hidden_capacity.tips", pw);
        vj_scalar_text(ht, a, sizeof a);
        mm_addf(NULL, PRED_REL, what, a, "%s (whether some cell's share >= capacity_p %.15g)", mt->b ? "true" : "false",
                c->p);
    }
    vj_free(mine);
}

static void check_group(const fm_ctx *c, const char *pw, const vj_node *p, const char *name)
{
    char what[600], want[256];
    snprintf(what, sizeof what, "%s.trigger.%s", pw, name);
    const vj_node *g = vj_get(vj_get(p, "trigger"), name);
    if (!g || g->type != VJ_OBJ) {
        bad(what, g, "{n, median, counts} (" WHY_MAP ")");
        return;
    }
    const vj_node *counts = vj_get(g, "counts");
    long long n;
    double med;
    if (fm_counts_median(counts, &n, &med)) {
        snprintf(what, sizeof what, "%s.trigger.%s.counts", pw, name);
        if (counts && counts->type == VJ_ARR) {
            vu_buf t = {0};
            list_text(&t, counts, NULL);
            mm_add(NULL, PRED_REL, what, t.p, "a list of counts, integers >= 0 (" WHY_MAP ")");
            vu_buf_free(&t);
        } else {
            bad(what, counts, "a list of counts, integers >= 0 (" WHY_MAP ")");
        }
        return;
    }
    if (counts->n && counts->items[counts->n - 1]->i == 0) {
        snprintf(what, sizeof what, "%s.trigger.%s.counts[%zu]", pw, name, counts->n - 1);
        bad(what, counts->items[counts->n - 1], "above 0: the list ends at the largest size with a seed (" WHY_MAP ")");
    }
    const vj_node *vn = vj_get(g, "n");
    if (!is_num(vn) || vn->num != (double)n) {
        snprintf(what, sizeof what, "%s.trigger.%s.n", pw, name);
        snprintf(want, sizeof want, "%lld (the sum of counts)", n);
        bad(what, vn, want);
    }
    const vj_node *vm = vj_get(g, "median");
    if (n ? !is_num(vm) || vm->num != med : !vm || !is_null(vm)) {
        snprintf(what, sizeof what, "%s.trigger.%s.median", pw, name);
        if (n)
            snprintf(want, sizeof want, "%.17g (the percentile 0.5 of the sizes, each v counts[v] times)", med);
        else
            snprintf(want, sizeof want, "null (n = 0)");
        bad(what, vm, want);
    }
    /* the seeds at trigger_load: the flooded ones are its cell's k, the calm ones n - k */
    const vj_node *tl = vj_get(c->map, "trigger_load"), *cell = c->trigger_ok ? cell_at(vj_get(p, "cells"), tl->num) : NULL;
    long long ck, cn;
    if (cell && cell_kn(cell, &ck, &cn)) {
        long long w = !strcmp(name, "flooded") ? ck : cn - ck;
        if (n != w) {
            snprintf(what, sizeof what, "%s.trigger.%s.n", pw, name);
            mm_addf(NULL, PRED_REL, what, vn && is_num(vn) ? vn->text : "(not a number)",
                    "%lld (the %s seeds of the cell at trigger_load %s: k %lld of n %lld; " WHY_MAP ")", w,
                    !strcmp(name, "flooded") ? "flooded" : "calm", tl->text, ck, cn);
        }
    }
}

/* the prediction's first flood claim of arm (claim "flood", that arm, no
 * "source"): its entry of odds and index; NULL when it has none */
static const vj_node *pred_claim(const vj_node *pred, const char *arm, size_t *idx)
{
    const vj_node *odds = vj_get(pred, "odds");
    for (size_t i = 0; odds && odds->type == VJ_ARR && i < odds->n; i++) {
        const char *c = vj_get_str(odds->items[i], "claim"), *a = vj_get_str(odds->items[i], "arm");
        if (c && a && !strcmp(c, "flood") && !strcmp(a, arm) && !vj_get(odds->items[i], "source")) {
            *idx = i;
            return odds->items[i];
        }
    }
    return NULL;
}

static void check_arms(const fm_ctx *c, const char *pw, const vj_node *p)
{
    char what[600];
    const vj_node *arms = vj_get(p, "arms"), *cells = vj_get(p, "cells");
    const char *tmpl = vj_get_str(p, "template");
    const am_arm *t = tmpl ? am_find(c->arms, tmpl) : NULL;
    snprintf(what, sizeof what, "%s.arms", pw);
    if (!arms || arms->type != VJ_ARR) {
        bad(what, arms, "a list of {arm, load} (" WHY_MAP ")");
        return;
    }
    for (size_t j = 0; j < arms->n; j++) {
        const vj_node *e = arms->items[j], *load = vj_get(e, "load");
        const char *arm = vj_get_str(e, "arm");
        char *aw = arm ? vu_xasprintf("%s.arms[%s]", pw, arm) : vu_xasprintf("%s.arms[%zu]", pw, j);
        if (!arm || !is_num(load)) {
            bad(aw, e, "{arm: a string, load: a number} (" WHY_MAP ")");
            free(aw);
            continue;
        }
        int twice = 0;
        for (size_t q = 0; q < j && !twice; q++) {
            const char *b = vj_get_str(arms->items[q], "arm");
            twice = b && !strcmp(b, arm);
        }
        if (twice)
            mm_add(NULL, PRED_REL, aw, "listed twice", "once");
        snprintf(what, sizeof what, "%s.load", aw);
        int lok = in_loads(c, load->num);
        if (!lok)
            bad(what, load, "a load of map.loads (" WHY_MAP ")");
        if (!is_run_arm(c, arm))
            mm_add(NULL, PRED_REL, aw, arm, "an arm of the prediction's runs (" WHY_MAP ")");
        size_t oi = 0;
        const vj_node *cl = pred_claim(c->pred, arm, &oi);
        if (!cl)
            mm_addf(NULL, PRED_REL, aw, "listed", "not listed: %s has no flood claim (claim \"flood\", no source) in "
                    "the prediction's odds, and only arms with one are listed (" WHY_MAP ")", arm);
        const am_arm *a = am_find(c->arms, arm);
        if (!a) {
            mm_addf(NULL, PRED_REL, aw, arm, "an arm of the arms file %s", c->arms_shown);
        } else if (t) {
            const vj_node *rate = vj_get(a->spec, "rate");
            if (!is_num(rate) || rate->num != load->num) {
                char r[64];
                vj_scalar_text(rate, r, sizeof r);
                mm_addf(NULL, PRED_REL, what, load->text, "%s (the arm's rate, %s:%ld)", r, c->arms_shown, a->line);
            }
            const char *col = differs_from_template(a, t);
            if (col) {
                char x[128], y[128];
                vj_scalar_text(vj_get(a->spec, col), x, sizeof x);
                vj_scalar_text(vj_get(t->spec, col), y, sizeof y);
                mm_addf(NULL, PRED_REL, aw, arm,
                        "the template %s with only the rate changed (%s:%ld: %s %s, the template's %s)", tmpl,
                        c->arms_shown, a->line, col, x, y);
            }
        }
        /* the arm's flood claim over the map's seeds and seconds is the cell's simulation */
        const vj_node *cell = lok ? cell_at(cells, load->num) : NULL;
        const vj_node *cs = vj_get(cl, "seconds"), *ms = vj_get(c->map, "seconds");
        const char *seeds = vj_get_str(cl, "seeds"), *mseeds = vj_get_str(c->map, "seeds");
        if (cl && cell && is_num(cs) && is_num(ms) && cs->num == ms->num && seeds && mseeds && !strcmp(seeds, mseeds)) {
            static const char *const pairs[2][2] = {{"k", "sim_k"}, {"n", "sim_n"}};
            for (int q = 0; q < 2; q++) {
                const vj_node *x = vj_get(cell, pairs[q][0]), *y = vj_get(cl, pairs[q][1]);
                if (is_int(y) && x->i == y->i)
                    continue;
                char *cw = vu_xasprintf("%s.cells[load %s].%s", pw, load->text, pairs[q][0]);
                char yt[64];
                vj_scalar_text(y, yt, sizeof yt);
                mm_addf(NULL, PRED_REL, cw, x->text,
                        "%s (%s of odds[%zu], %s's flood claim over the same seeds and seconds: the same "
                        "simulation, " WHY_MAP ")",
                        yt, pairs[q][1], oi, arm);
                free(cw);
            }
        }
        free(aw);
    }
    /* every arm of the runs that has a flood claim in the prediction's odds
     * and is the template at a rate of loads is listed (one without a
     * claim is not: H3-r2) */
    for (size_t k = 0; t && k < c->nrun_arms; k++) {
        const am_arm *a = am_find(c->arms, c->run_arms[k]);
        const vj_node *rate = a ? vj_get(a->spec, "rate") : NULL;
        size_t oi = 0;
        if (!a || !is_num(rate) || !in_loads(c, rate->num) || differs_from_template(a, t))
            continue;
        const vj_node *cl = pred_claim(c->pred, a->name, &oi);
        if (!cl)
            continue;
        int listed = 0;
        for (size_t j = 0; j < arms->n && !listed; j++) {
            const char *b = vj_get_str(arms->items[j], "arm");
            listed = b && !strcmp(b, a->name);
        }
        if (!listed) {
            snprintf(what, sizeof what, "%s.arms", pw);
            char lab[300];
            snprintf(lab, sizeof lab, "(%s absent)", a->name);
            mm_addf(NULL, PRED_REL, what, lab, "%s listed: an arm of the runs with a flood claim (odds[%zu]) that is "
                    "the template %s at %s/s, a load of map.loads (%s:%ld; " WHY_MAP ")", a->name, oi, tmpl,
                    rate->text, c->arms_shown, a->line);
        }
    }
}

static void check_policy(const fm_ctx *c, const vj_node *p, size_t i, const vj_node *ps)
{
    char *pw = pol_where(p, i), what[600];
    const char *name = vj_get_str(p, "policy");
    if (!p || p->type != VJ_OBJ) {
        bad(pw, p, "{policy, template, cells, hidden_capacity, trigger, arms} (" WHY_MAP ")");
        free(pw);
        return;
    }
    if (!name)
        bad(pw, vj_get(p, "policy"), "a policy's name, a string (" WHY_MAP ")");
    for (size_t q = 0; name && q < i; q++) {
        const char *b = vj_get_str(ps->items[q], "policy");
        if (b && !strcmp(b, name)) {
            mm_add(NULL, PRED_REL, pw, "listed twice", "once");
            break;
        }
    }
    /* the template: H4-<policy>, or H3-<policy> when there is no H4 one, an arm of the arms file */
    const char *tmpl = vj_get_str(p, "template");
    if (name) {
        char *h4 = vu_xasprintf("H4-%s", name), *h3 = vu_xasprintf("H3-%s", name);
        const char *want = am_find(c->arms, h4) ? h4 : h3;
        snprintf(what, sizeof what, "%s.template", pw);
        if (!tmpl || strcmp(tmpl, want) || !am_find(c->arms, want))
            mm_addf(NULL, PRED_REL, what, tmpl ? tmpl : "(absent or not a string)",
                    "%s (H4-<policy>, or H3-<policy> when there is no H4 one: an arm of %s%s)", want, c->arms_shown,
                    am_find(c->arms, want) ? "" : ", which has neither");
        free(h4);
        free(h3);
    }
    const vj_node *cells = vj_get(p, "cells");
    if (!cells || cells->type != VJ_ARR) {
        snprintf(what, sizeof what, "%s.cells", pw);
        bad(what, cells, "one cell per load of map.loads (" WHY_MAP ")");
    } else {
        /* the cells' loads are loads, in its order */
        int same = c->loads && c->loads->type == VJ_ARR && c->loads->n == cells->n;
        for (size_t j = 0; same && j < cells->n; j++)
            same = rj_json_equal(vj_get(cells->items[j], "load"), c->loads->items[j]);
        if (!same) {
            vu_buf a = {0}, b = {0};
            list_text(&a, cells, "load");
            list_text(&b, c->loads, NULL);
            snprintf(what, sizeof what, "%s.cells (loads)", pw);
            mm_addf(NULL, PRED_REL, what, a.p, "%s (map.loads, in its order: one cell per load)", b.p);
            vu_buf_free(&a);
            vu_buf_free(&b);
        }
        for (size_t j = 0; j < cells->n; j++) {
            char *cw = cell_where(pw, cells->items[j], j);
            check_cell(c, cw, cells->items[j]);
            free(cw);
        }
    }
    check_capacity(c, pw, p);
    check_group(c, pw, p, "flooded");
    check_group(c, pw, p, "calm");
    check_arms(c, pw, p);
    free(pw);
}

long fm_check_prediction(const vj_node *pred, const am_file *arms)
{
    static const am_file none;
    if (!fm_has_map(pred))
        return 0;
    if (!arms)
        arms = &none;
    const vj_node *m = vj_get(pred, "map");
    if (m->type != VJ_OBJ) {
        bad("map", m, "null or {seconds, seeds, capacity_p, trigger_load, loads, policies} (" WHY_MAP ")");
        return 0;
    }
    fm_ctx c;
    memset(&c, 0, sizeof c);
    c.map = m;
    c.pred = pred;
    c.arms = arms;
    c.arms_shown = vf_shown(arms->path);
    c.loads = vj_get(m, "loads");
    c.seeds = -1;
    c.p = NAN;
    collect_run_arms(&c);
    check_top(&c);
    const vj_node *ps = vj_get(m, "policies");
    long n = 0;
    if (!ps || ps->type != VJ_ARR)
        bad("map.policies", ps, "a list of policies (" WHY_MAP ")");
    for (size_t i = 0; ps && ps->type == VJ_ARR && i < ps->n; i++, n++)
        check_policy(&c, ps->items[i], i, ps);
    for (size_t k = 0; k < c.nrun_arms; k++)
        free(c.run_arms[k]);
    free(c.run_arms);
    free(c.arms_shown);
    return n;
}

/* ---- the comparison ---- */

/* an entry of a list named by what it is: a policy, an arm, a cell's load */
static char *entry_where(const char *path, const vj_node *m, size_t i)
{
    const char *pol = vj_get_str(m, "policy"), *arm = vj_get_str(m, "arm");
    const vj_node *load = vj_get(m, "load");
    if (pol)
        return vu_xasprintf("%s[%s]", path, pol);
    if (arm)
        return vu_xasprintf("%s[%s]", path, arm);
    if (is_num(load) && vj_get(m, "wilson95"))
        return vu_xasprintf("%s[load %s]", path, load->text);
    return vu_xasprintf("%s[%zu]", path, i);
}

/* wilson95 and cp95 to 1e-11 (as odds'), the shares to FM_SHARE_TOL, every other number exactly */
static int fm_num_equal(const char *field, double l, double m)
{
    if (!strcmp(field, "wilson95") || !strcmp(field, "cp95"))
        return cmp_num_equal(RF_INTERVAL, l, m);
    if (!strcmp(field, "share") || !strcmp(field, "standin_share_median"))
        return fabs(l - m) <= FM_SHARE_TOL;
    return l == m;
}

void fm_compare(const vj_node *lab, const vj_node *mine)
{
    const vj_node *l = vj_get(lab, "map"), *m = vj_get(mine, "map");
    if (!m)
        return;
    if (!l) {
        /* a results.json older than the member: not asked for it while there is no map */
        if (m->type != VJ_NULL)
            mm_add(NULL, "results.json", "map", "(absent)",
                   "the map recomputed: prediction.json has a map (RESULTS.md, \"map\")");
        return;
    }
    cmp_tree("map", "map", l, m, &(cmp_tree_rules){entry_where, fm_num_equal});
}
