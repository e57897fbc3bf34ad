/* `check` fails, naming the file, on a one-byte change; passes otherwise.
 * Also: atomic writes leave nothing behind on failure. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prov.h"
#include "util.h"

static int run(const char *cmd, char *out, size_t n)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t len = fread(out, 1, n - 1, p);
    out[len] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(check, one_byte_change_is_named)
{
    char dir[] = "/tmp/checkXXXXXX", a[128], b[128], man[128], cmd[512], out[4096],
         err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/alpha.tsv", dir);
    snprintf(b, sizeof b, "%s/beta.tsv", dir);
    cr_assert_eq(ut_write_file(a, "one\t1\n", 6, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ut_write_file(b, "two\t2\n", 6, err, sizeof err), 0, "%s", err);
    char *argv[] = {"test"};
    prov *p = prov_begin("test", 1, argv);
    cr_assert_eq(prov_input(p, a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(prov_output(p, b, err, sizeof err), 0, "%s", err);
    snprintf(man, sizeof man, "%s/manifest-test.tsv", dir);
    cr_assert_eq(prov_manifest(p, man, err, sizeof err), 0, "%s", err);
    cr_assert_eq(prov_end(p, 0, dir, err, sizeof err), 0, "%s", err);

    snprintf(cmd, sizeof cmd, "build/bin/check --prov %s 2>&1", dir);
    cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "2 files match"), "%s", out);

    /* One byte of beta changes, same size. */
    cr_assert_eq(ut_write_file(b, "two\t3\n", 6, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run(cmd, out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "CHANGED") && strstr(out, "beta.tsv"), "%s", out);
    cr_assert_null(strstr(out, "alpha.tsv"), "alpha did not change: %s", out);

    /* A missing file is named too. */
    unlink(a);
    cr_assert_eq(run(cmd, out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "alpha.tsv"), "%s", out);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(check, no_manifest_is_a_clear_error)
{
    char out[1024];
    cr_assert_eq(run("build/bin/check --prov /nonexistent/prov 2>&1", out, sizeof out), 2);
    cr_assert(strstr(out, "/nonexistent/prov") && strstr(out, "make prepare"), "%s", out);
}

Test(util, atomic_write_leaves_nothing_on_abort)
{
    char dir[] = "/tmp/atomXXXXXX", path[128], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.txt", dir);
    ut_afile f;
    cr_assert_eq(ut_aopen(&f, path, err, sizeof err), 0);
    fputs("half", f.f);
    cr_assert_eq(ut_aclose(&f, 0, err, sizeof err), 0);
    cr_assert_eq(access(path, F_OK), -1, "aborted write must leave no file");
    cr_assert_eq(access(f.tmp, F_OK), -1, "nor its temporary");
    cr_assert_eq(rmdir(dir), 0, "folder is empty");
}

Test(util, civil_days_round_trip)
{
    cr_assert_eq(ut_days_from_civil(1970, 1, 1), 0);
    cr_assert_eq(ut_days_from_civil(2011, 6, 1) - ut_days_from_civil(2011, 1, 10), 142);
    cr_assert_eq(ut_days_from_civil(2012, 3, 1) - ut_days_from_civil(2012, 2, 28), 2, "leap year");
    for (int32_t z = 14000; z < 16000; z += 7) {
        int y, m, d;
        ut_civil_from_days(z, &y, &m, &d);
        cr_assert_eq(ut_days_from_civil(y, m, d), z);
    }
}

Test(util, counter_dice_are_pure)
{
    /* The same key gives the same bits whatever was drawn before. */
    uint64_t a = ut_hash4(1, 2, 3, 4);
    ut_rng r;
    ut_rng_seed(&r, 5);
    for (int i = 0; i < 100; i++)
        ut_rng_u64(&r);
    cr_assert_eq(ut_hash4(1, 2, 3, 4), a);
    cr_assert_neq(ut_hash4(1, 2, 3, 5), a);
    cr_assert_neq(ut_hash4(1, 2, 4, 4), a);
    /* Uniform in [0,1): mean of 100k draws within 0.005 of 1/2. */
    double s = 0;
    for (int i = 0; i < 100000; i++)
        s += ut_u64_unit(ut_hash4(9, (uint64_t)i, 0, 0));
    cr_assert_float_eq(s / 100000, 0.5, 0.005);
}

/* A size beyond 64 bits in a manifest is named with its file, line and
 * field (it used to wrap silently); an unknown option exits 2. */
Test(check, overflowing_size_and_bad_options_are_named)
{
    char dir[] = "/tmp/checkXXXXXX", man[128], cmd[512], out[4096], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(man, sizeof man, "%s/manifest-x.tsv", dir);
    const char *text = "path\tsize\tsha256\n"
                       "a.tsv\t99999999999999999999\t"
                       "0000000000000000000000000000000000000000000000000000000000000000\n";
    cr_assert_eq(ut_write_file(man, text, strlen(text), err, sizeof err), 0, "%s", err);
    snprintf(cmd, sizeof cmd, "build/bin/check --prov %s 2>&1", dir);
    cr_assert_eq(run(cmd, out, sizeof out), 2, "%s", out);
    cr_assert(strstr(out, "manifest-x.tsv:2: field size") && strstr(out, "overflow"), "%s", out);
    cr_assert_eq(run("build/bin/check --gate yes 2>&1", out, sizeof out), 2, "%s", out);
    cr_assert(strstr(out, "unknown option --gate"), "%s", out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The one percentile of the lab side (util.h), by hand: linear between
 * closest ranks, h = (n - 1)·q. */
Test(check, percentile_by_hand)
{
    int64_t v[5] = {5, 1, 3, 2, 4};
    ut_sort_i64(v, 5);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(v[i], i + 1);
    cr_assert_float_eq(ut_pct_sorted(v, 5, 0.5), 3.0, 1e-15);
    cr_assert_float_eq(ut_pct_sorted(v, 5, 0.99), 4.96, 1e-12); /* h = 3.96 */
    cr_assert_float_eq(ut_pct_sorted(v, 5, 0.0), 1.0, 1e-15);
    cr_assert_float_eq(ut_pct_sorted(v, 5, 1.0), 5.0, 1e-15);
    cr_assert_float_eq(ut_pct_sorted(v, 1, 0.99), 1.0, 1e-15);
    cr_assert(isnan(ut_pct_sorted(v, 0, 0.5)));
}

/* A libevent timeout from an absolute time: rounded up to whole µs, never
 * negative, seconds carried. */
Test(util, tv_until_rounds_up_and_never_goes_negative)
{
    struct timeval tv = ut_tv_until(ut_mono_ns() - 5000000);
    cr_assert(tv.tv_sec == 0 && tv.tv_usec == 0, "a past time: at once");
    int64_t at = ut_mono_ns() + 2500000001LL; /* 2.5 s and 1 ns */
    tv = ut_tv_until(at);
    int64_t us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
    cr_assert(tv.tv_usec >= 0 && tv.tv_usec < 1000000);
    /* now was read inside after `at` was set: the delay is at most 2500000.001
     * µs, rounded up to 2500001 µs, and well above 2.4 s */
    cr_assert(us <= 2500001 && us > 2400000, "%lld us", (long long)us);
    cr_assert(us * 1000 >= at - ut_mono_ns(), "never early: %lld us", (long long)us);
}

/* util.h: ut_put_i64 writes what "%lld" writes, the ends of int64 included */
Test(util, put_i64_is_printf_lld)
{
    const int64_t v[] = {0, 1, -1, 9, 10, -10, 1234567890123LL, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char got[32], want[32];
        size_t n = ut_put_i64(got, v[i]);
        got[n] = 0;
        snprintf(want, sizeof want, "%lld", (long long)v[i]);
        cr_assert_str_eq(got, want);
        cr_assert_eq(n, strlen(want));
    }
}
