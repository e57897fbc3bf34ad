/* storeq: the feature store's queue, as pure logic: its slots, its one FIFO
 * line and the budget drops.  lab/store/store.c runs it on the clock, lab/play/play.c
 * on simulated time; both only carry out what it reports.  No I/O, no
 * clock: times are int64 ns passed in by the caller, so the rules are
 * tested with made-up times (tests/lab/test_storeq.c).
 *
 * The rules (lab/RAWFORMAT.md, store.tsv.gz, logs what they decide):
 * - a lookup that arrives takes a free slot at once, or joins the tail of
 *   the line; the line moves up in order (FIFO) whenever a slot frees;
 * - in its slot a lookup waits its planned wait (the caller's dice), then
 *   is answered; a zero wait is answered at once and holds no slot;
 * - a lookup carrying a budget (ns, 0: none) is dropped when the budget
 *   runs out, in line (it leaves the line from wherever it is) or in its
 *   slot (the slot goes to the next in line); a budget below 0 has run out
 *   already: dropped on arrival.
 *
 * Driving it: storeq_arrive for each lookup; storeq_next says when the next
 * slot ends or budget runs out; at or after that time storeq_end ends it,
 * then storeq_fill, called until it returns 0, moves the line up into the
 * freed slot (one event a call: an expired budget at the head is dropped, a
 * zero wait answered, the next lookup started).  Every call reports what
 * happened in a storeq_event.  storeq_line and storeq_busy are the line's
 * length and the busy slots now (the store logs them at each arrival).
 *
 * Order of events at the same ns: every due time set (a slot's end, a
 * budget in line) takes the next number of a counter, and storeq_next
 * gives the earliest by (time, number).  The counter may be the caller's
 * own (storeq_init's `order`), so that the caller's events and the store's
 * run in one order of scheduling (lab/play/play.c); NULL: one of its own.
 *
 * Lookups are the caller's ids (below 2^61: an index, or a pointer); the
 * queue keeps its own record of each lookup it holds and forgets it when
 * it ends.  Memory: storeq_free frees what the queue grew; nothing
 * is owned by the caller.  The struct is visible so that it can be
 * embedded and storeq_next inlined; its fields are private.
 */
#ifndef LAB_STOREQ_H
#define LAB_STOREQ_H

#include <stdint.h>

#define STOREQ_NONE INT64_MIN /* a start time that never was */

typedef enum {
    STOREQ_QUEUED,       /* (storeq_arrive only) joined the line */
    STOREQ_STARTED,      /* took a slot at t; holds it until `until`, then ends
                          * ANSWERED, or DROPPED_SLOT when `drops` */
    STOREQ_ANSWERED,     /* answered at t */
    STOREQ_DROPPED_LINE, /* dropped at t before it had a slot */
    STOREQ_DROPPED_SLOT  /* dropped at t in its slot; the slot is free */
} storeq_what;

typedef struct {
    storeq_what what;
    int drops;      /* STARTED: its budget runs out before its wait */
    uint64_t id;    /* the lookup */
    int64_t t;      /* when it happened */
    int64_t start;  /* when it took its slot (a zero wait: t); STOREQ_NONE if it never did */
    int64_t until;  /* STARTED: when its slot ends */
} storeq_event;

/* private: a place in line, and a due time */
typedef struct {
    uint64_t id;
    int64_t planned;  /* -1 once dropped from the line */
    int64_t deadline; /* 0: none */
} storeq_place_;
typedef struct {
    int64_t t;
    uint64_t order;
    uint64_t ref;    /* what ends, and the lookup or its place in line (storeq.c) */
    int64_t start;   /* a slot's end: when it started */
} storeq_due_;

typedef struct {
    int nslots, busy;
    int64_t line_len;
    uint64_t own_order, *order;
    /* the line: a ring of places; positions count up, dropped places are
     * skipped when they reach the head */
    storeq_place_ *line;
    uint64_t lcap, lhead, ltail;
    /* due times: the slots' ends in an array sorted latest first (at most
     * nslots: the earliest is the last, and a new end, most often among
     * the earliest, moves few), budgets in line in time order in a ring,
     * budgets out of order in a binary heap */
    storeq_due_ *slot; /* [0 .. busy): one end per busy slot, latest first */
    storeq_due_ *drops;
    uint64_t dcap, dhead, dtail;
    storeq_due_ *heap;
    uint64_t hn, hcap; /* the heap holds budgets in line only */
    /* the earliest due time, (INT64_MAX, 0) for none, and where it is
     * (storeq.c: a slot, the ring, the heap) */
    int has_next, next_src;
    int64_t next_t;
    uint64_t next_order;
} storeq;

/* An empty queue of nslots (>= 1) slots; 0, or -1 for nslots < 1.
 * Allocates nothing yet (the slots' array at the first lookup). */
int storeq_init(storeq *q, int nslots, uint64_t *order);
/* Empty again (every lookup forgotten), its memory kept for reuse. */
void storeq_reset(storeq *q);
void storeq_free(storeq *q);

/* Lookup `id` arrives at `now` with its planned wait (>= 0) and its budget
 * (0: none; below 0: spent).  0 and *ev: STARTED, ANSWERED (a zero wait
 * with a slot free), DROPPED_LINE (budget spent) or QUEUED; -1 when out of
 * memory, planned < 0 or id too large (then nothing changed). */
int storeq_arrive(storeq *q, int64_t now, uint64_t id, int64_t planned, int64_t budget,
                  storeq_event *ev);

/* When the next slot ends or budget runs out: INT64_MAX for never; its
 * number of scheduling in *order (may be NULL). */
static inline int64_t storeq_next(const storeq *q, uint64_t *order)
{
    if (order)
        *order = q->next_order;
    return q->next_t;
}

/* End what storeq_next names, if it is due by `now`: 1 and *ev (ANSWERED,
 * DROPPED_SLOT or DROPPED_LINE, at `now`), 0 when nothing is due. */
int storeq_end(storeq *q, int64_t now, storeq_event *ev);

/* Move the line up into free slots, one lookup a call: 1 and *ev (STARTED,
 * ANSWERED for a zero wait, DROPPED_LINE for a budget run out by now), 0
 * when no slot is free or the line is empty, -1 when out of memory (the
 * lookup stays at the head of the line). */
int storeq_fill(storeq *q, int64_t now, storeq_event *ev);

/* 1 when a lookup arriving now would take a slot at once (storeq_arrive's
 * rule: a slot free and nobody in line). */
static inline int storeq_open(const storeq *q) { return q->busy < q->nslots && q->line_len == 0; }

static inline int64_t storeq_line(const storeq *q) { return q->line_len; }
static inline int storeq_busy(const storeq *q) { return q->busy; }

#endif
