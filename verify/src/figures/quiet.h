/* quiet: the rules of a quiet run (pipeline/RESULTS.md, "Quiet runs") and
 * their limits from the quiet file (data/quiet.tsv by default).
 *
 * Contract: qr_load reads the quiet file: `#` lines are comments, the first
 * other line is the header `rule<TAB>limit`, every further line one rule of
 * the table below with its limit (a decimal, vnum.h): every rule exactly
 * once.  Anything else (a missing header, a blank line, an unknown,
 * repeated or missing rule, a limit that is not a number, a wrong field
 * count) is unusable input: qr_load returns 2 with the file (and line, or
 * the missing rule) in err.
 *
 * qr_judge says which rules a run's figures break, as a bit mask (bit k for
 * rule k); a figure without a value breaks nothing.  The figures are given
 * in the rules' units: late_p99_us / 1000 and late_max_us / 1000 for the
 * two lateness rules (RESULTS.md compares those with limits in ms).
 *
 * qr_names lists the broken rules in the order of RESULTS.md's table (both
 * results.json's `quiet_rules` and run.json's `quiet.rules`, RAWFORMAT.md).
 * qr_check_claim compares run.json's `quiet` object with the verifier's
 * judgement (its `reasons`, words, are not compared) and records each
 * difference with mm_add.  The returned trees belong to the caller.  No
 * allocation is kept in qr_rules.
 */
#ifndef QUIET_H
#define QUIET_H

#include "vjson.h"

typedef enum {
    QR_STEAL_RUN_MAX,     /* steal_share > limit */
    QR_STEAL_SECOND_MAX,  /* steal_second_max > limit */
    QR_LATE_P99_MAX_MS,   /* late_p99_us / 1000 > limit */
    QR_LATE_MAX_MAX_MS,   /* late_max_us / 1000 > limit */
    QR_OTHER_IDLE_MIN,    /* other_idle_share < limit */
    QR_FOREIGN_SECOND_MAX, /* foreign_second_max > limit */
    QR_NRULE
} qr_rule;

extern const char *const qr_rule_name[QR_NRULE];

typedef struct {
    int order[QR_NRULE];        /* the rules, in the file's order */
    double limit[QR_NRULE];     /* by rule (every rule is listed) */
    char sha256[65];            /* of the file */
} qr_rules;

/* the figures a run is judged on, indexed by rule */
typedef struct {
    double v[QR_NRULE];
    unsigned char has[QR_NRULE];
} qr_figs;

int qr_load(const char *path, qr_rules *q, char *err, size_t errlen);
unsigned qr_judge(const qr_rules *q, const qr_figs *f);
vj_node *qr_names(unsigned broken);
/* run: the run's name (for the messages); claim: run.json's "quiet" (NULL when absent) */
void qr_check_claim(unsigned broken, const qr_figs *f, const vj_node *claim, const char *run);
/* [{"rule": name, "limit": x}, ...] in the file's order */
vj_node *qr_limits_json(const qr_rules *q);

#endif
