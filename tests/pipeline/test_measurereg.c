/* `measure` and the registration: each of the seven registered files changed
 * (or read from elsewhere, changed) refused with its name, the registered
 * design (data/profiles.tsv) among them; a registration of fewer files (the
 * six of a study registered before the design was) or none refused; and no password in anything measure records
 * (pipeline/RESULTS.md, "prereg.json" and "Secrets in the records").  On the
 * tiny profile with the idle gate off, in fresh temporary folders with a
 * prereg.json made here (the rest of measure: test_measure.c). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exits.h"
#include "util.h"
#include "tsh.h"

#define MEASURE "build/bin/measure --profile tiny --gate 0 --settle-s 0.2 --quiet tests/quiet_off.tsv"

static char out[64], aux[64]; /* OUT of measure; a folder for logs, copies and programs */

/* The seven registered files, in their order (pipeline/RESULTS.md, "prereg.json"). */
static const char *const REGFILES[7] = {"data/guesses.tsv",         "data/design.md",       "data/quiet.tsv",
                                        "lab/arms.tsv",             "pipeline/comparisons.tsv",
                                        "pipeline/ap_arms.tsv",     "data/profiles.tsv"};

/* prereg.json registering the first n of REGFILES as they are now; entry
 * `bad` (-1: none) gets the sha256 bad_sha (NULL: its own) and its size
 * plus size_off. */
static void write_prereg_ex(int n, int bad, const char *bad_sha, int size_off)
{
    char path[256], err[UT_ERRLEN], sha[65], text[4096];
    size_t len = (size_t)snprintf(text, sizeof text, "{\"registered_utc\": \"2026-01-01T00:00:00Z\", \"files\": [");
    for (int i = 0; i < n; i++) {
        uint64_t size;
        cr_assert_eq(ut_sha256_file(REGFILES[i], sha, &size, err, sizeof err), 0, "%s", err);
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "%s\n {\"path\": \"%s\", \"sha256\": \"%s\", \"size\": %llu}", i ? "," : "",
                                REGFILES[i], i == bad && bad_sha ? bad_sha : sha,
                                (unsigned long long)size + (unsigned long long)(i == bad ? size_off : 0));
    }
    snprintf(text + len, sizeof text - len, "]}\n");
    snprintf(path, sizeof path, "%s/provenance", out);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/provenance/prereg.json", out);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

/* prereg.json for the current files; a non-NULL bad_sha replaces guesses.tsv's. */
static void write_prereg(const char *bad_sha) { write_prereg_ex(7, bad_sha ? 0 : -1, bad_sha, 0); }

/* A folder of programs: the real store, service, tester and play, and `run` as given. */
static void fake_bin(const char *dir, const char *run_script)
{
    char path[512], err[UT_ERRLEN], text[4096];
    cr_assert_eq(shf("mkdir -p %s && for p in store service tester play predict; do ln -s \"$PWD/build/bin/$p\" %s/$p; done",
                     dir, dir),
                 0);
    snprintf(path, sizeof path, "%s/run", dir);
    snprintf(text, sizeof text, "#!/bin/sh\n%s", run_script);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    cr_assert_eq(chmod(path, 0755), 0);
}

static void setup(void)
{
    snprintf(out, sizeof out, "/tmp/measureregXXXXXX");
    snprintf(aux, sizeof aux, "/tmp/measureregauxXXXXXX");
    cr_assert_not_null(mkdtemp(out));
    cr_assert_not_null(mkdtemp(aux));
}

static void teardown(void) { shf("rm -rf %s %s", out, aux); }

TestSuite(measurereg, .init = setup, .fini = teardown, .timeout = 300);

Test(measurereg, a_changed_or_unregistered_file_is_refused_with_its_name)
{
    char log[128], path[256];
    snprintf(log, sizeof log, "%s/log", aux);
    write_prereg("0000000000000000000000000000000000000000000000000000000000000000");
    int rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    char *text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "data/guesses.tsv changed since its registration"), "%s", text);
    cr_assert(strstr(text, "prereg.json"), "%s", text);
    free(text);
    snprintf(path, sizeof path, "%s/results", out);
    cr_assert_neq(access(path, F_OK), 0, "measure touched %s", path);

    /* quiet.tsv changed: a prereg.json whose quiet.tsv entry is of another size */
    snprintf(path, sizeof path, "%s/provenance/prereg.json", out);
    write_prereg_ex(7, 2, NULL, 1);
    rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "data/quiet.tsv changed"), "%s", text);
    free(text);

    /* comparisons.tsv changed: measure reads a copy with one line more than the registered file */
    write_prereg(NULL);
    char copy[256];
    snprintf(copy, sizeof copy, "%s/comparisons.tsv", aux);
    cr_assert_eq(shf("cp pipeline/comparisons.tsv %s && echo '# one more line' >> %s", copy, copy), 0);
    rc = shf(MEASURE " --root %s --comparisons %s > %s 2>&1", out, copy, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    char want[512];
    snprintf(want, sizeof want,
             "pipeline/comparisons.tsv (read from %s) changed since its registration in %s/provenance/prereg.json "
             "(registered 2026-01-01T00:00:00Z)",
             copy, out);
    cr_assert(strstr(text, want), "%s", text);
    free(text);
    /* with the registered files, measure gets past the registration (to the missing programs of --bin) */
    char bin[256];
    snprintf(bin, sizeof bin, "%s/nobin", aux);
    rc = shf(MEASURE " --root %s --comparisons %s --ap-arms %s --bin %s > %s 2>&1", out, "pipeline/comparisons.tsv",
             "pipeline/ap_arms.tsv", bin, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(!strstr(text, "changed since") && strstr(text, "nobin/run: missing: run make build first"), "%s", text);
    free(text);

    /* the registered design changed after the registration: a copy of
     * data/profiles.tsv with tiny's capacity runs 2 s instead of 1 */
    write_prereg(NULL);
    char prof[256];
    snprintf(prof, sizeof prof, "%s/profiles.tsv", aux);
    cr_assert_eq(shf("sed 's/^tiny\tcapacity\tZ-capacity\t2\t1\t/tiny\tcapacity\tZ-capacity\t2\t2\t/' "
                     "data/profiles.tsv > %s && ! cmp -s data/profiles.tsv %s",
                     prof, prof),
                 0);
    rc = shf(MEASURE " --root %s --profiles %s > %s 2>&1", out, prof, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    snprintf(want, sizeof want,
             "data/profiles.tsv (read from %s) changed since its registration in %s/provenance/prereg.json", prof, out);
    cr_assert(strstr(text, want), "%s", text);
    free(text);
    snprintf(path, sizeof path, "%s/results", out);
    cr_assert_neq(access(path, F_OK), 0, "measure touched %s", path);
    snprintf(path, sizeof path, "%s/provenance/prereg.json", out);

    /* a registration of the six files of a study registered before the design was */
    write_prereg_ex(6, -1, NULL, 0);
    rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "prereg.json registers no data/profiles.tsv") && strstr(text, "run make prepare first"),
              "%s", text);
    free(text);

    /* a registration from before the six files (the first three only) */
    write_prereg_ex(3, -1, NULL, 0);
    rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "prereg.json registers no lab/arms.tsv") && strstr(text, "run make prepare first"), "%s",
              text);
    free(text);

    /* no registration at all */
    unlink(path);
    rc = shf(MEASURE " --root %s > %s 2>&1", out, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_USAGE, "%s", text);
    cr_assert(strstr(text, "prereg.json: missing") && strstr(text, "make prepare"), "%s", text);
    free(text);
}

/* Secrets (pipeline/RESULTS.md, "Secrets in the records"): a password in
 * anything measure records is masked.  The rules of a quiet run sit under a
 * folder named like a URL with a password, and `run` prints a connection
 * string; it is never idle (exit 3), so every run is recorded at once. */
Test(measurereg, a_password_in_a_command_line_or_output_is_masked_in_every_record)
{
    char dir[256], bin[128], log[128], quiet[320], masked[320];
    write_prereg(NULL);
    snprintf(dir, sizeof dir, "%s/pg://u:s3cretpw@h", aux);
    snprintf(quiet, sizeof quiet, "%s/quiet.tsv", dir);
    snprintf(masked, sizeof masked, "%s/pg://u:***@h/quiet.tsv", aux);
    cr_assert_eq(shf("mkdir -p '%s' && cp tests/quiet_off.tsv '%s'", dir, quiet), 0);
    snprintf(bin, sizeof bin, "%s/bin", aux);
    fake_bin(bin, "echo 'run: connecting with password=s3cretpw host=127.0.0.1'\n"
                  "echo \"tester: idle gate: only 41.0% idle (steal 0.0%) in the last 2 s after 60.0 s\" >&2\nexit 3\n");
    snprintf(log, sizeof log, "%s/log", aux);
    int rc = shf(MEASURE " --root %s --bin %s --quiet '%s' > %s 2>&1", out, bin, quiet, log);
    char *text = slurp(log);
    cr_assert_eq(rc, EXIT_NOT_QUIET, "%s", text);
    free(text);
    cr_assert_eq(shf("grep -rl s3cretpw %s/provenance", out), 1, "a password under %s/provenance", out);
    char path[256];
    snprintf(path, sizeof path, "%s/provenance/runs/H3-fb25-r1.json", out);
    json_t *rec = json_load_file(path, 0, NULL);
    cr_assert_not_null(rec, "%s", path);
    char *argv = json_dumps(json_object_get(rec, "argv"), 0);
    char *lines = json_dumps(json_object_get(rec, "run_output"), 0);
    cr_assert(strstr(argv, masked), "%s", argv);
    cr_assert(strstr(lines, "connecting with password=*** host=127.0.0.1"), "%s", lines);
    free(argv);
    free(lines);
    json_decref(rec);
    snprintf(path, sizeof path, "%s/provenance/stage-measure.json", out);
    rec = json_load_file(path, 0, NULL);
    cr_assert_not_null(rec, "%s", path);
    argv = json_dumps(json_object_get(rec, "argv"), 0);
    cr_assert(strstr(argv, masked), "%s", argv);
    free(argv);
    json_decref(rec);
}
