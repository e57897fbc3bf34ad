/* The playground's defences (lab/play/play.c with lab/core/policy.h's shared state:
 * circuit breaker, retry budget, compartments with a second store, capped
 * backoff), run as build/bin/play from the repo root, suite "play" like
 * tests/lab/test_play.c.  A breaker in a down window worked out by hand from
 * the schedule; one that never recovers against the rule "probe every
 * cooldown"; the retry budget's rule recomputed at every retry of a trace;
 * the bulkhead under hang request by request; the second store's rows and
 * the backoff's pauses against the policy's own dice. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms.h"
#include "playrun.h"
#include "policy.h"
#include "util.h"

/* ---------------------------------------------------------- the defences */

/* The arms of lab/arms.tsv, for the policy's own draws. */
static const arm *arm_named(arm_table *T, const char *name)
{
    char err[UT_ERRLEN];
    if (!T->v)
        cr_assert_eq(arms_load("lab/arms.tsv", T, err, sizeof err), 0, "%s", err);
    const arm *a = arms_find(T, name);
    cr_assert_not_null(a, "arm %s", name);
    return a;
}

Test(play, breaker_sends_few_lookups_in_a_down_window)
{
    /* H3-brk-down (open after 5 failures in a row, 250 ms open, 3 probes,
     * one 25 ms try) at 20 requests a second for 3 s, seed 3, wait F (2 ms):
     * the window [1000, 2000) ms; 64 requests, 23 before it (0-22), 20 in
     * it (23-42), 21 after.  The arrivals in ms, from the schedule below:
     * 23-27 at 1036.6 1063.0 1124.4 1158.8 1192.6: sent, U at once: the 5th
     * failure in a row opens it at a[27] (O), until a[27] + 250 = 1442.6;
     * 28-31 (1342.3 ... 1417.6): refused (O, a stand-in at once);
     * 32 at 1480.2: half open (H), its probe is U: open again (P) to
     * 1730.2; 33-37 (1514.7 ... 1706.6): refused; 38 at 1795.2: H, probe U,
     * P, open to 2045.2; 39-42 (1868.5 ... 1967.2): refused; 43 at 2049.3
     * (after the window): H, probe answered A at a[43] + 2 ms; 44 (2062.2)
     * and 45 (2086.4) are probes 2 and 3: A at a[45] + 2 ms closes it (K).
     * So: lookups in the window 5 + 2 = 7 (r2 sends 3 x 20 = 60, fb25 20);
     * opened 3, half opened 3, closed 1; OPEN from a[27] to a[43], HALF
     * OPEN from a[32] to a[32], a[38] to a[38] and a[43] to a[45] + 2 ms;
     * refused 4 + 5 + 4 = 13; first live after the window a[43] + 2 ms. */
    int64_t *a;
    size_t n = schedule(3, 20, 3, &a);
    cr_assert_eq(n, 64);
    cr_assert(a[22] < 1000 * MS && a[23] >= 1000 * MS && a[42] < 2000 * MS && a[43] >= 2000 * MS);
    cr_assert(a[28] < a[27] + 250 * MS && a[31] < a[27] + 250 * MS && a[32] >= a[27] + 250 * MS);
    cr_assert(a[37] < a[32] + 250 * MS && a[38] >= a[32] + 250 * MS);
    cr_assert(a[42] < a[38] + 250 * MS && a[43] >= a[38] + 250 * MS && a[44] > a[43] + 2 * MS);
    const char *args = "--arm H3-brk-down --wait F --rate 20 --seconds 3 --seeds 3";
    row r[1];
    cr_assert_eq(play_csv(args, r, 1), 1);
    cr_assert_eq(r[0].requests, 64);
    cr_assert_eq(cnt(r, "during_lookups"), 7);
    cr_assert_eq(cnt(r, "store_E"), 7);
    cr_assert_eq(r[0].lookups, 64 - 13);
    cr_assert_eq(r[0].standins, 20);
    cr_assert_eq(cnt(r, "brk_opened"), 3);
    cr_assert_eq(cnt(r, "brk_half_opened"), 3);
    cr_assert_eq(cnt(r, "brk_closed"), 1);
    cr_assert_eq(cnt(r, "breaker_refused"), 13);
    double open = (double)(a[43] - a[27]) / 1e6, half = (double)(a[45] + 2 * MS - a[43]) / 1e6;
    cr_assert_float_eq(fig(r, "brk_open_ms"), open, 1e-6);
    cr_assert_float_eq(fig(r, "brk_half_ms"), half, 1e-6);
    cr_assert_float_eq(fig(r, "brk_closed_ms"), 3000.0 - open - half, 1e-6);
    cr_assert_float_eq(fig(r, "first_live_after_ms"), (double)(a[43] + 2 * MS - 2000 * MS) / 1e6, 1e-6);
    trace_row t[64];
    cr_assert_eq(play_trace(args, t, 64), 64);
    for (int j = 0; j < 64; j++) {
        char want = (j >= 23 && j <= 27) || j == 32 || j == 38 ? 'U' : j >= 28 && j <= 42 ? 'O' : 'A';
        cr_assert_eq(t[j].out[0], want, "request %d: %c", j, t[j].out[0]);
        cr_assert_eq(t[j].out[1], '-', "request %d: one try", j);
        cr_assert_eq(t[j].kind, want == 'A' ? 'L' : 'S', "request %d", j);
        cr_assert_eq(t[j].answer, t[j].arrive + (want == 'A' ? 2 * MS : 0), "request %d", j);
    }
    free(a);
    /* the same schedule without a breaker, and with r2: 20 and 60 lookups */
    cr_assert_eq(play_csv("--arm H3-fb25-down --wait F --rate 20 --seconds 3 --seeds 3", r, 1), 1);
    cr_assert_eq(cnt(r, "during_lookups"), 20);
    cr_assert(isnan(fig(r, "brk_opened")), "no breaker: null");
    cr_assert_eq(play_csv("--arm H3-r2-down --wait F --rate 20 --seconds 3 --seeds 3", r, 1), 1);
    cr_assert_eq(cnt(r, "during_lookups"), 60);
}

Test(play, breaker_never_recovering_probes_every_cooldown)
{
    /* H3-brk-never over 30 s, seeds 1-3: the store never comes back after
     * 10 s; the breaker opens once on the 5 failures, then every probe
     * fails: it is never closed again and never stuck open: one P per
     * cooldown (250 ms plus the wait for the next request, a few ms at
     * 300/s), so about 20 s / 0.25 s = 80 of them */
    row r[3];
    cr_assert_eq(play_csv("--arm H3-brk-never --seeds 1-3", r, 3), 3);
    for (int s = 0; s < 3; s++) {
        long opened = cnt(&r[s], "brk_opened"), half = cnt(&r[s], "brk_half_opened");
        cr_assert_eq(cnt(&r[s], "brk_closed"), 0, "seed %u", r[s].seed);
        cr_assert(half == opened || half == opened - 1, "seed %u: %ld opened, %ld half", r[s].seed, opened, half);
        cr_assert(opened >= 70 && opened <= 80, "seed %u: opened %ld", r[s].seed, opened);
        /* lookups in the window: the 5 failures in a row that open it (a
         * few more when an answer to a lookup sent before the window breaks
         * the row), then one probe per cycle */
        long extra = cnt(&r[s], "during_lookups") - half;
        cr_assert(extra >= 5 && extra <= 10, "seed %u: %ld lookups besides the probes", r[s].seed, extra);
        cr_assert_gt(fig(&r[s], "brk_open_ms"), 19000.0, "seed %u", r[s].seed);
    }
}

Test(play, retry_budget_keeps_retries_within_ten_percent_plus_floor)
{
    /* H3-r2bud-down, 6 s (the window [2 s, 4 s)), seeds 1 and 2: every
     * lookup in the window is unavailable, so every request there wants two
     * retries at once.  From the trace, at every retry that went out at t:
     * 100 R <= 10 Q + 100 x 10, R the retries sent in (t - 1 s, t] (this
     * one included), Q the requests started in it; and at every retry the
     * budget refused (Y) the same sum with this one added would be over:
     * the rule of lab/core/policy.h, recomputed here. */
    enum { MAXR = 2400 };
    trace_row *t = malloc(MAXR * sizeof *t);
    cr_assert_not_null(t);
    for (unsigned seed = 1; seed <= 2; seed++) {
        char args[128];
        snprintf(args, sizeof args, "--arm H3-r2bud-down --seconds 6 --seeds %u", seed);
        int n = play_trace(args, t, MAXR);
        long passed = 0, refused = 0;
        for (int j = 0; j < n; j++)
            for (int k = 1; k < NL; k++) {
                char c = t[j].out[k];
                if (c == '-' || c == 'B' || c == 'O')
                    continue;
                int64_t at = t[j].start[k];
                long R = 0, Q = 0;
                for (int i = 0; i < n; i++) {
                    Q += t[i].start[0] > at - 1000 * MS && t[i].start[0] <= at;
                    for (int m = 1; m < NL; m++)
                        R += t[i].out[m] != '-' && t[i].out[m] != 'Y' && t[i].start[m] > at - 1000 * MS &&
                             t[i].start[m] <= at && !(i == j && m == k);
                }
                if (c == 'Y') {
                    refused++;
                    cr_assert_gt(100 * (R + 1), 10 * Q + 1000, "seed %u request %d retry %d refused: R %ld Q %ld",
                                 seed, j, k, R, Q);
                } else {
                    passed++;
                    cr_assert_leq(100 * (R + 1), 10 * Q + 1000, "seed %u request %d retry %d: R %ld Q %ld", seed,
                                  j, k, R, Q);
                }
            }
        row r[1];
        cr_assert_eq(play_csv(args, r, 1), 1);
        cr_assert_eq(cnt(r, "budget_refused"), refused, "seed %u", seed);
        cr_assert_eq(cnt(r, "retries_passed"), passed, "seed %u", seed);
        /* two seconds of about 300 requests a second, each wanting 2
         * retries: the budget lets about 40 a second through, the first
         * retry of the others is refused (no second one), and the window's
         * lookups stay near 1 + 40/300 a request, far from r2's 3 */
        cr_assert_gt(refused, 400, "seed %u", seed);
        cr_assert_lt(fig(r, "during_lookups_per_request"), 1.25, "seed %u", seed);
    }
    free(t);
}

Test(play, bulkhead_keeps_the_healthy_store_live_under_hang)
{
    /* H3-bulk-hang (8 lookups in flight per store) against H3-pool-hang (16
     * shared), the first store hung in [10 s, 20 s), 250 ms tries: the hung
     * store's 150 requests a second would hold 37 places.  Without a
     * bulkhead they fill the shared 16, and the healthy store's requests
     * are refused (B); with it the healthy store keeps its own 8. */
    enum { MAXR = 12000 };
    trace_row *x = malloc(MAXR * sizeof *x), *y = malloc(MAXR * sizeof *y);
    cr_assert(x && y);
    int n = play_trace("--arm H3-bulk-hang --seeds 1", x, MAXR);
    cr_assert_eq(play_trace("--arm H3-pool-hang --seeds 1", y, MAXR), n);
    long s2_in = 0, bulk_b = 0, pool_b = 0, bulk_live = 0, pool_live = 0, s1_bulk_b = 0;
    for (int j = 0; j < n; j++) {
        cr_assert_eq(x[j].store, y[j].store, "request %d", j);
        int in = x[j].arrive >= 10000 * MS && x[j].arrive < 20000 * MS;
        if (x[j].store == 1) {
            s1_bulk_b += in && x[j].out[0] == 'B';
            continue;
        }
        if (!in)
            continue;
        s2_in++;
        bulk_b += x[j].out[0] == 'B';
        pool_b += y[j].out[0] == 'B';
        bulk_live += x[j].kind == 'L';
        pool_live += y[j].kind == 'L';
    }
    cr_assert_gt(s2_in, 1300);
    cr_assert_eq(bulk_b, 0, "with the bulkhead no healthy-store request is refused");
    cr_assert_gt(100 * bulk_live, 97 * s2_in, "bulkhead: %ld of %ld live", bulk_live, s2_in);
    cr_assert_gt(2 * pool_b, s2_in, "no bulkhead: %ld of %ld refused", pool_b, s2_in);
    cr_assert_lt(2 * pool_live, s2_in, "no bulkhead: %ld of %ld live", pool_live, s2_in);
    cr_assert_gt(s1_bulk_b, 1000, "the hung store's own compartment is full");
    row r[2];
    cr_assert_eq(play_csv("--arm H3-bulk-hang,H3-pool-hang --seeds 1", r, 2), 2);
    cr_assert_str_eq(r[0].val[r[0].nf - 1], "H3-bulk-hang", "the arm's name is the last column");
    cr_assert_str_eq(r[1].val[r[1].nf - 1], "H3-pool-hang");
    cr_assert_float_eq(fig(&r[0], "store2_during_live_share"), (double)bulk_live / (double)s2_in, 1e-6);
    cr_assert_float_eq(fig(&r[1], "store2_during_live_share"), (double)pool_live / (double)s2_in, 1e-6);
    cr_assert_float_eq(fig(&r[0], "store1_during_live_share"), 0.0, 1e-9, "the hung store answers nobody");
    free(x);
    free(y);
}

Test(play, two_arms_of_a_seed_meet_the_same_dice)
{
    /* Seed 2: the defence arms meet the lab's arrivals and dice as the
     * others do.  The second store asks the rows the dice give it (row j %
     * rows, lab/core/policy.h's pol_store_of), the same in both arms, about half;
     * the breaker arm's lookups fail only in the window [10 s, 20 s), as
     * fb25's do; and a five-try arm with capped exponential backoff sends
     * retry k after the policy's own draw pol_pause_ns (round 2, request j,
     * k): in the window every lookup is answered unavailable at once. */
    enum { MAXR = 12000 };
    trace_row *x = malloc(MAXR * sizeof *x), *y = malloc(MAXR * sizeof *y);
    cr_assert(x && y);
    uint32_t rows = table_rows();
    arm_table T = {0};
    const arm *bulk = arm_named(&T, "H3-bulk-hang"), *r4xf = arm_named(&T, "H3-r4xf-down");
    int n = play_trace("--arm H3-bulk-hang --seeds 2", x, MAXR), n2 = 0;
    cr_assert_eq(play_trace("--arm H3-fb25-hang --seeds 2", y, MAXR), n);
    for (int j = 0; j < n; j++) {
        cr_assert_eq(x[j].arrive, y[j].arrive);
        cr_assert_eq(x[j].store, 1 + pol_store_of(bulk, (uint32_t)j % rows), "request %d", j);
        cr_assert_eq(y[j].store, 1, "one store");
        n2 += x[j].store == 2;
    }
    cr_assert(n2 > 0.45 * n && n2 < 0.55 * n, "%d of %d on the second store", n2, n);
    cr_assert_eq(play_trace("--arm H3-brk-down --seeds 2", x, MAXR), n);
    cr_assert_eq(play_trace("--arm H3-fb25-down --seeds 2", y, MAXR), n);
    for (int j = 0; j < n; j++) {
        int in = x[j].arrive >= 10000 * MS && x[j].arrive < 20000 * MS;
        cr_assert_eq(y[j].out[0] == 'U', in, "fb25 request %d", j);
        cr_assert(x[j].out[0] != 'U' || in, "brk request %d: U outside the window", j);
        if (in)
            cr_assert(x[j].out[0] == 'U' || x[j].out[0] == 'O', "brk request %d: %c", j, x[j].out[0]);
    }
    cr_assert_eq(play_trace("--arm H3-r4xf-down --seeds 2", x, MAXR), n);
    int checked = 0;
    for (int j = 0; j < n; j++) {
        if (x[j].out[0] != 'U')
            continue;
        for (int k = 1; k < NL && x[j].out[k] == 'U'; k++) {
            int64_t p = pol_pause_ns(r4xf, 2, (uint32_t)j, k);
            cr_assert_lt(p, (int64_t)(k < 3 ? 10 << (k - 1) : 40) * MS, "request %d pause %d", j, k);
            cr_assert_eq(x[j].start[k], x[j].start[k - 1] + p, "request %d retry %d", j, k);
            checked++;
        }
    }
    cr_assert_gt(checked, 10000, "four pauses for each of about 3,000 requests in the window");
    arms_free(&T);
    free(x);
    free(y);
}
