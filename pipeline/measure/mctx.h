/* mctx: measure's state, what it was asked for and where it stands: filled
 * by measure.c's phases (options, registration, lock, plan, provenance,
 * resume), read and updated by mrun.c for each run (the progress figures,
 * the reason of a failed run).  One per measure; measure.c owns it and
 * frees what it allocated (free_ctx).
 */
#ifndef PIPELINE_MCTX_H
#define PIPELINE_MCTX_H

#include <stddef.h>
#include <stdint.h>

#include "arms.h"
#include "prov.h"
#include "schedule.h"

/* What measure was asked for, and where it stands. */
typedef struct mctx {
    /* options */
    const sched_profile *pf;
    const char *root, *prep, *arms_path, *bin, *cores, *data, *host, *ssh_opts, *only, *quiet, *comparisons, *ap_arms;
    const char *machine; /* run.json's label (--machine): local here */
    const char *far_lab; /* --far-lab: the hosts' own built lab (remote.h) */
    char *reg[PROV_NPREREG]; /* the registered files as read here (mreg_paths) */
    sched_profile pf_own; /* the profile, with --rounds */
    int rounds;
    char pred_said[1536]; /* what became of the prediction */
    char *quiet_def; /* <data>/quiet.tsv unless --quiet */
    const char *settle; /* --settle-s as given (passed on to run), NULL: run's default */
    double settle_s;
    double closed_s; /* --closed-s, 0: the profile's */
    int gate;
    /* under root */
    char *results, *raw, *attempts, *provdir, *runsdir, *sched_path, *manifest; /* attempts: results/attempts */
    arm_table arms;
    sched sc;
    int lockfd;
    size_t present; /* folders in raw when measure began */
    prov *pv;
    /* progress */
    int tty, line_open;
    int64_t t0;
    double measured_wall;
    int measured_n, kept, todo, gated, complete, failed_k, disturbed;
    char fail_why[512]; /* the failed run's reason (run's last line) */
    int logkind;
} mctx;

#endif
