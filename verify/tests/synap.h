/* synap: synthetic reference scores of several model seeds for the AP
 * check's tests and bench, written exactly as pipeline/APCOST.md 1.10 says.
 *
 * Contract.  A sap_table is a test table (customers with decimal ids over
 * consecutive monthly cutoffs, labels) with the live and last-known scores
 * of S seeds, last_known following the rule of 1.3 (the same customer's
 * score a month earlier, from the table or from the prev lines for the
 * first cutoff, else the default score); every score a 32-bit float that
 * %.9g prints back exactly.  sap_make draws one (the caller frees it with
 * sap_free); tests may fill one by hand (every array malloc'd, then
 * sap_free works too).  sap_ref gives seed 1 as a syn_ref (copies; free with
 * syn_free_ref) for synth.h's runs.
 *
 * Writers (0, or -1 with a message on stderr): the reference (scores.tsv,
 * summary.json with test_rows_with_last_known and model_seed 1), the two
 * ap_ reference files (gzip), the chosen arms, a stub results/ap.json that
 * only sets the bootstrap's settings, provenance/manifest-ap.tsv over the
 * four files as they are, and sap_promote: results/ap.json and
 * results/ap_resamples.tsv.gz made from results/verified.json's "ap"
 * member (the verifier's own numbers, so that a second verification
 * compares like with like), then manifest-ap.tsv.  sap_gzip_text writes a
 * text as one gzip member.
 */
#ifndef SYNAP_H
#define SYNAP_H

#include <stddef.h>

#include "synth.h"

typedef struct {
    size_t n, S;
    char **cust, **cut;   /* [n] */
    int *label;           /* [n] */
    float **live, **lastk; /* [S][n] */
    float d;
    size_t nprev;         /* the first cutoff's rows with a score a month earlier */
    size_t *prev_row;     /* [nprev], ascending */
    float **prev;         /* [S][nprev] */
    char c0prev[16];      /* the month before the first cutoff */
} sap_table;

/* about `customers` customers over ncut months from 2011-06-01, S seeds */
void sap_make(sap_table *t, size_t customers, size_t ncut, size_t S, unsigned long long seed);
void sap_free(sap_table *t);
void sap_ref(const sap_table *t, syn_ref *ref);
/* the rows with a previous-cutoff score (summary.json's test_rows_with_last_known) */
size_t sap_rows_with_lk(const sap_table *t);

int sap_write_reference(const char *root, const sap_table *t);
int sap_write_seed_files(const char *root, const sap_table *t);
/* root/pipeline/ap_arms.tsv: header arm, one name a line */
int sap_write_arms(const char *root, const char *const *arms, size_t n);
int sap_write_stub_ap_json(const char *root, size_t resamples, size_t boot_seeds);
/* the same with a format ("lab-ap 2": the verifier then computes format 2's
 * numbers, which sap_promote writes as format 2: ci95_mc, flooded_runs,
 * bootstrap.rounds_resampled, the flooded runs' lines of the resamples) */
int sap_write_stub_ap_json_fmt(const char *root, size_t resamples, size_t boot_seeds, const char *format);
int sap_write_manifest_ap(const char *root);
int sap_promote(const char *root);
int sap_gzip_text(const char *path, const char *text, size_t len);

#endif
