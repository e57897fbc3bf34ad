/* fuzz_vnum: the checked number parsers (vnum.c).  Byte 0 picks the range
 * of vn_i64; the rest is the field.  What they accept is checked against
 * the C library: an integer against strtoll, a decimal against strtod and
 * strtof (same value, bit for bit), and the syntax against vnum.h's. */
#include <errno.h>
#include <limits.h>
#include <math.h>

#include "fuzzhelp.h"
#include "vnum.h"

/* vnum.h's decimal syntax, written again plainly */
static int decimal_syntax(const char *s, size_t n)
{
    size_t i = 0, d1 = 0, d2 = 0;
    if (i < n && s[i] == '-')
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, d1++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, d2++;
    }
    if (!d1 && !d2)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d3 = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, d3++;
        if (!d3)
            return 0;
    }
    return i == n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    static const long long los[4] = {LLONG_MIN, 0, -1000, 1};
    static const long long his[4] = {LLONG_MAX, 1000000, 1000, 1};
    int r = data[0] % 4;
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    char *z = malloc(n + 1);
    memcpy(z, s, n);
    z[n] = 0;
    int plain = strlen(z) == n;   /* no NUL inside: the C library sees the same field */

    long long v = 42;
    int rc = vn_i64(s, n, los[r], his[r], &v);
    if (rc == VN_OK) {
        if (!plain)
            abort();
        errno = 0;
        char *e;
        long long w = strtoll(z, &e, 10);
        if (errno || *e || w != v || v < los[r] || v > his[r] || z[0] == '+' || z[0] == ' ')
            abort();
    } else if (rc == VN_RANGE) {
        if (v != 42)
            abort(); /* *out untouched */
    } else if (rc != VN_SYNTAX)
        abort();

    double d = 42;
    rc = vn_f64(s, n, &d);
    if (plain && (rc == VN_OK || rc == VN_RANGE) != decimal_syntax(z, n)) {
        fprintf(stderr, "vn_f64 \"%s\": %d\n", z, rc);
        abort();
    }
    if (rc == VN_OK) {
        double w = strtod(z, NULL);
        if (memcmp(&w, &d, sizeof d) || !isfinite(d))
            abort();
    }
    float f = 42;
    rc = vn_f32(s, n, &f);
    if (plain && (rc == VN_OK || rc == VN_RANGE) != decimal_syntax(z, n))
        abort();
    if (rc == VN_OK) {
        float w = strtof(z, NULL);
        if (memcmp(&w, &f, sizeof f) || !isfinite(f))
            abort();
    }
    free(z);
    return 0;
}
