#include "apboot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vutil.h"

/* ------------------------------------------------ the generator (1.11) */

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* splitmix64's finaliser */
static uint64_t sm_final(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void apb_rng_seed(apb_rng *r, uint64_t sigma)
{
    const uint64_t gamma = 0x9e3779b97f4a7c15ULL;
    for (uint64_t k = 0; k < 4; k++) r->s[k] = sm_final(sigma + (k + 2) * gamma);
}

uint64_t apb_rng_next(apb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* 0, or -1 when a count would not fit 16 bits (only possible beyond 65535 customers) */
static int draw_weights(uint64_t sigma, size_t B, size_t C, uint16_t *w)
{
    memset(w, 0, B * C * sizeof *w);
    apb_rng r;
    apb_rng_seed(&r, sigma);
    for (size_t b = 0; b < B; b++) {
        uint16_t *wb = w + b * C;
        for (size_t i = 0; i < C; i++) {
            uint64_t k = apb_rng_next(&r) % C;
            if (wb[k] == UINT16_MAX) return -1;
            wb[k]++;
        }
    }
    return 0;
}

void apb_weights(uint64_t sigma, size_t B, size_t C, uint16_t *w)
{
    if (draw_weights(sigma, B, C, w)) memset(w, 0, B * C * sizeof *w);
}

/* ------------------------------------------------- one seed's live order */

/* Positions: the rows of cutoff c sorted by live score descending are the
 * global positions cut_first[c] .. cut_first[c+1]-1 (local p = 0 .. n_c-1).
 * Boundaries (before a position, or the cutoff's end) are q = cut_first[c]
 * + c + p for p = 0 .. n_c: the running sums are kept at boundaries. */
typedef struct {
    uint32_t *code;      /* [n] per position: customer << 1 | label */
    float *val;          /* [n] per position: the live score */
    uint32_t *lpos;      /* [n] per row: its local position */
    uint32_t *tie_of;    /* [n] per position: its tie */
    uint32_t *tie_s, *tie_e; /* [ties]: local positions [s, e) */
    uint32_t *tie_first; /* [ncut + 1] */
    size_t nbt;          /* ties holding a buyer row */
    uint32_t *bt_qs, *bt_qe; /* [nbt]: their boundaries */
    uint32_t *btat;      /* [n + ncut] per boundary: the first buyer tie starting at or after it */
} layout;

typedef struct {
    float v;
    uint32_t row;
} vrow;

static int cmp_vrow(const void *x, const void *y)
{
    const vrow *a = x, *b = y;
    if (a->v != b->v) return a->v > b->v ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static void layout_alloc(layout *L, const apb_problem *p)
{
    size_t n = p->n + 1;
    L->code = vu_xmalloc(n * sizeof *L->code);
    L->val = vu_xmalloc(n * sizeof *L->val);
    L->lpos = vu_xmalloc(n * sizeof *L->lpos);
    L->tie_of = vu_xmalloc(n * sizeof *L->tie_of);
    L->tie_s = vu_xmalloc(n * sizeof *L->tie_s);
    L->tie_e = vu_xmalloc(n * sizeof *L->tie_e);
    L->tie_first = vu_xmalloc((p->ncut + 1) * sizeof *L->tie_first);
    L->bt_qs = vu_xmalloc(n * sizeof *L->bt_qs);
    L->bt_qe = vu_xmalloc(n * sizeof *L->bt_qe);
    L->btat = vu_xmalloc((n + p->ncut) * sizeof *L->btat);
}

static void layout_free(layout *L)
{
    free(L->code);
    free(L->val);
    free(L->lpos);
    free(L->tie_of);
    free(L->tie_s);
    free(L->tie_e);
    free(L->tie_first);
    free(L->bt_qs);
    free(L->bt_qe);
    free(L->btat);
}

/* sort each cutoff's rows by live score, find the ties and the buyer ties */
static void layout_build(layout *L, const apb_problem *p, const float *live, vrow *tmp)
{
    size_t nt = 0;
    L->nbt = 0;
    for (size_t c = 0; c < p->ncut; c++) {
        size_t f = p->cut_first[c], m = p->cut_first[c + 1] - f;
        for (size_t k = 0; k < m; k++) {
            uint32_t i = (uint32_t)p->byrow[f + k];
            tmp[k].v = live[i];
            tmp[k].row = i;
        }
        qsort(tmp, m, sizeof *tmp, cmp_vrow);
        L->tie_first[c] = (uint32_t)nt;
        size_t q0 = f + c;
        int buyer = 0;
        for (size_t k = 0; k < m; k++) {
            uint32_t i = tmp[k].row;
            L->code[f + k] = p->cust[i] << 1 | (p->label[i] ? 1u : 0u);
            L->val[f + k] = tmp[k].v;
            L->lpos[i] = (uint32_t)k;
            if (k == 0 || tmp[k].v != tmp[k - 1].v) {
                /* a new tie: close the previous one */
                if (k > 0 && buyer) {
                    L->bt_qs[L->nbt] = (uint32_t)(q0 + L->tie_s[nt - 1]);
                    L->bt_qe[L->nbt++] = (uint32_t)(q0 + k);
                }
                L->tie_s[nt] = (uint32_t)k;
                nt++;
                buyer = 0;
            }
            L->tie_e[nt - 1] = (uint32_t)k + 1;
            L->tie_of[f + k] = (uint32_t)nt - 1;
            buyer |= p->label[i] != 0;
        }
        if (m > 0 && buyer) {
            L->bt_qs[L->nbt] = (uint32_t)(q0 + L->tie_s[nt - 1]);
            L->bt_qe[L->nbt++] = (uint32_t)(q0 + m);
        }
    }
    L->tie_first[p->ncut] = (uint32_t)nt;
    /* btat: per boundary, the buyer ties (in cutoff and score order) that start before it */
    size_t k = 0;
    for (size_t c = 0; c < p->ncut; c++) {
        size_t f = p->cut_first[c], m = p->cut_first[c + 1] - f, q0 = f + c;
        for (size_t pp = 0; pp <= m; pp++) {
            while (k < L->nbt && L->bt_qs[k] < q0 + pp) k++;
            L->btat[q0 + pp] = (uint32_t)k;
        }
    }
}

/* ------------------------------------------------------- the programs */

/* A stand-in vector's AP as a program over the live order, one cutoff
 * after another:
 *   RUN k1 k2            the buyer ties k1..k2-1 of the live order, untouched
 *   TIE qs qe nr ni c... the tie at boundaries [qs, qe) (qs == qe: a new
 *                        tie): the live rows there less the nr stand-in rows
 *                        taken out, plus the ni put in (codes cust << 1 | label)
 *   DROP c               a stand-in row that was alone in its live tie, taken
 *                        out (a TIE without a term: the common case, made cheap)
 *   NEW qs c             one stand-in row put in as a new tie at boundary qs
 *   END c                cutoff c is done */
enum { OP_RUN, OP_TIE, OP_DROP, OP_NEW, OP_END };

typedef struct {
    uint32_t *op;
    size_t n, cap;
} prog;

static void emit(prog *g, uint32_t x)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        g->op = vu_xrealloc(g->op, g->cap * sizeof *g->op);
    }
    g->op[g->n++] = x;
}

typedef struct {
    uint32_t c, tie, code;
    float y; /* the stand-in */
} sitem;

static int cmp_by_tie(const void *x, const void *y)
{
    const sitem *a = x, *b = y;
    if (a->c != b->c) return a->c < b->c ? -1 : 1;
    return (a->tie > b->tie) - (a->tie < b->tie);
}

static int cmp_by_y(const void *x, const void *y)
{
    const sitem *a = x, *b = y;
    if (a->c != b->c) return a->c < b->c ? -1 : 1;
    if (a->y != b->y) return a->y > b->y ? -1 : 1;
    return 0;
}

/* where the stand-in rows of one cutoff touch the live order, in score order */
typedef struct {
    uint32_t c;
    float v;
    int64_t tie;      /* the live tie, or -1 for a new tie */
    uint32_t p;       /* a new tie: its boundary (local position) */
    size_t rem, nrem; /* into the items sorted by tie */
    size_t ins, nins; /* into the items sorted by stand-in */
} event;

static int cmp_event(const void *x, const void *y)
{
    const event *a = x, *b = y;
    if (a->c != b->c) return a->c < b->c ? -1 : 1;
    if (a->v != b->v) return a->v > b->v ? -1 : 1;
    return (a->nins > b->nins) - (a->nins < b->nins);
}

/* the first tie of cutoff c whose score is <= y */
static uint32_t tie_at_or_below(const layout *L, const apb_problem *p, uint32_t c, float y)
{
    uint32_t lo = L->tie_first[c], hi = L->tie_first[c + 1];
    size_t f = p->cut_first[c];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (L->val[f + L->tie_s[mid]] > y) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* the events of the stand-in rows in items (n of them, sorted by tie in
 * byt and by stand-in in byy); returns their number in ev (sorted, merged) */
static size_t make_events(const layout *L, const apb_problem *p, const sitem *byt, const sitem *byy, size_t n,
                          event *ev)
{
    size_t ne = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && byt[j].c == byt[i].c && byt[j].tie == byt[i].tie) j++;
        uint32_t c = byt[i].c;
        ev[ne++] = (event){c, L->val[p->cut_first[c] + L->tie_s[byt[i].tie]], byt[i].tie, 0, i, j - i, 0, 0};
        i = j;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && byy[j].c == byy[i].c && byy[j].y == byy[i].y) j++;
        uint32_t c = byy[i].c;
        uint32_t t = tie_at_or_below(L, p, c, byy[i].y);
        size_t f = p->cut_first[c], m = p->cut_first[c + 1] - f;
        int match = t < L->tie_first[c + 1] && L->val[f + L->tie_s[t]] == byy[i].y;
        ev[ne++] = (event){c, byy[i].y, match ? (int64_t)t : -1,
                           t < L->tie_first[c + 1] ? L->tie_s[t] : (uint32_t)m, 0, 0, i, j - i};
        i = j;
    }
    qsort(ev, ne, sizeof *ev, cmp_event);
    /* a live tie that loses rows and gains some: one event */
    size_t w = 0;
    for (size_t i = 0; i < ne; i++) {
        if (w > 0 && ev[w - 1].c == ev[i].c && ev[w - 1].v == ev[i].v) {
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

static void emit_run(prog *g, const layout *L, size_t q1, size_t q2)
{
    if (L->btat[q1] >= L->btat[q2]) return;
    emit(g, OP_RUN);
    emit(g, L->btat[q1]);
    emit(g, L->btat[q2]);
}

/* the program of the vector whose rows[] carry stand-ins y(row) (NULL: the live vector) */
static void build_prog(prog *g, const layout *L, const apb_problem *p, const uint32_t *rowcut, const size_t *rows,
                       size_t n, const float *y, float ycommon, sitem *byt, sitem *byy, event *ev)
{
    for (size_t k = 0; k < n; k++) {
        size_t i = rows[k];
        uint32_t c = rowcut[i];
        byt[k] = (sitem){c, L->tie_of[p->cut_first[c] + L->lpos[i]], p->cust[i] << 1 | (p->label[i] ? 1u : 0u),
                         y ? y[i] : ycommon};
    }
    memcpy(byy, byt, n * sizeof *byt);
    qsort(byt, n, sizeof *byt, cmp_by_tie);
    qsort(byy, n, sizeof *byy, cmp_by_y);
    size_t ne = n ? make_events(L, p, byt, byy, n, ev) : 0, e = 0;
    for (uint32_t c = 0; c < p->ncut; c++) {
        size_t q0 = p->cut_first[c] + c, cur = q0;
        for (; e < ne && ev[e].c == c; e++) {
            const event *x = &ev[e];
            size_t qs = q0 + (x->tie >= 0 ? L->tie_s[x->tie] : x->p);
            size_t qe = x->tie >= 0 ? q0 + L->tie_e[x->tie] : qs;
            emit_run(g, L, cur, qs);
            cur = qe;
            if (x->tie >= 0 && x->nins == 0 && x->nrem == 1 && L->tie_e[x->tie] - L->tie_s[x->tie] == 1) {
                emit(g, OP_DROP);
                emit(g, byt[x->rem].code);
                continue;
            }
            if (x->tie < 0 && x->nins == 1) {
                emit(g, OP_NEW);
                emit(g, (uint32_t)qs);
                emit(g, byy[x->ins].code);
                continue;
            }
            emit(g, OP_TIE);
            emit(g, (uint32_t)qs);
            emit(g, (uint32_t)qe);
            emit(g, (uint32_t)x->nrem);
            emit(g, (uint32_t)x->nins);
            for (size_t k = 0; k < x->nrem; k++) emit(g, byt[x->rem + k].code);
            for (size_t k = 0; k < x->nins; k++) emit(g, byy[x->ins + k].code);
        }
        emit_run(g, L, cur, q0 + (p->cut_first[c + 1] - p->cut_first[c]));
        emit(g, OP_END);
        emit(g, c);
    }
}

/* ------------------------------------------- one set of weights, summed */

typedef struct {
    int32_t *cumt, *cums; /* [n + ncut] per boundary: buyers' and all rows' weight before it */
    int32_t *pos;         /* [ncut] the cutoff's buyer weight */
    double *cd, *ct;      /* [nbt] the buyer ties with weight: the tie's buyer weight, the running one */
    int32_t *cs;          /* [nbt] the running weight of all rows */
    uint32_t *cidx;       /* [nbt + 1] buyer tie -> its place among those with weight */
    double *lp;           /* [nbt + 1] the live terms summed before each place (all cutoffs) */
} sums;

static void sums_alloc(sums *x, const apb_problem *p)
{
    size_t nq = p->n + p->ncut + 1;
    x->cumt = vu_xmalloc(nq * sizeof *x->cumt);
    x->cums = vu_xmalloc(nq * sizeof *x->cums);
    x->pos = vu_xmalloc((p->ncut + 1) * sizeof *x->pos);
    x->cd = vu_xmalloc((p->n + 1) * sizeof *x->cd);
    x->ct = vu_xmalloc((p->n + 1) * sizeof *x->ct);
    x->cs = vu_xmalloc((p->n + 1) * sizeof *x->cs);
    x->cidx = vu_xmalloc((p->n + 2) * sizeof *x->cidx);
    x->lp = vu_xmalloc((p->n + 2) * sizeof *x->lp);
}

static void sums_free(sums *x)
{
    free(x->cumt);
    free(x->cums);
    free(x->pos);
    free(x->cd);
    free(x->ct);
    free(x->cs);
    free(x->cidx);
    free(x->lp);
}

/* the running sums of the live order under weights w; 0 when some cutoff
 * has no buyer weight.  R: the reciprocals, for the live terms' sums */
static int sums_fill(sums *x, const layout *L, const apb_problem *p, const uint16_t *w, const double *R)
{
    int ok = 1;
    for (size_t c = 0; c < p->ncut; c++) {
        size_t f = p->cut_first[c], m = p->cut_first[c + 1] - f, q0 = f + c;
        const uint32_t *code = L->code + f;
        int32_t *ct = x->cumt + q0, *cs = x->cums + q0;
        int32_t s = 0, t = 0;
        ct[0] = cs[0] = 0;
        for (size_t k = 0; k < m; k++) {
            uint32_t cd = code[k];
            int32_t wt = w[cd >> 1];
            s += wt;
            t += wt & -(int32_t)(cd & 1);
            cs[k + 1] = s;
            ct[k + 1] = t;
        }
        x->pos[c] = t;
        ok &= t > 0;
    }
    uint32_t m = 0;
    for (size_t k = 0; k < L->nbt; k++) {
        int32_t d = x->cumt[L->bt_qe[k]] - x->cumt[L->bt_qs[k]];
        x->cidx[k] = m;
        if (d > 0) {
            x->cd[m] = d;
            x->ct[m] = x->cumt[L->bt_qe[k]];
            x->cs[m] = x->cums[L->bt_qe[k]];
            m++;
        }
    }
    x->cidx[L->nbt] = m;
    /* where a stand-in vector's running sums equal the live ones, its terms
     * are the live terms: their sum is a difference of these */
    double acc = 0;
    for (uint32_t k = 0; k < m; k++) {
        x->lp[k] = acc;
        acc += x->cd[k] * x->ct[k] * R[x->cs[k]];
    }
    x->lp[m] = acc;
    return ok;
}

/* sum over the buyer ties k1..k2-1 (those with weight) of dtp (tp + a) / (seen + e) */
static double run_sum(const sums *x, uint32_t k1, uint32_t k2, int32_t a, int32_t e, const double *R)
{
    uint32_t m = x->cidx[k1], end = x->cidx[k2];
    if (a == 0 && e == 0) return x->lp[end] - x->lp[m];
    const double *D = x->cd, *T = x->ct;
    const int32_t *S = x->cs;
    const double da = a;
    double s0 = 0, s1 = 0;
    for (; m + 2 <= end; m += 2) {
        s0 += D[m] * (T[m] + da) * R[S[m] + e];
        s1 += D[m + 1] * (T[m + 1] + da) * R[S[m + 1] + e];
    }
    if (m < end) s0 += D[m] * (T[m] + da) * R[S[m] + e];
    return s0 + s1;
}

/* a program's AP under the weights behind x */
static double eval_prog(const uint32_t *op, size_t len, const uint16_t *w, const sums *x, const double *R, size_t ncut)
{
    double total = 0, acc = 0;
    int32_t a = 0, e = 0; /* the stand-in rows' weight moved above, buyers' and all */
    for (size_t i = 0; i < len;) {
        if (op[i] == OP_RUN) {
            acc += run_sum(x, op[i + 1], op[i + 2], a, e, R);
            i += 3;
        } else if (op[i] == OP_TIE) {
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
            int32_t mt = x->cumt[qe] - x->cumt[qs] - ry + iy;
            if (mt > 0) {
                int32_t ms = x->cums[qe] - x->cums[qs] - rw + iw;
                double tp = (double)x->cumt[qs] + a + mt;
                acc += (double)mt * tp * R[x->cums[qs] + e + ms];
            }
            a += iy - ry;
            e += iw - rw;
            i += 5 + nrem + nins;
        } else if (op[i] == OP_DROP) {
            int32_t wt = w[op[i + 1] >> 1];
            a -= wt & -(int32_t)(op[i + 1] & 1);
            e -= wt;
            i += 2;
        } else if (op[i] == OP_NEW) {
            uint32_t qs = op[i + 1], c = op[i + 2];
            int32_t wt = w[c >> 1];
            if (wt && (c & 1)) {
                double tp = (double)x->cumt[qs] + a + wt;
                acc += (double)wt * tp * R[x->cums[qs] + e + wt];
                a += wt;
            }
            e += wt;
            i += 3;
        } else {
            total += acc / x->pos[op[i + 1]];
            acc = 0;
            a = e = 0;
            i += 2;
        }
    }
    return total / (double)ncut;
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
    uint32_t *cnt = vu_xcalloc(p->C + 1, sizeof *cnt);
    *mult = 1;
    for (size_t c = 0; c < p->ncut; c++) {
        for (size_t k = p->cut_first[c]; k < p->cut_first[c + 1]; k++)
            if (++cnt[p->cust[p->byrow[k]]] > *mult) *mult = cnt[p->cust[p->byrow[k]]];
        for (size_t k = p->cut_first[c]; k < p->cut_first[c + 1]; k++) cnt[p->cust[p->byrow[k]]] = 0;
    }
    free(cnt);
    return 0;
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
                if (p->label[i]) pos += w[p->cust[i]];
            }
            drop = pos == 0;
        }
        dropped[b] = (unsigned char)drop;
        used += !drop;
    }
    return used;
}

/* the per-seed work: the live order, the programs of every vector */
typedef struct {
    layout L;
    sums x;
    prog g;
    size_t *off, *len; /* [nr * kinds + 1]: the programs; the last is the live vector's */
    uint32_t *rowcut;
    vrow *tmp;
    sitem *byt, *byy;
    event *ev;
    double *R;
    uint16_t *ones;
    double *racc; /* [A * kinds] */
} work;

static void build_seed(work *w, const apb_problem *p, size_t s)
{
    layout_build(&w->L, p, p->live[s], w->tmp);
    w->g.n = 0;
    size_t nv = p->nr * APB_NKINDS;
    for (size_t r = 0; r < p->nr; r++) {
        for (int k = 0; k < APB_NKINDS; k++) {
            size_t v = r * APB_NKINDS + (size_t)k;
            w->off[v] = w->g.n;
            if (p->nsrows[r] > 0)
                build_prog(&w->g, &w->L, p, w->rowcut, p->srows[r], p->nsrows[r], k == 0 ? p->lastk[s] : NULL,
                           k == 1 ? p->d : -INFINITY, w->byt, w->byy, w->ev);
            w->len[v] = w->g.n - w->off[v];
        }
    }
    w->off[nv] = w->g.n;
    build_prog(&w->g, &w->L, p, w->rowcut, NULL, 0, NULL, 0, w->byt, w->byy, w->ev);
    w->len[nv] = w->g.n - w->off[nv];
}

static void work_init(work *w, const apb_problem *p, size_t mult)
{
    memset(w, 0, sizeof *w);
    layout_alloc(&w->L, p);
    sums_alloc(&w->x, p);
    size_t nv = p->nr * APB_NKINDS + 1;
    w->off = vu_xmalloc(nv * sizeof *w->off);
    w->len = vu_xmalloc(nv * sizeof *w->len);
    w->rowcut = vu_xmalloc((p->n + 1) * sizeof *w->rowcut);
    for (size_t c = 0; c < p->ncut; c++)
        for (size_t k = p->cut_first[c]; k < p->cut_first[c + 1]; k++) w->rowcut[p->byrow[k]] = (uint32_t)c;
    w->tmp = vu_xmalloc((p->n + 1) * sizeof *w->tmp);
    size_t maxs = 1;
    for (size_t r = 0; r < p->nr; r++)
        if (p->nsrows[r] > maxs) maxs = p->nsrows[r];
    w->byt = vu_xmalloc(maxs * sizeof *w->byt);
    w->byy = vu_xmalloc(maxs * sizeof *w->byy);
    w->ev = vu_xmalloc(2 * maxs * sizeof *w->ev);
    /* the reciprocals of every running weight: at most mult rows of a customer
     * in a cutoff, the weights summing to C (or all 1) */
    size_t nR = mult * (p->C > p->n ? p->C : p->n) + 2;
    w->R = vu_xmalloc(nR * sizeof *w->R);
    w->R[0] = 0;
    for (size_t k = 1; k < nR; k++) w->R[k] = 1.0 / (double)k;
    w->ones = vu_xmalloc((p->C + 1) * sizeof *w->ones);
    for (size_t k = 0; k <= p->C; k++) w->ones[k] = 1;
    w->racc = vu_xmalloc((p->A * APB_NKINDS + 1) * sizeof *w->racc);
}

static void work_free(work *w)
{
    layout_free(&w->L);
    sums_free(&w->x);
    free(w->g.op);
    free(w->off);
    free(w->len);
    free(w->rowcut);
    free(w->tmp);
    free(w->byt);
    free(w->byy);
    free(w->ev);
    free(w->R);
    free(w->ones);
    free(w->racc);
}

static double eval_v(const work *w, size_t v, const uint16_t *wt, const apb_problem *p)
{
    return eval_prog(w->g.op + w->off[v], w->len[v], wt, &w->x, w->R, p->ncut);
}

/* seed s with every weight 1: L[s] and A[s][r][kind] */
static void point_values(work *w, const apb_problem *p, size_t s, apb_result *out)
{
    size_t nv = p->nr * APB_NKINDS;
    int ok = sums_fill(&w->x, &w->L, p, w->ones, w->R);
    double L = ok ? eval_v(w, nv, w->ones, p) : NAN;
    out->L[s] = L;
    for (size_t r = 0; r < p->nr; r++)
        for (size_t k = 0; k < APB_NKINDS; k++) {
            size_t v = r * APB_NKINDS + k;
            out->Ap[s * nv + v] = ok && p->nsrows[r] ? eval_v(w, v, w->ones, p) : L;
        }
}

/* seed s's part of every kept resample's change: dacc += (1/R_a) sum_r (AP_b(v) - AP_b(live)) */
static void resample_values(work *w, const apb_problem *p, const uint16_t *W, const apb_result *out, double *dacc)
{
    size_t nv = p->nr * APB_NKINDS, na = p->A * APB_NKINDS;
    for (size_t b = 0; b < p->B; b++) {
        if (out->dropped[b]) continue;
        const uint16_t *wb = W + b * p->C;
        sums_fill(&w->x, &w->L, p, wb, w->R);
        double lb = eval_v(w, nv, wb, p);
        memset(w->racc, 0, na * sizeof *w->racc);
        for (size_t r = 0; r < p->nr; r++) {
            if (!p->nsrows[r]) continue;
            for (size_t k = 0; k < APB_NKINDS; k++)
                w->racc[p->round_arm[r] * APB_NKINDS + k] += eval_v(w, r * APB_NKINDS + k, wb, p) - lb;
        }
        for (size_t a = 0; a < p->A; a++)
            for (size_t k = 0; k < APB_NKINDS; k++)
                dacc[(a * APB_NKINDS + k) * p->B + b] += w->racc[a * APB_NKINDS + k] / (double)p->R[a];
    }
}

int apb_compute(const apb_problem *p, apb_result *out, char *err, size_t errlen)
{
    clock_t t0 = clock();
    memset(out, 0, sizeof *out);
    size_t mult;
    if (check_problem(p, &mult, err, errlen)) return -1;
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
    for (size_t r = 0; r < p->nr; r++) out->vectors += p->nsrows[r] ? APB_NKINDS : 0;
    work w;
    work_init(&w, p, mult);
    for (size_t s = 0; s < p->S; s++) {
        build_seed(&w, p, s);
        point_values(&w, p, s, out);
        if (s < p->K && W) resample_values(&w, p, W, out, out->dstar);
    }
    work_free(&w);
    free(W);
    for (size_t i = 0; i < p->A * APB_NKINDS; i++)
        for (size_t b = 0; b < p->B; b++) {
            double *x = &out->dstar[i * p->B + b];
            *x = out->dropped[b] || p->K == 0 ? NAN : *x / (double)p->K;
        }
    out->seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    return 0;
}
