/* apfull: the whole of results/ap.json recomputed and compared; see apfull.h. */
#include "apfull.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apcmp.h"
#include "mism.h"
#include "stats.h"
#include "vutil.h"

static const char *const KINDS[3] = {"last_known", "default", "none"};

/* ------------------------------------------------------------------ run */

/* the bootstrap's settings: ap.json's when usable, else APCOST.md's */
static void settings(const apfull_in *in, apfull_out *out)
{
    out->B = 1000;
    out->K = out->S;
    out->sigma = 1;
    const vj_node *bs = vj_get(in->lab, "bootstrap");
    const vj_node *rs = vj_get(bs, "resamples"), *sd = vj_get(bs, "seed"), *bm = vj_get(bs, "model_seeds");
    if (apcmp_is_num(rs) && rs->is_int && rs->i >= 1 && rs->i <= 1000000)
        out->B = (size_t)rs->i;
    if (apcmp_is_num(sd) && sd->is_int && sd->i >= 0)
        out->sigma = (uint64_t)sd->i;
    if (apcmp_is_num(bm) && bm->is_int && bm->i >= 1 && (size_t)bm->i <= out->S)
        out->K = (size_t)bm->i;
}

/* the changes per seed and their means, the intervals */
static void derive(const apfull_in *in, apfull_out *out)
{
    size_t S = out->S, na = in->na, r0 = 0;
    out->L = vu_xcalloc(S + 1, sizeof *out->L);
    double sum = 0;
    for (size_t s = 0; s < S; s++) {
        out->L[s] = s == 0 ? in->L1 : out->r.L[s];
        sum += out->L[s];
    }
    out->live_mean = sum / (double)S;
    out->chg = vu_xcalloc(na * 3 * S + 1, sizeof *out->chg);
    out->mean = vu_xcalloc(na * 3 + 1, sizeof *out->mean);
    out->ci = vu_xcalloc(na * 6 + 1, sizeof *out->ci);
    double *kept = vu_xmalloc((out->B + 1) * sizeof *kept);
    for (size_t a = 0; a < na; a++) {
        const ap_arm *arm = &in->arms[a];
        for (int k = 0; k < 3; k++) {
            double *c = &out->chg[(a * 3 + (size_t)k) * S], m = 0;
            for (size_t s = 0; s < S; s++) {
                if (s == 0) {
                    c[s] = arm->change[k];
                } else {
                    double acc = 0;
                    for (size_t i = 0; i < arm->nr; i++)
                        acc += out->r.Ap[(s * out->r.nr + r0 + i) * APB_NKINDS + (size_t)k] - out->r.L[s];
                    c[s] = acc / (double)arm->nr;
                }
                m += c[s];
            }
            out->mean[a * 3 + (size_t)k] = m / (double)S;
            size_t n = 0;
            const double *ds = &out->r.dstar[(a * APB_NKINDS + (size_t)k) * out->B];
            for (size_t b = 0; b < out->B; b++)
                if (!out->r.dropped[b])
                    kept[n++] = ds[b];
            st_sort_d(kept, n);
            out->ci[(a * 3 + (size_t)k) * 2] = st_pct_d(kept, n, 0.025);
            out->ci[(a * 3 + (size_t)k) * 2 + 1] = st_pct_d(kept, n, 0.975);
        }
        r0 += arm->nr;
    }
    free(kept);
}

void apfull_run(const apfull_in *in, apfull_out *out)
{
    memset(out, 0, sizeof *out);
    if (!in->f->scores_ok) {
        snprintf(out->why_not, sizeof out->why_not, "%s is missing or malformed", APF_SCORES);
        return;
    }
    if (!in->x->ok) {
        snprintf(out->why_not, sizeof out->why_not, "the customers of scores.tsv are not decimal ids");
        return;
    }
    size_t nr = 0;
    for (size_t a = 0; a < in->na; a++) {
        if (!in->arms[a].readable) {
            snprintf(out->why_not, sizeof out->why_not, "a tester file of arm %s is unreadable", in->arms[a].arm);
            return;
        }
        nr += in->arms[a].nr;
    }
    out->S = in->f->S;
    settings(in, out);
    size_t *R = vu_xmalloc((in->na + 1) * sizeof *R), *arm_of = vu_xmalloc((nr + 1) * sizeof *arm_of);
    size_t *ns = vu_xmalloc((nr + 1) * sizeof *ns);
    const size_t **rows = vu_xmalloc((nr + 1) * sizeof *rows);
    size_t r = 0;
    for (size_t a = 0; a < in->na; a++) {
        R[a] = in->arms[a].nr;
        for (size_t i = 0; i < in->arms[a].nr; i++, r++) {
            arm_of[r] = a;
            rows[r] = in->arms[a].set[i];
            ns[r] = (size_t)in->arms[a].srows[i];
        }
    }
    apb_problem p = {
        .n = in->t->n, .ncut = in->t->ncut, .cut_first = in->t->cut_first, .byrow = in->t->byrow,
        .label = in->t->label, .cust = in->x->cust, .C = in->x->C, .S = out->S,
        .live = (const float *const *)in->f->live, .lastk = (const float *const *)in->f->lastk, .d = in->d,
        .A = in->na, .R = R, .nr = nr, .round_arm = arm_of, .srows = rows, .nsrows = ns,
        .B = out->B, .K = out->K, .sigma = out->sigma,
    };
    char err[512];
    if (apb_compute(&p, &out->r, err, sizeof err)) {
        snprintf(out->why_not, sizeof out->why_not, "%.500s", err);
    } else {
        derive(in, out);
        out->done = 1;
        printf("ap.json: recomputed %zu model seeds (%zu stand-in vectors each) and %zu resamples of %zu seeds in "
               "%.2f s\n", out->S, out->r.vectors, out->B, out->K, out->r.seconds);
    }
    free(R);
    free(arm_of);
    free(ns);
    free(rows);
}

void apfull_free(apfull_out *out)
{
    apb_result_free(&out->r);
    free(out->L);
    free(out->chg);
    free(out->mean);
    free(out->ci);
    memset(out, 0, sizeof *out);
}

/* -------------------------------------------------------------- compare */

/* a list of S numbers at path, each against mine[s] */
static void compare_list(const char *path, const vj_node *l, const double *mine, size_t S, double tol,
                         const char *why)
{
    int ok = l && l->type == VJ_ARR;
    for (size_t s = 0; ok && s < l->n; s++)
        ok = apcmp_is_num(l->items[s]);
    if (!ok) {
        apcmp_mm(path, l, "a list of numbers, one per model seed (APCOST.md 1.7)");
        return;
    }
    if (l->n != S) {
        char g[64], m[96];
        snprintf(g, sizeof g, "%zu entries", l->n);
        snprintf(m, sizeof m, "%zu entries (the seeds of ap_scores.tsv.gz)", S);
        char q[600];
        snprintf(q, sizeof q, "%s (length)", path);
        mm_add(NULL, "ap.json", q, g, m);
    }
    for (size_t s = 0; s < l->n && s < S; s++) {
        char q[600];
        snprintf(q, sizeof q, "%s[%zu]", path, s);
        apcmp_num(q, l->items[s], mine[s], tol, s == 0 ? "(seed 1, recomputed)" : why);
    }
}

void apfull_compare_top(const apfull_in *in, const apfull_out *out)
{
    const vj_node *ms = vj_get(in->lab, "model_seeds");
    if (ms && ms->type == VJ_ARR && ms->n != out->S) {
        char g[64], m[96];
        snprintf(g, sizeof g, "%zu seeds", ms->n);
        snprintf(m, sizeof m, "%zu (the seeds of ap_scores.tsv.gz, APCOST.md 1.13)", out->S);
        mm_add(NULL, "ap.json", "model_seeds", g, m);
    }
    const vj_node *la = vj_get(in->lab, "live_ap");
    if (la && la->type == VJ_OBJ) {
        compare_list("live_ap.per_seed", vj_get(la, "per_seed"), out->L, out->S, APCMP_AP_TOL,
                     "(recomputed from ap_scores.tsv.gz)");
        apcmp_num("live_ap.mean", vj_get(la, "mean"), out->live_mean, APCMP_AP_TOL, "(recomputed)");
    }
    const vj_node *us = vj_get(vj_get(in->lab, "bootstrap"), "used");
    if (out->K > 0)
        apcmp_count("bootstrap.used", us, (long long)out->r.used);
}

/* the verdict of APCOST.md 1.5 on [lo, hi]; *dir NULL when none */
static const char *verdict_of(double lo, double hi, const char **dir)
{
    *dir = NULL;
    if (isnan(lo) || isnan(hi))
        return "no interval";
    if (lo <= 0 && 0 <= hi)
        return "too close to call";
    *dir = hi < 0 ? "lower" : "higher";
    return "clearly different";
}

void apfull_compare_kind(const apfull_in *in, const apfull_out *out, size_t a, int kind, const vj_node *e,
                         const char *kp)
{
    char q[640];
    size_t i = a * 3 + (size_t)kind;
    int zero = !in->arms[a].any_standin;
    double tol = zero ? 0 : APCMP_AP_TOL;
    const char *zwhy = zero ? "(no stand-in in any round: exactly 0)" : NULL;
    compare_list(apcmp_at(q, sizeof q, kp, "change_per_seed"), vj_get(e, "change_per_seed"), &out->chg[i * out->S],
                 out->S, tol, zero ? zwhy : "(recomputed from ap_scores.tsv.gz)");
    apcmp_num(apcmp_at(q, sizeof q, kp, "change"), vj_get(e, "change"), out->mean[i], tol,
              zero ? zwhy : "(the mean over the seeds, recomputed)");
    double lo = out->ci[2 * i], hi = out->ci[2 * i + 1];
    const vj_node *ci = vj_get(e, "ci95");
    int lab_ci = ci && ci->type == VJ_ARR && ci->n == 2 && apcmp_is_num(ci->items[0]) && apcmp_is_num(ci->items[1]);
    if (isnan(lo)) {
        if (!ci || ci->type != VJ_NULL)
            apcmp_mm(apcmp_at(q, sizeof q, kp, "ci95"), ci, "null (no resample kept)");
    } else if (!lab_ci) {
        char m[160], l1[40], h1[40];
        vu_fmt_double(lo, l1, sizeof l1);
        vu_fmt_double(hi, h1, sizeof h1);
        snprintf(m, sizeof m, "[%s, %s] (recomputed)", l1, h1);
        apcmp_mm(apcmp_at(q, sizeof q, kp, "ci95"), ci, m);
    } else {
        const char *why = zero ? zwhy : "(the bootstrap recomputed)";
        apcmp_num(apcmp_at(q, sizeof q, kp, "ci95[0]"), ci->items[0], lo, tol, why);
        apcmp_num(apcmp_at(q, sizeof q, kp, "ci95[1]"), ci->items[1], hi, tol, why);
    }
    const char *dir, *v = verdict_of(lo, hi, &dir);
    /* an end within the tolerance of 0 without being 0: the lab's verdict
     * stands if the rule gives it on the lab's own interval (1.13) */
    int border = (lo != 0 && fabs(lo) <= APCMP_AP_TOL) || (hi != 0 && fabs(hi) <= APCMP_AP_TOL);
    if (border && lab_ci)
        v = verdict_of(ci->items[0]->num, ci->items[1]->num, &dir);
    apcmp_str(apcmp_at(q, sizeof q, kp, "verdict"), vj_get(e, "verdict"), v);
    const vj_node *d = vj_get(e, "direction");
    if (!dir) {
        if (!d || d->type != VJ_NULL)
            apcmp_mm(apcmp_at(q, sizeof q, kp, "direction"), d, "null");
    } else {
        apcmp_str(apcmp_at(q, sizeof q, kp, "direction"), d, dir);
    }
}

/* ----------------------------------------------------------- resamples */

static void res_mismatch(const apf_res *x, const char *what, const char *lab, const char *mine)
{
    char where[160];
    snprintf(where, sizeof where, "%s:%ld", APF_RESAMPLES, x->line);
    mm_add("ap_resamples.tsv.gz values", where, what, lab, mine);
}

/* ci95 of arm a, kind k against the percentiles of the lab's own n kept values v */
static void ci_against_lab(const apfull_in *in, size_t a, int k, double *v, size_t n)
{
    char q[640];
    const vj_node *ci = vj_get(vj_get(vj_get(vj_get(vj_get(in->lab, "arms"), in->arms[a].arm), "kinds"), KINDS[k]),
                               "ci95");
    if (!ci || ci->type != VJ_ARR || ci->n != 2 || n == 0)
        return;
    st_sort_d(v, n);
    double p[2] = {st_pct_d(v, n, 0.025), st_pct_d(v, n, 0.975)};
    for (int e = 0; e < 2; e++) {
        snprintf(q, sizeof q, "arms.%s.kinds.%s.ci95[%d]", in->arms[a].arm, KINDS[k], e);
        apcmp_num(q, ci->items[e], p[e], APCMP_AP_TOL,
                  e ? "(the percentile 97.5 of ap_resamples.tsv.gz's values)"
                    : "(the percentile 2.5 of ap_resamples.tsv.gz's values)");
    }
}

void apfull_compare_resamples(const apfull_in *in, const apfull_out *out)
{
    const apf_data *f = in->f;
    if (!f->res_ok)
        return;
    size_t B = out->B, want = in->na * 3 * B, k = 0;
    double *v = vu_xmalloc((B + 1) * sizeof *v);
    for (size_t a = 0; a < in->na && k <= want; a++) {
        int zero = !in->arms[a].any_standin;
        for (int kd = 0; kd < 3 && k <= want; kd++) {
            size_t n = 0;
            for (size_t b = 0; b < B; b++, k++) {
                if (k >= f->nres) {
                    char g[64], m[160];
                    snprintf(g, sizeof g, "%zu lines", f->nres);
                    snprintf(m, sizeof m, "%zu (3 kinds x %zu resamples for each of %zu arms)", want, B, in->na);
                    mm_add(NULL, APF_RESAMPLES, "lines", g, m);
                    k = want + 1;
                    break;
                }
                const apf_res *x = &f->res[k];
                if (strcmp(x->arm, in->arms[a].arm) || x->kind != kd || x->b != (long long)b) {
                    char g[320], m[320];
                    snprintf(g, sizeof g, "%s %s %lld", x->arm, KINDS[x->kind], x->b);
                    snprintf(m, sizeof m, "%s %s %zu (arms in ap.json's order, kinds, resamples 0..%zu)",
                             in->arms[a].arm, KINDS[kd], b, B - 1);
                    res_mismatch(x, "arm kind resample", g, m);
                    k = want + 1;
                    break;
                }
                char what[320];
                snprintf(what, sizeof what, "change (arm %s, kind %s, resample %zu)", in->arms[a].arm, KINDS[kd], b);
                double mine = out->r.dstar[(a * APB_NKINDS + (size_t)kd) * B + b];
                if (x->dropped != out->r.dropped[b]) {
                    char m[64];
                    if (out->r.dropped[b])
                        snprintf(m, sizeof m, "dropped (a cutoff without buyers)");
                    else
                        vu_fmt_double(mine, m, sizeof m);
                    char g[64];
                    if (x->dropped)
                        snprintf(g, sizeof g, "dropped");
                    else
                        vu_fmt_double(x->v, g, sizeof g);
                    res_mismatch(x, what, g, m);
                    continue;
                }
                if (x->dropped)
                    continue;
                v[n++] = x->v;
                double tol = zero ? 0 : APCMP_AP_TOL;
                if (!(fabs(x->v - mine) <= tol)) {
                    char g[64], m[96];
                    vu_fmt_double(x->v, g, sizeof g);
                    vu_fmt_double(mine, m, sizeof m);
                    if (zero)
                        strncat(m, " (no stand-in in any round)", sizeof m - strlen(m) - 1);
                    res_mismatch(x, what, g, m);
                }
            }
            if (k <= want)
                ci_against_lab(in, a, kd, v, n);
        }
    }
    if (k == want && f->nres > want) {
        char g[64], m[96];
        snprintf(g, sizeof g, "%zu lines", f->nres);
        snprintf(m, sizeof m, "%zu (3 kinds x %zu resamples for each of %zu arms)", want, B, in->na);
        mm_add(NULL, APF_RESAMPLES, "lines", g, m);
    }
    free(v);
}

/* --------------------------------------------------------------- member */

static vj_node *num_list(const double *v, size_t n)
{
    vj_node *l = vj_new_arr();
    for (size_t i = 0; i < n; i++)
        vj_arr_push(l, vj_new_num(v[i]));
    return l;
}

void apfull_member(const apfull_in *in, const apfull_out *out, vj_node *member)
{
    vj_node *ms = vj_new_arr();
    for (size_t s = 0; s < out->S; s++)
        vj_arr_push(ms, vj_new_int((long long)s + 1));
    vj_obj_set(member, "model_seeds", ms);
    vj_node *lv = vj_get(member, "live_ap");
    if (lv) {
        vj_obj_set(lv, "mean", vj_new_num(out->live_mean));
        vj_obj_set(lv, "per_seed", num_list(out->L, out->S));
    }
    vj_node *bs = vj_new_obj();
    vj_obj_set(bs, "resamples", vj_new_int((long long)out->B));
    vj_obj_set(bs, "seed", vj_new_int((long long)out->sigma));
    vj_obj_set(bs, "model_seeds", vj_new_int((long long)out->K));
    vj_obj_set(bs, "used", vj_new_int((long long)out->r.used));
    vj_obj_set(bs, "interval", vj_new_str("percentiles 2.5 and 97.5"));
    vj_obj_set(member, "bootstrap", bs);
    vj_node *arms = vj_get(member, "arms"), *res = vj_new_obj();
    for (size_t a = 0; a < in->na; a++) {
        vj_node *ka = vj_get(vj_get(arms, in->arms[a].arm), "kinds"), *ra = vj_new_obj();
        for (int k = 0; k < 3; k++) {
            size_t i = a * 3 + (size_t)k;
            vj_node *e = vj_get(ka, KINDS[k]);
            if (e) {
                const char *dir, *v = verdict_of(out->ci[2 * i], out->ci[2 * i + 1], &dir);
                vj_obj_set(e, "change", vj_new_num(out->mean[i]));
                vj_obj_set(e, "change_per_seed", num_list(&out->chg[i * out->S], out->S));
                vj_obj_set(e, "ci95", isnan(out->ci[2 * i]) ? vj_new_null() : num_list(&out->ci[2 * i], 2));
                vj_obj_set(e, "verdict", vj_new_str(v));
                vj_obj_set(e, "direction", dir ? vj_new_str(dir) : vj_new_null());
            }
            vj_obj_set(ra, KINDS[k], num_list(&out->r.dstar[i * out->B], out->B));
        }
        vj_obj_set(res, in->arms[a].arm, ra);
    }
    vj_obj_set(member, "resamples", res);
}
