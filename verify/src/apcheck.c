#include "apcheck.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "rawcols.h"
#include "rawread.h"
#include "vutil.h"

/* ------------------------------------------------------------------ AP */

static int cmp_pair_desc(const void *x, const void *y)
{
    const ap_pair *a = x, *b = y;
    return (a->s < b->s) - (a->s > b->s);
}

double ap_average_precision(ap_pair *p, size_t n)
{
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) pos += p[i].y != 0;
    if (pos == 0) return NAN;
    qsort(p, n, sizeof *p, cmp_pair_desc);
    double ap = 0, rprev = 0;
    size_t tp = 0;
    for (size_t i = 0; i < n; i++) {
        tp += p[i].y != 0;
        /* the end of a threshold: the next row has another score (-inf == -inf) */
        if (i + 1 < n && p[i + 1].s == p[i].s) continue;
        double r = (double)tp / (double)pos;
        double prec = (double)tp / (double)(i + 1);
        ap += (r - rprev) * prec;
        rprev = r;
    }
    return ap;
}

double ap_mean_by_cutoff(const ap_table *t, const double *v)
{
    double sum = 0;
    for (size_t c = 0; c < t->ncut; c++) {
        size_t m = 0;
        for (size_t k = t->cut_first[c]; k < t->cut_first[c + 1]; k++) {
            size_t i = t->byrow[k];
            t->scratch[m].s = v[i];
            t->scratch[m].y = t->label[i];
            m++;
        }
        sum += ap_average_precision(t->scratch, m);
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
    for (size_t c = 0; c < t->ncut; c++) free(t->cutoffs[c]);
    free(t->cutoffs);
    free(t->cut_first);
    free(t->byrow);
    free(t->scratch);
    memset(t, 0, sizeof *t);
}

int ap_table_load(const char *path, ap_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    unsigned char *b;
    size_t len;
    int rc = vu_read_file(path, &b, &len, err, errlen);
    if (rc) return rc;
    char *p = (char *)b, *end = p + len;
    size_t cap = 1024, n = 0;
    char **cust = vu_xmalloc(cap * sizeof *cust), **cut = vu_xmalloc(cap * sizeof *cut);
    unsigned char *lab = vu_xmalloc(cap);
    long line = 0;
    rc = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) e = end;
        *e = 0;
        if (e > p && e[-1] == '\r') e[-1] = 0;
        char *f[5];
        int nf = 0;
        for (char *q = p;;) {
            char *tab = strchr(q, '\t');
            if (nf < 5) f[nf] = q;
            nf++;
            if (!tab) break;
            *tab = 0;
            q = tab + 1;
        }
        if (line == 1) {
            static const char *const want[5] = {"customer", "cutoff", "label", "score", "last_known"};
            int ok = nf == 5;
            for (int k = 0; ok && k < 5; k++) ok = !strcmp(f[k], want[k]);
            if (!ok) {
                snprintf(err, errlen, "%s:1: header is not \"customer cutoff label score last_known\"", path);
                rc = EINVAL;
                break;
            }
        } else {
            if (nf != 5) {
                snprintf(err, errlen, "%s:%ld: %d fields, expected 5", path, line, nf);
                rc = EINVAL;
                break;
            }
            if (strcmp(f[2], "0") && strcmp(f[2], "1")) {
                snprintf(err, errlen, "%s:%ld: label \"%.20s\" is not 0 or 1", path, line, f[2]);
                rc = EINVAL;
                break;
            }
            if (!*f[0] || !*f[1]) {
                snprintf(err, errlen, "%s:%ld: empty customer or cutoff", path, line);
                rc = EINVAL;
                break;
            }
            if (n == cap) {
                cap *= 2;
                cust = vu_xrealloc(cust, cap * sizeof *cust);
                cut = vu_xrealloc(cut, cap * sizeof *cut);
                lab = vu_xrealloc(lab, cap);
            }
            cust[n] = f[0];
            cut[n] = f[1];
            lab[n] = f[2][0] == '1';
            n++;
        }
        p = e < end ? e + 1 : end;
    }
    if (!rc && line == 0) {
        snprintf(err, errlen, "%s: empty file", path);
        rc = EINVAL;
    }
    if (!rc) {
        t->n = n;
        t->label = lab;
        lab = NULL;
        t->scratch = vu_xmalloc((n + 1) * sizeof *t->scratch);
        t->byrow = vu_xmalloc((n + 1) * sizeof *t->byrow);
        /* distinct customers and cutoffs (sorted copies of the pointers) */
        char **s = vu_xmalloc((n + 1) * sizeof *s);
        memcpy(s, cust, n * sizeof *s);
        qsort(s, n, sizeof *s, cmp_str_ptr);
        for (size_t i = 0; i < n; i++) t->customers += i == 0 || strcmp(s[i], s[i - 1]);
        memcpy(s, cut, n * sizeof *s);
        qsort(s, n, sizeof *s, cmp_str_ptr);
        t->cutoffs = vu_xmalloc((n + 1) * sizeof *t->cutoffs);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || strcmp(s[i], s[i - 1])) t->cutoffs[t->ncut++] = vu_xstrdup(s[i]);
        free(s);
        /* rows grouped by cutoff, in row order within each */
        t->cut_first = vu_xcalloc(t->ncut + 1, sizeof *t->cut_first);
        size_t *ci = vu_xmalloc((n + 1) * sizeof *ci);
        for (size_t i = 0; i < n; i++) {
            char *key = cut[i];
            char **hit = bsearch(&key, t->cutoffs, t->ncut, sizeof *t->cutoffs, cmp_str_ptr);
            ci[i] = (size_t)(hit - t->cutoffs);
            t->cut_first[ci[i] + 1]++;
        }
        for (size_t c = 0; c < t->ncut; c++) t->cut_first[c + 1] += t->cut_first[c];
        size_t *fill = vu_xmalloc((t->ncut + 1) * sizeof *fill);
        memcpy(fill, t->cut_first, (t->ncut + 1) * sizeof *fill);
        for (size_t i = 0; i < n; i++) t->byrow[fill[ci[i]]++] = i;
        free(fill);
        free(ci);
    }
    free(lab);
    free(cust);
    free(cut);
    free(b);
    if (rc) ap_table_free(t);
    return rc;
}

/* --------------------------------------------------------------- checks */

#define AP_TOL 1e-12     /* APs and changes, absolute (APCOST.md 1.7) */
#define SHARE_TOL 1e-12  /* shares, relative (RESULTS.md's ratios) */

static const char *const KINDS[3] = {"last_known", "default", "none"};

static void fmt_d(double d, char *out, size_t n)
{
    if (isnan(d)) snprintf(out, n, "null");
    else vu_fmt_double(d, out, n);
}

static void mm_ap(const char *path, const vj_node *lab, const char *mine)
{
    char a[256];
    vj_scalar_text(lab, a, sizeof a);
    mm_add(NULL, "ap.json", path, a, mine);
}

static int is_num(const vj_node *n)
{
    return n && n->type == VJ_NUM;
}

static void chk_count(const char *path, const vj_node *lab, long long mine)
{
    if (is_num(lab) && lab->num == (double)mine) return;
    char m[64];
    snprintf(m, sizeof m, "%lld", mine);
    mm_ap(path, lab, m);
}

/* tol < 0: relative |tol|; tol == 0: exactly; else absolute */
static void chk_num(const char *path, const vj_node *lab, double mine, double tol, const char *why)
{
    int ok;
    if (isnan(mine)) ok = lab && lab->type == VJ_NULL;
    else if (!is_num(lab)) ok = 0;
    else if (tol == 0) ok = lab->num == mine;
    else if (tol < 0) ok = fabs(lab->num - mine) <= -tol * fmax(fabs(lab->num), fabs(mine));
    else ok = fabs(lab->num - mine) <= tol;
    if (ok) return;
    char m[256], d[64];
    fmt_d(mine, d, sizeof d);
    snprintf(m, sizeof m, "%s%s%s", d, why ? " " : "", why ? why : "");
    mm_ap(path, lab, m);
}

static void chk_str(const char *path, const vj_node *lab, const char *mine)
{
    if (lab && lab->type == VJ_STR && !strcmp(lab->text, mine)) return;
    char m[512];
    snprintf(m, sizeof m, "\"%s\"", mine);
    mm_ap(path, lab, m);
}

static void chk_members(const char *path, const vj_node *lab, const char *const *allowed)
{
    if (!lab || lab->type != VJ_OBJ) return;
    for (size_t i = 0; i < lab->n; i++) {
        int known = 0;
        for (size_t k = 0; allowed[k] && !known; k++) known = !strcmp(lab->keys[i], allowed[k]);
        if (known) continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", lab->keys[i]);
        mm_ap(sub, lab->items[i], "(a member APCOST.md does not define)");
    }
}

/* an object member that must be an object (or an array): a mismatch otherwise */
static const vj_node *need(const char *path, const vj_node *parent, const char *key, vj_type type)
{
    const vj_node *n = vj_get(parent, key);
    if (n && n->type == type) return n;
    char sub[512];
    snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key);
    mm_ap(sub, n, type == VJ_OBJ ? "an object (APCOST.md 1.7)" : "a list (APCOST.md 1.7)");
    return NULL;
}


/* ----------------------------------------------------------- the runs */

typedef struct {
    int round;
    char name[300];
    long long n;        /* data rows of tester.tsv.gz */
    long long *j, *row;
    char *kind;
} ap_round;

typedef struct {
    char arm[128];
    ap_round *r;
    size_t nr;
    int readable;       /* every round's tester file read */
    long long M;
    /* per round */
    long long *live, *lk, *def, *err, *srows;
    double *ap[3], *chg[3];
    /* per arm */
    long long requests, standin, lk_req, def_req, srows_total;
    double standin_share, srows_share, change[3];
    int any_standin;
} ap_arm;

static void arm_free(ap_arm *a)
{
    for (size_t i = 0; i < a->nr; i++) {
        free(a->r[i].j);
        free(a->r[i].row);
        free(a->r[i].kind);
    }
    free(a->r);
    free(a->live);
    free(a->lk);
    free(a->def);
    free(a->err);
    free(a->srows);
    for (int k = 0; k < 3; k++) {
        free(a->ap[k]);
        free(a->chg[k]);
    }
    memset(a, 0, sizeof *a);
}

static int cmp_round(const void *x, const void *y)
{
    const ap_round *a = x, *b = y;
    return (a->round > b->round) - (a->round < b->round);
}

/* the folders of results/raw named exactly <arm>-r<k>, k >= 1 without leading zeros */
static void find_rounds(const char *rawdir, char **names, size_t nn, const char *arm, ap_arm *a)
{
    memset(a, 0, sizeof *a);
    snprintf(a->arm, sizeof a->arm, "%s", arm);
    size_t al = strlen(arm);
    a->r = vu_xcalloc(nn + 1, sizeof *a->r);
    for (size_t i = 0; i < nn; i++) {
        const char *s = names[i];
        if (strncmp(s, arm, al) || strncmp(s + al, "-r", 2)) continue;
        const char *d = s + al + 2;
        if (*d < '1' || *d > '9') continue;
        long long k = 0;
        const char *q = d;
        for (; *q >= '0' && *q <= '9' && k < 100000000; q++) k = k * 10 + (*q - '0');
        if (*q) continue;
        char *p = vu_xasprintf("%s/%s", rawdir, s);
        int dir = vu_is_dir(p);
        free(p);
        if (!dir) continue;
        ap_round *r = &a->r[a->nr++];
        r->round = (int)k;
        snprintf(r->name, sizeof r->name, "%s", s);
    }
    qsort(a->r, a->nr, sizeof *a->r, cmp_round);
}

/* tester.tsv.gz's columns: rawcols.h */

static int read_tester(const char *root, ap_round *r, char *err, size_t errlen)
{
    char *path = vu_xasprintf("%s/results/raw/%s/tester.tsv.gz", root, r->name);
    unsigned char *gz = NULL;
    size_t gzlen = 0;
    int rc = vu_read_file(path, &gz, &gzlen, err, errlen);
    if (rc) {
        free(path);
        return -1;
    }
    rr_file f;
    rr_row row;
    rc = rr_open(&f, path, gz, gzlen, "tester", tester_cols, T_NCOL, err, errlen);
    size_t cap = 0;
    while (rc == 0) {
        int k = rr_next(&f, &row, err, errlen);
        if (k < 0) rc = -1;
        if (k <= 0) break;
        if ((size_t)r->n == cap) {
            cap = cap ? 2 * cap : 16384;
            r->j = vu_xrealloc(r->j, cap * sizeof *r->j);
            r->row = vu_xrealloc(r->row, cap * sizeof *r->row);
            r->kind = vu_xrealloc(r->kind, cap);
        }
        r->j[r->n] = row.v[T_J];
        r->row[r->n] = row.v[T_ROW];
        r->kind[r->n] = row.c[T_KIND];
        r->n++;
    }
    rr_close(&f);
    free(gz);
    free(path);
    return rc ? -1 : 0;
}

/* everything APCOST.md 1.2-1.6 defines for seed 1 and one arm */
static void arm_compute(const char *root, const ap_table *t, const ref_data *ref, double live_ap, ap_arm *a)
{
    char err[6144];
    a->readable = 1;
    for (size_t i = 0; i < a->nr; i++) {
        if (read_tester(root, &a->r[i], err, sizeof err)) {
            char *m = vu_xasprintf("unreadable: %s", err);
            mm_add(NULL, a->r[i].name, "tester.tsv.gz (read for ap.json)", "(a round of an arm of ap.json)", m);
            free(m);
            a->readable = 0;
        }
    }
    if (!a->readable || a->nr == 0) return;
    size_t R = a->nr, N = t->n;
    a->M = a->r[0].n;
    for (size_t i = 1; i < R; i++)
        if (a->r[i].n < a->M) a->M = a->r[i].n;
    a->live = vu_xcalloc(R, sizeof *a->live);
    a->lk = vu_xcalloc(R, sizeof *a->lk);
    a->def = vu_xcalloc(R, sizeof *a->def);
    a->err = vu_xcalloc(R, sizeof *a->err);
    a->srows = vu_xcalloc(R, sizeof *a->srows);
    for (int k = 0; k < 3; k++) {
        a->ap[k] = vu_xcalloc(R, sizeof *a->ap[k]);
        a->chg[k] = vu_xcalloc(R, sizeof *a->chg[k]);
    }
    unsigned char *in = vu_xcalloc(N + 1, 1);
    size_t *srow = vu_xmalloc((N + 1) * sizeof *srow);
    double *v = vu_xmalloc((N + 1) * sizeof *v);
    for (size_t i = 0; i < N; i++) v[i] = ref->score[i];
    for (size_t i = 0; i < R; i++) {
        ap_round *r = &a->r[i];
        size_t ns = 0;
        for (long long x = 0; x < r->n; x++) {
            if (r->j[x] < 0 || r->j[x] >= a->M) continue;
            char kd = r->kind[x];
            if (kd == 'L') a->live[i]++;
            else if (kd == 'E') a->err[i]++;
            else if (kd == 'K' || kd == 'D') {
                if (kd == 'K') a->lk[i]++;
                else a->def[i]++;
                long long rw = r->row[x];
                if (rw < 0 || (size_t)rw >= N) {
                    char m[128];
                    snprintf(m, sizeof m, "a row of scores.tsv (0 to %zu)", N ? N - 1 : 0);
                    char what[128];
                    snprintf(what, sizeof what, "tester.tsv.gz j %lld row (read for ap.json)", r->j[x]);
                    mm_addf(NULL, r->name, what, "", "%s", m);
                    continue;
                }
                if (!in[rw]) {
                    in[rw] = 1;
                    srow[ns++] = (size_t)rw;
                }
            }
        }
        a->srows[i] = (long long)ns;
        for (int k = 0; k < 3; k++) {
            if (ns == 0) {
                /* APCOST.md 1.4: an empty S gives A = L and a change of exactly 0 */
                a->ap[k][i] = live_ap;
                a->chg[k][i] = 0;
                continue;
            }
            for (size_t q = 0; q < ns; q++) {
                size_t rw = srow[q];
                v[rw] = k == 0 ? (double)ref->last_known[rw] : k == 1 ? (double)ref->default_score : -INFINITY;
            }
            a->ap[k][i] = ap_mean_by_cutoff(t, v);
            a->chg[k][i] = a->ap[k][i] - live_ap;
            for (size_t q = 0; q < ns; q++) v[srow[q]] = ref->score[srow[q]];
        }
        for (size_t q = 0; q < ns; q++) in[srow[q]] = 0;
        a->standin += a->lk[i] + a->def[i];
        a->lk_req += a->lk[i];
        a->def_req += a->def[i];
        a->srows_total += (long long)ns;
        if (ns) a->any_standin = 1;
    }
    a->requests = (long long)R * a->M;
    a->standin_share = a->requests ? (double)a->standin / (double)a->requests : NAN;
    double sh = 0;
    for (size_t i = 0; i < R; i++) sh += N ? (double)a->srows[i] / (double)N : NAN;
    a->srows_share = sh / (double)R;
    for (int k = 0; k < 3; k++) {
        double s = 0;
        for (size_t i = 0; i < R; i++) s += a->chg[k][i];
        a->change[k] = s / (double)R;
    }
    free(in);
    free(srow);
    free(v);
}

/* ----------------------------------------------------- the arm's JSON */

static vj_node *arm_json(const ap_arm *a, size_t N)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "recomputed", vj_new_bool(1));
    vj_node *rounds = vj_new_arr();
    for (size_t i = 0; i < a->nr; i++) vj_arr_push(rounds, vj_new_int(a->r[i].round));
    vj_obj_set(o, "rounds", rounds);
    vj_obj_set(o, "requests_per_round", vj_new_int(a->M));
    vj_obj_set(o, "requests", vj_new_int(a->requests));
    vj_obj_set(o, "standin_requests", vj_new_int(a->standin));
    vj_obj_set(o, "last_known_requests", vj_new_int(a->lk_req));
    vj_obj_set(o, "default_requests", vj_new_int(a->def_req));
    vj_obj_set(o, "standin_share", vj_new_num(a->standin_share));
    vj_obj_set(o, "standin_rows_share", vj_new_num(a->srows_share));
    vj_node *pr = vj_new_arr();
    for (size_t i = 0; i < a->nr; i++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "round", vj_new_int(a->r[i].round));
        vj_obj_set(e, "requests_in_run", vj_new_int(a->r[i].n));
        vj_obj_set(e, "requests", vj_new_int(a->M));
        vj_obj_set(e, "live", vj_new_int(a->live[i]));
        vj_obj_set(e, "last_known", vj_new_int(a->lk[i]));
        vj_obj_set(e, "default", vj_new_int(a->def[i]));
        vj_obj_set(e, "error", vj_new_int(a->err[i]));
        long long st = a->lk[i] + a->def[i];
        vj_obj_set(e, "standin_requests", vj_new_int(st));
        vj_obj_set(e, "standin_share", vj_new_num(a->M ? (double)st / (double)a->M : NAN));
        vj_obj_set(e, "standin_rows", vj_new_int(a->srows[i]));
        vj_obj_set(e, "standin_rows_share", vj_new_num(N ? (double)a->srows[i] / (double)N : NAN));
        vj_node *apd = vj_new_obj(), *chd = vj_new_obj();
        for (int k = 0; k < 3; k++) {
            vj_obj_set(apd, KINDS[k], vj_new_num(a->ap[k][i]));
            vj_obj_set(chd, KINDS[k], vj_new_num(a->chg[k][i]));
        }
        vj_obj_set(e, "ap_default_seed", apd);
        vj_obj_set(e, "change_default_seed", chd);
        vj_arr_push(pr, e);
    }
    vj_obj_set(o, "per_round", pr);
    vj_node *kinds = vj_new_obj();
    for (int k = 0; k < 3; k++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "change_default_seed", vj_new_num(a->change[k]));
        vj_obj_set(kinds, KINDS[k], e);
    }
    vj_obj_set(o, "kinds", kinds);
    return o;
}

/* ------------------------------------------- comparing one arm with ap.json */

static const char *const ARM_MEMBERS[] = {"rounds", "requests_per_round", "requests", "standin_requests",
                                          "last_known_requests", "default_requests", "standin_share",
                                          "standin_rows_share", "per_round", "kinds", NULL};
static const char *const ROUND_MEMBERS[] = {"round", "requests_in_run", "requests", "live", "last_known",
                                            "default", "error", "standin_requests", "standin_share",
                                            "standin_rows", "standin_rows_share", "ap_default_seed",
                                            "change_default_seed", NULL};
static const char *const KIND_MEMBERS[] = {"change", "change_default_seed", "change_per_seed", "ci95",
                                           "verdict", "direction", NULL};

/* S: the number of model seeds of ap.json (length of model_seeds), 0 if unknown */
/* lab_L: ap.json's own live_ap.default_seed (NaN when absent), which a
 * round without stand-ins must repeat exactly */
static void arm_compare(const ap_arm *a, const vj_node *lab, size_t N, size_t S, double lab_L)
{
    char p[512], q[640];
    snprintf(p, sizeof p, "arms.%s", a->arm);
    chk_members(p, lab, ARM_MEMBERS);
    const vj_node *rounds = vj_get(lab, "rounds");
    int rounds_ok = rounds && rounds->type == VJ_ARR && rounds->n == a->nr;
    for (size_t i = 0; rounds_ok && i < a->nr; i++)
        rounds_ok = is_num(rounds->items[i]) && rounds->items[i]->num == a->r[i].round;
    if (!rounds_ok) {
        vu_buf b = {0};
        vu_buf_puts(&b, "[");
        for (size_t i = 0; i < a->nr; i++) vu_buf_printf(&b, "%s%d", i ? ", " : "", a->r[i].round);
        vu_buf_printf(&b, "] (the folders %s-r<k> of results/raw/)", a->arm);
        snprintf(q, sizeof q, "%s.rounds", p);
        char lt[256];
        if (rounds && rounds->type == VJ_ARR) {
            vu_buf lb = {0};
            vu_buf_puts(&lb, "[");
            for (size_t i = 0; i < rounds->n; i++) {
                vj_scalar_text(rounds->items[i], lt, sizeof lt);
                vu_buf_printf(&lb, "%s%s", i ? ", " : "", lt);
            }
            vu_buf_puts(&lb, "]");
            mm_add(NULL, "ap.json", q, lb.p, b.p);
            vu_buf_free(&lb);
        } else {
            mm_ap(q, rounds, b.p);
        }
        vu_buf_free(&b);
    }
#define FIELD(name) (snprintf(q, sizeof q, "%s.%s", p, name), q)
    chk_count(FIELD("requests_per_round"), vj_get(lab, "requests_per_round"), a->M);
    chk_count(FIELD("requests"), vj_get(lab, "requests"), a->requests);
    chk_count(FIELD("standin_requests"), vj_get(lab, "standin_requests"), a->standin);
    chk_count(FIELD("last_known_requests"), vj_get(lab, "last_known_requests"), a->lk_req);
    chk_count(FIELD("default_requests"), vj_get(lab, "default_requests"), a->def_req);
    chk_num(FIELD("standin_share"), vj_get(lab, "standin_share"), a->standin_share, -SHARE_TOL, NULL);
    chk_num(FIELD("standin_rows_share"), vj_get(lab, "standin_rows_share"), a->srows_share, -SHARE_TOL, NULL);
#undef FIELD

    const vj_node *pr = need(p, lab, "per_round", VJ_ARR);
    if (pr && pr->n != a->nr) {
        char l[64], m[64];
        snprintf(l, sizeof l, "%zu entries", pr->n);
        snprintf(m, sizeof m, "%zu entries (one per round)", a->nr);
        snprintf(q, sizeof q, "%s.per_round (length)", p);
        mm_add(NULL, "ap.json", q, l, m);
    }
    for (size_t i = 0; pr && i < pr->n && i < a->nr; i++) {
        const vj_node *e = pr->items[i];
        char rp[560];
        snprintf(rp, sizeof rp, "%s.per_round[%zu]", p, i);
        if (e->type != VJ_OBJ) {
            mm_ap(rp, e, "an object (APCOST.md 1.7)");
            continue;
        }
        chk_members(rp, e, ROUND_MEMBERS);
#define RF(name) (snprintf(q, sizeof q, "%s.%s", rp, name), q)
        long long st = a->lk[i] + a->def[i];
        chk_count(RF("round"), vj_get(e, "round"), a->r[i].round);
        chk_count(RF("requests_in_run"), vj_get(e, "requests_in_run"), a->r[i].n);
        chk_count(RF("requests"), vj_get(e, "requests"), a->M);
        chk_count(RF("live"), vj_get(e, "live"), a->live[i]);
        chk_count(RF("last_known"), vj_get(e, "last_known"), a->lk[i]);
        chk_count(RF("default"), vj_get(e, "default"), a->def[i]);
        chk_count(RF("error"), vj_get(e, "error"), a->err[i]);
        chk_count(RF("standin_requests"), vj_get(e, "standin_requests"), st);
        chk_num(RF("standin_share"), vj_get(e, "standin_share"), a->M ? (double)st / (double)a->M : NAN,
                -SHARE_TOL, NULL);
        chk_count(RF("standin_rows"), vj_get(e, "standin_rows"), a->srows[i]);
        chk_num(RF("standin_rows_share"), vj_get(e, "standin_rows_share"),
                N ? (double)a->srows[i] / (double)N : NAN, -SHARE_TOL, NULL);
#undef RF
        const vj_node *apd = need(rp, e, "ap_default_seed", VJ_OBJ);
        const vj_node *chd = need(rp, e, "change_default_seed", VJ_OBJ);
        static const char *const K3[] = {"last_known", "default", "none", NULL};
        snprintf(q, sizeof q, "%s.ap_default_seed", rp);
        chk_members(q, apd, K3);
        snprintf(q, sizeof q, "%s.change_default_seed", rp);
        chk_members(q, chd, K3);
        for (int k = 0; k < 3; k++) {
            int empty = a->srows[i] == 0;
            snprintf(q, sizeof q, "%s.ap_default_seed.%s", rp, KINDS[k]);
            if (apd && empty && !isnan(lab_L))
                chk_num(q, vj_get(apd, KINDS[k]), lab_L, 0, "(no stand-in: ap.json's live_ap.default_seed, exactly)");
            else if (apd)
                chk_num(q, vj_get(apd, KINDS[k]), a->ap[k][i], AP_TOL, NULL);
            snprintf(q, sizeof q, "%s.change_default_seed.%s", rp, KINDS[k]);
            if (chd)
                chk_num(q, vj_get(chd, KINDS[k]), a->chg[k][i], empty ? 0 : AP_TOL,
                        empty ? "(no stand-in: exactly 0)" : NULL);
        }
    }

    /* per kind: seed 1 recomputed; the 20-seed numbers only for consistency */
    const vj_node *kinds = need(p, lab, "kinds", VJ_OBJ);
    static const char *const K3[] = {"last_known", "default", "none", NULL};
    snprintf(q, sizeof q, "%s.kinds", p);
    chk_members(q, kinds, K3);
    for (int k = 0; kinds && k < 3; k++) {
        char kp[600];
        snprintf(kp, sizeof kp, "%s.kinds.%s", p, KINDS[k]);
        const vj_node *e = vj_get(kinds, KINDS[k]);
        if (!e || e->type != VJ_OBJ) {
            mm_ap(kp, e, "an object (APCOST.md 1.7)");
            continue;
        }
        chk_members(kp, e, KIND_MEMBERS);
        int zero = !a->any_standin;
        const char *zwhy = "(no stand-in in any round: exactly 0)";
#define KF(name) (snprintf(q, sizeof q, "%s.%s", kp, name), q)
        chk_num(KF("change_default_seed"), vj_get(e, "change_default_seed"), a->change[k], zero ? 0 : AP_TOL,
                zero ? zwhy : NULL);
        const vj_node *ps = vj_get(e, "change_per_seed");
        int ps_ok = ps && ps->type == VJ_ARR && ps->n > 0;
        for (size_t s = 0; ps_ok && s < ps->n; s++) ps_ok = is_num(ps->items[s]);
        if (!ps_ok) {
            mm_ap(KF("change_per_seed"), ps, "a list of numbers, one per model seed (APCOST.md 1.7)");
        } else {
            if (S && ps->n != S) {
                char l[64], m[96];
                snprintf(l, sizeof l, "%zu entries", ps->n);
                snprintf(m, sizeof m, "%zu entries (one per model_seeds)", S);
                mm_add(NULL, "ap.json", KF("change_per_seed (length)"), l, m);
            }
            chk_num(KF("change_per_seed[0]"), ps->items[0], a->change[k], zero ? 0 : AP_TOL,
                    zero ? zwhy : "(seed 1, recomputed)");
            double sum = 0;
            for (size_t s = 0; s < ps->n; s++) {
                sum += ps->items[s]->num;
                if (zero && s > 0) {
                    snprintf(q, sizeof q, "%s.change_per_seed[%zu]", kp, s);
                    chk_num(q, ps->items[s], 0, 0, zwhy);
                }
            }
            double mean = sum / (double)ps->n;
            chk_num(KF("change"), vj_get(e, "change"), zero ? 0 : mean, zero ? 0 : AP_TOL,
                    zero ? zwhy : "(the mean of change_per_seed)");
        }
        const vj_node *ci = vj_get(e, "ci95");
        int ci_ok = ci && ci->type == VJ_ARR && ci->n == 2 && is_num(ci->items[0]) && is_num(ci->items[1]);
        if (!ci_ok) {
            mm_ap(KF("ci95"), ci, "[lo, hi] (APCOST.md 1.5)");
        } else {
            double lo = ci->items[0]->num, hi = ci->items[1]->num;
            char l[128];
            snprintf(l, sizeof l, "[%s, %s]", ci->items[0]->text, ci->items[1]->text);
            if (zero && (lo != 0 || hi != 0))
                mm_add(NULL, "ap.json", KF("ci95"), l, "[0, 0] (no stand-in in any round)");
            else if (!(lo <= hi))
                mm_add(NULL, "ap.json", KF("ci95"), l, "lo <= hi");
            /* the verdict rule: an interval holding zero is too close to call */
            int close = lo <= 0 && 0 <= hi;
            const char *verdict = close ? "too close to call" : "clearly different";
            chk_str(KF("verdict"), vj_get(e, "verdict"), verdict);
            const vj_node *dir = vj_get(e, "direction");
            if (close) {
                if (!dir || dir->type != VJ_NULL) mm_ap(KF("direction"), dir, "null (too close to call)");
            } else {
                chk_str(KF("direction"), dir, hi < 0 ? "lower" : "higher");
            }
        }
#undef KF
    }
}

/* ------------------------------------------------------ the chosen arms */

typedef struct {
    char **arm;
    size_t n;
} arm_list;

static void list_free(arm_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->arm[i]);
    free(l->arm);
    memset(l, 0, sizeof *l);
}

static int list_has(const arm_list *l, const char *a)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->arm[i], a)) return 1;
    return 0;
}

static void list_add(arm_list *l, const char *a)
{
    if (list_has(l, a)) return;
    l->arm = vu_xrealloc(l->arm, (l->n + 1) * sizeof *l->arm);
    l->arm[l->n++] = vu_xstrdup(a);
}

static int read_arms_file(const char *path, arm_list *l, char *err, size_t errlen)
{
    unsigned char *b;
    size_t len;
    int rc = vu_read_file(path, &b, &len, err, errlen);
    if (rc) return rc;
    char *p = (char *)b, *end = p + len;
    long line = 0;
    int header = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) e = end;
        *e = 0;
        if (e > p && e[-1] == '\r') e[-1] = 0;
        char *s = p;
        p = e < end ? e + 1 : end;
        if (!header) {
            if (strcmp(s, "arm")) {
                snprintf(err, errlen, "%s:%ld: header is \"%.40s\", expected \"arm\"", path, line, s);
                free(b);
                return EINVAL;
            }
            header = 1;
            continue;
        }
        if (!*s || *s == '#') continue;
        if (strchr(s, '\t') || strchr(s, ' ') || strchr(s, '/')) {
            snprintf(err, errlen, "%s:%ld: \"%.60s\" is not an arm name", path, line, s);
            free(b);
            return EINVAL;
        }
        list_add(l, s);
    }
    free(b);
    if (!header) {
        snprintf(err, errlen, "%s: empty file (no header \"arm\")", path);
        return EINVAL;
    }
    return 0;
}

int ap_arms_file_check(const char *arms_path, char *err, size_t errlen)
{
    if (!arms_path || !vu_is_file(arms_path)) return 0;
    arm_list l = {0};
    int rc = read_arms_file(arms_path, &l, err, errlen);
    list_free(&l);
    return rc ? -1 : 0;
}

/* --------------------------------------------------------------- main */

static const char *const TOP_MEMBERS[] = {"format", "definitions", "test_rows", "customers", "cutoffs",
                                          "default_score", "kinds", "model_seeds", "default_seed", "live_ap",
                                          "bootstrap", "arms", "skipped_arms", NULL};

static const char *RECOMPUTED =
    "seed 1 (the default seed: scores.tsv's score and last_known, summary.json's default_score), from "
    "results/reference/ and the raw tester files: test_rows, customers, cutoffs, default_score, "
    "live_ap.default_seed, each chosen arm's rounds, requests_per_round, per-round counts, shares, "
    "ap_default_seed and change_default_seed, the per-arm counts and shares and kinds.*.change_default_seed";
static const char *COPIED =
    "everything that needs the models of seeds 2..20 (XGBoost, trained by the lab) or the lab's bootstrap "
    "generator: live_ap.mean and per_seed, kinds.*.change, change_per_seed, ci95, verdict, direction, "
    "bootstrap.*; checked only for consistency: model_seeds is 1..S, default_seed 1, per-seed lists of S "
    "entries whose first is seed 1's recomputed value, change and live_ap.mean the means of their lists, "
    "lo <= hi, the verdict and direction follow ci95 by the rule of APCOST.md 1.5, and an arm without "
    "any stand-in has every change exactly 0 and ci95 [0, 0]";

vj_node *ap_check(const char *root, const ref_data *ref, const char *arms_path, vj_node **member)
{
    *member = vj_new_null();
    vj_node *st = vj_new_obj();
    char *path = vu_xasprintf("%s/results/ap.json", root);
    long mm0 = mm_count();
    int present = vu_is_file(path);
    vj_obj_set(st, "present", vj_new_bool(present));
    if (!present) {
        vj_obj_set(st, "checked", vj_new_bool(0));
        vj_obj_set(st, "note", vj_new_str("no results/ap.json (make ap writes it): nothing to check"));
        printf("NOTE %s absent: the stand-ins' AP cost is not checked\n", path);
        free(path);
        return st;
    }
    char err[6144];
    vj_node *lab = NULL;
    ap_table t;
    memset(&t, 0, sizeof t);
    if (vj_parse_file(path, &lab, err, sizeof err)) {
        mm_add(NULL, "ap.json", "(the file)", err, "readable JSON (APCOST.md 1.7)");
        vj_obj_set(st, "checked", vj_new_bool(0));
        vj_obj_set(st, "note", vj_new_str("results/ap.json is not readable JSON"));
        goto out;
    }
    if (lab->type != VJ_OBJ) {
        mm_ap("(top level)", lab, "an object (APCOST.md 1.7)");
        vj_obj_set(st, "checked", vj_new_bool(0));
        vj_obj_set(st, "note", vj_new_str("results/ap.json is not an object"));
        goto out;
    }
    if (ap_table_load(ref->scores_path, &t, err, sizeof err) || t.n != ref->rows) {
        if (t.n != ref->rows) snprintf(err, sizeof err, "%s: rows differ between two readings", ref->scores_path);
        mm_add(NULL, "ap.json", "(the test table)", "(ap.json present)", err);
        vj_obj_set(st, "checked", vj_new_bool(0));
        vj_obj_set(st, "note", vj_new_str("the reference scores.tsv could not be read for the AP check"));
        goto out;
    }
    size_t N = t.n;

    /* -- the top level -- */
    chk_members("", lab, TOP_MEMBERS);
    chk_str("format", vj_get(lab, "format"), "lab-ap 1");
    chk_str("definitions", vj_get(lab, "definitions"), "pipeline/APCOST.md");
    chk_count("test_rows", vj_get(lab, "test_rows"), (long long)N);
    chk_count("customers", vj_get(lab, "customers"), (long long)t.customers);
    {
        const vj_node *c = vj_get(lab, "cutoffs");
        int ok = c && c->type == VJ_ARR && c->n == t.ncut;
        for (size_t i = 0; ok && i < t.ncut; i++)
            ok = c->items[i]->type == VJ_STR && !strcmp(c->items[i]->text, t.cutoffs[i]);
        if (!ok) {
            vu_buf b = {0};
            for (size_t i = 0; i < t.ncut; i++) vu_buf_printf(&b, "%s%s", i ? " " : "", t.cutoffs[i]);
            if (!b.p) vu_buf_puts(&b, "");
            char *m = vu_xasprintf("%zu: %s", t.ncut, b.p);
            mm_ap("cutoffs", c, m);
            free(m);
            vu_buf_free(&b);
        }
    }
    chk_num("default_score", vj_get(lab, "default_score"), (double)ref->default_score, 0,
            "(summary.json's default_score as a 32-bit float)");
    {
        const vj_node *k = vj_get(lab, "kinds");
        int ok = k && k->type == VJ_ARR && k->n == 3;
        for (int i = 0; ok && i < 3; i++) ok = k->items[i]->type == VJ_STR && !strcmp(k->items[i]->text, KINDS[i]);
        if (!ok) mm_ap("kinds", k, "[\"last_known\", \"default\", \"none\"]");
    }
    chk_count("default_seed", vj_get(lab, "default_seed"), 1);
    size_t S = 0;
    {
        const vj_node *ms = vj_get(lab, "model_seeds");
        int ok = ms && ms->type == VJ_ARR && ms->n > 0;
        for (size_t i = 0; ok && i < ms->n; i++) ok = is_num(ms->items[i]) && ms->items[i]->num == (double)(i + 1);
        if (!ok) mm_ap("model_seeds", ms, "[1, 2, ..., S] (APCOST.md 1.3)");
        else S = ms->n;
    }
    /* summary.json's model_seed must be 1 (APCOST.md 1.1) when it says */
    {
        char *sp = vu_xasprintf("%s/results/reference/summary.json", root);
        vj_node *sum = NULL;
        if (!vj_parse_file(sp, &sum, err, sizeof err)) {
            const vj_node *m = vj_get(sum, "model_seed");
            if (m && !(is_num(m) && m->num == 1)) {
                char l[64];
                vj_scalar_text(m, l, sizeof l);
                mm_add(NULL, "results/reference/summary.json", "model_seed", l, "1 (APCOST.md 1.1: seed 1 is the reference)");
            }
        }
        vj_free(sum);
        free(sp);
    }

    /* the live AP of seed 1 */
    double *live = vu_xmalloc((N + 1) * sizeof *live);
    for (size_t i = 0; i < N; i++) live[i] = ref->score[i];
    double L1 = ap_mean_by_cutoff(&t, live);
    free(live);
    if (isnan(L1)) printf("NOTE ap.json: some cutoff of scores.tsv has no buyer: its AP is undefined\n");
    const vj_node *la = need("", lab, "live_ap", VJ_OBJ);
    double lab_L = NAN;
    if (is_num(vj_get(la, "default_seed"))) lab_L = vj_get(la, "default_seed")->num;
    if (la) {
        static const char *const LM[] = {"default_seed", "mean", "per_seed", NULL};
        chk_members("live_ap", la, LM);
        chk_num("live_ap.default_seed", vj_get(la, "default_seed"), L1, AP_TOL, NULL);
        const vj_node *ps = vj_get(la, "per_seed");
        int ok = ps && ps->type == VJ_ARR && ps->n > 0;
        for (size_t i = 0; ok && i < ps->n; i++) ok = is_num(ps->items[i]);
        if (!ok) {
            mm_ap("live_ap.per_seed", ps, "a list of numbers, one per model seed");
        } else {
            if (S && ps->n != S) {
                char l[64], m[96];
                snprintf(l, sizeof l, "%zu entries", ps->n);
                snprintf(m, sizeof m, "%zu entries (one per model_seeds)", S);
                mm_add(NULL, "ap.json", "live_ap.per_seed (length)", l, m);
            }
            chk_num("live_ap.per_seed[0]", ps->items[0], L1, AP_TOL, "(seed 1, recomputed)");
            double s = 0;
            for (size_t i = 0; i < ps->n; i++) s += ps->items[i]->num;
            chk_num("live_ap.mean", vj_get(la, "mean"), s / (double)ps->n, AP_TOL, "(the mean of per_seed)");
        }
    }
    const vj_node *bs = need("", lab, "bootstrap", VJ_OBJ);
    if (bs) {
        static const char *const BM[] = {"resamples", "seed", "model_seeds", "used", "interval", NULL};
        chk_members("bootstrap", bs, BM);
        const vj_node *rs = vj_get(bs, "resamples"), *sd = vj_get(bs, "seed"), *bm = vj_get(bs, "model_seeds"),
                      *us = vj_get(bs, "used");
        if (!(is_num(rs) && rs->is_int && rs->i >= 1)) mm_ap("bootstrap.resamples", rs, "an integer >= 1");
        if (!(is_num(sd) && sd->is_int)) mm_ap("bootstrap.seed", sd, "an integer");
        if (!(is_num(bm) && bm->is_int && bm->i >= 1 && (!S || (size_t)bm->i <= S))) {
            char m[96];
            snprintf(m, sizeof m, "an integer from 1 to %zu (the model seeds)", S);
            mm_ap("bootstrap.model_seeds", bm, m);
        }
        if (!(is_num(us) && us->is_int && us->i >= 0 && (!is_num(rs) || us->num <= rs->num)))
            mm_ap("bootstrap.used", us, "an integer from 0 to resamples");
        chk_str("bootstrap.interval", vj_get(bs, "interval"), "percentiles 2.5 and 97.5");
    }

    /* -- the chosen arms and their runs -- */
    const vj_node *larms = need("", lab, "arms", VJ_OBJ);
    const vj_node *lskip = vj_get(lab, "skipped_arms");
    if (!lskip || lskip->type != VJ_ARR) mm_ap("skipped_arms", lskip, "a list of arm names (APCOST.md 1.7)");
    arm_list chosen = {0};
    const char *chosen_from;
    char *chosen_path = NULL;
    if (arms_path && vu_is_file(arms_path)) {
        if (read_arms_file(arms_path, &chosen, err, sizeof err)) {
            mm_add(NULL, "ap.json", "(the chosen arms)", "(ap.json present)", err);
            list_free(&chosen);
        }
        chosen_path = vu_xstrdup(arms_path);
        chosen_from = chosen_path;
    } else {
        printf("NOTE ap.json: no chosen-arms file%s%s: the arms are taken from ap.json's arms and skipped_arms\n",
               arms_path ? " at " : "", arms_path ? arms_path : "");
        for (size_t i = 0; larms && i < larms->n; i++) list_add(&chosen, larms->keys[i]);
        for (size_t i = 0; lskip && lskip->type == VJ_ARR && i < lskip->n; i++)
            if (lskip->items[i]->type == VJ_STR) list_add(&chosen, lskip->items[i]->text);
        chosen_from = "ap.json (its arms and skipped_arms)";
    }

    char *rawdir = vu_xasprintf("%s/results/raw", root);
    char **names = NULL;
    size_t nn = 0;
    if (vu_list_dir(rawdir, &names, &nn, err, sizeof err)) printf("NOTE ap.json: %s\n", err);
    ap_arm *arms = vu_xcalloc(chosen.n + 1, sizeof *arms);
    size_t na = 0;
    arm_list skipped = {0};
    for (size_t i = 0; i < chosen.n; i++) {
        ap_arm a;
        find_rounds(rawdir, names, nn, chosen.arm[i], &a);
        if (a.nr == 0) {
            list_add(&skipped, chosen.arm[i]);
            arm_free(&a);
            continue;
        }
        arms[na++] = a;
    }
    vu_free_names(names, nn);
    free(rawdir);

    /* arms: the chosen arms with runs, in order; skipped_arms: those without */
    if (larms && larms->n == 0 && na == 0)
        mm_ap("arms", larms, "at least one arm (APCOST.md 1.1: with no chosen arm that has runs the stage fails)");
    if (larms) {
        for (size_t i = 0; i < na; i++)
            if (!vj_get(larms, arms[i].arm)) {
                char w[512], m[256];
                snprintf(w, sizeof w, "arms.%s", arms[i].arm);
                snprintf(m, sizeof m, "a chosen arm with %zu runs in results/raw/", arms[i].nr);
                mm_add(NULL, "ap.json", w, "(absent)", m);
            }
        for (size_t i = 0; i < larms->n; i++) {
            int mine = 0;
            for (size_t k = 0; k < na && !mine; k++) mine = !strcmp(arms[k].arm, larms->keys[i]);
            if (mine) continue;
            char w[512];
            snprintf(w, sizeof w, "arms.%s", larms->keys[i]);
            mm_add(NULL, "ap.json", w, "(present)",
                   list_has(&chosen, larms->keys[i]) ? "(a chosen arm without runs in results/raw/: skipped)"
                                                      : "(not a chosen arm)");
        }
        /* the order, when both hold the same arms */
        int same = larms->n == na, order = 1;
        for (size_t i = 0; same && i < na; i++) order &= !strcmp(larms->keys[i], arms[i].arm);
        if (same && !order) {
            vu_buf l = {0}, m = {0};
            for (size_t i = 0; i < na; i++) {
                vu_buf_printf(&l, "%s%s", i ? " " : "", larms->keys[i]);
                vu_buf_printf(&m, "%s%s", i ? " " : "", arms[i].arm);
            }
            vu_buf_puts(&m, " (the order of the chosen arms)");
            mm_add(NULL, "ap.json", "arms (order)", l.p, m.p);
            vu_buf_free(&l);
            vu_buf_free(&m);
        }
    }
    if (lskip && lskip->type == VJ_ARR) {
        int ok = lskip->n == skipped.n;
        for (size_t i = 0; ok && i < lskip->n; i++)
            ok = lskip->items[i]->type == VJ_STR && list_has(&skipped, lskip->items[i]->text);
        if (!ok) {
            vu_buf l = {0}, m = {0};
            vu_buf_puts(&l, "[");
            for (size_t i = 0; i < lskip->n; i++) {
                char x[256];
                vj_scalar_text(lskip->items[i], x, sizeof x);
                vu_buf_printf(&l, "%s%s", i ? ", " : "", x);
            }
            vu_buf_puts(&l, "]");
            vu_buf_puts(&m, "[");
            for (size_t i = 0; i < skipped.n; i++) vu_buf_printf(&m, "%s\"%s\"", i ? ", " : "", skipped.arm[i]);
            vu_buf_puts(&m, "] (the chosen arms without runs)");
            mm_add(NULL, "ap.json", "skipped_arms", l.p, m.p);
            vu_buf_free(&l);
            vu_buf_free(&m);
        }
    }

    /* -- recompute and compare every arm with runs -- */
    vj_node *my_arms = vj_new_obj();
    for (size_t i = 0; i < na; i++) {
        arm_compute(root, &t, ref, L1, &arms[i]);
        if (!arms[i].readable) continue;
        vj_obj_set(my_arms, arms[i].arm, arm_json(&arms[i], N));
        const vj_node *l = larms ? vj_get(larms, arms[i].arm) : NULL;
        if (l && l->type == VJ_OBJ) arm_compare(&arms[i], l, N, S, lab_L);
        else if (l) {
            char w[512];
            snprintf(w, sizeof w, "arms.%s", arms[i].arm);
            mm_ap(w, l, "an object (APCOST.md 1.7)");
        }
    }

    /* -- verified.json's "ap" member -- */
    vj_node *m = vj_new_obj();
    vj_obj_set(m, "checked", vj_new_bool(1));
    vj_obj_set(m, "definitions", vj_new_str("pipeline/APCOST.md"));
    vj_obj_set(m, "recomputed", vj_new_bool(1));
    vj_obj_set(m, "what_is_recomputed", vj_new_str(RECOMPUTED));
    vj_obj_set(m, "default_seed", vj_new_int(1));
    vj_obj_set(m, "test_rows", vj_new_int((long long)N));
    vj_obj_set(m, "customers", vj_new_int((long long)t.customers));
    vj_node *cuts = vj_new_arr();
    for (size_t i = 0; i < t.ncut; i++) vj_arr_push(cuts, vj_new_str(t.cutoffs[i]));
    vj_obj_set(m, "cutoffs", cuts);
    vj_obj_set(m, "default_score", vj_new_num((double)ref->default_score));
    vj_node *kl = vj_new_arr();
    for (int k = 0; k < 3; k++) vj_arr_push(kl, vj_new_str(KINDS[k]));
    vj_obj_set(m, "kinds", kl);
    vj_obj_set(m, "chosen_arms_from", vj_new_str(chosen_from));
    vj_node *ca = vj_new_arr();
    for (size_t i = 0; i < chosen.n; i++) vj_arr_push(ca, vj_new_str(chosen.arm[i]));
    vj_obj_set(m, "chosen_arms", ca);
    vj_node *sk = vj_new_arr();
    for (size_t i = 0; i < skipped.n; i++) vj_arr_push(sk, vj_new_str(skipped.arm[i]));
    vj_obj_set(m, "skipped_arms", sk);
    vj_node *lv = vj_new_obj();
    vj_obj_set(lv, "default_seed", vj_new_num(L1));
    vj_obj_set(m, "live_ap", lv);
    vj_obj_set(m, "arms", my_arms);

    vj_node *cp = vj_new_obj();
    vj_obj_set(cp, "recomputed", vj_new_bool(0));
    vj_obj_set(cp, "what_is_copied", vj_new_str(COPIED));
    vj_obj_set(cp, "model_seeds", vj_copy(vj_get(lab, "model_seeds")));
    vj_obj_set(cp, "bootstrap", vj_copy(bs));
    vj_node *cl = vj_new_obj();
    vj_obj_set(cl, "mean", vj_copy(vj_get(la, "mean")));
    vj_obj_set(cl, "per_seed", vj_copy(vj_get(la, "per_seed")));
    vj_obj_set(cp, "live_ap", cl);
    vj_node *carms = vj_new_obj();
    for (size_t i = 0; larms && i < larms->n; i++) {
        const vj_node *lk = vj_get(larms->items[i], "kinds");
        vj_node *ko = vj_new_obj();
        for (int k = 0; k < 3; k++) {
            const vj_node *e = vj_get(lk, KINDS[k]);
            vj_node *c = vj_new_obj();
            static const char *const CM[] = {"change", "ci95", "verdict", "direction", "change_per_seed"};
            for (int f = 0; f < 5; f++) vj_obj_set(c, CM[f], vj_copy(vj_get(e, CM[f])));
            vj_obj_set(ko, KINDS[k], c);
        }
        vj_node *ao = vj_new_obj();
        vj_obj_set(ao, "kinds", ko);
        vj_obj_set(carms, larms->keys[i], ao);
    }
    vj_obj_set(cp, "arms", carms);
    vj_obj_set(cp, "skipped_arms", vj_copy(lskip));
    vj_obj_set(m, "copied_from_ap_json", cp);
    vj_free(*member);
    *member = m;

    vj_obj_set(st, "checked", vj_new_bool(1));
    vj_obj_set(st, "recomputed", vj_new_str(RECOMPUTED));
    vj_obj_set(st, "copied", vj_new_str(COPIED));
    vj_node *tol = vj_new_obj();
    vj_obj_set(tol, "counts", vj_new_str("exact"));
    vj_obj_set(tol, "shares", vj_new_str("|lab - verify| <= 1e-12 * max(|lab|, |verify|)"));
    vj_obj_set(tol, "ap_and_changes", vj_new_str("|lab - verify| <= 1e-12"));
    vj_obj_set(tol, "exact_zeros", vj_new_str("a round without stand-ins: A = L and change 0 exactly; an arm "
                                               "without any: every change 0 and ci95 [0, 0] exactly"));
    vj_obj_set(st, "tolerances", tol);
    vj_obj_set(st, "arms_recomputed", vj_new_int((long long)vj_get(m, "arms")->n));

    for (size_t i = 0; i < na; i++) arm_free(&arms[i]);
    free(arms);
    list_free(&chosen);
    list_free(&skipped);
    free(chosen_path);
out:
    vj_obj_set(st, "mismatches", vj_new_int(mm_count() - mm0));
    ap_table_free(&t);
    vj_free(lab);
    free(path);
    return st;
}
