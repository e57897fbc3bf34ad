/* apseeds: the reference scores checked: every seed's last_known against the score a month earlier; see apseeds.h. */
#include "apseeds.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vnum.h"
#include "vutil.h"

#define SCORES_TSV "results/reference/scores.tsv"

/* ------------------------------------------------------------- the index */

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* "YYYY-MM-DD" -> the first of the month before, "YYYY-MM-01": 0, or -1 */
static int month_before(const char *c, char out[16])
{
    if (strlen(c) != 10 || c[4] != '-' || c[7] != '-')
        return -1;
    long long y, m, d;
    if (vn_i64(c, 4, 1000, 9999, &y) || vn_i64(c + 5, 2, 1, 12, &m) || vn_i64(c + 8, 2, 1, 31, &d))
        return -1;
    if (--m == 0) {
        m = 12;
        y--;
    }
    snprintf(out, 16, "%04d-%02d-01", (int)y, (int)m);
    return 0;
}

/* the customer ids as numbers, their indexes: 0, or -1 (mismatches said) */
static int index_customers(const ap_table *t, aps_index *x, long long *id)
{
    int ok = 1;
    for (size_t i = 0; i < t->n; i++)
        if (vn_i64(t->cust[i], strlen(t->cust[i]), 0, LLONG_MAX, &id[i])) {
            char where[96];
            snprintf(where, sizeof where, "%s:%zu", SCORES_TSV, i + 2);
            mm_add("scores.tsv customers", where, "customer", t->cust[i], "a decimal id (APCOST.md 1.10)");
            ok = 0;
        }
    if (!ok)
        return -1;
    long long *s = vu_xmalloc((t->n + 1) * sizeof *s);
    memcpy(s, id, t->n * sizeof *s);
    qsort(s, t->n, sizeof *s, cmp_ll);
    size_t C = 0;
    for (size_t i = 0; i < t->n; i++)
        if (i == 0 || s[i] != s[i - 1])
            s[C++] = s[i];
    x->C = C;
    for (size_t i = 0; i < t->n; i++) {
        long long *hit = bsearch(&id[i], s, C, sizeof *s, cmp_ll);
        x->cust[i] = (uint32_t)(hit - s);
    }
    free(s);
    return 0;
}

typedef struct {
    uint32_t cust, cut;
    size_t row;
} cc;

static int cmp_cc(const void *a, const void *b)
{
    const cc *x = a, *y = b;
    if (x->cust != y->cust)
        return x->cust < y->cust ? -1 : 1;
    if (x->cut != y->cut)
        return x->cut < y->cut ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* prevcut[c]: the index of the cutoff a month before c, -1 when it is no test cutoff */
static int previous_cutoffs(const ap_table *t, aps_index *x, long *prevcut)
{
    int ok = 1;
    for (size_t c = 0; c < t->ncut; c++) {
        char pm[16];
        prevcut[c] = -1;
        if (month_before(t->cutoffs[c], pm)) {
            mm_add(NULL, SCORES_TSV, "cutoff", t->cutoffs[c], "a date YYYY-MM-DD (APCOST.md 1.3)");
            ok = 0;
            continue;
        }
        if (c == 0) {
            snprintf(x->c0prev, sizeof x->c0prev, "%s", pm);
            continue;
        }
        char *key = pm;
        char **hit = bsearch(&key, t->cutoffs, t->ncut, sizeof *t->cutoffs, cmp_str_ptr);
        if (hit) {
            prevcut[c] = (long)(hit - t->cutoffs);
        } else {
            char m[160];
            snprintf(m, sizeof m, "a test cutoff %s, the month before (APCOST.md 1.3: c- of a later cutoff is one)", pm);
            mm_add(NULL, SCORES_TSV, "cutoffs", t->cutoffs[c], m);
            ok = 0;
        }
    }
    return ok ? 0 : -1;
}

void aps_index_build(const ap_table *t, aps_index *x)
{
    memset(x, 0, sizeof *x);
    x->cust = vu_xcalloc(t->n + 1, sizeof *x->cust);
    x->prevrow = vu_xmalloc((t->n + 1) * sizeof *x->prevrow);
    long long *id = vu_xmalloc((t->n + 1) * sizeof *id);
    long *prevcut = vu_xmalloc((t->ncut + 1) * sizeof *prevcut);
    x->ok = t->ncut > 0 && index_customers(t, x, id) == 0;
    x->rule_ok = previous_cutoffs(t, x, prevcut) == 0 && x->ok;
    if (x->rule_ok) {
        /* the rows by (customer, cutoff): the month before is a look-up */
        cc *v = vu_xmalloc((t->n + 1) * sizeof *v);
        for (size_t i = 0; i < t->n; i++)
            v[i] = (cc){x->cust[i], (uint32_t)t->rowcut[i], i};
        qsort(v, t->n, sizeof *v, cmp_cc);
        for (size_t i = 1; i < t->n; i++)
            if (v[i].cust == v[i - 1].cust && v[i].cut == v[i - 1].cut) {
                char where[96], m[96];
                snprintf(where, sizeof where, "%s:%zu", SCORES_TSV, v[i].row + 2);
                snprintf(m, sizeof m, "one row per customer and cutoff (line %zu has it too)", v[i - 1].row + 2);
                mm_add("scores.tsv customers", where, "customer and cutoff", t->cust[v[i].row], m);
                x->rule_ok = 0;
            }
        for (size_t i = 0; i < t->n; i++) {
            size_t c = t->rowcut[i];
            x->prevrow[i] = c == 0 ? -2 : -1;
            if (c == 0)
                continue;
            cc key = {x->cust[i], (uint32_t)prevcut[c], 0};
            size_t lo = 0, hi = t->n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (cmp_cc(&v[mid], &key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < t->n && v[lo].cust == key.cust && v[lo].cut == key.cut)
                x->prevrow[i] = (long long)v[lo].row;
        }
        free(v);
    }
    free(id);
    free(prevcut);
}

void aps_index_free(aps_index *x)
{
    free(x->cust);
    free(x->prevrow);
    memset(x, 0, sizeof *x);
}

/* ----------------------------------------------------------- the rule */

static int same_bits(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

typedef struct {
    const ap_table *t;
    const char *file;
    int seeds_file; /* ap_scores (fields last_known_s) or scores.tsv */
} where_t;

/* one row's last_known of seed s is not what the rule gives */
static void rule_mismatch(const where_t *w, size_t i, size_t s, float lab, float want, const char *why)
{
    char where[160], what[256], l[32], m[320], group[96];
    snprintf(where, sizeof where, "%s:%zu", w->file, i + 2);
    if (w->seeds_file)
        snprintf(what, sizeof what, "last_known_%zu (row %zu, customer %s, cutoff %s, seed %zu)", s + 1, i,
                 w->t->cust[i], w->t->cut[i], s + 1);
    else
        snprintf(what, sizeof what, "last_known (row %zu, customer %s, cutoff %s, seed 1)", i, w->t->cust[i],
                 w->t->cut[i]);
    snprintf(l, sizeof l, "%.9g", (double)lab);
    snprintf(m, sizeof m, "%.9g (%s, APCOST.md 1.3)", (double)want, why);
    snprintf(group, sizeof group, "%s last_known seed %zu", w->file, s + 1);
    mm_add(group, where, what, l, m);
}

/* the lines of ap_prev_scores.tsv.gz: rows at c0 with their customer and
 * the month before, ascending; at[i]: the line of row i, or -1 */
static void check_prev_lines(const ap_table *t, const aps_index *x, const apf_data *f, long *at)
{
    for (size_t k = 0; k < f->nprev; k++) {
        size_t i = f->prev_row[k];
        char where[160], m[160];
        snprintf(where, sizeof where, "%s:%ld", APF_PREV, f->prev_line[k]);
        if (t->rowcut[i] != x->c0) {
            snprintf(m, sizeof m, "a row of the first test cutoff %s (row %zu is at %s)", t->cutoffs[x->c0], i,
                     t->cut[i]);
            mm_add(NULL, where, "row", f->prev_cust[k], m);
            continue;
        }
        if (strcmp(f->prev_cust[k], t->cust[i])) {
            snprintf(m, sizeof m, "%s (the customer of row %zu)", t->cust[i], i);
            mm_add(NULL, where, "customer", f->prev_cust[k], m);
        }
        if (strcmp(f->prev_cut[k], x->c0prev)) {
            snprintf(m, sizeof m, "%s (the month before %s)", x->c0prev, t->cutoffs[x->c0]);
            mm_add(NULL, where, "cutoff", f->prev_cut[k], m);
        }
        if (k > 0 && f->prev_row[k - 1] >= i) {
            snprintf(m, sizeof m, "rows ascending, each once (the line before has row %zu)", f->prev_row[k - 1]);
            char l[32];
            snprintf(l, sizeof l, "%zu", i);
            mm_add(NULL, where, "row", l, m);
            continue;
        }
        at[i] = (long)k;
    }
}

long long aps_check_rule(const ap_table *t, const aps_index *x, size_t S, const float *const *live,
                         const float *const *lastk, float d, const apf_data *f, long long rows_with_lk,
                         const char *file)
{
    if (!x->rule_ok)
        return -1;
    where_t w = {t, file, strstr(file, "ap_scores") != NULL};
    int prev = f && f->prev_ok && f->prev_S >= S;
    long *at = vu_xmalloc((t->n + 1) * sizeof *at);
    for (size_t i = 0; i < t->n; i++)
        at[i] = -1;
    if (prev)
        check_prev_lines(t, x, f, at);
    long long with = 0;
    for (size_t i = 0; i < t->n; i++) {
        long long j = x->prevrow[i];
        if (j == -2 && !prev)
            continue;
        if (j >= 0 || (j == -2 && at[i] >= 0))
            with++;
        for (size_t s = 0; s < S; s++) {
            float want;
            char why[160];
            if (j >= 0) {
                want = live[s][j];
                snprintf(why, sizeof why, "the score of row %lld, the same customer at %s", j, t->cut[j]);
            } else if (j == -2 && at[i] >= 0) {
                want = f->prev[s][at[i]];
                snprintf(why, sizeof why, "%s line %ld", APF_PREV, f->prev_line[at[i]]);
            } else {
                want = d;
                snprintf(why, sizeof why, "the default: no score of the customer a month earlier");
            }
            if (!same_bits(lastk[s][i], want))
                rule_mismatch(&w, i, s, lastk[s][i], want, why);
        }
    }
    free(at);
    if (!prev)
        return -1;
    if (rows_with_lk != with) {
        char l[32], m[128];
        if (rows_with_lk < 0)
            snprintf(l, sizeof l, "(absent)");
        else
            snprintf(l, sizeof l, "%lld", rows_with_lk);
        snprintf(m, sizeof m, "%lld (rows with a previous-cutoff score, APCOST.md 1.10)", with);
        mm_add(NULL, "results/reference/summary.json", "test_rows_with_last_known", l, m);
    }
    return with;
}
