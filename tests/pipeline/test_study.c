/* A whole study end to end on the tiny profile: prepare's registration,
 * measure, collect into a private PostgreSQL, and the independent verifier,
 * which must find 0 mismatches and 0 secrets; then a tampered number in
 * results.json is caught.  The tiny profile's outage arm (H3-r2-down) is
 * checked against what a store that is down must give.  The closed-loop arm
 * runs 0.5 s (measure --closed-s): its own length in the schedule, its
 * run.json and its record, and the verifier holds each run to its own.
 * provenance.md is written from the study's records: a row per stage and
 * per run. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "tsh.h"

static double fig(json_t *run, const char *name)
{
    json_t *v = json_object_get(run, name);
    cr_assert(json_is_number(v), "%s is not a number", name);
    return json_number_value(v);
}

/* The tiny profile's H3-r2-down runs, measured for real: the window's
 * phases add up, no request is lost, and while the store is down each
 * request tries three lookups, each answered unavailable (E) at once. */
static void check_down_runs(const char *out)
{
    char path[256];
    snprintf(path, sizeof path, "%s/results/results.json", out);
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    cr_assert_not_null(r, "%s: %s", path, je.text);
    for (int round = 1; round <= 2; round++) {
        char name[64];
        snprintf(name, sizeof name, "H3-r2-down-r%d", round);
        json_t *run = json_object_get(json_object_get(r, "runs"), name);
        cr_assert_not_null(run, "%s in results.json", name);
        double n = fig(run, "n"), dr = fig(run, "during_requests"), dl = fig(run, "during_lookups");
        cr_assert_eq(fig(run, "before_requests") + dr + fig(run, "after_requests"), n, "%s: phases add up", name);
        cr_assert_eq(fig(run, "lost"), 0, "%s: nothing lost", name);
        /* the window is [1/3 s, 2/3 s) of the 1 s schedule: about 100 requests */
        cr_assert(dr >= 50 && dr <= 160, "%s: %g requests in the window", name, dr);
        /* at the edges a try may straddle F or U: a few lookups either way */
        cr_assert(dl >= 3 * dr - 3 && dl <= 3 * dr + 3, "%s: %g lookups for %g requests", name, dl, dr);
        cr_assert(fig(run, "during_live") <= 2, "%s: hardly a live answer while down", name);
        double e = fig(json_object_get(run, "store_outcomes"), "E");
        cr_assert(e >= dl - 3 && e <= dl + 3, "%s: %g unavailable for %g lookups in the window", name, e, dl);
        cr_assert_eq(fig(run, "retried_permanent"), 0);
        cr_assert(fig(run, "first_live_after_ms") < 100, "%s: live again soon after the window", name);
    }
    json_decref(r);
}

/* a number of a JSON file under out */
static double num_at(const char *out, const char *file, const char *key)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", out, file);
    json_t *r = json_load_file(path, 0, NULL);
    cr_assert_not_null(r, "%s", path);
    double v = fig(r, key);
    json_decref(r);
    return v;
}

/* Z-capacity ran 0.5 s, the others the schedule's 1 s: run.json and record */
static void check_lengths(const char *out)
{
    char path[256], line[512] = "";
    snprintf(path, sizeof path, "%s/results/schedule.tsv", out);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    const char *want = "# lab-schedule 2: profile tiny, 2 rounds; open 8 arms x 2 rounds x 1 s, capacity 1 arm x 2 "
                       "rounds x 0.5 s (registered 1) (data/profiles.tsv with results/deviations.tsv); ";
    cr_assert(!strncmp(line, want, strlen(want)), "%s", line);
    /* measure's estimate before the first run, gate off, settling 0.3 s:
     * 16 runs of 1 + 0.3 + 1 s and 2 of 0.5 + 0.3 + 1 s, 40.4 s */
    snprintf(path, sizeof path, "%s/log", out);
    f = fopen(path, "r");
    cr_assert_not_null(f);
    int seen = 0;
    while (fgets(line, sizeof line, f))
        seen += strstr(line, "capacity 1 arm x 2 rounds x 0.5 s (registered 1); departures in "
                             "results/deviations.tsv); 0 complete already, kept; 18 to measure (about 0:40,") != NULL;
    fclose(f);
    cr_assert_eq(seen, 1, "measure's first line with its estimate");
    const char *runs[] = {"Z-capacity-r1", "Z-capacity-r2", "F3-none-r1", "H3-r2-down-r2"};
    for (int i = 0; i < 4; i++) {
        char rj[128], rec[128];
        snprintf(rj, sizeof rj, "results/raw/%s/run.json", runs[i]);
        snprintf(rec, sizeof rec, "provenance/runs/%s.json", runs[i]);
        double want = i < 2 ? 0.5 : 1.0;
        cr_assert_eq(num_at(out, rj, "seconds"), want, "%s", rj);
        cr_assert_eq(num_at(out, rec, "seconds"), want, "%s", rec);
    }
}

/* The lines of the table that follows head (its header and rule not counted). */
static int table_rows(const char *md, const char *head)
{
    const char *p = strstr(md, head);
    cr_assert_not_null(p, "%s in provenance.md", head);
    p += strlen(head);
    int rows = -2;
    for (; *p == '|'; p = strchr(p, '\n') + 1)
        rows++;
    return rows;
}

/* results/provenance.md: every stage record and every run record (not the
 * attempts) has its row; the first run's start is known. */
static void check_provenance_md(const char *out)
{
    char path[256];
    snprintf(path, sizeof path, "%s/provenance/runs", out);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    int runs = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        runs += strstr(e->d_name, ".json") && !strstr(e->d_name, ".attempt-") && !strstr(e->d_name, ".tmp.");
    closedir(d);
    cr_assert_geq(runs, 4);
    snprintf(path, sizeof path, "%s/results/provenance.md", out);
    char *md = slurp(path);
    cr_assert_eq(table_rows(md, "## Stages\n\n"), 3, "prepare, measure, collect");
    cr_assert_not_null(strstr(md, "\n| prepare | "));
    cr_assert_not_null(strstr(md, "\n| measure | "));
    cr_assert_not_null(strstr(md, "\n| collect | "));
    cr_assert_eq(table_rows(md, "## Runs\n\n"), runs);
    cr_assert_not_null(strstr(md, "; the first run started 20"));
    cr_assert_not_null(strstr(md, "\n## The machine\n\n"));
    free(md);
}

/* The tester's lateness of a real open-loop run, as collect gives it
 * (late_p50_us, late_p99_us, late_max_us), against the format 4 file read
 * by hand: send_us is send_t - sched_t in whole us (lab/RAWFORMAT.md), the
 * percentiles interpolated at h = (n - 1) p over the requests sent. */
static void check_lateness(const char *out, const char *name)
{
    char path[256], line[512];
    snprintf(path, sizeof path, "%s/results/raw/%s/tester.tsv.gz", out, name);
    gzFile gz = gzopen(path, "rb");
    cr_assert_not_null(gz, "%s", path);
    size_t n = 0, cap = 1024;
    double *late = malloc(cap * sizeof *late);
    for (int k = 0; gzgets(gz, line, sizeof line); k++) {
        if (k < 2 || line[0] == '-')
            continue; /* line 1 and 2, and a request never sent */
        if (n == cap)
            late = realloc(late, (cap *= 2) * sizeof *late);
        late[n++] = (double)strtoll(line, NULL, 10);
    }
    gzclose(gz);
    cr_assert_gt(n, 10, "%s: requests sent", path);
    for (size_t i = 1; i < n; i++) /* insertion sort: a few hundred */
        for (size_t j = i; j > 0 && late[j - 1] > late[j]; j--) {
            double t = late[j];
            late[j] = late[j - 1];
            late[j - 1] = t;
        }
    double want[3], q[2] = {0.5, 0.99};
    for (int k = 0; k < 2; k++) {
        double h = (double)(n - 1) * q[k];
        size_t f = (size_t)h;
        want[k] = late[f] + (h - (double)f) * (late[f + 1 < n ? f + 1 : f] - late[f]);
    }
    want[2] = late[n - 1];
    free(late);
    snprintf(path, sizeof path, "%s/results/results.json", out);
    json_t *r = json_load_file(path, 0, NULL);
    json_t *run = json_object_get(json_object_get(r, "runs"), name);
    cr_assert_not_null(run, "%s in results.json", name);
    const char *figs[3] = {"late_p50_us", "late_p99_us", "late_max_us"};
    for (int k = 0; k < 3; k++)
        cr_assert_float_eq(fig(run, figs[k]), want[k], 1e-6, "%s %s: collect %.9g, from send_us %.9g", name, figs[k],
                           fig(run, figs[k]), want[k]);
    json_decref(r);
}

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(study, tiny_study_passes_factcheck_and_a_tamper_is_caught, .timeout = 300)
{
    /* under build/, relative: the records then name no folder of this machine (the scanner's machine-path rule) */
    char out[] = "build/tests/studyXXXXXX", cmd[2048];
    cr_assert_not_null(mkdtemp(out));
    /* registration into OUT/provenance (prepare is deterministic: same files) */
    snprintf(cmd, sizeof cmd, "build/bin/prepare --prep build/prep --prov %s/provenance --data data > %s/log 2>&1",
             out, out);
    cr_assert_eq(sh(cmd), 0, "prepare");
    snprintf(cmd, sizeof cmd,
             "build/bin/measure --profile tiny --root %s --prep build/prep --bin build/bin --arms lab/arms.tsv "
             "--data data --gate 0 --settle-s 0.3 --closed-s 0.5 --deviation 'a short capacity run: a test' "
             "--quiet tests/quiet_off.tsv >> %s/log 2>&1",
             out, out);
    int rc = sh(cmd);
    if (rc) {
        snprintf(cmd, sizeof cmd, "cat %s/log", out);
        sh(cmd);
    }
    cr_assert_eq(rc, 0, "measure tiny");
    check_lengths(out);
    snprintf(cmd, sizeof cmd,
             "url=$(bash pipeline/common/pg.sh start build/pgstudy) && build/bin/collect --root %s --pgurl \"$url\" --quiet tests/quiet_off.tsv >> %s/log 2>&1; "
             "rc=$?; bash pipeline/common/pg.sh stop build/pgstudy; exit $rc",
             out, out);
    cr_assert_eq(sh(cmd), 0, "collect");
    check_down_runs(out);
    snprintf(cmd, sizeof cmd, "build/bin/provmd --root %s >> %s/log 2>&1", out, out);
    cr_assert_eq(sh(cmd), 0, "provmd");
    check_provenance_md(out);
    check_lateness(out, "H3-r2-down-r1");
    check_lateness(out, "H3-fb25-r2");
    snprintf(cmd, sizeof cmd, "build/bin/check --prov %s/provenance --root %s >> %s/log 2>&1", out, out, out);
    cr_assert_eq(sh(cmd), 0, "check, both manifests");
    snprintf(cmd, sizeof cmd,
             "verify/build/verify --root %s --guesses data/guesses.tsv --comparisons pipeline/comparisons.tsv "
             "--quiet tests/quiet_off.tsv --arms lab/arms.tsv --out %s/results/verified.json > %s/verify.log 2>&1",
             out, out, out);
    rc = sh(cmd);
    if (rc) {
        snprintf(cmd, sizeof cmd, "tail -30 %s/verify.log", out);
        sh(cmd);
    }
    cr_assert_eq(rc, 0, "factcheck on the tiny study");
    snprintf(cmd, sizeof cmd, "tail -1 %s/verify.log | grep -qx '0 MISMATCHES'", out);
    cr_assert_eq(sh(cmd), 0);
    /* each run against its own length: no run is "other than the schedule's" */
    snprintf(cmd, sizeof cmd, "grep -q 'seconds differ' %s/verify.log", out);
    cr_assert_neq(sh(cmd), 0, "the verifier took a 0.5 s closed-loop run for one of another length");
    json_t *v = json_load_file(strcat(strcpy(cmd, out), "/results/verified.json"), 0, NULL);
    json_t *sch = json_object_get(json_object_get(json_object_get(json_object_get(v, "checks"), "study"), "schedule"),
                                  "format");
    cr_assert(json_is_integer(sch) && json_integer_value(sch) == 2, "checks.study.schedule.format: schedule format 2");
    json_t *design = json_object_get(json_object_get(v, "checks"), "design");
    cr_assert(json_is_true(json_object_get(design, "registered")), "checks.design.registered");
    cr_assert_eq(json_integer_value(json_object_get(design, "mismatches")), 0, "checks.design.mismatches");
    json_decref(v);
    /* the capacity group's departure to 0.5 s: every planned Z-capacity run 0.5 s, written down */
    snprintf(cmd, sizeof cmd,
             "awk -F'\t' '$4 == \"Z-capacity\" && $5 != \"0.5\" {bad=1} $4 == \"Z-capacity\" {n++} "
             "END {exit bad || n != 2}' %s/results/schedule.tsv && grep -q '^capacity\tseconds\t1\t0.5\t' "
             "%s/results/deviations.tsv",
             out, out);
    cr_assert_eq(sh(cmd), 0, "the closed-loop runs 0.5 s in schedule.tsv, the departure in deviations.tsv");
    /* one number of results.json changed: exactly that mismatch */
    snprintf(cmd, sizeof cmd,
             "sed -i '0,/\"p99_ms\": [0-9]/s/\"p99_ms\": \\([0-9]\\)/\"p99_ms\": 9\\1/' %s/results/results.json && "
             "verify/build/verify --root %s --no-scan --guesses data/guesses.tsv --comparisons "
             "pipeline/comparisons.tsv --quiet tests/quiet_off.tsv --arms lab/arms.tsv --out %s/verified2.json "
             "> %s/verify2.log 2>&1; test $? -eq 1 && tail -1 %s/verify2.log | grep -qx '1 MISMATCHES' "
             "&& grep -q 'MISMATCH .*p99_ms' %s/verify2.log",
             out, out, out, out, out, out);
    rc = sh(cmd);
    if (rc) {
        snprintf(cmd, sizeof cmd, "cat %s/verify2.log", out);
        sh(cmd);
    }
    cr_assert_eq(rc, 0, "a changed p99 in results.json is reported, alone");
    snprintf(cmd, sizeof cmd, "rm -rf %s", out);
    sh(cmd);
}
