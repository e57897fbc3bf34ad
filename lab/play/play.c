/* play: the playground.  A deterministic simulation of the lab's store and
 * the service's policy that counts time in integer nanoseconds instead of
 * measuring it: no clock and no I/O while a seed runs.
 *
 *   play [--arm NAME[,NAME...]] [--arms lab/arms.tsv] [settings] [--seconds 30]
 *        [--seeds 1-5] [--csv] [--timeline] [--trace] [--summary]
 *
 * The policy is an arm of lab/arms.tsv (--arm H4-r2), or settings, or an arm
 * with some settings changed (--arm H4-r2 --deadline-ms 75 --down 1); the
 * settings are the columns of arms.tsv (see lab/core/arms.h, the store's fault
 * too: --fault down) and the store's slots; --help lists them with their
 * defaults.  Reading them is lab/play/playopt.c's job.  Several arms (--arm
 * H4-r2,H4-r2bud) run one after another over the same seeds, each with a
 * simulation of its own, and end with a table of the arms side by side.
 * What is simulated, and how: lab/play/playsim.h.  The prediction of a
 * study (registered by make measure) and docs/SIZING.md are measure's, made
 * by build/bin/predict from the same simulation (pipeline/measure/predict.h).
 *
 * Output (lab/play/playout.c): a line naming every setting, then per seed
 * (statistics as DESIGN.md section 7 defines them, the flood as
 * lab/play/playflood.h does):
 *   p99_ms          slowest 1 in 100 of the answered requests, from arrival
 *                   to answer (linear interpolation between closest ranks)
 *   standin_share   stand-in answers / requests
 *   lookups_per_request  lookups sent to the stores / requests
 *   longest_line    the longest line of lookups a lookup found waiting when
 *                   it reached its store (not counting itself: the store's
 *                   `line` column)
 *   flooded         yes when, in 3 seconds of arrival in a row (all the
 *                   seconds of a shorter run) out of the run's ceil(--seconds),
 *                   more than half of the requests got a stand-in or a 504
 *                   or no answer (a bad second without retries clears within
 *                   a second; a flood does not: seeds that tip late in a run
 *                   stay below a 30% share over the whole run, so a share
 *                   would miss them; lab/play/playflood.h)
 *   flood_from_s    the first of those seconds
 *   error_share     504s / requests (arms without a stand-in)
 *   slot_ms_per_request  slot time held in the stores / requests (their work)
 * then, with a fault, lab/play/playwin.c's figures (defined in
 * lab/play/playwin.h): lost (requests never answered), store_E, _N, _H, _R
 * (lookups the store answered unavailable, not found, held, cut),
 * lookup_ends_R (not sent: no connection), conn_lost, conn_failed,
 * conn_regained, and for a window its before/during/after counts,
 * during_lookups_per_request, first_live_after_ms, recovered_s,
 * before_lookups_100ms and recovery_lookups_100ms_max (a line and a small
 * table under the seed's row; CSV columns, empty without one); then the
 * defences' figures (lab/play/playdef.h: brk_opened ... brk_closed_ms,
 * breaker_refused, budget_refused, inflight_refused, retries_passed, and
 * the two stores' storeN_requests, _live_share, _p99_ms, over the run and
 * for the requests arriving in the window; text: a line or two under the
 * row when they apply, CSV: columns, empty where null), and in CSV the
 * arm's name last; then a row of medians over the seeds (text only, with a
 * line of the other figures' medians that are not null; --summary prints
 * only these), and a last line with the
 * simulated lookups and lookups per second of wall time (the clock is read
 * between seeds only; with --csv this line goes to stderr, so that stdout is
 * the same for the same settings and seeds).  --csv adds the counts.
 * --timeline adds, per second: requests arriving, lookups sent, stand-ins +
 * 504s among the requests arriving, and the longest line.  --trace adds,
 * per request: arrival, answer, kind (L live, S stand-in, E 504) and store
 * (1 or 2), and each lookup's start and end code as service.tsv.gz's aK_out
 * (O B Y: refused by a gate, start = end).  Several arms, or --summary,
 * end with the arms side by side (text only): per arm the flooded seeds
 * and the medians (means, largest) that tell the defences apart.
 *
 * Exit: 0; 2 for bad settings (one message naming the option); 1 when out of
 * memory.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "playopt.h"
#include "playout.h"
#include "playsim.h"
#include "util.h"

/* One seed's row and what was asked for under it; its figures for the
 * medians in m (pout_seed). */
static int print_seed(const psim *S, const play_result *R, const playopt *o, const char *name, int fault,
                      double m[PF_N])
{
    int had = o->summary && !o->csv ? pout_seed_figures(R, m) /* no row: only its figures */
                                    : pout_seed(R, name, o->csv, fault, m);
    if (o->timeline) {
        const play_second *sec;
        size_t nsec;
        psim_timeline(S, &sec, &nsec);
        pout_timeline(sec, nsec, R->seed, o->csv);
    }
    if (o->trace) {
        play_trace t;
        psim_trace(S, &t);
        pout_trace(&t, R->seed, o->csv);
    }
    fflush(stdout);
    return had;
}

/* Arm k over every seed, a row each (unless --summary), then its medians
 * (into sum) and the speed.  0, or 1 when out of memory. */
static int run_arm(const playopt *o, size_t k, play_arm_summary *sum)
{
    double *m[PF_N] = {0}; /* per seed with requests */
    int rc = 1;
    char head[4096];
    playopt_describe(o, k, PFLOOD_ROW, head, sizeof head);
    pout_header(head, o->csv, k == 0 || (!o->csv && !o->summary));
    const arm *a = &o->arms[k].a;
    psim_cfg cfg = {.a = a, .rows = o->arms[k].rows, .slots = o->slots, .conns = o->conns,
                    .timeline = o->timeline, .trace = o->trace};
    psim *S = psim_new(&cfg);
    int ok = S != NULL;
    for (int i = 0; i < PF_N; i++)
        ok &= (m[i] = malloc(o->nseeds * sizeof *m[i])) != NULL;
    if (!ok) {
        ut_err("out of memory");
        goto done;
    }
    int64_t wall = 0;
    uint64_t total_lookups = 0;
    size_t nm = 0;
    *sum = (play_arm_summary){.name = o->arms[k].name, .nseeds = o->nseeds};
    for (size_t s = 0; s < o->nseeds; s++) {
        play_result R;
        int64_t t0 = ut_mono_ns(); /* read between runs, never inside one */
        int bad_seed = psim_run(S, o->seconds, o->seeds[s], NULL, &R);
        wall += ut_mono_ns() - t0;
        if (bad_seed != 0) {
            ut_err("%s seed %" PRIu32 ": out of memory", o->arms[k].name, o->seeds[s]);
            goto done;
        }
        total_lookups += R.lookups;
        sum->nflood += R.flood.flooded;
        double row[PF_N];
        /* medians over the seeds with requests */
        if (print_seed(S, &R, o, o->arms[k].name, a->fault.kind != FAULT_NONE, row))
            for (int i = 0; i < PF_N; i++)
                m[i][nm] = row[i];
        nm += R.n != 0;
    }
    pout_medians(m, nm, sum->nflood, o->nseeds, !o->csv && (nm > 1 || o->summary), sum);
    double secs_wall = (double)wall / 1e9;
    fprintf(o->csv ? stderr : stdout,
            "simulated %" PRIu64 " lookups in %.3f s of wall time: %.2f million lookups a second\n",
            total_lookups, secs_wall, secs_wall > 0 ? (double)total_lookups / secs_wall / 1e6 : 0.0);
    rc = 0;
done:
    psim_free(S);
    for (int i = 0; i < PF_N; i++)
        free(m[i]);
    return rc;
}

int main(int argc, char **argv)
{
    ut_set_prog("play");
    playopt o;
    int rc = playopt_parse(argc, argv, &o);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? 0 : 2;
    if (o.predict || o.sizing) { /* measure's prediction, not the playground's */
        ut_err("--predict and --sizing are build/bin/predict's (pipeline/measure/predict.h)");
        playopt_free(&o);
        return 2;
    }
    play_arm_summary *sum = calloc(o.narms, sizeof *sum);
    rc = sum ? 0 : 1;
    if (!sum)
        ut_err("out of memory");
    for (size_t k = 0; k < o.narms && rc == 0; k++)
        rc = run_arm(&o, k, &sum[k]);
    if (rc == 0 && !o.csv && (o.narms > 1 || o.summary))
        pout_summary(sum, o.narms);
    free(sum);
    playopt_free(&o);
    return rc;
}
