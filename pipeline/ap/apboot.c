/* apboot: see apboot.h for the contract; definitions in pipeline/APCOST.md. */
#include "apboot.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ap.h"
#include "util.h"

const char *const apboot_kind_names[APBOOT_KINDS] = {"last_known", "default", "none"};

/* ================================================================ weighted AP */

/* A score vector sorted for walks: per group, the rows by score descending,
 * each packed as unit << 1 | label; and per group the positions (within the
 * group) of the last row of every tie (rows of equal score) that holds at
 * least one positive row: the only places where lab/core/ap.c's sum can get a
 * nonzero term. */
typedef struct {
    uint32_t *p;       /* n */
    uint32_t *f;       /* flagged positions, group after group */
    size_t *fstart;    /* ngroups + 1 */
} svec;

static void svec_free(svec *v)
{
    free(v->p);
    free(v->f);
    free(v->fstart);
    memset(v, 0, sizeof *v);
}

typedef struct {
    float s;
    uint32_t key;
} item;

static int item_desc(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? 1 : -1;
    return (x->key > y->key) - (x->key < y->key);
}

/* Group layout shared by every vector of one table. */
typedef struct {
    size_t n, ngroups;
    size_t *gstart;    /* ngroups + 1 */
    uint32_t *grow;    /* rows grouped: group order, then row order */
    int32_t *gval;     /* the group values, ascending */
} layout;

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void layout_free(layout *l)
{
    free(l->gstart);
    free(l->grow);
    free(l->gval);
    memset(l, 0, sizeof *l);
}

static int layout_make(const int32_t *group, size_t n, layout *l)
{
    memset(l, 0, sizeof *l);
    int32_t *g = malloc((n ? n : 1) * sizeof *g);
    if (!g)
        return -1;
    memcpy(g, group, n * sizeof *g);
    qsort(g, n, sizeof *g, cmp_i32);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || g[i] != g[i - 1])
            g[ng++] = g[i];
    l->n = n;
    l->ngroups = ng;
    l->gval = g;
    l->gstart = calloc(ng + 1, sizeof *l->gstart);
    l->grow = malloc((n ? n : 1) * sizeof *l->grow);
    if (!l->gstart || !l->grow) {
        layout_free(l);
        return -1;
    }
    size_t *fill = calloc(ng + 1, sizeof *fill);
    if (!fill) {
        layout_free(l);
        return -1;
    }
    /* counting sort of rows by group, stable */
    for (size_t i = 0; i < n; i++) {
        int32_t *at = bsearch(&group[i], g, ng, sizeof *g, cmp_i32);
        l->gstart[(size_t)(at - g) + 1]++;
    }
    for (size_t k = 0; k < ng; k++)
        l->gstart[k + 1] += l->gstart[k];
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)((int32_t *)bsearch(&group[i], g, ng, sizeof *g, cmp_i32) - g);
        l->grow[l->gstart[k] + fill[k]++] = (uint32_t)i;
    }
    free(fill);
    return 0;
}

/* unit[i]: the weight index of row i (its customer, or the row itself). */
static int svec_make(const layout *l, const float *score, const uint8_t *label, const uint32_t *unit,
                     item *scratch, svec *v)
{
    memset(v, 0, sizeof *v);
    v->p = malloc((l->n ? l->n : 1) * sizeof *v->p);
    v->f = malloc((l->n ? l->n : 1) * sizeof *v->f);
    v->fstart = calloc(l->ngroups + 1, sizeof *v->fstart);
    if (!v->p || !v->f || !v->fstart) {
        svec_free(v);
        return -1;
    }
    size_t nf = 0;
    for (size_t g = 0; g < l->ngroups; g++) {
        size_t a = l->gstart[g], b = l->gstart[g + 1];
        for (size_t i = a; i < b; i++) {
            uint32_t r = l->grow[i];
            scratch[i - a].s = score[r];
            scratch[i - a].key = unit[r] << 1 | (uint32_t)(label[r] != 0);
        }
        qsort(scratch, b - a, sizeof *scratch, item_desc);
        int anypos = 0;
        v->fstart[g] = nf;
        for (size_t i = a; i < b; i++) {
            anypos |= (scratch[i - a].key & 1) != 0;
            int last = i + 1 == b || scratch[i - a + 1].s != scratch[i - a].s;
            v->p[i] = scratch[i - a].key;
            if (last && anypos)
                v->f[nf++] = (uint32_t)(i - a);
            if (last)
                anypos = 0;
        }
    }
    v->fstart[l->ngroups] = nf;
    return 0;
}

/* The mean over groups of each group's AP, rows counting w[unit] times.
 * pos[g]: the positive weight of group g (> 0); S and T: scratch of the
 * largest group's size.  lab/core/ap.c's sum
 *   AP = sum over ties t of (tp_t - tp_prev) / pos * (tp_t / seen_t)
 * is computed as (sum of (tp_t - tp_prev) * tp_t / seen_t) / pos, one
 * division per term: the same value up to rounding (about 1e-16; the stage
 * checks 1e-12 against lab/core/ap.h for every seed's live scores).  First the
 * running sums of weight (seen) and positive weight (tp) over the sorted
 * rows, without a branch; then the terms at the flagged positions only.
 * Counts are 32-bit: a group's total weight must stay below 2^32 (and
 * below 2^26 for the products to be exact in a double). */
static double walk(const layout *l, const svec *v, const uint32_t *w, const uint64_t *pos, uint32_t *S,
                   uint32_t *T)
{
    double sum = 0.0;
    for (size_t g = 0; g < l->ngroups; g++) {
        const uint32_t *p = v->p + l->gstart[g];
        size_t n = l->gstart[g + 1] - l->gstart[g];
        uint32_t tp = 0, seen = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t x = p[i], wt = w[x >> 1];
            seen += wt;
            tp += wt & (0u - (x & 1));
            S[i] = seen;
            T[i] = tp;
        }
        const uint32_t *f = v->f + v->fstart[g], *fe = v->f + v->fstart[g + 1];
        uint32_t tp_prev = 0;
        double ap = 0.0;
        for (; f < fe; f++) {
            uint32_t t = T[*f], sn = S[*f];
            /* all of the tie's positives may weigh 0: then the term is +0.0
             * (guard the 0/0 when nothing is seen yet) */
            ap += (double)((uint64_t)(t - tp_prev) * t) / (double)(sn + (sn == 0));
            tp_prev = t;
        }
        sum += ap / (double)pos[g];
    }
    return sum / (double)l->ngroups;
}

static size_t max_group(const layout *l)
{
    size_t m = 1;
    for (size_t g = 0; g < l->ngroups; g++)
        if (l->gstart[g + 1] - l->gstart[g] > m)
            m = l->gstart[g + 1] - l->gstart[g];
    return m;
}

double apboot_ap_weighted(const float *score, const uint8_t *label, const int32_t *group, const uint32_t *w,
                       size_t n)
{
    layout l = {0};
    double out = NAN;
    svec v = {0};
    item *scratch = malloc((n ? n : 1) * sizeof *scratch);
    uint32_t *unit = malloc((n ? n : 1) * sizeof *unit);
    uint32_t *ones = malloc((n ? n : 1) * sizeof *ones);
    uint32_t *S = malloc((n ? n : 1) * sizeof *S), *T = malloc((n ? n : 1) * sizeof *T);
    uint64_t *pos = NULL;
    if (!scratch || !unit || !ones || !S || !T || n == 0 || layout_make(group, n, &l) != 0)
        goto done;
    pos = calloc(l.ngroups + 1, sizeof *pos);
    if (!pos)
        goto done;
    for (size_t i = 0; i < n; i++) {
        unit[i] = (uint32_t)i;
        ones[i] = w ? w[i] : 1;
    }
    for (size_t g = 0; g < l.ngroups; g++) {
        for (size_t i = l.gstart[g]; i < l.gstart[g + 1]; i++)
            if (label[l.grow[i]])
                pos[g] += ones[l.grow[i]];
        if (pos[g] == 0)
            goto done;
    }
    if (svec_make(&l, score, label, unit, scratch, &v) != 0)
        goto done;
    out = walk(&l, &v, ones, pos, S, T);
done:
    layout_free(&l);
    svec_free(&v);
    free(pos);
    free(scratch);
    free(unit);
    free(ones);
    free(S);
    free(T);
    return out;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double apboot_percentile(double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_dbl);
    size_t lo; /* lab/base/util.h's one percentile */
    double frac = ut_pct_rank(n, q, &lo);
    return ut_pct_between(v[lo], v[lo + 1 < n ? lo + 1 : lo], frac);
}

double apboot_mc_error(double *v, size_t m, double q)
{
    if (m == 0)
        return NAN;
    double d = sqrt(q * (1.0 - q) / (double)m);
    double up = apboot_percentile(v, m, fmin(1.0, q + d)), down = apboot_percentile(v, m, fmax(0.0, q - d));
    return (up - down) / 2.0;
}

const char *apboot_verdict(double lo, double hi, double e_lo, double e_hi, const char **direction)
{
    *direction = NULL;
    if (!isfinite(lo) || !isfinite(hi) || !isfinite(e_lo) || !isfinite(e_hi))
        return "no interval";
    if (hi + e_hi < 0.0)
        *direction = "lower";
    else if (lo - e_lo > 0.0)
        *direction = "higher";
    return *direction ? "clearly different" : "too close to call";
}

uint64_t apboot_fnv1a(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

void apboot_round_picks(const char *name, uint64_t seed, size_t R, size_t B, uint32_t *m)
{
    memset(m, 0, B * R * sizeof *m);
    ut_rng rng;
    ut_rng_seed(&rng, seed ^ apboot_fnv1a(name));
    for (size_t b = 0; b < B; b++)
        for (size_t j = 0; j < R; j++)
            m[b * R + ut_rng_u64(&rng) % R]++;
}

/* ================================================================ computation */

/* Per-thread scratch. */
typedef struct {
    item *scratch;           /* n */
    float *vec;              /* n */
    uint32_t *S, *T;         /* largest group */
} tbuf;

enum { MAXT = 64 };

struct apboot_ctx {
    const apboot_table *t;
    const apstudy_arm *arms;
    size_t narms, max_seeds;
    apboot_opts o;
    layout l;
    uint32_t *cust;          /* row -> customer index */
    size_t ncust;
    uint32_t *w;             /* resamples x ncust: how often resample b drew each customer */
    uint64_t *pos;           /* resamples x ngroups: positive weight per cutoff */
    uint8_t *valid;          /* resamples: every cutoff has positive weight */
    double *acc[APBOOT_KINDS];  /* narms x resamples: changes summed over seeds */
    uint32_t **roundw;       /* [arm]: resamples x rounds, m_b(k) (APCOST.md 1.5) */
    tbuf tb[MAXT];
    int boot_closed;
    apboot_result r;
};

/* One (arm, round, kind) whose round replaced some rows. */
typedef struct {
    size_t a, q;
    int k;
    size_t vi;               /* index in the seed's vectors */
    double ap;
} task;

/* Work shared by the threads of one seed; thread t takes tasks t, t+T, ...
 * and the resamples [B*t/T, B*(t+1)/T): what each writes is its own, and
 * the numbers do not depend on T. */
typedef struct {
    apboot_ctx *c;
    const float *live, *lastk;
    float dflt;
    int boot;
    task *tasks;
    size_t ntasks;
    svec live_v;
    svec *v;                 /* [voff[a] + q * APBOOT_KINDS + k]; p NULL when not computed */
    size_t *voff;
    size_t nv;               /* slots in v */
    int nthreads;
} seedwork;

typedef struct {
    seedwork *sw;
    int tid;
    int failed;
} job;

static void fill_vec(float *v, const float *live, const float *lastk, float dflt, const uint8_t *mask, size_t n,
                     int kind)
{
    for (size_t i = 0; i < n; i++) {
        if (!mask[i])
            v[i] = live[i];
        else
            v[i] = kind == APBOOT_LAST_KNOWN ? lastk[i] : kind == APBOOT_DEFAULT ? dflt : -INFINITY;
    }
}

static void *prep_job(void *arg)
{
    job *j = arg;
    seedwork *sw = j->sw;
    apboot_ctx *c = sw->c;
    const apboot_table *t = c->t;
    tbuf *tb = &c->tb[j->tid];
    for (size_t i = (size_t)j->tid; i < sw->ntasks; i += (size_t)sw->nthreads) {
        task *tk = &sw->tasks[i];
        fill_vec(tb->vec, sw->live, sw->lastk, sw->dflt, c->arms[tk->a].rounds[tk->q].mask, t->n, tk->k);
        tk->ap = ap_mean_by_group(tb->vec, t->label, t->cutoff, t->n);
        if (sw->boot && svec_make(&c->l, tb->vec, t->label, c->cust, tb->scratch, &sw->v[tk->vi]) != 0)
            j->failed = 1;
    }
    return NULL;
}

/* Resamples go in blocks of BLK so that each sorted vector is walked BLK
 * times while it sits in the core's cache; each resample's sums still run
 * in the same order (arm, kind, round), so the result is the same. */
enum { BLK = 8 };

static void *boot_job(void *arg)
{
    job *j = arg;
    seedwork *sw = j->sw;
    apboot_ctx *c = sw->c;
    tbuf *tb = &c->tb[j->tid];
    const size_t B = c->o.resamples, nc = c->ncust, ng = c->l.ngroups;
    size_t b_lo = B * (size_t)j->tid / (size_t)sw->nthreads, b_hi = B * (size_t)(j->tid + 1) / (size_t)sw->nthreads;
    for (size_t b0 = b_lo; b0 < b_hi; b0 += BLK) {
        size_t nb = b_hi - b0 < BLK ? b_hi - b0 : BLK;
        double wl[BLK];
        for (size_t i = 0; i < nb; i++)
            wl[i] = c->valid[b0 + i]
                        ? walk(&c->l, &sw->live_v, c->w + (b0 + i) * nc, c->pos + (b0 + i) * ng, tb->S, tb->T)
                        : 0.0;
        for (size_t a = 0; a < c->narms; a++) {
            const apstudy_arm *arm = &c->arms[a];
            const size_t R = arm->nrounds;
            const uint32_t *m = c->roundw[a];
            for (int ki = 0; ki < c->o.nkinds; ki++) {
                int k = c->o.kinds[ki];
                double sum[BLK] = {0};
                /* APCOST.md 1.12: the rounds with a stand-in drawn at least
                 * once, ascending, each weighing m_b(k); a round not drawn
                 * costs no walk */
                for (size_t r = 0; r < R; r++) {
                    const svec *v = &sw->v[sw->voff[a] + r * APBOOT_KINDS + (size_t)k];
                    if (!v->p)
                        continue;
                    for (size_t i = 0; i < nb; i++) {
                        uint32_t mb = m[(b0 + i) * R + r];
                        if (c->valid[b0 + i] && mb > 0)
                            sum[i] += (double)mb * (walk(&c->l, v, c->w + (b0 + i) * nc, c->pos + (b0 + i) * ng,
                                                         tb->S, tb->T) -
                                                    wl[i]);
                    }
                }
                for (size_t i = 0; i < nb; i++)
                    if (c->valid[b0 + i])
                        c->acc[k][a * B + b0 + i] += sum[i] / (double)arm->nrounds;
            }
        }
    }
    return NULL;
}

/* Runs fn on threads 0..T-1 (0 on the caller's); 0, or -1 if one failed. */
static int run_threads(seedwork *sw, void *(*fn)(void *))
{
    pthread_t th[MAXT];
    job jobs[MAXT];
    int started[MAXT] = {0};
    int T = sw->nthreads, bad = 0;
    for (int i = 0; i < T; i++) {
        jobs[i] = (job){sw, i, 0};
        if (i > 0)
            started[i] = pthread_create(&th[i], NULL, fn, &jobs[i]) == 0;
    }
    fn(&jobs[0]);
    for (int i = 1; i < T; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn(&jobs[i]);  /* no thread: do its share here */
    }
    for (int i = 0; i < T; i++)
        bad |= jobs[i].failed;
    return bad ? -1 : 0;
}

static int cmp_i32_2(const void *a, const void *b) { return cmp_i32(a, b); }

void apboot_free(apboot_ctx *c)
{
    if (!c)
        return;
    layout_free(&c->l);
    free(c->cust);
    free(c->w);
    free(c->pos);
    free(c->valid);
    for (int i = 0; i < MAXT; i++) {
        free(c->tb[i].scratch);
        free(c->tb[i].vec);
        free(c->tb[i].S);
        free(c->tb[i].T);
    }
    for (int k = 0; k < APBOOT_KINDS; k++)
        free(c->acc[k]);
    for (size_t a = 0; c->roundw && a < c->narms; a++)
        free(c->roundw[a]);
    free(c->roundw);
    apboot_result *r = &c->r;
    free(r->seeds);
    free(r->live_ap);
    for (size_t a = 0; a < r->narms && r->arm; a++) {
        free(r->arm[a].round_ap);
        for (int k = 0; k < APBOOT_KINDS; k++) {
            free(r->arm[a].seed_change[k]);
            free(r->arm[a].boot[k]);
        }
    }
    free(r->arm);
    free(c);
}

/* The arguments of apboot_new: something to compute, kinds distinct. */
static int check_args(size_t n, size_t max_seeds, const apboot_opts *o, char *err, size_t errlen)
{
    size_t B = o->resamples;
    if (n == 0 || n >= (1u << 30) || max_seeds == 0 || B == 0 || o->nkinds < 1 || o->nkinds > APBOOT_KINDS) {
        ut_seterr(err, errlen, "apboot_new: %zu rows, %zu seeds, %zu resamples, %d kinds: nothing to compute", n,
                  max_seeds, B, o->nkinds);
        return -1;
    }
    for (int i = 0; i < o->nkinds; i++) {
        int bad = o->kinds[i] < 0 || o->kinds[i] >= APBOOT_KINDS;
        for (int j2 = 0; j2 < i; j2++)
            bad |= o->kinds[i] == o->kinds[j2];
        if (bad) {
            ut_seterr(err, errlen, "apboot_new: kinds must be distinct, among 0..2");
            return -1;
        }
    }
    return 0;
}

/* The customers: distinct ids ascending, and each row's index among them. */
static int index_customers(apboot_ctx *c)
{
    const apboot_table *t = c->t;
    size_t n = t->n;
    int32_t *ids = malloc(n * sizeof *ids);
    c->cust = malloc(n * sizeof *c->cust);
    if (!ids || !c->cust) {
        free(ids);
        return -1;
    }
    memcpy(ids, t->customer, n * sizeof *ids);
    qsort(ids, n, sizeof *ids, cmp_i32_2);
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || ids[i] != ids[i - 1])
            ids[nc++] = ids[i];
    for (size_t i = 0; i < n; i++)
        c->cust[i] = (uint32_t)((int32_t *)bsearch(&t->customer[i], ids, nc, sizeof *ids, cmp_i32_2) - ids);
    free(ids);
    c->ncust = nc;
    return 0;
}

/* The customers' picks, drawn once: resample b draws nc customers with
 * replacement (ut_rng seeded with boot_seed; draw i of resample b is
 * customer index u64 % nc, b = 0.., i = 0..nc-1 in that order).  Also each
 * resample's positive weight per cutoff, and whether every cutoff has one. */
static int draw_picks(apboot_ctx *c)
{
    const size_t B = c->o.resamples, nc = c->ncust, ng = c->l.ngroups;
    c->w = calloc(B * nc + 1, sizeof *c->w);
    c->pos = calloc(B * ng + 1, sizeof *c->pos);
    c->valid = calloc(B + 1, 1);
    if (!c->w || !c->pos || !c->valid)
        return -1;
    ut_rng rng;
    ut_rng_seed(&rng, c->o.boot_seed);
    for (size_t b = 0; b < B; b++) {
        uint32_t *w = c->w + b * nc;
        for (size_t i = 0; i < nc; i++)
            w[ut_rng_u64(&rng) % nc]++;
        uint64_t *pos = c->pos + b * ng;
        for (size_t g = 0; g < ng; g++)
            for (size_t i = c->l.gstart[g]; i < c->l.gstart[g + 1]; i++)
                if (c->t->label[c->l.grow[i]])
                    pos[g] += w[c->cust[c->l.grow[i]]];
        c->valid[b] = 1;
        for (size_t g = 0; g < ng; g++)
            if (pos[g] == 0)
                c->valid[b] = 0;
        c->r.resamples_used += c->valid[b];
    }
    return 0;
}

static int alloc_threads(apboot_ctx *c)
{
    size_t n = c->t->n, mg = max_group(&c->l);
    for (int i = 0; i < c->o.threads; i++) {
        tbuf *tb = &c->tb[i];
        tb->scratch = malloc(n * sizeof *tb->scratch);
        tb->vec = malloc(n * sizeof *tb->vec);
        tb->S = malloc(mg * sizeof *tb->S);
        tb->T = malloc(mg * sizeof *tb->T);
        if (!tb->scratch || !tb->vec || !tb->S || !tb->T)
            return -1;
    }
    return 0;
}

/* The result's arrays, and the bootstrap's sums.  -1 with err set. */
static int alloc_result(apboot_ctx *c, char *err, size_t errlen)
{
    size_t narms = c->narms, max_seeds = c->max_seeds, B = c->o.resamples;
    for (int k = 0; k < APBOOT_KINDS; k++)
        c->acc[k] = calloc(narms * B + 1, sizeof *c->acc[k]);
    apboot_result *r = &c->r;
    r->seeds = calloc(max_seeds, sizeof *r->seeds);
    r->live_ap = calloc(max_seeds, sizeof *r->live_ap);
    r->arm = calloc(narms + 1, sizeof *r->arm);
    c->roundw = calloc(narms + 1, sizeof *c->roundw);
    if (!c->acc[0] || !c->acc[1] || !c->acc[2] || !r->seeds || !r->live_ap || !r->arm || !c->roundw)
        goto oom;
    r->narms = narms;
    r->ncustomers = c->ncust;
    r->ngroups = c->l.ngroups;
    r->groups = c->l.gval;
    for (size_t a = 0; a < narms; a++) {
        const apstudy_arm *arm = &c->arms[a];
        apboot_arm_result *ar = &r->arm[a];
        if (arm->nrounds == 0) {
            ut_seterr(err, errlen, "arm %s has no rounds", arm->name);
            return -1;
        }
        for (size_t q = 0; q < arm->nrounds; q++)
            if (!arm->rounds[q].mask) {
                ut_seterr(err, errlen, "arm %s: round %zu has no stand-in mask", arm->name, q + 1);
                return -1;
            }
        ar->round_ap = calloc(max_seeds * arm->nrounds, sizeof *ar->round_ap);
        c->roundw[a] = malloc(B * arm->nrounds * sizeof *c->roundw[a]);
        if (!ar->round_ap || !c->roundw[a])
            goto oom;
        /* format 2: the arm's own generator (APCOST.md 1.11); format 1: every round once */
        if (c->o.rounds_resampled)
            apboot_round_picks(arm->name, c->o.boot_seed, arm->nrounds, B, c->roundw[a]);
        else
            for (size_t i = 0; i < B * arm->nrounds; i++)
                c->roundw[a][i] = 1;
        ar->round_w = c->roundw[a];
        for (int ki = 0; ki < c->o.nkinds; ki++) {
            int k = c->o.kinds[ki];
            ar->computed[k] = 1;
            ar->seed_change[k] = calloc(max_seeds, sizeof(double));
            ar->boot[k] = calloc(B + 1, sizeof(double));
            if (!ar->seed_change[k] || !ar->boot[k])
                goto oom;
        }
    }
    return 0;
oom:
    ut_seterr(err, errlen, "out of memory");
    return -1;
}

apboot_ctx *apboot_new(const apboot_table *t, const apstudy_arm *arms, size_t narms, size_t max_seeds,
                       const apboot_opts *o, char *err, size_t errlen)
{
    apboot_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        ut_seterr(err, errlen, "out of memory");
        return NULL;
    }
    c->t = t;
    c->arms = arms;
    c->narms = narms;
    c->max_seeds = max_seeds;
    c->o = *o;
    c->o.threads = o->threads < 1 ? 1 : o->threads > MAXT ? MAXT : o->threads;
    if (check_args(t->n, max_seeds, o, err, errlen) != 0)
        goto fail;
    if (layout_make(t->cutoff, t->n, &c->l) != 0 || index_customers(c) != 0 || draw_picks(c) != 0 ||
        alloc_threads(c) != 0) {
        ut_seterr(err, errlen, "out of memory");
        goto fail;
    }
    if (alloc_result(c, err, errlen) != 0)
        goto fail;
    return c;
fail:
    apboot_free(c);
    return NULL;
}

const apboot_result *apboot_result_of(const apboot_ctx *c) { return &c->r; }

/* The seed's work: one task per (arm, round with a stand-in, kind), and the
 * slots of the sorted vectors. */
static int seed_tasks(apboot_ctx *c, seedwork *sw)
{
    size_t nv = 0, nt = 0;
    sw->voff = calloc(c->narms + 1, sizeof *sw->voff);
    if (!sw->voff)
        return -1;
    for (size_t a = 0; a < c->narms; a++) {
        sw->voff[a] = nv;
        nv += c->arms[a].nrounds * APBOOT_KINDS;
    }
    sw->nv = nv;
    sw->v = calloc(nv + 1, sizeof *sw->v);
    sw->tasks = calloc(nv + 1, sizeof *sw->tasks);
    if (!sw->v || !sw->tasks)
        return -1;
    for (size_t a = 0; a < c->narms; a++)
        for (size_t q = 0; q < c->arms[a].nrounds; q++)
            for (int ki = 0; ki < c->o.nkinds; ki++)
                if (c->arms[a].rounds[q].rows > 0) {
                    int k = c->o.kinds[ki];
                    sw->tasks[nt++] = (task){a, q, k, sw->voff[a] + q * APBOOT_KINDS + (size_t)k, 0};
                }
    sw->ntasks = nt;
    return 0;
}

static void seedwork_free(seedwork *sw)
{
    for (size_t i = 0; i < sw->nv && sw->v; i++)
        svec_free(&sw->v[i]);
    svec_free(&sw->live_v);
    free(sw->v);
    free(sw->voff);
    free(sw->tasks);
}

/* Seed index s's point values from the tasks' APs: every round's AP (a
 * round with nothing replaced keeps the live AP) and the arm's change. */
static void point_values(apboot_ctx *c, const seedwork *sw, size_t s, double ap_live)
{
    apboot_result *r = &c->r;
    for (size_t a = 0; a < c->narms; a++)
        for (size_t q = 0; q < c->arms[a].nrounds; q++)
            for (int k = 0; k < APBOOT_KINDS; k++)
                r->arm[a].round_ap[s * c->arms[a].nrounds + q].ap[k] = ap_live;  /* nothing replaced */
    for (size_t i = 0; i < sw->ntasks; i++) {
        const task *tk = &sw->tasks[i];
        r->arm[tk->a].round_ap[s * c->arms[tk->a].nrounds + tk->q].ap[tk->k] = tk->ap;
    }
    for (size_t a = 0; a < c->narms; a++) {
        const apstudy_arm *arm = &c->arms[a];
        apboot_arm_result *ar = &r->arm[a];
        for (int ki = 0; ki < c->o.nkinds; ki++) {
            int k = c->o.kinds[ki];
            double sum = 0.0;  /* rounds in order; a round with nothing replaced adds exactly 0 */
            for (size_t q = 0; q < arm->nrounds; q++)
                sum += ar->round_ap[s * arm->nrounds + q].ap[k] - ap_live;
            ar->seed_change[k][s] = sum / (double)arm->nrounds;
        }
    }
}

/* The walk against lab/core/ap.h, every row counted once: the weighted AP of the
 * live scores must be ap_live within 1e-12.  -1 with err set. */
static int check_walk(apboot_ctx *c, int seed, const float *live, double ap_live, char *err, size_t errlen)
{
    const apboot_table *t = c->t;
    size_t n = t->n;
    tbuf *tb = &c->tb[0];
    uint32_t *unit = malloc(n * sizeof *unit), *ones = malloc(n * sizeof *ones);
    uint64_t *pos1 = calloc(c->l.ngroups + 1, sizeof *pos1);
    svec chk = {0};
    int bad = !unit || !ones || !pos1;
    for (size_t i = 0; !bad && i < n; i++) {
        unit[i] = (uint32_t)i;
        ones[i] = 1;
    }
    for (size_t g = 0; !bad && g < c->l.ngroups; g++)
        for (size_t i = c->l.gstart[g]; i < c->l.gstart[g + 1]; i++)
            pos1[g] += t->label[c->l.grow[i]] != 0;
    bad = bad || svec_make(&c->l, live, t->label, unit, tb->scratch, &chk) != 0;
    double wl = bad ? NAN : walk(&c->l, &chk, ones, pos1, tb->S, tb->T);
    svec_free(&chk);
    free(unit);
    free(ones);
    free(pos1);
    if (bad) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    if (!(fabs(wl - ap_live) <= 1e-12)) {
        ut_seterr(err, errlen, "seed %d: the bootstrap's AP %.17g differs from lab/core/ap.h's %.17g by more "
                  "than 1e-12", seed, wl, ap_live);
        return -1;
    }
    return 0;
}

int apboot_add_seed(apboot_ctx *c, int seed, const float *live, const float *lastk, float dflt, int boot,
                    double *boot_s, char *err, size_t errlen)
{
    apboot_result *r = &c->r;
    const apboot_table *t = c->t;
    size_t s = r->nseeds;
    if (boot_s)
        *boot_s = 0;
    if (s == c->max_seeds) {
        ut_seterr(err, errlen, "apboot_add_seed: more than the %zu seeds announced", c->max_seeds);
        return -1;
    }
    if (boot && c->boot_closed) {
        ut_seterr(err, errlen, "apboot_add_seed: the seeds of the bootstrap must come first");
        return -1;
    }
    int rc = -1;
    seedwork sw = {0};
    sw.c = c;
    sw.live = live;
    sw.lastk = lastk;
    sw.dflt = dflt;
    sw.boot = boot;
    sw.nthreads = c->o.threads;
    if (seed_tasks(c, &sw) != 0)
        goto oom;
    double ap_live = ap_mean_by_group(live, t->label, t->cutoff, t->n);
    if (isnan(ap_live)) {
        ut_seterr(err, errlen, "seed %d: a cutoff has no buyer, so its AP is undefined", seed);
        goto done;
    }
    /* The point values: lab/core/ap.h on every (arm, round, kind), in parallel. */
    if (run_threads(&sw, prep_job) != 0)
        goto oom;
    r->seeds[s] = seed;
    r->live_ap[s] = ap_live;
    point_values(c, &sw, s, ap_live);
    if (boot) {
        if (check_walk(c, seed, live, ap_live, err, errlen) != 0)
            goto done;
        if (svec_make(&c->l, live, t->label, c->cust, c->tb[0].scratch, &sw.live_v) != 0)
            goto oom;
        int64_t t0 = ut_mono_ns();
        run_threads(&sw, boot_job);
        r->boot_seeds++;
        if (boot_s)
            *boot_s = (double)(ut_mono_ns() - t0) / 1e9;
    } else {
        c->boot_closed = 1;
    }
    r->nseeds++;
    rc = 0;
    goto done;
oom:
    ut_seterr(err, errlen, "out of memory");
done:
    seedwork_free(&sw);
    return rc;
}

int apboot_finish(apboot_ctx *c, char *err, size_t errlen)
{
    apboot_result *r = &c->r;
    size_t B = c->o.resamples;
    double *tmp = malloc((B + 1) * sizeof *tmp);
    if (!tmp) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    for (size_t a = 0; a < c->narms; a++) {
        apboot_arm_result *ar = &r->arm[a];
        for (int k = 0; k < APBOOT_KINDS; k++) {
            if (!ar->computed[k])
                continue;
            double sum = 0.0;
            for (size_t s = 0; s < r->nseeds; s++)
                sum += ar->seed_change[k][s];
            ar->change[k] = r->nseeds ? sum / (double)r->nseeds : NAN;
            size_t m = 0;
            for (size_t b = 0; b < B; b++) {
                /* NAN: a dropped resample, or no seed in the bootstrap */
                ar->boot[k][b] = r->boot_seeds && c->valid[b] ? c->acc[k][a * B + b] / (double)r->boot_seeds : NAN;
                if (c->valid[b] && r->boot_seeds)
                    tmp[m++] = ar->boot[k][b];
            }
            ar->lo[k] = apboot_percentile(tmp, m, 0.025);
            ar->hi[k] = apboot_percentile(tmp, m, 0.975);
            ar->e_lo[k] = apboot_mc_error(tmp, m, 0.025);
            ar->e_hi[k] = apboot_mc_error(tmp, m, 0.975);
        }
    }
    free(tmp);
    return 0;
}
