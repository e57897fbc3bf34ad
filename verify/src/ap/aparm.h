/* aparm: one chosen arm of results/ap.json recomputed for the default
 * model seed (pipeline/APCOST.md 1.2-1.6): its runs, M, each round's counts
 * and set of stand-in rows, the AP with each kind of stand-in and the
 * changes, per round and over rounds.
 *
 * Contract.  ap_arm_find fills an ap_arm with the arm's rounds (folders of
 * results/raw/ named exactly <arm>-r<k>, k >= 1 without leading zeros,
 * ascending); ap_arm_compute reads each round's tester.tsv.gz and fills
 * the numbers (an unreadable file is one mismatch, mm_add, and leaves
 * readable 0); ap_arm_json gives them in ap.json's layout (a new tree, the
 * caller's).  The arm owns its arrays: ap_arm_free.  A round whose given
 * kinds the caller set (the run's first reading of the file) is not read
 * again: j and the row follow from the place as in the file.
 *
 * A flooded run (format lab-ap 2, APCOST.md 1.5 "At a flood's stand-in
 * share", 1.7) is an arm of one round: ap_arm_of_run makes it (arm = the
 * run's name, of_arm its arm), ap_arm_compute then gives M = the run's own
 * requests, and ap_flood_json its flooded_runs.<run> layout.
 */
#ifndef APARM_H
#define APARM_H

#include <stddef.h>

#include "aptable.h"
#include "reference.h"
#include "vjson.h"

/* the kinds of stand-in, in ap.json's order: last_known, default, none */
#define AP_NKINDS 3
extern const char *const ap_kinds[AP_NKINDS];

typedef struct {
    int round;
    char name[300];
    long long n;        /* data rows of tester.tsv.gz */
    long long *j, *row;
    char *kind;
    const char *given;  /* the file's kinds already read (ngiven rows), the caller's; NULL: read the file */
    long long ngiven;
} ap_round;

typedef struct {
    char arm[128];      /* the arm's name; a flooded run's name */
    char of_arm[128];   /* a flooded run's arm ("" for an arm) */
    ap_round *r;
    size_t nr;
    int readable;       /* every round's tester file read */
    long long M;
    /* per round */
    long long *live, *lk, *def, *err, *srows;
    size_t **set;       /* [round]: its stand-in rows S (srows[round] of them), for every seed */
    double *ap[AP_NKINDS], *chg[AP_NKINDS];
    /* per arm */
    long long requests, standin, lk_req, def_req, srows_total;
    double standin_share, srows_share, change[AP_NKINDS];
    int any_standin;
} ap_arm;

/* the rounds of arm among the names of rawdir's entries */
void ap_arm_find(const char *rawdir, char **names, size_t nn, const char *arm, ap_arm *a);
/* the run `run` (round `round` of arm `arm`) alone, as an arm of one round */
void ap_arm_of_run(const char *run, const char *arm, int round, ap_arm *a);
/* everything APCOST.md 1.2-1.6 defines for seed 1 and this arm; live_ap: L */
void ap_arm_compute(const char *root, const ap_table *t, const ref_data *ref, double live_ap, ap_arm *a);
/* the recomputed numbers in ap.json's layout; N: test rows */
vj_node *ap_arm_json(const ap_arm *a, size_t N);
/* a flooded run's numbers in flooded_runs.<run>'s layout (APCOST.md 1.7) */
vj_node *ap_flood_json(const ap_arm *a, size_t N);
void ap_arm_free(ap_arm *a);

#endif
