/* The profiles' schedules (pipeline/measure/schedule.h): line 1 of schedule.tsv as
 * pipeline/RESULTS.md writes it, and each run's own length: the closed-loop
 * arm (Z-capacity, rate max) runs C seconds where the profile gives C. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "arms.h"
#include "schedule.h"
#include "util.h"

#define TAIL "; order within round r: Fisher-Yates, ut_rng seeded 7919*r (pipeline/measure/measure.c)"

static arm_table A;

static void load(void)
{
    char err[UT_ERRLEN];
    cr_assert_eq(arms_load("lab/arms.tsv", &A, err, sizeof err), 0, "%s", err);
}

static void unload(void) { arms_free(&A); }

/* line 1 of the profile's schedule.tsv, and the seconds of its runs:
 * closed-loop runs and the others counted apart, each length checked */
static void check_profile(const sched_profile *pf, const char *line1, int runs, int closed_runs, double s, double c)
{
    sched sc;
    char err[UT_ERRLEN];
    cr_assert_eq(sched_build(&sc, pf, &A, "lab/arms.tsv", err, sizeof err), 0, "%s", err);
    char *t = sched_text(&sc);
    size_t l1 = strcspn(t, "\n");
    cr_assert_eq(strlen(line1), l1, "profile %s: line 1 is %.*s", pf->name, (int)l1, t);
    cr_assert(!strncmp(t, line1, l1), "profile %s: line 1 is %.*s", pf->name, (int)l1, t);
    cr_assert_eq(sc.n, runs, "profile %s", pf->name);
    int nc = 0;
    for (int i = 0; i < sc.n; i++) {
        int closed = !strcmp(sc.s[i].a->name, "Z-capacity");
        nc += closed;
        cr_assert_eq(sc.s[i].seconds, closed ? c : s, "%s: %g s", sc.s[i].name, sc.s[i].seconds);
        cr_assert_eq(sched_seconds(pf, sc.s[i].a), sc.s[i].seconds);
    }
    cr_assert_eq(nc, closed_runs, "profile %s", pf->name);
    free(t);
    sched_free(&sc);
}

Test(schedule, each_profile_line_one_and_run_lengths, .init = load, .fini = unload)
{
    size_t na = A.n; /* every arm of lab/arms.tsv (57 when this was written) */
    char want[512];
    snprintf(want, sizeof want, "# lab-schedule 1: profile full, 5 rounds of %zu arms, 15 s each, closed loop 2 s" TAIL,
             na);
    check_profile(sched_profile_find("full"), want, 5 * (int)na, 5, 15, 2);
    check_profile(sched_profile_find("floods"),
                  "# lab-schedule 1: profile floods, 5 rounds of 12 arms, 30 s each, closed loop 2 s" TAIL, 60, 5, 30, 2);
    snprintf(want, sizeof want, "# lab-schedule 1: profile quick, 2 rounds of %zu arms, 4 s each" TAIL, na);
    check_profile(sched_profile_find("quick"), want, 2 * (int)na, 2, 4, 4);
    check_profile(sched_profile_find("tiny"), "# lab-schedule 1: profile tiny, 2 rounds of 9 arms, 1 s each" TAIL, 18, 2,
                  1, 1);
    /* a copy given another closed-loop length (measure --closed-s) says so */
    sched_profile own = *sched_profile_find("tiny");
    own.closed_seconds = 0.5;
    check_profile(&own, "# lab-schedule 1: profile tiny, 2 rounds of 9 arms, 1 s each, closed loop 0.5 s" TAIL, 18, 2, 1,
                  0.5);
    cr_assert_null(sched_profile_find("huge"));
}
