/* util: small helpers every program of the lab and the pipeline shares.
 *
 * Contract
 * - Errors: functions return 0 on success or -1 on failure, after writing one
 *   message naming the file (and line, where there is one) into a caller's
 *   buffer or, for ut_err, onto stderr prefixed with the program's name.
 * - Atomic output: ut_aopen opens "<path>.tmp.<pid>"; ut_aclose(commit=1)
 *   flushes, fsyncs and renames it onto <path>; ut_aclose(commit=0) removes
 *   it.  A failed stage therefore never leaves a half-written file behind.
 * - Memory: ut_read_file returns a malloc'd, NUL-terminated buffer the
 *   caller frees.  Nothing else here allocates on the caller's behalf.
 */
#ifndef LAB_UTIL_H
#define LAB_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>

#define UT_ERRLEN 512

/* Name used as prefix of every message (set once in main). */
void ut_set_prog(const char *name);
const char *ut_prog(void);

/* printf-style message to stderr: "<prog>: <message>\n". */
void ut_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* snprintf into an error buffer (no-op when err is NULL). */
void ut_seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Atomic file writing. */
typedef struct ut_afile {
    FILE *f;
    char path[4096];
    char tmp[4200];
} ut_afile;
int ut_aopen(ut_afile *a, const char *path, char *err, size_t errlen);
int ut_aclose(ut_afile *a, int commit, char *err, size_t errlen);
/* Write a whole buffer atomically. */
int ut_write_file(const char *path, const void *buf, size_t n, char *err, size_t errlen);

/* Whole file into memory (NUL-terminated; *n excludes the NUL). */
int ut_read_file(const char *path, char **buf, size_t *n, char *err, size_t errlen);

/* sha256 of a file as 64 lowercase hex chars + NUL; size in *size. */
int ut_sha256_file(const char *path, char hex[65], uint64_t *size, char *err, size_t errlen);
void ut_sha256_buf(const void *buf, size_t n, char hex[65]);

/* mkdir -p; 0 or -1 with message. */
int ut_mkdir_p(const char *dir, char *err, size_t errlen);
/* The file or folder at path removed with everything under it (links are
 * removed, never followed; no shell, so any name is safe).  0, also when
 * nothing is there; -1 with errno when something could not be removed. */
int ut_rm_tree(const char *path);

/* v in decimal at p, no NUL; the number of characters written (at most 20).
 * The hot writers' integer formatting (raw files, collect's COPY lines):
 * snprintf's "%lld" without its parsing of the format. */
size_t ut_put_i64(char *p, int64_t v);

/* Time. */
int64_t ut_mono_ns(void);                 /* CLOCK_MONOTONIC in ns */
/* The relative timeout for a libevent timer due at `at_ns`: at_ns - now,
 * 0 when past, rounded up to whole microseconds so that it never fires
 * early.  libevent adds it to its cached clock: call this first, then
 * event_base_update_cache_time, then evtimer_add, so the cache is never
 * older than the reading the timeout was measured from. */
struct timeval ut_tv_until(int64_t at_ns);
void ut_utc_iso(char buf[32]);            /* "2026-11-30T05:29:36Z" */

/* Calendar: days since 1970-01-01 (proleptic Gregorian) and back. */
int32_t ut_days_from_civil(int y, int m, int d);
void ut_civil_from_days(int32_t z, int *y, int *m, int *d);

/* Deterministic random numbers.
 * ut_rng: a splitmix64-seeded xoshiro256** stream for sequential draws.
 * ut_hash4: a counter-based generator: the same (key, a, b, c) always gives
 * the same 64 bits, whatever else was drawn before (used for the store's
 * dice, keyed by round, request id and attempt). */
typedef struct { uint64_t s[4]; } ut_rng;
void ut_rng_seed(ut_rng *r, uint64_t seed);
uint64_t ut_rng_u64(ut_rng *r);
double ut_rng_unit(ut_rng *r);            /* uniform in [0, 1) with 53 bits */
double ut_rng_normal(ut_rng *r);          /* standard normal (Box-Muller) */
double ut_rng_exp(ut_rng *r);             /* exponential, mean 1 */
double ut_rng_gamma(ut_rng *r, double shape); /* gamma(shape, 1), Marsaglia-Tsang */
uint64_t ut_mix64(uint64_t x);            /* splitmix64 finaliser */
uint64_t ut_hash4(uint64_t key, uint64_t a, uint64_t b, uint64_t c);
double ut_u64_unit(uint64_t x);           /* top 53 bits to [0, 1) */

/* The percentile, the one definition of the lab and the stages (stated in
 * docs/DESIGN.md section 7; numpy's default, "linear"):
 * percentile q (0 to 1) of n sorted values v_0 <= ... <= v_(n-1) is, with
 * h = (n - 1) q and lo = floor(h),
 *     v_lo + (h - lo) (v_(lo+1) - v_lo)      (v_lo when lo = n - 1),
 * linear interpolation between the two closest ranks.
 * - ut_pct_rank: lo (in *lo) and h - lo, for n above 0 and q in [0, 1];
 * - ut_pct_between: the interpolation itself, from the two order statistics
 *   a = v_lo and b = v_(lo+1) (b = a when lo = n - 1);
 * every percentile is these two: ut_pct_sorted (int64, sorted; NAN when n
 * is 0), lab/play/playpct.h's ppct_of (the same order statistics found by
 * selection, not sorting) and pipeline/ap's apboot_percentile (doubles).
 * ut_sort_i64 sorts ascending.  Integers are exact in a double below 2^53. */
void ut_sort_i64(int64_t *v, size_t n);
double ut_pct_rank(size_t n, double q, size_t *lo);
double ut_pct_between(double a, double b, double frac);
double ut_pct_sorted(const int64_t *v, size_t n, double q);

/* The Wilson score interval of k events in n (n >= 1) at z = UT_Z95, as
 * pipeline/RESULTS.md writes it: (p + z²/2n ± z·√(p(1 − p)/n + z²/4n²)) /
 * (1 + z²/n), p = k/n, not clamped (the map's and the odds' intervals). */
#define UT_Z95 1.959963984540054
void ut_wilson95(size_t k, size_t n, double *lo, double *hi);

#endif
