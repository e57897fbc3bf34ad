/* Faults around the database and the study's end (suite `faultdb`, its own
 * private PostgreSQL cluster, started for the suite by pipeline/common/pg.sh), each
 * provoked from outside and each test naming the outcome:
 *
 * - PostgreSQL's server killed mid-collect (SIGKILL to the postmaster and
 *   every backend, by pid, once a few runs are loaded): collect fails with
 *   one line naming the database, writes no results.json; once the server
 *   is back, a rerun gives results.json byte for byte as a collect that was
 *   never interrupted;
 * - the disk full while collect exports (the study on a tmpfs filled to the
 *   last block; as root, else skipped saying why): one error naming
 *   results.json, no results.json and no temporary file;
 * - measure interrupted (SIGINT to its process group, as a terminal's ^C
 *   reaches `make all` and everything under it) after two runs: the rerun
 *   keeps those byte for byte, measures the rest, and collect gives the same
 *   results.json as on a study holding the same runs that was never
 *   interrupted (its raw files copied into a fresh folder: no attempt
 *   record, no interrupted run's trace).
 *
 * The runs are real (build/bin/run and measure, the gate off, the quiet
 * rules off: tests/quiet_off.tsv), short, and copied where many are needed. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "tsh.h"

#define PGDIR "build/pgfaults"

static char url[512], root[64], aux[64];

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void pg_up(void)
{
    FILE *p = popen("bash pipeline/common/pg.sh start " PGDIR, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(url, sizeof url, p));
    url[strcspn(url, "\n")] = 0;
    cr_assert_eq(pclose(p), 0, "pipeline/common/pg.sh start");
}

static void fresh_db(void)
{
    cr_assert_eq(shf("psql -q '%s' -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null 2>&1", url), 0);
}

static void setup(void)
{
    pg_up();
    fresh_db();
    snprintf(root, sizeof root, "/tmp/faultdbXXXXXX");
    snprintf(aux, sizeof aux, "/tmp/faultdbauxXXXXXX");
    cr_assert_not_null(mkdtemp(root));
    cr_assert_not_null(mkdtemp(aux));
}

static void teardown(void)
{
    char mnt[128];
    snprintf(mnt, sizeof mnt, "%s/full", aux);
    umount2(mnt, MNT_DETACH);
    shf("rm -rf %s %s", root, aux);
    shf("bash pipeline/common/pg.sh stop " PGDIR);
}

TestSuite(faultdb, .init = setup, .fini = teardown, .timeout = 300);

/* build/bin/collect --root R: its exit code, its output in out. */
static int collect_at(const char *r, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "build/bin/collect --root %s --pgurl '%s' 2>&1", r, url);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t len = fread(out, 1, n - 1, p);
    out[len] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* One real run of H3-fb25 (`seconds` s) at R/results/raw, copied as folders
 * of rounds 2..copies (run.json keeps round 1: raw format 4 decodes with its
 * round's schedule), and the reference of its "=" scores (as measure copies
 * it) at R/results/reference. */
static void study_of_copies(const char *r, int seconds, int copies)
{
    char log[128];
    snprintf(log, sizeof log, "%s/runlog", aux);
    int rc = shf("build/bin/run --arm H3-fb25 --round 1 --seconds %d --gate 0 --settle-s 0.2 --quiet "
                 "tests/quiet_off.tsv --raw %s/results/raw > %s 2>&1",
                 seconds, r, log);
    cr_assert_eq(rc, 0, "the run: %s", slurp(log));
    cr_assert_eq(shf("mkdir -p %s/results/reference && cp build/prep/scores.tsv build/prep/summary.json "
                     "%s/results/reference/",
                     r, r),
                 0);
    for (int i = 2; i <= copies; i++)
        cr_assert_eq(shf("cp -r %s/results/raw/H3-fb25-r1 %s/results/raw/H3-fb25-r%d", r, r, i), 0);
}

/* The lines of text that are not empty. */
static int lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n' && (p == text || p[-1] != '\n');
    return n + (text[0] && text[strlen(text) - 1] != '\n');
}

/* The data folder of the suite's cluster (pg.sh: DIR/location, or DIR/data). */
static void pg_data(char *buf, size_t n)
{
    char *loc = NULL, err[UT_ERRLEN];
    size_t len;
    if (ut_read_file(PGDIR "/location", &loc, &len, err, sizeof err) == 0) {
        loc[strcspn(loc, "\n")] = 0;
        snprintf(buf, n, "%s", loc);
        free(loc);
    } else {
        char cwd[2048];
        cr_assert_not_null(getcwd(cwd, sizeof cwd));
        snprintf(buf, n, "%.2048s/" PGDIR "/data", cwd);
    }
}

/* PostgreSQL's server killed mid-collect, then back. */
Test(faultdb, pg_killed_mid_collect_one_line_then_rerun_byte_identical)
{
    study_of_copies(root, 3, 40);
    char out[65536], path[256], ref[256];
    int rc = collect_at(root, out, sizeof out);
    cr_assert_eq(rc, 0, "the uninterrupted collect: %s", out);
    snprintf(path, sizeof path, "%s/results/results.json", root);
    snprintf(ref, sizeof ref, "%s/results.uninterrupted.json", aux);
    cr_assert_eq(rename(path, ref), 0);

    /* an empty database again; collect in the background, the server killed
     * once 3 runs are committed */
    fresh_db();
    char log[128], cmd[1024];
    snprintf(log, sizeof log, "%s/collectlog", aux);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1); /* its progress ("loaded ...") */
        dup2(fd, 2);
        execl("build/bin/collect", "collect", "--root", root, "--pgurl", url, (char *)NULL);
        _exit(127);
    }
    long long loaded = 0;
    for (int i = 0; i < 3000 && loaded < 3; i++) {
        snprintf(cmd, sizeof cmd, "psql -tA '%s' -c 'SELECT count(*) FROM runs' 2>/dev/null", url);
        FILE *q = popen(cmd, "r");
        char n[64] = "";
        if (q && fgets(n, sizeof n, q))
            loaded = atoll(n);
        if (q)
            pclose(q);
        if (loaded < 3)
            sleep_s(0.01);
    }
    cr_assert_geq(loaded, 3, "collect never loaded 3 runs");
    char data[4200];
    pg_data(data, sizeof data);
    /* the postmaster and each of its children, by pid, at once */
    rc = shf("P=$(head -1 %s/postmaster.pid); kill -STOP $P; C=$(pgrep -P $P); kill -KILL $C $P; "
             "for p in $P $C; do i=0; while kill -0 $p 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; done; "
             "! kill -0 $P 2>/dev/null",
             data);
    cr_assert_eq(rc, 0, "killing the server");
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    pg_up(); /* back at once, whatever the checks below find */
    char *text = slurp(log);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "collect with its server killed: status %d, not exit 1: %s", st,
              text);
    /* one clear line on stderr: the run it was loading, and that the server went */
    cr_assert_eq(lines(text), 1, "collect's error is not one line: %s", text);
    cr_assert(strstr(text, "collect: ") == text, "the line does not start with collect: %s", text);
    cr_assert(strstr(text, "server") || strstr(text, "connection"), "the line does not say the server went: %s",
              text);
    free(text);
    cr_assert_neq(access(path, F_OK), 0, "a results.json after the server was killed");
    cr_assert_eq(shf("ls -A %s/results | grep -v '^raw$' | grep -v '^reference$' | grep -q .", root), 1, "a file other than raw/ left in results/");

    /* the server back: the rerun's results.json equals the uninterrupted one */
    rc = collect_at(root, out, sizeof out);
    cr_assert_eq(rc, 0, "the rerun after the server came back: %s", out);
    cr_assert_eq(shf("cmp %s %s", path, ref), 0, "the rerun's results.json differs from the uninterrupted one");
}

/* The disk full while collect exports results.json: the study (two runs,
 * and the 1.3 MB reference of their scores) on a 4 MB tmpfs, every free
 * block then taken by a filler file. */
Test(faultdb, disk_full_while_collect_exports_names_file_leaves_nothing)
{
    char mnt[128], why[256];
    if (!tsh_small_fs(aux, 4096, mnt, sizeof mnt, why, sizeof why)) {
        cr_skip_test("disk full: %s", why);
        return;
    }
    study_of_copies(root, 1, 2);
    cr_assert_eq(shf("cp -r %s/results %s/", root, mnt), 0);
    cr_assert_eq(shf("dd if=/dev/zero of=%s/filler bs=4k >/dev/null 2>&1; test $(df --output=avail %s | tail -1) -eq 0",
                     mnt, mnt),
                 0, "the tmpfs is not full");
    char out[65536];
    int rc = collect_at(mnt, out, sizeof out);
    cr_assert_eq(rc, 1, "collect on a full disk: exit %d, not 1: %s", rc, out);
    cr_assert(strstr(out, "No space left on device"), "collect does not say the disk is full: %s", out);
    cr_assert(strstr(out, "results.json"), "collect does not name results.json: %s", out);
    char path[256];
    snprintf(path, sizeof path, "%s/results/results.json", mnt);
    cr_assert_neq(access(path, F_OK), 0, "a results.json on the full disk");
    cr_assert_eq(shf("ls -A %s/results | grep -v '^raw$' | grep -v '^reference$' | grep -q .", mnt), 1,
                 "a temporary file left in results/ on the full disk");
}

/* Complete run folders in R/results/raw (a name not starting with '.'). */
static int complete_runs(const char *r)
{
    char path[256];
    snprintf(path, sizeof path, "%s/results/raw", r);
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

#define RUNS4 "F3-none-r1,H3-fb25-r1,F3-none-r2,H3-fb25-r2"
#define MEASURE4                                                                                                       \
    "build/bin/measure --profile tiny --gate 0 --settle-s 0.2 --quiet tests/quiet_off.tsv --only " RUNS4 " --root "

/* measure interrupted after two complete runs (SIGINT to its process group,
 * as ^C reaches make all): the rerun keeps them byte for byte and measures
 * the other two; collect then gives the same results.json as on a study
 * holding those four runs that was never interrupted. */
Test(faultdb, measure_interrupted_rerun_resumes_same_results_as_uninterrupted)
{
    tsh_write_prereg(root);
    char log[128];
    snprintf(log, sizeof log, "%s/log1", aux);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL); /* as at a terminal, whatever started the tests (a job in the background of a shell
                                    without job control ignores SIGINT, and bash cannot trap a signal ignored at entry) */
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl("/bin/sh", "sh", "-c", "exec " MEASURE4 "\"$0\"", root, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    int st;
    for (int i = 0; i < 6000 && complete_runs(root) < 2 && waitpid(pid, &st, WNOHANG) == 0; i++)
        sleep_s(0.02);
    cr_assert_eq(complete_runs(root), 2, "measure ended before its second run: %s", slurp(log));
    cr_assert_eq(kill(-pid, SIGINT), 0);
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    char *text = slurp(log);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT, "the interrupted measure: status %d, not exit 130: %s",
              st, text);
    cr_assert(strstr(text, "stopped by signal 2"), "measure does not say it was stopped: %s", text);
    free(text);
    int kept = complete_runs(root);
    cr_assert_eq(kept, 2, "%d runs kept after the interruption, not the 2 complete", kept);
    cr_assert_eq(shf("cd %s/results/raw && ls -A | grep -q '^\\.'", root), 1, "a temporary run folder was left");
    cr_assert_eq(shf("cd %s/results/raw && find . -type f | sort | xargs sha256sum > %s/kept.sha", root, aux), 0);

    /* the rerun: the two kept, the two others measured */
    snprintf(log, sizeof log, "%s/log2", aux);
    int rc = shf(MEASURE4 "%s > %s 2>&1", root, log);
    text = slurp(log);
    cr_assert_eq(rc, 0, "the rerun: exit %d: %s", rc, text);
    int skipped = 0;
    for (const char *p = text; (p = strstr(p, "complete already: skip")); p++)
        skipped++;
    cr_assert_eq(skipped, 2, "the rerun skipped %d runs, not the 2 kept: %s", skipped, text);
    free(text);
    cr_assert_eq(complete_runs(root), 4);
    cr_assert_eq(shf("cd %s/results/raw && sha256sum --quiet -c %s/kept.sha", root, aux), 0,
                 "a kept run's file changed in the rerun");

    /* collect on the resumed study, and on a fresh copy of the same runs
     * (what an uninterrupted measure leaves: no attempt record) */
    char out[65536];
    rc = collect_at(root, out, sizeof out);
    cr_assert_eq(rc, 0, "collect on the resumed study: %s", out);
    char other[128];
    snprintf(other, sizeof other, "%s/uninterrupted", aux);
    /* (--only makes no prediction.json: measure's far side of --host) */
    cr_assert_eq(shf("mkdir -p %s/results %s/provenance && cp -r %s/results/raw %s/results/schedule.tsv "
                     "%s/results/reference %s/results/ && cp %s/provenance/prereg.json %s/provenance/ && "
                     "if [ -e %s/results/prediction.json ]; then cp %s/results/prediction.json %s/results/; fi",
                     other, other, root, root, root, other, root, other, root, root, other),
                 0);
    fresh_db();
    rc = collect_at(other, out, sizeof out);
    cr_assert_eq(rc, 0, "collect on the uninterrupted copy: %s", out);
    cr_assert_eq(shf("cmp %s/results/results.json %s/results/results.json", root, other), 0,
                 "the resumed study's results.json differs from the uninterrupted one's");
}
