/* opt: checked parsing of numbers and of command lines, for every program.
 *
 * Numbers: opt_i64 and opt_f64 accept a value only when the whole string is
 * one number (no leading blank, no trailing text, not empty), it did not
 * overflow, and it lies in [lo, hi].  On failure they write why into `why`
 * ("not an integer", "out of range 1..3", ...) and return -1; they never
 * fall back to a default.  Callers name the file, line and column (TSV
 * readers) or the option (opt_parse) around that reason.
 *
 * Options: a program lists its options once, in a table of opt_spec:
 *
 *   int gate = 1;  const char *arm = NULL;  int csv = 0;
 *   const opt_spec spec[] = {
 *       {"--arm",  OPT_STR,  &arm,  0, 0, "NAME", "the arm (lab/arms.tsv)"},
 *       {"--gate", OPT_BOOL, &gate, 0, 1, "0|1",  "wait for an idle machine"},
 *       {"--csv",  OPT_FLAG, &csv,  0, 0, NULL,   "comma-separated output"},
 *       {0}};
 *   int rc = opt_parse(argc, argv, spec, "play: the playground", NULL);
 *   if (rc != OPT_OK) return rc == OPT_HELP ? 0 : 2;
 *
 * Every option is "--name value" (or "--name=value"); OPT_FLAG takes no
 * value and stores 1.  OPT_INT stores an int, OPT_I64 an int64_t, OPT_DBL a
 * double, each checked against [lo, hi]; OPT_BOOL is an int that must be 0
 * or 1 (so "--gate yes" is refused, not read as 0); OPT_STR stores the
 * argv pointer.  A bad value prints one line naming the option and the
 * value and opt_parse returns OPT_BAD: callers exit 2.  "--help" / "-h"
 * prints the usage built from the table and returns OPT_HELP.  Arguments
 * that are not options are refused unless `pos` is given: then they are
 * collected there in order (pos->v points into argv; at most OPT_MAXPOS).
 * An option seen twice: the last one wins.
 *
 * Nothing here allocates.
 */
#ifndef LAB_OPT_H
#define LAB_OPT_H

#include <stddef.h>
#include <stdint.h>

int opt_i64(const char *s, int64_t lo, int64_t hi, int64_t *out, char *why, size_t whylen);
int opt_f64(const char *s, double lo, double hi, double *out, char *why, size_t whylen);
/* int-sized convenience wrapper of opt_i64. */
int opt_int(const char *s, int lo, int hi, int *out, char *why, size_t whylen);

typedef enum { OPT_STR, OPT_INT, OPT_I64, OPT_DBL, OPT_BOOL, OPT_FLAG } opt_type;

typedef struct {
    const char *name; /* "--seconds"; NULL ends the table */
    opt_type type;
    void *dst;
    double lo, hi;    /* bounds of OPT_INT, OPT_I64 and OPT_DBL (inclusive) */
    const char *meta; /* the value's placeholder in the usage: "S" */
    const char *help; /* one line */
} opt_spec;

#define OPT_MAXPOS 16
typedef struct {
    int n;
    const char *v[OPT_MAXPOS];
} opt_pos;

enum { OPT_OK = 0, OPT_HELP = 1, OPT_BAD = 2 };

/* `about` is printed first by --help (may be NULL). */
int opt_parse(int argc, char **argv, const opt_spec *spec, const char *about, opt_pos *pos);
void opt_usage(const opt_spec *spec, const char *about);

#endif
