/* Layered retries (lab/play/layers.h, build/bin/layers), suite "retrylayers":
 * without a budget the calls reaching a store that is down are T^N exactly
 * (worked out by hand for several N and T); with the lab's retry budget at
 * every one of 3 layers at 300 requests a second, the steady calls per
 * request stay within the bound the budget's rule gives, worked out by hand
 * below, far below 27; a budget never adds calls (a property over layers,
 * tries, placements and arrivals); each layer's arm is the lab's r2 / r2bud
 * of lab/arms.tsv; the program names a bad option and writes its JSON. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arms.h"
#include "layers.h"
#include "util.h"

static lay_result run(int layers, int tries, double rate, double seconds, unsigned budget, int poisson, uint64_t seed)
{
    lay_config c = {.layers = layers, .tries = tries, .rate = rate, .seconds = seconds, .budget = budget,
                    .poisson = poisson, .seed = seed};
    lay_result r;
    char err[512];
    cr_assert_eq(lay_run(&c, &r, err, sizeof err), 0, "%s", err);
    return r;
}

Test(retrylayers, without_a_budget_t_to_the_n)
{
    /* (N, T, calls reaching the store per request), by hand: 3, 3*3, 3*3*3;
     * 2*2*2; one try: 1 at every depth; 5 tries at 2 layers: 25 */
    const struct { int n, t; uint64_t store; } v[] = {{1, 3, 3}, {2, 3, 9}, {3, 3, 27}, {3, 2, 8},
                                                      {3, 1, 1}, {1, 1, 1}, {2, 5, 25}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        lay_result r = run(v[i].n, v[i].t, 300, 5, 0, 0, 1);
        cr_assert_eq(r.requests, 1500, "5 s at 300/s evenly spaced: %llu", (unsigned long long)r.requests);
        cr_assert_eq(r.calls[v[i].n], v[i].store * r.requests, "N %d T %d: %llu calls for %llu requests", v[i].n,
                     v[i].t, (unsigned long long)r.calls[v[i].n], (unsigned long long)r.requests);
        uint64_t each = 1; /* layer k receives T^k a request */
        for (int k = 0; k <= v[i].n; k++, each *= (uint64_t)v[i].t)
            cr_assert_eq(r.calls[k], each * r.requests, "N %d T %d layer %d", v[i].n, v[i].t, k + 1);
        lay_config c = {.layers = v[i].n, .tries = v[i].t, .rate = 300, .seconds = 5};
        cr_assert_float_eq(lay_expected(&c), (double)v[i].store, 1e-12);
    }
    /* Poisson arrivals change the count of requests, not the product */
    lay_result r = run(3, 3, 300, 5, 0, 1, 42);
    cr_assert_gt(r.requests, 0);
    cr_assert_eq(r.calls[3], 27 * r.requests);
}

Test(retrylayers, a_budget_at_every_layer_keeps_to_the_rule)
{
    /* 300/s evenly spaced for 30 s: every 1 s window holds exactly 300
     * requests, so the steady part (10 s to 30 s) holds 6000.  The rule
     * allows a retry while 100 (R + 1) <= 10 Q + 1000 over the last second:
     * at most floor(Q / 10) + 10 retries in any window (a window's retries
     * are within the count allowed at its last retry).  So in any window:
     * layer 1 gets 300 and sends at most 300 + 40 = 340; layer 2 sends at
     * most 340 + 34 + 10 = 384; layer 3 at most 384 + 38 + 10 = 432.  Over
     * the 20 windows of the steady part: at most 20 * 432 = 8640 calls reach
     * the store, 1.44 a request, against 27 without the budget. */
    lay_result r = run(3, 3, 300, 30, 7, 0, 1);
    cr_assert_eq(r.steady_requests, 6000);
    cr_assert_leq(r.steady_calls[1], 20 * 340);
    cr_assert_leq(r.steady_calls[2], 20 * 384);
    cr_assert_leq(r.steady_calls[3], 20 * 432, "%llu calls", (unsigned long long)r.steady_calls[3]);
    double per = (double)r.steady_calls[3] / (double)r.steady_requests;
    cr_assert_leq(per, 1.44);
    cr_assert_lt(per, 27.0 / 10, "far below 27: %g", per);
    /* the first try always goes, and the floor lets some retries through */
    cr_assert_gt(r.steady_calls[3], r.steady_calls[2]);
    cr_assert_gt(r.steady_calls[2], r.steady_calls[1]);
    cr_assert_gt(r.steady_calls[1], r.steady_requests);
    for (int k = 0; k < 3; k++)
        cr_assert_gt(r.steady_refused[k], 0, "layer %d's budget refused nothing", k + 1);
    /* The rule, real-valued: 300 -> 340 -> 384 -> 432.4, 1.4413 a request */
    lay_config c = {.layers = 3, .tries = 3, .rate = 300, .seconds = 30, .budget = 7};
    cr_assert_float_eq(lay_expected(&c), 432.4 / 300, 1e-12);
}

Test(retrylayers, a_budget_never_adds_calls)
{
    /* every placement of budgets over 1 to 4 layers of 2 to 4 tries, at 100/s
     * (4 x 4 x 4 x 100 = 6400 a second reach the bottom layer: within the
     * budget's window of POL_BUDGET_RING) */
    for (int n = 1; n <= 4; n++)
        for (int t = 2; t <= 4; t++)
            for (unsigned b = 1; b < 1u << n; b++)
                for (int poisson = 0; poisson <= 1; poisson++) {
                    lay_result with = run(n, t, 100, 3, b, poisson, 9), without = run(n, t, 100, 3, 0, poisson, 9);
                    cr_assert_eq(with.requests, without.requests);
                    for (int k = 0; k <= n; k++)
                        cr_assert_leq(with.calls[k], without.calls[k], "N %d T %d budget %u layer %d", n, t, b, k + 1);
                }
}

Test(retrylayers, each_layer_is_the_labs_r2bud)
{
    arm_table T;
    char err[UT_ERRLEN];
    cr_assert_eq(arms_load("lab/arms.tsv", &T, err, sizeof err), 0, "%s", err);
    const arm *bud = arms_find(&T, "H3-r2bud-down"), *r2 = arms_find(&T, "H3-r2-down");
    cr_assert(bud && r2);
    arm a, b;
    lay_arm(&a, 3, 1);
    lay_arm(&b, 3, 0);
    cr_assert_eq(a.tries, bud->tries);
    cr_assert_eq(a.try_ns, bud->try_ns);
    cr_assert_eq(a.pause, bud->pause);
    cr_assert_eq(a.rb_pct, bud->rb_pct);
    cr_assert_eq(a.rb_floor, bud->rb_floor);
    cr_assert_eq(b.tries, r2->tries);
    cr_assert_eq(b.try_ns, r2->try_ns);
    cr_assert_eq(b.rb_pct, 0);
    cr_assert_eq(a.standin, 0); /* a layer that gives up answers unavailable */
    cr_assert_eq(arms_check_policy(&a, err, sizeof err), 0, "%s", err);
    arms_free(&T);
}

Test(retrylayers, the_program_names_a_bad_option_and_writes_its_json)
{
    FILE *p = popen("build/bin/layers --tries 9 2>&1", "r");
    cr_assert_not_null(p);
    char line[512] = "";
    cr_assert_not_null(fgets(line, sizeof line, p));
    cr_assert_eq(WEXITSTATUS(pclose(p)), 2);
    cr_assert_not_null(strstr(line, "--tries"), "%s", line);

    char path[] = "build/layers-test-XXXXXX";
    cr_assert_not_null(mkdtemp(path));
    char cmd[512], file[128];
    snprintf(file, sizeof file, "%s/l.json", path);
    snprintf(cmd, sizeof cmd, "build/bin/layers --seconds 3 --json %s >/dev/null", file);
    cr_assert_eq(system(cmd), 0);
    json_error_t je;
    json_t *o = json_load_file(file, 0, &je);
    cr_assert_not_null(o, "%s", je.text);
    cr_assert_str_eq(json_string_value(json_object_get(o, "format")), "lab-layers 1");
    json_t *rows = json_object_get(o, "rows");
    cr_assert_eq(json_array_size(rows), 8); /* N 1: none, every; N 2 and 3: none, every, bottom */
    int seen = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *w = json_array_get(rows, i);
        if (json_integer_value(json_object_get(w, "layers")) == 3 &&
            !strcmp(json_string_value(json_object_get(w, "budget")), "none")) {
            cr_assert_eq(json_integer_value(json_object_get(w, "store_calls")),
                         27 * json_integer_value(json_object_get(w, "requests")));
            seen = 1;
        }
    }
    cr_assert(seen);
    json_decref(o);
    remove(file);
    rmdir(path);
}

/* The report's advice (report/templates/advice.tsv, item layers) states the
 * numbers this simulation gives for 3 layers of 3 tries at 300/s: about
 * 1.44 calls with a budget at each layer, about 9.9 with one at the bottom
 * only; the steady part of a 30 s run agrees with both to the digits the
 * sentence prints. */
Test(retrylayers, the_advice_states_what_the_simulation_gives)
{
    lay_result every = run(3, 3, 300, 30, 0x7, 0, 1), bottom = run(3, 3, 300, 30, 0x4, 0, 1);
    double e = (double)every.steady_calls[3] / (double)every.steady_calls[0];
    double b = (double)bottom.steady_calls[3] / (double)bottom.steady_calls[0];
    cr_assert(e >= 1.435 && e < 1.445, "every layer: %.4f calls a request", e);
    cr_assert(b >= 9.85 && b < 9.95, "the bottom layer only: %.4f calls a request", b);
    FILE *f = fopen("report/templates/advice.tsv", "r");
    cr_assert_not_null(f);
    char line[4096];
    int seen = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "layers\t", 7)) {
            seen = 1;
            cr_assert(strstr(line, "3 × 3 × 3 = 27 calls"), "%s", line);
            cr_assert(strstr(line, "about 1.44 calls at 300 requests a second"), "%s", line);
            cr_assert(strstr(line, "to about 9.9 "), "%s", line);
        }
    fclose(f);
    cr_assert(seen, "advice.tsv has the item layers");
}
