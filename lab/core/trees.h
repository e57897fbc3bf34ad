/* trees: a branch-free evaluator of an XGBoost 1.7 binary:logistic model.
 *
 * Contract
 * - Purpose: score one row of float features in about a microsecond, with a
 *   result equal bit for bit to XGBoost 1.7's own prediction of the same
 *   float row (XGBoosterPredict, option_mask 0, training 0).
 * - Input: the JSON file written by XGBoosterSaveModel(h, "x.json").  The
 *   loader accepts only gbtree boosters with objective binary:logistic, one
 *   output group, numerical splits and trees of depth <= TREES_MAX_DEPTH; any
 *   other model, or a malformed file, is rejected with a message naming the
 *   file and the JSON field.
 * - Missing values: NOT handled.  Rows must not contain NaN; a NaN feature
 *   gives an unspecified (though deterministic) score.  XGBoost would follow
 *   each node's default direction instead; the loader ignores default_left,
 *   which is the only thing in the model that exists for missing values.
 * - Arithmetic (XGBoost 1.7, checked against XGBoosterPredict by
 *   tests/lab/test_trees.c):
 *     margin = -logf(1.0f / base_score - 1.0f)     (float, logit of base_score)
 *     margin += leaf(tree k, x)   for k = 0, 1, ... in file order, in float
 *     z      = min(-margin, 88.7f)
 *     score  = 1.0f / (expf(z) + 1.0f + 1e-16f)     (common::Sigmoid)
 *   A node sends x left when x[split_index] < split_condition.  Build this
 *   file without -ffast-math (or anything else that reorders float sums).
 * - Ownership: trees_load allocates the model; the caller frees it with
 *   trees_free (NULL is fine).  A loaded model is read-only: any number of
 *   threads may score with it at once.  x must hold trees_nfeatures floats.
 */
#ifndef LAB_TREES_H
#define LAB_TREES_H

#include <stddef.h>

#define TREES_MAX_DEPTH 12

typedef struct trees trees; /* opaque */

/* Load an XGBoost 1.7 JSON model.  0 and *out set, or -1 with a message in
 * err ("<path>: <field>: <problem>") and *out NULL. */
int trees_load(const char *json_path, trees **out, char *err, size_t errlen);

/* Probability of the positive class, equal bit for bit to XGBoost's. */
float trees_score(const trees *t, const float *x);

/* Raw margin (XGBoost's output_margin prediction). */
float trees_margin(const trees *t, const float *x);

/* Number of features a row must hold (learner_model_param.num_feature). */
int trees_nfeatures(const trees *t);

/* Number of trees and the padded depth every tree is evaluated at. */
int trees_ntrees(const trees *t);
int trees_depth(const trees *t);

void trees_free(trees *t);

#endif
