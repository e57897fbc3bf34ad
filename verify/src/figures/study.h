/* study: everything the verifier recomputes for one study root.
 *
 * Contract: study_compute reads <root>/results/raw/<run>/ for every run,
 * the reference (<root>/results/reference/), the comparisons, guesses and
 * quiet files, and builds s->mine: a tree with the layout of results.json
 * ("runs", "arms", "verdicts", "guesses", "attempts"; pipeline/RESULTS.md)
 * holding the verifier's own numbers.  Only quiet runs count in arms,
 * verdicts and guesses; a disturbed run keeps its figures in "runs" and its
 * round in its arm's "rounds_disturbed".  Every folder of
 * results/attempts/ named <run>-a<N> is read like a run folder
 * (rf_compute_in: every raw-file rule and answer check) into s->attempts
 * and "attempts" (its figures and "attempt": N), counted in nothing else;
 * another name there is a mismatch.  Failed checks along the way are recorded
 * with mm_add.  Returns 0, or 2 for unusable input (no reference, no raw
 * folder, an unreadable or malformed comparisons, guesses or quiet file, a
 * guess whose predicate names a figure or an arm there is not: predicate.h)
 * with the message (file and line) in err.  study_free releases everything
 * study_compute allocated.  The study also answers figure look-ups for
 * predicates (study_pr_data), on quiet runs only.
 */
#ifndef STUDY_H
#define STUDY_H

#include <stddef.h>

#include "predicate.h"
#include "quiet.h"
#include "reference.h"
#include "runfig.h"
#include "vjson.h"

typedef struct {
    char arm[128];
    size_t *idx;        /* indexes into runs of the arm's accepted quiet runs, by round */
    size_t n;
    int *disturbed;     /* the rounds of its accepted runs that are not quiet, ascending */
    size_t nd;
    int last_round;     /* of its accepted runs so far (0: none) */
} study_arm;

typedef struct {
    char root[4096];
    ref_data ref;
    rf_run *runs;
    size_t nruns, rejected;
    rf_run *attempts;       /* results/attempts/<run>-a<N>/, sorted; in nothing but "attempts" */
    size_t nattempts;
    study_arm *arms;
    size_t narms;
    pr_verdict *verdicts;   /* one per comparisons line */
    size_t nverdicts;
    char guesses_sha256[65];
    qr_rules rules;         /* the quiet file */
    long answers_checked;
    vj_node *mine;
} study;

/* arms[0..narms): the registered arms' names (the arms file's), which a
 * guess's predicate may name (data/README.md: arm := a name of lab/arms.tsv) */
int study_compute(const char *root, const char *guesses_path, const char *comparisons_path,
                  const char *quiet_path, const char *const *arms, size_t narms, study *s, char *err,
                  size_t errlen);
pr_data study_pr_data(study *s);
/* the run of arm and round (accepted quiet runs only), or NULL */
const rf_run *study_run(const study *s, const char *arm, int round);
void study_free(study *s);

#endif
