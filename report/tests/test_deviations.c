/* The report's "Deviations from the registration" (templates/method.md.in)
 * from verified.json's checks.design: a study held to its design with no
 * departure, one with departures (each with its reason), one registered
 * before the design was machine-readable, and an older verified.json. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

static void design_none(json_t *r)
{
    json_t *d = json_pack("{s:b, s:s, s:i, s:[], s:i}", "registered", 1, "profile", "tiny", "runs_planned", 18,
                          "deviations", "mismatches", 0);
    json_object_set_new(json_object_get(r, "checks"), "design", d);
}

static void design_departures(json_t *r)
{
    json_t *d = json_pack("{s:b, s:s, s:i, s:[{s:s, s:s, s:i, s:i, s:s}, {s:s, s:s, s:i, s:f, s:s}], s:i}",
                          "registered", 1, "profile", "tiny", "runs_planned", 9, "deviations", "group", "open",
                          "field", "rounds", "registered", 2, "ran", 1, "reason", "tests: one round is enough",
                          "group", "capacity", "field", "seconds", "registered", 1, "ran", 0.5, "reason",
                          "given on the command line (no reason stated)", "mismatches", 0);
    json_object_set_new(json_object_get(r, "checks"), "design", d);
}

static void design_unregistered(json_t *r)
{
    json_t *d = json_pack("{s:b, s:s, s:n, s:[], s:i}", "registered", 0, "profile", "full", "runs_planned",
                          "deviations", "mismatches", 0);
    json_object_set_new(json_object_get(r, "checks"), "design", d);
}

static void design_absent(json_t *r) { json_object_del(json_object_get(r, "checks"), "design"); }

static char *section(void (*edit)(json_t *))
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, edit), *d = rt_rendered_dir(in);
    char *md = rt_page(d, "report.md");
    char *at = strstr(md, "Deviations from the registration");
    cr_assert_not_null(at, "no section");
    char *out = strdup(at);
    free(md);
    rt_rmrf(d);
    free(d);
    return out;
}

Test(deviations, none_says_the_schedule_is_the_design, .timeout = 120)
{
    char *s = section(design_none);
    cr_expect(strstr(s, "None: the schedule is exactly the registered design (profile tiny"), "%.400s", s);
    cr_expect(strstr(s, "18 planned runs"), "%.400s", s);
    free(s);
}

Test(deviations, each_departure_with_its_reason, .timeout = 120)
{
    char *s = section(design_departures);
    cr_expect(strstr(s, "with these departures"), "%.600s", s);
    cr_expect(strstr(s, "| open | rounds | 2 | 1 | tests: one round is enough |"), "%.800s", s);
    cr_expect(strstr(s, "| capacity | seconds | 1 | 0.5 | given on the command line (no reason stated) |"),
              "%.800s", s);
    free(s);
}

Test(deviations, a_study_registered_before_the_design_says_so, .timeout = 120)
{
    char *s = section(design_unregistered);
    cr_expect(strstr(s, "registered before the design was machine-readable"), "%.400s", s);
    free(s);
    s = section(design_absent);
    cr_expect(strstr(s, "written by an\nolder verifier") || strstr(s, "written by an older verifier"), "%.400s", s);
    free(s);
}
