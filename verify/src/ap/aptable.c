/* aptable: scikit-learn's average precision and the test table it is computed over; see aptable.h. */
#include "aptable.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

/* ------------------------------------------------------------------ AP */

static int cmp_pair_desc(const void *x, const void *y)
{
    const ap_pair *a = x, *b = y;
    return (a->s < b->s) - (a->s > b->s);
}

static uint64_t key_pair(const void *x)
{
    return vu_key_desc(((const ap_pair *)x)->s);
}

/* the pairs by score descending (vutil.h's radix sort; a NaN among them,
 * which no order holds, left to qsort with the comparison) */
static void sort_desc(ap_pair *p, size_t n)
{
    _Static_assert(sizeof(ap_pair) == 16, "vu_sort16 sorts 16-byte elements");
    for (size_t i = 0; i < n; i++)
        if (p[i].s != p[i].s) {
            qsort(p, n, sizeof *p, cmp_pair_desc);
            return;
        }
    ap_pair *tmp = vu_xmalloc((n + 1) * sizeof *tmp);
    vu_sort16(p, n, key_pair, 8, tmp);
    free(tmp);
}

double ap_average_precision(ap_pair *p, size_t n)
{
    size_t pos = 0;
    for (size_t i = 0; i < n; i++)
        pos += p[i].y != 0;
    if (pos == 0)
        return NAN;
    sort_desc(p, n);
    double ap = 0, rprev = 0;
    size_t tp = 0;
    for (size_t i = 0; i < n; i++) {
        tp += p[i].y != 0;
        /* the end of a threshold: the next row has another score (-inf == -inf) */
        if (i + 1 < n && p[i + 1].s == p[i].s)
            continue;
        double r = (double)tp / (double)pos;
        double prec = (double)tp / (double)(i + 1);
        ap += (r - rprev) * prec;
        rprev = r;
    }
    return ap;
}

double ap_mean_by_cutoff(const ap_table *t, const double *v)
{
    return ap_mean_by_cutoff_in(t, v, t->scratch);
}

double ap_mean_by_cutoff_in(const ap_table *t, const double *v, ap_pair *scratch)
{
    double sum = 0;
    for (size_t c = 0; c < t->ncut; c++) {
        size_t m = 0;
        for (size_t k = t->cut_first[c]; k < t->cut_first[c + 1]; k++) {
            size_t i = t->byrow[k];
            scratch[m].s = v[i];
            scratch[m].y = t->label[i];
            m++;
        }
        sum += ap_average_precision(scratch, m);
    }
    return t->ncut ? sum / (double)t->ncut : NAN;
}

/* ------------------------------------------------------------ the table */

static int cmp_str_ptr(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

void ap_table_free(ap_table *t)
{
    free(t->label);
    for (size_t c = 0; c < t->ncut; c++)
        free(t->cutoffs[c]);
    free(t->cutoffs);
    free(t->cut_first);
    free(t->byrow);
    free(t->scratch);
    free(t->text);
    free(t->cust);
    free(t->cut);
    free(t->score);
    free(t->lastk);
    free(t->rowcut);
    memset(t, 0, sizeof *t);
}

/* the data lines of scores.tsv: pointers into b for customer and cutoff */
typedef struct {
    size_t n, cap;
    char **cust, **cut, **score, **lk;
    unsigned char *lab;
} rows;

static void rows_free(rows *r)
{
    free(r->cust);
    free(r->cut);
    free(r->score);
    free(r->lk);
    free(r->lab);
    memset(r, 0, sizeof *r);
}

/* split one line (NUL-terminated in place) at its tabs: the field count */
static int split_tabs(char *p, char *f[5])
{
    int nf = 0;
    for (char *q = p;;) {
        char *tab = strchr(q, '\t');
        if (nf < 5)
            f[nf] = q;
        nf++;
        if (!tab)
            break;
        *tab = 0;
        q = tab + 1;
    }
    return nf;
}

/* one line of scores.tsv (line 1: the header) into r; 0 or EINVAL */
static int read_line(const char *path, long line, char *p, rows *r, char *err, size_t errlen)
{
    char *f[5];
    int nf = split_tabs(p, f);
    if (line == 1) {
        static const char *const want[5] = {"customer", "cutoff", "label", "score", "last_known"};
        int ok = nf == 5;
        for (int k = 0; ok && k < 5; k++)
            ok = !strcmp(f[k], want[k]);
        if (!ok) {
            snprintf(err, errlen, "%s:1: header is not \"customer cutoff label score last_known\"", path);
            return EINVAL;
        }
        return 0;
    }
    if (nf != 5) {
        snprintf(err, errlen, "%s:%ld: %d fields, expected 5", path, line, nf);
        return EINVAL;
    }
    if (strcmp(f[2], "0") && strcmp(f[2], "1")) {
        snprintf(err, errlen, "%s:%ld: label \"%.20s\" is not 0 or 1", path, line, f[2]);
        return EINVAL;
    }
    if (!*f[0] || !*f[1]) {
        snprintf(err, errlen, "%s:%ld: empty customer or cutoff", path, line);
        return EINVAL;
    }
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->cust = vu_xrealloc(r->cust, r->cap * sizeof *r->cust);
        r->cut = vu_xrealloc(r->cut, r->cap * sizeof *r->cut);
        r->score = vu_xrealloc(r->score, r->cap * sizeof *r->score);
        r->lk = vu_xrealloc(r->lk, r->cap * sizeof *r->lk);
        r->lab = vu_xrealloc(r->lab, r->cap);
    }
    r->cust[r->n] = f[0];
    r->cut[r->n] = f[1];
    r->score[r->n] = f[3];
    r->lk[r->n] = f[4];
    r->lab[r->n] = f[2][0] == '1';
    r->n++;
    return 0;
}

/* every line of the file held in b (changed in place) */
static int read_rows(const char *path, char *b, size_t len, rows *r, char *err, size_t errlen)
{
    char *p = b, *end = p + len;
    long line = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (e > p && e[-1] == '\r')
            e[-1] = 0;
        int rc = read_line(path, line, p, r, err, errlen);
        if (rc)
            return rc;
        p = e < end ? e + 1 : end;
    }
    if (line == 0) {
        snprintf(err, errlen, "%s: empty file", path);
        return EINVAL;
    }
    return 0;
}

/* the distinct customers and cutoffs, and the rows grouped by cutoff (in
 * row order within each); takes the labels and the fields' text from r */
static void group_rows(rows *r, ap_table *t)
{
    size_t n = r->n;
    t->n = n;
    t->label = r->lab;
    t->cust = r->cust;
    t->cut = r->cut;
    t->score = r->score;
    t->lastk = r->lk;
    r->lab = NULL;
    r->cust = r->cut = r->score = r->lk = NULL;
    t->scratch = vu_xmalloc((n + 1) * sizeof *t->scratch);
    t->byrow = vu_xmalloc((n + 1) * sizeof *t->byrow);
    /* distinct customers and cutoffs (sorted copies of the pointers) */
    char **s = vu_xmalloc((n + 1) * sizeof *s);
    if (n)
        memcpy(s, t->cust, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_str_ptr);
    for (size_t i = 0; i < n; i++)
        t->customers += i == 0 || strcmp(s[i], s[i - 1]);
    if (n)
        memcpy(s, t->cut, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_str_ptr);
    t->cutoffs = vu_xmalloc((n + 1) * sizeof *t->cutoffs);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(s[i], s[i - 1]))
            t->cutoffs[t->ncut++] = vu_xstrdup(s[i]);
    free(s);
    /* rows grouped by cutoff: counting sort on the cutoff's index */
    t->cut_first = vu_xcalloc(t->ncut + 1, sizeof *t->cut_first);
    size_t *ci = vu_xmalloc((n + 1) * sizeof *ci);
    for (size_t i = 0; i < n; i++) {
        char *key = t->cut[i];
        char **hit = bsearch(&key, t->cutoffs, t->ncut, sizeof *t->cutoffs, cmp_str_ptr);
        assert(hit); /* every row's cutoff is one of the distinct cutoffs */
        ci[i] = (size_t)(hit - t->cutoffs);
        t->cut_first[ci[i] + 1]++;
    }
    for (size_t c = 0; c < t->ncut; c++) {
        /* aptable.h: the cutoffs ascending, each once */
        assert(c == 0 || strcmp(t->cutoffs[c - 1], t->cutoffs[c]) < 0);
        t->cut_first[c + 1] += t->cut_first[c];
    }
    assert(t->cut_first[t->ncut] == n); /* the groups hold every row once */
    size_t *fill = vu_xmalloc((t->ncut + 1) * sizeof *fill);
    memcpy(fill, t->cut_first, (t->ncut + 1) * sizeof *fill);
    for (size_t i = 0; i < n; i++)
        t->byrow[fill[ci[i]]++] = i;
    free(fill);
    t->rowcut = ci;
}

int ap_table_load(const char *path, ap_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    unsigned char *b;
    size_t len;
    int rc = vu_read_file(path, &b, &len, err, errlen);
    if (rc)
        return rc;
    rows r = {0};
    rc = read_rows(path, (char *)b, len, &r, err, errlen);
    if (!rc) {
        group_rows(&r, t);
        t->text = (char *)b;
    } else {
        free(b);
    }
    rows_free(&r);
    return rc;
}
