/* test_templates: the report's prose lives in templates (report/templates/)
 * and its sources hold no arm names: a verdict edited in a copy of the
 * fixture changes the sentence that depends on it; the .c files of report/src have no
 * arm-name literal ("H4-r2", "H3-fb25-down", "Z-capacity": the house's
 * grep '"[A-Z][0-9]-[a-z]'); a template naming a value the study lacks
 * stops the report with the template's file, line and placeholder. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtest.h"

/* the verdict of H3-dl against H3-dldown on the p99, in the fixture "too close to call" */
static json_t *dl_p99(json_t *r)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(r, "verdicts"), i, v)
    {
        const char *a = json_string_value(json_object_get(v, "a"));
        const char *b = json_string_value(json_object_get(v, "b"));
        const char *f = json_string_value(json_object_get(v, "figure"));
        if (a && b && f && !strcmp(a, "H3-dl") && !strcmp(b, "H3-dldown") && !strcmp(f, "p99_ms"))
            return v;
    }
    return NULL;
}

static void make_apart(json_t *r)
{
    json_t *v = dl_p99(r);
    cr_assert(v, "the fixture has no verdict H3-dl against H3-dldown on p99_ms");
    json_object_set_new(v, "verdict", json_string("clearly different"));
    json_object_set_new(v, "direction", json_string("a>b"));
}

static void drop_verdict(json_t *r)
{
    json_t *vs = json_object_get(r, "verdicts"), *v = dl_p99(r);
    size_t i;
    json_t *x;
    json_array_foreach(vs, i, x)
    {
        if (x == v) {
            json_array_remove(vs, i);
            break;
        }
    }
}

static const char *CLOSE = "the slowest 1 in 100 is too close to call between the two.";
static const char *APART = "the slowest 1 in 100 is clearly different with the deadline passed down.";
static const char *NONE = "the slowest 1 in 100 has no verdict in this study.";

Test(templates, a_verdict_edited_changes_the_sentence_that_depends_on_it)
{
    json_error_t e;
    json_t *r = json_load_file(FIXTURE, 0, &e);
    cr_assert(r);
    json_t *v = dl_p99(r);
    cr_assert(v);
    cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "too close to call");
    json_decref(r);

    char *d = rt_rendered_dir(FIXTURE);
    char *md = rt_page(d, "report.md");
    cr_expect(strstr(md, CLOSE), "the fixture's page lacks \"%s\"", CLOSE);
    cr_expect(!strstr(md, APART));
    free(md);
    rt_rmrf(d);
    free(d);

    d = rt_tmpdir();
    char *in = rt_write_variant(d, make_apart), out[700], *msg;
    snprintf(out, sizeof out, "%s/out", d);
    cr_assert_eq(rt_render(in, out, &msg), 0, "%s", msg);
    free(msg);
    md = rt_page(out, "report.md");
    cr_expect(strstr(md, APART), "the edited verdict's page lacks \"%s\"", APART);
    cr_expect(!strstr(md, CLOSE), "the edited verdict's page still says \"%s\"", CLOSE);
    char *html = rt_page(out, "report.html"), *plain = rt_plain(html);
    cr_expect(strstr(plain, APART), "report.html lacks \"%s\"", APART);
    free(plain);
    free(html);
    free(md);
    free(in);
    rt_rmrf(d);
    free(d);

    /* no verdict at all: the sentence says so, it does not guess */
    d = rt_tmpdir();
    in = rt_write_variant(d, drop_verdict);
    snprintf(out, sizeof out, "%s/out", d);
    cr_assert_eq(rt_render(in, out, &msg), 0, "%s", msg);
    free(msg);
    md = rt_page(out, "report.md");
    cr_expect(strstr(md, NONE), "without the verdict the page lacks \"%s\"", NONE);
    free(md);
    free(in);
    rt_rmrf(d);
    free(d);
}

Test(templates, report_src_holds_no_arm_name_literal)
{
    /* the house's grep ("H4-r2" or "Z-capacity" opening a string), and an arm's name anywhere in a string ("(H4-r2, ...)") */
    regex_t re, in;
    cr_assert_eq(regcomp(&re, "\"[A-Z][0-9]*-[a-z]", REG_EXTENDED | REG_NOSUB), 0);
    cr_assert_eq(regcomp(&in, "\"[^\"]*[A-Z][0-9]*-[a-z][^\"]*\"", REG_EXTENDED | REG_NOSUB), 0);
    DIR *dir = opendir(REPORT_DIR "/src");
    cr_assert(dir);
    struct dirent *de;
    int files = 0, bad = 0;
    while ((de = readdir(dir))) {
        size_t n = strlen(de->d_name);
        if (n < 3 || strcmp(de->d_name + n - 2, ".c"))
            continue;
        files++;
        char p[700];
        snprintf(p, sizeof p, "%s/src/%s", REPORT_DIR, de->d_name);
        char *s = rt_slurp(p, NULL);
        cr_assert(s, "cannot read %s", p);
        int line = 1;
        for (char *l = s; *l; line++) {
            char *e = strchr(l, '\n');
            if (e)
                *e = 0;
            const char *code = l + strspn(l, " \t");
            int comment = !strncmp(code, "/*", 2) || !strncmp(code, "*", 1) || !strncmp(code, "//", 2);
            if (regexec(&re, l, 0, NULL, 0) == 0 || (!comment && regexec(&in, l, 0, NULL, 0) == 0)) {
                cr_log_error("%s:%d: an arm-name literal: %s", de->d_name, line, l);
                bad++;
            }
            if (!e)
                break;
            l = e + 1;
        }
        free(s);
    }
    closedir(dir);
    regfree(&re);
    regfree(&in);
    cr_expect_gt(files, 10, "only %d .c files found under src/", files);
    cr_expect_eq(bad, 0, "%d lines of report/src/*.c name an arm: the names belong in the templates or the data", bad);
}

Test(templates, a_template_naming_a_missing_value_stops_the_report_naming_file_line_and_placeholder)
{
    /* a copy of the templates with one value the fixture lacks */
    char *d = rt_tmpdir(), cmd[2000], tdir[700], out[700];
    snprintf(tdir, sizeof tdir, "%s/templates", d);
    snprintf(cmd, sizeof cmd, "cp -r %s/templates %s", REPORT_DIR, tdir);
    cr_assert_eq(system(cmd), 0);
    char p[800];
    snprintf(p, sizeof p, "%s/hedge.md.in", tdir);
    FILE *f = fopen(p, "a");
    cr_assert(f);
    fputs("{@p}\nA figure the study lacks: {arms.H3-hedge.no_such_figure.median|ms}.\n", f);
    fclose(f);
    char *t = rt_slurp(p, NULL);
    int lines = 0;
    for (char *q = t; *q; q++)
        lines += *q == '\n';
    free(t);
    snprintf(out, sizeof out, "%s/out", d);
    snprintf(cmd, sizeof cmd, "%s --in %s --out %s --templates %s 2>&1", REPORT_BIN, FIXTURE, out, tdir);
    FILE *pp = popen(cmd, "r");
    cr_assert(pp);
    char msg[8192] = "";
    size_t n = fread(msg, 1, sizeof msg - 1, pp);
    msg[n] = 0;
    int rc = pclose(pp);
    cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "exit %d: %s", rc, msg);
    char want[300];
    snprintf(want, sizeof want,
             "report/templates/hedge.md.in:%d: {arms.H3-hedge.no_such_figure.median|ms}: no such value in verified.json",
             lines);
    cr_expect(strstr(msg, want), "wanted \"%s\" in: %s", want, msg);
    snprintf(p, sizeof p, "%s/report.md", out);
    cr_expect(access(p, F_OK) != 0, "a page was written");
    rt_rmrf(d);
    free(d);
}

/* Each verdict's error rate as collect writes it (pipeline/RESULTS.md,
 * "Each verdict's error rate"): n its rounds, 2 * 0.5^n from 2 rounds on;
 * H3-dl against H3-dldown on the p99 (2 rounds) sized with q 0.9, so power
 * 0.81: undecidable; the rest unsized.  The fixture: 73 verdicts, 16
 * clearly different, 25 of 2 rounds (0.5 each): 12.5 expected by chance. */
static void with_rates(json_t *r)
{
    size_t i, with = 0, apart = 0, n_v = 0;
    double expected = 0;
    json_t *v, *dl = dl_p99(r);
    json_array_foreach(json_object_get(r, "verdicts"), i, v)
    {
        size_t n = json_array_size(json_object_get(v, "rounds"));
        n_v++;
        apart += !strcmp(json_string_value(json_object_get(v, "verdict")), "clearly different");
        json_object_set_new(v, "n", json_integer((json_int_t)n));
        json_object_set_new(v, "false_positive_rate", n >= 2 ? json_real(2 * pow(0.5, (double)n)) : json_null());
        with += n >= 2;
        expected += n >= 2 ? 2 * pow(0.5, (double)n) : 0;
        json_object_set_new(v, "sizing_q", v == dl ? json_real(0.9) : json_null());
        json_object_set_new(v, "power", v == dl ? json_real(0.81) : json_null());
        json_object_set_new(v, "decidable", v == dl ? json_false() : json_null());
    }
    cr_assert(n_v == 73 && apart == 16 && with == 25 && expected == 12.5, "the fixture changed: %zu %zu %zu %g", n_v,
              apart, with, expected);
    json_t *fam = json_object();
    json_object_set_new(fam, "verdicts", json_integer(73));
    json_object_set_new(fam, "clearly_different", json_integer(16));
    json_object_set_new(fam, "expected_chance", json_real(12.5));
    json_object_set_new(fam, "with_rate", json_integer(25));
    json_object_set_new(fam, "undecidable", json_integer(1));
    json_object_set_new(fam, "unsized", json_integer(72));
    json_object_set_new(r, "verdict_family", fam);
}

static const char *FAMILY =
    "Of 73 verdicts, 16 came out clearly different; chance alone would give about 12.500 (were no difference real).";
static const char *UNDECIDABLE = "too close to call; undecidable in 2 rounds (sizing)";

Test(templates, an_undecidable_verdict_is_marked_and_the_family_line_sums_the_rates)
{
    /* the fixture as it is (a study before the error rates): no mark, no family line */
    char *d = rt_rendered_dir(FIXTURE);
    char *md = rt_page(d, "report.md");
    cr_expect(!strstr(md, "undecidable in"), "a study without decidable marks none");
    cr_expect(!strstr(md, "came out clearly different; chance alone"), "a study without verdict_family has no line");
    free(md);
    rt_rmrf(d);
    free(d);

    d = rt_tmpdir();
    char *in = rt_write_variant(d, with_rates), out[700], *msg;
    snprintf(out, sizeof out, "%s/out", d);
    cr_assert_eq(rt_render(in, out, &msg), 0, "%s", msg);
    free(msg);
    md = rt_page(out, "report.md");
    cr_expect(strstr(md, FAMILY), "the page lacks \"%s\"", FAMILY);
    cr_expect(strstr(md, UNDECIDABLE), "the page lacks \"%s\"", UNDECIDABLE);
    /* only the one verdict whose decidable is false is marked */
    int marks = 0;
    for (const char *p = md; (p = strstr(p, "undecidable in ")); p++)
        marks++;
    cr_expect_eq(marks, 1, "%d verdicts marked undecidable", marks);
    /* its row: 2 rounds, a false-positive rate of 50% */
    const char *row = strstr(md, "| H3-dl | H3-dldown | p99_ms |");
    cr_assert(row, "no row of H3-dl against H3-dldown on p99_ms");
    const char *end = strchr(row, '\n');
    char line[2048];
    snprintf(line, sizeof line, "%.*s", end ? (int)(end - row) : (int)strlen(row), row);
    cr_expect(strstr(line, "| 2 | 50.0% |"), "the row lacks its rounds and rate: %s", line);
    char *html = rt_page(out, "report.html"), *plain = rt_plain(html);
    cr_expect(strstr(plain, FAMILY), "report.html lacks \"%s\"", FAMILY);
    cr_expect(strstr(plain, "undecidable in 2 rounds (sizing)"), "report.html lacks the mark");
    free(plain);
    free(html);
    free(md);
    free(in);
    rt_rmrf(d);
    free(d);
}
