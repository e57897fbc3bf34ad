/* noisefit: fits the twin's noise model (pipeline/measure/noise.h) on a
 * measured study's quiet runs and writes it (make noise).
 *
 *   noisefit --root DIR --out data/noise.tsv
 *
 * Reads DIR/results/raw/ (and DIR/results/results.json, for the floods),
 * writes only --out, atomically.  Exit 0; 1 a file not read or written;
 * 2 a bad option.  Prints one line per rate: runs, lookups, and the
 * median and 99th percentile of the trips and the overshoot. */
#include <stdio.h>
#include <string.h>

#include "noise.h"
#include "util.h"

int main(int argc, char **argv)
{
    ut_set_prog("noisefit");
    const char *root = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc)
            root = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else {
            ut_err("unknown option or missing value: %s (usage: noisefit --root DIR --out FILE)", argv[i]);
            return 2;
        }
    }
    if (!root || !out) {
        ut_err("usage: noisefit --root DIR --out FILE");
        return 2;
    }
    noise_model m;
    char err[UT_ERRLEN], src[512];
    if (noise_fit(&m, root, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 1;
    }
    long runs = 0;
    for (int i = 0; i < m.ng; i++)
        runs += m.g[i].runs;
    snprintf(src, sizeof src,
             "fitted by make noise from %ld quiet open-loop runs without a fault or a flood "
             "(pipeline/measure/noise.h)", runs);
    if (noise_write(&m, out, src, err, sizeof err) != 0) {
        ut_err("%s", err);
        noise_free(&m);
        return 1;
    }
    for (int i = 0; i < m.ng; i++) {
        const noise_group *g = &m.g[i];
        printf("noisefit: %d/s: %ld runs, %ld answered lookups; trips median %.0f us, p99 %.0f us; "
               "overshoot median %.0f us, p99 %.0f us; run scale %.2f to %.2f\n",
               g->rate, g->runs, g->lookups, g->trips[50] / 1e3, g->trips[99] / 1e3, g->over[50] / 1e3,
               g->over[99] / 1e3, g->scale[0], g->scale[g->nscale - 1]);
    }
    noise_free(&m);
    return 0;
}
