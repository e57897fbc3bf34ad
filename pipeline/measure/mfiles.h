/* mfiles: the files of the measure stage, and the small helpers its modules
 * (measure.c, sched.c, remote.c, slog.c) share.
 *
 * - The file lists: what one run writes (store2.tsv.gz besides for an arm
 *   with a second store: mf_event_files), what the runs read, what the
 *   verifier gets as reference, the programs measure starts.  Named once
 *   here (the registered files: PROV_PREREG_FILES, pipeline/common/prov.h).
 * - mf_str: a formatted string that cannot fail (out of memory ends the
 *   program, exit 1); mf_shq: a string in single quotes for sh.
 * - mf_list: a growing list of malloc'd strings (mf_list_add takes the
 *   string; mf_list_free frees them all).
 * - mf_rm_rf, mf_list_dir, mf_list_files: folders; names starting with '.'
 *   are skipped by the listings.
 * - mf_write_json: a JSON object written atomically (indented, keys sorted);
 *   mf_write_manifest: measure's manifest, each file hashed.
 * - mf_attempt_keep, mf_attempts: the records of earlier attempts at a run.
 *   Before the next attempt writes runs/<run>.json, the record there (of a
 *   disturbed run, a failed one or one whose idle gate did not pass, in
 *   this invocation or an earlier one) is kept as runs/<run>.attempt-N.json
 *   (N = 1, 2 ...): every attempt stays in provenance with its reason.
 * - mf_attempt_next, mf_attempt_move, mf_attempt_parse: the raw files of
 *   earlier attempts (pipeline/RESULTS.md, "results/attempts/<run>-a<N>/").
 *   A disturbed attempt's folder raw/<run>/ is renamed, whole and at once,
 *   to attempts/<run>-a<N>/ before the run is measured again, N the number
 *   its record takes when mf_attempt_keep keeps it (mf_attempt_next: the
 *   first free <run>.attempt-N.json), so folder and record share N, also
 *   when measure was stopped between the two renames.  An attempts folder
 *   is never overwritten.
 *
 * Ownership: every returned char * (and mf_attempts's array) is the
 * caller's.
 */
#ifndef PIPELINE_MFILES_H
#define PIPELINE_MFILES_H

#include <jansson.h>
#include <stddef.h>

#define MF_NEVENT 5
#define MF_STORE2_FILE "store2.tsv.gz" /* a run's sixth event file, when run.json's stores is 2 */
#define MF_NPREP 5
#define MF_NREF 2
#define MF_NPROG 4
extern const char *const MF_EVENT_FILES[MF_NEVENT];  /* every run's event files, beside its run.json */
extern const char *const MF_PREP_FILES[MF_NPREP];    /* the prepared files the runs read */
extern const char *const MF_REF_FILES[MF_NREF];      /* copied into results/reference for the verifier */
extern const char *const MF_PROGS[MF_NPROG];         /* run and the three programs it starts */

/* The event files of a run of an arm with `stores` stores (1 or 2) into
 * names[MF_NEVENT + 1]: MF_EVENT_FILES, then MF_STORE2_FILE with 2.  Their
 * number. */
int mf_event_files(int stores, const char **names);

char *mf_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *mf_shq(const char *s);

typedef struct {
    char **v;
    size_t n, cap;
} mf_list;
void mf_list_add(mf_list *l, char *s);
void mf_list_sort(mf_list *l);
void mf_list_free(mf_list *l);

int mf_rm_rf(const char *path);
/* Names in dir, sorted. */
void mf_list_dir(const char *dir, mf_list *out);
/* Files under root/rel, recursively, as paths relative to root (unsorted). */
void mf_list_files(const char *root, const char *rel, mf_list *out);

int mf_write_json(const char *path, json_t *o, char *err, size_t errlen);
/* path (atomically): "path size sha256" and a line per file (relative to root). */
int mf_write_manifest(const char *path, const char *root, const mf_list *files, char *err, size_t errlen);

/* runsdir/<run>.json, when there, becomes the first free <run>.attempt-N.json. */
void mf_attempt_keep(const char *runsdir, const char *run);
/* The names of the earlier attempts' records, oldest first (a new array). */
json_t *mf_attempts(const char *runsdir, const char *run);

/* The number the next kept record of run takes: 1 + the records
 * <run>.attempt-1.json, -2 ... there in a row. */
int mf_attempt_next(const char *runsdir, const char *run);
/* raw/<run>/, when there, renamed to attdir/<run>-a<N>/ (N =
 * mf_attempt_next; attdir made when missing), refusing a name taken.  0
 * (moved, *moved the N; or nothing to move, *moved 0), -1 with err naming
 * both folders. */
int mf_attempt_move(const char *raw, const char *attdir, const char *runsdir, const char *run, int *moved, char *err,
                    size_t errlen);
/* name is "<run>-a<N>" (N a whole number >= 1 without leading zeros): 0
 * with run (at most rl bytes) and *n, else -1. */
int mf_attempt_parse(const char *name, char *run, size_t rl, int *n);

#endif
