/* playout: what play (lab/play/play.c) prints: the header, one row per seed
 * (text or CSV) with the fault's figures (lab/play/playwin.h) and the
 * defences' (lab/play/playdef.h), the medians over the seeds, the arms side by
 * side, and on request the timeline (per second) and the trace (per
 * request).  Only printing, to stdout, and medians; the figures are
 * play's.  The columns are explained at the top of lab/play/play.c.  Owns
 * nothing.
 */
#ifndef LAB_PLAYOUT_H
#define LAB_PLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "playdef.h"
#include "playflood.h"
#include "playwin.h"

/* One seed's figures. */
typedef struct {
    uint32_t seed;
    size_t n;
    double p99_ms; /* of the answered requests; NAN when none */
    double p50_ms; /* the same, when asked for (playsim's cfg.p50), else NAN */
    uint64_t standins, errors, lookups;
    size_t line_max;
    int64_t slot_ns;
    pflood flood;    /* lab/play/playflood.h */
    int stopped;     /* stopped at its flood (playsim's cfg.flood_stop) */
    int frz_trigger; /* the most freezes holding slots at once (cfg.freezes), or -1 */
    playwin_figs win;
    playdef_figs def;
} play_result;

/* The figures of a seed that play takes medians of (NAN: null, left out of
 * a median): the row's, the window's, then the defences' (PDEF_...). */
enum {
    PF_P99,
    PF_STANDIN,
    PF_LPR,
    PF_LINE,
    PF_ERROR,
    PF_SLOT,
    PF_DURING_LPR,
    PF_FIRST_LIVE,
    PF_RECOVERED,
    PF_BEFORE100,
    PF_REC100MAX,
    PF_DEF,
    PF_N = PF_DEF + PDEF_NFIGS
};

/* One arm's figures over its seeds (medians, means, largest; NAN where
 * every seed's is null), for the arms side by side. */
typedef struct {
    const char *name;
    double med[PF_N], mean[PF_N], max[PF_N];
    int nflood;
    size_t nseeds;
} play_arm_summary;

/* The trace of one seed: per request its arrival, answer (-1: none), end
 * (POL_LIVE ...; POL_PENDING: none) and store (0 or 1; NULL: all 0), per
 * lookup (request * POL_MAX_LOOKUPS + attempt) its start and end code
 * ('-' not tried, 'P' still waited for). */
typedef struct {
    size_t n;
    const int64_t *arrive, *answer, *lsend;
    const uint8_t *done, *store;
    const char *lout;
} play_trace;

/* The first lines: `describe` (playopt_describe), then, when `columns`,
 * the column names (text: the row's; CSV: every column, the last `arm`). */
void pout_header(const char *describe, int csv, int columns);
/* One seed's row of arm `name` (text, or CSV with the name last), and
 * under it (text only) the fault's figures when `fault` and the
 * defences' that apply.  Its figures for the medians into m[PF_N];
 * returns 1 when the seed had requests, else 0. */
int pout_seed(const play_result *R, const char *name, int csv, int fault, double m[PF_N]);
/* Only the figures of pout_seed (for --summary). */
int pout_seed_figures(const play_result *R, double m[PF_N]);
void pout_timeline(const play_second *sec, size_t nsec, uint32_t seed, int csv);
void pout_trace(const play_trace *t, uint32_t seed, int csv);
/* The medians, means and largest of nm seeds' figures m[i][0..nm) into
 * sum (m is reordered); with `print`, the row of medians and a line of the
 * other figures' medians that are not null. */
void pout_medians(double *m[PF_N], size_t nm, int nflood, size_t nseeds, int print, play_arm_summary *sum);
/* The arms side by side: one line each with its flooded seeds and the
 * medians of its figures that tell the defences apart ('-': null). */
void pout_summary(const play_arm_summary *arms, size_t narms);

#endif
