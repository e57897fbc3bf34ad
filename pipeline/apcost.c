/* apcost: see apcost.h; the definitions are in pipeline/APCOST.md. */
#include "apcost.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ap.h"
#include "feat.h"
#include "prov.h"
#include "train.h"
#include "util.h"

const char *const apc_kind_names[APC_KINDS] = {"last_known", "default", "none"};

/* ================================================================ raw input */

void apc_raw_free(apc_raw *r)
{
    if (!r)
        return;
    free(r->row);
    free(r->kind);
    memset(r, 0, sizeof *r);
}

/* Splits s in place at tabs; returns the number of fields (at most max + 1,
 * so that "too many" shows). */
static int split_tabs(char *s, char **f, int max)
{
    int n = 0;
    f[n++] = s;
    for (char *p = s; *p; p++) {
        if (*p == '\t') {
            *p = 0;
            if (n > max)
                return n;
            f[n++] = p + 1;
        }
    }
    return n;
}

static int parse_i64(const char *s, long long *v)
{
    if (!*s)
        return -1;
    char *e;
    errno = 0;
    *v = strtoll(s, &e, 10);
    return (*e || errno) ? -1 : 0;
}

int apc_read_tester(const char *path, size_t ntest, apc_raw *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        ut_seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    gzbuffer(gz, 1 << 17);
    char line[4096];
    char *f[40];
    int ncols = 0, cj = -1, crow = -1, ckind = -1, rc = -1;
    size_t cap = 0, lineno = 0;
    while (gzgets(gz, line, sizeof line)) {
        lineno++;
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            ut_seterr(err, errlen, "%s: line %zu: %s", path, lineno,
                      len + 1 == sizeof line ? "longer than 4095 bytes" : "does not end with a newline");
            goto done;
        }
        line[len - 1] = 0;
        if (lineno == 1) {
            if (strcmp(line, "# lab-raw 1 tester") != 0) {
                ut_seterr(err, errlen, "%s: line 1: expected \"# lab-raw 1 tester\"", path);
                goto done;
            }
            continue;
        }
        int nf = split_tabs(line, f, 39);
        if (lineno == 2) {
            ncols = nf;
            for (int c = 0; c < nf; c++) {
                if (!strcmp(f[c], "j"))
                    cj = c;
                else if (!strcmp(f[c], "row"))
                    crow = c;
                else if (!strcmp(f[c], "kind"))
                    ckind = c;
            }
            if (cj < 0 || crow < 0 || ckind < 0 || nf > 39) {
                ut_seterr(err, errlen, "%s: line 2: the columns must include j, row and kind", path);
                goto done;
            }
            continue;
        }
        if (nf != ncols) {
            ut_seterr(err, errlen, "%s: line %zu: %d fields, expected %d", path, lineno, nf, ncols);
            goto done;
        }
        for (int c = 0; c < nf; c++)
            if (!f[c][0]) {
                ut_seterr(err, errlen, "%s: line %zu: empty field %d", path, lineno, c + 1);
                goto done;
            }
        long long j, row;
        if (parse_i64(f[cj], &j) != 0 || j != (long long)out->n) {
            ut_seterr(err, errlen, "%s: line %zu: j is \"%s\", expected %zu (rows in schedule order)", path,
                      lineno, f[cj], out->n);
            goto done;
        }
        if (parse_i64(f[crow], &row) != 0 || row < 0 || (size_t)row >= ntest) {
            ut_seterr(err, errlen, "%s: line %zu: row \"%s\" is not a table row (0 to %zu)", path, lineno,
                      f[crow], ntest ? ntest - 1 : 0);
            goto done;
        }
        const char *k = f[ckind];
        if (k[1] || !strchr("LKDE", k[0])) {
            ut_seterr(err, errlen, "%s: line %zu: kind \"%s\" is not L, K, D or E", path, lineno, k);
            goto done;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16384;
            int32_t *nr = realloc(out->row, cap * sizeof *nr);
            if (nr)
                out->row = nr;
            char *nk = realloc(out->kind, cap);
            if (nk)
                out->kind = nk;
            if (!nr || !nk) {
                ut_seterr(err, errlen, "%s: out of memory", path);
                goto done;
            }
        }
        out->row[out->n] = (int32_t)row;
        out->kind[out->n] = k[0];
        out->n++;
    }
    int zerr = Z_OK;
    const char *zmsg = gzerror(gz, &zerr);
    if (zerr != Z_OK) {
        ut_seterr(err, errlen, "%s: after line %zu: %s (truncated or damaged gzip stream)", path, lineno,
                  zmsg);
        goto done;
    }
    if (lineno < 2) {
        ut_seterr(err, errlen, "%s: no header (%zu lines)", path, lineno);
        goto done;
    }
    rc = 0;
done:
    gzclose(gz);
    if (rc != 0)
        apc_raw_free(out);
    return rc;
}

void apc_round_free(apc_round *r)
{
    if (!r)
        return;
    free(r->mask);
    memset(r, 0, sizeof *r);
}

int apc_round_select(const apc_raw *raw, int round, size_t m, size_t ntest, apc_round *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (m > raw->n) {
        ut_seterr(err, errlen, "round %d: %zu requests asked, the run has %zu", round, m, raw->n);
        return -1;
    }
    out->mask = calloc(ntest ? ntest : 1, 1);
    if (!out->mask) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    out->round = round;
    out->requests_in_run = raw->n;
    out->requests = m;
    for (size_t j = 0; j < m; j++) {
        switch (raw->kind[j]) {
        case 'L':
            out->live++;
            break;
        case 'E':
            out->error++;
            break;
        case 'K':
        case 'D':
            if (raw->kind[j] == 'K')
                out->last_known++;
            else
                out->dflt++;
            if (!out->mask[raw->row[j]]) {
                out->mask[raw->row[j]] = 1;
                out->rows++;
            }
            break;
        }
    }
    return 0;
}

/* ================================================================ weighted AP */

/* A score vector sorted for walks: per group, the rows by score descending,
 * each packed as unit << 1 | label; and per group the positions (within the
 * group) of the last row of every tie (rows of equal score) that holds at
 * least one positive row: the only places where lab/ap.c's sum can get a
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
 * largest group's size.  lab/ap.c's sum
 *   AP = sum over ties t of (tp_t - tp_prev) / pos * (tp_t / seen_t)
 * is computed as (sum of (tp_t - tp_prev) * tp_t / seen_t) / pos, one
 * division per term: the same value up to rounding (about 1e-16; the stage
 * checks 1e-12 against lab/ap.h for every seed's live scores).  First the
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

double apc_ap_weighted(const float *score, const uint8_t *label, const int32_t *group, const uint32_t *w,
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

double apc_percentile(double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_dbl);
    double h = (double)(n - 1) * q;
    size_t f = (size_t)floor(h);
    size_t f1 = f + 1 < n ? f + 1 : n - 1;
    return v[f] + (h - (double)f) * (v[f1] - v[f]);
}

/* ================================================================ computation */

/* Per-thread scratch. */
typedef struct {
    item *scratch;           /* n */
    float *vec;              /* n */
    uint32_t *S, *T;         /* largest group */
} tbuf;

enum { MAXT = 64 };

struct apc_ctx {
    const apc_table *t;
    const apc_arm *arms;
    size_t narms, max_seeds;
    apc_opts o;
    layout l;
    uint32_t *cust;          /* row -> customer index */
    size_t ncust;
    uint32_t *w;             /* resamples x ncust: how often resample b drew each customer */
    uint64_t *pos;           /* resamples x ngroups: positive weight per cutoff */
    uint8_t *valid;          /* resamples: every cutoff has positive weight */
    double *acc[APC_KINDS];  /* narms x resamples: changes summed over seeds */
    tbuf tb[MAXT];
    int boot_closed;
    apc_result r;
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
    apc_ctx *c;
    const float *live, *lastk;
    float dflt;
    int boot;
    task *tasks;
    size_t ntasks;
    svec live_v;
    svec *v;                 /* [voff[a] + q * APC_KINDS + k]; p NULL when not computed */
    size_t *voff;
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
            v[i] = kind == APC_LAST_KNOWN ? lastk[i] : kind == APC_DEFAULT ? dflt : -INFINITY;
    }
}

static void *prep_job(void *arg)
{
    job *j = arg;
    seedwork *sw = j->sw;
    apc_ctx *c = sw->c;
    const apc_table *t = c->t;
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
    apc_ctx *c = sw->c;
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
            const apc_arm *arm = &c->arms[a];
            for (int ki = 0; ki < c->o.nkinds; ki++) {
                int k = c->o.kinds[ki];
                double sum[BLK] = {0};
                for (size_t r = 0; r < arm->nrounds; r++) {
                    const svec *v = &sw->v[sw->voff[a] + r * APC_KINDS + (size_t)k];
                    if (!v->p)
                        continue;
                    for (size_t i = 0; i < nb; i++)
                        if (c->valid[b0 + i])
                            sum[i] += walk(&c->l, v, c->w + (b0 + i) * nc, c->pos + (b0 + i) * ng, tb->S, tb->T) -
                                      wl[i];
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

void apc_free(apc_ctx *c)
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
    for (int k = 0; k < APC_KINDS; k++)
        free(c->acc[k]);
    apc_result *r = &c->r;
    free(r->seeds);
    free(r->live_ap);
    for (size_t a = 0; a < r->narms && r->arm; a++) {
        free(r->arm[a].round_ap);
        for (int k = 0; k < APC_KINDS; k++) {
            free(r->arm[a].seed_change[k]);
            free(r->arm[a].boot[k]);
        }
    }
    free(r->arm);
    free(c);
}

apc_ctx *apc_new(const apc_table *t, const apc_arm *arms, size_t narms, size_t max_seeds, const apc_opts *o,
                 char *err, size_t errlen)
{
    apc_ctx *c = calloc(1, sizeof *c);
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
    size_t n = t->n, B = o->resamples;
    if (n == 0 || n >= (1u << 30) || max_seeds == 0 || B == 0 || o->nkinds < 1 || o->nkinds > APC_KINDS) {
        ut_seterr(err, errlen, "apc_new: %zu rows, %zu seeds, %zu resamples, %d kinds: nothing to compute", n,
                  max_seeds, B, o->nkinds);
        goto fail;
    }
    for (int i = 0; i < o->nkinds; i++) {
        int bad = o->kinds[i] < 0 || o->kinds[i] >= APC_KINDS;
        for (int j2 = 0; j2 < i; j2++)
            bad |= o->kinds[i] == o->kinds[j2];
        if (bad) {
            ut_seterr(err, errlen, "apc_new: kinds must be distinct, among 0..2");
            goto fail;
        }
    }
    if (layout_make(t->cutoff, n, &c->l) != 0)
        goto oom;
    /* customers: distinct ids ascending, index per row */
    int32_t *ids = malloc(n * sizeof *ids);
    c->cust = malloc(n * sizeof *c->cust);
    if (!ids || !c->cust) {
        free(ids);
        goto oom;
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
    /* The customers' picks, drawn once: resample b draws nc customers with
     * replacement (ut_rng seeded with boot_seed; draw i of resample b is
     * customer index u64 % nc, b = 0.., i = 0..nc-1 in that order). */
    c->w = calloc(B * nc + 1, sizeof *c->w);
    c->pos = calloc(B * c->l.ngroups + 1, sizeof *c->pos);
    c->valid = calloc(B + 1, 1);
    if (!c->w || !c->pos || !c->valid)
        goto oom;
    ut_rng rng;
    ut_rng_seed(&rng, o->boot_seed);
    for (size_t b = 0; b < B; b++) {
        uint32_t *w = c->w + b * nc;
        for (size_t i = 0; i < nc; i++)
            w[ut_rng_u64(&rng) % nc]++;
        uint64_t *pos = c->pos + b * c->l.ngroups;
        for (size_t g = 0; g < c->l.ngroups; g++)
            for (size_t i = c->l.gstart[g]; i < c->l.gstart[g + 1]; i++)
                if (t->label[c->l.grow[i]])
                    pos[g] += w[c->cust[c->l.grow[i]]];
        c->valid[b] = 1;
        for (size_t g = 0; g < c->l.ngroups; g++)
            if (pos[g] == 0)
                c->valid[b] = 0;
        c->r.resamples_used += c->valid[b];
    }
    size_t mg = max_group(&c->l);
    for (int i = 0; i < c->o.threads; i++) {
        tbuf *tb = &c->tb[i];
        tb->scratch = malloc(n * sizeof *tb->scratch);
        tb->vec = malloc(n * sizeof *tb->vec);
        tb->S = malloc(mg * sizeof *tb->S);
        tb->T = malloc(mg * sizeof *tb->T);
        if (!tb->scratch || !tb->vec || !tb->S || !tb->T)
            goto oom;
    }
    for (int k = 0; k < APC_KINDS; k++)
        c->acc[k] = calloc(narms * B + 1, sizeof *c->acc[k]);
    apc_result *r = &c->r;
    r->seeds = calloc(max_seeds, sizeof *r->seeds);
    r->live_ap = calloc(max_seeds, sizeof *r->live_ap);
    r->arm = calloc(narms + 1, sizeof *r->arm);
    if (!c->acc[0] || !c->acc[1] || !c->acc[2] || !r->seeds || !r->live_ap || !r->arm)
        goto oom;
    r->narms = narms;
    r->ncustomers = nc;
    r->ngroups = c->l.ngroups;
    r->groups = c->l.gval;
    for (size_t a = 0; a < narms; a++) {
        apc_arm_result *ar = &r->arm[a];
        if (arms[a].nrounds == 0) {
            ut_seterr(err, errlen, "arm %s has no rounds", arms[a].name);
            goto fail;
        }
        for (size_t q = 0; q < arms[a].nrounds; q++)
            if (!arms[a].rounds[q].mask) {
                ut_seterr(err, errlen, "arm %s: round %zu has no stand-in mask", arms[a].name, q + 1);
                goto fail;
            }
        ar->round_ap = calloc(max_seeds * arms[a].nrounds, sizeof *ar->round_ap);
        if (!ar->round_ap)
            goto oom;
        for (int ki = 0; ki < o->nkinds; ki++) {
            int k = o->kinds[ki];
            ar->computed[k] = 1;
            ar->seed_change[k] = calloc(max_seeds, sizeof(double));
            ar->boot[k] = calloc(B + 1, sizeof(double));
            if (!ar->seed_change[k] || !ar->boot[k])
                goto oom;
        }
    }
    return c;
oom:
    ut_seterr(err, errlen, "out of memory");
fail:
    apc_free(c);
    return NULL;
}

const apc_result *apc_result_of(const apc_ctx *c) { return &c->r; }

int apc_add_seed(apc_ctx *c, int seed, const float *live, const float *lastk, float dflt, int boot,
                 double *boot_s, char *err, size_t errlen)
{
    apc_result *r = &c->r;
    const apc_table *t = c->t;
    size_t n = t->n, s = r->nseeds;
    if (boot_s)
        *boot_s = 0;
    if (s == c->max_seeds) {
        ut_seterr(err, errlen, "apc_add_seed: more than the %zu seeds announced", c->max_seeds);
        return -1;
    }
    if (boot && c->boot_closed) {
        ut_seterr(err, errlen, "apc_add_seed: the seeds of the bootstrap must come first");
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
    size_t nv = 0, nt = 0;
    sw.voff = calloc(c->narms + 1, sizeof *sw.voff);
    if (!sw.voff)
        goto oom;
    for (size_t a = 0; a < c->narms; a++) {
        sw.voff[a] = nv;
        nv += c->arms[a].nrounds * APC_KINDS;
    }
    sw.v = calloc(nv + 1, sizeof *sw.v);
    sw.tasks = calloc(nv + 1, sizeof *sw.tasks);
    if (!sw.v || !sw.tasks)
        goto oom;
    for (size_t a = 0; a < c->narms; a++)
        for (size_t q = 0; q < c->arms[a].nrounds; q++)
            for (int ki = 0; ki < c->o.nkinds; ki++)
                if (c->arms[a].rounds[q].rows > 0)
                    sw.tasks[nt++] = (task){a, q, c->o.kinds[ki], sw.voff[a] + q * APC_KINDS + (size_t)c->o.kinds[ki], 0};
    sw.ntasks = nt;

    double ap_live = ap_mean_by_group(live, t->label, t->cutoff, n);
    if (isnan(ap_live)) {
        ut_seterr(err, errlen, "seed %d: a cutoff has no buyer, so its AP is undefined", seed);
        goto done;
    }
    /* The point values: lab/ap.h on every (arm, round, kind), in parallel. */
    if (run_threads(&sw, prep_job) != 0)
        goto oom;
    r->seeds[s] = seed;
    r->live_ap[s] = ap_live;
    for (size_t a = 0; a < c->narms; a++)
        for (size_t q = 0; q < c->arms[a].nrounds; q++)
            for (int k = 0; k < APC_KINDS; k++)
                c->r.arm[a].round_ap[s * c->arms[a].nrounds + q].ap[k] = ap_live;  /* nothing replaced */
    for (size_t i = 0; i < nt; i++) {
        const task *tk = &sw.tasks[i];
        r->arm[tk->a].round_ap[s * c->arms[tk->a].nrounds + tk->q].ap[tk->k] = tk->ap;
    }
    for (size_t a = 0; a < c->narms; a++) {
        const apc_arm *arm = &c->arms[a];
        apc_arm_result *ar = &r->arm[a];
        for (int ki = 0; ki < c->o.nkinds; ki++) {
            int k = c->o.kinds[ki];
            double sum = 0.0;  /* rounds in order; a round with nothing replaced adds exactly 0 */
            for (size_t q = 0; q < arm->nrounds; q++)
                sum += ar->round_ap[s * arm->nrounds + q].ap[k] - ap_live;
            ar->seed_change[k][s] = sum / (double)arm->nrounds;
        }
    }
    if (boot) {
        /* the walk against lab/ap.h, every row counted once */
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
        if (bad)
            goto oom;
        if (!(fabs(wl - ap_live) <= 1e-12)) {
            ut_seterr(err, errlen, "seed %d: the bootstrap's AP %.17g differs from lab/ap.h's %.17g by more "
                      "than 1e-12", seed, wl, ap_live);
            goto done;
        }
        if (svec_make(&c->l, live, t->label, c->cust, tb->scratch, &sw.live_v) != 0)
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
    for (size_t i = 0; i < nv && sw.v; i++)
        svec_free(&sw.v[i]);
    svec_free(&sw.live_v);
    free(sw.v);
    free(sw.voff);
    free(sw.tasks);
    return rc;
}

int apc_finish(apc_ctx *c, char *err, size_t errlen)
{
    apc_result *r = &c->r;
    size_t B = c->o.resamples;
    double *tmp = malloc((B + 1) * sizeof *tmp);
    if (!tmp) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    for (size_t a = 0; a < c->narms; a++) {
        apc_arm_result *ar = &r->arm[a];
        for (int k = 0; k < APC_KINDS; k++) {
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
            ar->lo[k] = apc_percentile(tmp, m, 0.025);
            ar->hi[k] = apc_percentile(tmp, m, 0.975);
        }
    }
    free(tmp);
    return 0;
}

/* ================================================================ the stage */

typedef struct {
    size_t n;
    feat_row *r;
} rows;

static int32_t parse_day(const char *s)
{
    int y, m, d;
    char tail;
    if (strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3 || m < 1 || m > 12 || d < 1 ||
        d > 31)
        return INT32_MIN;
    return ut_days_from_civil(y, m, d);
}

static int parse_f32(const char *s, float *v)
{
    if (!*s)
        return -1;
    char *e;
    errno = 0;
    *v = strtof(s, &e);
    return (*e || errno == EINVAL) ? -1 : 0;
}

/* A tab-separated file with an exact header; cb is called per data line. */
typedef int (*line_cb)(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen);

static int read_tsv(const char *path, const char *header, int nfields, line_cb cb, void *ctx, char *err,
                    size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    if (ut_read_file(path, &buf, &len, err, errlen) != 0)
        return -1;
    int rc = -1;
    size_t lineno = 0;
    char *p = buf, *f[32];
    while (*p) {
        char *nl = strchr(p, '\n');
        if (!nl) {
            ut_seterr(err, errlen, "%s: line %zu does not end with a newline", path, lineno + 1);
            goto done;
        }
        *nl = 0;
        lineno++;
        if (lineno == 1) {
            if (strcmp(p, header) != 0) {
                ut_seterr(err, errlen, "%s: line 1: the header must be \"%s\"", path, header);
                goto done;
            }
        } else {
            int nf = split_tabs(p, f, 31);
            if (nf != nfields) {
                ut_seterr(err, errlen, "%s: line %zu: %d fields, expected %d", path, lineno, nf, nfields);
                goto done;
            }
            if (cb(ctx, f, nf, path, lineno, err, errlen) != 0)
                goto done;
        }
        p = nl + 1;
    }
    if (lineno == 0) {
        ut_seterr(err, errlen, "%s: empty file", path);
        goto done;
    }
    rc = 0;
done:
    free(buf);
    return rc;
}

static int grow_rows(rows *r, const char *path, char *err, size_t errlen)
{
    if ((r->n & (r->n - 1)) == 0 || r->n == 0) {
        size_t cap = r->n ? r->n * 2 : 1024;
        feat_row *nr = realloc(r->r, cap * sizeof *nr);
        if (!nr) {
            ut_seterr(err, errlen, "%s: out of memory", path);
            return -1;
        }
        r->r = nr;
    }
    return 0;
}

static int feats(char **f, float *x, const char *path, size_t lineno, char *err, size_t errlen)
{
    for (int k = 0; k < FEAT_N; k++)
        if (parse_f32(f[k], &x[k]) != 0) {
            ut_seterr(err, errlen, "%s: line %zu: %s \"%s\" is not a number", path, lineno, feat_names[k], f[k]);
            return -1;
        }
    return 0;
}

/* train.tsv: customer cutoff label + 6 */
static int train_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    (void)nf;
    rows *r = ctx;
    if (grow_rows(r, path, err, errlen) != 0)
        return -1;
    feat_row *q = &r->r[r->n];
    long long c, l;
    q->cutoff = parse_day(f[1]);
    if (parse_i64(f[0], &c) != 0 || q->cutoff == INT32_MIN || parse_i64(f[2], &l) != 0 || (l != 0 && l != 1)) {
        ut_seterr(err, errlen, "%s: line %zu: bad customer, cutoff or label", path, lineno);
        return -1;
    }
    q->customer = (int32_t)c;
    q->label = (uint8_t)l;
    if (feats(f + 3, q->x, path, lineno, err, errlen) != 0)
        return -1;
    r->n++;
    return 0;
}

/* test.tsv: row customer cutoff label + 6 (row = line order) */
static int test_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    rows *r = ctx;
    long long row;
    if (parse_i64(f[0], &row) != 0 || row != (long long)r->n) {
        ut_seterr(err, errlen, "%s: line %zu: row \"%s\", expected %zu", path, lineno, f[0], r->n);
        return -1;
    }
    return train_line(ctx, f + 1, nf - 1, path, lineno, err, errlen);
}

typedef struct {
    const rows *test;
    rows prev;
    int32_t *row;   /* test row of each prev line */
    size_t cap;
} prevs;

/* prev.tsv: row customer cutoff + 6 */
static int prev_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    (void)nf;
    prevs *p = ctx;
    long long row, c;
    if (parse_i64(f[0], &row) != 0 || row < 0 || (size_t)row >= p->test->n || parse_i64(f[1], &c) != 0 ||
        c != p->test->r[row].customer || (p->prev.n && row <= p->row[p->prev.n - 1])) {
        ut_seterr(err, errlen, "%s: line %zu: row %s customer %s is not a test row's customer (rows ascending)",
                  path, lineno, f[0], f[1]);
        return -1;
    }
    if (grow_rows(&p->prev, path, err, errlen) != 0)
        return -1;
    if (p->prev.n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 1024;
        int32_t *nr = realloc(p->row, p->cap * sizeof *nr);
        if (!nr) {
            ut_seterr(err, errlen, "%s: out of memory", path);
            return -1;
        }
        p->row = nr;
    }
    feat_row *q = &p->prev.r[p->prev.n];
    q->customer = (int32_t)c;
    q->cutoff = parse_day(f[2]);
    q->label = 0;
    if (q->cutoff == INT32_MIN) {
        ut_seterr(err, errlen, "%s: line %zu: bad cutoff \"%s\"", path, lineno, f[2]);
        return -1;
    }
    if (feats(f + 3, q->x, path, lineno, err, errlen) != 0)
        return -1;
    p->row[p->prev.n] = (int32_t)row;
    p->prev.n++;
    return 0;
}

typedef struct {
    const rows *test;
    size_t n;
    float *score, *last;
} scores;

/* scores.tsv: customer cutoff label score last_known */
static int score_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    (void)nf;
    scores *s = ctx;
    long long c, l;
    if (s->n >= s->test->n) {
        ut_seterr(err, errlen, "%s: line %zu: more lines than test.tsv has rows", path, lineno);
        return -1;
    }
    const feat_row *t = &s->test->r[s->n];
    if (parse_i64(f[0], &c) != 0 || c != t->customer || parse_day(f[1]) != t->cutoff || parse_i64(f[2], &l) != 0 ||
        l != t->label) {
        ut_seterr(err, errlen, "%s: line %zu: customer, cutoff or label differs from test.tsv's row %zu", path,
                  lineno, s->n);
        return -1;
    }
    if (parse_f32(f[3], &s->score[s->n]) != 0 || parse_f32(f[4], &s->last[s->n]) != 0) {
        ut_seterr(err, errlen, "%s: line %zu: bad score or last_known", path, lineno);
        return -1;
    }
    s->n++;
    return 0;
}

static int arm_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    (void)nf;
    json_t *list = ctx;
    const char *a = f[0];
    if (!a[0] || a[0] == '#')
        return 0;
    if (strlen(a) >= 64 || strchr(a, '/') || a[0] == '.') {
        ut_seterr(err, errlen, "%s: line %zu: \"%s\" is not an arm name", path, lineno, a);
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) if (!strcmp(json_string_value(v), a))
    {
        ut_seterr(err, errlen, "%s: line %zu: arm %s named twice", path, lineno, a);
        return -1;
    }
    json_array_append_new(list, json_string(a));
    return 0;
}

static int round_of(const char *name, const char *arm)
{
    size_t la = strlen(arm);
    if (strncmp(name, arm, la) != 0 || name[la] != '-' || name[la + 1] != 'r')
        return -1;
    const char *d = name + la + 2;
    if (!*d || *d == '0' || strlen(d) > 6)
        return -1;
    for (const char *p = d; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    return atoi(d);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The rounds of one arm under raw/, ascending. */
static int list_rounds(const char *raw, const char *arm, int **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(raw);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        ut_seterr(err, errlen, "%s: cannot list: %s", raw, strerror(errno));
        return -1;
    }
    struct dirent *e;
    size_t cap = 0;
    while ((e = readdir(d))) {
        int k = round_of(e->d_name, arm);
        if (k < 1)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            int *nr = realloc(*out, cap * sizeof *nr);
            if (!nr) {
                closedir(d);
                ut_seterr(err, errlen, "out of memory");
                return -1;
            }
            *out = nr;
        }
        (*out)[(*n)++] = k;
    }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_int);
    return 0;
}

static void day_str(int32_t day, char buf[11])
{
    int y, m, d;
    ut_civil_from_days(day, &y, &m, &d);
    snprintf(buf, 11, "%04d-%02d-%02d", y, m, d);
}

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *kinds_obj(const double *v, const int *computed)
{
    json_t *o = json_object();
    for (int k = 0; k < APC_KINDS; k++)
        if (computed[k])
            json_object_set_new(o, apc_kind_names[k], jnum(v[k]));
    return o;
}

static json_t *result_json(const apc_stage_opts *o, const apc_result *r, const apc_arm *arms, size_t narms,
                           json_t *skipped, size_t ntest, float dflt)
{
    json_t *top = json_object();
    json_object_set_new(top, "format", json_string("lab-ap 1"));
    json_object_set_new(top, "definitions", json_string("pipeline/APCOST.md"));
    json_object_set_new(top, "test_rows", json_integer((json_int_t)ntest));
    json_object_set_new(top, "customers", json_integer((json_int_t)r->ncustomers));
    json_t *cuts = json_array();
    char day[11];
    for (size_t g = 0; g < r->ngroups; g++) {
        day_str(r->groups[g], day);
        json_array_append_new(cuts, json_string(day));
    }
    json_object_set_new(top, "cutoffs", cuts);
    json_object_set_new(top, "default_score", json_real((double)dflt));
    json_t *kinds = json_array();
    for (int k = 0; k < APC_KINDS; k++)
        json_array_append_new(kinds, json_string(apc_kind_names[k]));
    json_object_set_new(top, "kinds", kinds);
    json_t *seeds = json_array(), *live = json_array();
    double lsum = 0;
    for (size_t s = 0; s < r->nseeds; s++) {
        json_array_append_new(seeds, json_integer(r->seeds[s]));
        json_array_append_new(live, json_real(r->live_ap[s]));
        lsum += r->live_ap[s];
    }
    json_object_set_new(top, "model_seeds", seeds);
    json_object_set_new(top, "default_seed", json_integer(r->seeds[0]));
    json_object_set_new(top, "live_ap", json_pack("{s:o,s:o,s:o}", "default_seed", json_real(r->live_ap[0]), "mean",
                                                  json_real(lsum / (double)r->nseeds), "per_seed", live));
    json_object_set_new(top, "bootstrap",
                        json_pack("{s:I,s:I,s:I,s:I,s:s}", "resamples", (json_int_t)o->resamples, "seed",
                                  (json_int_t)o->boot_seed, "model_seeds", (json_int_t)r->boot_seeds, "used",
                                  (json_int_t)r->resamples_used, "interval", "percentiles 2.5 and 97.5"));
    json_t *ja = json_object();
    for (size_t a = 0; a < narms; a++) {
        const apc_arm *arm = &arms[a];
        const apc_arm_result *ar = &r->arm[a];
        json_t *jarm = json_object(), *rounds = json_array(), *per = json_array();
        size_t req = 0, sreq = 0, lk = 0, df = 0;
        double rows_share = 0;
        for (size_t q = 0; q < arm->nrounds; q++) {
            const apc_round *rd = &arm->rounds[q];
            json_array_append_new(rounds, json_integer(rd->round));
            size_t si = rd->last_known + rd->dflt;
            req += rd->requests;
            sreq += si;
            lk += rd->last_known;
            df += rd->dflt;
            rows_share += (double)rd->rows / (double)ntest;
            double apv[APC_KINDS], ch[APC_KINDS];
            for (int k = 0; k < APC_KINDS; k++) {
                apv[k] = ar->round_ap[q].ap[k];  /* seed index 0: the default seed */
                ch[k] = apv[k] - r->live_ap[0];
            }
            json_t *jr = json_object();
            json_object_set_new(jr, "round", json_integer(rd->round));
            json_object_set_new(jr, "requests_in_run", json_integer((json_int_t)rd->requests_in_run));
            json_object_set_new(jr, "requests", json_integer((json_int_t)rd->requests));
            json_object_set_new(jr, "live", json_integer((json_int_t)rd->live));
            json_object_set_new(jr, "last_known", json_integer((json_int_t)rd->last_known));
            json_object_set_new(jr, "default", json_integer((json_int_t)rd->dflt));
            json_object_set_new(jr, "error", json_integer((json_int_t)rd->error));
            json_object_set_new(jr, "standin_requests", json_integer((json_int_t)si));
            json_object_set_new(jr, "standin_share", json_real((double)si / (double)rd->requests));
            json_object_set_new(jr, "standin_rows", json_integer((json_int_t)rd->rows));
            json_object_set_new(jr, "standin_rows_share", json_real((double)rd->rows / (double)ntest));
            json_object_set_new(jr, "ap_default_seed", kinds_obj(apv, ar->computed));
            json_object_set_new(jr, "change_default_seed", kinds_obj(ch, ar->computed));
            json_array_append_new(per, jr);
        }
        json_object_set_new(jarm, "rounds", rounds);
        json_object_set_new(jarm, "requests_per_round", json_integer((json_int_t)arm->rounds[0].requests));
        json_object_set_new(jarm, "requests", json_integer((json_int_t)req));
        json_object_set_new(jarm, "standin_requests", json_integer((json_int_t)sreq));
        json_object_set_new(jarm, "last_known_requests", json_integer((json_int_t)lk));
        json_object_set_new(jarm, "default_requests", json_integer((json_int_t)df));
        json_object_set_new(jarm, "standin_share", json_real(req ? (double)sreq / (double)req : 0.0));
        json_object_set_new(jarm, "standin_rows_share", json_real(rows_share / (double)arm->nrounds));
        json_object_set_new(jarm, "per_round", per);
        json_t *jk = json_object();
        for (int k = 0; k < APC_KINDS; k++) {
            if (!ar->computed[k])
                continue;
            json_t *e = json_object(), *ps = json_array();
            for (size_t s = 0; s < r->nseeds; s++)
                json_array_append_new(ps, json_real(ar->seed_change[k][s]));
            json_object_set_new(e, "change", jnum(ar->change[k]));
            json_object_set_new(e, "change_default_seed", jnum(ar->seed_change[k][0]));
            json_object_set_new(e, "change_per_seed", ps);
            int ok = isfinite(ar->lo[k]) && isfinite(ar->hi[k]);
            json_object_set_new(e, "ci95", ok ? json_pack("[f,f]", ar->lo[k], ar->hi[k]) : json_null());
            int zero = ok && ar->lo[k] <= 0.0 && ar->hi[k] >= 0.0;
            json_object_set_new(e, "verdict", json_string(!ok ? "no interval" : zero ? "too close to call"
                                                                                     : "clearly different"));
            json_object_set_new(e, "direction",
                                !ok || zero ? json_null() : json_string(ar->hi[k] < 0.0 ? "lower" : "higher"));
            json_object_set_new(jk, apc_kind_names[k], e);
        }
        json_object_set_new(jarm, "kinds", jk);
        json_object_set_new(ja, arm->name, jarm);
    }
    json_object_set_new(top, "arms", ja);
    json_object_set(top, "skipped_arms", skipped);
    return top;
}

static int pin(prov *pv, const char *path, char *err, size_t errlen)
{
    return pv ? prov_input(pv, path, err, errlen) : 0;
}

static double since(int64_t t0) { return (double)(ut_mono_ns() - t0) / 1e9; }

static void mmss(double s, char *buf, size_t n)
{
    int v = s < 0 ? 0 : s > 359999 ? 359999 : (int)(s + 0.5);
    snprintf(buf, n, "%d:%02d", v / 60, v % 60);
}

int apc_stage(const apc_stage_opts *o, void *pvp, void **ap_out, char *err, size_t errlen)
{
    prov *pv = pvp;
    int rc = -1;
    int64_t t_all = ut_mono_ns();
    rows train = {0}, test = {0};
    prevs pr = {0};
    scores sc = {0};
    apc_arm *arms = NULL;
    size_t narms = 0;
    json_t *names = json_array(), *skipped = json_array(), *summary = NULL, *out = NULL;
    apc_ctx *ctx = NULL;
    uint8_t *lab = NULL;
    int32_t *cut = NULL, *custv = NULL;
    float *live = NULL, *lastk = NULL, *pred = NULL;
    feat_row *both = NULL;
    train_model model = NULL;
    char path[8400];
    if (ap_out)
        *ap_out = NULL;
    if (o->seeds < 1 || o->boot_seeds < 1 || o->boot_seeds > o->seeds || o->resamples < 1) {
        ut_seterr(err, errlen, "need seeds >= 1, 1 <= boot-seeds <= seeds, resamples >= 1");
        goto done;
    }

    /* 1. The chosen arms. */
    if (pin(pv, o->arms, err, errlen) != 0 ||
        read_tsv(o->arms, "arm", 1, arm_line, names, err, errlen) != 0)
        goto done;
    if (json_array_size(names) == 0) {
        ut_seterr(err, errlen, "%s: no arm chosen", o->arms);
        goto done;
    }

    /* 2. The prepared files. */
    json_error_t je;
    snprintf(path, sizeof path, "%s/summary.json", o->prep);
    summary = json_load_file(path, 0, &je);
    if (!summary) {
        ut_seterr(err, errlen, "%s: %s (line %d)", path, je.text, je.line);
        goto done;
    }
    json_t *jd = json_object_get(summary, "default_score"), *jms = json_object_get(summary, "model_seed");
    if (!json_is_number(jd) || !json_is_integer(jms)) {
        ut_seterr(err, errlen, "%s: default_score and model_seed must be numbers", path);
        goto done;
    }
    const float dflt = (float)json_number_value(jd);
    if (json_integer_value(jms) != 1) {
        ut_seterr(err, errlen, "%s: model_seed is %lld; the default seed of the AP study is 1 (prepare with "
                  "--model-seed 1)", path, (long long)json_integer_value(jms));
        goto done;
    }
    if (pin(pv, path, err, errlen) != 0)
        goto done;
    static const char *const fh = "recency\torders_90\tspend_90\torders_365\tspend_365\ttenure";
    char hdr[512];
    snprintf(path, sizeof path, "%s/train.tsv", o->prep);
    snprintf(hdr, sizeof hdr, "customer\tcutoff\tlabel\t%s", fh);
    if (pin(pv, path, err, errlen) != 0 || read_tsv(path, hdr, 9, train_line, &train, err, errlen) != 0)
        goto done;
    snprintf(path, sizeof path, "%s/test.tsv", o->prep);
    snprintf(hdr, sizeof hdr, "row\tcustomer\tcutoff\tlabel\t%s", fh);
    if (pin(pv, path, err, errlen) != 0 || read_tsv(path, hdr, 10, test_line, &test, err, errlen) != 0)
        goto done;
    size_t n = test.n;
    json_t *jtr = json_object_get(summary, "test_rows");
    if (json_is_integer(jtr) && (size_t)json_integer_value(jtr) != n) {
        ut_seterr(err, errlen, "%s/test.tsv: %zu rows, summary.json says %lld", o->prep, n,
                  (long long)json_integer_value(jtr));
        goto done;
    }
    pr.test = &test;
    snprintf(path, sizeof path, "%s/prev.tsv", o->prep);
    snprintf(hdr, sizeof hdr, "row\tcustomer\tcutoff\t%s", fh);
    if (pin(pv, path, err, errlen) != 0 || read_tsv(path, hdr, 9, prev_line, &pr, err, errlen) != 0)
        goto done;
    sc.test = &test;
    sc.score = malloc(n * sizeof(float));
    sc.last = malloc(n * sizeof(float));
    if (!sc.score || !sc.last)
        goto oom;
    snprintf(path, sizeof path, "%s/scores.tsv", o->prep);
    if (pin(pv, path, err, errlen) != 0 ||
        read_tsv(path, "customer\tcutoff\tlabel\tscore\tlast_known", 5, score_line, &sc, err, errlen) != 0)
        goto done;
    if (sc.n != n) {
        ut_seterr(err, errlen, "%s: %zu lines, test.tsv has %zu rows", path, sc.n, n);
        goto done;
    }
    /* The default score is the training buyers' share. */
    double buyers = 0;
    for (size_t i = 0; i < train.n; i++)
        buyers += train.r[i].label;
    if (train.n == 0 || (float)(buyers / (double)train.n) != dflt) {
        ut_seterr(err, errlen, "%s/summary.json: default_score %.9g is not the training buyers' share %.9g of "
                  "train.tsv", o->prep, dflt, train.n ? (float)(buyers / (double)train.n) : 0.0f);
        goto done;
    }

    /* 3. The runs of each chosen arm. */
    char raw[4200];
    snprintf(raw, sizeof raw, "%s/results/raw", o->root);
    arms = calloc(json_array_size(names), sizeof *arms);
    if (!arms)
        goto oom;
    size_t ai;
    json_t *jn;
    json_array_foreach(names, ai, jn)
    {
        const char *name = json_string_value(jn);
        int *ks = NULL;
        size_t nk = 0;
        if (list_rounds(raw, name, &ks, &nk, err, errlen) != 0)
            goto done;
        if (nk == 0) {
            printf("ap: arm %s has no runs under %s: skipped\n", name, raw);
            json_array_append_new(skipped, json_string(name));
            continue;
        }
        apc_arm *arm = &arms[narms++];
        snprintf(arm->name, sizeof arm->name, "%s", name);
        arm->rounds = calloc(nk, sizeof *arm->rounds);
        apc_raw *rr = calloc(nk, sizeof *rr);
        if (!arm->rounds || !rr) {
            free(ks);
            free(rr);
            goto oom;
        }
        int bad = 0;
        size_t m = SIZE_MAX;
        for (size_t q = 0; q < nk && !bad; q++) {
            snprintf(path, sizeof path, "%s/%s-r%d/tester.tsv.gz", raw, name, ks[q]);
            bad = pin(pv, path, err, errlen) != 0 || apc_read_tester(path, n, &rr[q], err, errlen) != 0;
            if (!bad && rr[q].n < m)
                m = rr[q].n;
        }
        for (size_t q = 0; q < nk && !bad; q++) {
            bad = apc_round_select(&rr[q], ks[q], m, n, &arm->rounds[q], err, errlen) != 0;
            if (!bad)
                arm->nrounds++;
        }
        for (size_t q = 0; q < nk; q++)
            apc_raw_free(&rr[q]);
        free(rr);
        free(ks);
        if (bad)
            goto done;
        if (o->verbose) {
            size_t si = 0, rws = 0;
            for (size_t q = 0; q < arm->nrounds; q++) {
                si += arm->rounds[q].last_known + arm->rounds[q].dflt;
                rws += arm->rounds[q].rows;
            }
            printf("ap: %s: %zu rounds, first %zu requests of each: %zu stand-ins (%.2f%%), %zu table rows "
                   "replaced per round on average\n",
                   name, arm->nrounds, m, si, 100.0 * (double)si / (double)(m * arm->nrounds),
                   rws / arm->nrounds);
        }
    }
    if (narms == 0) {
        ut_seterr(err, errlen, "none of the arms of %s has runs under %s: nothing to measure", o->arms, raw);
        goto done;
    }

    /* 4. The computation, one model seed at a time. */
    lab = malloc(n);
    cut = malloc(n * sizeof *cut);
    custv = malloc(n * sizeof *custv);
    live = malloc(n * sizeof *live);
    lastk = malloc(n * sizeof *lastk);
    both = malloc((n + pr.prev.n) * sizeof *both);
    pred = malloc((n + pr.prev.n) * sizeof *pred);
    if (!lab || !cut || !custv || !live || !lastk || !both || !pred)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        lab[i] = test.r[i].label;
        cut[i] = test.r[i].cutoff;
        custv[i] = test.r[i].customer;
        both[i] = test.r[i];
    }
    memcpy(both + n, pr.prev.r, pr.prev.n * sizeof *both);
    apc_table tab = {n, cut, lab, custv};
    apc_opts ao = {o->resamples, o->boot_seed, o->threads, 3, {APC_LAST_KNOWN, APC_DEFAULT, APC_NONE}};
    ctx = apc_new(&tab, arms, narms, (size_t)o->seeds, &ao, err, errlen);
    if (!ctx)
        goto done;
    if (o->verbose) {
        printf("ap: %zu test rows, %zu customers, %zu cutoffs; %d model seeds, bootstrap of %zu resamples "
               "over seeds 1..%d, %d thread%s (%.1f s)\n",
               n, apc_result_of(ctx)->ncustomers, apc_result_of(ctx)->ngroups, o->seeds, o->resamples,
               o->boot_seeds, o->threads, o->threads == 1 ? "" : "s", since(t_all));
        fflush(stdout);
    }
    double t_train = 0, t_boot = 0;
    int64_t t_loop = ut_mono_ns();
    for (int s = 1; s <= o->seeds; s++) {
        int64_t t0 = ut_mono_ns();
        double tr = 0;
        /* Seed s: trained on train.tsv with train_defaults but the seed;
         * live = its scores of test.tsv, lastk = its scores of prev.tsv, or
         * the default score for rows without one.  Seed 1 is trained too, as
         * a check: it must give prepare's reference scores (scores.tsv) bit
         * for bit, which are then the ones used. */
        train_params tp;
        train_defaults(&tp);
        tp.seed = s;
        if (train_fit(train.r, train.n, &tp, &model, err, errlen) != 0 ||
            train_predict(model, both, n + pr.prev.n, pred, err, errlen) != 0)
            goto done;
        train_free(model);
        model = NULL;
        memcpy(live, pred, n * sizeof *live);
        for (size_t i = 0; i < n; i++)
            lastk[i] = dflt;
        for (size_t i = 0; i < pr.prev.n; i++)
            lastk[pr.row[i]] = pred[n + i];
        tr = since(t0);
        t_train += tr;
        if (s == 1) {
            for (size_t i = 0; i < n; i++)
                if (memcmp(&live[i], &sc.score[i], sizeof(float)) != 0 ||
                    memcmp(&lastk[i], &sc.last[i], sizeof(float)) != 0) {
                    ut_seterr(err, errlen, "%s/scores.tsv: row %zu: score %.9g, last_known %.9g, but model seed 1 "
                              "trained on train.tsv gives %.9g, %.9g: the prepared files do not belong together",
                              o->prep, i, sc.score[i], sc.last[i], live[i], lastk[i]);
                    goto done;
                }
            memcpy(live, sc.score, n * sizeof *live);
            memcpy(lastk, sc.last, n * sizeof *lastk);
        }
        double bs = 0;
        if (apc_add_seed(ctx, s, live, lastk, dflt, s <= o->boot_seeds, &bs, err, errlen) != 0)
            goto done;
        t_boot += bs;
        if (o->verbose) {
            double el = since(t_loop), left = el / s * (o->seeds - s);
            char e1[24], e2[24];
            mmss(since(t_all), e1, sizeof e1);
            mmss(left, e2, sizeof e2);
            printf("ap: model seed %d of %d: trained in %.2f s%s, live AP %.4f, bootstrap %.2f s; elapsed %s, "
                   "left ~%s\n",
                   s, o->seeds, tr, s == 1 ? " (= scores.tsv on every row)" : "",
                   apc_result_of(ctx)->live_ap[s - 1], bs, e1, e2);
            fflush(stdout);
        }
    }
    if (apc_finish(ctx, err, errlen) != 0)
        goto done;

    /* 5. results/ap.json */
    out = result_json(o, apc_result_of(ctx), arms, narms, skipped, n, dflt);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/results", o->root);
    snprintf(path, sizeof path, "%s/results/ap.json", o->root);
    char *text = json_dumps(out, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    if (!text)
        goto oom;
    size_t tl = strlen(text);
    char *t2 = realloc(text, tl + 2);
    if (!t2) {
        free(text);
        goto oom;
    }
    t2[tl] = '\n';  /* a trailing newline */
    t2[tl + 1] = 0;
    int bad = ut_mkdir_p(dir, err, errlen) != 0 || ut_write_file(path, t2, tl + 1, err, errlen) != 0;
    free(t2);
    if (bad || (pv && prov_output(pv, path, err, errlen) != 0))
        goto done;
    if (pv) {
        char vb[64];
        train_version(vb, sizeof vb);
        prov_lib(pv, "xgboost", vb + 8);
        prov_facts(pv, json_pack("{s:f,s:f,s:f,s:i}", "train_s", t_train, "bootstrap_s", t_boot, "total_s",
                                 since(t_all), "threads", o->threads));
    }
    if (o->verbose) {
        const apc_result *r = apc_result_of(ctx);
        for (size_t a = 0; a < narms; a++)
            for (int k = 0; k < APC_KINDS; k++)
                printf("ap: %-10s %-10s change in AP %+.5f  95%% [%+.5f, %+.5f]  (default seed %+.5f)\n",
                       arms[a].name, apc_kind_names[k], r->arm[a].change[k], r->arm[a].lo[k], r->arm[a].hi[k],
                       r->arm[a].seed_change[k][0]);
        printf("ap: wrote %s in %.1f s (training %.1f s, bootstrap %.1f s)\n", path, since(t_all), t_train,
               t_boot);
    }
    if (ap_out) {
        *ap_out = out;
        out = NULL;
    }
    rc = 0;
    goto done;
oom:
    ut_seterr(err, errlen, "out of memory");
done:
    train_free(model);
    apc_free(ctx);
    for (size_t a = 0; a < narms; a++) {
        for (size_t q = 0; q < arms[a].nrounds; q++)
            apc_round_free(&arms[a].rounds[q]);
        free(arms[a].rounds);
    }
    free(arms);
    free(train.r);
    free(test.r);
    free(pr.prev.r);
    free(pr.row);
    free(sc.score);
    free(sc.last);
    free(lab);
    free(cut);
    free(custv);
    free(live);
    free(lastk);
    free(both);
    free(pred);
    json_decref(names);
    json_decref(skipped);
    json_decref(summary);
    json_decref(out);
    return rc;
}

/* ================================================================ cost */

int apc_parse_utc(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, se;
    char z = 0, tail;
    if (!s || strlen(s) != 20 ||
        sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c%c", &y, &mo, &d, &h, &mi, &se, &z, &tail) != 7 || z != 'Z' ||
        s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return -1;
    for (int i = 0; i < 19; i++)
        if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (s[i] < '0' || s[i] > '9'))
            return -1;
    if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59)
        return -1;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap))
        return -1;
    *out = (int64_t)ut_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names in dir ending with suffix (and, if prefix, starting with it). */
static int names_in(const char *dir, const char *prefix, const char *suffix, int dirs, char ***out, size_t *n,
                    char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        ut_seterr(err, errlen, "%s: cannot list: %s", dir, strerror(errno));
        return -1;
    }
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name), ls = strlen(suffix), lp = prefix ? strlen(prefix) : 0;
        if (e->d_name[0] == '.' || l < ls + lp || strcmp(e->d_name + l - ls, suffix) != 0 ||
            (prefix && strncmp(e->d_name, prefix, lp) != 0))
            continue;
        char full[4200];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(full, &st) != 0 || (dirs ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(*out, cap * sizeof *nv);
            if (!nv) {
                closedir(d);
                ut_seterr(err, errlen, "out of memory");
                return -1;
            }
            *out = nv;
        }
        (*out)[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_str);
    return 0;
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int num_field(json_t *o, const char *k, double *v)
{
    json_t *x = json_object_get(o, k);
    if (!json_is_number(x))
        return -1;
    *v = json_number_value(x);
    return 0;
}

/* Keep the earliest start and latest end of the records seen. */
static void span_add(json_t *o, int64_t *first, int64_t *last, const char **fs, const char **ls)
{
    const char *a = json_string_value(json_object_get(o, "start_utc"));
    const char *b = json_string_value(json_object_get(o, "end_utc"));
    int64_t ta, tb;
    if (a && apc_parse_utc(a, &ta) == 0 && ta < *first) {
        *first = ta;
        *fs = a;
    }
    if (b && apc_parse_utc(b, &tb) == 0 && tb > *last) {
        *last = tb;
        *ls = b;
    }
}

/* The cpu block of a run: {tester,service,store: {user_s, sys_s}}; total in *cpu. */
static json_t *cpu_block(json_t *cpu, double *total)
{
    static const char *const who[] = {"tester", "service", "store"};
    json_t *o = json_object();
    *total = 0;
    for (int i = 0; i < 3; i++) {
        json_t *p = json_object_get(cpu, who[i]);
        double u, s;
        if (!p || num_field(p, "user_s", &u) != 0 || num_field(p, "sys_s", &s) != 0) {
            json_decref(o);
            return NULL;
        }
        json_object_set_new(o, who[i], json_pack("{s:f,s:f}", "user_s", u, "sys_s", s));
        *total += u + s;
    }
    return o;
}

int apc_cost_json(const char *root, const char *start, const char *end, double price_per_hour, void **outp,
                  char *err, size_t errlen)
{
    *outp = NULL;
    int rc = -1;
    char dir[4200], path[8800];
    char **st = NULL, **rn = NULL, **raw = NULL;
    size_t nst = 0, nrn = 0, nraw = 0;
    json_t *top = json_object(), *stages = json_array(), *runs = json_array(), *rec = NULL;
    int64_t first = INT64_MAX, last = INT64_MIN;
    const char *fs = NULL, *ls = NULL;
    double st_wall = 0, st_cpu = 0, st_wall_no_measure = 0, run_wall = 0, run_cpu = 0;
    int given = (start != NULL) + (end != NULL) + (price_per_hour >= 0);
    int64_t ts = 0, te = 0;
    if (given != 0 && given != 3) {
        ut_seterr(err, errlen, "the rental settings go together: --start, --end and --price-per-hour");
        goto done;
    }
    if (given == 3) {
        if (apc_parse_utc(start, &ts) != 0 || apc_parse_utc(end, &te) != 0) {
            ut_seterr(err, errlen, "--start and --end must be UTC times like 2026-11-30T05:29:36Z (got \"%s\", "
                      "\"%s\")", start, end);
            goto done;
        }
        if (te < ts) {
            ut_seterr(err, errlen, "--end %s is before --start %s", end, start);
            goto done;
        }
        if (!isfinite(price_per_hour)) {
            ut_seterr(err, errlen, "--price-per-hour must be a number >= 0");
            goto done;
        }
    }
    /* stages */
    snprintf(dir, sizeof dir, "%s/provenance", root);
    if (names_in(dir, "stage-", ".json", 0, &st, &nst, err, errlen) != 0)
        goto done;
    for (size_t i = 0; i < nst; i++) {
        json_error_t je;
        if (!strcmp(st[i], "stage-cost.json"))
            continue;  /* cost's own record: not part of the measurement */
        snprintf(path, sizeof path, "%s/%s", dir, st[i]);
        rec = json_load_file(path, 0, &je);
        double w, u, s;
        if (!rec || num_field(rec, "wall_s", &w) != 0 || num_field(rec, "cpu_user_s", &u) != 0 ||
            num_field(rec, "cpu_sys_s", &s) != 0) {
            ut_seterr(err, errlen, "%s: %s", path,
                      rec ? "needs numbers wall_s, cpu_user_s and cpu_sys_s" : je.text);
            goto done;
        }
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(st[i]) - 11), st[i] + 6);
        json_t *e = json_object();
        json_object_set_new(e, "stage", json_string(name));
        json_object_set(e, "start_utc", json_object_get(rec, "start_utc") ?: json_null());
        json_object_set(e, "end_utc", json_object_get(rec, "end_utc") ?: json_null());
        json_object_set(e, "exit_code", json_object_get(rec, "exit_code") ?: json_null());
        json_object_set_new(e, "wall_s", json_real(w));
        json_object_set_new(e, "cpu_user_s", json_real(u));
        json_object_set_new(e, "cpu_sys_s", json_real(s));
        json_object_set_new(e, "cpu_s", json_real(u + s));
        json_array_append_new(stages, e);
        st_wall += w;
        st_cpu += u + s;
        if (strcmp(name, "measure") != 0)
            st_wall_no_measure += w;
        span_add(rec, &first, &last, &fs, &ls);
        json_decref(rec);
        rec = NULL;
    }
    /* runs: measure's records first, then run.json of runs without one */
    snprintf(dir, sizeof dir, "%s/provenance/runs", root);
    if (names_in(dir, NULL, ".json", 0, &rn, &nrn, err, errlen) != 0)
        goto done;
    for (size_t i = 0; i < nrn; i++)
        rn[i][strlen(rn[i]) - 5] = 0;  /* the run's name: merged with raw/ in name order */
    if (nrn)
        qsort(rn, nrn, sizeof *rn, cmp_str);
    char rawdir[4200];
    snprintf(rawdir, sizeof rawdir, "%s/results/raw", root);
    if (names_in(rawdir, NULL, "", 1, &raw, &nraw, err, errlen) != 0)
        goto done;
    size_t ir = 0, iw = 0;
    while (ir < nrn || iw < nraw) {
        /* merge the two sorted lists by run name */
        char rname[256] = "";
        int from_rec;
        if (ir < nrn) {
            char cand[256];
            snprintf(cand, sizeof cand, "%s", rn[ir]);
            if (iw < nraw && strcmp(raw[iw], cand) < 0) {
                snprintf(rname, sizeof rname, "%s", raw[iw++]);
                from_rec = 0;
            } else {
                snprintf(rname, sizeof rname, "%s", cand);
                if (iw < nraw && !strcmp(raw[iw], cand))
                    iw++;
                ir++;
                from_rec = 1;
            }
        } else {
            snprintf(rname, sizeof rname, "%s", raw[iw++]);
            from_rec = 0;
        }
        json_error_t je;
        if (from_rec)
            snprintf(path, sizeof path, "%s/%s.json", dir, rname);
        else
            snprintf(path, sizeof path, "%s/%s/run.json", rawdir, rname);
        rec = json_load_file(path, 0, &je);
        if (!rec) {
            if (!from_rec && access(path, F_OK) != 0)
                continue;  /* a folder without run.json: not a run */
            ut_seterr(err, errlen, "%s: %s", path, je.text);
            goto done;
        }
        json_t *e = json_object();
        json_object_set_new(e, "run", json_string(rname));
        json_object_set_new(e, "source", json_string(from_rec ? "provenance/runs" : "results/raw run.json"));
        json_object_set(e, "start_utc", json_object_get(rec, "start_utc") ?: json_null());
        json_object_set(e, "end_utc", json_object_get(rec, "end_utc") ?: json_null());
        double w = NAN;
        if (from_rec) {
            json_object_set(e, "exit_code", json_object_get(rec, "exit_code") ?: json_null());
            num_field(rec, "wall_s", &w);
        } else {
            int64_t a, b;
            const char *sa = json_string_value(json_object_get(rec, "start_utc"));
            const char *sb = json_string_value(json_object_get(rec, "end_utc"));
            json_object_set_new(e, "exit_code", json_integer(0));
            if (sa && sb && apc_parse_utc(sa, &a) == 0 && apc_parse_utc(sb, &b) == 0)
                w = (double)(b - a);
        }
        if (!isfinite(w)) {
            ut_seterr(err, errlen, "%s: no wall time (wall_s, or start_utc and end_utc)", path);
            json_decref(e);
            goto done;
        }
        double c = 0;
        json_t *cb = cpu_block(json_object_get(rec, "cpu"), &c);
        json_object_set_new(e, "wall_s", json_real(w));
        json_object_set_new(e, "cpu_s", cb ? json_real(c) : json_null());
        json_object_set_new(e, "cpu", cb ? cb : json_null());
        json_array_append_new(runs, e);
        run_wall += w;
        run_cpu += cb ? c : 0;
        span_add(rec, &first, &last, &fs, &ls);
        json_decref(rec);
        rec = NULL;
    }
    double wall = st_wall_no_measure + run_wall, cpu = st_cpu + run_cpu;
    json_object_set_new(top, "format", json_string("lab-cost 1"));
    json_object_set_new(top, "definitions", json_string("pipeline/APCOST.md"));
    json_object_set_new(top, "stages", stages);
    json_object_set_new(top, "runs", runs);
    stages = runs = NULL;
    json_t *tot = json_object();
    json_object_set_new(tot, "stages", json_integer((json_int_t)json_array_size(json_object_get(top, "stages"))));
    json_object_set_new(tot, "runs", json_integer((json_int_t)json_array_size(json_object_get(top, "runs"))));
    json_object_set_new(tot, "stages_wall_s", json_real(st_wall));
    json_object_set_new(tot, "stages_cpu_s", json_real(st_cpu));
    json_object_set_new(tot, "runs_wall_s", json_real(run_wall));
    json_object_set_new(tot, "runs_cpu_s", json_real(run_cpu));
    json_object_set_new(tot, "wall_s", json_real(wall));
    json_object_set_new(tot, "cpu_s", json_real(cpu));
    json_object_set_new(tot, "machine_hours", json_real(wall / 3600.0));
    json_object_set_new(tot, "first_start_utc", fs ? json_string(fs) : json_null());
    json_object_set_new(tot, "last_end_utc", ls ? json_string(ls) : json_null());
    json_object_set_new(tot, "span_s", fs && ls ? json_integer((json_int_t)(last - first)) : json_null());
    json_object_set_new(top, "totals", tot);
    json_t *rent = json_object();
    if (given == 3) {
        double hours = (double)(te - ts) / 3600.0;
        json_object_set_new(rent, "start_utc", json_string(start));
        json_object_set_new(rent, "end_utc", json_string(end));
        json_object_set_new(rent, "hours", json_real(hours));
        json_object_set_new(rent, "price_per_hour_usd", json_real(price_per_hour));
        json_object_set_new(rent, "price_usd", json_real(hours * price_per_hour));
        json_object_set_new(rent, "covers_records",
                            fs && ls ? json_boolean(first >= ts && last <= te) : json_null());
        json_object_set_new(rent, "note", json_null());
    } else {
        json_object_set_new(rent, "start_utc", json_null());
        json_object_set_new(rent, "end_utc", json_null());
        json_object_set_new(rent, "hours", json_null());
        json_object_set_new(rent, "price_per_hour_usd", json_null());
        json_object_set_new(rent, "price_usd", json_null());
        json_object_set_new(rent, "covers_records", json_null());
        json_object_set_new(rent, "note", json_string("no rented machine given (--start, --end, --price-per-hour): "
                                                      "no price"));
    }
    json_object_set_new(top, "rental", rent);
    *outp = top;
    top = NULL;
    rc = 0;
done:
    json_decref(rec);
    json_decref(stages);
    json_decref(runs);
    json_decref(top);
    free_names(st, nst);
    free_names(rn, nrn);
    free_names(raw, nraw);
    return rc;
}
