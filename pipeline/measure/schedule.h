/* schedule (names sched_*): the schedule of a profile, and the run folders it expects.
 *
 * Profiles (schedule.c, PROFILES): full, quick, floods and tiny, each a
 * number of rounds, the seconds S of a run, the seconds C of a run of the
 * closed-loop arm (rate max: Z-capacity; 0 when it runs S like the rest),
 * its arms (NULL: every arm of lab/arms.tsv) and the seeds of its
 * prediction's odds (1-1000; tiny, for tests, 1-100).  measure --rounds N
 * gives a copy of a profile N rounds (--closed-s C, for tests, another C).
 * sched_seconds is a run's length (S, or C for the closed-loop arm); each
 * sched_run carries its own.  The schedule: for round r = 1 .. rounds, the profile's arms
 * in lab/arms.tsv's order, shuffled by Fisher-Yates with ut_rng (util.h:
 * splitmix64-seeded xoshiro256**) seeded 7919*r: for i = n-1 down to 1,
 * j = ut_rng_u64() % (i+1), swap items i and j.  The seed depends on the
 * round only, so every profile with the same arms gets the same order, and
 * a rerun the same schedule.  sched_text is schedule.tsv's content.
 *
 * A run folder <raw>/<arm>-r<round>/ is complete when it holds exactly
 * run.json and the five event files (MF_EVENT_FILES: lab/RAWFORMAT.md's six
 * files in all; for an arm with a second store also store2.tsv.gz, seven,
 * and run.json's `stores` 2, else 1), each file's sha256 and size equal to
 * run.json's `files`, and `seconds` equal to the profile's
 * (sched_check_run).  sched_resume keeps complete runs and removes any other
 * folder of the schedule (named on stderr), so a rerun measures only the
 * rest.
 *
 * Ownership: sched_build allocates the runs; sched_free frees them.  The
 * runs point into the arm_table given to sched_build, which must outlive
 * the schedule.  sched_text returns malloc'd text.
 */
#ifndef PIPELINE_SCHEDULE_H
#define PIPELINE_SCHEDULE_H

#include <stddef.h>

#include "arms.h"

typedef struct {
    const char *name;
    int rounds;
    double seconds;        /* S: every run's length ... */
    double closed_seconds; /* ... but the closed-loop arm's, when above 0 (C) */
    const char *arms; /* comma-separated arm names; NULL: every arm of lab/arms.tsv */
    const char *odds_seeds; /* the prediction's odds and sizing: seeds of 30 s (pipeline/measure/mprereg.h) */
} sched_profile;

typedef struct {
    int k; /* 1-based place in the schedule */
    int round, pos;
    const arm *a;
    double seconds; /* how long it runs: sched_seconds */
    char name[64]; /* <arm>-r<round>: its folder */
    int complete;
    int selected; /* to be measured by this invocation (all, unless --only) */
    int gated;    /* this invocation: the idle gate did not pass */
    int attempts; /* this invocation: how often it was measured */
    int disturbed; /* kept though not quiet: every attempt was disturbed */
} sched_run;

typedef struct {
    const sched_profile *pf;
    sched_run *s;
    int n;
} sched;

/* NULL when no profile has that name. */
const sched_profile *sched_profile_find(const char *name);

/* A run's length under the profile: C for the closed-loop arm (rate 0, "max")
 * when the profile gives one, else S. */
double sched_seconds(const sched_profile *pf, const arm *a);

int sched_build(sched *s, const sched_profile *pf, const arm_table *arms, const char *arms_path, char *err,
                size_t errlen);
char *sched_text(const sched *s);
/* Only the runs named in a comma-separated list are selected. */
int sched_select(sched *s, const char *only, char *err, size_t errlen);
void sched_free(sched *s);

/* 1 complete, 0 absent, -1 present but not a complete run of this schedule
 * (why); run.json's `seconds` must be r->seconds. */
int sched_check_run(const char *raw, const sched_run *r, char *why, size_t wl);

/* Temporary folders of unfinished runs in raw (".<name>.tmp"): removed, each named. */
void sched_clean_tmp(const char *raw);

/* schedule.tsv: written when absent or different, unless raw holds runs of
 * another schedule (or folders that are no run of this one).  0, or the
 * exit code: 2 refused, 1 could not write; *present: folders in raw. */
int sched_agree(const sched *s, const char *sched_path, const char *raw, const char *results, size_t *present,
                char *err, size_t errlen);

/* Marks the complete runs; removes every other folder of the schedule.
 * *kept and *todo count the selected runs. */
int sched_resume(sched *s, const char *raw, int *kept, int *todo, char *err, size_t errlen);

int sched_runs_left(const sched *s, int from); /* selected and not complete, from run index `from` on */

#endif
