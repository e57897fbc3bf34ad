/* The lab end to end: store, service and tester started by `build/bin/run`
 * on short runs, then the raw files read back (tests/common/rawread.h) and the
 * policies checked against the store's own record.  A test-only store with
 * frequent freezes (--freeze-share) makes the interesting cases common. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rawread.h"
#include "util.h"
#include "waits.h"

#define MS 1000000LL

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/labtestXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(lab, .init = setup, .fini = teardown, .timeout = 240);

/* Timing bounds, as in test_store.c.  A lower bound (never early) is the
 * lab's promise and always asserted.  An upper bound (on time) is the lab's
 * *and the machine's*: this shared 2-core VM now and then pauses a process
 * for milliseconds, so a scenario that was only late is run again, up to 3
 * times in all, and fails if it is late every time. */
static int lab_late;

static void lab_upper(int64_t v, int64_t below, const char *what)
{
    if (v >= below) {
        fprintf(stderr, "test_lab: %s was %lld ns (bound %lld ns); will retry\n", what, (long long)v,
                (long long)below);
        lab_late = 1;
    }
}

static void lab_retry(void (*scenario)(void), const char *name)
{
    for (int k = 0; k < 3; k++) {
        lab_late = 0;
        scenario();
        if (!lab_late)
            return;
    }
    cr_assert_fail("%s: late on 3 runs in a row", name);
}

typedef struct {
    rr_file t, s, st;
} run_files;

/* settle: how long the store runs on after the last answer (see lab/run/run.c);
 * short here except where the slot time of abandoned freezes matters. */
static void run_arm_settle(const char *arm, int round, double seconds, const char *freeze, double settle,
                           run_files *r)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "build/bin/run --arm %s --round %d --seconds %g --gate 0 --settle-s %g --raw %s %s %s > %s/log 2>&1",
             arm, round, seconds, settle, dir, freeze ? "--freeze-share" : "", freeze ? freeze : "", dir);
    int rc = system(cmd);
    char log[256];
    snprintf(log, sizeof log, "cat %s/log", dir);
    if (rc != 0)
        cr_assert_eq(system(log), 0);
    cr_assert_eq(rc, 0, "%s failed", cmd);
    char p[256];
    snprintf(p, sizeof p, "%s/%s-r%d/tester.tsv.gz", dir, arm, round);
    cr_assert_eq(rr_read(p, &r->t), 0, "%s", p);
    snprintf(p, sizeof p, "%s/%s-r%d/service.tsv.gz", dir, arm, round);
    cr_assert_eq(rr_read(p, &r->s), 0, "%s", p);
    snprintf(p, sizeof p, "%s/%s-r%d/store.tsv.gz", dir, arm, round);
    cr_assert_eq(rr_read(p, &r->st), 0, "%s", p);
    cr_assert_str_eq(r->t.kind, "tester");
    cr_assert_str_eq(r->s.kind, "service");
    cr_assert_str_eq(r->st.kind, "store");
}

static void run_arm(const char *arm, int round, double seconds, const char *freeze, run_files *r)
{
    run_arm_settle(arm, round, seconds, freeze, 0.2, r);
}

static void free_run(run_files *r)
{
    rr_free(&r->t);
    rr_free(&r->s);
    rr_free(&r->st);
}

/* Index of the service row for request id j, or -1. */
static long svc_row(const rr_file *s, int64_t j)
{
    int c = rr_col(s, "req");
    for (size_t i = 0; i < s->n; i++)
        if (s->v[c][i] == j)
            return (long)i;
    return -1;
}

/* Index of the store row for (req, attempt), or -1. */
static long store_row(const rr_file *st, int64_t req, int64_t attempt)
{
    int cr = rr_col(st, "req"), ca = rr_col(st, "attempt");
    for (size_t i = 0; i < st->n; i++)
        if (st->v[cr][i] == req && st->v[ca][i] == attempt)
            return (long)i;
    return -1;
}

static float standin_of(long row, char *kind)
{
    FILE *f = fopen("build/prep/standin.tsv", "r");
    cr_assert_not_null(f);
    char line[256], k[32];
    long r;
    float s = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%ld\t%31s\t%f", &r, k, &s) == 3 && r == row) {
            *kind = !strcmp(k, "last_known") ? 'K' : 'D';
            break;
        }
    fclose(f);
    return s;
}

Test(lab, dice_equal_across_arms_of_a_round)
{
    run_files a, b;
    run_arm("H3-fb25", 2, 1.5, NULL, &a);
    run_arm("H3-t10", 2, 1.5, NULL, &b);
    size_t checked = 0;
    for (size_t i = 0; i < a.st.n; i++) {
        int64_t req = rr_get(&a.st, "req", i), at = rr_get(&a.st, "attempt", i);
        int64_t planned = rr_get(&a.st, "planned_ns", i);
        cr_assert_eq(planned, waits_planned_ns(WAIT_H, 2, (uint32_t)req, (uint32_t)at), "req %ld",
                     (long)req);
        long k = store_row(&b.st, req, at);
        if (k >= 0) {
            cr_assert_eq(rr_get(&b.st, "planned_ns", (size_t)k), planned, "req %ld", (long)req);
            checked++;
        }
    }
    cr_assert_gt(checked, 300, "both arms saw the same requests (%zu)", checked);
    /* and the same schedule */
    cr_assert_eq(rr_get(&a.t, "sched_t", 10) - rr_get(&a.t, "sched_t", 0),
                 rr_get(&b.t, "sched_t", 10) - rr_get(&b.t, "sched_t", 0));
    free_run(&a);
    free_run(&b);
}

static void sc_t25(void)
{
    run_files r;
    run_arm("H3-t25", 1, 2, "0.2", &r);
    size_t n504 = 0;
    int64_t *lat504 = malloc(r.t.n * sizeof *lat504);
    for (size_t j = 0; j < r.t.n; j++) {
        int64_t lat = rr_get(&r.t, "answer_t", j) - rr_get(&r.t, "sched_t", j);
        /* 25 ms and a small bound: 1 ms for the median 504 and 3 ms for the
         * 95th percentile (below); for every request only 50 ms, far below a
         * freeze's 1 s, as this shared VM now and then pauses a process for
         * many ms when other work runs. */
        lab_upper(lat, 25 * MS + 50 * MS, "a request's latency");
        long st = store_row(&r.st, (int64_t)j, 0);
        cr_assert_geq(st, 0);
        int64_t planned = rr_get(&r.st, "planned_ns", (size_t)st);
        int64_t status = rr_get(&r.t, "status", j);
        if (planned > 1000 * MS) {
            cr_assert_eq(status, 504, "request %zu met a freeze", j);
            cr_assert_eq(rr_get(&r.t, "kind", j), 'E');
        }
        if (status == 504) {
            cr_assert_geq(lat, 25 * MS, "a 504 only after 25 ms");
            lat504[n504++] = lat;
        }
    }
    cr_assert_gt(n504, r.t.n / 10, "a fifth of lookups freeze: %zu of %zu", n504, r.t.n);
    qsort(lat504, n504, sizeof lat504[0], cmp_i64);
    lab_upper(lat504[n504 / 2], 26 * MS, "median 504 latency");
    lab_upper(lat504[n504 * 95 / 100], 28 * MS, "95th percentile 504 latency");
    free(lat504);
    free_run(&r);
}

Test(lab, t25_answers_504_for_frozen_lookups_and_never_late) { lab_retry(sc_t25, "t25_answers_504_for_frozen_lookups_and_never_late"); }

static void sc_fb25(void)
{
    run_files r;
    run_arm("H3-fb25", 1, 2, "0.2", &r);
    size_t standins = 0;
    for (size_t j = 0; j < r.t.n; j++) {
        long sv = svc_row(&r.s, (int64_t)j);
        cr_assert_geq(sv, 0);
        char kind = (char)rr_get(&r.t, "kind", j);
        char out0 = (char)rr_get(&r.s, "a0_out", (size_t)sv);
        int64_t a0 = rr_get(&r.s, "a0_start_t", (size_t)sv), e0 = rr_get(&r.s, "a0_end_t", (size_t)sv);
        if (out0 == 'T') {
            char want;
            float s = standin_of(rr_get(&r.t, "row", j), &want);
            cr_assert_eq(kind, want, "request %zu: stand-in kind", j);
            cr_assert(rr_float(rr_get(&r.t, "score", j)) == s, "request %zu: stand-in score", j);
            cr_assert_geq(e0 - a0, 25 * MS, "gave up only after 25 ms");
            standins++;
        } else {
            cr_assert_eq(out0, 'A');
            cr_assert_eq(kind, 'L', "request %zu", j);
            lab_upper(e0 - a0, 25 * MS, "a live answer after its 25 ms limit");
        }
        /* a frozen lookup is always a stand-in */
        long st = store_row(&r.st, (int64_t)j, 0);
        if (rr_get(&r.st, "planned_ns", (size_t)st) > 1000 * MS)
            cr_assert_eq(out0, 'T');
    }
    cr_assert_gt(standins, r.t.n / 10);
    free_run(&r);
}

Test(lab, fb25_standin_exactly_for_lookups_that_missed_25ms) { lab_retry(sc_fb25, "fb25_standin_exactly_for_lookups_that_missed_25ms"); }

static double slot_ms_per_lookup(const rr_file *st)
{
    double sum = 0;
    for (size_t i = 0; i < st->n; i++) {
        int64_t a = rr_get(st, "start_t", i), e = rr_get(st, "end_t", i);
        if (a != RR_NONE && e != RR_NONE)
            sum += (double)(e - a) / 1e6;
    }
    return sum / (double)st->n;
}

static void sc_dldown(void)
{
    run_files dl, down;
    run_arm_settle("H3-dl", 1, 2, "0.2", 2.2, &dl);
    run_arm_settle("H3-dldown", 1, 2, "0.2", 2.2, &down);
    double a = slot_ms_per_lookup(&dl.st), b = slot_ms_per_lookup(&down.st);
    cr_assert_lt(b, a / 5, "slot ms per lookup: dl %.2f, dldown %.2f", a, b);
    size_t dropped = 0;
    int64_t *over = malloc(down.st.n * sizeof *over);
    for (size_t i = 0; i < down.st.n; i++) {
        if (rr_get(&down.st, "outcome", i) != 'D')
            continue;
        dropped++;
        int64_t budget = rr_get(&down.st, "budget_ns", i);
        int64_t held = rr_get(&down.st, "end_t", i) - rr_get(&down.st, "arrive_t", i);
        cr_assert(budget > 0 && budget <= 23 * MS);
        /* held is read back from the raw file's whole microseconds (lab/RAWFORMAT.md:
         * each time truncated to a µs offset of the one before it), the budget is in ns:
         * a drop on time may read up to 2 µs short (seen: 22,967,000 ns against 22,967,488) */
        cr_assert(held >= budget - 2000, "dropped after %ld ns, budget %ld", (long)held, (long)budget);
        lab_upper(held - budget, 20 * MS, "a drop's overshoot");
        over[dropped - 1] = held - budget;
    }
    cr_assert_gt(dropped, down.t.n / 10, "%zu dropped", dropped);
    /* on time: the median drop comes within 1 ms of the budget (the bound on
     * each is loose, as this shared VM sometimes pauses a process) */
    qsort(over, dropped, sizeof over[0], cmp_i64);
    lab_upper(over[dropped / 2], 1 * MS, "median overshoot");
    free(over);
    for (size_t i = 0; i < dl.st.n; i++)
        cr_assert_neq(rr_get(&dl.st, "outcome", i), 'D', "dl keeps the deadline to itself");
    free_run(&dl);
    free_run(&down);
}

Test(lab, dldown_makes_the_store_drop_at_the_deadline) { lab_retry(sc_dldown, "dldown_makes_the_store_drop_at_the_deadline"); }

/* H3-fbq999, the false-timeout rule: the limit per try starts at 25 ms and
 * becomes the p99.9 of the last 4,000 answered lookups, late answers too.
 * With frozen lookups common, no answer of a freeze can be back before 1 s:
 * until then every lookup given up on waited its 25 ms; once five freezes
 * have answered late the limit is above 1 s and frozen lookups are waited
 * on, so a lookup of the last second waits over 900 ms. */
static void sc_fbq999(void)
{
    run_files r;
    run_arm("H3-fbq999", 1, 3, "0.2", &r);
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < r.s.n; i++)
        if (rr_get(&r.s, "a0_start_t", i) < t0)
            t0 = rr_get(&r.s, "a0_start_t", i);
    size_t early_t = 0, long_waits = 0;
    int64_t *early = malloc(r.s.n * sizeof *early);
    for (size_t i = 0; i < r.s.n; i++) {
        cr_assert_eq(rr_get(&r.s, "lookups", i), 1, "one plain try");
        int64_t a0 = rr_get(&r.s, "a0_start_t", i), e0 = rr_get(&r.s, "a0_end_t", i);
        char out0 = (char)rr_get(&r.s, "a0_out", i);
        if (e0 == RR_NONE)
            continue;
        if (a0 - t0 < 900 * MS && out0 == 'T') {
            cr_assert_geq(e0 - a0, 25 * MS, "gave up only after its 25 ms");
            cr_assert_lt(e0 - a0, 200 * MS, "an early limit far below a freeze: %lld ns", (long long)(e0 - a0));
            early[early_t++] = e0 - a0;
        }
        if (a0 - t0 >= 1500 * MS && e0 - a0 > 900 * MS)
            long_waits++;
    }
    cr_assert_gt(early_t, 20, "frozen lookups of the first 0.9 s given up at 25 ms: %zu", early_t);
    qsort(early, early_t, sizeof early[0], cmp_i64);
    lab_upper(early[early_t / 2], 26 * MS, "the median early try given up on");
    free(early);
    cr_assert_gt(long_waits, 0, "the limit climbed above 900 ms once freezes answered late");
    free_run(&r);
}

Test(lab, fbq999_limit_climbs_from_25ms_with_late_answers) { lab_retry(sc_fbq999, "fbq999_limit_climbs_from_25ms_with_late_answers"); }

static void sc_r2(void)
{
    run_files r;
    run_arm("H3-r2", 1, 2, "0.2", &r);
    size_t retried = 0;
    int64_t *gaps = malloc(2 * r.s.n * sizeof *gaps);
    for (size_t i = 0; i < r.s.n; i++) {
        int64_t n = rr_get(&r.s, "lookups", i), req = rr_get(&r.s, "req", i);
        for (int64_t k = 1; k < n; k++) {
            long a = store_row(&r.st, req, k - 1), b = store_row(&r.st, req, k);
            cr_assert(a >= 0 && b >= 0, "request %ld attempt %ld reached the store", (long)req, (long)k);
            cr_assert_eq(rr_get(&r.st, "planned_ns", (size_t)b),
                         waits_planned_ns_p(WAIT_H, 0.2, 1, (uint32_t)req, (uint32_t)k));
            /* retry k was sent when try k-1 gave up, 25 ms after it started */
            char sk[40], ek[40];
            snprintf(sk, sizeof sk, "a%ld_start_t", (long)k);
            snprintf(ek, sizeof ek, "a%ld_start_t", (long)(k - 1));
            int64_t gap = rr_get(&r.s, sk, i) - rr_get(&r.s, ek, i);
            cr_assert_geq(gap, 25 * MS, "gap %ld", (long)gap);
            gaps[retried++] = gap;
        }
    }
    cr_assert_gt(retried, r.s.n / 10);
    qsort(gaps, retried, sizeof gaps[0], cmp_i64);
    lab_upper(gaps[retried / 2], 26 * MS, "median gap before a retry");
    free(gaps);
    free_run(&r);
}

Test(lab, r2_retries_with_fresh_dice) { lab_retry(sc_r2, "r2_retries_with_fresh_dice"); }

static void sc_hedge(void)
{
    run_files r;
    run_arm("H3-hedge", 1, 2, "0.2", &r);
    size_t hedged = 0;
    int64_t *delay = malloc(r.s.n * sizeof *delay);
    for (size_t i = 0; i < r.s.n; i++) {
        int64_t arrive = rr_get(&r.s, "arrive_t", i);
        int64_t a1 = rr_get(&r.s, "a1_start_t", i), e0 = rr_get(&r.s, "a0_end_t", i);
        if (a1 == RR_NONE) {
            lab_upper(e0 - arrive, 10 * MS + 1 * MS, "no hedge: the first answer");
            continue;
        }
        cr_assert_geq(a1 - arrive, 10 * MS, "hedge after %ld ns", (long)(a1 - arrive));
        cr_assert_leq(rr_get(&r.s, "lookups", i), 2);
        delay[hedged++] = a1 - arrive;
    }
    cr_assert_gt(hedged, r.s.n / 10);
    /* On time, too: this shared VM sometimes pauses a process for a few ms,
     * so the bound is on the median, not on every one. */
    qsort(delay, hedged, sizeof delay[0], cmp_i64);
    lab_upper(delay[hedged / 2], 11 * MS, "median hedge delay");
    free(delay);
    free_run(&r);
}

Test(lab, hedge_sends_a_second_lookup_only_after_10ms) { lab_retry(sc_hedge, "hedge_sends_a_second_lookup_only_after_10ms"); }

/* run's bad option values: exit 2, the option and the value named, nothing
 * made under --raw.  "--gate yes" used to be read as 0 (no idle gate). */
Test(lab, run_refuses_bad_option_values)
{
    const struct {
        const char *args, *want;
    } bad[] = {
        {"--gate yes", "option --gate: \"yes\" is not 0 or 1"},
        {"--round 1x", "option --round: \"1x\""},
        {"--seconds 1e400", "option --seconds: \"1e400\""},
        {"--tester-nice -30", "option --tester-nice: \"-30\""},
        {"--cores 0,,1", "option --cores: \"0,,1\""},
    };
    char raw[128], cmd[512], log[128], *text = NULL, err[UT_ERRLEN];
    size_t n;
    snprintf(raw, sizeof raw, "%s/raw", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "build/bin/run --arm H3-fb25 --round 1 --seconds 1 --raw %s %s > %s 2>&1", raw,
                 bad[i].args, log);
        int rc = system(cmd);
        cr_assert_eq(ut_read_file(log, &text, &n, err, sizeof err), 0, "%s", err);
        cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "%s: status %d: %s", bad[i].args, rc, text);
        cr_assert(strstr(text, bad[i].want), "%s: %s", bad[i].args, text);
        free(text);
        cr_assert_neq(access(raw, F_OK), 0, "%s: run made %s", bad[i].args, raw);
    }
}

/* arm_spec holds every column of lab/arms.tsv's header line, by name, and
 * nothing else; pause as its word. */
static void check_arm_spec(json_t *spec, const char *arm)
{
    FILE *f = fopen("lab/arms.tsv", "r");
    cr_assert_not_null(f);
    char line[1024];
    do
        cr_assert_not_null(fgets(line, sizeof line, f));
    while (line[0] == '#');
    fclose(f);
    line[strcspn(line, "\n")] = 0;
    size_t ncols = 0;
    for (char *p = strtok(line, "\t"); p; p = strtok(NULL, "\t"), ncols++)
        cr_assert_not_null(json_object_get(spec, p), "%s: arm_spec has no %s", arm, p);
    cr_assert_eq(json_object_size(spec), ncols, "%s: arm_spec has %zu fields, the header %zu", arm,
                 json_object_size(spec), ncols);
    cr_assert_eq(ncols, 28);
    cr_assert_str_eq(json_string_value(json_object_get(spec, "name")), arm);
}

/* run.json's `fault` as lab/RAWFORMAT.md says, by hand for a 1.5 s run
 * (the default window is [S/3, 2S/3) = [0.5 s, 1 s)), and the six files of
 * a run folder, each event file listed in `files` with its sha256; one
 * store, and arm_spec with every column. */
Test(lab, run_json_fault_and_the_six_files)
{
    const struct {
        const char *arm, *name;
        int window;
        long long from, to; /* to -1: null (to the end of the run) */
    } want[] = {
        {"H3-fb25-down", "down", 1, 500000000LL, 1000000000LL},
        {"H3-fb25-never", "never", 1, 500000000LL, -1},
        {"H3-fb25-flaky", "flaky", 0, 0, 0},
        {"H3-fb25", "none", 0, 0, 0},
    };
    const char *files[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz", "events.tsv.gz", "machine.tsv.gz"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char cmd[512], path[256];
        snprintf(cmd, sizeof cmd,
                 "build/bin/run --arm %s --round 1 --seconds 1.5 --gate 0 --settle-s 0.2 --raw %s "
                 "--quiet tests/quiet_off.tsv > %s/log 2>&1",
                 want[i].arm, dir, dir);
        int rc = system(cmd);
        if (rc != 0) {
            snprintf(cmd, sizeof cmd, "cat %s/log", dir);
            cr_assert_eq(system(cmd), 0);
        }
        cr_assert_eq(rc, 0, "%s: run failed", want[i].arm);
        snprintf(path, sizeof path, "%s/%s-r1", dir, want[i].arm);
        DIR *d = opendir(path);
        cr_assert_not_null(d, "%s", path);
        int nf = 0;
        struct dirent *e;
        while ((e = readdir(d)))
            nf += e->d_name[0] != '.';
        closedir(d);
        cr_assert_eq(nf, 6, "%s holds %d files", path, nf);
        snprintf(path, sizeof path, "%s/%s-r1/run.json", dir, want[i].arm);
        json_error_t je;
        json_t *r = json_load_file(path, 0, &je);
        cr_assert_not_null(r, "%s: %s", path, je.text);
        json_t *f = json_object_get(r, "fault");
        cr_assert_eq(json_integer_value(json_object_get(r, "stores")), 1);
        /* the front door's timeouts the service was given (DESIGN.md 5.2): 10 s, and 300 s for a short run */
        cr_assert_eq(json_real_value(json_object_get(r, "header_timeout_s")), 10.0, "%s", want[i].arm);
        cr_assert_eq(json_real_value(json_object_get(r, "idle_timeout_s")), 300.0, "%s", want[i].arm);
        check_arm_spec(json_object_get(r, "arm_spec"), want[i].arm);
        cr_assert_str_eq(json_string_value(json_object_get(f, "name")), want[i].name);
        cr_assert_str_eq(json_string_value(json_object_get(f, "spec")), want[i].name);
        cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "arm_spec"), "fault")), want[i].name);
        if (want[i].window) {
            cr_assert_eq(json_object_size(f), 4, "%s: fault has %zu fields", want[i].arm, json_object_size(f));
            cr_assert_eq(json_integer_value(json_object_get(f, "from_ns")), want[i].from, "%s", want[i].arm);
            json_t *to = json_object_get(f, "to_ns");
            if (want[i].to < 0)
                cr_assert(json_is_null(to), "%s: to_ns not null", want[i].arm);
            else
                cr_assert_eq(json_integer_value(to), want[i].to, "%s", want[i].arm);
        } else {
            cr_assert_eq(json_object_size(f), 3, "%s: fault has %zu fields", want[i].arm, json_object_size(f));
            json_t *w = json_object_get(f, "window");
            cr_assert(w && json_is_null(w), "%s: window not null", want[i].arm);
        }
        json_t *jf = json_object_get(r, "files");
        cr_assert_eq(json_object_size(jf), 5);
        for (int k = 0; k < 5; k++) {
            char fp[300], sha[65], err[UT_ERRLEN];
            uint64_t size;
            snprintf(fp, sizeof fp, "%s/%s-r1/%s", dir, want[i].arm, files[k]);
            cr_assert_eq(ut_sha256_file(fp, sha, &size, err, sizeof err), 0, "%s", err);
            json_t *one = json_object_get(jf, files[k]);
            cr_assert_str_eq(json_string_value(json_object_get(one, "sha256")), sha, "%s", fp);
            cr_assert_eq(json_integer_value(json_object_get(one, "size")), (json_int_t)size, "%s", fp);
        }
        json_decref(r);
    }
}

/* A store killed outright mid-run: run exits 4 with one line naming the
 * store and how it died, and keeps nothing (no folder, no temporary one).
 * Whether the service is named too (the service then may or may not have
 * stayed up) is not asserted. */
Test(lab, store_killed_mid_run_fails_the_run_with_exit_4_and_keeps_nothing)
{
    char raw[128], cmd[512], log[128], *text = NULL, err[UT_ERRLEN];
    size_t n;
    snprintf(raw, sizeof raw, "%s/raw", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(cmd, sizeof cmd,
             "build/bin/run --arm H3-fb25 --round 1 --seconds 2 --gate 0 --settle-s 0.2 --raw %s "
             "--quiet tests/quiet_off.tsv --test-kill-store-after-s 0.5 > %s 2>&1",
             raw, log);
    int64_t t = ut_mono_ns();
    int rc = system(cmd);
    int64_t took = ut_mono_ns() - t;
    cr_assert_eq(ut_read_file(log, &text, &n, err, sizeof err), 0, "%s", err);
    cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 4, "status %d: %s", rc, text);
    const char *want = "run: H3-fb25-r1: store killed by signal 9 during the run";
    char *line = strstr(text, want);
    cr_assert_not_null(line, "%s", text);
    size_t len = strcspn(line, "\n");
    cr_assert(len >= 14 && !strncmp(line + len - 14, "; nothing kept", 14), "%.*s", (int)len, line);
    int lines_naming = 0; /* one line names who died, however many died */
    for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t l = strcspn(p, "\n");
        lines_naming += memmem(p, l, "during the run", 14) != NULL;
    }
    cr_assert_eq(lines_naming, 1, "%s", text);
    /* the tester ran its whole schedule (2 s) though the store was gone */
    cr_assert_geq(took, 2000000000LL, "run took %lld ns", (long long)took);
    DIR *d = opendir(raw);
    int left = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        left += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    cr_assert_eq(left, 0, "%s holds %d entries after a failed run", raw, left);
    free(text);
}

/* Lookups of service.tsv.gz (one try each) sent to `store` and in flight
 * at t: start <= t < end, leaving out request row `skip`. */
static int in_flight(const rr_file *s, int64_t store, int64_t t, size_t skip)
{
    int n = 0;
    for (size_t i = 0; i < s->n; i++) {
        int64_t out = rr_get(s, "a0_out", i);
        if (i == skip || rr_get(s, "store", i) != store || out == RR_NONE || strchr("ROBY", (int)out))
            continue;
        n += rr_get(s, "a0_start_t", i) <= t && t < rr_get(s, "a0_end_t", i);
    }
    return n;
}

/* An arm with a second store (H3-bulk-hang: store2 50, 8 places each, the
 * first store in hang through [0.5 s, 1 s)): seven files, run.json's
 * stores 2, store2 in files, cpu and peak_rss_kb; the second store's log
 * holds the lookups of its rows only, never a fault outcome; the first
 * store's hang shows as H outcomes, and B exactly when its 8 places were
 * taken, never more than 8 in flight. */
Test(lab, second_store_run_leaves_seven_files)
{
    char cmd[512], path[256];
    snprintf(cmd, sizeof cmd,
             "build/bin/run --arm H3-bulk-hang --round 1 --seconds 1.5 --gate 0 --settle-s 0.2 --raw %s "
             "--quiet tests/quiet_off.tsv > %s/log 2>&1",
             dir, dir);
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(cmd, sizeof cmd, "cat %s/log", dir);
        cr_assert_eq(system(cmd), 0);
    }
    cr_assert_eq(rc, 0, "run failed");
    snprintf(path, sizeof path, "%s/H3-bulk-hang-r1", dir);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    int nf = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        nf += e->d_name[0] != '.';
    closedir(d);
    cr_assert_eq(nf, 7, "%s holds %d files", path, nf);
    snprintf(path, sizeof path, "%s/H3-bulk-hang-r1/run.json", dir);
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    cr_assert_not_null(r, "%s: %s", path, je.text);
    cr_assert_eq(json_integer_value(json_object_get(r, "stores")), 2);
    check_arm_spec(json_object_get(r, "arm_spec"), "H3-bulk-hang");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "arm_spec"), "store2")), 50);
    json_t *jf = json_object_get(r, "files");
    cr_assert_eq(json_object_size(jf), 6);
    const char *files[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz", "store2.tsv.gz", "events.tsv.gz",
                           "machine.tsv.gz"};
    for (int k = 0; k < 6; k++) {
        char fp[300], sha[65], err[UT_ERRLEN];
        uint64_t size;
        snprintf(fp, sizeof fp, "%s/H3-bulk-hang-r1/%s", dir, files[k]);
        cr_assert_eq(ut_sha256_file(fp, sha, &size, err, sizeof err), 0, "%s", err);
        json_t *one = json_object_get(jf, files[k]);
        cr_assert_str_eq(json_string_value(json_object_get(one, "sha256")), sha, "%s", fp);
    }
    json_t *cpu = json_object_get(r, "cpu"), *rss = json_object_get(r, "peak_rss_kb");
    cr_assert(json_is_number(json_object_get(json_object_get(cpu, "store2"), "share")));
    cr_assert_gt(json_integer_value(json_object_get(rss, "store2")), 0);
    json_decref(r);

    rr_file s, st[2];
    snprintf(path, sizeof path, "%s/H3-bulk-hang-r1/service.tsv.gz", dir);
    cr_assert_eq(rr_read(path, &s), 0);
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/H3-bulk-hang-r1/%s", dir, k ? "store2.tsv.gz" : "store.tsv.gz");
        cr_assert_eq(rr_read(path, &st[k]), 0, "%s", path);
    }
    size_t held = 0, refused = 0, on2 = 0;
    for (size_t i = 0; i < s.n; i++) {
        int64_t row = rr_get(&s, "row", i), req = rr_get(&s, "req", i), store = rr_get(&s, "store", i);
        int want = ut_u64_unit(ut_hash4(0x53544f524532ULL, (uint64_t)row, 0, 0)) * 100 < 50 ? 2 : 1;
        cr_assert_eq(store, want, "request %lld row %lld", (long long)req, (long long)row);
        on2 += store == 2;
        int64_t out = rr_get(&s, "a0_out", i);
        int64_t t = rr_get(&s, "a0_start_t", i);
        if (out == 'B') {
            refused++;
            cr_assert_eq(store, 1, "only the hanging store's compartment fills");
            cr_assert_lt(store_row(&st[0], req, 0), 0, "a refused lookup reached the store");
            cr_assert_eq(in_flight(&s, 1, t, i), 8, "request %lld refused with %d in flight", (long long)req,
                         in_flight(&s, 1, t, i));
        } else {
            cr_assert_lt(in_flight(&s, store, t, i), 8, "request %lld sent with 8 in flight", (long long)req);
            cr_assert_geq(store_row(&st[want - 1], req, 0), 0, "request %lld: not in store %d's log", (long long)req,
                          want);
            cr_assert_lt(store_row(&st[2 - want], req, 0), 0, "request %lld in the other store's log", (long long)req);
        }
    }
    for (size_t i = 0; i < st[0].n; i++)
        held += rr_get(&st[0], "outcome", i) == 'H';
    for (size_t i = 0; i < st[1].n; i++)
        cr_assert(strchr("AP", (int)rr_get(&st[1], "outcome", i)), "the second store has no fault");
    cr_assert(on2 > s.n / 4 && on2 < s.n * 3 / 4, "%zu of %zu on the second store", on2, s.n);
    cr_assert_geq(held, 8, "the first store held at least the compartment's places: %zu", held);
    cr_assert_gt(refused, 20, "about a third of the window's 75 requests on the first store: %zu", refused);
    rr_free(&s);
    rr_free(&st[0]);
    rr_free(&st[1]);
}

/* The second store killed mid-run: exit 4 naming it, nothing kept. */
Test(lab, second_store_killed_mid_run_is_exit_4)
{
    char raw[128], cmd[512], log[128], *text = NULL, err[UT_ERRLEN];
    size_t n;
    snprintf(raw, sizeof raw, "%s/raw", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(cmd, sizeof cmd,
             "build/bin/run --arm H3-bulk-hang --round 1 --seconds 1 --gate 0 --settle-s 0.2 --raw %s "
             "--quiet tests/quiet_off.tsv --test-kill-store2-after-s 0.3 > %s 2>&1",
             raw, log);
    int rc = system(cmd);
    cr_assert_eq(ut_read_file(log, &text, &n, err, sizeof err), 0, "%s", err);
    cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 4, "status %d: %s", rc, text);
    cr_assert(strstr(text, "run: H3-bulk-hang-r1: second store killed by signal 9 during the run"), "%s", text);
    cr_assert_null(strstr(text, "run: H3-bulk-hang-r1: store killed"), "%s", text);
    free(text);
    DIR *d = opendir(raw);
    int left = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        left += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    cr_assert_eq(left, 0, "%s holds %d entries after a failed run", raw, left);
}

/* Correlated slowness (docs/DESIGN.md 5.9): a hedge2 arm in a 3 s run, the
 * window [1 s, 2 s).  Every hedge (attempt 1) has its row in store2.tsv.gz
 * and none in store.tsv.gz, every first lookup the reverse, the service's
 * `store` column 1 throughout.  From the stores' own ns logs (kept with
 * --test-keep-logs, so that planned_ns is what each store planned, not
 * format 4's reconstruction): a lookup arriving in the window at store 1
 * planned the dice + 20 ms, outside it the dice; store 2 likewise under
 * slowboth, and never slowed under slow; an answered lookup held its slot
 * at least that long (always), and not much longer (lab_upper). */
static const char *slow_arm;

static void sc_hedge2_slow(void)
{
    const char *arm = slow_arm;
    int both = !strcmp(arm, "L3-hedge2-slowboth");
    char cmd[768], path[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s/%s-r1 %s/logs", dir, arm, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "build/bin/run --arm %s --round 1 --seconds 3 --gate 0 --settle-s 0.2 --raw %s "
             "--quiet tests/quiet_off.tsv --test-keep-logs %s/logs > %s/log 2>&1",
             arm, dir, dir, dir);
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(path, sizeof path, "cat %s/log", dir);
        cr_assert_eq(system(path), 0);
    }
    cr_assert_eq(rc, 0, "%s failed", cmd);
    snprintf(path, sizeof path, "%s/%s-r1/run.json", dir, arm);
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    cr_assert_not_null(r, "%s: %s", path, je.text);
    cr_assert_eq(json_integer_value(json_object_get(r, "stores")), 2);
    check_arm_spec(json_object_get(r, "arm_spec"), arm);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "arm_spec"), "hedge2")), 1);
    int64_t t0 = json_integer_value(json_object_get(r, "t0_ns"));
    json_t *jf = json_object_get(r, "fault");
    cr_assert_str_eq(json_string_value(json_object_get(jf, "name")), both ? "slowboth" : "slow");
    int64_t from = json_integer_value(json_object_get(jf, "from_ns")), to = json_integer_value(json_object_get(jf, "to_ns"));
    cr_assert(from == 1000 * MS && to == 2000 * MS, "window [%lld, %lld)", (long long)from, (long long)to);
    json_decref(r);

    rr_file s, st[2], lg[2];
    snprintf(path, sizeof path, "%s/%s-r1/service.tsv.gz", dir, arm);
    cr_assert_eq(rr_read(path, &s), 0, "%s", path);
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s-r1/%s", dir, arm, k ? "store2.tsv.gz" : "store.tsv.gz");
        cr_assert_eq(rr_read(path, &st[k]), 0, "%s", path);
        snprintf(path, sizeof path, "%s/logs/%s", dir, k ? "store2.log.gz" : "store.log.gz");
        cr_assert_eq(rr_read(path, &lg[k]), 0, "%s", path);
    }
    size_t hedged = 0;
    for (size_t i = 0; i < s.n; i++) {
        int64_t req = rr_get(&s, "req", i);
        cr_assert_eq(rr_get(&s, "store", i), 1, "request %lld: the store column is the first lookup's",
                     (long long)req);
        if (rr_get(&s, "a0_start_t", i) != RR_NONE) {
            cr_assert_geq(store_row(&st[0], req, 0), 0, "request %lld: a0 not in store.tsv.gz", (long long)req);
            cr_assert_lt(store_row(&st[1], req, 0), 0, "request %lld: a0 in store2.tsv.gz", (long long)req);
        }
        if (rr_get(&s, "a1_start_t", i) == RR_NONE)
            continue;
        hedged++;
        cr_assert_geq(store_row(&st[1], req, 1), 0, "request %lld: a1 not in store2.tsv.gz", (long long)req);
        cr_assert_lt(store_row(&st[0], req, 1), 0, "request %lld: a1 in store.tsv.gz", (long long)req);
    }
    /* in the window every request is still waiting at 10 ms (the dice + 20 ms) */
    cr_assert_gt(hedged, 200, "%zu of %zu requests hedged", hedged, s.n);
    for (int k = 0; k < 2; k++) {
        int slowed = k == 0 || both;
        size_t in = 0, out = 0, nover = 0;
        int64_t *over = malloc((lg[k].n + 1) * sizeof *over);
        for (size_t i = 0; i < lg[k].n; i++) {
            int64_t req = rr_get(&lg[k], "req", i), att = rr_get(&lg[k], "attempt", i);
            int64_t arrive = rr_get(&lg[k], "arrive_t", i), t = arrive - t0;
            int win = t >= from && t < to;
            int64_t dice = waits_planned_ns(WAIT_L, 1, (uint32_t)req, (uint32_t)att);
            int64_t want = dice + (win && slowed ? 20 * MS : 0);
            cr_assert_eq(rr_get(&lg[k], "planned_ns", i), want, "store %d, request %lld attempt %lld at %lld ns: "
                         "planned %lld, the dice %lld", k + 1, (long long)req, (long long)att, (long long)t,
                         (long long)rr_get(&lg[k], "planned_ns", i), (long long)dice);
            cr_assert_eq(att, k, "store %d holds attempt %d only", k + 1, k);
            in += win;
            out += !win;
            if (rr_get(&lg[k], "outcome", i) == 'A') {
                int64_t held = rr_get(&lg[k], "end_t", i) - rr_get(&lg[k], "start_t", i);
                cr_assert_geq(held, want, "store %d: a slot held %lld ns, planned %lld", k + 1, (long long)held,
                              (long long)want);
                over[nover++] = held - want;
            }
        }
        cr_assert_gt(in, 200, "store %d: %zu lookups in the window", k + 1, in);
        cr_assert_gt(out, k ? 5 : 400, "store %d: %zu lookups outside it", k + 1, out);
        cr_assert_gt(nover, 0);
        qsort(over, nover, sizeof over[0], cmp_i64);
        lab_upper(over[nover / 2], 2 * MS, "the median slot held beyond its plan");
        free(over);
    }
    rr_free(&s);
    for (int k = 0; k < 2; k++) {
        rr_free(&st[k]);
        rr_free(&lg[k]);
    }
}

Test(lab, hedge2_slowboth_slows_both_copies_and_sends_the_hedge_to_store2)
{
    slow_arm = "L3-hedge2-slowboth";
    lab_retry(sc_hedge2_slow, "hedge2_slowboth_slows_both_copies_and_sends_the_hedge_to_store2");
}

Test(lab, hedge2_slow_slows_the_first_store_only)
{
    slow_arm = "L3-hedge2-slow";
    lab_retry(sc_hedge2_slow, "hedge2_slow_slows_the_first_store_only");
}
