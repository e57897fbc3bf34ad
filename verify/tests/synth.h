/* synth: synthetic studies written exactly per lab/RAWFORMAT.md and
 * pipeline/RESULTS.md, for the verifier's tests and bench.
 *
 * Contract: a syn_run holds the rows of one run with absolute times; the
 * writer encodes the five event files as a run driver of raw format
 * version 4 would (tester, service, store: whole µs after the bases a
 * reader decodes, floor-rounded (with edge_rule, a faulted store's
 * arrive_us rounded up at a window's edge: RAWFORMAT.md), the end of an A lookup (service) and of
 * an A row (store) after its start + W; j, row, sched_t and planned_ns not
 * written, the drawn ones standing for them; a score equal to its
 * reference "=" when the run has its ref, or else against the last
 * reference made or written; events, machine: ns deltas) and
 * gzips them, and store2.tsv.gz when stores is 2, and writes run.json
 * with the files' rows, size and sha256, its arm_spec (every column of
 * lab/arms.tsv: the defences' from spec, tries 1 when 0), stores, its
 * "fault" (none unless set: syn_set_fault) and its "quiet"
 * object (the lab's claim: quiet unless claim_rules names rules; its
 * figures computed here from the rows), its schedule_seed (1000003 round +
 * 17) and freeze_share.  syn_gen_run and syn_kind_run fill a run with
 * well-formed rows (answers taken from the reference given, so the answer
 * check passes; a quiet machine: syn_quiet_machine) that meet the rules
 * the verifier checks across files and draws again: an open-loop run's
 * requests at the offsets of RAWFORMAT.md's schedule (syn_schedule), a
 * closed-loop run's sent when scheduled, every planned_ns from the wait
 * dice (syn_draw_waits), every answer with its service row, every sent
 * lookup with its store row.  A test that makes rows by hand calls
 * syn_draw_waits (and syn_closed_loop, for times of its own choosing)
 * before tampering with them.  syn_free_run frees its rows.  The
 * schedule, the dice and the rows' moves are in synraw.c (declared below).  The other writers make the reference, the
 * manifest, comparisons, guesses and quiet files.  All return 0 or -1 (with
 * a message on stderr).
 */
#ifndef SYNTH_H
#define SYNTH_H

#include <stddef.h>

typedef struct {
    long long j, row, sched, send, answer;
    int has_answer;
    int status;
    char kind;
    float score;
    int has_score;
    int conn, waited;
    int no_send;           /* 1: never sent (send_us and conn written -) */
} syn_trow;

typedef struct {
    long long req, row;
    int has_req, has_row;
    long long arrive, answer;
    int status;
    char kind;
    int lookups;
    int store;             /* 1 or 2; 0 is written as 1 */
    long long a_start[5], a_end[5];
    char a_out[5];
    int a_has[5];
} syn_vrow;

typedef struct {
    long long req, attempt, row, arrive, start, end;
    int has_start, has_end;
    long long planned, budget;
    char outcome;
    int line, busy;
    long long arrive_us_off; /* added to the arrive_us written (a tampered row; 0: as the rule writes it) */
} syn_srow;

typedef struct {
    long long t;           /* absolute */
    char scope;            /* A or M */
    long long total, idle, steal;
    long long lab;         /* the run's own ticks; the same on the A and M row of a reading */
} syn_mrow;

typedef struct {
    long long t;           /* absolute */
    char what;             /* L, F, C; the breaker's O, W, P, H, K (conn -1) */
    long long conn, tries, wait;
} syn_erow;

/* arm_spec's integer columns of the defences (lab/arms.tsv) */
typedef struct {
    int tries, brk_fails, brk_window, brk_share, brk_cool_ms, brk_probes, store2, inflight, bulkhead, rb_pct,
        rb_floor, hedge_p;
    int hedge2;            /* docs/DESIGN.md 5.9: lookup 1 goes to the second store (written with has_hedge2) */
    int has_hedge2;        /* 1: arm_spec has the column hedge2 (the 28th); 0: written without it */
} syn_spec;

typedef struct syn_ref syn_ref;

typedef struct {
    char arm[64];
    int round;
    double seconds;
    int rate;
    long long t0;
    long long test_rows;
    syn_trow *t;
    size_t nt;
    syn_vrow *v;
    size_t nv;
    syn_srow *s;
    size_t ns;
    syn_srow *s2;          /* store2.tsv.gz, written when stores is 2; malloc'd */
    size_t ns2;
    int stores;            /* run.json's stores: 0 is written as 1 */
    syn_spec spec;
    syn_mrow *m;           /* machine.tsv.gz, in file order; malloc'd */
    size_t nm;
    syn_erow *e;           /* events.tsv.gz, in file order; malloc'd (none: no trouble) */
    size_t ne;
    /* run.json's fault: name NULL is "none" without a window; spec NULL is
     * the name; the window from_ns, to_ns (to_null: null) when has_window;
     * written in fault itself (RAWFORMAT.md); nested: in a fault.window
     * object instead (a form RAWFORMAT.md does not have: refused) */
    const char *fault, *fault_spec;
    int has_window, to_null, nested;
    long long from_ns, to_ns;
    const char *start_utc;     /* run.json's start_utc; NULL: not written */
    const char *machine;       /* run.json's machine; NULL: "local"; "": not written */
    char wait;                 /* arm_spec.wait, Z F L H; 0: the arm's first letter if one of those, else H */
    int freeze_share_set;      /* 1: freeze_share below; 0: 0.01 (RAWFORMAT.md) */
    double freeze_share;
    int no_freeze_share;       /* 1: run.json without freeze_share (the rows still use the share) */
    const char *claim_rules;   /* run.json quiet.rules, comma-separated; NULL or "": quiet
                                  (quiet.reasons: one sentence per rule named) */
    const syn_ref *ref;        /* the reference: a score equal to its row's is written "="
                                  (NULL: every score a number) */
    int no_eq;                 /* 1: every score a number even when equal (a format 4 fault) */
    int edge_rule;             /* 1: the faulted store's rows written by RAWFORMAT.md's "A window's
                                  edge"; 0: floored throughout (files before that rule) */
} syn_run;

/* data/quiet.tsv as the repository registers it */
#define SYN_QUIET_TSV                                                                   \
    "# A quiet run: the limits of pipeline/RESULTS.md (\"quiet\").\n"                   \
    "rule\tlimit\nsteal_run_max\t0.005\nsteal_second_max\t0.05\nlate_p99_max_ms\t2\n" \
    "late_max_max_ms\t25\nother_idle_min\t0.8\nforeign_second_max\t0.2\n"

struct syn_ref {
    size_t rows;
    float *score, *last_known;
    float default_score;
};

int syn_write_run(const char *root, const syn_run *r, int level);
/* run.json's fault: name and spec, with RAWFORMAT.md's default window for
 * the scenarios that have one ([round(S/3 1e9), round(2S/3 1e9)); never: to
 * the end) */
void syn_set_fault(syn_run *r, const char *name);
void syn_free_run(syn_run *r);
/* random rows of an open-loop run of rate/s over seconds from t0: the
 * schedule's requests; the answers follow ref; each lookup waits its
 * planned wait in its slot */
void syn_gen_run(syn_run *r, const char *arm, int round, double seconds, double rate, unsigned long long seed,
                 const syn_ref *ref, long long t0);

/* a quiet machine: a pair A, M at t0 + k s for k = 1 .. readings; the whole
 * machine 200 ticks a second (2 cores), 190 idle, no steal; the measured
 * core 100, 92 + k % 3 idle (other cores' idle share about 0.97); lab 7 on
 * both rows, so the measured core's foreign share is 0.01 at k % 3 == 0
 * and 0 otherwise (lab 7 >= 6 or 7 busy ticks: none foreign) */
void syn_quiet_machine(syn_run *r, int readings);
/* root/data/quiet.tsv: text, or SYN_QUIET_TSV when NULL */
int syn_write_quiet(const char *root, const char *text);

void syn_make_ref(syn_ref *ref, size_t rows, unsigned long long seed);
void syn_free_ref(syn_ref *ref);
int syn_write_reference(const char *root, const syn_ref *ref);
int syn_write_manifest(const char *root);
/* a reference whose customer, cutoff and label are given per row (the AP
 * check groups rows by cutoff and counts customers); default_score and
 * every score as in ref, printed with %.9g */
int syn_write_reference_table(const char *root, const syn_ref *ref, const char *const *customer,
                              const char *const *cutoff, const int *label);
/* a run whose request j asks row j % rows and is answered with kinds[j]
 * (L live, K last-known, D default: the lookup timed out at 25 ms; E a 504),
 * a closed-loop run (rate 0) with one request every 50 ms from t0, each
 * sent when scheduled; every file consistent with the others (the slots:
 * 1 ms for L, 40 ms otherwise, whatever the planned_ns the dice give) */
void syn_kind_run(syn_run *r, const char *arm, int round, const char *kinds, const syn_ref *ref, long long t0);
/* the same in an open-loop run of rate/s over seconds: request j at the
 * schedule's offset j, sent 10 us late; kinds must hold exactly the
 * schedule's requests (syn_schedule; else it aborts) */
void syn_kind_run_open(syn_run *r, const char *arm, int round, const char *kinds, const syn_ref *ref, long long t0,
                       int rate, double seconds);

/* ---- the schedule and the dice (RAWFORMAT.md; the verifier's dice.h) ---- */

/* the offsets (ns from t0) of an open-loop run's schedule; *off malloc'd */
size_t syn_schedule(int round, double rate, double seconds, long long **off);
/* the run's wait code and freeze share, as run.json writes them */
char syn_wait_of(const syn_run *r);
double syn_freeze_share(const syn_run *r);
/* W(wait, round, req, attempt) of the run */
long long syn_planned(const syn_run *r, long long req, long long attempt);
/* the wait store (1 or 2) plans for a lookup arriving at t: W, plus 20 ms
 * when the run's fault slow (store 1) or slowboth (both) has t in its
 * window (docs/DESIGN.md 5.9) */
long long syn_planned_at(const syn_run *r, int store, long long req, long long attempt, long long t);
/* every store row's planned_ns (both stores) from the dice (syn_planned_at
 * of its arrive) */
void syn_draw_waits(syn_run *r);
/* a closed-loop run: rate 0, every request sent at its sched_t (then
 * syn_assign_conns) */
void syn_closed_loop(syn_run *r);
/* request j (its tester row's index) sent late_ns after its sched_t, and
 * everything that followed from it (its answer, its service row, its
 * store rows) that much later too; then the connections and the rows'
 * order made again (syn_assign_conns, syn_sort_rows), as a tester would
 * have them */
void syn_send_late(syn_run *r, size_t j, long long late_ns);
/* request j, every time of it (its schedule too), moved by d ns; then the
 * connections and the rows' order made again, as syn_send_late */
void syn_shift_request(syn_run *r, size_t j, long long d);
/* the connections as a tester gives them (docs/DESIGN.md 5.4: a request
 * goes out on an idle connection or a new one): in request order, each
 * request sent takes the lowest-numbered connection whose last request was
 * answered at or before its send_t, else a new one; a connection whose last
 * request went unanswered is not used again (roworder.h) */
void syn_assign_conns(syn_run *r);
/* the rows in the files' order (RAWFORMAT.md): service rows by answer_t,
 * store rows (both stores) by end_t, those without one last */
void syn_sort_rows(syn_run *r);
/* request j never sent (RAWFORMAT.md): send_t, conn, answer_t and score -,
 * status 0, kind E; its service and store rows removed */
void syn_never_sent(syn_run *r, size_t j);
/* results/results.json made from results/verified.json's runs, arms,
 * verdicts, verdict_family, guesses, odds, twin, map and attempts (so that only other
 * checks can fail); syn_write_manifest lists results/raw/,
 * results/attempts/ and results/reference/ */
int syn_results_from_verified(const char *root);
/* The study around the runs (RESULTS.md, "The files around it").
 * syn_write_schedule writes results/schedule.tsv of the given profile from
 * the run folders <arm>-r<round>: R = the highest round, the arms in the
 * order of their first folder, S = the first run.json's seconds, every arm
 * in every round; a run of that grid without a folder gets a failed record
 * provenance/runs/<run>.json (exit_code 3, a reason, the machine of a
 * folder of its round or local, start_utc the latest
 * run.json's).  syn_write_arms writes lab/arms.tsv: one line per arm, its
 * first run.json's arm_spec (pause_ms "-" or "10,20").
 * syn_write_study_files writes each of the two that is absent, with
 * profile tiny (the rules a study must meet are the tests' own business),
 * and writes again a tiny schedule it wrote itself (the folders may have
 * changed; failed records it wrote for runs that now have a folder go) and
 * an arms file it wrote itself that lacks a folder's arm; syn_write_manifest
 * calls it first. */
int syn_write_schedule(const char *root, const char *profile);
int syn_write_arms(const char *root);
int syn_write_study_files(const char *root);
int syn_write_text(const char *path, const char *text);
int syn_mkdirs(const char *path);

#endif
