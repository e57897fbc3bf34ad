/* playmap: the map of floods by load (build/bin/map, make map; and the
 * prediction's `map`, pipeline/measure/predict.c).  Every policy of the
 * 450/s arms, put at every load of a grid, simulated by play
 * (lab/play/playsim.h) over the same seeds: per policy and load the seeds
 * that flooded, when, the stand-in share, and at one load the size of the
 * trigger.  pipeline/RESULTS.md ("The map") defines every figure; this is
 * the playground's computation of them, the study's is collect's.
 *
 * A policy at a load: its template arm (H4-<policy>, or H3-<policy> when
 * lab/arms.tsv has no H4 one: ahedge) with its rate set
 * to the load, nothing else changed; its name "H<load>-<policy>" (the arm
 * name grammar's, lab/core/arms.h).  Seed k of a cell meets the arrivals
 * and dice of lab round k at that rate, so the cell (r2, 450) is the
 * prediction's odds of H4-r2 over the same seeds and seconds
 * (tests/pipeline/test_playmap.c).
 *
 * The work: each seed is simulated for every policy at every load with
 * play's flood stop (a seed that floods stops there; a calm one runs to
 * its end) and, at PMAP_TRIGGER_LOAD, play's freeze count.  The seeds are
 * shared out among `threads` threads (each its own simulation and its own
 * psim_seed: a seed's dice are drawn once for all its cells); the results
 * do not depend on the number of threads.
 *
 * The figures (pmap_cell, pmap_capacity), from the per-seed results:
 * - k, n: seeds flooded, seeds run; share k / n; wilson95: the Wilson score
 *   interval (lab/base/util.h's ut_wilson95);
 * - onset_median_s: the percentile 0.5 (linear between closest ranks) of
 *   the flooded seeds' first flooded second (NAN when none flooded);
 * - standin_median: the percentile 0.5 of the calm seeds' stand-in shares
 *   (stand-ins over requests of the whole round; NAN when none is calm: a
 *   flooded seed stops at its flood and has no round's share);
 * - the hidden capacity of a policy: the highest load L of the grid such
 *   that the share is below PMAP_CAPACITY_P at L and at every load below
 *   it (-1: already at the lowest load); `tips` 0 when no load of the grid
 *   reaches it (the capacity is then the grid's top, a lower bound); its
 *   interval [lo, hi]: the same rule on the Wilson upper bounds (lo) and
 *   on the Wilson lower bounds (hi), -1 where no load qualifies;
 * - the trigger (at PMAP_TRIGGER_LOAD): per seed the most freezes holding
 *   the store's slots at once (playsim.h's frz_trigger), counted over the
 *   flooded and over the calm seeds, counts[v] the seeds with v.
 *
 * Ownership: pmap_run fills m's results (malloc'd); pmap_free frees them.
 */
#ifndef LAB_PLAYMAP_H
#define LAB_PLAYMAP_H

#include <stddef.h>
#include <stdint.h>

#include "arms.h"

#define PMAP_POLICIES "r2,r2b,r2bj,r4xf,hedge,ahedge,r2bud,brkr2,r2dl,fb25,dldown"
#define PMAP_LOAD_LO 300
#define PMAP_LOAD_HI 600
#define PMAP_LOAD_STEP 25
#define PMAP_SECONDS 30.0
#define PMAP_CAPACITY_P 0.01
#define PMAP_TRIGGER_LOAD 450
#define PMAP_MAX_POLICIES 16
#define PMAP_MAX_LOADS 64
#define PMAP_TRIGGER_MAX 64 /* counts[0 .. PMAP_TRIGGER_MAX]; larger counted in the last */

typedef struct {
    /* in */
    const arm *tmpl[PMAP_MAX_POLICIES]; /* each policy's template arm */
    char policy[PMAP_MAX_POLICIES][16];
    size_t npol;
    int loads[PMAP_MAX_LOADS];
    size_t nloads;
    const uint32_t *seeds;
    size_t nseeds;
    double seconds;
    int slots, conns, threads;
    /* out: per policy p, load l, seed s at ((p * nloads) + l) * nseeds + s */
    uint8_t *flooded;
    int32_t *from_s;  /* -1: calm */
    double *standin;  /* the seed's stand-in share (of the requests simulated until it stopped) */
    int32_t *trigger; /* at PMAP_TRIGGER_LOAD, else -1 */
    uint64_t lookups; /* simulated, in all */
    double wall_s;
    double pol_s[PMAP_MAX_POLICIES];        /* each policy's time, summed over the threads */
    uint64_t pol_lookups[PMAP_MAX_POLICIES]; /* and its lookups */
} pmap;

typedef struct {
    int load;
    size_t k, n;
    double share, wilson95[2];
    double onset_median_s, standin_median; /* NAN: none */
} pmap_cell;

typedef struct {
    int load, lo, hi; /* -1: none */
    int tips;         /* a load of the grid reaches PMAP_CAPACITY_P */
} pmap_capacity;

typedef struct {
    size_t n;
    double median; /* NAN when n = 0 */
    size_t counts[PMAP_TRIGGER_MAX + 1];
    int max;       /* the largest v with counts[v] > 0, -1 when n = 0 */
} pmap_trigger;

/* The policies of `policies` (comma-separated; NULL: PMAP_POLICIES) from t
 * (each's template, as above) and the grid's loads into m.  0, or -1 with
 * why (a policy without a template arm, too many). */
int pmap_setup(pmap *m, const arm_table *t, const char *policies, char *why, size_t whylen);
/* Every cell over every seed.  0, or -1 when out of memory. */
int pmap_run(pmap *m);
void pmap_free(pmap *m);

void pmap_cell_of(const pmap *m, size_t p, size_t l, pmap_cell *c);
void pmap_capacity_of(const pmap *m, size_t p, pmap_capacity *c);
/* The trigger of policy p over its flooded (flooded = 1) or calm seeds, at
 * PMAP_TRIGGER_LOAD (n = 0 when the grid lacks it). */
void pmap_trigger_of(const pmap *m, size_t p, int flooded, pmap_trigger *tr);
/* The map as pipeline/RESULTS.md's prediction `map` (seeds: the seeds as
 * given, "1-1000"): a new object, the caller's. */
typedef struct json_t json_t;
json_t *pmap_json(const pmap *m, const char *seeds);

#endif
