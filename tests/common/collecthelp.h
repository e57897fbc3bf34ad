/* collecthelp: what the collect suite's test files share (header-only):
 * hand-made raw files written through lab/rawfmt's writer (the tester's,
 * the service's and the store's as the processes' ns logs, *.log.gz),
 * run.json and with it the run driver's rewrite of the logs into raw format
 * 4 (lab/raw/raw4.h), a whole hand-made run from its requests (put_run), running build/bin/collect
 * against the suite's private PostgreSQL (ct_url; the run folders under
 * ct_root, both set by tests/pipeline/test_collect.c's suite init) and reading
 * results.json back. */
#ifndef TESTS_COLLECTHELP_H
#define TESTS_COLLECTHELP_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw4.h"
#include "util.h"
#include "waits.h"

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

/* rows: nrows rows of the kind's columns, in lab/raw/rawfmt.h's order.  The
 * tester's, the service's and the store's go to the log (X.tsv.gz ->
 * X.log.gz), which write_run_json rewrites into format 4. */
static inline void write_log(const char *path, rawfmt_kind kind, const int64_t *rows, size_t nvals)
{
    rawlog *r;
    char err[UT_ERRLEN], lp[512];
    snprintf(lp, sizeof lp, "%s", path);
    size_t n = strlen(lp);
    if ((kind == RAWFMT_TESTER || kind == RAWFMT_SERVICE || kind == RAWFMT_STORE) && n > 7 &&
        !strcmp(lp + n - 7, ".tsv.gz"))
        memcpy(lp + n - 7, ".log.gz", 7);
    int ncols = rawfmt_table_of(kind)->ncols;
    cr_assert_eq(nvals % (size_t)ncols, 0, "%s: rows of %d values", path, ncols);
    cr_assert_eq(rawfmt_log_open(&r, lp, kind, err, sizeof err), 0, "%s", err);
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

/* The hand-made runs are closed loops (rate 0: sched_t = send_t, so any
 * scheduled time can be written) over a table of HROWS rows (row = j), at
 * the arm's wait (arm_spec's "wait", Z when the spec has none). */
#define HROWS 1000000

/* A log read, changed by fix (row by row) and written again. */
static inline void fix_log(const char *path, rawfmt_kind kind, void (*fix)(int64_t *v, const char *spec, int round),
                           const char *spec, int round)
{
    rawfmt_file f;
    char err[UT_ERRLEN];
    cr_assert_eq(rawfmt_read(path, kind, &f, err, sizeof err), 0, "%s", err);
    rawlog *w;
    cr_assert_eq(rawfmt_log_open(&w, path, kind, err, sizeof err), 0, "%s", err);
    int64_t v[RAW_MAXCOLS];
    for (size_t i = 0; i < f.n; i++) {
        for (int c = 0; c < f.t->ncols; c++)
            v[c] = f.col[c][i];
        fix(v, spec, round);
        cr_assert_eq(rawlog_row(w, v), 0);
    }
    cr_assert_eq(rawlog_close(w, err, sizeof err), 0, "%s", err);
    rawfmt_file_free(&f);
}

static inline char spec_wait(const char *spec)
{
    const char *w = strstr(spec, "\"wait\":\"");
    return w ? w[8] : 'Z';
}

/* A closed loop's request is sent at its scheduled time (no lateness). */
static inline void fix_send(int64_t *v, const char *spec, int round)
{
    (void)spec, (void)round;
    v[RAWFMT_TESTER_send_t] = v[RAWFMT_TESTER_sched_t];
}

/* A lookup's planned wait is the dice's: an arm that names its wait gives
 * the dice's values by hand (checked here); without, wait Z: 0. */
static inline void fix_planned(int64_t *v, const char *spec, int round)
{
    int64_t w = waits_planned_ns((wait_kind)spec_wait(spec), (uint32_t)round, (uint32_t)v[RAWFMT_STORE_req],
                                 (uint32_t)v[RAWFMT_STORE_attempt]);
    if (strstr(spec, "\"wait\""))
        cr_assert_eq(v[RAWFMT_STORE_planned_ns], w, "(%lld, %lld): planned %lld by hand, the dice %lld",
                     (long long)v[RAWFMT_STORE_req], (long long)v[RAWFMT_STORE_attempt],
                     (long long)v[RAWFMT_STORE_planned_ns], (long long)w);
    v[RAWFMT_STORE_planned_ns] = w;
}

/* run.json's `files` as the run driver writes them (lab/RAWFORMAT.md):
 * each event file's sha256 and size, which collect holds the files to
 * (pipeline/common/rawdigest.h); called by write_run_json, and again by a
 * test that changes a raw file on purpose and means it to be read. */
static inline void record_digests(const char *dir)
{
    static const char *const EVF[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz",
                                      "machine.tsv.gz", "events.tsv.gz", "store2.tsv.gz"};
    char p[300], err[UT_ERRLEN], sha[65];
    snprintf(p, sizeof p, "%s/run.json", dir);
    json_error_t je;
    json_t *rj = json_load_file(p, 0, &je), *files = json_object();
    cr_assert_not_null(rj, "%s: %s", p, je.text);
    for (size_t k = 0; k < sizeof EVF / sizeof EVF[0]; k++) {
        char f[300];
        uint64_t size;
        snprintf(f, sizeof f, "%s/%s", dir, EVF[k]);
        if (access(f, F_OK) != 0)
            continue;
        cr_assert_eq(ut_sha256_file(f, sha, &size, err, sizeof err), 0, "%s", err);
        json_object_set_new(files, EVF[k], json_pack("{s:s,s:I}", "sha256", sha, "size", (json_int_t)size));
    }
    json_object_set_new(rj, "files", files);
    cr_assert_eq(json_dump_file(rj, p, JSON_COMPACT), 0, "%s", p);
    json_decref(rj);
}

/* run.json of a hand-made run: what collect reads of it; and the logs
 * (when there: a second call only changes run.json) rewritten into format 4
 * as the run driver does, after fix_send and fix_planned. */
static inline void write_run_json(const char *dir, const char *arm, int round, int seconds, const char *fault,
                                  int stores, const char *spec)
{
    char p[300], err[UT_ERRLEN];
    raw4_params rp = {.t0 = T0, .test_rows = HROWS, .round = round, .rate = 0, .seconds = seconds,
                      .freeze = 0.01, .wait = spec_wait(spec), .stores = 1};
    snprintf(p, sizeof p, "%s/tester.log.gz", dir);
    if (access(p, F_OK) == 0) {
        rawfmt_file t;
        fix_log(p, RAWFMT_TESTER, fix_send, spec, round);
        cr_assert_eq(rawfmt_read(p, RAWFMT_TESTER, &t, err, sizeof err), 0, "%s", err);
        rp.requests = (int64_t)t.n;
        rawfmt_file_free(&t);
        for (int k = 0; k < 2; k++) {
            snprintf(p, sizeof p, "%s/store%s.log.gz", dir, k ? "2" : "");
            if (access(p, F_OK) == 0) {
                fix_log(p, RAWFMT_STORE, fix_planned, spec, round);
                rp.stores = k + 1;
            }
        }
        raw4_stats st;
        cr_assert_eq(raw4_rewrite(dir, &rp, NULL, &st, err, sizeof err), 0, "%s", err);
    } else {
        rawfmt_file t;
        snprintf(p, sizeof p, "%s/tester.tsv.gz", dir);
        cr_assert_eq(rawfmt_read(p, RAWFMT_TESTER4, &t, err, sizeof err), 0, "%s", err);
        rp.requests = (int64_t)t.n;
        rawfmt_file_free(&t);
    }
    /* arm_spec with its wait */
    char sp[1024];
    snprintf(sp, sizeof sp, "%s", spec);
    if (!strstr(spec, "\"wait\"")) {
        size_t n = strlen(sp);
        cr_assert(n > 2 && sp[n - 1] == '}');
        snprintf(sp + n - 1, sizeof sp - (n - 1), ",\"wait\":\"Z\"}");
    }
    snprintf(p, sizeof p, "%s/run.json", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fprintf(f,
            "{\"arm\":\"%s\",\"round\":%d,\"seconds\":%d,\"t0_ns\":%lld,\"fault\":%s,\"stores\":%d,"
            "\"arm_spec\":%s,\"requests\":%lld,\"test_rows\":%d,\"rate\":0,\"freeze_share\":0.01}",
            arm, round, seconds, (long long)T0, fault, stores, sp, (long long)rp.requests, HROWS);
    fclose(f);
    record_digests(dir);
}

/* build/bin/collect on ct_root with more options (extra), its output in out. */
static inline int collect_with(const char *extra, char *out, size_t n)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "build/bin/collect --root %s --pgurl '%s' %s 2>&1", ct_root, ct_url, extra);
    FILE *p = popen(cmd, "r");
    size_t len = fread(out, 1, n - 1, p);
    out[len] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int collect(char *out, size_t n) { return collect_with("", out, n); }

/* Links in the folder dir to files of this checkout: link[i][0] (a path
 * from the checkout's root) as dir/link[i][1], for collect --pipeline DIR. */
static inline void link_files(const char *dir, const char *const link[][2], int n)
{
    char cwd[4096], from[4400], to[4400], err[UT_ERRLEN];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    for (int i = 0; i < n; i++) {
        snprintf(from, sizeof from, "%s/%s", cwd, link[i][0]);
        snprintf(to, sizeof to, "%s/%s", dir, link[i][1]);
        char *slash = strrchr(to, '/');
        *slash = 0;
        cr_assert_eq(ut_mkdir_p(to, err, sizeof err), 0, "%s", err);
        *slash = '/';
        cr_assert_eq(symlink(from, to), 0, "%s", to);
    }
}

/* The file at path is a (na bytes) byte for byte; what: the message. */
static inline void same_bytes(const char *path, const char *a, size_t na, const char *what)
{
    char *b, err[UT_ERRLEN];
    size_t nb;
    cr_assert_eq(ut_read_file(path, &b, &nb, err, sizeof err), 0, "%s", err);
    cr_assert(na == nb && !memcmp(a, b, na), "%s: %s is not what it was", what, path);
    free(b);
}

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
