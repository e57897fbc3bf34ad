/* storeq: see storeq.h for the contract. */
#include "storeq.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A due time's ref: what ends (ANSWERED, DROPPED_SLOT: the lookup's slot;
 * DROPPED_LINE: its place in line) in the top bits, the lookup's id or
 * its line position below. */
#define REF_BITS 61
#define REF_ID ((1ULL << REF_BITS) - 1)
static inline uint64_t ref(storeq_what kind, uint64_t x)
{
    assert(x <= REF_ID); /* ids below 2^61 (storeq_arrive refuses the rest), and line positions */
    return (uint64_t)kind << REF_BITS | x;
}

static inline int due_before(const storeq_due_ *x, const storeq_due_ *y)
{
    return (x->t < y->t) | ((x->t == y->t) & (x->order < y->order)); /* no branches */
}

/* A ring whose positions count up keeps them when it grows: the place at
 * position p moves to p & (new capacity - 1). */
static int ring_grow(void **v, size_t elem, uint64_t *cap, uint64_t head, uint64_t tail)
{
    uint64_t nc = *cap ? *cap * 2 : 1024;
    char *nv = malloc(nc * elem), *ov = *v;
    if (!nv)
        return -1;
    for (uint64_t p = head; p < tail; p++)
        memcpy(nv + (p & (nc - 1)) * elem, ov + (p & (*cap - 1)) * elem, elem);
    free(*v);
    *v = nv;
    *cap = nc;
    return 0;
}

/* Field by field, as report() below. */
static inline void put(storeq_due_ *d, int64_t t, uint64_t order, uint64_t ref, int64_t start)
{
    d->t = t;
    d->order = order;
    d->ref = ref;
    d->start = start;
}

/* Where the earliest due time is. */
enum { SRC_SLOT, SRC_RING, SRC_HEAP };

/* A slot's end into the sorted array (latest first): the ends due before it
 * move up one place.  The array has room for every slot (take_slot).
 * Every end there took its number before this one, so one due at the same
 * ns is earlier: comparing the times is enough. */
static inline void slot_push(storeq *q, int64_t t, uint64_t order, uint64_t ref, int64_t start)
{
    int i = q->busy;
    assert(i < q->nslots);
    while (i > 0 && q->slot[i - 1].t <= t) {
        assert(q->slot[i - 1].order < order);
        q->slot[i] = q->slot[i - 1];
        i--;
    }
    assert(i == 0 || q->slot[i - 1].order < order); /* numbers count up */
    put(&q->slot[i], t, order, ref, start);
}

static inline int heap_push(storeq *q, int64_t t, uint64_t order, uint64_t ref, int64_t start)
{
    if (q->hn == q->hcap) {
        uint64_t nc = q->hcap ? q->hcap * 2 : 64;
        storeq_due_ *nh = realloc(q->heap, nc * sizeof *nh);
        if (!nh)
            return -1;
        q->heap = nh;
        q->hcap = nc;
    }
    uint64_t i = q->hn++;
    while (i > 0) {
        uint64_t p = (i - 1) / 2;
        if (!((t < q->heap[p].t) | ((t == q->heap[p].t) & (order < q->heap[p].order))))
            break;
        q->heap[i] = q->heap[p];
        i = p;
    }
    put(&q->heap[i], t, order, ref, start);
    return 0;
}

/* The earliest leaves the heap: the hole goes down along the earlier
 * children to a leaf, then the last one climbs from there (Floyd). */
static inline void heap_pop(storeq *q, storeq_due_ *top)
{
    assert(q->hn > 0);
    *top = q->heap[0];
    storeq_due_ last = q->heap[--q->hn];
    uint64_t i = 0, n = q->hn;
    if (n == 0)
        return;
    assert(!due_before(&last, top)); /* the heap gives its due times in (time, number) order */
    for (;;) {
        uint64_t c = 2 * i + 1;
        if (c >= n)
            break;
        c += c + 1 < n && due_before(&q->heap[c + 1], &q->heap[c]);
        q->heap[i] = q->heap[c];
        i = c;
    }
    while (i > 0) {
        uint64_t p = (i - 1) / 2;
        if (!due_before(&last, &q->heap[p]))
            break;
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = last;
}

/* A budget in line whose lookup has left the line is due no more. */
static inline int stale(const storeq *q, const storeq_due_ *d)
{
    return d->ref >> REF_BITS == STOREQ_DROPPED_LINE && (d->ref & REF_ID) < q->lhead;
}

/* After a push of (t, order) into src: it may be the earliest. */
static inline void note_push(storeq *q, int64_t t, uint64_t order, int src)
{
    if (!q->has_next || t < q->next_t || (t == q->next_t && order < q->next_order)) {
        q->next_t = t;
        q->next_order = order;
        q->next_src = src;
        q->has_next = 1;
    }
}

/* After a pop or a move of the line: forget stale budgets at the front,
 * then find the earliest due time again: the earliest slot's end, the
 * ring's first or the heap's top. */
static inline void refresh(storeq *q)
{
    while (q->dhead != q->dtail && stale(q, &q->drops[q->dhead & (q->dcap - 1)]))
        q->dhead++;
    storeq_due_ gone;
    while (q->hn && stale(q, &q->heap[0]))
        heap_pop(q, &gone);
    const storeq_due_ *d = q->busy ? &q->slot[q->busy - 1] : NULL;
    int src = SRC_SLOT;
    if (q->dhead != q->dtail && (!d || due_before(&q->drops[q->dhead & (q->dcap - 1)], d))) {
        d = &q->drops[q->dhead & (q->dcap - 1)];
        src = SRC_RING;
    }
    if (q->hn && (!d || due_before(&q->heap[0], d))) {
        d = &q->heap[0];
        src = SRC_HEAP;
    }
    if (d) {
        q->next_t = d->t;
        q->next_order = d->order;
        q->next_src = src;
        q->has_next = 1;
    } else {
        q->next_t = INT64_MAX;
        q->next_order = 0;
        q->has_next = 0;
    }
}

int storeq_init(storeq *q, int nslots, uint64_t *order)
{
    memset(q, 0, sizeof *q);
    if (nslots < 1)
        return -1;
    q->nslots = nslots;
    q->order = order ? order : &q->own_order;
    q->next_t = INT64_MAX;
    return 0;
}

void storeq_reset(storeq *q)
{
    q->busy = 0;
    q->line_len = 0;
    q->lhead = q->ltail = 0;
    q->dhead = q->dtail = 0;
    q->hn = 0;
    q->next_t = INT64_MAX;
    q->next_order = 0;
    q->has_next = 0;
}

void storeq_free(storeq *q)
{
    free(q->line);
    free(q->slot);
    free(q->drops);
    free(q->heap);
    q->line = NULL;
    q->slot = q->drops = q->heap = NULL;
    q->lcap = q->dcap = q->hcap = 0;
    storeq_reset(q);
}

/* Field by field: a whole struct built on the stack and copied costs a
 * stalled store-to-load forwarding on every event. */
static inline void report(storeq_event *ev, storeq_what what, uint64_t id, int64_t t, int64_t start,
                          int drops, int64_t until)
{
    ev->what = what;
    ev->drops = drops;
    ev->id = id;
    ev->t = t;
    ev->start = start;
    ev->until = until;
}

/* Lookup id takes a slot at now, or with no wait is answered at once.
 * Out of memory: -1, nothing changed. */
static inline int take_slot(storeq *q, uint64_t id, int64_t planned, int64_t deadline, int64_t now,
                            storeq_event *ev)
{
    if (planned == 0) {
        report(ev, STOREQ_ANSWERED, id, now, now, 0, 0);
        return 0;
    }
    if (!q->slot && !(q->slot = malloc((size_t)q->nslots * sizeof *q->slot)))
        return -1;
    int64_t target = now + planned;
    int drops = deadline && deadline < target;
    int64_t until = drops ? deadline : target;
    uint64_t order = *q->order;
    slot_push(q, until, order, ref(drops ? STOREQ_DROPPED_SLOT : STOREQ_ANSWERED, id), now);
    note_push(q, until, order, SRC_SLOT);
    *q->order = order + 1;
    q->busy++;
    assert(q->busy <= q->nslots); /* never more lookups in slots than slots */
    report(ev, STOREQ_STARTED, id, now, now, drops, until);
    return 0;
}

/* The budget of the lookup at line position pos runs out at t: into the
 * ring when that keeps the ring in time order, else into the heap. */
static int line_budget(storeq *q, uint64_t pos, int64_t t)
{
    uint64_t order = *q->order, r = ref(STOREQ_DROPPED_LINE, pos);
    int in_heap = q->dhead != q->dtail && q->drops[(q->dtail - 1) & (q->dcap - 1)].t > t;
    if (in_heap) {
        if (heap_push(q, t, order, r, STOREQ_NONE) != 0)
            return -1;
    } else {
        /* the ring stays in (time, number) order: times never go back, numbers count up */
        assert(q->dhead == q->dtail || q->drops[(q->dtail - 1) & (q->dcap - 1)].t <= t);
        if (q->dtail - q->dhead == q->dcap &&
            ring_grow((void **)&q->drops, sizeof *q->drops, &q->dcap, q->dhead, q->dtail) != 0)
            return -1;
        put(&q->drops[q->dtail++ & (q->dcap - 1)], t, order, r, STOREQ_NONE);
    }
    note_push(q, t, order, in_heap ? SRC_HEAP : SRC_RING);
    *q->order = order + 1;
    return 0;
}

int storeq_arrive(storeq *q, int64_t now, uint64_t id, int64_t planned, int64_t budget,
                  storeq_event *ev)
{
    if (planned < 0 || id > REF_ID)
        return -1;
    assert(q->nslots >= 1 && q->busy >= 0 && q->busy <= q->nslots); /* a queue storeq_init accepted */
    if (budget < 0) { /* run out already */
        report(ev, STOREQ_DROPPED_LINE, id, now, STOREQ_NONE, 0, 0);
        return 0;
    }
    int64_t deadline = budget == 0 ? 0 : budget > INT64_MAX - now ? INT64_MAX : now + budget;
    if (storeq_open(q))
        return take_slot(q, id, planned, deadline, now, ev);
    /* FIFO: a lookup joins the line only behind others, or when no slot is free */
    assert(q->line_len > 0 || q->busy == q->nslots);
    if (q->ltail - q->lhead == q->lcap &&
        ring_grow((void **)&q->line, sizeof *q->line, &q->lcap, q->lhead, q->ltail) != 0)
        return -1;
    if (deadline && line_budget(q, q->ltail, deadline) != 0)
        return -1;
    q->line[q->ltail++ & (q->lcap - 1)] = (storeq_place_){.id = id, .planned = planned, .deadline = deadline};
    q->line_len++;
    assert((uint64_t)q->line_len <= q->ltail - q->lhead);
    report(ev, STOREQ_QUEUED, id, now, STOREQ_NONE, 0, 0);
    return 0;
}

int storeq_end(storeq *q, int64_t now, storeq_event *ev)
{
    if (!q->has_next || q->next_t > now)
        return 0;
    storeq_due_ d;
    if (q->next_src == SRC_SLOT) {
        assert(q->busy > 0);
        d = q->slot[q->busy - 1]; /* the slot is freed below (busy--) */
    } else if (q->next_src == SRC_HEAP)
        heap_pop(q, &d);
    else
        d = q->drops[q->dhead++ & (q->dcap - 1)];
    /* what ends is what storeq_next named: the earliest by (time, number) */
    assert(d.t == q->next_t && d.order == q->next_order && d.t <= now);
    storeq_what kind = (storeq_what)(d.ref >> REF_BITS);
    uint64_t x = d.ref & REF_ID;
    /* a slot's end comes from the slots' array, a budget in line from the ring or the heap */
    assert((kind == STOREQ_DROPPED_LINE) == (q->next_src != SRC_SLOT));
    if (kind == STOREQ_DROPPED_LINE) {
        storeq_place_ *p = &q->line[x & (q->lcap - 1)];
        /* a budget in line is dropped only when run out, and only while its lookup still waits in line */
        assert(x >= q->lhead && x < q->ltail && p->planned >= 0 && p->deadline && p->deadline == d.t);
        assert(q->line_len > 0);
        report(ev, STOREQ_DROPPED_LINE, p->id, now, STOREQ_NONE, 0, 0);
        p->planned = -1; /* skipped when it reaches the head */
        q->line_len--;
    } else {
        assert(kind == STOREQ_ANSWERED || kind == STOREQ_DROPPED_SLOT);
        assert(q->busy > 0);
        report(ev, kind, x, now, d.start, 0, 0);
        q->busy--;
    }
    refresh(q);
    return 1;
}

int storeq_fill(storeq *q, int64_t now, storeq_event *ev)
{
    while (q->busy < q->nslots && q->lhead != q->ltail) {
        storeq_place_ p = q->line[q->lhead++ & (q->lcap - 1)];
        if (p.planned < 0)
            continue; /* dropped when its budget ran out */
        assert(q->line_len > 0);
        q->line_len--;
        if (p.deadline && now >= p.deadline) { /* spent, though not yet ended */
            report(ev, STOREQ_DROPPED_LINE, p.id, now, STOREQ_NONE, 0, 0);
        } else if (take_slot(q, p.id, p.planned, p.deadline, now, ev) != 0) {
            q->lhead--; /* back at the head */
            q->line_len++;
            return -1;
        }
        refresh(q); /* its budget, if any, is due no more */
        return 1;
    }
    /* the line moves up whenever a slot is free: what is left waits for a slot */
    assert(q->lhead != q->ltail || q->line_len == 0);
    assert(q->busy == q->nslots || q->line_len == 0);
    return 0;
}
