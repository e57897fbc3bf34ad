/* rdata: reading verified.json (the only input of the report).
 *
 * Contract: rd_at walks a path in the tree, like a JSON Pointer without
 * escapes: "/arms/H3-fb25/p99_ms/median", "/verdicts/3/diffs/0" (object
 * keys, or array indexes in decimal); it returns a borrowed node or NULL
 * when any step is missing.  rd_num gives a number (0) or -1 when the node
 * is missing or not a number (null included).  The arm helpers know the
 * registered arms from data, not from their names: rd_design_load reads
 * the lab's arms file (lab/arms.tsv: name, wait, rate, policy ... fault)
 * and the words for its codes (report/templates/arm-words.tsv), and the
 * arms each figure shows (report/templates/arm-lists.tsv); rd_arms
 * lists the registered arms in their file's order followed by any other
 * arm the study has, and says which were measured.  rd_design gives the
 * same as the templates' design data ({"arms": [{"name", "words",
 * "measured", "wait", "rate", "policy", "fault", "family"}], "lists":
 * arm-lists.tsv as {"NAME": [{"name", "label"}]}, "comparisons":
 * comparisons.tsv's groups, each the comparisons the study has a verdict
 * with rounds on, {"GROUP": [{"name": its index in verdicts, "a", "b",
 * "figure"}]}, "figure_words": figure-words.tsv as {"KEY": {"text"}}};
 * free it with json_decref).  Nothing else allocates but rd_arms (free with rd_arms_free).
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
/* read the registered arms (arms_tsv) and, from dir (report/templates),
 * the words of their codes (arm-words.tsv) and the arms each figure shows
 * (arm-lists.tsv), the comparisons the defences cite (comparisons.tsv) and
 * the figures' titles (figure-words.tsv); 0, or -1 with err */
int rd_design_load(const char *arms_tsv, const char *dir, char *err, size_t el);
/* the arms of a list of arm-lists.tsv in order, into arms (NULL after the
 * last when there is room) and their labels ("" when none; labels may be
 * NULL); the count (at most max).  A list the file lacks stops the report
 * (exit 1, the list named): the lists are the report's own data. */
size_t rd_list(const char *list, const char **arms, const char **labels, size_t max);
/* a figure's words (figure-words.tsv: its title, ...); a key the file
 * lacks stops the report (exit 1, the key named) */
const char *rd_word(const char *key);
/* the arm's rate in the arms file ("300", "450", "max"; "" unregistered) */
const char *rd_arm_rate(const char *arm);
/* 1 when the arm is closed loop (its registered rate is "max": the
 * capacity arm, which has no latency to draw beside the open-loop arms) */
int rd_arm_closed(const char *arm);
/* any column of the arms file for the arm ("brk_cool_ms" ...); "" when the
 * arm or the column is not registered */
const char *rd_arm_col(const char *arm, const char *col);
/* the registered arms in order, then the study's others (sorted) */
size_t rd_arms(json_t *root, rd_arm **out);
void rd_arms_free(rd_arm *a);

/* plain words for an arm: "freezes, 300/s, 25 ms limit then stand-in";
 * an arm of the second lesson ends with its store's scenario: "...; store down" */
void rd_arm_words(const char *arm, char *out, size_t n);
/* the arm's fault scenario (the arms file's fault column: "down", "hang",
 * "reset", "never", "flaky", "missing"); "none" for the others */
const char *rd_arm_fault(const char *arm);
/* the policy's family, for colours (arm-words.tsv): 0 none, 1 limit+error,
 * 2 stand-in, 3 deadline, 4 deadline passed down, 5 retries, 6 hedge (fixed
 * or adaptive), 7 other (the breakers, the second store, an unregistered arm) */
int rd_arm_family(const char *arm);

/* a tab-separated data file (# comments, a header) as an object keyed by
 * its first column, each row {"HEADER": "cell", ...} of the others; NULL
 * with err when it cannot be read or a row's width is not the header's */
json_t *rd_table(const char *path, char *err, size_t el);

/* the templates' design data (see the head) */
json_t *rd_design(json_t *root);

/* the rounds of an arm (arms.<arm>.rounds), ascending; returns the count */
size_t rd_rounds(json_t *root, const char *arm, int *out, size_t max);

#endif
