/* The defences of lab/core/policy.h that look across requests (circuit breaker,
 * retry budget, compartments, adaptive hedge) and capped exponential
 * backoff, driven with made-up times (ms below) and counted by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "arms.h"
#include "policy.h"
#include "util.h"

#define MS 1000000LL

static arm_table T;
static pol_shared G;
static pol_brk_event EV[256];
static int NEV;

static void on_brk(const pol_brk_event *e, void *ctx)
{
    (void)ctx;
    cr_assert_lt(NEV, 256);
    EV[NEV++] = *e;
}

static void load(void)
{
    char err[UT_ERRLEN];
    cr_assert_eq(arms_load("lab/arms.tsv", &T, err, sizeof err), 0, "%s", err);
    NEV = 0;
}

static void unload(void) { arms_free(&T); }

static const arm *A(const char *name)
{
    const arm *a = arms_find(&T, name);
    cr_assert_not_null(a, "arm %s", name);
    return a;
}

TestSuite(defences, .init = load, .fini = unload);

/* One request of a one-try arm whose lookup fails at once (unavailable):
 * 1 when its lookup was sent, 0 when the breaker refused it (then O). */
static int failing_request(const arm *a, uint32_t req, int64_t now)
{
    pol_state s;
    pol_action o;
    pol_start(&s, &G, a, 1, req, 0, now, -1, &o);
    if (o.nsend == 0) {
        cr_assert_eq(o.ended[0], 'O');
        cr_assert_eq(o.done, POL_STANDIN);
        cr_assert_eq(s.sent, 1, "a refused lookup is tried: it counts");
        return 0;
    }
    pol_on_answer(&s, a, 0, POL_ANS_UNAVAILABLE, now, &o);
    cr_assert_eq(o.done, POL_STANDIN);
    return 1;
}

/* The same, answered OK after 1 ms. */
static int good_request(const arm *a, uint32_t req, int64_t now)
{
    pol_state s;
    pol_action o;
    pol_start(&s, &G, a, 1, req, 0, now, -1, &o);
    if (o.nsend == 0)
        return 0;
    pol_on_answer(&s, a, 0, POL_ANS_OK, now + 1 * MS, &o);
    cr_assert_eq(o.done, POL_LIVE);
    return 1;
}

Test(defences, breaker_opens_after_five_failures_in_a_row)
{
    const arm *a = A("H3-brk-down"); /* F 5, C 250 ms, P 3 */
    cr_assert_eq(a->brk_fails, 5);
    cr_assert_eq(a->brk_cool_ns, 250 * MS);
    pol_shared_init(&G, a, on_brk, NULL);
    for (int i = 0; i < 4; i++)
        cr_assert(failing_request(a, (uint32_t)i, i * MS));
    cr_assert(good_request(a, 4, 4 * MS)); /* a success: the row starts again */
    for (int i = 5; i < 9; i++)
        cr_assert(failing_request(a, (uint32_t)i, i * MS));
    cr_assert_eq(NEV, 0, "4 failures in a row do not open it");
    cr_assert(failing_request(a, 9, 9 * MS));
    cr_assert_eq(NEV, 1);
    cr_assert_eq(EV[0].what, 'O');
    cr_assert_eq(EV[0].count, 5);
    cr_assert_eq(EV[0].t, 9 * MS);
    /* open: the fallback at once, no lookup, until 9 + 250 ms */
    cr_assert_not(failing_request(a, 10, 10 * MS));
    cr_assert_not(good_request(a, 11, 258 * MS));
    cr_assert_eq(NEV, 1);
}

Test(defences, half_open_lets_three_probes_through_then_closes)
{
    const arm *a = A("H3-brk-down");
    pol_shared_init(&G, a, on_brk, NULL);
    for (int i = 0; i < 5; i++)
        failing_request(a, (uint32_t)i, 0);
    cr_assert_eq(G.brk_state, POL_BRK_OPEN);
    /* the first try at or after the cooldown: half open, a probe */
    pol_state p[4];
    pol_action o;
    for (int i = 0; i < 3; i++) {
        pol_start(&p[i], &G, a, 1, 100 + (uint32_t)i, 0, 250 * MS + i * MS, -1, &o);
        cr_assert_eq(o.nsend, 1, "probe %d goes out", i);
    }
    cr_assert_eq(NEV, 2);
    cr_assert_eq(EV[1].what, 'H');
    cr_assert_eq(EV[1].t, 250 * MS);
    cr_assert_eq(EV[1].wait_ns, 250 * MS);
    pol_start(&p[3], &G, a, 1, 103, 0, 253 * MS, -1, &o);
    cr_assert_eq(o.nsend, 0, "the probe limit: a fourth lookup is refused");
    cr_assert_eq(o.ended[0], 'O');
    /* the provider recovered: three successes close it */
    pol_on_answer(&p[0], a, 0, POL_ANS_OK, 254 * MS, &o);
    pol_on_answer(&p[1], a, 0, POL_ANS_OK, 255 * MS, &o);
    cr_assert_eq(G.brk_state, POL_BRK_HALF);
    pol_on_answer(&p[2], a, 0, POL_ANS_OK, 256 * MS, &o);
    cr_assert_eq(G.brk_state, POL_BRK_CLOSED);
    cr_assert_eq(NEV, 3);
    cr_assert_eq(EV[2].what, 'K');
    cr_assert_eq(EV[2].count, 3);
    cr_assert_eq(EV[2].t, 256 * MS);
    cr_assert(good_request(a, 200, 257 * MS));
}

Test(defences, a_failed_probe_opens_it_for_another_cooldown)
{
    const arm *a = A("H3-brk-down");
    pol_shared_init(&G, a, on_brk, NULL);
    for (int i = 0; i < 5; i++)
        failing_request(a, (uint32_t)i, 0);
    pol_state p1, p2;
    pol_action o;
    pol_start(&p1, &G, a, 1, 10, 0, 300 * MS, -1, &o);
    pol_start(&p2, &G, a, 1, 11, 0, 301 * MS, -1, &o);
    pol_on_answer(&p1, a, 0, POL_ANS_OK, 302 * MS, &o);
    pol_on_timer(&p2, a, 0, 326 * MS, &o); /* the probe's 25 ms limit runs out: a failure */
    cr_assert_eq(o.ended[0], 'T');
    cr_assert_eq(NEV, 3);
    cr_assert_eq(EV[2].what, 'P');
    cr_assert_eq(EV[2].count, 1, "one probe had succeeded");
    cr_assert_eq(G.brk_open_until, 326 * MS + 250 * MS);
    cr_assert_not(good_request(a, 12, 575 * MS));
}

Test(defences, a_provider_that_never_recovers_is_probed_every_cooldown)
{
    const arm *a = A("H3-brk-never");
    pol_shared_init(&G, a, on_brk, NULL);
    /* a request every 10 ms for 10 s, every lookup refused by the store */
    int sent = 0;
    for (int i = 0; i < 1000; i++)
        sent += failing_request(a, (uint32_t)i, i * 10 * MS);
    int opens = 0, halves = 0, closes = 0;
    for (int i = 0; i < NEV; i++) {
        opens += EV[i].what == 'O' || EV[i].what == 'P';
        halves += EV[i].what == 'H';
        closes += EV[i].what == 'K';
        if (EV[i].what == 'H') {
            cr_assert_eq(EV[i - 1].what, i == 1 ? 'O' : 'P');
            cr_assert_eq(EV[i].wait_ns, 250 * MS, "probed exactly when the cooldown ends (requests on the 10 ms)");
        }
    }
    /* opened at 40 ms (5th failure); each cooldown of 250 ms then one probe
     * that fails at once and opens it again: at 290, 540, ... 9790 ms */
    cr_assert_eq(closes, 0, "never closed: the provider never answers");
    cr_assert_eq(halves, 39, "probed every cooldown, never stuck open");
    cr_assert_eq(opens, 40);
    cr_assert_eq(sent, 5 + 39, "five failures, then one probe per cooldown");
}

Test(defences, share_rule_opens_at_half_of_the_last_twenty)
{
    const arm *a = A("H3-brkw-down"); /* W 20, share 50 % */
    pol_shared_init(&G, a, on_brk, NULL);
    int64_t t = 0;
    for (int i = 0; i < 9; i++) { /* 9 failures and 11 successes: 45 % */
        good_request(a, (uint32_t)(100 + i), t += MS);
        failing_request(a, (uint32_t)i, t += MS);
    }
    good_request(a, 200, t += MS);
    good_request(a, 201, t += MS);
    cr_assert_eq(NEV, 0);
    failing_request(a, 300, t += MS); /* the window slides: 10 of the last 20 */
    cr_assert_eq(NEV, 1);
    cr_assert_eq(EV[0].what, 'W');
    cr_assert_eq(EV[0].count, 10);
}

Test(defences, results_sent_before_it_opened_do_not_count_while_open)
{
    const arm *a = A("H3-brk-down");
    pol_shared_init(&G, a, on_brk, NULL);
    pol_state late;
    pol_action o;
    pol_start(&late, &G, a, 1, 99, 0, 0, -1, &o);
    for (int i = 0; i < 5; i++)
        failing_request(a, (uint32_t)i, MS);
    cr_assert_eq(G.brk_state, POL_BRK_OPEN);
    pol_on_answer(&late, a, 0, POL_ANS_OK, 2 * MS, &o);
    cr_assert_eq(o.done, POL_LIVE);
    cr_assert_eq(G.brk_state, POL_BRK_OPEN);
    cr_assert_eq(NEV, 1);
}

Test(defences, refused_connections_count_as_failures)
{
    const arm *a = A("H3-brk-down");
    pol_shared_init(&G, a, on_brk, NULL);
    for (int i = 0; i < 5; i++) {
        pol_state s;
        pol_action o;
        pol_start(&s, &G, a, 1, (uint32_t)i, 0, i * MS, -1, &o);
        pol_on_answer(&s, a, 0, POL_ANS_REFUSED, i * MS, &o);
    }
    cr_assert_eq(NEV, 1);
    cr_assert_eq(EV[0].what, 'O');
}

/* ------------------------------------------------------------- budget */

/* Request `req` at `now` whose every lookup fails at once: the retries
 * sent (0 to 2); *refused set when the budget refused one. */
static int retries_of(const arm *a, uint32_t req, int64_t now, int *refused)
{
    pol_state s;
    pol_action o;
    pol_start(&s, &G, a, 1, req, 0, now, -1, &o);
    int retries = 0;
    *refused = 0;
    for (int k = 0; o.nsend == 1; k++) {
        retries += k > 0;
        pol_on_answer(&s, a, o.send[0].attempt, POL_ANS_UNAVAILABLE, now, &o);
    }
    for (int k = 0; k < POL_MAX_LOOKUPS; k++)
        *refused |= o.ended[k] == 'Y';
    cr_assert_eq(o.done, POL_STANDIN);
    return retries;
}

Test(defences, retry_budget_ten_percent_plus_a_floor)
{
    arm b = *A("H3-r2bud-down");
    cr_assert_eq(b.rb_pct, 10);
    b.rb_floor = 1; /* to count by hand: 100 (R + 1) <= 10 Q + 100 */
    pol_shared_init(&G, &b, on_brk, NULL);
    int total = 0, refused = 0;
    for (int i = 0; i < 100; i++) {
        int y;
        int r = retries_of(&b, (uint32_t)i, i * MS, &y);
        refused += y;
        total += r;
        /* Q = i + 1: allowed when R + 1 <= Q / 10 + 1, so one retry at
         * Q = 1, 10, 20, ... 100 */
        int q = i + 1;
        cr_assert_eq(r, q == 1 || q % 10 == 0, "request %d", i);
    }
    cr_assert_eq(total, 11);
    cr_assert_eq(refused, 100, "every request met the budget once");
    /* a second later the window is empty again: Q 1, R 0 */
    int y;
    cr_assert_eq(retries_of(&b, 1000, 1100 * MS, &y), 1);
    cr_assert(y);
}

Test(defences, retry_budget_counts_the_last_second_only)
{
    arm b = *A("H4-r2bud"); /* 10 %, floor 10 */
    pol_shared_init(&G, &b, on_brk, NULL);
    /* 450 requests in the first second, all failing: at most 10 % of 450 +
     * 10 = 55 retries in any second */
    int total = 0, y;
    for (int i = 0; i < 450; i++)
        total += retries_of(&b, (uint32_t)i, (int64_t)i * 1000000000LL / 450, &y);
    /* R + 1 <= Q / 10 + 10: 10 retries at once (the first 5 requests), then
     * one at Q = 10, 20, ... 450 */
    cr_assert_eq(total, 55);
}

Test(defences, hedges_are_not_retries_and_pass_no_budget)
{
    const arm *a = A("H3-r2");
    cr_assert_not(pol_needs_shared(a));
    cr_assert(pol_needs_shared(A("H4-r2bud")));
    cr_assert(pol_needs_shared(A("L3-ahedge")));
    cr_assert(pol_needs_shared(A("H3-bulk-hang")));
    cr_assert(pol_needs_shared(A("H3-brk-down")));
}

/* ------------------------------------------------------------ backoff */

Test(defences, capped_exponential_backoff)
{
    const arm *x = A("H3-r4x-down"), *f = A("H3-r4xf-down"), *e = A("H3-r4xe-down");
    const int64_t d[] = {0, 10 * MS, 20 * MS, 40 * MS, 40 * MS}; /* base 10, cap 40 */
    for (int k = 1; k <= 4; k++)
        cr_assert_eq(pol_pause_ns(x, 1, 7, k), d[k], "k %d", k);
    double sumf = 0, sume = 0;
    for (uint32_t req = 0; req < 2000; req++)
        for (int k = 1; k <= 4; k++) {
            int64_t pf = pol_pause_ns(f, 1, req, k), pe = pol_pause_ns(e, 1, req, k);
            cr_assert(pf >= 0 && pf < d[k]);
            cr_assert(pe >= d[k] / 2 && pe < d[k]);
            cr_assert_eq(pf, pol_pause_ns(f, 1, req, k), "the same dice, the same pause");
            sumf += (double)pf / (double)d[k];
            sume += (double)pe / (double)d[k];
        }
    /* means of uniform draws: 1/2 and 3/4 of the cap, within 2 % */
    cr_assert(sumf / 8000 > 0.48 && sumf / 8000 < 0.52, "%f", sumf / 8000);
    cr_assert(sume / 8000 > 0.73 && sume / 8000 < 0.77, "%f", sume / 8000);
}

Test(defences, five_tries_with_pauses_then_the_stand_in)
{
    const arm *x = A("H3-r4x-down");
    pol_state s;
    pol_action o;
    pol_start(&s, NULL, x, 1, 7, 0, 0, -1, &o);
    int64_t now = 0;
    const int64_t pause[] = {10 * MS, 20 * MS, 40 * MS, 40 * MS};
    for (int k = 0; k < 4; k++) {
        cr_assert_eq(o.send[0].attempt, k);
        pol_on_answer(&s, x, k, POL_ANS_UNAVAILABLE, now, &o);
        cr_assert_eq(o.timer[0], now + pause[k], "pause before retry %d", k + 1);
        now += pause[k];
        pol_on_timer(&s, x, 0, now, &o);
        cr_assert_eq(o.nsend, 1);
    }
    pol_on_answer(&s, x, 4, POL_ANS_UNAVAILABLE, now, &o);
    cr_assert_eq(o.done, POL_STANDIN);
    cr_assert_eq(now, 110 * MS);
    cr_assert_eq(s.sent, 5);
}

/* -------------------------------------------------------- compartments */

/* A row whose requests ask store `want`. */
static uint32_t row_of(const arm *a, int want)
{
    for (uint32_t r = 0;; r++)
        if (pol_store_of(a, r) == want)
            return r;
}

Test(defences, rows_split_between_the_stores_by_their_share)
{
    const arm *a = A("H3-bulk-hang");
    int second = 0;
    for (uint32_t r = 0; r < 20000; r++)
        second += pol_store_of(a, r);
    cr_assert(second > 9600 && second < 10400, "%d of 20000 rows on the second store", second);
    cr_assert_eq(pol_store_of(A("H3-fb25"), 5), 0);
}

Test(defences, without_a_bulkhead_the_hung_store_fills_the_shared_limit)
{
    const arm *a = A("H3-pool-hang"); /* 16 shared */
    pol_shared_init(&G, a, on_brk, NULL);
    pol_state s[20];
    pol_action o;
    uint32_t r1 = row_of(a, 0), r2 = row_of(a, 1);
    for (int i = 0; i < 16; i++) {
        pol_start(&s[i], &G, a, 1, (uint32_t)i, r1, i * MS, -1, &o);
        cr_assert_eq(o.nsend, 1);
    }
    pol_start(&s[16], &G, a, 1, 16, r2, 20 * MS, -1, &o);
    cr_assert_eq(o.nsend, 0, "the healthy store's request finds no place");
    cr_assert_eq(o.ended[0], 'B');
    cr_assert_eq(o.done, POL_STANDIN);
    cr_assert_eq(s[16].store, 1);
    /* one hung lookup's 250 ms limit runs out: its place is free again */
    pol_on_timer(&s[0], a, 0, 250 * MS, &o);
    cr_assert_eq(o.ended[0], 'T');
    pol_start(&s[17], &G, a, 1, 17, r2, 251 * MS, -1, &o);
    cr_assert_eq(o.nsend, 1);
}

Test(defences, with_a_bulkhead_each_store_has_its_own_places)
{
    const arm *a = A("H3-bulk-hang"); /* 8 each */
    pol_shared_init(&G, a, on_brk, NULL);
    pol_state s[20];
    pol_action o;
    uint32_t r1 = row_of(a, 0), r2 = row_of(a, 1);
    for (int i = 0; i < 8; i++) {
        pol_start(&s[i], &G, a, 1, (uint32_t)i, r1, i * MS, -1, &o);
        cr_assert_eq(o.nsend, 1);
    }
    pol_start(&s[8], &G, a, 1, 8, r1, 9 * MS, -1, &o);
    cr_assert_eq(o.nsend, 0);
    cr_assert_eq(o.ended[0], 'B');
    for (int i = 9; i < 17; i++) {
        pol_start(&s[i], &G, a, 1, (uint32_t)i, r2, 10 * MS, -1, &o);
        cr_assert_eq(o.nsend, 1, "the healthy store keeps its 8 places");
    }
    pol_on_answer(&s[9], a, 0, POL_ANS_OK, 11 * MS, &o);
    cr_assert_eq(G.inflight[1], 7);
    cr_assert_eq(G.inflight[0], 8);
}

/* ----------------------------------------------------- adaptive hedge */

static void answered_after(const arm *a, uint32_t req, int64_t now, int64_t lat)
{
    pol_state s;
    pol_action o;
    pol_start(&s, &G, a, 1, req, 0, now, -1, &o);
    pol_on_answer(&s, a, 0, POL_ANS_OK, now + lat, &o);
}

Test(defences, adaptive_hedge_delay_is_the_p95_of_the_last_thousand)
{
    const arm *a = A("L3-ahedge"); /* p95, starting at 10 ms, limit 25 */
    pol_shared_init(&G, a, on_brk, NULL);
    pol_state s;
    pol_action o;
    pol_start(&s, &G, a, 1, 1, 0, 0, -1, &o);
    cr_assert_eq(o.timer[1], 10 * MS, "the start value");
    int64_t t = 0;
    for (uint32_t i = 0; i < 949; i++)
        answered_after(a, i, t += MS, 2 * MS);
    cr_assert_eq(G.hed.now, 10 * MS, "949 of 1000 below: rank 950 is still 10 ms");
    answered_after(a, 949, t += MS, 2 * MS);
    cr_assert_eq(G.hed.now, 2 * MS, "950 of 1000 at 2 ms");
    for (uint32_t i = 0; i < 50; i++)
        answered_after(a, 2000 + i, t += MS, 20 * MS);
    cr_assert_eq(G.hed.now, 2 * MS, "50 slow of the last 1000: rank 950 is 2 ms");
    answered_after(a, 3000, t += MS, 20 * MS);
    cr_assert_eq(G.hed.now, 20 * MS, "51 slow: rank 950 is 20 ms");
    pol_start(&s, &G, a, 1, 4000, 0, t, -1, &o);
    cr_assert_eq(o.timer[1], t + 20 * MS, "the hedge 20 ms after the start, before the 25 ms limit");
}

/* ----------------------------------------------- adaptive limit (fbq999) */

Test(defences, adaptive_limit_is_the_p999_of_the_last_4000_answered)
{
    const arm *a = A("L3-fbq999"); /* p99.9 of the last 4000, starting at 25 ms */
    pol_shared_init(&G, a, on_brk, NULL);
    pol_state s;
    pol_action o;
    pol_start(&s, &G, a, 1, 1, 0, 0, -1, &o);
    cr_assert_eq(o.timer[0], 25 * MS, "the start value");
    /* nearest rank of 99.9% of 4000: the 3996th smallest, the 5th largest */
    int64_t t = 0;
    for (uint32_t i = 0; i < 3995; i++)
        answered_after(a, 10 + i, t += MS, 2 * MS);
    cr_assert_eq(G.lim.now, 25 * MS, "3995 of 4000 at 2 ms: rank 3996 is still the start's 25 ms");
    answered_after(a, 5000, t += MS, 2 * MS);
    cr_assert_eq(G.lim.now, 2 * MS, "3996 at 2 ms");
    for (uint32_t i = 0; i < 4; i++)
        answered_after(a, 6000 + i, t += MS, 40 * MS);
    cr_assert_eq(G.lim.now, 2 * MS, "4 slow of the last 4000: rank 3996 is 2 ms");
    answered_after(a, 7000, t += MS, 40 * MS);
    cr_assert_eq(G.lim.now, 40 * MS, "5 slow: rank 3996 is 40 ms");
    pol_start(&s, &G, a, 1, 8000, 0, t, -1, &o);
    cr_assert_eq(o.timer[0], t + 40 * MS, "the try's limit 40 ms after its start");
}

Test(defences, adaptive_limit_counts_late_answers)
{
    const arm *a = A("L3-fbq999");
    pol_shared_init(&G, a, on_brk, NULL);
    pol_state s;
    pol_action o;
    /* a lookup cut at its 25 ms limit, answered at 60 ms by the store */
    for (uint32_t i = 0; i < 5; i++) {
        pol_start(&s, &G, a, 1, i, 0, 0, -1, &o);
        pol_on_timer(&s, a, 0, 25 * MS, &o);
        cr_assert_eq(o.done, POL_STANDIN);
        cr_assert_eq(o.ended[0], 'T');
        cr_assert_eq(G.lim.now, 25 * MS, "a timeout alone is no sample");
        /* the request is finished: the service hands its late answer over */
        pol_late_answer(&G, a, 60 * MS);
    }
    cr_assert_eq(G.lim.now, 60 * MS, "5 late answers of 60 ms: the 5th largest of the window");
    /* a late answer to a request still going on reaches the window through pol_on_answer */
    const arm *h = A("L3-ahedge");
    pol_shared_init(&G, h, on_brk, NULL);
    pol_start(&s, &G, h, 1, 1, 0, 0, -1, &o);
    cr_assert_eq(G.lim.now, h->try_ns, "an arm without limit_pm keeps try_ms");
    pol_late_answer(&G, h, 60 * MS);
    cr_assert_eq(G.lim.now, h->try_ns, "and takes no late sample");
}

Test(defences, adaptive_limit_sees_a_late_answer_of_a_request_still_open)
{
    const arm *a = A("L3-fbq999");
    pol_shared_init(&G, a, on_brk, NULL);
    pol_state s;
    pol_action o;
    for (uint32_t i = 0; i < 5; i++) {
        pol_start(&s, &G, a, 1, i, 0, 0, -1, &o);
        /* the policy has stopped waiting for attempt 0 (its limit ran out) but the request's state is
         * still here: its answer after 70 ms counts once, the second copy not at all */
        pol_on_timer(&s, a, 0, 25 * MS, &o);
        pol_on_answer(&s, a, 0, POL_ANS_OK, 70 * MS, &o);
        cr_assert_eq(o.done, POL_PENDING, "nothing to do: nobody waits for it");
        pol_on_answer(&s, a, 0, POL_ANS_UNAVAILABLE, 80 * MS, &o);
    }
    cr_assert_eq(G.lim.now, 70 * MS);
}
