/* ap: see ap.h. */
#include "ap.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    float s;
    uint8_t y;
} pair;

static int by_score_desc(const void *a, const void *b)
{
    float x = ((const pair *)a)->s, y = ((const pair *)b)->s;
    return (x < y) - (x > y);
}

double ap_score(const float *score, const uint8_t *label, size_t n)
{
    pair *p = malloc((n ? n : 1) * sizeof *p);
    if (!p)
        return NAN;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        p[i].s = score[i];
        p[i].y = label[i] != 0;
        pos += p[i].y;
    }
    if (pos == 0) {
        free(p);
        return NAN;
    }
    qsort(p, n, sizeof *p, by_score_desc);
    double ap = 0.0;
    size_t tp = 0, seen = 0, tp_prev = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && p[j].s == p[i].s) {  /* one threshold for tied scores */
            tp += p[j].y;
            j++;
        }
        seen = j;
        ap += (double)(tp - tp_prev) / (double)pos * ((double)tp / (double)seen);
        tp_prev = tp;
        i = j;
    }
    free(p);
    return ap;
}

typedef struct {
    int32_t g;
    size_t i;
} gidx;

static int by_group(const void *a, const void *b)
{
    const gidx *x = a, *y = b;
    if (x->g != y->g)
        return (x->g > y->g) - (x->g < y->g);
    return (x->i > y->i) - (x->i < y->i);
}

double ap_mean_by_group(const float *score, const uint8_t *label, const int32_t *group, size_t n)
{
    gidx *ix = malloc((n ? n : 1) * sizeof *ix);
    float *s = malloc((n ? n : 1) * sizeof *s);
    uint8_t *y = malloc(n ? n : 1);
    double sum = 0.0, out = NAN;
    size_t groups = 0;
    if (!ix || !s || !y)
        goto done;
    for (size_t i = 0; i < n; i++)
        ix[i] = (gidx){group[i], i};
    qsort(ix, n, sizeof *ix, by_group);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && ix[b].g == ix[a].g) {
            s[b - a] = score[ix[b].i];
            y[b - a] = label[ix[b].i];
            b++;
        }
        double v = ap_score(s, y, b - a);
        if (isnan(v))
            goto done;
        sum += v;
        groups++;
        a = b;
    }
    if (groups)
        out = sum / (double)groups;
done:
    free(ix);
    free(s);
    free(y);
    return out;
}
