/* ap_flood: the AP recomputation alone (src/ap/apboot.h) on the bench's
 * reference (synap.h: 5,577 customers over 6 months, 20 model seeds, 1000
 * resamples) for one arm of 5 rounds whose first 13,500 requests (450/s
 * for 30 s) got a stand-in at the given share: 0.015 as in the bench's
 * runs, 0.3 a flood.  Prints the CPU seconds.
 *
 *   ap_flood SHARE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apboot.h"
#include "synap.h"
#include "vnum.h"
#include "vutil.h"

int main(int argc, char **argv)
{
    double share;
    if (argc != 2 || vn_f64(argv[1], strlen(argv[1]), &share) || share < 0 || share > 1) {
        fprintf(stderr, "usage: ap_flood SHARE (of the 13,500 requests of each round, 0 to 1)\n");
        return 2;
    }
    sap_table t;
    sap_make(&t, 5577, 6, 20, 20261011);
    /* the rows are in cutoff order; customer ids 12346 + 7k */
    size_t ncut = 6, cf[7] = {0}, *byrow = vu_xmalloc(t.n * sizeof *byrow);
    unsigned char *label = vu_xmalloc(t.n);
    uint32_t *cust = vu_xmalloc(t.n * sizeof *cust);
    for (size_t i = 0; i < t.n; i++) {
        cf[(size_t)atoi(t.cut[i] + 5) - 6 + 1]++; /* 2011-06-01 .. 2011-11-01 */
        byrow[i] = i;
        label[i] = (unsigned char)t.label[i];
        cust[i] = (uint32_t)((size_t)atol(t.cust[i]) - 12346) / 7;
    }
    for (size_t c = 0; c < ncut; c++)
        cf[c + 1] += cf[c];
    size_t R = 5, arm[5] = {0}, ns[5];
    size_t *rows[5];
    unsigned long long st = 7;
    for (size_t r = 0; r < R; r++) {
        rows[r] = vu_xmalloc(13500 * sizeof *rows[r]);
        ns[r] = 0;
        for (size_t j = 0; j < 13500; j++) {
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            if ((double)(st >> 11) / 9007199254740992.0 < share)
                rows[r][ns[r]++] = j % t.n;
        }
    }
    apb_problem p = {.n = t.n, .ncut = ncut, .cut_first = cf, .byrow = byrow, .label = label, .cust = cust,
                     .C = 5577, .S = 20, .live = (const float *const *)t.live,
                     .lastk = (const float *const *)t.lastk, .d = t.d, .A = 1, .R = &R, .nr = R, .round_arm = arm,
                     .srows = (const size_t *const *)rows, .nsrows = ns, .B = 1000, .K = 20, .sigma = 1};
    apb_result res;
    char err[256];
    if (apb_compute(&p, &res, err, sizeof err)) {
        fprintf(stderr, "ap_flood: %s\n", err);
        return 1;
    }
    printf("bench: AP engine alone, one arm of 5 rounds with %zu stand-in rows each (share %.3f): %6.2f s CPU\n", ns[0],
           share, res.seconds);
    apb_result_free(&res);
    for (size_t r = 0; r < R; r++)
        free(rows[r]);
    free(byrow);
    free(label);
    free(cust);
    sap_free(&t);
    return 0;
}
