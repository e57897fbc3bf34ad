/* Every policy of lab/arms.tsv, driven with made-up times (ms below). */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "arms.h"
#include "policy.h"
#include "util.h"

#define MS 1000000LL

static arm_table T;

static void load(void)
{
    char err[UT_ERRLEN];
    cr_assert_eq(arms_load("lab/arms.tsv", &T, err, sizeof err), 0, "%s", err);
}

static void unload(void) { arms_free(&T); }

static const arm *A(const char *name)
{
    const arm *a = arms_find(&T, name);
    cr_assert_not_null(a, "arm %s", name);
    return a;
}

TestSuite(policy, .init = load, .fini = unload);

Test(policy, arms_file_has_the_69_arms)
{
    cr_assert_eq(T.n, 69); /* 22 of the first lesson, 14 of the outage lesson, 21 defences, 4 on the map,
                            * 3 of the false-timeout rule, 5 of correlated slowness */
    cr_assert_eq(A("H550-r2")->rate, 550);
    cr_assert_eq(A("H300-fb25")->rate, 300);
    cr_assert_eq(A("H3-r2-down")->fault.kind, FAULT_DOWN);
    cr_assert_eq(A("H3-fb25-missing")->fault.kind, FAULT_MISSING);
    cr_assert_eq(A("H3-fb25")->fault.kind, FAULT_NONE);
    cr_assert_eq(A("H4-r2bj")->rate, 450);
    cr_assert_eq(A("Z-capacity")->rate, 0);
    cr_assert_eq(A("H3-r2b")->pause_ns[1], 20 * MS);
}

Test(policy, none_waits_for_ever)
{
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, A("H3-none"), 1, 7, 0, 0, -1, &o);
    cr_assert_eq(o.nsend, 1);
    cr_assert_eq(o.send[0].attempt, 0);
    cr_assert_eq(o.send[0].budget_ns, 0);
    cr_assert_eq(o.timer[0], POL_TIMER_OFF);
    cr_assert_eq(o.timer[1], POL_TIMER_OFF);
    pol_on_answer(&s, A("H3-none"), 0, POL_ANS_OK, 1500 * MS, &o);
    cr_assert_eq(o.done, POL_LIVE);
    cr_assert_eq(o.ended[0], 'A');
}

Test(policy, limit_then_504_or_standin)
{
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, A("H3-t25"), 1, 7, 0, 100 * MS, -1, &o);
    cr_assert_eq(o.timer[0], 125 * MS);
    pol_on_timer(&s, A("H3-t25"), 0, 125 * MS, &o);
    cr_assert_eq(o.done, POL_TIMEOUT);
    cr_assert_eq(o.ended[0], 'T');
    cr_assert_eq(o.nsend, 0);
    pol_start(&s, NULL, A("H3-fb25"), 1, 7, 0, 100 * MS, -1, &o);
    pol_on_timer(&s, A("H3-fb25"), 0, 125 * MS, &o);
    cr_assert_eq(o.done, POL_STANDIN);
    /* an answer in time wins */
    pol_start(&s, NULL, A("H3-t10"), 1, 8, 0, 0, -1, &o);
    cr_assert_eq(o.timer[0], 10 * MS);
    pol_on_answer(&s, A("H3-t10"), 0, POL_ANS_OK, 9 * MS, &o);
    cr_assert_eq(o.done, POL_LIVE);
    cr_assert_eq(o.timer[0], POL_TIMER_OFF);
}

Test(policy, deadline_keeps_reserve_and_travels_down)
{
    pol_state s;
    pol_action o;
    /* budget header 20 ms at arrival 0: lookup limit 18 ms (2 ms kept back) */
    pol_start(&s, NULL, A("H3-dl"), 1, 7, 0, 0, 20 * MS, &o);
    cr_assert_eq(o.timer[0], 18 * MS);
    cr_assert_eq(o.send[0].budget_ns, 0, "dl keeps the deadline to itself");
    /* no header: the arm's own 25 ms */
    pol_start(&s, NULL, A("H3-dl"), 1, 7, 0, 0, -1, &o);
    cr_assert_eq(o.timer[0], 23 * MS);
    /* a budget spent before arrival (header 0): stand-in at once */
    pol_start(&s, NULL, A("H3-dl"), 1, 7, 0, 0, 0, &o);
    cr_assert_eq(o.nsend, 0);
    cr_assert_eq(o.done, POL_STANDIN);
    /* dldown: the remaining budget minus the reserve goes to the store */
    pol_start(&s, NULL, A("H3-dldown"), 1, 7, 0, 5 * MS, 24 * MS, &o);
    cr_assert_eq(o.send[0].budget_ns, 22 * MS);
    cr_assert_eq(o.timer[0], 27 * MS);
    /* the store drops it: stand-in at once */
    pol_on_answer(&s, A("H3-dldown"), 0, POL_ANS_DROPPED, 27 * MS, &o);
    cr_assert_eq(o.ended[0], 'D');
    cr_assert_eq(o.done, POL_STANDIN);
    /* a budget already spent: no lookup at all */
    pol_start(&s, NULL, A("H3-dldown"), 1, 7, 0, 0, 1 * MS, &o);
    cr_assert_eq(o.nsend, 0);
    cr_assert_eq(o.done, POL_STANDIN);
}

Test(policy, two_retries_at_once)
{
    const arm *a = A("H3-r2");
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, a, 1, 7, 0, 0, -1, &o);
    cr_assert_eq(o.timer[0], 25 * MS);
    pol_on_timer(&s, a, 0, 25 * MS, &o);
    cr_assert_eq(o.ended[0], 'T');
    cr_assert_eq(o.nsend, 1);
    cr_assert_eq(o.send[0].attempt, 1, "fresh dice: attempt 1");
    cr_assert_eq(o.timer[0], 50 * MS);
    /* the first try's late answer is nobody's */
    pol_on_answer(&s, a, 0, POL_ANS_OK, 30 * MS, &o);
    cr_assert_eq(o.done, POL_PENDING);
    cr_assert_eq(o.nsend, 0);
    pol_on_timer(&s, a, 0, 50 * MS, &o);
    cr_assert_eq(o.send[0].attempt, 2);
    pol_on_timer(&s, a, 0, 75 * MS, &o);
    cr_assert_eq(o.done, POL_STANDIN);
    cr_assert_eq(o.ended[2], 'T');
    cr_assert_eq(s.sent, 3);
}

Test(policy, fixed_pause_before_each_retry)
{
    const arm *a = A("H3-r2b");
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, a, 1, 7, 0, 0, -1, &o);
    pol_on_timer(&s, a, 0, 25 * MS, &o);
    cr_assert_eq(o.nsend, 0, "pausing");
    cr_assert_eq(o.timer[0], 35 * MS);
    pol_on_timer(&s, a, 0, 35 * MS, &o);
    cr_assert_eq(o.nsend, 1);
    cr_assert_eq(o.timer[0], 60 * MS);
    pol_on_timer(&s, a, 0, 60 * MS, &o);
    cr_assert_eq(o.timer[0], 80 * MS, "second pause 20 ms");
    pol_on_timer(&s, a, 0, 80 * MS, &o);
    cr_assert_eq(o.send[0].attempt, 2);
    pol_on_answer(&s, a, 2, POL_ANS_OK, 90 * MS, &o);
    cr_assert_eq(o.done, POL_LIVE);
}

Test(policy, jittered_pause_is_drawn_and_repeatable)
{
    const arm *a = A("H3-r2bj");
    double sum1 = 0, sum2 = 0;
    for (uint32_t req = 0; req < 20000; req++) {
        int64_t p1 = pol_pause_ns(a, 1, req, 1), p2 = pol_pause_ns(a, 1, req, 2);
        cr_assert(p1 >= 0 && p1 < 10 * MS && p2 >= 0 && p2 < 20 * MS);
        cr_assert_eq(p1, pol_pause_ns(a, 1, req, 1), "same dice, same pause");
        sum1 += (double)p1;
        sum2 += (double)p2;
    }
    cr_assert_float_eq(sum1 / 20000 / MS, 5.0, 0.15, "uniform on [0, 10 ms): mean 5 ms");
    cr_assert_float_eq(sum2 / 20000 / MS, 10.0, 0.3);
    cr_assert_eq(pol_pause_ns(A("H3-r2"), 1, 3, 1), 0);
}

Test(policy, hedge_after_10ms_first_answer_wins)
{
    const arm *a = A("H3-hedge");
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, a, 1, 7, 0, 0, -1, &o);
    cr_assert_eq(o.nsend, 1);
    cr_assert_eq(o.timer[0], 25 * MS, "the 25 ms limit");
    cr_assert_eq(o.timer[1], 10 * MS, "the hedge delay");
    pol_on_timer(&s, a, 1, 10 * MS, &o);
    cr_assert_eq(o.nsend, 1);
    cr_assert_eq(o.send[0].attempt, 1);
    cr_assert_eq(o.timer[0], POL_TIMER_KEEP, "the limit stays");
    pol_on_answer(&s, a, 1, POL_ANS_OK, 13 * MS, &o);
    cr_assert_eq(o.done, POL_LIVE);
    cr_assert_eq(o.ended[1], 'A');
    cr_assert_eq(o.ended[0], 'C');
    /* an answer before 10 ms: no second lookup ever */
    pol_start(&s, NULL, a, 1, 8, 0, 0, -1, &o);
    pol_on_answer(&s, a, 0, POL_ANS_OK, 4 * MS, &o);
    cr_assert_eq(o.done, POL_LIVE);
    cr_assert_eq(o.timer[1], POL_TIMER_OFF);
    cr_assert_eq(s.sent, 1);
    /* neither answers: stand-in at 25 ms, both given up */
    pol_start(&s, NULL, a, 1, 9, 0, 0, -1, &o);
    pol_on_timer(&s, a, 1, 10 * MS, &o);
    pol_on_timer(&s, a, 0, 25 * MS, &o);
    cr_assert_eq(o.done, POL_STANDIN);
    cr_assert(o.ended[0] == 'T' && o.ended[1] == 'T');
}

/* Every arm the lab and the demo load keeps every rule; a rule broken by
 * changing one column of a good arm is named. */
/* Error classes: transient errors are retried, a permanent one is not. */
Test(policy, unavailable_is_retried_at_once_then_standin)
{
    const arm *a = A("H3-r2-down");
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, a, 1, 7, 0, 0, -1, &o);
    cr_assert_eq(o.nsend, 1);
    pol_on_answer(&s, a, 0, POL_ANS_UNAVAILABLE, 1 * MS / 10, &o); /* 0.1 ms */
    cr_assert_eq(o.ended[0], 'U');
    cr_assert_eq(o.nsend, 1, "transient: retry 1 at once");
    cr_assert_eq(o.send[0].attempt, 1);
    cr_assert_eq(o.timer[0], 1 * MS / 10 + 25 * MS, "the retry has its own 25 ms");
    pol_on_answer(&s, a, 1, POL_ANS_UNAVAILABLE, 2 * MS / 10, &o);
    cr_assert_eq(o.send[0].attempt, 2);
    pol_on_answer(&s, a, 2, POL_ANS_UNAVAILABLE, 3 * MS / 10, &o);
    cr_assert_eq(o.done, POL_STANDIN, "three transient errors: the stand-in");
    cr_assert_eq(o.nsend, 0);
    cr_assert_eq(o.timer[0], POL_TIMER_OFF);
}

Test(policy, not_found_goes_straight_to_the_fallback)
{
    pol_state s;
    pol_action o;
    const arm *r2 = A("H3-r2-missing");
    pol_start(&s, NULL, r2, 1, 7, 0, 10 * MS, -1, &o);
    pol_on_answer(&s, r2, 0, POL_ANS_NOT_FOUND, 11 * MS, &o);
    cr_assert_eq(o.ended[0], 'N');
    cr_assert_eq(o.nsend, 0, "permanent: no retry");
    cr_assert_eq(o.done, POL_STANDIN);
    cr_assert_eq(o.timer[0], POL_TIMER_OFF);
    /* without a stand-in: 504 */
    pol_start(&s, NULL, A("H3-t25"), 1, 7, 0, 10 * MS, -1, &o);
    pol_on_answer(&s, A("H3-t25"), 0, POL_ANS_NOT_FOUND, 11 * MS, &o);
    cr_assert_eq(o.done, POL_TIMEOUT);
    /* after a timed-out try, a not found on the retry ends the request too */
    pol_start(&s, NULL, r2, 1, 8, 0, 0, -1, &o);
    pol_on_timer(&s, r2, 0, 25 * MS, &o);
    cr_assert_eq(o.ended[0], 'T');
    cr_assert_eq(o.send[0].attempt, 1);
    pol_on_answer(&s, r2, 1, POL_ANS_NOT_FOUND, 26 * MS, &o);
    cr_assert_eq(o.done, POL_STANDIN);
    cr_assert_eq(o.nsend, 0);
    /* a hedge's twin still waiting is cancelled by a not found */
    const arm *h = A("H3-hedge");
    pol_start(&s, NULL, h, 1, 9, 0, 0, -1, &o);
    pol_on_timer(&s, h, 1, 10 * MS, &o);
    cr_assert_eq(o.nsend, 1);
    pol_on_answer(&s, h, 0, POL_ANS_NOT_FOUND, 12 * MS, &o);
    cr_assert_eq(o.ended[0], 'N');
    cr_assert_eq(o.ended[1], 'C');
    cr_assert_eq(o.done, POL_STANDIN);
}

Test(policy, lost_and_refused_are_transient)
{
    const arm *a = A("H3-r2bj-down");
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, a, 3, 11, 0, 0, -1, &o);
    pol_on_answer(&s, a, 0, POL_ANS_LOST, 5 * MS, &o);
    cr_assert_eq(o.ended[0], 'X');
    int64_t p1 = pol_pause_ns(a, 3, 11, 1);
    cr_assert(p1 >= 0 && p1 < 10 * MS);
    if (p1 > 0) { /* a jittered pause first */
        cr_assert_eq(o.nsend, 0);
        cr_assert_eq(o.timer[0], 5 * MS + p1);
        pol_on_timer(&s, a, 0, 5 * MS + p1, &o);
    }
    cr_assert_eq(o.nsend, 1);
    cr_assert_eq(o.send[0].attempt, 1);
    /* refused (no connection): the same as any transient error */
    pol_on_answer(&s, a, 1, POL_ANS_REFUSED, 5 * MS + p1, &o);
    cr_assert_eq(o.ended[1], 'R');
    cr_assert_eq(o.done, POL_PENDING, "one try is left");
    /* a late answer to a lookup nobody waits for changes nothing */
    pol_on_answer(&s, a, 0, POL_ANS_OK, 6 * MS, &o);
    cr_assert_eq(o.done, POL_PENDING);
    cr_assert_eq(o.ended[0], 0);
    /* an answer code outside the classes is ignored, not read past a table */
    pol_on_answer(&s, a, 1, 99, 6 * MS, &o);
    cr_assert_eq(o.done, POL_PENDING);
}

/* Reconnect backoff: full jitter in [0, min(1 s, 10 ms * 2^k)). */
Test(policy, reconnect_backoff_within_bounds)
{
    cr_assert_eq(pol_reconnect_cap_ns(0), 10 * MS);
    cr_assert_eq(pol_reconnect_cap_ns(1), 20 * MS);
    cr_assert_eq(pol_reconnect_cap_ns(6), 640 * MS);
    cr_assert_eq(pol_reconnect_cap_ns(7), 1000 * MS, "1280 ms capped at 1 s");
    cr_assert_eq(pol_reconnect_cap_ns(60), 1000 * MS, "no overflow far out");
    for (int k = 0; k < 12; k++) {
        int64_t lo = INT64_MAX, hi = 0, cap = pol_reconnect_cap_ns(k);
        double sum = 0;
        for (uint32_t outage = 0; outage < 2000; outage++) {
            int64_t w = pol_reconnect_ns(5, 1, outage, k);
            cr_assert(w >= 0 && w < cap, "k %d: %lld outside [0, %lld)", k, (long long)w, (long long)cap);
            lo = w < lo ? w : lo;
            hi = w > hi ? w : hi;
            sum += (double)w;
        }
        /* full jitter spreads over the whole range: mean near cap/2 */
        cr_assert(lo < cap / 20 && hi > cap - cap / 20, "k %d: range %lld..%lld", k, (long long)lo, (long long)hi);
        double mean = sum / 2000 / (double)cap;
        cr_assert(mean > 0.45 && mean < 0.55, "k %d: mean %.3f of the cap", k, mean);
    }
    cr_assert_eq(pol_reconnect_ns(5, 1, 3, 2), pol_reconnect_ns(5, 1, 3, 2), "the same dice, the same pause");
    cr_assert_neq(pol_reconnect_ns(5, 0, 3, 2), pol_reconnect_ns(5, 1, 3, 2), "connections draw apart");
}

Test(policy, rulebook_accepts_the_lab_and_demo_arms)
{
    char why[512];
    for (size_t i = 0; i < T.n; i++)
        cr_assert_eq(arms_check(&T.v[i], why, sizeof why), 0, "%s: %s", T.v[i].name, why);
    arm_table d;
    cr_assert_eq(arms_load("lab/demo/demo_arms.tsv", &d, why, sizeof why), 0, "%s", why);
    cr_assert_eq(d.n, 4);
    arm a = *A("H3-r2bj");
    cr_assert_eq(arms_check(&a, why, sizeof why), 0);
    a.tries = 6;
    cr_assert_eq(arms_check(&a, why, sizeof why), -1);
    cr_assert(!strncmp(why, "rule tries:", 11), "%s", why);
    arms_free(&d);
}

Test(policy, bad_arms_files_are_named)
{
    char dir[] = "/tmp/armsXXXXXX", path[64], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/arms.tsv", dir);
    const char *head = "name\twait\trate\tpolicy\ttry_ms\ttries\tpause\tpause_ms\thedge_ms\tlimit_ms\t"
                       "deadline_ms\treserve_ms\tdown\tstandin\tfault\tbrk_fails\tbrk_window\tbrk_share\t"
                       "brk_cool_ms\tbrk_probes\tstore2\tinflight\tbulkhead\trb_pct\trb_floor\thedge_p\tlimit_pm\thedge2\n";
    struct {
        const char *line, *want;
    } cases[] = {
        {"X3-none\tQ\t300\tnone\t0\t1\tnone\t-\t0\t0\t0\t0\t0\t0\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: field wait \"Q\""},
        {"X3-none\tH\tfast\tnone\t0\t1\tnone\t-\t0\t0\t0\t0\t0\t0\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: field rate \"fast\""},
        {"X3-none\tH\t300\tnone\t0\t1\tnone\n", ":2: 7 fields, expected 28"},
        {"X3-r2b\tH\t300\tr2b\t25\t3\tfixed\t10\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: arm X3-r2b breaks rule pause-count"},
        {"X3-d\tH\t300\td\t0\t1\tnone\t-\t0\t0\t0\t0\t1\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: arm X3-d breaks rule deadline"},
        /* the service holds 5 lookups per request: 6 tries are refused, not capped */
        {"H3-r5\tH\t300\tr5\t25\t6\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: arm H3-r5 breaks rule tries: tries is 1 to 5"},
        {"H3-x\tH\t300\tx\t25\t3\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: arm H3-x breaks rule label"},
        {"H3-r2\tH\t300\tr2\t0\t3\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: arm H3-r2 breaks rule retry-limit"},
        {"H3-hedge\tH\t300\thedge\t25\t2\tnone\t-\t10\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule hedge-alone"},
        {"H3-hedge\tH\t300\thedge\t0\t1\tnone\t-\t30\t25\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule hedge-first"},
        {"H3-fb25\tH\t300\tfb25\t25\t1\tfixed\t10\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule pause-kind"},
        {"H3-fb25\tH\t300\tfb25\t20\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule label"},
        {"H3-t25\tH\t300\tt25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule label"},
        {"H4-fb25\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule name"},
        {"L3-fb25\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule name"},
        {"H3-dl\tH\t300\tdl\t0\t1\tnone\t-\t0\t0\t25\t25\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule reserve"},
        {"H3-none\tH\tmax\tnone\t0\t1\tnone\t-\t0\t0\t0\t0\t0\t0\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule closed-loop"},
        {"X3-none\tH\t300\tnone\t0\t99999999999999999999\tnone\t-\t0\t0\t0\t0\t0\t0\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: field tries"},
        /* the defences' rules */
        {"H3-brk-down\tH\t300\tbrk\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t0\t0\t250\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule breaker"},
        {"H3-brk-down\tH\t300\tbrk\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t0\t50\t250\t3\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule breaker-share"},
        {"H3-brkw-down\tH\t300\tbrkw\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t0\t0\t250\t3\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule label"},
        {"H3-brk-down\tH\t300\tbrk\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t0\t0\t250\t3\t50\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule breaker-one-store"},
        {"H3-bulk-hang\tH\t300\tbulk\t250\t1\tnone\t-\t0\t0\t0\t0\t0\t1\thang\t0\t0\t0\t0\t0\t50\t0\t1\t0\t0\t0\t0\t0\n", "breaks rule bulkhead"},
        {"H3-fb25\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t10\t10\t0\t0\t0\n", "breaks rule budget"},
        {"H3-r2\tH\t300\tr2\t25\t3\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t10\t10\t0\t0\t0\n", "breaks rule label"},
        {"H3-hedge\tH\t300\thedge\t0\t1\tnone\t-\t0\t25\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t95\t0\t0\n", "breaks rule adaptive-hedge"},
        /* the adaptive limit: a start value, no hedge, and the label fbqQ with limit_pm Q */
        {"L3-fbq999\tL\t300\tfbq999\t0\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t999\t0\n", "breaks rule adaptive-limit"},
        {"L3-hedge\tL\t300\thedge\t25\t1\tnone\t-\t10\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t999\t0\n", "breaks rule adaptive-limit"},
        {"L3-fbq999\tL\t300\tfbq999\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t990\t0\n", "breaks rule label"},
        {"L3-fb25\tL\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t999\t0\n", "breaks rule label"},
        {"L3-fbq999\tL\t300\tfbq999\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t1000\t0\n", ":2: field limit_pm \"1000\" is not a whole number from 0 to 999"},
        {"H3-r4x\tH\t300\tr4x\t25\t5\texp\t10,20,40\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule pause-count"},
        {"H3-r4x\tH\t300\tr4x\t25\t5\texp\t40,10\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule pause-count"},
        {"H3-r4x\tH\t300\tr4x\t25\t5\texpo\t10,40\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: field pause \"expo\""},
        {"H3-brk-down\tH\t300\tbrk\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t1001\t0\t250\t3\t0\t0\t0\t0\t0\t0\t0\t0\n", ":2: field brk_window \"1001\" is not a whole number from 0 to 1000"},
        {"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdwn\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n",
         ":2: arm H3-fb25-down: field fault: fault 'dwn' is not a scenario"},
        {"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown@0.5-1.5\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n",
         ":2: arm H3-fb25-down: field fault: fault 'down@0.5-1.5': the window's end"},
        {"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown@0.6-0.4\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "is empty"},
        {"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown@1-end\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "outside the run"},
        {"H3-fb25-flaky\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tflaky@0-0.5\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "has no window"},
        {"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\thang\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule name"},
        {"H3-fb25\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\treset\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", "breaks rule name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(head, f);
        fputs(cases[i].line, f);
        fclose(f);
        arm_table t;
        cr_assert_eq(arms_load(path, &t, err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, path) && strstr(err, cases[i].want), "case %zu: %s", i, err);
    }
    unlink(path);
    rmdir(dir);
}

/* policy.h: g is the service's shared state set up for this arm; a pol_shared
 * set up for another arm is refused (assert, in the tests' build). */
Test(policy, shared_state_of_another_arm_aborts, .signal = SIGABRT)
{
    static pol_shared g;
    pol_shared_init(&g, A("H4-brkr2"), NULL, NULL);
    pol_state s;
    pol_action o;
    pol_start(&s, &g, A("H4-r2bud"), 1, 0, 0, 0, -1, &o);
}

/* the policy has two timers, 0 and 1 */
Test(policy, a_third_timer_aborts, .signal = SIGABRT)
{
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, A("H3-fb25"), 1, 0, 0, 0, -1, &o);
    pol_on_timer(&s, A("H3-fb25"), 2, 30 * MS, &o);
}

/* arms.h: a file written before limit_pm (the registered copy of the study
 * published on 2026-12-01, 26 columns, kept as tests/lab/fixtures/
 * arms-2026-12-01.tsv) is read with limit_pm 0 and hedge2 0. */
Test(policy, an_arms_file_before_limit_pm_reads_with_it_0)
{
    arm_table t;
    char err[UT_ERRLEN] = "";
    cr_assert_eq(arms_load("tests/lab/fixtures/arms-2026-12-01.tsv", &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n, 57);
    for (size_t i = 0; i < t.n; i++)
        cr_assert(t.v[i].limit_pm == 0 && t.v[i].hedge2 == 0, "%s", t.v[i].name);
    cr_assert_eq(arms_find(&t, "H4-r2")->tries, 3);
    arms_free(&t);
}

/* arms.h: a file of 27 columns (the header without hedge2, as lab/arms.tsv
 * was before it) reads with hedge2 0 and keeps its limit_pm; a line of the
 * wrong length under an older header is named against that header; any
 * other header is refused naming the one wanted (28 columns). */
Test(policy, an_arms_file_before_hedge2_reads_with_it_0)
{
    char dir[] = "/tmp/armsXXXXXX", path[64], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/arms.tsv", dir);
    const char *h27 = "name\twait\trate\tpolicy\ttry_ms\ttries\tpause\tpause_ms\thedge_ms\tlimit_ms\t"
                      "deadline_ms\treserve_ms\tdown\tstandin\tfault\tbrk_fails\tbrk_window\tbrk_share\t"
                      "brk_cool_ms\tbrk_probes\tstore2\tinflight\tbulkhead\trb_pct\trb_floor\thedge_p\tlimit_pm\n";
    FILE *f = fopen(path, "w");
    fputs(h27, f);
    fputs("L3-fbq999\tL\t300\tfbq999\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t999\n"
          "L3-hedge\tL\t300\thedge\t0\t1\tnone\t-\t10\t25\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", f);
    fclose(f);
    arm_table t;
    cr_assert_eq(arms_load(path, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n, 2);
    cr_assert(arms_find(&t, "L3-fbq999")->limit_pm == 999 && arms_find(&t, "L3-fbq999")->hedge2 == 0);
    cr_assert_eq(arms_find(&t, "L3-hedge")->hedge2, 0);
    cr_assert_eq(arms_stores(arms_find(&t, "L3-hedge")), 1);
    arms_free(&t);
    /* a 28-field line under the 27-column header: named against that header */
    f = fopen(path, "w");
    fputs(h27, f);
    fputs("L3-hedge\tL\t300\thedge\t0\t1\tnone\t-\t10\t25\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n", f);
    fclose(f);
    cr_assert_eq(arms_load(path, &t, err, sizeof err), -1);
    cr_assert(strstr(err, ":2: more than 27 fields, expected 27"), "%s", err);
    /* a header that is none of the three: the current one is named */
    f = fopen(path, "w");
    fputs("name\twait\n", f);
    fclose(f);
    cr_assert_eq(arms_load(path, &t, err, sizeof err), -1);
    cr_assert(strstr(err, "the header must be") && strstr(err, "limit_pm\thedge2"), "%s", err);
    unlink(path);
    rmdir(dir);
}

/* Rule hedge2: the hedge to the copy needs a hedge and no store2; the label
 * hedge2 goes with hedge2 1 and only with it; the name's fault suffixes slow
 * and slowboth; an arm has two stores with store2 or hedge2. */
Test(policy, rule_hedge2_and_the_slow_arms)
{
    const arm *h2 = A("L3-hedge2-slow");
    cr_assert(h2->hedge2 == 1 && h2->fault.kind == FAULT_SLOW && h2->hedge_ns == 10 * MS && h2->limit_ns == 25 * MS);
    cr_assert_eq(A("L3-hedge2-slowboth")->fault.kind, FAULT_SLOWBOTH);
    cr_assert(A("L3-hedge2")->hedge2 == 1 && A("L3-hedge2")->fault.kind == FAULT_NONE);
    cr_assert(A("L3-hedge-slow")->hedge2 == 0 && A("L3-hedge-slow")->hedge_ns == 10 * MS);
    cr_assert(A("L3-fb25-slow")->try_ns == 25 * MS && A("L3-fb25-slow")->tries == 1 && A("L3-fb25-slow")->standin);
    cr_assert_eq(arms_stores(h2), 2);
    cr_assert_eq(arms_stores(A("L3-hedge-slow")), 1);
    cr_assert_eq(arms_stores(A("H3-pool-hang")), 2);
    char why[512];
    arm a = *h2;
    cr_assert_eq(arms_check(&a, why, sizeof why), 0, "%s", why);
    a.hedge_ns = 0; /* no hedge: nothing to send to the copy */
    cr_assert_eq(arms_check_policy(&a, why, sizeof why), -1);
    cr_assert(!strncmp(why, "rule hedge2:", 12), "%s", why);
    a = *h2;
    a.store2 = 50; /* the copy is not a share of the rows */
    cr_assert_eq(arms_check_policy(&a, why, sizeof why), -1);
    cr_assert(!strncmp(why, "rule hedge2:", 12), "%s", why);
    a = *h2;
    a.hedge2 = 0; /* label hedge2 without the column */
    cr_assert_eq(arms_check(&a, why, sizeof why), -1);
    cr_assert(!strncmp(why, "rule label:", 11), "%s", why);
    a = *A("L3-hedge-slow");
    a.hedge2 = 1; /* label hedge with the column */
    cr_assert_eq(arms_check_policy(&a, why, sizeof why), 0, "%s", why);
    cr_assert_eq(arms_check(&a, why, sizeof why), -1);
    cr_assert(!strncmp(why, "rule label:", 11), "%s", why);
    a = *h2;
    a.fault.kind = FAULT_SLOWBOTH; /* the name says slow */
    cr_assert_eq(arms_check(&a, why, sizeof why), -1);
    cr_assert(!strncmp(why, "rule name:", 10), "%s", why);
    a = *A("H3-fb25");
    a.brk_fails = 5, a.brk_cool_ns = 250 * MS, a.brk_probes = 3, a.hedge_ns = 10 * MS, a.hedge2 = 1;
    a.try_ns = 25 * MS;
    cr_assert_eq(arms_check_policy(&a, why, sizeof why), -1); /* a breaker stands in front of one store */
    cr_assert(!strncmp(why, "rule breaker-one-store:", 23), "%s", why);
}

/* pol_lookup_store: a hedge2 arm's hedge (attempt 1) goes to the second
 * store, its first lookup to the first; the hedge of L3-hedge stays. */
Test(policy, hedge2_sends_the_hedge_to_the_copy)
{
    pol_state s;
    pol_action o;
    const arm *a = A("L3-hedge2-slow");
    pol_start(&s, NULL, a, 1, 7, 7, 0, -1, &o);
    cr_assert(o.nsend == 1 && o.send[0].attempt == 0 && s.store == 0);
    cr_assert_eq(pol_lookup_store(&s, a, 0), 0);
    cr_assert_eq(o.timer[1], 10 * MS, "the hedge delay");
    pol_on_timer(&s, a, 1, 10 * MS, &o);
    cr_assert(o.nsend == 1 && o.send[0].attempt == 1, "the hedge at 10 ms");
    cr_assert_eq(pol_lookup_store(&s, a, 1), 1);
    pol_start(&s, NULL, A("L3-hedge-slow"), 1, 7, 7, 0, -1, &o);
    cr_assert_eq(pol_lookup_store(&s, A("L3-hedge-slow"), 1), 0);
}
