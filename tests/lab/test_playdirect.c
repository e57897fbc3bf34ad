/* play's direct path (lab/play/playsim.h, "Speed: the direct path"): a
 * request whose first lookup takes a free slot and is due before any of
 * its timers skips the policy's action and the answers' ring.  It must
 * change no figure: every arm of lab/arms.tsv, simulated with the path and
 * with cfg.full_path, gives the same play_result byte for byte and the
 * same timeline, and the map's own settings (flood stop, freeze count) at
 * a load where some seeds flood give the same per-seed results.  The test
 * build also checks, request by request, that pol_start would have sent
 * the one lookup with the same budget and timers after its answer
 * (playsim.c's direct_start). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "arms.h"
#include "playmap.h"
#include "playsim.h"

static arm_table T;
static void load_arms(void)
{
    char err[512];
    cr_assert_eq(arms_load("lab/arms.tsv", &T, err, sizeof err), 0, "%s", err);
}
static void free_arms(void) { arms_free(&T); }

/* Seed `seed` of `seconds` of arm a with and without the path: the same
 * results byte for byte, the same timeline. */
static void same_both_ways(const arm *a, double seconds, uint32_t seed, int flood_stop, int freezes)
{
    psim_cfg c = {.a = a, .rows = 1, .slots = 16, .conns = 2, .timeline = 1, .p50 = 1,
                  .flood_stop = flood_stop, .freezes = freezes};
    psim_cfg f = c;
    f.full_path = 1;
    psim *S = psim_new(&c), *F = psim_new(&f);
    cr_assert(S && F);
    play_result R, Q;
    memset(&R, 0, sizeof R);
    memset(&Q, 0, sizeof Q);
    cr_assert_eq(psim_run(S, seconds, seed, NULL, &R), 0);
    cr_assert_eq(psim_run(F, seconds, seed, NULL, &Q), 0);
    cr_assert_eq(R.n, Q.n, "%s seed %u", a->name, seed);
    cr_assert_eq(R.lookups, Q.lookups, "%s seed %u: lookups", a->name, seed);
    cr_assert_eq(R.standins, Q.standins, "%s seed %u: stand-ins", a->name, seed);
    cr_assert_eq(R.slot_ns, Q.slot_ns, "%s seed %u: slot time", a->name, seed);
    cr_assert_eq(memcmp(&R, &Q, sizeof R), 0, "%s seed %u: every figure", a->name, seed);
    const play_second *s1, *s2;
    size_t n1, n2;
    psim_timeline(S, &s1, &n1);
    psim_timeline(F, &s2, &n2);
    cr_assert_eq(n1, n2, "%s seed %u: seconds", a->name, seed);
    cr_assert_eq(memcmp(s1, s2, n1 * sizeof *s1), 0, "%s seed %u: the timeline", a->name, seed);
    psim_free(S);
    psim_free(F);
}

Test(direct, every_arm_the_same_with_and_without_the_direct_path, .init = load_arms, .fini = free_arms,
     .timeout = 300)
{
    size_t open = 0;
    for (size_t i = 0; i < T.n; i++) {
        const arm *a = &T.v[i];
        if (a->rate <= 0) /* closed loop ("max"): play simulates open-loop arms only */
            continue;
        for (uint32_t seed = 1; seed <= 2; seed++)
            same_both_ways(a, 10, seed, 0, 0);
        open += a->fault.kind == FAULT_NONE && arms_stores(a) == 1;
    }
    /* the path was open to most arms: the comparison above is not empty */
    cr_assert(open >= 20, "only %zu arms without a fault and with one store", open);
}

Test(direct, the_maps_seeds_the_same_with_and_without_the_direct_path, .init = load_arms, .fini = free_arms,
     .timeout = 300)
{
    /* every policy of the map at 450/s (the freeze count on) and 550/s,
     * 30 s rounds with the flood stop, as the map runs them */
    char list[] = PMAP_POLICIES;
    int n = 0;
    for (char *p = strtok(list, ","); p; p = strtok(NULL, ",")) {
        char name[32];
        snprintf(name, sizeof name, "H4-%s", p);
        const arm *t = arms_find(&T, name);
        if (!t) { /* ahedge has only its 300/s arm: the map's template (playmap.h) */
            snprintf(name, sizeof name, "H3-%s", p);
            t = arms_find(&T, name);
        }
        cr_assert(t, "no template arm for %s", p);
        arm a = *t;
        for (int rate = 450; rate <= 550; rate += 100) {
            a.rate = rate;
            for (uint32_t seed = 1; seed <= 4; seed++)
                same_both_ways(&a, 30, seed, 1, rate == 450);
        }
        n++;
    }
    cr_assert_eq(n, 11);
}
