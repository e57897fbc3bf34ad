/* vutil: small helpers of the verifier.
 *
 * Contract: memory helpers abort with a message when the machine is out of
 * memory (the verifier cannot do anything useful then).  vu_read_file hands
 * the caller a malloc'd buffer (NUL-terminated, not counted in len) that the
 * caller frees.  vu_write_atomic writes to "<path>.tmp.<pid>" and renames, so
 * readers never see a half-written file.  Functions return 0 or an errno-like
 * error code; messages go to the caller's err buffer.
 */
#ifndef VUTIL_H
#define VUTIL_H

#include <stddef.h>
#include <stdint.h>

void *vu_xmalloc(size_t n);
void *vu_xcalloc(size_t n, size_t size);
void *vu_xrealloc(void *p, size_t n);
char *vu_xstrdup(const char *s);
char *vu_xstrndup(const char *s, size_t n);
char *vu_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whole file into memory.  Returns 0, or errno (and a message in err). */
int vu_read_file(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen);

/* An observer of every successful vu_read_file (the path as given and the
 * bytes read; vfiles.h keeps the list of files read): NULL for none. */
typedef void (*vu_read_hook)(void *ctx, const char *path, const unsigned char *buf, size_t len);
void vu_set_read_hook(vu_read_hook hook, void *ctx);

/* sha256 of a buffer as 64 lowercase hex digits plus NUL. */
void vu_sha256_hex(const void *buf, size_t len, char out[65]);

/* Write len bytes to path atomically (temp name, fsync, rename). */
int vu_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);

/* Shortest decimal text that reads back as exactly d ("null" for NaN/inf). */
void vu_fmt_double(double d, char *out, size_t outlen);
/* The line cut in place at each tab: f[0..min(n, max)) point at the fields;
 * returns n, the number of fields (more than max when the line has more). */
int vu_split_tabs(char *line, char **f, int max);

int vu_is_dir(const char *path);
int vu_is_file(const char *path);

/* A growable byte buffer. */
typedef struct vu_buf {
    char *p;
    size_t len, cap;
} vu_buf;
void vu_buf_add(vu_buf *b, const void *data, size_t n);
void vu_buf_puts(vu_buf *b, const char *s);
void vu_buf_printf(vu_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vu_buf_free(vu_buf *b);

/* Sorted list of the names in a directory (excluding . and ..); caller frees
 * each name and the array with vu_free_names. */
int vu_list_dir(const char *path, char ***names, size_t *n, char *err, size_t errlen);
void vu_free_names(char **names, size_t n);

/* The n 16-byte elements of v in ascending order of key(element), stably
 * (elements of one key keep their order): a radix sort over the key's low
 * `bytes` bytes (1 to 8), bytes every key shares skipped; tmp has room for
 * n elements.  For orders that qsort's comparisons gave n log n calls. */
void vu_sort16(void *v, size_t n, uint64_t (*key)(const void *), int bytes, void *tmp);
/* a key of vu_sort16 that orders the doubles descending (0 and -0 one key,
 * as they compare equal); not for a NaN */
uint64_t vu_key_desc(double d);

#endif
