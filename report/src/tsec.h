/* tsec: the report's sections from templates (templates/NAME.md.in),
 * written into the page (page.h) by the template engine (tpl.h).
 *
 * Contract: ts_render fills DIR/NAME.md.in, after DIR/common.md.in (the
 * {#def}s the sections share), from verified.json (root) and
 * the design data (rdata.h's rd_design) into p; 0, or -1 with the
 * engine's message ("FILE:LINE: {TAG}: why") on stderr.  A value prints
 * through pg_v (traced to its path in the HTML); {~...} whose path does not
 * resolve prints "not measured".  The commands of a section template:
 *
 *   {@h|LEVEL|ID|TEXT}        a heading
 *   {@p} {@p|note} {@p|lead}  opens a paragraph (text outside any block
 *                             opens a plain one); its lines join with spaces
 *   {@figure|NAME|TITLE}      figures/NAME.svg; the text up to {@end} is its caption
 *   {@ul} {@li}               a list and its items; {@end} closes the list
 *   {@table|CLASS|HEAD|HEAD..} a table; {@row} a row, {@th} a row label (its
 *                             text, plain), {@td} or {@td|CLASS} a cell,
 *                             {@span|N|CLASS} a cell over N columns; {@end}
 *   {@end}                    closes the open block
 *   {@strong|TEXT} {@code|TEXT} {@link|TEXT|HREF} {@nm}   inline pieces
 *   {@range|KIND|ARM|FIG}     "median (min–max)" of arms.ARM.FIG
 */
#ifndef TSEC_H
#define TSEC_H

#include <jansson.h>

#include "page.h"

int ts_render(page *p, json_t *root, json_t *design, const char *dir, const char *name);

#endif
