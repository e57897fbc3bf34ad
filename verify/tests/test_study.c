/* The study around the runs (pipeline/RESULTS.md, "The files around it";
 * lab/RAWFORMAT.md, run.json; pipeline/APCOST.md part 2): run.json against
 * the schedule and the arms file, t0_ns against the files, the idle gate,
 * the rules a study must meet (prereg.json, the planned runs), cost.json
 * recomputed, and verified.json's `files`.
 *
 * The study, profile quick: arms H3-fb25 and H3-t25, 2 rounds of 1 s
 * (syn_kind_run: 20 closed-loop requests 50 ms apart, two of them K).  The schedule
 * (syn_write_schedule) plans k = 1 H3-fb25-r1, 2 H3-t25-r1, 3 H3-fb25-r2,
 * 4 H3-t25-r2; run k starts at 10:0k:00Z and ends 7 s later.  Each run has
 * a record (exit_code 0, wall_s 6.5 6.25 7 6.75 for k = 1..4) and, in its
 * run.json and record, cpu tester (0.25, 0.125), service (0.5, 0.25),
 * store (0.125, 0.0625): cpu_s 1.3125.  Stage records (name order):
 *   collect  10:11:00Z-10:11:04Z  wall 4    user 2     sys 0.5    cpu 2.5
 *   measure  10:00:30Z-10:10:30Z  wall 600  user 0.5   sys 0.125  cpu 0.625
 *   prepare  10:00:00Z-10:00:03Z  wall 2.5  user 1.25  sys 0.25   cpu 1.5
 * so, by hand: stages_wall_s 606.5, stages_cpu_s 4.625, runs_wall_s 26.5,
 * runs_cpu_s 5.25, wall_s (measure left out) 4 + 2.5 + 26.5 = 33, cpu_s
 * 9.875, machine_hours 33/3600, first 10:00:00Z, last 10:11:04Z, span 664;
 * rental 09:30:00Z to 11:00:00Z at 0.096 an hour: 1.5 hours, 0.144 USD,
 * covering the records.  prereg.json registers the six files at 10:00:02Z
 * and the prediction at 10:00:40Z, both before the first run (10:01:00Z).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provmd.h"
#include "records.h"
#include "tstudy.h"

static char *S_root;
static syn_ref S_ref;

static void s_setup(void)
{
    S_root = th_tmpdir();
    cr_assert(S_root);
    syn_make_ref(&S_ref, 40, 11);
}

static void s_teardown(void)
{
    syn_free_ref(&S_ref);
    th_rmrf(S_root);
    free(S_root);
}

static const char *COMPARISONS = "a\tb\tfigure\tnote\nH3-t25\tH3-fb25\tp99_ms\tthe same\n";
static const char *GUESSES = "id\tguess\tpredicate\nG1\tEvery run answers.\tevery H3-t25.n >= 20\n";
static const char *KINDS = "LLLLLKLLLLLLLLLLKLLL";
static const char *const RUNS[4] = {"H3-fb25-r1", "H3-t25-r1", "H3-fb25-r2", "H3-t25-r2"}; /* by k */
static const double WALL[4] = {6.5, 6.25, 7, 6.75};

static char *sp(const char *rel)
{
    return vu_xasprintf("%s/%s", S_root, rel);
}

static void put(const char *rel, const char *text)
{
    char *p = sp(rel), *d = vu_xstrdup(p);
    *strrchr(d, '/') = 0;
    cr_assert_eq(syn_mkdirs(d), 0);
    cr_assert_eq(syn_write_text(p, text), 0);
    free(d);
    free(p);
}

static vj_node *read_json(const char *rel)
{
    char *p = sp(rel);
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

static vj_node *cpu_block(void)
{
    static const char *const procs[] = {"tester", "service", "store"};
    static const double user[] = {0.25, 0.5, 0.125}, sys[] = {0.125, 0.25, 0.0625};
    vj_node *c = vj_new_obj();
    for (int i = 0; i < 3; i++) {
        vj_node *p = vj_new_obj();
        vj_obj_set(p, "user_s", vj_new_num(user[i]));
        vj_obj_set(p, "sys_s", vj_new_num(sys[i]));
        vj_obj_set(p, "share", vj_new_num(0.01));
        vj_obj_set(c, procs[i], p);
    }
    vj_obj_set(c, "wall_s", vj_new_num(6));
    return c;
}

static char *utc(int minute, int second)
{
    return vu_xasprintf("2026-12-01T10:%02d:%02dZ", minute, second);
}

/* run k (0-based): run.json gains cpu and end_utc, the record copies it */
static void write_record(int k, const char *profile)
{
    char *rel = vu_xasprintf("results/raw/%s/run.json", RUNS[k]);
    vj_node *rj = read_json(rel), *rec = vj_new_obj();
    char *end = utc(k + 1, 7);
    vj_obj_set(rj, "cpu", cpu_block());
    vj_obj_set(rj, "end_utc", vj_new_str(end));
    write_json(rel, rj);
    vj_obj_set(rec, "run", vj_new_str(RUNS[k]));
    vj_obj_set(rec, "arm", vj_new_str(vj_get_str(rj, "arm")));
    vj_obj_set(rec, "round", vj_new_int(k / 2 + 1));
    vj_obj_set(rec, "k", vj_new_int(k + 1));
    vj_obj_set(rec, "profile", vj_new_str(profile));
    vj_obj_set(rec, "seconds", vj_new_num(1));
    vj_obj_set(rec, "argv", vj_new_arr());
    vj_obj_set(rec, "start_utc", vj_copy(vj_get(rj, "start_utc")));
    vj_obj_set(rec, "end_utc", vj_new_str(end));
    vj_obj_set(rec, "wall_s", vj_new_num(WALL[k]));
    vj_obj_set(rec, "machine", vj_new_str("local"));
    vj_obj_set(rec, "exit_code", vj_new_int(0));
    vj_obj_set(rec, "gate", vj_new_int(1));
    vj_obj_set(rec, "gate_passed", vj_new_bool(1));
    vj_obj_set(rec, "attempt", vj_new_int(1));
    vj_obj_set(rec, "earlier_attempts", vj_new_arr());
    static const char *const copies[] = {"idle", "cpu", "peak_rss_kb", "cores", "tester_nice", "requests", "quiet"};
    for (size_t i = 0; i < sizeof copies / sizeof *copies; i++)
        if (vj_get(rj, copies[i]))
            vj_obj_set(rec, copies[i], vj_copy(vj_get(rj, copies[i])));
    char *rr = vu_xasprintf("provenance/runs/%s.json", RUNS[k]);
    write_json(rr, rec);
    free(rr);
    vj_free(rec);
    vj_free(rj);
    free(end);
    free(rel);
}

static void write_stage(const char *name, const char *start, const char *end, double wall, double user, double sys)
{
    char *t = vu_xasprintf("{\"stage\": \"%s\", \"argv\": [\"build/bin/%s\"], \"start_utc\": \"%s\", \"end_utc\": "
                           "\"%s\", \"exit_code\": 0, \"wall_s\": %.17g, \"cpu_user_s\": %.17g, \"cpu_sys_s\": %.17g}\n",
                           name, name, start, end, wall, user, sys);
    char *rel = vu_xasprintf("provenance/stage-%s.json", name);
    put(rel, t);
    free(rel);
    free(t);
}

/* the sha256 and size of a file under the root, as prereg.json lists it */
static vj_node *reg_entry(const char *rel)
{
    char *p = sp(rel);
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

static const char *const SIX[] = {"data/guesses.tsv", "data/design.md", "data/quiet.tsv", "lab/arms.tsv",
                                  "pipeline/comparisons.tsv", "pipeline/ap_arms.tsv"};

/* prereg.json: the first n of the six files at reg, the prediction at pred (NULL: none) */
static void write_prereg(const char *reg, int n, const char *pred)
{
    vj_node *o = vj_new_obj(), *f = vj_new_arr();
    vj_obj_set(o, "registered_utc", vj_new_str(reg));
    for (int i = 0; i < n; i++)
        vj_arr_push(f, reg_entry(SIX[i]));
    vj_obj_set(o, "files", f);
    if (pred) {
        vj_node *e = reg_entry("results/prediction.json");
        vj_obj_set(e, "registered_utc", vj_new_str(pred));
        vj_obj_set(o, "prediction", e);
    }
    write_json("provenance/prereg.json", o);
    vj_free(o);
}

/* cost.json as the lab writes it, by hand (the header's numbers); skip: a
 * run (0-based k) left out, -1 none */
static vj_node *cost_tree(int skip)
{
    vj_node *o = vj_new_obj(), *st = vj_new_arr(), *runs = vj_new_arr(), *t = vj_new_obj(), *r = vj_new_obj();
    vj_obj_set(o, "format", vj_new_str("lab-cost 1"));
    vj_obj_set(o, "definitions", vj_new_str("pipeline/APCOST.md"));
    static const struct {
        const char *name, *start, *end;
        double wall, user, sys;
    } S[] = {{"collect", "2026-12-01T10:11:00Z", "2026-12-01T10:11:04Z", 4, 2, 0.5},
             {"measure", "2026-12-01T10:00:30Z", "2026-12-01T10:10:30Z", 600, 0.5, 0.125},
             {"prepare", "2026-12-01T10:00:00Z", "2026-12-01T10:00:03Z", 2.5, 1.25, 0.25}};
    for (int i = 0; i < 3; i++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "stage", vj_new_str(S[i].name));
        vj_obj_set(e, "start_utc", vj_new_str(S[i].start));
        vj_obj_set(e, "end_utc", vj_new_str(S[i].end));
        vj_obj_set(e, "exit_code", vj_new_int(0));
        vj_obj_set(e, "wall_s", vj_new_num(S[i].wall));
        vj_obj_set(e, "cpu_user_s", vj_new_num(S[i].user));
        vj_obj_set(e, "cpu_sys_s", vj_new_num(S[i].sys));
        vj_obj_set(e, "cpu_s", vj_new_num(S[i].user + S[i].sys));
        vj_arr_push(st, e);
    }
    /* name order: H3-fb25-r1 (k 1), H3-fb25-r2 (k 3), H3-t25-r1 (k 2), H3-t25-r2 (k 4) */
    static const int by_name[4] = {0, 2, 1, 3};
    double wall = 0, cpu = 0;
    int n = 0;
    for (int i = 0; i < 4; i++) {
        int k = by_name[i];
        if (k == skip)
            continue;
        vj_node *e = vj_new_obj(), *c = vj_new_obj();
        char *a = utc(k + 1, 0), *b = utc(k + 1, 7);
        vj_obj_set(e, "run", vj_new_str(RUNS[k]));
        vj_obj_set(e, "source", vj_new_str("provenance/runs"));
        vj_obj_set(e, "start_utc", vj_new_str(a));
        vj_obj_set(e, "end_utc", vj_new_str(b));
        vj_obj_set(e, "exit_code", vj_new_int(0));
        vj_obj_set(e, "wall_s", vj_new_num(WALL[k]));
        vj_obj_set(e, "cpu_s", vj_new_num(1.3125));
        vj_node *cb = cpu_block();
        static const char *const procs[] = {"tester", "service", "store"};
        for (int p = 0; p < 3; p++) {
            vj_node *q = vj_new_obj();
            vj_obj_set(q, "user_s", vj_copy(vj_get(vj_get(cb, procs[p]), "user_s")));
            vj_obj_set(q, "sys_s", vj_copy(vj_get(vj_get(cb, procs[p]), "sys_s")));
            vj_obj_set(c, procs[p], q);
        }
        vj_free(cb);
        vj_obj_set(e, "cpu", c);
        vj_arr_push(runs, e);
        wall += WALL[k];
        cpu += 1.3125;
        n++;
        free(a);
        free(b);
    }
    vj_obj_set(o, "stages", st);
    vj_obj_set(o, "runs", runs);
    vj_obj_set(t, "stages", vj_new_int(3));
    vj_obj_set(t, "runs", vj_new_int(n));
    vj_obj_set(t, "stages_wall_s", vj_new_num(606.5));
    vj_obj_set(t, "stages_cpu_s", vj_new_num(4.625));
    vj_obj_set(t, "runs_wall_s", vj_new_num(wall));
    vj_obj_set(t, "runs_cpu_s", vj_new_num(cpu));
    vj_obj_set(t, "wall_s", vj_new_num(6.5 + wall));
    vj_obj_set(t, "cpu_s", vj_new_num(4.625 + cpu));
    vj_obj_set(t, "machine_hours", vj_new_num((6.5 + wall) / 3600));
    vj_obj_set(t, "first_start_utc", vj_new_str("2026-12-01T10:00:00Z"));
    vj_obj_set(t, "last_end_utc", vj_new_str("2026-12-01T10:11:04Z"));
    vj_obj_set(t, "span_s", vj_new_int(664));
    vj_obj_set(o, "totals", t);
    vj_obj_set(r, "start_utc", vj_new_str("2026-12-01T09:30:00Z"));
    vj_obj_set(r, "end_utc", vj_new_str("2026-12-01T11:00:00Z"));
    vj_obj_set(r, "hours", vj_new_num(1.5));
    vj_obj_set(r, "price_per_hour_usd", vj_new_num(0.096));
    vj_obj_set(r, "price_usd", vj_new_num(0.144));
    vj_obj_set(r, "covers_records", vj_new_bool(1));
    vj_obj_set(r, "note", vj_new_null());
    vj_obj_set(o, "rental", r);
    return o;
}

static void write_cost(int skip)
{
    vj_node *c = cost_tree(skip);
    write_json("results/cost.json", c);
    vj_free(c);
}

/* the whole study of the header, every rule met */
static void build(void)
{
    for (int k = 0; k < 4; k++) {
        syn_run r;
        const char *arm = RUNS[k][3] == 'f' ? "H3-fb25" : "H3-t25";
        syn_kind_run(&r, arm, k / 2 + 1, KINDS, &S_ref, 4000000000000LL + k * 100000000000LL);
        char *start = utc(k + 1, 0);
        r.start_utc = start;
        cr_assert_eq(syn_write_run(S_root, &r, 1), 0);
        syn_free_run(&r);
        free(start);
    }
    cr_assert_eq(syn_write_reference(S_root, &S_ref), 0);
    cr_assert_eq(syn_write_quiet(S_root, NULL), 0);
    ts_write_texts(S_root, COMPARISONS, GUESSES);
    put("data/design.md", "# The design\n\nTwo arms, two rounds.\n");
    put("pipeline/ap_arms.tsv", "arm\nH3-t25\n");
    cr_assert_eq(syn_write_schedule(S_root, "quick"), 0);
    cr_assert_eq(syn_write_arms(S_root), 0);
    for (int k = 0; k < 4; k++)
        write_record(k, "quick");
    cr_assert_eq(syn_write_manifest(S_root), 0);
    write_stage("prepare", "2026-12-01T10:00:00Z", "2026-12-01T10:00:03Z", 2.5, 1.25, 0.25);
    write_stage("measure", "2026-12-01T10:00:30Z", "2026-12-01T10:10:30Z", 600, 0.5, 0.125);
    write_stage("collect", "2026-12-01T10:11:00Z", "2026-12-01T10:11:04Z", 4, 2, 0.5);
    put("provenance/stage-cost.json",
        "{\"stage\": \"cost\", \"argv\": [\"build/bin/cost\", \"--root\", \"out\", \"--start\", \"2026-12-01T09:30:00Z\", "
        "\"--end\", \"2026-12-01T11:00:00Z\", \"--price-per-hour\", \"0.096\"], \"start_utc\": \"2026-12-01T10:12:00Z\", "
        "\"end_utc\": \"2026-12-01T10:12:00Z\", \"exit_code\": 0, \"wall_s\": 0.01, \"cpu_user_s\": 0, \"cpu_sys_s\": 0}\n");
    write_cost(-1);
    put("results/prediction.json", "{\"format\": \"lab-prediction 1\", \"profile\": \"quick\", \"seconds\": 1, "
                                   "\"rounds\": [1, 2], \"runs\": {}, \"odds\": [], \"sizing\": []}\n");
    /* a stand-in: the AP check is not this file's (its mismatches count under ap_json) */
    put("results/ap.json", "{\"format\": \"lab-ap 1\"}\n");
    write_prereg("2026-12-01T10:00:02Z", 6, "2026-12-01T10:00:40Z");
    ts_promote(S_root);
}

/* results/provenance.md as make provenance would write it again now (the
 * verifier's own renderer: test_provmd.c checks it against a text written by
 * hand); not while S_keep_md */
static int S_keep_md;

static void write_provenance_md(void)
{
    pv_records recs;
    pv_load(S_root, &recs);
    vu_buf b = {0};
    pm_bad bad;
    if (!pm_render(S_root, &recs, &b, &bad)) { /* a malformed record: make provenance writes nothing */
        vu_buf_add(&b, "", 1);
        put(PM_REL, b.p);
    }
    vu_buf_free(&b);
    pv_free(&recs);
}

/* verify (no scan); the output and verified.json */
static int run_verify(char **out, vj_node **v)
{
    if (!S_keep_md)
        write_provenance_md();
    const char *a[] = {"--root", S_root, "--no-scan", "--max-print", "0", NULL};
    int rc = th_run(out, a);
    *v = ts_verified(S_root);
    return rc;
}

static long long by_check(const vj_node *v, const char *check)
{
    const vj_node *n = vj_get(vj_get(vj_get(v, "checks"), "mismatches_by_check"), check);
    cr_assert(n && n->type == VJ_NUM, "checks.mismatches_by_check.%s absent", check);
    return n->i;
}

/* the study's own checks give exactly `study` mismatches, each line of want printed */
static void expect_study(int study, const char *const *want)
{
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect_eq(by_check(v, "study"), study, "study mismatches %lld, expected %d:\n%s", by_check(v, "study"), study,
                 out);
    for (int i = 0; want && want[i]; i++)
        cr_expect(strstr(out, want[i]), "expected \"%s\" in:\n%s", want[i], out);
    vj_free(v);
    free(out);
}

static void edit_run_json(const char *run, const char *key, vj_node *val)
{
    char *rel = vu_xasprintf("results/raw/%s/run.json", run);
    vj_node *rj = read_json(rel);
    vj_node *o = rj;
    char *k = vu_xstrdup(key), *dot = strchr(k, '.');
    if (dot) {
        *dot = 0;
        o = vj_get(rj, k);
        cr_assert(o, "%s absent", k);
    }
    vj_obj_set(o, dot ? dot + 1 : k, val);
    write_json(rel, rj);
    vj_free(rj);
    free(k);
    free(rel);
    cr_assert_eq(syn_write_manifest(S_root), 0);
}

Test(study_rules, a_quick_study_meets_every_rule, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    static const char *const zero[] = {"manifest", "raw_files_and_answers", "prediction", "results_json", "study"};
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
        cr_expect_eq(by_check(v, zero[i]), 0, "%s: %lld\n%s", zero[i], by_check(v, zero[i]), out);
    const vj_node *st = vj_get(vj_get(v, "checks"), "study");
    cr_assert(st, "checks.study absent");
    cr_expect_str_eq(vj_get_str(st, "profile"), "quick");
    cr_expect(vj_get(st, "rules_enforced")->b);
    const vj_node *sc = vj_get(st, "schedule");
    cr_expect(vj_get(sc, "planned")->i == 4 && vj_get(sc, "measured")->i == 4 && vj_get(sc, "recorded_failed")->i == 0);
    const vj_node *pr = vj_get(st, "prereg");
    cr_expect(vj_get(pr, "all_six_listed")->b);
    cr_expect_str_eq(vj_get_str(pr, "first_run"), "H3-fb25-r1");
    const vj_node *rj = vj_get(st, "run_json");
    cr_expect(vj_get(rj, "arm_spec_against_arms_file")->i == 4 && vj_get(rj, "records_against_run_json")->i == 4);
    const vj_node *co = vj_get(st, "cost");
    cr_expect(vj_get(co, "checked")->b && vj_get(co, "runs")->i == 4 && vj_get(co, "stages")->i == 3);
    cr_expect_eq(vj_get(co, "mismatches")->i, 0);
    vj_free(v);
    free(out);
}

/* profile tiny (the tests'): no records, no prereg.json, no cost.json, no
 * ap.json and the gate off are allowed; quick, the same is five rules broken */
Test(study_rules, tiny_does_not_enforce_the_rules, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    static const char *const gone[] = {"provenance/prereg.json", "results/cost.json", "results/ap.json"};
    for (size_t i = 0; i < 3; i++) {
        char *p = sp(gone[i]);
        cr_assert_eq(unlink(p), 0);
        free(p);
    }
    char *cmd = vu_xasprintf("rm -rf '%s/provenance/runs'", S_root);
    cr_assert_eq(system(cmd), 0);
    free(cmd);
    edit_run_json("H3-t25-r1", "idle.enabled", vj_new_bool(0));
    static const char *const quick[] = {"MISMATCH provenance/prereg.json file: lab (absent)",
                                        "MISMATCH results/cost.json file: lab (absent)",
                                        "MISMATCH results/ap.json file: lab (absent)",
                                        "MISMATCH H3-t25-r1 run.json idle.enabled: lab false",
                                        "MISMATCH provenance/runs/H3-t25-r1.json file: lab (absent)", NULL};
    expect_study(8, quick); /* a missing record for each of the 4 runs */
    cr_assert_eq(syn_write_schedule(S_root, "tiny"), 0);
    put("results/prediction.json", "{\"format\": \"lab-prediction 1\", \"profile\": \"tiny\", \"seconds\": 1, "
                                   "\"rounds\": [1, 2], \"runs\": {}, \"odds\": [], \"sizing\": []}\n");
    static const char *const notes[] = {"NOTE provenance/prereg.json absent (profile tiny: not required)",
                                        "NOTE results/cost.json absent (profile tiny: not required)", NULL};
    expect_study(0, notes);
}

Test(study_rules, run_json_against_schedule_arms_and_gate, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    edit_run_json("H3-t25-r1", "seconds", vj_new_num(2));
    static const char *const w1[] = {"MISMATCH H3-t25-r1 run.json seconds: lab 2, verify 1 (the schedule's", NULL};
    expect_study(1, w1);
    edit_run_json("H3-t25-r1", "seconds", vj_new_num(1));
    edit_run_json("H3-t25-r1", "rate", vj_new_int(30));
    edit_run_json("H3-fb25-r2", "arm_spec.tries", vj_new_int(2));
    static const char *const w2[] = {"MISMATCH H3-t25-r1 run.json rate: lab 30, verify 0 (arm H3-t25",
                                     "MISMATCH H3-fb25-r2 run.json arm_spec.tries: lab 2, verify 1 (", NULL};
    expect_study(2, w2);
    edit_run_json("H3-t25-r1", "rate", vj_new_int(0));
    edit_run_json("H3-fb25-r2", "arm_spec.tries", vj_new_int(1));
    edit_run_json("H3-fb25-r2", "arm_spec.hedge_p", vj_new_int(0)); /* unchanged: still passes */
    edit_run_json("H3-fb25-r2", "arm_spec.brk_extra", vj_new_int(0));
    static const char *const w3[] = {"MISMATCH H3-fb25-r2 run.json arm_spec.brk_extra: lab 0, verify (absent: not a "
                                     "column of ",
                                     NULL};
    expect_study(1, w3);
}

/* the idle gate: run.json and its record rewritten together, as measure would */
static void set_gate(const char *run, int enabled, int passed)
{
    char *rel = vu_xasprintf("provenance/runs/%s.json", run);
    vj_node *rec = read_json(rel);
    vj_obj_set(vj_get(rec, "idle"), "enabled", vj_new_bool(enabled));
    vj_obj_set(vj_get(rec, "idle"), "passed", vj_new_bool(passed));
    vj_obj_set(rec, "gate", vj_new_int(enabled));
    vj_obj_set(rec, "gate_passed", vj_new_bool(passed));
    write_json(rel, rec);
    vj_free(rec);
    free(rel);
    edit_run_json(run, "idle.enabled", vj_new_bool(enabled));
    edit_run_json(run, "idle.passed", vj_new_bool(passed));
}

Test(study_rules, the_idle_gate, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    set_gate("H3-t25-r2", 1, 0);
    static const char *const w1[] = {"MISMATCH H3-t25-r2 run.json idle.passed: lab false, verify true: the gate was on",
                                     NULL};
    expect_study(1, w1);
    set_gate("H3-t25-r2", 0, 0);
    static const char *const w2[] = {"MISMATCH H3-t25-r2 run.json idle.enabled: lab false, verify true", NULL};
    expect_study(1, w2);
    /* run.json alone rewritten: its record no longer holds a copy of it */
    edit_run_json("H3-t25-r2", "idle.enabled", vj_new_bool(1));
    edit_run_json("H3-t25-r2", "idle.passed", vj_new_bool(1));
    static const char *const w3[] = {"MISMATCH provenance/runs/H3-t25-r2.json idle: lab {",
                                     "MISMATCH provenance/runs/H3-t25-r2.json gate: lab 0, verify 1",
                                     "MISMATCH provenance/runs/H3-t25-r2.json gate_passed: lab false, verify true", NULL};
    expect_study(3, w3);
}

Test(study_rules, requests_and_rows_against_the_files, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    edit_run_json("H3-t25-r1", "requests", vj_new_int(21));
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 run.json requests: lab 21, verify 20 (rows of tester.tsv.gz)"), "%s", out);
    /* and the record's copy no longer equals run.json's */
    cr_expect(strstr(out, "MISMATCH provenance/runs/H3-t25-r1.json requests: lab 20, verify 21"), "%s", out);
    vj_free(v);
    free(out);
    edit_run_json("H3-t25-r1", "requests", vj_new_int(20));
    vj_node *rj = read_json("results/raw/H3-t25-r1/run.json");
    vj_obj_set(vj_get(vj_get(rj, "files"), "store.tsv.gz"), "rows", vj_new_int(19));
    write_json("results/raw/H3-t25-r1/run.json", rj);
    vj_free(rj);
    cr_assert_eq(syn_write_manifest(S_root), 0);
    run_verify(&out, &v);
    cr_expect(strstr(out, "MISMATCH H3-t25-r1 run.json files.store.tsv.gz.rows: lab 19, verify 20"), "%s", out);
    cr_expect_eq(by_check(v, "study"), 0, "%s", out);
    vj_free(v);
    free(out);
}

/* t0_ns 2 ms after the run's first scheduled arrival: every file's
 * earliest time is named (the machine's readings stay after it) */
Test(study_rules, times_before_t0_are_mismatches, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    syn_run r;
    long long t0 = 4000000000000LL + 100000000000LL; /* k = 2: H3-t25-r1 */
    syn_kind_run(&r, "H3-t25", 1, KINDS, &S_ref, t0);
    r.start_utc = "2026-12-01T10:02:00Z";
    r.t0 = t0 + 2000000;
    cr_assert_eq(syn_write_run(S_root, &r, 1), 0);
    syn_free_run(&r);
    write_record(1, "quick");
    cr_assert_eq(syn_write_manifest(S_root), 0);
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    char *w[3];
    /* a closed-loop run: send_us is after t0_ns, here -2000 µs (sched_t = send_t) */
    w[0] = vu_xasprintf("MISMATCH H3-t25-r1 tester.tsv.gz:3 send_t (the file's lowest time): lab %lld, verify at or "
                        "after t0_ns %lld, the run's start (this is 2000000 ns before it)",
                        t0, t0 + 2000000);
    w[1] = vu_xasprintf("MISMATCH H3-t25-r1 service.tsv.gz:3 arrive_t (the file's lowest time): lab %lld", t0 + 15000);
    w[2] = vu_xasprintf("MISMATCH H3-t25-r1 store.tsv.gz:3 arrive_t (the file's lowest time): lab %lld", t0 + 26000);
    for (int i = 0; i < 3; i++) {
        cr_expect(strstr(out, w[i]), "expected \"%s\" in:\n%s", w[i], out);
        free(w[i]);
    }
    cr_expect(!strstr(out, "machine.tsv.gz:3"), "%s", out);
    vj_free(v);
    free(out);
}

Test(study_rules, arms_file_missing_or_malformed_exits_2, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    char *arms = sp("lab/arms.tsv"), *out;
    const char *a[] = {"--root", S_root, "--no-scan", "--arms", "/nonexistent/arms.tsv", NULL};
    cr_expect_eq(th_run(&out, a), 2, "%s", out);
    cr_expect(strstr(out, "the arms file not found: /nonexistent/arms.tsv"), "%s", out);
    free(out);
    put("lab/bad-arms.tsv", "# arms\nname\trate\ttries\nH3-t25\t20\t1\nH3-fb25\tfast\t1\n");
    char *bad = sp("lab/bad-arms.tsv");
    const char *b[] = {"--root", S_root, "--no-scan", "--arms", bad, NULL};
    cr_expect_eq(th_run(&out, b), 2, "%s", out);
    cr_expect(strstr(out, "bad-arms.tsv:4: rate \"fast\" is not an integer or max"), "%s", out);
    free(out);
    /* a line without H3-fb25: its runs and its schedule lines are named */
    put("lab/arms.tsv", "# arms\nname\trate\nH3-t25\t20\n");
    char *o2;
    vj_node *v;
    run_verify(&o2, &v);
    cr_expect(strstr(o2, "MISMATCH H3-fb25-r1 run.json arm: lab H3-fb25, verify an arm of "), "%s", o2);
    cr_expect(strstr(o2, "MISMATCH results/schedule.tsv:3 arm: lab H3-fb25, verify an arm of "), "%s", o2);
    cr_expect(strstr(o2, "MISMATCH H3-t25-r1 run.json arm_spec.tries: lab 1, verify (absent: not a column of "), "%s",
              o2);
    vj_free(v);
    free(o2);
    free(bad);
    free(arms);
}

Test(study_rules, preregistration_enforced, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    /* after the first run started (10:01:00Z), or at that very second */
    write_prereg("2026-12-01T10:01:00Z", 6, "2026-12-01T10:00:40Z");
    static const char *const late[] = {"MISMATCH provenance/prereg.json registered_utc: lab 2026-12-01T10:01:00Z, "
                                       "verify before 2026-12-01T10:01:00Z (start_utc of H3-fb25-r1",
                                       NULL};
    expect_study(1, late);
    /* a record of an earlier attempt counts too: started 10:00:01Z, before the registration */
    write_prereg("2026-12-01T10:00:02Z", 6, "2026-12-01T10:00:40Z");
    put("provenance/runs/H3-t25-r1.attempt-1.json",
        "{\"run\": \"H3-t25-r1\", \"start_utc\": \"2026-12-01T10:00:01Z\", \"end_utc\": \"2026-12-01T10:00:01Z\", "
        "\"machine\": \"local\", \"exit_code\": 3, \"wall_s\": 0, \"cpu\": null, \"reason\": \"the idle gate never passed\"}\n");
    write_cost(-1); /* the record is a run of cost.json too: not this test's point */
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect(strstr(out, "MISMATCH provenance/prereg.json registered_utc: lab 2026-12-01T10:00:02Z, verify before "
                          "2026-12-01T10:00:01Z (start_utc of H3-t25-r1.attempt-1"),
              "%s", out);
    cr_expect(strstr(out, "MISMATCH provenance/prereg.json prediction.registered_utc: lab 2026-12-01T10:00:40Z"), "%s",
              out);
    vj_free(v);
    free(out);
    char *att = sp("provenance/runs/H3-t25-r1.attempt-1.json");
    cr_assert_eq(unlink(att), 0);
    free(att);
    /* the old registration: three files */
    write_prereg("2026-12-01T10:00:02Z", 3, "2026-12-01T10:00:40Z");
    static const char *const three[] = {"MISMATCH provenance/prereg.json files: lab (not listed), verify lab/arms.tsv",
                                        "verify pipeline/comparisons.tsv", "verify pipeline/ap_arms.tsv", NULL};
    expect_study(3, three);
    /* a registered file changed afterwards: sha256 and size */
    write_prereg("2026-12-01T10:00:02Z", 6, "2026-12-01T10:00:40Z");
    put("pipeline/ap_arms.tsv", "arm\nH3-t25\nH3-fb25\n");
    static const char *const changed[] = {"MISMATCH provenance/prereg.json pipeline/ap_arms.tsv sha256: lab ",
                                          "MISMATCH provenance/prereg.json pipeline/ap_arms.tsv size: lab 11, verify 19",
                                          NULL};
    expect_study(2, changed);
    put("pipeline/ap_arms.tsv", "arm\nH3-t25\n");
    char *design = sp("data/design.md");
    cr_assert_eq(unlink(design), 0);
    static const char *const missing[] = {"MISMATCH provenance/prereg.json data/design.md: lab registered, verify the "
                                          "file, given as ",
                                          NULL};
    expect_study(1, missing);
    put("data/design.md", "# The design\n\nTwo arms, two rounds.\n");
    /* no prediction, no ap.json, no prereg.json */
    char *pred = sp("results/prediction.json"), *ap = sp("results/ap.json"), *pre = sp("provenance/prereg.json");
    cr_assert_eq(unlink(pred), 0);
    cr_assert_eq(unlink(ap), 0);
    cr_assert_eq(unlink(pre), 0);
    static const char *const none[] = {"MISMATCH provenance/prereg.json file: lab (absent)",
                                       "MISMATCH results/prediction.json file: lab (absent)",
                                       "MISMATCH results/ap.json file: lab (absent)", NULL};
    expect_study(3, none);
    free(design);
    free(pred);
    free(ap);
    free(pre);
}

/* a round removed from the raw files, the manifest, results.json and
 * cost.json: the schedule still plans it */
Test(study_rules, planned_runs_present_or_failed, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    char *cmd = vu_xasprintf("rm -rf '%s/results/raw/H3-fb25-r2'", S_root);
    cr_assert_eq(system(cmd), 0);
    free(cmd);
    cr_assert_eq(syn_write_manifest(S_root), 0);
    ts_promote(S_root);
    static const char *const w1[] = {"MISMATCH results/schedule.tsv:5 planned run: lab H3-fb25-r2 planned: its record "
                                     "says measured (exit_code 0) but results/raw/H3-fb25-r2/ is gone",
                                     NULL};
    expect_study(1, w1);
    /* the record removed too (and cost.json without it) */
    char *rec = sp("provenance/runs/H3-fb25-r2.json");
    cr_assert_eq(unlink(rec), 0);
    write_cost(2);
    static const char *const w2[] = {"MISMATCH results/schedule.tsv:5 planned run: lab H3-fb25-r2 planned: no run "
                                     "folder, no record",
                                     NULL};
    expect_study(1, w2);
    /* recorded as failed: without a reason it does not count */
    put("provenance/runs/H3-fb25-r2.json",
        "{\"run\": \"H3-fb25-r2\", \"arm\": \"H3-fb25\", \"round\": 2, \"k\": 3, \"profile\": \"quick\", \"seconds\": 1, "
        "\"start_utc\": \"2026-12-01T10:03:00Z\", \"end_utc\": \"2026-12-01T10:03:07Z\", \"wall_s\": 7, "
        "\"machine\": \"local\", \"exit_code\": 3, \"idle\": null}\n");
    /* cost.json's runs hold the record again: with its exit_code 3, no cpu */
    vj_node *c = cost_tree(-1);
    vj_node *e = vj_get(c, "runs")->items[1];
    vj_obj_set(e, "exit_code", vj_new_int(3));
    vj_obj_set(e, "cpu_s", vj_new_null());
    vj_obj_set(e, "cpu", vj_new_null());
    vj_obj_set(vj_get(c, "totals"), "runs_cpu_s", vj_new_num(3 * 1.3125));
    vj_obj_set(vj_get(c, "totals"), "cpu_s", vj_new_num(4.625 + 3 * 1.3125));
    write_json("results/cost.json", c);
    vj_free(c);
    static const char *const w3[] = {"no run folder, a record without exit_code and reason", NULL};
    expect_study(1, w3);
    put("provenance/runs/H3-fb25-r2.json",
        "{\"run\": \"H3-fb25-r2\", \"arm\": \"H3-fb25\", \"round\": 2, \"k\": 3, \"profile\": \"quick\", \"seconds\": 1, "
        "\"start_utc\": \"2026-12-01T10:03:00Z\", \"end_utc\": \"2026-12-01T10:03:07Z\", \"wall_s\": 7, "
        "\"machine\": \"local\", \"exit_code\": 3, \"idle\": null, \"reason\": \"the idle gate never passed in 3 attempts\"}\n");
    expect_study(0, NULL);
    /* a run folder the schedule does not plan */
    syn_run r;
    syn_kind_run(&r, "H3-t25", 3, KINDS, &S_ref, 4900000000000LL);
    r.start_utc = "2026-12-01T10:09:00Z";
    cr_assert_eq(syn_write_run(S_root, &r, 1), 0);
    syn_free_run(&r);
    cr_assert_eq(syn_write_manifest(S_root), 0);
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect(strstr(out, "MISMATCH H3-t25-r3 run folder: lab results/raw/ holds it, verify only the runs "
                          "results/schedule.tsv plans"),
              "%s", out);
    vj_free(v);
    free(out);
    free(rec);
}

Test(study_rules, the_schedule_itself, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    /* a closed-loop length C on line 1: the synthetic arms' rate is 0 (closed
     * loop), so their runs and records are held to C, not to S */
    char *sched = sp("results/schedule.tsv"), text[4096];
    FILE *f = fopen(sched, "r");
    cr_assert_not_null(f);
    size_t tn = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    free(sched);
    text[tn] = 0;
    char *each = strstr(text, " s each;"), with[4200];
    cr_assert_not_null(each, "%s", text);
    snprintf(with, sizeof with, "%.*s s each, closed loop 1 s;%s", (int)(each - text), text, each + 8);
    put("results/schedule.tsv", with);
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    cr_expect_eq(by_check(v, "study"), 0, "%s", out);
    const vj_node *cs = vj_get(vj_get(vj_get(vj_get(v, "checks"), "study"), "schedule"), "closed_loop_seconds");
    cr_expect(cs && cs->type == VJ_NUM && cs->num == 1, "checks.study.schedule.closed_loop_seconds");
    vj_free(v);
    free(out);
    snprintf(with, sizeof with, "%.*s s each, closed loop 2 s;%s", (int)(each - text), text, each + 8);
    put("results/schedule.tsv", with);
    static const char *const w2s[] = {"MISMATCH H3-fb25-r1 run.json seconds: lab 1, verify 2 (the schedule's",
                                      "MISMATCH H3-t25-r2 run.json seconds: lab 1, verify 2",
                                      "MISMATCH provenance/runs/H3-t25-r1.json seconds: lab 1, verify 2 "
                                      "(results/schedule.tsv:4)",
                                      NULL};
    expect_study(8, w2s);
    snprintf(with, sizeof with, "%.*s s each, closed loop 0 s;%s", (int)(each - text), text, each + 8);
    put("results/schedule.tsv", with);
    static const char *const w0[] = {"MISMATCH results/schedule.tsv:1 line 1", NULL};
    expect_study(1, w0);
    /* its last line removed with the round: R x A no longer holds */
    put("results/schedule.tsv", "# lab-schedule 1: profile quick, 2 rounds of 2 arms, 1 s each\n"
                                "k\tround\tposition\tarm\n1\t1\t1\tH3-fb25\n2\t1\t2\tH3-t25\n3\t2\t1\tH3-fb25\n");
    static const char *const w1[] = {"MISMATCH results/schedule.tsv planned runs: lab 3 planned runs, verify 4 (2 rounds "
                                     "of 2 arms, line 1)",
                                     "MISMATCH H3-t25-r2 run folder", NULL};
    expect_study(2, w1);
    put("results/schedule.tsv", "# lab-schedule 1: profile quick, 2 rounds of 2 arms, 1 s each\n"
                                "k\tround\tposition\tarm\n1\t1\t1\tH3-fb25\n2\t1\t2\tH3-t25\n3\t2\t1\tH3-fb25\n"
                                "5\t2\t1\tH3-t25\n");
    static const char *const w2[] = {"MISMATCH results/schedule.tsv:6 k: lab 5, verify 4 (k is 1, 2, ... in file order)",
                                     "MISMATCH results/schedule.tsv:6 round and position: lab H3-t25-r2, verify once "
                                     "(first at line 5)",
                                     NULL};
    expect_study(2, w2);
    /* no schedule: a mismatch, and the profile unknown enforces every rule */
    char *p = sp("results/schedule.tsv");
    cr_assert_eq(unlink(p), 0);
    free(p);
    static const char *const w3[] = {"MISMATCH results/schedule.tsv file: lab (absent)", NULL};
    expect_study(1, w3);
    put("results/schedule.tsv", "# lab-schedule 1: profile quick, 2 rounds\nk\tround\tposition\tarm\n");
    static const char *const w4[] = {"MISMATCH results/schedule.tsv:1 line 1: lab # lab-schedule 1: profile quick, 2 "
                                     "rounds, verify # lab-schedule 1: profile <name>",
                                     NULL};
    expect_study(1, w4);
}

Test(study_rules, cost_json_recomputed, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    /* measure's wall time counted on top of its runs */
    vj_node *c = cost_tree(-1);
    vj_obj_set(vj_get(c, "totals"), "wall_s", vj_new_num(633));
    write_json("results/cost.json", c);
    static const char *const w1[] = {"MISMATCH results/cost.json totals.wall_s: lab 633, verify 33", NULL};
    expect_study(1, w1);
    /* 1e-12 off passes, 1e-6 off does not */
    vj_obj_set(vj_get(c, "totals"), "wall_s", vj_new_num(33 + 1e-12));
    vj_obj_set(vj_get(c, "runs")->items[3], "cpu_s", vj_new_num(1.3125 + 1e-6));
    write_json("results/cost.json", c);
    static const char *const w2[] = {"MISMATCH results/cost.json runs[3] (H3-t25-r2).cpu_s: lab 1.31250", NULL};
    expect_study(1, w2);
    vj_free(c);
    /* a stage record changed after cost.json was written */
    write_cost(-1);
    write_stage("collect", "2026-12-01T10:11:00Z", "2026-12-01T10:11:04Z", 5, 2, 0.5);
    static const char *const w3[] = {"MISMATCH results/cost.json stages[0] (collect).wall_s: lab 4, verify 5",
                                     "MISMATCH results/cost.json totals.stages_wall_s: lab 606.5, verify 607.5",
                                     "MISMATCH results/cost.json totals.wall_s: lab 33, verify 34",
                                     "MISMATCH results/cost.json totals.machine_hours: lab ", NULL};
    expect_study(4, w3);
    write_stage("collect", "2026-12-01T10:11:00Z", "2026-12-01T10:11:04Z", 4, 2, 0.5);
    /* the price against cost's own command line */
    put("provenance/stage-cost.json", "{\"stage\": \"cost\", \"argv\": [\"build/bin/cost\", \"--root\", \"out\", "
                                      "\"--start\", \"2026-12-01T09:30:00Z\", \"--end\", \"2026-12-01T11:00:00Z\", "
                                      "\"--price-per-hour\", \"0.1\"]}\n");
    static const char *const w4[] = {"MISMATCH results/cost.json rental.price_per_hour_usd: lab 0.096, verify 0.1 "
                                     "(--price-per-hour in provenance/stage-cost.json's argv)",
                                     NULL};
    expect_study(1, w4);
    /* no price at all: every rental field null, and a note */
    put("provenance/stage-cost.json", "{\"stage\": \"cost\", \"argv\": [\"build/bin/cost\", \"--root\", \"out\"]}\n");
    c = cost_tree(-1);
    vj_node *r = vj_new_obj();
    static const char *const keys[] = {"start_utc", "end_utc", "hours", "price_per_hour_usd", "price_usd",
                                       "covers_records"};
    for (size_t i = 0; i < 6; i++)
        vj_obj_set(r, keys[i], vj_new_null());
    vj_obj_set(r, "note", vj_new_str("no rented machine given: no price"));
    vj_obj_set(c, "rental", r);
    write_json("results/cost.json", c);
    expect_study(0, NULL);
    vj_obj_set(vj_get(c, "rental"), "hours", vj_new_num(1.5));
    write_json("results/cost.json", c);
    static const char *const w5[] = {"MISMATCH results/cost.json rental.hours: lab 1.5, verify null", NULL};
    expect_study(1, w5);
    vj_free(c);
    /* an earlier attempt's record is a run of its own, in byte order of the
     * names: H3-t25-r1 before H3-t25-r1.attempt-1 (the file names sort the
     * other way), without cpu: cpu_s null, counting 0 */
    put("provenance/runs/H3-t25-r1.attempt-1.json",
        "{\"run\": \"H3-t25-r1\", \"start_utc\": \"2026-12-01T10:01:30Z\", \"end_utc\": \"2026-12-01T10:01:33Z\", "
        "\"machine\": \"local\", \"exit_code\": 3, \"wall_s\": 2.5, \"cpu\": null, \"reason\": \"the idle gate never passed\"}\n");
    c = cost_tree(-1);
    vj_node *e = vj_new_obj();
    vj_obj_set(e, "run", vj_new_str("H3-t25-r1.attempt-1"));
    vj_obj_set(e, "source", vj_new_str("provenance/runs"));
    vj_obj_set(e, "start_utc", vj_new_str("2026-12-01T10:01:30Z"));
    vj_obj_set(e, "end_utc", vj_new_str("2026-12-01T10:01:33Z"));
    vj_obj_set(e, "exit_code", vj_new_int(3));
    vj_obj_set(e, "wall_s", vj_new_num(2.5));
    vj_obj_set(e, "cpu_s", vj_new_null());
    vj_obj_set(e, "cpu", vj_new_null());
    vj_node *runs = vj_get(c, "runs"), *last = runs->items[3];
    runs->items[3] = e;
    vj_arr_push(runs, last);
    vj_node *t = vj_get(c, "totals");
    vj_obj_set(t, "runs", vj_new_int(5));
    vj_obj_set(t, "runs_wall_s", vj_new_num(29));
    vj_obj_set(t, "wall_s", vj_new_num(35.5));
    vj_obj_set(t, "machine_hours", vj_new_num(35.5 / 3600));
    vj_node *nr = vj_new_obj(); /* stage-cost.json's argv still gives no price */
    for (size_t i = 0; i < 6; i++)
        vj_obj_set(nr, keys[i], vj_new_null());
    vj_obj_set(nr, "note", vj_new_str("no rented machine given: no price"));
    vj_obj_set(c, "rental", nr);
    write_json("results/cost.json", c);
    vj_free(c);
    expect_study(0, NULL);
}

/* tiny: no records, so every run's source is its run.json: wall_s the
 * whole seconds from start_utc to end_utc (7), exit_code 0 */
Test(study_rules, cost_json_from_run_json_when_no_record, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    char *cmd = vu_xasprintf("rm -rf '%s/provenance/runs'", S_root);
    cr_assert_eq(system(cmd), 0);
    free(cmd);
    cr_assert_eq(syn_write_schedule(S_root, "tiny"), 0);
    put("results/prediction.json", "{\"format\": \"lab-prediction 1\", \"profile\": \"tiny\", \"seconds\": 1, "
                                   "\"rounds\": [1, 2], \"runs\": {}, \"odds\": [], \"sizing\": []}\n");
    vj_node *c = cost_tree(-1);
    vj_node *runs = vj_get(c, "runs");
    for (size_t i = 0; i < runs->n; i++) {
        vj_obj_set(runs->items[i], "source", vj_new_str("results/raw run.json"));
        vj_obj_set(runs->items[i], "wall_s", vj_new_int(7));
    }
    vj_obj_set(vj_get(c, "totals"), "runs_wall_s", vj_new_num(28));
    vj_obj_set(vj_get(c, "totals"), "wall_s", vj_new_num(34.5));
    vj_obj_set(vj_get(c, "totals"), "machine_hours", vj_new_num(34.5 / 3600));
    write_json("results/cost.json", c);
    vj_free(c);
    expect_study(0, NULL);
}

/* verified.json's files: every file read or scanned, sorted by path bytes,
 * verified.json left out, and what make report writes from it afterwards
 * (report.md, report.html, figures/) neither listed nor scanned: an address
 * in them is no finding here (make report scans them), while the same
 * address in another file of results/ is */
Test(study_rules, verified_json_lists_every_file, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    char *ip = vu_xasprintf("%s.%s", "10.20", "30.40");
    char *text = vu_xasprintf("# Report\nfrom %s\n", ip);
    put("results/report.md", text);
    put("results/report.html", text);
    put("results/figures/p99.svg", text);
    put("results/notes.md", "# Notes\n");
    const char *a[] = {"--root", S_root, NULL};
    char *out;
    th_run(&out, a);
    vj_node *v = ts_verified(S_root);
    const vj_node *files = vj_get(v, "files");
    cr_assert(files && files->type == VJ_ARR, "files absent:\n%s", out);
    static const char *const want[] = {"data/design.md", "data/guesses.tsv", "lab/arms.tsv", "pipeline/ap_arms.tsv",
                                       "provenance/manifest-measure.tsv", "provenance/prereg.json",
                                       "provenance/runs/H3-t25-r1.json", "provenance/stage-cost.json",
                                       "results/cost.json", "results/raw/H3-t25-r1/run.json",
                                       "results/raw/H3-t25-r1/tester.tsv.gz", "results/reference/scores.tsv",
                                       "results/notes.md", "results/schedule.tsv"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        int found = 0;
        for (size_t k = 0; k < files->n && !found; k++)
            found = !strcmp(vj_get_str(files->items[k], "path"), want[i]);
        cr_expect(found, "%s not in files", want[i]);
    }
    for (size_t k = 0; k < files->n; k++) {
        const char *p = vj_get_str(files->items[k], "path");
        cr_expect(strcmp(p, "results/verified.json"), "verified.json is listed");
        cr_expect(strcmp(p, "results/report.md") && strcmp(p, "results/report.html") &&
                      strncmp(p, "results/figures", 15),
                  "%s is listed: it is written after the verifier", p);
        if (k)
            cr_expect(strcmp(vj_get_str(files->items[k - 1], "path"), p) < 0, "not in byte order at %s", p);
        if (!strcmp(p, "results/schedule.tsv")) {
            vj_node *e = reg_entry(p);
            cr_expect_str_eq(vj_get_str(files->items[k], "sha256"), vj_get_str(e, "sha256"));
            cr_expect_eq(vj_get(files->items[k], "size")->i, vj_get(e, "size")->i);
            vj_free(e);
        }
    }
    cr_expect_eq(vj_get(vj_get(v, "checks"), "files_listed")->i, (long long)files->n);
    cr_expect(strstr(out, "\n0 FINDINGS\n"), "the report's files were scanned:\n%s", out);
    vj_free(v);
    free(out);
    /* the same address in a file the verifier does vouch for */
    put("results/notes.md", text);
    th_run(&out, a);
    cr_expect(strstr(out, "FINDING results/notes.md") && strstr(out, "\n1 FINDINGS\n"), "%s", out);
    free(out);
    free(text);
    free(ip);
}

/* results/provenance.md (RESULTS.md): required but in tiny, and equal to the
 * text written again from provenance/ */
Test(study_rules, provenance_md_required_and_written_again, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    expect_study(0, NULL); /* written again first, as make provenance would */
    S_keep_md = 1;
    char *p = sp(PM_REL);
    cr_assert_eq(unlink(p), 0);
    free(p);
    static const char *const w1[] = {"MISMATCH results/provenance.md file: lab (absent), verify the provenance for "
                                     "people",
                                     NULL};
    expect_study(1, w1);
    /* a system-log line added to a record after the file was written */
    write_provenance_md();
    vj_node *rec = read_json("provenance/runs/H3-t25-r1.json"), *sl = vj_new_obj(), *lines = vj_new_arr();
    vj_arr_push(lines, vj_new_str("kernel: a line"));
    vj_obj_set(sl, "lines", lines);
    vj_obj_set(rec, "syslog", sl);
    write_json("provenance/runs/H3-t25-r1.json", rec);
    vj_free(rec);
    static const char *const w2[] = {" line: lab (end of file), verify ### System log lines during runs (rendered", NULL};
    expect_study(1, w2);
    S_keep_md = 0;
    expect_study(0, NULL);
}

/* line 1 giving the closed loop its own length C: a run of the closed-loop
 * arm (rate max in the arms file: both arms of this study) lasts C, and so
 * does its record (test_schedule.c: another arm's runs last S) */
Test(study_rules, closed_loop_seconds, .init = s_setup, .fini = s_teardown, .timeout = 60)
{
    build();
    static const char *const LINES = "k\tround\tposition\tarm\n1\t1\t1\tH3-fb25\n2\t1\t2\tH3-t25\n3\t2\t1\tH3-fb25\n"
                                     "4\t2\t2\tH3-t25\n";
    char *t = vu_xasprintf("# lab-schedule 1: profile quick, 2 rounds of 2 arms, 15 s each, closed loop 1 s; for "
                           "people\n%s",
                           LINES);
    put("results/schedule.tsv", t);
    free(t);
    /* the runs and records last 1 s, C: only the prediction's seconds (S) differs */
    static const char *const w1[] = {"MISMATCH results/prediction.json seconds: lab 1, verify 15", NULL};
    expect_study(1, w1);
    edit_run_json("H3-t25-r1", "seconds", vj_new_num(2));
    static const char *const w2[] = {"MISMATCH H3-t25-r1 run.json seconds: lab 2, verify 1 (the schedule's closed loop, "
                                     "results/schedule.tsv line 1: profile quick)",
                                     NULL};
    expect_study(2, w2);
    char *out;
    vj_node *v;
    run_verify(&out, &v);
    const vj_node *c = vj_get(vj_get(vj_get(vj_get(v, "checks"), "study"), "schedule"), "closed_loop_seconds");
    cr_expect(c && c->type == VJ_NUM && c->num == 1, "%s", out);
    vj_free(v);
    free(out);
}
