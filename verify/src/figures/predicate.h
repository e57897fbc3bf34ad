/* predicate: the guesses' grammar (data/README.md) and the verdict rule
 * (pipeline/RESULTS.md, "verdicts"), judged on the recomputed run figures.
 *
 * Contract: pr_parse turns one predicate text into clauses (caller frees
 * with pr_free); a text outside the grammar, or naming an unknown figure (one
 * the verifier does not recompute: runfig.h's names), gets a message saying
 * which clause (1, 2 ...) and which word is wrong; pr_check_arms refuses a
 * clause naming an arm the arms file lacks.  Figures are looked up through
 * pr_data callbacks, so this module owns no run data.  Rules beyond the
 * grammar's text (written down in verify/README.md):
 *   - every/any need at least one round (with a right-hand term: one round
 *     both arms have); a round whose figure has no value fails the
 *     comparison (so "every" is then false, "any" looks at other rounds);
 *   - median uses the rounds with a value; no value at all: false;
 *   - apart A B f = "clearly different" exactly as in the verdicts: at least
 *     2 rounds both arms have, every difference present and of one strict
 *     sign; close = not apart, but both are false when the arms share no
 *     round or a shared round lacks the figure.
 */
#ifndef PREDICATE_H
#define PREDICATE_H

#include <stddef.h>

#define PR_MAXR 256   /* rounds per arm considered */

typedef struct {
    void *ctx;
    /* the arm's rounds, ascending; returns how many (0: no runs) */
    size_t (*rounds)(void *ctx, const char *arm, int *out, size_t max);
    /* 1 and *v when the run exists and the figure has a value, else 0 */
    int (*value)(void *ctx, const char *arm, int round, int fig, double *v);
} pr_data;

typedef enum { PQ_EVERY, PQ_ANY, PQ_MEDIAN, PQ_APART, PQ_CLOSE } pr_quant;
typedef enum { PO_LT, PO_LE, PO_GT, PO_GE } pr_op;

typedef struct {
    pr_quant q;
    char arm[128];
    int fig;
    pr_op op;
    double x;          /* the number (alone, or the factor k of k * B.g) */
    int has_term;
    char arm2[128];    /* B (apart/close: the second arm) */
    int fig2;
} pr_clause;

typedef struct {
    pr_clause *c;
    size_t n;
} pr_pred;

int pr_parse(const char *text, pr_pred *out, char *err, size_t errlen);
/* the grammar's `arm := a name of lab/arms.tsv`: 0 when every arm the
 * clauses name (A, and B of a right-hand term, apart or close) is one of
 * arms[0..narms); else -1 and "clause K: arm \"X\" is not a registered arm
 * ..." in err, the first such arm */
int pr_check_arms(const pr_pred *p, const char *const *arms, size_t narms, char *err, size_t errlen);
void pr_free(pr_pred *p);
int pr_eval_clause(const pr_clause *c, const pr_data *d);   /* 1 true, 0 false */

typedef struct {
    size_t n;                   /* rounds both arms have */
    int rounds[PR_MAXR];
    double diffs[PR_MAXR];
    unsigned char has[PR_MAXR]; /* 0: a figure without value in that round */
    int clearly;                /* 1: clearly different */
    int dir;                    /* 1: a>b, -1: a<b, 0: none */
} pr_verdict;

void pr_verdict_compute(const pr_data *d, const char *a, const char *b, int fig, pr_verdict *out);

#endif
