/* playflood: see playflood.h for the contract. */
#include "playflood.h"

#include <math.h>

size_t pflood_nsec(double seconds) { return seconds > 0 ? (size_t)ceil(seconds) : 0; }

int pflood_missed(const play_second *s) { return s->req >= 1 && 2 * (uint64_t)s->missed > s->req; }
#define missed pflood_missed

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

void pflood_watch_begin(pflood_watch *w, double seconds)
{
    size_t total = pflood_nsec(seconds);
    *w = (pflood_watch){.need = total < PFLOOD_ROW ? total : PFLOOD_ROW, .total = total, .from_s = -1};
}

int pflood_watch_step(pflood_watch *w, const play_second *sec, size_t nsec)
{
    while (!w->flooded && w->cur < w->total && w->cur < nsec && sec[w->cur].settled == sec[w->cur].req) {
        w->row = missed(&sec[w->cur]) ? w->row + 1 : 0;
        w->cur++;
        if (w->row == w->need && w->need > 0) {
            w->flooded = 1;
            w->from_s = (long)(w->cur - w->need);
        }
    }
    return w->flooded;
}
