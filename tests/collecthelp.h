/* collecthelp: what the collect suite's test files share (header-only):
 * hand-made raw files written through lab/rawfmt's writer, run.json, a whole
 * hand-made run from its requests (put_run), running build/bin/collect
 * against the suite's private PostgreSQL (ct_url; the run folders under
 * ct_root, both set by tests/test_collect.c's suite init) and reading
 * results.json back. */
#ifndef TESTS_COLLECTHELP_H
#define TESTS_COLLECTHELP_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rawfmt.h"
#include "util.h"

extern char ct_url[512], ct_root[64];

static inline int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

#define S 1000000000LL
#define MS 1000000LL
#define US 1000LL
#define T0 (5 * S)

/* rows: nrows rows of the kind's columns, in lab/rawfmt.h's order. */
static inline void write_log(const char *path, rawfmt_kind kind, const int64_t *rows, size_t nvals)
{
    rawlog *r;
    char err[UT_ERRLEN];
    int ncols = rawfmt_table_of(kind)->ncols;
    cr_assert_eq(nvals % (size_t)ncols, 0, "%s: rows of %d values", path, ncols);
    cr_assert_eq(rawfmt_log_open(&r, path, kind, err, sizeof err), 0, "%s", err);
    for (size_t i = 0; i < nvals / (size_t)ncols; i++)
        rawlog_row(r, rows + i * (size_t)ncols);
    cr_assert_eq(rawlog_close(r, err, sizeof err), 0, "%s", err);
}

#define N RAW_NONE
#define NOL N, N, N /* a lookup not tried: aK_start_t, aK_end_t, aK_out absent */
/* arm_spec's columns collect reads: an arm without a defence, one try or three */
#define SPEC_T1 "{\"tries\":1,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":0,\"store2\":0}"
#define SPEC_T3 "{\"tries\":3,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":0,\"store2\":0}"
#define NOFAULT "{\"name\":\"none\",\"spec\":\"none\",\"window\":null}"

/* run.json of a hand-made run: what collect reads of it. */
static inline void write_run_json(const char *dir, const char *arm, int round, int seconds, const char *fault,
                                  int stores, const char *spec)
{
    char p[300];
    snprintf(p, sizeof p, "%s/run.json", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fprintf(f,
            "{\"arm\":\"%s\",\"round\":%d,\"seconds\":%d,\"t0_ns\":%lld,\"fault\":%s,\"stores\":%d,"
            "\"arm_spec\":%s}",
            arm, round, seconds, (long long)T0, fault, stores, spec);
    fclose(f);
}

/* build/bin/collect on ct_root with more options (extra), its output in out. */
static inline int collect_with(const char *extra, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "build/bin/collect --root %s --pgurl '%s' %s 2>&1", ct_root, ct_url, extra);
    FILE *p = popen(cmd, "r");
    size_t len = fread(out, 1, n - 1, p);
    out[len] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int collect(char *out, size_t n) { return collect_with("", out, n); }

static inline json_t *results(void)
{
    char p[256];
    snprintf(p, sizeof p, "%s/results/results.json", ct_root);
    json_error_t je;
    json_t *r = json_load_file(p, 0, &je);
    cr_assert_not_null(r, "%s: %s", p, je.text);
    return r;
}

static inline double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    cr_assert(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

/* The object `field` of a run has exactly one count per code of `codes`,
 * the i-th equal to want[i]. */
static inline void check_codes(json_t *run, const char *field, const char *codes, const int *want)
{
    json_t *o = json_object_get(run, field);
    cr_assert_eq(json_object_size(o), strlen(codes), "%s: one count per code of %s", field, codes);
    for (size_t i = 0; codes[i]; i++) {
        char k[2] = {codes[i], 0};
        cr_assert_eq(num(o, k), want[i], "%s.%s: %g, by hand %d", field, k, num(o, k), want[i]);
    }
}

/* One number PostgreSQL prints for `sql` (psql -tA). */
static inline long long psql_num(const char *sql)
{
    char cmd[2048], out[64] = "";
    snprintf(cmd, sizeof cmd, "psql -tA '%s' -c \"%s\" 2>/dev/null", ct_url, sql);
    FILE *q = popen(cmd, "r");
    cr_assert_not_null(q);
    cr_assert_not_null(fgets(out, sizeof out, q), "%s", sql);
    pclose(q);
    return atoll(out);
}

/* One request: the tester's row and, when the service logged it (store 1 or
 * 2; 0: never logged), its row of V with arrive_t = sched and req = j. */
typedef struct {
    int64_t sched;   /* ns from T0 */
    char kind;       /* L K D E */
    int64_t latency; /* ns; -1: no answer */
    int store;
    struct {
        int64_t at; /* tried at T0 + at; ended 1 ms later (R O B Y: at once) */
        char out;   /* 0: not tried */
    } a[5];
} hreq;

#define L_(ms) ((ms) * MS)  /* whole ms from T0 */
#define U_(us) ((us) * US)  /* whole us from T0 */
/* a store row: request, attempt, arrival (ns from T0); answered after 1 ms */
#define SROW(req, att, at) (req), (att), (req), T0 + (at), T0 + (at), T0 + (at) + MS, MS, 0, 'A', 0, 0
/* a breaker row (ns from T0) */
#define BRK(at, what, tries, wait) T0 + (at), (what), -1, (tries), (wait)

typedef struct {
    const char *arm, *fault, *spec;
    int round, seconds, stores;
    const hreq *q;
    size_t nq;
    const int64_t *st, *st2, *ev; /* rows of store, store2, events */
    size_t nst, nst2, nev;        /* values */
} hrun;

static inline void put_run(const hrun *h)
{
    char dir[256], p[300], err[UT_ERRLEN];
    snprintf(dir, sizeof dir, "%s/results/raw/%s-r%d", ct_root, h->arm, h->round);
    cr_assert_eq(ut_mkdir_p(dir, err, sizeof err), 0);
    int64_t *t = calloc(h->nq * RAWFMT_TESTER_NCOLS, sizeof *t), *v = calloc(h->nq * RAWFMT_SERVICE_NCOLS, sizeof *v);
    size_t nt = 0, nv = 0;
    for (size_t j = 0; j < h->nq; j++) {
        const hreq *d = &h->q[j];
        int64_t sched = T0 + d->sched, ans = d->latency < 0 ? N : sched + d->latency;
        int status = d->latency < 0 ? 0 : d->kind == 'E' ? 504 : 200;
        int64_t tr[] = {(int64_t)j, (int64_t)j, sched, sched + 10 * US, ans, status, d->kind,
                        d->kind == 'E' ? N : raw_f(0.5f), 0, 0};
        memcpy(t + nt, tr, sizeof tr);
        nt += RAWFMT_TESTER_NCOLS;
        if (!d->store)
            continue;
        int64_t *vr = v + nv;
        int64_t head[] = {(int64_t)j, (int64_t)j, sched, ans == N ? N : ans - 10 * US, status, d->kind, 0, d->store};
        memcpy(vr, head, sizeof head);
        for (int k = 0; k < 5; k++) {
            int64_t *a = vr + RAWFMT_SERVICE_a0_start_t + 3 * k;
            char o = d->a[k].out;
            a[0] = o ? T0 + d->a[k].at : N;
            a[1] = o ? a[0] + (strchr("ROBY", o) ? 0 : MS) : N;
            a[2] = o ? o : N;
            vr[RAWFMT_SERVICE_lookups] += o != 0;
        }
        nv += RAWFMT_SERVICE_NCOLS;
    }
    snprintf(p, sizeof p, "%s/tester.tsv.gz", dir);
    write_log(p, RAWFMT_TESTER, t, nt);
    snprintf(p, sizeof p, "%s/service.tsv.gz", dir);
    write_log(p, RAWFMT_SERVICE, v, nv);
    snprintf(p, sizeof p, "%s/store.tsv.gz", dir);
    write_log(p, RAWFMT_STORE, h->st, h->nst);
    if (h->st2) {
        snprintf(p, sizeof p, "%s/store2.tsv.gz", dir);
        write_log(p, RAWFMT_STORE, h->st2, h->nst2);
    }
    snprintf(p, sizeof p, "%s/machine.tsv.gz", dir);
    write_log(p, RAWFMT_MACHINE, NULL, 0);
    snprintf(p, sizeof p, "%s/events.tsv.gz", dir);
    write_log(p, RAWFMT_EVENTS, h->ev, h->nev);
    write_run_json(dir, h->arm, h->round, h->seconds, h->fault, h->stores, h->spec);
    free(t);
    free(v);
}

static inline json_t *run_of(json_t *r, const char *run)
{
    json_t *o = json_object_get(json_object_get(r, "runs"), run);
    cr_assert_not_null(o, "no run %s", run);
    return o;
}

static inline void check_nulls(json_t *run, const char *const *names, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(json_is_null(json_object_get(run, names[i])), "%s is null: %s", names[i], why);
}

static inline void check_list(json_t *run, const char *field, const int *want, size_t n)
{
    json_t *l = json_object_get(run, field);
    cr_assert(json_is_array(l) && json_array_size(l) == n, "%s: a list of %zu", field, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(json_integer_value(json_array_get(l, i)), want[i], "%s[%zu]", field, i);
}

#endif
