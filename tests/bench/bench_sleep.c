/* bench_sleep: this machine's own timer lateness, the floor under the
 * tester's.  Sleeps with clock_nanosleep(TIMER_ABSTIME) to each time of a
 * Poisson schedule (450/s for 10 s by default) and prints how late it woke:
 * p50, p99, max.  Nothing else runs; compare with the tester's lateness
 * printed beside it by make bench.
 *
 *   bench_sleep [RATE] [SECONDS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#include "util.h"

static int cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    double rate = argc > 1 ? atof(argv[1]) : 450, secs = argc > 2 ? atof(argv[2]) : 10;
    size_t cap = (size_t)(rate * secs * 2 + 100), n = 0;
    int64_t *late = malloc(cap * sizeof *late);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    ut_rng r;
    ut_rng_seed(&r, 1);
    int64_t t0 = ut_mono_ns() + 20000000, off = 0, end = (int64_t)(secs * 1e9);
    for (;;) {
        off += llround(ut_rng_exp(&r) * 1e9 / rate);
        if (off >= end || n == cap)
            break;
        int64_t at = t0 + off;
        struct timespec ts = {.tv_sec = at / 1000000000, .tv_nsec = at % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
        }
        late[n++] = ut_mono_ns() - at;
    }
    qsort(late, n, sizeof *late, cmp);
    printf("machine timer lateness (clock_nanosleep to a %.0f/s Poisson schedule, %zu wake-ups): "
           "p50 %.1f us  p99 %.1f us  max %.1f us\n",
           rate, n, (double)late[n / 2] / 1e3, (double)late[(size_t)((double)(n - 1) * 0.99)] / 1e3,
           (double)late[n - 1] / 1e3);
    free(late);
    return 0;
}
