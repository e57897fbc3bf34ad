/* rawdec: see rawdec.h.  Every rule is RAWFORMAT.md's (format 4). */
#include "rawdec.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

static const char NOT_WRITTEN[] = "(not written)";

static void read_slow(rx_run *x, const vj_node *rj, long long t0);

void rx_init(rx_run *x, const vj_node *rj, long long round, double seconds, long long t0, const ref_data *ref)
{
    memset(x, 0, sizeof *x);
    x->t0 = t0;
    x->round = round;
    x->seconds = seconds;
    x->ref = ref;
    x->test_rows = -1;
    x->requests = -1;
    const vj_node *n = vj_get(rj, "rate");
    if (n && n->type == VJ_NUM && n->num >= 0 && isfinite(n->num)) {
        x->has_rate = 1;
        x->rate = n->num;
        x->closed = n->num == 0;
        if (!x->closed)
            dc_sched_init(&x->sched, (uint64_t)round, x->rate, seconds);
    }
    n = vj_get(rj, "test_rows");
    if (n && n->type == VJ_NUM && n->is_int && n->i > 0)
        x->test_rows = n->i;
    n = vj_get(rj, "requests");
    if (n && n->type == VJ_NUM && n->is_int && n->i >= 0)
        x->requests = n->i;
    read_slow(x, rj, t0);
    n = vj_get(vj_get(rj, "arm_spec"), "hedge2");
    x->hedge2 = n && n->type == VJ_NUM && n->is_int && n->i == 1;
    const char *w = vj_get_str(vj_get(rj, "arm_spec"), "wait");
    n = vj_get(rj, "freeze_share");
    if (!w || strlen(w) != 1 || !strchr("ZFLH", w[0]))
        snprintf(x->why_nowait, sizeof x->why_nowait, "run.json arm_spec.wait is not one of Z F L H");
    else if (w[0] == 'H' && (!n || n->type != VJ_NUM))
        snprintf(x->why_nowait, sizeof x->why_nowait, "wait H and run.json has no number freeze_share");
    else {
        x->wait = w[0];
        x->p = n && n->type == VJ_NUM ? n->num : 0;
    }
}

/* run.json's fault slow or slowboth with its window (docs/DESIGN.md 5.9:
 * windowed like down, from_ns and to_ns in fault): the stores it slows and
 * the window as instants.  A fault that cannot be read so is left to
 * outage.h, which rejects the run. */
static void read_slow(rx_run *x, const vj_node *rj, long long t0)
{
    const vj_node *f = vj_get(rj, "fault");
    const char *name = vj_get_str(f, "name");
    if (!name || (strcmp(name, "slow") && strcmp(name, "slowboth")))
        return;
    const vj_node *from = vj_get(f, "from_ns"), *to = vj_get(f, "to_ns");
    if (!from || from->type != VJ_NUM || !from->is_int || !to ||
        !(to->type == VJ_NULL || (to->type == VJ_NUM && to->is_int)))
        return;
    long long F, U = LLONG_MAX;
    if (__builtin_add_overflow(t0, from->i, &F) || (to->type == VJ_NUM && __builtin_add_overflow(t0, to->i, &U)))
        return;
    x->slow_mask = strcmp(name, "slow") ? 3u : 1u;
    x->slow_F = F;
    x->slow_U = U;
    x->slow_ns = RX_SLOW_NS;
}

/* the slowness a lookup arriving at store (1 or 2) at t adds to its wait */
static long long slow_add(const rx_run *x, int store, long long t)
{
    if (store < 1 || store > 2 || !(x->slow_mask & (1u << (store - 1))))
        return 0;
    return t >= x->slow_F && t < x->slow_U ? x->slow_ns : 0;
}

void rx_free(rx_run *x)
{
    free(x->sched_t);
    free(x->answer_t);
    free(x->astart);
    free(x->vseen);
    free(x->other);
    memset(x, 0, sizeof *x);
}

static int cmp_other(const void *a, const void *b)
{
    const rx_other *p = a, *q = b;
    if (p->req != q->req)
        return p->req < q->req ? -1 : 1;
    return (p->seq > q->seq) - (p->seq < q->seq);
}

int rx_open(rx_file *f, rx_run *x, int kind, const char *path, const unsigned char *gz, size_t gzlen, char *err,
            size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->x = x;
    f->kind = kind;
    f->store = 1;
    static const char *const names[3] = {"tester", "service", "store"};
    static const rr_col *const cols[3] = {tester_cols, service_cols, store_cols};
    static const int ncol[3] = {TW_NCOL, VW_NCOL, SW_NCOL};
    if (kind == RX_SERVICE && !x->astart) {
        size_t m = (size_t)x->nt + 1;
        x->astart = vu_xmalloc(m * RC_LOOKUPS * sizeof *x->astart);
        x->vseen = vu_xcalloc(m, 1);
    }
    if (kind == RX_STORE && !x->sorted) {
        if (x->no)
            qsort(x->other, x->no, sizeof *x->other, cmp_other);
        x->sorted = 1;
    }
    if (rr_open(&f->f, path, gz, gzlen, names[kind], cols[kind], ncol[kind], err, errlen))
        return -1;
    if (kind == RX_TESTER && !x->has_rate) {
        snprintf(err, errlen, "%s: run.json's rate is not a number >= 0: the scheduled arrivals cannot be drawn, "
                              "and format 4 needs them to decode the file (RAWFORMAT.md)", path);
        return -1;
    }
    return 0;
}

void rx_close(rx_file *f)
{
    rr_close(&f->f);
}

/* instant = base + 1000 us; 0, or -1 beyond 64 bits */
static int at(long long base, long long us, long long *out)
{
    long long m;
    return __builtin_mul_overflow(us, 1000LL, &m) || __builtin_add_overflow(base, m, out) ? -1 : 0;
}

static long long mod_rows(long long v, long long rows)
{
    if (rows <= 0)
        return v;
    long long r = v % rows;
    return r < 0 ? r + rows : r;
}

static void derived(rr_row *o, int k, long long v)
{
    o->v[k] = v;
    o->has[k] = 1;
    o->text[k] = NOT_WRITTEN;
}

/* raw column w (an offset) decoded from base into o's column k */
static int offset(rx_file *f, rr_row *o, int k, int w, long long base, const char *name, char *err, size_t n)
{
    o->has[k] = f->raw.has[w];
    o->text[k] = f->raw.text[w];
    if (!o->has[k])
        return 0;
    if (at(base, f->raw.v[w], &o->v[k])) {
        snprintf(err, n, "%s:%ld: field %s \"%.40s\" overflows 64 bits when decoded", f->f.path, f->f.line,
                 f->f.cols[w].name, f->raw.text[w]);
        return -1;
    }
    if (!f->tmin_line || o->v[k] < f->tmin) {
        f->tmin = o->v[k];
        f->tmin_line = f->f.line;
        f->tmin_col = name;
    }
    return 0;
}

static void copy(rx_file *f, rr_row *o, int k, int w)
{
    o->v[k] = f->raw.v[w];
    o->f[k] = f->raw.f[w];
    o->c[k] = f->raw.c[w];
    o->has[k] = f->raw.has[w];
    o->text[k] = f->raw.text[w];
}

static int grow_tester(rx_run *x)
{
    if (x->nt < x->cap)
        return 0;
    x->cap = x->cap ? 2 * x->cap : 16384;
    x->sched_t = vu_xrealloc(x->sched_t, (size_t)x->cap * sizeof *x->sched_t);
    x->answer_t = vu_xrealloc(x->answer_t, (size_t)x->cap * sizeof *x->answer_t);
    return 0;
}

/* the reference of a "=" score: kind L the row's score, K its last_known, D default_score */
static float reference(const rx_run *x, char kind, long long row)
{
    if (!x->ref)
        return NAN;
    if (kind == 'D')
        return x->ref->default_score;
    if (x->test_rows <= 0 || row < 0 || (size_t)row >= x->ref->rows)
        return NAN;
    return kind == 'L' ? x->ref->score[row] : x->ref->last_known[row];
}

static int dec_tester(rx_file *f, rr_row *o, char *err, size_t n)
{
    rx_run *x = f->x;
    const rr_row *w = &f->raw;
    const char *p = f->f.path;
    long line = f->f.line;
    long long j = x->nt, sched = 0, off;
    derived(o, T_J, j);
    derived(o, T_ROW, mod_rows(j, x->test_rows));
    if (!x->closed) {
        if (!dc_sched_next(&x->sched, &off)) {
            snprintf(err, n,
                     "%s:%ld: request %lld has no scheduled arrival: the schedule (seed %llu, rate %g, seconds %g) "
                     "has %lld offsets, and format 4 does not write sched_t (RAWFORMAT.md)",
                     p, line, j, (unsigned long long)dc_schedule_seed((uint64_t)x->round), x->rate, x->seconds,
                     x->sched.count);
            return -1;
        }
        if (__builtin_add_overflow(x->t0, off, &sched)) {
            snprintf(err, n, "%s:%ld: t0_ns + the schedule's offset overflows 64 bits", p, line);
            return -1;
        }
        derived(o, T_SCHED, sched);
        if (offset(f, o, T_SEND, TW_SEND, sched, "send_t", err, n))
            return -1;
    } else {
        if (!w->has[TW_SEND]) {
            snprintf(err, n,
                     "%s:%ld: send_us is - in a closed-loop run (rate 0): sched_t = send_t has no value "
                     "(RAWFORMAT.md: the tester makes a request there only when it sends it)",
                     p, line);
            return -1;
        }
        if (offset(f, o, T_SEND, TW_SEND, x->t0, "send_t", err, n))
            return -1;
        sched = o->v[T_SEND];
        derived(o, T_SCHED, sched);
    }
    if (offset(f, o, T_ANSWER, TW_ANSWER, sched, "answer_t", err, n))
        return -1;
    copy(f, o, T_STATUS, TW_STATUS);
    copy(f, o, T_KIND, TW_KIND);
    copy(f, o, T_SCORE, TW_SCORE);
    copy(f, o, T_CONN, TW_CONN);
    copy(f, o, T_WAITED, TW_WAITED);
    if (w->has[TW_SCORE] == 2) {
        if (w->c[TW_KIND] == 'E') {
            snprintf(err, n, "%s:%ld: score is = with kind E: only an L, K or D answer has a reference (RAWFORMAT.md)",
                     p, line);
            return -1;
        }
        o->f[T_SCORE] = reference(x, w->c[TW_KIND], o->v[T_ROW]);
    }
    grow_tester(x);
    x->sched_t[j] = sched;
    x->answer_t[j] = o->has[T_ANSWER] ? o->v[T_ANSWER] : RX_ABSENT;
    x->nt++;
    return 0;
}

/* the planned wait W of lookup k of a service row with req (RAWFORMAT.md:
 * an A lookup's aK_end_us is after aK_start_t + W, W the dice alone: a slow
 * store's slowness is not in it, it is in aK_end_us) */
static int lookup_wait(rx_file *f, int k, int has_req, long long req, long long *w, char *err, size_t n)
{
    const rx_run *x = f->x;
    if (!has_req) {
        snprintf(err, n, "%s:%ld: a%d_out is A in a row without req: a%d_end_us's base, a%d_start_t + W, needs the "
                         "planned wait of (round, req, attempt %d) (RAWFORMAT.md)",
                 f->f.path, f->f.line, k, k, k, k);
        return -1;
    }
    if (!x->wait) {
        snprintf(err, n,
                 "%s:%ld: lookup a%d's planned wait cannot be drawn (%s), and format 4 needs it for an A lookup's "
                 "a%d_end_us (RAWFORMAT.md, \"What a reader can draw again\")",
                 f->f.path, f->f.line, k, x->why_nowait, k);
        return -1;
    }
    dc_wait(x->wait, (uint64_t)x->round, (uint64_t)req, (uint64_t)k, x->p, w);
    return 0;
}

/* the lookups of a service row; *starts gets their aK_start_t (RX_ABSENT: not tried) */
static int dec_lookups(rx_file *f, rr_row *o, int has_req, long long req, long long *starts, char *err, size_t n)
{
    for (int k = 0; k < RC_LOOKUPS; k++) {
        int cs = V_A0S + 3 * k, ws = VW_A0S + 3 * k;
        if (offset(f, o, cs, ws, o->v[V_ARRIVE], service_dec_names[cs], err, n))
            return -1;
        if (f->raw.has[ws + 1] && !o->has[cs]) {
            snprintf(err, n, "%s:%ld: a%d_end_us has no base: a%d_start_us is - (RAWFORMAT.md: aK_end_us is after "
                             "aK_start_t, + W for an A lookup)",
                     f->f.path, f->f.line, k, k);
            return -1;
        }
        long long ebase = o->v[cs], w = 0;
        if (f->raw.has[ws + 1] && f->raw.has[ws + 2] && f->raw.c[ws + 2] == 'A') {
            if (lookup_wait(f, k, has_req, req, &w, err, n))
                return -1;
            if (__builtin_add_overflow(o->v[cs], w, &ebase)) {
                snprintf(err, n, "%s:%ld: a%d_start_t + W overflows 64 bits", f->f.path, f->f.line, k);
                return -1;
            }
        }
        if (offset(f, o, cs + 1, ws + 1, ebase, service_dec_names[cs + 1], err, n))
            return -1;
        copy(f, o, cs + 2, ws + 2);
        starts[k] = o->has[cs] ? o->v[cs] : RX_ABSENT;
    }
    return 0;
}

static int dec_service(rx_file *f, rr_row *o, char *err, size_t n)
{
    rx_run *x = f->x;
    const rr_row *w = &f->raw;
    copy(f, o, V_REQ, VW_REQ);
    long long req = w->v[VW_REQ], reqs = x->requests >= 0 ? x->requests : x->nt;
    int has_req = w->has[VW_REQ], in = has_req && req >= 0 && req < reqs;
    if (has_req)
        derived(o, V_ROW, mod_rows(req, x->test_rows));
    else {
        o->has[V_ROW] = 0;
        o->text[V_ROW] = NOT_WRITTEN;
    }
    if (in && req >= x->nt) {
        snprintf(err, n,
                 "%s:%ld: arrive_us's base, sched_t of request %lld, is absent: tester.tsv.gz has %lld rows "
                 "(run.json requests %lld)",
                 f->f.path, f->f.line, req, x->nt, reqs);
        return -1;
    }
    if (offset(f, o, V_ARRIVE, VW_ARRIVE, in ? x->sched_t[req] : x->t0, "arrive_t", err, n))
        return -1;
    long long abase = in && x->answer_t[req] != RX_ABSENT ? x->answer_t[req] : o->v[V_ARRIVE];
    if (offset(f, o, V_ANSWER, VW_ANSWER, abase, "answer_t", err, n))
        return -1;
    copy(f, o, V_STATUS, VW_STATUS);
    copy(f, o, V_KIND, VW_KIND);
    copy(f, o, V_LOOKUPS, VW_LOOKUPS);
    copy(f, o, V_STORE, VW_STORE);
    long long starts[RC_LOOKUPS];
    if (dec_lookups(f, o, has_req, req, starts, err, n))
        return -1;
    if (!has_req)
        return 0;
    if (req >= 0 && req < x->nt) {
        if (!x->vseen[req]) {
            x->vseen[req] = 1;
            memcpy(x->astart + req * RC_LOOKUPS, starts, sizeof starts);
        }
        return 0;
    }
    if (x->no == x->capo) {
        x->capo = x->capo ? 2 * x->capo : 64;
        x->other = vu_xrealloc(x->other, x->capo * sizeof *x->other);
    }
    rx_other *e = &x->other[x->no];
    e->req = req;
    e->seq = x->no++;
    memcpy(e->start, starts, sizeof starts);
    return 0;
}

/* aK_start_t (K = attempt) of the first service row with this req; RX_ABSENT: none */
static long long service_start(const rx_run *x, long long req, long long att)
{
    if (att < 0 || att >= RC_LOOKUPS)
        return RX_ABSENT;
    if (req >= 0 && req < x->nt)
        return x->vseen && x->vseen[req] ? x->astart[req * RC_LOOKUPS + att] : RX_ABSENT;
    /* rawdec.h: the other reqs' rows sorted by (req, place) before the stores are read */
    assert(x->sorted || x->no == 0);
    size_t lo = 0, hi = x->no;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->other[mid].req < req)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->no && x->other[lo].req == req ? x->other[lo].start[att] : RX_ABSENT;
}

static int dec_store(rx_file *f, rr_row *o, char *err, size_t n)
{
    rx_run *x = f->x;
    const rr_row *w = &f->raw;
    const char *p = f->f.path;
    copy(f, o, S_REQ, SW_REQ);
    copy(f, o, S_ATTEMPT, SW_ATTEMPT);
    long long req = w->v[SW_REQ], att = w->v[SW_ATTEMPT], planned = 0;
    derived(o, S_ROW, mod_rows(req, x->test_rows));
    if (!x->wait) {
        snprintf(err, n,
                 "%s:%ld: the lookup's planned wait cannot be drawn (%s), and format 4 needs it (RAWFORMAT.md, "
                 "\"What a reader can draw again\")",
                 p, f->f.line, x->why_nowait);
        return -1;
    }
    dc_wait(x->wait, (uint64_t)x->round, (uint64_t)req, (uint64_t)att, x->p, &planned);
    long long base = service_start(x, req, att);
    if (offset(f, o, S_ARRIVE, SW_ARRIVE, base == RX_ABSENT ? x->t0 : base, "arrive_t", err, n))
        return -1;
    /* docs/DESIGN.md 5.9: the dice plus the slowness, by arrive_t */
    planned += slow_add(x, f->store, o->v[S_ARRIVE]);
    derived(o, S_PLANNED, planned);
    if (offset(f, o, S_START, SW_START, o->v[S_ARRIVE], "start_t", err, n))
        return -1;
    char oc = w->c[SW_OUTCOME];
    if (oc == 'A' && w->has[SW_END] && !o->has[S_START]) {
        snprintf(err, n, "%s:%ld: outcome A without start_us: end_us's base, start_t + W, is absent (RAWFORMAT.md: "
                         "an A row always had a slot)",
                 p, f->f.line);
        return -1;
    }
    long long ebase = o->has[S_START] ? o->v[S_START] : o->v[S_ARRIVE];
    if (oc == 'A' && o->has[S_START] && __builtin_add_overflow(o->v[S_START], planned, &ebase)) {
        snprintf(err, n, "%s:%ld: start_t + W overflows 64 bits", p, f->f.line);
        return -1;
    }
    if (offset(f, o, S_END, SW_END, ebase, "end_t", err, n))
        return -1;
    copy(f, o, S_BUDGET, SW_BUDGET);
    copy(f, o, S_OUTCOME, SW_OUTCOME);
    copy(f, o, S_LINE, SW_LINE);
    copy(f, o, S_BUSY, SW_BUSY);
    return 0;
}

int rx_next(rx_file *f, rr_row *out, char *err, size_t errlen)
{
    int r = rr_next(&f->f, &f->raw, err, errlen);
    if (r <= 0)
        return r;
    int rc = f->kind == RX_TESTER ? dec_tester(f, out, err, errlen)
             : f->kind == RX_SERVICE ? dec_service(f, out, err, errlen)
                                     : dec_store(f, out, err, errlen);
    return rc ? -1 : 1;
}
