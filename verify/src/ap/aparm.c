/* aparm: one chosen arm of results/ap.json recomputed for the default model seed; see aparm.h. */
#include "aparm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "rawcols.h"
#include "rawread.h"
#include "vutil.h"

const char *const ap_kinds[AP_NKINDS] = {"last_known", "default", "none"};

void ap_arm_free(ap_arm *a)
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
    for (size_t i = 0; a->set && i < a->nr; i++)
        free(a->set[i]);
    free(a->set);
    for (int k = 0; k < AP_NKINDS; k++) {
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
void ap_arm_find(const char *rawdir, char **names, size_t nn, const char *arm, ap_arm *a)
{
    memset(a, 0, sizeof *a);
    snprintf(a->arm, sizeof a->arm, "%s", arm);
    size_t al = strlen(arm);
    a->r = vu_xcalloc(nn + 1, sizeof *a->r);
    for (size_t i = 0; i < nn; i++) {
        const char *s = names[i];
        if (strncmp(s, arm, al) || strncmp(s + al, "-r", 2))
            continue;
        const char *d = s + al + 2;
        if (*d < '1' || *d > '9')
            continue;
        long long k = 0;
        const char *q = d;
        for (; *q >= '0' && *q <= '9' && k < 100000000; q++)
            k = k * 10 + (*q - '0');
        if (*q)
            continue;
        char *p = vu_xasprintf("%s/%s", rawdir, s);
        int dir = vu_is_dir(p);
        free(p);
        if (!dir)
            continue;
        ap_round *r = &a->r[a->nr++];
        r->round = (int)k;
        snprintf(r->name, sizeof r->name, "%s", s);
    }
    qsort(a->r, a->nr, sizeof *a->r, cmp_round);
}

void ap_arm_of_run(const char *run, const char *arm, int round, ap_arm *a)
{
    memset(a, 0, sizeof *a);
    snprintf(a->arm, sizeof a->arm, "%s", run);
    snprintf(a->of_arm, sizeof a->of_arm, "%s", arm);
    a->r = vu_xcalloc(2, sizeof *a->r);
    a->nr = 1;
    a->r[0].round = round;
    snprintf(a->r[0].name, sizeof a->r[0].name, "%s", run);
}

/* tester.tsv.gz's columns: rawcols.h.  Format 4 (RAWFORMAT.md, APCOST.md
 * 1.1): request j is the row's place, its table row j mod test_rows (the
 * reference's rows: run.json's test_rows is held to them by runfig); only
 * j, the row and kind are used, so the times are not decoded here */
static int read_tester(const char *root, ap_round *r, long long test_rows, char *err, size_t errlen)
{
    if (r->given) {
        size_t n = (size_t)r->ngiven;
        r->j = vu_xmalloc((n + 1) * sizeof *r->j);
        r->row = vu_xmalloc((n + 1) * sizeof *r->row);
        r->kind = vu_xmalloc(n + 1);
        memcpy(r->kind, r->given, n);
        for (long long x = 0; x < r->ngiven; x++) {
            r->j[x] = x;
            r->row[x] = test_rows > 0 ? x % test_rows : x;
        }
        r->n = r->ngiven;
        return 0;
    }
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
    rc = rr_open(&f, path, gz, gzlen, "tester", tester_cols, TW_NCOL, err, errlen);
    size_t cap = 0;
    while (rc == 0) {
        int k = rr_next(&f, &row, err, errlen);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        if ((size_t)r->n == cap) {
            cap = cap ? 2 * cap : 16384;
            r->j = vu_xrealloc(r->j, cap * sizeof *r->j);
            r->row = vu_xrealloc(r->row, cap * sizeof *r->row);
            r->kind = vu_xrealloc(r->kind, cap);
        }
        r->j[r->n] = r->n;
        r->row[r->n] = test_rows > 0 ? r->n % test_rows : r->n;
        r->kind[r->n] = row.c[TW_KIND];
        r->n++;
    }
    rr_close(&f);
    free(gz);
    free(path);
    return rc ? -1 : 0;
}

/* the work arrays of one arm: the set S of a round as a list and as marks,
 * and the score vector (seed 1's scores, stand-ins swapped in and out) */
typedef struct {
    unsigned char *in;
    size_t *srow;
    double *v;
    ap_pair *pairs;     /* ap_mean_by_cutoff_in's: this call's own (ap_arm_compute may run on several threads) */
} scratch;

static void alloc_rounds(ap_arm *a, size_t R)
{
    a->live = vu_xcalloc(R, sizeof *a->live);
    a->lk = vu_xcalloc(R, sizeof *a->lk);
    a->def = vu_xcalloc(R, sizeof *a->def);
    a->err = vu_xcalloc(R, sizeof *a->err);
    a->srows = vu_xcalloc(R, sizeof *a->srows);
    a->set = vu_xcalloc(R, sizeof *a->set);
    for (int k = 0; k < AP_NKINDS; k++) {
        a->ap[k] = vu_xcalloc(R, sizeof *a->ap[k]);
        a->chg[k] = vu_xcalloc(R, sizeof *a->chg[k]);
    }
}

/* round i: the kinds of the requests j < M, and the set S of the rows of
 * its K and D requests (a row asked twice counts once): |S| */
static size_t count_round(ap_arm *a, size_t i, size_t N, scratch *w)
{
    ap_round *r = &a->r[i];
    size_t ns = 0;
    for (long long x = 0; x < r->n; x++) {
        if (r->j[x] < 0 || r->j[x] >= a->M)
            continue;
        char kd = r->kind[x];
        if (kd == 'L')
            a->live[i]++;
        else if (kd == 'E')
            a->err[i]++;
        else if (kd == 'K' || kd == 'D') {
            if (kd == 'K')
                a->lk[i]++;
            else
                a->def[i]++;
            long long rw = r->row[x];
            if (rw < 0 || (size_t)rw >= N) {
                char m[128];
                snprintf(m, sizeof m, "a row of scores.tsv (0 to %zu)", N ? N - 1 : 0);
                char what[128];
                snprintf(what, sizeof what, "tester.tsv.gz j %lld row (read for ap.json)", r->j[x]);
                mm_addf(NULL, r->name, what, "", "%s", m);
                continue;
            }
            if (!w->in[rw]) {
                w->in[rw] = 1;
                w->srow[ns++] = (size_t)rw;
            }
        }
    }
    return ns;
}

/* round i's AP with each kind of stand-in on the ns rows of S, and A - L */
static void round_aps(ap_arm *a, size_t i, size_t ns, const ap_table *t, const ref_data *ref, double live_ap,
                      scratch *w)
{
    for (int k = 0; k < AP_NKINDS; k++) {
        if (ns == 0) {
            /* APCOST.md 1.4: an empty S gives A = L and a change of exactly 0 */
            a->ap[k][i] = live_ap;
            a->chg[k][i] = 0;
            continue;
        }
        for (size_t q = 0; q < ns; q++) {
            size_t rw = w->srow[q];
            w->v[rw] = k == 0 ? (double)ref->last_known[rw] : k == 1 ? (double)ref->default_score : -INFINITY;
        }
        a->ap[k][i] = ap_mean_by_cutoff_in(t, w->v, w->pairs);
        a->chg[k][i] = a->ap[k][i] - live_ap;
        for (size_t q = 0; q < ns; q++)
            w->v[w->srow[q]] = ref->score[w->srow[q]];
    }
}

/* the arm's sums, shares and mean changes over its R rounds */
static void arm_totals(ap_arm *a, size_t R, size_t N)
{
    a->requests = (long long)R * a->M;
    a->standin_share = a->requests ? (double)a->standin / (double)a->requests : NAN;
    double sh = 0;
    for (size_t i = 0; i < R; i++)
        sh += N ? (double)a->srows[i] / (double)N : NAN;
    a->srows_share = sh / (double)R;
    for (int k = 0; k < AP_NKINDS; k++) {
        double s = 0;
        for (size_t i = 0; i < R; i++)
            s += a->chg[k][i];
        a->change[k] = s / (double)R;
    }
}

void ap_arm_compute(const char *root, const ap_table *t, const ref_data *ref, double live_ap, ap_arm *a)
{
    char err[6144];
    a->readable = 1;
    for (size_t i = 0; i < a->nr; i++) {
        if (read_tester(root, &a->r[i], (long long)ref->rows, err, sizeof err)) {
            char *m = vu_xasprintf("unreadable: %s", err);
            mm_add(NULL, a->r[i].name, "tester.tsv.gz (read for ap.json)", "(a round of an arm of ap.json)", m);
            free(m);
            a->readable = 0;
        }
    }
    if (!a->readable || a->nr == 0)
        return;
    size_t R = a->nr, N = t->n;
    a->M = a->r[0].n;
    for (size_t i = 1; i < R; i++)
        if (a->r[i].n < a->M)
            a->M = a->r[i].n;
    alloc_rounds(a, R);
    scratch w;
    w.in = vu_xcalloc(N + 1, 1);
    w.srow = vu_xmalloc((N + 1) * sizeof *w.srow);
    w.v = vu_xmalloc((N + 1) * sizeof *w.v);
    w.pairs = vu_xmalloc((N + 1) * sizeof *w.pairs);
    for (size_t i = 0; i < N; i++)
        w.v[i] = ref->score[i];
    for (size_t i = 0; i < R; i++) {
        size_t ns = count_round(a, i, N, &w);
        a->srows[i] = (long long)ns;
        a->set[i] = vu_xmalloc((ns + 1) * sizeof *a->set[i]);
        memcpy(a->set[i], w.srow, ns * sizeof *w.srow);
        round_aps(a, i, ns, t, ref, live_ap, &w);
        for (size_t q = 0; q < ns; q++)
            w.in[w.srow[q]] = 0;
        a->standin += a->lk[i] + a->def[i];
        a->lk_req += a->lk[i];
        a->def_req += a->def[i];
        a->srows_total += (long long)ns;
        if (ns)
            a->any_standin = 1;
    }
    arm_totals(a, R, N);
    free(w.in);
    free(w.srow);
    free(w.v);
    free(w.pairs);
}

vj_node *ap_arm_json(const ap_arm *a, size_t N)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "recomputed", vj_new_bool(1));
    vj_node *rounds = vj_new_arr();
    for (size_t i = 0; i < a->nr; i++)
        vj_arr_push(rounds, vj_new_int(a->r[i].round));
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
        for (int k = 0; k < AP_NKINDS; k++) {
            vj_obj_set(apd, ap_kinds[k], vj_new_num(a->ap[k][i]));
            vj_obj_set(chd, ap_kinds[k], vj_new_num(a->chg[k][i]));
        }
        vj_obj_set(e, "ap_default_seed", apd);
        vj_obj_set(e, "change_default_seed", chd);
        vj_arr_push(pr, e);
    }
    vj_obj_set(o, "per_round", pr);
    vj_node *kinds = vj_new_obj();
    for (int k = 0; k < AP_NKINDS; k++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "change_default_seed", vj_new_num(a->change[k]));
        vj_obj_set(kinds, ap_kinds[k], e);
    }
    vj_obj_set(o, "kinds", kinds);
    return o;
}

vj_node *ap_flood_json(const ap_arm *a, size_t N)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "recomputed", vj_new_bool(1));
    vj_obj_set(o, "arm", vj_new_str(a->of_arm));
    vj_obj_set(o, "round", vj_new_int(a->nr ? a->r[0].round : 0));
    vj_obj_set(o, "requests", vj_new_int(a->M));
    vj_obj_set(o, "standin_requests", vj_new_int(a->standin));
    vj_obj_set(o, "standin_share", vj_new_num(a->standin_share));
    vj_obj_set(o, "standin_rows", vj_new_int(a->srows_total));
    vj_obj_set(o, "standin_rows_share", vj_new_num(N && a->nr ? (double)a->srows_total / (double)N : NAN));
    vj_node *kinds = vj_new_obj();
    for (int k = 0; k < AP_NKINDS; k++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "change_default_seed", vj_new_num(a->change[k]));
        vj_obj_set(kinds, ap_kinds[k], e);
    }
    vj_obj_set(o, "kinds", kinds);
    return o;
}
