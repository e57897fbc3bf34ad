/* synraw: the part of synth (synth.h) that makes raw rows meet the rules
 * the verifier checks across files and draws again (lab/RAWFORMAT.md,
 * "What a reader can draw again"): the schedule, the planned waits from
 * the dice (the verifier's own dice.h: its check values are tested in
 * test_crossfile.c), closed-loop runs, a request moved whole, the
 * connections and the rows' order (syn_assign_conns, syn_sort_rows), and the
 * kind runs (syn_kind_run, syn_kind_run_open).  Declared in
 * synth.h; nothing here is allocated but syn_schedule's offsets and a kind
 * run's rows (syn_free_run frees them).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "synth.h"
#include "vutil.h"

char syn_wait_of(const syn_run *r)
{
    if (r->wait)
        return r->wait;
    return r->arm[0] && strchr("ZFLH", r->arm[0]) ? r->arm[0] : 'H';
}

double syn_freeze_share(const syn_run *r)
{
    return r->freeze_share_set ? r->freeze_share : 0.01;
}

size_t syn_schedule(int round, double rate, double seconds, long long **off)
{
    dc_sched sc;
    dc_sched_init(&sc, (uint64_t)round, rate, seconds);
    size_t n = 0, cap = 1024;
    long long *v = vu_xmalloc(cap * sizeof *v), x;
    while (dc_sched_next(&sc, &x)) {
        if (n == cap)
            v = vu_xrealloc(v, (cap *= 2) * sizeof *v);
        v[n++] = x;
    }
    *off = v;
    return n;
}

long long syn_planned(const syn_run *r, long long req, long long attempt)
{
    long long w = 0;
    dc_wait(syn_wait_of(r), (uint64_t)r->round, (uint64_t)req, (uint64_t)attempt, syn_freeze_share(r), &w);
    return w;
}

long long syn_planned_at(const syn_run *r, int store, long long req, long long attempt, long long t)
{
    long long w = syn_planned(r, req, attempt);
    int slow = r->fault && r->has_window &&
               ((!strcmp(r->fault, "slow") && store == 1) || !strcmp(r->fault, "slowboth"));
    long long a = t - r->t0;
    if (slow && a >= r->from_ns && (r->to_null || a < r->to_ns))
        w += 20000000LL;
    return w;
}

void syn_draw_waits(syn_run *r)
{
    for (size_t i = 0; i < r->ns; i++)
        r->s[i].planned = syn_planned_at(r, 1, r->s[i].req, r->s[i].attempt, r->s[i].arrive);
    for (size_t i = 0; i < r->ns2; i++)
        r->s2[i].planned = syn_planned_at(r, 2, r->s2[i].req, r->s2[i].attempt, r->s2[i].arrive);
}

/* every time of request j after its schedule moved by d: its send and
 * answer, its service row, its store rows */
static void shift_after_sched(syn_run *r, size_t j, long long d)
{
    syn_trow *t = &r->t[j];
    t->send += d;
    if (t->has_answer)
        t->answer += d;
    for (size_t i = 0; i < r->nv; i++) {
        syn_vrow *v = &r->v[i];
        if (!v->has_req || v->req != t->j)
            continue;
        v->arrive += d;
        v->answer += d;
        for (int a = 0; a < 5; a++) {
            v->a_start[a] += d;
            v->a_end[a] += d;
        }
    }
    syn_srow *rows[2] = {r->s, r->s2};
    size_t n[2] = {r->ns, r->ns2};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < n[k]; i++) {
            syn_srow *s = &rows[k][i];
            if (s->req != t->j)
                continue;
            s->arrive += d;
            s->start += d;
            s->end += d;
        }
}

void syn_send_late(syn_run *r, size_t j, long long late_ns)
{
    shift_after_sched(r, j, r->t[j].sched + late_ns - r->t[j].send);
    syn_assign_conns(r);
    syn_sort_rows(r);
}

void syn_shift_request(syn_run *r, size_t j, long long d)
{
    r->t[j].sched += d;
    shift_after_sched(r, j, d);
    syn_assign_conns(r);
    syn_sort_rows(r);
}

/* ---- the rows' order (roworder.h) ---- */

void syn_assign_conns(syn_run *r)
{
    /* per connection: when it is free again (LLONG_MAX: never, its last
     * request went unanswered) */
    long long *free_at = vu_xcalloc(r->nt + 1, sizeof *free_at);
    size_t nc = 0;
    for (size_t i = 0; i < r->nt; i++) {
        syn_trow *t = &r->t[i];
        if (t->no_send)
            continue;
        size_t c = 0;
        while (c < nc && free_at[c] > t->send)
            c++;
        if (c == nc)
            nc++;
        t->conn = (int)c;
        free_at[c] = t->has_answer ? t->answer : LLONG_MAX;
    }
    free(free_at);
}

static int cmp_vrow_order(const void *x, const void *y)
{
    const syn_vrow *a = x, *b = y;
    return (a->answer > b->answer) - (a->answer < b->answer);
}

static int cmp_srow_order(const void *x, const void *y)
{
    const syn_srow *a = x, *b = y;
    if (a->has_end != b->has_end)
        return a->has_end ? -1 : 1;
    if (!a->has_end)
        return 0;
    return (a->end > b->end) - (a->end < b->end);
}

void syn_sort_rows(syn_run *r)
{
    qsort(r->v, r->nv, sizeof *r->v, cmp_vrow_order);
    qsort(r->s, r->ns, sizeof *r->s, cmp_srow_order);
    if (r->s2)
        qsort(r->s2, r->ns2, sizeof *r->s2, cmp_srow_order);
}

void syn_closed_loop(syn_run *r)
{
    r->rate = 0;
    for (size_t i = 0; i < r->nt; i++)
        r->t[i].send = r->t[i].sched;
    syn_assign_conns(r); /* the sends moved: the connections as a tester would give them */
}

/* ---- kind runs ---- */

/* the rows of a kind run: request j at t0 + off[j] (open loop, sent `late`
 * ns after) or at t0 + j 50 ms (off NULL: closed loop, sent at once) */
static void kind_rows(syn_run *r, const char *kinds, const syn_ref *ref, const long long *off, long long late)
{
    size_t n = strlen(kinds);
    r->t = vu_xcalloc(n + 1, sizeof *r->t);
    r->v = vu_xcalloc(n + 1, sizeof *r->v);
    r->s = vu_xcalloc(n + 1, sizeof *r->s);
    for (size_t j = 0; j < n; j++) {
        char k = kinds[j];
        syn_trow *t = &r->t[r->nt++];
        t->j = (long long)j;
        t->row = (long long)(j % ref->rows);
        t->sched = r->t0 + (off ? off[j] : (long long)j * 50000000LL);
        t->send = t->sched + late;
        syn_vrow *v = &r->v[r->nv++];
        v->req = t->j;
        v->row = t->row;
        v->has_req = v->has_row = 1;
        v->arrive = t->send + 15000;
        v->lookups = 1;
        v->a_has[0] = 1;
        v->a_start[0] = v->arrive + 3000;
        syn_srow *s = &r->s[r->ns++];
        s->req = t->j;
        s->row = t->row;
        s->arrive = v->a_start[0] + 8000;
        s->has_start = s->has_end = 1;
        s->start = s->arrive;
        s->outcome = 'A';
        /* the slot: 1 ms (L), or 40 ms while the service stops waiting at 25
         * ms; planned_ns is the dice's (syn_draw_waits), whatever the slot */
        if (k == 'L') {
            s->end = s->start + 1000000;
            v->a_end[0] = s->end + 9000;
            v->a_out[0] = 'A';
        } else {
            s->end = s->start + 40000000;
            v->a_end[0] = v->a_start[0] + 25000000;
            v->a_out[0] = 'T';
        }
        v->answer = v->a_end[0] + 4000;
        t->has_answer = 1;
        t->answer = v->answer + 30000;
        t->kind = v->kind = k;
        if (k == 'E') {
            t->status = v->status = 504;
        } else {
            t->status = v->status = 200;
            t->has_score = 1;
            t->score = k == 'L' ? ref->score[t->row] : k == 'K' ? ref->last_known[t->row] : ref->default_score;
        }
    }
    syn_draw_waits(r);
    syn_assign_conns(r);
    syn_sort_rows(r);
    syn_quiet_machine(r, (int)ceil(r->seconds) + 1);
}

void syn_kind_run(syn_run *r, const char *arm, int round, const char *kinds, const syn_ref *ref, long long t0)
{
    memset(r, 0, sizeof *r);
    snprintf(r->arm, sizeof r->arm, "%s", arm);
    r->round = round;
    r->rate = 0;
    r->t0 = t0;
    r->test_rows = (long long)ref->rows;
    r->ref = ref;
    r->seconds = ceil((double)strlen(kinds) * 0.05);
    kind_rows(r, kinds, ref, NULL, 0);
}

void syn_kind_run_open(syn_run *r, const char *arm, int round, const char *kinds, const syn_ref *ref, long long t0,
                       int rate, double seconds)
{
    memset(r, 0, sizeof *r);
    snprintf(r->arm, sizeof r->arm, "%s", arm);
    r->round = round;
    r->rate = rate;
    r->t0 = t0;
    r->test_rows = (long long)ref->rows;
    r->ref = ref;
    r->seconds = seconds;
    long long *off;
    size_t n = syn_schedule(round, rate, seconds, &off);
    if (n != strlen(kinds)) {
        fprintf(stderr, "synth: %zu kinds for a schedule of %zu requests (round %d, rate %d, %g s)\n", strlen(kinds), n,
                round, rate, seconds);
        abort();
    }
    kind_rows(r, kinds, ref, off, 10000);
    free(off);
}

void syn_never_sent(syn_run *r, size_t j)
{
    syn_trow *t = &r->t[j];
    t->no_send = 1;
    t->has_answer = t->has_score = 0;
    t->status = 0;
    t->kind = 'E';
    long long req = t->j;
    size_t n = 0;
    for (size_t i = 0; i < r->nv; i++)
        if (!r->v[i].has_req || r->v[i].req != req)
            r->v[n++] = r->v[i];
    r->nv = n;
    n = 0;
    for (size_t i = 0; i < r->ns; i++)
        if (r->s[i].req != req)
            r->s[n++] = r->s[i];
    r->ns = n;
    n = 0;
    for (size_t i = 0; i < r->ns2; i++)
        if (r->s2[i].req != req)
            r->s2[n++] = r->s2[i];
    r->ns2 = n;
}
