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
enum { OP_RUN = APO_OP_RUN, OP_TIE = APO_OP_TIE, OP_DROP = APO_OP_DROP, OP_NEW = APO_OP_NEW, OP_ALL = APO_OP_ALL };

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

/* The items sorted by tie (ascending) or by y (descending), stably: items
 * of one key keep their order, as under the merge sort qsort was here (the
 * ops, and so the order of the sums, depend on it): vutil.h's radix sort,
 * on the tie or on vu_key_desc(y).  A NaN among the y, which no order
 * holds, is left to qsort with the comparison. */
static int cmp_by_y(const void *x, const void *y)
{
    const apo_item *a = x, *b = y;
    if (a->y != b->y)
        return a->y > b->y ? -1 : 1;
    return 0;
}

static uint64_t key_tie(const void *x)
{
    return ((const apo_item *)x)->tie;
}

static uint64_t key_y(const void *x)
{
    return vu_key_desc(((const apo_item *)x)->y);
}

/* tmp: room for n items */
static void sort_items(apo_item *it, size_t n, int by_y, apo_item *tmp)
{
    _Static_assert(sizeof(apo_item) == 16, "vu_sort16 sorts 16-byte elements");
    for (size_t i = 0; by_y && i < n; i++)
        if (it[i].y != it[i].y) {
            qsort(it, n, sizeof *it, cmp_by_y);
            return;
        }
    if (by_y)
        vu_sort16(it, n, key_y, 8, tmp);
    else
        vu_sort16(it, n, key_tie, 4, tmp);
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
    sort_items(it, n, 0, (apo_item *)ev); /* the events' room, free until make_events */
    sort_items(byy, n, 1, (apo_item *)ev);
    size_t ne = make_events(o, grp, it, byy, n, ev);
    emit_events(g, o, grp, ev, ne, it, byy, 0);
}

void apo_seg_base(apo_prog *g, const apo_order *o, apo_item *it, size_t n, int all_same, void *scratch)
{
    event *ev = (event *)((apo_item *)scratch + n + 1);
    sort_items(it, n, 1, scratch);
    size_t ne = make_events(o, 0, NULL, it, all_same ? (n > 0) : n, ev);
    emit_events(g, o, 0, ev, ne, NULL, it, all_same);
}

/* ------------------------------------------- one set of weights, summed */

void apo_sums_free(apo_sums *x)
{
    free(x->cum);
    free(x->pos);
    free(x->tm);
    free(x->cidx);
    memset(x, 0, sizeof *x);
}

static void sums_reserve(apo_sums *x, const apo_order *o)
{
    if (x->cap >= o->n + o->ng + 1 && x->pos)
        return;
    size_t c = o->n + o->ng + 2;
    x->cum = vu_xrealloc(x->cum, c * sizeof *x->cum);
    x->pos = vu_xrealloc(x->pos, c * sizeof *x->pos);
    x->tm = vu_xrealloc(x->tm, c * sizeof *x->tm);
    x->cidx = vu_xrealloc(x->cidx, c * sizeof *x->cidx);
    x->cap = c;
}

int apo_sums_fill(apo_sums *x, const apo_order *o, const uint16_t *w, const double *R, const unsigned char *mask)
{
    sums_reserve(x, o);
    int ok = 1;
    uint32_t m = 0;
    x->tm[0].lp = 0;
    for (size_t g = 0; g < o->ng; g++) {
        size_t f = o->first[g], n = o->first[g + 1] - f, q0 = f + g;
        apo_cum *cu = x->cum + q0;
        uint32_t k0 = o->btat[q0], k1 = o->btat[q0 + n];
        if (mask && !mask[g]) {
            /* not needed: no buyer tie of it has weight */
            for (uint32_t k = k0; k < k1; k++)
                x->cidx[k] = m;
            continue;
        }
        const uint32_t *code = o->code + f;
        int32_t s = 0, t = 0;
        cu[0] = (apo_cum){0, 0};
        for (size_t k = 0; k < n; k++) {
            uint32_t cd = code[k];
            int32_t wt = w[cd >> 1];
            s += wt;
            t += wt & -(int32_t)(cd & 1);
            cu[k + 1] = (apo_cum){t, s};
        }
        x->pos[g] = t;
        ok &= t > 0;
        /* the buyer ties with weight, and the running sum of their terms:
         * where a stand-in vector's running sums are the order's, its terms are
         * these, and their sum a difference of two running sums */
        double acc = x->tm[m].lp;
        for (uint32_t k = k0; k < k1; k++) {
            /* written always, kept when the tie has buyer weight (no branch to mispredict) */
            apo_cum ce = x->cum[o->bt_qe[k]];
            int32_t te = ce.t, d = te - x->cum[o->bt_qs[k]].t, se = ce.s;
            x->cidx[k] = m;
            x->tm[m].d = d;
            x->tm[m].t = te;
            x->tm[m].s = se;
            acc += (double)d * te * R[se];
            m += d > 0;
            x->tm[m].lp = acc;
        }
    }
    x->cidx[o->nbt] = m;
    /* the place after the last: read (and its terms made 0) by run_sum's short runs */
    x->tm[m].d = 0;
    x->tm[m].t = 0;
    x->tm[m].s = 0;
    return ok;
}

double apo_live_ac(const apo_sums *x, const apo_order *o, size_t g)
{
    size_t q0 = o->first[g] + g, n = o->first[g + 1] - o->first[g];
    return x->tm[x->cidx[o->btat[q0 + n]]].lp - x->tm[x->cidx[o->btat[q0]]].lp;
}

/* sum over the buyer ties k1..k2-1 (those with weight) of dtp (tp + a) / (seen + e):
 * four partial sums, the ties' terms in turn to each while four remain, the
 * rest to the first, then (s0 + s1) + (s2 + s3); with no weight moved above
 * (a = e = 0) the difference of the live terms' running sums. */
/* a place's term dtp (tp + a) / (seen + e), as (double)d * ((double)t + a) * (1 / (s + e)) */
#define TERM(p) ((double)(p).d * ((double)(p).t + da) * R[(p).s + e])

static double run_sum_long(const apo_sums *x, uint32_t m, uint32_t end, int32_t a, int32_t e, const double *R)
{
    const apo_term *P = x->tm;
    const double da = a;
    /* four sums: the additions do not wait for each other */
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (; m + 4 <= end; m += 4) {
        s0 += TERM(P[m]);
        s1 += TERM(P[m + 1]);
        s2 += TERM(P[m + 2]);
        s3 += TERM(P[m + 3]);
    }
    for (; m < end; m++)
        s0 += TERM(P[m]);
    return (s0 + s1) + (s2 + s3);
}

/* the same sum.  A run of at most four terms (most of them in a flood,
 * where the stand-in rows cut the order into short runs) is computed
 * without a branch to mispredict: four terms, those beyond the run made 0
 * (read at the run's first place, or at `end` for an empty run, which
 * apo_sums_fill keeps readable, and at R[0]), and (t0 + t1) + (t2 + t3) is then exactly the four sums' result,
 * since adding 0 to a sum of non-negative terms changes no bit. */
static inline double run_sum(const apo_sums *x, uint32_t k1, uint32_t k2, int32_t a, int32_t e, const double *R)
{
    uint32_t m = x->cidx[k1], end = x->cidx[k2], n = end - m;
    int zero = (a | e) == 0;
    if (n > 4 && !zero)
        return run_sum_long(x, m, end, a, e, R);
    const apo_term *P = x->tm;
    /* every load unconditional, the choices made on values (no branch) */
    const apo_term *p0 = P + m, *p1 = P + m + (n > 1), *p2 = P + m + 2 * (n > 2), *p3 = P + m + 3 * (n > 3);
    int32_t v0 = (p0->s + e) & -(int32_t)(n > 0), v1 = (p1->s + e) & -(int32_t)(n > 1),
            v2 = (p2->s + e) & -(int32_t)(n > 2), v3 = (p3->s + e) & -(int32_t)(n > 3);
    const double da = a;
    double t0 = (double)p0->d * ((double)p0->t + da) * R[v0];
    double t1 = (double)p1->d * ((double)p1->t + da) * R[v1];
    double t2 = (double)p2->d * ((double)p2->t + da) * R[v2];
    double t3 = (double)p3->d * ((double)p3->t + da) * R[v3];
    t0 = n > 0 ? t0 : 0;
    t1 = n > 1 ? t1 : 0;
    t2 = n > 2 ? t2 : 0;
    t3 = n > 3 ? t3 : 0;
    double lpd = P[end].lp - p0->lp;
    return zero ? lpd : (t0 + t1) + (t2 + t3);
}

/* a tie [qs, qe) less ry, rw and plus iy, iw: its term */
static inline double tie_term(const apo_sums *x, uint32_t qs, uint32_t qe, int32_t a, int32_t e, int32_t dy, int32_t dw,
                              const double *R)
{
    apo_cum cs = x->cum[qs], ce = x->cum[qe];
    int32_t mt = ce.t - cs.t + dy;
    if (mt <= 0)
        return 0;
    int32_t ms = ce.s - cs.s + dw;
    double tp = (double)cs.t + a + mt;
    return (double)mt * tp * R[cs.s + e + ms];
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

/* the program for L sets of weights at once (lane l: w[l], x[l]): each op
 * read once for all of them, each lane's arithmetic exactly that of one
 * evaluation alone (the same terms summed in the same order) */
static inline __attribute__((always_inline)) void eval_lanes(const uint32_t *op, size_t len, size_t L,
                                                             const uint16_t *const *w, const apo_sums *const *x,
                                                             const double *R, const apo_state *from, size_t cp,
                                                             apo_state *at, double *out)
{
    double acc[APO_LANES] = {0};
    int32_t a[APO_LANES] = {0}, e[APO_LANES] = {0}; /* the weight moved above */
    for (size_t l = 0; l < L; l++) {
        acc[l] = from ? from[l].acc : 0;
        a[l] = from ? from[l].a : 0;
        e[l] = from ? from[l].e : 0;
    }
    for (size_t i = 0; i < len;) {
        if (i == cp)
            for (size_t l = 0; l < L; l++)
                at[l] = (apo_state){acc[l], a[l], e[l]};
        switch (op[i]) {
        case OP_RUN:
            for (size_t l = 0; l < L; l++)
                acc[l] += run_sum(x[l], op[i + 1], op[i + 2], a[l], e[l], R);
            i += 3;
            break;
        case OP_DROP: {
            uint32_t c = op[i + 1];
            int32_t by = -(int32_t)(c & 1);
            for (size_t l = 0; l < L; l++) {
                int32_t wt = w[l][c >> 1];
                a[l] -= wt & by;
                e[l] -= wt;
            }
            i += 2;
            break;
        }
        case OP_NEW: {
            /* a term only for a buyer with weight (wy 0 otherwise: no branch) */
            uint32_t qs = op[i + 1], c = op[i + 2];
            int32_t by = -(int32_t)(c & 1);
            for (size_t l = 0; l < L; l++) {
                int32_t wt = w[l][c >> 1], wy = wt & by;
                apo_cum cs = x[l]->cum[qs];
                double tp = (double)cs.t + a[l] + wy;
                acc[l] += (double)wy * tp * R[cs.s + e[l] + wt];
                a[l] += wy;
                e[l] += wt;
            }
            i += 3;
            break;
        }
        case OP_ALL:
            for (size_t l = 0; l < L; l++) {
                acc[l] += tie_term(x[l], op[i + 1], op[i + 2], a[l], e[l], x[l]->sy, x[l]->sw, R);
                a[l] += x[l]->sy;
                e[l] += x[l]->sw;
            }
            i += 3;
            break;
        default: { /* OP_TIE */
            uint32_t qs = op[i + 1], qe = op[i + 2], nrem = op[i + 3], nins = op[i + 4];
            const uint32_t *c = op + i + 5;
            int32_t rw[APO_LANES] = {0}, ry[APO_LANES] = {0}, iw[APO_LANES] = {0}, iy[APO_LANES] = {0};
            for (uint32_t k = 0; k < nrem; k++) {
                int32_t by = -(int32_t)(c[k] & 1);
                for (size_t l = 0; l < L; l++) {
                    int32_t wt = w[l][c[k] >> 1];
                    rw[l] += wt;
                    ry[l] += wt & by;
                }
            }
            for (uint32_t k = nrem; k < nrem + nins; k++) {
                int32_t by = -(int32_t)(c[k] & 1);
                for (size_t l = 0; l < L; l++) {
                    int32_t wt = w[l][c[k] >> 1];
                    iw[l] += wt;
                    iy[l] += wt & by;
                }
            }
            for (size_t l = 0; l < L; l++) {
                acc[l] += tie_term(x[l], qs, qe, a[l], e[l], iy[l] - ry[l], iw[l] - rw[l], R);
                a[l] += iy[l] - ry[l];
                e[l] += iw[l] - rw[l];
            }
            i += 5 + nrem + nins;
        }
        }
    }
    if (cp == len)
        for (size_t l = 0; l < L; l++)
            at[l] = (apo_state){acc[l], a[l], e[l]};
    for (size_t l = 0; l < L; l++)
        out[l] = acc[l];
}

void apo_eval_lanes(const uint32_t *op, size_t len, size_t L, const uint16_t *const *w, const apo_sums *const *x,
                    const double *R, const apo_state *from, size_t cp, apo_state *at, double *out)
{
    /* the common widths compiled with L a constant (the lane loops unrolled) */
#if APO_LANES > 1
    if (L == APO_LANES)
        eval_lanes(op, len, APO_LANES, w, x, R, from, cp, at, out);
    else
#endif
    if (L == 1)
        eval_lanes(op, len, 1, w, x, R, from, cp, at, out);
    else
        eval_lanes(op, len, L, w, x, R, from, cp, at, out);
}

double apo_eval(const uint32_t *op, size_t len, const uint16_t *w, const apo_sums *x, const double *R,
                const apo_state *from, size_t cp, apo_state *at)
{
    double out;
    apo_eval_lanes(op, len, 1, &w, &x, R, from, cp, at, &out);
    return out;
}
