/* fuzzfile: the fuzzer's bytes as a file, for the parsers that take a path.
 *
 * fz_file writes the bytes to <dir>/<name>, where dir is one private
 * directory per process (under /dev/shm when there is one: no disk I/O per
 * input), made on the first call and removed with its files at exit.  The
 * returned path stays valid until the next call with the same name.
 * Header only (static functions): each harness is one program.
 */
#ifndef TESTS_FUZZ_FUZZFILE_H
#define TESTS_FUZZ_FUZZFILE_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fz_dir[256];

__attribute__((unused)) static void fz_cleanup(void)
{
    DIR *d = opendir(fz_dir);
    if (d) {
        struct dirent *e;
        char p[600];
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                snprintf(p, sizeof p, "%s/%s", fz_dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(fz_dir);
}

__attribute__((unused)) static const char *fz_tmpdir(void)
{
    if (!fz_dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fz_dir, sizeof fz_dir, "%s/labfuzzXXXXXX", base);
        if (!mkdtemp(fz_dir)) {
            perror("fuzzfile: mkdtemp");
            abort();
        }
        atexit(fz_cleanup);
    }
    return fz_dir;
}

__attribute__((unused)) static const char *fz_file(const uint8_t *d, size_t n, const char *name)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/%s", fz_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(d, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

/* A failed property: say which and stop (the fuzzer keeps the input). */
#define FZ_ASSERT(cond)                                                                  \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

#endif
