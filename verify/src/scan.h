/* scan: the secret scanner.
 *
 * Contract: scan_buffer looks through bytes for anything secret-looking and
 * calls cb once per finding, in offset order (a finding names its rule, the
 * byte offset and a masked excerpt; the secret is never handed out whole).
 * scan_tree opens every regular file under <root>/results and
 * <root>/provenance (a file that starts with the gzip magic 1f 8b is
 * inflated first, and offsets are then in the inflated stream), prints one
 * line per finding
 *     FINDING <path> offset <n>[ (inflated)] <rule>: <masked>
 * and fills scan_stats.  Owns nothing after return.
 *
 * Rules (verify/README.md gives the reasons for each threshold):
 *   aws-access-key-id   AKIA/ASIA + 16 of [A-Z0-9], bounded
 *   aws-secret-key      40 base64 chars within 40 bytes after a key-ish word
 *   account-number      12 digits next to account/owner/acct/arn:aws words
 *   cloud-resource-id   i- sg- vpc- eni- subnet- ami- vol- snap- + 8 or 17 hex
 *   cloud-host-name     *.amazonaws.com, *.compute.internal, *.ec2.internal,
 *                       ec2-a-b-c-d, ip-a-b-c-d, *.cloudapp.net,
 *                       *.cloudapp.azure.com, *.googleusercontent.com
 *   ipv4-address        a.b.c.d (octets 0-255, not next to a digit or dot;
 *                       127.0.0.0/8 and 0.0.0.0 allowed)
 *   ipv6-address        a valid IPv6 text form other than :: and ::1
 *   private-key         -----BEGIN ... PRIVATE KEY
 *   high-entropy-token  >= 32 chars: hex with entropy >= 3.0 bits/char, or
 *                       base64-ish with entropy >= 4.0 bits/char and >= 3
 *                       letter/digit switches
 *   gzip-unreadable     a gzip file that does not inflate to its end
 * Allowed: pure lowercase hex of length 40 or 64 (hashes), AWS's documented
 * example keys, data:image/...;base64 payloads.
 */
#ifndef SCAN_H
#define SCAN_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *rule;
    size_t offset;
    size_t len;
    char masked[160];
} scan_finding;

typedef void (*scan_cb)(void *ctx, const scan_finding *f);

/* returns the number of findings */
size_t scan_buffer(const unsigned char *buf, size_t n, scan_cb cb, void *ctx);

/* s[0..len) with its middle replaced by '*' */
void scan_mask(const unsigned char *s, size_t len, char *out, size_t outlen);

typedef struct {
    long files;
    long gz_files;
    long long bytes;       /* scanned, after inflating */
    long findings;
} scan_stats;

/* 0, or 2 when neither folder exists.  max_print: findings printed per file
 * (0 = all); all are counted. */
int scan_tree(const char *root, FILE *out, long max_print, scan_stats *st, char *err, size_t errlen);
/* one file (path for messages = rel) */
void scan_file(const char *path, const char *rel, FILE *out, long max_print, scan_stats *st);

#endif
