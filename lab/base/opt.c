/* opt: see opt.h for the contract. */
#include "opt.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int fail(char *why, size_t whylen, const char *msg)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", msg);
    return -1;
}

int opt_i64(const char *s, int64_t lo, int64_t hi, int64_t *out, char *why, size_t whylen)
{
    if (!s || !*s)
        return fail(why, whylen, "empty, expected an integer");
    if (isspace((unsigned char)s[0]))
        return fail(why, whylen, "starts with a blank, expected an integer");
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0')
        return fail(why, whylen, "not an integer");
    if (errno == ERANGE)
        return fail(why, whylen, "integer overflow (beyond 64 bits)");
    if (v < lo || v > hi) {
        if (why && whylen)
            snprintf(why, whylen, "out of range %" PRId64 "..%" PRId64, lo, hi);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int opt_int(const char *s, int lo, int hi, int *out, char *why, size_t whylen)
{
    int64_t v;
    if (opt_i64(s, lo, hi, &v, why, whylen) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

int opt_f64(const char *s, double lo, double hi, double *out, char *why, size_t whylen)
{
    if (!s || !*s)
        return fail(why, whylen, "empty, expected a number");
    if (isspace((unsigned char)s[0]))
        return fail(why, whylen, "starts with a blank, expected a number");
    /* strtod also takes hex floats, "inf" and "nan": none belongs in a
     * setting or a raw file of the lab. */
    for (const char *p = s; *p; p++)
        if (!strchr("0123456789+-.eE", *p))
            return fail(why, whylen, "not a decimal number");
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return fail(why, whylen, "not a decimal number");
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
        return fail(why, whylen, "number overflow");
    if (!isfinite(v))
        return fail(why, whylen, "not a finite number");
    if (v < lo || v > hi) {
        if (why && whylen)
            snprintf(why, whylen, "out of range %g..%g", lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* Bounds of an integer option: lo == hi == 0 means the type's whole range. */
static void int_bounds(const opt_spec *o, int64_t *lo, int64_t *hi)
{
    if (o->lo == 0 && o->hi == 0) {
        *lo = o->type == OPT_INT ? INT32_MIN : INT64_MIN;
        *hi = o->type == OPT_INT ? INT32_MAX : INT64_MAX;
        return;
    }
    /* a bound beyond int64's range (INT64_MAX as a double is 2^63) means the
     * type's end, not a cast that overflows */
    *lo = o->lo <= -9223372036854775808.0 ? INT64_MIN : (int64_t)o->lo;
    *hi = o->hi >= 9223372036854775807.0 ? INT64_MAX : (int64_t)o->hi;
}

static int set_value(const opt_spec *o, const char *v)
{
    char why[128] = "";
    int64_t lo, hi, i;
    double d;
    switch (o->type) {
    case OPT_STR:
        *(const char **)o->dst = v;
        return 0;
    case OPT_BOOL:
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
            ut_err("option %s: \"%s\" is not 0 or 1", o->name, v);
            return -1;
        }
        *(int *)o->dst = v[0] == '1';
        return 0;
    case OPT_INT:
    case OPT_I64:
        int_bounds(o, &lo, &hi);
        if (opt_i64(v, lo, hi, &i, why, sizeof why) != 0) {
            ut_err("option %s: \"%s\": %s", o->name, v, why);
            return -1;
        }
        if (o->type == OPT_INT)
            *(int *)o->dst = (int)i;
        else
            *(int64_t *)o->dst = i;
        return 0;
    case OPT_DBL: {
        double dlo = o->lo, dhi = o->hi;
        if (dlo == 0 && dhi == 0) {
            dlo = -HUGE_VAL;
            dhi = HUGE_VAL;
        }
        if (opt_f64(v, dlo, dhi, &d, why, sizeof why) != 0) {
            ut_err("option %s: \"%s\": %s", o->name, v, why);
            return -1;
        }
        *(double *)o->dst = d;
        return 0;
    }
    case OPT_FLAG:
        break;
    }
    return -1;
}

void opt_usage(const opt_spec *spec, const char *about)
{
    if (about)
        printf("%s\n\n", about);
    printf("options:\n");
    for (const opt_spec *o = spec; o->name; o++) {
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->type == OPT_FLAG ? "" : " ",
                 o->type == OPT_FLAG ? "" : (o->meta ? o->meta : "V"));
        printf("  %-24s %s\n", left, o->help ? o->help : "");
    }
}

int opt_parse(int argc, char **argv, const opt_spec *spec, const char *about, opt_pos *pos)
{
    if (pos)
        pos->n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            opt_usage(spec, about);
            return OPT_HELP;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            if (pos && pos->n < OPT_MAXPOS) {
                pos->v[pos->n++] = a;
                continue;
            }
            ut_err("\"%s\" is not an option (try --help)", a);
            return OPT_BAD;
        }
        const char *eq = strchr(a, '=');
        size_t klen = eq ? (size_t)(eq - a) : strlen(a);
        const opt_spec *o = spec;
        for (; o->name; o++)
            if (strlen(o->name) == klen && !strncmp(o->name, a, klen))
                break;
        if (!o->name) {
            ut_err("unknown option %.*s (try --help)", (int)klen, a);
            return OPT_BAD;
        }
        if (o->type == OPT_FLAG) {
            if (eq) {
                ut_err("option %s takes no value", o->name);
                return OPT_BAD;
            }
            *(int *)o->dst = 1;
            continue;
        }
        const char *v;
        if (eq)
            v = eq + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        else {
            ut_err("option %s needs a value (%s)", o->name, o->meta ? o->meta : "see --help");
            return OPT_BAD;
        }
        if (set_value(o, v) != 0)
            return OPT_BAD;
    }
    return OPT_OK;
}
