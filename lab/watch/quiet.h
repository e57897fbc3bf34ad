/* quiet: the one definition of a quiet run, as pure logic.
 *
 * A run is quiet when nothing but the lab disturbed it: the hypervisor did
 * not steal the machine's time, the tester sent every request on time, no
 * other process took the measured cores' time from the lab's own, and the
 * cores the run was not pinned to stayed idle.  The limits are data,
 * read from data/quiet.tsv, which `prepare` registers with the guesses
 * before any timed run (so they cannot be chosen after seeing the results).
 * This header is the lab's statement of the rules (quiet_judge, below);
 * the stages and the verifier state and compute them on their own, from
 * the same raw files.  A rule is broken when its figure passes its limit
 * (other_idle below other_idle_min; each other figure above its *_max); a
 * figure that is NAN breaks no rule.
 *
 * The inputs are a run's machine rows (machine.tsv.gz: per second, ticks of
 * the whole machine "A" and of the measured cores "M") and the tester's
 * lateness (send - scheduled) of every request.  Nothing here keeps
 * memory: the limits and the result are plain structs.
 */
#ifndef LAB_QUIET_H
#define LAB_QUIET_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    double steal_run_max;     /* steal share of the whole machine over the run */
    double steal_second_max;  /* ... in any one second */
    double late_p99_max_ms;   /* the tester's lateness, 99th percentile */
    double late_max_max_ms;   /* ... and its maximum */
    double other_idle_min;    /* idle share of the cores not measured, over the run */
    double foreign_second_max; /* share of the measured cores' time used by others, in any one second */
} quiet_limits;

/* One second of machine.tsv.gz for one scope. */
typedef struct {
    uint64_t total, idle, steal, lab;
} quiet_ticks;

#define QUIET_NREASONS 6

typedef struct {
    int quiet;
    /* every figure the rules look at (NAN when there is nothing to look at:
     * no second, no request, or no core outside the measured ones):
     * steal_run = Σ steal / Σ total of the whole machine, steal_second_max
     * its largest share in one second, late_p99_ms and late_max_ms of the
     * lateness (lab/base/util.h's percentile), other_idle = (Σ idle of the
     * machine - Σ idle of the measured cores) / (the same of total), clipped
     * to [0, 1] (the two are sampled apart, so the ratio can come out a tick
     * outside), foreign_second_max the largest share of the measured cores'
     * time in one second neither idle, stolen nor the lab's own */
    double steal_run, steal_second_max, late_p99_ms, late_max_ms, other_idle, foreign_second_max;
    int nreasons;
    const char *rule[QUIET_NREASONS]; /* the rules broken, by name: "steal_run_max" */
    char reasons[QUIET_NREASONS][96]; /* the same in words, with the figure */
} quiet_result;

/* data/quiet.tsv (lab/base/tsv.h's grammar: "#" lines are comments): a header
 * "rule<TAB>limit", then one line per field of
 * quiet_limits (every one, each once); -1 naming file, line and field. */
int quiet_load(const char *path, quiet_limits *q, char *err, size_t errlen);

/* all[i], meas[i]: second i of the run, whole machine and measured cores;
 * late_ns: the lateness of each request (sorted or not; it is sorted in
 * place). */
void quiet_judge(const quiet_limits *q, const quiet_ticks *all, const quiet_ticks *meas, size_t nsec,
                 int64_t *late_ns, size_t nlate, quiet_result *out);

/* Judge the run folder `dir` from its files (machine.tsv.gz and
 * tester.tsv.gz, raw format 4: the lateness is send_us in an open loop,
 * 0 in a closed one, `closed`): 0, or -1 naming the file and line that
 * could not be read. */
int quiet_judge_run(const char *dir, int closed, const quiet_limits *q, quiet_result *out, char *err,
                    size_t errlen);

#endif
