/* fuzz_answer: the tester's reader of the service's answers (lab/tester/answer.c:
 * ans_head_parse, ans_body_parse) on one connection's bytes, read as
 * lab/tester/tester.c's parse_answers reads them (answers back to back, the body
 * NUL-terminated in place, 1 MiB at most).  Byte 0 is the request number j
 * the body must carry.  Properties: a complete head lies in the bytes
 * read, every shorter prefix of it is "not complete yet"; a body read
 * gives a kind of RAWFORMAT.md (L K D E) and, unless E, a finite score.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "fuzzfile.h"

#define MAX_ANSWER_BYTES (1 << 20) /* lab/tester/tester.c's */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int64_t j = data[0];
    size_t n = size - 1;
    char *buf = malloc(n + 1);
    memcpy(buf, data + 1, n);
    buf[n] = 0;
    char why[256];
    size_t off = 0;
    for (int k = 0; off < n && k < 64; k++) {
        ans_head h;
        int rc = ans_head_parse(buf + off, n - off, MAX_ANSWER_BYTES, &h, why, sizeof why);
        FZ_ASSERT(rc >= -1 && rc <= 1);
        if (rc != 1)
            break;
        FZ_ASSERT(h.head_len > 0 && h.head_len <= n - off && h.status >= 100 && h.status <= 999);
        if (h.head_len <= 2048)
            for (size_t p = 0; p < h.head_len; p++) {
                ans_head hp;
                char save = buf[off + p];
                buf[off + p] = 0; /* the caller's NUL after the bytes read */
                int prc = ans_head_parse(buf + off, p, MAX_ANSWER_BYTES, &hp, why, sizeof why);
                buf[off + p] = save;
                FZ_ASSERT(prc == 0);
            }
        size_t total = h.head_len + h.body_len;
        if (total > n - off)
            break;
        char save = buf[off + total];
        buf[off + total] = 0;
        char kind = 0;
        float score = 0;
        if (ans_body_parse(buf + off + h.head_len, h.status, j, &kind, &score, why, sizeof why) == 0) {
            FZ_ASSERT(kind == 'L' || kind == 'K' || kind == 'D' || kind == 'E');
            FZ_ASSERT(kind == 'E' || isfinite(score));
        }
        buf[off + total] = save;
        off += total;
    }
    free(buf);
    return 0;
}
