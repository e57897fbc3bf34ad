/* results/provenance.md (pipeline/provmd/provmd.h): a small provenance folder
 * written by hand, and its provenance.md written by hand from the rules of
 * pipeline/RESULTS.md, compared whole; malformed records refused, naming
 * the file and the field, with nothing written. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "provmd.h"
#include "tsh.h"
#include "util.h"

static void put(const char *dir, const char *name, const char *text)
{
    char path[512], err[UT_ERRLEN];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(ut_write_file(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

/* Two stages (their files in another byte order than the rules' order),
 * the preregistration, and three runs in k order H4-r2-r1 (quiet; a
 * system log line with a backtick and a '|'), F3-none-r1 (measured again:
 * its attempt 1 was disturbed for two reasons), A-dead-r1 (the idle gate
 * never passed; its reason holds a '|'). */
static void fixture(const char *root)
{
    char prov[256], runs[300];
    snprintf(prov, sizeof prov, "%s/provenance", root);
    snprintf(runs, sizeof runs, "%s/runs", prov);
    cr_assert_eq(shf("mkdir -p %s", runs), 0);
    put(prov, "stage-prepare.json",
        "{\"stage\": \"prepare\", \"argv\": [\"build/bin/prepare\", \"--prep\", \"build/prep\", \"--prov\", "
        "\"./provenance\", \"--data\", \"data\"],"
        " \"build\": {\"compiler\": \"gcc 12.2.0\", \"git_commit\": \"0123456789abcdef0123456789abcdef01234567\","
        " \"git_dirty\": true},"
        " \"cpu_sys_s\": 0.124022, \"cpu_user_s\": 0.952059, \"wall_s\": 1.109921719, \"exit_code\": 0,"
        " \"start_utc\": \"2026-12-01T10:00:00Z\", \"end_utc\": \"2026-12-01T10:00:01Z\","
        " \"libraries\": {\"zlib\": \"1.2.13\", \"jansson\": \"2.14\"},"
        " \"inputs\": [{\"path\": \"data/shop.csv\", \"sha256\": \"aa11\", \"size\": 845}],"
        " \"outputs\": [{\"path\": \"build/prep/test.tsv\", \"sha256\": \"bb22\", \"size\": 100},"
        " {\"path\": \"build/prep/model.json\", \"sha256\": \"cc33\", \"size\": 200}]}");
    put(prov, "stage-measure.json",
        "{\"stage\": \"measure\", \"argv\": [\"build/bin/measure\", \"--profile\", \"full\", \"--note\", \"it`s\"],"
        " \"build\": {\"compiler\": \"gcc 12.2.0\", \"git_commit\": \"fedcba9876543210fedcba9876543210fedcba98\","
        " \"git_dirty\": false},"
        " \"cpu_sys_s\": 0.250878, \"cpu_user_s\": 0.62017, \"wall_s\": 2312.023094859, \"exit_code\": 0,"
        " \"start_utc\": \"2026-12-01T10:01:00Z\", \"end_utc\": \"2026-12-01T10:40:00Z\","
        " \"host\": {\"arch\": \"x86_64\", \"cpu_model\": \"AMD EPYC\", \"cpus_online\": 2, \"kernel\": \"6.1.0\","
        " \"mem_total_kb\": 24683652, \"os\": \"Linux\"},"
        " \"libraries\": {}, \"inputs\": [],"
        " \"outputs\": [{\"path\": \"results/schedule.tsv\", \"sha256\": \"dd44\", \"size\": 300}]}");
    put(prov, "prereg.json",
        "{\"registered_utc\": \"2026-12-01T09:59:00Z\","
        " \"files\": [{\"path\": \"data/guesses.tsv\", \"sha256\": \"ee55\", \"size\": 10489},"
        " {\"path\": \"lab/arms.tsv\", \"sha256\": \"ff66\", \"size\": 4788}],"
        " \"prediction\": {\"path\": \"results/prediction.json\", \"sha256\": \"1177\", \"size\": 13294,"
        " \"registered_utc\": \"2026-12-01T10:00:30Z\"}}");
    put(runs, "H4-r2-r1.json",
        "{\"run\": \"H4-r2-r1\", \"k\": 1, \"machine\": \"local\", \"attempt\": 1, \"earlier_attempts\": [],"
        " \"argv\": [\"build/bin/run\"], \"start_utc\": \"2026-12-01T10:01:40Z\", \"end_utc\": "
        "\"2026-12-01T10:02:15Z\", \"exit_code\": 0,"
        " \"idle\": {\"idle_share\": 0.987, \"steal_share\": 0.0},"
        " \"quiet\": {\"quiet\": true, \"reasons\": [], \"steal_share\": 0.00123, \"late_p99_ms\": 0.16473,"
        " \"late_max_ms\": 2.8111},"
        " \"syslog\": {\"lines\": [\"[123.4] kernel: a `quoted` word | and a pipe\"], \"source\": \"dmesg\"}}");
    put(runs, "F3-none-r1.attempt-1.json",
        "{\"run\": \"F3-none-r1\", \"k\": 2, \"machine\": \"local\", \"attempt\": 1, \"earlier_attempts\": [],"
        " \"start_utc\": \"2026-12-01T10:01:05Z\", \"end_utc\": \"2026-12-01T10:01:39Z\", \"exit_code\": 0,"
        " \"idle\": {\"idle_share\": 0.99},"
        " \"quiet\": {\"quiet\": false, \"reasons\": [\"tester lateness max 55.463 ms, above 25.000 ms\","
        " \"others took 39% of the measured cores in one second, above 20%\"], \"steal_share\": 0.0,"
        " \"late_p99_ms\": 0.2, \"late_max_ms\": 55.463},"
        " \"syslog\": {\"lines\": [\"an attempt's line is not shown\"], \"source\": \"dmesg\"}}");
    put(runs, "F3-none-r1.json",
        "{\"run\": \"F3-none-r1\", \"k\": 2, \"machine\": \"local\", \"attempt\": 2,"
        " \"earlier_attempts\": [\"F3-none-r1.attempt-1.json\"],"
        " \"start_utc\": \"2026-12-01T10:02:15Z\", \"end_utc\": \"2026-12-01T10:02:50Z\", \"exit_code\": 0,"
        " \"idle\": {\"idle_share\": 0.9951},"
        " \"quiet\": {\"quiet\": true, \"reasons\": [], \"steal_share\": 0.0, \"late_p99_ms\": 0.1,"
        " \"late_max_ms\": 3.0},"
        " \"syslog\": {\"lines\": [], \"source\": \"dmesg\"}}");
    put(runs, "A-dead-r1.json",
        "{\"run\": \"A-dead-r1\", \"k\": 3, \"machine\": \"local\", \"attempt\": 1, \"earlier_attempts\": [],"
        " \"start_utc\": \"2026-12-01T10:02:50Z\", \"end_utc\": \"2026-12-01T10:03:52Z\", \"exit_code\": 3,"
        " \"idle\": null, \"reason\": \"idle gate: 61% idle | wanted 95%\","
        " \"syslog\": {\"lines\": [], \"source\": \"none\", \"note\": \"no system log\"}}");
}

static const char EXPECTED[] =
    "# Provenance of this study\n"
    "\n"
    "Written by `make provenance` from the files under\n"
    "`provenance/`; the verifier writes it again from them and finds it\n"
    "equal.  Times are UTC; commands as recorded, secrets masked.\n"
    "\n"
    "## The machine\n"
    "\n"
    "AMD EPYC, 2 CPUs, 23.5 GiB of memory, Linux 6.1.0 (x86_64).\n"
    "\n"
    "## Stages\n"
    "\n"
    "| stage | start | end | wall s | CPU s | exit | commit | tree |\n"
    "|---|---|---|---:|---:|---:|---|---|\n"
    "| prepare | 2026-12-01T10:00:00Z | 2026-12-01T10:00:01Z | 1.1 | 1.1 | 0 | 0123456789ab | dirty |\n"
    "| measure | 2026-12-01T10:01:00Z | 2026-12-01T10:40:00Z | 2312.0 | 0.9 | 0 | fedcba987654 | clean |\n"
    "\n"
    "### prepare\n"
    "\n"
    "Command: `build/bin/prepare --prep build/prep --prov ./provenance --data data`\n"
    "\n"
    "Built with gcc 12.2.0; libraries: jansson 2.14, zlib 1.2.13.\n"
    "\n"
    "| input | bytes | sha256 |\n"
    "|---|---:|---|\n"
    "| `data/shop.csv` | 845 | aa11 |\n"
    "\n"
    "| output | bytes | sha256 |\n"
    "|---|---:|---|\n"
    "| `build/prep/test.tsv` | 100 | bb22 |\n"
    "| `build/prep/model.json` | 200 | cc33 |\n"
    "\n"
    "### measure\n"
    "\n"
    "Command: `build/bin/measure --profile full --note it's`\n"
    "\n"
    "Built with gcc 12.2.0; libraries: none.\n"
    "\n"
    "| output | bytes | sha256 |\n"
    "|---|---:|---|\n"
    "| `results/schedule.tsv` | 300 | dd44 |\n"
    "\n"
    "## Preregistration\n"
    "\n"
    "Registered 2026-12-01T09:59:00Z; the prediction 2026-12-01T10:00:30Z; the first run started "
    "2026-12-01T10:01:05Z.\n"
    "\n"
    "| file | bytes | sha256 |\n"
    "|---|---:|---|\n"
    "| `data/guesses.tsv` | 10489 | ee55 |\n"
    "| `lab/arms.tsv` | 4788 | ff66 |\n"
    "| `results/prediction.json` | 13294 | 1177 |\n"
    "\n"
    "## Runs\n"
    "\n"
    "| run | machine | attempts | start | end | gate idle % | steal % | lateness p99 ms | lateness max ms | quiet |\n"
    "|---|---|---:|---|---|---:|---:|---:|---:|---|\n"
    "| H4-r2-r1 | local | 1 | 2026-12-01T10:01:40Z | 2026-12-01T10:02:15Z | 98.7 | 0.12 | 0.165 | 2.811 | yes |\n"
    "| F3-none-r1 | local | 2 | 2026-12-01T10:02:15Z | 2026-12-01T10:02:50Z | 99.5 | 0.00 | 0.100 | 3.000 | yes |\n"
    "| A-dead-r1 | local | 1 | 2026-12-01T10:02:50Z | 2026-12-01T10:03:52Z | \xe2\x80\x94 | \xe2\x80\x94 | "
    "\xe2\x80\x94 | \xe2\x80\x94 | failed (exit 3): idle gate: 61% idle \\| wanted 95% |\n"
    "\n"
    "### Measured again\n"
    "\n"
    "- F3-none-r1, attempt 1, 2026-12-01T10:01:05Z to 2026-12-01T10:01:39Z, exit 0: tester lateness max "
    "55.463 ms, above 25.000 ms; others took 39% of the measured cores in one second, above 20%\n"
    "\n"
    "### System log lines during runs\n"
    "\n"
    "- H4-r2-r1: `[123.4] kernel: a 'quoted' word | and a pipe`\n"
    "\n";

/* The text where the first difference is, for a readable failure. */
static size_t first_diff(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    return i;
}

Test(provmd, a_hand_written_folder_gives_the_hand_written_file)
{
    char root[] = "/tmp/provmdXXXXXX", prov[64], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(root));
    fixture(root);
    snprintf(prov, sizeof prov, "%s/provenance", root);
    char *md = NULL;
    size_t n = 0;
    cr_assert_eq(provmd_render(prov, &md, &n, err, sizeof err), 0, "%s", err);
    size_t d = first_diff(md, EXPECTED);
    cr_assert_str_eq(md, EXPECTED, "first difference at byte %zu: got \"%.60s\", want \"%.60s\"", d, md + d,
                     EXPECTED + d);
    cr_assert_eq(n, strlen(EXPECTED));
    free(md);
    /* the program writes the same bytes to OUT/results/provenance.md */
    cr_assert_eq(shf("build/bin/provmd --root %s > %s/log 2>&1", root, root), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/results/provenance.md", root);
    char *f = slurp(path);
    cr_assert_str_eq(f, EXPECTED);
    free(f);
    shf("rm -rf %s", root);
}

/* Without runs/, prereg.json and stage-measure.json only the head and the
 * stages are written; a prereg.json without prediction has no last row. */
Test(provmd, parts_left_out_when_their_files_are_not_there)
{
    char root[] = "/tmp/provmdXXXXXX", prov[64], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(root));
    fixture(root);
    snprintf(prov, sizeof prov, "%s/provenance", root);
    cr_assert_eq(shf("cd %s && rm -r runs stage-measure.json && "
                     "sed -i 's/, \"prediction\": {[^}]*}//' prereg.json",
                     prov),
                 0);
    char *md = NULL;
    size_t n = 0;
    cr_assert_eq(provmd_render(prov, &md, &n, err, sizeof err), 0, "%s", err);
    cr_assert_null(strstr(md, "## The machine"));
    cr_assert_null(strstr(md, "## Runs"));
    cr_assert_not_null(strstr(md, "### prepare\n"));
    cr_assert_null(strstr(md, "### measure"));
    cr_assert_not_null(strstr(md, "Registered 2026-12-01T09:59:00Z; the prediction \xe2\x80\x94; the first run "
                                  "started \xe2\x80\x94.\n"));
    cr_assert_not_null(strstr(md, "| `lab/arms.tsv` | 4788 | ff66 |\n\n"), "no prediction row: %s", md);
    cr_assert_eq(strcmp(md + n - 2, "\n\n"), 0);
    free(md);
    shf("rm -rf %s", root);
}

/* The stages after the five of the rules come in byte order of <s>
 * ("a" before "a-b", though their file names sort the other way). */
Test(provmd, other_stages_in_byte_order_of_their_name)
{
    char root[] = "/tmp/provmdXXXXXX", prov[64], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(root));
    snprintf(prov, sizeof prov, "%s/provenance", root);
    cr_assert_eq(shf("mkdir -p %s", prov), 0);
    const char *s[] = {"zz", "a-b", "cost", "a", "prepare"};
    for (int i = 0; i < 5; i++) {
        char name[64], text[96];
        snprintf(name, sizeof name, "stage-%s.json", s[i]);
        snprintf(text, sizeof text, "{\"stage\": \"%s\"}", s[i]);
        put(prov, name, text);
    }
    char *md = NULL;
    size_t n = 0;
    cr_assert_eq(provmd_render(prov, &md, &n, err, sizeof err), 0, "%s", err);
    const char *order[] = {"\n| prepare |", "\n| cost |", "\n| a |", "\n| a-b |", "\n| zz |", "\n### prepare\n",
                           "\n### cost\n", "\n### a\n", "\n### a-b\n", "\n### zz\n"};
    const char *at = md;
    for (int i = 0; i < 10; i++) {
        const char *q = strstr(at, order[i]);
        cr_assert_not_null(q, "%s not after the one before it:\n%s", order[i], md);
        at = q + 1;
    }
    /* a record with nothing but its name: every value a dash, no command */
    cr_assert_not_null(strstr(md, "| zz | \xe2\x80\x94 | \xe2\x80\x94 | \xe2\x80\x94 | \xe2\x80\x94 | "
                                  "\xe2\x80\x94 | \xe2\x80\x94 | \xe2\x80\x94 |\n"));
    cr_assert_not_null(strstr(md, "### a\n\nCommand: ``\n\nBuilt with \xe2\x80\x94; libraries: none.\n\n### a-b\n"));
    free(md);
    shf("rm -rf %s", root);
}

/* A malformed record: one message naming the file and the field, no text,
 * and the program writes nothing (an earlier provenance.md stays). */
static void refused(const char *edit, const char *want)
{
    char root[] = "/tmp/provmdXXXXXX", prov[64], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(root));
    fixture(root);
    snprintf(prov, sizeof prov, "%s/provenance", root);
    cr_assert_eq(shf("cd %s && %s", prov, edit), 0, "%s", edit);
    char *md = (char *)"x";
    size_t n = 1;
    cr_assert_eq(provmd_render(prov, &md, &n, err, sizeof err), -1, "%s: accepted", edit);
    cr_assert_null(md);
    char full[600];
    snprintf(full, sizeof full, "%s/%s", prov, want);
    cr_assert_eq(strncmp(err, full, strlen(full)), 0, "%s: got \"%s\"", edit, err);
    cr_assert_eq(shf("build/bin/provmd --root %s > %s/out 2> %s/errs", root, root, root), 1);
    cr_assert_eq(shf("test ! -e %s/results/provenance.md && test $(wc -l < %s/errs) -eq 1 && grep -qF '%s' %s/errs",
                     root, root, want, root),
                 0, "%s: one line naming %s, nothing written", edit, want);
    shf("rm -rf %s", root);
}

Test(provmd, a_malformed_record_is_refused_naming_file_and_field)
{
    refused("sed -i 's/\"late_p99_ms\": 0.16473/\"late_p99_ms\": \"fast\"/' runs/H4-r2-r1.json",
            "runs/H4-r2-r1.json: quiet.late_p99_ms: not a number");
    refused("sed -i 's/\"size\": 845/\"size\": 845.5/' stage-prepare.json",
            "stage-prepare.json: inputs[0].size: not an integer");
    refused("sed -i 's/\"attempt-1.json\"/\"attempt-9.json\"/; s/F3-none-r1.attempt-1/F3-none-r1.attempt-9/' "
            "runs/F3-none-r1.json",
            "runs/F3-none-r1.json: earlier_attempts[0]: names no file of the folder");
    refused("sed -i 's/\"k\": 3/\"k\": \"3\"/' runs/A-dead-r1.json", "runs/A-dead-r1.json: k: not an integer");
    refused("sed -i 's/\"host\": {/\"host\": [{/; s/\"os\": \"Linux\"}/\"os\": \"Linux\"}]/' stage-measure.json",
            "stage-measure.json: host: not an object");
    refused("echo '{\"registered_utc\": ' > prereg.json", "prereg.json: not JSON (line ");
}
