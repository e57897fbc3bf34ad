/* redraw: see redraw.h. */
#include "redraw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mism.h"
#include "rawcols.h"

void rd_init(rd_acc *a, const vj_node *rj, const char *run, long long round, double seconds, long long t0)
{
    memset(a, 0, sizeof *a);
    a->run = run;
    a->round = round;
    a->seconds = seconds;
    a->t0 = t0;
    a->first_extra = -1;
    char lab[128];
    const vj_node *n = vj_get(rj, "rate");
    if (n && n->type == VJ_NUM && n->num >= 0 && isfinite(n->num)) {
        a->has_rate = 1;
        a->rate = n->num;
        a->closed = n->num == 0;
        if (!a->closed) dc_sched_init(&a->sched, (uint64_t)round, a->rate, seconds);
    } else {
        vj_scalar_text(n, lab, sizeof lab);
        mm_add(NULL, run, "run.json rate", n ? lab : "(absent)",
               "a number >= 0: requests a second, 0 for a closed-loop run (RAWFORMAT.md); no schedule is drawn");
    }
    /* the schedule is drawn with the documented seed whatever run.json says */
    n = vj_get(rj, "schedule_seed");
    unsigned long long seed = (unsigned long long)dc_schedule_seed((uint64_t)round);
    if (!n || n->type != VJ_NUM || !n->is_int || (unsigned long long)n->i != seed) {
        vj_scalar_text(n, lab, sizeof lab);
        mm_addf(NULL, run, "run.json schedule_seed", n ? lab : "(absent)", "%llu (1000003 round + 17, RAWFORMAT.md)",
                seed);
    }
    n = vj_get(rj, "freeze_share");
    if (n && n->type == VJ_NUM) {
        a->has_p = 1;
        a->p = n->num;
    } else {
        vj_scalar_text(n, lab, sizeof lab);
        mm_add(NULL, run, "run.json freeze_share", n ? lab : "(absent)",
               "a number: the share of H lookups that freeze (RAWFORMAT.md); without it no H wait is drawn");
    }
    const char *w = vj_get_str(vj_get(rj, "arm_spec"), "wait");
    if (w && strlen(w) == 1 && strchr("ZFLH", w[0])) {
        a->wait = w[0];
    } else {
        snprintf(lab, sizeof lab, "%s%.60s%s", w ? "\"" : "", w ? w : "(absent or not a string)", w ? "\"" : "");
        mm_add(NULL, run, "run.json arm_spec.wait", lab,
               "one of Z F L H, RAWFORMAT.md's waits; no planned_ns is drawn");
    }
}

void rd_tester_row(rd_acc *a, long line, const rr_row *row)
{
    long long i = a->rows++;
    if (!a->has_rate) return;
    long long sched = row->v[T_SCHED], send = row->v[T_SEND];
    char lab[128], want[256];
    if (a->closed) {
        if (row->has[T_SEND] && sched != send) { /* a request never sent has no send_t to equal */
            snprintf(lab, sizeof lab, "%lld (request %lld)", sched, i);
            snprintf(want, sizeof want, "%lld, its send_t (a closed-loop run, rate 0, has no schedule)", send);
            mm_row(a->run, "tester.tsv.gz", line, "sched_t", lab, want);
        }
        return;
    }
    if (a->first_extra >= 0) return;
    long long off, got;
    if (!dc_sched_next(&a->sched, &off)) {
        a->first_extra = i;
        a->first_extra_line = line;
        return;
    }
    if (__builtin_sub_overflow(sched, a->t0, &got) || got != off) {
        if (got == off) snprintf(lab, sizeof lab, "%lld (request %lld)", sched, i);
        else snprintf(lab, sizeof lab, "t0_ns + %lld (request %lld)", got, i);
        snprintf(want, sizeof want,
                 "t0_ns + %lld, the schedule's offset of request %lld (seed %llu, rate %g, seconds %g)", off, i,
                 (unsigned long long)dc_schedule_seed((uint64_t)a->round), a->rate, a->seconds);
        mm_row(a->run, "tester.tsv.gz", line, "sched_t", lab, want);
    }
}

void rd_tester_end(rd_acc *a)
{
    if (!a->has_rate || a->closed) return;
    long long count = a->first_extra >= 0 ? a->first_extra : a->rows, off;
    if (a->first_extra < 0)
        while (dc_sched_next(&a->sched, &off)) count++;
    if (count == a->rows) return;
    char lab[64];
    snprintf(lab, sizeof lab, "%lld rows", a->rows);
    mm_addf(NULL, a->run, "tester.tsv.gz requests (the schedule)", lab,
            "%s%lld: the offsets of the schedule (seed %llu, rate %g, seconds %g; RAWFORMAT.md)",
            a->sched.capped ? "more than " : "", count, (unsigned long long)dc_schedule_seed((uint64_t)a->round),
            a->rate, a->seconds);
    if (a->first_extra >= 0) {
        char l2[64], w2[128];
        snprintf(l2, sizeof l2, "request %lld", a->first_extra);
        snprintf(w2, sizeof w2, "no such request: the schedule ends after %lld", count);
        mm_row(a->run, "tester.tsv.gz", a->first_extra_line, "j", l2, w2);
    }
}

void rd_store_row(rd_acc *a, const ou_fault *fault, int store, long line, const rr_row *row)
{
    const char *fn = store == 1 ? "store.tsv.gz" : "store2.tsv.gz";
    long long req = row->v[S_REQ], att = row->v[S_ATTEMPT];
    char lab[128], want[256];
    if (a->wait && (a->wait != 'H' || a->has_p)) {
        long long w = 0;
        dc_wait(a->wait, (uint64_t)a->round, (uint64_t)req, (uint64_t)att, a->p, &w);
        if (w != row->v[S_PLANNED]) {
            snprintf(lab, sizeof lab, "%s (request %lld, attempt %lld)", row->text[S_PLANNED], req, att);
            if (a->wait == 'H')
                snprintf(want, sizeof want, "%lld, the wait dice (wait H, round %lld, freeze_share %g)", w, a->round,
                         a->p);
            else snprintf(want, sizeof want, "%lld, the wait dice (wait %c, round %lld)", w, a->wait, a->round);
            mm_row(a->run, fn, line, "planned_ns", lab, want);
        }
    }
    /* the fault dice: the first store only, rows answered other than U */
    char oc = row->c[S_OUTCOME];
    if (store != 1 || oc == 'U' || (fault->scen != OU_FLAKY && fault->scen != OU_MISSING)) return;
    double u;
    int drawn;
    char code;
    if (fault->scen == OU_FLAKY) {
        drawn = dc_flaky((uint64_t)a->round, (uint64_t)req, (uint64_t)att, &u);
        code = 'E';
        snprintf(lab, sizeof lab, "%c (request %lld, attempt %lld)", oc, req, att);
    } else {
        drawn = dc_missing((uint64_t)row->v[S_ROW], &u);
        code = 'N';
        snprintf(lab, sizeof lab, "%c (request %lld, attempt %lld, row %lld)", oc, req, att, row->v[S_ROW]);
    }
    if (drawn == (oc == code)) return;
    snprintf(want, sizeof want, "%s%c: the %s dice give u = %.17g, %s %s", drawn ? "" : "not ", code,
             code == 'E' ? "flaky" : "missing", u, drawn ? "under" : "not under", code == 'E' ? "0.05" : "0.02");
    mm_row(a->run, fn, line, "outcome", lab, want);
}
