/* playsim: see playsim.h for the contract. */
#include "playsim.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "faults.h"
#include "playdef.h"
#include "playev.h"
#include "playflood.h"
#include "playpct.h"
#include "playwin.h"
#include "policy.h"
#include "storeq.h"
#include "util.h"
#include "waits.h"

#define NS_PER_S 1000000000LL
#define NL POL_MAX_LOOKUPS /* lookup ids per request: request * NL + attempt */
/* An event of the store's fault (id with this bit; gen says which), not a timer. */
#define EV_FAULT 0x80000000u
enum { FEV_RELEASE, FEV_CUT, FEV_BACK, FEV_SEND }; /* a held lookup answered; a reset's start; a connection
                                                    * back; a lookup reaching its store (with noise) */

typedef play_second second;

/* The event loop and what it calls on every event take `plain`, a constant
 * at each call: simulate() is compiled twice (always_inline), once for the
 * plain runs (plain 1: no fault, no noise, no trace, no timeline, one
 * store: every arm of the map) where the branches on those fall away, and
 * once for every other run (plain 0, the same code, every branch kept).
 * PLAIN(x) is x's value in a plain run (0), else x. */
#define HOT static inline __attribute__((always_inline))
#define PLAIN(x) (plain ? 0 : (x))

/* One seed's dice and arrivals, shared by the simulations that run it. */
#define PSIM_NARR 4 /* schedules kept: one per rate and length */
struct psim_seed {
    uint32_t seed;
    int has_seed;
    /* the dice of kinds L and H, by attempt and then request (so that a
     * run's first lookups, most of its draws, sit side by side): -1 not
     * drawn yet */
    int64_t *dice[2][NL];
    size_t ndice[2][NL], capdice[2][NL]; /* entries set to -1 or a draw; room */
    struct {
        int rate;
        int64_t span;
        int valid;
        int64_t *t;
        size_t n, cap;
    } arr[PSIM_NARR];
    int next; /* the schedule to replace next */
};

/* One simulation.  The arrays are kept from seed to seed (grown when needed),
 * so a seed after the first touches no new memory. */
struct psim {
    const arm *a;
    uint32_t seed;
    int timeline, trace, p50;
    int flood_stop, freezes, lean; /* cfg's */
    pflood_watch fw;         /* the flood as the seconds settle (flood_stop) */
    int stop;                /* flooded: the seed stops */
    int frz_busy;            /* freezes holding the first store's slots now (freezes) */
    psim_seed *cache; /* this run's, or NULL */
    int dice_kind;    /* the kept draws of this arm's wait kind: 0 L, 1 H, -1 none kept */
    const int64_t *dice0; /* cache->dice[dice_kind][0] (first lookups: dice_first) and its length, */
    size_t ndice0;        /* NULL and 0 when none is kept; set at each run's start and by dice_slow */
    /* the service's shared defences (lab/core/policy.h), one per simulated
     * service; `shared` is NULL for an arm without any */
    pol_shared *shared; /* NULL for an arm without any */
    pol_shared *shared_mem; /* kept across arms (psim_set_arm) */
    int gates;          /* the arm has a gate that refuses lookups (O B Y) */
    playdef def;        /* their figures */
    uint8_t *rstore;    /* per request: its store, 0 or 1 (with a second store) */
    /* the store's fault (t0 = 0) and the service's connections to it */
    fault_window w;
    int fk;             /* a->fault.kind */
    uint32_t rows;      /* request r asks row r % rows */
    int conns;          /* the service's connections */
    int connected;      /* the service has a connection now */
    playwin win;        /* the window's figures */
    int64_t *lsend;     /* per lookup: when sent or tried (with a window, or --trace) */
    char *lout;         /* per lookup: its end code (--trace) */
    int64_t *arr, *ans; /* per request: its arrival (--trace, a second store), its answer or -1 (--trace) */
    int64_t *luntil;    /* per lookup: when its slot ends or ended (reset), 0: never had one */
    /* the machine's own time (psim_set_noise): the replica, and per lookup
     * the budget it carries and when it was sent, while it is on its way */
    psim_noise noise;
    int noisy;
    int64_t *lbud, *lsent;
    int64_t last_cut; /* the last reset's cut, INT64_MIN: none yet */
    /* requests: arrive[r] its arrival (during a run: the shared seed's
     * schedule, or own's), t[r] its latency once answered */
    size_t n, ncap;
    const int64_t *arrive;
    int64_t *own, *t;
    pol_state *ps;
    uint32_t *gen; /* 2 per request: the timers' generations */
    uint8_t *done;
    int64_t *okdue; /* the earliest answer due from a slot (not a drop), or INT64_MAX */
    uint8_t *okatt; /* and its attempt */
    /* the direct path (below, apply): per request 1 when its one lookup's
     * answer ends it; direct_on: the path is taken in this run */
    uint8_t *direct;
    int direct_on, full_path;
    int64_t direct_win;    /* pol_direct_window without shared defences (direct_start) */
    int64_t direct_budget; /* pol_direct_budget: the arm's, asked once a run */
    int plain; /* no fault, no noise, no trace, no timeline, one store: the loop's plain copy (PLAIN) */
    pev_set ev;      /* pending timers and fault events; its seq is shared with the stores */
    storeq store[2]; /* the first (it has the arm's fault), and a second, healthy one */
    int nstores;     /* 2 when the arm has a second store */
    size_t line_max;
    /* answers on their way to the service, in order (lookup * 8 + answer) */
    uint32_t *dq;
    size_t dcap, dhead, dtail;
    /* counts */
    uint64_t lookups, standins, errors; /* and the fault's counts in win.c */
    int64_t slot_ns;
    second *sec; /* by second */
    size_t nsec, seccap;
    int oom;
};
typedef struct psim sim;

static second *sec_at(sim *S, int64_t t)
{
    size_t k = (size_t)(t / NS_PER_S);
    if (k >= S->seccap) {
        size_t nc = k + 64;
        second *ns = realloc(S->sec, nc * sizeof *ns);
        if (!ns) {
            S->oom = 1;
            return NULL;
        }
        memset(ns + S->seccap, 0, (nc - S->seccap) * sizeof *ns);
        S->sec = ns;
        S->seccap = nc;
    }
    if (k >= S->nsec)
        S->nsec = k + 1;
    return &S->sec[k];
}

/* A ring of uint32 (head and tail count up; the capacity is a power of 2):
 * room for one more, or -1 when out of memory. */
static int ring_room(uint32_t **v, size_t *cap, size_t *head, size_t *tail)
{
    if (*tail - *head < *cap)
        return 0;
    size_t n = *tail - *head, nc = *cap ? *cap * 2 : 1024;
    uint32_t *nv = malloc(nc * sizeof *nv);
    if (!nv)
        return -1;
    for (size_t i = 0; i < n; i++)
        nv[i] = (*v)[(*head + i) & (*cap - 1)];
    free(*v);
    *v = nv;
    *cap = nc;
    *head = 0;
    *tail = n;
    return 0;
}

/* ------------------------------------------------------------- the store */

/* An answer on its way to the service: lookup lid, a POL_ANS_... code. */
static void deliver(sim *S, uint32_t lid, int answer)
{
    if (ring_room(&S->dq, &S->dcap, &S->dhead, &S->dtail) != 0) {
        S->oom = 1;
        return;
    }
    S->dq[S->dtail++ & (S->dcap - 1)] = lid * 8 + (uint32_t)answer;
}

static inline int64_t dice(sim *S, uint32_t r, uint32_t att);

/* Lookup lid's planned wait is a freeze (1 s or more: lab/core/waits.h). */
static int is_freeze(sim *S, uint32_t lid) { return dice(S, lid / NL, lid % NL) >= NS_PER_S; }

/* One more (or one fewer) freeze holding a slot at t: the second's most. */
static void frz_add(sim *S, int d, int64_t t)
{
    S->frz_busy += d;
    if (d > 0) {
        second *s = sec_at(S, t);
        if (s && (uint32_t)S->frz_busy > s->frz_max)
            s->frz_max = (uint32_t)S->frz_busy;
    }
}

HOT void direct_answer(sim *S, int plain, uint32_t r, int64_t now);

/* Carry out what store k's queue reports: answers go to the service;
 * the counts and the earliest answer due are noted. */
HOT void on_store(sim *S, int plain, int k, const storeq_event *e)
{
    uint32_t lid = (uint32_t)e->id, r = lid / NL;
    switch (e->what) {
    case STOREQ_QUEUED:
        break;
    case STOREQ_STARTED:
        if (S->freezes && k == 0 && is_freeze(S, lid))
            frz_add(S, +1, e->t);
        S->slot_ns += e->until - e->t;
        if (PLAIN(S->luntil) && k == 0)
            S->luntil[lid] = e->until;
        /* (a direct request sets no timer: nothing asks when it is due) */
        if (!S->direct[r] && !e->drops && e->until < S->okdue[r]) {
            S->okdue[r] = e->until;
            S->okatt[r] = (uint8_t)(lid % NL);
        }
        break;
    case STOREQ_ANSWERED:
        if (S->freezes && k == 0 && e->start != STOREQ_NONE && is_freeze(S, lid))
            frz_add(S, -1, e->t);
        if (PLAIN(S->luntil) && k == 0)
            S->luntil[lid] = e->t;
        if (S->direct[r])
            direct_answer(S, plain, r, e->t);
        else
            deliver(S, lid, POL_ANS_OK);
        break;
    case STOREQ_DROPPED_SLOT:
        if (S->freezes && k == 0 && is_freeze(S, lid))
            frz_add(S, -1, e->t);
        if (PLAIN(S->luntil) && k == 0)
            S->luntil[lid] = e->t;
        deliver(S, lid, POL_ANS_DROPPED);
        break;
    case STOREQ_DROPPED_LINE:
        deliver(S, lid, POL_ANS_DROPPED);
        break;
    }
}

/* The slow path of dice(): room for request r's draws of attempt att
 * (-1 up to the new end), or the draw itself without a shared seed. */
static __attribute__((noinline)) int64_t dice_slow(sim *S, uint32_t r, uint32_t att)
{
    wait_kind kind = S->a->wait;
    psim_seed *C = S->cache;
    if (!C || (kind != WAIT_H && kind != WAIT_L))
        return waits_planned_ns(kind, S->seed, r, att);
    int k = kind == WAIT_H;
    if (r >= C->ndice[k][att]) { /* not drawn for this seed yet: room, and -1 up to it */
        size_t *cap = &C->capdice[k][att];
        if (r >= *cap) {
            size_t nc = *cap ? *cap : 16384;
            while (nc <= r)
                nc *= 2;
            int64_t *v = realloc(C->dice[k][att], nc * sizeof *v);
            if (!v) {
                S->oom = 1;
                return 0;
            }
            C->dice[k][att] = v;
            *cap = nc;
        }
        memset(C->dice[k][att] + C->ndice[k][att], 0xff, (*cap - C->ndice[k][att]) * sizeof(int64_t));
        C->ndice[k][att] = *cap;
        if (att == 0 && k == S->dice_kind) {
            S->dice0 = C->dice[k][0];
            S->ndice0 = C->ndice[k][0];
        }
    }
    int64_t *v = &C->dice[k][att][r];
    if (*v < 0)
        *v = waits_planned_ns(kind, S->seed, r, att);
    return *v;
}

/* The planned wait of lookup (seed, r, att): the store's dice
 * (lab/core/waits.h), drawn once per seed for every simulation sharing S->cache. */
static inline int64_t dice(sim *S, uint32_t r, uint32_t att)
{
    /* the kept draw when there is one (most calls), else the slow path */
    psim_seed *C = S->cache;
    int k = S->dice_kind;
    if (C && k >= 0 && r < C->ndice[k][att]) {
        int64_t v = C->dice[k][att][r];
        if (v >= 0)
            return v;
    }
    return dice_slow(S, r, att);
}

/* dice(S, r, 0), the first lookup's, without looking for where it is kept. */
static inline int64_t dice_first(sim *S, uint32_t r)
{
    if (r < S->ndice0) {
        int64_t v = S->dice0[r];
        if (v >= 0)
            return v;
    }
    return dice_slow(S, r, 0);
}

/* Lookup lid reaches store k at `now` carrying `budget` (0: none).  At a
 * store with the fault (the first; the second too for slowboth:
 * fault_at_store) its fate in the fault scenario first (lab/core/faults.c,
 * the store's own dice): unavailable or not found at once, or held to the
 * window's end; else the queue, its planned wait the dice plus the
 * store's slowness (fault_slow_ns).  `drawn`: the dice when the caller
 * has them, else -1. */
HOT void store_arrive(sim *S, int plain, int k, uint32_t lid, int64_t budget, int64_t now, int64_t drawn)
{
    uint32_t r = lid / NL, att = lid % NL;
    /* the line it finds, not counting itself: the store's `line` column */
    size_t len = (size_t)storeq_line(&S->store[k]);
    if (len > S->line_max)
        S->line_max = len;
    if (PLAIN(S->timeline)) {
        second *s = sec_at(S, now);
        if (s && len > s->line_max)
            s->line_max = (uint32_t)len;
    }
    int faulty = PLAIN(S->fk != FAULT_NONE && fault_at_store(S->a->fault.kind, k));
    if (faulty) {
        switch (fault_lookup(&S->a->fault, &S->w, S->seed, r, att, S->rows > 1 ? r % S->rows : 0, now)) {
        case FAULT_UNAVAILABLE:
            S->win.c.store_E++;
            deliver(S, lid, POL_ANS_UNAVAILABLE);
            return;
        case FAULT_NOT_FOUND:
            S->win.c.store_N++;
            deliver(S, lid, POL_ANS_NOT_FOUND);
            return;
        case FAULT_HOLD:
            S->win.c.store_H++;
            if (S->w.to_ns != INT64_MAX) /* a window to the end: never answered */
                pev_push(&S->ev, S->w.to_ns, EV_FAULT | lid, FEV_RELEASE);
            return;
        case FAULT_PASS:
            break;
        }
    }
    storeq_event e;
    int64_t planned = (drawn >= 0 ? drawn : dice(S, r, att)) + (PLAIN(S->noisy) ? psim_over_ns(&S->noise, S->seed, lid) : 0) +
                      (faulty ? fault_slow_ns(&S->a->fault, &S->w, now) : 0);
    if (storeq_arrive(&S->store[k], now, lid, planned, budget, &e) != 0) {
        S->oom = 1;
        return;
    }
    on_store(S, plain, k, &e);
}

/* Store k's next slot end or budget, due at `now`, and the line moving up. */
HOT void store_due(sim *S, int plain, int k, int64_t now)
{
    storeq_event e;
    if (storeq_end(&S->store[k], now, &e))
        on_store(S, plain, k, &e);
    int rc;
    while ((rc = storeq_fill(&S->store[k], now, &e)) > 0)
        on_store(S, plain, k, &e);
    if (rc < 0)
        S->oom = 1;
}

/* A reset's start, at `now`: the (first) store closes every connection and
 * forgets the lookups it holds (outcome R; a slot's time ends now); the
 * service has no connection to it: every lookup it waits for there is
 * lost (the second store's are not), and each
 * connection c tries again after pol_reconnect_ns(seed, c, 0, k), k = 0, 1
 * ... failed tries in a row, until the store accepts (at or after the
 * window's end).  The first connection back ends the refusals.  Tries after
 * the schedule's end of a window that never ends are not counted. */
static void reset_cut(sim *S, size_t narrived, int64_t now)
{
    S->win.c.store_R += (uint64_t)storeq_line(&S->store[0]) + (uint64_t)storeq_busy(&S->store[0]);
    for (size_t l = 0; l < narrived * NL; l++)
        if (S->luntil[l] > now)
            S->slot_ns -= S->luntil[l] - now;
    storeq_reset(&S->store[0]);
    S->frz_busy = 0;
    S->connected = 0;
    int64_t back = INT64_MAX, span = S->win.span;
    for (int c = 0; c < S->conns; c++) {
        S->win.c.conn_lost++;
        int64_t t = now;
        for (int k = 0;; k++) {
            t += pol_reconnect_ns(S->seed, c, 0, k);
            if (t >= S->w.to_ns) {
                S->win.c.conn_regained++;
                back = t < back ? t : back;
                break;
            }
            if (t >= span && S->w.to_ns == INT64_MAX)
                break;
            S->win.c.conn_failed++;
        }
    }
    if (back != INT64_MAX)
        pev_push(&S->ev, back, EV_FAULT, FEV_BACK);
    for (size_t r = 0; r < narrived; r++) {
        if (S->done[r] || !S->ps[r].waiting)
            continue;
        for (uint32_t k = 0; k < NL; k++)
            if ((S->ps[r].waiting >> k & 1u) && pol_lookup_store(&S->ps[r], S->a, (int)k) == 0) {
                S->okdue[r] = INT64_MAX; /* not known to be due from a slot any more */
                deliver(S, (uint32_t)r * NL + k, POL_ANS_LOST);
            }
    }
}

static void fault_event(sim *S, const pev *e, size_t narrived, int64_t now)
{
    uint32_t lid = e->id & ~EV_FAULT;
    if (e->gen == FEV_RELEASE) {
        deliver(S, lid, POL_ANS_UNAVAILABLE);
    } else if (e->gen == FEV_CUT) {
        S->last_cut = now;
        reset_cut(S, narrived, now);
    } else if (e->gen == FEV_SEND) {
        if (S->lsent[lid] < S->last_cut) /* lost with the connections it went out on */
            return;
        store_arrive(S, 0, pol_lookup_store(&S->ps[lid / NL], S->a, (int)(lid % NL)), lid, S->lbud[lid], now, -1);
    } else {
        S->connected = 1;
    }
}

/* ------------------------------------------------------------ the service */

/* Request r ends at `now` (done: POL_LIVE, POL_STANDIN ...): counted, and
 * its second's settling noted for the flood's watch. */
HOT void finish(sim *S, int plain, uint32_t r, int done, int64_t now)
{
    S->done[r] = (uint8_t)done;
    if (PLAIN(S->win.on))
        pwin_answer(&S->win, S->arrive[r], done, now);
    if (PLAIN(S->ans != NULL))
        S->ans[r] = now;
    if (done != POL_LIVE) {
        if (done == POL_STANDIN)
            S->standins++;
        else
            S->errors++;
    }
    /* the second it was scheduled in: a miss counted; with the flood stop
     * its settling too (only the watch reads `settled`) */
    second *s = done != POL_LIVE || S->flood_stop ? sec_at(S, S->arrive[r]) : NULL;
    if (s) {
        s->missed += done != POL_LIVE;
        s->settled++;
        /* the watch can move on only when a second has just settled */
        if (S->flood_stop && s->settled == s->req && pflood_watch_step(&S->fw, S->sec, S->nsec))
            S->stop = 1;
    }
    if (!S->lean) /* only the percentiles read it */
        S->t[r] = now - S->arrive[r]; /* its latency */
}

/* Lookup `attempt` of request r goes to store st now, carrying `budget`
 * (0: none; `drawn` its dice, or -1).  Without a connection to the first store a lookup for it is
 * not sent: refused at once. */
HOT void send_lookup(sim *S, int plain, uint32_t r, int attempt, int st, int64_t budget, int64_t now,
                     int64_t drawn)
{
    uint32_t lid = r * NL + (uint32_t)attempt;
    pdef_tried(&S->def, attempt, 0);
    if (PLAIN(S->lsend != NULL))
        S->lsend[lid] = now;
    if (PLAIN(S->lout != NULL))
        S->lout[lid] = 'P';
    if (PLAIN(!S->connected) && st == 0) {
        S->win.c.lookup_ends_R++;
        deliver(S, lid, POL_ANS_REFUSED);
        return;
    }
    S->lookups++;
    if (PLAIN(S->win.on))
        pwin_sent(&S->win, now);
    if (PLAIN(S->timeline)) {
        second *s = sec_at(S, now);
        if (s)
            s->lookups++;
    }
    if (PLAIN(S->noisy)) { /* on its way: it reaches the store after the machine's own time */
        S->lbud[lid] = budget;
        S->lsent[lid] = now;
        pev_push(&S->ev, now + psim_noise_ns(&S->noise, S->seed, lid), EV_FAULT | lid, FEV_SEND);
    } else {
        store_arrive(S, plain, st, lid, budget, now, drawn);
    }
}

/* Carry out what the policy asked for (lab/service/service.c, act): its lookups go
 * to their store (pol_lookup_store: the request's, or a hedge2 arm's copy
 * for its hedge).  Without a connection to the first store a
 * lookup for it is not sent: refused at once.  A lookup a gate refused
 * (O B Y) was tried, not sent: only counted. */
HOT void apply(sim *S, int plain, uint32_t r, const pol_action *o, int64_t now)
{
    for (int k = 0; k < o->nsend; k++)
        send_lookup(S, plain, r, o->send[k].attempt, pol_lookup_store(&S->ps[r], S->a, o->send[k].attempt),
                    o->send[k].budget_ns, now, -1);

    if (S->gates)
        for (int k = 0; k < NL; k++) {
            char c = o->ended[k];
            if (c == 'O' || c == 'B' || c == 'Y') {
                pdef_tried(&S->def, k, c);
                if (PLAIN(S->lsend != NULL))
                    S->lsend[r * NL + (uint32_t)k] = now;
            }
        }
    if (PLAIN(S->lsend != NULL)) /* how each lookup ended: unanswered ones for the window, codes for the trace */
        for (uint32_t k = 0; k < NL; k++) {
            char c = o->ended[k];
            if (!c)
                continue;
            if (S->lout)
                S->lout[r * NL + k] = c;
            if (c == 'T' || c == 'C' || c == 'X')
                pwin_unanswered(&S->win, S->lsend[r * NL + k]);
        }
    for (int i = 0; i < 2; i++) {
        if (o->timer[i] == POL_TIMER_KEEP)
            continue;
        uint32_t g = ++S->gen[2 * r + (uint32_t)i];
        /* A timer due after a live answer the policy still waits for would
         * find the request answered: no event for it.  (Until that answer,
         * only a timer fired earlier can stop the policy waiting for it, and
         * such a timer re-sets or clears both timers; a dropped answer of
         * another lookup changes nothing while this one is outstanding; a
         * reset's cut loses the answer, clears okdue and sets the timers
         * anew through the lost answers.) */
        if (o->timer[i] != POL_TIMER_OFF &&
            !(S->okdue[r] < o->timer[i] && (S->ps[r].waiting >> S->okatt[r] & 1u)))
            pev_schedule(&S->ev, i, o->timer[i] > now ? o->timer[i] : now, 2 * r + (uint32_t)i, g);
    }
    if (o->done != POL_PENDING)
        finish(S, plain, r, o->done, now);
}

/* The answer of a direct request (direct_start): the policy's, then the request ends live. */
HOT void direct_answer(sim *S, int plain, uint32_t r, int64_t now)
{
    if (S->shared) /* (without, it does nothing: policy.h) */
        pol_direct_end(S->shared, S->a, now - S->arrive[r], now);
    finish(S, plain, r, POL_LIVE, now);
}

/* Request r, arriving now, is direct (lab/core/policy.h: its first lookup
 * takes a free slot and is due before the policy's window ends): 1, its
 * lookup sent and the policy's shared defences told; else 0, nothing
 * done.  No pol_state: the request needs none (test builds check the
 * full path's pol_start against it where it changes nothing shared). */
HOT int direct_start(sim *S, int plain, uint32_t r, uint32_t row, int64_t now)
{
    int64_t planned = dice_first(S, r);
    assert(planned == dice(S, r, 0));
    if (planned <= 0 || !storeq_open(&S->store[0]))
        return 0;
    /* without shared defences the window is the same for every request (policy.h): asked once a run */
    assert(S->shared || S->direct_win == pol_direct_window(NULL, S->a, now));
    if (planned >= (S->shared ? pol_direct_window(S->shared, S->a, now) : S->direct_win))
        return 0;
    int64_t budget = S->direct_budget;
    assert(budget == pol_direct_budget(S->a));
#ifndef NDEBUG
    if (!S->shared) {
        pol_action o;
        pol_start(&S->ps[r], NULL, S->a, S->seed, r, row, now, -1, &o);
        /* one lookup, attempt 0, the same budget, every timer off or after its answer */
        assert(o.nsend == 1 && o.send[0].attempt == 0 && o.send[0].budget_ns == budget && o.done == POL_PENDING);
        for (int i = 0; i < 2; i++)
            assert(o.timer[i] == POL_TIMER_OFF || o.timer[i] > now + planned);
    }
#else
    (void)row;
#endif
    pol_direct_start(S->shared, S->a, now);
    S->direct[r] = 1;
    send_lookup(S, plain, r, 0, 0, budget, now, planned);
    return 1;
}

/* The breaker changed state (pol_shared's on_brk): counted. */
static void on_brk(const pol_brk_event *e, void *ctx) { pdef_brk(&((sim *)ctx)->def, e); }

HOT void drain_answers(sim *S, int plain, int64_t now)
{
    while (__builtin_expect(S->dhead != S->dtail, 0) && !S->oom) {
        uint32_t v = S->dq[S->dhead++ & (S->dcap - 1)];
        uint32_t lid = v / 8, r = lid / NL;
        if (S->done[r]) { /* nobody waits for it any more; the adaptive limit counts it */
            if (S->a->limit_pm && (int)(v & 7) == POL_ANS_OK)
                pol_late_answer(S->shared, S->a, now - S->ps[r].start[lid % NL]);
            continue;
        }
        pol_action o;
        pol_on_answer(&S->ps[r], S->a, (int)(lid % NL), (int)(v & 7), now, &o);
        apply(S, plain, r, &o, now);
    }
}

/* One seed, from the first arrival until no event is left.  0, or -1 when
 * out of memory.  plain: the run is plain (S->plain; see PLAIN above). */
HOT int simulate_(sim *S, int plain, const int64_t *arrive)
{
    int nstores = plain ? 1 : S->nstores;
    size_t ia = 0;
    uint32_t row = 0; /* the row request ia asks: ia % rows, without dividing */
    int64_t ta = S->n ? arrive[0] : INT64_MAX; /* request ia's arrival, INT64_MAX after the last */
    for (;;) {
        if (__builtin_expect(S->oom | S->ev.oom | S->stop, 0)) { /* one test for the three, most often none */
            if (S->oom || S->ev.oom)
                return -1;
            break;
        }
        /* the earliest of play's events and the stores' next, by time and
         * then order of scheduling; or the next arrival */
        int64_t te;
        uint64_t se;
        int src = pev_next(&S->ev, &te, &se);
        int store = -1; /* or the store whose event is the earliest */
        for (int k = 0; k < nstores; k++) {
            uint64_t ss;
            int64_t ts = storeq_next(&S->store[k], &ss);
            if (pev_before(ts, ss, te, se)) {
                te = ts;
                se = ss;
                store = k;
            }
        }
        if (te == INT64_MAX && ta == INT64_MAX)
            break;
        int64_t now;
        pol_action o;
        if (ta < te) { /* a request arrives */
            now = ta;
            uint32_t r = (uint32_t)ia++;
            ta = ia < S->n ? arrive[ia] : INT64_MAX;
            if (!S->direct_on || !direct_start(S, plain, r, row, now)) {
                pol_start(&S->ps[r], S->shared, S->a, S->seed, r, row, now, -1, &o);
                apply(S, plain, r, &o, now);
            }
            row = row + 1 == S->rows ? 0 : row + 1;
        } else if (store >= 0) {
            now = te;
            store_due(S, plain, store, now);
        } else {
            pev e = pev_take(&S->ev, src);
            now = e.t;
            uint32_t r = e.id / 2;
            if (PLAIN(e.id & EV_FAULT))
                fault_event(S, &e, ia, now);
            else if (!S->done[r] && S->gen[e.id] == e.gen) {
                pol_on_timer(&S->ps[r], S->a, (int)(e.id & 1), now, &o);
                apply(S, plain, r, &o, now);
            }
        }
        drain_answers(S, plain, now);
    }
    return 0;
}

/* simulate_'s two copies, the plain one and the general one.  flatten:
 * every call in them is inlined (the store's queue, play's timers and the
 * policy's functions too, across files with -flto), so an event costs no
 * calls; what they do is unchanged. */
__attribute__((flatten)) static int simulate(sim *S, const int64_t *arrive)
{
    if (S->plain) {
        /* what a plain run leaves out, absent */
        assert(S->fk == FAULT_NONE && !S->noisy && !S->trace && !S->timeline && S->nstores == 1 && !S->win.on);
        assert(!S->lsend && !S->lout && !S->ans && !S->luntil && S->connected);
        return simulate_(S, 1, arrive);
    }
    return simulate_(S, 0, arrive);
}

/* --------------------------------------------------------------- results */


void psim_free(psim *S)
{
    if (!S)
        return;
    void *v[] = {S->own, S->t,  S->ps,  S->gen,    S->done,  S->okdue,   S->okatt, S->direct, S->lsend, S->lout, S->arr,
                 S->ans, S->luntil, S->dq, S->sec, S->rstore, S->shared_mem, S->lbud, S->lsent};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        free(v[i]);
    pev_free(&S->ev);
    for (int k = 0; k < 2; k++)
        storeq_free(&S->store[k]);
    pwin_free(&S->win);
    pdef_free(&S->def);
    free(S);
}

/* One array of `per` bytes a request grown to nc requests (when `want`;
 * else it stays NULL: not kept in this simulation). */
#define GROW(field, per, want)                                                                                  \
    do {                                                                                                       \
        if (want) {                                                                                            \
            void *q_ = realloc(S->field, nc * (per));                                                          \
            if (!q_)                                                                                           \
                return -1;                                                                                     \
            S->field = q_;                                                                                     \
        }                                                                                                      \
    } while (0)

/* The per-request and per-lookup arrays grown to nc requests.  0, or -1. */
static int grow_requests(sim *S, size_t nc)
{
    int track = S->win.on || S->trace;
    GROW(own, sizeof *S->own, 1);
    GROW(t, sizeof *S->t, 1);
    GROW(ps, sizeof *S->ps, 1);
    GROW(gen, 2 * sizeof *S->gen, 1);
    GROW(done, 1, 1);
    GROW(okdue, sizeof *S->okdue, 1);
    GROW(okatt, 1, 1);
    GROW(direct, 1, 1);
    GROW(lsend, NL * sizeof *S->lsend, track);
    GROW(lout, NL, S->trace);
    GROW(arr, sizeof *S->arr, S->trace || S->nstores == 2);
    GROW(ans, sizeof *S->ans, S->trace);
    GROW(luntil, NL * sizeof *S->luntil, S->fk == FAULT_RESET);
    GROW(rstore, 1, S->nstores == 2);
    GROW(lbud, NL * sizeof *S->lbud, S->noisy);
    GROW(lsent, NL * sizeof *S->lsent, S->noisy);
    S->ncap = nc;
    return 0;
}

/* The shared schedule of this rate and span for the seed, or NULL. */
static void *cached_arrivals(psim_seed *C, int rate, int64_t span, size_t *n)
{
    for (int i = 0; C && i < PSIM_NARR; i++)
        if (C->arr[i].valid && C->arr[i].rate == rate && C->arr[i].span == span) {
            *n = C->arr[i].n;
            return C->arr[i].t;
        }
    return NULL;
}

/* S's schedule kept in C for the next simulation of the seed (when memory allows). */
static void keep_arrivals(psim_seed *C, const sim *S, int64_t span)
{
    int i = C->next;
    C->next = (C->next + 1) % PSIM_NARR;
    if (C->arr[i].cap < S->n) {
        int64_t *t = realloc(C->arr[i].t, S->n * sizeof *t);
        C->arr[i].valid = 0;
        if (!t)
            return;
        C->arr[i].t = t;
        C->arr[i].cap = S->n;
    }
    if (S->n)
        memcpy(C->arr[i].t, S->own, S->n * sizeof *S->own);
    C->arr[i].n = S->n;
    C->arr[i].rate = S->a->rate;
    C->arr[i].span = span;
    C->arr[i].valid = 1;
}

/* The tester's schedule (lab/core/arrivals.h) as S->arrive: the shared
 * seed's when it has it (not copied), else drawn into S->own (and kept in
 * the shared seed); the per-request arrays grown to hold it.  0, or -1
 * when out of memory. */
static int arrivals(sim *S, double seconds, uint32_t seed)
{
    S->n = 0;
    int64_t span = (int64_t)llround(seconds * 1e9), off = 0;
    size_t nc = 0;
    const int64_t *kept = cached_arrivals(S->cache, S->a->rate, span, &nc);
    if (kept) {
        if (nc > S->ncap && grow_requests(S, nc) != 0)
            return -1;
        S->arrive = kept;
        S->n = nc;
        return 0;
    }
    arrivals_gen g;
    arrivals_start(&g, arrivals_seed(seed), S->a->rate, seconds);
    while ((off = arrivals_next(&g)) >= 0) {
        if (S->n == S->ncap &&
            grow_requests(S, S->ncap ? S->ncap * 2 : (size_t)(S->a->rate * seconds * 1.2) + 64) != 0)
            return -1;
        S->own[S->n++] = off;
    }
    S->arrive = S->own;
    if (S->cache)
        keep_arrivals(S->cache, S, span);
    return 0;
}

/* Everything counted afresh for a seed of n requests. */
static void reset_counts(sim *S)
{
    size_t n = S->n;
    if (n) {
        memset(S->gen, 0, 2 * n * sizeof *S->gen);
        memset(S->done, 0, n);
        memset(S->direct, 0, n);
        for (size_t j = 0; j < n; j++)
            S->okdue[j] = INT64_MAX;
        if (S->lout)
            memset(S->lout, '-', n * NL);
        if (S->arr)
            memcpy(S->arr, S->arrive, n * sizeof *S->arr);
        for (size_t j = 0; S->ans && j < n; j++)
            S->ans[j] = -1;
        if (S->luntil)
            memset(S->luntil, 0, n * NL * sizeof *S->luntil);
    }
    pev_reset(&S->ev);
    for (int k = 0; k < S->nstores; k++)
        storeq_reset(&S->store[k]);
    if (S->shared)
        pol_shared_init(S->shared, S->a, on_brk, S);
    S->line_max = 0;
    S->dhead = S->dtail = 0;
    S->lookups = S->standins = S->errors = 0;
    S->connected = 1;
    S->slot_ns = 0;
    S->nsec = 0;
    if (S->sec)
        memset(S->sec, 0, S->seccap * sizeof *S->sec);
    S->oom = 0;
    S->last_cut = INT64_MIN;
    S->stop = 0;
    S->frz_busy = 0;
}

/* The seed's dice and schedules in C: kept when they are this seed's, else forgotten. */
static void seed_use(psim_seed *C, uint32_t seed)
{
    if (C->has_seed && C->seed == seed)
        return;
    C->seed = seed;
    C->has_seed = 1;
    memset(C->ndice, 0, sizeof C->ndice);
    for (int i = 0; i < PSIM_NARR; i++)
        C->arr[i].valid = 0;
}

/* The most freezes holding slots at once in seconds 0 .. last. */
static int frz_upto(const sim *S, size_t last)
{
    uint32_t m = 0;
    for (size_t k = 0; k <= last && k < S->nsec; k++)
        m = S->sec[k].frz_max > m ? S->sec[k].frz_max : m;
    return (int)m;
}

/* The trigger's size (cfg.freezes) of the seed flooded from from_s (or -1: calm). */
static int frz_trigger(const sim *S, long from_s)
{
    if (!S->freezes)
        return -1;
    return frz_upto(S, from_s >= 0 ? (size_t)from_s : (S->nsec ? S->nsec - 1 : 0));
}

/* The figures of a seed stopped at its flood (cfg.flood_stop). */
static void figures_stopped(sim *S, play_result *res)
{
    uint32_t seed = res->seed;
    memset(res, 0, sizeof *res);
    res->seed = seed;
    res->n = S->n;
    res->p99_ms = res->p50_ms = NAN;
    res->standins = S->standins;
    res->errors = S->errors;
    res->lookups = S->lookups;
    res->stopped = 1;
    res->flood = (pflood){.flooded = 1, .from_s = S->fw.from_s};
    res->frz_trigger = frz_trigger(S, S->fw.from_s);
}

/* The figures of the finished seed into res (its latencies to the front of
 * S->t); with cfg.lean only the map's (playsim.h). */
static int figures(sim *S, double seconds, play_result *res)
{
    for (size_t j = 0; S->rstore && j < S->n; j++)
        S->rstore[j] = (uint8_t)S->ps[j].store;
    playdef_requests q = {.n = S->n, .arrive = S->arr, .latency = S->t, .done = S->done, .store = S->rstore,
                          .from = S->w.from_ns, .to = S->w.to_ns};
    if (!S->lean && pdef_figures(&S->def, &q, &res->def) != 0)
        return -1;
    size_t nans = 0; /* the latencies of the answered requests to the front (not for lean); the others are missed */
    for (size_t j = 0; j < S->n; j++) {
        if (S->done[j]) {
            if (!S->lean)
                S->t[nans] = S->t[j];
            nans++;
        } else {
            second *s = sec_at(S, S->arrive[j]); /* never answered: an error */
            if (!s)
                return -1;
            s->missed++;
        }
    }
    playdef_figs def = res->def;
    uint32_t seed = res->seed;
    memset(res, 0, sizeof *res);
    if (!S->lean)
        res->def = def;
    res->seed = seed;
    res->n = S->n;
    S->win.c.lost = S->n - nans;
    res->p99_ms = nans && !S->lean ? ppct_of(S->t, nans, 0.99) / 1e6 : NAN;
    res->p50_ms = nans && S->p50 && !S->lean ? ppct_of(S->t, nans, 0.5) / 1e6 : NAN;
    res->standins = S->standins;
    res->errors = S->errors;
    res->lookups = S->lookups;
    res->line_max = S->line_max;
    res->slot_ns = S->slot_ns;
    pwin_figures(&S->win, &res->win);
    pflood_of(S->sec, S->nsec, seconds, &res->flood);
    res->frz_trigger = frz_trigger(S, res->flood.from_s);
    return 0;
}

int psim_run(psim *S, double seconds, uint32_t seed, psim_seed *shared, play_result *res)
{
    S->seed = seed;
    S->cache = shared;
    if (shared)
        seed_use(shared, seed);
    S->dice_kind = S->a->wait == WAIT_H ? 1 : S->a->wait == WAIT_L ? 0 : -1;
    S->dice0 = shared && S->dice_kind >= 0 ? shared->dice[S->dice_kind][0] : NULL;
    S->ndice0 = shared && S->dice_kind >= 0 ? shared->ndice[S->dice_kind][0] : 0;
    S->w = fault_window_of(&S->a->fault, seconds);
    int64_t span = (int64_t)llround(seconds * 1e9);
    if (pwin_begin(&S->win, &S->w, span) != 0 || arrivals(S, seconds, seed) != 0)
        return -1;
    reset_counts(S);
    /* the direct path where nothing but the store and the policy sees a
     * request: no fault, no noise, no trace, one store */
    S->direct_on = !S->full_path && S->fk == FAULT_NONE && !S->noisy && !S->trace && !S->lsend && S->nstores == 1;
    S->direct_win = pol_direct_window(NULL, S->a, 0);
    S->direct_budget = pol_direct_budget(S->a);
    S->plain = S->fk == FAULT_NONE && !S->noisy && !S->trace && !S->timeline && S->nstores == 1 && !S->win.on;
    pdef_begin(&S->def, S->a, span);
    /* every second of the run, and the requests by second of arrival */
    size_t nrun = pflood_nsec(seconds);
    if (nrun && !sec_at(S, (int64_t)(nrun - 1) * NS_PER_S))
        return -1;
    for (size_t j = 0, k = 0; j < S->n; k++) {
        second *s = sec_at(S, (int64_t)k * NS_PER_S);
        if (!s)
            return -1;
        int64_t end = (int64_t)(k + 1) * NS_PER_S;
        if (!S->win.on) { /* the second's requests counted by bisection: the first arrival at or after its end */
            size_t lo = j, hi = S->n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (S->arrive[mid] < end)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            s->req += (uint32_t)(lo - j);
            j = lo;
            continue;
        }
        for (; j < S->n && S->arrive[j] < end; j++) {
            s->req++;
            pwin_arrive(&S->win, S->arrive[j]);
        }
    }
    if (S->fk == FAULT_RESET) /* before any timer at the same ns */
        pev_push(&S->ev, S->w.from_ns, EV_FAULT, FEV_CUT);
    pflood_watch_begin(&S->fw, seconds);
    if (simulate(S, S->arrive) != 0)
        return -1;
    res->seed = seed;
    if (S->stop) {
        figures_stopped(S, res);
        return 0;
    }
    return figures(S, seconds, res);
}

void psim_timeline(const psim *S, const play_second **sec, size_t *nsec)
{
    *sec = S->sec;
    *nsec = S->nsec;
}

void psim_trace(const psim *S, play_trace *t)
{
    *t = (play_trace){.n = S->n, .arrive = S->arr, .answer = S->ans, .lsend = S->lsend, .done = S->done,
                      .store = S->rstore, .lout = S->lout};
}

/* The arm and the settings of c; the arrays an arm does not keep freed,
 * those it keeps grown to the requests there is room for.  0, or -1. */
static int set_arm(sim *S, const psim_cfg *c)
{
    const arm *a = c->a;
    S->a = a;
    S->timeline = c->timeline;
    S->trace = c->trace;
    S->p50 = c->p50;
    S->flood_stop = c->flood_stop;
    S->freezes = c->freezes;
    S->lean = c->lean;
    S->full_path = c->full_path;
    S->fk = a->fault.kind;
    S->rows = c->rows ? c->rows : 1;
    S->conns = c->conns;
    S->nstores = arms_stores(a);
    S->win.on = a->fault.kind != FAULT_NONE && fault_window_of(&a->fault, 1.0).from_ns >= 0;
    if (pol_needs_shared(a) && !S->shared_mem && !(S->shared_mem = malloc(sizeof *S->shared_mem)))
        return -1;
    S->shared = pol_needs_shared(a) ? S->shared_mem : NULL;
    S->gates = a->brk_cool_ns > 0 || a->rb_pct > 0 || a->inflight > 0;
    struct {
        void **field;
        int want;
    } opt[] = {{(void **)&S->lsend, S->win.on || S->trace}, {(void **)&S->lout, S->trace},
               {(void **)&S->arr, S->trace || S->nstores == 2}, {(void **)&S->ans, S->trace},
               {(void **)&S->luntil, S->fk == FAULT_RESET}, {(void **)&S->rstore, S->nstores == 2}};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        if (!opt[i].want) {
            free(*opt[i].field);
            *opt[i].field = NULL;
        }
    return S->ncap ? grow_requests(S, S->ncap) : 0;
}

psim *psim_new(const psim_cfg *c)
{
    sim *S = calloc(1, sizeof *S);
    if (!S)
        return NULL;
    for (int i = 0; i < 2; i++)
        (void)storeq_init(&S->store[i], c->slots, &S->ev.seq);
    if (set_arm(S, c) != 0) {
        psim_free(S);
        return NULL;
    }
    return S;
}

int psim_set_arm(psim *S, const psim_cfg *c) { return set_arm(S, c); }

/* scale * Q(u) for the quantiles q[0..nq), u drawn with salt. */
static int64_t qdraw(const psim_noise *n, const int64_t *q, size_t nq, uint32_t seed, uint32_t lid, uint64_t salt)
{
    double u = ut_u64_unit(ut_hash4(n->key, seed, lid, salt)) * (double)(nq - 1);
    size_t i = (size_t)u;
    if (i >= nq - 1)
        i = nq - 2;
    double f = u - (double)i, d = (double)q[i] + f * (double)(q[i + 1] - q[i]);
    return (int64_t)llround(n->scale * d);
}

int64_t psim_noise_ns(const psim_noise *n, uint32_t seed, uint32_t lid)
{
    return qdraw(n, n->q, n->nq, seed, lid, PSIM_NOISE_SALT);
}

int64_t psim_over_ns(const psim_noise *n, uint32_t seed, uint32_t lid)
{
    return n->over && n->nover >= 2 ? qdraw(n, n->over, n->nover, seed, lid, PSIM_OVER_SALT) : 0;
}

int psim_set_noise(psim *S, const psim_noise *n)
{
    if (!n) {
        S->noisy = 0;
        return 0;
    }
    S->noise = *n;
    S->noisy = 1;
    return S->ncap ? grow_requests(S, S->ncap) : 0;
}

psim_seed *psim_seed_new(void) { return calloc(1, sizeof(psim_seed)); }

void psim_seed_free(psim_seed *C)
{
    if (!C)
        return;
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < NL; a++)
            free(C->dice[k][a]);
    for (int i = 0; i < PSIM_NARR; i++)
        free(C->arr[i].t);
    free(C);
}
