/* map.c: where each policy tips: the map of floods by load, its figure and
 * the section's choices.  The contract is in map.h. */
#include "map.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

enum { MAXPOL = 32, MAXLOAD = 64, MAXPT = 64 };

/* z of a two-sided 95% interval, as pipeline/RESULTS.md's odds and map */

/* the policies' colours, in the order of arm-lists.tsv's list "map" */
static const int MAP_COL[] = {FG_RED,   FG_ORANGE, FG_BROWN, FG_PINK,  FG_BLUE,  FG_LIGHTBLUE, FG_PURPLE,
                              FG_TEAL,  FG_OLIVE,  FG_GREEN, FG_DARK,  FG_BLACK, FG_GREY};
enum { NCOL = sizeof MAP_COL / sizeof MAP_COL[0] };

/* ------------------------------------------------------------ reading */

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double item(json_t *list, size_t i)
{
    json_t *v = json_array_get(list, i);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* a cell's k, n, share and Wilson 95% interval, as the file gives them
 * (the report computes no statistic: verified.json's, or the map tool's) */
typedef struct {
    double load, k, n, share, lo, hi;
} cell;

static void read_cell(json_t *c, cell *o)
{
    o->load = num(c, "load");
    o->k = num(c, "k");
    o->n = num(c, "n");
    o->share = num(c, "share");
    json_t *w = json_object_get(c, "wilson95");
    o->lo = item(w, 0);
    o->hi = item(w, 1);
}

/* ------------------------------------------------------------ the check */

static int bad(char *err, size_t el, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t el, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, el, fmt, ap);
    va_end(ap);
    return -1;
}

int mp_check(json_t *map, char *err, size_t el)
{
    if (!json_is_object(map))
        return bad(err, el, "map: not an object");
    json_t *loads = json_object_get(map, "loads"), *pols = json_object_get(map, "policies");
    if (!json_is_array(loads) || !json_array_size(loads) || json_array_size(loads) > MAXLOAD)
        return bad(err, el, "map.loads: not a list of 1 to %d loads", MAXLOAD);
    for (size_t i = 0; i < json_array_size(loads); i++)
        if (!json_is_number(json_array_get(loads, i)) || (i && item(loads, i) <= item(loads, i - 1)))
            return bad(err, el, "map.loads.%zu: not a number above the one before", i);
    if (!json_is_number(json_object_get(map, "seconds")))
        return bad(err, el, "map.seconds: not a number");
    if (!json_is_array(pols) || !json_array_size(pols) || json_array_size(pols) > MAXPOL)
        return bad(err, el, "map.policies: not a list of 1 to %d policies", MAXPOL);
    const char *opt[] = {"capacity_p", "trigger_load"};
    for (int i = 0; i < 2; i++) {
        json_t *v = json_object_get(map, opt[i]);
        if (v && !json_is_number(v))
            return bad(err, el, "map.%s: not a number", opt[i]);
    }
    size_t i;
    json_t *p;
    json_array_foreach(pols, i, p)
    {
        if (!json_is_string(json_object_get(p, "policy")))
            return bad(err, el, "map.policies.%zu.policy: not a string", i);
        json_t *cs = json_object_get(p, "cells");
        if (json_array_size(cs) != json_array_size(loads))
            return bad(err, el, "map.policies.%zu.cells: not one cell per load of map.loads", i);
        for (size_t j = 0; j < json_array_size(cs); j++) {
            json_t *c = json_array_get(cs, j), *w = json_object_get(c, "wilson95");
            if (num(c, "load") != item(loads, j))
                return bad(err, el, "map.policies.%zu.cells.%zu.load: not map.loads.%zu", i, j, j);
            if (!json_is_integer(json_object_get(c, "n")) || num(c, "n") < 1)
                return bad(err, el, "map.policies.%zu.cells.%zu.n: not an integer of at least 1", i, j);
            if (!json_is_integer(json_object_get(c, "k")) || num(c, "k") < 0 || num(c, "k") > num(c, "n"))
                return bad(err, el, "map.policies.%zu.cells.%zu.k: not an integer from 0 to n", i, j);
            if (!json_is_number(json_object_get(c, "share")))
                return bad(err, el, "map.policies.%zu.cells.%zu.share: not a number", i, j);
            if (!(json_array_size(w) == 2 && json_is_number(json_array_get(w, 0)) &&
                  json_is_number(json_array_get(w, 1))))
                return bad(err, el, "map.policies.%zu.cells.%zu.wilson95: not two numbers", i, j);
        }
        json_t *pts = json_object_get(p, "points");
        if (pts && !json_is_array(pts))
            return bad(err, el, "map.policies.%zu.points: not a list", i);
        if (json_array_size(pts) > MAXPT)
            return bad(err, el, "map.policies.%zu.points: more than %d", i, MAXPT);
    }
    return 0;
}

/* ------------------------------------------------------------ the figure */

static const char *pct_label(int e)
{
    static const char *const l[] = {"0.0001%", "0.001%", "0.01%", "0.1%", "1%", "10%", "100%"};
    return e >= -6 && e <= 0 ? l[e + 6] : NULL;
}

/* each policy's colour: its template's place in the list "map", else the next one left */
static void colours(json_t *pols, int *col)
{
    const char *arms[NCOL + 1];
    size_t na = rd_list("map", arms, NULL, NCOL);
    int used[NCOL] = {0};
    size_t np = json_array_size(pols);
    for (size_t i = 0; i < np; i++) {
        const char *t = json_string_value(json_object_get(json_array_get(pols, i), "template"));
        col[i] = -1;
        for (size_t k = 0; t && k < na; k++)
            if (!strcmp(arms[k], t) && !used[k]) {
                col[i] = (int)k;
                used[k] = 1;
            }
    }
    for (size_t i = 0; i < np; i++) {
        if (col[i] >= 0)
            continue;
        int k = 0;
        while (k < NCOL - 1 && used[k])
            k++;
        col[i] = k;
        used[k] = 1;
    }
    for (size_t i = 0; i < np; i++)
        col[i] = MAP_COL[col[i]];
}

/* log10 of v, no lower than lo */
static double ylog(double v, double lo)
{
    return v > 0 ? fmax(log10(v), lo) : lo;
}

/* a measured point drawn on the curve: on_curve true and rounds measured */
static int drawn_point(json_t *q)
{
    return json_is_true(json_object_get(q, "on_curve")) && num(q, "n") >= 1 && isfinite(num(q, "k")) &&
           isfinite(num(q, "load"));
}

int mp_draw(json_t *map, const char *path)
{
    json_t *loads = json_object_get(map, "loads"), *pols = json_object_get(map, "policies");
    size_t nl = json_array_size(loads), np = json_array_size(pols);
    double xlo = item(loads, 0), xhi = item(loads, nl - 1);
    if (!(xhi > xlo))
        xhi = xlo + 100;
    static cell cells[MAXPOL][MAXLOAD];
    int shared[MAXLOAD] = {0}, placed[MAXLOAD] = {0};
    int col[MAXPOL];
    colours(pols, col);

    /* the lowest decade: at most 10^-3, low enough for every share and bound drawn (at most 10^-6) */
    double minpos = 1, nmin = INFINITY, nmax = 0;
    for (size_t i = 0; i < np; i++) {
        json_t *p = json_array_get(pols, i);
        for (size_t j = 0; j < nl; j++) {
            cell *c = &cells[i][j];
            read_cell(json_array_get(json_object_get(p, "cells"), j), c);
            double v = c->k > 0 ? c->share : c->hi;
            if (v > 0)
                minpos = fmin(minpos, v);
            nmin = fmin(nmin, c->n);
            nmax = fmax(nmax, c->n);
        }
        size_t k;
        json_t *q;
        json_array_foreach(json_object_get(p, "points"), k, q)
        {
            if (!drawn_point(q))
                continue;
            double v = num(q, "k") > 0 ? num(q, "k") / num(q, "n") : item(json_object_get(q, "cp95"), 1);
            if (v > 0)
                minpos = fmin(minpos, v);
        }
    }
    /* a decade more when the lowest value would sit on the axis's edge */
    int ylo = (int)floor(log10(minpos) - 0.15);
    ylo = ylo > -3 ? -3 : ylo < -6 ? -6 : ylo;

    int W = 1000, H = 740;
    fg_begin(path, W, H);
    fg_title(rd_word("map"));
    double pad = (xhi - xlo) * 0.03, wx0 = xlo - pad, wx1 = xhi + pad;
    double px0 = 0.09, px1 = 0.97, py0 = 0.33, py1 = 0.88;
    fg_panel(px0, px1, py0, py1, wx0, wx1, ylo, 0);
    fg_logaxis_y(ylo, 0, pct_label, 0.85);
    double span = xhi - xlo, step = span >= 200 ? 50 : span >= 80 ? 25 : span >= 40 ? 10 : 5;
    fg_linaxis_x(xlo, xhi, step, NULL, "", 0.85);
    fg_mtext("b", 2.8, 0.5, 0.5, 0.9, FG_BLACK, rd_word("map.x"));
    char secs[64], ytitle[300], head[400], nlo[64], nhi[64];
    fmt_num(num(map, "seconds"), "int", secs, sizeof secs);
    snprintf(ytitle, sizeof ytitle, "%s %s s %s", rd_word("map.y1"), secs, rd_word("map.y2"));
    fg_mtext("l", 5.0, 0.5, 0.5, 0.9, FG_BLACK, ytitle);
    fmt_num(nmin, "int", nlo, sizeof nlo);
    fmt_num(nmax, "int", nhi, sizeof nhi);
    const char *seeds = json_string_value(json_object_get(map, "seeds"));
    if (nmin == nmax)
        snprintf(head, sizeof head, "%s %s %s s %s%s%s%s", nlo, rd_word("map.seeds"), secs, rd_word("map.cell"),
                 seeds ? " (" : "", seeds ? seeds : "", seeds ? ")" : "");
    else
        snprintf(head, sizeof head, "%s %s %s %s %s s %s%s%s%s", nlo, rd_word("map.to"), nhi, rd_word("map.seeds"),
                 secs, rd_word("map.cell"), seeds ? " (" : "", seeds ? seeds : "", seeds ? ")" : "");
    fg_mtext("t", 0.6, 0.0, 0.0, 0.85, FG_BLACK, head);

    /* the bands first, light, so that every line shows through them; only
     * over loads where some seed flooded (a load with none has its open
     * circle at the upper bound, which says all the band would) */
    for (size_t i = 0; i < np; i++)
        for (size_t j0 = 0; j0 < nl;) {
            if (cells[i][j0].k <= 0) {
                j0++;
                continue;
            }
            size_t j1 = j0;
            while (j1 + 1 < nl && cells[i][j1 + 1].k > 0)
                j1++;
            size_t m = j1 - j0 + 1;
            double bx[2 * MAXLOAD], by[2 * MAXLOAD];
            for (size_t j = 0; j < m; j++) {
                bx[j] = cells[i][j0 + j].load;
                by[j] = ylog(cells[i][j0 + j].hi, ylo);
                bx[2 * m - 1 - j] = cells[i][j0 + j].load;
                by[2 * m - 1 - j] = ylog(cells[i][j0 + j].lo, ylo);
            }
            if (m > 1)
                fg_fill_alpha((int)(2 * m), bx, by, col[i], 0.06);
            j0 = j1 + 1;
        }
    /* the capacity's bound and the study's load */
    double cap = num(map, "capacity_p"), trig = num(map, "trigger_load");
    if (cap > pow(10, ylo) && cap < 1) {
        char t[64];
        fmt_num(cap, "pct", t, sizeof t);
        fg_color(FG_GREY);
        fg_width(1.2);
        fg_dash(1);
        fg_line(wx0, log10(cap), wx1, log10(cap));
        fg_dash(0);
        fg_width(1);
        fg_text(wx1 - pad * 0.3, log10(cap) + (0 - ylo) * 0.015, 1.0, 0.8, FG_GREY, "%s: %s", t, rd_word("map.cap"));
    }
    if (trig >= wx0 && trig <= wx1) {
        char t[64];
        fmt_num(trig, "int", t, sizeof t);
        fg_color(FG_DARK);
        fg_width(1.5);
        fg_dotted(1);
        fg_line(trig, ylo, trig, 0);
        fg_dotted(0);
        fg_width(1);
        char lab[200];
        snprintf(lab, sizeof lab, "%s/s: %s", t, rd_word("map.trigger"));
        fg_mtext("t", 0.6, (trig - wx0) / (wx1 - wx0), 0.5, 0.85, FG_DARK, lab);
    }
    /* the lines: solid between cells with floods, dashed to a cell without */
    for (size_t i = 0; i < np; i++) {
        fg_color(col[i]);
        fg_width(2);
        for (size_t j = 0; j + 1 < nl; j++) {
            cell *a = &cells[i][j], *b = &cells[i][j + 1];
            int open = a->k == 0 || b->k == 0;
            fg_dash(open);
            fg_line(a->load, ylog(a->k > 0 ? a->share : a->hi, ylo), b->load, ylog(b->k > 0 ? b->share : b->hi, ylo));
        }
        fg_dash(0);
        fg_width(1.5);
        for (size_t j = 0; j < nl; j++)
            if (cells[i][j].k == 0)
                fg_ring(cells[i][j].load, ylog(cells[i][j].hi, ylo), 0.9);
        fg_width(1);
    }
    /* the measured points on the curve, on top, a little apart when they share a load */
    int npts = 0;
    for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < np; i++) {
        size_t k;
        json_t *q;
        json_array_foreach(json_object_get(json_array_get(pols, i), "points"), k, q)
        {
            if (!drawn_point(q))
                continue;
            /* pass 0 counts the points at each load, pass 1 draws them side by side */
            double load = num(q, "load");
            size_t at = 0;
            while (at + 1 < nl && item(loads, at) != load)
                at++;
            if (pass == 0) {
                shared[at]++;
                continue;
            }
            npts++;
            double x = load + (placed[at]++ - (shared[at] - 1) / 2.0) * span * 0.015;
            json_t *cp = json_object_get(q, "cp95");
            double lo = ylog(item(cp, 0), ylo), hi = ylog(item(cp, 1), ylo), kk = num(q, "k");
            double y = kk > 0 ? ylog(kk / num(q, "n"), ylo) : hi;
            fg_color(col[i]);
            fg_width(2);
            if (isfinite(item(cp, 0)) && isfinite(item(cp, 1))) {
                double cw = span * 0.004;
                fg_line(x, lo, x, hi);
                fg_line(x - cw, lo, x + cw, lo);
                fg_line(x - cw, hi, x + cw, hi);
            }
            if (kk > 0) {
                fg_dot(x, y, 1.25);
                fg_color(FG_BLACK);
                fg_width(1);
                fg_ring(x, y, 1.25);
            } else {
                fg_width(1);
                fg_color(FG_WHITE);
                fg_dot(x, y, 1.25);
                fg_color(col[i]);
                fg_width(1.5);
                fg_ring(x, y, 1.25);
            }
            fg_width(1);
        }
    }
    fg_frame();

    /* the legend: the policies in the map's order, two rows */
    const char *names[MAXPOL];
    for (size_t i = 0; i < np; i++)
        names[i] = json_string_value(json_object_get(json_array_get(pols, i), "policy"));
    int row1 = (int)(np + 1) / 2, row2 = (int)np - row1;
    double lw = (px1 - px0) / (row1 > 0 ? row1 : 1);
    fg_legend(px0, px0 + lw * row1, 0.19, 0.225, row1, names, col, NULL, 0.85);
    if (row2 > 0)
        fg_legend(px0, px0 + lw * row2, 0.145, 0.18, row2, names + row1, col + row1, NULL, 0.85);
    /* the key, and the policies no seed flooded at any load (their circles lie on one another) */
    char flat[600] = "";
    int nflat = 0;
    for (size_t i = 0; i < np; i++) {
        int any = 0;
        for (size_t j = 0; j < nl; j++)
            any |= cells[i][j].k > 0;
        if (!any)
            snprintf(flat + strlen(flat), sizeof flat - strlen(flat), "%s%s", nflat++ ? ", " : "", names[i]);
    }
    fg_panel(0.03, 0.99, 0.0, 0.115, 0, 1, 0, 1);
    fg_text(0.5, 0.80, 0.5, 0.8, FG_BLACK, "%s", rd_word("map.key1"));
    int has_points = json_object_get(json_array_get(pols, 0), "points") != NULL;
    fg_text(0.5, 0.50, 0.5, 0.8, FG_BLACK, "%s",
            !has_points ? rd_word("map.key3") : npts ? rd_word("map.key2") : rd_word("map.no_points"));
    if (nflat)
        fg_text(0.5, 0.20, 0.5, 0.8, FG_DARK, "%s: %s", rd_word("map.flat"), flat);
    if (fg_end()) {
        fprintf(stderr, "report: cannot write the figure %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int mp_figures(json_t *root, const char *figdir)
{
    json_t *map = json_object_get(root, "map");
    if (!json_is_object(map))
        return 0;
    char err[512];
    if (mp_check(map, err, sizeof err)) {
        fprintf(stderr, "report: verified.json: %s\n", err);
        return -1;
    }
    return mp_draw(map, fg_path(figdir, "map"));
}

/* ------------------------------------------------------------ the section's choices */

static json_t *index_str(long i)
{
    char t[32];
    snprintf(t, sizeof t, "%ld", i);
    return json_string(t);
}

void mp_design(json_t *root, json_t *design)
{
    json_t *map = json_object_get(root, "map");
    if (!json_is_object(map))
        return;
    json_t *d = json_object(), *loads = json_object_get(map, "loads"), *cellidx = json_array(), *no_tip = json_array();
    double trig = num(map, "trigger_load");
    for (size_t j = 0; j < json_array_size(loads); j++)
        if (item(loads, j) == trig) {
            json_object_set_new(d, "tcell", index_str((long)j));
            break;
        }
    int points = 0, claimed = 0, on = 0, off = 0, agree = 0, disagree = 0;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(map, "policies"), i, p)
    {
        json_t *pc = json_array();
        if (json_is_false(rd_at(p, "/hidden_capacity/tips")))
            json_array_append_new(no_tip, index_str((long)i));
        size_t k;
        json_t *q;
        json_array_foreach(json_object_get(p, "points"), k, q)
        {
            long at = -1;
            for (size_t j = 0; j < json_array_size(loads) && at < 0; j++)
                if (item(loads, j) == num(q, "load"))
                    at = (long)j;
            json_array_append_new(pc, at >= 0 ? index_str(at) : json_string("none"));
            points++;
            if (!(num(q, "n") >= 1))
                continue;
            claimed++;
            if (json_is_true(json_object_get(q, "on_curve"))) {
                on++;
                agree += json_is_true(json_object_get(q, "agree"));
                disagree += json_is_false(json_object_get(q, "agree"));
            } else {
                if (!off++)
                    json_object_set_new(d, "off_at", json_pack("{s:o, s:o}", "p", index_str((long)i), "q",
                                                               index_str((long)k)));
            }
        }
        json_array_append_new(cellidx, pc);
    }
    json_object_set_new(d, "cell", cellidx);
    json_object_set_new(d, "no_tip", no_tip);
    json_object_set_new(d, "points", json_integer(points));
    json_object_set_new(d, "claimed", json_integer(claimed));
    json_object_set_new(d, "on", json_integer(on));
    json_object_set_new(d, "off", json_integer(off));
    json_object_set_new(d, "agree", json_integer(agree));
    json_object_set_new(d, "disagree", json_integer(disagree));
    json_object_set_new(design, "map", d);
}
