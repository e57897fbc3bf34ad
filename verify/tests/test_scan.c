/* The secret scanner: true positives (built at test time from pieces, so
 * nothing committed looks like a real secret) and false positives, each
 * with its reason; a secret inside a gzip file is found, and one in base64
 * there with where it was decoded. */
#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "scan.h"
#include "synth.h"
#include "thelp.h"
#include "vutil.h"

typedef struct {
    char rules[16][40];
    size_t offs[16];
    char masked[16][160];
    int n;
} got_t;

static void collect(void *ctx, const scan_finding *f)
{
    got_t *g = ctx;
    if (g->n < 16) {
        snprintf(g->rules[g->n], sizeof g->rules[0], "%s", f->rule);
        g->offs[g->n] = f->offset;
        snprintf(g->masked[g->n], sizeof g->masked[0], "%s", f->masked);
    }
    g->n++;
}

static got_t scan_text(const char *s)
{
    got_t g;
    memset(&g, 0, sizeof g);
    scan_buffer((const unsigned char *)s, strlen(s), collect, &g);
    return g;
}

typedef struct {
    char *text;
    const char *rule;
    const char *secret; /* the part that must never be printed whole */
    const char *reason;
} tcase;

#define CAT(...) vu_xasprintf(__VA_ARGS__)

Test(scan, true_positives)
{
    /* pieces joined at run time */
    char *akia = CAT("%s%s%s%s%s", "AK", "IA", "Q3WZ7HN2", "KD5P", "X4RT");
    char *asia = CAT("%s%s%s", "AS", "IA", "J8RM2VQ6ZP4LN7TY");
    char *sec = CAT("%s%s%s%s%s", "h7Kq2LmN", "9pXr/4TvW", "b8Yc1ZdE6f", "GhJ3kL5mN", "0pQr");
    char *acct = CAT("%s%s%s", "8412", "7730", "5521");
    char *b64 = CAT("%s%s%s%s", "q8ZrT2vXm9Lk", "W4pN7bR1sYc6", "Hd3Fj5Gt0Ku8", "Ea2Vn");
    char *hex = CAT("%s%s%s%s", "9f3ac1e7", "5b20d84f", "e61a7c39", "0d5b2e84");
    tcase cases[] = {
        {CAT("aws_access_key_id = %s\n", akia), "aws-access-key-id", akia, "an access key id"},
        {CAT("{\"AccessKeyId\": \"%s\"}", asia), "aws-access-key-id", asia, "a temporary (ASIA) key id"},
        {CAT("aws_secret_access_key=%s\n", sec), "aws-secret-key", sec, "40 base64 chars after a secret's name"},
        {CAT("{\"AccountId\": \"%s\"}", acct), "account-number", acct, "12 digits named an account"},
        {CAT("role arn:aws:iam::%s:role/lab", acct), "account-number", acct, "12 digits in an ARN"},
        {CAT("%s.dkr.ecr.eu-west-1 x", acct), "account-number", acct, "12 digits of a registry host"},
        {CAT("instance %s%s ran", "i-", "0a1b2c3d4e5f60718"), "cloud-resource-id", "0a1b2c3d4e5f60718", "a 17-hex instance id"},
        {CAT("instance %s%s ran", "i-", "0a1b2c3d"), "cloud-resource-id", "0a1b2c3d", "an 8-hex instance id"},
        {CAT("group %s%s", "sg-", "1a2b3c4d"), "cloud-resource-id", "1a2b3c4d", "a security group"},
        {CAT("net %s%s", "vpc-", "0f1e2d3c4b5a69788"), "cloud-resource-id", "0f1e2d3c4b5a69788", "a network"},
        {CAT("nic=%s%s;", "eni-", "7a6b5c4d"), "cloud-resource-id", "7a6b5c4d", "a network interface"},
        {CAT("\"%s%s\"", "subnet-", "9e8d7c6b"), "cloud-resource-id", "9e8d7c6b", "a subnet"},
        {CAT("image %s%s.", "ami-", "0c1d2e3f"), "cloud-resource-id", "0c1d2e3f", "an image"},
        {CAT("disk %s%s\n", "vol-", "049df61146f12e7a3"), "cloud-resource-id", "049df61146f12e7a3", "a volume"},
        {CAT("host %s%s", "ip-10-0-1-23", ".ec2.internal"), "cloud-host-name", "ip-10-0-1-23", "an internal host name"},
        {CAT("host %s.%s", "ec2-54-12-34-56.eu-west-1.compute", "amazonaws.com"), "cloud-host-name", "54-12-34-56", "a public host name"},
        {CAT("node %s.%s", "ip-172-31-5-9.eu-west-1", "compute.internal"), "cloud-host-name", "172-31-5-9", "a VPC host name"},
        {CAT("from %s to", "10.1.2.3"), "ipv4-address", "10.1.2.3", "a private IPv4 address"},
        {CAT("dns %s.", "8.8.4.4"), "ipv4-address", "8.8.4.4", "an address at a sentence's end"},
        {CAT("\"addr\":\"%s\"", "192.168.0.17"), "ipv4-address", "192.168.0.17", "an address in JSON"},
        {CAT("ll %s%s", "fe80::1ff:", "fe23:4567:890a"), "ipv6-address", "fe23:4567:890a", "a link-local IPv6"},
        {CAT("[%s%s]:443", "2001:db8::", "8a2e:370:7334"), "ipv6-address", "8a2e:370:7334", "a compressed IPv6"},
        {CAT("%s%s", "2001:0db8:0000:0000:", "0000:ff00:0042:8329"), "ipv6-address", "0000:ff00:0042:8329", "a full IPv6"},
        {CAT("%s%s%s\nMIIE\n", "-----BEGIN ", "RSA PRIVATE", " KEY-----"), "private-key", NULL, "a private key block"},
        {CAT("%s%s%s\n", "-----BEGIN ", "OPENSSH PRIVATE", " KEY-----"), "private-key", NULL, "an OpenSSH key block"},
        {CAT("blob %s\n", b64), "high-entropy-token", b64, "44 random base64 chars, no name"},
        {CAT("token: %s\n", b64), "generic-api-key", b64, "the same named a token (the assignment rule wins)"},
        {CAT("x=%s;", hex), "high-entropy-token", hex, "32 random hex chars (not a 40/64 hash)"},
        {CAT("jwt %s-%s_%s", "q8ZrT2vXm9Lk", "W4pN7bR1sYc6", "Hd3Fj5Gt0Ku8Ea2Vn"), "high-entropy-token", "W4pN7bR1sYc6",
         "a base64url token with - and _"},
        {CAT("%s-%s", "10.0.0.1", "10.0.0.5"), "ipv4-address", "10.0.0.5", "the second address of a range"},
    };
    size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++) {
        got_t g = scan_text(cases[i].text);
        int found = 0;
        for (int k = 0; k < g.n && k < 16; k++) {
            if (!strcmp(g.rules[k], cases[i].rule))
                found = 1;
            if (cases[i].secret)
                cr_expect(!strstr(g.masked[k], cases[i].secret), "%s printed whole", cases[i].reason);
        }
        cr_expect(found, "case %zu (%s): rule %s not found in \"%s\" (%d findings%s%s)", i, cases[i].reason,
                  cases[i].rule, cases[i].text, g.n, g.n ? ", first " : "", g.n ? g.rules[0] : "");
        free(cases[i].text);
    }
    /* the offset is the byte where the secret starts */
    char *t = CAT("abc %s def", akia);
    got_t g = scan_text(t);
    cr_assert_eq(g.n, 1);
    cr_expect_eq(g.offs[0], 4);
    cr_expect_str_eq(g.masked[0], "AKIA************X4RT");
    free(t);
    free(akia);
    free(asia);
    free(sec);
    free(acct);
    free(b64);
    free(hex);
}

Test(scan, false_positives)
{
    char *png = CAT("<img src=\"data:image/png;base64,%s%s\">", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ",
                    "AAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==");
    struct {
        const char *text;
        const char *reason;
    } cases[] = {
        {"\"git_commit\": \"29a1fbaaa81f6add8ceef91c4812195e5c086322\"", "a git commit: 40 lowercase hex is a hash"},
        {"results/raw/H3-fb25-r1/tester.tsv.gz\t34063\t31829a6d867390fd6ada9a8b39fc3213b4feec9635248ae53bbd095e026ce3f8\n",
         "a manifest line: 64 lowercase hex is a sha256"},
        {"listen 127.0.0.1:8080 and 127.12.0.3", "loopback 127.0.0.0/8"},
        {"bind 0.0.0.0 port", "the unspecified address"},
        {"[::1]:80 and :: and 0:0:0:0:0:0:0:1", "IPv6 loopback and unspecified"},
        {"\"kernel\": \"6.18.44-fc-v657\"", "a kernel version: three parts"},
        {"xgboost 1.7.4, gcc 12.2.0, OpenSSL 3.0.19 27 Jan 2026, zlib 1.2.13", "library versions"},
        {"1.2.3.4.5 and 300.1.2.3 and 1.2.3", "not four octets of 0-255"},
        {"aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AWS's documented example key id"},
        {"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS's documented example secret"},
        {"lookups 940501312630 in all", "an ordinary 12-digit number, not named an account"},
        {"\"t0_ns\": 1052957221867, \"late_max_ns\": 3716167", "nanosecond integers"},
        {"\"test_ap\": 0.570016972, \"share\": 0.031802020288055913, 25.254976616", "floats"},
        {"\"end_utc\": \"2026-11-30T05:46:19Z\", at 05:46:19 or 12:34:56.789", "times of day"},
        {"1470\t1470\t761573\t762533\t236371\t200\tL\t0.0163921881\t62\t0\n", "a tester row"},
        {"1\t1\t1052959417848\t1052960736802\t200\tL\t1\t1052959417848\t1052960687049\tA\t-\t-\t-\t-\t-\t-\n", "a service row"},
        {"/srv/lab/build/quick/results/raw/H3-fb25-r1/tester.tsv.gz", "a path"},
        {"build/quick/results/raw/H4-dldown-r5/service.tsv.gz", "a relative path"},
        {"lab_results_verified_json_format_version2 ThisIsALongCamelCaseIdentifierName2", "long identifiers"},
        {"-std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Ilab -Ipipeline -I/usr/include/postgresql", "compiler flags"},
        {"multi-12345678 hi-deadbeef semi-0a1b2c3d", "a dash after a word that is no id prefix"},
        {"std::vector<int> a; x::y", "C++ scope"},
        {"mac 00:1a:2b:3c:4d:5e", "a MAC address (6 groups, no ::)"},
        {"customer\tcutoff\tlabel\tscore\tlast_known\n15763\t2011-11-01\t1\t0.241731972\t0.281206131\n", "a reference line"},
        {"\"mem_total_kb\": 24684092, \"cpus_online\": 2", "host facts"},
        {"ip-address and ec2-instance and ip-1-2-3", "host prefixes without 4 octets"},
        {png, "a figure embedded as a data:image base64 payload"},
        {"911_debian_XF86Config_to_XF86Config-4.diff", "a file name of words and numbers"},
        {"see https://sqlite.org/forum/forumpost/719a11e1314d1c70 there", "a URL of words and an id"},
        {"gnome-icon-theme (3.2.1.2-1) and v1.2.3.4", "versions marked as such (Debian revision, v prefix)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        got_t g = scan_text(cases[i].text);
        cr_expect_eq(g.n, 0, "false positive %zu (%s): \"%s\" gave %s at %zu (%s)", i, cases[i].reason, cases[i].text,
                     g.n ? g.rules[0] : "", g.n ? g.offs[0] : 0, g.n ? g.masked[0] : "");
    }
    free(png);
}

Test(scan, finds_secrets_inside_gzip, .timeout = 30)
{
    char *root = th_tmpdir();
    cr_assert(root);
    char *dir = CAT("%s/results/raw/X-r1", root);
    cr_assert_eq(syn_mkdirs(dir), 0);
    char *prov = CAT("%s/provenance", root);
    cr_assert_eq(syn_mkdirs(prov), 0);
    /* a clean file and a gzip stream with an address at a known inflated offset */
    char *clean = CAT("%s/provenance/stage-x.json", root);
    syn_write_text(clean, "{\"git_commit\": \"29a1fbaaa81f6add8ceef91c4812195e5c086322\", \"kernel\": \"6.18.44\"}\n");
    char *gzp = CAT("%s/results/raw/X-r1/service.tsv.gz", root);
    gzFile gz = gzopen(gzp, "wb6");
    cr_assert(gz);
    const char *head = "# lab-raw 3 service\nreq\trow\n";
    gzputs(gz, head);
    for (int i = 0; i < 1000; i++)
        gzprintf(gz, "%d\t%d\n", i, i % 7);
    char *ip = CAT("%s.%s", "10.20", "30.40");
    gzprintf(gz, "peer %s\n", ip);
    gzclose(gz);
    size_t off = strlen(head);
    for (int i = 0; i < 1000; i++) {
        char t[32];
        off += (size_t)snprintf(t, sizeof t, "%d\t%d\n", i, i % 7);
    }
    off += 5;
    char *out;
    const char *a[] = {"--root", root, "--scan-only", NULL};
    int rc = th_run(&out, a);
    cr_expect_eq(rc, 1, "%s", out);
    char *want = CAT("FINDING results/raw/X-r1/service.tsv.gz offset %zu (inflated) ipv4-address: ", off);
    cr_expect(strstr(out, want), "want \"%s\" in:\n%s", want, out);
    cr_expect(!strstr(out, ip), "the address is printed whole:\n%s", out);
    cr_expect(strstr(out, "\n1 FINDINGS\n"), "%s", out);
    free(out);
    /* a password in base64 inside the stream: found in the decoded text, at the run's offset */
    char *pwline = CAT("%s=%s", "password", "hunter2"), b64[64];
    EVP_EncodeBlock((unsigned char *)b64, (const unsigned char *)pwline, (int)strlen(pwline));
    gz = gzopen(gzp, "wb6");
    cr_assert(gz);
    gzprintf(gz, "%scfg %s\n", head, b64);
    gzclose(gz);
    rc = th_run(&out, a);
    cr_expect_eq(rc, 1, "%s", out);
    char *want2 = CAT("FINDING results/raw/X-r1/service.tsv.gz offset %zu (inflated, in base64 at byte 9) "
                      "password-assignment: h*****2\n", strlen(head) + 4);
    cr_expect(strstr(out, want2), "want \"%s\" in:\n%s", want2, out);
    cr_expect(strstr(out, "\n1 FINDINGS\n"), "%s", out);
    free(out), free(want2), free(pwline);
    /* a clean tree passes */
    unlink(gzp);
    rc = th_run(&out, a);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "\n0 FINDINGS\n"), "%s", out);
    free(out);
    th_rmrf(root);
    free(want);
    free(ip);
    free(gzp);
    free(clean);
    free(prov);
    free(dir);
    free(root);
}
