/* waits: see waits.h. */
#include "waits.h"

#include <assert.h>
#include <math.h>

#include "util.h"

int waits_kind(const char *s, wait_kind *k)
{
    if (!s || !s[0] || s[1])
        return -1;
    switch (s[0]) {
    case 'Z': case 'F': case 'L': case 'H':
        *k = (wait_kind)s[0];
        return 0;
    }
    return -1;
}

static double u(uint32_t round, uint32_t req, uint32_t attempt, uint64_t stream)
{
    return ut_u64_unit(ut_hash4(WAITS_KEY + round, req, attempt, stream));
}

int waits_freezes(wait_kind k, uint32_t round, uint32_t req, uint32_t attempt)
{
    return k == WAIT_H && u(round, req, attempt, 0) < WAITS_FREEZE_P;
}

int64_t waits_planned_ns(wait_kind k, uint32_t round, uint32_t req, uint32_t attempt)
{
    return waits_planned_ns_p(k, WAITS_FREEZE_P, round, req, attempt);
}

int64_t waits_planned_ns_p(wait_kind k, double freeze_p, uint32_t round, uint32_t req,
                           uint32_t attempt)
{
    assert(freeze_p >= 0 && freeze_p <= 1);
    switch (k) {
    case WAIT_Z:
        return 0;
    case WAIT_F:
        return 2000000;
    case WAIT_H:
        if (u(round, req, attempt, 0) < freeze_p)
            return 1000000000LL + (int64_t)llround(1e9 * u(round, req, attempt, 1));
        __attribute__((fallthrough)); /* the long tail */
    case WAIT_L: {
        double u1 = u(round, req, attempt, 2), u2 = u(round, req, attempt, 3);
        double z = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
        return (int64_t)llround(2e6 * exp(z));
    }
    }
    return 0;
}
