/* collectpred: see collectpred.h for the contract. */
#include "collectpred.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pgx.h"
#include "util.h"

struct collectpred {
    json_t *root; /* checked whole by collectpred_read */
};

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

static int check_run(const char *path, const char *run, json_t *o, char *err, size_t errlen)
{
    if (!*run || !json_is_object(o)) {
        ut_seterr(err, errlen, "%s: runs.%s: not an object named by a run", path, run);
        return -1;
    }
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

static int check_claim(const char *path, size_t i, json_t *o, char *err, size_t errlen)
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
    return 0;
}

static int check(const char *path, json_t *root, char *err, size_t errlen)
{
    if (!json_is_object(root)) {
        ut_seterr(err, errlen, "%s: not a JSON object", path);
        return -1;
    }
    json_t *fmt = json_object_get(root, "format"), *runs = json_object_get(root, "runs"),
           *odds = json_object_get(root, "odds");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "lab-prediction 1")) {
        ut_seterr(err, errlen, "%s: format: not \"lab-prediction 1\"", path);
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
    const char *run;
    json_t *o;
    json_object_foreach(runs, run, o) if (check_run(path, run, o, err, errlen) != 0) return -1;
    size_t i;
    json_array_foreach(odds, i, o) if (check_claim(path, i, o, err, errlen) != 0) return -1;
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
    if (check(path, root, err, errlen) != 0) {
        json_decref(root);
        return -1;
    }
    *out = malloc(sizeof **out);
    (*out)->root = root;
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
    if (pgx_exec(db, "INSERT INTO prediction VALUES ('lab-prediction 1')", err, errlen) != 0)
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
    return 0;
}

void collectpred_free(collectpred *p)
{
    if (!p)
        return;
    json_decref(p->root);
    free(p);
}
