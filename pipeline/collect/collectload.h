/* collectload: collect's loader: one run's raw files -> PostgreSQL.
 *
 * collectload_run loads ROOT/results/raw/<run>/ unless a run of that name
 * with the same fingerprint fp is loaded already (the sha256 of the sha256s
 * of run.json and its event files: tester, service, store, machine, events,
 * then store2 when there is one; computed by pipeline/common/rawdigest.h's
 * rawdigest_check_run, which the caller has run on the folder: every file
 * held to run.json's sha256s and the measure manifest, each hashed once).
 * Everything is read and checked before
 * the database is touched: the run's files decoded whole through lab/raw4
 * (raw format 4, lab/RAWFORMAT.md; "=" scores from ROOT/results/reference,
 * needed only when a score says "="; the tables' columns are the decoded
 * ones: j, row, sched_t, planned_ns filled in); run.json's arm, round, seconds, t0_ns,
 * fault, stores and the arm_spec columns the statistics use (tries,
 * brk_cool_ms, rb_pct, rb_floor, inflight, store2); store2.tsv.gz present
 * exactly when stores is 2; each service row's store within 1 .. stores.
 * Then, in one transaction, the run's old rows are deleted (when it was
 * loaded before from other files; a run new to the database has none) and
 * the new ones COPied in (the raw tables have no index to keep up): store2's rows into `lookups` with store 2 (store.tsv.gz's with
 * 1), the events numbered in file order, the run's system log lines
 * (ROOT/provenance/runs/<run>.json) through the redactor.  An error names
 * the file, line and field, and leaves nothing of that run loaded.
 *
 * collectload_attempt loads ROOT/results/attempts/<run>-a<N>/, a kept
 * disturbed attempt (pipeline/RESULTS.md), the same way under the name
 * <run>-a<N> with `runs.attempt` N (null for a run): its run.json's arm and
 * round must be the run's, its system log lines come from its record
 * provenance/runs/<run>.attempt-N.json.  stats.sql gives it every figure of
 * a run and counts it in nothing.
 *
 * collectload_all loads n folders (items: a run of results/raw, or with
 * attempt 1 a kept attempt of results/attempts, and its fingerprint) the
 * same way, each in its own transaction, over ndb connections side by side
 * (dbs: one writing thread each, taking the folders in order), while one
 * more thread reads and checks the next ones (at most three ahead); *done
 * is the number of items loaded or skipped before the first that failed (n
 * when none; its error is the one reported, though a later folder the other
 * connection was writing may be loaded too), *loaded the number loaded now,
 * *replaced how many of them replaced a run loaded before from other files
 * (their old rows deleted).
 *
 * collectload_forget deletes a run's (or an attempt's) rows from every raw
 * table; collectload_forget_many those of n runs, one DELETE per table.
 *
 * Returns: collectload_all 0 or -1; collectload_run and collectload_attempt 1 loaded, 0 already loaded, -1 error (err);
 * collectload_forget and collectload_forget_many 0 or -1.  The caller owns the connection.
 */
#ifndef PIPELINE_COLLECTLOAD_H
#define PIPELINE_COLLECTLOAD_H

#include <libpq-fe.h>
#include <stddef.h>

int collectload_run(PGconn *db, const char *root, const char *run, const char *fp, char *err, size_t errlen);
int collectload_attempt(PGconn *db, const char *root, const char *name, const char *fp, char *err, size_t errlen);
typedef struct {
    const char *name; /* the folder's name: the run's, or <run>-a<N> */
    int attempt;      /* 1: a kept attempt */
    const char *fp;   /* its fingerprint */
} collectload_item;

int collectload_all(PGconn *const *dbs, int ndb, const char *root, const collectload_item *items, int n, int *done,
                    int *loaded, int *replaced, char *err, size_t errlen);
int collectload_forget(PGconn *db, const char *run, char *err, size_t errlen);
int collectload_forget_many(PGconn *db, const char *const *runs, int n, char *err, size_t errlen);

#endif
