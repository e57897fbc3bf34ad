/* apcost: the `ap` stage; see apcost.h.  Definitions: pipeline/APCOST.md. */
#include "apcost.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap.h"
#include "apboot.h"
#include "apref.h"
#include "apstudy.h"
#include "feat.h"
#include "paths.h"
#include "prepread.h"
#include "train.h"
#include "util.h"

/* A quiet flooded run of results.json (APCOST.md 1.5). */
typedef struct {
    char run[APSTUDY_NAME], arm[APSTUDY_NAME];
    int round;
} flooded_run;

/* Everything one run of the stage holds; released by stage_free. */
typedef struct {
    const apc_stage_opts *o;
    prov *pv;
    int64_t t_all;           /* start, for the progress lines */
    json_t *names;           /* the chosen arms */
    json_t *skipped;         /* those without runs */
    prepread_set prep;
    /* the chosen arms with runs, then (format 2) the flooded runs, each an
     * arm of one round named by the run (APCOST.md 1.5) */
    apstudy_arm *arms;
    size_t narms, nflood;
    flooded_run *flood;      /* [nflood]: results.json's quiet flooded runs, in byte order */
    /* the test table and the current seed's scores, n = prep.test.n */
    uint8_t *lab;
    int32_t *cut, *cust;
    float *live, *lastk;
    feat_row *both;          /* test rows, then prev rows: scored in one call */
    float *pred;             /* [n + prev.n] */
    float *all_live, *all_lastk;  /* [seeds * n]: every seed's scores, for the reference files */
    apboot_table tab;
    apboot_ctx *ctx;
    double t_train, t_boot;
} stage;

static void stage_free(stage *st)
{
    apboot_free(st->ctx);
    for (size_t a = 0; st->arms && a < st->narms + st->nflood; a++)
        apstudy_arm_free(&st->arms[a]);
    free(st->arms);
    free(st->flood);
    prepread_free(&st->prep);
    free(st->lab);
    free(st->cut);
    free(st->cust);
    free(st->live);
    free(st->lastk);
    free(st->both);
    free(st->pred);
    free(st->all_live);
    free(st->all_lastk);
    json_decref(st->names);
    json_decref(st->skipped);
}

static double since(int64_t t0) { return (double)(ut_mono_ns() - t0) / 1e9; }

/* The provenance folder: --prov, else OUT/provenance. */
static void provdir(const apc_stage_opts *o, char *buf, size_t n)
{
    if (o->provdir)
        snprintf(buf, n, "%s", o->provdir);
    else
        snprintf(buf, n, "%s/" PATH_PROV_DIR, o->root);
}

static void mmss(double s, char *buf, size_t n)
{
    int v = s < 0 ? 0 : s > 359999 ? 359999 : (int)(s + 0.5);
    snprintf(buf, n, "%d:%02d", v / 60, v % 60);
}

/* ================================================================ 1. the chosen arms */

static int arm_line(void *ctx, char **f, int nf, const char *path, size_t lineno, char *err, size_t errlen)
{
    (void)nf;
    json_t *list = ctx;
    const char *a = f[0]; /* "#" and empty lines: the one TSV grammar's, skipped before */
    if (strlen(a) >= APSTUDY_NAME || strchr(a, '/') || a[0] == '.') {
        ut_seterr(err, errlen, "%s: line %zu: \"%s\" is not an arm name", path, lineno, a);
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) if (!strcmp(json_string_value(v), a))
    {
        ut_seterr(err, errlen, "%s: line %zu: arm %s named twice", path, lineno, a);
        return -1;
    }
    json_array_append_new(list, json_string(a));
    return 0;
}

static int read_arm_names(stage *st, char *err, size_t errlen)
{
    const char *path = st->o->arms;
    if ((st->pv && prov_input(st->pv, path, err, errlen) != 0) ||
        prepread_tsv(path, "arm", 1, arm_line, st->names, err, errlen) != 0)
        return -1;
    if (json_array_size(st->names) == 0) {
        ut_seterr(err, errlen, "%s: no arm chosen", path);
        return -1;
    }
    return 0;
}

/* ================================================================ 1b. the flooded runs */

static int by_run(const void *a, const void *b)
{
    return strcmp(((const flooded_run *)a)->run, ((const flooded_run *)b)->run);
}

/* runs.<run>.<field> of results.json as true or false; -1 with err naming it */
static int json_flag(json_t *e, const char *path, const char *run, const char *field, int *out, char *err,
                     size_t errlen)
{
    json_t *v = json_object_get(e, field);
    if (!json_is_boolean(v)) {
        ut_seterr(err, errlen, "%s: runs.%s.%s: %s", path, run, field, v ? "not true or false" : "missing");
        return -1;
    }
    *out = json_is_true(v);
    return 0;
}

/* Every run of OUT/results/results.json (make collect) with flooded and
 * quiet true, of an arm without a fault (its `fault` none: APCOST.md 1.5),
 * sorted by name.  No file: said on
 * stdout, and no flooded run (flooded_runs {}). */
static int read_flooded(stage *st, char *err, size_t errlen)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/" PATH_RESULTS_JSON, st->o->root);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno != ENOENT) {
            ut_seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
            return -1;
        }
        printf("ap: %s is missing (make collect writes it): no run is known to have flooded, so "
               "flooded_runs is {}\n", path);
        return 0;
    }
    fclose(f);
    if (st->pv && prov_input(st->pv, path, err, errlen) != 0)
        return -1;
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        ut_seterr(err, errlen, "%s: line %d: %s", path, je.line, je.text);
        return -1;
    }
    json_t *runs = json_object_get(root, "runs");
    int rc = 0;
    if (!json_is_object(runs)) {
        ut_seterr(err, errlen, "%s: runs: %s", path, runs ? "not an object" : "missing");
        rc = -1;
    }
    st->flood = calloc(json_object_size(runs) + 1, sizeof *st->flood);
    if (!st->flood) {
        ut_seterr(err, errlen, "out of memory");
        rc = -1;
    }
    const char *run;
    json_t *e;
    json_object_foreach(runs, run, e)
    {
        if (rc != 0)
            break;
        int fl = 0, qu = 0;
        if (!json_is_object(e)) {
            ut_seterr(err, errlen, "%s: runs.%s: not an object", path, run);
            rc = -1;
        } else if (json_flag(e, path, run, "flooded", &fl, err, errlen) != 0 ||
                   json_flag(e, path, run, "quiet", &qu, err, errlen) != 0) {
            rc = -1;
        }
        if (rc != 0 || !fl || !qu)
            continue;
        /* an arm with a fault: a store down or hanging fills its window with
         * stand-ins by design, an outage, not a flood (APCOST.md 1.5) */
        const char *fault = json_string_value(json_object_get(e, "fault"));
        if (!fault) {
            ut_seterr(err, errlen, "%s: runs.%s.fault: missing or not a string", path, run);
            rc = -1;
            continue;
        }
        if (strcmp(fault, "none") != 0)
            continue;
        const char *arm = json_string_value(json_object_get(e, "arm"));
        json_t *jr = json_object_get(e, "round");
        char want[2 * APSTUDY_NAME];
        if (arm)
            snprintf(want, sizeof want, "%s-r%lld", arm, (long long)json_integer_value(jr));
        if (!arm || !json_is_integer(jr) || json_integer_value(jr) < 1 || strcmp(want, run) != 0 ||
            strlen(run) >= APSTUDY_NAME || strchr(run, '/') || run[0] == '.') {
            ut_seterr(err, errlen, "%s: runs.%s: arm and round do not name the run (arm %s, round %s)", path, run,
                      arm ? arm : "missing", json_is_integer(jr) ? "given" : "missing or not an integer");
            rc = -1;
            continue;
        }
        flooded_run *fr = &st->flood[st->nflood++];
        snprintf(fr->run, sizeof fr->run, "%s", run);
        snprintf(fr->arm, sizeof fr->arm, "%s", arm);
        fr->round = (int)json_integer_value(jr);
    }
    json_decref(root);
    if (rc != 0)
        return -1;
    if (st->nflood)
        qsort(st->flood, st->nflood, sizeof *st->flood, by_run);
    return 0;
}

/* ================================================================ 3. the runs */

static void say_arm(const apstudy_arm *arm)
{
    size_t si = 0, rws = 0, m = arm->rounds[0].requests;
    for (size_t q = 0; q < arm->nrounds; q++) {
        si += arm->rounds[q].last_known + arm->rounds[q].dflt;
        rws += arm->rounds[q].rows;
    }
    printf("ap: %s: %zu rounds, first %zu requests of each: %zu stand-ins (%.2f%%), %zu table rows "
           "replaced per round on average\n",
           arm->name, arm->nrounds, m, si, 100.0 * (double)si / (double)(m * arm->nrounds), rws / arm->nrounds);
}

static int load_arms(stage *st, char *err, size_t errlen)
{
    char raw[4200];
    snprintf(raw, sizeof raw, "%s/" PATH_RAW_DIR, st->o->root);
    st->arms = calloc(json_array_size(st->names) + st->nflood + 1, sizeof *st->arms);
    if (!st->arms) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    size_t ai;
    json_t *jn;
    json_array_foreach(st->names, ai, jn)
    {
        const char *name = json_string_value(jn);
        apstudy_arm *arm = &st->arms[st->narms];
        if (apstudy_arm_load(raw, name, st->prep.test.n, st->pv, arm, err, errlen) != 0)
            return -1;
        if (arm->nrounds == 0) {
            printf("ap: arm %s has no runs under %s: skipped\n", name, raw);
            json_array_append_new(st->skipped, json_string(name));
            continue;
        }
        st->narms++;
        if (st->o->verbose)
            say_arm(arm);
    }
    if (st->narms == 0) {
        ut_seterr(err, errlen, "none of the arms of %s has runs under %s: nothing to measure", st->o->arms, raw);
        return -1;
    }
    /* the flooded runs, each on its own, after the chosen arms (APCOST.md 1.5) */
    size_t nf = st->nflood;
    st->nflood = 0;
    for (size_t i = 0; i < nf; i++) {
        apstudy_arm *arm = &st->arms[st->narms + i];
        char why[UT_ERRLEN];
        if (apstudy_run_load(raw, st->flood[i].run, st->flood[i].round, st->prep.test.n, st->pv, arm, why,
                             sizeof why) != 0) {
            ut_seterr(err, errlen, "flooded run %s (results.json: flooded and quiet): %s", st->flood[i].run, why);
            return -1;
        }
        st->nflood++;
        if (st->o->verbose) {
            const apstudy_round *rd = &arm->rounds[0];
            printf("ap: flooded run %s: %zu requests, %zu stand-ins (%.2f%%), %zu table rows replaced\n", arm->name,
                   rd->requests, rd->last_known + rd->dflt,
                   rd->requests ? 100.0 * (double)(rd->last_known + rd->dflt) / (double)rd->requests : 0.0, rd->rows);
        }
    }
    if (st->o->verbose && nf == 0)
        printf("ap: no quiet run flooded: flooded_runs is {}\n");
    return 0;
}

/* ================================================================ 4. the computation */

static int make_ctx(stage *st, char *err, size_t errlen)
{
    const apc_stage_opts *o = st->o;
    const prepread_set *p = &st->prep;
    size_t n = p->test.n, np = p->prev.n;
    st->lab = malloc(n);
    st->cut = malloc(n * sizeof *st->cut);
    st->cust = malloc(n * sizeof *st->cust);
    st->live = malloc(n * sizeof *st->live);
    st->lastk = malloc(n * sizeof *st->lastk);
    st->both = malloc((n + np) * sizeof *st->both);
    st->pred = malloc((n + np) * sizeof *st->pred);
    st->all_live = malloc((size_t)o->seeds * n * sizeof *st->all_live);
    st->all_lastk = malloc((size_t)o->seeds * n * sizeof *st->all_lastk);
    if (!st->lab || !st->cut || !st->cust || !st->live || !st->lastk || !st->both || !st->pred || !st->all_live ||
        !st->all_lastk) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        st->lab[i] = p->test.r[i].label;
        st->cut[i] = p->test.r[i].cutoff;
        st->cust[i] = p->test.r[i].customer;
        st->both[i] = p->test.r[i];
    }
    memcpy(st->both + n, p->prev.r, np * sizeof *st->both);
    st->tab = (apboot_table){n, st->cut, st->lab, st->cust};
    apboot_opts ao = {o->resamples, o->boot_seed, o->threads, 3,
                      {APBOOT_LAST_KNOWN, APBOOT_DEFAULT, APBOOT_NONE}, 1};
    st->ctx = apboot_new(&st->tab, st->arms, st->narms + st->nflood, (size_t)o->seeds, &ao, err, errlen);
    if (!st->ctx)
        return -1;
    if (o->verbose) {
        printf("ap: %zu test rows, %zu customers, %zu cutoffs; %d model seeds, bootstrap of %zu resamples "
               "over seeds 1..%d, %d thread%s (%.1f s)\n",
               n, apboot_result_of(st->ctx)->ncustomers, apboot_result_of(st->ctx)->ngroups, o->seeds,
               o->resamples, o->boot_seeds, o->threads, o->threads == 1 ? "" : "s", since(st->t_all));
        fflush(stdout);
    }
    return 0;
}

/* ================================================================ 5. the seeds */

/* Seed s: trained on train.tsv with train_defaults but the seed; live = its
 * scores of test.tsv, lastk = its scores of prev.tsv, or the default score
 * for rows without one. */
static int seed_scores(stage *st, int s, char *err, size_t errlen)
{
    const prepread_set *p = &st->prep;
    size_t n = p->test.n;
    train_params tp;
    train_model model = NULL;
    train_defaults(&tp);
    tp.seed = s;
    int bad = train_fit(p->train.r, p->train.n, &tp, &model, err, errlen) != 0 ||
              train_predict(model, st->both, n + p->prev.n, st->pred, err, errlen) != 0;
    train_free(model);
    if (bad)
        return -1;
    memcpy(st->live, st->pred, n * sizeof *st->live);
    for (size_t i = 0; i < n; i++)
        st->lastk[i] = p->dflt;
    for (size_t i = 0; i < p->prev.n; i++)
        st->lastk[p->prev_row[i]] = st->pred[n + i];
    return 0;
}

/* Seed 1 is trained too, as a check: it must give prepare's reference
 * scores (scores.tsv) bit for bit, which are then the ones used. */
static int seed1_is_reference(stage *st, char *err, size_t errlen)
{
    const prepread_set *p = &st->prep;
    size_t n = p->test.n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&st->live[i], &p->score[i], sizeof(float)) != 0 ||
            memcmp(&st->lastk[i], &p->last[i], sizeof(float)) != 0) {
            ut_seterr(err, errlen, "%s/scores.tsv: row %zu: score %.9g, last_known %.9g, but model seed 1 "
                      "trained on train.tsv gives %.9g, %.9g: the prepared files do not belong together",
                      st->o->prep, i, p->score[i], p->last[i], st->live[i], st->lastk[i]);
            return -1;
        }
    memcpy(st->live, p->score, n * sizeof *st->live);
    memcpy(st->lastk, p->last, n * sizeof *st->lastk);
    return 0;
}

static int run_seeds(stage *st, char *err, size_t errlen)
{
    const apc_stage_opts *o = st->o;
    int64_t t_loop = ut_mono_ns();
    for (int s = 1; s <= o->seeds; s++) {
        int64_t t0 = ut_mono_ns();
        if (seed_scores(st, s, err, errlen) != 0)
            return -1;
        double tr = since(t0), bs = 0;
        st->t_train += tr;
        if (s == 1 && seed1_is_reference(st, err, errlen) != 0)
            return -1;
        size_t n = st->prep.test.n;
        memcpy(st->all_live + (size_t)(s - 1) * n, st->live, n * sizeof *st->live);
        memcpy(st->all_lastk + (size_t)(s - 1) * n, st->lastk, n * sizeof *st->lastk);
        if (apboot_add_seed(st->ctx, s, st->live, st->lastk, st->prep.dflt, s <= o->boot_seeds, &bs, err,
                            errlen) != 0)
            return -1;
        st->t_boot += bs;
        if (o->verbose) {
            double el = since(t_loop), left = el / s * (o->seeds - s);
            char e1[24], e2[24];
            mmss(since(st->t_all), e1, sizeof e1);
            mmss(left, e2, sizeof e2);
            printf("ap: model seed %d of %d: trained in %.2f s%s, live AP %.4f, bootstrap %.2f s; elapsed %s, "
                   "left ~%s\n",
                   s, o->seeds, tr, s == 1 ? " (= scores.tsv on every row)" : "",
                   apboot_result_of(st->ctx)->live_ap[s - 1], bs, e1, e2);
            fflush(stdout);
        }
    }
    return 0;
}

/* The last-known rule of APCOST.md 1.3 on every seed's scores (bit for bit),
 * and a view of them for the reference files.  prev_cut: the caller's
 * array of prev.n cutoffs, filled here. */
static int check_last_known(stage *st, int32_t *prev_cut, apref_scores *sc, char *err, size_t errlen)
{
    const prepread_set *p = &st->prep;
    for (size_t i = 0; i < p->prev.n; i++)
        prev_cut[i] = p->prev.r[i].cutoff;
    *sc = (apref_scores){p->test.n, (size_t)st->o->seeds, st->cust, st->cut, st->all_live, st->all_lastk,
                         p->dflt, p->prev.n, p->prev_row, prev_cut, NULL, 1};
    char why[UT_ERRLEN];
    if (apref_rule(sc, NULL, why, sizeof why) != 0) {
        ut_seterr(err, errlen, "%s: the last-known rule of APCOST.md 1.3 fails: %s", st->o->prep, why);
        return -1;
    }
    return 0;
}

/* results/reference/ap_scores.tsv.gz and ap_prev_scores.tsv.gz, read back
 * and checked as a verifier would (APCOST.md 1.10); then every resample's
 * change.  Each named in the provenance. */
static int write_reference(stage *st, char *err, size_t errlen)
{
    const apc_stage_opts *o = st->o;
    int32_t *prev_cut = malloc((st->prep.prev.n + 1) * sizeof *prev_cut);
    char sp[4200], jp[4200];
    apref_scores sc;
    int rc = -1;
    if (!prev_cut) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    snprintf(sp, sizeof sp, "%s/scores.tsv", o->prep);
    snprintf(jp, sizeof jp, "%s/summary.json", o->prep);
    if (check_last_known(st, prev_cut, &sc, err, errlen) == 0 && apref_write_scores(o->root, &sc, err, errlen) == 0 &&
        apref_check(o->root, NULL, sp, jp, NULL, err, errlen) == 0 &&
        apref_write_resamples(o->root, apboot_result_of(st->ctx), st->arms, st->narms + st->nflood, o->resamples,
                              err, errlen) == 0)
        rc = 0;
    free(prev_cut);
    const char *files[] = {PATH_AP_SCORES, PATH_AP_PREV, PATH_AP_RESAMPLES};
    for (size_t i = 0; rc == 0 && st->pv && i < 3; i++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/%s", o->root, files[i]);
        rc = prov_output(st->pv, path, err, errlen);
    }
    return rc;
}

/* ================================================================ 6. results/ap.json */

static void day_str(int32_t day, char buf[11])
{
    int y, m, d;
    ut_civil_from_days(day, &y, &m, &d);
    snprintf(buf, 11, "%04d-%02d-%02d", y, m, d);
}

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *kinds_obj(const double *v, const int *computed)
{
    json_t *o = json_object();
    for (int k = 0; k < APBOOT_KINDS; k++)
        if (computed[k])
            json_object_set_new(o, apboot_kind_names[k], jnum(v[k]));
    return o;
}

/* per_round[q] of an arm (APCOST.md 1.6 and 1.7); the default seed's APs */
static json_t *round_json(const apstudy_round *rd, const apboot_round_ap *rap, double live0, const int *computed,
                          size_t ntest)
{
    size_t si = rd->last_known + rd->dflt;
    double apv[APBOOT_KINDS], ch[APBOOT_KINDS];
    for (int k = 0; k < APBOOT_KINDS; k++) {
        apv[k] = rap->ap[k];
        ch[k] = apv[k] - live0;
    }
    json_t *jr = json_object();
    json_object_set_new(jr, "round", json_integer(rd->round));
    json_object_set_new(jr, "requests_in_run", json_integer((json_int_t)rd->requests_in_run));
    json_object_set_new(jr, "requests", json_integer((json_int_t)rd->requests));
    json_object_set_new(jr, "live", json_integer((json_int_t)rd->live));
    json_object_set_new(jr, "last_known", json_integer((json_int_t)rd->last_known));
    json_object_set_new(jr, "default", json_integer((json_int_t)rd->dflt));
    json_object_set_new(jr, "error", json_integer((json_int_t)rd->error));
    json_object_set_new(jr, "standin_requests", json_integer((json_int_t)si));
    json_object_set_new(jr, "standin_share", json_real((double)si / (double)rd->requests));
    json_object_set_new(jr, "standin_rows", json_integer((json_int_t)rd->rows));
    json_object_set_new(jr, "standin_rows_share", json_real((double)rd->rows / (double)ntest));
    json_object_set_new(jr, "ap_default_seed", kinds_obj(apv, computed));
    json_object_set_new(jr, "change_default_seed", kinds_obj(ch, computed));
    return jr;
}

/* kinds.<kind> of an arm: the changes, the interval and the verdict (1.5) */
static json_t *kinds_json(const apboot_arm_result *ar, size_t nseeds)
{
    json_t *jk = json_object();
    for (int k = 0; k < APBOOT_KINDS; k++) {
        if (!ar->computed[k])
            continue;
        json_t *e = json_object(), *ps = json_array();
        for (size_t s = 0; s < nseeds; s++)
            json_array_append_new(ps, json_real(ar->seed_change[k][s]));
        json_object_set_new(e, "change", jnum(ar->change[k]));
        json_object_set_new(e, "change_default_seed", jnum(ar->seed_change[k][0]));
        json_object_set_new(e, "change_per_seed", ps);
        int ok = isfinite(ar->lo[k]) && isfinite(ar->hi[k]) && isfinite(ar->e_lo[k]) && isfinite(ar->e_hi[k]);
        json_object_set_new(e, "ci95", ok ? json_pack("[f,f]", ar->lo[k], ar->hi[k]) : json_null());
        json_object_set_new(e, "ci95_mc", ok ? json_pack("[f,f]", ar->e_lo[k], ar->e_hi[k]) : json_null());
        const char *dir, *verdict = apboot_verdict(ar->lo[k], ar->hi[k], ar->e_lo[k], ar->e_hi[k], &dir);
        json_object_set_new(e, "verdict", json_string(verdict));
        json_object_set_new(e, "direction", dir ? json_string(dir) : json_null());
        json_object_set_new(jk, apboot_kind_names[k], e);
    }
    return jk;
}

/* arms.<arm>: counts and shares per arm, per round, and the kinds (1.6, 1.7) */
static json_t *arm_json(const apstudy_arm *arm, const apboot_arm_result *ar, const apboot_result *r, size_t ntest)
{
    json_t *jarm = json_object(), *rounds = json_array(), *per = json_array();
    size_t req = 0, sreq = 0, lk = 0, df = 0;
    double rows_share = 0;
    for (size_t q = 0; q < arm->nrounds; q++) {
        const apstudy_round *rd = &arm->rounds[q];
        json_array_append_new(rounds, json_integer(rd->round));
        req += rd->requests;
        sreq += rd->last_known + rd->dflt;
        lk += rd->last_known;
        df += rd->dflt;
        rows_share += (double)rd->rows / (double)ntest;
        /* seed index 0: the default seed */
        json_array_append_new(per, round_json(rd, &ar->round_ap[q], r->live_ap[0], ar->computed, ntest));
    }
    json_object_set_new(jarm, "rounds", rounds);
    json_object_set_new(jarm, "requests_per_round", json_integer((json_int_t)arm->rounds[0].requests));
    json_object_set_new(jarm, "requests", json_integer((json_int_t)req));
    json_object_set_new(jarm, "standin_requests", json_integer((json_int_t)sreq));
    json_object_set_new(jarm, "last_known_requests", json_integer((json_int_t)lk));
    json_object_set_new(jarm, "default_requests", json_integer((json_int_t)df));
    json_object_set_new(jarm, "standin_share", json_real(req ? (double)sreq / (double)req : 0.0));
    json_object_set_new(jarm, "standin_rows_share", json_real(rows_share / (double)arm->nrounds));
    json_object_set_new(jarm, "per_round", per);
    json_object_set_new(jarm, "kinds", kinds_json(ar, r->nseeds));
    return jarm;
}

/* flooded_runs.<run>: the run on its own, an arm of one round (APCOST.md 1.5, 1.7) */
static json_t *flooded_json(const flooded_run *fr, const apstudy_arm *arm, const apboot_arm_result *ar,
                            const apboot_result *r, size_t ntest)
{
    const apstudy_round *rd = &arm->rounds[0];
    size_t si = rd->last_known + rd->dflt;
    json_t *j = json_object();
    json_object_set_new(j, "arm", json_string(fr->arm));
    json_object_set_new(j, "round", json_integer(fr->round));
    json_object_set_new(j, "requests", json_integer((json_int_t)rd->requests));
    json_object_set_new(j, "standin_requests", json_integer((json_int_t)si));
    json_object_set_new(j, "standin_share", json_real(rd->requests ? (double)si / (double)rd->requests : 0.0));
    json_object_set_new(j, "standin_rows", json_integer((json_int_t)rd->rows));
    json_object_set_new(j, "standin_rows_share", json_real((double)rd->rows / (double)ntest));
    json_object_set_new(j, "kinds", kinds_json(ar, r->nseeds));
    return j;
}

/* The whole ap.json object, fields in the order of APCOST.md 1.7. */
static json_t *result_json(const stage *st)
{
    const apc_stage_opts *o = st->o;
    const apboot_result *r = apboot_result_of(st->ctx);
    size_t ntest = st->prep.test.n;
    json_t *top = json_object();
    json_object_set_new(top, "format", json_string("lab-ap 2"));
    json_object_set_new(top, "definitions", json_string("pipeline/APCOST.md"));
    json_object_set_new(top, "test_rows", json_integer((json_int_t)ntest));
    json_object_set_new(top, "customers", json_integer((json_int_t)r->ncustomers));
    json_t *cuts = json_array();
    char day[11];
    for (size_t g = 0; g < r->ngroups; g++) {
        day_str(r->groups[g], day);
        json_array_append_new(cuts, json_string(day));
    }
    json_object_set_new(top, "cutoffs", cuts);
    json_object_set_new(top, "default_score", json_real((double)st->prep.dflt));
    json_t *kinds = json_array();
    for (int k = 0; k < APBOOT_KINDS; k++)
        json_array_append_new(kinds, json_string(apboot_kind_names[k]));
    json_object_set_new(top, "kinds", kinds);
    json_t *seeds = json_array(), *live = json_array();
    double lsum = 0;
    for (size_t s = 0; s < r->nseeds; s++) {
        json_array_append_new(seeds, json_integer(r->seeds[s]));
        json_array_append_new(live, json_real(r->live_ap[s]));
        lsum += r->live_ap[s];
    }
    json_object_set_new(top, "model_seeds", seeds);
    json_object_set_new(top, "default_seed", json_integer(r->seeds[0]));
    json_object_set_new(top, "live_ap", json_pack("{s:o,s:o,s:o}", "default_seed", json_real(r->live_ap[0]), "mean",
                                                  json_real(lsum / (double)r->nseeds), "per_seed", live));
    json_object_set_new(top, "bootstrap",
                        json_pack("{s:I,s:I,s:I,s:I,s:s,s:b}", "resamples", (json_int_t)o->resamples, "seed",
                                  (json_int_t)o->boot_seed, "model_seeds", (json_int_t)r->boot_seeds, "used",
                                  (json_int_t)r->resamples_used, "interval", "percentiles 2.5 and 97.5",
                                  "rounds_resampled", 1));
    json_t *ja = json_object();
    for (size_t a = 0; a < st->narms; a++)
        json_object_set_new(ja, st->arms[a].name, arm_json(&st->arms[a], &r->arm[a], r, ntest));
    json_object_set_new(top, "arms", ja);
    json_object_set(top, "skipped_arms", st->skipped);
    json_t *jf = json_object();
    for (size_t i = 0; i < st->nflood; i++)
        json_object_set_new(jf, st->flood[i].run,
                            flooded_json(&st->flood[i], &st->arms[st->narms + i], &r->arm[st->narms + i], r, ntest));
    json_object_set_new(top, "flooded_runs", jf);
    return top;
}

/* The text with a trailing newline, written atomically. */
static int write_json(const json_t *j, const char *root, const char *path, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/" PATH_RESULTS_DIR, root);
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    if (!text) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    size_t tl = strlen(text);
    char *t2 = realloc(text, tl + 2);
    if (!t2) {
        free(text);
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    t2[tl] = '\n';
    t2[tl + 1] = 0;
    int bad = ut_mkdir_p(dir, err, errlen) != 0 || ut_write_file(path, t2, tl + 1, err, errlen) != 0;
    free(t2);
    return bad ? -1 : 0;
}

static void say_results(const stage *st, const char *path)
{
    const apboot_result *r = apboot_result_of(st->ctx);
    for (size_t a = 0; a < st->narms + st->nflood; a++)
        for (int k = 0; k < APBOOT_KINDS; k++) {
            const char *dir, *v = apboot_verdict(r->arm[a].lo[k], r->arm[a].hi[k], r->arm[a].e_lo[k],
                                                 r->arm[a].e_hi[k], &dir);
            printf("ap: %s%-10s %-10s change in AP %+.5f  95%% [%+.5f ± %.5f, %+.5f ± %.5f]  (default seed %+.5f): "
                   "%s%s%s\n",
                   a < st->narms ? "" : "flooded ", st->arms[a].name, apboot_kind_names[k], r->arm[a].change[k],
                   r->arm[a].lo[k], r->arm[a].e_lo[k], r->arm[a].hi[k], r->arm[a].e_hi[k],
                   r->arm[a].seed_change[k][0], v, dir ? ", " : "", dir ? dir : "");
        }
    printf("ap: wrote %s in %.1f s (training %.1f s, bootstrap %.1f s)\n", path, since(st->t_all), st->t_train,
           st->t_boot);
}

static int write_results(stage *st, json_t **ap_out, char *err, size_t errlen)
{
    const apc_stage_opts *o = st->o;
    char path[4300];
    snprintf(path, sizeof path, "%s/" PATH_AP_JSON, o->root);
    json_t *out = result_json(st);
    char prov[4300], man[4400];
    provdir(o, prov, sizeof prov);
    snprintf(man, sizeof man, "%s/%s", prov, PATH_AP_MANIFEST);
    /* the reference files, ap.json, then the manifest that vouches for them (APCOST.md 1.10) */
    if (write_reference(st, err, errlen) != 0 || write_json(out, o->root, path, err, errlen) != 0 ||
        (st->pv && prov_output(st->pv, path, err, errlen) != 0) ||
        apref_write_manifest(o->root, prov, err, errlen) != 0 || (st->pv && prov_output(st->pv, man, err, errlen) != 0)) {
        json_decref(out);
        return -1;
    }
    if (st->pv) {
        char vb[64];
        train_version(vb, sizeof vb);
        prov_lib(st->pv, "xgboost", vb + 8);
        prov_facts(st->pv, json_pack("{s:f,s:f,s:f,s:i}", "train_s", st->t_train, "bootstrap_s", st->t_boot,
                                     "total_s", since(st->t_all), "threads", o->threads));
    }
    if (o->verbose)
        say_results(st, path);
    if (ap_out)
        *ap_out = out;
    else
        json_decref(out);
    return 0;
}

/* ================================================================ the stage */

int apc_stage(const apc_stage_opts *o, prov *pv, json_t **ap_out, char *err, size_t errlen)
{
    if (ap_out)
        *ap_out = NULL;
    if (o->seeds < 1 || o->boot_seeds < 1 || o->boot_seeds > o->seeds || o->resamples < 1) {
        ut_seterr(err, errlen, "need seeds >= 1, 1 <= boot-seeds <= seeds, resamples >= 1");
        return -1;
    }
    /* Until this run succeeds, no manifest vouches for a mix of old and new files. */
    char man[4400];
    provdir(o, man, sizeof man - 32);
    strcat(man, "/" PATH_AP_MANIFEST);
    remove(man);
    stage st = {0};
    st.o = o;
    st.pv = pv;
    st.t_all = ut_mono_ns();
    st.names = json_array();
    st.skipped = json_array();
    int rc = -1;
    if (read_arm_names(&st, err, errlen) == 0 && read_flooded(&st, err, errlen) == 0 &&
        prepread_load(o->prep, pv, &st.prep, err, errlen) == 0 &&
        load_arms(&st, err, errlen) == 0 && make_ctx(&st, err, errlen) == 0 && run_seeds(&st, err, errlen) == 0 &&
        apboot_finish(st.ctx, err, errlen) == 0 && write_results(&st, ap_out, err, errlen) == 0)
        rc = 0;
    stage_free(&st);
    return rc;
}
