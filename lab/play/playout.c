/* playout: see playout.h for the contract. */
#include "playout.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "policy.h"

#define NL POL_MAX_LOOKUPS

void pout_header(const char *describe, int csv, int columns)
{
    if (csv) {
        printf("# %s\n", describe);
        if (columns) {
            printf("seed,p99_ms,standin_share,lookups_per_request,longest_line,flooded,flood_from_s,"
                   "error_share,slot_ms_per_request,requests,standins,errors,lookups,slot_ns");
            pwin_csv_header(stdout);
            pdef_csv_header(stdout);
            printf(",arm\n");
        }
    } else {
        printf("%s\n", describe);
        if (columns)
            printf("%6s %9s %14s %20s %13s %8s %13s %12s %20s %9s\n", "seed", "p99_ms", "standin_share",
                   "lookups_per_request", "longest_line", "flooded", "flood_from_s", "error_share",
                   "slot_ms_per_request", "requests");
    }
    fflush(stdout);
}

static double share(uint64_t k, size_t n) { return n ? (double)k / (double)n : NAN; }

int pout_seed(const play_result *R, const char *name, int csv, int fault, double m[PF_N])
{
    double si = share(R->standins, R->n), er = share(R->errors, R->n), lpr = share(R->lookups, R->n),
           slot = R->n ? (double)R->slot_ns / 1e6 / (double)R->n : NAN;
    int flooded = R->flood.flooded;
    char from[24] = "-";
    if (flooded)
        snprintf(from, sizeof from, "%ld", R->flood.from_s);
    if (csv) {
        printf("%" PRIu32 ",%.6f,%.6f,%.6f,%zu,%s,%s,%.6f,%.6f,%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64
               ",%" PRId64,
               R->seed, R->p99_ms, si, lpr, R->line_max, flooded ? "yes" : "no", flooded ? from : "", er,
               slot, R->n, R->standins, R->errors, R->lookups, R->slot_ns);
        pwin_csv_row(&R->win, stdout);
        pdef_csv_row(&R->def, stdout);
        printf(",%s\n", name);
    } else if (R->n)
        printf("%6" PRIu32 " %9.2f %13.2f%% %20.3f %13zu %8s %13s %11.2f%% %20.2f %9zu\n", R->seed,
               R->p99_ms, 100 * si, lpr, R->line_max, flooded ? "yes" : "no", from, 100 * er, slot, R->n);
    else
        printf("%6" PRIu32 " %9s %14s %20s %13s %8s %13s %12s %20s %9d\n", R->seed, "-", "-", "-", "-", "-",
               "-", "-", "-", 0);
    if (!csv && fault)
        pwin_print(&R->win, "       ", stdout);
    if (!csv)
        pdef_print(&R->def, "       ", stdout);
    return pout_seed_figures(R, m);
}

int pout_seed_figures(const play_result *R, double m[PF_N])
{
    double si = share(R->standins, R->n), er = share(R->errors, R->n), lpr = share(R->lookups, R->n),
           slot = R->n ? (double)R->slot_ns / 1e6 / (double)R->n : NAN;
    m[PF_P99] = R->p99_ms;
    m[PF_STANDIN] = si;
    m[PF_LPR] = lpr;
    m[PF_LINE] = (double)R->line_max;
    m[PF_ERROR] = er;
    m[PF_SLOT] = slot;
    m[PF_DURING_LPR] = R->win.during_lookups_per_request;
    m[PF_FIRST_LIVE] = R->win.first_live_after_ms;
    m[PF_RECOVERED] = R->win.recovered_s;
    m[PF_BEFORE100] = R->win.before_lookups_100ms;
    m[PF_REC100MAX] = R->win.recovery_lookups_100ms_max;
    for (int i = 0; i < PDEF_NFIGS; i++)
        m[PF_DEF + i] = R->def.v[i];
    return R->n != 0;
}

void pout_timeline(const play_second *sec, size_t nsec, uint32_t seed, int csv)
{
    const char *p = csv ? "#" : " ";
    printf("%s seed %" PRIu32 ", by second: second,requests_arriving,lookups_sent,"
           "missed_of_those_arriving,longest_line\n",
           p, seed);
    for (size_t k = 0; k < nsec; k++) {
        const play_second *q = &sec[k];
        if (q->req || q->lookups || q->missed || q->line_max)
            printf("%s %zu,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 "\n", p, k, q->req, q->lookups, q->missed,
                   q->line_max);
    }
}

void pout_trace(const play_trace *t, uint32_t seed, int csv)
{
    const char *p = csv ? "#" : " ";
    printf("%s seed %" PRIu32 ", by request: req,arrive_ns,answer_ns,kind,store", p, seed);
    for (int k = 0; k < NL; k++)
        printf(",a%d_start_ns,a%d_out", k, k);
    putchar('\n');
    static const char kind[] = {[POL_PENDING] = '-', [POL_LIVE] = 'L', [POL_STANDIN] = 'S', [POL_TIMEOUT] = 'E',
                                [POL_FAILED] = 'E'};
    for (size_t r = 0; r < t->n; r++) {
        printf("%s %zu,%" PRId64 ",", p, r, t->arrive[r]);
        if (t->answer[r] >= 0)
            printf("%" PRId64, t->answer[r]);
        printf(",%c,%d", kind[t->done[r]], t->store ? t->store[r] + 1 : 1);
        for (size_t k = 0; k < NL; k++) {
            char c = t->lout[r * NL + k];
            if (c == '-')
                printf(",,-");
            else
                printf(",%" PRId64 ",%c", t->lsend[r * NL + k], c);
        }
        putchar('\n');
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of the values of v[0..n) that are not NAN (v is reordered);
 * NAN when there are none. */
static double median(double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[k++] = v[i];
    if (!k)
        return NAN;
    qsort(v, k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static const char *const PF_NAMES[PF_DEF] = {
    "p99_ms", "standin_share", "lookups_per_request", "longest_line", "error_share", "slot_ms_per_request",
    "during_lookups_per_request", "first_live_after_ms", "recovered_s", "before_lookups_100ms",
    "recovery_lookups_100ms_max"};

static const char *pf_name(int i) { return i < PF_DEF ? PF_NAMES[i] : PDEF_NAMES[i - PF_DEF]; }

void pout_medians(double *m[PF_N], size_t nm, int nflood, size_t nseeds, int print, play_arm_summary *sum)
{
    double *med = sum->med;
    for (int i = 0; i < PF_N; i++) {
        double total = 0, most = NAN;
        size_t k = 0;
        for (size_t j = 0; j < nm; j++)
            if (!isnan(m[i][j])) {
                total += m[i][j];
                most = k++ == 0 || m[i][j] > most ? m[i][j] : most;
            }
        sum->mean[i] = k ? total / (double)k : NAN;
        sum->max[i] = most;
        med[i] = median(m[i], nm);
    }
    if (!print)
        return;
    printf("%6s %9.2f %13.2f%% %20.3f %13.0f %5d/%-2zu %13s %11.2f%% %20.2f\n", "median", med[PF_P99],
           100 * med[PF_STANDIN], med[PF_LPR], med[PF_LINE], nflood, nseeds, "", 100 * med[PF_ERROR],
           med[PF_SLOT]);
    int any = 0;
    for (int i = PF_DURING_LPR; i < PF_N; i++)
        if (!isnan(med[i])) {
            printf("%s%s %.6g", any ? ", " : "       medians: ", pf_name(i), med[i]);
            any = 1;
        }
    if (any)
        putchar('\n');
}

/* The summary's columns: a figure, which of its statistics (0 median, 1
 * mean, 2 largest), its heading and width. */
static const struct {
    int fig, stat;
    const char *head;
    int width;
} SUMMARY[] = {{PF_LPR, 0, "l/req", 7},
               {PF_LPR, 1, "l/req_mean", 10},
               {PF_LPR, 2, "l/req_max", 9},
               {PF_STANDIN, 0, "standin", 8},
               {PF_STANDIN, 1, "standin_mean", 12},
               {PF_P99, 0, "p99_ms", 8},
               {PF_DURING_LPR, 0, "win_l/req", 9},
               {PF_FIRST_LIVE, 0, "first_live_ms", 13},
               {PF_REC100MAX, 0, "rec_100ms_max", 13},
               {PF_DEF + PDEF_BRK_OPENED, 0, "brk_opened", 10},
               {PF_DEF + PDEF_BUDGET_REFUSED, 0, "budget_ref", 10},
               {PF_DEF + PDEF_INFLIGHT_REFUSED, 0, "inflight_ref", 12},
               {PF_DEF + PDEF_STORE2_DURING_LIVE_SHARE, 0, "s2_win_live", 11},
               {PF_DEF + PDEF_STORE2_DURING_P99_MS, 0, "s2_win_p99", 10}};
enum { NSUMMARY = sizeof SUMMARY / sizeof SUMMARY[0] };

void pout_summary(const play_arm_summary *arms, size_t narms)
{
    printf("arms side by side: medians over the seeds (_mean: the mean, _max: the largest; flooded: seeds "
           "flooded of those run; '-': null):\n");
    printf("%-18s %9s", "arm", "flooded");
    for (int c = 0; c < NSUMMARY; c++)
        printf(" %*s", SUMMARY[c].width, SUMMARY[c].head);
    putchar('\n');
    for (size_t k = 0; k < narms; k++) {
        char fl[32];
        snprintf(fl, sizeof fl, "%d/%zu", arms[k].nflood, arms[k].nseeds);
        printf("%-18s %9s", arms[k].name, fl);
        for (int c = 0; c < NSUMMARY; c++) {
            int f = SUMMARY[c].fig, st = SUMMARY[c].stat;
            double x = st == 0 ? arms[k].med[f] : st == 1 ? arms[k].mean[f] : arms[k].max[f];
            if (isnan(x))
                printf(" %*s", SUMMARY[c].width, "-");
            else if (f == PF_STANDIN || f == PF_DEF + PDEF_STORE2_DURING_LIVE_SHARE)
                printf(" %*.2f%%", SUMMARY[c].width - 1, 100 * x);
            else if (f == PF_LPR || f == PF_DURING_LPR)
                printf(" %*.3f", SUMMARY[c].width, x);
            else
                printf(" %*.1f", SUMMARY[c].width, x);
        }
        putchar('\n');
    }
}
