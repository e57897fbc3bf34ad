/* aporder: one order of test rows, the programs of stand-in vectors over
 * it, and their weighted AP of one cutoff (the machinery of apboot.c; see
 * apboot.h for why it is fast).
 *
 * Contract.  An apo_order holds rows in groups (one group per cutoff: a
 * seed's live order; or a single group: one cutoff's live order without a
 * round's stand-in rows, the "base"), each group sorted by score
 * descending, with its ties (equal scores) and the ties holding a buyer.
 * Boundaries (before a position, or a group's end) are q = first[g] + g + p.
 * apo_order_build fills it from sorted (value, row) pairs; it owns its
 * arrays (apo_order_free).
 *
 * A program (apo_prog, uint32 ops, owned by the caller: free(op)) gives the
 * numerator a_c = sum over ties holding weighted buyers of dtp * tp / seen
 * of one cutoff's stand-in vector: apo_seg_patch writes it over the live
 * order (stand-in rows taken out of their ties and put in elsewhere),
 * apo_seg_base over the base (rows only put in).  apo_sums_fill computes an
 * order's running sums under one set of customer weights (the groups of
 * `mask`, all when NULL); apo_eval runs a program on them (apo_eval_lanes
 * on several sets of sums at once, each lane's arithmetic exactly the
 * single evaluation's); apo_live_ac is the unchanged vector's a_c.  R is
 * the table of reciprocals 1/k.  This scalar evaluation computes the point
 * values and is the reference of the tests; the bootstrap's resamples go
 * through the same programs in apvec.h, eight lanes at a time.
 */
#ifndef APORDER_H
#define APORDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t ng, n;
    size_t *first;       /* [ng + 1] the groups' positions */
    uint32_t *code;      /* [n] per position: customer << 1 | label */
    float *val;          /* [n] per position: the score */
    uint32_t *row;       /* [n] per position: the row */
    uint32_t *tie_of;    /* [n] per position: its tie */
    uint32_t *tie_s, *tie_e; /* per tie: positions [s, e) within the group */
    uint32_t *tie_first; /* [ng + 1] */
    size_t nbt;          /* ties holding a buyer row */
    uint32_t *bt_qs, *bt_qe; /* their boundaries */
    uint32_t *btat;      /* [n + ng] per boundary: the first buyer tie starting at or after it */
    size_t cap;          /* rows allocated for */
} apo_order;

typedef struct {
    float v;
    uint32_t row;
} apo_vrow;

/* qsort order of pairs: score descending, then row */
int apo_cmp_vrow(const void *x, const void *y);

/* n pairs in ng groups (group g: pairs first[g] .. first[g+1]-1, sorted by v descending) */
void apo_order_build(apo_order *o, size_t ng, const size_t *first, const apo_vrow *pairs, const uint32_t *cust,
                     const unsigned char *label);
void apo_order_free(apo_order *o);
/* the first tie of group g whose score is <= y */
uint32_t apo_tie_at_or_below(const apo_order *o, size_t g, float y);

/* one stand-in row of a program: its row's group, live tie (patch), code and stand-in */
typedef struct {
    uint32_t g, tie, code;
    float y;
} apo_item;

typedef struct {
    uint32_t *op;
    size_t n, cap;
} apo_prog;

/* the ops of a program (their words: aporder.c's emit_events; apvec.c
 * evaluates the same programs) */
enum { APO_OP_RUN, APO_OP_TIE, APO_OP_DROP, APO_OP_NEW, APO_OP_ALL };

/* the program of group g of the live order o with n stand-in rows (their
 * ties in o, their stand-ins y); scratch of 2n items and 2n events */
void apo_seg_patch(apo_prog *g, const apo_order *o, size_t grp, apo_item *it, size_t n, void *scratch);
/* the program of the base order o (one group) with the n stand-in rows put
 * in: every one at the same score when all_same (default, none), else each at its y */
void apo_seg_base(apo_prog *g, const apo_order *o, apo_item *it, size_t n, int all_same, void *scratch);
/* bytes of scratch for n items */
size_t apo_scratch_size(size_t n);

/* the running weights at a boundary: buyers' (t) and all rows' (s) before it */
typedef struct {
    int32_t t, s;
} apo_cum;

/* a place (a buyer tie with weight, in order): its buyer weight d, the
 * running buyer weight t and weight s at its end, and lp, the unchanged
 * terms summed before it (one record: a run reads them together) */
typedef struct {
    double lp;
    int32_t d, t, s, pad;
} apo_term;

typedef struct {
    apo_cum *cum;         /* [n + ng] per boundary */
    int32_t *pos;         /* [ng] the group's buyer weight */
    apo_term *tm;         /* [places + 1] the buyer ties with weight; tm[places] only lp (and zeros) */
    uint32_t *cidx;       /* [nbt + 1] buyer tie -> its place among those with weight */
    int32_t sw, sy;       /* the base's stand-in rows: their weight, their buyers' (set by the caller) */
    size_t cap;
} apo_sums;

void apo_sums_free(apo_sums *x);
/* 0 when some group of the mask has no buyer weight */
int apo_sums_fill(apo_sums *x, const apo_order *o, const uint16_t *w, const double *R, const unsigned char *mask);
/* where a program's evaluation stands: its sum and the stand-in rows' weight
 * moved above (buyers', all) */
typedef struct {
    double acc;
    int32_t a, e;
} apo_state;

/* run the ops [0, len) from *from (NULL: the start), saving the state at
 * word cp in *at (cp >= len: not saved); returns the numerator */
double apo_eval(const uint32_t *op, size_t len, const uint16_t *w, const apo_sums *x, const double *R,
                const apo_state *from, size_t cp, apo_state *at);
/* the same for L <= APO_LANES sets of weights at once (lane l: w[l] and
 * x[l], from[l] and at[l] when given), each lane's numerator into out[l],
 * bit for bit what apo_eval gives it alone */
#define APO_LANES 4
void apo_eval_lanes(const uint32_t *op, size_t len, size_t L, const uint16_t *const *w, const apo_sums *const *x,
                    const double *R, const apo_state *from, size_t cp, apo_state *at, double *out);
/* the words of the longest common prefix of two programs, in whole ops
 * (two vectors that differ only below some score share their ops above it) */
size_t apo_common_prefix(const uint32_t *p, size_t np, const uint32_t *q, size_t nq);
double apo_live_ac(const apo_sums *x, const apo_order *o, size_t g);

#endif
