/* aporder: one order of test rows, the programs of stand-in vectors over it and their weighted AP; see aporder.h. */
#include "aporder.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

/* ------------------------------------------------------------ the order */

static void order_reserve(apo_order *o, size_t n, size_t ng)
{
    if (n <= o->cap && o->first && ng <= o->ng)
        return;
    size_t c = n + 1;
    o->code = vu_xrealloc(o->code, c * sizeof *o->code);
    o->val = vu_xrealloc(o->val, c * sizeof *o->val);
    o->row = vu_xrealloc(o->row, c * sizeof *o->row);
    o->tie_of = vu_xrealloc(o->tie_of, c * sizeof *o->tie_of);
    o->tie_s = vu_xrealloc(o->tie_s, c * sizeof *o->tie_s);
    o->tie_e = vu_xrealloc(o->tie_e, c * sizeof *o->tie_e);
    o->bt_qs = vu_xrealloc(o->bt_qs, c * sizeof *o->bt_qs);
    o->bt_qe = vu_xrealloc(o->bt_qe, c * sizeof *o->bt_qe);
    o->btat = vu_xrealloc(o->btat, (c + ng) * sizeof *o->btat);
    o->first = vu_xrealloc(o->first, (ng + 1) * sizeof *o->first);
    o->tie_first = vu_xrealloc(o->tie_first, (ng + 1) * sizeof *o->tie_first);
    o->cap = n;
}

int apo_cmp_vrow(const void *x, const void *y)
{
    const apo_vrow *a = x, *b = y;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

void apo_order_free(apo_order *o)
{
    free(o->first);
    free(o->code);
    free(o->val);
    free(o->row);
    free(o->tie_of);
    free(o->tie_s);
    free(o->tie_e);
    free(o->tie_first);
    free(o->bt_qs);
    free(o->bt_qe);
    free(o->btat);
    memset(o, 0, sizeof *o);
}

void apo_order_build(apo_order *o, size_t ng, const size_t *first, const apo_vrow *pairs, const uint32_t *cust,
                     const unsigned char *label)
{
    size_t n = first[ng];
    order_reserve(o, n, ng);
    o->ng = ng;
    o->n = n;
    memcpy(o->first, first, (ng + 1) * sizeof *first);
    size_t nt = 0;
    o->nbt = 0;
    for (size_t g = 0; g < ng; g++) {
        size_t f = first[g], m = first[g + 1] - f, q0 = f + g;
        o->tie_first[g] = (uint32_t)nt;
        int buyer = 0;
        assert(first[g] <= first[g + 1]);
        for (size_t k = 0; k < m; k++) {
            uint32_t i = pairs[f + k].row;
            float v = pairs[f + k].v;
            /* aporder.h: each group sorted by score descending (the ties are runs of equal scores) */
            assert(k == 0 || !(v > o->val[f + k - 1]));
            o->code[f + k] = cust[i] << 1 | (label[i] ? 1u : 0u);
            o->val[f + k] = v;
            o->row[f + k] = i;
            if (k == 0 || v != o->val[f + k - 1]) {
                /* a new tie: close the previous one */
                if (k > 0 && buyer) {
                    o->bt_qs[o->nbt] = (uint32_t)(q0 + o->tie_s[nt - 1]);
                    o->bt_qe[o->nbt++] = (uint32_t)(q0 + k);
                }
                o->tie_s[nt++] = (uint32_t)k;
                buyer = 0;
            }
            o->tie_e[nt - 1] = (uint32_t)k + 1;
            o->tie_of[f + k] = (uint32_t)nt - 1;
            buyer |= label[i] != 0;
        }
        if (m > 0 && buyer) {
            o->bt_qs[o->nbt] = (uint32_t)(q0 + o->tie_s[nt - 1]);
            o->bt_qe[o->nbt++] = (uint32_t)(q0 + m);
        }
    }
    o->tie_first[ng] = (uint32_t)nt;
    /* btat: per boundary, the buyer ties (in group and score order) that start before it */
    size_t k = 0;
    for (size_t g = 0; g < ng; g++) {
        size_t m = first[g + 1] - first[g], q0 = first[g] + g;
        for (size_t p = 0; p <= m; p++) {
            while (k < o->nbt && o->bt_qs[k] < q0 + p)
                k++;
            o->btat[q0 + p] = (uint32_t)k;
        }
    }
}

uint32_t apo_tie_at_or_below(const apo_order *o, size_t g, float y)
{
    uint32_t lo = o->tie_first[g], hi = o->tie_first[g + 1];
    size_t f = o->first[g];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->val[f + o->tie_s[mid]] > y)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---------------------------------------------------------- the programs */

/* The numerator of one cutoff's AP as a program over an order:
 *   RUN k1 k2            the buyer ties k1..k2-1 of the order, untouched
 *   TIE qs qe nr ni c... the tie at boundaries [qs, qe) (qs == qe: a new
 *                        tie): the order's rows there less the nr stand-in
 *                        rows taken out, plus the ni put in (codes cust << 1 | label)
 *   DROP c               a stand-in row that was alone in its tie, taken out
 *                        (a TIE without a term: the common case, made cheap)
 *   NEW qs c             one stand-in row put in as a new tie at boundary qs
 *   ALL qs qe            the tie at [qs, qe) plus every stand-in row of the
 *                        base (their weights summed once: apo_sums' sw, sy) */
enum { OP_RUN, OP_TIE, OP_DROP, OP_NEW, OP_ALL };

static void emit(apo_prog *g, uint32_t x)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 4096;
        g->op = vu_xrealloc(g->op, g->cap * sizeof *g->op);
    }
    g->op[g->n++] = x;
}

static void emit_run(apo_prog *g, const apo_order *o, size_t q1, size_t q2)
{
    if (o->btat[q1] >= o->btat[q2])
        return;
    emit(g, OP_RUN);
    emit(g, o->btat[q1]);
    emit(g, o->btat[q2]);
}

static int cmp_by_tie(const void *x, const void *y)
{
    const apo_item *a = x, *b = y;
    return (a->tie > b->tie) - (a->tie < b->tie);
}

static int cmp_by_y(const void *x, const void *y)
{
    const apo_item *a = x, *b = y;
    if (a->y != b->y)
        return a->y > b->y ? -1 : 1;
    return 0;
}

/* where the stand-in rows touch the order, in score order */
typedef struct {
    float v;
    int64_t tie;      /* the order's tie, or -1 for a new tie */
    uint32_t p;       /* a new tie: its boundary (position in the group) */
    size_t rem, nrem; /* into the items sorted by tie */
    size_t ins, nins; /* into the items sorted by stand-in */
} event;

static int cmp_event(const void *x, const void *y)
{
    const event *a = x, *b = y;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return (a->nins > b->nins) - (a->nins < b->nins);
}

size_t apo_scratch_size(size_t n)
{
    return (n + 1) * (sizeof(apo_item) + 2 * sizeof(event));
}

/* the events of n stand-in rows of group grp: taken out of their ties (byt,
 * unless byt is NULL) and put in at their y (byy); sorted and merged */
static size_t make_events(const apo_order *o, size_t grp, const apo_item *byt, const apo_item *byy, size_t n,
                          event *ev)
{
    size_t ne = 0, f = o->first[grp], m = o->first[grp + 1] - f;
    for (size_t i = 0; byt && i < n;) {
        size_t j = i;
        while (j < n && byt[j].tie == byt[i].tie)
            j++;
        ev[ne++] = (event){o->val[f + o->tie_s[byt[i].tie]], byt[i].tie, 0, i, j - i, 0, 0};
        i = j;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && byy[j].y == byy[i].y)
            j++;
        uint32_t t = apo_tie_at_or_below(o, grp, byy[i].y);
        int in = t < o->tie_first[grp + 1];
        int match = in && o->val[f + o->tie_s[t]] == byy[i].y;
        ev[ne++] = (event){byy[i].y, match ? (int64_t)t : -1, in ? o->tie_s[t] : (uint32_t)m, 0, 0, i, j - i};
        i = j;
    }
    qsort(ev, ne, sizeof *ev, cmp_event);
    /* a tie that loses rows and gains some: one event */
    size_t w = 0;
    for (size_t i = 0; i < ne; i++) {
        if (w > 0 && ev[w - 1].v == ev[i].v) {
            event *e = &ev[w - 1];
            if (ev[i].nrem) {
                e->rem = ev[i].rem;
                e->nrem = ev[i].nrem;
            }
            if (ev[i].nins) {
                e->ins = ev[i].ins;
                e->nins = ev[i].nins;
            }
            continue;
        }
        ev[w++] = ev[i];
    }
    return w;
}

/* the ops of the events of group grp; all_ins: the insertions are all the base's rows (OP_ALL) */
static void emit_events(apo_prog *g, const apo_order *o, size_t grp, const event *ev, size_t ne,
                        const apo_item *byt, const apo_item *byy, int all_ins)
{
    size_t q0 = o->first[grp] + grp, cur = q0;
    for (size_t e = 0; e < ne; e++) {
        const event *x = &ev[e];
        size_t qs = q0 + (x->tie >= 0 ? o->tie_s[x->tie] : x->p);
        size_t qe = x->tie >= 0 ? q0 + o->tie_e[x->tie] : qs;
        emit_run(g, o, cur, qs);
        cur = qe;
        if (all_ins) {
            emit(g, OP_ALL);
            emit(g, (uint32_t)qs);
            emit(g, (uint32_t)qe);
        } else if (x->tie >= 0 && x->nins == 0 && x->nrem == 1 && o->tie_e[x->tie] - o->tie_s[x->tie] == 1) {
            emit(g, OP_DROP);
            emit(g, byt[x->rem].code);
        } else if (x->tie < 0 && x->nins == 1) {
            emit(g, OP_NEW);
            emit(g, (uint32_t)qs);
            emit(g, byy[x->ins].code);
        } else {
            emit(g, OP_TIE);
            emit(g, (uint32_t)qs);
            emit(g, (uint32_t)qe);
            emit(g, (uint32_t)x->nrem);
            emit(g, (uint32_t)x->nins);
            for (size_t k = 0; k < x->nrem; k++)
                emit(g, byt[x->rem + k].code);
            for (size_t k = 0; k < x->nins; k++)
                emit(g, byy[x->ins + k].code);
        }
    }
    emit_run(g, o, cur, q0 + (o->first[grp + 1] - o->first[grp]));
}

void apo_seg_patch(apo_prog *g, const apo_order *o, size_t grp, apo_item *it, size_t n, void *scratch)
{
    apo_item *byy = scratch;
    event *ev = (event *)(byy + n + 1);
    memcpy(byy, it, n * sizeof *it);
    qsort(it, n, sizeof *it, cmp_by_tie);
    qsort(byy, n, sizeof *byy, cmp_by_y);
    size_t ne = make_events(o, grp, it, byy, n, ev);
    emit_events(g, o, grp, ev, ne, it, byy, 0);
}

void apo_seg_base(apo_prog *g, const apo_order *o, apo_item *it, size_t n, int all_same, void *scratch)
{
    event *ev = (event *)((apo_item *)scratch + n + 1);
    qsort(it, n, sizeof *it, cmp_by_y);
    size_t ne = make_events(o, 0, NULL, it, all_same ? (n > 0) : n, ev);
    emit_events(g, o, 0, ev, ne, NULL, it, all_same);
}

/* ------------------------------------------- one set of weights, summed */

void apo_sums_free(apo_sums *x)
{
    free(x->cumt);
    free(x->cums);
    free(x->pos);
    free(x->cd);
    free(x->ct);
    free(x->cs);
    free(x->cidx);
    free(x->lp);
    memset(x, 0, sizeof *x);
}

static void sums_reserve(apo_sums *x, const apo_order *o)
{
    if (x->cap >= o->n + o->ng + 1 && x->pos)
        return;
    size_t c = o->n + o->ng + 2;
    x->cumt = vu_xrealloc(x->cumt, c * sizeof *x->cumt);
    x->cums = vu_xrealloc(x->cums, c * sizeof *x->cums);
    x->pos = vu_xrealloc(x->pos, c * sizeof *x->pos);
    x->cd = vu_xrealloc(x->cd, c * sizeof *x->cd);
    x->ct = vu_xrealloc(x->ct, c * sizeof *x->ct);
    x->cs = vu_xrealloc(x->cs, c * sizeof *x->cs);
    x->cidx = vu_xrealloc(x->cidx, c * sizeof *x->cidx);
    x->lp = vu_xrealloc(x->lp, c * sizeof *x->lp);
    x->cap = c;
}

int apo_sums_fill(apo_sums *x, const apo_order *o, const uint16_t *w, const double *R, const unsigned char *mask)
{
    sums_reserve(x, o);
    int ok = 1;
    uint32_t m = 0;
    x->lp[0] = 0;
    for (size_t g = 0; g < o->ng; g++) {
        size_t f = o->first[g], n = o->first[g + 1] - f, q0 = f + g;
        int32_t *ct = x->cumt + q0, *cs = x->cums + q0;
        uint32_t k0 = o->btat[q0], k1 = o->btat[q0 + n];
        if (mask && !mask[g]) {
            /* not needed: no buyer tie of it has weight */
            for (uint32_t k = k0; k < k1; k++)
                x->cidx[k] = m;
            continue;
        }
        const uint32_t *code = o->code + f;
        int32_t s = 0, t = 0;
        ct[0] = cs[0] = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t cd = code[k];
            int32_t wt = w[cd >> 1];
            s += wt;
            t += wt & -(int32_t)(cd & 1);
            cs[k + 1] = s;
            ct[k + 1] = t;
        }
        x->pos[g] = t;
        ok &= t > 0;
        /* the buyer ties with weight, and the running sum of their terms:
         * where a stand-in vector's running sums are the order's, its terms are
         * these, and their sum a difference of two running sums */
        double acc = x->lp[m];
        for (uint32_t k = k0; k < k1; k++) {
            /* written always, kept when the tie has buyer weight (no branch to mispredict) */
            int32_t te = x->cumt[o->bt_qe[k]], d = te - x->cumt[o->bt_qs[k]], se = x->cums[o->bt_qe[k]];
            x->cidx[k] = m;
            x->cd[m] = d;
            x->ct[m] = te;
            x->cs[m] = se;
            acc += (double)d * te * R[se];
            m += d > 0;
            x->lp[m] = acc;
        }
    }
    x->cidx[o->nbt] = m;
    return ok;
}

double apo_live_ac(const apo_sums *x, const apo_order *o, size_t g)
{
    size_t q0 = o->first[g] + g, n = o->first[g + 1] - o->first[g];
    return x->lp[x->cidx[o->btat[q0 + n]]] - x->lp[x->cidx[o->btat[q0]]];
}

/* sum over the buyer ties k1..k2-1 (those with weight) of dtp (tp + a) / (seen + e) */
static double run_sum(const apo_sums *x, uint32_t k1, uint32_t k2, int32_t a, int32_t e, const double *R)
{
    uint32_t m = x->cidx[k1], end = x->cidx[k2];
    if (a == 0 && e == 0)
        return x->lp[end] - x->lp[m];
    const double *D = x->cd, *T = x->ct;
    const int32_t *S = x->cs;
    const double da = a;
    /* four sums: the additions do not wait for each other */
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (; m + 4 <= end; m += 4) {
        s0 += D[m] * (T[m] + da) * R[S[m] + e];
        s1 += D[m + 1] * (T[m + 1] + da) * R[S[m + 1] + e];
        s2 += D[m + 2] * (T[m + 2] + da) * R[S[m + 2] + e];
        s3 += D[m + 3] * (T[m + 3] + da) * R[S[m + 3] + e];
    }
    for (; m < end; m++)
        s0 += D[m] * (T[m] + da) * R[S[m] + e];
    return (s0 + s1) + (s2 + s3);
}

/* a tie [qs, qe) less ry, rw and plus iy, iw: its term */
static double tie_term(const apo_sums *x, uint32_t qs, uint32_t qe, int32_t a, int32_t e, int32_t dy, int32_t dw,
                       const double *R)
{
    int32_t mt = x->cumt[qe] - x->cumt[qs] + dy;
    if (mt <= 0)
        return 0;
    int32_t ms = x->cums[qe] - x->cums[qs] + dw;
    double tp = (double)x->cumt[qs] + a + mt;
    return (double)mt * tp * R[x->cums[qs] + e + ms];
}

static size_t op_words(const uint32_t *op)
{
    switch (op[0]) {
    case OP_DROP: return 2;
    case OP_RUN:
    case OP_NEW:
    case OP_ALL: return 3;
    default: return 5 + op[3] + op[4];
    }
}

size_t apo_common_prefix(const uint32_t *p, size_t np, const uint32_t *q, size_t nq)
{
    size_t i = 0;
    while (i < np && i < nq) {
        size_t k = op_words(p + i);
        if (i + k > np || i + k > nq || memcmp(p + i, q + i, k * sizeof *p))
            break;
        i += k;
    }
    return i;
}

double apo_eval(const uint32_t *op, size_t len, const uint16_t *w, const apo_sums *x, const double *R,
                const apo_state *from, size_t cp, apo_state *at)
{
    double acc = from ? from->acc : 0;
    int32_t a = from ? from->a : 0, e = from ? from->e : 0; /* the weight moved above */
    for (size_t i = 0; i < len;) {
        if (i == cp)
            *at = (apo_state){acc, a, e};
        switch (op[i]) {
        case OP_RUN:
            acc += run_sum(x, op[i + 1], op[i + 2], a, e, R);
            i += 3;
            break;
        case OP_DROP: {
            int32_t wt = w[op[i + 1] >> 1];
            a -= wt & -(int32_t)(op[i + 1] & 1);
            e -= wt;
            i += 2;
            break;
        }
        case OP_NEW: {
            /* a term only for a buyer with weight (wy 0 otherwise: no branch) */
            uint32_t qs = op[i + 1], c = op[i + 2];
            int32_t wt = w[c >> 1], wy = wt & -(int32_t)(c & 1);
            double tp = (double)x->cumt[qs] + a + wy;
            acc += (double)wy * tp * R[x->cums[qs] + e + wt];
            a += wy;
            e += wt;
            i += 3;
            break;
        }
        case OP_ALL:
            acc += tie_term(x, op[i + 1], op[i + 2], a, e, x->sy, x->sw, R);
            a += x->sy;
            e += x->sw;
            i += 3;
            break;
        default: { /* OP_TIE */
            uint32_t qs = op[i + 1], qe = op[i + 2], nrem = op[i + 3], nins = op[i + 4];
            const uint32_t *c = op + i + 5;
            int32_t rw = 0, ry = 0, iw = 0, iy = 0;
            for (uint32_t k = 0; k < nrem; k++) {
                int32_t wt = w[c[k] >> 1];
                rw += wt;
                ry += wt & -(int32_t)(c[k] & 1);
            }
            for (uint32_t k = nrem; k < nrem + nins; k++) {
                int32_t wt = w[c[k] >> 1];
                iw += wt;
                iy += wt & -(int32_t)(c[k] & 1);
            }
            acc += tie_term(x, qs, qe, a, e, iy - ry, iw - rw, R);
            a += iy - ry;
            e += iw - rw;
            i += 5 + nrem + nins;
        }
        }
    }
    if (cp == len)
        *at = (apo_state){acc, a, e};
    return acc;
}
