/* roworder: see roworder.h. */
#include "roworder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "rawcols.h"
#include "vutil.h"

#define TF "tester.tsv.gz"
#define VF "service.tsv.gz"

void ro_init(ro_acc *o, const char *run)
{
    memset(o, 0, sizeof *o);
    o->run = run;
    o->v.req = o->s[0].req = o->s[1].req = -1;
}

void ro_free(ro_acc *o)
{
    free(o->c);
    memset(o, 0, sizeof *o);
}

static size_t conn_hash(long long k, size_t cap)
{
    unsigned long long x = (unsigned long long)k * 0x9e3779b97f4a7c15ULL;
    return (size_t)(x >> 17) & (cap - 1);
}

/* the entry of connection k (a new one: used 0); the table stays at most half full */
static ro_conn *conn_slot(ro_acc *o, long long k)
{
    if (2 * (o->n + 1) > o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        ro_conn *c = vu_xcalloc(cap, sizeof *c);
        for (size_t i = 0; i < o->cap; i++) {
            if (!o->c[i].used)
                continue;
            size_t h = conn_hash(o->c[i].conn, cap);
            while (c[h].used)
                h = (h + 1) & (cap - 1);
            c[h] = o->c[i];
        }
        free(o->c);
        o->c = c;
        o->cap = cap;
    }
    size_t h = conn_hash(k, o->cap);
    while (o->c[h].used && o->c[h].conn != k)
        h = (h + 1) & (o->cap - 1);
    return &o->c[h];
}

void ro_tester_row(ro_acc *o, long line, const rr_row *row)
{
    long long j = o->j++;
    if (!row->has[T_SEND] || !row->has[T_CONN])
        return; /* never sent (or no conn: crossfile.h names it): on no connection */
    ro_conn *c = conn_slot(o, row->v[T_CONN]);
    long long send = row->v[T_SEND];
    if (c->used) {
        long long bound = c->answered ? c->answer : c->send;
        if (send < bound - RO_SLACK) {
            char lab[128], want[384];
            snprintf(lab, sizeof lab, "%lld (request %lld, connection %lld)", send, j, c->conn);
            if (c->answered)
                snprintf(want, sizeof want,
                         "at or after %lld - %d, the answer_t of request %lld (%s:%ld), the one before it on "
                         "connection %lld: a keep-alive connection carries one request at a time",
                         bound, RO_SLACK, c->j, TF, c->line, c->conn);
            else
                snprintf(want, sizeof want,
                         "at or after %lld - %d, the send_t of request %lld (%s:%ld, no answer), the one before it "
                         "on connection %lld: a keep-alive connection carries one request at a time",
                         bound, RO_SLACK, c->j, TF, c->line, c->conn);
            mm_row(o->run, TF, line, "send_t", lab, want);
        }
    } else {
        c->used = 1;
        c->conn = row->v[T_CONN];
        o->n++;
    }
    c->j = j;
    c->send = send;
    c->answered = row->has[T_ANSWER];
    c->answer = c->answered ? row->v[T_ANSWER] : 0;
    c->line = line;
}

/* t, of the row at line with request req, not before the file's last by
 * more than the slack; then it is the last */
static void file_order(ro_acc *o, ro_file *f, const char *file, const char *col, long line, long long t,
                       long long req, const char *rule)
{
    if (f->line && t < f->last - RO_SLACK) {
        char lab[96], rq[48], want[384];
        if (req >= 0)
            snprintf(lab, sizeof lab, "%lld (request %lld)", t, req);
        else
            snprintf(lab, sizeof lab, "%lld (a row without req)", t);
        if (f->req >= 0)
            snprintf(rq, sizeof rq, "request %lld", f->req);
        else
            snprintf(rq, sizeof rq, "a row without req");
        snprintf(want, sizeof want, "at or after %lld - %d, the %s of %s (%s:%ld) above it: %s", f->last, RO_SLACK,
                 col, rq, file, f->line, rule);
        mm_row(o->run, file, line, col, lab, want);
    }
    /* against the row just above: a row out of place is one mismatch (an
     * early row at itself, a late row at the row after it) */
    f->last = t;
    f->req = req;
    f->line = line;
}

void ro_service_row(ro_acc *o, long line, const rr_row *row)
{
    if (!row->has[V_ANSWER])
        return;
    file_order(o, &o->v, VF, "answer_t", line, row->v[V_ANSWER], row->has[V_REQ] ? row->v[V_REQ] : -1,
               "the rows are in the order the answers were written");
}

void ro_store_row(ro_acc *o, int store, long line, const rr_row *row)
{
    ro_file *f = &o->s[store == 2];
    const char *fn = store == 2 ? "store2.tsv.gz" : "store.tsv.gz";
    long long req = row->v[S_REQ];
    if (!row->has[S_END]) {
        if (!f->open_line)
            f->open_line = line;
        return;
    }
    if (f->open_line) {
        char lab[96], want[256];
        snprintf(lab, sizeof lab, "%lld (request %lld, attempt %lld)", row->v[S_END], req, row->v[S_ATTEMPT]);
        snprintf(want, sizeof want,
                 "a row with end_t before %s:%ld, the first without one: unfinished lookups come last", fn,
                 f->open_line);
        mm_row(o->run, fn, line, "end_t", lab, want);
        f->open_line = 0; /* one unfinished row out of place is one mismatch, not one per row after it */
    }
    file_order(o, f, fn, "end_t", line, row->v[S_END], req, "the rows are in the order the lookups ended");
}
