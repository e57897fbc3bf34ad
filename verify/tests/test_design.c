/* The registered design (pipeline/RESULTS.md, "data/profiles.tsv: the
 * registered design", "results/deviations.tsv", "results/schedule.tsv: the
 * planned runs" format 2, "The schedule is the design as run", "The
 * registered files travel with the study", "results/attempts/<run>-a<N>/",
 * "Each verdict's error rate", prediction.json format 2).
 *
 * The study, profile tiny (the design is held whatever the profile; the
 * other rules a study must meet are not enforced there, so the study needs
 * no records, cost or provenance.md): arms H3-fb25 and H3-t25, 2 rounds of
 * 1 s (syn_kind_run: 20 closed-loop requests 50 ms apart, two of them K).
 * data/profiles.tsv registers profile tiny as one group `all` of `*`, 2
 * rounds of 1 s, seeds 1-100 (and a profile `other` the study does not
 * run).  results/schedule.tsv is format 2:
 *   k 1 H3-fb25-r1, 2 H3-t25-r1, 3 H3-t25-r2, 4 H3-fb25-r2, each 1 s.
 * prereg.json lists the seven files, each copied under
 * provenance/registered/; the repository's own files (the root's) are
 * then changed, so that reading them instead of the copies would show.
 * prediction.json is format 2: runs H3-fb25-r1 .. with seconds 1, one
 * claim (H3-fb25 flooded, 10 of 100 seeds, 2 planned rounds, p_seen
 * 1 - 0.9^2 = 0.19) and one sizing entry (H3-t25 H3-fb25 p99_ms, q 0.96,
 * 2 rounds, power 0.9216, decides true).  The verdict of that comparison
 * has n 2, false_positive_rate 0.5, sizing_q 0.96, power 0.9216,
 * decidable true; verdict_family {1, clearly_different as computed,
 * expected_chance 0.5, with_rate 1, undecidable 0, unsized 0}.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tstudy.h"

static char *D_root;
static syn_ref D_ref;

static void d_setup(void)
{
    D_root = th_tmpdir();
    cr_assert(D_root);
    syn_make_ref(&D_ref, 40, 11);
}

static void d_teardown(void)
{
    syn_free_ref(&D_ref);
    th_rmrf(D_root);
    free(D_root);
}

static const char *COMPARISONS = "a\tb\tfigure\tnote\nH3-t25\tH3-fb25\tp99_ms\tthe same\n";
static const char *GUESSES = "id\tguess\tpredicate\nG1\tEvery run answers.\tevery H3-t25.n >= 20\n";
static const char *KINDS = "LLLLLKLLLLLLLLLLKLLL";
static const char *PROFILES = "# the tests' design\n"
                              "profile\tgroup\tarms\trounds\tseconds\todds_seeds\n"
                              "other\tall\t*\t5\t30\t1-1000\n"
                              "tiny\tall\t*\t2\t1\t1-100\n";
/* (line 1 without synth.h's mark: syn_write_manifest leaves it alone) */
static const char *SCHEDULE = "# lab-schedule 2: profile tiny, 2 rounds; the tests' design\n"
                              "k\tround\tposition\tarm\tseconds\n"
                              "1\t1\t1\tH3-fb25\t1\n"
                              "2\t1\t2\tH3-t25\t1\n"
                              "3\t2\t1\tH3-t25\t1\n"
                              "4\t2\t2\tH3-fb25\t1\n";
static const char *const SEVEN[] = {"data/guesses.tsv", "data/design.md", "data/quiet.tsv", "lab/arms.tsv",
                                    "pipeline/comparisons.tsv", "pipeline/ap_arms.tsv", "data/profiles.tsv"};

static char *dp(const char *rel)
{
    return vu_xasprintf("%s/%s", D_root, rel);
}

static void put(const char *rel, const char *text)
{
    char *p = dp(rel), *d = vu_xstrdup(p);
    *strrchr(d, '/') = 0;
    cr_assert_eq(syn_mkdirs(d), 0);
    cr_assert_eq(syn_write_text(p, text), 0);
    free(d);
    free(p);
}

static char *get(const char *rel)
{
    char *p = dp(rel);
    unsigned char *b;
    size_t len;
    char err[512];
    cr_assert_eq(vu_read_file(p, &b, &len, err, sizeof err), 0, "%s", err);
    free(p);
    return (char *)b;
}

static vj_node *read_json(const char *rel)
{
    char *p = dp(rel);
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(p, &v, err, sizeof err), 0, "%s", err);
    free(p);
    return v;
}

static void write_json(const char *rel, const vj_node *v)
{
    vu_buf b = {0};
    vj_write(v, &b);
    put(rel, b.p);
    vu_buf_free(&b);
}

/* a shell command (a malloc'd text, freed) */
static void sh(char *cmd)
{
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    free(cmd);
}

static void rm_run(const char *run)
{
    sh(vu_xasprintf("rm -rf '%s/results/raw/%s'", D_root, run));
}

/* results/raw/<run> becomes results/attempts/<run>-a<n> */
static void to_attempt(const char *run, int n)
{
    sh(vu_xasprintf("mkdir -p '%s/results/attempts' && mv '%s/results/raw/%s' '%s/results/attempts/%s-a%d'", D_root,
                    D_root, run, D_root, run, n));
}

/* a copy of results/raw/<run> as results/attempts/<name> */
static void copy_attempt(const char *run, const char *name)
{
    sh(vu_xasprintf("mkdir -p '%s/results/attempts' && cp -r '%s/results/raw/%s' '%s/results/attempts/%s'", D_root,
                    D_root, run, D_root, name));
}

/* one run, its folder in results/raw/; steal: every reading of the whole
 * machine 10% stolen (breaks steal_run_max and steal_second_max), the
 * claim in run.json saying so */
static void write_run(const char *arm, int round, int steal)
{
    syn_run r;
    long long t0 = 4000000000000LL + (long long)round * 200000000000LL + (arm[3] == 'f' ? 0 : 100000000000LL) +
                   (steal ? 50000000000LL : 0);
    syn_kind_run(&r, arm, round, KINDS, &D_ref, t0);
    char *start = vu_xasprintf("2026-12-02T10:%02d:%02dZ", round * 2 + (arm[3] == 'f' ? 0 : 1), steal ? 0 : 30);
    r.start_utc = start;
    if (steal) {
        for (size_t i = 0; i < r.nm; i++)
            if (r.m[i].scope == 'A') {
                r.m[i].idle = 175;
                r.m[i].steal = 20;
            }
        r.claim_rules = "steal_run_max,steal_second_max";
    }
    cr_assert_eq(syn_write_run(D_root, &r, 1), 0);
    syn_free_run(&r);
    free(start);
}

/* provenance/runs/<run>.json of run k of the schedule, its last attempt
 * `attempt`, from its run.json (RESULTS.md, "provenance/runs/<run>.json") */
static void write_record(const char *run, int k, int attempt)
{
    char *rel = vu_xasprintf("results/raw/%s/run.json", run);
    vj_node *rj = read_json(rel), *rec = vj_new_obj();
    vj_obj_set(rec, "run", vj_new_str(run));
    vj_obj_set(rec, "arm", vj_copy(vj_get(rj, "arm")));
    vj_obj_set(rec, "round", vj_copy(vj_get(rj, "round")));
    vj_obj_set(rec, "k", vj_new_int(k));
    vj_obj_set(rec, "profile", vj_new_str("tiny"));
    vj_obj_set(rec, "seconds", vj_copy(vj_get(rj, "seconds")));
    vj_obj_set(rec, "argv", vj_new_arr());
    vj_obj_set(rec, "start_utc", vj_copy(vj_get(rj, "start_utc")));
    vj_obj_set(rec, "end_utc", vj_copy(vj_get(rj, "start_utc")));
    vj_obj_set(rec, "wall_s", vj_new_num(1.5));
    vj_obj_set(rec, "machine", vj_new_str("local"));
    vj_obj_set(rec, "exit_code", vj_new_int(0));
    vj_obj_set(rec, "gate", vj_new_int(1));
    vj_obj_set(rec, "gate_passed", vj_new_bool(1));
    vj_obj_set(rec, "attempt", vj_new_int(attempt));
    vj_node *ea = vj_new_arr();
    for (int n = 1; n < attempt; n++) {
        char *name = vu_xasprintf("%s.attempt-%d.json", run, n);
        vj_arr_push(ea, vj_new_str(name));
        free(name);
    }
    vj_obj_set(rec, "earlier_attempts", ea);
    static const char *const copies[] = {"idle", "cpu", "peak_rss_kb", "cores", "tester_nice", "requests", "quiet"};
    for (size_t i = 0; i < sizeof copies / sizeof *copies; i++)
        if (vj_get(rj, copies[i]))
            vj_obj_set(rec, copies[i], vj_copy(vj_get(rj, copies[i])));
    char *rr = vu_xasprintf("provenance/runs/%s.json", run);
    write_json(rr, rec);
    free(rr);
    vj_free(rec);
    vj_free(rj);
    free(rel);
}

static vj_node *reg_entry(const char *rel)
{
    char *p = dp(rel);
    unsigned char *b;
    size_t len;
    char err[256], sha[65];
    cr_assert_eq(vu_read_file(p, &b, &len, err, sizeof err), 0, "%s", err);
    vu_sha256_hex(b, len, sha);
    free(b);
    free(p);
    vj_node *e = vj_new_obj();
    vj_obj_set(e, "path", vj_new_str(rel));
    vj_obj_set(e, "sha256", vj_new_str(sha));
    vj_obj_set(e, "size", vj_new_int((long long)len));
    return e;
}

/* prereg.json: the first n of the seven files, copied from the root under
 * provenance/registered/ first when copies, each registered as its copy
 * has it (as the root has it when there is no copy); the prediction */
static void write_prereg(int n, int copies)
{
    vj_node *o = vj_new_obj(), *f = vj_new_arr();
    vj_obj_set(o, "registered_utc", vj_new_str("2026-12-02T10:00:00Z"));
    for (int i = 0; i < n; i++) {
        if (copies) {
            char *d = dp("provenance/registered"), *rel = vu_xstrdup(SEVEN[i]);
            *strchr(rel, '/') = 0;
            char *cmd = vu_xasprintf("mkdir -p '%s/%s' && cp '%s/%s' '%s/%s'", d, rel, D_root, SEVEN[i], d, SEVEN[i]);
            cr_assert_eq(system(cmd), 0);
            free(cmd);
            free(rel);
            free(d);
        }
        char *copy = vu_xasprintf("provenance/registered/%s", SEVEN[i]), *cp = dp(copy);
        vj_node *e = reg_entry(vu_is_file(cp) ? copy : SEVEN[i]);
        vj_obj_set(e, "path", vj_new_str(SEVEN[i]));
        vj_arr_push(f, e);
        free(cp);
        free(copy);
    }
    vj_obj_set(o, "files", f);
    vj_node *e = reg_entry("results/prediction.json");
    vj_obj_set(e, "registered_utc", vj_new_str("2026-12-02T10:00:01Z"));
    vj_obj_set(o, "prediction", e);
    write_json("provenance/prereg.json", o);
    vj_free(o);
}

static const char *PREDICTION =
    "{\"format\": \"lab-prediction 2\", \"profile\": \"tiny\", \"rounds\": [1, 2],\n"
    " \"runs\": {\"H3-fb25-r1\": {\"seconds\": 1, \"p99_ms\": 2.5, \"standin_share\": 0.1, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null},\n"
    "          \"H3-t25-r2\": {\"seconds\": 1, \"p99_ms\": 2.5, \"standin_share\": 0.1, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null}},\n"
    " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H3-fb25\", \"event\": \"flooded\", \"seconds\": 1, \"seeds\": "
    "\"1-100\", \"sim_k\": 10, \"sim_n\": 100, \"planned_rounds\": 2, \"p_seen\": 0.19}],\n"
    " \"sizing\": [{\"a\": \"H3-t25\", \"b\": \"H3-fb25\", \"figure\": \"p99_ms\", \"seeds\": \"1-100\", "
    "\"seconds_a\": 1, \"seconds_b\": 1, \"q\": 0.96, \"rounds\": 2, \"power\": 0.9216, \"rounds_90\": 2, "
    "\"decides\": true}]}\n";

/* the prediction of the study that ran one round (deviations) */
static const char *PREDICTION_1 =
    "{\"format\": \"lab-prediction 2\", \"profile\": \"tiny\", \"rounds\": [1],\n"
    " \"runs\": {\"H3-fb25-r1\": {\"seconds\": 1, \"p99_ms\": 2.5, \"standin_share\": 0.1, \"lookups_per_request\": 1,"
    " \"flooded\": false, \"flood_from_s\": null}},\n"
    " \"odds\": [{\"claim\": \"flood\", \"arm\": \"H3-fb25\", \"event\": \"flooded\", \"seconds\": 1, \"seeds\": "
    "\"1-100\", \"sim_k\": 10, \"sim_n\": 100, \"planned_rounds\": 1, \"p_seen\": 0.1}],\n"
    " \"sizing\": [{\"a\": \"H3-t25\", \"b\": \"H3-fb25\", \"figure\": \"p99_ms\", \"seeds\": \"1-100\", "
    "\"seconds_a\": 1, \"seconds_b\": 1, \"q\": 0.96, \"rounds\": 1, \"power\": 0.96, \"rounds_90\": 2, "
    "\"decides\": true}]}\n";

/* the header's study: every rule met; registered 7 files with copies */
static void build(void)
{
    write_run("H3-fb25", 1, 0);
    write_run("H3-t25", 1, 0);
    write_run("H3-t25", 2, 0);
    write_run("H3-fb25", 2, 0);
    cr_assert_eq(syn_write_reference(D_root, &D_ref), 0);
    cr_assert_eq(syn_write_quiet(D_root, NULL), 0);
    ts_write_texts(D_root, COMPARISONS, GUESSES);
    put("data/design.md", "# The design\n\nTwo arms, two rounds.\n");
    put("pipeline/ap_arms.tsv", "arm\nH3-t25\n");
    put("data/profiles.tsv", PROFILES);
    put("results/schedule.tsv", SCHEDULE);
    cr_assert_eq(syn_write_arms(D_root), 0);
    put("results/prediction.json", PREDICTION);
    write_prereg(7, 1);
    /* the repository moved on: its files are not this study's any more */
    put("data/profiles.tsv", "profile\tgroup\tarms\trounds\tseconds\todds_seeds\ntiny\tall\t*\t9\t30\t1-100\n");
    put("data/quiet.tsv", "rule\tlimit\nsteal_run_max\t0\n");
    cr_assert_eq(syn_write_manifest(D_root), 0);
    ts_promote(D_root);
}

static int run_verify(char **out, vj_node **v)
{
    const char *a[] = {"--root", D_root, "--no-scan", "--max-print", "0", NULL};
    int rc = th_run(out, a);
    *v = ts_verified(D_root);
    return rc;
}

static long long design_mismatches(const vj_node *v)
{
    const vj_node *n = vj_get(vj_get(vj_get(v, "checks"), "design"), "mismatches");
    cr_assert(n && n->type == VJ_NUM, "checks.design.mismatches absent");
    return n->i;
}

/* exactly total mismatches (-1: any), design of them in checks.design, each line of want printed */
static void expect(long long total, long long design, const char *const *want)
{
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    long long mm = vj_get(v, "mismatches")->i;
    if (total >= 0)
        cr_expect_eq(mm, total, "mismatches %lld, expected %lld:\n%s", mm, total, out);
    cr_expect_eq(design_mismatches(v), design, "design mismatches %lld, expected %lld:\n%s", design_mismatches(v),
                 design, out);
    for (int i = 0; want && want[i]; i++)
        cr_expect(strstr(out, want[i]), "expected \"%s\" in:\n%s", want[i], out);
    vj_free(v);
    free(out);
}

/* the schedule's text with every line naming run removed (k renumbered) */
static void drop_from_schedule(const char *const *runs)
{
    char *s = get("results/schedule.tsv");
    vu_buf b = {0};
    long k = 0;
    int line = 0;
    for (char *p = s, *e; *p; p = e + 1) {
        e = strchr(p, '\n');
        *e = 0;
        line++;
        if (line <= 2) {
            vu_buf_printf(&b, "%s\n", p);
            continue;
        }
        char round[16], pos[16], arm[64], sec[32];
        cr_assert_eq(sscanf(p, "%*d\t%15[^\t]\t%15[^\t]\t%63[^\t]\t%31s", round, pos, arm, sec), 4);
        char run[96];
        snprintf(run, sizeof run, "%s-r%s", arm, round);
        int drop = 0;
        for (int i = 0; runs[i]; i++)
            drop |= !strcmp(runs[i], run);
        if (!drop)
            vu_buf_printf(&b, "%ld\t%s\t%s\t%s\t%s\n", ++k, round, pos, arm, sec);
    }
    put("results/schedule.tsv", b.p);
    vu_buf_free(&b);
    free(s);
}

Test(design, a_registered_study_is_held_and_passes, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect_eq(vj_get(v, "mismatches")->i, 0, "%s", out);
    const vj_node *d = vj_get(vj_get(v, "checks"), "design");
    cr_assert(d, "checks.design absent");
    cr_expect(vj_get(d, "registered")->b);
    cr_expect_str_eq(vj_get_str(d, "profile"), "tiny");
    cr_expect_eq(vj_get(d, "runs_planned")->i, 4);
    cr_expect_eq(vj_get(d, "deviations")->n, 0);
    /* the copies were read, not the root's changed files */
    const vj_node *pr = vj_get(vj_get(vj_get(v, "checks"), "study"), "prereg");
    cr_expect(vj_get(pr, "profiles_listed")->b);
    cr_expect_eq(vj_get(pr, "registered_copies")->i, 7);
    const vj_node *f = vj_get(pr, "files");
    cr_assert(f && f->n == 7);
    cr_expect_str_eq(vj_get_str(f->items[6], "given"), "provenance/registered/data/profiles.tsv");
    cr_expect(vj_get(f->items[2], "matches_registration")->b);
    /* the verdict's error rate, from the sizing */
    const vj_node *vd = vj_get(v, "verdicts")->items[0];
    cr_expect_eq(vj_get(vd, "n")->i, 2);
    cr_expect(fabs(vj_get(vd, "false_positive_rate")->num - 0.5) < 1e-15);
    cr_expect(fabs(vj_get(vd, "sizing_q")->num - 0.96) < 1e-15);
    cr_expect(fabs(vj_get(vd, "power")->num - 0.9216) < 1e-12);
    cr_expect(vj_get(vd, "decidable")->b);
    const vj_node *fam = vj_get(v, "verdict_family");
    cr_expect_eq(vj_get(fam, "verdicts")->i, 1);
    cr_expect_eq(vj_get(fam, "with_rate")->i, 1);
    cr_expect(fabs(vj_get(fam, "expected_chance")->num - 0.5) < 1e-15);
    cr_expect_eq(vj_get(fam, "undecidable")->i, 0);
    cr_expect_eq(vj_get(fam, "unsized")->i, 0);
    cr_expect_eq(vj_get(v, "attempts")->n, 0);
    vj_free(v);
    free(out);
}

/* forgery (a): round 2 dropped from the schedule, its run folders and
 * manifest lines removed, results.json made again: only the design can tell */
Test(design, forgery_a_round_dropped, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    static const char *const r2[] = {"H3-t25-r2", "H3-fb25-r2", NULL};
    drop_from_schedule(r2);
    put("results/schedule.tsv", "# lab-schedule 2: profile tiny, 1 rounds; forged\nk\tround\tposition\tarm\tseconds\n"
                                "1\t1\t1\tH3-fb25\t1\n2\t1\t2\tH3-t25\t1\n");
    rm_run("H3-t25-r2");
    rm_run("H3-fb25-r2");
    cr_assert_eq(syn_write_manifest(D_root), 0);
    ts_promote(D_root);
    static const char *const want[] = {
        "MISMATCH results/schedule.tsv planned run: lab (not planned) H3-fb25-r2, verify H3-fb25-r2, 1 s: the design "
        "as run plans it (group all, provenance/registered/data/profiles.tsv:4)",
        "MISMATCH results/schedule.tsv planned run: lab (not planned) H3-t25-r2", NULL};
    /* (the prediction's runs.H3-t25-r2, planned_rounds and rounds no longer fit either) */
    expect(-1, 2, want);
}

/* forgery (b): a run's seconds changed in the schedule and in run.json */
Test(design, forgery_b_seconds_changed, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    char *s = get("results/schedule.tsv"), *at = strstr(s, "3\t2\t1\tH3-t25\t1\n");
    cr_assert(at);
    at[strlen("3\t2\t1\tH3-t25\t")] = '2';
    put("results/schedule.tsv", s);
    free(s);
    vj_node *rj = read_json("results/raw/H3-t25-r2/run.json");
    vj_obj_set(rj, "seconds", vj_new_int(2));
    write_json("results/raw/H3-t25-r2/run.json", rj);
    vj_free(rj);
    cr_assert_eq(syn_write_manifest(D_root), 0);
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect(strstr(out, "MISMATCH results/schedule.tsv:5 seconds: lab 2 (H3-t25-r2), verify 1 (group all, "
                          "provenance/registered/data/profiles.tsv:4)"),
              "%s", out);
    cr_expect_eq(design_mismatches(v), 1, "%s", out);
    vj_free(v);
    free(out);
}

/* forgery (c): an arm added to the schedule, with its run folders (the
 * root's arms file gets it: syn_write_manifest; the registered copy, which
 * the verifier reads, does not, so run.json's arm is refused too) */
Test(design, forgery_c_arm_added, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    write_run("H3-x25", 1, 0);
    write_run("H3-x25", 2, 0);
    put("results/schedule.tsv", "# lab-schedule 2: profile tiny, 2 rounds; forged\nk\tround\tposition\tarm\tseconds\n"
                                "1\t1\t1\tH3-fb25\t1\n2\t1\t2\tH3-t25\t1\n3\t1\t3\tH3-x25\t1\n"
                                "4\t2\t1\tH3-t25\t1\n5\t2\t2\tH3-fb25\t1\n6\t2\t3\tH3-x25\t1\n");
    cr_assert_eq(syn_write_manifest(D_root), 0);
    ts_promote(D_root);
    static const char *const want[] = {
        "MISMATCH results/schedule.tsv:5 run: lab H3-x25-r1 (arm H3-x25), verify a run of the design as run: arm "
        "H3-x25 is in no group of profile tiny (provenance/registered/data/profiles.tsv): an arm added",
        "MISMATCH results/schedule.tsv:8 run: lab H3-x25-r2 (arm H3-x25)", NULL};
    expect(-1, 2, want);
}

/* a deviation: the rounds the study ran instead, with its reason; a line
 * whose registered value lies; faults of the file */
Test(design, deviations_applied_and_checked, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    static const char *const r2[] = {"H3-t25-r2", "H3-fb25-r2", NULL};
    drop_from_schedule(r2);
    put("results/schedule.tsv", "# lab-schedule 2: profile tiny, 1 rounds; deviated\nk\tround\tposition\tarm\tseconds\n"
                                "1\t1\t1\tH3-fb25\t1\n2\t1\t2\tH3-t25\t1\n");
    rm_run("H3-t25-r2");
    rm_run("H3-fb25-r2");
    put("results/deviations.tsv", "# make measure --rounds 1\ngroup\tfield\tregistered\tran\treason\n"
                                  "all\trounds\t2\t1\tthe machine was needed back\n");
    put("results/prediction.json", PREDICTION_1);
    write_prereg(7, 0);
    cr_assert_eq(syn_write_manifest(D_root), 0);
    ts_promote(D_root);
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect_eq(vj_get(v, "mismatches")->i, 0, "%s", out);
    const vj_node *d = vj_get(vj_get(v, "checks"), "design");
    cr_expect_eq(vj_get(d, "runs_planned")->i, 2);
    const vj_node *dv = vj_get(d, "deviations");
    cr_assert(dv && dv->n == 1, "%s", out);
    cr_expect_str_eq(vj_get_str(dv->items[0], "group"), "all");
    cr_expect_str_eq(vj_get_str(dv->items[0], "field"), "rounds");
    cr_expect_eq(vj_get(dv->items[0], "registered")->num, 2);
    cr_expect_eq(vj_get(dv->items[0], "ran")->num, 1);
    cr_expect_str_eq(vj_get_str(dv->items[0], "reason"), "the machine was needed back");
    /* the verdict has one round: no rate, no power */
    const vj_node *vd = vj_get(v, "verdicts")->items[0];
    cr_expect_eq(vj_get(vd, "n")->i, 1);
    cr_expect_eq(vj_get(vd, "false_positive_rate")->type, VJ_NULL);
    cr_expect_eq(vj_get(vd, "decidable")->type, VJ_NULL);
    cr_expect_eq(vj_get(vj_get(v, "verdict_family"), "unsized")->i, 1);
    vj_free(v);
    free(out);
    /* a deviation that lies about the registered value: not applied */
    put("results/deviations.tsv", "group\tfield\tregistered\tran\treason\nall\trounds\t3\t1\tshorter\n");
    static const char *const lie[] = {
        "MISMATCH results/deviations.tsv:2 registered: lab 3, verify 2 (group all's rounds, "
        "provenance/registered/data/profiles.tsv:4)",
        "MISMATCH results/schedule.tsv planned run: lab (not planned) H3-fb25-r2", NULL};
    expect(3, 3, lie);
    /* a group the profile lacks, a field of no kind, a reason missing, twice the same */
    put("results/deviations.tsv", "group\tfield\tregistered\tran\treason\nall\trounds\t2\t1\tok\n"
                                  "rest\tseconds\t1\t2\tno such group\nall\tspeed\t1\t2\tno such field\n"
                                  "all\tseconds\t1\t2\t\nall\trounds\t2\t1\tagain\n");
    static const char *const faults[] = {
        "MISMATCH results/deviations.tsv:3 group: lab rest, verify a group of profile tiny",
        "MISMATCH results/deviations.tsv:4 field: lab speed, verify rounds or seconds",
        "MISMATCH results/deviations.tsv:5 reason: lab (empty)",
        "MISMATCH results/deviations.tsv:6 group and field: lab all, verify a group and field once (line 2", NULL};
    expect(4, 4, faults);
}

/* a study registered before profiles.tsv: one NOTE, registered false;
 * an arm added cannot be told from a design then */
Test(design, six_files_cannot_be_held_to_a_design, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    sh(vu_xasprintf("rm -rf '%s/provenance/registered'", D_root));
    put("data/profiles.tsv", PROFILES);
    put("data/quiet.tsv", SYN_QUIET_TSV);
    write_run("H3-x25", 1, 0);
    write_run("H3-x25", 2, 0);
    put("results/schedule.tsv", "# lab-schedule 2: profile tiny, 2 rounds; unregistered\nk\tround\tposition\tarm\tseconds\n"
                                "1\t1\t1\tH3-fb25\t1\n2\t1\t2\tH3-t25\t1\n3\t1\t3\tH3-x25\t1\n"
                                "4\t2\t1\tH3-t25\t1\n5\t2\t2\tH3-fb25\t1\n6\t2\t3\tH3-x25\t1\n");
    cr_assert_eq(syn_write_manifest(D_root), 0);
    write_prereg(6, 0);
    ts_promote(D_root);
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect_eq(vj_get(v, "mismatches")->i, 0, "%s", out);
    cr_expect(strstr(out, "NOTE provenance/prereg.json does not list data/profiles.tsv"), "%s", out);
    const vj_node *d = vj_get(vj_get(v, "checks"), "design");
    cr_expect(!vj_get(d, "registered")->b);
    cr_expect_eq(vj_get(d, "runs_planned")->type, VJ_NULL);
    cr_expect_eq(vj_get(d, "mismatches")->i, 0);
    vj_free(v);
    free(out);
}

/* the registered copies: one that differs from its entry; an option's
 * file held to the registration all the same; a seventh without its copy */
Test(design, registered_copies_held, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    /* --quiet with the root's changed file: refused (a NOTE in tiny: the
     * registration is enforced in every other profile), and the copy still
     * checked */
    put("data/quiet-other.tsv", "# another\n" SYN_QUIET_TSV);
    char *q = dp("data/quiet-other.tsv");
    const char *a[] = {"--root", D_root, "--no-scan", "--quiet", q, NULL};
    char *out;
    th_run(&out, a);
    cr_expect(strstr(out, "NOTE provenance/prereg.json data/quiet.tsv sha256: "), "%s", out);
    free(out);
    free(q);
    /* a copy changed: its sha256 and size (NOTEs in tiny); the design's
     * own file is held in every profile */
    put("provenance/registered/data/profiles.tsv", "profile\tgroup\tarms\trounds\tseconds\todds_seeds\n"
                                                   "tiny\tall\t*\t2\t1\t1-100\n");
    static const char *const changed[] = {"MISMATCH provenance/prereg.json design: lab ",
                                          "NOTE provenance/prereg.json data/profiles.tsv sha256: ", NULL};
    expect(2, 2, changed);
    /* a copy missing: the root's file is read (and matches here) */
    put("provenance/registered/data/profiles.tsv", PROFILES);
    put("data/profiles.tsv", PROFILES);
    char *c = dp("provenance/registered/data/design.md");
    cr_assert_eq(unlink(c), 0);
    free(c);
    static const char *const missing[] = {"NOTE provenance/prereg.json provenance/registered/data/design.md: (absent)",
                                          NULL};
    expect(0, 0, missing);
}

/* the schedule's format 2 itself: the positions of a round, the order of
 * rounds, a run's seconds; run.json's seconds against its line */
Test(design, schedule_format_2, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    put("results/schedule.tsv", "# lab-schedule 2: profile tiny, 2 rounds; bad\nk\tround\tposition\tarm\tseconds\n"
                                "1\t1\t1\tH3-fb25\t1\n2\t2\t1\tH3-t25\t1\n3\t1\t3\tH3-t25\t1\n4\t2\t2\tH3-fb25\t0\n");
    static const char *const want[] = {
        "MISMATCH results/schedule.tsv:5 round: lab 1, verify 2 or more (rounds in ascending order",
        "MISMATCH results/schedule.tsv:6 seconds: lab 0, verify the run's length in seconds",
        "MISMATCH results/schedule.tsv:3 positions of round: lab positions up to 3 for 2 runs", NULL};
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    for (int i = 0; want[i]; i++)
        cr_expect(strstr(out, want[i]), "expected \"%s\" in:\n%s", want[i], out);
    vj_free(v);
    free(out);
    /* the header of format 1 under a line 1 of format 2 */
    put("results/schedule.tsv", "# lab-schedule 2: profile tiny, 2 rounds\nk\tround\tposition\tarm\n");
    static const char *const hdr[] = {"MISMATCH results/schedule.tsv:2 header: lab k\tround\tposition\tarm, verify k "
                                      "round position arm seconds (tab-separated, format 2)",
                                      NULL};
    run_verify(&out, &v);
    cr_expect(strstr(out, hdr[0]), "%s", out);
    vj_free(v);
    free(out);
}

/* profiles.tsv's faults, each naming file, line and field */
Test(design, profiles_faults, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    const char *bad = "profile\tgroup\tarms\trounds\tseconds\todds_seeds\n"
                      "tiny\tall\tH3-fb25,H3-t25\t2\t1\t1-100\n"
                      "tiny\tall\tH3-nope\t2\t1\t1-100\n"
                      "tiny\tmore\tH3-fb25\t0\tx\t5-1\n"
                      "tiny\ts1\t*\t2\t1\t1-100\n"
                      "tiny\ts2\t*\t2\t1\t1-99\n"
                      "tiny\tshort\t2\n";
    put("provenance/registered/data/profiles.tsv", bad);
    put("data/profiles.tsv", bad);
    write_prereg(7, 0);
    static const char *const want[] = {
        "MISMATCH provenance/registered/data/profiles.tsv:3 group: lab all, verify a group unique within profile tiny",
        "MISMATCH provenance/registered/data/profiles.tsv:3 arms: lab H3-nope, verify a name of ",
        "MISMATCH provenance/registered/data/profiles.tsv:4 arms: lab H3-fb25, verify each arm once in profile tiny "
        "(line 2 names it)",
        "MISMATCH provenance/registered/data/profiles.tsv:4 rounds: lab 0, verify an integer >= 1",
        "MISMATCH provenance/registered/data/profiles.tsv:4 seconds: lab x, verify a decimal number > 0",
        "MISMATCH provenance/registered/data/profiles.tsv:4 odds_seeds: lab 5-1, verify a-b with 1 <= a <= b",
        "MISMATCH provenance/registered/data/profiles.tsv:6 arms: lab *, verify at most one * line in profile tiny",
        "MISMATCH provenance/registered/data/profiles.tsv:6 odds_seeds: lab 1-99, verify 1-100, the same on every "
        "line of profile tiny",
        "MISMATCH provenance/registered/data/profiles.tsv:7 fields: lab 3 fields, verify 6", NULL};
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    for (int i = 0; want[i]; i++)
        cr_expect(strstr(out, want[i]), "expected \"%s\" in:\n%s", want[i], out);
    cr_expect(design_mismatches(v) >= 9, "%s", out);
    vj_free(v);
    free(out);
}

/* attempts: a disturbed attempt kept is fine and counts in nothing; one
 * judged quiet, one above its record's attempt, one of no planned run */
Test(design, attempts_checked, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    /* attempt 1 of H3-t25-r2 was disturbed: its folder moved to attempts/ */
    rm_run("H3-t25-r2");
    write_run("H3-t25", 2, 1);
    to_attempt("H3-t25-r2", 1);
    write_run("H3-t25", 2, 0);
    write_record("H3-t25-r2", 3, 2);
    cr_assert_eq(syn_write_manifest(D_root), 0);
    ts_promote(D_root);
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect_eq(vj_get(v, "mismatches")->i, 0, "%s", out);
    const vj_node *a = vj_get(vj_get(v, "attempts"), "H3-t25-r2-a1");
    cr_assert(a, "attempts.H3-t25-r2-a1 absent:\n%s", out);
    cr_expect_eq(vj_get(a, "attempt")->i, 1);
    cr_expect(!vj_get(a, "quiet")->b);
    cr_expect_eq(vj_get(a, "predicted")->type, VJ_OBJ);
    /* format 2 without noise: the attempt's predicted.twin is null, as its run's (RESULTS.md) */
    cr_expect_eq(vj_get(vj_get(a, "predicted"), "twin")->type, VJ_NULL);
    cr_expect_eq(vj_get(v, "twin")->type, VJ_NULL);
    /* counts in nothing: the arm's rounds are its two quiet runs */
    const vj_node *rr = vj_get(vj_get(vj_get(v, "arms"), "H3-t25"), "rounds_disturbed");
    cr_expect_eq(rr->n, 0);
    vj_free(v);
    free(out);
    /* results.json without the attempt: a mismatch like a run's */
    vj_node *res = read_json("results/results.json");
    vj_obj_set(res, "attempts", vj_new_obj());
    write_json("results/results.json", res);
    vj_free(res);
    static const char *const absent[] = {"MISMATCH attempts.H3-t25-r2-a1 (the whole entry): lab (absent from "
                                         "results.json), verify recomputed from results/attempts/",
                                         NULL};
    expect(1, 0, absent);
    ts_promote(D_root);
    /* the record says this was attempt 1: N is not below it */
    write_record("H3-t25-r2", 3, 1);
    static const char *const below[] = {"MISMATCH results/attempts/H3-t25-r2-a1 attempt: lab 1, verify above 1", NULL};
    expect(1, 0, below);
    write_record("H3-t25-r2", 3, 3);
    /* a quiet attempt (replaced without cause), and one of no planned run */
    copy_attempt("H3-t25-r1", "H3-t25-r1-a2");
    write_record("H3-t25-r1", 2, 3);
    copy_attempt("H3-t25-r1", "H3-t25-r3-a1");
    cr_assert_eq(syn_write_manifest(D_root), 0);
    ts_promote(D_root);
    static const char *const quiet[] = {
        "MISMATCH results/attempts/H3-t25-r1-a2 quiet: lab judged quiet by the quiet rules (breaks none), verify "
        "disturbed",
        "MISMATCH results/attempts/H3-t25-r3-a1 run: lab H3-t25-r3, verify a run results/schedule.tsv plans",
        "MISMATCH H3-t25-r3-a1 run.json arm and round: lab H3-t25-r1, verify H3-t25-r3", NULL};
    char *o2;
    vj_node *v2;
    run_verify(&o2, &v2);
    for (int i = 0; quiet[i]; i++)
        cr_expect(strstr(o2, quiet[i]), "expected \"%s\" in:\n%s", quiet[i], o2);
    vj_free(v2);
    free(o2);
    /* an attempt's run.json seconds other than its run's */
    vj_node *rj = read_json("results/attempts/H3-t25-r2-a1/run.json");
    vj_obj_set(rj, "seconds", vj_new_int(2));
    write_json("results/attempts/H3-t25-r2-a1/run.json", rj);
    vj_free(rj);
    cr_assert_eq(syn_write_manifest(D_root), 0);
    static const char *const sec[] = {"MISMATCH results/attempts/H3-t25-r2-a1 run.json seconds: lab 2, verify 1 (the "
                                      "run's, results/schedule.tsv:5)",
                                      NULL};
    expect(-1, 0, sec);
}

/* an attempt's file not in the manifest */
Test(design, attempt_files_in_the_manifest, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    rm_run("H3-t25-r2");
    write_run("H3-t25", 2, 1);
    to_attempt("H3-t25-r2", 1);
    write_run("H3-t25", 2, 0);
    write_record("H3-t25-r2", 3, 2);
    cr_assert_eq(syn_write_manifest(D_root), 0);
    ts_promote(D_root);
    char *m = get("provenance/manifest-measure.tsv");
    char *l = strstr(m, "results/attempts/H3-t25-r2-a1/tester.tsv.gz");
    cr_assert(l);
    char *e = strchr(l, '\n');
    memmove(l, e + 1, strlen(e + 1) + 1);
    put("provenance/manifest-measure.tsv", m);
    free(m);
    static const char *const want[] = {"MISMATCH results/attempts/H3-t25-r2-a1/tester.tsv.gz manifest: lab (not "
                                       "listed)",
                                       NULL};
    expect(1, 0, want);
}

/* each verdict's error rate and the family forged in results.json */
Test(design, verdict_rates_forged, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    vj_node *res = read_json("results/results.json");
    vj_node *vd = vj_get(res, "verdicts")->items[0];
    vj_obj_set(vd, "false_positive_rate", vj_new_num(0.05));
    vj_obj_set(vd, "power", vj_new_num(0.99));
    vj_obj_set(vd, "decidable", vj_new_bool(0));
    vj_obj_set(vj_get(res, "verdict_family"), "expected_chance", vj_new_num(0.05));
    write_json("results/results.json", res);
    vj_free(res);
    static const char *const want[] = {"verdicts[0] (H3-t25 H3-fb25 p99_ms) false_positive_rate: lab 0.05, verify 0.5",
                                       "verdicts[0] (H3-t25 H3-fb25 p99_ms) power: lab 0.99, verify 0.9216",
                                       "verdicts[0] (H3-t25 H3-fb25 p99_ms) decidable: lab false, verify true",
                                       "MISMATCH results.json expected_chance: lab 0.05, verify 0.5", NULL};
    expect(4, 0, want);
    /* only n kept of the five: the others demanded all the same */
    ts_promote(D_root);
    res = read_json("results/results.json");
    vd = vj_get(res, "verdicts")->items[0];
    vj_node *kept = vj_new_obj();
    for (size_t i = 0; i < vd->n; i++)
        if (strcmp(vd->keys[i], "power") && strcmp(vd->keys[i], "decidable") && strcmp(vd->keys[i], "sizing_q") &&
            strcmp(vd->keys[i], "false_positive_rate"))
            vj_obj_set(kept, vd->keys[i], vj_copy(vd->items[i]));
    vj_node *list = vj_new_arr();
    vj_arr_push(list, kept);
    vj_obj_set(res, "verdicts", list);
    write_json("results/results.json", res);
    vj_free(res);
    static const char *const demanded[] = {
        "verdicts[0] (H3-t25 H3-fb25 p99_ms) false_positive_rate: lab (absent), verify present",
        "verdicts[0] (H3-t25 H3-fb25 p99_ms) decidable: lab (absent)", NULL};
    expect(4, 0, demanded);
}

/* prediction.json format 2 against the schedule */
Test(design, prediction_format_2, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    char *pr = get("results/prediction.json");
    char *x = strstr(pr, "\"H3-t25-r2\": {\"seconds\": 1");
    cr_assert(x);
    x[strlen("\"H3-t25-r2\": {\"seconds\": ")] = '3';
    x = strstr(pr, "\"planned_rounds\": 2");
    x[strlen("\"planned_rounds\": ")] = '3';
    x = strstr(pr, "\"power\": 0.9216");
    x[strlen("\"power\": 0.92")] = '7';
    x = strstr(pr, "\"seconds_b\": 1");
    x[strlen("\"seconds_b\": ")] = '4';
    put("results/prediction.json", pr);
    free(pr);
    write_prereg(7, 0);
    static const char *const want[] = {
        "MISMATCH results/prediction.json runs.H3-t25-r2.seconds: lab 3, verify 1 (the run's seconds, "
        "results/schedule.tsv:5)",
        "MISMATCH results/prediction.json odds[0].planned_rounds: lab 3, verify 2",
        "MISMATCH results/prediction.json odds[0].p_seen: lab 0.19, verify 0.27",
        "MISMATCH results/prediction.json sizing[0].power: lab 0.9276, verify 0.9216",
        "MISMATCH results/prediction.json sizing[0].seconds_b: lab 4, verify 1", NULL};
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    for (int i = 0; want[i]; i++)
        cr_expect(strstr(out, want[i]), "expected \"%s\" in:\n%s", want[i], out);
    vj_free(v);
    free(out);
}

/* the map's seeds are the profile's odds_seeds too */
Test(design, map_seeds_are_the_profiles, .init = d_setup, .fini = d_teardown, .timeout = 60)
{
    build();
    char *pr = get("results/prediction.json"), *end = strrchr(pr, '}');
    cr_assert(end);
    *end = 0;
    char *n = vu_xasprintf("%s, \"map\": {\"seconds\": 1, \"seeds\": \"1-1000\", \"capacity_p\": 0.01, "
                           "\"trigger_load\": 300, \"loads\": [300], \"policies\": []}}\n",
                           pr);
    put("results/prediction.json", n);
    free(n);
    free(pr);
    write_prereg(7, 0);
    static const char *const want[] = {
        "MISMATCH results/prediction.json map.seeds: lab 1-1000, verify 1-100 (odds_seeds of profile tiny", NULL};
    expect(-1, 1, want);
}

/* tests/forge_design.sh on the header's study: the three forgeries made
 * in copies, each refused by the design check */
Test(design, forge_design_script, .init = d_setup, .fini = d_teardown, .timeout = 120)
{
    build();
    char *log = dp("forge.log");
    char *cmd = vu_xasprintf("VERIFY='%s' bash '%s/tests/forge_design.sh' '%s' >'%s' 2>&1", VERIFY_BIN, VERIFY_DIR,
                             D_root, log);
    int rc = system(cmd);
    free(cmd);
    char *out = get("forge.log");
    cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "forge_design.sh exit %d:\n%s", WEXITSTATUS(rc), out);
    cr_expect(strstr(out, "forgery (a) round 2 dropped: refused"), "%s", out);
    cr_expect(strstr(out, "forgery (b) H3-fb25-r1's seconds 1 -> 2: refused"), "%s", out);
    cr_expect(strstr(out, "forgery (c) arm FORGED added (FORGED-r1): refused"), "%s", out);
    cr_log_info("%s", out);
    free(out);
    free(log);
    /* a study registered before the design: the script says it cannot */
    write_prereg(6, 0);
    log = dp("forge2.log");
    cmd = vu_xasprintf("VERIFY='%s' bash '%s/tests/forge_design.sh' '%s' >'%s' 2>&1", VERIFY_BIN, VERIFY_DIR, D_root,
                       log);
    rc = system(cmd);
    free(cmd);
    out = get("forge2.log");
    cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "forge_design.sh exit %d:\n%s", WEXITSTATUS(rc), out);
    cr_expect(strstr(out, "does not list data/profiles.tsv"), "%s", out);
    free(out);
    free(log);
}
