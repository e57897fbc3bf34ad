/* deviations: results/deviations.tsv, what departed from the registered
 * design (pipeline/RESULTS.md, "results/deviations.tsv: what departed from
 * the registration").  The one reader of the file.
 *
 * Contract: dv_load reads <root>/results/deviations.tsv when it exists
 * (present 0 otherwise: the study ran its design exactly).  `#` lines are
 * comments (also before the header); the header `group field registered
 * ran reason` (tab-separated); then one line per changed value.  What the
 * file alone can show is checked here, each fault a mismatch (mm_add)
 * naming results/deviations.tsv:<line> and the field: five fields; a
 * non-empty group; field `rounds` or `seconds`; registered and ran of the
 * field's kind (rounds an integer >= 1, seconds a decimal number > 0); a
 * non-empty reason; a group and field at most once.  A line with a fault
 * has ok 0 (not applied).  Whether the group is the profile's and the
 * registered value the registered one is the design check's (design.h).
 * dv_free releases the lines.
 */
#ifndef DEVIATIONS_H
#define DEVIATIONS_H

#include <stddef.h>

#define DV_REL "results/deviations.tsv"
#define DV_HEADER "group\tfield\tregistered\tran\treason"

typedef struct {
    long line;
    int ok;
    int seconds;            /* 1: field seconds; 0: rounds */
    char group[64], field[16];
    char registered[64], ran[64];
    double reg_v, ran_v;
    char reason[1024];
} dv_line;

typedef struct {
    int present;
    dv_line *v;
    size_t n;
} dv_file;

void dv_load(const char *root, dv_file *d);
void dv_free(dv_file *d);

#endif
