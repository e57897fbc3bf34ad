/* mism: the verifier's list of mismatches.
 *
 * Contract: one process-wide counter.  mm_add records one mismatch: where
 * (a run, an arm, a file ...), what (a figure, a check), the lab's value and
 * the verifier's value, and prints it as
 *     MISMATCH <where> <what>: lab <lab>, verify <mine>
 * Every mismatch is counted and, with group NULL, always printed.  A
 * mismatch with a group (one run's file and row-level check, e.g. the
 * answers of one tester file) is printed up to the limit given to mm_init
 * per group (0 = no cap), so that one broken file of a million rows cannot
 * bury the rest; mm_finish prints, per capped group, how many lines were
 * not shown.  Strings are copied; nothing to free.
 */
#ifndef MISM_H
#define MISM_H

#include <stdio.h>

void mm_init(FILE *out, long max_print_per_group);
void mm_add(const char *group, const char *where, const char *what, const char *lab, const char *mine);
void mm_addf(const char *group, const char *where, const char *what, const char *lab_fmt_value,
             const char *mine_fmt, ...) __attribute__((format(printf, 5, 6)));
/* a row-level check of one run's raw file: grouped per run, file and check,
 * printed as "MISMATCH <run> <file>:<line> <check>: lab <lab>, verify <want>" */
void mm_row(const char *run, const char *file, long line, const char *check, const char *lab, const char *want);
long mm_count(void);
void mm_finish(void);
/* forget everything (tests), the stream too: then stdout, no cap.  A
 * stream given to mm_init must stay open until mm_reset or the next mm_init */
void mm_reset(void);

/* Capture (vpar.h): while a thread has a capture begun, its mm_add calls
 * are recorded in it instead of counted and printed (mm_count in that
 * thread counts them alone, so differences of mm_count stay right);
 * mm_capture_replay then hands them to mm_add in the order they came, in
 * the calling thread, and frees the capture.  Each thread has its own. */
typedef struct mm_capture mm_capture;
mm_capture *mm_capture_begin(void);
void mm_capture_end(void);
void mm_capture_replay(mm_capture *c);

#endif
