/* extra: the numbers the report needs beyond the layout of results.json (verified.json's "extra"); see extra.h. */
#include "extra.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "rawcols.h"
#include "rawdec.h"
#include "rawread.h"
#include "vpar.h"
#include "vutil.h"

/* the columns of the event files: rawcols.h */

#define ABSENT RX_ABSENT
#define FROZEN_NS 1000000000LL /* a lookup "froze" when its planned wait is over 1 s */

long long ex_grid_ns(int k)
{
    /* 0.1 ms to 3000 ms, EX_GRID points equally spaced in log */
    return llround(1e5 * pow(3e9 / 1e5, (double)k / (EX_GRID - 1)));
}

/* one run's rows, indexed by request j */
typedef struct {
    long long n;
    long long *sched, *send, *answer;       /* tester; answer ABSENT when none */
    char *kind;
    long long *row;
    int *status;
    /* service, by req (first row of each req) */
    unsigned char *v_has;
    long long *v_arrive, *v_answer, *v_last_end, *v_a0s, *v_a0e;
    char *v_a0o, *v_kind;
    int *v_lookups;
    /* store: the frozen attempt-0 lookup of the lowest req */
    long long f_req, f_arrive, f_start, f_end, f_planned, f_budget;
    char f_outcome;
} exrun;

static void exrun_free(exrun *x)
{
    free(x->sched);
    free(x->send);
    free(x->answer);
    free(x->kind);
    free(x->row);
    free(x->status);
    free(x->v_has);
    free(x->v_arrive);
    free(x->v_answer);
    free(x->v_last_end);
    free(x->v_a0s);
    free(x->v_a0e);
    free(x->v_a0o);
    free(x->v_kind);
    free(x->v_lookups);
}

/* one of the three files of format 4, decoded with dx (rawdec.h) */
static int open_file(const char *root, const char *run, const char *fname, rx_run *dx, int kind,
                     unsigned char **gz, rx_file *f, char **path, char *err, size_t errlen)
{
    *path = vu_xasprintf("%s/results/raw/%s/%s", root, run, fname);
    size_t len = 0;
    memset(f, 0, sizeof *f);
    int rc = vu_read_file(*path, gz, &len, err, errlen);
    if (!rc)
        rc = rx_open(f, dx, kind, *path, *gz, len, err, errlen);
    return rc;
}

static void close_file(rx_file *f, unsigned char *gz, char *path)
{
    rx_close(f);
    free(path);
    free(gz);
}

/* run.json's numbers the decoder needs: 0, or -1 with a message */
static int init_decoder(const char *root, const char *run, rx_run *dx, char *err, size_t errlen)
{
    char *path = vu_xasprintf("%s/results/raw/%s/run.json", root, run);
    vj_node *rj = NULL;
    int rc = vj_parse_file(path, &rj, err, errlen);
    double seconds = 0;
    vj_node *rnd = rc ? NULL : vj_get(rj, "round"), *t0 = rc ? NULL : vj_get(rj, "t0_ns");
    if (!rc && (!rnd || !rnd->is_int || !t0 || !t0->is_int || vj_get_num(rj, "seconds", &seconds))) {
        snprintf(err, errlen, "%s: round, seconds and t0_ns are not as in the first reading", path);
        rc = -1;
    }
    if (!rc)
        rx_init(dx, rj, rnd->i, seconds, t0->i, NULL);
    vj_free(rj);
    free(path);
    return rc;
}

static int read_frozen(const char *root, const char *run, const char *fname, rx_run *dx, exrun *x, char *err,
                       size_t errlen);
static int read_tester(const char *root, const char *run, rx_run *dx, exrun *x, char *err, size_t errlen);
static int read_service(const char *root, const char *run, rx_run *dx, exrun *x, char *err, size_t errlen);

static int read_run(const char *root, const char *run, long long n, exrun *x, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    x->n = n;
    size_t m = (size_t)(n > 0 ? n : 1);
    x->sched = vu_xcalloc(m, sizeof *x->sched);
    x->send = vu_xcalloc(m, sizeof *x->send);
    x->answer = vu_xcalloc(m, sizeof *x->answer);
    x->kind = vu_xcalloc(m, 1);
    x->row = vu_xcalloc(m, sizeof *x->row);
    x->status = vu_xcalloc(m, sizeof *x->status);
    x->v_has = vu_xcalloc(m, 1);
    x->v_arrive = vu_xcalloc(m, sizeof(long long));
    x->v_answer = vu_xcalloc(m, sizeof(long long));
    x->v_last_end = vu_xcalloc(m, sizeof(long long));
    x->v_a0s = vu_xcalloc(m, sizeof(long long));
    x->v_a0e = vu_xcalloc(m, sizeof(long long));
    x->v_a0o = vu_xcalloc(m, 1);
    x->v_kind = vu_xcalloc(m, 1);
    x->v_lookups = vu_xcalloc(m, sizeof(int));
    x->f_req = -1;

    rx_run dx;
    memset(&dx, 0, sizeof dx);
    int rc = init_decoder(root, run, &dx, err, errlen);
    if (!rc)
        rc = read_tester(root, run, &dx, x, err, errlen);
    if (!rc)
        rc = read_service(root, run, &dx, x, err, errlen);
    if (!rc)
        rc = read_frozen(root, run, "store.tsv.gz", &dx, x, err, errlen);
    /* the second store's rows are rows of S too (RESULTS.md) */
    char *p2 = vu_xasprintf("%s/results/raw/%s/store2.tsv.gz", root, run);
    if (!rc && vu_is_file(p2))
        rc = read_frozen(root, run, "store2.tsv.gz", &dx, x, err, errlen);
    free(p2);
    rx_free(&dx);
    return rc;
}

static int read_tester(const char *root, const char *run, rx_run *dx, exrun *x, char *err, size_t errlen)
{
    long long n = x->n, got = 0;
    unsigned char *gz = NULL;
    char *path;
    rx_file f;
    rr_row row;
    int rc = open_file(root, run, "tester.tsv.gz", dx, RX_TESTER, &gz, &f, &path, err, errlen);
    while (!rc) {
        int k = rx_next(&f, &row, err, errlen);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        long long j = row.v[T_J];
        if (j >= n) {
            snprintf(err, errlen, "%s: more than %lld rows", path, n);
            rc = -1;
            break;
        }
        got++;
        x->sched[j] = row.v[T_SCHED];
        x->send[j] = row.has[T_SEND] ? row.v[T_SEND] : ABSENT;
        x->answer[j] = row.has[T_ANSWER] ? row.v[T_ANSWER] : ABSENT;
        x->kind[j] = row.c[T_KIND];
        x->row[j] = row.v[T_ROW];
        x->status[j] = (int)row.v[T_STATUS];
    }
    if (!rc && got != n) {
        snprintf(err, errlen, "%s: %lld rows, expected %lld", path, got, n);
        rc = -1;
    }
    close_file(&f, gz, path);
    return rc;
}

static int read_service(const char *root, const char *run, rx_run *dx, exrun *x, char *err, size_t errlen)
{
    long long n = x->n;
    unsigned char *gz = NULL;
    char *path;
    rx_file f;
    rr_row row;
    int rc = open_file(root, run, "service.tsv.gz", dx, RX_SERVICE, &gz, &f, &path, err, errlen);
    while (!rc) {
        int k = rx_next(&f, &row, err, errlen);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        if (!row.has[V_REQ])
            continue;
        long long q = row.v[V_REQ];
        if (q < 0 || q >= n || x->v_has[q])
            continue;
        x->v_has[q] = 1;
        x->v_arrive[q] = row.v[V_ARRIVE];
        x->v_answer[q] = row.v[V_ANSWER];
        x->v_kind[q] = row.c[V_KIND];
        x->v_lookups[q] = (int)row.v[V_LOOKUPS];
        long long last = ABSENT;
        for (int a = 0; a < RC_LOOKUPS; a++) {
            int ce = V_A0E + 3 * a;
            if (row.has[ce] && row.v[ce] > last)
                last = row.v[ce];
        }
        x->v_last_end[q] = last;
        x->v_a0s[q] = row.has[V_A0S] ? row.v[V_A0S] : ABSENT;
        x->v_a0e[q] = row.has[V_A0E] ? row.v[V_A0E] : ABSENT;
        x->v_a0o[q] = row.has[V_A0O] ? row.c[V_A0O] : 0;
    }
    close_file(&f, gz, path);
    return rc;
}

/* the frozen attempt-0 lookup of the lowest req among one store file's rows */
static int read_frozen(const char *root, const char *run, const char *fname, rx_run *dx, exrun *x, char *err,
                       size_t errlen)
{
    long long n = x->n;
    unsigned char *gz = NULL;
    char *path;
    rx_file f;
    rr_row row;
    int rc = open_file(root, run, fname, dx, RX_STORE, &gz, &f, &path, err, errlen);
    while (!rc) {
        int k = rx_next(&f, &row, err, errlen);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        long long q = row.v[S_REQ];
        if (row.v[S_ATTEMPT] != 0 || row.v[S_PLANNED] <= FROZEN_NS || q < 0 || q >= n)
            continue;
        if (x->f_req >= 0 && q >= x->f_req)
            continue;
        x->f_req = q;
        x->f_arrive = row.v[S_ARRIVE];
        x->f_start = row.has[S_START] ? row.v[S_START] : ABSENT;
        x->f_end = row.has[S_END] ? row.v[S_END] : ABSENT;
        x->f_planned = row.v[S_PLANNED];
        x->f_budget = row.v[S_BUDGET];
        x->f_outcome = row.c[S_OUTCOME];
    }
    close_file(&f, gz, path);
    return rc;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* the slowest first; equal latencies by j ascending */
typedef struct {
    long long lat, j;
} latj;
static int cmp_slow(const void *a, const void *b)
{
    const latj *x = a, *y = b;
    if (x->lat != y->lat)
        return x->lat > y->lat ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

static vj_node *ns_or_null(long long t, long long base)
{
    return t == ABSENT ? vj_new_null() : vj_new_int(t - base);
}

static vj_node *code_or_null(char c)
{
    char s[2] = {c, 0};
    return c ? vj_new_str(s) : vj_new_null();
}

static vj_node *exceed_json(const exrun *x, vj_node **counts)
{
    long long *lat = vu_xcalloc((size_t)(x->n > 0 ? x->n : 1), sizeof *lat);
    size_t na = 0;
    for (long long j = 0; j < x->n; j++)
        if (x->answer[j] != ABSENT)
            lat[na++] = x->answer[j] - x->sched[j];
    qsort(lat, na, sizeof *lat, cmp_ll);
    long long unanswered = x->n - (long long)na;
    vj_node *sh = vj_new_arr();
    *counts = vj_new_arr();
    for (int k = 0; k < EX_GRID; k++) {
        long long g = ex_grid_ns(k);
        /* first index with lat > g */
        size_t lo = 0, hi = na;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (lat[mid] > g)
                hi = mid;
            else
                lo = mid + 1;
        }
        long long c = (long long)(na - lo) + unanswered;
        vj_arr_push(*counts, vj_new_int(c));
        vj_arr_push(sh, x->n > 0 ? vj_new_num((double)c / (double)x->n) : vj_new_null());
    }
    free(lat);
    return sh;
}

static vj_node *frozen_json(const exrun *x)
{
    if (x->f_req < 0)
        return vj_new_null();
    long long j = x->f_req, b = x->sched[j];
    vj_node *o = vj_new_obj();
    char kind[2] = {x->kind[j], 0};
    vj_obj_set(o, "j", vj_new_int(j));
    vj_obj_set(o, "row", vj_new_int(x->row[j]));
    vj_obj_set(o, "planned_ns", vj_new_int(x->f_planned));
    vj_obj_set(o, "budget_ns", vj_new_int(x->f_budget));
    vj_obj_set(o, "kind", vj_new_str(kind));
    vj_obj_set(o, "status", vj_new_int(x->status[j]));
    vj_obj_set(o, "a0_out", x->v_has[j] ? code_or_null(x->v_a0o[j]) : vj_new_null());
    vj_obj_set(o, "store_outcome", code_or_null(x->f_outcome));
    vj_obj_set(o, "lookups", x->v_has[j] ? vj_new_int(x->v_lookups[j]) : vj_new_null());
    vj_obj_set(o, "sched_ns", vj_new_int(0));
    vj_obj_set(o, "send_ns", ns_or_null(x->send[j], b));
    vj_obj_set(o, "service_arrive_ns", x->v_has[j] ? vj_new_int(x->v_arrive[j] - b) : vj_new_null());
    vj_obj_set(o, "lookup_sent_ns", x->v_has[j] ? ns_or_null(x->v_a0s[j], b) : vj_new_null());
    vj_obj_set(o, "service_gave_up_ns", x->v_has[j] ? ns_or_null(x->v_a0e[j], b) : vj_new_null());
    vj_obj_set(o, "service_answer_ns", x->v_has[j] ? vj_new_int(x->v_answer[j] - b) : vj_new_null());
    vj_obj_set(o, "answer_ns", ns_or_null(x->answer[j], b));
    vj_obj_set(o, "store_arrive_ns", vj_new_int(x->f_arrive - b));
    vj_obj_set(o, "store_start_ns", ns_or_null(x->f_start, b));
    vj_obj_set(o, "store_end_ns", ns_or_null(x->f_end, b));
    return o;
}

static vj_node *steps_json(const exrun *x)
{
    latj *v = vu_xcalloc((size_t)(x->n > 0 ? x->n : 1), sizeof *v);
    size_t na = 0;
    for (long long j = 0; j < x->n; j++)
        if (x->answer[j] != ABSENT)
            v[na++] = (latj){x->answer[j] - x->sched[j], j};
    qsort(v, na, sizeof *v, cmp_slow);
    size_t k = (na + 99) / 100;
    long long sum[6] = {0}, used = 0;
    for (size_t i = 0; i < k; i++) {
        long long j = v[i].j;
        if (!x->v_has[j] || x->send[j] == ABSENT)
            continue; /* answered unsent: a mismatch already */
        long long arr = x->v_arrive[j], ans = x->v_answer[j];
        long long e = x->v_last_end[j] == ABSENT ? arr : x->v_last_end[j];
        sum[0] += v[i].lat;
        sum[1] += x->send[j] - x->sched[j];
        sum[2] += arr - x->send[j];
        sum[3] += e - arr;
        sum[4] += ans - e;
        sum[5] += x->answer[j] - ans;
        used++;
    }
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "answered", vj_new_int((long long)na));
    vj_obj_set(o, "requests", vj_new_int((long long)k));
    vj_obj_set(o, "with_service_row", vj_new_int(used));
    vj_obj_set(o, "fastest_of_them_ms", k ? vj_new_num((double)v[k - 1].lat / 1e6) : vj_new_null());
    static const char *const names[6] = {"latency_ms", "late_ms", "to_service_ms", "lookups_ms",
                                         "score_answer_ms", "back_ms"};
    for (int i = 0; i < 6; i++)
        vj_obj_set(o, names[i], used ? vj_new_num((double)sum[i] / (double)used / 1e6) : vj_new_null());
    free(v);
    return o;
}

/* the breaker's changes from the first reading's rows (rf_run.brk): NULL
 * for an arm without a breaker (the key is left out) */
static vj_node *breaker_json(const rf_run *r)
{
    if (!r->has_brk)
        return NULL;
    static const char *const names[3] = {[DF_CLOSED] = "closed", [DF_OPEN] = "open", [DF_HALF] = "half_open"};
    vj_node *a = vj_new_arr();
    for (size_t i = 0; i < r->brk.n; i++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "t_ms", vj_new_num((double)(r->brk.t[i] - r->t0) / 1e6));
        vj_obj_set(e, "state", vj_new_str(names[r->brk.st[i]]));
        vj_arr_push(a, e);
    }
    return a;
}

/* run.json's facts about the machine, copied as they are */
static vj_node *machine_json(const char *root, const char *run, vj_node **rj_out)
{
    char *p = vu_xasprintf("%s/results/raw/%s/run.json", root, run);
    vj_node *rj = NULL;
    char err[1024];
    int rc = vj_parse_file(p, &rj, err, sizeof err);
    free(p);
    vj_node *o = vj_new_obj();
    static const char *const keys[] = {"seconds", "settle_s", "rate", "cores", "tester_nice", "start_utc",
                                       "end_utc", "idle", "cpu", "peak_rss_kb", "host"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        vj_obj_set(o, keys[i], rc ? vj_new_null() : vj_copy(vj_get(rj, keys[i])));
    *rj_out = rc ? NULL : rj;
    return o;
}

typedef struct {
    long long runs, gate_on, gate_passed, users_max;
    double scheduled_s, wall_s, cpu_s[3], idle_min, steal_max, rss_max[3];
    int has_idle, has_steal, has_users, has_rss[3];
    char first[64], last[64];
} totals;

static const char *const procs[3] = {"tester", "service", "store"};

static void add_totals(totals *t, const vj_node *rj)
{
    t->runs++;
    double v;
    if (!vj_get_num(rj, "seconds", &v))
        t->scheduled_s += v;
    const vj_node *cpu = vj_get(rj, "cpu");
    if (!vj_get_num(cpu, "wall_s", &v))
        t->wall_s += v;
    for (int i = 0; i < 3; i++) {
        const vj_node *pc = vj_get(cpu, procs[i]);
        double u, s;
        if (!vj_get_num(pc, "user_s", &u) && !vj_get_num(pc, "sys_s", &s))
            t->cpu_s[i] += u + s;
        if (!vj_get_num(vj_get(rj, "peak_rss_kb"), procs[i], &v)) {
            if (!t->has_rss[i] || v > t->rss_max[i])
                t->rss_max[i] = v;
            t->has_rss[i] = 1;
        }
    }
    const vj_node *idle = vj_get(rj, "idle");
    const vj_node *en = vj_get(idle, "enabled"), *ps = vj_get(idle, "passed");
    if (en && en->type == VJ_BOOL && en->b)
        t->gate_on++;
    if (ps && ps->type == VJ_BOOL && ps->b)
        t->gate_passed++;
    if (!vj_get_num(idle, "idle_share", &v) && (!t->has_idle || v < t->idle_min)) {
        t->idle_min = v;
        t->has_idle = 1;
    }
    if (!vj_get_num(idle, "steal_share", &v) && (!t->has_steal || v > t->steal_max)) {
        t->steal_max = v;
        t->has_steal = 1;
    }
    static const char *const uk[2] = {"users_start", "users_end"};
    for (int i = 0; i < 2; i++)
        if (!vj_get_num(idle, uk[i], &v) && (!t->has_users || v > t->users_max)) {
            t->users_max = (long long)v;
            t->has_users = 1;
        }
    const char *s = vj_get_str(rj, "start_utc"), *e = vj_get_str(rj, "end_utc");
    if (s && (!t->first[0] || strcmp(s, t->first) < 0))
        snprintf(t->first, sizeof t->first, "%s", s);
    if (e && (!t->last[0] || strcmp(e, t->last) > 0))
        snprintf(t->last, sizeof t->last, "%s", e);
}

static vj_node *totals_json(const totals *t)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "runs", vj_new_int(t->runs));
    vj_obj_set(o, "scheduled_s", vj_new_num(t->scheduled_s));
    vj_obj_set(o, "wall_s", vj_new_num(t->wall_s));
    double all = 0;
    vj_node *c = vj_new_obj(), *r = vj_new_obj();
    for (int i = 0; i < 3; i++) {
        vj_obj_set(c, procs[i], vj_new_num(t->cpu_s[i]));
        double k = t->rss_max[i];
        vj_obj_set(r, procs[i], !t->has_rss[i] ? vj_new_null()
                                : k == floor(k) && fabs(k) < 9e15 ? vj_new_int((long long)k) : vj_new_num(k));
        all += t->cpu_s[i];
    }
    vj_obj_set(o, "cpu_s", c);
    vj_obj_set(o, "cpu_s_total", vj_new_num(all));
    vj_obj_set(o, "peak_rss_kb_max", r);
    vj_obj_set(o, "idle_gate_enabled_runs", vj_new_int(t->gate_on));
    vj_obj_set(o, "idle_gate_passed_runs", vj_new_int(t->gate_passed));
    vj_obj_set(o, "idle_share_min", t->has_idle ? vj_new_num(t->idle_min) : vj_new_null());
    vj_obj_set(o, "steal_share_max", t->has_steal ? vj_new_num(t->steal_max) : vj_new_null());
    vj_obj_set(o, "users_max", t->has_users ? vj_new_int(t->users_max) : vj_new_null());
    vj_obj_set(o, "first_start_utc", t->first[0] ? vj_new_str(t->first) : vj_new_null());
    vj_obj_set(o, "last_end_utc", t->last[0] ? vj_new_str(t->last) : vj_new_null());
    return o;
}

/* the guesses' sentences: column 2 of the guesses file, by id */
static vj_node *guess_texts(const char *path)
{
    vj_node *a = vj_new_arr();
    unsigned char *b = NULL;
    size_t len = 0;
    char err[512];
    if (vu_read_file(path, &b, &len, err, sizeof err))
        return a;
    char *p = (char *)b, *end = p + len;
    int line = 0;
    while (p < end) {
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (e > p && e[-1] == '\r')
            e[-1] = 0;
        if (line++ > 0 && *p) {
            char *t1 = strchr(p, '\t');
            char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
            if (t1 && t2) {
                vj_node *o = vj_new_obj();
                char *id = vu_xstrndup(p, (size_t)(t1 - p)), *g = vu_xstrndup(t1 + 1, (size_t)(t2 - t1 - 1));
                vj_obj_set(o, "id", vj_new_str(id));
                vj_obj_set(o, "guess", vj_new_str(g));
                free(id);
                free(g);
                vj_arr_push(a, o);
            }
        }
        p = e + 1;
    }
    free(b);
    return a;
}

/* the quiet rules used and every accepted run that is not quiet: its rules,
 * the figures they looked at, and per second the machine's steal, the
 * tester's lateness and the measured cores' foreign share (from the first
 * reading, kept in rf_run) */
static vj_node *quiet_json(const study *s)
{
    static const int figs[] = {F_STEAL_SHARE, F_STEAL_SECOND_MAX, F_OTHER_IDLE_SHARE, F_LATE_P99_US, F_LATE_MAX_US,
                               F_FOREIGN_SECOND_MAX};
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "quiet_file_sha256", vj_new_str(s->rules.sha256));
    vj_obj_set(o, "rules", qr_limits_json(&s->rules));
    vj_node *list = vj_new_arr();
    long long runs = 0, quiet = 0;
    for (size_t i = 0; i < s->nruns; i++) {
        const rf_run *r = &s->runs[i];
        if (!r->ok)
            continue;
        runs++;
        if (r->quiet) {
            quiet++;
            continue;
        }
        vj_node *d = vj_new_obj();
        vj_obj_set(d, "run", vj_new_str(r->name));
        vj_obj_set(d, "arm", vj_new_str(r->arm));
        vj_obj_set(d, "round", vj_new_int(r->round));
        vj_obj_set(d, "rules", qr_names(r->broken));
        for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++)
            vj_obj_set(d, rf_fig_name[figs[k]], r->has[figs[k]] ? vj_new_num(r->fig[figs[k]]) : vj_new_null());
        vj_node *ps = vj_new_arr();
        for (int sec = 0; sec < r->nsec; sec++) {
            vj_node *e = vj_new_obj();
            vj_obj_set(e, "s", vj_new_int(sec));
            vj_obj_set(e, "steal_share", vj_new_num(r->steal_sec[sec]));
            vj_obj_set(e, "late_max_us",
                       r->late_has[sec] ? vj_new_num((double)r->late_max_ns[sec] / 1e3) : vj_new_null());
            vj_obj_set(e, "foreign_share", vj_new_num(r->foreign_sec[sec]));   /* NaN: null */
            vj_arr_push(ps, e);
        }
        vj_obj_set(d, "per_second", ps);
        vj_arr_push(list, d);
    }
    vj_obj_set(o, "runs", vj_new_int(runs));
    vj_obj_set(o, "quiet_runs", vj_new_int(quiet));
    vj_obj_set(o, "disturbed_runs", vj_new_int(runs - quiet));
    vj_obj_set(o, "disturbed", list);
    return o;
}

/* one run of ex_compute, on any thread: e[i] and rj[i] (NULL when left out) */
typedef struct {
    const study *s;
    vj_node **e, **rj;
} ex_job;

static void one_run(void *ctx, size_t i)
{
    ex_job *j = ctx;
    const study *s = j->s;
    const rf_run *r = &s->runs[i];
    if (!r->ok)
        return;
    exrun x;
    char err[6144];
    if (read_run(s->root, r->name, (long long)r->fig[F_N], &x, err, sizeof err)) {
        mm_add(NULL, r->name, "extra (second reading of the raw files)", "(readable as in the first reading)", err);
        exrun_free(&x);
        return;
    }
    vj_node *e = vj_new_obj();
    vj_node *counts;
    vj_obj_set(e, "n", vj_new_int(x.n));
    vj_obj_set(e, "exceed", exceed_json(&x, &counts));
    vj_obj_set(e, "exceed_count", counts);
    vj_obj_set(e, "frozen_example", frozen_json(&x));
    vj_obj_set(e, "slowest_steps", steps_json(&x));
    vj_node *brk = breaker_json(r);
    if (brk)
        vj_obj_set(e, "breaker", brk);
    vj_obj_set(e, "machine", machine_json(s->root, r->name, &j->rj[i]));
    j->e[i] = e;
    exrun_free(&x);
}

vj_node *ex_compute(const study *s, const char *guesses_path)
{
    vj_node *o = vj_new_obj();
    vj_node *gns = vj_new_arr(), *gms = vj_new_arr();
    for (int k = 0; k < EX_GRID; k++) {
        vj_arr_push(gns, vj_new_int(ex_grid_ns(k)));
        vj_arr_push(gms, vj_new_num((double)ex_grid_ns(k) / 1e6));
    }
    vj_obj_set(o, "exceed_grid_ns", gns);
    vj_obj_set(o, "exceed_grid_ms", gms);
    vj_node *runs = vj_new_obj();
    totals t;
    memset(&t, 0, sizeof t);
    /* the runs in parallel (vpar.h), merged in run order */
    ex_job j = {s, vu_xcalloc(s->nruns + 1, sizeof(vj_node *)), vu_xcalloc(s->nruns + 1, sizeof(vj_node *))};
    vp_for(s->nruns, one_run, &j);
    for (size_t i = 0; i < s->nruns; i++) {
        if (j.rj[i])
            add_totals(&t, j.rj[i]);
        vj_free(j.rj[i]);
        if (j.e[i])
            vj_obj_set(runs, s->runs[i].name, j.e[i]);
    }
    free(j.e);
    free(j.rj);
    vj_obj_set(o, "runs", runs);
    vj_obj_set(o, "machine", totals_json(&t));
    vj_obj_set(o, "quiet", quiet_json(s));
    vj_obj_set(o, "guesses", guess_texts(guesses_path));
    return o;
}
