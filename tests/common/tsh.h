/* tsh: two helpers the tests that drive programs and scripts share.
 *
 *   shf(fmt, ...)  runs the formatted command through system(3); its exit
 *                  status (-1 when it did not exit normally)
 *   slurp(path)    the whole file, malloc'd and NUL-terminated (the caller
 *                  frees it); a test assertion fails, naming the file, when
 *                  it cannot be read
 *   tsh_write_prereg(root)  ROOT/provenance/prereg.json registering the seven
 *                  files of pipeline/RESULTS.md as they are now
 *   tsh_small_fs(base, kb, mnt, n, why, wl)  a tmpfs of kb KB mounted at
 *                  BASE/full (its path in mnt), 1; or 0 with the reason in
 *                  why (not root, no mount): the caller skips and says why
 */
#ifndef TESTS_TSH_H
#define TESTS_TSH_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static inline int shf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int shf(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* not inlined: gcc 12 inlines it into cr_assert chains and then warns of a
 * dangling pointer that is not there */
__attribute__((noinline, unused)) static char *slurp(const char *path)
{
    char *b = NULL, err[UT_ERRLEN];
    size_t n;
    cr_assert_eq(ut_read_file(path, &b, &n, err, sizeof err), 0, "%s", err);
    return b;
}

__attribute__((unused)) static void tsh_write_prereg(const char *root)
{
    const char *f[7] = {"data/guesses.tsv", "data/design.md",           "data/quiet.tsv",   "lab/arms.tsv",
                        "pipeline/comparisons.tsv", "pipeline/ap_arms.tsv", "data/profiles.tsv"};
    char path[256], err[UT_ERRLEN], sha[65], text[2048];
    size_t len = (size_t)snprintf(text, sizeof text, "{\"registered_utc\": \"2026-01-01T00:00:00Z\", \"files\": [");
    for (int i = 0; i < 7; i++) {
        uint64_t size;
        cr_assert_eq(ut_sha256_file(f[i], sha, &size, err, sizeof err), 0, "%s", err);
        len += (size_t)snprintf(text + len, sizeof text - len, "%s{\"path\": \"%s\", \"sha256\": \"%s\", \"size\": %llu}",
                                i ? ", " : "", f[i], sha, (unsigned long long)size);
    }
    snprintf(text + len, sizeof text - len, "]}\n");
    snprintf(path, sizeof path, "%s/provenance", root);
    cr_assert_eq(ut_mkdir_p(path, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/provenance/prereg.json", root);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

__attribute__((unused)) static int tsh_small_fs(const char *base, int kb, char *mnt, size_t n, char *why, size_t wl)
{
    snprintf(mnt, n, "%s/full", base);
    char err[UT_ERRLEN];
    cr_assert_eq(ut_mkdir_p(mnt, err, sizeof err), 0, "%s", err);
    if (geteuid() != 0) {
        snprintf(why, wl, "not root: no tmpfs can be mounted (run make test as root)");
        return 0;
    }
    char opts[64];
    snprintf(opts, sizeof opts, "size=%dk,mode=0755", kb);
    if (mount("tmpfs", mnt, "tmpfs", 0, opts) != 0) {
        snprintf(why, wl, "mount tmpfs on %s: %s", mnt, strerror(errno));
        return 0;
    }
    return 1;
}

#endif
