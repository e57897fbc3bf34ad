/* playev: play's own pending events (lab/play/play.c): the service's two timers
 * per request and the store's fault events, in order of (time in ns, order
 * of scheduling).  Pure logic, no clock.
 *
 * Pending events sit in a binary heap, or, when not earlier than the last
 * one there, in one of PEV_NQ queues in time order (play: timer 0, timer
 * 1), which is cheaper and changes no order: most events go there.  Every
 * event takes the next number of the counter `seq`, which play shares with
 * the stores' queues (storeq_init's `order`), so that all events of a
 * simulation run in one order of scheduling.  The earliest pending event
 * is kept up to date by every change (push, schedule, take), so that
 * pev_next, asked before every event of play's loop, only reads it.
 *
 * Owns the heap and the queues (grown as needed, kept by pev_reset for the
 * next seed); pev_free frees them.  When memory runs out `oom` is set and
 * the event is lost: the caller stops.
 */
#ifndef LAB_PLAYEV_H
#define LAB_PLAYEV_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define PEV_NQ 2

typedef struct {
    int64_t t;
    uint64_t seq; /* order of scheduling: events at the same ns run in that order */
    uint32_t id;  /* the caller's */
    uint32_t gen; /* the caller's */
} pev;

typedef struct {
    pev *v;
    size_t cap, head, tail; /* counting up; cap a power of 2 */
} pev_queue_;

typedef struct {
    pev *h; /* the heap */
    size_t hn, hcap;
    pev_queue_ q[PEV_NQ];
    int64_t qt[PEV_NQ];  /* the time of each queue's first event; INT64_MAX: empty */
    uint64_t qs[PEV_NQ]; /* and its seq */
    uint64_t seq;        /* the order of scheduling */
    int oom;
    /* the earliest pending event (pev_next's answer): its time, seq and
     * where it is (a queue, or PEV_NQ: the heap); INT64_MAX, 0, PEV_NQ: none */
    int64_t next_t;
    uint64_t next_seq;
    int next_src;
} pev_set;

/* (t1, s1) before (t2, s2), without branches. */
static inline int pev_before(int64_t t1, uint64_t s1, int64_t t2, uint64_t s2)
{
    return (t1 < t2) | ((t1 == t2) & (s1 < s2));
}

/* Empty, the counter at 0 (the memory kept); a set is used only after
 * its first pev_reset (a zeroed one is not yet empty). */
void pev_reset(pev_set *E);
void pev_free(pev_set *E);
/* An event at t into the heap. */
void pev_push(pev_set *E, int64_t t, uint32_t id, uint32_t gen);
/* An event at t into queue k when that keeps it in order, else the heap. */
void pev_schedule(pev_set *E, int k, int64_t t, uint32_t id, uint32_t gen);

/* The earliest pending event, found anew from the heap's top and the
 * queues' first events: what pev_next keeps (playev.c after every change;
 * test builds check it at every pev_next). */
static inline int pev_find_next_(const pev_set *E, int64_t *t, uint64_t *seq)
{
    int64_t te = E->hn ? E->h[0].t : INT64_MAX;
    uint64_t se = E->hn ? E->h[0].seq : 0;
    int src = PEV_NQ;
    for (int k = 0; k < PEV_NQ; k++) {
        int earlier = pev_before(E->qt[k], E->qs[k], te, se);
        te = earlier ? E->qt[k] : te;
        se = earlier ? E->qs[k] : se;
        src = earlier ? k : src;
    }
    *t = te;
    *seq = se;
    return src;
}

/* The earliest pending event's time and seq (INT64_MAX and 0: none), and
 * where it is: queue k, or PEV_NQ for the heap. */
static inline int pev_next(const pev_set *E, int64_t *t, uint64_t *seq)
{
#ifndef NDEBUG
    int64_t ft;
    uint64_t fs;
    int fsrc = pev_find_next_(E, &ft, &fs);
    assert(ft == E->next_t && fs == E->next_seq && (ft == INT64_MAX || fsrc == E->next_src)); /* kept up to date */
#endif
    *t = E->next_t;
    *seq = E->next_seq;
    return E->next_src;
}

/* The first event of `src` (pev_next's) leaves. */
pev pev_take(pev_set *E, int src);

#endif
