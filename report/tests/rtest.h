/* rtest: helpers the report's test files share (defined in test_report.c).
 *
 * Contract: rt_slurp reads a whole file (NULL when it cannot; free the
 * result; *len may be NULL).  rt_tmpdir makes a fresh /tmp/report-test-*
 * folder (free the name), rt_rmrf removes only such a folder.  rt_render runs
 * build/report --in IN --out OUTDIR, its output in *out (free it), and
 * returns its exit status.  rt_xml_ok checks well-formed XML (0, or -1 with
 * the reason in why; the root's start tag in root).  rt_svg_text is the text
 * of an SVG with PLplot's character references decoded (free it).
 * rt_write_variant writes the fixture, changed by edit, to dir/verified.json
 * and returns that path (free it).  rt_check_svg asserts that
 * dir/figures/NAME.svg is a well-formed SVG of the report's kind and returns
 * its text (free it).  rt_unhtml turns n bytes of HTML into plain text (tags
 * dropped, the five entities decoded) in out.  rt_check_value compares one
 * printed value (its data-src path, data-fmt kind and text) with root: 0
 * when it prints that value, else -1 and the reason in why.
 */
#ifndef RTEST_H
#define RTEST_H

#include <jansson.h>
#include <stddef.h>

#define FIXTURE REPORT_DIR "/tests/fixture/verified.json"

char *rt_slurp(const char *path, size_t *len);
char *rt_tmpdir(void);
void rt_rmrf(const char *d);
int rt_render(const char *in, const char *outdir, char **out);
int rt_xml_ok(const char *s, char *why, size_t wl, char *root, size_t rl);
char *rt_svg_text(const char *s);
char *rt_write_variant(const char *dir, void (*edit)(json_t *));
char *rt_check_svg(const char *dir, const char *name);
void rt_unhtml(const char *s, size_t n, char *out, size_t ol);
int rt_check_value(json_t *root, const char *path, const char *kind, const char *text, char *why, size_t wl);
char *rt_rendered_dir(const char *path);
char *rt_page(const char *dir, const char *name);
char *rt_plain(const char *html);
int rt_count(const char *s, const char *what);
int rt_expect_values(const char *html, json_t *root, const char *lo, const char *hi, int *in_range);

#endif
