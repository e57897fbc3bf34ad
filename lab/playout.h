/* playout: what play (lab/play.c) prints: the header, one row per seed
 * (text or CSV) with the fault's figures (lab/playwin.h), the medians over
 * the seeds, and on request the timeline (per second) and the trace (per
 * request).  Only printing, to stdout; the figures are play's.  The
 * columns are explained at the top of lab/play.c.  Owns nothing.
 */
#ifndef LAB_PLAYOUT_H
#define LAB_PLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "playwin.h"

/* One seed's figures. */
typedef struct {
    uint32_t seed;
    size_t n;
    double p99_ms; /* of the answered requests; NAN when none */
    uint64_t standins, errors, lookups;
    size_t line_max;
    int64_t slot_ns;
    long flood_from; /* the first of the flood's seconds in a row; -1: none */
    playwin_figs win;
} play_result;

/* One second of the timeline (by arrival, except lookups: by sending). */
typedef struct {
    uint32_t req, lookups, missed, line_max;
} play_second;

/* The trace of one seed: per request its arrival, answer (-1: none) and
 * end (POL_LIVE ...; POL_PENDING: none), per lookup (request * 3 +
 * attempt) its start and end code ('-' not tried, 'P' still waited for). */
typedef struct {
    size_t n;
    const int64_t *arrive, *answer, *lsend;
    const uint8_t *done;
    const char *lout;
} play_trace;

/* The first lines: `describe` (playopt_describe) and the column names. */
void pout_header(const char *describe, int csv);
/* One seed's row, and under it (text only, when `fault`) the fault's
 * figures.  Its figures for the medians into m[0..6): p99, stand-in share,
 * lookups a request, longest line, error share, slot ms a request; returns
 * 1 when the seed had requests, else 0. */
int pout_seed(const play_result *R, int csv, int fault, double m[6]);
void pout_timeline(const play_second *sec, size_t nsec, uint32_t seed, int csv);
void pout_trace(const play_trace *t, uint32_t seed, int csv);
/* The row of medians over nm seeds (text only; m is reordered). */
void pout_medians(double *m[6], size_t nm, int nflood, size_t nseeds);

#endif
