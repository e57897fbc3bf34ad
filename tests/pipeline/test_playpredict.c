/* The prediction (suite predict): the one definition of a flood on
 * hand-made seconds (lab/play/playflood.h) and in play's own runs; play
 * --predict's runs, odds and sizing recomputed from play's rows (--csv)
 * by the definitions of pipeline/RESULTS.md; and a few real runs whose
 * measured stand-in share must agree with the prediction within the
 * tolerance docs/DESIGN.md 5.8 states for a quiet machine. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "playflood.h"
#include "playrun.h"

#define PREDICT "build/bin/predict" /* measure's prediction: pipeline/measure/predict.h */
#include "rawread.h"

/* docs/DESIGN.md 5.8: a run's measured stand-in share and its prediction
 * differ by at most this on a quiet machine. */
#define STANDIN_TOLERANCE 0.01

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/predictXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(predict, .init = setup, .fini = teardown, .timeout = 600);

/* seconds from a list of (arrivals, missed) pairs */
static size_t secs(play_second *s, const uint32_t (*v)[2], size_t n)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (play_second){.req = v[i][0], .missed = v[i][1]};
    return n;
}

Test(predict, flood_by_hand)
{
    play_second s[16];
    pflood f;
    /* 10 s: seconds 2, 3, 4 missed (over half), then it drains */
    const uint32_t a[10][2] = {{10, 0}, {10, 5}, {10, 6}, {9, 9}, {1, 1}, {10, 5}, {10, 0}, {10, 0}, {10, 0}, {10, 0}};
    pflood_of(s, secs(s, a, 10), 10, &f);
    cr_assert_eq(f.flooded, 1);
    cr_assert_eq(f.from_s, 2);
    cr_assert_eq(f.drained, 1);
    cr_assert_eq(f.missed_seconds, 3); /* 5 of 10 is not over half */
    /* a flood starting in the last 3 seconds: 7, 8, 9 of 10, not drained */
    const uint32_t b[10][2] = {{10, 0}, {10, 0}, {10, 0}, {10, 0}, {10, 0},
                               {10, 0}, {10, 9}, {10, 6}, {10, 7}, {10, 8}};
    pflood_of(s, secs(s, b, 10), 10, &f);
    cr_assert(f.flooded && f.from_s == 6 && !f.drained && f.missed_seconds == 4);
    s[6].missed = 5; /* now only 7, 8, 9: still three */
    pflood_of(s, 10, 10, &f);
    cr_assert(f.flooded && f.from_s == 7 && !f.drained);
    s[7].missed = 0; /* only the last two: no flood */
    pflood_of(s, 10, 10, &f);
    cr_assert(!f.flooded && f.from_s == -1 && !f.drained && f.missed_seconds == 2);
    /* a second without arrivals breaks the row */
    const uint32_t c[5][2] = {{4, 4}, {4, 4}, {0, 0}, {4, 4}, {4, 3}};
    pflood_of(s, secs(s, c, 5), 5, &f);
    cr_assert(!f.flooded && f.missed_seconds == 4);
    /* a 2-second run: N = 2 */
    const uint32_t d[2][2] = {{3, 2}, {3, 2}};
    pflood_of(s, secs(s, d, 2), 2, &f);
    cr_assert(f.flooded && f.from_s == 0 && !f.drained);
    s[0].missed = 1;
    pflood_of(s, 2, 2, &f);
    cr_assert(!f.flooded);
    /* 2.5 s is 3 seconds (N = 3); counts past them do not count */
    const uint32_t e[5][2] = {{3, 2}, {3, 2}, {1, 0}, {3, 3}, {3, 3}};
    pflood_of(s, secs(s, e, 5), 2.5, &f);
    cr_assert(!f.flooded && f.missed_seconds == 2);
    pflood_of(s, 5, 5, &f);
    cr_assert(!f.flooded);
    s[2].missed = 1;
    pflood_of(s, 5, 2.5, &f);
    cr_assert(f.flooded && f.from_s == 0 && !f.drained);
    /* the seconds after the last one with arrivals are not in the list:
     * missing seconds are not missed, so the flood drained */
    const uint32_t g[4][2] = {{2, 2}, {2, 2}, {2, 2}, {2, 0}};
    pflood_of(s, secs(s, g, 4), 6, &f);
    cr_assert(f.flooded && f.from_s == 0 && f.drained && f.missed_seconds == 3);
    cr_assert_eq(pflood_nsec(30), 30);
    cr_assert_eq(pflood_nsec(0.6), 1);
}

/* play's flood is the definition's on its own timeline, and a flood cut by
 * the run's end counts only with N seconds inside it. */
Test(predict, play_floods_by_the_definition)
{
    need_play();
    /* H4-r2 seed 4 tips at 23 s: the same arrivals and dice in a 25 s run
     * leave 2 flooded seconds (no flood), in a 26 s run 3 (a flood) */
    row r[1];
    cr_assert_eq(play_csv("--arm H4-r2 --seeds 4 --seconds 30", r, 1), 1);
    cr_assert(r[0].flooded && r[0].flood_from == 23);
    cr_assert_eq(play_csv("--arm H4-r2 --seeds 4 --seconds 26", r, 1), 1);
    cr_assert(r[0].flooded && r[0].flood_from == 23);
    cr_assert_eq(play_csv("--arm H4-r2 --seeds 4 --seconds 25", r, 1), 1);
    cr_assert(!r[0].flooded && r[0].flood_from == -1);
    /* 2 s runs: N = 2 */
    cr_assert_eq(play_csv("--arm H3-fb25 --fault down@0-1 --seconds 2 --seeds 1", r, 1), 1);
    cr_assert(r[0].flooded && r[0].flood_from == 0 && r[0].standin_share == 1.0);
    cr_assert_eq(play_csv("--arm H3-fb25 --fault down@0.5-1 --seconds 2 --seeds 1", r, 1), 1);
    cr_assert(!r[0].flooded && r[0].standin_share > 0.5);

    /* the timeline's arrivals and misses give the row's flood (recomputed here) */
    for (int seconds = 24; seconds <= 30; seconds += 2) {
        char cmd[256], *out;
        snprintf(cmd, sizeof cmd, PLAY " --arm H4-r2 --seeds 4 --seconds %d --timeline --csv 2>/dev/null", seconds);
        cr_assert_eq(run(cmd, &out), 0);
        long req[64] = {0}, miss[64] = {0}, sec, a, b, c, d, from = -1, row = 0;
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
            if (sscanf(line, "# %ld,%ld,%ld,%ld,%ld", &sec, &a, &b, &c, &d) == 5 && sec < 64) {
                req[sec] = a;
                miss[sec] = c;
            }
        free(out);
        for (long k = 0; k < seconds && from < 0; k++) {
            row = req[k] >= 1 && 2 * miss[k] > req[k] ? row + 1 : 0;
            if (row == 3)
                from = k - 2;
        }
        snprintf(cmd, sizeof cmd, "--arm H4-r2 --seeds 4 --seconds %d", seconds);
        cr_assert_eq(play_csv(cmd, r, 1), 1);
        cr_assert_eq(r[0].flood_from, from, "%d s: play %ld, the timeline %ld", seconds, r[0].flood_from, from);
    }
}

/* A comparisons file of our own. */
static void write_cmp(const char *path, const char *lines)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "a\tb\tfigure\tnote\n%s", lines);
    fclose(f);
}

static json_t *load(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j, "%s: %s", path, je.text);
    return j;
}

Test(predict, runs_odds_and_sizing_recomputed_from_plays_rows)
{
    need_play();
    char cmp[128], pred[128], cmd[1024], *out;
    snprintf(cmp, sizeof cmp, "%s/cmp.tsv", dir);
    snprintf(pred, sizeof pred, "%s/prediction.json", dir);
    write_cmp(cmp, "H4-r2\tH4-fb25\tstandin_share\tretries flood\n"
                   "H3-t25\tH3-fb25\tp99_ms\tH3-t25 is not predicted: left out\n"
                   "H4-r2\tH4-fb25\tlookups_per_request\tcalls\n"
                   "H3-none\tH3-fb25\tno_such_figure\tleft out\n"
                   "H3-none\tH4-fb25\tp99_ms\tslow\n");
    const char *arms = "H3-none,H4-r2,H4-fb25,H3-fb25";
    snprintf(cmd, sizeof cmd,
             PREDICT " --predict %s --arm %s --profile test --rounds 2,5 --seconds 6 --odds-seeds 1-24 --odds-seconds 12 "
                  "--comparisons %s",
             pred, arms, cmp);
    cr_assert_eq(run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "predict: 8 runs") && strstr(out, pred), "%s", out);
    free(out);
    DIR *d = opendir(dir); /* written atomically: no temporary file left */
    int files = 0;
    for (struct dirent *e; (e = readdir(d));)
        files += e->d_name[0] != '.';
    closedir(d);
    cr_assert_eq(files, 2);

    json_t *p = load(pred);
    cr_assert_str_eq(json_string_value(json_object_get(p, "format")), "lab-prediction 2");
    cr_assert_str_eq(json_string_value(json_object_get(p, "profile")), "test");
    cr_assert_null(json_object_get(p, "seconds"), "format 2: each run has its own seconds");
    json_t *rounds = json_object_get(p, "rounds");
    cr_assert(json_array_size(rounds) == 2 && json_integer_value(json_array_get(rounds, 1)) == 5);

    /* runs: every arm x round, the figures of play's rows */
    json_t *runs = json_object_get(p, "runs");
    cr_assert_eq(json_object_size(runs), 8);
    const char *names[4] = {"H3-none", "H4-r2", "H4-fb25", "H3-fb25"};
    row rr[2];
    for (int k = 0; k < 4; k++) {
        snprintf(cmd, sizeof cmd, "--arm %s --seeds 2,5 --seconds 6", names[k]);
        cr_assert_eq(play_csv(cmd, rr, 2), 2);
        for (int i = 0; i < 2; i++) {
            char name[64];
            snprintf(name, sizeof name, "%s-r%u", names[k], rr[i].seed);
            json_t *e = json_object_get(runs, name);
            cr_assert_not_null(e, "%s", name);
            cr_assert_eq(json_object_size(e), 7); /* six figures and the twin, null without --noise */
            cr_assert(json_is_null(json_object_get(e, "twin")), "%s", name);
            cr_assert_eq(json_integer_value(json_object_get(e, "seconds")), 6, "%s", name);
            cr_assert_float_eq(json_real_value(json_object_get(e, "p99_ms")), rr[i].p99_ms, 1e-6, "%s", name);
            cr_assert_float_eq(json_real_value(json_object_get(e, "standin_share")),
                               (double)rr[i].standins / (double)rr[i].requests, 1e-12, "%s", name);
            cr_assert_float_eq(json_real_value(json_object_get(e, "lookups_per_request")),
                               (double)rr[i].lookups / (double)rr[i].requests, 1e-12, "%s", name);
            cr_assert_eq(json_is_true(json_object_get(e, "flooded")), rr[i].flooded, "%s", name);
            cr_assert(rr[i].flooded ? json_integer_value(json_object_get(e, "flood_from_s")) == rr[i].flood_from
                                    : json_is_null(json_object_get(e, "flood_from_s")));
        }
    }

    /* odds and sizing over seeds 1-24 of 12 s, from play's rows */
    row *o[4];
    for (int k = 0; k < 4; k++) {
        o[k] = calloc(24, sizeof *o[k]);
        snprintf(cmd, sizeof cmd, "--arm %s --seeds 1-24 --seconds 12", names[k]);
        cr_assert_eq(play_csv(cmd, o[k], 24), 24);
    }
    json_t *odds = json_object_get(p, "odds");
    cr_assert_eq(json_array_size(odds), 3); /* H3-none slow; the two 450/s arms flood */
    const struct {
        const char *claim, *event;
        int k;
    } want[3] = {{"slow", "p99_over_1s", 0}, {"flood", "flooded", 1}, {"flood", "flooded", 2}};
    for (int i = 0; i < 3; i++) {
        json_t *e = json_array_get(odds, (size_t)i);
        int hits = 0;
        for (int s = 0; s < 24; s++)
            hits += want[i].k == 0 ? o[0][s].p99_ms > 1000 : o[want[i].k][s].flooded;
        cr_assert_str_eq(json_string_value(json_object_get(e, "claim")), want[i].claim);
        cr_assert_str_eq(json_string_value(json_object_get(e, "event")), want[i].event);
        cr_assert_str_eq(json_string_value(json_object_get(e, "arm")), names[want[i].k]);
        cr_assert_str_eq(json_string_value(json_object_get(e, "seeds")), "1-24");
        cr_assert_eq(json_integer_value(json_object_get(e, "seconds")), 12);
        cr_assert_eq(json_integer_value(json_object_get(e, "sim_k")), hits, "%s", names[want[i].k]);
        cr_assert_eq(json_integer_value(json_object_get(e, "sim_n")), 24);
        /* the old options: every arm the 2 rounds of --rounds */
        cr_assert_eq(json_integer_value(json_object_get(e, "planned_rounds")), 2);
        cr_assert_float_eq(json_number_value(json_object_get(e, "p_seen")), 1 - pow(1 - hits / 24.0, 2), 1e-12);
    }
    cr_assert_gt(json_integer_value(json_object_get(json_array_get(odds, 0), "sim_k")), 0,
                 "H3-none's p99 tops 1 s in some 12 s seeds");

    json_t *sz = json_object_get(p, "sizing");
    cr_assert_eq(json_array_size(sz), 3); /* the lines with both arms and a figure play computes */
    const struct {
        int ka, kb;
        const char *fig;
    } lines[3] = {{1, 2, "standin_share"}, {1, 2, "lookups_per_request"}, {0, 2, "p99_ms"}};
    for (int i = 0; i < 3; i++) {
        json_t *e = json_array_get(sz, (size_t)i);
        cr_assert_str_eq(json_string_value(json_object_get(e, "figure")), lines[i].fig);
        cr_assert_str_eq(json_string_value(json_object_get(e, "a")), names[lines[i].ka]);
        int pos = 0, neg = 0;
        for (int s = 0; s < 24; s++) {
            const row *x = &o[lines[i].ka][s], *y = &o[lines[i].kb][s];
            double dx = i == 0 ? x->standin_share - y->standin_share
                        : i == 1 ? (double)x->lookups / (double)x->requests - (double)y->lookups / (double)y->requests
                                 : x->p99_ms - y->p99_ms;
            pos += dx > 0;
            neg += dx < 0;
        }
        double q = (double)(pos > neg ? pos : neg) / 24.0;
        int r90 = 0;
        for (int r = 2; r <= 20; r++)
            if (pow(q, r) >= 0.9)
                r90 = r;
        cr_assert_float_eq(json_real_value(json_object_get(e, "q")), q, 1e-12, "%s", lines[i].fig);
        cr_assert_eq(json_integer_value(json_object_get(e, "rounds_90")), r90, "%s", lines[i].fig);
        cr_assert_eq(json_integer_value(json_object_get(e, "rounds")), 2, "%s", lines[i].fig);
        cr_assert_float_eq(json_real_value(json_object_get(e, "power")), q * q, 1e-12, "%s", lines[i].fig);
        cr_assert_eq(json_is_true(json_object_get(e, "decides")), q * q >= 0.9, "%s", lines[i].fig);
        cr_assert_eq(json_integer_value(json_object_get(e, "seconds_a")), 12, "%s", lines[i].fig);
        cr_assert_eq(json_integer_value(json_object_get(e, "seconds_b")), 12, "%s", lines[i].fig);
        cr_assert_null(json_object_get(e, "decides_in_5"), "format 2 has decides");
    }
    /* retries always call more than one try per request: q 1, 20 rounds */
    cr_assert_float_eq(json_real_value(json_object_get(json_array_get(sz, 1), "q")), 1.0, 1e-12);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(sz, 1), "rounds_90")), 20);
    for (int k = 0; k < 4; k++)
        free(o[k]);
    json_decref(p);

    /* --sizing: the same verdicts as a page */
    char md[128];
    snprintf(md, sizeof md, "%s/SIZING.md", dir);
    snprintf(cmd, sizeof cmd, PREDICT " --sizing %s --arm %s --odds-seeds 1-24 --odds-seconds 12 --comparisons %s", md,
             arms, cmp);
    cr_assert_eq(run(cmd, &out), 0, "%s", out);
    free(out);
    char *text = NULL, err[UT_ERRLEN];
    size_t n;
    cr_assert_eq(ut_read_file(md, &text, &n, err, sizeof err), 0, "%s", err);
    /* the old options: --rounds' default 1-5, so 5 rounds */
    cr_assert(strstr(text, "| H4-r2 | H4-fb25 | `lookups_per_request` | a > b | 12 | 12 | 1.000 | 5 | 1.000 | yes | 20 |"),
              "%s", text);
    cr_assert(strstr(text, "- H3-t25 against H3-fb25, `p99_ms` (an arm play does not simulate)"), "%s", text);
    cr_assert(strstr(text, "| flood | H4-r2 | `flooded` |"), "%s", text);
    free(text);
}

/* A tiny design of our own: H4-r2 3 rounds of 2 s, H4-fb25 2 rounds of 4 s,
 * Z-capacity (closed loop: not simulated) 2 rounds of 1 s, seeds 1-16.  The
 * prediction: every run at its own length and rounds; the odds at each
 * arm's length, planned_rounds its rounds, p_seen = 1 - (1 - k/n)^rounds
 * with k recomputed from play's rows at that length; the sizing over seed
 * k of H4-r2 at 2 s against seed k of H4-fb25 at 4 s, rounds 2 (the rounds
 * both have), power q^2.  By hand: retries always call more than one try a
 * request, the stand-in arm exactly one, so q = 1 and power = 1; H3-none
 * against Z-capacity is not sized (an arm play does not simulate) but
 * counts in the page's family with 2 rounds: 2 * 0.5^2 = 50%, so with the
 * two sized verdicts of 2 rounds the family expects 1.50 chance verdicts.
 * A deviations file (H4-r2's group 4 rounds) gives 4 planned rounds. */
Test(predict, a_tiny_design_at_the_lengths_it_runs)
{
    need_play();
    char prof[128], cmp[128], pred[128], md[128], devs[128], cmd[2048], *out;
    snprintf(prof, sizeof prof, "%s/profiles.tsv", dir);
    snprintf(cmp, sizeof cmp, "%s/cmp.tsv", dir);
    snprintf(pred, sizeof pred, "%s/prediction.json", dir);
    snprintf(md, sizeof md, "%s/SIZING.md", dir);
    snprintf(devs, sizeof devs, "%s/deviations.tsv", dir);
    FILE *f = fopen(prof, "w");
    cr_assert_not_null(f);
    fprintf(f, "# a tiny design\nprofile\tgroup\tarms\trounds\tseconds\todds_seeds\n"
               "t\tfloods\tH4-r2\t3\t2\t1-16\nt\trest\tH4-fb25\t2\t4\t1-16\nt\tcap\tZ-capacity\t2\t1\t1-16\n");
    fclose(f);
    write_cmp(cmp, "H4-r2\tH4-fb25\tlookups_per_request\tcalls\n"
                   "H4-r2\tH4-fb25\tstandin_share\tstand-ins\n"
                   "H4-r2\tZ-capacity\tp99_ms\tnot simulated\n");
    snprintf(cmd, sizeof cmd, PREDICT " --predict %s --profiles %s --profile t --comparisons %s 2>&1", pred, prof, cmp);
    cr_assert_eq(run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "predict: 5 runs (2 arms, "), "%s", out);
    free(out);
    json_t *p = load(pred);
    cr_assert_str_eq(json_string_value(json_object_get(p, "format")), "lab-prediction 2");
    json_t *rounds = json_object_get(p, "rounds");
    cr_assert(json_array_size(rounds) == 3 && json_integer_value(json_array_get(rounds, 2)) == 3);
    json_t *runs = json_object_get(p, "runs");
    cr_assert_eq(json_object_size(runs), 5, "3 of H4-r2, 2 of H4-fb25, none of Z-capacity");
    const struct {
        const char *run;
        int seconds;
    } want[5] = {{"H4-r2-r1", 2}, {"H4-r2-r2", 2}, {"H4-r2-r3", 2}, {"H4-fb25-r1", 4}, {"H4-fb25-r2", 4}};
    for (int i = 0; i < 5; i++) {
        json_t *e = json_object_get(runs, want[i].run);
        cr_assert_not_null(e, "%s", want[i].run);
        cr_assert_eq(json_integer_value(json_object_get(e, "seconds")), want[i].seconds, "%s", want[i].run);
    }
    /* the run of round 3 is play's seed 3 at 2 s */
    row rr[1];
    cr_assert_eq(play_csv("--arm H4-r2 --seeds 3 --seconds 2", rr, 1), 1);
    cr_assert_float_eq(json_real_value(json_object_get(json_object_get(runs, "H4-r2-r3"), "lookups_per_request")),
                       (double)rr[0].lookups / (double)rr[0].requests, 1e-12);

    /* odds: each arm at its own length, over seeds 1-16 */
    row r2[16], fb[16];
    cr_assert_eq(play_csv("--arm H4-r2 --seeds 1-16 --seconds 2", r2, 16), 16);
    cr_assert_eq(play_csv("--arm H4-fb25 --seeds 1-16 --seconds 4", fb, 16), 16);
    json_t *odds = json_object_get(p, "odds");
    cr_assert_eq(json_array_size(odds), 2);
    const struct {
        const char *arm;
        const row *rows;
        int seconds, planned;
    } ow[2] = {{"H4-fb25", fb, 4, 2}, {"H4-r2", r2, 2, 3}}; /* lab/arms.tsv's order */
    for (int i = 0; i < 2; i++) {
        json_t *e = json_array_get(odds, (size_t)i);
        int k = 0;
        for (int s = 0; s < 16; s++)
            k += ow[i].rows[s].flooded;
        cr_assert_str_eq(json_string_value(json_object_get(e, "arm")), ow[i].arm);
        cr_assert_eq(json_integer_value(json_object_get(e, "seconds")), ow[i].seconds, "%s", ow[i].arm);
        cr_assert_str_eq(json_string_value(json_object_get(e, "seeds")), "1-16");
        cr_assert_eq(json_integer_value(json_object_get(e, "sim_k")), k, "%s", ow[i].arm);
        cr_assert_eq(json_integer_value(json_object_get(e, "planned_rounds")), ow[i].planned, "%s", ow[i].arm);
        cr_assert_float_eq(json_number_value(json_object_get(e, "p_seen")), 1 - pow(1 - k / 16.0, ow[i].planned),
                           1e-12, "%s", ow[i].arm);
    }

    /* sizing: seed k of H4-r2 at 2 s against seed k of H4-fb25 at 4 s */
    json_t *sz = json_object_get(p, "sizing");
    cr_assert_eq(json_array_size(sz), 2, "the line with Z-capacity is not sized");
    int pos = 0, neg = 0;
    for (int s = 0; s < 16; s++) {
        double d = r2[s].standin_share - fb[s].standin_share;
        pos += d > 0;
        neg += d < 0;
    }
    double q1 = (double)(pos > neg ? pos : neg) / 16.0;
    const double q[2] = {1.0, q1}; /* lookups_per_request by hand: 1 */
    for (int i = 0; i < 2; i++) {
        json_t *e = json_array_get(sz, (size_t)i);
        cr_assert_eq(json_integer_value(json_object_get(e, "seconds_a")), 2);
        cr_assert_eq(json_integer_value(json_object_get(e, "seconds_b")), 4);
        cr_assert_float_eq(json_real_value(json_object_get(e, "q")), q[i], 1e-12, "sizing %d", i);
        cr_assert_eq(json_integer_value(json_object_get(e, "rounds")), 2, "sizing %d: the rounds both have", i);
        cr_assert_float_eq(json_real_value(json_object_get(e, "power")), q[i] * q[i], 1e-12, "sizing %d", i);
        cr_assert_eq(json_is_true(json_object_get(e, "decides")), q[i] * q[i] >= 0.9, "sizing %d", i);
    }
    cr_assert(json_is_true(json_object_get(json_array_get(sz, 0), "decides")));
    json_decref(p);

    /* the page: the family's rates and the flood rounds checked against the design */
    snprintf(cmd, sizeof cmd, PREDICT " --sizing %s --profiles %s --profile t --comparisons %s 2>&1", md, prof, cmp);
    cr_assert_eq(run(cmd, &out), 0, "%s", out);
    free(out);
    char *text = NULL, err[UT_ERRLEN];
    size_t n;
    cr_assert_eq(ut_read_file(md, &text, &n, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(text, "its false-positive rate (50% at 2 rounds)"), "%s", text);
    cr_assert(strstr(text, "Over the family of the 3 verdicts of"), "%s", text);
    cr_assert(strstr(text, "chance alone would give about 1.50 clearly different verdicts"), "%s", text);
    cr_assert(strstr(text, "| H4-r2 | H4-fb25 | `lookups_per_request` | a > b | 2 | 4 | 1.000 | 2 | 1.000 | yes | 20 |"),
              "%s", text);
    cr_assert(strstr(text, "- H4-r2 against Z-capacity, `p99_ms` (an arm play does not simulate): 2 rounds, "
                           "false-positive rate 50%"),
              "%s", text);
    int k = 0;
    for (int s = 0; s < 16; s++)
        k += r2[s].flooded;
    int nsee = 0;
    for (int m = 1; m <= 10000 && !nsee; m++)
        if (1 - pow(1 - k / 16.0, m) >= 0.95)
            nsee = m;
    char says[256];
    if (nsee == 3)
        snprintf(says, sizeof says, "is 3, which equals the 3 rounds `%s` registers for its group `floods`", prof);
    else if (nsee)
        snprintf(says, sizeof says, "is %d, which differs from the 3 rounds `%s` registers for its group `floods`",
                 nsee, prof);
    else
        snprintf(says, sizeof says, "is none up to 10000, which differs from the 3 rounds `%s` registers", prof);
    cr_assert(strstr(text, says), "%s\n%s", says, text);
    free(text);

    /* the design as run: H4-r2's group 4 rounds */
    f = fopen(devs, "w");
    cr_assert_not_null(f);
    fprintf(f, "group\tfield\tregistered\tran\treason\nfloods\trounds\t3\t4\ta test\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, PREDICT " --predict %s --profiles %s --profile t --deviations %s --comparisons %s 2>&1",
             pred, prof, devs, cmp);
    cr_assert_eq(run(cmd, &out), 0, "%s", out);
    free(out);
    p = load(pred);
    cr_assert_not_null(json_object_get(json_object_get(p, "runs"), "H4-r2-r4"));
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(p, "odds"), 1), "planned_rounds")), 4);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(p, "sizing"), 0), "rounds")), 2);
    json_decref(p);

    /* refused beside a design: the per-call rounds and seconds; a profile it lacks; a bad line */
    const struct {
        const char *args, *says;
    } bad[] = {
        {"--profile t --rounds 1-2", "--rounds: the design"},
        {"--profile t --odds-seconds 30", "--odds-seconds: the design"},
        {"", "give --profile NAME"},
        {"--profile nosuch", "nosuch"},
        {"--profile t --arm H3-fb25", "--arm \"H3-fb25\": not in profile t"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, PREDICT " --predict %s/never.json --profiles %s %s --comparisons %s 2>&1 >/dev/null",
                 dir, prof, bad[i].args, cmp);
        int rc = run(cmd, &out);
        cr_assert_eq(rc, 2, "%s: exit %d: %s", bad[i].args, rc, out);
        cr_assert(strstr(out, bad[i].says), "%s: %s", bad[i].args, out);
        free(out);
    }
    snprintf(cmd, sizeof cmd, "%s/never.json", dir);
    cr_assert_eq(access(cmd, F_OK), -1, "nothing written");
}

/* pipeline/comparisons.tsv's comment lines ("#") and empty lines mean
 * nothing to the prediction, as to collect (lab/core/cmptab.h, the one
 * reader of both): the same file with them gives the same prediction.json
 * byte for byte; a malformed line is refused with the file and the line. */
Test(predict, comment_lines_in_the_comparisons_mean_nothing)
{
    need_play();
    char plain[128], commented[128], p1[128], p2[128], cmd[1024], *out;
    snprintf(plain, sizeof plain, "%s/plain.tsv", dir);
    snprintf(commented, sizeof commented, "%s/commented.tsv", dir);
    snprintf(p1, sizeof p1, "%s/p1.json", dir);
    snprintf(p2, sizeof p2, "%s/p2.json", dir);
    write_cmp(plain, "H4-r2\tH4-fb25\tstandin_share\tretries flood\nH4-r2\tH4-fb25\tp99_ms\tslow\n");
    FILE *f = fopen(commented, "w");
    cr_assert_not_null(f);
    fprintf(f, "# the comparisons, commented\na\tb\tfigure\tnote\n# a comment between the lines\n"
               "H4-r2\tH4-fb25\tstandin_share\tretries flood\n\n#H3-none\tH4-fb25\tp99_ms\tnot a line\n"
               "H4-r2\tH4-fb25\tp99_ms\tslow\n");
    fclose(f);
    const char *args = "--arm H4-r2,H4-fb25 --profile test --rounds 1 --seconds 2 --odds-seeds 1-4 --odds-seconds 4";
    snprintf(cmd, sizeof cmd, PREDICT " --predict %s %s --comparisons %s 2>&1", p1, args, plain);
    cr_assert_eq(run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, PREDICT " --predict %s %s --comparisons %s 2>&1", p2, args, commented);
    cr_assert_eq(run(cmd, &out), 0, "%s", out);
    free(out);
    char *a = NULL, *b = NULL, err[UT_ERRLEN];
    size_t na, nb;
    cr_assert_eq(ut_read_file(p1, &a, &na, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ut_read_file(p2, &b, &nb, err, sizeof err), 0, "%s", err);
    cr_assert(na == nb && !memcmp(a, b, na), "the comment lines changed the prediction");
    json_t *j = json_loads(a, 0, NULL);
    cr_assert_eq(json_array_size(json_object_get(j, "sizing")), 2, "%s", a);
    json_decref(j);
    free(a);
    free(b);

    /* a malformed line: the file and its line (comments counted) named */
    const struct {
        const char *text, *says;
    } bad[] = {
        {"# c\na\tb\tfigure\tnote\n# c\nH4-r2\tH4-fb25\n", "commented.tsv:4: 2 fields, expected 4 (a b figure note)"},
        {"# c\na\tb\tfigure\n", "commented.tsv:2: the header must be"},
        {"# only a comment\n", "commented.tsv: no header line"},
        {"a\tb\tfigure\tnote\nH4-r2\t\tp99_ms\tx\n", "commented.tsv:2: field b \"\" is empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(ut_write_file(commented, bad[i].text, strlen(bad[i].text), err, sizeof err), 0, "%s", err);
        snprintf(cmd, sizeof cmd, PREDICT " --predict %s %s --comparisons %s 2>&1 >/dev/null", p2, args, commented);
        int rc = run(cmd, &out);
        cr_assert_eq(rc, 2, "case %zu: exit %d: %s", i, rc, out);
        cr_assert(strstr(out, bad[i].says), "case %zu: %s", i, out);
        free(out);
    }
}

Test(predict, bad_options_and_comparisons_refused)
{
    need_play();
    char cmp[128], cmd[1024], *out;
    snprintf(cmp, sizeof cmp, "%s/cmp.tsv", dir);
    write_cmp(cmp, "H4-r2\tH4-fb25\n");
    const struct {
        const char *args, *says;
    } bad[] = {
        {"--predict P --arm H4-r2 --seeds 1-5", "--predict: predicts the arms as they are"},
        {"--predict P --arm H4-r2 --retries 1", "no setting"},
        {"--predict P --arm Z-capacity", "closed loop"},
        {"--predict P --sizing Q", "one at a time"},
        {"--predict P --rounds 5-1", "--rounds \"5-1\""},
        {"--predict P --odds-seconds 0", "--odds-seconds"},
        {"--predict P --arm H4-r2 --comparisons CMP", "cmp.tsv:2: 2 fields, expected 4 (a b figure note)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* P and Q: files in dir (never written); CMP: the bad comparisons */
        char args[1024] = "";
        for (const char *c = bad[i].args; *c; c++) {
            size_t n = strlen(args);
            if ((*c == 'P' || *c == 'Q') && c[-1] == ' ' && (c[1] == ' ' || !c[1]))
                snprintf(args + n, sizeof args - n, "%s/%c", dir, *c);
            else if (!strncmp(c, "CMP", 3)) {
                snprintf(args + n, sizeof args - n, "%s", cmp);
                c += 2;
            } else
                snprintf(args + n, sizeof args - n, "%c", *c);
        }
        snprintf(cmd, sizeof cmd, PREDICT " %s --odds-seeds 1-2 2>&1 >/dev/null", args);
        int rc = run(cmd, &out);
        cr_assert_eq(rc, 2, "%s: exit %d: %s", args, rc, out);
        cr_assert(strstr(out, bad[i].says), "%s: %s", args, out);
        free(out);
    }
    /* the prediction is measure's: play refuses it, naming the program */
    snprintf(cmd, sizeof cmd, PLAY " --predict %s/P --arm H4-r2 2>&1 >/dev/null", dir);
    int rc = run(cmd, &out);
    cr_assert_eq(rc, 2, "play --predict: exit %d: %s", rc, out);
    cr_assert(strstr(out, "build/bin/predict"), "%s", out);
    free(out);
    DIR *d = opendir(dir); /* nothing written */
    int files = 0;
    for (struct dirent *e; (e = readdir(d));)
        files += e->d_name[0] != '.';
    closedir(d);
    cr_assert_eq(files, 1);
}

/* The stand-in share of a measured run: tester rows of kind K or D over all rows. */
static double measured_standin(const char *run)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/tester.tsv.gz", dir, run);
    rr_file t;
    cr_assert_eq(rr_read(path, &t), 0, "%s", path);
    size_t k = 0;
    for (size_t i = 0; i < t.n; i++) {
        int64_t kind = rr_get(&t, "kind", i);
        k += kind == 'K' || kind == 'D';
    }
    double share = t.n ? (double)k / (double)t.n : NAN;
    rr_free(&t);
    return share;
}

/* H3-fb25 and H4-fb25, rounds 1 and 2, 3 s each, measured (quiet rules
 * off, as the other tests of real runs) and predicted: the stand-in shares
 * agree within the design's tolerance.  A run that misses is measured
 * again (up to 3 times: a busy shared machine is not a quiet one). */
Test(predict, measured_and_predicted_standin_share_agree)
{
    need_play();
    char pred[128], cmd[1024], *out;
    snprintf(pred, sizeof pred, "%s/prediction.json", dir);
    snprintf(cmd, sizeof cmd, PREDICT " --predict %s --arm H3-fb25,H4-fb25 --rounds 1-2 --seconds 3 --odds-seeds 1-2",
             pred);
    cr_assert_eq(run(cmd, &out), 0, "%s", out);
    free(out);
    json_t *p = load(pred);
    const char *arms[2] = {"H3-fb25", "H4-fb25"};
    for (int a = 0; a < 2; a++)
        for (int r = 1; r <= 2; r++) {
            char name[64];
            snprintf(name, sizeof name, "%s-r%d", arms[a], r);
            double want = json_real_value(json_object_get(json_object_get(json_object_get(p, "runs"), name),
                                                          "standin_share"));
            cr_assert_gt(want, 0.0, "%s: some freezes in 3 s", name);
            double got = NAN;
            for (int attempt = 0; attempt < 3; attempt++) {
                snprintf(cmd, sizeof cmd,
                         "rm -rf %s/%s && build/bin/run --arm %s --round %d --seconds 3 --gate 0 --settle-s 0.2 "
                         "--quiet tests/quiet_off.tsv --raw %s > %s/log 2>&1",
                         dir, name, arms[a], r, dir, dir);
                cr_assert_eq(system(cmd), 0, "%s", cmd);
                got = measured_standin(name);
                if (fabs(got - want) <= STANDIN_TOLERANCE)
                    break;
                fprintf(stderr, "test_playpredict: %s measured %.4f, predicted %.4f; again\n", name, got, want);
            }
            cr_assert_leq(fabs(got - want), STANDIN_TOLERANCE, "%s: measured %.4f, predicted %.4f", name, got, want);
        }
    json_decref(p);
}
