/* quiet: the page's "Quiet runs" section and its figures.
 *
 * A run is quiet when it breaks none of the rules of the study's quiet file
 * (the verifier's extra.quiet.rules, with their limits); only quiet runs
 * count in the arms' medians, the verdicts and the guesses.  The section
 * says which rules and limits were used, how many runs were quiet, and
 * either that every run was quiet or which runs were disturbed and by
 * which rules (each with the run's figure and the rule's limit); it names
 * the arms whose medians leave disturbed rounds out (arms.<arm>.
 * rounds_disturbed) and tabulates every run's quiet figures.  Each of the
 * first QT_MAX_FIGS disturbed runs gets a figure, figures/disturbed-<run>.svg:
 * per second, the machine's steal share and the tester's largest lateness,
 * the limits drawn as dashed lines, and the share of the measured cores
 * used by others (foreign_share) as a third panel when verified.json has it.
 *
 * The section's words are templates/quiet.md.in, the rules' words
 * templates/quiet-rules.tsv.
 *
 * Contract: the tree is borrowed; nothing is read but it.  qt_figures draws
 * the figures into figdir and returns 0, or -1 with a message on stderr.
 * qt_design gives the template its choices: design.quiet_figs, the figures
 * qt_figures drew ({"name", "run"}), design.quiet_left_out, the measured
 * arms with disturbed rounds, and design.quiet_foreign, whether any run
 * has foreign_second_max.  A verified.json without extra.quiet (an older
 * verifier) gets a note, no table and no figure.
 *
 * The kept attempts (verified.json's `attempts`, results.json's layout:
 * per folder "<run>-a<N>" a run's figures and `attempt` N; disturbed
 * attempts of runs measured again, which count in nothing): the section
 * lists each (its run, N, the rules it broke, its start: the attempt's
 * start_utc, else the verifier's extra.attempts.<name>.machine.start_utc or
 * extra.runs.<name>.machine.start_utc, else a dash; its stand-in share and
 * p99), and says how many runs were measured again and why.
 * at_design (called by qt_design) gives the template design.attempts, one
 * {"name": the key, "run", "attempt"} per attempt in the order of run then
 * N; design.attempts_n and design.attempts_runs, the number of attempts
 * and of runs they belong to (as text); design.attempts_one_run, whether
 * that is one run; and design.attempts_rules, the rules any of them broke
 * (names, first seen first).  Without `attempts` (an older verifier) the
 * list is empty and the template says verified.json has none to list.
 */
#ifndef QUIET_H
#define QUIET_H

#include <jansson.h>
#include <stddef.h>

#include "page.h"

enum { QT_MAX_FIGS = 12 };

int qt_figures(json_t *root, const char *figdir);
void qt_design(json_t *root, json_t *design);
void at_design(json_t *root, json_t *design);

/* the figure's name (no .svg) of extra.quiet.disturbed[i]: "disturbed-<run>",
 * the run's name kept to letters, digits, '-' and '_' */
void qt_fig_name(json_t *root, size_t i, char *out, size_t n);

#endif
