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
 *
 * The watch log is the machine watched through a run (machine.tsv.gz of
 * lab/RAWFORMAT.md): watch_log_start reads /proc/stat at the run's start,
 * each watch_log_sample reads it again and keeps the ticks since the last
 * reading, of the whole machine (scope 'A') and of the measured cores ('M',
 * a mask of cores); watch_log_write writes them.  The log owns its rows:
 * watch_log_free frees them.
 */
#ifndef LAB_WATCH_H
#define LAB_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/* A comma-separated list of pids ("12,345") into pids (at most max). */
int watch_parse_pids(const char *s, pid_t *pids, int max, int *n, char *why, size_t whylen);

/* The cores this process may run on (sched_getaffinity), as a mask. */
int watch_mask_self(unsigned char mask[WATCH_MAXCPU / 8], char *err, size_t errlen);

typedef struct {
    int64_t t;      /* CLOCK_MONOTONIC ns of the reading */
    char scope;     /* 'A' or 'M' */
    watch_ticks d;  /* ticks since the previous reading */
    uint64_t lab;   /* ticks the run's own processes used since then */
} watch_row;

#define WATCH_MAXPIDS 8

typedef struct {
    unsigned char mask[WATCH_MAXCPU / 8];
    pid_t pid[WATCH_MAXPIDS]; /* the run's own processes (store, service, tester) */
    int npid;
    watch_snap prev;
    uint64_t prev_lab[WATCH_MAXPIDS];
    watch_row *rows;
    size_t n, cap;
} watch_log;

/* pids: the run's own processes, whose CPU time (utime + stime) is the
 * `lab` column: the measured cores' time not idle, stolen or the lab's is
 * someone else's. */
int watch_log_start(watch_log *w, const unsigned char mask[WATCH_MAXCPU / 8], const pid_t *pids, int npid,
                    char *err, size_t errlen);
int watch_log_sample(watch_log *w, int64_t now, char *err, size_t errlen);
int watch_log_write(const watch_log *w, const char *path, char *err, size_t errlen);
void watch_log_free(watch_log *w);

#endif
