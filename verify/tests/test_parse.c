/* Checked parsing: the number parsers (vnum.h) on hand-picked edges, the
 * option table of build/verify (vopt.h), and a raw row whose integer does
 * not fit in 64 bits. */
#include <criterion/criterion.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rawread.h"
#include "thelp.h"
#include "vnum.h"
#include "vutil.h"

static int i64(const char *s, long long lo, long long hi, long long *x)
{
    return vn_i64(s, strlen(s), lo, hi, x);
}

Test(vnum, integers_whole_field_range_overflow)
{
    long long x = 7;
    cr_expect_eq(i64("0", LLONG_MIN, LLONG_MAX, &x), VN_OK);
    cr_expect_eq(x, 0);
    cr_expect_eq(i64("-42", LLONG_MIN, LLONG_MAX, &x), VN_OK);
    cr_expect_eq(x, -42);
    cr_expect_eq(i64("9223372036854775807", LLONG_MIN, LLONG_MAX, &x), VN_OK);
    cr_expect_eq(x, LLONG_MAX);
    cr_expect_eq(i64("-9223372036854775808", LLONG_MIN, LLONG_MAX, &x), VN_OK);
    cr_expect_eq(x, LLONG_MIN);
    /* one past either end of 64 bits, and far past: range, not a wrap */
    x = 7;
    cr_expect_eq(i64("9223372036854775808", LLONG_MIN, LLONG_MAX, &x), VN_RANGE);
    cr_expect_eq(i64("-9223372036854775809", LLONG_MIN, LLONG_MAX, &x), VN_RANGE);
    cr_expect_eq(i64("18446744073709551616", LLONG_MIN, LLONG_MAX, &x), VN_RANGE);
    cr_expect_eq(i64("123456789012345678901234567890", LLONG_MIN, LLONG_MAX, &x), VN_RANGE);
    cr_expect_eq(x, 7, "a refused value leaves *out alone");
    /* the caller's range */
    cr_expect_eq(i64("-1", 0, 100, &x), VN_RANGE);
    cr_expect_eq(i64("101", 0, 100, &x), VN_RANGE);
    cr_expect_eq(i64("100", 0, 100, &x), VN_OK);
    /* not integers: the whole field or nothing */
    const char *bad[] = {"", "-", "+1", " 1", "1 ", "1x", "0x10", "1.0", "1e3", "--1",
                         "99999999999999999999x", NULL};
    for (int i = 0; bad[i]; i++)
        cr_expect_eq(i64(bad[i], LLONG_MIN, LLONG_MAX, &x), VN_SYNTAX, "\"%s\"", bad[i]);
    /* len, not the NUL, ends the field */
    cr_expect_eq(vn_i64("12345", 3, LLONG_MIN, LLONG_MAX, &x), VN_OK);
    cr_expect_eq(x, 123);
}

Test(vnum, decimals_whole_field_and_range)
{
    double d = 0;
    float f = 0;
    cr_expect_eq(vn_f64("0.5", 3, &d), VN_OK);
    cr_expect_eq(d, 0.5);
    cr_expect_eq(vn_f64("-1e-3", 5, &d), VN_OK);
    cr_expect_eq(d, -1e-3);
    cr_expect_eq(vn_f64("2.", 2, &d), VN_OK);
    cr_expect_eq(d, 2.0);
    cr_expect_eq(vn_f64(".25", 3, &d), VN_OK);
    cr_expect_eq(d, 0.25);
    cr_expect_eq(vn_f64("1E+2", 4, &d), VN_OK);
    cr_expect_eq(d, 100.0);
    /* %.9g of a float reads back exactly */
    cr_expect_eq(vn_f32("0.272524476", 11, &f), VN_OK);
    cr_expect_eq(f, strtof("0.272524476", NULL));
    /* beyond the type's range */
    cr_expect_eq(vn_f32("1e39", 4, &f), VN_RANGE);
    cr_expect_eq(vn_f64("1e39", 4, &d), VN_OK);
    cr_expect_eq(vn_f64("1e309", 5, &d), VN_RANGE);
    cr_expect_eq(vn_f64("-1e309", 6, &d), VN_RANGE);
    /* not decimals */
    const char *bad[] = {"", "-", ".", "e5", "1e", "1e+", "+1", " 1", "1 ", "0x1p3", "inf", "nan", "1.2.3", "1,5", NULL};
    for (int i = 0; bad[i]; i++) {
        cr_expect_eq(vn_f64(bad[i], strlen(bad[i]), &d), VN_SYNTAX, "\"%s\"", bad[i]);
        cr_expect_eq(vn_f32(bad[i], strlen(bad[i]), &f), VN_SYNTAX, "\"%s\"", bad[i]);
    }
    /* a long field (beyond the stack copy) */
    char longs[200];
    memset(longs, '0', sizeof longs);
    longs[0] = '0';
    longs[1] = '.';
    longs[198] = '5';
    longs[199] = 0;
    cr_expect_eq(vn_f64(longs, strlen(longs), &d), VN_OK);
    cr_expect(d > 0 && d < 1e-190, "%g", d);
}

/* ---- the command line of build/verify ---- */

/* run verify with args: its exit code; its output in *out (caller frees) */
static int run(char **out, const char *const *args)
{
    int rc = th_run(out, args);
    cr_assert_neq(rc, -1, "could not run %s", VERIFY_BIN);
    return rc;
}

Test(options, unknown_option_is_one_line_and_exit_2)
{
    char *out;
    const char *a[] = {"--root", "/nonexistent", "--gate", "yes", NULL};
    cr_expect_eq(run(&out, a), 2, "%s", out);
    cr_expect_str_eq(out, "verify: unknown option \"--gate\" (verify --help lists them)\n");
    free(out);
    const char *b[] = {"--no-scan=yes", NULL};
    cr_expect_eq(run(&out, b), 2, "%s", out);
    cr_expect_str_eq(out, "verify: unknown option \"--no-scan=yes\" (verify --help lists them)\n");
    free(out);
    /* a flag takes no value: the word after it is not an option */
    const char *c[] = {"--no-scan", "yes", NULL};
    cr_expect_eq(run(&out, c), 2, "%s", out);
    cr_expect(strstr(out, "unexpected argument \"yes\""), "%s", out);
    cr_expect_eq(th_count_lines(out, "verify: "), 1, "%s", out);
    free(out);
}

Test(options, missing_value_names_the_option)
{
    char *out;
    const char *a[] = {"--no-scan", "--root", NULL};
    cr_expect_eq(run(&out, a), 2, "%s", out);
    cr_expect_str_eq(out, "verify: option --root needs a value (DIR)\n");
    free(out);
    /* the next word is an option: the value is missing, not "--no-scan" */
    const char *b[] = {"--max-print", "--no-scan", NULL};
    cr_expect_eq(run(&out, b), 2, "%s", out);
    cr_expect_str_eq(out, "verify: option --max-print needs a value (N)\n");
    free(out);
}

Test(options, bad_value_names_option_and_value)
{
    char *out;
    const char *a[] = {"--max-print", "20x", NULL};
    cr_expect_eq(run(&out, a), 2, "%s", out);
    cr_expect_str_eq(out, "verify: option --max-print: \"20x\" is not an integer\n");
    free(out);
    const char *b[] = {"--max-print", "-1", NULL};
    cr_expect_eq(run(&out, b), 2, "%s", out);
    cr_expect_str_eq(out, "verify: option --max-print: \"-1\" is out of range (0 to 9223372036854775807)\n");
    free(out);
    const char *c[] = {"--max-print", "99999999999999999999", NULL};
    cr_expect_eq(run(&out, c), 2, "%s", out);
    cr_expect(strstr(out, "\"99999999999999999999\" is out of range"), "%s", out);
    free(out);
}

Test(options, help_prints_the_table)
{
    char *out;
    const char *a[] = {"--help", NULL};
    cr_expect_eq(run(&out, a), 0, "%s", out);
    const char *names[] = {"--root DIR", "--no-scan", "--scan-only", "--out FILE", "--guesses FILE",
                           "--comparisons FILE", "--ap-arms FILE", "--max-print N", NULL};
    for (int i = 0; names[i]; i++) {
        char *line = vu_xasprintf("\n  %s ", names[i]);
        cr_expect(strstr(out, line), "no line for %s in:\n%s", names[i], out);
        free(line);
    }
    cr_expect_eq(strncmp(out, "usage: verify", 13), 0, "%s", out);
    free(out);
}

/* ---- a raw row with an integer beyond 64 bits ---- */

static unsigned char *gz_text(const char *text, size_t *len)
{
    uLong cap = compressBound((uLong)strlen(text)) + 64;
    unsigned char *out = vu_xmalloc(cap);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = (Bytef *)text;
    zs.avail_in = (uInt)strlen(text);
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    deflate(&zs, Z_FINISH);
    *len = zs.total_out;
    deflateEnd(&zs);
    return out;
}

Test(rawread, integer_beyond_64_bits_names_file_and_line)
{
    static const rr_col cols[] = {{"j", RR_INT, 0, NULL, 0}, {"a_t", RR_TIME, 1, NULL, 0}};
    /* line 4: j one past 2^63 - 1; line 5 would be fine */
    const char *text = "# lab-raw 4 tester\nj\ta_t\n0\t1000\n9223372036854775808\t5\n2\t5\n";
    size_t len;
    unsigned char *gz = gz_text(text, &len);
    rr_file f;
    rr_row r;
    char err[512] = "";
    int rc = rr_open(&f, "results/raw/X-r1/tester.tsv.gz", gz, len, "tester", cols, 2, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect_eq(rr_next(&f, &r, err, sizeof err), 1, "%s", err);
    cr_expect_eq(r.v[0], 0);
    cr_expect_eq(rr_next(&f, &r, err, sizeof err), -1);
    cr_expect_str_eq(err, "results/raw/X-r1/tester.tsv.gz:4: field j \"9223372036854775808\" is beyond 64 bits "
                          "(-2^63 to 2^63-1)");
    rr_close(&f);
    free(gz);
    /* a time delta beyond 64 bits is the same error, not a wrapped instant */
    const char *t2 = "# lab-raw 4 tester\nj\ta_t\n0\t-99999999999999999999\n";
    gz = gz_text(t2, &len);
    rc = rr_open(&f, "t.tsv.gz", gz, len, "tester", cols, 2, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect_eq(rr_next(&f, &r, err, sizeof err), -1);
    cr_expect(strstr(err, "t.tsv.gz:3: field a_t \"-99999999999999999999\" is beyond 64 bits"), "%s", err);
    rr_close(&f);
    free(gz);
}
