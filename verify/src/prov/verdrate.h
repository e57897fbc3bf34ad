/* verdrate: each verdict's error rate and the family's sum (pipeline/RESULTS.md,
 * "verdicts": "Each verdict's error rate", verdict_family).
 *
 * Contract: vr_fill adds to every entry of mine's "verdicts" (the
 * verifier's own, study.h) n (the entries of its rounds),
 * false_positive_rate (2 * 0.5^n; null when n < 2), sizing_q (the q of
 * the first entry of pred's sizing with the same a, b and figure; null
 * when none, pred NULL, or a q that is not a number), power (sizing_q^n;
 * null when sizing_q is null or n < 2) and decidable (power >= 0.9; null
 * with power), and to mine "verdict_family" {verdicts, clearly_different,
 * expected_chance (the sum of the rates that are not null, 0 when none),
 * with_rate, undecidable, unsized}.  Reads prediction.json's tree only;
 * owns nothing afterwards.
 */
#ifndef VERDRATE_H
#define VERDRATE_H

#include "vjson.h"

void vr_fill(vj_node *mine, const vj_node *pred);

#endif
