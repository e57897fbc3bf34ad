/* tsec.c: the page's sink for the template engine (the commands are in tsec.h). */
#include "tsec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "tpl.h"

enum { M_NONE, M_P, M_FIG, M_LIST, M_LI, M_TABLE, M_ROW, M_TH, M_TD };

typedef struct {
    page *p;
    int mode;
    int started;    /* something written in the open paragraph, item or cell */
    int last_space; /* and the last text written ended in a space */
    char *pend;    /* text not yet written (lines joined at the flush) */
    size_t np, cap;
    char fig[256], title[1024];
    int in_list, in_table;
} st;

static void pend_put(st *s, const char *t, size_t n)
{
    if (s->np + n + 1 > s->cap) {
        s->cap = 2 * (s->np + n + 1);
        s->pend = realloc(s->pend, s->cap);
        if (!s->pend)
            exit(1);
    }
    memcpy(s->pend + s->np, t, n);
    s->np += n;
    s->pend[s->np] = 0;
}

/* the pending text with newlines as spaces and runs of blanks as one
 * space: the template's lines join as Markdown's do */
static void collapse(st *s)
{
    size_t o = 0;
    for (size_t i = 0; i < s->np; i++) {
        char c = s->pend[i] == '\n' || s->pend[i] == '\t' ? ' ' : s->pend[i];
        if (c == ' ' && o && s->pend[o - 1] == ' ')
            continue;
        s->pend[o++] = c;
    }
    s->np = o;
    s->pend[o] = 0;
}

/* the pending text of a paragraph, item or cell: newlines as spaces;
 * leading blanks dropped when nothing is written yet, trailing ones when
 * the block ends (a caption or a row label is gathered whole: take()) */
static void flush(st *s, int closing)
{
    if (!s->np)
        return;
    collapse(s);
    char *t = s->pend;
    if (!s->started || s->last_space)
        t += strspn(t, " \t");
    if (closing) {
        size_t n = strlen(t);
        while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
            t[--n] = 0;
    }
    if (*t) {
        pg_t(s->p, "%s", t);
        s->started = 1;
        s->last_space = t[strlen(t) - 1] == ' ';
    }
    s->np = 0;
    s->pend[0] = 0;
}

/* the caption or row label gathered so far, trimmed (the caller frees nothing) */
static const char *take(st *s)
{
    pend_put(s, "", 0);
    collapse(s);
    char *t = s->pend + strspn(s->pend, " \t");
    size_t n = strlen(t);
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
        t[--n] = 0;
    return t;
}

static void clear(st *s)
{
    s->np = 0;
    if (s->pend)
        s->pend[0] = 0;
    s->started = 0;
    s->last_space = 0;
}

/* close the innermost open piece down to (not including) level mode */
static int close_cell(st *s)
{
    if (s->mode == M_TH) {
        tb_th(s->p, "%s", take(s));
        clear(s);
        s->mode = M_ROW;
    } else if (s->mode == M_TD) {
        flush(s, 1);
        tb_td_end(s->p);
        clear(s);
        s->mode = M_ROW;
    }
    return 0;
}

static int close_block(st *s, char *err, size_t el)
{
    switch (s->mode) {
    case M_P:
        flush(s, 1);
        pg_p_end(s->p);
        break;
    case M_FIG: {
        char cap[8192];
        snprintf(cap, sizeof cap, "%s", take(s));
        clear(s);
        s->mode = M_NONE;
        if (pg_figure(s->p, s->fig, s->title, cap) != 0) {
            snprintf(err, el, "the figure %s could not be placed", s->fig);
            return -1;
        }
        return 0;
    }
    case M_LI:
        flush(s, 1);
        pg_li_end(s->p);
        /* fall through */
    case M_LIST:
        pg_ul_end(s->p);
        break;
    case M_TH:
    case M_TD:
        close_cell(s);
        /* fall through */
    case M_ROW:
    case M_TABLE:
        tb_end(s->p);
        break;
    default:
        break;
    }
    clear(s);
    s->mode = M_NONE;
    return 0;
}

static void s_text(void *ctx, const char *t, size_t n)
{
    st *s = ctx;
    if (s->mode == M_NONE) {
        size_t k = 0;
        while (k < n && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n'))
            k++;
        if (k == n)
            return;
        pg_p_begin(s->p, NULL);
        s->mode = M_P;
        t += k, n -= k;
    }
    if (s->mode == M_LIST || s->mode == M_TABLE || s->mode == M_ROW) {
        return; /* blanks between items, rows and cells */
    }
    pend_put(s, t, n);
}

static int s_value(void *ctx, json_t *v, const char *ptr, const char *kind, char *err, size_t el)
{
    st *s = ctx;
    if (s->mode == M_FIG || s->mode == M_TH) {
        char t[256];
        if (fmt_value(v, kind, t, sizeof t) != 0) {
            snprintf(err, el, "%s: not a value of format %s", ptr, kind);
            return -1;
        }
        pend_put(s, t, strlen(t));
        return 0;
    }
    if (s->mode == M_NONE) {
        pg_p_begin(s->p, NULL);
        s->mode = M_P;
    }
    if (s->mode == M_LIST || s->mode == M_TABLE || s->mode == M_ROW) {
        snprintf(err, el, "a value outside an item or a cell");
        return -1;
    }
    flush(s, 0);
    char t[256];
    if (!json_is_null(v) && fmt_value(v, kind, t, sizeof t) != 0) {
        snprintf(err, el, "%s: not a value of format %s", ptr, kind);
        return -1;
    }
    pg_v(s->p, kind, "%s", ptr);
    s->started = 1;
    s->last_space = 0;
    return 0;
}

static void s_missing(void *ctx)
{
    st *s = ctx;
    if (s->mode == M_FIG || s->mode == M_TH) {
        pend_put(s, "not measured", 12);
        return;
    }
    if (s->mode == M_NONE) {
        pg_p_begin(s->p, NULL);
        s->mode = M_P;
    }
    flush(s, 0);
    pg_nm(s->p);
    s->started = 1;
    s->last_space = 0;
}

static int want(int argc, int n, const char *name, char *err, size_t el)
{
    if (argc < n) {
        snprintf(err, el, "@%s wants %d argument%s", name, n - 1, n == 2 ? "" : "s");
        return -1;
    }
    return 0;
}

static int s_command(void *ctx, int argc, char **argv, char *err, size_t el)
{
    st *s = ctx;
    const char *c = argv[0];
    /* inline pieces */
    if (!strcmp(c, "strong") || !strcmp(c, "code") || !strcmp(c, "link") || !strcmp(c, "nm") || !strcmp(c, "range")) {
        if (s->mode == M_NONE) {
            pg_p_begin(s->p, NULL);
            s->mode = M_P;
        }
        if (s->mode != M_P && s->mode != M_LI && s->mode != M_TD) {
            snprintf(err, el, "@%s outside a paragraph, an item or a cell", c);
            return -1;
        }
        flush(s, 0);
        s->started = 1;
        s->last_space = 0;
        if (!strcmp(c, "nm")) {
            pg_nm(s->p);
            return 0;
        }
        if (!strcmp(c, "range")) {
            if (want(argc, 4, c, err, el) || !fmt_known(argv[1]))
                return err[0] ? -1 : (snprintf(err, el, "@range: no kind %s", argv[1]), -1);
            pg_range(s->p, argv[1], argv[2], argv[3]);
            return 0;
        }
        if (want(argc, !strcmp(c, "link") ? 3 : 2, c, err, el))
            return -1;
        if (!strcmp(c, "strong"))
            pg_strong(s->p, argv[1]);
        else if (!strcmp(c, "code"))
            pg_code(s->p, argv[1]);
        else
            pg_link(s->p, argv[1], argv[2]);
        return 0;
    }
    /* pieces of a list or a table */
    if (!strcmp(c, "li")) {
        if (s->mode == M_LI) {
            flush(s, 1);
            pg_li_end(s->p);
        } else if (s->mode != M_LIST) {
            snprintf(err, el, "@li outside a list");
            return -1;
        }
        clear(s);
        pg_li_begin(s->p);
        s->mode = M_LI;
        return 0;
    }
    if (!strcmp(c, "row") || !strcmp(c, "th") || !strcmp(c, "td") || !strcmp(c, "span")) {
        if (s->mode != M_TABLE && s->mode != M_ROW && s->mode != M_TH && s->mode != M_TD) {
            snprintf(err, el, "@%s outside a table", c);
            return -1;
        }
        close_cell(s);
        clear(s);
        if (!strcmp(c, "row")) {
            tb_row(s->p);
            s->mode = M_ROW;
            return 0;
        }
        if (s->mode == M_TABLE) {
            snprintf(err, el, "@%s before the table's first @row", c);
            return -1;
        }
        if (!strcmp(c, "th")) {
            s->mode = M_TH;
        } else if (!strcmp(c, "td")) {
            tb_td_begin(s->p, argc > 1 && argv[1][0] ? argv[1] : NULL);
            s->mode = M_TD;
        } else {
            if (want(argc, 2, c, err, el))
                return -1;
            tb_td_span(s->p, atoi(argv[1]), argc > 2 && argv[2][0] ? argv[2] : NULL);
            s->mode = M_TD;
        }
        return 0;
    }
    /* blocks */
    if (close_block(s, err, el) != 0)
        return -1;
    if (!strcmp(c, "end"))
        return 0;
    if (!strcmp(c, "h")) {
        if (want(argc, 4, c, err, el))
            return -1;
        pg_h(s->p, atoi(argv[1]), argv[2], argv[3]);
    } else if (!strcmp(c, "p")) {
        pg_p_begin(s->p, argc > 1 && argv[1][0] ? argv[1] : NULL);
        s->mode = M_P;
    } else if (!strcmp(c, "figure")) {
        if (want(argc, 3, c, err, el))
            return -1;
        snprintf(s->fig, sizeof s->fig, "%s", argv[1]);
        snprintf(s->title, sizeof s->title, "%s", argv[2]);
        s->mode = M_FIG;
    } else if (!strcmp(c, "ul")) {
        pg_ul_begin(s->p);
        s->mode = M_LIST;
    } else if (!strcmp(c, "table")) {
        if (want(argc, 3, c, err, el))
            return -1;
        tb_begin(s->p, argv[1][0] ? argv[1] : NULL, argc - 2, (const char *const *)argv + 2);
        s->mode = M_TABLE;
    } else {
        snprintf(err, el, "no command @%s (see report/src/tsec.h)", c);
        return -1;
    }
    return 0;
}

int ts_render(page *p, json_t *root, json_t *design, const char *dir, const char *name)
{
    st s = {.p = p};
    tpl_sink sink = {&s, "verified.json", s_text, s_value, s_missing, s_command};
    char lib[4200], path[4200], shown[4200], err[4096] = "";
    snprintf(lib, sizeof lib, "%s/common.md.in", dir);
    snprintf(path, sizeof path, "%s/%s.md.in", dir, name);
    snprintf(shown, sizeof shown, "report/templates/%s.md.in", name);
    int rc = tpl_render_file(lib, "report/templates/common.md.in", path, shown, root, design, &sink, err, sizeof err);
    if (rc == 0 && close_block(&s, err, sizeof err) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "report: %s\n", err);
    free(s.pend);
    return rc;
}
