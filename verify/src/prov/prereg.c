/* prereg: see prereg.h. */
#include "prereg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "runjson.h"
#include "vfiles.h"
#include "vtime.h"
#include "vutil.h"

#define PREREG_REL "provenance/prereg.json"

/* ---- the first start ---- */

/* one start time: the earliest so far kept; report 1: say why one is unusable */
static void consider(pg_first *f, const char *name, const char *where, const char *what, const char *utc, int report)
{
    long long sec;
    long ns;
    if (!utc || vt_parse_utc(utc, &sec, &ns)) {
        if (report && !utc)
            mm_add(NULL, where, what, "(absent)",
                   "a UTC time: the registration must be shown to precede every run (RESULTS.md)");
        else if (report)
            mm_add(NULL, where, what, utc, "a UTC time YYYY-MM-DDTHH:MM:SS[.f]Z");
        return;
    }
    if (report || (f->ok && (sec > f->sec || (sec == f->sec && ns >= f->ns))))
        return;
    f->ok = 1;
    f->sec = sec;
    f->ns = ns;
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->utc, sizeof f->utc, "%s", utc);
}

static void walk_starts(pg_first *f, int report)
{
    char where[512];
    for (size_t i = 0; i < f->s->nruns; i++) {
        const rf_run *r = &f->s->runs[i];
        consider(f, r->name, r->name, "run.json start_utc", r->start_utc[0] ? r->start_utc : NULL, report);
    }
    for (size_t i = 0; i < f->s->nattempts; i++) { /* an attempt was a run started too */
        const rf_run *r = &f->s->attempts[i];
        consider(f, r->name, r->name, "run.json start_utc", r->start_utc[0] ? r->start_utc : NULL, report);
    }
    for (size_t i = 0; i < f->recs->n; i++) {
        if (!f->recs->v[i].tree)
            continue;
        snprintf(where, sizeof where, PV_DIR "/%s.json", f->recs->v[i].name);
        consider(f, f->recs->v[i].name, where, "start_utc", vj_get_str(f->recs->v[i].tree, "start_utc"), report);
    }
}

void pg_first_start(const study *s, const pv_records *recs, pg_first *f)
{
    memset(f, 0, sizeof *f);
    f->s = s;
    f->recs = recs;
    walk_starts(f, 0);
}

void pg_first_require(pg_first *f)
{
    if (f->required || !f->s)
        return;
    f->required = 1;
    walk_starts(f, 1);
}

/* ---- the registered files ---- */

/* a broken rule: a mismatch, or in profile tiny (not enforced) a NOTE line */
static void flag(int enforce, const char *what, const char *lab, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void flag(int enforce, const char *what, const char *lab, const char *fmt, ...)
{
    char mine[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mine, sizeof mine, fmt, ap);
    va_end(ap);
    if (enforce)
        mm_add(NULL, PREREG_REL, what, lab, mine);
    else
        printf("NOTE %s %s: %s, not %s (profile tiny: not enforced)\n", PREREG_REL, what, lab, mine);
}

/* the six files every registration lists, and the seventh of a study
 * registered from 2026-12-02 */
static const char *const SIX[] = {"data/guesses.tsv", "data/design.md", "data/quiet.tsv", "lab/arms.tsv",
                                  "pipeline/comparisons.tsv", "pipeline/ap_arms.tsv", "data/profiles.tsv"};
#define NSIX 6
#define NSEVEN 7
#define REG_DIR "provenance/registered"

static const char *given_path(const pg_inputs *in, int k)
{
    const char *p[NSEVEN] = {in->guesses, in->design,      in->quiet,   in->arms,
                             in->comparisons, in->ap_arms, in->profiles};
    return p[k];
}

static int six_index(const char *path)
{
    for (int k = 0; k < NSEVEN; k++)
        if (path && !strcmp(path, SIX[k]))
            return k;
    return -1;
}

/* a file against an entry's sha256 and size: 1 when both match (each
 * difference flagged, what naming the entry's path and, for a copy, "copy") */
static int held_to(const vj_node *e, const char *path, const char *file, const char *kind, int enforce, char *mine)
{
    const char *sha = vj_get_str(e, "sha256");
    const vj_node *sz = vj_get(e, "size");
    unsigned char *b;
    size_t len;
    char err[4300], what[160], lab[128];
    if (vu_read_file(file, &b, &len, err, sizeof err)) {
        flag(enforce, path, "registered", "the file, %s %s: %s", kind, file, err);
        return 0;
    }
    vu_sha256_hex(b, len, mine);
    free(b);
    int same = 1;
    const char *sep = strcmp(kind, "given as") ? " copy" : "";
    if (!sha || strcmp(sha, mine)) {
        snprintf(what, sizeof what, "%s%s sha256", path, sep);
        flag(enforce, what, sha ? sha : "(absent)", "%s (of %s: changed since its registration)", mine, file);
        same = 0;
    }
    if (!sz || sz->type != VJ_NUM || !sz->is_int || sz->i < 0 || (size_t)sz->i != len) {
        vj_scalar_text(sz, lab, sizeof lab);
        snprintf(what, sizeof what, "%s%s size", path, sep);
        flag(enforce, what, sz ? lab : "(absent)", "%zu (bytes of %s)", len, file);
        same = 0;
    }
    return same;
}

/* one entry of files: its file as given against the registered sha256 and
 * size; its copy under provenance/registered/ too when the file given is
 * another (an option) */
static void check_entry(const vj_node *e, size_t i, const pg_inputs *in, const char *root, int enforce, int *seen,
                        int *order, vj_node *out)
{
    char what[96];
    const char *path = vj_get_str(e, "path");
    int k = six_index(path);
    snprintf(what, sizeof what, "files[%zu].path", i);
    if (k < 0) {
        flag(enforce, what, path ? path : "(absent)",
             "one of data/guesses.tsv data/design.md data/quiet.tsv lab/arms.tsv pipeline/comparisons.tsv "
             "pipeline/ap_arms.tsv data/profiles.tsv (RESULTS.md)");
        return;
    }
    if (seen[k]) {
        flag(enforce, what, path, "each of the seven files once");
        return;
    }
    seen[k] = 1;
    order[k] = (int)i;
    const char *given = given_path(in, k);
    char mine[65] = "";
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "path", vj_new_str(path));
    char *shown = vf_shown(given);
    vj_obj_set(o, "given", vj_new_str(shown));
    free(shown);
    int same = held_to(e, path, given, "given as", enforce, mine);
    if (mine[0])
        vj_obj_set(o, "sha256", vj_new_str(mine));
    char *copy = vu_xasprintf("%s/" REG_DIR "/%s", root, path);
    int has_copy = vu_is_file(copy);
    vj_obj_set(o, "copy", vj_new_bool(has_copy));
    if (has_copy && strcmp(copy, given)) {
        char cm[65];
        same &= held_to(e, path, copy, "the registered copy", enforce, cm);
    }
    free(copy);
    vj_obj_set(o, "matches_registration", vj_new_bool(same));
    vj_arr_push(out, o);
}

/* provenance/prereg.json: the files and their registration time */
static vj_node *check_prereg(const pg_inputs *in, pg_first *f, const char *root, int enforce)
{
    vj_node *st = vj_new_obj(), *files = vj_new_arr();
    char *path = vu_xasprintf("%s/" PREREG_REL, root);
    int present = vu_is_file(path);
    vj_obj_set(st, "present", vj_new_bool(present));
    vj_node *pj = NULL;
    char err[4300];
    if (!present) {
        if (enforce)
            mm_add(NULL, PREREG_REL, "file", "(absent)", "the registration, written by make prepare (RESULTS.md)");
        else
            printf("NOTE %s absent (profile tiny: not required)\n", PREREG_REL);
    } else if (vj_parse_file(path, &pj, err, sizeof err) || pj->type != VJ_OBJ) {
        mm_add(NULL, PREREG_REL, "JSON", pj ? "not an object" : err, "a JSON object (RESULTS.md)");
        vj_free(pj);
        pj = NULL;
    }
    free(path);
    const char *reg = vj_get_str(pj, "registered_utc");
    long long sec;
    long ns;
    if (pj && !reg && (enforce || vj_get(pj, "registered_utc")))
        mm_add(NULL, PREREG_REL, "registered_utc", "(absent or not a string)", "the UTC time of the registration");
    if (reg && enforce)
        pg_first_require(f);
    if (reg && vt_parse_utc(reg, &sec, &ns)) {
        flag(enforce, "registered_utc", reg, "a UTC time YYYY-MM-DDTHH:MM:SS[.f]Z");
    } else if (reg && f->ok && !(sec < f->sec || (sec == f->sec && ns < f->ns))) {
        flag(enforce, "registered_utc", reg,
             "before %s (start_utc of %s, the study's first run): registered after the first run started", f->utc,
             f->name);
    }
    vj_obj_set(st, "registered_utc", reg ? vj_new_str(reg) : vj_new_null());
    const vj_node *fl = vj_get(pj, "files");
    int seen[NSEVEN] = {0}, order[NSEVEN];
    if (pj && (!fl || fl->type != VJ_ARR))
        flag(enforce, "files", fl ? "not a list" : "(absent)", "a list");
    for (size_t i = 0; fl && fl->type == VJ_ARR && i < fl->n; i++)
        check_entry(fl->items[i], i, in, root, enforce, seen, order, files);
    int all = 1, in_order = 1, nk = seen[NSIX] ? NSEVEN : NSIX;
    for (int k = 0; k < nk; k++) {
        all &= seen[k];
        if (k && seen[k] && seen[k - 1] && order[k] < order[k - 1])
            in_order = 0;
        if (pj && enforce && !seen[k])
            mm_addf(NULL, PREREG_REL, "files", "(not listed)", "%s, registered before the first run (RESULTS.md)",
                    SIX[k]);
    }
    if (pj && enforce && all && !in_order)
        mm_add(NULL, PREREG_REL, "files", "another order",
               "data/guesses.tsv, data/design.md, data/quiet.tsv, lab/arms.tsv, pipeline/comparisons.tsv, "
               "pipeline/ap_arms.tsv (and data/profiles.tsv), in this order (RESULTS.md)");
    /* registered from 2026-12-02 (the seventh listed): each file's copy travels with the study */
    long copies = 0;
    for (int k = 0; k < NSEVEN; k++) {
        if (!seen[k])
            continue;
        char *copy = vu_xasprintf("%s/" REG_DIR "/%s", root, SIX[k]);
        int has = vu_is_file(copy);
        free(copy);
        copies += has;
        if (!has && seen[NSIX]) {
            char what[96];
            snprintf(what, sizeof what, REG_DIR "/%s", SIX[k]);
            flag(enforce, what, "(absent)",
                 "a copy of each registered file, written by make prepare (RESULTS.md: the registered files travel "
                 "with the study)");
        }
    }
    vj_obj_set(st, "files", files);
    vj_obj_set(st, "all_six_listed", vj_new_bool(pj && all));
    vj_obj_set(st, "profiles_listed", vj_new_bool(seen[NSIX]));
    vj_obj_set(st, "registered_copies", vj_new_int(copies));
    vj_free(pj);
    return st;
}

/* ---- the planned runs ---- */

static int has_run_json(const char *root, const char *run)
{
    char *p = vu_xasprintf("%s/results/raw/%s/run.json", root, run);
    int r = vu_is_file(p);
    free(p);
    return r;
}

/* a record of a planned run against its line */
static void record_vs_line(const pv_record *rec, const sd_line *l, const sd_schedule *sd, const am_file *arms)
{
    char where[320], want[160], lab[160];
    snprintf(where, sizeof where, PV_DIR "/%s.json", rec->name);
    const struct {
        const char *key;
        vj_node *want;
    } f[] = {{"run", vj_new_str(l->run)},     {"arm", vj_new_str(l->arm)},         {"round", vj_new_int(l->round)},
             {"k", vj_new_int(l->k)},         {"profile", vj_new_str(sd->profile)},
             {"seconds", vj_new_num(sd_line_seconds(sd, arms, l, NULL, NULL))}};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        const vj_node *got = vj_get(rec->tree, f[i].key);
        if (!rj_json_equal(got, f[i].want)) {
            vj_scalar_text(got, lab, sizeof lab);
            vj_scalar_text(f[i].want, want, sizeof want);
            mm_addf(NULL, where, f[i].key, got ? lab : "(absent)", "%s (%s:%ld)", want, SD_REL, l->line);
        }
        vj_free(f[i].want);
    }
}

typedef struct {
    long measured, failed, missing, unplanned;
} pg_counts;

static void planned_run(const study *s, const sd_schedule *sd, const am_file *arms, const sd_line *l,
                        const pv_records *recs, pg_counts *c)
{
    const pv_record *rec = pv_find(recs, l->run);
    if (rec && rec->tree)
        record_vs_line(rec, l, sd, arms);
    char where[96], want[512];
    snprintf(where, sizeof where, SD_REL ":%ld", l->line);
    if (has_run_json(s->root, l->run)) {
        c->measured++;
        return;
    }
    long long code;
    const char *reason = rec ? vj_get_str(rec->tree, "reason") : NULL;
    snprintf(want, sizeof want, "measured (results/raw/%s/run.json) or recorded as failed with its reason (" PV_DIR
             "/%s.json: exit_code not 0, reason)", l->run, l->run);
    if (rec && !pv_exit_code(rec, &code) && code != 0 && reason && *reason) {
        c->failed++;
        return;
    }
    c->missing++;
    char lab[512];
    if (!rec)
        snprintf(lab, sizeof lab, "%s planned: no run folder, no record", l->run);
    else if (!pv_exit_code(rec, &code) && code == 0)
        snprintf(lab, sizeof lab, "%s planned: its record says measured (exit_code 0) but results/raw/%s/ is gone",
                 l->run, l->run);
    else
        snprintf(lab, sizeof lab, "%s planned: no run folder, a record without exit_code and reason", l->run);
    mm_add(NULL, where, "planned run", lab, want);
}

static vj_node *check_schedule(const study *s, const sd_schedule *sd, const am_file *arms, const pv_records *recs)
{
    pg_counts c;
    memset(&c, 0, sizeof c);
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "present", vj_new_bool(sd->present));
    vj_obj_set(o, "read", vj_new_bool(sd->ok));
    vj_obj_set(o, "profile", sd->ok ? vj_new_str(sd->profile) : vj_new_null());
    vj_obj_set(o, "format", sd->ok ? vj_new_int(sd->format) : vj_new_null());
    vj_obj_set(o, "seconds", sd->ok && sd->format == 1 ? vj_new_num(sd->seconds) : vj_new_null());
    vj_obj_set(o, "closed_loop_seconds",
               sd->ok && sd->closed_seconds > 0 ? vj_new_num(sd->closed_seconds) : vj_new_null());
    if (!sd->ok)
        return o;
    for (size_t i = 0; i < sd->n; i++) {
        const sd_line *l = &sd->v[i];
        size_t j = 0;
        while (j < i && strcmp(sd->v[j].arm, l->arm))
            j++;
        if (j == i && !am_find(arms, l->arm)) {
            char where[96];
            snprintf(where, sizeof where, SD_REL ":%ld", l->line);
            mm_addf(NULL, where, "arm", l->arm, "an arm of %s", arms->path);
        }
        planned_run(s, sd, arms, l, recs, &c);
    }
    for (size_t i = 0; i < s->nruns; i++) {
        if (sd_find(sd, s->runs[i].name))
            continue;
        c.unplanned++;
        mm_add(NULL, s->runs[i].name, "run folder", "results/raw/ holds it",
               "only the runs " SD_REL " plans (RESULTS.md: a run folder it does not plan is a mismatch)");
    }
    vj_obj_set(o, "planned", vj_new_int((long long)sd->n));
    vj_obj_set(o, "measured", vj_new_int(c.measured));
    vj_obj_set(o, "recorded_failed", vj_new_int(c.failed));
    vj_obj_set(o, "missing", vj_new_int(c.missing));
    vj_obj_set(o, "unplanned_folders", vj_new_int(c.unplanned));
    return o;
}

/* prediction.json's profile and seconds against the schedule's; present files */
static void check_outputs(const char *root, const sd_schedule *sd, int enforce, vj_node *st)
{
    static const char *const need[] = {"results/prediction.json", "results/ap.json"};
    for (size_t k = 0; k < 2; k++) {
        char *p = vu_xasprintf("%s/%s", root, need[k]);
        int present = vu_is_file(p);
        vj_obj_set(st, k ? "ap_json_present" : "prediction_present", vj_new_bool(present));
        if (!present && enforce)
            mm_add(NULL, need[k], "file", "(absent)", k ? "the stand-ins' AP cost, written by make ap (APCOST.md)"
                                                        : "the prediction, registered before the first run (RESULTS.md)");
        vj_node *pj = NULL;
        char err[4300];
        if (k == 0 && present && sd->ok && !vj_parse_file(p, &pj, err, sizeof err)) {
            const char *prof = vj_get_str(pj, "profile");
            const vj_node *sec = vj_get(pj, "seconds");
            char lab[64];
            if (!prof || strcmp(prof, sd->profile))
                mm_addf(NULL, need[k], "profile", prof ? prof : "(absent)", "%s (%s line 1)", sd->profile, SD_REL);
            /* format 2 has no top-level seconds: each run's (predsched.h) */
            const char *fmt = vj_get_str(pj, "format");
            int two = sd->format == 2 || (fmt && !strcmp(fmt, "lab-prediction 2"));
            if (enforce && !two && (!sec || sec->type != VJ_NUM || sec->num != sd->seconds)) {
                vj_scalar_text(sec, lab, sizeof lab);
                mm_addf(NULL, need[k], "seconds", sec ? lab : "(absent)", "%s (%s line 1)", sd->seconds_text, SD_REL);
            }
        }
        vj_free(pj);
        free(p);
    }
}

void pg_check(const study *s, const sd_schedule *sd, const am_file *arms, const pv_records *recs,
              const pg_inputs *in, pg_first *f, int enforce, vj_node **sched_out, vj_node **prereg_out)
{
    *sched_out = check_schedule(s, sd, arms, recs);
    *prereg_out = check_prereg(in, f, s->root, enforce);
    check_outputs(s->root, sd, enforce, *prereg_out);
    vj_obj_set(*prereg_out, "first_run", f->ok ? vj_new_str(f->name) : vj_new_null());
    vj_obj_set(*prereg_out, "first_start_utc", f->ok ? vj_new_str(f->utc) : vj_new_null());
}
