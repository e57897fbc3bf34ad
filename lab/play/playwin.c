/* playwin: see playwin.h for the contract. */
#include "playwin.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

#define NS_PER_S 1000000000LL

static const char *const PHASE[PWIN_NPHASES] = {"before", "during", "after"};

int pwin_begin(playwin *p, const fault_window *w, int64_t span)
{
    uint32_t *rows = p->rows, *nlive = p->nlive;
    size_t cap = p->cap;
    memset(p, 0, sizeof *p); /* the counts too */
    p->rows = rows;
    p->nlive = nlive;
    p->cap = cap;
    p->first_live = INT64_MAX;
    p->span = span;
    p->on = w->from_ns >= 0;
    if (!p->on)
        return 0;
    p->from = w->from_ns;
    p->to = w->to_ns;
    /* the whole seconds after U that end inside the schedule */
    p->nbins = p->to < span ? (size_t)((span - p->to) / NS_PER_S) : 0;
    if (p->nbins > p->cap) {
        uint32_t *r = realloc(p->rows, p->nbins * sizeof *r);
        if (r)
            p->rows = r;
        uint32_t *l = realloc(p->nlive, p->nbins * sizeof *l);
        if (l)
            p->nlive = l;
        if (!r || !l)
            return -1;
        p->cap = p->nbins;
    }
    if (p->nbins) {
        memset(p->rows, 0, p->nbins * sizeof *p->rows);
        memset(p->nlive, 0, p->nbins * sizeof *p->nlive);
    }
    return 0;
}

void pwin_free(playwin *p)
{
    free(p->rows);
    free(p->nlive);
    p->rows = p->nlive = NULL;
    p->cap = p->nbins = 0;
}

/* The second after U that t falls in, or -1. */
static long bin_of(const playwin *p, int64_t t)
{
    if (t < p->to)
        return -1;
    int64_t k = (t - p->to) / NS_PER_S;
    return (size_t)k < p->nbins ? (long)k : -1;
}

void pwin_arrive(playwin *p, int64_t arrive)
{
    if (!p->on)
        return;
    p->requests[pwin_phase(p, arrive)]++;
    long k = bin_of(p, arrive);
    if (k >= 0)
        p->rows[k]++;
}

void pwin_answer(playwin *p, int64_t arrive, int done, int64_t now)
{
    if (!p->on)
        return;
    int ph = pwin_phase(p, arrive);
    if (done == POL_LIVE) {
        p->live[ph]++;
        if (now >= p->to && now < p->first_live)
            p->first_live = now;
        long k = bin_of(p, arrive);
        if (k >= 0)
            p->nlive[k]++;
    } else if (done == POL_STANDIN)
        p->standins[ph]++;
    else
        p->errors[ph]++;
}

/* recovered_s's test (lab/play/playwin.h), in integers: (n - live)/n below
 * the share not live before the window (b - blive)/b plus 1 point. */
static int pwin_back(int64_t n, int64_t live, int64_t b, int64_t blive)
{
    if (b > 0)
        return 100 * b * (n - live) < 100 * n * (b - blive) + n * b;
    return 100 * (n - live) < n;
}


void pwin_figures(const playwin *p, playwin_figs *f)
{
    memset(f, 0, sizeof *f);
    f->c = p->c;
    f->on = p->on;
    f->win_from_ms = f->win_to_ms = f->during_lookups_per_request = f->first_live_after_ms = f->recovered_s = NAN;
    f->before_lookups_100ms = f->recovery_lookups_100ms_max = NAN;
    for (int i = 0; i < PWIN_REC_BINS; i++)
        f->recovery_lookups_100ms[i] = NAN;
    if (!p->on)
        return;
    if (p->from > 0)
        f->before_lookups_100ms = (double)p->lookups[PWIN_BEFORE] / ((double)p->from / (double)PWIN_REC_NS);
    if (p->to != INT64_MAX && p->to <= p->span - PWIN_REC_BINS * PWIN_REC_NS) {
        uint64_t most = 0;
        for (int i = 0; i < PWIN_REC_BINS; i++) {
            f->recovery_lookups_100ms[i] = (double)p->rec100[i];
            most = p->rec100[i] > most ? p->rec100[i] : most;
        }
        f->recovery_lookups_100ms_max = (double)most;
    }
    f->win_from_ms = (double)p->from / 1e6;
    if (p->to != INT64_MAX)
        f->win_to_ms = (double)p->to / 1e6;
    for (int i = 0; i < PWIN_NPHASES; i++) {
        f->requests[i] = p->requests[i];
        f->live[i] = p->live[i];
        f->standins[i] = p->standins[i];
        f->errors[i] = p->errors[i];
        f->lost[i] = p->requests[i] - p->live[i] - p->standins[i] - p->errors[i];
        f->lookups[i] = p->lookups[i];
        f->unanswered_lookups[i] = p->unanswered[i];
    }
    if (p->requests[PWIN_DURING])
        f->during_lookups_per_request = (double)p->lookups[PWIN_DURING] / (double)p->requests[PWIN_DURING];
    if (p->to != INT64_MAX && p->first_live != INT64_MAX)
        f->first_live_after_ms = (double)(p->first_live - p->to) / 1e6;
    if (p->to != INT64_MAX)
        for (size_t k = 0; k < p->nbins; k++) /* back within 1 point of the share not live before */
            if (p->rows[k] && pwin_back(p->rows[k], p->nlive[k], p->requests[PWIN_BEFORE], p->live[PWIN_BEFORE])) {
                f->recovered_s = (double)k;
                break;
            }
}

static const char *const COUNTS[] = {"requests", "live", "standins", "errors", "lost", "lookups",
                                     "unanswered_lookups"};
enum { NCOUNTS = sizeof COUNTS / sizeof COUNTS[0] };

static uint64_t count(const playwin_figs *f, int c, int ph)
{
    const uint64_t *v[NCOUNTS] = {f->requests, f->live, f->standins, f->errors, f->lost, f->lookups,
                                  f->unanswered_lookups};
    return v[c][ph];
}

void pwin_csv_header(FILE *out)
{
    fputs(",lost,store_E,store_N,store_H,store_R,lookup_ends_R,conn_lost,conn_failed,conn_regained", out);
    fputs(",win_from_ms,win_to_ms", out);
    for (int ph = 0; ph < PWIN_NPHASES; ph++)
        for (int c = 0; c < NCOUNTS; c++)
            fprintf(out, ",%s_%s", PHASE[ph], COUNTS[c]);
    fputs(",during_lookups_per_request,first_live_after_ms,recovered_s", out);
    fputs(",before_lookups_100ms,recovery_lookups_100ms_max", out);
}

static void num(FILE *out, double x, const char *fmt)
{
    fputc(',', out);
    if (!isnan(x))
        fprintf(out, fmt, x);
}

void pwin_csv_row(const playwin_figs *f, FILE *out)
{
    const playwin_counts *c = &f->c;
    fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64,
            c->lost, c->store_E, c->store_N, c->store_H, c->store_R, c->lookup_ends_R, c->conn_lost, c->conn_failed,
            c->conn_regained);
    num(out, f->win_from_ms, "%.6f");
    num(out, f->win_to_ms, "%.6f");
    for (int ph = 0; ph < PWIN_NPHASES; ph++)
        for (int c = 0; c < NCOUNTS; c++)
            if (f->on)
                fprintf(out, ",%" PRIu64, count(f, c, ph));
            else
                fputc(',', out);
    num(out, f->during_lookups_per_request, "%.6f");
    num(out, f->first_live_after_ms, "%.6f");
    num(out, f->recovered_s, "%.0f");
    num(out, f->before_lookups_100ms, "%.6f");
    num(out, f->recovery_lookups_100ms_max, "%.0f");
}

static void opt_num(char *buf, size_t len, double x, const char *fmt)
{
    if (isnan(x))
        snprintf(buf, len, "null");
    else
        snprintf(buf, len, fmt, x);
}

void pwin_print(const playwin_figs *f, const char *prefix, FILE *out)
{
    const playwin_counts *c = &f->c;
    fprintf(out,
            "%slost %" PRIu64 "; the store answered %" PRIu64 " unavailable (E), %" PRIu64 " not found (N), held %" PRIu64
            " (H), cut %" PRIu64 " (R); not sent %" PRIu64 " (no connection); connections lost %" PRIu64
            ", failed tries %" PRIu64 ", back %" PRIu64 "\n",
            prefix, c->lost, c->store_E, c->store_N, c->store_H, c->store_R, c->lookup_ends_R, c->conn_lost,
            c->conn_failed, c->conn_regained);
    if (!f->on)
        return;
    char head[64], to[32], lpr[32], first[32], rec[32];
    opt_num(to, sizeof to, f->win_to_ms, "%.0f ms");
    if (isnan(f->win_to_ms))
        snprintf(to, sizeof to, "end");
    snprintf(head, sizeof head, "window [%.0f ms, %s)", f->win_from_ms, to);
    opt_num(lpr, sizeof lpr, f->during_lookups_per_request, "%.3f");
    opt_num(first, sizeof first, f->first_live_after_ms, "%.3f");
    opt_num(rec, sizeof rec, f->recovered_s, "%.0f");
    fprintf(out, "%s%-30s", prefix, head);
    for (int k = 0; k < NCOUNTS; k++)
        fprintf(out, " %*s", k == NCOUNTS - 1 ? 18 : 9, COUNTS[k]);
    fputc('\n', out);
    for (int ph = 0; ph < PWIN_NPHASES; ph++) {
        fprintf(out, "%s  %-28s", prefix, PHASE[ph]);
        for (int k = 0; k < NCOUNTS; k++)
            fprintf(out, " %*" PRIu64, k == NCOUNTS - 1 ? 18 : 9, count(f, k, ph));
        fputc('\n', out);
    }
    fprintf(out, "%s  during_lookups_per_request %s, first_live_after_ms %s, recovered_s %s\n", prefix, lpr,
            first, rec);
    char before[32];
    opt_num(before, sizeof before, f->before_lookups_100ms, "%.1f");
    fprintf(out, "%s  lookups per 100 ms: before the window %s; in the second after it ", prefix, before);
    if (isnan(f->recovery_lookups_100ms_max))
        fputs("null\n", out);
    else {
        for (int i = 0; i < PWIN_REC_BINS; i++)
            fprintf(out, "%s%.0f", i ? " " : "", f->recovery_lookups_100ms[i]);
        fprintf(out, " (max %.0f)\n", f->recovery_lookups_100ms_max);
    }
}
