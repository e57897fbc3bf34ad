/* vopt: the verifier's command line, read from one table of options (the
 * lab's option parser is not used: verify/ stands alone).
 *
 * Contract.  A table of vopt rows says, per option, its name ("--root"),
 * its kind, the name of its value for the help ("DIR"), its help (lines
 * split by "\n") and where its value goes (dst, the caller's):
 *
 *   VOPT_STR   const char **dst  the argument as given (argv keeps it alive)
 *   VOPT_LONG  long *dst         a whole decimal integer in [lo, hi] (vnum.h)
 *   VOPT_FLAG  int *dst          set to 1; takes no value
 *   VOPT_LIST  vopt_list *dst    repeatable: each value appended (argv keeps
 *                                them alive; the caller gives the array and
 *                                its size; one more than fits is a bad value)
 *
 * vopt_parse reads argv[1 .. argc) and returns VOPT_RUN, VOPT_HELP ("-h" or
 * "--help": the table was printed on stdout; the caller exits 0) or
 * VOPT_BAD: one line on stderr naming the option and the value (an unknown
 * option, a missing value, a bad value, an argument that is not an option);
 * the caller exits 2.  A value is the next argument, unless that is one of
 * the table's options (then the value is missing).  An option given twice
 * keeps its last value (a VOPT_LIST keeps them all).
 * Nothing is allocated.
 */
#ifndef VOPT_H
#define VOPT_H

#include <stddef.h>
#include <stdio.h>

typedef enum { VOPT_STR, VOPT_LONG, VOPT_FLAG, VOPT_LIST } vopt_kind;

typedef struct {
    const char **v;
    size_t n, cap;
} vopt_list;

typedef struct {
    const char *name;
    vopt_kind kind;
    const char *arg;   /* the value's name in the help; NULL for a flag */
    const char *help;
    void *dst;
    long lo, hi;       /* VOPT_LONG: the accepted range */
} vopt;

enum { VOPT_RUN = 0, VOPT_HELP = 1, VOPT_BAD = 2 };

/* prog: the program's name in messages; head and foot: lines printed
 * before and after the table by --help */
int vopt_parse(const vopt *t, size_t n, int argc, char **argv, const char *prog, const char *head,
               const char *foot);
void vopt_help(const vopt *t, size_t n, const char *head, const char *foot, FILE *o);

#endif
