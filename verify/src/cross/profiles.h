/* profiles: data/profiles.tsv, the registered design (pipeline/RESULTS.md,
 * "data/profiles.tsv: the registered design").  The one reader of the file.
 *
 * Contract: pf_load reads the file at path (the registered copy, the
 * command line's --profiles, or the root's: main.c chooses): `#` lines are
 * comments (also before the header); then the header `profile group arms
 * rounds seconds odds_seeds` (tab-separated); then one line per group.
 * Every fault RESULTS.md names is a mismatch (mm_add) naming the file, the
 * line and the field: a line without six fields, an empty profile or group
 * name, a group twice within its profile, an arm not in the arms file
 * given (the registered lab/arms.tsv), an arm named twice within a
 * profile, `rounds` not an integer >= 1, `seconds` not a decimal number
 * > 0, `odds_seeds` not a-b with 1 <= a <= b or differing within a
 * profile, two `*` lines in a profile.  A line with a fault is kept out of
 * the design (ok 0 in the group); the others are kept.  A `*` line's arms
 * are, after the whole file is read, every arm of the arms file (in its
 * order) that no other line of the same profile names.  Returns 0 when the
 * file was read (faults or not), -1 when it is missing or unreadable (one
 * mismatch).  pf_profile_has tells whether any line names the profile;
 * pf_free releases everything.
 */
#ifndef PROFILES_H
#define PROFILES_H

#include <stddef.h>

#include "arms.h"

#define PF_HEADER "profile\tgroup\tarms\trounds\tseconds\todds_seeds"

typedef struct {
    char profile[64], group[64];
    long line;
    int ok;                 /* 0: a fault on the line (left out of the design) */
    int star;               /* the arms column is `*` */
    char **arms;            /* named, or (star) the arms no other line names; owned */
    size_t narms;
    long rounds;
    double seconds;
    char seconds_text[32];
    long seeds_a, seeds_b;
} pf_group;

typedef struct {
    char path[4096];        /* as shown in messages */
    char sha256[65];
    size_t size;
    pf_group *v;
    size_t n;
} pf_file;

int pf_load(const char *path, const am_file *arms, pf_file *f);
int pf_profile_has(const pf_file *f, const char *profile);
void pf_free(pf_file *f);

#endif
