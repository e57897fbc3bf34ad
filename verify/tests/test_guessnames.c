/* A guess must name what the study has (data/README.md's grammar: `arm :=
 * a name of lab/arms.tsv`, `figure` one of pipeline/RESULTS.md's, which
 * are the figures the verifier recomputes, runfig.h): a predicate naming
 * another arm or figure is refused before anything is verified, exit 2,
 * with the guesses file and line, the guess's id, the clause (1, 2 ...)
 * and the word (predicate.h, pr_check_arms and pr_parse).  An arm of the
 * arms file without runs is not refused: its clause is false.
 *
 * The study: one closed-loop run, Z-capacity-r1 (syn_kind_run, 12 live
 * answers); the arms file is the one synth writes from the run folders,
 * one line, Z-capacity, or that line and a copy of it named F3-none.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tstudy.h"

static char *g_root;
static syn_ref g_ref;

static void g_setup(void)
{
    g_root = th_tmpdir();
    cr_assert(g_root);
    syn_make_ref(&g_ref, 10, 7);
}

static void g_teardown(void)
{
    syn_free_ref(&g_ref);
    th_rmrf(g_root);
    free(g_root);
}

/* the study, with the guesses file's text */
static void write_study(const char *guesses)
{
    cr_assert_eq(syn_write_reference(g_root, &g_ref), 0);
    syn_run r;
    syn_kind_run(&r, "Z-capacity", 1, "LLLLLLLLLLLL", &g_ref, 2000000000000LL);
    cr_assert_eq(syn_write_run(g_root, &r, 1), 0);
    syn_free_run(&r);
    ts_write_texts(g_root, "a\tb\tfigure\tnote\n", "id\tguess\tpredicate\n");
    cr_assert_eq(syn_write_quiet(g_root, NULL), 0);
    cr_assert_eq(syn_write_manifest(g_root), 0);
    ts_promote(g_root);
    char *p = vu_xasprintf("%s/data/guesses.tsv", g_root);
    cr_assert_eq(syn_write_text(p, guesses), 0);
    free(p);
}

/* verify's exit code and output */
static int g_verify(char **out)
{
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    return th_run(out, a);
}

/* refused: exit 2, and the line "verify: ROOT/data/guesses.tsv:LINE: predicate of ID: clause ..." */
static void expect_refused(const char *guesses, int line, const char *id, const char *rest)
{
    write_study(guesses);
    char *out;
    int rc = g_verify(&out);
    cr_expect_eq(rc, 2, "exit %d:\n%s", rc, out);
    char *want = vu_xasprintf("verify: %s/data/guesses.tsv:%d: predicate of %s: %s\n", g_root, line, id, rest);
    cr_expect(strstr(out, want), "%s\nwanted: %s", out, want);
    cr_expect(!strstr(out, "MISMATCHES"), "refused before verifying:\n%s", out);
    free(want);
    free(out);
}

#define HEAD "id\tguess\tpredicate\n"

Test(guessnames, an_arm_not_registered_is_refused, .init = g_setup, .fini = g_teardown, .timeout = 60)
{
    expect_refused(HEAD "G2\tA healthy store stays fast.\tevery F3-nope.p99_ms < 5\n", 2, "G2",
                   "clause 1: arm \"F3-nope\" is not a registered arm (not a name of the arms file)");
}

Test(guessnames, the_arm_of_a_later_clause_or_a_right_hand_term_is_refused, .init = g_setup, .fini = g_teardown,
     .timeout = 60)
{
    /* line 3: the second guess; clause 2's right-hand term names the arm */
    expect_refused(HEAD "G1\tfine\tmedian Z-capacity.answers_per_s > 1\n"
                        "G7\tfaster than nothing\tevery Z-capacity.n > 0 and median Z-capacity.p99_ms < 1 * "
                        "Z-capacityy.p99_ms\n",
                   3, "G7", "clause 2: arm \"Z-capacityy\" is not a registered arm (not a name of the arms file)");
}

Test(guessnames, the_second_arm_of_apart_is_refused, .init = g_setup, .fini = g_teardown, .timeout = 60)
{
    expect_refused(HEAD "G5\ttoo close\tclose Z-capacity H3-fb25 p99_ms\n", 2, "G5",
                   "clause 1: arm \"H3-fb25\" is not a registered arm (not a name of the arms file)");
}

Test(guessnames, an_unknown_figure_is_refused, .init = g_setup, .fini = g_teardown, .timeout = 60)
{
    expect_refused(HEAD "G3\tslow\tevery Z-capacity.n > 0 and every Z-capacity.p99 < 5\n", 2, "G3",
                   "clause 2: unknown figure \"p99\" (in \"Z-capacity.p99\")");
}

Test(guessnames, registered_arms_pass_and_one_without_runs_is_false, .init = g_setup, .fini = g_teardown,
     .timeout = 60)
{
    /* the arms file with a second line, F3-none (Z-capacity's columns under another name) */
    write_study(HEAD "G1\tfast\tmedian Z-capacity.n >= 12\nG2\tno runs\tevery F3-none.p99_ms < 5\n");
    ts_add_arm(g_root, "F3-none", "Z-capacity");
    ts_promote(g_root);
    char *out;
    int rc = g_verify(&out);
    cr_expect_eq(rc, 0, "exit %d:\n%s", rc, out);
    vj_node *v = ts_verified(g_root);
    const vj_node *g = vj_get(v, "guesses");
    cr_assert(g && g->type == VJ_ARR && g->n == 2);
    const vj_node *r0 = vj_get(g->items[0], "right"), *r1 = vj_get(g->items[1], "right");
    cr_expect(r0 && r0->type == VJ_BOOL && r0->b == 1, "G1 right (12 requests)");
    cr_expect(r1 && r1->type == VJ_BOOL && r1->b == 0, "G2 false (F3-none has no runs)");
    vj_free(v);
    free(out);
}
