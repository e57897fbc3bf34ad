/* The one TSV reader and its grammar (lab/base/tsv.h), case by case: what
 * is skipped (comments and empty lines, anywhere), what a record is, and
 * what is refused, always naming the file and the line. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "tsv.h"
#include "util.h"

typedef struct {
    char got[512];
    size_t n;
} seen;

/* Each record as "LINE/RECORD:f0|f1;" */
static int keep(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    seen *s = ctx;
    size_t k = strlen(s->got);
    k += (size_t)snprintf(s->got + k, sizeof s->got - k, "%zu/%zu:", at->line, at->record);
    for (int i = 0; i < nf; i++)
        k += (size_t)snprintf(s->got + k, sizeof s->got - k, "%s%s", i ? "|" : "", f[i]);
    snprintf(s->got + k, sizeof s->got - k, ";");
    s->n++;
    if (!strcmp(f[0], "stop"))
        return tsv_field_err(err, errlen, at, "a", f[0], "is %s", "refused by the caller");
    return 0;
}

static char dir[] = "/tmp/tsvXXXXXX", path[64];

static int read_text(const char *text, size_t len, int final_newline, seen *s, char *err)
{
    char e[UT_ERRLEN];
    cr_assert_eq(ut_write_file(path, text, len, e, sizeof e), 0, "%s", e);
    memset(s, 0, sizeof *s);
    tsv_spec sp = {path, "a\tb", 2, final_newline};
    return tsv_read(&sp, keep, s, err, UT_ERRLEN);
}

static void setup(void)
{
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.tsv", dir);
}

static void teardown(void)
{
    unlink(path);
    rmdir(dir);
}

TestSuite(tsv, .init = setup, .fini = teardown);

Test(tsv, comments_and_empty_lines_mean_nothing_anywhere)
{
    seen s;
    char err[UT_ERRLEN];
    const char *t = "# before the header\n\na\tb\n#\tx\ty\n1\t2\n\n# between\n3\t\n\r\n4\t5\r\n6\t7";
    cr_assert_eq(read_text(t, strlen(t), 0, &s, err), 0, "%s", err);
    /* a record keeps its line (comments counted) and its place (not) */
    cr_assert_str_eq(s.got, "5/1:1|2;8/2:3|;10/3:4|5;11/4:6|7;");
}

Test(tsv, what_is_refused_names_file_and_line)
{
    seen s;
    char err[UT_ERRLEN], big[TSV_MAXLINE + 64];
    const struct {
        const char *text, *says;
    } bad[] = {
        {"", ": no header line"},
        {"# only comments\n\n", ": no header line"},
        {"a\tc\n1\t2\n", ":1: the header must be \"a\tb\""},
        {"# c\na\tb\n1\n", ":3: 1 fields, expected 2 (a b)"},
        {"a\tb\n1\t2\t3\n", ":2: more than 2 fields, expected 2 (a b)"},
        {"a\tb\n # not a comment\n", ":2: 1 fields"},
        {"a\tb\nstop\t1\n", ":2: field a \"stop\" is refused by the caller"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(read_text(bad[i].text, strlen(bad[i].text), 0, &s, err), -1, "case %zu", i);
        cr_assert(!strncmp(err, path, strlen(path)) && strstr(err, bad[i].says), "case %zu: %s", i, err);
    }
    /* a NUL byte */
    cr_assert_eq(read_text("a\tb\n1\t2\0x\n", 10, 0, &s, err), -1);
    cr_assert(strstr(err, ":2: a NUL byte in the line"), "%s", err);
    /* a line over TSV_MAXLINE, even a comment: read whole, then refused */
    snprintf(big, sizeof big, "a\tb\n#");
    memset(big + 5, 'x', TSV_MAXLINE);
    snprintf(big + 5 + TSV_MAXLINE, sizeof big - 5 - TSV_MAXLINE, "\n1\t2\n");
    cr_assert_eq(read_text(big, strlen(big), 0, &s, err), -1);
    cr_assert(strstr(err, ":2: line longer than 4096 bytes"), "%s", err);
    big[4 + TSV_MAXLINE] = '\n'; /* a comment of exactly TSV_MAXLINE bytes, an empty line */
    cr_assert_eq(read_text(big, strlen(big), 0, &s, err), 0, "%s", err);
    cr_assert_str_eq(s.got, "4/1:1|2;");
    /* the last line without its newline, for a file that must have it */
    cr_assert_eq(read_text("a\tb\n1\t2", 7, 1, &s, err), -1);
    cr_assert(strstr(err, ":2: the last line does not end with a newline"), "%s", err);
    cr_assert_eq(read_text("a\tb\n1\t2\n", 8, 1, &s, err), 0, "%s", err);
    cr_assert_eq(s.n, 1);
    /* a file that is not there */
    tsv_spec sp = {"/nonexistent/t.tsv", "a", 1, 0};
    cr_assert_eq(tsv_read(&sp, keep, &s, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent/t.tsv"), "%s", err);
}
