/* tpl.c: the template engine (the grammar is in tpl.h): tokens, then a
 * tree, then the tree walked against verified.json into a sink. */
#include "tpl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

enum { T_TEXT, T_VALUE, T_VAR, T_IF, T_ELIF, T_ELSE, T_ENDIF, T_EACH, T_SEP, T_ENDEACH, T_CMD, T_COMMENT, T_DEF, T_ENDDEF,
       T_CALL };

typedef struct {
    int kind, line;
    char *s; /* text, or the tag's content without its braces */
} tok;

typedef struct node node;
struct node {
    int kind, line; /* T_TEXT, T_VALUE, T_VAR, T_CMD, T_IF, T_EACH */
    char *s;        /* text; tag content; IF: unused; EACH: "VAR in LIST" */
    /* IF: n branches, cond[i] (NULL for else), body[i]; EACH: body[0] the
     * body, body[1] the separator, body[2] the else part */
    size_t n;
    char **cond;
    node **body; /* each a sequence: a dummy list node */
    node **kids; /* for a sequence */
    size_t nkids;
};

typedef struct {
    const char *name;
    json_t *node; /* the item (may be NULL: a word of a literal list) */
    char ptr[1100];
    int design;
    char item[256]; /* its name */
    char idx[32];   /* its index in its list (or its key) */
} var;

typedef struct {
    char name[64];
    char params[8][32];
    int np;
    node *body;
    const char *file;
} def;

typedef struct {
    const char *file;
    json_t *root, *design;
    def defs[64];
    int ndefs;
    const tpl_sink *sink;
    char *err;
    size_t el;
    var vars[16];
    int nvars;
} env;

static void *xalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "tpl: out of memory\n");
        exit(1);
    }
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = xalloc(n + 1);
    memcpy(p, s, n);
    return p;
}

static int fail(char *err, size_t el, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t el, const char *file, int line, const char *fmt, ...)
{
    int o = snprintf(err, el, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    if (o >= 0 && (size_t)o < el)
        vsnprintf(err + o, el - o, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------ tokens */

static int tag_kind(const char *c)
{
    if (c[0] == '#') {
        if (!strncmp(c, "#if ", 4))
            return T_IF;
        if (!strncmp(c, "#elif ", 6))
            return T_ELIF;
        if (!strcmp(c, "#else"))
            return T_ELSE;
        if (!strncmp(c, "#each ", 6))
            return T_EACH;
        if (!strcmp(c, "#sep"))
            return T_SEP;
        if (!strncmp(c, "#def ", 5))
            return T_DEF;
        if (!strncmp(c, "#call ", 6))
            return T_CALL;
        return -1;
    }
    if (!strcmp(c, "/if"))
        return T_ENDIF;
    if (!strcmp(c, "/def"))
        return T_ENDDEF;
    if (!strcmp(c, "/each"))
        return T_ENDEACH;
    if (c[0] == '@')
        return T_CMD;
    if (c[0] == '*')
        return T_COMMENT;
    if (c[0] == '$' && !strchr(c, '|') && !strchr(c, '.'))
        return T_VAR;
    return T_VALUE;
}

static void push(tok **t, size_t *n, size_t *cap, int kind, int line, char *s)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *t = realloc(*t, *cap * sizeof **t);
        if (!*t) {
            fprintf(stderr, "tpl: out of memory\n");
            exit(1);
        }
    }
    (*t)[(*n)++] = (tok){kind, line, s};
}

/* text into tokens; a text token never holds more than one newline, at its end */
static int lex(const char *text, const char *file, tok **out, size_t *nout, char *err, size_t el)
{
    tok *t = NULL;
    size_t n = 0, cap = 0;
    int line = 1;
    const char *p = text;
    while (*p) {
        if (p[0] == '{' && p[1] == '{') {
            push(&t, &n, &cap, T_TEXT, line, xstrndup("{", 1));
            p += 2;
            continue;
        }
        if (*p != '{') {
            size_t k = strcspn(p, "{\n");
            if (p[k] == '\n')
                k++;
            push(&t, &n, &cap, T_TEXT, line, xstrndup(p, k));
            line += p[k - 1] == '\n';
            p += k;
            continue;
        }
        int start = line;
        if (p[1] == '*') {
            const char *e = strstr(p + 2, "*}");
            if (!e) {
                *out = t, *nout = n;
                return fail(err, el, file, start, "{* without its *}");
            }
            for (const char *q = p; q < e; q++)
                line += *q == '\n';
            push(&t, &n, &cap, T_COMMENT, start, xstrndup("*", 1));
            p = e + 2;
            continue;
        }
        /* to the matching }, on this line */
        int depth = 0;
        const char *q = p;
        for (; *q && *q != '\n'; q++) {
            if (*q == '{')
                depth++;
            else if (*q == '}' && --depth == 0)
                break;
        }
        if (*q != '}') {
            *out = t, *nout = n;
            return fail(err, el, file, start, "a { without its } on the line: \"%.60s\"", p);
        }
        char *c = xstrndup(p + 1, (size_t)(q - p - 1));
        int k = tag_kind(c);
        if (k < 0) {
            fail(err, el, file, start, "{%s}: no such directive (#if, #elif, #else, #each, #sep, #def, #call)", c);
            free(c);
            *out = t, *nout = n;
            return -1;
        }
        push(&t, &n, &cap, k, start, c);
        p = q + 1;
    }
    /* a line of block tags and blanks only is dropped whole */
    size_t a = 0;
    while (a < n) {
        size_t b = a;
        while (b < n && !(t[b].kind == T_TEXT && t[b].s[0] && t[b].s[strlen(t[b].s) - 1] == '\n'))
            b++;
        size_t end = b < n ? b + 1 : n; /* [a, end) is one line */
        int tags = 0, other = 0;
        for (size_t i = a; i < end; i++) {
            if (t[i].kind == T_TEXT)
                other |= t[i].s[strspn(t[i].s, " \t\n")] != 0;
            else if (t[i].kind == T_VALUE || t[i].kind == T_VAR)
                other = 1;
            else
                tags = 1;
        }
        if (tags && !other)
            for (size_t i = a; i < end; i++)
                if (t[i].kind == T_TEXT)
                    t[i].s[0] = 0;
        a = end;
    }
    *out = t, *nout = n;
    return 0;
}

/* ------------------------------------------------------------ tree */

static node *mk(int kind, int line, char *s)
{
    node *x = xalloc(sizeof *x);
    x->kind = kind, x->line = line, x->s = s;
    return x;
}

static void add(node *seq, node *k)
{
    seq->kids = realloc(seq->kids, (seq->nkids + 1) * sizeof *seq->kids);
    if (!seq->kids) {
        fprintf(stderr, "tpl: out of memory\n");
        exit(1);
    }
    seq->kids[seq->nkids++] = k;
}

static void add_branch(node *x, char *cond, node *body)
{
    x->cond = realloc(x->cond, (x->n + 1) * sizeof *x->cond);
    x->body = realloc(x->body, (x->n + 1) * sizeof *x->body);
    if (!x->cond || !x->body) {
        fprintf(stderr, "tpl: out of memory\n");
        exit(1);
    }
    x->cond[x->n] = cond;
    x->body[x->n++] = body;
}

static void node_free(node *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nkids; i++)
        node_free(x->kids[i]);
    for (size_t i = 0; i < x->n; i++)
        node_free(x->body[i]);
    free(x->kids);
    free(x->body);
    free(x->cond);
    free(x);
}

/* a sequence up to a token of a kind in stop (or the end when stop is
 * empty); *at is left on the stopping token */
static node *parse_seq(tok *t, size_t n, size_t *at, const char *file, const int *stop, int nstop, int *stopped,
                       char *err, size_t el)
{
    node *seq = mk(-1, 0, NULL);
    while (*at < n) {
        tok *k = &t[*at];
        for (int i = 0; i < nstop; i++)
            if (k->kind == stop[i]) {
                *stopped = k->kind;
                return seq;
            }
        (*at)++;
        if (k->kind == T_COMMENT || (k->kind == T_TEXT && !k->s[0]))
            continue;
        if (k->kind == T_TEXT || k->kind == T_VALUE || k->kind == T_VAR || k->kind == T_CMD || k->kind == T_CALL) {
            add(seq, mk(k->kind, k->line, k->s));
            continue;
        }
        if (k->kind == T_IF) {
            node *x = mk(T_IF, k->line, NULL);
            add(seq, x);
            char *cond = k->s + 4;
            for (;;) {
                static const int st[] = {T_ELIF, T_ELSE, T_ENDIF};
                int why = -1;
                node *b = parse_seq(t, n, at, file, st, 3, &why, err, el);
                if (!b) {
                    node_free(seq);
                    return NULL;
                }
                add_branch(x, cond, b);
                if (why < 0) {
                    node_free(seq);
                    fail(err, el, file, k->line, "{%s}: without its {/if}", k->s);
                    return NULL;
                }
                tok *e = &t[(*at)++];
                if (why == T_ENDIF)
                    break;
                if (cond == NULL) {
                    node_free(seq);
                    fail(err, el, file, e->line, "{%s} after {#else}", e->s);
                    return NULL;
                }
                cond = why == T_ELIF ? e->s + 6 : NULL;
            }
            continue;
        }
        if (k->kind == T_DEF) {
            node *x = mk(T_DEF, k->line, k->s + 5);
            add(seq, x);
            static const int st[] = {T_ENDDEF};
            int why = -1;
            node *b = parse_seq(t, n, at, file, st, 1, &why, err, el);
            if (!b) {
                node_free(seq);
                return NULL;
            }
            add_branch(x, NULL, b);
            if (why < 0) {
                node_free(seq);
                fail(err, el, file, k->line, "{%s}: without its {/def}", k->s);
                return NULL;
            }
            (*at)++;
            continue;
        }
        if (k->kind == T_EACH) {
            node *x = mk(T_EACH, k->line, k->s + 6);
            add(seq, x);
            node *part[3] = {NULL, NULL, NULL};
            int which = 0;
            for (;;) {
                static const int st[] = {T_SEP, T_ELSE, T_ENDEACH};
                int why = -1;
                node *b = parse_seq(t, n, at, file, st, 3, &why, err, el);
                if (!b) {
                    for (int i = 0; i < 3; i++)
                        node_free(part[i]);
                    node_free(seq);
                    return NULL;
                }
                part[which] = b;
                if (why < 0) {
                    for (int i = 0; i < 3; i++)
                        node_free(part[i]);
                    node_free(seq);
                    fail(err, el, file, k->line, "{%s}: without its {/each}", k->s);
                    return NULL;
                }
                tok *e = &t[(*at)++];
                if (why == T_ENDEACH)
                    break;
                int next = why == T_SEP ? 1 : 2;
                if (next <= which) {
                    for (int i = 0; i < 3; i++)
                        node_free(part[i]);
                    node_free(seq);
                    fail(err, el, file, e->line, "{%s} out of place in {%s}", e->s, k->s);
                    return NULL;
                }
                which = next;
            }
            for (int i = 0; i < 3; i++)
                add_branch(x, NULL, part[i] ? part[i] : mk(-1, 0, NULL));
            continue;
        }
        node_free(seq);
        fail(err, el, file, k->line, "{%s} without its opening tag", k->s);
        return NULL;
    }
    return seq;
}

/* ------------------------------------------------------------ paths */

static var *find_var(env *e, const char *name, size_t len)
{
    for (int i = e->nvars - 1; i >= 0; i--)
        if (strlen(e->vars[i].name) == len && !strncmp(e->vars[i].name, name, len))
            return &e->vars[i];
    return NULL;
}

static size_t ident_len(const char *s)
{
    size_t k = 0;
    while ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') ||
           s[k] == '_')
        k++;
    return k;
}

/* path with every $VAR (but a leading one, unless all) replaced by its
 * name, $VAR# by its index; -1 and why */
static int substitute_all(env *e, const char *path, char *out, size_t on, char *why, size_t wl, int all)
{
    size_t o = 0;
    for (const char *p = path; *p;) {
        if (*p == '$' && (p != path || all)) {
            size_t k = ident_len(p + 1);
            var *v = find_var(e, p + 1, k);
            if (!v) {
                snprintf(why, wl, "$%.*s is no loop's variable here", (int)k, p + 1);
                return -1;
            }
            int hash = p[1 + k] == '#';
            o += snprintf(out + o, o < on ? on - o : 0, "%s", hash ? v->idx : v->item);
            p += 1 + k + hash;
        } else {
            if (o + 1 < on)
                out[o] = *p;
            o++;
            p++;
        }
    }
    if (o >= on) {
        snprintf(why, wl, "overlong");
        return -1;
    }
    out[o] = 0;
    return 0;
}

static int substitute(env *e, const char *path, char *out, size_t on, char *why, size_t wl)
{
    return substitute_all(e, path, out, on, why, wl, 0);
}

/* resolve PATH: 1 found (node, ptr, design), 0 not found (why), -1 an
 * error of the path itself (why) */
static int resolve(env *e, const char *path0, json_t **out, char *ptr, size_t pl, int *design, char *why, size_t wl)
{
    char path[1024];
    if (substitute(e, path0, path, sizeof path, why, wl) != 0)
        return -1;
    json_t *n = e->root;
    size_t po = 0;
    ptr[0] = 0;
    *design = 0;
    const char *p = path;
    if (*p == '$') {
        size_t k = ident_len(p + 1);
        var *v = find_var(e, p + 1, k);
        if (!v) {
            snprintf(why, wl, "$%.*s is no loop's variable here", (int)k, p + 1);
            return -1;
        }
        if (!v->node) {
            snprintf(why, wl, "$%.*s is a word, not an item with fields", (int)k, p + 1);
            return -1;
        }
        n = v->node;
        *design = v->design;
        po = (size_t)snprintf(ptr, pl, "%s", v->ptr);
        p += 1 + k;
        if (*p == '.')
            p++;
        else if (*p) {
            snprintf(why, wl, "a dot wanted after $%.*s", (int)k, p - k);
            return -1;
        }
    } else if (!strncmp(p, "design", 6) && (p[6] == '.' || !p[6])) {
        n = e->design;
        *design = 1;
        p += 6 + (p[6] == '.');
        if (!n) {
            snprintf(why, wl, "no design data given");
            return 0;
        }
    }
    while (*p) {
        size_t kl = strcspn(p, ".[");
        char key[256], sel[256] = "";
        if (kl == 0 || kl >= sizeof key) {
            snprintf(why, wl, "an empty or overlong key at \"%.200s\"", p);
            return -1;
        }
        memcpy(key, p, kl);
        key[kl] = 0;
        p += kl;
        if (*p == '[') {
            size_t sl = strcspn(p + 1, "]");
            if (!p[1 + sl] || sl >= sizeof sel) {
                snprintf(why, wl, "an unclosed [ after %s", key);
                return -1;
            }
            memcpy(sel, p + 1, sl);
            sel[sl] = 0;
            p += sl + 2;
        }
        if (*p == '.')
            p++;
        else if (*p) {
            snprintf(why, wl, "a dot wanted after %s", key);
            return -1;
        }
        if (json_is_array(n) && !strcmp(key, "-1") && json_array_size(n))
            snprintf(key, sizeof key, "%zu", json_array_size(n) - 1);
        if (json_is_array(n) && strspn(key, "0123456789") == strlen(key))
            n = json_array_get(n, strtoul(key, NULL, 10));
        else
            n = json_object_get(n, key);
        if (!n) {
            snprintf(why, wl, "no %s", key);
            return 0;
        }
        po += (size_t)snprintf(ptr + po, po < pl ? pl - po : 0, "/%s", key);
        if (!sel[0])
            continue;
        /* the first item of the list whose fields match every f=v of sel */
        json_t *hit = NULL, *item;
        size_t i, hi = 0;
        json_array_foreach(n, i, item)
        {
            int all = 1;
            char s2[256], *save = NULL;
            snprintf(s2, sizeof s2, "%s", sel);
            for (char *kv = strtok_r(s2, ",", &save); kv && all; kv = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(kv, '=');
                const char *v = eq ? json_string_value(json_object_get(item, (*eq = 0, kv))) : NULL;
                all = v && !strcmp(v, eq + 1);
            }
            if (all) {
                hit = item;
                hi = i;
                break;
            }
        }
        if (!hit) {
            snprintf(why, wl, "no item of %s with %s", key, sel);
            return 0;
        }
        n = hit;
        po += (size_t)snprintf(ptr + po, po < pl ? pl - po : 0, "/%zu", hi);
    }
    if (po >= pl) {
        snprintf(why, wl, "overlong");
        return -1;
    }
    *out = n;
    return 1;
}

/* ------------------------------------------------------------ conditions */

static char *trim(char *s)
{
    while (*s == ' ')
        s++;
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        s[--n] = 0;
    return s;
}

/* one TERM: 1 true, 0 false, -1 error */
static int term(env *e, char *s, int line)
{
    s = trim(s);
    int neg = 0;
    if (*s == '!') {
        neg = 1;
        s = trim(s + 1);
    }
    static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    char *op = NULL;
    int oi = -1;
    for (int i = 0; i < 6 && !op; i++)
        if ((op = strstr(s, ops[i])))
            oi = i;
    char path[512], lit[256] = "";
    if (op) {
        snprintf(path, sizeof path, "%.*s", (int)(op - s), s);
        snprintf(lit, sizeof lit, "%s", op + strlen(ops[oi]));
    } else {
        snprintf(path, sizeof path, "%s", s);
    }
    char *pth = trim(path), *l = trim(lit);
    json_t *v = NULL, *word = NULL;
    char ptr[512], why[512];
    int design, r, exists = 0;
    if (*pth == '?') {
        exists = 1;
        pth = trim(pth + 1);
    }
    size_t il = pth[0] == '$' ? ident_len(pth + 1) : 0;
    int hash = il && !strcmp(pth + 1 + il, "#");
    var *wv = il && (hash || il == strlen(pth + 1)) ? find_var(e, pth + 1, il) : NULL;
    if (wv && (op || !wv->node || hash)) {
        /* $VAR compared (or a word alone): its name; $VAR#: its index */
        v = word = json_string(hash ? wv->idx : wv->item);
        r = 1;
    } else {
        r = resolve(e, pth, &v, ptr, sizeof ptr, &design, why, sizeof why);
    }
    if (r < 0)
        return fail(e->err, e->el, e->file, line, "{#if %s}: %s", s, why);
    int res = 0;
    if (!op && exists) {
        res = r == 1;
    } else if (!op) {
        res = r == 1 && !json_is_null(v) && !json_is_false(v);
    } else if (r == 0) {
        res = 0;
    } else if (!strcmp(l, "null") || !strcmp(l, "true") || !strcmp(l, "false")) {
        if (oi > 1) {
            json_decref(word);
            return fail(e->err, e->el, e->file, line, "{#if %s}: %s wants == or !=", s, l);
        }
        int eq = l[0] == 'n' ? json_is_null(v) : l[0] == 't' ? json_is_true(v) : json_is_false(v);
        res = oi == 0 ? eq : !eq;
    } else if (l[0] == '"') {
        size_t ln = strlen(l);
        if (ln < 2 || l[ln - 1] != '"' || oi > 1) {
            json_decref(word);
            return fail(e->err, e->el, e->file, line, "{#if %s}: a string wants \"...\" and == or !=", s);
        }
        l[ln - 1] = 0;
        const char *sv = json_string_value(v);
        int eq = sv && !strcmp(sv, l + 1);
        res = oi == 0 ? eq : !eq;
    } else {
        char *end;
        double x = strtod(l, &end);
        if (!*l || *end) {
            json_decref(word);
            return fail(e->err, e->el, e->file, line, "{#if %s}: \"%s\" is neither a \"string\" nor a number", s, l);
        }
        if (!json_is_number(v)) {
            res = oi == 1;
        } else {
            double y = json_number_value(v);
            res = oi == 0 ? y == x : oi == 1 ? y != x : oi == 2 ? y <= x : oi == 3 ? y >= x : oi == 4 ? y < x : y > x;
        }
    }
    json_decref(word);
    return neg ? !res : res;
}

/* TERM && TERM ... */
static int all_true(env *e, char *p, int line)
{
    for (;;) {
        char *and = strstr(p, "&&");
        if (and)
            *and = 0;
        int r = term(e, p, line);
        if (r <= 0)
            return r;
        if (!and)
            return 1;
        p = and + 2;
    }
}

/* ALL || ALL ... (&& binds closer) */
static int cond_true(env *e, const char *cond, int line)
{
    char c[1024];
    snprintf(c, sizeof c, "%s", cond);
    char *p = c;
    for (;;) {
        char *or = strstr(p, "||");
        if (or)
            *or = 0;
        int r = all_true(e, p, line);
        if (r != 0)
            return r;
        if (!or)
            return 0;
        p = or + 2;
    }
}

/* ------------------------------------------------------------ walking */

static int walk(env *e, node *seq);

/* a string sink, for a command's arguments */
typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_put(void *ctx, const char *s, size_t n)
{
    sbuf *b = ctx;
    if (b->n + n + 1 > b->cap) {
        b->cap = 2 * (b->n + n + 1);
        b->s = realloc(b->s, b->cap);
        if (!b->s) {
            fprintf(stderr, "tpl: out of memory\n");
            exit(1);
        }
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static int sb_value(void *ctx, json_t *v, const char *ptr, const char *kind, char *err, size_t el)
{
    char t[256];
    if (fmt_value(v, kind, t, sizeof t) != 0) {
        snprintf(err, el, "%s: not a value of format %s", ptr, kind);
        return -1;
    }
    sb_put(ctx, t, strlen(t));
    return 0;
}

static void sb_missing(void *ctx)
{
    sb_put(ctx, "not measured", 12);
}

static int do_value(env *e, node *x)
{
    char c[1024];
    snprintf(c, sizeof c, "%s", x->s);
    int opt = c[0] == '~' || c[0] == '?';
    char *path = c + opt, *kind = strchr(path, '|'), *suffix = NULL;
    if (!kind)
        return fail(e->err, e->el, e->file, x->line, "{%s}: wants {PATH|KIND}, KIND a kind of report/src/fmt.h",
                    x->s);
    *kind++ = 0;
    if ((suffix = strchr(kind, '|')))
        *suffix++ = 0;
    char kbuf[32];
    if (kind[0] == '$') {
        /* the kind a word of a {#call} or a loop names */
        var *kv = find_var(e, kind + 1, strlen(kind + 1));
        if (!kv)
            return fail(e->err, e->el, e->file, x->line, "{%s}: %s is no loop's variable here", x->s, kind);
        snprintf(kbuf, sizeof kbuf, "%s", kv->item);
        kind = kbuf;
    } else if (kind[0] == '=') {
        /* the kind read from a path (the design data's, mostly) */
        json_t *k = NULL;
        char kp[512], kw[512];
        int kd;
        if (resolve(e, kind + 1, &k, kp, sizeof kp, &kd, kw, sizeof kw) != 1 || !json_is_string(k))
            return fail(e->err, e->el, e->file, x->line, "{%s}: its kind %s is no string", x->s, kind + 1);
        snprintf(kbuf, sizeof kbuf, "%s", json_string_value(k));
        kind = kbuf;
    }
    if (!fmt_known(kind))
        return fail(e->err, e->el, e->file, x->line, "{%s}: \"%s\" is no kind of report/src/fmt.h", x->s, kind);
    json_t *v = NULL;
    char ptr[512], why[512];
    int design;
    int r = resolve(e, path, &v, ptr, sizeof ptr, &design, why, sizeof why);
    if (r < 0)
        return fail(e->err, e->el, e->file, x->line, "{%s}: %s", x->s, why);
    if (r == 0 && c[0] == '~') {
        e->sink->missing(e->sink->ctx);
        return 0;
    }
    if (r == 0 && c[0] == '?') {
        /* printed as a null, at the pointer the path would have */
        char sp[1024], *q;
        if (substitute(e, path, sp, sizeof sp, why, sizeof why) != 0)
            return fail(e->err, e->el, e->file, x->line, "{%s}: %s", x->s, why);
        q = sp;
        ptr[0] = 0;
        if (*q == '$') {
            size_t k = ident_len(q + 1);
            var *vv = find_var(e, q + 1, k);
            snprintf(ptr, sizeof ptr, "%s", vv ? vv->ptr : "");
            q += 1 + k;
        }
        size_t o = strlen(ptr);
        for (; *q && o + 2 < sizeof ptr; q++)
            ptr[o++] = *q == '.' ? '/' : *q;
        ptr[o] = 0;
        if (ptr[0] != '/') {
            memmove(ptr + 1, ptr, strlen(ptr) + 1);
            ptr[0] = '/';
        }
        v = json_null();
        design = 0;
        r = 1;
    }
    if (r == 0)
        return fail(e->err, e->el, e->file, x->line, "{%s}: no such value in %s (%s)", x->s,
                    design ? "the design data" : e->sink->source ? e->sink->source : "verified.json", why);
    char serr[1024] = "";
    if (design) {
        char t[512];
        if (fmt_value(v, kind, t, sizeof t) != 0 || json_is_null(v))
            return fail(e->err, e->el, e->file, x->line, "{%s}: not a value of format %s", x->s, kind);
        e->sink->text(e->sink->ctx, t, strlen(t));
    } else if (e->sink->value(e->sink->ctx, v, ptr, kind, serr, sizeof serr) != 0) {
        return fail(e->err, e->el, e->file, x->line, "{%s}: %s", x->s, serr);
    }
    if (suffix)
        e->sink->text(e->sink->ctx, suffix, strlen(suffix));
    return 0;
}

static int do_command(env *e, node *x)
{
    if (!e->sink->command)
        return fail(e->err, e->el, e->file, x->line, "{%s}: commands are not for this template", x->s);
    /* split on the | outside nested braces, each argument rendered on its own */
    char *argv[32];
    int argc = 0, rc = 0;
    const char *s = x->s + 1;
    while (argc < 32) {
        int depth = 0;
        const char *q = s;
        for (; *q && !(*q == '|' && depth == 0); q++)
            depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
        char *raw = xstrndup(s, (size_t)(q - s));
        sbuf b = {0};
        sb_put(&b, "", 0);
        if (argc == 0 || !strchr(raw, '{')) {
            sb_put(&b, raw, strlen(raw));
        } else {
            tpl_sink sub = {&b, e->sink->source, sb_put, sb_value, sb_missing, NULL};
            tok *t;
            size_t n, at = 0;
            int st = -1;
            node *seq = NULL;
            if (lex(raw, e->file, &t, &n, e->err, e->el) == 0)
                seq = parse_seq(t, n, &at, e->file, NULL, 0, &st, e->err, e->el);
            if (seq) {
                const tpl_sink *keep = e->sink;
                e->sink = &sub;
                rc = walk(e, seq);
                e->sink = keep;
                node_free(seq);
            } else {
                rc = -1;
            }
            for (size_t i = 0; i < n; i++)
                free(t[i].s);
            free(t);
        }
        free(raw);
        argv[argc++] = b.s;
        if (rc != 0 || !*q)
            break;
        s = q + 1;
    }
    char serr[1024] = "";
    if (rc == 0 && e->sink->command(e->sink->ctx, argc, argv, serr, sizeof serr) != 0)
        rc = fail(e->err, e->el, e->file, x->line, "{%s}: %s", x->s, serr);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return rc;
}

static int do_each(env *e, node *x)
{
    char c[1024];
    snprintf(c, sizeof c, "%s", x->s);
    char *in = strstr(c, " in ");
    if (!in)
        return fail(e->err, e->el, e->file, x->line, "{#each %s}: wants {#each VAR in LIST}", x->s);
    *in = 0;
    char *name = trim(c), *list = trim(in + 4);
    if (!name[0] || ident_len(name) != strlen(name))
        return fail(e->err, e->el, e->file, x->line, "{#each %s}: \"%s\" is not a variable's name", x->s, name);
    if (e->nvars == (int)(sizeof e->vars / sizeof e->vars[0]))
        return fail(e->err, e->el, e->file, x->line, "{#each %s}: loops nested too deep", x->s);
    var *v = &e->vars[e->nvars];
    memset(v, 0, sizeof *v);
    v->name = name;
    size_t count = 0;
    int rc = 0;
    if (list[0] == '[') {
        size_t ln = strlen(list);
        if (list[ln - 1] != ']')
            return fail(e->err, e->el, e->file, x->line, "{#each %s}: an unclosed [", x->s);
        list[ln - 1] = 0;
        char *save = NULL;
        e->nvars++;
        for (char *w = strtok_r(list + 1, " ", &save); w && !rc; w = strtok_r(NULL, " ", &save)) {
            if (count++ && walk(e, x->body[1]))
                rc = -1;
            snprintf(v->item, sizeof v->item, "%s", w);
            snprintf(v->idx, sizeof v->idx, "%zu", count - 1);
            v->node = NULL;
            if (!rc)
                rc = walk(e, x->body[0]);
        }
        e->nvars--;
    } else {
        json_t *l = NULL;
        char ptr[512], why[512];
        int design;
        int r = resolve(e, list, &l, ptr, sizeof ptr, &design, why, sizeof why);
        if (r < 0)
            return fail(e->err, e->el, e->file, x->line, "{#each %s}: %s", x->s, why);
        e->nvars++;
        v->design = design;
        if (r == 1 && json_is_array(l)) {
            size_t i;
            json_t *it;
            json_array_foreach(l, i, it)
            {
                if (rc)
                    break;
                if (count++ && walk(e, x->body[1])) {
                    rc = -1;
                    break;
                }
                v->node = it;
                snprintf(v->ptr, sizeof v->ptr, "%s/%zu", ptr, i);
                snprintf(v->idx, sizeof v->idx, "%zu", i);
                const char *nm = json_is_string(it) ? json_string_value(it)
                                                    : json_string_value(json_object_get(it, "name"));
                if (!nm)
                    nm = json_string_value(json_object_get(it, "id"));
                if (nm)
                    snprintf(v->item, sizeof v->item, "%s", nm);
                else if (json_is_integer(it))
                    snprintf(v->item, sizeof v->item, "%lld", (long long)json_integer_value(it));
                else
                    snprintf(v->item, sizeof v->item, "%zu", i);
                rc = walk(e, x->body[0]);
            }
        } else if (r == 1 && json_is_object(l)) {
            const char *key;
            json_t *it;
            json_object_foreach(l, key, it)
            {
                if (rc)
                    break;
                if (count++ && walk(e, x->body[1])) {
                    rc = -1;
                    break;
                }
                v->node = it;
                snprintf(v->ptr, sizeof v->ptr, "%s/%s", ptr, key);
                snprintf(v->item, sizeof v->item, "%s", key);
                snprintf(v->idx, sizeof v->idx, "%zu", count - 1);
                rc = walk(e, x->body[0]);
            }
        } else if (r == 1 && (json_is_string(l) || json_is_number(l))) {
            /* a single value: one item, named by it */
            count = 1;
            v->node = l;
            snprintf(v->ptr, sizeof v->ptr, "%s", ptr);
            if (json_is_string(l))
                snprintf(v->item, sizeof v->item, "%s", json_string_value(l));
            else if (json_is_integer(l))
                snprintf(v->item, sizeof v->item, "%lld", (long long)json_integer_value(l));
            else
                snprintf(v->item, sizeof v->item, "%g", json_number_value(l));
            rc = walk(e, x->body[0]);
        } else if (r == 1 && !json_is_null(l) && !json_is_false(l)) {
            e->nvars--;
            return fail(e->err, e->el, e->file, x->line, "{#each %s}: %s is neither a list, an object nor a value",
                        x->s, list);
        }
        e->nvars--;
    }
    if (!rc && !count)
        rc = walk(e, x->body[2]);
    return rc;
}

/* {#def NAME P1 P2 ...}: kept for the calls that follow */
static int do_def(env *e, node *x)
{
    if (e->ndefs == (int)(sizeof e->defs / sizeof e->defs[0]))
        return fail(e->err, e->el, e->file, x->line, "{#def %s}: too many definitions", x->s);
    def *d = &e->defs[e->ndefs];
    memset(d, 0, sizeof *d);
    char c[512], *save = NULL;
    snprintf(c, sizeof c, "%s", x->s);
    for (char *w = strtok_r(c, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (ident_len(w) != strlen(w) || strlen(w) >= sizeof d->params[0])
            return fail(e->err, e->el, e->file, x->line, "{#def %s}: \"%s\" is not a name", x->s, w);
        if (!d->name[0])
            snprintf(d->name, sizeof d->name, "%s", w);
        else if (d->np < 8)
            snprintf(d->params[d->np++], sizeof d->params[0], "%s", w);
        else
            return fail(e->err, e->el, e->file, x->line, "{#def %s}: more than 8 parameters", x->s);
    }
    if (!d->name[0])
        return fail(e->err, e->el, e->file, x->line, "{#def}: wants a name");
    d->body = x->body[0];
    d->file = e->file;
    e->ndefs++;
    return 0;
}

/* {#call NAME A1 A2 ...}: the body with each parameter a word ($VAR
 * arguments give their item's name) */
static int do_call(env *e, node *x)
{
    char c[1024], *save = NULL, *argv[9];
    int argc = 0;
    snprintf(c, sizeof c, "%s", x->s + 6);
    for (char *w = strtok_r(c, " ", &save); w && argc < 9; w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    if (!argc)
        return fail(e->err, e->el, e->file, x->line, "{%s}: wants a name", x->s);
    def *d = NULL;
    for (int i = e->ndefs - 1; i >= 0 && !d; i--)
        if (!strcmp(e->defs[i].name, argv[0]))
            d = &e->defs[i];
    if (!d)
        return fail(e->err, e->el, e->file, x->line, "{%s}: no {#def %s} before it", x->s, argv[0]);
    if (argc - 1 != d->np)
        return fail(e->err, e->el, e->file, x->line, "{%s}: %s wants %d arguments", x->s, d->name, d->np);
    if (e->nvars + d->np > (int)(sizeof e->vars / sizeof e->vars[0]))
        return fail(e->err, e->el, e->file, x->line, "{%s}: nested too deep", x->s);
    char items[8][256];
    for (int i = 0; i < d->np; i++) {
        char why[256];
        if (substitute_all(e, argv[i + 1], items[i], sizeof items[i], why, sizeof why, 1) != 0)
            return fail(e->err, e->el, e->file, x->line, "{%s}: %s", x->s, why);
    }
    int base = e->nvars;
    for (int i = 0; i < d->np; i++) {
        var *v = &e->vars[base + i];
        memset(v, 0, sizeof *v);
        v->name = d->params[i];
        memcpy(v->item, items[i], sizeof v->item);
        v->item[sizeof v->item - 1] = 0;
    }
    e->nvars += d->np;
    const char *keep = e->file;
    e->file = d->file;
    int rc = walk(e, d->body);
    e->file = keep;
    e->nvars = base;
    return rc;
}

static int walk(env *e, node *seq)
{
    for (size_t i = 0; i < seq->nkids; i++) {
        node *x = seq->kids[i];
        int rc = 0;
        if (x->kind == T_TEXT) {
            e->sink->text(e->sink->ctx, x->s, strlen(x->s));
        } else if (x->kind == T_VAR) {
            size_t k = strlen(x->s + 1);
            int hash = k && x->s[k] == '#';
            var *v = find_var(e, x->s + 1, k - hash);
            if (!v)
                return fail(e->err, e->el, e->file, x->line, "{%s}: no loop's variable %.*s here", x->s, (int)(k - hash),
                            x->s + 1);
            const char *t = hash ? v->idx : v->item;
            e->sink->text(e->sink->ctx, t, strlen(t));
        } else if (x->kind == T_VALUE) {
            rc = do_value(e, x);
        } else if (x->kind == T_CMD) {
            rc = do_command(e, x);
        } else if (x->kind == T_IF) {
            for (size_t b = 0; b < x->n; b++) {
                int t = x->cond[b] ? cond_true(e, x->cond[b], x->line) : 1;
                if (t < 0)
                    return -1;
                if (t) {
                    rc = walk(e, x->body[b]);
                    break;
                }
            }
        } else if (x->kind == T_EACH) {
            rc = do_each(e, x);
        } else if (x->kind == T_DEF) {
            rc = do_def(e, x);
        } else if (x->kind == T_CALL) {
            rc = do_call(e, x);
        }
        if (rc)
            return rc;
    }
    return 0;
}

typedef struct {
    tok *t;
    size_t n;
    node *seq;
} parsed;

static int parse_all(const char *text, const char *file, parsed *p, char *err, size_t el)
{
    size_t at = 0;
    int st = -1;
    memset(p, 0, sizeof *p);
    if (lex(text, file, &p->t, &p->n, err, el) != 0)
        return -1;
    p->seq = parse_seq(p->t, p->n, &at, file, NULL, 0, &st, err, el);
    return p->seq ? 0 : -1;
}

static void parsed_free(parsed *p)
{
    node_free(p->seq);
    for (size_t i = 0; i < p->n; i++)
        free(p->t[i].s);
    free(p->t);
}

int tpl_render_lib(const char *lib, const char *lib_file, const char *text, const char *file, json_t *root,
                   json_t *design, const tpl_sink *sink, char *err, size_t el)
{
    parsed pl = {0}, pt = {0};
    env *e = xalloc(sizeof *e);
    e->root = root, e->design = design, e->sink = sink, e->err = err, e->el = el;
    int rc = 0;
    if (lib) {
        rc = parse_all(lib, lib_file, &pl, err, el);
        e->file = lib_file;
        if (rc == 0)
            rc = walk(e, pl.seq);
    }
    if (rc == 0)
        rc = parse_all(text, file, &pt, err, el);
    e->file = file;
    if (rc == 0)
        rc = walk(e, pt.seq);
    parsed_free(&pt);
    parsed_free(&pl);
    free(e);
    return rc;
}

int tpl_render(const char *text, const char *file, json_t *root, json_t *design, const tpl_sink *sink, char *err,
               size_t el)
{
    return tpl_render_lib(NULL, NULL, text, file, root, design, sink, err, el);
}

/* a whole file (free it), or NULL */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    sbuf b = {0};
    sb_put(&b, "", 0);
    char t[65536];
    size_t k;
    while ((k = fread(t, 1, sizeof t, f)) > 0)
        sb_put(&b, t, k);
    fclose(f);
    return b.s;
}

int tpl_render_file(const char *lib_path, const char *lib_name, const char *path, const char *name, json_t *root,
                    json_t *design, const tpl_sink *sink, char *err, size_t el)
{
    char *lib = NULL, *text = slurp(path);
    if (lib_path && !(lib = slurp(lib_path))) {
        free(text);
        snprintf(err, el, "%s: cannot read the template", lib_path);
        return -1;
    }
    if (!text) {
        free(lib);
        snprintf(err, el, "%s: cannot read the template", path);
        return -1;
    }
    int rc = tpl_render_lib(lib, lib_name ? lib_name : lib_path, text, name ? name : path, root, design, sink, err,
                            el);
    free(lib);
    free(text);
    return rc;
}
