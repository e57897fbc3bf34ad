/* watch: the machine's CPU time from /proc/stat, for the idle gate and for
 * watching the machine through a run.
 *
 * A snapshot holds, for the whole machine ("cpu" line) and for each core
 * ("cpuN" lines), the ticks (USER_HZ, usually 1/100 s) spent in total, idle
 * (idle + iowait) and stolen by the hypervisor (steal).  Total is the sum of
 * user nice system idle iowait irq softirq steal: guest time is already
 * inside user and nice, so it is not added again.  The difference of two
 * snapshots gives the ticks of an interval; shares are ticks over ticks.
 *
 * watch_parse is pure (tested on made-up text); watch_read reads the file.
 * Nothing here allocates.
 */
#ifndef LAB_WATCH_H
#define LAB_WATCH_H

#include <stddef.h>
#include <stdint.h>

#define WATCH_MAXCPU 256

typedef struct {
    uint64_t total, idle, steal;
} watch_ticks;

typedef struct {
    watch_ticks all;
    int ncpu;                        /* highest core number seen + 1 */
    unsigned char has[WATCH_MAXCPU]; /* 1 when the cpuN line was there */
    watch_ticks cpu[WATCH_MAXCPU];
} watch_snap;

/* Parse the text of /proc/stat; -1 with a reason naming the line. */
int watch_parse(const char *text, watch_snap *s, char *err, size_t errlen);
int watch_read(watch_snap *s, char *err, size_t errlen);

/* Ticks between two snapshots (b later) of the whole machine (cpu -1) or of
 * one core; all zero when that core is missing from either. */
watch_ticks watch_delta(const watch_snap *a, const watch_snap *b, int cpu);

/* Ticks over the cores of a mask (bit k: core k) between two snapshots. */
watch_ticks watch_delta_cores(const watch_snap *a, const watch_snap *b, const unsigned char *mask);

#endif
