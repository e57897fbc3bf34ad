/* The registered design (pipeline/measure/profiles.h): data/profiles.tsv's
 * profiles resolved against lab/arms.tsv, the faults it refuses with the
 * line and field named, and the design as run (--rounds, --closed-s and a
 * results/deviations.tsv read back). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arms.h"
#include "profiles.h"
#include "util.h"

static arm_table A;
static char dir[64];

static void load(void)
{
    char err[UT_ERRLEN];
    cr_assert_eq(arms_load("lab/arms.tsv", &A, err, sizeof err), 0, "%s", err);
    snprintf(dir, sizeof dir, "/tmp/lab-test-profiles-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void unload(void)
{
    arms_free(&A);
    ut_rm_tree(dir);
}

/* The file's path, in a buffer of its own per name (p.tsv, deviations.tsv). */
static const char *put(const char *name, const char *text)
{
    static char paths[2][128];
    char *path = paths[strcmp(name, "p.tsv") != 0];
    snprintf(path, sizeof paths[0], "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define HDR "profile\tgroup\tarms\trounds\tseconds\todds_seeds\n"

/* The registered full profile: 11 flood arms 9 x 30 s, the map's 4
 * confirmation arms 6 x 30 s, the capacity arm 6 x 2 s, the 5 arms of
 * correlated slowness their own group of 6 x 15 s, every other arm 6 x
 * 15 s; R = 9. */
Test(profiles, full_profile_as_registered, .init = load, .fini = unload)
{
    prof_design d;
    char err[UT_ERRLEN];
    cr_assert_eq(prof_load(&d, "data/profiles.tsv", "full", &A, "lab/arms.tsv", err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.np, (int)A.n, "every arm of lab/arms.tsv");
    cr_assert_eq(prof_rounds(&d), 9);
    cr_assert_str_eq(d.odds_seeds, "1-1000");
    int n30 = 0, n15 = 0, n2 = 0, runs = 0;
    for (int i = 0; i < d.np; i++) {
        const prof_group *g = &d.g[d.p[i].group];
        n30 += g->seconds == 30;
        n15 += g->seconds == 15;
        n2 += g->seconds == 2;
        runs += g->rounds;
        if (!strncmp(d.p[i].a->name, "H4-", 3) || !strcmp(d.p[i].a->name, "H3-none"))
            cr_assert(g->seconds == 30 && g->rounds == 9, "%s", d.p[i].a->name);
        if (!strncmp(d.p[i].a->name, "H300-", 5) || !strncmp(d.p[i].a->name, "H550-", 5))
            cr_assert(g->seconds == 30 && g->rounds == 6, "%s", d.p[i].a->name);
    }
    /* 11 at 9 x 30 s; the map's 4 and the limit group's 3 at 6 x 30 s */
    cr_assert_eq(n30, 18);
    cr_assert_eq(n2, 1);
    cr_assert_eq(n15, (int)A.n - 19);
    cr_assert_eq(runs, 11 * 9 + 7 * 6 + ((int)A.n - 19) * 6 + 6);
    cr_assert_eq(prof_group_of(&d, "Z-capacity")->seconds, 2);
    const char *slow[] = {"L3-fb25-slow", "L3-hedge-slow", "L3-hedge2-slow", "L3-hedge2-slowboth", "L3-hedge2"};
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++) {
        const prof_group *g = prof_group_of(&d, slow[i]);
        cr_assert(g && !strcmp(g->name, "slow") && g->rounds == 6 && g->seconds == 15, "%s", slow[i]);
    }
    cr_assert(prof_in_round(&d, &d.p[0], 6));
    cr_assert_null(prof_deviations_text(&d), "as registered: no deviation");
    prof_free(&d);
}

Test(profiles, faults_named_by_line_and_field, .init = load, .fini = unload)
{
    struct {
        const char *body, *want;
    } cases[] = {
        {"p\tg\tF3-none,NOPE\t2\t1\t1-10\n", ":2: field arms \"NOPE\" is no arm"},
        {"p\tg\tF3-none\t2\t1\t1-10\np\th\tF3-none\t2\t1\t1-10\n", ":3: field arms \"F3-none\" is named twice"},
        {"p\tg\t*\t2\t1\t1-10\np\th\t*\t2\t1\t1-10\n", ":3: field arms \"*\" a second * line"},
        {"p\tg\tF3-none\t0\t1\t1-10\n", ":2: field rounds \"0\""},
        {"p\tg\tF3-none\t2\t-1\t1-10\n", ":2: field seconds \"-1\""},
        {"p\tg\tF3-none\t2\t1\t10-1\n", ":2: field odds_seeds \"10-1\""},
        {"p\tg\tF3-none\t2\t1\t1-10\np\th\tL3-none\t2\t1\t1-20\n", ":3: field odds_seeds \"1-20\" differs"},
        {"p\tg\tF3-none\t2\t1\t1-10\np\tg\tL3-none\t2\t1\t1-10\n", ":3: field group \"g\" is named twice"},
        {"q\tg\tF3-none\t2\t1\t1-10\n", "no line of profile p"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, HDR "%s", cases[i].body);
        const char *path = put("p.tsv", text);
        prof_design d;
        char err[UT_ERRLEN] = "";
        cr_assert_eq(prof_load(&d, path, "p", &A, "lab/arms.tsv", err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, cases[i].want), "case %zu: %s", i, err);
        cr_assert(strstr(err, path), "case %zu names the file: %s", i, err);
    }
}

/* --rounds 3 and --closed-s 0.5 become deviations; their text read back
 * gives the same design; a deviation that lies about the registered value
 * is refused. */
Test(profiles, deviations_written_and_read_back, .init = load, .fini = unload)
{
    const char *path = put("p.tsv", HDR "p\tslow\tH3-none,H4-r2\t9\t30\t1-100\n"
                                        "p\tcap\tZ-capacity\t2\t2\t1-100\n"
                                        "p\trest\tF3-none\t2\t15\t1-100\n");
    prof_design d, e;
    char err[UT_ERRLEN];
    cr_assert_eq(prof_load(&d, path, "p", &A, "lab/arms.tsv", err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.np, 4);
    cr_assert_eq(prof_set_rounds(&d, 2, "tests: short", err, sizeof err), 0, "%s", err);
    cr_assert_eq(prof_set_closed_seconds(&d, 0.5, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(prof_rounds(&d), 2);
    char *t = prof_deviations_text(&d);
    cr_assert_not_null(t);
    cr_assert(strstr(t, "\nslow\trounds\t9\t2\ttests: short\n"), "%s", t);
    cr_assert(strstr(t, "\ncap\tseconds\t2\t0.5\t" PROF_NO_REASON "\n"), "%s", t);
    cr_assert_null(strstr(t, "rest\trounds"), "rest keeps its 2 rounds: %s", t);
    cr_assert_null(strstr(t, "cap\trounds"), "cap keeps its 2 rounds: %s", t);
    const char *dev = put("deviations.tsv", t);
    cr_assert_eq(prof_load(&e, path, "p", &A, "lab/arms.tsv", err, sizeof err), 0, "%s", err);
    cr_assert_eq(prof_read_deviations(&e, dev, err, sizeof err), 0, "%s", err);
    cr_assert_eq(prof_group_of(&e, "H4-r2")->rounds, 2);
    cr_assert_eq(prof_group_of(&e, "Z-capacity")->seconds, 0.5);
    char *t2 = prof_deviations_text(&e);
    cr_assert_str_eq(t2, t);
    free(t2);
    prof_free(&e);
    free(t);
    prof_free(&d);

    const char *bad[][2] = {
        {"slow\trounds\t5\t2\twhy\n", "field registered \"5\" is not the registered rounds of slow, 9"},
        {"nope\trounds\t9\t2\twhy\n", "field group \"nope\" is no group"},
        {"slow\tarms\t9\t2\twhy\n", "field field \"arms\" is neither"},
        {"slow\trounds\t9\t2\t\n", "field reason \"\" is empty"},
        {"slow\trounds\t9\t2\twhy\nslow\trounds\t9\t3\twhy\n", "a second time"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "group\tfield\tregistered\tran\treason\n%s", bad[i][0]);
        dev = put("deviations.tsv", text);
        cr_assert_eq(prof_load(&e, path, "p", &A, "lab/arms.tsv", err, sizeof err), 0, "%s", err);
        cr_assert_eq(prof_read_deviations(&e, dev, err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, bad[i][1]), "case %zu: %s", i, err);
        prof_free(&e);
    }
    /* no file: the design as registered */
    cr_assert_eq(prof_load(&e, path, "p", &A, "lab/arms.tsv", err, sizeof err), 0, "%s", err);
    cr_assert_eq(prof_read_deviations(&e, "/nonexistent/deviations.tsv", err, sizeof err), 0, "%s", err);
    cr_assert_eq(prof_rounds(&e), 9);
    prof_free(&e);
}
