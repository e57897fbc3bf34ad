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
    char lab[128];
    const vj_node *n = vj_get(rj, "rate");
    if (n && n->type == VJ_NUM && n->num >= 0 && isfinite(n->num)) {
        a->has_rate = 1;
        a->rate = n->num;
        a->closed = n->num == 0;
        if (!a->closed)
            dc_sched_init(&a->sched, (uint64_t)round, a->rate, seconds);
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
               "a number: the share of H lookups that freeze (RAWFORMAT.md); without it no H wait is drawn, and "
               "format 4's store rows of wait H cannot be decoded");
    }
    const char *w = vj_get_str(vj_get(rj, "arm_spec"), "wait");
    if (w && strlen(w) == 1 && strchr("ZFLH", w[0])) {
        a->wait = w[0];
    } else {
        snprintf(lab, sizeof lab, "%s%.60s%s", w ? "\"" : "", w ? w : "(absent or not a string)", w ? "\"" : "");
        mm_add(NULL, run, "run.json arm_spec.wait", lab,
               "one of Z F L H, RAWFORMAT.md's waits (format 4 needs the planned waits: its store rows cannot be "
               "decoded)");
    }
}

void rd_tester_row(rd_acc *a)
{
    a->rows++;
}

/* the schedule's count against the rows (a row beyond it was rejected by rawdec.h) */
void rd_tester_end(rd_acc *a)
{
    if (!a->has_rate || a->closed)
        return;
    long long count = 0, off;
    while (dc_sched_next(&a->sched, &off))
        count++;
    if (count == a->rows)
        return;
    char lab[64];
    snprintf(lab, sizeof lab, "%lld rows", a->rows);
    mm_addf(NULL, a->run, "tester.tsv.gz requests (the schedule)", lab,
            "%s%lld: the offsets of the schedule (seed %llu, rate %g, seconds %g; RAWFORMAT.md)",
            a->sched.capped ? "more than " : "", count, (unsigned long long)dc_schedule_seed((uint64_t)a->round),
            a->rate, a->seconds);
}

void rd_store_row(rd_acc *a, const ou_fault *fault, int store, long line, const rr_row *row)
{
    const char *fn = store == 1 ? "store.tsv.gz" : "store2.tsv.gz";
    long long req = row->v[S_REQ], att = row->v[S_ATTEMPT];
    char lab[128], want[256];
    /* the fault dice: the first store only, rows answered other than U */
    char oc = row->c[S_OUTCOME];
    if (store != 1 || oc == 'U' || (fault->scen != OU_FLAKY && fault->scen != OU_MISSING))
        return;
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
    if (drawn == (oc == code))
        return;
    snprintf(want, sizeof want, "%s%c: the %s dice give u = %.17g, %s %s", drawn ? "" : "not ", code,
             code == 'E' ? "flaky" : "missing", u, drawn ? "under" : "not under", code == 'E' ? "0.05" : "0.02");
    mm_row(a->run, fn, line, "outcome", lab, want);
}
