/* apstudy: a study's runs as the `ap` stage sees them (pipeline/APCOST.md,
 * 1.1 and 1.2): the rounds of an arm under OUT/results/raw, and which
 * table rows got a stand-in in each round's first M requests.
 *
 *   apstudy_round_select  one round: the kinds among its first m requests,
 *                         and the mask of the rows that got a stand-in
 *   apstudy_arm_load      one arm: its run folders <arm>-r<k> (k >= 1, no
 *                         leading zero) in ascending k, each round's tester
 *                         file (pipeline/ap/testerraw.h), M = the fewest
 *                         requests of a round, and every round selected
 *   apstudy_run_load      one run on its own (a flooded run, APCOST.md 1.5):
 *                         an arm of one round, named by the run, M = the
 *                         run's own requests
 *
 * Ownership: apstudy_round_select fills *out, released with
 * apstudy_round_free; apstudy_arm_load fills *out (its rounds array and
 * their masks), released with apstudy_arm_free (apstudy_run_load too).  Both free functions are
 * safe on zeroed structures.  Every function returns 0 or -1 with a message
 * in err (naming the file and line of a malformed tester file).
 */
#ifndef PIPELINE_APSTUDY_H
#define PIPELINE_APSTUDY_H

#include <stddef.h>
#include <stdint.h>

#include "prov.h"
#include "testerraw.h"

enum { APSTUDY_NAME = 64 };  /* arm names are shorter than this */

/* The stand-ins of one round among its first m requests (m <= the run's). */
typedef struct {
    int round;
    size_t requests_in_run;  /* requests in the tester file */
    size_t requests;         /* m */
    size_t live, last_known, dflt, error;   /* kinds among the first m */
    size_t rows;             /* distinct rows that got a stand-in */
    uint8_t *mask;           /* ntest bytes: 1 when that row got a stand-in */
} apstudy_round;

int apstudy_round_select(const testerraw_run *raw, int round, size_t m, size_t ntest, apstudy_round *out,
                         char *err, size_t errlen);
void apstudy_round_free(apstudy_round *r);

typedef struct {
    char name[APSTUDY_NAME];
    size_t nrounds;
    apstudy_round *rounds;   /* ascending round numbers */
} apstudy_arm;

/* The runs of arm `name` under raw (OUT/results/raw); ntest rows in the
 * table.  An arm without runs gives nrounds 0 (not an error).  pv (may be
 * NULL) gets each tester file as an input before it is read. */
int apstudy_arm_load(const char *raw, const char *name, size_t ntest, prov *pv, apstudy_arm *out, char *err,
                     size_t errlen);
void apstudy_arm_free(apstudy_arm *a);

/* The run raw/<run>/tester.tsv.gz as an arm of its one round `round`, named
 * `run`, every request of the file counted (M = its rows).  pv as above. */
int apstudy_run_load(const char *raw, const char *run, int round, size_t ntest, prov *pv, apstudy_arm *out,
                     char *err, size_t errlen);

#endif
