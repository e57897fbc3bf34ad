/* playev: see playev.h for the contract. */
#include "playev.h"

#include <stdlib.h>

/* The earliest pending event found anew (after one left). */
static void refresh_next(pev_set *E) { E->next_src = pev_find_next_(E, &E->next_t, &E->next_seq); }

/* An event (t, seq) just joined src: it may be the earliest. */
static void note_next(pev_set *E, int64_t t, uint64_t seq, int src)
{
    if (pev_before(t, seq, E->next_t, E->next_seq)) {
        E->next_t = t;
        E->next_seq = seq;
        E->next_src = src;
    }
}

void pev_reset(pev_set *E)
{
    E->hn = 0;
    E->seq = 0;
    for (int k = 0; k < PEV_NQ; k++) {
        E->q[k].head = E->q[k].tail = 0;
        E->qt[k] = INT64_MAX;
        E->qs[k] = 0;
    }
    E->oom = 0;
    E->next_t = INT64_MAX;
    E->next_seq = 0;
    E->next_src = PEV_NQ;
}

void pev_free(pev_set *E)
{
    free(E->h);
    E->h = NULL;
    E->hn = E->hcap = 0;
    for (int k = 0; k < PEV_NQ; k++) {
        free(E->q[k].v);
        E->q[k] = (pev_queue_){0};
    }
}

static void heap_push(pev_set *E, int64_t t, uint64_t seq, uint32_t id, uint32_t gen)
{
    if (E->hn == E->hcap) {
        size_t nc = E->hcap ? E->hcap * 2 : 1024;
        pev *nh = realloc(E->h, nc * sizeof *nh);
        if (!nh) {
            E->oom = 1;
            return;
        }
        E->h = nh;
        E->hcap = nc;
    }
    pev e = {.t = t, .seq = seq, .id = id, .gen = gen};
    size_t i = E->hn++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!pev_before(t, seq, E->h[p].t, E->h[p].seq))
            break;
        E->h[i] = E->h[p];
        i = p;
    }
    E->h[i] = e;
    note_next(E, t, seq, PEV_NQ);
}

void pev_push(pev_set *E, int64_t t, uint32_t id, uint32_t gen) { heap_push(E, t, E->seq++, id, gen); }

/* The earliest event leaves the heap: the hole goes down along the smaller
 * children to a leaf, then the last event climbs from there (Floyd). */
static pev heap_pop(pev_set *E)
{
    pev top = E->h[0], last = E->h[--E->hn];
    size_t i = 0, n = E->hn;
    if (n == 0)
        return top;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        c += c + 1 < n && pev_before(E->h[c + 1].t, E->h[c + 1].seq, E->h[c].t, E->h[c].seq);
        E->h[i] = E->h[c];
        i = c;
    }
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!pev_before(last.t, last.seq, E->h[p].t, E->h[p].seq))
            break;
        E->h[i] = E->h[p];
        i = p;
    }
    E->h[i] = last;
    return top;
}

void pev_schedule(pev_set *E, int k, int64_t t, uint32_t id, uint32_t gen)
{
    pev_queue_ *q = &E->q[k];
    uint64_t seq = E->seq++;
    if (q->head != q->tail && q->v[(q->tail - 1) & (q->cap - 1)].t > t) {
        heap_push(E, t, seq, id, gen);
        return;
    }
    if (q->tail - q->head == q->cap) {
        size_t n = q->tail - q->head, nc = q->cap ? q->cap * 2 : 1024;
        pev *nv = malloc(nc * sizeof *nv);
        if (!nv) {
            E->oom = 1;
            return;
        }
        for (size_t i = 0; i < n; i++)
            nv[i] = q->v[(q->head + i) & (q->cap - 1)];
        free(q->v);
        q->v = nv;
        q->cap = nc;
        q->head = 0;
        q->tail = n;
    }
    if (q->head == q->tail) { /* the queue's first: it may be the earliest */
        E->qt[k] = t;
        E->qs[k] = seq;
        note_next(E, t, seq, k);
    }
    q->v[q->tail++ & (q->cap - 1)] = (pev){.t = t, .seq = seq, .id = id, .gen = gen};
}

pev pev_take(pev_set *E, int src)
{
    if (src == PEV_NQ) {
        pev e = heap_pop(E);
        refresh_next(E);
        return e;
    }
    pev_queue_ *q = &E->q[src];
    pev e = q->v[q->head++ & (q->cap - 1)];
    int more = q->head != q->tail;
    E->qt[src] = more ? q->v[q->head & (q->cap - 1)].t : INT64_MAX;
    E->qs[src] = more ? q->v[q->head & (q->cap - 1)].seq : 0;
    refresh_next(E);
    return e;
}
