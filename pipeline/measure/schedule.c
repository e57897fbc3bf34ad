/* schedule: see schedule.h for the contract. */
#include "schedule.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mfiles.h"
#include "util.h"

static const sched_profile PROFILES[] = {
    /* every arm of lab/arms.tsv (56 and Z-capacity), 15 s rounds, the capacity
     * arm 2 s: the published study (docs/DESIGN.md, section 11) */
    {"full", 5, 15.0, 2.0, NULL, "1-1000"},
    {"quick", 2, 4.0, 0, NULL, "1-1000"}, /* every arm, a few seconds: the pipeline in minutes */
    /* the rare events at full length (DESIGN 5.8): H3-none and every 450/s arm, 5 rounds of 30 s */
    {"floods", 5, 30.0, 2.0,
     "H3-none,H4-fb25,H4-dldown,H4-r2,H4-r2b,H4-r2bj,H4-brkr2,H4-r4xf,H4-r2bud,H4-r2dl,H4-hedge,Z-capacity", "1-1000"},
    /* tests, and CI's study through collect and the verifier */
    {"tiny", 2, 1.0, 0, "F3-none,H3-fb25,H3-dl,H3-dldown,H3-r2,H3-r2-down,H3-brkr2-down,H3-bulk-hang,Z-capacity",
     "1-100"},
};
#define SHUFFLE_MULT 7919ULL

const sched_profile *sched_profile_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof PROFILES / sizeof PROFILES[0]; i++)
        if (!strcmp(name, PROFILES[i].name))
            return &PROFILES[i];
    return NULL;
}

double sched_seconds(const sched_profile *pf, const arm *a)
{
    return a->rate == 0 && pf->closed_seconds > 0 ? pf->closed_seconds : pf->seconds;
}

/* The profile's arms in lab/arms.tsv's order, into list (room for arms->n). */
static int pick_arms(const sched_profile *pf, const arm_table *arms, const char *arms_path, const arm **list,
                     size_t *na, char *err, size_t errlen)
{
    *na = 0;
    if (!pf->arms) {
        for (size_t i = 0; i < arms->n; i++)
            list[(*na)++] = &arms->v[i];
    } else {
        /* check each name, then take them in lab/arms.tsv's order */
        char *names = mf_str(",%s,", pf->arms);
        for (char *p = names + 1; *p;) {
            char *q = strchr(p, ',');
            *q = 0;
            if (*p && !arms_find(arms, p)) {
                ut_seterr(err, errlen, "%s: no arm named %s (profile %s needs it)", arms_path, p, pf->name);
                free(names);
                return -1;
            }
            *q = ',';
            p = q + 1;
        }
        for (size_t i = 0; i < arms->n; i++) {
            char *pat = mf_str(",%s,", arms->v[i].name);
            if (strstr(names, pat))
                list[(*na)++] = &arms->v[i];
            free(pat);
        }
        free(names);
    }
    if (*na == 0) {
        ut_seterr(err, errlen, "%s: no arms", arms_path);
        return -1;
    }
    return 0;
}

int sched_build(sched *c, const sched_profile *pf, const arm_table *arms, const char *arms_path, char *err,
                size_t errlen)
{
    c->pf = pf;
    const arm **list = calloc(arms->n ? arms->n : 1, sizeof *list);
    size_t na = 0;
    if (!list)
        exit(1);
    if (pick_arms(pf, arms, arms_path, list, &na, err, errlen) != 0) {
        free(list);
        return -1;
    }
    c->n = (int)na * c->pf->rounds;
    c->s = calloc((size_t)c->n, sizeof *c->s);
    const arm **order = calloc(na, sizeof *order);
    if (!c->s || !order)
        exit(1);
    int k = 0;
    for (int r = 1; r <= c->pf->rounds; r++) {
        memcpy(order, list, na * sizeof *order);
        ut_rng g;
        ut_rng_seed(&g, SHUFFLE_MULT * (uint64_t)r);
        for (size_t i = na - 1; i > 0; i--) {
            size_t j = (size_t)(ut_rng_u64(&g) % (uint64_t)(i + 1));
            const arm *t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (size_t i = 0; i < na; i++, k++) {
            sched_run *s = &c->s[k];
            s->k = k + 1;
            s->round = r;
            s->pos = (int)i + 1;
            s->a = order[i];
            s->seconds = sched_seconds(pf, s->a);
            s->selected = 1;
            snprintf(s->name, sizeof s->name, "%s-r%d", s->a->name, r);
        }
    }
    free(order);
    free(list);
    return 0;
}

/* The header names pipeline/measure/measure.c, where the schedule was first defined:
 * kept, so that schedule.tsv stays the same byte for byte. */
char *sched_text(const sched *c)
{
    size_t cap = 256 + (size_t)c->n * 64, n = 0;
    char *t = malloc(cap);
    if (!t)
        exit(1);
    char closed[48] = "";
    if (c->pf->closed_seconds > 0)
        snprintf(closed, sizeof closed, ", closed loop %g s", c->pf->closed_seconds);
    n += (size_t)snprintf(t + n, cap - n,
                          "# lab-schedule 1: profile %s, %d rounds of %d arms, %g s each%s; order within round r: "
                          "Fisher-Yates, ut_rng seeded 7919*r (pipeline/measure/measure.c)\n"
                          "k\tround\tposition\tarm\n",
                          c->pf->name, c->pf->rounds, c->n / c->pf->rounds, c->pf->seconds, closed);
    for (int i = 0; i < c->n; i++)
        n += (size_t)snprintf(t + n, cap - n, "%d\t%d\t%d\t%s\n", c->s[i].k, c->s[i].round, c->s[i].pos,
                              c->s[i].a->name);
    return t;
}

/* 1 when dir holds exactly run.json and the event files of a run with
 * `stores` stores (five, or six with store2.tsv.gz), 0 when it is absent,
 * -1 otherwise (why). */
static int holds_run_files(const char *dir, int stores, char *why, size_t wl)
{
    const char *ev[MF_NEVENT + 1];
    int nev = mf_event_files(stores, ev);
    struct stat st;
    if (lstat(dir, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(why, wl, "cannot be read: %s", strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, wl, "not a folder");
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, wl, "cannot be opened: %s", strerror(errno));
        return -1;
    }
    struct dirent *e;
    int seen = 0, extra = 0;
    char odd[256] = "";
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int k = -1;
        for (int i = 0; i < nev; i++)
            if (!strcmp(e->d_name, ev[i]))
                k = i;
        if (!strcmp(e->d_name, "run.json"))
            seen |= 1 << nev;
        else if (k >= 0)
            seen |= 1 << k;
        else if (!extra++)
            snprintf(odd, sizeof odd, "%s", e->d_name);
    }
    closedir(d);
    if (!(seen & (1 << nev))) {
        snprintf(why, wl, "no run.json");
        return -1;
    }
    for (int i = 0; i < nev; i++)
        if (!(seen & (1 << i))) {
            snprintf(why, wl, "no %s", ev[i]);
            return -1;
        }
    if (extra) {
        snprintf(why, wl, "holds %s, which is no raw file of a run", odd);
        return -1;
    }
    return 1;
}

/* 0 when run.json names this run and profile, the arm's number of
 * stores, and every event file matches its sha256 and size there; else -1
 * (why). */
static int matches_run_json(const char *dir, const sched_run *s, int stores, double seconds, char *why, size_t wl)
{
    const char *ev[MF_NEVENT + 1];
    int nev = mf_event_files(stores, ev);
    char *p = mf_str("%s/run.json", dir);
    json_error_t je;
    json_t *r = json_load_file(p, 0, &je);
    free(p);
    if (!r) {
        snprintf(why, wl, "run.json: %s", je.text);
        return -1;
    }
    int rc = -1;
    const char *arm = json_string_value(json_object_get(r, "arm"));
    json_t *jround = json_object_get(r, "round"), *jsec = json_object_get(r, "seconds");
    if (!arm || strcmp(arm, s->a->name) != 0 || !json_is_integer(jround) ||
        json_integer_value(jround) != s->round) {
        snprintf(why, wl, "run.json names another arm or round");
        goto done;
    }
    if (!json_is_number(jsec) || fabs(json_number_value(jsec) - seconds) > 1e-9) {
        snprintf(why, wl, "lasted %g s, not the schedule's %g s", json_is_number(jsec) ? json_number_value(jsec) : -1,
                 seconds);
        goto done;
    }
    json_t *jstores = json_object_get(r, "stores");
    if (!json_is_integer(jstores) || json_integer_value(jstores) != stores) {
        snprintf(why, wl, "run.json's stores is not %d", stores);
        goto done;
    }
    json_t *files = json_object_get(r, "files");
    for (int i = 0; i < nev; i++) {
        json_t *f = json_object_get(files, ev[i]);
        const char *want = json_string_value(json_object_get(f, "sha256"));
        json_t *jsz = json_object_get(f, "size");
        if (!want || !json_is_integer(jsz)) {
            snprintf(why, wl, "run.json gives no sha256 and size of %s", ev[i]);
            goto done;
        }
        char *fp = mf_str("%s/%s", dir, ev[i]), sha[65], err[UT_ERRLEN];
        uint64_t sz = 0;
        int bad = ut_sha256_file(fp, sha, &sz, err, sizeof err) != 0;
        free(fp);
        if (bad || strcmp(sha, want) != 0 || (json_int_t)sz != json_integer_value(jsz)) {
            snprintf(why, wl, "%s differs from its sha256 and size in run.json", ev[i]);
            goto done;
        }
    }
    rc = 0;
done:
    json_decref(r);
    return rc;
}

int sched_check_run(const char *raw, const sched_run *s, char *why, size_t wl)
{
    double seconds = s->seconds;
    char *dir = mf_str("%s/%s", raw, s->name);
    int stores = s->a->store2 > 0 ? 2 : 1;
    int rc = holds_run_files(dir, stores, why, wl);
    if (rc == 1 && matches_run_json(dir, s, stores, seconds, why, wl) != 0)
        rc = -1;
    free(dir);
    return rc;
}

int sched_select(sched *c, const char *only, char *err, size_t errlen)
{
    for (int i = 0; i < c->n; i++)
        c->s[i].selected = 0;
    char *list = mf_str(",%s,", only);
    int rc = 0;
    for (char *p = list + 1; *p;) {
        char *q = strchr(p, ',');
        *q = 0;
        int found = !*p;
        for (int i = 0; i < c->n; i++)
            if (!strcmp(c->s[i].name, p))
                c->s[i].selected = found = 1;
        if (!found) {
            ut_seterr(err, errlen, "--only: %s is not in the schedule of profile %s", p, c->pf->name);
            rc = -1;
            break;
        }
        p = q + 1;
    }
    free(list);
    return rc;
}

void sched_free(sched *c)
{
    free(c->s);
    c->s = NULL;
    c->n = 0;
}

int sched_runs_left(const sched *c, int from)
{
    int n = 0;
    for (int i = from; i < c->n; i++)
        n += c->s[i].selected && !c->s[i].complete;
    return n;
}

void sched_clean_tmp(const char *raw)
{
    DIR *d = opendir(raw);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' && l > 5 && !strcmp(e->d_name + l - 4, ".tmp")) {
            char *p = mf_str("%s/%s", raw, e->d_name);
            ut_err("%s: an unfinished run's temporary folder; removed", p);
            mf_rm_rf(p);
            free(p);
        }
    }
    if (d)
        closedir(d);
}

/* "profile NAME" of an old schedule.tsv's first line, else "another schedule". */
static void old_profile(const char *old, char *was, size_t n)
{
    snprintf(was, n, "another schedule");
    const char *pp = strstr(old, "profile ");
    if (pp && pp < old + strcspn(old, "\n"))
        snprintf(was, n, "profile %.*s", (int)strcspn(pp + 8, ",\n"), pp + 8);
}

int sched_agree(const sched *c, const char *sched_path, const char *raw, const char *results, size_t *present,
                char *err, size_t errlen)
{
    mf_list runs = {0};
    mf_list_dir(raw, &runs);
    *present = runs.n;
    char *text = sched_text(c), *old = NULL;
    size_t on = 0;
    char e2[UT_ERRLEN];
    int have = ut_read_file(sched_path, &old, &on, e2, sizeof e2) == 0, rc = 0;
    if (have && strcmp(old, text) != 0 && runs.n) {
        char was[128];
        old_profile(old, was, sizeof was);
        ut_seterr(err, errlen,
                  "%s was made for %s, not for profile %s with these arms, and %s holds %zu runs of it: "
                  "use another OUT, or move %s away",
                  sched_path, was, c->pf->name, raw, runs.n, results);
        rc = 2;
    }
    for (size_t i = 0; i < runs.n && !rc; i++) {
        int ours = 0;
        for (int j = 0; j < c->n && !ours; j++)
            ours = !strcmp(runs.v[i], c->s[j].name);
        if (!ours) {
            ut_seterr(err, errlen, "%s/%s: not a run of profile %s's schedule; use another OUT, or move it away",
                      raw, runs.v[i], c->pf->name);
            rc = 2;
        }
    }
    if (!rc && (!have || strcmp(old, text) != 0) &&
        ut_write_file(sched_path, text, strlen(text), err, errlen) != 0)
        rc = 1;
    free(old);
    free(text);
    mf_list_free(&runs);
    return rc;
}

int sched_resume(sched *c, const char *raw, int *kept, int *todo, char *err, size_t errlen)
{
    *kept = *todo = 0;
    for (int i = 0; i < c->n; i++) {
        sched_run *s = &c->s[i];
        char why[300] = "";
        int st = sched_check_run(raw, s, why, sizeof why);
        if (st < 0) {
            char *p = mf_str("%s/%s", raw, s->name);
            ut_err("%s: %s: not a complete run; removed, to be measured again", p, why);
            int bad = mf_rm_rf(p) != 0;
            if (bad)
                ut_seterr(err, errlen, "%s: cannot remove: %s", p, strerror(errno));
            free(p);
            if (bad)
                return -1;
        }
        s->complete = st == 1;
        if (s->selected) {
            *kept += s->complete;
            *todo += !s->complete;
        }
    }
    return 0;
}
