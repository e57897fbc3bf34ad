/* trees: the padded evaluator against XGBoost 1.7 itself, bit for bit.
 *
 * Every test trains its own model on synthetic customers (seeded, made at
 * test time), saves it as JSON into a mkdtemp folder under /tmp (removed by
 * the fixture), loads it with trees_load and compares trees_score and
 * trees_margin with XGBoosterPredict (option_mask 0 and 1, training 0) on
 * every row.  Error tests check that trees_load names the file and field.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xgboost/c_api.h>

#include "trees.h"
#include "util.h"

#define TT_ROWS 5000
#define TT_FEAT 6

#define XGB_OK(call) cr_assert_eq((call), 0, "%s: %s", #call, XGBGetLastError())

/* ---- fixture: one temporary folder per test ------------------------------ */

static char tt_dir[64];

static void tt_setup(void)
{
    snprintf(tt_dir, sizeof tt_dir, "/tmp/test_trees.XXXXXX");
    cr_assert_not_null(mkdtemp(tt_dir), "mkdtemp failed");
}

static void tt_teardown(void)
{
    DIR *d = opendir(tt_dir);
    if (!d)
        return;
    struct dirent *e;
    char p[400];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", tt_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(tt_dir);
}

static void tt_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tt_dir, name);
}

/* ---- synthetic customers (the same generator as tests/bench/bench_trees.c) ---- */

/* Six features in the spirit of the lab's (recency, recent orders and spend,
 * yearly orders and spend, tenure); the label is a nonlinear rule of them
 * plus noise, drawn as a Bernoulli. */
static void synth(uint64_t seed, int n, float *x, float *y)
{
    ut_rng r;
    ut_rng_seed(&r, seed);
    for (int i = 0; i < n; i++) {
        float *row = x + (size_t)i * TT_FEAT;
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

typedef struct {
    float x[TT_ROWS * TT_FEAT], y[TT_ROWS];    /* training rows */
    float hx[TT_ROWS * TT_FEAT], hy[TT_ROWS];  /* held-out rows */
} tt_data;

static tt_data *tt_make_data(void)
{
    tt_data *d = malloc(sizeof *d);
    cr_assert_not_null(d);
    synth(1, TT_ROWS, d->x, d->y);
    synth(2, TT_ROWS, d->hx, d->hy);
    return d;
}

/* Train on d's training rows with the common parameters plus extra
 * (NULL-terminated key/value pairs), save JSON to path; returns the booster
 * and the training DMatrix. */
static void tt_train(const tt_data *d, const char *const *extra, int rounds,
                     const char *path, BoosterHandle *b, DMatrixHandle *dm)
{
    XGB_OK(XGDMatrixCreateFromMat(d->x, TT_ROWS, TT_FEAT, NAN, dm));
    XGB_OK(XGDMatrixSetFloatInfo(*dm, "label", d->y, TT_ROWS));
    XGB_OK(XGBoosterCreate(dm, 1, b));
    const char *common[] = {"objective", "binary:logistic", "tree_method", "hist",
                            "max_depth", "6", "nthread", "1", "seed", "7",
                            "subsample", "0.8", "eta", "0.1", NULL};
    for (int i = 0; common[i]; i += 2)
        XGB_OK(XGBoosterSetParam(*b, common[i], common[i + 1]));
    for (int i = 0; extra && extra[i]; i += 2)
        XGB_OK(XGBoosterSetParam(*b, extra[i], extra[i + 1]));
    for (int it = 0; it < rounds; it++)
        XGB_OK(XGBoosterUpdateOneIter(*b, it, *dm));
    XGB_OK(XGBoosterSaveModel(*b, path));
}

static trees *tt_load(const char *path)
{
    char err[UT_ERRLEN] = "";
    trees *t = NULL;
    int rc = trees_load(path, &t, err, sizeof err);
    cr_assert_eq(rc, 0, "trees_load: %s", err);
    cr_assert_not_null(t);
    return t;
}

/* Number of rows where trees differs from XGBoost (bits of the float), for
 * probabilities (option_mask 0) and margins (option_mask 1); the first
 * difference is reported. */
static void tt_compare(BoosterHandle b, DMatrixHandle dm, const trees *t,
                       const float *x, int n, const char *what)
{
    bst_ulong len;
    const float *out;
    float *prob = malloc(sizeof(float) * n), *marg = malloc(sizeof(float) * n);
    cr_assert(prob && marg);
    XGB_OK(XGBoosterPredict(b, dm, 0, 0, 0, &len, &out));
    cr_assert_eq(len, (bst_ulong)n);
    memcpy(prob, out, sizeof(float) * n);
    XGB_OK(XGBoosterPredict(b, dm, 1, 0, 0, &len, &out));
    cr_assert_eq(len, (bst_ulong)n);
    memcpy(marg, out, sizeof(float) * n);
    int badp = 0, badm = 0, first = -1;
    for (int i = 0; i < n; i++) {
        float p = trees_score(t, x + (size_t)i * TT_FEAT);
        float m = trees_margin(t, x + (size_t)i * TT_FEAT);
        int bp = memcmp(&p, &prob[i], sizeof p) != 0;
        int bm = memcmp(&m, &marg[i], sizeof m) != 0;
        if ((bp || bm) && first < 0)
            first = i;
        badp += bp;
        badm += bm;
    }
    if (first >= 0)
        cr_log_error("%s: row %d: trees %.9g (margin %.9g), xgboost %.9g (margin %.9g)",
                     what, first, (double)trees_score(t, x + (size_t)first * TT_FEAT),
                     (double)trees_margin(t, x + (size_t)first * TT_FEAT),
                     (double)prob[first], (double)marg[first]);
    cr_expect_eq(badp, 0, "%s: %d of %d probabilities differ from XGBoost", what, badp, n);
    cr_expect_eq(badm, 0, "%s: %d of %d margins differ from XGBoost", what, badm, n);
    free(prob);
    free(marg);
}

/* Train, load, compare on the training DMatrix (as trained), on the held-out
 * rows, and with a booster reloaded from the JSON file (as a service would). */
static trees *tt_check_model(const tt_data *d, const char *const *extra, int rounds,
                             const char *name)
{
    char path[300];
    tt_path(path, sizeof path, name);
    BoosterHandle b, b2;
    DMatrixHandle dm, hm;
    tt_train(d, extra, rounds, path, &b, &dm);
    trees *t = tt_load(path);
    cr_assert_eq(trees_nfeatures(t), TT_FEAT);
    cr_assert_eq(trees_ntrees(t), rounds);

    tt_compare(b, dm, t, d->x, TT_ROWS, "training rows");
    XGB_OK(XGDMatrixCreateFromMat(d->hx, TT_ROWS, TT_FEAT, NAN, &hm));
    tt_compare(b, hm, t, d->hx, TT_ROWS, "held-out rows");
    XGB_OK(XGBoosterCreate(NULL, 0, &b2));
    XGB_OK(XGBoosterLoadModel(b2, path));
    XGB_OK(XGBoosterSetParam(b2, "nthread", "1"));
    tt_compare(b2, hm, t, d->hx, TT_ROWS, "held-out rows, reloaded booster");

    /* Not a constant model: scores spread over (0, 1). */
    float lo = 1.0f, hi = 0.0f;
    for (int i = 0; i < TT_ROWS; i++) {
        float p = trees_score(t, d->hx + (size_t)i * TT_FEAT);
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
    }
    cr_assert(lo < 0.2f && hi > 0.8f, "scores span only [%g, %g]", (double)lo, (double)hi);

    XGBoosterFree(b2);
    XGBoosterFree(b);
    XGDMatrixFree(hm);
    XGDMatrixFree(dm);
    return t;
}

/* Depth of the deepest leaf and whether leaves sit at different depths,
 * read from the JSON independently of trees_load. */
static void tt_json_depths(const char *path, int *maxdepth, int *uneven_trees)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    cr_assert_not_null(doc, "%s: %s", path, je.text);
    json_t *ta = json_object_get(json_object_get(json_object_get(json_object_get(doc,
                     "learner"), "gradient_booster"), "model"), "trees");
    *maxdepth = 0;
    *uneven_trees = 0;
    for (size_t i = 0; i < json_array_size(ta); i++) {
        json_t *lc = json_object_get(json_array_get(ta, i), "left_children");
        json_t *rc = json_object_get(json_array_get(ta, i), "right_children");
        size_t n = json_array_size(lc);
        int *depth = calloc(n, sizeof *depth);
        int lo = 1 << 30, hi = 0;
        for (size_t k = 0; k < n; k++) { /* children come after parents */
            json_int_t l = json_integer_value(json_array_get(lc, k));
            json_int_t r = json_integer_value(json_array_get(rc, k));
            if (l < 0) {
                lo = depth[k] < lo ? depth[k] : lo;
                hi = depth[k] > hi ? depth[k] : hi;
            } else {
                depth[l] = depth[r] = depth[k] + 1;
            }
        }
        *maxdepth = hi > *maxdepth ? hi : *maxdepth;
        *uneven_trees += lo != hi;
        free(depth);
    }
    json_decref(doc);
}

/* ---- equality with XGBoost ---------------------------------------------- */

TestSuite(trees, .init = tt_setup, .fini = tt_teardown, .timeout = 120);

Test(trees, depth6_equals_xgboost_bit_for_bit)
{
    tt_data *d = tt_make_data();
    trees *t = tt_check_model(d, NULL, 100, "depth6.json");
    cr_expect_eq(trees_depth(t), 6);
    trees_free(t);
    free(d);
}

/* base_score 0.3 makes the starting margin logit(0.3) = -logf(1/0.3f - 1)
 * rather than 0, so the order of the float sum is tested as well. */
Test(trees, depth3_with_base_score_equals_xgboost)
{
    tt_data *d = tt_make_data();
    const char *extra[] = {"max_depth", "3", "base_score", "0.3", NULL};
    trees *t = tt_check_model(d, extra, 100, "depth3.json");
    cr_expect_eq(trees_depth(t), 3);
    trees_free(t);
    free(d);
}

/* Loss-guided growth with few leaves: long chains next to shallow leaves,
 * so most of the padded tree is copies. */
Test(trees, unbalanced_depth6_equals_xgboost)
{
    tt_data *d = tt_make_data();
    const char *extra[] = {"grow_policy", "lossguide", "max_leaves", "9", NULL};
    trees *t = tt_check_model(d, extra, 100, "uneven.json");
    char path[300];
    tt_path(path, sizeof path, "uneven.json");
    int maxdepth, uneven;
    tt_json_depths(path, &maxdepth, &uneven);
    cr_expect_eq(maxdepth, 6);
    cr_expect_eq(trees_depth(t), 6);
    cr_expect_gt(uneven, 90, "only %d of 100 trees have leaves at several depths", uneven);
    trees_free(t);
    free(d);
}

/* ---- edits of a saved model ------------------------------------------- */

/* Train a small model (depth 6, 20 rounds) and return its JSON document. */
static json_t *tt_small_model(const tt_data *d, char *path, size_t n)
{
    tt_path(path, n, "small.json");
    BoosterHandle b;
    DMatrixHandle dm;
    const char *extra[] = {NULL};
    tt_train(d, extra, 20, path, &b, &dm);
    XGBoosterFree(b);
    XGDMatrixFree(dm);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    cr_assert_not_null(doc, "%s: %s", path, je.text);
    return doc;
}

static json_t *tt_tree(json_t *doc, size_t i)
{
    return json_array_get(json_object_get(json_object_get(json_object_get(json_object_get(
               doc, "learner"), "gradient_booster"), "model"), "trees"), i);
}

static void tt_dump(json_t *doc, const char *path)
{
    cr_assert_eq(json_dump_file(doc, path, JSON_COMPACT | JSON_REAL_PRECISION(17)), 0);
}

/* Margins far below -88.7 exercise common::Sigmoid's clamp: XGBoost gives
 * 1/(expf(88.7f)+1), about 3.0e-39, where 1/(1+expf(-x)) would give 0. */
Test(trees, extreme_margins_equal_xgboost)
{
    tt_data *d = tt_make_data();
    char path[300], edited[300];
    json_t *doc = tt_small_model(d, path, sizeof path);
    /* Tree 0's leaves become -89 + 8 * leaf: margins spread across -88.7. */
    json_t *t0 = tt_tree(doc, 0);
    json_t *lc = json_object_get(t0, "left_children");
    json_t *sc = json_object_get(t0, "split_conditions");
    for (size_t k = 0; k < json_array_size(lc); k++)
        if (json_integer_value(json_array_get(lc, k)) == -1) {
            float v = (float)json_number_value(json_array_get(sc, k));
            json_array_set_new(sc, k, json_real((double)(-89.0f + 8.0f * v)));
        }
    tt_path(edited, sizeof edited, "extreme.json");
    tt_dump(doc, edited);
    json_decref(doc);

    trees *t = tt_load(edited);
    BoosterHandle b;
    DMatrixHandle hm;
    XGB_OK(XGBoosterCreate(NULL, 0, &b));
    XGB_OK(XGBoosterLoadModel(b, edited));
    XGB_OK(XGBoosterSetParam(b, "nthread", "1"));
    XGB_OK(XGDMatrixCreateFromMat(d->hx, TT_ROWS, TT_FEAT, NAN, &hm));
    tt_compare(b, hm, t, d->hx, TT_ROWS, "extreme margins");
    int below = 0, above = 0;
    for (int i = 0; i < TT_ROWS; i++) {
        float m = trees_margin(t, d->hx + (size_t)i * TT_FEAT);
        below += m < -88.7f;
        above += m > -88.7f;
    }
    cr_expect(below > 100 && above > 100, "margins below -88.7: %d, above: %d", below, above);
    XGBoosterFree(b);
    XGDMatrixFree(hm);
    trees_free(t);
    free(d);
}

/* Replace tree i of doc by a chain of `depth` splits: node 2k is split k
 * (feature k % 6 at threshold k), its left child 2k+1 a leaf, its right child
 * the next split; the last split has two leaves.  Every array XGBoost's
 * loader wants is filled in. */
static void tt_set_chain(json_t *tree, int depth)
{
    int n = 2 * depth + 1;
    json_t *lc = json_array(), *rc = json_array(), *si = json_array(), *sc = json_array(),
           *par = json_array(), *dl = json_array(), *st = json_array(), *bw = json_array(),
           *lch = json_array(), *sh = json_array();
    for (int k = 0; k < n; k++) {
        int split = k % 2 == 0 && k < n - 1; /* node 2s is split s */
        int s = k / 2;
        json_array_append_new(lc, json_integer(split ? k + 1 : -1));
        json_array_append_new(rc, json_integer(split ? k + 2 : -1));
        json_array_append_new(si, json_integer(split ? s % TT_FEAT : 0));
        json_array_append_new(sc, json_real(split ? 10.0 * s : 0.01 * (k + 1)));
        json_array_append_new(par, json_integer(k == 0 ? 2147483647 : (k - 1) / 2 * 2));
        json_array_append_new(dl, json_integer(0));
        json_array_append_new(st, json_integer(0));
        json_array_append_new(bw, json_real(0.0));
        json_array_append_new(lch, json_real(split ? 1.0 : 0.0));
        json_array_append_new(sh, json_real(100.0));
    }
    json_object_set_new(tree, "left_children", lc);
    json_object_set_new(tree, "right_children", rc);
    json_object_set_new(tree, "split_indices", si);
    json_object_set_new(tree, "split_conditions", sc);
    json_object_set_new(tree, "parents", par);
    json_object_set_new(tree, "default_left", dl);
    json_object_set_new(tree, "split_type", st);
    json_object_set_new(tree, "base_weights", bw);
    json_object_set_new(tree, "loss_changes", lch);
    json_object_set_new(tree, "sum_hessian", sh);
    char nn[16];
    snprintf(nn, sizeof nn, "%d", n);
    json_object_set_new(json_object_get(tree, "tree_param"), "num_nodes", json_string(nn));
}

/* A chain 12 deep is the deepest accepted: padded to 2^12 leaves, and still
 * equal to XGBoost; 13 deep is rejected. */
Test(trees, depth12_accepted_depth13_rejected)
{
    tt_data *d = tt_make_data();
    char path[300], p12[300], p13[300], err[UT_ERRLEN] = "";
    json_t *doc = tt_small_model(d, path, sizeof path);
    tt_set_chain(tt_tree(doc, 3), 12);
    tt_path(p12, sizeof p12, "chain12.json");
    tt_dump(doc, p12);
    tt_set_chain(tt_tree(doc, 3), 13);
    tt_path(p13, sizeof p13, "chain13.json");
    tt_dump(doc, p13);
    json_decref(doc);

    /* Rows with all six features equal to v in -10 .. 129 (some exactly on
     * a threshold) leave the chain at every depth: split s sends v right
     * when v >= 10s. */
    float *x = malloc(sizeof(float) * TT_ROWS * TT_FEAT);
    cr_assert_not_null(x);
    for (int i = 0; i < TT_ROWS; i++)
        for (int f = 0; f < TT_FEAT; f++)
            x[i * TT_FEAT + f] = (float)(i % 140) - 10.0f + (i % 3 == 0 ? 0.5f : 0.0f);
    trees *t = tt_load(p12);
    cr_expect_eq(trees_depth(t), 12);
    BoosterHandle b;
    DMatrixHandle hm;
    XGB_OK(XGBoosterCreate(NULL, 0, &b));
    XGB_OK(XGBoosterLoadModel(b, p12));
    XGB_OK(XGBoosterSetParam(b, "nthread", "1"));
    XGB_OK(XGDMatrixCreateFromMat(x, TT_ROWS, TT_FEAT, NAN, &hm));
    tt_compare(b, hm, t, x, TT_ROWS, "chain of 12");
    XGBoosterFree(b);
    XGDMatrixFree(hm);
    trees_free(t);

    t = (trees *)1;
    cr_assert_eq(trees_load(p13, &t, err, sizeof err), -1);
    cr_expect_null(t);
    cr_expect(strstr(err, p13) && strstr(err, "trees[3]") && strstr(err, "deeper than 12"),
              "message: %s", err);
    free(x);
    free(d);
}

/* ---- errors ------------------------------------------------------------- */

static void tt_expect_error(const char *path, const char *const *parts)
{
    char err[UT_ERRLEN] = "";
    trees *t = (trees *)1;
    cr_assert_eq(trees_load(path, &t, err, sizeof err), -1, "accepted %s", path);
    cr_expect_null(t);
    cr_expect(strstr(err, path) != NULL, "message does not name the file: %s", err);
    for (int i = 0; parts[i]; i++)
        cr_expect(strstr(err, parts[i]) != NULL, "message lacks \"%s\": %s", parts[i], err);
}

Test(trees, missing_file)
{
    char path[300];
    tt_path(path, sizeof path, "no-such-model.json");
    const char *parts[] = {"cannot open", NULL};
    tt_expect_error(path, parts);
}

Test(trees, malformed_json)
{
    char path[300], err[UT_ERRLEN];
    tt_path(path, sizeof path, "bad.json");
    const char *text = "{\"learner\": {\"objective\": {\"name\": \"binary:logistic\"},\n"
                       "  \"learner_model_param\": {\"base_score\": 5E-1,, }}}\n";
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    const char *parts[] = {"malformed JSON", "line 2", NULL};
    tt_expect_error(path, parts);
}

Test(trees, wrong_objective_named)
{
    tt_data *d = tt_make_data();
    char path[300];
    tt_path(path, sizeof path, "squared.json");
    BoosterHandle b;
    DMatrixHandle dm;
    const char *extra[] = {"objective", "reg:squarederror", NULL};
    tt_train(d, extra, 5, path, &b, &dm);
    XGBoosterFree(b);
    XGDMatrixFree(dm);
    const char *parts[] = {"learner.objective.name", "reg:squarederror", NULL};
    tt_expect_error(path, parts);
    free(d);
}

/* Fields removed or changed in a saved model, each named in the message. */
Test(trees, missing_and_bad_fields_named)
{
    tt_data *d = tt_make_data();
    char path[300], edited[300];
    json_t *doc = tt_small_model(d, path, sizeof path);
    tt_path(edited, sizeof edited, "edited.json");

    json_t *t5 = tt_tree(doc, 5);
    json_t *saved = json_incref(json_object_get(t5, "split_conditions"));
    json_object_del(t5, "split_conditions");
    tt_dump(doc, edited);
    const char *p1[] = {"trees[5].split_conditions", "missing field", NULL};
    tt_expect_error(edited, p1);
    json_object_set_new(t5, "split_conditions", saved);

    json_t *lmp = json_object_get(json_object_get(doc, "learner"), "learner_model_param");
    json_t *bs = json_incref(json_object_get(lmp, "base_score"));
    json_object_del(lmp, "base_score");
    tt_dump(doc, edited);
    const char *p2[] = {"learner.learner_model_param.base_score", "missing field", NULL};
    tt_expect_error(edited, p2);
    json_object_set_new(lmp, "base_score", bs);

    json_t *st = json_object_get(t5, "split_type");
    json_array_set_new(st, 0, json_integer(1));
    tt_dump(doc, edited);
    const char *p3[] = {"trees[5].split_type[0]", "categorical", NULL};
    tt_expect_error(edited, p3);
    json_array_set_new(st, 0, json_integer(0));

    json_t *si = json_object_get(t5, "split_indices");
    json_array_set_new(si, 0, json_integer(6));
    tt_dump(doc, edited);
    const char *p4[] = {"trees[5].split_indices[0]", "num_feature", NULL};
    tt_expect_error(edited, p4);
    json_array_set_new(si, 0, json_integer(0));

    json_t *sc = json_object_get(t5, "split_conditions");
    json_array_remove(sc, 0);
    tt_dump(doc, edited);
    const char *p5[] = {"trees[5].split_conditions", "num_nodes", NULL};
    tt_expect_error(edited, p5);

    /* The unedited file still loads. */
    trees *t = tt_load(path);
    trees_free(t);
    json_decref(doc);
    free(d);
}
