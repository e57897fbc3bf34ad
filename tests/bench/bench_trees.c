/* bench_trees: time single-row scoring three ways on the same model.
 *
 *   bench_trees [model.json]
 *
 * Without an argument it trains the synthetic model of tests/lab/test_trees.c
 * (binary:logistic, hist, depth 6, 100 rounds, seed 7) into a mkdtemp folder
 * under /tmp and removes it afterwards.  Then, one row at a time over
 * BENCH_N predictions per method (rows cycled from 5,000 synthetic rows not
 * used in training), timed in BENCH_BLOCKS interleaved blocks whose median
 * is printed:
 *   xgboost  XGBoosterPredictFromDense on one reused proxy DMatrix
 *   walker   a plain pointer-walking evaluator of the original trees
 *   trees    trees_score (padded, branch-free)
 * and, for reference, XGBoost with a new DMatrix per row (BENCH_MAT_N rows);
 * it prints ns per row and the ratios.  Every walker and trees answer is
 * also compared with XGBoost's (bit for bit), and a mismatch fails the run.
 * Run it pinned, e.g. `taskset -c 1 ./bench_trees`.
 */
#include "trees.h"
#include "util.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xgboost/c_api.h>

#define NROWS 5000
#define NFEAT 6
#define BENCH_N 200000
#define BENCH_MAT_N 20000
#define BENCH_BLOCKS 10

#define XGB(call) \
    do { \
        if ((call) != 0) { \
            fprintf(stderr, "bench_trees: %s: %s\n", #call, XGBGetLastError()); \
            exit(1); \
        } \
    } while (0)

/* The synthetic customers of tests/lab/test_trees.c (same generator). */
static void synth(uint64_t seed, int n, float *x, float *y)
{
    ut_rng r;
    ut_rng_seed(&r, seed);
    for (int i = 0; i < n; i++) {
        float *row = x + (size_t)i * NFEAT;
        double u = ut_rng_unit(&r);
        double recency = 365.0 * u * u;
        double orders90 = floor(2.0 * ut_rng_exp(&r));
        double spend90 = orders90 * 20.0 * exp(0.5 * ut_rng_normal(&r));
        double orders365 = orders90 + floor(4.0 * ut_rng_exp(&r));
        double spend365 = spend90 + (orders365 - orders90) * 25.0 * exp(0.5 * ut_rng_normal(&r));
        double tenure = recency + 700.0 * ut_rng_unit(&r);
        row[0] = (float)recency;
        row[1] = (float)orders90;
        row[2] = (float)spend90;
        row[3] = (float)orders365;
        row[4] = (float)spend365;
        row[5] = (float)tenure;
        double logit = 1.0 - recency / 60.0 + 0.6 * sqrt(orders90) +
                       0.25 * log1p(spend365) * (orders365 > 3) +
                       0.8 * sin(tenure / 90.0) + 0.5 * ut_rng_normal(&r);
        y[i] = ut_rng_unit(&r) < 1.0 / (1.0 + exp(-logit)) ? 1.0f : 0.0f;
    }
}

static void train(const char *path, const float *x, const float *y)
{
    DMatrixHandle d;
    BoosterHandle b;
    XGB(XGDMatrixCreateFromMat(x, NROWS, NFEAT, NAN, &d));
    XGB(XGDMatrixSetFloatInfo(d, "label", y, NROWS));
    XGB(XGBoosterCreate(&d, 1, &b));
    const char *kv[][2] = {{"objective", "binary:logistic"}, {"tree_method", "hist"},
                           {"max_depth", "6"}, {"nthread", "1"}, {"seed", "7"},
                           {"subsample", "0.8"}, {"eta", "0.1"}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        XGB(XGBoosterSetParam(b, kv[i][0], kv[i][1]));
    for (int it = 0; it < 100; it++)
        XGB(XGBoosterUpdateOneIter(b, it, d));
    XGB(XGBoosterSaveModel(b, path));
    XGB(XGBoosterFree(b));
    XGB(XGDMatrixFree(d));
}

/* ---- a plain walker over the original trees ------------------------------ */

typedef struct wnode {
    const struct wnode *left, *right; /* NULL for a leaf */
    float value;                      /* threshold, or leaf value */
    int feat;
} wnode;

typedef struct {
    wnode *nodes;     /* all trees, each tree's root first */
    wnode **roots;
    int ntrees;
    float base;
} walker;

static float num(json_t *v)
{
    return json_is_string(v) ? strtof(json_string_value(v), NULL)
                             : (float)json_number_value(v);
}

/* Reads the model through jansson's doubles (enough for a benchmark: the
 * answers are compared with XGBoost's below anyway). */
static int walker_load(const char *path, walker *w)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) {
        fprintf(stderr, "bench_trees: %s: line %d: %s\n", path, je.line, je.text);
        return -1;
    }
    json_t *learner = json_object_get(doc, "learner");
    float bs = num(json_object_get(json_object_get(learner, "learner_model_param"),
                                   "base_score"));
    json_t *ta = json_object_get(json_object_get(json_object_get(learner,
                        "gradient_booster"), "model"), "trees");
    size_t nt = json_array_size(ta), total = 0;
    for (size_t i = 0; i < nt; i++)
        total += json_array_size(json_object_get(json_array_get(ta, i), "left_children"));
    w->nodes = calloc(total ? total : 1, sizeof *w->nodes);
    w->roots = calloc(nt ? nt : 1, sizeof *w->roots);
    w->ntrees = (int)nt;
    w->base = -logf(1.0f / bs - 1.0f);
    size_t off = 0;
    for (size_t i = 0; i < nt; i++) {
        json_t *t = json_array_get(ta, i);
        json_t *lc = json_object_get(t, "left_children");
        json_t *rc = json_object_get(t, "right_children");
        json_t *si = json_object_get(t, "split_indices");
        json_t *sc = json_object_get(t, "split_conditions");
        size_t n = json_array_size(lc);
        wnode *base = w->nodes + off;
        w->roots[i] = base;
        for (size_t k = 0; k < n; k++) {
            json_int_t l = json_integer_value(json_array_get(lc, k));
            json_int_t r = json_integer_value(json_array_get(rc, k));
            base[k].left = l < 0 ? NULL : base + l;
            base[k].right = r < 0 ? NULL : base + r;
            base[k].feat = (int)json_integer_value(json_array_get(si, k));
            base[k].value = num(json_array_get(sc, k));
        }
        off += n;
    }
    json_decref(doc);
    return 0;
}

static float walker_score(const walker *w, const float *x)
{
    float m = w->base;
    for (int i = 0; i < w->ntrees; i++) {
        const wnode *n = w->roots[i];
        while (n->left)
            n = x[n->feat] < n->value ? n->left : n->right;
        m += n->value;
    }
    float z = -m;
    z = 88.7f < z ? 88.7f : z;
    return 1.0f / (expf(z) + 1.0f + 1e-16f);
}

/* ---- main -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* The temporary model, removed at any exit (XGB() exits on failure). */
static char dir[] = "/tmp/bench_trees.XXXXXX";
static char path[4200];
static int own;

static void remove_temp(void)
{
    if (own) {
        unlink(path);
        rmdir(dir);
    }
}

int main(int argc, char **argv)
{
    ut_set_prog(argv[0]);
    own = argc < 2;
    float *x = malloc(sizeof(float) * NROWS * NFEAT), *y = malloc(sizeof(float) * NROWS);
    float *ref = malloc(sizeof(float) * NROWS);
    if (!x || !y || !ref)
        return 1;
    synth(11, NROWS, x, y); /* rows to score (not the training rows) */
    if (own) {
        if (!mkdtemp(dir)) {
            perror("bench_trees: mkdtemp");
            return 1;
        }
        atexit(remove_temp);
        snprintf(path, sizeof path, "%s/model.json", dir);
        float *tx = malloc(sizeof(float) * NROWS * NFEAT), *ty = malloc(sizeof(float) * NROWS);
        synth(1, NROWS, tx, ty);
        train(path, tx, ty);
        free(tx);
        free(ty);
    } else {
        snprintf(path, sizeof path, "%s", argv[1]);
    }

    char err[UT_ERRLEN];
    trees *t = NULL;
    if (trees_load(path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "bench_trees: %s\n", err);
        return 1;
    }
    if (trees_nfeatures(t) != NFEAT) {
        fprintf(stderr, "bench_trees: %s: %d features, the bench rows have %d\n",
                path, trees_nfeatures(t), NFEAT);
        return 1;
    }
    walker w;
    if (walker_load(path, &w) != 0)
        return 1;
    BoosterHandle b;
    XGB(XGBoosterCreate(NULL, 0, &b));
    XGB(XGBoosterLoadModel(b, path));
    XGB(XGBoosterSetParam(b, "nthread", "1"));

    /* One proxy DMatrix and one row buffer, reused for every prediction. */
    static float row[NFEAT];
    char iface[256];
    snprintf(iface, sizeof iface,
             "{\"data\": [%" PRIuPTR ", true], \"shape\": [1, %d], "
             "\"typestr\": \"<f4\", \"version\": 3}",
             (uintptr_t)row, NFEAT);
    const char *conf = "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, "
                       "\"iteration_end\": 0, \"strict_shape\": false, "
                       "\"missing\": NaN, \"cache_id\": 0}";
    DMatrixHandle proxy;
    XGB(XGProxyDMatrixCreate(&proxy));
    XGB(XGProxyDMatrixSetDataDense(proxy, iface));

    /* Reference answers and agreement. */
    long bad_w = 0, bad_t = 0;
    for (int i = 0; i < NROWS; i++) {
        const bst_ulong *shape;
        bst_ulong dim;
        const float *out;
        memcpy(row, x + (size_t)i * NFEAT, sizeof row);
        XGB(XGBoosterPredictFromDense(b, iface, conf, proxy, &shape, &dim, &out));
        ref[i] = out[0];
        float a = walker_score(&w, row), c = trees_score(t, row);
        bad_w += memcmp(&a, &ref[i], sizeof a) != 0;
        bad_t += memcmp(&c, &ref[i], sizeof c) != 0;
    }

    /* BENCH_BLOCKS blocks per method, interleaved, so that a noisy
     * neighbour slows all three alike; each figure is the median block. */
    volatile float sink = 0.0f;
    double blk[3][BENCH_BLOCKS];
    const int per = BENCH_N / BENCH_BLOCKS;
    for (int r = 0; r < BENCH_BLOCKS; r++) {
        int64_t t0 = ut_mono_ns();
        for (int i = 0; i < per; i++) {
            const bst_ulong *shape;
            bst_ulong dim;
            const float *out;
            memcpy(row, x + (size_t)(i % NROWS) * NFEAT, sizeof row);
            XGB(XGBoosterPredictFromDense(b, iface, conf, proxy, &shape, &dim, &out));
            sink += out[0];
        }
        int64_t t1 = ut_mono_ns();
        for (int i = 0; i < per; i++)
            sink += walker_score(&w, x + (size_t)(i % NROWS) * NFEAT);
        int64_t t2 = ut_mono_ns();
        for (int i = 0; i < per; i++)
            sink += trees_score(t, x + (size_t)(i % NROWS) * NFEAT);
        int64_t t3 = ut_mono_ns();
        blk[0][r] = (double)(t1 - t0) / per;
        blk[1][r] = (double)(t2 - t1) / per;
        blk[2][r] = (double)(t3 - t2) / per;
    }
    /* The path without a proxy: a new DMatrix for every row. */
    int64_t t3 = ut_mono_ns();
    for (int i = 0; i < BENCH_MAT_N; i++) {
        DMatrixHandle d;
        bst_ulong len;
        const float *out;
        XGB(XGDMatrixCreateFromMat(x + (size_t)(i % NROWS) * NFEAT, 1, NFEAT, NAN, &d));
        XGB(XGBoosterPredict(b, d, 0, 0, 0, &len, &out));
        sink += out[0];
        XGB(XGDMatrixFree(d));
    }
    int64_t t4 = ut_mono_ns();
    (void)sink;

    double nx = median(blk[0], BENCH_BLOCKS), nw = median(blk[1], BENCH_BLOCKS),
           ntr = median(blk[2], BENCH_BLOCKS);
    printf("model %s: %d trees, padded depth %d, %d predictions each "
           "(median of %d blocks)\n", own ? "synthetic" : path, trees_ntrees(t),
           trees_depth(t), per * BENCH_BLOCKS, BENCH_BLOCKS);
    printf("xgboost %.0f ns/row | walker %.0f ns/row | trees %.0f ns/row | "
           "trees is %.1fx faster than xgboost, %.1fx faster than walker\n",
           nx, nw, ntr, nx / ntr, nw / ntr);
    printf("(xgboost with a new DMatrix per row, XGDMatrixCreateFromMat + "
           "XGBoosterPredict: %.0f ns/row over %d rows)\n",
           (double)(t4 - t3) / BENCH_MAT_N, BENCH_MAT_N);
    printf("bit-for-bit against xgboost on %d rows: walker %ld mismatches, "
           "trees %ld mismatches\n", NROWS, bad_w, bad_t);

    XGB(XGDMatrixFree(proxy));
    XGB(XGBoosterFree(b));
    trees_free(t);
    free(w.nodes);
    free(w.roots);
    free(x);
    free(y);
    free(ref);
    return bad_w || bad_t ? 1 : 0;
}
