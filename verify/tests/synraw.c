/* synraw: the part of synth (synth.h) that makes raw rows meet the rules
 * the verifier checks across files and draws again (lab/RAWFORMAT.md,
 * "What a reader can draw again"): the schedule, the planned waits from
 * the dice (the verifier's own dice.h: its check values are tested in
 * test_crossfile.c), closed-loop runs, a request moved whole.  Declared in
 * synth.h; nothing here is allocated but syn_schedule's offsets.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "synth.h"
#include "vutil.h"

char syn_wait_of(const syn_run *r)
{
    if (r->wait) return r->wait;
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
        if (n == cap) v = vu_xrealloc(v, (cap *= 2) * sizeof *v);
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

void syn_draw_waits(syn_run *r)
{
    for (size_t i = 0; i < r->ns; i++) r->s[i].planned = syn_planned(r, r->s[i].req, r->s[i].attempt);
    for (size_t i = 0; i < r->ns2; i++) r->s2[i].planned = syn_planned(r, r->s2[i].req, r->s2[i].attempt);
}

/* every time of request j after its schedule moved by d: its send and
 * answer, its service row, its store rows */
static void shift_after_sched(syn_run *r, size_t j, long long d)
{
    syn_trow *t = &r->t[j];
    t->send += d;
    if (t->has_answer) t->answer += d;
    for (size_t i = 0; i < r->nv; i++) {
        syn_vrow *v = &r->v[i];
        if (!v->has_req || v->req != t->j) continue;
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
            if (s->req != t->j) continue;
            s->arrive += d;
            s->start += d;
            s->end += d;
        }
}

void syn_send_late(syn_run *r, size_t j, long long late_ns)
{
    shift_after_sched(r, j, r->t[j].sched + late_ns - r->t[j].send);
}

void syn_shift_request(syn_run *r, size_t j, long long d)
{
    r->t[j].sched += d;
    shift_after_sched(r, j, d);
}

void syn_closed_loop(syn_run *r)
{
    r->rate = 0;
    for (size_t i = 0; i < r->nt; i++) r->t[i].send = r->t[i].sched;
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
        if (!r->v[i].has_req || r->v[i].req != req) r->v[n++] = r->v[i];
    r->nv = n;
    n = 0;
    for (size_t i = 0; i < r->ns; i++)
        if (r->s[i].req != req) r->s[n++] = r->s[i];
    r->ns = n;
    n = 0;
    for (size_t i = 0; i < r->ns2; i++)
        if (r->s2[i].req != req) r->s2[n++] = r->s2[i];
    r->ns2 = n;
}
