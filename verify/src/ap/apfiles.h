/* apfiles: the files `make ap` ships for the verifier (pipeline/APCOST.md
 * 1.10), read strictly: provenance/manifest-ap.tsv,
 * results/reference/ap_scores.tsv.gz, results/reference/ap_prev_scores.tsv.gz
 * and results/ap_resamples.tsv.gz.
 *
 * Contract.  apf_read checks manifest-ap.tsv (header `path size sha256`,
 * then exactly the four files of 1.10 in order, each present with that
 * size and sha256) and reads the three .tsv.gz files in full: one gzip
 * member holding text, every line ending in "\n", fields separated by one
 * tab, the header of 1.10, numbers through vnum.h (scores as 32-bit
 * floats, changes as doubles).  Every difference is one mismatch (mm_add)
 * naming the file and its line; a missing file is one.  ap_scores' rows,
 * customers and cutoffs must be scores.tsv's (the table t), and seed 1's
 * two fields its `score` and `last_known`, byte for byte.  A file that is
 * missing or malformed (a line that cannot be read, a wrong line count) is
 * not used: its *_ok stays 0.  apf_free frees everything apf_read kept.
 */
#ifndef APFILES_H
#define APFILES_H

#include <stddef.h>

#include "aptable.h"

/* the four files of manifest-ap.tsv, in its order */
#define APF_SCORES "results/reference/ap_scores.tsv.gz"
#define APF_PREV "results/reference/ap_prev_scores.tsv.gz"
#define APF_RESAMPLES "results/ap_resamples.tsv.gz"
#define APF_JSON "results/ap.json"
#define APF_MANIFEST "provenance/manifest-ap.tsv"

typedef struct {
    char *arm;     /* points into the file's text */
    int kind;      /* 0 last_known, 1 default, 2 none */
    long long b;
    int dropped;
    double v;      /* the change when not dropped */
    long line;
} apf_res;

typedef struct {
    int manifest_ok;        /* manifest-ap.tsv present and right about all four files */
    /* ap_scores.tsv.gz */
    int scores_ok;
    size_t S;               /* model seeds: the score_s columns */
    float **live, **lastk;  /* [S][n] */
    /* ap_prev_scores.tsv.gz */
    int prev_ok;
    size_t nprev;
    size_t *prev_row;       /* [nprev] */
    long *prev_line;        /* [nprev] */
    char **prev_cust, **prev_cut; /* [nprev]: the fields' text */
    size_t prev_S;          /* the seeds of its header (S when both files were read) */
    float **prev;           /* [prev_S][nprev] */
    /* ap_resamples.tsv.gz */
    int res_ok;
    size_t nres;
    apf_res *res;
    /* the inflated texts the pointers above point into */
    char *text_prev, *text_res;
} apf_data;

void apf_read(const char *root, const ap_table *t, apf_data *d);
void apf_free(apf_data *d);

#endif
