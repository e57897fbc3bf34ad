/* collectexport: collect's export, results/results.json (pipeline/RESULTS.md)
 * from the tables stats.sql filled, section by section: the runs (each with
 * its machine, its seconds and its prediction), the kept attempts (the same,
 * with their N), the arms (figures and totals), the verdicts (each with its
 * error rate) and their family sum, the guesses, the odds and the twin's
 * scores and the map; every value PostgreSQL
 * printed read back whole.  The contract is collectexport.h's. */
#include "collectexport.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "pgx.h"
#include "util.h"

/* ------------------------------------------- values PostgreSQL printed */

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

/* Each `predicted`'s `twin`: its row of predicted_twin ({replicas, flooded,
 * p_flood, standin_share_q [q05, q50, q95]}), null without one. */
static int export_predicted_twin(PGconn *db, exporter *x, json_t *pred)
{
    const char *run;
    json_t *o;
    json_object_foreach(pred, run, o) json_object_set_new(o, "twin", json_null());
    PGresult *r = pgx_query(db, "SELECT run, replicas, flooded, p_flood, q05, q50, q95 FROM predicted_twin ORDER BY run",
                            x->err, x->errlen);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *p = json_object_get(pred, PQgetvalue(r, i, 0));
        if (!json_is_object(p))
            continue;
        json_t *t = json_object(), *q = json_array();
        for (int c = 1; c < 4; c++)
            json_object_set_new(t, PQfname(r, c), cell(x, r, i, c));
        for (int c = 4; c < 7; c++)
            json_array_append_new(q, cell(x, r, i, c));
        json_object_set_new(t, "standin_share_q", q);
        json_object_set_new(p, "twin", t);
    }
    PQclear(r);
    return 0;
}

/* Each run's `predicted`: its row of predicted_runs (prediction.json's
 * figures as written there), null without one; a kept attempt's is its
 * run's (<arm>-r<round>). */
static int export_predicted(PGconn *db, exporter *x, json_t *runs, json_t *attempts)
{
    PGresult *r = pgx_query(db,
                            "SELECT run, p99_ms, standin_share, lookups_per_request, flooded, flood_from_s "
                            "FROM predicted_runs ORDER BY run",
                            x->err, x->errlen);
    if (!r)
        return -1;
    json_t *pred = json_object();
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *p = json_object();
        for (int c = 1; c < PQnfields(r); c++)
            json_object_set_new(p, PQfname(r, c), cell(x, r, i, c));
        json_object_set_new(pred, PQgetvalue(r, i, 0), p);
    }
    PQclear(r);
    if (export_predicted_twin(db, x, pred) != 0) {
        json_decref(pred);
        return -1;
    }
    const char *run;
    json_t *o;
    json_object_foreach(runs, run, o)
    {
        json_t *p = json_object_get(pred, run);
        json_object_set_new(o, "predicted", p ? json_deep_copy(p) : json_null());
    }
    json_object_foreach(attempts, run, o)
    {
        char base[300];
        snprintf(base, sizeof base, "%s-r%lld", json_string_value(json_object_get(o, "arm")),
                 (long long)json_integer_value(json_object_get(o, "round")));
        json_t *p = json_object_get(pred, base);
        json_object_set_new(o, "predicted", p ? json_deep_copy(p) : json_null());
    }
    json_decref(pred);
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

/* `twin`: twin_scores' one row, the calibration's bins, the runs outside
 * the tolerance (byte order); null without a row (no noise model). */
static int export_twin(PGconn *db, exporter *x, json_t **twin)
{
    *twin = json_null();
    PGresult *r = pgx_query(db, "SELECT runs, flooded, brier, brier_yes_no, brier_odds FROM twin_scores", x->err,
                            x->errlen);
    if (!r)
        return -1;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return 0;
    }
    json_decref(*twin);
    *twin = json_object();
    for (int c = 0; c < PQnfields(r); c++)
        json_object_set_new(*twin, PQfname(r, c), cell(x, r, 0, c));
    PQclear(r);
    json_t *cal = json_array(), *out = json_array();
    json_object_set_new(*twin, "calibration", cal);
    json_object_set_new(*twin, "outside", out);
    if (!(r = pgx_query(db,
                        "SELECT \"from\", \"to\", runs, mean_p, flooded, share, cp_lo, cp_hi "
                        "FROM twin_calibration ORDER BY k",
                        x->err, x->errlen)))
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *b = json_object();
        for (int c = 0; c < 6; c++)
            json_object_set_new(b, PQfname(r, c), cell(x, r, i, c));
        json_object_set_new(b, "cp95", interval(x, r, i, 6));
        json_array_append_new(cal, b);
    }
    PQclear(r);
    if (!(r = pgx_query(db,
                        "SELECT run, measured, predicted, twin_q05, twin_q95, flooded, predicted_flooded, p_flood, "
                        "within_twin, reason FROM twin_outside ORDER BY run COLLATE \"C\"",
                        x->err, x->errlen)))
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *e = json_object();
        for (int c = 0; c < PQnfields(r); c++)
            json_object_set_new(e, PQfname(r, c), cell(x, r, i, c));
        json_array_append_new(out, e);
    }
    PQclear(r);
    return 0;
}

/* ------------------------------------------------------------ sections */

/* The object of run_stats' row named `name`: in runs, or in attempts for a
 * kept attempt; NULL when neither has it. */
static json_t *run_obj(json_t *runs, json_t *attempts, const char *name)
{
    json_t *o = json_object_get(runs, name);
    return o ? o : json_object_get(attempts, name);
}

/* `runs`: every row of run_stats that is a run (quiet_rules a list of rule
 * names), with the machine of its run.json, its seconds (per_second) and
 * its prediction; `attempts`: the same of every kept attempt, with its
 * `attempt` N (a run has no such member). */
static int export_runs(PGconn *db, exporter *x, json_t *runs, json_t *attempts)
{
    PGresult *r = pgx_query(db, "SELECT * FROM run_stats ORDER BY run", x->err, x->errlen);
    if (!r)
        return -1;
    int ca = PQfnumber(r, "attempt");
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *o = json_object();
        int att = ca >= 0 && !PQgetisnull(r, i, ca);
        for (int c = 1; c < PQnfields(r); c++)
            if (c != ca || att)
                json_object_set_new(o, PQfname(r, c),
                                    strcmp(PQfname(r, c), "quiet_rules") ? cell(x, r, i, c)
                                                                         : pg_text_array(PQgetvalue(r, i, c)));
        json_object_set_new(o, "per_second", json_array());
        json_object_set_new(att ? attempts : runs, PQgetvalue(r, i, 0), o);
    }
    PQclear(r);
    /* the machine that measured each run, from its run.json (RESULTS.md) */
    if (!(r = pgx_query(db, "SELECT run, run_json->>'machine' FROM runs ORDER BY run", x->err, x->errlen)))
        return -1;
    for (int i = 0; i < PQntuples(r); i++)
        if (run_obj(runs, attempts, PQgetvalue(r, i, 0)))
            json_object_set_new(run_obj(runs, attempts, PQgetvalue(r, i, 0)), "machine",
                                PQgetisnull(r, i, 1) ? json_null() : json_string(PQgetvalue(r, i, 1)));
    PQclear(r);
    r = pgx_query(db,
              "SELECT run, s, arrivals, standins, standin_share, live, errors, lookups_sent, busy_slots, line_length, "
              "steal_share, late_max_us, foreign_share "
              "FROM per_second ORDER BY run, s",
              x->err, x->errlen);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *o = run_obj(runs, attempts, PQgetvalue(r, i, 0));
        if (!o)
            continue;
        json_t *e = json_object();
        for (int c = 1; c < PQnfields(r); c++)
            json_object_set_new(e, PQfname(r, c), cell(x, r, i, c));
        json_array_append_new(json_object_get(o, "per_second"), e);
    }
    PQclear(r);
    return export_predicted(db, x, runs, attempts);
}

/* `arms`: each arm's figures over its quiet runs (arm_stats), then its
 * rounds and totals (of its runs: a kept attempt counts in none). */
static int export_arms(PGconn *db, exporter *x, json_t *arms)
{
    PGresult *r = pgx_query(db,
              "SELECT arm, figure, median, min, max FROM arm_stats ORDER BY arm, figure", x->err, x->errlen);
    if (!r)
        return -1;
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
        json_object_set_new(f, "median", cell(x, r, i, 2));
        json_object_set_new(f, "min", cell(x, r, i, 3));
        json_object_set_new(f, "max", cell(x, r, i, 4));
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
              "FROM run_stats WHERE attempt IS NULL GROUP BY arm ORDER BY arm",
              x->err, x->errlen);
    if (!r)
        return -1;
    const char *tot[] = {NULL, "rounds", "n_total", "live_total", "last_known_total", "default_total",
                         "error_total", "lookups_total", "cut_short_total"};
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *a = json_object_get(arms, PQgetvalue(r, i, 0));
        if (!a) {
            a = json_object();
            json_object_set_new(arms, PQgetvalue(r, i, 0), a);
        }
        json_object_set_new(a, "rounds", pg_array(x, PQgetvalue(r, i, 1), 1, "rounds"));
        for (int c = 2; c < 9; c++)
            json_object_set_new(a, tot[c], number(x, PQgetvalue(r, i, c), 1, tot[c]));
        json_object_set_new(a, "rounds_disturbed", pg_array(x, PQgetvalue(r, i, 9), 1, "rounds_disturbed"));
    }
    PQclear(r);
    return 0;
}

/* `verdicts`: one per comparison, in comparisons.tsv's order. */
static int export_verdicts(PGconn *db, exporter *x, json_t *verdicts)
{
    PGresult *r = pgx_query(db,
                            "SELECT a, b, figure, note, rounds, diffs, verdict, direction, n, false_positive_rate, "
                            "sizing_q, power, decidable FROM verdicts ORDER BY k",
                            x->err, x->errlen);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *v = json_object();
        json_object_set_new(v, "a", cell(x, r, i, 0));
        json_object_set_new(v, "b", cell(x, r, i, 1));
        json_object_set_new(v, "figure", cell(x, r, i, 2));
        json_object_set_new(v, "note", cell(x, r, i, 3));
        json_object_set_new(v, "rounds", pg_array(x, PQgetvalue(r, i, 4), 1, "rounds"));
        json_object_set_new(v, "diffs", pg_array(x, PQgetvalue(r, i, 5), 0, "diffs"));
        json_object_set_new(v, "verdict", cell(x, r, i, 6));
        json_object_set_new(v, "direction", cell(x, r, i, 7));
        for (int c = 8; c < 13; c++) /* each verdict's error rate */
            json_object_set_new(v, PQfname(r, c), cell(x, r, i, c));
        json_array_append_new(verdicts, v);
    }
    PQclear(r);
    return 0;
}

/* `verdict_family`: the family of verdicts summed (one row). */
static int export_family(PGconn *db, exporter *x, json_t *family)
{
    PGresult *r = pgx_query(db,
                            "SELECT verdicts, clearly_different, expected_chance, with_rate, undecidable, unsized "
                            "FROM verdict_family",
                            x->err, x->errlen);
    if (!r)
        return -1;
    if (PQntuples(r) != 1) {
        ut_seterr(x->err, x->errlen, "database: verdict_family: %d rows, expected 1", PQntuples(r));
        PQclear(r);
        return -1;
    }
    for (int c = 0; c < PQnfields(r); c++)
        json_object_set_new(family, PQfname(r, c), cell(x, r, 0, c));
    PQclear(r);
    return 0;
}

/* `guesses`: one per guess, in guesses.tsv's order, each clause's truth. */
static int export_guesses(PGconn *db, exporter *x, json_t *guesses)
{
    PGresult *r = pgx_query(db, "SELECT id, predicate, \"right\", clauses FROM guess_results ORDER BY k", x->err,
                            x->errlen);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *g = json_object();
        json_object_set_new(g, "id", cell(x, r, i, 0));
        json_object_set_new(g, "predicate", cell(x, r, i, 1));
        json_object_set_new(g, "right", cell(x, r, i, 2));
        json_object_set_new(g, "clauses", pg_bool_array(PQgetvalue(r, i, 3)));
        json_array_append_new(guesses, g);
    }
    PQclear(r);
    return 0;
}

/* ------------------------------------------------------------ the file */

/* [a, b] of two columns, each null when it is (an interval whose ends stand alone). */
static json_t *pair(exporter *x, PGresult *r, int i, int c)
{
    json_t *a = json_array();
    json_array_append_new(a, cell(x, r, i, c));
    json_array_append_new(a, cell(x, r, i, c + 1));
    return a;
}

/* Columns c0 .. c1-1 of row i into o under their names. */
static void cols(json_t *o, exporter *x, PGresult *r, int i, int c0, int c1)
{
    for (int c = c0; c < c1; c++)
        json_object_set_new(o, PQfname(r, c), cell(x, r, i, c));
}

/* `map` (RESULTS.md): map_top's one row, each policy's cells, hidden
 * capacity, triggers and points, in the prediction's order; null without a
 * map_top row (no map). */
static int export_map(PGconn *db, exporter *x, json_t **map)
{
    *map = json_null();
    PGresult *t = pgx_query(db, "SELECT seconds, seeds, capacity_p, trigger_load FROM map_top", x->err, x->errlen);
    if (!t)
        return -1;
    if (PQntuples(t) != 1) {
        PQclear(t);
        return 0;
    }
    json_t *m = json_object(), *loads = json_array(), *pols = json_array();
    cols(m, x, t, 0, 0, 4);
    PQclear(t);
    PGresult *L = pgx_query(db, "SELECT load FROM map_loads ORDER BY k", x->err, x->errlen);
    PGresult *P = L ? pgx_query(db,
                                "SELECT p.p, p.policy, p.template, c.load, c.lo, c.hi, c.tips FROM map_policies p "
                                "JOIN map_capacity c USING (p) ORDER BY p.p",
                                x->err, x->errlen)
                    : NULL;
    PGresult *C = P ? pgx_query(db,
                                "SELECT c.p, c.load, c.k, c.n, s.share, c.onset_median_s, c.standin_share_median, "
                                "s.lo, s.hi FROM map_cells c JOIN map_cell_stats s USING (p, l) ORDER BY c.p, c.l",
                                x->err, x->errlen)
                    : NULL;
    PGresult *T = C ? pgx_query(db,
                                "SELECT s.p, s.flooded, s.n, s.median, coalesce((SELECT array_agg(coalesce(t.count, 0) "
                                "ORDER BY v.v) FROM generate_series(0, s.vmax) v LEFT JOIN map_trigger t ON t.p = s.p "
                                "AND t.flooded = s.flooded AND t.v = v.v), '{}') FROM map_trigger_stats s "
                                "ORDER BY s.p, s.flooded DESC",
                                x->err, x->errlen)
                    : NULL;
    PGresult *Q = T ? pgx_query(db,
                                "SELECT p, arm, load, seconds, sim_k, sim_n, k, n, on_curve, agree, rounds, cp_lo, cp_hi "
                                "FROM map_points ORDER BY p, i",
                                x->err, x->errlen)
                    : NULL;
    int rc = Q ? 0 : -1;
    for (int i = 0; rc == 0 && i < PQntuples(L); i++)
        json_array_append_new(loads, cell(x, L, i, 0));
    for (int i = 0, ci = 0, ti = 0, qi = 0; rc == 0 && i < PQntuples(P); i++) {
        const char *pid = PQgetvalue(P, i, 0);
        json_t *po = json_object(), *cells = json_array(), *cap = json_object(), *tr = json_object(),
               *pts = json_array();
        cols(po, x, P, i, 1, 3);
        json_object_set_new(cap, "load", cell(x, P, i, 3));
        json_object_set_new(cap, "interval", pair(x, P, i, 4));
        json_object_set_new(cap, "tips", cell(x, P, i, 6));
        for (; ci < PQntuples(C) && !strcmp(PQgetvalue(C, ci, 0), pid); ci++) {
            json_t *c = json_object();
            cols(c, x, C, ci, 1, 7);
            json_object_set_new(c, "wilson95", pair(x, C, ci, 7));
            json_array_append_new(cells, c);
        }
        for (; ti < PQntuples(T) && !strcmp(PQgetvalue(T, ti, 0), pid); ti++) {
            json_t *s = json_object();
            json_object_set_new(s, "n", cell(x, T, ti, 2));
            json_object_set_new(s, "median", cell(x, T, ti, 3));
            json_object_set_new(s, "counts", pg_array(x, PQgetvalue(T, ti, 4), 1, "map trigger counts"));
            json_object_set_new(tr, PQgetvalue(T, ti, 1)[0] == 't' ? "flooded" : "calm", s);
        }
        for (; qi < PQntuples(Q) && !strcmp(PQgetvalue(Q, qi, 0), pid); qi++) {
            json_t *q = json_object();
            cols(q, x, Q, qi, 1, 10);
            json_object_set_new(q, "rounds", PQgetisnull(Q, qi, 10) ? json_null()
                                                                    : pg_array(x, PQgetvalue(Q, qi, 10), 1, "rounds"));
            json_object_set_new(q, "cp95", interval(x, Q, qi, 11));
            json_array_append_new(pts, q);
        }
        json_object_set_new(po, "cells", cells);
        json_object_set_new(po, "hidden_capacity", cap);
        json_object_set_new(po, "trigger", tr);
        json_object_set_new(po, "points", pts);
        json_array_append_new(pols, po);
    }
    PQclear(L);
    PQclear(P);
    PQclear(C);
    PQclear(T);
    PQclear(Q);
    json_object_set_new(m, "loads", loads);
    json_object_set_new(m, "policies", pols);
    if (rc != 0) {
        json_decref(m);
        return -1;
    }
    json_decref(*map);
    *map = m;
    return 0;
}

int collectexport_results(PGconn *db, const char *path, char *err, size_t errlen)
{
    json_t *top = json_object(), *runs = json_object(), *arms = json_object(), *verdicts = json_array(),
           *guesses = json_array(), *odds = json_array(), *family = json_object(), *attempts = json_object(),
           *twin = NULL, *map = NULL;
    int rc = -1;
    exporter x = {err, errlen, 0};
    if (export_runs(db, &x, runs, attempts) != 0 || export_arms(db, &x, arms) != 0 ||
        export_verdicts(db, &x, verdicts) != 0 || export_family(db, &x, family) != 0 ||
        export_guesses(db, &x, guesses) != 0 ||
        export_odds(db, &x, odds) != 0 || export_twin(db, &x, &twin) != 0 ||
        export_map(db, &x, &map) != 0)
        goto done;
    json_object_set_new(top, "format", json_string("lab-results 1"));
    json_object_set(top, "runs", runs);
    json_object_set(top, "arms", arms);
    json_object_set(top, "verdicts", verdicts);
    json_object_set(top, "verdict_family", family);
    json_object_set(top, "guesses", guesses);
    json_object_set(top, "odds", odds);
    json_object_set(top, "attempts", attempts);
    json_object_set(top, "twin", twin);
    json_object_set(top, "map", map);
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
    json_decref(family);
    json_decref(guesses);
    json_decref(odds);
    json_decref(attempts);
    json_decref(twin);
    json_decref(map);
    return rc;
}
