/* lab/core/storeq.c, the store's queue, with made-up times (ns): hand-worked
 * cases, then a random workload checked against the rules one by one; last,
 * the invariants' assert()s: in the tests' build (build/tlab/) they fire,
 * the measured programs (-DNDEBUG) have none. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storeq.h"
#include "util.h"

static storeq Q;

static void fresh(int nslots)
{
    cr_assert_eq(storeq_init(&Q, nslots, NULL), 0);
}

static void done(void) { storeq_free(&Q); }

TestSuite(storeq, .fini = done);

/* Arrive and expect `what`. */
static storeq_event arrive(int64_t now, uint64_t id, int64_t planned, int64_t budget, storeq_what what)
{
    storeq_event e;
    cr_assert_eq(storeq_arrive(&Q, now, id, planned, budget, &e), 0);
    cr_assert_eq(e.what, what, "lookup %llu at %lld: what %d, expected %d", (unsigned long long)id,
                 (long long)now, e.what, what);
    cr_assert_eq(e.id, id);
    cr_assert_eq(e.t, now);
    return e;
}

/* The next due time must be `t`; end it there and expect (what, id). */
static storeq_event end_at(int64_t t, storeq_what what, uint64_t id)
{
    storeq_event e;
    cr_assert_eq(storeq_next(&Q, NULL), t);
    cr_assert_eq(storeq_end(&Q, t - 1, &e), 0, "nothing is due before %lld", (long long)t);
    cr_assert_eq(storeq_end(&Q, t, &e), 1);
    cr_assert_eq(e.what, what, "at %lld: what %d, expected %d", (long long)t, e.what, what);
    cr_assert_eq(e.id, id, "at %lld: lookup %llu, expected %llu", (long long)t, (unsigned long long)e.id,
                 (unsigned long long)id);
    cr_assert_eq(e.t, t);
    return e;
}

/* One step of the line moving up: expect (what, id). */
static storeq_event fill(int64_t now, storeq_what what, uint64_t id)
{
    storeq_event e;
    cr_assert_eq(storeq_fill(&Q, now, &e), 1);
    cr_assert_eq(e.what, what, "fill at %lld: what %d, expected %d", (long long)now, e.what, what);
    cr_assert_eq(e.id, id, "fill at %lld: lookup %llu, expected %llu", (long long)now,
                 (unsigned long long)e.id, (unsigned long long)id);
    cr_assert_eq(e.t, now);
    return e;
}

static void fill_none(int64_t now)
{
    storeq_event e;
    cr_assert_eq(storeq_fill(&Q, now, &e), 0);
}

Test(storeq, sixteen_slots_then_the_17th_waits_and_the_line_is_fifo)
{
    fresh(16);
    /* lookup k arrives at k ns and plans 1000 - k ns: the last to take a
     * slot is the first to finish, at 1000 */
    for (int k = 0; k < 16; k++) {
        cr_assert_eq(storeq_line(&Q), 0);
        cr_assert_eq(storeq_busy(&Q), k, "busy at the arrival of lookup %d", k);
        storeq_event e = arrive(k, (uint64_t)k, 1000 - k, 0, STOREQ_STARTED);
        cr_assert_eq(e.start, k);
        cr_assert_eq(e.until, 1000);
        cr_assert_eq(e.drops, 0);
    }
    for (int k = 16; k < 19; k++) {
        cr_assert_eq(storeq_line(&Q), k - 16, "line at the arrival of lookup %d", k);
        cr_assert_eq(storeq_busy(&Q), 16);
        arrive(k, (uint64_t)k, 50, 0, STOREQ_QUEUED);
    }
    cr_assert_eq(storeq_line(&Q), 3);
    /* all 16 end at 1000, in the order they took their slot; each frees a
     * slot for the next in line, in order of arrival */
    for (int k = 0; k < 16; k++) {
        storeq_event e = end_at(1000, STOREQ_ANSWERED, (uint64_t)k);
        cr_assert_eq(e.start, k);
        if (k < 3) {
            e = fill(1000, STOREQ_STARTED, (uint64_t)(16 + k));
            cr_assert_eq(e.until, 1050);
        }
        fill_none(1000);
    }
    cr_assert_eq(storeq_line(&Q), 0);
    cr_assert_eq(storeq_busy(&Q), 3);
    for (int k = 16; k < 19; k++)
        end_at(1050, STOREQ_ANSWERED, (uint64_t)k);
    cr_assert_eq(storeq_busy(&Q), 0);
    cr_assert_eq(storeq_next(&Q, NULL), INT64_MAX);
}

Test(storeq, a_zero_wait_is_answered_at_once_without_a_slot)
{
    fresh(1);
    storeq_event e = arrive(5, 1, 0, 0, STOREQ_ANSWERED);
    cr_assert_eq(e.start, 5, "a zero wait starts and ends at once");
    cr_assert_eq(storeq_busy(&Q), 0);
    cr_assert_eq(storeq_next(&Q, NULL), INT64_MAX);
    /* the slot taken: zero waits queue like any other lookup */
    arrive(10, 2, 100, 0, STOREQ_STARTED);
    arrive(11, 3, 0, 0, STOREQ_QUEUED);
    arrive(12, 4, 30, 0, STOREQ_QUEUED);
    end_at(110, STOREQ_ANSWERED, 2);
    e = fill(110, STOREQ_ANSWERED, 3); /* answered at the head of the line */
    cr_assert_eq(e.start, 110);
    cr_assert_eq(storeq_busy(&Q), 0);
    fill(110, STOREQ_STARTED, 4); /* the same free slot */
    fill_none(110);
    cr_assert_eq(storeq_busy(&Q), 1);
    end_at(140, STOREQ_ANSWERED, 4);
}

Test(storeq, a_budget_runs_out_in_line_from_the_middle)
{
    fresh(1);
    arrive(0, 1, 100, 0, STOREQ_STARTED);
    arrive(1, 2, 10, 0, STOREQ_QUEUED);
    arrive(2, 3, 10, 40, STOREQ_QUEUED); /* budget until 42 */
    arrive(3, 4, 10, 0, STOREQ_QUEUED);
    cr_assert_eq(storeq_line(&Q), 3);
    storeq_event e = end_at(42, STOREQ_DROPPED_LINE, 3);
    cr_assert_eq(e.start, STOREQ_NONE);
    cr_assert_eq(storeq_line(&Q), 2);
    cr_assert_eq(storeq_busy(&Q), 1, "a drop in line frees no slot");
    fill_none(42);
    end_at(100, STOREQ_ANSWERED, 1);
    fill(100, STOREQ_STARTED, 2);
    fill_none(100);
    end_at(110, STOREQ_ANSWERED, 2);
    fill(110, STOREQ_STARTED, 4); /* 3 is gone */
    end_at(120, STOREQ_ANSWERED, 4);
    cr_assert_eq(storeq_next(&Q, NULL), INT64_MAX);
}

Test(storeq, a_budget_runs_out_in_the_slot_and_frees_it_for_the_next_in_line)
{
    fresh(1);
    storeq_event e = arrive(0, 1, 1000, 25, STOREQ_STARTED);
    cr_assert_eq(e.drops, 1);
    cr_assert_eq(e.until, 25);
    arrive(3, 2, 10, 0, STOREQ_QUEUED);
    e = end_at(25, STOREQ_DROPPED_SLOT, 1);
    cr_assert_eq(e.start, 0);
    cr_assert_eq(storeq_busy(&Q), 0);
    e = fill(25, STOREQ_STARTED, 2);
    cr_assert_eq(e.until, 35);
    /* a budget that lasts exactly the wait is answered */
    arrive(40, 3, 20, 15, STOREQ_QUEUED); /* budget until 55 */
    end_at(35, STOREQ_ANSWERED, 2);
    e = fill(35, STOREQ_STARTED, 3);
    cr_assert_eq(e.until, 55);
    cr_assert_eq(e.drops, 0);
    end_at(55, STOREQ_ANSWERED, 3);
    cr_assert_eq(storeq_next(&Q, NULL), INT64_MAX, "its budget in line is due no more");
}

Test(storeq, a_spent_budget_is_dropped_on_arrival_and_zero_is_none)
{
    fresh(2);
    storeq_event e = arrive(7, 1, 100, -1, STOREQ_DROPPED_LINE);
    cr_assert_eq(e.start, STOREQ_NONE);
    cr_assert_eq(storeq_busy(&Q), 0);
    e = arrive(8, 2, 100, 0, STOREQ_STARTED);
    cr_assert_eq(e.drops, 0, "budget 0: none");
    cr_assert_eq(e.until, 108);
    cr_assert_eq(storeq_arrive(&Q, 9, 3, -5, 0, &e), -1, "a negative wait is refused");
    cr_assert_eq(storeq_busy(&Q), 1);
}

/* A budget spent at the very ns a slot frees, the slot's end scheduled
 * first: the line's head is dropped as it moves up, the next one starts,
 * and the spent budget's own due time is gone. */
Test(storeq, a_spent_head_is_dropped_when_the_line_moves_up)
{
    fresh(1);
    arrive(0, 1, 50, 0, STOREQ_STARTED); /* order 0, ends at 50 */
    arrive(10, 2, 5, 40, STOREQ_QUEUED); /* order 1, budget until 50 */
    arrive(11, 3, 5, 0, STOREQ_QUEUED);
    uint64_t order;
    cr_assert_eq(storeq_next(&Q, &order), 50);
    cr_assert_eq(order, 0, "the slot's end was scheduled first");
    end_at(50, STOREQ_ANSWERED, 1);
    fill(50, STOREQ_DROPPED_LINE, 2);
    fill(50, STOREQ_STARTED, 3);
    cr_assert_eq(storeq_next(&Q, &order), 55);
    cr_assert_eq(order, 2);
    end_at(55, STOREQ_ANSWERED, 3);
    cr_assert_eq(storeq_next(&Q, NULL), INT64_MAX);
}

/* The caller's counter numbers every due time set, so the caller can order
 * its own events with the store's; ties at one ns go by that number. */
Test(storeq, due_times_take_the_callers_numbers)
{
    uint64_t counter = 100;
    cr_assert_eq(storeq_init(&Q, 2, &counter), 0);
    storeq_event e;
    cr_assert_eq(storeq_arrive(&Q, 0, 1, 30, 0, &e), 0); /* 100: ends at 30 */
    counter++;                                            /* 101: the caller's own */
    cr_assert_eq(storeq_arrive(&Q, 10, 2, 20, 0, &e), 0); /* 102: ends at 30 too */
    cr_assert_eq(storeq_arrive(&Q, 11, 3, 5, 0, &e), 0);  /* queued, no budget: no number */
    cr_assert_eq(storeq_arrive(&Q, 12, 4, 5, 18, &e), 0); /* 103: budget until 30 */
    cr_assert_eq(counter, 104);
    uint64_t order;
    cr_assert_eq(storeq_next(&Q, &order), 30);
    cr_assert_eq(order, 100);
    end_at(30, STOREQ_ANSWERED, 1);
    fill(30, STOREQ_STARTED, 3); /* number 104 */
    cr_assert_eq(counter, 105);
    cr_assert_eq(storeq_next(&Q, &order), 30);
    cr_assert_eq(order, 102);
    end_at(30, STOREQ_ANSWERED, 2);
    fill(30, STOREQ_DROPPED_LINE, 4); /* spent at 30 as it reaches a slot */
    fill_none(30);
    cr_assert_eq(storeq_next(&Q, &order), 35);
    cr_assert_eq(order, 104);
}

/* A lookup arriving between a slot's end and the line moving up queues
 * behind those already waiting: the freed slot is theirs. */
Test(storeq, an_arrival_before_the_line_moves_up_joins_its_tail)
{
    fresh(1);
    arrive(0, 1, 10, 0, STOREQ_STARTED);
    arrive(1, 2, 10, 0, STOREQ_QUEUED);
    end_at(10, STOREQ_ANSWERED, 1);
    cr_assert_eq(storeq_busy(&Q), 0);
    arrive(10, 3, 10, 0, STOREQ_QUEUED);
    fill(10, STOREQ_STARTED, 2);
    fill_none(10);
    end_at(20, STOREQ_ANSWERED, 2);
    fill(20, STOREQ_STARTED, 3);
}

Test(storeq, reset_forgets_every_lookup)
{
    fresh(1);
    storeq_event e;
    arrive(0, 1, 10, 0, STOREQ_STARTED);
    arrive(1, 2, 10, 5, STOREQ_QUEUED);
    storeq_reset(&Q);
    cr_assert_eq(storeq_line(&Q), 0);
    cr_assert_eq(storeq_busy(&Q), 0);
    cr_assert_eq(storeq_next(&Q, NULL), INT64_MAX);
    cr_assert_eq(storeq_end(&Q, INT64_MAX, &e), 0);
    arrive(2, 3, 4, 0, STOREQ_STARTED);
    end_at(6, STOREQ_ANSWERED, 3);
}

/* ------------------------------------------------- a random workload */

typedef struct {
    int64_t arrive, planned, budget, deadline, start, end;
    int ended, line, busy;
    storeq_what how;
} rec;

static rec R[20000];
static int64_t ended_at_last; /* time order of the ends */

static void note(const storeq_event *e, int nslots)
{
    rec *r = &R[e->id];
    cr_assert_geq(e->t, ended_at_last, "events in time order");
    ended_at_last = e->t;
    cr_assert_leq(storeq_busy(&Q), nslots);
    if (e->what == STOREQ_QUEUED)
        return;
    if (e->what == STOREQ_STARTED) {
        cr_assert_eq(r->start, STOREQ_NONE, "lookup %llu starts once", (unsigned long long)e->id);
        r->start = e->t;
        return;
    }
    cr_assert_eq(r->ended, 0, "lookup %llu ends once", (unsigned long long)e->id);
    r->ended = 1;
    r->end = e->t;
    r->how = e->what;
    if (e->what != STOREQ_DROPPED_LINE && r->start == STOREQ_NONE)
        r->start = e->start; /* a zero wait */
    cr_assert_eq(e->start, e->what == STOREQ_DROPPED_LINE ? STOREQ_NONE : r->start);
}

/* 20,000 lookups, 4 slots, waits 0 to 3 ms (one in 10 zero), budgets none,
 * spent, or up to 4 ms, arrivals every 0 to 400 us: a line forms and drains.
 * Driven as play drives it; then every rule is checked per lookup. */
Test(storeq, random_workload_keeps_every_rule)
{
    const int nslots = 4, n = 20000;
    fresh(nslots);
    ut_rng g;
    ut_rng_seed(&g, 42);
    int64_t t = 0;
    for (int i = 0; i < n; i++) {
        t += (int64_t)(ut_rng_u64(&g) % 400000);
        uint64_t u = ut_rng_u64(&g);
        R[i] = (rec){.arrive = t, .planned = u % 10 == 0 ? 0 : (int64_t)(u / 10 % 3000000),
                     .start = STOREQ_NONE, .end = STOREQ_NONE};
        u = ut_rng_u64(&g) % 100; /* 3 in 100 spent, 37 none, 60 up to 4 ms */
        R[i].budget = u < 3 ? -1 : u < 40 ? 0 : 1 + (int64_t)(ut_rng_u64(&g) % 4000000);
        R[i].deadline = R[i].budget > 0 ? t + R[i].budget : 0;
    }
    ended_at_last = 0;
    storeq_event e;
    for (int i = 0; i <= n; i++) {
        int64_t ta = i < n ? R[i].arrive : INT64_MAX;
        /* everything due before the arrival (at its ns too), each followed
         * by the line moving up */
        while (storeq_next(&Q, NULL) <= ta && storeq_next(&Q, NULL) != INT64_MAX) {
            int64_t now = storeq_next(&Q, NULL);
            cr_assert_eq(storeq_end(&Q, now, &e), 1);
            note(&e, nslots);
            while (storeq_fill(&Q, now, &e) == 1)
                note(&e, nslots);
            cr_assert(storeq_busy(&Q) == nslots || storeq_line(&Q) == 0, "no slot idle while a line waits");
        }
        if (i == n)
            break;
        R[i].line = (int)storeq_line(&Q);
        R[i].busy = storeq_busy(&Q);
        cr_assert_eq(storeq_arrive(&Q, R[i].arrive, (uint64_t)i, R[i].planned, R[i].budget, &e), 0);
        note(&e, nslots);
    }
    cr_assert_eq(storeq_line(&Q), 0);
    cr_assert_eq(storeq_busy(&Q), 0);
    int64_t last_start = 0, queued = 0, dropped_line = 0, dropped_slot = 0;
    for (int i = 0; i < n; i++) {
        const rec *r = &R[i];
        cr_assert(r->ended, "lookup %d ended", i);
        if (r->budget < 0) {
            cr_assert_eq(r->how, STOREQ_DROPPED_LINE);
            cr_assert_eq(r->end, r->arrive, "a spent budget is dropped on arrival");
            continue;
        }
        /* a lookup that found a free slot (and no line) starts at once */
        if (r->line == 0 && r->busy < nslots)
            cr_assert_eq(r->start, r->arrive, "lookup %d found a free slot", i);
        queued += r->start != r->arrive;
        if (r->how == STOREQ_DROPPED_LINE) {
            dropped_line++;
            cr_assert_eq(r->start, STOREQ_NONE);
            cr_assert_eq(r->end, r->deadline, "lookup %d dropped in line when its budget ran out", i);
            continue;
        }
        /* FIFO: slots are taken in order of arrival */
        cr_assert_geq(r->start, last_start, "lookup %d took its slot before an earlier one", i);
        last_start = r->start;
        cr_assert(!r->deadline || r->start < r->deadline, "lookup %d started with its budget spent", i);
        if (r->how == STOREQ_DROPPED_SLOT) {
            dropped_slot++;
            cr_assert(r->deadline && r->deadline < r->start + r->planned);
            cr_assert_eq(r->end, r->deadline);
        } else {
            cr_assert_eq(r->how, STOREQ_ANSWERED);
            cr_assert_eq(r->end, r->start + r->planned, "lookup %d answered after its wait", i);
            cr_assert(!r->deadline || r->end <= r->deadline);
        }
    }
    /* the workload did what it was made for */
    cr_assert_gt(queued, 1000, "queued: %lld", (long long)queued);
    cr_assert_gt(dropped_line, 100, "dropped in line: %lld", (long long)dropped_line);
    cr_assert_gt(dropped_slot, 100, "dropped in a slot: %lld", (long long)dropped_slot);
}

/* ------------------------------------------------------------ the asserts */

Test(storeq, an_id_of_2_61_or_more_is_refused)
{
    fresh(2);
    storeq_event e;
    cr_assert_eq(storeq_arrive(&Q, 0, 1ULL << 61, 5, 0, &e), -1);
    cr_assert_eq(storeq_arrive(&Q, 0, (1ULL << 61) - 1, 5, 0, &e), 0);
    cr_assert_eq(e.what, STOREQ_STARTED);
}

/* storeq.h: a queue has nslots >= 1; one storeq_init refused is not a queue */
Test(storeq, a_queue_storeq_init_refused_aborts, .signal = SIGABRT)
{
#ifdef NDEBUG
    cr_assert_fail("the tests are built with -DNDEBUG: the asserts do not run");
#endif
    storeq q;
    cr_assert_eq(storeq_init(&q, 0, NULL), -1);
    storeq_event e;
    storeq_arrive(&q, 0, 1, 5, 0, &e);
}

/* a slot count never above the slots: a queue whose count was broken stops */
Test(storeq, more_busy_slots_than_slots_aborts, .signal = SIGABRT)
{
    fresh(2);
    arrive(0, 1, 10, 0, STOREQ_STARTED);
    arrive(0, 2, 10, 0, STOREQ_STARTED);
    Q.busy = 3;
    storeq_event e;
    storeq_arrive(&Q, 1, 3, 10, 0, &e);
}

/* A measured program whose bytes name __assert_fail calls an assert(). */
static long asserts_in(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: build it first (make build)", path);
    static char buf[1 << 16];
    const char *name = "__assert_fail";
    size_t nl = strlen(name), have = 0, n;
    long hits = 0;
    while ((n = fread(buf + have, 1, sizeof buf - have, f)) > 0) {
        have += n;
        for (size_t i = 0; i + nl <= have; i++)
            hits += memcmp(buf + i, name, nl) == 0;
        size_t keep = have < nl - 1 ? have : nl - 1; /* a name across two reads */
        memmove(buf, buf + have - keep, keep);
        have = keep;
    }
    fclose(f);
    return hits;
}

Test(storeq, the_measured_programs_have_no_assert)
{
    const char *progs[] = {"build/bin/store", "build/bin/service", "build/bin/tester", "build/bin/play",
                           "build/bin/run"};
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
        cr_expect_eq(asserts_in(progs[i]), 0, "%s calls assert(): built without -DNDEBUG", progs[i]);
}
