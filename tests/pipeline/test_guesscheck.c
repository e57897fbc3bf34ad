/* The registered guesses checked where they are registered and where they
 * are judged (issue 31, part 2): lab/core/guesstab.h, the one reader of
 * data/guesses.tsv and owner of its predicate grammar, used by prepare
 * (before anything is built) and by collect (before the database is
 * touched).  A guess naming an arm that is not in lab/arms.tsv, a figure
 * that does not exist, or a clause outside the grammar is refused with
 * exit 2, naming the file, the line, the guess, the clause and the token;
 * the real guesses (and the published study's registered copy) pass, read
 * into the clauses collect loads.  Each test works in a fresh folder, so
 * that build/prep and the repository's provenance/ are not touched; no
 * PostgreSQL is started (collect refuses before it connects).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "guesstab.h"
#include "tsh.h"
#include "util.h"

static char dir[64]; /* the test's folder: data/ (a copy of data/ with one guess changed), prep/, out/ */

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/guesscheckXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(shf("mkdir -p %s/data && cp data/*.tsv data/*.md %s/data/", dir, dir), 0);
}

static void teardown(void) { shf("rm -rf %s", dir); }

TestSuite(guesscheck, .init = setup, .fini = teardown, .timeout = 120);

/* The test's data/guesses.tsv with G2's predicate (line 3: "every
 * F3-none.p99_ms < 5") replaced by pred. */
static void set_g2(const char *pred)
{
    cr_assert_eq(shf("sed -i 's/\\tevery F3-none.p99_ms < 5$/\\t%s/' %s/data/guesses.tsv", pred, dir), 0);
    cr_assert_eq(shf("grep -qF -- '%s' %s/data/guesses.tsv", pred, dir), 0, "G2 not changed to %s", pred);
}

/* prepare with the test's data; its exit code, stderr in dir/err. */
static int prepare(void)
{
    return shf("build/bin/prepare --prep %s/prep --prov %s/out/provenance --data %s/data > %s/out.log 2> %s/err", dir,
               dir, dir, dir, dir);
}

/* collect with the test's data, on a database that is not there (a guess
 * refused is refused before collect connects); exit code, stderr in dir/err. */
static int collect(void)
{
    shf("mkdir -p %s/out/results/raw", dir);
    return shf("build/bin/collect --root %s/out --data %s/data --pgurl 'host=%s/nosocket dbname=none' > %s/out.log "
               "2> %s/err",
               dir, dir, dir, dir, dir);
}

/* stderr holds the file and line of G2 and every one of want[] (NULL-ended). */
static void err_names(const char *const *want)
{
    char path[128];
    snprintf(path, sizeof path, "%s/err", dir);
    char *e = slurp(path);
    char where[128];
    snprintf(where, sizeof where, "%s/data/guesses.tsv:3: guess G2, clause ", dir);
    cr_assert(strstr(e, where) != NULL, "no \"%s\" in: %s", where, e);
    for (int i = 0; want[i]; i++)
        cr_assert(strstr(e, want[i]) != NULL, "no \"%s\" in: %s", want[i], e);
    free(e);
}

/* Nothing of a stage was written: no prepared file, no registration, no results. */
static void nothing_written(void)
{
    struct stat st;
    char p[128];
    const char *const files[] = {"prep/model.json", "out/provenance/prereg.json", "out/provenance/registered",
                                 "out/results/results.json", "out/provenance/stage-collect.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        cr_assert_neq(stat(p, &st), 0, "%s written by a refused stage", p);
    }
}

Test(guesscheck, an_unknown_arm_is_refused_at_registration_and_by_collect)
{
    set_g2("every F3-nope.p99_ms < 5");
    const char *const want[] = {"clause 1: no arm \"F3-nope\" in the registered arms (lab/arms.tsv)", NULL};
    cr_assert_eq(prepare(), 2);
    err_names(want);
    nothing_written();
    cr_assert_eq(collect(), 2);
    err_names(want);
    nothing_written();
}

Test(guesscheck, an_unknown_arm_on_the_right_and_in_apart_is_refused)
{
    set_g2("every F3-none.p99_ms < 5 and every F3-none.p99_ms < 1 * H3-nope.p99_ms");
    const char *const w1[] = {"clause 2: no arm \"H3-nope\"", NULL};
    cr_assert_eq(prepare(), 2);
    err_names(w1);
    cr_assert_eq(shf("cp data/guesses.tsv %s/data/guesses.tsv", dir), 0);
    set_g2("apart H3-r2 H3-r2x p99_ms");
    const char *const w2[] = {"clause 1: no arm \"H3-r2x\"", NULL};
    cr_assert_eq(collect(), 2);
    err_names(w2);
}

Test(guesscheck, an_unknown_figure_is_refused)
{
    set_g2("every F3-none.p98_ms < 5");
    const char *const want[] = {"clause 1: no figure \"p98_ms\"", NULL};
    cr_assert_eq(prepare(), 2);
    err_names(want);
    nothing_written();
    cr_assert_eq(collect(), 2);
    err_names(want);
}

Test(guesscheck, a_malformed_clause_is_refused_naming_clause_and_token)
{
    static const struct {
        const char *pred, *want;
    } CASES[] = {
        {"every F3-none.p99_ms =< 5", "clause 1: \"=<\" is not an operator (<, <=, > or >=)"},
        {"every F3-none.p99_ms < 5 and every F3-none.p99_ms < 5x", "clause 2: \"5x\" is not a number"},
        {"every F3-none.p99_ms < 5 and most F3-none.p99_ms < 5", "clause 2: \"most\" is not every, any, median, apart or close"},
        {"every F3-none.p99_ms < 1 x F3-none.p50_ms", "clause 1: \"x\" where \"*\" is wanted"},
        {"every F3-none-p99_ms < 5", "clause 1: \"F3-none-p99_ms\" is not ARM.figure"},
        {"every F3-none.p99_ms < 5 and close H3-t25 H3-fb25", "clause 2: \"close\" with 3 words"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        cr_assert_eq(shf("cp data/guesses.tsv %s/data/guesses.tsv", dir), 0);
        set_g2(CASES[i].pred);
        const char *const want[] = {CASES[i].want, NULL};
        cr_assert_eq(prepare(), 2, "%s", CASES[i].pred);
        err_names(want);
        cr_assert_eq(collect(), 2, "%s", CASES[i].pred);
        err_names(want);
    }
    nothing_written();
}

/* The real guesses, and the published study's registered copy against its
 * registered arms: every one read, into the clauses collect loads. */
Test(guesscheck, the_registered_guesses_pass)
{
    guesstab g;
    char e[UT_ERRLEN] = "";
    cr_assert_eq(guesstab_load_registered("data/guesses.tsv", "lab/arms.tsv", &g, e, sizeof e), 0, "%s", e);
    cr_assert_eq(g.n, 52);
    /* G1: median Z-capacity.answers_per_s >= 25000 and median Z-capacity.answers_per_s <= 45000 */
    cr_assert_str_eq(g.v[0].id, "G1");
    cr_assert_eq(g.v[0].k, 1);
    cr_assert_eq(g.v[0].line, 2);
    cr_assert_eq(g.v[0].nc, 2);
    const guess_clause *c = &g.v[0].c[1];
    cr_assert_eq(c->kind, GUESS_CMP);
    cr_assert_str_eq(c->quant, "median");
    cr_assert_str_eq(c->arm, "Z-capacity");
    cr_assert_str_eq(c->figure, "answers_per_s");
    cr_assert_str_eq(c->op, "<=");
    cr_assert_str_eq(c->num, "45000");
    cr_assert_str_eq(c->arm2, "");
    /* G5: close H3-t25 H3-fb25 p99_ms */
    c = &g.v[4].c[0];
    cr_assert_eq(g.v[4].nc, 1);
    cr_assert_eq(c->kind, GUESS_CLOSE);
    cr_assert_str_eq(c->arm, "H3-t25");
    cr_assert_str_eq(c->arm2, "H3-fb25");
    cr_assert_str_eq(c->figure, "p99_ms");
    cr_assert_str_eq(c->figure2, "p99_ms");
    /* G8: every H3-dldown.slot_ms_per_request <= 0.333 * H3-dl.slot_ms_per_request */
    c = &g.v[7].c[0];
    cr_assert_str_eq(c->quant, "every");
    cr_assert_str_eq(c->num, "0.333");
    cr_assert_str_eq(c->arm2, "H3-dl");
    cr_assert_str_eq(c->figure2, "slot_ms_per_request");
    /* G20: thirteen clauses */
    cr_assert_str_eq(g.v[19].id, "G20");
    cr_assert_eq(g.v[19].nc, 13);
    guesstab_free(&g);
    cr_assert_eq(guesstab_load_registered("provenance/registered/data/guesses.tsv",
                                          "provenance/registered/lab/arms.tsv", &g, e, sizeof e),
                 0, "%s", e);
    cr_assert_eq(g.n, 52); /* the published study (measured 2026-12-04 to 06) registered 52 */
    guesstab_free(&g);
}

Test(guesscheck, prepare_with_the_real_guesses_gets_past_the_check)
{
    /* the check's line comes before anything is built; prepare goes on to build */
    cr_assert_eq(prepare(), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/out.log", dir);
    char *log = slurp(path);
    cr_assert(strstr(log, "prepare: 52 guesses of ") != NULL, "%s", log);
    cr_assert(strstr(log, "checked: every arm one of lab/arms.tsv, every figure known") != NULL, "%s", log);
    free(log);
}

/* A guess id given twice is refused, naming both lines. */
Test(guesscheck, a_guess_id_given_twice_is_refused)
{
    cr_assert_eq(shf("sed -i 's/^G3\\t/G2\\t/' %s/data/guesses.tsv", dir), 0);
    cr_assert_eq(prepare(), 2);
    char path[128];
    snprintf(path, sizeof path, "%s/err", dir);
    char *e = slurp(path);
    cr_assert(strstr(e, "guesses.tsv:4: field id \"G2\" is given twice (line 3 too)") != NULL, "%s", e);
    free(e);
}
