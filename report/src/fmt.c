/* fmt.c: one printing rule per kind of value.  The contract is in fmt.h. */
#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MINUS "\xe2\x88\x92"

/* integer part with thousands separators; v >= 0, already rounded */
static void thousands(double v, char *out, size_t n)
{
    char d[64];
    snprintf(d, sizeof d, "%.0f", v);
    size_t len = strlen(d), o = 0;
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = d[i];
    }
    out[o] = 0;
}

/* |v| with a rule giving the decimals; sign handled by the caller */
static void magnitude(double a, const char *kind, char *out, size_t n)
{
    if (!strcmp(kind, "ms") || !strcmp(kind, "ns_ms") || !strcmp(kind, "us_ms") || !strcmp(kind, "sms")) {
        if (a >= 999.5)
            thousands(round(a), out, n);
        else if (a >= 99.95)
            snprintf(out, n, "%.0f", a);
        else if (a >= 9.995)
            snprintf(out, n, "%.1f", a);
        else if (a >= 0.9995)
            snprintf(out, n, "%.2f", a);
        else
            snprintf(out, n, "%.3f", a);
    } else if (!strcmp(kind, "pct") || !strcmp(kind, "spp") || !strcmp(kind, "pp")) {
        double p = a * 100;
        char t[64];
        if (p == 0)
            snprintf(t, sizeof t, "0");
        else if (p >= 9.995)
            snprintf(t, sizeof t, "%.1f", p);
        else if (p >= 0.9995)
            snprintf(t, sizeof t, "%.2f", p);
        else
            snprintf(t, sizeof t, "%.3f", p);
        snprintf(out, n, "%s%s", t, !strcmp(kind, "pct") ? "%" : " pp");
    } else if (!strcmp(kind, "x") || !strcmp(kind, "sx")) {
        snprintf(out, n, "%.3f", a);
    } else if (!strcmp(kind, "us")) {
        if (a >= 999.5)
            thousands(round(a), out, n);
        else if (a >= 99.95)
            snprintf(out, n, "%.0f", a);
        else if (a >= 9.995)
            snprintf(out, n, "%.1f", a);
        else
            snprintf(out, n, "%.2f", a);
    } else if (!strcmp(kind, "s")) {
        if (a >= 99.95)
            thousands(round(a), out, n);
        else if (a >= 9.995)
            snprintf(out, n, "%.1f", a);
        else if (a >= 0.9995)
            snprintf(out, n, "%.2f", a);
        else
            snprintf(out, n, "%.3f", a);
    } else { /* int, kb: a median of two counts may end in .5 */
        if (fabs(a - round(a)) < 1e-9) {
            thousands(round(a), out, n);
        } else {
            char ip[64];
            double f = floor(a * 10 + 0.5) / 10;
            thousands(floor(f), ip, sizeof ip);
            snprintf(out, n, "%s.%d", ip, (int)llround((f - floor(f)) * 10) % 10);
        }
    }
}

void fmt_num(double v, const char *kind, char *out, size_t n)
{
    if (!isfinite(v)) {
        snprintf(out, n, "\xe2\x80\x94");
        return;
    }
    if (!strcmp(kind, "ns_ms"))
        v /= 1e6;
    if (!strcmp(kind, "us_ms"))
        v /= 1e3;
    int neg = v < 0;
    char m[96];
    magnitude(fabs(v), kind, m, sizeof m);
    int zero = 1;
    for (const char *p = m; *p; p++)
        if (*p >= '1' && *p <= '9')
            zero = 0;
    int signed_kind = kind[0] == 's' && strcmp(kind, "s") && strcmp(kind, "str");
    if (neg && !zero)
        snprintf(out, n, MINUS "%s", m);
    else if (signed_kind && !zero)
        snprintf(out, n, "+%s", m);
    else
        snprintf(out, n, "%s", m);
}

int fmt_value(const json_t *v, const char *kind, char *out, size_t n)
{
    if (!v || json_is_null(v)) {
        snprintf(out, n, "\xe2\x80\x94");
        return 0;
    }
    if (!strcmp(kind, "str")) {
        if (!json_is_string(v))
            goto bad;
        snprintf(out, n, "%s", json_string_value(v));
        return 0;
    }
    if (!strcmp(kind, "right") || !strcmp(kind, "tf") || !strcmp(kind, "yn")) {
        if (!json_is_boolean(v))
            goto bad;
        int t = json_is_true(v);
        snprintf(out, n, "%s", kind[0] == 'r' ? (t ? "right" : "wrong") : kind[0] == 'y' ? (t ? "yes" : "no") : (t ? "true" : "false"));
        return 0;
    }
    if (!strcmp(kind, "len")) {
        if (!json_is_array(v) && !json_is_object(v))
            goto bad;
        fmt_num((double)(json_is_array(v) ? json_array_size(v) : json_object_size(v)), "int", out, n);
        return 0;
    }
    if (!json_is_number(v))
        goto bad;
    fmt_num(json_number_value(v), kind, out, n);
    return 0;
bad:
    snprintf(out, n, "?");
    return -1;
}

int fmt_known(const char *kind)
{
    static const char *const kinds[] = {"int", "ms", "ns_ms", "us_ms", "sms", "pct", "spp", "pp", "x",
                                        "sx",  "us", "s",     "kb",    "str", "right", "tf", "yn", "len"};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(kind, kinds[i]))
            return 1;
    return 0;
}
