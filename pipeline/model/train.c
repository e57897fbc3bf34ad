/* train: see train.h. */
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xgboost/c_api.h>

#include "util.h"

void train_defaults(train_params *p)
{
    p->seed = 1;
    p->rounds = 150;
    p->max_depth = 6;
    p->eta = 0.05;
    p->subsample = 0.8;
    p->min_child_weight = 10.0;
}

void train_version(char *buf, size_t n)
{
    int a = 0, b = 0, c = 0;
    XGBoostVersion(&a, &b, &c);
    snprintf(buf, n, "xgboost %d.%d.%d", a, b, c);
}

static int matrix(const feat_row *rows, size_t n, int with_label, DMatrixHandle *out, char *err,
                  size_t errlen)
{
    float *x = malloc((n ? n : 1) * FEAT_N * sizeof *x);
    float *y = malloc((n ? n : 1) * sizeof *y);
    int rc = -1;
    *out = NULL;
    if (!x || !y) {
        ut_seterr(err, errlen, "train: out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(x + i * FEAT_N, rows[i].x, sizeof rows[i].x);
        y[i] = rows[i].label;
    }
    if (XGDMatrixCreateFromMat(x, n, FEAT_N, NAN, out) != 0 ||
        (with_label && XGDMatrixSetFloatInfo(*out, "label", y, n) != 0)) {
        ut_seterr(err, errlen, "xgboost: %s", XGBGetLastError());
        goto done;
    }
    rc = 0;
done:
    free(x);
    free(y);
    return rc;
}

int train_fit(const feat_row *rows, size_t n, const train_params *p, train_model *out, char *err,
              size_t errlen)
{
    DMatrixHandle dm = NULL;
    BoosterHandle b = NULL;
    *out = NULL;
    if (matrix(rows, n, 1, &dm, err, errlen) != 0)
        return -1;
    char v[6][32];
    snprintf(v[0], 32, "%d", p->seed);
    snprintf(v[1], 32, "%d", p->max_depth);
    snprintf(v[2], 32, "%.17g", p->eta);
    snprintf(v[3], 32, "%.17g", p->subsample);
    snprintf(v[4], 32, "%.17g", p->min_child_weight);
    const char *kv[][2] = {{"objective", "binary:logistic"}, {"tree_method", "hist"},
                           {"nthread", "1"},                 {"seed", v[0]},
                           {"max_depth", v[1]},              {"eta", v[2]},
                           {"subsample", v[3]},              {"min_child_weight", v[4]},
                           {"base_score", "0.5"},            {"verbosity", "0"}};
    if (XGBoosterCreate(&dm, 1, &b) != 0)
        goto fail;
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        if (XGBoosterSetParam(b, kv[i][0], kv[i][1]) != 0)
            goto fail;
    for (int it = 0; it < p->rounds; it++)
        if (XGBoosterUpdateOneIter(b, it, dm) != 0)
            goto fail;
    XGDMatrixFree(dm);
    *out = b;
    return 0;
fail:
    ut_seterr(err, errlen, "xgboost: %s", XGBGetLastError());
    if (b)
        XGBoosterFree(b);
    XGDMatrixFree(dm);
    return -1;
}

int train_predict(train_model m, const feat_row *rows, size_t n, float *out, char *err, size_t errlen)
{
    DMatrixHandle dm = NULL;
    if (matrix(rows, n, 0, &dm, err, errlen) != 0)
        return -1;
    bst_ulong len = 0;
    const float *res = NULL;
    int rc = XGBoosterPredict(m, dm, 0, 0, 0, &len, &res);
    if (rc != 0 || len != n) {
        ut_seterr(err, errlen, "xgboost predict: %s", rc ? XGBGetLastError() : "wrong length");
        XGDMatrixFree(dm);
        return -1;
    }
    memcpy(out, res, n * sizeof *out);
    XGDMatrixFree(dm);
    return 0;
}

int train_save(train_model m, const char *path, char *err, size_t errlen)
{
    char tmp[4200];
    /* XGBoost picks the format from the name's ending: keep ".json". */
    snprintf(tmp, sizeof tmp, "%s.tmp%ld.json", path, (long)getpid());
    if (XGBoosterSaveModel(m, tmp) != 0) {
        ut_seterr(err, errlen, "%s: xgboost cannot save: %s", path, XGBGetLastError());
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        ut_seterr(err, errlen, "%s: cannot rename into place", path);
        unlink(tmp);
        return -1;
    }
    return 0;
}

void train_free(train_model m)
{
    if (m)
        XGBoosterFree(m);
}
