/* A request never sent (lab/RAWFORMAT.md, tester.tsv.gz: send_us and conn
 * "-", then answer_us and score "-", status 0, kind E) and the lateness over
 * the rows with send_t present (pipeline/RESULTS.md, late_p50_us,
 * late_p99_us, late_max_us; per_second late_max_us).
 *
 * The study (results.json made from the verifier's own figures after the
 * runs are written, ts_promote):
 *   H3-t25-r1     open loop, 5 a second over 2 s: round 1's schedule has 9
 *                 requests, at 38.9, 126.8, 617.6, 897.0 ms (second 0) and
 *                 1254.1, 1431.9, 1705.8, 1859.4, 1865.5 ms (second 1); each
 *                 sent 10 us late but request 6, sent 1.5 ms late; request 0
 *                 never sent.  By hand: n 9, answered 8, error 1, lost 1;
 *                 the 8 sent lateness values sorted are 10 (7 times) and
 *                 1500 us: p50 at rank 3.5 is 10; p99 at rank 7 * 0.99 =
 *                 6.93 is 10 + 0.93 * 1490 = 1395.7; max 1500; per second
 *                 late_max_us 10 (requests 1-3: request 0 has none) and
 *                 1500.  (Were the unsent row counted with any lateness,
 *                 the p99 would be taken at rank 7.92 of 9 values instead.)
 *   Z-unsent-r1   the same schedule, none of the 9 sent: every lateness
 *                 figure null, and second 0's late_max_us null (4
 *                 arrivals).  (Format 4 has no closed-loop request never
 *                 sent: there sched_t is send_t, so such a row cannot be
 *                 decoded and the run is rejected: test_rawdec.c.)
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tstudy.h"

static char *u_root;
static syn_ref u_ref;

static void u_setup(void)
{
    u_root = th_tmpdir();
    cr_assert(u_root);
    syn_make_ref(&u_ref, 10, 3);
}

static void u_teardown(void)
{
    syn_free_ref(&u_ref);
    th_rmrf(u_root);
    free(u_root);
}

static void write_study(void)
{
    cr_assert_eq(syn_write_reference(u_root, &u_ref), 0);
    syn_run r;
    syn_kind_run_open(&r, "H3-t25", 1, "LLLLLLLLL", &u_ref, 1000000000000LL, 5, 2.0);
    syn_send_late(&r, 6, 1500000);
    syn_never_sent(&r, 0);
    cr_assert_eq(syn_write_run(u_root, &r, 1), 0);
    syn_free_run(&r);
    syn_kind_run_open(&r, "Z-unsent", 1, "LLLLLLLLL", &u_ref, 2000000000000LL, 5, 2.0);
    for (size_t j = 0; j < r.nt; j++)
        syn_never_sent(&r, j);
    cr_assert_eq(syn_write_run(u_root, &r, 1), 0);
    syn_free_run(&r);
    ts_write_texts(u_root, "a\tb\tfigure\tnote\n", "id\tguess\tpredicate\n");
    cr_assert_eq(syn_write_quiet(u_root, NULL), 0);
    cr_assert_eq(syn_write_manifest(u_root), 0);
    ts_promote(u_root);
}

static char *u_verify(int want_rc)
{
    char *out;
    const char *a[] = {"--root", u_root, "--no-scan", "--max-print", "0", NULL};
    int rc = th_run(&out, a);
    cr_expect_eq(rc, want_rc, "exit %d, expected %d:\n%s", rc, want_rc, out);
    return out;
}

static const vj_node *second(const vj_node *v, const char *run, int s)
{
    const vj_node *ps = ts_field(v, run, "per_second");
    cr_assert(ps->type == VJ_ARR && (size_t)s < ps->n);
    return ps->items[s];
}

Test(unsent, a_request_never_sent_is_read_and_left_out_of_the_lateness, .init = u_setup, .fini = u_teardown,
     .timeout = 60)
{
    write_study();
    char *out = u_verify(0);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    cr_expect(strstr(out, "2 runs (0 rejected)"), "%s", out);
    free(out);
    vj_node *v = ts_verified(u_root);
    TS_NUM(v, "H3-t25-r1", "n", 9);
    TS_NUM(v, "H3-t25-r1", "answered", 8);
    TS_NUM(v, "H3-t25-r1", "error", 1);
    TS_NUM(v, "H3-t25-r1", "lost", 1);
    TS_NUM(v, "H3-t25-r1", "late_p50_us", 10);
    TS_NUM(v, "H3-t25-r1", "late_p99_us", 1395.7);
    TS_NUM(v, "H3-t25-r1", "late_max_us", 1500);
    const vj_node *s0 = second(v, "H3-t25-r1", 0), *s1 = second(v, "H3-t25-r1", 1);
    cr_expect_eq(vj_get(s0, "arrivals")->i, 4);
    cr_expect_eq(vj_get(s0, "errors")->i, 1);
    cr_expect(fabs(vj_get(s0, "late_max_us")->num - 10) < 1e-9);
    cr_expect(fabs(vj_get(s1, "late_max_us")->num - 1500) < 1e-9);
    TS_NUM(v, "Z-unsent-r1", "n", 9);
    TS_NUM(v, "Z-unsent-r1", "error", 9);
    static const char *const nulls[] = {"late_p50_us", "late_p99_us", "late_max_us"};
    for (int k = 0; k < 3; k++)
        cr_expect_eq(ts_field(v, "Z-unsent-r1", nulls[k])->type, VJ_NULL, "%s", nulls[k]);
    cr_expect_eq(vj_get(second(v, "Z-unsent-r1", 0), "arrivals")->i, 4);
    cr_expect_eq(vj_get(second(v, "Z-unsent-r1", 0), "late_max_us")->type, VJ_NULL);
    /* a null lateness breaks no quiet rule */
    cr_expect(ts_field(v, "Z-unsent-r1", "quiet")->b);
    vj_free(v);
}

Test(unsent, a_request_never_sent_with_status_200_is_named, .init = u_setup, .fini = u_teardown, .timeout = 60)
{
    write_study();
    /* tester.tsv.gz line 3 is request 0: "-" in send_us and conn, status 200 */
    char *p = vu_xasprintf("%s/results/raw/H3-t25-r1/tester.tsv.gz", u_root);
    unsigned char *gz, *txt;
    size_t gzlen, len;
    char err[256];
    cr_assert_eq(vu_read_file(p, &gz, &gzlen, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rr_gunzip(gz, gzlen, &txt, &len, err, sizeof err), 0, "%s", err);
    char *l3 = strchr(strchr((char *)txt, '\n') + 1, '\n') + 1, *e = strchr(l3, '\n');
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)(e - l3), l3);
    /* send_us answer_us status kind score conn waited, as syn_never_sent wrote it */
    cr_assert(!strncmp(line, "-\t-\t0\tE\t-\t-\t", 12), "line 3: %s", line);
    char *fixed = vu_xasprintf("-\t-\t200\tE\t-\t-\t%s", line + 12);
    free(txt);
    free(gz);
    free(p);
    ts_replace_line(u_root, "H3-t25-r1", "tester.tsv.gz", 3, fixed);
    free(fixed);
    cr_assert_eq(syn_write_manifest(u_root), 0);
    char *out = u_verify(1);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 tester.tsv.gz:3 status: lab 200, verify 0 (send_us is -: the request "
                          "was never sent)\n"),
              "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH H3-t25-r1 tester.tsv.gz:"), 1, "%s", out);
    free(out);
}

Test(unsent, a_service_row_for_a_request_never_sent_is_named, .init = u_setup, .fini = u_teardown, .timeout = 60)
{
    syn_run r;
    cr_assert_eq(syn_write_reference(u_root, &u_ref), 0);
    syn_kind_run_open(&r, "H3-t25", 1, "LLLLLLLLL", &u_ref, 1000000000000LL, 5, 2.0);
    /* the service logged a request the tester never sent (without its lookups) */
    syn_vrow kept = r.v[0];
    cr_assert_eq(kept.req, 0);
    syn_never_sent(&r, 0);
    kept.lookups = 0;
    for (int k = 0; k < 5; k++)
        kept.a_has[k] = 0;
    /* back in its place, the first answer written (roworder.h); room: syn_never_sent removed it */
    memmove(&r.v[1], &r.v[0], r.nv * sizeof *r.v);
    r.v[0] = kept;
    r.nv++;
    cr_assert_eq(syn_write_run(u_root, &r, 1), 0);
    size_t line = 3;
    syn_free_run(&r);
    ts_write_texts(u_root, "a\tb\tfigure\tnote\n", "id\tguess\tpredicate\n");
    cr_assert_eq(syn_write_quiet(u_root, NULL), 0);
    cr_assert_eq(syn_write_manifest(u_root), 0);
    ts_promote(u_root);
    char *out = u_verify(1);
    char want[256];
    snprintf(want, sizeof want,
             "MISMATCH H3-t25-r1 service.tsv.gz:%zu req: lab 0 (request never sent), verify no row: request 0 was "
             "never sent (send_us - at tester.tsv.gz:3)\n",
             line);
    cr_expect(strstr(out, want), "%s\nwanted: %s", out, want);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    free(out);
}
