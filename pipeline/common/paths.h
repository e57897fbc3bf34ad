/* paths: the study's layout, one owner.  Every stage names a file of a study
 * through these, relative to the study's root (OUT: `.` for the published
 * study, build/quick for make quick); pipeline/RESULTS.md describes each
 * file.  The lab's programs take every path on their command line and know
 * none of these.
 *
 * Each is a string literal, so that a format or a shell command is built by
 * concatenation: "%s/" PATH_RAW_DIR "/%s" is OUT/results/raw/<run>.
 */
#ifndef PIPE_PATHS_H
#define PIPE_PATHS_H

/* the two folders of a study */
#define PATH_RESULTS_DIR "results"
#define PATH_PROV_DIR "provenance"

/* measure's: the runs' folders (results/raw/<arm>-r<round>/), the kept
 * disturbed attempts of runs measured again (results/attempts/<run>-a<N>/,
 * N the attempt's number, as in its record <run>.attempt-N.json), the
 * schedule, its departures from the registered design (absent when none),
 * the references the runs were measured against, the prediction, each
 * run's record (provenance/runs/<run>.json) */
#define PATH_RAW_DIR "results/raw"
#define PATH_ATTEMPTS_DIR "results/attempts"
#define PATH_SCHEDULE "results/schedule.tsv"
#define PATH_DEVIATIONS "results/deviations.tsv"
#define PATH_REFERENCE_DIR "results/reference"
#define PATH_PREDICTION "results/prediction.json"
#define PATH_RUNS_DIR "provenance/runs"

/* the stages' results */
#define PATH_RESULTS_JSON "results/results.json" /* collect */
#define PATH_COST_JSON "results/cost.json"       /* cost */
#define PATH_PROVENANCE_MD "results/provenance.md" /* provmd */

/* ap's reference files (APCOST.md part 1); `make measure` leaves the two
 * score files out of its manifest, ap writes them */
#define PATH_AP_SCORES PATH_REFERENCE_DIR "/ap_scores.tsv.gz"
#define PATH_AP_PREV PATH_REFERENCE_DIR "/ap_prev_scores.tsv.gz"
#define PATH_AP_RESAMPLES "results/ap_resamples.tsv.gz"
#define PATH_AP_JSON "results/ap.json"
#define PATH_AP_MANIFEST "manifest-ap.tsv" /* in the provenance folder */

/* prepare's copy of each registered file, under its path in the repository:
 * provenance/registered/data/guesses.tsv, ... (pipeline/common/prov.h) */
#define PATH_REGISTERED "registered" /* in the provenance folder */

#endif
