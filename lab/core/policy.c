/* policy: see policy.h. */
#include "policy.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define PAUSE_KEY 0x5041555345ULL /* "PAUSE" */
#define SECOND 1000000000LL

static void reset(pol_action *o)
{
    o->nsend = 0;
    for (int k = 0; k < POL_MAX_LOOKUPS; k++)
        o->ended[k] = 0;
    o->timer[0] = o->timer[1] = POL_TIMER_KEEP;
    o->done = POL_PENDING;
}

int64_t pol_pause_ns(const arm *a, uint32_t round, uint32_t req, int k)
{
    if (a->pause == PAUSE_NONE || k < 1)
        return 0;
    double u = ut_u64_unit(ut_hash4(PAUSE_KEY + round, req, (uint64_t)k, 0));
    if (a->pause == PAUSE_FIXED || a->pause == PAUSE_JITTER) {
        if (k > a->npause)
            return 0;
        int64_t p = a->pause_ns[k - 1];
        return a->pause == PAUSE_FIXED ? p : (int64_t)floor(u * (double)p);
    }
    int64_t d = a->pause_ns[0], cap = a->pause_ns[1];
    for (int i = 1; i < k && d < cap; i++)
        d *= 2;
    if (d > cap)
        d = cap;
    if (a->pause == PAUSE_EXP)
        return d;
    if (a->pause == PAUSE_EXPFULL)
        return (int64_t)floor(u * (double)d);
    int64_t h = d / 2;
    return h + (int64_t)floor(u * (double)(d - h));
}

/* ------------------------------------------------- the shared defences */

int pol_needs_shared(const arm *a)
{
    return a->brk_cool_ns > 0 || a->rb_pct > 0 || a->inflight > 0 || a->hedge_p > 0 || a->limit_pm > 0;
}

int pol_store_of(const arm *a, uint32_t row)
{
    return a->store2 > 0 && ut_u64_unit(ut_hash4(POL_STORE2_KEY, row, 0, 0)) * 100.0 < (double)a->store2;
}

int pol_lookup_store(const pol_state *s, const arm *a, int attempt)
{
    return a->hedge2 && attempt == 1 ? 1 : s->store;
}

static void win_init(pol_window *w, int n, int pm, int64_t start);

void pol_shared_init(pol_shared *g, const arm *a, void (*on_brk)(const pol_brk_event *e, void *ctx), void *ctx)
{
    /* the rings and windows are written before they are read (a ring's
     * count, a window's init), so only what comes before them is cleared:
     * play sets one up for each seed of each arm */
    memset(g, 0, offsetof(pol_shared, brk_ring));
    g->arm = a;
    g->brk_state = POL_BRK_CLOSED;
    g->on_brk = on_brk;
    g->ctx = ctx;
    g->bud_req_head = g->bud_req_n = g->bud_retry_head = g->bud_retry_n = 0;
    g->inflight[0] = g->inflight[1] = 0;
    g->brk_ring_n = g->brk_ring_pos = g->brk_ring_fail = 0;
    g->hed.now = a->hedge_ns;
    g->lim.now = a->try_ns;
    if (a->hedge_p)
        win_init(&g->hed, POL_HEDGE_WINDOW, 10 * a->hedge_p, a->hedge_ns);
    if (a->limit_pm)
        win_init(&g->lim, POL_LIMIT_WINDOW, a->limit_pm, a->try_ns);
}

static void brk_log(pol_shared *g, int64_t now, char what, int count, int64_t wait_ns)
{
    pol_brk_event e = {.t = now, .what = what, .count = count, .wait_ns = wait_ns};
    if (g->on_brk)
        g->on_brk(&e, g->ctx);
}

static void brk_counts_clear(pol_shared *g)
{
    g->brk_row = 0;
    g->brk_ring_n = g->brk_ring_pos = g->brk_ring_fail = 0;
    g->brk_probes_out = g->brk_probes_ok = 0;
}

static void brk_open(pol_shared *g, const arm *a, int64_t now, char what, int count)
{
    g->brk_state = POL_BRK_OPEN;
    g->brk_open_at = now;
    g->brk_open_until = now + a->brk_cool_ns;
    brk_counts_clear(g);
    brk_log(g, now, what, count, 0);
}

/* May a lookup go out now?  1 yes (*probe set when it is a probe), 0 no. */
static int brk_allow(pol_shared *g, const arm *a, int64_t now, int *probe)
{
    assert(g->brk_state == POL_BRK_CLOSED || g->brk_state == POL_BRK_OPEN || g->brk_state == POL_BRK_HALF);
    *probe = 0;
    if (g->brk_state == POL_BRK_CLOSED)
        return 1;
    if (g->brk_state == POL_BRK_OPEN) {
        if (now < g->brk_open_until)
            return 0;
        g->brk_state = POL_BRK_HALF;
        g->brk_probes_out = g->brk_probes_ok = 0;
        brk_log(g, now, 'H', 0, now - g->brk_open_at);
    }
    if (g->brk_probes_out + g->brk_probes_ok >= a->brk_probes)
        return 0;
    assert(g->brk_probes_ok < a->brk_probes); /* HALF OPEN closes at brk_probes successes */
    g->brk_probes_out++;
    *probe = 1;
    return 1;
}

/* A lookup's result: 1 success, 0 failure, -1 neither. */
static void brk_record(pol_shared *g, const arm *a, int64_t now, int ok, int probe)
{
    if (g->brk_state == POL_BRK_HALF) {
        if (!probe)
            return;
        g->brk_probes_out--;
        if (ok == 0)
            brk_open(g, a, now, 'P', g->brk_probes_ok);
        else if (ok == 1 && ++g->brk_probes_ok >= a->brk_probes) {
            g->brk_state = POL_BRK_CLOSED;
            brk_counts_clear(g);
            brk_log(g, now, 'K', a->brk_probes, 0);
        }
        return;
    }
    if (g->brk_state != POL_BRK_CLOSED || ok < 0)
        return;
    assert(a->brk_window <= (int)sizeof g->brk_ring);
    int fail = ok == 0;
    g->brk_row = fail ? g->brk_row + 1 : 0;
    if (a->brk_window) {
        if (g->brk_ring_n == a->brk_window)
            g->brk_ring_fail -= g->brk_ring[g->brk_ring_pos];
        else
            g->brk_ring_n++;
        g->brk_ring[g->brk_ring_pos] = (unsigned char)fail;
        g->brk_ring_fail += fail;
        g->brk_ring_pos = (g->brk_ring_pos + 1) % a->brk_window;
        /* the window holds its last brk_window results, brk_ring_fail of them failures */
        assert(g->brk_ring_n <= a->brk_window && g->brk_ring_fail >= 0 && g->brk_ring_fail <= g->brk_ring_n);
    }
    if (a->brk_fails && g->brk_row >= a->brk_fails)
        brk_open(g, a, now, 'O', g->brk_row);
    else if (a->brk_window && g->brk_ring_n == a->brk_window &&
             100LL * g->brk_ring_fail >= (long long)a->brk_share * a->brk_window)
        brk_open(g, a, now, 'W', g->brk_ring_fail);
}

/* Drop the times at or before now - 1 s from a ring; its count left. */
static int ring_trim(const int64_t *v, int *head, int *n, int64_t now)
{
    assert(*n >= 0 && *n <= POL_BUDGET_RING && *head >= 0 && *head < POL_BUDGET_RING);
    while (*n > 0 && v[*head] <= now - SECOND) {
        *head = (*head + 1) % POL_BUDGET_RING;
        (*n)--;
    }
    return *n;
}

static void ring_push(int64_t *v, int *head, int *n, int64_t t)
{
    if (*n == POL_BUDGET_RING) { /* full: the oldest goes */
        *head = (*head + 1) % POL_BUDGET_RING;
        (*n)--;
    }
    v[(*head + *n) % POL_BUDGET_RING] = t;
    (*n)++;
}

static int budget_allows(pol_shared *g, const arm *a, int64_t now)
{
    long long q = ring_trim(g->bud_req, &g->bud_req_head, &g->bud_req_n, now);
    long long r = ring_trim(g->bud_retry, &g->bud_retry_head, &g->bud_retry_n, now);
    return 100 * (r + 1) <= a->rb_pct * q + 100LL * a->rb_floor;
}

static int compartment_full(const pol_shared *g, const arm *a, int store)
{
    if (!a->inflight)
        return 0;
    int used = a->bulkhead ? g->inflight[store] : g->inflight[0] + g->inflight[1];
    return used >= a->inflight;
}

/* The sliding percentiles (pol_window).  Each sample has a key (value,
 * number), numbers counting up, so that no two keys are equal; the
 * nearest-rank percentile is the value of the key at that rank, which is
 * the value at that rank whatever order equal values take.  Only the keys
 * above a threshold key are kept sorted (top, ascending): a new sample
 * below it is only counted, so most samples move nothing.  The threshold
 * is chosen again (win_rebuild: the window's keys, the threshold at a rank
 * WIN_MARGIN below the percentile's) when too few keys are above it to
 * read the percentile there, or too many to move cheaply. */
#define WIN_MARGIN 64
#define WIN_SLACK 256

static int key_above(int64_t v, uint64_t no, int64_t tv, uint64_t tno) { return v > tv || (v == tv && no > tno); }

typedef struct {
    int64_t v;
    uint64_t no;
} win_key;

static int key_cmp(const void *x, const void *y)
{
    const win_key *a = x, *b = y;
    return a->v != b->v ? (a->v > b->v) - (a->v < b->v) : (a->no > b->no) - (a->no < b->no);
}

static void win_rebuild(pol_window *w)
{
    win_key kk[POL_WINDOW_MAX]; /* 64 KB of stack, only when the threshold moves */
    assert(w->n <= POL_WINDOW_MAX);
    for (int i = 0; i < w->n; i++)
        kk[i] = (win_key){w->fifo[i], w->fifo_no[i]};
    qsort(kk, (size_t)w->n, sizeof *kk, key_cmp);
    int t = w->rank0 - WIN_MARGIN; /* the threshold: the key at rank t; above it, ranks t+1 .. */
    if (t < 0) {
        w->tv = INT64_MIN; /* every key above it */
        w->tno = 0;
        t = -1;
    } else {
        w->tv = kk[t].v;
        w->tno = kk[t].no;
    }
    w->ntop = w->n - 1 - t;
    for (int i = 0; i < w->ntop; i++) {
        w->top[i] = kk[t + 1 + i].v;
        w->top_no[i] = kk[t + 1 + i].no;
    }
}

/* A window of n samples, all `start`, read at per-mille percentile pm. */
static void win_init(pol_window *w, int n, int pm, int64_t start)
{
    assert(n >= 1 && n <= POL_WINDOW_MAX && pm >= 1 && pm <= 1000);
    w->n = n;
    w->rank0 = (int)(((long long)pm * n + 999) / 1000) - 1; /* nearest rank: ceil(pm/1000 * n), 0-based */
    for (int i = 0; i < n; i++) {
        w->fifo[i] = start;
        w->fifo_no[i] = (uint64_t)i;
    }
    w->no = (uint64_t)n - 1;
    w->pos = 0;
    win_rebuild(w);
    w->now = start;
}

/* The place in top of the first key at or above (v, no). */
static int top_find(const pol_window *w, int64_t v, uint64_t no)
{
    int lo = 0, hi = w->ntop;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (key_above(v, no, w->top[mid], w->top_no[mid]))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void win_sample(pol_window *w, int64_t v)
{
    int64_t old = w->fifo[w->pos];
    uint64_t old_no = w->fifo_no[w->pos], no = ++w->no;
    w->fifo[w->pos] = v;
    w->fifo_no[w->pos] = no;
    w->pos = (w->pos + 1) % w->n;
    if (key_above(old, old_no, w->tv, w->tno)) { /* the old key leaves top */
        int i = top_find(w, old, old_no);
        assert(i < w->ntop && w->top[i] == old && w->top_no[i] == old_no);
        memmove(w->top + i, w->top + i + 1, (size_t)(w->ntop - 1 - i) * sizeof *w->top);
        memmove(w->top_no + i, w->top_no + i + 1, (size_t)(w->ntop - 1 - i) * sizeof *w->top_no);
        w->ntop--;
    }
    if (key_above(v, no, w->tv, w->tno)) { /* the new one enters it (its number is the largest) */
        int i = top_find(w, v, no);
        memmove(w->top + i + 1, w->top + i, (size_t)(w->ntop - i) * sizeof *w->top);
        memmove(w->top_no + i + 1, w->top_no + i, (size_t)(w->ntop - i) * sizeof *w->top_no);
        w->top[i] = v;
        w->top_no[i] = no;
        w->ntop++;
    }
    int r = w->rank0, below = w->n - w->ntop; /* keys at or under the threshold */
    if (r < below || w->ntop > w->n - r + WIN_MARGIN + WIN_SLACK)
        win_rebuild(w), below = w->n - w->ntop;
    assert(r >= below && r - below < w->ntop);
    w->now = w->top[r - below];
}

void pol_late_answer(pol_shared *g, const arm *a, int64_t latency)
{
    assert(!g || g->arm == a);
    if (g && a->limit_pm)
        win_sample(&g->lim, latency);
}

int64_t pol_limit_now(const pol_shared *g, const arm *a) { return g && a->limit_pm ? g->lim.now : a->try_ns; }

/* ------------------------------------------------------ one request */

/* A lookup of store st waited for ends with `code` at `latency` after it
 * was sent (probe: it was the breaker's probe): what the shared defences
 * count of it. */
static void shared_ended(pol_shared *g, const arm *a, int st, char code, int probe, int64_t latency, int64_t now)
{
    assert(g->inflight[st] > 0); /* every lookup waited for holds a place in its compartment */
    g->inflight[st]--;
    if (a->brk_cool_ns) {
        int ok = code == 'A' || code == 'N' ? 1 : code == 'C' ? -1 : 0;
        brk_record(g, a, now, ok, probe);
    }
    if (a->hedge_p && code == 'A')
        win_sample(&g->hed, latency);
    if (a->limit_pm && code == 'A')
        win_sample(&g->lim, latency);
}

/* Lookup k is no longer waited for; code is what is logged for it. */
static void lookup_ended(pol_state *s, const arm *a, int k, char code, int64_t now, pol_action *o)
{
    assert(k >= 0 && k < s->sent && (s->waiting & (1u << k))); /* only a lookup waited for ends */
    s->waiting &= ~(1u << k);
    o->ended[k] = code;
    if (s->g)
        shared_ended(s->g, a, pol_lookup_store(s, a, k), code, (s->probe >> k) & 1, now - s->start[k], now);
}

/* Stop waiting for every outstanding lookup, logging `code` for each. */
static void end_all(pol_state *s, const arm *a, char code, int64_t now, pol_action *o)
{
    for (int k = 0; k < POL_MAX_LOOKUPS; k++)
        if (s->waiting & (1u << k))
            lookup_ended(s, a, k, code, now, o);
}

static void give_up(pol_state *s, const arm *a, char code, int64_t now, pol_action *o)
{
    end_all(s, a, code, now, o);
    assert(s->waiting == 0);
    o->timer[0] = o->timer[1] = POL_TIMER_OFF;
    o->done = a->standin ? POL_STANDIN : POL_TIMEOUT;
}

static int64_t budget_for(const pol_state *s, const arm *a, int64_t now)
{
    return a->down && s->has_deadline ? s->deadline - a->reserve_ns - now : 0;
}

/* Send the next lookup now, through the gates: 0 when sent, else the code
 * of the refusal (the attempt is then tried, ended, not sent). */
static char send_one(pol_state *s, const arm *a, int64_t now, int retry, pol_action *o)
{
    /* at most POL_MAX_LOOKUPS tries a request, each its own attempt number */
    assert(s->sent >= 0 && s->sent < POL_MAX_LOOKUPS && o->nsend < POL_MAX_LOOKUPS);
    assert(!(s->waiting >> s->sent));
    int at = s->sent++;
    s->start[at] = now;
    pol_shared *g = s->g;
    int probe = 0;
    char refused = 0;
    if (g) {
        if (retry && a->rb_pct && !budget_allows(g, a, now))
            refused = 'Y';
        else if (compartment_full(g, a, pol_lookup_store(s, a, at)))
            refused = 'B';
        else if (a->brk_cool_ns && !brk_allow(g, a, now, &probe))
            refused = 'O';
        if (refused) {
            o->ended[at] = refused;
            return refused;
        }
        if (retry && a->rb_pct)
            ring_push(g->bud_retry, &g->bud_retry_head, &g->bud_retry_n, now);
        g->inflight[pol_lookup_store(s, a, at)]++;
        if (probe)
            s->probe |= 1u << at;
    }
    o->send[o->nsend].attempt = at;
    o->send[o->nsend].budget_ns = budget_for(s, a, now);
    o->nsend++;
    s->waiting |= 1u << at;
    return 0;
}

/* A try starting now ends at the earliest of its own limit (try_ns, 0:
 * none), the deadline less the reserve and the request's limit from its
 * arrival: INT64_MAX for none. */
static int64_t try_end_of(const arm *a, int64_t try_ns, int has_deadline, int64_t deadline, int64_t arrive,
                          int64_t now)
{
    int64_t end = INT64_MAX;
    if (try_ns)
        end = now + try_ns;
    if (has_deadline && deadline - a->reserve_ns < end)
        end = deadline - a->reserve_ns;
    if (a->limit_ns && arrive + a->limit_ns < end)
        end = arrive + a->limit_ns;
    return end;
}

/* Start the next try now. */
static void try_next(pol_state *s, const arm *a, int64_t now, pol_action *o)
{
    int64_t end = try_end_of(a, s->try_ns, s->has_deadline, s->deadline, s->arrive, now);
    if (end <= now) {
        give_up(s, a, 'T', now, o);
        return;
    }
    s->try_end = end;
    s->pausing = 0;
    if (s->sent == 0 && s->g && a->rb_pct) /* a request counts for the budget once it tries a lookup */
        ring_push(s->g->bud_req, &s->g->bud_req_head, &s->g->bud_req_n, now);
    if (send_one(s, a, now, s->sent > 0, o)) {
        give_up(s, a, 'T', now, o);
        return;
    }
    o->timer[0] = end == INT64_MAX ? POL_TIMER_OFF : end;
    if (s->hedge_ns && s->sent == 1 && s->arrive + s->hedge_ns < end)
        o->timer[1] = s->arrive + s->hedge_ns;
}

/* No lookup is outstanding any more: retry, or give up. */
static void after_try(pol_state *s, const arm *a, int64_t now, pol_action *o)
{
    assert(s->waiting == 0 && s->sent >= 1);
    if (s->sent >= a->tries || s->sent >= POL_MAX_LOOKUPS) {
        give_up(s, a, 'T', now, o);
        return;
    }
    int64_t p = pol_pause_ns(a, s->round, s->req, s->sent);
    if (p > 0) {
        s->pausing = 1;
        o->timer[0] = now + p;
        o->timer[1] = POL_TIMER_OFF;
        return;
    }
    try_next(s, a, now, o);
}

/* The hedge delay a request starting now gets (0: none). */
static int64_t hedge_now(const pol_shared *g, const arm *a) { return g && a->hedge_p ? g->hed.now : a->hedge_ns; }

void pol_start(pol_state *s, pol_shared *g, const arm *a, uint32_t round, uint32_t req, uint32_t row, int64_t now,
               int64_t budget_ns, pol_action *o)
{
    assert(!g || g->arm == a); /* g was set up for this arm */
    assert(g || !pol_needs_shared(a));
    reset(o);
    s->g = g;
    s->store = pol_store_of(a, row);
    s->round = round;
    s->req = req;
    s->arrive = now;
    s->sent = 0;
    s->waiting = 0;
    s->probe = 0;
    s->pausing = 0;
    s->deadline = 0;
    s->has_deadline = a->deadline_ns != 0;
    if (s->has_deadline)
        s->deadline = now + (budget_ns >= 0 ? budget_ns : a->deadline_ns);
    s->hedge_ns = hedge_now(g, a);
    s->try_ns = pol_limit_now(g, a);
    o->timer[0] = o->timer[1] = POL_TIMER_OFF;
    try_next(s, a, now, o);
}

void pol_on_timer(pol_state *s, const arm *a, int which, int64_t now, pol_action *out)
{
    pol_action *o = out;
    assert(which == 0 || which == 1);
    reset(o);
    if (which == 1) { /* the hedge delay: a second lookup, same limit */
        if (s->waiting && s->sent < POL_MAX_LOOKUPS)
            send_one(s, a, now, 0, o); /* refused: the first may still answer */
        return;
    }
    if (s->pausing) {
        try_next(s, a, now, o);
        return;
    }
    end_all(s, a, 'T', now, o); /* the try's limit ran out */
    o->timer[1] = POL_TIMER_OFF;
    after_try(s, a, now, o);
}

int64_t pol_reconnect_cap_ns(int k)
{
    int64_t cap = POL_RECONNECT_BASE_NS;
    for (int i = 0; i < k && cap < POL_RECONNECT_CAP_NS; i++)
        cap *= 2;
    return cap < POL_RECONNECT_CAP_NS ? cap : POL_RECONNECT_CAP_NS;
}

int64_t pol_reconnect_ns(uint32_t round, int conn, uint32_t outage, int k)
{
    double u = ut_u64_unit(ut_hash4(POL_RECONNECT_KEY + round, (uint64_t)conn, outage, (uint64_t)k));
    int64_t cap = pol_reconnect_cap_ns(k), w = (int64_t)floor(u * (double)cap);
    assert(w >= 0 && w < cap); /* uniform [0, cap) */
    return w;
}

void pol_on_answer(pol_state *s, const arm *a, int attempt, int answer, int64_t now, pol_action *o)
{
    static const char code[] = {[POL_ANS_OK] = 'A', [POL_ANS_DROPPED] = 'D', [POL_ANS_UNAVAILABLE] = 'U',
                                [POL_ANS_NOT_FOUND] = 'N', [POL_ANS_LOST] = 'X', [POL_ANS_REFUSED] = 'R'};
    reset(o);
    if (attempt < 0 || attempt >= POL_MAX_LOOKUPS || answer < 0 || answer > POL_ANS_REFUSED)
        return;
    if (!(s->waiting & (1u << attempt))) { /* nobody waits for it any more: a late answer */
        if (answer == POL_ANS_OK && attempt < s->sent)
            pol_late_answer(s->g, a, now - s->start[attempt]);
        return;
    }
    lookup_ended(s, a, attempt, code[answer], now, o);
    if (answer == POL_ANS_OK) {
        end_all(s, a, 'C', now, o);
        assert(s->waiting == 0);
        o->timer[0] = o->timer[1] = POL_TIMER_OFF;
        o->done = POL_LIVE;
        return;
    }
    if (answer == POL_ANS_NOT_FOUND) { /* permanent: asking again gives the same */
        give_up(s, a, 'C', now, o);
        return;
    }
    if (s->waiting)
        return; /* a hedged twin may still answer */
    o->timer[0] = o->timer[1] = POL_TIMER_OFF;
    after_try(s, a, now, o);
}

/* --------------------------------------------------- the direct path */

int64_t pol_direct_window(const pol_shared *g, const arm *a, int64_t now)
{
    /* pol_start with no budget header: the arm's own deadline from now */
    int64_t end = try_end_of(a, pol_limit_now(g, a), a->deadline_ns != 0, now + a->deadline_ns, now, now);
    if (end <= now)
        return 0; /* given up at once */
    if (g && (compartment_full(g, a, 0) || (a->brk_cool_ns && g->brk_state != POL_BRK_CLOSED)))
        return 0; /* refused, or (half open) a probe */
    int64_t w = end == INT64_MAX ? INT64_MAX : end - now, h = hedge_now(g, a);
    return h && h < w ? h : w;
}

int64_t pol_direct_budget(const arm *a) { return a->down && a->deadline_ns ? a->deadline_ns - a->reserve_ns : 0; }

void pol_direct_start(pol_shared *g, const arm *a, int64_t now)
{
    if (!g)
        return;
    /* try_next and send_one for attempt 0 through open gates (pol_direct_window) */
    assert(!compartment_full(g, a, 0) && (!a->brk_cool_ns || g->brk_state == POL_BRK_CLOSED));
    if (a->rb_pct)
        ring_push(g->bud_req, &g->bud_req_head, &g->bud_req_n, now);
    g->inflight[0]++;
}

void pol_direct_end(pol_shared *g, const arm *a, int64_t latency, int64_t now)
{
    if (g)
        shared_ended(g, a, 0, 'A', 0, latency, now);
}
