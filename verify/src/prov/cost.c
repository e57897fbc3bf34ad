/* cost: see cost.h. */
#include "cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "runjson.h"
#include "vnum.h"
#include "vtime.h"
#include "vutil.h"

/* the sums and the span, kept while the entries are built */
typedef struct {
    double stages_wall, stages_cpu, wall_not_measure, runs_wall, runs_cpu;
    long long nstages, nruns;
    int has_first, has_last;
    long long first_s, last_s;
    long first_ns, last_ns;
    char first[64], last[64];
} co_sums;

/* a record's field copied, or null and a mismatch naming the record */
static vj_node *field(const vj_node *rec, const char *where, const char *key, vj_type want)
{
    const vj_node *v = vj_get(rec, key);
    if (v && v->type == want && (want != VJ_NUM || isfinite(v->num)))
        return vj_copy(v);
    char lab[64];
    vj_scalar_text(v, lab, sizeof lab);
    mm_addf(NULL, where, key, v ? lab : "(absent)", "a %s (APCOST.md 2.1)",
            want == VJ_NUM ? "number" : want == VJ_STR ? "UTC time" : "value");
    return vj_new_null();
}

static double num_of(const vj_node *o, const char *key)
{
    const vj_node *v = vj_get(o, key);
    return v && v->type == VJ_NUM ? v->num : NAN;
}

/* the earliest start and latest end over every entry */
static void span(co_sums *t, const vj_node *e)
{
    const char *a = vj_get_str(e, "start_utc"), *b = vj_get_str(e, "end_utc");
    long long s;
    long ns;
    if (a && !vt_parse_utc(a, &s, &ns) && (!t->has_first || s < t->first_s || (s == t->first_s && ns < t->first_ns))) {
        t->has_first = 1;
        t->first_s = s;
        t->first_ns = ns;
        snprintf(t->first, sizeof t->first, "%s", a);
    }
    if (b && !vt_parse_utc(b, &s, &ns) && (!t->has_last || s > t->last_s || (s == t->last_s && ns > t->last_ns))) {
        t->has_last = 1;
        t->last_s = s;
        t->last_ns = ns;
        snprintf(t->last, sizeof t->last, "%s", b);
    }
}

/* ---- the stages ---- */

static vj_node *stage_entry(const char *root, const char *file, co_sums *t)
{
    char *path = vu_xasprintf("%s/provenance/%s", root, file), *where = vu_xasprintf("provenance/%s", file);
    char name[256], err[4300];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(file) - strlen("stage-") - strlen(".json")), file + strlen("stage-"));
    vj_node *rec = NULL, *e = vj_new_obj();
    if (vj_parse_file(path, &rec, err, sizeof err)) {
        mm_add(NULL, where, "JSON", err, "a stage record (APCOST.md 2.1)");
        rec = NULL;
    }
    vj_obj_set(e, "stage", vj_new_str(name));
    vj_obj_set(e, "start_utc", field(rec, where, "start_utc", VJ_STR));
    vj_obj_set(e, "end_utc", field(rec, where, "end_utc", VJ_STR));
    vj_obj_set(e, "exit_code", field(rec, where, "exit_code", VJ_NUM));
    vj_obj_set(e, "wall_s", field(rec, where, "wall_s", VJ_NUM));
    vj_obj_set(e, "cpu_user_s", field(rec, where, "cpu_user_s", VJ_NUM));
    vj_obj_set(e, "cpu_sys_s", field(rec, where, "cpu_sys_s", VJ_NUM));
    double cpu = num_of(e, "cpu_user_s") + num_of(e, "cpu_sys_s"), wall = num_of(e, "wall_s");
    vj_obj_set(e, "cpu_s", vj_new_num(cpu));
    t->nstages++;
    if (isfinite(wall))
        t->stages_wall += wall;
    if (isfinite(cpu))
        t->stages_cpu += cpu;
    if (isfinite(wall) && strcmp(name, "measure"))
        t->wall_not_measure += wall;
    span(t, e);
    vj_free(rec);
    free(path);
    free(where);
    return e;
}

static vj_node *stages(const char *root, co_sums *t)
{
    vj_node *a = vj_new_arr();
    char *dir = vu_xasprintf("%s/provenance", root);
    char **names;
    size_t n;
    char err[4300];
    if (!vu_list_dir(dir, &names, &n, err, sizeof err)) {
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(names[i]);
            if (l <= strlen("stage-.json") || strncmp(names[i], "stage-", 6) || strcmp(names[i] + l - 5, ".json") ||
                !strcmp(names[i], "stage-cost.json"))
                continue;
            vj_arr_push(a, stage_entry(root, names[i], t));
        }
        vu_free_names(names, n);
    }
    free(dir);
    return a;
}

/* ---- the runs ---- */

/* cpu {tester, service, store: {user_s, sys_s}} of a source's cpu block, and their sum */
static void cpu_of(const vj_node *src, const char *where, vj_node *e)
{
    static const char *const procs[] = {"tester", "service", "store"};
    const vj_node *cpu = vj_get(src, "cpu");
    if (!cpu || cpu->type == VJ_NULL) {
        vj_obj_set(e, "cpu_s", vj_new_null());
        vj_obj_set(e, "cpu", vj_new_null());
        return;
    }
    vj_node *o = vj_new_obj();
    double sum = 0;
    char w[600];
    for (size_t k = 0; k < 3; k++) {
        const vj_node *p = vj_get(cpu, procs[k]);
        snprintf(w, sizeof w, "%s cpu.%s", where, procs[k]);
        vj_node *q = vj_new_obj();
        vj_node *u = field(p, w, "user_s", VJ_NUM), *s = field(p, w, "sys_s", VJ_NUM);
        sum += (u->type == VJ_NUM ? u->num : NAN) + (s->type == VJ_NUM ? s->num : NAN);
        vj_obj_set(q, "user_s", u);
        vj_obj_set(q, "sys_s", s);
        vj_obj_set(o, procs[k], q);
    }
    /* the sum in APCOST.md's order: tester, service, store, each user + sys */
    vj_obj_set(e, "cpu_s", vj_new_num(sum));
    vj_obj_set(e, "cpu", o);
}

static vj_node *run_entry(const char *root, const char *name, const pv_record *rec, co_sums *t)
{
    vj_node *e = vj_new_obj(), *rj = NULL;
    char *where;
    const vj_node *src;
    if (rec) {
        where = vu_xasprintf(PV_DIR "/%s.json", name);
        src = rec->tree;
    } else {
        where = vu_xasprintf("results/raw/%s/run.json", name);
        char *p = vu_xasprintf("%s/%s", root, where);
        char err[4300];
        if (vj_parse_file(p, &rj, err, sizeof err))
            rj = NULL; /* said by the raw-file check */
        free(p);
        src = rj;
    }
    vj_obj_set(e, "run", vj_new_str(name));
    vj_obj_set(e, "source", vj_new_str(rec ? "provenance/runs" : "results/raw run.json"));
    vj_obj_set(e, "start_utc", field(src, where, "start_utc", VJ_STR));
    vj_obj_set(e, "end_utc", field(src, where, "end_utc", VJ_STR));
    if (rec) {
        vj_obj_set(e, "exit_code", field(src, where, "exit_code", VJ_NUM));
        vj_obj_set(e, "wall_s", field(src, where, "wall_s", VJ_NUM));
    } else {
        long long a, b;
        long an, bn;
        const char *s = vj_get_str(e, "start_utc"), *x = vj_get_str(e, "end_utc");
        int ok = s && x && !vt_parse_utc(s, &a, &an) && !vt_parse_utc(x, &b, &bn);
        vj_obj_set(e, "exit_code", vj_new_int(0));
        vj_obj_set(e, "wall_s", ok ? vj_new_int(b - a) : vj_new_null());
    }
    cpu_of(src, where, e);
    double wall = num_of(e, "wall_s"), cpu = num_of(e, "cpu_s");
    t->nruns++;
    if (isfinite(wall))
        t->runs_wall += wall;
    if (isfinite(cpu))
        t->runs_cpu += cpu; /* null counts 0 */
    span(t, e);
    vj_free(rj);
    free(where);
    return e;
}

static int has_run_json(const char *root, const char *name)
{
    char *p = vu_xasprintf("%s/results/raw/%s/run.json", root, name);
    int r = vu_is_file(p);
    free(p);
    return r;
}

/* the union of the records and the run folders, in name order */
static vj_node *runs(const char *root, const pv_records *recs, co_sums *t)
{
    vj_node *a = vj_new_arr();
    char *dir = vu_xasprintf("%s/results/raw", root);
    char **names = NULL;
    size_t n = 0, i = 0, j = 0;
    char err[4300];
    if (vu_list_dir(dir, &names, &n, err, sizeof err))
        n = 0;
    while (i < recs->n || j < n) {
        if (j < n && !has_run_json(root, names[j])) {
            j++;
            continue;
        }
        if (i < recs->n && !recs->v[i].tree) {
            i++;
            continue;
        }
        int c = i >= recs->n ? 1 : j >= n ? -1 : strcmp(recs->v[i].name, names[j]);
        if (c <= 0) {
            vj_arr_push(a, run_entry(root, recs->v[i].name, &recs->v[i], t));
            i++;
            if (c == 0)
                j++;
        } else {
            vj_arr_push(a, run_entry(root, names[j], NULL, t));
            j++;
        }
    }
    vu_free_names(names, n);
    free(dir);
    return a;
}

/* ---- totals and rental ---- */

static vj_node *totals(const co_sums *t)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "stages", vj_new_int(t->nstages));
    vj_obj_set(o, "runs", vj_new_int(t->nruns));
    vj_obj_set(o, "stages_wall_s", vj_new_num(t->stages_wall));
    vj_obj_set(o, "stages_cpu_s", vj_new_num(t->stages_cpu));
    vj_obj_set(o, "runs_wall_s", vj_new_num(t->runs_wall));
    vj_obj_set(o, "runs_cpu_s", vj_new_num(t->runs_cpu));
    double wall = t->wall_not_measure + t->runs_wall;
    vj_obj_set(o, "wall_s", vj_new_num(wall));
    vj_obj_set(o, "cpu_s", vj_new_num(t->stages_cpu + t->runs_cpu));
    vj_obj_set(o, "machine_hours", vj_new_num(wall / 3600));
    vj_obj_set(o, "first_start_utc", t->has_first ? vj_new_str(t->first) : vj_new_null());
    vj_obj_set(o, "last_end_utc", t->has_last ? vj_new_str(t->last) : vj_new_null());
    vj_obj_set(o, "span_s", t->has_first && t->has_last
                                ? vj_new_num((double)(t->last_s - t->first_s) + (t->last_ns - t->first_ns) / 1e9)
                                : vj_new_null());
    return o;
}

/* the value after opt in the cost stage's argv (NULL: not given) */
static const char *argv_value(const vj_node *argv, const char *opt)
{
    for (size_t i = 0; argv && argv->type == VJ_ARR && i + 1 < argv->n; i++)
        if (argv->items[i]->type == VJ_STR && !strcmp(argv->items[i]->text, opt) && argv->items[i + 1]->type == VJ_STR)
            return argv->items[i + 1]->text;
    return NULL;
}

/* the three settings against provenance/stage-cost.json's command line */
static void settings_vs_argv(const char *root, const vj_node *lab)
{
    char *p = vu_xasprintf("%s/provenance/stage-cost.json", root);
    vj_node *rec = NULL;
    char err[4300];
    if (!vu_is_file(p) || vj_parse_file(p, &rec, err, sizeof err)) {
        printf("NOTE %s: no readable provenance/stage-cost.json: the rental settings are taken as cost.json has them\n",
               CO_REL);
        free(p);
        return;
    }
    free(p);
    const vj_node *argv = vj_get(rec, "argv");
    static const char *const opt[] = {"--start", "--end", "--price-per-hour"},
                             *key[] = {"start_utc", "end_utc", "price_per_hour_usd"};
    for (size_t k = 0; k < 3; k++) {
        const char *a = argv_value(argv, opt[k]);
        const vj_node *v = vj_get(lab, key[k]);
        double x;
        int same = !a ? v && v->type == VJ_NULL
                 : k < 2 ? v && v->type == VJ_STR && !strcmp(v->text, a)
                         : v && v->type == VJ_NUM && !vn_f64(a, strlen(a), &x) && x == v->num;
        if (same)
            continue;
        char lab_t[96], what[64];
        vj_scalar_text(v, lab_t, sizeof lab_t);
        snprintf(what, sizeof what, "rental.%s", key[k]);
        mm_addf(NULL, CO_REL, what, v ? lab_t : "(absent)", "%s (%s in provenance/stage-cost.json's argv)",
                a ? a : "null", opt[k]);
    }
    vj_free(rec);
}

static vj_node *rental(const char *root, const vj_node *lab, const co_sums *t)
{
    vj_node *o = vj_new_obj();
    const vj_node *s = vj_get(lab, "start_utc"), *e = vj_get(lab, "end_utc"), *pr = vj_get(lab, "price_per_hour_usd");
    int nul = (!s || s->type == VJ_NULL) + (!e || e->type == VJ_NULL) + (!pr || pr->type == VJ_NULL);
    long long a, b;
    long an, bn;
    int ok = nul == 0 && s->type == VJ_STR && e->type == VJ_STR && pr->type == VJ_NUM &&
             !vt_parse_utc(s->text, &a, &an) && !vt_parse_utc(e->text, &b, &bn);
    settings_vs_argv(root, lab);
    if (!ok) {
        if (nul != 3)
            mm_add(NULL, CO_REL, "rental", "settings that are not all three usable",
                   "start_utc, end_utc (UTC times) and price_per_hour_usd (a number), or all three null");
        static const char *const keys[] = {"start_utc", "end_utc", "hours", "price_per_hour_usd", "price_usd",
                                           "covers_records"};
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            vj_obj_set(o, keys[k], vj_new_null());
        const char *note = vj_get_str(lab, "note");
        if (!note || !*note)
            mm_add(NULL, CO_REL, "rental.note", "(absent or empty)", "words: no price was computed");
        vj_obj_set(o, "note", vj_new_str(note && *note ? note : "no price was computed"));
        return o;
    }
    double hours = ((double)(b - a) + (bn - an) / 1e9) / 3600;
    vj_obj_set(o, "start_utc", vj_new_str(s->text));
    vj_obj_set(o, "end_utc", vj_new_str(e->text));
    vj_obj_set(o, "hours", vj_new_num(hours));
    vj_obj_set(o, "price_per_hour_usd", vj_new_num(pr->num));
    vj_obj_set(o, "price_usd", vj_new_num(hours * pr->num));
    int covers = t->has_first && t->has_last && (a < t->first_s || (a == t->first_s && an <= t->first_ns)) &&
                 (t->last_s < b || (t->last_s == b && t->last_ns <= bn));
    vj_obj_set(o, "covers_records", t->has_first && t->has_last ? vj_new_bool(covers) : vj_new_null());
    vj_obj_set(o, "note", vj_new_null());
    return o;
}

/* ---- the comparison ---- */

static int is_count(const char *key)
{
    return !strcmp(key, "exit_code") || !strcmp(key, "stages") || !strcmp(key, "runs");
}

static void compare(const char *path, const char *key, const vj_node *lab, const vj_node *mine)
{
    char a[160], b[160];
    if (!lab || lab->type != mine->type) {
        vj_scalar_text(lab, a, sizeof a);
        vj_scalar_text(mine, b, sizeof b);
        mm_add(NULL, CO_REL, path, lab ? a : "(absent)", b);
        return;
    }
    if (mine->type == VJ_NUM) {
        double d = fabs(lab->num - mine->num);
        if (is_count(key) ? lab->num != mine->num : !(d <= CO_TOL)) {
            vu_fmt_double(mine->num, b, sizeof b);
            mm_add(NULL, CO_REL, path, lab->text, b);
        }
    } else if (mine->type == VJ_OBJ) {
        char sub[512];
        for (size_t i = 0; i < mine->n; i++) {
            snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", mine->keys[i]);
            compare(sub, mine->keys[i], vj_get(lab, mine->keys[i]), mine->items[i]);
        }
        for (size_t i = 0; i < lab->n; i++) {
            if (vj_get(mine, lab->keys[i]))
                continue;
            snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", lab->keys[i]);
            mm_add(NULL, CO_REL, sub, "present", "(a member APCOST.md does not define)");
        }
    } else if (mine->type == VJ_ARR) {
        if (lab->n != mine->n)
            mm_addf(NULL, CO_REL, path, lab->n ? "another length" : "empty", "%zu entries", mine->n);
        char sub[512];
        for (size_t i = 0; i < lab->n && i < mine->n; i++) {
            const char *name = vj_get_str(mine->items[i], !strcmp(path, "stages") ? "stage" : "run");
            snprintf(sub, sizeof sub, "%s[%zu] (%s)", path, i, name ? name : "?");
            compare(sub, "", lab->items[i], mine->items[i]);
        }
    } else if (!rj_json_equal(lab, mine)) {
        vj_scalar_text(lab, a, sizeof a);
        vj_scalar_text(mine, b, sizeof b);
        mm_add(NULL, CO_REL, path, a, b);
    }
}

vj_node *co_check(const char *root, const pv_records *recs, int enforce)
{
    long before = mm_count();
    vj_node *st = vj_new_obj(), *lab = NULL;
    char *path = vu_xasprintf("%s/" CO_REL, root);
    char err[4300];
    int present = vu_is_file(path);
    vj_obj_set(st, "present", vj_new_bool(present));
    if (!present) {
        if (enforce)
            mm_add(NULL, CO_REL, "file", "(absent)", "the machine's cost, written by make cost (APCOST.md part 2)");
        else
            printf("NOTE %s absent (profile tiny: not required)\n", CO_REL);
    } else if (vj_parse_file(path, &lab, err, sizeof err) || lab->type != VJ_OBJ) {
        mm_add(NULL, CO_REL, "JSON", lab ? "not an object" : err, "a JSON object (APCOST.md 2.2)");
        vj_free(lab);
        lab = NULL;
    }
    free(path);
    vj_obj_set(st, "checked", vj_new_bool(lab != NULL));
    if (lab) {
        co_sums t;
        memset(&t, 0, sizeof t);
        vj_node *mine = vj_new_obj();
        const char *defs = vj_get_str(lab, "definitions");
        vj_obj_set(mine, "format", vj_new_str("lab-cost 1"));
        if (!defs || !*defs)
            mm_add(NULL, CO_REL, "definitions", "(absent or empty)", "the page of the definitions");
        vj_obj_set(mine, "definitions", vj_new_str(defs && *defs ? defs : "pipeline/APCOST.md"));
        vj_obj_set(mine, "stages", stages(root, &t));
        vj_obj_set(mine, "runs", runs(root, recs, &t));
        vj_obj_set(mine, "totals", totals(&t));
        vj_obj_set(mine, "rental", rental(root, vj_get(lab, "rental"), &t));
        compare("", "", lab, mine);
        vj_obj_set(st, "stages", vj_new_int(t.nstages));
        vj_obj_set(st, "runs", vj_new_int(t.nruns));
        vj_obj_set(st, "tolerance", vj_new_str("counts, strings, truth values exactly; other numbers within 1e-9"));
        vj_free(mine);
    }
    vj_obj_set(st, "mismatches", vj_new_int(mm_count() - before));
    vj_free(lab);
    return st;
}
