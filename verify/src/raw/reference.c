/* reference: the reference scores every answer is checked against; see reference.h. */
#include "reference.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vjson.h"
#include "vnum.h"
#include "vutil.h"

/* "is not a number" or "is beyond a 32-bit float's range" for a vn_f32 code */
static const char *why_not(int bad)
{
    return bad == VN_RANGE ? "is beyond a 32-bit float's range" : "is not a number";
}

int ref_load(const char *root, ref_data *ref, char *err, size_t errlen)
{
    memset(ref, 0, sizeof *ref);
    ref->test_rows = -1;
    ref->rows_with_lk = -1;
    snprintf(ref->scores_path, sizeof ref->scores_path, "%s/results/reference/scores.tsv", root);
    char *spath = vu_xasprintf("%s/results/reference/summary.json", root);
    vj_node *sum = NULL;
    int rc = vj_parse_file(spath, &sum, err, errlen);
    if (rc) {
        free(spath);
        return rc;
    }
    vj_node *ds = vj_get(sum, "default_score");
    int num = ds && ds->type == VJ_NUM ? vn_f32(ds->text, strlen(ds->text), &ref->default_score) : VN_SYNTAX;
    if (num) {
        if (num == VN_RANGE)
            snprintf(err, errlen, "%s:%d: field default_score %.40s %s", spath, ds->line, ds->text, why_not(num));
        else
            snprintf(err, errlen, "%s: field default_score missing or not a number", spath);
        vj_free(sum);
        free(spath);
        return EINVAL;
    }
    vj_node *tr = vj_get(sum, "test_rows");
    if (tr && tr->type == VJ_NUM && tr->is_int)
        ref->test_rows = tr->i;
    tr = vj_get(sum, "test_rows_with_last_known");
    if (tr && tr->type == VJ_NUM && tr->is_int)
        ref->rows_with_lk = tr->i;
    vj_free(sum);
    free(spath);

    unsigned char *buf;
    size_t len;
    rc = vu_read_file(ref->scores_path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    char *p = (char *)buf, *end = p + len;
    const char *want = "customer\tcutoff\tlabel\tscore\tlast_known";
    char *nl = memchr(p, '\n', len);
    size_t hl = nl ? (size_t)(nl - p) : len;
    if (hl && p[hl - 1] == '\r')
        hl--;
    if (hl != strlen(want) || memcmp(p, want, hl)) {
        snprintf(err, errlen, "%s:1: header is not \"customer cutoff label score last_known\" (tab-separated)",
                 ref->scores_path);
        free(buf);
        return EINVAL;
    }
    size_t cap = 1024;
    ref->score = vu_xmalloc(cap * sizeof *ref->score);
    ref->last_known = vu_xmalloc(cap * sizeof *ref->last_known);
    p = nl ? nl + 1 : end;
    long line = 1;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        char *le = e;
        if (le > p && le[-1] == '\r')
            le--;
        if (le == p) {
            snprintf(err, errlen, "%s:%ld: empty line", ref->scores_path, line);
            goto bad;
        }
        const char *f[6];
        size_t fl[6];
        int nf = 0;
        char *q = p;
        while (nf < 6) {
            char *t = memchr(q, '\t', (size_t)(le - q));
            f[nf] = q;
            fl[nf] = t ? (size_t)(t - q) : (size_t)(le - q);
            nf++;
            if (!t)
                break;
            q = t + 1;
        }
        if (nf != 5) {
            snprintf(err, errlen, "%s:%ld: %d fields, expected 5", ref->scores_path, line, nf);
            goto bad;
        }
        if (ref->rows == cap) {
            cap *= 2;
            ref->score = vu_xrealloc(ref->score, cap * sizeof *ref->score);
            ref->last_known = vu_xrealloc(ref->last_known, cap * sizeof *ref->last_known);
        }
        int num = vn_f32(f[3], fl[3], &ref->score[ref->rows]);
        if (num) {
            snprintf(err, errlen, "%s:%ld: field score \"%.*s\" %s", ref->scores_path, line,
                     (int)(fl[3] > 40 ? 40 : fl[3]), f[3], why_not(num));
            goto bad;
        }
        num = vn_f32(f[4], fl[4], &ref->last_known[ref->rows]);
        if (num) {
            snprintf(err, errlen, "%s:%ld: field last_known \"%.*s\" %s", ref->scores_path, line,
                     (int)(fl[4] > 40 ? 40 : fl[4]), f[4], why_not(num));
            goto bad;
        }
        ref->rows++;
        p = e < end ? e + 1 : end;
    }
    free(buf);
    return 0;
bad:
    free(buf);
    ref_free(ref);
    return EINVAL;
}

void ref_free(ref_data *ref)
{
    free(ref->score);
    free(ref->last_known);
    ref->score = ref->last_known = NULL;
    ref->rows = 0;
}
