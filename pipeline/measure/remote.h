/* remote: the schedule measured on another machine over ssh (--host).
 *
 * remote_measure makes a fresh folder there (mktemp -d), copies the built
 * programs (run, store, service, tester and the running measure itself),
 * the prepared files the runs read, the seven registered files (at their
 * registered paths: data/guesses.tsv ... data/profiles.tsv, where the far
 * measure's defaults find them) and prereg.json there (a folder of
 * symlinks, tar -h over ssh), checks that the programs find their
 * libraries, runs `measure --only <the runs not complete at home>` there
 * (with this measure's departures from the design, --rounds and
 * --closed-s, so that its schedule is this one) with its progress
 * streamed, copies
 * results/raw, results/attempts, results/schedule.tsv and provenance/runs home into
 * <raw>/.incoming.tmp, checks every run folder against its run.json at home
 * (sched_check_run) and moves it into place, and only then removes the far
 * folder (stopping its measure first if it still runs).  Anything that did
 * not come home intact keeps the far folder, named on stderr.
 *
 * With far_lab (measure --far-lab DIR: a checkout there, relative to the
 * login's home or absolute, built and prepared there, as make cloud-setup
 * leaves it) nothing of the lab is copied but prereg.json and the rules of
 * a quiet run: the far folder links DIR's build, lab, data and pipeline,
 * so the far machine runs its own build (any architecture) against its own
 * prepared files, which must equal these (the references here are these).
 *
 * ssh runs with BatchMode=yes (key login; the host key accepted
 * beforehand); the options in remote_cfg.ssh_opts go first, since ssh takes
 * the first value of each option.
 *
 * The far measure labels its runs m1 (run.json's machine, --machine).
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
    const char *host, *ssh_opts;                         /* user@host (multi.h: a,b,...); NULL: no options */
    const char *bin, *prep, *provdir;                    /* what goes there */
    const char *const *prereg;                           /* PROV_NPREREG files, as measure reads them */
    const char *cores, *settle;                          /* passed on to the far measure (settle may be NULL) */
    const char *quiet;                                   /* the rules of a quiet run, sent as quiet-rules.tsv */
    int gate;
    const char *raw, *runsdir, *sched_path;              /* where the runs come home */
    const char *attempts;                                /* where their kept attempts come home */
    const char *far_lab;                                 /* NULL, or the lab built and prepared there (below) */
} remote_cfg;

/* 1 when h looks like user@host or host (letters, digits, ._@:-[]%), not an option. */
int remote_host_ok(const char *h);
/* The one-host path: every run not complete, measured on cfg->host, labelled m1. */
int remote_measure(const remote_cfg *cfg, sched *s, char *err, size_t errlen);

/* The pieces remote_measure is made of, for several hosts at once (multi.h).
 *
 * remote_open: a fresh far folder on host (named lab-measure-<label>.XXXXXX
 * when label is given, so that two hosts that are one machine get two
 * folders), the lab copied there, its libraries checked.  NULL when any of
 * it failed (named on stderr; the far folder removed).
 * remote_dir: the far folder.  remote_far_cmd: the far measure's command
 * line, to run in the far folder (the caller frees it); machine and only
 * go in as given (the caller quotes them for sh).
 * remote_take: the far out/ home into <raw>/.incoming-<label>.tmp, the
 * far schedule.tsv compared with ours, then the runs i with want[i] (want
 * NULL: every run not complete) checked against their run.json and moved
 * into place with their records (a run's older records here go first:
 * runs/<run>.json and runs/<run>.attempt-N.json) and their kept attempts
 * (results/attempts/<run>-a<N>/, the far numbers: one whose name is taken
 * here is named and not taken, never moved over the one here).  0 when every wanted
 * run came home intact; else the far folder must be kept.
 * remote_close: removes the far folder when remove is 1 (its measure
 * stopped first), else names it as kept; frees f. */
typedef struct remote_far remote_far;
remote_far *remote_open(const remote_cfg *cfg, const char *host, const char *label, char *err, size_t errlen);
const char *remote_dir(const remote_far *f);
/* sh command cmd run over ssh in the far folder; its exit code, its stdout into *out. */
int remote_run(const remote_far *f, const char *cmd, char **out);
char *remote_far_cmd(const remote_far *f, const sched *s, const char *machine, const char *only);
int remote_take(remote_far *f, sched *s, const char *want, char *err, size_t errlen);
void remote_close(remote_far *f, int remove);
/* ssh and the options every connection takes (the user's first); the caller frees it. */
char *remote_ssh_base(const remote_cfg *cfg);

#endif
