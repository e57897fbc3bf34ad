/* synth: synthetic studies written exactly per lab/RAWFORMAT.md and
 * pipeline/RESULTS.md, for the verifier's tests and bench.
 *
 * Contract: a syn_run holds the rows of one run with absolute times; the
 * writer does the delta encoding and gzip, and writes run.json with the
 * files' rows, size and sha256.  syn_gen_run fills a run with random but
 * well-formed rows (answers taken from the reference given, so the answer
 * check passes); syn_free_run frees its rows.  The other writers make the
 * reference, the manifest, comparisons and guesses files.  All return 0 or
 * -1 (with a message on stderr).
 */
#ifndef SYNTH_H
#define SYNTH_H

#include <stddef.h>

typedef struct {
    long long j, row, sched, send, answer;
    int has_answer;
    int status;
    char kind;
    float score;
    int has_score;
    int conn, waited;
} syn_trow;

typedef struct {
    long long req, row;
    int has_req, has_row;
    long long arrive, answer;
    int status;
    char kind;
    int lookups;
    long long a_start[3], a_end[3];
    char a_out[3];
    int a_has[3];
} syn_vrow;

typedef struct {
    long long req, attempt, row, arrive, start, end;
    int has_start, has_end;
    long long planned, budget;
    char outcome;
    int line, busy;
} syn_srow;

typedef struct {
    char arm[64];
    int round;
    double seconds;
    int rate;
    long long t0;
    long long test_rows;
    syn_trow *t;
    size_t nt;
    syn_vrow *v;
    size_t nv;
    syn_srow *s;
    size_t ns;
} syn_run;

typedef struct {
    size_t rows;
    float *score, *last_known;
    float default_score;
} syn_ref;

int syn_write_run(const char *root, const syn_run *r, int level);
void syn_free_run(syn_run *r);
/* random rows: n requests at rate/s from t0; the answers follow ref */
void syn_gen_run(syn_run *r, const char *arm, int round, size_t n, double rate, unsigned long long seed,
                 const syn_ref *ref, long long t0);

void syn_make_ref(syn_ref *ref, size_t rows, unsigned long long seed);
void syn_free_ref(syn_ref *ref);
int syn_write_reference(const char *root, const syn_ref *ref);
int syn_write_manifest(const char *root);
/* a reference whose customer, cutoff and label are given per row (the AP
 * check groups rows by cutoff and counts customers); default_score and
 * every score as in ref, printed with %.9g */
int syn_write_reference_table(const char *root, const syn_ref *ref, const char *const *customer,
                              const char *const *cutoff, const int *label);
/* a run whose request j asks row j % rows and is answered with kinds[j]
 * (L live, K last-known, D default: the lookup timed out at 25 ms; E a 504),
 * one request every 50 ms from t0; every file consistent with the others */
void syn_kind_run(syn_run *r, const char *arm, int round, const char *kinds, const syn_ref *ref, long long t0);
/* results/results.json made from results/verified.json's runs, arms,
 * verdicts and guesses (so that only other checks can fail) */
int syn_results_from_verified(const char *root);
int syn_write_text(const char *path, const char *text);
int syn_mkdirs(const char *path);

#endif
