/* synap: the AP data of a synthetic study: several model seeds' scores and the files of APCOST.md 1.10; see synap.h. */
#include "synap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "vjson.h"
#include "vutil.h"

/* ------------------------------------------------------------ the table */

static unsigned long long mix(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double u01(unsigned long long *s)
{
    return (double)(mix(s) >> 11) / 9007199254740992.0;
}

/* a score: in (0, 1), a multiple of 2^-14 (so that some rows tie) */
static float score_of(double x)
{
    if (x < 0.001)
        x = 0.001;
    if (x > 0.999)
        x = 0.999;
    return (float)(floor(x * 16384 + 0.5) / 16384);
}

void sap_make(sap_table *t, size_t customers, size_t ncut, size_t S, unsigned long long seed)
{
    memset(t, 0, sizeof *t);
    t->S = S;
    t->d = 0.272524476f;
    snprintf(t->c0prev, sizeof t->c0prev, "2011-05-01");
    unsigned long long st = seed;
    int *first = vu_xmalloc(customers * sizeof *first);
    size_t n = 0;
    for (size_t u = 0; u < customers; u++) {
        double r = u01(&st);
        first[u] = r < 0.78 ? -1 : r < 0.86 ? 0 : 1 + (int)(u01(&st) * (double)(ncut - 1));
        n += ncut - (size_t)(first[u] < 0 ? 0 : first[u]);
    }
    /* each customer's score per seed and month (month -1: the one before the first cutoff) */
    size_t nm = ncut + 1;
    float *sc = vu_xmalloc(S * customers * nm * sizeof *sc);
    double *base = vu_xmalloc(customers * sizeof *base);
    for (size_t u = 0; u < customers; u++)
        base[u] = u01(&st);
    for (size_t s = 0; s < S; s++)
        for (size_t u = 0; u < customers; u++) {
            double b = base[u] + 0.1 * (u01(&st) - 0.5);
            for (size_t m = 0; m < nm; m++)
                sc[(s * customers + u) * nm + m] = score_of(b + 0.2 * (u01(&st) - 0.5));
        }
    t->n = n;
    t->cust = vu_xmalloc(n * sizeof *t->cust);
    t->cut = vu_xmalloc(n * sizeof *t->cut);
    t->label = vu_xmalloc(n * sizeof *t->label);
    t->live = vu_xmalloc(S * sizeof *t->live);
    t->lastk = vu_xmalloc(S * sizeof *t->lastk);
    t->prev = vu_xmalloc(S * sizeof *t->prev);
    for (size_t s = 0; s < S; s++) {
        t->live[s] = vu_xmalloc(n * sizeof **t->live);
        t->lastk[s] = vu_xmalloc(n * sizeof **t->lastk);
        t->prev[s] = vu_xmalloc(customers * sizeof **t->prev);
    }
    t->prev_row = vu_xmalloc(customers * sizeof *t->prev_row);
    size_t i = 0;
    for (size_t c = 0; c < ncut; c++)
        for (size_t u = 0; u < customers; u++) {
            if ((int)c < first[u])
                continue;
            t->cust[i] = vu_xasprintf("%zu", 12346 + 7 * u);
            t->cut[i] = vu_xasprintf("2011-%02zu-01", 6 + c);
            t->label[i] = u01(&st) < 0.55 * sc[u * nm + c + 1];
            int has_prev = (int)c - 1 >= first[u];
            if (c == 0 && has_prev)
                t->prev_row[t->nprev] = i;
            for (size_t s = 0; s < S; s++) {
                const float *x = &sc[(s * customers + u) * nm];
                t->live[s][i] = x[c + 1];
                t->lastk[s][i] = has_prev ? x[c] : t->d;
                if (c == 0 && has_prev)
                    t->prev[s][t->nprev] = x[0];
            }
            if (c == 0 && has_prev)
                t->nprev++;
            i++;
        }
    free(first);
    free(sc);
    free(base);
}

void sap_free(sap_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->cust ? t->cust[i] : NULL);
        free(t->cut ? t->cut[i] : NULL);
    }
    for (size_t s = 0; s < t->S; s++) {
        free(t->live[s]);
        free(t->lastk[s]);
        free(t->prev[s]);
    }
    free(t->cust);
    free(t->cut);
    free(t->label);
    free(t->live);
    free(t->lastk);
    free(t->prev);
    free(t->prev_row);
    memset(t, 0, sizeof *t);
}

void sap_ref(const sap_table *t, syn_ref *ref)
{
    ref->rows = t->n;
    ref->score = vu_xmalloc((t->n + 1) * sizeof *ref->score);
    ref->last_known = vu_xmalloc((t->n + 1) * sizeof *ref->last_known);
    memcpy(ref->score, t->live[0], t->n * sizeof *ref->score);
    memcpy(ref->last_known, t->lastk[0], t->n * sizeof *ref->last_known);
    ref->default_score = t->d;
}

typedef struct {
    const char *cust;
    int month;
} cm;

static int cmp_cm(const void *x, const void *y)
{
    const cm *a = x, *b = y;
    int c = strcmp(a->cust, b->cust);
    return c ? c : (a->month > b->month) - (a->month < b->month);
}

static int month_of(const char *cut)
{
    int y = 0, m = 0;
    if (sscanf(cut, "%d-%d", &y, &m) != 2)
        return -1;
    return y * 12 + m - 1;
}

size_t sap_rows_with_lk(const sap_table *t)
{
    /* a row has a previous-cutoff score when its customer has a row the month
     * before (in the table, or a prev line for the first cutoff) */
    cm *v = vu_xmalloc((t->n + 1) * sizeof *v);
    int first = t->n ? month_of(t->cut[0]) : 0;
    for (size_t i = 0; i < t->n; i++) {
        v[i] = (cm){t->cust[i], month_of(t->cut[i])};
        if (v[i].month < first)
            first = v[i].month;
    }
    qsort(v, t->n, sizeof *v, cmp_cm);
    size_t k = t->nprev;
    for (size_t i = 0; i < t->n; i++) {
        cm key = {t->cust[i], month_of(t->cut[i]) - 1};
        if (key.month >= first && bsearch(&key, v, t->n, sizeof *v, cmp_cm))
            k++;
    }
    free(v);
    return k;
}

/* ----------------------------------------------------------- the writers */

int sap_gzip_text(const char *path, const char *text, size_t len)
{
    gzFile g = gzopen(path, "wb6");
    if (!g) {
        fprintf(stderr, "synap: cannot write %s\n", path);
        return -1;
    }
    int ok = len == 0 || gzwrite(g, text, (unsigned)len) == (int)len;
    return gzclose(g) == Z_OK && ok ? 0 : -1;
}

static char *at_root(const char *root, const char *rel)
{
    return vu_xasprintf("%s/%s", root, rel);
}

int sap_write_reference(const char *root, const sap_table *t)
{
    char *dir = at_root(root, "results/reference");
    syn_mkdirs(dir);
    free(dir);
    vu_buf b = {0};
    vu_buf_puts(&b, "customer\tcutoff\tlabel\tscore\tlast_known\n");
    for (size_t i = 0; i < t->n; i++)
        vu_buf_printf(&b, "%s\t%s\t%d\t%.9g\t%.9g\n", t->cust[i], t->cut[i], t->label[i], (double)t->live[0][i],
                      (double)t->lastk[0][i]);
    char *p = at_root(root, "results/reference/scores.tsv");
    int rc = syn_write_text(p, b.p);
    free(p);
    vu_buf_free(&b);
    char js[512];
    snprintf(js, sizeof js,
             "{\n \"shop\": \"synthetic\",\n \"model_seed\": 1,\n \"default_score\": %.9g,\n \"test_rows\": %zu,\n"
             " \"test_rows_with_last_known\": %zu\n}\n",
             (double)t->d, t->n, sap_rows_with_lk(t));
    p = at_root(root, "results/reference/summary.json");
    rc |= syn_write_text(p, js);
    free(p);
    return rc;
}

int sap_write_seed_files(const char *root, const sap_table *t)
{
    vu_buf b = {0};
    vu_buf_puts(&b, "row\tcustomer\tcutoff");
    for (size_t s = 1; s <= t->S; s++)
        vu_buf_printf(&b, "\tscore_%zu\tlast_known_%zu", s, s);
    vu_buf_puts(&b, "\n");
    for (size_t i = 0; i < t->n; i++) {
        vu_buf_printf(&b, "%zu\t%s\t%s", i, t->cust[i], t->cut[i]);
        for (size_t s = 0; s < t->S; s++)
            vu_buf_printf(&b, "\t%.9g\t%.9g", (double)t->live[s][i], (double)t->lastk[s][i]);
        vu_buf_puts(&b, "\n");
    }
    char *p = at_root(root, "results/reference/ap_scores.tsv.gz");
    int rc = sap_gzip_text(p, b.p, b.len);
    free(p);
    vu_buf_free(&b);
    vu_buf_puts(&b, "row\tcustomer\tcutoff");
    for (size_t s = 1; s <= t->S; s++)
        vu_buf_printf(&b, "\tscore_%zu", s);
    vu_buf_puts(&b, "\n");
    for (size_t k = 0; k < t->nprev; k++) {
        size_t i = t->prev_row[k];
        vu_buf_printf(&b, "%zu\t%s\t%s", i, t->cust[i], t->c0prev);
        for (size_t s = 0; s < t->S; s++)
            vu_buf_printf(&b, "\t%.9g", (double)t->prev[s][k]);
        vu_buf_puts(&b, "\n");
    }
    p = at_root(root, "results/reference/ap_prev_scores.tsv.gz");
    rc |= sap_gzip_text(p, b.p, b.len);
    free(p);
    vu_buf_free(&b);
    return rc;
}

int sap_write_arms(const char *root, const char *const *arms, size_t n)
{
    char *dir = at_root(root, "pipeline");
    syn_mkdirs(dir);
    free(dir);
    vu_buf b = {0};
    vu_buf_puts(&b, "arm\n");
    for (size_t i = 0; i < n; i++)
        vu_buf_printf(&b, "%s\n", arms[i]);
    char *p = at_root(root, "pipeline/ap_arms.tsv");
    int rc = syn_write_text(p, b.p);
    free(p);
    vu_buf_free(&b);
    return rc;
}

int sap_write_stub_ap_json(const char *root, size_t resamples, size_t boot_seeds)
{
    char js[256];
    snprintf(js, sizeof js, "{\"bootstrap\": {\"resamples\": %zu, \"seed\": 1, \"model_seeds\": %zu}}\n", resamples,
             boot_seeds);
    char *p = at_root(root, "results/ap.json");
    int rc = syn_write_text(p, js);
    free(p);
    return rc;
}

int sap_write_stub_ap_json_fmt(const char *root, size_t resamples, size_t boot_seeds, const char *format)
{
    char js[320];
    snprintf(js, sizeof js, "{\"format\": \"%s\", \"bootstrap\": {\"resamples\": %zu, \"seed\": 1, \"model_seeds\": %zu}}\n",
             format, resamples, boot_seeds);
    char *p = at_root(root, "results/ap.json");
    int rc = syn_write_text(p, js);
    free(p);
    return rc;
}

int sap_write_manifest_ap(const char *root)
{
    static const char *const files[4] = {"results/reference/ap_scores.tsv.gz",
                                         "results/reference/ap_prev_scores.tsv.gz", "results/ap_resamples.tsv.gz",
                                         "results/ap.json"};
    vu_buf b = {0};
    vu_buf_puts(&b, "path\tsize\tsha256\n");
    int rc = 0;
    for (int k = 0; k < 4; k++) {
        char *p = at_root(root, files[k]), err[512];
        unsigned char *x;
        size_t len;
        if (vu_read_file(p, &x, &len, err, sizeof err)) {
            fprintf(stderr, "synap: %s\n", err);
            rc = -1;
        } else {
            char sha[65];
            vu_sha256_hex(x, len, sha);
            vu_buf_printf(&b, "%s\t%zu\t%s\n", files[k], len, sha);
            free(x);
        }
        free(p);
    }
    char *dir = at_root(root, "provenance");
    syn_mkdirs(dir);
    free(dir);
    char *p = at_root(root, "provenance/manifest-ap.tsv");
    rc |= syn_write_text(p, b.p);
    free(p);
    vu_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------- promote */

/* member key of from, moved into to (a null when absent) */
static void move(vj_node *to, vj_node *from, const char *key)
{
    for (size_t i = 0; from && from->type == VJ_OBJ && i < from->n; i++)
        if (!strcmp(from->keys[i], key)) {
            vj_obj_set(to, key, from->items[i]);
            from->items[i] = vj_new_null();
            return;
        }
    vj_obj_set(to, key, vj_new_null());
}

static void resample_lines(vu_buf *b, const vj_node *res)
{
    static const char *const kinds[3] = {"last_known", "default", "none"};
    for (size_t a = 0; res && a < res->n; a++)
        for (int k = 0; k < 3; k++) {
            const vj_node *l = vj_get(res->items[a], kinds[k]);
            for (size_t i = 0; l && i < l->n; i++) {
                if (l->items[i]->type == VJ_NUM)
                    vu_buf_printf(b, "%s\t%s\t%zu\t%.17g\n", res->keys[a], kinds[k], i, l->items[i]->num);
                else
                    vu_buf_printf(b, "%s\t%s\t%zu\tdropped\n", res->keys[a], kinds[k], i);
            }
        }
}

/* the arms' lines, then (format 2) the flooded runs' (APCOST.md 1.10) */
static int write_resamples(const char *root, const vj_node *res, const vj_node *fres)
{
    vu_buf b = {0};
    vu_buf_puts(&b, "arm\tkind\tresample\tchange\n");
    resample_lines(&b, res);
    resample_lines(&b, fres);
    char *p = at_root(root, "results/ap_resamples.tsv.gz");
    int rc = sap_gzip_text(p, b.p ? b.p : "", b.len);
    free(p);
    vu_buf_free(&b);
    return rc;
}

int sap_promote(const char *root)
{
    char *vp = at_root(root, "results/verified.json"), err[512];
    vj_node *v;
    int rc = vj_parse_file(vp, &v, err, sizeof err);
    free(vp);
    if (rc) {
        fprintf(stderr, "synap: %s\n", err);
        return -1;
    }
    vj_node *m = vj_get(v, "ap");
    if (!m || m->type != VJ_OBJ || !vj_get(m, "resamples")) {
        fprintf(stderr, "synap: verified.json's ap member does not hold the whole result\n");
        vj_free(v);
        return -1;
    }
    vj_node *o = vj_new_obj();
    const vj_node *fm = vj_get(m, "format");
    int fmt2 = fm && fm->type == VJ_STR && !strcmp(fm->text, "lab-ap 2");
    vj_obj_set(o, "format", vj_new_str(fmt2 ? "lab-ap 2" : "lab-ap 1"));
    vj_obj_set(o, "definitions", vj_new_str("pipeline/APCOST.md"));
    static const char *const top[] = {"test_rows", "customers", "cutoffs", "default_score", "kinds", "model_seeds",
                                      "default_seed", "live_ap", "bootstrap", "arms", "skipped_arms"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        move(o, m, top[i]);
    vj_node *arms = vj_get(o, "arms");
    for (size_t a = 0; arms && a < arms->n; a++) {
        vj_node *x = arms->items[a], *y = vj_new_obj();
        for (size_t k = 0; k < x->n; k++)
            if (strcmp(x->keys[k], "recomputed"))
                move(y, x, x->keys[k]);
        vj_free(x);
        arms->items[a] = y;
    }
    if (fmt2) {
        move(o, m, "flooded_runs");
        vj_node *fl = vj_get(o, "flooded_runs");
        if (fl->type != VJ_OBJ)
            vj_obj_set(o, "flooded_runs", fl = vj_new_obj()); /* frees the null */
        for (size_t a = 0; a < fl->n; a++) {
            vj_node *x = fl->items[a], *y = vj_new_obj();
            for (size_t k = 0; k < x->n; k++)
                if (strcmp(x->keys[k], "recomputed"))
                    move(y, x, x->keys[k]);
            vj_free(x);
            fl->items[a] = y;
        }
    }
    vu_buf b = {0};
    vj_write(o, &b);
    char *p = at_root(root, "results/ap.json");
    rc = syn_write_text(p, b.p);
    free(p);
    vu_buf_free(&b);
    rc |= write_resamples(root, vj_get(m, "resamples"), fmt2 ? vj_get(m, "flooded_resamples") : NULL);
    vj_free(o);
    vj_free(v);
    return rc ? -1 : sap_write_manifest_ap(root);
}
