/* The scanner inside containers and encodings: a secret inside each (plain,
 * gzip, tar and gzip inside tar, tar.gz, zip stored and deflated, bzip2,
 * xz, UTF-16 LE and BE, JSON escapes) is found with its path, member and
 * line, and so is one in a container's other parts (gzip header fields of
 * every member, tar headers and bytes after the end, zip extra fields and
 * bytes outside the entries); secrets in file and member names are found and never printed
 * whole; bombs, deep nesting and damaged archives are findings, not hangs;
 * --scan's exit codes; the study scan's names; real tar archives of a
 * clean tree give nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scan.h"
#include "synth.h"
#include "thelp.h"
#include "tscan.h"
#include "vutil.h"

static void expect_line(const char *out, const char *want)
{
    cr_expect(strstr(out, want), "want a line starting \"%s\" in:\n%s", want, out);
}

/* the secrets of these tests, made at run time */
typedef struct {
    char *pw, *url, *akia, *akia_line, *ghp, *stripe, *slack;
} secrets;

static secrets make_secrets(void)
{
    secrets s;
    s.pw = tsc_rand(TSC_AL, 12);
    s.url = CAT("postgres://lab:%s@db.internal/lab", s.pw);
    char *up = tsc_rand(TSC_UP, 16);
    s.akia = CAT("%s%s", "AK", "IA");
    char *t = CAT("%s%s", s.akia, up);
    free(s.akia);
    s.akia = t;
    s.akia_line = CAT("aws %s\n", s.akia);
    free(up);
    char *g = tsc_rand(TSC_AL, 36);
    s.ghp = CAT("%s%s", "ghp_", g);
    free(g);
    g = tsc_rand(TSC_AL, 24);
    s.stripe = CAT("%s%s%s", "sk_", "live_", g);
    free(g);
    g = tsc_rand(TSC_AL, 24);
    s.slack = CAT("%s-%s-%s-%s", "xoxb", "123456789012", "1234567890123", g);
    free(g);
    return s;
}

static void free_secrets(secrets *s)
{
    free(s->pw), free(s->url), free(s->akia), free(s->akia_line), free(s->ghp), free(s->stripe), free(s->slack);
}

static char *scan_one(const char *path, scan_stats *st)
{
    int rc;
    char *out = tsc_scan(path, 0, 0, st, &rc);
    cr_expect_eq(rc, 0, "%s", out);
    return out;
}

Test(scanpack, plain_gzip_utf16_json, .timeout = 30)
{
    char *dir = th_tmpdir();
    secrets s = make_secrets();
    char *text = CAT("line one\nline two\nPGURL=%s\nline four\n", s.url);
    char *p = CAT("%s/notes.txt", dir);
    tsc_write(p, text, strlen(text));
    scan_stats st;
    char *out = scan_one(p, &st);
    char *want = CAT("%s:3: url-password: ", p);
    expect_line(out, want);
    cr_expect(!strstr(out, s.pw), "printed whole:\n%s", out);
    cr_expect_eq(st.findings, 1, "%s", out);
    free(out), free(want), free(p);

    vu_buf gz = {0};
    tsc_gzip(text, strlen(text), &gz);
    p = CAT("%s/notes.bin", dir);   /* no .gz in the name: the bytes say what it is */
    tsc_write(p, gz.p, gz.len);
    out = scan_one(p, &st);
    want = CAT("%s:3: url-password: ", p);
    expect_line(out, want);
    cr_expect_eq(st.gz_files, 1);
    free(out), free(want), free(p);
    vu_buf_free(&gz);

    /* UTF-16: little-endian with a byte-order mark, big-endian without */
    for (int be = 0; be < 2; be++) {
        vu_buf u = {0};
        if (!be)
            vu_buf_add(&u, "\xff\xfe", 2);
        for (const char *c = text; *c; c++) {
            char pair[2] = {be ? 0 : *c, be ? *c : 0};
            vu_buf_add(&u, pair, 2);
        }
        p = CAT("%s/u16%s.txt", dir, be ? "be" : "le");
        tsc_write(p, u.p, u.len);
        out = scan_one(p, &st);
        want = CAT("%s:3: url-password: ", p);
        expect_line(out, want);
        cr_expect(!strstr(out, s.pw), "printed whole:\n%s", out);
        free(out), free(want), free(p);
        vu_buf_free(&u);
    }

    /* JSON escapes: \/ and \u0040 hide the URL's shape until decoded */
    char *esc = tsc_rand(TSC_AL, 12);
    char *json = CAT("{\"a\": 1,\n \"argv\": [\"run\", \"postgres:\\/\\/lab:%s\\u0040db\\/lab\"]}\n", esc);
    p = CAT("%s/run.json", dir);
    tsc_write(p, json, strlen(json));
    out = scan_one(p, &st);
    want = CAT("%s:2: url-password: ", p);
    expect_line(out, want);
    cr_expect(!strstr(out, esc), "printed whole:\n%s", out);
    free(out), free(want), free(p), free(json), free(esc);

    free(text);
    free_secrets(&s);
    th_rmrf(dir);
    free(dir);
}

/* a tar of: a clean file, a password on line 2, a token in a name, a long
 * name (pax or GNU) with a key on line 1, a gzip member with a key on line 4 */
static void build_tar(vu_buf *t, const secrets *s, int pax)
{
    const char *clean = "x\ty\n1\t2\n";
    tsc_tar_add(t, "a/clean.txt", clean, strlen(clean), pax);
    char *pw = CAT("[db]\npassword = %s\n", s->pw);
    tsc_tar_add(t, "a/secret.ini", pw, strlen(pw), pax);
    char *nm = CAT("b/%s.txt", s->ghp);
    tsc_tar_add(t, nm, clean, strlen(clean), pax);
    char *longname = CAT("results/raw/%s/%s/%s/deep.txt", "a-very-long-folder-name-for-the-test-of-long-names",
                         "and-a-second-one-that-takes-it-past-one-hundred", "bytes");
    tsc_tar_add(t, longname, s->akia_line, strlen(s->akia_line), pax);
    vu_buf inner = {0}, gz = {0};
    vu_buf_puts(&inner, "# lab-raw 3 tester\nj\trow\n1\t1\n");
    vu_buf_puts(&inner, s->akia_line);
    tsc_gzip(inner.p, inner.len, &gz);
    tsc_tar_add(t, "raw/t.tsv.gz", gz.p, gz.len, pax);
    tsc_tar_end(t);
    vu_buf_free(&inner), vu_buf_free(&gz);
    free(pw), free(nm), free(longname);
}

static void expect_tar_lines(const char *out, const char *arc, const secrets *s)
{
    char *w[5];
    w[0] = CAT("%s:a/secret.ini:2: password-assignment: ", arc);
    char stars[64];
    memset(stars, '*', 32);
    stars[32] = 0;
    w[1] = CAT("%s:b/ghp_%s%s.txt:name: github-pat: ", arc, stars, s->ghp + 36);
    w[2] = CAT("%s:results/raw/a-very-long-folder-name-for-the-test-of-long-names/"
               "and-a-second-one-that-takes-it-past-one-hundred/bytes/deep.txt:1: aws-access-key-id: ", arc);
    w[3] = CAT("%s:raw/t.tsv.gz:4: aws-access-key-id: ", arc);
    w[4] = NULL;
    for (int i = 0; w[i]; i++) {
        expect_line(out, w[i]);
        free(w[i]);
    }
    cr_expect(!strstr(out, s->pw) && !strstr(out, s->ghp) && !strstr(out, s->akia), "printed whole:\n%s", out);
    cr_expect(!strstr(out, "clean.txt"), "the clean member gave a finding:\n%s", out);
}

Test(scanpack, tar_targz_members_and_names, .timeout = 30)
{
    char *dir = th_tmpdir();
    secrets s = make_secrets();
    for (int pax = 0; pax < 2; pax++) {
        vu_buf t = {0}, gz = {0};
        build_tar(&t, &s, pax);
        char *p = CAT("%s/x%d.tar", dir, pax);
        tsc_write(p, t.p, t.len);
        scan_stats st;
        char *out = scan_one(p, &st);
        expect_tar_lines(out, p, &s);
        cr_expect_eq(st.findings, 4, "%s", out);
        cr_expect_eq(st.members, 5, "%s", out);
        free(out);
        tsc_gzip(t.p, t.len, &gz);
        char *q = CAT("%s/x%d.tar.gz", dir, pax);
        tsc_write(q, gz.p, gz.len);
        out = scan_one(q, &st);
        expect_tar_lines(out, q, &s);
        cr_expect_eq(st.findings, 4, "%s", out);
        cr_expect_eq(st.gz_files, 2, "the tar.gz and the gzip member: %s", out);
        free(out), free(p), free(q);
        vu_buf_free(&t), vu_buf_free(&gz);
    }
    free_secrets(&s);
    th_rmrf(dir);
    free(dir);
}

Test(scanpack, zip_stored_and_deflated, .timeout = 30)
{
    char *dir = th_tmpdir();
    secrets s = make_secrets();
    tsc_zip z = {0};
    char *a = CAT("one\nSTRIPE=%s\n", s.stripe), *b = CAT("one\ntwo\nSLACK=%s\n", s.slack);
    tsc_zip_add(&z, "s.txt", a, strlen(a), 0);
    tsc_zip_add(&z, "deep/d.txt", b, strlen(b), 1);
    char *nm = CAT("%s.json", s.ghp);
    tsc_zip_add(&z, nm, "{}", 2, 1);
    vu_buf zip = {0};
    tsc_zip_end(&z, &zip);
    char *p = CAT("%s/x.zip", dir);
    tsc_write(p, zip.p, zip.len);
    scan_stats st;
    char *out = scan_one(p, &st);
    char *w1 = CAT("%s:s.txt:2: stripe-access-token: ", p), *w2 = CAT("%s:deep/d.txt:3: slack-bot-token: ", p);
    char *w3 = CAT("%s:ghp_", p);
    expect_line(out, w1);
    expect_line(out, w2);
    expect_line(out, w3);
    cr_expect(strstr(out, ":name: github-pat: "), "%s", out);
    cr_expect(!strstr(out, s.stripe) && !strstr(out, s.slack) && !strstr(out, s.ghp), "printed whole:\n%s", out);
    cr_expect_eq(st.findings, 3, "%s", out);
    free(out), free(w1), free(w2), free(w3), free(p), free(a), free(b), free(nm);
    vu_buf_free(&zip);
    free_secrets(&s);
    th_rmrf(dir);
    free(dir);
}

/* the parts of a container that are not a member's body: every gzip
 * member's FNAME, FCOMMENT and FEXTRA; a tar header's user name and the
 * bytes after the archive's end; a zip member's extra field (directory's
 * and local), a member the directory does not list and bytes no entry
 * covers.  Each is found with where it is;
 * the same containers without them give nothing. */
Test(scanpack, header_fields_and_bytes_outside_entries, .timeout = 30)
{
    char *dir = th_tmpdir();
    secrets s = make_secrets();
    const char *body = "a clean body\n";
    char *pwline = CAT("%s=%s", "password", s.pw), *ghline = CAT("tok %s;", s.ghp);

    /* gzip: member 1 with FNAME and FCOMMENT, member 2 with FEXTRA */
    vu_buf gz = {0};
    tsc_gzip_hdr(body, strlen(body), pwline, s.akia_line, NULL, 0, &gz);
    unsigned char extra[128] = {'L', 'B', 0, 0};
    size_t gl = strlen(ghline);
    extra[2] = (unsigned char)gl;
    memcpy(extra + 4, ghline, gl);
    tsc_gzip_hdr(body, strlen(body), NULL, NULL, extra, (unsigned)(4 + gl), &gz);
    char *p = CAT("%s/h.gz", dir);
    tsc_write(p, gz.p, gz.len);
    scan_stats st;
    char *out = scan_one(p, &st);
    char *w1 = CAT("%s:(gzip member 1 FNAME):1: password-assignment: ", p);
    char *w2 = CAT("%s:(gzip member 1 FCOMMENT):1: aws-access-key-id: ", p);
    char *w3 = CAT("%s:(gzip member 2 FEXTRA):2: github-pat: ", p);
    expect_line(out, w1), expect_line(out, w2), expect_line(out, w3);
    cr_expect_eq(st.findings, 3, "%s", out);
    cr_expect_eq(st.gz_files, 1, "%s", out);
    cr_expect(!strstr(out, s.pw) && !strstr(out, s.akia) && !strstr(out, s.ghp), "printed whole:\n%s", out);
    free(out), free(w1), free(w2), free(w3), free(p);
    /* the same members with a clean name and comment: nothing */
    vu_buf clean = {0};
    tsc_gzip_hdr(body, strlen(body), "notes.txt", "made by the lab", NULL, 0, &clean);
    tsc_gzip_hdr(body, strlen(body), NULL, NULL, "LB\2\0ok", 6, &clean);
    p = CAT("%s/clean.gz", dir);
    tsc_write(p, clean.p, clean.len);
    out = scan_one(p, &st);
    cr_expect_eq(st.findings, 0, "%s", out);
    free(out), free(p);
    vu_buf_free(&gz), vu_buf_free(&clean);

    /* tar: a user name holding a key id; a password after the end blocks */
    vu_buf t = {0};
    tsc_tar_add(&t, "a.txt", body, strlen(body), 0);
    tsc_tar_uname(&t, 0, s.akia);
    tsc_tar_end(&t);
    vu_buf_add(&t, pwline, strlen(pwline));
    p = CAT("%s/h.tar", dir);
    tsc_write(p, t.p, t.len);
    out = scan_one(p, &st);
    w1 = CAT("%s:(tar header at byte 0):2: aws-access-key-id: ", p);
    w2 = CAT("%s:(after the tar archive's end):1: password-assignment: ", p);
    expect_line(out, w1), expect_line(out, w2);
    cr_expect_eq(st.findings, 2, "%s", out);
    cr_expect_eq(st.members, 1, "%s", out);
    free(out), free(w1), free(w2), free(p);
    vu_buf_free(&t);

    /* zip: an extra field in the directory, one in a local header, bytes between the data and the directory */
    tsc_zip z = {0};
    tsc_zip_add_x(&z, "d.txt", body, strlen(body), 1, extra, 4 + gl, 1);
    tsc_zip_add_x(&z, "l.txt", body, strlen(body), 0, s.akia_line, strlen(s.akia_line), 0);
    vu_buf_add(&z.body, "\0\0", 2);
    vu_buf_add(&z.body, pwline, strlen(pwline));
    vu_buf zip = {0};
    tsc_zip_end(&z, &zip);
    p = CAT("%s/h.zip", dir);
    tsc_write(p, zip.p, zip.len);
    out = scan_one(p, &st);
    w1 = CAT("%s:d.txt (extra fields):2: github-pat: ", p);
    w2 = CAT("%s:l.txt (extra fields):2: aws-access-key-id: ", p);
    w3 = CAT("%s:(zip bytes outside its entries):2: password-assignment: ", p);
    expect_line(out, w1), expect_line(out, w2), expect_line(out, w3);
    cr_expect_eq(st.findings, 3, "%s", out);
    cr_expect(!strstr(out, s.pw) && !strstr(out, s.akia) && !strstr(out, s.ghp), "printed whole:\n%s", out);
    free(out), free(w1), free(w2), free(w3), free(p);
    vu_buf_free(&zip);
    /* a deflated member the directory does not list: read from its local header */
    tsc_zip hid = {0};
    char *secret_body = CAT("one\n%s\n", pwline);
    tsc_zip_add(&hid, "hidden.txt", secret_body, strlen(secret_body), 1);
    z = (tsc_zip){0};
    tsc_zip_add(&z, "a.txt", body, strlen(body), 1);
    vu_buf_add(&z.body, hid.body.p, hid.body.len);
    tsc_zip_end(&z, &zip);
    vu_buf_free(&hid.body), vu_buf_free(&hid.dir);
    p = CAT("%s/unlisted.zip", dir);
    tsc_write(p, zip.p, zip.len);
    out = scan_one(p, &st);
    w1 = CAT("%s:(not in the directory) hidden.txt:2: password-assignment: ", p);
    expect_line(out, w1);
    cr_expect_eq(st.findings, 1, "%s", out);
    cr_expect_eq(st.members, 2, "%s", out);
    cr_expect(!strstr(out, "outside"), "the member's bytes are read as a member, not as bytes outside:\n%s", out);
    free(out), free(w1), free(p), free(secret_body);
    vu_buf_free(&zip);
    /* a zip of clean members with no extra bytes: nothing outside */
    z = (tsc_zip){0};
    tsc_zip_add(&z, "a.txt", body, strlen(body), 1);
    tsc_zip_add(&z, "b.txt", body, strlen(body), 0);
    tsc_zip_end(&z, &zip);
    p = CAT("%s/clean.zip", dir);
    tsc_write(p, zip.p, zip.len);
    out = scan_one(p, &st);
    cr_expect_eq(st.findings, 0, "%s", out);
    cr_expect(!strstr(out, "outside"), "%s", out);
    free(out), free(p);
    vu_buf_free(&zip);

    free(pwline), free(ghline);
    free_secrets(&s);
    th_rmrf(dir);
    free(dir);
}

Test(scanpack, bzip2_and_xz, .timeout = 30)
{
    char *dir = th_tmpdir();
    secrets s = make_secrets();
    char *text = CAT("a\n%s", s.akia_line);
    for (int k = 0; k < 2; k++) {
        vu_buf c = {0};
        char *p = CAT("%s/x.txt.%s", dir, k ? "xz" : "bz2");
        int have = 0;
#ifdef SCAN_HAVE_BZ2
        if (k == 0)
            tsc_bz2(text, strlen(text), &c), have = 1;
#endif
#ifdef SCAN_HAVE_LZMA
        if (k == 1)
            tsc_xz(text, strlen(text), &c), have = 1;
#endif
        if (!have) {   /* built without the library: the stream's magic alone is a finding */
            vu_buf_add(&c, k ? "\xfd" "7zXZ\0\0\0\0" : "BZh91AY&SY\0\0\0\0", 10);
        }
        tsc_write(p, c.p, c.len);
        scan_stats st;
        char *out = scan_one(p, &st);
        char *want = have ? CAT("%s:2: aws-access-key-id: ", p) : CAT("%s:0: cannot-look-inside: ", p);
        expect_line(out, want);
        cr_expect_eq(st.findings, 1, "%s", out);
        free(out), free(want), free(p);
        vu_buf_free(&c);
    }
    free(text);
    free_secrets(&s);
    th_rmrf(dir);
    free(dir);
}

/* 8 MB of zeros gzipped (8 KB), then zipped: with a bound of 1 MB each is
 * a too-large finding, found at once; nested 10 deep past a bound of 8 */
Test(scanpack, bombs_and_depth, .timeout = 30)
{
    char *dir = th_tmpdir();
    size_t big = 8u << 20;
    unsigned char *zeros = vu_xcalloc(big, 1);
    vu_buf gz = {0};
    tsc_gzip(zeros, big, &gz);
    char *p = CAT("%s/bomb.gz", dir);
    tsc_write(p, gz.p, gz.len);
    scan_stats st;
    int rc;
    time_t t0 = time(NULL);
    char *out = tsc_scan(p, 1u << 20, 0, &st, &rc);
    char *want = CAT("%s:0: too-large: a gzip stream inflating past 1048576 bytes", p);
    expect_line(out, want);
    cr_expect_eq(st.bytes, 1 << 20, "scanned what inflated up to the bound: %lld", st.bytes);
    free(out), free(want);
    tsc_zip z = {0};
    tsc_zip_add(&z, "zeros.bin", zeros, big, 1);
    vu_buf zip = {0};
    tsc_zip_end(&z, &zip);
    char *q = CAT("%s/bomb.zip", dir);
    tsc_write(q, zip.p, zip.len);
    out = tsc_scan(q, 1u << 20, 0, &st, &rc);
    want = CAT("%s:zeros.bin:0: too-large: ", q);
    expect_line(out, want);
    free(out), free(want);
    cr_expect_leq(time(NULL) - t0, 5, "the bombs took %ld s", (long)(time(NULL) - t0));

    /* nesting: 3 deep is looked into, 10 deep stops at the bound */
    secrets s = make_secrets();
    for (int depth = 3; depth <= 10; depth += 7) {
        vu_buf cur = {0};
        vu_buf_puts(&cur, s.akia_line);
        for (int i = 0; i < depth; i++) {
            vu_buf next = {0};
            tsc_gzip(cur.p, cur.len, &next);
            vu_buf_free(&cur);
            cur = next;
        }
        char *r = CAT("%s/nest%d", dir, depth);
        tsc_write(r, cur.p, cur.len);
        out = tsc_scan(r, 0, 8, &st, &rc);
        want = depth == 3 ? CAT("%s:1: aws-access-key-id: ", r) : CAT("%s:0: too-deep: a gzip inside 8 containers", r);
        expect_line(out, want);
        cr_expect_eq(st.findings, 1, "%s", out);
        free(out), free(want), free(r);
        vu_buf_free(&cur);
    }
    free_secrets(&s);
    free(p), free(q), free(zeros);
    vu_buf_free(&gz), vu_buf_free(&zip);
    th_rmrf(dir);
    free(dir);
}

Test(scanpack, damaged_archives, .timeout = 30)
{
    char *dir = th_tmpdir();
    secrets s = make_secrets();
    vu_buf t = {0}, gz = {0};
    build_tar(&t, &s, 1);
    tsc_gzip(t.p, t.len, &gz);
    scan_stats st;
    int rc;
    /* a truncated tar.gz: named, and what inflated is still scanned */
    char *p = CAT("%s/cut.tar.gz", dir);
    tsc_write(p, gz.p, gz.len - 40);
    char *out = tsc_scan(p, 0, 0, &st, &rc);
    char *want = CAT("%s:0: gzip-unreadable: the stream is truncated", p);
    expect_line(out, want);
    free(out), free(want), free(p);
    /* a tar whose second header's checksum is broken (the first member's data is one block) */
    t.p[1024 + 148] ^= 1;
    p = CAT("%s/bad.tar", dir);
    tsc_write(p, t.p, t.len);
    out = tsc_scan(p, 0, 0, &st, &rc);
    want = CAT("%s:0: archive-unreadable: no valid tar header at byte 1024", p);
    expect_line(out, want);
    free(out), free(want), free(p);
    /* a zip cut before its directory */
    tsc_zip z = {0};
    tsc_zip_add(&z, "a.txt", "hello\n", 6, 1);
    vu_buf zip = {0};
    tsc_zip_end(&z, &zip);
    p = CAT("%s/cut.zip", dir);
    tsc_write(p, zip.p, zip.len - 10);
    out = tsc_scan(p, 0, 0, &st, &rc);
    want = CAT("%s:0: archive-unreadable: no zip end record", p);
    expect_line(out, want);
    free(out), free(want), free(p);
    /* zstd: not read here, so a finding */
    p = CAT("%s/x.zst", dir);
    tsc_write(p, "\x28\xb5\x2f\xfd\0\0\0\0", 8);
    out = tsc_scan(p, 0, 0, &st, &rc);
    want = CAT("%s:0: cannot-look-inside: a zstd stream", p);
    expect_line(out, want);
    free(out), free(want), free(p);
    vu_buf_free(&t), vu_buf_free(&gz), vu_buf_free(&zip);
    free_secrets(&s);
    th_rmrf(dir);
    free(dir);
}

/* the command line: --scan PATH (repeatable), its exit codes */
Test(scanpack, scan_option, .timeout = 60)
{
    char *dir = th_tmpdir();
    secrets s = make_secrets();
    char *clean = CAT("%s/clean", dir), *dirty = CAT("%s/dirty", dir);
    cr_assert_eq(syn_mkdirs(clean), 0);
    cr_assert_eq(syn_mkdirs(dirty), 0);
    char *f = CAT("%s/a.txt", clean);
    syn_write_text(f, "nothing here\n");
    free(f);
    f = CAT("%s/%s", dirty, s.ghp);   /* a secret in a file name only */
    syn_write_text(f, "nothing here\n");
    free(f);
    char *out;
    const char *a1[] = {"--scan", clean, NULL};
    cr_expect_eq(th_run(&out, a1), 0, "%s", out);
    cr_expect(strstr(out, "\n0 FINDINGS\n"), "%s", out);
    free(out);
    const char *a2[] = {"--scan", clean, "--scan", dirty, NULL};
    cr_expect_eq(th_run(&out, a2), 1, "%s", out);
    char *want = CAT("%s/ghp_", dirty);
    expect_line(out, want);
    cr_expect(strstr(out, ":name: github-pat: ghp_"), "%s", out);
    cr_expect(!strstr(out, s.ghp), "printed whole:\n%s", out);
    cr_expect(strstr(out, "\n1 FINDINGS\n"), "%s", out);
    free(out), free(want);
    char *missing = CAT("%s/nope", dir);
    const char *a3[] = {"--scan", missing, NULL};
    cr_expect_eq(th_run(&out, a3), 2, "%s", out);
    cr_expect(strstr(out, "nope: no such file"), "%s", out);
    free(out);
    const char *a4[] = {"--scan", clean, "--root", dir, NULL};
    cr_expect_eq(th_run(&out, a4), 2, "%s", out);
    cr_expect(strstr(out, "--root does not go with it"), "%s", out);
    free(out), free(missing);
    /* the study scan reads names too */
    char *raw = CAT("%s/study/results/raw/%s", dir, s.ghp);
    cr_assert_eq(syn_mkdirs(raw), 0);
    f = CAT("%s/run.json", raw);
    syn_write_text(f, "{}\n");
    char *study = CAT("%s/study", dir);
    const char *a5[] = {"--root", study, "--scan-only", NULL};
    cr_expect_eq(th_run(&out, a5), 1, "%s", out);
    cr_expect(strstr(out, "FINDING results/raw/ghp_"), "%s", out);
    cr_expect(strstr(out, " name github-pat: ghp_"), "%s", out);
    cr_expect(!strstr(out, s.ghp), "printed whole:\n%s", out);
    free(out), free(raw), free(f), free(study), free(clean), free(dirty);
    free_secrets(&s);
    th_rmrf(dir);
    free(dir);
}

/* archives made by tar itself (pax and GNU headers, gzip, bzip2, xz) of a
 * clean tree in the lab's shapes: nothing found, every member read */
Test(scanpack, real_tar_of_a_clean_tree, .timeout = 60)
{
    if (system("tar --version >/dev/null 2>&1"))
        cr_skip_test("no tar here");
    char *dir = th_tmpdir();
    char *d = CAT("%s/tree/results/raw/H3-fb25-r1/%s", dir,
                  "a-folder-name-long-enough-to-need-a-long-name-header-in-a-tar-archive-of-the-release-x");
    cr_assert_eq(syn_mkdirs(d), 0);
    const char *files[][2] = {
        {"run.json", "{\"run\": \"H3-fb25-r1\", \"t0_ns\": 1052957221867, \"git_commit\": "
                     "\"29a1fbaaa81f6add8ceef91c4812195e5c086322\", \"pgurl\": \"postgres://lab:***@127.0.0.1/lab\"}\n"},
        {"manifest.tsv", "results/raw/H3-fb25-r1/tester.tsv.gz\t34063\t"
                         "31829a6d867390fd6ada9a8b39fc3213b4feec9635248ae53bbd095e026ce3f8\n"},
        {"tester.tsv", "j\trow\tsched_t\n1470\t1470\t761573\n"},
    };
    for (size_t i = 0; i < 3; i++) {
        char *f = CAT("%s/%s", d, files[i][0]);
        syn_write_text(f, files[i][1]);
        free(f);
    }
    const char *kinds[][2] = {{"--format=pax -czf", "x.tar.gz"}, {"--format=gnu -cf", "x.tar"},
#ifdef SCAN_HAVE_BZ2
                              {"--format=gnu -cjf", "x.tar.bz2"},
#endif
#ifdef SCAN_HAVE_LZMA
                              {"--format=pax -cJf", "x.tar.xz"},
#endif
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        char *cmd = CAT("cd '%s' && tar %s '%s' tree 2>/dev/null", dir, kinds[k][0], kinds[k][1]);
        if (system(cmd)) {
            free(cmd);
            continue;
        }
        free(cmd);
        char *p = CAT("%s/%s", dir, kinds[k][1]);
        scan_stats st;
        char *out = scan_one(p, &st);
        cr_expect_eq(st.findings, 0, "%s: %s", kinds[k][1], out);
        cr_expect_geq(st.members, 8, "%s: %ld members read:\n%s", kinds[k][1], st.members, out);
        free(out), free(p);
    }
    free(d);
    th_rmrf(dir);
    free(dir);
}
