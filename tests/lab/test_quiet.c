/* lab/watch/watch.c and lab/watch/quiet.c: /proc/stat parsed, and the quiet rules, on
 * made-up ticks and lateness computed by hand. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "quiet.h"
#include "util.h"
#include "watch.h"

Test(watch, parses_the_machine_and_each_core)
{
    const char *a = "cpu  100 5 50 1000 20 3 2 10 0 0\n"
                    "cpu0 50 5 25 500 10 1 1 5 0 0\n"
                    "cpu1 50 0 25 500 10 2 1 5 0 0\n"
                    "intr 12345 0 0\nctxt 999\n";
    const char *b = "cpu  150 5 60 1150 20 3 2 40 0 0\n"
                    "cpu0 90 5 30 510 10 1 1 25 0 0\n"
                    "cpu1 60 0 30 640 10 2 1 15 0 0\n";
    watch_snap s, t;
    char err[256];
    cr_assert_eq(watch_parse(a, &s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(watch_parse(b, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(s.ncpu, 2);
    /* total = user nice system idle iowait irq softirq steal (not guest) */
    cr_assert_eq(s.all.total, 100 + 5 + 50 + 1000 + 20 + 3 + 2 + 10);
    cr_assert_eq(s.all.idle, 1020);
    cr_assert_eq(s.all.steal, 10);
    watch_ticks d = watch_delta(&s, &t, -1);
    cr_assert_eq(d.total, 50 + 10 + 150 + 30);
    cr_assert_eq(d.idle, 150);
    cr_assert_eq(d.steal, 30);
    watch_ticks c0 = watch_delta(&s, &t, 0);
    cr_assert_eq(c0.total, 40 + 5 + 10 + 20);
    cr_assert_eq(c0.idle, 10);
    unsigned char mask[WATCH_MAXCPU / 8] = {0};
    mask[0] = 2; /* core 1 */
    watch_ticks m = watch_delta_cores(&s, &t, mask);
    cr_assert_eq(m.total, 10 + 5 + 140 + 10);
    cr_assert_eq(watch_delta(&s, &t, 7).total, 0, "a core that is not there has no ticks");
    cr_assert_eq(watch_parse("intr 1\n", &s, err, sizeof err), -1);
    cr_assert(strstr(err, "no aggregate"), "%s", err);
    cr_assert_eq(watch_parse("cpu 1 2 x 4\n", &s, err, sizeof err), -1);
    cr_assert(strstr(err, "line 1"), "%s", err);
    cr_assert_eq(watch_read(&s, err, sizeof err), 0, "%s", err);
    cr_assert_gt(s.all.total, 0);
}

static quiet_limits L = {0.005, 0.05, 1.0, 20.0, 0.8, 0.2};

Test(quiet, a_quiet_run_breaks_no_rule)
{
    quiet_ticks all[3] = {{200, 150, 0, 45}, {200, 160, 1, 39}, {200, 140, 0, 58}};
    /* the lab's ticks may exceed the measured cores' busy ticks (sampling) */
    quiet_ticks meas[3] = {{100, 55, 0, 45}, {100, 60, 1, 39}, {100, 45, 0, 58}};
    int64_t late[5] = {100000, 50000, 300000, 200000, 120000};
    quiet_result r;
    quiet_judge(&L, all, meas, 3, late, 5, &r);
    cr_assert(r.quiet);
    cr_assert_eq(r.nreasons, 0);
    /* steal 1 of 600 ticks; worst second 1/200; the other core (450 - 160) of 300 idle */
    cr_assert_float_eq(r.steal_run, 1.0 / 600, 1e-15);
    cr_assert_float_eq(r.steal_second_max, 1.0 / 200, 1e-15);
    cr_assert_float_eq(r.other_idle, 290.0 / 300, 1e-15);
    /* lateness sorted 50 100 120 200 300 us: p99 = 200 + 0.96 * 100 us */
    cr_assert_float_eq(r.late_p99_ms, 0.296, 1e-12);
    cr_assert_float_eq(r.late_max_ms, 0.3, 1e-12);
    cr_assert_float_eq(r.foreign_second_max, 0.0, 0, "every measured busy tick was the lab's");
}

Test(quiet, each_rule_is_named_when_broken)
{
    /* a second with 12 of 200 ticks stolen (6%), 13 of 600 over the run */
    quiet_ticks all[3] = {{200, 150, 0, 45}, {200, 160, 12, 34}, {200, 140, 1, 54}};
    quiet_ticks meas[3] = {{100, 55, 0, 45}, {100, 60, 6, 34}, {100, 45, 1, 54}};
    int64_t late[4] = {100000, 2000000, 30000000, 100000};
    quiet_result r;
    quiet_judge(&L, all, meas, 3, late, 4, &r);
    cr_assert_not(r.quiet);
    cr_assert_eq(r.nreasons, 4);
    cr_assert_str_eq(r.rule[0], "steal_run_max");
    cr_assert_str_eq(r.rule[1], "steal_second_max");
    cr_assert_str_eq(r.rule[2], "late_p99_max_ms");
    cr_assert_str_eq(r.rule[3], "late_max_max_ms");
    cr_assert(strstr(r.reasons[1], "6.0%"), "%s", r.reasons[1]);
    cr_assert(strstr(r.reasons[3], "30.000 ms"), "%s", r.reasons[3]);
    /* a busy other core (100 of 300 ticks idle) */
    quiet_ticks busy[1] = {{200, 60, 0, 140}};
    quiet_ticks bm[1] = {{100, 50, 0, 50}};
    int64_t one = 1000;
    quiet_judge(&L, busy, bm, 1, &one, 1, &r);
    cr_assert_eq(r.nreasons, 1);
    cr_assert_str_eq(r.rule[0], "other_idle_min");
    cr_assert_float_eq(r.other_idle, 0.1, 1e-15);
    /* the other core fully busy, and its two samplings a tick apart: the
     * aggregate's idle one tick below the measured core's, so the others'
     * idle is -1 of 200 ticks, clipped to 0 (not a wrapped-around huge
     * number): below any positive limit, and not below a limit of 0 */
    quiet_ticks neg_a[2] = {{200, 49, 0, 51}, {200, 50, 0, 50}};
    quiet_ticks neg_m[2] = {{100, 50, 0, 50}, {100, 50, 0, 50}};
    quiet_judge(&L, neg_a, neg_m, 2, &one, 1, &r);
    cr_assert_float_eq(r.other_idle, 0.0, 1e-15);
    cr_assert_not(r.quiet);
    cr_assert_str_eq(r.rule[0], "other_idle_min");
    quiet_limits off = L;
    off.other_idle_min = 0;
    quiet_judge(&off, neg_a, neg_m, 2, &one, 1, &r);
    cr_assert(r.quiet);
    /* and the other way: its idle a tick above its total, clipped to 1 */
    quiet_ticks over_a[1] = {{200, 151, 0, 0}};
    quiet_ticks over_m[1] = {{100, 50, 0, 50}};
    quiet_judge(&L, over_a, over_m, 1, &one, 1, &r);
    cr_assert_float_eq(r.other_idle, 1.0, 1e-15);
    /* every core measured: nothing to say about the others (NAN), quiet */
    quiet_judge(&L, busy, busy, 1, &one, 1, &r);
    cr_assert(isnan(r.other_idle));
    cr_assert(r.quiet);
    /* a hog on the measured core: 100 ticks, 39 idle, the lab 3: 58% others' */
    quiet_ticks ha[2] = {{200, 196, 0, 3}, {200, 138, 0, 3}};
    quiet_ticks hm[2] = {{100, 97, 0, 3}, {100, 39, 0, 3}};
    quiet_judge(&L, ha, hm, 2, &one, 1, &r);
    cr_assert_not(r.quiet);
    cr_assert_eq(r.nreasons, 1);
    cr_assert_str_eq(r.rule[0], "foreign_second_max");
    cr_assert_float_eq(r.foreign_second_max, 0.58, 1e-15);
}

Test(quiet, limits_file_checked)
{
    quiet_limits q;
    char err[256], dir[] = "/tmp/quietXXXXXX", path[64];
    cr_assert_eq(quiet_load("data/quiet.tsv", &q, err, sizeof err), 0, "%s", err);
    cr_assert_eq(q.late_max_max_ms, 25.0);
    cr_assert_eq(q.foreign_second_max, 0.2);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/q.tsv", dir);
    struct {
        const char *text, *want;
    } cases[] = {
        {"rule\tlimit\nsteal_run_max\tyes\n", ":2: field limit \"yes\" of steal_run_max"},
        {"rule\tlimit\nsteal_run_max\t2\n", "out of range"},
        {"rule\tlimit\nloud\t1\n", ":2: field rule \"loud\" is not a rule"},
        {"rule\tlimit\nsteal_run_max\t0.1\n", "rule steal_second_max is missing"},
        {"name\tvalue\n", ":1: the header must be \"rule\tlimit\""},
        /* found by tests/fuzz/fuzz_quiet: a comment over the line buffer hid a rule in its tail;
         * the one TSV reader reads a comment whole, so the rule is missing */
        {"rule\tlimit\n# 600 bytes of comment, then a rule that is only text .........................."
         "......................................................................................................."
         "......................................................................................................."
         "......................................................................................................."
         "......................................................................................................."
         "...................................................................steal_run_max\t0.1\n",
         "rule steal_run_max is missing"},
        {"# a comment\n\nrule\tlimit\n#\tsteal_run_max\t9\nsteal_run_max\t1\t2\n", ":5: more than 2 fields, expected 2 (rule limit)"},
        {"rule\tlimit\nsteal_run_max\t0.1\nsteal_run_max\t0.1\n", ":3: field rule \"steal_run_max\" is listed twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(ut_write_file(path, cases[i].text, strlen(cases[i].text), err, sizeof err), 0);
        cr_assert_eq(quiet_load(path, &q, err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, cases[i].want), "case %zu: %s", i, err);
    }
    unlink(path);
    rmdir(dir);
}

/* ------------------------------------------------------------------------
 * A run disturbed on purpose: the tester is stopped for 100 ms in the middle
 * of its first attempt (SIGSTOP, then SIGCONT), so requests go out up to
 * 100 ms late.  measure must judge that attempt disturbed, measure the run
 * again, and publish the quiet attempt; the first attempt's record stays in
 * provenance with its reason.  Only the lateness maximum is limited here
 * (40 ms), so the other rules cannot make the test depend on the machine. */

#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <sys/wait.h>

/* The pid of a running tester whose command line mentions `mark`, or 0. */
static pid_t find_tester(const char *mark)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && !found && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        for (size_t i = 0; i < n; i++)
            if (!buf[i])
                buf[i] = ' ';
        if (strstr(buf, "build/bin/tester") == buf && strstr(buf, mark))
            found = (pid_t)atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return found;
}

static json_t *load_json(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert_not_null(j, "%s: %s", path, je.text);
    return j;
}

Test(quiet, a_disturbed_run_is_measured_again_and_the_quiet_attempt_kept, .timeout = 300)
{
    char out[] = "/tmp/quietrunXXXXXX", cmd[2048], rules[600], err[UT_ERRLEN];
    cr_assert_not_null(mkdtemp(out));
    snprintf(rules, sizeof rules, "%s/rules.tsv", out);
    const char *text = "rule\tlimit\nsteal_run_max\t1\nsteal_second_max\t1\nlate_p99_max_ms\t60000\n"
                       "late_max_max_ms\t40\nother_idle_min\t0\nforeign_second_max\t1\n";
    cr_assert_eq(ut_write_file(rules, text, strlen(text), err, sizeof err), 0, "%s", err);
    snprintf(cmd, sizeof cmd, "build/bin/prepare --prep build/prep --prov %s/provenance --data data > %s/log 2>&1",
             out, out);
    cr_assert_eq(system(cmd), 0, "prepare");
    snprintf(cmd, sizeof cmd,
             "exec build/bin/measure --profile tiny --root %s --gate 0 --settle-s 0.2 --quiet %s "
             "--only H3-fb25-r1 >> %s/log 2>&1",
             out, rules, out);
    pid_t m = fork();
    cr_assert_geq(m, 0);
    if (m == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    /* the first attempt's tester: stop it for 100 ms, 300 ms into its run */
    pid_t t = 0;
    for (int k = 0; k < 6000 && !t; k++) {
        t = find_tester(out);
        if (!t)
            usleep(5000);
    }
    cr_assert_gt(t, 0, "no tester of this study appeared");
    usleep(300000);
    kill(t, SIGSTOP);
    usleep(100000);
    kill(t, SIGCONT);
    int st;
    cr_assert_eq(waitpid(m, &st, 0), m);
    snprintf(cmd, sizeof cmd, "cat %s/log", out);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "measure's exit status %d", st);

    char runs[600];
    snprintf(runs, sizeof runs, "%s/provenance/runs", out);
    json_t *first = load_json(runs, "H3-fb25-r1.attempt-1.json");
    json_t *q1 = json_object_get(first, "quiet");
    cr_assert(json_is_false(json_object_get(q1, "quiet")), "the stopped attempt was judged quiet");
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(q1, "rules"), 0)), "late_max_max_ms");
    cr_assert_geq(json_number_value(json_object_get(q1, "late_max_ms")), 90.0, "a 100 ms stop shows");
    json_t *last = load_json(runs, "H3-fb25-r1.json");
    cr_assert_eq(json_integer_value(json_object_get(last, "attempt")), 2);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(last, "earlier_attempts"), 0)),
                     "H3-fb25-r1.attempt-1.json");
    char raw[600];
    snprintf(raw, sizeof raw, "%s/results/raw/H3-fb25-r1", out);
    json_t *rj = load_json(raw, "run.json");
    json_t *q2 = json_object_get(rj, "quiet");
    cr_assert(json_is_true(json_object_get(q2, "quiet")), "the published attempt is the quiet one");
    cr_assert_lt(json_number_value(json_object_get(q2, "late_max_ms")), 40.0);
    json_decref(first);
    json_decref(last);
    json_decref(rj);
    snprintf(cmd, sizeof cmd, "rm -rf %s", out);
    cr_assert_eq(system(cmd), 0);
}
