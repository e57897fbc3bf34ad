/* The check values lab/RAWFORMAT.md ("What a reader can draw again") gives
 * the verifier's authors are the lab's own: the mixer, the generator, the
 * schedule of trecord, the store's waits and fault dice, computed here by the
 * lab's code and compared with the numbers printed on that page. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "arrivals.h"
#include "faults.h"
#include "trecord.h"
#include "util.h"
#include "waits.h"

Test(dicedoc, mixer_and_generator)
{
    cr_assert_eq(arrivals_seed(1), 1000020ULL); /* 1000003 * 1 + 17 */
    cr_assert_eq(arrivals_seed(2), 2000023ULL);
    cr_assert_eq(ut_mix64(0), 16294208416658607535ULL);
    cr_assert_eq(ut_hash4(1, 2, 3, 4), 15374388949593934587ULL);
    ut_rng g;
    ut_rng_seed(&g, arrivals_seed(1));
    cr_assert_eq(ut_rng_u64(&g), 3261946677457873809ULL);
    cr_assert_eq(ut_rng_u64(&g), 6559588368398158916ULL);
    cr_assert_eq(ut_rng_u64(&g), 16861586200626269207ULL);
}

Test(dicedoc, schedule_offsets)
{
    trec *req = NULL;
    size_t n = 0, cap = 0;
    const int64_t r1[] = {648644, 2113409, 10294089, 14949356, 20902380}, r2[] = {559103, 5544385, 5777637};
    cr_assert_eq(trec_schedule(arrivals_seed(1), 300, 4, &req, &n, &cap), 0);
    cr_assert_gt(n, 1000);
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(req[i].sched, r1[i], "round 1 offset %zu", i);
    free(req);
    cr_assert_eq(trec_schedule(arrivals_seed(2), 450, 4, &req, &n, &cap), 0);
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(req[i].sched, r2[i], "round 2 offset %zu", i);
    free(req);
}

Test(dicedoc, waits_and_faults)
{
    const uint32_t ra[][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {2, 1}};
    const int64_t lw[] = {3647492, 1083902, 2159850, 2566123, 3072311, 9928686};
    for (size_t i = 0; i < 6; i++) {
        cr_assert_eq(waits_planned_ns(WAIT_L, 1, ra[i][0], ra[i][1]), lw[i]);
        cr_assert_eq(waits_planned_ns(WAIT_H, 1, ra[i][0], ra[i][1]), lw[i]);
    }
    const uint32_t fr[] = {140, 226, 303};
    const int64_t fw[] = {1037673561, 1925622370, 1709148376};
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(waits_planned_ns(WAIT_H, 1, fr[i], 0), fw[i]);
    int first[3], k = 0;
    for (uint32_t r = 0; r < 1000 && k < 3; r++)
        if (fault_row_missing(r))
            first[k++] = (int)r;
    cr_assert_eq(k, 3);
    cr_assert(first[0] == 0 && first[1] == 67 && first[2] == 175);
    cr_assert_eq(waits_planned_ns(WAIT_F, 1, 0, 0), 2000000);
    cr_assert_eq(waits_planned_ns(WAIT_Z, 1, 0, 0), 0);
}
