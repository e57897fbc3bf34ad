/* results/provenance.md written again from provenance/ (pipeline/RESULTS.md,
 * "results/provenance.md: the provenance for people"; src/provmd.[ch]).
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
 * attempt- records included: H3-a-r1.attempt-1's 10:01:00Z.
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
        "{\"run\": \"H3-b-r1\", \"k\": 1, \"start_utc\": \"2026-12-01T10:01:30Z\", \"end_utc\": \"2026-12-01T10:01:50Z\",\n"
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
    "Built with \xe2\x80\x94; libraries: \xe2\x80\x94.\n"
    "\n"
    "### alpha\n"
    "\n"
    "Command: \xe2\x80\x94\n"
    "\n"
    "Built with \xe2\x80\x94; libraries: \xe2\x80\x94.\n"
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
    fflush(f);
    fclose(f);
    unsigned char *b;
    size_t len;
    char err[256];
    cr_assert_eq(vu_read_file(log, &b, &len, err, sizeof err), 0, "%s", err);
    *out = (char *)b;
    unlink(log);
    free(log);
    mm_reset();
    return n;
}

static void expect_line(const char *text, const char *want)
{
    const char *p = text, *q = want;
    long line = 1;
    while (*p && *p == *q) line += *p == '\n', p++, q++;
    cr_expect(!*p && !*q, "the text differs from line %ld on:\n--- rendered:\n%.200s\n--- by hand:\n%.200s", line, p, q);
}

Test(provmd, rendered_as_written_by_hand, .init = p_setup, .fini = p_teardown)
{
    write_provenance();
    pv_records recs;
    pv_load(P_root, &recs);
    vu_buf b = {0};
    pm_render(P_root, &recs, &b);
    vu_buf_add(&b, "", 1);
    expect_line(b.p, WANT);
    vu_buf_free(&b);
    pv_free(&recs);
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

/* an earlier attempt the folder does not hold: named, its line without fields */
Test(provmd, a_missing_earlier_attempt_is_named, .init = p_setup, .fini = p_teardown)
{
    write_provenance();
    char *p = vu_xasprintf("%s/provenance/runs/H3-b-r1.attempt-1.json", P_root);
    cr_assert_eq(unlink(p), 0);
    free(p);
    char *t = vu_xstrdup(WANT), *l = strstr(t, "- H3-b-r1, attempt 1"), *e = strchr(l, '\n');
    vu_buf w = {0};
    vu_buf_add(&w, t, (size_t)(l - t));
    vu_buf_puts(&w, "- \xe2\x80\x94, attempt \xe2\x80\x94, \xe2\x80\x94 to \xe2\x80\x94, exit \xe2\x80\x94: \xe2\x80\x94");
    vu_buf_puts(&w, e);
    put("results/provenance.md", w.p);
    char *out;
    cr_expect_eq(check(1, &out), 1, "%s", out);
    cr_expect(strstr(out, "MISMATCH provenance/runs/H3-b-r1.json earlier_attempts: lab \"H3-b-r1.attempt-1.json\""),
              "%s", out);
    free(out);
    vu_buf_free(&w);
    free(t);
}

/* no stage-measure.json: no machine part; no prereg.json, no runs folder: neither part */
Test(provmd, parts_left_out, .init = p_setup, .fini = p_teardown)
{
    put("provenance/stage-ap.json", "{\"stage\": \"ap\", \"argv\": [\"build/bin/ap\"], \"libraries\": {\"z\": 1}}\n");
    pv_records recs;
    pv_load(P_root, &recs);
    vu_buf b = {0};
    pm_render(P_root, &recs, &b);
    vu_buf_add(&b, "", 1);
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
    expect_line(b.p, want);
    free(want);
    vu_buf_free(&b);
    pv_free(&recs);
}
