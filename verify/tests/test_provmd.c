/* results/provenance.md written again from provenance/ (pipeline/RESULTS.md,
 * "results/provenance.md: the provenance for people"; src/prov/provmd.[ch]).
 *
 * A hand-made provenance/ folder: four stage records (prepare, measure,
 * cost, and "alpha", another stage, whose fields are null or missing), a
 * prereg.json and the records of two runs, one measured on its second
 * attempt and one failed on its third, with an earlier attempt each.  The
 * text below is written by hand from the rules.  Its numbers, worked out
 * with python3's % (C's printf rounding of the binary value):
 *   wall 2.55 -> "2.5" (2.5499999...), CPU 1.25 + 0.2 -> "1.4" (the sum is
 *   1.44999999...), 600.25 -> "600.2" (a tie: to even), 0.5 + 0.125 ->
 *   "0.6", memory 24683652 / 1048576 = 23.54 -> "23.5", gate idle 100 x
 *   0.987 -> "98.7", steal 100 x 0.00125 -> "0.12", lateness 0.5125 ->
 *   "0.512", 3.25 -> "3.250".
 * The first run started at the earliest start_utc of every record, the
 * attempt- records included: H3-a-r1.attempt-1's 10:01:00Z.  Missing or
 * null lists and objects count as empty (cost's libraries null and alpha's
 * missing: "libraries: none."; alpha's missing argv: two backticks);
 * H3-b-r1.attempt-1 has no k (only a run record needs one).
 * The cases after the first change one thing each: no prediction, no
 * reasons, no run record, the order of other stages, values written as
 * they are, and malformed records (named, nothing compared).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mism.h"
#include "provmd.h"
#include "records.h"
#include "synth.h"
#include "thelp.h"
#include "vutil.h"

static char *P_root;

static void p_setup(void)
{
    P_root = th_tmpdir();
    cr_assert(P_root);
}

static void p_teardown(void)
{
    th_rmrf(P_root);
    free(P_root);
}

static void put(const char *rel, const char *text)
{
    char *p = vu_xasprintf("%s/%s", P_root, rel), *d = vu_xstrdup(p);
    *strrchr(d, '/') = 0;
    cr_assert_eq(syn_mkdirs(d), 0);
    cr_assert_eq(syn_write_text(p, text), 0);
    free(d);
    free(p);
}

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define SHA_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define SHA_D "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"

static void write_provenance(void)
{
    put("provenance/stage-prepare.json",
        "{\"stage\": \"prepare\", \"argv\": [\"build/bin/prepare\", \"--prep\", \"build/prep\"],\n"
        " \"start_utc\": \"2026-12-01T10:00:00Z\", \"end_utc\": \"2026-12-01T10:00:03Z\", \"exit_code\": 0,\n"
        " \"wall_s\": 2.55, \"cpu_user_s\": 1.25, \"cpu_sys_s\": 0.2,\n"
        " \"build\": {\"compiler\": \"gcc 12.2.0\", \"cflags\": \"-O2\", \"git_commit\": "
        "\"0123456789abcdef0123456789abcdef01234567\", \"git_dirty\": false},\n"
        " \"libraries\": {\"zlib\": \"1.2.13\", \"openssl\": \"OpenSSL 3.0.19\", \"jansson\": \"2.14\"},\n"
        " \"inputs\": [{\"path\": \"data/guesses.tsv\", \"size\": 10489, \"sha256\": \"" SHA_A "\"}],\n"
        " \"outputs\": [{\"path\": \"build/prep/a|b.tsv\", \"size\": 12, \"sha256\": \"" SHA_B "\"}]}\n");
    put("provenance/stage-measure.json",
        "{\"stage\": \"measure\", \"argv\": [\"build/bin/measure\", \"--note\", \"a`b\"],\n"
        " \"start_utc\": \"2026-12-01T10:00:30Z\", \"end_utc\": \"2026-12-01T10:10:30Z\", \"exit_code\": 0,\n"
        " \"wall_s\": 600.25, \"cpu_user_s\": 0.5, \"cpu_sys_s\": 0.125,\n"
        " \"build\": {\"compiler\": \"gcc 12.2.0\", \"git_commit\": \"fedcba9876543210fedcba9876543210fedcba98\", "
        "\"git_dirty\": true},\n"
        " \"libraries\": {}, \"inputs\": [], \"outputs\": [],\n"
        " \"host\": {\"arch\": \"x86_64\", \"cpu_model\": \"AMD EPYC\", \"cpus_online\": 2, \"kernel\": \"6.18.44\",\n"
        "          \"mem_total_kb\": 24683652, \"os\": \"Linux\"}}\n");
    put("provenance/stage-cost.json",
        "{\"stage\": \"cost\", \"argv\": [\"build/bin/cost\", \"--root\", \".\"], \"start_utc\": \"2026-12-01T10:12:00Z\",\n"
        " \"end_utc\": \"2026-12-01T10:12:01Z\", \"exit_code\": 1, \"wall_s\": 0.5, \"cpu_user_s\": 0, \"cpu_sys_s\": 0,\n"
        " \"build\": {\"compiler\": null, \"git_commit\": \"abc\"}, \"libraries\": null}\n");
    put("provenance/stage-alpha.json", "{\"stage\": \"alpha\", \"wall_s\": null}\n");
    put("provenance/prereg.json",
        "{\"registered_utc\": \"2026-12-01T10:00:02Z\",\n"
        " \"files\": [{\"path\": \"data/guesses.tsv\", \"sha256\": \"" SHA_A "\", \"size\": 10489},\n"
        "           {\"path\": \"data/design.md\", \"sha256\": \"" SHA_C "\", \"size\": 2383}],\n"
        " \"prediction\": {\"path\": \"results/prediction.json\", \"sha256\": \"" SHA_D "\", \"size\": 33395,\n"
        "                \"registered_utc\": \"2026-12-01T10:00:40Z\"}}\n");
    put("provenance/runs/H3-a-r1.json",
        "{\"run\": \"H3-a-r1\", \"arm\": \"H3-a\", \"round\": 1, \"k\": 2, \"profile\": \"quick\", \"seconds\": 15,\n"
        " \"argv\": [\"build/bin/run\"], \"start_utc\": \"2026-12-01T10:05:00Z\", \"end_utc\": \"2026-12-01T10:06:00Z\",\n"
        " \"wall_s\": 60, \"exit_code\": 0, \"gate\": 1, \"gate_passed\": true, \"attempt\": 2,\n"
        " \"earlier_attempts\": [\"H3-a-r1.attempt-1.json\"], \"machine\": \"local\",\n"
        " \"idle\": {\"idle_share\": 0.987, \"steal_share\": 0.001, \"enabled\": true, \"passed\": true},\n"
        " \"quiet\": {\"quiet\": true, \"rules\": [], \"steal_share\": 0.00125, \"late_p99_ms\": 0.5125,\n"
        "           \"late_max_ms\": 3.25, \"reasons\": []},\n"
        " \"syslog\": {\"lines\": [\"kernel: eth0 `up`\", \"second line\"]}, \"run_output\": []}\n");
    put("provenance/runs/H3-a-r1.attempt-1.json",
        "{\"run\": \"H3-a-r1\", \"k\": 2, \"start_utc\": \"2026-12-01T10:01:00Z\", \"end_utc\": "
        "\"2026-12-01T10:01:40Z\",\n"
        " \"exit_code\": 0, \"attempt\": 1, \"earlier_attempts\": [], \"machine\": \"local\",\n"
        " \"quiet\": {\"quiet\": false, \"reasons\": [\"steal over the limit\", \"late\"]},\n"
        " \"syslog\": {\"lines\": [\"not shown: an earlier attempt's\"]}}\n");
    put("provenance/runs/H3-b-r1.json",
        "{\"run\": \"H3-b-r1\", \"k\": 1, \"start_utc\": \"2026-12-01T10:02:00Z\", \"end_utc\": \"2026-12-01T10:04:00Z\",\n"
        " \"exit_code\": 4, \"attempt\": 3, \"machine\": \"local\", \"idle\": null,\n"
        " \"reason\": \"the store died | twice\", \"earlier_attempts\": [\"H3-b-r1.attempt-1.json\"],\n"
        " \"syslog\": {\"lines\": []}}\n");
    put("provenance/runs/H3-b-r1.attempt-1.json",
        "{\"run\": \"H3-b-r1\", \"start_utc\": \"2026-12-01T10:01:30Z\", \"end_utc\": \"2026-12-01T10:01:50Z\",\n"
        " \"exit_code\": 3, \"attempt\": 1, \"reason\": \"the idle gate never passed\", \"idle\": null}\n");
}

/* the whole text, by hand from the rules */
static const char *const WANT =
    "# Provenance of this study\n"
    "\n"
    "Written by `make provenance` from the files under\n"
    "`provenance/`; the verifier writes it again from them and finds it\n"
    "equal.  Times are UTC; commands as recorded, secrets masked.\n"
    "\n"
    "## The machine\n"
    "\n"
    "AMD EPYC, 2 CPUs, 23.5 GiB of memory, Linux 6.18.44 (x86_64).\n"
    "\n"
    "## Stages\n"
    "\n"
    "| stage | start | end | wall s | CPU s | exit | commit | tree |\n"
    "|---|---|---|---:|---:|---:|---|---|\n"
    "| prepare | 2026-12-01T10:00:00Z | 2026-12-01T10:00:03Z | 2.5 | 1.4 | 0 | 0123456789ab | clean |\n"
    "| measure | 2026-12-01T10:00:30Z | 2026-12-01T10:10:30Z | 600.2 | 0.6 | 0 | fedcba987654 | dirty |\n"
    "| cost | 2026-12-01T10:12:00Z | 2026-12-01T10:12:01Z | 0.5 | 0.0 | 1 | abc | \xe2\x80\x94 |\n"
    "| alpha | \xe2\x80\x94 | \xe2\x80\x94 | \xe2\x80\x94 | \xe2\x80\x94 | \xe2\x80\x94 | \xe2\x80\x94 | \xe2\x80\x94 |\n"
    "\n"
    "### prepare\n"
    "\n"
    "Command: `build/bin/prepare --prep build/prep`\n"
    "\n"
    "Built with gcc 12.2.0; libraries: jansson 2.14, openssl OpenSSL 3.0.19, zlib 1.2.13.\n"
    "\n"
    "| input | bytes | sha256 |\n"
    "|---|---:|---|\n"
    "| `data/guesses.tsv` | 10489 | " SHA_A " |\n"
    "\n"
    "| output | bytes | sha256 |\n"
    "|---|---:|---|\n"
    "| `build/prep/a\\|b.tsv` | 12 | " SHA_B " |\n"
    "\n"
    "### measure\n"
    "\n"
    "Command: `build/bin/measure --note a'b`\n"
    "\n"
    "Built with gcc 12.2.0; libraries: none.\n"
    "\n"
    "### cost\n"
    "\n"
    "Command: `build/bin/cost --root .`\n"
    "\n"
    "Built with \xe2\x80\x94; libraries: none.\n"
    "\n"
    "### alpha\n"
    "\n"
    "Command: ``\n"
    "\n"
    "Built with \xe2\x80\x94; libraries: none.\n"
    "\n"
    "## Preregistration\n"
    "\n"
    "Registered 2026-12-01T10:00:02Z; the prediction 2026-12-01T10:00:40Z; the first run started "
    "2026-12-01T10:01:00Z.\n"
    "\n"
    "| file | bytes | sha256 |\n"
    "|---|---:|---|\n"
    "| `data/guesses.tsv` | 10489 | " SHA_A " |\n"
    "| `data/design.md` | 2383 | " SHA_C " |\n"
    "| `results/prediction.json` | 33395 | " SHA_D " |\n"
    "\n"
    "## Runs\n"
    "\n"
    "| run | machine | attempts | start | end | gate idle % | steal % | lateness p99 ms | lateness max ms | quiet |\n"
    "|---|---|---:|---|---|---:|---:|---:|---:|---|\n"
    "| H3-b-r1 | local | 3 | 2026-12-01T10:02:00Z | 2026-12-01T10:04:00Z | \xe2\x80\x94 | \xe2\x80\x94 | "
    "\xe2\x80\x94 | \xe2\x80\x94 | failed (exit 4): the store died \\| twice |\n"
    "| H3-a-r1 | local | 2 | 2026-12-01T10:05:00Z | 2026-12-01T10:06:00Z | 98.7 | 0.12 | 0.512 | 3.250 | yes |\n"
    "\n"
    "### Measured again\n"
    "\n"
    "- H3-b-r1, attempt 1, 2026-12-01T10:01:30Z to 2026-12-01T10:01:50Z, exit 3: the idle gate never passed\n"
    "- H3-a-r1, attempt 1, 2026-12-01T10:01:00Z to 2026-12-01T10:01:40Z, exit 0: steal over the limit; late\n"
    "\n"
    "### System log lines during runs\n"
    "\n"
    "- H3-a-r1: `kernel: eth0 'up'`\n"
    "- H3-a-r1: `second line`\n"
    "\n";

/* pm_check's mismatches: their count, the output in *out (freed by the caller) */
static long check(int enforce, char **out)
{
    char *log = vu_xasprintf("%s/mm.log", P_root);
    FILE *f = fopen(log, "w+");
    cr_assert(f);
    mm_reset();
    mm_init(f, 0);
    pv_records recs;
    pv_load(P_root, &recs);
    vj_node *o = pm_check(P_root, &recs, enforce);
    long n = mm_count();
    vj_free(o);
    pv_free(&recs);
    mm_reset(); /* before fclose: a later mm_add (pv_load in render) must not write to the closed f */
    fclose(f);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(log, &b, &len, err, sizeof err), 0, "%s", err);
    *out = (char *)b;
    unlink(log);
    free(log);
    return n;
}

static void expect_line(const char *text, const char *want)
{
    const char *p = text, *q = want;
    long line = 1;
    while (*p && *p == *q)
        line += *p == '\n', p++, q++;
    cr_expect(!*p && !*q, "the text differs from line %ld on:\n--- rendered:\n%.200s\n--- by hand:\n%.200s", line, p, q);
}

/* the text pm_render gives (0 when well-formed), in *text (freed by the caller) */
static int render(char **text)
{
    pv_records recs;
    pm_bad bad;
    pv_load(P_root, &recs);
    vu_buf b = {0};
    int rc = pm_render(P_root, &recs, &b, &bad);
    vu_buf_add(&b, "", 1);
    pv_free(&recs);
    *text = b.p;
    return rc;
}

/* text with its one occurrence of old made new (freed by the caller) */
static char *swap(const char *text, const char *old, const char *new)
{
    const char *at = strstr(text, old);
    cr_assert(at, "not in the text: %s", old);
    cr_assert(!strstr(at + 1, old), "twice in the text: %s", old);
    return vu_xasprintf("%.*s%s%s", (int)(at - text), text, new, at + strlen(old));
}

/* the rendering equals want */
static void expect_render(const char *want)
{
    char *t;
    cr_expect_eq(render(&t), 0);
    expect_line(t, want);
    free(t);
}

Test(provmd, rendered_as_written_by_hand, .init = p_setup, .fini = p_teardown)
{
    write_provenance();
    expect_render(WANT);
}

Test(provmd, the_file_equal_then_one_cell_changed, .init = p_setup, .fini = p_teardown)
{
    write_provenance();
    put("results/provenance.md", WANT);
    char *out;
    cr_expect_eq(check(1, &out), 0, "%s", out);
    free(out);
    /* the gate's idle share of H3-a-r1 (line 67), 98.7 made 98.8 */
    char *t = vu_xstrdup(WANT), *c = strstr(t, "| 98.7 |");
    cr_assert(c);
    c[5] = '8';
    put("results/provenance.md", t);
    cr_expect_eq(check(1, &out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH results/provenance.md:67 line: lab | H3-a-r1 | local | 2 | 2026-12-01T10:05:00Z "
                          "| 2026-12-01T10:06:00Z | 98.8 | 0.12 |"),
              "%s", out);
    cr_expect(strstr(out, ", verify | H3-a-r1 | local | 2 | 2026-12-01T10:05:00Z | 2026-12-01T10:06:00Z | 98.7 |"),
              "%s", out);
    free(out);
    /* the final empty line missing: the file ends where the text has one more line */
    t[5 + (c - t)] = '7';
    t[strlen(t) - 1] = 0;
    put("results/provenance.md", t);
    cr_expect_eq(check(1, &out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH results/provenance.md:78 line: lab (end of file), verify (an empty line)"), "%s",
              out);
    free(out);
    free(t);
}

Test(provmd, missing_file_a_mismatch_unless_tiny, .init = p_setup, .fini = p_teardown)
{
    write_provenance();
    char *out;
    cr_expect_eq(check(1, &out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH results/provenance.md file: lab (absent)"), "%s", out);
    free(out);
    cr_expect_eq(check(0, &out), 0, "%s", out);
    free(out);
}

/* no prediction in prereg.json (missing or null): no row for it, its time "—" */
Test(provmd, no_prediction_no_row, .init = p_setup, .fini = p_teardown)
{
    write_provenance();
    char *a = swap(WANT, "| `results/prediction.json` | 33395 | " SHA_D " |\n", "");
    char *want = swap(a, "the prediction 2026-12-01T10:00:40Z;", "the prediction \xe2\x80\x94;");
    const char *prereg[] = {"", ",\n \"prediction\": null"};
    for (int i = 0; i < 2; i++) {
        char *t = vu_xasprintf("{\"registered_utc\": \"2026-12-01T10:00:02Z\",\n"
                               " \"files\": [{\"path\": \"data/guesses.tsv\", \"sha256\": \"" SHA_A "\", \"size\": 10489},\n"
                               " {\"path\": \"data/design.md\", \"sha256\": \"" SHA_C "\", \"size\": 2383}]%s}\n",
                               prereg[i]);
        put("provenance/prereg.json", t);
        expect_render(want);
        free(t);
    }
    free(want);
    free(a);
}

/* an earlier attempt with exit 0 and no reasons (an empty list, no quiet): "—" */
Test(provmd, attempt_without_reasons_a_dash, .init = p_setup, .fini = p_teardown)
{
    write_provenance();
    char *want = swap(WANT, "exit 0: steal over the limit; late\n", "exit 0: \xe2\x80\x94\n");
    const char *quiet[] = {"\"quiet\": {\"quiet\": false, \"reasons\": []}", "\"quiet\": null", "\"gate\": 1"};
    for (int i = 0; i < 3; i++) {
        char *t = vu_xasprintf("{\"run\": \"H3-a-r1\", \"k\": 2, \"start_utc\": \"2026-12-01T10:01:00Z\", \"end_utc\": "
                               "\"2026-12-01T10:01:40Z\", \"exit_code\": 0, \"attempt\": 1, %s}\n",
                               quiet[i]);
        put("provenance/runs/H3-a-r1.attempt-1.json", t);
        expect_render(want);
        free(t);
    }
    free(want);
}

/* no run record: the first run started "—" (an empty runs folder: an empty table) */
Test(provmd, no_run_record_first_run_a_dash, .init = p_setup, .fini = p_teardown)
{
    write_provenance();
    char *p = vu_xasprintf("%s/" PV_DIR, P_root);
    th_rmrf(p);
    char *a = swap(WANT, "the first run started 2026-12-01T10:01:00Z.", "the first run started \xe2\x80\x94.");
    char *want = vu_xstrdup(a);
    *strstr(want, "## Runs") = 0;
    expect_render(want);
    cr_assert_eq(syn_mkdirs(p), 0);
    *strstr(a, "| H3-b-r1 |") = 0;
    vu_buf w = {0};
    vu_buf_puts(&w, a);
    vu_buf_puts(&w, "\n");
    expect_render(w.p);
    vu_buf_free(&w);
    free(want);
    free(a);
    free(p);
}

/* other stages in byte order of <s> (B a a-b), not of the file names
 * (stage-B stage-a-b stage-a: '-' sorts before '.'); null or empty argv,
 * build, libraries, inputs and outputs count as empty */
Test(provmd, other_stages_by_s_and_empty_lists, .init = p_setup, .fini = p_teardown)
{
    put("provenance/stage-a.json", "{\"stage\": \"a\", \"argv\": [], \"build\": null, \"libraries\": {},"
                                   " \"inputs\": null, \"outputs\": []}\n");
    put("provenance/stage-a-b.json", "{\"stage\": \"a-b\", \"argv\": null, \"libraries\": null}\n");
    put("provenance/stage-B.json", "{\"stage\": \"B\", \"argv\": [\"x\"], \"libraries\": {\"b\": null, \"B\": \"2\","
                                   " \"a\": \"1\"}}\n");
    const char *d = "\xe2\x80\x94";
    char *want = vu_xasprintf("# Provenance of this study\n\n"
                              "Written by `make provenance` from the files under\n"
                              "`provenance/`; the verifier writes it again from them and finds it\n"
                              "equal.  Times are UTC; commands as recorded, secrets masked.\n\n"
                              "## Stages\n\n"
                              "| stage | start | end | wall s | CPU s | exit | commit | tree |\n"
                              "|---|---|---|---:|---:|---:|---|---|\n"
                              "| B | %s | %s | %s | %s | %s | %s | %s |\n"
                              "| a | %s | %s | %s | %s | %s | %s | %s |\n"
                              "| a-b | %s | %s | %s | %s | %s | %s | %s |\n\n"
                              "### B\n\nCommand: `x`\n\nBuilt with %s; libraries: B 2, a 1, b %s.\n\n"
                              "### a\n\nCommand: ``\n\nBuilt with %s; libraries: none.\n\n"
                              "### a-b\n\nCommand: ``\n\nBuilt with %s; libraries: none.\n\n",
                              d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d);
    expect_render(want);
    free(want);
}

/* a value with no format as it is: an integer in decimal ("-0" is 0), a
 * string's characters (a trailing space kept); the commit's first 12
 * characters, not bytes */
Test(provmd, values_as_they_are, .init = p_setup, .fini = p_teardown)
{
    put("provenance/stage-ap.json",
        "{\"stage\": \"ap \", \"exit_code\": -0, \"argv\": [\"build/bin/ap\"], \"libraries\": {\"z\": \"1\"},\n"
        " \"build\": {\"git_commit\": \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9x\"},\n"
        " \"outputs\": [{\"path\": \"results/ap.json\", \"size\": 12345678901234, \"sha256\": null}]}\n");
    const char *d = "\xe2\x80\x94";
    char *want = vu_xasprintf("# Provenance of this study\n\n"
                              "Written by `make provenance` from the files under\n"
                              "`provenance/`; the verifier writes it again from them and finds it\n"
                              "equal.  Times are UTC; commands as recorded, secrets masked.\n\n"
                              "## Stages\n\n"
                              "| stage | start | end | wall s | CPU s | exit | commit | tree |\n"
                              "|---|---|---|---:|---:|---:|---|---|\n"
                              "| ap  | %s | %s | %s | %s | 0 | "
                              "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                              "\xc3\xa9 | %s |\n\n"
                              "### ap \n\nCommand: `build/bin/ap`\n\nBuilt with %s; libraries: z 1.\n\n"
                              "| output | bytes | sha256 |\n|---|---:|---|\n"
                              "| `results/ap.json` | 12345678901234 | %s |\n\n",
                              d, d, d, d, d, d, d);
    expect_render(want);
    free(want);
}

/* a malformed record: one mismatch naming the file and the field, the
 * text (equal or not) not compared */
Test(provmd, malformed_named_not_compared, .init = p_setup, .fini = p_teardown)
{
    static const struct {
        const char *file, *text, *named;
    } cases[] = {
        /* the last case's record is named by records.c too (a second mismatch) */
        {"provenance/stage-alpha.json", "{\"stage\": \"alpha\", \"wall_s\": \"2.55\"}",
         "provenance/stage-alpha.json wall_s: lab \"2.55\", verify a number"},
        {"provenance/stage-alpha.json", "{\"stage\": \"alpha\", \"exit_code\": 1e0}",
         "provenance/stage-alpha.json exit_code: lab 1e0, verify an integer"},
        {"provenance/stage-alpha.json", "{\"stage\": \"alpha\", \"inputs\": [{\"path\": \"x\", \"size\": 10489.0}]}",
         "provenance/stage-alpha.json inputs[0].size: lab 10489.0, verify an integer"},
        {"provenance/stage-alpha.json", "{\"stage\": \"alpha\", \"argv\": [\"a\", null]}",
         "provenance/stage-alpha.json argv[1]: lab null, verify a string"},
        {"provenance/stage-alpha.json", "{\"stage\": \"alpha\", \"libraries\": {\"z\": 1}}",
         "provenance/stage-alpha.json libraries.z: lab 1, verify a string"},
        {"provenance/stage-alpha.json", "{\"stage\": \"alpha\"", "provenance/stage-alpha.json record: lab not JSON"},
        {"provenance/stage-measure.json", "{\"stage\": \"measure\", \"host\": \"x\"}",
         "provenance/stage-measure.json host: lab \"x\", verify an object"},
        {"provenance/prereg.json", "{\"registered_utc\": 5}", "provenance/prereg.json registered_utc: lab 5, verify a string"},
        {"provenance/runs/H3-c-r1.json", "{\"run\": \"H3-c-r1\", \"k\": null}",
         "provenance/runs/H3-c-r1.json k: lab null, verify an integer"},
        {"provenance/runs/H3-c-r1.json", "{\"run\": \"H3-c-r1\", \"k\": 3, \"earlier_attempts\": [\"H3-c-r1.attempt-1.json\"]}",
         "provenance/runs/H3-c-r1.json earlier_attempts[0]: lab \"H3-c-r1.attempt-1.json\", verify the file name of a record"},
        {"provenance/runs/H3-b-r1.attempt-1.json", "{\"run\": \"H3-b-r1\", \"exit_code\": 3, \"reason\": [\"x\"]}",
         "provenance/runs/H3-b-r1.attempt-1.json reason: lab "},
        {"provenance/runs/H3-a-r1.attempt-1.json", "{\"exit_code\": 0, \"quiet\": {\"reasons\": \"late\"}}",
         "provenance/runs/H3-a-r1.attempt-1.json quiet.reasons: lab \"late\", verify a list"},
        {"provenance/runs/H3-c-r1.json", "[3]", "provenance/runs/H3-c-r1.json record: lab not a JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_provenance();
        put("results/provenance.md", WANT);
        put(cases[i].file, cases[i].text);
        char *t, *out;
        cr_expect_eq(render(&t), -1, "%s", cases[i].file);
        free(t);
        cr_expect_eq(check(1, &out), 1 + (i + 1 == sizeof cases / sizeof cases[0]), "%s", out);
        char *m = vu_xasprintf("MISMATCH %s", cases[i].named);
        cr_expect(strstr(out, m), "%s\nnot in:\n%s", m, out);
        cr_expect(strstr(out, "a malformed record; results/provenance.md not compared"), "%s", out);
        free(m);
        free(out);
        th_rmrf(P_root);
        cr_assert_eq(syn_mkdirs(P_root), 0);
    }
}

/* no stage-measure.json: no machine part; no prereg.json, no runs folder: neither part */
Test(provmd, parts_left_out, .init = p_setup, .fini = p_teardown)
{
    put("provenance/stage-ap.json", "{\"stage\": \"ap\", \"argv\": [\"build/bin/ap\"], \"libraries\": {\"z\": \"1\"}}\n");
    const char *d = "\xe2\x80\x94";
    char *want = vu_xasprintf("# Provenance of this study\n\n"
                              "Written by `make provenance` from the files under\n"
                              "`provenance/`; the verifier writes it again from them and finds it\n"
                              "equal.  Times are UTC; commands as recorded, secrets masked.\n\n"
                              "## Stages\n\n"
                              "| stage | start | end | wall s | CPU s | exit | commit | tree |\n"
                              "|---|---|---|---:|---:|---:|---|---|\n"
                              "| ap | %s | %s | %s | %s | %s | %s | %s |\n\n"
                              "### ap\n\nCommand: `build/bin/ap`\n\nBuilt with %s; libraries: z 1.\n\n",
                              d, d, d, d, d, d, d, d);
    expect_render(want);
    free(want);
}
