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

#define SHUFFLE_MULT 7919ULL

int sched_build(sched *c, const prof_design *d, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->d = d;
    c->rounds = prof_rounds(d);
    size_t na = (size_t)d->np, total = 0;
    if (na == 0) {
        ut_seterr(err, errlen, "profile %s: no arms", d->profile);
        return -1;
    }
    for (size_t i = 0; i < na; i++)
        total += (size_t)d->g[d->p[i].group].rounds;
    c->s = calloc(total, sizeof *c->s);
    const arm **order = calloc(na, sizeof *order);
    if (!c->s || !order)
        exit(1);
    int k = 0;
    for (int r = 1; r <= c->rounds; r++) {
        size_t n = 0; /* the arms of round r, in lab/arms.tsv's order (the design's) */
        for (size_t i = 0; i < na; i++)
            if (prof_in_round(d, &d->p[i], r))
                order[n++] = d->p[i].a;
        ut_rng g;
        ut_rng_seed(&g, SHUFFLE_MULT * (uint64_t)r);
        for (size_t i = n ? n - 1 : 0; i > 0; i--) {
            size_t j = (size_t)(ut_rng_u64(&g) % (uint64_t)(i + 1));
            const arm *t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (size_t i = 0; i < n; i++, k++) {
            sched_run *s = &c->s[k];
            s->k = k + 1;
            s->round = r;
            s->pos = (int)i + 1;
            s->a = order[i];
            s->seconds = prof_group_of(d, s->a->name)->seconds;
            s->selected = 1;
            snprintf(s->name, sizeof s->name, "%s-r%d", s->a->name, r);
        }
    }
    c->n = k;
    free(order);
    return 0;
}

char *sched_groups_text(const sched *c)
{
    const prof_design *d = c->d;
    size_t cap = 64 + (size_t)d->ng * 160, n = 0;
    char *t = malloc(cap);
    if (!t)
        exit(1);
    t[0] = 0;
    for (int gi = 0; gi < d->ng; gi++) {
        const prof_group *g = &d->g[gi];
        int arms = 0;
        for (int i = 0; i < d->np; i++)
            arms += d->p[i].group == gi;
        if (!arms)
            continue;
        char rr[48] = "", rs[64] = "";
        if (g->rounds != g->reg_rounds)
            snprintf(rr, sizeof rr, " (registered %d)", g->reg_rounds);
        if (g->seconds != g->reg_seconds)
            snprintf(rs, sizeof rs, " (registered %s)", g->reg_seconds_s);
        n += (size_t)snprintf(t + n, cap - n, "%s%s %d arm%s x %d rounds%s x %g s%s", n ? ", " : "", g->name, arms,
                              arms == 1 ? "" : "s", g->rounds, rr, g->seconds, rs);
    }
    return t;
}

char *sched_text(const sched *c)
{
    char *groups = sched_groups_text(c);
    size_t cap = 512 + strlen(groups) + (size_t)c->n * 96, n = 0;
    char *t = malloc(cap);
    if (!t)
        exit(1);
    n += (size_t)snprintf(t + n, cap - n,
                          "# lab-schedule 2: profile %s, %d rounds; %s (data/profiles.tsv%s); order within round r: "
                          "the round's arms in lab/arms.tsv's order, Fisher-Yates, ut_rng seeded 7919*r "
                          "(pipeline/measure/schedule.h)\n"
                          "k\tround\tposition\tarm\tseconds\n",
                          c->d->profile, c->rounds, groups, c->d->ndev ? " with results/deviations.tsv" : "");
    for (int i = 0; i < c->n; i++)
        n += (size_t)snprintf(t + n, cap - n, "%d\t%d\t%d\t%s\t%g\n", c->s[i].k, c->s[i].round, c->s[i].pos,
                              c->s[i].a->name, c->s[i].seconds);
    free(groups);
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

/* 0 when run.json names this run, its seconds, the arm's number of
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
    int stores = arms_stores(s->a);
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
            ut_seterr(err, errlen, "--only: %s is not in the schedule of profile %s", p, c->d->profile);
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
                  "%s was made for %s, not for profile %s as designed and run here, and %s holds %zu runs of it: "
                  "use another OUT, or move %s away",
                  sched_path, was, c->d->profile, raw, runs.n, results);
        rc = 2;
    }
    for (size_t i = 0; i < runs.n && !rc; i++) {
        int ours = 0;
        for (int j = 0; j < c->n && !ours; j++)
            ours = !strcmp(runs.v[i], c->s[j].name);
        if (!ours) {
            ut_seterr(err, errlen, "%s/%s: not a run of profile %s's schedule; use another OUT, or move it away",
                      raw, runs.v[i], c->d->profile);
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

/* The departures a deviations.tsv text lists, for a message: "group field
 * registered -> ran, ..." or "none". */
static void dev_summary(const char *text, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    const char *l = text;
    int line = 0;
    while (l && *l) {
        const char *nl = strchr(l, '\n');
        size_t ll = nl ? (size_t)(nl - l) : strlen(l);
        if (*l != '#' && line++ > 0) { /* not a comment, not the header */
            char g[64] = "", f[16] = "", reg[32] = "", ran[32] = "";
            char *one = mf_str("%.*s", (int)ll, l);
            if (sscanf(one, "%63[^\t]\t%15[^\t]\t%31[^\t]\t%31[^\t]", g, f, reg, ran) == 4 && len < n)
                len += (size_t)snprintf(buf + len, n - len, "%s%s %s %s -> %s", len ? ", " : "", g, f, reg, ran);
            free(one);
        }
        l = nl ? nl + 1 : NULL;
    }
    if (!buf[0])
        snprintf(buf, n, "none");
}

int sched_agree_deviations(const sched *c, const char *dev_path, const char *raw, const char *results, char *err,
                           size_t errlen)
{
    mf_list runs = {0};
    mf_list_dir(raw, &runs);
    char *text = prof_deviations_text(c->d), *old = NULL, e2[UT_ERRLEN];
    size_t on = 0;
    int have = ut_read_file(dev_path, &old, &on, e2, sizeof e2) == 0, rc = 0;
    int same = have ? text && !strcmp(old, text) : !text;
    if (!same && runs.n) {
        char was[1024], now[1024];
        dev_summary(have ? old : NULL, was, sizeof was);
        dev_summary(text, now, sizeof now);
        ut_seterr(err, errlen,
                  "%s: the %zu runs in %s were measured with other departures from the registered design (%s) "
                  "than this measure's (%s): give the same --rounds and --closed-s, use another OUT, or move %s away",
                  dev_path, runs.n, raw, was, now, results);
        rc = 2;
    } else if (!same && text && ut_write_file(dev_path, text, strlen(text), err, errlen) != 0) {
        rc = 1;
    } else if (!same && !text && unlink(dev_path) != 0 && errno != ENOENT) {
        ut_seterr(err, errlen, "%s: cannot remove: %s", dev_path, strerror(errno));
        rc = 1;
    }
    free(old);
    free(text);
    mf_list_free(&runs);
    return rc;
}
