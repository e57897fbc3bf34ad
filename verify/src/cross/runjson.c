/* runjson: see runjson.h. */
#include "runjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vutil.h"

int rj_json_equal(const vj_node *a, const vj_node *b)
{
    if (!a || !b)
        return a == b;
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case VJ_NULL:
        return 1;
    case VJ_BOOL:
        return a->b == b->b;
    case VJ_NUM:
        return a->num == b->num;
    case VJ_STR:
        return !strcmp(a->text, b->text);
    case VJ_ARR:
        if (a->n != b->n)
            return 0;
        for (size_t i = 0; i < a->n; i++)
            if (!rj_json_equal(a->items[i], b->items[i]))
                return 0;
        return 1;
    case VJ_OBJ:
        if (a->n != b->n)
            return 0;
        for (size_t i = 0; i < a->n; i++)
            if (!rj_json_equal(a->items[i], vj_get(b, a->keys[i])))
                return 0;
        return 1;
    }
    return 0;
}

/* a value for a message: scalars as written, containers rendered on one line */
static void text_of(const vj_node *n, char *out, size_t len)
{
    if (!n) {
        snprintf(out, len, "(absent)");
        return;
    }
    if (n->type != VJ_ARR && n->type != VJ_OBJ) {
        vj_scalar_text(n, out, len);
        return;
    }
    vu_buf b = {0};
    vj_write(n, &b);
    size_t o = 0;
    for (size_t i = 0; i < b.len && o + 1 < len; i++) {
        char c = b.p[i];
        if (c == '\n')
            continue;
        if (c == ' ' && o > 0 && out[o - 1] == ' ')
            continue;
        out[o++] = c;
    }
    out[o] = 0;
    vu_buf_free(&b);
}

typedef struct {
    long runs, seconds_checked, arm_spec_checked, idle_checked, records_checked;
    long seconds_other;         /* profile tiny: runs whose seconds differ from S */
    char seconds_which[512];    /* the first of them, for the NOTE */
} rj_counts;

/* seconds = S, or C for the closed-loop arm when line 1 gives C (schedule.h) */
static void check_seconds(const rf_run *r, const vj_node *rj, const sd_schedule *sd, const am_file *arms, int enforce,
                          rj_counts *c)
{
    if (!sd->ok)
        return;
    double sec;
    if (vj_get_num(rj, "seconds", &sec))
        return; /* no seconds: the run was rejected */
    c->seconds_checked++;
    const char *want;
    int closed;
    /* format 2: the run's own line (a run the schedule does not plan is
     * prereg.h's mismatch); format 1: S, or C of the closed-loop arm */
    const sd_line *ln = sd_find(sd, r->name);
    if (sd->format == 2 && !ln)
        return;
    if (sec == (ln ? sd_line_seconds(sd, arms, ln, &want, &closed)
                  : sd_run_seconds(sd, arms, vj_get_str(rj, "arm"), &want, &closed)))
        return;
    char lab[64];
    vj_scalar_text(vj_get(rj, "seconds"), lab, sizeof lab);
    if (enforce) {
        if (sd->format == 2)
            mm_addf(NULL, r->name, "run.json seconds", lab, "%s (the schedule's, %s:%ld: profile %s)", want, SD_REL,
                    ln->line, sd->profile);
        else
            mm_addf(NULL, r->name, "run.json seconds", lab, "%s (the schedule's%s, %s line 1: profile %s)", want,
                    closed ? " closed loop" : "", SD_REL, sd->profile);
        return;
    }
    /* tiny: one NOTE for all of them, at the end */
    size_t l = strlen(c->seconds_which);
    if (c->seconds_other++ < 3)
        snprintf(c->seconds_which + l, sizeof c->seconds_which - l, "%s%s %s", l ? ", " : "", r->name, lab);
}

static void check_arm(const rf_run *r, const vj_node *rj, const am_file *arms, rj_counts *c)
{
    const char *arm = vj_get_str(rj, "arm");
    if (!arm)
        return; /* rejected already */
    const am_arm *a = am_find(arms, arm);
    if (!a) {
        mm_addf(NULL, r->name, "run.json arm", arm, "an arm of %s", arms->path);
        return;
    }
    c->arm_spec_checked++;
    char lab[512], want[512], what[160];
    const vj_node *rate = vj_get(rj, "rate"), *want_rate = vj_get(a->spec, "rate");
    if (!rj_json_equal(rate, want_rate) || !rate || rate->type != VJ_NUM) {
        text_of(rate, lab, sizeof lab);
        text_of(want_rate, want, sizeof want);
        mm_addf(NULL, r->name, "run.json rate", lab, "%s (arm %s, %s:%ld; max is 0)", want, arm, arms->path, a->line);
    }
    const vj_node *spec = vj_get(rj, "arm_spec");
    if (!spec || spec->type != VJ_OBJ) {
        mm_addf(NULL, r->name, "run.json arm_spec", spec ? "not an object" : "(absent)", "the line of %s at %s:%ld",
                arm, arms->path, a->line);
        return;
    }
    for (size_t k = 0; k < a->spec->n; k++) {
        const vj_node *got = vj_get(spec, a->spec->keys[k]);
        if (rj_json_equal(got, a->spec->items[k]))
            continue;
        text_of(got, lab, sizeof lab);
        text_of(a->spec->items[k], want, sizeof want);
        snprintf(what, sizeof what, "run.json arm_spec.%s", a->spec->keys[k]);
        mm_addf(NULL, r->name, what, lab, "%s (%s:%ld)", want, arms->path, a->line);
    }
    for (size_t k = 0; k < spec->n; k++) {
        if (vj_get(a->spec, spec->keys[k]))
            continue;
        text_of(spec->items[k], lab, sizeof lab);
        snprintf(what, sizeof what, "run.json arm_spec.%s", spec->keys[k]);
        mm_addf(NULL, r->name, what, lab, "(absent: not a column of %s)", arms->path);
    }
}

/* the idle gate; *enabled and *passed out (-1 when unusable) */
static void check_idle(const rf_run *r, const vj_node *rj, int enforce, int *enabled, int *passed, rj_counts *c)
{
    const vj_node *idle = vj_get(rj, "idle"), *en = vj_get(idle, "enabled"), *pa = vj_get(idle, "passed");
    *enabled = en && en->type == VJ_BOOL ? en->b : -1;
    *passed = pa && pa->type == VJ_BOOL ? pa->b : -1;
    char lab[64];
    if (*enabled < 0 || *passed < 0) {
        text_of(*enabled < 0 ? en : pa, lab, sizeof lab);
        mm_add(NULL, r->name, *enabled < 0 ? "run.json idle.enabled" : "run.json idle.passed", lab,
               "true or false (RAWFORMAT.md, the idle gate)");
        return;
    }
    c->idle_checked++;
    if (*enabled && !*passed)
        mm_add(NULL, r->name, "run.json idle.passed", "false",
               "true: the gate was on and never passed, so the run was measured on a machine that was not idle");
    if (!*enabled && enforce)
        mm_add(NULL, r->name, "run.json idle.enabled", "false",
               "true (RAWFORMAT.md: the gate is switched off in tests only; the profile is not tiny)");
}

static const char *const COPIES[] = {"idle", "cpu", "peak_rss_kb", "cores", "tester_nice", "requests", "quiet"};

static void check_record(const rf_run *r, const vj_node *rj, const pv_records *recs, int enforce, int enabled,
                         int passed, rj_counts *c)
{
    const pv_record *rec = pv_find(recs, r->name);
    char where[320], lab[512], want[512];
    snprintf(where, sizeof where, PV_DIR "/%s.json", r->name);
    if (!rec) {
        if (enforce)
            mm_add(NULL, where, "file", "(absent)",
                   "the run as make measure saw it: one per run it started (RESULTS.md)");
        return;
    }
    if (!rec->tree)
        return; /* unreadable: said by pv_load */
    c->records_checked++;
    long long code;
    if (pv_exit_code(rec, &code) || code != 0) {
        text_of(vj_get(rec->tree, "exit_code"), lab, sizeof lab);
        mm_addf(NULL, where, "exit_code", lab, "0: the run's folder results/raw/%s/ holds its measurement", r->name);
        return;
    }
    for (size_t k = 0; k < sizeof COPIES / sizeof *COPIES; k++) {
        const vj_node *a = vj_get(rec->tree, COPIES[k]), *b = vj_get(rj, COPIES[k]);
        if (rj_json_equal(a, b))
            continue;
        text_of(a, lab, sizeof lab);
        text_of(b, want, sizeof want);
        mm_addf(NULL, where, COPIES[k], lab, "%s (a copy of results/raw/%s/run.json's)", want, r->name);
    }
    if (enabled < 0)
        return;
    const vj_node *g = vj_get(rec->tree, "gate"), *gp = vj_get(rec->tree, "gate_passed");
    if (!g || g->type != VJ_NUM || g->num != (enabled ? 1 : 0)) {
        text_of(g, lab, sizeof lab);
        mm_addf(NULL, where, "gate", lab, "%d (run.json idle.enabled %s)", enabled, enabled ? "true" : "false");
    }
    if (enabled && (!gp || gp->type != VJ_BOOL || gp->b != passed)) {
        text_of(gp, lab, sizeof lab);
        mm_addf(NULL, where, "gate_passed", lab, "%s (run.json idle.passed)", passed ? "true" : "false");
    }
}

vj_node *rj_check(const study *s, const sd_schedule *sd, const am_file *arms, const pv_records *recs, int enforce)
{
    rj_counts c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < s->nruns; i++) {
        const rf_run *r = &s->runs[i];
        char *path = vu_xasprintf("%s/results/raw/%s/run.json", s->root, r->name);
        vj_node *rj = NULL;
        char err[4300];
        int bad = !vu_is_file(path) || vj_parse_file(path, &rj, err, sizeof err) || rj->type != VJ_OBJ;
        free(path);
        if (bad) {
            vj_free(rj);
            continue;
        }
        c.runs++;
        int enabled, passed;
        check_seconds(r, rj, sd, arms, enforce, &c);
        check_arm(r, rj, arms, &c);
        check_idle(r, rj, enforce, &enabled, &passed, &c);
        check_record(r, rj, recs, enforce, enabled, passed, &c);
        vj_free(rj);
    }
    if (c.seconds_other)
        printf("NOTE %s: %ld runs' run.json seconds differ from the schedule's %s (%s%s; profile tiny: not "
               "enforced)\n",
               SD_REL, c.seconds_other, sd->format == 2 ? "(each run's line)" : sd->seconds_text, c.seconds_which,
               c.seconds_other > 3 ? ", ..." : "");
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "runs", vj_new_int(c.runs));
    vj_obj_set(o, "seconds_against_schedule", vj_new_int(c.seconds_checked));
    vj_obj_set(o, "arm_spec_against_arms_file", vj_new_int(c.arm_spec_checked));
    vj_obj_set(o, "idle_gate", vj_new_int(c.idle_checked));
    vj_obj_set(o, "records_against_run_json", vj_new_int(c.records_checked));
    return o;
}
