/* apboot: the AP of every model seed's stand-in vectors and the paired
 * bootstrap over customers (pipeline/APCOST.md 1.3-1.5, 1.11), fast.
 *
 * Contract.  The generator of APCOST.md 1.11 (seeded through splitmix64,
 * xoshiro256**) is the one RAWFORMAT.md defines for the schedule: dice.h's
 * dc_seed / dc_next, bit for bit (test_apboot.c checks 1.11's worked
 * values against it).  apb_compute takes an apb_problem
 * (the test table, every seed's live and last-known scores, the stand-in
 * rows of every round of every chosen arm, the bootstrap's settings; all
 * owned by the caller and only read) and fills an apb_result (owned by the
 * caller afterwards: apb_result_free):
 *
 *   - L[s], the live AP of seed s, and A[s][r][kind], the AP of round r's
 *     stand-in vector of that kind (a round without stand-in rows: A = L);
 *   - for seeds 1..K, the B resamples' weights drawn with the generator,
 *     the resamples where some cutoff has no buyer weight (dropped), and
 *     dstar[a][kind][b] = (1/K) sum_s (1/R_a) sum_r m_b(r) [AP_b(v) - AP_b(live)],
 *     the resample's change of arm a (NaN for a dropped resample); m_b(r)
 *     is 1 unless round_sigma is given (format lab-ap 2, APCOST.md 1.5 and
 *     1.11): then it is how often resample b drew round r among the arm's
 *     R_a rounds, from the arm's own generator seeded with round_sigma[a]
 *     (sigma XOR apb_fnv1a64 of the arm's name: the caller's).
 *
 * How it is fast (verify/README.md, "The AP recomputation").  Per seed, the
 * rows of each cutoff are sorted once by live score.  A stand-in vector
 * differs from the live one only on its round's stand-in rows, so its order
 * is the live order with those rows taken out of their ties and put into
 * others: a short program of "runs" (stretches of untouched live ties) and
 * "ties" (live ties that lose or gain stand-in rows, and new ones).  Per
 * resample, one pass over the live order gives the weighted running sums;
 * then a run costs one multiply-add per live tie holding weighted buyers
 * (its running sums are the live ones shifted by what the stand-in rows
 * moved above it), a tie one look-up per stand-in row.  The point values
 * are the same computation with every weight 1.  Two (round, cutoff)s
 * with the very same stand-in rows (runs of several arms flooded in the
 * same round) are computed once.  The kept resamples go through each
 * program APV_W (8) at a time, one SIMD lane each (apvec.h: weights
 * transposed, every buyer tie evaluated, a weight-0 one an exact 0 term,
 * IEEE divisions; the same bits on every CPU path and whichever resamples
 * share a pass); the rounds' numerators are computed cutoff by cutoff (one
 * cutoff's sums stay in the cache).  With engine 1 the scalar evaluation
 * of aporder.h does the resamples instead, APO_LANES at a time: the
 * reference the tests compare the vector engine with.  The point values
 * (every weight 1) use the scalar evaluation either way.
 *
 * Each AP is the same number as APCOST.md 1.4's (the weighted one as 1.5's)
 * up to rounding: terms are summed in another order (and, in the scalar
 * evaluation, divided through a table of reciprocals), far inside the
 * 1e-12 of APCOST.md 1.13.  The numbers do not depend on the thread count.
 */
#ifndef APBOOT_H
#define APBOOT_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------- the problem */

#define APB_NKINDS 3 /* last_known, default, none: aparm.h's ap_kinds order */

typedef struct {
    /* the test table: rows grouped by cutoff (aptable.h) */
    size_t n, ncut;
    const size_t *cut_first; /* [ncut + 1] */
    const size_t *byrow;     /* [n] */
    const unsigned char *label;
    const uint32_t *cust;    /* [n]: the row's customer index, 0 = the smallest id */
    size_t C;                /* customers */
    /* the scores of S model seeds, 32-bit floats */
    size_t S;
    const float *const *live;  /* [S][n] */
    const float *const *lastk; /* [S][n] */
    float d;                   /* default_score */
    /* the rounds of the chosen arms, each arm's in ascending order */
    size_t A;                  /* arms */
    const size_t *R;           /* [A]: rounds of arm a */
    size_t nr;                 /* rounds over all arms */
    const size_t *round_arm;   /* [nr] */
    const size_t *const *srows; /* [nr]: the round's stand-in rows (a set) */
    const size_t *nsrows;      /* [nr] */
    /* the bootstrap: B resamples from generator seed sigma, seeds 1..K (K = 0: none) */
    size_t B, K;
    uint64_t sigma;
    /* format lab-ap 2: [A] each arm's round generator's seed (NULL: the
     * rounds are not resampled, every m_b(r) = 1: format lab-ap 1) */
    const uint64_t *round_sigma;
    /* how a (round, cutoff) is computed: 0 by the share of its stand-in rows
     * (an eighth or more: over the base order), 1 always by patching the live
     * order, 2 always over the base (the tests check all three) */
    int mode;
    /* the resamples' engine: 0 the vector lanes of apvec.h (APV_W resamples
     * a pass, the fast one), 1 the scalar lanes of aporder.h (APO_LANES a
     * pass; the reference the tests compare the first with, within 1e-13) */
    int engine;
    /* resamples evaluated together (the engine's lanes): 0 = all of them
     * (APV_W or APO_LANES); the numbers are the same to the bit whatever it
     * is (the tests check 1 and others) */
    size_t lanes;
} apb_problem;

typedef struct {
    size_t S, nr, A, B;
    double *L;               /* [S]; NaN when some cutoff has no buyer */
    double *Ap;              /* [(s * nr + r) * APB_NKINDS + kind] */
    unsigned char *dropped;  /* [B] */
    size_t used;             /* resamples kept */
    double *dstar;           /* [(a * APB_NKINDS + kind) * B + b]; NaN when dropped */
    double seconds;          /* CPU time of apb_compute */
    size_t vectors;          /* stand-in vectors with rows, per seed */
} apb_result;

/* 0, or -1 when the problem is malformed (a row or customer out of range:
 * message in err) */
int apb_compute(const apb_problem *p, apb_result *out, char *err, size_t errlen);
void apb_result_free(apb_result *r);

/* the weights of resample b (C counts) drawn as APCOST.md 1.11 says, for
 * tests: resamples 0..B-1 into w[b * C + k] (the caller's array) */
void apb_weights(uint64_t sigma, size_t B, size_t C, uint16_t *w);
/* the 64-bit FNV-1a hash of the bytes of s (APCOST.md 1.11) */
uint64_t apb_fnv1a64(const char *s);
/* the round picks of APCOST.md 1.11 from a generator seeded with sigma_a:
 * m[b * R + k] = how often resample b drew round index k (0 = the smallest
 * round), for b < B (the caller's array of B * R counts) */
void apb_round_picks(uint64_t sigma_a, size_t B, size_t R, uint16_t *m);

#endif
