/* layers: layered retries in front of a store that is down, through the
 * lab's own policy code (see layers.h). */
#include "layers.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "policy.h"
#include "util.h"

#define NS_PER_S 1000000000LL

void lay_arm(arm *a, int tries, int budget)
{
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "layer-%s%d", budget ? "r2bud-t" : "r2-t", tries);
    a->wait = WAIT_Z;
    a->rate = 1;
    snprintf(a->policy, sizeof a->policy, "%s", budget ? "r2bud" : "r2");
    a->try_ns = (int64_t)LAY_TRY_MS * 1000000;
    a->tries = tries;
    a->pause = PAUSE_NONE;
    a->standin = 0;
    if (budget) {
        a->rb_pct = LAY_RB_PCT;
        a->rb_floor = LAY_RB_FLOOR;
    }
}

typedef struct {
    const lay_config *c;
    lay_result *r;
    arm arms[LAY_MAX_LAYERS];
    pol_shared *g[LAY_MAX_LAYERS];
    uint32_t req;
    int64_t now;
    int steady;
    int full;   /* -1, or a layer whose budget window filled up */
    int stuck;  /* a policy waited for a timer (cannot happen: calls take no time) */
} lay_ctx;

/* A call reaching layer k (k == N: the store) at x->now: its answer. */
static int call(lay_ctx *x, int k)
{
    int n = x->c->layers;
    x->r->calls[k]++;
    if (x->steady)
        x->r->steady_calls[k]++;
    if (k == n)
        return POL_ANS_UNAVAILABLE; /* the store is down */
    const arm *a = &x->arms[k];
    pol_shared *g = x->g[k];
    pol_state s;
    pol_action o;
    pol_start(&s, g, a, (uint32_t)x->c->seed, x->req, 0, x->now, -1, &o);
    if (g && (g->bud_req_n >= POL_BUDGET_RING || g->bud_retry_n >= POL_BUDGET_RING))
        x->full = k;
    for (;;) {
        for (int i = 0; i < POL_MAX_LOOKUPS; i++)
            if (o.ended[i] == 'Y') {
                x->r->refused[k]++;
                if (x->steady)
                    x->r->steady_refused[k]++;
            }
        if (o.done != POL_PENDING)
            return o.done == POL_LIVE ? POL_ANS_OK : POL_ANS_UNAVAILABLE;
        if (o.nsend != 1) { /* no pause and no hedge: one lookup at a time, always */
            x->stuck = 1;
            return POL_ANS_UNAVAILABLE;
        }
        int at = o.send[0].attempt;
        int ans = call(x, k + 1);
        pol_on_answer(&s, a, at, ans, x->now, &o);
    }
}

int lay_run(const lay_config *c, lay_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (c->layers < 1 || c->layers > LAY_MAX_LAYERS) {
        ut_seterr(err, errlen, "layers %d: not 1 to %d", c->layers, LAY_MAX_LAYERS);
        return -1;
    }
    if (!(c->rate > 0) || !(c->seconds > 0)) {
        ut_seterr(err, errlen, "rate and seconds must be above 0");
        return -1;
    }
    lay_ctx x = {.c = c, .r = r, .full = -1};
    for (int k = 0; k < c->layers; k++) {
        int b = (c->budget >> k) & 1;
        lay_arm(&x.arms[k], c->tries, b);
        char why[256];
        if (arms_check_policy(&x.arms[k], why, sizeof why) != 0) {
            ut_seterr(err, errlen, "layer %d's arm (tries %d%s): %s", k + 1, c->tries, b ? ", a budget" : "", why);
            goto fail;
        }
        if (pol_needs_shared(&x.arms[k])) {
            x.g[k] = malloc(sizeof *x.g[k]);
            if (!x.g[k]) {
                ut_seterr(err, errlen, "out of memory");
                goto fail;
            }
            pol_shared_init(x.g[k], &x.arms[k], NULL, NULL);
        }
    }
    int64_t span = llround(c->seconds * NS_PER_S);
    int64_t from = span - (int64_t)LAY_STEADY_S * NS_PER_S;
    if (from < (int64_t)LAY_WARM_S * NS_PER_S)
        from = (int64_t)LAY_WARM_S * NS_PER_S;
    r->steady_from_ns = from;
    arrivals_gen gen;
    if (c->poisson)
        arrivals_start(&gen, c->seed, c->rate, c->seconds);
    for (uint64_t i = 0;; i++) {
        int64_t t;
        if (c->poisson)
            t = arrivals_next(&gen);
        else {
            t = (int64_t)floor((double)i * (double)NS_PER_S / c->rate);
            if (t >= span)
                t = -1;
        }
        if (t < 0)
            break;
        x.now = t;
        x.req = (uint32_t)i;
        x.steady = t >= from;
        r->requests++;
        if (x.steady)
            r->steady_requests++;
        call(&x, 0);
        if (x.full >= 0) {
            ut_seterr(err, errlen,
                      "layer %d received %d requests or retries within 1 s, all the retry budget's window holds "
                      "(POL_BUDGET_RING): lower the rate",
                      x.full + 1, POL_BUDGET_RING);
            goto fail;
        }
        if (x.stuck) {
            ut_seterr(err, errlen, "a layer's policy waited for a timer, which a store answering at once never needs");
            goto fail;
        }
    }
    for (int k = 0; k < c->layers; k++)
        free(x.g[k]);
    return 0;
fail:
    for (int k = 0; k < c->layers; k++)
        free(x.g[k]);
    return -1;
}

double lay_expected(const lay_config *c)
{
    double q = c->rate;
    for (int k = 0; k < c->layers; k++) {
        double retries = (c->tries - 1) * q;
        if ((c->budget >> k) & 1) {
            double cap = q * LAY_RB_PCT / 100.0 + LAY_RB_FLOOR;
            if (cap < retries)
                retries = cap;
        }
        q += retries;
    }
    return q / c->rate;
}

const char *lay_budget_name(const lay_config *c, char *buf, size_t len)
{
    unsigned all = (1u << c->layers) - 1, b = c->budget & all;
    if (!b)
        snprintf(buf, len, "none");
    else if (b == all)
        snprintf(buf, len, "every layer");
    else if (b == 1u << (c->layers - 1))
        snprintf(buf, len, "bottom only");
    else {
        size_t o = 0;
        buf[0] = 0;
        for (int k = 0; k < c->layers && o < len; k++)
            if ((b >> k) & 1)
                o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? "+" : "layers ", k + 1);
    }
    return buf;
}
