/* collect: raw files -> PostgreSQL -> results.json, on a hand-made run whose
 * every figure is computed by hand below; reruns, interruptions, bad input,
 * an unreachable database; and the redactor.  A private PostgreSQL cluster
 * is started for the suite (pipeline/common/pg.sh) and stopped after. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collecthelp.h"
#include "rawfmt.h"
#include "redact.h"
#include "util.h"

#define PGDIR "build/pgtest"
char ct_url[512], ct_root[64];

static void pg_start(void)
{
    FILE *p = popen("bash pipeline/common/pg.sh start " PGDIR, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(ct_url, sizeof ct_url, p));
    ct_url[strcspn(ct_url, "\n")] = 0;
    cr_assert_eq(pclose(p), 0, "pipeline/common/pg.sh start");
    snprintf(ct_root, sizeof ct_root, "/tmp/collectXXXXXX");
    cr_assert_not_null(mkdtemp(ct_root));
    /* a clean database for each test */
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "psql -q '%s' -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null 2>&1", ct_url);
    cr_assert_eq(sh(cmd), 0);
}

static void pg_stop(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", ct_root);
    sh(cmd);
    cr_assert_eq(sh("bash pipeline/common/pg.sh stop " PGDIR), 0);
}

TestSuite(collect, .init = pg_start, .fini = pg_stop, .timeout = 120);

/* A hand-made run of arm H3-fb25, round 1, 3 seconds from T0. */
static void make_run(const char *arm, int round)
{
    char dir[256], p[300];
    snprintf(dir, sizeof dir, "%s/results/raw/%s-r%d", ct_root, arm, round);
    char err[UT_ERRLEN];
    cr_assert_eq(ut_mkdir_p(dir, err, sizeof err), 0);
    /* tester rows, columns as in lab/raw/rawfmt.h: latencies 2, 30, 4, (none),
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
        0, 0, T0 + S / 10, T0 + S / 10 + 2 * MS, 200, 'L', 1, 1, T0 + S / 10, T0 + S / 10 + MS, 'A', NOL, NOL, NOL, NOL,
        1, 1, T0 + S / 2, T0 + S / 2 + 30 * MS, 200, 'K', 1, 1, T0 + S / 2, T0 + S / 2 + 25 * MS, 'T', NOL, NOL, NOL, NOL,
        2, 2, T0 + 12 * S / 10, T0 + 12 * S / 10 + 4 * MS, 200, 'L', 2, 1, T0 + 12 * S / 10, T0 + 12 * S / 10 + MS, 'T',
        T0 + 13 * S / 10, T0 + 13 * S / 10 + MS, 'A', NOL, NOL, NOL,
        4, 4, T0 + 25 * S / 10, T0 + 25 * S / 10 + 25 * MS, 200, 'D', 1, 1, T0 + 25 * S / 10,
        T0 + 25 * S / 10 + 25 * MS, 'T', NOL, NOL, NOL, NOL,
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
    /* the service kept its connections: no event */
    snprintf(p, sizeof p, "%s/events.tsv.gz", dir);
    write_log(p, RAWFMT_EVENTS, NULL, 0);
    write_run_json(dir, arm, round, 3, NOFAULT, 1, SPEC_T1);
}

/* ------------------------------------------------ a run with a window */

#define WF (2000 * MS) /* the window [WF, WU) of a 6 s run: [S/3, 2S/3) */
#define WU (4000 * MS)

/* One request of the hand-made `down` run: the tester's view and the
 * service's lookups (out 0: not tried); each lookup sent (out not R) has a
 * store row with outcome `store`, arriving 50 us after it was sent. */
typedef struct {
    int64_t sched;      /* ns from T0 */
    char kind;
    int status;         /* 0: no answer */
    int64_t latency;    /* ns; -1: no answer */
    int served;         /* the service has a row */
    struct {
        int64_t start, len; /* sent at sched + start, ended len later (ns) */
        char out, store;
        int64_t store_len;  /* the store's own end, from arrival (a frozen lookup); 0: with the service's end */
    } a[3];
} dreq;

#define L1(at) {(at), 'L', 200, 2 * MS, 1, {{0, MS, 'A', 'A', 0}}}
#define U3 {{0, 100 * US, 'U', 'E', 0}, {100 * US, 100 * US, 'U', 'E', 0}, {200 * US, 100 * US, 'U', 'E', 0}}

/* The run, by phase (window [2 s, 4 s) from T0; arm r2: up to 3 tries, no
 * pause, then the stand-in):
 *
 * before (sched < 2 s): j0-j7 live, one lookup each; j8 a lookup answered
 *   "not found" and retried anyway (planted: a permanent error retried), live;
 *   j9 at 1999.5 ms: its first lookup freezes (timed out at 25 ms, sent
 *   before the window), its two retries are sent in the window (2024.5 ms)
 *   and answered unavailable: stand-in K.
 * during (2 s <= sched < 4 s): j10 at exactly 2 s, j11-j14, j18: three
 *   lookups answered unavailable, stand-ins K D K D K, D; j15: three
 *   unavailable, then a 504 (planted: as without a stand-in); j16: no answer
 *   at all (the service never read it: lost); j17: its connection lost while
 *   waiting (X), its retries not sent (R, R), stand-in K; j19 at 3999.5 ms:
 *   two unavailable, the third sent at exactly 4 s (after) answered: live.
 * after (sched >= 4 s): j20 at exactly 4 s live; j21 three tries time out
 *   (the store answers two late, one is pending at stop): stand-in K; j22-j24
 *   live (all in [4 s, 5 s)); j25-j29 live in [5 s, 6 s). */
static const dreq DOWN[30] = {
    L1(WF - 10 * MS), L1(WF - 9 * MS), L1(WF - 8 * MS), L1(WF - 7 * MS),
    L1(WF - 6 * MS), L1(WF - 5 * MS), L1(WF - 4 * MS), L1(WF - 3 * MS),
    {WF - 2 * MS, 'L', 200, 2 * MS, 1, {{0, 500 * US, 'N', 'N', 0}, {500 * US, MS, 'A', 'A', 0}}},
    {WF - 500 * US, 'K', 200, 25500 * US, 1,
     {{0, 25 * MS, 'T', 'A', 1200 * MS}, {25 * MS, 100 * US, 'U', 'E', 0}, {25100 * US, 100 * US, 'U', 'E', 0}}},
    {WF, 'K', 200, 500 * US, 1, U3},
    {WF + 100 * MS, 'D', 200, 500 * US, 1, U3},
    {WF + 200 * MS, 'K', 200, 500 * US, 1, U3},
    {WF + 300 * MS, 'D', 200, 500 * US, 1, U3},
    {WF + 400 * MS, 'K', 200, 500 * US, 1, U3},
    {WF + 500 * MS, 'E', 504, 500 * US, 1, U3},
    {WF + 600 * MS, 'E', 0, -1, 0, {{0}}},
    {WF + 700 * MS, 'K', 200, 500 * US, 1, {{0, 50 * US, 'X', 'E', 0}, {50 * US, 0, 'R', 0, 0}, {50 * US, 0, 'R', 0, 0}}},
    {WF + 800 * MS, 'D', 200, 500 * US, 1, U3},
    {WU - 500 * US, 'L', 200, 2 * MS, 1,
     {{0, 300 * US, 'U', 'E', 0}, {300 * US, 100 * US, 'U', 'E', 0}, {500 * US, MS, 'A', 'A', 0}}},
    {WU, 'L', 200, 2 * MS, 1, {{0, MS, 'A', 'A', 0}}},
    {WU + 5 * MS, 'K', 200, 75100 * US, 1,
     {{0, 25 * MS, 'T', 'A', 1500 * MS}, {25 * MS, 25 * MS, 'T', 'A', 1200 * MS}, {50 * MS, 25 * MS, 'T', 'P', 0}}},
    L1(WU + 10 * MS), L1(WU + 80 * MS), L1(WU + 480 * MS),
    L1(WU + 1100 * MS), L1(WU + 1300 * MS), L1(WU + 1500 * MS), L1(WU + 1700 * MS), L1(WU + 1900 * MS),
};

/* The hand-made run of DOWN, 6 s from T0; `never`: the same rows under a
 * window [2 s, end of run). */
static void make_down_run(const char *arm, int round, int never)
{
    char dir[256], p[300], err[UT_ERRLEN];
    snprintf(dir, sizeof dir, "%s/results/raw/%s-r%d", ct_root, arm, round);
    cr_assert_eq(ut_mkdir_p(dir, err, sizeof err), 0);
    int64_t t[30 * RAWFMT_TESTER_NCOLS], v[30 * RAWFMT_SERVICE_NCOLS], st[90 * RAWFMT_STORE_NCOLS];
    size_t nt = 0, nv = 0, ns = 0;
    for (int j = 0; j < 30; j++) {
        const dreq *d = &DOWN[j];
        int64_t sched = T0 + d->sched, ans = d->latency < 0 ? N : sched + d->latency;
        float score = d->kind == 'L' ? 0.5f : d->kind == 'K' ? 0.25f : 0.125f;
        int64_t tr[] = {j, j, sched, sched + 10 * US, ans, d->status, d->kind, d->kind == 'E' ? N : raw_f(score), 0, 0};
        memcpy(t + nt, tr, sizeof tr);
        nt += RAWFMT_TESTER_NCOLS;
        if (!d->served)
            continue;
        int64_t vr[RAWFMT_SERVICE_NCOLS] = {j, j, sched + 20 * US, ans - 10 * US, d->status, d->kind, 0, 1};
        for (int k = 0; k < 5; k++) {
            int64_t *a = vr + RAWFMT_SERVICE_a0_start_t + 3 * k;
            if (k >= 3 || !d->a[k].out) {
                a[0] = a[1] = N;
                a[2] = N;
                continue;
            }
            vr[RAWFMT_SERVICE_lookups]++;
            int64_t at = sched + d->a[k].start, end = at + d->a[k].len;
            a[0] = at;
            a[1] = end;
            a[2] = d->a[k].out;
            char o = d->a[k].store;
            if (d->a[k].out == 'R')
                continue;
            /* the store: A with a slot from its arrival to its end; E and N at
             * once, no slot; P with a slot and no end */
            int64_t arr = at + 50 * US;
            int64_t send = o == 'A' ? (d->a[k].store_len ? arr + d->a[k].store_len : end - 50 * US) : o == 'P' ? N : arr;
            int64_t sr[] = {j, k, j, arr, o == 'A' || o == 'P' ? arr : N, send, 0, 0, o, 0, 0};
            memcpy(st + ns, sr, sizeof sr);
            ns += RAWFMT_STORE_NCOLS;
        }
        memcpy(v + nv, vr, sizeof vr);
        nv += RAWFMT_SERVICE_NCOLS;
    }
    snprintf(p, sizeof p, "%s/tester.tsv.gz", dir);
    write_log(p, RAWFMT_TESTER, t, nt);
    snprintf(p, sizeof p, "%s/service.tsv.gz", dir);
    write_log(p, RAWFMT_SERVICE, v, nv);
    snprintf(p, sizeof p, "%s/store.tsv.gz", dir);
    write_log(p, RAWFMT_STORE, st, ns);
    snprintf(p, sizeof p, "%s/machine.tsv.gz", dir);
    write_log(p, RAWFMT_MACHINE, NULL, 0);
    /* connection 0 lost with j17's lookup (2700.05 ms), pause 5 ms (bound
     * 10 ms); refused at 2705.1 ms, pause 15 ms (bound 20 ms); refused at
     * 2720.2 ms, pause 45 ms: over its bound of 40 ms; connected at 2765.3 ms */
    int64_t ev[] = {
        T0 + WF + 700 * MS + 50 * US, 'L', 0, 0, 5 * MS,  T0 + WF + 705 * MS + 100 * US, 'F', 0, 1, 15 * MS,
        T0 + WF + 720 * MS + 200 * US, 'F', 0, 2, 45 * MS, T0 + WF + 765 * MS + 300 * US, 'C', 0, 3, 0,
    };
    snprintf(p, sizeof p, "%s/events.tsv.gz", dir);
    write_log(p, RAWFMT_EVENTS, ev, sizeof ev / sizeof ev[0]);
    char fault[200];
    snprintf(fault, sizeof fault, "{\"name\":\"%s\",\"spec\":\"%s\",\"from_ns\":%lld,\"to_ns\":%s}",
             never ? "never" : "down", never ? "never" : "down", (long long)WF, never ? "null" : "4000000000");
    write_run_json(dir, arm, round, 6, fault, 1, SPEC_T3);
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
    /* a hand-made run is a closed loop (collecthelp.h: raw format 4 then
     * writes any scheduled time): sent at its time, no lateness */
    cr_assert_float_eq(num(run, "late_p50_us"), 0.0, 1e-9);
    cr_assert_float_eq(num(run, "late_p99_us"), 0.0, 1e-9);
    cr_assert_float_eq(num(run, "late_max_us"), 0.0, 1e-9);
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
    /* no fault: j3 got no answer (lost 1); the store's outcomes A A D P; the
     * service's lookups A, T, T A, T; no event; every window figure null */
    cr_assert_str_eq(json_string_value(json_object_get(run, "fault")), "none");
    cr_assert_eq(num(run, "lost"), 1);
    check_codes(run, "store_outcomes", "ADUENHRP", (const int[]){2, 1, 0, 0, 0, 0, 0, 1});
    check_codes(run, "lookup_ends", "ATCDUNXROBY", (const int[]){2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    const char *zero[] = {"retried_permanent", "conn_lost", "conn_failed", "conn_regained", "reconnect_wait_over"};
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        cr_assert_eq(num(run, zero[i]), 0, "%s", zero[i]);
    const char *nulls[] = {"win_from_ms", "win_to_ms", "before_requests", "during_live", "after_unanswered_lookups",
                           "during_lookups_per_request", "first_live_after_ms", "recovered_s"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        cr_assert(json_is_null(json_object_get(run, nulls[i])), "%s is null without a window", nulls[i]);
    /* ... and every defence's figure without the defence (one try, one store) */
    const char *nodef[] = {"brk_opened", "brk_half_opened", "brk_closed", "brk_transitions", "brk_closed_ms",
                           "brk_open_ms", "brk_half_ms", "brk_illegal", "retries_passed", "budget_refused",
                           "budget_over", "inflight_refused", "store1_requests", "store1_live_share",
                           "store2_live", "store2_p99_ms", "store1_during_live_share", "store2_during_p99_ms",
                           "before_lookups_100ms", "recovery_lookups_100ms", "recovery_lookups_100ms_max"};
    for (size_t i = 0; i < sizeof nodef / sizeof nodef[0]; i++)
        cr_assert(json_is_null(json_object_get(run, nodef[i])), "%s is null without its defence", nodef[i]);
    /* ... and the arm's statistics of a figure no run has: null */
    json_t *arm = json_object_get(json_object_get(r, "arms"), "H3-fb25");
    cr_assert(json_is_null(json_object_get(arm, "during_lookups_per_request")));
    cr_assert(json_is_null(json_object_get(arm, "recovered_s")));
    cr_assert_eq(num(json_object_get(arm, "lost"), "median"), 1);

    /* Second by second over [T0, T0+3 s):
     *   arrivals at 0.1 0.5 | 1.2 1.9 | 2.5  -> 2 2 1; stand-ins (K, D): 1 0 1
     *   lookups sent at 0.1 0.5 | 1.2 1.3 | 2.5 -> 2 2 1
     *   busy: [0.1,0.6) + [0.5,1.5) + [2.5,3.0)  -> s0: 0.5 + 0.5 = 1.0; s1: 0.5; s2: 0.5
     *   line: [0.4,0.5) + [1.2,1.4) (dropped in line) -> s0: 0.1; s1: 0.2; s2: 0 */
    json_t *ps = json_object_get(run, "per_second");
    cr_assert_eq(json_array_size(ps), 3);
    double want[3][5] = {{2, 1, 2, 1.0, 0.1}, {2, 0, 2, 0.5, 0.2}, {1, 1, 1, 0.5, 0.0}};
    /* live (L) 1 1 0, errors (E, answered or not) 0 1 0 */
    double live[3] = {1, 1, 0}, errors[3] = {0, 1, 0};
    for (int s = 0; s < 3; s++) {
        json_t *e = json_array_get(ps, (size_t)s);
        cr_assert_eq(num(e, "s"), s);
        cr_assert_eq(num(e, "arrivals"), want[s][0], "second %d", s);
        cr_assert_eq(num(e, "standins"), want[s][1], "second %d", s);
        cr_assert_eq(num(e, "live"), live[s], "second %d", s);
        cr_assert_eq(num(e, "errors"), errors[s], "second %d", s);
        cr_assert_eq(num(e, "lookups_sent"), want[s][2], "second %d", s);
        cr_assert_float_eq(num(e, "busy_slots"), want[s][3], 1e-12, "second %d", s);
        cr_assert_float_eq(num(e, "line_length"), want[s][4], 1e-12, "second %d", s);
        /* steal 0, 2/200, 0; no lateness (a closed loop); others on the
         * measured core 10, 8, 5 of 100 ticks */
        double steal[3] = {0, 0.01, 0}, late[3] = {0, 0, 0}, foreign[3] = {0.1, 0.08, 0.05};
        cr_assert_float_eq(num(e, "steal_share"), steal[s], 1e-15, "second %d", s);
        cr_assert_float_eq(num(e, "late_max_us"), late[s], 1e-9, "second %d", s);
        cr_assert_float_eq(num(e, "foreign_share"), foreign[s], 1e-15, "second %d", s);
    }
    json_decref(r);
}

/* The `down` run of DOWN, every new figure by hand (the table's comment
 * says what each request did). */
Test(collect, down_run_before_during_after_by_hand)
{
    make_down_run("H3-r2-down", 1, 0);
    make_down_run("H3-fb25-down", 1, 0); /* the same rows: for the verdicts and guesses below */
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *run = json_object_get(json_object_get(r, "runs"), "H3-r2-down-r1");
    cr_assert_not_null(run);
    cr_assert_str_eq(json_string_value(json_object_get(run, "fault")), "down");
    cr_assert_eq(num(run, "n"), 30);
    cr_assert_eq(num(run, "lost"), 1); /* j16 */
    cr_assert_float_eq(num(run, "win_from_ms"), 2000.0, 1e-9);
    cr_assert_float_eq(num(run, "win_to_ms"), 4000.0, 1e-9);
    /* requests by sched_t:     before j0-j9    during j10-j19   after j20-j29
     *   live                   j0-j8: 9        j19: 1           j20, j22-j29: 9
     *   stand-ins (K, D)       j9: 1           j10-14,17,18: 7  j21: 1
     *   errors (E, answered)   0               j15: 1           0
     *   lost (no answer)       0               j16: 1           0
     * lookups sent (not R), by their start:
     *   before: j0-j7 8, j8 2, j9's first 1                           = 11
     *   during: j9's retries 2, j10-j15 18, j17's first 1 (then R R),
     *           j18 3, j19's first two 2                              = 26
     *   after:  j19's third 1, j20 1, j21 3, j22-j29 8                = 13
     * unanswered (T, C, X): before j9's first (T) 1; during j17's (X) 1;
     *   after j21's three (T) 3 */
    const char *ph[3] = {"before", "during", "after"};
    const char *fig[7] = {"requests", "live", "standins", "errors", "lost", "lookups", "unanswered_lookups"};
    int want[3][7] = {{10, 9, 1, 0, 0, 11, 1}, {10, 1, 7, 1, 1, 26, 1}, {10, 9, 1, 0, 0, 13, 3}};
    for (int p = 0; p < 3; p++)
        for (int f = 0; f < 7; f++) {
            char k[64];
            snprintf(k, sizeof k, "%s_%s", ph[p], fig[f]);
            cr_assert_eq(num(run, k), want[p][f], "%s: %g, by hand %d", k, num(run, k), want[p][f]);
        }
    /* 26 lookups sent in the window over its 10 requests */
    cr_assert_float_eq(num(run, "during_lookups_per_request"), 2.6, 1e-12);
    /* the window's 7 stand-ins of 10; its answered latencies 0.5 ms (j10-j15,
     * j17, j18) and 2 ms (j19): p99 h = 0.99 * 8 = 7.92 -> 0.5 + 0.92 * 1.5 */
    cr_assert_float_eq(num(run, "during_standin_share"), 0.7, 1e-15);
    cr_assert_float_eq(num(run, "during_p99_ms"), 1.88, 1e-9);
    /* slots busy in [2 s, 4 s): only j9's frozen first, from 2 s to its end
     * at 1999.55 + 1200 ms: 1199.55 ms over 2000 ms; one store */
    cr_assert_float_eq(num(run, "store1_during_busy"), 0.599775, 1e-12);
    cr_assert(json_is_null(json_object_get(run, "store2_during_busy")), "one store");
    /* live answers at or after 4 s: j19 at 3999.5 + 2 = 4001.5 ms is the first */
    cr_assert_float_eq(num(run, "first_live_after_ms"), 1.5, 1e-9);
    /* before the window 1 in 10 was not live (j9), so a second is back when
     * under 10% + 1 point = 11% is not live: [4 s, 5 s): j20-j24, j21 a
     * stand-in: 1 in 5 = 20%, not yet; [5 s, 6 s): j25-j29 all live -> 1;
     * [6 s, 7 s) would end after the run's 6 s */
    cr_assert_eq(num(run, "recovered_s"), 1);
    /* the store's lookups arriving before 2 s: j0-j7 8, j8 2, j9's first 1 =
     * 11 over 20 slices of 100 ms; from 4 s, 100 ms each: [4.0, 4.1) j19's
     * third (4000.05 ms), j20, j21's three (4005, 4030, 4055), j22 (4010),
     * j23 (4080) = 7; [4.4, 4.5) j24 (4480) */
    cr_assert_float_eq(num(run, "before_lookups_100ms"), 0.55, 1e-15);
    json_t *rl = json_object_get(run, "recovery_lookups_100ms");
    const int want_rl[10] = {7, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    cr_assert_eq(json_array_size(rl), 10);
    for (size_t i = 0; i < 10; i++)
        cr_assert_eq(json_integer_value(json_array_get(rl, i)), want_rl[i], "recovery_lookups_100ms[%zu]", i);
    cr_assert_eq(num(run, "recovery_lookups_100ms_max"), 7);
    /* retries (K >= 1, not O B Y: R counts, the gates let it through): j8 1,
     * j9 2, j10-j15 12, j17 2 (R R), j18 2, j19 2, j21 2 = 23 */
    cr_assert_eq(num(run, "retries_passed"), 23);
    cr_assert(json_is_null(json_object_get(run, "budget_over")), "no retry budget");
    /* store rows: the 50 lookups sent: A 8 + 1 (j8) + 1 (j9's frozen first)
     * + 1 (j19) + 1 (j20) + 2 (j21) + 8 = 22; N 1 (j8); E 26 (every
     * lookup arriving in the window); P 1 (j21's third) */
    check_codes(run, "store_outcomes", "ADUENHRP", (const int[]){22, 0, 0, 26, 1, 0, 0, 1});
    /* the service's ends: A 8 + 1 + 1 (j19) + 1 (j20) + 8 = 19; T j9 1 +
     * j21 3 = 4; U j9 2 + j10-j15 18 + j18 3 + j19 2 = 25; N 1; X 1; R 2;
     * nothing refused by a gate (O B Y) */
    check_codes(run, "lookup_ends", "ATCDUNXROBY", (const int[]){19, 4, 0, 0, 25, 1, 1, 2, 0, 0, 0});
    cr_assert_eq(num(run, "lookups"), 50);
    cr_assert_eq(num(run, "retried_permanent"), 1); /* j8 */
    cr_assert_eq(num(run, "conn_lost"), 1);
    cr_assert_eq(num(run, "conn_failed"), 2);
    cr_assert_eq(num(run, "conn_regained"), 1);
    cr_assert_eq(num(run, "reconnect_wait_over"), 1); /* the 45 ms pause after 2 failed tries */
    /* per second: s1 j0-j9 (9 live, j9 K); s2 j10-j18 (7 stand-ins, j15 and
     * j16 errors); s3 j19 live; s4 j20-j24 (j21 K); s5 j25-j29.  Lookups
     * sent by start (RESULTS.md leaves out the R ones, never sent): s1 11;
     * s2 j9's 2 + j10-j15 18 + j17 1 (its two R left out) + j18 3 = 24; s3
     * j19's first two; s4 1 + 1 + 3 + 3 = 8; s5 5 */
    json_t *ps = json_object_get(run, "per_second");
    cr_assert_eq(json_array_size(ps), 6);
    int wps[6][5] = {{0, 0, 0, 0, 0}, {10, 9, 1, 0, 11}, {9, 0, 7, 2, 24},
                     {1, 1, 0, 0, 2}, {5, 4, 1, 0, 8},   {5, 5, 0, 0, 5}};
    const char *pf[5] = {"arrivals", "live", "standins", "errors", "lookups_sent"};
    for (int s = 0; s < 6; s++)
        for (int f = 0; f < 5; f++)
            cr_assert_eq(num(json_array_get(ps, (size_t)s), pf[f]), wps[s][f], "second %d %s", s, pf[f]);
    /* the arm's statistics over its one round */
    json_t *arm = json_object_get(json_object_get(r, "arms"), "H3-r2-down");
    cr_assert_float_eq(num(json_object_get(arm, "during_lookups_per_request"), "median"), 2.6, 1e-12);
    cr_assert_float_eq(num(json_object_get(arm, "first_live_after_ms"), "max"), 1.5, 1e-9);
    cr_assert_eq(num(json_object_get(arm, "recovered_s"), "min"), 1);
    cr_assert_eq(num(json_object_get(arm, "retried_permanent"), "median"), 1);
    cr_assert_null(json_object_get(arm, "before_requests"), "phase counts are not arm statistics");
    /* the new figures reach verdicts and guesses: the same rows in both arms */
    size_t i;
    json_t *v;
    int seen = 0;
    json_array_foreach(json_object_get(r, "verdicts"), i, v)
    {
        if (strcmp(json_string_value(json_object_get(v, "a")), "H3-r2-down") ||
            strcmp(json_string_value(json_object_get(v, "b")), "H3-fb25-down") ||
            strcmp(json_string_value(json_object_get(v, "figure")), "during_lookups_per_request"))
            continue;
        seen++;
        cr_assert_eq(json_array_size(json_object_get(v, "rounds")), 1);
        cr_assert_float_eq(json_number_value(json_array_get(json_object_get(v, "diffs"), 0)), 0.0, 1e-15);
    }
    cr_assert_eq(seen, 1);
    json_array_foreach(json_object_get(r, "guesses"), i, v)
    {
        const char *id = json_string_value(json_object_get(v, "id"));
        json_t *c = json_object_get(v, "clauses");
        if (!strcmp(id, "G19")) /* r2 2.6 < 2.95; fb25 2.6 > 1.01 */
            cr_assert(json_is_false(json_array_get(c, 0)) && json_is_false(json_array_get(c, 1)));
        if (!strcmp(id, "G22")) /* 7 stand-ins < 0.99 * 10 */
            cr_assert(json_is_false(json_object_get(v, "right")));
        if (!strcmp(id, "G25")) /* first live 1.5 ms <= 20 */
            cr_assert(json_is_true(json_object_get(v, "right")));
    }
    json_decref(r);
}

/* A window to the end of the run (`never`): no "after", no recovery. */
Test(collect, never_window_lasts_to_the_end)
{
    make_down_run("H3-r2-never", 1, 1);
    char out[8192];
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    json_t *r = results(), *run = json_object_get(json_object_get(r, "runs"), "H3-r2-never-r1");
    cr_assert_not_null(run);
    cr_assert_str_eq(json_string_value(json_object_get(run, "fault")), "never");
    cr_assert(json_is_null(json_object_get(run, "win_to_ms")));
    cr_assert(json_is_null(json_object_get(run, "first_live_after_ms")));
    cr_assert(json_is_null(json_object_get(run, "recovered_s")));
    /* before as in the down run; during: j10-j29, 20 requests, 26 + 13 = 39
     * lookups, 1 + 3 unanswered; after: nothing */
    cr_assert_eq(num(run, "before_requests"), 10);
    cr_assert_eq(num(run, "during_requests"), 20);
    cr_assert_eq(num(run, "during_live"), 10);
    cr_assert_eq(num(run, "during_standins"), 8);
    cr_assert_eq(num(run, "during_lookups"), 39);
    cr_assert_eq(num(run, "during_unanswered_lookups"), 4);
    cr_assert_float_eq(num(run, "during_lookups_per_request"), 1.95, 1e-12);
    /* 8 stand-ins of 20; answered: 0.5 ms x 8, 2 ms x 10 (j19, j20, j22-j29),
     * 75.1 ms (j21): h = 0.99 * 18 = 17.82 -> 2 + 0.82 * 73.1 */
    cr_assert_float_eq(num(run, "during_standin_share"), 0.4, 1e-15);
    cr_assert_float_eq(num(run, "during_p99_ms"), 61.942, 1e-9);
    /* busy to the run's end (6 s) for a window without one: j9 1199.55 ms;
     * j19's third, j20 and j22-j29 0.9 ms each (9.0); j21's three 1500,
     * 1200 and, pending at stop, 4055.05 -> 6000 ms: 1944.95; 5853.5 ms
     * over 4000 */
    cr_assert_float_eq(num(run, "store1_during_busy"), 1.463375, 1e-12);
    cr_assert_eq(num(run, "after_requests"), 0);
    cr_assert_eq(num(run, "after_lookups"), 0);
    /* before as in the down run; no second after a window without an end */
    cr_assert_float_eq(num(run, "before_lookups_100ms"), 0.55, 1e-15);
    cr_assert(json_is_null(json_object_get(run, "recovery_lookups_100ms")));
    cr_assert(json_is_null(json_object_get(run, "recovery_lookups_100ms_max")));
    json_decref(r);
}

Test(collect, bad_fault_in_run_json_is_named)
{
    make_down_run("H3-r2-down", 1, 0);
    char out[8192], p[256], dir[200];
    snprintf(dir, sizeof dir, "%s/results/raw/H3-r2-down-r1", ct_root);
    snprintf(p, sizeof p, "%s/run.json", dir);
    struct {
        const char *fault, *says;
    } bad[] = {
        {"", "fault.name"},
        {",\"fault\":{\"name\":\"sideways\"}", "fault.name"},
        {",\"fault\":{\"name\":\"down@0.2-0.5\",\"from_ns\":1,\"to_ns\":2}", "fault.name"},
        {",\"fault\":{\"name\":\"down\",\"window\":null}", "needs from_ns"},
        {",\"fault\":{\"name\":\"down\",\"from_ns\":5,\"to_ns\":5}", "needs from_ns"},
        {",\"fault\":{\"name\":\"flaky\",\"from_ns\":5,\"to_ns\":9}", "has no window"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(p, "w");
        fprintf(f, "{\"arm\":\"H3-r2-down\",\"round\":1,\"seconds\":6,\"t0_ns\":%lld%s}", (long long)T0, bad[i].fault);
        fclose(f);
        record_digests(dir); /* the files' sha256s there: past the digests, to the fault */
        cr_assert_eq(collect(out, sizeof out), 1, "case %zu: %s", i, out);
        cr_assert(strstr(out, "run.json") && strstr(out, bad[i].says), "case %zu: %s", i, out);
    }
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
    snprintf(p, sizeof p, "%s/results/results.json", ct_root);
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
             ct_url);
    cr_assert_eq(sh(cmd), 0);
    unlink(p);
    snprintf(cmd, sizeof cmd,
             "(build/bin/collect --root %s --pgurl '%s' > /dev/null 2>&1 & pid=$!; sleep 0.05; kill -9 $pid; "
             "wait $pid) 2>/dev/null",
             ct_root, ct_url);
    sh(cmd);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert_eq(ut_read_file(p, &b, &nb, out, sizeof out), 0);
    cr_assert(na == nb && !memcmp(a, b, na), "after an interruption: the same results.json");
    free(a);
    free(b);
}

/* Secrets (pipeline/RESULTS.md): collect connects with a password in a URL
 * and then in a connection string (the private cluster trusts every local
 * user, so any password does), and provenance holds neither. */
Test(collect, a_password_in_pgurl_never_reaches_provenance)
{
    make_run("H3-fb25", 1);
    char sock[256], url[2][600], masked[2][600], cmd[1400], out[4096];
    cr_assert_eq(sscanf(ct_url, "host=%255s", sock), 1, "%s", ct_url);
    snprintf(url[0], sizeof url[0], "postgresql://postgres:s3cretpw@/postgres?host=%s", sock);
    snprintf(masked[0], sizeof masked[0], "postgresql://postgres:***@/postgres?host=%s", sock);
    snprintf(url[1], sizeof url[1], "%s password=s3cretpw", ct_url);
    snprintf(masked[1], sizeof masked[1], "%s password=***", ct_url);
    /* and the folder collect ran in is written "." (RESULTS.md, secrets in the records) */
    char cwd[400];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    for (int i = 0; i < 2; i++) {
        char *at = strstr(masked[i], cwd);
        if (at) {
            char rest[600];
            snprintf(rest, sizeof rest, "%s", at + strlen(cwd));
            snprintf(at, sizeof masked[i] - (size_t)(at - masked[i]), ".%s", rest);
        }
    }
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "build/bin/collect --root %s --pgurl '%s' > %s/log 2>&1", ct_root, url[i], ct_root);
        int rc = sh(cmd);
        snprintf(cmd, sizeof cmd, "%s/log", ct_root);
        char *log = NULL;
        size_t n;
        cr_assert_eq(ut_read_file(cmd, &log, &n, out, sizeof out), 0, "%s", out);
        cr_assert_eq(rc, 0, "%s", log);
        free(log);
        snprintf(cmd, sizeof cmd, "grep -rl s3cretpw %s/provenance", ct_root);
        cr_assert_eq(sh(cmd), 1, "a password under %s/provenance", ct_root);
        snprintf(cmd, sizeof cmd, "%s/provenance/stage-collect.json", ct_root);
        json_t *r = json_load_file(cmd, 0, NULL);
        cr_assert_not_null(r, "%s", cmd);
        json_t *argv = json_object_get(r, "argv");
        cr_assert_str_eq(json_string_value(json_array_get(argv, 4)), masked[i]);
        json_decref(r);
    }
}

Test(collect, unreachable_database_is_named_and_nothing_written)
{
    make_run("H3-fb25", 1);
    char cmd[512], out[2048];
    snprintf(cmd, sizeof cmd,
             "build/bin/collect --root %s --pgurl 'host=/nonexistent/socket dbname=lab user=x password=hunter2' 2>&1",
             ct_root);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    cr_assert_eq(WEXITSTATUS(st), 1);
    cr_assert(strstr(out, "cannot reach PostgreSQL") && strstr(out, "/nonexistent/socket"), "%s", out);
    cr_assert_null(strstr(out, "hunter2"), "the password is never printed: %s", out);
    char path[256];
    snprintf(path, sizeof path, "%s/results/results.json", ct_root);
    cr_assert_eq(access(path, F_OK), -1, "nothing written");
}

/* Run folder dir's tester.tsv.gz with a letter in front of line 5's
 * status (a malformed row), and run.json's sha256s written anew
 * (record_digests), as if the lab had written it so. */
static void malform_tester_line5(const char *dir)
{
    char p[256], cmd[2048];
    snprintf(p, sizeof p, "%s/tester.tsv.gz", dir);
    snprintf(cmd, sizeof cmd, "zcat %s | sed '5s/^\\([0-9]*\\)\\t\\([0-9]*\\)\\t/\\1\\t\\2\\tx/' | gzip > %s.new && mv %s.new %s",
             p, p, p, p);
    cr_assert_eq(sh(cmd), 0);
    record_digests(dir);
}

/* Each file is changed and run.json's sha256s written anew (record_digests),
 * as if the lab had written it so: the decoder's refusals, past the digests. */
Test(collect, malformed_row_and_truncated_gzip_load_nothing_of_that_run)
{
    make_run("H3-fb25", 1);
    char out[8192], cmd[2048], p[256], dir[200];
    snprintf(dir, sizeof dir, "%s/results/raw/H3-fb25-r1", ct_root);
    /* a malformed row: a letter in front of line 5's status */
    malform_tester_line5(dir);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "tester.tsv.gz:5:") && strstr(out, "status"), "%s", out);
    cr_assert(strstr(out, "nothing of this run") || !strstr(out, "loaded H3-fb25-r1"), "%s", out);
    snprintf(cmd, sizeof cmd, "psql -tA '%s' -c 'SELECT count(*) FROM requests' 2>/dev/null", ct_url);
    FILE *q = popen(cmd, "r");
    char c[32] = "";
    cr_assert_not_null(fgets(c, sizeof c, q));
    pclose(q);
    cr_assert_eq(atoi(c), 0, "no row of that run was loaded");
    /* a truncated gzip stream */
    make_run("H3-fb25", 1);
    snprintf(p, sizeof p, "%s/results/raw/H3-fb25-r1/store.tsv.gz", ct_root);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(truncate(p, sb.st_size - 12), 0);
    record_digests(dir);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "store.tsv.gz") && strstr(out, "truncated"), "%s", out);
    /* an integer beyond 64 bits (the request id of line 3) */
    make_run("H3-fb25", 1);
    snprintf(cmd, sizeof cmd, "zcat %s | sed '3s/^0\\t/99999999999999999999\\t/' | gzip > %s.new && mv %s.new %s", p,
             p, p, p);
    cr_assert_eq(sh(cmd), 0);
    record_digests(dir);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "store.tsv.gz:3:") && strstr(out, "req") && strstr(out, "overflow"), "%s", out);
}

/* Three runs loaded two at a time over two connections (collectload_all):
 * the second refused while its files are read, the first is loaded, the
 * third never read (the reader stops at the refusal), and the error names
 * the second's file and line, as one at a time.  Made good again, the rerun
 * loads the two left and skips the first. */
Test(collect, a_bad_run_between_two_stops_the_loading_there)
{
    make_run("H3-fb25", 1);
    make_run("H3-fb25", 2);
    make_run("H3-fb25", 3);
    char out[8192], dir[200];
    snprintf(dir, sizeof dir, "%s/results/raw/H3-fb25-r2", ct_root);
    malform_tester_line5(dir);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "H3-fb25-r2/tester.tsv.gz:5:") && strstr(out, "status"), "%s", out);
    cr_assert(strstr(out, "collect: loaded H3-fb25-r1:"), "%s", out);
    cr_assert_null(strstr(out, "collect: loaded H3-fb25-r3"), "%s", out);
    cr_assert_eq(psql_num("SELECT count(*) FROM runs"), 1);
    cr_assert_eq(psql_num("SELECT count(*) FROM runs WHERE run = 'H3-fb25-r1'"), 1);
    cr_assert_eq(psql_num("SELECT count(DISTINCT run) FROM requests"), 1);
    make_run("H3-fb25", 2);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "(2 loaded now)"), "%s", out);
    cr_assert_eq(psql_num("SELECT count(*) FROM runs"), 3);
    cr_assert_eq(psql_num("SELECT count(*) FROM requests"), 15);
}

/* A file's whole text (malloc'd). */
static char *file_text(const char *path)
{
    char *b = NULL, err[UT_ERRLEN];
    size_t n;
    cr_assert_eq(ut_read_file(path, &b, &n, err, sizeof err), 0, "%s", err);
    return b;
}

/* sha256 and size of a file, for the messages the digest check gives. */
static void digest(const char *path, char sha[65], uint64_t *size)
{
    char err[UT_ERRLEN];
    cr_assert_eq(ut_sha256_file(path, sha, size, err, sizeof err), 0, "%s", err);
}

/* A raw file changed by one value and gzipped again, run.json left as the
 * lab wrote it (issue 31, part 3): collect refuses before the database is
 * touched, naming the file and both digests; the run loaded before and
 * results.json stay as they were, byte for byte.  The same file with
 * run.json's sha256s written anew is loaded: the digests were what refused it. */
Test(collect, a_raw_file_changed_and_gzipped_again_is_refused_naming_it)
{
    make_run("H3-fb25", 1);
    char out[8192], p[256], res[256], dir[200], cmd[2048], want[1200], was[65], now[65];
    uint64_t size;
    snprintf(dir, sizeof dir, "%s/results/raw/H3-fb25-r1", ct_root);
    snprintf(res, sizeof res, "%s/results/results.json", ct_root);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    char *before = file_text(res);
    long long fp_rows = psql_num("SELECT count(*) FROM runs WHERE run = 'H3-fb25-r1'");
    cr_assert_eq(fp_rows, 1);
    snprintf(p, sizeof p, "%s/tester.tsv.gz", dir);
    digest(p, was, &size);
    /* the first request's answer_us with a 9 in front: a value that decodes */
    snprintf(cmd, sizeof cmd,
             "zcat %s | sed '3s/^\\([0-9]*\\)\\t\\([0-9]*\\)\\t/\\1\\t9\\2\\t/' | gzip > %s.new && mv %s.new %s", p, p,
             p, p);
    cr_assert_eq(sh(cmd), 0);
    digest(p, now, &size);
    cr_assert_str_neq(now, was);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    snprintf(want, sizeof want, "%s: sha256 %s (%llu bytes), but run.json records %s (", p, now,
             (unsigned long long)size, was);
    cr_assert(strstr(out, want), "no \"%s\" in: %s", want, out);
    cr_assert(strstr(out, "not the file measured") && strstr(out, "nothing was loaded"), "%s", out);
    cr_assert_null(strstr(out, "collect: loaded"), "%s", out);
    char *after = file_text(res);
    cr_assert_str_eq(after, before, "results.json changed by a refused collect");
    free(after);
    /* the run's rows as they were: the old fingerprint, the old answer */
    cr_assert_eq(psql_num("SELECT count(*) FROM runs WHERE run = 'H3-fb25-r1'"), 1);
    cr_assert_eq(psql_num("SELECT count(*) FROM requests WHERE run = 'H3-fb25-r1'"), 5);
    /* autovacuum never comes by the raw tables (schema.sql), and a plain
     * load deletes nothing, so collect vacuumed nothing */
    cr_assert_eq(psql_num("SELECT count(*) FROM pg_class WHERE relname IN ('runs', 'requests', 'service_requests', "
                          "'lookups', 'machine', 'events', 'syslog') AND reloptions = '{autovacuum_enabled=false}'"),
                 7);
    cr_assert_eq(psql_num("SELECT vacuum_count + autovacuum_count FROM pg_stat_user_tables WHERE relname = 'requests'"),
                 0);
    long long answers = psql_num("SELECT sum(answer_ns) FROM requests");
    /* the same bytes recorded as measured: loaded, and the figures move */
    record_digests(dir);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "collect: loaded H3-fb25-r1"), "%s", out);
    /* its old rows deleted, the new ones in (the first answer_us now with
     * a 9 in front: later), and the table vacuumed by collect: rows were deleted */
    cr_assert_eq(psql_num("SELECT count(*) FROM requests WHERE run = 'H3-fb25-r1'"), 5);
    cr_assert_gt(psql_num("SELECT sum(answer_ns) FROM requests"), answers);
    cr_assert_eq(psql_num("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'requests'"), 1);
    after = file_text(res);
    cr_assert_str_neq(after, before, "the changed answer_us changes results.json");
    free(after);
    free(before);
}

/* provenance/manifest-measure.tsv lines for run.json and the event files
 * of the folder results/raw/H3-fb25-r1, leaving out the file `skip`. */
static void write_manifest(const char *skip)
{
    static const char *const F[] = {"events.tsv.gz", "machine.tsv.gz", "run.json", "service.tsv.gz",
                                    "store.tsv.gz", "tester.tsv.gz"};
    char p[256], err[UT_ERRLEN];
    snprintf(p, sizeof p, "%s/provenance", ct_root);
    cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0, "%s", err);
    snprintf(p, sizeof p, "%s/provenance/manifest-measure.tsv", ct_root);
    FILE *m = fopen(p, "w");
    cr_assert_not_null(m);
    fprintf(m, "path\tsize\tsha256\n");
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
        if (skip && !strcmp(skip, F[i]))
            continue;
        char f[300], sha[65];
        uint64_t size;
        snprintf(f, sizeof f, "%s/results/raw/H3-fb25-r1/%s", ct_root, F[i]);
        digest(f, sha, &size);
        fprintf(m, "results/raw/H3-fb25-r1/%s\t%llu\t%s\n", F[i], (unsigned long long)size, sha);
    }
    fclose(m);
}

/* The measure manifest holds run.json and every event file too: a file
 * changed and run.json's sha256s written to match is still refused, naming
 * the manifest's line; a file the manifest lacks is refused. */
Test(collect, the_measure_manifest_is_held_to_before_loading)
{
    make_run("H3-fb25", 1);
    char out[8192], p[256], dir[200], cmd[2048], want[1200], was[65], now[65];
    uint64_t size, was_size;
    snprintf(dir, sizeof dir, "%s/results/raw/H3-fb25-r1", ct_root);
    write_manifest(NULL);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    /* service.tsv.gz changed, run.json's sha256s written anew to match it */
    snprintf(p, sizeof p, "%s/run.json", dir);
    digest(p, was, &was_size);
    snprintf(p, sizeof p, "%s/service.tsv.gz", dir);
    snprintf(cmd, sizeof cmd, "zcat %s | sed '3s/\\t200\\t/\\t504\\t/' | gzip > %s.new && mv %s.new %s", p, p, p, p);
    cr_assert_eq(sh(cmd), 0);
    record_digests(dir);
    snprintf(p, sizeof p, "%s/run.json", dir);
    digest(p, now, &size);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    /* run.json is line 4 of the manifest (events, machine, run.json ...) */
    snprintf(want, sizeof want, "%s: sha256 %s (%llu bytes), but %s/provenance/manifest-measure.tsv:4 records %s (%llu bytes)",
             p, now, (unsigned long long)size, ct_root, was, (unsigned long long)was_size);
    cr_assert(strstr(out, want), "no \"%s\" in: %s", want, out);
    /* run.json put back in the manifest: the service file's line named */
    snprintf(cmd, sizeof cmd, "cp %s/provenance/manifest-measure.tsv %s/m.old", ct_root, ct_root);
    cr_assert_eq(sh(cmd), 0);
    write_manifest(NULL);
    snprintf(cmd, sizeof cmd, "grep -v '^results/raw/H3-fb25-r1/service' %s/provenance/manifest-measure.tsv > %s/m.new && "
             "grep '^results/raw/H3-fb25-r1/service' %s/m.old >> %s/m.new && mv %s/m.new %s/provenance/manifest-measure.tsv",
             ct_root, ct_root, ct_root, ct_root, ct_root, ct_root);
    cr_assert_eq(sh(cmd), 0);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    snprintf(want, sizeof want, "%s/service.tsv.gz: sha256 ", dir);
    cr_assert(strstr(out, want) && strstr(out, "manifest-measure.tsv:7 records "), "%s", out);
    /* a file the manifest lacks */
    write_manifest("store.tsv.gz");
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    snprintf(want, sizeof want, "%s/store.tsv.gz: not in %s/provenance/manifest-measure.tsv", dir, ct_root);
    cr_assert(strstr(out, want), "no \"%s\" in: %s", want, out);
    /* the whole manifest as it is now: loaded */
    write_manifest(NULL);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "collect: loaded H3-fb25-r1"), "%s", out);
}

/* The reference the "=" scores decode by (results/reference/, measure's
 * copy) is held to the manifest too: a changed byte refused, naming it. */
Test(collect, the_reference_is_held_to_the_manifest)
{
    make_run("H3-fb25", 1);
    char out[8192], p[256], err[UT_ERRLEN], sha[65], want[1200];
    uint64_t size;
    snprintf(p, sizeof p, "%s/results/reference", ct_root);
    cr_assert_eq(ut_mkdir_p(p, err, sizeof err), 0, "%s", err);
    snprintf(p, sizeof p, "%s/results/reference/summary.json", ct_root);
    const char *text = "{\"test_rows\": 5}\n";
    cr_assert_eq(ut_write_file(p, text, strlen(text), err, sizeof err), 0, "%s", err);
    digest(p, sha, &size);
    write_manifest(NULL);
    char m[256];
    snprintf(m, sizeof m, "%s/provenance/manifest-measure.tsv", ct_root);
    FILE *f = fopen(m, "a");
    cr_assert_not_null(f);
    fprintf(f, "results/reference/summary.json\t%llu\t%s\n", (unsigned long long)size, sha);
    fclose(f);
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    text = "{\"test_rows\": 6}\n";
    cr_assert_eq(ut_write_file(p, text, strlen(text), err, sizeof err), 0, "%s", err);
    char now[65];
    digest(p, now, &size);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    snprintf(want, sizeof want, "%s: sha256 %s (%llu bytes), but %s:8 records %s (", p, now, (unsigned long long)size,
             m, sha);
    cr_assert(strstr(out, want), "no \"%s\" in: %s", want, out);
}

/* run.json without `files`: nothing to hold the raw files to, refused. */
Test(collect, a_run_json_without_files_is_refused)
{
    make_run("H3-fb25", 1);
    char out[8192], cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s/results/raw/H3-fb25-r1 && jq -c 'del(.files)' run.json > r.new && mv r.new run.json", ct_root);
    cr_assert_eq(sh(cmd), 0);
    cr_assert_eq(collect(out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "H3-fb25-r1/run.json: files: missing"), "%s", out);
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

/* src copied to dst with a comment line before the header, and a comment
 * line and an empty line after every line (tests of the one TSV grammar). */
static void commented_copy(const char *src, const char *dst)
{
    char *text = NULL, err[UT_ERRLEN];
    size_t n;
    cr_assert_eq(ut_read_file(src, &text, &n, err, sizeof err), 0, "%s", err);
    FILE *f = fopen(dst, "w");
    cr_assert_not_null(f);
    fprintf(f, "# %s, commented\n", src);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        fprintf(f, "%s\n# a comment\tafter it\n\n", line);
    fclose(f);
    free(text);
}

/* The comment lines ("#") and empty lines of comparisons.tsv, guesses.tsv and quiet.tsv
 * mean nothing to collect, as to the prediction (lab/core/cmptab.h and
 * lab/base/tsv.h, the one reader of each): the same results.json byte for
 * byte; a malformed line is refused naming the file and the line. */
Test(collect, comment_lines_in_comparisons_and_guesses_mean_nothing)
{
    make_run("H3-fb25", 1);
    make_run("H3-t25", 1);
    char out[8192], p[256], *a, *b, pipe[96], data[96], path[300], extra[256], err[UT_ERRLEN];
    size_t na, nb;
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    snprintf(p, sizeof p, "%s/results/results.json", ct_root);
    cr_assert_eq(ut_read_file(p, &a, &na, out, sizeof out), 0);
    snprintf(pipe, sizeof pipe, "%s/pipe", ct_root);
    snprintf(data, sizeof data, "%s/data", ct_root);
    cr_assert_eq(ut_mkdir_p(data, err, sizeof err), 0, "%s", err);
    const char *const link[][2] = {{"pipeline/collect/schema.sql", "collect/schema.sql"},
                                   {"pipeline/collect/stats.sql", "collect/stats.sql"},
                                   {"pipeline/collect/stats_side.sql", "collect/stats_side.sql"}};
    link_files(pipe, link, 3);
    snprintf(path, sizeof path, "%s/comparisons.tsv", pipe);
    commented_copy("pipeline/comparisons.tsv", path);
    snprintf(path, sizeof path, "%s/guesses.tsv", data);
    commented_copy("data/guesses.tsv", path);
    snprintf(path, sizeof path, "%s/quiet.tsv", data);
    commented_copy("data/quiet.tsv", path);
    snprintf(extra, sizeof extra, "--pipeline %s --data %s", pipe, data);
    cr_assert_eq(collect_with(extra, out, sizeof out), 0, "%s", out);
    cr_assert_eq(ut_read_file(p, &b, &nb, out, sizeof out), 0);
    cr_assert(na == nb && !memcmp(a, b, na), "the comment lines changed results.json");
    free(a);
    free(b);

    const struct {
        const char *file, *text, *says;
    } bad[] = {
        {"comparisons.tsv", "# c\na\tb\tfigure\tnote\n# c\nH3-t25\tH3-fb25\n", "comparisons.tsv:4: 2 fields, expected 4"},
        {"comparisons.tsv", "a\tb\tfigure\n", "comparisons.tsv:1: the header must be"},
        {"guesses.tsv", "id\tguess\tpredicate\n#\nG1\tall\tevery H3-t25.p99_ms < 5\textra\n",
         "guesses.tsv:3: more than 3 fields, expected 3"},
        {"guesses.tsv", "id\tguess\tpredicate\n\n# c\nG1\tall\tevery H3-t25.p99_ms < five\n",
         "guesses.tsv:4: guess G1, clause 1: \"five\" is not a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", bad[i].file[0] == 'c' ? pipe : data, bad[i].file);
        char keep[320];
        snprintf(keep, sizeof keep, "%s.keep", path);
        cr_assert_eq(rename(path, keep), 0);
        cr_assert_eq(ut_write_file(path, bad[i].text, strlen(bad[i].text), err, sizeof err), 0, "%s", err);
        cr_assert_neq(collect_with(extra, out, sizeof out), 0, "case %zu: %s", i, out);
        cr_assert(strstr(out, bad[i].says), "case %zu: %s", i, out);
        cr_assert_eq(rename(keep, path), 0);
    }
}

/* stats_side.sql runs on collect's second connection while stats.sql runs
 * on the first (pipeline/collect/collect.c): a statement of it that fails
 * (here its last, after every table of its own was computed) is named, its
 * file and PostgreSQL's message, and a stats.sql without the line where
 * collect waits for it is refused naming that line; each exits 1 and
 * leaves results.json as the collect before wrote it, byte for byte, and a
 * collect with the real files then writes it again the same. */
Test(collect, a_failing_side_or_no_join_line_writes_nothing)
{
    make_run("H3-t25", 1);
    char out[8192], p[256], pipe[96], path[300], err[UT_ERRLEN], extra[128];
    char *a, *stats, *side;
    size_t na, nstats, nside;
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    snprintf(p, sizeof p, "%s/results/results.json", ct_root);
    cr_assert_eq(ut_read_file(p, &a, &na, out, sizeof out), 0);
    snprintf(pipe, sizeof pipe, "%s/pipe", ct_root);
    const char *const link[][2] = {{"pipeline/collect/schema.sql", "collect/schema.sql"},
                                   {"pipeline/comparisons.tsv", "comparisons.tsv"}};
    link_files(pipe, link, 2);
    cr_assert_eq(ut_read_file("pipeline/collect/stats.sql", &stats, &nstats, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ut_read_file("pipeline/collect/stats_side.sql", &side, &nside, err, sizeof err), 0, "%s", err);
    const char *join = "\n-- collect: stats_side.sql is done here\n", *commit = "\nCOMMIT;\n";
    char *at_join = strstr(stats, join), *at_commit = strstr(side, commit);
    cr_assert(at_join && at_commit, "stats.sql's join line or stats_side.sql's last COMMIT is not there");
    snprintf(extra, sizeof extra, "--pipeline %s", pipe);
    for (int c = 0; c < 2; c++) {
        char *s1 = malloc(nstats + 1), *s2 = malloc(nside + 64);
        size_t n1, n2;
        if (c == 0) { /* stats_side.sql fails at its end */
            memcpy(s1, stats, nstats);
            n1 = nstats;
            size_t k = (size_t)(at_commit - side);
            n2 = (size_t)sprintf(s2, "%.*s\nSELECT 1 / 0;%s", (int)k, side, at_commit);
        } else { /* stats.sql without its join line */
            size_t k = (size_t)(at_join - stats);
            n1 = (size_t)sprintf(s1, "%.*s\n%s", (int)k, stats, at_join + strlen(join));
            memcpy(s2, side, nside);
            n2 = nside;
        }
        snprintf(path, sizeof path, "%s/collect/stats.sql", pipe);
        cr_assert_eq(ut_write_file(path, s1, n1, err, sizeof err), 0, "%s", err);
        snprintf(path, sizeof path, "%s/collect/stats_side.sql", pipe);
        cr_assert_eq(ut_write_file(path, s2, n2, err, sizeof err), 0, "%s", err);
        free(s1);
        free(s2);
        cr_assert_eq(collect_with(extra, out, sizeof out), 1, "case %d: %s", c, out);
        if (c == 0)
            cr_assert(strstr(out, "/collect/stats_side.sql: database: ERROR: division by zero"), "%s", out);
        else
            cr_assert(strstr(out, "/collect/stats.sql: no line \"-- collect: stats_side.sql is done here\""), "%s",
                      out);
        same_bytes(p, a, na, c == 0 ? "stats_side.sql failing" : "no join line");
    }
    cr_assert_eq(collect(out, sizeof out), 0, "%s", out);
    same_bytes(p, a, na, "the collect after them");
    free(a);
    free(stats);
    free(side);
}
