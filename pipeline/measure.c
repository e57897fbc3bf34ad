/* measure: run the schedule, every arm x round, one `build/bin/run` each.
 *
 *   measure --profile full|quick|tiny --root OUT [--prep build/prep] [--arms lab/arms.tsv]
 *           [--bin build/bin] [--cores 0] [--gate 1|0] [--data data]
 *           [--host user@host] [--ssh-opts "-p 2222 -i KEY ..."]
 *           [--settle-s S]        tests only: passed to run (the store's run-on after the last answer)
 *           [--only RUN,RUN,...]  internal: the far side of --host measures only these runs
 *
 * Before anything runs:
 * - data/guesses.tsv and data/design.md must still match their registration
 *   OUT/provenance/prereg.json (written by prepare); otherwise exit 2, naming
 *   the file.  The guesses are written before any timed run, and stay so.
 * - OUT/results is locked (flock on the folder): one measure per OUT.  The
 *   lock is inherited by the runs it starts, so a run left behind by a killed
 *   measure keeps it until it ends; a second measure waits up to 150 s.
 * - The schedule (PROFILES below) is written to OUT/results/schedule.tsv; a
 *   rerun must produce the same file.  When it would not (another profile,
 *   other arms) and OUT/results/raw holds runs, or raw holds a folder that is
 *   no run of this schedule, exit 2: use another OUT.
 * - build/prep/scores.tsv and summary.json are copied (atomically) into
 *   OUT/results/reference/; if a copy there differs while raw holds runs,
 *   exit 2 (those runs were measured against other prepared files).
 * - Every scheduled run folder OUT/results/raw/<arm>-r<round>/ is checked: a
 *   complete run (exactly run.json and the three event files, each file's
 *   sha256 and size equal to run.json's `files`, `seconds` equal to the
 *   profile's) is kept; any other folder is named on stderr, removed and
 *   measured again.  So a rerun after an interruption measures only the rest.
 *
 * Each run: the idle gate runs inside `run` (the tester waits up to 60 s for
 * 95% idle); the system log position is taken before and the lines written
 * during the run are kept, from the first of journalctl, /var/log/syslog,
 * the kernel log (/dev/kmsg, else `dmesg`) that this machine has, or none.
 * OUT/provenance/runs/<run>.json (atomic) holds: the run's argv, exit code,
 * UTC start and end, wall time, gate_passed, host facts, idle/steal/users,
 * CPU shares and peak memory (copied from run.json), run's own output, and
 * "syslog": {"source", "lines", ["note"]} (lines redacted with pipeline/redact.c,
 * as provenance is published and scanned for secrets; collect redacts again).
 * A run that cannot pass the idle gate (run exit 3) is recorded with
 * "gate_passed": false and the schedule goes on; a run that fails otherwise
 * is recorded and measure stops (exit 1).
 *
 * Progress on stderr, one line per run: "measure: run k of N  ARM round R
 * elapsed m:ss  left ~m:ss" (left: mean wall time of the runs measured in this
 * invocation times the runs still to measure; before the first one, the
 * profile's seconds plus settle plus 1 s each).  On a terminal the line is
 * updated in place every second.
 *
 * At the end, whatever happened: OUT/provenance/stage-measure.json (prov.h;
 * argv with the host and ssh options replaced by placeholders, since the
 * secret scanner rejects non-loopback addresses).  Only when every scheduled
 * run is complete: OUT/provenance/manifest-measure.tsv (path size sha256,
 * one line per file under results/raw/ and results/reference/, paths
 * relative to OUT).
 *
 * --host user@host: the same schedule on another machine over ssh (needs
 * there only sshd, sh, tar, mktemp and the same Debian libraries as here:
 * libevent, libjansson, zlib, OpenSSL).  It makes a fresh folder (mktemp -d),
 * copies the built programs (run, store, service, tester and this measure),
 * the prepared files the runs read, lab/arms.tsv, the registered data files
 * and prereg.json there (tar over ssh), runs `measure --only <runs not yet
 * complete at home>` there with its progress streamed, copies results/raw,
 * results/schedule.tsv and provenance/runs home (tar over ssh), checks every
 * run folder against its run.json at home, and only then removes the far
 * folder (kept, and named, if anything did not come home intact).  ssh runs
 * with BatchMode=yes (key login; accept the host key once beforehand);
 * options from --ssh-opts, else $LAB_SSH_OPTS, go first.
 *
 * Exit: 0 every scheduled run complete; 1 a run failed, or --host copying
 * failed; 2 refused (options, preregistration, schedule, lock); 3 some runs
 * could not pass the idle gate (a rerun measures only those); 128+N stopped
 * by signal N (SIGINT, SIGTERM, SIGHUP, SIGPIPE: the run in progress is
 * stopped, its temporary folder discarded, the complete runs kept).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arms.h"
#include "redact.h"
#include "prov.h"
#include "util.h"

/* ------------------------------------------------------------------ profiles
 *
 * The schedule of a profile: for round r = 1 .. rounds, the profile's arms in
 * lab/arms.tsv's order, shuffled by Fisher-Yates with ut_rng (util.h:
 * splitmix64-seeded xoshiro256**) seeded 7919*r: for i = n-1 down to 1,
 * j = ut_rng_u64() % (i+1), swap items i and j.  Every run lasts `seconds`.
 * The seed depends on the round only, so every profile with the same arms
 * gets the same order, and a rerun the same schedule. */
typedef struct {
    const char *name;
    int rounds;
    double seconds;
    const char *arms; /* comma-separated arm names; NULL: every arm of lab/arms.tsv */
} profile;

static const profile PROFILES[] = {
    {"full", 5, 30.0, NULL},  /* the design's 21 arms and Z-capacity */
    {"quick", 2, 4.0, NULL},  /* every arm, a few seconds: the pipeline in minutes */
    {"tiny", 2, 1.0, "F3-none,H3-fb25,H3-dl,H3-dldown,H3-r2,Z-capacity"}, /* tests */
};
#define SHUFFLE_MULT 7919ULL

static const char *EVENT_FILES[3] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz"};
/* The prepared files a run reads, and the two references the verifier uses. */
static const char *PREP_FILES[5] = {"test.tsv", "model.json", "standin.tsv", "scores.tsv", "summary.json"};
static const char *REF_FILES[2] = {"scores.tsv", "summary.json"};
static const char *LAB_PROGS[4] = {"run", "store", "service", "tester"};
static const char *PREREG_FILES[2] = {"guesses.tsv", "design.md"};
#define MAX_LOG_LINES 20000
#define LOCK_WAIT_S 150

/* ------------------------------------------------------------------ small helpers */

static char *xs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xs(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fputs("measure: out of memory\n", stderr);
        exit(1);
    }
    return s;
}

/* s in single quotes for sh. */
static char *shq(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *o = malloc(n), *q = o;
    if (!o)
        exit(1);
    *q++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(q, "'\\''", 4);
            q += 4;
        } else {
            *q++ = *p;
        }
    }
    *q++ = '\'';
    *q = 0;
    return o;
}

typedef struct {
    char **v;
    size_t n, cap;
} strlist;

static void sl_add(strlist *l, char *s) /* takes s */
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            exit(1);
    }
    l->v[l->n++] = s;
}

static void sl_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    return remove(p) != 0 && errno != ENOENT ? -1 : 0;
}

static int rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Names in dir (not starting with '.'), sorted; dirs_only: folders only. */
static void list_dir(const char *dir, int dirs_only, strlist *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (dirs_only) {
            char *p = xs("%s/%s", dir, e->d_name);
            int isd = is_dir(p);
            free(p);
            if (!isd)
                continue;
        }
        sl_add(out, xs("%s", e->d_name));
    }
    closedir(d);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cmp_str);
}

/* Files under root/rel, recursively, as paths relative to root (dot names skipped). */
static void list_files(const char *root, const char *rel, strlist *out)
{
    char *dir = xs("%s/%s", root, rel);
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *r = xs("%s/%s", rel, e->d_name), *full = xs("%s/%s", root, r);
        struct stat st;
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
            list_files(root, r, out);
            free(r);
        } else if (S_ISREG(st.st_mode)) {
            sl_add(out, r);
        } else {
            free(r);
        }
        free(full);
    }
    closedir(d);
    free(dir);
}

static void fmt_dur(double s, char *buf, size_t n)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

/* A JSON string of the bytes as they are, or, when they are not UTF-8, with
 * every byte above 0x7f written as \xNN (jansson stores UTF-8 only). */
/* A log line as a JSON string, redacted first (addresses, host names, ids,
 * keys: pipeline/redact.h), since provenance is published and scanned. */
static json_t *line_json(const char *p0, size_t len0)
{
    char raw[4096], red[8192];
    size_t cut = len0 < sizeof raw - 1 ? len0 : sizeof raw - 1;
    memcpy(raw, p0, cut);
    raw[cut] = 0;
    for (size_t i = 0; i < cut; i++)
        if (!raw[i])
            raw[i] = ' ';
    redact_line(raw, red, sizeof red);
    const char *p = red;
    size_t len = strlen(red);
    json_t *s = json_stringn(p, len);
    if (s)
        return s;
    char *b = malloc(len * 4 + 1), *q = b;
    if (!b)
        exit(1);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch >= 0x80 || ch == 0) {
            snprintf(q, 5, "\\x%02x", ch);
            q += 4;
        } else {
            *q++ = (char)ch;
        }
    }
    *q = 0;
    s = json_string(b);
    free(b);
    return s ? s : json_string("(unreadable line)");
}

/* Text split into lines, appended to a JSON array (at most `cap` in all). */
static void add_lines(json_t *arr, const char *text, size_t cap, size_t *dropped)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (json_array_size(arr) < cap)
            json_array_append_new(arr, line_json(p, len));
        else if (dropped)
            (*dropped)++;
        p += len + (nl ? 1 : 0);
    }
}

/* ------------------------------------------------------------------ children and signals */

static volatile sig_atomic_t g_sig;
static volatile sig_atomic_t g_pg; /* process group of the child being waited for, 0 if none */
static const int HANDLED[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

static void on_signal(int sig)
{
    if (!g_sig)
        g_sig = sig;
    pid_t pg = (pid_t)g_pg;
    if (pg > 0)
        kill(-pg, SIGTERM);
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocking read or poll returns EINTR */
    for (size_t i = 0; i < sizeof HANDLED / sizeof HANDLED[0]; i++)
        sigaction(HANDLED[i], &sa, NULL);
}

/* Start argv (execvp) in a process group of its own, stdin from /dev/null.
 * With out_fd, the child's stdout (and with merge_err its stderr too) go
 * into a pipe whose reading end is returned there.  The group is what a
 * signal to measure stops (on_signal). */
static pid_t spawn(char *const argv[], int *out_fd, int merge_err)
{
    int fd[2] = {-1, -1};
    if (out_fd && pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        for (size_t i = 0; i < sizeof HANDLED / sizeof HANDLED[0]; i++)
            signal(HANDLED[i], SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        int dn = open("/dev/null", O_RDONLY);
        if (dn >= 0) {
            dup2(dn, 0);
            close(dn);
        }
        if (out_fd) {
            dup2(fd[1], 1);
            if (merge_err)
                dup2(fd[1], 2);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "measure: cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (pid > 0) {
        setpgid(pid, pid);
        g_pg = pid;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (out_fd) {
        close(fd[1]);
        if (pid < 0)
            close(fd[0]);
        else
            *out_fd = fd[0];
    }
    return pid;
}

static int wait_child(pid_t pid)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            g_pg = 0;
            return -1;
        }
    }
    g_pg = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Read fd to EOF into a malloc'd string. */
static char *read_all(int fd)
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

/* Run argv; its stdout into *out (malloc'd) when out is given; the exit code. */
static int run_capture(char *const argv[], char **out, int merge_err)
{
    int fd = -1;
    pid_t pid = spawn(argv, out ? &fd : NULL, merge_err);
    if (pid < 0)
        return -1;
    if (out) {
        *out = read_all(fd);
        close(fd);
    }
    return wait_child(pid);
}

static int sh(const char *cmd, char **out)
{
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    return run_capture(argv, out, 0);
}

/* ------------------------------------------------------------------ system log */

enum { LOG_NONE, LOG_JOURNAL, LOG_SYSLOG, LOG_KMSG, LOG_DMESG };
static const char *LOG_NAMES[] = {"none", "journalctl", "/var/log/syslog", "dmesg", "dmesg"};

typedef struct {
    int kind;
    char *cursor;   /* journal: the last entry's cursor before the run */
    long since_s;   /* journal: realtime seconds before the run (when no cursor) */
    off_t off;      /* syslog: size before */
    ino_t ino;      /* syslog: inode before */
    int fd;         /* kmsg: positioned at the end before the run */
    size_t nlines;  /* dmesg command: lines before */
} logpos;

static int probe_log(void)
{
    /* journalctl exits 0 even where it has no journal ("No journal files were found.") */
    char *argv[] = {"journalctl", "--no-pager", "-n", "1", NULL};
    char *out = NULL;
    int rc = run_capture(argv, &out, 1);
    int journal = rc == 0 && out && !strstr(out, "No journal files");
    free(out);
    out = NULL;
    if (journal)
        return LOG_JOURNAL;
    struct stat st;
    if (stat("/var/log/syslog", &st) == 0 && S_ISREG(st.st_mode) && access("/var/log/syslog", R_OK) == 0)
        return LOG_SYSLOG;
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return LOG_KMSG;
    }
    char *dargv[] = {"dmesg", NULL};
    rc = run_capture(dargv, &out, 0);
    free(out);
    return rc == 0 ? LOG_DMESG : LOG_NONE;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void log_begin(int kind, logpos *lp)
{
    memset(lp, 0, sizeof *lp);
    lp->kind = kind;
    lp->fd = -1;
    if (kind == LOG_JOURNAL) {
        char *argv[] = {"journalctl", "-q", "--no-pager", "-n", "1", "--show-cursor", "-o", "cat", NULL};
        char *out = NULL;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        lp->since_s = (long)ts.tv_sec;
        if (run_capture(argv, &out, 0) == 0) {
            char *c = strstr(out, "-- cursor: ");
            if (c) {
                c += 11;
                c[strcspn(c, "\r\n")] = 0;
                lp->cursor = xs("%s", c);
            }
        }
        free(out);
    } else if (kind == LOG_SYSLOG) {
        struct stat st;
        if (stat("/var/log/syslog", &st) == 0) {
            lp->off = st.st_size;
            lp->ino = st.st_ino;
        }
    } else if (kind == LOG_KMSG) {
        lp->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (lp->fd >= 0)
            lseek(lp->fd, 0, SEEK_END);
    } else if (kind == LOG_DMESG) {
        char *argv[] = {"dmesg", NULL};
        char *out = NULL;
        if (run_capture(argv, &out, 0) == 0)
            lp->nlines = count_lines(out);
        free(out);
    }
}

/* The lines written since log_begin: {"source", "lines", ["note"]}. */
static json_t *log_end(logpos *lp)
{
    json_t *o = json_object(), *lines = json_array();
    size_t dropped = 0;
    const char *note = NULL;
    char *out = NULL;
    if (lp->kind == LOG_JOURNAL) {
        char *after = lp->cursor ? xs("--after-cursor=%s", lp->cursor) : xs("--since=@%ld", lp->since_s);
        char *argv[] = {"journalctl", "-q", "--no-pager", "-o", "short-iso", after, NULL};
        if (run_capture(argv, &out, 0) == 0)
            add_lines(lines, out, MAX_LOG_LINES, &dropped);
        else
            note = "journalctl failed after the run";
        if (!lp->cursor)
            note = "the journal was empty before the run: lines since the whole second the run began";
        free(after);
    } else if (lp->kind == LOG_SYSLOG) {
        FILE *f = fopen("/var/log/syslog", "r");
        struct stat st;
        if (f && fstat(fileno(f), &st) == 0) {
            if (st.st_ino == lp->ino && st.st_size >= lp->off)
                fseeko(f, lp->off, SEEK_SET);
            else
                note = "/var/log/syslog was rotated during the run: lines of the new file only";
            size_t cap = 1 << 16, n = 0;
            out = malloc(cap);
            size_t r;
            while (out && (r = fread(out + n, 1, cap - n - 1, f)) > 0) {
                n += r;
                if (cap - n < 4096)
                    out = realloc(out, cap *= 2);
            }
            if (out) {
                out[n] = 0;
                add_lines(lines, out, MAX_LOG_LINES, &dropped);
            }
        } else {
            note = "/var/log/syslog could not be read after the run";
        }
        if (f)
            fclose(f);
    } else if (lp->kind == LOG_KMSG) {
        /* records "prio,seq,usec,flags;text\n" then " KEY=value" lines */
        char buf[8192];
        while (lp->fd >= 0) {
            ssize_t n = read(lp->fd, buf, sizeof buf - 1);
            if (n < 0 && (errno == EINTR || errno == EPIPE))
                continue; /* EPIPE: records overwritten meanwhile; the next read goes on */
            if (n <= 0)
                break;    /* EAGAIN: no more */
            buf[n] = 0;
            char *semi = strchr(buf, ';');
            unsigned long long usec = 0;
            if (!semi || sscanf(buf, "%*d,%*u,%llu", &usec) != 1)
                continue;
            semi[1 + strcspn(semi + 1, "\n")] = 0;
            if (json_array_size(lines) < MAX_LOG_LINES) {
                char *t = xs("[%5llu.%06llu] %s", usec / 1000000, usec % 1000000, semi + 1);
                json_array_append_new(lines, line_json(t, strlen(t)));
                free(t);
            } else {
                dropped++;
            }
        }
        if (lp->fd >= 0)
            close(lp->fd);
        lp->fd = -1;
    } else if (lp->kind == LOG_DMESG) {
        char *argv[] = {"dmesg", NULL};
        if (run_capture(argv, &out, 0) == 0) {
            const char *p = out;
            for (size_t i = 0; i < lp->nlines && p; i++) {
                p = strchr(p, '\n');
                if (p)
                    p++;
            }
            if (p)
                add_lines(lines, p, MAX_LOG_LINES, &dropped);
        }
        note = "`dmesg` lines after the count taken before the run (the ring buffer may have wrapped)";
    } else {
        note = "none of journalctl, /var/log/syslog, /dev/kmsg or dmesg can be read on this machine";
    }
    free(out);
    free(lp->cursor);
    lp->cursor = NULL;
    json_object_set_new(o, "source", json_string(LOG_NAMES[lp->kind]));
    json_object_set_new(o, "lines", lines);
    if (dropped) {
        char *t = xs("%zu further lines not kept (at most %d)", dropped, MAX_LOG_LINES);
        json_object_set_new(o, "note", json_string(t));
        free(t);
    } else if (note) {
        json_object_set_new(o, "note", json_string(note));
    }
    return o;
}

/* ------------------------------------------------------------------ the schedule */

typedef struct {
    int k; /* 1-based place in the schedule */
    int round, pos;
    const arm *a;
    char name[64];
    int complete;
    int selected; /* measured by this invocation (all, unless --only) */
    int gated;    /* this invocation: the idle gate did not pass */
} slot;

typedef struct {
    const profile *pf;
    const char *root, *prep, *arms_path, *bin, *cores, *data, *host, *ssh_opts, *only, *settle;
    int gate;
    char *results, *raw, *provdir, *runsdir, *sched_path;
    arm_table arms;
    slot *s;
    int n;
    int tty, line_open;
    int64_t t0;
    double measured_wall;
    int measured_n, kept_n;
    int logkind;
} ctx;

static void say(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(ctx *c, const char *fmt, ...)
{
    if (c->line_open) {
        fputc('\n', stderr);
        c->line_open = 0;
    }
    va_list ap;
    va_start(ap, fmt);
    fputs("measure: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
}

static int build_schedule(ctx *c, char *err, size_t errlen)
{
    const arm **list = calloc(c->arms.n, sizeof *list);
    size_t na = 0;
    if (!list)
        exit(1);
    if (!c->pf->arms) {
        for (size_t i = 0; i < c->arms.n; i++)
            list[na++] = &c->arms.v[i];
    } else {
        /* check each name, then take them in lab/arms.tsv's order */
        char *names = xs(",%s,", c->pf->arms);
        for (char *p = names + 1; *p;) {
            char *q = strchr(p, ',');
            *q = 0;
            if (*p && !arms_find(&c->arms, p)) {
                ut_seterr(err, errlen, "%s: no arm named %s (profile %s needs it)", c->arms_path, p, c->pf->name);
                free(names);
                free(list);
                return -1;
            }
            *q = ',';
            p = q + 1;
        }
        for (size_t i = 0; i < c->arms.n; i++) {
            char *pat = xs(",%s,", c->arms.v[i].name);
            if (strstr(names, pat))
                list[na++] = &c->arms.v[i];
            free(pat);
        }
        free(names);
    }
    if (na == 0) {
        ut_seterr(err, errlen, "%s: no arms", c->arms_path);
        free(list);
        return -1;
    }
    c->n = (int)na * c->pf->rounds;
    c->s = calloc((size_t)c->n, sizeof *c->s);
    const arm **order = calloc(na, sizeof *order);
    if (!c->s || !order)
        exit(1);
    int k = 0;
    for (int r = 1; r <= c->pf->rounds; r++) {
        memcpy(order, list, na * sizeof *order);
        ut_rng g;
        ut_rng_seed(&g, SHUFFLE_MULT * (uint64_t)r);
        for (size_t i = na - 1; i > 0; i--) {
            size_t j = (size_t)(ut_rng_u64(&g) % (uint64_t)(i + 1));
            const arm *t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (size_t i = 0; i < na; i++, k++) {
            slot *s = &c->s[k];
            s->k = k + 1;
            s->round = r;
            s->pos = (int)i + 1;
            s->a = order[i];
            s->selected = 1;
            snprintf(s->name, sizeof s->name, "%s-r%d", s->a->name, r);
        }
    }
    free(order);
    free(list);
    return 0;
}

static char *schedule_text(const ctx *c)
{
    size_t cap = 256 + (size_t)c->n * 64, n = 0;
    char *t = malloc(cap);
    if (!t)
        exit(1);
    n += (size_t)snprintf(t + n, cap - n,
                          "# lab-schedule 1: profile %s, %d rounds of %d arms, %g s each; order within round r: "
                          "Fisher-Yates, ut_rng seeded 7919*r (pipeline/measure.c)\n"
                          "k\tround\tposition\tarm\n",
                          c->pf->name, c->pf->rounds, c->n / c->pf->rounds, c->pf->seconds);
    for (int i = 0; i < c->n; i++)
        n += (size_t)snprintf(t + n, cap - n, "%d\t%d\t%d\t%s\n", c->s[i].k, c->s[i].round, c->s[i].pos,
                              c->s[i].a->name);
    return t;
}

/* ------------------------------------------------------------------ checks */

/* data/guesses.tsv and data/design.md against OUT/provenance/prereg.json. */
static int prereg_check(const ctx *c, char *err, size_t errlen)
{
    char *path = xs("%s/prereg.json", c->provdir);
    json_error_t je;
    json_t *reg = json_load_file(path, 0, &je);
    int rc = -1;
    if (!reg) {
        if (access(path, F_OK) != 0)
            ut_seterr(err, errlen, "%s: missing: the guesses and the design are not registered; run make prepare first",
                      path);
        else
            ut_seterr(err, errlen, "%s: %s (line %d)", path, je.text, je.line);
        free(path);
        return -1;
    }
    json_t *files = json_object_get(reg, "files");
    const char *when = json_string_value(json_object_get(reg, "registered_utc"));
    for (size_t i = 0; i < 2; i++) {
        const char *want = NULL;
        json_int_t size = -1;
        size_t idx;
        json_t *e;
        json_array_foreach(files, idx, e)
        {
            const char *p = json_string_value(json_object_get(e, "path"));
            const char *base = p ? strrchr(p, '/') : NULL;
            base = base ? base + 1 : p;
            if (base && !strcmp(base, PREREG_FILES[i])) {
                want = json_string_value(json_object_get(e, "sha256"));
                size = json_integer_value(json_object_get(e, "size"));
            }
        }
        char *file = xs("%s/%s", c->data, PREREG_FILES[i]);
        char sha[65];
        uint64_t sz = 0;
        if (!want) {
            ut_seterr(err, errlen, "%s: registers no %s: run make prepare first", path, file);
        } else if (ut_sha256_file(file, sha, &sz, err, errlen) != 0) {
            /* err says why */
        } else if (strcmp(sha, want) != 0 || (json_int_t)sz != size) {
            ut_seterr(err, errlen,
                      "%s changed since its registration in %s (registered %s): guesses and design are fixed "
                      "before any timed run; measure refuses to run",
                      file, path, when ? when : "at an unknown time");
        } else {
            free(file);
            continue;
        }
        free(file);
        goto done;
    }
    rc = 0;
done:
    json_decref(reg);
    free(path);
    return rc;
}

/* 1 complete, 0 absent, -1 present but not a complete run of this profile (why). */
static int check_run(const char *raw, const slot *s, double seconds, char *why, size_t wl)
{
    char *dir = xs("%s/%s", raw, s->name), *p = NULL;
    int rc = -1;
    json_t *r = NULL;
    struct stat st;
    if (lstat(dir, &st) != 0) {
        rc = errno == ENOENT ? 0 : -1;
        if (rc)
            snprintf(why, wl, "cannot be read: %s", strerror(errno));
        goto done;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, wl, "not a folder");
        goto done;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, wl, "cannot be opened: %s", strerror(errno));
        goto done;
    }
    struct dirent *e;
    int seen = 0, extra = 0;
    char odd[256] = "";
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!strcmp(e->d_name, "run.json"))
            seen |= 8;
        else if (!strcmp(e->d_name, EVENT_FILES[0]))
            seen |= 1;
        else if (!strcmp(e->d_name, EVENT_FILES[1]))
            seen |= 2;
        else if (!strcmp(e->d_name, EVENT_FILES[2]))
            seen |= 4;
        else if (!extra++)
            snprintf(odd, sizeof odd, "%s", e->d_name);
    }
    closedir(d);
    if (!(seen & 8)) {
        snprintf(why, wl, "no run.json");
        goto done;
    }
    for (int i = 0; i < 3; i++)
        if (!(seen & (1 << i))) {
            snprintf(why, wl, "no %s", EVENT_FILES[i]);
            goto done;
        }
    if (extra) {
        snprintf(why, wl, "holds %s, which is no raw file of a run", odd);
        goto done;
    }
    p = xs("%s/run.json", dir);
    json_error_t je;
    r = json_load_file(p, 0, &je);
    if (!r) {
        snprintf(why, wl, "run.json: %s", je.text);
        goto done;
    }
    const char *arm = json_string_value(json_object_get(r, "arm"));
    json_t *jround = json_object_get(r, "round"), *jsec = json_object_get(r, "seconds");
    if (!arm || strcmp(arm, s->a->name) != 0 || !json_is_integer(jround) ||
        json_integer_value(jround) != s->round) {
        snprintf(why, wl, "run.json names another arm or round");
        goto done;
    }
    if (!json_is_number(jsec) || fabs(json_number_value(jsec) - seconds) > 1e-9) {
        snprintf(why, wl, "lasted %g s, not the profile's %g s", json_is_number(jsec) ? json_number_value(jsec) : -1,
                 seconds);
        goto done;
    }
    json_t *files = json_object_get(r, "files");
    for (int i = 0; i < 3; i++) {
        json_t *f = json_object_get(files, EVENT_FILES[i]);
        const char *want = json_string_value(json_object_get(f, "sha256"));
        json_t *jsz = json_object_get(f, "size");
        if (!want || !json_is_integer(jsz)) {
            snprintf(why, wl, "run.json gives no sha256 and size of %s", EVENT_FILES[i]);
            goto done;
        }
        char *fp = xs("%s/%s", dir, EVENT_FILES[i]), sha[65], err[UT_ERRLEN];
        uint64_t sz = 0;
        int bad = ut_sha256_file(fp, sha, &sz, err, sizeof err) != 0;
        free(fp);
        if (bad || strcmp(sha, want) != 0 || (json_int_t)sz != json_integer_value(jsz)) {
            snprintf(why, wl, "%s differs from its sha256 and size in run.json", EVENT_FILES[i]);
            goto done;
        }
    }
    rc = 1;
done:
    json_decref(r);
    free(p);
    free(dir);
    return rc;
}

/* ------------------------------------------------------------------ one run */

static double settle_of(const ctx *c, const arm *a)
{
    if (c->settle)
        return atof(c->settle);
    return a->wait == WAIT_H ? 2.5 : 0.2;
}

static double prior_left(const ctx *c, int from)
{
    double t = 0;
    for (int i = from; i < c->n; i++)
        if (c->s[i].selected && !c->s[i].complete)
            t += c->pf->seconds + settle_of(c, c->s[i].a) + 1.0;
    return t;
}

static int runs_left(const ctx *c, int from)
{
    int n = 0;
    for (int i = from; i < c->n; i++)
        n += c->s[i].selected && !c->s[i].complete;
    return n;
}

static void progress(ctx *c, const slot *s, double left)
{
    char el[32], lf[32];
    fmt_dur((double)(ut_mono_ns() - c->t0) / 1e9, el, sizeof el);
    fmt_dur(left, lf, sizeof lf);
    fprintf(stderr, "%smeasure: run %d of %d  %s round %d  elapsed %s  left ~%s%s", c->tty ? "\r\033[K" : "", s->k,
            c->n, s->a->name, s->round, el, lf, c->tty ? "" : "\n");
    c->line_open = c->tty;
    fflush(stderr);
}

static int write_json(const char *path, json_t *o, char *err, size_t errlen)
{
    char *text = json_dumps(o, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (!text) {
        ut_seterr(err, errlen, "%s: cannot encode", path);
        return -1;
    }
    int rc = ut_write_file(path, text, strlen(text), err, errlen);
    free(text);
    return rc;
}

/* Measure slot i: returns run's exit code (0, 3, 1 ...), 128+N when stopped by a signal. */
static int measure_one(ctx *c, int i, char *err, size_t errlen)
{
    slot *s = &c->s[i];
    int left_n = runs_left(c, i);
    double left = c->measured_n ? c->measured_wall / c->measured_n * left_n : prior_left(c, i);
    progress(c, s, left);

    char round[16], seconds[32], gate[4];
    snprintf(round, sizeof round, "%d", s->round);
    snprintf(seconds, sizeof seconds, "%g", c->pf->seconds);
    snprintf(gate, sizeof gate, "%d", c->gate);
    char *exe = xs("%s/run", c->bin);
    char *argv[32] = {exe, "--arm", (char *)s->a->name, "--round", round, "--seconds", seconds,
                      "--cores", (char *)c->cores, "--gate", gate, "--raw", c->raw, "--prep", (char *)c->prep,
                      "--bin", (char *)c->bin, "--arms", (char *)c->arms_path, NULL};
    int na = 19;
    if (c->settle) {
        argv[na++] = "--settle-s";
        argv[na++] = (char *)c->settle;
    }
    argv[na] = NULL;

    logpos lp;
    log_begin(c->logkind, &lp);
    char t_start[32], t_end[32];
    ut_utc_iso(t_start);
    int64_t w0 = ut_mono_ns();
    int fd = -1, rc;
    size_t cap = 4096, n = 0;
    char *out = malloc(cap);
    if (!out)
        exit(1);
    out[0] = 0;
    pid_t pid = g_sig ? -1 : spawn(argv, &fd, 1);
    if (pid < 0) {
        rc = g_sig ? 128 + g_sig : 1;
        if (!g_sig)
            snprintf(out, cap, "measure: cannot start %s: %s\n", exe, strerror(errno));
    } else {
        /* Read run's output (stdout and stderr, its children's too) to EOF;
         * on a terminal, refresh the progress line every second. */
        int64_t exited_at = 0;
        for (;;) {
            struct pollfd pf = {fd, POLLIN, 0};
            int pr = poll(&pf, 1, 1000);
            if (pr > 0) {
                if (cap - n < 2048) {
                    cap *= 2;
                    out = realloc(out, cap);
                    if (!out)
                        exit(1);
                }
                ssize_t r = read(fd, out + n, cap - n - 1);
                if (r < 0 && errno == EINTR)
                    continue;
                if (r <= 0)
                    break;
                n += (size_t)r;
                out[n] = 0;
            }
            if (c->tty) {
                double done = (double)(ut_mono_ns() - w0) / 1e9;
                progress(c, s, left > done ? left - done : 0);
            }
            /* run has gone but something of its group holds the pipe: give it 5 s */
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (!exited_at && waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
                exited_at = ut_mono_ns();
            if (exited_at && ut_mono_ns() - exited_at > 5000000000LL)
                break;
        }
        close(fd);
        rc = wait_child(pid);
        kill(-pid, SIGKILL); /* anything of the run's group still there */
        if (g_sig && rc != 0)
            rc = 128 + g_sig;
    }
    if (rc != 0) { /* run removes its temporary folder itself, unless it was killed */
        char *tmp = xs("%s/.%s.tmp", c->raw, s->name);
        rm_rf(tmp);
        free(tmp);
    }
    double wall = (double)(ut_mono_ns() - w0) / 1e9;
    ut_utc_iso(t_end);
    json_t *syslog = log_end(&lp);

    /* The run's record. */
    json_t *rec = json_object();
    json_t *jargv = json_array();
    for (int j = 0; argv[j]; j++)
        json_array_append_new(jargv, json_string(argv[j]));
    json_object_set_new(rec, "run", json_string(s->name));
    json_object_set_new(rec, "arm", json_string(s->a->name));
    json_object_set_new(rec, "round", json_integer(s->round));
    json_object_set_new(rec, "k", json_integer(s->k));
    json_object_set_new(rec, "profile", json_string(c->pf->name));
    json_object_set_new(rec, "seconds", json_real(c->pf->seconds));
    json_object_set_new(rec, "argv", jargv);
    json_object_set_new(rec, "start_utc", json_string(t_start));
    json_object_set_new(rec, "end_utc", json_string(t_end));
    json_object_set_new(rec, "wall_s", json_real(wall));
    json_object_set_new(rec, "exit_code", json_integer(rc));
    json_object_set_new(rec, "gate", json_integer(c->gate));
    json_object_set_new(rec, "gate_passed", rc == 0 ? json_true() : rc == 3 ? json_false() : json_null());
    json_object_set_new(rec, "host", prov_host_facts());
    if (rc == 0) {
        char *rj = xs("%s/%s/run.json", c->raw, s->name);
        json_t *r = json_load_file(rj, 0, NULL);
        const char *copy[] = {"idle", "cpu", "peak_rss_kb", "cores", "tester_nice", "requests"};
        for (size_t j = 0; r && j < sizeof copy / sizeof copy[0]; j++) {
            json_t *v = json_object_get(r, copy[j]);
            if (v)
                json_object_set(rec, copy[j], v);
        }
        json_decref(r);
        free(rj);
    } else {
        json_object_set_new(rec, "idle", json_null());
    }
    json_object_set_new(rec, "syslog", syslog);
    json_t *olines = json_array();
    add_lines(olines, out, 2000, NULL);
    json_object_set_new(rec, "run_output", olines);
    char *rp = xs("%s/%s.json", c->runsdir, s->name);
    if (write_json(rp, rec, err, errlen) != 0) {
        say(c, "%s", err);
        if (rc == 0)
            rc = 1;
    }
    json_decref(rec);
    free(rp);

    if (rc == 0) {
        c->measured_wall += wall;
        c->measured_n++;
    } else if (rc != 3 && !g_sig) {
        say(c, "%s: run exit %d; its output:", s->name, rc);
        fputs(out, stderr);
    } else if (rc == 3) {
        say(c, "%s: the machine did not become idle enough in the gate's wait (run exit 3); "
               "recorded, going on with the next run",
            s->name);
        char *line = strstr(out, "idle gate:");
        if (line)
            fprintf(stderr, "  %.*s\n", (int)strcspn(line, "\n"), line);
    }
    free(out);
    free(exe);
    return rc;
}

/* ------------------------------------------------------------------ --host */

static int valid_host(const char *h)
{
    if (!h[0] || h[0] == '-')
        return 0;
    for (const char *p = h; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
              strchr("._@:-[]%", *p)))
            return 0;
    return 1;
}

static char *ssh_prefix(const ctx *c)
{
    /* ssh takes the first value of each option: the user's options go first. */
    return xs("ssh %s -o BatchMode=yes -o ServerAliveInterval=30 -o ServerAliveCountMax=10 %s",
              c->ssh_opts ? c->ssh_opts : "", c->host);
}

/* ssh HOST 'remote' with remote quoted for the local sh. */
static char *ssh_cmd(const ctx *c, const char *remote)
{
    char *pre = ssh_prefix(c), *q = shq(remote), *cmd = xs("%s %s", pre, q);
    free(pre);
    free(q);
    return cmd;
}

static int stage_link(const char *stage, const char *rel, const char *target, char *err, size_t errlen)
{
    char *p = xs("%s/%s", stage, rel), *dir = xs("%s", p);
    *strrchr(dir, '/') = 0;
    int rc = ut_mkdir_p(dir, err, errlen);
    char abs[4096];
    if (rc == 0 && !realpath(target, abs)) {
        ut_seterr(err, errlen, "%s: %s", target, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && symlink(abs, p) != 0) {
        ut_seterr(err, errlen, "%s: %s", p, strerror(errno));
        rc = -1;
    }
    free(p);
    free(dir);
    return rc;
}

/* Measure the runs not complete at home on c->host; returns the exit code. */
static int host_measure(ctx *c, char *err, size_t errlen)
{
    int rc = 1;
    char *rdir = NULL, *stage = NULL, *incoming = NULL, *cmd = NULL, *out = NULL;
    size_t lcap = 64;
    char *only = malloc(lcap);
    if (!only)
        exit(1);
    only[0] = 0;
    int todo = 0;
    for (int i = 0; i < c->n; i++) {
        if (c->s[i].complete)
            continue;
        size_t need = strlen(only) + strlen(c->s[i].name) + 2;
        if (need > lcap)
            only = realloc(only, lcap = need * 2);
        if (todo++)
            strcat(only, ",");
        strcat(only, c->s[i].name);
    }
    if (!todo) {
        free(only);
        return 0;
    }
    /* 1. a fresh folder there */
    cmd = ssh_cmd(c, "mktemp -d \"${TMPDIR:-/tmp}/lab-measure.XXXXXX\"");
    int r = sh(cmd, &out);
    free(cmd);
    if (r != 0 || !out) {
        say(c, "%s: cannot make a folder there over ssh (ssh exit %d; is key login set up and the host key "
               "accepted? try: ssh %s true)",
            c->host, r, c->host);
        goto out;
    }
    out[strcspn(out, "\r\n")] = 0;
    if (out[0] != '/' || strspn(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") !=
                             strlen(out)) {
        say(c, "%s: mktemp gave \"%s\", not a plain folder name", c->host, out);
        goto out;
    }
    rdir = out;
    out = NULL;
    say(c, "far folder %s:%s", c->host, rdir);

    /* 2. the lab there: tar of a folder of symlinks (tar -h follows them) */
    char tmpl[] = "/tmp/lab-stage.XXXXXX";
    if (!mkdtemp(tmpl)) {
        ut_seterr(err, errlen, "mkdtemp: %s", strerror(errno));
        goto remove_far;
    }
    stage = xs("%s", tmpl);
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        ut_seterr(err, errlen, "/proc/self/exe: %s", strerror(errno));
        goto remove_far;
    }
    self[sl] = 0;
    int bad = stage_link(stage, "build/bin/measure", self, err, errlen);
    for (int i = 0; !bad && i < 4; i++) {
        char *rel = xs("build/bin/%s", LAB_PROGS[i]), *t = xs("%s/%s", c->bin, LAB_PROGS[i]);
        bad = stage_link(stage, rel, t, err, errlen);
        free(rel);
        free(t);
    }
    for (int i = 0; !bad && i < 5; i++) {
        char *rel = xs("build/prep/%s", PREP_FILES[i]), *t = xs("%s/%s", c->prep, PREP_FILES[i]);
        bad = stage_link(stage, rel, t, err, errlen);
        free(rel);
        free(t);
    }
    for (int i = 0; !bad && i < 2; i++) {
        char *rel = xs("data/%s", PREREG_FILES[i]), *t = xs("%s/%s", c->data, PREREG_FILES[i]);
        bad = stage_link(stage, rel, t, err, errlen);
        free(rel);
        free(t);
    }
    if (!bad)
        bad = stage_link(stage, "lab/arms.tsv", c->arms_path, err, errlen);
    if (!bad) {
        char *t = xs("%s/prereg.json", c->provdir);
        bad = stage_link(stage, "out/provenance/prereg.json", t, err, errlen);
        free(t);
    }
    if (bad)
        goto remove_far;
    say(c, "copying the lab to %s (programs, prepared files, arms, registered data)", c->host);
    {
        char *rq = shq(rdir), *remote = xs("tar -xf - -C %s", rq), *sq = shq(stage), *ssh = ssh_cmd(c, remote);
        cmd = xs("tar -C %s -chf - . | %s", sq, ssh);
        free(rq);
        free(remote);
        free(sq);
        free(ssh);
    }
    r = sh(cmd, NULL);
    free(cmd);
    if (r != 0) {
        say(c, "copying to %s failed (exit %d)", c->host, r);
        goto remove_far;
    }
    /* 3. the same libraries there? */
    {
        char *rq = shq(rdir);
        char *remote = xs("cd %s && for p in build/bin/*; do ldd \"$p\" 2>/dev/null | grep 'not found' | "
                          "sed \"s|^|$p: |\"; done; true",
                          rq);
        cmd = ssh_cmd(c, remote);
        free(rq);
        free(remote);
    }
    r = sh(cmd, &out);
    free(cmd);
    if (r == 0 && out && out[0]) {
        say(c, "%s lacks libraries the lab needs; install there: apt-get install libevent-2.1-7 "
               "libjansson4 zlib1g libssl3 (Debian 12). Missing:\n%s",
            c->host, out);
        goto remove_far;
    }
    free(out);
    out = NULL;
    /* 4. the schedule there, progress streamed */
    {
        char *rq = shq(rdir), *cq = shq(c->cores), *oq = shq(only);
        char *extra = c->settle ? xs(" --settle-s %s", c->settle) : xs("%s", "");
        char *remote = xs("cd %s && echo $$ > measure.pid && exec build/bin/measure --profile %s --root out "
                          "--prep build/prep --arms lab/arms.tsv --bin build/bin --data data --cores %s --gate %d%s "
                          "--only %s",
                          rq, c->pf->name, cq, c->gate, extra, oq);
        cmd = ssh_cmd(c, remote);
        free(rq);
        free(cq);
        free(oq);
        free(extra);
        free(remote);
    }
    say(c, "measuring %d runs on %s", todo, c->host);
    int far = sh(cmd, NULL);
    free(cmd);
    int sig_during = g_sig;
    if (sig_during)
        say(c, "stopped (signal %d): fetching the runs complete there", sig_during);
    /* 5. home, into a staging folder beside raw/ */
    incoming = xs("%s/.incoming.tmp", c->raw);
    rm_rf(incoming);
    if (ut_mkdir_p(incoming, err, errlen) != 0)
        goto keep_far;
    {
        char *rq = shq(rdir);
        char *remote = xs("cd %s/out && tar -cf - --exclude='.*' results/raw results/schedule.tsv provenance/runs",
                          rq);
        char *ssh = ssh_cmd(c, remote), *iq = shq(incoming);
        cmd = xs("%s | tar -xf - -C %s", ssh, iq);
        free(rq);
        free(remote);
        free(ssh);
        free(iq);
    }
    int saved = g_sig;
    g_sig = 0; /* let a second signal stop the copy */
    r = sh(cmd, NULL);
    if (!g_sig)
        g_sig = saved;
    free(cmd);
    if (r != 0) {
        say(c, "copying the results home failed (exit %d)", r);
        goto keep_far;
    }
    /* 6. check at home, then move into place */
    {
        char *sp = xs("%s/results/schedule.tsv", incoming), *theirs = NULL, *ours = NULL;
        size_t tn, on;
        char e2[UT_ERRLEN];
        int same = ut_read_file(sp, &theirs, &tn, e2, sizeof e2) == 0 &&
                   ut_read_file(c->sched_path, &ours, &on, e2, sizeof e2) == 0 && tn == on && !memcmp(theirs, ours, on);
        free(sp);
        free(theirs);
        free(ours);
        if (!same) {
            say(c, "the far schedule differs from %s: nothing taken", c->sched_path);
            goto keep_far;
        }
    }
    char *iraw = xs("%s/results/raw", incoming), *iruns = xs("%s/provenance/runs", incoming);
    int broken = 0, got = 0;
    for (int i = 0; i < c->n; i++) {
        slot *s = &c->s[i];
        if (s->complete)
            continue;
        char why[256] = "";
        int st = check_run(iraw, s, c->pf->seconds, why, sizeof why);
        char *from = xs("%s/%s", iraw, s->name), *to = xs("%s/%s", c->raw, s->name);
        if (st == 1) {
            rm_rf(to);
            if (rename(from, to) != 0) {
                say(c, "%s: cannot move into place: %s", to, strerror(errno));
                broken++;
            } else {
                s->complete = 1;
                got++;
            }
        } else if (st < 0) {
            say(c, "%s from %s %s: not taken", s->name, c->host, why);
            broken++;
        }
        free(from);
        free(to);
        char *rf = xs("%s/%s.json", iruns, s->name), *rt = xs("%s/%s.json", c->runsdir, s->name);
        if (access(rf, F_OK) == 0) {
            json_t *rec = json_load_file(rf, 0, NULL);
            if (rec && json_is_false(json_object_get(rec, "gate_passed")) && !s->complete)
                s->gated = 1;
            json_decref(rec);
            if (rename(rf, rt) != 0) {
                say(c, "%s: cannot move into place: %s", rt, strerror(errno));
                broken++;
            }
        }
        free(rf);
        free(rt);
    }
    free(iraw);
    free(iruns);
    say(c, "%d runs came home from %s, each file matching its run.json", got, c->host);
    if (broken)
        goto keep_far;
    rm_rf(incoming);
    /* 7. only now: the far folder goes (its measure first, if it still runs) */
    {
        char *rq = shq(rdir);
        char *remote = xs("p=$(cat %s/measure.pid 2>/dev/null); "
                          "if [ -n \"$p\" ] && [ \"$(readlink /proc/$p/cwd 2>/dev/null)\" = %s ]; then "
                          "kill -TERM \"$p\"; sleep 1; fi; rm -rf %s",
                          rq, rq, rq);
        cmd = ssh_cmd(c, remote);
        free(rq);
        free(remote);
    }
    r = sh(cmd, NULL);
    free(cmd);
    if (r == 0)
        say(c, "far folder %s:%s removed", c->host, rdir);
    else
        say(c, "could not remove the far folder %s:%s (ssh exit %d); the runs are home", c->host, rdir, r);
    if (sig_during)
        rc = 128 + sig_during;
    else if (far == 0 || far == 3)
        rc = far;
    else
        rc = far == 2 ? 2 : 1;
    goto out;
keep_far:
    say(c, "the far folder %s:%s is kept (nothing there removed): its out/results/raw holds the runs", c->host,
        rdir);
    rc = g_sig ? 128 + g_sig : 1;
    goto out;
remove_far:
    if (err[0])
        say(c, "%s", err);
    {
        char *rq = shq(rdir), *remote = xs("rm -rf %s", rq);
        cmd = ssh_cmd(c, remote);
        free(rq);
        free(remote);
        sh(cmd, NULL);
        free(cmd);
    }
    rc = 1;
out:
    if (stage)
        rm_rf(stage);
    free(stage);
    if (incoming)
        rm_rf(incoming);
    free(incoming);
    free(rdir);
    free(out);
    free(only);
    return rc;
}

/* ------------------------------------------------------------------ the end */

static int write_manifest(const ctx *c, const strlist *files, char *err, size_t errlen)
{
    char *path = xs("%s/manifest-measure.tsv", c->provdir);
    ut_afile a;
    int rc = -1;
    if (ut_aopen(&a, path, err, errlen) != 0)
        goto done;
    fprintf(a.f, "path\tsize\tsha256\n");
    for (size_t i = 0; i < files->n; i++) {
        char *full = xs("%s/%s", c->root, files->v[i]), sha[65];
        uint64_t size = 0;
        int bad = ut_sha256_file(full, sha, &size, err, errlen) != 0;
        free(full);
        if (bad) {
            ut_aclose(&a, 0, NULL, 0);
            goto done;
        }
        fprintf(a.f, "%s\t%llu\t%s\n", files->v[i], (unsigned long long)size, sha);
    }
    rc = ut_aclose(&a, 1, err, errlen);
done:
    free(path);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: measure --profile full|quick|tiny --root OUT [--prep build/prep] [--arms lab/arms.tsv]\n"
                    "               [--bin build/bin] [--cores 0] [--gate 1|0] [--data data]\n"
                    "               [--host user@host] [--ssh-opts \"...\"] (see pipeline/measure.c)\n");
    return 2;
}

int main(int argc, char **argv)
{
    ut_set_prog("measure");
    ctx C = {0}, *c = &C;
    c->prep = "build/prep";
    c->arms_path = "lab/arms.tsv";
    c->bin = "build/bin";
    c->cores = "0";
    c->data = "data";
    c->gate = 1;
    const char *pname = NULL;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            ut_err("option %s needs a value", k);
            return usage();
        }
        i++;
        if (!strcmp(k, "--profile"))
            pname = v;
        else if (!strcmp(k, "--root"))
            c->root = v;
        else if (!strcmp(k, "--prep"))
            c->prep = v;
        else if (!strcmp(k, "--arms"))
            c->arms_path = v;
        else if (!strcmp(k, "--bin"))
            c->bin = v;
        else if (!strcmp(k, "--cores"))
            c->cores = v;
        else if (!strcmp(k, "--gate") && (!strcmp(v, "0") || !strcmp(v, "1")))
            c->gate = v[0] == '1';
        else if (!strcmp(k, "--data"))
            c->data = v;
        else if (!strcmp(k, "--host"))
            c->host = v[0] ? v : NULL;
        else if (!strcmp(k, "--ssh-opts"))
            c->ssh_opts = v;
        else if (!strcmp(k, "--only"))
            c->only = v;
        else if (!strcmp(k, "--settle-s") && atof(v) >= 0)
            c->settle = v;
        else {
            ut_err("unknown option or bad value: %s %s", k, v);
            return usage();
        }
    }
    for (size_t i = 0; pname && i < sizeof PROFILES / sizeof PROFILES[0]; i++)
        if (!strcmp(pname, PROFILES[i].name))
            c->pf = &PROFILES[i];
    if (!c->pf || !c->root) {
        ut_err("needs --profile full|quick|tiny and --root OUT");
        return usage();
    }
    if (c->host && !valid_host(c->host)) {
        ut_err("--host %s: not a user@host", c->host);
        return 2;
    }
    if (c->host && c->only) {
        ut_err("--only is for the far side of --host; not both");
        return 2;
    }
    if (!c->ssh_opts)
        c->ssh_opts = getenv("LAB_SSH_OPTS");
    c->tty = isatty(2);
    c->t0 = ut_mono_ns();
    c->results = xs("%s/results", c->root);
    c->raw = xs("%s/results/raw", c->root);
    c->provdir = xs("%s/provenance", c->root);
    c->runsdir = xs("%s/provenance/runs", c->root);
    c->sched_path = xs("%s/results/schedule.tsv", c->root);
    char err[UT_ERRLEN] = "";

    /* Refusals first: nothing is touched before these pass. */
    if (prereg_check(c, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 2;
    }
    if (arms_load(c->arms_path, &c->arms, err, sizeof err) != 0 || build_schedule(c, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 2;
    }
    for (int i = 0; i < 5; i++) {
        char *p = xs("%s/%s", c->prep, PREP_FILES[i]);
        if (access(p, R_OK) != 0) {
            ut_err("%s: missing: run make prepare first", p);
            return 2;
        }
        free(p);
    }
    for (int i = 0; i < 4; i++) {
        char *p = xs("%s/%s", c->bin, LAB_PROGS[i]);
        if (access(p, X_OK) != 0) {
            ut_err("%s: missing: run make build first", p);
            return 2;
        }
        free(p);
    }
    if (c->only) {
        for (int i = 0; i < c->n; i++)
            c->s[i].selected = 0;
        char *list = xs(",%s,", c->only);
        for (char *p = list + 1; *p;) {
            char *q = strchr(p, ',');
            *q = 0;
            int found = !*p;
            for (int i = 0; i < c->n; i++)
                if (!strcmp(c->s[i].name, p))
                    c->s[i].selected = found = 1;
            if (!found) {
                ut_err("--only: %s is not in the schedule of profile %s", p, c->pf->name);
                return 2;
            }
            p = q + 1;
        }
        free(list);
    }
    if (ut_mkdir_p(c->raw, err, sizeof err) != 0 || ut_mkdir_p(c->runsdir, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 2;
    }
    /* One measure per OUT.  The fd is inherited by the runs (no O_CLOEXEC). */
    int lockfd = open(c->results, O_RDONLY | O_DIRECTORY);
    if (lockfd < 0) {
        ut_err("%s: %s", c->results, strerror(errno));
        return 2;
    }
    if (flock(lockfd, LOCK_EX | LOCK_NB) != 0) {
        say(c, "%s is in use by another measure (or a run a killed measure left behind); waiting up to %d s",
            c->results, LOCK_WAIT_S);
        int64_t until = ut_mono_ns() + (int64_t)LOCK_WAIT_S * 1000000000LL;
        int got = 0;
        while (!got && ut_mono_ns() < until) {
            struct timespec ts = {0, 500000000};
            nanosleep(&ts, NULL);
            got = flock(lockfd, LOCK_EX | LOCK_NB) == 0;
        }
        if (!got) {
            ut_err("%s: still in use after %d s; stop the other measure first", c->results, LOCK_WAIT_S);
            return 2;
        }
    }
    install_handlers();

    /* Temporary folders of unfinished runs (and of a --host copy) never hold a complete run. */
    {
        DIR *d = opendir(c->raw);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (e->d_name[0] == '.' && l > 5 && !strcmp(e->d_name + l - 4, ".tmp")) {
                char *p = xs("%s/%s", c->raw, e->d_name);
                say(c, "%s: an unfinished run's temporary folder; removed", p);
                rm_rf(p);
                free(p);
            }
        }
        if (d)
            closedir(d);
    }

    /* The schedule: the same on every call, or refuse. */
    strlist present = {0};
    list_dir(c->raw, 0, &present);
    char *text = schedule_text(c);
    {
        char *old = NULL;
        size_t on = 0;
        char e2[UT_ERRLEN];
        int have = ut_read_file(c->sched_path, &old, &on, e2, sizeof e2) == 0;
        if (have && strcmp(old, text) != 0 && present.n) {
            char was[128] = "another schedule";
            char *pp = strstr(old, "profile ");
            if (pp && pp < old + strcspn(old, "\n"))
                snprintf(was, sizeof was, "profile %.*s", (int)strcspn(pp + 8, ",\n"), pp + 8);
            ut_err("%s was made for %s, not for profile %s with these arms, and %s holds %zu runs of it: "
                   "use another OUT, or move %s away",
                   c->sched_path, was, c->pf->name, c->raw, present.n, c->results);
            return 2;
        }
        for (size_t i = 0; i < present.n; i++) {
            int ours = 0;
            for (int j = 0; j < c->n && !ours; j++)
                ours = !strcmp(present.v[i], c->s[j].name);
            if (!ours) {
                ut_err("%s/%s: not a run of profile %s's schedule; use another OUT, or move it away", c->raw,
                       present.v[i], c->pf->name);
                return 2;
            }
        }
        if (!have || strcmp(old, text) != 0) {
            if (ut_write_file(c->sched_path, text, strlen(text), err, sizeof err) != 0) {
                ut_err("%s", err);
                return 1;
            }
        }
        free(old);
    }

    /* The reference files: the same as the runs already there were measured against. */
    char *refdir = xs("%s/reference", c->results);
    if (ut_mkdir_p(refdir, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        char *src = xs("%s/%s", c->prep, REF_FILES[i]), *dst = xs("%s/%s", refdir, REF_FILES[i]);
        char *a = NULL, *b = NULL;
        size_t an = 0, bn = 0;
        if (ut_read_file(src, &a, &an, err, sizeof err) != 0) {
            ut_err("%s", err);
            return 2;
        }
        char e2[UT_ERRLEN];
        int have = ut_read_file(dst, &b, &bn, e2, sizeof e2) == 0;
        int same = have && an == bn && !memcmp(a, b, an);
        if (have && !same && present.n) {
            ut_err("%s differs from %s: the runs in %s were measured against other prepared files; "
                   "use another OUT, or move %s away",
                   dst, src, c->raw, c->results);
            return 2;
        }
        if (!same && ut_write_file(dst, a, an, err, sizeof err) != 0) {
            ut_err("%s", err);
            return 1;
        }
        free(a);
        free(b);
        free(src);
        free(dst);
    }
    sl_free(&present);

    prov *pv = NULL;
    {
        char **pargv = calloc((size_t)argc + 1, sizeof *pargv);
        if (!pargv)
            exit(1);
        for (int i = 0; i < argc; i++) {
            pargv[i] = argv[i];
            if (i > 0 && !strcmp(argv[i - 1], "--host"))
                pargv[i] = "(host)";
            if (i > 0 && !strcmp(argv[i - 1], "--ssh-opts"))
                pargv[i] = "(ssh options)";
        }
        pv = prov_begin("measure", argc, pargv);
        free(pargv);
    }
    int bad = 0;
    for (int i = 0; i < 5 && !bad; i++) {
        char *p = xs("%s/%s", c->prep, PREP_FILES[i]);
        bad = prov_input(pv, p, err, sizeof err);
        free(p);
    }
    for (int i = 0; i < 4 && !bad; i++) {
        char *p = xs("%s/%s", c->bin, LAB_PROGS[i]);
        bad = prov_input(pv, p, err, sizeof err);
        free(p);
    }
    for (int i = 0; i < 2 && !bad; i++) {
        char *p = xs("%s/%s", c->data, PREREG_FILES[i]);
        bad = prov_input(pv, p, err, sizeof err);
        free(p);
    }
    if (!bad) {
        char *p = xs("%s/prereg.json", c->provdir);
        bad = prov_input(pv, p, err, sizeof err) || prov_input(pv, c->arms_path, err, sizeof err);
        free(p);
    }
    if (bad) {
        ut_err("%s", err);
        prov_end(pv, 2, c->provdir, err, sizeof err);
        return 2;
    }

    /* Never a manifest vouching for another set of runs: it is written anew at
     * the end, only when every scheduled run is complete. */
    char *manifest = xs("%s/manifest-measure.tsv", c->provdir);
    if (unlink(manifest) != 0 && errno != ENOENT) {
        ut_err("%s: cannot remove: %s", manifest, strerror(errno));
        prov_end(pv, 1, c->provdir, err, sizeof err);
        return 1;
    }

    /* Which runs are complete already. */
    int kept = 0, todo = 0;
    for (int i = 0; i < c->n; i++) {
        slot *s = &c->s[i];
        char why[300] = "";
        int st = check_run(c->raw, s, c->pf->seconds, why, sizeof why);
        if (st < 0) {
            char *p = xs("%s/%s", c->raw, s->name);
            say(c, "%s: %s: not a complete run; removed, to be measured again", p, why);
            if (rm_rf(p) != 0) {
                ut_err("%s: cannot remove: %s", p, strerror(errno));
                free(p);
                prov_end(pv, 1, c->provdir, err, sizeof err);
                return 1;
            }
            free(p);
        }
        s->complete = st == 1;
        if (s->selected) {
            kept += s->complete;
            todo += !s->complete;
        }
    }
    c->logkind = probe_log();
    say(c, "profile %s: %d runs (%d rounds of %d arms, %g s each); %d complete already, kept; %d to measure%s%s; "
           "system log from %s",
        c->pf->name, c->n, c->pf->rounds, c->n / c->pf->rounds, c->pf->seconds, kept, todo,
        c->host ? " on " : "", c->host ? c->host : "", c->host ? "the far side" : LOG_NAMES[c->logkind]);

    int rc = 0, gated = 0, failed_k = -1;
    if (c->host) {
        rc = host_measure(c, err, sizeof err);
        for (int i = 0; i < c->n; i++)
            gated += c->s[i].gated;
    } else {
        for (int i = 0; i < c->n && !g_sig; i++) {
            slot *s = &c->s[i];
            if (!s->selected)
                continue;
            if (s->complete) {
                if (c->tty) {
                    fprintf(stderr, "\r\033[Kmeasure: run %d of %d  %s round %d  complete already: skip", s->k, c->n,
                            s->a->name, s->round);
                    c->line_open = 1;
                } else {
                    fprintf(stderr, "measure: run %d of %d  %s round %d  complete already: skip\n", s->k, c->n,
                            s->a->name, s->round);
                }
                continue;
            }
            int r = measure_one(c, i, err, sizeof err);
            if (r == 0) {
                char why[300] = "";
                if (check_run(c->raw, s, c->pf->seconds, why, sizeof why) == 1) {
                    s->complete = 1;
                } else {
                    say(c, "%s/%s: %s, though run said it was done", c->raw, s->name, why);
                    rc = 1;
                    failed_k = i;
                    break;
                }
            } else if (r == 3) {
                s->gated = 1;
                gated++;
            } else {
                rc = g_sig ? 128 + g_sig : 1;
                failed_k = i;
                break;
            }
        }
        if (g_sig && rc == 0)
            rc = 128 + g_sig;
    }

    /* The end: provenance always, the manifest only when every run is complete. */
    int complete = 0;
    for (int i = 0; i < c->n; i++)
        complete += c->s[i].complete;
    strlist files = {0};
    list_files(c->root, "results/raw", &files);
    list_files(c->root, "results/reference", &files);
    if (files.n)
        qsort(files.v, files.n, sizeof *files.v, cmp_str);
    if (complete == c->n) {
        if (write_manifest(c, &files, err, sizeof err) != 0) {
            say(c, "%s", err);
            rc = 1;
        }
    }
    for (size_t i = 0; i < files.n; i++) {
        char *p = xs("%s/%s", c->root, files.v[i]);
        if (prov_output(pv, p, err, sizeof err) != 0)
            say(c, "%s", err);
        free(p);
    }
    prov_output(pv, c->sched_path, err, sizeof err);
    strlist recs = {0};
    list_dir(c->runsdir, 0, &recs);
    for (size_t i = 0; i < recs.n; i++) {
        char *p = xs("%s/%s", c->runsdir, recs.v[i]);
        prov_output(pv, p, err, sizeof err);
        free(p);
    }
    if (complete == c->n)
        prov_output(pv, manifest, err, sizeof err);
    json_t *facts = json_object();
    json_object_set_new(facts, "profile", json_string(c->pf->name));
    json_object_set_new(facts, "rounds", json_integer(c->pf->rounds));
    json_object_set_new(facts, "seconds", json_real(c->pf->seconds));
    json_object_set_new(facts, "runs_scheduled", json_integer(c->n));
    json_object_set_new(facts, "runs_complete", json_integer(complete));
    json_object_set_new(facts, "runs_kept", json_integer(kept));
    json_object_set_new(facts, "runs_measured_now", json_integer(c->host ? complete - kept : c->measured_n));
    json_object_set_new(facts, "runs_gate_not_passed", json_integer(gated));
    json_object_set_new(facts, "gate", json_integer(c->gate));
    json_object_set_new(facts, "cores", json_string(c->cores));
    json_object_set_new(facts, "on_another_host", json_boolean(c->host != NULL));
    json_object_set_new(facts, "syslog_source", json_string(c->host ? "see provenance/runs" : LOG_NAMES[c->logkind]));
    if (c->only)
        json_object_set_new(facts, "only", json_string(c->only));
    prov_facts(pv, facts);

    char el[32];
    fmt_dur((double)(ut_mono_ns() - c->t0) / 1e9, el, sizeof el);
    if (rc == 0 && gated)
        rc = 3;
    if (rc == 0 && complete < c->n && !c->only)
        rc = 1;
    if (prov_end(pv, rc, c->provdir, err, sizeof err) != 0) {
        say(c, "%s", err);
        if (rc == 0)
            rc = 1;
    }
    if (rc == 0) {
        if (c->only)
            say(c, "the %d runs asked for are complete (%s)", todo, el);
        else
            say(c, "all %d runs complete (%d kept, %d measured now) in %s; manifest %s", c->n, kept, complete - kept,
                el, manifest);
    } else if (rc == 3) {
        say(c, "%d runs could not pass the idle gate; rerun make measure to measure them", gated);
    } else if (rc >= 128) {
        say(c, "stopped by signal %d after %s; the %d complete runs are kept; rerun make measure to measure the rest",
            rc - 128, el, complete);
    } else if (failed_k >= 0) {
        say(c, "%s failed; its record: %s/%s.json; %d runs complete are kept; rerun make measure to go on",
            c->s[failed_k].name, c->runsdir, c->s[failed_k].name, complete);
    } else {
        say(c, "failed with %d of %d runs complete; rerun make measure to go on", complete, c->n);
    }
    free(manifest);
    free(text);
    free(refdir);
    sl_free(&files);
    sl_free(&recs);
    arms_free(&c->arms);
    free(c->s);
    close(lockfd);
    return rc;
}
