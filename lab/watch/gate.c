/* gate: see gate.h. */
#include "gate.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <utmpx.h>

#include "util.h"
#include "watch.h"

#define NS_PER_S 1000000000LL
#define GATE_STEP_NS (250 * 1000000LL)
#define GATE_WINDOW ((int)(GATE_WINDOW_S * 1e9 / GATE_STEP_NS + 0.5)) /* steps */

/* The whole machine's ticks now (lab/watch/watch.h parses /proc/stat). */
static int read_stat(watch_ticks *s)
{
    watch_snap w;
    char err[256];
    if (watch_read(&w, err, sizeof err) != 0) {
        ut_err("%s", err);
        return -1;
    }
    *s = w.all;
    return 0;
}

int gate_users(void)
{
    int n = 0;
    struct utmpx *u;
    setutxent();
    while ((u = getutxent()) != NULL)
        if (u->ut_type == USER_PROCESS)
            n++;
    endutxent();
    return n;
}

static void sleep_until(int64_t t)
{
    struct timespec ts = {.tv_sec = t / NS_PER_S, .tv_nsec = t % NS_PER_S};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

int gate_run(double wait_s, gate_res *g)
{
    int64_t start = ut_mono_ns(), limit = start + (int64_t)llround(wait_s * 1e9);
    watch_ticks ring[GATE_WINDOW + 1];
    if (read_stat(&ring[0]) != 0)
        return -1;
    for (long k = 1;; k++) {
        int64_t t = start + k * GATE_STEP_NS;
        sleep_until(t);
        if (read_stat(&ring[k % (GATE_WINDOW + 1)]) != 0)
            return -1;
        if (k < GATE_WINDOW)
            continue;
        const watch_ticks *a = &ring[(k - GATE_WINDOW) % (GATE_WINDOW + 1)];
        const watch_ticks *b = &ring[k % (GATE_WINDOW + 1)];
        double dt = (double)(b->total - a->total);
        g->idle_share = dt > 0 ? (double)(b->idle - a->idle) / dt : 0;
        g->steal_share = dt > 0 ? (double)(b->steal - a->steal) / dt : 0;
        int64_t now = ut_mono_ns();
        g->waited_s = (double)(now - start) / 1e9;
        if (g->idle_share >= GATE_IDLE_MIN) {
            g->passed = 1;
            return 0;
        }
        if (t + GATE_STEP_NS > limit)
            return 1;
    }
}
