/* map: where each policy tips (issue 28): the simulation's map of floods by
 * load, its figure map.svg and the choices of the section "Where each
 * policy tips" (templates/map.md.in).
 *
 * What it reads: a map object as pipeline/RESULTS.md's `map` defines it
 * (verified.json's top-level `map`, `null` for a study without one):
 * `seconds`, `seeds`, `capacity_p`, `trigger_load`, `loads`, and per policy
 * `policy`, `template`, `cells` (`load`, `k`, `n`, `share`, `wilson95`),
 * `hidden_capacity`, `trigger` and `points` (`arm`, `load`, `k`, `n`,
 * `cp95`, `on_curve`, `agree`).  The lab's map tool writes the same object
 * without `points` (`"format": "lab-map 1"`, build/map/map.json); a cell
 * without `share` or `wilson95` gets them computed from `k` and `n`
 * (k / n; the Wilson score interval at z = 1.959963984540054, as
 * RESULTS.md defines them), so that both files draw alike.
 *
 * The figure (mp_draw, one function for both callers: the report's
 * figures/map.svg and `report --map FILE --figure OUT`): the chance of a
 * flood per round (log, 10^-3 or lower to 1) against the load, one line
 * per policy in the colours of arm-lists.tsv's list "map" (by the policy's
 * template arm; a template the list lacks takes the next colour left), the
 * cells' Wilson 95% intervals as light bands, a cell where no seed flooded
 * (k = 0) as an open circle at its Wilson upper bound, joined to its
 * neighbours by a dashed line; the measured points whose `on_curve` is true
 * as dots (an open circle at the upper bound when k = 0) with their exact
 * (cp95) intervals as bars, set a little apart sideways when they share a
 * load; a dotted vertical line at `trigger_load` (the study's load), a
 * dashed grey line at `capacity_p`; the policies that flooded at no load
 * named under the legend.  Words from figure-words.tsv (map, map.*).
 *
 * Contract: the trees are borrowed.  mp_check says whether a map has what
 * the figure needs (0, or -1 with the field named in err: "map.policies.3.
 * cells.2.k: ...").  mp_draw writes the figure to path (0, or -1 with a
 * message on stderr); the path's file name up to its first dot prefixes
 * the SVG's ids (fig.h).  mp_figures draws figdir/map.svg when root's
 * `map` is an object and does nothing (0) otherwise.  mp_design gives the
 * template design.map (below).  rd_design_load (rdata.h) must have run.
 */
#ifndef MAP_H
#define MAP_H

#include <jansson.h>
#include <stddef.h>

int mp_check(json_t *map, char *err, size_t el);
int mp_draw(json_t *map, const char *path);
int mp_figures(json_t *root, const char *figdir);
/* design.map, only when root's map is an object: {"tcell": the index in
 * loads (so in every policy's cells) of trigger_load (absent when loads
 * lacks it), "cell": per policy, per point, the index of the cell at the
 * point's load ("none" when loads lacks it), "points": the points,
 * "no_tip": the indexes of the policies whose hidden_capacity.tips is false,
 * "claimed": those with a measured n (an arm with a flood claim), "on":
 * of those, on the curve, "off": not on it, "agree", "disagree": of the
 * on-curve ones with an agree of true and false, "off_at": {"p", "q"} the
 * policy and point indexes of the first claimed point off the curve (absent
 * when none)} */
void mp_design(json_t *root, json_t *design);

#endif
