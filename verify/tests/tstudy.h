/* tstudy: helpers of the tests that write a small synthetic study, verify
 * it and read verified.json back (header only; Criterion asserts inside).
 *
 * ts_write_texts writes root/pipeline/comparisons.tsv and
 * root/data/guesses.tsv.  ts_promote verifies once against a stub
 * results.json, then makes results.json the verified.json it wrote (so the
 * next verification compares like with like).  ts_verified parses
 * root/results/verified.json (free it with vj_free); ts_field is a run's
 * figure (the test fails when it is absent); TS_NUM expects a number
 * within 1e-9; ts_replace_line rewrites one line of a raw file;
 * ts_without copies an object without one member, and ts_drop_members
 * takes members out of every run and arm of root/results/results.json (an
 * older study's file, written before they were defined); ts_set_result sets
 * one member of it (dot-separated, #k an index) to a JSON text; ts_add_arm
 * adds a line to root/lab/arms.tsv (an arm registered without runs).
 */
#ifndef TSTUDY_H
#define TSTUDY_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rawread.h"
#include "synth.h"
#include "thelp.h"
#include "vjson.h"
#include "vutil.h"

static inline void ts_write_texts(const char *root, const char *comparisons, const char *guesses)
{
    const char *dirs[] = {"pipeline", "data"}, *files[] = {"pipeline/comparisons.tsv", "data/guesses.tsv"};
    const char *texts[] = {comparisons, guesses};
    for (int i = 0; i < 2; i++) {
        char *p = vu_xasprintf("%s/%s", root, dirs[i]);
        syn_mkdirs(p);
        free(p);
        p = vu_xasprintf("%s/%s", root, files[i]);
        syn_write_text(p, texts[i]);
        free(p);
    }
}

static inline void ts_promote(const char *root)
{
    char *rp = vu_xasprintf("%s/results/results.json", root);
    syn_write_text(rp, "{\"format\": \"lab-results 1\", \"runs\": {}, \"arms\": {}, \"verdicts\": [], \"guesses\": []}\n");
    free(rp);
    char *out;
    const char *a[] = {"--root", root, "--no-scan", NULL};
    cr_assert_eq(th_run(&out, a), 1, "%s", out);
    free(out);
    cr_assert_eq(syn_results_from_verified(root), 0);
}

static inline vj_node *ts_verified(const char *root)
{
    char *vp = vu_xasprintf("%s/results/verified.json", root);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    free(vp);
    return v;
}

static inline const vj_node *ts_field(const vj_node *v, const char *run, const char *name)
{
    const vj_node *n = vj_get(vj_get(vj_get(v, "runs"), run), name);
    cr_assert(n, "%s.%s absent", run, name);
    return n;
}

#define TS_NUM(v, run, name, want)                                                                              \
    do {                                                                                                         \
        const vj_node *n_ = ts_field(v, run, name);                                                              \
        cr_expect(n_->type == VJ_NUM && fabs(n_->num - (want)) < 1e-9, "%s.%s = %s, expected %.12g", run, name,  \
                  n_->type == VJ_NUM ? n_->text : "(not a number)", (double)(want));                           \
    } while (0)

/* Rewrites one raw file of a run with line `lineno` (1-based) replaced by
 * `text` (run.json and the manifest stay as they were). */
static inline void ts_replace_line(const char *root, const char *run, const char *file, int lineno, const char *text)
{
    char *p = vu_xasprintf("%s/results/raw/%s/%s", root, run, file);
    unsigned char *gz, *txt;
    size_t gzlen, len;
    char err[256];
    cr_assert_eq(vu_read_file(p, &gz, &gzlen, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rr_gunzip(gz, gzlen, &txt, &len, err, sizeof err), 0, "%s", err);
    char *s = (char *)txt;
    for (int i = 1; i < lineno; i++)
        s = strchr(s, '\n') + 1;
    char *e = strchr(s, '\n');
    vu_buf o = {0};
    vu_buf_add(&o, (char *)txt, (size_t)(s - (char *)txt));
    vu_buf_puts(&o, text);
    vu_buf_puts(&o, e);
    gzFile g = gzopen(p, "wb6");
    cr_assert(g);
    gzwrite(g, o.p, (unsigned)o.len);
    gzclose(g);
    vu_buf_free(&o);
    free(txt);
    free(gz);
    free(p);
}

/* a copy of object o without its member key (free it with vj_free) */
static inline vj_node *ts_without(const vj_node *o, const char *key)
{
    vj_node *n = vj_new_obj();
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->keys[i], key))
            vj_obj_set(n, o->keys[i], vj_copy(o->items[i]));
    return n;
}

/* The tree lab written to the file res (both freed) */
static inline void ts_write_back(vj_node *lab, char *res)
{
    vu_buf b = {0};
    vj_write(lab, &b);
    cr_assert_eq(syn_write_text(res, b.p), 0);
    vu_buf_free(&b);
    vj_free(lab);
    free(res);
}

/* root/results/results.json with the members names[0..n) taken out of
 * every entry of `runs` and `arms`, but for the run keep_run (NULL: none
 * kept) */
static inline void ts_drop_members(const char *root, const char *keep_run, const char *const *names, int n)
{
    char *res = vu_xasprintf("%s/results/results.json", root), err[512];
    vj_node *lab;
    cr_assert_eq(vj_parse_file(res, &lab, err, sizeof err), 0, "%s", err);
    const char *sections[] = {"runs", "arms"};
    for (int k = 0; k < 2; k++) {
        vj_node *sec = vj_get(lab, sections[k]);
        cr_assert(sec && sec->type == VJ_OBJ);
        for (size_t i = 0; i < sec->n; i++) {
            if (keep_run && !k && !strcmp(sec->keys[i], keep_run))
                continue;
            for (int f = 0; f < n; f++) {
                vj_node *c = ts_without(sec->items[i], names[f]);
                vj_free(sec->items[i]);
                sec->items[i] = c;
            }
        }
    }
    ts_write_back(lab, res);
}

/* root/results/results.json with the member at path (dot-separated
 * members, #k an index) set to the JSON text val */
static inline void ts_set_result(const char *root, const char *path, const char *val)
{
    char *res = vu_xasprintf("%s/results/results.json", root), err[512];
    vj_node *lab, *x;
    cr_assert_eq(vj_parse_file(res, &lab, err, sizeof err), 0, "%s", err);
    cr_assert_eq(vj_parse(val, strlen(val), "value", &x, err, sizeof err), 0, "%s", err);
    char *p = vu_xstrdup(path), *save = NULL;
    vj_node *n = lab, *parent = NULL;
    const char *key = NULL;
    size_t idx = 0;
    for (char *tok = strtok_r(p, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
        parent = n;
        if (tok[0] == '#') {
            idx = (size_t)atoi(tok + 1);
            key = NULL;
            cr_assert(n && n->type == VJ_ARR && idx < n->n, "%s", path);
            n = n->items[idx];
        } else {
            key = tok;
            n = vj_get(n, tok);
            if (!n)
                break;
        }
    }
    cr_assert(parent);
    if (key) {
        vj_obj_set(parent, key, x);
    } else {
        vj_free(parent->items[idx]);
        parent->items[idx] = x;
    }
    free(p);
    ts_write_back(lab, res);
}

/* root/lab/arms.tsv with one line more: arm like's columns under the name
 * name (a registered arm without runs); nothing when name is there already */
static inline void ts_add_arm(const char *root, const char *name, const char *like)
{
    char *p = vu_xasprintf("%s/lab/arms.tsv", root), *key = vu_xasprintf("\n%s\t", like), err[256];
    unsigned char *b;
    size_t n;
    cr_assert_eq(vu_read_file(p, &b, &n, err, sizeof err), 0, "%s", err);
    const char *z = strstr((const char *)b, key), *e = z ? strchr(z + 1, '\n') : NULL;
    cr_assert(z, "no arm %s in %s", like, p);
    char *mine = vu_xasprintf("\n%s\t", name);
    int there = strstr((const char *)b, mine) != NULL;
    free(mine);
    if (there) { /* added before: once is enough */
        free(b);
        free(key);
        free(p);
        return;
    }
    vu_buf o = {0};
    vu_buf_add(&o, (const char *)b, n);
    if (n && b[n - 1] != '\n')
        vu_buf_puts(&o, "\n");
    vu_buf_puts(&o, name);
    vu_buf_add(&o, z + strlen(key) - 1, e ? (size_t)(e - (z + strlen(key) - 1)) : strlen(z + strlen(key) - 1));
    vu_buf_puts(&o, "\n");
    cr_assert_eq(syn_write_text(p, o.p), 0);
    vu_buf_free(&o);
    free(b);
    free(key);
    free(p);
}

#endif
