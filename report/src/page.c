/* page.c: the two documents (report.html, report.md) built side by side.  The contract is in page.h. */
#include "page.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "rdata.h"

typedef struct {
    char *s;
    size_t len, cap;
} sb;

static void sb_add(sb *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->len + n + 1)
            c *= 2;
        char *q = realloc(b->s, c);
        if (!q) {
            fprintf(stderr, "report: out of memory\n");
            exit(1);
        }
        b->s = q;
        b->cap = c;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

static void sb_puts(sb *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static void sb_vprintf(sb *b, const char *fmt, va_list ap)
{
    char tmp[4096];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (n < (int)sizeof tmp) {
        sb_add(b, tmp, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (!big)
            exit(1);
        vsnprintf(big, (size_t)n + 1, fmt, ap2);
        sb_add(b, big, (size_t)n);
        free(big);
    }
    va_end(ap2);
}

static void sb_printf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

static void html_esc(sb *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': sb_puts(b, "&lt;"); break;
        case '>': sb_puts(b, "&gt;"); break;
        case '&': sb_puts(b, "&amp;"); break;
        case '"': sb_puts(b, "&quot;"); break;
        default: sb_add(b, s, 1);
        }
    }
}

/* Markdown: backslash-escape the characters that could start markup */
static void md_esc(sb *b, const char *s)
{
    for (; *s; s++) {
        if (strchr("\\|*`<", *s))
            sb_add(b, "\\", 1);
        sb_add(b, s, 1);
    }
}

struct page {
    json_t *root;
    char figdir[4096];
    sb html, md;
    sb ih, im;          /* the open inline context (paragraph, item, cell) */
    int ncols, col;
    sb rowmd;           /* the Markdown row being built */
    int fig_no;
    char pcls[32], tdcls[32];   /* the open paragraph's and cell's class */
    int tdspan;
};

page *pg_new(json_t *root, const char *figdir)
{
    page *p = calloc(1, sizeof *p);
    if (!p)
        exit(1);
    p->root = root;
    snprintf(p->figdir, sizeof p->figdir, "%s", figdir);
    return p;
}

void pg_free(page *p)
{
    if (!p)
        return;
    free(p->html.s);
    free(p->md.s);
    free(p->ih.s);
    free(p->im.s);
    free(p->rowmd.s);
    free(p);
}

static void inline_reset(page *p)
{
    p->ih.len = p->im.len = 0;
    if (p->ih.s)
        p->ih.s[0] = 0;
    if (p->im.s)
        p->im.s[0] = 0;
}

static const char *ih(page *p)
{
    return p->ih.s ? p->ih.s : "";
}

static const char *im(page *p)
{
    return p->im.s ? p->im.s : "";
}

void pg_h(page *p, int level, const char *id, const char *text)
{
    sb_printf(&p->html, "<h%d id=\"%s\">", level, id);
    html_esc(&p->html, text);
    sb_printf(&p->html, "</h%d>\n", level);
    for (int i = 0; i < level; i++)
        sb_puts(&p->md, "#");
    sb_puts(&p->md, " ");
    sb_puts(&p->md, text);
    sb_puts(&p->md, "\n\n");
}

void pg_p_begin(page *p, const char *cls)
{
    snprintf(p->pcls, sizeof p->pcls, "%s", cls ? cls : "");
    inline_reset(p);
}

void pg_p_end(page *p)
{
    if (p->pcls[0])
        sb_printf(&p->html, "<p class=\"%s\">%s</p>\n", p->pcls, ih(p));
    else
        sb_printf(&p->html, "<p>%s</p>\n", ih(p));
    if (!strcmp(p->pcls, "note"))
        sb_printf(&p->md, "> %s\n\n", im(p));
    else
        sb_printf(&p->md, "%s\n\n", im(p));
}

void pg_ul_begin(page *p)
{
    sb_puts(&p->html, "<ul>\n");
}

void pg_li_begin(page *p)
{
    inline_reset(p);
}

void pg_li_end(page *p)
{
    sb_printf(&p->html, "<li>%s</li>\n", ih(p));
    sb_printf(&p->md, "- %s\n", im(p));
}

void pg_ul_end(page *p)
{
    sb_puts(&p->html, "</ul>\n");
    sb_puts(&p->md, "\n");
}

void pg_t(page *p, const char *fmt, ...)
{
    sb t = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&t, fmt, ap);
    va_end(ap);
    if (t.s) {
        html_esc(&p->ih, t.s);
        md_esc(&p->im, t.s);
    }
    free(t.s);
}

void pg_v(page *p, const char *kind, const char *pathfmt, ...)
{
    char path[1024], text[512];
    va_list ap;
    va_start(ap, pathfmt);
    vsnprintf(path, sizeof path, pathfmt, ap);
    va_end(ap);
    json_t *v = rd_at(p->root, "%s", path);
    fmt_value(v, kind, text, sizeof text);
    sb_puts(&p->ih, "<span data-src=\"");
    html_esc(&p->ih, path);
    sb_printf(&p->ih, "\" data-fmt=\"%s\">", kind);
    html_esc(&p->ih, text);
    sb_puts(&p->ih, "</span>");
    md_esc(&p->im, text);
}

void pg_range(page *p, const char *kind, const char *arm, const char *fig)
{
    pg_v(p, kind, "/arms/%s/%s/median", arm, fig);
    sb_puts(&p->ih, " <small>(");
    sb_puts(&p->im, " (");
    pg_v(p, kind, "/arms/%s/%s/min", arm, fig);
    sb_puts(&p->ih, "\xe2\x80\x93");
    sb_puts(&p->im, "\xe2\x80\x93");
    pg_v(p, kind, "/arms/%s/%s/max", arm, fig);
    sb_puts(&p->ih, ")</small>");
    sb_puts(&p->im, ")");
}

void pg_nm(page *p)
{
    sb_puts(&p->ih, "<span class=\"nm\">not measured</span>");
    sb_puts(&p->im, "not measured");
}

void pg_code(page *p, const char *text)
{
    sb_puts(&p->ih, "<code>");
    html_esc(&p->ih, text);
    sb_puts(&p->ih, "</code>");
    sb_puts(&p->im, "`");
    sb_puts(&p->im, text);
    sb_puts(&p->im, "`");
}

void pg_strong(page *p, const char *text)
{
    sb_puts(&p->ih, "<strong>");
    html_esc(&p->ih, text);
    sb_puts(&p->ih, "</strong>");
    sb_puts(&p->im, "**");
    md_esc(&p->im, text);
    sb_puts(&p->im, "**");
}

void pg_link(page *p, const char *text, const char *href)
{
    sb_puts(&p->ih, "<a href=\"");
    html_esc(&p->ih, href);
    sb_puts(&p->ih, "\">");
    html_esc(&p->ih, text);
    sb_puts(&p->ih, "</a>");
    sb_puts(&p->im, "[");
    md_esc(&p->im, text);
    sb_puts(&p->im, "](");
    sb_puts(&p->im, href);
    sb_puts(&p->im, ")");
}

int pg_figure(page *p, const char *name, const char *title, const char *caption)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.svg", p->figdir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "report: cannot read the figure %s: %s\n", path, strerror(errno));
        return -1;
    }
    sb svg = {0};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&svg, buf, n);
    fclose(f);
    const char *start = svg.s ? strstr(svg.s, "<svg") : NULL;
    if (!start) {
        fprintf(stderr, "report: %s is not an SVG file\n", path);
        free(svg.s);
        return -1;
    }
    p->fig_no++;
    sb_printf(&p->html, "<figure id=\"fig-%s\">\n<svg role=\"img\" aria-label=\"", name);
    html_esc(&p->html, title);
    sb_puts(&p->html, "\"");
    sb_puts(&p->html, start + 4);
    sb_printf(&p->html, "\n<figcaption><strong>Figure %d. ", p->fig_no);
    html_esc(&p->html, title);
    sb_puts(&p->html, ".</strong> ");
    html_esc(&p->html, caption);
    sb_puts(&p->html, "</figcaption>\n</figure>\n");
    sb_printf(&p->md, "![%s](figures/%s.svg)\n\n*Figure %d. %s.* ", title, name, p->fig_no, title);
    md_esc(&p->md, caption);
    sb_puts(&p->md, "\n\n");
    free(svg.s);
    return 0;
}

void tb_begin(page *p, const char *cls, int ncols, const char *const *heads)
{
    p->ncols = ncols;
    sb_printf(&p->html, "<div class=\"tw\"><table%s%s%s>\n<thead><tr>", cls ? " class=\"" : "", cls ? cls : "",
              cls ? "\"" : "");
    sb_puts(&p->md, "|");
    for (int i = 0; i < ncols; i++) {
        sb_puts(&p->html, "<th>");
        html_esc(&p->html, heads[i]);
        sb_puts(&p->html, "</th>");
        sb_puts(&p->md, " ");
        md_esc(&p->md, heads[i]);
        sb_puts(&p->md, " |");
    }
    sb_puts(&p->html, "</tr></thead>\n<tbody>\n");
    sb_puts(&p->md, "\n|");
    for (int i = 0; i < ncols; i++)
        sb_puts(&p->md, i == 0 ? " --- |" : " ---: |");
    sb_puts(&p->md, "\n");
    p->col = -1;
}

static void row_close(page *p)
{
    if (p->col < 0)
        return;
    for (; p->col < p->ncols; p->col++) {
        sb_puts(&p->html, "<td></td>");
        sb_puts(&p->md, " |");
    }
    sb_puts(&p->html, "</tr>\n");
    sb_puts(&p->md, "\n");
    p->col = -1;
}

void tb_row(page *p)
{
    row_close(p);
    sb_puts(&p->html, "<tr>");
    sb_puts(&p->md, "|");
    p->col = 0;
}

void tb_th(page *p, const char *fmt, ...)
{
    sb t = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&t, fmt, ap);
    va_end(ap);
    sb_puts(&p->html, "<th scope=\"row\">");
    html_esc(&p->html, t.s ? t.s : "");
    sb_puts(&p->html, "</th>");
    sb_puts(&p->md, " ");
    md_esc(&p->md, t.s ? t.s : "");
    sb_puts(&p->md, " |");
    free(t.s);
    p->col++;
}

void tb_td_begin(page *p, const char *cls)
{
    snprintf(p->tdcls, sizeof p->tdcls, "%s", cls ? cls : "");
    p->tdspan = 1;
    inline_reset(p);
}

void tb_td_span(page *p, int ncols, const char *cls)
{
    tb_td_begin(p, cls);
    p->tdspan = ncols;
}

void tb_td_end(page *p)
{
    sb_puts(&p->html, "<td");
    if (p->tdspan > 1)
        sb_printf(&p->html, " colspan=\"%d\"", p->tdspan);
    if (p->tdcls[0])
        sb_printf(&p->html, " class=\"%s\"", p->tdcls);
    sb_printf(&p->html, ">%s</td>", ih(p));
    sb_printf(&p->md, " %s |", im(p));
    for (int i = 1; i < p->tdspan; i++)
        sb_puts(&p->md, " |");
    p->col += p->tdspan;
}

void tb_end(page *p)
{
    row_close(p);
    sb_puts(&p->html, "</tbody></table></div>\n");
    sb_puts(&p->md, "\n");
}

static const char *CSS =
    "body{margin:0;background:#fff;color:#1a1a1a;font:16px/1.5 -apple-system,'Segoe UI',Roboto,'Helvetica Neue',"
    "Arial,sans-serif}\n"
    "main{max-width:1120px;margin:0 auto;padding:24px 28px 64px}\n"
    "h1{font-size:1.9em;margin:.2em 0 .3em}h2{font-size:1.4em;margin-top:2em;border-bottom:1px solid #ddd;"
    "padding-bottom:.2em}h3{font-size:1.1em;margin-top:1.4em}\n"
    "p.lead{font-size:1.08em;color:#333}p.note{background:#f6f6f2;border-left:4px solid #c9c2a0;padding:.5em .8em}\n"
    ".status{display:inline-block;background:#e8f4ea;border:1px solid #9cc9a4;border-radius:4px;"
    "padding:.35em .8em;font-weight:600}\n"
    "figure{margin:1.5em 0}figure svg{display:block;width:100%;max-width:1000px;height:auto;"
    "border:1px solid #e3e3e3}\n"
    "figcaption{font-size:.92em;color:#333;margin-top:.4em;max-width:1000px}\n"
    ".tw{overflow-x:auto;margin:1em 0}table{border-collapse:collapse;font-size:.88em}\n"
    "th,td{border:1px solid #d8d8d8;padding:.3em .55em;vertical-align:top}thead th{background:#f2f2f2;"
    "text-align:left}\n"
    "td{text-align:right;font-variant-numeric:tabular-nums}td.l{text-align:left}tbody th{text-align:left;"
    "font-weight:600;white-space:nowrap}\n"
    "td small{display:block;color:#666;font-size:.85em;white-space:nowrap}td.nw{white-space:nowrap}"
    "tbody th+th{font-weight:400;white-space:normal;color:#333}\n"
    "td.l small{display:inline}.nm{color:#888;font-style:italic}td.right{color:#17692a;font-weight:600}"
    "td.wrong{color:#a32020;font-weight:600}\n"
    "code{font-size:.92em;background:#f4f4f4;padding:0 .2em}nav ol{columns:2}\n";

static int write_atomic(const char *path, const char *data, size_t len)
{
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "report: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    size_t w = fwrite(data, 1, len, f);
    int bad = w != len;
    if (fflush(f) || fsync(fileno(f)))
        bad = 1;
    if (fclose(f))
        bad = 1;
    if (bad || rename(tmp, path)) {
        fprintf(stderr, "report: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int pg_write(page *p, const char *title, const char *html_path, const char *md_path)
{
    sb h = {0};
    sb_puts(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    html_esc(&h, title);
    sb_puts(&h, "</title>\n<style>\n");
    sb_puts(&h, CSS);
    sb_puts(&h, "</style>\n</head>\n<body>\n<main>\n");
    if (p->html.s)
        sb_puts(&h, p->html.s);
    sb_puts(&h, "</main>\n</body>\n</html>\n");
    int rc = write_atomic(html_path, h.s, h.len);
    free(h.s);
    if (!rc)
        rc = write_atomic(md_path, p->md.s ? p->md.s : "", p->md.len);
    return rc;
}
