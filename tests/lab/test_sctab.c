/* The one reader of build/prep/scores.tsv (lab/core/sctab.h), which raw
 * format 4's reference, make demo, prepread and ap's reference check all
 * read it through: the prepared file read whole, its text kept byte for
 * byte, comments meaning nothing, and every bad line named.  And the one
 * reader of build/prep/summary.json (lab/core/prepsum.h). */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "prepsum.h"
#include "sctab.h"
#include "util.h"

#define SCORES "build/prep/scores.tsv"

Test(sctab, the_prepared_file_and_a_commented_copy)
{
    char err[UT_ERRLEN], *text = NULL, dir[] = "/tmp/sctabXXXXXX", path[64];
    size_t len;
    cr_assert_eq(ut_read_file(SCORES, &text, &len, err, sizeof err), 0, "%s (make prepare first)", err);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    sctab t, c;
    cr_assert_eq(sctab_load(SCORES, 1, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n, lines - 1);
    /* row 0, as written: customer cutoff label score last_known */
    char *nl = strchr(text, '\n'), first[256];
    cr_assert_not_null(nl);
    snprintf(first, sizeof first, "%.*s", (int)(strchr(nl + 1, '\n') - nl - 1), nl + 1);
    char want[256];
    int y, m, d;
    ut_civil_from_days(t.cutoff[0], &y, &m, &d);
    snprintf(want, sizeof want, "%d\t%04d-%02d-%02d\t%d\t%s\t%s", t.customer[0], y, m, d, t.label[0], t.score_txt[0],
             t.last_txt[0]);
    cr_assert_str_eq(want, first);
    char again[64];
    snprintf(again, sizeof again, "%.9g", (double)t.score[0]);
    cr_assert_str_eq(again, t.score_txt[0], "the float gives its text back");

    /* the same file with comment and empty lines: the same table */
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/scores.tsv", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "# prepared\n\n");
    for (char *p = text; *p;) {
        char *e = strchr(p, '\n');
        fprintf(f, "%.*s\n# after a line\n", (int)(e - p), p);
        p = e + 1;
    }
    fclose(f);
    cr_assert_eq(sctab_load(path, 1, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.n, t.n);
    for (size_t i = 0; i < t.n; i++)
        cr_assert(c.customer[i] == t.customer[i] && c.cutoff[i] == t.cutoff[i] && c.label[i] == t.label[i] &&
                      c.score[i] == t.score[i] && c.last[i] == t.last[i] && !strcmp(c.score_txt[i], t.score_txt[i]) &&
                      !strcmp(c.last_txt[i], t.last_txt[i]),
                  "row %zu", i);
    sctab_free(&c);
    sctab_free(&t);
    free(text);

    const char *H = "customer\tcutoff\tlabel\tscore\tlast_known\n";
    const struct {
        const char *rows, *says;
    } bad[] = {
        {"1\t2011-11-01\t1\t0.5\t0.5", ":2: the last line does not end with a newline"},
        {"1\t2011-11-01\t1\t0.5\n", ":2: 4 fields, expected 5"},
        {"#\n1\t2011-13-01\t1\t0.5\t0.5\n", ":3: field cutoff \"2011-13-01\" is not a day"},
        {"1\t2011-11-01\t2\t0.5\t0.5\n", ":2: field label \"2\""},
        {"1\t2011-11-01\t1\tx\t0.5\n", ":2: field score \"x\" is not a number"},
        {"1\t2011-11-01\t1\t0.5\t1e39\n", ":2: field last_known \"1e39\""},
        {"99999999999\t2011-11-01\t1\t0.5\t0.5\n", ":2: field customer \"99999999999\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[512];
        snprintf(body, sizeof body, "%s%s", H, bad[i].rows);
        cr_assert_eq(ut_write_file(path, body, strlen(body), err, sizeof err), 0, "%s", err);
        cr_assert_eq(sctab_load(path, 0, &t, err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, path) && strstr(err, bad[i].says), "case %zu: %s", i, err);
        cr_assert_eq(t.n, 0);
    }
    unlink(path);
    rmdir(dir);
}

Test(sctab, the_prepared_summary)
{
    char err[UT_ERRLEN], dir[] = "/tmp/prepsumXXXXXX", path[64];
    prepsum s;
    sctab t;
    cr_assert_eq(prepsum_load("build/prep/summary.json", &s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(sctab_load(SCORES, 0, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(s.test_rows, (int64_t)t.n, "one scores.tsv line per test row");
    cr_assert(s.test_rows_with_last_known >= 0 && s.test_rows_with_last_known <= s.test_rows);
    cr_assert(s.default_score > 0 && s.default_score < 1);
    sctab_free(&t);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/summary.json", dir);
    const struct {
        const char *text, *says; /* says NULL: loads, absent counts -1 */
    } cases[] = {
        {"{\"default_score\": 0.125}", NULL},
        {"{\"test_rows\": 2}", "default_score must be a number"},
        {"{\"default_score\": 1e39}", "default_score must be a number"},
        {"{\"default_score\": 0.1, \"test_rows\": -1}", "test_rows must be an integer >= 0"},
        {"{\"default_score\": 0.1, \"model_seed\": 1.5}", "model_seed must be an integer"},
        {"{\"default_score\": 0.1,", "line 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(ut_write_file(path, cases[i].text, strlen(cases[i].text), err, sizeof err), 0, "%s", err);
        int rc = prepsum_load(path, &s, err, sizeof err);
        if (!cases[i].says) {
            cr_assert_eq(rc, 0, "case %zu: %s", i, err);
            cr_assert(s.default_score == 0.125f && s.model_seed == -1 && s.test_rows == -1 &&
                      s.test_rows_with_last_known == -1);
        } else {
            cr_assert_eq(rc, -1, "case %zu", i);
            cr_assert(strstr(err, path) && strstr(err, cases[i].says), "case %zu: %s", i, err);
        }
    }
    unlink(path);
    rmdir(dir);
}
