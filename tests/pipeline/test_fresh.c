/* pipeline/common/fresh.sh, the first step of `make all` in place, on a throwaway
 * git repository holding a tiny "published study": it is set aside (the work
 * tree's results/ and provenance/ emptied but for their READMEs, git still
 * holding it) only when every committed file is unchanged and nothing new is
 * there; a rerun under way (a changed, removed or new file) is left alone, and
 * so is a repository without a committed study. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "tsh.h"

static char repo[64], script[4096];

static void setup(void)
{
    snprintf(repo, sizeof repo, "/tmp/lab-fresh.XXXXXX");
    cr_assert_not_null(mkdtemp(repo));
    char cwd[2048];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(script, sizeof script, "%s/pipeline/common/fresh.sh", cwd);
    cr_assert_eq(shf("cd %s && git init -q . && git config user.email t@t && git config user.name t && "
                     "mkdir -p results/raw/A-r1 results/figures provenance/runs && "
                     "echo r > results/README.md && echo p > provenance/README.md && "
                     "echo 1 > results/raw/A-r1/run.json && echo j > results/results.json && "
                     "echo s > results/figures/dials.svg && echo x > provenance/runs/A-r1.json && "
                     "echo m > provenance/manifest-measure.tsv && echo c > code.c && "
                     "git add -A && git commit -qm study",
                     repo),
                 0);
}

static void teardown(void)
{
    shf("rm -rf %s", repo);
}

/* fresh.sh's exit status and its first line of output (out: 512 bytes) */
static int fresh(char *out)
{
    char cmd[8192], path[128];
    snprintf(path, sizeof path, "%s/.out", repo);
    snprintf(cmd, sizeof cmd, "cd %s && bash %s > .out 2>&1", repo, script);
    int rc = shf("%s", cmd);
    char *t = slurp(path);
    snprintf(out, 512, "%s", t);
    free(t);
    unlink(path);
    return rc;
}

static int exists(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", repo, rel);
    return access(p, F_OK) == 0;
}

TestSuite(fresh, .init = setup, .fini = teardown);

Test(fresh, the_published_study_as_committed_is_set_aside)
{
    char out[512];
    cr_assert_eq(fresh(out), 0, "%s", out);
    cr_assert(strstr(out, "published study as committed (1 run folders); measuring anew"), "%s", out);
    cr_assert(!exists("results/raw") && !exists("results/results.json") && !exists("results/figures") &&
                  !exists("provenance/runs") && !exists("provenance/manifest-measure.tsv"),
              "the published study is still in the work tree");
    cr_assert(exists("results/README.md") && exists("provenance/README.md") && exists("code.c"));
    /* git still holds it: checkout brings it back byte for byte */
    cr_assert_eq(shf("cd %s && git checkout -q -- results provenance && git diff --quiet HEAD && "
                     "test \"$(cat results/raw/A-r1/run.json)\" = 1",
                     repo),
                 0);
}

Test(fresh, a_rerun_under_way_is_continued)
{
    char out[512];
    /* a changed file, a removed file, a new file: each a rerun's trace */
    const char *change[] = {"echo 2 > results/raw/A-r1/run.json", "rm provenance/manifest-measure.tsv",
                            "mkdir -p results/raw/B-r1 && echo 1 > results/raw/B-r1/run.json"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(shf("cd %s && git checkout -q -- . && git clean -fdq && %s", repo, change[i]), 0);
        cr_assert_eq(fresh(out), 0, "%s", out);
        cr_assert_eq(out[0], 0, "fresh.sh spoke after `%s`: %s", change[i], out);
        cr_assert(exists("results/results.json") && exists("provenance/runs/A-r1.json"),
                  "fresh.sh removed a rerun's files after `%s`", change[i]);
    }
}

Test(fresh, nothing_without_a_committed_study)
{
    char out[512];
    cr_assert_eq(shf("cd %s && git rm -rqf results/raw && git commit -qm 'no runs'", repo), 0);
    cr_assert_eq(fresh(out), 0, "%s", out);
    cr_assert_eq(out[0], 0, "%s", out);
    cr_assert(exists("results/results.json"));
    /* and outside a git repository */
    cr_assert_eq(shf("rm -rf %s/.git", repo), 0);
    cr_assert_eq(fresh(out), 0, "%s", out);
    cr_assert(exists("results/results.json"));
}

/* fresh.sh --is-published: the rule alone (make prepare and make check keep
 * their record under build/ while it holds), silent, nothing removed. */
Test(fresh, is_published_tells_the_rule_and_touches_nothing)
{
    cr_assert_eq(shf("cd %s && bash %s --is-published > .out 2>&1", repo, script), 0);
    cr_assert(exists("results/raw/A-r1/run.json") && exists("provenance/manifest-measure.tsv"));
    char p[128];
    snprintf(p, sizeof p, "%s/.out", repo);
    char *t = slurp(p);
    cr_assert_str_empty(t, "it spoke: %s", t);
    free(t);
    cr_assert_eq(shf("cd %s && rm .out && echo 2 > provenance/runs/A-r1.json && bash %s --is-published", repo, script),
                 1, "a rerun under way is not the published study");
    cr_assert_eq(shf("cd %s && git checkout -q -- . && git rm -rqf results/raw && git commit -qm 'no runs' && "
                     "bash %s --is-published",
                     repo, script),
                 1, "no study committed");
}

/* The stage that sets it aside names itself (make measure alone does too). */
Test(fresh, the_stage_is_named)
{
    char cmd[8192], out[512];
    snprintf(cmd, sizeof cmd, "cd %s && bash %s measure > .out 2>&1", repo, script);
    cr_assert_eq(shf("%s", cmd), 0);
    char p[128];
    snprintf(p, sizeof p, "%s/.out", repo);
    char *t = slurp(p);
    snprintf(out, sizeof out, "%s", t);
    free(t);
    cr_assert(strncmp(out, "make measure: results/ holds the published study as committed", 61) == 0, "%s", out);
    cr_assert(!exists("results/raw"));
}
