/* noise (names noise_*): the machine's own time per lookup, fitted on the
 * quiet runs of a measured study, for the twin's replicas (lab/play/playsim.h,
 * psim_set_noise); the one reader and writer of data/noise.tsv.
 *
 * What is fitted, per rate (300 and 450 requests a second), from every run
 * folder of ROOT/results/raw/ whose run.json says an open-loop arm (rate
 * above 0) without a fault, quiet (`quiet.quiet` true), and, when
 * ROOT/results/results.json is there, not flooded (a flood's own
 * congestion is the effect the twin is to predict, not the machine's time):
 * - `over`: the store's overshoot of each answered lookup, store.tsv.gz's
 *   `end_us` of a row with outcome A (how much longer than planned it held
 *   its slot: lab/RAWFORMAT.md);
 * - `trips`: the two trips of the same lookup, service.tsv.gz's `aK_end_us`
 *   of the lookup (req, K) with `aK_out` A (how much longer than planned
 *   the answer took: overshoot and both trips) minus its `over`;
 * - `scale`: each run's mean `trips` over the pooled mean: how much slower
 *   or faster one run's machine was than the average run.
 * The model keeps NOISE_NQ quantiles of over and trips (shares k/(NQ-1),
 * k = 0 .. NQ-1, by ut_pct_sorted's interpolation), in ns, and every
 * run's scale (ascending).  A replica then draws a scale from those, and
 * per lookup a trip and an overshoot from the quantiles (pipeline/measure/predict.c).
 *
 * data/noise.tsv: line 1 "# lab-noise 1: " and where it was fitted from;
 * then the header `rate what k value` and one line per value: for each
 * rate (ascending), `trips` k = 0 .. NQ-1 (ns, integer), `over` likewise,
 * `scale` k = 0 .. runs-1 (%.6f); `runs` and `lookups` (k 0) give how many
 * runs and answered lookups the rate's fit saw.  noise_read refuses, naming
 * file, line and field: a rate other than 300 or 450, an unknown `what`, a
 * k out of order, a quantile list not ascending or not of NQ values, no
 * scale, a value that does not parse.
 *
 * Ownership: noise_fit and noise_read fill a model that owns its scales;
 * noise_free frees them.
 */
#ifndef PIPELINE_NOISE_H
#define PIPELINE_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "playsim.h"

#define NOISE_NQ 101
#define NOISE_NRATES 2

typedef struct {
    int rate;
    int64_t trips[NOISE_NQ], over[NOISE_NQ];
    double *scale; /* ascending */
    size_t nscale;
    long runs, lookups;
} noise_group;

typedef struct {
    noise_group g[NOISE_NRATES];
    int ng;
} noise_model;

int noise_fit(noise_model *m, const char *root, char *err, size_t errlen);
int noise_write(const noise_model *m, const char *path, const char *source, char *err, size_t errlen);
int noise_read(noise_model *m, const char *path, char *err, size_t errlen);
void noise_free(noise_model *m);
/* The group of a rate, or NULL. */
const noise_group *noise_for_rate(const noise_model *m, int rate);
/* Replica `replica` (1, 2, ...) of the group, for psim_set_noise: key
 * NOISE_KEY + replica, its scale the run scale of index
 * floor(u * nscale), u = ut_u64_unit(ut_hash4(NOISE_KEY, replica, 0, 0));
 * the trips as the delay, the overshoot as the overshoot.  *out points
 * into g, which must outlive its use. */
#define NOISE_KEY 0x7477696eULL /* "twin" */
void noise_replica(const noise_group *g, uint32_t replica, psim_noise *out);

#endif
