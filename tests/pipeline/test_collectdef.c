/* collect on raw format 3: the defences' figures of pipeline/RESULTS.md on
 * hand-made runs, every value computed by hand in the comments (the circuit
 * breaker's states, times and illegal rows; the retry budget at the edges
 * of its second; two stores; the store's lookups before and after a
 * window; the gates' codes O B Y), and run.json's new fields checked.
 * Suite `collect` (its PostgreSQL is started in tests/pipeline/test_collect.c). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collecthelp.h"
#include "rawfmt.h"
#include "util.h"

/* ------------------------------------------------------- the breaker */

/* A breaker arm (cooldown 250 ms, one try) in a 3 s run whose store is down
 * in [0.9 s, 1.5 s): j0 live; j1 in the window, unavailable; j2-j5 refused
 * by the breaker (O: tried, not sent), stand-ins; j6, j7 live again. */
static const hreq BRKQ[] = {
    {L_(100), 'L', L_(2), 1, {{L_(100), 'A'}}},   {L_(950), 'K', L_(1), 1, {{L_(950), 'U'}}},
    {L_(1100), 'K', U_(500), 1, {{L_(1100), 'O'}}}, {L_(1200), 'K', U_(500), 1, {{L_(1200), 'O'}}},
    {L_(1255), 'K', U_(500), 1, {{L_(1255), 'O'}}}, {L_(1300), 'K', U_(500), 1, {{L_(1300), 'O'}}},
    {L_(1600), 'L', L_(2), 1, {{L_(1600), 'A'}}},  {L_(2100), 'L', L_(2), 1, {{L_(2100), 'A'}}},
};
/* The store's rows, by arrival: before the window [t0, 0.9 s): t0 itself,
 * j0, 0.9 s - 1 ns (3; not t0 - 1 ns, not 0.9 s); in the second after it,
 * from U = 1.5 s, 100 ms each: [1.5, 1.6): 1.5 s, 1.6 s - 1 ns (2; not
 * 1.5 s - 1 ns); [1.6, 1.7): 1.6 s, j6 (2); [2.1, 2.2): j7; [2.4, 2.5):
 * 2.5 s - 1 ns (not 2.5 s: the second is over). */
static const int64_t BRKST[] = {
    SROW(100, 0, -1),         SROW(101, 0, 0),          SROW(0, 0, U_(100050)),  SROW(102, 0, L_(900) - 1),
    SROW(103, 0, L_(900)),    SROW(1, 0, U_(950050)),   SROW(104, 0, L_(1500) - 1), SROW(105, 0, L_(1500)),
    SROW(106, 0, L_(1600) - 1), SROW(107, 0, L_(1600)), SROW(6, 0, U_(1600050)), SROW(7, 0, U_(2100050)),
    SROW(108, 0, L_(2500) - 1), SROW(109, 0, L_(2500)),
};
#define BRK_SPEC "{\"tries\":1,\"brk_cool_ms\":250,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":0,\"store2\":0}"
#define BRK_FAULT "{\"name\":\"down\",\"spec\":\"down@0.3-0.5\",\"from_ns\":900000000,\"to_ns\":1500000000}"

Test(collect, breaker_states_times_and_illegal_rows_by_hand)
{
    /* round 1: a connection lost and regained (not the breaker's), then
     * O 1.0 s, H 1.25 s (exactly the cooldown after), P 1.26 s, H 1.51 s,
     * K 1.52 s: every row allowed */
    const int64_t ev1[] = {
        T0 + L_(300), 'L', 0, 0, 5 * MS, T0 + L_(310), 'C', 0, 0, 0,
        BRK(L_(1000), 'O', 5, 0),        BRK(L_(1250), 'H', 0, L_(250)), BRK(L_(1260), 'P', 0, 0),
        BRK(L_(1510), 'H', 0, L_(250)),  BRK(L_(1520), 'K', 1, 0),
    };
    /* round 2: O 0.5; W 0.6 (illegal: open already); H 0.8 (illegal: 0.2 s
     * after the last opening, under 250 ms); K 0.9; K 1.0 (illegal: closed);
     * P 1.1 (illegal: closed); H 1.4 (300 ms after P, wait 300 ms: allowed);
     * H 1.7 (illegal: half open already); P 1.8; H 2.1 (illegal: its wait
     * 299 ms is not the 300 ms since P); K 3.2 (after the schedule's end):
     * 6 illegal */
    const int64_t ev2[] = {
        BRK(L_(500), 'O', 5, 0),  BRK(L_(600), 'W', 12, 0),          BRK(L_(800), 'H', 0, L_(200)),
        BRK(L_(900), 'K', 1, 0),  BRK(L_(1000), 'K', 1, 0),          BRK(L_(1100), 'P', 0, 0),
        BRK(L_(1400), 'H', 0, L_(300)), BRK(L_(1700), 'H', 0, L_(300)), BRK(L_(1800), 'P', 0, 0),
        BRK(L_(2100), 'H', 0, L_(299)), BRK(L_(3200), 'K', 1, 0),
    };
    hrun h = {"H3-brk-down", BRK_FAULT, BRK_SPEC, 1, 3, 1, BRKQ, 8, BRKST, NULL, ev1,
              sizeof BRKST / sizeof BRKST[0], 0, sizeof ev1 / sizeof ev1[0]};
    put_run(&h);
    h.round = 2;
    h.ev = ev2;
    h.nev = sizeof ev2 / sizeof ev2[0];
    put_run(&h);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *r1 = run_of(r, "H3-brk-down-r1"), *r2 = run_of(r, "H3-brk-down-r2");
    /* round 1: opened O, P; half open twice; closed once.  CLOSED [0, 1.0)
     * and [1.52, 3.0): 1000 + 1480 ms; OPEN [1.0, 1.25) and [1.26, 1.51):
     * 500 ms; HALF OPEN [1.25, 1.26) and [1.51, 1.52): 20 ms */
    cr_assert_eq(num(r1, "brk_opened"), 2);
    cr_assert_eq(num(r1, "brk_half_opened"), 2);
    cr_assert_eq(num(r1, "brk_closed"), 1);
    cr_assert_eq(num(r1, "brk_transitions"), 5);
    cr_assert_float_eq(num(r1, "brk_closed_ms"), 2480.0, 1e-9);
    cr_assert_float_eq(num(r1, "brk_open_ms"), 500.0, 1e-9);
    cr_assert_float_eq(num(r1, "brk_half_ms"), 20.0, 1e-9);
    cr_assert_eq(num(r1, "brk_illegal"), 0);
    cr_assert_eq(num(r1, "conn_lost"), 1);
    cr_assert_eq(num(r1, "conn_regained"), 1);
    cr_assert_eq(num(r1, "reconnect_wait_over"), 0);
    /* round 2: opened O W P P, half open 4 times, closed 3 times (the K
     * after the end counts: a row of E).  CLOSED [0, 0.5) [0.9, 1.1): 700;
     * OPEN [0.5, 0.8) [1.1, 1.4) [1.8, 2.1): 900; HALF OPEN [0.8, 0.9)
     * [1.4, 1.8) [2.1, 3.0): 1400 (cut at the schedule's end) */
    cr_assert_eq(num(r2, "brk_opened"), 4);
    cr_assert_eq(num(r2, "brk_half_opened"), 4);
    cr_assert_eq(num(r2, "brk_closed"), 3);
    cr_assert_eq(num(r2, "brk_transitions"), 11);
    cr_assert_float_eq(num(r2, "brk_closed_ms"), 700.0, 1e-9);
    cr_assert_float_eq(num(r2, "brk_open_ms"), 900.0, 1e-9);
    cr_assert_float_eq(num(r2, "brk_half_ms"), 1400.0, 1e-9);
    cr_assert_eq(num(r2, "brk_illegal"), 6);
    /* the lookups: A j0 j6 j7, U j1, O j2-j5; sent (not O) by second: j0 and
     * j1 | j6 | j7; in the window j1 alone over j1-j5 */
    check_codes(r1, "lookup_ends", "ATCDUNXROBY", (const int[]){3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0});
    json_t *ps = json_object_get(r1, "per_second");
    const int sent[3] = {2, 1, 1};
    for (int s = 0; s < 3; s++)
        cr_assert_eq(num(json_array_get(ps, (size_t)s), "lookups_sent"), sent[s], "second %d", s);
    cr_assert_eq(num(r1, "during_lookups"), 1);
    cr_assert_float_eq(num(r1, "during_lookups_per_request"), 0.2, 1e-12);
    /* the store's rows: 3 before 0.9 s, over 9 slices of 100 ms; after U */
    cr_assert_eq(num(r1, "lookups"), 14);
    cr_assert_float_eq(num(r1, "before_lookups_100ms"), 3.0 / 9.0, 1e-12);
    check_list(r1, "recovery_lookups_100ms", (const int[]){2, 2, 0, 0, 0, 0, 1, 0, 0, 1}, 10);
    cr_assert_eq(num(r1, "recovery_lookups_100ms_max"), 2);
    const char *nulls[] = {"retries_passed", "budget_refused", "budget_over", "inflight_refused", "store1_requests",
                           "store2_p99_ms", "store2_during_live_share"};
    check_nulls(r1, nulls, sizeof nulls / sizeof nulls[0], "one try, no budget, no compartment, one store");
    /* the arm over its two rounds */
    json_t *arm = json_object_get(json_object_get(r, "arms"), "H3-brk-down");
    cr_assert_float_eq(num(json_object_get(arm, "brk_transitions"), "median"), 8.0, 1e-12);
    cr_assert_float_eq(num(json_object_get(arm, "brk_transitions"), "min"), 5.0, 1e-12);
    cr_assert_float_eq(num(json_object_get(arm, "brk_open_ms"), "median"), 700.0, 1e-9);
    cr_assert_float_eq(num(json_object_get(arm, "brk_half_ms"), "max"), 1400.0, 1e-9);
    cr_assert_float_eq(num(json_object_get(arm, "brk_closed_ms"), "median"), 1590.0, 1e-9);
    cr_assert_float_eq(num(json_object_get(arm, "brk_opened"), "median"), 3.0, 1e-12);
    cr_assert(json_is_null(json_object_get(arm, "budget_refused")), "no run has a budget");
    /* G33's first clause: every H3-brk-down.brk_illegal <= 0: round 2 has 6 */
    size_t i;
    json_t *g;
    int seen = 0;
    json_array_foreach(json_object_get(r, "guesses"), i, g)
    {
        if (strcmp(json_string_value(json_object_get(g, "id")), "G33"))
            continue;
        seen = 1;
        cr_assert(json_is_false(json_array_get(json_object_get(g, "clauses"), 0)));
    }
    cr_assert(seen);
    json_decref(r);
}

/* ---------------------------------------------------- the retry budget */

/* rb_pct 50, rb_floor 1: a retry let through at t overspends when
 * 100 R > 50 Q + 100, i.e. 2R > Q + 2, R the retries let through and Q the
 * requests with a first lookup (by arrival) in (t - 1 s, t]:
 *   retry   R in the window            Q in the window                 over
 *   0.6     0.6: 1                     0.1 0.6: 2                      no
 *   1.0     0.6 1.0: 2                 0.1 0.6 1.0: 3                  no
 *   1.6     1.0 1.6: 2 (0.6 is out)    1.0 1.6: 2 (0.6 out; 1.55 has   no
 *                                      no lookup)
 *   2.0     1.6 2.0: 2 (the refused    1.6 2.0: 2 (1.0 out)            no
 *           Y at 2.0 is not let through)
 *   2.5     1.6 2.0 2.5: 3             1.6 2.0 2.4: 3 (1.55: none)      yes
 * Either bound the other way round ([t - 1 s, t], or (t - 1 s, t)), or the
 * request without a lookup counted, and the count is not 1. */
static const hreq BUDQ[] = {
    {L_(100), 'L', L_(501), 1, {{L_(100), 'U'}, {L_(600), 'A'}}},
    {L_(600), 'L', L_(2), 1, {{L_(600), 'A'}}},
    {L_(1000), 'L', L_(2), 1, {{L_(1000), 'U'}, {L_(1000), 'A'}}},
    {L_(1550), 'E', L_(1), 1, {{0}}},
    {L_(1600), 'L', L_(2), 1, {{L_(1600), 'U'}, {L_(1600), 'A'}}},
    {L_(2000), 'K', L_(1), 1, {{L_(2000), 'U'}, {L_(2000), 'U'}, {L_(2000), 'Y'}}},
    {L_(2400), 'L', L_(101), 1, {{L_(2400), 'U'}, {L_(2500), 'A'}}},
    {L_(2900), 'K', U_(500), 1, {{L_(2900), 'B'}}},
};

Test(collect, retry_budget_over_at_the_edges_of_its_second)
{
    const int64_t st[] = {SROW(0, 0, U_(100050))};
    hrun h = {"H3-r2bud", NOFAULT,
              "{\"tries\":3,\"brk_cool_ms\":0,\"rb_pct\":50,\"rb_floor\":1,\"inflight\":2,\"store2\":0}",
              1, 3, 1, BUDQ, 8, st, NULL, NULL, sizeof st / sizeof st[0], 0, 0};
    put_run(&h);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *run = run_of(r, "H3-r2bud-r1");
    /* retries let through: 0.6 1.0 1.6 2.0 2.5; refused: Y at 2.0 (budget),
     * B at 2.9 (a full compartment) */
    cr_assert_eq(num(run, "retries_passed"), 5);
    cr_assert_eq(num(run, "budget_refused"), 1);
    cr_assert_eq(num(run, "budget_over"), 1);
    cr_assert_eq(num(run, "inflight_refused"), 1);
    check_codes(run, "lookup_ends", "ATCDUNXROBY", (const int[]){5, 0, 0, 0, 6, 0, 0, 0, 0, 1, 1});
    /* sent by second (Y and B left out): 0.1 0.6 0.6 | 1.0 1.0 1.6 1.6 |
     * 2.0 2.0 2.4 2.5 */
    json_t *ps = json_object_get(run, "per_second");
    const int sent[3] = {3, 4, 4};
    for (int s = 0; s < 3; s++)
        cr_assert_eq(num(json_array_get(ps, (size_t)s), "lookups_sent"), sent[s], "second %d", s);
    const char *nulls[] = {"brk_opened", "brk_closed_ms", "brk_illegal", "store2_requests", "before_lookups_100ms",
                           "recovery_lookups_100ms", "recovery_lookups_100ms_max"};
    check_nulls(run, nulls, sizeof nulls / sizeof nulls[0], "no breaker, one store, no window");
    json_decref(r);
}

/* ----------------------------------------------------------- two stores */

/* A bulkhead arm, 3 s, the first store hanging in [1 s, 2 s).  Store 1:
 * j0 live 2 ms; j2 (at the window's start) a stand-in after 250 ms; j5 no
 * answer; j8 live 2 ms after five lookups (a not found retried: 1 retried
 * permanent).  Store 2: j1 3, j3 4, j4 40 ms live; j6 (1 ns before the
 * window's end) a stand-in after 10 ms; j7 (at its end: after) live 5 ms.
 * j9 never reached the service: neither store. */
static const hreq BULKQ[] = {
    {L_(100), 'L', L_(2), 1, {{L_(100), 'A'}}},     {L_(200), 'L', L_(3), 2, {{L_(200), 'A'}}},
    {L_(1000), 'K', L_(250), 1, {{L_(1000), 'T'}}}, {L_(1100), 'L', L_(4), 2, {{L_(1100), 'A'}}},
    {L_(1500), 'L', L_(40), 2, {{L_(1500), 'A'}}},  {L_(1600), 'E', -1, 1, {{L_(1600), 'T'}}},
    {L_(2000) - 1, 'K', L_(10), 2, {{L_(2000) - 1, 'T'}}},
    {L_(2000), 'L', L_(5), 2, {{L_(2000), 'A'}}},
    {L_(2500), 'L', L_(2), 1,
     {{L_(2500), 'T'}, {U_(2500100), 'T'}, {U_(2500200), 'U'}, {U_(2500300), 'N'}, {U_(2500400), 'A'}}},
    {L_(2600), 'E', -1, 0, {{0}}},
};
static const int64_t BULKS1[] = {
    SROW(0, 0, U_(100050)),   SROW(2, 0, U_(1000050)),  SROW(5, 0, U_(1600050)),  SROW(8, 0, U_(2500050)),
    SROW(8, 1, U_(2500150)), SROW(8, 2, U_(2500250)), SROW(8, 3, U_(2500350)), SROW(8, 4, U_(2500450)),
};
static const int64_t BULKS2[] = {
    SROW(1, 0, U_(200050)), SROW(3, 0, U_(1100050)), SROW(4, 0, U_(1500050)), SROW(6, 0, U_(2000050) - 1),
    SROW(7, 0, U_(2000050)),
};
#define BULK_SPEC "{\"tries\":5,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":8,\"store2\":50}"
#define HANG "{\"name\":\"hang\",\"spec\":\"hang\",\"from_ns\":1000000000,\"to_ns\":2000000000}"

Test(collect, two_stores_by_hand)
{
    hrun h = {"H3-bulk-hang", HANG, BULK_SPEC, 1, 3, 2, BULKQ, 10, BULKS1, BULKS2, NULL,
              sizeof BULKS1 / sizeof BULKS1[0], sizeof BULKS2 / sizeof BULKS2[0], 0};
    put_run(&h);
    h.round = 2; /* the same rows without a window */
    h.fault = NOFAULT;
    put_run(&h);
    /* without a bulkhead: j3 a stand-in, j4 slower (400 ms) */
    hreq pool[10];
    memcpy(pool, BULKQ, sizeof pool);
    pool[3].kind = 'K';
    pool[4].latency = L_(400);
    h.arm = "H3-pool-hang";
    h.round = 1;
    h.fault = HANG;
    h.q = pool;
    put_run(&h);
    h.round = 2; /* round 2 without a window, as the bulkhead's: its "during" figures are null */
    h.fault = NOFAULT;
    put_run(&h);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert_eq(psql_num("SELECT count(*) FROM lookups WHERE run = 'H3-bulk-hang-r1' AND store = 1"), 8);
    cr_assert_eq(psql_num("SELECT count(*) FROM lookups WHERE run = 'H3-bulk-hang-r1' AND store = 2"), 5);
    json_t *r = results(), *run = run_of(r, "H3-bulk-hang-r1");
    /* lookups: both stores' rows */
    cr_assert_eq(num(run, "lookups"), 13);
    check_codes(run, "store_outcomes", "ADUENHRP", (const int[]){13, 0, 0, 0, 0, 0, 0, 0});
    /* store 1: j0 j2 j5 j8, live j0 j8; latencies 2 2 250: p99 h = 1.98,
     * 2 + 0.98 * 248 = 245.04 */
    cr_assert_eq(num(run, "store1_requests"), 4);
    cr_assert_eq(num(run, "store1_live"), 2);
    cr_assert_float_eq(num(run, "store1_live_share"), 0.5, 1e-15);
    cr_assert_float_eq(num(run, "store1_p99_ms"), 245.04, 1e-9);
    /* store 2: j1 j3 j4 j6 j7, live 4; latencies 3 4 5 10 40: h = 3.96,
     * 10 + 0.96 * 30 = 38.8 */
    cr_assert_eq(num(run, "store2_requests"), 5);
    cr_assert_eq(num(run, "store2_live"), 4);
    cr_assert_float_eq(num(run, "store2_live_share"), 0.8, 1e-15);
    cr_assert_float_eq(num(run, "store2_p99_ms"), 38.8, 1e-9);
    /* during [1 s, 2 s): store 1 j2 j5 (none live; p99 of j2's 250 alone);
     * store 2 j3 j4 j6 (2 live; 4 10 40: h = 1.98, 10 + 0.98 * 30 = 39.4) */
    cr_assert_eq(num(run, "store1_during_requests"), 2);
    cr_assert_eq(num(run, "store1_during_live"), 0);
    cr_assert_float_eq(num(run, "store1_during_live_share"), 0.0, 1e-15);
    cr_assert_float_eq(num(run, "store1_during_p99_ms"), 250.0, 1e-9);
    cr_assert_eq(num(run, "store2_during_requests"), 3);
    cr_assert_eq(num(run, "store2_during_live"), 2);
    cr_assert_float_eq(num(run, "store2_during_live_share"), 2.0 / 3.0, 1e-15);
    cr_assert_float_eq(num(run, "store2_during_p99_ms"), 39.4, 1e-9);
    /* five tries: j8's four retries let through, its N retried; nothing
     * refused by the compartments (a limit: 0, not null) */
    cr_assert_eq(num(run, "retries_passed"), 4);
    cr_assert_eq(num(run, "retried_permanent"), 1);
    cr_assert_eq(num(run, "inflight_refused"), 0);
    check_codes(run, "lookup_ends", "ATCDUNXROBY", (const int[]){6, 5, 0, 0, 1, 1, 0, 0, 0, 0, 0});
    /* both stores' rows: before 1 s j0 j1 (2 over 10 slices); from 2 s:
     * j6's and j7's (the first 100 ms), j8's five (the sixth) */
    cr_assert_float_eq(num(run, "before_lookups_100ms"), 0.2, 1e-15);
    check_list(run, "recovery_lookups_100ms", (const int[]){2, 0, 0, 0, 0, 5, 0, 0, 0, 0}, 10);
    cr_assert_eq(num(run, "recovery_lookups_100ms_max"), 5);
    /* round 2, no window: the stores' figures, none of "during" */
    json_t *r2 = run_of(r, "H3-bulk-hang-r2");
    cr_assert_float_eq(num(r2, "store2_p99_ms"), 38.8, 1e-9);
    const char *nulls[] = {"store1_during_requests", "store1_during_live", "store1_during_live_share",
                           "store1_during_p99_ms", "store2_during_requests", "store2_during_live_share",
                           "store2_during_p99_ms", "before_lookups_100ms", "recovery_lookups_100ms"};
    check_nulls(r2, nulls, sizeof nulls / sizeof nulls[0], "no window");
    /* the arm: store2_during_p99_ms from round 1 alone (null left out) */
    json_t *arm = json_object_get(json_object_get(r, "arms"), "H3-bulk-hang");
    cr_assert_float_eq(num(json_object_get(arm, "store2_during_p99_ms"), "median"), 39.4, 1e-9);
    cr_assert_float_eq(num(json_object_get(arm, "store2_p99_ms"), "min"), 38.8, 1e-9);
    /* without the bulkhead: store 2 during: j3 K, j4 L 400 ms, j6 K: live
     * 1 of 3; p99 of 4 10 400: 10 + 0.98 * 390 = 392.2 */
    json_t *pl = run_of(r, "H3-pool-hang-r1");
    cr_assert_float_eq(num(pl, "store2_during_live_share"), 1.0 / 3.0, 1e-15);
    cr_assert_float_eq(num(pl, "store2_during_p99_ms"), 392.2, 1e-9);
    size_t i;
    json_t *v;
    int seen = 0;
    json_array_foreach(json_object_get(r, "verdicts"), i, v)
    {
        if (strcmp(json_string_value(json_object_get(v, "figure")), "store2_during_p99_ms"))
            continue;
        seen++;
        /* both arms have rounds 1 and 2; round 2 has no window, so no diff
         * (null), and a null diff has no sign: too close to call */
        json_t *rounds = json_object_get(v, "rounds"), *diffs = json_object_get(v, "diffs");
        cr_assert_eq(json_array_size(rounds), 2);
        cr_assert_eq(json_array_size(diffs), 2);
        cr_assert_float_eq(json_number_value(json_array_get(diffs, 0)), 39.4 - 392.2, 1e-9);
        cr_assert(json_is_null(json_array_get(diffs, 1)));
        cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "too close to call");
        cr_assert(json_is_null(json_object_get(v, "direction")));
    }
    cr_assert_eq(seen, 1);
    /* G39: every bulk store2_during_live_share >= 0.95 (2/3: no); every
     * pool one <= 0.5 (1/3 in round 1, but null in round 2: a figure
     * without a value makes `every` false) */
    json_array_foreach(json_object_get(r, "guesses"), i, v)
    {
        if (strcmp(json_string_value(json_object_get(v, "id")), "G39"))
            continue;
        json_t *c = json_object_get(v, "clauses");
        cr_assert(json_is_false(json_array_get(c, 0)) && json_is_false(json_array_get(c, 1)));
    }
    json_decref(r);

    /* store2.tsv.gz is part of the fingerprint: one row fewer is loaded again */
    h.arm = "H3-bulk-hang";
    h.round = 1;
    h.fault = HANG;
    h.q = BULKQ;
    h.nst2 -= RAWFMT_STORE_NCOLS;
    put_run(&h);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "1 loaded now"), "%s", out);
    r = results();
    cr_assert_eq(num(run_of(r, "H3-bulk-hang-r1"), "lookups"), 12);
    json_decref(r);
}

/* ------------------------------------------------ format 3's run.json */

Test(collect, stores_and_arm_spec_checked)
{
    hrun h = {"H3-bulk-hang", HANG, BULK_SPEC, 1, 3, 2, BULKQ, 10, BULKS1, BULKS2, NULL,
              sizeof BULKS1 / sizeof BULKS1[0], sizeof BULKS2 / sizeof BULKS2[0], 0};
    char out[8192], dir[256], p[300];
    snprintf(dir, sizeof dir, "%s/results/raw/H3-bulk-hang-r1", ct_root);
    struct {
        int stores;
        const char *spec, *says;
        int drop2;
    } bad[] = {
        {1, BULK_SPEC, "stores: needs 2", 0},
        {2, "{\"tries\":5,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":8}", "arm_spec.store2", 0},
        {2, "{\"tries\":5,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":8,\"store2\":50}", "arm_spec.brk_cool_ms", 0},
        {2, "{\"tries\":-1,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":8,\"store2\":50}",
         "arm_spec.tries", 0},
        {2, BULK_SPEC, "store2.tsv.gz: missing", 1},
        /* a hedge to the copy has two stores; hedge2 is 0 or 1 */
        {1, "{\"tries\":1,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":0,\"store2\":0,\"hedge2\":1}",
         "stores: needs 2 (arm_spec.store2 is 0, hedge2 1)", 0},
        {2, "{\"tries\":5,\"brk_cool_ms\":0,\"rb_pct\":0,\"rb_floor\":0,\"inflight\":8,\"store2\":50,\"hedge2\":2}",
         "arm_spec.hedge2: needs 0 or 1", 0},
        {1, SPEC_T1, "column store: 2: needs 1 (run.json's stores is 1)", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put_run(&h);
        write_run_json(dir, h.arm, 1, 3, HANG, bad[i].stores, bad[i].spec);
        snprintf(p, sizeof p, "%s/store2.tsv.gz", dir);
        if (bad[i].drop2) {
            unlink(p);
            record_digests(dir); /* run.json's files as the folder is: the folder's own fault named */
        }
        cr_assert_eq(collect(out, sizeof out), 1, "case %zu: %s", i, out);
        cr_assert(strstr(out, bad[i].says), "case %zu: %s", i, out);
    }
    /* the service row naming store 2 is line 4 (j1) */
    cr_assert(strstr(out, "service.tsv.gz:4:"), "%s", out);
    /* a second store's file without a second store */
    put_run(&h);
    write_run_json(dir, h.arm, 1, 3, HANG, 1, SPEC_T1);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "store2.tsv.gz: present, yet run.json's stores is 1"), "%s", out);
    cr_assert_eq(psql_num("SELECT count(*) FROM runs"), 0, "nothing loaded");
}
