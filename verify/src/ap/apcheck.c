/* apcheck: results/ap.json checked against the verifier's own recomputation of all of it; see apcheck.h. */
#include "apcheck.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aparmcmp.h"
#include "apcmp.h"
#include "apfiles.h"
#include "apfull.h"
#include "aparm.h"
#include "apseeds.h"
#include "aptable.h"
#include "mism.h"
#include "vfiles.h"
#include "vpar.h"
#include "vutil.h"

/* ------------------------------------------------------ the chosen arms */

typedef struct {
    char **arm;
    size_t n;
} arm_list;

static void list_free(arm_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->arm[i]);
    free(l->arm);
    memset(l, 0, sizeof *l);
}

static int list_has(const arm_list *l, const char *a)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->arm[i], a))
            return 1;
    return 0;
}

static void list_add(arm_list *l, const char *a)
{
    if (list_has(l, a))
        return;
    l->arm = vu_xrealloc(l->arm, (l->n + 1) * sizeof *l->arm);
    l->arm[l->n++] = vu_xstrdup(a);
}

static int read_arms_file(const char *path, arm_list *l, char *err, size_t errlen)
{
    unsigned char *b;
    size_t len;
    int rc = vu_read_file(path, &b, &len, err, errlen);
    if (rc)
        return rc;
    char *p = (char *)b, *end = p + len;
    long line = 0;
    int header = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (e > p && e[-1] == '\r')
            e[-1] = 0;
        char *s = p;
        p = e < end ? e + 1 : end;
        if (!header) {
            if (strcmp(s, "arm")) {
                snprintf(err, errlen, "%s:%ld: header is \"%.40s\", expected \"arm\"", path, line, s);
                free(b);
                return EINVAL;
            }
            header = 1;
            continue;
        }
        if (!*s || *s == '#')
            continue;
        if (strchr(s, '\t') || strchr(s, ' ') || strchr(s, '/')) {
            snprintf(err, errlen, "%s:%ld: \"%.60s\" is not an arm name", path, line, s);
            free(b);
            return EINVAL;
        }
        list_add(l, s);
    }
    free(b);
    if (!header) {
        snprintf(err, errlen, "%s: empty file (no header \"arm\")", path);
        return EINVAL;
    }
    return 0;
}

int ap_arms_file_check(const char *arms_path, char *err, size_t errlen)
{
    if (!arms_path || !vu_is_file(arms_path))
        return 0;
    arm_list l = {0};
    int rc = read_arms_file(arms_path, &l, err, errlen);
    list_free(&l);
    return rc ? -1 : 0;
}

/* ------------------------------------------------------------ ap_check */

static const char *const TOP_MEMBERS[] = {"format", "definitions", "test_rows", "customers", "cutoffs",
                                          "default_score", "kinds", "model_seeds", "default_seed", "live_ap",
                                          "bootstrap", "arms", "skipped_arms", NULL};
/* format lab-ap 2 (APCOST.md 1.7): flooded_runs too */
static const char *const TOP_MEMBERS2[] = {"format", "definitions", "test_rows", "customers", "cutoffs",
                                           "default_score", "kinds", "model_seeds", "default_seed", "live_ap",
                                           "bootstrap", "arms", "skipped_arms", "flooded_runs", NULL};

static const char *RECOMPUTED =
    "everything in results/ap.json, from results/reference/ (scores.tsv, summary.json and the scores of every "
    "model seed in ap_scores.tsv.gz and ap_prev_scores.tsv.gz, their last_known checked against the same "
    "customer's score a month earlier), the raw tester files and the bootstrap's generator of APCOST.md 1.11: "
    "test_rows, customers, cutoffs, default_score, each chosen arm's rounds, counts and shares, every seed's "
    "live AP and changes per round and per arm, the means over the seeds, every resample's change (also "
    "against results/ap_resamples.tsv.gz), the intervals, the verdicts and directions; seed 1's numbers from "
    "scores.tsv with the verifier's direct AP code, the other seeds' and the resamples' with its fast one";
static const char *SEED1_ONLY =
    "seed 1 (the default seed: scores.tsv's score and last_known, summary.json's default_score), from "
    "results/reference/ and the raw tester files: test_rows, customers, cutoffs, default_score, "
    "live_ap.default_seed, each chosen arm's rounds, requests_per_round, per-round counts, shares, "
    "ap_default_seed and change_default_seed, the per-arm counts and shares and kinds.*.change_default_seed "
    "(the scores of the other seeds were missing or malformed: a mismatch)";
static const char *FORMAT2 =
    "format lab-ap 2 (APCOST.md 1.5, 1.7, 1.11-1.13): each resample also draws every chosen arm's rounds with "
    "replacement from the arm's own generator (seed bootstrap.seed XOR FNV-1a-64 of the arm's name), each "
    "bound's Monte Carlo error ci95_mc recomputed and compared (also against the percentiles of the lab's own "
    "resample values), the verdict clearly different only when hi + e_hi < 0 or lo - e_lo > 0, and "
    "flooded_runs: exactly the study's quiet flooded runs of arms without a fault (the verifier's own flooded "
    "and quiet of each run, and run.json's fault.name none: a store down or hanging is an outage, not a flood), "
    "each recomputed as an arm of one round with M = its own requests";
static const char *COPIED =
    "ap.json's own numbers as the lab wrote them, for the report: model_seeds, bootstrap, live_ap.mean and "
    "per_seed, kinds.*.change, change_per_seed, ci95, verdict, direction (format 2: and ci95_mc), skipped_arms "
    "(format 2: and flooded_runs, whole); each is compared with "
    "the verifier's recomputation (the same members under ap.*), so without a mismatch they agree within "
    "1e-12";

/* one ap.json check: what the steps below read and leave for the next */
typedef struct {
    const char *root;
    const ref_data *ref;
    vj_node *lab;                 /* ap.json */
    ap_table t;                   /* the test table of scores.tsv */
    size_t S;                     /* ap.json's model seeds; 0 when model_seeds is malformed */
    double L1;                    /* the live AP of seed 1, recomputed */
    double lab_L;                 /* ap.json's live_ap.default_seed, NaN when absent */
    const vj_node *la, *bs;       /* ap.json's live_ap and bootstrap (NULL when not objects) */
    const vj_node *larms, *lskip; /* ap.json's arms (NULL when not an object) and skipped_arms */
    arm_list chosen;              /* the chosen arms, in order */
    const char *chosen_from;      /* the file they came from, or ap.json */
    char *chosen_path;
    ap_arm *arms;                 /* the chosen arms with runs, in order */
    size_t na;
    arm_list skipped;             /* the chosen arms without runs */
    apf_data f;                   /* the files of APCOST.md 1.10 */
    aps_index x;                  /* customers and previous months */
    long long with_lk;            /* rows with a previous-cutoff score, -1 unknown */
    apfull_in fin;                /* the whole result recomputed */
    apfull_out full;
    int fmt;                      /* 2: "lab-ap 2"; 1: "lab-ap 1" (and any other format: a mismatch) */
    const ap_run_state *runs;     /* the study's runs as the verifier judged them */
    size_t nruns;
    ap_arm *flood;                /* format 2: the quiet flooded runs without a fault, by name (byte order) */
    size_t nf;
    size_t nout;                  /* format 2: quiet flooded runs of arms with a fault, left out (outages) */
    const vj_node *lflood;        /* ap.json's flooded_runs (NULL when not an object) */
} apc;

/* read ap.json and the test table: 0, or -1 with checks.ap's note set */
static int read_inputs(apc *c, const char *path, vj_node *st)
{
    char err[6144];
    const char *note = NULL;
    if (vj_parse_file(path, &c->lab, err, sizeof err)) {
        mm_add(NULL, "ap.json", "(the file)", err, "readable JSON (APCOST.md 1.7)");
        note = "results/ap.json is not readable JSON";
    } else if (c->lab->type != VJ_OBJ) {
        apcmp_mm("(top level)", c->lab, "an object (APCOST.md 1.7)");
        note = "results/ap.json is not an object";
    } else if (ap_table_load(c->ref->scores_path, &c->t, err, sizeof err) || c->t.n != c->ref->rows) {
        if (c->t.n != c->ref->rows)
            snprintf(err, sizeof err, "%s: rows differ between two readings", c->ref->scores_path);
        mm_add(NULL, "ap.json", "(the test table)", "(ap.json present)", err);
        note = "the reference scores.tsv could not be read for the AP check";
    }
    if (!note)
        return 0;
    vj_obj_set(st, "checked", vj_new_bool(0));
    vj_obj_set(st, "note", vj_new_str(note));
    return -1;
}

static void check_cutoffs(const apc *c)
{
    const vj_node *cut = vj_get(c->lab, "cutoffs");
    int ok = cut && cut->type == VJ_ARR && cut->n == c->t.ncut;
    for (size_t i = 0; ok && i < c->t.ncut; i++)
        ok = cut->items[i]->type == VJ_STR && !strcmp(cut->items[i]->text, c->t.cutoffs[i]);
    if (ok)
        return;
    vu_buf b = {0};
    for (size_t i = 0; i < c->t.ncut; i++)
        vu_buf_printf(&b, "%s%s", i ? " " : "", c->t.cutoffs[i]);
    if (!b.p)
        vu_buf_puts(&b, "");
    char *m = vu_xasprintf("%zu: %s", c->t.ncut, b.p);
    apcmp_mm("cutoffs", cut, m);
    free(m);
    vu_buf_free(&b);
}

/* summary.json's model_seed must be 1 (APCOST.md 1.1) when it says */
static void check_summary_seed(const apc *c)
{
    char err[6144];
    char *sp = vu_xasprintf("%s/results/reference/summary.json", c->root);
    vj_node *sum = NULL;
    if (!vj_parse_file(sp, &sum, err, sizeof err)) {
        const vj_node *m = vj_get(sum, "model_seed");
        if (m && !(apcmp_is_num(m) && m->num == 1)) {
            char l[64];
            vj_scalar_text(m, l, sizeof l);
            mm_add(NULL, "results/reference/summary.json", "model_seed", l, "1 (APCOST.md 1.1: seed 1 is the reference)");
        }
    }
    vj_free(sum);
    free(sp);
}

/* the top level: members, the test table's numbers, kinds, seeds (sets S) */
static void check_top(apc *c)
{
    const vj_node *lab = c->lab;
    /* APCOST.md 1.7: "lab-ap 2" from 2026-12-02; "lab-ap 1" the study published on 2026-12-01 */
    const vj_node *fm = vj_get(lab, "format");
    c->fmt = fm && fm->type == VJ_STR && !strcmp(fm->text, "lab-ap 2") ? 2 : 1;
    if (!(fm && fm->type == VJ_STR && (!strcmp(fm->text, "lab-ap 1") || !strcmp(fm->text, "lab-ap 2"))))
        apcmp_mm("format", fm, "\"lab-ap 1\" or \"lab-ap 2\" (APCOST.md 1.7; checked as lab-ap 1)");
    apcmp_members("", lab, c->fmt >= 2 ? TOP_MEMBERS2 : TOP_MEMBERS);
    apcmp_str("definitions", vj_get(lab, "definitions"), "pipeline/APCOST.md");
    apcmp_count("test_rows", vj_get(lab, "test_rows"), (long long)c->t.n);
    apcmp_count("customers", vj_get(lab, "customers"), (long long)c->t.customers);
    check_cutoffs(c);
    apcmp_num("default_score", vj_get(lab, "default_score"), (double)c->ref->default_score, 0,
            "(summary.json's default_score as a 32-bit float)");
    const vj_node *k = vj_get(lab, "kinds");
    int ok = k && k->type == VJ_ARR && k->n == AP_NKINDS;
    for (int i = 0; ok && i < AP_NKINDS; i++)
        ok = k->items[i]->type == VJ_STR && !strcmp(k->items[i]->text, ap_kinds[i]);
    if (!ok)
        apcmp_mm("kinds", k, "[\"last_known\", \"default\", \"none\"]");
    apcmp_count("default_seed", vj_get(lab, "default_seed"), 1);
    const vj_node *ms = vj_get(lab, "model_seeds");
    ok = ms && ms->type == VJ_ARR && ms->n > 0;
    for (size_t i = 0; ok && i < ms->n; i++)
        ok = apcmp_is_num(ms->items[i]) && ms->items[i]->num == (double)(i + 1);
    if (!ok)
        apcmp_mm("model_seeds", ms, "[1, 2, ..., S] (APCOST.md 1.3)");
    else
        c->S = ms->n;
    check_summary_seed(c);
}

/* live_ap: seed 1 recomputed (sets L1 and lab_L); its members */
static void check_live(apc *c)
{
    double *live = vu_xmalloc((c->t.n + 1) * sizeof *live);
    for (size_t i = 0; i < c->t.n; i++)
        live[i] = c->ref->score[i];
    c->L1 = ap_mean_by_cutoff(&c->t, live);
    free(live);
    if (isnan(c->L1))
        printf("NOTE ap.json: some cutoff of scores.tsv has no buyer: its AP is undefined\n");
    const vj_node *la = c->la = apcmp_need("", c->lab, "live_ap", VJ_OBJ);
    c->lab_L = NAN;
    if (apcmp_is_num(vj_get(la, "default_seed")))
        c->lab_L = vj_get(la, "default_seed")->num;
    if (!la)
        return;
    static const char *const LM[] = {"default_seed", "mean", "per_seed", NULL};
    apcmp_members("live_ap", la, LM);
    apcmp_num("live_ap.default_seed", vj_get(la, "default_seed"), c->L1, APCMP_AP_TOL, NULL);
}

/* live_ap.per_seed and mean when the other seeds could not be recomputed:
 * seed 1 recomputed, the mean the mean of the list */
static void check_live_consistency(const apc *c)
{
    const vj_node *la = c->la;
    if (!la)
        return;
    const vj_node *ps = vj_get(la, "per_seed");
    int ok = ps && ps->type == VJ_ARR && ps->n > 0;
    for (size_t i = 0; ok && i < ps->n; i++)
        ok = apcmp_is_num(ps->items[i]);
    if (!ok) {
        apcmp_mm("live_ap.per_seed", ps, "a list of numbers, one per model seed");
        return;
    }
    if (c->S && ps->n != c->S) {
        char l[64], m[96];
        snprintf(l, sizeof l, "%zu entries", ps->n);
        snprintf(m, sizeof m, "%zu entries (one per model_seeds)", c->S);
        mm_add(NULL, "ap.json", "live_ap.per_seed (length)", l, m);
    }
    apcmp_num("live_ap.per_seed[0]", ps->items[0], c->L1, APCMP_AP_TOL, "(seed 1, recomputed)");
    double s = 0;
    for (size_t i = 0; i < ps->n; i++)
        s += ps->items[i]->num;
    apcmp_num("live_ap.mean", vj_get(la, "mean"), s / (double)ps->n, APCMP_AP_TOL, "(the mean of per_seed)");
}

/* the reference scores (APCOST.md 1.3, 1.10): every seed's last_known when
 * ap_scores.tsv.gz was read, else scores.tsv's (seed 1) */
static void check_reference(apc *c)
{
    if (c->f.scores_ok) {
        c->with_lk = aps_check_rule(&c->t, &c->x, c->f.S, (const float *const *)c->f.live,
                                    (const float *const *)c->f.lastk, c->ref->default_score, &c->f,
                                    c->ref->rows_with_lk, APF_SCORES);
    } else {
        const float *lv[1] = {c->ref->score}, *lk[1] = {c->ref->last_known};
        c->with_lk = aps_check_rule(&c->t, &c->x, 1, lv, lk, c->ref->default_score, &c->f, c->ref->rows_with_lk,
                                    "results/reference/scores.tsv");
    }
}

/* bootstrap: only its form (the lab's generator is not redone here) */
static void check_bootstrap(apc *c)
{
    const vj_node *bs = c->bs = apcmp_need("", c->lab, "bootstrap", VJ_OBJ);
    if (!bs)
        return;
    static const char *const BM[] = {"resamples", "seed", "model_seeds", "used", "interval", NULL};
    static const char *const BM2[] = {"resamples", "seed", "model_seeds", "used", "interval", "rounds_resampled",
                                      NULL};
    apcmp_members("bootstrap", bs, c->fmt >= 2 ? BM2 : BM);
    if (c->fmt >= 2) {
        const vj_node *rr = vj_get(bs, "rounds_resampled");
        if (!rr || rr->type != VJ_BOOL || !rr->b)
            apcmp_mm("bootstrap.rounds_resampled", rr, "true (format lab-ap 2: APCOST.md 1.5, 1.7)");
    }
    const vj_node *rs = vj_get(bs, "resamples"), *sd = vj_get(bs, "seed"), *bm = vj_get(bs, "model_seeds"),
                  *us = vj_get(bs, "used");
    if (!(apcmp_is_num(rs) && rs->is_int && rs->i >= 1))
        apcmp_mm("bootstrap.resamples", rs, "an integer >= 1");
    if (!(apcmp_is_num(sd) && sd->is_int))
        apcmp_mm("bootstrap.seed", sd, "an integer");
    if (!(apcmp_is_num(bm) && bm->is_int && bm->i >= 1 && (!c->S || (size_t)bm->i <= c->S))) {
        char m[96];
        snprintf(m, sizeof m, "an integer from 1 to %zu (the model seeds)", c->S);
        apcmp_mm("bootstrap.model_seeds", bm, m);
    }
    if (!(apcmp_is_num(us) && us->is_int && us->i >= 0 && (!apcmp_is_num(rs) || us->num <= rs->num)))
        apcmp_mm("bootstrap.used", us, "an integer from 0 to resamples");
    apcmp_str("bootstrap.interval", vj_get(bs, "interval"), "percentiles 2.5 and 97.5");
}

/* the chosen arms: the chosen-arms file when there is one, else ap.json's
 * own arms and skipped_arms (with a NOTE) */
static void choose_arms(apc *c, const char *arms_path)
{
    char err[6144];
    c->larms = apcmp_need("", c->lab, "arms", VJ_OBJ);
    c->lskip = vj_get(c->lab, "skipped_arms");
    if (!c->lskip || c->lskip->type != VJ_ARR)
        apcmp_mm("skipped_arms", c->lskip, "a list of arm names (APCOST.md 1.7)");
    if (arms_path && vu_is_file(arms_path)) {
        if (read_arms_file(arms_path, &c->chosen, err, sizeof err)) {
            mm_add(NULL, "ap.json", "(the chosen arms)", "(ap.json present)", err);
            list_free(&c->chosen);
        }
        c->chosen_path = vf_shown(arms_path); /* relative to the root: no path of the machine */
        c->chosen_from = c->chosen_path;
        return;
    }
    printf("NOTE ap.json: no chosen-arms file%s%s: the arms are taken from ap.json's arms and skipped_arms\n",
           arms_path ? " at " : "", arms_path ? arms_path : "");
    for (size_t i = 0; c->larms && i < c->larms->n; i++)
        list_add(&c->chosen, c->larms->keys[i]);
    for (size_t i = 0; c->lskip && c->lskip->type == VJ_ARR && i < c->lskip->n; i++)
        if (c->lskip->items[i]->type == VJ_STR)
            list_add(&c->chosen, c->lskip->items[i]->text);
    c->chosen_from = "ap.json (its arms and skipped_arms)";
}

/* the runs of each chosen arm in results/raw/: arms with runs, skipped without */
static void find_runs(apc *c)
{
    char err[6144];
    char *rawdir = vu_xasprintf("%s/results/raw", c->root);
    char **names = NULL;
    size_t nn = 0;
    if (vu_list_dir(rawdir, &names, &nn, err, sizeof err))
        printf("NOTE ap.json: %s\n", err);
    c->arms = vu_xcalloc(c->chosen.n + 1, sizeof *c->arms);
    for (size_t i = 0; i < c->chosen.n; i++) {
        ap_arm a;
        ap_arm_find(rawdir, names, nn, c->chosen.arm[i], &a);
        if (a.nr == 0) {
            list_add(&c->skipped, c->chosen.arm[i]);
            ap_arm_free(&a);
            continue;
        }
        c->arms[c->na++] = a;
    }
    vu_free_names(names, nn);
    free(rawdir);
}

/* ap.json's arms: the chosen arms with runs, no other, in the chosen order */
static void check_arm_set(const apc *c)
{
    const vj_node *larms = c->larms;
    if (larms && larms->n == 0 && c->na == 0)
        apcmp_mm("arms", larms, "at least one arm (APCOST.md 1.1: with no chosen arm that has runs the stage fails)");
    if (!larms)
        return;
    for (size_t i = 0; i < c->na; i++)
        if (!vj_get(larms, c->arms[i].arm)) {
            char w[512], m[256];
            snprintf(w, sizeof w, "arms.%s", c->arms[i].arm);
            snprintf(m, sizeof m, "a chosen arm with %zu runs in results/raw/", c->arms[i].nr);
            mm_add(NULL, "ap.json", w, "(absent)", m);
        }
    for (size_t i = 0; i < larms->n; i++) {
        int mine = 0;
        for (size_t k = 0; k < c->na && !mine; k++)
            mine = !strcmp(c->arms[k].arm, larms->keys[i]);
        if (mine)
            continue;
        char w[512];
        snprintf(w, sizeof w, "arms.%s", larms->keys[i]);
        mm_add(NULL, "ap.json", w, "(present)",
               list_has(&c->chosen, larms->keys[i]) ? "(a chosen arm without runs in results/raw/: skipped)"
                                                    : "(not a chosen arm)");
    }
    /* the order, when both hold the same arms */
    int same = larms->n == c->na, order = 1;
    for (size_t i = 0; same && i < c->na; i++)
        order &= !strcmp(larms->keys[i], c->arms[i].arm);
    if (same && !order) {
        vu_buf l = {0}, m = {0};
        for (size_t i = 0; i < c->na; i++) {
            vu_buf_printf(&l, "%s%s", i ? " " : "", larms->keys[i]);
            vu_buf_printf(&m, "%s%s", i ? " " : "", c->arms[i].arm);
        }
        vu_buf_puts(&m, " (the order of the chosen arms)");
        mm_add(NULL, "ap.json", "arms (order)", l.p, m.p);
        vu_buf_free(&l);
        vu_buf_free(&m);
    }
}

/* ap.json's skipped_arms: the chosen arms without runs, as a set */
static void check_skipped(const apc *c)
{
    const vj_node *lskip = c->lskip;
    if (!lskip || lskip->type != VJ_ARR)
        return;
    int ok = lskip->n == c->skipped.n;
    for (size_t i = 0; ok && i < lskip->n; i++)
        ok = lskip->items[i]->type == VJ_STR && list_has(&c->skipped, lskip->items[i]->text);
    if (ok)
        return;
    vu_buf l = {0}, m = {0};
    vu_buf_puts(&l, "[");
    for (size_t i = 0; i < lskip->n; i++) {
        char x[256];
        vj_scalar_text(lskip->items[i], x, sizeof x);
        vu_buf_printf(&l, "%s%s", i ? ", " : "", x);
    }
    vu_buf_puts(&l, "]");
    vu_buf_puts(&m, "[");
    for (size_t i = 0; i < c->skipped.n; i++)
        vu_buf_printf(&m, "%s\"%s\"", i ? ", " : "", c->skipped.arm[i]);
    vu_buf_puts(&m, "] (the chosen arms without runs)");
    mm_add(NULL, "ap.json", "skipped_arms", l.p, m.p);
    vu_buf_free(&l);
    vu_buf_free(&m);
}

/* ap_arm_compute of arms[i], for vp_for (vpar.h: each arm its own, the
 * table and the reference only read, its mismatches replayed in order) */
typedef struct {
    apc *c;
    ap_arm *arms;
} arm_job;

static void one_arm(void *ctx, size_t i)
{
    arm_job *j = ctx;
    ap_arm_compute(j->c->root, &j->c->t, j->c->ref, j->c->L1, &j->arms[i]);
}

/* ap_arm_compute of arms[0 .. n) in parallel; a round that is a run whose
 * tester file was read whole takes its kinds from there (aparm.h) */
static void compute_all(apc *c, ap_arm *arms, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < arms[i].nr; k++)
            for (size_t q = 0; q < c->nruns; q++)
                if (c->runs[q].kinds && !strcmp(c->runs[q].name, arms[i].r[k].name)) {
                    arms[i].r[k].given = c->runs[q].kinds;
                    arms[i].r[k].ngiven = c->runs[q].nkinds;
                    break;
                }
    arm_job j = {c, arms};
    vp_for(n, one_arm, &j);
}

/* recompute every arm with runs and compare it with ap.json's: the
 * recomputed arms, in ap.json's layout */
static void compute_arms(apc *c)
{
    compute_all(c, c->arms, c->na);
}

/* ---------------------------------------------- flooded_runs (format 2) */

static int cmp_flood(const void *x, const void *y)
{
    return strcmp(((const ap_arm *)x)->arm, ((const ap_arm *)y)->arm);
}

/* a run of flooded_runs (APCOST.md 1.5, 1.13): judged (not rejected),
 * flooded, quiet, and of an arm without a fault (run.json's fault.name
 * "none"; a fault that could not be read: no flooded run) */
static int is_flood(const ap_run_state *r)
{
    return r->ok && r->flooded && r->quiet && r->fault && !strcmp(r->fault, "none");
}

/* APCOST.md 1.5 "At a flood's stand-in share": every quiet flooded run of
 * the study of an arm without a fault, chosen or not, each recomputed alone
 * as an arm of one round with M = its own requests; in byte order of the
 * name (1.7) */
static void find_floods(apc *c)
{
    c->lflood = NULL;
    if (c->fmt < 2)
        return;
    c->lflood = apcmp_need("", c->lab, "flooded_runs", VJ_OBJ);
    c->flood = vu_xcalloc(c->nruns + 1, sizeof *c->flood);
    for (size_t i = 0; i < c->nruns; i++) {
        const ap_run_state *r = &c->runs[i];
        if (!is_flood(r)) {
            c->nout += r->ok && r->flooded && r->quiet && r->fault && strcmp(r->fault, "none");
            continue;
        }
        ap_arm_of_run(r->name, r->arm, r->round, &c->flood[c->nf++]);
    }
    qsort(c->flood, c->nf, sizeof *c->flood, cmp_flood);
    compute_all(c, c->flood, c->nf);
}

/* why the run `name` is no entry of flooded_runs: the verifier's judgement (in buf when it names the fault) */
static const char *not_flood_why(const apc *c, const char *name, char *buf, size_t n)
{
    for (size_t i = 0; i < c->nruns; i++)
        if (!strcmp(c->runs[i].name, name)) {
            if (!c->runs[i].ok)
                return "(a run rejected as malformed: no quiet flooded run)";
            if (!c->runs[i].fault)
                return "(a run whose run.json fault could not be read: no flooded run)";
            if (!c->runs[i].flooded)
                return "(not a flooded run: its flooded is false, recomputed from its raw files)";
            if (!c->runs[i].quiet)
                return "(a flooded run that is not quiet: APCOST.md 1.5 takes quiet flooded runs only)";
            if (strcmp(c->runs[i].fault, "none")) {
                snprintf(buf, n,
                         "(a quiet flooded run of an arm with a fault, run.json's fault.name %.60s: an outage, not a "
                         "flood; APCOST.md 1.5 takes arms without a fault only)",
                         c->runs[i].fault);
                return buf;
            }
            return "(a quiet flooded run of an arm without a fault: it is one)";
        }
    return "(no run of the study: not in results/raw/, or rejected)";
}

/* ap.json's flooded_runs: exactly the quiet flooded runs of arms without a fault, in byte order of the name */
static void check_flood_set(const apc *c)
{
    const vj_node *lf = c->lflood;
    if (!lf)
        return;
    for (size_t i = 0; i < c->nf; i++)
        if (!vj_get(lf, c->flood[i].arm)) {
            char w[512], m[512];
            snprintf(w, sizeof w, "flooded_runs.%s", c->flood[i].arm);
            snprintf(m, sizeof m,
                     "a quiet flooded run of the study of an arm without a fault (arm %s, round %d; APCOST.md 1.5, "
                     "1.13)",
                     c->flood[i].of_arm, c->flood[i].r[0].round);
            mm_add(NULL, "ap.json", w, "(absent)", m);
        }
    int same = lf->n == c->nf;
    for (size_t i = 0; i < lf->n; i++) {
        int mine = 0;
        for (size_t k = 0; k < c->nf && !mine; k++)
            mine = !strcmp(c->flood[k].arm, lf->keys[i]);
        if (mine)
            continue;
        same = 0;
        char w[512], why[320];
        snprintf(w, sizeof w, "flooded_runs.%s", lf->keys[i]);
        mm_add(NULL, "ap.json", w, "(present)", not_flood_why(c, lf->keys[i], why, sizeof why));
    }
    int order = 1;
    for (size_t i = 0; same && i < c->nf; i++)
        order &= !strcmp(lf->keys[i], c->flood[i].arm);
    if (same && !order) {
        vu_buf l = {0}, m = {0};
        for (size_t i = 0; i < c->nf; i++) {
            vu_buf_printf(&l, "%s%s", i ? " " : "", lf->keys[i]);
            vu_buf_printf(&m, "%s%s", i ? " " : "", c->flood[i].arm);
        }
        vu_buf_puts(&m, " (byte order of the name, APCOST.md 1.7)");
        mm_add(NULL, "ap.json", "flooded_runs (order)", l.p, m.p);
        vu_buf_free(&l);
        vu_buf_free(&m);
    }
}

/* compare every flooded run with ap.json's: the recomputed ones, in its layout */
static vj_node *compare_floods(apc *c)
{
    vj_node *mine = vj_new_obj();
    for (size_t i = 0; i < c->nf; i++) {
        ap_arm *a = &c->flood[i];
        if (!a->readable)
            continue;
        vj_obj_set(mine, a->arm, ap_flood_json(a, c->t.n));
        const vj_node *l = c->lflood ? vj_get(c->lflood, a->arm) : NULL;
        apac_full fc = {&c->fin, &c->full, c->na + i};
        if (l && l->type == VJ_OBJ)
            apac_compare_flood(a, l, c->t.n, c->S, &fc);
        else if (l) {
            char w[512];
            snprintf(w, sizeof w, "flooded_runs.%s", a->arm);
            apcmp_mm(w, l, "an object (APCOST.md 1.7)");
        }
    }
    return mine;
}

/* every seed and the bootstrap (apfull.h) when the files allow, and the
 * top-level numbers that needs; else the consistency of live_ap */
static void recompute_all(apc *c)
{
    c->fin = (apfull_in){.t = &c->t, .x = &c->x, .f = &c->f, .d = c->ref->default_score, .arms = c->arms,
                         .na = c->na, .flood = c->flood, .nf = c->nf, .fmt = c->fmt, .L1 = c->L1, .lab = c->lab};
    apfull_run(&c->fin, &c->full);
    if (!c->full.done) {
        printf("NOTE ap.json: only seed 1 is recomputed: %s\n", c->full.why_not);
        check_live_consistency(c);
        return;
    }
    apfull_compare_top(&c->fin, &c->full);
    apfull_compare_resamples(&c->fin, &c->full);
}

/* compare every arm with ap.json's: the recomputed arms, in ap.json's layout */
static vj_node *compare_arms(apc *c)
{
    vj_node *my_arms = vj_new_obj();
    for (size_t i = 0; i < c->na; i++) {
        ap_arm *a = &c->arms[i];
        if (!a->readable)
            continue;
        vj_obj_set(my_arms, a->arm, ap_arm_json(a, c->t.n));
        const vj_node *l = c->larms ? vj_get(c->larms, a->arm) : NULL;
        apac_full fc = {&c->fin, &c->full, i};
        if (l && l->type == VJ_OBJ)
            apac_compare_arm(a, l, c->t.n, c->S, c->lab_L, &fc);
        else if (l) {
            char w[512];
            snprintf(w, sizeof w, "arms.%s", a->arm);
            apcmp_mm(w, l, "an object (APCOST.md 1.7)");
        }
    }
    return my_arms;
}

static vj_node *str_list(const arm_list *l)
{
    vj_node *a = vj_new_arr();
    for (size_t i = 0; i < l->n; i++)
        vj_arr_push(a, vj_new_str(l->arm[i]));
    return a;
}

/* verified.json's ap.copied_from_ap_json: what is not recomputed, as ap.json has it */
static vj_node *copied_json(const apc *c)
{
    vj_node *cp = vj_new_obj();
    vj_obj_set(cp, "recomputed", vj_new_bool(0));
    vj_obj_set(cp, "what_is_copied", vj_new_str(COPIED));
    vj_obj_set(cp, "model_seeds", vj_copy(vj_get(c->lab, "model_seeds")));
    vj_obj_set(cp, "bootstrap", vj_copy(c->bs));
    vj_node *cl = vj_new_obj();
    vj_obj_set(cl, "mean", vj_copy(vj_get(c->la, "mean")));
    vj_obj_set(cl, "per_seed", vj_copy(vj_get(c->la, "per_seed")));
    vj_obj_set(cp, "live_ap", cl);
    vj_node *carms = vj_new_obj();
    for (size_t i = 0; c->larms && i < c->larms->n; i++) {
        const vj_node *lk = vj_get(c->larms->items[i], "kinds");
        vj_node *ko = vj_new_obj();
        for (int k = 0; k < AP_NKINDS; k++) {
            const vj_node *e = vj_get(lk, ap_kinds[k]);
            vj_node *x = vj_new_obj();
            static const char *const CM[] = {"change", "ci95", "verdict", "direction", "change_per_seed", "ci95_mc"};
            for (int f = 0; f < (c->fmt >= 2 ? 6 : 5); f++)
                vj_obj_set(x, CM[f], vj_copy(vj_get(e, CM[f])));
            vj_obj_set(ko, ap_kinds[k], x);
        }
        vj_node *ao = vj_new_obj();
        vj_obj_set(ao, "kinds", ko);
        vj_obj_set(carms, c->larms->keys[i], ao);
    }
    vj_obj_set(cp, "arms", carms);
    vj_obj_set(cp, "skipped_arms", vj_copy(c->lskip));
    /* format 2: flooded_runs whole, as ap.json has it (checked above; the
     * report reads each run's kinds from here) */
    if (c->fmt >= 2)
        vj_obj_set(cp, "flooded_runs", c->lflood ? vj_copy(c->lflood) : vj_new_null());
    return cp;
}

/* verified.json's "ap" member: the recomputed numbers (my_arms and my_floods taken) and the copied ones */
static vj_node *member_json(const apc *c, vj_node *my_arms, vj_node *my_floods)
{
    vj_node *m = vj_new_obj();
    vj_obj_set(m, "checked", vj_new_bool(1));
    vj_obj_set(m, "format", vj_new_str(c->fmt >= 2 ? "lab-ap 2" : "lab-ap 1"));
    vj_obj_set(m, "definitions", vj_new_str("pipeline/APCOST.md"));
    vj_obj_set(m, "recomputed", vj_new_bool(1));
    vj_obj_set(m, "what_is_recomputed", vj_new_str(c->full.done ? RECOMPUTED : SEED1_ONLY));
    vj_obj_set(m, "default_seed", vj_new_int(1));
    vj_obj_set(m, "test_rows", vj_new_int((long long)c->t.n));
    vj_obj_set(m, "customers", vj_new_int((long long)c->t.customers));
    vj_node *cuts = vj_new_arr();
    for (size_t i = 0; i < c->t.ncut; i++)
        vj_arr_push(cuts, vj_new_str(c->t.cutoffs[i]));
    vj_obj_set(m, "cutoffs", cuts);
    vj_obj_set(m, "default_score", vj_new_num((double)c->ref->default_score));
    vj_node *kl = vj_new_arr();
    for (int k = 0; k < AP_NKINDS; k++)
        vj_arr_push(kl, vj_new_str(ap_kinds[k]));
    vj_obj_set(m, "kinds", kl);
    vj_obj_set(m, "chosen_arms_from", vj_new_str(c->chosen_from));
    vj_obj_set(m, "chosen_arms", str_list(&c->chosen));
    vj_obj_set(m, "skipped_arms", str_list(&c->skipped));
    vj_node *lv = vj_new_obj();
    vj_obj_set(lv, "default_seed", vj_new_num(c->L1));
    vj_obj_set(m, "live_ap", lv);
    vj_obj_set(m, "arms", my_arms);
    if (my_floods)
        vj_obj_set(m, "flooded_runs", my_floods);
    vj_obj_set(m, "whole_result_recomputed", vj_new_bool(c->full.done));
    if (c->full.done)
        apfull_member(&c->fin, &c->full, m);
    vj_node *rs = vj_new_obj();
    vj_obj_set(rs, "files_fingerprinted", vj_new_bool(c->f.manifest_ok));
    vj_obj_set(rs, "seeds", vj_new_int(c->f.scores_ok ? (long long)c->f.S : 1));
    vj_obj_set(rs, "seeds_from", vj_new_str(c->f.scores_ok ? APF_SCORES : "results/reference/scores.tsv"));
    vj_obj_set(rs, "prev_lines", c->f.prev_ok ? vj_new_int((long long)c->f.nprev) : vj_new_null());
    vj_obj_set(rs, "rows_with_last_known", c->with_lk >= 0 ? vj_new_int(c->with_lk) : vj_new_null());
    vj_obj_set(m, "reference_scores", rs);
    vj_obj_set(m, "copied_from_ap_json", copied_json(c));
    return m;
}

/* checks.ap once ap.json was checked */
static void status_json(const apc *c, vj_node *st, size_t arms_recomputed)
{
    vj_obj_set(st, "checked", vj_new_bool(1));
    vj_obj_set(st, "recomputed", vj_new_str(c->full.done ? RECOMPUTED : SEED1_ONLY));
    vj_obj_set(st, "whole_result_recomputed", vj_new_bool(c->full.done));
    if (!c->full.done)
        vj_obj_set(st, "why_not_whole", vj_new_str(c->full.why_not));
    vj_obj_set(st, "copied", vj_new_str(COPIED));
    vj_node *tol = vj_new_obj();
    vj_obj_set(tol, "counts", vj_new_str("exact"));
    vj_obj_set(tol, "shares", vj_new_str("|lab - verify| <= 1e-12 * max(|lab|, |verify|)"));
    vj_obj_set(tol, "ap_and_changes",
               vj_new_str(c->fmt >= 2 ? "|lab - verify| <= 1e-12 (APs, changes, resamples, ci95, ci95_mc)"
                                      : "|lab - verify| <= 1e-12 (APs, changes, resamples, ci95)"));
    vj_obj_set(tol, "scores", vj_new_str("last_known: bit for bit as 32-bit floats; seed 1 of ap_scores.tsv.gz: "
                                         "byte for byte as scores.tsv"));
    vj_obj_set(tol, "exact_zeros", vj_new_str("a round without stand-ins: A = L and change 0 exactly; an arm "
                                               "without any: every change 0 and ci95 [0, 0] exactly"));
    vj_obj_set(st, "tolerances", tol);
    vj_obj_set(st, "arms_recomputed", vj_new_int((long long)arms_recomputed));
    vj_obj_set(st, "format", vj_new_str(c->fmt >= 2 ? "lab-ap 2" : "lab-ap 1"));
    if (c->fmt >= 2) {
        vj_obj_set(st, "flooded_runs_recomputed", vj_new_int((long long)c->nf));
        vj_obj_set(st, "flooded_runs_outages_left_out", vj_new_int((long long)c->nout));
        vj_obj_set(st, "format_2", vj_new_str(FORMAT2));
    }
}

static void apc_free(apc *c)
{
    for (size_t i = 0; i < c->na; i++)
        ap_arm_free(&c->arms[i]);
    free(c->arms);
    for (size_t i = 0; i < c->nf; i++)
        ap_arm_free(&c->flood[i]);
    free(c->flood);
    list_free(&c->chosen);
    list_free(&c->skipped);
    free(c->chosen_path);
    ap_table_free(&c->t);
    apf_free(&c->f);
    aps_index_free(&c->x);
    apfull_free(&c->full);
    vj_free(c->lab);
}

vj_node *ap_check(const char *root, const ref_data *ref, const char *arms_path, const ap_run_state *runs,
                  size_t nruns, vj_node **member)
{
    *member = vj_new_null();
    vj_node *st = vj_new_obj();
    char *path = vu_xasprintf("%s/results/ap.json", root);
    long mm0 = mm_count();
    int present = vu_is_file(path);
    vj_obj_set(st, "present", vj_new_bool(present));
    if (!present) {
        vj_obj_set(st, "checked", vj_new_bool(0));
        vj_obj_set(st, "note", vj_new_str("no results/ap.json (make ap writes it): nothing to check"));
        printf("NOTE %s absent: the stand-ins' AP cost is not checked\n", path);
        char *mp = vu_xasprintf("%s/%s", root, APF_MANIFEST);
        if (vu_is_file(mp))
            mm_add(NULL, APF_JSON, "file", "(absent)", "present: provenance/manifest-ap.tsv lists it (APCOST.md 1.10)");
        free(mp);
        vj_obj_set(st, "mismatches", vj_new_int(mm_count() - mm0));
        free(path);
        return st;
    }
    apc c;
    memset(&c, 0, sizeof c);
    c.root = root;
    c.ref = ref;
    c.runs = runs;
    c.nruns = nruns;
    if (read_inputs(&c, path, st) == 0) {
        apf_read(root, &c.t, &c.f);
        aps_index_build(&c.t, &c.x);
        check_top(&c);
        check_reference(&c);
        check_live(&c);
        check_bootstrap(&c);
        choose_arms(&c, arms_path);
        find_runs(&c);
        check_arm_set(&c);
        check_skipped(&c);
        compute_arms(&c);
        find_floods(&c);
        check_flood_set(&c);
        recompute_all(&c);
        vj_node *my_arms = compare_arms(&c);
        vj_node *my_floods = c.fmt >= 2 ? compare_floods(&c) : NULL;
        size_t recomputed = my_arms->n;
        vj_free(*member);
        *member = member_json(&c, my_arms, my_floods);
        status_json(&c, st, recomputed);
    }
    vj_obj_set(st, "mismatches", vj_new_int(mm_count() - mm0));
    apc_free(&c);
    free(path);
    return st;
}
