/* play: the playground.  A deterministic simulation of the lab's store and
 * the service's policy that counts time in integer nanoseconds instead of
 * measuring it: no clock and no I/O while a seed runs.
 *
 *   play [--arm NAME[,NAME...]] [--arms lab/arms.tsv] [settings] [--seconds 30]
 *        [--seeds 1-5] [--csv] [--timeline] [--trace] [--summary]
 *
 * The policy is an arm of lab/arms.tsv (--arm H4-r2), or settings, or an arm
 * with some settings changed (--arm H4-r2 --deadline-ms 75 --down 1); the
 * settings are the columns of arms.tsv (see lab/arms.h, the store's fault
 * too: --fault down) and the store's slots; --help lists them with their
 * defaults.  Reading them is lab/playopt.c's job.  Several arms (--arm
 * H4-r2,H4-r2bud) run one after another over the same seeds, each with a
 * simulation of its own, and end with a table of the arms side by side.
 *
 * What is simulated (every choice mirrors the lab's programs):
 * - Tester: the lab tester's Poisson schedule, bit for bit: ut_rng seeded
 *   with 1000003 * seed + 17 (lab/run.c's schedule seed for round = seed),
 *   off += llround(ut_rng_exp(g) * 1e9 / rate) while off < seconds * 1e9.
 *   Request j arrives at off_j.  The tester costs no time, so a deadline
 *   arrives whole (pol_start with budget -1: the arm's own deadline_ms).
 * - Service: costs no time.  Each request runs lab/policy.c itself
 *   (pol_start, pol_on_timer, pol_on_answer); what it asks for is carried
 *   out as the service does: lookups reach the store at once, timer 0 and 1
 *   are events at absolute times (POL_TIMER_KEEP leaves a timer,
 *   POL_TIMER_OFF clears it; a per-request, per-timer generation counter
 *   makes a cleared or re-set timer's old event a no-op), answers reach the
 *   policy at once.  Lookups the policy stops waiting for are not recalled:
 *   they keep their place in the store, as in the lab.  The defences that
 *   look across requests (lab/policy.h: circuit breaker, retry budget,
 *   compartments, adaptive hedge) live in one pol_shared per simulated
 *   service, set up afresh for each seed (pol_shared_init) and handed to
 *   every pol_start, as the service does; a lookup a gate refuses (O B Y)
 *   is tried, not sent: the policy ends it at once and play only counts it.
 *   The breaker's changes reach play through on_brk (lab/playdef.c counts
 *   them and the time in each state).
 * - A second store (an arm with store2 above 0): its own storeq with the
 *   same slots and the same dice, no fault, no connections to lose.
 *   Request j asks row j % rows (rows of --table) and goes to the store
 *   pol_store_of gives (the policy's pol_state.store), every lookup of it.
 *   Both stores' events run in the one order of scheduling.
 * - Store: lab/storeq.c, the very queue lab/store.c runs (slots, one FIFO
 *   line, budget drops).  Lookup (seed, j, attempt) waits
 *   waits_planned_ns(kind, seed, j, attempt), the dice of lab round `seed`.
 * - The store's fault (lab/faults.h, the arm's `fault`), with t0 = 0 and
 *   the window of fault_window_of(fault, --seconds).  A lookup's fate is
 *   fault_lookup's, decided when it reaches the store (round = seed, row =
 *   j % the table's rows): down, never and flaky answer *unavailable* at
 *   once, missing *not found* at once (no slot); hang holds it to the
 *   window's end, then answers *unavailable* (no slot).  reset: at the
 *   window's start the store forgets every lookup it holds (a slot's time
 *   ends there) and the service loses all its connections (--store-conns,
 *   2 as the service): every lookup a request waits for is lost
 *   (POL_ANS_LOST), and every lookup while there is no connection is
 *   refused at once, not sent (POL_ANS_REFUSED).  Connection c tries again
 *   at from + the sum of pol_reconnect_ns(seed, c, 0, k) over k = 0, 1 ...,
 *   each try in the window refused, until one at or after the window's end
 *   connects; the first connection back ends the refusals.  (In the lab
 *   the connections are lost one after another and a retry may go out on
 *   the one not yet closed; here both go at the same ns.)  Every answer
 *   goes through pol_on_answer, as in the service.
 * - Events run in order of (time in ns, order of scheduling); an arrival at
 *   the same ns as an event comes after it.  So every tie resolves the same
 *   way every time (an answer due at the very ns its try runs out is on time
 *   when its slot was taken before the timer was set).  The store's due
 *   times take their numbers from play's own counter, so its events and
 *   play's timers run in that one order.  Pending timers sit in a binary
 *   heap, or, when not earlier than the last one there, in one of two
 *   queues in time order (timer 0, timer 1), which is cheaper and changes
 *   no order.  A timer due after a live answer the policy still waits for
 *   gets no event: it would find the request answered.  Arrivals stop after
 *   --seconds; the run goes on until no event is left: every request
 *   answered, every lookup ended (the lab's tester stops waiting after 10 s;
 *   here nothing is cut off), except a lookup a hang holds to the run's end
 *   (hang@0.5-end): with no limit its request is never answered (lost).
 * So seed k of play meets the same arrivals and waits as round k of the lab
 * at the same rate and length; only the machine's own time is missing.
 *
 * Output (lab/playout.c): a line naming every setting, then per seed
 * (statistics as DESIGN.md section 7 defines them):
 *   p99_ms          slowest 1 in 100 of the answered requests, from arrival
 *                   to answer (linear interpolation between closest ranks)
 *   standin_share   stand-in answers / requests
 *   lookups_per_request  lookups sent to the stores / requests
 *   longest_line    the most lookups waiting in a store's line at once
 *   flooded         yes when, in 3 seconds of arrival in a row, more than
 *                   half of the requests got a stand-in or a 504 (a bad
 *                   second without retries clears within a second; a flood
 *                   does not: seeds that tip late in a run stay below a 30%
 *                   share over the whole run, so a share would miss them)
 *   flood_from_s    the first of those seconds
 *   error_share     504s / requests (arms without a stand-in)
 *   slot_ms_per_request  slot time held in the stores / requests (their work)
 * then, with a fault, lab/playwin.c's figures (named as in
 * pipeline/RESULTS.md): lost (requests never answered), store_E, _N, _H, _R
 * (lookups the store answered unavailable, not found, held, cut),
 * lookup_ends_R (not sent: no connection), conn_lost, conn_failed,
 * conn_regained, and for a window its before/during/after counts,
 * during_lookups_per_request, first_live_after_ms, recovered_s,
 * before_lookups_100ms and recovery_lookups_100ms_max (a line and a small
 * table under the seed's row; CSV columns, empty without one); then the
 * defences' figures (lab/playdef.h: brk_opened ... brk_closed_ms,
 * breaker_refused, budget_refused, inflight_refused, retries_passed, and
 * the two stores' storeN_requests, _live_share, _p99_ms, over the run and
 * for the requests arriving in the window; text: a line or two under the
 * row when they apply, CSV: columns, empty where null), and in CSV the
 * arm's name last; then a row of medians over the seeds (text only, with a
 * line of the other figures' medians that are not null; --summary prints
 * only these), and a last line with the
 * simulated lookups and lookups per second of wall time (the clock is read
 * between seeds only; with --csv this line goes to stderr, so that stdout is
 * the same for the same settings and seeds).  --csv adds the counts.
 * --timeline adds, per second: requests arriving, lookups sent, stand-ins +
 * 504s among the requests arriving, and the longest line.  --trace adds,
 * per request: arrival, answer, kind (L live, S stand-in, E 504) and store
 * (1 or 2), and each lookup's start and end code as service.tsv.gz's aK_out
 * (O B Y: refused by a gate, start = end).  Several arms, or --summary,
 * end with the arms side by side (text only): per arm the flooded seeds
 * and the medians (means, largest) that tell the defences apart.
 *
 * Exit: 0; 2 for bad settings (one message naming the option); 1 when out of
 * memory.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms.h"
#include "faults.h"
#include "opt.h"
#include "playopt.h"
#include "playdef.h"
#include "playev.h"
#include "playout.h"
#include "playwin.h"
#include "policy.h"
#include "storeq.h"
#include "util.h"
#include "waits.h"

#define NS_PER_S 1000000000LL
#define FLOOD_RUN 3 /* seconds in a row with most requests missed */
#define NL POL_MAX_LOOKUPS /* lookup ids per request: request * NL + attempt */
/* An event of the store's fault (id with this bit; gen says which), not a timer. */
#define EV_FAULT 0x80000000u
enum { FEV_RELEASE, FEV_CUT, FEV_BACK }; /* a held lookup answered; a reset's start; a connection back */

typedef play_second second;

/* One simulation.  The arrays are kept from seed to seed (grown when needed),
 * so a seed after the first touches no new memory. */
typedef struct {
    const arm *a;
    uint32_t seed;
    int timeline, trace;
    /* the service's shared defences (lab/policy.h), one per simulated
     * service; `shared` is NULL for an arm without any */
    pol_shared *shared;
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
    /* requests: t[r] is the arrival until r is answered, then its latency */
    size_t n, ncap;
    int64_t *t;
    int64_t t_last; /* the last arrival */
    pol_state *ps;
    uint32_t *gen; /* 2 per request: the timers' generations */
    uint8_t *done;
    int64_t *okdue; /* the earliest answer due from a slot (not a drop), or INT64_MAX */
    uint8_t *okatt; /* and its attempt */
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
} sim;

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

/* Carry out what store k's queue reports: answers go to the service;
 * the counts and the earliest answer due are noted. */
static void on_store(sim *S, int k, const storeq_event *e)
{
    uint32_t lid = (uint32_t)e->id, r = lid / NL;
    switch (e->what) {
    case STOREQ_QUEUED: {
        size_t len = (size_t)storeq_line(&S->store[k]);
        if (len > S->line_max)
            S->line_max = len;
        if (S->timeline) {
            second *s = sec_at(S, e->t);
            if (s && len > s->line_max)
                s->line_max = (uint32_t)len;
        }
        break;
    }
    case STOREQ_STARTED:
        S->slot_ns += e->until - e->t;
        if (S->luntil && k == 0)
            S->luntil[lid] = e->until;
        if (!e->drops && e->until < S->okdue[r]) {
            S->okdue[r] = e->until;
            S->okatt[r] = (uint8_t)(lid % NL);
        }
        break;
    case STOREQ_ANSWERED:
        if (S->luntil && k == 0)
            S->luntil[lid] = e->t;
        deliver(S, lid, POL_ANS_OK);
        break;
    case STOREQ_DROPPED_SLOT:
        if (S->luntil && k == 0)
            S->luntil[lid] = e->t;
        deliver(S, lid, POL_ANS_DROPPED);
        break;
    case STOREQ_DROPPED_LINE:
        deliver(S, lid, POL_ANS_DROPPED);
        break;
    }
}

/* Lookup lid reaches store k at `now` carrying `budget` (0: none).  At the
 * first store its fate in the fault scenario first (lab/faults.c, the
 * store's own dice): unavailable or not found at once, or held to the
 * window's end; else the queue.  The second store has no fault. */
static void store_arrive(sim *S, int k, uint32_t lid, int64_t budget, int64_t now)
{
    uint32_t r = lid / NL, att = lid % NL;
    if (S->fk != FAULT_NONE && k == 0) {
        switch (fault_lookup(&S->a->fault, &S->w, S->seed, r, att, r % S->rows, now)) {
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
    int64_t planned = waits_planned_ns(S->a->wait, S->seed, r, att);
    if (storeq_arrive(&S->store[k], now, lid, planned, budget, &e) != 0) {
        S->oom = 1;
        return;
    }
    on_store(S, k, &e);
}

/* Store k's next slot end or budget, due at `now`, and the line moving up. */
static void store_due(sim *S, int k, int64_t now)
{
    storeq_event e;
    if (storeq_end(&S->store[k], now, &e))
        on_store(S, k, &e);
    int rc;
    while ((rc = storeq_fill(&S->store[k], now, &e)) > 0)
        on_store(S, k, &e);
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
        if (S->done[r] || !S->ps[r].waiting || S->ps[r].store != 0)
            continue;
        S->okdue[r] = INT64_MAX; /* no answer is due from a slot any more */
        for (uint32_t k = 0; k < NL; k++)
            if (S->ps[r].waiting >> k & 1u)
                deliver(S, (uint32_t)r * NL + k, POL_ANS_LOST);
    }
}

static void fault_event(sim *S, const pev *e, size_t narrived, int64_t now)
{
    if (e->gen == FEV_RELEASE)
        deliver(S, e->id & ~EV_FAULT, POL_ANS_UNAVAILABLE);
    else if (e->gen == FEV_CUT)
        reset_cut(S, narrived, now);
    else
        S->connected = 1;
}

/* ------------------------------------------------------------ the service */

/* Carry out what the policy asked for (lab/service.c, act): its lookups go
 * to the request's store.  Without a connection to the first store a
 * lookup for it is not sent: refused at once.  A lookup a gate refused
 * (O B Y) was tried, not sent: only counted. */
static void apply(sim *S, uint32_t r, const pol_action *o, int64_t now)
{
    int st = S->ps[r].store;
    for (int k = 0; k < o->nsend; k++) {
        uint32_t lid = r * NL + (uint32_t)o->send[k].attempt;
        pdef_tried(&S->def, o->send[k].attempt, 0);
        if (S->lsend)
            S->lsend[lid] = now;
        if (S->lout)
            S->lout[lid] = 'P';
        if (!S->connected && st == 0) {
            S->win.c.lookup_ends_R++;
            deliver(S, lid, POL_ANS_REFUSED);
            continue;
        }
        S->lookups++;
        pwin_sent(&S->win, now);
        if (S->timeline) {
            second *s = sec_at(S, now);
            if (s)
                s->lookups++;
        }
        store_arrive(S, st, lid, o->send[k].budget_ns, now);
    }
    if (S->shared)
        for (int k = 0; k < NL; k++) {
            char c = o->ended[k];
            if (c == 'O' || c == 'B' || c == 'Y') {
                pdef_tried(&S->def, k, c);
                if (S->lsend)
                    S->lsend[r * NL + (uint32_t)k] = now;
            }
        }
    if (S->lsend) /* how each lookup ended: unanswered ones for the window, codes for the trace */
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
    if (o->done != POL_PENDING) {
        S->done[r] = (uint8_t)o->done;
        pwin_answer(&S->win, S->t[r], o->done, now);
        if (S->ans)
            S->ans[r] = now;
        if (o->done != POL_LIVE) {
            if (o->done == POL_STANDIN)
                S->standins++;
            else
                S->errors++;
            second *s = sec_at(S, S->t[r]);
            if (s)
                s->missed++;
        }
        S->t[r] = now - S->t[r]; /* the latency from here on */
    }
}

/* The breaker changed state (pol_shared's on_brk): counted. */
static void on_brk(const pol_brk_event *e, void *ctx) { pdef_brk(&((sim *)ctx)->def, e); }

static void drain_answers(sim *S, int64_t now)
{
    while (S->dhead != S->dtail && !S->oom) {
        uint32_t v = S->dq[S->dhead++ & (S->dcap - 1)];
        uint32_t lid = v / 8, r = lid / NL;
        if (S->done[r])
            continue; /* nobody waits for it any more */
        pol_action o;
        pol_on_answer(&S->ps[r], S->a, (int)(lid % NL), (int)(v & 7), now, &o);
        apply(S, r, &o, now);
    }
}

/* One seed, from the first arrival until no event is left.  0, or -1 when
 * out of memory. */
static int simulate(sim *S, const int64_t *arrive)
{
    size_t ia = 0;
    for (;;) {
        if (S->oom || S->ev.oom)
            return -1;
        /* the earliest of play's events and the stores' next, by time and
         * then order of scheduling; or the next arrival */
        int64_t te;
        uint64_t se;
        int src = pev_next(&S->ev, &te, &se);
        int store = -1; /* or the store whose event is the earliest */
        for (int k = 0; k < S->nstores; k++) {
            uint64_t ss;
            int64_t ts = storeq_next(&S->store[k], &ss);
            if (pev_before(ts, ss, te, se)) {
                te = ts;
                se = ss;
                store = k;
            }
        }
        int64_t ta = ia < S->n ? arrive[ia] : INT64_MAX;
        if (te == INT64_MAX && ta == INT64_MAX)
            break;
        int64_t now;
        pol_action o;
        if (ta < te) { /* a request arrives */
            now = ta;
            uint32_t r = (uint32_t)ia++;
            pol_start(&S->ps[r], S->shared, S->a, S->seed, r, r % S->rows, now, -1, &o);
            apply(S, r, &o, now);
        } else if (store >= 0) {
            now = te;
            store_due(S, store, now);
        } else {
            pev e = pev_take(&S->ev, src);
            now = e.t;
            uint32_t r = e.id / 2;
            if (e.id & EV_FAULT)
                fault_event(S, &e, ia, now);
            else if (!S->done[r] && S->gen[e.id] == e.gen) {
                pol_on_timer(&S->ps[r], S->a, (int)(e.id & 1), now, &o);
                apply(S, r, &o, now);
            }
        }
        drain_answers(S, now);
    }
    return 0;
}

/* --------------------------------------------------------------- results */


static void swap64(int64_t *x, int64_t *y)
{
    int64_t t = *x;
    *x = *y;
    *y = t;
}

/* Put the k-th smallest of v[0..n) at v[k], smaller ones before it. */
static void select_k(int64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap64(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap64(&v[hi], &v[lo]);
        if (v[hi] < v[mid])
            swap64(&v[hi], &v[mid]);
        int64_t piv = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < piv)
                i++;
            while (v[j] > piv)
                j--;
            if (i <= j) {
                swap64(&v[i], &v[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* Percentile p of v (linear between closest ranks); v is reordered. */
static double percentile(int64_t *v, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    select_k(v, n, lo);
    double x = (double)v[lo];
    if (lo + 1 < n) {
        int64_t next = v[lo + 1];
        for (size_t i = lo + 2; i < n; i++)
            if (v[i] < next)
                next = v[i];
        x += (h - (double)lo) * ((double)next - x);
    }
    return x;
}

static void sim_free(sim *S)
{
    void *v[] = {S->t, S->ps, S->gen, S->done, S->okdue, S->okatt, S->lsend, S->lout, S->arr, S->ans, S->luntil,
                 S->dq, S->sec, S->rstore, S->shared};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        free(v[i]);
    pev_free(&S->ev);
    for (int k = 0; k < 2; k++)
        storeq_free(&S->store[k]);
    pwin_free(&S->win);
    pdef_free(&S->def);
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
    GROW(t, sizeof *S->t, 1);
    GROW(ps, sizeof *S->ps, 1);
    GROW(gen, 2 * sizeof *S->gen, 1);
    GROW(done, 1, 1);
    GROW(okdue, sizeof *S->okdue, 1);
    GROW(okatt, 1, 1);
    GROW(lsend, NL * sizeof *S->lsend, track);
    GROW(lout, NL, S->trace);
    GROW(arr, sizeof *S->arr, S->trace || S->nstores == 2);
    GROW(ans, sizeof *S->ans, S->trace);
    GROW(luntil, NL * sizeof *S->luntil, S->fk == FAULT_RESET);
    GROW(rstore, 1, S->nstores == 2);
    S->ncap = nc;
    return 0;
}

/* The tester's schedule (lab/tester.c, make_schedule) into S->t, and the
 * per-request arrays grown to hold it.  0, or -1 when out of memory. */
static int arrivals(sim *S, double seconds, uint32_t seed)
{
    S->n = 0;
    ut_rng g;
    ut_rng_seed(&g, 1000003ULL * seed + 17);
    int64_t span = (int64_t)llround(seconds * 1e9), off = 0;
    for (;;) {
        off += (int64_t)llround(ut_rng_exp(&g) * 1e9 / S->a->rate);
        if (off >= span)
            break;
        if (S->n == S->ncap &&
            grow_requests(S, S->ncap ? S->ncap * 2 : (size_t)(S->a->rate * seconds * 1.2) + 64) != 0)
            return -1;
        S->t[S->n++] = off;
        S->t_last = off;
    }
    return 0;
}

/* Everything counted afresh for a seed of n requests. */
static void reset_counts(sim *S)
{
    size_t n = S->n;
    if (n) {
        memset(S->gen, 0, 2 * n * sizeof *S->gen);
        memset(S->done, 0, n);
        for (size_t j = 0; j < n; j++)
            S->okdue[j] = INT64_MAX;
        if (S->lout)
            memset(S->lout, '-', n * NL);
        if (S->arr)
            memcpy(S->arr, S->t, n * sizeof *S->arr);
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
}

/* Run one seed in S (its arrays kept for the next seed).  0, or -1 when out
 * of memory.  The per-second counts stay in S->sec[0 .. S->nsec). */
static int run_seed(sim *S, double seconds, uint32_t seed, play_result *res)
{
    S->seed = seed;
    int64_t span = (int64_t)llround(seconds * 1e9);
    if (pwin_begin(&S->win, &S->w, span) != 0 || arrivals(S, seconds, seed) != 0)
        return -1;
    reset_counts(S);
    pdef_begin(&S->def, S->a, span);
    for (size_t j = 0, k = 0; j < S->n; k++) { /* requests by second of arrival */
        second *s = sec_at(S, (int64_t)k * NS_PER_S);
        if (!s)
            return -1;
        for (int64_t end = (int64_t)(k + 1) * NS_PER_S; j < S->n && S->t[j] < end; j++) {
            s->req++;
            pwin_arrive(&S->win, S->t[j]);
        }
    }
    if (S->fk == FAULT_RESET) /* before any timer at the same ns */
        pev_push(&S->ev, S->w.from_ns, EV_FAULT, FEV_CUT);
    if (simulate(S, S->t) != 0)
        return -1;
    for (size_t j = 0; S->rstore && j < S->n; j++)
        S->rstore[j] = (uint8_t)S->ps[j].store;
    playdef_requests q = {.n = S->n, .arrive = S->arr, .latency = S->t, .done = S->done, .store = S->rstore,
                          .from = S->w.from_ns, .to = S->w.to_ns};
    if (pdef_figures(&S->def, &q, &res->def) != 0)
        return -1;
    size_t nans = 0; /* the latencies of the answered requests to the front */
    for (size_t j = 0; j < S->n; j++)
        if (S->done[j])
            S->t[nans++] = S->t[j];
    playdef_figs def = res->def;
    memset(res, 0, sizeof *res);
    res->def = def;
    res->seed = seed;
    res->n = S->n;
    S->win.c.lost = S->n - nans;
    res->p99_ms = nans ? percentile(S->t, nans, 0.99) / 1e6 : NAN;
    res->standins = S->standins;
    res->errors = S->errors;
    res->lookups = S->lookups;
    res->line_max = S->line_max;
    res->slot_ns = S->slot_ns;
    pwin_figures(&S->win, &res->win);
    res->flood_from = -1;
    /* seconds of arrival: FLOOD_RUN in a row (all of them in a shorter run) */
    size_t nsec = S->n ? (size_t)(S->t_last / NS_PER_S) + 1 : 0, need = nsec < FLOOD_RUN ? nsec : FLOOD_RUN;
    for (size_t k = 0, run = 0; k < nsec && need; k++) {
        const second *s = &S->sec[k];
        run = s->req && 2 * (uint64_t)s->missed > s->req ? run + 1 : 0;
        if (run == need) {
            res->flood_from = (long)(k + 1 - need);
            break;
        }
    }
    return 0;
}

/* ----------------------------------------------------------------- output */

/* One seed's row and what was asked for under it; its figures for the
 * medians in m (pout_seed). */
static int print_seed(const sim *S, const play_result *R, const playopt *o, const char *name, double m[PF_N])
{
    int had = o->summary && !o->csv ? pout_seed_figures(R, m) /* no row: only its figures */
                                    : pout_seed(R, name, o->csv, S->fk != FAULT_NONE, m);
    if (S->timeline)
        pout_timeline(S->sec, S->nsec, R->seed, o->csv);
    if (S->trace) {
        play_trace t = {.n = S->n, .arrive = S->arr, .answer = S->ans, .lsend = S->lsend, .done = S->done,
                        .store = S->rstore, .lout = S->lout};
        pout_trace(&t, R->seed, o->csv);
    }
    fflush(stdout);
    return had;
}

/* A simulation of arm k, its arrays empty. */
static sim *sim_new(const playopt *o, size_t k)
{
    sim *S = calloc(1, sizeof *S);
    if (!S)
        return NULL;
    const arm *a = &o->arms[k].a;
    S->a = a;
    S->timeline = o->timeline;
    S->trace = o->trace;
    S->w = fault_window_of(&a->fault, o->seconds);
    S->fk = a->fault.kind;
    S->rows = o->arms[k].rows;
    S->conns = o->conns;
    S->nstores = a->store2 > 0 ? 2 : 1;
    for (int i = 0; i < 2; i++)
        (void)storeq_init(&S->store[i], o->slots, &S->ev.seq);
    if (pol_needs_shared(a) && !(S->shared = malloc(sizeof *S->shared))) {
        free(S);
        return NULL;
    }
    return S;
}

/* Arm k over every seed, a row each (unless --summary), then its medians
 * (into sum) and the speed.  0, or 1 when out of memory. */
static int run_arm(const playopt *o, size_t k, play_arm_summary *sum)
{
    double *m[PF_N] = {0}; /* per seed with requests */
    int rc = 1;
    char head[4096];
    playopt_describe(o, k, FLOOD_RUN, head, sizeof head);
    pout_header(head, o->csv, k == 0 || (!o->csv && !o->summary));
    /* on the heap: on this function's stack, beside the event records of
     * the store's calls, the same loop ran 10% slower (measured) */
    sim *S = sim_new(o, k);
    int ok = S != NULL;
    for (int i = 0; i < PF_N; i++)
        ok &= (m[i] = malloc(o->nseeds * sizeof *m[i])) != NULL;
    if (!ok) {
        ut_err("out of memory");
        goto done;
    }
    int64_t wall = 0;
    uint64_t total_lookups = 0;
    size_t nm = 0;
    *sum = (play_arm_summary){.name = o->arms[k].name, .nseeds = o->nseeds};
    for (size_t s = 0; s < o->nseeds; s++) {
        play_result R;
        int64_t t0 = ut_mono_ns(); /* read between runs, never inside one */
        int bad_seed = run_seed(S, o->seconds, o->seeds[s], &R);
        wall += ut_mono_ns() - t0;
        if (bad_seed != 0) {
            ut_err("%s seed %" PRIu32 ": out of memory", o->arms[k].name, o->seeds[s]);
            goto done;
        }
        total_lookups += R.lookups;
        sum->nflood += R.flood_from >= 0;
        double row[PF_N];
        if (print_seed(S, &R, o, o->arms[k].name, row)) /* medians over the seeds with requests */
            for (int i = 0; i < PF_N; i++)
                m[i][nm] = row[i];
        nm += R.n != 0;
    }
    pout_medians(m, nm, sum->nflood, o->nseeds, !o->csv && (nm > 1 || o->summary), sum);
    double secs_wall = (double)wall / 1e9;
    fprintf(o->csv ? stderr : stdout,
            "simulated %" PRIu64 " lookups in %.3f s of wall time: %.2f million lookups a second\n",
            total_lookups, secs_wall, secs_wall > 0 ? (double)total_lookups / secs_wall / 1e6 : 0.0);
    rc = 0;
done:
    if (S)
        sim_free(S);
    free(S);
    for (int i = 0; i < PF_N; i++)
        free(m[i]);
    return rc;
}

int main(int argc, char **argv)
{
    ut_set_prog("play");
    playopt o;
    int rc = playopt_parse(argc, argv, &o);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? 0 : 2;
    play_arm_summary *sum = calloc(o.narms, sizeof *sum);
    rc = sum ? 0 : 1;
    if (!sum)
        ut_err("out of memory");
    for (size_t k = 0; k < o.narms && rc == 0; k++)
        rc = run_arm(&o, k, &sum[k]);
    if (rc == 0 && !o.csv && (o.narms > 1 || o.summary))
        pout_summary(sum, o.narms);
    free(sum);
    playopt_free(&o);
    return rc;
}
