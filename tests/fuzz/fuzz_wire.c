/* fuzz_wire: the store's and the service's frame decoders (lab/core/wire.h) on a
 * stream of bytes, cut into frames as lab/store/store.c (32-byte requests and
 * clock frames) and lab/service/storeconn.c (40-byte answers) cut theirs, up to the
 * first bad frame.  Properties: a frame accepted, written back with the
 * matching wire_put_*, gives the same bytes (a request's and a clock
 * frame's fields are all kept); an accepted answer's status is known.
 */
#include <stdint.h>
#include <string.h>

#include "fuzzfile.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char back[WIRE_ANS_SIZE];
    /* the store's side */
    for (size_t off = 0; size - off >= WIRE_REQ_SIZE; off += WIRE_REQ_SIZE) {
        const unsigned char *b = data + off;
        int64_t t0;
        wire_req r;
        if (wire_get_clock(b, &t0) == 0) {
            wire_put_clock(back, t0);
            /* a clock frame's other bytes are zeros by the contract; the
             * store only reads t0 from it */
            FZ_ASSERT(memcmp(back, b, 4) == 0 && memcmp(back + 8, b + 8, 8) == 0);
            continue;
        }
        if (wire_get_req(b, &r) != 0)
            break;
        wire_put_req(back, &r);
        FZ_ASSERT(memcmp(back, b, WIRE_REQ_SIZE) == 0);
    }
    /* the service's side */
    for (size_t off = 0; size - off >= WIRE_ANS_SIZE; off += WIRE_ANS_SIZE) {
        wire_ans a;
        if (wire_get_ans(data + off, &a) != 0)
            break;
        FZ_ASSERT(a.status < WIRE_NSTATUS);
        wire_put_ans(back, &a);
        FZ_ASSERT(memcmp(back, data + off, WIRE_ANS_SIZE) == 0);
    }
    return 0;
}
