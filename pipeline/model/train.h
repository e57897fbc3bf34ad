/* train: the model, trained and used through XGBoost's C API.
 *
 * binary:logistic, tree_method hist, nthread 1, a fixed seed, subsample < 1
 * (so that seeds matter for the 20-model AP study).  Training and
 * prediction are deterministic for a given seed and rows.
 *
 * Ownership: train_fit returns a booster the caller frees with
 * train_free.  train_predict writes into the caller's array of n floats.
 * train_save writes the model as XGBoost JSON, atomically.
 */
#ifndef PIPELINE_TRAIN_H
#define PIPELINE_TRAIN_H

#include <stddef.h>

#include "feat.h"

typedef struct {
    int seed;
    int rounds;
    int max_depth;
    double eta;
    double subsample;
    double min_child_weight;
} train_params;

typedef void *train_model;

void train_defaults(train_params *p);
/* "xgboost 1.7.4" */
void train_version(char *buf, size_t n);
int train_fit(const feat_row *rows, size_t n, const train_params *p, train_model *out, char *err,
              size_t errlen);
int train_predict(train_model m, const feat_row *rows, size_t n, float *out, char *err, size_t errlen);
int train_save(train_model m, const char *path, char *err, size_t errlen);
void train_free(train_model m);

#endif
