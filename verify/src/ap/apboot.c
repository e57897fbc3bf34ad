/* apboot: every seed's AP of the stand-in vectors and the paired bootstrap over customers, fast; see apboot.h. */
#include "apboot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aporder.h"
#include "apvec.h"
#include "dice.h"
#include "vpar.h"
#include "vutil.h"

/* 0, or -1 when a count would not fit 16 bits (only possible beyond 65535 customers) */
static int draw_weights(uint64_t sigma, size_t B, size_t C, uint16_t *w)
{
    memset(w, 0, B * C * sizeof *w);
    dc_gen r; /* APCOST.md 1.11: the same generator as RAWFORMAT.md's schedule */
    dc_seed(&r, sigma);
    for (size_t b = 0; b < B; b++) {
        uint16_t *wb = w + b * C;
        for (size_t i = 0; i < C; i++) {
            uint64_t k = dc_next(&r) % C;
            if (wb[k] == UINT16_MAX)
                return -1;
            wb[k]++;
        }
    }
    return 0;
}

void apb_weights(uint64_t sigma, size_t B, size_t C, uint16_t *w)
{
    if (draw_weights(sigma, B, C, w))
        memset(w, 0, B * C * sizeof *w);
}

uint64_t apb_fnv1a64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

void apb_round_picks(uint64_t sigma_a, size_t B, size_t R, uint16_t *m)
{
    memset(m, 0, B * R * sizeof *m);
    if (R == 0)
        return;
    dc_gen g; /* APCOST.md 1.11: draw b * R + j is the j-th round pick of resample b */
    dc_seed(&g, sigma_a);
    for (size_t b = 0; b < B; b++)
        for (size_t j = 0; j < R; j++)
            m[b * R + dc_next(&g) % R]++; /* at most R <= 65535 (checked by apb_compute) */
}

/* ------------------------------------------------------------ compute */

void apb_result_free(apb_result *r)
{
    free(r->L);
    free(r->Ap);
    free(r->dropped);
    free(r->dstar);
    memset(r, 0, sizeof *r);
}

/* rows and customers in range; *mult = the most rows of one customer in one cutoff */
static int check_problem(const apb_problem *p, size_t *mult, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->cust[i] >= p->C || p->C >= (1u << 31)) {
            snprintf(err, errlen, "row %zu: customer index %u of %zu", i, p->cust[i], p->C);
            return -1;
        }
    for (size_t r = 0; r < p->nr; r++) {
        if (p->round_arm[r] >= p->A) {
            snprintf(err, errlen, "round %zu: arm %zu of %zu", r, p->round_arm[r], p->A);
            return -1;
        }
        for (size_t k = 0; k < p->nsrows[r]; k++)
            if (p->srows[r][k] >= p->n) {
                snprintf(err, errlen, "round %zu: stand-in row %zu of %zu", r, p->srows[r][k], p->n);
                return -1;
            }
    }
    if (p->K > p->S) {
        snprintf(err, errlen, "%zu bootstrapped seeds of %zu", p->K, p->S);
        return -1;
    }
    for (size_t a = 0; a < p->A; a++)
        if (p->R[a] > UINT16_MAX) {
            snprintf(err, errlen, "arm %zu: %zu rounds (at most 65535)", a, p->R[a]);
            return -1;
        }
    uint32_t *cnt = vu_xcalloc(p->C + 1, sizeof *cnt);
    *mult = 1;
    for (size_t c = 0; c < p->ncut; c++) {
        for (size_t k = p->cut_first[c]; k < p->cut_first[c + 1]; k++)
            if (++cnt[p->cust[p->byrow[k]]] > *mult)
                *mult = cnt[p->cust[p->byrow[k]]];
        for (size_t k = p->cut_first[c]; k < p->cut_first[c + 1]; k++)
            cnt[p->cust[p->byrow[k]]] = 0;
    }
    free(cnt);
    return 0;
}

/* m_b(r) of every round of every arm, [b * nr + r]: the arm's rounds in
 * the problem's order (ascending) are its indexes 0 .. R_a - 1 */
static uint16_t *round_multiplicities(const apb_problem *p)
{
    uint16_t *mb = vu_xcalloc(p->B * p->nr + 1, sizeof *mb);
    size_t maxR = 1;
    for (size_t a = 0; a < p->A; a++)
        if (p->R[a] > maxR)
            maxR = p->R[a];
    uint16_t *m = vu_xmalloc((p->B * maxR + 1) * sizeof *m);
    size_t *idx = vu_xmalloc((p->nr + 1) * sizeof *idx);
    for (size_t a = 0; a < p->A; a++) {
        size_t n = 0;
        for (size_t r = 0; r < p->nr; r++)
            if (p->round_arm[r] == a)
                idx[n++] = r;
        if (n != p->R[a] || n == 0)
            continue; /* not the arm's R_a rounds: left at 0 (no problem the callers build) */
        apb_round_picks(p->round_sigma[a], p->B, n, m);
        for (size_t b = 0; b < p->B; b++)
            for (size_t k = 0; k < n; k++)
                mb[b * p->nr + idx[k]] = m[b * n + k];
    }
    free(idx);
    free(m);
    return mb;
}

/* which resamples have a cutoff without buyer weight */
static size_t find_dropped(const apb_problem *p, const uint16_t *W, unsigned char *dropped)
{
    size_t used = 0;
    for (size_t b = 0; b < p->B; b++) {
        const uint16_t *w = W + b * p->C;
        int drop = 0;
        for (size_t c = 0; c < p->ncut && !drop; c++) {
            long long pos = 0;
            for (size_t k = p->cut_first[c]; k < p->cut_first[c + 1]; k++) {
                size_t i = p->byrow[k];
                if (p->label[i])
                    pos += w[p->cust[i]];
            }
            drop = pos == 0;
        }
        dropped[b] = (unsigned char)drop;
        used += !drop;
    }
    return used;
}

/* ------------------------------------------------------------ the work */

/* the stand-in rows of every round, by cutoff (the same for every seed);
 * a (round, cutoff) with many of them is computed over its base order */
typedef struct {
    size_t *first;       /* [nr * ncut + 1] into rows */
    size_t *rows;        /* the rows of round r in cutoff c: rows[first[r * ncut + c] ..] */
    uint32_t *codes;     /* their codes */
    unsigned char *base; /* [nr * ncut] computed over the base order */
    unsigned char *mask; /* [ncut] cutoffs with some stand-in row */
    size_t *canon;       /* [nr * ncut] the first (round, cutoff) with the same set of stand-in rows */
} split;

typedef struct {
    apo_order live, *bases; /* bases[r * ncut + c] when split.base */
    apo_sums xl[APO_LANES], xb[APO_LANES]; /* per lane: the live order's and a base's sums */
    apo_prog g;
    size_t *off, *len;      /* [(r * ncut + c) * kinds + k]: the programs */
    size_t *share;          /* [r * ncut + c]: the words `default` shares with `none` (above the default) */
    uint32_t *lpos;         /* [n] per row: its position in the live order */
    apo_vrow *pairs;
    unsigned char *in;      /* [n] the rows of the (round, cutoff) at hand */
    apo_item *it;
    void *scratch;
    double *R;              /* reciprocals */
    double *lac;            /* [l * ncut + c] lane l's live numerator of cutoff c */
    double *d;              /* [l * kinds + k] lane l's change of kind k */
    uint16_t *ones;
    double *racc;           /* [l * A * kinds + a * kinds + k] */
    double *ac;             /* [(rc * APO_LANES + l) * kinds + k] the numerators of (round, cutoff) rc ... */
    size_t *stamp, cur;     /* [rc] ... computed for the lanes at hand when stamp[rc] == cur */
    unsigned char *need;    /* [nr] the rounds to compute for the lanes at hand */
    /* the vector engine (apvec.h): APV_W resamples a pass */
    apv_sums vl, vb;        /* the live order's sums of the cutoff at hand, a base's */
    int32_t *wt;            /* [C * APV_W] the pass's weights, transposed */
    double *vac;            /* [(rc * kinds + k) * APV_W + l] the numerators of (round, cutoff) rc */
    double *dv;             /* [(r * kinds + k) * APV_W + l] round r's change, summed over the cutoffs */
} work;

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

static void make_split(split *sp, const apb_problem *p, const uint32_t *rowcut)
{
    size_t nrc = p->nr * p->ncut, tot = 0;
    sp->first = vu_xcalloc(nrc + 1, sizeof *sp->first);
    for (size_t r = 0; r < p->nr; r++) {
        for (size_t k = 0; k < p->nsrows[r]; k++)
            sp->first[r * p->ncut + rowcut[p->srows[r][k]] + 1]++;
        tot += p->nsrows[r];
    }
    for (size_t i = 0; i < nrc; i++)
        sp->first[i + 1] += sp->first[i];
    sp->rows = vu_xmalloc((tot + 1) * sizeof *sp->rows);
    sp->codes = vu_xmalloc((tot + 1) * sizeof *sp->codes);
    size_t *fill = vu_xmalloc((nrc + 1) * sizeof *fill);
    memcpy(fill, sp->first, (nrc + 1) * sizeof *fill);
    for (size_t r = 0; r < p->nr; r++)
        for (size_t k = 0; k < p->nsrows[r]; k++) {
            size_t i = p->srows[r][k], at = fill[r * p->ncut + rowcut[i]]++;
            sp->rows[at] = i;
            sp->codes[at] = p->cust[i] << 1 | (p->label[i] ? 1u : 0u);
        }
    free(fill);
    sp->base = vu_xcalloc(nrc + 1, 1);
    sp->mask = vu_xcalloc(p->ncut + 1, 1);
    for (size_t r = 0; r < p->nr; r++)
        for (size_t c = 0; c < p->ncut; c++) {
            size_t ns = sp->first[r * p->ncut + c + 1] - sp->first[r * p->ncut + c];
            size_t nc = p->cut_first[c + 1] - p->cut_first[c];
            if (!ns)
                continue;
            sp->mask[c] = 1;
            /* many stand-in rows: one pass over the others beats a program step per row */
            sp->base[r * p->ncut + c] = p->mode == 2 || (p->mode == 0 && 8 * ns >= nc);
        }
    /* runs of different arms flooded in the same round often have the very
     * same stand-in rows: their numerators are the same numbers, computed
     * once (each from the set alone: the same set gives the same program,
     * the same base, the same sums) */
    sp->canon = vu_xmalloc((nrc + 1) * sizeof *sp->canon);
    size_t **sorted = vu_xcalloc(nrc + 1, sizeof *sorted);
    for (size_t rc = 0; rc < nrc; rc++) {
        size_t f = sp->first[rc], ns = sp->first[rc + 1] - f;
        sp->canon[rc] = rc;
        if (!ns)
            continue;
        sorted[rc] = vu_xmalloc(ns * sizeof **sorted);
        memcpy(sorted[rc], sp->rows + f, ns * sizeof **sorted);
        qsort(sorted[rc], ns, sizeof **sorted, cmp_size);
        for (size_t r0 = 0; r0 < rc / p->ncut; r0++) {
            size_t q = r0 * p->ncut + rc % p->ncut;
            if (sp->canon[q] == q && sp->first[q + 1] - sp->first[q] == ns &&
                !memcmp(sorted[q], sorted[rc], ns * sizeof **sorted)) {
                sp->canon[rc] = q;
                break;
            }
        }
    }
    for (size_t rc = 0; rc < nrc; rc++)
        free(sorted[rc]);
    free(sorted);
}

static void free_split(split *sp)
{
    free(sp->first);
    free(sp->rows);
    free(sp->codes);
    free(sp->base);
    free(sp->mask);
    free(sp->canon);
}

/* the base of (round, cutoff) rc: the cutoff's live order without the round's stand-in rows */
static void build_base(work *w, const apb_problem *p, const split *sp, size_t rc, size_t c)
{
    size_t f = sp->first[rc], ns = sp->first[rc + 1] - f;
    for (size_t k = 0; k < ns; k++)
        w->in[sp->rows[f + k]] = 1;
    size_t nb = 0, lo = p->cut_first[c], hi = p->cut_first[c + 1];
    for (size_t q = lo; q < hi; q++)
        if (!w->in[w->live.row[q]])
            w->pairs[nb++] = (apo_vrow){w->live.val[q], w->live.row[q]};
    for (size_t k = 0; k < ns; k++)
        w->in[sp->rows[f + k]] = 0;
    size_t first[2] = {0, nb};
    apo_order_build(&w->bases[rc], 1, first, w->pairs, p->cust, p->label);
}

/* the live order of seed s and the programs of every (round, cutoff, kind) */
static void build_seed(work *w, const apb_problem *p, const split *sp, size_t s)
{
    for (size_t c = 0; c < p->ncut; c++) {
        size_t f = p->cut_first[c], m = p->cut_first[c + 1] - f;
        for (size_t k = 0; k < m; k++)
            w->pairs[f + k] = (apo_vrow){p->live[s][p->byrow[f + k]], (uint32_t)p->byrow[f + k]};
        qsort(w->pairs + f, m, sizeof *w->pairs, apo_cmp_vrow);
    }
    apo_order_build(&w->live, p->ncut, p->cut_first, w->pairs, p->cust, p->label);
    for (size_t q = 0; q < p->n; q++)
        w->lpos[w->live.row[q]] = (uint32_t)q;
    w->g.n = 0;
    for (size_t r = 0; r < p->nr; r++)
        for (size_t c = 0; c < p->ncut; c++) {
            size_t rc = r * p->ncut + c, f = sp->first[rc], ns = sp->first[rc + 1] - f;
            if (sp->canon[rc] != rc)
                continue; /* computed as its first (make_split) */
            if (sp->base[rc])
                build_base(w, p, sp, rc, c);
            for (size_t k = 0; k < APB_NKINDS; k++) {
                size_t v = rc * APB_NKINDS + k;
                w->off[v] = w->g.n;
                for (size_t q = 0; q < ns; q++) {
                    size_t i = sp->rows[f + q];
                    float y = k == 0 ? p->lastk[s][i] : k == 1 ? p->d : -INFINITY;
                    w->it[q] = (apo_item){(uint32_t)c, w->live.tie_of[w->lpos[i]], sp->codes[f + q], y};
                }
                if (ns && sp->base[rc])
                    apo_seg_base(&w->g, &w->bases[rc], w->it, ns, k != 0, w->scratch);
                else if (ns)
                    apo_seg_patch(&w->g, &w->live, c, w->it, ns, w->scratch);
                w->len[v] = w->g.n - w->off[v];
            }
            size_t vd = rc * APB_NKINDS + 1, vn = vd + 1;
            w->share[rc] = apo_common_prefix(w->g.op + w->off[vd], w->len[vd], w->g.op + w->off[vn], w->len[vn]);
        }
}

static void work_init(work *w, const apb_problem *p, const split *sp, size_t mult)
{
    memset(w, 0, sizeof *w);
    size_t nrc = p->nr * p->ncut;
    w->bases = vu_xcalloc(nrc + 1, sizeof *w->bases);
    w->off = vu_xmalloc((nrc * APB_NKINDS + 1) * sizeof *w->off);
    w->len = vu_xmalloc((nrc * APB_NKINDS + 1) * sizeof *w->len);
    w->share = vu_xmalloc((nrc + 1) * sizeof *w->share);
    w->lpos = vu_xmalloc((p->n + 1) * sizeof *w->lpos);
    w->pairs = vu_xmalloc((p->n + 1) * sizeof *w->pairs);
    w->in = vu_xcalloc(p->n + 1, 1);
    size_t maxs = 1;
    for (size_t rc = 0; rc < nrc; rc++)
        if (sp->first[rc + 1] - sp->first[rc] > maxs)
            maxs = sp->first[rc + 1] - sp->first[rc];
    w->it = vu_xmalloc((maxs + 1) * sizeof *w->it);
    w->scratch = vu_xmalloc(apo_scratch_size(maxs));
    /* the reciprocals of every running weight: at most mult rows of a customer
     * in a cutoff, the weights summing to C (or all 1) */
    size_t nR = mult * (p->C > p->n ? p->C : p->n) + 2;
    w->R = vu_xmalloc(nR * sizeof *w->R);
    w->R[0] = 0;
    for (size_t k = 1; k < nR; k++)
        w->R[k] = 1.0 / (double)k;
    w->lac = vu_xmalloc((APO_LANES * p->ncut + 1) * sizeof *w->lac);
    w->d = vu_xmalloc(APO_LANES * APB_NKINDS * sizeof *w->d);
    w->ac = vu_xmalloc((nrc * APO_LANES * APB_NKINDS + 1) * sizeof *w->ac);
    w->stamp = vu_xcalloc(nrc + 1, sizeof *w->stamp);
    w->need = vu_xcalloc(p->nr + 1, 1);
    w->cur = 0;
    w->ones = vu_xmalloc((p->C + 1) * sizeof *w->ones);
    for (size_t k = 0; k <= p->C; k++)
        w->ones[k] = 1;
    w->racc = vu_xmalloc((APV_W * p->A * APB_NKINDS + 1) * sizeof *w->racc);
    if (p->engine == 0) {
        w->wt = apv_alloc((p->C + 1) * APV_W * sizeof *w->wt);
        w->vac = vu_xmalloc((nrc * APB_NKINDS * APV_W + 1) * sizeof *w->vac);
        w->dv = vu_xmalloc((p->nr * APB_NKINDS * APV_W + 1) * sizeof *w->dv);
    }
}

static void work_free(work *w, const apb_problem *p)
{
    apo_order_free(&w->live);
    for (size_t rc = 0; rc < p->nr * p->ncut; rc++)
        apo_order_free(&w->bases[rc]);
    free(w->bases);
    for (size_t l = 0; l < APO_LANES; l++) {
        apo_sums_free(&w->xl[l]);
        apo_sums_free(&w->xb[l]);
    }
    free(w->ac);
    free(w->stamp);
    free(w->need);
    free(w->g.op);
    free(w->off);
    free(w->len);
    free(w->share);
    free(w->lpos);
    free(w->pairs);
    free(w->in);
    free(w->it);
    free(w->scratch);
    free(w->R);
    free(w->lac);
    free(w->d);
    free(w->ones);
    free(w->racc);
    apv_sums_free(&w->vl);
    apv_sums_free(&w->vb);
    free(w->wt);
    free(w->vac);
    free(w->dv);
}

/* the numerators of (round, cutoff) rc's three vectors for the L lanes at
 * hand, into w->ac (lane l's weights wt[l], live sums w->xl[l]) */
static void rc_numerators(work *w, const split *sp, size_t rc, size_t L, const uint16_t *const *wt)
{
    size_t f = sp->first[rc], ns = sp->first[rc + 1] - f;
    const apo_sums *x[APO_LANES];
    for (size_t l = 0; l < L; l++)
        x[l] = &w->xl[l];
    if (sp->base[rc]) {
        for (size_t l = 0; l < L; l++) {
            apo_sums_fill(&w->xb[l], &w->bases[rc], wt[l], w->R, NULL);
            int32_t sw = 0, sy = 0;
            for (size_t q = 0; q < ns; q++) {
                int32_t v = wt[l][sp->codes[f + q] >> 1];
                sw += v;
                sy += v & -(int32_t)(sp->codes[f + q] & 1);
            }
            w->xb[l].sw = sw;
            w->xb[l].sy = sy;
            x[l] = &w->xb[l];
        }
    }
    /* last_known; none, keeping its state where default parts from it; default from there */
    const uint32_t *op = w->g.op;
    size_t v = rc * APB_NKINDS, sh = w->share[rc];
    apo_state at[APO_LANES];
    double ac[APB_NKINDS][APO_LANES];
    apo_eval_lanes(op + w->off[v], w->len[v], L, wt, x, w->R, NULL, SIZE_MAX, NULL, ac[0]);
    apo_eval_lanes(op + w->off[v + 2], w->len[v + 2], L, wt, x, w->R, NULL, sh, at, ac[2]);
    apo_eval_lanes(op + w->off[v + 1] + sh, w->len[v + 1] - sh, L, wt, x, w->R, at, SIZE_MAX, NULL, ac[1]);
    for (size_t l = 0; l < L; l++)
        for (size_t k = 0; k < APB_NKINDS; k++)
            w->ac[(rc * APO_LANES + l) * APB_NKINDS + k] = ac[k][l];
    w->stamp[rc] = w->cur;
}

/* the numerators of every (round, cutoff) with stand-in rows of the rounds
 * marked in need, for the L lanes at hand, cutoff by cutoff (the rounds of
 * one cutoff read the same part of the live order's sums, which then stays
 * in the cache); round_change reads them */
static void all_numerators(work *w, const apb_problem *p, const split *sp, const unsigned char *need, size_t L,
                           const uint16_t *const *wt)
{
    for (size_t c = 0; c < p->ncut; c++)
        for (size_t r = 0; r < p->nr; r++) {
            size_t rc = r * p->ncut + c;
            if (!need[r] || sp->first[rc + 1] == sp->first[rc])
                continue;
            size_t cr = sp->canon[rc];
            if (w->stamp[cr] != w->cur)
                rc_numerators(w, sp, cr, L, wt);
        }
}

/* round r's change of AP for each kind into w->d (lane l: d[l * kinds + k]),
 * under the weights of each lane (its live numerators in w->lac): the
 * cutoffs without stand-in rows are the live ones and add nothing */
static void round_change(work *w, const apb_problem *p, const split *sp, size_t r, size_t L,
                         const uint16_t *const *wt)
{
    for (size_t i = 0; i < L * APB_NKINDS; i++)
        w->d[i] = 0;
    for (size_t c = 0; c < p->ncut; c++) {
        size_t rc = r * p->ncut + c, ns = sp->first[rc + 1] - sp->first[rc];
        if (!ns)
            continue;
        size_t cr = sp->canon[rc];
        if (w->stamp[cr] != w->cur)
            rc_numerators(w, sp, cr, L, wt);
        for (size_t l = 0; l < L; l++)
            for (size_t k = 0; k < APB_NKINDS; k++)
                w->d[l * APB_NKINDS + k] +=
                    (w->ac[(cr * APO_LANES + l) * APB_NKINDS + k] - w->lac[l * p->ncut + c]) / w->xl[l].pos[c];
    }
    for (size_t i = 0; i < L * APB_NKINDS; i++)
        w->d[i] /= (double)p->ncut;
}

/* seed s with every weight 1: L[s] and A[s][r][kind] */
static void point_values(work *w, const apb_problem *p, const split *sp, size_t s, apb_result *out)
{
    size_t nv = p->nr * APB_NKINDS;
    int ok = apo_sums_fill(&w->xl[0], &w->live, w->ones, w->R, NULL);
    double L = 0;
    for (size_t c = 0; c < p->ncut; c++) {
        w->lac[c] = apo_live_ac(&w->xl[0], &w->live, c);
        if (ok)
            L += w->lac[c] / w->xl[0].pos[c];
    }
    L = ok ? L / (double)p->ncut : NAN;
    out->L[s] = L;
    const uint16_t *ones = w->ones;
    w->cur++;
    for (size_t r = 0; r < p->nr; r++)
        w->need[r] = ok && p->nsrows[r];
    all_numerators(w, p, sp, w->need, 1, &ones);
    for (size_t r = 0; r < p->nr; r++) {
        if (ok && p->nsrows[r])
            round_change(w, p, sp, r, 1, &ones);
        for (size_t k = 0; k < APB_NKINDS; k++)
            out->Ap[s * nv + r * APB_NKINDS + k] = ok && p->nsrows[r] ? L + w->d[k] : L;
    }
}

/* the next pass: the kept resamples from *b0 on, at most lanes of them, into bl; their count (0: none left) */
static size_t next_pass(const apb_problem *p, const apb_result *out, size_t *b0, size_t lanes, size_t *bl)
{
    size_t L = 0;
    for (; *b0 < p->B && L < lanes; (*b0)++)
        if (!out->dropped[*b0])
            bl[L++] = *b0;
    return L;
}

/* APCOST.md 1.12: mark in w->need the rounds with stand-in rows drawn at least once by the pass's L lanes */
static void mark_needed_rounds(work *w, const apb_problem *p, const uint16_t *mb, const size_t *bl, size_t L)
{
    for (size_t r = 0; r < p->nr; r++) {
        int any = 0;
        for (size_t l = 0; l < L; l++)
            any |= !mb || mb[bl[l] * p->nr + r] != 0;
        w->need[r] = p->nsrows[r] && any;
    }
}

/* racc += m_b(r) times round r's change (lane l's of kind k: d[l * ls + k * ks] / div) into round r's arm */
static void add_round_change(work *w, const apb_problem *p, const uint16_t *mb, const size_t *bl, size_t L, size_t r,
                             const double *d, size_t ls, size_t ks, double div)
{
    size_t na = p->A * APB_NKINDS;
    for (size_t l = 0; l < L; l++) {
        double m = mb ? (double)mb[bl[l] * p->nr + r] : 1.0;
        if (m == 0)
            continue;
        for (size_t k = 0; k < APB_NKINDS; k++)
            w->racc[l * na + p->round_arm[r] * APB_NKINDS + k] += m * (d[l * ls + k * ks] / div);
    }
}

/* dacc += each lane's per-arm round sums racc divided by R[a] */
static void add_pass_sums(const work *w, const apb_problem *p, const size_t *bl, size_t L, double *dacc)
{
    size_t na = p->A * APB_NKINDS;
    for (size_t l = 0; l < L; l++)
        for (size_t a = 0; a < p->A; a++)
            for (size_t k = 0; k < APB_NKINDS; k++)
                dacc[(a * APB_NKINDS + k) * p->B + bl[l]] += w->racc[l * na + a * APB_NKINDS + k] / (double)p->R[a];
}

/* seed s's part of every kept resample's change: dacc += (1/R_a) sum_r m_b(r) (AP_b(v) - AP_b(live));
 * mb[b * nr + r] = m_b(r), or NULL: every m_b(r) = 1.  The kept resamples
 * go through the programs APO_LANES at a time (aporder.h: each op read
 * once for all of them, each resample's numbers its own to the bit). */
static void resample_values(work *w, const apb_problem *p, const split *sp, const uint16_t *W, const uint16_t *mb,
                            const apb_result *out, double *dacc)
{
    size_t na = p->A * APB_NKINDS;
    size_t lanes = p->lanes >= 1 && p->lanes <= APO_LANES ? p->lanes : APO_LANES;
    for (size_t b0 = 0; b0 < p->B;) {
        size_t bl[APO_LANES], L = next_pass(p, out, &b0, lanes, bl);
        if (!L)
            break;
        const uint16_t *wb[APO_LANES];
        for (size_t l = 0; l < L; l++) {
            wb[l] = W + bl[l] * p->C;
            apo_sums_fill(&w->xl[l], &w->live, wb[l], w->R, sp->mask);
            for (size_t c = 0; c < p->ncut; c++)
                if (sp->mask[c])
                    w->lac[l * p->ncut + c] = apo_live_ac(&w->xl[l], &w->live, c);
        }
        memset(w->racc, 0, L * na * sizeof *w->racc);
        w->cur++;
        mark_needed_rounds(w, p, mb, bl, L);
        all_numerators(w, p, sp, w->need, L, wb);
        for (size_t r = 0; r < p->nr; r++) {
            if (!w->need[r])
                continue;
            round_change(w, p, sp, r, L, wb);
            add_round_change(w, p, mb, bl, L, r, w->d, APB_NKINDS, 1, 1.0); /* x / 1.0 == x exactly */
        }
        add_pass_sums(w, p, bl, L, dacc);
    }
}

/* the numerators of (round, cutoff) rc's three vectors for the pass's
 * APV_W lanes into w->vac (the live sums of its cutoff c in w->vl) */
static void rc_numerators_vec(work *w, const split *sp, size_t rc, size_t c)
{
    const apv_sums *x = &w->vl;
    if (sp->base[rc]) {
        apv_fill_base(&w->vb, &w->bases[rc], &w->vl, &w->live, c, w->wt);
        x = &w->vb;
    }
    /* last_known; none, keeping its state where default parts from it; default from there */
    const uint32_t *op = w->g.op;
    size_t v = rc * APB_NKINDS, sh = w->share[rc];
    apv_state at;
    double *ac = w->vac + v * APV_W;
    apv_eval(op + w->off[v], w->len[v], w->wt, x, NULL, SIZE_MAX, NULL, ac);
    apv_eval(op + w->off[v + 2], w->len[v + 2], w->wt, x, NULL, sh, &at, ac + 2 * APV_W);
    apv_eval(op + w->off[v + 1] + sh, w->len[v + 1] - sh, w->wt, x, &at, SIZE_MAX, NULL, ac + APV_W);
    w->stamp[rc] = w->cur;
}

/* resample_values with the vector engine (apvec.h): the kept resamples
 * APV_W a pass (p->lanes of them when 1 .. APV_W: the tests), the lanes
 * past the last filled with the first's weights and ignored; per pass and
 * cutoff (ascending), the cutoff's live sums, then the numerators of every
 * round's stand-in vectors there, each round's change summed over the
 * cutoffs in ascending order.  Each lane's numbers are its own: the same
 * whichever resamples share its pass. */
static void resample_values_vec(work *w, const apb_problem *p, const split *sp, const uint16_t *W,
                                const uint16_t *mb, const apb_result *out, double *dacc)
{
    size_t na = p->A * APB_NKINDS, nk = APB_NKINDS;
    size_t lanes = p->lanes >= 1 && p->lanes <= APV_W ? p->lanes : APV_W;
    for (size_t b0 = 0; b0 < p->B;) {
        size_t bl[APV_W], L = next_pass(p, out, &b0, lanes, bl);
        if (!L)
            break;
        for (size_t l = 0; l < APV_W; l++) {
            const uint16_t *wb = W + bl[l < L ? l : 0] * p->C;
            for (size_t c = 0; c < p->C; c++)
                w->wt[c * APV_W + l] = wb[c];
        }
        w->cur++;
        mark_needed_rounds(w, p, mb, bl, L);
        memset(w->dv, 0, p->nr * nk * APV_W * sizeof *w->dv);
        for (size_t c = 0; c < p->ncut; c++) {
            int any = 0;
            for (size_t r = 0; r < p->nr && !any; r++)
                any = w->need[r] && sp->first[r * p->ncut + c + 1] > sp->first[r * p->ncut + c];
            if (!any)
                continue;
            apv_fill(&w->vl, &w->live, c, w->wt);
            double lac[APV_W];
            int32_t pos[APV_W];
            memcpy(lac, w->vl.live, sizeof lac);
            memcpy(pos, w->vl.pos, sizeof pos);
            for (size_t r = 0; r < p->nr; r++) {
                size_t rc = r * p->ncut + c;
                if (!w->need[r] || sp->first[rc + 1] == sp->first[rc])
                    continue;
                size_t cr = sp->canon[rc];
                if (w->stamp[cr] != w->cur)
                    rc_numerators_vec(w, sp, cr, c);
                for (size_t k = 0; k < nk; k++)
                    for (size_t l = 0; l < L; l++)
                        w->dv[(r * nk + k) * APV_W + l] += (w->vac[(cr * nk + k) * APV_W + l] - lac[l]) / pos[l];
            }
        }
        memset(w->racc, 0, L * na * sizeof *w->racc);
        for (size_t r = 0; r < p->nr; r++) {
            if (!w->need[r])
                continue;
            add_round_change(w, p, mb, bl, L, r, w->dv + r * nk * APV_W, 1, APV_W, (double)p->ncut);
        }
        add_pass_sums(w, p, bl, L, dacc);
    }
}

/* one seed of apb_compute, on any thread */
typedef struct {
    const apb_problem *p;
    const split *sp;
    const uint16_t *W, *mb;
    apb_result *out;
    size_t mult;
    double **part; /* [S]: seed s's terms of dstar (NULL: none) */
} seed_job;

static void seed_one(void *ctx, size_t s)
{
    seed_job *j = ctx;
    const apb_problem *p = j->p;
    work w;
    work_init(&w, p, j->sp, j->mult);
    build_seed(&w, p, j->sp, s);
    point_values(&w, p, j->sp, s, j->out);
    if (s < p->K && j->W) {
        j->part[s] = vu_xcalloc(p->A * APB_NKINDS * p->B + 1, sizeof(double));
        if (p->engine == 0)
            resample_values_vec(&w, p, j->sp, j->W, j->mb, j->out, j->part[s]);
        else
            resample_values(&w, p, j->sp, j->W, j->mb, j->out, j->part[s]);
    }
    work_free(&w, p);
}

int apb_compute(const apb_problem *p, apb_result *out, char *err, size_t errlen)
{
    clock_t t0 = clock();
    memset(out, 0, sizeof *out);
    size_t mult;
    if (check_problem(p, &mult, err, errlen))
        return -1;
    out->S = p->S;
    out->nr = p->nr;
    out->A = p->A;
    out->B = p->B;
    out->L = vu_xcalloc(p->S + 1, sizeof *out->L);
    out->Ap = vu_xcalloc(p->S * p->nr * APB_NKINDS + 1, sizeof *out->Ap);
    out->dropped = vu_xcalloc(p->B + 1, 1);
    out->dstar = vu_xcalloc(p->A * APB_NKINDS * p->B + 1, sizeof *out->dstar);
    uint16_t *W = NULL;
    if (p->K > 0 && p->B > 0) {
        W = vu_xmalloc(p->B * p->C * sizeof *W + 1);
        if (draw_weights(p->sigma, p->B, p->C, W)) {
            snprintf(err, errlen, "a customer drawn more than 65535 times in one resample");
            free(W);
            apb_result_free(out);
            return -1;
        }
        out->used = find_dropped(p, W, out->dropped);
    }
    uint16_t *mb = NULL;
    if (W && p->round_sigma)
        mb = round_multiplicities(p);
    for (size_t r = 0; r < p->nr; r++)
        out->vectors += p->nsrows[r] ? APB_NKINDS : 0;
    uint32_t *rowcut = vu_xmalloc((p->n + 1) * sizeof *rowcut);
    for (size_t c = 0; c < p->ncut; c++)
        for (size_t k = p->cut_first[c]; k < p->cut_first[c + 1]; k++)
            rowcut[p->byrow[k]] = (uint32_t)c;
    split sp;
    make_split(&sp, p, rowcut);
    free(rowcut);
    /* the seeds in parallel (vpar.h), each its own work and its own part of
     * dstar; the parts added in seed order, as one loop over the seeds adds
     * them (each part holds one term: the sums are the same to the bit) */
    seed_job J = {p, &sp, W, mb, out, mult, vu_xcalloc(p->S + 1, sizeof(double *))};
    vp_for(p->S, seed_one, &J);
    size_t nd = p->A * APB_NKINDS * p->B;
    for (size_t s = 0; s < p->S; s++) {
        if (J.part[s])
            for (size_t i = 0; i < nd; i++)
                out->dstar[i] += J.part[s][i];
        free(J.part[s]);
    }
    free(J.part);
    free_split(&sp);
    free(W);
    free(mb);
    for (size_t i = 0; i < p->A * APB_NKINDS; i++)
        for (size_t b = 0; b < p->B; b++) {
            double *x = &out->dstar[i * p->B + b];
            *x = out->dropped[b] || p->K == 0 ? NAN : *x / (double)p->K;
        }
    out->seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    return 0;
}
