/* test_apsection: the AP section (templates/ap.md.in) on a verified.json of
 * format lab-ap 2 (pipeline/APCOST.md 1.5, 1.7): the fixture with the `ap`
 * member of tests/fixture/ap-format2.json put in.  Each bound is printed
 * with its Monte Carlo error (ci95_mc), the verdicts as copied (an interval
 * whose hi -1e-4 carries the error 2e-4 is too close to call), and the
 * flooded runs' costs in a table of their own; with flooded_runs {} the page
 * says no quiet run flooded; with no flooded_runs member at all (a verifier
 * that does not copy it) neither.  The fixture's own page (no ap.json) has
 * no AP table. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

#define AP_FIXTURE REPORT_DIR "/tests/fixture/ap-format2.json"

static json_t *ap_member(void)
{
    json_error_t e;
    json_t *f = json_load_file(AP_FIXTURE, 0, &e);
    cr_assert_not_null(f, "%s: line %d: %s", AP_FIXTURE, e.line, e.text);
    return f;
}

static void put_ap(json_t *r)
{
    json_t *f = ap_member();
    json_object_set(r, "ap", json_object_get(f, "ap"));
    json_object_set(json_object_get(r, "checks"), "ap", json_object_get(f, "checks_ap"));
    json_decref(f);
}

static void put_ap_no_flood(json_t *r)
{
    put_ap(r);
    json_object_set_new(json_object_get(json_object_get(r, "ap"), "copied_from_ap_json"), "flooded_runs",
                        json_object());
}

static void put_ap_no_member(json_t *r)
{
    put_ap(r);
    json_object_del(json_object_get(json_object_get(r, "ap"), "copied_from_ap_json"), "flooded_runs");
}

/* the report.md of the fixture edited by edit (free it) */
static char *page_of(void (*edit)(json_t *))
{
    char *d = rt_tmpdir(), out[700], *msg;
    char *in = rt_write_variant(d, edit);
    snprintf(out, sizeof out, "%s/out", d);
    cr_assert_eq(rt_render(in, out, &msg), 0, "%s", msg);
    free(msg);
    char *md = rt_page(out, "report.md");
    free(in);
    rt_rmrf(d);
    free(d);
    return md;
}

static const char *FLOOD_HEAD = "At a flood's stand-in share.";
static const char *NO_FLOOD = "No quiet run of the study flooded, so no AP is measured at a flood's stand-in share.";

Test(apsection, bounds_carry_their_monte_carlo_error_and_flooded_runs_have_a_table, .timeout = 60)
{
    char *md = page_of(put_ap);
    /* H3-fb25, last month's score: [-0.0003, -0.0001] with errors [1e-5, 2e-4]:
     * printed in percentage points, too close to call (zero lies outside by
     * less than the error) */
    const char *lk = "| H3-fb25 | last month's score | 0.259% | −0.014 pp | −0.013 pp | −0.030 pp ± 0.001 pp to "
                     "−0.010 pp ± 0.020 pp | too close to call |";
    cr_expect(strstr(md, lk), "the page lacks the row\n%s", lk);
    const char *df = "| −0.090 pp ± 0.002 pp to −0.020 pp ± 0.004 pp | clearly different, AP lower |";
    cr_expect(strstr(md, df), "the page lacks\n%s", df);
    cr_expect(strstr(md, "each bound ± its Monte Carlo error (copied)"), "the table's head names the error");
    cr_expect(strstr(md, "clearly different only when zero lies outside the interval by more than that error"));
    cr_expect(!strstr(md, "an interval that holds zero is too close to call"), "format 1's rule on a format 2 page");
    /* the flooded runs, in ap.json's order, each kind */
    cr_expect(strstr(md, FLOOD_HEAD));
    const char *f1 = "| H4-r2bj-r3 | no score | 48.0% | 20.6% | −5.20 pp | −5.80 pp ± 0.050 pp to "
                     "−4.60 pp ± 0.040 pp | clearly different, AP lower |";
    cr_expect(strstr(md, f1), "the page lacks the flooded row\n%s", f1);
    const char *f2 = "| H4-r4xf-r3 | last month's score | 10.0% | 4.25% | −0.020 pp | −0.040 pp ± 0.001 pp to "
                     "−0.010 pp ± 0.020 pp | too close to call |";
    cr_expect(strstr(md, f2), "the page lacks the flooded row\n%s", f2);
    const char *a = strstr(md, "| H4-r2bj-r3 | last month's score");
    const char *b = strstr(md, "| H4-r4xf-r3 | last month's score");
    cr_expect(a && b && a < b, "the flooded runs in ap.json's order");
    cr_expect_eq(rt_count(md, "| H4-r2bj-r3 |"), 3, "one row per kind");
    cr_expect(!strstr(md, NO_FLOOD));
    free(md);
}

Test(apsection, no_flooded_run_is_said, .timeout = 60)
{
    char *md = page_of(put_ap_no_flood);
    cr_expect(strstr(md, NO_FLOOD), "flooded_runs {}: the page lacks \"%s\"", NO_FLOOD);
    cr_expect(!strstr(md, FLOOD_HEAD));
    free(md);
    /* a verifier that does not copy flooded_runs: nothing said either way */
    md = page_of(put_ap_no_member);
    cr_expect(!strstr(md, NO_FLOOD));
    cr_expect(!strstr(md, FLOOD_HEAD));
    cr_expect(strstr(md, "−0.030 pp ± 0.001 pp to −0.010 pp ± 0.020 pp"), "the errors are still printed");
    free(md);
}
