/* lab/raw/raw4.c, raw format 4 (lab/RAWFORMAT.md): a tiny run's three files
 * written by hand from the page and decoded to instants computed by hand;
 * the same run's logs rewritten by the run driver's code into that very
 * text; bad files refused with the file, line and column; logs that break
 * a rule of the format refused; and real runs (open loop, closed loop, two
 * stores) whose logs and format 4 files agree: every instant within
 * [x - 999, x] ns, every other value equal; an arrival just after a fault
 * window's edge rounded up to the side the store decided; a run whose store draws other
 * waits, or whose tester asks for other rows, fails with the reason. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "raw4.h"
#include "tsh.h"
#include "exits.h"
#include "util.h"
#include "waits.h"

static char tmp[64];

static void mk_tmp(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/raw4XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(raw4, .init = mk_tmp, .fini = rm_tmp, .timeout = 120);

#define N RAW_NONE

static void put_gz(const char *dir, const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    gzFile gz = gzopen(p, "wb");
    cr_assert_not_null(gz);
    cr_assert_eq(gzwrite(gz, text, (unsigned)strlen(text)), (int)strlen(text));
    cr_assert_eq(gzclose(gz), Z_OK);
}

static void put_text(const char *dir, const char *name, const char *text)
{
    char p[256], err[UT_ERRLEN];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    cr_assert_eq(ut_write_file(p, text, strlen(text), err, sizeof err), 0, "%s", err);
}

static char *gunzip(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    cr_assert_not_null(gz, "%s", path);
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap);
    int n;
    while ((n = gzread(gz, b + len, (unsigned)(cap - len - 1))) > 0)
        len += (size_t)n;
    gzclose(gz);
    b[len] = 0;
    return b;
}

/* ------------------------------------------------ the hand-made run */

/* Round 1 at 300/s for 12 ms: the page's first offsets 648644, 2113409,
 * 10294089 ns (the next, 14949356, is past the span): three requests.
 * Two table rows; wait L (the page's checks: (0,0) 3647492, (2,0)
 * 2159850, (2,1) 9928686 ns). */
#define T0 1000000000LL
#define RUN_JSON(rate, requests)                                                                                   \
    "{\"t0_ns\": 1000000000, \"requests\": " #requests ", \"test_rows\": 2, \"round\": 1, \"rate\": " #rate          \
    ", \"seconds\": 0.012, \"freeze_share\": 0.01, \"stores\": 1, \"arm_spec\": {\"wait\": \"L\"}}"

#define THEAD "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n"
#define VHEAD                                                                                                      \
    "# lab-raw 4 service\nreq\tarrive_us\tanswer_us\tstatus\tkind\tlookups\tstore\ta0_start_us\ta0_end_us\ta0_out\t" \
    "a1_start_us\ta1_end_us\ta1_out\ta2_start_us\ta2_end_us\ta2_out\ta3_start_us\ta3_end_us\ta3_out\ta4_start_us\t"  \
    "a4_end_us\ta4_out\n"
#define SHEAD "# lab-raw 4 store\nreq\tattempt\tarrive_us\tstart_us\tend_us\tbudget_ns\toutcome\tline\tbusy\n"
#define NOL3 "\t-\t-\t-"

static const char *TESTER = THEAD "41\t2317\t200\tL\t=\t7\t0\n"
                                  "10\t900\t200\tD\t0.5\t1\t1\n"
                                  "120\t5003\t200\tK\t=\t3\t0\n";
static const char *SERVICE = VHEAD "0\t76\t43\t200\tL\t1\t1\t0\t61\tA" NOL3 NOL3 NOL3 NOL3 "\n"
                                   "-\t5\t7\t400\tE\t0\t1" NOL3 NOL3 NOL3 NOL3 NOL3 "\n"
                                   "2\t30\t-12\t200\tK\t2\t1\t10\t25000\tT\t25020\t-3\tX" NOL3 NOL3 NOL3 "\n"
                                   "7\t100\t50\t200\tL\t0\t1" NOL3 NOL3 NOL3 NOL3 NOL3 "\n";
static const char *STORE = SHEAD "0\t0\t22\t0\t34\t0\tA\t0\t1\n"
                                 "2\t1\t15\t-\t-\t0\tP\t3\t16\n"
                                 "2\t0\t40\t-\t7\t5000000\tD\t1\t16\n"
                                 "9\t0\t-5\t-\t0\t0\tU\t0\t0\n";

/* The run folder and, in tmp/ref, its reference: row 0 scores 0.25 (live)
 * and 0.75 (last known), row 1 0.5 and 0.375; default 0.125. */
static void hand_run(const char *json, const char *tester, const char *service, const char *store)
{
    char ref[128];
    snprintf(ref, sizeof ref, "%s/ref", tmp);
    mkdir(ref, 0755);
    put_text(ref, "scores.tsv", "customer\tcutoff\tlabel\tscore\tlast_known\n1\t2020-01-01\t0\t0.25\t0.75\n"
                                "2\t2020-01-01\t1\t0.5\t0.375\n");
    put_text(ref, "summary.json", "{\"default_score\": 0.125, \"test_rows\": 2}");
    put_text(tmp, "run.json", json);
    put_gz(tmp, "tester.tsv.gz", tester);
    put_gz(tmp, "service.tsv.gz", service);
    put_gz(tmp, "store.tsv.gz", store);
    put_gz(tmp, "machine.tsv.gz", "# lab-raw 4 machine\nt\tscope\ttotal\tidle\tsteal\tlab\n");
    put_gz(tmp, "events.tsv.gz", "# lab-raw 4 events\nt\twhat\tconn\ttries\twait_ns\n");
}

/* The decoded instants, by hand (see each file's section of the page). */
static const int64_t WANT_T[3][RAWFMT_TESTER_NCOLS] = {
    /* sched = t0 + offset; send = sched + 1000 send_us; answer = sched + 1000 answer_us */
    {0, 0, 1000648644, 1000689644, 1002965644, 200, 'L', 0, 7, 0},
    {1, 1, 1002113409, 1002123409, 1003013409, 200, 'D', 0, 1, 1},
    {2, 0, 1010294089, 1010414089, 1015297089, 200, 'K', 0, 3, 0},
};
static const float WANT_SCORE[3] = {0.25f, 0.5f, 0.75f}; /* "=" of L row 0; 0.5 as written; "=" of K row 0 */
static const int64_t WANT_V[4][RAWFMT_SERVICE_NCOLS] = {
    /* req 0: arrive 1000648644 + 76000, answer 1002965644 + 43000, a0_start = arrive + 0; a0 answered (A):
     * its end after start + W, W of (round 1, req 0, attempt 0) = 3647492 (the page's check):
     * 1000724644 + 3647492 + 61000 = 1004433136 (5 us after the store's end of that lookup) */
    {0, 0, 1000724644, 1003008644, 200, 'L', 1, 1, 1000724644, 1004433136, 'A', N, N, N, N, N, N, N, N, N, N, N, N},
    /* no req: arrive after t0, answer after arrive */
    {N, N, 1000005000, 1000012000, 400, 'E', 0, 1, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N},
    /* req 2: T and X, not A: each end after its own start (a0: 1010334089 + 25000000) */
    {2, 0, 1010324089, 1015285089, 200, 'K', 2, 1, 1010334089, 1035334089, 'T', 1035344089, 1035341089, 'X', N, N, N,
     N, N, N, N, N, N},
    /* req 7 is no request of the tester's: arrive after t0, answer after arrive */
    {7, 1, 1000100000, 1000150000, 200, 'L', 0, 1, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N},
};
/* planned of (9, 0): not among the page's checks, drawn (the dice are
 * tested on their own in tests/lab/test_dicedoc.c) */
#define W90 waits_planned_ns(WAIT_L, 1, 9, 0)
static void want_store(int64_t w[4][RAWFMT_STORE_NCOLS])
{
    const int64_t rows[4][RAWFMT_STORE_NCOLS] = {
        /* (0,0) arrives after the service's a0_start of req 0; A: end after start + W */
        {0, 0, 0, 1000746644, 1000746644, 1004428136, 3647492, 0, 'A', 0, 1},
        /* (2,1): after a1_start of req 2; pending */
        {2, 1, 0, 1035359089, N, N, 9928686, 0, 'P', 3, 16},
        /* (2,0): after a0_start of req 2; D without a slot: end after arrive */
        {2, 0, 0, 1010374089, N, 1010381089, 2159850, 5000000, 'D', 1, 16},
        /* (9,0): no such lookup in the service's file: after t0 */
        {9, 0, 1, 999995000, N, 999995000, W90, 0, 'U', 0, 0},
    };
    memcpy(w, rows, sizeof rows);
}

static void check_decoded(const raw4_run *r)
{
    const rawfmt_file *t = &r->f[RAW4_TESTER], *v = &r->f[RAW4_SERVICE], *s = &r->f[RAW4_STORE];
    cr_assert_eq(t->n, 3);
    for (size_t i = 0; i < 3; i++)
        for (int c = 0; c < RAWFMT_TESTER_NCOLS; c++)
            if (c == RAWFMT_TESTER_score)
                cr_assert_eq(rawfmt_float(t->col[c][i]), WANT_SCORE[i], "tester row %zu score", i);
            else
                cr_assert_eq(t->col[c][i], WANT_T[i][c], "tester row %zu column %s: %lld, by hand %lld", i,
                             t->t->cols[c].name, (long long)t->col[c][i], (long long)WANT_T[i][c]);
    cr_assert_eq(v->n, 4);
    for (size_t i = 0; i < 4; i++)
        for (int c = 0; c < RAWFMT_SERVICE_NCOLS; c++)
            cr_assert_eq(v->col[c][i], WANT_V[i][c], "service row %zu column %s: %lld, by hand %lld", i,
                         v->t->cols[c].name, (long long)v->col[c][i], (long long)WANT_V[i][c]);
    int64_t ws[4][RAWFMT_STORE_NCOLS];
    want_store(ws);
    cr_assert_eq(s->n, 4);
    for (size_t i = 0; i < 4; i++)
        for (int c = 0; c < RAWFMT_STORE_NCOLS; c++)
            cr_assert_eq(s->col[c][i], ws[i][c], "store row %zu column %s: %lld, by hand %lld", i,
                         s->t->cols[c].name, (long long)s->col[c][i], (long long)ws[i][c]);
}

Test(raw4, hand_written_files_decode_to_the_instants_computed_by_hand)
{
    hand_run(RUN_JSON(300, 3), TESTER, SERVICE, STORE);
    raw4_run r;
    char ref[128], err[UT_ERRLEN] = "";
    snprintf(ref, sizeof ref, "%s/ref", tmp);
    cr_assert_eq(raw4_read_run(tmp, ref, &r, err, sizeof err), 0, "%s", err);
    check_decoded(&r);
    cr_assert_eq(r.f[RAW4_MACHINE].n, 0);
    cr_assert_eq(r.f[RAW4_EVENTS].n, 0);
    raw4_run_free(&r);
    /* without a reference, "=" stays RAWFMT_REF (a reader that does not look at scores) */
    cr_assert_eq(raw4_read_run(tmp, NULL, &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.f[RAW4_TESTER].col[RAWFMT_TESTER_score][0], RAWFMT_REF);
    cr_assert_eq(rawfmt_float(r.f[RAW4_TESTER].col[RAWFMT_TESTER_score][1]), 0.5f);
    raw4_run_free(&r);
}

/* A closed loop: sched_t = send_t, send after t0. */
Test(raw4, closed_loop_by_hand)
{
    hand_run(RUN_JSON(0, 3), THEAD "5\t100\t200\tL\t=\t0\t0\n7\t90\t200\tL\t0.125\t1\t0\n7\t-\t0\tE\t-\t0\t0\n",
             VHEAD, SHEAD);
    raw4_run r;
    char ref[128], err[UT_ERRLEN] = "";
    snprintf(ref, sizeof ref, "%s/ref", tmp);
    cr_assert_eq(raw4_read_run(tmp, ref, &r, err, sizeof err), 0, "%s", err);
    int64_t *const *c = r.f[RAW4_TESTER].col;
    const int64_t sched[3] = {T0 + 5000, T0 + 7000, T0 + 7000}, ans[3] = {T0 + 105000, T0 + 97000, N};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(c[RAWFMT_TESTER_sched_t][i], sched[i]);
        cr_assert_eq(c[RAWFMT_TESTER_send_t][i], sched[i]);
        cr_assert_eq(c[RAWFMT_TESTER_answer_t][i], ans[i]);
    }
    cr_assert_eq(rawfmt_float(c[RAWFMT_TESTER_score][0]), 0.25f);
    raw4_run_free(&r);
}

static void refused(const char *json, const char *tester, const char *service, const char *store, int with_ref,
                    const char *want)
{
    hand_run(json, tester, service, store);
    raw4_run r;
    char ref[128], err[UT_ERRLEN] = "";
    snprintf(ref, sizeof ref, with_ref ? "%s/ref" : "%s/noref", tmp);
    cr_assert_eq(raw4_read_run(tmp, ref, &r, err, sizeof err), -1, "accepted; want %s", want);
    /* want: fragments separated by | that must all be in the message */
    char w[512];
    snprintf(w, sizeof w, "%s", want);
    for (char *tok = strtok(w, "|"); tok; tok = strtok(NULL, "|"))
        cr_assert(strstr(err, tok), "\"%s\" not in: %s", tok, err);
}

Test(raw4, bad_files_are_refused_naming_file_line_and_column)
{
    char bad[1024];
    /* "=" on kind E */
    refused(RUN_JSON(300, 3), THEAD "41\t2317\t200\tL\t=\t7\t0\n10\t900\t504\tE\t=\t1\t1\n120\t5003\t200\tK\t=\t3\t0\n",
            SERVICE, STORE, 1, "tester.tsv.gz:4: column score|kind E");
    /* "=" with no reference found */
    refused(RUN_JSON(300, 3), TESTER, SERVICE, STORE, 0, "tester.tsv.gz:3: column score|no reference");
    /* rows other than run.json's requests, or the schedule's */
    refused(RUN_JSON(300, 4), TESTER, SERVICE, STORE, 1, "tester.tsv.gz|3 rows|requests is 4");
    refused("{\"t0_ns\": 1000000000, \"requests\": 3, \"test_rows\": 2, \"round\": 1, \"rate\": 300, \"seconds\": 0.02, "
            "\"freeze_share\": 0.01, \"stores\": 1, \"arm_spec\": {\"wait\": \"L\"}}",
            TESTER, SERVICE, STORE, 1, "tester.tsv.gz|3 rows|the schedule");
    /* a closed loop sent every request */
    refused(RUN_JSON(0, 3), THEAD "5\t100\t200\tL\t=\t0\t0\n-\t-\t0\tE\t-\t-\t0\n7\t-\t0\tE\t-\t0\t0\n", VHEAD, SHEAD, 1,
            "tester.tsv.gz:4: column send_us|closed loop");
    /* an end whose base (its start) is absent */
    refused(RUN_JSON(300, 3), TESTER, VHEAD "0\t76\t43\t200\tL\t1\t1\t-\t61\tA" NOL3 NOL3 NOL3 NOL3 "\n", STORE, 1,
            "service.tsv.gz:3: column a0_end_us|base is absent");
    /* an answered lookup's end is after start + W: W needs a req */
    refused(RUN_JSON(300, 3), TESTER, VHEAD "0\t76\t43\t200\tL\t1\t1\t0\t61\tA" NOL3 NOL3 NOL3 NOL3 "\n"
                                            "-\t5\t7\t200\tL\t2\t1\t0\t9\tT\t4\t61\tA" NOL3 NOL3 NOL3 "\n", STORE, 1,
            "service.tsv.gz:4: column req: -|a1_end_us|planned wait");
    /* A always had a slot */
    refused(RUN_JSON(300, 3), TESTER, SERVICE, SHEAD "0\t0\t22\t-\t34\t0\tA\t0\t1\n", 1,
            "store.tsv.gz:3: column start_us|outcome A");
    /* what no lookup carries */
    refused(RUN_JSON(300, 3), TESTER, SERVICE, SHEAD "4294967296\t0\t22\t0\t34\t0\tA\t0\t1\n", 1,
            "store.tsv.gz:3: column req");
    refused(RUN_JSON(300, 3), TESTER, SERVICE, SHEAD "1\t65536\t22\t0\t34\t0\tA\t0\t1\n", 1,
            "store.tsv.gz:3: column attempt");
    /* an instant beyond 64 bits */
    refused(RUN_JSON(300, 3), THEAD "41\t9223372036854775\t200\tL\t=\t7\t0\n10\t900\t200\tD\t0.5\t1\t1\n"
                                    "120\t5003\t200\tK\t=\t3\t0\n",
            SERVICE, STORE, 1, "tester.tsv.gz:3: column answer_us|64 bits");
    /* the version 3 log is not a published file */
    refused(RUN_JSON(300, 3), "# lab-raw 3 tester\n", SERVICE, STORE, 1, "tester.tsv.gz:1:|# lab-raw 4 tester");
    /* run.json without what the format needs */
    snprintf(bad, sizeof bad, "{\"t0_ns\": 1, \"requests\": 3}");
    refused(bad, TESTER, SERVICE, STORE, 1, "run.json|test_rows");
}

/* ------------------------------------------- the rewrite from the logs */

static void write_log(const char *name, rawfmt_kind kind, const int64_t *rows, size_t nrows)
{
    char p[256], err[UT_ERRLEN];
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    rawlog *lg;
    cr_assert_eq(rawfmt_log_open(&lg, p, kind, err, sizeof err), 0, "%s", err);
    int nc = rawfmt_table_of(kind)->ncols;
    for (size_t i = 0; i < nrows; i++)
        cr_assert_eq(rawlog_row(lg, rows + i * (size_t)nc), 0);
    cr_assert_eq(rawlog_close(lg, err, sizeof err), 0, "%s", err);
}

/* The hand-made run's logs: the instants above plus up to 999 ns the
 * offsets drop (never on sched_t, which is the schedule's); `mut` may
 * break a rule first. */
static void hand_logs(void (*mut)(int64_t t[3][RAWFMT_TESTER_NCOLS], int64_t v[4][RAWFMT_SERVICE_NCOLS],
                                  int64_t s[4][RAWFMT_STORE_NCOLS]))
{
    int64_t t[3][RAWFMT_TESTER_NCOLS], v[4][RAWFMT_SERVICE_NCOLS], s[4][RAWFMT_STORE_NCOLS];
    memcpy(t, WANT_T, sizeof t);
    memcpy(v, WANT_V, sizeof v);
    want_store(s);
    const float score[3] = {0.25f, 0.5f, 0.75f};
    for (int i = 0; i < 3; i++) {
        t[i][RAWFMT_TESTER_score] = raw_f(score[i]);
        t[i][RAWFMT_TESTER_send_t] += 999 - i;
        t[i][RAWFMT_TESTER_answer_t] += 500 + i;
    }
    for (int i = 0; i < 4; i++) {
        for (int c = 0; c < RAWFMT_SERVICE_NCOLS; c++)
            if (rawfmt_table_of(RAWFMT_SERVICE)->cols[c].type == 't' && v[i][c] != N)
                v[i][c] += (c * 37 + i * 101) % 1000;
        for (int c = RAWFMT_STORE_arrive_t; c <= RAWFMT_STORE_end_t; c++)
            if (s[i][c] != N)
                s[i][c] += (c * 53 + i * 7) % 1000;
    }
    if (mut)
        mut(t, v, s);
    write_log("tester.log.gz", RAWFMT_TESTER, &t[0][0], 3);
    write_log("service.log.gz", RAWFMT_SERVICE, &v[0][0], 4);
    write_log("store.log.gz", RAWFMT_STORE, &s[0][0], 4);
}

static int rewrite(char *err, size_t errlen)
{
    char ref[128], p[256];
    snprintf(ref, sizeof ref, "%s/ref", tmp);
    snprintf(p, sizeof p, "%s/run.json", tmp);
    json_t *j = json_load_file(p, 0, NULL);
    cr_assert_not_null(j);
    raw4_params rp;
    raw4_ref rf;
    raw4_stats st;
    cr_assert_eq(raw4_params_json(j, "run.json", &rp, err, errlen), 0, "%s", err);
    json_decref(j);
    cr_assert_eq(raw4_ref_load(ref, &rf, NULL, err, errlen), 0, "%s", err);
    int rc = raw4_rewrite(tmp, &rp, &rf, &st, err, errlen);
    raw4_ref_free(&rf);
    if (rc == 0) {
        cr_assert_eq(st.rows[RAW4_TESTER], 3);
        cr_assert_eq(st.rows[RAW4_STORE], 4);
        cr_assert(st.out_bytes[RAW4_TESTER] > 0 && st.log_bytes[RAW4_TESTER] > 0);
    }
    return rc;
}

Test(raw4, the_logs_are_rewritten_into_the_hand_written_text)
{
    hand_run(RUN_JSON(300, 3), TESTER, SERVICE, STORE);
    hand_logs(NULL);
    char err[UT_ERRLEN] = "", p[256];
    cr_assert_eq(rewrite(err, sizeof err), 0, "%s", err);
    const char *want[3] = {TESTER, SERVICE, STORE}, *name[3] = {"tester", "service", "store"};
    for (int k = 0; k < 3; k++) {
        snprintf(p, sizeof p, "%s/%s.tsv.gz", tmp, name[k]);
        char *text = gunzip(p);
        cr_assert_str_eq(text, want[k], "%s.tsv.gz", name[k]);
        free(text);
        snprintf(p, sizeof p, "%s/%s.log.gz", tmp, name[k]);
        cr_assert_neq(access(p, F_OK), 0, "%s: the log is removed", p);
    }
}

static void bad_row(int64_t t[3][RAWFMT_TESTER_NCOLS], int64_t v[4][RAWFMT_SERVICE_NCOLS], int64_t s[4][RAWFMT_STORE_NCOLS])
{
    (void)v, (void)s;
    t[1][RAWFMT_TESTER_row] = 0;
}
static void bad_sched(int64_t t[3][RAWFMT_TESTER_NCOLS], int64_t v[4][RAWFMT_SERVICE_NCOLS], int64_t s[4][RAWFMT_STORE_NCOLS])
{
    (void)v, (void)s;
    t[2][RAWFMT_TESTER_sched_t] += 1;
}
static void bad_j(int64_t t[3][RAWFMT_TESTER_NCOLS], int64_t v[4][RAWFMT_SERVICE_NCOLS], int64_t s[4][RAWFMT_STORE_NCOLS])
{
    (void)v, (void)s;
    t[0][RAWFMT_TESTER_j] = 5;
}
static void bad_service_row(int64_t t[3][RAWFMT_TESTER_NCOLS], int64_t v[4][RAWFMT_SERVICE_NCOLS],
                            int64_t s[4][RAWFMT_STORE_NCOLS])
{
    (void)t, (void)s;
    v[2][RAWFMT_SERVICE_row] = 1;
}
static void bad_planned(int64_t t[3][RAWFMT_TESTER_NCOLS], int64_t v[4][RAWFMT_SERVICE_NCOLS],
                        int64_t s[4][RAWFMT_STORE_NCOLS])
{
    (void)t, (void)v;
    s[2][RAWFMT_STORE_planned_ns] = 2000000;
}
static void bad_store_row(int64_t t[3][RAWFMT_TESTER_NCOLS], int64_t v[4][RAWFMT_SERVICE_NCOLS],
                          int64_t s[4][RAWFMT_STORE_NCOLS])
{
    (void)t, (void)v;
    s[3][RAWFMT_STORE_row] = 0;
}

Test(raw4, logs_that_break_a_rule_are_refused_with_the_reason)
{
    struct {
        void (*mut)(int64_t[3][RAWFMT_TESTER_NCOLS], int64_t[4][RAWFMT_SERVICE_NCOLS], int64_t[4][RAWFMT_STORE_NCOLS]);
        const char *want[3];
    } cases[] = {
        {bad_row, {"tester.log.gz:4: column row: 0", "j mod test_rows gives 1", NULL}},
        {bad_sched, {"tester.log.gz:5: column sched_t: 1010294090", "schedule", "1010294089"}},
        {bad_j, {"tester.log.gz:3: column j: 5", "its place", NULL}},
        {bad_service_row, {"service.log.gz:5: column row: 1", "req mod test_rows gives 0", NULL}},
        {bad_planned, {"store.log.gz:5: column planned_ns: 2000000", "the dice", "2159850"}},
        {bad_store_row, {"store.log.gz:6: column row: 0", "req mod test_rows gives 1", NULL}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        hand_run(RUN_JSON(300, 3), TESTER, SERVICE, STORE);
        char p[256];
        for (int f = 0; f < 3; f++) { /* no format 4 file before the rewrite */
            snprintf(p, sizeof p, "%s/%s.tsv.gz", tmp, f == 0 ? "tester" : f == 1 ? "service" : "store");
            unlink(p);
        }
        hand_logs(cases[k].mut);
        char err[UT_ERRLEN] = "";
        cr_assert_eq(rewrite(err, sizeof err), -1, "case %zu accepted", k);
        for (int i = 0; i < 3 && cases[k].want[i]; i++)
            cr_assert(strstr(err, cases[k].want[i]), "case %zu: \"%s\" not in: %s", k, cases[k].want[i], err);
        snprintf(p, sizeof p, "%s/tester.tsv.gz", tmp);
        cr_assert_neq(access(p, F_OK), 0, "case %zu: a failed rewrite leaves no format 4 file", k);
    }
}

/* A window's edge (the page's "A window's edge"): the store's lookup (0, 0)
 * arrives 344 ns after an edge at t0 + 747000 ns; floored from its base
 * (req 0's a0_start, 1000724644) it would decode to 1000746644, before the
 * edge.  The writer rounds it up (arrive_us 23: 1000747644, after), and
 * its start, 156 ns after the arrival and so before 1000747644, is
 * written 0 (start_t = arrive_t).  Its end, 3400 ns past start + W, is
 * 3 from 1000747644 + W.  The two cases: the edge opens a slow window
 * (the store slowed the lookup: W = 3647492 + 20000000, as are the later
 * (2, 0) and (2, 1)) and the edge closes one opened at t0 (not slowed).
 * Floored, the first would have decoded to no slowness and failed the
 * run, the second to a slowness. */
static int edge_closes;
static void edge_row(int64_t t[3][RAWFMT_TESTER_NCOLS], int64_t v[4][RAWFMT_SERVICE_NCOLS],
                     int64_t s[4][RAWFMT_STORE_NCOLS])
{
    (void)t, (void)v;
    int64_t slow = 20000000, w = 3647492 + (edge_closes ? 0 : slow);
    s[0][RAWFMT_STORE_arrive_t] = T0 + 747344;
    s[0][RAWFMT_STORE_start_t] = T0 + 747500;
    s[0][RAWFMT_STORE_end_t] = T0 + 747500 + w + 3400;
    s[0][RAWFMT_STORE_planned_ns] = w;
    if (!edge_closes) {
        s[1][RAWFMT_STORE_planned_ns] += slow;
        s[2][RAWFMT_STORE_planned_ns] += slow;
    }
}

Test(raw4, an_arrival_just_after_a_window_edge_is_rounded_up_to_the_side_the_store_decided)
{
    const char *json[2] = {
        "{\"t0_ns\": 1000000000, \"requests\": 3, \"test_rows\": 2, \"round\": 1, \"rate\": 300, \"seconds\": 0.012, "
        "\"freeze_share\": 0.01, \"stores\": 1, \"arm_spec\": {\"wait\": \"L\"}, "
        "\"fault\": {\"spec\": \"slow\", \"name\": \"slow\", \"from_ns\": 747000, \"to_ns\": null}}",
        "{\"t0_ns\": 1000000000, \"requests\": 3, \"test_rows\": 2, \"round\": 1, \"rate\": 300, \"seconds\": 0.012, "
        "\"freeze_share\": 0.01, \"stores\": 1, \"arm_spec\": {\"wait\": \"L\"}, "
        "\"fault\": {\"spec\": \"slow\", \"name\": \"slow\", \"from_ns\": 0, \"to_ns\": 747000}}"};
    const char *want = SHEAD "0\t0\t23\t0\t3\t0\tA\t0\t1\n"
                             "2\t1\t15\t-\t-\t0\tP\t3\t16\n"
                             "2\t0\t40\t-\t7\t5000000\tD\t1\t16\n"
                             "9\t0\t-5\t-\t0\t0\tU\t0\t0\n";
    for (edge_closes = 0; edge_closes < 2; edge_closes++) {
        hand_run(json[edge_closes], TESTER, SERVICE, want);
        hand_logs(edge_row);
        char err[UT_ERRLEN] = "", p[256];
        cr_assert_eq(rewrite(err, sizeof err), 0, "case %d: %s", edge_closes, err);
        snprintf(p, sizeof p, "%s/store.tsv.gz", tmp);
        char *text = gunzip(p);
        cr_assert_str_eq(text, want, "case %d", edge_closes);
        free(text);
        raw4_run r;
        char ref[128];
        snprintf(ref, sizeof ref, "%s/ref", tmp);
        cr_assert_eq(raw4_read_run(tmp, ref, &r, err, sizeof err), 0, "%s", err);
        int64_t *const *c = r.f[RAW4_STORE].col;
        cr_assert_eq(c[RAWFMT_STORE_arrive_t][0], T0 + 747644, "after the edge, as the store decided");
        cr_assert_eq(c[RAWFMT_STORE_start_t][0], T0 + 747644);
        cr_assert_eq(c[RAWFMT_STORE_planned_ns][0], edge_closes ? 3647492 : 23647492);
        cr_assert_eq(c[RAWFMT_STORE_end_t][0], T0 + 747644 + c[RAWFMT_STORE_planned_ns][0] + 3000);
        cr_assert_eq(c[RAWFMT_STORE_planned_ns][3], W90, "(9, 0) arrived before t0: never slowed");
        raw4_run_free(&r);
    }
}

/* ------------------------------------------------------- real runs */

/* Every value of the logs against the decoded files. */
static void same_as_logs(const char *logdir, const char *run)
{
    raw4_run r;
    char err[UT_ERRLEN] = "", p[300];
    cr_assert_eq(raw4_read_run(run, "build/prep", &r, err, sizeof err), 0, "%s", err);
    static const rawfmt_kind kinds[4] = {RAWFMT_TESTER, RAWFMT_SERVICE, RAWFMT_STORE, RAWFMT_STORE};
    size_t instants = 0, refs = 0;
    for (int k = 0; k < (r.p.stores == 2 ? 4 : 3); k++) {
        rawfmt_file lg;
        snprintf(p, sizeof p, "%s/%s.log.gz", logdir, RAW4_NAMES[k]);
        cr_assert_eq(rawfmt_read(p, kinds[k], &lg, err, sizeof err), 0, "%s", err);
        const rawfmt_file *d = &r.f[k];
        cr_assert_eq(d->n, lg.n, "%s: rows", p);
        for (size_t i = 0; i < lg.n; i++)
            for (int c = 0; c < lg.t->ncols; c++) {
                int64_t x = lg.col[c][i], y = d->col[c][i];
                /* a store row rounded up at a window's edge: up to 999 ns late */
                int64_t late = k >= 2 && d->col[RAWFMT_STORE_arrive_t][i] > lg.col[RAWFMT_STORE_arrive_t][i] ? 999 : 0;
                if (lg.t->cols[c].type == 't' && x != N) {
                    cr_assert(y != N && y <= x + late && y >= x - 999, "%s:%zu %s: logged %lld, read %lld", p, i + 3,
                              lg.t->cols[c].name, (long long)x, (long long)y);
                    instants++;
                } else
                    cr_assert_eq(y, x, "%s:%zu %s: logged %lld, read %lld", p, i + 3, lg.t->cols[c].name,
                                 (long long)x, (long long)y);
            }
        rawfmt_file_free(&lg);
    }
    cr_assert(r.f[RAW4_TESTER].n > 0 && instants > 3 * r.f[RAW4_TESTER].n, "%s: %zu instants", run, instants);
    snprintf(p, sizeof p, "%s/tester.tsv.gz", run);
    char *text = gunzip(p);
    for (char *q = text; (q = strstr(q, "\t=\t")); q++)
        refs++;
    free(text);
    cr_assert(refs > 0, "%s: some score is its reference (=)", p);
    raw4_run_free(&r);
}

static void round_trip(const char *arm, double seconds)
{
    char logs[128], run[160];
    snprintf(logs, sizeof logs, "%s/logs-%s", tmp, arm);
    int rc = shf("build/bin/run --arm %s --round 1 --seconds %g --gate 0 --settle-s 0.2 --raw %s --quiet "
                 "tests/quiet_off.tsv --test-keep-logs %s > %s/log-%s 2>&1",
                 arm, seconds, tmp, logs, tmp, arm);
    if (rc != 0)
        shf("cat %s/log-%s", tmp, arm);
    cr_assert_eq(rc, EXIT_OK, "run %s", arm);
    snprintf(run, sizeof run, "%s/%s-r1", tmp, arm);
    same_as_logs(logs, run);
    cr_assert_neq(shf("ls %s/*.log.gz >/dev/null 2>&1", run), 0, "%s: no log is kept in the run folder", run);
    cr_assert_eq(shf("grep -q 'raw format 4: .* requests' %s/log-%s", tmp, arm), 0, "the sizes line");
}

Test(raw4, real_runs_round_trip_open_closed_and_two_stores)
{
    round_trip("H3-none", 1.5);
    round_trip("Z-capacity", 0.5);
    round_trip("H3-bulk-hang", 1);
}

/* A bin folder whose `prog` rewrites one option's value, the others the real ones. */
static void fake_bin(const char *bin, const char *prog, const char *opt, const char *value)
{
    char cwd[1024];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(shf("mkdir -p %s && for p in store service tester; do ln -sf %s/build/bin/$p %s/$p; done && rm %s/%s",
                     bin, cwd, bin, bin, prog),
                 0);
    char p[256];
    snprintf(p, sizeof p, "%s/%s", bin, prog);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/bash\na=(\"$@\")\nfor i in \"${!a[@]}\"; do [ \"${a[$i]}\" = %s ] && a[$((i+1))]=%s; done\n"
               "exec %s/build/bin/%s \"${a[@]}\"\n",
            opt, value, cwd, prog);
    fclose(f);
    cr_assert_eq(chmod(p, 0755), 0);
}

static void run_fails(const char *bin, const char *want1, const char *want2)
{
    char out[160];
    snprintf(out, sizeof out, "%s/fail.log", tmp);
    int rc = shf("build/bin/run --arm H3-none --round 1 --seconds 1 --gate 0 --settle-s 0.2 --raw %s/raw --bin %s "
                 "--quiet tests/quiet_off.tsv > %s 2>&1",
                 tmp, bin, out);
    char *text = slurp(out);
    cr_assert_eq(rc, EXIT_FAIL, "exit %d: %s", rc, text);
    cr_assert(strstr(text, want1) && strstr(text, want2), "the reason names %s and %s: %s", want1, want2, text);
    free(text);
    cr_assert_neq(shf("ls -d %s/raw/H3-none-r1 >/dev/null 2>&1", tmp), 0, "nothing kept");
}

Test(raw4, a_run_whose_logs_break_a_rule_fails_with_the_reason)
{
    char bin[128];
    /* a store drawing round 2's waits: its planned waits are not round 1's dice */
    snprintf(bin, sizeof bin, "%s/bin-store", tmp);
    fake_bin(bin, "store", "--round", "2");
    run_fails(bin, "store.log.gz:", "column planned_ns");
    /* a tester asking for row j mod 7: not j mod test_rows */
    snprintf(bin, sizeof bin, "%s/bin-tester", tmp);
    fake_bin(bin, "tester", "--rows", "7");
    run_fails(bin, "tester.log.gz:10: column row: 0", "j mod test_rows gives 7");
}
