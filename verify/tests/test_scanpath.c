/* The scanner's machine-path rule (src/scan/scanpath.[ch]; verify/README.md,
 * "The scanner's rules and why"): an absolute path naming a user's or the
 * machine's working folders is a finding; the system's own paths, patterns
 * and placeholders are not.
 *
 * The texts write '^' for a path's '/' and '|' for a Windows '\' so that
 * this file itself holds no machine path (the scanner reads source too). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scanpath.h"
#include "synth.h"
#include "thelp.h"
#include "tscan.h"

/* text with '^' made '/' and '|' made '\' (malloc'd) */
static char *real(const char *t)
{
    char *s = vu_xstrdup(t);
    for (char *p = s; *p; p++)
        *p = *p == '^' ? '/' : *p == '|' ? '\\' : *p;
    return s;
}

/* the machine-path findings of a text: their number, the first's span in *span */
static int paths_in(const char *text, char *span, size_t spanlen)
{
    tsc_found_t g = tsc_found(text);
    int n = 0;
    for (int i = 0; i < g.n && i < 32; i++) {
        if (strcmp(g.rules[i], "machine-path"))
            continue;
        if (!n++ && span)
            snprintf(span, spanlen, "%.*s", (int)g.lens[i], text + g.offs[i]);
    }
    return n;
}

Test(scanpath, findings)
{
    static const struct {
        const char *text, *span;
    } cases[] = {
        {"cd ^home^alice^lab && make", "^home^alice^lab"},
        {"{\"cwd\": \"^Users^bob^src^lab\"}", "^Users^bob^src^lab"},
        {"cd ^root^lab && make", "^root^lab"},
        {"cache ^root^.cache^lab.", "^root^.cache^lab"}, /* a sentence's full stop is not the path's */
        {"--out ^tmp^lab.a8Kx2Q^results", "^tmp^lab.a8Kx2Q^results"},
        {"--out ^tmp^lab.a8Kx2Q", "^tmp^lab.a8Kx2Q"},                  /* a name mktemp made */
        {"--root ^tmp^mystudy^results^x.json", "^tmp^mystudy^results^x.json"}, /* a folder with more inside */
        {"--root ^var^tmp^study^raw", "^var^tmp^study^raw"},
        {"^private^tmp^study^raw", "^private^tmp^study^raw"},
        {"^tmp^systemd-private-1a2b", "^tmp^systemd-private-1a2b"},
        {"file:^^^home^carol^notes.txt", "^home^carol^notes.txt"},
        {"-O2 -I^home^dave^include", "^home^dave^include"},
        {"DBUS=unix:path=^run^user^1000^bus", "^run^user^1000^bus"},
        {"T=^var^folders^zz^x1^T^", "^var^folders^zz^x1^T^"},
        {"\"C:||Users||erin||lab\"", "C:||Users||erin||lab"},          /* JSON escapes decoded */
        {"dir C:|Users|erin|lab", "C:|Users|erin|lab"},
        {"dir C:|Users|erin|lab; a:b", "C:|Users|erin|lab"},           /* colons not followed by | ... */
        {"a:b; dir C:|Users|erin|lab", "C:|Users|erin|lab"},           /* ... after it, before it */
        {"password=^home^alice^pw", "^home^alice^pw"},                 /* with its password finding */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *t = real(cases[i].text), *want = real(cases[i].span), span[256];
        int n = paths_in(t, span, sizeof span);
        cr_expect(n == 1 && !strcmp(span, want), "%s: %d findings, the first %s (want %s)", t, n, n ? span : "-",
                  want);
        free(t);
        free(want);
    }
}

Test(scanpath, left_alone)
{
    static const char *const cases[] = {
        "reads ^proc^stat and ^proc^self^status",
        "shared memory in ^dev^shm^lab",
        "-I^usr^include^postgresql -L^usr^lib",
        "see ^etc^os-release and ^etc^hosts",
        "^home^ and ^home",                               /* no one's home */
        "^home^<you>^lab, ^home^$USER^lab, ^home^${USER}^x, ^home^user^lab, ^home^...^x",
        "^Users^Shared^x, C:|Users|Public|x, C:|Users|<name>",
        "under ^tmp, in ^tmp^ and ^var^tmp; ^root and ^root^ named alone",
        "mkdtemp(\"^tmp^lab.XXXXXX\"); rm -rf ^tmp^report-test-*",
        "^tmp^never.json ^tmp^lab_test_store.lock ^tmp^s",  /* a name a program chose, alone */
        "strncmp(dir, \"^tmp^verify-test-\", 17)",
        "https:^^example.com^home^alice and results^home^alice and .^home^alice",
        "^run^user^ and ^run^user^x",
        "a ^srv^data^x when it is no root",
        "C:Users|x and a colon at the very end:",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *t = real(cases[i]), span[256];
        int n = paths_in(t, span, sizeof span);
        cr_expect_eq(n, 0, "%s: %d findings, the first %s", t, n, n ? span : "-");
        free(t);
    }
}

/* the study's root folder, as given (relative too) and resolved; the working folder */
Test(scanpath, the_root_and_the_working_folder)
{
    char *t = real("--root ^srv^lab-study^results and ^srv^lab-study"), span[256];
    char *other = real("^srv^lab-study2^x ^srv^lab^x");
    sp_set_root("/srv/lab-study");
    cr_expect_eq(paths_in(t, NULL, 0), 2, "%s", t);
    cr_expect_eq(paths_in(other, NULL, 0), 0, "%s", other);
    sp_set_root(NULL);
    cr_expect_eq(paths_in(t, NULL, 0), 0, "%s", t);
    free(t);
    free(other);
    /* a relative root is made absolute from the working folder, which is looked for itself */
    char cwd[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    char *in = vu_xasprintf("\"argv\": [\"x\", \"%s/sub/f.json\"]", cwd);
    cr_expect_eq(paths_in(in, span, sizeof span), 1, "%s", in);
    sp_set_root("sub/dir/..");
    char *sub = vu_xasprintf("%s/sub", cwd), *at = vu_xasprintf("at %s.", sub);
    cr_expect_eq(paths_in(at, span, sizeof span), 1, "%s", at);
    cr_expect_str_eq(span, sub);
    sp_set_root(NULL);
    free(in);
    free(sub);
    free(at);
}

/* verify --scan-only on a study: a record holding the study's own folder */
Test(scanpath, a_study_record_with_its_folder, .timeout = 30)
{
    char *root = th_tmpdir(), *d = vu_xasprintf("%s/provenance", root), *f = vu_xasprintf("%s/stage-x.json", d);
    cr_assert_eq(syn_mkdirs(d), 0);
    char *text = vu_xasprintf("{\"argv\": [\"build/bin/x\", \"--root\", \".\"], \"cwd\": \".\"}\n");
    cr_assert_eq(syn_write_text(f, text), 0);
    char *out;
    const char *a[] = {"--root", root, "--scan-only", NULL};
    cr_expect_eq(th_run(&out, a), 0, "%s", out);
    free(out);
    free(text);
    text = vu_xasprintf("{\"argv\": [\"build/bin/x\", \"--root\", \"%s\"]}\n", root);
    cr_assert_eq(syn_write_text(f, text), 0);
    cr_expect_eq(th_run(&out, a), 1, "%s", out);
    cr_expect(strstr(out, "FINDING provenance/stage-x.json offset 36 machine-path: "), "%s", out);
    free(out);
    free(text);
    th_rmrf(root);
    free(root);
    free(d);
    free(f);
}
