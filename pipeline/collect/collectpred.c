/* collectpred: see collectpred.h for the contract. */
#include "collectpred.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectmap.h"
#include "pgx.h"
#include "util.h"

struct collectpred {
    json_t *root; /* checked whole by collectpred_read */
    int format;   /* 1 or 2 */
};

#define FORMAT_1 "lab-prediction 1"
#define FORMAT_2 "lab-prediction 2"

/* A number in [lo, hi] (hi NAN: no upper bound; lo_open: above lo). */
static int num_in(const char *path, const char *where, json_t *o, const char *f, double lo, int lo_open, double hi,
                  char *err, size_t errlen)
{
    json_t *v = json_object_get(o, f);
    double x = json_number_value(v);
    if (!json_is_number(v) || (lo_open ? !(x > lo) : !(x >= lo)) || x > hi) {
        char want[96];
        if (hi != hi)
            snprintf(want, sizeof want, "not a number %s %g", lo_open ? "above" : ">=", lo);
        else
            snprintf(want, sizeof want, "not a number in %g .. %g", lo, hi);
        ut_seterr(err, errlen, "%s: %s.%s: %s", path, where, f, v ? want : "missing");
        return -1;
    }
    return 0;
}

/* An integer in [lo, hi]. */
static int int_in(const char *path, const char *where, json_t *o, const char *f, json_int_t lo, json_int_t hi,
                  char *err, size_t errlen)
{
    json_t *v = json_object_get(o, f);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        char want[96];
        snprintf(want, sizeof want, "not an integer in %lld .. %lld", (long long)lo, (long long)hi);
        ut_seterr(err, errlen, "%s: %s.%s: %s", path, where, f, v ? want : "missing");
        return -1;
    }
    return 0;
}

static int boolean(const char *path, const char *where, json_t *o, const char *f, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, f);
    if (!json_is_boolean(v)) {
        ut_seterr(err, errlen, "%s: %s.%s: %s", path, where, f, v ? "not true or false" : "missing");
        return -1;
    }
    return 0;
}

static int nonempty(const char *path, const char *where, json_t *o, const char *f, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, f);
    if (!json_is_string(v) || !*json_string_value(v)) {
        ut_seterr(err, errlen, "%s: %s.%s: %s", path, where, f, v ? "not a non-empty string" : "missing");
        return -1;
    }
    return 0;
}

/* A number or null (the simulation may have no answered request). */
static int num_or_null(const char *path, const char *run, json_t *o, const char *f, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, f);
    if (!v || !(json_is_number(v) || json_is_null(v))) {
        ut_seterr(err, errlen, "%s: runs.%s.%s: %s", path, run, f, v ? "not a number or null" : "missing");
        return -1;
    }
    return 0;
}

static int check_run(const char *path, int format, const char *run, json_t *o, char *err, size_t errlen)
{
    if (!*run || !json_is_object(o)) {
        ut_seterr(err, errlen, "%s: runs.%s: not an object named by a run", path, run);
        return -1;
    }
    char where[160];
    snprintf(where, sizeof where, "runs.%s", run);
    if (format == 2 && num_in(path, where, o, "seconds", 0, 1, NAN, err, errlen) != 0)
        return -1;
    if (num_or_null(path, run, o, "p99_ms", err, errlen) || num_or_null(path, run, o, "standin_share", err, errlen) ||
        num_or_null(path, run, o, "lookups_per_request", err, errlen))
        return -1;
    json_t *fl = json_object_get(o, "flooded"), *from = json_object_get(o, "flood_from_s");
    if (!json_is_boolean(fl)) {
        ut_seterr(err, errlen, "%s: runs.%s.flooded: %s", path, run, fl ? "not true or false" : "missing");
        return -1;
    }
    /* flood_from_s: the flood's first second when flooded, else null */
    int ok = json_is_true(fl) ? json_is_integer(from) && json_integer_value(from) >= 0 &&
                                    json_integer_value(from) <= INT_MAX
                              : json_is_null(from);
    if (!ok) {
        ut_seterr(err, errlen, "%s: runs.%s.flood_from_s: %s", path, run,
                  !from              ? "missing"
                  : json_is_true(fl) ? "not a whole second >= 0 although flooded is true"
                                     : "not null although flooded is false");
        return -1;
    }
    return 0;
}

/* format 2's `twin` of a run: null or absent, or {replicas >= 1, flooded in
 * 0 .. replicas, p_flood = flooded / replicas (within 1e-9: a decimal of 9
 * digits or more), standin_share_q three numbers in [0, 1] ascending}; a
 * twin beside a `noise` that is null or absent is refused. */
static int check_twin(const char *path, const char *run, json_t *o, int has_noise, char *err, size_t errlen)
{
    json_t *t = json_object_get(o, "twin");
    if (!t || json_is_null(t))
        return 0;
    char where[200];
    snprintf(where, sizeof where, "runs.%s.twin", run);
    if (!json_is_object(t)) {
        ut_seterr(err, errlen, "%s: %s: not an object or null", path, where);
        return -1;
    }
    if (!has_noise) {
        ut_seterr(err, errlen, "%s: %s: not null although the top level's noise is null or missing", path, where);
        return -1;
    }
    if (int_in(path, where, t, "replicas", 1, INT_MAX, err, errlen) != 0 ||
        int_in(path, where, t, "flooded", 0, json_integer_value(json_object_get(t, "replicas")), err, errlen) != 0 ||
        num_in(path, where, t, "p_flood", 0, 0, 1, err, errlen) != 0)
        return -1;
    double want = (double)json_integer_value(json_object_get(t, "flooded")) /
                  (double)json_integer_value(json_object_get(t, "replicas"));
    if (fabs(json_number_value(json_object_get(t, "p_flood")) - want) > 1e-9) {
        ut_seterr(err, errlen, "%s: %s.p_flood: %.17g is not flooded / replicas (%.17g)", path, where,
                  json_number_value(json_object_get(t, "p_flood")), want);
        return -1;
    }
    json_t *q = json_object_get(t, "standin_share_q");
    int ok = json_is_array(q) && json_array_size(q) == 3;
    for (size_t i = 0; ok && i < 3; i++) {
        json_t *v = json_array_get(q, i);
        double x = json_number_value(v);
        ok = json_is_number(v) && x >= 0 && x <= 1 && (i == 0 || x >= json_number_value(json_array_get(q, i - 1)));
    }
    if (!ok) {
        ut_seterr(err, errlen, "%s: %s.standin_share_q: %s", path, where,
                  q ? "not three numbers in 0 .. 1 in ascending order [q05, q50, q95]" : "missing");
        return -1;
    }
    return 0;
}

/* format 2's top-level `noise`: null or absent (no twin), or {path, sha256
 * non-empty strings, replicas >= 1}; *has 1 when it is an object. */
static int check_noise(const char *path, json_t *root, int *has, char *err, size_t errlen)
{
    json_t *n = json_object_get(root, "noise");
    *has = 0;
    if (!n || json_is_null(n))
        return 0;
    if (!json_is_object(n)) {
        ut_seterr(err, errlen, "%s: noise: not an object or null", path);
        return -1;
    }
    if (nonempty(path, "noise", n, "path", err, errlen) != 0 || nonempty(path, "noise", n, "sha256", err, errlen) != 0 ||
        int_in(path, "noise", n, "replicas", 1, INT_MAX, err, errlen) != 0)
        return -1;
    *has = 1;
    return 0;
}

static int check_claim(const char *path, int format, size_t i, json_t *o, char *err, size_t errlen)
{
    if (!json_is_object(o)) {
        ut_seterr(err, errlen, "%s: odds[%zu]: not an object", path, i);
        return -1;
    }
    const char *str[] = {"claim", "arm", "event"};
    for (int s = 0; s < 3; s++) {
        json_t *v = json_object_get(o, str[s]);
        if (!json_is_string(v) || !*json_string_value(v)) {
            ut_seterr(err, errlen, "%s: odds[%zu].%s: %s", path, i, str[s], v ? "not a non-empty string" : "missing");
            return -1;
        }
    }
    const char *ev = json_string_value(json_object_get(o, "event"));
    if (strcmp(ev, "flooded") && strcmp(ev, "p99_over_1s")) {
        ut_seterr(err, errlen, "%s: odds[%zu].event: \"%s\" is not flooded or p99_over_1s", path, i, ev);
        return -1;
    }
    json_t *sec = json_object_get(o, "seconds");
    if (!json_is_number(sec) || !(json_number_value(sec) > 0)) {
        ut_seterr(err, errlen, "%s: odds[%zu].seconds: %s", path, i, sec ? "not a number above 0" : "missing");
        return -1;
    }
    json_t *n = json_object_get(o, "sim_n"), *k = json_object_get(o, "sim_k");
    if (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > INT_MAX) {
        ut_seterr(err, errlen, "%s: odds[%zu].sim_n: %s", path, i, n ? "not an integer >= 1" : "missing");
        return -1;
    }
    if (!json_is_integer(k) || json_integer_value(k) < 0 || json_integer_value(k) > json_integer_value(n)) {
        ut_seterr(err, errlen, "%s: odds[%zu].sim_k: %s", path, i, k ? "not an integer in 0 .. sim_n" : "missing");
        return -1;
    }
    char where[32];
    snprintf(where, sizeof where, "odds[%zu]", i);
    if (format == 2 && (nonempty(path, where, o, "seeds", err, errlen) != 0 ||
                        int_in(path, where, o, "planned_rounds", 0, INT_MAX, err, errlen) != 0 ||
                        num_in(path, where, o, "p_seen", 0, 0, 1, err, errlen) != 0))
        return -1;
    return 0;
}

/* One entry of `sizing`: format 1's q, rounds_90 and decides_in_5, or
 * format 2's seconds_a, seconds_b, q, rounds, power, rounds_90, decides. */
static int check_sizing(const char *path, int format, size_t i, json_t *o, char *err, size_t errlen)
{
    char where[32];
    snprintf(where, sizeof where, "sizing[%zu]", i);
    if (!json_is_object(o)) {
        ut_seterr(err, errlen, "%s: %s: not an object", path, where);
        return -1;
    }
    if (nonempty(path, where, o, "a", err, errlen) || nonempty(path, where, o, "b", err, errlen) ||
        nonempty(path, where, o, "figure", err, errlen) || nonempty(path, where, o, "seeds", err, errlen))
        return -1;
    if (format == 2 && (num_in(path, where, o, "seconds_a", 0, 1, NAN, err, errlen) ||
                        num_in(path, where, o, "seconds_b", 0, 1, NAN, err, errlen)))
        return -1;
    if (num_in(path, where, o, "q", 0, 0, 1, err, errlen))
        return -1;
    if (format == 2 && (int_in(path, where, o, "rounds", 0, INT_MAX, err, errlen) ||
                        num_in(path, where, o, "power", 0, 0, 1, err, errlen)))
        return -1;
    if (int_in(path, where, o, "rounds_90", 0, 20, err, errlen) ||
        boolean(path, where, o, format == 2 ? "decides" : "decides_in_5", err, errlen))
        return -1;
    return 0;
}

/* The whole file; *format 1 or 2. */
static int check(const char *path, json_t *root, int *format, char *err, size_t errlen)
{
    if (!json_is_object(root)) {
        ut_seterr(err, errlen, "%s: not a JSON object", path);
        return -1;
    }
    json_t *fmt = json_object_get(root, "format"), *runs = json_object_get(root, "runs"),
           *odds = json_object_get(root, "odds"), *sizing = json_object_get(root, "sizing");
    const char *f = json_string_value(fmt);
    *format = f && !strcmp(f, FORMAT_1) ? 1 : f && !strcmp(f, FORMAT_2) ? 2 : 0;
    if (!*format) {
        ut_seterr(err, errlen, "%s: format: not \"" FORMAT_1 "\" or \"" FORMAT_2 "\"", path);
        return -1;
    }
    if (!json_is_object(runs)) {
        ut_seterr(err, errlen, "%s: runs: %s", path, runs ? "not an object" : "missing");
        return -1;
    }
    if (!json_is_array(odds)) {
        ut_seterr(err, errlen, "%s: odds: %s", path, odds ? "not a list" : "missing");
        return -1;
    }
    int has_noise = 0;
    if (*format == 2 && check_noise(path, root, &has_noise, err, errlen) != 0)
        return -1;
    const char *run;
    json_t *o;
    json_object_foreach(runs, run, o) if (check_run(path, *format, run, o, err, errlen) != 0) return -1;
    if (*format == 2)
        json_object_foreach(runs, run, o) if (check_twin(path, run, o, has_noise, err, errlen) != 0) return -1;
    size_t i;
    json_array_foreach(odds, i, o) if (check_claim(path, *format, i, o, err, errlen) != 0) return -1;
    if (!json_is_array(sizing)) {
        ut_seterr(err, errlen, "%s: sizing: %s", path, sizing ? "not a list" : "missing");
        return -1;
    }
    json_array_foreach(sizing, i, o) if (check_sizing(path, *format, i, o, err, errlen) != 0) return -1;
    return 0;
}

int collectpred_read(const char *path, collectpred **out, char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        ut_seterr(err, errlen, "%s:%d: not JSON: %s", path, je.line, je.text);
        return -1;
    }
    int format = 0;
    if (check(path, root, &format, err, errlen) != 0 ||
        (format == 2 && collectmap_check(path, root, err, errlen) != 0)) {
        json_decref(root);
        return -1;
    }
    if (!(*out = malloc(sizeof **out))) {
        json_decref(root);
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    (*out)->root = root;
    (*out)->format = format;
    return 0;
}

/* A JSON number as PostgreSQL reads it back exactly; NULL for null. */
static const char *num_text(json_t *v, char *buf, size_t n)
{
    if (json_is_null(v))
        return NULL;
    if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else
        snprintf(buf, n, "%.17g", json_real_value(v));
    return buf;
}

int collectpred_load(PGconn *db, const collectpred *p, char *err, size_t errlen)
{
    if (!p)
        return 0;
    const char *fv[] = {p->format == 2 ? FORMAT_2 : FORMAT_1};
    if (pgx_exec_params(db, "INSERT INTO prediction VALUES ($1)", 1, fv, err, errlen) != 0)
        return -1;
    const char *run;
    json_t *o;
    json_object_foreach(json_object_get(p->root, "runs"), run, o)
    {
        char a[40], b[40], c[40], d[40];
        const char *v[] = {run,
                           num_text(json_object_get(o, "p99_ms"), a, sizeof a),
                           num_text(json_object_get(o, "standin_share"), b, sizeof b),
                           num_text(json_object_get(o, "lookups_per_request"), c, sizeof c),
                           json_is_true(json_object_get(o, "flooded")) ? "true" : "false",
                           num_text(json_object_get(o, "flood_from_s"), d, sizeof d)};
        if (pgx_exec_params(db, "INSERT INTO predicted_runs VALUES ($1, $2, $3, $4, $5, $6)", 6, v, err, errlen) != 0)
            return -1;
    }
    /* format 2's twin: the noise (one row, none without) and each run's twin */
    json_t *noise = json_object_get(p->root, "noise");
    if (p->format == 2 && json_is_object(noise)) {
        char rp[24];
        const char *v[] = {json_string_value(json_object_get(noise, "path")),
                           json_string_value(json_object_get(noise, "sha256")),
                           num_text(json_object_get(noise, "replicas"), rp, sizeof rp)};
        if (pgx_exec_params(db, "INSERT INTO prediction_noise VALUES ($1, $2, $3)", 3, v, err, errlen) != 0)
            return -1;
        int nt = 0; /* the twin's place in the file: the order its means add up in (stats.sql) */
        json_object_foreach(json_object_get(p->root, "runs"), run, o)
        {
            json_t *t = json_object_get(o, "twin"), *q = json_object_get(t, "standin_share_q");
            if (!json_is_object(t))
                continue;
            char a[24], b[24], c[40], q0[40], q1[40], q2[40], kt[16];
            snprintf(kt, sizeof kt, "%d", nt++);
            const char *w[] = {run,
                               num_text(json_object_get(t, "replicas"), a, sizeof a),
                               num_text(json_object_get(t, "flooded"), b, sizeof b),
                               num_text(json_object_get(t, "p_flood"), c, sizeof c),
                               num_text(json_array_get(q, 0), q0, sizeof q0),
                               num_text(json_array_get(q, 1), q1, sizeof q1),
                               num_text(json_array_get(q, 2), q2, sizeof q2),
                               kt};
            if (pgx_exec_params(db, "INSERT INTO predicted_twin VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", 8, w, err,
                                errlen) != 0)
                return -1;
        }
    }
    size_t i;
    json_array_foreach(json_object_get(p->root, "odds"), i, o)
    {
        char k[24], sk[24], sn[24], se[40];
        snprintf(k, sizeof k, "%zu", i);
        const char *v[] = {k,
                           json_string_value(json_object_get(o, "claim")),
                           json_string_value(json_object_get(o, "arm")),
                           json_string_value(json_object_get(o, "event")),
                           num_text(json_object_get(o, "sim_k"), sk, sizeof sk),
                           num_text(json_object_get(o, "sim_n"), sn, sizeof sn),
                           num_text(json_object_get(o, "seconds"), se, sizeof se)};
        if (pgx_exec_params(db, "INSERT INTO odds_claims VALUES ($1, $2, $3, $4, $5, $6, $7)", 7, v, err, errlen) != 0)
            return -1;
    }
    /* the sizing's q per verdict (both formats have it): the verdicts' sizing_q */
    json_array_foreach(json_object_get(p->root, "sizing"), i, o)
    {
        char k[24], q[40];
        snprintf(k, sizeof k, "%zu", i);
        const char *v[] = {k, json_string_value(json_object_get(o, "a")), json_string_value(json_object_get(o, "b")),
                           json_string_value(json_object_get(o, "figure")),
                           num_text(json_object_get(o, "q"), q, sizeof q)};
        if (pgx_exec_params(db, "INSERT INTO predicted_sizing VALUES ($1, $2, $3, $4, $5)", 5, v, err, errlen) != 0)
            return -1;
    }
    if (p->format == 2 && collectmap_load(db, p->root, err, errlen) != 0)
        return -1;
    return 0;
}

void collectpred_free(collectpred *p)
{
    if (!p)
        return;
    json_decref(p->root);
    free(p);
}
