/* playopt: the command line of play (lab/play.c): its options in one
 * opt_parse table (--help prints it), the policy they make and the seeds.
 *
 * The policy is an arm of --arms (--arm NAME) or the defaults (wait H, 300
 * requests a second, one try, stand-in on), with every setting given
 * (--wait ... --slots) put over it, then checked as the lab's code would
 * run it: at most 3 tries, a pause per retry, --down and --reserve-ms only
 * with a deadline.  The store's fault is the arm's `fault` column, or
 * --fault SPEC (lab/faults.h: "down", "down@0.2-0.5" ...); for `missing`
 * the rows asked are counted in --table (request j asks row j % rows, as
 * the lab's tester does).  A bad option or setting gets one message naming
 * it and playopt_parse returns OPT_BAD (play exits 2).
 *
 * Owns: the seeds (malloc'd), freed by playopt_free.
 */
#ifndef LAB_PLAYOPT_H
#define LAB_PLAYOPT_H

#include <stddef.h>
#include <stdint.h>

#include "arms.h"

typedef struct {
    arm a;           /* the policy */
    int slots;       /* the store's */
    double seconds;  /* of arrivals */
    int csv, timeline, trace;
    int conns;       /* the service's store connections (--store-conns) */
    uint32_t rows;   /* rows of the store's table (1 unless the fault is missing) */
    uint32_t *seeds;
    size_t nseeds;
    const char *seeds_s; /* as given */
    char name[64];   /* the arm's name, or one made from the settings (H300-fb25, H300-r2-down) */
    char with[600];  /* the settings given over an arm: " with --down 1", or "" */
} playopt;

/* OPT_OK, OPT_HELP (the usage printed) or OPT_BAD (one message printed). */
int playopt_parse(int argc, char **argv, playopt *p);
void playopt_free(playopt *p);
/* The first line of play's output: every setting, and what "flooded" means
 * (over half the requests missed in flood_run seconds in a row). */
void playopt_describe(const playopt *p, int flood_run, char *buf, size_t len);

#endif
