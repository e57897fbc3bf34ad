/* guesstab: the one reader of the registered guesses (data/guesses.tsv),
 * the one owner of their predicate grammar (data/README.md, "The guesses
 * and their predicates") and of the check that every name a predicate
 * gives exists.  Both of its readers use it: prepare, when it registers
 * the guesses (a guess that names nothing is refused before anything is
 * built), and collect, before the database is touched.  It lives in
 * lab/core because the stages may not include each other.
 *
 * The file: lab/base/tsv.h's grammar ("#" comment lines and empty lines
 * skipped anywhere), the header "id guess predicate", then one guess a
 * line: its id (non-empty, under GUESS_NAME bytes, given once), the guess
 * in words, and its predicate:
 *
 *   predicate := clause { " and " clause }
 *   clause    := quant " " arm "." figure " " op " " number [ " * " arm "." figure ]
 *              | ( "apart" | "close" ) " " arm " " arm " " figure
 *   quant     := every | any | median        op := < | <= | > | >=
 *
 * (words are split on spaces, several in a row counting as one).  Every
 * figure must be one of GUESS_FIGURES (data/README.md's table of figures,
 * each defined in pipeline/RESULTS.md); with an arm list given, every arm
 * must be one of its names (the registered arms, lab/arms.tsv).  The
 * grammar names no round: a clause is judged over the rounds its arms
 * were measured in.
 *
 * Every refusal names the file, the line, the guess and the clause (1, 2
 * ... within the predicate) and quotes the token at fault:
 *   "data/guesses.tsv:4: guess G3, clause 2: no arm \"F3-nope\" in the
 *    registered arms (lab/arms.tsv)"
 *   "data/guesses.tsv:4: guess G3, clause 1: \"=<\" is not an operator
 *    (<, <=, > or >=)"
 *
 * guesstab_load reads and checks the file; arms NULL skips the arm check
 * (the fuzz harness: the grammar alone).  guesstab_load_registered loads
 * the arms from arms_path (lab/core/arms.h's reader) and checks the
 * guesses against them: what prepare and collect call.
 *
 * Ownership: the loaders fill a caller's table; guesstab_free releases it
 * (safe on a zeroed or failed table).  0, or -1 with the message in err.
 */
#ifndef LAB_GUESSTAB_H
#define LAB_GUESSTAB_H

#include <stddef.h>

#define GUESS_NAME 64 /* an id, arm, figure or number token: under this many bytes */

typedef enum { GUESS_CMP, GUESS_APART, GUESS_CLOSE } guess_kind;

/* One clause.  GUESS_CMP: quant arm.figure op num [* arm2.figure2] (arm2
 * empty without a right-hand term); GUESS_APART and GUESS_CLOSE: arm, arm2
 * and figure (figure2 = figure). */
typedef struct {
    guess_kind kind;
    char quant[8], op[3];
    char arm[GUESS_NAME], figure[GUESS_NAME], num[GUESS_NAME];
    char arm2[GUESS_NAME], figure2[GUESS_NAME];
} guess_clause;

typedef struct {
    char id[GUESS_NAME];
    char *text, *predicate; /* malloc'd */
    int k;                  /* 1, 2, ...: its place among the guesses */
    size_t line;            /* its line in the file */
    guess_clause *c;        /* malloc'd, nc of them */
    int nc;
} guess_row;

typedef struct {
    guess_row *v;
    size_t n, cap;
} guesstab;

/* The figures a predicate may name (data/README.md's table). */
extern const char *const GUESS_FIGURES[];
extern const size_t GUESS_NFIGURES;
int guess_is_figure(const char *s);

/* arms: the names a predicate's arms must be among (n of them), from the
 * file arms_from (named in a refusal); NULL: no arm check. */
int guesstab_load(const char *path, const char *const *arms, size_t narms, const char *arms_from, guesstab *t,
                  char *err, size_t errlen);
int guesstab_load_registered(const char *path, const char *arms_path, guesstab *t, char *err, size_t errlen);
void guesstab_free(guesstab *t);

#endif
