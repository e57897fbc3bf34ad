/* playopt: the command line of play (lab/play/play.c): its options in one
 * opt_parse table (--help prints it), the policy they make and the seeds.
 *
 * The policy is an arm of --arms (--arm NAME) or the defaults (wait H, 300
 * requests a second, one try, stand-in on), with every setting given
 * (--wait ... --slots) put over it, then checked as the lab's code would
 * run it (arms_check_policy: at most 5 tries, a pause per retry, --down
 * and --reserve-ms only with a deadline ...).  --arm may name several arms,
 * comma-separated (--arm H4-r2,H4-r2bud): each is run over the same seeds
 * with the same settings over it.  The store's fault is the arm's `fault`
 * column, or --fault SPEC (lab/core/faults.h: "down", "down@0.2-0.5" ...); for
 * `missing`, and for an arm with a second store (store2), the rows asked
 * are counted in --table (request j asks row j % rows, as the lab's tester
 * does).  A bad option or setting gets one message naming it and
 * playopt_parse returns OPT_BAD (play exits 2).
 *
 * --predict FILE (or --sizing FILE.md: pipeline/measure/predict.h) predicts a study:
 * the arms named by --arm, or without --arm every open-loop arm of --arms
 * (the closed-loop capacity arm cannot be simulated), as they are (no
 * setting may be given, nor --seeds, --csv, --timeline, --trace or
 * --summary); the runs' rounds (--rounds, a list like --seeds, 1-5) and
 * seconds (--seconds), the odds' and the sizing's seeds (--odds-seeds,
 * 1-1000) and seconds (--odds-seconds, 30), the verdicts to size
 * (--comparisons, pipeline/comparisons.tsv), the profile's name to record
 * (--profile).
 *
 * Owns: the seeds and the arms (malloc'd), freed by playopt_free.
 */
#ifndef LAB_PLAYOPT_H
#define LAB_PLAYOPT_H

#include <stddef.h>
#include <stdint.h>

#include "arms.h"

#define PLAYOPT_MAX_ARMS 256

/* One policy to simulate. */
typedef struct {
    arm a;
    char name[64];   /* the arm's name, or one made from the settings (H300-fb25, H300-r2-down) */
    uint32_t rows;   /* rows of the store's table (1 unless the fault is missing or there is a store2) */
} playarm;

typedef struct {
    playarm *arms;   /* narms of them, in the order named */
    size_t narms;
    int slots;       /* each store's */
    double seconds;  /* of arrivals */
    int csv, timeline, trace, summary;
    int conns;       /* the service's store connections (--store-conns) */
    uint32_t *seeds;
    size_t nseeds;
    const char *seeds_s; /* as given */
    char with[600];  /* the settings given over the arms: " with --down 1", or "" */
    /* --predict, --sizing (pipeline/measure/predict.h); NULL when not asked for */
    const char *predict, *sizing, *profile, *comparisons, *table;
    const char *arms_path; /* --arms (lab/arms.tsv) */
    uint32_t *rounds, *oseeds; /* --rounds, --odds-seeds */
    size_t nrounds, noseeds;
    const char *rounds_s, *oseeds_s; /* as given */
    double oseconds;                 /* --odds-seconds */
} playopt;

/* OPT_OK, OPT_HELP (the usage printed) or OPT_BAD (one message printed). */
int playopt_parse(int argc, char **argv, playopt *p);
void playopt_free(playopt *p);
/* A list of seeds, "1-5", "7", "1,3,8-10" (0 to 2^32-1), into *out (malloc'd)
 * and *n: 0, or -1 when it is not one. */
int playopt_seeds(const char *s, uint32_t **out, size_t *n);
/* The first line of play's output for arm k: every setting, and what
 * "flooded" means (over half the requests missed in flood_run seconds in a
 * row). */
void playopt_describe(const playopt *p, size_t k, int flood_run, char *buf, size_t len);

#endif
