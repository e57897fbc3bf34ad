/* collect: raw files -> PostgreSQL -> results.json, on a hand-made run whose
 * every figure is computed by hand below; reruns, interruptions, bad input,
 * an unreachable database; and the redactor.  A private PostgreSQL cluster
 * is started for the suite (pipeline/pg.sh) and stopped after. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rawfmt.h"
#include "redact.h"
#include "util.h"

#define PGDIR "build/pgtest"
static char url[512], root[64];

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void pg_start(void)
{
    FILE *p = popen("bash pipeline/pg.sh start " PGDIR, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(url, sizeof url, p));
    url[strcspn(url, "\n")] = 0;
    cr_assert_eq(pclose(p), 0, "pipeline/pg.sh start");
    snprintf(root, sizeof root, "/tmp/collectXXXXXX");
    cr_assert_not_null(mkdtemp(root));
    /* a clean database for each test */
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "psql -q '%s' -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null 2>&1", url);
    cr_assert_eq(sh(cmd), 0);
}

static void pg_stop(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    sh(cmd);
    cr_assert_eq(sh("bash pipeline/pg.sh stop " PGDIR), 0);
}

TestSuite(collect, .init = pg_start, .fini = pg_stop, .timeout = 120);

#define S 1000000000LL
#define MS 1000000LL
#define T0 (5 * S)

/* rows: nrows rows of the kind's columns, in lab/rawfmt.h's order. */
static void write_log(const char *path, rawfmt_kind kind, const int64_t *rows, size_t nvals)
{
    rawlog *r;
    char err[UT_ERRLEN];
    int ncols = rawfmt_table_of(kind)->ncols;
    cr_assert_eq(nvals % (size_t)ncols, 0, "%s: rows of %d values", path, ncols);
    cr_assert_eq(rawfmt_log_open(&r, path, kind, err, sizeof err), 0, "%s", err);
    for (size_t i = 0; i < nvals / (size_t)ncols; i++)
        rawlog_row(r, rows + i * (size_t)ncols);
    cr_assert_eq(rawlog_close(r, err, sizeof err), 0, "%s", err);
}

#define N RAW_NONE
/* A hand-made run of arm H3-fb25, round 1, 3 seconds from T0. */
static void make_run(const char *arm, int round)
{
    char dir[256], p[300];
    snprintf(dir, sizeof dir, "%s/results/raw/%s-r%d", root, arm, round);
    char err[UT_ERRLEN];
    cr_assert_eq(ut_mkdir_p(dir, err, sizeof err), 0);
    /* tester rows, columns as in lab/rawfmt.h: latencies 2, 30, 4, (none),
     * 25 ms; kinds L K L E D */
    int64_t t[] = {
        0, 0, T0 + S / 10,     T0 + S / 10 + 10000,     T0 + S / 10 + 2 * MS,     200, 'L', raw_f(0.5f), 0, 0,
        1, 1, T0 + S / 2,      T0 + S / 2 + 20000,      T0 + S / 2 + 30 * MS,     200, 'K', raw_f(0.25f), 1, 0,
        2, 2, T0 + 12 * S / 10, T0 + 12 * S / 10 + 30000, T0 + 12 * S / 10 + 4 * MS, 200, 'L', raw_f(0.75f), 0, 0,
        3, 3, T0 + 19 * S / 10, T0 + 19 * S / 10 + 40000, N,                      0,   'E', N,            1, 0,
        4, 4, T0 + 25 * S / 10, T0 + 25 * S / 10 + 50000, T0 + 25 * S / 10 + 25 * MS, 200, 'D', raw_f(0.125f), 0, 1,
    };
    snprintf(p, sizeof p, "%s/tester.tsv.gz", dir);
    write_log(p, RAWFMT_TESTER, t, sizeof t / sizeof t[0]);
    /* lookups sent at 0.1 s, 0.5 s, 1.2 s and (retry) 1.3 s, 2.5 s */
    int64_t v[] = {
        0, 0, T0 + S / 10, T0 + S / 10 + 2 * MS, 200, 'L', 1, T0 + S / 10, T0 + S / 10 + MS, 'A', N, N, '-', N, N, '-',
        1, 1, T0 + S / 2, T0 + S / 2 + 30 * MS, 200, 'K', 1, T0 + S / 2, T0 + S / 2 + 25 * MS, 'T', N, N, '-', N, N, '-',
        2, 2, T0 + 12 * S / 10, T0 + 12 * S / 10 + 4 * MS, 200, 'L', 2, T0 + 12 * S / 10, T0 + 12 * S / 10 + MS, 'T',
        T0 + 13 * S / 10, T0 + 13 * S / 10 + MS, 'A', N, N, '-',
        4, 4, T0 + 25 * S / 10, T0 + 25 * S / 10 + 25 * MS, 200, 'D', 1, T0 + 25 * S / 10, T0 + 25 * S / 10 + 25 * MS,
        'T', N, N, '-', N, N, '-',
    };
    snprintf(p, sizeof p, "%s/service.tsv.gz", dir);
    write_log(p, RAWFMT_SERVICE, v, sizeof v / sizeof v[0]);
    /* busy intervals: [0.1, 0.6) s, [0.5, 1.5) s (waited in line from 0.4 s),
     * [2.5, end) (never ended: open to the run's end at 3 s), and one dropped
     * in line [1.2, 1.4) */
    int64_t st[] = {
        0, 0, 0, T0 + S / 10, T0 + S / 10, T0 + 6 * S / 10, 500 * MS, 0, 'A', 0, 0,
        1, 0, 1, T0 + 4 * S / 10, T0 + 5 * S / 10, T0 + 15 * S / 10, 1000 * MS, 0, 'A', 1, 1,
        2, 0, 2, T0 + 12 * S / 10, N, T0 + 14 * S / 10, 7 * MS, 200 * MS, 'D', 0, 1,
        4, 0, 4, T0 + 25 * S / 10, T0 + 25 * S / 10, N, 1500 * MS, 0, 'P', 0, 0,
    };
    snprintf(p, sizeof p, "%s/store.tsv.gz", dir);
    write_log(p, RAWFMT_STORE, st, sizeof st / sizeof st[0]);
    /* the machine watched, one reading a second (A then M): steal 2 of 600
     * ticks, 2 of 200 in the second second; the measured core's time used
     * by others (total - idle - steal - lab) 10, 8, 5 of 100 */
    int64_t m[] = {
        T0 + S,     'A', 200, 150, 0, 40, T0 + S,     'M', 100, 50, 0, 40,
        T0 + 2 * S, 'A', 200, 160, 2, 30, T0 + 2 * S, 'M', 100, 60, 2, 30,
        T0 + 3 * S, 'A', 200, 170, 0, 25, T0 + 3 * S, 'M', 100, 70, 0, 25,
    };
    snprintf(p, sizeof p, "%s/machine.tsv.gz", dir);
    write_log(p, RAWFMT_MACHINE, m, sizeof m / sizeof m[0]);
    snprintf(p, sizeof p, "%s/run.json", dir);
    FILE *f = fopen(p, "w");
    fprintf(f, "{\"arm\":\"%s\",\"round\":%d,\"seconds\":3,\"t0_ns\":%lld}", arm, round, (long long)T0);
    fclose(f);
}

static int collect(char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "build/bin/collect --root %s --pgurl '%s' 2>&1", root, url);
    FILE *p = popen(cmd, "r");
    size_t len = fread(out, 1, n - 1, p);
    out[len] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static json_t *results(void)
{
    char p[256];
    snprintf(p, sizeof p, "%s/results/results.json", root);
    json_error_t je;
    json_t *r = json_load_file(p, 0, &je);
    cr_assert_not_null(r, "%s: %s", p, je.text);
    return r;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    cr_assert(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

Test(collect, hand_made_run_every_figure_by_hand)
{
    make_run("H3-fb25", 1);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *run = json_object_get(json_object_get(r, "runs"), "H3-fb25-r1");
    cr_assert_not_null(run);
    cr_assert_eq(num(run, "n"), 5);
    cr_assert_eq(num(run, "answered"), 4);
    /* latencies 2, 4, 25, 30 ms: p50 h=1.5 -> 4 + 0.5*21 = 14.5;
     * p90 h=2.7 -> 25 + 0.7*5 = 28.5; p99 h=2.97 -> 29.85; max 30 */
    cr_assert_float_eq(num(run, "p50_ms"), 14.5, 1e-9);
    cr_assert_float_eq(num(run, "p90_ms"), 28.5, 1e-9);
    cr_assert_float_eq(num(run, "p99_ms"), 29.85, 1e-9);
    cr_assert_float_eq(num(run, "max_ms"), 30.0, 1e-9);
    cr_assert_eq(num(run, "live"), 2);
    cr_assert_eq(num(run, "last_known"), 1);
    cr_assert_eq(num(run, "default"), 1);
    cr_assert_eq(num(run, "error"), 1);
    cr_assert_float_eq(num(run, "standin_share"), 0.4, 1e-15);
    cr_assert_float_eq(num(run, "error_share"), 0.2, 1e-15);
    /* 4 lookups over 5 requests; slot time 500 + 1000 ms (the dropped one had
     * no slot, the pending one has no end) */
    cr_assert_eq(num(run, "lookups"), 4);
    cr_assert_float_eq(num(run, "lookups_per_request"), 0.8, 1e-15);
    cr_assert_float_eq(num(run, "slot_ms_total"), 1500.0, 1e-9);
    cr_assert_float_eq(num(run, "slot_ms_per_lookup"), 375.0, 1e-9);
    cr_assert_float_eq(num(run, "slot_ms_per_request"), 300.0, 1e-9);
    cr_assert_eq(num(run, "cut_short"), 1);
    cr_assert_eq(num(run, "pending_at_stop"), 1);
    /* lateness 10, 20, 30, 40, 50 us: p50 30, p99 h=3.96 -> 49.6, max 50 */
    cr_assert_float_eq(num(run, "late_p50_us"), 30.0, 1e-9);
    cr_assert_float_eq(num(run, "late_p99_us"), 49.6, 1e-9);
    cr_assert_float_eq(num(run, "late_max_us"), 50.0, 1e-9);
    cr_assert_float_eq(num(run, "answers_per_s"), 4.0 / 3.0, 1e-12);
    /* the machine: steal 2/600, worst second 2/200; the other core
     * (480 - 180) / (600 - 300) idle; others on the measured core 10/100 at
     * most: every limit of data/quiet.tsv kept, so quiet */
    cr_assert_float_eq(num(run, "steal_share"), 2.0 / 600, 1e-15);
    cr_assert_float_eq(num(run, "steal_second_max"), 0.01, 1e-15);
    cr_assert_float_eq(num(run, "other_idle_share"), 1.0, 1e-15);
    cr_assert_float_eq(num(run, "foreign_second_max"), 0.1, 1e-15);
    cr_assert(json_is_true(json_object_get(run, "quiet")));
    cr_assert_eq(json_array_size(json_object_get(run, "quiet_rules")), 0);

    /* Second by second over [T0, T0+3 s):
     *   arrivals at 0.1 0.5 | 1.2 1.9 | 2.5  -> 2 2 1; stand-ins (K, D): 1 0 1
     *   lookups sent at 0.1 0.5 | 1.2 1.3 | 2.5 -> 2 2 1
     *   busy: [0.1,0.6) + [0.5,1.5) + [2.5,3.0)  -> s0: 0.5 + 0.5 = 1.0; s1: 0.5; s2: 0.5
     *   line: [0.4,0.5) + [1.2,1.4) (dropped in line) -> s0: 0.1; s1: 0.2; s2: 0 */
    json_t *ps = json_object_get(run, "per_second");
    cr_assert_eq(json_array_size(ps), 3);
    double want[3][5] = {{2, 1, 2, 1.0, 0.1}, {2, 0, 2, 0.5, 0.2}, {1, 1, 1, 0.5, 0.0}};
    for (int s = 0; s < 3; s++) {
        json_t *e = json_array_get(ps, (size_t)s);
        cr_assert_eq(num(e, "s"), s);
        cr_assert_eq(num(e, "arrivals"), want[s][0], "second %d", s);
        cr_assert_eq(num(e, "standins"), want[s][1], "second %d", s);
        cr_assert_eq(num(e, "lookups_sent"), want[s][2], "second %d", s);
        cr_assert_float_eq(num(e, "busy_slots"), want[s][3], 1e-12, "second %d", s);
        cr_assert_float_eq(num(e, "line_length"), want[s][4], 1e-12, "second %d", s);
        /* steal 0, 2/200, 0; the latest send 20, 40, 50 us after its time;
         * others on the measured core 10, 8, 5 of 100 ticks */
        double steal[3] = {0, 0.01, 0}, late[3] = {20, 40, 50}, foreign[3] = {0.1, 0.08, 0.05};
        cr_assert_float_eq(num(e, "steal_share"), steal[s], 1e-15, "second %d", s);
        cr_assert_float_eq(num(e, "late_max_us"), late[s], 1e-9, "second %d", s);
        cr_assert_float_eq(num(e, "foreign_share"), foreign[s], 1e-15, "second %d", s);
    }
    json_decref(r);
}

Test(collect, verdicts_and_guesses_from_two_arms)
{
    /* two rounds of two arms with identical rows: every difference is 0, so
     * too close to call; medians equal the single values */
    make_run("H3-fb25", 1);
    make_run("H3-fb25", 2);
    make_run("H3-t25", 1);
    make_run("H3-t25", 2);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results();
    json_t *arm = json_object_get(json_object_get(r, "arms"), "H3-fb25");
    cr_assert_float_eq(num(json_object_get(arm, "p99_ms"), "median"), 29.85, 1e-9);
    cr_assert_eq(num(arm, "n_total"), 10);
    size_t i;
    json_t *v;
    int seen = 0;
    json_array_foreach(json_object_get(r, "verdicts"), i, v)
    {
        const char *a = json_string_value(json_object_get(v, "a")), *b = json_string_value(json_object_get(v, "b"));
        if (!strcmp(a, "H3-t25") && !strcmp(b, "H3-fb25")) {
            seen++;
            cr_assert_str_eq(json_string_value(json_object_get(v, "verdict")), "too close to call");
            cr_assert_eq(json_array_size(json_object_get(v, "rounds")), 2);
        } else {
            cr_assert_eq(json_array_size(json_object_get(v, "rounds")), 0, "no runs of %s or %s", a, b);
        }
    }
    cr_assert_eq(seen, 2);
    /* G6: every H3-fb25.standin_share >= 0.008 and <= 0.025: 0.4 -> wrong */
    json_array_foreach(json_object_get(r, "guesses"), i, v)
    {
        if (!strcmp(json_string_value(json_object_get(v, "id")), "G6")) {
            cr_assert(json_is_false(json_object_get(v, "right")));
            json_t *c = json_object_get(v, "clauses");
            cr_assert(json_is_true(json_array_get(c, 0)) && json_is_false(json_array_get(c, 1)));
        }
        if (!strcmp(json_string_value(json_object_get(v, "id")), "G5")) /* close H3-t25 H3-fb25 p99_ms */
            cr_assert(json_is_true(json_object_get(v, "right")));
    }
    json_decref(r);
}

Test(collect, twice_and_after_an_interruption_gives_the_same_bytes)
{
    make_run("H3-fb25", 1);
    make_run("H3-t25", 1);
    char out[8192], p[256], *a, *b;
    size_t na, nb;
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    snprintf(p, sizeof p, "%s/results/results.json", root);
    cr_assert_eq(ut_read_file(p, &a, &na, out, sizeof out), 0);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "0 loaded now"), "nothing new to load: %s", out);
    cr_assert_eq(ut_read_file(p, &b, &nb, out, sizeof out), 0);
    cr_assert(na == nb && !memcmp(a, b, na), "collect twice: the same results.json");
    free(b);
    /* Interrupted: start from an empty database, kill collect as soon as it
     * has loaded something, then rerun. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "psql -q '%s' -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null 2>&1",
             url);
    cr_assert_eq(sh(cmd), 0);
    unlink(p);
    snprintf(cmd, sizeof cmd,
             "(build/bin/collect --root %s --pgurl '%s' > /dev/null 2>&1 & pid=$!; sleep 0.05; kill -9 $pid; "
             "wait $pid) 2>/dev/null",
             root, url);
    sh(cmd);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert_eq(ut_read_file(p, &b, &nb, out, sizeof out), 0);
    cr_assert(na == nb && !memcmp(a, b, na), "after an interruption: the same results.json");
    free(a);
    free(b);
}

Test(collect, unreachable_database_is_named_and_nothing_written)
{
    make_run("H3-fb25", 1);
    char cmd[512], out[2048];
    snprintf(cmd, sizeof cmd,
             "build/bin/collect --root %s --pgurl 'host=/nonexistent/socket dbname=lab user=x password=hunter2' 2>&1",
             root);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    cr_assert_eq(WEXITSTATUS(st), 1);
    cr_assert(strstr(out, "cannot reach PostgreSQL") && strstr(out, "/nonexistent/socket"), "%s", out);
    cr_assert_null(strstr(out, "hunter2"), "the password is never printed: %s", out);
    char path[256];
    snprintf(path, sizeof path, "%s/results/results.json", root);
    cr_assert_eq(access(path, F_OK), -1, "nothing written");
}

Test(collect, malformed_row_and_truncated_gzip_load_nothing_of_that_run)
{
    make_run("H3-fb25", 1);
    char out[8192], cmd[2048], p[256];
    /* a malformed row: a letter in a time column, line 5 */
    snprintf(p, sizeof p, "%s/results/raw/H3-fb25-r1/tester.tsv.gz", root);
    snprintf(cmd, sizeof cmd, "zcat %s | sed '5s/^\\([0-9]*\\)\\t\\([0-9]*\\)\\t/\\1\\t\\2\\tx/' | gzip > %s.new && mv %s.new %s",
             p, p, p, p);
    cr_assert_eq(sh(cmd), 0);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "tester.tsv.gz:5:") && strstr(out, "sched_t"), "%s", out);
    cr_assert(strstr(out, "nothing of this run") || !strstr(out, "loaded H3-fb25-r1"), "%s", out);
    snprintf(cmd, sizeof cmd, "psql -tA '%s' -c 'SELECT count(*) FROM requests' 2>/dev/null", url);
    FILE *q = popen(cmd, "r");
    char c[32] = "";
    cr_assert_not_null(fgets(c, sizeof c, q));
    pclose(q);
    cr_assert_eq(atoi(c), 0, "no row of that run was loaded");
    /* a truncated gzip stream */
    make_run("H3-fb25", 1);
    snprintf(p, sizeof p, "%s/results/raw/H3-fb25-r1/store.tsv.gz", root);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(truncate(p, sb.st_size - 12), 0);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "store.tsv.gz") && strstr(out, "truncated"), "%s", out);
    /* an integer beyond 64 bits (the request id of line 3) */
    make_run("H3-fb25", 1);
    snprintf(cmd, sizeof cmd, "zcat %s | sed '3s/^0\\t/99999999999999999999\\t/' | gzip > %s.new && mv %s.new %s", p,
             p, p, p);
    cr_assert_eq(sh(cmd), 0);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "store.tsv.gz:3:") && strstr(out, "req") && strstr(out, "overflow"), "%s", out);
}

Test(collect, redactor_removes_what_it_claims_and_keeps_the_rest)
{
    struct {
        const char *in, *out;
    } cases[] = {
        {"connect to 10.1.2.3 port 443 failed", "connect to [ip] port 443 failed"},
        {"from 172.31.0.5:22", "from [ip]:22"},
        {"peer 2600:1f18:abcd::12 refused", "peer [ip6] refused"},
        {"host ip-10-0-0-1.ec2.internal up", "host [host] up"},
        {"GET https://ec2.us-east-1.amazonaws.com/ x", "GET https://[host]/ x"},
        {"account 123456789012 denied", "account [account] denied"},
        {"instance i-0abc12345def67890 and sg-12345678", "instance [id] and [id]"},
        {"subnet-0a1b2c3d4e5f6a7b8 vpc-1234abcd", "[id] [id]"},
        {"key AKIAABCDEFGHIJKLMNOP here", "key [key] here"},
        {"token=abcdef1234567890xyz end", "[key] end"},
        {"mail ops@example.com now", "mail [email] now"},
        /* kept */
        {"listening on 127.0.0.1:8080 and ::1", "listening on 127.0.0.1:8080 and ::1"},
        {"bind 0.0.0.0:2024", "bind 0.0.0.0:2024"},
        {"kernel 6.18.44 at 12:34:56, 1234567 ns, 0.570016972", "kernel 6.18.44 at 12:34:56, 1234567 ns, 0.570016972"},
        {"systemd[1]: Started cron.service.", "systemd[1]: Started cron.service."},
        {"pid 4242 took 1234567890123 ns", "pid 4242 took 1234567890123 ns"},
    };
    char out[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        redact_line(cases[i].in, out, sizeof out);
        cr_assert_str_eq(out, cases[i].out, "case %zu: %s", i, cases[i].in);
    }
}
