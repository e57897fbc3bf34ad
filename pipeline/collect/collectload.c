/* collectload: see collectload.h for the contract. */
#include "collectload.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "faults.h"
#include "paths.h"
#include "pgx.h"
#include "raw4.h"
#include "redact.h"
#include "util.h"

/* Every raw table, the run's row in `runs` last. */
static const char *const TABLES[] = {"requests", "service_requests", "lookups", "machine",
                                     "events",   "syslog",           "runs"};

/* ------------------------------------------------------------ raw files */

typedef struct {
    char *buf;
    size_t len, cap;
    size_t rows;
} sbuf;

static int sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 1 << 20;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *nb = realloc(b->buf, nc);
        if (!nb)
            return -1;
        b->buf = nb;
        b->cap = nc;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    return 0;
}

/* One event file (decoded and checked by lab/raw/raw4.c) into COPY text: the
 * prefix (the run's name, and for a store file its number), the row's
 * number in the file when `numbered`, then the columns in the log table's
 * order (lab/raw/rawfmt.h), tab-separated, \N for absent, absolute times,
 * floats with %.9g (the very text the writer wrote, as the float
 * round-trips).  A service row's store must lie in 1 .. stores. */
static int load_events(const char *path, const rawfmt_file *f, const char *prefix, int numbered, int stores,
                       sbuf *out, char *err, size_t errlen)
{
    const rawfmt_table *t = f->t;
    char line[4096 + RAW_MAXCOLS * 24];
    size_t plen = strlen(prefix);
    if (plen > 4000) {
        ut_seterr(err, errlen, "%s: run name too long", path);
        return -1;
    }
    for (size_t i = 0; i < f->n; i++) {
        if (t->kind == RAWFMT_SERVICE && (f->col[RAWFMT_SERVICE_store][i] < 1 || f->col[RAWFMT_SERVICE_store][i] > stores)) {
            ut_seterr(err, errlen, "%s:%zu: column store: %lld: needs %s (run.json's stores is %d)", path, i + 3,
                      (long long)f->col[RAWFMT_SERVICE_store][i], stores == 2 ? "1 or 2" : "1", stores);
            return -1;
        }
        memcpy(line, prefix, plen);
        size_t o = plen;
        if (numbered) {
            line[o++] = '\t';
            o += ut_put_i64(line + o, (int64_t)out->rows);
        }
        for (int c = 0; c < t->ncols; c++) {
            int64_t v = f->col[c][i];
            line[o++] = '\t';
            if (v == RAW_NONE) {
                memcpy(line + o, "\\N", 2);
                o += 2;
            } else if (t->cols[c].type == 'c') {
                line[o++] = (char)v;
            } else if (t->cols[c].type == 'f') {
                o += (size_t)snprintf(line + o, sizeof line - o, "%.9g", (double)rawfmt_float(v));
            } else {
                o += ut_put_i64(line + o, v);
            }
        }
        line[o++] = '\n';
        if (sb_put(out, line, o) != 0) {
            ut_seterr(err, errlen, "%s: out of memory", path);
            return -1;
        }
        out->rows++;
    }
    return 0;
}

/* ------------------------------------------------------------- run.json */

/* run.json's fields as SQL parameters, in `runs`' column order. */
enum { P_RUN, P_ARM, P_ROUND, P_SECONDS, P_T0, P_FP, P_FAULT, P_FROM, P_TO, P_STORES,
       P_TRIES, P_COOL, P_RBPCT, P_RBFLOOR, P_INFLIGHT, P_HEDGE2, P_JSON, P_ATTEMPT, P_N };

typedef struct {
    const char *p[P_N];
    char round[32], seconds[64], t0[32], fault[16], from[32], to[32], stores[8], attempt[16];
    char spec[5][32]; /* tries, brk_cool_ms, rb_pct, rb_floor, inflight */
    char hedge2[4];   /* arm_spec.hedge2: "0" or "1" ("0" when absent) */
    int nstores;
} run_info;

/* run.json's fault (lab/RAWFORMAT.md): the scenario's name, and for a
 * scenario with a window its bounds in ns from t0 (from, to; both NULL for
 * "no window", to alone NULL for "to the end"). */
static int read_fault(json_t *rj, const char *path, run_info *ri, char *err, size_t errlen)
{
    json_t *jf = json_object_get(rj, "fault");
    const char *name = json_string_value(json_object_get(jf, "name"));
    fault_spec spec;
    char why[160];
    if (!name || strlen(name) >= sizeof ri->fault || fault_parse(name, &spec, why, sizeof why) != 0 ||
        strcmp(fault_name(spec.kind), name)) {
        ut_seterr(err, errlen, "%s: fault.name: needs one of none, down, hang, reset, never, flaky, missing, slow, slowboth",
                  path);
        return -1;
    }
    snprintf(ri->fault, sizeof ri->fault, "%s", name);
    ri->p[P_FAULT] = ri->fault;
    json_t *jfrom = json_object_get(jf, "from_ns"), *jto = json_object_get(jf, "to_ns");
    if (!fault_has_window(spec.kind)) {
        if (jfrom && !json_is_null(jfrom)) {
            ut_seterr(err, errlen, "%s: fault: %s has no window, yet from_ns is given", path, name);
            return -1;
        }
        return 0;
    }
    json_int_t from = json_integer_value(jfrom), to = json_integer_value(jto);
    if (!json_is_integer(jfrom) || from < 0 || !jto || (!json_is_null(jto) && (!json_is_integer(jto) || to <= from))) {
        ut_seterr(err, errlen, "%s: fault: %s needs from_ns >= 0 and to_ns > from_ns or null", path, name);
        return -1;
    }
    snprintf(ri->from, sizeof ri->from, "%lld", (long long)from);
    ri->p[P_FROM] = ri->from;
    if (json_is_integer(jto)) {
        snprintf(ri->to, sizeof ri->to, "%lld", (long long)to);
        ri->p[P_TO] = ri->to;
    }
    return 0;
}

/* The arm_spec columns the statistics use (whole numbers >= 0); hedge2, 0
 * or 1 (absent in a run of an arm file before the column: 0); and
 * `stores`: 1, or 2 exactly when arm_spec.store2 is above 0 or hedge2 is 1. */
static int read_spec(json_t *rj, const char *path, run_info *ri, char *err, size_t errlen)
{
    static const char *const keys[] = {"tries", "brk_cool_ms", "rb_pct", "rb_floor", "inflight"};
    json_t *spec = json_object_get(rj, "arm_spec");
    for (int i = 0; i < 5; i++) {
        json_t *v = json_object_get(spec, keys[i]);
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            ut_seterr(err, errlen, "%s: arm_spec.%s: needs a whole number >= 0", path, keys[i]);
            return -1;
        }
        snprintf(ri->spec[i], sizeof ri->spec[i], "%lld", (long long)json_integer_value(v));
        ri->p[P_TRIES + i] = ri->spec[i];
    }
    json_t *h2 = json_object_get(spec, "hedge2");
    if (h2 && (!json_is_integer(h2) || json_integer_value(h2) < 0 || json_integer_value(h2) > 1)) {
        ut_seterr(err, errlen, "%s: arm_spec.hedge2: needs 0 or 1", path);
        return -1;
    }
    int hedge2 = h2 ? (int)json_integer_value(h2) : 0;
    snprintf(ri->hedge2, sizeof ri->hedge2, "%d", hedge2);
    ri->p[P_HEDGE2] = ri->hedge2;
    json_t *s2 = json_object_get(spec, "store2"), *js = json_object_get(rj, "stores");
    if (!json_is_integer(s2) || json_integer_value(s2) < 0) {
        ut_seterr(err, errlen, "%s: arm_spec.store2: needs a whole number >= 0", path);
        return -1;
    }
    int want = json_integer_value(s2) > 0 || hedge2 ? 2 : 1;
    if (!json_is_integer(js) || json_integer_value(js) != want) {
        ut_seterr(err, errlen, "%s: stores: needs %d (arm_spec.store2 is %lld, hedge2 %d)", path, want,
                  (long long)json_integer_value(s2), hedge2);
        return -1;
    }
    ri->nstores = want;
    snprintf(ri->stores, sizeof ri->stores, "%d", want);
    ri->p[P_STORES] = ri->stores;
    return 0;
}

static int read_run_json(json_t *rj, const char *path, run_info *ri, char *err, size_t errlen)
{
    ri->p[P_ARM] = json_string_value(json_object_get(rj, "arm"));
    json_t *jr = json_object_get(rj, "round"), *js = json_object_get(rj, "seconds"), *jt = json_object_get(rj, "t0_ns");
    if (!ri->p[P_ARM] || !json_is_integer(jr) || !json_is_number(js) || !json_is_integer(jt)) {
        ut_seterr(err, errlen, "%s: needs arm, round, seconds and t0_ns", path);
        return -1;
    }
    snprintf(ri->round, sizeof ri->round, "%lld", (long long)json_integer_value(jr));
    snprintf(ri->seconds, sizeof ri->seconds, "%.17g", json_number_value(js));
    snprintf(ri->t0, sizeof ri->t0, "%lld", (long long)json_integer_value(jt));
    ri->p[P_ROUND] = ri->round;
    ri->p[P_SECONDS] = ri->seconds;
    ri->p[P_T0] = ri->t0;
    return read_fault(rj, path, ri, err, errlen) != 0 || read_spec(rj, path, ri, err, errlen) != 0 ? -1 : 0;
}

/* ------------------------------------------------------------ one run */

/* The run's system log lines (its record, provenance/runs/<rec>.json),
 * redacted, as COPY text rows of `syslog` under the name run. */
static void syslog_rows(const char *root, const char *run, const char *rec, sbuf *lg)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/" PATH_RUNS_DIR "/%s.json", root, rec);
    json_t *pj = json_load_file(path, 0, NULL);
    json_t *sl = pj ? json_object_get(pj, "syslog") : NULL;
    if (!sl) {
        json_decref(pj);
        return;
    }
    const char *src = json_string_value(json_object_get(sl, "source"));
    const char *source = src ? src : "none";
    json_t *lines = json_object_get(sl, "lines"), *v;
    size_t i;
    json_array_foreach(lines, i, v)
    {
        const char *line = json_string_value(v);
        if (!line)
            continue;
        char red[2048], row[2300];
        redact_line(line, red, sizeof red);
        /* COPY text format: escape backslash, tab, newline */
        size_t o2 = 0;
        for (const char *c = red; *c && o2 < sizeof row - 4; c++) {
            if (*c == '\\' || *c == '\t' || *c == '\n' || *c == '\r') {
                row[o2++] = '\\';
                row[o2++] = *c == '\t' ? 't' : *c == '\n' ? 'n' : *c == '\r' ? 'r' : '\\';
            } else
                row[o2++] = *c;
        }
        row[o2] = 0;
        char full[2600];
        int fl = snprintf(full, sizeof full, "%s\t%s\t%zu\t%s\n", run, source, i, row);
        sb_put(lg, full, (size_t)fl);
    }
    json_decref(pj);
}

/* The run's buffers of COPY text, one per table. */
enum { B_TESTER, B_SERVICE, B_STORE, B_MACHINE, B_EVENTS, B_SYSLOG, B_N };

/* The reference the "=" scores are decoded by (ROOT/results/reference, as
 * raw4_read_run reads it: a folder without scores.tsv gives an empty one,
 * so that "=" is refused), read once per collect, on the first run loaded,
 * not once per run (1.3 MB of scores parsed 520 times was a sixth of the
 * loader's CPU on the full study). */
static struct {
    char dir[4200];
    raw4_ref ref;
    int loaded;
} the_ref;

static const raw4_ref *reference(const char *root, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/" PATH_REFERENCE_DIR, root);
    if (the_ref.loaded && strcmp(the_ref.dir, dir) == 0)
        return &the_ref.ref;
    raw4_ref_free(&the_ref.ref);
    memset(&the_ref, 0, sizeof the_ref);
    int found = 0;
    if (raw4_ref_load(dir, &the_ref.ref, &found, err, errlen) != 0) {
        raw4_ref_free(&the_ref.ref);
        memset(&the_ref, 0, sizeof the_ref);
        return NULL;
    }
    snprintf(the_ref.dir, sizeof the_ref.dir, "%s", dir);
    the_ref.loaded = 1;
    return &the_ref.ref;
}

/* The run's six files, decoded (raw format 4, by run.json rj read from
 * rjpath; the reference of "=" scores from ROOT/results/reference), into
 * the buffers: raw4_read_run's reading, with the reference read once. */
static int read_files(const char *root, const char *dir, const char *run, json_t *rj, const char *rjpath, int stores,
                      sbuf *b, char *err, size_t errlen)
{
    char s1[300], s2[300], path[4300];
    snprintf(s1, sizeof s1, "%s\t1", run);
    snprintf(s2, sizeof s2, "%s\t2", run);
    raw4_run rr;
    memset(&rr, 0, sizeof rr);
    raw4_params p;
    const raw4_ref *ref = NULL;
    if (raw4_params_json(rj, rjpath, &p, err, errlen) != 0 || !(ref = reference(root, err, errlen)) ||
        raw4_decode(dir, &p, ref, &rr, err, errlen) != 0)
        return -1;
    for (int k = RAW4_MACHINE; k <= RAW4_EVENTS; k++) {
        snprintf(path, sizeof path, "%s/%s.tsv.gz", dir, RAW4_NAMES[k]);
        if (rawfmt_read(path, k == RAW4_MACHINE ? RAWFMT_MACHINE : RAWFMT_EVENTS, &rr.f[k], err, errlen) != 0) {
            raw4_run_free(&rr);
            return -1;
        }
    }
    const struct {
        int file, buf, numbered;
        const char *prefix;
    } plan[] = {{RAW4_TESTER, B_TESTER, 0, run},     {RAW4_SERVICE, B_SERVICE, 0, run}, {RAW4_STORE, B_STORE, 0, s1},
                {RAW4_STORE2, B_STORE, 0, s2},       {RAW4_MACHINE, B_MACHINE, 0, run}, {RAW4_EVENTS, B_EVENTS, 1, run}};
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < sizeof plan / sizeof plan[0]; k++) {
        if (plan[k].file == RAW4_STORE2 && stores != 2)
            continue;
        snprintf(path, sizeof path, "%s/%s.tsv.gz", dir, RAW4_NAMES[plan[k].file]);
        rc = load_events(path, &rr.f[plan[k].file], plan[k].prefix, plan[k].numbered, stores, &b[plan[k].buf], err,
                         errlen);
    }
    raw4_run_free(&rr);
    return rc;
}

/* The run's old rows out (when it was loaded before: `old`), the new ones
 * in, in one transaction.  The machine's rows go through machine_in, the
 * loader's staging: a temporary table of the connection (each lane has its
 * own), emptied at each commit or rollback, from which they go on into
 * machine numbered by k, each reading's number within its scope. */
static int replace_run(PGconn *db, const run_info *ri, const sbuf *b, int old, char *err, size_t errlen)
{
    if (pgx_exec(db, "BEGIN", err, errlen) != 0 ||
        pgx_exec(db, "CREATE TEMP TABLE IF NOT EXISTS machine_in (LIKE machine) ON COMMIT DELETE ROWS", err,
                 errlen) != 0 ||
        (old && collectload_forget(db, ri->p[P_RUN], err, errlen) != 0))
        return -1;
    return pgx_copy(db, "COPY requests FROM STDIN", b[B_TESTER].buf, b[B_TESTER].len, err, errlen) != 0 ||
                   pgx_copy(db, "COPY service_requests FROM STDIN", b[B_SERVICE].buf, b[B_SERVICE].len, err,
                            errlen) != 0 ||
                   pgx_copy(db, "COPY lookups FROM STDIN", b[B_STORE].buf, b[B_STORE].len, err, errlen) != 0 ||
                   pgx_copy(db, "COPY machine_in (run, t_ns, scope, total, idle, steal, lab) FROM STDIN",
                            b[B_MACHINE].buf, b[B_MACHINE].len, err, errlen) != 0 ||
                   /* k: the reading's number within its scope, in time order */
                   pgx_exec(db,
                            "INSERT INTO machine (run, k, t_ns, scope, total, idle, steal, lab) "
                            "SELECT run, row_number() OVER (PARTITION BY scope ORDER BY t_ns) - 1, t_ns, scope, "
                            "total, idle, steal, lab FROM machine_in",
                            err, errlen) != 0 ||
                   pgx_copy(db, "COPY events FROM STDIN", b[B_EVENTS].buf, b[B_EVENTS].len, err, errlen) != 0 ||
                   (b[B_SYSLOG].len &&
                    pgx_copy(db, "COPY syslog FROM STDIN", b[B_SYSLOG].buf, b[B_SYSLOG].len, err, errlen) != 0) ||
                   pgx_exec_params(db,
                                   "INSERT INTO runs (run, arm, round, seconds, t0_ns, fingerprint, fault, "
                                   "win_from_ns, win_to_ns, stores, tries, brk_cool_ms, rb_pct, rb_floor, "
                                   "inflight, hedge2, run_json, attempt) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
                                   "$9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
                                   P_N, ri->p, err, errlen) != 0 ||
                   pgx_exec(db, "COMMIT", err, errlen) != 0
               ? -1
               : 0;
}

/* "<run>-a<N>" (N >= 1, no leading zero): 0 with the run's name in base and
 * N in *n, else -1. */
static int attempt_name(const char *name, char *base, size_t bl, int *n)
{
    const char *a = strrchr(name, '-');
    if (!a || a == name || a[1] != 'a' || a[2] < '1' || a[2] > '9' || strlen(a + 2) > 6 ||
        (size_t)(a - name) >= bl)
        return -1;
    for (const char *p = a + 2; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    snprintf(base, bl, "%.*s", (int)(a - name), name);
    *n = atoi(a + 2);
    return 0;
}

/* One folder read and checked, ready to load (everything but the
 * database): ri's pointers point into the job and its run.json. */
struct job {
    char run[256], fp[65];
    int attempt, old;
    run_info ri;
    sbuf b[B_N];
    json_t *rj;
    char *rjtext;
    int bad; /* read and refused: err says why */
    char err[UT_ERRLEN];
};

static void job_free(struct job *j)
{
    if (!j)
        return;
    free(j->rjtext);
    for (int i = 0; i < B_N; i++)
        free(j->b[i].buf);
    json_decref(j->rj);
    free(j);
}

/* rel/<run>/ under root read as the run `run`; attempt 0 for a run, 1 for a
 * kept attempt (its record <run>.attempt-N.json).  0, or -1 with j->err. */
static int job_read(struct job *j, const char *root, const char *rel)
{
    char dir[4096], path[4200], base[256] = "", rec[300];
    const char *run = j->run;
    char *err = j->err;
    size_t errlen = sizeof j->err;
    snprintf(dir, sizeof dir, "%s/%s/%s", root, rel, run);
    int n = 0;
    if (j->attempt && attempt_name(run, base, sizeof base, &n) != 0) {
        ut_seterr(err, errlen, "%s: not a kept attempt's name (<arm>-r<round>-a<N>, N from 1)", dir);
        return -1;
    }
    snprintf(rec, sizeof rec, "%s", run);
    if (j->attempt)
        snprintf(rec, sizeof rec, "%s.attempt-%d", base, n);
    struct stat sb;
    snprintf(path, sizeof path, "%s/store2.tsv.gz", dir);
    int has2 = stat(path, &sb) == 0;
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_error_t je;
    if (!(j->rj = json_load_file(path, 0, &je))) {
        ut_seterr(err, errlen, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    run_info *ri = &j->ri;
    ri->p[P_RUN] = j->run;
    ri->p[P_FP] = j->fp;
    if (read_run_json(j->rj, path, ri, err, errlen) != 0)
        return -1;
    if (j->attempt) { /* the attempt of the run its run.json names */
        char want[300];
        snprintf(want, sizeof want, "%s-r%s", ri->p[P_ARM], ri->round);
        if (strcmp(want, base) != 0) {
            ut_seterr(err, errlen, "%s: arm, round: %s round %s, yet the folder is named for an attempt of %s", path,
                      ri->p[P_ARM], ri->round, base);
            return -1;
        }
        snprintf(ri->attempt, sizeof ri->attempt, "%d", n);
        ri->p[P_ATTEMPT] = ri->attempt;
    }
    if (has2 != (ri->nstores == 2)) {
        ut_seterr(err, errlen, "%s/store2.tsv.gz: %s, yet run.json's stores is %d", dir,
                  has2 ? "present" : "missing", ri->nstores);
        return -1;
    }
    if (read_files(root, dir, run, j->rj, path, ri->nstores, j->b, err, errlen) != 0)
        return -1;
    syslog_rows(root, run, rec, &j->b[B_SYSLOG]);
    j->rjtext = json_dumps(j->rj, JSON_COMPACT | JSON_SORT_KEYS);
    ri->p[P_JSON] = j->rjtext;
    return 0;
}

/* The job's rows into the database, in one transaction. */
static int job_write(PGconn *db, struct job *j, char *err, size_t errlen)
{
    if (replace_run(db, &j->ri, j->b, j->old, err, errlen) != 0) {
        char e2[UT_ERRLEN];
        snprintf(e2, sizeof e2, "%s: %s", j->run, err);
        ut_seterr(err, errlen, "%s (nothing of this run was loaded)", e2);
        pgx_exec(db, "ROLLBACK", e2, sizeof e2);
        return -1;
    }
    const sbuf *b = j->b;
    printf("collect: loaded %s%s: %zu requests, %zu service rows, %zu lookups (%d store%s), %zu machine rows, "
           "%zu service events\n",
           j->attempt ? "the kept attempt " : "", j->run, b[B_TESTER].rows, b[B_SERVICE].rows, b[B_STORE].rows,
           j->ri.nstores, j->ri.nstores > 1 ? "s" : "", b[B_MACHINE].rows, b[B_EVENTS].rows);
    return 0;
}

/* Loaded already (1: the same fingerprint), loaded before from other files
 * (*old: its rows are replaced), or new (nothing to delete: a run's rows
 * are there only with its row of runs, one transaction); -1 on error. */
static int loaded_already(PGconn *db, const char *run, const char *fp, int *old, char *err, size_t errlen)
{
    const char *p1[] = {run, fp};
    PGresult *q = PQexecParams(db, "SELECT fingerprint = $2 FROM runs WHERE run = $1", 2, NULL, p1, NULL, NULL, 0);
    if (PQresultStatus(q) != PGRES_TUPLES_OK) {
        ut_seterr(err, errlen, "database: %s", PQerrorMessage(db));
        err[strcspn(err, "\n")] = 0;
        PQclear(q);
        return -1;
    }
    *old = PQntuples(q) == 1;
    int have = *old && PQgetvalue(q, 0, 0)[0] == 't';
    PQclear(q);
    return have;
}

static struct job *job_new(const char *run, int attempt, const char *fp)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j || strlen(run) >= sizeof j->run) {
        free(j);
        return NULL;
    }
    snprintf(j->run, sizeof j->run, "%s", run);
    snprintf(j->fp, sizeof j->fp, "%s", fp);
    j->attempt = attempt;
    return j;
}

/* One folder, rel/<name>/ under root, loaded as the run `name`. */
static int load_folder(PGconn *db, const char *root, const char *rel, const char *run, int attempt, const char *fp,
                       char *err, size_t errlen)
{
    struct job *j = job_new(run, attempt, fp);
    if (!j) {
        ut_seterr(err, errlen, "%s: name too long or out of memory", run);
        return -1;
    }
    int have = loaded_already(db, run, fp, &j->old, err, errlen), rc = have < 0 ? -1 : have ? 0 : 1;
    if (rc == 1 && job_read(j, root, rel) != 0) {
        ut_seterr(err, errlen, "%s", j->err);
        rc = -1;
    }
    if (rc == 1 && job_write(db, j, err, errlen) != 0)
        rc = -1;
    job_free(j);
    return rc;
}

int collectload_run(PGconn *db, const char *root, const char *run, const char *fp, char *err, size_t errlen)
{
    return load_folder(db, root, PATH_RAW_DIR, run, 0, fp, err, errlen);
}

int collectload_attempt(PGconn *db, const char *root, const char *name, const char *fp, char *err, size_t errlen)
{
    return load_folder(db, root, PATH_ATTEMPTS_DIR, name, 1, fp, err, errlen);
}

/* ------------------------------------------------- many, read ahead */

/* The folders to load, read by one thread up to AHEAD folders ahead of the
 * ones being written, and written by one thread per connection (a lane),
 * each taking the next folder in order: the decoding (client CPU) and
 * PostgreSQL's COPY (a server process per connection) overlap instead of
 * taking turns.  The reader touches no database.  Each folder is written in
 * its own transaction, so a lane's rows never wait for the other's; the
 * first error reported is the one of the first folder (in order) that
 * fails, as one at a time, though a folder after it that the other lane was
 * writing may be loaded by then (the next collect skips it: same
 * fingerprint). */
enum { AHEAD = 3 };

typedef struct {
    const char *root;
    const collectload_item *items;
    int n;
    struct job **jobs;    /* [n] read (NULL: not to load, or written) */
    int *skip;            /* [n] 1: loaded already */
    int *st;              /* [n] 1 written or skipped, -1 failed (its job's err says why), 0 not yet */
    int nread, ntaken;    /* folders read; taken by a lane, in order */
    int rdone, stop;      /* the reader is done; a folder failed: no lane takes another */
    int loaded, replaced; /* folders loaded now; of them, loaded before from other files */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} ahead;

static void *reader(void *arg)
{
    ahead *a = arg;
    for (int i = 0; i < a->n; i++) {
        pthread_mutex_lock(&a->mu);
        while (!a->stop && i - a->ntaken >= AHEAD)
            pthread_cond_wait(&a->cv, &a->mu);
        int stop = a->stop;
        pthread_mutex_unlock(&a->mu);
        if (stop)
            break;
        int bad = 0;
        if (!a->skip[i]) {
            const collectload_item *it = &a->items[i];
            bad = a->jobs[i]->bad = job_read(a->jobs[i], a->root, it->attempt ? PATH_ATTEMPTS_DIR : PATH_RAW_DIR) != 0;
        }
        pthread_mutex_lock(&a->mu);
        a->nread = i + 1;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
        if (bad) /* a lane takes it and reports it */
            break;
    }
    pthread_mutex_lock(&a->mu);
    a->rdone = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

typedef struct {
    ahead *a;
    PGconn *db;
} lane;

static void *writer(void *arg)
{
    lane *w = arg;
    ahead *a = w->a;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        while (!a->stop && a->ntaken < a->n && a->nread <= a->ntaken && !a->rdone)
            pthread_cond_wait(&a->cv, &a->mu);
        if (a->stop || a->ntaken >= a->n || a->nread <= a->ntaken) {
            pthread_mutex_unlock(&a->mu);
            break;
        }
        int i = a->ntaken++;
        pthread_cond_broadcast(&a->cv); /* the reader may read one more */
        pthread_mutex_unlock(&a->mu);
        struct job *j = a->jobs[i];
        int ok = a->skip[i] || (!j->bad && job_write(w->db, j, j->err, sizeof j->err) == 0);
        pthread_mutex_lock(&a->mu);
        a->st[i] = ok ? 1 : -1;
        if (!ok)
            a->stop = 1;
        else if (!a->skip[i]) {
            a->loaded++;
            a->replaced += j->old;
        }
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
        if (ok) { /* a failed job is kept for its err */
            job_free(j);
            a->jobs[i] = NULL;
        }
    }
    return NULL;
}

int collectload_all(PGconn *const *dbs, int ndb, const char *root, const collectload_item *items, int n, int *done,
                    int *loaded, int *replaced, char *err, size_t errlen)
{
    *done = 0;
    *loaded = 0;
    *replaced = 0;
    ahead a = {.root = root, .items = items, .n = n};
    a.jobs = calloc((size_t)n + 1, sizeof *a.jobs);
    a.skip = calloc((size_t)n + 1, sizeof *a.skip);
    a.st = calloc((size_t)n + 1, sizeof *a.st);
    lane *lanes = calloc((size_t)ndb + 1, sizeof *lanes);
    pthread_t *th = calloc((size_t)ndb + 1, sizeof *th);
    int rc = a.jobs && a.skip && a.st && lanes && th && ndb >= 1 ? 0 : -1;
    if (rc != 0)
        ut_seterr(err, errlen, "collect: out of memory");
    /* which are loaded already, asked before the reader starts */
    for (int i = 0; rc == 0 && i < n; i++) {
        a.jobs[i] = job_new(items[i].name, items[i].attempt, items[i].fp);
        if (!a.jobs[i]) {
            ut_seterr(err, errlen, "%s: name too long or out of memory", items[i].name);
            rc = -1;
            break;
        }
        int have = loaded_already(dbs[0], items[i].name, items[i].fp, &a.jobs[i]->old, err, errlen);
        if (have < 0)
            rc = -1;
        a.skip[i] = have == 1;
    }
    int started = 0; /* threads started: the reader, then the lanes */
    if (rc == 0) {
        pthread_mutex_init(&a.mu, NULL);
        pthread_cond_init(&a.cv, NULL);
        for (int k = 0; k <= ndb; k++) {
            lanes[k] = (lane){&a, k ? dbs[k - 1] : NULL};
            if (pthread_create(&th[k], NULL, k ? writer : reader, k ? (void *)&lanes[k] : (void *)&a) != 0) {
                ut_seterr(err, errlen, "collect: cannot start the loader's threads");
                pthread_mutex_lock(&a.mu);
                a.stop = 1;
                pthread_cond_broadcast(&a.cv);
                pthread_mutex_unlock(&a.mu);
                rc = -1;
                break;
            }
            started++;
        }
        for (int k = 0; k < started; k++)
            pthread_join(th[k], NULL);
        pthread_mutex_destroy(&a.mu);
        pthread_cond_destroy(&a.cv);
        /* the folders loaded or skipped before the first that failed */
        while (*done < n && a.st[*done] == 1)
            (*done)++;
        if (rc == 0 && *done < n) {
            rc = -1;
            if (a.st[*done] == -1 && a.jobs[*done])
                ut_seterr(err, errlen, "%s", a.jobs[*done]->err);
            else
                ut_seterr(err, errlen, "%s: not loaded (the loader stopped before it)", items[*done].name);
        }
        *loaded = a.loaded;
        *replaced = a.replaced;
    }
    for (int i = 0; a.jobs && i < n; i++)
        job_free(a.jobs[i]);
    free(a.jobs);
    free(a.skip);
    free(a.st);
    free(lanes);
    free(th);
    return rc;
}

int collectload_forget(PGconn *db, const char *run, char *err, size_t errlen)
{
    return collectload_forget_many(db, &run, 1, err, errlen);
}

/* One DELETE per table for all of them (the raw tables have no index on
 * run: each DELETE reads the whole table once), the names as one text[]
 * parameter: {"a","b"}, each quoted, \ and " escaped. */
int collectload_forget_many(PGconn *db, const char *const *runs, int n, char *err, size_t errlen)
{
    if (n <= 0)
        return 0;
    sbuf a = {0};
    int rc = sb_put(&a, "{", 1);
    for (int i = 0; rc == 0 && i < n; i++) {
        rc |= sb_put(&a, i ? ",\"" : "\"", i ? 2 : 1);
        for (const char *c = runs[i]; rc == 0 && *c; c++)
            rc |= (*c == '\\' || *c == '"' ? sb_put(&a, "\\", 1) : 0) | sb_put(&a, c, 1);
        rc |= sb_put(&a, "\"", 1);
    }
    rc |= sb_put(&a, "}", 1);
    if (rc != 0) {
        free(a.buf);
        ut_seterr(err, errlen, "collect: out of memory");
        return -1;
    }
    a.buf[a.len] = 0;
    const char *v[] = {a.buf};
    for (size_t t = 0; rc == 0 && t < sizeof TABLES / sizeof TABLES[0]; t++) {
        char sql[128];
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run = ANY ($1::text[])", TABLES[t]);
        rc = pgx_exec_params(db, sql, 1, v, err, errlen);
    }
    free(a.buf);
    return rc;
}
