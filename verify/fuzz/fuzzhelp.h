/* fuzzhelp: what the verifier's fuzz harnesses share (header only).
 *
 * Contract.  Each harness fuzz_<name>.c defines LLVMFuzzerTestOneInput and
 * includes this header once.  fz_dir() is a private temporary folder
 * ($TMPDIR, else /dev/shm, else /tmp) made on the first call and removed
 * with everything in it when the process exits, for the parsers whose
 * entry point takes a path or a study root; fz_write
 * puts bytes in a file below it (creating the folders on the way).
 * fz_gzip compresses a buffer into a malloc'd gzip member (caller frees).
 * fz_split cuts the input at each "\n====\n" into at most max parts (the
 * last part keeps the rest): one input can hold several files.  Every
 * failure of the harness itself (not of the parser) aborts, so it is seen.
 */
#ifndef FUZZHELP_H
#define FUZZHELP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fz_root[512];

static inline void fz_cleanup(void)
{
    if (!fz_root[0])
        return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fz_root);
    if (system(cmd)) { /* best effort */
    }
}

static inline const char *fz_dir(void)
{
    if (!fz_root[0]) {
        /* memory, not disk, when there is one: a file is written per input */
        const char *t = getenv("TMPDIR");
        if (!t || !*t)
            t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fz_root, sizeof fz_root, "%s/vfuzz.XXXXXX", t);
        if (!mkdtemp(fz_root)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fz_cleanup);
    }
    return fz_root;
}

/* <fz_dir()>/<rel>, its folders made; returns the full path (static buffer) */
static inline const char *fz_write(const char *rel, const void *b, size_t n)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", fz_dir(), rel);
    for (char *p = path + strlen(fz_root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(b, 1, n, f) != n) || fclose(f)) {
        perror(path);
        abort();
    }
    return path;
}

static inline unsigned char *fz_gzip(const void *b, size_t n, size_t *outn)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    size_t cap = deflateBound(&zs, (uLong)n) + 32;
    unsigned char *out = malloc(cap);
    if (!out)
        abort();
    zs.next_in = (Bytef *)(uintptr_t)b;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        abort();
    *outn = zs.total_out;
    deflateEnd(&zs);
    return out;
}

/* the mismatch list (mism.h) printing to /dev/null, emptied before each
 * input; call at the top of a harness whose parser records mismatches */
#ifdef MISM_H
static inline void fz_mism(void)
{
    static FILE *null;
    if (!null) {
        null = fopen("/dev/null", "w");
        if (!null)
            abort();
        mm_init(null, 20);
    }
    mm_reset();
}
#endif

#define FZ_SEP "\n====\n"

/* parts[i], lens[i]: pointers into data; returns how many (at least 1) */
static inline size_t fz_split(const uint8_t *data, size_t size, const uint8_t **parts, size_t *lens, size_t max)
{
    size_t np = 0, sl = strlen(FZ_SEP);
    const uint8_t *p = data, *end = data + size;
    while (np + 1 < max) {
        const uint8_t *q = memmem(p, (size_t)(end - p), FZ_SEP, sl);
        if (!q)
            break;
        parts[np] = p;
        lens[np++] = (size_t)(q - p);
        p = q + sl;
    }
    parts[np] = p;
    lens[np++] = (size_t)(end - p);
    return np;
}

#endif
