/* scanrules: the finding list the scanner's rules fill, and the rules that
 * recognise a token by its own shape (scan.c finds the tokens).
 *
 * Contract.  A scan_finding is one finding (scan.h hands them out: it is
 * here so that the rules need nothing of scan.h); scan_mask writes s[0..len)
 * with its middle replaced by '*'.  An sr_list collects findings over one
 * text buffer (buf); rules call sr_add with the rule's name (a static
 * string), the byte offset and length of the secret; sr_add masks it at
 * once (the secret is never kept whole); sr_push adds a finding made
 * elsewhere (one from decoded bytes).  The list's array is the caller's
 * to free.
 *
 * sr_token looks at one token [s, e) of b (a run of the bytes scan.c
 * classes) for the vendor tokens (a fixed prefix and a body of a fixed
 * alphabet and length: GitHub, GitLab, Slack, Stripe, Square, Google,
 * DigitalOcean, Heroku, npm, PyPI, ..., see the table in scanrules.c and
 * verify/README.md), JSON Web Tokens and webhook URLs (Slack, Discord,
 * Microsoft Teams).  in_image: the token is a data:image/...;base64 payload
 * (an embedded figure): then nothing is looked for.
 *
 * sr_is_example: [s, e) lies inside a documented example key that stands
 * as a whole token (not the start or the middle of a longer one).
 * sr_rank: a rule's rank for one place found by several rules (the lowest
 * rank is kept): 1 a token of known shape, 2 an assignment or header of a
 * secret (and a machine's path: scanpath.h), 3 the entropy rule.
 * sr_vendor (for the tests): entry k of the vendor table (0 past its end):
 * prefix, rule, the body's length range and alphabet (NUL-terminated).
 */
#ifndef SCANRULES_H
#define SCANRULES_H

#include <stddef.h>

/* one finding: its rule, where it is in the buffer, a masked excerpt; for
 * a finding in decoded bytes (base64, hex: scan.c) offset and len span the
 * encoded run, masked is of the decoded secret and via says where it was
 * decoded ("in base64 at byte 12"; "" when not) */
typedef struct {
    const char *rule;
    size_t offset;
    size_t len;
    char masked[160];
    char via[96];
} scan_finding;

/* s[0..len) with its middle replaced by '*' */
void scan_mask(const unsigned char *s, size_t len, char *out, size_t outlen);

typedef struct {
    scan_finding *v;
    size_t n, cap;
    const unsigned char *buf;
} sr_list;

void sr_add(sr_list *l, const char *rule, size_t off, size_t len);
void sr_push(sr_list *l, const scan_finding *f);
int sr_is_example(const unsigned char *b, size_t n, size_t s, size_t e);
double sr_entropy(const unsigned char *s, size_t n);
int sr_rank(const char *rule);
void sr_token(sr_list *l, const unsigned char *b, size_t n, size_t s, size_t e);
int sr_vendor(size_t k, const char **pfx, const char **rule, unsigned *min, unsigned *max, char alphabet[96]);

#endif
