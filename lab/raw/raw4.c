/* raw4: see raw4.h and lab/RAWFORMAT.md. */
#include "raw4.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "opt.h"
#include "arrivals.h"
#include "prepsum.h"
#include "sctab.h"
#include "util.h"
#include "waits.h"

const char *const RAW4_NAMES[RAW4_NFILES] = {"tester", "service", "store", "store2", "machine", "events"};

/* ------------------------------------------------------- the reference */

void raw4_ref_free(raw4_ref *r)
{
    if (!r)
        return;
    free(r->score);
    free(r->last);
    memset(r, 0, sizeof *r);
}

/* scores.tsv through its one reader (lab/core/sctab.h): its score and
 * last_known columns taken over. */
static int read_scores(const char *path, raw4_ref *r, char *err, size_t errlen)
{
    sctab t;
    if (sctab_load(path, 0, &t, err, errlen) != 0)
        return -1;
    r->n = t.n;
    r->score = t.score;
    r->last = t.last;
    t.score = t.last = NULL;
    sctab_free(&t);
    return 0;
}

int raw4_ref_load(const char *dir, raw4_ref *out, int *found, char *err, size_t errlen)
{
    char path[4200];
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "%s/scores.tsv", dir);
    struct stat sb;
    if (found) {
        *found = stat(path, &sb) == 0;
        if (!*found)
            return 0;
    }
    if (read_scores(path, out, err, errlen) != 0)
        goto fail;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    prepsum sum; /* its one reader */
    if (prepsum_load(path, &sum, err, errlen) != 0)
        goto fail;
    out->dflt = sum.default_score;
    return 0;
fail:
    raw4_ref_free(out);
    return -1;
}

/* ------------------------------------------------------ run.json's part */

static int get_int(const json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *v, const char *what,
                   char *err, size_t errlen)
{
    json_t *j = json_object_get(o, key);
    if (!json_is_integer(j) || json_integer_value(j) < lo || json_integer_value(j) > hi) {
        ut_seterr(err, errlen, "%s: %s: needs a whole number from %lld to %lld", what, key, (long long)lo,
                  (long long)hi);
        return -1;
    }
    *v = json_integer_value(j);
    return 0;
}

/* run.json's fault (lab/RAWFORMAT.md): its spec and window, for a slow
 * store's planned_ns; a run.json without one (older runs) has none. */
static int fault_of(const json_t *run, const char *what, raw4_params *p, char *err, size_t errlen)
{
    p->fault = (fault_spec){FAULT_NONE, -1, -1};
    p->win = (fault_window){-1, -1};
    json_t *f = json_object_get(run, "fault");
    if (!f)
        return 0;
    const char *spec = json_string_value(json_object_get(f, "spec"));
    char why[256];
    if (!spec || fault_parse(spec, &p->fault, why, sizeof why) != 0) {
        ut_seterr(err, errlen, "%s: fault.spec: needs a scenario of lab/core/faults.h%s%s", what, spec ? ": " : "",
                  spec ? why : "");
        return -1;
    }
    if (!fault_has_window(p->fault.kind))
        return 0;
    json_t *to = json_object_get(f, "to_ns");
    if (get_int(f, "from_ns", 0, INT64_MAX - 1, &p->win.from_ns, what, err, errlen) != 0 ||
        (!json_is_null(to) && get_int(f, "to_ns", p->win.from_ns + 1, INT64_MAX - 1, &p->win.to_ns, what, err,
                                      errlen) != 0))
        return -1;
    if (json_is_null(to))
        p->win.to_ns = INT64_MAX;
    return 0;
}

int raw4_params_json(const json_t *run, const char *what, raw4_params *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    int64_t stores;
    if (get_int(run, "t0_ns", INT64_MIN + 1, INT64_MAX, &p->t0, what, err, errlen) != 0 ||
        get_int(run, "requests", 0, INT64_MAX / 2, &p->requests, what, err, errlen) != 0 ||
        get_int(run, "test_rows", 1, INT64_MAX, &p->test_rows, what, err, errlen) != 0 ||
        get_int(run, "round", 1, 1000000, &p->round, what, err, errlen) != 0 ||
        get_int(run, "rate", 0, 100000000, &p->rate, what, err, errlen) != 0 ||
        get_int(run, "stores", 1, 2, &stores, what, err, errlen) != 0)
        return -1;
    p->stores = (int)stores;
    json_t *s = json_object_get(run, "seconds"), *fz = json_object_get(run, "freeze_share");
    json_t *w = json_object_get(json_object_get(run, "arm_spec"), "wait");
    wait_kind k;
    if (!json_is_number(s) || !(json_number_value(s) > 0) || json_number_value(s) > 1e6) {
        ut_seterr(err, errlen, "%s: seconds: needs a number above 0", what);
        return -1;
    }
    if (!json_is_number(fz) || !(json_number_value(fz) >= 0 && json_number_value(fz) <= 1)) {
        ut_seterr(err, errlen, "%s: freeze_share: needs a number from 0 to 1", what);
        return -1;
    }
    if (waits_kind(json_string_value(w), &k) != 0) {
        ut_seterr(err, errlen, "%s: arm_spec.wait: needs Z, F, L or H", what);
        return -1;
    }
    p->seconds = json_number_value(s);
    p->freeze = json_number_value(fz);
    p->wait = (char)k;
    return fault_of(run, what, p, err, errlen);
}

/* ----------------------------------------------------- shared machinery */

/* The decoding context: the run, its reference, and what later files'
 * bases need of earlier ones. */
typedef struct {
    const raw4_params *p;
    const raw4_ref *ref;
    int64_t *off; /* the schedule's offsets (open loop) */
    size_t noff;
    const char *path; /* the file being coded, for errors */
    char *err;
    size_t errlen;
} ctx;

/* floor((x - base) / 1000): the offset written (rounded toward -inf). */
static int64_t us_floor(int64_t d) { return d >= 0 ? d / 1000 : -((-(d + 1)) / 1000) - 1; }

/* One offset column: encoding (x the logged instant) writes *v; either way
 * the decoded instant base + 1000 * *v goes to *out.  RAW_NONE passes. */
static int code_time(ctx *c, int enc, int64_t base, int64_t x, int64_t *v, int64_t *out, size_t i,
                     const char *col)
{
    if (enc)
        *v = x == RAW_NONE ? RAW_NONE : us_floor(x - base);
    if (*v == RAW_NONE) {
        *out = RAW_NONE;
        return 0;
    }
    if (base == RAW_NONE) {
        ut_seterr(c->err, c->errlen, "%s:%zu: column %s: %lld, but its base is absent", c->path, i + 3, col,
                  (long long)*v);
        return -1;
    }
    int64_t m;
    if (__builtin_mul_overflow(*v, (int64_t)1000, &m) || __builtin_add_overflow(base, m, out) || *out == RAW_NONE) {
        ut_seterr(c->err, c->errlen, "%s:%zu: column %s: %lld: the instant leaves 64 bits", c->path, i + 3, col,
                  (long long)*v);
        return -1;
    }
    return 0;
}

static int64_t floor_mod(int64_t a, int64_t n)
{
    int64_t m = a % n;
    return m < 0 ? m + n : m;
}

static int alloc_file(rawfmt_file *f, rawfmt_kind kind, size_t n, ctx *c)
{
    memset(f, 0, sizeof *f);
    f->t = rawfmt_table_of(kind);
    f->n = n;
    for (int k = 0; k < f->t->ncols; k++)
        if (!(f->col[k] = malloc((n ? n : 1) * sizeof(int64_t)))) {
            ut_seterr(c->err, c->errlen, "%s: out of memory", c->path);
            return -1;
        }
    return 0;
}

/* A log's value that format 4 leaves out differs from its rule. */
static int differs(ctx *c, size_t i, const char *col, int64_t got, int64_t want, const char *rule)
{
    if (got == want)
        return 0;
    char g[24] = "-", w[24] = "-";
    if (got != RAW_NONE)
        snprintf(g, sizeof g, "%lld", (long long)got);
    if (want != RAW_NONE)
        snprintf(w, sizeof w, "%lld", (long long)want);
    ut_seterr(c->err, c->errlen, "%s:%zu: column %s: %s, but %s gives %s", c->path, i + 3, col, g, rule, w);
    return -1;
}

/* ------------------------------------------------------------ the tester */

/* enc: log -> f4 and dec; else f4 -> dec.  The same bases either way. */
static int code_tester(ctx *c, int enc, const rawfmt_file *log, rawfmt_file *f4, rawfmt_file *dec)
{
    const raw4_params *p = c->p;
    size_t n = enc ? log->n : f4->n;
    if ((size_t)p->requests != n) {
        ut_seterr(c->err, c->errlen, "%s: %zu rows, but run.json's requests is %lld", c->path, n,
                  (long long)p->requests);
        return -1;
    }
    if (p->rate > 0 && c->noff != n) {
        ut_seterr(c->err, c->errlen, "%s: %zu rows, but the schedule (rate %lld, %g s, round %lld) has %zu", c->path,
                  n, (long long)p->rate, p->seconds, (long long)p->round, c->noff);
        return -1;
    }
    if ((enc && alloc_file(f4, RAWFMT_TESTER4, n, c) != 0) || alloc_file(dec, RAWFMT_TESTER, n, c) != 0)
        return -1;
    int64_t **L = enc ? ((rawfmt_file *)log)->col : NULL, **F = f4->col, **D = dec->col;
    for (size_t i = 0; i < n; i++) {
        int64_t row = floor_mod((int64_t)i, p->test_rows);
        int64_t sched = p->rate > 0 ? p->t0 + c->off[i] : RAW_NONE;
        if (enc) {
            if (differs(c, i, "j", L[RAWFMT_TESTER_j][i], (int64_t)i, "its place (request j on line j + 3)") ||
                differs(c, i, "row", L[RAWFMT_TESTER_row][i], row, "j mod test_rows"))
                return -1;
            if (p->rate > 0 && differs(c, i, "sched_t", L[RAWFMT_TESTER_sched_t][i], sched,
                                       "t0_ns + the schedule's offset j"))
                return -1;
            if (p->rate == 0 && L[RAWFMT_TESTER_send_t][i] == RAW_NONE) {
                ut_seterr(c->err, c->errlen, "%s:%zu: column send_t: -, but a closed loop sends every request",
                          c->path, i + 3);
                return -1;
            }
            if (p->rate == 0 && differs(c, i, "sched_t", L[RAWFMT_TESTER_sched_t][i], L[RAWFMT_TESTER_send_t][i],
                                        "a closed loop's sched_t = send_t"))
                return -1;
            F[RAWFMT_TESTER4_status][i] = L[RAWFMT_TESTER_status][i];
            F[RAWFMT_TESTER4_kind][i] = L[RAWFMT_TESTER_kind][i];
            F[RAWFMT_TESTER4_conn][i] = L[RAWFMT_TESTER_conn][i];
            F[RAWFMT_TESTER4_waited][i] = L[RAWFMT_TESTER_waited][i];
        }
        char kind = (char)F[RAWFMT_TESTER4_kind][i];
        if (p->rate == 0 && !enc && F[RAWFMT_TESTER4_send_us][i] == RAW_NONE) {
            ut_seterr(c->err, c->errlen, "%s:%zu: column send_us: -, but a closed loop (rate 0) sends every request",
                      c->path, i + 3);
            return -1;
        }
        /* send: after sched (open loop) or t0 (closed, where sched = send) */
        int64_t send;
        if (code_time(c, enc, p->rate > 0 ? sched : p->t0, enc ? L[RAWFMT_TESTER_send_t][i] : 0,
                      &F[RAWFMT_TESTER4_send_us][i], &send, i, "send_us") != 0)
            return -1;
        if (p->rate == 0)
            sched = send;
        if (code_time(c, enc, sched, enc ? L[RAWFMT_TESTER_answer_t][i] : 0, &F[RAWFMT_TESTER4_answer_us][i],
                      &D[RAWFMT_TESTER_answer_t][i], i, "answer_us") != 0)
            return -1;
        /* the score: "=" for its reference */
        const raw4_ref *r = c->ref;
        int have_ref = r && (size_t)row < r->n && strchr("LKD", kind);
        int64_t refbits = have_ref ? raw_f(kind == 'L' ? r->score[row] : kind == 'K' ? r->last[row] : r->dflt) : 0;
        if (enc) {
            int64_t s = L[RAWFMT_TESTER_score][i];
            F[RAWFMT_TESTER4_score][i] = have_ref && s == refbits ? RAWFMT_REF : s;
        }
        int64_t s = F[RAWFMT_TESTER4_score][i];
        if (s == RAWFMT_REF && !have_ref && (r || kind == 'E')) {
            ut_seterr(c->err, c->errlen, "%s:%zu: column score: \"=\", but %s", c->path, i + 3,
                      kind == 'E'  ? "kind E has no reference"
                      : r->n == 0 ? "no reference was found (scores.tsv, summary.json)"
                                  : "the reference has no such row");
            return -1;
        }
        D[RAWFMT_TESTER_j][i] = (int64_t)i;
        D[RAWFMT_TESTER_row][i] = row;
        D[RAWFMT_TESTER_sched_t][i] = sched;
        D[RAWFMT_TESTER_send_t][i] = send;
        D[RAWFMT_TESTER_status][i] = F[RAWFMT_TESTER4_status][i];
        D[RAWFMT_TESTER_kind][i] = kind;
        D[RAWFMT_TESTER_score][i] = s == RAWFMT_REF && have_ref ? refbits : s; /* no ref: RAWFMT_REF stays */
        D[RAWFMT_TESTER_conn][i] = F[RAWFMT_TESTER4_conn][i];
        D[RAWFMT_TESTER_waited][i] = F[RAWFMT_TESTER4_waited][i];
    }
    return 0;
}

/* ----------------------------------------------------------- the service */

static const char *const AK_START[5] = {"a0_start_us", "a1_start_us", "a2_start_us", "a3_start_us", "a4_start_us"};
static const char *const AK_END[5] = {"a0_end_us", "a1_end_us", "a2_end_us", "a3_end_us", "a4_end_us"};

/* The base of a lookup's end: start + W (the planned wait of (round, req,
 * attempt)) for an answered lookup (A), so that the offset is only how much
 * longer than planned the answer took; else its start.  An absent start
 * stays absent (code_time then refuses an end present). */
static int lookup_end_base(ctx *c, int a, int64_t req, int att, int64_t start, int64_t *base, size_t i,
                           const char *col)
{
    *base = start;
    if (!a || start == RAW_NONE)
        return 0;
    if (req < 0 || req > UINT32_MAX) { /* attempt is K, 0 to 4 */
        char v[24] = "-";
        if (req != RAW_NONE)
            snprintf(v, sizeof v, "%lld", (long long)req);
        ut_seterr(c->err, c->errlen, "%s:%zu: column req: %s, but %s's lookup was answered (A): its end is after "
                  "start + W, and W, the planned wait of (round, req, attempt), needs req 0 to 4294967295",
                  c->path, i + 3, v, col);
        return -1;
    }
    const raw4_params *p = c->p;
    int64_t w = waits_planned_ns_p((wait_kind)p->wait, p->freeze, (uint32_t)p->round, (uint32_t)req, (uint32_t)att);
    if (__builtin_add_overflow(start, w, base) || *base == RAW_NONE) {
        ut_seterr(c->err, c->errlen, "%s:%zu: column %s: its base start + W leaves 64 bits", c->path, i + 3, col);
        return -1;
    }
    return 0;
}

static int code_service(ctx *c, int enc, const rawfmt_file *tester, const rawfmt_file *log, rawfmt_file *f4,
                        rawfmt_file *dec)
{
    const raw4_params *p = c->p;
    size_t n = enc ? log->n : f4->n;
    if ((enc && alloc_file(f4, RAWFMT_SERVICE4, n, c) != 0) || alloc_file(dec, RAWFMT_SERVICE, n, c) != 0)
        return -1;
    int64_t **L = enc ? ((rawfmt_file *)log)->col : NULL, **F = f4->col, **D = dec->col;
    int64_t *const *T = tester->col;
    /* the columns other than times and row: the same in both tables */
    static const int same[][2] = {{RAWFMT_SERVICE_req, RAWFMT_SERVICE4_req},
                                  {RAWFMT_SERVICE_status, RAWFMT_SERVICE4_status},
                                  {RAWFMT_SERVICE_kind, RAWFMT_SERVICE4_kind},
                                  {RAWFMT_SERVICE_lookups, RAWFMT_SERVICE4_lookups},
                                  {RAWFMT_SERVICE_store, RAWFMT_SERVICE4_store}};
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
            if (enc)
                F[same[k][1]][i] = L[same[k][0]][i];
            D[same[k][0]][i] = F[same[k][1]][i];
        }
        int64_t req = F[RAWFMT_SERVICE4_req][i];
        int64_t row = req == RAW_NONE ? RAW_NONE : floor_mod(req, p->test_rows);
        if (enc && differs(c, i, "row", L[RAWFMT_SERVICE_row][i], row,
                           req == RAW_NONE ? "a request without an id (req -)" : "req mod test_rows"))
            return -1;
        D[RAWFMT_SERVICE_row][i] = row;
        int known = req != RAW_NONE && req >= 0 && req < p->requests;
        int64_t arrive, tans = known ? T[RAWFMT_TESTER_answer_t][req] : RAW_NONE;
        if (code_time(c, enc, known ? T[RAWFMT_TESTER_sched_t][req] : p->t0, enc ? L[RAWFMT_SERVICE_arrive_t][i] : 0,
                      &F[RAWFMT_SERVICE4_arrive_us][i], &arrive, i, "arrive_us") != 0 ||
            code_time(c, enc, tans != RAW_NONE ? tans : arrive, enc ? L[RAWFMT_SERVICE_answer_t][i] : 0,
                      &F[RAWFMT_SERVICE4_answer_us][i], &D[RAWFMT_SERVICE_answer_t][i], i, "answer_us") != 0)
            return -1;
        D[RAWFMT_SERVICE_arrive_t][i] = arrive;
        for (int k = 0; k < 5; k++) {
            int ls = RAWFMT_SERVICE_a0_start_t + 3 * k, fs = RAWFMT_SERVICE4_a0_start_us + 3 * k;
            int64_t st, eb;
            if (enc)
                F[fs + 2][i] = L[ls + 2][i];
            if (code_time(c, enc, arrive, enc ? L[ls][i] : 0, &F[fs][i], &st, i, AK_START[k]) != 0 ||
                lookup_end_base(c, F[fs + 2][i] == 'A', req, k, st, &eb, i, AK_END[k]) != 0 ||
                code_time(c, enc, eb, enc ? L[ls + 1][i] : 0, &F[fs + 1][i], &D[ls + 1][i], i, AK_END[k]) != 0)
                return -1;
            D[ls][i] = st;
            D[ls + 2][i] = F[fs + 2][i];
        }
    }
    return 0;
}

/* --------------------------------------------------------- the store(s) */

/* req -> the decoded aK_start_t (K = 0 .. 4, each possibly absent) of the
 * first service row with that req: open addressing, size a power of 2. */
typedef struct {
    int64_t req, start[5];
    int used;
} slot;
typedef struct {
    slot *s;
    size_t mask;
} startmap;

static size_t hash_req(int64_t req) { return (size_t)(((uint64_t)req * 0x9e3779b97f4a7c15ULL) >> 17); }

static int map_build(startmap *m, const rawfmt_file *v, ctx *c)
{
    size_t cap = 16;
    while (cap < 2 * v->n + 16)
        cap *= 2;
    m->s = calloc(cap, sizeof *m->s);
    if (!m->s) {
        ut_seterr(c->err, c->errlen, "%s: out of memory", c->path);
        return -1;
    }
    m->mask = cap - 1;
    for (size_t i = 0; i < v->n; i++) {
        int64_t req = v->col[RAWFMT_SERVICE_req][i];
        if (req == RAW_NONE)
            continue;
        size_t h = hash_req(req) & m->mask;
        while (m->s[h].used && m->s[h].req != req)
            h = (h + 1) & m->mask;
        if (m->s[h].used) /* the first row wins */
            continue;
        m->s[h].used = 1;
        m->s[h].req = req;
        for (int k = 0; k < 5; k++)
            m->s[h].start[k] = v->col[RAWFMT_SERVICE_a0_start_t + 3 * k][i];
    }
    return 0;
}

static int64_t map_get(const startmap *m, int64_t req, int64_t k)
{
    if (k < 0 || k > 4)
        return RAW_NONE;
    for (size_t h = hash_req(req) & m->mask; m->s[h].used; h = (h + 1) & m->mask)
        if (m->s[h].req == req)
            return m->s[h].start[k];
    return RAW_NONE;
}

/* 1 when the floored arrival `dec` (ns from t0) lies before an edge of
 * the window that the logged one `x` is at or after: the store decided by
 * x (lab/RAWFORMAT.md, "A window's edge"), so the writer rounds up. */
static int crosses_edge(const fault_window *w, int64_t dec, int64_t x)
{
    return (dec < w->from_ns && x >= w->from_ns) || (w->to_ns != INT64_MAX && dec < w->to_ns && x >= w->to_ns);
}

/* In a row whose arrival was rounded up: an offset written negative
 * becomes 0, so arrive_t <= start_t <= end_t holds as logged. */
static void not_before(int64_t *v, int64_t base, int64_t *out)
{
    if (*v != RAW_NONE && *v < 0) {
        *v = 0;
        *out = base;
    }
}

/* Store file `store` (0 store, 1 store2). */
static int code_store(ctx *c, int enc, int store, const startmap *m, const rawfmt_file *log, rawfmt_file *f4,
                      rawfmt_file *dec)
{
    const raw4_params *p = c->p;
    size_t n = enc ? log->n : f4->n;
    if ((enc && alloc_file(f4, RAWFMT_STORE4, n, c) != 0) || alloc_file(dec, RAWFMT_STORE, n, c) != 0)
        return -1;
    int64_t **L = enc ? ((rawfmt_file *)log)->col : NULL, **F = f4->col, **D = dec->col;
    static const int same[][2] = {{RAWFMT_STORE_req, RAWFMT_STORE4_req},       {RAWFMT_STORE_attempt, RAWFMT_STORE4_attempt},
                                  {RAWFMT_STORE_budget_ns, RAWFMT_STORE4_budget_ns}, {RAWFMT_STORE_outcome, RAWFMT_STORE4_outcome},
                                  {RAWFMT_STORE_line, RAWFMT_STORE4_line},     {RAWFMT_STORE_busy, RAWFMT_STORE4_busy}};
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
            if (enc)
                F[same[k][1]][i] = L[same[k][0]][i];
            D[same[k][0]][i] = F[same[k][1]][i];
        }
        int64_t req = F[RAWFMT_STORE4_req][i], att = F[RAWFMT_STORE4_attempt][i];
        if (req < 0 || req > UINT32_MAX || att < 0 || att > UINT16_MAX) {
            ut_seterr(c->err, c->errlen, "%s:%zu: column %s: %lld: not what a lookup carries (req 0 to 4294967295, "
                      "attempt 0 to 65535)", c->path, i + 3, req < 0 || req > UINT32_MAX ? "req" : "attempt",
                      (long long)(req < 0 || req > UINT32_MAX ? req : att));
            return -1;
        }
        int64_t row = floor_mod(req, p->test_rows);
        int64_t w = waits_planned_ns_p((wait_kind)p->wait, p->freeze, (uint32_t)p->round, (uint32_t)req, (uint32_t)att);
        if (enc && differs(c, i, "row", L[RAWFMT_STORE_row][i], row, "req mod test_rows"))
            return -1;
        D[RAWFMT_STORE_row][i] = row;
        int64_t base = map_get(m, req, att), arrive, start;
        int a = F[RAWFMT_STORE4_outcome][i] == 'A';
        if (code_time(c, enc, base != RAW_NONE ? base : p->t0, enc ? L[RAWFMT_STORE_arrive_t][i] : 0,
                      &F[RAWFMT_STORE4_arrive_us][i], &arrive, i, "arrive_us") != 0)
            return -1;
        int up = enc && arrive != RAW_NONE && fault_has_window(p->fault.kind) && fault_at_store(p->fault.kind, store) &&
                 crosses_edge(&p->win, arrive - p->t0, L[RAWFMT_STORE_arrive_t][i] - p->t0);
        if (up) {
            F[RAWFMT_STORE4_arrive_us][i] += 1;
            arrive += 1000;
        }
        if (code_time(c, enc, arrive, enc ? L[RAWFMT_STORE_start_t][i] : 0, &F[RAWFMT_STORE4_start_us][i], &start, i,
                      "start_us") != 0)
            return -1;
        if (up)
            not_before(&F[RAWFMT_STORE4_start_us][i], arrive, &start);
        /* a slow store's slowness, by its arrival as format 4 holds it */
        if (fault_at_store(p->fault.kind, store) && arrive != RAW_NONE)
            w += fault_slow_ns(&p->fault, &p->win, arrive - p->t0);
        if (enc && differs(c, i, "planned_ns", L[RAWFMT_STORE_planned_ns][i], w,
                           "the dice of (round, req, attempt), plus a slow store's slowness at arrive_us"))
            return -1;
        D[RAWFMT_STORE_planned_ns][i] = w;
        int64_t end = enc ? L[RAWFMT_STORE_end_t][i] : F[RAWFMT_STORE4_end_us][i];
        if (a && start == RAW_NONE && end != RAW_NONE) {
            ut_seterr(c->err, c->errlen, "%s:%zu: column start_us: -, but outcome A always had a slot (end_us's base "
                      "is start_t + W)", c->path, i + 3);
            return -1;
        }
        /* end: after start + W for A (the overshoot), else after start or arrive */
        int64_t eb = start != RAW_NONE ? start : arrive;
        if (a && start != RAW_NONE && (__builtin_add_overflow(start, w, &eb) || eb == RAW_NONE)) {
            ut_seterr(c->err, c->errlen, "%s:%zu: column end_us: its base start + W leaves 64 bits", c->path, i + 3);
            return -1;
        }
        if (code_time(c, enc, eb, enc ? L[RAWFMT_STORE_end_t][i] : 0, &F[RAWFMT_STORE4_end_us][i],
                      &D[RAWFMT_STORE_end_t][i], i, "end_us") != 0)
            return -1;
        if (up)
            not_before(&F[RAWFMT_STORE4_end_us][i], eb, &D[RAWFMT_STORE_end_t][i]);
        D[RAWFMT_STORE_arrive_t][i] = arrive;
        D[RAWFMT_STORE_start_t][i] = start;
    }
    return 0;
}

/* ------------------------------------------------------ files and runs */

void raw4_run_free(raw4_run *r)
{
    if (!r)
        return;
    for (int k = 0; k < RAW4_NFILES; k++)
        rawfmt_file_free(&r->f[k]);
}

static int schedule(ctx *c)
{
    c->off = NULL;
    c->noff = 0;
    if (c->p->rate <= 0)
        return 0;
    if (arrivals_schedule(arrivals_seed((uint64_t)c->p->round), (double)c->p->rate, c->p->seconds, &c->off,
                          &c->noff) != 0) {
        ut_seterr(c->err, c->errlen, "out of memory for the schedule");
        return -1;
    }
    return 0;
}

static int nstore_files(const raw4_params *p) { return p->stores == 2 ? 2 : 1; }

/* enc: the logs lg[] (tester, service, store, store2) to f4[] and out;
 * else f4[] to out.  The files' paths name the errors. */
static int code_run(ctx *c, int enc, const char *dir, rawfmt_file *lg, rawfmt_file *f4, raw4_run *out)
{
    char path[4300];
    const char *ext = enc ? "log.gz" : "tsv.gz";
    c->path = path;
    snprintf(path, sizeof path, "%s/tester.%s", dir, ext);
    if (code_tester(c, enc, &lg[0], &f4[0], &out->f[RAW4_TESTER]) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/service.%s", dir, ext);
    if (code_service(c, enc, &out->f[RAW4_TESTER], &lg[1], &f4[1], &out->f[RAW4_SERVICE]) != 0)
        return -1;
    startmap m = {0};
    int rc = map_build(&m, &out->f[RAW4_SERVICE], c);
    for (int s = 0; rc == 0 && s < nstore_files(c->p); s++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, RAW4_NAMES[RAW4_STORE + s], ext);
        rc = code_store(c, enc, s, &m, &lg[2 + s], &f4[2 + s], &out->f[RAW4_STORE + s]);
    }
    free(m.s);
    return rc;
}

int raw4_decode(const char *dir, const raw4_params *p, const raw4_ref *ref, raw4_run *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->p = *p;
    ctx c = {.p = &out->p, .ref = ref, .err = err, .errlen = errlen};
    rawfmt_file f4[4] = {{0}};
    static const rawfmt_kind kinds[4] = {RAWFMT_TESTER4, RAWFMT_SERVICE4, RAWFMT_STORE4, RAWFMT_STORE4};
    int rc = schedule(&c);
    for (int k = 0; rc == 0 && k < 2 + nstore_files(p); k++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/%s.tsv.gz", dir, RAW4_NAMES[k]);
        rc = rawfmt_read(path, kinds[k], &f4[k], err, errlen);
    }
    if (rc == 0)
        rc = code_run(&c, 0, dir, NULL, f4, out);
    for (int k = 0; k < 4; k++)
        rawfmt_file_free(&f4[k]);
    free(c.off);
    if (rc != 0)
        raw4_run_free(out);
    return rc;
}

int raw4_read_run(const char *dir, const char *refdir, raw4_run *out, char *err, size_t errlen)
{
    char path[4300];
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_error_t je;
    json_t *rj = json_load_file(path, 0, &je);
    if (!rj) {
        ut_seterr(err, errlen, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    raw4_params p;
    raw4_ref ref = {0};
    int found = 0;
    int rc = raw4_params_json(rj, path, &p, err, errlen);
    json_decref(rj);
    if (rc == 0 && refdir)
        rc = raw4_ref_load(refdir, &ref, &found, err, errlen);
    if (rc == 0) /* refdir without scores.tsv: an empty reference, so that "=" is refused */
        rc = raw4_decode(dir, &p, refdir ? &ref : NULL, out, err, errlen);
    raw4_ref_free(&ref);
    for (int k = RAW4_MACHINE; rc == 0 && k <= RAW4_EVENTS; k++) {
        snprintf(path, sizeof path, "%s/%s.tsv.gz", dir, RAW4_NAMES[k]);
        rc = rawfmt_read(path, k == RAW4_MACHINE ? RAWFMT_MACHINE : RAWFMT_EVENTS, &out->f[k], err, errlen);
    }
    if (rc != 0)
        raw4_run_free(out);
    return rc;
}

/* ------------------------------------------------------------ writing */

int raw4_write_file(const char *path, const rawfmt_file *f, char *err, size_t errlen)
{
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    gzFile gz = gzopen(tmp, "wb9");
    if (!gz) {
        ut_seterr(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    gzbuffer(gz, 1 << 18);
    const rawfmt_table *t = f->t;
    int bad = gzprintf(gz, "# lab-raw %s %s\n", t->version, t->name) <= 0;
    for (int k = 0; k < t->ncols; k++)
        bad |= gzprintf(gz, "%s%s", k ? "\t" : "", t->cols[k].name) <= 0;
    bad |= gzputc(gz, '\n') < 0;
    char line[RAW_MAXCOLS * 28 + 2];
    for (size_t i = 0; i < f->n && !bad; i++) {
        size_t o = 0;
        for (int k = 0; k < t->ncols; k++) {
            int64_t v = f->col[k][i];
            if (k)
                line[o++] = '\t';
            if (v == RAW_NONE)
                line[o++] = '-';
            else if (t->cols[k].type == 'c')
                line[o++] = (char)v;
            else if (t->cols[k].type == 'r' && v == RAWFMT_REF)
                line[o++] = '=';
            else if (t->cols[k].type == 'r' || t->cols[k].type == 'f')
                o += (size_t)snprintf(line + o, 24, "%.9g", (double)rawfmt_float(v));
            else
                o += (size_t)snprintf(line + o, 24, "%lld", (long long)v);
        }
        line[o++] = '\n';
        bad |= gzwrite(gz, line, (unsigned)o) != (int)o;
    }
    if (gzclose(gz) != Z_OK || bad || rename(tmp, path) != 0) {
        ut_seterr(err, errlen, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Every decoded value against the log's: an instant within [x - 999, x]
 * (in a store row whose arrival was rounded up at a window's edge, decoded
 * later than logged: within [x - 999, x + 999]), anything else equal. */
static int compare(const char *path, const rawfmt_file *log, const rawfmt_file *dec, char *err, size_t errlen)
{
    int store = log->t == rawfmt_table_of(RAWFMT_STORE);
    for (size_t i = 0; i < log->n; i++) {
        int64_t late = store && dec->col[RAWFMT_STORE_arrive_t][i] > log->col[RAWFMT_STORE_arrive_t][i] ? 999 : 0;
        for (int k = 0; k < log->t->ncols; k++) {
            int64_t x = log->col[k][i], y = dec->col[k][i];
            int ok = log->t->cols[k].type == 't' && x != RAW_NONE && y != RAW_NONE ? y <= x + late && y >= x - 999
                                                                                   : x == y;
            if (!ok) {
                ut_seterr(err, errlen, "%s:%zu: column %s: %lld logged, %lld read back from format 4", path, i + 3,
                          log->t->cols[k].name, (long long)x, (long long)y);
                return -1;
            }
        }
    }
    return 0;
}

static uint64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

int raw4_rewrite(const char *dir, const raw4_params *p, const raw4_ref *ref, raw4_stats *st, char *err, size_t errlen)
{
    int64_t w0 = ut_mono_ns();
    memset(st, 0, sizeof *st);
    ctx c = {.p = p, .ref = ref, .err = err, .errlen = errlen};
    rawfmt_file lg[4] = {{0}}, f4[4] = {{0}};
    raw4_run enc = {0}, back = {0};
    static const rawfmt_kind kinds[4] = {RAWFMT_TESTER, RAWFMT_SERVICE, RAWFMT_STORE, RAWFMT_STORE};
    const int nf = 2 + nstore_files(p);
    char path[4300];
    int rc = schedule(&c);
    for (int k = 0; rc == 0 && k < nf; k++) {
        snprintf(path, sizeof path, "%s/%s.log.gz", dir, RAW4_NAMES[k]);
        st->log_bytes[k] = file_size(path);
        rc = rawfmt_read(path, kinds[k], &lg[k], err, errlen);
        st->rows[k] = lg[k].n;
    }
    enc.p = *p;
    if (rc == 0)
        rc = code_run(&c, 1, dir, lg, f4, &enc);
    for (int k = 0; rc == 0 && k < nf; k++) {
        snprintf(path, sizeof path, "%s/%s.tsv.gz", dir, RAW4_NAMES[k]);
        rc = raw4_write_file(path, &f4[k], err, errlen);
        st->out_bytes[k] = file_size(path);
    }
    /* read back as any reader will, and held against the logs */
    if (rc == 0)
        rc = raw4_decode(dir, p, ref, &back, err, errlen);
    for (int k = 0; rc == 0 && k < nf; k++) {
        snprintf(path, sizeof path, "%s/%s.tsv.gz", dir, RAW4_NAMES[k]);
        rc = compare(path, &lg[k], &back.f[k], err, errlen);
    }
    for (int k = 0; k < nf; k++) {
        snprintf(path, sizeof path, "%s/%s.%s.gz", dir, RAW4_NAMES[k], rc == 0 ? "log" : "tsv");
        unlink(path); /* the logs go once rewritten; a failed rewrite leaves no format 4 file */
        rawfmt_file_free(&lg[k]);
        rawfmt_file_free(&f4[k]);
    }
    raw4_run_free(&enc);
    raw4_run_free(&back);
    free(c.off);
    st->seconds = (double)(ut_mono_ns() - w0) / 1e9;
    return rc;
}
