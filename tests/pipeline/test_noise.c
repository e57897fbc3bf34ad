/* The twin's noise model (pipeline/measure/noise.h): data/noise.tsv written
 * and read back the same, its faults named by line and field, a replica's
 * scale drawn from the fitted runs, and the fit on a hand-made run (two
 * answered lookups whose overshoot and trips are known). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "noise.h"
#include "util.h"

static char dir[64];
static void mk(void)
{
    snprintf(dir, sizeof dir, "/tmp/lab-test-noise-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}
static void rm(void) { ut_rm_tree(dir); }

static void gzput(const char *path, const char *text)
{
    gzFile g = gzopen(path, "wb");
    cr_assert_not_null(g);
    gzputs(g, text);
    gzclose(g);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

#define SV_HDR "req\tarrive_us\tanswer_us\tstatus\tkind\tlookups\tstore\ta0_start_us\ta0_end_us\ta0_out\t" \
               "a1_start_us\ta1_end_us\ta1_out\ta2_start_us\ta2_end_us\ta2_out\ta3_start_us\ta3_end_us\ta3_out\t" \
               "a4_start_us\ta4_end_us\ta4_out\n"
#define DASH9 "-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-"

/* One quiet 300/s run: lookup (0,0) overshoots 40 us, its answer 100 us
 * late in all (trips 60); lookup (1,0) 20 and 50 (trips 30); a timed-out
 * lookup and a disturbed run are left out. */
Test(noise, fit_on_a_hand_made_run, .init = mk, .fini = rm)
{
    char p[256], raw[128];
    snprintf(raw, sizeof raw, "%s/results/raw", dir);
    const char *runs[] = {"F3-none-r1", "F3-none-r2"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "mkdir -p %s/%s", raw, runs[i]);
        cr_assert_eq(system(p), 0);
        snprintf(p, sizeof p, "%s/%s/run.json", raw, runs[i]);
        put(p, i == 0 ? "{\"rate\": 300, \"fault\": {\"name\": \"none\"}, \"quiet\": {\"quiet\": true}}"
                      : "{\"rate\": 300, \"fault\": {\"name\": \"none\"}, \"quiet\": {\"quiet\": false}}");
        snprintf(p, sizeof p, "%s/%s/store.tsv.gz", raw, runs[i]);
        gzput(p, "# lab-raw 4 store\nreq\tattempt\tarrive_us\tstart_us\tend_us\tbudget_ns\toutcome\tline\tbusy\n"
                 "0\t0\t10\t0\t40\t0\tA\t0\t0\n1\t0\t10\t0\t20\t0\tA\t0\t0\n2\t0\t10\t0\t900\t0\tA\t0\t0\n");
        snprintf(p, sizeof p, "%s/%s/service.tsv.gz", raw, runs[i]);
        gzput(p, "# lab-raw 4 service\n" SV_HDR "0\t5\t1\t200\tL\t1\t1\t1\t100\tA\t" DASH9 "\n"
                 "1\t5\t1\t200\tL\t1\t1\t1\t50\tA\t" DASH9 "\n"
                 "2\t5\t1\t200\tK\t1\t1\t1\t25000\tT\t" DASH9 "\n");
    }
    noise_model m;
    char err[UT_ERRLEN];
    cr_assert_eq(noise_fit(&m, dir, err, sizeof err), 0, "%s", err);
    cr_assert_eq(m.ng, 1);
    const noise_group *g = noise_for_rate(&m, 300);
    cr_assert_not_null(g);
    cr_assert_eq(g->runs, 1, "the disturbed run is left out");
    cr_assert_eq(g->lookups, 2, "the timed-out lookup is left out");
    cr_assert_eq(g->trips[0], 30000);
    cr_assert_eq(g->trips[NOISE_NQ - 1], 60000);
    cr_assert_eq(g->trips[50], 45000, "the median of 30 and 60 us");
    cr_assert_eq(g->over[0], 20000);
    cr_assert_eq(g->over[NOISE_NQ - 1], 40000);
    cr_assert_eq(g->nscale, 1);
    cr_assert_float_eq(g->scale[0], 1.0, 1e-12);
    /* written and read back the same */
    snprintf(p, sizeof p, "%s/noise.tsv", dir);
    cr_assert_eq(noise_write(&m, p, "a test", err, sizeof err), 0, "%s", err);
    noise_model b;
    cr_assert_eq(noise_read(&b, p, err, sizeof err), 0, "%s", err);
    const noise_group *h = noise_for_rate(&b, 300);
    cr_assert_not_null(h);
    cr_assert_null(noise_for_rate(&b, 450));
    cr_assert_eq(memcmp(h->trips, g->trips, sizeof g->trips), 0);
    cr_assert_eq(memcmp(h->over, g->over, sizeof g->over), 0);
    cr_assert_eq(h->runs, 1);
    psim_noise n;
    noise_replica(h, 3, &n);
    cr_assert_eq(n.key, NOISE_KEY + 3);
    cr_assert_float_eq(n.scale, 1.0, 1e-6);
    cr_assert_eq(n.nq, NOISE_NQ);
    noise_free(&b);
    noise_free(&m);
}

Test(noise, faults_named_by_line_and_field, .init = mk, .fini = rm)
{
    const char *bad[][2] = {
        {"200\truns\t0\t1\n", ":3: field rate \"200\""},
        {"300\twhat\t0\t1\n", ":3: field what \"what\""},
        {"300\ttrips\t1\t5\n", ":3: field k \"1\" out of order"},
        {"300\ttrips\t0\t5\n300\ttrips\t1\t4\n", ":4: field value \"4\" below the quantile"},
        {"300\tscale\t0\tx\n", ":3: field value \"x\" is not a number"},
        {"300\ttrips\t0\t5\n", "rate 300: 1 trips and 0 over quantiles"},
    };
    char p[256];
    snprintf(p, sizeof p, "%s/noise.tsv", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "# lab-noise 1: test\nrate\twhat\tk\tvalue\n%s", bad[i][0]);
        put(p, text);
        noise_model m;
        char err[UT_ERRLEN] = "";
        cr_assert_eq(noise_read(&m, p, err, sizeof err), -1, "case %zu", i);
        cr_assert(strstr(err, bad[i][1]), "case %zu: %s", i, err);
    }
}

/* The committed model reads back whole. */
Test(noise, committed_model_reads)
{
    noise_model m;
    char err[UT_ERRLEN];
    cr_assert_eq(noise_read(&m, "data/noise.tsv", err, sizeof err), 0, "%s", err);
    cr_assert_eq(m.ng, 2);
    cr_assert_not_null(noise_for_rate(&m, 300));
    cr_assert_not_null(noise_for_rate(&m, 450));
    cr_assert_gt(noise_for_rate(&m, 300)->lookups, 1000);
    noise_free(&m);
}
