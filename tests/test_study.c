/* A whole study end to end on the tiny profile: prepare's registration,
 * measure, collect into a private PostgreSQL, and the independent verifier,
 * which must find 0 mismatches and 0 secrets; then a tampered number in
 * results.json is caught. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(study, tiny_study_passes_factcheck_and_a_tamper_is_caught, .timeout = 300)
{
    char out[] = "/tmp/studyXXXXXX", cmd[2048];
    cr_assert_not_null(mkdtemp(out));
    /* registration into OUT/provenance (prepare is deterministic: same files) */
    snprintf(cmd, sizeof cmd, "build/bin/prepare --prep build/prep --prov %s/provenance --data data > %s/log 2>&1",
             out, out);
    cr_assert_eq(sh(cmd), 0, "prepare");
    snprintf(cmd, sizeof cmd,
             "build/bin/measure --profile tiny --root %s --prep build/prep --bin build/bin --arms lab/arms.tsv "
             "--data data --gate 0 --settle-s 0.3 --quiet tests/quiet_off.tsv >> %s/log 2>&1",
             out, out);
    int rc = sh(cmd);
    if (rc) {
        snprintf(cmd, sizeof cmd, "cat %s/log", out);
        sh(cmd);
    }
    cr_assert_eq(rc, 0, "measure tiny");
    snprintf(cmd, sizeof cmd,
             "url=$(bash pipeline/pg.sh start build/pgstudy) && build/bin/collect --root %s --pgurl \"$url\" --quiet tests/quiet_off.tsv >> %s/log 2>&1; "
             "rc=$?; bash pipeline/pg.sh stop build/pgstudy; exit $rc",
             out, out);
    cr_assert_eq(sh(cmd), 0, "collect");
    snprintf(cmd, sizeof cmd, "build/bin/check --prov %s/provenance --root %s >> %s/log 2>&1", out, out, out);
    cr_assert_eq(sh(cmd), 0, "check, both manifests");
    snprintf(cmd, sizeof cmd,
             "verify/build/verify --root %s --guesses data/guesses.tsv --comparisons pipeline/comparisons.tsv "
             "--quiet tests/quiet_off.tsv > %s/verify.log 2>&1",
             out, out);
    rc = sh(cmd);
    if (rc) {
        snprintf(cmd, sizeof cmd, "tail -30 %s/verify.log", out);
        sh(cmd);
    }
    cr_assert_eq(rc, 0, "factcheck on the tiny study");
    snprintf(cmd, sizeof cmd, "tail -1 %s/verify.log | grep -qx '0 MISMATCHES'", out);
    cr_assert_eq(sh(cmd), 0);
    /* one number of results.json changed: exactly that mismatch */
    snprintf(cmd, sizeof cmd,
             "sed -i '0,/\"p99_ms\": [0-9]/s/\"p99_ms\": \\([0-9]\\)/\"p99_ms\": 9\\1/' %s/results/results.json && "
             "verify/build/verify --root %s --no-scan --guesses data/guesses.tsv --comparisons "
             "pipeline/comparisons.tsv --quiet tests/quiet_off.tsv > %s/verify2.log 2>&1; test $? -eq 1 && tail -1 %s/verify2.log | grep -qx '1 MISMATCHES' "
             "&& grep -q 'MISMATCH .*p99_ms' %s/verify2.log",
             out, out, out, out, out);
    rc = sh(cmd);
    if (rc) {
        snprintf(cmd, sizeof cmd, "cat %s/verify2.log", out);
        sh(cmd);
    }
    cr_assert_eq(rc, 0, "a changed p99 in results.json is reported, alone");
    snprintf(cmd, sizeof cmd, "rm -rf %s", out);
    sh(cmd);
}
