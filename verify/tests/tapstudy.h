/* tapstudy: the hand-made study of the AP check's tests (test_ap.c,
 * test_apfull.c), header only; Criterion asserts inside.
 *
 * 12 test rows in two cutoffs, 8 customers, default score 0.25, three model
 * seeds (every score a binary fraction, so floats hold them exactly); seed 1
 * is scores.tsv (test_ap.c's top comment works it out by hand).  Every
 * last_known follows APCOST.md 1.3: rows at 2011-07-01 carry the same
 * customer's live score at 2011-06-01 (customers 107 and 108 are new: the
 * default); rows at 2011-06-01 carry the score of ap_prev_scores.tsv.gz's
 * line for customers 101, 102, 104, 105 (2011-05-01), the default for 103
 * and 106.
 *
 *   row cust cutoff  label | seed 1 score lk | seed 2 score lk | seed 3 score lk
 *    0  101  06-01     1   |  0.875  0.5     |  0.5    0.25    |  0.625  0.5
 *    1  102  06-01     0   |  0.75   0.125   |  0.5    0.5     |  0.625  0.625
 *    2  103  06-01     1   |  0.625  0.25    |  0.75   0.25    |  0.625  0.25
 *    3  104  06-01     0   |  0.5    0.375   |  0.25   0.875   |  0.375  0.25
 *    4  105  06-01     1   |  0.375  0.75    |  0.75   0.125   |  0.375  0.0625
 *    5  106  06-01     0   |  0.125  0.25    |  0.125  0.25    |  0.25   0.25
 *    6  101  07-01     0   |  0.9375 0.875   |  0.5    0.5     |  0.75   0.625
 *    7  102  07-01     1   |  0.8125 0.75    |  0.5    0.5     |  0.5    0.625
 *    8  107  07-01     1   |  0.6875 0.25    |  0.875  0.25    |  0.25   0.25
 *    9  103  07-01     0   |  0.5625 0.625   |  0.25   0.75    |  0.75   0.625
 *   10  108  07-01     0   |  0.4375 0.25    |  0.25   0.25    |  0.125  0.25
 *   11  104  07-01     1   |  0.3125 0.5     |  0.625  0.25    |  0.5    0.375
 *
 * Arms (pipeline/ap_arms.tsv): H3-fb25 (two rounds with stand-ins: S1 =
 * {0, 2, 7}, S2 = {4, 10, 11}), H4-r2 (one round, all live), H4-fb25 (no
 * run: skipped).  ts_ap_files writes the two ap_ reference files and a stub
 * ap.json (1000 resamples, 3 seeds), verifies once, and makes ap.json,
 * ap_resamples.tsv.gz and manifest-ap.tsv from the verifier's own numbers
 * (synap.h): the tests check those numbers against hand values and slow
 * computations, then tamper with the files.
 */
#ifndef TAPSTUDY_H
#define TAPSTUDY_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rawread.h"
#include "synap.h"
#include "synth.h"
#include "thelp.h"
#include "vjson.h"
#include "vutil.h"

static const char *const TAP_CUST[12] = {"101", "102", "103", "104", "105", "106",
                                         "101", "102", "107", "103", "108", "104"};
static const char *const TAP_CUT[12] = {"2011-06-01", "2011-06-01", "2011-06-01", "2011-06-01",
                                        "2011-06-01", "2011-06-01", "2011-07-01", "2011-07-01",
                                        "2011-07-01", "2011-07-01", "2011-07-01", "2011-07-01"};
static const int TAP_LABEL[12] = {1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1};
static const float TAP_LIVE[3][12] = {
    {0.875f, 0.75f, 0.625f, 0.5f, 0.375f, 0.125f, 0.9375f, 0.8125f, 0.6875f, 0.5625f, 0.4375f, 0.3125f},
    {0.5f, 0.5f, 0.75f, 0.25f, 0.75f, 0.125f, 0.5f, 0.5f, 0.875f, 0.25f, 0.25f, 0.625f},
    {0.625f, 0.625f, 0.625f, 0.375f, 0.375f, 0.25f, 0.75f, 0.5f, 0.25f, 0.75f, 0.125f, 0.5f}};
static const float TAP_LK[3][12] = {
    {0.5f, 0.125f, 0.25f, 0.375f, 0.75f, 0.25f, 0.875f, 0.75f, 0.25f, 0.625f, 0.25f, 0.5f},
    {0.25f, 0.5f, 0.25f, 0.875f, 0.125f, 0.25f, 0.5f, 0.5f, 0.25f, 0.75f, 0.25f, 0.25f},
    {0.5f, 0.625f, 0.25f, 0.25f, 0.0625f, 0.25f, 0.625f, 0.625f, 0.25f, 0.625f, 0.25f, 0.375f}};
/* the first cutoff's rows with a score a month earlier: rows 0, 1, 3, 4 */
static const size_t TAP_PREV_ROW[4] = {0, 1, 3, 4};

/*                                  j: 0123456789abcd */
static const char *TAP_ROUND1 = "KLDLLELKLLLLKK";
static const char *TAP_ROUND2 = "LLLLKLLLLLDKL";

static inline void tap_table(sap_table *t)
{
    memset(t, 0, sizeof *t);
    t->n = 12;
    t->S = 3;
    t->d = 0.25f;
    snprintf(t->c0prev, sizeof t->c0prev, "2011-05-01");
    t->cust = vu_xmalloc(12 * sizeof *t->cust);
    t->cut = vu_xmalloc(12 * sizeof *t->cut);
    t->label = vu_xmalloc(12 * sizeof *t->label);
    for (int i = 0; i < 12; i++) {
        t->cust[i] = vu_xstrdup(TAP_CUST[i]);
        t->cut[i] = vu_xstrdup(TAP_CUT[i]);
        t->label[i] = TAP_LABEL[i];
    }
    t->live = vu_xmalloc(3 * sizeof *t->live);
    t->lastk = vu_xmalloc(3 * sizeof *t->lastk);
    t->prev = vu_xmalloc(3 * sizeof *t->prev);
    t->nprev = 4;
    t->prev_row = vu_xmalloc(4 * sizeof *t->prev_row);
    memcpy(t->prev_row, TAP_PREV_ROW, sizeof TAP_PREV_ROW);
    for (int s = 0; s < 3; s++) {
        t->live[s] = vu_xmalloc(12 * sizeof **t->live);
        t->lastk[s] = vu_xmalloc(12 * sizeof **t->lastk);
        t->prev[s] = vu_xmalloc(4 * sizeof **t->prev);
        memcpy(t->live[s], TAP_LIVE[s], sizeof TAP_LIVE[s]);
        memcpy(t->lastk[s], TAP_LK[s], sizeof TAP_LK[s]);
        for (int k = 0; k < 4; k++)
            t->prev[s][k] = TAP_LK[s][TAP_PREV_ROW[k]];
    }
}

static inline void tap_write_runs(const char *root, const char *round2)
{
    sap_table t;
    tap_table(&t);
    cr_assert_eq(sap_write_reference(root, &t), 0);
    syn_ref ref;
    sap_ref(&t, &ref);
    syn_run r;
    syn_kind_run(&r, "H3-fb25", 1, TAP_ROUND1, &ref, 1000000000000LL);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_kind_run(&r, "H3-fb25", 2, round2, &ref, 1100000000000LL);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_kind_run(&r, "H4-r2", 1, "LLLLLLLLLLLL", &ref, 1200000000000LL);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_free_ref(&ref);
    sap_free(&t);
    cr_assert_eq(syn_write_manifest(root), 0);
}

static inline void tap_write_inputs(const char *root)
{
    char *p = vu_xasprintf("%s/pipeline", root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/data", root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/pipeline/comparisons.tsv", root);
    syn_write_text(p, "a\tb\tfigure\tnote\n");
    free(p);
    p = vu_xasprintf("%s/data/guesses.tsv", root);
    syn_write_text(p, "id\tguess\tpredicate\n");
    free(p);
    cr_assert_eq(syn_write_quiet(root, NULL), 0);
    p = vu_xasprintf("%s/pipeline/ap_arms.tsv", root);
    syn_write_text(p, "arm\nH3-fb25\n# the retries at 450/s, with and without a stand-in\n\nH4-r2\nH4-fb25\n");
    free(p);
}

static inline int tap_verify(const char *root, char **out)
{
    const char *a[] = {"--root", root, "--no-scan", "--max-print", "0", NULL};
    return th_run(out, a);
}

static inline void tap_run_verify(const char *root, int want_rc, char **out)
{
    int rc = tap_verify(root, out);
    cr_assert_eq(rc, want_rc, "verify exit %d, expected %d:\n%s", rc, want_rc, *out);
}

/* results.json from the verifier's own numbers, so that only the AP files can mismatch */
static inline void tap_make_results(const char *root)
{
    char *rp = vu_xasprintf("%s/results/results.json", root);
    syn_write_text(rp, "{\"format\": \"lab-results 1\", \"runs\": {}, \"arms\": {}, \"verdicts\": [], \"guesses\": []}\n");
    free(rp);
    char *out;
    tap_run_verify(root, 1, &out);
    free(out);
    cr_assert_eq(syn_results_from_verified(root), 0);
}

static inline void tap_good_study(const char *root)
{
    tap_write_runs(root, TAP_ROUND2);
    tap_write_inputs(root);
    tap_make_results(root);
}

/* the files make ap writes: the verifier's own numbers (a stub ap.json first) */
static inline void tap_ap_files(const char *root)
{
    sap_table t;
    tap_table(&t);
    cr_assert_eq(sap_write_seed_files(root, &t), 0);
    sap_free(&t);
    cr_assert_eq(sap_write_stub_ap_json(root, 1000, 3), 0);
    char *out;
    tap_run_verify(root, 1, &out);
    free(out);
    cr_assert_eq(sap_promote(root), 0);
}

static inline vj_node *tap_verified(const char *root)
{
    char *vp = vu_xasprintf("%s/results/verified.json", root);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    free(vp);
    return v;
}

/* the node at a path of object keys and array indexes ("#3"), or NULL */
static inline const vj_node *tap_node(const vj_node *n, const char *path)
{
    char *p = vu_xstrdup(path);
    for (char *tok = strtok(p, "/"); tok && n; tok = strtok(NULL, "/")) {
        if (tok[0] == '#') {
            size_t i = (size_t)atoi(tok + 1);
            n = n->type == VJ_ARR && i < n->n ? n->items[i] : NULL;
        } else {
            n = vj_get(n, tok);
        }
    }
    free(p);
    return n;
}

static inline double tap_at(const vj_node *n, const char *path)
{
    const vj_node *x = tap_node(n, path);
    cr_assert(x && x->type == VJ_NUM, "%s is not a number", path);
    return x->num;
}

#define TAP_NEAR(v, path, x)                                                                                     \
    cr_expect(fabs(tap_at(v, path) - (x)) < 1e-13, "%s = %.17g, expected %.17g", path, tap_at(v, path),           \
              (double)(x))

/* in the file at root/rel, replace the first occurrence of `from` after `after` by `to` */
static inline void tap_replace(const char *root, const char *rel, const char *after, const char *from, const char *to)
{
    char *p = vu_xasprintf("%s/%s", root, rel), err[256];
    unsigned char *b;
    size_t len;
    cr_assert_eq(vu_read_file(p, &b, &len, err, sizeof err), 0, "%s", err);
    char *s = (char *)b, *a = strstr(s, after);
    cr_assert(a, "no %s in %s", after, rel);
    char *q = strstr(a, from);
    cr_assert(q, "no %s after %s in %s", from, after, rel);
    vu_buf o = {0};
    vu_buf_add(&o, s, (size_t)(q - s));
    vu_buf_puts(&o, to);
    vu_buf_puts(&o, q + strlen(from));
    cr_assert_eq(syn_write_text(p, o.p), 0);
    vu_buf_free(&o);
    free(b);
    free(p);
}

/* a gzip text file at root/rel with line `lineno` (1-based) replaced by text */
static inline void tap_gz_line(const char *root, const char *rel, int lineno, const char *text)
{
    char *p = vu_xasprintf("%s/%s", root, rel), err[256];
    unsigned char *gz, *txt;
    size_t gzlen, len;
    cr_assert_eq(vu_read_file(p, &gz, &gzlen, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rr_gunzip(gz, gzlen, &txt, &len, err, sizeof err), 0, "%s", err);
    char *s = (char *)txt;
    for (int i = 1; i < lineno; i++)
        s = strchr(s, '\n') + 1;
    char *e = strchr(s, '\n');
    vu_buf o = {0};
    vu_buf_add(&o, (char *)txt, (size_t)(s - (char *)txt));
    vu_buf_puts(&o, text);
    vu_buf_add(&o, e, len - (size_t)(e - (char *)txt));
    cr_assert_eq(sap_gzip_text(p, o.p, o.len), 0);
    vu_buf_free(&o);
    free(txt);
    free(gz);
    free(p);
}

/* line `lineno` of a gzip text file (malloc'd) */
static inline char *tap_gz_get(const char *root, const char *rel, int lineno)
{
    char *p = vu_xasprintf("%s/%s", root, rel), err[256];
    unsigned char *gz, *txt;
    size_t gzlen, len;
    cr_assert_eq(vu_read_file(p, &gz, &gzlen, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rr_gunzip(gz, gzlen, &txt, &len, err, sizeof err), 0, "%s", err);
    char *s = (char *)txt;
    for (int i = 1; i < lineno; i++)
        s = strchr(s, '\n') + 1;
    char *r = vu_xstrndup(s, (size_t)(strchr(s, '\n') - s));
    free(txt);
    free(gz);
    free(p);
    return r;
}

#endif
