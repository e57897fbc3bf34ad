/* proc: child processes, for lab/run/run.c and pipeline/measure/measure.c.
 *
 * What it does
 * - proc_start forks and execs argv (PATH is searched when argv[0] has no
 *   '/'), optionally pinned to CPUs, with a nice value, its stdout (and its
 *   stderr too) into a pipe, in a process group of its own, stdin from
 *   /dev/null.  Signals are blocked across the fork, and the child puts back
 *   the default action of every caught signal before it unblocks them, so a
 *   signal never runs the parent's handler inside the child.  The nice
 *   value asked for is best effort; what the child got is read back
 *   (getpriority) into proc_child.nice, so a record can say the truth.
 * - proc_wait waits (EINTR is retried) and gives the exit code, or 128+N
 *   when signal N ended the child; with `ru` its resource use (wait4).
 * - proc_stop sends a signal, waits up to some seconds, then SIGKILL.
 * - proc_capture runs a command to its end and keeps its output.
 * - proc_cpu_s and proc_peak_rss_kb read a live child's CPU seconds and
 *   peak resident memory from /proc.
 * - proc_cpus_parse reads a CPU list such as "0", "0-1" or "0,2-3".
 * - proc_catch_signals: for a program that drives one child group at a time
 *   (measure).  SIGINT, SIGTERM, SIGHUP and SIGPIPE are caught, the first
 *   is remembered (proc_signal) and SIGTERM goes to the process group of
 *   the PROC_GROUP child being waited for, if any.  No SA_RESTART: a
 *   blocking read or poll returns EINTR.
 *
 * Ownership: proc_child.fd belongs to the caller once proc_start returned
 * it (proc_wait and proc_stop close it).  proc_capture and proc_read_all
 * return malloc'd text the caller frees.  Errors: 0 or -1 with a message in
 * the caller's buffer naming the program.
 */
#ifndef LAB_PROC_H
#define LAB_PROC_H

#include <sched.h>
#include <stddef.h>
#include <sys/resource.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    pid_t pid; /* 0 once waited for */
    int fd;    /* reading end of its stdout pipe, or -1 */
    int nice;  /* its nice value as read back (getpriority) once proc_start set it, whether or not the
                * one asked for could be set: the truth for the records */
} proc_child;

enum {
    PROC_PIPE_OUT = 1, /* stdout into a pipe (proc_child.fd) */
    PROC_PIPE_ERR = 2, /* with PROC_PIPE_OUT: stderr into the same pipe */
    PROC_GROUP = 4,    /* a process group of its own, stdin from /dev/null */
};

typedef struct {
    unsigned flags;        /* PROC_* */
    const cpu_set_t *cpus; /* pinned to these CPUs; NULL: not pinned */
    int nice;              /* setpriority in the child and again by the parent, best effort (below the
                            * parent's own needs root or RLIMIT_NICE); 0: unchanged.  What it came to is
                            * proc_child.nice, read back */
} proc_opts;

int proc_start(char *const argv[], const proc_opts *o, proc_child *c, char *err, size_t errlen);
/* The child's first line ends in ":PORT" (e.g. "store: listening on 127.0.0.1:41234"). */
int proc_read_port(proc_child *c, const char *what, int *port, char *err, size_t errlen);
int proc_wait(proc_child *c, struct rusage *ru);
int proc_stop(proc_child *c, int sig, double wait_s);
/* Run argv (PROC_GROUP); its stdout (merge_err: and stderr) into *out when
 * out is given; the exit code, or -1 when it could not start. */
int proc_capture(char *const argv[], char **out, int merge_err);
/* fd to EOF, malloc'd and NUL-terminated. */
char *proc_read_all(int fd);
int proc_exit_code(int status);

int proc_cpus_parse(const char *s, cpu_set_t *set, char *why, size_t whylen);
int proc_cpu_s(pid_t pid, double *user, double *sys);
/* user + system CPU time of a process in clock ticks (USER_HZ, as
 * /proc/stat counts): 0, or -1 when it is gone. */
int proc_cpu_ticks(pid_t pid, uint64_t *ticks);
long proc_peak_rss_kb(pid_t pid); /* VmHWM in kB; -1 if unknown */

void proc_catch_signals(void);
int proc_signal(void);        /* the first signal caught, 0 if none */
void proc_signal_set(int sig); /* forget (0) or put back a caught signal */

#endif
