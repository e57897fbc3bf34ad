/* wire: the service <-> store lookup protocol, binary frames over TCP.
 *
 * A connection carries many lookups at once (multiplexed): the service
 * writes request frames back to back, and the store answers each, in any
 * order, with an answer frame carrying the request's tag.  All fields are
 * little-endian, packed, fixed size.
 *
 *   request (32 bytes)                 answer (40 bytes)
 *   u32 magic  WIRE_REQ_MAGIC          u32 magic  WIRE_ANS_MAGIC
 *   u32 row    table row               u32 status (below)
 *   u32 req    the request's id (j)    u64 tag    copied from the request
 *   u16 attempt 0, 1, 2 ...            f32 x[6]   the row's features (OK only,
 *   u16 flags  0                                  else zeros)
 *   i64 budget_ns  remaining budget, 0 = none (like gRPC's timeout header:
 *                  a duration, not a clock reading)
 *   u64 tag    the service's id for this lookup
 *
 * The answer's status, and the class of error the service gives it:
 *   WIRE_OK           0  the features
 *   WIRE_DROPPED      1  the lookup's budget ran out (the budget is spent: a
 *                        retry would be too)
 *   WIRE_UNKNOWN_ROW  2  no such row (permanent)
 *   WIRE_UNAVAILABLE  3  the store cannot serve it now (transient: retry)
 *   WIRE_NOT_FOUND    4  the row is missing from the store (permanent)
 * An answer with another status is malformed, like a wrong magic.
 *
 * The clock frame (32 bytes), sent once by the tester on a connection of
 * its own before its first request, tells the store the run's t0, from
 * which its fault windows run (lab/core/faults.h):
 *   u32 magic WIRE_CLOCK_MAGIC, u32 0, i64 t0_ns (CLOCK_MONOTONIC), 16 zero bytes
 *
 * The drain frame (32 bytes), sent by the run driver on a connection of
 * its own once the tester has ended, asks the store to say when it holds
 * no lookup any more (in a slot, in line, or held by a hang window):
 *   u32 magic WIRE_DRAIN_MAGIC, 28 zero bytes
 * The store answers it with one drained frame (40 bytes, the size of an
 * answer) as soon as it holds none, at once when it holds none already:
 *   u32 magic WIRE_DRAINED_MAGIC, 36 zero bytes
 * so the driver stops the store as soon as every lookup's slot time is on
 * record instead of sleeping a fixed time (lab/run/run.c, --settle-s is then
 * the longest it waits).
 *
 * A frame whose magic is wrong closes that connection only.  Only this
 * header; no code owns memory here.
 */
#ifndef LAB_WIRE_H
#define LAB_WIRE_H

#include <stdint.h>
#include <string.h>

#define WIRE_REQ_MAGIC 0x504b4c4bu /* "KLKP" */
#define WIRE_ANS_MAGIC 0x534e414bu /* "KANS" */
#define WIRE_REQ_SIZE 32
#define WIRE_ANS_SIZE 40
#define WIRE_NFEAT 6

#define WIRE_CLOCK_MAGIC 0x4b434c4bu /* "KLCK" */
#define WIRE_DRAIN_MAGIC 0x4e52444bu   /* "KDRN" */
#define WIRE_DRAINED_MAGIC 0x4e52444cu /* "LDRN" */

enum { WIRE_OK = 0, WIRE_DROPPED = 1, WIRE_UNKNOWN_ROW = 2, WIRE_UNAVAILABLE = 3, WIRE_NOT_FOUND = 4 };
#define WIRE_NSTATUS 5

typedef struct {
    uint32_t row, req;
    uint16_t attempt, flags;
    int64_t budget_ns;
    uint64_t tag;
} wire_req;

typedef struct {
    uint32_t status;
    uint64_t tag;
    float x[WIRE_NFEAT];
} wire_ans;

/* x86-64 and aarch64 are little-endian; the lab runs on those only. */
static inline void wire_put_req(unsigned char *b, const wire_req *r)
{
    uint32_t m = WIRE_REQ_MAGIC;
    memcpy(b, &m, 4);
    memcpy(b + 4, &r->row, 4);
    memcpy(b + 8, &r->req, 4);
    memcpy(b + 12, &r->attempt, 2);
    memcpy(b + 14, &r->flags, 2);
    memcpy(b + 16, &r->budget_ns, 8);
    memcpy(b + 24, &r->tag, 8);
}

static inline int wire_get_req(const unsigned char *b, wire_req *r)
{
    uint32_t m;
    memcpy(&m, b, 4);
    memcpy(&r->row, b + 4, 4);
    memcpy(&r->req, b + 8, 4);
    memcpy(&r->attempt, b + 12, 2);
    memcpy(&r->flags, b + 14, 2);
    memcpy(&r->budget_ns, b + 16, 8);
    memcpy(&r->tag, b + 24, 8);
    return m == WIRE_REQ_MAGIC ? 0 : -1;
}

static inline void wire_put_ans(unsigned char *b, const wire_ans *a)
{
    uint32_t m = WIRE_ANS_MAGIC;
    memcpy(b, &m, 4);
    memcpy(b + 4, &a->status, 4);
    memcpy(b + 8, &a->tag, 8);
    memcpy(b + 16, a->x, sizeof a->x);
}

/* -1 for a wrong magic or an unknown status. */
static inline int wire_get_ans(const unsigned char *b, wire_ans *a)
{
    uint32_t m;
    memcpy(&m, b, 4);
    memcpy(&a->status, b + 4, 4);
    memcpy(&a->tag, b + 8, 8);
    memcpy(a->x, b + 16, sizeof a->x);
    return m == WIRE_ANS_MAGIC && a->status < WIRE_NSTATUS ? 0 : -1;
}

static inline void wire_put_clock(unsigned char *b, int64_t t0_ns)
{
    uint32_t m = WIRE_CLOCK_MAGIC, z = 0;
    memset(b, 0, WIRE_REQ_SIZE);
    memcpy(b, &m, 4);
    memcpy(b + 4, &z, 4);
    memcpy(b + 8, &t0_ns, 8);
}

/* 0 and *t0_ns for a clock frame; -1 for any other frame. */
static inline int wire_get_clock(const unsigned char *b, int64_t *t0_ns)
{
    uint32_t m;
    memcpy(&m, b, 4);
    memcpy(t0_ns, b + 8, 8);
    return m == WIRE_CLOCK_MAGIC ? 0 : -1;
}

static inline void wire_put_drain(unsigned char *b)
{
    uint32_t m = WIRE_DRAIN_MAGIC;
    memset(b, 0, WIRE_REQ_SIZE);
    memcpy(b, &m, 4);
}

static inline int wire_is_drain(const unsigned char *b)
{
    uint32_t m;
    memcpy(&m, b, 4);
    return m == WIRE_DRAIN_MAGIC;
}

static inline void wire_put_drained(unsigned char *b)
{
    uint32_t m = WIRE_DRAINED_MAGIC;
    memset(b, 0, WIRE_ANS_SIZE);
    memcpy(b, &m, 4);
}

static inline int wire_is_drained(const unsigned char *b)
{
    uint32_t m;
    memcpy(&m, b, 4);
    return m == WIRE_DRAINED_MAGIC;
}

#endif
