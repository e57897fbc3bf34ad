/* results/schedule.tsv's line 1 with the closed loop's own length
 * (pipeline/RESULTS.md, "results/schedule.tsv"; src/cross/schedule.[ch]): read,
 * and the length of each arm's runs; test_study.c checks run.json and the
 * records against it in a whole study. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms.h"
#include "mism.h"
#include "schedule.h"
#include "synth.h"
#include "thelp.h"
#include "vutil.h"

static char *C_root;

static void c_setup(void)
{
    C_root = th_tmpdir();
    cr_assert(C_root);
    char *d = vu_xasprintf("%s/results", C_root);
    cr_assert_eq(syn_mkdirs(d), 0);
    free(d);
    mm_reset();
    mm_init(fopen("/dev/null", "w"), 0);
}

static void c_teardown(void)
{
    th_rmrf(C_root);
    free(C_root);
}

static void load(const char *line1, sd_schedule *sd)
{
    char *p = vu_xasprintf("%s/" SD_REL, C_root);
    char *t = vu_xasprintf("%s\nk\tround\tposition\tarm\n1\t1\t1\tA\n2\t1\t2\tB\n", line1);
    cr_assert_eq(syn_write_text(p, t), 0);
    free(t);
    free(p);
    sd_load(C_root, sd);
}

/* A is the closed-loop arm (rate max), B an open-loop arm of 20 a second */
static void arms(am_file *a)
{
    char *p = vu_xasprintf("%s/arms.tsv", C_root), err[512];
    cr_assert_eq(syn_write_text(p, "name\trate\nA\tmax\nB\t20\n"), 0);
    cr_assert_eq(am_load(p, a, err, sizeof err), 0, "%s", err);
    free(p);
}

Test(schedule, closed_loop_of_its_own_length, .init = c_setup, .fini = c_teardown)
{
    sd_schedule sd;
    am_file a;
    arms(&a);
    load("# lab-schedule 1: profile full, 1 rounds of 2 arms, 15 s each, closed loop 2.5 s; for people", &sd);
    cr_assert(sd.ok);
    cr_expect_eq(mm_count(), 0);
    cr_expect_eq(sd.seconds, 15);
    cr_expect_eq(sd.closed_seconds, 2.5);
    const char *text;
    int closed;
    cr_expect_eq(sd_run_seconds(&sd, &a, "A", &text, &closed), 2.5);
    cr_expect(closed && !strcmp(text, "2.5"), "%s", text);
    cr_expect_eq(sd_run_seconds(&sd, &a, "B", &text, &closed), 15);
    cr_expect(!closed && !strcmp(text, "15"), "%s", text);
    cr_expect_eq(sd_run_seconds(&sd, &a, "Z", NULL, NULL), 15); /* not in the arms file */
    sd_free(&sd);
    /* without a closed loop every arm lasts S */
    load("# lab-schedule 1: profile full, 1 rounds of 2 arms, 15 s each", &sd);
    cr_assert(sd.ok);
    cr_expect_eq(sd.closed_seconds, 0);
    cr_expect_eq(sd_run_seconds(&sd, &a, "A", NULL, NULL), 15);
    sd_free(&sd);
    am_free(&a);
}

Test(schedule, closed_loop_malformed, .init = c_setup, .fini = c_teardown)
{
    static const char *const bad[] = {
        "# lab-schedule 1: profile full, 1 rounds of 2 arms, 15 s each, closed loop 0 s",
        "# lab-schedule 1: profile full, 1 rounds of 2 arms, 15 s each, closed loop -2 s",
        "# lab-schedule 1: profile full, 1 rounds of 2 arms, 15 s each, closed loop 2 seconds",
        "# lab-schedule 1: profile full, 1 rounds of 2 arms, 15 s each, closed loop s",
        "# lab-schedule 1: profile full, 1 rounds of 2 arms, 15 s each, closed loop 2 s extra",
        "# lab-schedule 1: profile full, 1 rounds of 2 arms, 15 s each closed loop 2 s",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sd_schedule sd;
        long before = mm_count();
        load(bad[i], &sd);
        cr_expect(!sd.ok && mm_count() == before + 1, "%s", bad[i]);
        sd_free(&sd);
    }
}

/* format 2 (from 2026-12-02): each run's own seconds; an arm's run length
 * and rounds; mismatches counted, not printed here */
Test(schedule, format_2_each_run_its_seconds, .init = c_setup, .fini = c_teardown)
{
    char *p = vu_xasprintf("%s/" SD_REL, C_root);
    cr_assert_eq(syn_write_text(p, "# lab-schedule 2: profile full, 2 rounds; shuffled\n"
                                   "k\tround\tposition\tarm\tseconds\n"
                                   "1\t1\t2\tA\t2\n2\t1\t1\tB\t30\n3\t2\t1\tB\t30\n"),
                 0);
    sd_schedule sd;
    am_file a;
    arms(&a);
    long before = mm_count();
    sd_load(C_root, &sd);
    cr_expect_eq(mm_count(), before);
    cr_expect(sd.ok && sd.format == 2 && sd.rounds == 2 && sd.n == 3);
    const char *text;
    cr_expect_eq(sd_line_seconds(&sd, &a, sd_find(&sd, "A-r1"), &text, NULL), 2);
    cr_expect_str_eq(text, "2");
    cr_expect_eq(sd_line_seconds(&sd, &a, sd_find(&sd, "B-r2"), NULL, NULL), 30);
    int rounds;
    cr_expect_eq(sd_arm_seconds(&sd, &a, "B", &rounds), 30);
    cr_expect_eq(rounds, 2);
    cr_expect_eq(sd_arm_seconds(&sd, &a, "A", &rounds), 2);
    cr_expect_eq(rounds, 1);
    cr_expect(sd_has_round(&sd, "B", 2) && !sd_has_round(&sd, "A", 2));
    sd_free(&sd);
    /* rounds out of order and a round without runs (R 3) */
    cr_assert_eq(syn_write_text(p, "# lab-schedule 2: profile full, 3 rounds\n"
                                   "k\tround\tposition\tarm\tseconds\n"
                                   "1\t2\t1\tA\t2\n2\t1\t1\tB\t30\n3\t1\t1\tA\t2\n"),
                 0);
    before = mm_count();
    sd_load(C_root, &sd);
    /* lines 4 and 5: round 1 after round 2 (not kept); so rounds 1 and 3 have no run */
    cr_expect_eq(mm_count() - before, 4);
    sd_free(&sd);
    am_free(&a);
    free(p);
}
