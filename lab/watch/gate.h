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
 * The window seen in the run before (a note).  A run's settling (lab/run/run.c:
 * the tester has ended, and the only lab process with work left is a store
 * sleeping out lookups nobody waits for) is a time the machine is idle by
 * the lab's own design.  So run watches it as the gate watches
 * (gate_watch: a sample when it starts, every 250 ms, and when it ends; a
 * settling shorter than GATE_WINDOW_S is watched on to a whole window from
 * its start, a second that then costs the next run's own), and judges the
 * last window that ends at its last sample (from the latest sample at least
 * GATE_WINDOW_S before it) by the same rule; a window that passed is
 * written to a note (gate_note_write), one line:
 *     gate_note <TAB> end_ns <TAB> idle_share <TAB> steal_share
 * (end_ns on CLOCK_MONOTONIC).  The next run's tester takes it
 * (gate_note_take: read and removed, whatever it holds): a note whose window
 * ended at most GATE_NOTE_AGE_S before is that run's gate, passed, with
 * before_s its age; then that run does not wait a window of its own.
 * Between the window and the run lie only the lab's own work (the previous
 * run's stop and rewrite, this run's start); a foreign load that starts in
 * that gap is the run's watch's to see (lab/watch/quiet.h), as one that
 * starts after an own gate is.  A note that is missing, too old, of the
 * future or not one line of that form is no gate: the tester then runs its
 * own (a malformed one is named on stderr).  A note is used only when run
 * is given one (run --gate-note FILE); make measure does not give its runs
 * one yet (docs/DESIGN.md section 12: a path of the machine reached the
 * published records).
 *
 * Blocking, single-threaded; nothing here allocates.
 */
#ifndef LAB_GATE_H
#define LAB_GATE_H

#include <stddef.h>

#define GATE_IDLE_MIN 0.95
#define GATE_WINDOW_S 1.0
#define GATE_NOTE_AGE_S 2.0 /* a note's window ended at most this long before */
#define GATE_WATCH_MAX 32   /* samples a gate_watch keeps (the latest) */

typedef struct {
    int enabled, passed;
    double idle_share, steal_share, waited_s; /* shares NAN when not measured */
    double before_s; /* the gate was a note's window, ended this long before; NAN: the tester's own */
    int users_start, users_end;
} gate_res;

/* The samples of a settling (the latest GATE_WATCH_MAX), for a note. */
typedef struct {
    long long t[GATE_WATCH_MAX]; /* CLOCK_MONOTONIC ns of each */
    unsigned long long idle[GATE_WATCH_MAX], steal[GATE_WATCH_MAX], total[GATE_WATCH_MAX];
    int n; /* samples taken (the last at (n - 1) % GATE_WATCH_MAX) */
} gate_watch;

/* 0 passed, 1 gave up after wait_s seconds, -1 error (message on stderr).
 * Fills g's shares, waited_s and passed. */
int gate_run(double wait_s, gate_res *g);

/* Logged-in users now. */
int gate_users(void);

/* A sample now (the first: gate_watch_start), and when the next is due
 * (ns on CLOCK_MONOTONIC).  0, or -1 when /proc/stat could not be read
 * (message on stderr). */
int gate_watch_start(gate_watch *w);
int gate_watch_sample(gate_watch *w);
long long gate_watch_due(const gate_watch *w);

/* The window that ends at the last sample (see above): 1 and its shares in
 * *idle and *steal, its end in *end_ns; 0 when the samples span no window. */
int gate_watch_window(const gate_watch *w, double *idle, double *steal, long long *end_ns);

/* Write a note that the window ending at end_ns passed (atomically: a
 * temporary file renamed); 0, or -1 with a message naming the file. */
int gate_note_write(const char *path, long long end_ns, double idle, double steal, char *err, size_t errlen);

/* Take the note at path (removed whatever it holds): 1 when it is a gate
 * (g filled: enabled, passed, idle_share, steal_share, waited_s 0, before_s
 * its age now), 0 when it is none (missing, too old, of the future,
 * failing the rule, or malformed: then named on stderr). */
int gate_note_take(const char *path, gate_res *g);

#endif
