/* playout: see playout.h for the contract. */
#include "playout.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "policy.h"

#define NL POL_MAX_LOOKUPS

void pout_header(const char *describe, int csv)
{
    if (csv) {
        printf("# %s\nseed,p99_ms,standin_share,lookups_per_request,longest_line,flooded,flood_from_s,"
               "error_share,slot_ms_per_request,requests,standins,errors,lookups,slot_ns",
               describe);
        pwin_csv_header(stdout);
        putchar('\n');
    } else
        printf("%s\n%6s %9s %14s %20s %13s %8s %13s %12s %20s %9s\n", describe, "seed", "p99_ms",
               "standin_share", "lookups_per_request", "longest_line", "flooded", "flood_from_s", "error_share",
               "slot_ms_per_request", "requests");
    fflush(stdout);
}

static double share(uint64_t k, size_t n) { return n ? (double)k / (double)n : NAN; }

int pout_seed(const play_result *R, int csv, int fault, double m[6])
{
    double si = share(R->standins, R->n), er = share(R->errors, R->n), lpr = share(R->lookups, R->n),
           slot = R->n ? (double)R->slot_ns / 1e6 / (double)R->n : NAN;
    int flooded = R->flood_from >= 0;
    char from[24] = "-";
    if (flooded)
        snprintf(from, sizeof from, "%ld", R->flood_from);
    if (csv) {
        printf("%" PRIu32 ",%.6f,%.6f,%.6f,%zu,%s,%s,%.6f,%.6f,%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64
               ",%" PRId64,
               R->seed, R->p99_ms, si, lpr, R->line_max, flooded ? "yes" : "no", flooded ? from : "", er,
               slot, R->n, R->standins, R->errors, R->lookups, R->slot_ns);
        pwin_csv_row(&R->win, stdout);
        putchar('\n');
    } else if (R->n)
        printf("%6" PRIu32 " %9.2f %13.2f%% %20.3f %13zu %8s %13s %11.2f%% %20.2f %9zu\n", R->seed,
               R->p99_ms, 100 * si, lpr, R->line_max, flooded ? "yes" : "no", from, 100 * er, slot, R->n);
    else
        printf("%6" PRIu32 " %9s %14s %20s %13s %8s %13s %12s %20s %9d\n", R->seed, "-", "-", "-", "-", "-",
               "-", "-", "-", 0);
    if (!csv && fault)
        pwin_print(&R->win, "       ", stdout);
    m[0] = R->p99_ms;
    m[1] = si;
    m[2] = lpr;
    m[3] = (double)R->line_max;
    m[4] = er;
    m[5] = slot;
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
    printf("%s seed %" PRIu32 ", by request: req,arrive_ns,answer_ns,kind,a0_start_ns,a0_out,a1_start_ns,a1_out,"
           "a2_start_ns,a2_out\n",
           p, seed);
    static const char kind[] = {[POL_PENDING] = '-', [POL_LIVE] = 'L', [POL_STANDIN] = 'S', [POL_TIMEOUT] = 'E',
                                [POL_FAILED] = 'E'};
    for (size_t r = 0; r < t->n; r++) {
        printf("%s %zu,%" PRId64 ",", p, r, t->arrive[r]);
        if (t->answer[r] >= 0)
            printf("%" PRId64, t->answer[r]);
        printf(",%c", kind[t->done[r]]);
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

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void pout_medians(double *m[6], size_t nm, int nflood, size_t nseeds)
{
    printf("%6s %9.2f %13.2f%% %20.3f %13.0f %5d/%-2zu %13s %11.2f%% %20.2f\n", "median", median(m[0], nm),
           100 * median(m[1], nm), median(m[2], nm), median(m[3], nm), nflood, nseeds, "", 100 * median(m[4], nm),
           median(m[5], nm));
}
