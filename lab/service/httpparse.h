/* httpparse: the service's HTTP/1.1 request parser and its /score body parser.
 *
 * http_parse looks at the bytes read so far on one connection and says
 * whether they hold a whole request (HTTP_OK, with its parts pointing into
 * the caller's buffer), need more bytes (HTTP_INCOMPLETE), are malformed
 * (HTTP_BAD) or announce a body over max_body (HTTP_TOO_LARGE); on the last
 * two `why` holds the reason sent back to the client.  Only what the lab
 * needs: GET and POST, Content-Length bodies (no chunked encoding), the
 * Connection and X-Budget-Ns headers.  Nothing is allocated.
 */
#ifndef LAB_HTTPPARSE_H
#define LAB_HTTPPARSE_H

#include <stddef.h>
#include <stdint.h>

enum { HTTP_OK, HTTP_INCOMPLETE, HTTP_BAD, HTTP_TOO_LARGE };
enum { HTTP_GET, HTTP_POST, HTTP_OTHER };

typedef struct {
    int method;
    int path_is_score, path_is_health, path_is_calls;
    const char *body;
    size_t body_len;
    size_t total;       /* bytes of this request, head and body */
    int close;          /* the client asked to close after the answer */
    int64_t budget_ns;  /* X-Budget-Ns; 0 = already spent; -1 when absent */
    int has_id;
    int64_t id_hint;
} http_req;

int http_parse(const char *buf, size_t n, size_t max_head, size_t max_body, http_req *h, char *why,
               size_t whylen);

/* {"id":N,"row":R}: both whole numbers 0 to 4294967295, in any order, with
 * any JSON white space; anything else is refused with a reason. */
int http_score_body(const char *body, size_t len, uint32_t *id, uint32_t *row, char *why, size_t whylen);

#endif
