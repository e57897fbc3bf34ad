/* apcheck: results/ap.json, the stand-ins' cost in AP (pipeline/APCOST.md,
 * part 1), checked against the verifier's own recomputation of all of it.
 *
 * Contract.  ap_check reads <root>/results/ap.json when it exists, the
 * files `make ap` ships for the verifier (provenance/manifest-ap.tsv and
 * the ap_ files: apfiles.h) and the reference (scores.tsv, summary.json:
 * ref), checks every seed's last_known against the same customer's score a
 * month earlier (apseeds.h), recomputes seed 1 directly (aparm.h) and every
 * seed, resample, interval and verdict (apfull.h, apboot.h) from those and
 * the tester files of the raw runs, and compares everything with ap.json
 * and results/ap_resamples.tsv.gz (APCOST.md 1.13; aparmcmp.h per arm).
 * Every difference is recorded with mm_add.  Without a usable
 * ap_scores.tsv.gz (itself a mismatch) only seed 1 is recomputed and the
 * rest is checked for consistency.  Without ap.json nothing is checked
 * (a manifest-ap.tsv then is a mismatch).
 *
 * The chosen arms come from arms_path (header `arm`, one name per line,
 * blank and `#` lines ignored) when it names a file, else from ap.json
 * itself (its `arms` and `skipped_arms`), with a NOTE.
 *
 * Format lab-ap 2 (APCOST.md 1.5, 1.7, 1.11-1.13): the rounds resampled
 * too, each bound's ci95_mc, the verdict's margin and flooded_runs, whose
 * set must be exactly the study's quiet flooded runs of arms without a
 * fault (run.json's fault.name "none"; a store down or hanging fills its
 * window with stand-ins by design: an outage, not a flood): runs[0 ..
 * nruns) are the verifier's own judgement of every run of the study (its
 * name, arm, round, flooded and quiet, recomputed from the raw files, and
 * its fault as read from run.json), only read.  A run whose fault could
 * not be read (fault NULL) is no flooded run.
 * Format lab-ap 1 (the study published on 2026-12-01) is checked as
 * before: no ci95_mc, no flooded_runs, the rounds not resampled.
 *
 * Returns the "checks.ap" object (present, checked, mismatches, ...); sets
 * *member to verified.json's "ap" member (the recomputed numbers in
 * ap.json's layout and more, see verify/README.md), or to a JSON null when
 * ap.json is absent or unreadable.  Both are the caller's to free (or hand
 * to a tree).
 */
#ifndef APCHECK_H
#define APCHECK_H

#include <stddef.h>

#include "aptable.h"
#include "reference.h"
#include "vjson.h"

/* one run of the study as the verifier judged it */
typedef struct {
    const char *name, *arm;
    int round;
    int ok;             /* 0: rejected (a malformed file): no judgement, in no entry */
    int flooded, quiet; /* 1: flooded (RESULTS.md's runs.<run>.flooded), quiet */
    const char *fault;  /* run.json's fault.name as read ("none", "down", ...); NULL: not read */
    const char *kinds;  /* its tester.tsv.gz's kinds in row order, nkinds of them, kept from the
                         * first reading (NULL: not read whole; the AP then reads the file) */
    long long nkinds;
} ap_run_state;

vj_node *ap_check(const char *root, const ref_data *ref, const char *arms_path, const ap_run_state *runs,
                  size_t nruns, vj_node **member);
/* 0 when arms_path is absent or a well-formed chosen-arms file; else -1
 * with the file and line in err (the caller exits 2: unusable input) */
int ap_arms_file_check(const char *arms_path, char *err, size_t errlen);

#endif
