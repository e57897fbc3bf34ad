/* collect: raw files -> PostgreSQL -> statistics -> results/results.json.
 *
 *   collect --root OUT --pgurl URL [--data data] [--pipeline pipeline] [--arms lab/arms.tsv]
 *
 * 1. Connects (an unreachable database: one message naming it, exit 1,
 *    nothing written), reads OUT/results/prediction.json when there is one
 *    (pipeline/collect/collectpred.c: checked whole; a fault is named and nothing
 *    is written) and applies pipeline/collect/schema.sql.
 * 2. Holds every raw file of every run folder and kept attempt to its
 *    run.json's sha256 (and size) and to OUT/provenance/manifest-measure.tsv
 *    when there is one, as are the files of results/reference/ it lists
 *    (pipeline/common/rawdigest.h: each file hashed once,
 *    streamed), before the database is touched: a file that is not the one
 *    measured is named with both digests, exit 1, nothing loaded, nothing
 *    written but the stage's record.  Then loads every run folder
 *    OUT/results/raw/<run>/ whose fingerprint is not loaded yet, each checked whole first and loaded in one transaction
 *    (pipeline/collect/collectload.c: raw format 4, a second store's rows kept apart
 *    by their store number; two folders at a time, over two connections), then every kept attempt
 *    OUT/results/attempts/<run>-a<N>/ the same way, marked as an attempt
 *    (it counts in nothing: stats.sql).  Runs and attempts no longer on
 *    disk are deleted.
 * 3. Loads pipeline/comparisons.tsv, data/guesses.tsv (read and checked
 *    first of all, before the database is touched, by lab/core/guesstab.h:
 *    the predicates parsed into clauses, grammar in data/README.md, every
 *    arm a guess names one of --arms, lab/arms.tsv, every figure one of
 *    data/README.md's; a refusal names the file, line, guess, clause and
 *    token, exit 2, nothing written) and the prediction, runs
 *    pipeline/collect/stats.sql, and pipeline/collect/stats_side.sql on
 *    the loading's second connection meanwhile (each run's rows of V
 *    counted, the seconds and the false timeouts, from the raw tables
 *    alone: the machine's second core; stats.sql goes on past its line
 *    SIDE_DONE once it has finished).
 * 4. Exports results/results.json (pipeline/RESULTS.md), atomically
 *    (pipeline/collect/collectexport.c, section by section), and the stage's
 *    provenance record.
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
#include "collectexport.h"
#include "collectload.h"
#include "collectpred.h"
#include "guesstab.h"
#include "opt.h"
#include "paths.h"
#include "pgx.h"
#include "prov.h"
#include "quiet.h"
#include "rawdigest.h"
#include "tsv.h"
#include "util.h"

/* The line of stats.sql where collect waits for stats_side.sql, run on
 * the second connection meanwhile, to finish: the statements after it
 * read what stats_side.sql wrote. */
#define SIDE_DONE "-- collect: stats_side.sql is done here"

typedef struct {
    const char *root, *pgurl, *data, *pipe, *quiet, *arms;
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

/* data/guesses.tsv through its one reader (lab/core/guesstab.h): the
 * predicates parsed into clauses and every arm and figure they name checked
 * against the registered arms (--arms) and the figures, before the
 * database is touched. */
static int read_guesses(const opts *o, guesstab *g, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/guesses.tsv", o->data);
    if (o->arms)
        return guesstab_load_registered(path, o->arms, g, err, errlen);
    return guesstab_load(path, NULL, 0, NULL, g, err, errlen);
}

/* The guesses read into `guesses` and `guess_clauses`; k is a guess's place,
 * c a clause's (from 0). */
static int load_guesses(PGconn *db, const guesstab *g, char *err, size_t errlen)
{
    if (pgx_exec(db, "DELETE FROM guesses", err, errlen) != 0 ||
        pgx_exec(db, "DELETE FROM guess_clauses", err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < g->n; i++) {
        const guess_row *r = &g->v[i];
        char k[16];
        snprintf(k, sizeof k, "%d", r->k);
        const char *v[] = {k, r->id, r->text, r->predicate};
        if (pgx_exec_params(db, "INSERT INTO guesses VALUES ($1, $2, $3, $4)", 4, v, err, errlen) != 0)
            return -1;
        for (int c = 0; c < r->nc; c++) {
            const guess_clause *q = &r->c[c];
            char cs[16];
            snprintf(cs, sizeof cs, "%d", c);
            int rc;
            if (q->kind == GUESS_CMP) {
                const char *w[] = {k, cs, q->quant, q->arm, q->figure, q->op, q->num,
                                   q->arm2[0] ? q->arm2 : NULL, q->arm2[0] ? q->figure2 : NULL};
                rc = pgx_exec_params(db,
                                     "INSERT INTO guess_clauses (k, c, kind, quant, arm, figure, op, num, arm2, "
                                     "figure2) VALUES ($1, $2, 'cmp', $3, $4, $5, $6, $7, $8, $9)",
                                     9, w, err, errlen);
            } else {
                const char *w[] = {k, cs, q->kind == GUESS_APART ? "apart" : "close", q->arm, q->figure, q->arm2};
                rc = pgx_exec_params(db,
                                     "INSERT INTO guess_clauses (k, c, kind, arm, figure, arm2, figure2) "
                                     "VALUES ($1, $2, $3, $4, $5, $6, $5)",
                                     6, w, err, errlen);
            }
            if (rc != 0)
                return -1;
        }
    }
    return 0;
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

/* A connection to url (masked: url without its password, for messages) set
 * up as collect uses it, or NULL with err naming the server. */
static PGconn *connect_db(const char *url, const char *masked, char *err, size_t errlen)
{
    PGconn *db = PQconnectdb(url);
    if (PQstatus(db) != CONNECTION_OK) {
        char m[512];
        snprintf(m, sizeof m, "%s", PQerrorMessage(db));
        m[strcspn(m, "\n")] = 0;
        ut_seterr(err, errlen, "cannot reach PostgreSQL at \"%s\": %s (nothing was written)", masked, m);
        PQfinish(db);
        return NULL;
    }
    PQsetNoticeProcessor(db, NULL, NULL);
    /* JIT compiling costs more than it saves on stats.sql's statements
     * (pipeline/README.md: 0.75 s of 2.2 s on a quick-sized study) */
    if (pgx_exec(db, "SET client_min_messages = warning", err, errlen) != 0 ||
        pgx_exec(db, "SET jit = off", err, errlen) != 0) {
        PQfinish(db);
        return NULL;
    }
    return db;
}

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
                            " FROM runs WHERE attempt IS NULL) x GROUP BY round HAVING min(m) <> max(m) ORDER BY round LIMIT 1",
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

/* Names of the folders of root/rel (those not starting with '.'), sorted:
 * the runs of results/raw (which must be there), the kept attempts of
 * results/attempts (none when it is missing). */
static int list_runs(const char *root, const char *rel, char ***out, int *n, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, rel);
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d && strcmp(rel, PATH_RAW_DIR) != 0)
        return 0;
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

/* Every run folder (results/raw/<run>) and kept attempt
 * (results/attempts/<name>) held to its run.json's sha256s and to
 * provenance/manifest-measure.tsv when the study has one, and the files of
 * results/reference/ that manifest lists to it (pipeline/common/rawdigest.h),
 * each file hashed once; (*fps)[i] the
 * fingerprint of run i, then of attempt i at nruns + i (malloc'd).  0, or
 * -1 naming the file and both digests. */
static int check_digests(const opts *o, char **runs, int nruns, char **atts, int natts, char (**fps)[65], char *err,
                         size_t errlen)
{
    char path[4200], rel[4200];
    snprintf(path, sizeof path, "%s/" PATH_PROV_DIR "/" RAWDIGEST_MANIFEST, o->root);
    rawdigest_manifest *m = NULL;
    if (rawdigest_manifest_load(path, &m, err, errlen) != 0)
        return -1;
    *fps = malloc((size_t)(nruns + natts + 1) * sizeof **fps);
    int rc = *fps ? 0 : -1;
    if (!*fps)
        ut_seterr(err, errlen, "collect: out of memory");
    for (int i = 0; rc == 0 && i < nruns + natts; i++) {
        snprintf(rel, sizeof rel, "%s/%s", i < nruns ? PATH_RAW_DIR : PATH_ATTEMPTS_DIR,
                 i < nruns ? runs[i] : atts[i - nruns]);
        rc = rawdigest_check_run(o->root, rel, m, (*fps)[i], err, errlen);
    }
    /* the reference the "=" scores are decoded by, as measure copied it */
    if (rc == 0)
        rc = rawdigest_check_listed(o->root, m, PATH_REFERENCE_DIR "/", err, errlen);
    if (rc != 0 && err[0] && !strstr(err, "nothing was loaded")) {
        char e2[UT_ERRLEN];
        snprintf(e2, sizeof e2, "%s", err);
        ut_seterr(err, errlen, "%s (nothing was loaded)", e2);
    }
    rawdigest_manifest_free(m);
    return rc;
}

int main(int argc, char **argv)
{
    ut_set_prog("collect");
    opts o = {".", NULL, "data", "pipeline", NULL, "lab/arms.tsv"};
    char quiet_def[4200];
    const opt_spec spec[] = {
        {"--root", OPT_STR, &o.root, 0, 0, "OUT", PATH_RAW_DIR "/ is read, " PATH_RESULTS_JSON " written (.)"},
        {"--pgurl", OPT_STR, &o.pgurl, 0, 0, "URL", "the PostgreSQL to use (required)"},
        {"--data", OPT_STR, &o.data, 0, 0, "DIR", "guesses.tsv is read from DIR (data)"},
        {"--pipeline", OPT_STR, &o.pipe, 0, 0, "DIR", "the pipeline folder: collect/schema.sql, collect/stats.sql, comparisons.tsv (pipeline)"},
        {"--quiet", OPT_STR, &o.quiet, 0, 0, "FILE", "the rules of a quiet run (DATA/quiet.tsv)"},
        {"--arms", OPT_STR, &o.arms, 0, 0, "FILE", "the registered arms the guesses may name (lab/arms.tsv)"},
        {0}};
    int prc = opt_parse(argc, argv, spec, "collect: raw files -> PostgreSQL -> " PATH_RESULTS_JSON, NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (!o.quiet) {
        snprintf(quiet_def, sizeof quiet_def, "%s/quiet.tsv", o.data);
        o.quiet = quiet_def;
    }
    if (!o.pgurl) {
        ut_err("usage: collect --root OUT --pgurl URL [--data data] [--pipeline pipeline] [--arms lab/arms.tsv]");
        return 2;
    }
    char err[UT_ERRLEN] = "", masked[1024];
    /* the registered guesses, checked whole (every arm and figure they name
     * exists) before anything else: a guess that names nothing is refused */
    guesstab guesses;
    if (read_guesses(&o, &guesses, err, sizeof err) != 0) {
        ut_err("%s (nothing was written)", err);
        return 2;
    }
    prov_mask(o.pgurl, masked, sizeof masked); /* never print a password */
    PGconn *db = connect_db(o.pgurl, masked, err, sizeof err);
    if (!db) {
        ut_err("%s", err);
        guesstab_free(&guesses);
        return 1;
    }
    prov *pv = prov_begin("collect", argc, argv);
    char path[4096], results[4096];
    char **runs = NULL, **atts = NULL, (*fps)[65] = NULL;
    int nruns = 0, natts = 0, rc = 1, loaded = 0, replaced = 0, ngone = 0, side_running = 0;
    PGconn *side = NULL; /* the second connection: the loading's, then stats_side.sql's */
    char side_sql[4096];
    char *stats_sql = NULL;
    collectpred *pred = NULL;
    /* the prediction, checked whole before the database is touched */
    snprintf(path, sizeof path, "%s/" PATH_PREDICTION, o.root);
    if (collectpred_read(path, &pred, err, sizeof err) != 0 || (pred && prov_input(pv, path, err, sizeof err) != 0))
        goto done;
    /* every raw file held to its run.json's sha256 and the measure
     * manifest, each hashed once, before the database is touched: one file
     * that is not the one measured and nothing is loaded */
    if (list_runs(o.root, PATH_RAW_DIR, &runs, &nruns, err, sizeof err) != 0 ||
        list_runs(o.root, PATH_ATTEMPTS_DIR, &atts, &natts, err, sizeof err) != 0 ||
        check_digests(&o, runs, nruns, atts, natts, &fps, err, sizeof err) != 0)
        goto done;
    /* One collect at a time per database: the server side of a collect
     * killed a moment ago may still be running its statement (schema.sql's
     * CREATEs would race); the lock goes with the session. */
    snprintf(path, sizeof path, "%s/collect/schema.sql", o.pipe);
    if (pgx_exec(db, "SELECT pg_advisory_lock(hashtext('lab collect'))", err, sizeof err) != 0 ||
        pgx_exec_file(db, path, err, sizeof err) != 0)
        goto done;
    {
        /* every run, then every kept attempt, taken in order (collectload_all:
         * the next ones read while two are written, each over a connection
         * of its own: the second one here, for the loading alone) */
        collectload_item *items = malloc((size_t)(nruns + natts + 1) * sizeof *items);
        int done = 0, r = items ? 0 : -1;
        for (int i = 0; items && i < nruns + natts; i++)
            items[i] = (collectload_item){i < nruns ? runs[i] : atts[i - nruns], i >= nruns, fps[i]};
        PGconn *dbs[2] = {db, NULL};
        if (!items)
            ut_seterr(err, sizeof err, "collect: out of memory");
        else if (!(dbs[1] = connect_db(o.pgurl, masked, err, sizeof err)))
            r = -1;
        else
            r = collectload_all(dbs, 2, o.root, items, nruns + natts, &done, &loaded, &replaced, err, sizeof err);
        side = dbs[1];
        free(items);
        for (int i = 0; i < done; i++) {
            snprintf(path, sizeof path, "%s/%s/%s/run.json", o.root, i < nruns ? PATH_RAW_DIR : PATH_ATTEMPTS_DIR,
                     i < nruns ? runs[i] : atts[i - nruns]);
            char e2[UT_ERRLEN];
            if (prov_input(pv, path, e2, sizeof e2) != 0) {
                if (r == 0)
                    snprintf(err, sizeof err, "%s", e2);
                r = -1;
                break;
            }
        }
        if (r != 0)
            goto done;
    }
    /* runs (and attempts) no longer on disk, removed together */
    {
        PGresult *q = PQexec(db, "SELECT run, attempt IS NOT NULL FROM runs ORDER BY run");
        int nq = q && PQresultStatus(q) == PGRES_TUPLES_OK ? PQntuples(q) : 0;
        const char **gone = malloc((size_t)(nq + 1) * sizeof *gone);
        for (int i = 0; gone && i < nq; i++) {
            const char *run = PQgetvalue(q, i, 0);
            int found = 0, att = PQgetvalue(q, i, 1)[0] == 't';
            /* runs and atts are sorted (list_runs) */
            found = bsearch(&run, att ? atts : runs, (size_t)(att ? natts : nruns), sizeof(char *), cmp_str) != NULL;
            if (!found) {
                gone[ngone++] = run;
                printf("collect: %s is no longer on disk: removed from the database\n", run);
            }
        }
        if (ngone > 0)
            collectload_forget_many(db, gone, ngone, err, sizeof err);
        free(gone);
        PQclear(q);
    }
    /* the planner's statistics of the raw tables, for stats.sql's joins and
     * groupings (autovacuum never comes by: schema.sql), and when rows were
     * deleted (a run loaded again, or gone) the space of the dead ones
     * made free again (syslog too: stats.sql never reads it, so it is not
     * analysed otherwise); after a load alone, the two largest are
     * analysed on the second connection meanwhile */
    if ((replaced > 0 || ngone > 0) &&
        pgx_exec(db, "VACUUM (ANALYZE) runs, requests, service_requests, lookups, machine, events, syslog", err,
                 sizeof err) != 0)
        goto done;
    if (loaded > 0 && replaced == 0 && ngone == 0) {
        char e2[UT_ERRLEN];
        if (pgx_send(side, "ANALYZE service_requests, lookups", err, sizeof err) != 0)
            goto done;
        int r = pgx_exec(db, "ANALYZE runs, requests, machine, events", err, sizeof err);
        int r2 = pgx_wait(side, "ANALYZE", e2, sizeof e2);
        if (r == 0 && r2 != 0)
            snprintf(err, sizeof err, "%s", e2);
        if (r != 0 || r2 != 0)
            goto done;
    }
    /* stats_side.sql on the second connection meanwhile (the rows of V
     * counted, the seconds and the false timeouts: the raw tables into
     * tables of their own), waited for where stats.sql says so */
    snprintf(side_sql, sizeof side_sql, "%s/collect/stats_side.sql", o.pipe);
    if (pgx_send_file(side, side_sql, err, sizeof err) != 0)
        goto done;
    side_running = 1;
    if (one_machine_per_round(db, err, sizeof err) != 0)
        goto done;
    if (pgx_exec(db, "BEGIN", err, sizeof err) != 0 || load_comparisons(db, &o, err, sizeof err) != 0 ||
        load_guesses(db, &guesses, err, sizeof err) != 0 || load_quiet(db, &o, err, sizeof err) != 0 ||
        collectpred_load(db, pred, err, sizeof err) != 0)
        goto rollback;
    /* stats.sql up to its line SIDE_DONE, stats_side.sql's end, the rest */
    snprintf(path, sizeof path, "%s/collect/stats.sql", o.pipe);
    {
        size_t n;
        if (ut_read_file(path, &stats_sql, &n, err, sizeof err) != 0)
            goto rollback;
        char *cut = strstr(stats_sql, "\n" SIDE_DONE "\n");
        if (!cut) {
            ut_seterr(err, sizeof err, "%s: no line \"%s\" (where collect waits for stats_side.sql)", path, SIDE_DONE);
            goto rollback;
        }
        cut[1] = 0;
        int r = pgx_exec_named(db, stats_sql, path, err, sizeof err);
        if (r == 0) {
            side_running = 0;
            r = pgx_wait(side, side_sql, err, sizeof err);
        }
        if (r != 0 || pgx_exec_named(db, cut + 2 + strlen(SIDE_DONE), path, err, sizeof err) != 0 ||
            pgx_exec(db, "COMMIT", err, sizeof err) != 0)
            goto rollback;
    }
    snprintf(results, sizeof results, "%s/" PATH_RESULTS_DIR, o.root);
    snprintf(path, sizeof path, "%s/" PATH_RESULTS_JSON, o.root);
    if (ut_mkdir_p(results, err, sizeof err) != 0 || collectexport_results(db, path, err, sizeof err) != 0 ||
        prov_output(pv, path, err, sizeof err) != 0)
        goto done;
    printf("collect: %d runs and %d kept attempts (%d loaded now), statistics computed in PostgreSQL, %s written\n", nruns, natts, loaded,
           path);
    rc = 0;
    goto done;
rollback:
    {
        char e2[UT_ERRLEN];
        pgx_exec(db, "ROLLBACK", e2, sizeof e2);
    }
done:
    if (side_running)
        pgx_cancel(side);
    PQfinish(side);
    free(stats_sql);
    if (rc != 0)
        ut_err("%s", err);
    PQfinish(db);
    collectpred_free(pred);
    guesstab_free(&guesses);
    free(fps);
    for (int i = 0; i < nruns; i++)
        free(runs[i]);
    free(runs);
    for (int i = 0; i < natts; i++)
        free(atts[i]);
    free(atts);
    char provdir[4096];
    snprintf(provdir, sizeof provdir, "%s/" PATH_PROV_DIR, o.root);
    prov_lib(pv, "libpq", PQlibVersion() >= 150000 ? "15" : "other");
    if (prov_end(pv, rc, provdir, err, sizeof err) != 0)
        ut_err("%s", err);
    return rc;
}
