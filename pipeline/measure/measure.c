/* measure: run the schedule, every arm x round, one `build/bin/run` each.
 *
 *   measure --profile NAME --root OUT [--prep build/prep] [--arms lab/arms.tsv]
 *           [--bin build/bin] [--cores 0] [--gate 1|0] [--data data] [--profiles DATA/profiles.tsv]
 *           [--rounds N] [--closed-s C] [--deviation TEXT]
 *           [--comparisons pipeline/comparisons.tsv] [--ap-arms pipeline/ap_arms.tsv]
 *           [--host user@host[,user@host...]] [--ssh-opts "-p 2222 -i KEY ..."]
 *           [--settle-s S]        tests only: passed to run (the store's run-on after the last answer)
 *           [--only RUN,RUN,...]  internal: the far side of --host measures only these runs
 *           [--machine LABEL]     internal: the far side's label, m1, m2 ... (local)
 *           [--far-lab DIR]       with --host: the hosts run their own build of the lab in DIR
 *
 * Before anything runs:
 * - The seven registered files (data/guesses.tsv, design.md and quiet.tsv from
 *   --data, --arms, --comparisons, --ap-arms, and the registered design
 *   --profiles, DATA/profiles.tsv) must still match their registration
 *   OUT/provenance/prereg.json (written by prepare;
 *   pipeline/measure/mprereg.h); otherwise exit 2, naming the file.
 * - The design: the lines of --profile NAME in --profiles
 *   (pipeline/measure/profiles.h: each group's arms, rounds and seconds).
 *   measure runs exactly it, but for the two departures it knows: --rounds
 *   N (every group N rounds; make measure ROUNDS=N) and --closed-s C (the
 *   closed-loop arm's group C seconds a run; for tests), each with the
 *   reason --deviation TEXT (make measure DEVIATION="..."; else "given on
 *   the command line (no reason stated)").  A departure is written into
 *   OUT/results/deviations.tsv (atomically, before the prediction and the
 *   first timed run); without one that file is removed.  While
 *   OUT/results/raw holds runs, a deviations.tsv other than this measure's
 *   (other departures, another reason, one present or absent otherwise) is
 *   refused (exit 2), as another schedule is.
 * - OUT/results is locked (flock on the folder): one measure per OUT.  The
 *   lock is inherited by the runs it starts, so a run left behind by a killed
 *   measure keeps it until it ends; a second measure waits up to 150 s.
 * - The schedule of the design (pipeline/measure/schedule.h) is written to
 *   OUT/results/schedule.tsv; a rerun must produce the same file.  When it
 *   would not (another profile, other arms, other rounds or seconds) and
 *   OUT/results/raw holds runs, or raw holds a folder that is no run of this
 *   schedule, exit 2: use another OUT.
 * - build/prep/scores.tsv and summary.json are copied (atomically) into
 *   OUT/results/reference/; if a copy there differs while raw holds runs,
 *   exit 2 (those runs were measured against other prepared files).
 * - The prediction (pipeline/measure/mprereg.h): BIN/play simulates the schedule
 *   into OUT/results/prediction.json, registered in prereg.json before any
 *   run starts (its time in the log); a rerun keeps it, and refuses (exit 2)
 *   when the file no longer matches its registration.
 * - Every scheduled run folder OUT/results/raw/<arm>-r<round>/ is checked: a
 *   complete run (exactly run.json and the five event files, six with a
 *   second store, pipeline/measure/schedule.h; each file's
 *   sha256 and size equal to run.json's `files`, `seconds` equal to the
 *   run's: its group's seconds in the design as run) is kept; any
 *   other folder is named on stderr, removed and measured again.  So a
 *   rerun after an interruption measures only the rest.
 *
 * Quiet runs: each run is judged as it ends by the rules of DATA/quiet.tsv
 * (--quiet; registered with the guesses; lab/watch/quiet.h): `run` writes the
 * judgement into run.json.  A disturbed run is measured again at once (after
 * the idle gate), up to 3 attempts in all; each earlier attempt's record is
 * kept as provenance/runs/<run>.attempt-N.json, and the final record lists
 * them.  Its raw files are kept too: before the run is measured again, its
 * folder results/raw/<run>/ is renamed, whole, to
 * results/attempts/<run>-a<N>/ (the same N as its record; mfiles.h), so
 * nothing measured is thrown away (docs/DESIGN.md 5.5).  A run disturbed in
 * every attempt is kept, marked (run.json), and named at the end (exit 3);
 * a rerun measures it again, its last folder moved to attempts/ first and
 * the new attempt numbered after every kept one.  Every folder already in
 * results/attempts/ must be a disturbed attempt of a planned run with its
 * record (check_attempts); any other is named and refused (exit 2), never
 * removed.
 *
 * Failed runs: a run in which a lab process died (run exit 4: a store or
 * the service gone before the stop, or one killed by a signal; run leaves
 * nothing) is recorded like a disturbed attempt, its record holding the exit
 * code and the reason (run's own last line, "reason"), and measured again,
 * within the same 3 attempts; when the last one fails too, measure stops
 * with exit 1, naming the run and the reason.
 *
 * Each run: the idle gate runs inside `run` (the tester waits up to 60 s for
 * 95% idle; measure gives its runs no gate note, lab/watch/gate.h, yet:
 * docs/DESIGN.md section 12 says why); git is
 * asked once for every run's build facts (lab/base/facts.h); the system log position is taken before and the lines written
 * during the run are kept (pipeline/measure/slog.h: journalctl, /var/log/syslog, the
 * kernel log, or none).  OUT/provenance/runs/<run>.json (atomic) holds: the
 * run's argv, exit code, UTC start and end, wall time, gate_passed, host
 * facts, idle/steal/users, CPU shares and peak memory (copied from
 * run.json), run's own output, "reason" (when run failed: its last line), and "syslog": {"source", "lines", ["note"]}
 * (lines redacted with pipeline/common/redact.c, as provenance is published and
 * scanned for secrets; collect redacts again); every string of the record
 * has its passwords masked (prov_mask_json, pipeline/common/prov.h).  A run that cannot pass the
 * idle gate (run exit 3) is recorded with "gate_passed": false and the
 * schedule goes on; a run that fails otherwise is recorded and measure stops
 * (exit 1).
 *
 * Progress on stderr, one line per run: "measure: run k of N  ARM round R
 * elapsed m:ss  left ~m:ss" (left: mean wall time of the runs measured in this
 * invocation times the runs still to measure; before the first one, each
 * run's seconds plus settle plus 1 s, the estimate the first line gives for
 * the whole schedule too).  On a terminal the line is
 * updated in place every second.
 *
 * At the end, whatever happened: OUT/provenance/stage-measure.json (prov.h;
 * argv with the host and ssh options replaced by placeholders, since the
 * secret scanner rejects non-loopback addresses).  Only when every scheduled
 * run is complete: OUT/provenance/manifest-measure.tsv (path size sha256,
 * one line per file under results/raw/, results/attempts/ and
 * results/reference/, paths
 * relative to OUT; but for make ap's two files there, which its own
 * manifest-ap.tsv lists).
 *
 * --host user@host: the same schedule on another machine over ssh
 * (pipeline/measure/remote.h; needs there only sshd, sh, tar, mktemp and the same
 * Debian libraries as here: libevent, libjansson, zlib, OpenSSL).  Options
 * from --ssh-opts, else $LAB_SSH_OPTS, go first on ssh's command line.
 * --host a,b,...: several hosts at once, split by whole rounds with GNU
 * parallel (pipeline/measure/multi.h; provenance/parallel.tsv).  Every run and
 * record names its machine: local here, m1, m2 ... the hosts in order.
 *
 * Exit: 0 every scheduled run complete; 1 a run failed, or --host copying
 * failed; 2 refused (options, preregistration, schedule, lock); 3 some runs
 * could not pass the idle gate, or were disturbed in every attempt (a rerun
 * measures only those); 128+N stopped
 * by signal N (SIGINT, SIGTERM, SIGHUP, SIGPIPE: the run in progress is
 * stopped, its temporary folder discarded, the complete runs kept).
 *
 * main reads as its phases: parse the options, check the registration and
 * the inputs, lock OUT, plan (schedule and references), begin the
 * provenance, resume (which runs are kept), measure (here or on the host),
 * finish (manifest, provenance, the last word).  Their state is mctx.h's;
 * each run (`run` started and watched, its record) is mrun.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "arms.h"
#include "exits.h"
#include "mctx.h"
#include "mfiles.h"
#include "mprereg.h"
#include "mrun.h"
#include "multi.h"
#include "opt.h"
#include "proc.h"
#include "facts.h"
#include "prov.h"
#include "remote.h"
#include "schedule.h"
#include "slog.h"
#include "util.h"

#define LOCK_WAIT_S 150
#define MAX_ATTEMPTS 3 /* measurements of one run in one invocation, when disturbed */


/* ------------------------------------------------------------------ options */

/* -1: go on; else the exit code (0 after --help, 2 on a bad option). */
static int parse_options(int argc, char **argv, mctx *c)
{
    c->prep = "build/prep";
    c->arms_path = "lab/arms.tsv";
    c->bin = "build/bin";
    c->cores = "0";
    c->data = "data";
    c->gate = 1;
    c->comparisons = "pipeline/comparisons.tsv";
    c->ap_arms = "pipeline/ap_arms.tsv";
    c->machine = "local";
    const opt_spec spec[] = {
        {"--profile", OPT_STR, &c->profile, 0, 0, "NAME", "the profile of --profiles to measure (full, quick, ...)"},
        {"--root", OPT_STR, &c->root, 0, 0, "OUT", PATH_RESULTS_DIR "/ and " PATH_PROV_DIR "/ go under OUT"},
        {"--prep", OPT_STR, &c->prep, 0, 0, "DIR", "the prepared files (build/prep)"},
        {"--arms", OPT_STR, &c->arms_path, 0, 0, "FILE", "the arms (lab/arms.tsv)"},
        {"--bin", OPT_STR, &c->bin, 0, 0, "DIR", "run, store, service, tester (build/bin)"},
        {"--cores", OPT_STR, &c->cores, 0, 0, "LIST", "CPUs each run is pinned to (0)"},
        {"--gate", OPT_BOOL, &c->gate, 0, 1, "0|1", "each run waits for an idle machine (1)"},
        {"--data", OPT_STR, &c->data, 0, 0, "DIR", "the registered guesses and design (data)"},
        {"--profiles", OPT_STR, &c->profiles, 0, 0, "FILE", "the registered design (DATA/profiles.tsv)"},
        {"--host", OPT_STR, &c->host, 0, 0, "USER@HOST,...", "measure there over ssh (several: by rounds)"},
        {"--ssh-opts", OPT_STR, &c->ssh_opts, 0, 0, "\"...\"", "ssh options (else $LAB_SSH_OPTS)"},
        {"--only", OPT_STR, &c->only, 0, 0, "RUN,...", "internal: the far side of --host"},
        {"--machine", OPT_STR, &c->machine, 0, 0, "LABEL", "internal: the far side's label (local)"},
        {"--far-lab", OPT_STR, &c->far_lab, 0, 0, "DIR", "--host: the lab built and prepared there, in DIR"},
        {"--settle-s", OPT_STR, &c->settle, 0, 0, "S", "tests only: passed to run"},
        {"--closed-s", OPT_DBL, &c->closed_s, 0.001, 3600, "C", "a deviation: the closed-loop arm's runs C s"},
        {"--quiet", OPT_STR, &c->quiet, 0, 0, "FILE", "the rules of a quiet run (DATA/quiet.tsv)"},
        {"--rounds", OPT_INT, &c->rounds, 1, PROF_MAX_ROUNDS, "N", "a deviation: every group N rounds"},
        {"--deviation", OPT_STR, &c->deviation, 0, 0, "TEXT", "the reason of --rounds and --closed-s"},
        {"--comparisons", OPT_STR, &c->comparisons, 0, 0, "FILE", "the verdicts the prediction sizes"},
        {"--ap-arms", OPT_STR, &c->ap_arms, 0, 0, "FILE", "the arms of the AP cost (registered only)"},
        {0}};
    int rc = opt_parse(argc, argv, spec, "measure: every arm x round of a profile (see pipeline/measure/measure.c)", NULL);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? EXIT_OK : EXIT_USAGE;
    char why[4096], err[UT_ERRLEN];
    cpu_set_t cpus;
    if (c->settle && opt_f64(c->settle, 0, 600, &c->settle_s, why, sizeof why) != 0) {
        ut_err("option --settle-s: \"%s\": %s", c->settle, why);
        return EXIT_USAGE;
    }
    if (proc_cpus_parse(c->cores, &cpus, err, sizeof err) != 0) {
        ut_err("option --cores: \"%s\": %s (a CPU list such as 0 or 0-1)", c->cores, err);
        return EXIT_USAGE;
    }
    if (c->host && !c->host[0])
        c->host = NULL;
    if (!c->quiet)
        c->quiet = c->quiet_def = mf_str("%s/quiet.tsv", c->data);
    if (!c->profiles)
        c->profiles = c->profiles_def = mf_str("%s/profiles.tsv", c->data);
    if (!c->profile || !c->profile[0] || !c->root) {
        ut_err("needs --profile NAME (a profile of %s) and --root OUT (try --help)", c->profiles);
        return EXIT_USAGE;
    }
    if (c->deviation && !c->rounds && !(c->closed_s > 0)) {
        ut_err("--deviation gives the reason of --rounds or --closed-s: neither is given");
        return EXIT_USAGE;
    }
    if (c->host && !multi_hosts_ok(c->host, why, sizeof why)) {
        ut_err("--host %s: %s", c->host, why);
        return EXIT_USAGE;
    }
    if (c->host && c->only) {
        ut_err("--only is for the far side of --host; not both");
        return EXIT_USAGE;
    }
    if (!c->ssh_opts)
        c->ssh_opts = getenv("LAB_SSH_OPTS");
    c->results = mf_str("%s/" PATH_RESULTS_DIR, c->root);
    c->raw = mf_str("%s/" PATH_RAW_DIR, c->root);
    c->attempts = mf_str("%s/" PATH_ATTEMPTS_DIR, c->root);
    c->provdir = mf_str("%s/" PATH_PROV_DIR, c->root);
    c->runsdir = mf_str("%s/" PATH_RUNS_DIR, c->root);
    c->sched_path = mf_str("%s/" PATH_SCHEDULE, c->root);
    c->dev_path = mf_str("%s/" PATH_DEVIATIONS, c->root);
    c->manifest = mf_str("%s/manifest-measure.tsv", c->provdir);
    mreg_paths(c->data, c->arms_path, c->comparisons, c->ap_arms, c->profiles, c->reg);
    return -1;
}

/* ------------------------------------------------------------------ refusals */

/* Each of names under dir passes access(mode), else "run make <what> first". */
static int all_there(const char *dir, const char *const *names, int n, int mode, const char *what)
{
    for (int i = 0; i < n; i++) {
        char *p = mf_str("%s/%s", dir, names[i]);
        int ok = access(p, mode) == 0;
        if (!ok)
            ut_err("%s: missing: run make %s first", p, what);
        free(p);
        if (!ok)
            return -1;
    }
    return 0;
}

/* The registration, the arms, the design as run and its schedule, the inputs, --only: 0 or exit 2. */
static int check_registration(mctx *c)
{
    char err[UT_ERRLEN] = "";
    if (mreg_check_files(c->provdir, c->reg, err, sizeof err) != 0 ||
        arms_load(c->arms_path, &c->arms, err, sizeof err) != 0 ||
        prof_load(&c->design, c->profiles, c->profile, &c->arms, c->arms_path, err, sizeof err) != 0 ||
        (c->rounds && prof_set_rounds(&c->design, c->rounds, c->deviation, err, sizeof err) != 0) ||
        (c->closed_s > 0 && prof_set_closed_seconds(&c->design, c->closed_s, c->deviation, err, sizeof err) != 0) ||
        sched_build(&c->sc, &c->design, err, sizeof err) != 0) {
        ut_err("%s", err);
        return EXIT_USAGE;
    }
    if (all_there(c->prep, MF_PREP_FILES, MF_NPREP, R_OK, "prepare") != 0 ||
        all_there(c->bin, MF_PROGS, MF_NPROG, X_OK, "build") != 0)
        return EXIT_USAGE;
    if (c->only && sched_select(&c->sc, c->only, err, sizeof err) != 0) {
        ut_err("%s", err);
        return EXIT_USAGE;
    }
    return 0;
}

/* One measure per OUT.  The fd is inherited by the runs (no O_CLOEXEC). */
static int lock_out(mctx *c)
{
    char err[UT_ERRLEN] = "";
    if (ut_mkdir_p(c->raw, err, sizeof err) != 0 || ut_mkdir_p(c->runsdir, err, sizeof err) != 0) {
        ut_err("%s", err);
        return EXIT_USAGE;
    }
    c->lockfd = open(c->results, O_RDONLY | O_DIRECTORY);
    if (c->lockfd < 0) {
        ut_err("%s: %s", c->results, strerror(errno));
        return EXIT_USAGE;
    }
    if (flock(c->lockfd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    mrun_say(c, "%s is in use by another measure (or a run a killed measure left behind); waiting up to %d s",
             c->results, LOCK_WAIT_S);
    int64_t until = ut_mono_ns() + (int64_t)LOCK_WAIT_S * 1000000000LL;
    while (ut_mono_ns() < until) {
        struct timespec ts = {0, 500000000};
        nanosleep(&ts, NULL);
        if (flock(c->lockfd, LOCK_EX | LOCK_NB) == 0)
            return 0;
    }
    ut_err("%s: still in use after %d s; stop the other measure first", c->results, LOCK_WAIT_S);
    return EXIT_USAGE;
}

/* ------------------------------------------------------------------ the plan */

/* The reference files: the same as the runs already there were measured against. */
static int copy_references(const mctx *c)
{
    char err[UT_ERRLEN] = "", *refdir = mf_str("%s/reference", c->results);
    int rc = 0;
    if (ut_mkdir_p(refdir, err, sizeof err) != 0) {
        ut_err("%s", err);
        rc = EXIT_FAIL;
    }
    for (int i = 0; !rc && i < MF_NREF; i++) {
        char *src = mf_str("%s/%s", c->prep, MF_REF_FILES[i]), *dst = mf_str("%s/%s", refdir, MF_REF_FILES[i]);
        char *a = NULL, *b = NULL, e2[UT_ERRLEN];
        size_t an = 0, bn = 0;
        if (ut_read_file(src, &a, &an, err, sizeof err) != 0) {
            ut_err("%s", err);
            rc = EXIT_USAGE;
        } else {
            int have = ut_read_file(dst, &b, &bn, e2, sizeof e2) == 0;
            int same = have && an == bn && !memcmp(a, b, an);
            if (have && !same && c->present) {
                ut_err("%s differs from %s: the runs in %s were measured against other prepared files; "
                       "use another OUT, or move %s away",
                       dst, src, c->raw, c->results);
                rc = EXIT_USAGE;
            } else if (!same && ut_write_file(dst, a, an, err, sizeof err) != 0) {
                ut_err("%s", err);
                rc = EXIT_FAIL;
            }
        }
        free(a);
        free(b);
        free(src);
        free(dst);
    }
    free(refdir);
    return rc;
}

/* Every folder of OUT/results/attempts is a disturbed attempt of a planned
 * run (pipeline/RESULTS.md, "results/attempts/<run>-a<N>/"): named
 * <run>-a<N> for a run of the schedule, complete as a run folder of that
 * run (the same files, sha256s and seconds, schedule.h's
 * sched_check_run), judged disturbed by its run.json, and with its record:
 * <run>.attempt-N.json, or, when measure was stopped between moving the
 * folder and keeping the record, <run>.json still there with N the number
 * it will take.  Anything else is named and refused (exit 2), never
 * removed: it is measured data (docs/DESIGN.md 5.5).  *n: the folders. */
static int check_attempts(const mctx *c, size_t *n)
{
    mf_list got = {0};
    mf_list_dir(c->attempts, &got);
    *n = got.n;
    int rc = 0;
    for (size_t i = 0; i < got.n; i++) { /* every one named */
        char run[64], why[512] = "";
        int k = 0;
        const sched_run *s = NULL;
        if (mf_attempt_parse(got.v[i], run, sizeof run, &k) == 0)
            for (int j = 0; j < c->sc.n && !s; j++)
                if (!strcmp(c->sc.s[j].name, run))
                    s = &c->sc.s[j];
        if (!s) {
            snprintf(why, sizeof why, "not <run>-a<N> for a run of profile %s's schedule", c->design.profile);
        } else {
            sched_run as = *s;
            snprintf(as.name, sizeof as.name, "%s", got.v[i]);
            char w2[300] = "";
            int st = sched_check_run(c->attempts, &as, w2, sizeof w2);
            char *rec = mf_str("%s/%s.attempt-%d.json", c->runsdir, run, k);
            char *cur = mf_str("%s/%s.json", c->runsdir, run);
            int has_rec = access(rec, F_OK) == 0 ||
                          (k == mf_attempt_next(c->runsdir, run) && access(cur, F_OK) == 0);
            if (st != 1)
                snprintf(why, sizeof why, "not a complete attempt of %s (%s)", run, st ? w2 : "no run.json");
            else if (!has_rec)
                snprintf(why, sizeof why, "attempt %d of %s has no record %s", k, run, rec);
            else {
                mctx q = *c; /* mrun_quiet reads <raw>/<name>/run.json */
                q.raw = c->attempts;
                char w3[1024];
                if (mrun_quiet(&q, &as, w3, sizeof w3) != 0)
                    snprintf(why, sizeof why, "its run.json does not judge it disturbed: only disturbed attempts "
                             "are kept there");
            }
            free(rec);
            free(cur);
        }
        if (why[0]) {
            ut_err("%s/%s: %s; refused, nothing removed (it may hold measured data): use another OUT, or move it "
                   "away",
                   c->attempts, got.v[i], why);
            rc = EXIT_USAGE;
        }
    }
    mf_list_free(&got);
    return rc;
}

/* Unfinished runs' leftovers go, the deviations and the schedule agree with
 * OUT, the references too: 0 or an exit code. */
static int plan_schedule(mctx *c)
{
    char err[UT_ERRLEN] = "";
    /* Temporary folders of unfinished runs (and of a --host copy) never hold a complete run. */
    sched_clean_tmp(c->raw);
    int rc = sched_agree_deviations(&c->sc, c->dev_path, c->raw, c->results, err, sizeof err);
    if (rc == 0)
        rc = sched_agree(&c->sc, c->sched_path, c->raw, c->results, &c->present, err, sizeof err);
    if (rc != 0) {
        ut_err("%s", err);
        return rc;
    }
    size_t kept_attempts = 0;
    if ((rc = check_attempts(c, &kept_attempts)) != 0)
        return rc;
    c->present += kept_attempts; /* measured against these references too */
    if ((rc = copy_references(c)) != 0 || c->only) /* the far side of --host: predicted here */
        return rc;
    const mreg_cfg m = {.root = c->root, .provdir = c->provdir, .bin = c->bin, .prep = c->prep,
                        .arms_path = c->arms_path, .comparisons = c->comparisons, .data = c->data,
                        .profiles = c->profiles, .arms = &c->arms, .sc = &c->sc,
                        .present = c->present};
    if ((rc = mreg_prediction(&m, c->pred_said, sizeof c->pred_said, err, sizeof err)) != 0)
        ut_err("%s", err);
    else
        mrun_say(c, "%s", c->pred_said);
    return rc;
}

/* stage-measure.json begins: argv without hosts, ssh options and the hosts' lab folder, every input hashed. */
static int begin_provenance(mctx *c, int argc, char **argv)
{
    char **pargv = calloc((size_t)argc + 1, sizeof *pargv);
    if (!pargv)
        exit(1);
    static const char *const hide[][2] = {{"--host", "(host)"}, {"--ssh-opts", "(ssh options)"}, {"--far-lab", "(far lab)"}};
    char eq[3][32];
    for (int i = 0; i < argc; i++) {
        pargv[i] = argv[i];
        for (int h = 0; h < 3; h++) {
            size_t n = strlen(hide[h][0]);
            snprintf(eq[h], sizeof eq[h], "%s=%s", hide[h][0], hide[h][1]);
            if (i > 0 && !strcmp(argv[i - 1], hide[h][0]))
                pargv[i] = (char *)hide[h][1];
            else if (!strncmp(argv[i], hide[h][0], n) && argv[i][n] == '=')
                pargv[i] = eq[h];
        }
    }
    c->pv = prov_begin("measure", argc, pargv);
    free(pargv);
    char err[UT_ERRLEN] = "";
    struct {
        const char *dir;
        const char *const *names;
        int n;
    } in[] = {{c->prep, MF_PREP_FILES, MF_NPREP}, {c->bin, MF_PROGS, MF_NPROG}};
    int bad = 0;
    for (int i = 0; i < PROV_NPREREG && !bad; i++)
        bad = prov_input(c->pv, c->reg[i], err, sizeof err);
    for (size_t k = 0; k < sizeof in / sizeof in[0]; k++)
        for (int i = 0; i < in[k].n && !bad; i++) {
            char *p = mf_str("%s/%s", in[k].dir, in[k].names[i]);
            bad = prov_input(c->pv, p, err, sizeof err);
            free(p);
        }
    if (!bad) {
        char *p = mf_str("%s/prereg.json", c->provdir), *play = mf_str("%s/predict", c->bin);
        bad = prov_input(c->pv, p, err, sizeof err) ||
              (access(play, X_OK) == 0 && prov_input(c->pv, play, err, sizeof err));
        free(p);
        free(play);
    }
    if (bad) {
        ut_err("%s", err);
        prov_end(c->pv, EXIT_USAGE, c->provdir, err, sizeof err);
        return EXIT_USAGE;
    }
    return 0;
}

/* Which runs are kept; the old manifest goes first: never a manifest vouching
 * for another set of runs (it is written anew at the end, only when every
 * scheduled run is complete). */
static int resume(mctx *c)
{
    char err[UT_ERRLEN] = "";
    if (unlink(c->manifest) != 0 && errno != ENOENT) {
        ut_err("%s: cannot remove: %s", c->manifest, strerror(errno));
        prov_end(c->pv, EXIT_FAIL, c->provdir, err, sizeof err);
        return EXIT_FAIL;
    }
    if (sched_resume(&c->sc, c->raw, &c->kept, &c->todo, err, sizeof err) != 0) {
        ut_err("%s", err);
        prov_end(c->pv, EXIT_FAIL, c->provdir, err, sizeof err);
        return EXIT_FAIL;
    }
    /* a kept run that was disturbed in every attempt of an earlier measure
     * is measured again now */
    for (int i = 0; i < c->sc.n; i++) {
        sched_run *s = &c->sc.s[i];
        char why[1024];
        if (s->selected && s->complete && !c->host && mrun_quiet(c, s, why, sizeof why) == 0) {
            mrun_say(c, "%s: kept from an earlier measure but disturbed (%s); measuring it again", s->name, why);
            s->complete = 0;
            c->kept--;
            c->todo++;
        }
    }
    c->logkind = slog_probe();
    char est[32], *groups = sched_groups_text(&c->sc);
    mrun_fmt_dur(mrun_prior_left(c, 0), est, sizeof est);
    mrun_say(c, "profile %s: %d runs in %d rounds (%s%s); %d complete already, kept; %d to measure%s%s "
           "(about %s, and the idle gate's waits); system log from %s",
        c->design.profile, c->sc.n, c->sc.rounds, groups, c->design.ndev ? "; departures in " PATH_DEVIATIONS : "",
        c->kept, c->todo, c->host ? " on " : "", c->host ? c->host : "", est,
        c->host ? "the far side" : slog_source(c->logkind));
    free(groups);
    return 0;
}

/* ------------------------------------------------------------------ measuring */

static void say_skip(mctx *c, const sched_run *s)
{
    if (c->tty) {
        fprintf(stderr, "\r\033[Kmeasure: run %d of %d  %s round %d  complete already: skip", s->k, c->sc.n,
                s->a->name, s->round);
        c->line_open = 1;
    } else {
        fprintf(stderr, "measure: run %d of %d  %s round %d  complete already: skip\n", s->k, c->sc.n, s->a->name,
                s->round);
    }
}

/* A run that ended disturbed (lab/watch/quiet.h: steal, the tester's lateness,
 * the other cores busy) is measured again, up to MAX_ATTEMPTS in all; after
 * that it is kept, marked (its run.json says so) and named at the end.
 * 1: measure it again now. */
static int again_if_disturbed(mctx *c, sched_run *s)
{
    char why[1024];
    int q = mrun_quiet(c, s, why, sizeof why);
    if (q != 0)
        return 0; /* quiet (or an older run without a judgement: collect judges it) */
    if (s->attempts < MAX_ATTEMPTS) {
        mrun_say(c, "%s disturbed (%s); measuring it again, attempt %d of %d", s->name, why, s->attempts + 1,
            MAX_ATTEMPTS);
        s->complete = 0;
        return 1;
    }
    mrun_say(c, "%s disturbed in all %d attempts (%s); kept, marked", s->name, s->attempts, why);
    s->disturbed = 1;
    c->disturbed++;
    return 0;
}

/* Every selected run not complete yet, here, in the schedule's order. */
static int measure_here(mctx *c)
{
    char err[UT_ERRLEN] = "";
    int rc = 0;
    for (int i = 0; i < c->sc.n && !proc_signal(); i++) {
        sched_run *s = &c->sc.s[i];
        if (!s->selected)
            continue;
        if (s->complete) {
            say_skip(c, s);
            continue;
        }
        int r = mrun_one(c, i, err, sizeof err);
        if (r == EXIT_OK) {
            char why[300] = "";
            if (sched_check_run(c->raw, s, why, sizeof why) == 1) {
                s->complete = 1;
            } else {
                mrun_say(c, "%s/%s: %s, though run said it was done", c->raw, s->name, why);
                c->failed_k = i;
                return EXIT_FAIL;
            }
            if (again_if_disturbed(c, s))
                i--; /* the same run once more, after the idle gate */
        } else if (r == EXIT_NOT_QUIET) {
            s->gated = 1;
            c->gated++;
        } else if (r == EXIT_LAB_DIED && !proc_signal() && s->attempts < MAX_ATTEMPTS) {
            mrun_say(c, "%s failed (%s); measuring it again, attempt %d of %d", s->name, c->fail_why, s->attempts + 1,
                MAX_ATTEMPTS);
            i--;
        } else {
            if (r == EXIT_LAB_DIED && !proc_signal())
                mrun_say(c, "%s failed in all %d attempts: %s", s->name, s->attempts, c->fail_why);
            c->failed_k = i;
            return proc_signal() ? 128 + proc_signal() : EXIT_FAIL;
        }
    }
    if (proc_signal() && rc == EXIT_OK)
        rc = 128 + proc_signal();
    return rc;
}

static int measure_there(mctx *c)
{
    char err[UT_ERRLEN] = "";
    const remote_cfg far = {.host = c->host, .ssh_opts = c->ssh_opts, .bin = c->bin, .prep = c->prep,
                            .prereg = (const char *const *)c->reg, .provdir = c->provdir,
                            .cores = c->cores, .settle = c->settle, .quiet = c->quiet, .gate = c->gate, .raw = c->raw, .attempts = c->attempts,
                            .runsdir = c->runsdir, .sched_path = c->sched_path, .far_lab = c->far_lab};
    int r = multi_count(c->host) > 1 ? multi_measure(&far, &c->sc, err, sizeof err)
                                     : remote_measure(&far, &c->sc, err, sizeof err);
    for (int i = 0; i < c->sc.n; i++)
        c->gated += c->sc.s[i].gated;
    return r;
}

/* ------------------------------------------------------------------ the end */

/* The manifest when every run is complete; every output named in the provenance.  The exit code. */
static int record_outputs(mctx *c, int rc)
{
    char err[UT_ERRLEN] = "";
    mf_list files = {0}, recs = {0};
    mf_list_files(c->root, PATH_RAW_DIR, &files);
    mf_list_files(c->root, PATH_ATTEMPTS_DIR, &files);
    mf_list_files(c->root, PATH_REFERENCE_DIR, &files);
    for (size_t i = 0; i < files.n;) /* make ap's files: its own manifest's (pipeline/APCOST.md 1.10) */
        if (!strcmp(files.v[i], PATH_AP_SCORES) || !strcmp(files.v[i], PATH_AP_PREV)) {
            free(files.v[i]);
            files.v[i] = files.v[--files.n];
        } else {
            i++;
        }
    mf_list_sort(&files);
    if (c->complete == c->sc.n && mf_write_manifest(c->manifest, c->root, &files, err, sizeof err) != 0) {
        mrun_say(c, "%s", err);
        rc = 1;
    }
    for (size_t i = 0; i < files.n; i++) {
        char *p = mf_str("%s/%s", c->root, files.v[i]);
        if (prov_output(c->pv, p, err, sizeof err) != 0)
            mrun_say(c, "%s", err);
        free(p);
    }
    prov_output(c->pv, c->sched_path, err, sizeof err);
    if (access(c->dev_path, F_OK) == 0)
        prov_output(c->pv, c->dev_path, err, sizeof err);
    char *pred = mf_str("%s/prediction.json", c->results), *par = mf_str("%s/parallel.tsv", c->provdir);
    if (access(pred, F_OK) == 0)
        prov_output(c->pv, pred, err, sizeof err);
    if (access(par, F_OK) == 0) /* several hosts' joblog (multi.h) */
        prov_output(c->pv, par, err, sizeof err);
    free(pred);
    free(par);
    mf_list_dir(c->runsdir, &recs);
    for (size_t i = 0; i < recs.n; i++) {
        char *p = mf_str("%s/%s", c->runsdir, recs.v[i]);
        prov_output(c->pv, p, err, sizeof err);
        free(p);
    }
    if (c->complete == c->sc.n)
        prov_output(c->pv, c->manifest, err, sizeof err);
    mf_list_free(&files);
    mf_list_free(&recs);
    return rc;
}

static json_t *stage_facts(const mctx *c)
{
    json_t *facts = json_object();
    json_object_set_new(facts, "profile", json_string(c->design.profile));
    json_object_set_new(facts, "rounds", json_integer(c->sc.rounds));
    char *groups = sched_groups_text(&c->sc);
    json_object_set_new(facts, "groups", json_string(groups));
    free(groups);
    json_object_set_new(facts, "deviations", json_integer(c->design.ndev));
    json_object_set_new(facts, "runs_scheduled", json_integer(c->sc.n));
    json_object_set_new(facts, "runs_complete", json_integer(c->complete));
    json_object_set_new(facts, "runs_kept", json_integer(c->kept));
    json_object_set_new(facts, "runs_measured_now",
                        json_integer(c->host ? c->complete - c->kept : c->measured_n));
    json_object_set_new(facts, "runs_gate_not_passed", json_integer(c->gated));
    json_object_set_new(facts, "runs_disturbed", json_integer(c->disturbed));
    int again = 0;
    for (int i = 0; i < c->sc.n; i++)
        again += c->sc.s[i].attempts > 1 ? c->sc.s[i].attempts - 1 : 0;
    json_object_set_new(facts, "runs_measured_again", json_integer(again));
    json_object_set_new(facts, "gate", json_integer(c->gate));
    json_object_set_new(facts, "prediction", json_string(c->pred_said));
    json_object_set_new(facts, "cores", json_string(c->cores));
    json_object_set_new(facts, "on_another_host", json_boolean(c->host != NULL));
    json_object_set_new(facts, "syslog_source",
                        json_string(c->host ? "see " PATH_RUNS_DIR : slog_source(c->logkind)));
    if (c->only)
        json_object_set_new(facts, "only", json_string(c->only));
    return facts;
}

/* Provenance always, the manifest only when every run is complete, and the last word.  The exit code. */
static int finish(mctx *c, int rc)
{
    char err[UT_ERRLEN] = "";
    c->complete = 0;
    for (int i = 0; i < c->sc.n; i++)
        c->complete += c->sc.s[i].complete;
    rc = record_outputs(c, rc);
    prov_facts(c->pv, stage_facts(c));
    char el[32];
    mrun_fmt_dur((double)(ut_mono_ns() - c->t0) / 1e9, el, sizeof el);
    if (rc == EXIT_OK && (c->gated || c->disturbed))
        rc = EXIT_NOT_QUIET;
    if (rc == EXIT_OK && c->complete < c->sc.n && !c->only)
        rc = EXIT_FAIL;
    if (prov_end(c->pv, rc, c->provdir, err, sizeof err) != 0) {
        mrun_say(c, "%s", err);
        if (rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    if (rc == EXIT_OK && c->only)
        mrun_say(c, "the %d runs asked for are complete (%s)", c->todo, el);
    else if (rc == EXIT_OK)
        mrun_say(c, "all %d runs complete (%d kept, %d measured now) in %s; manifest %s", c->sc.n, c->kept,
            c->complete - c->kept, el, c->manifest);
    else if (rc == EXIT_NOT_QUIET) {
        if (c->gated)
            mrun_say(c, "%d runs could not pass the idle gate; rerun make measure to measure them", c->gated);
        for (int i = 0; i < c->sc.n; i++)
            if (c->sc.s[i].disturbed)
                mrun_say(c, "%s: disturbed in every attempt (kept and marked: it counts in no verdict); rerun make "
                       "measure to measure it again",
                    c->sc.s[i].name);
    }
    else if (rc >= 128)
        mrun_say(c,
                 "stopped by signal %d after %s; the %d complete runs are kept; rerun make measure to measure the rest",
                 rc - 128, el, c->complete);
    else if (c->failed_k >= 0 && c->fail_why[0])
        mrun_say(c, "%s failed (%s); its record: %s/%s.json; %d runs complete are kept; rerun make measure to go on",
            c->sc.s[c->failed_k].name, c->fail_why, c->runsdir, c->sc.s[c->failed_k].name, c->complete);
    else if (c->failed_k >= 0)
        mrun_say(c, "%s failed; its record: %s/%s.json; %d runs complete are kept; rerun make measure to go on",
            c->sc.s[c->failed_k].name, c->runsdir, c->sc.s[c->failed_k].name, c->complete);
    else
        mrun_say(c, "failed with %d of %d runs complete; rerun make measure to go on", c->complete, c->sc.n);
    return rc;
}

static void free_ctx(mctx *c)
{
    free(c->results);
    free(c->raw);
    free(c->attempts);
    free(c->provdir);
    free(c->runsdir);
    free(c->sched_path);
    free(c->dev_path);
    free(c->profiles_def);
    free(c->manifest);
    free(c->quiet_def);
    mreg_paths_free(c->reg);
    sched_free(&c->sc);
    prof_free(&c->design);
    arms_free(&c->arms);
    if (c->lockfd >= 0)
        close(c->lockfd);
}

int main(int argc, char **argv)
{
    ut_set_prog("measure");
    mctx C = {.failed_k = -1, .lockfd = -1}, *c = &C;
    int rc = parse_options(argc, argv, c);
    if (rc >= 0)
        return rc;
    c->tty = isatty(2);
    c->t0 = ut_mono_ns();
    facts_build_pin(); /* git asked once here, not by each run (lab/base/facts.h) */
    /* Refusals first: nothing is touched before these pass. */
    if ((rc = check_registration(c)) != 0 || (rc = lock_out(c)) != 0)
        goto out;
    proc_catch_signals();
    if ((rc = plan_schedule(c)) != 0 || (rc = begin_provenance(c, argc, argv)) != 0 || (rc = resume(c)) != 0)
        goto out;
    rc = c->host ? measure_there(c) : measure_here(c);
    rc = finish(c, rc);
out:
    free_ctx(c);
    return rc;
}
