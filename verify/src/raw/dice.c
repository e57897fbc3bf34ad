/* dice: see dice.h.  Every formula is RAWFORMAT.md's, in its order. */
#include "dice.h"

#include <math.h>

#define GOLDEN 0x9e3779b97f4a7c15ULL

uint64_t dc_mix64(uint64_t x)
{
    x = x + GOLDEN;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t dc_hash4(uint64_t key, uint64_t a, uint64_t b, uint64_t c)
{
    return dc_mix64(dc_mix64(dc_mix64(dc_mix64(key) ^ a) ^ b) ^ c);
}

double dc_unit(uint64_t x)
{
    return (double)(x >> 11) * 0x1p-53;
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* splitmix64: the running x advances by the constant, and mix64 adds it once more */
void dc_seed(dc_gen *g, uint64_t n)
{
    uint64_t x = n;
    for (int i = 0; i < 4; i++) {
        x = x + GOLDEN;
        g->s[i] = dc_mix64(x);
    }
}

uint64_t dc_next(dc_gen *g)
{
    uint64_t *s = g->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double dc_next_unit(dc_gen *g)
{
    return dc_unit(dc_next(g));
}

uint64_t dc_schedule_seed(uint64_t round)
{
    return 1000003ULL * round + 17ULL;
}

void dc_sched_init(dc_sched *s, uint64_t round, double rate, double seconds)
{
    dc_seed(&s->g, dc_schedule_seed(round));
    s->rate = rate;
    s->off = 0;
    s->count = 0;
    s->capped = 0;
    /* the caller gives 0 < seconds <= 1e6 and rate > 0; anything else has no schedule */
    s->done = !(rate > 0 && isfinite(rate) && seconds > 0 && seconds <= 1e6);
    s->span = s->done ? 0 : llround(seconds * 1e9);
}

int dc_sched_next(dc_sched *s, long long *off)
{
    if (s->done)
        return 0;
    if (s->count >= DC_SCHED_MAX) {
        s->done = s->capped = 1;
        return 0;
    }
    double e = -log1p(-dc_next_unit(&s->g));
    double step = (e * 1e9) / s->rate;
    /* a step past the span ends the schedule (and must not overflow llround) */
    if (!(step < (double)(s->span - s->off) + 1.0)) {
        s->done = 1;
        return 0;
    }
    s->off = s->off + llround(step);
    if (s->off >= s->span) {
        s->done = 1;
        return 0;
    }
    s->count++;
    *off = s->off;
    return 1;
}

int dc_wait(char wait, uint64_t round, uint64_t req, uint64_t attempt, double p, long long *out)
{
    if (wait == 'Z') {
        *out = 0;
        return 0;
    }
    if (wait == 'F') {
        *out = 2000000;
        return 0;
    }
    if (wait != 'L' && wait != 'H')
        return -1;
    uint64_t key = DC_WAIT_KEY + round;
    if (wait == 'H' && dc_unit(dc_hash4(key, req, attempt, 0)) < p) {
        double u1 = dc_unit(dc_hash4(key, req, attempt, 1));
        *out = DC_FREEZE_NS + llround(1e9 * u1);
        return 0;
    }
    double u2 = dc_unit(dc_hash4(key, req, attempt, 2)), u3 = dc_unit(dc_hash4(key, req, attempt, 3));
    /* pi: the double nearest to it */
    double z = sqrt(-2.0 * log(1.0 - u2)) * cos((2.0 * 3.141592653589793) * u3);
    *out = llround(2e6 * exp(z));
    return 0;
}

int dc_flaky(uint64_t round, uint64_t req, uint64_t attempt, double *u)
{
    *u = dc_unit(dc_hash4(DC_FLAKY_KEY + round, req, attempt, 0));
    return *u < 0.05;
}

int dc_missing(uint64_t row, double *u)
{
    *u = dc_unit(dc_hash4(DC_MISSING_KEY, row, 0, 0));
    return *u < 0.02;
}
