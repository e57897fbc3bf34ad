/* apfull: the whole of results/ap.json recomputed and compared (formats lab-ap 1 and 2); see apfull.h. */
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

const ap_arm *apfull_unit(const apfull_in *in, size_t u)
{
    return u < in->na ? &in->arms[u] : &in->flood[u - in->na];
}

const char *apfull_unit_path(const apfull_in *in, size_t u, char *q, size_t qn)
{
    snprintf(q, qn, "%s.%s", u < in->na ? "arms" : "flooded_runs", apfull_unit(in, u)->arm);
    return q;
}

static size_t units(const apfull_in *in)
{
    return in->na + (in->fmt >= 2 ? in->nf : 0);
}

double apfull_mc_error(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double dl = sqrt(q * (1 - q) / (double)n);
    double up = q + dl > 1 ? 1 : q + dl, dn = q - dl < 0 ? 0 : q - dl;
    return (st_pct_d(v, n, up) - st_pct_d(v, n, dn)) / 2;
}

const char *apfull_verdict(int fmt, double lo, double hi, double elo, double ehi, const char **dir)
{
    *dir = NULL;
    if (isnan(lo) || isnan(hi))
        return "no interval";
    if (fmt < 2) {
        if (lo <= 0 && 0 <= hi)
            return "too close to call";
        *dir = hi < 0 ? "lower" : "higher";
        return "clearly different";
    }
    if (isnan(elo) || isnan(ehi))
        return "no interval";
    if (hi + ehi < 0) {
        *dir = "lower";
        return "clearly different";
    }
    if (lo - elo > 0) {
        *dir = "higher";
        return "clearly different";
    }
    return "too close to call";
}

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
    size_t S = out->S, na = units(in), r0 = 0;
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
    out->mc = vu_xcalloc(na * 6 + 1, sizeof *out->mc);
    double *kept = vu_xmalloc((out->B + 1) * sizeof *kept);
    for (size_t a = 0; a < na; a++) {
        const ap_arm *arm = apfull_unit(in, a);
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
            out->mc[(a * 3 + (size_t)k) * 2] = apfull_mc_error(kept, n, 0.025);
            out->mc[(a * 3 + (size_t)k) * 2 + 1] = apfull_mc_error(kept, n, 0.975);
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
    size_t nr = 0, nu = units(in);
    for (size_t a = 0; a < nu; a++) {
        const ap_arm *u = apfull_unit(in, a);
        if (!u->readable) {
            snprintf(out->why_not, sizeof out->why_not, "a tester file of %s %s is unreadable",
                     a < in->na ? "arm" : "flooded run", u->arm);
            return;
        }
        nr += u->nr;
    }
    out->S = in->f->S;
    settings(in, out);
    size_t *R = vu_xmalloc((nu + 1) * sizeof *R), *arm_of = vu_xmalloc((nr + 1) * sizeof *arm_of);
    size_t *ns = vu_xmalloc((nr + 1) * sizeof *ns);
    const size_t **rows = vu_xmalloc((nr + 1) * sizeof *rows);
    uint64_t *rsig = vu_xmalloc((nu + 1) * sizeof *rsig);
    size_t r = 0;
    for (size_t a = 0; a < nu; a++) {
        const ap_arm *u = apfull_unit(in, a);
        R[a] = u->nr;
        /* APCOST.md 1.11: sigma XOR FNV-1a-64 of the arm's name; a flooded
         * run is an arm of one round, m_b = 1 whatever its generator */
        rsig[a] = out->sigma ^ apb_fnv1a64(u->arm);
        for (size_t i = 0; i < u->nr; i++, r++) {
            arm_of[r] = a;
            rows[r] = u->set[i];
            ns[r] = (size_t)u->srows[i];
        }
    }
    apb_problem p = {
        .n = in->t->n, .ncut = in->t->ncut, .cut_first = in->t->cut_first, .byrow = in->t->byrow,
        .label = in->t->label, .cust = in->x->cust, .C = in->x->C, .S = out->S,
        .live = (const float *const *)in->f->live, .lastk = (const float *const *)in->f->lastk, .d = in->d,
        .A = nu, .R = R, .nr = nr, .round_arm = arm_of, .srows = rows, .nsrows = ns,
        .B = out->B, .K = out->K, .sigma = out->sigma, .round_sigma = in->fmt >= 2 ? rsig : NULL,
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
    free(rsig);
}

void apfull_free(apfull_out *out)
{
    apb_result_free(&out->r);
    free(out->L);
    free(out->chg);
    free(out->mean);
    free(out->ci);
    free(out->mc);
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

/* a pair [x0, x1] at kp.name (ci95, ci95_mc) against the recomputed one;
 * NaN: the lab's must be null (no resample kept); 0 when ap.json's is not
 * a pair of numbers */
static int compare_pair(const char *kp, const char *name, const vj_node *l, double x0, double x1, double tol,
                        const char *why)
{
    char q[640];
    int lab_ok = l && l->type == VJ_ARR && l->n == 2 && apcmp_is_num(l->items[0]) && apcmp_is_num(l->items[1]);
    if (isnan(x0)) {
        if (!l || l->type != VJ_NULL)
            apcmp_mm(apcmp_at(q, sizeof q, kp, name), l, "null (no resample kept)");
    } else if (!lab_ok) {
        char m[160], l1[40], h1[40];
        vu_fmt_double(x0, l1, sizeof l1);
        vu_fmt_double(x1, h1, sizeof h1);
        snprintf(m, sizeof m, "[%s, %s] (recomputed)", l1, h1);
        apcmp_mm(apcmp_at(q, sizeof q, kp, name), l, m);
    } else {
        char n0[64], n1[64];
        snprintf(n0, sizeof n0, "%s[0]", name);
        snprintf(n1, sizeof n1, "%s[1]", name);
        apcmp_num(apcmp_at(q, sizeof q, kp, n0), l->items[0], x0, tol, why);
        apcmp_num(apcmp_at(q, sizeof q, kp, n1), l->items[1], x1, tol, why);
    }
    return lab_ok;
}

/* within the tolerance of 0 without being 0: a borderline (APCOST.md 1.13) */
static int borderline(double x)
{
    return x != 0 && fabs(x) <= APCMP_AP_TOL;
}

void apfull_compare_kind(const apfull_in *in, const apfull_out *out, size_t a, int kind, const vj_node *e,
                         const char *kp)
{
    char q[640];
    size_t i = a * 3 + (size_t)kind;
    int zero = !apfull_unit(in, a)->any_standin;
    double tol = zero ? 0 : APCMP_AP_TOL;
    const char *zwhy = zero ? "(no stand-in in any round: exactly 0)" : NULL;
    compare_list(apcmp_at(q, sizeof q, kp, "change_per_seed"), vj_get(e, "change_per_seed"), &out->chg[i * out->S],
                 out->S, tol, zero ? zwhy : "(recomputed from ap_scores.tsv.gz)");
    apcmp_num(apcmp_at(q, sizeof q, kp, "change"), vj_get(e, "change"), out->mean[i], tol,
              zero ? zwhy : "(the mean over the seeds, recomputed)");
    double lo = out->ci[2 * i], hi = out->ci[2 * i + 1], elo = out->mc[2 * i], ehi = out->mc[2 * i + 1];
    const vj_node *ci = vj_get(e, "ci95"), *mc = vj_get(e, "ci95_mc");
    int lab_ci = compare_pair(kp, "ci95", ci, lo, hi, tol, zero ? zwhy : "(the bootstrap recomputed)");
    int lab_mc = 0;
    if (in->fmt >= 2)
        lab_mc = compare_pair(kp, "ci95_mc", mc, elo, ehi, tol,
                              zero ? zwhy : "(the Monte Carlo errors of the recomputed bounds, APCOST.md 1.5)");
    const char *dir, *v = apfull_verdict(in->fmt, lo, hi, elo, ehi, &dir);
    /* the quantity the rule compares with 0 within the tolerance of 0 without
     * being 0: the lab's verdict stands if the rule gives it on the lab's
     * own numbers (1.13) */
    if (in->fmt < 2) {
        if ((borderline(lo) || borderline(hi)) && lab_ci)
            v = apfull_verdict(1, ci->items[0]->num, ci->items[1]->num, 0, 0, &dir);
    } else if ((borderline(hi + ehi) || borderline(lo - elo)) && lab_ci && lab_mc) {
        v = apfull_verdict(2, ci->items[0]->num, ci->items[1]->num, mc->items[0]->num, mc->items[1]->num, &dir);
    }
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

/* ci95 (and, in format 2, ci95_mc) of unit a, kind k against the
 * percentiles of the lab's own n kept values v */
static void ci_against_lab(const apfull_in *in, size_t a, int k, double *v, size_t n)
{
    char q[640], up[560];
    apfull_unit_path(in, a, up, sizeof up);
    const vj_node *u = vj_get(vj_get(in->lab, a < in->na ? "arms" : "flooded_runs"), apfull_unit(in, a)->arm);
    const vj_node *e = vj_get(vj_get(u, "kinds"), KINDS[k]);
    if (n == 0)
        return;
    st_sort_d(v, n);
    const vj_node *ci = vj_get(e, "ci95");
    if (ci && ci->type == VJ_ARR && ci->n == 2) {
        double p[2] = {st_pct_d(v, n, 0.025), st_pct_d(v, n, 0.975)};
        for (int x = 0; x < 2; x++) {
            snprintf(q, sizeof q, "%s.kinds.%s.ci95[%d]", up, KINDS[k], x);
            apcmp_num(q, ci->items[x], p[x], APCMP_AP_TOL,
                      x ? "(the percentile 97.5 of ap_resamples.tsv.gz's values)"
                        : "(the percentile 2.5 of ap_resamples.tsv.gz's values)");
        }
    }
    const vj_node *mc = vj_get(e, "ci95_mc");
    if (in->fmt >= 2 && mc && mc->type == VJ_ARR && mc->n == 2) {
        double p[2] = {apfull_mc_error(v, n, 0.025), apfull_mc_error(v, n, 0.975)};
        for (int x = 0; x < 2; x++) {
            snprintf(q, sizeof q, "%s.kinds.%s.ci95_mc[%d]", up, KINDS[k], x);
            apcmp_num(q, mc->items[x], p[x], APCMP_AP_TOL,
                      x ? "(the Monte Carlo error of the percentile 97.5 of ap_resamples.tsv.gz's values)"
                        : "(the Monte Carlo error of the percentile 2.5 of ap_resamples.tsv.gz's values)");
        }
    }
}

void apfull_compare_resamples(const apfull_in *in, const apfull_out *out)
{
    const apf_data *f = in->f;
    if (!f->res_ok)
        return;
    size_t nu = units(in);
    size_t B = out->B, want = nu * 3 * B, k = 0;
    char expect[200];
    if (in->fmt >= 2)
        snprintf(expect, sizeof expect, "3 kinds x %zu resamples for each of %zu arms and %zu flooded runs", B, in->na,
                 in->nf);
    else
        snprintf(expect, sizeof expect, "3 kinds x %zu resamples for each of %zu arms", B, in->na);
    double *v = vu_xmalloc((B + 1) * sizeof *v);
    for (size_t a = 0; a < nu && k <= want; a++) {
        const ap_arm *u = apfull_unit(in, a);
        int zero = !u->any_standin;
        const char *unit = a < in->na ? "arm" : "flooded run";
        for (int kd = 0; kd < 3 && k <= want; kd++) {
            size_t n = 0;
            for (size_t b = 0; b < B; b++, k++) {
                if (k >= f->nres) {
                    char g[64], m[260];
                    snprintf(g, sizeof g, "%zu lines", f->nres);
                    snprintf(m, sizeof m, "%zu (%s)", want, expect);
                    mm_add(NULL, APF_RESAMPLES, "lines", g, m);
                    k = want + 1;
                    break;
                }
                const apf_res *x = &f->res[k];
                if (strcmp(x->arm, u->arm) || x->kind != kd || x->b != (long long)b) {
                    char g[320], m[400];
                    snprintf(g, sizeof g, "%s %s %lld", x->arm, KINDS[x->kind], x->b);
                    snprintf(m, sizeof m, "%s %s %zu (arms in ap.json's order%s, kinds, resamples 0..%zu)", u->arm,
                             KINDS[kd], b, in->fmt >= 2 ? ", then flooded_runs in theirs" : "", B - 1);
                    res_mismatch(x, "arm kind resample", g, m);
                    k = want + 1;
                    break;
                }
                char what[320];
                snprintf(what, sizeof what, "change (%s %s, kind %s, resample %zu)", unit, u->arm, KINDS[kd], b);
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
        char g[64], m[260];
        snprintf(g, sizeof g, "%zu lines", f->nres);
        snprintf(m, sizeof m, "%zu (%s)", want, expect);
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
    if (in->fmt >= 2)
        vj_obj_set(bs, "rounds_resampled", vj_new_bool(1));
    vj_obj_set(member, "bootstrap", bs);
    vj_node *res = vj_new_obj(), *fres = vj_new_obj();
    for (size_t a = 0; a < units(in); a++) {
        const char *name = apfull_unit(in, a)->arm;
        vj_node *ka = vj_get(vj_get(vj_get(member, a < in->na ? "arms" : "flooded_runs"), name), "kinds");
        vj_node *ra = vj_new_obj();
        for (int k = 0; k < 3; k++) {
            size_t i = a * 3 + (size_t)k;
            vj_node *e = vj_get(ka, KINDS[k]);
            if (e) {
                const char *dir, *v = apfull_verdict(in->fmt, out->ci[2 * i], out->ci[2 * i + 1], out->mc[2 * i],
                                                     out->mc[2 * i + 1], &dir);
                vj_obj_set(e, "change", vj_new_num(out->mean[i]));
                vj_obj_set(e, "change_per_seed", num_list(&out->chg[i * out->S], out->S));
                vj_obj_set(e, "ci95", isnan(out->ci[2 * i]) ? vj_new_null() : num_list(&out->ci[2 * i], 2));
                if (in->fmt >= 2)
                    vj_obj_set(e, "ci95_mc", isnan(out->mc[2 * i]) ? vj_new_null() : num_list(&out->mc[2 * i], 2));
                vj_obj_set(e, "verdict", vj_new_str(v));
                vj_obj_set(e, "direction", dir ? vj_new_str(dir) : vj_new_null());
            }
            vj_obj_set(ra, KINDS[k], num_list(&out->r.dstar[i * out->B], out->B));
        }
        vj_obj_set(a < in->na ? res : fres, name, ra);
    }
    vj_obj_set(member, "resamples", res);
    if (in->fmt >= 2)
        vj_obj_set(member, "flooded_resamples", fres);
    else
        vj_free(fres);
}
