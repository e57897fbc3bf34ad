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
#include "profiles.h"
#include "prov.h"
#include "schedule.h"

/* What measure was asked for, and where it stands. */
typedef struct mctx {
    /* options */
    const char *profile; /* --profile: its lines of --profiles */
    const char *root, *prep, *arms_path, *bin, *cores, *data, *host, *ssh_opts, *only, *quiet, *comparisons, *ap_arms;
    const char *machine; /* run.json's label (--machine): local here */
    const char *far_lab; /* --far-lab: the hosts' own built lab (remote.h) */
    char *reg[PROV_NPREREG]; /* the registered files as read here (mreg_paths) */
    const char *profiles;  /* --profiles: the registered design (DATA/profiles.tsv) */
    char *profiles_def;    /* <data>/profiles.tsv unless --profiles */
    const char *deviation; /* --deviation: the reason of --rounds and --closed-s */
    int rounds;            /* --rounds, 0: the design's */
    char pred_said[1536]; /* what became of the prediction */
    char *quiet_def; /* <data>/quiet.tsv unless --quiet */
    const char *settle; /* --settle-s as given (passed on to run), NULL: run's default */
    double settle_s;
    double closed_s; /* --closed-s, 0: the design's */
    int gate;
    /* under root */
    char *results, *raw, *attempts, *provdir, *runsdir, *sched_path, *dev_path, *manifest; /* attempts: results/attempts */
    arm_table arms;
    prof_design design; /* the profile as registered, with the deviations: the design as run */
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
