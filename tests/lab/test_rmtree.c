/* The one rm of a tree (ut_rm_tree, lab/base/util.c: nftw, no shell) on
 * names a shell would break on, and `build/bin/run` cleaning a study folder
 * whose path has a quote and a space: run once removed its folders with
 * system("rm -rf '%s'"), which a quote in the path broke.  run is started
 * with execv here (no shell, so the test quotes nothing either). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exits.h"
#include "tsh.h"
#include "util.h"

static char base[128];

static void base_make(void)
{
    snprintf(base, sizeof base, "/tmp/rm'tree q XXXXXX");
    cr_assert_not_null(mkdtemp(base), "mkdtemp: %s", strerror(errno));
}

static void base_drop(void)
{
    ut_rm_tree(base);
}

TestSuite(rmtree, .init = base_make, .fini = base_drop, .timeout = 120);

static void put(const char *path, const char *text)
{
    char err[UT_ERRLEN];
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A tree with a quote and a space in its names, a nested folder, a link to
 * a file and a link to a folder outside it: everything under it goes, the
 * links are removed and not followed (what they point to stays). */
Test(rmtree, quote_space_nested_and_links_not_followed)
{
    char err[UT_ERRLEN], p[512], tree[300], outside[300], keep[400];
    snprintf(tree, sizeof tree, "%s/it's a tree", base);
    snprintf(outside, sizeof outside, "%s/outside", base);
    snprintf(p, sizeof p, "%s/a b/c'd/e f", tree);
    cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ut_mkdir_p(outside, err, sizeof err), 0, "%s", err);
    snprintf(keep, sizeof keep, "%s/keep me", outside);
    put(keep, "kept\n");
    snprintf(p, sizeof p, "%s/top file", tree);
    put(p, "1\n");
    snprintf(p, sizeof p, "%s/a b/it's", tree);
    put(p, "2\n");
    snprintf(p, sizeof p, "%s/a b/c'd/e f/deep'est file", tree);
    put(p, "3\n");
    snprintf(p, sizeof p, "%s/a b/link to a folder", tree);
    cr_assert_eq(symlink(outside, p), 0, "symlink: %s", strerror(errno));
    snprintf(p, sizeof p, "%s/a b/c'd/link to a file", tree);
    cr_assert_eq(symlink(keep, p), 0, "symlink: %s", strerror(errno));
    snprintf(p, sizeof p, "%s/dangling 'link", tree);
    cr_assert_eq(symlink("/nonexistent/anything", p), 0, "symlink: %s", strerror(errno));

    cr_assert_eq(ut_rm_tree(tree), 0, "ut_rm_tree: %s", strerror(errno));
    cr_assert(!exists(tree), "%s is still there", tree);
    cr_assert(exists(outside), "the folder a link pointed to was removed");
    char *text = slurp(keep);
    cr_assert_str_eq(text, "kept\n", "the file a link pointed to changed");
    free(text);
    /* nothing there: 0 too */
    cr_assert_eq(ut_rm_tree(tree), 0);
    /* a lone file, and a link given as the path itself (removed, not followed) */
    snprintf(p, sizeof p, "%s/lone 'file", base);
    put(p, "x\n");
    cr_assert_eq(ut_rm_tree(p), 0);
    cr_assert(!exists(p));
    snprintf(p, sizeof p, "%s/link 'itself", base);
    cr_assert_eq(symlink(outside, p), 0);
    cr_assert_eq(ut_rm_tree(p), 0);
    cr_assert(!exists(p) && exists(keep), "the link itself goes, what it points to stays");
}

/* build/bin/run with argv as given (no shell); its exit code, its output in log. */
static int run_prog(char *const argv[], const char *log)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(127);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The names in dir (without . and ..), sorted, space-separated. */
static void entries(const char *dir, char *out, size_t n)
{
    char *names[64];
    int k = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d)) && k < 64;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names[k++] = strdup(e->d_name);
    closedir(d);
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    out[0] = 0;
    for (int i = 0; i < k; i++) {
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
}

/* A study folder "<tmp>/x'y z/results/raw": a failed run (the store killed:
 * EXIT_LAB_DIED) keeps nothing, and removes the stale temporary folder an
 * earlier run left; a run that succeeds replaces a stale folder under its
 * final name whole. */
Test(rmtree, run_cleans_a_study_folder_with_a_quote_and_a_space)
{
    char err[UT_ERRLEN], raw[300], p[512], log[300], ents[512];
    snprintf(raw, sizeof raw, "%s/x'y z/results/raw", base);
    snprintf(log, sizeof log, "%s/log", base);
    /* what an earlier, killed run left: its temporary folder, with a nested folder and a file */
    snprintf(p, sizeof p, "%s/.H3-fb25-r1.tmp/a 'b", raw);
    cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0, "%s", err);
    snprintf(p, sizeof p, "%s/.H3-fb25-r1.tmp/a 'b/stale", raw);
    put(p, "stale\n");

    char *kill[] = {"build/bin/run", "--arm", "H3-fb25", "--round", "1", "--seconds", "1", "--gate", "0",
                    "--settle-s", "0.2", "--quiet", "tests/quiet_off.tsv", "--raw", raw,
                    "--test-kill-store-after-s", "0.3", NULL};
    int rc = run_prog(kill, log);
    char *text = slurp(log);
    cr_assert_eq(rc, EXIT_LAB_DIED, "run with the store killed: exit %d, not %d: %s", rc, EXIT_LAB_DIED, text);
    cr_assert(strstr(text, "nothing kept"), "%s", text);
    free(text);
    entries(raw, ents, sizeof ents);
    cr_assert_str_eq(ents, "", "%s holds '%s' after a failed run", raw, ents);

    /* a stale folder under the final name: replaced by the whole run */
    snprintf(p, sizeof p, "%s/H3-fb25-r1/old 'one", raw);
    cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0, "%s", err);
    char *ok[] = {"build/bin/run", "--arm", "H3-fb25", "--round", "1", "--seconds", "1", "--gate", "0",
                  "--settle-s", "0.2", "--quiet", "tests/quiet_off.tsv", "--raw", raw, NULL};
    rc = run_prog(ok, log);
    text = slurp(log);
    cr_assert_eq(rc, EXIT_OK, "run: exit %d: %s", rc, text);
    free(text);
    entries(raw, ents, sizeof ents);
    cr_assert_str_eq(ents, "H3-fb25-r1", "%s holds '%s'", raw, ents);
    snprintf(p, sizeof p, "%s/H3-fb25-r1", raw);
    entries(p, ents, sizeof ents);
    cr_assert_str_eq(ents, "events.tsv.gz machine.tsv.gz run.json service.tsv.gz store.tsv.gz tester.tsv.gz",
                     "the run's folder holds '%s' (the stale folder should be gone)", ents);
}
