/* Several machines: a round is measured on one machine (pipeline/RESULTS.md,
 * "Several machines: a round is measured on one machine"; lab/RAWFORMAT.md,
 * run.json's machine; machines.h).
 *
 * The study: arms H3-fb25 and H3-t25, rounds 1 and 2, each run 8 requests
 * of a closed loop (syn_kind_run); round 1 measured on m1, round 2 on m2,
 * unless a test says otherwise.  results.json is made from the verifier's
 * own figures after the runs are written (ts_promote), so only the checks
 * of machines.h (and the comparison of runs.<run>.machine) can see a
 * tamper.  parallel.tsv is GNU parallel's --joblog as parallel 20221122
 * writes it here (JobRuntime padded as %10.3f), Host the label.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machines.h"
#include "tstudy.h"

static char *m_root;
static syn_ref m_ref;

static void m_setup(void)
{
    m_root = th_tmpdir();
    cr_assert(m_root);
    syn_make_ref(&m_ref, 10, 7);
    m_ref.last_known[4] = m_ref.default_score; /* request 4 is answered D: row 4 has no last-known score */
}

static void m_teardown(void)
{
    syn_free_ref(&m_ref);
    th_rmrf(m_root);
    free(m_root);
}

#define HEADER "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n"
/* round 1 failed on m2 (Seq 1, last in the file: parallel logs a job when
 * it ends), then measured again whole on m1 (Seq 3); round 2 on m2 */
#define GOOD_LOG                                                        \
    HEADER "2\tm2\t1796137411.980\t     3.498\t0\t0\t0\t0\tmeasure-round 2\n" \
           "3\tm1\t1796137413.120\t     3.512\t0\t0\t0\t0\tmeasure-round 1\n" \
           "1\tm2\t1796137411.976\t     0.104\t0\t0\t255\t0\tmeasure-round 1\n"

static void put(const char *rel, const char *text)
{
    char *p = vu_xasprintf("%s/%s", m_root, rel), *d = vu_xstrdup(p);
    *strrchr(d, '/') = 0;
    cr_assert_eq(syn_mkdirs(d), 0);
    cr_assert_eq(syn_write_text(p, text), 0);
    free(d);
    free(p);
}

/* the runs, machine[a][k] the label of arm a in round k + 1 (NULL: the
 * run is not written; "": run.json without machine); then the study files,
 * results.json from the verifier's figures, and parallel.tsv (NULL: none) */
static void write_study(const char *const machine[2][2], const char *log)
{
    static const char *const arms[2] = {"H3-fb25", "H3-t25"};
    cr_assert_eq(syn_write_reference(m_root, &m_ref), 0);
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 2; k++) {
            if (!machine[a][k])
                continue;
            syn_run r;
            syn_kind_run(&r, arms[a], k + 1, "LLKLDELL", &m_ref, 1000000000000LL * (1 + 2 * k + a));
            r.machine = machine[a][k];
            cr_assert_eq(syn_write_run(m_root, &r, 1), 0);
            syn_free_run(&r);
        }
    ts_write_texts(m_root, "a\tb\tfigure\tnote\n", "id\tguess\tpredicate\n");
    cr_assert_eq(syn_write_quiet(m_root, NULL), 0);
    cr_assert_eq(syn_write_manifest(m_root), 0);
    ts_promote(m_root);
    if (log)
        put("provenance/parallel.tsv", log);
}

static const char *const TWO[2][2] = {{"m1", "m2"}, {"m1", "m2"}};

static char *m_verify(int want_rc)
{
    char *out;
    const char *a[] = {"--root", m_root, "--no-scan", "--max-print", "0", NULL};
    int rc = th_run(&out, a);
    cr_expect_eq(rc, want_rc, "exit %d, expected %d:\n%s", rc, want_rc, out);
    return out;
}

static int has(const char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int has(const char *out, const char *fmt, ...)
{
    char want[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(want, sizeof want, fmt, ap);
    va_end(ap);
    int ok = strstr(out, want) != NULL;
    if (!ok)
        fprintf(stderr, "missing: %s\n", want);
    return ok;
}

static const vj_node *machines_json(const vj_node *v)
{
    const vj_node *m = vj_get(vj_get(vj_get(v, "checks"), "study"), "machines");
    cr_assert(m && m->type == VJ_OBJ, "checks.study.machines absent");
    return m;
}

/* ---- units ---- */

Test(machines, labels)
{
    static const char *const good[] = {"local", "m1", "m2", "m10", "m2147483647"};
    static const char *const bad[] = {"", "m", "m0", "m01", "M1", "m-1", "m1 ", "Local", "m2147483648", "host-a",
                                      "192.0.2.7", "m1.5"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        cr_expect(mc_label_ok(good[i]), "%s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect(!mc_label_ok(bad[i]), "%s", bad[i]);
    cr_expect(!mc_label_ok(NULL));
}

Test(machines, last_line_of_a_round_is_the_greatest_seq)
{
    mc_job v[] = {{2, 2, 0, 0, 2, "m2"}, {3, 3, 0, 0, 1, "m1"}, {4, 1, 255, 0, 1, "m2"}, {5, 3, 1, 0, 1, "m2"}};
    mc_joblog j = {1, 1, v, 3, 3, 0};
    const mc_job *l = mc_joblog_last(&j, 1);
    cr_assert(l);
    cr_expect_eq(l->line, 3);   /* Seq 3 beats Seq 1, which is later in the file */
    cr_expect_eq(mc_joblog_last(&j, 2)->line, 2);
    cr_expect_eq(mc_joblog_last(&j, 3), NULL);
    j.n = 4;   /* two lines with Seq 3: the later in the file */
    cr_expect_eq(mc_joblog_last(&j, 1)->line, 5);
}

/* ---- the study ---- */

Test(machines, a_two_machine_study_with_its_joblog_passes, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    write_study(TWO, GOOD_LOG);
    char *out = m_verify(0);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    free(out);
    vj_node *v = ts_verified(m_root);
    cr_expect_str_eq(ts_field(v, "H3-fb25-r1", "machine")->text, "m1");
    cr_expect_str_eq(ts_field(v, "H3-t25-r2", "machine")->text, "m2");
    const vj_node *m = machines_json(v), *p = vj_get(m, "parallel_tsv"), *names = vj_get(m, "machines");
    cr_assert(names && names->n == 2);
    cr_expect(!strcmp(names->items[0]->text, "m1") && !strcmp(names->items[1]->text, "m2"));
    cr_expect_eq(vj_get(m, "runs_labelled")->i, 4);
    cr_expect_eq(vj_get(m, "rounds")->i, 2);
    cr_expect_eq(vj_get(m, "rounds_on_more_than_one_machine")->i, 0);
    cr_expect(vj_get(p, "required")->b && vj_get(p, "present")->b);
    cr_expect_eq(vj_get(p, "lines")->i, 3);
    cr_expect_eq(vj_get(p, "malformed_lines")->i, 0);
    cr_expect_eq(vj_get(p, "rounds_checked")->i, 2);
    cr_expect_eq(vj_get(m, "mismatches")->i, 0);
    vj_free(v);
    /* the scanner: labels and times, no address */
    char *pt = vu_xasprintf("%s/provenance/parallel.tsv", m_root);
    const char *a[] = {"--scan", pt, NULL};
    cr_expect_eq(th_run(&out, a), 0, "%s", out);
    cr_expect(strstr(out, "\n0 FINDINGS"), "%s", out);
    free(out);
    free(pt);
}

Test(machines, one_machine_needs_no_joblog, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    static const char *const ONE[2][2] = {{"m1", "m1"}, {"m1", "m1"}};
    write_study(ONE, NULL);
    char *out = m_verify(0);
    free(out);
    vj_node *v = ts_verified(m_root);
    const vj_node *p = vj_get(machines_json(v), "parallel_tsv");
    cr_expect(!vj_get(p, "required")->b && !vj_get(p, "present")->b);
    vj_free(v);
}

Test(machines, a_round_split_across_two_machines_is_found, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    static const char *const SPLIT[2][2] = {{"m1", "m2"}, {"m1", "m1"}};
    write_study(SPLIT, GOOD_LOG);
    char *out = m_verify(1);
    cr_expect(has(out, "MISMATCH round 2 machine: lab m1 (H3-t25-r2), m2 (H3-fb25-r2), verify one machine for every "
                       "run of the round, kept or failed (2 runs; "),
              "%s", out);
    /* a split round's Host is not compared again: one mismatch */
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    free(out);
    vj_node *v = ts_verified(m_root);
    cr_expect_eq(vj_get(machines_json(v), "rounds_on_more_than_one_machine")->i, 1);
    vj_free(v);
}

Test(machines, a_failed_run_names_its_rounds_machine, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    /* H3-t25-r2 not measured: its failed record (synstudy.c) names m2, the round's machine */
    static const char *const GAP[2][2] = {{"m1", "m2"}, {"m1", NULL}};
    write_study(GAP, GOOD_LOG);
    char *out = m_verify(0);
    free(out);
    /* the same record naming m1: round 2 is split */
    char *p = vu_xasprintf("%s/provenance/runs/H3-t25-r2.json", m_root);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(p, &b, &len, err, sizeof err), 0, "%s", err);
    char *at = strstr((char *)b, "\"machine\": \"m2\"");
    cr_assert(at);
    at[13] = '1';
    cr_assert_eq(syn_write_text(p, (char *)b), 0);
    free(b);
    free(p);
    out = m_verify(1);
    cr_expect(has(out, "MISMATCH round 2 machine: lab m1 (provenance/runs/H3-t25-r2.json), m2 (H3-fb25-r2), verify "
                       "one machine"),
              "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    free(out);
}

Test(machines, records_name_their_runs_machine, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    write_study(TWO, GOOD_LOG);
    /* a measured run's record on another machine than its run.json; one without machine */
    put("provenance/runs/H3-fb25-r1.json", "{\"run\": \"H3-fb25-r1\", \"exit_code\": 0, \"machine\": \"m2\"}\n");
    put("provenance/runs/H3-t25-r1.json", "{\"run\": \"H3-t25-r1\", \"exit_code\": 0}\n");
    char *out = m_verify(1);
    cr_expect(has(out, "MISMATCH provenance/runs/H3-fb25-r1.json machine: lab m2, verify m1, the machine of "
                       "results/raw/H3-fb25-r1/run.json"),
              "%s", out);
    cr_expect(has(out, "MISMATCH provenance/runs/H3-t25-r1.json machine: lab (absent), verify a machine label: "
                       "local, or m1, m2, ..."),
              "%s", out);
    /* (the hand-made records lack the other fields RESULTS.md lists: runjson.h names those) */
    cr_expect_eq(th_count_lines(out, "MISMATCH provenance/runs/H3-fb25-r1.json machine:"), 1, "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH provenance/runs/H3-t25-r1.json machine:"), 1, "%s", out);
    cr_expect(!strstr(out, "MISMATCH round "), "%s", out);
    free(out);
}

Test(machines, a_two_machine_study_without_its_joblog_is_found, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    write_study(TWO, NULL);
    char *out = m_verify(1);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv file: lab (absent), verify GNU parallel's --joblog of the "
                       "round jobs: the runs name 2 machines"),
              "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    free(out);
}

Test(machines, a_joblog_whose_last_line_failed_or_names_another_machine_is_found, .init = m_setup,
     .fini = m_teardown, .timeout = 60)
{
    write_study(TWO, NULL);
    /* round 2's only line failed */
    put("provenance/parallel.tsv", HEADER "1\tm1\t1796137411.976\t     3.512\t0\t0\t0\t0\tmeasure-round 1\n"
                                          "2\tm2\t1796137411.980\t     3.498\t0\t0\t1\t0\tmeasure-round 2\n");
    char *out = m_verify(1);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:3 round 2 Exitval, Signal: lab 1, 0, verify 0, 0: the "
                       "round's last line (Seq 2, the greatest of its lines)"),
              "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    free(out);
    /* killed by a signal */
    put("provenance/parallel.tsv", HEADER "1\tm1\t1796137411.976\t     3.512\t0\t0\t0\t0\tmeasure-round 1\n"
                                          "2\tm2\t1796137411.980\t     3.498\t0\t0\t0\t9\tmeasure-round 2\n");
    out = m_verify(1);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:3 round 2 Exitval, Signal: lab 0, 9, verify 0, 0"), "%s",
              out);
    free(out);
    /* round 1's last line (Seq 3, not the last in the file) names m2, whose attempt (Seq 1) failed */
    put("provenance/parallel.tsv", HEADER "3\tm2\t1796137413.120\t     3.512\t0\t0\t0\t0\tmeasure-round 1\n"
                                          "2\tm2\t1796137411.980\t     3.498\t0\t0\t0\t0\tmeasure-round 2\n"
                                          "1\tm1\t1796137411.976\t     3.512\t0\t0\t0\t0\tmeasure-round 1\n");
    out = m_verify(1);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:2 round 1 Host: lab m2, verify m1, the machine round 1's "
                       "runs name (H3-fb25-r1; "),
              "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    free(out);
    /* no line for round 2 */
    put("provenance/parallel.tsv", HEADER "1\tm1\t1796137411.976\t     3.512\t0\t0\t0\t0\tmeasure-round 1\n");
    out = m_verify(1);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv round 2: lab (no line), verify a line with Command "
                       "measure-round 2"),
              "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    free(out);
}

Test(machines, malformed_joblog_lines_are_named_by_line, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    write_study(TWO, NULL);
    put("provenance/parallel.tsv",
        HEADER "1\tm1\t1796137411.976\t     3.512\t0\t0\t0\t0\tmeasure-round 1\n"
               "2\t192.0.2.7\t1796137411.980\t     3.498\t0\t0\t0\t0\tmeasure-round 2\n"  /* an address */
               "3\tm2\t1796137411.980\t     3.498\t0\t0\t0\tmeasure-round 2\n"           /* 8 fields */
               "4\tm2\t1796137411.980\t    -3.498\t0\t0\t0\t0\tmeasure-round 2\n"        /* a negative runtime */
               "5\tm2\t1796137411.980\t     3.498\t0\t0\t0\t0\tmeasure-round 02\n"       /* a leading zero */
               "6\tm2\t1796137411.980\t     3.498\t0\t0\tx\t0\tmeasure-round 2\n"        /* Exitval */
               "\n"                                                                      /* blank */
               "7\tm2\t1796137412.000\t     3.498\t0\t0\t0\t0\tmeasure-round 2\n");      /* good */
    char *out = m_verify(1);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:3 Host (a malformed line): lab 192.0.2.7, verify the "
                       "machine's label"),
              "%s", out);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:4 fields (a malformed line): lab 8 fields, verify 9"), "%s",
              out);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:5 JobRuntime (a malformed line): lab     -3.498, "), "%s",
              out);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:6 Command (a malformed line): lab measure-round 02, "),
              "%s", out);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:7 Exitval (a malformed line): lab x, "), "%s", out);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:8 fields (a malformed line): lab 1 fields, "), "%s", out);
    /* the malformed lines only: round 2's good line (Seq 7) stands */
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 6, "%s", out);
    free(out);
    vj_node *v = ts_verified(m_root);
    const vj_node *p = vj_get(machines_json(v), "parallel_tsv");
    cr_expect_eq(vj_get(p, "lines")->i, 8);
    cr_expect_eq(vj_get(p, "malformed_lines")->i, 6);
    vj_free(v);
    /* a header it cannot read: one mismatch, no line read */
    put("provenance/parallel.tsv", "Seq Host Starttime JobRuntime Send Receive Exitval Signal Command\n"
                                   "1\tm1\t1796137411.976\t     3.512\t0\t0\t0\t0\tmeasure-round 1\n");
    out = m_verify(1);
    cr_expect(has(out, "MISMATCH provenance/parallel.tsv:1 header: lab Seq Host Starttime"), "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    free(out);
}

Test(machines, run_json_without_a_machine_label_is_found, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    static const char *const NONE[2][2] = {{"", "local"}, {"host-a.example", "local"}};
    write_study(NONE, NULL);
    char *out = m_verify(1);
    cr_expect(has(out, "MISMATCH H3-fb25-r1 run.json machine: lab (absent), verify a machine label: local, or m1, "
                       "m2, ... (RAWFORMAT.md, run.json machine)\n"),
              "%s", out);
    cr_expect(has(out, "MISMATCH H3-t25-r1 run.json machine: lab \"host-a.example\", verify a machine label"), "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 2, "%s", out);
    free(out);
    /* runs.<run>.machine is run.json's as written (null when absent) */
    vj_node *v = ts_verified(m_root);
    cr_expect_eq(ts_field(v, "H3-fb25-r1", "machine")->type, VJ_NULL);
    cr_expect_str_eq(ts_field(v, "H3-t25-r1", "machine")->text, "host-a.example");
    vj_free(v);
}

Test(machines, results_json_machine_is_run_jsons, .init = m_setup, .fini = m_teardown, .timeout = 60)
{
    write_study(TWO, GOOD_LOG);
    char *p = vu_xasprintf("%s/results/results.json", m_root);
    vj_node *lab;
    char err[512];
    cr_assert_eq(vj_parse_file(p, &lab, err, sizeof err), 0, "%s", err);
    vj_obj_set(vj_get(vj_get(lab, "runs"), "H3-t25-r2"), "machine", vj_new_str("m1"));
    vj_node *runs = vj_get(lab, "runs");
    vj_node *r1 = vj_get(runs, "H3-fb25-r1");
    vj_node *copy = vj_new_obj();   /* H3-fb25-r1 without machine */
    for (size_t i = 0; i < r1->n; i++)
        if (strcmp(r1->keys[i], "machine"))
            vj_obj_set(copy, r1->keys[i], vj_copy(r1->items[i]));
    vj_obj_set(runs, "H3-fb25-r1", copy);
    vu_buf b = {0};
    vj_write(lab, &b);
    cr_assert_eq(syn_write_text(p, b.p), 0);
    vu_buf_free(&b);
    vj_free(lab);
    free(p);
    char *out = m_verify(1);
    cr_expect(has(out, "MISMATCH H3-t25-r2 machine: lab \"m1\", verify \"m2\""), "%s", out);
    cr_expect(has(out, "MISMATCH H3-fb25-r1 machine: lab (absent), verify \"m1\""), "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 2, "%s", out);
    free(out);
}
