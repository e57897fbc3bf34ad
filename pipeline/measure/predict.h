/* predict: measure's prediction of a study, written before it is measured
 * (build/bin/predict --predict, run by make measure), and the rounds each
 * verdict needs (build/bin/predict --sizing, run by make sizing into
 * docs/SIZING.md).  The options are play's (lab/play/playopt.h) plus the
 * design (predictmain.c); the simulation is play's (lab/play/playsim.h):
 * the stage uses the lab's simulator, the lab knows nothing of the stage.
 *
 * The plan (predict_plan, made by predictmain.c): per arm of the
 * prediction its rounds, its runs' seconds and the seconds its odds and
 * sizing are simulated at.  From the design (--profiles data/profiles.tsv
 * --profile NAME [--deviations results/deviations.tsv], read by
 * pipeline/measure/profiles.h: the design as run) every arm runs rounds
 * 1 .. its group's rounds of its group's seconds, and its odds and sizing
 * are simulated at that length (pipeline/RESULTS.md, format 2: "at the
 * lengths the schedule runs"); without a design (the old options, for the
 * bench and the tests) every arm runs the rounds of --rounds of --seconds,
 * its odds and sizing --odds-seconds.
 *
 * --predict FILE writes pipeline/RESULTS.md's `results/prediction.json`
 * ("lab-prediction 2"), atomically (a temporary file renamed):
 * - `runs`: every arm of the prediction x each of its rounds, the round as
 *   the seed, its own seconds: seconds, p99_ms, standin_share,
 *   lookups_per_request, flooded, flood_from_s (named "<arm>-r<round>",
 *   arms in the order given, then rounds);
 * - `odds`: over the odds' seeds, each arm at its own odds length, for
 *   every arm of the prediction at PREDICT_FLOOD_RATE requests a second
 *   without a fault, claim "flood", event `flooded`; for PREDICT_SLOW_ARM,
 *   claim "slow", event `p99_over_1s` (p99_ms above 1000); sim_k of sim_n
 *   seeds; planned_rounds, the arm's rounds; p_seen = 1 - (1 - k/n)^planned;
 * - `sizing`: per line of --comparisons (in its order) whose two arms are
 *   in the prediction and whose figure play computes (PREDICT_FIGURES
 *   below), over the same seeds, seed k of arm a at a's length and of arm
 *   b at b's: q, the share of seeds whose difference a - b has the sign
 *   most seeds show (a tie, or a null figure, counts against); seconds_a,
 *   seconds_b; rounds, the rounds both arms have; power = q^rounds;
 *   decides, power >= 0.9; rounds_90, the largest R of 2 .. 20 with
 *   q^R >= 0.9, 0 when q^2 < 0.9.
 * --sizing FILE.md writes the same sizing as a Markdown page, atomically:
 * a paragraph written from the figures (the sign rule, its false-positive
 * rate 2 * 0.5^R, the family's expected chance verdicts over every line of
 * --comparisons at the rounds the plan gives its arms, and the rounds of
 * the flood group: the smallest N with p_seen >= PREDICT_SEEN for
 * PREDICT_SIZED_ARM's chance, checked against the group's registered
 * rounds), each verdict with its seconds, q, rounds, power, decides and
 * rounds_90, the comparisons play cannot size, and the odds with their
 * Wilson 95% intervals, planned_rounds and p_seen; it simulates no runs.
 * Both print one line on stdout: what was simulated and the wall time.
 *
 * - with --noise FILE (data/noise.tsv, pipeline/measure/noise.h), the
 *   twin: each run of an arm at a rate the model has is simulated again
 *   in PREDICT_REPLICAS replicas, replica i (1 ..) drawing the machine's
 *   own time by noise_replica(group of the arm's rate, i); runs.<run>.twin
 *   = {replicas, flooded (replicas that flooded), p_flood (that over
 *   replicas), standin_share_q [q05, q50, q95] (percentiles 0.05, 0.5,
 *   0.95 of the replicas' stand-in shares, linear between closest
 *   ranks)}, `null` for an arm at another rate; the top level's `noise`
 *   names the file, its sha256 and the replicas (`null` without --noise).
 *
 * - the map (--predict; lab/play/playmap.h): every policy of the 450/s
 *   arms at every load of 300 .. 600/s over the odds' seeds (--odds-seeds)
 *   of 30 s, the templates from --arms; the top level's `map`
 *   (pipeline/RESULTS.md, "The map"), with per policy the prediction's
 *   arms with a flood claim that are the policy at a load of the map.
 *   The odds' flood claims: every arm without a fault at a rate other
 *   than 300/s, or whose name writes its rate out (H300-r2).
 *
 * The seeds run one after another, every arm within a seed, so that one
 * psim_seed draws each seed's dice and arrivals once for all the arms.
 *
 * Exit codes (predict_main): 0; 1 out of memory or a file not written; 2
 * a bad --comparisons file (its line named).  Owns nothing after it returns.
 */
#ifndef PIPE_PREDICT_H
#define PIPE_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "playopt.h"

#define PREDICT_FORMAT "lab-prediction 2"
#define PREDICT_FLOOD_RATE 450    /* the rate of the flood's lesson */
#define PREDICT_SLOW_ARM "H3-none" /* no limit: the slow rounds' lesson */
#define PREDICT_SIZED_ARM "H4-r2"  /* the rare event the study is sized for (RESULTS.md, odds) */
#define PREDICT_SEEN 0.95          /* ... seen at least once with this chance */
#define PREDICT_DECIDES 0.9        /* a verdict the rounds decide: power at least this */
#define PREDICT_MAX_ROUNDS_90 20
#define PREDICT_REPLICAS 100 /* the twin's replicas of each run (--noise) */
#define PREDICT_MAP_THREADS 2 /* the map's threads (this machine's cores) */
/* The figures play computes, named as RESULTS.md's (and the defences' of
 * lab/play/playdef.h, PDEF_NAMES). */
#define PREDICT_FIGURES                                                                                     \
    "p99_ms p50_ms standin_share lookups_per_request error_share slot_ms_per_request slot_ms_per_lookup " \
    "longest_line during_lookups_per_request first_live_after_ms recovered_s before_lookups_100ms "       \
    "recovery_lookups_100ms_max"

/* One arm of the prediction (o->arms[k]). */
typedef struct {
    uint32_t *rounds; /* its rounds, ascending (malloc'd) */
    size_t nrounds;
    double seconds;   /* each run's */
    double oseconds;  /* its odds' and sizing's seeds' */
} predict_arm;

/* An arm of the design that may not be simulated (the closed-loop arm):
 * its rounds, for the family's false-positive rates. */
typedef struct {
    char name[64];
    uint32_t *rounds; /* ascending (malloc'd) */
    size_t nrounds;
    double seconds;
} predict_other;

typedef struct {
    predict_arm *arm; /* one per o->arms, in its order */
    predict_other *other;
    size_t nother;
    uint32_t *rounds; /* every round of the plan, ascending (the top level's `rounds`) */
    size_t nrounds;
    const char *design; /* the design's file (data/profiles.tsv; its profile is o->profile); NULL: the old options */
    const char *deviations; /* the deviations file applied, or NULL */
    /* the group of PREDICT_SIZED_ARM in the design: its name and registered rounds ("" and 0 without) */
    char sized_group[64];
    int sized_reg_rounds;
    /* the twin (--noise FILE): the machine's own time, pipeline/measure/noise.h; NULL: none */
    const noise_model *noise;
    const char *noise_path;
    char noise_sha256[65];
} predict_plan;

/* --predict or --sizing, as o says, on plan p: the exit code. */
int predict_main(const playopt *o, const predict_plan *p);

#endif
