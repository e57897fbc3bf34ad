/* schedule (names sched_*): the schedule of a design as run, and the run folders it expects.
 *
 * The design is pipeline/measure/profiles.h's prof_design: a profile of
 * data/profiles.tsv (the registered design) with measure's deviations
 * applied (--rounds, --closed-s; results/deviations.tsv).  The schedule
 * (pipeline/RESULTS.md, "results/schedule.tsv", format 2): for round r = 1
 * .. R (the largest rounds of the design's groups), the design's arms whose
 * group has rounds >= r, in lab/arms.tsv's order, shuffled by Fisher-Yates
 * with ut_rng (util.h: splitmix64-seeded xoshiro256**) seeded 7919*r: for
 * i = n-1 down to 1, j = ut_rng_u64() % (i+1), swap items i and j.  The seed
 * depends on the round only, so a round in which the same arms run gets
 * the same order in every profile, and a rerun the same schedule.  Each
 * run lasts its group's seconds (sched_run.seconds).  sched_text is
 * schedule.tsv's content; sched_groups_text the groups as people read them
 * (`floods 11 arms x 9 rounds x 30 s, ...`), its line 1's tail and
 * measure's first line.
 *
 * results/deviations.tsv (sched_agree_deviations): written atomically when
 * the design as run departs from the registration, removed when it does
 * not; while raw holds runs, a file other than the one this design would
 * write (or one present or absent otherwise) is refused, as another
 * schedule is: those runs were measured under other departures.
 *
 * A run folder <raw>/<arm>-r<round>/ is complete when it holds exactly
 * run.json and the five event files (MF_EVENT_FILES: lab/RAWFORMAT.md's six
 * files in all; for an arm with a second store also store2.tsv.gz, seven,
 * and run.json's `stores` 2, else 1), each file's sha256 and size equal to
 * run.json's `files`, and `seconds` equal to the run's (sched_check_run).
 * sched_resume keeps complete runs and removes any other folder of the
 * schedule (named on stderr), so a rerun measures only the rest.
 *
 * Ownership: sched_build allocates the runs; sched_free frees them.  The
 * runs point into the design (and its arm_table), which must outlive the
 * schedule.  sched_text returns malloc'd text.
 */
#ifndef PIPELINE_SCHEDULE_H
#define PIPELINE_SCHEDULE_H

#include <stddef.h>

#include "arms.h"
#include "profiles.h"

typedef struct {
    int k; /* 1-based place in the schedule */
    int round, pos;
    const arm *a;
    double seconds; /* how long it runs: its group's seconds */
    char name[64]; /* <arm>-r<round>: its folder */
    int complete;
    int selected; /* to be measured by this invocation (all, unless --only) */
    int gated;    /* this invocation: the idle gate did not pass */
    int attempts; /* this invocation: how often it was measured */
    int disturbed; /* kept though not quiet: every attempt was disturbed */
} sched_run;

typedef struct {
    const prof_design *d; /* the design as run; it must outlive the schedule */
    int rounds;           /* R */
    sched_run *s;
    int n;
} sched;

int sched_build(sched *s, const prof_design *d, char *err, size_t errlen);
char *sched_text(const sched *s);
/* The design's groups that hold an arm, "<group> <n> arm[s] x <rounds>
 * rounds x <seconds> s" joined by ", " (a value that departs from the
 * registration followed by "(registered <value>)"); malloc'd. */
char *sched_groups_text(const sched *s);
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

/* results/deviations.tsv (dev_path) agrees with the design as run: written
 * when the design departs from the registration (prof_deviations_text),
 * removed when it does not, unless raw holds runs and the file there says
 * otherwise (2, refused).  0, or the exit code: 2 refused, 1 could not
 * write or remove. */
int sched_agree_deviations(const sched *s, const char *dev_path, const char *raw, const char *results, char *err,
                           size_t errlen);

/* Marks the complete runs; removes every other folder of the schedule.
 * *kept and *todo count the selected runs. */
int sched_resume(sched *s, const char *raw, int *kept, int *todo, char *err, size_t errlen);

int sched_runs_left(const sched *s, int from); /* selected and not complete, from run index `from` on */

#endif
