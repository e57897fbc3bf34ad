/* arms: the registered arms file (lab/arms.tsv, given with --arms), read
 * as lab/RAWFORMAT.md's run.json `arm_spec` describes it: "the arm's line
 * of lab/arms.tsv as an object (every column: strings for name, wait,
 * policy, pause, fault; a list of integers for pause_ms; integers for the
 * others, rate 0 for max)".
 *
 * Contract: am_load reads the file: lines starting with '#' and blank
 * lines are comments; the first other line is the header (the column
 * names, tab-separated; it must have `name` and `rate`), every further line
 * one arm with exactly as many fields.  Each line becomes the object
 * run.json's arm_spec must equal: the five string columns as strings;
 * pause_ms "-" as [] and "10,20" as [10, 20] (the form the file writes a
 * list in); rate "max" as 0; every other column an integer (vnum.h).
 * Returns 0, or 2 with the file and line in err (a missing file, no
 * header, a wrong field count, a value that is not of its column's type,
 * an arm named twice).  am_find looks an arm up (NULL when absent); am_free
 * releases everything.
 */
#ifndef ARMS_H
#define ARMS_H

#include <stddef.h>

#include "vjson.h"

typedef struct {
    char name[128];
    long line;
    vj_node *spec;      /* owned */
} am_arm;

typedef struct {
    char path[4096];
    char sha256[65];
    am_arm *v;
    size_t n;
} am_file;

int am_load(const char *path, am_file *a, char *err, size_t errlen);
const am_arm *am_find(const am_file *a, const char *name);
void am_free(am_file *a);

#endif
