/* mrun: one run of measure's schedule (`run` started and watched, its
 * record written) and measure's console lines; mrun.h has the contract,
 * measure.c the phases around it. */
#include "mrun.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exits.h"
#include "facts.h"
#include "gate.h"
#include "mfiles.h"
#include "proc.h"
#include "slog.h"
#include "util.h"

/* ------------------------------------------------------------ the console */

void mrun_say(mctx *c, const char *fmt, ...)
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

void mrun_fmt_dur(double s, char *buf, size_t n)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

/* ------------------------------------------------------------ one run */

static double settle_of(const mctx *c, const arm *a)
{
    if (c->settle)
        return c->settle_s;
    return a->wait == WAIT_H ? 2.5 : 0.2;
}

/* Before any run was timed: each run's own seconds, its settling, 1 s to
 * start and stop, and the idle gate's window (GATE_WINDOW_S) when the gate
 * is on.  An upper bound: the settling ends as soon as the store holds no
 * lookup (lab/run/run.c), often well before its longest. */
double mrun_prior_left(const mctx *c, int from)
{
    double t = 0;
    for (int i = from; i < c->sc.n; i++)
        if (c->sc.s[i].selected && !c->sc.s[i].complete)
            t += c->sc.s[i].seconds + settle_of(c, c->sc.s[i].a) + 1.0 + (c->gate ? GATE_WINDOW_S : 0);
    return t;
}

static void progress(mctx *c, const sched_run *s, double left)
{
    char el[32], lf[32];
    mrun_fmt_dur((double)(ut_mono_ns() - c->t0) / 1e9, el, sizeof el);
    mrun_fmt_dur(left, lf, sizeof lf);
    fprintf(stderr, "%smeasure: run %d of %d  %s round %d  elapsed %s  left ~%s%s", c->tty ? "\r\033[K" : "", s->k,
            c->sc.n, s->a->name, s->round, el, lf, c->tty ? "" : "\n");
    c->line_open = c->tty;
    fflush(stderr);
}

/* A growing text buffer: run's output. */
typedef struct {
    char *b;
    size_t n, cap;
} textbuf;

/* Run `run` and read its output (stdout and stderr, its children's too) to
 * EOF; on a terminal, refresh the progress line every second.  The exit
 * code, 128+N when signal N stopped measure. */
static int run_and_watch(mctx *c, const sched_run *s, char *const argv[], double left, textbuf *out)
{
    const proc_opts o = {.flags = PROC_PIPE_OUT | PROC_PIPE_ERR | PROC_GROUP};
    proc_child ch;
    char err[UT_ERRLEN] = "";
    if (proc_signal())
        return 128 + proc_signal();
    if (proc_start(argv, &o, &ch, err, sizeof err) != 0) {
        snprintf(out->b, out->cap, "measure: %s\n", err);
        return EXIT_FAIL;
    }
    int64_t w0 = ut_mono_ns(), exited_at = 0;
    for (;;) {
        struct pollfd pf = {ch.fd, POLLIN, 0};
        if (poll(&pf, 1, 1000) > 0) {
            if (out->cap - out->n < 2048 && !(out->b = realloc(out->b, out->cap *= 2)))
                exit(1);
            ssize_t r = read(ch.fd, out->b + out->n, out->cap - out->n - 1);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            out->n += (size_t)r;
            out->b[out->n] = 0;
        }
        if (c->tty) {
            double done = (double)(ut_mono_ns() - w0) / 1e9;
            progress(c, s, left > done ? left - done : 0);
        }
        /* run has gone but something of its group holds the pipe: give it 5 s */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (!exited_at && waitid(P_PID, (id_t)ch.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == ch.pid)
            exited_at = ut_mono_ns();
        if (exited_at && ut_mono_ns() - exited_at > 5000000000LL)
            break;
    }
    close(ch.fd);
    ch.fd = -1;
    pid_t pg = ch.pid;
    int rc = proc_wait(&ch, NULL);
    kill(-pg, SIGKILL); /* anything of the run's group still there */
    if (proc_signal() && rc != 0)
        rc = 128 + proc_signal();
    return rc;
}

/* 1 when run.json judges the run quiet, 0 when disturbed (its reasons, one
 * line, in why), -1 when run.json gives no judgement. */
int mrun_quiet(const mctx *c, const sched_run *s, char *why, size_t wl)
{
    char *rj = mf_str("%s/%s/run.json", c->raw, s->name);
    json_t *r = json_load_file(rj, 0, NULL);
    free(rj);
    json_t *q = r ? json_object_get(json_object_get(r, "quiet"), "quiet") : NULL;
    int rc = json_is_boolean(q) ? json_is_true(q) : -1;
    why[0] = 0;
    json_t *reasons = r ? json_object_get(json_object_get(r, "quiet"), "reasons") : NULL, *v;
    size_t i;
    json_array_foreach(reasons, i, v)
    {
        size_t n = strlen(why);
        snprintf(why + n, wl - n, "%s%s", n ? "; " : "", json_string_value(v) ? json_string_value(v) : "?");
    }
    json_decref(r);
    return rc;
}

/* Why run failed: its own last line ("run: ..."), without the prefix; "" if none. */
static void run_reason(const char *out, char *why, size_t wl)
{
    why[0] = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, "run: ", 5))
            snprintf(why, wl, "%.*s", (int)strcspn(p + 5, "\n"), p + 5);
}

/* OUT/provenance/runs/<run>.json */
static int write_record(const mctx *c, const sched_run *s, char *const argv[], const char *t_start,
                        const char *t_end, double wall, int rc, json_t *syslog, const char *out, char *err,
                        size_t errlen)
{
    json_t *rec = json_object();
    json_t *jargv = json_array();
    for (int j = 0; argv[j]; j++)
        json_array_append_new(jargv, json_string(argv[j]));
    json_object_set_new(rec, "run", json_string(s->name));
    json_object_set_new(rec, "arm", json_string(s->a->name));
    json_object_set_new(rec, "round", json_integer(s->round));
    json_object_set_new(rec, "k", json_integer(s->k));
    json_object_set_new(rec, "machine", json_string(c->machine));
    json_object_set_new(rec, "profile", json_string(c->design.profile));
    json_object_set_new(rec, "seconds", json_real(s->seconds));
    json_object_set_new(rec, "argv", jargv);
    json_object_set_new(rec, "start_utc", json_string(t_start));
    json_object_set_new(rec, "end_utc", json_string(t_end));
    json_object_set_new(rec, "wall_s", json_real(wall));
    json_object_set_new(rec, "exit_code", json_integer(rc));
    json_object_set_new(rec, "gate", json_integer(c->gate));
    json_object_set_new(rec, "gate_passed",
                        rc == EXIT_OK ? json_true() : rc == EXIT_NOT_QUIET ? json_false() : json_null());
    /* its number among every attempt at the run, in this measure or an
     * earlier one: the number its record and its folder take when it is
     * measured again (mf_attempt_next) */
    json_t *earlier = mf_attempts(c->runsdir, s->name);
    json_object_set_new(rec, "attempt", json_integer((json_int_t)json_array_size(earlier) + 1));
    json_object_set_new(rec, "earlier_attempts", earlier);
    json_object_set_new(rec, "host", facts_host());
    if (rc == EXIT_OK) {
        char *rj = mf_str("%s/%s/run.json", c->raw, s->name);
        json_t *r = json_load_file(rj, 0, NULL);
        const char *copy[] = {"idle", "cpu", "peak_rss_kb", "cores", "tester_nice", "requests", "quiet"};
        for (size_t j = 0; r && j < sizeof copy / sizeof copy[0]; j++) {
            json_t *v = json_object_get(r, copy[j]);
            if (v)
                json_object_set(rec, copy[j], v);
        }
        json_decref(r);
        free(rj);
    } else {
        json_object_set_new(rec, "idle", json_null());
        char why[512];
        run_reason(out, why, sizeof why);
        json_object_set_new(rec, "reason", why[0] ? json_string(why) : json_null());
    }
    json_object_set_new(rec, "syslog", syslog);
    json_t *olines = json_array();
    slog_add_lines(olines, out, 2000, NULL);
    json_object_set_new(rec, "run_output", olines);
    prov_mask_json(rec);
    char *rp = mf_str("%s/%s.json", c->runsdir, s->name);
    int bad = mf_write_json(rp, rec, err, errlen);
    json_decref(rec);
    free(rp);
    return bad;
}

/* Measure run i: run's exit code (0, 3, 1 ...), 128+N when stopped by signal N. */
int mrun_one(mctx *c, int i, char *err, size_t errlen)
{
    sched_run *s = &c->sc.s[i];
    int left_n = sched_runs_left(&c->sc, i);
    double left = c->measured_n ? c->measured_wall / c->measured_n * left_n : mrun_prior_left(c, i);
    progress(c, s, left);

    char round[16], seconds[32], gate[4];
    snprintf(round, sizeof round, "%d", s->round);
    snprintf(seconds, sizeof seconds, "%g", s->seconds);
    snprintf(gate, sizeof gate, "%d", c->gate);
    char *exe = mf_str("%s/run", c->bin);
    char *argv[32] = {exe, "--arm", (char *)s->a->name, "--round", round, "--seconds", seconds,
                      "--cores", (char *)c->cores, "--gate", gate, "--raw", c->raw, "--prep", (char *)c->prep,
                      "--bin", (char *)c->bin, "--arms", (char *)c->arms_path, "--quiet", (char *)c->quiet,
                      "--machine", (char *)c->machine, NULL};
    int na = 23;
    /* a disturbed attempt's folder (of this measure, or kept from an
     * earlier one) goes to attempts/ first, then its record is kept: both
     * with the same N (mfiles.h) */
    int moved = 0;
    if (mf_attempt_move(c->raw, c->attempts, c->runsdir, s->name, &moved, err, errlen) != 0) {
        mrun_say(c, "%s", err);
        free(exe);
        return EXIT_FAIL;
    }
    if (moved)
        mrun_say(c, "%s: the disturbed attempt %d kept as %s/%s-a%d", s->name, moved, c->attempts, s->name, moved);
    mf_attempt_keep(c->runsdir, s->name);
    s->attempts++;
    if (c->settle) {
        argv[na++] = "--settle-s";
        argv[na++] = (char *)c->settle;
    }
    argv[na] = NULL;

    slog_pos lp;
    slog_begin(c->logkind, &lp);
    char t_start[32], t_end[32];
    ut_utc_iso(t_start);
    int64_t w0 = ut_mono_ns();
    textbuf out = {malloc(4096), 0, 4096};
    if (!out.b)
        exit(1);
    out.b[0] = 0;
    int rc = run_and_watch(c, s, argv, left, &out);
    if (rc != 0) { /* run removes its temporary folder itself, unless it was killed */
        char *tmp = mf_str("%s/.%s.tmp", c->raw, s->name);
        mf_rm_rf(tmp);
        free(tmp);
    }
    double wall = (double)(ut_mono_ns() - w0) / 1e9;
    ut_utc_iso(t_end);
    json_t *syslog = slog_end(&lp);
    if (write_record(c, s, argv, t_start, t_end, wall, rc, syslog, out.b, err, errlen) != 0) {
        mrun_say(c, "%s", err);
        if (rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    if (rc == EXIT_OK) {
        c->measured_wall += wall;
        c->measured_n++;
    } else if (rc == EXIT_LAB_DIED) { /* a lab process died: measure.c's measure_here says why, and measures it again */
        run_reason(out.b, c->fail_why, sizeof c->fail_why);
    } else if (rc != EXIT_NOT_QUIET && !proc_signal()) {
        mrun_say(c, "%s: run exit %d; its output:", s->name, rc);
        fputs(out.b, stderr);
    } else if (rc == EXIT_NOT_QUIET) {
        mrun_say(c, "%s: the machine did not become idle enough in the gate's wait (run exit 3); "
               "recorded, going on with the next run",
            s->name);
        char *line = strstr(out.b, "idle gate:");
        if (line)
            fprintf(stderr, "  %.*s\n", (int)strcspn(line, "\n"), line);
    }
    free(out.b);
    free(exe);
    return rc;
}
