/* The tester's priority, told as it was (issue 30): lab/base/proc.c reads
 * the child's nice value back after setting it (proc_child.nice), and
 * build/bin/run records that value in run.json's tester_nice, the one asked
 * for in tester_nice_asked (lab/RAWFORMAT.md).  A process that may not
 * lower its priority (not root: the login user of a rented machine) gets
 * its own value, and says so; the tests drop to the user nobody for that,
 * in a child (setuid) or with setpriv, and skip when not run as root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <grp.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "tsh.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/labniceXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) { shf("rm -rf %s", dir); }

TestSuite(nice, .init = setup, .fini = teardown, .timeout = 120);

/* sleep started with nice `want`: the value read back (its exit code checked). */
static int started_at(int want)
{
    char *argv[] = {"sleep", "0.2", NULL};
    const proc_opts o = {.nice = want};
    proc_child c = {0};
    char err[256];
    if (proc_start(argv, &o, &c, err, sizeof err) != 0)
        return 100;
    int got = c.nice;
    if (proc_wait(&c, NULL) != 0)
        return 101;
    return got;
}

Test(nice, root_gets_what_it_asks_for)
{
    if (getuid() != 0)
        cr_skip_test("needs root");
    int mine = getpriority(PRIO_PROCESS, 0);
    cr_assert_eq(started_at(-10), -10);
    cr_assert_eq(started_at(0), mine, "nothing asked: the parent's own");
}

/* In a child dropped to nobody: -10 is refused, the child runs at the
 * parent's value and proc says so; +5 (allowed to anyone) is given. */
Test(nice, an_unprivileged_parent_reads_back_the_refusal)
{
    if (getuid() != 0)
        cr_skip_test("needs root (to become nobody)");
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
            _exit(99);
        int r[3] = {getpriority(PRIO_PROCESS, 0), started_at(-10), 0};
        r[2] = started_at(r[0] + 5 > 19 ? 19 : r[0] + 5);
        (void)!write(fd[1], r, sizeof r);
        _exit(0);
    }
    close(fd[1]);
    int r[3] = {0, 0, 0}, st;
    cr_assert_eq(read(fd[0], r, sizeof r), (ssize_t)sizeof r);
    close(fd[0]);
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    cr_assert_gt(r[0], -10, "nobody already runs at %d", r[0]);
    cr_assert_eq(r[1], r[0], "asked -10 as nobody: read back %d, the parent runs at %d", r[1], r[0]);
    cr_assert_eq(r[2], r[0] + 5 > 19 ? 19 : r[0] + 5);
}

/* tester_nice and tester_nice_asked of one short run (run.json in dir/sub). */
static void run_nice(const char *as, const char *sub, long long *got, long long *asked)
{
    char raw[128], log[160];
    snprintf(raw, sizeof raw, "%s/%s", dir, sub);
    snprintf(log, sizeof log, "%s/%s.log", dir, sub);
    cr_assert_eq(shf("chmod 755 %s && mkdir -p %s && chmod 777 %s", dir, raw, raw), 0); /* nobody writes there */
    int rc = shf("%s build/bin/run --arm H3-fb25 --round 1 --seconds 1 --gate 0 --settle-s 0.2 --raw %s > %s 2>&1",
                 as, raw, log);
    if (rc != 0)
        shf("cat %s", log);
    cr_assert_eq(rc, 0, "run %s failed", as);
    char p[256];
    snprintf(p, sizeof p, "%s/H3-fb25-r1/run.json", raw);
    json_error_t je;
    json_t *j = json_load_file(p, 0, &je);
    cr_assert_not_null(j, "%s: %s", p, je.text);
    cr_assert(json_is_integer(json_object_get(j, "tester_nice")) &&
                  json_is_integer(json_object_get(j, "tester_nice_asked")), "%s", p);
    *got = json_integer_value(json_object_get(j, "tester_nice"));
    *asked = json_integer_value(json_object_get(j, "tester_nice_asked"));
    json_decref(j);
}

Test(nice, a_run_that_cannot_set_the_priority_records_the_real_value)
{
    if (getuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0)
        cr_skip_test("needs root and setpriv (util-linux)");
    if (access("build/prep/summary.json", R_OK) != 0)
        cr_skip_test("no build/prep (make prepare first)");
    long long got, asked;
    run_nice("", "root", &got, &asked);
    cr_assert_eq(asked, -10);
    cr_assert_eq(got, -10, "as root the tester ran at %lld", got);
    run_nice("setpriv --reuid=65534 --regid=65534 --clear-groups", "nobody", &got, &asked);
    cr_assert_eq(asked, -10);
    cr_assert_eq(got, getpriority(PRIO_PROCESS, 0), "as nobody the tester's run.json says %lld", got);
}
