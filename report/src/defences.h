/* defences: the page's section "The defences" (issue 13) and its three
 * figures.  The breaker's band on the outage timeline is outage.[ch]'s.
 *
 * The figures (each drawn even when its arms are missing: it then says
 * "not measured"):
 *   storm.svg     the store's lookups per 100 ms in the second after a
 *                 `down` window (runs.<run>.recovery_lookups_100ms, 10
 *                 counts) of H3-r4x-down, H3-r4xf-down and H3-r4xe-down,
 *                 with each run's before_lookups_100ms as a dashed line;
 *   retry450.svg  stand-ins and lookups sent per second
 *                 (runs.<run>.per_second) of H4-r2, H4-r2bud, H4-r2dl and
 *                 H4-hedge, with H4-fb25 in grey, one round for all;
 *   bulkhead.svg  the first (hung) and the healthy store's live share in the
 *                 window and the healthy store's p99 (arms.<arm>.
 *                 store{1,2}_during_live_share, store2_during_p99_ms,
 *                 store2_p99_ms) of H3-pool-hang and H3-bulk-hang.
 * The drawn round of a group is the quiet round all its measured arms share
 * (at 450/s the one in which H4-r2 gave the most stand-ins; else the
 * lowest), else each arm's lowest quiet round (df_round).
 *
 * The section (its words are templates/defences.md.in): the breaker (lookups per request in the window against r2
 * and fb25, recovery against fb25, the store that never comes back, the
 * hang, 450/s; a table of the breaker arms), capped backoff (the storm at
 * recovery, fixed against jittered), the 450/s retries (the budget, the
 * deadline passed down, asking twice, beside r2), the bulkhead (a table of
 * its runs), the adaptive hedge and H3-t23 against H3-dl.  Every number is
 * traced (pg_v); a missing arm, run or null figure prints "not measured".
 *
 * Contract: the tree is borrowed; nothing is read but it.  df_figures
 * writes the three figures into figdir (0, or -1 with a message on
 * stderr); df_design gives the template the rounds drawn.  The groups
 * drawn are arm-lists.tsv's storm, r450 and bulk.
 */
#ifndef DEFENCES_H
#define DEFENCES_H

#include <jansson.h>

#include "page.h"

int df_figures(json_t *root, const char *figdir);
/* the section's choices for its template (templates/defences.md.in):
 * design.df_storm and design.df_r450, each arm of the group with a drawn
 * round -> that round; design.df_r450_shared, whether the 450/s arms are
 * drawn in one round */
void df_design(json_t *root, json_t *design);

/* the drawn round of arm i of the n arms (see above); worst: the arm
 * whose most stand-ins choose among the shared rounds (NULL: the lowest);
 * 0 when arm i has no quiet round */
int df_round(json_t *root, const char *const *arms, int n, int i, const char *worst);

#endif
