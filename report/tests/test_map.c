/* Tests of the map of floods by load (src/map.c, templates/map.md.in, the
 * front page's line, `report --map FILE --figure OUT`).
 *
 * The fixture's study predates the map (no `map` member), so the section is
 * checked on variants: the fixture with tests/fixture/map.json as its `map`
 * (the lab's map of 1,000 seeds of 30 s, tests/fixture/lab-map.json, with
 * each cell's share and Wilson interval as RESULTS.md defines them and six
 * hand-chosen points: H4-r2 2 of 5 and H550-r2 5 of 6 agree, H4-r2bud 0 of 5
 * agrees, H4-fb25 2 of 5 does not, H4-brkr2 has no quiet round, H3-ahedge no
 * flood claim; tests/make_map_fixture.py); a quick study's (the points'
 * rounds 4 s, not on the curve); `map` null; and the fixture as it is.
 * The values in the sentences and rows below are by hand from lab-map.json
 * (r2 at 450/s: 295 of 1,000, Wilson 26.8%-32.4%; its trigger medians 16
 * over 295 flooded seeds and 13 over 705 calm ones; brkr2, r2dl, dldown
 * never flood).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtest.h"

#define EN "\xe2\x80\x93"
#define MAPFIX REPORT_DIR "/tests/fixture/map.json"
#define LABMAP REPORT_DIR "/tests/fixture/lab-map.json"
#define FRONT REPORT_DIR "/tests/fixture/front.json"

static char *section_of(const char *html, const char *id)
{
    char key[100];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *a = strstr(html, key), *b = a ? strstr(a + 1, "<h2") : NULL;
    cr_assert(a && b, "no section \"%s\"", id);
    return strndup(a, (size_t)(b - a));
}

static char *table_of(const char *html, const char *cls)
{
    char key[100];
    snprintf(key, sizeof key, "<table class=\"%s\">", cls);
    const char *a = strstr(html, key), *b = a ? strstr(a, "</table>") : NULL;
    cr_assert(a && b, "no table %s", cls);
    return strndup(a, (size_t)(b - a));
}

/* the plain text of the row whose header is th, cells separated by " | " (free it) */
static char *row_of(const char *table, const char *th)
{
    char key[160];
    snprintf(key, sizeof key, "<th scope=\"row\">%s</th>", th);
    const char *a = strstr(table, key), *b = a ? strstr(a, "</tr>") : NULL;
    cr_assert(a && b, "no row %s", th);
    char *h = strndup(a, (size_t)(b - a));
    size_t n = strlen(h);
    char *sep = malloc(n * 2 + 1), *w = sep;
    for (const char *p = h; *p; p++) {
        if (!strncmp(p, "</td>", 5) || !strncmp(p, "</th>", 5)) {
            memcpy(w, " | ", 3);
            w += 3;
        }
        *w++ = *p;
    }
    *w = 0;
    char *plain = rt_plain(sep);
    free(sep);
    free(h);
    return plain;
}

static void no_stray_digits(const char *table)
{
    for (const char *q = strstr(table, "<td"); q; q = strstr(q + 1, "<td")) {
        const char *c = strchr(q, '>') + 1, *e = strstr(c, "</td>");
        cr_assert(e);
        for (const char *p = c; p < e; p++) {
            if (!strncmp(p, "<span data-src=", 15)) {
                p = strstr(p, "</span>") + 6;
                continue;
            }
            cr_expect(!(*p >= '0' && *p <= '9'), "a digit outside a traced value: %.*s", (int)(e - c), c);
        }
    }
}

/* ------------------------------------------------------------ the variants */

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *m = json_load_file(path, 0, &e);
    cr_assert(m, "%s: %s", path, e.text);
    return m;
}

static void with_map(json_t *root) { json_object_set_new(root, "map", load(MAPFIX)); }

static void with_map_null(json_t *root) { json_object_set_new(root, "map", json_null()); }

/* a quick study: the same map, its arms measured in rounds of 4 s (not on the curve, agree null) */
static void with_quick_map(json_t *root)
{
    json_t *m = load(MAPFIX), *p, *q;
    size_t i, k;
    json_array_foreach(json_object_get(m, "policies"), i, p)
    {
        json_array_foreach(json_object_get(p, "points"), k, q)
        {
            if (!json_is_number(json_object_get(q, "n")))
                continue;
            json_object_set_new(q, "seconds", json_integer(4));
            json_object_set_new(q, "sim_k", json_integer(0));
            json_object_set_new(q, "sim_n", json_integer(1000));
            json_object_set_new(q, "on_curve", json_false());
            json_object_set_new(q, "agree", json_null());
        }
    }
    json_object_set_new(root, "map", m);
}

/* the map without its points: what the map tool writes, with the cells' shares and intervals */
static void with_map_no_points(json_t *root)
{
    json_t *m = load(MAPFIX), *p;
    size_t i;
    json_array_foreach(json_object_get(m, "policies"), i, p) json_object_del(p, "points");
    json_object_set_new(root, "map", m);
}

static char *rendered(void (*edit)(json_t *), char **dir, json_t **root_out)
{
    char *w = rt_tmpdir(), *in = rt_write_variant(w, edit), *d = rt_rendered_dir(in);
    char *html = rt_page(d, "report.html");
    if (root_out)
        *root_out = load(in);
    rt_rmrf(w);
    free(w);
    free(in);
    if (dir)
        *dir = d;
    else {
        rt_rmrf(d);
        free(d);
    }
    return html;
}

/* a command's exit status, its stdout and stderr in *out */
static int run_sh(char **out, const char *dir, const char *cmd)
{
    char full[4096], log[600];
    snprintf(log, sizeof log, "%s/cmd.log", dir);
    snprintf(full, sizeof full, "%s > '%s' 2>&1", cmd, log);
    int rc = system(full);
    *out = rt_slurp(log, NULL);
    if (!*out)
        *out = strdup("");
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* the lines of the figure: the distinct colours of its lines 2 points wide
 * (each policy's line and the bars of its points), and its bands (fills at
 * opacity 0.06, only where some seed flooded) */
static int line_colours(const char *svg)
{
    char seen[64][8];
    int n = 0;
    for (const char *q = strstr(svg, "<polyline stroke-width=\"2.000000e+00\" stroke=\"#"); q;
         q = strstr(q + 1, "<polyline stroke-width=\"2.000000e+00\" stroke=\"#")) {
        const char *c = q + strlen("<polyline stroke-width=\"2.000000e+00\" stroke=\"#");
        int known = 0;
        for (int i = 0; i < n; i++)
            known |= !strncmp(seen[i], c, 6);
        if (!known && n < 64) {
            memcpy(seen[n], c, 6);
            seen[n++][6] = 0;
        }
    }
    return n;
}

static void expect_map_figure(const char *svg, int points)
{
    char *t = rt_svg_text(svg);
    cr_expect(strstr(t, "Where each policy tips: the chance of a flood per round, by load"), "no title");
    cr_expect(strstr(t, "1,000 seeds of 30 s a cell, per policy and load (1-1000)"), "no head: %s", t);
    cr_expect(strstr(t, "450/s: the study's load"), "no line at the study's load");
    cr_expect(strstr(t, "1.00%: the hidden capacity's bound"), "no capacity bound");
    cr_expect(strstr(t, "chance of a flood per round of 30 s (log)"), "no y axis title");
    cr_expect(strstr(t, "no seed flooded at any load (circles on one another): brkr2, r2dl, dldown"), "%s", t);
    const char *pol[] = {"r2", "r2b", "r2bj", "r4xf", "hedge", "ahedge", "r2bud", "brkr2", "r2dl", "fb25", "dldown"};
    for (int i = 0; i < 11; i++) {
        char key[64];
        snprintf(key, sizeof key, "%s", pol[i]);
        cr_expect(strstr(t, key), "the legend lacks %s", pol[i]);
    }
    cr_expect_eq(line_colours(svg), 11, "policy lines in %d colours", line_colours(svg));
    /* a band over each stretch of loads where some seed flooded: one for each of the 8 policies that
     * flood somewhere (r2 r2b r2bj r4xf hedge ahedge r2bud fb25, each from its first flood to 600/s),
     * none for brkr2, r2dl, dldown */
    cr_expect_eq(rt_count(svg, "fill-opacity=\"0.060000\""), 8, "bands: %d", rt_count(svg, "fill-opacity=\"0.060000\""));
    /* the measured dots with floods are outlined in black (H4-r2, H550-r2, H4-fb25) */
    cr_expect_eq(rt_count(svg, "stroke=\"#1A1A1A\""), points, "outlined dots: %d", rt_count(svg, "stroke=\"#1A1A1A\""));
    free(t);
}

/* ------------------------------------------------------------ the section */

Test(map, the_section_with_a_map_and_points, .timeout = 120)
{
    char *dir;
    json_t *root;
    char *html = rendered(with_map, &dir, &root), *sec = section_of(html, "map"), *plain = rt_plain(sec);
    const char *says[] = {
        "for each of the 11 policies of the 450/s arms at each of 13 loads from 300 to 600 requests a second",
        "run for 30 s on each of seeds 1-1000 (1,000 a cell;",
        "stays below 1.00% a round, at it and at every lower load",
        "With two retries at once (r2, arm H4-r2) the chance stays below 1.00% up to 325/s (interval 300" EN
        "325/s); at the study's 450/s it is 29.5% a round (26.8%" EN "32.4%).",
        "Policies that do not tip on the grid (no load up to 600/s with a chance of 1.00% or more): brkr2, r2dl, "
        "dldown.",
        "For r2: 16 (295 seeds) in the seeds that flooded, against 13 (705 seeds) in the calm ones.",
        "Of the 4 measured on the curve (their rounds as long as the map's), 3 agree with the map",
        "; 1 does not.",
        "Dotted vertical line: the study's load, 450/s; dashed grey line: 1.00%, the hidden capacity's bound.",
        "drawn as an open circle at its Wilson upper bound",
    };
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        cr_expect(strstr(plain, says[i]), "the section does not say: %s\nit says:\n%s", says[i], plain);
    /* the hidden capacities: 11 rows */
    char *t = table_of(sec, "map");
    cr_expect_eq(rt_count(t, "<tr>") - 1, 11, "%d policies", rt_count(t, "<tr>") - 1);
    no_stray_digits(t);
    struct {
        const char *th, *row;
    } rows[] = {
        {"r2", "r2 | H4-r2 | 325/s | 300" EN "325 | 295 of 1,000 seeds: 29.5% (26.8%" EN "32.4%) | 16 (295 seeds) | 13 "
               "(705 seeds) | "},
        {"r4xf", "r4xf | H4-r4xf | 300/s | 300" EN "325 | 302 of 1,000 seeds: 30.2% (27.4%" EN "33.1%) | 16 (302 "
                 "seeds) | 13 (698 seeds) | "},
        {"r2bud", "r2bud | H4-r2bud | 475/s | 450" EN "475 | 3 of 1,000 seeds: 0.300% (0.102%" EN "0.878%) | 16 (3 "
                  "seeds) | 14 (997 seeds) | "},
        {"brkr2", "brkr2 | H4-brkr2 | does not tip up to 600/s | 600" EN "600 | 0 of 1,000 seeds: 0% (0%" EN
                  "0.383%) | no seed | 14 (1,000 seeds) | "},
        {"fb25", "fb25 | H4-fb25 | 500/s | 475" EN "525 | 1 of 1,000 seeds: 0.100% (0.018%" EN "0.564%) | 16 (1 "
                 "seed) | 14 (999 seeds) | "},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *r = row_of(t, rows[i].th);
        cr_expect_str_eq(r, rows[i].row);
        free(r);
    }
    free(t);
    /* the measured points: 6 rows */
    t = table_of(sec, "map-points");
    cr_expect_eq(rt_count(t, "<tr>") - 1, 6, "%d points", rt_count(t, "<tr>") - 1);
    no_stray_digits(t);
    struct {
        const char *th, *row;
    } pts[] = {
        {"H4-r2", "H4-r2 | r2 | 450/s | 30 s | 2 of 5 (5.27%" EN "85.3%) | 295 of 1,000 | 295 of 1,000 seeds: 29.5% "
                  "(26.8%" EN "32.4%) | yes | yes | "},
        {"H550-r2", "H550-r2 | r2 | 550/s | 30 s | 5 of 6 (35.9%" EN "99.6%) | 830 of 1,000 | 830 of 1,000 seeds: "
                    "83.0% (80.5%" EN "85.2%) | yes | yes | "},
        {"H4-r2bud", "H4-r2bud | r2bud | 450/s | 30 s | 0 of 5 (0%" EN "52.2%) | 3 of 1,000 | 3 of 1,000 seeds: "
                     "0.300% (0.102%" EN "0.878%) | yes | yes | "},
        {"H4-fb25", "H4-fb25 | fb25 | 450/s | 30 s | 2 of 5 (5.27%" EN "85.3%) | 1 of 1,000 | 1 of 1,000 seeds: "
                    "0.100% (0.018%" EN "0.564%) | yes | no | "},
        {"H4-brkr2", "H4-brkr2 | brkr2 | 450/s | 30 s | no quiet round | "},
        {"H3-ahedge", "H3-ahedge | ahedge | 300/s | not measured (no flood claim in the odds) | "},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        char *r = row_of(t, pts[i].th);
        cr_expect_str_eq(r, pts[i].row);
        free(r);
    }
    free(t);
    /* every printed value of the page is the variant's */
    rt_expect_values(html, root, NULL, NULL, NULL);
    /* the figure: inlined, linked, a well-formed SVG with its 11 lines, bands and 3 outlined dots */
    cr_expect(strstr(sec, "<figure id=\"fig-map\">"), "the figure is not inlined");
    char *md = rt_page(dir, "report.md");
    cr_expect(strstr(md, "](figures/map.svg)"), "report.md does not link figures/map.svg");
    cr_expect_eq(rt_count(md, "](figures/"), 16, "figures linked: %d (the 15 and the map)", rt_count(md, "](figures/"));
    char *svg = rt_check_svg(dir, "map");
    expect_map_figure(svg, 3);
    char *st = rt_svg_text(svg);
    cr_expect(strstr(st, "dot and bar: the study's measured rounds of the curve's length"), "no key of the points");
    free(st);
    /* the contents name the section */
    cr_expect(strstr(html, "<li>Where each policy tips</li>"), "the contents lack the map");
    free(svg);
    free(md);
    json_decref(root);
    free(plain);
    free(sec);
    free(html);
    rt_rmrf(dir);
    free(dir);
}

Test(map, points_not_on_the_curve_are_shown_beside_it_only, .timeout = 120)
{
    char *dir;
    json_t *root;
    char *html = rendered(with_quick_map, &dir, &root), *sec = section_of(html, "map"), *plain = rt_plain(sec);
    const char *says[] = {
        "The measured rounds are not of the curve's length: they last 4 s, the map's rounds 30 s",
        "the table shows each arm's measured rounds beside the simulation's chance for rounds of their own length "
        "only.",
        "No measured point is drawn: the study has no measured rounds of the curve's length.",
    };
    for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
        cr_expect(strstr(plain, says[i]), "the section does not say: %s\nit says:\n%s", says[i], plain);
    cr_expect(!strstr(plain, "Of the 0 measured"), "no count of points on the curve");
    char *t = table_of(sec, "map-points"), *r = row_of(t, "H4-r2");
    cr_expect_str_eq(r, "H4-r2 | r2 | 450/s | 4 s | 2 of 5 (5.27%" EN "85.3%) | 0 of 1,000 | not of the curve's "
                        "length | no | not comparable | ");
    free(r);
    no_stray_digits(t);
    free(t);
    rt_expect_values(html, root, NULL, NULL, NULL);
    char *svg = rt_check_svg(dir, "map"), *st = rt_svg_text(svg);
    expect_map_figure(svg, 0);
    cr_expect(strstr(st, "no measured rounds of the curve's length: no measured point drawn"), "%s", st);
    free(st);
    free(svg);
    json_decref(root);
    free(plain);
    free(sec);
    free(html);
    rt_rmrf(dir);
    free(dir);
}

Test(map, without_a_map_one_sentence, .timeout = 120)
{
    char *dir;
    char *html = rendered(with_map_null, &dir, NULL), *plain = rt_plain(html);
    cr_expect(strstr(plain, "This study has no map of floods by load: its registered prediction has none."));
    cr_expect(!strstr(html, "id=\"map\""), "no section heading without a map");
    cr_expect(!strstr(html, "Where each policy tips"), "no word of the map but the sentence");
    char p[700];
    snprintf(p, sizeof p, "%s/figures/map.svg", dir);
    cr_expect_neq(access(p, F_OK), 0, "a map figure without a map");
    free(plain);
    free(html);
    rt_rmrf(dir);
    free(dir);
    /* the fixture, whose verifier predates the map */
    char *d = rt_rendered_dir(FIXTURE);
    html = rt_page(d, "report.html");
    plain = rt_plain(html);
    cr_expect(strstr(plain, "The map of floods by load: not exported (this verified.json has no map member)."));
    cr_expect(!strstr(html, "id=\"map\""));
    free(plain);
    free(html);
    rt_rmrf(d);
    free(d);
}

/* ------------------------------------------------------------ report --map */

Test(map, the_map_mode_draws_the_map_tools_file, .timeout = 120)
{
    char *w = rt_tmpdir(), cmd[2048], fig[700], *out;
    snprintf(fig, sizeof fig, "%s/figures", w);
    mkdir(fig, 0755);
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --figure '%s/figures/map.svg'", REPORT_BIN, LABMAP, w);
    int rc = run_sh(&out, w, cmd);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "report: wrote "), "%s", out);
    free(out);
    char *svg = rt_check_svg(w, "map"), *st = rt_svg_text(svg);
    expect_map_figure(svg, 0);
    cr_expect(strstr(st, "the simulation alone (no measured points in this file)"), "%s", st);
    /* nothing left beside it */
    snprintf(cmd, sizeof cmd, "ls -A '%s/figures'", w);
    rc = run_sh(&out, w, cmd);
    cr_expect_str_eq(out, "map.svg\n");
    free(out);
    free(st);
    /* the same function as the page's: the map without points renders the same figure, byte for byte */
    char *d;
    char *html = rendered(with_map_no_points, &d, NULL);
    char *page_svg = rt_check_svg(d, "map");
    cr_expect_str_eq(page_svg, svg, "the page's map.svg differs from report --map's");
    free(page_svg);
    free(html);
    rt_rmrf(d);
    free(d);
    free(svg);
    rt_rmrf(w);
    free(w);
}

Test(map, the_map_mode_refuses_what_is_not_a_map, .timeout = 60)
{
    char *w = rt_tmpdir(), cmd[2048], p[700], *out;
    /* not a lab-map (verified.json) */
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --figure '%s/map.svg'", REPORT_BIN, FIXTURE, w);
    cr_expect_eq(run_sh(&out, w, cmd), 1, "%s", out);
    cr_expect(strstr(out, "format: not \"lab-map 1\""), "%s", out);
    free(out);
    /* a cell's k above its n */
    json_t *m = load(LABMAP);
    json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(m, "policies"), 2), "cells"), 4),
                        "k", json_integer(1001));
    snprintf(p, sizeof p, "%s/bad.json", w);
    cr_assert_eq(json_dump_file(m, p, 0), 0);
    json_decref(m);
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --figure '%s/map.svg'", REPORT_BIN, p, w);
    cr_expect_eq(run_sh(&out, w, cmd), 1, "%s", out);
    cr_expect(strstr(out, "map.policies.2.cells.4.k: not an integer from 0 to n"), "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/map.svg", w);
    cr_expect_neq(access(p, F_OK), 0, "a figure was written");
    /* a cell without its Wilson interval: the report computes none, it refuses */
    m = load(LABMAP);
    json_object_del(json_array_get(json_object_get(json_array_get(json_object_get(m, "policies"), 1), "cells"), 3),
                    "wilson95");
    snprintf(p, sizeof p, "%s/bad2.json", w);
    cr_assert_eq(json_dump_file(m, p, 0), 0);
    json_decref(m);
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --figure '%s/map.svg'", REPORT_BIN, p, w);
    cr_expect_eq(run_sh(&out, w, cmd), 1, "%s", out);
    cr_expect(strstr(out, "map.policies.1.cells.3.wilson95: not two numbers"), "%s", out);
    free(out);
    /* --map without --figure: usage */
    snprintf(cmd, sizeof cmd, "'%s' --map '%s'", REPORT_BIN, LABMAP);
    cr_expect_eq(run_sh(&out, w, cmd), 2, "%s", out);
    free(out);
    rt_rmrf(w);
    free(w);
}

/* ------------------------------------------------------------ the front page */

Test(map, the_front_page_line_only_with_a_map, .timeout = 60)
{
    char *w = rt_tmpdir(), cmd[2048], p[700], *out;
    json_t *f = load(FRONT);
    json_object_set_new(f, "map", load(MAPFIX));
    snprintf(p, sizeof p, "%s/front.json", w);
    cr_assert_eq(json_dump_file(f, p, 0), 0);
    json_decref(f);
    snprintf(cmd, sizeof cmd, "cd '%s/..' && '%s' --in '%s' --print", REPORT_DIR, README_BIN, p);
    cr_assert_eq(run_sh(&out, w, cmd), 0, "%s", out);
    const char *line =
        "- **Where each policy tips.** Before measuring, the simulation mapped each 450/s policy's chance of a flood "
        "per round of 30 s at loads from 300 to 600 a second (1,000 seeds each; [the figure](results/figures/map.svg)). "
        "The hidden capacity, the highest load up to which that chance stays below 1.00% (in brackets the same on "
        "each load's Wilson 95% bounds, upper and lower), of two retries at once (`r2`): 325/s (300–325); of every "
        "policy: `r2` 325/s (300–325), `r2b` 325/s (300–325), `r2bj` 325/s (300–325), `r4xf` 300/s (300–325), "
        "`hedge` 350/s (350–350), `ahedge` 325/s (325–350), `r2bud` 475/s (450–475), `brkr2` does not tip up to "
        "600/s, `r2dl` does not tip up to 600/s, `fb25` 500/s (475–525), `dldown` does not tip up to 600/s.\n- "
        "**When the store goes down**";
    cr_expect(strstr(out, line), "the front page lacks the map's line:\n%s", out);
    cr_expect(strstr(out, "(results/figures/dials.svg)\n\n![Where each policy tips: the simulated chance of a flood "
                          "per round by load, one line per policy, the measured rounds on top](results/figures/map.svg)\n"),
              "the front page lacks the map's figure after the slowest requests':\n%s", out);
    free(out);
    /* without a map, not a word of it */
    snprintf(cmd, sizeof cmd, "cd '%s/..' && '%s' --in '%s' --print", REPORT_DIR, README_BIN, FRONT);
    cr_assert_eq(run_sh(&out, w, cmd), 0, "%s", out);
    cr_expect(!strstr(out, "tips"), "%s", out);
    free(out);
    rt_rmrf(w);
    free(w);
}
