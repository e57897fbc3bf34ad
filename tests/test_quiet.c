/* lab/watch.c and lab/quiet.c: /proc/stat parsed, and the quiet rules, on
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

static quiet_limits L = {0.005, 0.05, 1.0, 20.0, 0.8};

Test(quiet, a_quiet_run_breaks_no_rule)
{
    quiet_ticks all[3] = {{200, 150, 0}, {200, 160, 1}, {200, 140, 0}};
    quiet_ticks meas[3] = {{100, 55, 0}, {100, 60, 1}, {100, 45, 0}};
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
}

Test(quiet, each_rule_is_named_when_broken)
{
    /* a second with 12 of 200 ticks stolen (6%), 13 of 600 over the run */
    quiet_ticks all[3] = {{200, 150, 0}, {200, 160, 12}, {200, 140, 1}};
    quiet_ticks meas[3] = {{100, 55, 0}, {100, 60, 6}, {100, 45, 1}};
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
    quiet_ticks busy[1] = {{200, 60, 0}};
    quiet_ticks bm[1] = {{100, 50, 0}};
    int64_t one = 1000;
    quiet_judge(&L, busy, bm, 1, &one, 1, &r);
    cr_assert_eq(r.nreasons, 1);
    cr_assert_str_eq(r.rule[0], "other_idle_min");
    cr_assert_float_eq(r.other_idle, 0.1, 1e-15);
    /* every core measured: nothing to say about the others (NAN), quiet */
    quiet_judge(&L, busy, busy, 1, &one, 1, &r);
    cr_assert(isnan(r.other_idle));
    cr_assert(r.quiet);
}

Test(quiet, limits_file_checked)
{
    quiet_limits q;
    char err[256], dir[] = "/tmp/quietXXXXXX", path[64];
    cr_assert_eq(quiet_load("data/quiet.tsv", &q, err, sizeof err), 0, "%s", err);
    cr_assert_eq(q.late_max_max_ms, 20.0);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/q.tsv", dir);
    struct {
        const char *text, *want;
    } cases[] = {
        {"rule\tlimit\nsteal_run_max\tyes\n", ":2: field limit \"yes\" of steal_run_max"},
        {"rule\tlimit\nsteal_run_max\t2\n", "out of range"},
        {"rule\tlimit\nloud\t1\n", ":2: field rule \"loud\" is not a rule"},
        {"rule\tlimit\nsteal_run_max\t0.1\n", "rule steal_second_max is missing"},
        {"name\tvalue\n", ":1: header"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(ut_write_file(path, cases[i].text, strlen(cases[i].text), err, sizeof err), 0);
        cr_assert_eq(quiet_load(path, &q, err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, cases[i].want), "case %zu: %s", i, err);
    }
    unlink(path);
    rmdir(dir);
}
