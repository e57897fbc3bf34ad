/* demo: the four basic ways on this machine, in about a minute.
 *
 *   demo [--seconds 10] [--bin build/bin] [--prep build/prep] [--keep DIR]
 *
 * Runs, one after another, against the real store and service (a fresh pair
 * each, via build/bin/run): wait (no limit), a 25 ms limit with a stand-in,
 * two retries, and a second request after 10 ms (lab/demo/demo_arms.tsv), each at
 * 200 requests/s with freezes; prints one table (p50, p99, max, stand-in
 * share, lookups per request) and the 25 ms stand-in's cost in AP over the
 * rows the requests asked for.  The first line says the times are this
 * machine's, with its cores and load: read the rows against each other, not
 * against the lab's numbers.  No idle gate (the load is printed instead).
 * Writes only into a temporary folder, removed at the end unless --keep.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ap.h"
#include "opt.h"
#include "raw4.h"
#include "sctab.h"
#include "util.h"

static const char *const WAYS[] = {"wait", "limit25-standin", "two-retries", "hedge10"};
static const char *const LABEL[] = {"wait (no limit)", "25 ms limit, stand-in", "two retries",
                                    "ask twice after 10 ms"};

typedef struct {
    size_t n;
    int64_t *lat;      /* answered only, sorted */
    size_t nlat;
    size_t standins, lookups;
    long *rows;        /* per request */
    float *score;      /* per request */
    char *kind;        /* per request */
} way;

static void way_free(way *w)
{
    free(w->lat);
    free(w->rows);
    free(w->score);
    free(w->kind);
}

/* One way's run folder: the tester's rows and the number of lookups the
 * store received (lab/RAWFORMAT.md, decoded by lab/raw/raw4.c with the
 * reference of prep). */
static int load_way(const char *dir, const char *prep, way *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    raw4_run run;
    if (raw4_read_run(dir, prep, &run, err, errlen) != 0)
        return -1;
    rawfmt_file t = run.f[RAW4_TESTER];
    memset(&run.f[RAW4_TESTER], 0, sizeof t);
    w->lookups = run.f[RAW4_STORE].n;
    raw4_run_free(&run);
    size_t n = t.n;
    w->n = n;
    w->lat = malloc((n + 1) * sizeof *w->lat);
    w->rows = malloc((n + 1) * sizeof *w->rows);
    w->score = malloc((n + 1) * sizeof *w->score);
    w->kind = malloc(n + 1);
    if (!w->lat || !w->rows || !w->score || !w->kind) {
        ut_seterr(err, errlen, "%s: out of memory", dir);
        rawfmt_file_free(&t);
        way_free(w);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t answer = t.col[RAWFMT_TESTER_answer_t][i], score = t.col[RAWFMT_TESTER_score][i];
        char kind = (char)t.col[RAWFMT_TESTER_kind][i];
        w->rows[i] = (long)t.col[RAWFMT_TESTER_row][i];
        w->kind[i] = kind;
        w->score[i] = score == RAW_NONE ? 0 : rawfmt_float(score);
        if (answer != RAW_NONE)
            w->lat[w->nlat++] = answer - t.col[RAWFMT_TESTER_sched_t][i];
        w->standins += kind == 'K' || kind == 'D';
    }
    ut_sort_i64(w->lat, w->nlat);
    rawfmt_file_free(&t);
    return 0;
}

/* build/prep/scores.tsv (customer cutoff label score last_known, one line
 * per test row): each row's live score, label and cutoff day. */
typedef struct {
    size_t n;
    float *score;
    uint8_t *label;
    int32_t *cut;
} scores;

static void scores_free(scores *s)
{
    free(s->score);
    free(s->label);
    free(s->cut);
}

/* scores.tsv through its one reader (lab/core/sctab.h): its score, label
 * and cutoff columns taken over. */
static int read_scores(const char *path, scores *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    sctab t;
    if (sctab_load(path, 0, &t, err, errlen) != 0)
        return -1;
    s->n = t.n;
    s->score = t.score;
    s->label = t.label;
    s->cut = t.cutoff;
    t.score = NULL;
    t.label = NULL;
    t.cutoff = NULL;
    sctab_free(&t);
    return 0;
}

/* The 25 ms stand-in's cost in AP over the rows the requests asked for. */
static int standin_cost(const char *prep, const way *b)
{
    char path[4200], err[UT_ERRLEN];
    snprintf(path, sizeof path, "%s/scores.tsv", prep);
    scores sc;
    if (read_scores(path, &sc, err, sizeof err) != 0) {
        ut_err("%s (run make prepare first)", err);
        return -1;
    }
    float *live = malloc((b->n + 1) * sizeof *live), *with = malloc((b->n + 1) * sizeof *with);
    uint8_t *yy = malloc(b->n + 1);
    int32_t *cc = malloc((b->n + 1) * sizeof *cc);
    int rc = -1;
    if (!live || !with || !yy || !cc) {
        ut_err("out of memory");
        goto done;
    }
    size_t k = 0, used = 0;
    for (size_t j = 0; j < b->n; j++) {
        long r = b->rows[j];
        if (r < 0 || (size_t)r >= sc.n)
            continue;
        int standin = b->kind[j] == 'K' || b->kind[j] == 'D';
        live[k] = sc.score[r];
        with[k] = standin ? b->score[j] : sc.score[r];
        used += standin;
        yy[k] = sc.label[r];
        cc[k++] = sc.cut[r];
    }
    double a = ap_mean_by_group(live, yy, cc, k), c = ap_mean_by_group(with, yy, cc, k);
    printf("\nThe 25 ms stand-in's cost in ranking, on the %zu requested rows: AP %.4f with every answer live,\n"
           "%.4f with its %zu stand-in answers (%+.4f)\n",
           k, a, c, used, c - a);
    rc = 0;
done:
    free(live);
    free(with);
    free(yy);
    free(cc);
    scores_free(&sc);
    return rc;
}

int main(int argc, char **argv)
{
    ut_set_prog("demo");
    const char *bin = "build/bin", *prep = "build/prep", *keep = NULL;
    double seconds = 10;
    const opt_spec spec[] = {
        {"--seconds", OPT_DBL, &seconds, 0, 3600, "S", "each way's run length (10)"},
        {"--bin", OPT_STR, &bin, 0, 0, "DIR", "the programs (build/bin)"},
        {"--prep", OPT_STR, &prep, 0, 0, "DIR", "the prepared files (build/prep)"},
        {"--keep", OPT_STR, &keep, 0, 0, "DIR", "keep the runs in DIR (default: a temporary folder, removed)"},
        {0}};
    int prc = opt_parse(argc, argv, spec, "demo: the four basic ways on this machine, in about a minute", NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (seconds <= 0) {
        ut_err("option --seconds: \"0\": must be more than 0");
        return 2;
    }
    double load[1] = {0};
    getloadavg(load, 1);
    printf("Every time below was measured on THIS machine (%ld cores, 1-minute load %.2f), as it is right now:\n"
           "read the four rows against each other, not against the lab's numbers.\n",
           sysconf(_SC_NPROCESSORS_ONLN), load[0]);
    printf("Requests arrive at random, 200 a second for %g s; the store has 16 slots and 1 lookup in 100 freezes "
           "for 1 to 2 s.\n\n", seconds);
    char tmp[64] = "/tmp/labdemoXXXXXX", dir[4200], cmd[8192], err[UT_ERRLEN];
    const char *root = keep;
    if (!root) {
        if (!mkdtemp(tmp)) {
            ut_err("cannot make a temporary folder");
            return 1;
        }
        root = tmp;
    }
    way w[4];
    int nways = 0;
    printf("  %-24s %9s %9s %9s %10s %9s\n", "way", "p50 ms", "p99 ms", "max ms", "stand-in", "lookups/request");
    int rc = 0;
    for (int i = 0; i < 4 && rc == 0; i++) {
        snprintf(cmd, sizeof cmd,
                 "%s/run --arms lab/demo/demo_arms.tsv --arm %s --round 1 --seconds %g --gate 0 --settle-s 0.2 "
                 "--bin %s --prep %s --raw %s/raw > %s/run.log 2>&1",
                 bin, WAYS[i], seconds, bin, prep, root, root);
        if (system(cmd) != 0) {
            snprintf(cmd, sizeof cmd, "cat %s/run.log >&2", root);
            if (system(cmd) != 0) {
            }
            ut_err("the run of \"%s\" failed (its log is above)", LABEL[i]);
            rc = 1;
            break;
        }
        snprintf(dir, sizeof dir, "%s/raw/%s-r1", root, WAYS[i]);
        if (load_way(dir, prep, &w[i], err, sizeof err) != 0) {
            ut_err("%s", err);
            rc = 1;
            break;
        }
        nways++;
        printf("  %-24s %9.2f %9.2f %9.1f %9.2f%% %9.3f\n", LABEL[i], ut_pct_sorted(w[i].lat, w[i].nlat, 0.5) / 1e6,
               ut_pct_sorted(w[i].lat, w[i].nlat, 0.99) / 1e6, w[i].nlat ? (double)w[i].lat[w[i].nlat - 1] / 1e6 : NAN,
               100.0 * (double)w[i].standins / (double)w[i].n, (double)w[i].lookups / (double)w[i].n);
        fflush(stdout);
    }
    if (rc == 0 && standin_cost(prep, &w[1]) != 0)
        rc = 1;
    for (int i = 0; i < nways; i++)
        way_free(&w[i]);
    if (!keep) {
        if (ut_rm_tree(tmp) != 0)
            ut_err("could not remove %s", tmp);
    }
    return rc;
}
