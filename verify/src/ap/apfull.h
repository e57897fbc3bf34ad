/* apfull: the whole of results/ap.json recomputed and compared (pipeline/
 * APCOST.md 1.4-1.5, 1.10-1.13): every seed's live AP and changes, the
 * means over the seeds, every bootstrap resample, the intervals, their
 * Monte Carlo errors (format lab-ap 2), the verdicts, the entries of
 * flooded_runs (format 2) and results/ap_resamples.tsv.gz.
 *
 * Contract.  apfull_run builds the AP problem from the table, the customer
 * index, the scores of every seed (apfiles.h), the default score and the
 * recomputed arms (aparm.h: their rounds' stand-in rows; seed 1's numbers
 * are taken from there, computed directly), takes the bootstrap's settings
 * from ap.json's `bootstrap` (APCOST.md's B = 1000, seed 1, K = every seed
 * when they are not usable) and runs apboot.h; out->done says whether it
 * could (it needs the seeds' scores and the customer index).  The compare
 * functions record every difference with ap.json and the resample file as
 * mismatches (mm_add) within APCOST.md 1.13's rule.  apfull_member adds
 * the recomputed numbers to verified.json's "ap" member (in ap.json's
 * layout, plus `resamples`).  apfull_free frees out.  The inputs are only
 * read and stay the caller's.
 *
 * Units.  The bootstrap's "arms" are the chosen arms (in->arms, in->na)
 * followed, in format 2, by the quiet flooded runs (in->flood, in->nf;
 * APCOST.md 1.5 "At a flood's stand-in share": each an arm of one round,
 * its own run with M = its requests; ap_arm.arm holds the run's name).
 * Unit u < na is arms.<arm>, else flooded_runs.<run>; every per-unit array
 * below is indexed by u.  In format 2 the rounds of a chosen arm are
 * resampled too, from the arm's generator seeded with sigma XOR
 * FNV-1a-64(arm) (1.11); a flooded run has one round (m_b = 1).
 */
#ifndef APFULL_H
#define APFULL_H

#include <stddef.h>
#include <stdint.h>

#include "apboot.h"
#include "apfiles.h"
#include "aparm.h"
#include "apseeds.h"
#include "aptable.h"
#include "vjson.h"

typedef struct {
    const ap_table *t;
    const aps_index *x;
    const apf_data *f;
    float d;
    const ap_arm *arms; /* the chosen arms with runs, in order */
    size_t na;
    const ap_arm *flood; /* format 2: the quiet flooded runs, in byte order of the name */
    size_t nf;
    int fmt;            /* 1: lab-ap 1; 2: lab-ap 2 */
    double L1;          /* seed 1's live AP, computed directly */
    const vj_node *lab; /* ap.json */
} apfull_in;

typedef struct {
    int done;
    char why_not[600];  /* when not done */
    apb_result r;
    size_t S, K, B;
    uint64_t sigma;
    double *L;          /* [S]: seed 1 direct, the others from apboot */
    double live_mean;
    double *chg;        /* [(a * 3 + kind) * S + s]: the change of seed s over the arm's rounds */
    double *mean;       /* [a * 3 + kind]: the mean over the seeds */
    double *ci;         /* [(a * 3 + kind) * 2 + end]; NaN without a kept resample */
    double *mc;         /* [(a * 3 + kind) * 2 + end]: ci95_mc, e_lo and e_hi (1.5); NaN likewise */
} apfull_out;

/* the unit u (an arm, then a flooded run) and its path prefix in ap.json */
const ap_arm *apfull_unit(const apfull_in *in, size_t u);
const char *apfull_unit_path(const apfull_in *in, size_t u, char *q, size_t qn);
/* the Monte Carlo error of the percentile q of n sorted values (APCOST.md 1.5) */
double apfull_mc_error(const double *sorted, size_t n, double q);
/* the verdict of APCOST.md 1.5 in format fmt on [lo, hi] with the errors
 * [elo, ehi] (format 2; ignored in format 1); *dir NULL when none */
const char *apfull_verdict(int fmt, double lo, double hi, double elo, double ehi, const char **dir);

void apfull_run(const apfull_in *in, apfull_out *out);
/* live_ap.per_seed (each seed), live_ap.mean, bootstrap.used */
void apfull_compare_top(const apfull_in *in, const apfull_out *out);
/* <unit>.kinds.<kind> (e, at path kp) of recomputed unit a */
void apfull_compare_kind(const apfull_in *in, const apfull_out *out, size_t a, int kind, const vj_node *e,
                         const char *kp);
/* results/ap_resamples.tsv.gz line by line; ap.json's ci95 against its percentiles */
void apfull_compare_resamples(const apfull_in *in, const apfull_out *out);
void apfull_member(const apfull_in *in, const apfull_out *out, vj_node *member);
void apfull_free(apfull_out *out);

#endif
