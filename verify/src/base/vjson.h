/* vjson: a small JSON reader and writer of the verifier's own.
 *
 * Contract: vj_parse reads one JSON value (RFC 8259) from a buffer into a
 * tree of vj_node that the caller frees with vj_free (which frees every
 * child).  Objects keep their members in file order; a duplicate key is an
 * error.  Numbers keep their text as written (for messages and for exact
 * 32-bit float reading) besides the double; is_int tells whether the text
 * was a plain integer that fits in long long (then i holds it); a number
 * beyond a double's range is an error.  Errors name the file, line and column.  Builders (vj_new_*, vj_obj_set, vj_arr_push)
 * hand ownership of the child to the parent.  vj_write renders a tree as
 * indented JSON into a vu_buf (numbers: integers as integers, doubles in the
 * shortest text that reads back exactly).
 */
#ifndef VJSON_H
#define VJSON_H

#include <stddef.h>
#include "vutil.h"

typedef enum { VJ_NULL, VJ_BOOL, VJ_NUM, VJ_STR, VJ_ARR, VJ_OBJ } vj_type;

typedef struct vj_node {
    vj_type type;
    int b;              /* VJ_BOOL */
    double num;         /* VJ_NUM */
    int is_int;         /* VJ_NUM: plain integer text fitting long long */
    long long i;        /* VJ_NUM when is_int */
    char *text;         /* VJ_STR: the string; VJ_NUM: its text */
    size_t n, cap;      /* VJ_ARR, VJ_OBJ: members */
    char **keys;        /* VJ_OBJ */
    struct vj_node **items;
    int line;           /* where it started in the file (1-based), 0 if built */
} vj_node;

int vj_parse(const char *buf, size_t len, const char *fname, vj_node **out, char *err, size_t errlen);
/* Read and parse a file. */
int vj_parse_file(const char *path, vj_node **out, char *err, size_t errlen);
void vj_free(vj_node *n);

vj_node *vj_get(const vj_node *obj, const char *key);      /* NULL when absent or not an object */
const char *vj_get_str(const vj_node *obj, const char *key);  /* NULL unless a string */
int vj_get_num(const vj_node *obj, const char *key, double *out); /* 0 when a number */

vj_node *vj_new_null(void);
vj_node *vj_new_bool(int b);
vj_node *vj_new_int(long long i);
vj_node *vj_new_num(double d);       /* NaN/inf become null */
vj_node *vj_new_str(const char *s);
vj_node *vj_new_arr(void);
vj_node *vj_new_obj(void);
void vj_obj_set(vj_node *obj, const char *key, vj_node *val);   /* replaces an existing key */
void vj_arr_push(vj_node *arr, vj_node *val);

void vj_write(const vj_node *n, vu_buf *out);
/* One-line rendering of a scalar (or a short summary of a container). */
void vj_scalar_text(const vj_node *n, char *out, size_t outlen);

/* A deep copy of n (a null node when n is NULL); the caller owns it. */
vj_node *vj_copy(const vj_node *n);

#endif
