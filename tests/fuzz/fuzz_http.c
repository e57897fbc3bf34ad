/* fuzz_http: the service's front door (lab/service/httpparse.c) on one connection's
 * bytes, read as the service reads them (lab/service/front.c conn_process_loop):
 * requests parsed one after another from the same buffer with the service's
 * limits, each /score body through http_score_body.  Properties: an
 * accepted request lies inside the bytes read, its body ends it, and every
 * shorter prefix of it is "incomplete" (a request split across reads is
 * never refused).  The whole input is also given to http_score_body alone.
 */
#include <stdint.h>
#include <string.h>

#include "fuzzfile.h"
#include "front.h" /* the front door's limits */
#include "httpparse.h"

#define MAX_BODY FRONT_MAX_BODY
#define MAX_HEAD FRONT_MAX_HEAD

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    char why[160];
    uint32_t id, row;
    (void)http_score_body(buf, size, &id, &row, why, sizeof why);

    size_t off = 0;
    for (int k = 0; off < size && k < 64; k++) {
        http_req h;
        int rc = http_parse(buf + off, size - off, MAX_HEAD, MAX_BODY, &h, why, sizeof why);
        FZ_ASSERT(rc >= HTTP_OK && rc <= HTTP_TOO_LARGE);
        if (rc != HTTP_OK)
            break;
        FZ_ASSERT(h.total > 0 && h.total <= size - off);
        FZ_ASSERT(h.body == buf + off + h.total - h.body_len);
        FZ_ASSERT(h.budget_ns >= -1);
        if (h.total <= 2048) /* quadratic: the short requests only */
            for (size_t p = 0; p < h.total; p++) {
                http_req hp;
                FZ_ASSERT(http_parse(buf + off, p, MAX_HEAD, MAX_BODY, &hp, why, sizeof why) == HTTP_INCOMPLETE);
            }
        if (h.method == HTTP_POST && h.path_is_score &&
            http_score_body(h.body, h.body_len, &id, &row, why, sizeof why) == 0)
            FZ_ASSERT(memchr(h.body, '{', h.body_len) != NULL);
        off += h.total;
    }
    return 0;
}
