/* sctab: see sctab.h for the contract and the file. */
#include "sctab.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "tsv.h"
#include "util.h"

typedef struct {
    sctab *t;
    int keep;
    size_t *off; /* with keep_text: each row's offset of its score text in t->text */
} sload;

static int grow(sload *L, const char *path, char *err, size_t errlen)
{
    sctab *t = L->t;
    size_t cap = t->cap ? 2 * t->cap : 4096;
    int32_t *cu = realloc(t->customer, cap * sizeof *cu);
    if (cu)
        t->customer = cu;
    int32_t *ct = cu ? realloc(t->cutoff, cap * sizeof *ct) : NULL;
    if (ct)
        t->cutoff = ct;
    uint8_t *lb = ct ? realloc(t->label, cap) : NULL;
    if (lb)
        t->label = lb;
    float *sc = lb ? realloc(t->score, cap * sizeof *sc) : NULL;
    if (sc)
        t->score = sc;
    float *la = sc ? realloc(t->last, cap * sizeof *la) : NULL;
    if (la)
        t->last = la;
    size_t *off = la && L->keep ? realloc(L->off, cap * sizeof *off) : NULL;
    if (off)
        L->off = off;
    if (!la || (L->keep && !off)) {
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    t->cap = cap;
    return 0;
}

/* "YYYY-MM-DD": digits only, month 1..12, day 1..31. */
static int day_field(const char *s, int32_t *day)
{
    int ok = strlen(s) == 10 && s[4] == '-' && s[7] == '-';
    for (int i = 0; ok && i < 10; i++)
        ok = i == 4 || i == 7 || (s[i] >= '0' && s[i] <= '9');
    if (!ok)
        return -1;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    int m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
    if (m < 1 || m > 12 || d < 1 || d > 31)
        return -1;
    *day = ut_days_from_civil(y, m, d);
    return 0;
}

static int row(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    sload *L = ctx;
    sctab *t = L->t;
    if (t->n == t->cap && grow(L, at->path, err, errlen) != 0)
        return -1;
    size_t i = t->n;
    char why[96];
    int64_t c, l;
    double s, k;
    if (opt_i64(f[0], INT32_MIN, INT32_MAX, &c, why, sizeof why) != 0)
        return tsv_field_err(err, errlen, at, "customer", f[0], "%s", why);
    if (day_field(f[1], &t->cutoff[i]) != 0)
        return tsv_field_err(err, errlen, at, "cutoff", f[1], "is not a day YYYY-MM-DD");
    if (opt_i64(f[2], 0, 1, &l, why, sizeof why) != 0)
        return tsv_field_err(err, errlen, at, "label", f[2], "%s", why);
    if (opt_f64(f[3], -FLT_MAX, FLT_MAX, &s, why, sizeof why) != 0)
        return tsv_field_err(err, errlen, at, "score", f[3], "is not a number: %s", why);
    if (opt_f64(f[4], -FLT_MAX, FLT_MAX, &k, why, sizeof why) != 0)
        return tsv_field_err(err, errlen, at, "last_known", f[4], "is not a number: %s", why);
    t->customer[i] = (int32_t)c;
    t->label[i] = (uint8_t)l;
    t->score[i] = (float)s;
    t->last[i] = (float)k;
    if (L->keep) {
        size_t a = strlen(f[3]) + 1, b = strlen(f[4]) + 1;
        if (t->text_len + a + b > t->text_cap) {
            size_t cap = t->text_cap ? 2 * t->text_cap : 1 << 16;
            while (cap < t->text_len + a + b)
                cap *= 2;
            char *nt = realloc(t->text, cap);
            if (!nt) {
                ut_seterr(err, errlen, "%s: out of memory", at->path);
                return -1;
            }
            t->text = nt;
            t->text_cap = cap;
        }
        L->off[i] = t->text_len;
        memcpy(t->text + t->text_len, f[3], a);
        memcpy(t->text + t->text_len + a, f[4], b);
        t->text_len += a + b;
    }
    t->n++;
    return 0;
}

int sctab_load(const char *path, int keep_text, sctab *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    sload L = {t, keep_text, NULL};
    tsv_spec s = {path, "customer\tcutoff\tlabel\tscore\tlast_known", 5, 1};
    int rc = tsv_read(&s, row, &L, err, errlen);
    if (rc == 0 && keep_text) {
        t->score_txt = malloc((t->n + 1) * sizeof *t->score_txt);
        t->last_txt = malloc((t->n + 1) * sizeof *t->last_txt);
        if (!t->score_txt || !t->last_txt) {
            ut_seterr(err, errlen, "%s: out of memory", path);
            rc = -1;
        }
        for (size_t i = 0; rc == 0 && i < t->n; i++) {
            t->score_txt[i] = t->text + L.off[i];
            t->last_txt[i] = t->score_txt[i] + strlen(t->score_txt[i]) + 1;
        }
    }
    free(L.off);
    if (rc != 0)
        sctab_free(t);
    return rc;
}

void sctab_free(sctab *t)
{
    free(t->customer);
    free(t->cutoff);
    free(t->label);
    free(t->score);
    free(t->last);
    free(t->score_txt);
    free(t->last_txt);
    free(t->text);
    memset(t, 0, sizeof *t);
}
