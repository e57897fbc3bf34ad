/* raw4: raw format 4 (lab/RAWFORMAT.md): the run driver's rewrite of the
 * processes' logs into the published files, and the one decoder of those
 * files back into absolute instants.
 *
 * The processes log every instant in ns ("<dir>/tester.log.gz",
 * service.log.gz, store.log.gz, store2.log.gz: raw format 3, lab/raw/rawfmt.h's
 * log tables).  raw4_rewrite, run by lab/run/run.c once the processes have
 * stopped, first checks that the logs hold exactly what format 4 leaves out
 * (request j on place j, the row j mod test_rows, the scheduled arrival of
 * the Poisson schedule, the planned wait of the dice (plus a slow store's
 * slowness at the lookup's arrive_us: faults.h's fault_slow_ns), a closed loop's
 * sched_t = send_t, the service's row = req mod test_rows), failing with
 * the log, the line and the column named; then writes tester.tsv.gz,
 * service.tsv.gz, store.tsv.gz (store2.tsv.gz) in format 4 (gzip level 9,
 * each through a temporary file and a rename), reads them back through the
 * decoder and checks every instant within [x - 999, x] ns of the logged x
 * ([x - 999, x + 999] in a store row rounded up at a window's edge)
 * and every other value equal; only then removes the logs.
 *
 * raw4_decode reads those files back into the log tables' columns (the same
 * arrays of absolute ns every reader used before format 4: j, row,
 * sched_t, planned_ns and '=' scores filled in).  raw4_read_run does it for
 * a run folder from its run.json, with the machine and events files too.
 * Every error names the file, the line and the column.
 *
 * The reference (a score "="): scores.tsv (score and last_known per table
 * row) and summary.json (default_score) of build/prep or results/reference.
 * Without one (NULL) the rewrite writes every score as a number, and the
 * decoder leaves an "=" score as RAWFMT_REF (for a reader that does not
 * look at scores); with an empty one (no rows) it refuses an "=".
 *
 * Ownership: raw4_ref_load and the readers fill caller-owned structures,
 * freed by raw4_ref_free and raw4_run_free (safe on zeroed ones, and left
 * freeable on failure).  Functions return 0 or -1 with the reason in err.
 */
#ifndef LAB_RAW4_H
#define LAB_RAW4_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "faults.h"
#include "rawfmt.h"

typedef struct {
    size_t n;     /* table rows */
    float *score; /* [n] the live score of each row */
    float *last;  /* [n] its last-known score */
    float dflt;   /* the default score */
} raw4_ref;

/* dir/scores.tsv and dir/summary.json.  *found 0 (and 0 returned) when
 * dir/scores.tsv does not exist; found may be NULL (then it must exist). */
int raw4_ref_load(const char *dir, raw4_ref *out, int *found, char *err, size_t errlen);
void raw4_ref_free(raw4_ref *r);

/* What of run.json the format needs. */
typedef struct {
    int64_t t0, requests, test_rows, round, rate; /* rate 0: closed loop */
    double seconds, freeze;
    char wait; /* arm_spec.wait: Z F L H */
    int stores;
    fault_spec fault; /* run.json's fault (absent: none): a slow store's planned_ns */
    fault_window win; /* its window in ns from t0 */
} raw4_params;

/* From a run.json object (`what` names it in errors). */
int raw4_params_json(const json_t *run, const char *what, raw4_params *p, char *err, size_t errlen);

/* The four files format 4 rewrites, and the two it leaves; f[RAW4_STORE2]
 * is empty (t NULL) with one store. */
enum { RAW4_TESTER, RAW4_SERVICE, RAW4_STORE, RAW4_STORE2, RAW4_MACHINE, RAW4_EVENTS, RAW4_NFILES };
extern const char *const RAW4_NAMES[RAW4_NFILES]; /* "tester" ... "events" */

typedef struct {
    raw4_params p;
    rawfmt_file f[RAW4_NFILES]; /* the log tables' columns (RAWFMT_TESTER ...), absolute ns */
} raw4_run;

/* The rewrite's figures, per file (RAW4_TESTER .. RAW4_STORE2). */
typedef struct {
    size_t rows[4];
    uint64_t log_bytes[4], out_bytes[4]; /* the logs (format 3, gzip 6) and the files written */
    double seconds;                      /* the rewrite's wall time */
} raw4_stats;

int raw4_rewrite(const char *dir, const raw4_params *p, const raw4_ref *ref, raw4_stats *st, char *err,
                 size_t errlen);

/* dir's tester, service, store (store2) files into out->f; ref may be NULL. */
int raw4_decode(const char *dir, const raw4_params *p, const raw4_ref *ref, raw4_run *out, char *err,
                size_t errlen);

/* A whole run folder: dir/run.json, the reference from refdir (NULL: none,
 * "=" stays RAWFMT_REF; a folder without scores.tsv: empty, "=" refused),
 * all six files. */
int raw4_read_run(const char *dir, const char *refdir, raw4_run *out, char *err, size_t errlen);
void raw4_run_free(raw4_run *r);

/* Rows of a version 4 table (RAWFMT_TESTER4 ...; RAWFMT_REF writes "=") to
 * a gzip file at level 9, atomically. */
int raw4_write_file(const char *path, const rawfmt_file *f, char *err, size_t errlen);

#endif
