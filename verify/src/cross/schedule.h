/* schedule: results/schedule.tsv, the planned runs (pipeline/RESULTS.md,
 * "results/schedule.tsv: the planned runs").
 *
 * Contract: sd_load reads <root>/results/schedule.tsv in either format.
 * Format 2 (from 2026-12-02): line 1
 *   # lab-schedule 2: profile <name>, <R> rounds[; ...]
 * line 2 the header "k round position arm seconds", then one line per
 * planned run with its own seconds (a decimal number above 0).  It checks:
 * k is 1, 2, ... in file order; round in 1 .. R, rounds in ascending order
 * in the file; every round 1 .. R has runs, at positions 1 .. A_r each
 * once; no run <arm>-r<round> twice.  Format 1 (the published study):
 *   # lab-schedule 1: profile <name>, <R> rounds of <A> arms, <S> s each[; ...]
 * or, when the closed-loop arm's runs last another C seconds,
 *   # lab-schedule 1: profile <name>, <R> rounds of <A> arms, <S> s each, closed loop <C> s[; ...]
 * line 2 the header "k round position arm" (tab-separated), then one line
 * per planned run.  It checks what the page promises: k is 1, 2, ... in
 * file order; round in 1 .. R; position in 1 .. A; no (round, position)
 * and no run <arm>-r<round> twice; R x A lines in all, A distinct arms.
 * Each broken promise is a mismatch (mm_add) naming the file and line.  A
 * missing file is one mismatch (a study must have it: without it a removed
 * round cannot be told); a line 1 or header it cannot read leaves ok 0
 * (one mismatch) and no lines.  sd_find looks a run up; sd_tiny is 1 only
 * when the profile was read and is "tiny" (the tests' profile: the rules a
 * study must meet are not enforced there).  sd_line_seconds is how long
 * the planned run of line l lasts: format 2 its own seconds (*text as the
 * line writes it); format 1 sd_run_seconds of its arm: C when line 1 gives
 * C and the arm is the closed-loop arm (its rate in the arms file is
 * `max`, read as 0: arms.h), else S; *text (when text is not NULL) is that
 * number as line 1 writes it, *closed 1 when it is C.  sd_run_seconds in
 * format 2 is the seconds of the arm's first line (NaN without one).
 * sd_arm_seconds is the arm's run length when every line of the arm has
 * the same (NaN otherwise or without a line), and *rounds the number of
 * rounds the schedule plans for it; sd_has_round whether it plans the arm
 * in that round.  sd_free releases the lines.
 */
#ifndef SCHEDULE_H
#define SCHEDULE_H

#include <stddef.h>

#include "arms.h"

#define SD_REL "results/schedule.tsv"

typedef struct {
    long k, line;
    int round, position;
    char arm[128];
    char run[160];      /* <arm>-r<round> */
    double seconds;     /* format 2: the line's; format 1: 0 (sd_line_seconds) */
    char seconds_text[32];
} sd_line;

typedef struct {
    int present, ok;    /* ok: line 1 and the header were read */
    int format;         /* 1 or 2 (line 1); 0 when unread */
    char profile[64];
    long rounds, arms;  /* arms: A of format 1; 0 in format 2 */
    double seconds;
    char seconds_text[32];
    double closed_seconds;      /* C, 0 when line 1 gives none */
    char closed_text[32];
    sd_line *v;
    size_t n;
} sd_schedule;

void sd_load(const char *root, sd_schedule *s);
const sd_line *sd_find(const sd_schedule *s, const char *run);
int sd_tiny(const sd_schedule *s);
double sd_run_seconds(const sd_schedule *s, const am_file *arms, const char *arm, const char **text, int *closed);
double sd_line_seconds(const sd_schedule *s, const am_file *arms, const sd_line *l, const char **text, int *closed);
double sd_arm_seconds(const sd_schedule *s, const am_file *arms, const char *arm, int *rounds);
int sd_has_round(const sd_schedule *s, const char *arm, int round);
void sd_free(sd_schedule *s);

#endif
