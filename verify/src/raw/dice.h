/* dice: what a reader can draw again, written from lab/RAWFORMAT.md's
 * section "What a reader can draw again: the schedule and the dice" alone:
 * the mixer and the counter-based dice, the sequential generator
 * (xoshiro256** seeded through splitmix64), the open-loop schedule, the
 * planned wait of a lookup and the fault dice (flaky, missing).
 *
 * Contract: pure functions; no I/O, no allocation, no global state.  All
 * integer arithmetic is on uint64_t modulo 2^64, as the page says (a
 * negative req, attempt, row or round read from a file wraps); doubles are
 * evaluated in the order the page writes them (this folder compiles with
 * -std=c11, so no contraction into fused multiply-adds).
 *   - dc_sched_init / dc_sched_next stream the schedule's offsets (ns from
 *     t0_ns) of a run of `rate` R > 0 requests a second over `seconds` S:
 *     1 and the next offset, or 0 once the schedule has ended (and 0 ever
 *     after).  A rate whose steps round to 0 ns would never end: after
 *     DC_SCHED_MAX offsets the stream ends with s->capped set.
 *   - dc_wait gives W(wait, round, req, attempt) for the wait codes Z F L H
 *     with freeze share p; -1 for any other code.
 *   - dc_flaky / dc_missing: 1 when the dice say E / N (their u in *u).
 */
#ifndef DICE_H
#define DICE_H

#include <stdint.h>

uint64_t dc_mix64(uint64_t x);
uint64_t dc_hash4(uint64_t key, uint64_t a, uint64_t b, uint64_t c);
/* (x >> 11) * 2^-53: a double in [0, 1) */
double dc_unit(uint64_t x);

typedef struct {
    uint64_t s[4];
} dc_gen;

void dc_seed(dc_gen *g, uint64_t n);
uint64_t dc_next(dc_gen *g);
double dc_next_unit(dc_gen *g);

/* the schedule's seed of a round: 1000003 round + 17 */
uint64_t dc_schedule_seed(uint64_t round);

#define DC_SCHED_MAX 100000000LL

typedef struct {
    dc_gen g;
    double rate;
    long long span, off, count;
    int done, capped;
} dc_sched;

void dc_sched_init(dc_sched *s, uint64_t round, double rate, double seconds);
int dc_sched_next(dc_sched *s, long long *off);

/* the keys of the dice (RAWFORMAT.md) */
#define DC_WAIT_KEY 0x5741495453ULL
#define DC_FLAKY_KEY 0x464c414b59ULL
#define DC_MISSING_KEY 0x4d495353ULL
#define DC_FREEZE_NS 1000000000LL

int dc_wait(char wait, uint64_t round, uint64_t req, uint64_t attempt, double p, long long *out);
int dc_flaky(uint64_t round, uint64_t req, uint64_t attempt, double *u);
int dc_missing(uint64_t row, double *u);

#endif
