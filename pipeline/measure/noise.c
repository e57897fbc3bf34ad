/* noise: see noise.h for the contract. */
#include "noise.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rawfmt.h"
#include "tsv.h"
#include "util.h"

#define NOISE_FIRST "# lab-noise 1: "
#define NOISE_HEADER "rate\twhat\tk\tvalue"

static const int RATES[NOISE_NRATES] = {300, 450};

typedef struct {
    int64_t *v;
    size_t n, cap;
} vec;

static int vec_add(vec *a, int64_t x)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? 2 * a->cap : 4096;
        int64_t *p = realloc(a->v, nc * sizeof *p);
        if (!p)
            return -1;
        a->v = p;
        a->cap = nc;
    }
    a->v[a->n++] = x;
    return 0;
}

/* The store's answered lookups by (req, attempt): open addressing. */
typedef struct {
    uint64_t *key; /* key + 1; 0 empty */
    int64_t *over;
    size_t cap;
} omap;

static uint64_t okey(int64_t req, int64_t att) { return ((uint64_t)req << 16 | (uint64_t)(att & 0xffff)) + 1; }

static int omap_init(omap *m, size_t n)
{
    m->cap = 1024;
    while (m->cap < 2 * n + 1)
        m->cap *= 2;
    m->key = calloc(m->cap, sizeof *m->key);
    m->over = malloc(m->cap * sizeof *m->over);
    return m->key && m->over ? 0 : -1;
}

static void omap_put(omap *m, uint64_t k, int64_t over)
{
    size_t i = (size_t)(ut_mix64(k) & (m->cap - 1));
    while (m->key[i] && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    m->key[i] = k;
    m->over[i] = over;
}

static int omap_get(const omap *m, uint64_t k, int64_t *over)
{
    size_t i = (size_t)(ut_mix64(k) & (m->cap - 1));
    while (m->key[i]) {
        if (m->key[i] == k) {
            *over = m->over[i];
            return 1;
        }
        i = (i + 1) & (m->cap - 1);
    }
    return 0;
}

static void omap_free(omap *m)
{
    free(m->key);
    free(m->over);
}

typedef struct {
    vec trips, over;
    double *run_mean;
    size_t nrun, caprun;
} acc;

/* One run's lookups into a; 0, or -1 with err. */
static int fit_run(acc *a, const char *dir, char *err, size_t errlen)
{
    char path[4600];
    rawfmt_file st = {0}, sv = {0};
    snprintf(path, sizeof path, "%s/store.tsv.gz", dir);
    if (rawfmt_read(path, RAWFMT_STORE4, &st, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/service.tsv.gz", dir);
    if (rawfmt_read(path, RAWFMT_SERVICE4, &sv, err, errlen) != 0) {
        rawfmt_file_free(&st);
        return -1;
    }
    omap m;
    int rc = omap_init(&m, st.n);
    for (size_t i = 0; rc == 0 && i < st.n; i++)
        if (st.col[RAWFMT_STORE4_outcome][i] == 'A' && st.col[RAWFMT_STORE4_end_us][i] != RAW_NONE)
            omap_put(&m, okey(st.col[RAWFMT_STORE4_req][i], st.col[RAWFMT_STORE4_attempt][i]),
                     st.col[RAWFMT_STORE4_end_us][i]);
    double sum = 0;
    size_t n = 0;
    static const int K_END[5] = {RAWFMT_SERVICE4_a0_end_us, RAWFMT_SERVICE4_a1_end_us, RAWFMT_SERVICE4_a2_end_us,
                                 RAWFMT_SERVICE4_a3_end_us, RAWFMT_SERVICE4_a4_end_us};
    static const int K_OUT[5] = {RAWFMT_SERVICE4_a0_out, RAWFMT_SERVICE4_a1_out, RAWFMT_SERVICE4_a2_out,
                                 RAWFMT_SERVICE4_a3_out, RAWFMT_SERVICE4_a4_out};
    for (size_t i = 0; rc == 0 && i < sv.n; i++) {
        int64_t req = sv.col[RAWFMT_SERVICE4_req][i];
        if (req == RAW_NONE)
            continue;
        for (int k = 0; k < 5 && rc == 0; k++) {
            int64_t end = sv.col[K_END[k]][i], over;
            if (sv.col[K_OUT[k]][i] != 'A' || end == RAW_NONE || !omap_get(&m, okey(req, k), &over))
                continue;
            int64_t trips = end - over; /* both in us: the answer's extra time less the store's */
            if (vec_add(&a->trips, trips * 1000) != 0 || vec_add(&a->over, over * 1000) != 0)
                rc = -1;
            sum += (double)trips * 1000;
            n++;
        }
    }
    if (rc != 0)
        ut_seterr(err, errlen, "out of memory");
    if (rc == 0 && n > 0) {
        if (a->nrun == a->caprun) {
            size_t nc = a->caprun ? 2 * a->caprun : 64;
            double *p = realloc(a->run_mean, nc * sizeof *p);
            if (!p) {
                ut_seterr(err, errlen, "out of memory");
                rc = -1;
            } else {
                a->run_mean = p;
                a->caprun = nc;
            }
        }
        if (rc == 0)
            a->run_mean[a->nrun++] = sum / (double)n;
    }
    omap_free(&m);
    rawfmt_file_free(&st);
    rawfmt_file_free(&sv);
    return rc;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void quantiles(vec *v, int64_t q[NOISE_NQ])
{
    qsort(v->v, v->n, sizeof *v->v, cmp_i64);
    for (int k = 0; k < NOISE_NQ; k++)
        q[k] = (int64_t)llround(ut_pct_sorted(v->v, v->n, (double)k / (NOISE_NQ - 1)));
}

/* Whether run.json at dir says an open-loop arm without a fault, quiet; its rate. */
static int usable(const char *dir, int *rate)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *r = json_load_file(path, 0, NULL);
    if (!r)
        return 0;
    json_t *q = json_object_get(json_object_get(r, "quiet"), "quiet");
    const char *fault = json_string_value(json_object_get(json_object_get(r, "fault"), "name"));
    *rate = (int)json_integer_value(json_object_get(r, "rate"));
    int ok = json_is_true(q) && fault && !strcmp(fault, "none") && *rate > 0;
    json_decref(r);
    return ok;
}

int noise_fit(noise_model *m, const char *root, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    char raw[4096], path[4200];
    snprintf(raw, sizeof raw, "%s/results/raw", root);
    snprintf(path, sizeof path, "%s/results/results.json", root);
    json_t *res = json_load_file(path, 0, NULL), *runs = json_object_get(res, "runs");
    DIR *d = opendir(raw);
    if (!d) {
        ut_seterr(err, errlen, "%s: %s", raw, strerror(errno));
        json_decref(res);
        return -1;
    }
    acc A[NOISE_NRATES];
    memset(A, 0, sizeof A);
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char dir[4400];
        snprintf(dir, sizeof dir, "%s/%s", raw, e->d_name);
        int rate, gi = -1;
        if (!usable(dir, &rate))
            continue;
        for (int i = 0; i < NOISE_NRATES; i++)
            if (RATES[i] == rate)
                gi = i;
        if (gi < 0 || json_is_true(json_object_get(json_object_get(runs, e->d_name), "flooded")))
            continue;
        rc = fit_run(&A[gi], dir, err, errlen);
    }
    closedir(d);
    json_decref(res);
    for (int i = 0; rc == 0 && i < NOISE_NRATES; i++) {
        if (A[i].trips.n == 0)
            continue;
        noise_group *g = &m->g[m->ng++];
        g->rate = RATES[i];
        g->runs = (long)A[i].nrun;
        g->lookups = (long)A[i].trips.n;
        double pooled = 0;
        for (size_t k = 0; k < A[i].trips.n; k++)
            pooled += (double)A[i].trips.v[k];
        pooled /= (double)A[i].trips.n;
        quantiles(&A[i].trips, g->trips);
        quantiles(&A[i].over, g->over);
        g->scale = A[i].run_mean;
        g->nscale = A[i].nrun;
        A[i].run_mean = NULL;
        for (size_t k = 0; k < g->nscale; k++)
            g->scale[k] = pooled > 0 ? g->scale[k] / pooled : 1.0;
        qsort(g->scale, g->nscale, sizeof *g->scale, cmp_dbl);
    }
    for (int i = 0; i < NOISE_NRATES; i++) {
        free(A[i].trips.v);
        free(A[i].over.v);
        free(A[i].run_mean);
    }
    if (rc == 0 && m->ng == 0) {
        ut_seterr(err, errlen, "%s: no quiet open-loop run without a fault or a flood to fit on", raw);
        rc = -1;
    }
    if (rc != 0)
        noise_free(m);
    return rc;
}

int noise_write(const noise_model *m, const char *path, const char *source, char *err, size_t errlen)
{
    ut_afile f;
    if (ut_aopen(&f, path, err, errlen) != 0)
        return -1;
    fprintf(f.f, NOISE_FIRST "%s\n" NOISE_HEADER "\n", source);
    for (int i = 0; i < m->ng; i++) {
        const noise_group *g = &m->g[i];
        fprintf(f.f, "%d\truns\t0\t%ld\n%d\tlookups\t0\t%ld\n", g->rate, g->runs, g->rate, g->lookups);
        for (int k = 0; k < NOISE_NQ; k++)
            fprintf(f.f, "%d\ttrips\t%d\t%lld\n", g->rate, k, (long long)g->trips[k]);
        for (int k = 0; k < NOISE_NQ; k++)
            fprintf(f.f, "%d\tover\t%d\t%lld\n", g->rate, k, (long long)g->over[k]);
        for (size_t k = 0; k < g->nscale; k++)
            fprintf(f.f, "%d\tscale\t%zu\t%.6f\n", g->rate, k, g->scale[k]);
    }
    return ut_aclose(&f, 1, err, errlen);
}

/* ------------------------------------------------------------ reading */

typedef struct {
    noise_model *m;
    int nt[NOISE_NRATES], no[NOISE_NRATES];
} rd_ctx;

static int on_line(void *vc, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    rd_ctx *c = vc;
    char *end;
    long rate = strtol(f[0], &end, 10);
    int gi = -1;
    for (int i = 0; *f[0] && !*end && i < NOISE_NRATES; i++)
        if (RATES[i] == rate)
            gi = i;
    if (gi < 0)
        return tsv_field_err(err, errlen, at, "rate", f[0], "is neither 300 nor 450");
    noise_group *g = &c->m->g[gi];
    g->rate = (int)rate;
    long k = strtol(f[2], &end, 10);
    if (!*f[2] || *end || k < 0)
        return tsv_field_err(err, errlen, at, "k", f[2], "is not a whole number >= 0");
    errno = 0;
    double v = strtod(f[3], &end);
    if (!*f[3] || *end || errno || !isfinite(v))
        return tsv_field_err(err, errlen, at, "value", f[3], "is not a number");
    if (!strcmp(f[1], "runs") || !strcmp(f[1], "lookups")) {
        *(!strcmp(f[1], "runs") ? &g->runs : &g->lookups) = (long)v;
    } else if (!strcmp(f[1], "trips") || !strcmp(f[1], "over")) {
        int *n = !strcmp(f[1], "trips") ? &c->nt[gi] : &c->no[gi];
        int64_t *q = !strcmp(f[1], "trips") ? g->trips : g->over;
        if (k != *n || k >= NOISE_NQ)
            return tsv_field_err(err, errlen, at, "k", f[2], "out of order (%d expected, at most %d)", *n,
                                 NOISE_NQ - 1);
        q[k] = (int64_t)v;
        if (k > 0 && q[k] < q[k - 1])
            return tsv_field_err(err, errlen, at, "value", f[3], "below the quantile before it");
        (*n)++;
    } else if (!strcmp(f[1], "scale")) {
        if ((size_t)k != g->nscale)
            return tsv_field_err(err, errlen, at, "k", f[2], "out of order (%zu expected)", g->nscale);
        if (!(v > 0) || (g->nscale && v < g->scale[g->nscale - 1]))
            return tsv_field_err(err, errlen, at, "value", f[3], "not above 0, or below the scale before it");
        double *p = realloc(g->scale, (g->nscale + 1) * sizeof *p);
        if (!p)
            return tsv_field_err(err, errlen, at, "value", f[3], "out of memory");
        g->scale = p;
        g->scale[g->nscale++] = v;
    } else {
        return tsv_field_err(err, errlen, at, "what", f[1], "is none of runs lookups trips over scale");
    }
    return 0;
}

int noise_read(noise_model *m, const char *path, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    rd_ctx c = {.m = m};
    tsv_spec spec = {.path = path, .header = NOISE_HEADER, .nfields = 4, .final_newline = 1};
    if (tsv_read(&spec, on_line, &c, err, errlen) != 0) {
        noise_free(m);
        return -1;
    }
    noise_group g[NOISE_NRATES];
    int ng = 0;
    for (int i = 0; i < NOISE_NRATES; i++) {
        if (!m->g[i].rate)
            continue;
        if (c.nt[i] != NOISE_NQ || c.no[i] != NOISE_NQ || m->g[i].nscale == 0) {
            ut_seterr(err, errlen, "%s: rate %d: %d trips and %d over quantiles (%d each needed), %zu scales", path,
                      m->g[i].rate, c.nt[i], c.no[i], NOISE_NQ, m->g[i].nscale);
            noise_free(m);
            return -1;
        }
        g[ng++] = m->g[i];
    }
    memcpy(m->g, g, (size_t)ng * sizeof *g);
    for (int i = ng; i < NOISE_NRATES; i++) /* their scales moved up, not to be freed twice */
        memset(&m->g[i], 0, sizeof m->g[i]);
    m->ng = ng;
    return 0;
}

void noise_free(noise_model *m)
{
    for (int i = 0; i < NOISE_NRATES; i++)
        free(m->g[i].scale);
    memset(m, 0, sizeof *m);
}

const noise_group *noise_for_rate(const noise_model *m, int rate)
{
    for (int i = 0; i < m->ng; i++)
        if (m->g[i].rate == rate)
            return &m->g[i];
    return NULL;
}

void noise_replica(const noise_group *g, uint32_t replica, psim_noise *out)
{
    size_t i = (size_t)(ut_u64_unit(ut_hash4(NOISE_KEY, replica, 0, 0)) * (double)g->nscale);
    if (i >= g->nscale)
        i = g->nscale - 1;
    *out = (psim_noise){.key = NOISE_KEY + replica,
                        .scale = g->scale[i],
                        .q = g->trips,
                        .nq = NOISE_NQ,
                        .over = g->over,
                        .nover = NOISE_NQ};
}
