/* The rows of a run against each other and against what a reader can draw
 * again (lab/RAWFORMAT.md, "What a reader can draw again"; crossfile.h,
 * redraw.h, dice.h).
 *
 * Units: dice.h against every check value the page gives.
 *
 * The study (10 reference rows, rows 6 and 7 new a month earlier; each run promoted: results.json is made
 * from the verifier's own figures after any tampering, as a lab that
 * recomputed its figures would, so only the checks of this file can see
 * a tamper):
 *   H3-fb25-r1   open loop, 50 a second over 2 s: the 94 requests of round
 *                1's schedule (offsets 3,891,863, 12,680,451, 61,764,529 ns
 *                ..., worked out with python3 from the page), random rows
 *                (syn_gen_run)
 *   Z-capacity-r1  closed loop: 12 requests 50 ms apart, sent when scheduled
 *   H3-flaky-r1  40 requests, fault flaky: the dice of round 1 make the
 *                lookups of requests 3, 7, 29 and 31 (attempt 0) E; their
 *                service lookups U, answered K
 *   H3-miss-r1   40 requests, fault missing: of rows 0..9 only row 0 is
 *                missing (the page: rows 0, 67, 175 first), so requests 0,
 *                10, 20, 30 are N at the store, N at the service, answered K
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "tstudy.h"

/* ---- units: the page's check values ---- */

Test(dice, mixer_hash_and_generator)
{
    cr_expect_eq(dc_mix64(0), 16294208416658607535ULL);
    cr_expect_eq(dc_hash4(1, 2, 3, 4), 15374388949593934587ULL);
    dc_gen g;
    dc_seed(&g, 1000020);
    cr_expect_eq(dc_next(&g), 3261946677457873809ULL);
    cr_expect_eq(dc_next(&g), 6559588368398158916ULL);
    cr_expect_eq(dc_next(&g), 16861586200626269207ULL);
    cr_expect_eq(dc_schedule_seed(1), 1000020ULL);
    /* unit: the top 53 bits */
    cr_expect_eq(dc_unit(~0ULL), 1.0 - 0x1p-53);
    cr_expect_eq(dc_unit(1ULL << 11), 0x1p-53);
}

Test(dice, schedule)
{
    static const long long r1[5] = {648644, 2113409, 10294089, 14949356, 20902380};
    static const long long r2[3] = {559103, 5544385, 5777637};
    dc_sched s;
    long long off;
    dc_sched_init(&s, 1, 300, 4);
    for (int i = 0; i < 5; i++) {
        cr_assert(dc_sched_next(&s, &off));
        cr_expect_eq(off, r1[i], "round 1 offset %d: %lld", i, off);
    }
    dc_sched_init(&s, 2, 450, 4);
    for (int i = 0; i < 3; i++) {
        cr_assert(dc_sched_next(&s, &off));
        cr_expect_eq(off, r2[i], "round 2 offset %d: %lld", i, off);
    }
    /* the stream ends inside the span, in increasing order, and stays ended */
    dc_sched_init(&s, 1, 50, 2);
    long long n = 0, last = -1;
    while (dc_sched_next(&s, &off)) {
        cr_expect(off > last && off < 2000000000LL);
        last = off;
        n++;
    }
    cr_expect_eq(n, 94);
    cr_expect_eq(dc_sched_next(&s, &off), 0);
    /* no schedule without a rate; a rate whose steps round to 0 ns is capped */
    dc_sched_init(&s, 1, 0, 4);
    cr_expect_eq(dc_sched_next(&s, &off), 0);
}

Test(dice, waits_and_fault_dice)
{
    static const long long req[6] = {0, 1, 2, 3, 0, 2}, att[6] = {0, 0, 0, 0, 1, 1};
    static const long long L[6] = {3647492, 1083902, 2159850, 2566123, 3072311, 9928686};
    long long w;
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(dc_wait('L', 1, (uint64_t)req[i], (uint64_t)att[i], 0.01, &w), 0);
        cr_expect_eq(w, L[i], "L (%lld, %lld): %lld", req[i], att[i], w);
        /* H equals L where it does not freeze */
        cr_assert_eq(dc_wait('H', 1, (uint64_t)req[i], (uint64_t)att[i], 0.01, &w), 0);
        cr_expect_eq(w, L[i]);
    }
    static const long long fr[3] = {140, 226, 303}, fw[3] = {1037673561, 1925622370, 1709148376};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(dc_wait('H', 1, (uint64_t)fr[i], 0, 0.01, &w), 0);
        cr_expect_eq(w, fw[i], "H freeze %lld: %lld", fr[i], w);
        /* with a freeze share of 0 the same lookup waits as L */
        long long h0, l;
        dc_wait('H', 1, (uint64_t)fr[i], 0, 0, &h0);
        dc_wait('L', 1, (uint64_t)fr[i], 0, 0.01, &l);
        cr_expect(h0 == l && l < DC_FREEZE_NS);
    }
    cr_expect(dc_wait('Z', 3, 5, 0, 0.01, &w) == 0 && w == 0);
    cr_expect(dc_wait('F', 3, 5, 0, 0.01, &w) == 0 && w == 2000000);
    cr_expect_eq(dc_wait('Q', 3, 5, 0, 0.01, &w), -1);
    /* missing: rows 0, 67 and 175 are the first three */
    double u;
    int found[3], nf = 0;
    for (long long row = 0; row < 200 && nf < 3; row++)
        if (dc_missing((uint64_t)row, &u))
            found[nf++] = (int)row;
    cr_assert_eq(nf, 3);
    cr_expect(found[0] == 0 && found[1] == 67 && found[2] == 175, "%d %d %d", found[0], found[1], found[2]);
    /* flaky, round 1: requests 3, 7, 29, 31 of 0..39 (attempt 0), from python3 */
    int fl[4], nfl = 0;
    for (long long j = 0; j < 40; j++)
        if (dc_flaky(1, (uint64_t)j, 0, &u))
            fl[nfl < 4 ? nfl : 3] = (int)j, nfl++;
    cr_assert_eq(nfl, 4);
    cr_expect(fl[0] == 3 && fl[1] == 7 && fl[2] == 29 && fl[3] == 31);
}

/* ---- the study ---- */

static char *c_root;
static syn_ref c_ref;

static void c_setup(void)
{
    c_root = th_tmpdir();
    cr_assert(c_root);
    syn_make_ref(&c_ref, 10, 5);
    c_ref.last_known[6] = c_ref.last_known[7] = c_ref.default_score; /* new a month earlier: stand-in D */
}

static void c_teardown(void)
{
    syn_free_ref(&c_ref);
    th_rmrf(c_root);
    free(c_root);
}

static int cmp_end(const void *x, const void *y)
{
    const syn_srow *a = x, *b = y;
    if (a->has_end != b->has_end)
        return a->has_end ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

static void base_run(syn_run *r)
{
    syn_gen_run(r, "H3-fb25", 1, 2.0, 50.0, 11, &c_ref, 1000000000000LL);
}

/* 40 requests; those whose first lookup the fault dice hit (flaky: the
 * request, missing: its row) are answered E or N by the store, U or N by
 * the service, and get the stand-in K */
static void fault_run(syn_run *r, const char *arm, const char *fault, long long t0)
{
    int flaky = !strcmp(fault, "flaky");
    char kinds[41];
    double u;
    for (int j = 0; j < 40; j++)
        kinds[j] = (flaky ? dc_flaky(1, (uint64_t)j, 0, &u) : dc_missing((uint64_t)(j % 10), &u)) ? 'K' : 'L';
    kinds[40] = 0;
    syn_kind_run(r, arm, 1, kinds, &c_ref, t0);
    syn_set_fault(r, fault);
    for (size_t i = 0; i < r->ns; i++) {
        syn_srow *s = &r->s[i];
        if (kinds[s->req] != 'K')
            continue;
        s->outcome = flaky ? 'E' : 'N';
        s->has_start = 0;
        s->end = s->arrive;
    }
    for (size_t i = 0; i < r->nv; i++) {
        syn_vrow *v = &r->v[i];
        if (kinds[v->req] != 'K')
            continue;
        v->a_out[0] = flaky ? 'U' : 'N';
        v->a_end[0] = v->a_start[0] + 20000;
    }
    qsort(r->s, r->ns, sizeof *r->s, cmp_end);
}

typedef void (*tamper_fn)(syn_run *r);

/* the four runs, each given to tamper before it is written; then the
 * manifest, and results.json from the verifier's own figures */
static void write_study(tamper_fn tamper)
{
    cr_assert_eq(syn_write_reference(c_root, &c_ref), 0);
    for (int k = 0; k < 4; k++) {
        syn_run r;
        if (k == 0)
            base_run(&r);
        else if (k == 1)
            syn_kind_run(&r, "Z-capacity", 1, "LLKLLLDELLLL", &c_ref, 2000000000000LL);
        else if (k == 2)
            fault_run(&r, "H3-flaky", "flaky", 3000000000000LL);
        else
            fault_run(&r, "H3-miss", "missing", 4000000000000LL);
        if (tamper)
            tamper(&r);
        cr_assert_eq(syn_write_run(c_root, &r, 1), 0);
        syn_free_run(&r);
    }
    ts_write_texts(c_root, "a\tb\tfigure\tnote\n", "id\tguess\tpredicate\n");
    cr_assert_eq(syn_write_quiet(c_root, NULL), 0);
    cr_assert_eq(syn_write_manifest(c_root), 0);
    ts_promote(c_root);
}

static char *c_verify(int want_rc)
{
    char *out;
    const char *a[] = {"--root", c_root, "--no-scan", "--max-print", "0", NULL};
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

Test(crossfile, a_study_by_the_rules_passes, .init = c_setup, .fini = c_teardown, .timeout = 60)
{
    write_study(NULL);
    char *out = c_verify(0);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    free(out);
    vj_node *v = ts_verified(c_root);
    TS_NUM(v, "H3-fb25-r1", "n", 94);
    TS_NUM(v, "Z-capacity-r1", "late_max_us", 0);
    cr_expect_eq(vj_get(ts_field(v, "H3-flaky-r1", "store_outcomes"), "E")->i, 4);
    cr_expect_eq(vj_get(ts_field(v, "H3-miss-r1", "store_outcomes"), "N")->i, 4);
    TS_NUM(v, "H3-flaky-r1", "last_known", 4);
    vj_free(v);
}

/* ---- the tampers, each after the lab's figures were made to agree ---- */

/* x as format 4 decodes it on the grid of base: base + 1000 floor((x - base) / 1000) */
static long long on_grid(long long x, long long base)
{
    long long d = x - base, q = d / 1000;
    if (d % 1000 < 0)
        q--;
    return base + 1000 * q;
}

static void answers_a_microsecond_after_the_send(syn_run *r)
{
    if (strcmp(r->arm, "H3-fb25"))
        return;
    for (size_t j = 0; j < r->nt; j++)
        if (r->t[j].has_answer)
            r->t[j].answer = r->t[j].send + 1000;
}

Test(crossfile, answers_a_microsecond_after_the_send_are_found, .init = c_setup, .fini = c_teardown, .timeout = 60)
{
    write_study(answers_a_microsecond_after_the_send);
    char *out = c_verify(1);
    syn_run r;
    base_run(&r);
    int answered = 0;
    for (size_t j = 0; j < r.nt; j++)
        answered += r.t[j].has_answer;
    /* one mismatch per answered request, naming its tester line; nothing else */
    cr_expect_eq(th_count_lines(out, "MISMATCH H3-fb25-r1 tester.tsv.gz:"), answered, "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), answered, "%s", out);
    cr_expect(has(out, "MISMATCH H3-fb25-r1 tester.tsv.gz:3 answer_t: lab %lld (request 0), verify at or after ",
                  on_grid(r.t[0].send, r.t[0].sched) + 1000),
              "%s", out);
    cr_expect(strstr(out, "it had the lookup's answer it used first"), "%s", out);
    syn_free_run(&r);
    free(out);
}

/* answers read at the very ns the service got the answer it used (A at
 * a0): the order holds on the logged instants, but the tester's answer_t
 * is decoded on its request's grid (sched_t + 1000 k) and the service's
 * a0_end_t on a0_start_t + W + 1000 k, so the decoded answer_t may come up
 * to 999 ns before the decoded end: no mismatch (RAWFORMAT.md, the format
 * 4 change: an A lookup's end after start + W) */
static void answers_at_the_lookups_end(syn_run *r)
{
    if (strcmp(r->arm, "H3-fb25"))
        return;
    for (size_t i = 0; i < r->nv; i++) {
        const syn_vrow *v = &r->v[i];
        if (!v->has_req || !v->a_has[0] || v->a_out[0] != 'A' || !r->t[v->req].has_answer)
            continue;
        r->t[v->req].answer = v->a_end[0];
    }
}

Test(crossfile, answers_at_the_lookups_end_are_no_mismatch, .init = c_setup, .fini = c_teardown, .timeout = 60)
{
    write_study(answers_at_the_lookups_end);
    char *out = c_verify(0);
    cr_expect(strstr(out, "\n0 MISMATCHES"), "%s", out);
    free(out);
    /* the case the slack is for is there: decoded answer_t before decoded a0_end_t */
    syn_run r;
    base_run(&r);
    int before = 0;
    for (size_t i = 0; i < r.nv; i++) {
        const syn_vrow *v = &r.v[i];
        if (!v->has_req || !v->a_has[0] || v->a_out[0] != 'A' || !r.t[v->req].has_answer)
            continue;
        long long sched = r.t[v->req].sched, x = v->a_end[0];
        long long end = on_grid(x, on_grid(v->a_start[0], sched) + syn_planned(&r, v->req, 0));
        before += on_grid(x, sched) < end;
    }
    cr_expect_gt(before, 0);
    syn_free_run(&r);
}

/* without freeze_share no H wait is drawn (assume nothing), and format 4
 * needs every store row's and every A lookup's to decode it: the runs of
 * wait H are rejected, naming their first service row with an A lookup;
 * a Z wait needs none */
static void no_freeze_share(syn_run *r)
{
    r->no_freeze_share = 1;
}

Test(crossfile, run_json_without_freeze_share_is_named, .init = c_setup, .fini = c_teardown, .timeout = 60)
{
    write_study(no_freeze_share);
    char *out = c_verify(1);
    static const char *const runs[] = {"H3-fb25-r1", "Z-capacity-r1", "H3-flaky-r1", "H3-miss-r1"};
    for (int k = 0; k < 4; k++)
        cr_expect(has(out, "MISMATCH %s run.json freeze_share: lab (absent), verify a number", runs[k]), "%s", out);
    /* H3-miss: line 3's request asks row 0, which the missing dice hit (N): its first A lookup is line 4 */
    for (int k = 0; k < 4; k++) {
        if (k == 1)
            continue;
        cr_expect(has(out,
                      "MISMATCH %s raw files: lab (a run in results/raw/), verify rejected: %s/results/raw/%s/"
                      "service.tsv.gz:%d: lookup a0's planned wait cannot be drawn (wait H and run.json has no "
                      "number freeze_share), and format 4 needs it for an A lookup's a0_end_us",
                      runs[k], c_root, runs[k], k == 3 ? 4 : 3),
                  "%s", out);
    }
    cr_expect(!strstr(out, "Z-capacity-r1 raw files"), "a Z wait needs no freeze_share:\n%s", out);
    cr_expect(strstr(out, "\n7 MISMATCHES"), "%s", out);
    free(out);
}

/* flaky: request 5 (not hit by the dice) answered E; missing: row 1's lookups N */
static void fault_dice_broken(syn_run *r)
{
    int fl = !strcmp(r->arm, "H3-flaky"), mi = !strcmp(r->arm, "H3-miss");
    if (!fl && !mi)
        return;
    for (size_t i = 0; i < r->ns; i++) {
        syn_srow *s = &r->s[i];
        if (fl ? s->req != 5 : s->row != 1)
            continue;
        s->outcome = fl ? 'E' : 'N';
        s->has_start = 0;
        s->end = s->arrive;
    }
    qsort(r->s, r->ns, sizeof *r->s, cmp_end);
}

Test(crossfile, flaky_and_missing_outcomes_follow_the_dice, .init = c_setup, .fini = c_teardown, .timeout = 60)
{
    write_study(fault_dice_broken);
    char *out = c_verify(1);
    cr_expect(strstr(out, " outcome: lab E (request 5, attempt 0), verify not E: the flaky dice give u = "), "%s", out);
    for (int j = 1; j < 40; j += 10)
        cr_expect(has(out, " outcome: lab N (request %d, attempt 0, row 1), verify not N: the missing dice give u = ",
                      j),
                  "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH H3-flaky-r1 store.tsv.gz:"), 1, "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH H3-miss-r1 store.tsv.gz:"), 4, "%s", out);
    cr_expect(strstr(out, "\n5 MISMATCHES"), "%s", out);
    free(out);
}

/* ---- the joins: the base run's rows, one broken promise per request ---- */

static size_t v_index(const syn_run *r, long long req)
{
    for (size_t i = 0; i < r->nv; i++)
        if (r->v[i].has_req && r->v[i].req == req)
            return i;
    cr_assert_fail("no service row for request %lld", req);
    return 0;
}

static size_t s_index(const syn_run *r, long long req, long long att)
{
    for (size_t i = 0; i < r->ns; i++)
        if (r->s[i].req == req && r->s[i].attempt == att)
            return i;
    cr_assert_fail("no store row for request %lld, attempt %lld", req, att);
    return 0;
}

/* the k-th request answered live with one lookup, used (A), whose store row answered */
static long long plain(const syn_run *r, int k)
{
    for (size_t j = 0; j < r->nt; j++) {
        if (!r->t[j].has_answer)
            continue;
        const syn_vrow *v = &r->v[v_index(r, (long long)j)];
        if (v->lookups != 1 || v->a_out[0] != 'A')
            continue;
        if (r->s[s_index(r, (long long)j, 0)].outcome != 'A')
            continue;
        if (k-- == 0)
            return (long long)j;
    }
    cr_assert_fail("not enough plain requests");
    return -1;
}

/* requests jA .. jI of the comment in the test below */
static long long J[9];

static void joins_broken(syn_run *r)
{
    if (strcmp(r->arm, "H3-fb25"))
        return;
    for (int k = 0; k < 9; k++)
        J[k] = plain(r, 3 * k + 1);
    size_t i;
    /* store-side edits first, while the indexes hold */
    r->s[s_index(r, J[3], 0)].arrive = r->v[v_index(r, J[3])].a_start[0] - 1000;
    r->s[s_index(r, J[4], 0)].end = r->v[v_index(r, J[4])].a_end[0] + 2000;
    r->s[r->ns++] = r->s[s_index(r, J[6], 0)];
    i = s_index(r, J[1], 0);
    memmove(&r->s[i], &r->s[i + 1], (r->ns - i - 1) * sizeof *r->s);
    r->ns--;
    qsort(r->s, r->ns, sizeof *r->s, cmp_end);
    /* then the service rows */
    r->v[v_index(r, J[2])].kind = 'K';
    r->v[v_index(r, J[7])].status = 504;
    syn_vrow *h = &r->v[v_index(r, J[8])];
    h->a_start[0] = h->arrive - 1000;
    syn_vrow extra = r->v[v_index(r, J[5])];
    extra.req = 99;
    extra.lookups = 0;
    memset(extra.a_has, 0, sizeof extra.a_has);
    i = v_index(r, J[0]);
    memmove(&r->v[i], &r->v[i + 1], (r->nv - i - 1) * sizeof *r->v);
    r->nv--;
    r->v[r->nv++] = extra;
    /* the extra row where the service would have written it: in answer order (roworder.h) */
    syn_sort_rows(r);
}

Test(crossfile, rows_without_their_partner_or_out_of_order_are_found, .init = c_setup, .fini = c_teardown,
     .timeout = 60)
{
    /* jA's service row removed: its answer has no service row, its store row no sent lookup;
     * jB's store row removed; jC's service kind K (the tester read L); jD's store row
     * arrives 1 µs before the service sent it; jE's store row ends 2 µs after the
     * service used its answer; an extra service row with req 99 (of 94); jG's store
     * row twice; jH's service status 504 (the tester read 200); jI's lookup tried
     * 1 µs before its request was read.  Format 4 writes whole µs: the instants
     * below are the logged ones rounded down on their request's grid (sched_t +
     * 1000 k); an A lookup's end is on another, the store's end_t on
     * start_t + W + 1000 k, the service's a0_end_t on a0_start_t + W +
     * 1000 k, so the one passes the other only beyond 999 ns */
    write_study(joins_broken);
    char *out = c_verify(1);
    syn_run r;
    base_run(&r);
    const char *R = "MISMATCH H3-fb25-r1 ";
    cr_expect(has(out,
                  "%stester.tsv.gz:%lld answer_t: lab %lld (request %lld answered), verify a row of service.tsv.gz "
                  "with req %lld (none)",
                  R, J[0] + 3, on_grid(r.t[J[0]].answer, r.t[J[0]].sched), J[0], J[0]),
              "%s", out);
    cr_expect(has(out,
                  " req: lab %lld (attempt 0), verify a lookup the service sent: service.tsv.gz has no row with req "
                  "%lld",
                  J[0], J[0]),
              "%s", out);
    cr_expect(has(out, " a0_out: lab A (request %lld, sent to store 1), verify a row of store.tsv.gz with req %lld, "
                       "attempt 0 (none",
                  J[1], J[1]),
              "%s", out);
    cr_expect(has(out, " kind: lab K (request %lld), verify L, the kind the tester read (tester.tsv.gz:%lld)", J[2],
                  J[2] + 3),
              "%s", out);
    const syn_vrow *vd = &r.v[v_index(&r, J[3])], *ve = &r.v[v_index(&r, J[4])];
    long long sd = on_grid(vd->a_start[0], r.t[J[3]].sched);
    cr_expect(has(out, " arrive_t: lab %lld (request %lld), verify at or after %lld, the service's a0_start_t",
                  sd - 1000, J[3], sd),
              "%s", out);
    cr_expect(has(out, " (request %lld, attempt 0), verify at or before %lld, the service's a0_end_t", J[4],
                  on_grid(ve->a_end[0], on_grid(ve->a_start[0], r.t[J[4]].sched) + syn_planned(&r, J[4], 0))),
              "%s", out);
    cr_expect(strstr(out, " req: lab 99, verify a request of tester.tsv.gz (0 to 93)"), "%s", out);
    cr_expect(has(out,
                  " req: lab %lld (attempt 0), verify one row per lookup: request %lld's lookup 0 is store.tsv.gz:",
                  J[6], J[6]),
              "%s", out);
    cr_expect(has(out, " status: lab 504 (request %lld), verify 200, the status the tester read", J[7]), "%s", out);
    const syn_vrow *vi = &r.v[v_index(&r, J[8])];
    long long ai = on_grid(vi->arrive, r.t[J[8]].sched);
    cr_expect(has(out, " a0_start_t: lab %lld (request %lld), verify at or after %lld, its arrive_t", ai - 1000, J[8],
                  ai),
              "%s", out);
    cr_expect(strstr(out, "\n10 MISMATCHES"), "%s", out);
    syn_free_run(&r);
    free(out);
}

/* the schedule's count: the last request left out, or one request more */
static void last_request_dropped(syn_run *r)
{
    if (strcmp(r->arm, "H3-fb25"))
        return;
    long long j = (long long)--r->nt;
    size_t i = v_index(r, j);
    memmove(&r->v[i], &r->v[i + 1], (r->nv - i - 1) * sizeof *r->v);
    r->nv--;
    for (size_t k = 0; k < r->ns;) {
        if (r->s[k].req == j) {
            memmove(&r->s[k], &r->s[k + 1], (r->ns - k - 1) * sizeof *r->s);
            r->ns--;
        } else {
            k++;
        }
    }
}

static void one_request_added(syn_run *r)
{
    if (strcmp(r->arm, "H3-fb25"))
        return;
    syn_trow *t = &r->t[r->nt];
    memset(t, 0, sizeof *t);
    t->j = (long long)r->nt;
    t->row = t->j % 10;
    t->sched = r->t[r->nt - 1].sched + 1000;
    t->send = t->sched + 20000;
    t->kind = 'E';
    r->nt++;
}

Test(crossfile, the_number_of_requests_is_the_schedule_s, .init = c_setup, .fini = c_teardown, .timeout = 60)
{
    write_study(last_request_dropped);
    char *out = c_verify(1);
    cr_expect(strstr(out, "MISMATCH H3-fb25-r1 tester.tsv.gz requests (the schedule): lab 93 rows, verify 94: the "
                          "offsets of the schedule (seed 1000020, rate 50, seconds 2; RAWFORMAT.md)\n"),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
    write_study(one_request_added);
    out = c_verify(1);
    /* a row beyond the schedule has no sched_t to decode it with: the run is rejected */
    cr_expect(has(out,
                  "MISMATCH H3-fb25-r1 raw files: lab (a run in results/raw/), verify rejected: "
                  "%s/results/raw/H3-fb25-r1/tester.tsv.gz:97: request 94 has no scheduled arrival: the schedule "
                  "(seed 1000020, rate 50, seconds 2) has 94 offsets",
                  c_root),
              "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES"), "%s", out);
    free(out);
}

/* format 4: a score equal to its reference is written "=" (RESULTS.md,
 * "Every answer can be checked"); one written as a number equal to it is
 * named, once per answer */
static void numbers_not_eq(syn_run *r)
{
    if (!strcmp(r->arm, "Z-capacity"))
        r->no_eq = 1;
}

Test(crossfile, a_score_written_as_its_reference_is_named, .init = c_setup, .fini = c_teardown, .timeout = 60)
{
    write_study(numbers_not_eq);
    char *out = c_verify(1);
    /* LLKLLLDELLLL: 11 answers with a score */
    cr_expect_eq(th_count_lines(out, "MISMATCH Z-capacity-r1 tester.tsv.gz:"), 11, "%s", out);
    cr_expect(has(out, "MISMATCH Z-capacity-r1 tester.tsv.gz:5 answer: lab %.9g, verify = (it equals the last-known "
                       "score of row 2, %.9g: format 4 writes =)",
                  (double)c_ref.last_known[2], (double)c_ref.last_known[2]),
              "%s", out);
    cr_expect(strstr(out, "\n11 MISMATCHES"), "%s", out);
    free(out);
}

/* a request never sent (RAWFORMAT.md: send_us and conn -, no answer,
 * status 0, kind E) has no service or store row and no lateness */
static void one_never_sent(syn_run *r)
{
    if (strcmp(r->arm, "H3-fb25"))
        return;
    long long j = 5;
    syn_trow *t = &r->t[j];
    t->no_send = 1;
    t->has_answer = t->has_score = 0;
    t->status = 0;
    t->kind = 'E';
    size_t i = v_index(r, j);
    memmove(&r->v[i], &r->v[i + 1], (r->nv - i - 1) * sizeof *r->v);
    r->nv--;
    for (size_t k = 0; k < r->ns;) {
        if (r->s[k].req == j) {
            memmove(&r->s[k], &r->s[k + 1], (r->ns - k - 1) * sizeof *r->s);
            r->ns--;
        } else {
            k++;
        }
    }
}

Test(crossfile, a_request_never_sent_is_read, .init = c_setup, .fini = c_teardown, .timeout = 60)
{
    write_study(one_never_sent);
    char *out = c_verify(0);
    free(out);
    vj_node *v = ts_verified(c_root);
    TS_NUM(v, "H3-fb25-r1", "n", 94);
    TS_NUM(v, "H3-fb25-r1", "lost", 1);
    vj_free(v);
}
