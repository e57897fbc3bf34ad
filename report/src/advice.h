/* advice: the choices of the section "What a service should answer"
 * (templates/advice.md.in) and of the front page's block of the same name:
 * for each item of templates/advice.tsv (one row an item: the verdict it
 * rests on, named by a, b and figure, and a sentence per outcome), which
 * verdict of verified.json it is and which sentence it says.
 *
 * Contract: ad_design reads DIR/advice.tsv and sets design.advice, a list
 * in the file's order of {"name": the item's id, "a", "b", "figure",
 * "what", "extra" (the file's cells), "kind" and "dkind" (the fmt.h kinds
 * of the figure's values and of its differences), "v" (the verdict's index
 * in verdicts, as a string; absent when the study has no such verdict),
 * "outcome" ("gt": clearly different, a>b; "lt": clearly different, a<b;
 * "close": too close to call; "unmeasured": the verdict has no round in
 * common; "missing": no verdict; "odd": a verdict the file does not know,
 * printed as it is; "arithmetic": a row resting on no verdict), "sentence"
 * (the file's sentence of that outcome; absent for unmeasured, missing and
 * odd: the template says so instead of advising), "guesses" (the ids of the
 * row's guesses that verified.json has, in the row's order)}.  0, or -1
 * with err (the file unreadable, a row's width wrong).  Reads the tree only.
 * ad_kind is the kind a verdict's figure prints in (diff: its differences).
 */
#ifndef ADVICE_H
#define ADVICE_H

#include <jansson.h>
#include <stddef.h>

int ad_design(json_t *root, json_t *design, const char *dir, char *err, size_t el);
const char *ad_kind(const char *fig, int diff);

#endif
