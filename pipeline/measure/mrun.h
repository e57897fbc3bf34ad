/* mrun: one run of measure's schedule, and measure's console.
 *
 * - mrun_one measures run i of c->sc: `BIN/run` with the run's arm, round
 *   and seconds and measure's options, its output read to the end (the
 *   progress line refreshed every second on a terminal), the system log
 *   written meanwhile kept (slog.h), then its record
 *   OUT/provenance/runs/<run>.json (an earlier attempt's record kept as
 *   <run>.attempt-N.json first, mfiles.h).  Returns run's exit code
 *   (lab/base/exits.h), 128+N when signal N stopped measure; a failed
 *   run's reason (run's last line) goes into c->fail_why.
 * - mrun_quiet: 1 when the run's run.json judges it quiet, 0 when
 *   disturbed (its reasons, one line, in why), -1 without a judgement.
 * - mrun_prior_left: the seconds the runs from `from` on take before any
 *   was timed (each run's seconds, its settling, 1 s, the gate's 2 s).
 * - mrun_say: one line "measure: ..." on stderr (closing an open progress
 *   line first); mrun_fmt_dur: m:ss or h:mm:ss.
 */
#ifndef PIPELINE_MRUN_H
#define PIPELINE_MRUN_H

#include <stddef.h>

#include "mctx.h"

int mrun_one(mctx *c, int i, char *err, size_t errlen);
int mrun_quiet(const mctx *c, const sched_run *s, char *why, size_t wl);
double mrun_prior_left(const mctx *c, int from);
void mrun_say(mctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mrun_fmt_dur(double s, char *buf, size_t n);

#endif
