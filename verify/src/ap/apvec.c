/* apvec: aporder.h's programs evaluated for APV_W resamples at once, one SIMD lane each; see apvec.h. */
#include "apvec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vectors passed between the always-inline helpers only (no ABI crossed) */
#pragma GCC diagnostic ignored "-Wpsabi"

#define W APV_W
typedef int32_t vi __attribute__((vector_size(4 * W), aligned(4)));
typedef uint64_t vq __attribute__((vector_size(4 * W), aligned(4)));
typedef int64_t vl __attribute__((vector_size(8 * W), aligned(8)));
typedef double vd __attribute__((vector_size(8 * W), aligned(8)));

#define AI static inline __attribute__((always_inline))
#define CVT(x) __builtin_convertvector((x), vd)
#define LDI(p) (*(const vi *)(p))
#define LDD(p) (*(const vd *)(p))
#define STI(p, x) (*(vi *)(p) = (x))
#define STD(p, x) (*(vd *)(p) = (x))
/* per lane: x where the int mask m is -1, y where it is 0 (bits, not arithmetic) */
#define SEL(m, x, y)                                                                                                   \
    ((vd)(((vl)(x) & __builtin_convertvector((m), vl)) | ((vl)(y) & ~__builtin_convertvector((m), vl))))

void *apv_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64)) {
        fprintf(stderr, "verify: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

void apv_sums_free(apv_sums *x)
{
    free(x->cum);
    free(x->bt);
    free(x->lp);
    memset(x, 0, sizeof *x);
}

static void sums_reserve(apv_sums *x, const apo_order *o)
{
    size_t nq = o->n + o->ng + 1, nk = o->nbt + 1;
    if (x->capq < nq) {
        free(x->cum);
        x->cum = apv_alloc(nq * 2 * W * sizeof *x->cum);
        x->capq = nq;
    }
    if (x->capk < nk) {
        free(x->bt);
        free(x->lp);
        x->bt = apv_alloc(nk * 3 * W * sizeof *x->bt);
        x->lp = apv_alloc(nk * W * sizeof *x->lp);
        x->capk = nk;
    }
}

/* the term d * t / s with the divisor made 1 where it is 0 (there d = 0: an exact 0) */
AI vd term(vi d, vi t, vi s)
{
    s -= s == 0;
    return CVT(d) * CVT(t) / CVT(s);
}

/* the same in doubles (every value an integer, exact): d * t / s, s made 1 where it is 0 */
AI vd termd(vd d, vd t, vd s)
{
    const vd one = (vd){0} + 1.0;
    s += (vd)((vl)(s == 0.0) & (vl)one);
    return d * t / s;
}

/* the buyer ties of group g from its running weights x->cum (filled):
 * d, t, s of each, the running sum of their terms, the group's buyer weight */
AI void ties_body(apv_sums *x, const apo_order *o, size_t g)
{
    size_t f = o->first[g], n = o->first[g + 1] - f, q0 = f + g;
    STI(x->pos, LDI(x->cum + (q0 + n) * 2 * W));
    uint32_t k0 = o->btat[q0], k1 = o->btat[q0 + n];
    vd acc = {0};
    for (uint32_t k = k0; k < k1; k++) {
        const int32_t *ce = x->cum + (size_t)o->bt_qe[k] * 2 * W, *cs = x->cum + (size_t)o->bt_qs[k] * 2 * W;
        vi te = LDI(ce), se = LDI(ce + W), d = te - LDI(cs);
        double *b = x->bt + (size_t)k * 3 * W;
        STD(b, CVT(d));
        STD(b + W, CVT(te));
        STD(b + 2 * W, CVT(se));
        STD(x->lp + (size_t)k * W, acc);
        acc += term(d, te, se);
    }
    STD(x->lp + (size_t)k1 * W, acc);
    STD(x->live, acc);
}

AI void fill_body(apv_sums *x, const apo_order *o, size_t g, const int32_t *wt)
{
    size_t f = o->first[g], n = o->first[g + 1] - f, q0 = f + g;
    int32_t *cum = x->cum + q0 * 2 * W;
    const uint32_t *code = o->code + f;
    vi s = {0}, t = {0};
    STI(cum, t);
    STI(cum + W, s);
    for (size_t k = 0; k < n; k++) {
        uint32_t cd = code[k];
        vi w = LDI(wt + (size_t)(cd >> 1) * W);
        s += w;
        t += w & -(int32_t)(cd & 1);
        STI(cum + (k + 1) * 2 * W, t);
        STI(cum + (k + 1) * 2 * W + W, s);
    }
    ties_body(x, o, g);
}

/* a base's sums (fill_body), and its left-out rows' weight and buyer
 * weight: what the live group's totals hold beyond the base's (integer
 * sums: the very values a sum over the left-out rows gives) */
AI void fill_base_body(apv_sums *x, const apo_order *b, const apv_sums *lv, const apo_order *lo, size_t g,
                       const int32_t *wt)
{
    fill_body(x, b, 0, wt);
    const int32_t *le = lv->cum + (lo->first[g + 1] + g) * 2 * W, *be = x->cum + b->n * 2 * W;
    STI(x->sy, LDI(le) - LDI(be));
    STI(x->sw, LDI(le + W) - LDI(be + W));
}

AI int all_zero(vi x)
{
    vq q = (vq)x;
    uint64_t o = 0;
    for (int i = 0; i < W / 2; i++)
        o |= q[i];
    return o == 0;
}

/* a tie [qs, qe) of the order, its buyer weight changed by dy and its weight by dw */
AI void tie(const apv_sums *x, uint32_t qs, uint32_t qe, vi dy, vi dw, vd *acc, vi *a, vi *e)
{
    const int32_t *cs = x->cum + (size_t)qs * 2 * W, *ce = x->cum + (size_t)qe * 2 * W;
    vi cst = LDI(cs), css = LDI(cs + W);
    vi mt = LDI(ce) - cst + dy, ms = LDI(ce + W) - css + dw;
    vi m = mt > 0, den = ((css + *e + ms) & m) | (1 & ~m);
    vd zero = {0};
    *acc += SEL(m, CVT(mt) * CVT(cst + *a + mt) / CVT(den), zero);
    *a += dy;
    *e += dw;
}

AI void eval_body(const uint32_t *op, size_t len, const int32_t *wt, const apv_sums *x, const apv_state *from,
                  size_t cp, apv_state *at, double *out)
{
    vd acc = {0};
    vi a = {0}, e = {0}; /* the weight moved above: buyers', all */
    if (from) {
        acc = LDD(from->acc);
        a = LDI(from->a);
        e = LDI(from->e);
    }
    for (size_t i = 0; i < len;) {
        if (i == cp) {
            STD(at->acc, acc);
            STI(at->a, a);
            STI(at->e, e);
        }
        switch (op[i]) {
        case APO_OP_RUN: {
            uint32_t k1 = op[i + 1], k2 = op[i + 2];
            vi z = (a | e) == 0;
            vd lpd = LDD(x->lp + (size_t)k2 * W) - LDD(x->lp + (size_t)k1 * W);
            if (all_zero(a | e)) {
                acc += lpd;
            } else {
                vd s = {0}, ad = CVT(a), ed = CVT(e);
                for (uint32_t k = k1; k < k2; k++) {
                    const double *b = x->bt + (size_t)k * 3 * W;
                    s += termd(LDD(b), LDD(b + W) + ad, LDD(b + 2 * W) + ed);
                }
                acc += SEL(z, lpd, s);
            }
            i += 3;
            break;
        }
        case APO_OP_DROP: {
            uint32_t c = op[i + 1];
            vi w = LDI(wt + (size_t)(c >> 1) * W);
            a -= w & -(int32_t)(c & 1);
            e -= w;
            i += 2;
            break;
        }
        case APO_OP_NEW: {
            /* a term only for a buyer with weight (wy 0 otherwise: an exact 0) */
            uint32_t qs = op[i + 1], c = op[i + 2];
            vi w = LDI(wt + (size_t)(c >> 1) * W), wy = w & -(int32_t)(c & 1);
            const int32_t *cs = x->cum + (size_t)qs * 2 * W;
            acc += term(wy, LDI(cs) + a + wy, LDI(cs + W) + e + w);
            a += wy;
            e += w;
            i += 3;
            break;
        }
        case APO_OP_ALL:
            tie(x, op[i + 1], op[i + 2], LDI(x->sy), LDI(x->sw), &acc, &a, &e);
            i += 3;
            break;
        default: { /* APO_OP_TIE */
            uint32_t qs = op[i + 1], qe = op[i + 2], nrem = op[i + 3], nins = op[i + 4];
            const uint32_t *c = op + i + 5;
            vi dy = {0}, dw = {0};
            for (uint32_t k = 0; k < nrem; k++) {
                vi w = LDI(wt + (size_t)(c[k] >> 1) * W);
                dw -= w;
                dy -= w & -(int32_t)(c[k] & 1);
            }
            for (uint32_t k = nrem; k < nrem + nins; k++) {
                vi w = LDI(wt + (size_t)(c[k] >> 1) * W);
                dw += w;
                dy += w & -(int32_t)(c[k] & 1);
            }
            tie(x, qs, qe, dy, dw, &acc, &a, &e);
            i += 5 + nrem + nins;
        }
        }
    }
    if (cp == len) {
        STD(at->acc, acc);
        STI(at->a, a);
        STI(at->e, e);
    }
    STD(out, acc);
}

/* ------------------------------------------------- one body, three builds */

typedef void (*fill_fn)(apv_sums *, const apo_order *, size_t, const int32_t *);
typedef void (*eval_fn)(const uint32_t *, size_t, const int32_t *, const apv_sums *, const apv_state *, size_t,
                        apv_state *, double *);

#define INSTANCE(name, attr)                                                                                           \
    static attr void fill_##name(apv_sums *x, const apo_order *o, size_t g, const int32_t *wt)                         \
    {                                                                                                                  \
        fill_body(x, o, g, wt);                                                                                        \
    }                                                                                                                  \
    static attr void eval_##name(const uint32_t *op, size_t len, const int32_t *wt, const apv_sums *x,                 \
                                 const apv_state *from, size_t cp, apv_state *at, double *out)                         \
    {                                                                                                                  \
        eval_body(op, len, wt, x, from, cp, at, out);                                                                  \
    }                                                                                                                  \
    static attr void fill_base_##name(apv_sums *x, const apo_order *b, const apv_sums *lv, const apo_order *lo,       \
                                      size_t g, const int32_t *wt)                                                     \
    {                                                                                                                  \
        fill_base_body(x, b, lv, lo, g, wt);                                                                           \
    }

INSTANCE(generic, )
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define APV_X86 1
INSTANCE(avx2, __attribute__((target("avx2"))))
INSTANCE(avx512, __attribute__((target("avx512f"))))
#endif

static int cpu_has(int path)
{
    switch (path) {
    case APV_GENERIC: return 1;
#ifdef APV_X86
    case APV_AVX2: __builtin_cpu_init(); return __builtin_cpu_supports("avx2");
    case APV_AVX512: __builtin_cpu_init(); return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2");
#endif
    default: return 0;
    }
}

static int forced = APV_AUTO;

int apv_set_path(int path)
{
    if (path != APV_AUTO && !cpu_has(path))
        return -1;
    forced = path;
    return 0;
}

int apv_path(void)
{
    if (forced != APV_AUTO)
        return forced;
    /* the CPU's best, found once (threads that race store the same value) */
    static int best;
    int b = __atomic_load_n(&best, __ATOMIC_RELAXED);
    if (!b) {
        b = cpu_has(APV_AVX512) ? APV_AVX512 : cpu_has(APV_AVX2) ? APV_AVX2 : APV_GENERIC;
        __atomic_store_n(&best, b, __ATOMIC_RELAXED);
    }
    return b;
}

const char *apv_path_name(int path)
{
    switch (path) {
    case APV_GENERIC: return "generic";
    case APV_AVX2: return "avx2";
    case APV_AVX512: return "avx512f";
    default: return "auto";
    }
}

void apv_fill(apv_sums *x, const apo_order *o, size_t g, const int32_t *wt)
{
    sums_reserve(x, o);
    switch (apv_path()) {
#ifdef APV_X86
    case APV_AVX512: fill_avx512(x, o, g, wt); break;
    case APV_AVX2: fill_avx2(x, o, g, wt); break;
#endif
    default: fill_generic(x, o, g, wt);
    }
}

void apv_eval(const uint32_t *op, size_t len, const int32_t *wt, const apv_sums *x, const apv_state *from, size_t cp,
              apv_state *at, double *out)
{
    switch (apv_path()) {
#ifdef APV_X86
    case APV_AVX512: eval_avx512(op, len, wt, x, from, cp, at, out); break;
    case APV_AVX2: eval_avx2(op, len, wt, x, from, cp, at, out); break;
#endif
    default: eval_generic(op, len, wt, x, from, cp, at, out);
    }
}

void apv_fill_base(apv_sums *x, const apo_order *b, const apv_sums *lv, const apo_order *lo, size_t g,
                   const int32_t *wt)
{
    sums_reserve(x, b);
    switch (apv_path()) {
#ifdef APV_X86
    case APV_AVX512: fill_base_avx512(x, b, lv, lo, g, wt); break;
    case APV_AVX2: fill_base_avx2(x, b, lv, lo, g, wt); break;
#endif
    default: fill_base_generic(x, b, lv, lo, g, wt);
    }
}
