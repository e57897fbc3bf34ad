/* bench_run: figures of one run folder, read from its raw files
 * (decoded by lab/raw/raw4.c; scores not looked at) and run.json, for `make bench`.
 *
 *   bench_run DIR      prints answers/s, latency and lateness percentiles,
 *                      CPU shares and peak memory, one figure a line */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "raw4.h"

static int cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double pct(const int64_t *v, size_t n, double q)
{
    if (!n)
        return 0;
    double h = (double)(n - 1) * q;
    size_t f = (size_t)h, c = f + 1 < n ? f + 1 : n - 1;
    return (double)v[f] + (h - (double)f) * (double)(v[c] - v[f]);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_run RUN_FOLDER\n");
        return 2;
    }
    char p[4096], err[512];
    raw4_run run;
    if (raw4_read_run(argv[1], NULL, &run, err, sizeof err) != 0) {
        fprintf(stderr, "bench_run: %s\n", err);
        return 1;
    }
    rawfmt_file t = run.f[RAW4_TESTER];
    snprintf(p, sizeof p, "%s/run.json", argv[1]);
    json_t *r = json_load_file(p, 0, NULL);
    if (!r) {
        fprintf(stderr, "bench_run: %s: unreadable\n", p);
        return 1;
    }
    double secs = json_real_value(json_object_get(r, "seconds"));
    int64_t *lat = malloc(t.n * sizeof *lat), *late = malloc(t.n * sizeof *late);
    size_t nl = 0, ok = 0;
    for (size_t i = 0; i < t.n; i++) {
        int64_t s = t.col[RAWFMT_TESTER_sched_t][i], a = t.col[RAWFMT_TESTER_answer_t][i];
        late[i] = t.col[RAWFMT_TESTER_send_t][i] - s;
        if (a != RAW_NONE)
            lat[nl++] = a - s;
        ok += t.col[RAWFMT_TESTER_status][i] == 200;
    }
    qsort(lat, nl, sizeof *lat, cmp);
    qsort(late, t.n, sizeof *late, cmp);
    json_t *cpu = json_object_get(r, "cpu"), *mem = json_object_get(r, "peak_rss_kb");
    printf("requests %zu, answered 200: %zu in %.1f s = %.0f answers/s\n", t.n, ok, secs, (double)ok / secs);
    printf("latency ms: p50 %.3f  p99 %.3f  max %.3f\n", pct(lat, nl, 0.5) / 1e6, pct(lat, nl, 0.99) / 1e6,
           nl ? (double)lat[nl - 1] / 1e6 : 0);
    printf("tester lateness us (send - scheduled): p50 %.1f  p99 %.1f  max %.1f\n", pct(late, t.n, 0.5) / 1e3,
           pct(late, t.n, 0.99) / 1e3, t.n ? (double)late[t.n - 1] / 1e3 : 0);
    printf("cpu share of the run: service %.3f  store %.3f  tester %.3f\n",
           json_real_value(json_object_get(json_object_get(cpu, "service"), "share")),
           json_real_value(json_object_get(json_object_get(cpu, "store"), "share")),
           json_real_value(json_object_get(json_object_get(cpu, "tester"), "share")));
    printf("peak resident memory MB: service %.1f  store %.1f  tester %.1f\n",
           (double)json_integer_value(json_object_get(mem, "service")) / 1024,
           (double)json_integer_value(json_object_get(mem, "store")) / 1024,
           (double)json_integer_value(json_object_get(mem, "tester")) / 1024);
    free(lat);
    free(late);
    raw4_run_free(&run);
    json_decref(r);
    return 0;
}
