/* predict: see predict.h. */
#include "predict.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floodmap.h"
#include "mism.h"
#include "odds.h"
#include "predsched.h"
#include "twin.h"
#include "verdrate.h"
#include "vtime.h"
#include "vutil.h"

#define PRED_REL "results/prediction.json"
#define PREREG_REL "provenance/prereg.json"

static int utc_before(long long s1, long n1, long long s2, long n2)
{
    return s1 < s2 || (s1 == s2 && n1 < n2);
}

/* ---- the registration ---- */

typedef struct {
    int present, parsed, registered, before;    /* before: -1 not decided */
    char sha[65];
    size_t size;
    const char *reg_utc;        /* in prereg (owned by its tree) */
    pg_first *first;            /* the earliest start_utc of any run (prereg.h) */
} pd_state;

static void check_registration(const vj_node *entry, pd_state *st)
{
    const char *w = PREREG_REL;
    const char *p = vj_get_str(entry, "path");
    if (!p || strcmp(p, PRED_REL))
        mm_add(NULL, w, "prediction.path", p ? p : "(absent)", PRED_REL);
    const char *sha = vj_get_str(entry, "sha256");
    if (!sha || strcmp(sha, st->sha))
        mm_addf(NULL, w, "prediction.sha256", sha ? sha : "(absent)", "%s (of %s)", st->sha, PRED_REL);
    const vj_node *sz = vj_get(entry, "size");
    if (!sz || sz->type != VJ_NUM || !sz->is_int || sz->i < 0 || (size_t)sz->i != st->size) {
        char lab[64];
        vj_scalar_text(sz, lab, sizeof lab);
        mm_addf(NULL, w, "prediction.size", sz ? lab : "(absent)", "%zu (bytes of %s)", st->size, PRED_REL);
    }
    st->reg_utc = vj_get_str(entry, "registered_utc");
    long long rs = 0;
    long rn = 0;
    int reg_ok = st->reg_utc && !vt_parse_utc(st->reg_utc, &rs, &rn);
    if (!reg_ok)
        mm_add(NULL, w, "prediction.registered_utc", st->reg_utc ? st->reg_utc : "(absent)",
               "a UTC time YYYY-MM-DDTHH:MM:SS[.f]Z");
    pg_first_require(st->first);
    if (!reg_ok || !st->first->ok)
        return;
    st->before = utc_before(rs, rn, st->first->sec, st->first->ns);
    if (!st->before)
        mm_addf(NULL, w, "prediction.registered_utc", st->reg_utc,
                "before %s (start_utc of %s, the study's first run): registered after the first run started",
                st->first->utc, st->first->name);
}

/* the file's bytes and tree (*pred NULL when absent or unreadable) */
static void read_prediction(const study *s, const vj_node *prereg_entry, vj_node **pred, pd_state *st)
{
    char *path = vu_xasprintf("%s/%s", s->root, PRED_REL);
    unsigned char *buf = NULL;
    size_t len = 0;
    char err[1024];
    *pred = NULL;
    if (!vu_is_file(path)) {
        if (prereg_entry)
            mm_add(NULL, PRED_REL, "file", "registered in " PREREG_REL, "missing");
        else
            printf("NOTE %s absent: no prediction to check (predicted null in every run)\n", PRED_REL);
        free(path);
        return;
    }
    st->present = 1;
    if (vu_read_file(path, &buf, &len, err, sizeof err)) {
        mm_add(NULL, PRED_REL, "file", "present", err);
        free(path);
        return;
    }
    vu_sha256_hex(buf, len, st->sha);
    st->size = len;
    if (vj_parse((const char *)buf, len, path, pred, err, sizeof err)) {
        mm_add(NULL, PRED_REL, "JSON", err, "readable JSON (RESULTS.md)");
        *pred = NULL;
    } else {
        st->parsed = 1;
        const char *f = vj_get_str(*pred, "format");
        if (!f || (strcmp(f, "lab-prediction 1") && strcmp(f, "lab-prediction 2")))
            mm_add(NULL, PRED_REL, "format", f ? f : "(absent)", "lab-prediction 1 or lab-prediction 2");
    }
    free(buf);
    free(path);
}

/* ---- predicted ---- */

static const char *const pred_figs[] = {"p99_ms", "standin_share", "lookups_per_request", "flooded", "flood_from_s"};

static vj_node *predicted_of(const vj_node *pred, const char *run)
{
    const vj_node *e = vj_get(vj_get(pred, "runs"), run);
    if (!e)
        return vj_new_null();
    vj_node *o = vj_new_obj();
    for (size_t k = 0; k < sizeof pred_figs / sizeof *pred_figs; k++) {
        const vj_node *v = vj_get(e, pred_figs[k]);
        if (!v) {
            char what[256];
            snprintf(what, sizeof what, "runs.%s.%s", run, pred_figs[k]);
            mm_add(NULL, PRED_REL, what, "(absent)", "one of the five figures of a run (RESULTS.md)");
        }
        vj_obj_set(o, pred_figs[k], v ? vj_copy(v) : vj_new_null());
    }
    /* the entry's twin: null without one, in format 1 and without noise (twin.h) */
    vj_obj_set(o, "twin", tw_of_entry(pred, e));
    return o;
}

/* ---- odds ---- */

static vj_node *interval(int ok, double lo, double hi)
{
    if (!ok)
        return vj_new_null();
    vj_node *a = vj_new_arr();
    vj_arr_push(a, vj_new_num(lo));
    vj_arr_push(a, vj_new_num(hi));
    return a;
}

typedef struct {
    long long k, n;
    int rounds[4096];
    size_t nr;
} measured;

/* the arm's quiet runs, and those in which the event happened (0: an
 * unknown event) */
static int measure(const study *s, const char *arm, const char *event, measured *m)
{
    memset(m, 0, sizeof *m);
    int flood = !strcmp(event, "flooded"), p99 = !strcmp(event, "p99_over_1s");
    if (!flood && !p99)
        return 0;
    for (size_t i = 0; i < s->narms; i++) {
        const study_arm *a = &s->arms[i];
        if (strcmp(a->arm, arm))
            continue;
        int last = -1;
        for (size_t j = 0; j < a->n; j++) {
            const rf_run *r = &s->runs[a->idx[j]];
            if (r->round == last)
                continue; /* a second run of a round: the first counts */
            last = r->round;
            m->n++;
            int hit = flood ? r->flood.flooded : r->has[F_P99_MS] && r->fig[F_P99_MS] > 1000;
            if (hit) {
                m->k++;
                if (m->nr < sizeof m->rounds / sizeof *m->rounds)
                    m->rounds[m->nr++] = r->round;
            }
        }
    }
    return 1;
}

/* one entry of results.json's odds; m NULL: the measured part is null
 * (an event RESULTS.md does not define); source NULL: a claim; seconds
 * NaN: null; comparable 0: agree is null (an outside observation whose
 * seconds differ from its claim's) */
static vj_node *odds_entry(const char *claim, const char *arm, const char *event, const char *source, double seconds,
                           int has_sim, long long sim_k, long long sim_n, const measured *m, int outside, int comparable)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "claim", vj_new_str(claim));
    vj_obj_set(o, "arm", vj_new_str(arm));
    vj_obj_set(o, "event", vj_new_str(event));
    /* whole seconds as an integer (30, not 3e+01) */
    vj_obj_set(o, "seconds", isfinite(seconds) && seconds == floor(seconds) && fabs(seconds) < 9e15
                                 ? vj_new_int((long long)seconds)
                                 : vj_new_num(seconds));
    if (source)
        vj_obj_set(o, "source", vj_new_str(source));
    double wl = 0, wh = 0, cl = 0, ch = 0;
    int w = has_sim && !od_wilson(sim_k, sim_n, &wl, &wh);
    vj_obj_set(o, "sim_k", has_sim ? vj_new_int(sim_k) : vj_new_null());
    vj_obj_set(o, "sim_n", has_sim ? vj_new_int(sim_n) : vj_new_null());
    vj_obj_set(o, "sim_share", w ? vj_new_num((double)sim_k / (double)sim_n) : vj_new_null());
    vj_obj_set(o, "sim_wilson95", interval(w, wl, wh));
    int c = m && !od_clopper_pearson(m->k, m->n, &cl, &ch);
    vj_obj_set(o, "k", m ? vj_new_int(m->k) : vj_new_null());
    vj_obj_set(o, "n", m ? vj_new_int(m->n) : vj_new_null());
    if (outside || !m) {
        vj_obj_set(o, "rounds", vj_new_null());
    } else {
        vj_node *rr = vj_new_arr();
        for (size_t i = 0; i < m->nr; i++)
            vj_arr_push(rr, vj_new_int(m->rounds[i]));
        vj_obj_set(o, "rounds", rr);
    }
    vj_obj_set(o, "cp95", interval(c, cl, ch));
    vj_obj_set(o, "agree", w && c && comparable ? vj_new_bool(od_overlap(wl, wh, cl, ch)) : vj_new_null());
    return o;
}

/* a claim's seconds (the length of the simulated rounds): NaN, and a
 * mismatch, when it is not a number above 0 */
static double claim_seconds(const vj_node *e, size_t i)
{
    const vj_node *v = vj_get(e, "seconds");
    if (v && v->type == VJ_NUM && v->num > 0)
        return v->num;
    char what[64], lab[64];
    snprintf(what, sizeof what, "odds[%zu].seconds", i);
    vj_scalar_text(v, lab, sizeof lab);
    mm_add(NULL, PRED_REL, what, v ? lab : "(absent)", "the seconds of the simulated rounds, above 0 (RESULTS.md)");
    return NAN;
}

/* a claim of prediction.json's odds: 0 when usable (its members out), else a mismatch */
static int claim_of(const vj_node *e, size_t i, const char **claim, const char **arm, const char **event,
                    long long *k, long long *n)
{
    char what[64];
    *claim = vj_get_str(e, "claim");
    *arm = vj_get_str(e, "arm");
    *event = vj_get_str(e, "event");
    const vj_node *vk = vj_get(e, "sim_k"), *vn = vj_get(e, "sim_n");
    const char *bad = !*claim ? "claim" : !*arm ? "arm" : !*event ? "event" : NULL;
    if (bad) {
        snprintf(what, sizeof what, "odds[%zu].%s", i, bad);
        mm_add(NULL, PRED_REL, what, "(absent or not a string)", "a string (RESULTS.md)");
        return -1;
    }
    if (!vk || vk->type != VJ_NUM || !vk->is_int || !vn || vn->type != VJ_NUM || !vn->is_int || vn->i < 1 ||
        vk->i < 0 || vk->i > vn->i) {
        char lab[128], a[48], b[48];
        vj_scalar_text(vk, a, sizeof a);
        vj_scalar_text(vn, b, sizeof b);
        snprintf(lab, sizeof lab, "sim_k %s, sim_n %s", vk ? a : "(absent)", vn ? b : "(absent)");
        snprintf(what, sizeof what, "odds[%zu]", i);
        mm_add(NULL, PRED_REL, what, lab, "integers 0 <= sim_k <= sim_n, sim_n >= 1 (seeds run)");
        return -1;
    }
    if (strcmp(*event, "flooded") && strcmp(*event, "p99_over_1s")) {
        snprintf(what, sizeof what, "odds[%zu].event", i);
        mm_add(NULL, PRED_REL, what, *event, "flooded or p99_over_1s (RESULTS.md)");
    }
    *k = vk->i;
    *n = vn->i;
    return 0;
}

static vj_node *odds_json(const study *s, const vj_node *pred, long *claims)
{
    vj_node *out = vj_new_arr();
    const vj_node *odds = vj_get(pred, "odds");
    if (pred && (!odds || odds->type != VJ_ARR))
        mm_add(NULL, PRED_REL, "odds", odds ? "not a list" : "(absent)", "a list of claims (RESULTS.md)");
    int has_out = 0;
    long long out_k = 0, out_n = 0;
    double out_seconds = NAN;
    measured m;
    for (size_t i = 0; odds && odds->type == VJ_ARR && i < odds->n; i++) {
        const char *claim, *arm, *event;
        long long k, n;
        if (claim_of(odds->items[i], i, &claim, &arm, &event, &k, &n))
            continue;
        int known = measure(s, arm, event, &m);
        double sec = claim_seconds(odds->items[i], i);
        vj_arr_push(out, odds_entry(claim, arm, event, NULL, sec, 1, k, n, known ? &m : NULL, 0, 1));
        (*claims)++;
        if (!has_out && !strcmp(claim, PD_OUT_CLAIM) && !strcmp(arm, PD_OUT_ARM) && !strcmp(event, PD_OUT_EVENT)) {
            has_out = 1;
            out_k = k;
            out_n = n;
            out_seconds = sec;
        }
    }
    /* the outside observation: the lesson's own count, sim_* as the arm's
     * claim; none without a prediction (RESULTS.md: the list is then empty) */
    if (!pred)
        return out;
    memset(&m, 0, sizeof m);
    m.k = PD_OUT_K;
    m.n = PD_OUT_N;
    /* the lesson's rounds were PD_OUT_SECONDS long: a chance simulated over
     * rounds of another length is not the same chance (agree null) */
    vj_arr_push(out, odds_entry(PD_OUT_CLAIM, PD_OUT_ARM, PD_OUT_EVENT, PD_OUT_SOURCE, PD_OUT_SECONDS, has_out, out_k,
                                out_n, &m, 1, out_seconds == PD_OUT_SECONDS));
    return out;
}

/* ---- all of it ---- */

static vj_node *prereg_prediction(const study *s, vj_node **prereg)
{
    char *path = vu_xasprintf("%s/%s", s->root, PREREG_REL);
    char err[1024];
    *prereg = NULL;
    if (vu_is_file(path) && vj_parse_file(path, prereg, err, sizeof err))
        *prereg = NULL;
    free(path);
    vj_node *e = vj_get(*prereg, "prediction");
    return e && e->type == VJ_OBJ ? e : NULL;
}

vj_node *pd_check(study *s, pg_first *first, const sd_schedule *sd, const am_file *arms)
{
    long before = mm_count();
    pd_state st;
    memset(&st, 0, sizeof st);
    st.before = -1;
    st.first = first;
    vj_node *prereg, *pred;
    vj_node *entry = prereg_prediction(s, &prereg);
    read_prediction(s, entry, &pred, &st);
    if (st.present) {
        st.registered = entry != NULL;
        if (!entry)
            mm_add(NULL, PREREG_REL, "prediction", "(absent)",
                   "{path, sha256, size, registered_utc} of " PRED_REL " (RESULTS.md)");
        else
            check_registration(entry, &st);
    }
    long with_entry = 0, claims = 0;
    vj_node *runs = vj_get(s->mine, "runs");
    for (size_t i = 0; runs && i < runs->n; i++) {
        vj_node *p = predicted_of(pred, runs->keys[i]);
        with_entry += p->type != VJ_NULL;
        vj_obj_set(runs->items[i], "predicted", p);
    }
    /* an attempt's predicted: its run's entry (RESULTS.md, "attempts") */
    vj_node *att = vj_get(s->mine, "attempts");
    for (size_t i = 0; att && i < att->n; i++) {
        const rf_run *r = NULL;
        for (size_t k = 0; k < s->nattempts && !r; k++)
            if (!strcmp(s->attempts[k].name, att->keys[i]))
                r = &s->attempts[k];
        vj_obj_set(att->items[i], "predicted", r ? predicted_of(pred, r->planned) : vj_new_null());
    }
    /* each verdict's error rate, from the sizing (verdrate.h) */
    vr_fill(s->mine, pred);
    /* format 2: each run's seconds, the odds' and the sizing's rounds against the schedule */
    long sched_checked = ps_check(pred, sd, arms);
    vj_obj_set(s->mine, "odds", odds_json(s, pred, &claims));
    /* the twin: prediction.json's entries checked, results.json's twin recomputed (twin.h) */
    long twins = tw_check_prediction(pred);
    vj_obj_set(s->mine, "twin", tw_results(s, pred));
    /* the map: prediction.json's checked against its own counts, results.json's recomputed (floodmap.h) */
    long map_policies = fm_check_prediction(pred, arms);
    vj_obj_set(s->mine, "map", fm_results(pred, vj_get(s->mine, "odds")));

    vj_node *c = vj_new_obj();
    vj_obj_set(c, "present", vj_new_bool(st.present));
    vj_obj_set(c, "registered", vj_new_bool(st.registered));
    vj_obj_set(c, "sha256", st.present ? vj_new_str(st.sha) : vj_new_null());
    vj_obj_set(c, "size", st.present ? vj_new_int((long long)st.size) : vj_new_null());
    vj_obj_set(c, "registered_utc", st.reg_utc ? vj_new_str(st.reg_utc) : vj_new_null());
    vj_obj_set(c, "first_run", first->ok ? vj_new_str(first->name) : vj_new_null());
    vj_obj_set(c, "first_start_utc", first->ok ? vj_new_str(first->utc) : vj_new_null());
    vj_obj_set(c, "registered_before_first_run", st.before < 0 ? vj_new_null() : vj_new_bool(st.before));
    vj_obj_set(c, "runs_with_entry", vj_new_int(with_entry));
    vj_obj_set(c, "odds_claims", vj_new_int(claims));
    const char *fmt = vj_get_str(pred, "format");
    vj_obj_set(c, "format", fmt ? vj_new_str(fmt) : vj_new_null());
    vj_obj_set(c, "entries_against_schedule", vj_new_int(sched_checked));
    vj_obj_set(c, "noise", vj_new_bool(tw_has_noise(pred)));
    vj_obj_set(c, "twins", vj_new_int(twins));
    vj_obj_set(c, "map", vj_new_bool(fm_has_map(pred)));
    vj_obj_set(c, "map_policies", vj_new_int(map_policies));
    /* DESIGN.md 5.8: a quiet run's measured stand-in share lies within
     * this of its prediction (for the report, which draws it) */
    vj_obj_set(c, "standin_share_tolerance", vj_new_num(TW_STANDIN_TOLERANCE));
    vj_obj_set(c, "mismatches", vj_new_int(mm_count() - before));
    vj_free(pred);
    vj_free(prereg);
    return c;
}
