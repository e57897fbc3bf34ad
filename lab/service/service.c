/* service: the scoring service.
 *
 *   service --port P --store-port Q [--store2-port Q2] --arm NAME [--arms lab/arms.tsv] --round R
 *           --model build/prep/model.json --standin build/prep/standin.tsv
 *           --out FILE.tsv.gz [--events FILE.tsv.gz] [--store-conns 2]
 *           [--header-timeout-s 10] [--idle-timeout-s 300] [--max-conns N]
 *
 * HTTP/1.1 with keep-alive on 127.0.0.1:
 *   POST /score  body {"id":N,"row":R}, optional header X-Budget-Ns (the
 *                remaining budget, a duration); answers {"id","score","kind"}
 *                with kind live, last_known or default; 504 on a timeout
 *                without stand-in; 400 with a reason on bad input; 413 for a
 *                body over 64 KiB (both closing the connection).
 *   GET /health  "ok"
 *   GET /calls   {"requests":N,"lookups":M} (lookups sent to the store)
 * Each request fetches its row's six features from the store over a few
 * persistent, multiplexed connections (lab/service/storeconn.h, lab/core/wire.h),
 * applying the arm's policy (lab/core/policy.h), scores them with the tree
 * evaluator (lab/core/trees.h), and logs one row per request (lab/RAWFORMAT.md,
 * service.tsv.gz).
 *
 * An arm with a second store (store2 above 0, or hedge2 1: arms_stores)
 * needs --store2-port: the service keeps --store-conns connections to each
 * store (numbered across both: the first store's, then the second's), and
 * a request's lookups go to the store pol_store_of gives its row (its
 * `store` column), except a hedge2 arm's hedge lookup (attempt 1), which
 * goes to the second store, the copy (pol_lookup_store; the `store` column
 * stays the first lookup's, 1).  The
 * defences that look across requests (circuit breaker, retry budget,
 * compartments, adaptive hedge) share one pol_shared; the breaker's
 * changes of state are rows of the events file (conn -1), among the
 * connections' rows, in time order (lab/service/evlog.h).
 *
 * The store may fail; the service stays up.  Its answers map to the
 * policy's error classes: unavailable and dropped are transient (retried
 * while the arm has tries left), not found and unknown row permanent
 * (straight to the fallback).  A lost connection ends every lookup still
 * waiting on it (X, transient), and storeconn reconnects with backoff; a
 * lookup with no live connection is not sent but refused at once (R,
 * transient), so that with the store gone every request gets its arm's
 * fallback without waiting for a try's limit.  Losses, failed reconnects
 * and reconnects go to the events file (--events; by default
 * events.tsv.gz beside --out).  At start the stores must be there (exit 1).
 *
 * One thread, one libevent loop with precise timers.  Requests live in a
 * pool of fixed slots (never moved, so their timer events stay valid); a
 * lookup's tag names its request slot, the request's serial number and the
 * attempt, so a late answer to a finished request is recognised and dropped
 * (for an arm with an adaptive limit, limit_pm, first counted: the
 * request's lookups still out when it finished are kept, tag and start, in
 * a ring of LATE_RING, and an answer A that finds its tag there is a late
 * sample, pol_late_answer).
 * On SIGTERM the raw files are written and the process exits 0.
 *
 * The front door (lab/service/front.h) holds the client connections and
 * their HTTP: accepting, reading, parsing, answering, keep-alive and
 * "Connection: close", the header timeout (--header-timeout-s: a request
 * not complete that long after its first byte is answered 408 and closed)
 * and the idle timeout (--idle-timeout-s: a keep-alive connection with no
 * request that long is closed; defaults lab/core/doortimes.h, why there in
 * docs/DESIGN.md), and the shedding of the connection waiting longest
 * when descriptors run short (--max-conns client connections at most;
 * default the limit of open files less FRONT_FD_RESERVE; at start the
 * soft limit of open files is raised to the hard one).  This file is the
 * policy driver behind it: a POST /score it hands over becomes a request
 * of the pool, carried through the arm's policy to the store and back,
 * scored or given its fallback, answered through front_send and logged.
 */
#include <assert.h>
#include <errno.h>
#include <float.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "arms.h"
#include "doortimes.h"
#include "evlog.h"
#include "front.h"
#include "httpparse.h"
#include "opt.h"
#include "policy.h"
#include "rawfmt.h"
#include "storeconn.h"
#include "trees.h"
#include "util.h"
#include "wire.h"

#define CHUNK 1024
#define XSTR(x) STR(x) /* a macro's value as a string, for the usage text */
#define STR(x) #x
#define LATE_RING 4096 /* lookups out when their request finished, kept for their late answers */

/* ---------------------------------------------------------------- state */

typedef struct {
    int used;
    uint64_t serial;
    front_conn *c;       /* its client's connection, held (front_hold) */
    uint32_t id, row;
    int64_t arrive;
    pol_state ps;        /* the policy's view of this request */
    int64_t lk_start[POL_MAX_LOOKUPS], lk_end[POL_MAX_LOOKUPS];
    char lk_out[POL_MAX_LOOKUPS];
    int lk_conn[POL_MAX_LOOKUPS]; /* the store connection lookup k went on; -1: none */
    struct event timer[2]; /* the policy's two timers */
    int slot;
} request;

static struct {
    struct event_base *base;
    const arm *arm;
    arm_table arms;
    uint32_t round;
    trees *model;
    float *standin;
    char *standin_kind; /* 'K' or 'D' per row */
    uint32_t nrows;
    sconn *store[2];    /* the first store; the second (NULL without one) */
    pol_shared *shared; /* the defences that look across requests; NULL: none */
    evlog *events;
    request **chunks;
    int nchunks;
    int *free_slots;
    int nfree, capfree;
    uint64_t serial;
    uint64_t requests, lookups;
    rawlog *log;
    struct {
        uint64_t tag; /* 0: empty */
        int64_t start;
    } late[LATE_RING];
    int late_pos;
    char err[UT_ERRLEN];
} S;

/* ------------------------------------------------------------- the pool */

static request *slot_req(int slot) { return &S.chunks[slot / CHUNK][slot % CHUNK]; }

static void on_timer0(evutil_socket_t fd, short what, void *arg);
static void on_timer1(evutil_socket_t fd, short what, void *arg);

static request *req_new(void)
{
    if (S.nfree == 0) {
        request **nc = realloc(S.chunks, (size_t)(S.nchunks + 1) * sizeof *nc);
        request *chunk = calloc(CHUNK, sizeof *chunk);
        int *nf = realloc(S.free_slots, (size_t)(S.capfree + CHUNK) * sizeof *nf);
        if (!nc || !chunk || !nf) {
            free(chunk);
            if (nc)
                S.chunks = nc;
            if (nf)
                S.free_slots = nf;
            return NULL;
        }
        S.chunks = nc;
        S.free_slots = nf;
        S.capfree += CHUNK;
        S.chunks[S.nchunks] = chunk;
        for (int i = CHUNK - 1; i >= 0; i--) {
            int slot = S.nchunks * CHUNK + i;
            request *r = &chunk[i];
            r->slot = slot;
            evtimer_assign(&r->timer[0], S.base, on_timer0, r);
            evtimer_assign(&r->timer[1], S.base, on_timer1, r);
            S.free_slots[S.nfree++] = slot;
        }
        S.nchunks++;
    }
    request *r = slot_req(S.free_slots[--S.nfree]);
    r->used = 1;
    r->serial = ++S.serial;
    for (int k = 0; k < POL_MAX_LOOKUPS; k++) {
        r->lk_start[k] = r->lk_end[k] = RAW_NONE;
        r->lk_out[k] = '-';
        r->lk_conn[k] = -1;
    }
    return r;
}

static void req_free(request *r)
{
    assert(r->used && S.nfree < S.capfree);
    evtimer_del(&r->timer[0]);
    evtimer_del(&r->timer[1]);
    r->used = 0;
    if (r->c)
        front_release(r->c);
    r->c = NULL;
    S.free_slots[S.nfree++] = r->slot;
}

/* --------------------------------------------------------------- logging */

/* Lookup k's column `name` of service.tsv.gz: the aK_ columns come in
 * threes, one three per lookup the policy may send. */
#define AK(k, name) (RAWFMT_SERVICE_a0_##name + 3 * (k))
_Static_assert(RAWFMT_SERVICE_a1_start_t == AK(1, start_t) && RAWFMT_SERVICE_a2_out == AK(2, out) &&
                   RAWFMT_SERVICE_NCOLS == AK(POL_MAX_LOOKUPS, start_t),
               "service.tsv.gz has one three of aK_ columns per lookup (lab/raw/rawfmt.h)");

static void log_request(int64_t req, int64_t row, int64_t arrive, int64_t answer, int status, char kind,
                        const request *r)
{
    int64_t v[RAWFMT_SERVICE_NCOLS];
    v[RAWFMT_SERVICE_req] = req;
    v[RAWFMT_SERVICE_row] = row;
    v[RAWFMT_SERVICE_arrive_t] = arrive;
    v[RAWFMT_SERVICE_answer_t] = answer;
    v[RAWFMT_SERVICE_status] = status;
    v[RAWFMT_SERVICE_kind] = kind;
    v[RAWFMT_SERVICE_lookups] = r ? r->ps.sent : 0;
    v[RAWFMT_SERVICE_store] = r && r->ps.sent ? r->ps.store + 1 : 1;
    for (int k = 0; k < POL_MAX_LOOKUPS; k++) {
        v[AK(k, start_t)] = r ? r->lk_start[k] : RAW_NONE;
        v[AK(k, end_t)] = r ? r->lk_end[k] : RAW_NONE;
        v[AK(k, out)] = r ? r->lk_out[k] : '-';
    }
    if (rawlog_row(S.log, v) != 0)
        ut_err("cannot log request %" PRId64 " (spill file)", req);
}

/* ------------------------------------------------- carrying out a policy */

/* A lookup's tag: the request's serial, its slot (22 bits) and the attempt
 * (3 bits). */
#define TAG_ATTEMPT_BITS 3
_Static_assert(POL_MAX_LOOKUPS <= (1 << TAG_ATTEMPT_BITS), "the attempt fits its bits of a tag");
static uint64_t make_tag(const request *r, int attempt)
{
    /* the slot fits its 22 bits, the attempt its 3: an answer finds its request */
    assert(r->slot >= 0 && r->slot < (1 << 22) && attempt >= 0 && attempt < POL_MAX_LOOKUPS);
    return (r->serial << (22 + TAG_ATTEMPT_BITS)) | ((uint64_t)r->slot << TAG_ATTEMPT_BITS) | (uint64_t)attempt;
}

static void finish(request *r, int64_t now, int status, char kind, float score);
static void tell(request *r, int attempt, int answer, const wire_ans *ans, int64_t now);

/* Carry out what the policy asked for.  Lookups go to their store
 * (pol_lookup_store: the request's, or a hedge2 arm's copy for its hedge).
 * A lookup with no live connection to go on is not sent: the policy hears
 * at once that it was refused (R), once the rest of the action is carried
 * out.  A lookup a gate refused (O B Y) was tried and ended now, unsent. */
static void act(request *r, const pol_action *a, int64_t now)
{
    assert(r->used && a->nsend >= 0 && a->nsend <= POL_MAX_LOOKUPS);
    unsigned refused = 0;
    for (int k = 0; k < a->nsend; k++) {
        int at = a->send[k].attempt;
        wire_req q = {.row = r->row, .req = r->id, .attempt = (uint16_t)at,
                      .budget_ns = a->send[k].budget_ns, .tag = make_tag(r, at)};
        r->lk_start[at] = now;
        int c = sconn_send(S.store[pol_lookup_store(&r->ps, S.arm, at)], &q);
        if (c == SCONN_NOMEM) {
            ut_err("out of memory queueing a lookup");
            event_base_loopbreak(S.base);
            return;
        }
        if (c == SCONN_NONE) {
            refused |= 1u << at;
            continue;
        }
        r->lk_conn[at] = c;
        S.lookups++;
    }
    for (int k = 0; k < POL_MAX_LOOKUPS; k++)
        if (a->ended[k]) {
            if (r->lk_start[k] == RAW_NONE) /* tried now, not sent: a gate refused it (O B Y) */
                r->lk_start[k] = now;
            r->lk_end[k] = now;
            r->lk_out[k] = a->ended[k];
        }
    for (int i = 0; i < 2; i++) {
        if (a->timer[i] == POL_TIMER_KEEP)
            continue;
        evtimer_del(&r->timer[i]);
        if (a->timer[i] != POL_TIMER_OFF) {
            /* libevent adds a relative timeout to its own cached clock reading,
             * taken when this loop iteration began.  The timeout is measured
             * from a clock reading taken first, and the cache refreshed after
             * it (so the cache is never older than that reading, even if the
             * process is preempted in between), rounded up to whole
             * microseconds: a timer never fires early. */
            struct timeval tv = ut_tv_until(a->timer[i]);
            event_base_update_cache_time(S.base);
            evtimer_add(&r->timer[i], &tv);
        }
    }
    if (a->done != POL_PENDING) {
        if (a->done == POL_LIVE) {
            /* cannot happen: live answers go through on_answer */
            finish(r, now, 500, 'E', 0.0f);
        } else if (a->done == POL_STANDIN) {
            finish(r, now, 200, S.standin_kind[r->row], S.standin[r->row]);
        } else {
            finish(r, now, a->done == POL_TIMEOUT ? 504 : 502, 'E', 0.0f);
        }
    }
    uint64_t serial = r->serial;
    for (int k = 0; k < POL_MAX_LOOKUPS; k++)
        if ((refused & (1u << k)) && r->used && r->serial == serial)
            tell(r, k, POL_ANS_REFUSED, NULL, now);
}

/* The adaptive limit's late answers: a finished request's lookups the store
 * still has (sent, ended T or C), kept until their answer comes or the
 * ring comes round. */
static void late_keep(const request *r)
{
    if (!S.arm->limit_pm)
        return;
    for (int k = 0; k < r->ps.sent; k++)
        if (r->lk_conn[k] >= 0 && (r->lk_out[k] == 'T' || r->lk_out[k] == 'C')) {
            S.late[S.late_pos].tag = make_tag(r, k);
            S.late[S.late_pos].start = r->lk_start[k];
            S.late_pos = (S.late_pos + 1) % LATE_RING;
        }
}

/* An answer A that found no request: a late sample when its tag is kept. */
static void late_answer(uint64_t tag, int64_t now)
{
    if (!S.arm->limit_pm || tag == 0)
        return;
    for (int i = 0; i < LATE_RING; i++)
        if (S.late[i].tag == tag) {
            pol_late_answer(S.shared, S.arm, now - S.late[i].start);
            S.late[i].tag = 0;
            return;
        }
}

static void finish(request *r, int64_t now, int status, char kind, float score)
{
    (void)now;
    assert(r->used);
    late_keep(r);
    evtimer_del(&r->timer[0]);
    evtimer_del(&r->timer[1]);
    int64_t t = RAW_NONE;
    if (r->c && front_alive(r->c)) {
        char body[160];
        int n;
        if (status == 200)
            n = snprintf(body, sizeof body, "{\"id\":%" PRIu32 ",\"score\":%.9g,\"kind\":\"%s\"}", r->id,
                         (double)score,
                         kind == 'L' ? "live" : kind == 'K' ? "last_known" : "default");
        else
            n = snprintf(body, sizeof body, "{\"id\":%" PRIu32 ",\"error\":\"%s\"}", r->id,
                         status == 504 ? "the feature store did not answer in time"
                                       : "the feature store failed");
        front_conn *c = r->c;
        front_hold(c);
        t = front_send(c, status, body, (size_t)n, 0); /* closes when the request asked (front.h) */
        log_request(r->id, r->row, r->arrive, t, status, kind, r);
        req_free(r);
        front_next(c);
        front_release(c);
        return;
    }
    log_request(r->id, r->row, r->arrive, t, status, kind, r);
    req_free(r);
}

static void on_timer(request *r, int which)
{
    int64_t now = ut_mono_ns();
    pol_action a;
    pol_on_timer(&r->ps, S.arm, which, now, &a);
    act(r, &a, now);
}

static void on_timer0(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    on_timer(arg, 0);
}

static void on_timer1(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    on_timer(arg, 1);
}

/* Tell the policy what became of lookup `attempt` (ans: the store's answer,
 * for POL_ANS_OK), and carry out what it says. */
static void tell(request *r, int attempt, int answer, const wire_ans *ans, int64_t now)
{
    pol_action a;
    pol_on_answer(&r->ps, S.arm, attempt, answer, now, &a);
    if (a.done == POL_LIVE) {
        for (int k = 0; k < POL_MAX_LOOKUPS; k++)
            if (a.ended[k]) {
                r->lk_end[k] = now;
                r->lk_out[k] = a.ended[k];
            }
        finish(r, now, 200, 'L', trees_score(S.model, ans->x));
        return;
    }
    act(r, &a, now);
}

/* An answer from the store.  Its status's error class: unknown row is
 * permanent like not found (asking again gives the same). */
static void on_answer(const wire_ans *ans, int64_t now, void *ctx)
{
    static const int class_of[WIRE_NSTATUS] = {
        [WIRE_OK] = POL_ANS_OK, [WIRE_DROPPED] = POL_ANS_DROPPED, [WIRE_UNKNOWN_ROW] = POL_ANS_NOT_FOUND,
        [WIRE_UNAVAILABLE] = POL_ANS_UNAVAILABLE, [WIRE_NOT_FOUND] = POL_ANS_NOT_FOUND};
    (void)ctx;
    uint64_t serial = ans->tag >> (22 + TAG_ATTEMPT_BITS);
    int slot = (int)((ans->tag >> TAG_ATTEMPT_BITS) & 0x3fffff);
    int attempt = (int)(ans->tag & ((1u << TAG_ATTEMPT_BITS) - 1));
    if (slot >= S.nchunks * CHUNK)
        return;
    request *r = slot_req(slot);
    if (!r->used || r->serial != serial || attempt >= POL_MAX_LOOKUPS) {
        if (ans->status == WIRE_OK)
            late_answer(ans->tag, now);
        return; /* a late answer to a finished request: nobody wants it */
    }
    tell(r, attempt, class_of[ans->status], ans, now); /* wire_get_ans checked the status */
}

/* Store connection `conn` (of either store: the numbers are the
 * service's) is gone: every lookup still waiting on it is lost (X).  The
 * pool is walked whole; losses are rare. */
static void on_lost(int conn, int64_t now, void *ctx)
{
    (void)ctx;
    for (int slot = 0; slot < S.nchunks * CHUNK; slot++) {
        request *r = slot_req(slot);
        uint64_t serial = r->serial;
        for (int k = 0; k < POL_MAX_LOOKUPS; k++)
            if (r->used && r->serial == serial && r->lk_conn[k] == conn && (r->ps.waiting & (1u << k)))
                tell(r, k, POL_ANS_LOST, NULL, now);
    }
}

/* ------------------------------------------- what the front door hands over */

/* POST /score (front_calls.score): a request of the pool, its policy started. */
static void start_score(front_conn *c, const http_req *h, int64_t now, void *ctx)
{
    (void)ctx;
    uint32_t id, row;
    char why[160];
    /* a refusal closes the connection after its answer (front.h, "Closing") */
    if (http_score_body(h->body, h->body_len, &id, &row, why, sizeof why) != 0) {
        front_error(c, 400, now, RAW_NONE, RAW_NONE, why, 1);
        return;
    }
    if (row >= S.nrows) {
        snprintf(why, sizeof why, "row %" PRIu32 " is not in the table (0 to %" PRIu32 ")", row, S.nrows - 1);
        front_error(c, 400, now, id, RAW_NONE, why, 1);
        return;
    }
    request *r = req_new();
    if (!r) {
        front_error(c, 500, now, id, row, "out of memory", 1);
        return;
    }
    S.requests++;
    r->c = c;
    front_hold(c);
    r->id = id;
    r->row = row;
    r->arrive = now;
    pol_action a;
    pol_start(&r->ps, S.shared, S.arm, S.round, id, row, now, h->budget_ns, &a);
    act(r, &a, now);
}

/* GET /calls (front_calls.counts). */
static void counts(uint64_t *requests, uint64_t *lookups, void *ctx)
{
    (void)ctx;
    *requests = S.requests;
    *lookups = S.lookups;
}

/* An error the front door answered (front_calls.error_row): its row. */
static void error_row(int64_t id, int64_t row, int64_t arrive, int64_t answer_t, int status, void *ctx)
{
    (void)ctx;
    log_request(id, row, arrive, answer_t, status, 'E', NULL);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)sig;
    (void)what;
    (void)arg;
    event_base_loopbreak(S.base);
}

/* A change of the circuit breaker's state: a row of the events file. */
static void on_brk(const pol_brk_event *e, void *ctx)
{
    (void)ctx;
    evlog_row(S.events, e->t, e->what, -1, e->count, e->wait_ns);
}

/* ------------------------------------------------------------- loading */

static int load_standin(const char *path, char *err, size_t errlen)
{
    char *text = NULL;
    size_t n;
    if (ut_read_file(path, &text, &n, err, errlen) != 0)
        return -1;
    size_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    S.standin = malloc((lines + 1) * sizeof *S.standin);
    S.standin_kind = malloc(lines + 1);
    int rc = -1;
    if (!S.standin || !S.standin_kind) {
        ut_seterr(err, errlen, "%s: out of memory", path);
        goto done;
    }
    char *p = text, *nl = strchr(p, '\n');
    if (!nl || strncmp(p, "row\tkind\tscore\n", 15) != 0) {
        ut_seterr(err, errlen, "%s:1: header is not \"row<TAB>kind<TAB>score\"", path);
        goto done;
    }
    p = nl + 1;
    uint32_t row = 0;
    for (int lineno = 2; *p; lineno++) {
        nl = strchr(p, '\n');
        if (!nl) {
            ut_seterr(err, errlen, "%s:%d: last line has no end", path, lineno);
            goto done;
        }
        *nl = 0;
        char why[96], *k = strchr(p, '\t'), *t = k ? strchr(k + 1, '\t') : NULL;
        if (!t || strchr(t + 1, '\t')) {
            ut_seterr(err, errlen, "%s:%d: not 3 tab-separated fields (row, kind, score)", path, lineno);
            goto done;
        }
        *k++ = 0;
        *t++ = 0;
        int64_t r;
        double score;
        if (opt_i64(p, 0, UINT32_MAX, &r, why, sizeof why) != 0) {
            ut_seterr(err, errlen, "%s:%d: field row \"%s\": %s", path, lineno, p, why);
            goto done;
        }
        if (r != row) {
            ut_seterr(err, errlen, "%s:%d: field row is %" PRId64 ", expected %" PRIu32 " (rows in order)", path,
                      lineno, r, row);
            goto done;
        }
        if (strcmp(k, "last_known") == 0)
            S.standin_kind[row] = 'K';
        else if (strcmp(k, "default") == 0)
            S.standin_kind[row] = 'D';
        else {
            ut_seterr(err, errlen, "%s:%d: field kind \"%s\" is not last_known or default", path, lineno, k);
            goto done;
        }
        /* written with %.9g from a float: back through a double, the same float */
        if (opt_f64(t, -FLT_MAX, FLT_MAX, &score, why, sizeof why) != 0) {
            ut_seterr(err, errlen, "%s:%d: field score \"%s\": %s", path, lineno, t, why);
            goto done;
        }
        S.standin[row] = (float)score;
        row++;
        p = nl + 1;
    }
    if (row == 0) {
        ut_seterr(err, errlen, "%s: no rows", path);
        goto done;
    }
    S.nrows = row;
    rc = 0;
done:
    free(text);
    return rc;
}

/* The events file, then --store-conns connections to each store. */
static int open_stores(int store_port, int store2_port, int nconns, const char *events, char *err, size_t errlen)
{
    if (evlog_open(&S.events, events, err, errlen) != 0)
        return -1;
    const sconn_calls calls = {.answer = on_answer, .lost = on_lost};
    if (sconn_open(&S.store[0], S.base, store_port, nconns, 0, S.round, S.events, &calls, err, errlen) != 0 ||
        (store2_port && sconn_open(&S.store[1], S.base, store2_port, nconns, nconns, S.round, S.events, &calls,
                                   err, errlen) != 0)) {
        if (store2_port && S.store[0] && !S.store[1]) {
            size_t n = strlen(err);
            snprintf(err + n, errlen - n, " (the second store, --store2-port)");
        }
        sconn_free(S.store[0]);
        S.store[0] = NULL;
        evlog_abort(S.events);
        return -1;
    }
    return 0;
}

/* Requests still waiting are logged as unanswered; the raw files written;
 * everything freed.  0, or -1 when a file could not be written. */
static int shut_down(void)
{
    char *err = S.err;
    size_t errlen = sizeof S.err;
    for (int k = 0; k < S.nchunks * CHUNK; k++) {
        request *r = slot_req(k);
        if (r->used)
            log_request(r->id, r->row, r->arrive, RAW_NONE, 0, 'E', r);
    }
    int rc = rawlog_close(S.log, err, errlen);
    if (rc != 0)
        ut_err("%s", err);
    sconn_free(S.store[0]);
    sconn_free(S.store[1]);
    if (evlog_close(S.events, err, errlen) != 0) {
        ut_err("%s", err);
        rc = -1;
    }
    front_free(); /* clients still connected, the listening socket */
    for (int k = 0; k < S.nchunks; k++)
        free(S.chunks[k]);
    free(S.chunks);
    free(S.free_slots);
    free(S.standin);
    free(S.standin_kind);
    trees_free(S.model);
    arms_free(&S.arms);
    return rc;
}

int main(int argc, char **argv)
{
    ut_set_prog("service");
    const char *arms_path = "lab/arms.tsv", *arm_name = NULL, *model = NULL, *standin = NULL,
               *out = NULL, *events = NULL;
    int port = 0, store_port = 0, store2_port = 0, nstore = 2, max_conns = 0;
    int64_t round = -1;
    double header_timeout_s = DOOR_HEADER_TIMEOUT_S, idle_timeout_s = DOOR_IDLE_TIMEOUT_S;
    const opt_spec spec[] = {
        {"--port", OPT_INT, &port, 0, 65535, "P", "port to listen on (0: any free port; printed)"},
        {"--store-port", OPT_INT, &store_port, 1, 65535, "Q", "the store's port on 127.0.0.1"},
        {"--store2-port", OPT_INT, &store2_port, 1, 65535, "Q2",
         "the second store's port (an arm with store2 above 0 or hedge2 1 needs it; no other arm takes it)"},
        {"--arm", OPT_STR, &arm_name, 0, 0, "NAME", "the arm"},
        {"--arms", OPT_STR, &arms_path, 0, 0, "FILE", "the arms (lab/arms.tsv)"},
        {"--round", OPT_I64, &round, 0, UINT32_MAX, "R", "the round"},
        {"--model", OPT_STR, &model, 0, 0, "FILE", "the saved trees (build/prep/model.json)"},
        {"--standin", OPT_STR, &standin, 0, 0, "FILE", "the stand-ins (build/prep/standin.tsv)"},
        {"--out", OPT_STR, &out, 0, 0, "FILE", "service.tsv.gz to write at SIGTERM"},
        {"--events", OPT_STR, &events, 0, 0, "FILE",
         "events.tsv.gz to write at SIGTERM (default: events.tsv.gz in the folder of --out)"},
        {"--store-conns", OPT_INT, &nstore, 1, SCONN_MAX, "N", "connections to each store (2)"},
        {"--header-timeout-s", OPT_DBL, &header_timeout_s, DOOR_MIN_TIMEOUT_S, DOOR_MAX_TIMEOUT_S, "H",
         "a request not complete H s after its first byte is answered 408 and closed ("
         XSTR(DOOR_HEADER_TIMEOUT_S) ")"},
        {"--idle-timeout-s", OPT_DBL, &idle_timeout_s, DOOR_MIN_TIMEOUT_S, DOOR_MAX_TIMEOUT_S, "I",
         "a keep-alive connection with no request for I s is closed (" XSTR(DOOR_IDLE_TIMEOUT_S) ")"},
        {"--max-conns", OPT_INT, &max_conns, 1, INT32_MAX, "N",
         "client connections at most; past it the one waiting longest is closed for a new one (default: the "
         "limit of open files less " XSTR(FRONT_FD_RESERVE) ")"},
        {0}};
    int prc = opt_parse(argc, argv, spec, "service: the scoring service (see the header of lab/service/service.c)", NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (!arm_name || !model || !standin || !out || store_port <= 0 || round < 0) {
        ut_err("needs --store-port, --arm, --round, --model, --standin and --out");
        return 2;
    }
    char *err = S.err, events_buf[4096];
    size_t errlen = sizeof S.err;
    if (!events) {
        const char *slash = strrchr(out, '/');
        int dirlen = slash ? (int)(slash - out + 1) : 0;
        if (snprintf(events_buf, sizeof events_buf, "%.*sevents.tsv.gz", dirlen, out) >= (int)sizeof events_buf) {
            ut_err("option --out: the path is too long");
            return 2;
        }
        events = events_buf;
    }
    if (arms_load(arms_path, &S.arms, err, errlen) != 0) {
        ut_err("%s", err);
        return 2;
    }
    S.arm = arms_find(&S.arms, arm_name);
    if (!S.arm) {
        ut_err("%s: no arm named %s", arms_path, arm_name);
        return 2;
    }
    if ((arms_stores(S.arm) == 2) != (store2_port > 0)) {
        ut_err(arms_stores(S.arm) == 2 ? "arm %s has a second store (store2 %d, hedge2 %d): needs --store2-port"
                                       : "arm %s has no second store (store2 %d, hedge2 %d): --store2-port is not for it",
               arm_name, S.arm->store2, S.arm->hedge2);
        arms_free(&S.arms);
        return 2;
    }
    S.round = (uint32_t)round;
    static pol_shared shared;
    if (pol_needs_shared(S.arm)) {
        pol_shared_init(&shared, S.arm, on_brk, NULL);
        S.shared = &shared;
    }
    if (trees_load(model, &S.model, err, errlen) != 0 || load_standin(standin, err, errlen) != 0) {
        ut_err("%s", err);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* timers on time, not 50 us late */
    struct rlimit nofile; /* one descriptor per client connection: as many as allowed */
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && (nofile.rlim_cur = nofile.rlim_max) > 0)
        setrlimit(RLIMIT_NOFILE, &nofile);
    struct event_config *cfg = event_config_new();
    event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
    S.base = event_base_new_with_config(cfg);
    event_config_free(cfg);
    if (!S.base) {
        ut_err("cannot create the event loop");
        return 1;
    }
    if (open_stores(store_port, store2_port, nstore, events, err, errlen) != 0) {
        ut_err("%s", err);
        return 1;
    }
    if (rawfmt_log_open(&S.log, out, RAWFMT_SERVICE, err, errlen) != 0) {
        ut_err("%s", err);
        sconn_free(S.store[0]);
        sconn_free(S.store[1]);
        evlog_abort(S.events);
        return 1;
    }
    int bound = 0;
    const front_calls door = {.score = start_score, .counts = counts, .error_row = error_row};
    const front_limits lim = {.header_timeout_ns = (int64_t)(header_timeout_s * 1e9),
                              .idle_timeout_ns = (int64_t)(idle_timeout_s * 1e9), .max_conns = max_conns};
    if (front_open(S.base, port, &bound, &door, &lim) != 0) {
        ut_err("cannot listen on 127.0.0.1:%d: %s", port, strerror(errno));
        rawlog_abort(S.log);
        sconn_free(S.store[0]);
        sconn_free(S.store[1]);
        evlog_abort(S.events);
        return 1;
    }
    struct event *sterm = evsignal_new(S.base, SIGTERM, on_signal, NULL);
    struct event *sint = evsignal_new(S.base, SIGINT, on_signal, NULL);
    event_add(sterm, NULL);
    event_add(sint, NULL);
    printf("service: listening on 127.0.0.1:%d\n", bound);
    fflush(stdout);
    event_base_dispatch(S.base);

    int rc = shut_down();
    event_free(sterm);
    event_free(sint);
    event_base_free(S.base);
    return rc == 0 ? 0 : 1;
}
