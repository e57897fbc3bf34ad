/* Quiet runs (pipeline/RESULTS.md, "Quiet runs"; lab/RAWFORMAT.md,
 * machine.tsv.gz and run.json's "quiet") end to end on a synthetic study:
 * arms H3-t25 and H3-fb25, rounds 1 to 3, each 13 s.  H3-t25 is an
 * open-loop run of 20 a second (syn_kind_run_open: the requests of
 * RAWFORMAT.md's schedule, 257, 287 and 251 in rounds 1 to 3, every one
 * sent 10 us late); H3-fb25 a closed-loop run of 260 requests 50 ms apart
 * (syn_kind_run: each sent when scheduled, never late).
 *   H3-t25: kind E at j % 20 == 7 (13, 14, 13 errors), else L
 *   H3-fb25: kind K at j % 20 == 7 (standin_share 0.05), in round 2 at
 *            j % 10 == 7 (26: 0.1)
 * Machine: 14 readings (one a second, one more while the last answers
 * come), ticks (total, idle, steal, lab).  Quiet ones (syn_quiet_machine):
 * A (200, 190, 0, 7), M (100, 92 + k % 3, 0, 7) at reading k: the measured
 * core busy 8 - k % 3, so 1 tick foreign when k % 3 == 0 (0.01), else none.
 * The disturbed second, by hand: every reading A (200, 190, 0, 7), M (100,
 * 95, 0, 7), except reading 5 (second s = 4): A (200, 178, 12, 7), 6% steal:
 * steal_share 12 / 2800 = 0.0043 (under 0.005), steal_second_max 0.06 (over
 * 0.05), other cores' idle (2648 - 1330) / 1400.  The hog, by hand: quiet
 * readings, except reading 7 (s = 6): M (100, 39, 0, 3), 58 ticks used by
 * someone else (0.58, over 0.2), A (200, 136, 0, 3); and reading 8 (s = 7):
 * M (100, 90, 0, 40), A (200, 187, 0, 40): lab above the 10 busy ticks,
 * none foreign (not -0.3).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rawread.h"
#include "synth.h"
#include "thelp.h"
#include "tstudy.h"
#include "vjson.h"
#include "vutil.h"

static char *q_root;

static void q_setup(void)
{
    q_root = th_tmpdir();
    cr_assert(q_root);
}

static void q_teardown(void)
{
    th_rmrf(q_root);
    free(q_root);
}

enum { PLAIN, STEAL6, LATE30, HOG };

static const char *COMPARISONS = "a\tb\tfigure\tnote\n"
                                 "H3-t25\tH3-fb25\terror_share\tan error against a stand-in\n"
                                 "H3-t25\tH3-fb25\tstandin_share\tthe stand-ins\n";

static const char *GUESSES = "id\tguess\tpredicate\n"
                             "G1\tFewer than 8% stand-ins in every round.\tevery H3-fb25.standin_share < 0.08\n"
                             "G2\tThe tester is never 1 ms late.\tevery H3-t25.late_max_us < 1000\n";

/* one run of the study; twist: PLAIN, STEAL6 (the 6% second), LATE30
 * (request j = 100, in second 4 of round 3's schedule, sent 30 ms late) or
 * HOG (another process on the measured core in second 6); claim: run.json's
 * rules */
static void write_run(const char *root, const char *arm, int round, int twist, const char *claim)
{
    syn_ref ref;
    syn_make_ref(&ref, 10, 7);
    char kinds[400];
    int fb = !strcmp(arm, "H3-fb25");
    long long *off = NULL;
    size_t n = fb ? 260 : syn_schedule(round, 20, 13.0, &off);
    free(off);
    cr_assert(n < sizeof kinds);
    for (size_t j = 0; j < n; j++) {
        int odd = fb && round == 2 ? j % 10 == 7 : j % 20 == 7;
        kinds[j] = odd ? (fb ? 'K' : 'E') : 'L';
    }
    kinds[n] = 0;
    syn_run r;
    long long t0 = 1000000000000LL * (fb ? 2 : 1) + round * 100000000000LL;
    if (fb)
        syn_kind_run(&r, arm, round, kinds, &ref, t0);
    else
        syn_kind_run_open(&r, arm, round, kinds, &ref, t0, 20, 13.0);
    cr_assert_eq(r.nm, 28);
    if (twist == STEAL6) {
        for (size_t i = 0; i < r.nm; i++) {
            syn_mrow *m = &r.m[i];
            m->idle = m->scope == 'A' ? 190 : 95;
            m->steal = 0;
        }
        r.m[8].idle = 178; /* reading 5: rows 9 (A) and 10 (M), line 11 and 12 of the file */
        r.m[8].steal = 12;
    }
    if (twist == HOG) {
        r.m[12] = (syn_mrow){r.m[12].t, 'A', 200, 136, 0, 3}; /* reading 7 */
        r.m[13] = (syn_mrow){r.m[13].t, 'M', 100, 39, 0, 3};
        r.m[14] = (syn_mrow){r.m[14].t, 'A', 200, 187, 0, 40}; /* reading 8 */
        r.m[15] = (syn_mrow){r.m[15].t, 'M', 100, 90, 0, 40};
    }
    if (twist == LATE30)
        syn_send_late(&r, 100, 30000000);
    r.claim_rules = claim;
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    syn_free_ref(&ref);
}

static void run_verify(const char *root, int want_rc, char **out)
{
    const char *a[] = {"--root", root, "--no-scan", NULL};
    int rc = th_run(out, a);
    cr_assert_eq(rc, want_rc, "verify exit %d, expected %d:\n%s", rc, want_rc, *out);
}

static void write_study(const char *root)
{
    syn_ref ref;
    syn_make_ref(&ref, 10, 7);
    cr_assert_eq(syn_write_reference(root, &ref), 0);
    syn_free_ref(&ref);
    for (int round = 1; round <= 3; round++) {
        write_run(root, "H3-t25", round, PLAIN, NULL);
        write_run(root, "H3-fb25", round, PLAIN, NULL);
    }
    char *p = vu_xasprintf("%s/pipeline", root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/pipeline/comparisons.tsv", root);
    syn_write_text(p, COMPARISONS);
    free(p);
    cr_assert_eq(syn_write_quiet(root, NULL), 0);
    p = vu_xasprintf("%s/data/guesses.tsv", root);
    syn_write_text(p, GUESSES);
    free(p);
    cr_assert_eq(syn_write_manifest(root), 0);
    p = vu_xasprintf("%s/results/results.json", root);
    syn_write_text(p, "{\"format\": \"lab-results 1\", \"runs\": {}, \"arms\": {}, \"verdicts\": [], \"guesses\": []}\n");
    free(p);
    char *out;
    run_verify(root, 1, &out);
    free(out);
    cr_assert_eq(syn_results_from_verified(root), 0);
}

static vj_node *verified(const char *root)
{
    char *vp = vu_xasprintf("%s/results/verified.json", root);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    free(vp);
    return v;
}

/* the node at a path of keys and "#i" indexes */
static const vj_node *at(const vj_node *n, const char *path)
{
    char *p = vu_xstrdup(path);
    for (char *tok = strtok(p, "/"); tok && n; tok = strtok(NULL, "/"))
        n = tok[0] == '#' ? (n->type == VJ_ARR && (size_t)atoi(tok + 1) < n->n ? n->items[atoi(tok + 1)] : NULL)
                          : vj_get(n, tok);
    cr_assert(n, "no %s", path);
    free(p);
    return n;
}

#define NEAR(v, path, x) cr_expect(fabs(at(v, path)->num - (x)) < 1e-12, "%s = %.17g, expected %.17g", path, \
                                   at(v, path)->num, (double)(x))
/* a list of ints or strings, as text: "1 3" */
static char *list_text(const vj_node *a)
{
    vu_buf b = {0};
    vu_buf_puts(&b, "");
    for (size_t i = 0; i < a->n; i++) {
        if (a->items[i]->type == VJ_STR)
            vu_buf_printf(&b, "%s%s", i ? " " : "", a->items[i]->text);
        else
            vu_buf_printf(&b, "%s%lld", i ? " " : "", a->items[i]->i);
    }
    return b.p;
}
#define LIST(v, path, want)                                                         \
    do {                                                                            \
        char *t_ = list_text(at(v, path));                                          \
        cr_expect_str_eq(t_, want, "%s", path);                                     \
        free(t_);                                                                   \
    } while (0)

Test(quiet, quiet_study_passes_with_hand_values, .init = q_setup, .fini = q_teardown, .timeout = 60)
{
    write_study(q_root);
    char *out;
    run_verify(q_root, 0, &out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);
    vj_node *v = verified(q_root);
    /* syn_quiet_machine: 14 readings, no steal; M idle 92 + k % 3 sums to
     * 14 * 92 + 15 = 1303, so the other core was idle (2660 - 1303) / 1400 */
    NEAR(v, "runs/H3-fb25-r2/steal_share", 0);
    NEAR(v, "runs/H3-fb25-r2/steal_second_max", 0);
    NEAR(v, "runs/H3-fb25-r2/other_idle_share", 1357.0 / 1400);
    NEAR(v, "runs/H3-fb25-r2/foreign_second_max", 0.01);
    NEAR(v, "runs/H3-fb25-r2/per_second/#2/foreign_share", 0.01); /* reading 3 */
    NEAR(v, "runs/H3-fb25-r2/per_second/#3/foreign_share", 0);
    NEAR(v, "runs/H3-fb25-r2/late_max_us", 0); /* closed loop */
    cr_expect_eq(at(v, "runs/H3-fb25-r2/per_second")->n, 13);
    NEAR(v, "runs/H3-fb25-r2/per_second/#12/steal_share", 0);
    NEAR(v, "runs/H3-fb25-r2/per_second/#12/late_max_us", 0);
    NEAR(v, "runs/H3-t25-r2/late_max_us", 10);
    NEAR(v, "runs/H3-t25-r2/n", 287);
    NEAR(v, "runs/H3-t25-r2/error_share", 14.0 / 287);
    NEAR(v, "runs/H3-fb25-r2/standin_share", 0.1);
    const vj_node *runs = at(v, "runs");
    cr_expect_eq(runs->n, 6);
    for (size_t i = 0; i < runs->n; i++) {
        cr_expect_eq(vj_get(runs->items[i], "quiet")->b, 1, "%s", runs->keys[i]);
        cr_expect_eq(vj_get(runs->items[i], "quiet_rules")->n, 0, "%s", runs->keys[i]);
    }
    LIST(v, "arms/H3-fb25/rounds", "1 2 3");
    LIST(v, "arms/H3-fb25/rounds_disturbed", "");
    NEAR(v, "arms/H3-fb25/standin_share/max", 0.1);
    LIST(v, "verdicts/#0/rounds", "1 2 3");
    cr_expect_str_eq(vj_get_str(at(v, "verdicts/#0"), "direction"), "a>b");
    cr_expect_eq(at(v, "guesses/#0/right")->b, 0); /* round 2 has 10% */
    cr_expect_eq(at(v, "guesses/#1/right")->b, 1);
    NEAR(v, "extra/quiet/quiet_runs", 6);
    cr_expect_eq(at(v, "extra/quiet/disturbed")->n, 0);
    cr_expect_str_eq(vj_get_str(at(v, "extra/quiet/rules/#1"), "rule"), "steal_second_max");
    NEAR(v, "extra/quiet/rules/#1/limit", 0.05);
    cr_expect_eq(at(v, "extra/quiet/rules")->n, 6);
    cr_expect_str_eq(vj_get_str(at(v, "extra/quiet/rules/#5"), "rule"), "foreign_second_max");
    NEAR(v, "extra/quiet/rules/#5/limit", 0.2);
    vj_free(v);
}

Test(quiet, a_second_of_steal_leaves_arms_verdicts_and_guesses, .init = q_setup, .fini = q_teardown,
     .timeout = 60)
{
    write_study(q_root);
    /* results.json still counts H3-fb25-r2 as quiet; its raw files now hold
     * the 6% second, and its run.json still claims quiet */
    write_run(q_root, "H3-fb25", 2, STEAL6, NULL);
    cr_assert_eq(syn_write_manifest(q_root), 0);
    char *out;
    run_verify(q_root, 1, &out);
    static const char *const want[] = {
        "MISMATCH H3-fb25-r2 run.json quiet.quiet: lab true, verify false (the raw files break [\"steal_second_max\"])",
        "MISMATCH H3-fb25-r2 run.json quiet.rules: lab [], verify [\"steal_second_max\"] (in the order of "
        "RESULTS.md's table of rules)",
        "MISMATCH H3-fb25-r2 quiet: lab true, verify false",
        "MISMATCH H3-fb25-r2 quiet_rules: lab [], verify [\"steal_second_max\"]",
        "MISMATCH H3-fb25-r2 steal_second_max: lab 0, verify 0.06",
        "MISMATCH H3-fb25-r2 per_second[4].steal_share: lab 0, verify 0.06",
        "MISMATCH arms.H3-fb25 rounds (length): lab 3 entries, verify 2 entries",
        "MISMATCH arms.H3-fb25 rounds_disturbed (length): lab 0 entries, verify 1 entries",
        "MISMATCH arms.H3-fb25 standin_share.max: lab 0.1, verify 0.05",
        "MISMATCH verdicts[0] (H3-t25 H3-fb25 error_share) rounds (length): lab 3 entries, verify 2 entries",
        "MISMATCH guesses[0] (G1) right: lab false, verify true",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(out, want[i]), "%s\n%s", want[i], out);
    cr_expect(!strstr(out, "steal_run_max"), "only steal_second_max is broken:\n%s", out);
    free(out);
    vj_node *v = verified(q_root);
    NEAR(v, "runs/H3-fb25-r2/steal_share", 12.0 / 2800);
    NEAR(v, "runs/H3-fb25-r2/other_idle_share", 1318.0 / 1400);
    cr_expect_eq(at(v, "runs/H3-fb25-r2/quiet")->b, 0);
    LIST(v, "runs/H3-fb25-r2/quiet_rules", "steal_second_max");
    LIST(v, "arms/H3-fb25/rounds", "1 3");
    LIST(v, "arms/H3-fb25/rounds_disturbed", "2");
    LIST(v, "verdicts/#0/rounds", "1 3");
    LIST(v, "verdicts/#1/rounds", "1 3");
    NEAR(v, "verdicts/#1/diffs/#1", -0.05);
    cr_expect_eq(at(v, "guesses/#0/right")->b, 1);
    /* the export for the report */
    NEAR(v, "extra/quiet/disturbed_runs", 1);
    const vj_node *d = at(v, "extra/quiet/disturbed/#0");
    cr_expect_str_eq(vj_get_str(d, "run"), "H3-fb25-r2");
    LIST(d, "rules", "steal_second_max");
    NEAR(d, "steal_second_max", 0.06);
    cr_expect_eq(at(d, "per_second")->n, 13);
    NEAR(d, "per_second/#4/steal_share", 0.06);
    NEAR(d, "per_second/#3/steal_share", 0);
    NEAR(d, "per_second/#4/late_max_us", 0);
    NEAR(d, "foreign_second_max", 0); /* M busy 5, lab 7: none foreign */
    NEAR(d, "per_second/#4/foreign_share", 0);
    vj_free(v);

    /* the lab agrees (run.json says so, results.json leaves it out): passes */
    write_run(q_root, "H3-fb25", 2, STEAL6, "steal_second_max");
    cr_assert_eq(syn_write_manifest(q_root), 0);
    cr_assert_eq(syn_results_from_verified(q_root), 0);
    run_verify(q_root, 0, &out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);
}

Test(quiet, thirty_ms_of_lateness_breaks_late_max_max_ms, .init = q_setup, .fini = q_teardown, .timeout = 60)
{
    write_study(q_root);
    /* one late request of 251: p99 (h = 247.5) stays at 10 us, the maximum is 30 ms */
    write_run(q_root, "H3-t25", 3, LATE30, "late_max_max_ms");
    cr_assert_eq(syn_write_manifest(q_root), 0);
    char *out;
    run_verify(q_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r3 quiet_rules: lab [], verify [\"late_max_max_ms\"]"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r3 late_max_us: lab 1e+01, verify 3e+04"), "%s", out);
    cr_expect(!strstr(out, "run.json quiet"), "run.json agrees:\n%s", out);
    free(out);
    cr_assert_eq(syn_results_from_verified(q_root), 0);
    run_verify(q_root, 0, &out);
    free(out);
    vj_node *v = verified(q_root);
    LIST(v, "runs/H3-t25-r3/quiet_rules", "late_max_max_ms");
    NEAR(v, "runs/H3-t25-r3/late_p99_us", 10);
    NEAR(v, "runs/H3-t25-r3/per_second/#4/late_max_us", 30000);
    NEAR(v, "runs/H3-t25-r3/per_second/#5/late_max_us", 10);
    LIST(v, "arms/H3-t25/rounds_disturbed", "3");
    /* as if not measured: G2 looks at rounds 1 and 2 only */
    cr_expect_eq(at(v, "guesses/#1/right")->b, 1);
    NEAR(v, "arms/H3-t25/late_p99_us/max", 10);
    NEAR(v, "extra/quiet/disturbed/#0/per_second/#4/late_max_us", 30000);
    vj_free(v);
}

/* quiet.tsv with every rule, the lateness rule first and the foreign one second */
#define REORDERED                                                                                   \
    "# reordered\nrule\tlimit\nlate_max_max_ms\t25\nforeign_second_max\t0.2\nsteal_run_max\t0.005\n" \
    "steal_second_max\t0.05\nlate_p99_max_ms\t2\nother_idle_min\t0.8\n"

/* H3-t25-r2, 62 requests over 3 s (the schedule at 20 a second) and 4
 * readings, breaking steal_run_max (20 of 800 ticks), steal_second_max
 * (10%), late_p99_max_ms and late_max_max_ms (one request 30 ms late: the
 * p99, h = 60.39, lies between it and 10 us); claim: run.json's rules */
static void write_disturbed_run(const char *claim)
{
    syn_ref ref;
    syn_make_ref(&ref, 10, 7);
    syn_run r;
    syn_kind_run_open(&r, "H3-t25", 2, "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL", &ref,
                      1200000000000LL, 20, 3.0);
    cr_assert_eq(r.nm, 8);
    syn_send_late(&r, 3, 30000000);
    r.m[0].idle = 170;
    r.m[0].steal = 20;
    r.claim_rules = claim;
    cr_assert_eq(syn_write_run(q_root, &r, 6), 0);
    syn_free_run(&r);
    syn_free_ref(&ref);
    cr_assert_eq(syn_write_manifest(q_root), 0);
}

Test(quiet, broken_rules_follow_the_table_in_results_and_run_json, .init = q_setup, .fini = q_teardown,
     .timeout = 60)
{
    write_study(q_root);
    /* RAWFORMAT.md: run.json's rules in the order of RESULTS.md's table,
     * whatever the file's order; a run.json in the file's order is wrong */
    cr_assert_eq(syn_write_quiet(q_root, REORDERED), 0);
    write_disturbed_run("late_max_max_ms,steal_run_max,steal_second_max,late_p99_max_ms");
    char *out;
    run_verify(q_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r2 run.json quiet.rules: lab [\"late_max_max_ms\", \"steal_run_max\", "
                          "\"steal_second_max\", \"late_p99_max_ms\"], verify [\"steal_run_max\", "
                          "\"steal_second_max\", \"late_p99_max_ms\", \"late_max_max_ms\"] (in the order of "
                          "RESULTS.md's table of rules)"),
              "%s", out);
    free(out);
    write_disturbed_run("steal_run_max,steal_second_max,late_p99_max_ms,late_max_max_ms");
    run_verify(q_root, 1, &out);
    cr_expect(!strstr(out, "H3-t25-r2 run.json quiet"), "run.json lists them in the table's order:\n%s", out);
    free(out);
    vj_node *v = verified(q_root);
    LIST(v, "runs/H3-t25-r2/quiet_rules", "steal_run_max steal_second_max late_p99_max_ms late_max_max_ms");
    LIST(v, "extra/quiet/disturbed/#0/rules", "steal_run_max steal_second_max late_p99_max_ms late_max_max_ms");
    /* the list of limits keeps the file's order */
    cr_expect_str_eq(vj_get_str(at(v, "extra/quiet/rules/#0"), "rule"), "late_max_max_ms");
    cr_expect_str_eq(vj_get_str(at(v, "extra/quiet/rules/#1"), "rule"), "foreign_second_max");
    vj_free(v);
}

Test(quiet, a_hog_on_the_measured_core_breaks_foreign_second_max, .init = q_setup, .fini = q_teardown,
     .timeout = 60)
{
    write_study(q_root);
    /* run.json still claims quiet: its judgement and results.json are wrong */
    write_run(q_root, "H3-t25", 1, HOG, NULL);
    cr_assert_eq(syn_write_manifest(q_root), 0);
    char *out;
    run_verify(q_root, 1, &out);
    static const char *const want[] = {
        "MISMATCH H3-t25-r1 run.json quiet.quiet: lab true, verify false (the raw files break "
        "[\"foreign_second_max\"])",
        "MISMATCH H3-t25-r1 quiet_rules: lab [], verify [\"foreign_second_max\"]",
        "MISMATCH H3-t25-r1 foreign_second_max: lab 0.01, verify 0.58",
        "MISMATCH H3-t25-r1 per_second[6].foreign_share: lab 0, verify 0.58",
        "MISMATCH arms.H3-t25 rounds_disturbed (length): lab 0 entries, verify 1 entries",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(out, want[i]), "%s\n%s", want[i], out);
    /* reading 8's lab above its busy ticks counts 0, as in the quiet file */
    cr_expect(!strstr(out, "per_second[7].foreign_share"), "%s", out);
    cr_expect(!strstr(out, "steal_"), "no steal rule is broken:\n%s", out);
    free(out);
    vj_node *v = verified(q_root);
    NEAR(v, "runs/H3-t25-r1/foreign_second_max", 0.58);
    LIST(v, "runs/H3-t25-r1/quiet_rules", "foreign_second_max");
    NEAR(v, "runs/H3-t25-r1/per_second/#6/foreign_share", 0.58);
    NEAR(v, "runs/H3-t25-r1/per_second/#7/foreign_share", 0);
    NEAR(v, "runs/H3-t25-r1/per_second/#5/foreign_share", 0.01); /* reading 6 */
    LIST(v, "arms/H3-t25/rounds", "2 3");
    const vj_node *d = at(v, "extra/quiet/disturbed/#0");
    cr_expect_str_eq(vj_get_str(d, "run"), "H3-t25-r1");
    LIST(d, "rules", "foreign_second_max");
    NEAR(d, "foreign_second_max", 0.58);
    NEAR(d, "per_second/#6/foreign_share", 0.58);
    NEAR(d, "per_second/#7/foreign_share", 0);
    NEAR(d, "per_second/#6/steal_share", 0);
    vj_free(v);

    /* the lab agrees: passes */
    write_run(q_root, "H3-t25", 1, HOG, "foreign_second_max");
    cr_assert_eq(syn_write_manifest(q_root), 0);
    cr_assert_eq(syn_results_from_verified(q_root), 0);
    run_verify(q_root, 0, &out);
    cr_expect(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    free(out);

    /* run.json's foreign_second_max is compared as the other five: a null
     * where the raw files have a value is one mismatch */
    char *rp = vu_xasprintf("%s/results/raw/H3-t25-r1/run.json", q_root);
    vj_node *rj;
    char err[512];
    cr_assert_eq(vj_parse_file(rp, &rj, err, sizeof err), 0, "%s", err);
    vj_obj_set(vj_get(rj, "quiet"), "foreign_second_max", vj_new_null());
    vu_buf b = {0};
    vj_write(rj, &b);
    cr_assert_eq(syn_write_text(rp, b.p), 0);
    vu_buf_free(&b);
    vj_free(rj);
    free(rp);
    cr_assert_eq(syn_write_manifest(q_root), 0);
    run_verify(q_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 run.json quiet.foreign_second_max: lab null, verify a number (the raw "
                          "files have one)\n"),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(out);
}


Test(quiet, machine_file_rows_are_checked, .init = q_setup, .fini = q_teardown, .timeout = 60)
{
    write_study(q_root);
    /* H3-fb25-r1: line 5 (the second pair's A row) without its idle: rejected */
    ts_replace_line(q_root, "H3-fb25-r1", "machine.tsv.gz", 5, "1000000000\tA\t200\t-\t0\t7");
    /* H3-fb25-r3: line 4 (an M row) says A, line 6 has more steal than ticks
     * left: the run is read, the rows are named (file and line) */
    ts_replace_line(q_root, "H3-fb25-r3", "machine.tsv.gz", 4, "0\tA\t100\t93\t0\t7");
    ts_replace_line(q_root, "H3-fb25-r3", "machine.tsv.gz", 6, "0\tM\t100\t94\t7\t7");
    /* line 7: the third reading at the time of the second */
    ts_replace_line(q_root, "H3-fb25-r3", "machine.tsv.gz", 7, "0\tA\t200\t190\t0\t7");
    /* line 12: reading 5's M row with another lab than its A row (7) */
    ts_replace_line(q_root, "H3-fb25-r3", "machine.tsv.gz", 12, "0\tM\t100\t94\t0\t9");
    /* H3-t25-r2: the columns before the lab column (a file of the earlier page) */
    ts_replace_line(q_root, "H3-t25-r2", "machine.tsv.gz", 2, "t\tscope\ttotal\tidle\tsteal");
    cr_assert_eq(syn_write_manifest(q_root), 0);
    char *out;
    run_verify(q_root, 1, &out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r1 raw files: lab (a run in results/raw/), verify rejected: "), "%s", out);
    cr_expect(strstr(out, "H3-fb25-r1/machine.tsv.gz:5: field idle is absent (-)"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r3 machine.tsv.gz:4 scope: lab A, verify M (the second row of its pair)"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r3 machine.tsv.gz:6 idle + steal: lab 7, verify at most total"), "%s",
              out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r3 machine.tsv.gz:7 t: lab 0, verify after 2302000000000, the previous "
                          "reading (readings in time order); decoded 2302000000000"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r3 machine.tsv.gz:12 lab: lab 9, verify 7, the lab of its A row (the same "
                          "value on the A and the M row of a reading)"),
              "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH H3-fb25-r3 machine.tsv.gz:"), 4, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r2 raw files: lab (a run in results/raw/), verify rejected: "), "%s", out);
    cr_expect(strstr(out, "H3-t25-r2/machine.tsv.gz:2: "), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r3 run.json files.machine.tsv.gz.sha256"), "%s", out);
    free(out);
}

Test(quiet, quiet_file_missing_or_malformed_exits_2, .init = q_setup, .fini = q_teardown, .timeout = 60)
{
    write_study(q_root);
    char *qp = vu_xasprintf("%s/data/quiet.tsv", q_root);
    char *alt = vu_xasprintf("%s/other-quiet.tsv", q_root);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"# c\nrule\tlimit\nsteal_run_max\t0.005\nsteal_max\t0.05\n", "other-quiet.tsv:4: unknown rule \"steal_max\""},
        {"rule\tlimit\nsteal_run_max\t0.005x\n", "other-quiet.tsv:2: limit \"0.005x\" of rule steal_run_max is not a number"},
        {"rule\tlimit\nsteal_run_max\t1\nsteal_run_max\t2\n", "other-quiet.tsv:3: rule steal_run_max given twice (first on line 2)"},
        {"rule limit\n", "other-quiet.tsv:1: header is \"rule limit\""},
        {"# only a comment\n", "other-quiet.tsv: no header line"},
        {"rule\tlimit\n\nsteal_run_max\t1\n", "other-quiet.tsv:2: an empty line"},
        {"rule\tlimit\nsteal_run_max\t1\t2\n", "other-quiet.tsv:2: \"steal_run_max\t1\t2\" is not `rule<TAB>limit`"},
        /* the registered file without its last line */
        {"# c\nrule\tlimit\nsteal_run_max\t0.005\nsteal_second_max\t0.05\nlate_p99_max_ms\t2\n"
         "late_max_max_ms\t25\nother_idle_min\t0.8\n",
         "other-quiet.tsv: rule foreign_second_max is missing"},
        /* the first rule missing, a later one too: the first missing is named */
        {"rule\tlimit\nlate_p99_max_ms\t2\n", "other-quiet.tsv: rule steal_run_max is missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(syn_write_text(alt, bad[i].text), 0);
        char *out;
        const char *a[] = {"--root", q_root, "--no-scan", "--quiet", alt, NULL};
        int rc = th_run(&out, a);
        cr_expect_eq(rc, 2, "%s", out);
        cr_expect(strstr(out, bad[i].msg), "want %s:\n%s", bad[i].msg, out);
        free(out);
    }
    /* --quiet is used: a stricter file makes every run disturbed, against run.json */
    cr_assert_eq(syn_write_text(alt, "rule\tlimit\nsteal_run_max\t0.005\nsteal_second_max\t0.05\nlate_p99_max_ms\t2\n"
                                     "late_max_max_ms\t25\nother_idle_min\t0.99\nforeign_second_max\t0.2\n"),
                 0);
    char *out;
    const char *a[] = {"--root", q_root, "--no-scan", "--quiet", alt, NULL};
    cr_expect_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 run.json quiet.quiet: lab true, verify false (the raw files break "
                          "[\"other_idle_min\"])"),
              "%s", out);
    free(out);
    /* the default file missing */
    unlink(qp);
    const char *d[] = {"--root", q_root, "--no-scan", NULL};
    cr_expect_eq(th_run(&out, d), 2, "%s", out);
    cr_expect(strstr(out, "the quiet rules not found: "), "%s", out);
    cr_expect(strstr(out, "data/quiet.tsv; give them with --quiet FILE"), "%s", out);
    free(out);
    free(qp);
    free(alt);
}
