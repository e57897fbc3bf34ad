/* Tests of build/report on the fixture (tests/fixture/verified.json: a tiny
 * study made with the lab, 8 arms x 2 rounds of 3 s, one run (H3-t25-r2)
 * disturbed on purpose, verified; see tests/make_study.sh).
 *
 *   - every figure file exists and is a well-formed SVG (an XML checker of
 *     our own: balanced tags, quoted attributes, an <svg> root in the SVG
 *     namespace with a viewBox); every figure the page names exists;
 *   - every printed value of the page equals verified.json: each
 *     <span data-src=PATH data-fmt=KIND> is read back and compared with the
 *     value at PATH (strings exactly; numbers to the digits printed); no
 *     table cell holds a digit outside such a span; the Markdown tables hold
 *     the same cells as the HTML tables;
 *   - the page fetches nothing (no external URL, script, link or import);
 *   - it refuses to render when "ok" is not true, and arms missing from a
 *     study print "not measured";
 *   - Debian's chromium renders the page headless and takes a screenshot
 *     (1200 x 3000) that is not blank; and in every figure of the fixture
 *     and of the published study no label runs into another or leaves its
 *     figure (tests/labels.js); both skipped with a reason when chromium
 *     is not installed.
 *   - the number formats (fmt.h) on hand-picked values;
 *   - quiet runs: the section lists exactly the disturbed runs with their
 *     rules, each gets a well-formed figure (a third panel with
 *     foreign_share when present; at most twelve figures), and a study whose
 *     runs are all quiet says "every run was quiet" and draws none.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "fmt.h"
#include "rtest.h"

extern char **environ;

static const char *const FIGS[] = {"dials", "exceed", "errors",   "frozen",   "split",     "outage",
                                   "slots", "flood",  "predicted", "hedge",   "steps",     "storm",
                                   "retry450", "bulkhead", NULL};

/* ------------------------------------------------------------ helpers */

char *rt_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    b[n] = 0;
    if (len) *len = (size_t)n;
    return b;
}

char *rt_tmpdir(void)
{
    char t[] = "/tmp/report-test-XXXXXX";
    return strdup(mkdtemp(t));
}

void rt_rmrf(const char *d)
{
    if (strncmp(d, "/tmp/report-test-", 17)) return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    if (system(cmd)) {
    }
}

/* run argv[0] with argv, output (stdout and stderr) into *out; exit code */
static int run(char **out, const char *const *argv, int timeout_s)
{
    char tmpl[] = "/tmp/report-test-out-XXXXXX";
    int fd = mkstemp(tmpl);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    const char *av[64];
    int n = 0;
    char tbuf[32];
    if (timeout_s > 0) {
        snprintf(tbuf, sizeof tbuf, "%d", timeout_s);
        av[n++] = "timeout";
        av[n++] = tbuf;
    }
    for (int i = 0; argv[i] && n < 63; i++) av[n++] = argv[i];
    av[n] = NULL;
    pid_t pid;
    int rc = posix_spawnp(&pid, av[0], &fa, NULL, (char *const *)av, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd);
    int st = 0;
    if (rc == 0) waitpid(pid, &st, 0);
    *out = rt_slurp(tmpl, NULL);
    if (!*out) *out = strdup("");
    unlink(tmpl);
    if (rc) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int rt_render(const char *in, const char *outdir, char **out)
{
    const char *a[] = {REPORT_BIN, "--in", in, "--out", outdir, NULL};
    return run(out, a, 60);
}

/* a rendered fixture, shared by the tests that only read it */
static char *g_dir;
static char *g_html, *g_md;
static json_t *g_root;

static void rendered(void)
{
    g_dir = rt_tmpdir();
    char *out;
    int rc = rt_render(FIXTURE, g_dir, &out);
    cr_assert_eq(rc, 0, "report failed on the fixture:\n%s", out);
    free(out);
    char p[600];
    snprintf(p, sizeof p, "%s/report.html", g_dir);
    g_html = rt_slurp(p, NULL);
    snprintf(p, sizeof p, "%s/report.md", g_dir);
    g_md = rt_slurp(p, NULL);
    cr_assert(g_html && g_md);
    json_error_t e;
    g_root = json_load_file(FIXTURE, 0, &e);
    cr_assert(g_root, "%s", e.text);
}

static void cleanup(void)
{
    json_decref(g_root);
    free(g_html);
    free(g_md);
    rt_rmrf(g_dir);
    free(g_dir);
}

/* ------------------------------------------------------------ XML */

/* Well-formed XML: one root, balanced tags, quoted attributes, no stray
 * '<' or '&'.  Returns 0, or -1 with a reason.  *root gets the root's
 * start tag (up to 4 KB). */
int rt_xml_ok(const char *s, char *why, size_t wl, char *root, size_t rl)
{
    const char *stack[4096];
    size_t lens[4096];
    int depth = 0, roots = 0;
    const char *p = s;
    while (*p) {
        if (*p == '&') {
            const char *e = strchr(p, ';');
            if (!e || e - p > 12) {
                snprintf(why, wl, "a stray '&' at byte %ld", (long)(p - s));
                return -1;
            }
            p = e + 1;
            continue;
        }
        if (*p != '<') {
            if (depth == 0 && !isspace((unsigned char)*p)) {
                snprintf(why, wl, "text outside the root at byte %ld", (long)(p - s));
                return -1;
            }
            p++;
            continue;
        }
        if (!strncmp(p, "<?", 2)) {
            const char *e = strstr(p, "?>");
            if (!e) return snprintf(why, wl, "an unclosed <?"), -1;
            p = e + 2;
        } else if (!strncmp(p, "<!--", 4)) {
            const char *e = strstr(p, "-->");
            if (!e) return snprintf(why, wl, "an unclosed comment"), -1;
            p = e + 3;
        } else if (!strncmp(p, "<!DOCTYPE", 9)) {
            const char *e = strchr(p, '>');
            if (!e || depth) return snprintf(why, wl, "a misplaced DOCTYPE"), -1;
            p = e + 1;
        } else if (p[1] == '/') {
            const char *n = p + 2;
            size_t l = strcspn(n, " \t\r\n>");
            if (!depth || l != lens[depth - 1] || strncmp(n, stack[depth - 1], l)) {
                snprintf(why, wl, "</%.*s> does not close <%.*s> at byte %ld", (int)l, n,
                         depth ? (int)lens[depth - 1] : 0, depth ? stack[depth - 1] : "", (long)(p - s));
                return -1;
            }
            depth--;
            const char *e = strchr(n, '>');
            if (!e) return snprintf(why, wl, "an unclosed end tag"), -1;
            p = e + 1;
        } else {
            const char *n = p + 1;
            size_t l = strcspn(n, " \t\r\n/>");
            if (!l || !(isalpha((unsigned char)n[0]) || n[0] == '_')) {
                snprintf(why, wl, "a bad tag name at byte %ld", (long)(p - s));
                return -1;
            }
            /* attributes: name="value" or name='value' */
            const char *q = n + l;
            for (;;) {
                while (isspace((unsigned char)*q)) q++;
                if (*q == '>' || !strncmp(q, "/>", 2)) break;
                size_t an = strcspn(q, " \t\r\n=/>");
                if (!an || q[an] != '=' || (q[an + 1] != '"' && q[an + 1] != '\'')) {
                    snprintf(why, wl, "an attribute without a quoted value at byte %ld", (long)(q - s));
                    return -1;
                }
                char quote = q[an + 1];
                const char *e = strchr(q + an + 2, quote);
                if (!e) return snprintf(why, wl, "an unclosed attribute value"), -1;
                for (const char *c = q + an + 2; c < e; c++)
                    if (*c == '<') return snprintf(why, wl, "'<' in an attribute at byte %ld", (long)(c - s)), -1;
                q = e + 1;
            }
            if (depth == 0) {
                if (roots++) return snprintf(why, wl, "a second root element"), -1;
                size_t tl = (size_t)(strchr(q, '>') - p + 1);
                snprintf(root, rl, "%.*s", (int)(tl < rl - 1 ? tl : rl - 1), p);
            }
            if (!strncmp(q, "/>", 2)) {
                p = q + 2;
            } else {
                if (depth >= 4096) return snprintf(why, wl, "too deep"), -1;
                stack[depth] = n;
                lens[depth++] = l;
                p = q + 1;
            }
        }
    }
    if (depth) return snprintf(why, wl, "<%.*s> is never closed", (int)lens[depth - 1], stack[depth - 1]), -1;
    if (!roots) return snprintf(why, wl, "no root element"), -1;
    return 0;
}

/* the text of an SVG: PLplot writes every character as &#xNN; */
char *rt_svg_text(const char *s)
{
    size_t n = strlen(s);
    char *o = malloc(n + 1), *w = o;
    for (const char *p = s; *p;) {
        if (!strncmp(p, "&#x", 3)) {
            char *e;
            long c = strtol(p + 3, &e, 16);
            if (*e == ';') {
                if (c < 0x80) *w++ = (char)c;
                else if (c < 0x800) {
                    *w++ = (char)(0xc0 | (c >> 6));
                    *w++ = (char)(0x80 | (c & 0x3f));
                } else {
                    *w++ = (char)(0xe0 | (c >> 12));
                    *w++ = (char)(0x80 | ((c >> 6) & 0x3f));
                    *w++ = (char)(0x80 | (c & 0x3f));
                }
                p = e + 1;
                continue;
            }
        }
        if (*p == '<') {
            /* tags separate text runs */
            const char *e = strchr(p, '>');
            if (!e) break;
            p = e + 1;
            continue;
        }
        *w++ = *p++;
    }
    *w = 0;
    return o;
}

/* ------------------------------------------------------------ page parsing */

static json_t *at(json_t *root, const char *path)
{
    json_t *n = root;
    const char *p = path;
    while (n && *p == '/') {
        p++;
        size_t l = strcspn(p, "/");
        char k[512];
        snprintf(k, sizeof k, "%.*s", (int)l, p);
        if (json_is_object(n)) n = json_object_get(n, k);
        else if (json_is_array(n)) n = json_array_get(n, strtoul(k, NULL, 10));
        else n = NULL;
        p += l;
    }
    return *p ? NULL : n;
}

/* HTML text -> plain: tags dropped, the five entities decoded */
void rt_unhtml(const char *s, size_t n, char *out, size_t ol)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < ol;) {
        if (s[i] == '<') {
            while (i < n && s[i] != '>') i++;
            i++;
            continue;
        }
        static const char *const ent[][2] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""}, {"&#39;", "'"}};
        int done = 0;
        for (int k = 0; k < 5; k++) {
            size_t el = strlen(ent[k][0]);
            if (i + el <= n && !strncmp(s + i, ent[k][0], el)) {
                out[o++] = ent[k][1][0];
                i += el;
                done = 1;
                break;
            }
        }
        if (!done) out[o++] = s[i++];
    }
    out[o] = 0;
}

/* digits printed after the decimal point */
static int decimals(const char *t)
{
    const char *d = strchr(t, '.');
    if (!d) return 0;
    int k = 0;
    for (d++; isdigit((unsigned char)*d); d++) k++;
    return k;
}

/* the number in a printed text: ',' '%' ' pp' dropped, U+2212 is '-' */
static int parse_printed(const char *t, double *v)
{
    char b[128];
    size_t o = 0;
    for (const char *p = t; *p && o < sizeof b - 1; p++) {
        if (!strncmp(p, "\xe2\x88\x92", 3)) {
            b[o++] = '-';
            p += 2;
        } else if (*p == ',' || *p == '%' || *p == '+') {
            continue;
        } else if (!strncmp(p, " pp", 3)) {
            break;
        } else {
            b[o++] = *p;
        }
    }
    b[o] = 0;
    char *e;
    *v = strtod(b, &e);
    return e != b && *e == 0 ? 0 : -1;
}

/* compare one printed value with verified.json; 0 when equal */
int rt_check_value(json_t *root, const char *path, const char *kind, const char *text, char *why, size_t wl)
{
    json_t *v = at(root, path);
    if (!v || json_is_null(v)) {
        if (strcmp(text, "\xe2\x80\x94")) return snprintf(why, wl, "%s is null, printed \"%s\"", path, text), -1;
        return 0;
    }
    if (!strcmp(kind, "str")) {
        if (!json_is_string(v) || strcmp(json_string_value(v), text))
            return snprintf(why, wl, "%s is \"%s\", printed \"%s\"", path, json_string_value(v), text), -1;
        return 0;
    }
    if (!strcmp(kind, "right") || !strcmp(kind, "tf") || !strcmp(kind, "yn")) {
        const char *want = json_is_true(v) ? (kind[0] == 'r' ? "right" : kind[0] == 'y' ? "yes" : "true")
                                           : (kind[0] == 'r' ? "wrong" : kind[0] == 'y' ? "no" : "false");
        if (!json_is_boolean(v) || strcmp(want, text)) return snprintf(why, wl, "%s: printed \"%s\"", path, text), -1;
        return 0;
    }
    if (!strcmp(kind, "len")) {
        /* the number of items or members, printed as an int */
        if (!json_is_array(v) && !json_is_object(v)) return snprintf(why, wl, "%s is neither a list nor an object", path), -1;
        double got, want = (double)(json_is_array(v) ? json_array_size(v) : json_object_size(v));
        if (parse_printed(text, &got) || got != want)
            return snprintf(why, wl, "%s has %.0f items, printed \"%s\"", path, want, text), -1;
        return 0;
    }
    if (!json_is_number(v)) return snprintf(why, wl, "%s is not a number", path), -1;
    double x = json_number_value(v), got;
    if (parse_printed(text, &got)) return snprintf(why, wl, "%s: \"%s\" is not a number", path, text), -1;
    if (!strcmp(kind, "pct") || !strcmp(kind, "spp") || !strcmp(kind, "pp")) x *= 100;
    if (!strcmp(kind, "ns_ms")) x /= 1e6;
    if (!strcmp(kind, "us_ms")) x /= 1e3;
    double half = 0.5 * pow(10, -decimals(text));
    if (fabs(got - x) > half * (1 + 1e-9) + 1e-12)
        return snprintf(why, wl, "%s = %.17g (as %s), printed \"%s\"", path, x, kind, text), -1;
    /* enough digits: at least 3 significant ones, or every digit of an integer */
    if ((!strcmp(kind, "int") || !strcmp(kind, "kb")) && fabs(x - round(x)) < 1e-9 && got != round(x))
        return snprintf(why, wl, "%s = %.0f printed \"%s\"", path, x, text), -1;
    return 0;
}

/* ------------------------------------------------------------ tests */

/* dir/figures/name.svg exists and is a well-formed SVG of the report's kind;
 * returns its text (free it) */
char *rt_check_svg(const char *dir, const char *name)
{
    char p[600], why[256], root[4096];
    snprintf(p, sizeof p, "%s/figures/%s.svg", dir, name);
    size_t len;
    char *s = rt_slurp(p, &len);
    cr_assert(s, "no figure %s", p);
    cr_expect(len > 2000, "%s: only %zu bytes", p, len);
    cr_expect_eq(rt_xml_ok(s, why, sizeof why, root, sizeof root), 0, "%s: %s", p, why);
    cr_expect(!strncmp(root, "<svg", 4), "%s: root is %s", p, root);
    cr_expect(strstr(root, "xmlns=\"http://www.w3.org/2000/svg\""), "%s: no SVG namespace", p);
    cr_expect(strstr(root, "viewBox=\""), "%s: no viewBox", p);
    int w = 0, h = 0;
    const char *wp = strstr(root, " width=\""), *hp = strstr(root, " height=\"");
    cr_expect(wp && hp && sscanf(wp, " width=\"%d\"", &w) == 1 && sscanf(hp, " height=\"%d\"", &h) == 1,
              "%s: width and height in pixels", p);
    cr_expect(w >= 600 && h >= 300, "%s: %d x %d", p, w, h);
    /* ids carry the figure's name, so that inlined figures do not share clip paths */
    char idp[200];
    snprintf(idp, sizeof idp, "id=\"%s-", name);
    for (const char *q = strstr(s, " id=\""); q; q = strstr(q + 1, " id=\""))
        cr_expect(!strncmp(q + 1, idp, strlen(idp)), "%s: id %.40s", p, q + 1);
    return s;
}

Test(report, figures_exist_and_are_svg, .init = rendered, .fini = cleanup, .timeout = 120)
{
    for (int i = 0; FIGS[i]; i++) free(rt_check_svg(g_dir, FIGS[i]));
    /* every figure the Markdown links and every inline figure is one of them */
    int md_links = 0;
    for (const char *q = strstr(g_md, "](figures/"); q; q = strstr(q + 1, "](figures/")) {
        char name[128];
        cr_assert_eq(sscanf(q, "](figures/%127[^)])", name), 1);
        char p[700];
        snprintf(p, sizeof p, "%s/figures/%s", g_dir, name);
        cr_expect_eq(access(p, R_OK), 0, "the Markdown links %s, which does not exist", p);
        md_links++;
    }
    int html_figs = 0;
    for (const char *q = strstr(g_html, "<figure "); q; q = strstr(q + 1, "<figure ")) html_figs++;
    /* the 14 figures above and the one disturbed run's */
    cr_expect_eq(md_links, 15, "figures linked: %d", md_links);
    cr_expect_eq(html_figs, 15, "figures inlined: %d", html_figs);
    /* the whole page is well-formed too (inline SVGs included) once the doctype is set aside */
    char why[256], root[4096];
    const char *h = strstr(g_html, "<html");
    cr_assert(h);
    /* room for one slash per <meta> */
    size_t nmeta = 0;
    for (const char *m = strstr(h, "<meta "); m; m = strstr(m + 1, "<meta ")) nmeta++;
    char *copy = malloc(strlen(h) + nmeta + 1);
    strcpy(copy, h);
    /* void HTML elements written without a slash */
    for (char *m = strstr(copy, "<meta "); m; m = strstr(m + 1, "<meta ")) {
        char *e = strchr(m, '>');
        if (e[-1] != '/') {
            memmove(e + 1, e, strlen(e) + 1);
            *e = '/';
        }
    }
    cr_expect_eq(rt_xml_ok(copy, why, sizeof why, root, sizeof root), 0, "report.html: %s", why);
    free(copy);
}

Test(report, every_printed_value_equals_verified_json, .init = rendered, .fini = cleanup, .timeout = 120)
{
    int n = 0, bad = 0, numeric = 0;
    for (const char *q = strstr(g_html, "<span data-src=\""); q; q = strstr(q + 1, "<span data-src=\"")) {
        char path[512], kind[32];
        cr_assert_eq(sscanf(q, "<span data-src=\"%511[^\"]\" data-fmt=\"%31[^\"]\">", path, kind), 2, "%.80s", q);
        const char *t0 = strchr(q, '>') + 1, *t1 = strstr(t0, "</span>");
        char text[4096], why[600];
        rt_unhtml(t0, (size_t)(t1 - t0), text, sizeof text);
        char upath[512];
        rt_unhtml(path, strlen(path), upath, sizeof upath);
        if (rt_check_value(g_root, upath, kind, text, why, sizeof why)) {
            if (bad++ < 20) cr_expect(0, "%s", why);
        }
        if (strcmp(kind, "str") && strcmp(kind, "tf") && strcmp(kind, "right") && strcmp(kind, "yn")) numeric++;
        n++;
    }
    cr_expect_eq(bad, 0, "%d of %d printed values differ from verified.json", bad, n);
    cr_expect(n > 1000 && numeric > 800, "only %d printed values (%d numbers)", n, numeric);

    /* no table cell holds a digit outside a traced value */
    int cells = 0;
    for (const char *q = strstr(g_html, "<td"); q; q = strstr(q + 1, "<td")) {
        const char *e = strstr(q, "</td>");
        cr_assert(e);
        const char *c = strchr(q, '>') + 1;
        /* the cell's text minus every traced span */
        char rest[8192];
        size_t o = 0;
        for (const char *p = c; p < e && o < sizeof rest - 1;) {
            if (!strncmp(p, "<span data-src=", 15)) {
                p = strstr(p, "</span>") + 7;
                continue;
            }
            rest[o++] = *p++;
        }
        rest[o] = 0;
        char plain[8192];
        rt_unhtml(rest, o, plain, sizeof plain);
        for (const char *d = plain; *d; d++)
            if (isdigit((unsigned char)*d)) {
                cr_expect(0, "a digit outside any traced value in <td>: \"%s\"", plain);
                break;
            }
        cells++;
    }
    cr_expect(cells > 500, "only %d cells", cells);
}

/* the cells of every table: HTML (th and td, tags dropped) and Markdown */
static int html_cells(const char *h, char **cells, int max)
{
    int n = 0;
    const char *q = h;
    while ((q = strstr(q, "<t")) && n < max) {
        if (strncmp(q, "<td", 3) && strncmp(q, "<th", 3)) {
            q++;
            continue;
        }
        if (q[3] != '>' && q[3] != ' ') {
            q++;
            continue;
        }
        int is_td = q[2] == 'd';
        const char *c = strchr(q, '>') + 1, *e = strstr(c, is_td ? "</td>" : "</th>");
        char t[8192];
        rt_unhtml(c, (size_t)(e - c), t, sizeof t);
        if (t[0]) cells[n++] = strdup(t);
        q = e;
    }
    return n;
}

static int md_cells(const char *m, char **cells, int max)
{
    int n = 0;
    for (const char *l = m; l && *l && n < max;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (len && l[0] == '|' && !(len > 6 && !strncmp(l, "| --- |", 7))) {
            const char *p = l + 1;
            while (p < l + len && n < max) {
                char t[8192];
                size_t o = 0;
                while (p < l + len && *p != '|') {
                    if (*p == '\\' && p + 1 < l + len) p++;
                    t[o++] = *p++;
                }
                t[o] = 0;
                p++;
                char *s = t;
                while (*s == ' ') s++;
                size_t sl = strlen(s);
                while (sl && s[sl - 1] == ' ') s[--sl] = 0;
                if (*s) cells[n++] = strdup(s);
            }
        }
        l = e ? e + 1 : NULL;
    }
    return n;
}

Test(report, markdown_tables_equal_the_html_tables, .init = rendered, .fini = cleanup, .timeout = 120)
{
    enum { MAX = 20000 };
    char **a = calloc(MAX, sizeof *a), **b = calloc(MAX, sizeof *b);
    int na = html_cells(g_html, a, MAX), nb = md_cells(g_md, b, MAX);
    cr_expect(na > 500, "%d cells", na);
    cr_expect_eq(na, nb, "HTML %d cells, Markdown %d", na, nb);
    for (int i = 0; i < na && i < nb; i++)
        if (strcmp(a[i], b[i])) {
            cr_expect(0, "cell %d: HTML \"%s\", Markdown \"%s\"", i, a[i], b[i]);
            break;
        }
    for (int i = 0; i < na; i++) free(a[i]);
    for (int i = 0; i < nb; i++) free(b[i]);
    free(a);
    free(b);
}

Test(report, the_page_fetches_nothing, .init = rendered, .fini = cleanup, .timeout = 120)
{
    for (const char *q = strstr(g_html, "http"); q; q = strstr(q + 1, "http")) {
        /* only XML namespace names, which are never fetched */
        int ns = (q - g_html > 7 && !strncmp(q - 7, "xmlns=\"", 7)) || (q - g_html > 13 && !strncmp(q - 13, "xmlns:xlink=\"", 13));
        cr_expect(ns, "a URL in the page: %.60s", q);
    }
    cr_expect(!strstr(g_html, "<script"), "a script");
    cr_expect(!strstr(g_html, "<link"), "a link element");
    cr_expect(!strstr(g_html, "@import"), "a CSS import");
    cr_expect(!strstr(g_html, " src=\""), "a src attribute");
    cr_expect(!strstr(g_html, "xlink:href"), "an xlink reference");
    /* the one link: the provenance for people, beside the page */
    cr_expect(strstr(g_html, "<a href=\"provenance.md\">provenance.md</a>"), "no link to provenance.md");
    cr_expect(strstr(g_md, "[provenance.md](provenance.md)"), "report.md: no link to provenance.md");
    cr_expect(!strstr(g_html, "<a href=\"http"), "a link to the web");
    for (const char *q = strstr(g_html, "url("); q; q = strstr(q + 1, "url("))
        cr_expect(q[4] == '#', "a url() that is not a fragment: %.40s", q);
    /* and nothing of the lab's folders is named */
    cr_expect(!strstr(g_html, "lab/") && !strstr(g_html, "pipeline/"), "the page names lab/ or pipeline/");
    cr_expect(!strstr(g_md, "lab/") && !strstr(g_md, "pipeline/"), "report.md names lab/ or pipeline/");
    for (const char *q = strstr(g_md, "http"); q; q = strstr(q + 1, "http")) cr_expect(0, "a URL in report.md: %.60s", q);
}

Test(report, hand_checked_values_on_the_page, .init = rendered, .fini = cleanup, .timeout = 120)
{
    /* the verified member and one arm's range, read independently */
    double med;
    json_t *v = at(g_root, "/arms/H3-fb25/p99_ms/median");
    cr_assert(json_is_number(v));
    med = json_number_value(v);
    char want[256];
    snprintf(want, sizeof want, "<span data-src=\"/arms/H3-fb25/p99_ms/median\" data-fmt=\"ms\">%.1f</span>", med);
    cr_expect(strstr(g_html, want), "no %s", want);
    cr_expect(strstr(g_html, "<span data-src=\"/ok\"") == NULL);
    cr_expect(strstr(g_html, "data-src=\"/mismatches\" data-fmt=\"int\">0</span>"));
    /* an arm the fixture lacks: its rows say so */
    cr_expect(strstr(g_html, "<th scope=\"row\">H3-r2</th><td colspan=\"10\" class=\"l\"><span class=\"nm\">not measured</span>"),
              "H3-r2 is not printed as not measured");
    cr_expect(strstr(g_md, "| H3-r2 | not measured |"), "the Markdown misses H3-r2's not measured");
    /* the frozen example: the first frozen request of H3-fb25's round 1 */
    json_t *j = at(g_root, "/extra/runs/H3-fb25-r1/frozen_example/j");
    cr_assert(json_is_integer(j));
    snprintf(want, sizeof want, "data-src=\"/extra/runs/H3-fb25-r1/frozen_example/j\" data-fmt=\"int\">%lld</span>",
             (long long)json_integer_value(j));
    cr_expect(strstr(g_html, want), "no %s", want);
    /* a figure's text: every unmeasured limit arm says so in the errors figure */
    char p[600];
    snprintf(p, sizeof p, "%s/figures/errors.svg", g_dir);
    char *s = rt_slurp(p, NULL), *t = rt_svg_text(s);
    cr_expect(strstr(t, "How many errors each limit gave"), "no title in errors.svg");
    int nm = 0;
    for (const char *q = strstr(t, "not measured"); q; q = strstr(q + 1, "not measured")) nm++;
    cr_expect_eq(nm, 3, "errors.svg: %d \"not measured\" (H3-t10, H3-t50, H3-t100)", nm);
    free(s);
    free(t);
}

char *rt_write_variant(const char *dir, void (*edit)(json_t *))
{
    json_error_t e;
    json_t *r = json_load_file(FIXTURE, 0, &e);
    cr_assert(r);
    edit(r);
    char *p = malloc(600);
    snprintf(p, 600, "%s/verified.json", dir);
    cr_assert_eq(json_dump_file(r, p, JSON_INDENT(1)), 0);
    json_decref(r);
    return p;
}

static void set_not_ok(json_t *r)
{
    json_object_set_new(r, "ok", json_false());
    json_object_set_new(r, "mismatches", json_integer(1));
}

Test(report, refuses_unless_ok, .timeout = 60)
{
    char *d = rt_tmpdir();
    char *in = rt_write_variant(d, set_not_ok);
    char outdir[600];
    snprintf(outdir, sizeof outdir, "%s/out", d);
    char *out;
    int rc = rt_render(in, outdir, &out);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "refusing to render"), "%s", out);
    cr_expect(strstr(out, "\"ok\": false (1 mismatches"), "%s", out);
    char p[700];
    snprintf(p, sizeof p, "%s/report.html", outdir);
    cr_expect_neq(access(p, F_OK), 0, "a page was written");
    free(out);
    /* no verified.json at all */
    snprintf(p, sizeof p, "%s/none.json", d);
    rc = rt_render(p, outdir, &out);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "make factcheck"), "%s", out);
    free(out);
    free(in);
    rt_rmrf(d);
    free(d);
}

/* a study without the retry arms, the 25 ms stand-in and its frozen lookup */
static void drop_arms(json_t *r)
{
    static const char *const gone[] = {"H4-r2", "H3-fb25", "H3-dldown", NULL};
    for (int i = 0; gone[i]; i++) {
        json_object_del(json_object_get(r, "arms"), gone[i]);
        for (int k = 1; k <= 2; k++) {
            char run[64];
            snprintf(run, sizeof run, "%s-r%d", gone[i], k);
            json_object_del(json_object_get(r, "runs"), run);
            json_object_del(json_object_get(json_object_get(r, "extra"), "runs"), run);
        }
    }
}

Test(report, missing_arms_are_not_measured, .timeout = 60)
{
    char *d = rt_tmpdir();
    char *in = rt_write_variant(d, drop_arms);
    char *out;
    int rc = rt_render(in, d, &out);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    for (int i = 0; FIGS[i]; i++) {
        char p[700], why[256], root[4096];
        snprintf(p, sizeof p, "%s/figures/%s.svg", d, FIGS[i]);
        char *s = rt_slurp(p, NULL);
        cr_assert(s, "no %s", p);
        cr_expect_eq(rt_xml_ok(s, why, sizeof why, root, sizeof root), 0, "%s: %s", p, why);
        if (!strcmp(FIGS[i], "flood")) {
            char *t = rt_svg_text(s);
            cr_expect(strstr(t, "not measured"), "flood.svg does not say not measured");
            free(t);
        }
        free(s);
    }
    char p[700];
    snprintf(p, sizeof p, "%s/report.html", d);
    char *h = rt_slurp(p, NULL);
    cr_expect(strstr(h, "<th scope=\"row\">H4-r2</th><td colspan=\"10\" class=\"l\"><span class=\"nm\">not measured"));
    /* the frozen lookup now follows another arm (H3-t25) */
    cr_expect(strstr(h, "data-src=\"/extra/runs/H3-t25-r1/frozen_example/j\""), "no frozen example of H3-t25-r1");
    free(h);
    free(in);
    rt_rmrf(d);
    free(d);
}

/* ---- chromium ---- */

static const char *find_chromium(void)
{
    static const char *const c[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", NULL};
    for (int i = 0; c[i]; i++)
        if (access(c[i], X_OK) == 0) return c[i];
    return NULL;
}

/* decode an 8-bit RGB or RGBA PNG; the share of pixels that are not near white */
static double png_ink(const char *path, unsigned *w, unsigned *h)
{
    size_t len;
    unsigned char *b = (unsigned char *)rt_slurp(path, &len);
    if (!b || len < 33 || memcmp(b, "\x89PNG\r\n\x1a\n", 8)) return -1;
    *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
    *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
    int depth = b[24], ctype = b[25];
    if (depth != 8 || (ctype != 2 && ctype != 6)) return -2;
    int bpp = ctype == 2 ? 3 : 4;
    unsigned char *z = NULL;
    size_t zl = 0;
    for (size_t p = 8; p + 8 <= len;) {
        unsigned cl = (unsigned)b[p] << 24 | (unsigned)b[p + 1] << 16 | (unsigned)b[p + 2] << 8 | b[p + 3];
        if (!memcmp(b + p + 4, "IDAT", 4)) {
            z = realloc(z, zl + cl);
            memcpy(z + zl, b + p + 8, cl);
            zl += cl;
        }
        p += 12 + cl;
    }
    size_t stride = (size_t)*w * bpp, rawl = (stride + 1) * *h;
    unsigned char *raw = malloc(rawl);
    uLongf got = rawl;
    if (uncompress(raw, &got, z, zl) != Z_OK || got != rawl) return -3;
    unsigned char *prev = calloc(stride, 1), *cur = malloc(stride);
    size_t ink = 0;
    for (unsigned y = 0; y < *h; y++) {
        unsigned char f = raw[y * (stride + 1)], *s = raw + y * (stride + 1) + 1;
        for (size_t x = 0; x < stride; x++) {
            int a = x >= (size_t)bpp ? cur[x - bpp] : 0, up = prev[x], c = x >= (size_t)bpp ? prev[x - bpp] : 0;
            int pr;
            if (f == 0) pr = 0;
            else if (f == 1) pr = a;
            else if (f == 2) pr = up;
            else if (f == 3) pr = (a + up) / 2;
            else {
                int pp = a + up - c, pa = abs(pp - a), pb = abs(pp - up), pc = abs(pp - c);
                pr = pa <= pb && pa <= pc ? a : pb <= pc ? up : c;
            }
            cur[x] = (unsigned char)(s[x] + pr);
        }
        for (unsigned x = 0; x < *w; x++) {
            unsigned char *px = cur + (size_t)x * bpp;
            if (px[0] < 200 || px[1] < 200 || px[2] < 200) ink++;
        }
        memcpy(prev, cur, stride);
    }
    free(prev);
    free(cur);
    free(raw);
    free(z);
    free(b);
    return (double)ink / ((double)*w * *h);
}

Test(report, chromium_renders_a_screenshot, .init = rendered, .fini = cleanup, .timeout = 180)
{
    const char *chr = find_chromium();
    if (!chr) {
        printf("SKIP chromium_renders_a_screenshot: Debian's chromium is not installed "
               "(apt-get install chromium; make deps installs it)\n");
        cr_skip_test("Debian's chromium is not installed (apt-get install chromium)");
    }
    char shot[700], prof[700], url[800], ss[800], ud[800];
    snprintf(shot, sizeof shot, "%s/shot.png", g_dir);
    snprintf(prof, sizeof prof, "%s/profile", g_dir);
    mkdir(prof, 0700);
    snprintf(url, sizeof url, "file://%s/report.html", g_dir);
    snprintf(ss, sizeof ss, "--screenshot=%s", shot);
    snprintf(ud, sizeof ud, "--user-data-dir=%s", prof);
    const char *a[] = {chr, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                       "--disable-background-networking", "--disable-component-update", "--disable-sync", ud, ss,
                       "--window-size=1200,3000", url, NULL};
    char *out;
    int rc = run(&out, a, 120);
    cr_expect_eq(rc, 0, "chromium exited %d:\n%s", rc, out);
    cr_expect(strstr(out, "bytes written to file"), "no screenshot written:\n%s", out);
    cr_expect(!strstr(out, "net::ERR_"), "a network error while rendering:\n%s", out);
    free(out);
    unsigned w = 0, h = 0;
    double ink = png_ink(shot, &w, &h);
    cr_assert(ink >= 0, "%s is not a readable 8-bit PNG (%g)", shot, ink);
    cr_expect_eq(w, 1200);
    cr_expect_eq(h, 3000);
    /* text, tables and figures: a rendered page is far from blank */
    cr_expect(ink > 0.03, "the screenshot is nearly blank (%.4f of pixels inked)", ink);
}

/* Every figure of a rendered report in one page, each inline with its file
 * name, and tests/labels.js: Chromium's dump of the page after the script,
 * the findings between LABELS-BEGIN and LABELS-END (labels.js's head). */
static char *label_findings(const char *chr, const char *dir)
{
    char page[700], prof[700], url[800], ud[800], js[700];
    snprintf(page, sizeof page, "%s/labels.html", dir);
    snprintf(prof, sizeof prof, "%s/profile-labels", dir);
    snprintf(js, sizeof js, "%s/tests/labels.js", REPORT_DIR);
    mkdir(prof, 0700);
    FILE *f = fopen(page, "w");
    cr_assert_not_null(f);
    fputs("<!doctype html><html><body>\n", f);
    /* every figure the report drew */
    char figdir[700];
    snprintf(figdir, sizeof figdir, "%s/figures", dir);
    DIR *fd = opendir(figdir);
    cr_assert_not_null(fd, "%s", figdir);
    int found = 0;
    struct dirent *de;
    while ((de = readdir(fd))) {
        size_t nl = strlen(de->d_name);
        if (nl < 5 || strcmp(de->d_name + nl - 4, ".svg"))
            continue;
        char fp[1000];
        snprintf(fp, sizeof fp, "%s/%s", figdir, de->d_name);
        char *svg = rt_slurp(fp, NULL);
        cr_assert_not_null(svg, "%s", fp);
        char *at = strstr(svg, "<svg");
        cr_assert_not_null(at, "%s: no <svg>", fp);
        fprintf(f, "<div><svg data-name=\"%s\"%s</div>\n", de->d_name, at + 4);
        free(svg);
        found++;
    }
    closedir(fd);
    char *script = rt_slurp(js, NULL);
    cr_assert_not_null(script, "%s", js);
    fprintf(f, "<script>%s</script></body></html>\n", script);
    free(script);
    fclose(f);
    cr_assert(found >= 3, "only %d figures in %s/figures", found, dir);
    snprintf(url, sizeof url, "file://%s", page);
    snprintf(ud, sizeof ud, "--user-data-dir=%s", prof);
    const char *a[] = {chr, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                       "--disable-background-networking", "--disable-component-update", "--disable-sync", ud,
                       "--window-size=1400,1000", "--dump-dom", url, NULL};
    char *out;
    int rc = run(&out, a, 120);
    cr_assert_eq(rc, 0, "chromium exited %d", rc);
    char *b = strstr(out, "\nLABELS-BEGIN\n"), *e = b ? strstr(b, "LABELS-END") : NULL;
    cr_assert(b && e, "labels.js left no findings list (did the script run?)");
    b += strlen("\nLABELS-BEGIN\n");
    char *list = strndup(b, (size_t)(e - b));
    free(out);
    return list;
}

/* No label of any figure runs into another or leaves its figure: on the
 * fixture, and on the published study's verified.json (its long arm
 * names, H3-fb25-missing, and descriptions, "store down for good", ran
 * into each other and under the plot in Figure 1). */
Test(report, no_label_overlaps_another_or_leaves_its_figure, .init = rendered, .fini = cleanup, .timeout = 300)
{
    const char *chr = find_chromium();
    if (!chr) {
        printf("SKIP no_label_overlaps_another_or_leaves_its_figure: Debian's chromium is not installed "
               "(apt-get install chromium; make deps installs it)\n");
        cr_skip_test("Debian's chromium is not installed (apt-get install chromium)");
    }
    char *list = label_findings(chr, g_dir);
    cr_expect_str_empty(list, "the fixture's figures:\n%s", list);
    free(list);
    char pub[700];
    snprintf(pub, sizeof pub, "%s/../results/verified.json", REPORT_DIR);
    if (access(pub, R_OK) != 0) {
        printf("SKIP the published study's figures: no %s\n", pub);
        return;
    }
    char *d = rt_tmpdir(), *out;
    int rc = rt_render(pub, d, &out);
    cr_assert_eq(rc, 0, "report failed on the published study:\n%s", out);
    free(out);
    list = label_findings(chr, d);
    cr_expect_str_empty(list, "the published study's figures:\n%s", list);
    free(list);
    rt_rmrf(d);
    free(d);
}

/* ---- the formats ---- */

static const char *F(double v, const char *kind)
{
    static char b[8][64];
    static int i;
    i = (i + 1) % 8;
    fmt_num(v, kind, b[i], sizeof b[i]);
    return b[i];
}

Test(fmt, hand_values)
{
    cr_expect_str_eq(F(1030.4, "ms"), "1,030");
    cr_expect_str_eq(F(25.74, "ms"), "25.7");
    cr_expect_str_eq(F(4.284, "ms"), "4.28");
    cr_expect_str_eq(F(0.5124, "ms"), "0.512");
    cr_expect_str_eq(F(99.96, "ms"), "100");
    cr_expect_str_eq(F(26500000, "ns_ms"), "26.5");
    cr_expect_str_eq(F(99688.666, "us_ms"), "99.7");
    cr_expect_str_eq(F(57.4, "us_ms"), "0.057");
    cr_expect_str_eq(F(-0.363, "sms"), "\xe2\x88\x92" "0.363");
    cr_expect_str_eq(F(7.6, "sms"), "+7.60");
    cr_expect_str_eq(F(0.0162, "pct"), "1.62%");
    cr_expect_str_eq(F(0.943, "pct"), "94.3%");
    cr_expect_str_eq(F(0.0004, "pct"), "0.040%");
    cr_expect_str_eq(F(0, "pct"), "0%");
    cr_expect_str_eq(F(1, "pct"), "100.0%");
    cr_expect_str_eq(F(0.0131, "spp"), "+1.31 pp");
    cr_expect_str_eq(F(0.02, "pp"), "2.00 pp");
    cr_expect_str_eq(F(-0.00163, "spp"), "\xe2\x88\x92" "0.163 pp");
    cr_expect_str_eq(F(44001, "int"), "44,001");
    cr_expect_str_eq(F(10.5, "int"), "10.5");
    cr_expect_str_eq(F(1234567, "kb"), "1,234,567");
    cr_expect_str_eq(F(1.0166, "x"), "1.017");
    cr_expect_str_eq(F(1547.2, "us"), "1,547");
    cr_expect_str_eq(F(49.94, "us"), "49.9");
    cr_expect_str_eq(F(0.7539, "s"), "0.754");
    cr_expect_str_eq(F(NAN, "ms"), "\xe2\x80\x94");
    /* a value that rounds to zero carries no sign */
    cr_expect_str_eq(F(-0.0001, "sms"), "0.000");
}

/* ---- independence ---- */

Test(report, includes_nothing_of_lab_or_pipeline)
{
    const char *files[] = {"src/report.c", "src/rdata.c", "src/rdata.h", "src/fmt.c", "src/fmt.h", "src/page.c",
                           "src/page.h", "src/fig.c", "src/fig.h", "src/figures.c", "src/figures.h",
                           "src/quiet.c", "src/quiet.h", "src/machine.c", "src/machine.h", "src/outage.c",
                           "src/outage.h", "src/defences.c", "src/defences.h", "src/map.c", "src/map.h",
                           "Makefile", NULL};
    for (int i = 0; files[i]; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%s", REPORT_DIR, files[i]);
        char *s = rt_slurp(p, NULL);
        cr_assert(s, "cannot read %s", p);
        cr_expect(!strstr(s, "../lab") && !strstr(s, "../pipeline") && !strstr(s, "-Ilab") &&
                      !strstr(s, "-Ipipeline") && !strstr(s, "#include \"lab/") && !strstr(s, "#include \"pipeline/"),
                  "%s refers to lab/ or pipeline/", files[i]);
        free(s);
    }
}

/* A rendered copy of path in a fresh folder: the folder (free it). */
char *rt_rendered_dir(const char *path)
{
    char *d = rt_tmpdir(), *out;
    int rc = rt_render(path, d, &out);
    cr_assert_eq(rc, 0, "report failed:\n%s", out);
    free(out);
    return d;
}

/* dir/name read whole (free it); fails the test when missing. */
char *rt_page(const char *dir, const char *name)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *s = rt_slurp(p, NULL);
    cr_assert(s, "no %s", p);
    return s;
}

/* The text of some HTML, tags dropped and entities undone (free it). */
char *rt_plain(const char *html)
{
    size_t n = strlen(html) + 1;
    char *t = malloc(n);
    rt_unhtml(html, n - 1, t, n);
    return t;
}

/* How often `what` occurs in s (overlapping). */
int rt_count(const char *s, const char *what)
{
    int n = 0;
    for (const char *q = strstr(s, what); q; q = strstr(q + 1, what)) n++;
    return n;
}

/* Every <span data-src="PATH" data-fmt="KIND">TEXT</span> of html: TEXT
 * is root's value at PATH as KIND prints it (one failed expectation for
 * the first 20 that are not, and one for their count).  Returns the values
 * checked; *in_range (when lo is given) counts those in [lo, hi) of html. */
int rt_expect_values(const char *html, json_t *root, const char *lo, const char *hi, int *in_range)
{
    int n = 0, bad = 0;
    if (in_range)
        *in_range = 0;
    for (const char *q = strstr(html, "<span data-src=\""); q; q = strstr(q + 1, "<span data-src=\"")) {
        char path[512], kind[32], upath[512], text[4096], why[600];
        cr_assert_eq(sscanf(q, "<span data-src=\"%511[^\"]\" data-fmt=\"%31[^\"]\">", path, kind), 2);
        const char *v0 = strchr(q, '>') + 1, *v1 = strstr(v0, "</span>");
        rt_unhtml(v0, (size_t)(v1 - v0), text, sizeof text);
        rt_unhtml(path, strlen(path), upath, sizeof upath);
        if (rt_check_value(root, upath, kind, text, why, sizeof why) && bad++ < 20)
            cr_expect(0, "%s", why);
        if (in_range && lo && q >= lo && q < hi)
            (*in_range)++;
        n++;
    }
    cr_expect_eq(bad, 0, "%d of %d printed values differ from the variant", bad, n);
    return n;
}
