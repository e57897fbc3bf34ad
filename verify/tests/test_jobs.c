/* --jobs N (issue 32) and the auditor's clone left clean (issue 33):
 *
 * On tapstudy.h's study (3 runs, ap.json with 3 model seeds and 1000
 * resamples recomputed), verify with --jobs 1, 2 and 4 exits the same,
 * prints the same (but for the "wrote PATH" line and the AP's own CPU time
 * on its "ap.json: recomputed ... in N s" line) and writes the same
 * verified.json (but for checks.utc, when it ran); with the scan and
 * without.
 *
 * Without --out, on a study whose results/verified.json is there (made by
 * the same verifier), verify leaves every file of the study byte for byte
 * as it was, writes its result aside (beside the binary), says the
 * committed file agrees, and exits 0; one number changed in the committed
 * verified.json is exactly one mismatch naming it, still with every file
 * left as it was.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tapstudy.h"
#include "thelp.h"
#include "tstudy.h"
#include "vjson.h"
#include "vutil.h"

static char *j_root, *j_outs;

static void j_setup(void)
{
    j_root = th_tmpdir();
    j_outs = th_tmpdir();
    cr_assert(j_root && j_outs);
    tap_good_study(j_root);
    tap_ap_files(j_root);
}

static void j_teardown(void)
{
    th_rmrf(j_root);
    th_rmrf(j_outs);
    free(j_root);
    free(j_outs);
}

/* verify's output without what differs by nature: the "wrote" line (the
 * path) and the AP's CPU time at the end of its line */
static char *normalised(const char *out)
{
    vu_buf b = {0};
    for (const char *p = out; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *line = vu_xasprintf("%.*s", (int)len, p);
        if (strncmp(line, "wrote ", 6)) {
            char *in = strstr(line, " resamples of ");
            char *t = in ? strstr(in, " seeds in ") : NULL;
            if (!strncmp(line, "ap.json: recomputed ", 20) && t)
                t[9] = 0;
            vu_buf_puts(&b, line);
            vu_buf_puts(&b, "\n");
        }
        free(line);
        p = e ? e + 1 : p + len;
    }
    vu_buf_puts(&b, "");
    return b.p;
}

/* verified.json's text without checks.utc */
static char *verified_text(const char *path)
{
    vj_node *v;
    char err[512];
    cr_assert_eq(vj_parse_file(path, &v, err, sizeof err), 0, "%s", err);
    vj_node *checks = vj_get(v, "checks");
    cr_assert(checks && vj_get(checks, "utc"));
    vj_obj_set(checks, "utc", vj_new_str("(left out)"));
    vu_buf b = {0};
    vj_write(v, &b);
    vj_free(v);
    return b.p;
}

static void same_whatever_jobs(int scan)
{
    const char *jobs[] = {"1", "2", "4"};
    char *out0 = NULL, *json0 = NULL;
    int rc0 = -1;
    for (int k = 0; k < 3; k++) {
        char *o = vu_xasprintf("%s/verified-%s.json", j_outs, jobs[k]), *out;
        const char *a[] = {"--root", j_root, "--jobs", jobs[k], "--out", o, "--max-print", "0",
                           scan ? NULL : "--no-scan", NULL};
        int rc = th_run(&out, a);
        cr_assert(rc == 0 || rc == 1, "--jobs %s: exit %d\n%s", jobs[k], rc, out);
        cr_assert(strstr(out, "ap.json: recomputed 3 model seeds"), "%s", out);
        char *n = normalised(out), *t = verified_text(o);
        free(out);
        if (k == 0) {
            rc0 = rc;
            out0 = n;
            json0 = t;
        } else {
            cr_expect_eq(rc, rc0, "--jobs %s exits %d, --jobs 1 %d", jobs[k], rc, rc0);
            cr_expect_str_eq(n, out0, "--jobs %s prints otherwise than --jobs 1", jobs[k]);
            cr_expect(!strcmp(t, json0), "--jobs %s writes another verified.json than --jobs 1", jobs[k]);
            free(n);
            free(t);
        }
        free(o);
    }
    free(out0);
    free(json0);
}

Test(jobs, same_output_whatever_jobs, .init = j_setup, .fini = j_teardown, .timeout = 180)
{
    same_whatever_jobs(0);
}

Test(jobs, same_output_whatever_jobs_with_scan, .init = j_setup, .fini = j_teardown, .timeout = 180)
{
    same_whatever_jobs(1);
}

Test(jobs, bad_jobs_refused)
{
    const char *bad[] = {"0", "-1", "x", "65"};
    for (int k = 0; k < 4; k++) {
        char *out;
        const char *a[] = {"--root", "/nonexistent", "--jobs", bad[k], NULL};
        cr_expect_eq(th_run(&out, a), 2, "--jobs %s: %s", bad[k], out);
        cr_expect(strstr(out, "--jobs"), "%s", out);
        free(out);
    }
}

/* every file under root with its sha256, in path order */
static char *tree_sums(const char *root)
{
    char *cmd = vu_xasprintf("cd '%s' && find . -type f -print0 | sort -z | xargs -0 sha256sum", root);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    vu_buf b = {0};
    char line[1024];
    while (fgets(line, sizeof line, f))
        vu_buf_puts(&b, line);
    cr_assert_eq(pclose(f), 0);
    free(cmd);
    vu_buf_puts(&b, "");
    return b.p;
}

/* verify as an auditor types it: --root alone (th_run's "--aside") */
static int audit(char **out)
{
    const char *a[] = {"--root", j_root, "--no-scan", "--aside", NULL};
    return th_run(out, a);
}

Test(jobs, audit_leaves_the_clone_as_it_was, .init = j_setup, .fini = j_teardown, .timeout = 180)
{
    char *out;
    tap_run_verify(j_root, 0, &out); /* results/verified.json of this verifier */
    free(out);
    char *before = tree_sums(j_root);
    int rc = audit(&out);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "results/verified.json (committed, left as it is) against this recomputation: 0 differences"),
              "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH "), 0, "%s", out);
    const char *w = strstr(out, "wrote ");
    cr_assert(w, "%s", out);
    cr_expect(strncmp(w + 6, j_root, strlen(j_root)), "written into the study: %s", out);
    char *after = tree_sums(j_root);
    cr_expect_str_eq(after, before, "verify without --out changed the study");
    free(after);
    free(out);

    /* a number of the committed verified.json changed: one mismatch naming it */
    char *vp = vu_xasprintf("%s/results/verified.json", j_root), err[512];
    vj_node *v;
    cr_assert_eq(vj_parse_file(vp, &v, err, sizeof err), 0, "%s", err);
    const vj_node *ac = vj_get(vj_get(v, "checks"), "answers_checked");
    cr_assert(ac && ac->is_int);
    long long was = ac->i;
    vj_obj_set(vj_get(v, "checks"), "answers_checked", vj_new_int(was + 1));
    ts_write_back(v, vp);
    free(before);
    before = tree_sums(j_root);
    rc = audit(&out);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_eq(th_count_lines(out, "MISMATCH"), 1, "%s", out);
    char *want = vu_xasprintf("MISMATCH results/verified.json checks.answers_checked (the committed verified.json "
                              "against this recomputation): lab %lld, verify %lld\n",
                              was + 1, was);
    cr_expect(strstr(out, want), "no line %s in:\n%s", want, out);
    cr_expect(strstr(out, "against this recomputation: 1 differences (each a MISMATCH above)"), "%s", out);
    cr_expect(strstr(out, "\n1 MISMATCHES\n"), "%s", out);
    free(want);
    after = tree_sums(j_root);
    cr_expect_str_eq(after, before, "verify without --out changed the study");
    free(after);
    free(before);
    free(out);
}
