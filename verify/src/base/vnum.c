/* vnum: the verifier's checked number parsing; see vnum.h. */
#include "vnum.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

int vn_i64(const char *s, size_t len, long long lo, long long hi, long long *out)
{
    size_t i = 0;
    int neg = 0;
    if (len && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == len)
        return VN_SYNTAX;
    unsigned long long v = 0;
    int over = 0, may_over = len - i > 19; /* 19 digits stay below ULLONG_MAX */
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9)
            return VN_SYNTAX;
        /* keep reading after an overflow: "99...9x" is not a number at all */
        if (may_over && v > (ULLONG_MAX - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    if (over || v > (unsigned long long)LLONG_MAX + (unsigned long long)neg)
        return VN_RANGE;
    long long x = neg ? (long long)(0 - v) : (long long)v;
    if (x < lo || x > hi)
        return VN_RANGE;
    *out = x;
    return VN_OK;
}

/* the decimal grammar of vnum.h */
static int decimal(const char *s, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && s[i] == '-')
        i++;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++, digits++;
    }
    if (digits == 0)
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == e)
            return 0;
    }
    return i == len;
}

/* strtod/strtof want a NUL at the end: a copy, on the stack when short */
static int to_double(const char *s, size_t len, int f32, double *d, float *f)
{
    if (!decimal(s, len))
        return VN_SYNTAX;
    char tmp[64], *t = len < sizeof tmp ? tmp : vu_xmalloc(len + 1);
    memcpy(t, s, len);
    t[len] = 0;
    int rc = VN_OK;
    if (f32) {
        float x = strtof(t, NULL);
        if (!isfinite(x))
            rc = VN_RANGE;
        else
            *f = x;
    } else {
        double x = strtod(t, NULL);
        if (!isfinite(x))
            rc = VN_RANGE;
        else
            *d = x;
    }
    if (t != tmp)
        free(t);
    return rc;
}

int vn_f64(const char *s, size_t len, double *out)
{
    return to_double(s, len, 0, out, NULL);
}

int vn_f32(const char *s, size_t len, float *out)
{
    return to_double(s, len, 1, NULL, out);
}
