/* multi: the schedule measured on several hosts at once (--host a,b,...),
 * split by whole rounds with GNU parallel over ssh (pipeline/RESULTS.md,
 * "Several machines: a round is measured on one machine").
 *
 * The hosts are labelled m1, m2 ... in the order given; a label, never the
 * host, goes into run.json, the records and provenance/parallel.tsv.
 * multi_measure:
 * 1. the rounds to measure: every round with a run not complete here is
 *    measured whole (every arm), so that all its runs name one machine;
 * 2. each host gets its own far folder (lab-measure-<label>.XXXXXX), the
 *    lab copied there as the one-host path does (remote.h: remote_open);
 * 3. GNU parallel runs one job per round, `--sshlogin 1/<host>` for each
 *    host (one job at a time per host), `--ssh` with the same ssh options
 *    (remote_ssh_base), `--retries` (a failed round job runs again whole,
 *    on a host where it has not failed if there is one; the job removes
 *    that round's runs from its far folder before it measures) and
 *    `--joblog`.  The job finds its far folder and label from
 *    $PARALLEL_SSHLOGIN, which parallel sets for it, and notes its exit
 *    code in the far attempts.log (a retried attempt leaves no joblog
 *    line: measure names each failed attempt from these);
 * 4. the joblog becomes OUT/provenance/parallel.tsv (atomically): Host
 *    holds the label, Command `measure-round <round>`, the numbers without
 *    parallel's padding; a study measured in several invocations keeps the
 *    earlier lines, the new ones numbered after them (Seq);
 * 5. each host's runs come home (remote_take), but only those of the
 *    rounds whose last joblog line names that host with exit 0: a round
 *    job that failed on one host and then succeeded on another leaves its
 *    partial runs behind; the far folders go once everything is home (a
 *    host whose runs did not all come home intact, or every host when the
 *    joblog cannot be read, keeps its far folder, named on stderr).
 *
 * Needs `parallel` here (make deps) and perl there (parallel's remote
 * wrapper; Debian's perl-base).  Returns measure's exit code: 0 every
 * round measured; 3 some round's last attempt ended in exit 3 (the idle
 * gate, or a run disturbed in every attempt); 2 a refusal (a host given
 * twice, no parallel); 1 a round failed in every attempt, or copying
 * failed; 128+N when signal N stopped it.  The caller's sched marks the
 * runs that came home complete.
 */
#ifndef PIPELINE_MULTI_H
#define PIPELINE_MULTI_H

#include <stddef.h>

#include "remote.h"
#include "schedule.h"

#define MULTI_RETRIES 3 /* attempts at one round job, on any host */

/* 1 when list is a comma-separated list of hosts (remote_host_ok), none twice. */
int multi_hosts_ok(const char *list, char *why, size_t whylen);
/* The number of hosts in list (1 when it has no comma). */
int multi_count(const char *list);
int multi_measure(const remote_cfg *cfg, sched *s, char *err, size_t errlen);

#endif
