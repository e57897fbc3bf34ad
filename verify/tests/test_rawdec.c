/* rawdec: format 4 (lab/RAWFORMAT.md) decoded into absolute instants.
 *
 * A run written by hand from the page (not by tests/synth.c's writer):
 * round 1, rate 300, seconds 4, t0_ns T = 10^12, test_rows 7, wait L.
 * The page's check values give what a reader draws again: the schedule's
 * first offsets 648644, 2113409, 10294089 ns (round 1 at R = 300, S = 4)
 * and the L waits W(0, 0) = 3647492, W(1, 0) = 1083902 ns, W(1, 1) not
 * among the check values (it decodes no A row below).
 *
 * tester (request j = line - 3):
 *   j0  41  2317   L =   sched = T + 648644; send = sched + 41000;
 *                        answer = sched + 2317000; score = scores[0]
 *   j1  12  30511  K =   sched = T + 2113409; send +12000; answer +30511000;
 *                        score = last_known[1]
 *   j2  -   -      E -   never sent (conn -), sched = T + 10294089
 * service:
 *   req 0: arrive_us 60 after sched0; answer_us -5 after the tester's
 *          answer0; a0 start +3 after arrive; A, so its end is after
 *          start + W(0, 0) (the store's W): end_us -1647 is
 *          sched0 + 63000 + 3647492 - 1647000 = sched0 + 2063492, 1 µs
 *          after the store's end (below)
 *   req 1: arrive 55 after sched1; answer -2 after answer1; a0 start +4,
 *          end +25000 after start (T: no W); a1 start +25200 after
 *          arrive, end +3000 (U)
 *   req -: arrive 7 after T; answer 1 after its arrive
 *   req 9: (9 >= requests 3) arrive 11 after T
 * store:
 *   0 0: arrive 8 after a0_start(req 0); start 0 after arrive; outcome A,
 *        end_us -1656 after start + W(0, 0): start + 3647492 - 1656000
 *   1 1: arrive 9 after a1_start(req 1); no slot; U, end 0 after arrive
 *   1 0: arrive 6 after a0_start(req 1); start 2 after; pending (end -)
 *   9 0: arrive 4 after a0_start of the service row with req 9 (absent: T)
 *   5 0: no service row for 5: arrive 3 after T; D, end 12 after arrive
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "crossfile.h"
#include "mism.h"
#include "rawcols.h"
#include "rawdec.h"
#include "vjson.h"

#define T 1000000000000LL

static unsigned char *gz_of(const char *text, size_t *len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    size_t cap = strlen(text) + 256;
    unsigned char *out = malloc(cap);
    zs.next_in = (Bytef *)text;
    zs.avail_in = (uInt)strlen(text);
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    deflate(&zs, Z_FINISH);
    *len = zs.total_out;
    deflateEnd(&zs);
    return out;
}

#define MAXR 8

typedef struct {
    rr_row t[MAXR], v[MAXR], s[MAXR];
    int nt, nv, ns;
    char err[1024];
} dec_out;

/* every row of one file, decoded; -1 with the message in o->err */
static int one_file(rx_run *x, int kind, const char *name, const char *text, rr_row *rows, int *n, char *err)
{
    size_t len;
    unsigned char *gz = gz_of(text, &len);
    rx_file f;
    int rc = rx_open(&f, x, kind, name, gz, len, err, 1024);
    while (!rc) {
        int k = rx_next(&f, &rows[*n < MAXR ? *n : MAXR - 1], err, 1024);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        (*n)++;
    }
    rx_close(&f);
    free(gz);
    return rc;
}

static const char *RUN = "{\"round\": 1, \"seconds\": 4, \"rate\": 300, \"t0_ns\": 1000000000000, \"requests\": 3, "
                         "\"test_rows\": 7, \"freeze_share\": 0.01, \"arm_spec\": {\"wait\": \"L\"}}";

static int decode(const char *run, const char *tester, const char *service, const char *store, const ref_data *ref,
                  dec_out *o)
{
    memset(o, 0, sizeof *o);
    vj_node *rj = NULL;
    cr_assert_eq(vj_parse(run, strlen(run), "run.json", &rj, o->err, sizeof o->err), 0, "%s", o->err);
    double seconds = 0;
    vj_get_num(rj, "seconds", &seconds);
    rx_run x;
    rx_init(&x, rj, vj_get(rj, "round")->i, seconds, vj_get(rj, "t0_ns")->i, ref);
    vj_free(rj);
    int rc = one_file(&x, RX_TESTER, "tester.tsv.gz", tester, o->t, &o->nt, o->err);
    if (!rc && service)
        rc = one_file(&x, RX_SERVICE, "service.tsv.gz", service, o->v, &o->nv, o->err);
    if (!rc && store)
        rc = one_file(&x, RX_STORE, "store.tsv.gz", store, o->s, &o->ns, o->err);
    rx_free(&x);
    return rc;
}

#define TH "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n"
#define VH                                                                                                     \
    "# lab-raw 4 service\nreq\tarrive_us\tanswer_us\tstatus\tkind\tlookups\tstore\ta0_start_us\ta0_end_us\ta0_out\t" \
    "a1_start_us\ta1_end_us\ta1_out\ta2_start_us\ta2_end_us\ta2_out\ta3_start_us\ta3_end_us\ta3_out\ta4_start_us\t" \
    "a4_end_us\ta4_out\n"
#define SH "# lab-raw 4 store\nreq\tattempt\tarrive_us\tstart_us\tend_us\tbudget_ns\toutcome\tline\tbusy\n"
#define NOLK "\t-\t-\t-"

static const char *TESTER = TH "41\t2317\t200\tL\t=\t7\t0\n"
                               "12\t30511\t200\tK\t=\t3\t1\n"
                               "-\t-\t0\tE\t-\t-\t0\n";
static const char *SERVICE = VH "0\t60\t-5\t200\tL\t1\t1\t3\t-1647\tA" NOLK NOLK NOLK NOLK "\n"
                                "1\t55\t-2\t200\tK\t2\t1\t4\t25000\tT\t25200\t3000\tU" NOLK NOLK NOLK "\n"
                                "-\t7\t1\t400\tE\t0\t1" NOLK NOLK NOLK NOLK NOLK "\n"
                                "9\t11\t1\t404\tE\t0\t1" NOLK NOLK NOLK NOLK NOLK "\n";
/* SERVICE with req 0's a0 timed out (T): no service row needs a W */
static const char *SERVICE_NO_A = VH "0\t60\t-5\t200\tL\t1\t1\t3\t2000\tT" NOLK NOLK NOLK NOLK "\n"
                                     "1\t55\t-2\t200\tK\t2\t1\t4\t25000\tT\t25200\t3000\tU" NOLK NOLK NOLK "\n";
static const char *STORE = SH "0\t0\t8\t0\t-1656\t0\tA\t0\t1\n"
                              "1\t1\t9\t-\t0\t0\tU\t0\t0\n"
                              "1\t0\t6\t2\t-\t0\tP\t0\t2\n"
                              "9\t0\t4\t-\t0\t0\tU\t0\t0\n"
                              "5\t0\t3\t-\t12\t0\tD\t4\t16\n";

static float SCORE[7] = {0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f, 0.875f};
static float LK[7] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f};

static ref_data hand_ref(void)
{
    ref_data r;
    memset(&r, 0, sizeof r);
    r.rows = 7;
    r.score = SCORE;
    r.last_known = LK;
    r.default_score = 0.272524476f;
    r.test_rows = 7;
    return r;
}

Test(rawdec, a_hand_made_run_decodes_to_known_instants)
{
    ref_data ref = hand_ref();
    dec_out o;
    cr_assert_eq(decode(RUN, TESTER, SERVICE, STORE, &ref, &o), 0, "%s", o.err);
    cr_assert_eq(o.nt, 3);
    long long s0 = T + 648644, s1 = T + 2113409, s2 = T + 10294089;
    /* tester: j, row, sched_t from the schedule, the offsets after sched_t */
    cr_expect_eq(o.t[0].v[T_J], 0);
    cr_expect_eq(o.t[1].v[T_J], 1);
    cr_expect_eq(o.t[2].v[T_ROW], 2);
    cr_expect_eq(o.t[0].v[T_SCHED], s0);
    cr_expect_eq(o.t[1].v[T_SCHED], s1);
    cr_expect_eq(o.t[2].v[T_SCHED], s2);
    cr_expect_eq(o.t[0].v[T_SEND], s0 + 41000);
    cr_expect_eq(o.t[0].v[T_ANSWER], s0 + 2317000);
    cr_expect_eq(o.t[1].v[T_SEND], s1 + 12000);
    cr_expect_eq(o.t[1].v[T_ANSWER], s1 + 30511000);
    cr_expect(!o.t[2].has[T_SEND] && !o.t[2].has[T_ANSWER] && !o.t[2].has[T_CONN]);
    /* "=": the reference, L the row's score, K its last_known */
    cr_expect_eq(o.t[0].has[T_SCORE], 2);
    cr_expect_eq(o.t[0].f[T_SCORE], 0.125f);
    cr_expect_eq(o.t[1].f[T_SCORE], 0.2f);
    cr_expect_str_eq(o.t[0].text[T_J], "(not written)");
    /* service */
    cr_assert_eq(o.nv, 4);
    cr_expect_eq(o.v[0].v[V_ROW], 0);
    cr_expect_eq(o.v[0].v[V_ARRIVE], s0 + 60000);
    cr_expect_eq(o.v[0].v[V_ANSWER], s0 + 2317000 - 5000);
    cr_expect_eq(o.v[0].v[V_A0S], s0 + 63000);
    cr_expect_eq(o.v[0].v[V_A0E], s0 + 63000 + 3647492 - 1647000);   /* A: after start + W(0, 0) */
    cr_expect_eq(o.v[0].v[V_A0E], s0 + 2063492);
    cr_expect_eq(o.v[1].v[V_ARRIVE], s1 + 55000);
    cr_expect_eq(o.v[1].v[V_ANSWER], s1 + 30511000 - 2000);
    cr_expect_eq(o.v[1].v[V_A0S], s1 + 59000);
    cr_expect_eq(o.v[1].v[V_A0E], s1 + 25059000);   /* T: after start alone */
    cr_expect_eq(o.v[1].v[V_A1S], s1 + 25255000);
    cr_expect_eq(o.v[1].v[V_A1E], s1 + 28255000);
    /* without req, or req beyond requests: after t0_ns; answer after arrive_t */
    cr_expect(!o.v[2].has[V_REQ] && !o.v[2].has[V_ROW]);
    cr_expect_eq(o.v[2].v[V_ARRIVE], T + 7000);
    cr_expect_eq(o.v[2].v[V_ANSWER], T + 8000);
    cr_expect_eq(o.v[3].v[V_ROW], 2);
    cr_expect_eq(o.v[3].v[V_ARRIVE], T + 11000);
    cr_expect_eq(o.v[3].v[V_ANSWER], T + 12000);
    /* store: after the service's try of this lookup; an A row's end after start_t + W */
    cr_assert_eq(o.ns, 5);
    cr_expect_eq(o.s[0].v[S_ARRIVE], s0 + 71000);
    cr_expect_eq(o.s[0].v[S_START], s0 + 71000);
    cr_expect_eq(o.s[0].v[S_PLANNED], 3647492);
    cr_expect_eq(o.s[0].v[S_END], s0 + 71000 + 3647492 - 1656000);
    cr_expect_eq(o.s[1].v[S_ARRIVE], s1 + 25264000);
    cr_expect_eq(o.s[1].v[S_END], s1 + 25264000);
    cr_expect_eq(o.s[2].v[S_PLANNED], 1083902);
    cr_expect_eq(o.s[2].v[S_ARRIVE], s1 + 65000);
    cr_expect_eq(o.s[2].v[S_START], s1 + 67000);
    cr_expect(!o.s[2].has[S_END]);
    /* req 9: its service row has no a0: after t0_ns; req 5 has no service row */
    cr_expect_eq(o.s[3].v[S_ARRIVE], T + 4000);
    cr_expect_eq(o.s[4].v[S_ARRIVE], T + 3000);
    cr_expect_eq(o.s[4].v[S_END], T + 15000);
    cr_expect_eq(o.s[4].v[S_ROW], 5);
}

Test(rawdec, a_closed_loop_run_sends_after_t0_and_sched_is_send)
{
    const char *run = "{\"round\": 2, \"seconds\": 1, \"rate\": 0, \"t0_ns\": 5000, \"requests\": 2, \"test_rows\": 7, "
                      "\"arm_spec\": {\"wait\": \"Z\"}}";
    dec_out o;
    cr_assert_eq(decode(run, TH "3\t10\t200\tD\t=\t0\t0\n-2\t1\t200\tL\t0.5\t1\t0\n", NULL, NULL, NULL, &o), 0, "%s",
                 o.err);
    cr_expect_eq(o.t[0].v[T_SEND], 8000);
    cr_expect_eq(o.t[0].v[T_SCHED], 8000);
    cr_expect_eq(o.t[0].v[T_ANSWER], 18000);
    cr_expect(isnan(o.t[0].f[T_SCORE]));      /* no reference given */
    cr_expect_eq(o.t[1].v[T_SCHED], 3000);    /* before t0: runfig names it */
    cr_expect_eq(o.t[1].f[T_SCORE], 0.5f);
    cr_expect_eq(o.t[1].has[T_SCORE], 1);
}

/* one malformed case: the message (file and line) */
static void refused(const char *run, const char *tester, const char *service, const char *store, const char *want)
{
    ref_data ref = hand_ref();
    dec_out o;
    cr_expect_eq(decode(run, tester, service, store, &ref, &o), -1, "accepted; expected: %s", want);
    cr_expect(strstr(o.err, want), "\"%s\" not in \"%s\"", want, o.err);
}

Test(rawdec, what_cannot_be_decoded_names_file_and_line)
{
    /* a "=" with kind E has no reference */
    refused(RUN, TH "41\t2317\t504\tE\t=\t7\t0\n", NULL, NULL,
            "tester.tsv.gz:3: score is = with kind E: only an L, K or D answer has a reference");
    /* a closed-loop request is sent when it is made: no send_t, no sched_t */
    const char *closed = "{\"round\": 1, \"seconds\": 4, \"rate\": 0, \"t0_ns\": 0, \"requests\": 1, \"test_rows\": 7, "
                         "\"arm_spec\": {\"wait\": \"Z\"}}";
    refused(closed, TH "-\t-\t0\tE\t-\t-\t0\n", NULL, NULL,
            "tester.tsv.gz:3: send_us is - in a closed-loop run (rate 0): sched_t = send_t has no value");
    /* a request the schedule does not have (S = 0.002 s: one offset, 648644) */
    const char *short_run = "{\"round\": 1, \"seconds\": 0.002, \"rate\": 300, \"t0_ns\": 0, \"requests\": 2, "
                            "\"test_rows\": 7, \"arm_spec\": {\"wait\": \"Z\"}}";
    refused(short_run, TH "1\t2\t200\tL\t=\t0\t0\n1\t2\t200\tL\t=\t0\t0\n", NULL, NULL,
            "tester.tsv.gz:4: request 1 has no scheduled arrival: the schedule (seed 1000020, rate 300, seconds "
            "0.002) has 1 offsets");
    /* no rate: no schedule */
    refused("{\"round\": 1, \"seconds\": 4, \"t0_ns\": 0, \"arm_spec\": {\"wait\": \"Z\"}}", TH, NULL, NULL,
            "tester.tsv.gz: run.json's rate is not a number >= 0");
    /* an end without its start; a req below requests without its tester row */
    refused(RUN, TESTER, VH "0\t60\t-5\t200\tL\t1\t1\t-\t2000\tA" NOLK NOLK NOLK NOLK "\n", NULL,
            "service.tsv.gz:3: a0_end_us has no base: a0_start_us is -");
    refused(RUN, TH "41\t2317\t200\tL\t=\t7\t0\n", VH "2\t60\t-5\t200\tL\t0\t1" NOLK NOLK NOLK NOLK NOLK "\n", NULL,
            "service.tsv.gz:3: arrive_us's base, sched_t of request 2, is absent: tester.tsv.gz has 1 rows (run.json "
            "requests 3)");
    /* an A row without a slot: no start_t + W to decode its end */
    refused(RUN, TESTER, SERVICE, SH "0\t0\t8\t-\t-1656\t0\tA\t0\t1\n",
            "store.tsv.gz:3: outcome A without start_us: end_us's base, start_t + W, is absent");
    /* the planned wait cannot be drawn: wait H without freeze_share, no wait */
    const char *h = "{\"round\": 1, \"seconds\": 4, \"rate\": 300, \"t0_ns\": 1000000000000, \"requests\": 3, "
                    "\"test_rows\": 7, \"arm_spec\": {\"wait\": \"H\"}}";
    refused(h, TESTER, SERVICE, STORE,
            "service.tsv.gz:3: lookup a0's planned wait cannot be drawn (wait H and run.json has no number "
            "freeze_share), and format 4 needs it for an A lookup's a0_end_us");
    refused(h, TESTER, SERVICE_NO_A, STORE,
            "store.tsv.gz:3: the lookup's planned wait cannot be drawn (wait H and run.json has no number "
            "freeze_share)");
    const char *nowait = "{\"round\": 1, \"seconds\": 4, \"rate\": 300, \"t0_ns\": 1000000000000, \"requests\": 3, "
                         "\"test_rows\": 7, \"freeze_share\": 0.01}";
    refused(nowait, TESTER, SERVICE, STORE,
            "service.tsv.gz:3: lookup a0's planned wait cannot be drawn (run.json arm_spec.wait is not one of Z F L "
            "H)");
    refused(nowait, TESTER, SERVICE_NO_A, STORE,
            "store.tsv.gz:3: the lookup's planned wait cannot be drawn (run.json arm_spec.wait is not one of Z F L H)");
    /* an A lookup without req: no (round, req, attempt) to draw its W from */
    refused(RUN, TESTER, VH "-\t7\t1\t200\tL\t1\t1\t3\t-1647\tA" NOLK NOLK NOLK NOLK "\n", NULL,
            "service.tsv.gz:3: a0_out is A in a row without req: a0_end_us's base, a0_start_t + W, needs the planned "
            "wait");
    /* an instant beyond 64 bits; a "=" where the page allows none */
    refused(RUN, TH "9223372036854775\t2317\t200\tL\t=\t7\t0\n", NULL, NULL,
            "tester.tsv.gz:3: field send_us \"9223372036854775\" overflows 64 bits when decoded");
    refused(RUN, TESTER, VH "0\t=\t-5\t200\tL\t1\t1" NOLK NOLK NOLK NOLK NOLK "\n", NULL,
            "service.tsv.gz:3: field arrive_us \"=\" is not an integer");
    /* a format 3 file */
    refused(RUN, "# lab-raw 3 tester\nj\trow\n", NULL, NULL,
            "tester.tsv.gz:1: first line is \"# lab-raw 3 tester\", expected \"# lab-raw 4 tester\"");
}

/* a request never sent (RAWFORMAT.md: send_us and conn -, then answer_us
 * and score -, status 0, kind E): a row breaking this still decodes (each
 * value has its meaning and its base); the broken promise is one mismatch
 * of xf_tester_promises (crossfile.h), naming the column */
Test(rawdec, a_never_sent_row_breaking_its_promises_decodes_to_one_mismatch)
{
    static const struct {
        const char *row, *want;
    } c[] = {
        {"41\t2317\t200\tL\t=\t-\t0\n", "conn: lab -, verify the connection's index (send_us present: sent)"},
        {"-\t-\t0\tE\t-\t3\t0\n", "conn: lab 3, verify - (send_us is -: the request was never sent)"},
        {"-\t900\t0\tE\t-\t-\t0\n", "answer_us: lab 900, verify - (send_us is -: the request was never sent)"},
        {"-\t-\t504\tE\t-\t-\t0\n", "status: lab 504, verify 0 (send_us is -: the request was never sent)"},
        {"-\t-\t0\tL\t-\t-\t0\n", "kind: lab L, verify E (send_us is -: the request was never sent)"},
        {"-\t-\t0\tE\t-\t-\t1\n", NULL},   /* kept: no mismatch */
    };
    ref_data ref = hand_ref();
    vj_node *rj = NULL;
    char err[1024];
    cr_assert_eq(vj_parse(RUN, strlen(RUN), "run.json", &rj, err, sizeof err), 0, "%s", err);
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        char tester[256];
        snprintf(tester, sizeof tester, TH "%s", c[k].row);
        rx_run x;
        rx_init(&x, rj, 1, 4, T, &ref);
        size_t len;
        unsigned char *gz = gz_of(tester, &len);
        rx_file f;
        rr_row row;
        cr_assert_eq(rx_open(&f, &x, RX_TESTER, "tester.tsv.gz", gz, len, err, sizeof err), 0, "%s", err);
        cr_assert_eq(rx_next(&f, &row, err, sizeof err), 1, "%s: %s", c[k].row, err);
        cr_expect_eq(row.v[T_SCHED], T + 648644);
        char *buf = NULL;
        size_t blen = 0;
        FILE *mf = open_memstream(&buf, &blen);
        cr_assert(mf);
        mm_reset();
        mm_init(mf, 0);
        /* while the file is open: the row's texts are the reader's */
        xf_tester_promises("R", f.f.line, &row);
        mm_init(NULL, 0); /* before fclose: no later mm_add may write to the closed mf */
        fclose(mf);
        if (c[k].want) {
            char want[256];
            snprintf(want, sizeof want, "MISMATCH R tester.tsv.gz:3 %s\n", c[k].want);
            cr_expect_str_eq(buf, want, "row %s: got %s", c[k].row, buf);
            cr_expect_eq(mm_count(), 1, "row %s", c[k].row);
        } else {
            cr_expect_eq(mm_count(), 0, "row %s: %s", c[k].row, buf);
        }
        cr_expect_eq(rx_next(&f, &row, err, sizeof err), 0, "%s", err);
        free(buf);
        rx_close(&f);
        free(gz);
        rx_free(&x);
    }
    vj_free(rj);
    mm_reset();
}

/* rounding: the writer's value is floor((x - base) / 1000), so an instant
 * 1 ns before a µs boundary decodes up to 999 ns early, never late */
Test(rawdec, negative_offsets_round_down)
{
    dec_out o;
    cr_assert_eq(decode(RUN, TH "-1\t0\t200\tL\t=\t0\t0\n", NULL, NULL, NULL, &o), 0, "%s", o.err);
    cr_expect_eq(o.t[0].v[T_SEND], T + 648644 - 1000);
    cr_expect_eq(o.t[0].v[T_ANSWER], T + 648644);
}
