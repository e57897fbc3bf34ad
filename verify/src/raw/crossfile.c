/* crossfile: see crossfile.h. */
#include "crossfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "rawcols.h"
#include "vutil.h"

#define TF "tester.tsv.gz"
#define VF "service.tsv.gz"

void xf_init(xf_acc *x, const char *run, int stores)
{
    memset(x, 0, sizeof *x);
    x->run = run;
    x->stores = stores;
}

void xf_free(xf_acc *x)
{
    free(x->t);
    free(x->lk);
    memset(x, 0, sizeof *x);
}

/* "later" must not be before "earlier" (both decoded instants) by more
 * than slack ns.  Format 4 (RAWFORMAT.md) writes each instant as whole µs
 * after a decoded base, so a decoded instant is the logged one rounded
 * down to the grid base + 1000 k.  All the instants of one request root in
 * its sched_t through such bases, on one grid, and rounding down on one
 * grid keeps their order: slack 0.  Only an A row's end_t is on another
 * grid (start_t + W, W any ns): against it, slack 999. */
static int out_of_order(long long later, long long earlier, long long slack)
{
    return later < earlier && earlier - later > slack;
}

static void order_slack(const xf_acc *x, const char *file, long line, const char *col, long long later,
                        long long earlier, const char *what, long long req, long long slack)
{
    if (!out_of_order(later, earlier, slack))
        return;
    char lab[96], want[256];
    if (req >= 0)
        snprintf(lab, sizeof lab, "%lld (request %lld)", later, req);
    else
        snprintf(lab, sizeof lab, "%lld (a row without req)", later);
    if (slack)
        snprintf(want, sizeof want, "at or after %lld - %lld, %s", earlier, slack, what);
    else
        snprintf(want, sizeof want, "at or after %lld, %s", earlier, what);
    mm_row(x->run, file, line, col, lab, want);
}

static void order(const xf_acc *x, const char *file, long line, const char *col, long long later,
                  long long earlier, const char *what, long long req)
{
    order_slack(x, file, line, col, later, earlier, what, req, 0);
}

void xf_tester_row(xf_acc *x, long line, const rr_row *row)
{
    if (x->nt == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 4096;
        x->t = vu_xrealloc(x->t, x->cap * sizeof *x->t);
    }
    long long i = (long long)x->nt;
    xf_req *q = &x->t[x->nt++];
    memset(q, 0, sizeof *q);
    q->sent = row->has[T_SEND];
    q->send = q->sent ? row->v[T_SEND] : 0;
    q->status = row->v[T_STATUS];
    q->kind = row->c[T_KIND];
    q->line = line;
    q->answered = row->has[T_ANSWER];
    q->answer = q->answered ? row->v[T_ANSWER] : 0;
    if (!q->sent)
        return; /* never sent: its own promises are xf_tester_promises' */
    order(x, TF, line, "send_t", q->send, row->v[T_SCHED],
          "its sched_t (the tester sends at or after the scheduled time)", i);
    if (q->answered)
        order(x, TF, line, "answer_t", q->answer, q->send, "its send_t", i);
}

/* a tester row's own promises (xf_tester_promises in crossfile.h) */
void xf_tester_promises(const char *run, long line, const rr_row *row)
{
    char kind = row->c[T_KIND];
    int ki = kind == 'L' ? 0 : kind == 'K' ? 1 : kind == 'D' ? 2 : 3;
    long long status = row->v[T_STATUS];
    if (!row->has[T_SEND]) {
        static const char *never = " (send_us is -: the request was never sent)";
        char want[96];
        const struct {
            int bad;
            const char *col, *lab, *want;
        } c[] = {
            {row->has[T_CONN], "conn", row->text[T_CONN], "-"},
            {row->has[T_ANSWER], "answer_us", row->text[T_ANSWER], "-"},
            {status != 0, "status", row->text[T_STATUS], "0"},
            {row->c[T_KIND] != 'E', "kind", row->text[T_KIND], "E"},
            {row->has[T_SCORE], "score", row->text[T_SCORE], "-"},
        };
        for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
            if (!c[k].bad)
                continue;
            snprintf(want, sizeof want, "%s%s", c[k].want, never);
            mm_row(run, TF, line, c[k].col, c[k].lab, want);
        }
    } else {
        if (!row->has[T_CONN])
            mm_row(run, TF, line, "conn", "-", "the connection's index (send_us present: sent)");
        if (row->has[T_ANSWER] && status == 0)
            mm_row(run, TF, line, "status", "0", "not 0: an answer came (answer_t present)");
        if (!row->has[T_ANSWER] && status != 0)
            mm_row(run, TF, line, "status", row->text[T_STATUS], "0 (no answer_t)");
        if (!row->has[T_ANSWER] && ki != 3)
            mm_row(run, TF, line, "kind", row->text[T_KIND], "E (no answer_t)");
        if (ki < 3 && status != 200)
            mm_row(run, TF, line, "status", row->text[T_STATUS], "200 (the answer carries a score)");
        if (ki == 3 && status == 200)
            mm_row(run, TF, line, "kind", "E", "L, K or D (status 200 carries a score)");
        if (ki == 3 && row->has[T_SCORE])
            mm_row(run, TF, line, "score", row->text[T_SCORE], "- (kind E)");
        if (ki < 3 && !row->has[T_SCORE])
            mm_row(run, TF, line, "score", "-", "a score (kind is not E)");
    }
    if (row->v[T_WAITED] != 0 && row->v[T_WAITED] != 1)
        mm_row(run, TF, line, "waited", row->text[T_WAITED], "0 or 1");
}

/* the service row's own times: arrive_t <= answer_t, arrive_t <= aK_start_t <= aK_end_t,
 * and an A lookup's aK_end_t <= answer_t (an A lookup's aK_end_t is after
 * aK_start_t + W, on another µs grid: 999 ns) */
static void service_times(const xf_acc *x, long line, const rr_row *row, long long req)
{
    long long arrive = row->v[V_ARRIVE];
    if (row->has[V_ANSWER])
        order(x, VF, line, "answer_t", row->v[V_ANSWER], arrive, "its arrive_t", req);
    for (int k = 0; k < RC_LOOKUPS; k++) {
        int cs = V_A0S + 3 * k, ce = cs + 1;
        /* the names "aK_start_t", "aK_end_t" (rawcols.h), not printed per row */
        if (row->has[cs])
            order(x, VF, line, service_dec_names[cs], row->v[cs], arrive,
                  "its arrive_t (a lookup is tried for a request read)", req);
        if (row->has[cs] && row->has[ce]) {
            long long slack = row->has[cs + 2] && row->c[cs + 2] == 'A' ? 999 : 0;
            order_slack(x, VF, line, service_dec_names[ce], row->v[ce], row->v[cs], "its start", req, slack);
        }
        /* the answer it wrote used this lookup's answer (after aK_start_t + W: 999 ns) */
        if (row->has[V_ANSWER] && row->has[ce] && row->has[cs + 2] && row->c[cs + 2] == 'A' &&
            out_of_order(row->v[V_ANSWER], row->v[ce], 999)) { /* what it says only when it is said */
            char what[64];
            snprintf(what, sizeof what, "its a%d_end_t (the answer it used)", k);
            order_slack(x, VF, line, "answer_t", row->v[V_ANSWER], row->v[ce], what, req, 999);
        }
    }
}

/* a tester answer against its service row: status, kind, answer_t present,
 * and the tester's answer_t not before what the service did first */
static void answer_checks(const xf_acc *x, long line, const rr_row *row, const xf_req *q, long long req)
{
    char lab[96], want[256];
    if (!row->has[V_ANSWER]) {
        snprintf(lab, sizeof lab, "- (request %lld)", req);
        snprintf(want, sizeof want, "present: the tester read an answer (%s:%ld)", TF, q->line);
        mm_row(x->run, VF, line, "answer_t", lab, want);
    }
    if (row->v[V_STATUS] != q->status) {
        snprintf(lab, sizeof lab, "%s (request %lld)", row->text[V_STATUS], req);
        snprintf(want, sizeof want, "%lld, the status the tester read (%s:%ld)", q->status, TF, q->line);
        mm_row(x->run, VF, line, "status", lab, want);
    }
    if (row->c[V_KIND] != q->kind) {
        snprintf(lab, sizeof lab, "%c (request %lld)", row->c[V_KIND], req);
        snprintf(want, sizeof want, "%c, the kind the tester read (%s:%ld)", q->kind, TF, q->line);
        mm_row(x->run, VF, line, "kind", lab, want);
    }
    /* not before the request was read (one grid with the tester's answer_t:
     * exact), nor before the end of a lookup whose answer was used (after
     * aK_start_t + W, another grid: 999 ns) */
    long long bound = row->v[V_ARRIVE], slack = 0;
    int from = -1;
    for (int k = 0; k < RC_LOOKUPS; k++) {
        int cs = V_A0S + 3 * k;
        if (row->has[cs + 2] && row->c[cs + 2] == 'A' && row->has[cs + 1] && row->v[cs + 1] - 999 > bound - slack) {
            bound = row->v[cs + 1];
            slack = 999;
            from = k;
        }
    }
    if (q->answer >= bound - slack)
        return;
    snprintf(lab, sizeof lab, "%lld (request %lld)", q->answer, req);
    if (from < 0)
        snprintf(want, sizeof want, "at or after %lld, the service's arrive_t (%s:%ld): it read the request first",
                 bound, VF, line);
    else
        snprintf(want, sizeof want,
                 "at or after %lld - 999, the service's a%d_end_t (%s:%ld): it had the lookup's answer it used first",
                 bound, from, VF, line);
    mm_row(x->run, TF, q->line, "answer_t", lab, want);
}

/* the sent lookups of a joined service row, by req * 5 + K */
static void record_lookups(xf_acc *x, long line, const rr_row *row, long long req)
{
    for (int k = 0; k < RC_LOOKUPS; k++) {
        int cs = V_A0S + 3 * k, co = cs + 2;
        if (!row->has[co] || !row->has[cs] || !row->has[cs + 1] || strchr(RC_NOT_SENT, row->c[co]))
            continue;
        xf_lookup *l = &x->lk[req * RC_LOOKUPS + k];
        l->start = row->v[cs];
        l->end = row->v[cs + 1];
        l->vline = line;
        l->out = row->c[co];
        l->store = x->hedge2 && k == 1 ? 2 : (unsigned char)row->v[V_STORE];
    }
}

void xf_service_row(xf_acc *x, long line, const rr_row *row)
{
    if (!x->lk)
        x->lk = vu_xcalloc(x->nt * RC_LOOKUPS + 1, sizeof *x->lk);
    long long req = row->has[V_REQ] ? row->v[V_REQ] : -1;
    service_times(x, line, row, req);
    if (!row->has[V_REQ])
        return;
    char lab[96], want[256];
    if (req < 0 || (size_t)req >= x->nt) {
        snprintf(lab, sizeof lab, "%s", row->text[V_REQ]);
        snprintf(want, sizeof want, "a request of %s (0 to %lld)", TF, (long long)x->nt - 1);
        mm_row(x->run, VF, line, "req", lab, want);
        return;
    }
    xf_req *q = &x->t[req];
    if (q->vline) {
        snprintf(lab, sizeof lab, "%lld (a second row)", req);
        snprintf(want, sizeof want, "one row per request: request %lld is %s:%ld (the tester sends each once)", req,
                 VF, q->vline);
        mm_row(x->run, VF, line, "req", lab, want);
        return;
    }
    q->vline = line;
    char what[96];
    if (!q->sent) {
        snprintf(lab, sizeof lab, "%lld (request never sent)", req);
        snprintf(want, sizeof want, "no row: request %lld was never sent (send_us - at %s:%ld)", req, TF, q->line);
        mm_row(x->run, VF, line, "req", lab, want);
        return;
    }
    if (out_of_order(row->v[V_ARRIVE], q->send, 0)) { /* what it says only when it is said */
        snprintf(what, sizeof what, "the tester's send_t (%s:%ld)", TF, q->line);
        order(x, VF, line, "arrive_t", row->v[V_ARRIVE], q->send, what, req);
    }
    if (q->answered)
        answer_checks(x, line, row, q, req);
    record_lookups(x, line, row, req);
}

/* the store row's own times: arrive_t <= start_t <= end_t where present */
static void store_times(const xf_acc *x, const char *fn, long line, const rr_row *row, long long req)
{
    long long arrive = row->v[S_ARRIVE];
    /* an A row's end_t is after start_t + W, on another grid */
    long long slack = row->c[S_OUTCOME] == 'A' ? 999 : 0;
    if (row->has[S_START])
        order(x, fn, line, "start_t", row->v[S_START], arrive, "its arrive_t", req);
    if (row->has[S_END]) {
        if (row->has[S_START])
            order_slack(x, fn, line, "end_t", row->v[S_END], row->v[S_START], "its start_t", req, slack);
        else
            order(x, fn, line, "end_t", row->v[S_END], arrive, "its arrive_t", req);
    }
}

void xf_store_row(xf_acc *x, int store, long line, const rr_row *row)
{
    const char *fn = store == 1 ? "store.tsv.gz" : "store2.tsv.gz";
    long long req = row->v[S_REQ], at = row->v[S_ATTEMPT];
    store_times(x, fn, line, row, req);
    char lab[128], want[320];
    /* the messages are made only for a mismatch (not per row) */
#define XF_LAB() snprintf(lab, sizeof lab, "%lld (attempt %lld)", req, at)
    xf_lookup *l = req >= 0 && (size_t)req < x->nt && at >= 0 && at < RC_LOOKUPS && x->lk
                       ? &x->lk[req * RC_LOOKUPS + at]
                       : NULL;
    if (!l || !l->vline) {
        snprintf(want, sizeof want,
                 "a lookup the service sent: %s has no row with req %lld whose a%lld_out is present and not R, O, B "
                 "or Y",
                 VF, req, at >= 0 && at < RC_LOOKUPS ? at : 0);
        XF_LAB();
        mm_row(x->run, fn, line, "req", lab, want);
        return;
    }
    if (l->store != store) {
        l->sline = line; /* defence.h names the row in the other store's file */
        l->sstore = (unsigned char)store;
        return;
    }
    if (l->sline) {
        snprintf(want, sizeof want, "one row per lookup: request %lld's lookup %lld is %s:%ld", req, at,
                 l->sstore == 1 ? "store.tsv.gz" : "store2.tsv.gz", l->sline);
        XF_LAB();
        mm_row(x->run, fn, line, "req", lab, want);
        return;
    }
    l->sline = line;
    l->sstore = (unsigned char)store;
    if (row->v[S_ARRIVE] < l->start) { /* order's test, the message made only then */
        char what[128];
        snprintf(what, sizeof what, "the service's a%lld_start_t (%s:%ld): it sent the lookup first", at, VF,
                 l->vline);
        order(x, fn, line, "arrive_t", row->v[S_ARRIVE], l->start, what, req);
    }
    if (l->out != 'A')
        return;
    /* end_t (after start_t + W) and aK_end_t (after aK_start_t + W) are on
     * different µs grids (the store's and the service's starts): 999 ns */
    if (!row->has[S_END] || (row->v[S_END] > l->end && row->v[S_END] - l->end > 999)) {
        if (row->has[S_END])
            snprintf(lab, sizeof lab, "%lld (request %lld, attempt %lld)", row->v[S_END], req, at);
        else
            snprintf(lab, sizeof lab, "- (request %lld, attempt %lld)", req, at);
        snprintf(want, sizeof want, "at or before %lld, the service's a%lld_end_t (%s:%ld): it used this answer",
                 l->end, at, VF, l->vline);
        mm_row(x->run, fn, line, "end_t", lab, want);
    }
#undef XF_LAB
}

void xf_finish(xf_acc *x)
{
    char lab[96], want[256];
    for (size_t i = 0; i < x->nt; i++) {
        const xf_req *q = &x->t[i];
        if (q->answered && !q->vline) {
            snprintf(lab, sizeof lab, "%lld (request %zu answered)", q->answer, i);
            snprintf(want, sizeof want, "a row of %s with req %zu (none): the service logs every request it answers",
                     VF, i);
            mm_row(x->run, TF, q->line, "answer_t", lab, want);
        }
        if (!x->lk)
            continue;
        for (int k = 0; k < RC_LOOKUPS; k++) {
            const xf_lookup *l = &x->lk[i * RC_LOOKUPS + (size_t)k];
            /* a store the run does not have: defence.h names the store column */
            if (!l->vline || l->sline || l->out == 'X' || l->store < 1 || l->store > x->stores)
                continue;
            char col[16];
            snprintf(col, sizeof col, "a%d_out", k);
            snprintf(lab, sizeof lab, "%c (request %zu, sent to store %d)", l->out, i, l->store);
            snprintf(want, sizeof want,
                     "a row of %s with req %zu, attempt %d (none; only a lookup whose connection was lost, X, may "
                     "have none)",
                     l->store == 2 ? "store2.tsv.gz" : "store.tsv.gz", i, k);
            mm_row(x->run, VF, l->vline, col, lab, want);
        }
    }
}
