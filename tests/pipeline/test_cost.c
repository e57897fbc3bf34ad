/* cost: the machine time and price arithmetic of pipeline/APCOST.md (part 2)
 * on hand-made provenance records, by hand (pipeline/cost/costcalc.[ch]); and the
 * program's option checks. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "costcalc.h"
#include "util.h"

#define EPS 1e-9

Test(cost, utc_by_hand)
{
    int64_t t;
    cr_assert_eq(costcalc_parse_utc("1970-01-01T00:00:00Z", &t), 0);
    cr_assert_eq(t, 0);
    cr_assert_eq(costcalc_parse_utc("1970-01-02T01:02:03Z", &t), 0);
    cr_assert_eq(t, 86400 + 3600 + 120 + 3);
    cr_assert_eq(costcalc_parse_utc("2026-11-30T05:29:36Z", &t), 0);
    cr_assert_eq(t, 1796016576);  /* calendar.timegm((2026, 11, 30, 5, 29, 36)) */
    cr_assert_eq(costcalc_parse_utc("2000-02-29T23:59:59Z", &t), 0);
    cr_assert_eq(t, 951868799);
    const char *bad[] = {"2026-11-30T05:29:36",  "2026-11-30 05:29:36Z", "2026-02-29T00:00:00Z",
                         "2026-11-31T00:00:00Z", "2026-11-30T24:00:00Z", "2026-13-01T00:00:00Z",
                         "2026-1-30T05:29:36Z",  "2026-11-30T05:29:36Z ", "",
                         "+026-11-30T05:29:36Z"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_neq(costcalc_parse_utc(bad[i], &t), 0, "accepted \"%s\"", bad[i]);
}

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[512], dir[512], err[UT_ERRLEN];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    cr_assert_eq(ut_mkdir_p(dir, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

/* Stages: prepare (wall 10.5, cpu 8 + 0.5), measure (100; 1 + 0.25),
 * collect (4; 2 + 1), and cost's own record (left out).
 * Runs: A-r1 with a measure record (wall 33.5; cpu 0.5+0.25, 1+0.5,
 * 0.25+0.25 = 2.75) and its run.json (ignored: the record wins); A-r2 with
 * only run.json (06:00:00 to 06:00:32: wall 32; cpu 0.25+0.25, 0.5+0.25,
 * 0.125+0.125 = 1.5); B-r1 with a record of a run the idle gate stopped
 * (wall 61, no cpu block).
 *   stages_wall 114.5, stages_cpu 12.75, runs_wall 126.5, runs_cpu 4.25
 *   wall = 10.5 + 4 (not measure) + 126.5 = 141; cpu = 17; hours 141/3600
 *   span: 05:50:00 (prepare) to 06:30:00 (collect) = 2400 s */
static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/costXXXXXX");
    cr_assert_not_null(mkdtemp(root));
    put("provenance/stage-prepare.json",
        "{\"stage\":\"prepare\",\"start_utc\":\"2026-11-30T05:50:00Z\",\"end_utc\":\"2026-11-30T05:50:11Z\","
        "\"exit_code\":0,\"wall_s\":10.5,\"cpu_user_s\":8,\"cpu_sys_s\":0.5}");
    put("provenance/stage-measure.json",
        "{\"stage\":\"measure\",\"start_utc\":\"2026-11-30T05:59:59Z\",\"end_utc\":\"2026-11-30T06:01:40Z\","
        "\"exit_code\":0,\"wall_s\":100,\"cpu_user_s\":1,\"cpu_sys_s\":0.25}");
    put("provenance/stage-collect.json",
        "{\"stage\":\"collect\",\"start_utc\":\"2026-11-30T06:29:56Z\",\"end_utc\":\"2026-11-30T06:30:00Z\","
        "\"exit_code\":0,\"wall_s\":4.0,\"cpu_user_s\":2,\"cpu_sys_s\":1}");
    put("provenance/stage-cost.json",
        "{\"stage\":\"cost\",\"start_utc\":\"2026-11-30T07:00:00Z\",\"end_utc\":\"2026-11-30T07:00:01Z\","
        "\"exit_code\":0,\"wall_s\":99,\"cpu_user_s\":99,\"cpu_sys_s\":99}");
    const char *cpu_a1 = "{\"tester\":{\"user_s\":0.5,\"sys_s\":0.25,\"share\":0.1},"
                         "\"service\":{\"user_s\":1,\"sys_s\":0.5,\"share\":0.1},"
                         "\"store\":{\"user_s\":0.25,\"sys_s\":0.25,\"share\":0.1},\"wall_s\":30.0}";
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"run\":\"A-r1\",\"start_utc\":\"2026-11-30T06:00:00Z\",\"end_utc\":\"2026-11-30T06:00:34Z\","
             "\"wall_s\":33.5,\"exit_code\":0,\"cpu\":%s}",
             cpu_a1);
    put("provenance/runs/A-r1.json", buf);
    snprintf(buf, sizeof buf,
             "{\"arm\":\"A\",\"round\":1,\"start_utc\":\"2026-11-30T06:00:01Z\",\"end_utc\":\"2026-11-30T06:00:33Z\","
             "\"cpu\":{\"tester\":{\"user_s\":9,\"sys_s\":9},\"service\":{\"user_s\":9,\"sys_s\":9},"
             "\"store\":{\"user_s\":9,\"sys_s\":9}}}");
    put("results/raw/A-r1/run.json", buf);
    put("results/raw/A-r2/run.json",
        "{\"arm\":\"A\",\"round\":2,\"start_utc\":\"2026-11-30T06:00:00Z\",\"end_utc\":\"2026-11-30T06:00:32Z\","
        "\"cpu\":{\"tester\":{\"user_s\":0.25,\"sys_s\":0.25},\"service\":{\"user_s\":0.5,\"sys_s\":0.25},"
        "\"store\":{\"user_s\":0.125,\"sys_s\":0.125},\"wall_s\":30}}");
    put("provenance/runs/B-r1.json",
        "{\"run\":\"B-r1\",\"start_utc\":\"2026-11-30T06:01:00Z\",\"end_utc\":\"2026-11-30T06:02:01Z\","
        "\"wall_s\":61,\"exit_code\":3,\"idle\":null}");
    put("results/raw/.A-r3.tmp/junk", "x");  /* a run in progress: not a run */
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    cr_assert_eq(system(cmd), 0);
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    cr_assert(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

TestSuite(cost, .init = setup, .fini = teardown);

Test(cost, totals_and_price_by_hand)
{
    json_t *c = NULL;
    char err[UT_ERRLEN] = "";
    cr_assert_eq(costcalc_json(root, "2026-11-30T05:45:00Z", "2026-11-30T07:15:00Z", 0.096, &c, err,
                               sizeof err),
                 0, "%s", err);
    json_t *st = json_object_get(c, "stages"), *runs = json_object_get(c, "runs");
    cr_assert_eq(json_array_size(st), 3);  /* cost's own record left out */
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(st, 0), "stage")), "collect");
    cr_assert_float_eq(num(json_array_get(st, 2), "cpu_s"), 8.5, EPS);
    cr_assert_eq(json_array_size(runs), 3);
    json_t *a1 = json_array_get(runs, 0), *a2 = json_array_get(runs, 1), *b1 = json_array_get(runs, 2);
    cr_assert_str_eq(json_string_value(json_object_get(a1, "run")), "A-r1");
    cr_assert_str_eq(json_string_value(json_object_get(a1, "source")), "provenance/runs");
    cr_assert_float_eq(num(a1, "wall_s"), 33.5, EPS);
    cr_assert_float_eq(num(a1, "cpu_s"), 2.75, EPS);
    cr_assert_str_eq(json_string_value(json_object_get(a2, "source")), "results/raw run.json");
    cr_assert_float_eq(num(a2, "wall_s"), 32.0, EPS);
    cr_assert_float_eq(num(a2, "cpu_s"), 1.5, EPS);
    cr_assert_str_eq(json_string_value(json_object_get(b1, "run")), "B-r1");
    cr_assert(json_is_null(json_object_get(b1, "cpu_s")));
    cr_assert_eq(json_integer_value(json_object_get(b1, "exit_code")), 3);

    json_t *t = json_object_get(c, "totals");
    cr_assert_eq(json_integer_value(json_object_get(t, "stages")), 3);
    cr_assert_eq(json_integer_value(json_object_get(t, "runs")), 3);
    cr_assert_float_eq(num(t, "stages_wall_s"), 114.5, EPS);
    cr_assert_float_eq(num(t, "stages_cpu_s"), 12.75, EPS);
    cr_assert_float_eq(num(t, "runs_wall_s"), 126.5, EPS);
    cr_assert_float_eq(num(t, "runs_cpu_s"), 4.25, EPS);
    cr_assert_float_eq(num(t, "wall_s"), 141.0, EPS);
    cr_assert_float_eq(num(t, "cpu_s"), 17.0, EPS);
    cr_assert_float_eq(num(t, "machine_hours"), 141.0 / 3600.0, EPS);
    cr_assert_str_eq(json_string_value(json_object_get(t, "first_start_utc")), "2026-11-30T05:50:00Z");
    cr_assert_str_eq(json_string_value(json_object_get(t, "last_end_utc")), "2026-11-30T06:30:00Z");
    cr_assert_eq(json_integer_value(json_object_get(t, "span_s")), 2400);

    /* 05:45 to 07:15 is 1.5 h; at 0.096 USD/h: 0.144 USD */
    json_t *r = json_object_get(c, "rental");
    cr_assert_float_eq(num(r, "hours"), 1.5, EPS);
    cr_assert_float_eq(num(r, "price_per_hour_usd"), 0.096, EPS);
    cr_assert_float_eq(num(r, "price_usd"), 0.144, EPS);
    cr_assert(json_is_true(json_object_get(r, "covers_records")));
    cr_assert(json_is_null(json_object_get(r, "note")));
    json_decref(c);

    /* a rental that starts after the first record does not cover them:
     * 06:00 to 06:20 is 1/3 h, at 2.5 USD/h 0.8333... USD */
    cr_assert_eq(costcalc_json(root, "2026-11-30T06:00:00Z", "2026-11-30T06:20:00Z", 2.5, &c, err,
                               sizeof err),
                 0, "%s", err);
    r = json_object_get(c, "rental");
    cr_assert_float_eq(num(r, "hours"), 1.0 / 3.0, EPS);
    cr_assert_float_eq(num(r, "price_usd"), 2.5 / 3.0, EPS);
    cr_assert(json_is_false(json_object_get(r, "covers_records")));
    json_decref(c);
}

Test(cost, no_settings_no_price)
{
    json_t *c = NULL;
    char err[UT_ERRLEN] = "";
    cr_assert_eq(costcalc_json(root, NULL, NULL, -1, &c, err, sizeof err), 0, "%s", err);
    json_t *r = json_object_get(c, "rental");
    cr_assert(json_is_null(json_object_get(r, "price_usd")));
    cr_assert(json_is_null(json_object_get(r, "hours")));
    cr_assert(json_is_string(json_object_get(r, "note")));
    cr_assert_float_eq(num(json_object_get(c, "totals"), "wall_s"), 141.0, EPS);
    json_decref(c);
}

Test(cost, bad_settings_and_records)
{
    json_t *c = NULL;
    char err[UT_ERRLEN] = "";
    /* only some of the three */
    cr_assert_neq(costcalc_json(root, "2026-11-30T06:00:00Z", NULL, 1.0, &c, err, sizeof err), 0);
    cr_assert(strstr(err, "go together"), "%s", err);
    /* end before start */
    cr_assert_neq(costcalc_json(root, "2026-11-30T06:00:00Z", "2026-11-30T05:00:00Z", 1.0, &c, err,
                                sizeof err),
                  0);
    cr_assert(strstr(err, "before"), "%s", err);
    /* a malformed time */
    cr_assert_neq(costcalc_json(root, "2026-11-30 06:00", "2026-11-30T07:00:00Z", 1.0, &c, err,
                                sizeof err),
                  0);
    /* a stage record without wall_s names its file */
    put("provenance/stage-report.json", "{\"stage\":\"report\",\"cpu_user_s\":1,\"cpu_sys_s\":1}");
    cr_assert_neq(costcalc_json(root, NULL, NULL, -1, &c, err, sizeof err), 0);
    cr_assert(strstr(err, "stage-report.json"), "%s", err);
    cr_assert_null(c);
}

Test(cost, empty_root)
{
    char dir[64], err[UT_ERRLEN] = "";
    snprintf(dir, sizeof dir, "/tmp/costemptyXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    json_t *c = NULL;
    cr_assert_eq(costcalc_json(dir, NULL, NULL, -1, &c, err, sizeof err), 0, "%s", err);
    json_t *t = json_object_get(c, "totals");
    cr_assert_eq(json_integer_value(json_object_get(t, "runs")), 0);
    cr_assert_float_eq(num(t, "wall_s"), 0.0, EPS);
    cr_assert(json_is_null(json_object_get(t, "span_s")));
    json_decref(c);
    rmdir(dir);
}

/* The program's options (lab/base/opt.h): a bad price names the option and the
 * value and exits 2 with nothing written; an empty one means "not given". */
static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(cost, program_checks_its_options)
{
    if (access("build/bin/cost", X_OK) != 0)
        cr_skip_test("build/bin/cost is not built");
    char cmd[1024];
    const char *bad[] = {"abc", "1e999", "-1", "0.5x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 "build/bin/cost --root %s --start 2026-11-30T05:45:00Z --end 2026-11-30T07:15:00Z "
                 "--price-per-hour '%s' 2>%s/err.txt >/dev/null; rc=$?; test $rc -eq 2 && "
                 "grep -q -- \"--price-per-hour.*%s\" %s/err.txt && test ! -e %s/results/cost.json",
                 root, bad[i], root, bad[i], root, root);
        cr_assert_eq(sh(cmd), 0, "%s", cmd);
    }
    snprintf(cmd, sizeof cmd, "build/bin/cost --root %s --bogus 1 2>/dev/null >/dev/null", root);
    cr_assert_eq(sh(cmd), 2);
    snprintf(cmd, sizeof cmd, "build/bin/cost --root %s --price-per-hour '' --prov %s/p >/dev/null", root, root);
    cr_assert_eq(sh(cmd), 0, "%s", cmd);
    char path[256];
    snprintf(path, sizeof path, "%s/results/cost.json", root);
    json_t *c = json_load_file(path, 0, NULL);
    cr_assert_not_null(c);
    cr_assert_float_eq(num(json_object_get(c, "totals"), "wall_s"), 141.0, EPS);
    cr_assert(json_is_null(json_object_get(json_object_get(c, "rental"), "price_usd")));
    json_decref(c);
}
