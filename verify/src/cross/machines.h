/* machines: which machine measured each run; a round on one machine; and
 * provenance/parallel.tsv (pipeline/RESULTS.md, "Several machines: a round
 * is measured on one machine", runs.<run>.machine and the records'
 * machine; lab/RAWFORMAT.md, run.json's machine).
 *
 * Contract.
 *   mc_label_ok: 1 when s is a machine label, "local" or "m" followed by a
 *   positive decimal number without a leading zero (m1, m2, ... m2^31-1).
 *
 *   mc_joblog_load reads <root>/provenance/parallel.tsv (GNU parallel's
 *   --joblog as RESULTS.md gives it): line 1 the header "Seq Host
 *   Starttime JobRuntime Send Receive Exitval Signal Command"
 *   (tab-separated), then one tab-separated line per attempt of a round:
 *   Seq an integer from 1, Host a label, Starttime and JobRuntime decimals
 *   of seconds not below 0 (blanks before them allowed: parallel pads
 *   JobRuntime as %10.3f), Send, Receive, Signal integers not below 0,
 *   Exitval an integer, Command "measure-round <round>" (round 1 to
 *   2^31-1).  A header it cannot read is one mismatch (and no lines); each
 *   malformed line one mismatch naming provenance/parallel.tsv:<line> and
 *   its first bad field, the line left out.  j->present is 0 when the file
 *   is absent (nothing recorded).  mc_joblog_last gives a round's last
 *   line: the greatest Seq among its lines, the later in the file on a tie
 *   (NULL: none).  mc_joblog_free releases the lines.
 *
 *   mc_check (the study's runs s, the records recs) records with mm_add:
 *     - each run folder's run.json without machine, or with one that is not
 *       a label (a run.json that does not parse, or without an integer
 *       round, was a rejection already);
 *     - each provenance/runs record without a label as machine; a record
 *       whose name is a run folder's with another machine than its
 *       run.json;
 *     - each round whose run folders and failed-run records (a record named
 *       as its `run`, without a folder, exit_code not 0; its `round`) name
 *       more than one machine: one mismatch naming the round and the runs;
 *     - when the labels of those name more than one machine: a missing
 *       parallel.tsv; and whenever parallel.tsv is there: its lines (above),
 *       every round with runs without a line, a round whose last line has
 *       Exitval or Signal other than 0, or a Host other than the machine
 *       the round's runs name (a split round: not compared).
 *   results.json's runs.<run>.machine is compared with run.json's as a
 *   figure (runfig.h).  Returns checks.study.machines (the caller owns it).
 */
#ifndef MACHINES_H
#define MACHINES_H

#include <stddef.h>

#include "records.h"
#include "study.h"
#include "vjson.h"

#define MC_REL "provenance/parallel.tsv"
#define MC_HEADER "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand"

typedef struct {
    long line;
    long long seq, exitval, signal;
    int round;
    char host[16];
} mc_job;

typedef struct {
    int present, header_ok;
    mc_job *v;          /* the well-formed lines, in file order */
    size_t n;
    long lines, malformed;  /* lines after the header; of those malformed */
} mc_joblog;

int mc_label_ok(const char *s);
void mc_joblog_load(const char *root, mc_joblog *j);
const mc_job *mc_joblog_last(const mc_joblog *j, int round);
void mc_joblog_free(mc_joblog *j);
vj_node *mc_check(const study *s, const pv_records *recs);

#endif
