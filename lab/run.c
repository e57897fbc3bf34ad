/* run: measure one arm for one round, and leave its raw files.
 *
 *   run --arm NAME --round R [--seconds 30] [--raw results/raw] [--prep build/prep]
 *       [--arms lab/arms.tsv] [--bin build/bin] [--cores 0] [--gate 1|0]
 *       [--settle-s S] [--tester-nice -10] [--freeze-share P]   (tests only: the store's freeze share)
 *
 * Starts a fresh store and a fresh service pinned to --cores, runs the tester
 * (idle gate first) pinned likewise and with nice --tester-nice (as root: so
 * that, like a client on its own machine, it sends on time even while the
 * service is busy; its own lateness is recorded either way), reads each process's CPU use from /proc,
 * waits --settle-s (default 2.5 s with freezes, else 0.2 s) so the store can
 * finish the lookups nobody waits for any more, stops the store and the
 * service (SIGTERM: they write their event files),
 * and writes run.json.  Everything goes to "<raw>/.<arm>-r<round>.tmp" and is
 * renamed to "<raw>/<arm>-r<round>" only when complete, so a folder under its
 * final name is always a whole run.  Exit 0 on success, 3 when the idle gate
 * did not pass (nothing kept), 1 on any other failure (nothing kept).
 *
 * The Poisson schedule's seed depends on the round only, so every arm of a
 * round meets the same arrivals as well as the same dice.
 */
#include <errno.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "arms.h"
#include "prov.h"
#include "util.h"

typedef struct {
    pid_t pid;
    int port;
    FILE *out; /* its stdout */
} child;

static int parse_cpus(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *dash = strchr(tok, '-');
        char *end;
        long a = strtol(tok, &end, 10), b = a;
        if (end == tok || (dash && end != dash) || (!dash && *end))
            return -1;
        if (dash) {
            b = strtol(dash + 1, &end, 10);
            if (*end || b < a)
                return -1;
        }
        if (a < 0 || b >= CPU_SETSIZE)
            return -1;
        for (long c = a; c <= b; c++)
            CPU_SET((int)c, set);
    }
    return CPU_COUNT(set) ? 0 : -1;
}

/* Start argv pinned to `cpus`; with want_port, read "...:PORT" from its first line. */
static int start(char *const argv[], const cpu_set_t *cpus, int nice_value, int want_port, child *c, char *err,
                 size_t errlen)
{
    int fd[2];
    memset(c, 0, sizeof *c);
    if (pipe(fd) != 0) {
        ut_seterr(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        ut_seterr(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        sched_setaffinity(0, sizeof *cpus, cpus);
        if (nice_value)
            setpriority(PRIO_PROCESS, 0, nice_value); /* best effort: needs root to go below 0 */
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        fprintf(stderr, "run: cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    c->pid = pid;
    c->out = fdopen(fd[0], "r");
    if (!want_port)
        return 0;
    char line[256];
    if (!fgets(line, sizeof line, c->out)) {
        ut_seterr(err, errlen, "%s did not start (see its message above)", argv[0]);
        return -1;
    }
    char *colon = strrchr(line, ':');
    c->port = colon ? atoi(colon + 1) : 0;
    if (c->port <= 0) {
        ut_seterr(err, errlen, "%s said \"%s\", not where it listens", argv[0], line);
        return -1;
    }
    return 0;
}

/* utime + stime of a live process, in seconds. */
static int proc_cpu(pid_t pid, double *user, double *sys)
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
    unsigned long ut = 0, st = 0;
    /* fields after the name: state(3) ... utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    long hz = sysconf(_SC_CLK_TCK);
    *user = (double)ut / (double)hz;
    *sys = (double)st / (double)hz;
    return 0;
}

/* Peak resident memory (VmHWM) of a live process, in kB; -1 if unknown. */
static long proc_hwm_kb(pid_t pid)
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

static int stop(child *c, int sig, double wait_s)
{
    if (c->pid <= 0)
        return -1;
    if (sig)
        kill(c->pid, sig);
    int status = 0;
    for (double waited = 0; waited < wait_s; waited += 0.01) {
        pid_t r = waitpid(c->pid, &status, WNOHANG);
        if (r == c->pid) {
            c->pid = 0;
            if (c->out)
                fclose(c->out);
            c->out = NULL;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, &status, 0);
    c->pid = 0;
    if (c->out)
        fclose(c->out);
    c->out = NULL;
    return -1;
}

/* Rows of a gzip event file (lines minus the two header lines). */
static long event_rows(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return -1;
    char buf[1 << 16];
    long lines = 0;
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        for (int i = 0; i < n; i++)
            lines += buf[i] == '\n';
    int bad = n < 0;
    gzclose(gz);
    return bad ? -1 : lines - 2;
}

static json_t *arm_json(const arm *a)
{
    json_t *o = json_object();
    json_t *p = json_array();
    for (int i = 0; i < a->npause; i++)
        json_array_append_new(p, json_integer(a->pause_ns[i] / 1000000));
    const char *pause[] = {"none", "fixed", "jitter"};
    char w[2] = {(char)a->wait, 0};
    json_object_set_new(o, "name", json_string(a->name));
    json_object_set_new(o, "wait", json_string(w));
    json_object_set_new(o, "rate", json_integer(a->rate));
    json_object_set_new(o, "policy", json_string(a->policy));
    json_object_set_new(o, "try_ms", json_integer(a->try_ns / 1000000));
    json_object_set_new(o, "tries", json_integer(a->tries));
    json_object_set_new(o, "pause", json_string(pause[a->pause]));
    json_object_set_new(o, "pause_ms", p);
    json_object_set_new(o, "hedge_ms", json_integer(a->hedge_ns / 1000000));
    json_object_set_new(o, "limit_ms", json_integer(a->limit_ns / 1000000));
    json_object_set_new(o, "deadline_ms", json_integer(a->deadline_ns / 1000000));
    json_object_set_new(o, "reserve_ms", json_integer(a->reserve_ns / 1000000));
    json_object_set_new(o, "down", json_integer(a->down));
    json_object_set_new(o, "standin", json_integer(a->standin));
    return o;
}

static int rm_rf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

int main(int argc, char **argv)
{
    ut_set_prog("run");
    const char *arm_name = NULL, *raw = "results/raw", *prep = "build/prep", *arms_path = "lab/arms.tsv",
               *bin = "build/bin", *cores = "0", *freeze = NULL;
    long round = -1;
    double seconds = 30, settle = -1;
    int tester_nice = -10;
    int gate = 1;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            ut_err("option %s needs a value", k);
            return 2;
        }
        i++;
        if (!strcmp(k, "--arm"))
            arm_name = v;
        else if (!strcmp(k, "--round"))
            round = atol(v);
        else if (!strcmp(k, "--seconds"))
            seconds = atof(v);
        else if (!strcmp(k, "--raw"))
            raw = v;
        else if (!strcmp(k, "--prep"))
            prep = v;
        else if (!strcmp(k, "--arms"))
            arms_path = v;
        else if (!strcmp(k, "--bin"))
            bin = v;
        else if (!strcmp(k, "--cores"))
            cores = v;
        else if (!strcmp(k, "--gate"))
            gate = atoi(v);
        else if (!strcmp(k, "--tester-nice"))
            tester_nice = atoi(v);
        else if (!strcmp(k, "--settle-s"))
            settle = atof(v);
        else if (!strcmp(k, "--freeze-share"))
            freeze = v;
        else {
            ut_err("unknown option %s (see the header of lab/run.c)", k);
            return 2;
        }
    }
    if (!arm_name || round < 1 || seconds <= 0) {
        ut_err("needs --arm NAME and --round R (1, 2 ...), and --seconds above 0");
        return 2;
    }
    char err[UT_ERRLEN] = "";
    arm_table arms;
    if (arms_load(arms_path, &arms, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 2;
    }
    const arm *a = arms_find(&arms, arm_name);
    if (!a) {
        ut_err("%s: no arm named %s (see the names in that file)", arms_path, arm_name);
        arms_free(&arms);
        return 2;
    }
    if (settle < 0)
        settle = a->wait == WAIT_H ? 2.5 : 0.2;
    cpu_set_t cpus;
    if (parse_cpus(cores, &cpus) != 0) {
        ut_err("--cores %s is not a CPU list such as 0 or 0-1", cores);
        return 2;
    }
    char name[96], dir[4096], fin[4096], path[4300];
    snprintf(name, sizeof name, "%s-r%ld", a->name, round);
    snprintf(dir, sizeof dir, "%s/.%s.tmp", raw, name);
    snprintf(fin, sizeof fin, "%s/%s", raw, name);
    rm_rf(dir);
    if (ut_mkdir_p(dir, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 1;
    }
    /* the number of table rows: lines of test.tsv minus its header */
    char table[4096], model[4096], standin[4096];
    snprintf(table, sizeof table, "%s/test.tsv", prep);
    snprintf(model, sizeof model, "%s/model.json", prep);
    snprintf(standin, sizeof standin, "%s/standin.tsv", prep);
    long rows = 0;
    {
        FILE *f = fopen(table, "r");
        if (!f) {
            ut_err("%s: cannot open: run `make prepare` first", table);
            return 1;
        }
        int ch;
        while ((ch = getc(f)) != EOF)
            rows += ch == '\n';
        fclose(f);
        rows -= 1;
    }
    char exe_store[4200], exe_service[4200], exe_tester[4200], s_round[32], s_port[32], s_seconds[32],
        s_rate[32], s_seed[32], s_rows[32], s_deadline[32], s_gate[8], s_wait[2] = {(char)a->wait, 0};
    snprintf(exe_store, sizeof exe_store, "%s/store", bin);
    snprintf(exe_service, sizeof exe_service, "%s/service", bin);
    snprintf(exe_tester, sizeof exe_tester, "%s/tester", bin);
    snprintf(s_round, sizeof s_round, "%ld", round);
    snprintf(s_seconds, sizeof s_seconds, "%g", seconds);
    if (a->rate)
        snprintf(s_rate, sizeof s_rate, "%d", a->rate);
    else
        snprintf(s_rate, sizeof s_rate, "max");
    const unsigned long long seed = 1000003ULL * (unsigned long long)round + 17;
    snprintf(s_seed, sizeof s_seed, "%llu", seed);
    snprintf(s_rows, sizeof s_rows, "%ld", rows);
    snprintf(s_deadline, sizeof s_deadline, "%lld", (long long)(a->deadline_ns / 1000000));
    snprintf(s_gate, sizeof s_gate, "%d", gate ? 1 : 0);
    char f_store[4400], f_service[4400], f_tester[4400], f_sum[4400];
    snprintf(f_store, sizeof f_store, "%s/store.tsv.gz", dir);
    snprintf(f_service, sizeof f_service, "%s/service.tsv.gz", dir);
    snprintf(f_tester, sizeof f_tester, "%s/tester.tsv.gz", dir);
    snprintf(f_sum, sizeof f_sum, "%s/tester.json.tmp", dir);

    int rc = 1;
    child st = {0}, sv = {0}, ts = {0};
    char *store_argv[] = {exe_store, "--port", "0", "--table", table, "--wait", s_wait, "--round", s_round,
                          "--out", f_store, freeze ? "--freeze-share" : NULL, (char *)freeze, NULL};
    if (start(store_argv, &cpus, 0, 1, &st, err, sizeof err) != 0)
        goto fail;
    snprintf(s_port, sizeof s_port, "%d", st.port);
    char *service_argv[] = {exe_service, "--port", "0", "--store-port", s_port, "--arm", (char *)a->name,
                            "--arms", (char *)arms_path, "--round", s_round, "--model", model,
                            "--standin", standin, "--out", f_service, NULL};
    if (start(service_argv, &cpus, 0, 1, &sv, err, sizeof err) != 0)
        goto fail;
    char s_sport[32];
    snprintf(s_sport, sizeof s_sport, "%d", sv.port);
    char *tester_argv[] = {exe_tester, "--port", s_sport, "--rate", s_rate, "--seconds", s_seconds,
                           "--seed", s_seed, "--rows", s_rows, "--out", f_tester, "--summary", f_sum,
                           "--gate", s_gate, a->deadline_ns ? "--deadline-ms" : NULL, s_deadline, NULL};
    char t_start[32];
    ut_utc_iso(t_start);
    int64_t w0 = ut_mono_ns();
    if (start(tester_argv, &cpus, tester_nice, 0, &ts, err, sizeof err) != 0)
        goto fail;
    int status;
    struct rusage ru;
    if (wait4(ts.pid, &status, 0, &ru) != ts.pid) {
        ut_seterr(err, sizeof err, "lost the tester: %s", strerror(errno));
        goto fail;
    }
    ts.pid = 0;
    fclose(ts.out);
    ts.out = NULL;
    double wall = (double)(ut_mono_ns() - w0) / 1e9;
    int tcode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double cpu[3][2] = {{0}};
    cpu[0][0] = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    cpu[0][1] = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    proc_cpu(sv.pid, &cpu[1][0], &cpu[1][1]);
    proc_cpu(st.pid, &cpu[2][0], &cpu[2][1]);
    long hwm_service = proc_hwm_kb(sv.pid), hwm_store = proc_hwm_kb(st.pid);
    /* Let the store finish the lookups nobody waits for any more (a freeze
     * lasts up to 2 s), so that their slot time is on record. */
    if (settle > 0) {
        struct timespec sl = {(time_t)settle, (long)((settle - (double)(time_t)settle) * 1e9)};
        nanosleep(&sl, NULL);
    }
    int sv_code = stop(&sv, SIGTERM, 60), st_code = stop(&st, SIGTERM, 60);
    if (tcode == 3) {
        ut_err("%s: the machine was not idle enough (the tester's idle gate); nothing kept", name);
        rm_rf(dir);
        arms_free(&arms);
        return 3;
    }
    if (tcode != 0 || sv_code != 0 || st_code != 0) {
        ut_seterr(err, sizeof err, "%s: tester exit %d, service exit %d, store exit %d", name, tcode, sv_code,
                  st_code);
        goto fail;
    }
    char t_end[32];
    ut_utc_iso(t_end);

    /* run.json */
    json_error_t je;
    json_t *sum = json_load_file(f_sum, 0, &je);
    if (!sum) {
        ut_seterr(err, sizeof err, "%s: %s", f_sum, je.text);
        goto fail;
    }
    json_t *r = json_object();
    json_object_set_new(r, "arm", json_string(a->name));
    json_object_set_new(r, "round", json_integer(round));
    json_object_set_new(r, "arm_spec", arm_json(a));
    json_object_set_new(r, "seconds", json_real(seconds));
    json_object_set_new(r, "settle_s", json_real(settle));
    json_object_set_new(r, "rate", json_integer(a->rate));
    json_object_set_new(r, "schedule_seed", json_integer((json_int_t)seed));
    json_object_set(r, "t0_ns", json_object_get(sum, "t0_ns"));
    json_object_set(r, "requests", json_object_get(sum, "requests"));
    json_object_set_new(r, "test_rows", json_integer(rows));
    json_object_set_new(r, "start_utc", json_string(t_start));
    json_object_set_new(r, "end_utc", json_string(t_end));
    json_t *idle = json_object_get(sum, "gate");
    json_object_set(r, "idle", idle ? idle : json_null());
    json_t *tester = json_object();
    const char *keep[] = {"conns", "conns_opened", "conns_reopened", "connect_failures", "waited", "answered",
                          "errors", "late_p50_ns", "late_p99_ns", "late_max_ns"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        json_t *v = json_object_get(sum, keep[i]);
        if (v)
            json_object_set(tester, keep[i], v);
    }
    json_object_set_new(r, "tester", tester);
    json_t *cpuj = json_object();
    const char *who[] = {"tester", "service", "store"};
    for (int i = 0; i < 3; i++)
        json_object_set_new(cpuj, who[i],
                            json_pack("{s:f,s:f,s:f}", "user_s", cpu[i][0], "sys_s", cpu[i][1], "share",
                                      (cpu[i][0] + cpu[i][1]) / wall));
    json_object_set_new(cpuj, "wall_s", json_real(wall));
    json_object_set_new(r, "cpu", cpuj);
    json_object_set_new(r, "peak_rss_kb", json_pack("{s:I,s:I,s:I}", "service", (json_int_t)hwm_service, "store",
                                                    (json_int_t)hwm_store, "tester",
                                                    (json_int_t)ru.ru_maxrss));
    json_object_set_new(r, "cores", json_string(cores));
    json_object_set_new(r, "tester_nice", json_integer(tester_nice));
    json_t *ver = json_object();
    json_object_set_new(ver, "zlib", json_string(zlibVersion()));
    json_object_set_new(ver, "jansson", json_string(jansson_version_str()));
    json_object_set_new(r, "versions", ver);
    json_object_set_new(r, "build", prov_build_facts());
    json_object_set_new(r, "host", prov_host_facts());
    json_t *files = json_object();
    const char *fnames[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, fnames[i]);
        char sha[65];
        uint64_t size;
        long nrows = event_rows(path);
        if (nrows < 0 || ut_sha256_file(path, sha, &size, err, sizeof err) != 0) {
            if (!err[0])
                ut_seterr(err, sizeof err, "%s: unreadable gzip stream", path);
            json_decref(r);
            json_decref(sum);
            goto fail;
        }
        json_object_set_new(files, fnames[i], json_pack("{s:i,s:I,s:s}", "rows", (int)nrows, "size",
                                                        (json_int_t)size, "sha256", sha));
    }
    json_object_set_new(r, "files", files);
    char *text = json_dumps(r, JSON_INDENT(1) | JSON_SORT_KEYS);
    json_decref(r);
    json_decref(sum);
    snprintf(path, sizeof path, "%s/run.json", dir);
    int bad = !text || ut_write_file(path, text, strlen(text), err, sizeof err) != 0;
    free(text);
    unlink(f_sum);
    if (bad)
        goto fail;
    rm_rf(fin);
    if (rename(dir, fin) != 0) {
        ut_seterr(err, sizeof err, "%s: cannot rename into place: %s", fin, strerror(errno));
        goto fail;
    }
    printf("run: %s done in %.1f s: %s\n", name, wall, fin);
    rc = 0;
    arms_free(&arms);
    return rc;
fail:
    if (err[0])
        ut_err("%s", err);
    if (ts.pid)
        stop(&ts, SIGKILL, 5);
    if (sv.pid)
        stop(&sv, SIGKILL, 5);
    if (st.pid)
        stop(&st, SIGKILL, 5);
    rm_rf(dir);
    arms_free(&arms);
    return rc;
}
