/* apcost: the stand-ins' cost in AP (`make ap`) and the measurement's machine
 * cost (`make cost`): everything but the two programs' argument parsing and
 * the PostgreSQL load, so that tests can call it.  Every number is defined
 * in pipeline/APCOST.md (the verifier is written from that page).
 *
 * AP part, in the order a stage uses it:
 *   apc_read_tester   the `j row kind` of a tester.tsv.gz (lab/RAWFORMAT.md)
 *   apc_round_select  the rows that got a stand-in among a round's first m
 *                     requests
 *   apc_new           a computation over one test table and the chosen arms
 *   apc_add_seed      one model seed's live and last-known scores: the point
 *                     AP of every (arm, round, kind), and, when asked, the
 *                     seed's share of every bootstrap resample
 *   apc_finish        means over seeds, the 95% intervals, the verdicts
 *   apc_stage         the whole `ap` stage on a root folder (reads build/prep
 *                     and the raw files, trains, writes results/ap.json)
 * Cost part: apc_parse_utc, apc_cost_json, apc_cost_stage.
 *
 * Ownership: apc_read_tester and apc_round_select fill structures the caller
 * releases with apc_raw_free / apc_round_free.  apc_new copies nothing the
 * caller passes except what it says below; the table and the arms must
 * outlive the context.  apc_free releases the context and its result.
 * JSON values returned (json_t *) belong to the caller (json_decref).
 * Every function returns 0 or -1 with a message in err.
 */
#ifndef PIPELINE_APCOST_H
#define PIPELINE_APCOST_H

#include <stddef.h>
#include <stdint.h>

enum { APC_LAST_KNOWN = 0, APC_DEFAULT = 1, APC_NONE = 2, APC_KINDS = 3 };
/* "last_known", "default", "none" */
extern const char *const apc_kind_names[APC_KINDS];

/* ------------------------------------------------------------ raw input */

/* One tester file: per request (j order) the row asked and the kind code. */
typedef struct {
    size_t n;
    int32_t *row;
    char *kind;     /* 'L' 'K' 'D' 'E' */
} apc_raw;

/* Rows must lie in [0, ntest).  A malformed file names the file and line. */
int apc_read_tester(const char *path, size_t ntest, apc_raw *out, char *err, size_t errlen);
void apc_raw_free(apc_raw *r);

/* The stand-ins of one round among its first m requests (m <= raw->n). */
typedef struct {
    int round;
    size_t requests_in_run;  /* raw->n */
    size_t requests;         /* m */
    size_t live, last_known, dflt, error;   /* kinds among the first m */
    size_t rows;             /* distinct rows that got a stand-in */
    uint8_t *mask;           /* ntest bytes: 1 when that row got a stand-in */
} apc_round;

int apc_round_select(const apc_raw *raw, int round, size_t m, size_t ntest, apc_round *out, char *err,
                     size_t errlen);
void apc_round_free(apc_round *r);

typedef struct {
    char name[64];
    size_t nrounds;
    apc_round *rounds;       /* ascending round numbers */
} apc_arm;

/* ------------------------------------------------------------ computation */

/* The test table in row order.  Groups are the cutoffs (AP per cutoff,
 * averaged with equal weight); customers are the bootstrap's units. */
typedef struct {
    size_t n;
    const int32_t *cutoff;
    const uint8_t *label;
    const int32_t *customer;
} apc_table;

typedef struct {
    size_t resamples;        /* 1000 */
    uint64_t boot_seed;      /* seed of the customers' picks */
    int threads;             /* >= 1; the result does not depend on it */
    int nkinds;              /* kinds computed, in this order (tests swap it) */
    int kinds[APC_KINDS];
} apc_opts;

typedef struct {
    double ap[APC_KINDS];            /* AP with the round's stand-in rows replaced */
} apc_round_ap;

typedef struct {
    /* per seed s (index in order of apc_add_seed) and round r:
     * round_ap[s * nrounds + r] */
    apc_round_ap *round_ap;
    double *seed_change[APC_KINDS];  /* [s]: mean over rounds of (ap - live) */
    double change[APC_KINDS];        /* mean of seed_change over seeds */
    double *boot[APC_KINDS];         /* [resamples]: the bootstrap's changes (NAN: dropped) */
    double lo[APC_KINDS], hi[APC_KINDS];  /* 2.5% and 97.5% percentiles */
    int computed[APC_KINDS];
} apc_arm_result;

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
    apc_arm_result *arm;
} apc_result;

typedef struct apc_ctx apc_ctx;

apc_ctx *apc_new(const apc_table *t, const apc_arm *arms, size_t narms, size_t max_seeds,
                 const apc_opts *o, char *err, size_t errlen);
/* live[n] and lastk[n] (the last-known stand-in: the same customer's score a
 * month earlier, or the default score when new) are read, not kept.  When
 * boot is set the seed enters the bootstrap; seeds that do must be added
 * before any that do not.  *boot_s (optional) gets the bootstrap's time. */
int apc_add_seed(apc_ctx *c, int seed, const float *live, const float *lastk, float dflt, int boot,
                 double *boot_s, char *err, size_t errlen);
int apc_finish(apc_ctx *c, char *err, size_t errlen);
const apc_result *apc_result_of(const apc_ctx *c);
void apc_free(apc_ctx *c);

/* Weighted AP, the bootstrap's primitive, exposed for tests: the mean over
 * groups of the AP of each group where row i counts w[i] times (w = NULL:
 * once), which is the AP of the table with row i written w[i] times.  NAN
 * when a group has no positive weight.  Exact integer arithmetic needs each
 * group's total weight below 2^26.  Equal to lab/ap.h's ap_mean_by_group
 * up to rounding (one division per term instead of two). */
double apc_ap_weighted(const float *score, const uint8_t *label, const int32_t *group, const uint32_t *w,
                       size_t n);

/* Percentile q of v[0..n-1] (sorts v): linear interpolation between closest
 * ranks (RESULTS.md).  NAN when n = 0. */
double apc_percentile(double *v, size_t n, double q);

/* ------------------------------------------------------------ the stage */

typedef struct {
    const char *root;        /* OUT: reads OUT/results/raw, writes OUT/results/ap.json */
    const char *prep;        /* build/prep */
    const char *arms;        /* pipeline/ap_arms.tsv */
    int seeds;               /* model seeds 1..seeds (20) */
    int boot_seeds;          /* the bootstrap averages the changes of seeds 1..boot_seeds */
    size_t resamples;        /* 1000 */
    uint64_t boot_seed;      /* 1 */
    int threads;
    int verbose;             /* progress lines on stdout */
} apc_stage_opts;

/* Runs the stage; prov (a prov * of lab/prov.h, may be NULL) gets inputs and
 * outputs.  *ap (optional) gets the JSON written. */
int apc_stage(const apc_stage_opts *o, void *prov, void **ap, char *err, size_t errlen);

/* ------------------------------------------------------------ cost */

/* "YYYY-MM-DDTHH:MM:SSZ" -> seconds since 1970-01-01 00:00 UTC. */
int apc_parse_utc(const char *s, int64_t *out);

/* The cost.json object of a root folder (OUT/provenance/stage-*.json,
 * OUT/provenance/runs/RUN.json, OUT/results/raw/RUN/run.json).  start and
 * end (UTC strings) and price_per_hour (< 0: not given) are the rented
 * machine's settings; all three or none. */
int apc_cost_json(const char *root, const char *start, const char *end, double price_per_hour, void **out,
                  char *err, size_t errlen);

#endif
