/* `make release` (pipeline/release/release.sh; pipeline/RESULTS.md "make release")
 * on a small hand-made study whose results/verified.json is written here:
 * the archive holds exactly the list (names and bytes read back with tar
 * and sha256sum), a file written after the verification stops it, two
 * releases in the same second get two names, and any failure leaves no
 * archive and no temporary file.
 *
 * The scanner: a stub verifier (aux/verify) records its arguments and
 * exits as told (SCAN_RC), so that the script's handling of each answer is
 * tested on every branch; the real scanner (verify/build/verify --scan) is
 * tested too when it has that option, and skipped with the reason when not. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "tsh.h"

static char out[64], aux[64];

static void put(const char *rel, const char *text)
{
    char path[512], err[UT_ERRLEN];
    snprintf(path, sizeof path, "%s/%s", out, rel);
    char *slash = strrchr(path, '/');
    *slash = 0;
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0, "%s", err);
    *slash = '/';
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

/* The files the "verifier" read, in byte order of path; two more are not listed. */
#define NLISTED 5
static const char *const LISTED[NLISTED] = {"provenance/manifest-measure.tsv", "provenance/stage-measure.json",
                                            "results/raw/H3-fb25-r1/run.json",
                                            "results/raw/H3-fb25-r1/tester tsv with spaces.gz",
                                            "results/results.json"};

/* verified.json ("ok": true unless ok is 0) listing LISTED with their sizes and hashes now. */
static void write_verified(int ok)
{
    char text[4096], err[UT_ERRLEN];
    size_t len = (size_t)snprintf(text, sizeof text, "{\"format\": \"lab-verified 1\", \"ok\": %s, \"mismatches\": 0,\n \"files\": [",
                                  ok ? "true" : "false");
    for (int i = 0; i < NLISTED; i++) {
        char path[512], sha[65];
        uint64_t size;
        snprintf(path, sizeof path, "%s/%s", out, LISTED[i]);
        cr_assert_eq(ut_sha256_file(path, sha, &size, err, sizeof err), 0, "%s", err);
        len += (size_t)snprintf(text + len, sizeof text - len, "%s\n  {\"path\": \"%s\", \"size\": %llu, \"sha256\": \"%s\"}",
                                i ? "," : "", LISTED[i], (unsigned long long)size, sha);
    }
    snprintf(text + len, sizeof text - len, "]}\n");
    put("results/verified.json", text);
}

static void setup(void)
{
    snprintf(out, sizeof out, "/tmp/releaseXXXXXX");
    snprintf(aux, sizeof aux, "/tmp/releaseauxXXXXXX");
    cr_assert_not_null(mkdtemp(out));
    cr_assert_not_null(mkdtemp(aux));
    put("provenance/manifest-measure.tsv", "path\tsize\tsha256\n");
    put("provenance/stage-measure.json", "{\"stage\": \"measure\"}\n");
    put("results/raw/H3-fb25-r1/run.json", "{\"arm\": \"H3-fb25\", \"round\": 1}\n");
    put("results/raw/H3-fb25-r1/tester tsv with spaces.gz", "not really gzip, bytes all the same\n");
    put("results/results.json", "{\"format\": \"lab-results 1\"}\n");
    put("results/unverified.txt", "written after the verifier ran: never packed\n");
    put("provenance/notes.txt", "not read by the verifier: never packed\n");
    write_verified(1);
    /* the stub scanner */
    char path[128], err[UT_ERRLEN], text[512];
    snprintf(path, sizeof path, "%s/verify", aux);
    snprintf(text, sizeof text,
             "#!/bin/sh\necho \"$@\" >> %s/scan.log\n[ \"$1\" = --scan ] && [ $# -eq 2 ] || exit 2\n"
             "exit ${SCAN_RC:-0}\n",
             aux);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    cr_assert_eq(chmod(path, 0755), 0);
}

static void teardown(void) { shf("rm -rf %s %s", out, aux); }

TestSuite(release, .init = setup, .fini = teardown, .timeout = 120);

/* release.sh on out with the stub scanner (verify: NULL) or the given one; its exit code, its output in aux/log. */
static int release_with(const char *verify, int scan_rc)
{
    char v[160];
    snprintf(v, sizeof v, "%s/verify", aux);
    return shf("SCAN_RC=%d VERIFY='%s' bash pipeline/release/release.sh %s > %s/log 2>&1", scan_rc, verify ? verify : v, out,
               aux);
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

/* The names in out/release, sorted; their number. */
static int release_dir(char names[8][256])
{
    char path[128];
    snprintf(path, sizeof path, "%s/release", out);
    DIR *d = opendir(path);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n < 8)
            snprintf(names[n++], 256, "%s", e->d_name);
    if (d)
        closedir(d);
    qsort(names, (size_t)n, 256, by_name);
    return n;
}

/* Nothing left behind: no release/ folder at all (it was made by the failed release). */
static void nothing_left(void)
{
    char names[8][256], path[128];
    int n = release_dir(names);
    cr_assert_eq(n, 0, "left in release/: %s", n ? names[0] : "");
    snprintf(path, sizeof path, "%s/release", out);
    cr_assert_neq(access(path, F_OK), 0, "%s still there", path);
}

/* The list as release.sha256 must hold it: LISTED and verified.json, in byte order, sha256sum format. */
static void expected_list(char *buf, size_t n)
{
    const char *all[NLISTED + 1];
    int k = 0;
    for (int i = 0; i < NLISTED; i++)
        all[k++] = LISTED[i];
    all[k++] = "results/verified.json";
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++)
            if (strcmp(all[j], all[i]) < 0) {
                const char *t = all[i];
                all[i] = all[j];
                all[j] = t;
            }
    size_t len = 0;
    for (int i = 0; i < k; i++) {
        char cmd[512], sha[65] = "";
        snprintf(cmd, sizeof cmd, "sha256sum '%s/%s'", out, all[i]);
        FILE *p = popen(cmd, "r");
        cr_assert_eq(fscanf(p, "%64s", sha), 1);
        pclose(p);
        len += (size_t)snprintf(buf + len, n - len, "%s  %s\n", sha, all[i]);
    }
}

/* sha256sum of a text. */
static void sha_of_text(const char *text, char sha[65])
{
    char path[128], err[UT_ERRLEN], cmd[256];
    snprintf(path, sizeof path, "%s/text", aux);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
    snprintf(cmd, sizeof cmd, "sha256sum %s", path);
    FILE *p = popen(cmd, "r");
    cr_assert_eq(fscanf(p, "%64s", sha), 1);
    pclose(p);
}

Test(release, the_archive_holds_exactly_the_list)
{
    char log[128], names[8][256], want[4096], lsha[65];
    snprintf(log, sizeof log, "%s/log", aux);
    int rc = release_with(NULL, 0);
    char *text = slurp(log);
    cr_assert_eq(rc, 0, "%s", text);
    cr_assert_eq(release_dir(names), 1, "one archive and nothing else in release/");
    /* its name: lab-release-<UTC>-<the first 8 hex of the list's sha256>.tar.gz */
    expected_list(want, sizeof want);
    sha_of_text(want, lsha);
    regex_t re;
    cr_assert_eq(regcomp(&re, "^lab-release-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}\\.tar\\.gz$", REG_EXTENDED), 0);
    cr_assert_eq(regexec(&re, names[0], 0, NULL, 0), 0, "%s", names[0]);
    regfree(&re);
    cr_assert_eq(strncmp(names[0] + 29, lsha, 8), 0, "%s: the list's sha256 is %s", names[0], lsha);
    char say[400];
    cr_assert_lt(snprintf(say, sizeof say, "release: %s/release/%s\n", out, names[0]), (int)sizeof say);
    cr_assert(strstr(text, say), "%s", text);
    free(text);
    /* the stub scanner saw the whole archive, under its final name, before it was in place */
    snprintf(log, sizeof log, "%s/scan.log", aux);
    text = slurp(log);
    char seen[512];
    snprintf(seen, sizeof seen, "--scan %s/release/.tmp.", out);
    cr_assert(!strncmp(text, seen, strlen(seen)) && strstr(text, names[0]) && !strchr(text, '\n')[1], "%s", text);
    free(text);

    /* the members, read back with tar: release.sha256 and the list, nothing else */
    char a[600];
    snprintf(a, sizeof a, "%s/release/%s", out, names[0]);
    cr_assert_eq(shf("tar -tzf %s | LC_ALL=C sort > %s/members", a, aux), 0);
    snprintf(log, sizeof log, "%s/members", aux);
    text = slurp(log);
    cr_assert_str_eq(text, "provenance/manifest-measure.tsv\nprovenance/stage-measure.json\nrelease.sha256\n"
                           "results/raw/H3-fb25-r1/run.json\nresults/raw/H3-fb25-r1/tester tsv with spaces.gz\n"
                           "results/results.json\nresults/verified.json\n");
    free(text);
    /* release.sha256 is the list, and every member has the bytes the list says */
    cr_assert_eq(shf("tar -xzf %s -O release.sha256 > %s/list", a, aux), 0);
    snprintf(log, sizeof log, "%s/list", aux);
    text = slurp(log);
    cr_assert_str_eq(text, want);
    free(text);
    cr_assert_eq(shf("mkdir %s/x && tar -xzf %s -C %s/x && cd %s/x && sha256sum -c --quiet release.sha256", aux, a,
                     aux, aux),
                 0);
}

Test(release, a_file_written_after_the_verification_is_refused)
{
    char log[128], path[256];
    snprintf(log, sizeof log, "%s/log", aux);
    snprintf(path, sizeof path, "%s/results/results.json", out);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("\n", f);
    fclose(f);
    int rc = release_with(NULL, 0);
    char *text = slurp(log);
    cr_assert_eq(rc, 1, "%s", text);
    char want[512];
    snprintf(want, sizeof want, "release: %s/results/results.json changed after the verifier read it (size 28 -> 29",
             out);
    cr_assert(strstr(text, want), "%s", text);
    free(text);
    nothing_left();

    /* a listed file gone, or a symlink in its place */
    snprintf(path, sizeof path, "%s/results/results.json", out);
    cr_assert_eq(shf("cd %s/results && rm results.json && ln -s unverified.txt results.json", out), 0);
    rc = release_with(NULL, 0);
    text = slurp(log);
    cr_assert_eq(rc, 1, "%s", text);
    cr_assert(strstr(text, "results/results.json: listed in results/verified.json, but not a regular file"), "%s",
              text);
    free(text);
    nothing_left();
}

Test(release, a_verification_that_did_not_pass_or_a_crooked_list_is_refused)
{
    char log[128];
    snprintf(log, sizeof log, "%s/log", aux);
    write_verified(0);
    int rc = release_with(NULL, 0);
    char *text = slurp(log);
    cr_assert_eq(rc, 1, "%s", text);
    cr_assert(strstr(text, "\"ok\" is not true"), "%s", text);
    free(text);
    nothing_left();
    const char *bad[] = {"{\"ok\": true}", "{\"ok\": true, \"files\": [{\"path\": \"../x\", \"size\": 1, \"sha256\": "
                                           "\"0000000000000000000000000000000000000000000000000000000000000000\"}]}"};
    const char *why[] = {"has no \"files\" list", "lists \"../x\": not a plain relative path"};
    for (int i = 0; i < 2; i++) {
        put("results/verified.json", bad[i]);
        rc = release_with(NULL, 0);
        text = slurp(log);
        cr_assert_eq(rc, 1, "%s", text);
        cr_assert(strstr(text, why[i]), "%s", text);
        free(text);
        nothing_left();
    }
}

Test(release, a_scan_with_findings_or_unusable_leaves_nothing)
{
    char log[128];
    snprintf(log, sizeof log, "%s/log", aux);
    const char *why[] = {"", "the scanner found secrets in the archive", "could not scan the archive (exit 2)"};
    for (int rc_scan = 1; rc_scan <= 2; rc_scan++) {
        int rc = release_with(NULL, rc_scan);
        char *text = slurp(log);
        cr_assert_eq(rc, 1, "%s", text);
        cr_assert(strstr(text, why[rc_scan]), "%s", text);
        free(text);
        nothing_left();
    }
    /* an existing release/ folder stays, empty of anything of the failed release */
    char path[128], names[8][256];
    snprintf(path, sizeof path, "%s/release", out);
    cr_assert_eq(mkdir(path, 0755), 0);
    cr_assert_eq(release_with(NULL, 1), 1);
    cr_assert_eq(access(path, F_OK), 0);
    cr_assert_eq(release_dir(names), 0, "%s", names[0]);
}

Test(release, two_releases_in_the_same_second_get_two_names)
{
    char names[8][256];
    int n = 0, tries = 0;
    /* both at once; again if they happened to straddle a second */
    for (; tries < 6; tries++) {
        shf("rm -rf %s/release", out);
        int rc = shf("export VERIFY=%s/verify; "
                     "(bash pipeline/release/release.sh %s > %s/l1 2>&1; echo $? > %s/r1) & "
                     "(bash pipeline/release/release.sh %s > %s/l2 2>&1; echo $? > %s/r2); wait",
                     aux, out, aux, aux, out, aux, aux);
        cr_assert_eq(rc, 0);
        char p[128];
        snprintf(p, sizeof p, "%s/r1", aux);
        char *r1 = slurp(p);
        snprintf(p, sizeof p, "%s/r2", aux);
        char *r2 = slurp(p);
        cr_assert(!strcmp(r1, "0\n") && !strcmp(r2, "0\n"), "exit %s and %s", r1, r2);
        free(r1);
        free(r2);
        n = release_dir(names);
        cr_assert_eq(n, 2, "two archives, nothing else (%d)", n);
        if (!strncmp(names[0], names[1], strlen("lab-release-20261201T120000Z")))
            break;
    }
    cr_assert_lt(tries, 6, "never twice in one second");
    /* the same list, the same second: the second name gets -2 (it sorts first: '-' < '.') */
    const char *first = names[1], *second = names[0];
    size_t base = strlen(first) - strlen(".tar.gz");
    cr_assert(!strncmp(first, second, base) && !strcmp(second + base, "-2.tar.gz"), "%s %s", first, second);
    /* both whole */
    for (int i = 0; i < 2; i++) {
        char a[600];
        cr_assert_lt(snprintf(a, sizeof a, "%s/release/%s", out, names[i]), (int)sizeof a);
        cr_assert_eq(shf("rm -rf %s/x && mkdir %s/x && tar -xzf %s -C %s/x && cd %s/x && sha256sum -c --quiet "
                         "release.sha256",
                         aux, aux, a, aux, aux),
                     0, "%s", a);
    }
}

Test(release, the_real_scanner_passes_a_clean_archive_and_stops_a_secret)
{
    const char *v = "verify/build/verify";
    char probe[128];
    snprintf(probe, sizeof probe, "%s/probe.txt", aux);
    FILE *f = fopen(probe, "w");
    cr_assert_not_null(f);
    fputs("nothing secret here\n", f);
    fclose(f);
    if (access(v, X_OK) != 0 || shf("%s --scan %s > /dev/null 2>&1", v, probe) != 0) {
        teardown(); /* a skipped test's .fini does not run */
        cr_skip_test("%s has no --scan PATH (yet): the real scan of the archive is not tested here", v);
    }
    char log[128], names[8][256];
    snprintf(log, sizeof log, "%s/log", aux);
    int rc = release_with(v, 0);
    char *text = slurp(log);
    cr_assert_eq(rc, 0, "%s", text);
    free(text);
    cr_assert_eq(release_dir(names), 1);
    /* a password in a listed file (verified, then caught by the scan of the archive) */
    shf("rm -rf %s/release", out);
    put("provenance/stage-measure.json", "{\"argv\": [\"collect\", \"--pgurl\", "
                                         "\"postgres://lab:Zq8vN3xT9wKp2mR7@db.example.com:5432/lab\"]}\n");
    write_verified(1);
    rc = release_with(v, 0);
    text = slurp(log);
    cr_assert_eq(rc, 1, "%s", text);
    cr_assert(strstr(text, "the scanner found secrets in the archive"), "%s", text);
    free(text);
    nothing_left();
}
