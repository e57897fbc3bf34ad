/* lab/base/opt.c: checked numbers and the option table, by hand. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdint.h>
#include <string.h>

#include "opt.h"
#include "util.h"

Test(opt, integers_whole_string_range_and_overflow)
{
    char why[128];
    int64_t v = 7;
    cr_assert_eq(opt_i64("42", 0, 100, &v, why, sizeof why), 0);
    cr_assert_eq(v, 42);
    cr_assert_eq(opt_i64("-3", -5, 5, &v, why, sizeof why), 0);
    cr_assert_eq(v, -3);
    cr_assert_eq(opt_i64("9223372036854775807", INT64_MIN, INT64_MAX, &v, why, sizeof why), 0);
    cr_assert_eq(v, INT64_MAX);
    v = 7;
    cr_assert_eq(opt_i64("9223372036854775808", INT64_MIN, INT64_MAX, &v, why, sizeof why), -1);
    cr_assert(strstr(why, "overflow"), "%s", why);
    cr_assert_eq(opt_i64("yes", 0, 1, &v, why, sizeof why), -1);
    cr_assert_str_eq(why, "not an integer");
    cr_assert_eq(opt_i64("12x", 0, 100, &v, why, sizeof why), -1);
    cr_assert_eq(opt_i64("", 0, 100, &v, why, sizeof why), -1);
    cr_assert_eq(opt_i64(" 1", 0, 100, &v, why, sizeof why), -1);
    cr_assert_eq(opt_i64("1.5", 0, 100, &v, why, sizeof why), -1);
    cr_assert_eq(opt_i64("101", 0, 100, &v, why, sizeof why), -1);
    cr_assert_str_eq(why, "out of range 0..100");
    cr_assert_eq(v, 7, "a refused value leaves the output alone");
    int i = 0;
    cr_assert_eq(opt_int("3000000000", INT32_MIN, INT32_MAX, &i, why, sizeof why), -1);
}

Test(opt, floats_decimal_and_finite_only)
{
    char why[128];
    double d = 0;
    cr_assert_eq(opt_f64("2.5", 0, 10, &d, why, sizeof why), 0);
    cr_assert_eq(d, 2.5);
    cr_assert_eq(opt_f64("1e-3", 0, 10, &d, why, sizeof why), 0);
    cr_assert_eq(d, 0.001);
    cr_assert_eq(opt_f64("nan", 0, 10, &d, why, sizeof why), -1);
    cr_assert_eq(opt_f64("inf", -1e300, 1e300, &d, why, sizeof why), -1);
    cr_assert_eq(opt_f64("0x10", 0, 100, &d, why, sizeof why), -1);
    cr_assert_eq(opt_f64("1e999", -1e300, 1e300, &d, why, sizeof why), -1);
    cr_assert_eq(opt_f64("3 ", 0, 10, &d, why, sizeof why), -1);
    cr_assert_eq(opt_f64("-0.5", 0, 10, &d, why, sizeof why), -1);
    cr_assert(strstr(why, "out of range"), "%s", why);
}

static int gate = 1, csv = 0, rounds = 5;
static double secs = 30;
static const char *arm = NULL;
static const opt_spec SPEC[] = {{"--arm", OPT_STR, &arm, 0, 0, "NAME", "the arm"},
                                {"--gate", OPT_BOOL, &gate, 0, 1, "0|1", "idle gate"},
                                {"--rounds", OPT_INT, &rounds, 1, 99, "N", "rounds"},
                                {"--seconds", OPT_DBL, &secs, 0.001, 3600, "S", "length"},
                                {"--csv", OPT_FLAG, &csv, 0, 0, NULL, "csv"},
                                {0}};

static int parse(int argc, const char **argv, opt_pos *pos)
{
    return opt_parse(argc, (char **)argv, SPEC, "about", pos);
}

Test(opt, table_sets_every_type, .init = cr_redirect_stderr)
{
    const char *av[] = {"prog", "--arm", "H3-fb25", "--gate=0", "--rounds", "3", "--seconds", "1.5", "--csv"};
    cr_assert_eq(parse(9, av, NULL), OPT_OK);
    cr_assert_str_eq(arm, "H3-fb25");
    cr_assert_eq(gate, 0);
    cr_assert_eq(rounds, 3);
    cr_assert_eq(secs, 1.5);
    cr_assert_eq(csv, 1);
}

Test(opt, gate_yes_is_refused_naming_option_and_value, .init = cr_redirect_stderr)
{
    gate = 1;
    ut_set_prog("prog");
    const char *av[] = {"prog", "--gate", "yes"};
    cr_assert_eq(parse(3, av, NULL), OPT_BAD);
    cr_assert_eq(gate, 1);
    fflush(stderr);
    cr_assert_stderr_eq_str("prog: option --gate: \"yes\" is not 0 or 1\n");
}

Test(opt, bad_values_unknown_options_and_positionals, .init = cr_redirect_stderr)
{
    const char *a1[] = {"prog", "--rounds", "0"};
    cr_assert_eq(parse(3, a1, NULL), OPT_BAD);
    const char *a2[] = {"prog", "--seconds"};
    cr_assert_eq(parse(2, a2, NULL), OPT_BAD);
    const char *a3[] = {"prog", "--color", "red"};
    cr_assert_eq(parse(3, a3, NULL), OPT_BAD);
    const char *a4[] = {"prog", "file.tsv"};
    cr_assert_eq(parse(2, a4, NULL), OPT_BAD);
    const char *a5[] = {"prog", "--csv=1"};
    cr_assert_eq(parse(2, a5, NULL), OPT_BAD);
    opt_pos pos;
    const char *a6[] = {"prog", "a", "--csv", "b"};
    cr_assert_eq(parse(4, a6, &pos), OPT_OK);
    cr_assert_eq(pos.n, 2);
    cr_assert_str_eq(pos.v[1], "b");
}

/* A bound of INT64_MAX (2^63 as a double) is the type's end, not an
 * overflowing cast. */
Test(opt, i64_bounds_at_the_types_end, .init = cr_redirect_stderr)
{
    int64_t seed = 0;
    const opt_spec spec[] = {{"--seed", OPT_I64, &seed, 0, (double)INT64_MAX, "N", "seed"}, {0}};
    const char *av[] = {"prog", "--seed", "9223372036854775807"};
    cr_assert_eq(opt_parse(3, (char **)av, spec, NULL, NULL), OPT_OK);
    cr_assert_eq(seed, INT64_MAX);
    const char *bv[] = {"prog", "--seed", "-1"};
    cr_assert_eq(opt_parse(3, (char **)bv, spec, NULL, NULL), OPT_BAD);
}
