/* proc: see proc.h for the contract. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "opt.h"
#include "util.h"

static volatile sig_atomic_t g_sig;
static volatile sig_atomic_t g_pg; /* process group of the PROC_GROUP child being waited for, 0 if none */
static const int CAUGHT[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

static void on_signal(int sig)
{
    if (!g_sig)
        g_sig = sig;
    pid_t pg = (pid_t)g_pg;
    if (pg > 0)
        kill(-pg, SIGTERM);
}

void proc_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocking read or poll returns EINTR */
    for (size_t i = 0; i < sizeof CAUGHT / sizeof CAUGHT[0]; i++)
        sigaction(CAUGHT[i], &sa, NULL);
}

int proc_signal(void) { return (int)g_sig; }
void proc_signal_set(int sig) { g_sig = sig; }

int proc_exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

/* In the child, between fork and exec. */
static void child_setup(const proc_opts *o, const int fd[2], const sigset_t *old)
{
    if (o->flags & PROC_GROUP)
        setpgid(0, 0);
    /* a caught signal must not run the parent's handler here */
    for (int s = 1; s < NSIG; s++) {
        struct sigaction sa;
        if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)
            signal(s, SIG_DFL);
    }
    sigprocmask(SIG_SETMASK, old, NULL);
    if (o->cpus)
        sched_setaffinity(0, sizeof *o->cpus, o->cpus);
    if (o->nice)
        setpriority(PRIO_PROCESS, 0, o->nice); /* best effort: needs root to go below 0 */
    if (o->flags & PROC_GROUP) {
        int dn = open("/dev/null", O_RDONLY);
        if (dn >= 0) {
            dup2(dn, 0);
            close(dn);
        }
    }
    if (o->flags & PROC_PIPE_OUT) {
        dup2(fd[1], 1);
        if (o->flags & PROC_PIPE_ERR)
            dup2(fd[1], 2);
    }
}

/* The child's nice value after asking for `want`: set from here too (the
 * child may not have reached its own setpriority yet; the two succeed or
 * fail alike, the same user asking), then read back.  A child already gone
 * gets what this process could give it. */
static int proc_nice_of(pid_t pid, int want)
{
    int setok = 1;
    if (want)
        setok = setpriority(PRIO_PROCESS, (id_t)pid, want) == 0;
    errno = 0;
    int v = getpriority(PRIO_PROCESS, (id_t)pid);
    if (v == -1 && errno != 0) {
        errno = 0;
        int mine = getpriority(PRIO_PROCESS, 0);
        v = setok && want ? want : (mine == -1 && errno != 0 ? 0 : mine);
    }
    return v;
}

int proc_start(char *const argv[], const proc_opts *o, proc_child *c, char *err, size_t errlen)
{
    int fd[2] = {-1, -1};
    c->pid = 0;
    c->fd = -1;
    if ((o->flags & PROC_PIPE_OUT) && pipe2(fd, O_CLOEXEC) != 0) {
        ut_seterr(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        child_setup(o, fd, &old);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: cannot start %s: %s\n", ut_prog(), argv[0], strerror(errno));
        _exit(127);
    }
    int fork_errno = errno;
    if (pid > 0 && (o->flags & PROC_GROUP)) {
        setpgid(pid, pid);
        g_pg = pid; /* set before signals are unblocked: a signal from now on stops it */
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (o->flags & PROC_PIPE_OUT) {
        close(fd[1]);
        if (pid < 0)
            close(fd[0]);
        else
            c->fd = fd[0];
    }
    if (pid < 0) {
        ut_seterr(err, errlen, "cannot start %s: fork: %s", argv[0], strerror(fork_errno));
        return -1;
    }
    c->pid = pid;
    c->nice = proc_nice_of(pid, o->nice);
    return 0;
}

int proc_read_port(proc_child *c, const char *what, int *port, char *err, size_t errlen)
{
    char line[256];
    size_t n = 0;
    while (n < sizeof line - 1) {
        ssize_t r = read(c->fd, line + n, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || line[n] == '\n')
            break;
        n++;
    }
    line[n] = 0;
    if (n == 0) {
        ut_seterr(err, errlen, "%s did not start (see its message above)", what);
        return -1;
    }
    char *colon = strrchr(line, ':'), why[128];
    if (!colon || opt_int(colon + 1, 1, 65535, port, why, sizeof why) != 0) {
        ut_seterr(err, errlen, "%s said \"%s\", not where it listens", what, line);
        return -1;
    }
    return 0;
}

static void forget(proc_child *c)
{
    if ((pid_t)g_pg == c->pid)
        g_pg = 0;
    c->pid = 0;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

int proc_wait(proc_child *c, struct rusage *ru)
{
    int st = 0;
    pid_t r;
    if (c->pid <= 0)
        return -1;
    while ((r = wait4(c->pid, &st, 0, ru)) < 0 && errno == EINTR)
        ;
    int ok = r == c->pid, e = errno;
    forget(c);
    errno = e;
    return ok ? proc_exit_code(st) : -1;
}

int proc_stop(proc_child *c, int sig, double wait_s)
{
    if (c->pid <= 0)
        return -1;
    if (sig)
        kill(c->pid, sig);
    int status = 0;
    for (double waited = 0; waited < wait_s; waited += 0.01) {
        if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
            forget(c);
            return proc_exit_code(status);
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, &status, 0);
    forget(c);
    return -1;
}

char *proc_read_all(int fd)
{
    size_t n = 0, cap = 4096;
    char *b = malloc(cap);
    if (!b)
        exit(1);
    for (;;) {
        if (cap - n < 2048) {
            cap *= 2;
            b = realloc(b, cap);
            if (!b)
                exit(1);
        }
        ssize_t r = read(fd, b + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    b[n] = 0;
    return b;
}

int proc_capture(char *const argv[], char **out, int merge_err)
{
    proc_opts o = {.flags = PROC_GROUP | (out ? PROC_PIPE_OUT : 0) | (merge_err ? PROC_PIPE_ERR : 0)};
    proc_child c;
    if (proc_start(argv, &o, &c, NULL, 0) != 0)
        return -1;
    if (out) {
        *out = proc_read_all(c.fd);
        close(c.fd);
        c.fd = -1;
    }
    return proc_wait(&c, NULL);
}

/* One CPU number of a list, whole and in range. */
static int cpu_number(const char *s, size_t len, long *v, char *why, size_t whylen)
{
    char buf[32];
    int64_t x;
    if (len == 0 || len >= sizeof buf) {
        ut_seterr(why, whylen, "\"%.*s\" is not a CPU number", (int)len, s);
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = 0;
    char r[96];
    if (opt_i64(buf, 0, CPU_SETSIZE - 1, &x, r, sizeof r) != 0) {
        ut_seterr(why, whylen, "CPU \"%s\": %s", buf, r);
        return -1;
    }
    *v = (long)x;
    return 0;
}

int proc_cpus_parse(const char *s, cpu_set_t *set, char *why, size_t whylen)
{
    CPU_ZERO(set);
    const char *p = s;
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *dash = memchr(p, '-', len);
        long a, b;
        if (cpu_number(p, dash ? (size_t)(dash - p) : len, &a, why, whylen) != 0)
            return -1;
        b = a;
        if (dash && cpu_number(dash + 1, len - (size_t)(dash + 1 - p), &b, why, whylen) != 0)
            return -1;
        if (b < a) {
            ut_seterr(why, whylen, "%.*s: a range must go upwards", (int)len, p);
            return -1;
        }
        for (long c = a; c <= b; c++)
            CPU_SET((int)c, set);
        if (p[len] != ',')
            break;
        p += len + 1;
    }
    return 0;
}

/* utime and stime of a process, in clock ticks (USER_HZ). */
static int cpu_ticks(pid_t pid, unsigned long *ut, unsigned long *st)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    /* fields after the name: state(3) ... utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", ut, st) != 2)
        return -1;
    return 0;
}

int proc_cpu_s(pid_t pid, double *user, double *sys)
{
    unsigned long ut = 0, st = 0;
    if (cpu_ticks(pid, &ut, &st) != 0)
        return -1;
    long hz = sysconf(_SC_CLK_TCK);
    *user = (double)ut / (double)hz;
    *sys = (double)st / (double)hz;
    return 0;
}

int proc_cpu_ticks(pid_t pid, uint64_t *ticks)
{
    unsigned long ut = 0, st = 0;
    if (cpu_ticks(pid, &ut, &st) != 0)
        return -1;
    *ticks = (uint64_t)ut + (uint64_t)st;
    return 0;
}

long proc_peak_rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}
