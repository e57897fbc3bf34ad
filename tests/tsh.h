/* tsh: two helpers the tests that drive programs and scripts share.
 *
 *   shf(fmt, ...)  runs the formatted command through system(3); its exit
 *                  status (-1 when it did not exit normally)
 *   slurp(path)    the whole file, malloc'd and NUL-terminated (the caller
 *                  frees it); a test assertion fails, naming the file, when
 *                  it cannot be read
 */
#ifndef TESTS_TSH_H
#define TESTS_TSH_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

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

#endif
