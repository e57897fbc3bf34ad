/* schedule: results/schedule.tsv, the planned runs (pipeline/RESULTS.md,
 * "results/schedule.tsv: the planned runs").
 *
 * Contract: sd_load reads <root>/results/schedule.tsv: line 1
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
 * study must meet are not enforced there).  sd_run_seconds is how long a
 * planned run of `arm` lasts: C when line 1 gives C and the arm is the
 * closed-loop arm (its rate in the arms file is `max`, read as 0: arms.h),
 * else S; *text (when text is not NULL) is that number as line 1 writes
 * it, *closed 1 when it is C.  sd_free releases the lines.
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
} sd_line;

typedef struct {
    int present, ok;    /* ok: line 1 and the header were read */
    char profile[64];
    long rounds, arms;
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
void sd_free(sd_schedule *s);

#endif
