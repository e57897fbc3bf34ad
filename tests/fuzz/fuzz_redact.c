/* fuzz_redact: the redactor of the system log lines collect publishes
 * (redact_line, pipeline/common/redact.c, after pipeline/common/prov.c's prov_mask) on any
 * line.  Properties: the output is NUL-terminated inside the buffer it is
 * given, for a roomy and for a tight buffer; and redacting the redacted
 * line again leaves every word (between spaces) the first pass did not
 * touch as it was: nothing secret-looking is left in them.  (A word with
 * a bracketed replacement or a mask in it may change: "ab.netcd::1" gives
 * "ab.net[ip6]", whose "ab.net" is a host name only once cut;
 * "password='a b'xyz" gives "password=***xyz", masked whole the second time.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzfile.h"
#include "prov.h"
#include "redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *in = malloc(size + 1);
    memcpy(in, data, size);
    in[size] = 0;
    char out[2048], again[2048], tight[17], masked[2048];
    memset(tight, 'x', sizeof tight);
    (void)redact_line(in, out, sizeof out);
    FZ_ASSERT(memchr(out, 0, sizeof out) != NULL);
    (void)redact_line(in, tight, sizeof tight - 1);
    FZ_ASSERT(memchr(tight, 0, sizeof tight - 1) != NULL && tight[sizeof tight - 1] == 'x');
    (void)prov_mask(in, masked, sizeof masked);
    FZ_ASSERT(memchr(masked, 0, sizeof masked) != NULL);
    if (strlen(in) < 400) { /* no cut: the whole line redacted */
        (void)redact_line(out, again, sizeof again);
        const char *a = out, *b = again;
        while (*a && *b) { /* word by word; those with a '[' or a mask '*' may differ */
            size_t la = strcspn(a, " "), lb = strcspn(b, " ");
            if (!memchr(a, '[', la) && !memchr(a, '*', la))
                FZ_ASSERT(la == lb && !memcmp(a, b, la));
            a += la + (a[la] == ' ');
            b += lb + (b[lb] == ' ');
        }
    }
    free(in);
    return 0;
}
