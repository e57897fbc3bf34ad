/* verify: the independent verifier and secret scanner (see verify/README.md).
 *
 *   verify --root DIR [--no-scan] [--scan-only] [--out FILE]
 *          [--guesses FILE] [--comparisons FILE] [--ap-arms FILE] [--max-print N]
 *
 * Exit 0 when every check passed, 1 on any mismatch or finding, 2 on
 * unusable input (a missing results.json, reference, manifest ...).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apcheck.h"
#include "compare.h"
#include "extra.h"
#include "manifest.h"
#include "mism.h"
#include "scan.h"
#include "study.h"
#include "vjson.h"
#include "vutil.h"

static void usage(FILE *o)
{
    fprintf(o,
            "usage: verify --root DIR [--no-scan] [--scan-only] [--out FILE]\n"
            "              [--guesses FILE] [--comparisons FILE] [--ap-arms FILE] [--max-print N]\n"
            "  --root DIR         the study: DIR/results/ and DIR/provenance/ (default .)\n"
            "  --no-scan          skip the secret scan\n"
            "  --scan-only        only the secret scan (writes nothing)\n"
            "  --out FILE         where verified.json goes (default DIR/results/verified.json)\n"
            "  --guesses FILE     default DIR/data/guesses.tsv\n"
            "  --comparisons FILE default DIR/pipeline/comparisons.tsv\n"
            "  --ap-arms FILE     the arms results/ap.json chose (default DIR/pipeline/ap_arms.tsv;\n"
            "                     when absent, ap.json's own arms and skipped_arms)\n"
            "  --max-print N      lines printed per kind of mismatch and per scanned file (default 20, 0 = all)\n"
            "exit: 0 all good, 1 mismatches or findings, 2 unusable input\n");
}

static int usable(const char *path, const char *what, const char *hint)
{
    if (vu_is_file(path)) return 1;
    fprintf(stderr, "verify: %s not found: %s%s%s\n", what, path, hint ? "; " : "", hint ? hint : "");
    return 0;
}

int main(int argc, char **argv)
{
    const char *root = ".", *out = NULL, *guesses = NULL, *comps = NULL, *aparms = NULL;
    int no_scan = 0, scan_only = 0;
    long max_print = 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--root") && more) root = argv[++i];
        else if (!strcmp(a, "--out") && more) out = argv[++i];
        else if (!strcmp(a, "--guesses") && more) guesses = argv[++i];
        else if (!strcmp(a, "--comparisons") && more) comps = argv[++i];
        else if (!strcmp(a, "--ap-arms") && more) aparms = argv[++i];
        else if (!strcmp(a, "--max-print") && more) max_print = strtol(argv[++i], NULL, 10);
        else if (!strcmp(a, "--no-scan")) no_scan = 1;
        else if (!strcmp(a, "--scan-only")) scan_only = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "verify: unknown or incomplete option \"%s\"\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (no_scan && scan_only) {
        fprintf(stderr, "verify: --no-scan and --scan-only exclude each other\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    char err[2048];

    if (scan_only) {
        scan_stats st;
        if (scan_tree(root, stdout, max_print, &st, err, sizeof err)) {
            fprintf(stderr, "verify: %s\n", err);
            return 2;
        }
        printf("scanned %ld files (%ld gzip), %lld bytes\n", st.files, st.gz_files, st.bytes);
        printf("%ld FINDINGS\n", st.findings);
        return st.findings ? 1 : 0;
    }

    char *results = vu_xasprintf("%s/results/results.json", root);
    char *gpath = guesses ? vu_xstrdup(guesses) : vu_xasprintf("%s/data/guesses.tsv", root);
    char *cpath = comps ? vu_xstrdup(comps) : vu_xasprintf("%s/pipeline/comparisons.tsv", root);
    char *scores = vu_xasprintf("%s/results/reference/scores.tsv", root);
    char *summary = vu_xasprintf("%s/results/reference/summary.json", root);
    char *manifest = vu_xasprintf("%s/provenance/manifest-measure.tsv", root);
    char *opath = out ? vu_xstrdup(out) : vu_xasprintf("%s/results/verified.json", root);
    char *apath = aparms ? vu_xstrdup(aparms) : vu_xasprintf("%s/pipeline/ap_arms.tsv", root);
    int rc = 2;
    vj_node *lab = NULL;
    study s;
    memset(&s, 0, sizeof s);
    if (!usable(results, "results.json", "run `make collect` first") ||
        !usable(scores, "reference scores", "`make measure` copies them to results/reference/") ||
        !usable(summary, "reference summary", "`make measure` copies it to results/reference/") ||
        !usable(manifest, "the measure manifest", NULL) ||
        !usable(gpath, "the guesses file", "give it with --guesses FILE") ||
        !usable(cpath, "the comparisons file", "give it with --comparisons FILE") ||
        (aparms && !usable(apath, "the chosen arms of ap.json", "--ap-arms FILE")))
        goto done;
    if (ap_arms_file_check(apath, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        goto done;
    }
    if (vj_parse_file(results, &lab, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        goto done;
    }

    mm_init(stdout, max_print);
    long nfiles = 0;
    if (mf_check(root, &nfiles, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        goto done;
    }
    long mm_manifest = mm_count();
    if (study_compute(root, gpath, cpath, &s, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        goto done;
    }
    long mm_raw = mm_count() - mm_manifest;
    cmp_results(lab, &s);
    long mm_results = mm_count() - mm_manifest - mm_raw;
    /* results/ap.json: seed 1 recomputed, the rest checked for consistency (apcheck.h) */
    vj_node *ap_member = NULL;
    vj_node *ap = ap_check(root, &s.ref, apath, &ap_member);
    long mm_ap = mm_count() - mm_manifest - mm_raw - mm_results;
    /* the numbers the report needs beyond results.json's layout (extra.h) */
    vj_node *extra = ex_compute(&s, gpath);

    scan_stats st;
    memset(&st, 0, sizeof st);
    vj_node *scan = vj_new_obj();
    if (!no_scan) {
        if (scan_tree(root, stdout, max_print, &st, err, sizeof err)) printf("NOTE scan: %s\n", err);
        vj_obj_set(scan, "ran", vj_new_bool(1));
        vj_obj_set(scan, "files", vj_new_int(st.files));
        vj_obj_set(scan, "gzip_files", vj_new_int(st.gz_files));
        vj_obj_set(scan, "bytes", vj_new_int(st.bytes));
        vj_obj_set(scan, "findings", vj_new_int(st.findings));
    } else {
        vj_obj_set(scan, "ran", vj_new_bool(0));
    }
    mm_finish();
    long n = mm_count();

    /* verified.json: the verifier's own numbers, always written */
    vj_node *v = s.mine;
    vj_obj_set(v, "format", vj_new_str("lab-verified 1"));
    vj_obj_set(v, "mismatches", vj_new_int(n));
    vj_obj_set(v, "findings", no_scan ? vj_new_null() : vj_new_int(st.findings));
    vj_obj_set(v, "ok", vj_new_bool(n == 0 && !no_scan && st.findings == 0));
    vj_node *checks = vj_new_obj();
    time_t now = time(NULL);
    char utc[32];
    strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    vj_obj_set(checks, "utc", vj_new_str(utc));
    vj_obj_set(checks, "runs_found", vj_new_int((long long)s.nruns));
    vj_obj_set(checks, "runs_rejected", vj_new_int((long long)s.rejected));
    vj_obj_set(checks, "answers_checked", vj_new_int(s.answers_checked));
    vj_obj_set(checks, "manifest_files_hashed", vj_new_int(nfiles));
    vj_node *by = vj_new_obj();
    vj_obj_set(by, "manifest", vj_new_int(mm_manifest));
    vj_obj_set(by, "raw_files_and_answers", vj_new_int(mm_raw));
    vj_obj_set(by, "results_json", vj_new_int(mm_results));
    vj_obj_set(by, "ap_json", vj_new_int(mm_ap));
    vj_obj_set(checks, "mismatches_by_check", by);
    vj_node *tol = vj_new_obj();
    vj_obj_set(tol, "times", vj_new_str("|lab - verify| < 1 ns (1e-6 in *_ms, 1e-3 in *_us)"));
    vj_obj_set(tol, "ratios", vj_new_str("|lab - verify| <= 1e-12 * max(|lab|, |verify|)"));
    vj_obj_set(tol, "per_second_means", vj_new_str("|lab - verify| < 1e-9"));
    vj_obj_set(tol, "counts", vj_new_str("exact"));
    vj_obj_set(checks, "tolerances", tol);
    vj_obj_set(checks, "scan", scan);
    vj_obj_set(checks, "ap", ap);
    vj_obj_set(v, "checks", checks);
    vj_obj_set(v, "extra", extra);
    vj_obj_set(v, "ap", ap_member);
    vu_buf b = {0};
    vj_write(v, &b);
    if (vu_write_atomic(opath, b.p, b.len, err, sizeof err)) {
        fprintf(stderr, "verify: %s\n", err);
        vu_buf_free(&b);
        goto done;
    }
    vu_buf_free(&b);
    printf("wrote %s\n", opath);
    printf("%ld runs (%zu rejected), %ld answers checked, %ld files against the manifest\n", (long)s.nruns,
           s.rejected, s.answers_checked, nfiles);
    if (!no_scan) {
        printf("scanned %ld files (%ld gzip), %lld bytes\n", st.files, st.gz_files, st.bytes);
        printf("%ld FINDINGS\n", st.findings);
    } else {
        printf("secret scan skipped (--no-scan)\n");
    }
    printf("%ld MISMATCHES\n", n);
    rc = (n > 0 || st.findings > 0) ? 1 : 0;
done:
    study_free(&s);
    vj_free(lab);
    free(results);
    free(gpath);
    free(cpath);
    free(scores);
    free(summary);
    free(manifest);
    free(opath);
    free(apath);
    return rc;
}
