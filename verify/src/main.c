/* verify: the independent verifier and secret scanner (see verify/README.md).
 *
 *   verify --root DIR [--no-scan] [--scan-only] [--out FILE] [--jobs N]
 *          [--guesses FILE] [--comparisons FILE] [--quiet FILE] [--ap-arms FILE]
 *          [--arms FILE] [--design FILE] [--profiles FILE] [--max-print N]
 *   verify --scan PATH [--scan PATH ...] [--max-print N]
 *
 * The registered inputs (guesses, design, quiet rules, arms, comparisons, AP
 * arms, profiles) are read from the option when given, else from
 * DIR/provenance/registered/<path> when the study carries that copy, else
 * from DIR/<path> (pipeline/RESULTS.md, "The registered files travel with
 * the study"); prereg.h holds whichever is read to the registration.
 *
 * --scan scans only the files, folders and archives it names (scan.h) and
 * exits 0 clean, 1 findings, 2 a path missing or unreadable.
 *
 * --jobs N (vpar.h): the runs on N threads, the scan beside the other
 * checks (at the idle priority: on the core they leave free), their output
 * replayed in this file's order: the same whatever N.  Without --out on a
 * study that has results/verified.json, the result goes aside and the
 * committed file is compared with it.
 *
 * Exit 0 when every check passed, 1 on any mismatch or finding, 2 on
 * unusable input (a missing results.json, reference, manifest ..., or a bad
 * option).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apcheck.h"
#include "arms.h"
#include "attempts.h"
#include "compare.h"
#include "cost.h"
#include "design.h"
#include "extra.h"
#include "floodmap.h"
#include "machines.h"
#include "manifest.h"
#include "mism.h"
#include "outage.h"
#include "predict.h"
#include "prereg.h"
#include "provmd.h"
#include "records.h"
#include "runjson.h"
#include "scan.h"
#include "schedule.h"
#include "study.h"
#include "twin.h"
#include "vfiles.h"
#include "vjson.h"
#include "vopt.h"
#include "vpar.h"
#include "vutil.h"

/* the command line */
#define MAX_SCAN_PATHS 256

typedef struct {
    const char *root, *out, *guesses, *comps, *quiet, *aparms, *arms, *design, *profiles;
    int no_scan, scan_only;
    long max_print, jobs;
    const char *scan_v[MAX_SCAN_PATHS];
    vopt_list scans;   /* --scan PATH, repeatable */
} args;

/* the input and output files, from args (each malloc'd) */
typedef struct {
    char *results, *guesses, *comps, *quiet, *scores, *summary, *manifest, *out, *aparms, *arms, *design, *profiles;
} paths;

/* what the checks found: mismatches by check, files hashed, the scan */
typedef struct {
    long manifest, raw, prediction, results, ap, study;
    long nfiles;
    scan_stats scan;
} tally;

/* the study around the runs (prereg.h): the schedule, the arms file, the
 * records of provenance/runs and the first start */
typedef struct {
    sd_schedule sd;
    am_file arms;
    pv_records recs;
    pg_first first;
} around;

static const char *HEAD = "usage: verify --root DIR [--no-scan] [--scan-only] [--out FILE] [--jobs N]\n"
                          "              [--guesses FILE] [--comparisons FILE] [--quiet FILE] [--ap-arms FILE]\n"
                          "              [--arms FILE] [--design FILE] [--profiles FILE] [--max-print N]\n"
                          "       verify --scan PATH [--scan PATH ...] [--max-print N]\n";
static const char *FOOT = "exit: 0 all good, 1 mismatches or findings, 2 unusable input\n";

/* -1: go on; else the exit code */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->max_print = 20;
    a->jobs = 0;
    a->scans = (vopt_list){a->scan_v, 0, MAX_SCAN_PATHS};
    const vopt table[] = {
        {"--root", VOPT_STR, "DIR", "the study: DIR/results/ and DIR/provenance/ (default .)", &a->root, 0, 0},
        {"--no-scan", VOPT_FLAG, NULL, "skip the secret scan", &a->no_scan, 0, 0},
        {"--scan-only", VOPT_FLAG, NULL, "only the secret scan (writes nothing)", &a->scan_only, 0, 0},
        {"--out", VOPT_STR, "FILE",
         "where verified.json goes (default DIR/results/verified.json;\n"
         "when that file is already there: verify/build/verified.json, and\n"
         "the committed one is compared with the recomputation)",
         &a->out, 0, 0},
        {"--jobs", VOPT_LONG, "N",
         "threads: the runs checked in parallel, the scan beside\n"
         "the rest (default the online CPUs, at most 64;\n"
         "the output is the same whatever N)",
         &a->jobs, 1, VP_MAX_JOBS},
        {"--guesses", VOPT_STR, "FILE",
         "default DIR/data/guesses.tsv (each registered input: its copy\nDIR/provenance/registered/<path> when there)",
         &a->guesses, 0, 0},
        {"--comparisons", VOPT_STR, "FILE", "default DIR/pipeline/comparisons.tsv", &a->comps, 0, 0},
        {"--quiet", VOPT_STR, "FILE",
         "the limits of a quiet run (header rule, limit; every rule\nonce) (default DIR/data/quiet.tsv)",
         &a->quiet, 0, 0},
        {"--ap-arms", VOPT_STR, "FILE",
         "the arms results/ap.json chose (default DIR/pipeline/ap_arms.tsv;\n"
         "when absent, ap.json's own arms and skipped_arms)",
         &a->aparms, 0, 0},
        {"--arms", VOPT_STR, "FILE", "the registered arms, for run.json's arm_spec\n(default DIR/lab/arms.tsv)",
         &a->arms, 0, 0},
        {"--design", VOPT_STR, "FILE", "the preregistered design (default DIR/data/design.md)", &a->design, 0, 0},
        {"--profiles", VOPT_STR, "FILE", "the registered design of each profile (default DIR/data/profiles.tsv)",
         &a->profiles, 0, 0},
        {"--scan", VOPT_LIST, "PATH",
         "scan only this file, folder or archive, names included\n(repeatable; findings as PATH[:member...]:line: rule)",
         &a->scans, 0, 0},
        {"--max-print", VOPT_LONG, "N",
         "lines printed per kind of mismatch and per scanned file\n(default 20, 0 = all)", &a->max_print, 0,
         LONG_MAX},
    };
    int rc = vopt_parse(table, sizeof table / sizeof *table, argc, argv, "verify", HEAD, FOOT);
    if (rc == VOPT_HELP)
        return 0;
    if (rc != VOPT_RUN)
        return 2;
    if (a->no_scan && a->scan_only) {
        fprintf(stderr, "verify: --no-scan and --scan-only exclude each other\n");
        return 2;
    }
    if (a->scans.n > 0) {   /* --scan looks at its paths only: a study's option has no place */
        const char *study_opt = a->no_scan ? "--no-scan" : a->scan_only ? "--scan-only" : a->root ? "--root"
                                : a->out ? "--out" : a->guesses ? "--guesses" : a->comps ? "--comparisons"
                                : a->quiet ? "--quiet" : a->aparms ? "--ap-arms" : a->arms ? "--arms"
                                : a->design ? "--design" : a->profiles ? "--profiles" : NULL;
        if (study_opt) {
            fprintf(stderr, "verify: --scan scans only the paths it names; %s does not go with it\n", study_opt);
            return 2;
        }
    }
    if (!a->root)
        a->root = ".";
    return -1;
}

/* --scan-only: the exit code */
static int scan_only(const args *a)
{
    char err[2048];
    scan_stats st;
    if (scan_tree(a->root, stdout, a->max_print, &st, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        return 2;
    }
    printf("scanned %ld files (%ld gzip), %lld bytes\n", st.files, st.gz_files, st.bytes);
    printf("%ld FINDINGS\n", st.findings);
    return st.findings ? 1 : 0;
}

/* --scan PATH ...: the exit code */
static int scan_given(const args *a)
{
    char err[2048];
    scan_stats st;
    scan_opts o;
    scan_opts_default(&o, stdout, SCAN_LINES, a->max_print);
    if (scan_paths(a->scans.v, a->scans.n, &o, &st, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        return 2;
    }
    printf("scanned %ld files (%ld gzip streams, %ld archive members), %lld bytes\n", st.files, st.gz_files,
           st.members, st.bytes);
    printf("%ld FINDINGS\n", st.findings);
    return st.findings ? 1 : 0;
}

/* a registered input: the option, else the study's registered copy, else
 * the file at the root (malloc'd) */
static char *registered(const char *root, const char *given, const char *rel)
{
    if (given)
        return vu_xstrdup(given);
    char *copy = vu_xasprintf("%s/provenance/registered/%s", root, rel);
    if (vu_is_file(copy))
        return copy;
    free(copy);
    return vu_xasprintf("%s/%s", root, rel);
}

static void paths_make(const args *a, paths *p)
{
    const char *root = a->root;
    p->results = vu_xasprintf("%s/results/results.json", root);
    p->guesses = registered(root, a->guesses, "data/guesses.tsv");
    p->comps = registered(root, a->comps, "pipeline/comparisons.tsv");
    p->quiet = registered(root, a->quiet, "data/quiet.tsv");
    p->scores = vu_xasprintf("%s/results/reference/scores.tsv", root);
    p->summary = vu_xasprintf("%s/results/reference/summary.json", root);
    p->manifest = vu_xasprintf("%s/provenance/manifest-measure.tsv", root);
    p->out = a->out ? vu_xstrdup(a->out) : vu_xasprintf("%s/results/verified.json", root);
    p->aparms = registered(root, a->aparms, "pipeline/ap_arms.tsv");
    p->arms = registered(root, a->arms, "lab/arms.tsv");
    p->design = registered(root, a->design, "data/design.md");
    p->profiles = registered(root, a->profiles, "data/profiles.tsv");
}

static void paths_free(paths *p)
{
    free(p->results);
    free(p->guesses);
    free(p->comps);
    free(p->quiet);
    free(p->scores);
    free(p->summary);
    free(p->manifest);
    free(p->out);
    free(p->aparms);
    free(p->arms);
    free(p->design);
    free(p->profiles);
}

static int usable(const char *path, const char *what, const char *hint)
{
    if (vu_is_file(path))
        return 1;
    fprintf(stderr, "verify: %s not found: %s%s%s\n", what, path, hint ? "; " : "", hint ? hint : "");
    return 0;
}

/* every input there (the chosen-arms file well-formed, the arms file read
 * into *arms): 1, else 0 (said on stderr) */
static int inputs_usable(const args *a, const paths *p, am_file *arms)
{
    char err[2048];
    if (!usable(p->results, "results.json", "run `make collect` first") ||
        !usable(p->scores, "reference scores", "`make measure` copies them to results/reference/") ||
        !usable(p->summary, "reference summary", "`make measure` copies it to results/reference/") ||
        !usable(p->manifest, "the measure manifest", NULL) ||
        !usable(p->guesses, "the guesses file", "give it with --guesses FILE") ||
        !usable(p->comps, "the comparisons file", "give it with --comparisons FILE") ||
        !usable(p->quiet, "the quiet rules", "give them with --quiet FILE") ||
        !usable(p->arms, "the arms file", "give it with --arms FILE") ||
        (a->aparms && !usable(p->aparms, "the chosen arms of ap.json", "--ap-arms FILE")))
        return 0;
    if (ap_arms_file_check(p->aparms, err, sizeof err) || am_load(p->arms, arms, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        return 0;
    }
    return 1;
}

/* The figures RESULTS.md says must be 0: the service's reconnect pauses
 * outside the backoff's bounds (reconnect_wait_over), breaker changes the
 * state machine does not allow (brk_illegal), retries sent while the retry
 * budget was overspent (budget_over).  Counted here from the raw files: the
 * verifier's own report, whatever results.json says (a disagreement with
 * it is a mismatch).  One NOTE per run with any; checks.<figure> */
static const struct {
    int fig;
    const char *name, *what, *file, *rule;
} must_be_zero[] = {
    {F_RECONNECT_WAIT_OVER, "reconnect_wait_over", "reconnect pauses outside [0, min(1 s, 10 ms * 2^tries))",
     "events.tsv.gz", "rows of events.tsv.gz with what L or F and wait_ns < 0 or >= min(1e9, 1e7 * 2^tries)"},
    {F_DF0 + DF_BRK_ILLEGAL, "brk_illegal", "breaker changes its state machine does not allow", "events.tsv.gz",
     "breaker rows of events.tsv.gz the state machine does not allow (RESULTS.md, brk_illegal)"},
    {F_DF0 + DF_BUDGET_OVER, "budget_over", "retries sent while the retry budget was overspent", "service.tsv.gz",
     "retries passed at whose aK_start_t t 100 R > rb_pct Q + 100 rb_floor over (t - 1 s, t] (RESULTS.md, "
     "budget_over)"},
};
#define N_MUST_BE_ZERO (sizeof must_be_zero / sizeof *must_be_zero)

static long first_line_of(const rf_run *r, size_t k)
{
    return k == 0 ? r->wait_over_line : k == 1 ? r->brk_illegal_line : r->budget_over_line;
}

static void note_must_be_zero(const study *s)
{
    for (size_t i = 0; i < s->nruns; i++) {
        const rf_run *r = &s->runs[i];
        for (size_t k = 0; k < N_MUST_BE_ZERO; k++) {
            int f = must_be_zero[k].fig;
            if (r->ok && r->has[f] && r->fig[f] > 0)
                printf("NOTE %s %s %.0f: %s (the first at %s:%ld)\n", r->name, must_be_zero[k].name, r->fig[f],
                       must_be_zero[k].what, must_be_zero[k].file, first_line_of(r, k));
        }
    }
}

static vj_node *must_be_zero_json(const study *s, size_t k)
{
    vj_node *o = vj_new_obj(), *runs = vj_new_obj();
    long long total = 0;
    int f = must_be_zero[k].fig;
    for (size_t i = 0; i < s->nruns; i++) {
        const rf_run *r = &s->runs[i];
        if (!r->ok || !r->has[f] || r->fig[f] <= 0)
            continue;
        total += (long long)r->fig[f];
        vj_obj_set(runs, r->name, vj_new_int((long long)r->fig[f]));
    }
    vj_obj_set(o, "total", vj_new_int(total));
    vj_obj_set(o, "runs", runs);
    vj_obj_set(o, "rule", vj_new_str(must_be_zero[k].rule));
    return o;
}

/* what run_checks hands to verified.json (each owned by the caller) */
typedef struct {
    vj_node *ap, *ap_member, *extra, *pred, *study, *design;
} outputs;

/* The rules a study must meet, the run.json checks against the schedule
 * and the arms file, and cost.json (prereg.h, runjson.h, cost.h):
 * checks.study.  Enforced in every profile but tiny. */
static vj_node *study_checks(const study *s, const paths *p, around *ar, vj_node **design)
{
    long before = mm_count();
    int enforce = !sd_tiny(&ar->sd);
    pg_inputs in = {p->guesses, p->design, p->quiet, p->arms, p->comps, p->aparms, p->profiles};
    vj_node *o = vj_new_obj(), *sched, *prereg;
    vj_obj_set(o, "profile", ar->sd.ok ? vj_new_str(ar->sd.profile) : vj_new_null());
    vj_obj_set(o, "rules_enforced", vj_new_bool(enforce));
    char *arms_file = vf_shown(ar->arms.path);
    vj_obj_set(o, "arms_file", vj_new_str(arms_file));
    free(arms_file);
    vj_obj_set(o, "arms_file_sha256", vj_new_str(ar->arms.sha256));
    vj_obj_set(o, "run_json", rj_check(s, &ar->sd, &ar->arms, &ar->recs, enforce));
    vj_obj_set(o, "attempts", at_check(s, &ar->sd, &ar->arms, &ar->recs, enforce));
    pg_check(s, &ar->sd, &ar->arms, &ar->recs, &in, &ar->first, enforce, &sched, &prereg);
    vj_obj_set(o, "schedule", sched);
    vj_obj_set(o, "prereg", prereg);
    vj_obj_set(o, "cost", co_check(s->root, &ar->recs, enforce));
    /* a round on one machine, provenance/parallel.tsv (machines.h): every profile */
    vj_obj_set(o, "machines", mc_check(s, &ar->recs));
    vj_obj_set(o, "provenance_md", pm_check(s->root, &ar->recs, enforce));
    /* the schedule against the registered design (design.h): checks.design,
     * every profile whose registration lists data/profiles.tsv */
    *design = dg_check(s->root, &ar->sd, &ar->arms, p->profiles, enforce);
    vj_obj_set(o, "mismatches", vj_new_int(mm_count() - before));
    return o;
}

/* the manifest, the runs, the study around them, the prediction,
 * results.json, ap.json, the extra numbers and the study-level checks, in
 * this order (mismatches print as they are found); 0, or 2 on unusable
 * input.  Fills s, *ar and *o. */
static int run_checks(const args *a, const paths *p, const vj_node *lab, study *s, tally *n, around *ar, outputs *o)
{
    char err[2048];
    long mark = mm_count();
    if (mf_check(a->root, &n->nfiles, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        return 2;
    }
    n->manifest = mm_count() - mark;
    mark = mm_count();
    /* the registered arms, which a guess may name (predicate.h) */
    const char **arms = vu_xcalloc(ar->arms.n + 1, sizeof *arms);
    for (size_t i = 0; i < ar->arms.n; i++)
        arms[i] = ar->arms.v[i].name;
    int rc = study_compute(a->root, p->guesses, p->comps, p->quiet, arms, ar->arms.n, s, err, sizeof err);
    free(arms);
    if (rc) {
        fprintf(stderr, "verify: %s\n", err);
        return 2;
    }
    n->raw = mm_count() - mark;
    /* results/schedule.tsv, provenance/runs, the first start (sched.h, records.h, prereg.h) */
    mark = mm_count();
    sd_load(a->root, &ar->sd);
    pv_load(a->root, &ar->recs);
    pg_first_start(s, &ar->recs, &ar->first);
    n->study = mm_count() - mark;
    /* results/prediction.json: its registration, each run's predicted, the odds (predict.h) */
    mark = mm_count();
    o->pred = pd_check(s, &ar->first, &ar->sd, &ar->arms);
    n->prediction = mm_count() - mark;
    mark = mm_count();
    cmp_results(lab, s);
    tw_compare(lab, s->mine); /* results.json's twin (twin.h) */
    fm_compare(lab, s->mine); /* results.json's map (floodmap.h) */
    n->results = mm_count() - mark;
    note_must_be_zero(s);
    /* results/ap.json: seed 1 recomputed, the rest checked for consistency (apcheck.h) */
    mark = mm_count();
    ap_run_state *rs = vu_xcalloc(s->nruns + 1, sizeof *rs); /* each run as judged here: flooded_runs */
    for (size_t i = 0; i < s->nruns; i++)
        rs[i] = (ap_run_state){s->runs[i].name, s->runs[i].arm, s->runs[i].round, s->runs[i].ok,
                               s->runs[i].flood.flooded, s->runs[i].quiet,
                               s->runs[i].has_fault ? ou_scen_name[s->runs[i].fault.scen] : NULL,
                               strcmp(s->runs[i].dir, RF_RAW) ? NULL : s->runs[i].kinds, s->runs[i].nkinds};
    o->ap = ap_check(a->root, &s->ref, p->aparms, rs, s->nruns, &o->ap_member);
    free(rs);
    n->ap = mm_count() - mark;
    /* the numbers the report needs beyond results.json's layout (extra.h),
     * gathered when the runs' files were read */
    o->extra = ex_compute(s, p->guesses);
    mark = mm_count();
    o->study = study_checks(s, p, ar, &o->design);
    n->study += mm_count() - mark;
    return 0;
}

/* the secret scan, on a thread of its own from the start (vpar.h): its
 * findings go to a stream of their own, written out where the scan stands
 * in the order of the output (after every check) */
typedef struct {
    const args *a;
    scan_stats st;
    int rc;
    char err[2048];
    char *text;
    size_t len;
} scan_job;

static void scan_task(void *ctx)
{
    scan_job *j = ctx;
    FILE *f = open_memstream(&j->text, &j->len);
    if (!f) {
        fprintf(stderr, "verify: out of memory\n");
        exit(2);
    }
    j->rc = scan_tree(j->a->root, f, j->a->max_print, &j->st, j->err, sizeof j->err);
    fclose(f);
}

/* the scan's task joined (NULL: none), its findings printed: checks.scan */
static vj_node *run_scan(const args *a, vp_task *t, scan_job *j, scan_stats *st)
{
    memset(st, 0, sizeof *st);
    vj_node *scan = vj_new_obj();
    if (a->no_scan) {
        vj_obj_set(scan, "ran", vj_new_bool(0));
        return scan;
    }
    vp_join(t);
    fwrite(j->text, 1, j->len, stdout);
    free(j->text);
    j->text = NULL;
    *st = j->st;
    if (j->rc)
        printf("NOTE scan: %s\n", j->err);
    vj_obj_set(scan, "ran", vj_new_bool(1));
    vj_obj_set(scan, "files", vj_new_int(st->files));
    vj_obj_set(scan, "gzip_files", vj_new_int(st->gz_files));
    vj_obj_set(scan, "bytes", vj_new_int(st->bytes));
    vj_obj_set(scan, "findings", vj_new_int(st->findings));
    return scan;
}

/* verified.json's "checks" (takes scan and o's ap, pred and study) */
static vj_node *checks_json(const study *s, const tally *n, vj_node *scan, outputs *o, size_t nfiles)
{
    vj_node *checks = vj_new_obj();
    time_t now = time(NULL);
    char utc[32];
    strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    vj_obj_set(checks, "utc", vj_new_str(utc));
    vj_obj_set(checks, "runs_found", vj_new_int((long long)s->nruns));
    vj_obj_set(checks, "runs_rejected", vj_new_int((long long)s->rejected));
    vj_obj_set(checks, "answers_checked", vj_new_int(s->answers_checked));
    vj_obj_set(checks, "manifest_files_hashed", vj_new_int(n->nfiles));
    vj_node *by = vj_new_obj();
    vj_obj_set(by, "manifest", vj_new_int(n->manifest));
    vj_obj_set(by, "raw_files_and_answers", vj_new_int(n->raw));
    vj_obj_set(by, "prediction", vj_new_int(n->prediction));
    vj_obj_set(by, "results_json", vj_new_int(n->results));
    vj_obj_set(by, "ap_json", vj_new_int(n->ap));
    vj_obj_set(by, "study", vj_new_int(n->study));
    vj_obj_set(checks, "mismatches_by_check", by);
    for (size_t k = 0; k < N_MUST_BE_ZERO; k++)
        vj_obj_set(checks, must_be_zero[k].name, must_be_zero_json(s, k));
    vj_node *tol = vj_new_obj();
    vj_obj_set(tol, "times", vj_new_str("|lab - verify| < 1 ns (1e-6 in *_ms, 1e-3 in *_us)"));
    vj_obj_set(tol, "ratios", vj_new_str("|lab - verify| <= 1e-12 * max(|lab|, |verify|)"));
    vj_obj_set(tol, "per_second_means", vj_new_str("|lab - verify| < 1e-9"));
    vj_obj_set(tol, "counts", vj_new_str("exact"));
    vj_obj_set(tol, "odds_intervals", vj_new_str("|lab - verify| <= 1e-11 (sim_wilson95, cp95)"));
    vj_obj_set(checks, "tolerances", tol);
    vj_obj_set(checks, "scan", scan);
    vj_obj_set(checks, "ap", o->ap);
    vj_obj_set(checks, "prediction", o->pred);
    vj_obj_set(checks, "study", o->study);
    vj_obj_set(checks, "design", o->design ? o->design : vj_new_null());
    vj_obj_set(checks, "files_listed", vj_new_int((long long)nfiles));
    o->ap = o->pred = o->study = o->design = NULL;
    return checks;
}

/* verified.json, atomically: 0, or 2 (said on stderr) */
static int write_verified(const char *path, const vj_node *v)
{
    char err[2048];
    vu_buf b = {0};
    vj_write(v, &b);
    int rc = vu_write_atomic(path, b.p, b.len, err, sizeof err);
    vu_buf_free(&b);
    if (rc) {
        fprintf(stderr, "verify: %s\n", err);
        return 2;
    }
    printf("wrote %s\n", path);
    return 0;
}

static void print_summary(const args *a, const study *s, const tally *n, long mismatches)
{
    printf("%ld runs (%zu rejected), %ld answers checked, %ld files against the manifest\n", (long)s->nruns,
           s->rejected, s->answers_checked, n->nfiles);
    if (!a->no_scan) {
        printf("scanned %ld files (%ld gzip), %lld bytes\n", n->scan.files, n->scan.gz_files, n->scan.bytes);
        printf("%ld FINDINGS\n", n->scan.findings);
    } else {
        printf("secret scan skipped (--no-scan)\n");
    }
    printf("%ld MISMATCHES\n", mismatches);
}

static void around_free(around *ar)
{
    sd_free(&ar->sd);
    am_free(&ar->arms);
    pv_free(&ar->recs);
}

/* Where verified.json goes when --out is not given and the study's own
 * results/verified.json is already there (the clone an auditor verifies is
 * left as it was): beside the verify binary (verify/build/verified.json),
 * else a new file under /tmp.  Malloc'd. */
static char *out_aside(void)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            char *p = vu_xasprintf("%s/verified.json", exe[0] ? exe : "/");
            if (!access(exe[0] ? exe : "/", W_OK))
                return p;
            free(p);
        }
    }
    char t[] = "/tmp/verified-XXXXXX.json";
    int fd = mkstemps(t, 5);
    if (fd >= 0)
        close(fd);
    return vu_xstrdup(t);
}

/* The members of verified.json that differ from run to run by nature and
 * are not compared with the committed file: checks.utc (when it ran), and
 * the scan's counts of what it read (checks.scan.files, gzip_files, bytes:
 * the report, written after the verifier from its verified.json, is among
 * what a later scan reads; its findings are compared). */
static int run_specific(const char *path)
{
    return !strcmp(path, "checks.utc") || !strcmp(path, "checks.scan.files") ||
           !strcmp(path, "checks.scan.gzip_files") || !strcmp(path, "checks.scan.bytes");
}

static void diff_verified(const vj_node *mine, const vj_node *theirs, const char *path);

/* the entry of files (an array of {path, size, sha256}) whose path is rel, or NULL */
static const vj_node *file_entry(const vj_node *files, const char *rel)
{
    for (size_t i = 0; i < files->n; i++) {
        const char *p = vj_get_str(files->items[i], "path");
        if (p && !strcmp(p, rel))
            return files->items[i];
    }
    return NULL;
}

/* files, compared by path (an entry more or less is one difference, not a
 * shift of every entry after it): files[<path>] */
static void diff_files(const vj_node *mine, const vj_node *theirs)
{
    for (int side = 0; side < 2; side++) {
        const vj_node *a = side ? theirs : mine, *b = side ? mine : theirs;
        for (size_t i = 0; i < a->n; i++) {
            const char *rel = vj_get_str(a->items[i], "path");
            const vj_node *other = rel ? file_entry(b, rel) : NULL;
            if (side && other)
                continue; /* compared from mine's side */
            char *sub = rel ? vu_xasprintf("files[%s]", rel) : vu_xasprintf("files[%zu]", i);
            if (side)
                diff_verified(NULL, a->items[i], sub);
            else
                diff_verified(a->items[i], other, sub);
            free(sub);
        }
    }
}

/* every difference between the recomputation (mine) and the committed
 * verified.json (theirs) under path: one mismatch each, grouped (at most
 * --max-print of them printed) */
static void diff_verified(const vj_node *mine, const vj_node *theirs, const char *path)
{
    if (run_specific(path))
        return;
    char lab[256], ver[256];
    if (!strcmp(path, "files") && mine && theirs && mine->type == VJ_ARR && theirs->type == VJ_ARR) {
        diff_files(mine, theirs);
        return;
    }
    if (mine && theirs && mine->type == theirs->type && (mine->type == VJ_OBJ || mine->type == VJ_ARR)) {
        if (mine->type == VJ_OBJ) {
            for (size_t i = 0; i < mine->n; i++) {
                char *sub = vu_xasprintf("%s%s%s", path, *path ? "." : "", mine->keys[i]);
                diff_verified(mine->items[i], vj_get(theirs, mine->keys[i]), sub);
                free(sub);
            }
            for (size_t i = 0; i < theirs->n; i++)
                if (!vj_get(mine, theirs->keys[i])) {
                    char *sub = vu_xasprintf("%s%s%s", path, *path ? "." : "", theirs->keys[i]);
                    diff_verified(NULL, theirs->items[i], sub);
                    free(sub);
                }
            return;
        }
        size_t n = mine->n > theirs->n ? mine->n : theirs->n;
        for (size_t i = 0; i < n; i++) {
            char *sub = vu_xasprintf("%s[%zu]", path, i);
            diff_verified(i < mine->n ? mine->items[i] : NULL, i < theirs->n ? theirs->items[i] : NULL, sub);
            free(sub);
        }
        return;
    }
    int same = mine && theirs && mine->type == theirs->type;
    if (same && (mine->type == VJ_NUM || mine->type == VJ_STR))
        same = !strcmp(mine->text, theirs->text);
    else if (same && mine->type == VJ_BOOL)
        same = !mine->b == !theirs->b;
    if (same)
        return;
    if (theirs)
        vj_scalar_text(theirs, lab, sizeof lab);
    else
        snprintf(lab, sizeof lab, "(absent)");
    if (mine)
        vj_scalar_text(mine, ver, sizeof ver);
    else
        snprintf(ver, sizeof ver, "(absent)");
    char *what = vu_xasprintf("%s (the committed verified.json against this recomputation)", path);
    mm_add("results/verified.json committed", "results/verified.json", what, lab, ver);
    free(what);
}

/* read the inputs, run every check, write verified.json: the exit code */
static int verify(const args *a)
{
    char err[2048], cerr[2048] = "";
    paths p;
    paths_make(a, &p);
    int rc = 2;
    vj_node *lab = NULL, *committed = NULL;
    study s;
    memset(&s, 0, sizeof s);
    around ar;
    memset(&ar, 0, sizeof ar);
    scan_job sj;
    memset(&sj, 0, sizeof sj);
    sj.a = a;
    vp_task *scan = NULL;
    /* no --out and a verified.json committed with the study: the result goes
     * aside and the committed one is compared with it */
    if (!a->out && vu_is_file(p.out)) {
        char *mine = out_aside();
        if (vj_parse_file(p.out, &committed, cerr, sizeof cerr))
            committed = vj_new_null();
        free(p.out);
        p.out = mine;
    }
    /* every file read from here on is listed in verified.json's files (vfiles.h) */
    vf_start(a->root, p.out);
    if (!inputs_usable(a, &p, &ar.arms))
        goto done;
    mm_init(stdout, a->max_print);
    if (!a->no_scan)
        /* vpar.h: beside the checks, results.json's parsing among them, on
         * the core they leave free */
        scan = vp_spawn_idle(scan_task, &sj);
    if (vj_parse_file(p.results, &lab, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        goto done;
    }
    tally n;
    memset(&n, 0, sizeof n);
    outputs o;
    memset(&o, 0, sizeof o);
    if (run_checks(a, &p, lab, &s, &n, &ar, &o))
        goto done;
    vj_node *scan_json = run_scan(a, scan, &sj, &n.scan);
    scan = NULL;
    if (!a->no_scan) {
        /* what the scan opened is listed even if it read it its own way */
        vf_add_tree("results");
        vf_add_tree("provenance");
    }
    mm_finish();
    long mism = mm_count();

    /* verified.json: the verifier's own numbers, always written */
    vj_node *v = s.mine;
    vj_obj_set(v, "format", vj_new_str("lab-verified 1"));
    vj_obj_set(v, "mismatches", vj_new_int(mism));
    vj_obj_set(v, "findings", a->no_scan ? vj_new_null() : vj_new_int(n.scan.findings));
    vj_obj_set(v, "ok", vj_new_bool(mism == 0 && !a->no_scan && n.scan.findings == 0));
    vj_obj_set(v, "checks", checks_json(&s, &n, scan_json, &o, vf_count()));
    vj_obj_set(v, "extra", o.extra);
    vj_obj_set(v, "ap", o.ap_member);
    vj_obj_set(v, "files", vf_json());
    if (write_verified(p.out, v))
        goto done;
    if (committed) {
        /* the committed verified.json against this recomputation */
        long before = mm_count();
        if (committed->type == VJ_NULL)
            mm_add(NULL, "results/verified.json", "(the committed file)", cerr, "a verified.json to compare with");
        else
            diff_verified(v, committed, "");
        mm_finish();
        long diffs = mm_count() - before;
        printf("results/verified.json (committed, left as it is) against this recomputation: %ld differences%s\n",
               diffs, diffs ? " (each a MISMATCH above)" : "");
        mism = mm_count();
    }
    print_summary(a, &s, &n, mism);
    rc = (mism > 0 || n.scan.findings > 0) ? 1 : 0;
done:
    if (scan) { /* unusable input: the scan's thread stops before what it reads is freed */
        vp_join(scan);
        free(sj.text);
    }
    vf_stop();
    around_free(&ar);
    study_free(&s);
    vj_free(lab);
    vj_free(committed);
    paths_free(&p);
    return rc;
}

int main(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    vp_set_jobs(a.jobs > 0 ? (int)a.jobs : 0);
    if (a.scans.n > 0)
        return scan_given(&a);
    return a.scan_only ? scan_only(&a) : verify(&a);
}
