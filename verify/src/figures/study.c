/* study: everything the verifier recomputes for one study root; see study.h. */
#include "study.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "stats.h"
#include "vpar.h"
#include "vutil.h"

/* the figures of "arms.<arm>" (RESULTS.md) */
static const int arm_figs[] = {
    F_P50_MS, F_P90_MS, F_P99_MS, F_P999_MS, F_MAX_MS, F_LIVE_SHARE, F_STANDIN_SHARE,
    F_LAST_KNOWN_SHARE, F_DEFAULT_SHARE, F_ERROR_SHARE, F_LOOKUPS_PER_REQUEST, F_SLOT_MS_PER_LOOKUP,
    F_SLOT_MS_PER_REQUEST, F_CUT_SHORT, F_LATE_P99_US, F_ANSWERS_PER_S,
    F_LOST, F_RETRIED_PERMANENT, F_WIN0 + OU_DURING_LOOKUPS_PER_REQUEST, F_WIN0 + OU_FIRST_LIVE_AFTER_MS,
    F_WIN0 + OU_RECOVERED_S, F_DF0 + DF_BRK_OPENED, F_DF0 + DF_BRK_TRANSITIONS, F_DF0 + DF_BRK_OPEN_MS,
    F_DF0 + DF_BRK_HALF_MS, F_DF0 + DF_BRK_CLOSED_MS, F_DF0 + DF_BUDGET_REFUSED, F_DF0 + DF_INFLIGHT_REFUSED,
    F_DF0 + DF_STORE_DURING0 + 2, F_DF0 + DF_STORE_DURING0 + 4 + 2, F_DF0 + DF_STORE_DURING0 + 4 + 3,
    F_DF0 + DF_STORE0 + 4 + 3, F_DF0 + DF_RECOVERY_LOOKUPS_100MS_MAX, F_DF0 + DF_BEFORE_LOOKUPS_100MS,
    F_FREEZES, F_FREEZE_SHARE, F_FALSE_TIMEOUTS, F_LONGEST_LINE, F_HEALTHY_TIMEOUTS, F_HEALTHY_TIMEOUT_SHARE,
    F_WIN0 + OU_DURING_STANDIN_SHARE, F_WIN0 + OU_DURING_P99_MS, F_WIN0 + OU_STORE1_DURING_BUSY,
    F_WIN0 + OU_STORE2_DURING_BUSY,
};
static const struct {
    const char *name;
    int fig;
} arm_totals[] = {
    {"n_total", F_N},           {"live_total", F_LIVE},       {"last_known_total", F_LAST_KNOWN},
    {"default_total", F_DEFAULT}, {"error_total", F_ERROR},   {"lookups_total", F_LOOKUPS},
    {"cut_short_total", F_CUT_SHORT},
};

static const study_arm *find_arm(const study *s, const char *arm)
{
    for (size_t i = 0; i < s->narms; i++)
        if (!strcmp(s->arms[i].arm, arm))
            return &s->arms[i];
    return NULL;
}

const rf_run *study_run(const study *s, const char *arm, int round)
{
    const study_arm *a = find_arm(s, arm);
    if (!a)
        return NULL;
    for (size_t i = 0; i < a->n; i++)
        if (s->runs[a->idx[i]].round == round)
            return &s->runs[a->idx[i]];
    return NULL;
}

static size_t cb_rounds(void *ctx, const char *arm, int *out, size_t max)
{
    const study *s = ctx;
    const study_arm *a = find_arm(s, arm);
    if (!a)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < a->n && n < max; i++) {
        int r = s->runs[a->idx[i]].round;
        if (n > 0 && out[n - 1] == r)
            continue; /* a duplicate run: the first counts */
        out[n++] = r;
    }
    return n;
}

static int cb_value(void *ctx, const char *arm, int round, int fig, double *v)
{
    const rf_run *r = study_run(ctx, arm, round);
    if (!r || fig < 0 || fig >= F_NFIG || !r->has[fig])
        return 0;
    *v = r->fig[fig];
    return 1;
}

pr_data study_pr_data(study *s)
{
    pr_data d = {s, cb_rounds, cb_value};
    return d;
}

static int cmp_run_ptr(const void *x, const void *y)
{
    const rf_run *a = x, *b = y;
    int c = strcmp(a->arm, b->arm);
    if (c)
        return c;
    if (a->round != b->round)
        return a->round < b->round ? -1 : 1;
    return strcmp(a->name, b->name);
}

static vj_node *num_or_null(double v, int count)
{
    if (!isfinite(v))
        return vj_new_null();
    if (count && v == floor(v) && fabs(v) < 9e15)
        return vj_new_int((long long)v);
    return vj_new_num(v);
}

static vj_node *arm_json(const study *s, const study_arm *a)
{
    vj_node *o = vj_new_obj();
    vj_node *rounds = vj_new_arr();
    int last = -1;
    for (size_t i = 0; i < a->n; i++) {
        int r = s->runs[a->idx[i]].round;
        if (i && r == last)
            continue;
        vj_arr_push(rounds, vj_new_int(r));
        last = r;
    }
    vj_obj_set(o, "rounds", rounds);
    vj_node *dist = vj_new_arr();
    for (size_t i = 0; i < a->nd; i++)
        if (!i || a->disturbed[i] != a->disturbed[i - 1])
            vj_arr_push(dist, vj_new_int(a->disturbed[i]));
    vj_obj_set(o, "rounds_disturbed", dist);
    double *v = vu_xmalloc((a->n + 1) * sizeof *v);
    for (size_t k = 0; k < sizeof arm_figs / sizeof arm_figs[0]; k++) {
        int f = arm_figs[k];
        size_t m = 0;
        for (size_t i = 0; i < a->n; i++) {
            const rf_run *r = &s->runs[a->idx[i]];
            if (r->has[f])
                v[m++] = r->fig[f];
        }
        if (m == 0) {
            vj_obj_set(o, rf_fig_name[f], vj_new_null());
            continue;
        }
        st_sort_d(v, m);
        int count = rf_fig_class(f) == RF_COUNT;
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "median", num_or_null(st_pct_d(v, m, 0.5), count));
        vj_obj_set(e, "min", num_or_null(v[0], count));
        vj_obj_set(e, "max", num_or_null(v[m - 1], count));
        vj_obj_set(o, rf_fig_name[f], e);
    }
    free(v);
    for (size_t k = 0; k < sizeof arm_totals / sizeof arm_totals[0]; k++) {
        long long t = 0;
        for (size_t i = 0; i < a->n; i++) {
            const rf_run *r = &s->runs[a->idx[i]];
            if (r->has[arm_totals[k].fig])
                t += (long long)r->fig[arm_totals[k].fig];
        }
        vj_obj_set(o, arm_totals[k].name, vj_new_int(t));
    }
    return o;
}

/* a tab-separated file with a fixed header; lines[i][k] are fields */
typedef struct {
    char *buf;
    char ***rows;
    long *lineno;
    size_t n;
} tsv;

static void tsv_free(tsv *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->rows[i]);
    free(t->rows);
    free(t->lineno);
    free(t->buf);
    memset(t, 0, sizeof *t);
}

static int tsv_read(const char *path, const char *const *cols, int ncol, tsv *t, char *sha, char *err,
                    size_t errlen)
{
    memset(t, 0, sizeof *t);
    unsigned char *b;
    size_t len;
    int rc = vu_read_file(path, &b, &len, err, errlen);
    if (rc)
        return rc;
    if (sha)
        vu_sha256_hex(b, len, sha);
    t->buf = (char *)b;
    char *p = t->buf, *end = p + len;
    long line = 0;
    size_t cap = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (e > p && e[-1] == '\r')
            e[-1] = 0;
        char **f = vu_xcalloc((size_t)ncol, sizeof *f);
        int nf = 0;
        char *q = p;
        for (;;) {
            char *tab = strchr(q, '\t');
            if (nf < ncol)
                f[nf] = q;
            nf++;
            if (!tab)
                break;
            *tab = 0;
            q = tab + 1;
        }
        int blank = !*p && nf == 1;
        if (blank) {
            free(f);
            p = e + 1;
            continue;
        }
        if (nf != ncol) {
            snprintf(err, errlen, "%s:%ld: %d fields, expected %d", path, line, nf, ncol);
            free(f);
            tsv_free(t);
            return EINVAL;
        }
        if (line == 1) {
            for (int k = 0; k < ncol; k++) {
                if (strcmp(f[k], cols[k])) {
                    snprintf(err, errlen, "%s:1: column %d is \"%s\", expected \"%s\"", path, k + 1, f[k],
                             cols[k]);
                    free(f);
                    tsv_free(t);
                    return EINVAL;
                }
            }
            free(f);
        } else {
            if (t->n == cap) {
                cap = cap ? 2 * cap : 32;
                t->rows = vu_xrealloc(t->rows, cap * sizeof *t->rows);
                t->lineno = vu_xrealloc(t->lineno, cap * sizeof *t->lineno);
            }
            t->rows[t->n] = f;
            t->lineno[t->n++] = line;
        }
        p = e + 1;
    }
    if (line == 0) {
        snprintf(err, errlen, "%s: empty file (no header)", path);
        tsv_free(t);
        return EINVAL;
    }
    return 0;
}

/* comparisons and guesses, read and parsed first: unusable input stops
 * before the long part.  0, or 2 with the file and line in err (nothing
 * left to free). */
static int read_questions(const char *comparisons_path, const char *guesses_path, const char *quiet_path,
                          const char *const *arms, size_t narms, study *s, tsv *comp, tsv *gue, pr_pred **preds,
                          char *err, size_t errlen)
{
    static const char *const ccols[] = {"a", "b", "figure", "note"};
    static const char *const gcols[] = {"id", "guess", "predicate"};
    if (qr_load(quiet_path, &s->rules, err, errlen))
        return 2;
    if (tsv_read(comparisons_path, ccols, 4, comp, NULL, err, errlen))
        return 2;
    for (size_t i = 0; i < comp->n; i++) {
        if (rf_fig_by_name(comp->rows[i][2]) < 0) {
            snprintf(err, errlen, "%s:%ld: unknown figure \"%s\"", comparisons_path, comp->lineno[i],
                     comp->rows[i][2]);
            tsv_free(comp);
            return 2;
        }
    }
    if (tsv_read(guesses_path, gcols, 3, gue, s->guesses_sha256, err, errlen)) {
        tsv_free(comp);
        return 2;
    }
    *preds = vu_xcalloc(gue->n + 1, sizeof **preds);
    for (size_t i = 0; i < gue->n; i++) {
        char perr[512];
        int bad = pr_parse(gue->rows[i][2], &(*preds)[i], perr, sizeof perr);
        if (!bad && pr_check_arms(&(*preds)[i], arms, narms, perr, sizeof perr)) {
            pr_free(&(*preds)[i]);
            bad = 1;
        }
        if (bad) {
            snprintf(err, errlen, "%s:%ld: predicate of %s: %s", guesses_path, gue->lineno[i], gue->rows[i][0],
                     perr);
            for (size_t k = 0; k < i; k++)
                pr_free(&(*preds)[k]);
            free(*preds);
            tsv_free(comp);
            tsv_free(gue);
            return 2;
        }
    }
    return 0;
}

/* one run of compute_runs (vpar.h: on any thread, its mismatches in order) */
typedef struct {
    const char *root;
    study *s;
    char **names;
    size_t *dirs;
    int *rc;
} runs_job;

static void one_run(void *ctx, size_t i)
{
    runs_job *j = ctx;
    const char *name = j->names[j->dirs[i]];
    rf_run *r = &j->s->runs[i];
    j->rc[i] = rf_compute(j->root, name, &j->s->ref, &j->s->rules, r);
    if (j->rc[i]) {
        char *m = vu_xasprintf("rejected: %s", r->reject);
        mm_add(NULL, name, "raw files", "(a run in results/raw/)", m);
        free(m);
    }
}

/* every folder of results/raw/: its figures, or its rejection (one
 * mismatch); sorted.  The runs are read in parallel (vpar.h).  0, or 2
 * when the folder cannot be listed */
static int compute_runs(const char *root, study *s, char *err, size_t errlen)
{
    char *rawdir = vu_xasprintf("%s/results/raw", root);
    char **names = NULL;
    size_t nn = 0;
    if (vu_list_dir(rawdir, &names, &nn, err, errlen)) {
        free(rawdir);
        return 2;
    }
    s->runs = vu_xcalloc(nn + 1, sizeof *s->runs);
    size_t *dirs = vu_xcalloc(nn + 1, sizeof *dirs);
    for (size_t i = 0; i < nn; i++) {
        char *p = vu_xasprintf("%s/%s", rawdir, names[i]);
        if (vu_is_dir(p))
            dirs[s->nruns++] = i;
        free(p);
    }
    runs_job j = {root, s, names, dirs, vu_xcalloc(s->nruns + 1, sizeof(int))};
    vp_for(s->nruns, one_run, &j);
    for (size_t i = 0; i < s->nruns; i++) {
        if (j.rc[i])
            s->rejected++;
        s->answers_checked += s->runs[i].answers_checked;
    }
    free(j.rc);
    free(dirs);
    vu_free_names(names, nn);
    free(rawdir);
    qsort(s->runs, s->nruns, sizeof *s->runs, cmp_run_ptr);
    return 0;
}

/* an attempt's folder name <run>-a<N> (N >= 1, no leading zero): N and
 * the run in run, or 0 */
static int attempt_name(const char *name, char *run, size_t len)
{
    const char *a = strrchr(name, '-');
    if (!a || a == name || a[1] != 'a' || a[2] < '1' || a[2] > '9' || (size_t)(a - name) >= len)
        return 0;
    long n = 0;
    for (const char *q = a + 2; *q; q++) {
        if (*q < '0' || *q > '9' || n > 1000000)
            return 0;
        n = n * 10 + (*q - '0');
    }
    memcpy(run, name, (size_t)(a - name));
    run[a - name] = 0;
    return (int)n;
}

/* one folder of results/attempts/ (vpar.h: on any thread, its mismatches in order) */
typedef struct {
    const char *root;
    study *s;
    char **names;
    rf_run *r;      /* [i]: folder i's figures, when read[i] */
    unsigned char *read;
} attempts_job;

static void one_attempt(void *ctx, size_t i)
{
    attempts_job *j = ctx;
    char *p = vu_xasprintf("%s/" RF_ATTEMPTS "/%s", j->root, j->names[i]), where[600], run[256];
    int isdir = vu_is_dir(p);
    free(p);
    snprintf(where, sizeof where, RF_ATTEMPTS "/%s", j->names[i]);
    int n = attempt_name(j->names[i], run, sizeof run);
    if (!isdir || !n) {
        mm_add(NULL, where, isdir ? "folder name" : "file", j->names[i],
               "only folders <run>-a<N>, N = 1, 2, ... (RESULTS.md)");
        return;
    }
    j->read[i] = 1;
    rf_run *r = &j->r[i];
    if (rf_compute_in(j->root, RF_ATTEMPTS, j->names[i], run, n, &j->s->ref, &j->s->rules, r)) {
        char *m = vu_xasprintf("rejected: %s", r->reject);
        mm_add(NULL, where, "raw files", "(an attempt in results/attempts/)", m);
        free(m);
    }
}

/* every folder of results/attempts/ (RESULTS.md, "attempts measured
 * again"): its figures, or its rejection; none when the folder is absent.
 * The folders are read in parallel (vpar.h) */
static void compute_attempts(const char *root, study *s)
{
    char *dir = vu_xasprintf("%s/" RF_ATTEMPTS, root);
    char **names = NULL, err[512];
    size_t nn = 0;
    if (!vu_is_dir(dir) || vu_list_dir(dir, &names, &nn, err, sizeof err)) {
        free(dir);
        return;
    }
    attempts_job j = {root, s, names, vu_xcalloc(nn + 1, sizeof(rf_run)), vu_xcalloc(nn + 1, 1)};
    vp_for(nn, one_attempt, &j);
    s->attempts = vu_xcalloc(nn + 1, sizeof *s->attempts);
    for (size_t i = 0; i < nn; i++)
        if (j.read[i]) {
            s->attempts[s->nattempts] = j.r[i];
            s->answers_checked += s->attempts[s->nattempts++].answers_checked;
        }
    free(j.r);
    free(j.read);
    vu_free_names(names, nn);
    free(dir);
    qsort(s->attempts, s->nattempts, sizeof *s->attempts, cmp_run_ptr);
}

/* arms: accepted runs grouped by arm, in round order; the quiet ones in
 * idx, the rounds of the others in disturbed */
static void group_arms(study *s)
{
    s->arms = vu_xcalloc(s->nruns + 1, sizeof *s->arms);
    for (size_t i = 0; i < s->nruns; i++) {
        rf_run *r = &s->runs[i];
        if (!r->ok)
            continue;
        study_arm *a = (study_arm *)find_arm(s, r->arm);
        if (!a) {
            a = &s->arms[s->narms++];
            snprintf(a->arm, sizeof a->arm, "%s", r->arm);
            a->idx = vu_xcalloc(s->nruns, sizeof *a->idx);
            a->disturbed = vu_xcalloc(s->nruns, sizeof *a->disturbed);
        }
        if (a->last_round == r->round) {
            char what[64];
            snprintf(what, sizeof what, "round %d", r->round);
            mm_add(NULL, r->name, what, "a second run of this arm and round",
                   "one run per arm and round (the first folder counts)");
        }
        /* study.h: an arm's runs in round order (disturbed ascending) */
        assert((a->n == 0 && a->nd == 0) || a->last_round <= r->round);
        a->last_round = r->round;
        if (r->quiet)
            a->idx[a->n++] = i;
        else
            a->disturbed[a->nd++] = r->round;
    }
}

/* one verdict per line of the comparisons file, in order (kept in s) */
static vj_node *verdicts_json(study *s, const tsv *comp, pr_data *d)
{
    vj_node *verdicts = vj_new_arr();
    s->verdicts = vu_xcalloc(comp->n + 1, sizeof *s->verdicts);
    s->nverdicts = comp->n;
    for (size_t i = 0; i < comp->n; i++) {
        char **f = comp->rows[i];
        int fig = rf_fig_by_name(f[2]);
        pr_verdict *v = &s->verdicts[i];
        pr_verdict_compute(d, f[0], f[1], fig, v);
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "a", vj_new_str(f[0]));
        vj_obj_set(e, "b", vj_new_str(f[1]));
        vj_obj_set(e, "figure", vj_new_str(f[2]));
        vj_obj_set(e, "note", vj_new_str(f[3]));
        vj_node *rr = vj_new_arr(), *dd = vj_new_arr();
        int count = rf_fig_class(fig) == RF_COUNT;
        for (size_t k = 0; k < v->n; k++) {
            vj_arr_push(rr, vj_new_int(v->rounds[k]));
            vj_arr_push(dd, v->has[k] ? num_or_null(v->diffs[k], count) : vj_new_null());
        }
        vj_obj_set(e, "rounds", rr);
        vj_obj_set(e, "diffs", dd);
        vj_obj_set(e, "verdict", vj_new_str(v->clearly ? "clearly different" : "too close to call"));
        vj_obj_set(e, "direction", v->dir > 0 ? vj_new_str("a>b") : v->dir < 0 ? vj_new_str("a<b") : vj_new_null());
        vj_arr_push(verdicts, e);
    }
    return verdicts;
}

/* one judgement per line of the guesses file, in order */
static vj_node *guesses_json(const tsv *gue, const pr_pred *preds, pr_data *d)
{
    vj_node *guesses = vj_new_arr();
    for (size_t i = 0; i < gue->n; i++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "id", vj_new_str(gue->rows[i][0]));
        vj_obj_set(e, "predicate", vj_new_str(gue->rows[i][2]));
        vj_node *cl = vj_new_arr();
        int right = 1;
        for (size_t k = 0; k < preds[i].n; k++) {
            int t = pr_eval_clause(&preds[i].c[k], d);
            right &= t;
            vj_arr_push(cl, vj_new_bool(t));
        }
        vj_obj_set(e, "right", vj_new_bool(right));
        vj_obj_set(e, "clauses", cl);
        vj_arr_push(guesses, e);
    }
    return guesses;
}

int study_compute(const char *root, const char *guesses_path, const char *comparisons_path,
                  const char *quiet_path, const char *const *arms, size_t narms, study *s, char *err,
                  size_t errlen)
{
    memset(s, 0, sizeof *s);
    snprintf(s->root, sizeof s->root, "%s", root);
    if (ref_load(root, &s->ref, err, errlen))
        return 2;
    tsv comp, gue;
    pr_pred *preds = NULL;
    if (read_questions(comparisons_path, guesses_path, quiet_path, arms, narms, s, &comp, &gue, &preds, err, errlen))
        return 2;
    int rc = compute_runs(root, s, err, errlen);
    if (rc == 0)
        compute_attempts(root, s);
    if (rc == 0) {
        group_arms(s);
        s->mine = vj_new_obj();
        vj_obj_set(s->mine, "format", vj_new_str("lab-results 1"));
        vj_node *runs = vj_new_obj();
        for (size_t i = 0; i < s->nruns; i++)
            if (s->runs[i].ok)
                vj_obj_set(runs, s->runs[i].name, rf_to_json(&s->runs[i]));
        vj_obj_set(s->mine, "runs", runs);
        /* attempts count in nothing below: their figures alone */
        vj_node *att = vj_new_obj();
        for (size_t i = 0; i < s->nattempts; i++)
            if (s->attempts[i].ok)
                vj_obj_set(att, s->attempts[i].name, rf_to_json(&s->attempts[i]));
        vj_obj_set(s->mine, "attempts", att);
        vj_node *arms = vj_new_obj();
        for (size_t i = 0; i < s->narms; i++)
            vj_obj_set(arms, s->arms[i].arm, arm_json(s, &s->arms[i]));
        vj_obj_set(s->mine, "arms", arms);
        pr_data d = study_pr_data(s);
        vj_obj_set(s->mine, "verdicts", verdicts_json(s, &comp, &d));
        vj_obj_set(s->mine, "guesses", guesses_json(&gue, preds, &d));
    }
    for (size_t k = 0; k < gue.n; k++)
        pr_free(&preds[k]);
    free(preds);
    tsv_free(&comp);
    tsv_free(&gue);
    return rc;
}

void study_free(study *s)
{
    for (size_t i = 0; i < s->nruns; i++)
        rf_free(&s->runs[i]);
    free(s->runs);
    for (size_t i = 0; i < s->nattempts; i++)
        rf_free(&s->attempts[i]);
    free(s->attempts);
    for (size_t i = 0; i < s->narms; i++) {
        free(s->arms[i].idx);
        free(s->arms[i].disturbed);
    }
    free(s->arms);
    free(s->verdicts);
    vj_free(s->mine);
    ref_free(&s->ref);
    memset(s, 0, sizeof *s);
}
