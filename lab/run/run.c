/* run: measure one arm for one round, and leave its raw files.
 *
 *   run --arm NAME --round R --raw DIR [--seconds 30] [--prep build/prep]
 *       [--arms lab/arms.tsv] [--bin build/bin] [--cores 0] [--gate 1|0]
 *       [--settle-s S] [--tester-nice -10] [--quiet data/quiet.tsv] [--machine local]
 *       [--gate-note FILE]
 *       [--freeze-share P]              tests only: the store's freeze share
 *       [--test-kill-store-after-s X]   tests only: SIGKILL the store X s after t0
 *       [--test-kill-store2-after-s X]  tests only: SIGKILL the second store X s after t0
 *       [--test-keep-logs DIR]          tests only: copy the processes' logs into DIR first
 *
 * Starts a fresh store and a fresh service pinned to --cores, runs the tester
 * (idle gate first) pinned likewise and with nice --tester-nice (as root: so
 * that, like a client on its own machine, it sends on time even while the
 * service is busy; its own lateness is recorded either way) and told the
 * store's port (it sends the store the run's t0, from which the arm's fault
 * window runs: the store gets --fault and --seconds), reads each
 * process's CPU use from /proc (lab/base/proc.h), lets the store finish the
 * lookups nobody waits for any more (it asks each store to say when it holds
 * none, lab/core/wire.h's drain frame, and waits for that or --settle-s at
 * most: 2.5 s with freezes, else 0.2 s; run.json's settled_s is how long it
 * took; with --gate-note FILE and the gate on, it watches the machine
 * through the settling as the idle gate does and, when the settling's last
 * window passed the gate's rule, writes FILE, the note the next run's
 * tester takes as its gate: lab/watch/gate.h; the tester is given FILE too,
 * to take the note of the run before), stops the store and the service (SIGTERM: they write their
 * logs; the service's events.tsv.gz too), rewrites the tester's, the
 * service's and the store's logs (tester.log.gz ..., every instant in ns)
 * into raw format 4 (lab/raw/raw4.h: checked against the schedule, the dice and
 * the reference of --prep, gzip 9, the logs then removed; one line on stdout
 * gives the sizes, for `make bench-raw`), and writes run.json (its `fault`
 * and `files`, of the format 4 files, as lab/RAWFORMAT.md says; its
 * `header_timeout_s` and `idle_timeout_s`, the front door's timeouts the
 * service was given: lab/core/doortimes.h).  A log
 * that breaks a rule of format 4 fails the run (exit 1, the reason naming
 * the log, its line and column).
 *
 * An arm with a second store (store2 above 0, or hedge2 1: arms_stores)
 * gets a second store process: the same program, table, wait, round and
 * freeze share, its own port (the service's --store2-port), pinned like
 * the first, writing store2.tsv.gz; run.json's `stores` is then 2, and
 * `files`, `cpu` and `peak_rss_kb` name it (store2).  It has no fault, and
 * is sent no clock frame (t0 only places a fault's window), unless the
 * scenario is both stores' (slowboth, fault_at_store): then it gets
 * --fault and --seconds like the first, and the tester sends it the clock
 * frame too (--store2-port).  Its death during the run is
 * exit 4 like the first's.  Everything goes to
 * "<raw>/.<arm>-r<round>.tmp" and is renamed to "<raw>/<arm>-r<round>" only
 * when complete, so a folder under its final name is always a whole run.
 * Exit 0 on success, 2 on a bad option (named, with its value), 3 when the
 * idle gate did not pass (nothing kept), 4 when a lab process died before
 * the stop: a store or the service no longer alive when the tester ended
 * and the store's run-on was over, or the tester killed by a signal (one
 * line on stderr names each and how, e.g. "run: H3-fb25-r1: store killed by
 * signal 9 during the run; nothing kept"; measure measures such a run
 * again), 1 on any other failure (nothing kept).  The names of these codes:
 * lab/base/exits.h.
 *
 * The Poisson schedule's seed depends on the round only, so every arm of a
 * round meets the same arrivals as well as the same dice.
 */
#include <errno.h>
#include <jansson.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "arms.h"
#include "arrivals.h"
#include "doortimes.h"
#include "exits.h"
#include "faults.h"
#include "opt.h"
#include "proc.h"
#include "facts.h"
#include "quiet.h"
#include "storetab.h"
#include "raw4.h"
#include "util.h"
#include "waits.h"
#include "gate.h"
#include "wire.h"

/* What run was asked for, and what follows from it. */
typedef struct {
    const char *arm_name, *raw, *prep, *arms_path, *bin, *cores, *freeze, *quiet_path, *keep_logs;
    const char *gate_note; /* the gate's note (lab/watch/gate.h), or NULL */
    const char *machine; /* run.json's label: local, m1, m2 ... (measure's --host) */
    quiet_limits quiet;
    int round, tester_nice, gate;
    double seconds, settle;
    double kill_store_s;  /* tests only: SIGKILL the store this long after t0; < 0: never */
    double kill_store2_s; /* the same for the second store */
    arm_table arms;
    const arm *a;
    cpu_set_t cpus;
    long rows; /* rows of the store's table */
    unsigned long long seed;
    char name[96], dir[4096], fin[4096];
    char table[4096], model[4096], standin[4096];
} run_cfg;

/* The processes (three, or four with a second store) and what was read
 * about them. */
typedef struct {
    proc_child st, sv, ts, st2; /* st2.pid 0: no second store */
    int store_port, store2_port;
    char t_start[32], t_end[32];
    double wall;
    double settled; /* seconds the settling took (up to the run's settle) */
    int tcode;
    double cpu[4][2]; /* tester, service, store, store2: user and system seconds */
    long hwm_service, hwm_store, hwm_store2;
    struct rusage ru; /* the tester's */
} run_procs;

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
    char w[2] = {(char)a->wait, 0};
    json_object_set_new(o, "name", json_string(a->name));
    json_object_set_new(o, "wait", json_string(w));
    json_object_set_new(o, "rate", json_integer(a->rate));
    json_object_set_new(o, "policy", json_string(a->policy));
    json_object_set_new(o, "try_ms", json_integer(a->try_ns / 1000000));
    json_object_set_new(o, "tries", json_integer(a->tries));
    json_object_set_new(o, "pause", json_string(ARMS_PAUSE_NAMES[a->pause]));
    json_object_set_new(o, "pause_ms", p);
    json_object_set_new(o, "hedge_ms", json_integer(a->hedge_ns / 1000000));
    json_object_set_new(o, "limit_ms", json_integer(a->limit_ns / 1000000));
    json_object_set_new(o, "deadline_ms", json_integer(a->deadline_ns / 1000000));
    json_object_set_new(o, "reserve_ms", json_integer(a->reserve_ns / 1000000));
    json_object_set_new(o, "down", json_integer(a->down));
    json_object_set_new(o, "standin", json_integer(a->standin));
    char fault[64];
    fault_format(&a->fault, fault, sizeof fault);
    json_object_set_new(o, "fault", json_string(fault));
    const struct {
        const char *name;
        long long v;
    } defences[] = {{"brk_fails", a->brk_fails},   {"brk_window", a->brk_window},
                    {"brk_share", a->brk_share},   {"brk_cool_ms", a->brk_cool_ns / 1000000},
                    {"brk_probes", a->brk_probes}, {"store2", a->store2},
                    {"inflight", a->inflight},     {"bulkhead", a->bulkhead},
                    {"rb_pct", a->rb_pct},         {"rb_floor", a->rb_floor},
                    {"hedge_p", a->hedge_p},       {"limit_pm", a->limit_pm},
                    {"hedge2", a->hedge2}};
    for (size_t i = 0; i < sizeof defences / sizeof defences[0]; i++)
        json_object_set_new(o, defences[i].name, json_integer(defences[i].v));
    return o;
}

/* run.json's `fault`: the scenario and its window in ns from t0 (to_ns
 * null: to the end of the run), or "window": null. */
static json_t *fault_json(const run_cfg *c)
{
    const fault_spec *f = &c->a->fault;
    char spec[64];
    fault_format(f, spec, sizeof spec);
    json_t *o = json_pack("{s:s,s:s}", "name", fault_name(f->kind), "spec", spec);
    if (!fault_has_window(f->kind)) {
        json_object_set_new(o, "window", json_null());
        return o;
    }
    fault_window w = fault_window_of(f, c->seconds);
    json_object_set_new(o, "from_ns", json_integer(w.from_ns));
    json_object_set_new(o, "to_ns", w.to_ns == INT64_MAX ? json_null() : json_integer(w.to_ns));
    return o;
}

/* A number as the shortest text that reads back as the same double, so
 * that the store and the tester see run.json's `seconds` exactly. */
static void fmt_exact(double v, char *buf, size_t n)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static int rm_rf(const char *dir) { return ut_rm_tree(dir); }

/* -1: go on; else the exit code (EXIT_OK after --help, EXIT_USAGE on a bad option). */
static int parse_options(int argc, char **argv, run_cfg *c)
{
    c->prep = "build/prep";
    c->arms_path = "lab/arms.tsv";
    c->bin = "build/bin";
    c->cores = "0";
    c->round = -1;
    c->seconds = 30;
    c->settle = -1;
    c->tester_nice = -10;
    c->gate = 1;
    c->quiet_path = "data/quiet.tsv";
    c->machine = "local";
    c->kill_store_s = c->kill_store2_s = -1;
    const opt_spec spec[] = {
        {"--arm", OPT_STR, &c->arm_name, 0, 0, "NAME", "the arm (a name of --arms)"},
        {"--round", OPT_INT, &c->round, 1, 1000000, "R", "the round: 1, 2 ..."},
        {"--seconds", OPT_DBL, &c->seconds, 0, 1e6, "S", "how long the tester sends (30)"},
        {"--raw", OPT_STR, &c->raw, 0, 0, "DIR", "where the run's folder goes (required)"},
        {"--prep", OPT_STR, &c->prep, 0, 0, "DIR", "the prepared files (build/prep)"},
        {"--arms", OPT_STR, &c->arms_path, 0, 0, "FILE", "the arms (lab/arms.tsv)"},
        {"--bin", OPT_STR, &c->bin, 0, 0, "DIR", "store, service and tester (build/bin)"},
        {"--cores", OPT_STR, &c->cores, 0, 0, "LIST", "CPUs the three processes are pinned to (0)"},
        {"--gate", OPT_BOOL, &c->gate, 0, 1, "0|1", "the tester's idle gate first (1)"},
        {"--gate-note", OPT_STR, &c->gate_note, 0, 0, "FILE",
         "the gate's note: taken from the run before, written for the next (lab/watch/gate.h)"},
        {"--tester-nice", OPT_INT, &c->tester_nice, -20, 19, "N", "the tester's nice value, as root (-10)"},
        {"--settle-s", OPT_DBL, &c->settle, 0, 600, "S", "the store's run-on (2.5 with freezes, else 0.2)"},
        {"--freeze-share", OPT_STR, &c->freeze, 0, 0, "P", "tests only: the store's freeze share"},
        {"--quiet", OPT_STR, &c->quiet_path, 0, 0, "FILE", "the rules of a quiet run (data/quiet.tsv)"},
        {"--machine", OPT_STR, &c->machine, 0, 0, "LABEL", "run.json's machine: local, m1, m2 ... (local)"},
        {"--test-kill-store-after-s", OPT_DBL, &c->kill_store_s, 0, 1e6, "X",
         "tests only: SIGKILL the store X s after t0 (the run then fails, exit 4)"},
        {"--test-kill-store2-after-s", OPT_DBL, &c->kill_store2_s, 0, 1e6, "X",
         "tests only: SIGKILL the second store X s after t0 (the run then fails, exit 4)"},
        {"--test-keep-logs", OPT_STR, &c->keep_logs, 0, 0, "DIR",
         "tests only: copy the processes' ns logs (*.log.gz) into DIR before the rewrite"},
        {0}};
    int rc = opt_parse(argc, argv, spec, "run: one arm, one round (see the header of lab/run/run.c)", NULL);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? EXIT_OK : EXIT_USAGE;
    if (!c->arm_name || c->round < 1 || c->seconds <= 0 || !c->raw) {
        ut_err("needs --arm NAME, --round R (1, 2 ...) and --raw DIR, and --seconds above 0");
        return EXIT_USAGE;
    }
    int64_t mk;
    char mwhy[128];
    if (strcmp(c->machine, "local") &&
        (c->machine[0] != 'm' || c->machine[1] == '0' || opt_i64(c->machine + 1, 1, 9999, &mk, mwhy, sizeof mwhy))) {
        ut_err("option --machine: \"%s\": local, or m1, m2 ... (a label, never a host's name)", c->machine);
        return EXIT_USAGE;
    }
    return -1;
}

/* The arm, the CPUs, the paths and the table's size; 0 or an exit code. */
static int setup(run_cfg *c)
{
    char err[UT_ERRLEN] = "";
    if (arms_load(c->arms_path, &c->arms, err, sizeof err) != 0) {
        ut_err("%s", err);
        return EXIT_USAGE;
    }
    if (quiet_load(c->quiet_path, &c->quiet, err, sizeof err) != 0) {
        ut_err("%s", err);
        return EXIT_USAGE;
    }
    c->a = arms_find(&c->arms, c->arm_name);
    if (!c->a) {
        ut_err("%s: no arm named %s (see the names in that file)", c->arms_path, c->arm_name);
        return EXIT_USAGE;
    }
    if (c->settle < 0)
        c->settle = c->a->wait == WAIT_H ? 2.5 : 0.2;
    if (proc_cpus_parse(c->cores, &c->cpus, err, sizeof err) != 0) {
        ut_err("option --cores: \"%s\": %s (a CPU list such as 0 or 0-1)", c->cores, err);
        return EXIT_USAGE;
    }
    snprintf(c->name, sizeof c->name, "%s-r%d", c->a->name, c->round);
    snprintf(c->dir, sizeof c->dir, "%s/.%s.tmp", c->raw, c->name);
    snprintf(c->fin, sizeof c->fin, "%s/%s", c->raw, c->name);
    snprintf(c->table, sizeof c->table, "%s/test.tsv", c->prep);
    snprintf(c->model, sizeof c->model, "%s/model.json", c->prep);
    snprintf(c->standin, sizeof c->standin, "%s/standin.tsv", c->prep);
    c->seed = arrivals_seed((uint64_t)c->round);
    /* the number of table rows (the tester's --rows), read by the one
     * reader of test.tsv */
    uint32_t rows;
    if (access(c->table, R_OK) != 0) {
        ut_err("%s: cannot open: run `make prepare` first", c->table);
        return EXIT_FAIL;
    }
    if (storetab_rows(c->table, &rows, err, sizeof err) != 0) {
        ut_err("%s", err);
        return EXIT_FAIL;
    }
    c->rows = rows;
    return EXIT_OK;
}

/* A store writing dir/<file>: with the arm's fault (the first store; the
 * second for a scenario of both stores), or none.  Its port, or -1. */
static int start_store(const run_cfg *c, proc_child *ch, const char *file, int with_fault, char *err, size_t errlen)
{
    char exe[4200], s_round[32], s_wait[2] = {(char)c->a->wait, 0}, f_out[4400], s_fault[64], s_seconds[40];
    snprintf(exe, sizeof exe, "%s/store", c->bin);
    snprintf(s_round, sizeof s_round, "%d", c->round);
    snprintf(f_out, sizeof f_out, "%s/%s", c->dir, file);
    fault_format(&c->a->fault, s_fault, sizeof s_fault);
    fmt_exact(c->seconds, s_seconds, sizeof s_seconds);
    const proc_opts o = {.flags = PROC_PIPE_OUT, .cpus = &c->cpus};
    char *argv[20] = {exe, "--port", "0", "--table", (char *)c->table, "--wait", s_wait, "--round", s_round,
                      "--out", f_out};
    int n = 11, port;
    if (with_fault) {
        argv[n++] = "--fault";
        argv[n++] = s_fault;
        argv[n++] = "--seconds";
        argv[n++] = s_seconds;
    }
    if (c->freeze) {
        argv[n++] = "--freeze-share";
        argv[n++] = (char *)c->freeze;
    }
    argv[n] = NULL;
    if (proc_start(argv, &o, ch, err, errlen) != 0 || proc_read_port(ch, exe, &port, err, errlen) != 0)
        return -1;
    return port;
}

/* The store (and the second one), then the service told where they listen. */
static int start_servers(const run_cfg *c, run_procs *p, char *err, size_t errlen)
{
    char exe_service[4200], s_round[32], s_port[32], s_port2[32], f_service[4400], f_events[4400];
    snprintf(exe_service, sizeof exe_service, "%s/service", c->bin);
    snprintf(s_round, sizeof s_round, "%d", c->round);
    snprintf(f_service, sizeof f_service, "%s/service.log.gz", c->dir);
    snprintf(f_events, sizeof f_events, "%s/events.tsv.gz", c->dir);
    p->store_port = start_store(c, &p->st, "store.log.gz", 1, err, errlen);
    if (p->store_port < 0)
        return -1;
    if (arms_stores(c->a) == 2) {
        p->store2_port = start_store(c, &p->st2, "store2.log.gz", fault_at_store(c->a->fault.kind, 1), err, errlen);
        if (p->store2_port < 0)
            return -1;
    }
    snprintf(s_port, sizeof s_port, "%d", p->store_port);
    snprintf(s_port2, sizeof s_port2, "%d", p->store2_port);
    const proc_opts o = {.flags = PROC_PIPE_OUT, .cpus = &c->cpus};
    int port;
    char s_head[32], s_idle[32]; /* the front door's timeouts, recorded in run.json */
    snprintf(s_head, sizeof s_head, "%.17g", DOOR_HEADER_TIMEOUT_S);
    snprintf(s_idle, sizeof s_idle, "%.17g", door_idle_timeout_s(c->seconds));
    char *service_argv[] = {exe_service, "--port", "0", "--store-port", s_port, "--arm", (char *)c->a->name,
                            "--arms", (char *)c->arms_path, "--round", s_round, "--model", (char *)c->model,
                            "--standin", (char *)c->standin, "--out", f_service, "--events", f_events,
                            "--header-timeout-s", s_head, "--idle-timeout-s", s_idle,
                            arms_stores(c->a) == 2 ? "--store2-port" : NULL, s_port2, NULL};
    return proc_start(service_argv, &o, &p->sv, err, errlen) != 0 ||
                   proc_read_port(&p->sv, exe_service, &port, err, errlen) != 0
               ? -1
               : port;
}

/* Tests only (--test-kill-store-after-s X, --test-kill-store2-after-s X):
 * SIGKILL the store (or the second one) X s after t0, which the tester
 * prints first on its stdout, unless the tester ends before (its stdout
 * then reaches its end). */
static void kill_store_when_due(const run_cfg *c, run_procs *p)
{
    int second = c->kill_store_s < 0;
    double after = second ? c->kill_store2_s : c->kill_store_s;
    char line[128];
    size_t n = 0;
    while (n < sizeof line - 1 && (n == 0 || line[n - 1] != '\n')) {
        ssize_t r = read(p->ts.fd, line + n, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return;
        n++;
    }
    line[n] = 0;
    int64_t t0;
    if (sscanf(line, "tester: t0_ns %" SCNd64, &t0) != 1)
        return;
    int64_t due = t0 + (int64_t)llround(after * 1e9), left;
    char sink[256];
    while ((left = due - ut_mono_ns()) > 0) {
        struct pollfd pf = {p->ts.fd, POLLIN, 0};
        if (poll(&pf, 1, (int)(left / 1000000) + 1) > 0 && read(p->ts.fd, sink, sizeof sink) == 0)
            return; /* the tester has ended */
    }
    kill(second ? p->st2.pid : p->st.pid, SIGKILL);
}

/* The tester, to its end; then each process's CPU use while all are alive. */
static int run_tester(const run_cfg *c, int service_port, run_procs *p, char *err, size_t errlen)
{
    const arm *a = c->a;
    char exe[4200], s_port[32], s_rate[32], s_seconds[32], s_seed[32], s_rows[32], s_deadline[32], s_gate[8];
    char f_tester[4400], f_sum[4400], f_machine[4400], s_pids[64], s_store[32], s_store2[32];
    snprintf(exe, sizeof exe, "%s/tester", c->bin);
    if (p->st2.pid > 0) /* the run's own processes: their ticks are not foreign load */
        snprintf(s_pids, sizeof s_pids, "%d,%d,%d", (int)p->st.pid, (int)p->sv.pid, (int)p->st2.pid);
    else
        snprintf(s_pids, sizeof s_pids, "%d,%d", (int)p->st.pid, (int)p->sv.pid);
    snprintf(f_machine, sizeof f_machine, "%s/machine.tsv.gz", c->dir);
    snprintf(s_port, sizeof s_port, "%d", service_port);
    snprintf(s_store, sizeof s_store, "%d", p->store_port);
    /* the second store learns t0 only when it has the fault too */
    int clock2 = p->st2.pid > 0 && fault_at_store(a->fault.kind, 1);
    snprintf(s_store2, sizeof s_store2, "%d", p->store2_port);
    if (a->rate)
        snprintf(s_rate, sizeof s_rate, "%d", a->rate);
    else
        snprintf(s_rate, sizeof s_rate, "max");
    fmt_exact(c->seconds, s_seconds, sizeof s_seconds);
    snprintf(s_seed, sizeof s_seed, "%llu", c->seed);
    snprintf(s_rows, sizeof s_rows, "%ld", c->rows);
    snprintf(s_deadline, sizeof s_deadline, "%lld", (long long)(a->deadline_ns / 1000000));
    snprintf(s_gate, sizeof s_gate, "%d", c->gate ? 1 : 0);
    snprintf(f_tester, sizeof f_tester, "%s/tester.log.gz", c->dir);
    snprintf(f_sum, sizeof f_sum, "%s/tester.json.tmp", c->dir);
    char *tester_argv[32] = {exe, "--port", s_port, "--rate", s_rate, "--seconds", s_seconds,
                             "--seed", s_seed, "--rows", s_rows, "--out", f_tester, "--summary", f_sum,
                             "--machine", f_machine, "--watch-pids", s_pids, "--gate", s_gate,
                             "--store-port", s_store};
    int na = 23;
    if (a->deadline_ns) {
        tester_argv[na++] = "--deadline-ms";
        tester_argv[na++] = s_deadline;
    }
    if (clock2) {
        tester_argv[na++] = "--store2-port";
        tester_argv[na++] = s_store2;
    }
    if (c->gate && c->gate_note) {
        tester_argv[na++] = "--gate-note";
        tester_argv[na++] = (char *)c->gate_note;
    }
    tester_argv[na] = NULL;
    const proc_opts o = {.flags = PROC_PIPE_OUT, .cpus = &c->cpus, .nice = c->tester_nice};
    ut_utc_iso(p->t_start);
    int64_t w0 = ut_mono_ns();
    if (proc_start(tester_argv, &o, &p->ts, err, errlen) != 0)
        return -1;
    if (c->kill_store_s >= 0 || (c->kill_store2_s >= 0 && p->st2.pid > 0))
        kill_store_when_due(c, p);
    p->tcode = proc_wait(&p->ts, &p->ru);
    if (p->tcode < 0) {
        ut_seterr(err, errlen, "lost the tester: %s", strerror(errno));
        return -1;
    }
    p->wall = (double)(ut_mono_ns() - w0) / 1e9;
    p->cpu[0][0] = (double)p->ru.ru_utime.tv_sec + (double)p->ru.ru_utime.tv_usec / 1e6;
    p->cpu[0][1] = (double)p->ru.ru_stime.tv_sec + (double)p->ru.ru_stime.tv_usec / 1e6;
    proc_cpu_s(p->sv.pid, &p->cpu[1][0], &p->cpu[1][1]);
    proc_cpu_s(p->st.pid, &p->cpu[2][0], &p->cpu[2][1]);
    p->hwm_service = proc_peak_rss_kb(p->sv.pid);
    p->hwm_store = proc_peak_rss_kb(p->st.pid);
    if (p->st2.pid > 0) {
        proc_cpu_s(p->st2.pid, &p->cpu[3][0], &p->cpu[3][1]);
        p->hwm_store2 = proc_peak_rss_kb(p->st2.pid);
    }
    return 0;
}

static void add_tester_and_cpu(json_t *r, json_t *sum, const run_cfg *c, const run_procs *p)
{
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
    const char *who[] = {"tester", "service", "store", "store2"};
    for (int i = 0; i < (arms_stores(c->a) == 2 ? 4 : 3); i++)
        json_object_set_new(cpuj, who[i],
                            json_pack("{s:f,s:f,s:f}", "user_s", p->cpu[i][0], "sys_s", p->cpu[i][1], "share",
                                      (p->cpu[i][0] + p->cpu[i][1]) / p->wall));
    json_object_set_new(cpuj, "wall_s", json_real(p->wall));
    json_object_set_new(r, "cpu", cpuj);
    json_t *rss = json_pack("{s:I,s:I,s:I}", "service", (json_int_t)p->hwm_service, "store",
                            (json_int_t)p->hwm_store, "tester", (json_int_t)p->ru.ru_maxrss);
    if (arms_stores(c->a) == 2)
        json_object_set_new(rss, "store2", json_integer(p->hwm_store2));
    json_object_set_new(r, "peak_rss_kb", rss);
    json_object_set_new(r, "cores", json_string(c->cores));
    /* what the tester ran at (read back), not what was asked: without root
     * (or RLIMIT_NICE) -10 is refused and the tester runs at this one's */
    json_object_set_new(r, "tester_nice", json_integer(p->ts.nice));
    json_object_set_new(r, "tester_nice_asked", json_integer(c->tester_nice));
}

/* files: rows, size and sha256 of each event file (store2.tsv.gz with a
 * second store). */
static json_t *files_json(const run_cfg *c, char *err, size_t errlen)
{
    json_t *files = json_object();
    const char *fnames[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz", "events.tsv.gz", "machine.tsv.gz",
                            "store2.tsv.gz"};
    for (int i = 0; i < (arms_stores(c->a) == 2 ? 6 : 5); i++) {
        char path[4300], sha[65];
        uint64_t size;
        snprintf(path, sizeof path, "%s/%s", c->dir, fnames[i]);
        long nrows = event_rows(path);
        if (nrows < 0 || ut_sha256_file(path, sha, &size, err, errlen) != 0) {
            if (!err[0])
                ut_seterr(err, errlen, "%s: unreadable gzip stream", path);
            json_decref(files);
            return NULL;
        }
        json_object_set_new(files, fnames[i], json_pack("{s:i,s:I,s:s}", "rows", (int)nrows, "size",
                                                        (json_int_t)size, "sha256", sha));
    }
    return files;
}

static json_t *num_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

/* The lab's own judgement of the run by data/quiet.tsv's rules (measure
 * measures a disturbed run again); collect and the verifier recompute it. */
static json_t *quiet_json(const run_cfg *c, char *err, size_t errlen)
{
    quiet_result q;
    if (quiet_judge_run(c->dir, c->a->rate == 0, &c->quiet, &q, err, errlen) != 0)
        return NULL;
    json_t *rules = json_array(), *why = json_array();
    for (int i = 0; i < q.nreasons; i++) {
        json_array_append_new(rules, json_string(q.rule[i]));
        json_array_append_new(why, json_string(q.reasons[i]));
    }
    json_t *o = json_object();
    json_object_set_new(o, "quiet", json_boolean(q.quiet));
    json_object_set_new(o, "rules", rules);
    json_object_set_new(o, "reasons", why);
    json_object_set_new(o, "steal_share", num_or_null(q.steal_run));
    json_object_set_new(o, "steal_second_max", num_or_null(q.steal_second_max));
    json_object_set_new(o, "other_idle_share", num_or_null(q.other_idle));
    json_object_set_new(o, "late_p99_ms", num_or_null(q.late_p99_ms));
    json_object_set_new(o, "late_max_ms", num_or_null(q.late_max_ms));
    json_object_set_new(o, "foreign_second_max", num_or_null(q.foreign_second_max));
    if (q.quiet)
        printf("run: %s quiet (steal %.2f%%, lateness p99 %.3f ms, max %.3f ms)\n", c->name, 100 * q.steal_run,
               q.late_p99_ms, q.late_max_ms);
    for (int i = 0; i < q.nreasons; i++)
        printf("run: %s disturbed: %s\n", c->name, q.reasons[i]);
    return o;
}

/* The processes' ns logs into raw format 4 (lab/raw/raw4.h), checked; run.json
 * (`r`, not yet written) gives the run's numbers, --prep the reference. */
static int rewrite(const run_cfg *c, const json_t *r, char *err, size_t errlen)
{
    raw4_params rp;
    raw4_ref ref;
    raw4_stats st;
    if (raw4_params_json(r, "run.json", &rp, err, errlen) != 0 || raw4_ref_load(c->prep, &ref, NULL, err, errlen) != 0)
        return -1;
    if (c->keep_logs) {
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s'/*.log.gz '%s'/", c->keep_logs, c->dir, c->keep_logs);
        if (system(cmd) != 0)
            ut_err("--test-keep-logs %s: could not copy the logs", c->keep_logs);
    }
    int rc = raw4_rewrite(c->dir, &rp, &ref, &st, err, errlen);
    raw4_ref_free(&ref);
    if (rc != 0)
        return -1;
    uint64_t lb = 0, ob = 0;
    for (int k = 0; k < 4; k++) {
        lb += st.log_bytes[k];
        ob += st.out_bytes[k];
    }
    double n = rp.requests ? (double)rp.requests : 1;
    printf("run: %s raw format 4: %lld requests, logs %llu B (%.1f B/request), files %llu B (%.1f B/request), "
           "rewrite %.3f s\n",
           c->name, (long long)rp.requests, (unsigned long long)lb, (double)lb / n, (unsigned long long)ob,
           (double)ob / n, st.seconds);
    return 0;
}

/* run.json from the tester's summary, the arm and what was read of the processes. */
static int write_run_json(const run_cfg *c, const run_procs *p, char *err, size_t errlen)
{
    char f_sum[4400], path[4300];
    snprintf(f_sum, sizeof f_sum, "%s/tester.json.tmp", c->dir);
    json_error_t je;
    json_t *sum = json_load_file(f_sum, 0, &je);
    if (!sum) {
        ut_seterr(err, errlen, "%s: %s", f_sum, je.text);
        return -1;
    }
    const arm *a = c->a;
    json_t *r = json_object();
    json_object_set_new(r, "arm", json_string(a->name));
    json_object_set_new(r, "round", json_integer(c->round));
    json_object_set_new(r, "machine", json_string(c->machine));
    json_object_set_new(r, "arm_spec", arm_json(a));
    json_object_set_new(r, "stores", json_integer(arms_stores(a)));
    json_object_set_new(r, "fault", fault_json(c));
    json_object_set_new(r, "seconds", json_real(c->seconds));
    json_object_set_new(r, "settle_s", json_real(c->settle));
    json_object_set_new(r, "settled_s", json_real(p->settled));
    json_object_set_new(r, "rate", json_integer(a->rate));
    /* the service's front-door timeouts, as start_service passed them */
    json_object_set_new(r, "header_timeout_s", json_real(DOOR_HEADER_TIMEOUT_S));
    json_object_set_new(r, "idle_timeout_s", json_real(door_idle_timeout_s(c->seconds)));
    /* the store's freeze share (RAWFORMAT.md "The dice"): 0.01 unless a test asked otherwise */
    double freeze = WAITS_FREEZE_P;
    char fwhy[128];
    if (c->freeze && opt_f64(c->freeze, 0, 1, &freeze, fwhy, sizeof fwhy) != 0)
        freeze = NAN; /* the store refused it already: the run failed */
    json_object_set_new(r, "freeze_share", isnan(freeze) ? json_null() : json_real(freeze));
    json_object_set_new(r, "schedule_seed", json_integer((json_int_t)c->seed));
    json_object_set(r, "t0_ns", json_object_get(sum, "t0_ns"));
    json_object_set(r, "requests", json_object_get(sum, "requests"));
    json_object_set_new(r, "test_rows", json_integer(c->rows));
    json_object_set_new(r, "start_utc", json_string(p->t_start));
    json_object_set_new(r, "end_utc", json_string(p->t_end));
    json_t *idle = json_object_get(sum, "gate");
    json_object_set(r, "idle", idle ? idle : json_null());
    add_tester_and_cpu(r, sum, c, p);
    json_t *ver = json_object();
    json_object_set_new(ver, "zlib", json_string(zlibVersion()));
    json_object_set_new(ver, "jansson", json_string(jansson_version_str()));
    json_object_set_new(r, "versions", ver);
    json_object_set_new(r, "build", facts_build());
    json_object_set_new(r, "host", facts_host());
    json_t *files = rewrite(c, r, err, errlen) == 0 ? files_json(c, err, errlen) : NULL;
    json_decref(sum);
    if (!files) {
        json_decref(r);
        return -1;
    }
    json_object_set_new(r, "files", files);
    json_t *q = quiet_json(c, err, errlen);
    if (!q) {
        json_decref(r);
        return -1;
    }
    json_object_set_new(r, "quiet", q);
    char *text = json_dumps(r, JSON_INDENT(1) | JSON_SORT_KEYS);
    json_decref(r);
    snprintf(path, sizeof path, "%s/run.json", c->dir);
    int bad = !text || ut_write_file(path, text, strlen(text), err, errlen) != 0;
    free(text);
    unlink(f_sum);
    return bad ? -1 : 0;
}

/* How a child that has ended ended, for the one line of exit 4. */
static void add_death(char *why, size_t wl, const char *who, int status)
{
    size_t n = strlen(why);
    if (WIFSIGNALED(status))
        snprintf(why + n, wl - n, "%s%s killed by signal %d during the run", n ? "; " : "", who, WTERMSIG(status));
    else
        snprintf(why + n, wl - n, "%s%s exited with code %d during the run", n ? "; " : "", who,
                 WEXITSTATUS(status));
}

/* Who of the three died before the stop, and how (in why); 0 when none.
 * A store or service found dead is reaped here (proc_stop then skips it). */
static int who_died(run_procs *p, char *why, size_t wl)
{
    why[0] = 0;
    proc_child *ch[3] = {&p->st, &p->sv, &p->st2};
    const char *who[3] = {"store", "service", "second store"};
    for (int i = 0; i < 3; i++) {
        int status;
        if (ch[i]->pid > 0 && waitpid(ch[i]->pid, &status, WNOHANG) == ch[i]->pid) {
            add_death(why, wl, who[i], status);
            ch[i]->pid = 0;
            if (ch[i]->fd >= 0)
                close(ch[i]->fd);
            ch[i]->fd = -1;
        }
    }
    if (p->tcode > 128) /* proc_wait's 128+N: ended by signal N */
        add_death(why, wl, "tester", p->tcode - 128);
    return why[0] != 0;
}

/* A connection to the store on 127.0.0.1:port with a drain frame sent; -1
 * when it cannot be made (the caller then just waits). */
static int drain_open(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned char b[WIRE_REQ_SIZE];
    wire_put_drain(b);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || write(fd, b, sizeof b) != (ssize_t)sizeof b) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Let the stores finish the lookups nobody waits for any more (a freeze
 * lasts up to 2 s), so that their slot time is on record: each store is
 * asked to say when it holds none (lab/core/wire.h's drain frame), and the
 * wait ends when every store has said so, or after c->settle seconds at
 * most (a store that cannot be asked is waited for the whole time).  The
 * seconds it took go into p->settled.  With the gate on and a note to
 * write, the machine is sampled through it as the idle gate does (and on,
 * when it ended sooner, to a whole window from its start), and a last
 * window that passed is written as the next run's gate (lab/watch/gate.h). */
static void settle(const run_cfg *c, run_procs *p)
{
    int64_t t0 = ut_mono_ns(), until = t0 + (int64_t)(c->settle * 1e9);
    gate_watch gw;
    int watching = c->gate && c->gate_note && gate_watch_start(&gw) == 0;
    struct pollfd pf[2];
    int n = 0, ports[2] = {p->store_port, p->st2.pid > 0 ? p->store2_port : -1}, cannot = 0;
    size_t got[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        if (ports[i] <= 0)
            continue;
        int fd = drain_open(ports[i]);
        if (fd < 0)
            cannot = 1;
        else
            pf[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
    }
    int left = cannot ? -1 : n; /* -1: wait the whole time */
    unsigned char buf[2][WIRE_ANS_SIZE];
    for (int64_t now = ut_mono_ns(); now < until && left != 0; now = ut_mono_ns()) {
        if (watching && now >= gate_watch_due(&gw)) {
            watching = gate_watch_sample(&gw) == 0;
            continue;
        }
        int64_t wake = watching && gate_watch_due(&gw) < until ? gate_watch_due(&gw) : until;
        if (n == 0 || left < 0) { /* nothing to hear from: sleep to the next sample or the end */
            struct timespec sl = {(time_t)((wake - now) / 1000000000), (long)((wake - now) % 1000000000)};
            nanosleep(&sl, NULL);
            continue;
        }
        if (poll(pf, (nfds_t)n, (int)((wake - now + 999999) / 1000000)) <= 0)
            continue;
        for (int i = 0; i < n; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = read(pf[i].fd, buf[i] + got[i], sizeof buf[i] - got[i]);
            if (r > 0)
                got[i] += (size_t)r;
            if (r <= 0 || got[i] == sizeof buf[i]) {
                if (r <= 0 || !wire_is_drained(buf[i]))
                    left = -1; /* the store went away or said something else: wait the whole time */
                else if (left > 0)
                    left--;
                close(pf[i].fd);
                pf[i].fd = -1;
            }
        }
    }
    for (int i = 0; i < n; i++)
        if (pf[i].fd >= 0)
            close(pf[i].fd);
    p->settled = (double)(ut_mono_ns() - t0) / 1e9;
    /* a settling shorter than the gate's window is watched on to a whole
     * window from its start: that second costs the next run's own */
    int64_t whole = watching ? (int64_t)gw.t[0] + (int64_t)llround(GATE_WINDOW_S * 1e9) : 0;
    while (watching && ut_mono_ns() < whole) {
        int64_t wake = gate_watch_due(&gw) < whole ? gate_watch_due(&gw) : whole, now = ut_mono_ns();
        if (wake > now) {
            struct timespec sl = {(time_t)((wake - now) / 1000000000), (long)((wake - now) % 1000000000)};
            nanosleep(&sl, NULL);
        }
        if (ut_mono_ns() < whole)
            watching = gate_watch_sample(&gw) == 0;
    }
    double idle, steal;
    long long end;
    char err[UT_ERRLEN];
    if (watching && gate_watch_sample(&gw) == 0 && gate_watch_window(&gw, &idle, &steal, &end) &&
        idle >= GATE_IDLE_MIN && gate_note_write(c->gate_note, end, idle, steal, err, sizeof err) != 0)
        ut_err("%s (the next run waits a gate window of its own)", err);
}

/* Start, measure, settle, stop: EXIT_OK, EXIT_NOT_QUIET (the idle gate did
 * not pass), EXIT_LAB_DIED (a lab process died before the stop) or EXIT_FAIL. */
static int measure_run(const run_cfg *c, run_procs *p, char *err, size_t errlen)
{
    int port = start_servers(c, p, err, errlen);
    if (port < 0 || run_tester(c, port, p, err, errlen) != 0)
        return EXIT_FAIL;
    if (c->settle > 0)
        settle(c, p);
    char died[512];
    int dead = who_died(p, died, sizeof died);
    int sv_code = proc_stop(&p->sv, SIGTERM, 60), st_code = proc_stop(&p->st, SIGTERM, 60);
    int st2_code = p->st2.pid > 0 ? proc_stop(&p->st2, SIGTERM, 60) : 0;
    if (dead) {
        ut_seterr(err, errlen, "%s: %s; nothing kept", c->name, died);
        return EXIT_LAB_DIED;
    }
    if (p->tcode == EXIT_NOT_QUIET) {
        ut_err("%s: the machine was not idle enough (the tester's idle gate); nothing kept", c->name);
        return EXIT_NOT_QUIET;
    }
    if (p->tcode != 0 || sv_code != 0 || st_code != 0 || st2_code != 0) {
        ut_seterr(err, errlen, "%s: tester exit %d, service exit %d, store exit %d%s", c->name, p->tcode, sv_code,
                  st_code, st2_code ? ", second store exit nonzero" : "");
        return EXIT_FAIL;
    }
    ut_utc_iso(p->t_end);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    ut_set_prog("run");
    run_cfg C = {0}, *c = &C;
    int rc = parse_options(argc, argv, c);
    if (rc >= 0)
        return rc;
    rc = setup(c);
    if (rc != EXIT_OK) {
        arms_free(&c->arms);
        return rc;
    }
    char err[UT_ERRLEN] = "";
    rm_rf(c->dir);
    if (ut_mkdir_p(c->dir, err, sizeof err) != 0) {
        ut_err("%s", err);
        arms_free(&c->arms);
        return EXIT_FAIL;
    }
    run_procs P = {.st = {0, -1}, .sv = {0, -1}, .ts = {0, -1}, .st2 = {0, -1}};
    rc = measure_run(c, &P, err, sizeof err);
    if (rc == EXIT_OK && write_run_json(c, &P, err, sizeof err) != 0)
        rc = EXIT_FAIL;
    if (rc == EXIT_OK) {
        rm_rf(c->fin);
        if (rename(c->dir, c->fin) != 0) {
            ut_seterr(err, sizeof err, "%s: cannot rename into place: %s", c->fin, strerror(errno));
            rc = EXIT_FAIL;
        }
    }
    if (rc == EXIT_OK) {
        printf("run: %s done in %.1f s: %s\n", c->name, P.wall, c->fin);
    } else {
        if (err[0])
            ut_err("%s", err);
        proc_stop(&P.ts, SIGKILL, 5);
        proc_stop(&P.sv, SIGKILL, 5);
        proc_stop(&P.st, SIGKILL, 5);
        proc_stop(&P.st2, SIGKILL, 5);
        rm_rf(c->dir);
    }
    arms_free(&c->arms);
    return rc;
}
