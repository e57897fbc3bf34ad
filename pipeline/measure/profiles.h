/* profiles (names prof_*): the registered design, data/profiles.tsv, and the
 * design as run (the one reader of that file and of results/deviations.tsv;
 * pipeline/RESULTS.md, "data/profiles.tsv: the registered design" and
 * "results/deviations.tsv: what departed from the registration").
 *
 * prof_load reads the file with the lab's one TSV reader (header `profile
 * group arms rounds seconds odds_seeds`), keeps the lines of the profile
 * asked for, and resolves them against the arms file: every arm of the
 * profile, in lab/arms.tsv's order, with its group, rounds and seconds
 * (the `*` line takes every arm no other line of the profile names).  It
 * refuses, naming the file, line and field: a name not in the arms file, an
 * arm named twice in the profile, two `*` lines, a group name twice,
 * rounds not an integer in 1 .. PROF_MAX_ROUNDS, seconds not a number
 * above 0 (at most 3600), odds_seeds not `a-b` with 1 <= a <= b or not the
 * same on every line of the profile; and a profile with no line.
 *
 * The design as run: prof_set_rounds (measure's --rounds N: every group N
 * rounds) and prof_set_closed_seconds (measure's --closed-s C: the group
 * of the closed-loop arm, rate 0, C seconds) change a group's value and
 * record a deviation (group, field, registered, ran, reason) when it differs from
 * the registered one; prof_read_deviations applies a results/deviations.tsv
 * (what predict and the tests read back), refusing a line whose group the
 * profile lacks, whose field is not rounds or seconds, whose `registered` is
 * not the registered value, whose reason is empty, or a group and field
 * twice.  prof_deviations_text is that file's content (NULL when there is
 * no deviation: the file is then absent).
 *
 * Invariants (asserted in test builds): after a successful load every arm
 * of the design is in exactly one group; 1 <= rounds; 0 < seconds; R is the
 * largest rounds of the groups.
 *
 * Ownership: prof_load fills a design that owns its groups, plans and
 * deviations; prof_free frees them.  The plans point into the arm_table
 * given to prof_load, which must outlive the design.
 */
#ifndef PIPELINE_PROFILES_H
#define PIPELINE_PROFILES_H

#include <stddef.h>

#include "arms.h"

#define PROF_MAX_ROUNDS 100
#define PROF_NAME 32
#define PROF_REASON 512

typedef struct {
    char name[PROF_NAME];
    int line;                  /* its line in data/profiles.tsv */
    int rounds, reg_rounds;    /* as run, as registered */
    double seconds, reg_seconds;
    char seconds_s[32], reg_seconds_s[32]; /* as written (registered) or as given */
} prof_group;

typedef struct {
    const arm *a;
    int group; /* index into groups */
} prof_plan;

typedef struct {
    char group[PROF_NAME];
    char field[8]; /* "rounds" or "seconds" */
    char registered[32], ran[32];
    char reason[PROF_REASON];
} prof_dev;

typedef struct {
    char profile[PROF_NAME];
    char odds_seeds[32];
    prof_group *g;
    int ng;
    prof_plan *p; /* the profile's arms, in lab/arms.tsv's order */
    int np;
    prof_dev *dev;
    int ndev;
} prof_design;

int prof_load(prof_design *d, const char *path, const char *profile, const arm_table *arms, const char *arms_path,
              char *err, size_t errlen);
void prof_free(prof_design *d);

/* The largest rounds of the groups (R). */
int prof_rounds(const prof_design *d);
/* The group of a plan, or of an arm by name (NULL when not in the design). */
const prof_group *prof_group_of(const prof_design *d, const char *arm);
/* 1 when the arm is measured in round r of the design as run. */
int prof_in_round(const prof_design *d, const prof_plan *p, int r);

/* measure's --rounds N: every group N rounds; -1 when N is out of range. */
int prof_set_rounds(prof_design *d, int rounds, const char *reason, char *err, size_t errlen);
/* measure's --closed-s C: the group of every closed-loop arm (rate 0) C
 * seconds; -1 when C is out of range or the design has no such arm. */
int prof_set_closed_seconds(prof_design *d, double seconds, const char *reason, char *err, size_t errlen);

/* Applies a results/deviations.tsv; a missing file is no deviation (0). */
int prof_read_deviations(prof_design *d, const char *path, char *err, size_t errlen);
/* results/deviations.tsv's content, malloc'd; NULL when none. */
char *prof_deviations_text(const prof_design *d);

#define PROF_NO_REASON "given on the command line (no reason stated)"

#endif
