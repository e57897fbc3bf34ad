/* ap: the stand-ins' cost in AP (`make ap`).  Definitions: pipeline/APCOST.md.
 *
 *   ap --root OUT [--prep build/prep] [--arms pipeline/ap_arms.tsv] [--seeds 20]
 *      [--resamples 1000] [--boot-seeds N (default: --seeds)] [--boot-seed 1]
 *      [--threads N (default: online CPUs, at most 8)] [--prov DIR (default OUT/provenance)]
 *      [--pgurl URL]
 *
 * Reads OUT/results/raw/<arm>-r<k>/tester.tsv.gz of every arm named in
 * --arms (an arm without runs is named and skipped; at least one must have
 * runs), the prepared files of --prep, trains the model for seeds 2..N (seed
 * 1 is the reference model of prepare: its scores come from scores.tsv),
 * computes every AP and the paired bootstrap (pipeline/ap/apcost.c and the
 * modules it names) and writes OUT/results/ap.json atomically, after the
 * files a verifier needs to recompute it (every seed's scores in
 * OUT/results/reference/ap_scores.tsv.gz and ap_prev_scores.tsv.gz, every
 * resample's change in OUT/results/ap_resamples.tsv.gz) and before their
 * manifest DIR/manifest-ap.tsv (pipeline/APCOST.md 1.10).  With
 * --pgurl it then replaces each arm's rows of the table ap_costs (created if
 * missing, its format-2 columns added if missing) and every row of the
 * table ap_flooded_runs in one transaction (APCOST.md 1.9).  The database is reached first, so an
 * unreachable one costs nothing and writes nothing.  Provenance: DIR/stage-ap.json.
 *
 * Exit 0 done; 1 failed (message names the file, line or database); 2 usage.
 */
#include <jansson.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apcost.h"
#include "opt.h"
#include "paths.h"
#include "prov.h"
#include "util.h"

static const char *const DDL =
    "CREATE TABLE IF NOT EXISTS ap_costs ("
    " arm text NOT NULL,"
    " kind text NOT NULL,"
    " rounds integer NOT NULL,"
    " requests bigint NOT NULL,"
    " standin_requests bigint NOT NULL,"
    " standin_share double precision NOT NULL,"
    " standin_rows_share double precision NOT NULL,"
    " model_seeds integer NOT NULL,"
    " resamples integer NOT NULL,"
    " live_ap double precision NOT NULL,"
    " change double precision,"
    " change_default_seed double precision,"
    " ci_lo double precision,"
    " ci_hi double precision,"
    " verdict text NOT NULL,"
    " PRIMARY KEY (arm, kind))";

/* format lab-ap 2's columns, added to a table that format 1 created */
static const char *const DDL2[] = {
    "ALTER TABLE ap_costs ADD COLUMN IF NOT EXISTS ci_lo_mc double precision",
    "ALTER TABLE ap_costs ADD COLUMN IF NOT EXISTS ci_hi_mc double precision",
    "ALTER TABLE ap_costs ADD COLUMN IF NOT EXISTS direction text",
    "CREATE TABLE IF NOT EXISTS ap_flooded_runs ("
    " run text NOT NULL,"
    " kind text NOT NULL,"
    " arm text NOT NULL,"
    " round integer NOT NULL,"
    " requests bigint NOT NULL,"
    " standin_requests bigint NOT NULL,"
    " standin_share double precision NOT NULL,"
    " standin_rows bigint NOT NULL,"
    " standin_rows_share double precision NOT NULL,"
    " model_seeds integer NOT NULL,"
    " resamples integer NOT NULL,"
    " live_ap double precision NOT NULL,"
    " change double precision,"
    " change_default_seed double precision,"
    " ci_lo double precision,"
    " ci_hi double precision,"
    " ci_lo_mc double precision,"
    " ci_hi_mc double precision,"
    " verdict text NOT NULL,"
    " direction text,"
    " PRIMARY KEY (run, kind))",
    NULL};

static void mask_url(const char *url, char *out, size_t n)
{
    /* never print a password: cut "password=..." and "user:pass@" */
    snprintf(out, n, "%s", url);
    char *p = strstr(out, "password=");
    if (p) {
        char *e = p + 9;
        while (*e && *e != ' ' && *e != '&')
            e++;
        memmove(p + 12, e, strlen(e) + 1);
        memcpy(p + 9, "***", 3);
    }
    char *at = strchr(out, '@'), *scheme = strstr(out, "://");
    if (at && scheme && at > scheme) {
        char *colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
        if (colon) {
            memmove(colon + 4, at, strlen(at) + 1);
            memcpy(colon, ":***", 4);
        }
    }
}

static int exec_ok(PGconn *db, const char *sql, char *err, size_t errlen)
{
    PGresult *r = PQexec(db, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        ut_seterr(err, errlen, "PostgreSQL: %s: %s", sql, PQerrorMessage(db));
    PQclear(r);
    return ok ? 0 : -1;
}

static void num(char *buf, size_t n, json_t *v)
{
    if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_number(v))
        snprintf(buf, n, "%.17g", json_number_value(v));
    else
        buf[0] = 0;
}

/* The rows of one arm or flooded run (unit), one per kind: ap_costs
 * (flooded 0) or ap_flooded_runs (flooded 1). */
static int load_unit(PGconn *db, const char *name, json_t *u, int flooded, json_t *live, json_t *boot, size_t nseeds,
                     char *err, size_t errlen)
{
    const char *kname;
    json_t *k;
    json_object_foreach(json_object_get(u, "kinds"), kname, k)
    {
        char v[16][64];
        int nv = 0;
        json_t *ci = json_object_get(k, "ci95"), *mc = json_object_get(k, "ci95_mc");
        const char *p[24] = {name, kname};
        int np = 2;
        if (flooded) {
            p[np++] = json_string_value(json_object_get(u, "arm"));
            num(v[nv], 64, json_object_get(u, "round"));
            nv++;
        } else {
            snprintf(v[nv++], 64, "%zu", json_array_size(json_object_get(u, "rounds")));
        }
        num(v[nv++], 64, json_object_get(u, "requests"));
        num(v[nv++], 64, json_object_get(u, "standin_requests"));
        num(v[nv++], 64, json_object_get(u, "standin_share"));
        if (flooded)
            num(v[nv++], 64, json_object_get(u, "standin_rows"));
        num(v[nv++], 64, json_object_get(u, "standin_rows_share"));
        snprintf(v[nv++], 64, "%zu", nseeds);
        num(v[nv++], 64, json_object_get(boot, "resamples"));
        num(v[nv++], 64, live);
        num(v[nv++], 64, json_object_get(k, "change"));
        num(v[nv++], 64, json_object_get(k, "change_default_seed"));
        num(v[nv++], 64, json_array_get(ci, 0));
        num(v[nv++], 64, json_array_get(ci, 1));
        num(v[nv++], 64, json_array_get(mc, 0));
        num(v[nv++], 64, json_array_get(mc, 1));
        /* the columns' order: run or arm, kind, (a flooded run's arm,) then the numbers */
        for (int i = 0; i < nv; i++)
            p[np++] = v[i][0] ? v[i] : NULL;
        p[np++] = json_string_value(json_object_get(k, "verdict"));
        p[np++] = json_string_value(json_object_get(k, "direction"));
        const char *sql =
            flooded ? "INSERT INTO ap_flooded_runs (run, kind, arm, round, requests, standin_requests, standin_share,"
                      " standin_rows, standin_rows_share, model_seeds, resamples, live_ap, change, change_default_seed,"
                      " ci_lo, ci_hi, ci_lo_mc, ci_hi_mc, verdict, direction) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,"
                      "$11,$12,$13,$14,$15,$16,$17,$18,$19,$20)"
                    : "INSERT INTO ap_costs (arm, kind, rounds, requests, standin_requests, standin_share,"
                      " standin_rows_share, model_seeds, resamples, live_ap, change, change_default_seed,"
                      " ci_lo, ci_hi, ci_lo_mc, ci_hi_mc, verdict, direction) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,"
                      "$10,$11,$12,$13,$14,$15,$16,$17,$18)";
        PGresult *r = PQexecParams(db, sql, np, NULL, p, NULL, NULL, 0);
        int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ok) {
            ut_seterr(err, errlen, "PostgreSQL: inserting %s %s into %s: %s", name, kname,
                      flooded ? "ap_flooded_runs" : "ap_costs", PQerrorMessage(db));
            return -1;
        }
    }
    return 0;
}

/* One transaction: create the tables if missing, replace each arm's rows of
 * ap_costs and every row of ap_flooded_runs (APCOST.md 1.9). */
static int load(PGconn *db, json_t *ap, char *err, size_t errlen)
{
    if (exec_ok(db, "BEGIN", err, errlen) != 0)
        return -1;
    if (exec_ok(db, DDL, err, errlen) != 0)
        goto fail;
    for (int i = 0; DDL2[i]; i++)
        if (exec_ok(db, DDL2[i], err, errlen) != 0)
            goto fail;
    json_t *arms = json_object_get(ap, "arms");
    json_t *live = json_object_get(json_object_get(ap, "live_ap"), "mean");
    json_t *boot = json_object_get(ap, "bootstrap");
    size_t nseeds = json_array_size(json_object_get(ap, "model_seeds"));
    const char *name;
    json_t *arm;
    json_object_foreach(arms, name, arm)
    {
        const char *del[1] = {name};
        PGresult *r = PQexecParams(db, "DELETE FROM ap_costs WHERE arm = $1", 1, NULL, del, NULL, NULL, 0);
        int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ok) {
            ut_seterr(err, errlen, "PostgreSQL: deleting %s's rows: %s", name, PQerrorMessage(db));
            goto fail;
        }
        if (load_unit(db, name, arm, 0, live, boot, nseeds, err, errlen) != 0)
            goto fail;
    }
    /* the flooded runs: the study's whole set, so every earlier row goes */
    if (exec_ok(db, "DELETE FROM ap_flooded_runs", err, errlen) != 0)
        goto fail;
    json_object_foreach(json_object_get(ap, "flooded_runs"), name, arm)
    {
        if (load_unit(db, name, arm, 1, live, boot, nseeds, err, errlen) != 0)
            goto fail;
    }
    return exec_ok(db, "COMMIT", err, errlen);
fail:
    PQclear(PQexec(db, "ROLLBACK"));
    return -1;
}

static const char ABOUT[] =
    "ap: the stand-ins' cost in AP (pipeline/APCOST.md)\n"
    "usage: ap --root OUT [--prep build/prep] [--arms pipeline/ap_arms.tsv] [--seeds 20] [--resamples 1000]\n"
    "          [--boot-seeds N] [--boot-seed 1] [--threads N] [--prov DIR] [--pgurl URL]";

int main(int argc, char **argv)
{
    ut_set_prog("ap");
    apc_stage_opts o = {NULL, "build/prep", "pipeline/ap_arms.tsv", 20, -1, 1000, 1, 0, 1, NULL};
    const char *pgurl = NULL, *provdir = NULL;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t resamples = 1000, boot_seed = 1;
    o.threads = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
    const opt_spec spec[] = {
        {"--root", OPT_STR, &o.root, 0, 0, "OUT", "reads OUT/" PATH_RAW_DIR ", writes OUT/" PATH_AP_JSON},
        {"--prep", OPT_STR, &o.prep, 0, 0, "DIR", "the prepared files (build/prep)"},
        {"--arms", OPT_STR, &o.arms, 0, 0, "FILE", "the chosen arms (pipeline/ap_arms.tsv)"},
        {"--seeds", OPT_INT, &o.seeds, 1, 1000, "N", "model seeds 1..N (20)"},
        {"--resamples", OPT_I64, &resamples, 1, 1000000, "B", "bootstrap resamples (1000)"},
        {"--boot-seeds", OPT_INT, &o.boot_seeds, 1, 1000, "K", "the bootstrap averages seeds 1..K (all)"},
        {"--boot-seed", OPT_I64, &boot_seed, 0, 2147483647.0, "S", "seed of the customers' picks (1)"},
        {"--threads", OPT_INT, &o.threads, 1, 64, "N", "threads (the online CPUs, at most 8)"},
        {"--prov", OPT_STR, &provdir, 0, 0, "DIR", "provenance record's folder (OUT/" PATH_PROV_DIR ")"},
        {"--pgurl", OPT_STR, &pgurl, 0, 0, "URL", "load the table ap_costs into this database"},
        {0}};
    int prc = opt_parse(argc, argv, spec, ABOUT, NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (!o.root) {
        ut_err("--root is required (try --help)");
        return 2;
    }
    o.resamples = (size_t)resamples;
    o.boot_seed = (uint64_t)boot_seed;
    if (o.boot_seeds < 0)
        o.boot_seeds = o.seeds;
    if (o.boot_seeds > o.seeds) {
        ut_err("--boot-seeds %d is more than --seeds %d", o.boot_seeds, o.seeds);
        return 2;
    }
    char err[UT_ERRLEN] = "", provbuf[4200];
    if (!provdir) {
        snprintf(provbuf, sizeof provbuf, "%s/" PATH_PROV_DIR, o.root);
        provdir = provbuf;
    }
    o.provdir = provdir;
    PGconn *db = NULL;
    if (pgurl) {
        char masked[1024];
        mask_url(pgurl, masked, sizeof masked);
        db = PQconnectdb(pgurl);
        if (PQstatus(db) != CONNECTION_OK) {
            char m[512];
            snprintf(m, sizeof m, "%s", PQerrorMessage(db));
            m[strcspn(m, "\n")] = 0;
            ut_err("cannot reach PostgreSQL at \"%s\": %s (nothing was computed or written)", masked, m);
            PQfinish(db);
            return 1;
        }
        PQsetNoticeProcessor(db, NULL, NULL);
        exec_ok(db, "SET client_min_messages = warning", NULL, 0);
    }
    prov *pv = prov_begin("ap", argc, argv);
    json_t *ap = NULL;
    int rc = apc_stage(&o, pv, &ap, err, sizeof err);
    if (rc == 0 && db) {
        char ver[32];
        snprintf(ver, sizeof ver, "%d", PQlibVersion());
        prov_lib(pv, "libpq", ver);
        rc = load(db, ap, err, sizeof err);
        if (rc == 0)
            printf("ap: loaded %zu arms into the table ap_costs and %zu flooded runs into ap_flooded_runs\n",
                   json_object_size(json_object_get(ap, "arms")),
                   json_object_size(json_object_get(ap, "flooded_runs")));
        else
            ut_err("%s (" PATH_AP_JSON " is written; the table is unchanged)", err);
    } else if (rc != 0) {
        ut_err("%s", err[0] ? err : "failed");
    }
    char perr[UT_ERRLEN];
    if (prov_end(pv, rc == 0 ? 0 : 1, provdir, perr, sizeof perr) != 0) {
        ut_err("%s", perr);
        rc = -1;
    }
    json_decref(ap);
    if (db)
        PQfinish(db);
    return rc == 0 ? 0 : 1;
}
