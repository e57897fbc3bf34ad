/* trees: see trees.h for the contract.
 *
 * Layout.  Every tree is padded to a complete binary tree of the model's
 * depth D (the deepest tree, at least 1) and stored in heap order: node k has
 * children 2k+1 and 2k+2.  A leaf met above depth D becomes internal nodes
 * whose two subtrees both end in copies of its value, so the direction
 * taken there does not matter (feature 0, threshold 0).  Per tree:
 *   val[0 .. 2^D-2]        thresholds of the internal nodes
 *   val[2^D-1 .. 2^(D+1)-2] leaf values
 *   feat[0 .. 2^D-2]       feature index of the internal nodes
 * so after D steps of  k = 2k + 1 + !(x[feat[k]] < val[k])  the leaf value is
 * val[k].  Trees are evaluated in chunks of TREES_CHUNK, one level of every
 * tree of the chunk at a time, which gives the CPU independent chains to
 * overlap; leaf values are then added to the margin in tree order.
 *
 * Numbers.  jansson turns JSON numbers into doubles, and rounding a double
 * to float after rounding the decimal text to double can differ from
 * rounding the text to float once.  So the file is first parsed as is (which
 * checks its syntax and gives exact line/column errors), then every number
 * token is wrapped in quotes and the text is parsed again; values are read
 * from those strings with strtof / strtol.  XGBoost writes each float as its
 * shortest round-trip decimal, so strtof gives back the very float it held.
 */
#include "trees.h"

#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TREES_CHUNK 16

struct trees {
    int nfeat;       /* learner_model_param.num_feature */
    int ntrees;
    int depth;       /* D */
    float base;      /* margin every row starts from */
    size_t vstride;  /* floats per tree in val: 2^(D+1) (last one unused) */
    size_t fstride;  /* entries per tree in feat: 2^D (last one unused) */
    float *val;      /* ntrees * vstride, 64-byte aligned */
    uint16_t *feat;  /* ntrees * fstride, 64-byte aligned */
    /* both arrays go on with all-zero trees up to a multiple of TREES_CHUNK */
};

/* One tree as read from the file, before padding. */
typedef struct {
    int n;
    int *left, *right, *index;
    float *cond;
    int depth;
} raw_tree;

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
} ctx;

/* The message "<path>: <printf text>" into the caller's buffer. */
static void fail(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(ctx *c, const char *fmt, ...)
{
    char msg[UT_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ut_seterr(c->err, c->errlen, "%s: %s", c->path, msg);
}

/* ---- number quoting ---------------------------------------------------- */

/* Copy a valid JSON text, wrapping every number token in double quotes. */
static char *quote_numbers(const char *in, size_t n, size_t *outn)
{
    char *out = malloc(3 * n + 1); /* a 1-char token becomes 3 chars */
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        char c = in[i];
        if (c == '"') {
            out[o++] = in[i++];
            while (i < n && in[i] != '"') {
                if (in[i] == '\\' && i + 1 < n)
                    out[o++] = in[i++];
                out[o++] = in[i++];
            }
            if (i < n)
                out[o++] = in[i++];
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            out[o++] = '"';
            while (i < n && strchr("0123456789+-.eE", in[i]) && in[i] != '\0')
                out[o++] = in[i++];
            out[o++] = '"';
        } else {
            out[o++] = in[i++];
        }
    }
    out[o] = '\0';
    *outn = o;
    return out;
}

/* ---- field access -------------------------------------------------------- */

static json_t *member(ctx *c, json_t *obj, const char *key, const char *where,
                      int type)
{
    json_t *v = json_object_get(obj, key);
    const char *dot = where[0] ? "." : "";
    if (!v) {
        fail(c, "%s%s%s: missing field", where, dot, key);
        return NULL;
    }
    if (type >= 0 && json_typeof(v) != (json_type)type) {
        const char *want = type == JSON_OBJECT ? "an object"
                         : type == JSON_ARRAY  ? "an array"
                                               : "a string or number";
        fail(c, "%s%s%s: not %s", where, dot, key, want);
        return NULL;
    }
    return v;
}

/* After quoting, every number is a string. */
static int as_float(ctx *c, json_t *v, float *out, const char *where, long i)
{
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    char *end = NULL;
    errno = 0;
    float f = s ? strtof(s, &end) : 0.0f;
    if (!s || end == s || *end != '\0' || !isfinite(f)) {
        if (i >= 0)
            fail(c, "%s[%ld]: not a finite number", where, i);
        else
            fail(c, "%s: not a finite number", where);
        return -1;
    }
    *out = f;
    return 0;
}

static int as_long(ctx *c, json_t *v, long *out, const char *where, long i)
{
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    char *end = NULL;
    errno = 0;
    long x = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s || *end != '\0' || errno == ERANGE) {
        if (i >= 0)
            fail(c, "%s[%ld]: not an integer", where, i);
        else
            fail(c, "%s: not an integer", where);
        return -1;
    }
    *out = x;
    return 0;
}

static int int_field(ctx *c, json_t *obj, const char *key, const char *where,
                     long *out)
{
    json_t *v = member(c, obj, key, where, -1);
    if (!v)
        return -1;
    char w[400];
    snprintf(w, sizeof w, "%s.%s", where, key);
    return as_long(c, v, out, w, -1);
}

static const char *str_field(ctx *c, json_t *obj, const char *key, const char *where)
{
    json_t *v = member(c, obj, key, where, JSON_STRING);
    return v ? json_string_value(v) : NULL;
}

/* An array member of exactly n entries. */
static json_t *array_n(ctx *c, json_t *obj, const char *key, const char *where,
                       size_t n)
{
    json_t *a = member(c, obj, key, where, JSON_ARRAY);
    if (a && json_array_size(a) != n) {
        fail(c, "%s.%s: has %zu entries, tree_param.num_nodes says %zu", where,
             key, json_array_size(a), n);
        return NULL;
    }
    return a;
}

/* ---- trees ---------------------------------------------------------------- */

static void raw_free(raw_tree *r)
{
    free(r->left);
    free(r->right);
    free(r->index);
    free(r->cond);
    memset(r, 0, sizeof *r);
}

/* Depth of the subtree under node k (a leaf has depth 0), or -1 when it
 * exceeds limit (which also catches cycles). */
static int subtree_depth(const raw_tree *r, int k, int limit)
{
    if (r->left[k] < 0)
        return 0;
    if (limit == 0)
        return -1;
    int a = subtree_depth(r, r->left[k], limit - 1);
    int b = a < 0 ? -1 : subtree_depth(r, r->right[k], limit - 1);
    if (a < 0 || b < 0)
        return -1;
    return 1 + (a > b ? a : b);
}

static int parse_tree(ctx *c, json_t *tj, int ti, int nfeat, raw_tree *r)
{
    char where[160];
    snprintf(where, sizeof where, "learner.gradient_booster.model.trees[%d]", ti);
    char w[300];
    if (!json_is_object(tj)) {
        fail(c, "%s: not an object", where);
        return -1;
    }
    json_t *tp = member(c, tj, "tree_param", where, JSON_OBJECT);
    if (!tp)
        return -1;
    snprintf(w, sizeof w, "%s.tree_param", where);
    long nn;
    if (int_field(c, tp, "num_nodes", w, &nn) != 0)
        return -1;
    if (nn < 1 || nn > (1L << 24)) {
        fail(c, "%s.num_nodes: %ld is out of range", w, nn);
        return -1;
    }
    size_t n = (size_t)nn;
    json_t *lc = array_n(c, tj, "left_children", where, n);
    json_t *rc = lc ? array_n(c, tj, "right_children", where, n) : NULL;
    json_t *si = rc ? array_n(c, tj, "split_indices", where, n) : NULL;
    json_t *sc = si ? array_n(c, tj, "split_conditions", where, n) : NULL;
    if (!sc)
        return -1;

    /* Categorical splits: split_type 1 on any node, or a categories list. */
    json_t *st = json_object_get(tj, "split_type");
    if (st) {
        if (!json_is_array(st)) {
            fail(c, "%s.split_type: not an array", where);
            return -1;
        }
        for (size_t i = 0; i < json_array_size(st); i++) {
            long v;
            snprintf(w, sizeof w, "%s.split_type", where);
            if (as_long(c, json_array_get(st, i), &v, w, (long)i) != 0)
                return -1;
            if (v != 0) {
                fail(c, "%s.split_type[%zu]: categorical split, not supported",
                     where, i);
                return -1;
            }
        }
    }
    json_t *cn = json_object_get(tj, "categories_nodes");
    if (cn && (!json_is_array(cn) || json_array_size(cn) != 0)) {
        fail(c, "%s.categories_nodes: categorical splits, not supported", where);
        return -1;
    }

    r->n = (int)n;
    r->left = malloc(n * sizeof *r->left);
    r->right = malloc(n * sizeof *r->right);
    r->index = malloc(n * sizeof *r->index);
    r->cond = malloc(n * sizeof *r->cond);
    if (!r->left || !r->right || !r->index || !r->cond) {
        fail(c, "%s: out of memory", where);
        return -1;
    }
    char wl[300], wr[300], wi[300], wc[300];
    snprintf(wl, sizeof wl, "%s.left_children", where);
    snprintf(wr, sizeof wr, "%s.right_children", where);
    snprintf(wi, sizeof wi, "%s.split_indices", where);
    snprintf(wc, sizeof wc, "%s.split_conditions", where);
    for (size_t i = 0; i < n; i++) {
        long l, rr, ix;
        if (as_long(c, json_array_get(lc, i), &l, wl, (long)i) != 0 ||
            as_long(c, json_array_get(rc, i), &rr, wr, (long)i) != 0 ||
            as_long(c, json_array_get(si, i), &ix, wi, (long)i) != 0 ||
            as_float(c, json_array_get(sc, i), &r->cond[i], wc, (long)i) != 0)
            return -1;
        if (l == -1 || rr == -1) {
            if (l != rr) {
                fail(c, "%s[%zu]: node has one child (right_children[%zu] = %ld)",
                     wl, i, i, rr);
                return -1;
            }
        } else {
            if (l < 1 || l >= nn) {
                fail(c, "%s[%zu]: %ld is not a node", wl, i, l);
                return -1;
            }
            if (rr < 1 || rr >= nn) {
                fail(c, "%s[%zu]: %ld is not a node", wr, i, rr);
                return -1;
            }
            if (ix < 0 || ix >= nfeat) {
                fail(c, "%s[%zu]: feature %ld, but num_feature is %d", wi, i,
                     ix, nfeat);
                return -1;
            }
        }
        r->left[i] = (int)l;
        r->right[i] = (int)rr;
        r->index[i] = (int)ix;
    }
    r->depth = subtree_depth(r, 0, TREES_MAX_DEPTH);
    if (r->depth < 0) {
        fail(c, "%s: deeper than %d (or cyclic), not supported", where,
             TREES_MAX_DEPTH);
        return -1;
    }
    return 0;
}

/* Write node k of raw tree r into heap slot h (at depth d) of the padded
 * tree (val, feat). */
static void pad(const trees *t, const raw_tree *r, int k, size_t h, int d,
                float *val, uint16_t *feat)
{
    if (d == t->depth) {
        val[h] = r->cond[k]; /* a leaf: depth never exceeds D */
        return;
    }
    if (r->left[k] < 0) {
        feat[h] = 0;
        val[h] = 0.0f;
        pad(t, r, k, 2 * h + 1, d + 1, val, feat);
        pad(t, r, k, 2 * h + 2, d + 1, val, feat);
        return;
    }
    feat[h] = (uint16_t)r->index[k];
    val[h] = r->cond[k];
    pad(t, r, r->left[k], 2 * h + 1, d + 1, val, feat);
    pad(t, r, r->right[k], 2 * h + 2, d + 1, val, feat);
}

static void *alloc64(size_t bytes)
{
    size_t n = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, n ? n : 64);
    if (p)
        memset(p, 0, n ? n : 64);
    return p;
}

/* ---- load ------------------------------------------------------------------ */

/* The learner's parameters: the logistic objective, base_score, the number
 * of features; only what the evaluator implements is accepted. */
static int check_learner(ctx *c, json_t *learner, float *base_score, long *nfeat)
{
    /* The objective decides the link; only the logistic one is implemented. */
    json_t *obj = member(c, learner, "objective", "learner", JSON_OBJECT);
    const char *oname = obj ? str_field(c, obj, "name", "learner.objective") : NULL;
    if (!oname)
        return -1;
    if (strcmp(oname, "binary:logistic") != 0)
        return fail(c, "learner.objective.name: is \"%s\", only \"binary:logistic\" is supported", oname), -1;
    json_t *mp = member(c, learner, "learner_model_param", "learner", JSON_OBJECT);
    if (!mp)
        return -1;
    json_t *bs = member(c, mp, "base_score", "learner.learner_model_param", -1);
    if (!bs || as_float(c, bs, base_score, "learner.learner_model_param.base_score", -1) != 0)
        return -1;
    if (!(*base_score > 0.0f && *base_score < 1.0f))
        return fail(c, "learner.learner_model_param.base_score: %g is not in (0, 1)", (double)*base_score), -1;
    long ncls;
    if (int_field(c, mp, "num_feature", "learner.learner_model_param", nfeat) != 0)
        return -1;
    if (*nfeat < 1 || *nfeat > 65535)
        return fail(c, "learner.learner_model_param.num_feature: %ld is out of range [1, 65535]", *nfeat), -1;
    if (int_field(c, mp, "num_class", "learner.learner_model_param", &ncls) != 0)
        return -1;
    if (ncls > 1)
        return fail(c, "learner.learner_model_param.num_class: %ld classes, only binary models are supported",
                    ncls), -1;
    json_t *nta = json_object_get(mp, "num_target");
    long ntarget = 1;
    if (nta && as_long(c, nta, &ntarget, "learner.learner_model_param.num_target", -1) != 0)
        return -1;
    if (ntarget != 1)
        return fail(c, "learner.learner_model_param.num_target: %ld, only 1 is supported", ntarget), -1;
    json_t *ft = json_object_get(learner, "feature_types");
    if (ft && json_is_array(ft))
        for (size_t i = 0; i < json_array_size(ft); i++) {
            const char *s = json_string_value(json_array_get(ft, i));
            if (s && strcmp(s, "c") == 0)
                return fail(c, "learner.feature_types[%zu]: categorical feature, not supported", i), -1;
        }
    return 0;
}

/* The gbtree booster's array of trees, checked against its declared count
 * and output groups. */
static int find_trees(ctx *c, json_t *learner, json_t **trees_out, size_t *nt_out)
{
    json_t *gb = member(c, learner, "gradient_booster", "learner", JSON_OBJECT);
    const char *gname = gb ? str_field(c, gb, "name", "learner.gradient_booster") : NULL;
    if (!gname)
        return -1;
    if (strcmp(gname, "gbtree") != 0)
        return fail(c, "learner.gradient_booster.name: is \"%s\", only \"gbtree\" is supported", gname), -1;
    json_t *model = member(c, gb, "model", "learner.gradient_booster", JSON_OBJECT);
    json_t *ta = model ? member(c, model, "trees", "learner.gradient_booster.model", JSON_ARRAY) : NULL;
    if (!ta)
        return -1;
    size_t nt = json_array_size(ta);
    if (nt > 1000000)
        return fail(c, "learner.gradient_booster.model.trees: %zu trees, too many", nt), -1;
    json_t *mparam = member(c, model, "gbtree_model_param", "learner.gradient_booster.model", JSON_OBJECT);
    long ntrees_decl;
    if (!mparam ||
        int_field(c, mparam, "num_trees", "learner.gradient_booster.model.gbtree_model_param", &ntrees_decl) != 0)
        return -1;
    if (ntrees_decl < 0 || (size_t)ntrees_decl != nt)
        return fail(c, "learner.gradient_booster.model.gbtree_model_param.num_trees: says %ld, but trees has %zu",
                    ntrees_decl, nt), -1;
    json_t *tinfo = json_object_get(model, "tree_info");
    if (tinfo) {
        if (!json_is_array(tinfo) || json_array_size(tinfo) != nt)
            return fail(c, "learner.gradient_booster.model.tree_info: not an array of %zu entries", nt), -1;
        for (size_t i = 0; i < nt; i++) {
            long g;
            if (as_long(c, json_array_get(tinfo, i), &g, "learner.gradient_booster.model.tree_info", (long)i) != 0)
                return -1;
            if (g != 0)
                return fail(c, "learner.gradient_booster.model.tree_info[%zu]: output group %ld, only one group "
                               "is supported", i, g), -1;
        }
    }
    *trees_out = ta;
    *nt_out = nt;
    return 0;
}

/* Parse every tree and lay them out full-depth for the evaluator. */
static int build_trees(ctx *c, json_t *ta, size_t nt, long nfeat, float base_score, trees **out)
{
    int rc = -1;
    trees *t = NULL;
    raw_tree *rt = calloc(nt ? nt : 1, sizeof *rt);
    if (!rt)
        return fail(c, "out of memory"), -1;
    int depth = 1;
    for (size_t i = 0; i < nt; i++) {
        if (parse_tree(c, json_array_get(ta, i), (int)i, (int)nfeat, &rt[i]) != 0)
            goto done;
        if (rt[i].depth > depth)
            depth = rt[i].depth;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        fail(c, "out of memory");
        goto done;
    }
    t->nfeat = (int)nfeat;
    t->ntrees = (int)nt;
    t->depth = depth;
    /* XGBoost 1.7: LogisticRegression::ProbToMargin, in float. */
    t->base = -logf(1.0f / base_score - 1.0f);
    t->vstride = (size_t)1 << (depth + 1);
    t->fstride = (size_t)1 << depth;
    size_t ntpad = (nt + TREES_CHUNK - 1) / TREES_CHUNK * TREES_CHUNK;
    t->val = alloc64(ntpad * t->vstride * sizeof *t->val);
    t->feat = alloc64(ntpad * t->fstride * sizeof *t->feat);
    if (!t->val || !t->feat) {
        fail(c, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nt; i++)
        pad(t, &rt[i], 0, 0, 0, t->val + i * t->vstride, t->feat + i * t->fstride);
    *out = t;
    t = NULL;
    rc = 0;
done:
    trees_free(t);
    for (size_t i = 0; i < nt; i++)
        raw_free(&rt[i]);
    free(rt);
    return rc;
}

int trees_load(const char *json_path, trees **out, char *err, size_t errlen)
{
    ctx c = {json_path, err, errlen};
    int rc = -1;
    char *text = NULL, *quoted = NULL;
    size_t n = 0, qn = 0, nt = 0;
    json_t *raw = NULL, *doc = NULL, *ta = NULL;
    json_error_t je;
    float base_score;
    long nfeat;

    *out = NULL;
    if (ut_read_file(json_path, &text, &n, err, errlen) != 0)
        goto done;
    raw = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je);
    if (!raw) {
        fail(&c, "malformed JSON at line %d column %d: %s", je.line, je.column, je.text);
        goto done;
    }
    /* Numbers are read again from their text, so that floats keep every bit. */
    quoted = quote_numbers(text, n, &qn);
    if (!quoted) {
        fail(&c, "out of memory");
        goto done;
    }
    doc = json_loadb(quoted, qn, JSON_REJECT_DUPLICATES, &je);
    if (!doc) { /* cannot happen for a text jansson accepted above */
        fail(&c, "malformed JSON after quoting numbers at line %d: %s", je.line, je.text);
        goto done;
    }
    if (!json_is_object(doc)) {
        fail(&c, "top level: not an object");
        goto done;
    }
    json_t *learner = member(&c, doc, "learner", "", JSON_OBJECT);
    if (learner && check_learner(&c, learner, &base_score, &nfeat) == 0 &&
        find_trees(&c, learner, &ta, &nt) == 0 && build_trees(&c, ta, nt, nfeat, base_score, out) == 0)
        rc = 0;
done:
    json_decref(doc);
    json_decref(raw);
    free(quoted);
    free(text);
    return rc;
}

/* ---- evaluation -------------------------------------------------------------- */

/* Walk TREES_CHUNK trees starting at val/feat one level at a time (the
 * trees of a chunk are independent chains the CPU overlaps), then add the
 * leaf values of the first m of them to margin in tree order.  D is a
 * constant at every call site, so strides are constants and both loops
 * unroll.  The tree array is padded with all-zero trees to a multiple of
 * TREES_CHUNK, so walking a whole chunk is always safe. */
static inline __attribute__((always_inline)) float
chunk(const float *val, const uint16_t *feat, const int D, const int m,
      const float *x, float margin)
{
    const size_t vs = (size_t)1 << (D + 1), fs = (size_t)1 << D;
    unsigned k[TREES_CHUNK];
    for (int j = 0; j < TREES_CHUNK; j++)
        k[j] = 0;
#pragma GCC unroll 12
    for (int d = 0; d < D; d++)
#pragma GCC unroll 16
        for (int j = 0; j < TREES_CHUNK; j++) {
            unsigned h = k[j];
            k[j] = 2 * h + 1 + !(x[feat[j * fs + h]] < val[j * vs + h]);
        }
    for (int j = 0; j < m; j++)
        margin += val[j * vs + k[j]];
    return margin;
}

static inline __attribute__((always_inline)) float
eval(const trees *t, const float *x, const int D)
{
    const size_t vs = (size_t)1 << (D + 1), fs = (size_t)1 << D;
    const float *val = t->val;
    const uint16_t *feat = t->feat;
    float margin = t->base;
    for (int i = 0; i < t->ntrees; i += TREES_CHUNK) {
        int m = t->ntrees - i < TREES_CHUNK ? t->ntrees - i : TREES_CHUNK;
        margin = chunk(val, feat, D, m, x, margin);
        val += TREES_CHUNK * vs;
        feat += TREES_CHUNK * fs;
    }
    return margin;
}

float trees_margin(const trees *t, const float *x)
{
    switch (t->depth) {
    case 1: return eval(t, x, 1);
    case 2: return eval(t, x, 2);
    case 3: return eval(t, x, 3);
    case 4: return eval(t, x, 4);
    case 5: return eval(t, x, 5);
    case 6: return eval(t, x, 6);
    case 7: return eval(t, x, 7);
    case 8: return eval(t, x, 8);
    case 9: return eval(t, x, 9);
    case 10: return eval(t, x, 10);
    case 11: return eval(t, x, 11);
    default: return eval(t, x, 12); /* trees_load keeps depth in [1, 12] */
    }
}

float trees_score(const trees *t, const float *x)
{
    /* XGBoost 1.7 common::Sigmoid (src/common/math.h): the clamp keeps
     * expf finite, so very negative margins give 1/(expf(88.7f)+1) rather
     * than 0; kEps = 1e-16f cannot change a sum that is at least 1. */
    const float eps = 1e-16f;
    float m = -trees_margin(t, x);
    m = 88.7f < m ? 88.7f : m; /* std::min(-x, 88.7f) */
    return 1.0f / (expf(m) + 1.0f + eps);
}

int trees_nfeatures(const trees *t) { return t->nfeat; }
int trees_ntrees(const trees *t) { return t->ntrees; }
int trees_depth(const trees *t) { return t->depth; }

void trees_free(trees *t)
{
    if (!t)
        return;
    free(t->val);
    free(t->feat);
    free(t);
}
