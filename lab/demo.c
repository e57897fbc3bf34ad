/* demo: the four basic ways on this machine, in about a minute.
 *
 *   demo [--seconds 10] [--bin build/bin] [--prep build/prep] [--keep DIR]
 *
 * Runs, one after another, against the real store and service (a fresh pair
 * each, via build/bin/run): wait (no limit), a 25 ms limit with a stand-in,
 * two retries, and a second request after 10 ms (lab/demo_arms.tsv), each at
 * 200 requests/s with freezes; prints one table (p50, p99, max, stand-in
 * share, lookups per request) and the 25 ms stand-in's cost in AP over the
 * rows the requests asked for.  The first line says the times are this
 * machine's, with its cores and load: read the rows against each other, not
 * against the lab's numbers.  No idle gate (the load is printed instead).
 * Writes only into a temporary folder, removed at the end unless --keep.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ap.h"
#include "util.h"

static const char *const WAYS[] = {"wait", "limit25-standin", "two-retries", "hedge10"};
static const char *const LABEL[] = {"wait (no limit)", "25 ms limit, stand-in", "two retries", "ask twice after 10 ms"};

typedef struct {
    size_t n;
    int64_t *lat;      /* answered only, sorted */
    size_t nlat;
    size_t standins, lookups;
    long *rows;        /* per request */
    float *score;      /* per request */
    char *kind;        /* per request */
} way;

/* Columns of interest from a raw event file (lab/RAWFORMAT.md): rows of
 * int64 values, times decoded; -1 marks an absent value. */
static int read_events(const char *path, const char *const *want, int nwant, int64_t **out, size_t *nrows,
                       float **score)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return -1;
    size_t cap = 1 << 20, len = 0;
    char *b = malloc(cap);
    int r;
    while ((r = gzread(gz, b + len, (unsigned)(cap - len - 1))) > 0) {
        len += (size_t)r;
        if (cap - len < 65536)
            b = realloc(b, cap *= 2);
    }
    gzclose(gz);
    b[len] = 0;
    char *p = strchr(b, '\n');
    if (!p) {
        free(b);
        return -1;
    }
    char *head = p + 1, *nl = strchr(head, '\n');
    *nl = 0;
    int idx[16], ncol = 0, istime[32] = {0}, scorecol = -1;
    char *names[32];
    for (char *t = strtok(head, "\t"); t && ncol < 32; t = strtok(NULL, "\t")) {
        names[ncol] = t;
        istime[ncol] = strlen(t) > 2 && !strcmp(t + strlen(t) - 2, "_t");
        if (!strcmp(t, "score"))
            scorecol = ncol;
        ncol++;
    }
    for (int w = 0; w < nwant; w++) {
        idx[w] = -1;
        for (int c = 0; c < ncol; c++)
            if (!strcmp(names[c], want[w]))
                idx[w] = c;
    }
    size_t rows = 0;
    for (char *q = nl + 1; *q; q++)
        rows += *q == '\n';
    *out = malloc((rows + 1) * (size_t)nwant * sizeof **out);
    if (score)
        *score = malloc((rows + 1) * sizeof **score);
    int64_t acc[32] = {0};
    size_t n = 0;
    for (char *line = nl + 1; *line; n++) {
        char *e = strchr(line, '\n');
        *e = 0;
        int64_t vals[32];
        int c = 0;
        for (char *f = line; c < ncol; c++) {
            char *tab = strchr(f, '\t');
            if (tab)
                *tab = 0;
            if (!strcmp(f, "-"))
                vals[c] = -1;
            else if (c == scorecol) {
                vals[c] = 0;
                if (score)
                    (*score)[n] = strtof(f, NULL);
            } else if (f[0] && !f[1] && (f[0] < '0' || f[0] > '9'))
                vals[c] = f[0];
            else {
                vals[c] = strtoll(f, NULL, 10);
                if (istime[c])
                    vals[c] = acc[c] += vals[c];
            }
            f = tab ? tab + 1 : f + strlen(f);
        }
        for (int w = 0; w < nwant; w++)
            (*out)[n * (size_t)nwant + (size_t)w] = idx[w] >= 0 ? vals[idx[w]] : -1;
        line = e + 1;
    }
    free(b);
    *nrows = n;
    return 0;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double pct(const int64_t *v, size_t n, double q)
{
    if (!n)
        return NAN;
    double h = (double)(n - 1) * q;
    size_t f = (size_t)h, c = f + 1 < n ? f + 1 : n - 1;
    return (double)v[f] + (h - (double)f) * (double)(v[c] - v[f]);
}

static int load_way(const char *dir, way *w)
{
    char p[4400];
    memset(w, 0, sizeof *w);
    static const char *const tw[] = {"row", "sched_t", "answer_t", "kind"};
    int64_t *t;
    size_t n, ns;
    snprintf(p, sizeof p, "%s/tester.tsv.gz", dir);
    if (read_events(p, tw, 4, &t, &n, &w->score) != 0)
        return -1;
    w->n = n;
    w->lat = malloc((n + 1) * sizeof *w->lat);
    w->rows = malloc((n + 1) * sizeof *w->rows);
    w->kind = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        int64_t *r = t + i * 4;
        w->rows[i] = (long)r[0];
        w->kind[i] = (char)r[3];
        if (r[2] >= 0)
            w->lat[w->nlat++] = r[2] - r[1];
        w->standins += r[3] == 'K' || r[3] == 'D';
    }
    qsort(w->lat, w->nlat, sizeof *w->lat, cmp64);
    free(t);
    static const char *const sw[] = {"req"};
    snprintf(p, sizeof p, "%s/store.tsv.gz", dir);
    if (read_events(p, sw, 1, &t, &ns, NULL) != 0)
        return -1;
    w->lookups = ns;
    free(t);
    return 0;
}

int main(int argc, char **argv)
{
    ut_set_prog("demo");
    const char *bin = "build/bin", *prep = "build/prep", *keep = NULL;
    double seconds = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seconds"))
            seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--bin"))
            bin = argv[i + 1];
        else if (!strcmp(argv[i], "--prep"))
            prep = argv[i + 1];
        else if (!strcmp(argv[i], "--keep"))
            keep = argv[i + 1];
        else {
            ut_err("unknown option %s (see the header of lab/demo.c)", argv[i]);
            return 2;
        }
    }
    if (argc % 2 == 0 || seconds <= 0) {
        ut_err("usage: demo [--seconds 10] [--bin build/bin] [--prep build/prep] [--keep DIR]");
        return 2;
    }
    double load[1] = {0};
    getloadavg(load, 1);
    printf("Every time below was measured on THIS machine (%ld cores, 1-minute load %.2f), as it is right now:\n"
           "read the four rows against each other, not against the lab's numbers.\n",
           sysconf(_SC_NPROCESSORS_ONLN), load[0]);
    printf("Requests arrive at random, 200 a second for %g s; the store has 16 slots and 1 lookup in 100 freezes "
           "for 1 to 2 s.\n\n", seconds);
    char tmp[64] = "/tmp/labdemoXXXXXX", dir[4200], cmd[8192];
    const char *root = keep;
    if (!root) {
        if (!mkdtemp(tmp)) {
            ut_err("cannot make a temporary folder");
            return 1;
        }
        root = tmp;
    }
    way w[4];
    printf("  %-24s %9s %9s %9s %10s %9s\n", "way", "p50 ms", "p99 ms", "max ms", "stand-in", "lookups/request");
    int rc = 0;
    for (int i = 0; i < 4 && rc == 0; i++) {
        snprintf(cmd, sizeof cmd,
                 "%s/run --arms lab/demo_arms.tsv --arm %s --round 1 --seconds %g --gate 0 --settle-s 0.2 "
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
        if (load_way(dir, &w[i]) != 0) {
            ut_err("%s: unreadable raw files", dir);
            rc = 1;
            break;
        }
        printf("  %-24s %9.2f %9.2f %9.1f %9.2f%% %9.3f\n", LABEL[i], pct(w[i].lat, w[i].nlat, 0.5) / 1e6,
               pct(w[i].lat, w[i].nlat, 0.99) / 1e6, w[i].nlat ? (double)w[i].lat[w[i].nlat - 1] / 1e6 : NAN,
               100.0 * (double)w[i].standins / (double)w[i].n, (double)w[i].lookups / (double)w[i].n);
        fflush(stdout);
    }
    if (rc == 0) {
        /* The 25 ms stand-in's cost in AP over the rows the requests asked for. */
        char path[4200];
        snprintf(path, sizeof path, "%s/scores.tsv", prep);
        FILE *f = fopen(path, "r");
        size_t cap = 1 << 16, nr = 0;
        float *score = malloc(cap * sizeof *score);
        uint8_t *label = malloc(cap);
        int32_t *cut = malloc(cap * sizeof *cut);
        char line[512];
        if (!f || !fgets(line, sizeof line, f)) {
            ut_err("%s: cannot read: run make prepare first", path);
            rc = 1;
        } else {
            int y, m, d, lab;
            float s;
            while (fgets(line, sizeof line, f) && sscanf(line, "%*d\t%d-%d-%d\t%d\t%f", &y, &m, &d, &lab, &s) == 5) {
                if (nr == cap) {
                    cap *= 2;
                    score = realloc(score, cap * sizeof *score);
                    label = realloc(label, cap);
                    cut = realloc(cut, cap * sizeof *cut);
                }
                score[nr] = s;
                label[nr] = (uint8_t)lab;
                cut[nr++] = ut_days_from_civil(y, m, d);
            }
            fclose(f);
            const way *b = &w[1];
            float *live = malloc(b->n * sizeof *live), *with = malloc(b->n * sizeof *with);
            uint8_t *yy = malloc(b->n);
            int32_t *cc = malloc(b->n * sizeof *cc);
            size_t k = 0, used = 0;
            for (size_t j = 0; j < b->n; j++) {
                long r = b->rows[j];
                if (r < 0 || (size_t)r >= nr)
                    continue;
                live[k] = score[r];
                with[k] = (b->kind[j] == 'K' || b->kind[j] == 'D') ? b->score[j] : score[r];
                used += b->kind[j] == 'K' || b->kind[j] == 'D';
                yy[k] = label[r];
                cc[k++] = cut[r];
            }
            double a = ap_mean_by_group(live, yy, cc, k), c = ap_mean_by_group(with, yy, cc, k);
            printf("\nThe 25 ms stand-in's cost in ranking, on the %zu requested rows: AP %.4f with every answer live,\n"
                   "%.4f with its %zu stand-in answers (%+.4f)\n",
                   k, a, c, used, c - a);
            free(live);
            free(with);
            free(yy);
            free(cc);
        }
        free(score);
        free(label);
        free(cut);
    }
    if (!keep) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
        if (system(cmd) != 0)
            ut_err("could not remove %s", tmp);
    }
    return rc;
}
