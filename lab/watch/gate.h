/* gate: the idle gate, the tester's check that the machine is quiet before
 * a run starts (so a run does not measure someone else's load).
 *
 * /proc/stat's aggregate cpu line is sampled every 250 ms; a window is two
 * samples GATE_WINDOW_S apart (1 s: the machine is watched through the run
 * as well, lab/watch/watch.h, so the gate need only see that nothing else
 * runs as the run starts; it was 2 s before 2026-12-02); idle share = d(idle+iowait)/d(total), steal share =
 * d(steal)/d(total), total = user+nice+system+idle+iowait+irq+softirq+steal
 * (guest time is already inside user and nice).  The gate passes at the
 * first window with idle share >= GATE_IDLE_MIN; it gives up when no window
 * did within the wait given (at least one window is always tried).
 * Logged-in users (utmp USER_PROCESS entries) are counted by gate_users.
 *
 * Blocking, single-threaded; nothing here allocates.
 */
#ifndef LAB_GATE_H
#define LAB_GATE_H

#define GATE_IDLE_MIN 0.95
#define GATE_WINDOW_S 1.0

typedef struct {
    int enabled, passed;
    double idle_share, steal_share, waited_s; /* shares NAN when not measured */
    int users_start, users_end;
} gate_res;

/* 0 passed, 1 gave up after wait_s seconds, -1 error (message on stderr).
 * Fills g's shares, waited_s and passed. */
int gate_run(double wait_s, gate_res *g);

/* Logged-in users now. */
int gate_users(void);

#endif
