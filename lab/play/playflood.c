/* playflood: see playflood.h for the contract. */
#include "playflood.h"

#include <math.h>

size_t pflood_nsec(double seconds) { return seconds > 0 ? (size_t)ceil(seconds) : 0; }

static int missed(const play_second *s) { return s->req >= 1 && 2 * (uint64_t)s->missed > s->req; }

void pflood_of(const play_second *sec, size_t nsec, double seconds, pflood *f)
{
    size_t total = pflood_nsec(seconds), need = total < PFLOOD_ROW ? total : PFLOOD_ROW;
    if (nsec > total)
        nsec = total;
    *f = (pflood){.from_s = -1};
    for (size_t k = 0, row = 0; k < nsec; k++) {
        int m = missed(&sec[k]);
        f->missed_seconds += (uint32_t)m;
        row = m ? row + 1 : 0;
        if (row == need && !f->flooded) {
            f->flooded = 1;
            f->from_s = (long)(k + 1 - need);
        }
    }
    /* the last second of the run: absent from sec when nothing arrived in it */
    if (f->flooded)
        f->drained = !(nsec == total && missed(&sec[total - 1]));
}
