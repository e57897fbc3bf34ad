/* outage: the page's section on the second lesson, "The store goes down",
 * and its timeline figure.
 *
 * The figure, figures/outage.svg: one panel per arm of the list "timeline" (arm-lists.tsv; the
 * store down with no limit, with the 25 ms stand-in, with two retries, with
 * the circuit breaker, and the stand-in when the store resets its
 * connections), each the arm's drawn
 * round second by second (runs.<run>.per_second: arrivals, lookups_sent,
 * live, standins, errors) with the fault window (runs.<run>.win_from_ms,
 * win_to_ms; null: to the end of the run) shaded; the breaker's panel has a
 * band of its state drawn from extra.runs.<run>.breaker (a list of
 * {t_ms, state}; without it the band says "breaker changes not exported").
 * The drawn round is the
 * lowest quiet round all measured arms of the timeline share, else each
 * arm's lowest quiet round (ot_round).  An arm not measured gets a panel
 * that says so.
 *
 * The section (its words are templates/outage.md.in): the scenarios in
 * words, the figure, what it shows in
 * verified numbers (the drawn runs' window counts and connection events,
 * the arms' medians and ranges of during_lookups_per_request, lost,
 * first_live_after_ms, recovered_s, and the verdicts the study has on
 * them), a table of every arm whose store fails, and "Retry only transient
 * errors": H3-r2-missing against H3-fb25-missing (lookups_per_request,
 * retried_permanent, standin_share).
 *
 * Contract: the tree is borrowed; nothing is read but it.  ot_figure draws
 * the figure into figdir (0, or -1 with a message on stderr); ot_design
 * gives the template the rounds drawn.  The arms drawn are arm-lists.tsv's
 * "timeline"; a breaker's panel is an arm whose brk_cool_ms (lab/arms.tsv)
 * is set.
 */
#ifndef OUTAGE_H
#define OUTAGE_H

#include <jansson.h>

#include "page.h"

enum { OT_MAXTIMELINE = 8 };

int ot_figure(json_t *root, const char *figdir);
/* the section's choices for its template (templates/outage.md.in):
 * design.outage_drawn, each timeline arm with a drawn run -> its round */
void ot_design(json_t *root, json_t *design);

/* the round of arm drawn in the figure and cited in the text; 0 when the
 * arm has no quiet round */
int ot_round(json_t *root, const char *arm);

#endif
