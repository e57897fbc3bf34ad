/* gate: see gate.h. */
#include "gate.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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

/* ------------------------------------------------ the window of a settling */

static int watch_take(gate_watch *w)
{
    watch_ticks s;
    if (read_stat(&s) != 0)
        return -1;
    int i = w->n % GATE_WATCH_MAX;
    w->t[i] = ut_mono_ns();
    w->idle[i] = s.idle;
    w->steal[i] = s.steal;
    w->total[i] = s.total;
    w->n++;
    return 0;
}

int gate_watch_start(gate_watch *w)
{
    w->n = 0;
    return watch_take(w);
}

int gate_watch_sample(gate_watch *w)
{
    return watch_take(w);
}

long long gate_watch_due(const gate_watch *w)
{
    return w->t[(w->n - 1) % GATE_WATCH_MAX] + GATE_STEP_NS;
}

int gate_watch_window(const gate_watch *w, double *idle, double *steal, long long *end_ns)
{
    if (w->n < 2)
        return 0;
    int b = (w->n - 1) % GATE_WATCH_MAX;
    int64_t need = (int64_t)llround(GATE_WINDOW_S * 1e9);
    int oldest = w->n > GATE_WATCH_MAX ? w->n - GATE_WATCH_MAX : 0;
    for (int k = w->n - 2; k >= oldest; k--) {
        int a = k % GATE_WATCH_MAX;
        if (w->t[b] - w->t[a] < need)
            continue;
        double dt = (double)(w->total[b] - w->total[a]);
        *idle = dt > 0 ? (double)(w->idle[b] - w->idle[a]) / dt : 0;
        *steal = dt > 0 ? (double)(w->steal[b] - w->steal[a]) / dt : 0;
        *end_ns = w->t[b];
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ the note */

int gate_note_write(const char *path, long long end_ns, double idle, double steal, char *err, size_t errlen)
{
    char text[128];
    int n = snprintf(text, sizeof text, "gate_note\t%lld\t%.17g\t%.17g\n", end_ns, idle, steal);
    return ut_write_file(path, text, (size_t)n, err, errlen);
}

int gate_note_take(const char *path, gate_res *g)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256], extra[8];
    int got = fgets(line, sizeof line, f) != NULL, more = fgets(extra, sizeof extra, f) != NULL;
    fclose(f);
    unlink(path);
    long long end_ns;
    double idle, steal;
    int used = 0;
    if (got && !more && sscanf(line, "gate_note\t%lld\t%lf\t%lf", &end_ns, &idle, &steal) == 3 &&
        line[strlen(line) - 1] == '\n' && idle >= 0 && idle <= 1 && steal >= 0 && steal <= 1) {
        int64_t age = ut_mono_ns() - end_ns;
        if (age < 0 || age > (int64_t)llround(GATE_NOTE_AGE_S * 1e9) || idle < GATE_IDLE_MIN)
            return 0;
        g->enabled = g->passed = 1;
        g->idle_share = idle;
        g->steal_share = steal;
        g->waited_s = 0;
        g->before_s = (double)age / 1e9;
        used = 1;
    } else {
        ut_err("%s:1: not a gate note (gate_note, end_ns, idle_share, steal_share: lab/watch/gate.h); "
               "the gate waits a window of its own",
               path);
    }
    return used;
}
