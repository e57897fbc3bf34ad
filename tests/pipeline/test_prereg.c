/* The preregistration as `prepare` writes it (pipeline/prepare/prepare.c's header,
 * pipeline/RESULTS.md "prereg.json"): the seven files in their order with the
 * hashes `sha256sum` gives, and provenance/registered/<path> a byte copy of
 * each (its sha256sum the registered one); kept by a rerun, copies and all;
 * a failed prepare leaves no copy; an older registration gaining the
 * missing files while nothing is measured, and refused once runs are.
 * Each test works in a fresh folder (its own --prep and OUT), so that
 * build/prep and the repository's provenance/ are not touched. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "tsh.h"

static const char *const SEVEN[7] = {"data/guesses.tsv",     "data/design.md",           "data/quiet.tsv",
                                     "lab/arms.tsv",         "pipeline/comparisons.tsv", "pipeline/ap_arms.tsv",
                                     "data/profiles.tsv"};

static char dir[64]; /* the test's folder: prep/, out/provenance/, log */

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/preregXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) { shf("rm -rf %s", dir); }

TestSuite(prereg, .init = setup, .fini = teardown, .timeout = 300);

/* prepare into the test's folder with more options; its exit code, its output in dir/log. */
static int prepare(const char *extra)
{
    return shf("build/bin/prepare --prep %s/prep --prov %s/out/provenance --data data %s > %s/log 2>&1", dir, dir,
               extra, dir);
}

/* sha256sum's answer for path: the independent reference. */
static void sha256sum(const char *path, char hex[65])
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_eq(fscanf(p, "%64s", hex), 1, "%s", cmd);
    pclose(p);
}

/* prereg.json lists exactly the seven, in order, each with sha256sum's hash
 * and stat's size of the file read from from[i] (NULL: the repository's);
 * and out/provenance/registered/<path> holds each file's bytes (cmp), its
 * sha256sum the entry's. */
static json_t *check_seven(const char *const from[7])
{
    char path[256];
    snprintf(path, sizeof path, "%s/out/provenance/prereg.json", dir);
    json_t *reg = json_load_file(path, 0, NULL), *files = json_object_get(reg, "files");
    cr_assert_not_null(reg, "%s", path);
    cr_assert_eq(json_array_size(files), 7);
    for (int i = 0; i < 7; i++) {
        const char *f = from && from[i] ? from[i] : SEVEN[i];
        json_t *e = json_array_get(files, (size_t)i);
        char hex[65];
        struct stat st;
        sha256sum(f, hex);
        cr_assert_eq(stat(f, &st), 0, "%s", f);
        cr_assert_str_eq(json_string_value(json_object_get(e, "path")), SEVEN[i], "entry %d", i);
        cr_assert_str_eq(json_string_value(json_object_get(e, "sha256")), hex, "%s", SEVEN[i]);
        cr_assert_eq(json_integer_value(json_object_get(e, "size")), (json_int_t)st.st_size, "%s", SEVEN[i]);
        char copy[256], chex[65];
        snprintf(copy, sizeof copy, "%s/out/provenance/registered/%s", dir, SEVEN[i]);
        sha256sum(copy, chex);
        cr_assert_str_eq(chex, hex, "%s: the copy's sha256 is not the registered one", copy);
        cr_assert_eq(shf("cmp -s '%s' '%s'", f, copy), 0, "%s differs from %s", copy, f);
    }
    /* nothing else there: the seven copies, no staging folder left */
    cr_assert_eq(shf("test $(find %s/out/provenance/registered -type f | wc -l) = 7", dir), 0);
    cr_assert_eq(shf("test ! -e %s/out/provenance/.registered.tmp && test ! -e %s/out/provenance/.registered.old", dir,
                     dir),
                 0);
    const char *at = json_string_value(json_object_get(reg, "registered_utc"));
    cr_assert(at && strlen(at) == 20 && at[10] == 'T' && at[19] == 'Z', "%s", at ? at : "(none)");
    return reg;
}

/* A registration of the first three files only, as prepare wrote it before
 * the six, with a prediction registered by measure. */
static void write_old_registration(void)
{
    char path[256], err[UT_ERRLEN], text[2048], hex[3][65];
    struct stat st[3];
    for (int i = 0; i < 3; i++) {
        sha256sum(SEVEN[i], hex[i]);
        cr_assert_eq(stat(SEVEN[i], &st[i]), 0);
    }
    snprintf(path, sizeof path, "%s/out/provenance", dir);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0, "%s", err);
    snprintf(text, sizeof text,
             "{\"registered_utc\": \"2026-01-01T00:00:00Z\", \"files\": [\n"
             " {\"path\": \"data/guesses.tsv\", \"sha256\": \"%s\", \"size\": %lld},\n"
             " {\"path\": \"data/design.md\", \"sha256\": \"%s\", \"size\": %lld},\n"
             " {\"path\": \"data/quiet.tsv\", \"sha256\": \"%s\", \"size\": %lld}],\n"
             " \"prediction\": {\"path\": \"results/prediction.json\", \"sha256\": \"%064d\", \"size\": 1, "
             "\"registered_utc\": \"2026-01-01T00:00:01Z\"}}\n",
             hex[0], (long long)st[0].st_size, hex[1], (long long)st[1].st_size, hex[2], (long long)st[2].st_size, 0);
    snprintf(path, sizeof path, "%s/out/provenance/prereg.json", dir);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

Test(prereg, seven_files_in_order_with_their_hashes_and_copies_kept_by_a_rerun)
{
    char path[256], log[256], err[UT_ERRLEN];
    snprintf(log, sizeof log, "%s/log", dir);
    int rc = prepare("");
    char *text = slurp(log);
    cr_assert_eq(rc, 0, "%s", text);
    cr_assert(strstr(text, "prepare: registered the 7 files") && strstr(text, "their copies in "), "%s", text);
    free(text);
    json_t *reg = check_seven(NULL);
    struct stat c0, c1;
    snprintf(path, sizeof path, "%s/out/provenance/registered/data/profiles.tsv", dir);
    cr_assert_eq(stat(path, &c0), 0, "%s", path);
    cr_assert_null(json_object_get(reg, "prediction"));
    /* measure registers its prediction; a rerun of prepare keeps all of it, byte for byte */
    json_object_set_new(reg, "prediction", json_pack("{s:s,s:s,s:i,s:s}", "path", "results/prediction.json",
                                                      "sha256", "ab", "size", 2, "registered_utc",
                                                      "2030-01-01T00:00:00Z"));
    snprintf(path, sizeof path, "%s/out/provenance/prereg.json", dir);
    char *before = json_dumps(reg, JSON_INDENT(1));
    cr_assert_eq(ut_write_file(path, before, strlen(before), err, sizeof err), 0, "%s", err);
    json_decref(reg);
    rc = prepare("");
    text = slurp(log);
    cr_assert_eq(rc, 0, "%s", text);
    cr_assert_null(strstr(text, "registered the"), "%s", text);
    free(text);
    char *after = slurp(path);
    cr_assert_str_eq(after, before);
    free(after);
    free(before);
    /* the copies too: the same files, not written again */
    snprintf(path, sizeof path, "%s/out/provenance/registered/data/profiles.tsv", dir);
    cr_assert_eq(stat(path, &c1), 0, "%s", path);
    cr_assert(c1.st_ino == c0.st_ino && c1.st_mtim.tv_sec == c0.st_mtim.tv_sec &&
                  c1.st_mtim.tv_nsec == c0.st_mtim.tv_nsec,
              "%s written again by a rerun", path);
    json_decref(check_seven(NULL));
    /* a copy gone or changed (the files still as registered): written anew, the registration kept */
    cr_assert_eq(shf("echo x >> %s && rm %s/out/provenance/registered/lab/arms.tsv", path, dir), 0);
    rc = prepare("");
    text = slurp(log);
    cr_assert_eq(rc, 0, "%s", text);
    cr_assert(strstr(text, "prepare: the copies of the 7 registered files written anew"), "%s", text);
    free(text);
    json_decref(check_seven(NULL));
    /* the design changed after prepare registered it: measure refuses, naming it, before any run */
    char prof[256];
    snprintf(prof, sizeof prof, "%s/profiles.tsv", dir);
    cr_assert_eq(shf("sed 's/^tiny\\topen\\t\\(.*\\)\\t2\\t1\\t1-20$/tiny\\topen\\t\\1\\t3\\t1\\t1-20/' "
                     "data/profiles.tsv > %s && ! cmp -s data/profiles.tsv %s",
                     prof, prof),
                 0);
    rc = shf("build/bin/measure --profile tiny --gate 0 --root %s/out --prep %s/prep --profiles %s > %s 2>&1", dir, dir,
             prof, log);
    text = slurp(log);
    cr_assert_eq(rc, 2, "%s", text);
    cr_assert(strstr(text, "data/profiles.tsv (read from ") && strstr(text, "changed since its registration"), "%s",
              text);
    free(text);
    snprintf(path, sizeof path, "%s/out/results", dir);
    cr_assert_neq(access(path, F_OK), 0, "measure made %s", path);
}

/* A prepare that fails to write prereg.json (a folder in its place) leaves
 * no copy and no staging folder behind. */
Test(prereg, a_failed_registration_leaves_no_copy)
{
    char log[256];
    snprintf(log, sizeof log, "%s/log", dir);
    cr_assert_eq(shf("mkdir -p %s/out/provenance/prereg.json", dir), 0);
    int rc = prepare("");
    char *text = slurp(log);
    cr_assert_neq(rc, 0, "%s", text);
    cr_assert(strstr(text, "prereg.json"), "%s", text);
    free(text);
    cr_assert_eq(shf("test ! -e %s/out/provenance/registered && test ! -e %s/out/provenance/.registered.tmp", dir, dir),
                 0, "a copy left behind");
}

Test(prereg, an_older_registration_gains_the_missing_files_while_nothing_is_measured)
{
    char log[256];
    snprintf(log, sizeof log, "%s/log", dir);
    write_old_registration();
    int rc = prepare("");
    char *text = slurp(log);
    cr_assert_eq(rc, 0, "%s", text);
    cr_assert(strstr(text, "(lab/arms.tsv not registered before, pipeline/comparisons.tsv not registered before, "
                           "pipeline/ap_arms.tsv not registered before, data/profiles.tsv not registered before)"),
              "%s", text);
    free(text);
    json_t *reg = check_seven(NULL);
    cr_assert_str_neq(json_string_value(json_object_get(reg, "registered_utc")), "2026-01-01T00:00:00Z");
    cr_assert_null(json_object_get(reg, "prediction"), "a prediction made before the registration is dropped");
    json_decref(reg);
}

Test(prereg, a_registration_after_measured_runs_is_refused)
{
    char log[256], path[256], copy[256];
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(path, sizeof path, "%s/out/provenance/prereg.json", dir);
    /* an older registration, and a run's record */
    write_old_registration();
    char *before = slurp(path);
    cr_assert_eq(shf("mkdir -p %s/out/provenance/runs && echo '{}' > %s/out/provenance/runs/H3-fb25-r1.json", dir,
                     dir),
                 0);
    int rc = prepare("");
    char *text = slurp(log);
    cr_assert_eq(rc, 2, "%s", text);
    cr_assert(strstr(text, "lab/arms.tsv not registered before") && strstr(text, "runs/H3-fb25-r1.json") &&
                  strstr(text, "another OUT"),
              "%s", text);
    free(text);
    char *after = slurp(path);
    cr_assert_str_eq(after, before, "the registration untouched");
    free(after);
    free(before);
    snprintf(copy, sizeof copy, "%s/prep", dir);
    cr_assert_neq(access(copy, F_OK), 0, "nothing built");

    /* a full registration, then comparisons.tsv changed: registered anew while no run is measured ... */
    shf("rm -rf %s/out", dir);
    cr_assert_eq(prepare(""), 0);
    snprintf(copy, sizeof copy, "%s/comparisons.tsv", dir);
    cr_assert_eq(shf("cp pipeline/comparisons.tsv %s && echo '# one more line' >> %s", copy, copy), 0);
    char extra[300];
    snprintf(extra, sizeof extra, "--comparisons %s", copy);
    rc = prepare(extra);
    text = slurp(log);
    cr_assert_eq(rc, 0, "%s", text);
    cr_assert(strstr(text, "(pipeline/comparisons.tsv changed)"), "%s", text);
    free(text);
    const char *from[7] = {NULL, NULL, NULL, NULL, copy, NULL, NULL};
    json_decref(check_seven(from));
    /* ... and refused once a run folder is in results/raw */
    before = slurp(path);
    cr_assert_eq(shf("mkdir -p %s/out/results/raw/H3-fb25-r1", dir), 0);
    rc = prepare("");
    text = slurp(log);
    cr_assert_eq(rc, 2, "%s", text);
    cr_assert(strstr(text, "pipeline/comparisons.tsv changed") && strstr(text, "results/raw/H3-fb25-r1"), "%s", text);
    free(text);
    after = slurp(path);
    cr_assert_str_eq(after, before, "the registration untouched");
    free(after);
    free(before);
}
