/* The idle gate's note (lab/watch/gate.h, suite `gatenote`): the window a
 * run's settling leaves for the next run's gate.
 *
 * - the window of a settling: from the latest sample at least GATE_WINDOW_S
 *   before the last one, its shares by hand from made-up ticks, across the
 *   ring's wrap; none when the samples span less than a window;
 * - a note: written and taken back (a recent one is a passed gate with its
 *   age, and is removed); an old one, one of the future, one that failed
 *   the rule and a malformed one are no gate, are removed too, and the
 *   malformed one is named on stderr;
 * - real runs (alone: they need a quiet machine): a run whose settling
 *   lasts a window (H3-fb25 round 1, 1 s: its dice freeze lookups 1.7 s
 *   past the end) writes the note, and the next run takes it as its gate
 *   (run.json's idle: passed, waited_s 0, before_s its age), without
 *   waiting a window of its own; a run without a note records no before_s;
 *   a settling shorter than a window (F3-none) is watched on to one and
 *   leaves a note too; a run with the gate off neither takes nor writes one.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate.h"
#include "tsh.h"
#include "util.h"

#define MS 1000000LL

/* A sample at t_ms (ms) whose aggregate line has these ticks so far. */
static void put(gate_watch *w, long long t_ms, unsigned long long idle, unsigned long long steal,
                unsigned long long total)
{
    int i = w->n % GATE_WATCH_MAX;
    w->t[i] = t_ms * MS;
    w->idle[i] = idle;
    w->steal[i] = steal;
    w->total[i] = total;
    w->n++;
}

Test(gatenote, the_window_runs_from_the_latest_sample_a_window_before_the_last)
{
    gate_watch w = {0};
    double idle, steal;
    long long end;
    put(&w, 0, 0, 0, 0);
    put(&w, 250, 40, 0, 50);
    put(&w, 500, 90, 0, 100);
    cr_assert_eq(gate_watch_window(&w, &idle, &steal, &end), 0, "0.5 s of samples is no 1 s window");
    put(&w, 750, 140, 1, 150);
    put(&w, 1000, 190, 1, 200);
    /* samples at 0 ... 1000 ms: the window is 0 to 1000, 190 idle of 200 */
    cr_assert_eq(gate_watch_window(&w, &idle, &steal, &end), 1);
    cr_assert_float_eq(idle, 190.0 / 200, 1e-12);
    cr_assert_float_eq(steal, 1.0 / 200, 1e-12);
    cr_assert_eq(end, 1000 * MS);
    /* a last sample at 1130 ms (the settling's end): from 0 still, since
     * 250 ms is less than a window before it; 1130 - 250 = 880 < 1000 */
    put(&w, 1130, 215, 1, 226);
    cr_assert_eq(gate_watch_window(&w, &idle, &steal, &end), 1);
    cr_assert_float_eq(idle, 215.0 / 226, 1e-12);
    cr_assert_eq(end, 1130 * MS);
    /* one more at 1300: the latest a window before it is 250 ms */
    put(&w, 1300, 225, 1, 260);
    cr_assert_eq(gate_watch_window(&w, &idle, &steal, &end), 1);
    cr_assert_float_eq(idle, (225.0 - 40) / (260 - 50), 1e-12, "%.17g", idle);
    cr_assert_float_eq(steal, 1.0 / 210, 1e-12);
}

Test(gatenote, the_window_is_found_across_the_rings_wrap)
{
    gate_watch w = {0};
    /* 3 * GATE_WATCH_MAX samples 100 ms apart, 10 ticks each, the idle
     * ones 9 of 10 but 10 of 10 in the last second */
    int n = 3 * GATE_WATCH_MAX;
    unsigned long long idle_t = 0;
    for (int k = 0; k < n; k++) {
        put(&w, 100LL * k, idle_t, 0, 10ULL * (unsigned long long)k);
        idle_t += (n - 1 - k) <= 10 ? 10 : 9;
    }
    double idle, steal;
    long long end;
    cr_assert_eq(gate_watch_window(&w, &idle, &steal, &end), 1);
    /* from sample n-11 (1 s before the last) to n-1: ten steps; the step
     * after sample k adds 10 when n-1-k <= 10, so steps n-11 ... n-2 all 10 */
    cr_assert_float_eq(idle, 1.0, 1e-12, "%.17g", idle);
    cr_assert_eq(end, 100LL * (n - 1) * MS);
}

static char note[64];

static void note_setup(void)
{
    snprintf(note, sizeof note, "/tmp/gatenote.%d", (int)getpid());
    unlink(note);
}

static void note_teardown(void)
{
    unlink(note);
}

TestSuite(gatenote_file, .init = note_setup, .fini = note_teardown);

Test(gatenote_file, a_recent_note_is_a_passed_gate_with_its_age_and_is_removed)
{
    char err[UT_ERRLEN];
    long long end = ut_mono_ns() - 300 * MS;
    cr_assert_eq(gate_note_write(note, end, 0.975, 0.0125, err, sizeof err), 0, "%s", err);
    char *text = slurp(note);
    char want[128];
    snprintf(want, sizeof want, "gate_note\t%lld\t0.97499999999999998\t0.012500000000000001\n", end);
    cr_assert_str_eq(text, want);
    free(text);
    gate_res g = {.idle_share = NAN, .steal_share = NAN, .before_s = NAN, .waited_s = 5};
    long long t0 = ut_mono_ns();
    cr_assert_eq(gate_note_take(note, &g), 1);
    double age_max = (double)(ut_mono_ns() - end) / 1e9, age_min = (double)(t0 - end) / 1e9;
    cr_assert(g.enabled && g.passed);
    cr_assert_float_eq(g.idle_share, 0.975, 0);
    cr_assert_float_eq(g.steal_share, 0.0125, 0);
    cr_assert_float_eq(g.waited_s, 0, 0);
    cr_assert(g.before_s >= age_min && g.before_s <= age_max, "before_s %.9f not in [%.9f, %.9f]", g.before_s,
              age_min, age_max);
    cr_assert_neq(access(note, F_OK), 0, "the note was not removed");
    cr_assert_eq(gate_note_take(note, &g), 0, "a note taken twice");
}

/* Each case: no gate (0), g untouched, the file removed. */
static void no_gate(const char *text, const char *what)
{
    char err[UT_ERRLEN];
    cr_assert_eq(ut_write_file(note, text, strlen(text), err, sizeof err), 0, "%s", err);
    gate_res g = {.idle_share = NAN, .steal_share = NAN, .before_s = NAN};
    cr_assert_eq(gate_note_take(note, &g), 0, "%s: taken as a gate", what);
    cr_assert(!g.passed && !g.enabled && isnan(g.before_s) && isnan(g.idle_share), "%s: g was filled", what);
    cr_assert_neq(access(note, F_OK), 0, "%s: the note was not removed", what);
}

Test(gatenote_file, an_old_a_future_or_a_failing_note_is_no_gate_and_is_removed_silently)
{
    cr_redirect_stderr();
    char text[256];
    long long now = ut_mono_ns();
    snprintf(text, sizeof text, "gate_note\t%lld\t0.99\t0\n", now - (long long)(GATE_NOTE_AGE_S * 1e9) - 100 * MS);
    no_gate(text, "a window ended more than GATE_NOTE_AGE_S ago");
    snprintf(text, sizeof text, "gate_note\t%lld\t0.99\t0\n", now + 1000 * MS);
    no_gate(text, "a window of the future");
    snprintf(text, sizeof text, "gate_note\t%lld\t0.94\t0\n", now);
    no_gate(text, "a window below GATE_IDLE_MIN");
    fflush(stderr);
    cr_assert_stderr_eq_str("");
}

Test(gatenote_file, a_malformed_note_is_no_gate_is_removed_and_is_named_on_stderr)
{
    cr_redirect_stderr();
    char text[256];
    long long now = ut_mono_ns();
    snprintf(text, sizeof text, "gate_note\t%lld\t0.99\t0\nmore\n", now);
    no_gate(text, "two lines");
    snprintf(text, sizeof text, "gate_note\t%lld\t1.5\t0\n", now);
    no_gate(text, "an idle share above 1");
    snprintf(text, sizeof text, "gate_note\t%lld\t0.99\t0", now);
    no_gate(text, "no end of line");
    no_gate("gate_note\tsoon\t0.99\t0\n", "a word for end_ns");
    no_gate("", "an empty note");
    fflush(stderr);
    char got[4096] = "", line[512], want[512];
    FILE *f = cr_get_redirected_stderr();
    snprintf(want, sizeof want, "%s:1: not a gate note (gate_note, end_ns, idle_share, steal_share: "
             "lab/watch/gate.h); the gate waits a window of its own\n", note);
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        const char *msg = strchr(line, ' '); /* after the program's name */
        cr_assert(msg && !strcmp(msg + 1, want), "line %d: %s", lines + 1, line);
        strncat(got, line, sizeof got - strlen(got) - 1);
        lines++;
    }
    cr_assert_eq(lines, 5, "%d lines for 5 malformed notes: %s", lines, got);
}

/* ------------------------------------------------------------ real runs */

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    cr_assert(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

static json_t *run_idle(const char *raw, const char *run, double *settled)
{
    char path[256];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s/run.json", raw, run);
    json_t *r = json_load_file(path, 0, &je);
    cr_assert_not_null(r, "%s: %s", path, je.text);
    *settled = jnum(r, "settled_s");
    json_t *idle = json_incref(json_object_get(r, "idle"));
    json_decref(r);
    cr_assert(json_is_object(idle), "%s: no idle object", path);
    return idle;
}

Test(gatenote_run, a_settling_that_lasts_a_window_is_the_next_runs_gate, .init = note_setup,
     .fini = note_teardown, .timeout = 180)
{
    char dir[64] = "/tmp/gatenoterunXXXXXX", raw[128], log[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(raw, sizeof raw, "%s/raw", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    /* the first run: no note before it; its dice freeze lookups past its end */
    int rc = shf("build/bin/run --arm H3-fb25 --round 1 --seconds 1 --gate 1 --gate-note %s --raw %s "
                 "--quiet tests/quiet_off.tsv > %s 2>&1", note, raw, log);
    char *text = slurp(log);
    cr_assert_eq(rc, 0, "run exit %d: %s", rc, text);
    free(text);
    double settled;
    json_t *idle = run_idle(raw, "H3-fb25-r1", &settled);
    cr_assert_null(json_object_get(idle, "before_s"), "the first run had no note to take");
    cr_assert(jnum(idle, "waited_s") >= GATE_WINDOW_S, "its own gate waited %.3f s", jnum(idle, "waited_s"));
    json_decref(idle);
    cr_assert(settled >= GATE_WINDOW_S, "the settling took %.3f s, less than a window (the dice changed?)", settled);
    cr_assert_eq(access(note, F_OK), 0,
                 "no note after a settling of %.3f s: its last window did not pass the gate (was the machine quiet?)",
                 settled);
    char *n = slurp(note);
    long long end;
    double nidle, nsteal;
    cr_assert_eq(sscanf(n, "gate_note\t%lld\t%lf\t%lf", &end, &nidle, &nsteal), 3, "%s", n);
    free(n);
    cr_assert(nidle >= GATE_IDLE_MIN, "a note of idle %.4f", nidle);
    /* the second run takes it: no window of its own; no freeze, so no note after it */
    rc = shf("build/bin/run --arm F3-none --round 1 --seconds 1 --gate 1 --gate-note %s --raw %s "
             "--quiet tests/quiet_off.tsv > %s 2>&1", note, raw, log);
    text = slurp(log);
    cr_assert_eq(rc, 0, "run exit %d: %s", rc, text);
    free(text);
    idle = run_idle(raw, "F3-none-r1", &settled);
    cr_assert(json_is_true(json_object_get(idle, "passed")) && json_is_true(json_object_get(idle, "enabled")));
    cr_assert_float_eq(jnum(idle, "waited_s"), 0, 0);
    cr_assert_float_eq(jnum(idle, "idle_share"), nidle, 0, "the note's idle share");
    cr_assert_float_eq(jnum(idle, "steal_share"), nsteal, 0, "the note's steal share");
    double before = jnum(idle, "before_s");
    cr_assert(before > 0 && before <= GATE_NOTE_AGE_S, "before_s %.3f", before);
    json_decref(idle);
    /* its settling, shorter than a window, was watched on to a whole one:
     * a note again, of a window that ended later */
    cr_assert(settled < GATE_WINDOW_S, "F3-none settled in %.3f s", settled);
    cr_assert_eq(access(note, F_OK), 0, "no note after a settling of %.3f s watched on to a window", settled);
    n = slurp(note);
    long long end2;
    cr_assert_eq(sscanf(n, "gate_note\t%lld\t%lf\t%lf", &end2, &nidle, &nsteal), 3, "%s", n);
    cr_assert_gt(end2, end);
    /* with the gate off, a run neither takes nor writes the note */
    rc = shf("build/bin/run --arm F3-none --round 2 --seconds 1 --gate 0 --gate-note %s --raw %s "
             "--quiet tests/quiet_off.tsv > %s 2>&1", note, raw, log);
    text = slurp(log);
    cr_assert_eq(rc, 0, "run exit %d: %s", rc, text);
    free(text);
    char *n3 = slurp(note);
    cr_assert_str_eq(n3, n, "the note changed under a run with the gate off");
    free(n3);
    free(n);
    idle = run_idle(raw, "F3-none-r2", &settled);
    cr_assert(json_is_false(json_object_get(idle, "enabled")) && !json_object_get(idle, "before_s"));
    json_decref(idle);
    cr_assert_eq(shf("rm -rf %s", dir), 0);
}
