/* exrun.[ch]: one run's part of verified.json's extra, fed row by row as
 * the run checks decode them, on rows made by hand (test_extra.c checks the
 * same objects end to end through the verifier on a synthetic study).
 *
 * The slowest 1% is found without sorting the requests (exrun.c: the k-th
 * largest latency from the sorted list the percentiles use, then the
 * requests above it and the first of those at it by j); the cases below
 * are worked out by hand, and a property test compares it with the
 * definition (sort by latency descending, j ascending, take k) on
 * pseudo-random runs with many equal latencies.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exrun.h"
#include "rawcols.h"
#include "rawdec.h"
#include "vjson.h"

/* a tester row: sched, send (RX_ABSENT: none), answer (RX_ABSENT: none) */
static void tester(ex_run *x, long long sched, long long send, long long answer)
{
    rr_row r;
    memset(&r, 0, sizeof r);
    r.v[T_J] = x->n;
    r.v[T_ROW] = x->n % 7;
    r.v[T_SCHED] = sched;
    r.has[T_SEND] = send != RX_ABSENT;
    r.v[T_SEND] = send;
    r.has[T_ANSWER] = answer != RX_ABSENT;
    r.v[T_ANSWER] = answer;
    r.v[T_STATUS] = answer != RX_ABSENT ? 200 : 0;
    r.c[T_KIND] = 'L';
    ex_tester_row(x, &r);
}

/* a service row of req (its arrive, its answer, one lookup ending at end, or none when end is RX_ABSENT) */
static void service(ex_run *x, long long req, long long arrive, long long end, long long answer)
{
    rr_row r;
    memset(&r, 0, sizeof r);
    r.has[V_REQ] = 1;
    r.v[V_REQ] = req;
    r.v[V_ARRIVE] = arrive;
    r.v[V_ANSWER] = answer;
    r.c[V_KIND] = 'L';
    if (end != RX_ABSENT) {
        r.v[V_LOOKUPS] = 1;
        r.has[V_A0S] = r.has[V_A0E] = r.has[V_A0O] = 1;
        r.v[V_A0S] = arrive;
        r.v[V_A0E] = end;
        r.c[V_A0O] = 'A';
    }
    ex_service_row(x, &r);
}

static void store(ex_run *x, long long req, long long attempt, long long planned, long long arrive)
{
    rr_row r;
    memset(&r, 0, sizeof r);
    r.v[S_REQ] = req;
    r.v[S_ATTEMPT] = attempt;
    r.v[S_PLANNED] = planned;
    r.v[S_ARRIVE] = arrive;
    r.v[S_BUDGET] = 7;
    r.c[S_OUTCOME] = 'A';
    ex_store_row(x, &r);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* the run's object, from x's rows (the latencies sorted here) */
static vj_node *object(const ex_run *x)
{
    long long *lat = calloc((size_t)x->n + 1, sizeof *lat);
    size_t na = 0;
    for (long long j = 0; j < x->n; j++)
        if (x->answer[j] != RX_ABSENT)
            lat[na++] = x->answer[j] - x->sched[j];
    qsort(lat, na, sizeof *lat, cmp_ll);
    vj_node *rj = vj_new_obj();
    vj_obj_set(rj, "seconds", vj_new_int(30));
    vj_node *o = ex_run_json(x, lat, na, 0, NULL, 0, rj);
    vj_free(rj);
    free(lat);
    return o;
}

static double num(const vj_node *o, const char *a, const char *b)
{
    const vj_node *n = vj_get(b ? vj_get(o, a) : o, b ? b : a);
    cr_assert(n && n->type == VJ_NUM, "%s.%s not a number", a, b ? b : "");
    return n->num;
}

/* the slowest_* cases' run, into x (its object returned): 250 requests
 * 1 ms apart, each answered 1000 ns after its sched but for j = 10 (5000
 * ns), j = 20, 30 and 40 (4000 ns each), and j = 249 never answered: 249
 * answered, k = ceil(249 / 100) = 3: j = 10, then the first two at 4000 by
 * j (20 and 30; not 40).  Each sent 100 ns late but j = unsent (-1: none)
 * never sent, each with a service row arriving 200 ns after sched,
 * answering 800 ns after it, with (lookup) a lookup ending 500 ns after
 * sched, or none. */
static vj_node *slowest_run(ex_run *x, long long unsent, int lookup)
{
    ex_run_init(x);
    for (long long j = 0; j < 250; j++) {
        long long s = 1000000 * j;
        long long lat = j == 10 ? 5000 : (j == 20 || j == 30 || j == 40) ? 4000 : 1000;
        tester(x, s, j == unsent ? RX_ABSENT : s + 100, j == 249 ? RX_ABSENT : s + lat);
    }
    for (long long j = 0; j < 250; j++)
        service(x, j, 1000000 * j + 200, lookup ? 1000000 * j + 500 : RX_ABSENT, 1000000 * j + 800);
    return object(x);
}

/* every request sent, with lookups (the three: latency 13000 ns, late 300,
 * to_service 300, lookups 900, score_answer 900, back 10600) */
Test(exrun, slowest_with_equal_latencies)
{
    ex_run x;
    vj_node *o = slowest_run(&x, -1, 1);
    cr_expect_eq(num(o, "n", NULL), 250);
    cr_expect_eq(num(o, "slowest_steps", "answered"), 249);
    cr_expect_eq(num(o, "slowest_steps", "requests"), 3);
    cr_expect_eq(num(o, "slowest_steps", "with_service_row"), 3);
    cr_expect_eq(num(o, "slowest_steps", "fastest_of_them_ms"), 4000 / 1e6);
    cr_expect_eq(num(o, "slowest_steps", "latency_ms"), 13000.0 / 3 / 1e6);
    cr_expect_eq(num(o, "slowest_steps", "late_ms"), 300.0 / 3 / 1e6);
    cr_expect_eq(num(o, "slowest_steps", "to_service_ms"), 300.0 / 3 / 1e6);
    cr_expect_eq(num(o, "slowest_steps", "lookups_ms"), 900.0 / 3 / 1e6);
    cr_expect_eq(num(o, "slowest_steps", "score_answer_ms"), 900.0 / 3 / 1e6);
    cr_expect_eq(num(o, "slowest_steps", "back_ms"), (13000.0 - 300 - 300 - 900 - 900) / 3 / 1e6);
    /* exceed: the grid starts at 100,000 ns, above every latency: only the unanswered one */
    const vj_node *cnt = vj_get(o, "exceed_count");
    cr_assert(cnt && cnt->n == EX_GRID);
    for (size_t k = 0; k < cnt->n; k++)
        cr_expect_eq(cnt->items[k]->i, 1, "exceed_count[%zu]", k);
    cr_expect_eq(vj_get(o, "exceed")->items[0]->num, 1.0 / 250);
    cr_expect_eq(vj_get(o, "frozen_example")->type, VJ_NULL);
    vj_free(o);
    ex_run_free(&x);
}

/* the same with j = 30 unsent (counted among the k, not in the means) and
 * no lookups: with_service_row 2, the means over j = 10 and 20 (9000 ns of
 * latency) */
Test(exrun, slowest_unsent_is_left_out_of_the_means)
{
    ex_run x;
    vj_node *o = slowest_run(&x, 30, 0);
    cr_expect_eq(num(o, "slowest_steps", "requests"), 3);
    cr_expect_eq(num(o, "slowest_steps", "with_service_row"), 2);
    cr_expect_eq(num(o, "slowest_steps", "latency_ms"), 9000.0 / 2 / 1e6);
    cr_expect_eq(num(o, "slowest_steps", "lookups_ms"), 0); /* no lookup: its end is the arrival */
    vj_free(o);
    ex_run_free(&x);
}

/* the frozen lookup: attempt 0 and planned over 1 s, the lowest req; of
 * two with that req, the first given; the service's first row of a req */
Test(exrun, frozen_example)
{
    ex_run x;
    ex_run_init(&x);
    for (long long j = 0; j < 10; j++)
        tester(&x, 1000 * j, 1000 * j + 1, 1000 * j + 50);
    service(&x, 4, 4010, 4020, 4030);
    service(&x, 4, 9999, 9999, 9999); /* a second row of req 4: not the one kept */
    service(&x, 12, 0, 0, 0);         /* beyond the tester's rows: ignored */
    store(&x, 6, 0, 1500000000, 6100);
    store(&x, 3, 1, 2000000000, 3100); /* a retry: not attempt 0 */
    store(&x, 2, 0, 1000000000, 2100); /* exactly 1 s: not over it */
    store(&x, 4, 0, 1200000000, 4100);
    store(&x, 4, 0, 1300000000, 4200); /* the same req again: the first kept */
    store(&x, 5, 0, 1400000000, 5100);
    vj_node *o = object(&x);
    const vj_node *f = vj_get(o, "frozen_example");
    cr_assert(f && f->type == VJ_OBJ);
    cr_expect_eq(num(f, "j", NULL), 4);
    cr_expect_eq(num(f, "planned_ns", NULL), 1200000000);
    cr_expect_eq(num(f, "store_arrive_ns", NULL), 100);
    cr_expect_eq(num(f, "service_arrive_ns", NULL), 10);
    cr_expect_eq(num(f, "service_gave_up_ns", NULL), 20);
    cr_expect_eq(num(f, "service_answer_ns", NULL), 30);
    cr_expect_eq(num(f, "answer_ns", NULL), 50);
    cr_expect_eq(num(f, "lookups", NULL), 1);
    cr_expect_str_eq(vj_get_str(f, "a0_out"), "A");
    cr_expect_eq(vj_get(f, "store_start_ns")->type, VJ_NULL);
    vj_free(o);
    ex_run_free(&x);
}

/* the definition: sort (latency descending, j ascending), take k */
typedef struct {
    long long lat, j;
} lj;
static int cmp_slow(const void *a, const void *b)
{
    const lj *x = a, *y = b;
    if (x->lat != y->lat)
        return x->lat > y->lat ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* pseudo-random runs (latencies from few values: many equal), the sum of
 * the slowest k's latencies and their late_ms against the definition's */
Test(exrun, slowest_as_defined)
{
    unsigned long long s = 12345;
    for (int t = 0; t < 200; t++) {
        ex_run x;
        ex_run_init(&x);
        long long n = 1 + (long long)(t * 37 % 900);
        lj *v = calloc((size_t)n, sizeof *v);
        size_t na = 0;
        for (long long j = 0; j < n; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            long long lat = 1000 * (long long)((s >> 33) % (t % 5 + 2)), late = (long long)((s >> 40) % 97);
            int answered = (s >> 50) % 10 != 0;
            tester(&x, 1000000 * j, 1000000 * j + late, answered ? 1000000 * j + lat : RX_ABSENT);
            if (answered)
                v[na++] = (lj){lat, j};
        }
        for (long long j = 0; j < n; j++)
            service(&x, j, 1000000 * j + 100, RX_ABSENT, 1000000 * j + 100);
        qsort(v, na, sizeof *v, cmp_slow);
        size_t k = (na + 99) / 100;
        long long sum = 0, late = 0;
        for (size_t i = 0; i < k; i++) {
            sum += v[i].lat;
            late += x.send[v[i].j] - x.sched[v[i].j];
        }
        vj_node *o = object(&x);
        cr_expect_eq(num(o, "slowest_steps", "requests"), (double)k, "case %d", t);
        if (k) {
            cr_expect_eq(num(o, "slowest_steps", "latency_ms"), (double)sum / (double)k / 1e6, "case %d", t);
            cr_expect_eq(num(o, "slowest_steps", "late_ms"), (double)late / (double)k / 1e6, "case %d", t);
            cr_expect_eq(num(o, "slowest_steps", "fastest_of_them_ms"), (double)v[k - 1].lat / 1e6, "case %d", t);
        }
        vj_free(o);
        free(v);
        ex_run_free(&x);
    }
}
