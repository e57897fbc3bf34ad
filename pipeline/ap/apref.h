/* apref: the files `make ap` ships so that a verifier can recompute the
 * whole AP result (pipeline/APCOST.md 1.10): every model seed's live and
 * last-known scores, the previous-cutoff scores no test row holds, every
 * bootstrap resample's change, and the manifest that fingerprints them with
 * ap.json.
 *
 *   apref_rule             the last-known rule of APCOST.md 1.3 on the
 *                          stage's own scores, bit for bit, every seed and
 *                          row; the rows with a previous-cutoff score counted
 *   apref_write_scores     results/reference/ap_scores.tsv.gz and
 *                          ap_prev_scores.tsv.gz
 *   apref_write_resamples  results/ap_resamples.tsv.gz
 *   apref_write_manifest   DIR/manifest-ap.tsv (the four files, in order)
 *   apref_check            the shipped files read back as a verifier reads
 *                          them: the manifest (when given), the layout,
 *                          seed 1 = scores.tsv byte for byte, the rule,
 *                          and summary.json's test_rows_with_last_known
 *
 * Every file is written atomically (a temporary name, then rename); the
 * gzip files carry no time, so the same scores give the same bytes.
 *
 * Ownership: the functions read the caller's arrays and keep nothing.
 * Every function returns 0 or -1 with a message in err naming the file and
 * line, or the seed and row.
 */
#ifndef PIPELINE_APREF_H
#define PIPELINE_APREF_H

#include <stddef.h>
#include <stdint.h>

#include "apboot.h"
#include "apstudy.h"

/* The files' paths, relative to OUT: pipeline/common/paths.h. */
#include "paths.h"

/* The scores of seeds 1..nseeds over one test table. */
typedef struct {
    size_t n;                    /* test rows */
    size_t nseeds;               /* S */
    const int32_t *customer;     /* [n] */
    const int32_t *cutoff;       /* [n], days since 1970-01-01 */
    const float *live, *lastk;   /* [S * n]: seed s (from 1), row i at (s - 1) * n + i */
    float dflt;                  /* the default score */
    /* Previous-cutoff rows the caller knows of (prev.tsv's lines, or only
     * those of the first test cutoff): their test rows (strictly ascending)
     * and cutoffs. */
    size_t nprev;
    const int32_t *prev_row, *prev_cutoff;
    const float *prev_score;     /* [S * nprev] or NULL: checked against lastk */
    int prev_complete;           /* 1: prev_* lists every row that has one */
} apref_scores;

/* The rule of APCOST.md 1.3: a row whose customer has a row at the month
 * before its cutoff has, for every seed, last_known = that row's score bit
 * for bit; a row with a previous-cutoff line that is no test row's has
 * last_known = prev_score (when given); every other row the default.
 * Every prev line's cutoff is the month before its row's, and a line at a
 * test cutoff has its test row.  *with (optional) gets the rows with a
 * previous-cutoff score. */
int apref_rule(const apref_scores *sc, size_t *with, char *err, size_t errlen);

/* ap_scores.tsv.gz (every row) and ap_prev_scores.tsv.gz (the prev lines
 * whose cutoff is before the first test cutoff, scores = lastk of their
 * row) under root. */
int apref_write_scores(const char *root, const apref_scores *sc, char *err, size_t errlen);

/* ap_resamples.tsv.gz under root: per arm, per computed kind, per resample. */
int apref_write_resamples(const char *root, const apboot_result *r, const apstudy_arm *arms, size_t narms,
                          size_t resamples, char *err, size_t errlen);

/* provdir/manifest-ap.tsv: the four files under root, hashed now. */
int apref_write_manifest(const char *root, const char *provdir, char *err, size_t errlen);

/* What a verifier can check of the shipped reference scores (APCOST.md
 * 1.10, the four checks): the files under root against scores_tsv and
 * summary_json (the prepared files or their copies in results/reference);
 * first, when manifest is not NULL, every line of that manifest against
 * the files.  *nseeds (optional) gets S. */
int apref_check(const char *root, const char *manifest, const char *scores_tsv, const char *summary_json,
                size_t *nseeds, char *err, size_t errlen);

#endif
