/* tpl: the report's one template engine.  README.md's study block
 * (front-page.md.in) and the report's sections (templates/NAME.md.in) are
 * text with placeholders, filled from verified.json; the prose lives in the
 * templates, the C only walks them.
 *
 * Grammar (a template is UTF-8 text; everything not a tag is copied):
 *
 *   {PATH|KIND}            a value of verified.json printed in KIND (fmt.h:
 *                          ms, pct, int, x, spp, str ...).  A PATH that does
 *                          not resolve is an error naming the file, the
 *                          line and the placeholder; a null is the sink's
 *                          to judge (README: an error; report: "—").
 *   {PATH|KIND|SUFFIX}     the same, SUFFIX (text) printed after the value;
 *                          KIND may be =PATH, the kind read from a string,
 *                          or $VAR, the kind a word names
 *   {~PATH|KIND[|SUFFIX]}  optional: when PATH does not resolve, the sink's
 *                          "not measured" (and no suffix) instead of an error
 *   {?PATH|KIND[|SUFFIX]}  when PATH does not resolve, printed as a null
 *                          would be (the page's "—"; the README refuses)
 *   {$VAR}                 the name of a loop's item, as text ({$VAR#}: its index)
 *   {#if COND} .. {#elif COND} .. {#else} .. {/if}
 *   {#each VAR in LIST} .. {#sep} .. {#else} .. {/each}
 *                          the body once per item; the text after {#sep}
 *                          between two items; the {#else} part when LIST has
 *                          no item (or does not resolve)
 *   {#def NAME P1 P2 ..} .. {/def}
 *                          a piece of template with parameters, written
 *                          nowhere until called
 *   {#call NAME A1 A2 ..}  that piece, each $P its argument (a word, in
 *                          which $VAR stands for its item's name: $a-r$r)
 *   {@NAME|ARG|ARG...}     a command for the sink (the report's blocks:
 *                          headings, paragraphs, figures, tables: src/tsec.h)
 *   {* comment *}          dropped (may span lines)
 *   {{                     a literal {
 *
 *   PATH   keys joined by dots, arms.H3-fb25.p99_ms.median; a number picks
 *          a list's item (ci95.0), -1 its last; KEY[f=v,g=w] the first item of the list
 *          KEY whose string fields f, g are v, w (odds[arm=H4-r2,event=flooded]);
 *          $VAR as the first step starts at a loop's item ($a.p99_ms); $VAR
 *          anywhere else stands for its name (arms.$a.p99_ms, runs.$a-r1,
 *          verdicts[a=$a,b=H3-fb25]), $VAR# for its index (diffs.$r#).  A PATH whose first key is "design"
 *          reads the caller's data (the registered arms and their words),
 *          not verified.json; its values print as plain text.
 *   LIST   a PATH to a list (items) or an object (its members; the name is
 *          the key), or to a single string or number (one item, named by
 *          it), or [w1 w2 ...] words.  An item's name: the string or integer it is,
 *          else its "name" field, else its "id", else its key (objects) or
 *          index (lists).
 *   COND   TERM [&& TERM ...] [|| TERM [&& TERM ...] ...] (&& binds closer);
 *          TERM is [!]PATH, true when it resolves to
 *          something not null and not false, or PATH OP LITERAL with OP one
 *          of == != < > <= >= and LITERAL a "string", a number, or null,
 *          true, false (== and != only; false when
 *          PATH does not resolve); ?PATH is true when PATH resolves, even
 *          to null.  $VAR == "w" compares the item's name.
 *
 * A line holding only tags other than values ({#..}, {/..}, {@..}, {*..*})
 * and blanks is dropped whole, newline included, so that block tags can
 * stand on lines of their own.  Errors (a tag unclosed, a directive
 * unknown, a KIND unknown, a value missing) return -1 with
 * "FILE:LINE: {TAG}: why" in err; the sink's own errors come back the same
 * way.  Nothing is rendered silently empty.
 */
#ifndef TPL_H
#define TPL_H

#include <jansson.h>
#include <stddef.h>

typedef struct {
    void *ctx;
    const char *source; /* the data's name in messages (NULL: "verified.json") */
    /* plain text of the template, or a design value, or {$VAR} */
    void (*text)(void *ctx, const char *s, size_t n);
    /* a value of verified.json: its node (may be null), its JSON pointer
     * ("/arms/H3-fb25/p99_ms/median"), its KIND; 0, or -1 with err */
    int (*value)(void *ctx, json_t *v, const char *ptr, const char *kind, char *err, size_t el);
    /* {~...} whose PATH does not resolve */
    void (*missing)(void *ctx);
    /* {@NAME|ARG...}: argv[0] is NAME; 0, or -1 with err.  NULL: commands are errors */
    int (*command)(void *ctx, int argc, char **argv, char *err, size_t el);
} tpl_sink;

/* Render text (named file in messages) from root (verified.json) and design
 * (may be NULL) into sink; 0, or -1 with "FILE:LINE: ..." in err. */
int tpl_render(const char *text, const char *file, json_t *root, json_t *design, const tpl_sink *sink, char *err,
               size_t el);
/* The same after lib (may be NULL): a template of {#def}s, walked first so
 * that text may {#call} them (the report's templates/common.md.in). */
int tpl_render_lib(const char *lib, const char *lib_file, const char *text, const char *file, json_t *root,
                   json_t *design, const tpl_sink *sink, char *err, size_t el);
/* The same from files (lib_path may be NULL; names, when not NULL, are
 * the files' names in messages); a file that cannot be read is an error. */
int tpl_render_file(const char *lib_path, const char *lib_name, const char *path, const char *name, json_t *root,
                    json_t *design, const tpl_sink *sink, char *err, size_t el);

#endif
