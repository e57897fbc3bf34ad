/* figures: the report's figures, each one SVG file drawn from verified.json.
 *
 * Contract: fg_choose picks, once, what the figures and the tables follow:
 * the frozen lookup (the first frozen attempt-0 lookup of the 25 ms
 * stand-in arm's lowest round, else of another freezing arm); the 450/s
 * figure is floods.[ch]'s.  Each fig_* writes
 * figdir/NAME.svg and returns 0, or -1 with a message on stderr.  An arm the
 * study did not measure is drawn as "not measured"; a figure whose arms are
 * all missing still exists and says so.  Nothing is read but the tree.
 */
#ifndef FIGURES_H
#define FIGURES_H

#include <jansson.h>

typedef struct {
    char frozen_run[2][96];   /* run names ("" when none) */
    int nfrozen;
} fg_choice;

void fg_choose(json_t *root, fg_choice *c);

int fig_dials(json_t *root, const char *figdir);
int fig_exceed(json_t *root, const char *figdir);
int fig_errors(json_t *root, const char *figdir);
int fig_frozen(json_t *root, const char *figdir, const fg_choice *c);
int fig_split(json_t *root, const char *figdir);
int fig_slots(json_t *root, const char *figdir);
int fig_hedge(json_t *root, const char *figdir);
int fig_steps(json_t *root, const char *figdir);
/* only when verified.json carries a verified "ap" member (fig_ap_ready):
 * the verifier's seed-1 numbers (ap.arms) and the means over the model
 * seeds with their intervals copied from ap.json (ap.copied_from_ap_json) */
int fig_ap_ready(json_t *root);
int fig_ap(json_t *root, const char *figdir);


#endif
