/* vjson: a small JSON reader and writer of the verifier's own; see vjson.h. */
#include "vjson.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end, *start;
    const char *fname;
    char *err;
    size_t errlen;
    int depth;
    const char *lpos; /* newlines counted up to here */
    int lcount;
} parser;

static void perr(parser *ps, const char *at, const char *msg)
{
    int line = 1, col = 1;
    for (const char *q = ps->start; q < at && q < ps->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(ps->err, ps->errlen, "%s:%d:%d: %s", ps->fname, line, col, msg);
}

/* positions only move forward, so count newlines incrementally */
static int line_of(parser *ps, const char *at)
{
    for (; ps->lpos < at; ps->lpos++)
        ps->lcount += (*ps->lpos == '\n');
    return ps->lcount;
}

static vj_node *node(vj_type t)
{
    vj_node *n = vu_xcalloc(1, sizeof *n);
    n->type = t;
    return n;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static void put_utf8(vu_buf *b, unsigned cp)
{
    char c[4];
    if (cp < 0x80) {
        c[0] = (char)cp;
        vu_buf_add(b, c, 1);
    } else if (cp < 0x800) {
        c[0] = (char)(0xC0 | (cp >> 6));
        c[1] = (char)(0x80 | (cp & 0x3F));
        vu_buf_add(b, c, 2);
    } else if (cp < 0x10000) {
        c[0] = (char)(0xE0 | (cp >> 12));
        c[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        c[2] = (char)(0x80 | (cp & 0x3F));
        vu_buf_add(b, c, 3);
    } else {
        c[0] = (char)(0xF0 | (cp >> 18));
        c[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        c[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        c[3] = (char)(0x80 | (cp & 0x3F));
        vu_buf_add(b, c, 4);
    }
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* ps->p at the opening quote; on success *out is a malloc'd string */
static int parse_string(parser *ps, char **out)
{
    const char *q = ps->p + 1;
    vu_buf b = {0};
    vu_buf_add(&b, "", 0);
    for (;;) {
        const char *s = q;
        while (q < ps->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
            q++;
        vu_buf_add(&b, s, (size_t)(q - s));
        if (q >= ps->end) {
            perr(ps, q, "string not closed");
            goto fail;
        }
        if (*q == '"')
            break;
        if ((unsigned char)*q < 0x20) {
            perr(ps, q, "control character inside a string");
            goto fail;
        }
        /* backslash */
        if (q + 1 >= ps->end) {
            perr(ps, q, "string not closed");
            goto fail;
        }
        char e = q[1];
        q += 2;
        switch (e) {
        case '"': vu_buf_add(&b, "\"", 1); break;
        case '\\': vu_buf_add(&b, "\\", 1); break;
        case '/': vu_buf_add(&b, "/", 1); break;
        case 'b': vu_buf_add(&b, "\b", 1); break;
        case 'f': vu_buf_add(&b, "\f", 1); break;
        case 'n': vu_buf_add(&b, "\n", 1); break;
        case 'r': vu_buf_add(&b, "\r", 1); break;
        case 't': vu_buf_add(&b, "\t", 1); break;
        case 'u': {
            unsigned cp;
            if (q + 4 > ps->end || hex4(q, &cp)) {
                perr(ps, q, "bad \\u escape");
                goto fail;
            }
            q += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && q + 6 <= ps->end && q[0] == '\\' && q[1] == 'u') {
                unsigned lo;
                if (!hex4(q + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    q += 6;
                }
            }
            put_utf8(&b, cp);
            break;
        }
        default:
            perr(ps, q - 1, "bad escape in string");
            goto fail;
        }
    }
    ps->p = q + 1;
    *out = b.p;
    return 0;
fail:
    vu_buf_free(&b);
    return -1;
}

static int parse_value(parser *ps, vj_node **out);

static int parse_number(parser *ps, vj_node **out)
{
    const char *s = ps->p, *q = s;
    if (q < ps->end && *q == '-')
        q++;
    if (q >= ps->end || *q < '0' || *q > '9') {
        perr(ps, s, "bad number");
        return -1;
    }
    if (*q == '0') {
        q++;
    } else {
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    }
    int plain = 1;
    if (q < ps->end && *q == '.') {
        plain = 0;
        q++;
        if (q >= ps->end || *q < '0' || *q > '9') {
            perr(ps, s, "bad number: no digit after the point");
            return -1;
        }
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        plain = 0;
        q++;
        if (q < ps->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= ps->end || *q < '0' || *q > '9') {
            perr(ps, s, "bad number: no digit in the exponent");
            return -1;
        }
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    }
    vj_node *n = node(VJ_NUM);
    n->text = vu_xstrndup(s, (size_t)(q - s));
    n->num = strtod(n->text, NULL);
    if (!isfinite(n->num)) {
        perr(ps, s, "number beyond the range of a double");
        vj_free(n);
        return -1;
    }
    /* "-0" is the double -0.0, not an integer (written back as "-0", as
     * vj_write writes -0.0; read as the integer 0 its sign was lost) */
    if (plain && !(n->num == 0 && signbit(n->num))) {
        errno = 0;
        long long v = strtoll(n->text, NULL, 10);
        if (errno == 0) {
            n->is_int = 1;
            n->i = v;
        }
    }
    ps->p = q;
    *out = n;
    return 0;
}

static int lit(parser *ps, const char *w)
{
    size_t l = strlen(w);
    if ((size_t)(ps->end - ps->p) >= l && !memcmp(ps->p, w, l)) {
        ps->p += l;
        return 1;
    }
    return 0;
}

static int parse_value(parser *ps, vj_node **out)
{
    skip_ws(ps);
    if (ps->p >= ps->end) {
        perr(ps, ps->p, "unexpected end of file");
        return -1;
    }
    if (++ps->depth > 200) {
        perr(ps, ps->p, "nested too deeply");
        return -1;
    }
    int line = line_of(ps, ps->p);
    char c = *ps->p;
    int rc = 0;
    vj_node *n = NULL;
    if (c == '{' || c == '[') {
        int obj = c == '{';
        n = node(obj ? VJ_OBJ : VJ_ARR);
        n->line = line;
        ps->p++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
            ps->p++;
        } else {
            for (;;) {
                char *key = NULL;
                if (obj) {
                    skip_ws(ps);
                    if (ps->p >= ps->end || *ps->p != '"') {
                        perr(ps, ps->p, "expected a member name in quotes");
                        rc = -1;
                        break;
                    }
                    const char *kat = ps->p;
                    if (parse_string(ps, &key)) {
                        rc = -1;
                        break;
                    }
                    if (vj_get(n, key)) {
                        char m[300];
                        snprintf(m, sizeof m, "duplicate member \"%.200s\"", key);
                        perr(ps, kat, m);
                        free(key);
                        rc = -1;
                        break;
                    }
                    skip_ws(ps);
                    if (ps->p >= ps->end || *ps->p != ':') {
                        perr(ps, ps->p, "expected ':'");
                        free(key);
                        rc = -1;
                        break;
                    }
                    ps->p++;
                }
                vj_node *v = NULL;
                if (parse_value(ps, &v)) {
                    free(key);
                    rc = -1;
                    break;
                }
                if (obj) {
                    vj_obj_set(n, key, v);
                    free(key);
                } else {
                    vj_arr_push(n, v);
                }
                skip_ws(ps);
                if (ps->p < ps->end && *ps->p == ',') {
                    ps->p++;
                    continue;
                }
                if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
                    ps->p++;
                    break;
                }
                perr(ps, ps->p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
                rc = -1;
                break;
            }
        }
    } else if (c == '"') {
        n = node(VJ_STR);
        if (parse_string(ps, &n->text))
            rc = -1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        rc = parse_number(ps, &n);
    } else if (lit(ps, "true")) {
        n = vj_new_bool(1);
    } else if (lit(ps, "false")) {
        n = vj_new_bool(0);
    } else if (lit(ps, "null")) {
        n = vj_new_null();
    } else {
        perr(ps, ps->p, "unexpected character");
        rc = -1;
    }
    ps->depth--;
    if (rc) {
        vj_free(n);
        return -1;
    }
    n->line = line;
    *out = n;
    return 0;
}

int vj_parse(const char *buf, size_t len, const char *fname, vj_node **out, char *err, size_t errlen)
{
    parser ps = {buf, buf + len, buf, fname, err, errlen, 0, buf, 1};
    *out = NULL;
    vj_node *n = NULL;
    if (parse_value(&ps, &n))
        return EINVAL;
    skip_ws(&ps);
    if (ps.p != ps.end) {
        perr(&ps, ps.p, "text after the JSON value");
        vj_free(n);
        return EINVAL;
    }
    *out = n;
    return 0;
}

int vj_parse_file(const char *path, vj_node **out, char *err, size_t errlen)
{
    unsigned char *buf;
    size_t len;
    int rc = vu_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    rc = vj_parse((const char *)buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

void vj_free(vj_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++) {
        if (n->keys)
            free(n->keys[i]);
        vj_free(n->items[i]);
    }
    free(n->keys);
    free(n->items);
    free(n->text);
    free(n);
}

vj_node *vj_get(const vj_node *obj, const char *key)
{
    if (!obj || obj->type != VJ_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return obj->items[i];
    return NULL;
}

const char *vj_get_str(const vj_node *obj, const char *key)
{
    vj_node *n = vj_get(obj, key);
    return n && n->type == VJ_STR ? n->text : NULL;
}

int vj_get_num(const vj_node *obj, const char *key, double *out)
{
    vj_node *n = vj_get(obj, key);
    if (!n || n->type != VJ_NUM)
        return -1;
    *out = n->num;
    return 0;
}

vj_node *vj_new_null(void) { return node(VJ_NULL); }

vj_node *vj_new_bool(int b)
{
    vj_node *n = node(VJ_BOOL);
    n->b = !!b;
    return n;
}

vj_node *vj_new_int(long long i)
{
    vj_node *n = node(VJ_NUM);
    n->is_int = 1;
    n->i = i;
    n->num = (double)i;
    n->text = vu_xasprintf("%lld", i);
    return n;
}

vj_node *vj_new_num(double d)
{
    if (!isfinite(d))
        return vj_new_null();
    vj_node *n = node(VJ_NUM);
    n->num = d;
    char t[40];
    vu_fmt_double(d, t, sizeof t);
    n->text = vu_xstrdup(t);
    return n;
}

vj_node *vj_new_str(const char *s)
{
    vj_node *n = node(VJ_STR);
    n->text = vu_xstrdup(s);
    return n;
}

vj_node *vj_new_arr(void) { return node(VJ_ARR); }
vj_node *vj_new_obj(void) { return node(VJ_OBJ); }

static void grow(vj_node *n)
{
    if (n->n == n->cap) {
        n->cap = n->cap ? n->cap * 2 : 8;
        n->items = vu_xrealloc(n->items, n->cap * sizeof *n->items);
        if (n->type == VJ_OBJ)
            n->keys = vu_xrealloc(n->keys, n->cap * sizeof *n->keys);
    }
}

void vj_obj_set(vj_node *obj, const char *key, vj_node *val)
{
    for (size_t i = 0; i < obj->n; i++) {
        if (!strcmp(obj->keys[i], key)) {
            vj_free(obj->items[i]);
            obj->items[i] = val;
            return;
        }
    }
    grow(obj);
    obj->keys[obj->n] = vu_xstrdup(key);
    obj->items[obj->n++] = val;
}

void vj_arr_push(vj_node *arr, vj_node *val)
{
    grow(arr);
    arr->items[arr->n++] = val;
}

static void write_str(vu_buf *b, const char *s)
{
    vu_buf_add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': vu_buf_add(b, "\\\"", 2); break;
        case '\\': vu_buf_add(b, "\\\\", 2); break;
        case '\n': vu_buf_add(b, "\\n", 2); break;
        case '\t': vu_buf_add(b, "\\t", 2); break;
        case '\r': vu_buf_add(b, "\\r", 2); break;
        default:
            if (*p < 0x20)
                vu_buf_printf(b, "\\u%04x", *p);
            else
                vu_buf_add(b, p, 1);
        }
    }
    vu_buf_add(b, "\"", 1);
}

static int is_flat(const vj_node *n)
{
    for (size_t i = 0; i < n->n; i++)
        if (n->items[i]->type == VJ_ARR || n->items[i]->type == VJ_OBJ)
            return 0;
    return 1;
}

static void indent(vu_buf *b, int lvl)
{
    vu_buf_add(b, "\n", 1);
    for (int i = 0; i < lvl; i++)
        vu_buf_add(b, "  ", 2);
}

static void write_node(const vj_node *n, vu_buf *b, int lvl)
{
    switch (n->type) {
    case VJ_NULL: vu_buf_puts(b, "null"); break;
    case VJ_BOOL: vu_buf_puts(b, n->b ? "true" : "false"); break;
    case VJ_NUM:
        if (!n->line) {
            /* built (vj_new_int, vj_new_num): its text is what the branches below write, made once */
            vu_buf_puts(b, n->text);
        } else if (n->is_int) {
            vu_buf_printf(b, "%lld", n->i);
        } else {
            char t[40];
            vu_fmt_double(n->num, t, sizeof t);
            vu_buf_puts(b, t);
        }
        break;
    case VJ_STR: write_str(b, n->text); break;
    case VJ_ARR:
        if (n->n == 0) {
            vu_buf_puts(b, "[]");
        } else if (is_flat(n)) {
            vu_buf_puts(b, "[");
            for (size_t i = 0; i < n->n; i++) {
                if (i)
                    vu_buf_puts(b, ", ");
                write_node(n->items[i], b, lvl + 1);
            }
            vu_buf_puts(b, "]");
        } else {
            vu_buf_puts(b, "[");
            for (size_t i = 0; i < n->n; i++) {
                if (i)
                    vu_buf_puts(b, ",");
                indent(b, lvl + 1);
                write_node(n->items[i], b, lvl + 1);
            }
            indent(b, lvl);
            vu_buf_puts(b, "]");
        }
        break;
    case VJ_OBJ:
        if (n->n == 0) {
            vu_buf_puts(b, "{}");
            break;
        }
        vu_buf_puts(b, "{");
        for (size_t i = 0; i < n->n; i++) {
            if (i)
                vu_buf_puts(b, ",");
            indent(b, lvl + 1);
            write_str(b, n->keys[i]);
            vu_buf_puts(b, ": ");
            write_node(n->items[i], b, lvl + 1);
        }
        indent(b, lvl);
        vu_buf_puts(b, "}");
        break;
    }
}

void vj_write(const vj_node *n, vu_buf *out)
{
    write_node(n, out, 0);
    vu_buf_puts(out, "\n");
}

void vj_scalar_text(const vj_node *n, char *out, size_t outlen)
{
    if (!n) {
        snprintf(out, outlen, "(absent)");
        return;
    }
    switch (n->type) {
    case VJ_NULL: snprintf(out, outlen, "null"); break;
    case VJ_BOOL: snprintf(out, outlen, "%s", n->b ? "true" : "false"); break;
    case VJ_NUM: snprintf(out, outlen, "%s", n->text); break;
    case VJ_STR: snprintf(out, outlen, "\"%s\"", n->text); break;
    case VJ_ARR: snprintf(out, outlen, "(a list of %zu)", n->n); break;
    case VJ_OBJ: snprintf(out, outlen, "(an object of %zu members)", n->n); break;
    }
}

vj_node *vj_copy(const vj_node *n)
{
    if (!n)
        return vj_new_null();
    switch (n->type) {
    case VJ_NULL: return vj_new_null();
    case VJ_BOOL: return vj_new_bool(n->b);
    case VJ_NUM: return n->is_int ? vj_new_int(n->i) : vj_new_num(n->num);
    case VJ_STR: return vj_new_str(n->text);
    case VJ_ARR: {
        vj_node *a = vj_new_arr();
        for (size_t i = 0; i < n->n; i++)
            vj_arr_push(a, vj_copy(n->items[i]));
        return a;
    }
    case VJ_OBJ: {
        vj_node *o = vj_new_obj();
        for (size_t i = 0; i < n->n; i++)
            vj_obj_set(o, n->keys[i], vj_copy(n->items[i]));
        return o;
    }
    }
    return vj_new_null();
}
