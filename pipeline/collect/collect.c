/* collect: raw files -> PostgreSQL -> statistics -> results/results.json.
 *
 *   collect --root OUT --pgurl URL [--data data] [--pipeline pipeline]
 *
 * 1. Connects (an unreachable database: one message naming it, exit 1,
 *    nothing written), reads OUT/results/prediction.json when there is one
 *    (pipeline/collect/collectpred.c: checked whole; a fault is named and nothing
 *    is written) and applies pipeline/collect/schema.sql.
 * 2. Loads every run folder OUT/results/raw/<run>/ whose fingerprint is not
 *    loaded yet, each checked whole first and loaded in one transaction
 *    (pipeline/collect/collectload.c: raw format 3, a second store's rows kept apart
 *    by their store number).  Runs no longer on disk are deleted.
 * 3. Loads pipeline/comparisons.tsv, data/guesses.tsv (predicates parsed
 *    here into clauses, grammar in data/README.md) and the prediction, runs
 *    pipeline/collect/stats.sql.
 * 4. Exports results/results.json (pipeline/RESULTS.md), atomically, and the
 *    stage's provenance record.
 * A rerun, or a rerun after an interruption, gives the same results.json.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmptab.h"
#include "collectload.h"
#include "collectpred.h"
#include "opt.h"
#include "pgx.h"
#include "prov.h"
#include "quiet.h"
#include "tsv.h"
#include "util.h"

typedef struct {
    const char *root, *pgurl, *data, *pipe, *quiet;
} opts;

/* ----------------------------------------------- comparisons and guesses */

/* pipeline/comparisons.tsv through its one reader, the prediction's too
 * (lab/core/cmptab.h: "#" lines are comments); k is a comparison's place. */
static int load_comparisons(PGconn *db, const opts *o, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/comparisons.tsv", o->pipe);
    cmptab t;
    if (cmptab_load(path, &t, err, errlen) != 0)
        return -1;
    int rc = pgx_exec(db, "DELETE FROM comparisons", err, errlen);
    for (size_t i = 0; rc == 0 && i < t.n; i++) {
        char k[16];
        snprintf(k, sizeof k, "%d", t.v[i].k);
        const char *v[] = {k, t.v[i].a, t.v[i].b, t.v[i].figure, t.v[i].note};
        rc = pgx_exec_params(db, "INSERT INTO comparisons VALUES ($1, $2, $3, $4, $5)", 5, v, err, errlen);
    }
    cmptab_free(&t);
    return rc;
}

/* Every figure of data/README.md's table (the guess grammar's). */
static const char *const FIGURES[] = {
    "n", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "live_share", "standin_share", "last_known_share",
    "default_share", "error_share", "lookups_per_request", "slot_ms_per_lookup", "slot_ms_per_request",
    "cut_short", "late_p99_us", "answers_per_s", "lost", "retried_permanent", "during_lookups_per_request",
    "first_live_after_ms", "recovered_s",
    "before_requests", "before_live", "before_standins", "before_errors", "before_lost", "before_lookups",
    "before_unanswered_lookups",
    "during_requests", "during_live", "during_standins", "during_errors", "during_lost", "during_lookups",
    "during_unanswered_lookups",
    "after_requests", "after_live", "after_standins", "after_errors", "after_lost", "after_lookups",
    "after_unanswered_lookups",
    "brk_opened", "brk_half_opened", "brk_closed", "brk_transitions", "brk_open_ms", "brk_half_ms", "brk_closed_ms",
    "brk_illegal", "budget_refused", "budget_over", "inflight_refused", "store1_during_live_share",
    "store2_during_live_share", "store2_during_p99_ms", "store2_p99_ms", "before_lookups_100ms",
    "recovery_lookups_100ms_max", "longest_line", "freezes", "freeze_share", "false_timeouts"};

static int is_figure(const char *s)
{
    for (size_t i = 0; i < sizeof FIGURES / sizeof FIGURES[0]; i++)
        if (!strcmp(s, FIGURES[i]))
            return 1;
    return 0;
}

/* "ARM.figure" -> arm, figure */
static int term(char *s, char **arm, char **fig)
{
    char *dot = strrchr(s, '.');
    if (!dot || dot == s || !is_figure(dot + 1))
        return -1;
    *dot = 0;
    *arm = s;
    *fig = dot + 1;
    return 0;
}

static int parse_clause(PGconn *db, int k, int c, char *cl, const char *where, char *err, size_t errlen)
{
    char *w[8];
    int n = 0;
    for (char *t = strtok(cl, " "); t; t = strtok(NULL, " "))
        if (n < 8)
            w[n++] = t;
        else
            n++;
    char ks[16], cs[16];
    snprintf(ks, sizeof ks, "%d", k);
    snprintf(cs, sizeof cs, "%d", c);
    if (n == 4 && (!strcmp(w[0], "apart") || !strcmp(w[0], "close"))) {
        if (!is_figure(w[3])) {
            ut_seterr(err, errlen, "%s: \"%s\" is not a figure (see data/README.md)", where, w[3]);
            return -1;
        }
        const char *v[] = {ks, cs, w[0], w[1], w[3], w[2]};
        return pgx_exec_params(db,
                           "INSERT INTO guess_clauses (k, c, kind, arm, figure, arm2, figure2) "
                           "VALUES ($1, $2, $3, $4, $5, $6, $5)",
                           6, v, err, errlen);
    }
    char *arm, *fig, *arm2 = NULL, *fig2 = NULL;
    if ((n != 4 && n != 6) || (strcmp(w[0], "every") && strcmp(w[0], "any") && strcmp(w[0], "median")) ||
        term(w[1], &arm, &fig) != 0 ||
        (strcmp(w[2], "<") && strcmp(w[2], "<=") && strcmp(w[2], ">") && strcmp(w[2], ">=")) ||
        (n == 6 && (strcmp(w[4], "*") || term(w[5], &arm2, &fig2) != 0))) {
        ut_seterr(err, errlen,
                  "%s: clause %d is not \"every|any|median ARM.figure OP NUMBER [* ARM.figure]\" "
                  "nor \"apart|close ARM ARM figure\"",
                  where, c + 1);
        return -1;
    }
    double num;
    char why[96];
    if (opt_f64(w[3], -HUGE_VAL, HUGE_VAL, &num, why, sizeof why) != 0) {
        ut_seterr(err, errlen, "%s: clause %d: \"%s\": %s", where, c + 1, w[3], why);
        return -1;
    }
    const char *v[] = {ks, cs, w[0], arm, fig, w[2], w[3], arm2, fig2};
    return pgx_exec_params(db,
                       "INSERT INTO guess_clauses (k, c, kind, quant, arm, figure, op, num, arm2, figure2) "
                       "VALUES ($1, $2, 'cmp', $3, $4, $5, $6, $7, $8, $9)",
                       9, v, err, errlen);
}

/* One guess of data/guesses.tsv: its row, then its clauses (split on " and "). */
static int guess_row(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    PGconn *db = ctx;
    char k[16], where[4200];
    snprintf(k, sizeof k, "%zu", at->record);
    snprintf(where, sizeof where, "%s:%zu", at->path, at->line);
    const char *v[] = {k, f[0], f[1], f[2]};
    int rc = pgx_exec_params(db, "INSERT INTO guesses VALUES ($1, $2, $3, $4)", 4, v, err, errlen);
    char *pred = strdup(f[2]), *p = pred;
    if (!pred) {
        ut_seterr(err, errlen, "%s: out of memory", where);
        return -1;
    }
    for (int c = 0; rc == 0 && p; c++) {
        char *and = strstr(p, " and ");
        if (and)
            *and = 0;
        rc = parse_clause(db, (int)at->record, c, p, where, err, errlen);
        p = and ? and + 5 : NULL;
    }
    free(pred);
    return rc;
}

/* data/guesses.tsv through the one TSV reader (lab/base/tsv.h: "#" lines
 * are comments): "id guess predicate"; k is a guess's place. */
static int load_guesses(PGconn *db, const opts *o, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/guesses.tsv", o->data);
    if (pgx_exec(db, "DELETE FROM guesses", err, errlen) != 0 ||
        pgx_exec(db, "DELETE FROM guess_clauses", err, errlen) != 0)
        return -1;
    tsv_spec s = {path, "id\tguess\tpredicate", 3, 0};
    return tsv_read(&s, guess_row, db, err, errlen);
}

/* ------------------------------------------------------------- export */

/* Numbers PostgreSQL printed, read back with opt_i64 / opt_f64: the first
 * that does not parse is named in err and export fails. */
typedef struct {
    char *err;
    size_t errlen;
    int bad;
} exporter;

static json_t *number(exporter *x, const char *v, int integer, const char *where)
{
    char why[96];
    int64_t i;
    double d;
    if (integer ? opt_i64(v, INT64_MIN, INT64_MAX, &i, why, sizeof why) == 0
                : opt_f64(v, -HUGE_VAL, HUGE_VAL, &d, why, sizeof why) == 0)
        return integer ? json_integer((json_int_t)i) : json_real(d);
    if (!x->bad++)
        ut_seterr(x->err, x->errlen, "database: %s: \"%.40s\": %s", where, v, why);
    return json_null();
}

static json_t *cell(exporter *x, PGresult *r, int row, int c)
{
    if (PQgetisnull(r, row, c))
        return json_null();
    const char *v = PQgetvalue(r, row, c);
    Oid t = PQftype(r, c);
    if (t == 20 || t == 23 || t == 21) /* int8, int4, int2 */
        return number(x, v, 1, PQfname(r, c));
    if (t == 701 || t == 700 || t == 1700) /* float8, float4, numeric */
        return number(x, v, 0, PQfname(r, c));
    if (t == 16)
        return json_boolean(v[0] == 't');
    if (t == 3802) { /* jsonb: an object PostgreSQL built (store_outcomes, lookup_ends) */
        json_t *j = json_loads(v, JSON_DECODE_ANY, NULL);
        if (j)
            return j;
        if (!x->bad++)
            ut_seterr(x->err, x->errlen, "database: %s: \"%.40s\" is not JSON", PQfname(r, c), v);
        return json_null();
    }
    return json_string(v);
}

/* A Postgres array literal {1,2,3} of numbers (NULL elements: JSON null)
 * into a JSON array. */
static json_t *pg_array(exporter *x, const char *s, int integers, const char *where)
{
    json_t *a = json_array();
    size_t n = s ? strlen(s) : 0;
    if (n < 2 || s[0] != '{' || s[n - 1] != '}') {
        if (!x->bad++)
            ut_seterr(x->err, x->errlen, "database: %s: \"%.40s\" is not an array", where, s ? s : "");
        return a;
    }
    char item[64];
    for (const char *p = s + 1; p < s + n - 1;) {
        size_t len = strcspn(p, ",}");
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        json_array_append_new(a, !strcmp(item, "NULL") ? json_null() : number(x, item, integers, where));
        p += len + 1;
    }
    return a;
}

/* A Postgres array literal {a,b} of plain words (rule names) into JSON strings. */
static json_t *pg_text_array(const char *s)
{
    json_t *a = json_array();
    size_t n = s ? strlen(s) : 0;
    if (n < 3)
        return a;
    for (const char *p = s + 1; p < s + n - 1;) {
        size_t len = strcspn(p, ",}");
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        json_array_append_new(a, json_string(item));
        p += len + 1;
    }
    return a;
}

static json_t *pg_bool_array(const char *s)
{
    json_t *a = json_array();
    for (; s && *s; s++)
        if (*s == 't' || *s == 'f')
            json_array_append_new(a, json_boolean(*s == 't'));
    return a;
}

/* Each run's `predicted`: its row of predicted_runs (prediction.json's
 * figures as written there), null without one. */
static int export_predicted(PGconn *db, exporter *x, json_t *runs)
{
    const char *run;
    json_t *o;
    json_object_foreach(runs, run, o) json_object_set_new(o, "predicted", json_null());
    PGresult *r = pgx_query(db,
                            "SELECT run, p99_ms, standin_share, lookups_per_request, flooded, flood_from_s "
                            "FROM predicted_runs ORDER BY run",
                            x->err, x->errlen);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        if (!(o = json_object_get(runs, PQgetvalue(r, i, 0))))
            continue;
        json_t *p = json_object();
        for (int c = 1; c < PQnfields(r); c++)
            json_object_set_new(p, PQfname(r, c), cell(x, r, i, c));
        json_object_set_new(o, "predicted", p);
    }
    PQclear(r);
    return 0;
}

/* [lo, hi] of two columns, or null when lo is. */
static json_t *interval(exporter *x, PGresult *r, int i, int c)
{
    if (PQgetisnull(r, i, c))
        return json_null();
    json_t *a = json_array();
    json_array_append_new(a, cell(x, r, i, c));
    json_array_append_new(a, cell(x, r, i, c + 1));
    return a;
}

/* The table `odds`, in its order (claims, then outside observations). */
static int export_odds(PGconn *db, exporter *x, json_t *odds)
{
    PGresult *r = pgx_query(db,
                            "SELECT claim, arm, event, sim_k, sim_n, sim_share, k, n, agree, "
                            "sim_lo, sim_hi, cp_lo, cp_hi, rounds, source, seconds FROM odds ORDER BY ord",
                            x->err, x->errlen);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *o = json_object();
        for (int c = 0; c < 9; c++)
            json_object_set_new(o, PQfname(r, c), cell(x, r, i, c));
        json_object_set_new(o, "sim_wilson95", interval(x, r, i, 9));
        json_object_set_new(o, "cp95", interval(x, r, i, 11));
        json_object_set_new(o, "rounds",
                            PQgetisnull(r, i, 13) ? json_null() : pg_array(x, PQgetvalue(r, i, 13), 1, "rounds"));
        if (!PQgetisnull(r, i, 14))
            json_object_set_new(o, "source", cell(x, r, i, 14));
        json_object_set_new(o, "seconds", cell(x, r, i, 15));
        json_array_append_new(odds, o);
    }
    PQclear(r);
    return 0;
}

static int export(PGconn *db, const char *path, char *err, size_t errlen)
{
    json_t *top = json_object(), *runs = json_object(), *arms = json_object(), *verdicts = json_array(),
           *guesses = json_array(), *odds = json_array();
    int rc = -1;
    exporter x = {err, errlen, 0};
    PGresult *r = pgx_query(db, "SELECT * FROM run_stats ORDER BY run", err, errlen);
    if (!r)
        goto done;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *o = json_object();
        for (int c = 1; c < PQnfields(r); c++)
            json_object_set_new(o, PQfname(r, c),
                                strcmp(PQfname(r, c), "quiet_rules") ? cell(&x, r, i, c)
                                                                     : pg_text_array(PQgetvalue(r, i, c)));
        json_object_set_new(o, "per_second", json_array());
        json_object_set_new(runs, PQgetvalue(r, i, 0), o);
    }
    PQclear(r);
    /* the machine that measured each run, from its run.json (RESULTS.md) */
    if (!(r = pgx_query(db, "SELECT run, run_json->>'machine' FROM runs ORDER BY run", err, errlen)))
        goto done;
    for (int i = 0; i < PQntuples(r); i++)
        if (json_object_get(runs, PQgetvalue(r, i, 0)))
            json_object_set_new(json_object_get(runs, PQgetvalue(r, i, 0)), "machine",
                                PQgetisnull(r, i, 1) ? json_null() : json_string(PQgetvalue(r, i, 1)));
    PQclear(r);
    r = pgx_query(db,
              "SELECT run, s, arrivals, standins, standin_share, live, errors, lookups_sent, busy_slots, line_length, "
              "steal_share, late_max_us, foreign_share "
              "FROM per_second ORDER BY run, s",
              err, errlen);
    if (!r)
        goto done;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *o = json_object_get(runs, PQgetvalue(r, i, 0));
        if (!o)
            continue;
        json_t *e = json_object();
        for (int c = 1; c < PQnfields(r); c++)
            json_object_set_new(e, PQfname(r, c), cell(&x, r, i, c));
        json_array_append_new(json_object_get(o, "per_second"), e);
    }
    PQclear(r);
    if (export_predicted(db, &x, runs) != 0)
        goto done;
    r = pgx_query(db,
              "SELECT arm, figure, median, min, max FROM arm_stats ORDER BY arm, figure", err, errlen);
    if (!r)
        goto done;
    for (int i = 0; i < PQntuples(r); i++) {
        const char *arm = PQgetvalue(r, i, 0);
        json_t *a = json_object_get(arms, arm);
        if (!a) {
            a = json_object();
            json_object_set_new(arms, arm, a);
        }
        if (PQgetisnull(r, i, 2)) { /* no quiet run has the figure */
            json_object_set_new(a, PQgetvalue(r, i, 1), json_null());
            continue;
        }
        json_t *f = json_object();
        json_object_set_new(f, "median", cell(&x, r, i, 2));
        json_object_set_new(f, "min", cell(&x, r, i, 3));
        json_object_set_new(f, "max", cell(&x, r, i, 4));
        json_object_set_new(a, PQgetvalue(r, i, 1), f);
    }
    PQclear(r);
    r = pgx_query(db,
              "SELECT arm, coalesce(array_agg(round ORDER BY round) FILTER (WHERE quiet), '{}'), "
              "coalesce(sum(n) FILTER (WHERE quiet), 0), coalesce(sum(live) FILTER (WHERE quiet), 0), "
              "coalesce(sum(last_known) FILTER (WHERE quiet), 0), coalesce(sum(\"default\") FILTER (WHERE quiet), 0), "
              "coalesce(sum(error) FILTER (WHERE quiet), 0), coalesce(sum(lookups) FILTER (WHERE quiet), 0), "
              "coalesce(sum(cut_short) FILTER (WHERE quiet), 0), "
              "coalesce(array_agg(round ORDER BY round) FILTER (WHERE NOT quiet), '{}') "
              "FROM run_stats GROUP BY arm ORDER BY arm",
              err, errlen);
    if (!r)
        goto done;
    const char *tot[] = {NULL, "rounds", "n_total", "live_total", "last_known_total", "default_total",
                         "error_total", "lookups_total", "cut_short_total"};
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *a = json_object_get(arms, PQgetvalue(r, i, 0));
        if (!a) {
            a = json_object();
            json_object_set_new(arms, PQgetvalue(r, i, 0), a);
        }
        json_object_set_new(a, "rounds", pg_array(&x, PQgetvalue(r, i, 1), 1, "rounds"));
        for (int c = 2; c < 9; c++)
            json_object_set_new(a, tot[c], number(&x, PQgetvalue(r, i, c), 1, tot[c]));
        json_object_set_new(a, "rounds_disturbed", pg_array(&x, PQgetvalue(r, i, 9), 1, "rounds_disturbed"));
    }
    PQclear(r);
    r = pgx_query(db, "SELECT a, b, figure, note, rounds, diffs, verdict, direction FROM verdicts ORDER BY k", err,
              errlen);
    if (!r)
        goto done;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *v = json_object();
        json_object_set_new(v, "a", cell(&x, r, i, 0));
        json_object_set_new(v, "b", cell(&x, r, i, 1));
        json_object_set_new(v, "figure", cell(&x, r, i, 2));
        json_object_set_new(v, "note", cell(&x, r, i, 3));
        json_object_set_new(v, "rounds", pg_array(&x, PQgetvalue(r, i, 4), 1, "rounds"));
        json_object_set_new(v, "diffs", pg_array(&x, PQgetvalue(r, i, 5), 0, "diffs"));
        json_object_set_new(v, "verdict", cell(&x, r, i, 6));
        json_object_set_new(v, "direction", cell(&x, r, i, 7));
        json_array_append_new(verdicts, v);
    }
    PQclear(r);
    r = pgx_query(db, "SELECT id, predicate, \"right\", clauses FROM guess_results ORDER BY k", err, errlen);
    if (!r)
        goto done;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *g = json_object();
        json_object_set_new(g, "id", cell(&x, r, i, 0));
        json_object_set_new(g, "predicate", cell(&x, r, i, 1));
        json_object_set_new(g, "right", cell(&x, r, i, 2));
        json_object_set_new(g, "clauses", pg_bool_array(PQgetvalue(r, i, 3)));
        json_array_append_new(guesses, g);
    }
    PQclear(r);
    if (export_odds(db, &x, odds) != 0)
        goto done;
    json_object_set_new(top, "format", json_string("lab-results 1"));
    json_object_set(top, "runs", runs);
    json_object_set(top, "arms", arms);
    json_object_set(top, "verdicts", verdicts);
    json_object_set(top, "guesses", guesses);
    json_object_set(top, "odds", odds);
    if (!x.bad) {
        char *text = json_dumps(top, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
        rc = text && ut_write_file(path, text, strlen(text), err, errlen) == 0 ? 0 : -1;
        free(text);
    }
done:
    json_decref(top);
    json_decref(runs);
    json_decref(arms);
    json_decref(verdicts);
    json_decref(guesses);
    json_decref(odds);
    return rc;
}

/* data/quiet.tsv (lab/watch/quiet.h reads and checks it) into quiet_limits, in
 * the order pipeline/RESULTS.md lists the rules. */
static int load_quiet(PGconn *db, const opts *o, char *err, size_t errlen)
{
    quiet_limits q;
    if (quiet_load(o->quiet, &q, err, errlen) != 0)
        return -1;
    const struct {
        const char *rule;
        double v;
    } L[] = {{"steal_run_max", q.steal_run_max},
             {"steal_second_max", q.steal_second_max},
             {"late_p99_max_ms", q.late_p99_max_ms},
             {"late_max_max_ms", q.late_max_max_ms},
             {"other_idle_min", q.other_idle_min},
             {"foreign_second_max", q.foreign_second_max}};
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        char k[16], v[64];
        snprintf(k, sizeof k, "%zu", i);
        snprintf(v, sizeof v, "%.17g", L[i].v);
        const char *p[] = {k, L[i].rule, v};
        if (pgx_exec_params(db, "INSERT INTO quiet_limits VALUES ($1, $2, $3)", 3, p, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- main */

/* Every run of a round names one machine (RESULTS.md, "Several machines"):
 * the paired comparisons pair the arms of a round.  0, or -1 with the
 * first round that names two. */
static int one_machine_per_round(PGconn *db, char *err, size_t errlen)
{
    PGresult *r = pgx_query(db,
                            "SELECT round, min(m), max(m), min(run) FILTER (WHERE m = mi), "
                            "min(run) FILTER (WHERE m = ma) FROM ("
                            " SELECT round, run, coalesce(run_json->>'machine', '(none)') m,"
                            " min(coalesce(run_json->>'machine', '(none)')) OVER (PARTITION BY round) mi,"
                            " max(coalesce(run_json->>'machine', '(none)')) OVER (PARTITION BY round) ma"
                            " FROM runs) x GROUP BY round HAVING min(m) <> max(m) ORDER BY round LIMIT 1",
                            err, errlen);
    if (!r)
        return -1;
    int rc = 0;
    if (PQntuples(r) > 0) {
        ut_seterr(err, errlen,
                  "round %s was measured on two machines, %s (%s) and %s (%s): the runs of a round must come from "
                  "one machine (pipeline/RESULTS.md); measure that round again on one (nothing was written)",
                  PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 3), PQgetvalue(r, 0, 2),
                  PQgetvalue(r, 0, 4));
        rc = -1;
    }
    PQclear(r);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Names of complete run folders (those not starting with '.'), sorted. */
static int list_runs(const char *root, char ***out, int *n, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/results/raw", root);
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        ut_seterr(err, errlen, "%s: no raw runs: run make measure first", dir);
        return -1;
    }
    struct dirent *e;
    int cap = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            *out = realloc(*out, (size_t)cap * sizeof **out);
        }
        (*out)[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(*out, (size_t)*n, sizeof **out, cmp_str);
    return 0;
}

int main(int argc, char **argv)
{
    ut_set_prog("collect");
    opts o = {".", NULL, "data", "pipeline", NULL};
    char quiet_def[4200];
    const opt_spec spec[] = {
        {"--root", OPT_STR, &o.root, 0, 0, "OUT", "results/raw/ is read, results/results.json written (.)"},
        {"--pgurl", OPT_STR, &o.pgurl, 0, 0, "URL", "the PostgreSQL to use (required)"},
        {"--data", OPT_STR, &o.data, 0, 0, "DIR", "guesses.tsv is read from DIR (data)"},
        {"--pipeline", OPT_STR, &o.pipe, 0, 0, "DIR", "the pipeline folder: collect/schema.sql, collect/stats.sql, comparisons.tsv (pipeline)"},
        {"--quiet", OPT_STR, &o.quiet, 0, 0, "FILE", "the rules of a quiet run (DATA/quiet.tsv)"},
        {0}};
    int prc = opt_parse(argc, argv, spec, "collect: raw files -> PostgreSQL -> results/results.json", NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (!o.quiet) {
        snprintf(quiet_def, sizeof quiet_def, "%s/quiet.tsv", o.data);
        o.quiet = quiet_def;
    }
    if (!o.pgurl) {
        ut_err("usage: collect --root OUT --pgurl URL [--data data] [--pipeline pipeline]");
        return 2;
    }
    char err[UT_ERRLEN] = "", masked[1024];
    prov_mask(o.pgurl, masked, sizeof masked); /* never print a password */
    PGconn *db = PQconnectdb(o.pgurl);
    if (PQstatus(db) != CONNECTION_OK) {
        char m[512];
        snprintf(m, sizeof m, "%s", PQerrorMessage(db));
        m[strcspn(m, "\n")] = 0;
        ut_err("cannot reach PostgreSQL at \"%s\": %s (nothing was written)", masked, m);
        PQfinish(db);
        return 1;
    }
    PQsetNoticeProcessor(db, NULL, NULL);
    pgx_exec(db, "SET client_min_messages = warning", err, sizeof err);
    /* JIT compiling costs more than it saves on stats.sql's statements
     * (pipeline/README.md: 0.75 s of 2.2 s on a quick-sized study) */
    pgx_exec(db, "SET jit = off", err, sizeof err);
    prov *pv = prov_begin("collect", argc, argv);
    char path[4096], results[4096];
    char **runs = NULL;
    int nruns = 0, rc = 1, loaded = 0;
    collectpred *pred = NULL;
    /* the prediction, checked whole before the database is touched */
    snprintf(path, sizeof path, "%s/results/prediction.json", o.root);
    if (collectpred_read(path, &pred, err, sizeof err) != 0 || (pred && prov_input(pv, path, err, sizeof err) != 0))
        goto done;
    /* One collect at a time per database: the server side of a collect
     * killed a moment ago may still be running its statement (schema.sql's
     * CREATEs would race); the lock goes with the session. */
    snprintf(path, sizeof path, "%s/collect/schema.sql", o.pipe);
    if (pgx_exec(db, "SELECT pg_advisory_lock(hashtext('lab collect'))", err, sizeof err) != 0 ||
        pgx_exec_file(db, path, err, sizeof err) != 0)
        goto done;
    if (list_runs(o.root, &runs, &nruns, err, sizeof err) != 0)
        goto done;
    for (int i = 0; i < nruns; i++) {
        int r = collectload_run(db, o.root, runs[i], err, sizeof err);
        if (r < 0)
            goto done;
        loaded += r;
        snprintf(path, sizeof path, "%s/results/raw/%s/run.json", o.root, runs[i]);
        if (prov_input(pv, path, err, sizeof err) != 0)
            goto done;
    }
    /* runs no longer on disk */
    {
        PGresult *q = PQexec(db, "SELECT run FROM runs ORDER BY run");
        for (int i = 0; q && i < PQntuples(q); i++) {
            const char *run = PQgetvalue(q, i, 0);
            int found = 0;
            for (int k = 0; k < nruns && !found; k++)
                found = !strcmp(runs[k], run);
            if (!found) {
                collectload_forget(db, run, err, sizeof err);
                printf("collect: %s is no longer on disk: removed from the database\n", run);
            }
        }
        PQclear(q);
    }
    if (one_machine_per_round(db, err, sizeof err) != 0)
        goto done;
    if (pgx_exec(db, "BEGIN", err, sizeof err) != 0 || load_comparisons(db, &o, err, sizeof err) != 0 ||
        load_guesses(db, &o, err, sizeof err) != 0 || load_quiet(db, &o, err, sizeof err) != 0 ||
        collectpred_load(db, pred, err, sizeof err) != 0)
        goto rollback;
    snprintf(path, sizeof path, "%s/collect/stats.sql", o.pipe);
    if (pgx_exec_file(db, path, err, sizeof err) != 0 || pgx_exec(db, "COMMIT", err, sizeof err) != 0)
        goto rollback;
    snprintf(results, sizeof results, "%s/results", o.root);
    snprintf(path, sizeof path, "%s/results/results.json", o.root);
    if (ut_mkdir_p(results, err, sizeof err) != 0 || export(db, path, err, sizeof err) != 0 ||
        prov_output(pv, path, err, sizeof err) != 0)
        goto done;
    printf("collect: %d runs (%d loaded now), statistics computed in PostgreSQL, %s written\n", nruns, loaded,
           path);
    rc = 0;
    goto done;
rollback:
    {
        char e2[UT_ERRLEN];
        pgx_exec(db, "ROLLBACK", e2, sizeof e2);
    }
done:
    if (rc != 0)
        ut_err("%s", err);
    PQfinish(db);
    collectpred_free(pred);
    for (int i = 0; i < nruns; i++)
        free(runs[i]);
    free(runs);
    char provdir[4096];
    snprintf(provdir, sizeof provdir, "%s/provenance", o.root);
    prov_lib(pv, "libpq", PQlibVersion() >= 150000 ? "15" : "other");
    if (prov_end(pv, rc, provdir, err, sizeof err) != 0)
        ut_err("%s", err);
    return rc;
}
