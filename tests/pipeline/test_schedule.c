/* The schedules of the registered design (pipeline/measure/schedule.h, from
 * data/profiles.tsv through pipeline/measure/profiles.h): line 1 and the
 * header of schedule.tsv in format 2 (pipeline/RESULTS.md), the runs of
 * each round (the arms whose group has that many rounds), each run's own
 * length (its group's), and the order within a round computed here from its
 * written definition (the round's arms in lab/arms.tsv's order,
 * Fisher-Yates, ut_rng seeded 7919*r), not taken from the schedule.  The
 * counts are worked by hand from data/profiles.tsv and lab/arms.tsv (69
 * arms: the published study's 57, the map's 4 confirmation arms, the 3
 * of the false-timeout rule and the 5 of correlated slowness); the
 * published study's schedule is rebuilt from its own registered design
 * and arms files. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arms.h"
#include "profiles.h"
#include "schedule.h"
#include "util.h"

#define TAIL                                                                                                         \
    "; order within round r: the round's arms in lab/arms.tsv's order, Fisher-Yates, ut_rng seeded 7919*r "          \
    "(pipeline/measure/schedule.h)"
#define FLOODS "H3-none,H4-fb25,H4-dldown,H4-r2,H4-r2b,H4-r2bj,H4-brkr2,H4-r4xf,H4-r2bud,H4-r2dl,H4-hedge"
#define MAP "H300-r2,H300-fb25,H550-r2,H550-fb25"
#define LIMIT "L3-fbq999,H3-fbq999,L300-t25"
#define SLOW "L3-fb25-slow,L3-hedge-slow,L3-hedge2-slow,L3-hedge2-slowboth,L3-hedge2"

static arm_table A;
static prof_design D;
static sched S;

static void load(void)
{
    char err[UT_ERRLEN];
    cr_assert_eq(arms_load("lab/arms.tsv", &A, err, sizeof err), 0, "%s", err);
    cr_assert_eq(A.n, 69, "lab/arms.tsv: %zu arms; the hand-worked counts below assume 69", A.n);
}

static void unload(void)
{
    sched_free(&S);
    prof_free(&D);
    arms_free(&A);
}

static void build(const char *profile)
{
    char err[UT_ERRLEN];
    cr_assert_eq(prof_load(&D, "data/profiles.tsv", profile, &A, "lab/arms.tsv", err, sizeof err), 0, "%s", err);
    cr_assert_eq(sched_build(&S, &D, err, sizeof err), 0, "%s", err);
}

static void rebuild(void)
{
    char err[UT_ERRLEN];
    sched_free(&S);
    cr_assert_eq(sched_build(&S, &D, err, sizeof err), 0, "%s", err);
}

/* 1 when name is in the comma-separated list. */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
            return 1;
    return 0;
}

/* The order of round r by its definition: the arms of lab/arms.tsv for which
 * in(arm) holds, in that order, shuffled with ut_rng seeded 7919*r.  n arms into o. */
static int order_of(int r, const char *only, const char *except, const arm **o)
{
    int n = 0;
    for (size_t i = 0; i < A.n; i++)
        if ((!only || listed(only, A.v[i].name)) && (!except || !listed(except, A.v[i].name)))
            o[n++] = &A.v[i];
    ut_rng g;
    ut_rng_seed(&g, 7919ULL * (uint64_t)r);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(ut_rng_u64(&g) % (uint64_t)(i + 1));
        const arm *t = o[i];
        o[i] = o[j];
        o[j] = t;
    }
    return n;
}

/* The runs of round r, in the schedule's order, are exactly o[0..n), each
 * numbered k in turn from *k, its position 1 .. n, its name arm-rR. */
static void check_round(int r, const arm **o, int n, int *k)
{
    int seen = 0;
    for (int i = 0; i < S.n; i++) {
        if (S.s[i].round != r)
            continue;
        cr_assert_lt(seen, n, "round %d has more than %d runs", r, n);
        cr_assert_eq(S.s[i].a, o[seen], "round %d position %d: %s, not %s", r, seen + 1, S.s[i].a->name,
                     o[seen]->name);
        cr_assert_eq(S.s[i].pos, seen + 1);
        cr_assert_eq(S.s[i].k, *k, "round %d position %d: k %d", r, seen + 1, S.s[i].k);
        char name[64];
        snprintf(name, sizeof name, "%s-r%d", o[seen]->name, r);
        cr_assert_str_eq(S.s[i].name, name);
        seen++;
        (*k)++;
    }
    cr_assert_eq(seen, n, "round %d: %d runs, not %d", r, seen, n);
}

static void check_line1(const char *want)
{
    char *t = sched_text(&S);
    size_t l1 = strcspn(t, "\n");
    cr_assert(strlen(want) == l1 && !strncmp(t, want, l1), "line 1 is %.*s\nnot      %s", (int)l1, t, want);
    cr_assert(!strncmp(t + l1 + 1, "k\tround\tposition\tarm\tseconds\n", 29), "line 2: %.40s", t + l1 + 1);
    /* line 3: the first run, with its seconds */
    char l3[128];
    snprintf(l3, sizeof l3, "1\t1\t1\t%s\t%g\n", S.s[0].a->name, S.s[0].seconds);
    cr_assert(!strncmp(t + l1 + 30, l3, strlen(l3)), "line 3: %.60s, not %s", t + l1 + 30, l3);
    size_t lines = 0;
    for (const char *p = t; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, (size_t)S.n + 2);
    free(t);
}

Test(schedule, full_rounds_1_to_6_every_arm_7_to_9_the_floods, .init = load, .fini = unload)
{
    build("full");
    cr_assert_eq(S.rounds, 9);
    cr_assert_eq(S.n, 11 * 9 + 45 * 6 + 1 * 6 + 4 * 6 + 3 * 6 + 5 * 6); /* 447 */
    check_line1("# lab-schedule 2: profile full, 9 rounds; floods 11 arms x 9 rounds x 30 s, rest 45 arms x 6 rounds "
                "x 15 s, capacity 1 arm x 6 rounds x 2 s, map 4 arms x 6 rounds x 30 s, limit 3 arms x 6 rounds x "
                "30 s, slow 5 arms x 6 rounds x 15 s (data/profiles.tsv)" TAIL);
    const arm *o[80];
    int k = 1;
    for (int r = 1; r <= 6; r++) /* every arm */
        check_round(r, o, order_of(r, NULL, NULL, o), &k);
    for (int r = 7; r <= 9; r++)
        check_round(r, o, order_of(r, FLOODS, NULL, o), &k);
    cr_assert_eq(k, 448);
    int n30 = 0, n15 = 0, n2 = 0;
    for (int i = 0; i < S.n; i++) {
        const char *a = S.s[i].a->name;
        double want = listed(FLOODS, a) || listed(MAP, a) || listed(LIMIT, a) ? 30 : !strcmp(a, "Z-capacity") ? 2 : 15;
        cr_assert_eq(S.s[i].seconds, want, "%s: %g s", S.s[i].name, S.s[i].seconds);
        n30 += want == 30;
        n15 += want == 15;
        n2 += want == 2;
    }
    cr_assert(n30 == 141 && n15 == 300 && n2 == 6, "%d runs of 30 s, %d of 15 s, %d of 2 s", n30, n15, n2);
    /* the published study's schedule (results/schedule.tsv, format 2) is,
     * byte for byte, the schedule of profile full built from the study's
     * own registered design and arms (provenance/registered/) */
    sched_free(&S);
    prof_free(&D);
    arms_free(&A);
    char err[UT_ERRLEN];
    cr_assert_eq(arms_load("provenance/registered/lab/arms.tsv", &A, err, sizeof err), 0, "%s", err);
    cr_assert_eq(prof_load(&D, "provenance/registered/data/profiles.tsv", "full", &A,
                           "provenance/registered/lab/arms.tsv", err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(sched_build(&S, &D, err, sizeof err), 0, "%s", err);
    cr_assert_eq(S.n, 447, "the published study's runs");
    char *pub = NULL, *want = sched_text(&S);
    size_t npub = 0;
    cr_assert_eq(ut_read_file("results/schedule.tsv", &pub, &npub, err, sizeof err), 0, "%s", err);
    cr_assert(npub == strlen(want) && !memcmp(pub, want, npub),
              "results/schedule.tsv (%zu bytes) is not the registered design's schedule (%zu bytes)", npub,
              strlen(want));
    free(pub);
    free(want);
}

Test(schedule, floods_quick_and_tiny, .init = load, .fini = unload)
{
    const arm *o[80];
    int k = 1;
    build("floods");
    cr_assert_eq(S.rounds, 9);
    cr_assert_eq(S.n, 12 * 9 + 4 * 6); /* 11 floods arms of 30 s and Z-capacity of 2 s every round, the map's 4 in 1 .. 6 */
    check_line1("# lab-schedule 2: profile floods, 9 rounds; floods 11 arms x 9 rounds x 30 s, capacity 1 arm x 9 "
                "rounds x 2 s, map 4 arms x 6 rounds x 30 s (data/profiles.tsv)" TAIL);
    for (int r = 1; r <= 6; r++)
        check_round(r, o, order_of(r, FLOODS ",Z-capacity," MAP, NULL, o), &k);
    for (int r = 7; r <= 9; r++)
        check_round(r, o, order_of(r, FLOODS ",Z-capacity", NULL, o), &k);
    sched_free(&S);
    prof_free(&D);

    build("quick");
    cr_assert_eq(S.n, 69 * 2);
    check_line1("# lab-schedule 2: profile quick, 2 rounds; all 69 arms x 2 rounds x 4 s (data/profiles.tsv)" TAIL);
    k = 1;
    for (int r = 1; r <= 2; r++)
        check_round(r, o, order_of(r, NULL, NULL, o), &k);
    for (int i = 0; i < S.n; i++)
        cr_assert_eq(S.s[i].seconds, 4);
    sched_free(&S);
    prof_free(&D);

    const char *tiny = "F3-none,H3-fb25,H3-dl,H3-dldown,H3-r2,H3-r2-down,H3-brkr2-down,H3-bulk-hang,Z-capacity";
    build("tiny");
    cr_assert_eq(S.n, 18);
    check_line1("# lab-schedule 2: profile tiny, 2 rounds; open 8 arms x 2 rounds x 1 s, capacity 1 arm x 2 rounds x "
                "1 s (data/profiles.tsv)" TAIL);
    k = 1;
    for (int r = 1; r <= 2; r++)
        check_round(r, o, order_of(r, tiny, NULL, o), &k);
}

/* The design as run: --rounds 1 (both groups 2 -> 1) and --closed-s 0.5 (the
 * capacity group 1 -> 0.5 s) change the schedule and say so on line 1. */
Test(schedule, deviations_change_the_schedule_and_line_one, .init = load, .fini = unload)
{
    char err[UT_ERRLEN];
    build("tiny");
    cr_assert_eq(prof_set_closed_seconds(&D, 0.5, "a short capacity run", err, sizeof err), 0, "%s", err);
    rebuild();
    cr_assert_eq(S.n, 18);
    check_line1("# lab-schedule 2: profile tiny, 2 rounds; open 8 arms x 2 rounds x 1 s, capacity 1 arm x 2 rounds x "
                "0.5 s (registered 1) (data/profiles.tsv with results/deviations.tsv)" TAIL);
    int closed = 0;
    for (int i = 0; i < S.n; i++) {
        int z = !strcmp(S.s[i].a->name, "Z-capacity");
        closed += z;
        cr_assert_eq(S.s[i].seconds, z ? 0.5 : 1.0, "%s", S.s[i].name);
    }
    cr_assert_eq(closed, 2);
    cr_assert_eq(prof_set_rounds(&D, 1, "one round", err, sizeof err), 0, "%s", err);
    rebuild();
    cr_assert_eq(S.rounds, 1);
    cr_assert_eq(S.n, 9);
    check_line1("# lab-schedule 2: profile tiny, 1 rounds; open 8 arms x 1 rounds (registered 2) x 1 s, capacity 1 "
                "arm x 1 rounds (registered 2) x 0.5 s (registered 1) (data/profiles.tsv with "
                "results/deviations.tsv)" TAIL);
    /* full at 3 rounds: every group 3, so every arm runs every round */
    sched_free(&S);
    prof_free(&D);
    build("full");
    cr_assert_eq(prof_set_rounds(&D, 3, NULL, err, sizeof err), 0, "%s", err);
    rebuild();
    cr_assert_eq(S.n, 69 * 3);
    const arm *o[80];
    int k = 1;
    for (int r = 1; r <= 3; r++)
        check_round(r, o, order_of(r, NULL, NULL, o), &k);
}
