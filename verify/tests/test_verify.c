/* End-to-end tests of build/verify on a tiny synthetic study:
 * 2 arms x 2 rounds.  Arm H3-t25 has hand-made rows whose figures are
 * computed by hand below; arm H3-fb25 has a few dozen random rows.
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

/* reference: 10 rows; rows 6 and 7 were new a month earlier */
static void hand_ref(syn_ref *ref)
{
    static const char *score[10] = {"0.1", "0.15", "0.2", "0.25", "0.3", "0.35", "0.4", "0.45", "0.5", "0.55"};
    static const char *lk[10] = {"0.2", "0.21", "0.22", "0.23", "0.24", "0.25", "0.272524476", "0.272524476", "0.28", "0.29"};
    ref->rows = 10;
    ref->score = vu_xmalloc(10 * sizeof(float));
    ref->last_known = vu_xmalloc(10 * sizeof(float));
    ref->default_score = strtof("0.272524476", NULL);
    for (int i = 0; i < 10; i++) {
        ref->score[i] = strtof(score[i], NULL);
        ref->last_known[i] = strtof(lk[i], NULL);
    }
}

/* H3-t25, 12 requests 0.1 s apart over 2 s (see the figures in hand_checks),
 * a closed-loop run (rate 0: times of the test's choosing have no schedule
 * to meet, RAWFORMAT.md), its planned waits from the dice:
 *   sched_j = send_j = t0 + j * 0.1 s + 1000 ns
 *   answered j = 0..9: latency (j+1) ms + j ns (+ extra); j = 3 K, j = 6 D, others L
 *   j = 10: 504 after 25,000,010 ns (+ extra), kind E; j = 11: no answer
 *   store: j = 0..9 one lookup, slot 0.5 ms; j = 10 attempt 0 pending at stop
 *   (slot from sched + 0.2 ms to the end), attempt 1 dropped in line after 5 ms
 *   machine: 3 readings (the third while the tester waits for j = 11), ticks
 *   (total, idle, steal): A (200, 180, 1) (200, 190, 0) (200, 196, 2),
 *   M (100, 85, 0) (100, 95, 0) (100, 99, 0); lab 10, 8, 1 (on both rows) */
static void hand_run(syn_run *r, const syn_ref *ref, int round, long long extra)
{
    memset(r, 0, sizeof *r);
    snprintf(r->arm, sizeof r->arm, "H3-t25");
    r->round = round;
    r->seconds = 2.0;
    r->rate = 10;
    r->t0 = 1000000000000LL + round * 100000000000LL;
    r->test_rows = 10;
    /* wait Z: W = 0, so an A row's end_us is its slot (format 4 writes it
     * after start_t + W) and every time below is a whole µs after its base */
    r->wait = 'Z';
    r->t = vu_xcalloc(12, sizeof *r->t);
    r->v = vu_xcalloc(12, sizeof *r->v);
    r->s = vu_xcalloc(12, sizeof *r->s);
    for (int j = 0; j < 12; j++) {
        syn_trow *t = &r->t[r->nt++];
        t->j = j;
        t->row = j % 10;
        t->sched = r->t0 + j * 100000000LL + 1000;
        t->send = t->sched + (j + 1) * 10000LL;
        t->conn = j % 4;
        if (j < 10) {
            t->has_answer = 1;
            t->answer = t->sched + (j + 1) * 1000000LL + j * 1000LL + extra;
            t->status = 200;
            t->kind = j == 3 ? 'K' : j == 6 ? 'D' : 'L';
            t->score = j == 3 ? ref->last_known[3] : j == 6 ? ref->default_score : ref->score[j];
            t->has_score = 1;
        } else if (j == 10) {
            t->has_answer = 1;
            t->answer = t->sched + 25010000LL + extra;
            t->status = 504;
            t->kind = 'E';
        } else {
            t->status = 0;
            t->kind = 'E';
        }
        if (j > 10)
            continue;
        syn_vrow *v = &r->v[r->nv++];
        v->req = j;
        v->row = t->row;
        v->has_req = v->has_row = 1;
        v->arrive = t->sched + 180000;
        v->a_has[0] = 1;
        v->a_start[0] = t->sched + 190000;
        v->lookups = 1;
        if (j < 10) {
            v->a_end[0] = t->sched + 705000;
            v->a_out[0] = 'A';
            v->answer = t->sched + 800000;
            v->status = 200;
            v->kind = t->kind;
            syn_srow *s = &r->s[r->ns++];
            s->req = j;
            s->row = t->row;
            s->arrive = t->sched + 200000;
            s->has_start = 1;
            s->start = s->arrive;
            s->has_end = 1;
            s->end = s->start + 500000;
            s->planned = 500000;
            s->outcome = 'A';
            s->busy = 1;
        } else {
            v->a_end[0] = t->sched + 19190000;
            v->a_out[0] = 'T';
            v->a_has[1] = 1;
            v->a_start[1] = t->sched + 20000000;
            v->a_end[1] = t->sched + 25010000;
            v->a_out[1] = 'D';
            v->lookups = 2;
            v->answer = t->sched + 25000000;
            v->status = 504;
            v->kind = 'E';
        }
    }
    static const long long mach[6][4] = {{200, 180, 1, 10}, {100, 85, 0, 10}, {200, 190, 0, 8},
                                         {100, 95, 0, 8},    {200, 196, 2, 1}, {100, 99, 0, 1}};
    r->m = vu_xcalloc(6, sizeof *r->m);
    for (int i = 0; i < 6; i++)
        r->m[r->nm++] = (syn_mrow){r->t0 + (i / 2 + 1) * 1000000000LL, i % 2 ? 'M' : 'A', mach[i][0], mach[i][1],
                                   mach[i][2], mach[i][3]};
    /* j = 10: dropped retry (ends first), then the pending first try */
    long long s10 = r->t[10].sched;
    syn_srow *d = &r->s[r->ns++];
    d->req = 10;
    d->attempt = 1;
    d->row = 0;
    d->arrive = s10 + 20010000;
    d->has_end = 1;
    d->end = d->arrive + 5000000;
    d->planned = 3000000;
    d->budget = 5000000;
    d->outcome = 'D';
    d->line = 3;
    d->busy = 16;
    syn_srow *p = &r->s[r->ns++];
    p->req = 10;
    p->row = 0;
    p->arrive = s10 + 200000;
    p->has_start = 1;
    p->start = p->arrive;
    p->planned = 1500000000;
    p->outcome = 'P';
    p->busy = 0;
    syn_closed_loop(r);
    syn_draw_waits(r);
}

static const char *COMPARISONS =
    "a\tb\tfigure\tnote\n"
    "H3-t25\tH3-fb25\tp99_ms\tan error against a stand-in\n"
    "H3-t25\tH3-fb25\terror_share\tthe stand-in turns timeouts into answers\n"
    "H3-t25\tH3-t25\tn\tan arm against itself: too close to call\n";

static const char *GUESSES =
    "id\tguess\tpredicate\n"
    "G1\tTwelve requests in every round.\tevery H3-t25.n >= 12\n"
    "G2\tThe median p99 is just above 24 ms.\tmedian H3-t25.p99_ms > 24 and median H3-t25.p99_ms < 24.1\n"
    "G3\tMore than 20% errors in some round.\tany H3-t25.error_share > 0.2\n"
    "G4\tAn arm against itself.\tclose H3-t25 H3-t25 n and apart H3-t25 H3-t25 n\n"
    "G5\tA term on the right.\tevery H3-t25.late_max_us <= 1 * H3-t25.late_max_us\n"
    "G6\tAn arm without runs.\tevery X9-none.n > 0\n";

static char *g_root;

/* the whole study, with results.json made from the verifier's own output
 * (the figures of H3-t25 are then checked against the hand values) */
static void build_study(const char *root, long long tamper_ns)
{
    syn_ref ref;
    hand_ref(&ref);
    cr_assert_eq(syn_write_reference(root, &ref), 0);
    syn_run r;
    hand_run(&r, &ref, 1, 0);
    if (tamper_ns)
        r.t[9].answer += tamper_ns;
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    hand_run(&r, &ref, 2, 1000000);
    cr_assert_eq(syn_write_run(root, &r, 6), 0);
    syn_free_run(&r);
    for (int round = 1; round <= 2; round++) {
        syn_gen_run(&r, "H3-fb25", round, 2.0, 20.0, 77 + (unsigned long long)round, &ref,
                    2000000000000LL + round * 100000000000LL);
        cr_assert_eq(syn_write_run(root, &r, 6), 0);
        syn_free_run(&r);
    }
    syn_free_ref(&ref);
    char *p = vu_xasprintf("%s/pipeline", root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/data", root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/pipeline/comparisons.tsv", root);
    syn_write_text(p, COMPARISONS);
    free(p);
    p = vu_xasprintf("%s/data/guesses.tsv", root);
    syn_write_text(p, GUESSES);
    free(p);
    cr_assert_eq(syn_write_quiet(root, NULL), 0);
    cr_assert_eq(syn_write_manifest(root), 0);
    /* G6's arm: registered (a guess may name only a registered arm), without runs */
    ts_add_arm(root, "X9-none", "H3-t25");
}

/* results.json <- verified.json minus the verifier's own members */
static void results_from_verified(const char *root)
{
    char *vp = vu_xasprintf("%s/results/verified.json", root);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    vj_node *o = vj_new_obj();
    for (size_t i = 0; i < v->n; i++) {
        const char *k = v->keys[i];
        if (!strcmp(k, "runs") || !strcmp(k, "arms") || !strcmp(k, "verdicts") || !strcmp(k, "guesses") ||
            !strcmp(k, "odds") || !strcmp(k, "verdict_family") || !strcmp(k, "attempts")) {
            vj_obj_set(o, k, v->items[i]);
            v->items[i] = vj_new_null();
        }
    }
    vj_obj_set(o, "format", vj_new_str("lab-results 1"));
    vu_buf b = {0};
    vj_write(o, &b);
    char *rp = vu_xasprintf("%s/results/results.json", root);
    cr_assert_eq(syn_write_text(rp, b.p), 0);
    vu_buf_free(&b);
    vj_free(o);
    vj_free(v);
    free(vp);
    free(rp);
}

static void write_stub_results(const char *root)
{
    char *rp = vu_xasprintf("%s/results/results.json", root);
    syn_write_text(rp, "{\"format\": \"lab-results 1\", \"runs\": {}, \"arms\": {}, \"verdicts\": [], \"guesses\": []}\n");
    free(rp);
}

static void make_good_study(const char *root)
{
    build_study(root, 0);
    write_stub_results(root);
    char *out;
    const char *a[] = {"--root", root, "--no-scan", NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 1, "the stub results.json must mismatch:\n%s", out);
    free(out);
    results_from_verified(root);
}

static void setup(void)
{
    g_root = th_tmpdir();
    cr_assert(g_root);
}

static void teardown(void)
{
    th_rmrf(g_root);
    free(g_root);
}

static double num_at(const vj_node *root, const char *a, const char *b, const char *c)
{
    const vj_node *n = vj_get(vj_get(root, a), b);
    if (c)
        n = vj_get(n, c);
    cr_assert(n && n->type == VJ_NUM, "%s.%s.%s is not a number", a, b, c ? c : "");
    return n->num;
}

#define NEAR(x, y) cr_expect(fabs((x) - (y)) < 1e-9, "%s = %.12g, expected %.12g", #x, (double)(x), (double)(y))

Test(study, passes_and_matches_hand_values, .init = setup, .fini = teardown, .timeout = 60)
{
    make_good_study(g_root);
    char *out;
    const char *a[] = {"--root", g_root, NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 0, "verify must pass on a good study:\n%s", out);
    cr_assert(strstr(out, "\n0 MISMATCHES\n"), "%s", out);
    cr_assert(strstr(out, "0 FINDINGS"), "%s", out);
    free(out);

    char *vp = vu_xasprintf("%s/results/verified.json", g_root);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    free(vp);
    cr_expect_eq(vj_get(v, "mismatches")->i, 0);
    cr_expect_eq(vj_get(v, "ok")->b, 1);
    const char *R = "H3-t25-r1";
    vj_node *runs = vj_get(v, "runs");
    /* counts: 12 requests, 11 answered (j = 11 never), kinds 8 L, 1 K, 1 D, 2 E */
    NEAR(num_at(runs, R, "n", NULL), 12);
    NEAR(num_at(runs, R, "answered", NULL), 11);
    NEAR(num_at(runs, R, "live", NULL), 8);
    NEAR(num_at(runs, R, "last_known", NULL), 1);
    NEAR(num_at(runs, R, "default", NULL), 1);
    NEAR(num_at(runs, R, "error", NULL), 2);
    /* latencies (µs: format 4's unit), sorted: 1000, 2001, ..., 10009, 25010 (n = 11)
     * p50: h = 10 * 0.5 = 5 -> v[5] = 6005 µs
     * p90: h = 9 -> v[9] = 10009 µs
     * p99: h = 9.9 -> 10009 + 0.9 * (25010 - 10009) = 23509.9 µs
     * p999: h = 9.99 -> 10009 + 0.99 * 15001 = 24859.99 µs */
    NEAR(num_at(runs, R, "p50_ms", NULL), 6.005);
    NEAR(num_at(runs, R, "p90_ms", NULL), 10.009);
    NEAR(num_at(runs, R, "p99_ms", NULL), 23.5099);
    NEAR(num_at(runs, R, "p999_ms", NULL), 24.85999);
    NEAR(num_at(runs, R, "max_ms", NULL), 25.01);
    NEAR(num_at(runs, R, "live_share", NULL), 8.0 / 12);
    NEAR(num_at(runs, R, "standin_share", NULL), 2.0 / 12);
    NEAR(num_at(runs, R, "error_share", NULL), 2.0 / 12);
    /* store: 12 lookups; 10 slots of 0.5 ms with an end; 1 dropped, 1 pending */
    NEAR(num_at(runs, R, "lookups", NULL), 12);
    NEAR(num_at(runs, R, "lookups_per_request", NULL), 1);
    NEAR(num_at(runs, R, "slot_ms_total", NULL), 5);
    NEAR(num_at(runs, R, "slot_ms_per_lookup", NULL), 5.0 / 12);
    NEAR(num_at(runs, R, "slot_ms_per_request", NULL), 5.0 / 12);
    NEAR(num_at(runs, R, "cut_short", NULL), 1);
    NEAR(num_at(runs, R, "pending_at_stop", NULL), 1);
    /* a closed-loop run is never late */
    NEAR(num_at(runs, R, "late_p50_us", NULL), 0);
    NEAR(num_at(runs, R, "late_p99_us", NULL), 0);
    NEAR(num_at(runs, R, "late_max_us", NULL), 0);
    /* 10 answers with status 200 over 2 s */
    NEAR(num_at(runs, R, "answers_per_s", NULL), 5);
    /* per second: s = 0 holds j = 0..9, s = 1 holds j = 10, 11
     * busy: s0 10 x 0.5 ms = 0.005; s1 the pending slot from 1000 + 200000 ns
     * into the second to its end: (1e9 - 201000) / 1e9 = 0.999799
     * line: s1 the dropped retry, 5 ms = 0.005 */
    vj_node *ps = vj_get(vj_get(runs, R), "per_second");
    cr_assert_eq(ps->n, 2);
    NEAR(vj_get(ps->items[0], "arrivals")->num, 10);
    NEAR(vj_get(ps->items[0], "standins")->num, 2);
    NEAR(vj_get(ps->items[0], "lookups_sent")->num, 10);
    NEAR(vj_get(ps->items[0], "busy_slots")->num, 0.005);
    NEAR(vj_get(ps->items[0], "line_length")->num, 0);
    NEAR(vj_get(ps->items[1], "arrivals")->num, 2);
    NEAR(vj_get(ps->items[1], "standins")->num, 0);
    NEAR(vj_get(ps->items[1], "lookups_sent")->num, 2);
    NEAR(vj_get(ps->items[1], "busy_slots")->num, 0.999799);
    NEAR(vj_get(ps->items[1], "line_length")->num, 0.005);
    /* the machine: steal 3 of 600 ticks, exactly the limit 0.005 (not over
     * it: quiet); the worst second 2 / 200; the other core idle
     * (566 - 279) / (600 - 300).  Per second: steal of readings 1 and 2
     * (the third is past the 2 s), lateness of j = 0..9 and of j = 10, 11 */
    NEAR(num_at(runs, R, "steal_share", NULL), 0.005);
    NEAR(num_at(runs, R, "steal_second_max", NULL), 0.01);
    NEAR(num_at(runs, R, "other_idle_share", NULL), 287.0 / 300);
    cr_expect_eq(vj_get(vj_get(runs, R), "quiet")->b, 1);
    cr_expect_eq(vj_get(vj_get(runs, R), "quiet_rules")->n, 0);
    NEAR(vj_get(ps->items[0], "steal_share")->num, 0.005);
    NEAR(vj_get(ps->items[1], "steal_share")->num, 0);
    NEAR(vj_get(ps->items[0], "late_max_us")->num, 0);
    NEAR(vj_get(ps->items[1], "late_max_us")->num, 0);
    /* the measured core's busy ticks 15, 5, 1 against lab 10, 8, 1: 5 foreign
     * in reading 1; none in reading 2, where lab exceeds busy (max(0, -3)),
     * nor in 3 */
    NEAR(num_at(runs, R, "foreign_second_max", NULL), 0.05);
    NEAR(vj_get(ps->items[0], "foreign_share")->num, 0.05);
    NEAR(vj_get(ps->items[1], "foreign_share")->num, 0);
    /* round 2 adds 1 ms to every latency: p99 24.5099; the arm's median
     * of 2 rounds is their mean, 24.0099 */
    NEAR(num_at(runs, "H3-t25-r2", "p99_ms", NULL), 24.5099);
    vj_node *arms = vj_get(v, "arms");
    NEAR(num_at(vj_get(arms, "H3-t25"), "p99_ms", "median", NULL), 24.0099);
    NEAR(num_at(vj_get(arms, "H3-t25"), "p99_ms", "min", NULL), 23.5099);
    NEAR(num_at(vj_get(arms, "H3-t25"), "p99_ms", "max", NULL), 24.5099);
    NEAR(num_at(arms, "H3-t25", "n_total", NULL), 24);
    NEAR(num_at(arms, "H3-t25", "error_total", NULL), 4);
    NEAR(num_at(arms, "H3-t25", "cut_short", "median"), 1);
    cr_expect_eq(vj_get(vj_get(arms, "H3-t25"), "rounds")->n, 2);
    cr_expect_eq(vj_get(vj_get(arms, "H3-t25"), "rounds_disturbed")->n, 0);
    /* verdict of an arm against itself: diffs 0, too close to call */
    vj_node *vd = vj_get(v, "verdicts");
    cr_assert_eq(vd->n, 3);
    cr_expect_str_eq(vj_get_str(vd->items[2], "verdict"), "too close to call");
    cr_expect_eq(vj_get(vd->items[2], "direction")->type, VJ_NULL);
    cr_expect_eq(vj_get(vd->items[2], "diffs")->n, 2);
    /* guesses: G1 true; G2 true, true; G3 false (2/12 < 0.2); G4 close true,
     * apart false; G5 true; G6 false (no runs) */
    vj_node *gs = vj_get(v, "guesses");
    cr_assert_eq(gs->n, 6);
    int want_right[6] = {1, 1, 0, 0, 1, 0};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(vj_get(gs->items[i], "right")->b, want_right[i], "guess %d", i + 1);
    vj_node *c4 = vj_get(gs->items[3], "clauses");
    cr_expect_eq(c4->items[0]->b, 1);
    cr_expect_eq(c4->items[1]->b, 0);
    vj_free(v);
}

Test(study, one_microsecond_tamper_is_a_mismatch, .init = setup, .fini = teardown, .timeout = 60)
{
    make_good_study(g_root);
    /* rewrite H3-t25-r1 with the answer of j = 9 (the slowest 200) 1 us later;
     * run.json and the manifest follow, so no hash check can see it */
    build_study(g_root, 1000);
    char *out;
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 p90_ms: lab 10.009, verify 10.01"), "%s", out);
    cr_expect(!strstr(out, "sha256:"), "no hash mismatch expected:\n%s", out);
    cr_expect(th_count_lines(out, "MISMATCH H3-t25-r1 ") >= 1, "%s", out);
    free(out);
}

Test(study, changed_byte_is_a_hash_mismatch, .init = setup, .fini = teardown, .timeout = 60)
{
    make_good_study(g_root);
    /* change a byte of the gzip header's MTIME: the rows stay the same, only
     * the hashes (manifest and run.json) can tell */
    char *p = vu_xasprintf("%s/results/raw/H3-fb25-r2/store.tsv.gz", g_root);
    FILE *f = fopen(p, "r+b");
    cr_assert(f);
    fseek(f, 5, SEEK_SET);
    fputc(0x5a, f);
    fclose(f);
    free(p);
    char *out;
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH results/raw/H3-fb25-r2/store.tsv.gz sha256: lab "), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r2 run.json files.store.tsv.gz.sha256"), "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES\n"), "%s", out);
    free(out);
}

Test(study, damaged_gzip_rejects_the_run, .init = setup, .fini = teardown, .timeout = 60)
{
    make_good_study(g_root);
    /* cut the tester file of H3-fb25-r1 short: the run is rejected, naming the file */
    char *p = vu_xasprintf("%s/results/raw/H3-fb25-r1/tester.tsv.gz", g_root);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(p, &b, &len, err, sizeof err), 0);
    FILE *f = fopen(p, "wb");
    fwrite(b, 1, len - 30, f);
    fclose(f);
    free(b);
    char *out;
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r1 raw files: lab (a run in results/raw/), verify rejected: "), "%s", out);
    cr_expect(strstr(out, "tester.tsv.gz: gzip stream truncated"), "%s", out);
    free(p);
    free(out);
}

Test(study, integer_beyond_64_bits_rejects_the_run_naming_file_and_line, .init = setup, .fini = teardown,
     .timeout = 60)
{
    make_good_study(g_root);
    /* the first data row (line 3) of H3-fb25-r2's store file gets a budget_ns of 2^64 */
    char *p = vu_xasprintf("%s/results/raw/H3-fb25-r2/store.tsv.gz", g_root);
    unsigned char *gz, *txt;
    size_t gzlen, len;
    char err[256];
    cr_assert_eq(vu_read_file(p, &gz, &gzlen, err, sizeof err), 0, "%s", err);
    cr_assert_eq(rr_gunzip(gz, gzlen, &txt, &len, err, sizeof err), 0, "%s", err);
    char *l3 = strchr(strchr((char *)txt, '\n') + 1, '\n') + 1;
    char *f = l3;
    for (int k = 0; k < 5; k++)
        f = strchr(f, '\t') + 1; /* budget_ns: the 6th field */
    char *fe = strchr(f, '\t');
    vu_buf o = {0};
    vu_buf_add(&o, (char *)txt, (size_t)(f - (char *)txt));
    vu_buf_puts(&o, "18446744073709551616");
    vu_buf_puts(&o, fe);
    gzFile g = gzopen(p, "wb6");
    cr_assert(g);
    gzwrite(g, o.p, (unsigned)o.len);
    gzclose(g);
    char *out;
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r2 raw files: lab (a run in results/raw/), verify rejected: "), "%s", out);
    cr_expect(strstr(out, "store.tsv.gz:3: field budget_ns \"18446744073709551616\" is beyond 64 bits"), "%s", out);
    free(out);
    vu_buf_free(&o);
    free(txt);
    free(gz);
    free(p);
}

/* in results.json, after the text after, give member key (its first
 * occurrence) the number text to */
static void edit_results(const char *root, const char *after, const char *key, const char *to)
{
    char *rp = vu_xasprintf("%s/results/results.json", root);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(rp, &b, &len, err, sizeof err), 0);
    char *s = (char *)b;
    char *at = strstr(s, after);
    cr_assert(at, "no %s in results.json", after);
    char *k = vu_xasprintf("\"%s\": ", key);
    char *q = strstr(at, k);
    cr_assert(q, "no %s after %s", k, after);
    q += strlen(k);
    char *e = q;
    while (*e && strchr("0123456789.-+eE", *e))
        e++;
    vu_buf o = {0};
    vu_buf_add(&o, s, (size_t)(q - s));
    vu_buf_puts(&o, to);
    vu_buf_puts(&o, e);
    free(k);
    cr_assert_eq(syn_write_text(rp, o.p), 0);
    vu_buf_free(&o);
    free(b);
    free(rp);
}

Test(study, one_edited_number_is_one_mismatch, .init = setup, .fini = teardown, .timeout = 60)
{
    make_good_study(g_root);
    edit_results(g_root, "\"H3-t25-r2\"", "p99_ms", "24.51");
    char *out;
    const char *a[] = {"--root", g_root, NULL};
    int rc = th_run(&out, a);
    cr_assert_eq(rc, 1, "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r2 p99_ms: lab 24.51, verify 24.5099"), "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    /* verified.json is written anyway, saying so */
    char *vp = vu_xasprintf("%s/results/verified.json", g_root);
    vj_node *v;
    char err[256];
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0);
    cr_expect_eq(vj_get(v, "mismatches")->i, 1);
    cr_expect_eq(vj_get(v, "ok")->b, 0);
    vj_free(v);
    free(vp);
    free(out);
}

Test(study, counts_exactly_times_to_the_nanosecond, .init = setup, .fini = teardown, .timeout = 60)
{
    make_good_study(g_root);
    /* 0.4 ns off: within tolerance */
    edit_results(g_root, "\"H3-t25-r1\"", "p50_ms", "6.0050000004");
    char *out;
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    int rc = th_run(&out, a);
    cr_expect_eq(rc, 0, "%s", out);
    free(out);
    /* a count one off, and a time 1.5 ns off */
    edit_results(g_root, "\"H3-t25-r1\"", "n", "13");
    edit_results(g_root, "\"H3-t25-r1\"", "p90_ms", "10.0090015");
    rc = th_run(&out, a);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 n: lab 13, verify 12"), "%s", out);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 p90_ms: lab 10.0090015, verify 10.009"), "%s", out);
    cr_expect(strstr(out, "\n2 MISMATCHES\n"), "%s", out);
    free(out);
}

Test(study, wrong_answer_is_found, .init = setup, .fini = teardown, .timeout = 60)
{
    /* a live answer that is not the reference score of its row */
    syn_ref ref;
    hand_ref(&ref);
    cr_assert_eq(syn_write_reference(g_root, &ref), 0);
    syn_run r;
    hand_run(&r, &ref, 1, 0);
    r.t[4].score = strtof("0.300000012", NULL) + 1e-6f;
    cr_assert_eq(syn_write_run(g_root, &r, 6), 0);
    syn_free_run(&r);
    syn_free_ref(&ref);
    cr_assert_eq(syn_write_manifest(g_root), 0);
    char *p = vu_xasprintf("%s/pipeline", g_root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/data", g_root);
    syn_mkdirs(p);
    free(p);
    p = vu_xasprintf("%s/pipeline/comparisons.tsv", g_root);
    syn_write_text(p, "a\tb\tfigure\tnote\n");
    free(p);
    p = vu_xasprintf("%s/data/guesses.tsv", g_root);
    syn_write_text(p, "id\tguess\tpredicate\n");
    free(p);
    cr_assert_eq(syn_write_quiet(g_root, NULL), 0);
    write_stub_results(g_root);
    char *out;
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    th_run(&out, a);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 tester.tsv.gz:7 answer: lab 0.300001"), "%s", out);
    cr_expect(strstr(out, "(live: reference score of row 4)"), "%s", out);
    free(out);
}

Test(study, unusable_input_exits_2, .init = setup, .fini = teardown, .timeout = 60)
{
    char *out;
    const char *a[] = {"--root", g_root, "--no-scan", NULL};
    int rc = th_run(&out, a);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "results.json not found"), "%s", out);
    free(out);
}
