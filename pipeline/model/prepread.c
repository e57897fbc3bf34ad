/* prepread: see prepread.h for the contract. */
#include "prepread.h"

#include <float.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "prepsum.h"
#include "sctab.h"
#include "tsv.h"
#include "util.h"

/* ================================================================ TSV */

size_t prepread_split(char *s, char **f, size_t max)
{
    size_t n = 0;
    f[n++] = s;
    for (char *p = s; *p; p++) {
        if (*p == '\t') {
            *p = 0;
            if (n == max)
                return max + 1;
            f[n++] = p + 1;
        }
    }
    return n;
}

/* The one TSV reader (lab/base/tsv.h) with the callback of prepread.h. */
typedef struct {
    prepread_line_fn fn;
    void *ctx;
} adapt;

static int one_record(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    adapt *a = ctx;
    return a->fn(a->ctx, f, nf, at->path, at->line, err, errlen);
}

int prepread_tsv(const char *path, const char *header, int nfields, prepread_line_fn fn, void *ctx, char *err,
                 size_t errlen)
{
    adapt a = {fn, ctx};
    tsv_spec s = {path, header, nfields, 1};
    return tsv_read(&s, one_record, &a, err, errlen);
}

/* ================================================================ fields */

/* An integer field in [lo, hi]; the message names file, line and field. */
int prepread_int_field(const char *s, int64_t lo, int64_t hi, int64_t *v, const char *what, const char *path,
                       size_t lineno, char *err, size_t errlen)
{
    char why[96];
    if (opt_i64(s, lo, hi, v, why, sizeof why) == 0)
        return 0;
    ut_seterr(err, errlen, "%s: line %zu: %s \"%s\": %s", path, lineno, what, s, why);
    return -1;
}

/* A day "YYYY-MM-DD" (digits only, month 1..12, day 1..31). */
int prepread_day_field(const char *s, int32_t *day, const char *path, size_t lineno, char *err, size_t errlen)
{
    int ok = strlen(s) == 10 && s[4] == '-' && s[7] == '-';
    for (int i = 0; ok && i < 10; i++)
        ok = i == 4 || i == 7 || (s[i] >= '0' && s[i] <= '9');
    int y = 0, m = 0, d = 0;
    if (ok) {
        y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
        m = (s[5] - '0') * 10 + (s[6] - '0');
        d = (s[8] - '0') * 10 + (s[9] - '0');
        ok = m >= 1 && m <= 12 && d >= 1 && d <= 31;
    }
    if (!ok) {
        ut_seterr(err, errlen, "%s: line %zu: cutoff \"%s\" is not a day YYYY-MM-DD", path, lineno, s);
        return -1;
    }
    *day = ut_days_from_civil(y, m, d);
    return 0;
}

/* A finite 32-bit float, as prepare writes it (%.9g gives the float back). */
int prepread_f32_field(const char *s, float *v, const char *what, const char *path, size_t lineno, char *err,
                       size_t errlen)
{
    char why[96];
    double d;
    if (opt_f64(s, -FLT_MAX, FLT_MAX, &d, why, sizeof why) != 0) {
        ut_seterr(err, errlen, "%s: line %zu: %s \"%s\" is not a number: %s", path, lineno, what, s, why);
        return -1;
    }
    *v = (float)d;
    return 0;
}

static int feats(char **f, float *x, const char *path, size_t lineno, char *err, size_t errlen)
{
    for (int k = 0; k < FEAT_N; k++)
        if (prepread_f32_field(f[k], &x[k], feat_names[k], path, lineno, err, errlen) != 0)
            return -1;
    return 0;
}

/* customer, cutoff, label as in train.tsv and scores.tsv. */
static int key_fields(char **f, feat_row *q, const char *path, size_t lineno, char *err, size_t errlen)
{
    int64_t c, l;
    if (prepread_int_field(f[0], INT32_MIN, INT32_MAX, &c, "customer", path, lineno, err, errlen) != 0 ||
        prepread_day_field(f[1], &q->cutoff, path, lineno, err, errlen) != 0 ||
        prepread_int_field(f[2], 0, 1, &l, "label", path, lineno, err, errlen) != 0)
        return -1;
    q->customer = (int32_t)c;
    q->label = (uint8_t)l;
    return 0;
}

/* ================================================================ the files */

void prepread_rows_free(prepread_rows *r)
{
    if (!r)
        return;
    free(r->r);
    memset(r, 0, sizeof *r);
}

static feat_row *next_row(prepread_rows *r, const char *path, char *err, size_t errlen)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 1024;
        feat_row *nr = realloc(r->r, cap * sizeof *nr);
        if (!nr) {
            ut_seterr(err, errlen, "%s: out of memory", path);
            return NULL;
        }
        r->r = nr;
        r->cap = cap;
    }
    return &r->r[r->n];
}

static const char FEAT_HDR[] = "recency\torders_90\tspend_90\torders_365\tspend_365\ttenure";

/* train.tsv: customer cutoff label + 6 */
static int train_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    (void)nf;
    prepread_rows *r = ctx;
    feat_row *q = next_row(r, path, err, errlen);
    if (!q || key_fields(f, q, path, lineno, err, errlen) != 0 || feats(f + 3, q->x, path, lineno, err, errlen) != 0)
        return -1;
    r->n++;
    return 0;
}

int prepread_train(const char *path, prepread_rows *out, char *err, size_t errlen)
{
    char hdr[256];
    snprintf(hdr, sizeof hdr, "customer\tcutoff\tlabel\t%s", FEAT_HDR);
    return prepread_tsv(path, hdr, 9, train_line, out, err, errlen);
}

/* test.tsv: row customer cutoff label + 6 (row = line order) */
static int test_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    prepread_rows *r = ctx;
    int64_t row;
    if (prepread_int_field(f[0], 0, INT64_MAX, &row, "row", path, lineno, err, errlen) != 0)
        return -1;
    if (row != (int64_t)r->n) {
        ut_seterr(err, errlen, "%s: line %zu: row \"%s\", expected %zu", path, lineno, f[0], r->n);
        return -1;
    }
    return train_line(ctx, f + 1, nf - 1, path, lineno, err, errlen);
}

int prepread_test(const char *path, prepread_rows *out, char *err, size_t errlen)
{
    char hdr[256];
    snprintf(hdr, sizeof hdr, "row\tcustomer\tcutoff\tlabel\t%s", FEAT_HDR);
    return prepread_tsv(path, hdr, 10, test_line, out, err, errlen);
}

typedef struct {
    const prepread_rows *test;
    prepread_rows *prev;
    int32_t *row;    /* test row of each prev line */
    size_t cap;
} prevs;

/* prev.tsv: row customer cutoff + 6 */
static int prev_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    (void)nf;
    prevs *p = ctx;
    size_t n = p->prev->n;
    int64_t row, c;
    if (prepread_int_field(f[0], 0, INT64_MAX, &row, "row", path, lineno, err, errlen) != 0 ||
        prepread_int_field(f[1], INT32_MIN, INT32_MAX, &c, "customer", path, lineno, err, errlen) != 0)
        return -1;
    if ((size_t)row >= p->test->n || c != p->test->r[row].customer || (n && row <= p->row[n - 1])) {
        ut_seterr(err, errlen, "%s: line %zu: row %s customer %s is not a test row's customer (rows ascending)",
                  path, lineno, f[0], f[1]);
        return -1;
    }
    feat_row *q = next_row(p->prev, path, err, errlen);
    if (!q)
        return -1;
    if (n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 1024;
        int32_t *nr = realloc(p->row, p->cap * sizeof *nr);
        if (!nr) {
            ut_seterr(err, errlen, "%s: out of memory", path);
            return -1;
        }
        p->row = nr;
    }
    q->customer = (int32_t)c;
    q->label = 0;
    if (prepread_day_field(f[2], &q->cutoff, path, lineno, err, errlen) != 0 ||
        feats(f + 3, q->x, path, lineno, err, errlen) != 0)
        return -1;
    p->row[n] = (int32_t)row;
    p->prev->n++;
    return 0;
}

int prepread_prev(const char *path, const prepread_rows *test, prepread_rows *out, int32_t **row, char *err,
                  size_t errlen)
{
    char hdr[256];
    snprintf(hdr, sizeof hdr, "row\tcustomer\tcutoff\t%s", FEAT_HDR);
    prevs p = {test, out, NULL, 0};
    int rc = prepread_tsv(path, hdr, 9, prev_line, &p, err, errlen);
    *row = p.row;
    return rc;
}

/* scores.tsv through its one reader (lab/core/sctab.h), then checked row by
 * row against test.tsv. */
int prepread_scores(const char *path, const prepread_rows *test, float *score, float *last, char *err,
                    size_t errlen)
{
    sctab t;
    if (sctab_load(path, 0, &t, err, errlen) != 0)
        return -1;
    int rc = 0;
    if (t.n != test->n) {
        ut_seterr(err, errlen, "%s: %zu rows, test.tsv has %zu", path, t.n, test->n);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < t.n; i++) {
        const feat_row *r = &test->r[i];
        if (t.customer[i] != r->customer || t.cutoff[i] != r->cutoff || t.label[i] != r->label) {
            ut_seterr(err, errlen, "%s: row %zu: customer, cutoff or label differs from test.tsv's", path, i);
            rc = -1;
            break;
        }
        score[i] = t.score[i];
        last[i] = t.last[i];
    }
    sctab_free(&t);
    return rc;
}

int prepread_summary(const char *path, float *dflt, int64_t *test_rows, char *err, size_t errlen)
{
    prepsum sum; /* summary.json's one reader (lab/core/prepsum.h) */
    if (prepsum_load(path, &sum, err, errlen) != 0)
        return -1;
    if (sum.model_seed != 1) {
        if (sum.model_seed < 0)
            ut_seterr(err, errlen, "%s: model_seed must be a number", path);
        else
            ut_seterr(err, errlen, "%s: model_seed is %lld; the default seed of the AP study is 1 (prepare with "
                      "--model-seed 1)", path, (long long)sum.model_seed);
        return -1;
    }
    *dflt = sum.default_score;
    *test_rows = sum.test_rows;
    return 0;
}

/* ================================================================ the set */

void prepread_free(prepread_set *s)
{
    if (!s)
        return;
    prepread_rows_free(&s->train);
    prepread_rows_free(&s->test);
    prepread_rows_free(&s->prev);
    free(s->prev_row);
    free(s->score);
    free(s->last);
    memset(s, 0, sizeof *s);
}

static int pin(prov *pv, const char *path, char *err, size_t errlen)
{
    return pv ? prov_input(pv, path, err, errlen) : 0;
}

/* The default score is the training buyers' share. */
static int check_default(const char *prep, const prepread_set *s, char *err, size_t errlen)
{
    double buyers = 0;
    for (size_t i = 0; i < s->train.n; i++)
        buyers += s->train.r[i].label;
    if (s->train.n == 0 || (float)(buyers / (double)s->train.n) != s->dflt) {
        ut_seterr(err, errlen, "%s/summary.json: default_score %.9g is not the training buyers' share %.9g of "
                  "train.tsv", prep, s->dflt, s->train.n ? (float)(buyers / (double)s->train.n) : 0.0f);
        return -1;
    }
    return 0;
}

int prepread_load(const char *prep, prov *pv, prepread_set *s, char *err, size_t errlen)
{
    char path[4200];
    int64_t test_rows;
    memset(s, 0, sizeof *s);
    snprintf(path, sizeof path, "%s/summary.json", prep);
    if (prepread_summary(path, &s->dflt, &test_rows, err, errlen) != 0 || pin(pv, path, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/train.tsv", prep);
    if (pin(pv, path, err, errlen) != 0 || prepread_train(path, &s->train, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/test.tsv", prep);
    if (pin(pv, path, err, errlen) != 0 || prepread_test(path, &s->test, err, errlen) != 0)
        return -1;
    size_t n = s->test.n;
    if (test_rows >= 0 && (size_t)test_rows != n) {
        ut_seterr(err, errlen, "%s/test.tsv: %zu rows, summary.json says %lld", prep, n, (long long)test_rows);
        return -1;
    }
    snprintf(path, sizeof path, "%s/prev.tsv", prep);
    if (pin(pv, path, err, errlen) != 0 || prepread_prev(path, &s->test, &s->prev, &s->prev_row, err, errlen) != 0)
        return -1;
    s->score = malloc((n ? n : 1) * sizeof *s->score);
    s->last = malloc((n ? n : 1) * sizeof *s->last);
    if (!s->score || !s->last) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    snprintf(path, sizeof path, "%s/scores.tsv", prep);
    if (pin(pv, path, err, errlen) != 0 || prepread_scores(path, &s->test, s->score, s->last, err, errlen) != 0)
        return -1;
    return check_default(prep, s, err, errlen);
}
