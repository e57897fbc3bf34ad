/* mprereg (names mreg_*): what measure (pipeline/measure/measure.c) does with the
 * preregistration, OUT/provenance/prereg.json, before any run starts.
 *
 * - mreg_paths: where measure reads the seven registered files
 *   (PROV_PREREG_FILES, pipeline/common/prov.h): --data's guesses.tsv, design.md and
 *   quiet.tsv, --arms, --comparisons, --ap-arms, --profiles (the registered
 *   design, --data's profiles.tsv).
 * - mreg_check_files: each of the seven must have an entry in prereg.json
 *   (found by its registered path, e.g. "pipeline/comparisons.tsv") whose
 *   sha256 and size it still has; else refused (2), naming the file.  A
 *   registration that lacks one (written before the lab registered seven) is
 *   refused with what to do: make prepare adds the missing ones while OUT
 *   holds no measured run, and refuses once it does (pipeline/prepare/prepare.c).
 * - mreg_prediction: the simulation's prediction of the schedule
 *   (pipeline/RESULTS.md, `results/prediction.json`), made and registered
 *   before the first timed run, or kept:
 *     registered, the file matching its sha256 and size, made for this
 *       schedule (profile, rounds, runs, each run's seconds): kept, never made again
 *       (a measure that resumes does not predict again);
 *     registered, but the file changed or gone: refused (2);
 *     registered for another schedule (ROUNDS= changed) while no run is
 *       in raw: made again and registered anew;
 *     not registered while raw already holds runs (a study begun before
 *       predictions existed): none made, said so (it would come after
 *       the runs it predicts);
 *     else made: BIN/predict --predict OUT/results/prediction.json on the
 *       design: --profiles DATA/profiles.tsv --profile <the profile>, and
 *       --deviations OUT/results/deviations.tsv when that file exists (the
 *       design as run: every open-loop arm of it, each at its own rounds
 *       and seconds, its odds and sizing at that length, the profile's
 *       odds' seeds; the closed-loop capacity arm cannot be simulated),
 *       --noise DATA/noise.tsv when that file exists (the twin),
 *       pipeline/comparisons.tsv and PREP/test.tsv;
 *       timed; then registered: prereg.json gains "prediction": {"path":
 *       "results/prediction.json", "sha256", "size", "registered_utc"}
 *       (rewritten atomically, prepare's layout), and mreg_prediction
 *       returns only once the UTC second has turned, so that every run
 *       starts strictly after registered_utc (both are whole seconds).
 *
 * Errors: 0, or measure's exit code (2 refused, 1 failed) with one message
 * naming the file in err.  Owns nothing; `said` receives one line for the
 * log (what was done, and how long the prediction took).
 */
#ifndef PIPELINE_MPREREG_H
#define PIPELINE_MPREREG_H

#include <stddef.h>

#include "arms.h"
#include "prov.h"
#include "schedule.h"


/* paths[i]: the file registered as PROV_PREREG_FILES[i], as measure reads it
 * (each malloc'd; mreg_paths_free frees them). */
void mreg_paths(const char *data, const char *arms, const char *comparisons, const char *ap_arms,
                const char *profiles, char *paths[PROV_NPREREG]);
void mreg_paths_free(char *paths[PROV_NPREREG]);

/* Every registered file, read from paths, against provdir/prereg.json. */
int mreg_check_files(const char *provdir, char *const paths[PROV_NPREREG], char *err, size_t errlen);

typedef struct {
    const char *root, *provdir, *bin, *prep, *arms_path, *comparisons;
    const char *data;  /* measure's --data: DATA/noise.tsv is the twin's noise model */
    const char *profiles; /* the registered design (measure's --profiles, DATA/profiles.tsv) */
    const arm_table *arms;
    const sched *sc;   /* its design gives the seconds, the rounds and the odds' seeds */
    size_t present;    /* folders in raw when measure began */
} mreg_cfg;

int mreg_prediction(const mreg_cfg *c, char *said, size_t saidlen, char *err, size_t errlen);

#endif
