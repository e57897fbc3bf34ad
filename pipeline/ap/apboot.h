/* apboot: AP with stand-ins and the paired bootstrap (pipeline/APCOST.md,
 * 1.3 to 1.5, 1.11, 1.12): pure computation over one test table and a
 * study's arms, no file is read or written.
 *
 *   apboot_new       a computation over one test table and the chosen arms;
 *                    draws the bootstrap's customer picks once, and (format
 *                    lab-ap 2) each arm's round picks from its own generator
 *   apboot_add_seed  one model seed's live and last-known scores: the point
 *                    AP of every (arm, round, kind), and, when asked, the
 *                    seed's share of every bootstrap resample
 *   apboot_finish    means over seeds, the 95% intervals
 *   apboot_result_of the numbers, for ap.json (pipeline/ap/apcost.c)
 * and two primitives exposed for tests: apboot_ap_weighted, apboot_percentile.
 *
 * Ownership: apboot_new keeps pointers to the table and the arms (with
 * their rounds' masks), which must outlive the context; it copies the
 * options.  apboot_free releases the context and its result (each arm
 * result's round_w points into the context).  Scores given
 * to apboot_add_seed are read, not kept.  Every function returns 0 or -1
 * (apboot_new: NULL) with a message in err.
 */
#ifndef PIPELINE_APBOOT_H
#define PIPELINE_APBOOT_H

#include <stddef.h>
#include <stdint.h>

#include "apstudy.h"

enum { APBOOT_LAST_KNOWN = 0, APBOOT_DEFAULT = 1, APBOOT_NONE = 2, APBOOT_KINDS = 3 };
/* "last_known", "default", "none" */
extern const char *const apboot_kind_names[APBOOT_KINDS];

/* The test table in row order.  Groups are the cutoffs (AP per cutoff,
 * averaged with equal weight); customers are the bootstrap's units. */
typedef struct {
    size_t n;
    const int32_t *cutoff;
    const uint8_t *label;
    const int32_t *customer;
} apboot_table;

typedef struct {
    size_t resamples;        /* 1000 */
    uint64_t boot_seed;      /* seed of the customers' picks */
    int threads;             /* >= 1; the result does not depend on it */
    int nkinds;              /* kinds computed, in this order (tests swap it) */
    int kinds[APBOOT_KINDS];
    int rounds_resampled;    /* 1: format lab-ap 2, each resample also draws the
                              * arm's rounds (APCOST.md 1.5, 1.11); 0: format 1,
                              * every round weighs 1 in every resample */
} apboot_opts;

typedef struct {
    double ap[APBOOT_KINDS];         /* AP with the round's stand-in rows replaced */
} apboot_round_ap;

typedef struct {
    /* per seed s (index in order of apboot_add_seed) and round r:
     * round_ap[s * nrounds + r] */
    apboot_round_ap *round_ap;
    double *seed_change[APBOOT_KINDS];  /* [s]: mean over rounds of (ap - live) */
    double change[APBOOT_KINDS];        /* mean of seed_change over seeds */
    double *boot[APBOOT_KINDS];         /* [resamples]: the bootstrap's changes (NAN: dropped) */
    double lo[APBOOT_KINDS], hi[APBOOT_KINDS];  /* 2.5% and 97.5% percentiles */
    double e_lo[APBOOT_KINDS], e_hi[APBOOT_KINDS];  /* their Monte Carlo errors (NAN: no interval) */
    int computed[APBOOT_KINDS];
    /* [b * nrounds + k]: m_b(k), how often resample b drew the arm's round k
     * (index in ascending round order); all 1 when rounds are not resampled */
    const uint32_t *round_w;
} apboot_arm_result;

typedef struct {
    size_t nseeds;           /* seeds added */
    int *seeds;              /* their numbers */
    double *live_ap;         /* [s] */
    size_t boot_seeds;       /* seeds whose changes the bootstrap averages */
    size_t resamples_used;   /* resamples in which every cutoff has a buyer */
    size_t ncustomers;
    size_t ngroups;
    int32_t *groups;         /* the cutoffs, ascending */
    size_t narms;
    apboot_arm_result *arm;
} apboot_result;

typedef struct apboot_ctx apboot_ctx;

apboot_ctx *apboot_new(const apboot_table *t, const apstudy_arm *arms, size_t narms, size_t max_seeds,
                       const apboot_opts *o, char *err, size_t errlen);
/* live[n] and lastk[n] (the last-known stand-in: the same customer's score a
 * month earlier, or the default score when new) are read, not kept.  When
 * boot is set the seed enters the bootstrap; seeds that do must be added
 * before any that do not.  *boot_s (optional) gets the bootstrap's time. */
int apboot_add_seed(apboot_ctx *c, int seed, const float *live, const float *lastk, float dflt, int boot,
                    double *boot_s, char *err, size_t errlen);
int apboot_finish(apboot_ctx *c, char *err, size_t errlen);
const apboot_result *apboot_result_of(const apboot_ctx *c);
void apboot_free(apboot_ctx *c);

/* Weighted AP, the bootstrap's primitive, exposed for tests: the mean over
 * groups of the AP of each group where row i counts w[i] times (w = NULL:
 * once), which is the AP of the table with row i written w[i] times.  NAN
 * when a group has no positive weight.  Exact integer arithmetic needs each
 * group's total weight below 2^26.  Equal to lab/core/ap.h's ap_mean_by_group
 * up to rounding (one division per term instead of two). */
double apboot_ap_weighted(const float *score, const uint8_t *label, const int32_t *group, const uint32_t *w,
                          size_t n);

/* Percentile q of v[0..n-1] (sorts v): lab/base/util.h's one percentile
 * (ut_pct_rank, ut_pct_between: linear interpolation between closest ranks)
 * of doubles.  NAN when n = 0. */
double apboot_percentile(double *v, size_t n, double q);

/* The Monte Carlo error of the bound at q of v[0..m-1] (sorts v), APCOST.md
 * 1.5: with d = sqrt(q(1 - q)/m), (P(min(1, q + d)) - P(max(0, q - d))) / 2,
 * P apboot_percentile.  NAN when m = 0. */
double apboot_mc_error(double *v, size_t m, double q);

/* The verdict of an interval [lo, hi] whose bounds carry the Monte Carlo
 * errors e_lo, e_hi (APCOST.md 1.5, format lab-ap 2): "clearly different"
 * with *direction "lower" when hi + e_hi < 0, "higher" when lo - e_lo > 0;
 * else "too close to call"; "no interval" when a bound is not finite.
 * *direction is NULL unless clearly different. */
const char *apboot_verdict(double lo, double hi, double e_lo, double e_hi, const char **direction);

/* The 64-bit FNV-1a hash of a name (APCOST.md 1.11): h = 0xcbf29ce484222325,
 * per byte c: h = (h ^ c) * 0x100000001b3. */
uint64_t apboot_fnv1a(const char *name);

/* The round picks of an arm (APCOST.md 1.11): ut_rng seeded with
 * seed ^ apboot_fnv1a(name); draw b * R + j is the j-th pick of resample b,
 * the round of index u mod R.  m[b * R + k] (B * R, zeroed here) gets how
 * often resample b drew index k. */
void apboot_round_picks(const char *name, uint64_t seed, size_t R, size_t B, uint32_t *m);

#endif
