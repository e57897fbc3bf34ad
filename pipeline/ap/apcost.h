/* apcost: the `ap` stage, the stand-ins' cost in AP, from the prepared
 * files and a study's runs to results/ap.json.  Every number is defined in
 * pipeline/APCOST.md (the verifier is written from that page); the program
 * around it (options, the PostgreSQL load) is pipeline/ap/apstage.c.
 *
 * apc_stage runs these steps, each a function of apcost.c:
 *   1. the chosen arms (pipeline/ap_arms.tsv), and the study's quiet
 *      flooded runs (OUT/results/results.json, written by make collect;
 *      none when it is missing, said on stdout)
 *   2. the prepared files                       pipeline/model/prepread.h
 *   3. each chosen arm's runs and stand-in rows, then each flooded run on
 *      its own, an arm of one round              pipeline/ap/apstudy.h
 *   4. the computation over the test table      pipeline/ap/apboot.h
 *   5. per model seed: train, score, add        pipeline/model/train.h
 *   6. the means and intervals; the reference files of every seed's scores
 *      and every resample (pipeline/ap/apref.h), results/ap.json, and
 *      provenance/manifest-ap.tsv last (each written atomically; the
 *      manifest is removed first, so a failed run leaves none)
 *
 * Ownership: *ap (optional) gets the JSON written; the caller releases it
 * with json_decref.  prov (may be NULL) gets the inputs, the output and a
 * few facts; it stays the caller's.  Returns 0 or -1 with a message in err;
 * on failure nothing is written.
 */
#ifndef PIPELINE_APCOST_H
#define PIPELINE_APCOST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "prov.h"

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
    const char *provdir;     /* where manifest-ap.tsv goes; NULL: OUT/provenance */
} apc_stage_opts;

int apc_stage(const apc_stage_opts *o, prov *pv, json_t **ap, char *err, size_t errlen);

#endif
