/* prepare: shop events -> monthly features -> model -> the lab's prepared files.
 *
 *   prepare [--prep DIR] [--prov DIR] [--data DIR] [--seed N] [--model-seed N]
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
 * then registers data/guesses.tsv and data/design.md (prereg.json) and writes
 * the stage's provenance record and fingerprint manifest into --prov.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ap.h"
#include "feat.h"
#include "prov.h"
#include "shop.h"
#include "train.h"
#include "trees.h"
#include "util.h"

#define SHOP_SEED 20261011ULL
#define SHUFFLE_SEED 9ULL

/* Training cutoffs 2010-03 .. 2011-05; test cutoffs 2011-06 .. 2011-11.  The
 * features of 2010-02 serve only as last-known rows of 2010-03. */
enum { FIRST_Y = 2010, FIRST_M = 2, NCUT = 22, TRAIN_FROM = 1, TEST_FROM = 16 };

typedef struct {
    const char *prep, *prov, *data;
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

static int out_file(prov *pv, const opts *o, const char *name, char *path, size_t n, ut_afile *a,
                    char *err, size_t errlen)
{
    (void)pv;
    snprintf(path, n, "%s/%s", o->prep, name);
    return ut_aopen(a, path, err, errlen);
}

/* Register the guesses and the design: keep the first registration time while
 * their hashes stay the same. */
static int preregister(const opts *o, prov *pv, char *err, size_t errlen)
{
    const char *files[] = {"guesses.tsv", "design.md"};
    json_t *reg = json_object(), *list = json_array();
    char path[4096], old[4096];
    snprintf(old, sizeof old, "%s/prereg.json", o->prov);
    json_t *prev = json_load_file(old, 0, NULL);
    int same = prev != NULL;
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", o->data, files[i]);
        char sha[65];
        uint64_t size;
        if (ut_sha256_file(path, sha, &size, err, errlen) != 0) {
            json_decref(reg);
            json_decref(list);
            json_decref(prev);
            return -1;
        }
        if (prov_input(pv, path, err, errlen) != 0)
            return -1;
        json_t *e = json_object();
        json_object_set_new(e, "path", json_string(path));
        json_object_set_new(e, "sha256", json_string(sha));
        json_object_set_new(e, "size", json_integer((json_int_t)size));
        json_array_append_new(list, e);
        json_t *pf = prev ? json_array_get(json_object_get(prev, "files"), i) : NULL;
        const char *psha = pf ? json_string_value(json_object_get(pf, "sha256")) : NULL;
        if (!psha || strcmp(psha, sha) != 0)
            same = 0;
    }
    char now[32];
    ut_utc_iso(now);
    const char *when = same ? json_string_value(json_object_get(prev, "registered_utc")) : now;
    json_object_set_new(reg, "registered_utc", json_string(when ? when : now));
    json_object_set_new(reg, "files", list);
    int rc = 0;
    if (!same) {
        char *text = json_dumps(reg, JSON_INDENT(1));
        rc = ut_mkdir_p(o->prov, err, errlen) == 0 && ut_write_file(old, text, strlen(text), err, errlen) == 0
                 ? 0
                 : -1;
        free(text);
        printf("prepare: registered %s/guesses.tsv and %s/design.md at %s\n", o->data, o->data, now);
    }
    json_decref(reg);
    json_decref(prev);
    return rc;
}

static int run(const opts *o, prov *pv, char *err, size_t errlen)
{
    int rc = -1;
    int64_t t = ut_mono_ns(), t_all = t;
    shop_data shop = {0};
    feat_row *rows = NULL, *train = NULL, *test = NULL;
    float *score_all = NULL, *score_test = NULL, *lastk = NULL;
    size_t *perm = NULL;
    uint8_t *had_prev = NULL;
    trees *tr = NULL;
    train_model model = NULL;
    char path[4096], shop_path[4096];
    ut_afile a = {0};

    if (ut_mkdir_p(o->prep, err, errlen) != 0)
        goto done;
    /* 1. The shop. */
    snprintf(shop_path, sizeof shop_path, "%s/online_retail_II.csv", o->data);
    int real = file_exists(shop_path);
    if (!real) {
        snprintf(shop_path, sizeof shop_path, "%s/shop.csv", o->prep);
        if (shop_generate(o->seed, shop_path, err, errlen) != 0)
            goto done;
        step("generate shop", &t);
    }
    if (prov_input(pv, shop_path, err, errlen) != 0)
        goto done;
    if (shop_load(shop_path, &shop, err, errlen) != 0)
        goto done;
    step("load shop", &t);

    /* 2. Features at every cutoff. */
    int32_t cut[NCUT];
    for (int k = 0; k < NCUT; k++) {
        int m0 = FIRST_M - 1 + k;
        cut[k] = ut_days_from_civil(FIRST_Y + m0 / 12, m0 % 12 + 1, 1);
    }
    size_t n = 0;
    if (feat_build(&shop, cut, NCUT, &rows, &n, err, errlen) != 0)
        goto done;
    size_t ntrain = 0, ntest = 0;
    train = malloc(n * sizeof *train);
    test = malloc(n * sizeof *test);
    if (!train || !test)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].cutoff >= cut[TEST_FROM])
            test[ntest++] = rows[i];
        else if (rows[i].cutoff >= cut[TRAIN_FROM])
            train[ntrain++] = rows[i];
    }
    if (ntrain == 0 || ntest == 0) {
        ut_seterr(err, errlen, "%s: no %s rows: the shop has no orders before the cutoffs", shop_path,
                  ntrain ? "test" : "training");
        goto done;
    }
    step("features", &t);

    /* 3. The model. */
    train_params tp;
    train_defaults(&tp);
    tp.seed = o->model_seed;
    if (train_fit(train, ntrain, &tp, &model, err, errlen) != 0)
        goto done;
    step("train model", &t);
    score_all = malloc(n * sizeof *score_all);
    if (!score_all)
        goto oom;
    if (train_predict(model, rows, n, score_all, err, errlen) != 0)
        goto done;
    snprintf(path, sizeof path, "%s/model.json", o->prep);
    if (train_save(model, path, err, errlen) != 0)
        goto done;
    double buyers = 0;
    for (size_t i = 0; i < ntrain; i++)
        buyers += train[i].label;
    const float dflt = (float)(buyers / (double)ntrain);

    /* 4. The service's evaluator must give XGBoost's scores, bit for bit. */
    if (trees_load(path, &tr, err, errlen) != 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        float s = trees_score(tr, rows[i].x);
        if (memcmp(&s, &score_all[i], sizeof s) != 0) {
            char c[11];
            day_str(rows[i].cutoff, c);
            ut_seterr(err, errlen,
                      "%s: the tree evaluator gives %.9g but XGBoost %.9g for customer %d at %s",
                      path, s, score_all[i], rows[i].customer, c);
            goto done;
        }
    }
    step("predict and cross-check", &t);

    /* 5. Test rows in a seeded shuffle, their scores and last-known scores. */
    perm = malloc(ntest * sizeof *perm);
    score_test = malloc(ntest * sizeof *score_test);
    lastk = malloc(ntest * sizeof *lastk);
    had_prev = malloc(ntest);
    uint8_t *lab = malloc(ntest);
    int32_t *grp = malloc(ntest * sizeof *grp);
    if (!perm || !score_test || !lastk || !had_prev || !lab || !grp) {
        free(lab);
        free(grp);
        goto oom;
    }
    for (size_t i = 0; i < ntest; i++)
        perm[i] = i;
    ut_rng rng;
    ut_rng_seed(&rng, SHUFFLE_SEED);
    for (size_t i = ntest - 1; i > 0; i--) {
        size_t j = (size_t)(ut_rng_u64(&rng) % (i + 1));
        size_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    size_t nprev = 0;
    for (size_t i = 0; i < ntest; i++) {
        const feat_row *r = &test[perm[i]];
        long at = find_row(rows, n, r->customer, r->cutoff);
        score_test[i] = score_all[at];
        int y, m, d;
        ut_civil_from_days(r->cutoff, &y, &m, &d);
        int32_t pc = m == 1 ? ut_days_from_civil(y - 1, 12, 1) : ut_days_from_civil(y, m - 1, 1);
        long pa = find_row(rows, n, r->customer, pc);
        lastk[i] = pa >= 0 ? score_all[pa] : dflt;
        had_prev[i] = pa >= 0;
        nprev += pa >= 0;
        lab[i] = r->label;
        grp[i] = r->cutoff;
    }
    double test_ap = ap_mean_by_group(score_test, lab, grp, ntest);
    double lk_ap = ap_mean_by_group(lastk, lab, grp, ntest);
    free(lab);
    free(grp);
    if (isnan(test_ap)) {
        ut_seterr(err, errlen, "%s: a test cutoff has no buyer, so its AP is undefined", shop_path);
        goto done;
    }

    /* 6. The files. */
    char c[11];
    if (out_file(pv, o, "train.tsv", path, sizeof path, &a, err, errlen) != 0)
        goto done;
    fprintf(a.f, "customer\tcutoff\tlabel");
    feat_header(a.f);
    for (size_t i = 0; i < ntrain; i++) {
        day_str(train[i].cutoff, c);
        fprintf(a.f, "%d\t%s\t%d", train[i].customer, c, train[i].label);
        put_feats(a.f, train[i].x);
    }
    if (ut_aclose(&a, 1, err, errlen) != 0 || prov_output(pv, path, err, errlen) != 0)
        goto done;

    if (out_file(pv, o, "test.tsv", path, sizeof path, &a, err, errlen) != 0)
        goto done;
    fprintf(a.f, "row\tcustomer\tcutoff\tlabel");
    feat_header(a.f);
    for (size_t i = 0; i < ntest; i++) {
        const feat_row *r = &test[perm[i]];
        day_str(r->cutoff, c);
        fprintf(a.f, "%zu\t%d\t%s\t%d", i, r->customer, c, r->label);
        put_feats(a.f, r->x);
    }
    if (ut_aclose(&a, 1, err, errlen) != 0 || prov_output(pv, path, err, errlen) != 0)
        goto done;

    if (out_file(pv, o, "prev.tsv", path, sizeof path, &a, err, errlen) != 0)
        goto done;
    fprintf(a.f, "row\tcustomer\tcutoff");
    feat_header(a.f);
    for (size_t i = 0; i < ntest; i++) {
        const feat_row *r = &test[perm[i]];
        int y, m, d;
        ut_civil_from_days(r->cutoff, &y, &m, &d);
        int32_t pc = m == 1 ? ut_days_from_civil(y - 1, 12, 1) : ut_days_from_civil(y, m - 1, 1);
        long pa = find_row(rows, n, r->customer, pc);
        if (pa < 0)
            continue;
        day_str(pc, c);
        fprintf(a.f, "%zu\t%d\t%s", i, r->customer, c);
        put_feats(a.f, rows[pa].x);
    }
    if (ut_aclose(&a, 1, err, errlen) != 0 || prov_output(pv, path, err, errlen) != 0)
        goto done;

    if (out_file(pv, o, "requests.tsv", path, sizeof path, &a, err, errlen) != 0)
        goto done;
    fprintf(a.f, "j\trow\tcustomer\tcutoff\n");
    for (size_t i = 0; i < ntest; i++) {
        const feat_row *r = &test[perm[i]];
        day_str(r->cutoff, c);
        fprintf(a.f, "%zu\t%zu\t%d\t%s\n", i, i, r->customer, c);
    }
    if (ut_aclose(&a, 1, err, errlen) != 0 || prov_output(pv, path, err, errlen) != 0)
        goto done;

    /* The service's stand-ins: row kind score. */
    if (out_file(pv, o, "standin.tsv", path, sizeof path, &a, err, errlen) != 0)
        goto done;
    fprintf(a.f, "row\tkind\tscore\n");
    for (size_t i = 0; i < ntest; i++)
        fprintf(a.f, "%zu\t%s\t%.9g\n", i, had_prev[i] ? "last_known" : "default", lastk[i]);
    if (ut_aclose(&a, 1, err, errlen) != 0 || prov_output(pv, path, err, errlen) != 0)
        goto done;

    if (out_file(pv, o, "scores.tsv", path, sizeof path, &a, err, errlen) != 0)
        goto done;
    fprintf(a.f, "customer\tcutoff\tlabel\tscore\tlast_known\n");
    for (size_t i = 0; i < ntest; i++) {
        const feat_row *r = &test[perm[i]];
        day_str(r->cutoff, c);
        fprintf(a.f, "%d\t%s\t%d\t%.9g\t%.9g\n", r->customer, c, r->label, score_test[i], lastk[i]);
    }
    if (ut_aclose(&a, 1, err, errlen) != 0 || prov_output(pv, path, err, errlen) != 0)
        goto done;

    /* summary.json */
    json_t *s = json_object(), *cuts = json_array(), *tc = json_array();
    for (int k = TRAIN_FROM; k < NCUT; k++) {
        day_str(cut[k], c);
        json_array_append_new(k < TEST_FROM ? cuts : tc, json_string(c));
    }
    char vbuf[64];
    train_version(vbuf, sizeof vbuf);
    json_object_set_new(s, "shop", json_string(real ? "real file" : "generated"));
    json_object_set_new(s, "shop_rows", json_integer((json_int_t)shop.rows));
    json_object_set_new(s, "shop_guest_rows", json_integer((json_int_t)shop.guests));
    json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(s, "model_seed", json_integer(o->model_seed));
    json_object_set_new(s, "shuffle_seed", json_integer((json_int_t)SHUFFLE_SEED));
    json_object_set_new(s, "train_cutoffs", cuts);
    json_object_set_new(s, "test_cutoffs", tc);
    json_object_set_new(s, "train_rows", json_integer((json_int_t)ntrain));
    json_object_set_new(s, "test_rows", json_integer((json_int_t)ntest));
    json_object_set_new(s, "test_rows_with_last_known", json_integer((json_int_t)nprev));
    json_object_set_new(s, "default_score", json_real(dflt));
    json_object_set_new(s, "test_ap", json_real(test_ap));
    json_object_set_new(s, "last_known_ap", json_real(lk_ap));
    json_object_set_new(s, "model", json_pack("{s:s,s:i,s:i,s:f,s:f,s:f}", "library", vbuf, "rounds",
                                              tp.rounds, "max_depth", tp.max_depth, "eta", tp.eta,
                                              "subsample", tp.subsample, "min_child_weight",
                                              tp.min_child_weight));
    char *text = json_dumps(s, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    json_decref(s);
    snprintf(path, sizeof path, "%s/summary.json", o->prep);
    int bad = !text || ut_write_file(path, text, strlen(text), err, errlen) != 0;
    free(text);
    if (bad || prov_output(pv, path, err, errlen) != 0)
        goto done;
    snprintf(path, sizeof path, "%s/model.json", o->prep);
    if (prov_output(pv, path, err, errlen) != 0)
        goto done;
    step("write files", &t);

    if (preregister(o, pv, err, errlen) != 0)
        goto done;
    prov_lib(pv, "xgboost", vbuf + 8);
    printf("prepare: %zu shop rows (%zu guest rows), %zu training rows, %zu test rows\n", shop.rows,
           shop.guests, ntrain, ntest);
    printf("prepare: test AP %.4f (mean over %d test cutoffs); last-known scores alone %.4f; "
           "default score %.4f\n",
           test_ap, NCUT - TEST_FROM, lk_ap, dflt);
    printf("prepare: %-28s %6.2f s\n", "total", secs_since(t_all));
    rc = 0;
    goto done;
oom:
    ut_seterr(err, errlen, "prepare: out of memory");
done:
    if (a.f)
        ut_aclose(&a, 0, NULL, 0);
    shop_free(&shop);
    free(rows);
    free(train);
    free(test);
    free(score_all);
    free(score_test);
    free(lastk);
    free(had_prev);
    free(perm);
    trees_free(tr);
    train_free(model);
    return rc;
}

int main(int argc, char **argv)
{
    ut_set_prog("prepare");
    opts o = {"build/prep", "provenance", "data", SHOP_SEED, 1};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            ut_err("option %s needs a value", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--prep"))
            o.prep = v;
        else if (!strcmp(argv[i], "--prov"))
            o.prov = v;
        else if (!strcmp(argv[i], "--data"))
            o.data = v;
        else if (!strcmp(argv[i], "--seed"))
            o.seed = strtoull(v, NULL, 10);
        else if (!strcmp(argv[i], "--model-seed"))
            o.model_seed = atoi(v);
        else {
            ut_err("unknown option %s (see the header of pipeline/prepare.c)", argv[i]);
            return 2;
        }
        i++;
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
