/* faults: see faults.h. */
#include "faults.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The scenarios: the one table (faults.h explains each). */
static const struct {
    fault_kind kind;
    const char *name;
    double from, to; /* the default window; -1, -1: none */
} FAULTS[] = {
    {FAULT_NONE, "none", -1, -1},
    {FAULT_DOWN, "down", 1.0 / 3, 2.0 / 3},
    {FAULT_HANG, "hang", 1.0 / 3, 2.0 / 3},
    {FAULT_RESET, "reset", 1.0 / 3, 2.0 / 3},
    {FAULT_NEVER, "never", 1.0 / 3, FAULTS_END},
    {FAULT_FLAKY, "flaky", -1, -1},
    {FAULT_MISSING, "missing", -1, -1},
    {FAULT_SLOW, "slow", 1.0 / 3, 2.0 / 3},
    {FAULT_SLOWBOTH, "slowboth", 1.0 / 3, 2.0 / 3},
};
enum { NFAULTS = sizeof FAULTS / sizeof FAULTS[0] };

const char *fault_name(fault_kind k)
{
    for (int i = 0; i < NFAULTS; i++)
        if (FAULTS[i].kind == k)
            return FAULTS[i].name;
    return "?";
}

int fault_has_window(fault_kind k)
{
    for (int i = 0; i < NFAULTS; i++)
        if (FAULTS[i].kind == k)
            return FAULTS[i].from >= 0;
    return 0;
}

/* A fraction of the schedule: a plain decimal in [0, 1]. */
static int fraction(const char *s, size_t n, double *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (!((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.'))
            return -1;
    char *end;
    double v = strtod(buf, &end);
    if (*end || !(v >= 0 && v <= 1))
        return -1;
    *out = v;
    return 0;
}

int fault_parse(const char *text, fault_spec *f, char *why, size_t whylen)
{
    const char *at = strchr(text, '@');
    size_t nlen = at ? (size_t)(at - text) : strlen(text);
    int k = -1;
    for (int i = 0; i < NFAULTS; i++)
        if (strlen(FAULTS[i].name) == nlen && !strncmp(text, FAULTS[i].name, nlen))
            k = i;
    if (k < 0) {
        ut_seterr(why, whylen, "fault '%s' is not a scenario (none, down, hang, reset, never, flaky, missing, slow, slowboth)",
                  text);
        return -1;
    }
    if (!at) {
        *f = (fault_spec){FAULTS[k].kind, FAULTS[k].from, FAULTS[k].to};
        return 0;
    }
    if (FAULTS[k].from < 0) {
        ut_seterr(why, whylen, "fault '%s': %s has no window, so takes no @from-to", text, FAULTS[k].name);
        return -1;
    }
    const char *w = at + 1, *dash = strchr(w, '-');
    double from, to;
    if (!dash || fraction(w, (size_t)(dash - w), &from) != 0) {
        ut_seterr(why, whylen, "fault '%s': the window is @from-to, fractions of the schedule from 0 to 1", text);
        return -1;
    }
    if (!strcmp(dash + 1, "end"))
        to = FAULTS_END;
    else if (fraction(dash + 1, strlen(dash + 1), &to) != 0) {
        ut_seterr(why, whylen, "fault '%s': the window's end '%s' is not a fraction from 0 to 1, or end", text,
                  dash + 1);
        return -1;
    }
    if (to != FAULTS_END && !(from < to)) {
        ut_seterr(why, whylen, "fault '%s': the window [%g, %g) of the schedule is empty", text, from, to);
        return -1;
    }
    if (from >= 1) {
        ut_seterr(why, whylen, "fault '%s': the window starts at the schedule's end, outside the run", text);
        return -1;
    }
    *f = (fault_spec){FAULTS[k].kind, from, to}; /* only now: a refused text leaves *f as it was */
    return 0;
}

/* The shortest plain decimal that reads back as v exactly (fraction() takes
 * no exponent, so not %g: 1e-05; and not %g's 6 digits: 0.123457). */
static void frac_text(char *buf, size_t len, double v)
{
    for (int p = 0; p <= 40; p++) {
        snprintf(buf, len, "%.*f", p, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void fault_format(const fault_spec *f, char *buf, size_t len)
{
    const char *name = fault_name(f->kind);
    for (int i = 0; i < NFAULTS; i++)
        if (FAULTS[i].kind == f->kind && (FAULTS[i].from < 0 || (FAULTS[i].from == f->from && FAULTS[i].to == f->to))) {
            snprintf(buf, len, "%s", name);
            return;
        }
    char from[48], to[48] = "end";
    frac_text(from, sizeof from, f->from);
    if (f->to != FAULTS_END)
        frac_text(to, sizeof to, f->to);
    snprintf(buf, len, "%s@%s-%s", name, from, to);
}

fault_window fault_window_of(const fault_spec *f, double seconds)
{
    fault_window w = {-1, -1};
    if (!fault_has_window(f->kind))
        return w;
    /* fault_parse's window: 0 <= from < to <= 1, or to the end */
    assert(f->from >= 0 && f->from < 1 && (f->to == FAULTS_END || (f->to > f->from && f->to <= 1)));
    w.from_ns = llround(f->from * seconds * 1e9);
    w.to_ns = f->to == FAULTS_END ? INT64_MAX : llround(f->to * seconds * 1e9);
    return w;
}

static int in_window(const fault_window *w, int64_t t_rel)
{
    return t_rel != INT64_MIN && w->from_ns >= 0 && t_rel >= w->from_ns && t_rel < w->to_ns;
}

int fault_row_missing(uint32_t row)
{
    return ut_u64_unit(ut_hash4(FAULTS_MISSING_KEY, row, 0, 0)) < FAULTS_MISSING_P;
}

fault_fate fault_lookup(const fault_spec *f, const fault_window *w, uint32_t round, uint32_t req, uint32_t attempt,
                        uint32_t row, int64_t t_rel)
{
    switch (f->kind) {
    case FAULT_DOWN:
    case FAULT_NEVER:
        return in_window(w, t_rel) ? FAULT_UNAVAILABLE : FAULT_PASS;
    case FAULT_HANG:
        return in_window(w, t_rel) ? FAULT_HOLD : FAULT_PASS;
    case FAULT_FLAKY:
        return ut_u64_unit(ut_hash4(FAULTS_FLAKY_KEY + round, req, attempt, 0)) < FAULTS_FLAKY_P ? FAULT_UNAVAILABLE
                                                                                                 : FAULT_PASS;
    case FAULT_MISSING:
        return fault_row_missing(row) ? FAULT_NOT_FOUND : FAULT_PASS;
    default:
        return FAULT_PASS;
    }
}

int64_t fault_slow_ns(const fault_spec *f, const fault_window *w, int64_t t_rel)
{
    return (f->kind == FAULT_SLOW || f->kind == FAULT_SLOWBOTH) && in_window(w, t_rel) ? FAULTS_SLOW_NS : 0;
}

int fault_at_store(fault_kind k, int store) { return store == 0 || k == FAULT_SLOWBOTH; }

int fault_reset_closed(const fault_spec *f, const fault_window *w, int64_t t_rel)
{
    return f->kind == FAULT_RESET && in_window(w, t_rel);
}
