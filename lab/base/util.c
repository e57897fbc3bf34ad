/* util: see util.h for the contract. */
#include "util.h"

#include <assert.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *prog_name = "lab";

void ut_set_prog(const char *name)
{
    const char *slash = strrchr(name, '/');
    prog_name = slash ? slash + 1 : name;
}

const char *ut_prog(void) { return prog_name; }

void ut_err(const char *fmt, ...)
{
    /* one write of the whole line: the lab's programs share a terminal or
     * a log, and a line written in pieces is cut by another's */
    char line[UT_ERRLEN + 256];
    int n = snprintf(line, sizeof line, "%s: ", prog_name);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    if (len + 1 >= sizeof line)
        len = sizeof line - 2;
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
}

void ut_seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int ut_aopen(ut_afile *a, const char *path, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (strlen(path) >= sizeof a->path) {
        ut_seterr(err, errlen, "%s: path too long", path);
        return -1;
    }
    snprintf(a->path, sizeof a->path, "%s", path);
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld", path, (long)getpid());
    a->f = fopen(a->tmp, "wb");
    if (!a->f) {
        ut_seterr(err, errlen, "%s: cannot create: %s", a->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

int ut_aclose(ut_afile *a, int commit, char *err, size_t errlen)
{
    if (!a->f)
        return commit ? -1 : 0;
    /* the first failure's errno: the cause named (a full disk: "No space left on device") */
    int bad = ferror(a->f), e = bad ? errno : 0;
    if (fflush(a->f) != 0 && !bad)
        bad = 1, e = errno;
    if (!bad && commit && fsync(fileno(a->f)) != 0)
        bad = 1, e = errno;
    if (fclose(a->f) != 0 && !bad)
        bad = 1, e = errno;
    a->f = NULL;
    if (!commit || bad) {
        unlink(a->tmp);
        if (commit) {
            ut_seterr(err, errlen, "%s: write failed: %s", a->path, e ? strerror(e) : "an earlier write to it failed");
            return -1;
        }
        return 0;
    }
    if (rename(a->tmp, a->path) != 0) {
        ut_seterr(err, errlen, "%s: cannot rename into place: %s", a->path, strerror(errno));
        unlink(a->tmp);
        return -1;
    }
    return 0;
}

int ut_write_file(const char *path, const void *buf, size_t n, char *err, size_t errlen)
{
    ut_afile a;
    if (ut_aopen(&a, path, err, errlen) != 0)
        return -1;
    if (n && fwrite(buf, 1, n, a.f) != n) {
        int e = errno;
        ut_aclose(&a, 0, NULL, 0);
        ut_seterr(err, errlen, "%s: write failed: %s", path, strerror(e));
        return -1;
    }
    return ut_aclose(&a, 1, err, errlen);
}

int ut_read_file(const char *path, char **buf, size_t *n, char *err, size_t errlen)
{
    *buf = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        ut_seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap);
    int rc = -1;
    if (!b)
        goto out;
    for (;;) {
        if (len + 1 >= cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb)
                goto out;
            b = nb;
        }
        size_t got = fread(b + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        ut_seterr(err, errlen, "%s: read error", path);
        goto out;
    }
    b[len] = 0;
    *buf = b;
    *n = len;
    b = NULL;
    rc = 0;
out:
    if (rc != 0 && err && !err[0])
        ut_seterr(err, errlen, "%s: out of memory", path);
    free(b);
    fclose(f);
    return rc;
}

static void to_hex(const unsigned char *d, unsigned n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < n; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[2 * n] = 0;
}

void ut_sha256_buf(const void *buf, size_t n, char hex[65])
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned dn = 0;
    EVP_Digest(buf, n, d, &dn, EVP_sha256(), NULL);
    to_hex(d, dn, hex);
}

int ut_sha256_file(const char *path, char hex[65], uint64_t *size, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ut_seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    static unsigned char chunk[1 << 16];
    uint64_t total = 0;
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        EVP_DigestUpdate(ctx, chunk, got);
        total += got;
    }
    int bad = ferror(f);
    fclose(f);
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned dn = 0;
    EVP_DigestFinal_ex(ctx, d, &dn);
    EVP_MD_CTX_free(ctx);
    if (bad) {
        ut_seterr(err, errlen, "%s: read error", path);
        return -1;
    }
    to_hex(d, dn, hex);
    if (size)
        *size = total;
    return 0;
}

int ut_mkdir_p(const char *dir, char *err, size_t errlen)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        ut_seterr(err, errlen, "%s: path too long", dir);
        return -1;
    }
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                ut_seterr(err, errlen, "%s: cannot create folder: %s", buf, strerror(errno));
                return -1;
            }
            *p = c;
            if (c == 0)
                break;
        }
    }
    return 0;
}

int64_t ut_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct timeval ut_tv_until(int64_t at_ns)
{
    int64_t d = at_ns - ut_mono_ns();
    if (d < 0)
        d = 0;
    d = (d + 999) / 1000;
    struct timeval tv = {.tv_sec = (time_t)(d / 1000000), .tv_usec = (suseconds_t)(d % 1000000)};
    return tv;
}

void ut_utc_iso(char buf[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Howard Hinnant's days_from_civil / civil_from_days. */
int32_t ut_days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153u * (unsigned)(m + (m > 2 ? -3 : 9)) + 2) / 5 + (unsigned)d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int32_t)doe - 719468;
}

void ut_civil_from_days(int32_t z, int *y, int *m, int *d)
{
    z += 719468;
    const int era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)yoe + era * 400 + (*m <= 2);
}

uint64_t ut_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t ut_hash4(uint64_t key, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t h = ut_mix64(key);
    h = ut_mix64(h ^ a);
    h = ut_mix64(h ^ b);
    return ut_mix64(h ^ c);
}

double ut_u64_unit(uint64_t x) { return (double)(x >> 11) * 0x1.0p-53; }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void ut_sort_i64(int64_t *v, size_t n) { qsort(v, n, sizeof *v, cmp_i64); }

double ut_pct_rank(size_t n, double q, size_t *lo)
{
    assert(n > 0 && q >= 0 && q <= 1);
    double h = (double)(n - 1) * q;
    *lo = (size_t)floor(h);
    return h - (double)*lo;
}

double ut_pct_between(double a, double b, double frac) { return a + frac * (b - a); }

double ut_pct_sorted(const int64_t *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    size_t lo;
    double frac = ut_pct_rank(n, q, &lo);
    assert(v[lo] <= v[lo + 1 < n ? lo + 1 : lo]);
    return ut_pct_between((double)v[lo], (double)v[lo + 1 < n ? lo + 1 : lo], frac);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void ut_rng_seed(ut_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        x += 0x9e3779b97f4a7c15ULL;
        r->s[i] = ut_mix64(x);
    }
}

uint64_t ut_rng_u64(ut_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double ut_rng_unit(ut_rng *r) { return ut_u64_unit(ut_rng_u64(r)); }

double ut_rng_normal(ut_rng *r)
{
    double u1 = ut_rng_unit(r), u2 = ut_rng_unit(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double ut_rng_exp(ut_rng *r) { return -log1p(-ut_rng_unit(r)); }

double ut_rng_gamma(ut_rng *r, double shape)
{
    if (shape < 1.0) {
        double u = ut_rng_unit(r);
        return ut_rng_gamma(r, shape + 1.0) * pow(u < 1e-300 ? 1e-300 : u, 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = ut_rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = ut_rng_unit(r);
        if (u < 1.0 - 0.0331 * x * x * x * x)
            return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v;
    }
}

/* ------------------------------------------------------------ ut_rm_tree */

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    return remove(p) != 0 && errno != ENOENT ? -1 : 0;
}

int ut_rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void ut_wilson95(size_t k, size_t n, double *lo, double *hi)
{
    double p = (double)k / (double)n, z2 = UT_Z95 * UT_Z95, nn = (double)n;
    double mid = p + z2 / (2 * nn), half = UT_Z95 * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)), d = 1 + z2 / nn;
    *lo = (mid - half) / d;
    *hi = (mid + half) / d;
}

size_t ut_put_i64(char *p, int64_t v)
{
    char t[24];
    size_t n = 0, o = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        t[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        p[o++] = '-';
    while (n)
        p[o++] = t[--n];
    return o;
}
