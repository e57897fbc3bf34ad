/* rdata: reading verified.json (the only input of the report).
 *
 * Contract: rd_at walks a path in the tree, like a JSON Pointer without
 * escapes: "/arms/H3-fb25/p99_ms/median", "/verdicts/3/diffs/0" (object
 * keys, or array indexes in decimal); it returns a borrowed node or NULL
 * when any step is missing.  rd_num gives a number (0) or -1 when the node
 * is missing or not a number (null included).  The arm helpers know the
 * design's arm names (`<wait><rate>-<policy>[-<fault>]`): the seed's 21
 * arms plus Z-capacity, the 14 arms whose store fails (the second
 * lesson) and the 21 arms of the defences (issue 13, in the order of the
 * lab's arm table); rd_arms lists those in design order followed by any other arm
 * the study has, and says which were measured.  Nothing here allocates
 * except rd_arms (free the array with rd_arms_free).
 */
#ifndef RDATA_H
#define RDATA_H

#include <jansson.h>
#include <stddef.h>

json_t *rd_at(json_t *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rd_num(json_t *root, double *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *rd_str(json_t *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 when verified.json has the arm (arms.<arm> present) */
int rd_measured(json_t *root, const char *arm);

typedef struct {
    char name[64];
    int measured;
} rd_arm;
/* the design's arms in order, then the study's others (sorted) */
size_t rd_arms(json_t *root, rd_arm **out);
void rd_arms_free(rd_arm *a);

/* plain words for an arm: "freezes, 300/s, 25 ms limit then stand-in";
 * an arm of the second lesson ends with its store's scenario: "...; store down" */
void rd_arm_words(const char *arm, char *out, size_t n);
/* the arm's fault scenario, the last part of its name: "down", "hang",
 * "reset", "never", "flaky", "missing"; "none" for the others */
const char *rd_arm_fault(const char *arm);
/* the policy's family, for colours: 0 none, 1 limit+error, 2 stand-in,
 * 3 deadline, 4 deadline passed down, 5 retries (any rN...), 6 hedge (fixed or
 * adaptive), 7 other (the breakers, the second store) */
int rd_arm_family(const char *arm);

/* the rounds of an arm (arms.<arm>.rounds), ascending; returns the count */
size_t rd_rounds(json_t *root, const char *arm, int *out, size_t max);

#endif
