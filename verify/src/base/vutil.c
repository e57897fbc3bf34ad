/* vutil: small helpers of the verifier: memory, files, sha256, atomic writes, buffers, a stable radix sort; see vutil.h. */
#include "vutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void oom(void)
{
    fprintf(stderr, "verify: out of memory\n");
    abort();
}

void *vu_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *vu_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *vu_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

char *vu_xstrdup(const char *s)
{
    return vu_xstrndup(s, strlen(s));
}

char *vu_xstrndup(const char *s, size_t n)
{
    char *p = vu_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *vu_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int r = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (r < 0)
        oom();
    return s;
}

static vu_read_hook read_hook;
static void *read_hook_ctx;

void vu_set_read_hook(vu_read_hook hook, void *ctx)
{
    read_hook = hook;
    read_hook_ctx = ctx;
}

int vu_read_file(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        return e;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(e));
        close(fd);
        return e;
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 65536;
    unsigned char *p = vu_xmalloc(cap);
    size_t n = 0;
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            p = vu_xrealloc(p, cap);
        }
        ssize_t r = read(fd, p + n, cap - 1 - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            snprintf(err, errlen, "%s: read error: %s", path, strerror(e));
            free(p);
            close(fd);
            return e;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    p[n] = 0;
    *buf = p;
    *len = n;
    if (read_hook)
        read_hook(read_hook_ctx, path, p, n);
    return 0;
}

void vu_sha256_hex(const void *buf, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL);
    static const char hx[] = "0123456789abcdef";
    for (unsigned i = 0; i < 32; i++) {
        out[2 * i] = hx[md[i] >> 4];
        out[2 * i + 1] = hx[md[i] & 15];
    }
    out[64] = 0;
}

int vu_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    char *tmp = vu_xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(e));
        free(tmp);
        return e;
    }
    const char *p = data;
    size_t left = len;
    int e = 0;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(e));
        unlink(tmp);
    }
    free(tmp);
    return e;
}

/* d printed with %.<prec>g into out: 1 when it reads back as d */
static int reads_back(double d, int prec, char *out, size_t outlen)
{
    snprintf(out, outlen, "%.*g", prec, d);
    return strtod(out, NULL) == d;
}

/* The text is %.<p>g for the least p (1 .. 17) that reads back as d (17
 * always does).  Found by bisection where reading back is monotone in p:
 * when d is not a power of two, the reals that read back as d lie
 * symmetrically around it (its neighbours are an ulp away on either side,
 * both ends of that interval rounding alike), and the p + 1 digit
 * rounding of d is at least as close to it as the p digit one (that is a
 * p + 1 digit number too), so if p reads back, p + 1 does.  A power of two
 * has a neighbour below at half the distance: there p is tried from 1 up,
 * the definition itself (tests/test_units.c compares both on many values). */
void vu_fmt_double(double d, char *out, size_t outlen)
{
    if (!isfinite(d)) {
        snprintf(out, outlen, "null");
        return;
    }
    int e;
    if (d == 0 || fabs(frexp(d, &e)) == 0.5) {
        for (int prec = 1; prec <= 17; prec++)
            if (reads_back(d, prec, out, outlen))
                return;
        return;
    }
    /* the least p in [lo, hi] (hi reads back); computed values mostly need 16 or 17: 15 first */
    int lo = 1, hi = 17, mid = 15, last = 0;
    while (lo < hi) {
        last = mid;
        if (reads_back(d, mid, out, outlen))
            hi = mid;
        else
            lo = mid + 1;
        mid = lo + (hi - lo) / 2;
    }
    if (last != lo)
        reads_back(d, lo, out, outlen);
}

int vu_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int vu_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

void vu_buf_add(vu_buf *b, const void *data, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->len + n + 1)
            c *= 2;
        b->p = vu_xrealloc(b->p, c);
        b->cap = c;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = 0;
}

void vu_buf_puts(vu_buf *b, const char *s)
{
    vu_buf_add(b, s, strlen(s));
}

void vu_buf_printf(vu_buf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        vu_buf_add(b, small, (size_t)n);
        return;
    }
    char *big = vu_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    vu_buf_add(b, big, (size_t)n);
    free(big);
}

void vu_buf_free(vu_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int vu_list_dir(const char *path, char ***names, size_t *n, char *err, size_t errlen)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(path);
    if (!d) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot open folder: %s", path, strerror(e));
        return e;
    }
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            *names = vu_xrealloc(*names, cap * sizeof **names);
        }
        (*names)[(*n)++] = vu_xstrdup(de->d_name);
    }
    closedir(d);
    if (*n)
        qsort(*names, *n, sizeof **names, cmp_names);
    return 0;
}

void vu_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int vu_split_tabs(char *line, char **f, int max)
{
    int nf = 0;
    for (char *q = line;; q++) {
        if (nf < max)
            f[nf] = q;
        nf++;
        q = strchr(q, '\t');
        if (!q)
            break;
        *q = 0;
    }
    return nf;
}

uint64_t vu_key_desc(double d)
{
    if (d == 0)
        d = 0; /* -0 as 0 */
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    b = (b >> 63) ? ~b : b | (1ull << 63); /* ascending as the doubles */
    return ~b;
}

typedef struct {
    uint64_t a, b;
} elem16;

void vu_sort16(void *v, size_t n, uint64_t (*key)(const void *), int bytes, void *tmp)
{
    elem16 *e = v;
    if (n < 2)
        return;
    if (n < 32) { /* insertion: stable */
        for (size_t i = 1; i < n; i++) {
            elem16 x = e[i];
            uint64_t k = key(&x);
            size_t j = i;
            while (j > 0 && key(&e[j - 1]) > k) {
                e[j] = e[j - 1];
                j--;
            }
            e[j] = x;
        }
        return;
    }
    uint64_t all_or = 0, all_and = ~0ull;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key(&e[i]);
        all_or |= k;
        all_and &= k;
    }
    elem16 *src = e, *dst = tmp;
    for (int shift = 0; shift < 8 * bytes; shift += 8) {
        if ((((all_or ^ all_and) >> shift) & 0xff) == 0)
            continue; /* every key the same in this byte */
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((key(&src[i]) >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++)
            dst[count[(key(&src[i]) >> shift) & 0xff]++] = src[i];
        elem16 *t = src;
        src = dst;
        dst = t;
    }
    if (src != e)
        memcpy(e, src, n * sizeof *e);
}
