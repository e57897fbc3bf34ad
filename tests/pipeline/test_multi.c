/* `make measure HOST=a,b` (pipeline/measure/multi.h): the tiny profile (9 arms x 2
 * rounds of 1 s) on two throwaway sshds on 127.0.0.1, named a and b by
 * Host aliases in an ssh config (LAB_SSH_OPTS="-F FILE"), both this
 * machine and user.  A `run` wrapper makes the first attempt at H3-dl-r2
 * fail (exit 1), so that round's job fails once and GNU parallel measures
 * it again on the other host.  Then collect: every run's machine in
 * results.json, and a study whose round names two machines refused.
 *
 * What is checked comes from pipeline/RESULTS.md ("Several machines") and
 * lab/RAWFORMAT.md (run.json's machine), not from the code. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tnet.h"
#include "tsh.h"
#include "util.h"

#define NTINY 9
static const char *TINY[NTINY] = {"F3-none", "H3-fb25",       "H3-dl",        "H3-dldown", "H3-r2",
                                  "H3-r2-down", "H3-brkr2-down", "H3-bulk-hang", "Z-capacity"};
#define FAILING "H3-dl-r2" /* its round's first job fails */

static char out[64], aux[64];
static pid_t sshd[2];

static void setup(void)
{
    snprintf(out, sizeof out, "/tmp/multiXXXXXX");
    snprintf(aux, sizeof aux, "/tmp/multiauxXXXXXX");
    cr_assert_not_null(mkdtemp(out));
    cr_assert_not_null(mkdtemp(aux));
    tsh_write_prereg(out);
}

static void teardown(void)
{
    for (int i = 0; i < 2; i++)
        if (sshd[i] > 0) {
            kill(sshd[i], SIGTERM);
            waitpid(sshd[i], NULL, 0);
            sshd[i] = 0;
        }
    shf("rm -rf %s %s", out, aux);
}

TestSuite(multi, .init = setup, .fini = teardown, .timeout = 600);



static int skip_why(char *why, size_t n)
{
    if (access("/usr/sbin/sshd", X_OK) != 0 || shf("command -v ssh ssh-keygen >/dev/null") != 0)
        snprintf(why, n, "no sshd or ssh (apt-get install openssh-server)");
    else if (shf("command -v parallel >/dev/null") != 0)
        snprintf(why, n, "no GNU parallel (make deps)");
    else if (getuid() != 0)
        snprintf(why, n, "needs root (an sshd on 127.0.0.1 logging in as root)");
    else
        return 0;
    return 1;
}

/* Two sshds, and aux/ssh_config naming them a and b. */
static void two_hosts(void)
{
    cr_assert_eq(shf("ssh-keygen -q -t ed25519 -N '' -f %s/hostkey && ssh-keygen -q -t ed25519 -N '' -f %s/userkey "
                     "&& cp %s/userkey.pub %s/authorized_keys && mkdir -p /run/sshd",
                     aux, aux, aux, aux),
                 0);
    int port[2];
    for (int k = 0; k < 2; k++) {
        {
            char tag[8];
            snprintf(tag, sizeof tag, "%d", k);
            sshd[k] = tnet_start_sshd(aux, tag, &port[k], NULL, 0);
        }
        cr_assert(sshd[k] > 0, "sshd %d did not start on 127.0.0.1 (see %s/sshd%d.log)", k, aux, k);
    }
    char cfg[256], text[1024], err[UT_ERRLEN];
    snprintf(cfg, sizeof cfg, "%s/ssh_config", aux);
    snprintf(text, sizeof text,
             "Host a\n  HostName 127.0.0.1\n  Port %d\nHost b\n  HostName 127.0.0.1\n  Port %d\n"
             "Host *\n  User root\n  IdentityFile %s/userkey\n  StrictHostKeyChecking no\n"
             "  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n  ConnectTimeout 10\n",
             port[0], port[1], aux);
    cr_assert_eq(ut_write_file(cfg, text, strlen(text), err, sizeof err), 0, "%s", err);
}

/* aux/bin: the real store, service and tester, and a `run` that fails the
 * first attempt at FAILING (exit 1: measure stops, the round job fails). */
static void failing_bin(void)
{
    char cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(shf("mkdir -p %s/bin && for p in store service tester play predict; do ln -s %s/build/bin/$p %s/bin/$p; "
                     "done",
                     aux, cwd, aux),
                 0);
    char path[256], text[8192], err[UT_ERRLEN];
    snprintf(path, sizeof path, "%s/bin/run", aux);
    snprintf(text, sizeof text,
             "#!/bin/sh\nif [ \"$2-r$4\" = %s ] && [ ! -e %s/failed ]; then\n"
             "  touch %s/failed; echo 'run: failing once (the test)'; exit 1\nfi\nexec %s/build/bin/run \"$@\"\n",
             FAILING, aux, aux, cwd);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    cr_assert_eq(chmod(path, 0755), 0);
}

static const char *machine_of(json_t *o, const char *what)
{
    const char *m = json_string_value(json_object_get(o, "machine"));
    cr_assert_not_null(m, "%s has no machine", what);
    return m;
}

/* Each run's run.json and record name the same machine, one per round:
 * into round_m[1], round_m[2]. */
static void check_machines(char round_m[3][8])
{
    round_m[1][0] = round_m[2][0] = 0;
    for (int i = 0; i < NTINY; i++)
        for (int r = 1; r <= 2; r++) {
            char p[256];
            snprintf(p, sizeof p, "%s/results/raw/%s-r%d/run.json", out, TINY[i], r);
            json_t *rj = json_load_file(p, 0, NULL);
            cr_assert_not_null(rj, "%s", p);
            const char *m = machine_of(rj, p);
            cr_assert(!strcmp(m, "m1") || !strcmp(m, "m2"), "%s: machine %s", p, m);
            if (!round_m[r][0])
                snprintf(round_m[r], 8, "%s", m);
            cr_assert_str_eq(m, round_m[r], "%s: round %d also on %s", p, r, round_m[r]);
            snprintf(p, sizeof p, "%s/provenance/runs/%s-r%d.json", out, TINY[i], r);
            json_t *rec = json_load_file(p, 0, NULL);
            cr_assert_not_null(rec, "%s", p);
            cr_assert_str_eq(machine_of(rec, p), m, "%s", p);
            json_decref(rec);
            json_decref(rj);
        }
}

/* parallel.tsv as RESULTS.md says: the header, one line per round here
 * (parallel logs a retried job's last attempt), Host the label of the
 * round's runs, Command measure-round <r>, exit 0; no address. */
static void check_joblog(char round_m[3][8])
{
    char p[256];
    snprintf(p, sizeof p, "%s/provenance/parallel.tsv", out);
    char *t = slurp(p);
    const char *hdr = "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n";
    cr_assert(!strncmp(t, hdr, strlen(hdr)), "%s", t);
    cr_assert_null(strstr(t, "127.0.0.1"), "%s", t);
    int seen[3] = {0}, lines = 0;
    for (char *l = t + strlen(hdr); *l; l = strchr(l, '\n') + 1) {
        int seq, r, ev, sig;
        char host[16], cmd[32];
        double start, runtime;
        long send, recv;
        cr_assert_eq(sscanf(l, "%d\t%15[^\t]\t%lf\t%lf\t%ld\t%ld\t%d\t%d\t%31[^\t\n]", &seq, host, &start, &runtime,
                            &send, &recv, &ev, &sig, cmd),
                     9, "%s", l);
        cr_assert_eq(sscanf(cmd, "measure-round %d", &r), 1, "%s", l);
        cr_assert(r == 1 || r == 2, "%s", l);
        cr_assert_str_eq(host, round_m[r], "%s", l);
        cr_assert_eq(ev, 0, "%s", l);
        cr_assert_eq(sig, 0, "%s", l);
        cr_assert(start > 1.7e9 && runtime > 1, "%s", l); /* a round is nine runs of 1 s */
        cr_assert(strchr(l, '\n'), "%s", l);
        seen[r]++;
        lines++;
    }
    cr_assert_eq(lines, 2, "%s", t);
    cr_assert(seen[1] == 1 && seen[2] == 1, "%s", t);
    free(t);
}

Test(multi, two_hosts_split_by_rounds_a_failed_round_job_retried_then_collected)
{
    char why[256];
    if (skip_why(why, sizeof why)) {
        printf("multi: skipped: %s\n", why);
        cr_skip_test("%s", why);
    }
    two_hosts();
    failing_bin();
    char opts[300], log[128];
    snprintf(opts, sizeof opts, "-F %s/ssh_config", aux);
    setenv("LAB_SSH_OPTS", opts, 1);
    snprintf(log, sizeof log, "%s/log", aux);
    /* timeout: a guard against a hung ssh, far above the half minute this takes */
    int rc = shf("timeout 500 make -s measure PROFILE=tiny OUT=%s HOST=a,b GATE=0 QUIET=tests/quiet_off.tsv "
                 "MEASURE_FLAGS='--settle-s 0.2 --bin %s/bin' > %s 2>&1",
                 out, aux, log);
    unsetenv("LAB_SSH_OPTS");
    char *t = slurp(log);
    cr_assert_eq(rc, 0, "%s", t);
    /* the failed attempt was real and named; parallel took it elsewhere */
    char path[256], failed_on[8] = "";
    snprintf(path, sizeof path, "%s/failed", aux);
    cr_assert_eq(access(path, F_OK), 0, "the wrapper never failed a run");
    char *f = strstr(t, "measure: round 2 failed on ");
    cr_assert_not_null(f, "%s", t);
    cr_assert_eq(sscanf(f, "measure: round 2 failed on %7[m0-9] (exit 1)", failed_on), 1, "%s", f);
    /* each host its own far folder, holding its label, removed at the end */
    for (int k = 0; k < 2; k++) {
        char want[64], dir[256];
        snprintf(want, sizeof want, "far folder %c:", 'a' + k);
        char *p = strstr(t, want);
        cr_assert_not_null(p, "%s", t);
        cr_assert_eq(sscanf(p + strlen(want), "%255s", dir), 1);
        char pre[32];
        snprintf(pre, sizeof pre, "/tmp/lab-measure-m%d.", k + 1);
        cr_assert(!strncmp(dir, pre, strlen(pre)), "%s", dir);
        cr_assert_neq(access(dir, F_OK), 0, "the far folder %s is still there", dir);
    }
    free(t);

    char round_m[3][8];
    check_machines(round_m);
    /* the round that failed on one host was measured on the other: both used */
    cr_assert_str_neq(round_m[2], failed_on, "round 2 retried on the host where it failed");
    /* the failed attempt's partial runs and record stayed there */
    snprintf(path, sizeof path, "%s/provenance/runs/" FAILING ".attempt-1.json", out);
    cr_assert_neq(access(path, F_OK), 0, "%s came home", path);
    check_joblog(round_m);
    snprintf(path, sizeof path, "%s/provenance/stage-measure.json", out);
    char *st = slurp(path);
    cr_assert_null(strstr(st, "a,b"), "the hosts are in %s", path);
    cr_assert_null(strstr(st, "127.0.0.1"), "an address is in %s", path);
    cr_assert(strstr(st, "parallel.tsv"), "parallel.tsv is not among measure's outputs");
    free(st);

    /* collect: runs.<run>.machine from run.json */
    snprintf(log, sizeof log, "%s/collect.log", aux);
    rc = shf("make -s collect OUT=%s QUIET=tests/quiet_off.tsv > %s 2>&1", out, log);
    t = slurp(log);
    cr_assert_eq(rc, 0, "%s", t);
    free(t);
    snprintf(path, sizeof path, "%s/results/results.json", out);
    json_t *res = json_load_file(path, 0, NULL);
    cr_assert_not_null(res, "%s", path);
    for (int i = 0; i < NTINY; i++)
        for (int r = 1; r <= 2; r++) {
            char name[64];
            snprintf(name, sizeof name, "%s-r%d", TINY[i], r);
            json_t *run = json_object_get(json_object_get(res, "runs"), name);
            cr_assert_not_null(run, "%s not in results.json", name);
            cr_assert_str_eq(machine_of(run, name), round_m[r], "%s", name);
        }
    json_decref(res);

    /* one run of round 1 said to be from the other machine (and the measure
     * manifest's line of that run.json written to match, so that collect's
     * digest check lets it through): refused, one line, nothing written */
    const char *other = strcmp(round_m[1], "m1") ? "m1" : "m2";
    snprintf(path, sizeof path, "%s/results/raw/F3-none-r1/run.json", out);
    cr_assert_eq(shf("sed -i 's/\"machine\": \"%s\"/\"machine\": \"%s\"/' %s && rm %s/results/results.json",
                     round_m[1], other, path, out),
                 0);
    cr_assert_eq(shf("f=%s; l=\"results/raw/F3-none-r1/run.json\t$(stat -c %%s $f)\t$(sha256sum $f | cut -c1-64)\"; "
                     "sed -i \"s|^results/raw/F3-none-r1/run.json\t.*|$l|\" %s/provenance/manifest-measure.tsv",
                     path, out),
                 0);
    rc = shf("make -s collect OUT=%s QUIET=tests/quiet_off.tsv > %s 2>&1", out, log);
    t = slurp(log);
    cr_assert_neq(rc, 0, "%s", t);
    char line[160];
    snprintf(line, sizeof line, "collect: round 1 was measured on two machines, m1 (");
    cr_assert(strstr(t, line), "%s", t);
    cr_assert(strstr(t, "m1 (") && strstr(t, "m2 ("), "%s", t);
    free(t);
    snprintf(path, sizeof path, "%s/results/results.json", out);
    cr_assert_neq(access(path, F_OK), 0, "collect wrote %s", path);
}

/* --far-lab: the hosts run their own build of the lab (here: this checkout,
 * as both hosts are this machine); nothing but prereg.json and the quiet
 * rules is copied.  Without a failure both hosts measure a round. */
Test(multi, far_lab_hosts_run_their_own_build)
{
    char why[256];
    if (skip_why(why, sizeof why)) {
        printf("multi: skipped: %s\n", why);
        cr_skip_test("%s", why);
    }
    two_hosts();
    char opts[300], log[128], cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(opts, sizeof opts, "-F %s/ssh_config", aux);
    setenv("LAB_SSH_OPTS", opts, 1);
    snprintf(log, sizeof log, "%s/log", aux);
    int rc = shf("timeout 500 make -s measure PROFILE=tiny OUT=%s HOST=a,b GATE=0 QUIET=tests/quiet_off.tsv "
                 "MEASURE_FLAGS='--settle-s 0.2 --far-lab %s' > %s 2>&1",
                 out, cwd, log);
    unsetenv("LAB_SSH_OPTS");
    char *t = slurp(log);
    cr_assert_eq(rc, 0, "%s", t);
    cr_assert_null(strstr(t, "failed on"), "%s", t);
    free(t);
    char round_m[3][8];
    check_machines(round_m);
    cr_assert_str_neq(round_m[1], round_m[2], "one host measured both rounds while the other was idle");
    check_joblog(round_m);
    /* this checkout is as it was: the far folders only linked it */
    cr_assert_eq(access("build/bin/measure", X_OK), 0);
    cr_assert_eq(access("build/prep/summary.json", F_OK), 0);
}
