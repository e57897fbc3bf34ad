/* floods: the page's floods and rare events (issue 14): the 450/s section
 * with its figure and the table of the 450/s rounds, the prediction made
 * before measuring against the measured figures, and the odds of the rare
 * events.
 *
 * What it reads (verified.json only; pipeline/RESULTS.md defines each):
 *   runs.<run>.flooded, flood_from_s, drained, longest_line, freezes,
 *   freeze_share, false_timeouts, predicted.{p99_ms, standin_share,
 *   lookups_per_request, flooded, flood_from_s}, per_second[].standin_share;
 *   the top-level odds list and twin (brier, brier_yes_no, brier_odds,
 *   calibration[].mean_p and cp95; absent in a study without a twin); the tolerance of a predicted stand-in share on
 *   a quiet machine at checks.prediction.standin_share_tolerance (an
 *   absolute difference of shares; DESIGN 5.8 states none yet, so the page
 *   says "tolerance not stated" without it).  A field a run lacks is "not
 *   exported" (the verifier predates it); an arm without runs is "not
 *   measured".  Nothing crashes on either.
 *
 * The figures:
 *   flood.svg      450/s second by second: the retry arm's (H4-r2, else
 *                  H4-r2b, H4-r2bj) flooded round, its first flooded second
 *                  marked, and its calmest round, H4-fb25 in grey;
 *   predicted.svg  one dot per run with a prediction: stand-in share
 *                  (linear) and p99 (log), predicted across, measured up,
 *                  the diagonal drawn (and the tolerance, when exported).
 *
 * Contract: the tree is borrowed.  fl_choose picks the drawn arm and
 * rounds once (the figure and the section follow it).  fl_figures writes
 * both figures into figdir (0, or -1 with a message on stderr).
 * fl_design gives the sections' templates their choices (below).
 */
#ifndef FLOODS_H
#define FLOODS_H

#include <jansson.h>

#include "page.h"

typedef struct {
    char arm[64];    /* the 450/s retry arm drawn, "" when none has a quiet round */
    int round[2];    /* [0] its flooded round with the most stand-ins (without one, the
                        round with the most stand-ins), [1] its calmest other round */
    int n;           /* rounds drawn: 0, 1 or 2 */
    int exported;    /* the drawn runs carry `flooded` */
    int flooded;     /* round[0] flooded */
    char base[64];   /* the list flood_base's arm when measured, else "" */
} fl_choice;

void fl_choose(json_t *root, fl_choice *c);
int fl_figures(json_t *root, const char *figdir, const fl_choice *c);
/* the three sections' choices for their templates (templates/flood.md.in,
 * predicted.md.in, odds.md.in): design.flood {"arm", "rounds", "base",
 * "exported", "flooded", "title", "rows": the 450/s arms without a fault,
 * each {"name", "rounds"}}, design.predicted {"any", "with", "none",
 * "quiet", "within", "tol_ok", "outside": the quiet runs outside the
 * tolerance, at most 13}, design.odds {"arm", "own", "outside": indexes in
 * odds}, and with a `twin` object (RESULTS.md) design.twin {"better": its
 * brier below brier_yes_no and brier_odds (null when one is null),
 * "inside": per calibration bin, mean_p inside cp95 (null when empty)} */
void fl_design(json_t *root, const fl_choice *c, json_t *design);

#endif
