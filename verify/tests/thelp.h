/* thelp: helpers shared by the verifier's tests (header only).
 *
 * th_run runs build/verify with the given arguments, returns its exit code
 * and hands back everything it printed (stdout and stderr) in a malloc'd
 * string the caller frees.  With --root and without --out (or --scan-only)
 * it adds --out ROOT/results/verified.json, where the tests read it back;
 * the argument "--aside" is dropped and leaves verify's own default (the
 * committed verified.json compared, the result written aside).  th_tmpdir makes a fresh folder under /tmp.
 */
#ifndef THELP_H
#define THELP_H

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vutil.h"

extern char **environ;

static inline int th_run(char **out, const char *const *args)
{
    char tmpl[] = "/tmp/verify-test-out-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return -1;
    const char *argv[34];
    int n = 0;
    argv[n++] = VERIFY_BIN;
    const char *root = NULL;
    int has_out = 0;
    for (int i = 0; args[i] && n < 31; i++) {
        if (!strcmp(args[i], "--root") && args[i + 1])
            root = args[i + 1];
        if (!strcmp(args[i], "--out") || !strcmp(args[i], "--scan-only") || !strcmp(args[i], "--aside"))
            has_out = 1;
        argv[n++] = args[i];
    }
    /* verified.json where the tests read it back, as before --out's default
     * went aside when a study already has one (verify/README.md); "--aside"
     * (dropped here) keeps the default */
    char *outp = NULL;
    if (root && !has_out) {
        outp = vu_xasprintf("%s/results/verified.json", root);
        argv[n++] = "--out";
        argv[n++] = outp;
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(argv[i], "--aside"))
            argv[m++] = argv[i];
    n = m;
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, VERIFY_BIN, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(outp);
    close(fd);
    int status = 0;
    if (rc == 0)
        waitpid(pid, &status, 0);
    unsigned char *buf = NULL;
    size_t len = 0;
    char err[256];
    if (vu_read_file(tmpl, &buf, &len, err, sizeof err))
        buf = (unsigned char *)vu_xstrdup("");
    unlink(tmpl);
    *out = (char *)buf;
    if (rc != 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static inline char *th_tmpdir(void)
{
    char t[] = "/tmp/verify-test-XXXXXX";
    char *d = mkdtemp(t);
    return d ? vu_xstrdup(d) : NULL;
}

static inline int th_count_lines(const char *s, const char *prefix)
{
    int n = 0;
    size_t l = strlen(prefix);
    for (const char *p = s; p && *p;) {
        if (!strncmp(p, prefix, l))
            n++;
        const char *e = strchr(p, '\n');
        p = e ? e + 1 : NULL;
    }
    return n;
}

static inline void th_rmrf(const char *dir)
{
    if (!dir || strncmp(dir, "/tmp/verify-test-", 17))
        return;
    char *cmd = vu_xasprintf("rm -rf '%s'", dir);
    if (system(cmd)) {
    }
    free(cmd);
}

#endif
