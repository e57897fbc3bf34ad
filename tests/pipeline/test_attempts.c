/* Every attempt kept (issue 27, item 6; pipeline/RESULTS.md,
 * "results/attempts/<run>-a<N>/"): measure on the tiny profile (runs of
 * 1 s, the idle gate off) with quiet rules no run can keep (the tester's
 * lateness limited to 0 ms), so that every attempt at a run is disturbed.
 *
 * - One run (--only H3-fb25-r1): its three attempts all disturbed; the
 *   first two are results/attempts/H3-fb25-r1-a1 and -a2, each a complete
 *   run folder (its files' sha256 and size as its run.json says) whose
 *   judgement equals its record's (<run>.attempt-N.json: the same N), the
 *   third is the run's folder (kept though disturbed).  Then the rest of the
 *   schedule without limits (tests/quiet_off.tsv): the disturbed run kept
 *   from the first measure is measured again, its folder becoming -a3, and
 *   the manifest lists every file of the three attempts.  collect, judging
 *   by the never-quiet rules: `attempts` has the three with `attempt` N,
 *   quiet false and the very rules run.json named, their run's prediction;
 *   and by no limits: the attempts are then quiet by the rules, yet count in
 *   no arm and no verdict (H3-fb25's rounds are [1, 2], its totals the two
 *   runs', each verdict on it pairs rounds 1 and 2).
 * - A real disturbance, one set of rules throughout (the others' share of
 *   the measured core at most 50% in any second, nothing else limited): a
 *   busy loop pinned to the measured core while RUN is measured makes its
 *   three attempts disturbed; without it, measured again, RUN is quiet.
 *   collect, the verifier (0 mismatches: every attempt checked like a run,
 *   judged disturbed by the same rules, in no arm's rounds) and the report
 *   ("Attempts measured again" lists the three) agree.
 * - Resume: measure run again on the same OUT keeps the attempts byte for
 *   byte, moves the last disturbed folder to the next number and numbers
 *   the new attempts after it; a measure stopped between moving a folder
 *   and keeping its record (made by hand) is resumed with folder and record
 *   sharing N; a folder of attempts/ that is no attempt of a planned run,
 *   or lacks its record, is named and refused (exit 2) and left in place.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsh.h"
#include "util.h"

#define RUN "H3-fb25-r1"
#define MEASURE "build/bin/measure --profile tiny --gate 0 --settle-s 0.2 --closed-s 0.5"
/* only the others' share of the measured cores limited: what a busy loop on them breaks */
#define HOG_RULES "rule\tlimit\nsteal_run_max\t1\nsteal_second_max\t1\nlate_p99_max_ms\t60000\n" \
                  "late_max_max_ms\t60000\nother_idle_min\t0\nforeign_second_max\t0.5\n"
#define NEVER_QUIET "rule\tlimit\nsteal_run_max\t1\nsteal_second_max\t1\nlate_p99_max_ms\t0\nlate_max_max_ms\t0\n" \
                    "other_idle_min\t0\nforeign_second_max\t1\n"
static const char *EV[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz", "events.tsv.gz", "machine.tsv.gz"};

static char out[64], rules[128];

static void setup(void)
{
    /* under build/, relative: the records then name no folder of this machine */
    snprintf(out, sizeof out, "build/tests/attemptsXXXXXX");
    shf("mkdir -p build/tests");
    cr_assert_not_null(mkdtemp(out));
    tsh_write_prereg(out);
    char err[UT_ERRLEN];
    snprintf(rules, sizeof rules, "%s/never-quiet.tsv", out);
    cr_assert_eq(ut_write_file(rules, NEVER_QUIET, strlen(NEVER_QUIET), err, sizeof err), 0, "%s", err);
}

static void teardown(void) { shf("rm -rf %s", out); }

TestSuite(attempts, .init = setup, .fini = teardown, .timeout = 600);

/* OUT/<the formatted path>, loaded (a test assertion when it cannot be) */
static json_t *load(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *load(const char *fmt, ...)
{
    char rel[400], p[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(p, sizeof p, "%s/%s", out, rel);
    json_error_t e;
    json_t *j = json_load_file(p, 0, &e);
    cr_assert_not_null(j, "%s: %s", p, e.text);
    return j;
}

/* OUT/<the formatted path> is there */
static int exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int exists(const char *fmt, ...)
{
    char rel[400], p[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(p, sizeof p, "%s/%s", out, rel);
    struct stat st;
    return stat(p, &st) == 0;
}

/* lines of text beginning with what */
static int count_lines(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += !strncmp(p, what, strlen(what));
    return n;
}

/* measure with extra options; its exit code (its log in OUT/log) */
static int measure(const char *opts)
{
    int rc = shf(MEASURE " --root %s %s >> %s/log 2>&1", out, opts, out);
    if (rc != 0 && rc != 3 && rc != 2)
        shf("tail -30 %s/log", out);
    return rc;
}

/* The folder results/attempts/RUN-aN is a complete run folder: run.json and
 * the five event files, each file's sha256 and size as run.json's `files`
 * says; its run.json names the run; its judgement is disturbed and equal to
 * its record's (RUN.attempt-N.json), so folder and record are one attempt.
 * Each file is listed in the manifest text man with its size and sha256,
 * when man is given. */
static void check_attempt(int n, const char *man)
{
    json_t *rj = load("results/attempts/%s-a%d/run.json", RUN, n);
    cr_assert_str_eq(json_string_value(json_object_get(rj, "arm")), "H3-fb25");
    cr_assert_eq(json_integer_value(json_object_get(rj, "round")), 1);
    cr_assert_float_eq(json_number_value(json_object_get(rj, "seconds")), 1.0, 1e-9);
    json_t *files = json_object_get(rj, "files");
    for (int k = 0; k < 5; k++) {
        char p[512], sha[65], err[UT_ERRLEN];
        uint64_t size;
        snprintf(p, sizeof p, "%s/results/attempts/%s-a%d/%s", out, RUN, n, EV[k]);
        cr_assert_eq(ut_sha256_file(p, sha, &size, err, sizeof err), 0, "%s", err);
        json_t *f = json_object_get(files, EV[k]);
        cr_assert_str_eq(json_string_value(json_object_get(f, "sha256")), sha, "%s", p);
        cr_assert_eq((uint64_t)json_integer_value(json_object_get(f, "size")), size, "%s", p);
        if (man) {
            char line[700];
            snprintf(line, sizeof line, "\nresults/attempts/%s-a%d/%s\t%llu\t%s\n", RUN, n, EV[k],
                     (unsigned long long)size, sha);
            cr_assert_not_null(strstr(man, line), "the manifest lacks %s", line + 1);
        }
    }
    if (man) {
        char p[512], sha[65], err[UT_ERRLEN], line[700];
        uint64_t size;
        snprintf(p, sizeof p, "%s/results/attempts/%s-a%d/run.json", out, RUN, n);
        cr_assert_eq(ut_sha256_file(p, sha, &size, err, sizeof err), 0, "%s", err);
        snprintf(line, sizeof line, "\nresults/attempts/%s-a%d/run.json\t%llu\t%s\n", RUN, n,
                 (unsigned long long)size, sha);
        cr_assert_not_null(strstr(man, line), "the manifest lacks %s", line + 1);
    }
    json_t *q = json_object_get(rj, "quiet");
    cr_assert(json_is_false(json_object_get(q, "quiet")), "attempt %d kept, yet quiet", n);
    json_t *rec = load("provenance/runs/%s.attempt-%d.json", RUN, n);
    cr_assert_eq(json_integer_value(json_object_get(rec, "attempt")), n, "record %d's attempt", n);
    cr_assert(json_equal(json_object_get(rec, "quiet"), q), "attempt %d: folder and record are not one attempt", n);
    json_decref(rec);
    json_decref(rj);
}

/* sha256 of OUT/rel */
static void sha_of(const char *rel, char sha[65])
{
    char p[512], err[UT_ERRLEN];
    snprintf(p, sizeof p, "%s/%s", out, rel);
    cr_assert_eq(ut_sha256_file(p, sha, NULL, err, sizeof err), 0, "%s", err);
}

/* collect with the rules file q into OUT/results/results.json, loaded */
static json_t *collect(const char *q)
{
    int rc = shf("url=$(bash pipeline/common/pg.sh start build/pgattempts) && build/bin/collect --root %s "
                 "--pgurl \"$url\" --quiet %s >> %s/log 2>&1; rc=$?; bash pipeline/common/pg.sh stop "
                 "build/pgattempts; exit $rc",
                 out, q, out);
    if (rc)
        shf("tail -20 %s/log", out);
    cr_assert_eq(rc, 0, "collect");
    return load("results/results.json");
}

static json_t *jget(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(json_object_get(o, a), b);
    cr_assert_not_null(v, "no %s.%s", a, b);
    return v;
}

Test(attempts, every_disturbed_attempt_kept_listed_and_counted_in_nothing)
{
    /* the schedule without limits (and its prediction), then RUN as if never
     * measured, by rules no attempt keeps */
    cr_assert_eq(measure("--quiet tests/quiet_off.tsv"), 0, "the whole schedule");
    cr_assert_eq(shf("rm -r %s/results/raw/%s %s/provenance/runs/%s.json", out, RUN, out, RUN), 0);
    char opts[256];
    snprintf(opts, sizeof opts, "--quiet %s --only " RUN, rules);
    cr_assert_eq(measure(opts), 3, "a run disturbed in every attempt: exit 3");
    check_attempt(1, NULL);
    check_attempt(2, NULL);
    cr_assert(!exists("results/attempts/%s-a3", RUN), "the last attempt is the run's folder");
    json_t *last = load("results/raw/%s/run.json", RUN);
    cr_assert(json_is_false(json_object_get(json_object_get(last, "quiet"), "quiet")), "kept though disturbed");
    json_t *rec = load("provenance/runs/%s.json", RUN);
    cr_assert_eq(json_integer_value(json_object_get(rec, "attempt")), 3);
    cr_assert_eq(json_array_size(json_object_get(rec, "earlier_attempts")), 2);
    cr_assert(json_equal(json_object_get(rec, "quiet"), json_object_get(last, "quiet")));
    json_decref(rec);
    char sha1[65], sha2[65], sha_last[65];
    sha_of("results/attempts/" RUN "-a1/tester.tsv.gz", sha1);
    sha_of("results/attempts/" RUN "-a2/tester.tsv.gz", sha2);
    sha_of("results/raw/" RUN "/tester.tsv.gz", sha_last);
    cr_assert_str_neq(sha1, sha2, "two attempts, two measurements");

    /* measure again without limits: the disturbed run is measured again, its folder kept as -a3 */
    cr_assert_eq(measure("--quiet tests/quiet_off.tsv"), 0, "the whole schedule");
    check_attempt(3, NULL);
    char sha3[65];
    sha_of("results/attempts/" RUN "-a3/tester.tsv.gz", sha3);
    cr_assert_str_eq(sha3, sha_last, "the kept disturbed run moved whole to -a3");
    char mp[300];
    snprintf(mp, sizeof mp, "%s/provenance/manifest-measure.tsv", out);
    char *man = slurp(mp);
    for (int n = 1; n <= 3; n++)
        check_attempt(n, man);
    cr_assert_eq(count_lines(man, "results/attempts/"), 18, "3 attempts of 6 files each, no other");
    cr_assert_eq(count_lines(man, "results/raw/" RUN "/"), 6, "the run's own folder too");
    free(man);

    /* collect by the never-quiet rules: the attempts, disturbed, with their rules */
    json_t *res = collect(rules);
    json_t *att = json_object_get(res, "attempts");
    cr_assert_eq(json_object_size(att), 3, "three kept attempts");
    for (int n = 1; n <= 3; n++) {
        char name[64];
        snprintf(name, sizeof name, RUN "-a%d", n);
        json_t *a = json_object_get(att, name);
        cr_assert_not_null(a, "attempts.%s", name);
        cr_assert_eq(json_integer_value(json_object_get(a, "attempt")), n);
        cr_assert(json_is_false(json_object_get(a, "quiet")), "%s quiet", name);
        json_t *rj = load("results/attempts/%s/run.json", name);
        json_t *want = json_object_get(json_object_get(rj, "quiet"), "rules"), *got = json_object_get(a, "quiet_rules");
        cr_assert_gt(json_array_size(got), 0);
        cr_assert(json_equal(want, got), "%s: collect's rules are not the run's own judgement", name);
        cr_assert_str_eq(json_string_value(json_object_get(a, "arm")), "H3-fb25");
        cr_assert_eq(json_integer_value(json_object_get(a, "round")), 1);
        cr_assert_eq(json_array_size(json_object_get(a, "per_second")), 1, "a run of 1 s: one second");
        cr_assert_gt(json_integer_value(json_object_get(a, "n")), 100, "%s: its requests", name);
        /* the run's prediction, as runs.<run>'s */
        cr_assert(json_is_object(json_object_get(a, "predicted")), "%s: no prediction", name);
        cr_assert(json_equal(json_object_get(a, "predicted"), json_object_get(jget(res, "runs", RUN), "predicted")),
                  "%s: not its run's prediction", name);
        json_decref(rj);
    }
    cr_assert_null(json_object_get(jget(res, "runs", RUN), "attempt"), "a run has no attempt member");
    cr_assert_null(json_object_get(json_object_get(res, "runs"), RUN "-a1"), "an attempt is no run");
    json_t *arm = jget(res, "arms", "H3-fb25");
    json_t *dist = json_object_get(arm, "rounds_disturbed");
    cr_assert_eq(json_array_size(dist), 2, "H3-fb25's disturbed rounds: its two runs, no attempt");
    cr_assert_eq(json_array_size(json_object_get(arm, "rounds")), 0);
    json_decref(res);

    /* by no limits: the attempts are quiet by those rules, and still count in nothing */
    res = collect("tests/quiet_off.tsv");
    att = json_object_get(res, "attempts");
    cr_assert_eq(json_object_size(att), 3);
    cr_assert(json_is_true(json_object_get(json_object_get(att, RUN "-a1"), "quiet")));
    arm = jget(res, "arms", "H3-fb25");
    json_t *rounds = json_object_get(arm, "rounds");
    cr_assert_eq(json_array_size(rounds), 2, "H3-fb25's rounds: 1 and 2, no attempt among them");
    cr_assert_eq(json_integer_value(json_array_get(rounds, 0)), 1);
    cr_assert_eq(json_integer_value(json_array_get(rounds, 1)), 2);
    json_int_t n1 = json_integer_value(json_object_get(jget(res, "runs", RUN), "n"));
    json_int_t n2 = json_integer_value(json_object_get(jget(res, "runs", "H3-fb25-r2"), "n"));
    cr_assert_eq(json_integer_value(json_object_get(arm, "n_total")), n1 + n2, "the arm's total: its two runs only");
    /* the verdicts on H3-fb25 against another measured arm pair its two runs, no attempt */
    json_t *v;
    size_t i;
    int paired = 0;
    json_array_foreach(json_object_get(res, "verdicts"), i, v)
    {
        const char *a = json_string_value(json_object_get(v, "a")), *b = json_string_value(json_object_get(v, "b"));
        const char *other = !strcmp(a, "H3-fb25") ? b : !strcmp(b, "H3-fb25") ? a : NULL;
        if (!other || !json_object_get(json_object_get(res, "arms"), other))
            continue;
        json_t *vr = json_object_get(v, "rounds");
        cr_assert_eq(json_array_size(vr), 2, "%s against %s: rounds", a, b);
        cr_assert_eq(json_integer_value(json_array_get(vr, 0)), 1);
        cr_assert_eq(json_integer_value(json_array_get(vr, 1)), 2);
        cr_assert_eq(json_array_size(json_object_get(v, "diffs")), 2);
        paired++;
    }
    cr_assert_gt(paired, 0, "no verdict on H3-fb25 and another tiny arm (pipeline/comparisons.tsv)");
    json_decref(res);
    json_decref(last);
}

Test(attempts, a_real_disturbance_is_kept_verified_and_listed)
{
    char hog[160], err[UT_ERRLEN];
    snprintf(hog, sizeof hog, "%s/hog-rules.tsv", out);
    cr_assert_eq(ut_write_file(hog, HOG_RULES, strlen(HOG_RULES), err, sizeof err), 0, "%s", err);
    char opts[256];
    snprintf(opts, sizeof opts, "--quiet %s", hog);
    cr_assert_eq(measure(opts), 0, "the whole schedule by the one set of rules");
    cr_assert_eq(shf("rm -r %s/results/raw/%s %s/provenance/runs/%s.json", out, RUN, out, RUN), 0);
    /* a busy loop on the measured core (core 0, measure's default) while RUN is measured */
    cr_assert_eq(shf("taskset -c 0 sh -c 'while :; do :; done' & echo $! > %s/hog.pid", out), 0);
    snprintf(opts, sizeof opts, "--quiet %s --only " RUN, hog);
    int rc = measure(opts);
    shf("kill $(cat %s/hog.pid)", out);
    cr_assert_eq(rc, 3, "RUN disturbed in every attempt by the busy loop: exit 3");
    snprintf(opts, sizeof opts, "--quiet %s", hog);
    cr_assert_eq(measure(opts), 0, "without the busy loop RUN is measured again, quiet");
    json_t *last = load("results/raw/%s/run.json", RUN);
    cr_assert(json_is_true(json_object_get(json_object_get(last, "quiet"), "quiet")), "RUN quiet at last");
    json_decref(last);
    for (int n = 1; n <= 3; n++) {
        check_attempt(n, NULL);
        json_t *rj = load("results/attempts/%s-a%d/run.json", RUN, n);
        json_t *rules_broken = json_object_get(json_object_get(rj, "quiet"), "rules");
        cr_assert_eq(json_array_size(rules_broken), 1);
        cr_assert_str_eq(json_string_value(json_array_get(rules_broken, 0)), "foreign_second_max");
        json_decref(rj);
    }
    json_t *res = collect(hog);
    cr_assert_eq(json_object_size(json_object_get(res, "attempts")), 3);
    json_decref(res);
    /* the verifier, by the same rules: every attempt checked like a run,
     * judged disturbed, counted in nothing */
    int vrc = shf("verify/build/verify --root %s --quiet %s --guesses data/guesses.tsv --comparisons "
                  "pipeline/comparisons.tsv --arms lab/arms.tsv --profiles data/profiles.tsv --out %s/results/verified.json "
                  "> %s/verify.log 2>&1",
                  out, hog, out, out);
    if (vrc)
        shf("grep MISMATCH %s/verify.log | head -20", out);
    cr_assert_eq(vrc, 0, "the verifier on a study with kept attempts");
    json_t *vj = load("results/verified.json");
    json_t *vatt = json_object_get(vj, "attempts");
    cr_assert_eq(json_object_size(vatt), 3, "verified.json: three kept attempts");
    for (int n = 1; n <= 3; n++) {
        char name[64];
        snprintf(name, sizeof name, RUN "-a%d", n);
        cr_assert(json_is_false(json_object_get(json_object_get(vatt, name), "quiet")), "verified %s quiet", name);
    }
    json_t *rounds = json_object_get(jget(vj, "arms", "H3-fb25"), "rounds");
    cr_assert_eq(json_array_size(rounds), 2, "H3-fb25's rounds: its two runs, no attempt");
    json_decref(vj);
    if (access("report/build/report", X_OK) != 0) {
        printf("attempts: report/build/report is not built (make -C report): the report's list is not checked\n");
        return;
    }
    int rrc = shf("report/build/report --root %s --arms lab/arms.tsv --templates report/templates > %s/report.log 2>&1",
                  out, out);
    if (rrc)
        shf("tail -5 %s/report.log", out);
    cr_assert_eq(rrc, 0, "the report");
    for (int n = 1; n <= 3; n++)
        cr_assert_eq(shf("grep -q '^| %s | %d | foreign_second_max | ' %s/results/report.md", RUN, n, out), 0,
                     "the report lists attempt %d of %s with the rule it broke", n, RUN);
}

Test(attempts, a_rerun_keeps_the_attempts_and_numbers_after_them_and_refuses_strays)
{
    char opts[256];
    snprintf(opts, sizeof opts, "--quiet %s --only " RUN, rules);
    cr_assert_eq(measure(opts), 3);
    char a1[65], a2[65], last[65];
    sha_of("results/attempts/" RUN "-a1/run.json", a1);
    sha_of("results/attempts/" RUN "-a2/run.json", a2);
    sha_of("results/raw/" RUN "/run.json", last);

    /* measured again (as after an interruption): attempts 1 and 2 untouched,
     * the kept disturbed run becomes -a3, three new attempts 4, 5, 6 */
    cr_assert_eq(measure(opts), 3);
    char b1[65], b2[65], b3[65];
    sha_of("results/attempts/" RUN "-a1/run.json", b1);
    sha_of("results/attempts/" RUN "-a2/run.json", b2);
    sha_of("results/attempts/" RUN "-a3/run.json", b3);
    cr_assert_str_eq(a1, b1);
    cr_assert_str_eq(a2, b2);
    cr_assert_str_eq(last, b3, "the run left disturbed moved whole to the next number");
    for (int n = 1; n <= 5; n++)
        check_attempt(n, NULL);
    cr_assert(!exists("results/attempts/%s-a6", RUN));
    json_t *rec = load("provenance/runs/%s.json", RUN);
    cr_assert_eq(json_integer_value(json_object_get(rec, "attempt")), 6, "numbered after every kept attempt");
    cr_assert_eq(json_array_size(json_object_get(rec, "earlier_attempts")), 5);
    json_decref(rec);

    /* stopped between the two renames: the folder is at -a6, its record still RUN.json */
    cr_assert_eq(shf("mv %s/results/raw/%s %s/results/attempts/%s-a6", out, RUN, out, RUN), 0);
    cr_assert_eq(measure(opts), 3);
    for (int n = 1; n <= 8; n++)
        check_attempt(n, NULL);
    rec = load("provenance/runs/%s.json", RUN);
    cr_assert_eq(json_integer_value(json_object_get(rec, "attempt")), 9);
    json_decref(rec);

    /* strays: named, refused, left where they are */
    cr_assert_eq(shf("mkdir %s/results/attempts/stray && cp -a %s/results/attempts/%s-a1 %s/results/attempts/%s-a20",
                     out, out, RUN, out, RUN),
                 0);
    cr_assert_eq(measure(opts), 2, "refused");
    char lp[300];
    snprintf(lp, sizeof lp, "%s/log", out);
    char *log = slurp(lp);
    cr_assert_not_null(strstr(log, "attempts/stray: not <run>-a<N> for a run of profile tiny's schedule"), "%s", log);
    free(log);
    cr_assert(exists("results/attempts/stray"), "a stray is not removed");
    shf("rmdir %s/results/attempts/stray && : > %s/log", out, out);
    cr_assert_eq(measure(opts), 2, "an attempt without its record refused");
    log = slurp(lp);
    cr_assert_not_null(strstr(log, RUN "-a20: attempt 20 of " RUN " has no record"), "%s", log);
    free(log);
    cr_assert(exists("results/attempts/%s-a20", RUN), "measured data is not removed");
    cr_assert(exists("results/raw/%s", RUN), "nothing measured while refused");
}
