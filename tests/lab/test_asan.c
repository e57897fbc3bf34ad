/* Short runs of the measured programs built with AddressSanitizer,
 * LeakSanitizer and UBSan (`make asan`): any error or leak makes a program
 * exit 66, which fails the run (every policy shape, a breaker, two stores
 * with compartments, the hedge to a copy with both stores slow), and the service's suite (bad input, the store
 * failing, the defences) and the front door's (timeouts, shedding, closing) are run against the sanitizer
 * builds as well. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ENV "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:exitcode=66 " \
            "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(asan, short_runs_of_every_policy_shape, .timeout = 120)
{
    char dir[] = "/tmp/asanXXXXXX", cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    const char *arms[] = {"H3-r2bj", "H3-hedge", "H3-dldown", "H3-t25", "Z-capacity", "H3-brkr2-down", "H3-bulk-hang",
                          "H3-fbq999", "L3-hedge2-slowboth"};
    for (size_t i = 0; i < sizeof arms / sizeof arms[0]; i++) {
        snprintf(cmd, sizeof cmd,
                 ENV "build/asan/bin/run --bin build/asan/bin --arm %s --round 1 --seconds 1.5 --gate 0 "
                     "--settle-s 0.3 --freeze-share 0.2 --raw %s > %s/log 2>&1",
                 arms[i], dir, dir);
        int rc = sh(cmd);
        if (rc != 0) {
            snprintf(cmd, sizeof cmd, "cat %s/log", dir);
            sh(cmd);
        }
        cr_assert_eq(rc, 0, "%s under the sanitizers: exit %d", arms[i], rc);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(sh(cmd), 0);
}

Test(asan, bad_input_suite_against_sanitizer_builds, .timeout = 180)
{
    /* a clean environment: a Criterion run inside a Criterion worker aborts otherwise */
    char dir[] = "/tmp/asanlogXXXXXX", cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "env -i PATH=/usr/bin:/bin " ENV "LAB_BIN=build/asan/bin build/bin/tests --filter '@(service|frontdoor)/*' > %s/log 2>&1",
             dir);
    int rc = sh(cmd);
    if (rc != 0) {
        snprintf(cmd, sizeof cmd, "cat %s/log", dir);
        sh(cmd);
    }
    cr_assert_eq(rc, 0, "the service and frontdoor suites under the sanitizers: exit %d", rc);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(sh(cmd), 0);
}
