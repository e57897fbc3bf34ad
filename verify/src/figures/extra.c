/* extra: the numbers the report needs beyond the layout of results.json (verified.json's "extra"); see extra.h. */
#include "extra.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

typedef struct {
    long long runs, gate_on, gate_passed, users_max;
    double scheduled_s, wall_s, cpu_s[3], idle_min, steal_max, rss_max[3];
    int has_idle, has_steal, has_users, has_rss[3];
    char first[64], last[64];
} totals;

static const char *const procs[3] = {"tester", "service", "store"};

/* rj: a run's machine facts (exrun.h: run.json's members, copied) */
static void add_totals(totals *t, const vj_node *rj)
{
    t->runs++;
    double v;
    if (!vj_get_num(rj, "seconds", &v))
        t->scheduled_s += v;
    const vj_node *cpu = vj_get(rj, "cpu");
    if (!vj_get_num(cpu, "wall_s", &v))
        t->wall_s += v;
    for (int i = 0; i < 3; i++) {
        const vj_node *pc = vj_get(cpu, procs[i]);
        double u, s;
        if (!vj_get_num(pc, "user_s", &u) && !vj_get_num(pc, "sys_s", &s))
            t->cpu_s[i] += u + s;
        if (!vj_get_num(vj_get(rj, "peak_rss_kb"), procs[i], &v)) {
            if (!t->has_rss[i] || v > t->rss_max[i])
                t->rss_max[i] = v;
            t->has_rss[i] = 1;
        }
    }
    const vj_node *idle = vj_get(rj, "idle");
    const vj_node *en = vj_get(idle, "enabled"), *ps = vj_get(idle, "passed");
    if (en && en->type == VJ_BOOL && en->b)
        t->gate_on++;
    if (ps && ps->type == VJ_BOOL && ps->b)
        t->gate_passed++;
    if (!vj_get_num(idle, "idle_share", &v) && (!t->has_idle || v < t->idle_min)) {
        t->idle_min = v;
        t->has_idle = 1;
    }
    if (!vj_get_num(idle, "steal_share", &v) && (!t->has_steal || v > t->steal_max)) {
        t->steal_max = v;
        t->has_steal = 1;
    }
    static const char *const uk[2] = {"users_start", "users_end"};
    for (int i = 0; i < 2; i++)
        if (!vj_get_num(idle, uk[i], &v) && (!t->has_users || v > t->users_max)) {
            t->users_max = (long long)v;
            t->has_users = 1;
        }
    const char *s = vj_get_str(rj, "start_utc"), *e = vj_get_str(rj, "end_utc");
    if (s && (!t->first[0] || strcmp(s, t->first) < 0))
        snprintf(t->first, sizeof t->first, "%s", s);
    if (e && (!t->last[0] || strcmp(e, t->last) > 0))
        snprintf(t->last, sizeof t->last, "%s", e);
}

static vj_node *totals_json(const totals *t)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "runs", vj_new_int(t->runs));
    vj_obj_set(o, "scheduled_s", vj_new_num(t->scheduled_s));
    vj_obj_set(o, "wall_s", vj_new_num(t->wall_s));
    double all = 0;
    vj_node *c = vj_new_obj(), *r = vj_new_obj();
    for (int i = 0; i < 3; i++) {
        vj_obj_set(c, procs[i], vj_new_num(t->cpu_s[i]));
        double k = t->rss_max[i];
        vj_obj_set(r, procs[i], !t->has_rss[i] ? vj_new_null()
                                : k == floor(k) && fabs(k) < 9e15 ? vj_new_int((long long)k) : vj_new_num(k));
        all += t->cpu_s[i];
    }
    vj_obj_set(o, "cpu_s", c);
    vj_obj_set(o, "cpu_s_total", vj_new_num(all));
    vj_obj_set(o, "peak_rss_kb_max", r);
    vj_obj_set(o, "idle_gate_enabled_runs", vj_new_int(t->gate_on));
    vj_obj_set(o, "idle_gate_passed_runs", vj_new_int(t->gate_passed));
    vj_obj_set(o, "idle_share_min", t->has_idle ? vj_new_num(t->idle_min) : vj_new_null());
    vj_obj_set(o, "steal_share_max", t->has_steal ? vj_new_num(t->steal_max) : vj_new_null());
    vj_obj_set(o, "users_max", t->has_users ? vj_new_int(t->users_max) : vj_new_null());
    vj_obj_set(o, "first_start_utc", t->first[0] ? vj_new_str(t->first) : vj_new_null());
    vj_obj_set(o, "last_end_utc", t->last[0] ? vj_new_str(t->last) : vj_new_null());
    return o;
}

/* the guesses' sentences: column 2 of the guesses file, by id */
static vj_node *guess_texts(const char *path)
{
    vj_node *a = vj_new_arr();
    unsigned char *b = NULL;
    size_t len = 0;
    char err[512];
    if (vu_read_file(path, &b, &len, err, sizeof err))
        return a;
    char *p = (char *)b, *end = p + len;
    int line = 0;
    while (p < end) {
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (e > p && e[-1] == '\r')
            e[-1] = 0;
        if (line++ > 0 && *p) {
            char *t1 = strchr(p, '\t');
            char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
            if (t1 && t2) {
                vj_node *o = vj_new_obj();
                char *id = vu_xstrndup(p, (size_t)(t1 - p)), *g = vu_xstrndup(t1 + 1, (size_t)(t2 - t1 - 1));
                vj_obj_set(o, "id", vj_new_str(id));
                vj_obj_set(o, "guess", vj_new_str(g));
                free(id);
                free(g);
                vj_arr_push(a, o);
            }
        }
        p = e + 1;
    }
    free(b);
    return a;
}

/* the quiet rules used and every accepted run that is not quiet: its rules,
 * the figures they looked at, and per second the machine's steal, the
 * tester's lateness and the measured cores' foreign share (from the first
 * reading, kept in rf_run) */
static vj_node *quiet_json(const study *s)
{
    static const int figs[] = {F_STEAL_SHARE, F_STEAL_SECOND_MAX, F_OTHER_IDLE_SHARE, F_LATE_P99_US, F_LATE_MAX_US,
                               F_FOREIGN_SECOND_MAX};
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "quiet_file_sha256", vj_new_str(s->rules.sha256));
    vj_obj_set(o, "rules", qr_limits_json(&s->rules));
    vj_node *list = vj_new_arr();
    long long runs = 0, quiet = 0;
    for (size_t i = 0; i < s->nruns; i++) {
        const rf_run *r = &s->runs[i];
        if (!r->ok)
            continue;
        runs++;
        if (r->quiet) {
            quiet++;
            continue;
        }
        vj_node *d = vj_new_obj();
        vj_obj_set(d, "run", vj_new_str(r->name));
        vj_obj_set(d, "arm", vj_new_str(r->arm));
        vj_obj_set(d, "round", vj_new_int(r->round));
        vj_obj_set(d, "rules", qr_names(r->broken));
        for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++)
            vj_obj_set(d, rf_fig_name[figs[k]], r->has[figs[k]] ? vj_new_num(r->fig[figs[k]]) : vj_new_null());
        vj_node *ps = vj_new_arr();
        for (int sec = 0; sec < r->nsec; sec++) {
            vj_node *e = vj_new_obj();
            vj_obj_set(e, "s", vj_new_int(sec));
            vj_obj_set(e, "steal_share", vj_new_num(r->steal_sec[sec]));
            vj_obj_set(e, "late_max_us",
                       r->late_has[sec] ? vj_new_num((double)r->late_max_ns[sec] / 1e3) : vj_new_null());
            vj_obj_set(e, "foreign_share", vj_new_num(r->foreign_sec[sec]));   /* NaN: null */
            vj_arr_push(ps, e);
        }
        vj_obj_set(d, "per_second", ps);
        vj_arr_push(list, d);
    }
    vj_obj_set(o, "runs", vj_new_int(runs));
    vj_obj_set(o, "quiet_runs", vj_new_int(quiet));
    vj_obj_set(o, "disturbed_runs", vj_new_int(runs - quiet));
    vj_obj_set(o, "disturbed", list);
    return o;
}

vj_node *ex_compute(study *s, const char *guesses_path)
{
    vj_node *o = vj_new_obj();
    vj_node *gns = vj_new_arr(), *gms = vj_new_arr();
    for (int k = 0; k < EX_GRID; k++) {
        vj_arr_push(gns, vj_new_int(ex_grid_ns(k)));
        vj_arr_push(gms, vj_new_num((double)ex_grid_ns(k) / 1e6));
    }
    vj_obj_set(o, "exceed_grid_ns", gns);
    vj_obj_set(o, "exceed_grid_ms", gms);
    vj_node *runs = vj_new_obj();
    totals t;
    memset(&t, 0, sizeof t);
    /* each accepted run's object, built when its files were read (exrun.h) */
    for (size_t i = 0; i < s->nruns; i++) {
        rf_run *r = &s->runs[i];
        if (!r->ok || !r->extra)
            continue;
        add_totals(&t, vj_get(r->extra, "machine"));
        vj_obj_set(runs, r->name, r->extra); /* taken over */
        r->extra = NULL;
    }
    vj_obj_set(o, "runs", runs);
    vj_obj_set(o, "machine", totals_json(&t));
    vj_obj_set(o, "quiet", quiet_json(s));
    vj_obj_set(o, "guesses", guess_texts(guesses_path));
    return o;
}
