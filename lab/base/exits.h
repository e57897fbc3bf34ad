/* exits: the exit codes of `build/bin/run` (one arm, one round), one owner.
 * The tester's idle gate (its exit 3), measure (which reads run's code, and
 * passes 2 and 3 on as its own), measure's far side over ssh and GNU
 * parallel's job log (`provenance/parallel.tsv`'s Exitval: a round job's
 * far measure) and the tests all name them through this header; the shell
 * sees the same numbers (README.md, lab/README.md name each).
 *
 *   EXIT_OK         0  done: the run's folder is in place, complete
 *   EXIT_FAIL       1  any other failure (a log breaking raw format 4, a
 *                      child that exited nonzero, no prepared files ...);
 *                      nothing kept
 *   EXIT_USAGE      2  refused before anything ran: a bad option (named,
 *                      with its value), an unknown arm; measure's refusals
 *                      too (a registered file changed, another OUT needed)
 *   EXIT_NOT_QUIET  3  the machine was not quiet: the tester's idle gate
 *                      did not pass within its wait (run keeps nothing; the
 *                      tester's own exit 3); from measure, a run disturbed
 *                      in every attempt (kept, marked, named)
 *   EXIT_LAB_DIED   4  a lab process died before the stop (a store or the
 *                      service gone when the tester ended, or one killed by
 *                      a signal); nothing kept, measure measures it again
 *
 * Header only; nothing to link.
 */
#ifndef LAB_EXITS_H
#define LAB_EXITS_H

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_NOT_QUIET 3
#define EXIT_LAB_DIED 4

#endif
