/* remote: the schedule measured on another machine over ssh (--host).
 *
 * remote_measure makes a fresh folder there (mktemp -d), copies the built
 * programs (run, store, service, tester and the running measure itself),
 * the prepared files the runs read, the six registered files (at their
 * registered paths: data/guesses.tsv ... pipeline/ap_arms.tsv, where the far
 * measure's defaults find them) and prereg.json there (a folder of symlinks, tar -h over ssh), checks that
 * the programs find their libraries, runs `measure --only <the runs not
 * complete at home>` there with its progress streamed, copies
 * results/raw, results/schedule.tsv and provenance/runs home into
 * <raw>/.incoming.tmp, checks every run folder against its run.json at home
 * (sched_check_run) and moves it into place, and only then removes the far
 * folder (stopping its measure first if it still runs).  Anything that did
 * not come home intact keeps the far folder, named on stderr.
 *
 * ssh runs with BatchMode=yes (key login; the host key accepted
 * beforehand); the options in remote_cfg.ssh_opts go first, since ssh takes
 * the first value of each option.
 *
 * remote_measure returns measure's exit code: 0 or 3 as the far measure
 * said, 2 when it refused, 1 when it failed or copying failed, 128+N when
 * signal N stopped it (the runs complete there are still fetched).  It marks
 * the runs that came home complete, and those whose gate did not pass
 * there as gated.
 */
#ifndef PIPELINE_REMOTE_H
#define PIPELINE_REMOTE_H

#include <stddef.h>

#include "schedule.h"

typedef struct {
    const char *host, *ssh_opts;                         /* user@host; NULL: no options */
    const char *bin, *prep, *provdir;                    /* what goes there */
    const char *const *prereg;                           /* PROV_NPREREG files, as measure reads them */
    const char *cores, *settle;                          /* passed on to the far measure (settle may be NULL) */
    const char *quiet;                                   /* the rules of a quiet run, sent as quiet-rules.tsv */
    int gate;
    const char *raw, *runsdir, *sched_path;              /* where the runs come home */
} remote_cfg;

/* 1 when h looks like user@host or host (letters, digits, ._@:-[]%), not an option. */
int remote_host_ok(const char *h);
int remote_measure(const remote_cfg *cfg, sched *s, char *err, size_t errlen);

#endif
