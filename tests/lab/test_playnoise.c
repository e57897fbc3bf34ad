/* The machine's own time in play (lab/play/playsim.h, psim_set_noise):
 * hand-computed cases (a constant delay added to a fixed 2 ms wait; a delay
 * past the 25 ms limit makes every answer a stand-in), the draw's
 * quantile function, and that a replica is reproducible and another key
 * draws other delays. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "arms.h"
#include "playsim.h"
#include "util.h"

static arm_table A;

static void load(void)
{
    char err[UT_ERRLEN];
    cr_assert_eq(arms_load("lab/arms.tsv", &A, err, sizeof err), 0, "%s", err);
}

static void unload(void) { arms_free(&A); }

static play_result run_arm(const char *name, uint32_t seed, double seconds, const psim_noise *n)
{
    const arm *a = arms_find(&A, name);
    cr_assert_not_null(a, "%s", name);
    psim_cfg c = {.a = a, .rows = 1000, .slots = 16, .conns = 2, .p50 = 1};
    psim *S = psim_new(&c);
    cr_assert_not_null(S);
    cr_assert_eq(psim_set_noise(S, n), 0);
    play_result r;
    cr_assert_eq(psim_run(S, seconds, seed, NULL, &r), 0);
    psim_free(S);
    return r;
}

TestSuite(playnoise, .init = load, .fini = unload);

/* F3-none waits a fixed 2 ms and never queues at 300/s: with every lookup
 * 1 ms on its way, every latency is 3 ms exactly. */
Test(playnoise, constant_delay_adds_to_a_fixed_wait)
{
    int64_t q[2] = {1000000, 1000000};
    psim_noise n = {.key = 7, .scale = 1.0, .q = q, .nq = 2};
    play_result plain = run_arm("F3-none", 1, 3.0, NULL), slow = run_arm("F3-none", 1, 3.0, &n);
    cr_assert_eq(plain.p99_ms, 2.0, "%g", plain.p99_ms);
    cr_assert_eq(slow.p99_ms, 3.0, "%g", slow.p99_ms);
    cr_assert_eq(slow.p50_ms, 3.0, "%g", slow.p50_ms);
    cr_assert_eq(slow.n, plain.n);
    cr_assert_eq(slow.lookups, plain.lookups);
}

/* With a constant 0.5 ms overshoot too, F3-none's latency is 2 + 0.5 + 1
 * ms and each lookup holds its slot 2.5 ms. */
Test(playnoise, constant_overshoot_holds_the_slot_longer)
{
    int64_t q[2] = {1000000, 1000000}, o[2] = {500000, 500000};
    psim_noise n = {.key = 7, .scale = 1.0, .q = q, .nq = 2, .over = o, .nover = 2};
    play_result r = run_arm("F3-none", 1, 3.0, &n);
    cr_assert_eq(r.p99_ms, 3.5, "%g", r.p99_ms);
    cr_assert_eq(r.slot_ns, (int64_t)r.lookups * 2500000, "%lld", (long long)r.slot_ns);
}

/* H3-fb25 gives up after 25 ms: a lookup 30 ms on its way is never in time,
 * so every answer is a stand-in, each after exactly 25 ms. */
Test(playnoise, delay_past_the_limit_makes_every_answer_a_standin)
{
    int64_t q[2] = {30000000, 30000000};
    psim_noise n = {.key = 1, .scale = 1.0, .q = q, .nq = 2};
    play_result r = run_arm("H3-fb25", 2, 2.0, &n);
    cr_assert_gt(r.n, 0);
    cr_assert_eq(r.standins, r.n, "%llu of %llu", (unsigned long long)r.standins,
                 (unsigned long long)r.n);
    cr_assert_eq(r.p99_ms, 25.0, "%g", r.p99_ms);
}

/* scale 0: no delay; the figures are those without noise */
Test(playnoise, zero_scale_changes_nothing)
{
    int64_t q[3] = {0, 50000, 400000};
    psim_noise n = {.key = 3, .scale = 0.0, .q = q, .nq = 3};
    const char *arms[] = {"H3-fb25", "H4-r2", "H3-r2bj", "L3-hedge"};
    for (size_t i = 0; i < sizeof arms / sizeof arms[0]; i++)
        for (uint32_t seed = 1; seed <= 3; seed++) {
            play_result a = run_arm(arms[i], seed, 5.0, NULL), b = run_arm(arms[i], seed, 5.0, &n);
            cr_assert_eq(a.p99_ms, b.p99_ms, "%s seed %u: %g vs %g", arms[i], seed, a.p99_ms, b.p99_ms);
            cr_assert_eq(a.standins, b.standins, "%s seed %u", arms[i], seed);
            cr_assert_eq(a.lookups, b.lookups, "%s seed %u", arms[i], seed);
        }
}

/* The quantile function by hand: 3 quantiles 0, 100, 300 ns at the shares
 * 0, 1/2, 1; a draw u gives 200u for u < 1/2, 100 + 400(u - 1/2) above. */
Test(playnoise, draw_is_the_quantile_function_of_a_counter_based_u)
{
    int64_t q[3] = {0, 100, 300};
    psim_noise n = {.key = 11, .scale = 2.0, .q = q, .nq = 3};
    for (uint32_t lid = 0; lid < 1000; lid++) {
        double u = ut_u64_unit(ut_hash4(11, 5, lid, PSIM_NOISE_SALT));
        double want = 2.0 * (u < 0.5 ? 200.0 * u : 100.0 + 400.0 * (u - 0.5));
        int64_t got = psim_noise_ns(&n, 5, lid);
        cr_assert_leq(llabs(got - (int64_t)llround(want)), 1, "lid %u: %lld vs %g", lid, (long long)got, want);
        cr_assert_eq(got, psim_noise_ns(&n, 5, lid), "the same draw twice");
    }
    psim_noise m = n;
    m.key = 12;
    int differ = 0;
    for (uint32_t lid = 0; lid < 100; lid++)
        differ += psim_noise_ns(&n, 5, lid) != psim_noise_ns(&m, 5, lid);
    cr_assert_gt(differ, 90, "another replica draws other delays (%d of 100 differ)", differ);
}

/* A replica is reproducible; two replicas of an arm at the edge of a flood
 * may end differently, but each the same every time. */
Test(playnoise, replica_reproducible)
{
    int64_t q[3] = {20000, 60000, 900000};
    psim_noise n = {.key = 99, .scale = 1.0, .q = q, .nq = 3};
    play_result a = run_arm("H4-r2", 4, 10.0, &n), b = run_arm("H4-r2", 4, 10.0, &n);
    cr_assert_eq(a.p99_ms, b.p99_ms);
    cr_assert_eq(a.standins, b.standins);
    cr_assert_eq(a.flood.flooded, b.flood.flooded);
}
