/* prepare: shop events -> monthly features -> model -> the lab's prepared files.
 *
 *   prepare [--prep DIR] [--prov DIR] [--data DIR] [--seed N] [--model-seed N]
 *           [--arms lab/arms.tsv] [--comparisons pipeline/comparisons.tsv] [--ap-arms pipeline/ap_arms.tsv]
 *
 * Reads data/online_retail_II.csv when the user put it there; otherwise
 * generates a shop from --seed into DIR/shop.csv.  Writes into DIR (default
 * build/prep), each file atomically:
 *   model.json     XGBoost's JSON model
 *   train.tsv      training rows: customer cutoff label + six features
 *   test.tsv       the store's table: row customer cutoff label + six features,
 *                  in request order (a seeded shuffle of the test rows)
 *   prev.tsv       each test row's features one month earlier, when it had any
 *   requests.tsv   j row customer cutoff: request j asks for row j (mod N)
 *   scores.tsv     customer cutoff label score last_known, one line per test row
 *   standin.tsv    row kind score: the service's stand-in for each row
 *                  (kind last_known, or default when the customer was new)
 *   summary.json   test AP, default score, counts, seeds, cutoffs
 * then registers the seven files of the preregistration and writes the
 * stage's provenance record and fingerprint manifest into --prov.
 *
 * The registration, --prov/prereg.json (pipeline/RESULTS.md, "prereg.json"):
 * `files` lists, in this order, data/guesses.tsv, data/design.md,
 * data/quiet.tsv (these three from --data), lab/arms.tsv (--arms),
 * pipeline/comparisons.tsv (--comparisons), pipeline/ap_arms.tsv
 * (--ap-arms) and data/profiles.tsv (--data; the registered design), each
 * under its path in the repository, with its sha256 and size;
 * `registered_utc` is when that list was written.  Beside it,
 * --prov/registered/<path> holds a byte copy of each of the seven (the
 * registered files travel with the study): staged whole in
 * --prov/.registered.tmp/ before prereg.json is written and put in place
 * after it (pipeline/common/prov.h), so a failed prepare leaves no
 * half-written copy.  Whatever a rerun finds there:
 *   - every one of the seven registered, with the file's sha256 and size:
 *     kept as it is (its time, and the prediction measure added), and so
 *     are the copies when they hold the files' bytes (else written anew:
 *     the files are the registered ones);
 *   - no prereg.json, or one lacking some of the seven (written before the
 *     lab registered seven) or holding another sha256 or size, while the
 *     study (OUT, the parent of --prov) holds no measured run (no
 *     OUT/provenance/runs/<run>.json, no folder in OUT/results/raw): written
 *     anew, atomically, with the time now and no prediction (measure makes
 *     and registers it again before its first run); the log names the files
 *     new or changed;
 *   - the same while OUT holds measured runs: refused (exit 2), before
 *     anything is built, naming the file and what to do (restore it as
 *     registered, or measure anew in another OUT): a registration written
 *     after the runs would not be one, and the verifier fails such a study.
 *
 * Before anything is built, the guesses are read by their one reader
 * (lab/core/guesstab.h, collect's too): a predicate outside the grammar,
 * or naming an arm that is not in --arms or a figure that does not exist,
 * is refused (exit 2) naming the file, line, guess, clause and token.
 *
 * Exit: 0 done; 1 failed; 2 refused (options, the registration, the guesses).
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ap.h"
#include "feat.h"
#include "guesstab.h"
#include "opt.h"
#include "paths.h"
#include "prov.h"
#include "shop.h"
#include "shopgen.h"
#include "train.h"
#include "trees.h"
#include "util.h"

#define SHOP_SEED 20261011ULL
#define SHUFFLE_SEED 9ULL

/* Training cutoffs 2010-03 .. 2011-05; test cutoffs 2011-06 .. 2011-11.  The
 * features of 2010-02 serve only as last-known rows of 2010-03. */
enum { FIRST_Y = 2010, FIRST_M = 2, NCUT = 22, TRAIN_FROM = 1, TEST_FROM = 16 };

typedef struct {
    const char *prep, *prov, *data, *arms, *comparisons, *ap_arms;
    unsigned long long seed;
    int model_seed;
} opts;

static double secs_since(int64_t t0) { return (double)(ut_mono_ns() - t0) / 1e9; }

static void step(const char *name, int64_t *t)
{
    printf("prepare: %-28s %6.2f s\n", name, secs_since(*t));
    fflush(stdout);
    *t = ut_mono_ns();
}

static void day_str(int32_t day, char buf[11])
{
    int y, m, d;
    ut_civil_from_days(day, &y, &m, &d);
    snprintf(buf, 11, "%04d-%02d-%02d", y, m, d);
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void put_feats(FILE *f, const float *x)
{
    for (int k = 0; k < FEAT_N; k++)
        fprintf(f, "\t%.9g", x[k]);
    fputc('\n', f);
}

static void feat_header(FILE *f)
{
    for (int k = 0; k < FEAT_N; k++)
        fprintf(f, "\t%s", feat_names[k]);
    fputc('\n', f);
}

/* Binary search of (customer, cutoff) in rows sorted by cutoff then customer. */
static long find_row(const feat_row *r, size_t n, int32_t customer, int32_t cutoff)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].cutoff < cutoff || (r[mid].cutoff == cutoff && r[mid].customer < customer))
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < n && r[lo].cutoff == cutoff && r[lo].customer == customer) ? (long)lo : -1;
}

/* ------------------------------------------------------------ the registration */

/* The seven registered files now, and what the registration needs. */
typedef struct {
    char path[PROV_NPREREG][4096]; /* where prepare reads them */
    int st[PROV_NPREREG];          /* PROV_REG_SAME, _CHANGED, _ABSENT */
    char sha[PROV_NPREREG][65];
    unsigned long long size[PROV_NPREREG];
    char regpath[4096], when[64]; /* prereg.json; its registered_utc, if any */
    char what[1024];               /* the files new or changed, for the log */
} prereg_now;

/* A run measured in the study of --prov (its parent folder): its path in where, 1; else 0. */
static int run_measured(const char *prov, char *where, size_t n)
{
    char dir[2][4200];
    snprintf(dir[0], sizeof dir[0], "%s/runs", prov);
    snprintf(dir[1], sizeof dir[1], "%s/../" PATH_RAW_DIR, prov);
    for (int k = 0; k < 2; k++) {
        DIR *d = opendir(dir[k]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (e->d_name[0] != '.' && (k == 1 || (len > 5 && !strcmp(e->d_name + len - 5, ".json")))) {
                if (snprintf(where, n, "%s/%s", dir[k], e->d_name) >= (int)n)
                    where[n - 1] = 0; /* cut: only for the message */
                closedir(d);
                return 1;
            }
        }
        if (d)
            closedir(d);
    }
    return 0;
}

/* 0: kept (all seven as registered); 1: to be written (what says why); -1:
 * refused or failed (err). */
static int prereg_plan(const opts *o, prereg_now *n, char *err, size_t errlen)
{
    const char *from[PROV_NPREREG] = {NULL, NULL, NULL, o->arms, o->comparisons, o->ap_arms};
    const char *paths[PROV_NPREREG];
    for (int i = 0; i < PROV_NPREREG; i++) {
        if (!strncmp(PROV_PREREG_FILES[i], "data/", 5)) /* guesses.tsv, design.md, quiet.tsv, profiles.tsv */
            snprintf(n->path[i], sizeof n->path[i], "%s/%s", o->data, PROV_PREREG_FILES[i] + 5);
        else
            snprintf(n->path[i], sizeof n->path[i], "%s", from[i]);
        paths[i] = n->path[i];
    }
    snprintf(n->regpath, sizeof n->regpath, "%s/prereg.json", o->prov);
    int exists = access(n->regpath, F_OK) == 0;
    json_t *prev = json_load_file(n->regpath, 0, NULL);
    const char *w = json_string_value(json_object_get(prev, "registered_utc"));
    snprintf(n->when, sizeof n->when, "%s", w ? w : "at an unknown time");
    int rc = prov_prereg_compare(prev, paths, n->st, n->sha, n->size, err, errlen);
    json_decref(prev);
    if (rc != 0)
        return -1;
    size_t len = 0;
    n->what[0] = 0;
    for (int i = 0; i < PROV_NPREREG; i++)
        if (n->st[i] != PROV_REG_SAME && exists)
            len += (size_t)snprintf(n->what + len, len < sizeof n->what ? sizeof n->what - len : 0, "%s%s %s",
                                    len ? ", " : "", PROV_PREREG_FILES[i],
                                    n->st[i] == PROV_REG_CHANGED ? "changed" : "not registered before");
    if (exists && !n->what[0])
        return 0;
    char where[8400];
    if (exists && run_measured(o->prov, where, sizeof where)) {
        ut_seterr(err, errlen,
                  "%s (registered %s): %s, and this study already holds measured runs (%s): a registration written "
                  "now would come after them.  Restore each changed file as it was registered (git checkout), or "
                  "measure the study anew in another OUT (make prepare measure OUT=...); a study measured before "
                  "the lab registered seven files stays as it is (collect, ap, cost and factcheck still run)",
                  n->regpath, n->when, n->what, where);
        return -1;
    }
    return 1;
}

/* The guesses to be registered (--data's guesses.tsv), read by their one
 * reader: every predicate in the grammar, every arm it names one of --arms,
 * every figure one of data/README.md's.  0, or -1 naming the file, line,
 * guess, clause and token. */
static int check_guesses(const opts *o, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/guesses.tsv", o->data);
    guesstab g;
    if (guesstab_load_registered(path, o->arms, &g, err, errlen) != 0)
        return -1;
    printf("prepare: %zu guesses of %s checked: every arm one of %s, every figure known\n", g.n, path, o->arms);
    guesstab_free(&g);
    return 0;
}

/* Writes prereg.json when the plan says so: the seven files, in order, the
 * time now; and their copies under --prov/registered/ when they are not
 * the files' bytes already. */
static int preregister(const opts *o, prov *pv, char *err, size_t errlen)
{
    static prereg_now n; /* 25 kB */
    int plan = prereg_plan(o, &n, err, errlen);
    if (plan < 0)
        return -1;
    for (int i = 0; i < PROV_NPREREG; i++)
        if (prov_input(pv, n.path[i], err, errlen) != 0)
            return -1;
    const char *paths[PROV_NPREREG];
    for (int i = 0; i < PROV_NPREREG; i++)
        paths[i] = n.path[i];
    int copies = plan == 1 || !prov_prereg_copies_match(o->prov, paths);
    if (copies && prov_prereg_stage_copies(o->prov, paths, err, errlen) != 0)
        return -1;
    int rc = 0;
    char now[32] = "";
    if (plan == 1) {
        ut_utc_iso(now);
        json_t *reg = json_object(), *list = json_array();
        for (int i = 0; i < PROV_NPREREG; i++) {
            json_t *e = json_object();
            json_object_set_new(e, "path", json_string(PROV_PREREG_FILES[i]));
            json_object_set_new(e, "sha256", json_string(n.sha[i]));
            json_object_set_new(e, "size", json_integer((json_int_t)n.size[i]));
            json_array_append_new(list, e);
        }
        json_object_set_new(reg, "registered_utc", json_string(now));
        json_object_set_new(reg, "files", list);
        char *text = json_dumps(reg, JSON_INDENT(1));
        rc = text && ut_mkdir_p(o->prov, err, errlen) == 0 &&
                     ut_write_file(n.regpath, text, strlen(text), err, errlen) == 0
                 ? 0
                 : -1;
        free(text);
        json_decref(reg);
    }
    if (copies && rc != 0)
        prov_prereg_drop_copies(o->prov);
    else if (copies && prov_prereg_commit_copies(o->prov, err, errlen) != 0)
        rc = -1;
    if (rc == 0 && plan == 1)
        printf("prepare: registered the %d files (data/guesses.tsv ... data/profiles.tsv) in %s at %s%s%s%s; their "
               "copies in %s/" PATH_REGISTERED "/\n",
               PROV_NPREREG, n.regpath, now, n.what[0] ? " (" : "", n.what, n.what[0] ? ")" : "", o->prov);
    else if (rc == 0 && copies)
        printf("prepare: the copies of the %d registered files written anew in %s/" PATH_REGISTERED "/\n",
               PROV_NPREREG, o->prov);
    return rc;
}

/* Everything one prepare run builds, step by step; run() frees it. */
typedef struct {
    const opts *o;
    prov *pv;
    char shop_path[4096];
    int real;              /* the user's real file, not a generated shop */
    shop_data shop;
    int32_t cut[NCUT];
    feat_row *rows, *train, *test; /* every row; training rows; test rows */
    size_t n, ntrain, ntest;
    train_params tp;
    train_model model;
    float *score_all;      /* XGBoost's score of every row */
    float dflt;            /* the default score: the training buyers' share */
    size_t *perm;          /* test row i is test[perm[i]] */
    float *score_test, *lastk;
    uint8_t *had_prev;
    size_t nprev;
    double test_ap, lk_ap;
} prep_run;

static int oom(char *err, size_t errlen)
{
    ut_seterr(err, errlen, "prepare: out of memory");
    return -1;
}

/* The cutoff one month before `cutoff` (a 1st of a month). */
static int32_t prev_cutoff(int32_t cutoff)
{
    int y, m, d;
    ut_civil_from_days(cutoff, &y, &m, &d);
    return m == 1 ? ut_days_from_civil(y - 1, 12, 1) : ut_days_from_civil(y, m - 1, 1);
}

/* 1. The shop: the user's real file, or a generated one. */
static int load_shop(prep_run *p, int64_t *t, char *err, size_t errlen)
{
    snprintf(p->shop_path, sizeof p->shop_path, "%s/online_retail_II.csv", p->o->data);
    p->real = file_exists(p->shop_path);
    if (!p->real) {
        snprintf(p->shop_path, sizeof p->shop_path, "%s/shop.csv", p->o->prep);
        if (shop_generate(p->o->seed, p->shop_path, err, errlen) != 0)
            return -1;
        step("generate shop", t);
    }
    if (prov_input(p->pv, p->shop_path, err, errlen) != 0 || shop_load(p->shop_path, &p->shop, err, errlen) != 0)
        return -1;
    step("load shop", t);
    return 0;
}

/* 2. Features at every cutoff, split into training and test rows. */
static int build_features(prep_run *p, int64_t *t, char *err, size_t errlen)
{
    for (int k = 0; k < NCUT; k++) {
        int m0 = FIRST_M - 1 + k;
        p->cut[k] = ut_days_from_civil(FIRST_Y + m0 / 12, m0 % 12 + 1, 1);
    }
    if (feat_build(&p->shop, p->cut, NCUT, &p->rows, &p->n, err, errlen) != 0)
        return -1;
    p->train = malloc(p->n * sizeof *p->train);
    p->test = malloc(p->n * sizeof *p->test);
    if (!p->train || !p->test)
        return oom(err, errlen);
    for (size_t i = 0; i < p->n; i++) {
        if (p->rows[i].cutoff >= p->cut[TEST_FROM])
            p->test[p->ntest++] = p->rows[i];
        else if (p->rows[i].cutoff >= p->cut[TRAIN_FROM])
            p->train[p->ntrain++] = p->rows[i];
    }
    if (p->ntrain == 0 || p->ntest == 0) {
        ut_seterr(err, errlen, "%s: no %s rows: the shop has no orders before the cutoffs", p->shop_path,
                  p->ntrain ? "test" : "training");
        return -1;
    }
    step("features", t);
    return 0;
}

/* 3. The model, its score of every row, and the default score. */
static int fit_model(prep_run *p, int64_t *t, char *err, size_t errlen)
{
    char path[4096];
    train_defaults(&p->tp);
    p->tp.seed = p->o->model_seed;
    if (train_fit(p->train, p->ntrain, &p->tp, &p->model, err, errlen) != 0)
        return -1;
    step("train model", t);
    p->score_all = malloc(p->n * sizeof *p->score_all);
    if (!p->score_all)
        return oom(err, errlen);
    if (train_predict(p->model, p->rows, p->n, p->score_all, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/model.json", p->o->prep);
    if (train_save(p->model, path, err, errlen) != 0)
        return -1;
    double buyers = 0;
    for (size_t i = 0; i < p->ntrain; i++)
        buyers += p->train[i].label;
    p->dflt = (float)(buyers / (double)p->ntrain);
    return 0;
}

/* 4. The service's evaluator must give XGBoost's scores, bit for bit. */
static int cross_check(prep_run *p, int64_t *t, char *err, size_t errlen)
{
    char path[4096];
    trees *tr = NULL;
    snprintf(path, sizeof path, "%s/model.json", p->o->prep);
    if (trees_load(path, &tr, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < p->n && rc == 0; i++) {
        float s = trees_score(tr, p->rows[i].x);
        if (memcmp(&s, &p->score_all[i], sizeof s) != 0) {
            char c[11];
            day_str(p->rows[i].cutoff, c);
            ut_seterr(err, errlen, "%s: the tree evaluator gives %.9g but XGBoost %.9g for customer %d at %s", path,
                      s, p->score_all[i], p->rows[i].customer, c);
            rc = -1;
        }
    }
    trees_free(tr);
    if (rc == 0)
        step("predict and cross-check", t);
    return rc;
}

/* 5. Test rows in a seeded shuffle, their scores and last-known scores, and
 * the test AP of each. */
static int score_test_rows(prep_run *p, char *err, size_t errlen)
{
    size_t nt = p->ntest;
    p->perm = malloc(nt * sizeof *p->perm);
    p->score_test = malloc(nt * sizeof *p->score_test);
    p->lastk = malloc(nt * sizeof *p->lastk);
    p->had_prev = malloc(nt);
    uint8_t *lab = malloc(nt);
    int32_t *grp = malloc(nt * sizeof *grp);
    if (!p->perm || !p->score_test || !p->lastk || !p->had_prev || !lab || !grp) {
        free(lab);
        free(grp);
        return oom(err, errlen);
    }
    for (size_t i = 0; i < nt; i++)
        p->perm[i] = i;
    ut_rng rng;
    ut_rng_seed(&rng, SHUFFLE_SEED);
    for (size_t i = nt - 1; i > 0; i--) {
        size_t j = (size_t)(ut_rng_u64(&rng) % (i + 1));
        size_t tmp = p->perm[i];
        p->perm[i] = p->perm[j];
        p->perm[j] = tmp;
    }
    for (size_t i = 0; i < nt; i++) {
        const feat_row *r = &p->test[p->perm[i]];
        long at = find_row(p->rows, p->n, r->customer, r->cutoff);
        p->score_test[i] = p->score_all[at];
        long pa = find_row(p->rows, p->n, r->customer, prev_cutoff(r->cutoff));
        p->lastk[i] = pa >= 0 ? p->score_all[pa] : p->dflt;
        p->had_prev[i] = pa >= 0;
        p->nprev += pa >= 0;
        lab[i] = r->label;
        grp[i] = r->cutoff;
    }
    p->test_ap = ap_mean_by_group(p->score_test, lab, grp, nt);
    p->lk_ap = ap_mean_by_group(p->lastk, lab, grp, nt);
    free(lab);
    free(grp);
    if (isnan(p->test_ap)) {
        ut_seterr(err, errlen, "%s: a test cutoff has no buyer, so its AP is undefined", p->shop_path);
        return -1;
    }
    return 0;
}

/* 6. The prepared files, one writer each.  A writer gets the open file and
 * writes the header and the rows. */
static void put_train(const prep_run *p, FILE *f)
{
    char c[11];
    fprintf(f, "customer\tcutoff\tlabel");
    feat_header(f);
    for (size_t i = 0; i < p->ntrain; i++) {
        day_str(p->train[i].cutoff, c);
        fprintf(f, "%d\t%s\t%d", p->train[i].customer, c, p->train[i].label);
        put_feats(f, p->train[i].x);
    }
}

static void put_test(const prep_run *p, FILE *f)
{
    char c[11];
    fprintf(f, "row\tcustomer\tcutoff\tlabel");
    feat_header(f);
    for (size_t i = 0; i < p->ntest; i++) {
        const feat_row *r = &p->test[p->perm[i]];
        day_str(r->cutoff, c);
        fprintf(f, "%zu\t%d\t%s\t%d", i, r->customer, c, r->label);
        put_feats(f, r->x);
    }
}

static void put_prev(const prep_run *p, FILE *f)
{
    char c[11];
    fprintf(f, "row\tcustomer\tcutoff");
    feat_header(f);
    for (size_t i = 0; i < p->ntest; i++) {
        const feat_row *r = &p->test[p->perm[i]];
        int32_t pc = prev_cutoff(r->cutoff);
        long pa = find_row(p->rows, p->n, r->customer, pc);
        if (pa < 0)
            continue;
        day_str(pc, c);
        fprintf(f, "%zu\t%d\t%s", i, r->customer, c);
        put_feats(f, p->rows[pa].x);
    }
}

static void put_requests(const prep_run *p, FILE *f)
{
    char c[11];
    fprintf(f, "j\trow\tcustomer\tcutoff\n");
    for (size_t i = 0; i < p->ntest; i++) {
        const feat_row *r = &p->test[p->perm[i]];
        day_str(r->cutoff, c);
        fprintf(f, "%zu\t%zu\t%d\t%s\n", i, i, r->customer, c);
    }
}

/* The service's stand-ins: row kind score. */
static void put_standin(const prep_run *p, FILE *f)
{
    fprintf(f, "row\tkind\tscore\n");
    for (size_t i = 0; i < p->ntest; i++)
        fprintf(f, "%zu\t%s\t%.9g\n", i, p->had_prev[i] ? "last_known" : "default", p->lastk[i]);
}

static void put_scores(const prep_run *p, FILE *f)
{
    char c[11];
    fprintf(f, "customer\tcutoff\tlabel\tscore\tlast_known\n");
    for (size_t i = 0; i < p->ntest; i++) {
        const feat_row *r = &p->test[p->perm[i]];
        day_str(r->cutoff, c);
        fprintf(f, "%d\t%s\t%d\t%.9g\t%.9g\n", r->customer, c, r->label, p->score_test[i], p->lastk[i]);
    }
}

static int write_tsv(const prep_run *p, const char *name, void (*put)(const prep_run *, FILE *), char *err,
                     size_t errlen)
{
    char path[4096];
    ut_afile a = {0};
    snprintf(path, sizeof path, "%s/%s", p->o->prep, name);
    if (ut_aopen(&a, path, err, errlen) != 0)
        return -1;
    put(p, a.f);
    if (ut_aclose(&a, 1, err, errlen) != 0)
        return -1;
    return prov_output(p->pv, path, err, errlen);
}

static int write_summary(const prep_run *p, char *err, size_t errlen)
{
    char c[11], vbuf[64], path[4096];
    const opts *o = p->o;
    json_t *s = json_object(), *cuts = json_array(), *tc = json_array();
    for (int k = TRAIN_FROM; k < NCUT; k++) {
        day_str(p->cut[k], c);
        json_array_append_new(k < TEST_FROM ? cuts : tc, json_string(c));
    }
    train_version(vbuf, sizeof vbuf);
    json_object_set_new(s, "shop", json_string(p->real ? "real file" : "generated"));
    json_object_set_new(s, "shop_rows", json_integer((json_int_t)p->shop.rows));
    json_object_set_new(s, "shop_guest_rows", json_integer((json_int_t)p->shop.guests));
    json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(s, "model_seed", json_integer(o->model_seed));
    json_object_set_new(s, "shuffle_seed", json_integer((json_int_t)SHUFFLE_SEED));
    json_object_set_new(s, "train_cutoffs", cuts);
    json_object_set_new(s, "test_cutoffs", tc);
    json_object_set_new(s, "train_rows", json_integer((json_int_t)p->ntrain));
    json_object_set_new(s, "test_rows", json_integer((json_int_t)p->ntest));
    json_object_set_new(s, "test_rows_with_last_known", json_integer((json_int_t)p->nprev));
    json_object_set_new(s, "default_score", json_real(p->dflt));
    json_object_set_new(s, "test_ap", json_real(p->test_ap));
    json_object_set_new(s, "last_known_ap", json_real(p->lk_ap));
    const train_params *tp = &p->tp;
    json_object_set_new(s, "model", json_pack("{s:s,s:i,s:i,s:f,s:f,s:f}", "library", vbuf, "rounds", tp->rounds,
                                              "max_depth", tp->max_depth, "eta", tp->eta, "subsample",
                                              tp->subsample, "min_child_weight", tp->min_child_weight));
    char *text = json_dumps(s, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    json_decref(s);
    snprintf(path, sizeof path, "%s/summary.json", o->prep);
    int bad = !text || ut_write_file(path, text, strlen(text), err, errlen) != 0;
    free(text);
    if (bad || prov_output(p->pv, path, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/model.json", o->prep);
    return prov_output(p->pv, path, err, errlen);
}

static int write_files(const prep_run *p, int64_t *t, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        void (*put)(const prep_run *, FILE *);
    } FILES[] = {{"train.tsv", put_train},     {"test.tsv", put_test},       {"prev.tsv", put_prev},
                 {"requests.tsv", put_requests}, {"standin.tsv", put_standin}, {"scores.tsv", put_scores}};
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++)
        if (write_tsv(p, FILES[i].name, FILES[i].put, err, errlen) != 0)
            return -1;
    if (write_summary(p, err, errlen) != 0)
        return -1;
    step("write files", t);
    return 0;
}

static void free_run(prep_run *p)
{
    shop_free(&p->shop);
    free(p->rows);
    free(p->train);
    free(p->test);
    free(p->score_all);
    free(p->score_test);
    free(p->lastk);
    free(p->had_prev);
    free(p->perm);
    train_free(p->model);
}

static int run(const opts *o, prov *pv, char *err, size_t errlen)
{
    int64_t t = ut_mono_ns(), t_all = t;
    prep_run p = {.o = o, .pv = pv};
    int rc = -1;
    if (ut_mkdir_p(o->prep, err, errlen) == 0 && load_shop(&p, &t, err, errlen) == 0 &&
        build_features(&p, &t, err, errlen) == 0 && fit_model(&p, &t, err, errlen) == 0 &&
        cross_check(&p, &t, err, errlen) == 0 && score_test_rows(&p, err, errlen) == 0 &&
        write_files(&p, &t, err, errlen) == 0 && preregister(o, pv, err, errlen) == 0)
        rc = 0;
    if (rc == 0) {
        char vbuf[64];
        train_version(vbuf, sizeof vbuf);
        prov_lib(pv, "xgboost", vbuf + 8);
        printf("prepare: %zu shop rows (%zu guest rows), %zu training rows, %zu test rows\n", p.shop.rows,
               p.shop.guests, p.ntrain, p.ntest);
        printf("prepare: test AP %.4f (mean over %d test cutoffs); last-known scores alone %.4f; "
               "default score %.4f\n",
               p.test_ap, NCUT - TEST_FROM, p.lk_ap, p.dflt);
        printf("prepare: %-28s %6.2f s\n", "total", secs_since(t_all));
    }
    free_run(&p);
    return rc;
}

int main(int argc, char **argv)
{
    ut_set_prog("prepare");
    opts o = {.prep = "build/prep", .prov = PATH_PROV_DIR, .data = "data", .arms = "lab/arms.tsv",
              .comparisons = "pipeline/comparisons.tsv", .ap_arms = "pipeline/ap_arms.tsv", .seed = SHOP_SEED,
              .model_seed = 1};
    int64_t seed = (int64_t)SHOP_SEED;
    const opt_spec spec[] = {
        {"--prep", OPT_STR, &o.prep, 0, 0, "DIR", "where the prepared files go (build/prep)"},
        {"--prov", OPT_STR, &o.prov, 0, 0, "DIR", "provenance records and manifest (" PATH_PROV_DIR ")"},
        {"--data", OPT_STR, &o.data, 0, 0, "DIR", "the shop file, guesses and design (data)"},
        {"--seed", OPT_I64, &seed, 0, 9.0e15, "N", "the generated shop's seed"},
        {"--model-seed", OPT_INT, &o.model_seed, 0, 2147483647, "N", "XGBoost's seed (1)"},
        {"--arms", OPT_STR, &o.arms, 0, 0, "FILE", "registered as lab/arms.tsv (lab/arms.tsv)"},
        {"--comparisons", OPT_STR, &o.comparisons, 0, 0, "FILE",
         "registered as pipeline/comparisons.tsv (pipeline/comparisons.tsv)"},
        {"--ap-arms", OPT_STR, &o.ap_arms, 0, 0, "FILE", "registered as pipeline/ap_arms.tsv (pipeline/ap_arms.tsv)"},
        {0}};
    int orc = opt_parse(argc, argv, spec, "prepare: shop events -> features -> model -> build/prep", NULL);
    if (orc != OPT_OK)
        return orc == OPT_HELP ? 0 : 2;
    o.seed = (unsigned long long)seed;
    /* A registration that cannot be written is refused before anything is
     * built, and so are guesses that name an arm or a figure that does not
     * exist (or break the grammar): lab/core/guesstab.h, collect's reader too. */
    static prereg_now plan;
    char perr[4096] = "";
    if (prereg_plan(&o, &plan, perr, sizeof perr) < 0 || check_guesses(&o, perr, sizeof perr) != 0) {
        ut_err("%s", perr);
        return 2;
    }
    char err[UT_ERRLEN] = "";
    char manifest[4096];
    snprintf(manifest, sizeof manifest, "%s/manifest-prepare.tsv", o.prov);
    /* Until this run succeeds, `check` must not vouch for a mix of files. */
    remove(manifest);
    prov *pv = prov_begin("prepare", argc, argv);
    int rc = run(&o, pv, err, sizeof err);
    if (rc != 0)
        ut_err("%s", err[0] ? err : "failed");
    if (rc == 0 && (ut_mkdir_p(o.prov, err, sizeof err) != 0 ||
                    prov_manifest(pv, manifest, err, sizeof err) != 0)) {
        ut_err("%s", err);
        rc = -1;
    }
    if (prov_end(pv, rc == 0 ? 0 : 1, o.prov, err, sizeof err) != 0) {
        ut_err("%s", err);
        rc = -1;
    }
    return rc == 0 ? 0 : 1;
}
