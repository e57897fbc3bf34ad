/* paths: the study's layout, one owner.  Every stage names a file of a study
 * through these, relative to the study's root (OUT: `.` for the published
 * study, build/quick for make quick); pipeline/RESULTS.md describes each
 * file.  The lab's programs take every path on their command line and know
 * none of these.
 */
#ifndef PIPE_PATHS_H
#define PIPE_PATHS_H

/* ap's reference files (APCOST.md part 1); `make measure` leaves the two
 * score files out of its manifest, ap writes them */
#define PATH_AP_SCORES "results/reference/ap_scores.tsv.gz"
#define PATH_AP_PREV "results/reference/ap_prev_scores.tsv.gz"
#define PATH_AP_RESAMPLES "results/ap_resamples.tsv.gz"
#define PATH_AP_JSON "results/ap.json"
#define PATH_AP_MANIFEST "manifest-ap.tsv" /* in the provenance folder */

#endif
