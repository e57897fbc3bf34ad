/* playdef: see playdef.h for the contract. */
#include "playdef.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "playpct.h"

const char *const PDEF_NAMES[PDEF_NFIGS] = {
    "brk_opened",          "brk_half_opened",          "brk_closed",          "brk_open_ms",
    "brk_half_ms",         "brk_closed_ms",            "breaker_refused",     "budget_refused",
    "inflight_refused",    "retries_passed",           "store1_requests",     "store1_live_share",
    "store1_p99_ms",       "store2_requests",          "store2_live_share",   "store2_p99_ms",
    "store1_during_requests", "store1_during_live_share", "store1_during_p99_ms", "store2_during_requests",
    "store2_during_live_share", "store2_during_p99_ms"};

void pdef_begin(playdef *d, const arm *a, int64_t span)
{
    int64_t *lat = d->lat;
    size_t cap = d->cap;
    memset(d, 0, sizeof *d);
    d->lat = lat;
    d->cap = cap;
    d->a = a;
    d->span = span;
    d->state = POL_BRK_CLOSED;
}

void pdef_free(playdef *d)
{
    free(d->lat);
    d->lat = NULL;
    d->cap = 0;
}

/* The time from `since` to t inside [0, span) goes to the current state. */
static void brk_until(playdef *d, int64_t t)
{
    int64_t a = d->since < d->span ? d->since : d->span, b = t < d->span ? t : d->span;
    if (b > a)
        d->in_state[d->state] += b - a;
    d->since = t;
}

void pdef_brk(playdef *d, const pol_brk_event *e)
{
    brk_until(d, e->t);
    switch (e->what) {
    case 'O':
    case 'W':
    case 'P':
        d->opened++;
        d->state = POL_BRK_OPEN;
        break;
    case 'H':
        d->half_opened++;
        d->state = POL_BRK_HALF;
        break;
    case 'K':
        d->closed++;
        d->state = POL_BRK_CLOSED;
        break;
    }
}

/* The percentile 0.99 (lab/base/util.h's one definition) of v[0..n), in ms;
 * NAN when n is 0. */
static double p99_ms(int64_t *v, size_t n) { return n ? ppct_of(v, n, 0.99) / 1e6 : NAN; }

/* Requests of store k (during the window only, when `during`): count, live
 * share, p99 into f->v[at], [at + 1], [at + 2]. */
static void store_figs(playdef *d, const playdef_requests *q, int k, int during, playdef_figs *f, int at)
{
    size_t n = 0, live = 0, nlat = 0;
    for (size_t r = 0; r < q->n; r++) {
        if ((q->store ? q->store[r] : 0) != k)
            continue;
        if (during && (q->arrive[r] < q->from || q->arrive[r] >= q->to))
            continue;
        n++;
        live += q->done[r] == POL_LIVE;
        if (q->done[r] != POL_PENDING)
            d->lat[nlat++] = q->latency[r];
    }
    f->v[at] = (double)n;
    f->v[at + 1] = n ? (double)live / (double)n : NAN;
    f->v[at + 2] = p99_ms(d->lat, nlat);
}

int pdef_figures(playdef *d, const playdef_requests *q, playdef_figs *f)
{
    const arm *a = d->a;
    for (int i = 0; i < PDEF_NFIGS; i++)
        f->v[i] = NAN;
    if (a->brk_cool_ns) {
        brk_until(d, d->span);
        f->v[PDEF_BRK_OPENED] = (double)d->opened;
        f->v[PDEF_BRK_HALF_OPENED] = (double)d->half_opened;
        f->v[PDEF_BRK_CLOSED] = (double)d->closed;
        f->v[PDEF_BRK_OPEN_MS] = (double)d->in_state[POL_BRK_OPEN] / 1e6;
        f->v[PDEF_BRK_HALF_MS] = (double)d->in_state[POL_BRK_HALF] / 1e6;
        f->v[PDEF_BRK_CLOSED_MS] = (double)d->in_state[POL_BRK_CLOSED] / 1e6;
        f->v[PDEF_BREAKER_REFUSED] = (double)d->refused[0];
    }
    if (a->inflight)
        f->v[PDEF_INFLIGHT_REFUSED] = (double)d->refused[1];
    if (a->rb_pct)
        f->v[PDEF_BUDGET_REFUSED] = (double)d->refused[2];
    if (a->tries > 1)
        f->v[PDEF_RETRIES_PASSED] = (double)d->passed;
    if (!a->store2)
        return 0;
    if (q->n > d->cap) {
        int64_t *v = realloc(d->lat, q->n * sizeof *v);
        if (!v)
            return -1;
        d->lat = v;
        d->cap = q->n;
    }
    for (int k = 0; k < 2; k++) {
        store_figs(d, q, k, 0, f, PDEF_STORE1_REQUESTS + 3 * k);
        if (q->from >= 0)
            store_figs(d, q, k, 1, f, PDEF_STORE1_DURING_REQUESTS + 3 * k);
    }
    return 0;
}

void pdef_csv_header(FILE *out)
{
    for (int i = 0; i < PDEF_NFIGS; i++)
        fprintf(out, ",%s", PDEF_NAMES[i]);
}

void pdef_csv_row(const playdef_figs *f, FILE *out)
{
    for (int i = 0; i < PDEF_NFIGS; i++) {
        fputc(',', out);
        double x = f->v[i];
        if (!isnan(x))
            fprintf(out, x == floor(x) && fabs(x) < 1e15 ? "%.0f" : "%.6f", x);
    }
}

static void pct(char *buf, size_t len, double share)
{
    if (isnan(share))
        snprintf(buf, len, "null");
    else
        snprintf(buf, len, "%.2f%%", 100 * share);
}

static void ms(char *buf, size_t len, double x)
{
    if (isnan(x))
        snprintf(buf, len, "null");
    else
        snprintf(buf, len, "%.2f ms", x);
}

void pdef_print(const playdef_figs *f, const char *prefix, FILE *out)
{
    const double *v = f->v;
    if (!isnan(v[PDEF_BRK_OPENED]))
        fprintf(out,
                "%sbreaker: opened %.0f, half open %.0f, closed %.0f; OPEN %.0f ms, HALF OPEN %.0f ms, CLOSED "
                "%.0f ms; lookups refused (O) %.0f\n",
                prefix, v[PDEF_BRK_OPENED], v[PDEF_BRK_HALF_OPENED], v[PDEF_BRK_CLOSED], v[PDEF_BRK_OPEN_MS],
                v[PDEF_BRK_HALF_MS], v[PDEF_BRK_CLOSED_MS], v[PDEF_BREAKER_REFUSED]);
    int gates = !isnan(v[PDEF_BRK_OPENED]) || !isnan(v[PDEF_BUDGET_REFUSED]) || !isnan(v[PDEF_INFLIGHT_REFUSED]);
    if (gates && (!isnan(v[PDEF_RETRIES_PASSED]) || !isnan(v[PDEF_BUDGET_REFUSED]) || !isnan(v[PDEF_INFLIGHT_REFUSED]))) {
        const char *sep = ":";
        fprintf(out, "%sgates", prefix);
        if (!isnan(v[PDEF_RETRIES_PASSED])) {
            fprintf(out, "%s retries passed %.0f", sep, v[PDEF_RETRIES_PASSED]);
            sep = ";";
        }
        if (!isnan(v[PDEF_BUDGET_REFUSED])) {
            fprintf(out, "%s refused by the retry budget (Y) %.0f", sep, v[PDEF_BUDGET_REFUSED]);
            sep = ";";
        }
        if (!isnan(v[PDEF_INFLIGHT_REFUSED]))
            fprintf(out, "%s refused by a full compartment (B) %.0f", sep, v[PDEF_INFLIGHT_REFUSED]);
        fputc('\n', out);
    }
    if (isnan(v[PDEF_STORE2_REQUESTS]))
        return;
    for (int k = 0; k < 2; k++) {
        int at = PDEF_STORE1_REQUESTS + 3 * k, dat = PDEF_STORE1_DURING_REQUESTS + 3 * k;
        char live[24], p99[24], dlive[24], dp99[24];
        pct(live, sizeof live, v[at + 1]);
        ms(p99, sizeof p99, v[at + 2]);
        fprintf(out, "%sstore %d%s: %.0f requests, live %s, p99 %s", prefix, k + 1, k ? " (healthy)" : "", v[at],
                live, p99);
        if (!isnan(v[dat])) {
            pct(dlive, sizeof dlive, v[dat + 1]);
            ms(dp99, sizeof dp99, v[dat + 2]);
            fprintf(out, "; in the window %.0f requests, live %s, p99 %s", v[dat], dlive, dp99);
        }
        fputc('\n', out);
    }
}
