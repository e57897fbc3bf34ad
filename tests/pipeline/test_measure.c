/* `measure`: the schedule, resuming, fingerprints, the preregistration
 * check and --host over ssh, on the tiny profile (9 arms x 2 rounds of 1 s,
 * the store's run-on cut to 0.2 s) with the idle gate off.
 *
 * Each test works in fresh temporary folders with its own prereg.json,
 * made here by hashing data/guesses.tsv and data/design.md.  The expected
 * schedule is computed here from its written definition (Fisher-Yates, ut_rng
 * seeded 7919*r, arms in lab/arms.tsv's order), not taken from measure. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exits.h"
#include "util.h"
#include "tnet.h"
#include "tsh.h"

#define NTINY 9
#define NRUNS (2 * NTINY)
static const char *TINY[NTINY] = {"F3-none", "H3-fb25",       "H3-dl",        "H3-dldown", "H3-r2",
                                  "H3-r2-down", "H3-brkr2-down", "H3-bulk-hang", "Z-capacity"};
/* The one tiny arm with a second store: its runs hold store2.tsv.gz too. */
#define TWO_STORES "H3-bulk-hang"
#define NRAWFILES (NRUNS * (NEV + 1) + 2) /* run.json and the event files of every run */
static const char *EV[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz", "events.tsv.gz", "machine.tsv.gz"};
#define NEV 5
#define MEASURE "build/bin/measure --profile tiny --gate 0 --settle-s 0.2 --quiet tests/quiet_off.tsv"

static char out[64], aux[64]; /* OUT of measure; a folder for logs, keys and fake programs */

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void setup(void)
{
    snprintf(out, sizeof out, "/tmp/measureXXXXXX");
    snprintf(aux, sizeof aux, "/tmp/measureauxXXXXXX");
    cr_assert_not_null(mkdtemp(out));
    cr_assert_not_null(mkdtemp(aux));
    tsh_write_prereg(out);
}

static void teardown(void)
{
    shf("rm -rf %s %s", out, aux);
}

/* The timeout only guards against a hang: a noisy machine may take several
 * times the usual minute for a test. */
TestSuite(measure, .init = setup, .fini = teardown, .timeout = 900);

/* The schedule as its definition says: header lines, then k round position arm seconds. */
static void expected_schedule(char *buf, size_t n)
{
    const char *order[NTINY];
    int na = 0;
    FILE *f = fopen("lab/arms.tsv", "r");
    cr_assert_not_null(f);
    char line[1024];
    int first = 1;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        if (first) { /* the header */
            first = 0;
            continue;
        }
        line[strcspn(line, "\t\n")] = 0;
        for (int i = 0; i < NTINY; i++)
            if (!strcmp(line, TINY[i]))
                order[na++] = TINY[i];
    }
    fclose(f);
    cr_assert_eq(na, NTINY);
    size_t len = (size_t)snprintf(buf, n, "k\tround\tposition\tarm\tseconds\n");
    int k = 1;
    for (int r = 1; r <= 2; r++) {
        const char *o[NTINY];
        memcpy(o, order, sizeof o);
        ut_rng g;
        ut_rng_seed(&g, 7919ULL * (uint64_t)r);
        for (int i = NTINY - 1; i > 0; i--) {
            int j = (int)(ut_rng_u64(&g) % (uint64_t)(i + 1));
            const char *t = o[i];
            o[i] = o[j];
            o[j] = t;
        }
        int same = 1;
        for (int i = 0; i < NTINY; i++) {
            same &= o[i] == order[i];
            len += (size_t)snprintf(buf + len, n - len, "%d\t%d\t%d\t%s\t1\n", k++, r, i + 1, o[i]);
        }
        cr_assert(!same, "round %d: the shuffle left lab/arms.tsv's order", r);
    }
}

/* A run folder: exactly six files (seven with a second store), each event
 * file matching run.json's sha256 and size, and run.json's stores. */
static void check_run_dir(const char *root, const char *name)
{
    char path[512], err[UT_ERRLEN], sha[65];
    snprintf(path, sizeof path, "%s/results/raw/%s", root, name);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s missing", path);
    int nf = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        nf += e->d_name[0] != '.';
    closedir(d);
    int two = !strncmp(name, TWO_STORES "-r", strlen(TWO_STORES) + 2);
    cr_assert_eq(nf, NEV + 1 + two, "%s holds %d files", path, nf);
    snprintf(path, sizeof path, "%s/results/raw/%s/run.json", root, name);
    json_t *r = json_load_file(path, 0, NULL);
    cr_assert_not_null(r, "%s", path);
    cr_assert_float_eq(json_number_value(json_object_get(r, "seconds")), 1.0, 1e-12);
    cr_assert_eq(json_integer_value(json_object_get(r, "stores")), 1 + two, "%s", name);
    cr_assert_eq(json_object_size(json_object_get(r, "files")), (size_t)(NEV + two), "%s", name);
    for (int i = 0; i < NEV + two; i++) {
        const char *ev = i < NEV ? EV[i] : "store2.tsv.gz";
        json_t *f = json_object_get(json_object_get(r, "files"), ev);
        uint64_t size;
        snprintf(path, sizeof path, "%s/results/raw/%s/%s", root, name, ev);
        cr_assert_eq(ut_sha256_file(path, sha, &size, err, sizeof err), 0, "%s", err);
        cr_assert_str_eq(sha, json_string_value(json_object_get(f, "sha256")), "%s", path);
        cr_assert_eq((json_int_t)size, json_integer_value(json_object_get(f, "size")), "%s", path);
    }
    json_decref(r);
}

static void all_runs(const char *root)
{
    char name[64];
    for (int i = 0; i < NTINY; i++)
        for (int r = 1; r <= 2; r++) {
            snprintf(name, sizeof name, "%s-r%d", TINY[i], r);
            check_run_dir(root, name);
        }
}

/* The manifest: every file under results/raw and results/reference, relative paths, right sha256. */
static void check_manifest(const char *root)
{
    char path[512], err[UT_ERRLEN];
    snprintf(path, sizeof path, "%s/provenance/manifest-measure.tsv", root);
    char *m = slurp(path);
    cr_assert(!strncmp(m, "path\tsize\tsha256\n", 17), "%s: header", path);
    int lines = 0, raw = 0, ref = 0;
    for (char *p = m + 17; *p;) {
        char *nl = strchr(p, '\n');
        cr_assert_not_null(nl);
        *nl = 0;
        char rel[256], sha[65], got[65];
        unsigned long long size;
        cr_assert_eq(sscanf(p, "%255s\t%llu\t%64s", rel, &size, sha), 3, "%s", p);
        cr_assert(rel[0] != '/', "absolute path in the manifest: %s", rel);
        raw += !strncmp(rel, "results/raw/", 12);
        ref += !strncmp(rel, "results/reference/", 18);
        snprintf(path, sizeof path, "%s/%s", root, rel);
        uint64_t sz;
        cr_assert_eq(ut_sha256_file(path, got, &sz, err, sizeof err), 0, "%s", err);
        cr_assert_str_eq(got, sha, "%s", rel);
        cr_assert_eq(sz, size, "%s", rel);
        lines++;
        p = nl + 1;
    }
    free(m);
    cr_assert_eq(raw, NRAWFILES, "raw files in the manifest: %d", raw);
    cr_assert_eq(ref, 2);
    cr_assert_eq(lines, NRAWFILES + 2);
    /* and results/reference holds copies of the prepared files */
    const char *refs[] = {"scores.tsv", "summary.json"};
    for (int i = 0; i < 2; i++) {
        char a[65], b[65];
        uint64_t sa, sb;
        snprintf(path, sizeof path, "%s/results/reference/%s", root, refs[i]);
        cr_assert_eq(ut_sha256_file(path, a, &sa, err, sizeof err), 0, "%s", err);
        snprintf(path, sizeof path, "build/prep/%s", refs[i]);
        cr_assert_eq(ut_sha256_file(path, b, &sb, err, sizeof err), 0, "%s", err);
        cr_assert_str_eq(a, b, "%s", refs[i]);
    }
}

static json_t *record(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/provenance/runs/%s.json", out, name);
    json_t *r = json_load_file(path, 0, NULL);
    cr_assert_not_null(r, "%s", path);
    return r;
}

static void stat_of(const char *name, const char *file, struct stat *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/results/raw/%s/%s", out, name, file);
    cr_assert_eq(stat(path, st), 0, "%s", path);
}

/* A folder of programs: the real store, service, tester and play, and `run` as given. */
static void fake_bin(const char *dir, const char *run_script)
{
    char path[512], err[UT_ERRLEN], cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(ut_mkdir_p(dir, err, sizeof err), 0, "%s", err);
    const char *progs[] = {"store", "service", "tester", "play", "predict"};
    for (int i = 0; i < 5; i++) {
        char target[4200];
        snprintf(target, sizeof target, "%s/build/bin/%s", cwd, progs[i]);
        snprintf(path, sizeof path, "%s/%s", dir, progs[i]);
        cr_assert_eq(symlink(target, path), 0, "%s", path);
    }
    snprintf(path, sizeof path, "%s/run", dir);
    char text[8192];
    snprintf(text, sizeof text, "#!/bin/sh\nREAL='%s/build/bin/run'\n%s", cwd, run_script);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    cr_assert_eq(chmod(path, 0755), 0);
}

/* OUT/results/prediction.json: exactly the runs of the tiny schedule with
 * `rounds` rounds that play can simulate (not the closed-loop Z-capacity),
 * each with its seconds (1, the tiny design's: data/profiles.tsv) and the
 * five figures; registered in prereg.json with its sha256
 * and size (equal to `same` when given) strictly before the first run's
 * start_utc (both whole UTC seconds).  Its sha256 into sha. */
static void check_prediction(const char *same, int rounds, char sha[65])
{
    char path[512], err[UT_ERRLEN];
    uint64_t size;
    snprintf(path, sizeof path, "%s/results/prediction.json", out);
    cr_assert_eq(ut_sha256_file(path, sha, &size, err, sizeof err), 0, "%s", err);
    if (same)
        cr_assert_str_eq(sha, same);
    json_t *p = json_load_file(path, 0, NULL), *runs = json_object_get(p, "runs");
    cr_assert_str_eq(json_string_value(json_object_get(p, "format")), "lab-prediction 2");
    cr_assert_str_eq(json_string_value(json_object_get(p, "profile")), "tiny");
    cr_assert_eq(json_array_size(json_object_get(p, "rounds")), (size_t)rounds);
    cr_assert_eq(json_object_size(runs), (size_t)((NTINY - 1) * rounds));
    for (int i = 0; i < NTINY; i++)
        for (int r = 1; r <= 2; r++) {
            char name[64];
            snprintf(name, sizeof name, "%s-r%d", TINY[i], r);
            json_t *e = json_object_get(runs, name);
            int want = strcmp(TINY[i], "Z-capacity") != 0 && r <= rounds;
            cr_assert_eq(e != NULL, want, "%s", name);
            /* six figures and the twin (data/noise.tsv is there: each run's replicas) */
            json_t *tw = e ? json_object_get(e, "twin") : NULL;
            cr_assert(!e || (json_object_size(e) == 7 && json_is_object(tw) &&
                             json_integer_value(json_object_get(tw, "replicas")) == 100 &&
                             json_is_boolean(json_object_get(e, "flooded")) &&
                             json_is_number(json_object_get(e, "standin_share")) &&
                             json_integer_value(json_object_get(e, "seconds")) == 1),
                      "%s", name);
        }
    cr_assert_eq(json_array_size(json_object_get(p, "odds")), 0); /* no 450/s arm, no H3-none */
    cr_assert_gt(json_array_size(json_object_get(p, "sizing")), 0);
    json_decref(p);
    snprintf(path, sizeof path, "%s/provenance/prereg.json", out);
    json_t *reg = json_load_file(path, 0, NULL), *e = json_object_get(reg, "prediction");
    cr_assert_not_null(e, "%s registers no prediction", path);
    cr_assert_str_eq(json_string_value(json_object_get(e, "path")), "results/prediction.json");
    cr_assert_str_eq(json_string_value(json_object_get(e, "sha256")), sha);
    cr_assert_eq(json_integer_value(json_object_get(e, "size")), (json_int_t)size);
    const char *at = json_string_value(json_object_get(e, "registered_utc"));
    cr_assert(at && strlen(at) == 20, "%s", at ? at : "(none)");
    cr_assert_eq(json_array_size(json_object_get(reg, "files")), 7); /* prepare's registration kept */
    /* before every run: the first run's record starts in a later second */
    int seen = 0;
    for (int i = 0; i < NTINY; i++)
        for (int r = 1; r <= rounds; r++) {
            char name[64];
            snprintf(name, sizeof name, "%s-r%d", TINY[i], r);
            json_t *rec = record(name);
            const char *start = json_string_value(json_object_get(rec, "start_utc"));
            cr_assert(start && strcmp(at, start) < 0, "%s started %s, the prediction registered %s", name, start, at);
            seen++;
            json_decref(rec);
        }
    cr_assert_eq(seen, NTINY * rounds);
    json_decref(reg);
}

Test(measure, tiny_runs_schedule_manifest_and_records)
{
    /* `run` leaves a marker in the kernel log (when it can) before the real run,
     * so the record's log lines can be checked. */
    char bin[128], log[128], script[512];
    snprintf(bin, sizeof bin, "%s/bin", aux);
    snprintf(script, sizeof script,
             "if [ -w /dev/kmsg ]; then echo \"lab-measure-test %s $2-r$4\" > /dev/kmsg; fi\nexec \"$REAL\" \"$@\"\n",
             out);
    fake_bin(bin, script);
    snprintf(log, sizeof log, "%s/log1", aux);
    int rc = shf(MEASURE " --root %s --bin %s > %s 2>&1", out, bin, log);
    char *text = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "%s", text);
    cr_assert_eq(count(text, "measure: run "), NRUNS, "%s", text);
    cr_assert(strstr(text, "run 18 of 18"), "%s", text);
    free(text);
    all_runs(out);
    check_manifest(out);

    /* the schedule: both rounds, shuffled as defined */
    char path[256], want[2048];
    snprintf(path, sizeof path, "%s/results/schedule.tsv", out);
    char *sched = slurp(path);
    const char *line1 = "# lab-schedule 2: profile tiny, 2 rounds; open 8 arms x 2 rounds x 1 s, capacity 1 arm x 2 "
                        "rounds x 1 s (data/profiles.tsv); ";
    cr_assert(!strncmp(sched, line1, strlen(line1)), "%s", sched);
    expected_schedule(want, sizeof want);
    cr_assert_str_eq(strchr(sched, '\n') + 1, want);
    /* the registered design exactly: no departure, no deviations.tsv */
    snprintf(path, sizeof path, "%s/results/deviations.tsv", out);
    cr_assert_neq(access(path, F_OK), 0, "%s written though measure ran the design as registered", path);

    /* each run's record */
    int writable = access("/dev/kmsg", W_OK) == 0;
    for (int i = 0; i < NTINY; i++)
        for (int r = 1; r <= 2; r++) {
            char name[64], mark[256];
            snprintf(name, sizeof name, "%s-r%d", TINY[i], r);
            json_t *rec = record(name);
            cr_assert_eq(json_integer_value(json_object_get(rec, "exit_code")), EXIT_OK);
            cr_assert(json_is_true(json_object_get(rec, "gate_passed")));
            cr_assert(json_is_object(json_object_get(rec, "host")));
            cr_assert(json_is_object(json_object_get(rec, "idle")));
            cr_assert(json_is_number(json_object_get(json_object_get(json_object_get(rec, "cpu"), "service"), "share")));
            cr_assert(json_is_integer(json_object_get(json_object_get(rec, "peak_rss_kb"), "store")));
            json_t *sl = json_object_get(rec, "syslog");
            const char *src = json_string_value(json_object_get(sl, "source"));
            cr_assert(src && (!strcmp(src, "journalctl") || !strcmp(src, "/var/log/syslog") ||
                              !strcmp(src, "dmesg") || !strcmp(src, "none")),
                      "%s", src ? src : "(none)");
            cr_assert(json_is_array(json_object_get(sl, "lines")));
            if (writable && !strcmp(src, "dmesg")) {
                /* its own marker, and no other run's */
                char *lines = json_dumps(json_object_get(sl, "lines"), 0);
                snprintf(mark, sizeof mark, "lab-measure-test %s %s\"", out, name);
                cr_assert(strstr(lines, mark), "%s: %s", name, lines);
                snprintf(mark, sizeof mark, "lab-measure-test %s ", out);
                cr_assert_eq(count(lines, mark), 1, "%s: %s", name, lines);
                free(lines);
            }
            json_decref(rec);
        }
    snprintf(path, sizeof path, "%s/provenance/stage-measure.json", out);
    json_t *st = json_load_file(path, 0, NULL);
    cr_assert_not_null(st);
    cr_assert_eq(json_integer_value(json_object_get(st, "exit_code")), EXIT_OK);
    /* the raw files, the references, schedule.tsv, prediction.json, the records, the manifest */
    cr_assert_eq(json_array_size(json_object_get(st, "outputs")), (size_t)(NRAWFILES + 2 + 1 + 1 + NRUNS + 1));
    json_decref(st);
    char sha[65];
    check_prediction(NULL, 2, sha);

    /* a second call: the same schedule, every run kept untouched */
    struct stat before[NTINY][2], after;
    for (int i = 0; i < NTINY; i++)
        for (int r = 0; r < 2; r++) {
            char name[64];
            snprintf(name, sizeof name, "%s-r%d", TINY[i], r + 1);
            stat_of(name, "tester.tsv.gz", &before[i][r]);
        }
    snprintf(log, sizeof log, "%s/log2", aux);
    rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "%s", text);
    cr_assert_eq(count(text, "complete already: skip"), NRUNS, "%s", text);
    cr_assert_eq(count(text, "elapsed"), 0, "%s", text);
    cr_assert(strstr(text, "prediction.json registered") && strstr(text, ": kept"), "%s", text);
    cr_assert(!strstr(text, "prediction made"), "%s", text);
    free(text);
    check_prediction(sha, 2, sha); /* the same file, the same registration */
    snprintf(path, sizeof path, "%s/results/schedule.tsv", out);
    char *again = slurp(path);
    cr_assert_str_eq(again, sched);
    free(again);
    free(sched);
    for (int i = 0; i < NTINY; i++)
        for (int r = 0; r < 2; r++) {
            char name[64];
            snprintf(name, sizeof name, "%s-r%d", TINY[i], r + 1);
            stat_of(name, "tester.tsv.gz", &after);
            cr_assert_eq(after.st_ino, before[i][r].st_ino, "%s", name);
            cr_assert_eq(after.st_mtim.tv_nsec, before[i][r].st_mtim.tv_nsec, "%s", name);
            cr_assert_eq(after.st_mtim.tv_sec, before[i][r].st_mtim.tv_sec, "%s", name);
        }
    check_manifest(out);

    /* another profile into the same OUT: refused, naming the schedule */
    snprintf(log, sizeof log, "%s/log3", aux);
    rc = shf("build/bin/measure --profile quick --gate 0 --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "schedule.tsv") && strstr(text, "profile tiny"), "%s", text);
    free(text);
}

/* Any process still running with OUT in its command line (a run measure left behind)? */
static int leftovers(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0)
            continue;
        for (ssize_t i = 0; i < len; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[len] = 0;
        n += strstr(buf, out) != NULL;
    }
    closedir(d);
    return n;
}

/* Bad option values: exit 2, the option and the value named, nothing under
 * OUT/results.  "--gate yes" used to switch the idle gate off silently. */
Test(measure, bad_option_values_refused_naming_option_and_value)
{
    const struct {
        const char *args, *want;
    } bad[] = {
        {"--gate yes", "option --gate: \"yes\" is not 0 or 1"},
        {"--gate 2", "option --gate: \"2\" is not 0 or 1"},
        {"--settle-s 0.2s", "option --settle-s: \"0.2s\""},
        {"--cores 0-x", "option --cores: \"0-x\""},
        {"--profile huge", "data/profiles.tsv: no line of profile huge"},
        {"--deviation because", "--deviation gives the reason of --rounds or --closed-s: neither is given"},
        {"--gates 1", "unknown option --gates"},
    };
    char log[128], path[256];
    snprintf(log, sizeof log, "%s/log", aux);
    snprintf(path, sizeof path, "%s/results", out);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = shf("build/bin/measure --profile tiny --root %s %s > %s 2>&1", out, bad[i].args, log);
        char *text = slurp(log);
        cr_assert_eq(rc, EXIT_USAGE, "%s: exit %d: %s", bad[i].args, rc, text);
        cr_assert(strstr(text, bad[i].want), "%s: %s", bad[i].args, text);
        free(text);
        cr_assert_neq(access(path, F_OK), 0, "%s: measure made %s", bad[i].args, path);
    }
}

/* pid has not ended (it is not reaped here). */
static int still_running(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

static int complete_runs(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/results/raw", out);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

Test(measure, killed_after_second_run_then_only_the_rest)
{
    char log[128];
    snprintf(log, sizeof log, "%s/log1", aux);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        /* the rules of tests/quiet_off.tsv, as MEASURE's: on this shared machine a
         * run judged disturbed would be measured again by the rerun below */
        execl("build/bin/measure", "measure", "--profile", "tiny", "--gate", "0", "--settle-s", "0.2", "--quiet",
              "tests/quiet_off.tsv", "--root", out, (char *)NULL);
        _exit(127);
    }
    /* the handshake: the second run folder appears under its final name only
     * when complete (or measure ended early: then the checks below say why) */
    while (complete_runs() < 2 && still_running(pid))
        sleep_s(0.02);
    kill(pid, SIGTERM);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    int kept = complete_runs(); /* measure is gone, and the run it had started */
    char *text = slurp(log);
    /* the poll sees each folder within 20 ms; a run lasts over a second */
    cr_assert(kept >= 2 && kept < NRUNS, "%d runs complete at the kill: %s", kept, text);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM, "status %d: %s", st, text);
    cr_assert(strstr(text, "stopped by signal 15"), "%s", text);
    free(text);
    /* the run's group was sent SIGKILL: wait for its processes to be gone */
    for (int i = 0; i < 600 && leftovers(); i++)
        sleep_s(0.1);
    cr_assert_eq(leftovers(), 0, "processes of the stopped run are still there after 60 s");

    /* what is kept: the complete runs, nothing else; no manifest yet */
    char path[256];
    snprintf(path, sizeof path, "%s/provenance/manifest-measure.tsv", out);
    cr_assert_neq(access(path, F_OK), 0, "a manifest after an interrupted measure");
    snprintf(path, sizeof path, "%s/provenance/stage-measure.json", out);
    json_t *sj = json_load_file(path, 0, NULL);
    cr_assert_not_null(sj);
    cr_assert_eq(json_integer_value(json_object_get(sj, "exit_code")), 128 + SIGTERM);
    json_decref(sj);
    snprintf(path, sizeof path, "%s/results/raw", out);
    DIR *d = opendir(path);
    char names[NRUNS][64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        cr_assert(e->d_name[0] != '.', "left behind: %s", e->d_name);
        cr_assert(n < kept, "more runs than were complete at the kill: %s", e->d_name);
        snprintf(names[n++], sizeof names[0], "%.63s", e->d_name);
    }
    closedir(d);
    cr_assert_eq(n, kept);
    struct stat before[NRUNS][3];
    char sha[NRUNS][3][65], err[UT_ERRLEN];
    for (int i = 0; i < kept; i++) {
        check_run_dir(out, names[i]);
        for (int f = 0; f < 3; f++) {
            stat_of(names[i], EV[f], &before[i][f]);
            char p[1024];
            uint64_t sz;
            snprintf(p, sizeof p, "%s/results/raw/%.63s/%s", out, names[i], EV[f]);
            cr_assert_eq(ut_sha256_file(p, sha[i][f], &sz, err, sizeof err), 0, "%s", err);
        }
    }

    /* the rerun keeps those and measures only the rest */
    snprintf(log, sizeof log, "%s/log2", aux);
    int rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "%s", text);
    cr_assert_eq(count(text, "complete already: skip"), kept, "%s", text);
    cr_assert_eq(count(text, "elapsed"), NRUNS - kept, "%s", text);
    for (int i = 0; i < kept; i++) {
        char line[128];
        snprintf(line, sizeof line, "%.*s round %s  complete already: skip", (int)(strrchr(names[i], '-') - names[i]),
                 names[i], strrchr(names[i], '-') + 2);
        cr_assert(strstr(text, line), "%s not skipped: %s", names[i], text);
    }
    free(text);
    for (int i = 0; i < kept; i++)
        for (int f = 0; f < 3; f++) {
            struct stat now;
            stat_of(names[i], EV[f], &now);
            cr_assert_eq(now.st_ino, before[i][f].st_ino);
            cr_assert_eq(now.st_mtim.tv_sec, before[i][f].st_mtim.tv_sec);
            cr_assert_eq(now.st_mtim.tv_nsec, before[i][f].st_mtim.tv_nsec);
            char p[1024], s2[65];
            uint64_t sz;
            snprintf(p, sizeof p, "%s/results/raw/%.63s/%s", out, names[i], EV[f]);
            cr_assert_eq(ut_sha256_file(p, s2, &sz, err, sizeof err), 0, "%s", err);
            cr_assert_str_eq(s2, sha[i][f]);
        }
    all_runs(out);
    check_manifest(out);
}

Test(measure, tampered_run_named_gate_recorded_then_measured_again)
{
    char log[128];
    snprintf(log, sizeof log, "%s/log1", aux);
    int rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    char *text = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "%s", text);
    free(text);
    struct stat other_before, other_after;
    stat_of("F3-none-r1", "tester.tsv.gz", &other_before);

    /* one byte of H3-dl-r2's tester.tsv.gz changes */
    char path[512];
    snprintf(path, sizeof path, "%s/results/raw/H3-dl-r2/tester.tsv.gz", out);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, 100, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, 100, SEEK_SET);
    fputc(ch ^ 0x20, f);
    fclose(f);
    /* and the second store's file of H3-bulk-hang-r1 goes */
    snprintf(path, sizeof path, "%s/results/raw/" TWO_STORES "-r1/store2.tsv.gz", out);
    cr_assert_eq(unlink(path), 0, "%s", path);

    /* a rerun names it, removes it and measures it again; here the machine
     * is never idle (a `run` that exits 3 like the idle gate) */
    char bin[128];
    snprintf(bin, sizeof bin, "%s/bin", aux);
    fake_bin(bin, "echo \"tester: idle gate: only 41.0% idle (steal 0.0%) in the last 2 s after 60.0 s\" >&2\nexit 3\n");
    snprintf(log, sizeof log, "%s/log2", aux);
    rc = shf(MEASURE " --root %s --bin %s > %s 2>&1", out, bin, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_NOT_QUIET, "%s", text);
    cr_assert(strstr(text, "results/raw/H3-dl-r2: tester.tsv.gz differs"), "%s", text);
    cr_assert(strstr(text, "results/raw/" TWO_STORES "-r1: no store2.tsv.gz: not a complete run"), "%s", text);
    cr_assert(strstr(text, "2 runs could not pass the idle gate; rerun make measure to measure them"), "%s", text);
    cr_assert_eq(count(text, "complete already: skip"), NRUNS - 2, "%s", text);
    free(text);
    snprintf(path, sizeof path, "%s/results/raw/H3-dl-r2", out);
    cr_assert_neq(access(path, F_OK), 0, "the tampered folder is still there");
    snprintf(path, sizeof path, "%s/provenance/manifest-measure.tsv", out);
    cr_assert_neq(access(path, F_OK), 0, "a manifest with a run missing");
    json_t *rec = record("H3-dl-r2");
    cr_assert(json_is_false(json_object_get(rec, "gate_passed")));
    cr_assert_eq(json_integer_value(json_object_get(rec, "exit_code")), EXIT_NOT_QUIET);
    char *lines = json_dumps(json_object_get(rec, "run_output"), 0);
    cr_assert(strstr(lines, "41.0% idle"), "%s", lines);
    free(lines);
    json_decref(rec);

    /* the next rerun measures only those two */
    snprintf(log, sizeof log, "%s/log3", aux);
    rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "%s", text);
    cr_assert_eq(count(text, "complete already: skip"), NRUNS - 2, "%s", text);
    cr_assert_eq(count(text, "elapsed"), 2, "%s", text);
    cr_assert(strstr(text, "H3-dl round 2  elapsed"), "%s", text);
    cr_assert(strstr(text, TWO_STORES " round 1  elapsed"), "%s", text);
    free(text);
    rec = record("H3-dl-r2");
    cr_assert(json_is_true(json_object_get(rec, "gate_passed")));
    json_decref(rec);
    stat_of("F3-none-r1", "tester.tsv.gz", &other_after);
    cr_assert_eq(other_after.st_mtim.tv_nsec, other_before.st_mtim.tv_nsec);
    cr_assert_eq(other_after.st_ino, other_before.st_ino);
    all_runs(out);
    check_manifest(out);
}



Test(measure, host_over_ssh_brings_runs_home_then_removes_far_folder)
{
    if (access("/usr/sbin/sshd", X_OK) != 0 || shf("command -v ssh-keygen ssh >/dev/null") != 0) {
        printf("measure/host_over_ssh: skipped: no /usr/sbin/sshd or ssh (apt-get install openssh-server)\n");
        cr_skip_test("sshd not installed: apt-get install openssh-server");
    }
    if (getuid() != 0) {
        printf("measure/host_over_ssh: skipped: needs root (an sshd on 127.0.0.1 logging in as root)\n");
        cr_skip_test("needs root");
    }
    int port = 0;
    char why[2048];
    cr_assert_eq(shf("ssh-keygen -q -t ed25519 -N '' -f %s/hostkey && ssh-keygen -q -t ed25519 -N '' -f %s/userkey "
                     "&& cp %s/userkey.pub %s/authorized_keys && mkdir -p /run/sshd",
                     aux, aux, aux, aux),
                 0);
    pid_t sshd = tnet_start_sshd(aux, "", &port, why, sizeof why);
    cr_assert(sshd > 0, "sshd did not start on 127.0.0.1 (three ports tried): %s", why);

    char opts[512], log[128];
    snprintf(opts, sizeof opts,
             "-p %d -i %s/userkey -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "
             "-o ConnectTimeout=10",
             port, aux);
    setenv("LAB_SSH_OPTS", opts, 1);
    snprintf(log, sizeof log, "%s/log", aux);
    /* timeout: a guard against a hung ssh, far above the minute this takes */
    int rc = shf("timeout 800 " MEASURE " --root %s --host root@127.0.0.1 > %s 2>&1", out, log);
    unsetenv("LAB_SSH_OPTS");
    kill(sshd, SIGTERM);
    waitpid(sshd, NULL, 0);
    char *t = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "%s", t);
    /* the far side's progress came through */
    cr_assert_eq(count(t, "elapsed"), NRUNS, "%s", t);
    cr_assert(strstr(t, "18 runs came home from root@127.0.0.1, each file matching its run.json"), "%s", t);
    char *far = strstr(t, "far folder root@127.0.0.1:");
    cr_assert_not_null(far, "%s", t);
    char dir[256];
    cr_assert_eq(sscanf(far + strlen("far folder root@127.0.0.1:"), "%255s", dir), 1);
    cr_assert(!strncmp(dir, "/tmp/lab-measure.", 17), "%s", dir);
    cr_assert(strstr(t, "removed"), "%s", t);
    cr_assert_neq(access(dir, F_OK), 0, "the far folder %s is still there", dir);
    free(t);

    all_runs(out);
    check_manifest(out);
    for (int i = 0; i < NTINY; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s-r1", TINY[i]);
        json_t *rec = record(name);
        cr_assert(json_is_true(json_object_get(rec, "gate_passed")));
        /* one host: its label m1, in the record and in run.json (RESULTS.md) */
        cr_assert_str_eq(json_string_value(json_object_get(rec, "machine")), "m1", "%s", name);
        json_decref(rec);
        char rj[256];
        snprintf(rj, sizeof rj, "%s/results/raw/%s-r1/run.json", out, TINY[i]);
        rec = json_load_file(rj, 0, NULL);
        cr_assert_str_eq(json_string_value(json_object_get(rec, "machine")), "m1", "%s", rj);
        json_decref(rec);
    }
    /* the host does not enter the provenance record */
    char path[256];
    snprintf(path, sizeof path, "%s/provenance/stage-measure.json", out);
    char *st = slurp(path);
    cr_assert_null(strstr(st, "127.0.0.1"), "the host is in %s", path);
    cr_assert_null(strstr(st, "userkey"), "the ssh options are in %s", path);
    free(st);
}

/* A run in which a lab process died (run exit 4) is recorded like a
 * disturbed attempt and measured again.  The failure is real: a `run`
 * wrapper (the least magic way: measure is not told anything) adds run's
 * test option --test-kill-store-after-s to the first call for H3-fb25-r1
 * only, so that run's store is SIGKILLed 0.3 s into the run. */
Test(measure, run_whose_store_died_is_recorded_then_measured_again)
{
    char bin[128], log[128], script[512];
    snprintf(bin, sizeof bin, "%s/bin", aux);
    snprintf(script, sizeof script,
             "if [ \"$2-r$4\" = H3-fb25-r1 ] && [ ! -e %s/killed ]; then\n"
             "  touch %s/killed; exec \"$REAL\" \"$@\" --test-kill-store-after-s 0.3\nfi\nexec \"$REAL\" \"$@\"\n",
             aux, aux);
    fake_bin(bin, script);
    snprintf(log, sizeof log, "%s/log", aux);
    int rc = shf(MEASURE " --root %s --bin %s > %s 2>&1", out, bin, log);
    char *text = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "%s", text);
    const char *why = "H3-fb25-r1: store killed by signal 9 during the run";
    char line[256];
    snprintf(line, sizeof line, "measure: H3-fb25-r1 failed (%s", why);
    cr_assert(strstr(text, line), "%s", text);
    cr_assert(strstr(text, "measuring it again, attempt 2 of 3"), "%s", text);
    cr_assert_eq(count(text, "elapsed"), NRUNS + 1, "%s", text);
    free(text);
    /* the failed attempt's record: exit 4 and the reason */
    json_t *a1 = record("H3-fb25-r1.attempt-1");
    cr_assert_eq(json_integer_value(json_object_get(a1, "exit_code")), EXIT_LAB_DIED);
    cr_assert_eq(json_integer_value(json_object_get(a1, "attempt")), 1);
    const char *reason = json_string_value(json_object_get(a1, "reason"));
    cr_assert(reason && !strncmp(reason, why, strlen(why)), "reason %s", reason ? reason : "(none)");
    json_decref(a1);
    /* the second attempt: complete, listing the first */
    json_t *rec = record("H3-fb25-r1");
    cr_assert_eq(json_integer_value(json_object_get(rec, "exit_code")), EXIT_OK);
    cr_assert_eq(json_integer_value(json_object_get(rec, "attempt")), 2);
    json_t *earlier = json_object_get(rec, "earlier_attempts");
    cr_assert_eq(json_array_size(earlier), 1);
    cr_assert_str_eq(json_string_value(json_array_get(earlier, 0)), "H3-fb25-r1.attempt-1.json");
    cr_assert(json_is_null(json_object_get(rec, "reason")) || !json_object_get(rec, "reason"));
    cr_assert_str_eq(json_string_value(json_object_get(rec, "machine")), "local"); /* measured here */
    json_decref(rec);
    a1 = record("H3-fb25-r1.attempt-1"); /* a failed attempt names its machine too */
    cr_assert_str_eq(json_string_value(json_object_get(a1, "machine")), "local");
    json_decref(a1);
    char path[256];
    snprintf(path, sizeof path, "%s/provenance/runs/H3-fb25-r1.attempt-2.json", out);
    cr_assert_neq(access(path, F_OK), 0, "a second earlier attempt");
    all_runs(out);
    check_manifest(out);
}

/* Failed in every attempt: measure stops with exit 1, naming the run and
 * the reason; every attempt's record is kept.  (--only keeps it to the one
 * run.) */
Test(measure, run_failing_every_attempt_stops_measure_naming_the_reason)
{
    char bin[128], log[128];
    snprintf(bin, sizeof bin, "%s/bin", aux);
    fake_bin(bin, "exec \"$REAL\" \"$@\" --test-kill-store-after-s 0.3\n");
    snprintf(log, sizeof log, "%s/log", aux);
    int rc = shf(MEASURE " --root %s --bin %s --only H3-fb25-r1 > %s 2>&1", out, bin, log);
    char *text = slurp(log);
    cr_assert_eq(rc, EXIT_FAIL, "%s", text);
    cr_assert(strstr(text, "measure: H3-fb25-r1 failed in all 3 attempts: H3-fb25-r1: store killed by signal 9 "
                           "during the run"),
              "%s", text);
    cr_assert(strstr(text, "H3-fb25-r1 failed (H3-fb25-r1: store killed by signal 9 during the run"), "%s", text);
    cr_assert_eq(count(text, "elapsed"), 3, "%s", text);
    free(text);
    for (int n = 1; n <= 3; n++) {
        char name[64];
        if (n < 3)
            snprintf(name, sizeof name, "H3-fb25-r1.attempt-%d", n);
        else
            snprintf(name, sizeof name, "H3-fb25-r1");
        json_t *r = record(name);
        cr_assert_eq(json_integer_value(json_object_get(r, "exit_code")), 4, "%s", name);
        cr_assert_eq(json_integer_value(json_object_get(r, "attempt")), n, "%s", name);
        json_decref(r);
    }
    cr_assert_eq(complete_runs(), 0, "a folder was kept");
}

/* --rounds 1 (make measure ROUNDS=1 DEVIATION=...): a schedule of one
 * round, predicted as such, and the departure written into
 * results/deviations.tsv with its reason before the first run; a rerun with
 * other departures (another reason, or none) over those runs is refused;
 * then a prediction.json changed, or gone, after its registration makes a
 * rerun refuse before any run. */
Test(measure, rounds_override_then_a_changed_prediction_refused)
{
    char log[128], path[256], sha[65];
#define ONE_ROUND " --rounds 1 --deviation 'one round: a test'"
    snprintf(log, sizeof log, "%s/log1", aux);
    int rc = shf(MEASURE ONE_ROUND " --root %s > %s 2>&1", out, log);
    char *text = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "%s", text);
    cr_assert(strstr(text, "prediction made in ") && strstr(text, " s and registered at "), "%s", text);
    cr_assert(strstr(text, "profile tiny: 9 runs in 1 rounds (open 8 arms x 1 rounds (registered 2) x 1 s, capacity 1 "
                           "arm x 1 rounds (registered 2) x 1 s; departures in results/deviations.tsv)"),
              "%s", text);
    cr_assert_eq(count(text, "measure: run "), NTINY, "%s", text);
    free(text);
    snprintf(path, sizeof path, "%s/results/schedule.tsv", out);
    char *sched = slurp(path);
    cr_assert(strstr(sched, "profile tiny, 1 rounds; "), "%s", sched);
    int lines = 0;
    for (char *l = strchr(strchr(sched, '\n') + 1, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        int k, round;
        cr_assert_eq(sscanf(l, "%d\t%d\t", &k, &round), 2, "%s", l);
        cr_assert_eq(round, 1, "%s", l);
        lines++;
    }
    cr_assert_eq(lines, NTINY, "%s", sched);
    free(sched);
    /* the departure, both groups 2 -> 1, with its reason; written before the first run */
    snprintf(path, sizeof path, "%s/results/deviations.tsv", out);
    char *dev = slurp(path);
    cr_assert_str_eq(dev, "# lab-deviations 1: what this study ran otherwise than data/profiles.tsv registers\n"
                          "group\tfield\tregistered\tran\treason\n"
                          "open\trounds\t2\t1\tone round: a test\n"
                          "capacity\trounds\t2\t1\tone round: a test\n");
    struct stat dst;
    cr_assert_eq(stat(path, &dst), 0);
    json_t *rec = record("F3-none-r1");
    const char *start = json_string_value(json_object_get(rec, "start_utc"));
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&dst.st_mtim.tv_sec));
    cr_assert(start && strcmp(when, start) <= 0, "deviations.tsv written %s, the first run started %s", when, start);
    json_decref(rec);
    check_prediction(NULL, 1, sha);
    /* the Makefile passes ROUNDS and DEVIATION on */
    char cmd[256], *mk = NULL;
    snprintf(cmd, sizeof cmd, "make -s -n measure ROUNDS=3 DEVIATION=\"it's short\" OUT=%s > %s/make.txt 2>&1", out,
             aux);
    cr_assert_eq(shf("%s", cmd), 0);
    snprintf(path, sizeof path, "%s/make.txt", aux);
    mk = slurp(path);
    cr_assert(strstr(mk, "build/bin/measure --profile full") && strstr(mk, " --rounds 3 ") &&
                  strstr(mk, " --deviation 'it'\\''s short' "),
              "%s", mk);
    free(mk);

    /* the same rounds for another reason, or the registered rounds: refused
     * over the runs measured, naming the file and both departures */
    snprintf(log, sizeof log, "%s/log3", aux);
    rc = shf(MEASURE " --rounds 1 --deviation 'another reason' --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "deviations.tsv: the 9 runs in ") &&
                  strstr(text, "(open rounds 2 -> 1, capacity rounds 2 -> 1) than this measure's (open rounds 2 -> 1, "
                               "capacity rounds 2 -> 1)"),
              "%s", text);
    cr_assert_eq(count(text, "measure: run "), 0, "%s", text);
    free(text);
    rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "(open rounds 2 -> 1, capacity rounds 2 -> 1) than this measure's (none)"), "%s", text);
    free(text);
    snprintf(path, sizeof path, "%s/results/deviations.tsv", out);
    char *kept = slurp(path);
    cr_assert_str_eq(kept, dev, "deviations.tsv untouched by the refused measures");
    free(kept);
    free(dev);

    /* one byte more: refused, naming the file, nothing measured */
    snprintf(path, sizeof path, "%s/results/prediction.json", out);
    cr_assert_eq(shf("printf ' ' >> %s", path), 0);
    snprintf(log, sizeof log, "%s/log2", aux);
    rc = shf(MEASURE ONE_ROUND " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "prediction.json no longer matches its registration"), "%s", text);
    cr_assert_eq(count(text, "measure: run "), 0, "%s", text);
    free(text);
    /* gone: refused too */
    cr_assert_eq(unlink(path), 0);
    rc = shf(MEASURE ONE_ROUND " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "prediction.json is gone or unreadable"), "%s", text);
    free(text);
}
