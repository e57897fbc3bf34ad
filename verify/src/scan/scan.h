/* scan: the secret scanner (scan.c: the rules over one text; scanwalk.c:
 * files, folders, archives and the findings printed).
 *
 * Contract.  scan_buffer looks through bytes for anything secret-looking
 * and calls cb once per finding, in offset order (a finding names its rule,
 * the byte offset and length in buf and a masked excerpt; the secret is
 * never handed out whole).  JSON escapes (\uXXXX, \/, \" ...) are decoded
 * before the rules, offsets still point into buf.  Owns nothing after
 * return.  The rules (verify/README.md, "The scanner's rules and why",
 * gives each, what it matches and what it leaves alone):
 *   scan.c        aws-access-key-id, aws-secret-key, account-number,
 *                 cloud-resource-id, cloud-host-name, ipv4-address,
 *                 ipv6-address, private-key, high-entropy-token
 *   scanrules.c   the vendor tokens by prefix (github-pat, gitlab-pat,
 *                 slack-bot-token, stripe-access-token, gcp-api-key,
 *                 npm-access-token, pypi-upload-token ...), jwt, webhook URLs
 *   scanpath.c    machine-path (a user's home, root's, a temporary folder's
 *                 working folder, the study's root and the working folder)
 *   scanassign.c  password-assignment, secret-assignment, hex-secret,
 *                 generic-api-key, url-password (with a scheme or without),
 *                 pgpass-password, netrc-password, aws-credentials,
 *                 bearer-token, basic-auth, telegram-bot-api-token,
 *                 azure-ad-client-secret, paypal-braintree-access-token
 * Base64 and hex runs (16 characters or more) are decoded when they decode
 * to text (scantext.h), and the text scanned again with every rule, two
 * encodings deep at most; such a finding spans the encoded run and its
 * via says where it was decoded ("in base64 at byte 9").
 * One place found by several rules is reported once, by the most specific.
 * A documented example key (AWS's AKIAIOSFODNN7EXAMPLE ...) is allowed only
 * as a whole token.
 *
 * Files (scanwalk.c).  Every name (file, folder, archive member) is scanned
 * as well as every content, and the bytes of a container outside its
 * members' bodies (gzip header fields of every member, tar headers and
 * what follows the end, zip extra fields and what no entry covers:
 * scanpack.h).  A file is looked into by what its bytes are,
 * not by its name: gzip, bzip2 and xz are decompressed, tar and zip read
 * member by member (zip: stored and deflate), UTF-16 text (LE or BE, with
 * or without a byte-order mark) decoded to UTF-8, all nested up to
 * max_depth, with at most max(max_bytes, max_ratio x its size)
 * decompressed per file given (all levels together; a real archive
 * inflates a few times its size, a bomb a thousand times) and at most
 * SCAN_MAX_STREAM in one stream.  What
 * cannot be looked into (zstd, 7z, bz2 or xz without their library, an
 * encrypted or zip64 member, a damaged stream, the bounds passed) is itself
 * a finding; what could be read of it is scanned.  A name holding a finding
 * is printed with its middle masked, in its finding and in every path
 * through it.
 *
 * Output.  SCAN_STUDY (scan_tree, scan_file):
 *     FINDING <path>[:<member>...] offset <n>[ (inflated[, in base64 at byte <m>])] <rule>: <masked>
 *     FINDING <path>[:<member>...] name <rule>: <masked>
 * SCAN_LINES (scan_paths, for --scan):
 *     <path>[:<member>...]:<line>: <rule>[ (in hex at byte <m>)]: <masked>
 *     <path>[:<member>...]:name: <rule>: <masked>
 * where <line> counts from 1 in the decompressed, decoded text, and 0 for
 * a finding about the whole file (what could not be looked into).
 */
#ifndef SCAN_H
#define SCAN_H

#include <stddef.h>
#include <stdio.h>

#include "scanrules.h"

/* scan_finding (one finding) and scan_mask are scanrules.h's: the rules fill them */
typedef void (*scan_cb)(void *ctx, const scan_finding *f);

/* returns the number of findings */
size_t scan_buffer(const unsigned char *buf, size_t n, scan_cb cb, void *ctx);

typedef struct {
    long files;            /* files opened */
    long gz_files;         /* gzip streams inflated (files and members) */
    long members;          /* archive members */
    long long bytes;       /* scanned, after decompressing and decoding */
    long findings;
} scan_stats;

typedef enum { SCAN_STUDY, SCAN_LINES } scan_style;

#define SCAN_MAX_BYTES ((size_t)1 << 30)  /* decompressed per file given, at least */
#define SCAN_MAX_RATIO 100                /* ... or this times the file's size, when more */
#define SCAN_MAX_STREAM ((size_t)2 << 30) /* one stream held in memory */
#define SCAN_MAX_DEPTH 8                  /* containers inside containers */

typedef struct {
    FILE *out;
    scan_style style;
    long max_print;        /* findings printed per file or member (0 = all); all are counted */
    size_t max_bytes;      /* the bound per file given: max(max_bytes, max_ratio x its size) */
    size_t max_ratio;
    int max_depth;
} scan_opts;

void scan_opts_default(scan_opts *o, FILE *out, scan_style style, long max_print);

/* every file under <root>/results and <root>/provenance but what make report
 * writes from verified.json (vf_written_after, vfiles.h), SCAN_STUDY lines
 * (root's absolute path is a machine-path while it runs: scanpath.h); 0,
 * or 2 when neither folder exists.  Fills st. */
int scan_tree(const char *root, FILE *out, long max_print, scan_stats *st, char *err, size_t errlen);
/* one file (its name for messages and for the scan of names = rel); adds to st */
void scan_file(const char *path, const char *rel, FILE *out, long max_print, scan_stats *st);
/* --scan: each path (a file, a folder, an archive) with its name; 0, or 2
 * when a path given is missing or unreadable (err says which).  Fills st. */
int scan_paths(const char *const *paths, size_t n, const scan_opts *o, scan_stats *st, char *err, size_t errlen);

#endif
