/* design: the schedule held to the registered design; see design.h. */
#include "design.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deviations.h"
#include "mism.h"
#include "profiles.h"
#include "vfiles.h"
#include "vutil.h"

#define PREREG_REL "provenance/prereg.json"
#define PROFILES_REL "data/profiles.tsv"
#define PRED_REL "results/prediction.json"

/* prereg.json's entry of path, or NULL (*pj owns it) */
static const vj_node *prereg_entry(const char *root, const char *path, vj_node **pj)
{
    char *p = vu_xasprintf("%s/" PREREG_REL, root);
    char err[4300];
    *pj = NULL;
    if (vu_is_file(p) && vj_parse_file(p, pj, err, sizeof err))
        *pj = NULL;
    free(p);
    const vj_node *fl = vj_get(*pj, "files");
    for (size_t i = 0; fl && fl->type == VJ_ARR && i < fl->n; i++) {
        const char *x = vj_get_str(fl->items[i], "path");
        if (x && !strcmp(x, path))
            return fl->items[i];
    }
    return NULL;
}

/* a file as read against its registration (rules not enforced: prereg.h
 * does not hold it then) */
static void held(const vj_node *entry, const char *reg_path, const char *sha, size_t size, const char *shown)
{
    if (!entry)
        return;
    const char *rs = vj_get_str(entry, "sha256");
    const vj_node *sz = vj_get(entry, "size");
    if (!rs || strcmp(rs, sha))
        mm_addf(NULL, PREREG_REL, "design", rs ? rs : "(absent)",
                "%s (sha256 of %s, read as the registered %s: the design must be the registered one)", sha, shown,
                reg_path);
    if (!sz || sz->type != VJ_NUM || !sz->is_int || sz->i < 0 || (size_t)sz->i != size)
        mm_addf(NULL, PREREG_REL, "design", "another size", "%zu (bytes of %s, the registered %s)", size, shown,
                reg_path);
}

/* one group of the profile, as run */
typedef struct {
    const pf_group *g;
    long rounds;
    double seconds;
    char seconds_text[64];
    long dev_line[2];       /* the deviation lines applied (rounds, seconds), 0 none */
} group_run;

static void where_of(const group_run *r, const char *path, char *out, size_t len)
{
    int n = snprintf(out, len, "group %s, %s:%ld", r->g->group, path, r->g->line);
    for (int k = 0; k < 2 && n > 0 && (size_t)n < len; k++)
        if (r->dev_line[k])
            n += snprintf(out + n, len - (size_t)n, ", " DV_REL ":%ld", r->dev_line[k]);
}

/* the deviations against the profile, applied to gr; the applied ones into out */
static void apply_deviations(const dv_file *dv, group_run *gr, size_t ng, const char *profile, const char *path,
                             vj_node *out)
{
    for (size_t i = 0; i < dv->n; i++) {
        const dv_line *l = &dv->v[i];
        if (!l->ok)
            continue;
        char where[64];
        snprintf(where, sizeof where, DV_REL ":%ld", l->line);
        size_t k = 0;
        while (k < ng && strcmp(gr[k].g->group, l->group))
            k++;
        if (k == ng) {
            mm_addf(NULL, where, "group", l->group, "a group of profile %s (%s)", profile, path);
            continue;
        }
        group_run *r = &gr[k];
        double reg = l->seconds ? r->g->seconds : (double)r->g->rounds;
        if (l->reg_v != reg) {
            char want[4400];
            if (l->seconds)
                snprintf(want, sizeof want, "%s (group %s's seconds, %s:%ld)", r->g->seconds_text, r->g->group, path,
                         r->g->line);
            else
                snprintf(want, sizeof want, "%ld (group %s's rounds, %s:%ld)", r->g->rounds, r->g->group, path,
                         r->g->line);
            mm_add(NULL, where, "registered", l->registered, want);
            continue;
        }
        if (l->seconds) {
            r->seconds = l->ran_v;
            snprintf(r->seconds_text, sizeof r->seconds_text, "%s", l->ran);
            r->dev_line[1] = l->line;
        } else {
            r->rounds = (long)l->ran_v;
            r->dev_line[0] = l->line;
        }
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "group", vj_new_str(l->group));
        vj_obj_set(e, "field", vj_new_str(l->field));
        vj_obj_set(e, "registered", vj_new_num(l->reg_v));
        vj_obj_set(e, "ran", vj_new_num(l->ran_v));
        vj_obj_set(e, "reason", vj_new_str(l->reason));
        vj_arr_push(out, e);
    }
}

/* the group of the profile that has arm, or NULL */
static const group_run *group_of(const group_run *gr, size_t ng, const char *arm)
{
    for (size_t k = 0; k < ng; k++)
        for (size_t a = 0; a < gr[k].g->narms; a++)
            if (!strcmp(gr[k].g->arms[a], arm))
                return &gr[k];
    return NULL;
}

/* the schedule's lines against the design as run, and the design's runs
 * against the lines: the design's runs counted into *planned */
static void compare(const sd_schedule *sd, const am_file *arms, const group_run *gr, size_t ng, const char *path,
                    long *planned)
{
    char where[64], lab[512], why[4400];
    for (size_t i = 0; i < sd->n; i++) {
        const sd_line *l = &sd->v[i];
        snprintf(where, sizeof where, SD_REL ":%ld", l->line);
        const group_run *r = group_of(gr, ng, l->arm);
        if (!r) {
            snprintf(lab, sizeof lab, "%s (arm %s)", l->run, l->arm);
            mm_addf(NULL, where, "run", lab,
                    "a run of the design as run: arm %s is in no group of profile %s (%s): an arm added", l->arm,
                    sd->profile, path);
            continue;
        }
        where_of(r, path, why, sizeof why);
        if (l->round > r->rounds) {
            snprintf(lab, sizeof lab, "%s (round %d)", l->run, l->round);
            mm_addf(NULL, where, "run", lab, "rounds 1 .. %ld of %s: a round more than the design as run", r->rounds,
                    why);
            continue;
        }
        const char *text;
        double sec = sd_line_seconds(sd, arms, l, &text, NULL);
        if (sec != r->seconds) {
            snprintf(lab, sizeof lab, "%s (%s)", text, l->run);
            mm_addf(NULL, where, "seconds", lab, "%s (%s)", r->seconds_text, why);
        }
    }
    for (size_t k = 0; k < ng; k++) {
        const group_run *r = &gr[k];
        /* design.h: only valid lines and deviations make the design as run */
        assert(r->g->ok && r->rounds >= 1 && r->seconds > 0);
        where_of(r, path, why, sizeof why);
        for (size_t a = 0; a < r->g->narms; a++)
            for (long round = 1; round <= r->rounds; round++) {
                (*planned)++;
                if (sd_has_round(sd, r->g->arms[a], (int)round))
                    continue;
                snprintf(lab, sizeof lab, "(not planned) %s-r%ld", r->g->arms[a], round);
                mm_addf(NULL, SD_REL, "planned run", lab,
                        "%s-r%ld, %s s: the design as run plans it (%s): a round dropped or an arm missing",
                        r->g->arms[a], round, r->seconds_text, why);
            }
    }
}

/* prediction.json's odds, sizing and map simulated over the profile's odds_seeds */
static void check_seeds(const char *root, const pf_group *g, const char *path)
{
    char *p = vu_xasprintf("%s/" PRED_REL, root);
    vj_node *pred = NULL;
    char err[4300], want[64];
    if (!vu_is_file(p) || vj_parse_file(p, &pred, err, sizeof err))
        pred = NULL;
    free(p);
    snprintf(want, sizeof want, "%ld-%ld", g->seeds_a, g->seeds_b);
    static const char *const lists[] = {"odds", "sizing"};
    for (int k = 0; k < 2; k++) {
        const vj_node *l = vj_get(pred, lists[k]);
        for (size_t i = 0; l && l->type == VJ_ARR && i < l->n; i++) {
            const char *s = vj_get_str(l->items[i], "seeds");
            if (s && !strcmp(s, want))
                continue;
            char what[64];
            snprintf(what, sizeof what, "%s[%zu].seeds", lists[k], i);
            mm_addf(NULL, PRED_REL, what, s ? s : "(absent)", "%s (odds_seeds of profile %s, %s:%ld)", want,
                    g->profile, path, g->line);
        }
    }
    /* the map's seeds are the profile's odds_seeds too (RESULTS.md, "The map") */
    const vj_node *map = vj_get(pred, "map");
    const char *ms = vj_get_str(map, "seeds");
    if (map && map->type == VJ_OBJ && (!ms || strcmp(ms, want)))
        mm_addf(NULL, PRED_REL, "map.seeds", ms ? ms : "(absent)", "%s (odds_seeds of profile %s, %s:%ld)", want,
                g->profile, path, g->line);
    vj_free(pred);
}

vj_node *dg_check(const char *root, const sd_schedule *sd, const am_file *arms, const char *profiles_path,
                  int rules_enforced)
{
    long before = mm_count();
    vj_node *o = vj_new_obj(), *devs = vj_new_arr(), *pj;
    const vj_node *entry = prereg_entry(root, PROFILES_REL, &pj);
    vj_obj_set(o, "registered", vj_new_bool(entry != NULL));
    if (!entry) {
        if (pj)
            printf("NOTE %s does not list %s (a study registered before 2026-12-02): the schedule cannot be held to "
                   "a registered design\n",
                   PREREG_REL, PROFILES_REL);
        else
            printf("NOTE %s absent or unreadable: the schedule cannot be held to a registered design\n", PREREG_REL);
        vj_obj_set(o, "profile", sd->ok ? vj_new_str(sd->profile) : vj_new_null());
        vj_obj_set(o, "runs_planned", vj_new_null());
        vj_obj_set(o, "deviations", devs);
        vj_obj_set(o, "mismatches", vj_new_int(0));
        vj_free(pj);
        return o;
    }
    pf_file pf;
    int loaded = pf_load(profiles_path, arms, &pf) == 0;
    if (loaded && !rules_enforced) {
        held(entry, PROFILES_REL, pf.sha256, pf.size, pf.path);
        vj_node *pj2;
        const vj_node *ae = prereg_entry(root, "lab/arms.tsv", &pj2);
        unsigned char *b;
        size_t len;
        char err[4300], sha[65];
        if (ae && !vu_read_file(arms->path, &b, &len, err, sizeof err)) {
            vu_sha256_hex(b, len, sha);
            free(b);
            char *shown = vf_shown(arms->path);
            held(ae, "lab/arms.tsv", sha, len, shown);
            free(shown);
        }
        vj_free(pj2);
    }
    vj_obj_set(o, "profile", sd->ok ? vj_new_str(sd->profile) : vj_new_null());
    long planned = 0;
    int compared = 0;
    if (loaded && sd->ok && !pf_profile_has(&pf, sd->profile)) {
        mm_addf(NULL, SD_REL ":1", "profile", sd->profile, "a profile of %s (the registered design)", pf.path);
    } else if (loaded && sd->ok) {
        size_t ng = 0;
        group_run *gr = vu_xcalloc(pf.n + 1, sizeof *gr);
        const pf_group *first = NULL;
        for (size_t i = 0; i < pf.n; i++) {
            const pf_group *g = &pf.v[i];
            if (strcmp(g->profile, sd->profile) || !g->ok)
                continue;
            if (!first)
                first = g;
            gr[ng].g = g;
            gr[ng].rounds = g->rounds;
            gr[ng].seconds = g->seconds;
            snprintf(gr[ng].seconds_text, sizeof gr[ng].seconds_text, "%s", g->seconds_text);
            ng++;
        }
        dv_file dv;
        dv_load(root, &dv);
        apply_deviations(&dv, gr, ng, sd->profile, pf.path, devs);
        compare(sd, arms, gr, ng, pf.path, &planned);
        compared = 1;
        if (first)
            check_seeds(root, first, pf.path);
        dv_free(&dv);
        free(gr);
    }
    vj_obj_set(o, "runs_planned", compared ? vj_new_int(planned) : vj_new_null());
    vj_obj_set(o, "deviations", devs);
    vj_obj_set(o, "mismatches", vj_new_int(mm_count() - before));
    if (loaded)
        pf_free(&pf);
    vj_free(pj);
    return o;
}
