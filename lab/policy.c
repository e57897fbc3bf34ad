/* policy: see policy.h. */
#include "policy.h"

#include <math.h>

#include "util.h"

#define PAUSE_KEY 0x5041555345ULL /* "PAUSE" */

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
    if (a->pause == PAUSE_NONE || k < 1 || k > a->npause)
        return 0;
    int64_t p = a->pause_ns[k - 1];
    if (a->pause == PAUSE_FIXED)
        return p;
    return (int64_t)floor(ut_u64_unit(ut_hash4(PAUSE_KEY + round, req, (uint64_t)k, 0)) * (double)p);
}

/* Stop waiting for every outstanding lookup, logging `code` for each. */
static void end_all(pol_state *s, char code, pol_action *o)
{
    for (int k = 0; k < POL_MAX_LOOKUPS; k++)
        if (s->waiting & (1u << k))
            o->ended[k] = code;
    s->waiting = 0;
}

static void expire(pol_state *s, const arm *a, pol_action *o)
{
    end_all(s, 'T', o);
    o->timer[0] = o->timer[1] = POL_TIMER_OFF;
    o->done = a->standin ? POL_STANDIN : POL_TIMEOUT;
}

static int64_t budget_for(const pol_state *s, const arm *a, int64_t now)
{
    return a->down && s->has_deadline ? s->deadline - a->reserve_ns - now : 0;
}

static void send_one(pol_state *s, const arm *a, int64_t now, pol_action *o)
{
    int at = s->sent++;
    o->send[o->nsend].attempt = at;
    o->send[o->nsend].budget_ns = budget_for(s, a, now);
    o->nsend++;
    s->waiting |= 1u << at;
}

/* Start the next try now. */
static void try_next(pol_state *s, const arm *a, int64_t now, pol_action *o)
{
    int64_t end = INT64_MAX;
    if (a->try_ns)
        end = now + a->try_ns;
    if (s->has_deadline && s->deadline - a->reserve_ns < end)
        end = s->deadline - a->reserve_ns;
    if (a->limit_ns && s->arrive + a->limit_ns < end)
        end = s->arrive + a->limit_ns;
    if (end <= now) {
        expire(s, a, o);
        return;
    }
    s->try_end = end;
    s->pausing = 0;
    send_one(s, a, now, o);
    o->timer[0] = end == INT64_MAX ? POL_TIMER_OFF : end;
    if (a->hedge_ns && s->sent == 1 && s->arrive + a->hedge_ns < end)
        o->timer[1] = s->arrive + a->hedge_ns;
}

/* No lookup is outstanding any more: retry, or give up. */
static void after_try(pol_state *s, const arm *a, int64_t now, pol_action *o)
{
    if (s->sent >= a->tries || s->sent >= POL_MAX_LOOKUPS) {
        expire(s, a, o);
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

void pol_start(pol_state *s, const arm *a, uint32_t round, uint32_t req, int64_t now, int64_t budget_ns,
               pol_action *o)
{
    reset(o);
    s->round = round;
    s->req = req;
    s->arrive = now;
    s->sent = 0;
    s->waiting = 0;
    s->pausing = 0;
    s->deadline = 0;
    s->has_deadline = a->deadline_ns != 0;
    if (s->has_deadline)
        s->deadline = now + (budget_ns >= 0 ? budget_ns : a->deadline_ns);
    o->timer[0] = o->timer[1] = POL_TIMER_OFF;
    try_next(s, a, now, o);
}

void pol_on_timer(pol_state *s, const arm *a, int which, int64_t now, pol_action *o)
{
    reset(o);
    if (which == 1) { /* the hedge delay: a second lookup, same limit */
        if (s->waiting && s->sent < POL_MAX_LOOKUPS)
            send_one(s, a, now, o);
        return;
    }
    if (s->pausing) {
        try_next(s, a, now, o);
        return;
    }
    end_all(s, 'T', o); /* the try's limit ran out */
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
    return (int64_t)floor(u * (double)pol_reconnect_cap_ns(k));
}

void pol_on_answer(pol_state *s, const arm *a, int attempt, int answer, int64_t now, pol_action *o)
{
    static const char code[] = {[POL_ANS_OK] = 'A', [POL_ANS_DROPPED] = 'D', [POL_ANS_UNAVAILABLE] = 'U',
                                [POL_ANS_NOT_FOUND] = 'N', [POL_ANS_LOST] = 'X', [POL_ANS_REFUSED] = 'R'};
    reset(o);
    if (attempt < 0 || attempt >= POL_MAX_LOOKUPS || !(s->waiting & (1u << attempt)) || answer < 0 ||
        answer > POL_ANS_REFUSED)
        return; /* nobody waits for it any more */
    s->waiting &= ~(1u << attempt);
    o->ended[attempt] = code[answer];
    if (answer == POL_ANS_OK) {
        end_all(s, 'C', o);
        o->timer[0] = o->timer[1] = POL_TIMER_OFF;
        o->done = POL_LIVE;
        return;
    }
    if (answer == POL_ANS_NOT_FOUND) { /* permanent: asking again gives the same */
        end_all(s, 'C', o);
        o->timer[0] = o->timer[1] = POL_TIMER_OFF;
        o->done = a->standin ? POL_STANDIN : POL_TIMEOUT;
        return;
    }
    if (s->waiting)
        return; /* a hedged twin may still answer */
    o->timer[0] = o->timer[1] = POL_TIMER_OFF;
    after_try(s, a, now, o);
}
