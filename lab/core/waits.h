/* waits: the store's dice.  The planned wait of lookup (round, request id,
 * attempt) is a pure function of those numbers and the wait kind, drawn from
 * a counter-based generator, so every arm of a round meets the same waits
 * whatever the order of events.
 *
 *   Z  no wait                        F  2 ms always
 *   L  lognormal: 2 ms * exp(Z), Z standard normal (median 2 ms, sigma 1)
 *   H  as L, except when u < 0.01: a freeze of 1 s + u' * 1 s
 * with u, u', and the two uniforms of Z's Box-Muller pair taken from
 * ut_hash4(WAITS_KEY + round, request, attempt, stream) for streams 0..3.
 * No state, no memory.
 */
#ifndef LAB_WAITS_H
#define LAB_WAITS_H

#include <stdint.h>

typedef enum { WAIT_Z = 'Z', WAIT_F = 'F', WAIT_L = 'L', WAIT_H = 'H' } wait_kind;

#define WAITS_KEY 0x5741495453ULL /* "WAITS" */
#define WAITS_FREEZE_P 0.01

/* 0 and *k set for "Z", "F", "L", "H"; -1 otherwise. */
int waits_kind(const char *s, wait_kind *k);
int64_t waits_planned_ns(wait_kind k, uint32_t round, uint32_t req, uint32_t attempt);
/* 1 when lookup (round, req, attempt) of kind H freezes. */
int waits_freezes(wait_kind k, uint32_t round, uint32_t req, uint32_t attempt);
/* The same with another freeze share than 1 in 100 (tests only). */
int64_t waits_planned_ns_p(wait_kind k, double freeze_p, uint32_t round, uint32_t req,
                           uint32_t attempt);

#endif
