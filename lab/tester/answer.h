/* answer: how the tester reads the service's answers (HTTP/1.1 over a
 * keep-alive connection), as pure functions tested without sockets.
 *
 * An answer is a status line "HTTP/1.x NNN ...", header lines, an empty
 * line and exactly Content-Length bytes of body (a missing Content-Length
 * is an error: the service always sends one).  "Connection: close" asks the
 * tester to close after it.  A body {"id":J,"score":S,"kind":"live"} is a
 * score; kind live, last_known or default gives the codes L, K, D of
 * RAWFORMAT.md, anything else (an error status) E.  The body's "id" must be
 * the request's number; numbers are read with opt_i64 / opt_f64 (the score
 * is written with %.9g from a float, so it comes back as the same float).
 *
 * Nothing here allocates; messages go into the caller's `why`.
 */
#ifndef LAB_ANSWER_H
#define LAB_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#define ANS_MAX_HEAD 65536 /* bytes of status line and headers */

typedef struct {
    int status;       /* 100 to 999 */
    size_t head_len;  /* bytes up to and including the empty line */
    size_t body_len;  /* Content-Length */
    int close;        /* "Connection: close" */
} ans_head;

/* The head at the start of buf[0..n) (buf[n] must be '\0'): 1 complete (h
 * filled), 0 not complete yet, -1 malformed (why says how).  A body longer
 * than max_body is malformed. */
int ans_head_parse(const char *buf, size_t n, size_t max_body, ans_head *h, char *why, size_t whylen);

/* The body (NUL-terminated) of the answer with `status` to request j: its
 * kind code and, unless E, its score.  0, or -1 (why). */
int ans_body_parse(const char *body, int status, int64_t j, char *kind, float *score, char *why,
                   size_t whylen);

#endif
