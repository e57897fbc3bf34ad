/* lab/raw/rawfmt.c: the column tables against lab/RAWFORMAT.md, files written
 * with rawlog and read back (values, absent values, the delta encoding by
 * hand), and every kind of bad file named with its file, line and column. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "rawfmt.h"
#include "util.h"

static char tmp[64];

static void mk_tmp(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/rawfmtXXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(rawfmt, .init = mk_tmp, .fini = rm_tmp);

/* The columns and the ones that may be absent, copied from RAWFORMAT.md. */
static void check_table(rawfmt_kind k, const char *name, const char *cols, const char *absent)
{
    const rawfmt_table *t = rawfmt_table_of(k);
    cr_assert_not_null(t);
    cr_assert_str_eq(t->name, name);
    char all[512] = "", none[512] = "";
    for (int c = 0; c < t->ncols; c++) {
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", c ? " " : "", t->cols[c].name);
        if (t->cols[c].absent_ok)
            snprintf(none + strlen(none), sizeof none - strlen(none), "%s%s", none[0] ? " " : "",
                     t->cols[c].name);
        if (t->log_cols) {
            cr_assert_str_eq(t->log_cols[c].name, t->cols[c].name);
            cr_assert_eq(t->log_cols[c].type, t->cols[c].type);
        }
        size_t n = strlen(t->cols[c].name);
        int is_time = (n > 2 && !strcmp(t->cols[c].name + n - 2, "_t")) || !strcmp(t->cols[c].name, "t");
        cr_assert_eq(is_time, t->cols[c].type == 't', "%s: time columns end in _t or are named t", t->cols[c].name);
        cr_assert_eq(rawfmt_col_index(t, t->cols[c].name), c);
    }
    cr_assert_str_eq(all, cols);
    cr_assert_str_eq(none, absent);
}

Test(rawfmt, tables_are_those_of_rawformat_md)
{
    check_table(RAWFMT_TESTER, "tester", "j row sched_t send_t answer_t status kind score conn waited",
                "send_t answer_t score conn");
    check_table(RAWFMT_SERVICE, "service",
                "req row arrive_t answer_t status kind lookups store a0_start_t a0_end_t a0_out a1_start_t "
                "a1_end_t a1_out a2_start_t a2_end_t a2_out a3_start_t a3_end_t a3_out a4_start_t a4_end_t a4_out",
                "req row answer_t a0_start_t a0_end_t a0_out a1_start_t a1_end_t a1_out a2_start_t a2_end_t "
                "a2_out a3_start_t a3_end_t a3_out a4_start_t a4_end_t a4_out");
    check_table(RAWFMT_STORE, "store",
                "req attempt row arrive_t start_t end_t planned_ns budget_ns outcome line busy", "start_t end_t");
    /* the enums follow the tables */
    cr_assert_eq(RAWFMT_TESTER_NCOLS, 10);
    cr_assert_eq(RAWFMT_SERVICE_NCOLS, 23);
    cr_assert_eq(RAWFMT_STORE_NCOLS, 11);
    cr_assert_eq(RAWFMT_TESTER_answer_t, 4);
    cr_assert_eq(RAWFMT_SERVICE_store, 7);
    cr_assert_eq(RAWFMT_SERVICE_a1_start_t, 11);
    cr_assert_eq(RAWFMT_SERVICE_a4_out, 22);
    cr_assert_eq(RAWFMT_STORE_outcome, 8);
    cr_assert_eq(rawfmt_col_index(rawfmt_table_of(RAWFMT_STORE), "nothing"), -1);
    cr_assert_null(rawfmt_table_of(RAWFMT_NKINDS));
    cr_assert_str_eq(rawfmt_table_of(RAWFMT_TESTER)->cols[RAWFMT_TESTER_kind].codes, "LKDE");
    for (int k = 0; k < 5; k++)
        cr_assert_str_eq(rawfmt_table_of(RAWFMT_SERVICE)->cols[RAWFMT_SERVICE_a0_out + 3 * k].codes, "ATCDXUNROBY");
    cr_assert_str_eq(rawfmt_table_of(RAWFMT_STORE)->cols[RAWFMT_STORE_outcome].codes, "ADUPENHR");
    check_table(RAWFMT_EVENTS, "events", "t what conn tries wait_ns", "");
    cr_assert_eq(RAWFMT_EVENTS_NCOLS, 5);
    cr_assert_str_eq(rawfmt_table_of(RAWFMT_EVENTS)->cols[RAWFMT_EVENTS_what].codes, "LFCOWPHK");
    /* the published files of version 4 (the processes' logs are version 3) */
    check_table(RAWFMT_TESTER4, "tester", "send_us answer_us status kind score conn waited",
                "send_us answer_us score conn");
    check_table(RAWFMT_SERVICE4, "service",
                "req arrive_us answer_us status kind lookups store a0_start_us a0_end_us a0_out a1_start_us "
                "a1_end_us a1_out a2_start_us a2_end_us a2_out a3_start_us a3_end_us a3_out a4_start_us a4_end_us "
                "a4_out",
                "req answer_us a0_start_us a0_end_us a0_out a1_start_us a1_end_us a1_out a2_start_us a2_end_us "
                "a2_out a3_start_us a3_end_us a3_out a4_start_us a4_end_us a4_out");
    check_table(RAWFMT_STORE4, "store", "req attempt arrive_us start_us end_us budget_ns outcome line busy",
                "start_us end_us");
    const char *ver[RAWFMT_NKINDS] = {"3", "3", "3", "4", "4", "4", "4", "4"};
    for (int k = 0; k < RAWFMT_NKINDS; k++) {
        cr_assert_str_eq(rawfmt_table_of(k)->version, ver[k], "kind %d", k);
        cr_assert_eq(rawfmt_table_of(k)->log_cols == NULL, k >= RAWFMT_TESTER4, "only the logs are rawlog's");
    }
    cr_assert_eq(rawfmt_table_of(RAWFMT_TESTER4)->cols[RAWFMT_TESTER4_score].type, 'r');
}

/* The whole decompressed text of a file. */
static char *unzip(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    cr_assert_not_null(gz);
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap);
    int n;
    while ((n = gzread(gz, b + len, (unsigned)(cap - len - 1))) > 0)
        len += (size_t)n;
    gzclose(gz);
    b[len] = 0;
    return b;
}

#define N RAW_NONE
#define T0 9000000000000LL

Test(rawfmt, written_with_rawlog_read_back)
{
    char path[128], err[UT_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/tester.tsv.gz", tmp);
    rawlog *lg;
    cr_assert_eq(rawfmt_log_open(&lg, path, RAWFMT_TESTER, err, sizeof err), 0, "%s", err);
    /* answer_t absent in row 1: the running sum skips it; row 3's send_t is
     * earlier than row 2's (a negative delta) */
    int64_t rows[4][RAWFMT_TESTER_NCOLS] = {
        {0, 5, T0, T0 + 1000, T0 + 3000000, 200, 'L', raw_f(0.75f), 0, 0},
        {1, 6, T0 + 500, T0 + 2000, N, 0, 'E', N, 1, 1},
        {2, 7, T0 + 900, T0 + 1500, T0 + 4000000, 504, 'E', N, 0, 0},
        {3, 8, T0 + 900, T0 + 1600, T0 + 3500000, 200, 'K', raw_f(-0.1f), 2, 0},
    };
    for (int i = 0; i < 4; i++)
        cr_assert_eq(rawlog_row(lg, rows[i]), 0);
    cr_assert_eq(rawlog_close(lg, err, sizeof err), 0, "%s", err);

    /* the text, by hand */
    char *text = unzip(path);
    const char *want = "# lab-raw 3 tester\n"
                       "j\trow\tsched_t\tsend_t\tanswer_t\tstatus\tkind\tscore\tconn\twaited\n"
                       "0\t5\t9000000000000\t9000000001000\t9000003000000\t200\tL\t0.75\t0\t0\n"
                       "1\t6\t500\t1000\t-\t0\tE\t-\t1\t1\n"
                       "2\t7\t400\t-500\t1000000\t504\tE\t-\t0\t0\n"
                       "3\t8\t0\t100\t-500000\t200\tK\t-0.100000001\t2\t0\n";
    cr_assert_str_eq(text, want);
    free(text);

    /* row by row */
    rawfmt_reader *r;
    cr_assert_eq(rawfmt_open(&r, path, RAWFMT_TESTER, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rawfmt_reader_table(r), rawfmt_table_of(RAWFMT_TESTER));
    int64_t v[RAWFMT_TESTER_NCOLS];
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(rawfmt_next(r, v, err, sizeof err), 1, "%s", err);
        cr_assert_eq(rawfmt_line(r), 3 + i);
        for (int c = 0; c < RAWFMT_TESTER_NCOLS; c++)
            cr_assert_eq(v[c], rows[i][c], "row %d column %d: %lld, expected %lld", i, c, (long long)v[c],
                         (long long)rows[i][c]);
    }
    cr_assert_eq(rawfmt_next(r, v, err, sizeof err), 0, "%s", err);
    rawfmt_close(r);
    cr_assert_eq(rawfmt_float(v[RAWFMT_TESTER_score]), -0.1f);

    /* whole, and of whichever kind line 1 names */
    rawfmt_file f;
    cr_assert_eq(rawfmt_read(path, RAWFMT_ANY, &f, err, sizeof err), 0, "%s", err);
    cr_assert_eq(f.t->kind, RAWFMT_TESTER);
    cr_assert_eq(f.n, 4);
    cr_assert_eq(f.col[RAWFMT_TESTER_send_t][2], T0 + 1500);
    cr_assert_eq(f.col[RAWFMT_TESTER_answer_t][1], N);
    cr_assert_eq(f.col[RAWFMT_TESTER_kind][3], 'K');
    rawfmt_file_free(&f);
    /* the right kind is asked for */
    cr_assert_eq(rawfmt_read(path, RAWFMT_STORE, &f, err, sizeof err), -1);
    cr_assert(strstr(err, "tester.tsv.gz:1:") && strstr(err, "# lab-raw 3 store"), "%s", err);
}

Test(rawfmt, every_kind_round_trips_absent_codes_included)
{
    char path[128], err[UT_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/service.tsv.gz", tmp);
    rawlog *lg;
    cr_assert_eq(rawfmt_log_open(&lg, path, RAWFMT_SERVICE, err, sizeof err), 0, "%s", err);
    /* the service writes '-' as the code of a lookup not sent: read as absent */
    int64_t a[RAWFMT_SERVICE_NCOLS] = {N, N, 7, 9, 400, 'E', 0, 1, N, N, '-', N, N, '-', N, N, '-',
                                       N, N, '-', N, N, '-'};
    /* five lookups: a breaker refusal (O), a compartment's (B), the budget's (Y), a live answer */
    int64_t b[RAWFMT_SERVICE_NCOLS] = {4, 2, 8, 20, 200, 'L', 5, 2, 8, 12, 'C', 9, 11, 'A', 12, 12, 'O',
                                       13, 13, 'B', 14, 14, 'Y'};
    rawlog_row(lg, a);
    rawlog_row(lg, b);
    cr_assert_eq(rawlog_close(lg, err, sizeof err), 0, "%s", err);
    rawfmt_file f;
    cr_assert_eq(rawfmt_read(path, RAWFMT_SERVICE, &f, err, sizeof err), 0, "%s", err);
    cr_assert_eq(f.n, 2);
    cr_assert_eq(f.col[RAWFMT_SERVICE_a0_out][0], N);
    cr_assert_eq(f.col[RAWFMT_SERVICE_a0_out][1], 'C');
    cr_assert_eq(f.col[RAWFMT_SERVICE_a0_start_t][1], 8, "first present value of the column: whole");
    cr_assert_eq(f.col[RAWFMT_SERVICE_answer_t][1], 20);
    cr_assert_eq(f.col[RAWFMT_SERVICE_req][0], N);
    for (int c = 0; c < RAWFMT_SERVICE_NCOLS; c++)
        cr_assert_eq(f.col[c][1], b[c], "column %d", c);
    cr_assert_eq(f.col[RAWFMT_SERVICE_store][0], 1);
    rawfmt_file_free(&f);

    /* events: a connection lost, then the breaker's rows with conn -1 */
    snprintf(path, sizeof path, "%s/events.tsv.gz", tmp);
    cr_assert_eq(rawfmt_log_open(&lg, path, RAWFMT_EVENTS, err, sizeof err), 0, "%s", err);
    int64_t e[3][RAWFMT_EVENTS_NCOLS] = {
        {T0, 'L', 1, 0, 4000000}, {T0 + 10, 'O', -1, 5, 0}, {T0 + 250000010, 'H', -1, 0, 250000000}};
    for (int i = 0; i < 3; i++)
        rawlog_row(lg, e[i]);
    cr_assert_eq(rawlog_close(lg, err, sizeof err), 0, "%s", err);
    char *text = unzip(path);
    cr_assert_str_eq(text, "# lab-raw 4 events\nt\twhat\tconn\ttries\twait_ns\n"
                           "9000000000000\tL\t1\t0\t4000000\n10\tO\t-1\t5\t0\n250000000\tH\t-1\t0\t250000000\n");
    free(text);
    cr_assert_eq(rawfmt_read(path, RAWFMT_EVENTS, &f, err, sizeof err), 0, "%s", err);
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < RAWFMT_EVENTS_NCOLS; c++)
            cr_assert_eq(f.col[c][i], e[i][c], "row %d column %d", i, c);
    rawfmt_file_free(&f);

    snprintf(path, sizeof path, "%s/store.tsv.gz", tmp);
    cr_assert_eq(rawfmt_log_open(&lg, path, RAWFMT_STORE, err, sizeof err), 0, "%s", err);
    int64_t s[RAWFMT_STORE_NCOLS] = {INT64_MAX, 0, 3, -5, N, -2, -7, 0, 'P', 0, 16};
    rawlog_row(lg, s);
    cr_assert_eq(rawlog_close(lg, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rawfmt_read(path, RAWFMT_STORE, &f, err, sizeof err), 0, "%s", err);
    for (int c = 0; c < RAWFMT_STORE_NCOLS; c++)
        cr_assert_eq(f.col[c][0], s[c], "column %d", c);
    rawfmt_file_free(&f);
    cr_assert_eq(rawfmt_log_open(&lg, path, RAWFMT_NKINDS, err, sizeof err), -1);
}

/* ------------------------------------------------------------ bad files */

#define THEAD "# lab-raw 3 tester\nj\trow\tsched_t\tsend_t\tanswer_t\tstatus\tkind\tscore\tconn\twaited\n"
#define TROW "0\t0\t100\t110\t300\t200\tL\t0.5\t0\t0\n"

static void write_gz(const char *path, const char *text)
{
    gzFile gz = gzopen(path, "wb");
    cr_assert_not_null(gz);
    cr_assert_eq(gzputs(gz, text), (int)strlen(text));
    cr_assert_eq(gzclose(gz), Z_OK);
}

/* Reads a file made of `text`; the reader must refuse it with every piece of
 * `want` (a '|'-separated list) in its message. */
static void refused(const char *text, const char *want)
{
    char path[128], err[UT_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/bad.tsv.gz", tmp);
    write_gz(path, text);
    rawfmt_file f;
    cr_assert_eq(rawfmt_read(path, RAWFMT_TESTER, &f, err, sizeof err), -1, "accepted: %s", text);
    cr_assert_eq(f.n, 0);
    char w[256];
    snprintf(w, sizeof w, "%s", want);
    for (char *p = strtok(w, "|"); p; p = strtok(NULL, "|"))
        cr_assert(strstr(err, p), "\"%s\" not in: %s", p, err);
}

Test(rawfmt, bad_first_lines_and_headers)
{
    refused("# lab-raw 3 store\n" "j\n", "bad.tsv.gz:1:|# lab-raw 3 tester");
    refused("# lab-raw 4 tester\n", "bad.tsv.gz:1:");
    /* versions 1 (before the store could fail) and 2 (before the defences) are no longer read */
    refused("# lab-raw 1 tester\nj\trow\tsched_t\tsend_t\tanswer_t\tstatus\tkind\tscore\tconn\twaited\n",
            "bad.tsv.gz:1:|# lab-raw 3 tester");
    refused("# lab-raw 2 tester\nj\trow\tsched_t\tsend_t\tanswer_t\tstatus\tkind\tscore\tconn\twaited\n",
            "bad.tsv.gz:1:|\"# lab-raw 2 tester\" is not \"# lab-raw 3 tester\"");
    refused("", "bad.tsv.gz:1:|empty");
    refused("# lab-raw 3 tester\n", "bad.tsv.gz:2:");
    refused("# lab-raw 3 tester\nj\trow\tsend_t\n", "bad.tsv.gz:2:|column 3|\"send_t\"|\"sched_t\"");
    refused("# lab-raw 3 tester\nj\trow\n", "bad.tsv.gz:2:|2 column names, expected 10");
    refused("# lab-raw 3 tester\nj\trow\tsched_t\tsend_t\tanswer_t\tstatus\tkind\tscore\tconn\twaited\textra\n",
            "bad.tsv.gz:2:|more than the 10");
}

Test(rawfmt, bad_rows_named_by_line_and_column)
{
    /* wrong number of fields */
    refused(THEAD TROW "1\t0\t100\n", "bad.tsv.gz:4:|3 tab-separated fields, expected 10");
    refused(THEAD TROW TROW "1\t0\t100\t110\t300\t200\tL\t0.5\t0\t0\t9\n", "bad.tsv.gz:5:|11 tab-separated");
    /* not a number */
    refused(THEAD "0\t0\tx\t110\t300\t200\tL\t0.5\t0\t0\n", "bad.tsv.gz:3:|column sched_t|\"x\"|not an integer");
    refused(THEAD "0\t0\t100\t110\t300\t200\tL\tabc\t0\t0\n", "bad.tsv.gz:3:|column score|not a decimal number");
    refused(THEAD "0\t0\t100\t110\t300\t200\tL\tnan\t0\t0\n", "bad.tsv.gz:3:|column score");
    refused(THEAD "0\t0\t100\t110\t300\t200\tL\t1e39\t0\t0\n", "bad.tsv.gz:3:|column score|out of range");
    refused(THEAD "0\t+7\t100\t110\t300\t200\tL\t0.5\t0\t0\n", "bad.tsv.gz:3:|column row|not an integer");
    refused(THEAD "0\t7 \t100\t110\t300\t200\tL\t0.5\t0\t0\n", "bad.tsv.gz:3:|column row");
    refused(THEAD TROW "1\t1\t100\t110\t300\t200\tLK\t0.5\t0\t0\n", "bad.tsv.gz:4:|column kind|not one character");
    refused(THEAD TROW "1\t1\t100\t110\t300\t200\tX\t0.5\t0\t0\n", "bad.tsv.gz:4:|column kind|LKDE");
    refused(THEAD "0\t\t100\t110\t300\t200\tL\t0.5\t0\t0\n", "bad.tsv.gz:3:|column row|empty");
    /* integer overflow, in a field and in a time's running sum */
    refused(THEAD "99999999999999999999\t0\t100\t110\t300\t200\tL\t0.5\t0\t0\n",
            "bad.tsv.gz:3:|column j|overflow");
    refused(THEAD "0\t-9223372036854775808\t100\t110\t300\t200\tL\t0.5\t0\t0\n", "bad.tsv.gz:3:|column row");
    refused(THEAD "0\t0\t9223372036854775000\t110\t300\t200\tL\t0.5\t0\t0\n"
                  "1\t0\t1000\t110\t300\t200\tL\t0.5\t0\t0\n",
            "bad.tsv.gz:4:|column sched_t|overflow");
    /* a missing required value; the allowed ones pass */
    refused(THEAD "0\t0\t-\t110\t300\t200\tL\t0.5\t0\t0\n", "bad.tsv.gz:3:|column sched_t|never absent");
    /* a request never sent: send_t and conn "-" together, with no answer */
    refused(THEAD TROW "1\t1\t100\t110\t-\t0\tE\t-\t-\t0\n", "bad.tsv.gz:4:|column conn|never sent");
    refused(THEAD TROW "1\t1\t100\t-\t-\t0\tE\t-\t3\t0\n", "bad.tsv.gz:4:|column send_t|never sent");
    refused(THEAD TROW "1\t1\t100\t-\t-\t200\tE\t-\t-\t0\n", "bad.tsv.gz:4:|column send_t|status 0");
    refused(THEAD TROW "1\t1\t100\t-\t300\t0\tE\t-\t-\t0\n", "bad.tsv.gz:4:|column send_t|never sent");
    /* the last line cut short */
    refused(THEAD TROW "1\t1\t100\t110\t300\t200\tL\t0.5\t0", "bad.tsv.gz:4:|no end");

    char path[128], err[UT_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/good.tsv.gz", tmp);
    refused(THEAD TROW "1\t1\t-5\t-\t-\t0\tE\t-\t3\t1\n", "bad.tsv.gz:4:|column send_t|never sent");
    write_gz(path, THEAD TROW "1\t1\t-5\t5\t-\t0\tE\t-\t3\t1\n" "2\t1\t7\t5\t10\t0\tE\t-\t3\t1\n"
                         "3\t1\t1\t-\t-\t0\tE\t-\t-\t0\n");
    rawfmt_file f;
    cr_assert_eq(rawfmt_read(path, RAWFMT_TESTER, &f, err, sizeof err), 0, "%s", err);
    cr_assert_eq(f.n, 4);
    /* the request never sent: send_t and conn absent, send_t's sum unchanged */
    cr_assert_eq(f.col[RAWFMT_TESTER_send_t][3], RAW_NONE);
    cr_assert_eq(f.col[RAWFMT_TESTER_conn][3], RAW_NONE);
    cr_assert_eq(f.col[RAWFMT_TESTER_sched_t][3], 103);
    /* sched_t 100, 95, 102; answer_t 300, absent, 310 (the sum skips the "-") */
    cr_assert_eq(f.col[RAWFMT_TESTER_sched_t][1], 95);
    cr_assert_eq(f.col[RAWFMT_TESTER_sched_t][2], 102);
    cr_assert_eq(f.col[RAWFMT_TESTER_answer_t][1], RAW_NONE);
    cr_assert_eq(f.col[RAWFMT_TESTER_answer_t][2], 310);
    rawfmt_file_free(&f);
}

Test(rawfmt, truncated_gzip_and_plain_text_refused)
{
    char path[128], err[UT_ERRLEN] = "";
    snprintf(path, sizeof path, "%s/cut.tsv.gz", tmp);
    /* 2,000 rows, so the stream is long enough to cut in many places */
    size_t cap = 200000, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, THEAD);
    for (int j = 0; j < 2000; j++)
        len += (size_t)snprintf(text + len, cap - len, "%d\t%d\t%d\t1\t2\t200\tL\t0.%d\t0\t0\n", j, j % 97,
                                j ? 3333 + j % 7 : 1000000, j);
    write_gz(path, text);
    free(text);
    rawfmt_file f;
    cr_assert_eq(rawfmt_read(path, RAWFMT_TESTER, &f, err, sizeof err), 0, "%s", err);
    cr_assert_eq(f.n, 2000);
    rawfmt_file_free(&f);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    /* cut in the trailer (CRC and length), just before it, and in the middle */
    off_t cuts[] = {st.st_size - 4, st.st_size - 12, st.st_size / 2, 30};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        cr_assert_eq(truncate(path, cuts[i]), 0);
        err[0] = 0;
        cr_assert_eq(rawfmt_read(path, RAWFMT_TESTER, &f, err, sizeof err), -1, "cut at %lld accepted",
                     (long long)cuts[i]);
        cr_assert(strstr(err, "cut.tsv.gz:") && (strstr(err, "truncated") || strstr(err, "no end")),
                  "cut at %lld: %s", (long long)cuts[i], err);
    }
    /* plain text is not a gzip stream, though zlib would read it */
    FILE *p = fopen(path, "w");
    fputs(THEAD TROW, p);
    fclose(p);
    cr_assert_eq(rawfmt_read(path, RAWFMT_TESTER, &f, err, sizeof err), -1);
    cr_assert(strstr(err, "cut.tsv.gz: not a gzip stream"), "%s", err);
    snprintf(path, sizeof path, "%s/none.tsv.gz", tmp);
    cr_assert_eq(rawfmt_read(path, RAWFMT_TESTER, &f, err, sizeof err), -1);
    cr_assert(strstr(err, "none.tsv.gz: cannot open"), "%s", err);
}
