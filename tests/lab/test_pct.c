/* The one percentile (lab/base/util.h: ut_pct_rank, ut_pct_between) through
 * every caller's path in the lab: ut_pct_sorted (collect's quiet rules via
 * quiet_judge, the tester's lateness via trec_write_summary, demo), and
 * play's ppct_of (selection, not sorting), on hand-computed cases; all give
 * the same numbers, bit for bit.  pipeline/ap's apboot_percentile: the same
 * cases in tests/pipeline/test_appct.c. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pctcases.h"
#include "playpct.h"
#include "quiet.h"
#include "trecord.h"
#include "util.h"

/* v: the case's values shuffled (ppct_of and the callers must not need them sorted). */
static void shuffled(const pct_case *c, int64_t *v)
{
    for (size_t i = 0; i < c->n; i++)
        v[i] = pct_value(c, i);
    ut_rng r;
    ut_rng_seed(&r, 7);
    for (size_t i = c->n; i > 1; i--) {
        size_t j = (size_t)(ut_rng_unit(&r) * (double)i);
        int64_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

Test(pct, every_lab_path_gives_the_hand_computed_numbers)
{
    int64_t v[PCT_MAXN];
    for (size_t k = 0; k < sizeof PCT_CASES / sizeof PCT_CASES[0]; k++) {
        const pct_case *c = &PCT_CASES[k];
        shuffled(c, v);
        ut_sort_i64(v, c->n);
        double want = ut_pct_sorted(v, c->n, c->q);
        cr_assert_float_eq(want, c->want, 1e-9, "%s: ut_pct_sorted %.17g", c->name, want);
        shuffled(c, v);
        double sel = ppct_of(v, c->n, c->q);
        cr_assert(sel == want, "%s: ppct_of %.17g, ut_pct_sorted %.17g", c->name, sel, want);
    }
    cr_assert(isnan(ut_pct_sorted(v, 0, 0.5)), "no value: NAN");
}

/* quiet_judge's late_p99_ms (data/quiet.tsv's late_p99_max_ms rule): the
 * 0.99 cases, the values in ms. */
Test(pct, the_quiet_rules_lateness)
{
    int64_t v[PCT_MAXN];
    quiet_limits L = {1, 1, 1e9, 1e9, 0, 1};
    for (size_t k = 0; k < sizeof PCT_CASES / sizeof PCT_CASES[0]; k++) {
        const pct_case *c = &PCT_CASES[k];
        if (c->q != 0.99)
            continue;
        shuffled(c, v);
        for (size_t i = 0; i < c->n; i++)
            v[i] *= 1000000;
        quiet_result r;
        quiet_judge(&L, NULL, NULL, 0, v, c->n, &r);
        cr_assert_float_eq(r.late_p99_ms, c->want, 1e-9, "%s: %.17g", c->name, r.late_p99_ms);
    }
}

/* The tester's summary: late_p50_ns and late_p99_ns of send - sched. */
Test(pct, the_testers_lateness)
{
    char dir[] = "/tmp/pctXXXXXX", path[64], err[UT_ERRLEN];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/tester.json", dir);
    int64_t v[PCT_MAXN];
    trec req[PCT_MAXN];
    for (size_t k = 0; k < sizeof PCT_CASES / sizeof PCT_CASES[0]; k++) {
        const pct_case *c = &PCT_CASES[k];
        if (c->q != 0.99 && c->q != 0.5)
            continue;
        shuffled(c, v);
        for (size_t i = 0; i < c->n; i++)
            req[i] = (trec){.sched = 1000, .send = 1000 + v[i], .answer = RAW_NONE, .conn = -1, .kind = 'E'};
        trec_run o = {0};
        gate_res g = {.before_s = NAN}; /* no note: no before_s */
        cr_assert_eq(trec_write_summary(path, req, c->n, &o, &g), 0);
        json_error_t je;
        json_t *j = json_load_file(path, 0, &je);
        cr_assert_not_null(j, "%s", je.text);
        double got = json_real_value(json_object_get(j, c->q == 0.5 ? "late_p50_ns" : "late_p99_ns"));
        cr_assert_float_eq(got, c->want, 1e-9, "%s: %.17g", c->name, got);
        json_decref(j);
    }
    (void)err;
    unlink(path);
    rmdir(dir);
}
