/* facts: what a record says of the machine and the build, for every record
 * the lab writes (run.json; pipeline's stage records and prereg.json).
 *
 * facts_host: OS, kernel release, architecture, CPU model and count, and
 * memory; never a host name or an address.  facts_build: the git commit and
 * dirty flag of the folder the program runs in, the compiler and the flags
 * the lab was built with (LAB_CFLAGS, set by the Makefile).  Each returns a
 * new jansson object (json_t *) the caller owns.
 *
 * Asking git costs about 0.15 s (git status over the study's files), once
 * for every run of a study; so facts_build_pin asks it once and puts the
 * answer in the environment (LAB_GIT_COMMIT, LAB_GIT_DIRTY: "true" or
 * "false"), where facts_build in the programs started after it (measure's
 * runs) finds it instead of asking again.  A LAB_GIT_COMMIT without a valid
 * LAB_GIT_DIRTY is ignored (git is asked).
 */
#ifndef LAB_FACTS_H
#define LAB_FACTS_H

#ifndef LAB_CFLAGS
#define LAB_CFLAGS "unknown"
#endif

void *facts_host(void);
void *facts_build(void); /* git commit, dirty, compiler, flags */
void facts_build_pin(void); /* git asked once, for the programs started after */

#endif
