/* page: the report as two documents built side by side, report.html and
 * report.md, from one sequence of calls.
 *
 * Contract: pg_new takes the verified.json tree (borrowed; it must outlive
 * the page).  Blocks (headings, paragraphs, lists, figures, tables) go to
 * both documents; inline pieces (pg_t text, pg_v values, pg_nm, pg_code)
 * go into the open paragraph, list item or table cell.  pg_v prints one
 * value of verified.json by its path (rdata.h) in a format kind (fmt.h); in
 * the HTML the text is wrapped in <span data-src="PATH" data-fmt="KIND">,
 * so every printed number names where it comes from.  Table cells hold
 * only such values, "not measured", or plain text without digits; row
 * labels (arm and run names) are <th>.  pg_figure inlines an SVG file
 * (figures/NAME under the output folder) in the HTML and links it in the
 * Markdown.  pg_write writes both files atomically (temporary name, then
 * rename).  pg_free releases everything.  Errors (unreadable figure,
 * unwritable file) return -1 with a message on stderr.
 */
#ifndef PAGE_H
#define PAGE_H

#include <jansson.h>

typedef struct page page;

page *pg_new(json_t *root, const char *figdir);
void pg_free(page *p);

void pg_h(page *p, int level, const char *id, const char *text);
void pg_p_begin(page *p, const char *cls);   /* cls: NULL, "note", "lead" */
void pg_p_end(page *p);
void pg_ul_begin(page *p);
void pg_li_begin(page *p);
void pg_li_end(page *p);
void pg_ul_end(page *p);

void pg_t(page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pg_v(page *p, const char *kind, const char *pathfmt, ...) __attribute__((format(printf, 3, 4)));
/* "median (min–max)" of arms.<arm>.<fig> */
void pg_range(page *p, const char *kind, const char *arm, const char *fig);
void pg_nm(page *p);
void pg_code(page *p, const char *text);
void pg_strong(page *p, const char *text);
/* a link to a file beside the page (a relative path, never a URL) */
void pg_link(page *p, const char *text, const char *href);

/* a figure: its file (NAME.svg in figdir), title, and a caption */
int pg_figure(page *p, const char *name, const char *title, const char *caption);

void tb_begin(page *p, const char *cls, int ncols, const char *const *heads);
void tb_row(page *p);
void tb_th(page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tb_td_begin(page *p, const char *cls);
void tb_td_end(page *p);
void tb_end(page *p);
/* the Markdown has no cell classes or spans: a cell spanning columns is
 * written in the first and left empty in the others */
void tb_td_span(page *p, int ncols, const char *cls);

int pg_write(page *p, const char *title, const char *html_path, const char *md_path);

#endif
