/* The map of floods by load (suite map, lab/play/playmap.h): play's flood
 * stop finds the whole run's flood (pflood_watch against pflood_of on the
 * same seeds); the freeze count is a property of the dice; the figures by
 * hand (Wilson bounds, the hidden capacity and its interval, a trigger's
 * median); the map's cell (r2, 450/s) is the prediction's registered odds
 * of H4-r2 over the same seeds; and the arm name grammar takes a rate
 * written out (H550-r2), which play --rate reaches too. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arms.h"
#include "playflood.h"
#include "playmap.h"
#include "playsim.h"

static arm_table T;
static void load_arms(void)
{
    char err[512];
    cr_assert_eq(arms_load("lab/arms.tsv", &T, err, sizeof err), 0, "%s", err);
}
static void free_arms(void) { arms_free(&T); }

/* The stop at the flood gives the whole run's flood, seed by seed, at a
 * load where many seeds flood and many do not. */
Test(map, flood_stop_finds_the_whole_runs_flood, .init = load_arms, .fini = free_arms, .timeout = 120)
{
    arm a = *arms_find(&T, "H4-r2");
    a.rate = 500;
    psim_cfg full = {.a = &a, .rows = 1, .slots = 16, .conns = 2, .freezes = 1};
    psim_cfg stop = full;
    stop.flood_stop = 1;
    psim *S = psim_new(&full), *Q = psim_new(&stop);
    cr_assert(S && Q);
    int flooded = 0, stopped = 0;
    for (uint32_t seed = 1; seed <= 60; seed++) {
        play_result R, P;
        cr_assert_eq(psim_run(S, 30, seed, NULL, &R), 0);
        cr_assert_eq(psim_run(Q, 30, seed, NULL, &P), 0);
        cr_assert_eq(P.flood.flooded, R.flood.flooded, "seed %u", seed);
        cr_assert_eq(P.flood.from_s, R.flood.from_s, "seed %u", seed);
        cr_assert_eq(P.stopped, R.flood.flooded, "seed %u: a seed stops exactly when it floods", seed);
        cr_assert_eq(R.stopped, 0);
        if (!R.flood.flooded) /* a calm seed runs to its end: the same figures */
            cr_assert(P.standins == R.standins && P.lookups == R.lookups && P.p99_ms == R.p99_ms, "seed %u", seed);
        else
            cr_assert(P.lookups < R.lookups && isnan(P.p99_ms), "seed %u: stopped early", seed);
        /* the trigger is counted before the flood's first second ends, with or without the stop */
        cr_assert_eq(P.frz_trigger, R.frz_trigger, "seed %u", seed);
        cr_assert(R.frz_trigger >= 0 && R.frz_trigger <= 16, "seed %u: at most every slot", seed);
        flooded += R.flood.flooded;
        stopped += P.stopped;
    }
    cr_assert(flooded > 10 && flooded < 50, "500/s floods some seeds and not others (%d of 60)", flooded);
    cr_assert_eq(stopped, flooded);
    psim_free(S);
    psim_free(Q);
}

/* The watch on hand-made seconds: settled seconds only, N in a row. */
Test(map, watch_on_hand_made_seconds)
{
    play_second s[6] = {{.req = 4, .missed = 3, .settled = 4}, {.req = 4, .missed = 3, .settled = 4},
                        {.req = 0},                            {.req = 2, .missed = 2, .settled = 2},
                        {.req = 2, .missed = 2, .settled = 1}, {.req = 2, .missed = 2, .settled = 2}};
    pflood_watch w;
    pflood_watch_begin(&w, 6);
    cr_assert_eq(pflood_watch_step(&w, s, 6), 0, "second 2 has no arrivals: the row breaks; second 4 not settled");
    cr_assert_eq(w.cur, 4);
    s[4].settled = 2;
    cr_assert_eq(pflood_watch_step(&w, s, 6), 1);
    cr_assert_eq(w.from_s, 3);
    pflood f;
    pflood_of(s, 6, 6, &f);
    cr_assert(f.flooded && f.from_s == 3);
}

/* A map of three loads built by hand: 0, 5 and 20 flooded seeds of 1,000. */
Test(map, figures_by_hand)
{
    enum { N = 1000 };
    static uint8_t fl[3 * N];
    static int32_t from[3 * N], trig[3 * N];
    static double sh[3 * N];
    pmap m = {.npol = 1, .nloads = 3, .loads = {300, 325, 350}, .nseeds = N, .flooded = fl, .from_s = from,
              .standin = sh, .trigger = trig};
    for (int l = 0; l < 3; l++)
        for (int s = 0; s < N; s++) {
            int k = l == 0 ? 0 : l == 1 ? 5 : 20;
            fl[l * N + s] = s < k;
            from[l * N + s] = s < k ? 10 + s : -1;
            sh[l * N + s] = 0.001 * (s % 3);
            trig[l * N + s] = -1;
        }
    pmap_cell c;
    pmap_cell_of(&m, 0, 0, &c);
    cr_assert(c.k == 0 && fabs(c.wilson95[0]) < 1e-15, "%g", c.wilson95[0]);
    cr_assert(fabs(c.wilson95[1] - 3.8267e-3) < 1e-6, "Wilson upper bound of 0 of 1000: %g", c.wilson95[1]);
    pmap_cell_of(&m, 0, 1, &c);
    /* 5 of 1000: p = 0.005, z² = 3.841459; centre (0.005 + 0.0019207) = 0.0069207, half
     * 1.959964 · √(4.975e-6 + 9.6036e-7) = 0.0047750, over 1 + z²/n = 1.0038415:
     * [0.0021375, 0.0116510] */
    cr_assert(fabs(c.wilson95[0] - 0.0021375) < 1e-6 && fabs(c.wilson95[1] - 0.0116510) < 1e-6, "%g %g",
              c.wilson95[0], c.wilson95[1]);
    cr_assert_eq(c.onset_median_s, 12, "onsets 10 .. 14: median 12");
    cr_assert_eq(c.standin_median, 0.001, "calm seeds' shares 0, 0.001, 0.002 in thirds");
    pmap_capacity cap;
    pmap_capacity_of(&m, 0, &cap);
    /* share below 1%: 300 and 325; upper bounds below 1%: 300 only; lower bounds: 300, 325 (20/1000: 0.013) */
    cr_assert(cap.load == 325 && cap.lo == 300 && cap.hi == 325 && cap.tips, "%d %d %d", cap.load, cap.lo, cap.hi);
    fl[0] = 1; /* one flood at the lowest load: 0.1%, still below */
    pmap_capacity_of(&m, 0, &cap);
    cr_assert_eq(cap.load, 325);
    for (int s = 0; s < 10; s++) /* 1% at 300/s: the policy is past its capacity at the grid's lowest load */
        fl[s] = 1;
    pmap_capacity_of(&m, 0, &cap);
    cr_assert(cap.load == -1 && cap.tips);
}

/* A trigger's median from its seeds at PMAP_TRIGGER_LOAD. */
Test(map, trigger_median)
{
    static uint8_t fl[4];
    static int32_t from[4] = {-1, -1, -1, -1}, trig[4] = {2, 3, 3, 3};
    static double sh[4];
    pmap m = {.npol = 1, .nloads = 1, .loads = {PMAP_TRIGGER_LOAD}, .nseeds = 4, .flooded = fl, .from_s = from,
              .standin = sh, .trigger = trig};
    pmap_trigger tr;
    pmap_trigger_of(&m, 0, 0, &tr);
    cr_assert(tr.n == 4 && tr.median == 3 && tr.max == 3 && tr.counts[2] == 1 && tr.counts[3] == 3);
    pmap_trigger_of(&m, 0, 1, &tr);
    cr_assert(tr.n == 0 && isnan(tr.median) && tr.max == -1);
}

/* The map's cell (r2, 450) is H4-r2's registered odds: same definition,
 * same seeds, same seconds. */
Test(map, cell_r2_450_is_the_registered_odds, .timeout = 300)
{
    char dir[] = "/tmp/mapXXXXXX", cmd[1024], path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/prediction.json", dir);
    snprintf(cmd, sizeof cmd,
             "build/bin/predict --predict %s --arm H4-r2,H550-r2,H3-r2 --rounds 1 --seconds 30 --odds-seeds 1-40 "
             "--odds-seconds 30 --comparisons %s/cmp.tsv > %s/out 2>&1",
             path, dir, dir);
    char cmp[128];
    snprintf(cmp, sizeof cmp, "%s/cmp.tsv", dir);
    FILE *f = fopen(cmp, "w");
    cr_assert_not_null(f);
    fputs("a\tb\tfigure\tnote\n", f);
    fclose(f);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je), *m = json_object_get(root, "map");
    cr_assert(json_is_object(m), "%s", je.text);
    cr_assert_str_eq(json_string_value(json_object_get(m, "seeds")), "1-40");
    json_int_t odds_k = -1, odds_n = -1;
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "odds"), i, o) if (!strcmp(json_string_value(json_object_get(o, "arm")),
                                                                        "H4-r2"))
    {
        odds_k = json_integer_value(json_object_get(o, "sim_k"));
        odds_n = json_integer_value(json_object_get(o, "sim_n"));
    }
    cr_assert_eq(odds_n, 40);
    json_t *r2 = json_array_get(json_object_get(m, "policies"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(r2, "policy")), "r2");
    json_t *cell = NULL;
    json_array_foreach(json_object_get(r2, "cells"), i, o) if (json_integer_value(json_object_get(o, "load")) == 450)
        cell = o;
    cr_assert_not_null(cell);
    cr_assert_eq(json_integer_value(json_object_get(cell, "k")), odds_k, "the map's cell and the odds: %lld",
                 (long long)odds_k);
    cr_assert_eq(json_integer_value(json_object_get(cell, "n")), odds_n);
    cr_assert(odds_k > 0, "H4-r2 floods in some of 40 seeds of 30 s");
    /* the arms on the curve: H4-r2 and H550-r2 (flood claims); H3-r2 has no claim */
    json_t *arms = json_object_get(r2, "arms");
    cr_assert_eq(json_array_size(arms), 2);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(arms, 1), "arm")), "H550-r2");
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(arms, 1), "load")), 550);
    json_decref(root);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The grammar: a rate written out, or a code; every other form refused. */
Test(map, name_grammar_takes_a_rate_written_out, .init = load_arms, .fini = free_arms)
{
    arm a = *arms_find(&T, "H4-r2");
    char why[256];
    struct {
        const char *name;
        int rate, ok;
    } c[] = {{"H550-r2", 550, 1}, {"H550-r2", 450, 0}, {"H4-r2", 450, 1}, {"H300-r2", 300, 1},
             {"H0550-r2", 550, 0}, {"H5-r2", 500, 0},  {"H12345678-r2", 12345678, 0}, {"L550-r2", 550, 0}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        snprintf(a.name, sizeof a.name, "%s", c[i].name);
        a.rate = c[i].rate;
        int rc = arms_check(&a, why, sizeof why);
        cr_assert_eq(rc == 0, c[i].ok, "%s at %d/s: %s", c[i].name, c[i].rate, rc ? why : "kept");
        if (!c[i].ok)
            cr_assert(strstr(why, "rule name"), "%s", why);
    }
    /* the odds' and the map's reading of the same grammar: a rate written out, or not */
    cr_assert(arms_rate_written("H550-r2") && arms_rate_written("H300-fb25"));
    cr_assert(!arms_rate_written("H3-r2") && !arms_rate_written("H0550-r2") && !arms_rate_written("Z-capacity") &&
              !arms_rate_written("H12345678-r2") && !arms_rate_written("H550"));
}

/* play --rate puts any policy at any load: H4-r2 at 550/s is H550-r2. */
Test(map, play_rate_is_the_arm_at_that_rate, .timeout = 60)
{
    char a[4096] = "", b[4096] = "";
    /* the rows without their comment and their last column, the arm's name */
    FILE *p = popen("build/bin/play --arm H4-r2 --rate 550 --seeds 1-5 --seconds 10 --csv 2>/dev/null | grep -v '^#' | "
                    "sed 's/,[^,]*$//'", "r");
    FILE *q = popen("build/bin/play --arm H550-r2 --seeds 1-5 --seconds 10 --csv 2>/dev/null | grep -v '^#' | "
                    "sed 's/,[^,]*$//'", "r");
    cr_assert(p && q);
    size_t na = fread(a, 1, sizeof a - 1, p), nb = fread(b, 1, sizeof b - 1, q);
    pclose(p);
    pclose(q);
    cr_assert(na > 20 && na == nb, "%zu %zu", na, nb);
    cr_assert_str_eq(a, b);
}

/* build/bin/map: the table and its JSON; one thread or two give the same map. */
Test(map, the_map_program_and_its_threads, .timeout = 300)
{
    char dir[] = "/tmp/mapXXXXXX", cmd[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "build/bin/map --seeds 1-6 --policies r2,brkr2 --threads 1 --json %s/a.json > %s/a.txt && "
             "build/bin/map --seeds 1-6 --policies r2,brkr2 --threads 2 --json %s/b.json > %s/b.txt && "
             "cmp %s/a.json %s/b.json",
             dir, dir, dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char path[128];
    snprintf(path, sizeof path, "%s/a.txt", dir);
    FILE *f = fopen(path, "r");
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    cr_assert(strstr(text, "Hidden capacity") && strstr(text, "\nbrkr2    600+ (never 1%)"), "%s", text);
    snprintf(path, sizeof path, "%s/a.json", dir);
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je), *pols = json_object_get(m, "policies");
    cr_assert_str_eq(json_string_value(json_object_get(m, "format")), "lab-map 1");
    cr_assert_eq(json_array_size(pols), 2);
    cr_assert_eq(json_array_size(json_object_get(m, "loads")), 13, "300 to 600 by 25");
    json_t *c = json_array_get(json_object_get(json_array_get(pols, 0), "cells"), 12);
    cr_assert_eq(json_integer_value(json_object_get(c, "load")), 600);
    cr_assert_eq(json_integer_value(json_object_get(c, "n")), 6);
    /* a bad option is named, exit 2 */
    snprintf(cmd, sizeof cmd, "build/bin/map --policies nosuch --seeds 1 > %s/c.txt 2>&1; test $? -eq 2 && "
             "grep -q 'policy nosuch' %s/c.txt", dir, dir);
    cr_assert_eq(system(cmd), 0, "an unknown policy is named");
    json_decref(m);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
