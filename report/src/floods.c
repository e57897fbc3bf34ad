/* floods.c: floods and rare events: the 450/s section, predicted against
 * measured (with the twin's scores), the odds.  The contract is in floods.h. */
#include "floods.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

enum { MAXR = 64, MAXP = 4096 };


/* ------------------------------------------------------------ reading */

static double num_in(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double run_num(json_t *root, const char *run, const char *key)
{
    return num_in(rd_at(root, "/runs/%s", run), key);
}

/* the rounds of arm's runs in runs (quiet or not), ascending */
static size_t arm_runs(json_t *root, const char *arm, int *out, size_t max)
{
    size_t n = 0;
    const char *key;
    json_t *r;
    json_object_foreach(rd_at(root, "/runs"), key, r)
    {
        const char *a = json_string_value(json_object_get(r, "arm"));
        json_t *rd = json_object_get(r, "round");
        if (!a || strcmp(a, arm) || !json_is_integer(rd) || n >= max)
            continue;
        int v = (int)json_integer_value(rd), k = (int)n++;
        for (; k > 0 && out[k - 1] > v; k--)
            out[k] = out[k - 1];
        out[k] = v;
    }
    return n;
}

/* the 450/s arms without a fault (the arms file's rate and fault), in its order */
static int is_450(const char *arm)
{
    return !strcmp(rd_arm_rate(arm), "450") && !strcmp(rd_arm_fault(arm), "none");
}

/* ------------------------------------------------------------ the choice */

void fl_choose(json_t *root, fl_choice *c)
{
    memset(c, 0, sizeof *c);
    const char *arms[16], *base[2];
    rd_list("flood", arms, NULL, 16);
    rd_list("flood_base", base, NULL, 2);
    for (int i = 0; arms[i] && !c->n; i++) {
        int rounds[MAXR];
        size_t n = rd_rounds(root, arms[i], rounds, MAXR);
        if (!n)
            continue;
        snprintf(c->arm, sizeof c->arm, "%s", arms[i]);
        int fl[MAXR];
        double v[MAXR];
        for (size_t k = 0; k < n; k++) {
            char run[96];
            snprintf(run, sizeof run, "%s-r%d", arms[i], rounds[k]);
            json_t *f = rd_at(root, "/runs/%s/flooded", run);
            if (json_is_boolean(f))
                c->exported = 1;
            fl[k] = json_is_true(f);
            v[k] = run_num(root, run, "standin_share");
            if (!isfinite(v[k]))
                v[k] = 0;
        }
        /* first: a flooded round before any other, then the most stand-ins */
        size_t w = 0;
        for (size_t k = 1; k < n; k++)
            if (fl[k] > fl[w] || (fl[k] == fl[w] && v[k] > v[w]))
                w = k;
        /* calmest: a round that did not flood before one that did, then the fewest stand-ins */
        size_t cm = n;
        for (size_t k = 0; k < n; k++) {
            if (k == w)
                continue;
            if (cm == n || fl[k] < fl[cm] || (fl[k] == fl[cm] && v[k] < v[cm]))
                cm = k;
        }
        c->round[0] = rounds[w];
        c->flooded = fl[w];
        c->n = 1;
        if (cm < n) {
            c->round[1] = rounds[cm];
            c->n = 2;
        }
    }
    if (rd_measured(root, base[0]))
        snprintf(c->base, sizeof c->base, "%s", base[0]);
}

static const char *flood_title(const fl_choice *c)
{
    if (c->n && !c->exported)
        return rd_word("flood_not_exported");
    if (c->n && !c->flooded)
        return rd_word("flood_none_flooded");
    return rd_word("flood");
}

/* ------------------------------------------------------------ flood.svg */

static int series(json_t *root, const char *arm, int round, const char *key, double *x, double *y, int max)
{
    json_t *ps = rd_at(root, "/runs/%s-r%d/per_second", arm, round);
    int n = 0;
    for (size_t i = 0; i < json_array_size(ps) && n + 1 < max; i++) {
        json_t *e = json_array_get(ps, i);
        double s = json_number_value(json_object_get(e, "s"));
        double v = json_number_value(json_object_get(e, key));
        /* a step per second */
        x[n] = s;
        y[n++] = v;
        x[n] = s + 1;
        y[n++] = v;
    }
    return n;
}

/* "<arm>, round 2: flooded from 1 s and drained, 31.0% stand-ins" */
static void column_head(json_t *root, const fl_choice *c, int col, char *out, size_t n)
{
    char run[96], sh[64], from[64];
    int r = c->round[col];
    snprintf(run, sizeof run, "%s-r%d", c->arm, r);
    fmt_num(run_num(root, run, "standin_share"), "pct", sh, sizeof sh);
    json_t *f = rd_at(root, "/runs/%s/flooded", run), *d = rd_at(root, "/runs/%s/drained", run);
    const char *round = rd_word("flood.round"), *standins = rd_word("flood.standins");
    if (!json_is_boolean(f)) {
        snprintf(out, n, "%s, %s %d: %s, %s %s", c->arm, round, r, rd_word("flood.not_exported"), sh, standins);
    } else if (json_is_true(f)) {
        fmt_num(run_num(root, run, "flood_from_s"), "int", from, sizeof from);
        const char *end = json_is_true(d) ? rd_word("flood.drained") : json_is_false(d) ? rd_word("flood.to_end") : "";
        snprintf(out, n, "%s, %s %d: %s %s s%s%s, %s %s", c->arm, round, r, rd_word("flood.from"), from,
                 end[0] ? " " : "", end, sh, standins);
    } else {
        snprintf(out, n, "%s, %s %d: %s, %s %s", c->arm, round, r, rd_word("flood.none"), sh, standins);
    }
}

/* the per-second stand-in share is exported for the drawn runs */
static int share_exported(json_t *root, const fl_choice *c)
{
    for (int col = 0; col < c->n; col++) {
        json_t *e = rd_at(root, "/runs/%s-r%d/per_second/0", c->arm, c->round[col]);
        if (!json_object_get(e, "standin_share"))
            return 0;
    }
    return c->n > 0;
}

static int fig_flood(json_t *root, const char *figdir, const fl_choice *c)
{
    const char *keys[5] = {"arrivals", "lookups_sent", "standins", "busy_slots", "line_length"};
    const char *labels[5] = {rd_word("flood.requests"), rd_word("flood.lookups"), rd_word("flood.standins"),
                             rd_word("flood.busy"), rd_word("flood.line")};
    int share = share_exported(root, c);
    if (share) {
        keys[2] = "standin_share";
        labels[2] = rd_word("flood.standins_share");
    }
    fg_begin(fg_path(figdir, "flood"), 1100, 900);
    fg_title(flood_title(c));
    if (!c->n) {
        fg_panel(0.05, 0.95, 0.1, 0.85, 0, 1, 0, 1);
        const char *arms[16];
        size_t na = rd_list("flood", arms, NULL, 16);
        char names[400] = "";
        for (size_t i = 0; i < na; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", arms[i]);
        fg_text(0.5, 0.5, 0.5, 1.2, FG_GREY, "%s (%s): %s", rd_word("flood.retries"), names, rd_word("flood.nm"));
        return fg_finish(figdir, "flood");
    }
    double *x = calloc(MAXP, sizeof *x), *y = calloc(MAXP, sizeof *y);
    double xmax = 1, ymax[5] = {0};
    const char *who[2] = {c->arm, c->base};
    for (int col = 0; col < c->n; col++)
        for (int k = 0; k < 5; k++)
            for (int w = 0; w < 2; w++) {
                if (!who[w][0])
                    continue;
                int n = series(root, who[w], c->round[col], keys[k], x, y, MAXP);
                for (int i = 0; i < n; i++) {
                    ymax[k] = fmax(ymax[k], y[i]);
                    xmax = fmax(xmax, x[i]);
                }
            }
    double left = 0.12, right = 0.98, gapx = 0.06;
    double cw = (right - left - (c->n - 1) * gapx) / c->n;
    double top = 0.86, bot = 0.09, ph = (top - bot) / 5;
    for (int col = 0; col < c->n; col++) {
        int rd = c->round[col];
        double x0 = left + col * (cw + gapx), x1 = x0 + cw;
        char head[300], run[96];
        column_head(root, c, col, head, sizeof head);
        snprintf(run, sizeof run, "%s-r%d", c->arm, rd);
        double from = json_is_true(rd_at(root, "/runs/%s/flooded", run)) ? run_num(root, run, "flood_from_s") : NAN;
        for (int k = 0; k < 5; k++) {
            double py1 = top - k * ph - 0.012, py0 = top - (k + 1) * ph + 0.012;
            double yt = fg_nice_top(ymax[k] > 5 ? ymax[k] * 1.05 : 5);
            if (k == 3)
                yt = 17;
            if (k == 2 && share)
                yt = 1;
            fg_panel(x0, x1, py0, py1, 0, xmax, 0, yt);
            fg_linaxis_y_n(k == 3 ? 16 : yt, k == 2 && share ? "pct" : "int", 0.8, 2);
            fg_frame();
            if (k == 0)
                fg_mtext("t", 1.0, 0.0, 0.0, 1.0, FG_BLACK, head);
            if (k == 4)
                fg_linaxis_x(0, xmax, xmax > 20 ? 5 : xmax > 5 ? 1 : 0.5, NULL, " s", 0.85);
            if (col == 0)
                fg_mtext("l", 5.5, 0.5, 0.5, 0.9, FG_BLACK, labels[k]);
            if (k == 3 || (k == 2 && share)) {
                fg_color(FG_GREY);
                fg_dash(1);
                fg_line(0, k == 3 ? 16 : 0.5, xmax, k == 3 ? 16 : 0.5);
                fg_dash(0);
            }
            if (c->base[0]) {
                int n = series(root, c->base, rd, keys[k], x, y, MAXP);
                fg_color(FG_GREY);
                fg_width(1.5);
                fg_polyline(n, x, y);
            }
            int n = series(root, c->arm, rd, keys[k], x, y, MAXP);
            fg_color(FG_RED);
            fg_width(2);
            fg_polyline(n, x, y);
            fg_width(1);
            /* the flood's first second, on every panel */
            if (isfinite(from)) {
                fg_color(FG_PURPLE);
                fg_width(2);
                fg_dash(1);
                fg_line(from, 0, from, yt);
                fg_dash(0);
                fg_width(1);
                if (k == 0) {
                    char t[64];
                    fmt_num(from, "int", t, sizeof t);
                    fg_text(from + xmax * 0.015, yt * 0.12, 0, 0.85, FG_PURPLE, "%s %s s", rd_word("flood.onset"), t);
                }
            }
        }
    }
    fg_panel(left, right, 0.0, 0.04, 0, 1, 0, 1);
    char leg[400];
    snprintf(leg, sizeof leg, "%s %s (%s)%s%s%s%s%s; %s%s%s", rd_word("flood.red"), c->arm, rd_word("flood.two"),
             c->base[0] ? "; " : "", c->base[0] ? rd_word("flood.grey") : "", c->base[0] ? " " : "", c->base,
             c->base[0] ? rd_word("flood.grey2") : "", rd_word("flood.legend"), share ? ", " : "",
             share ? rd_word("flood.half") : "");
    fg_text(0.5, 0.35, 0.5, 0.85, FG_BLACK, "%s", leg);
    free(x);
    free(y);
    return fg_finish(figdir, "flood");
}

/* ------------------------------------------------------------ predicted.svg */

typedef struct {
    int any_key;     /* some run carries `predicted` (the verifier exports it) */
    int with;        /* runs with a prediction (an object) */
    int none;        /* runs whose prediction is null */
    int quiet;       /* quiet runs with a predicted and a measured stand-in share */
    int within;      /* of those, within the tolerance */
    int tol_ok;      /* the tolerance is exported */
    double tol;
} pstats;

static void predicted_stats(json_t *root, pstats *s)
{
    memset(s, 0, sizeof *s);
    s->tol_ok = !rd_num(root, &s->tol, "/checks/prediction/standin_share_tolerance");
    const char *key;
    json_t *r;
    json_object_foreach(rd_at(root, "/runs"), key, r)
    {
        json_t *pr = json_object_get(r, "predicted");
        if (!pr)
            continue;
        s->any_key = 1;
        if (!json_is_object(pr)) {
            s->none++;
            continue;
        }
        s->with++;
        double ps = num_in(pr, "standin_share"), ms = num_in(r, "standin_share");
        if (!json_is_true(json_object_get(r, "quiet")) || !isfinite(ps) || !isfinite(ms))
            continue;
        s->quiet++;
        if (s->tol_ok && fabs(ms - ps) <= s->tol + 1e-12)
            s->within++;
    }
}

static const char *ms_label(int e)
{
    static const char *const l[] = {"0.01 ms", "0.1 ms", "1 ms", "10 ms", "100 ms", "1 s", "10 s"};
    return e >= -2 && e <= 4 ? l[e + 2] : NULL;
}

/* a round step for a linear axis from 0 to top, about 5 steps */
static double lin_step(double top)
{
    double raw = top / 5, e = pow(10, floor(log10(raw))), m = raw / e;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * e;
}

/* the dots of one panel: fig "standin_share" or "p99_ms" (log10 of ms);
 * disturbed runs in grey under the quiet ones */
static void dots(json_t *root, const char *fig, int logscale, double lo, double hi)
{
    for (int pass = 0; pass < 2; pass++) {
        const char *key;
        json_t *r;
        json_object_foreach(rd_at(root, "/runs"), key, r)
        {
            json_t *pr = json_object_get(r, "predicted");
            int quiet = json_is_true(json_object_get(r, "quiet"));
            if (!json_is_object(pr) || quiet != pass)
                continue;
            double px = num_in(pr, fig), my = num_in(r, fig);
            if (!isfinite(px) || !isfinite(my))
                continue;
            if (logscale) {
                if (px <= 0 || my <= 0)
                    continue;
                px = log10(px);
                my = log10(my);
            }
            const char *arm = json_string_value(json_object_get(r, "arm"));
            fg_color(quiet ? fg_family_color(rd_arm_family(arm ? arm : key)) : FG_GREY);
            fg_dot(fmin(fmax(px, lo), hi), fmin(fmax(my, lo), hi), 1.0);
        }
    }
}

/* the largest finite value of fig, predicted or measured (0 when none);
 * the smallest positive in *minpos */
static double extent(json_t *root, const char *fig, double *minpos)
{
    double top = 0;
    *minpos = INFINITY;
    const char *key;
    json_t *r;
    json_object_foreach(rd_at(root, "/runs"), key, r)
    {
        json_t *pr = json_object_get(r, "predicted");
        if (!json_is_object(pr))
            continue;
        double v[2] = {num_in(pr, fig), num_in(r, fig)};
        for (int i = 0; i < 2; i++) {
            if (!isfinite(v[i]))
                continue;
            top = fmax(top, v[i]);
            if (v[i] > 0)
                *minpos = fmin(*minpos, v[i]);
        }
    }
    return top;
}

static void diagonal(double lo, double hi)
{
    fg_color(FG_GREY);
    fg_dash(1);
    fg_line(lo, lo, hi, hi);
    fg_dash(0);
}

static void family_legend(json_t *root, double y0, double y1)
{
    const char *names[8];
    for (int i = 0; i < 8; i++) {
        char k[32];
        snprintf(k, sizeof k, "predicted.family%d", i);
        names[i] = rd_word(k);
    }
    int seen[8] = {0};
    const char *key;
    json_t *r;
    json_object_foreach(rd_at(root, "/runs"), key, r)
    {
        const char *arm = json_string_value(json_object_get(r, "arm"));
        if (json_is_object(json_object_get(r, "predicted")))
            seen[rd_arm_family(arm ? arm : key)] = 1;
    }
    const char *nm[9];
    int col[9], n = 0;
    for (int f = 0; f < 8; f++)
        if (seen[f]) {
            nm[n] = names[f];
            col[n++] = fg_family_color(f);
        }
    nm[n] = "disturbed";
    col[n++] = FG_GREY;
    fg_legend(0.06, 0.97, y0, y1, n, nm, col, NULL, 0.8);
}

static int fig_predicted(json_t *root, const char *figdir)
{
    pstats st;
    predicted_stats(root, &st);
    fg_begin(fg_path(figdir, "predicted"), 1000, 600);
    fg_title(rd_word("predicted"));
    const char *empty = st.any_key ? rd_word("predicted.none") : rd_word("predicted.not_exported");
    double y0 = 0.30, y1 = 0.86, minpos;

    /* stand-in share, linear */
    double top = extent(root, "standin_share", &minpos);
    top = fg_nice_top(top > 0 ? top * 1.08 : 0.01);
    fg_panel(0.09, 0.46, y0, y1, 0, top, 0, top);
    fg_linaxis_y(top, "pct", 0.85);
    fg_linaxis_x(0, top, lin_step(top), "pct", "", 0.85);
    fg_frame();
    fg_mtext("t", 0.8, 0.5, 0.5, 1.0, FG_BLACK, rd_word("predicted.1"));
    fg_mtext("l", 5.0, 0.5, 0.5, 0.9, FG_BLACK, rd_word("predicted.2"));
    fg_mtext("b", 3.0, 0.5, 0.5, 0.9, FG_BLACK, rd_word("predicted.3"));
    diagonal(0, top);
    if (st.tol_ok && st.tol > 0 && st.tol < top) {
        fg_color(FG_LIGHTBLUE);
        fg_dash(1);
        fg_line(0, st.tol, top - st.tol, top);
        fg_line(st.tol, 0, top, top - st.tol);
        fg_dash(0);
    }
    dots(root, "standin_share", 0, 0, top);
    if (!st.with)
        fg_text(top / 2, top / 2, 0.5, 1.0, FG_GREY, "%s", empty);

    /* p99, log */
    double hi = extent(root, "p99_ms", &minpos);
    int dlo = isfinite(minpos) ? (int)floor(log10(minpos)) : 0, dhi = hi > 0 ? (int)ceil(log10(hi)) : 3;
    dlo = dlo < -2 ? -2 : dlo;
    dhi = dhi > 4 ? 4 : dhi;
    if (dhi <= dlo)
        dhi = dlo + 1;
    fg_panel(0.58, 0.95, y0, y1, dlo, dhi, dlo, dhi);
    fg_logaxis_x(dlo, dhi, ms_label, 0.85);
    fg_logaxis_y(dlo, dhi, ms_label, 0.85);
    fg_frame();
    fg_mtext("t", 0.8, 0.5, 0.5, 1.0, FG_BLACK, rd_word("predicted.4"));
    fg_mtext("b", 3.0, 0.5, 0.5, 0.9, FG_BLACK, rd_word("predicted.5"));
    diagonal(dlo, dhi);
    dots(root, "p99_ms", 1, dlo, dhi);
    if (!st.with)
        fg_text((dlo + dhi) / 2.0, (dlo + dhi) / 2.0, 0.5, 1.0, FG_GREY, "%s", empty);

    family_legend(root, 0.135, 0.175);
    fg_panel(0.05, 0.97, 0.0, 0.12, 0, 1, 0, 1);
    fg_text(0.5, 0.62, 0.5, 0.85, FG_BLACK, "%d %s", st.with, rd_word("predicted.dots"));
    char tol[64], line[300];
    fmt_num(st.tol, "pp", tol, sizeof tol);
    if (st.tol_ok)
        snprintf(line, sizeof line, "%s %s %s %d %s %d %s", rd_word("predicted.tol1"), tol, rd_word("predicted.tol2"),
                 st.within, rd_word("predicted.of"), st.quiet, rd_word("predicted.tol3"));
    else
        snprintf(line, sizeof line, "%s", rd_word("predicted.no_tol"));
    fg_text(0.5, 0.2, 0.5, 0.85, FG_DARK, "%s", line);
    return fg_finish(figdir, "predicted");
}

int fl_figures(json_t *root, const char *figdir, const fl_choice *c)
{
    int rc = fig_flood(root, figdir, c);
    rc |= fig_predicted(root, figdir);
    return rc;
}

/* ------------------------------------------------------------ odds */

/* the entry of arm's flood: its own (source 0) or an outside observation (1); -1 when none */
static long find_odds(json_t *odds, const char *arm, int outside_obs)
{
    for (size_t i = 0; i < json_array_size(odds); i++) {
        json_t *o = json_array_get(odds, i);
        const char *a = json_string_value(json_object_get(o, "arm"));
        const char *ev = json_string_value(json_object_get(o, "event"));
        if (a && ev && !strcmp(a, arm) && !strcmp(ev, "flooded") &&
            (json_object_get(o, "source") != NULL) == outside_obs)
            return (long)i;
    }
    return -1;
}

/* ------------------------------------------------------------ the sections' choices */

void fl_design(json_t *root, const fl_choice *c, json_t *design)
{
    /* the drawn arm and rounds, and the figure's title */
    json_t *f = json_object();
    if (c->n) {
        json_t *rr = json_array();
        for (int k = 0; k < c->n; k++)
            json_array_append_new(rr, json_integer(c->round[k]));
        json_object_set_new(f, "arm", json_string(c->arm));
        json_object_set_new(f, "rounds", rr);
    }
    if (c->base[0])
        json_object_set_new(f, "base", json_string(c->base));
    json_object_set_new(f, "exported", json_boolean(c->exported));
    json_object_set_new(f, "flooded", json_boolean(c->flooded));
    json_object_set_new(f, "title", json_string(flood_title(c)));
    /* the 450/s arms without a fault, each with the rounds of its runs */
    json_t *rows = json_array();
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    for (size_t i = 0; i < na; i++) {
        if (!is_450(arms[i].name))
            continue;
        int rounds[MAXR];
        size_t nr = arm_runs(root, arms[i].name, rounds, MAXR);
        json_t *rr = json_array();
        for (size_t k = 0; k < nr; k++)
            json_array_append_new(rr, json_integer(rounds[k]));
        json_array_append_new(rows, json_pack("{s:s, s:o}", "name", arms[i].name, "rounds", rr));
    }
    rd_arms_free(arms);
    json_object_set_new(f, "rows", rows);
    json_object_set_new(design, "flood", f);
    /* the predictions: counts, and the quiet runs outside the tolerance (at most 13: 12 named, "and more") */
    pstats st;
    predicted_stats(root, &st);
    json_t *out = json_array();
    const char *key;
    json_t *r;
    json_object_foreach(rd_at(root, "/runs"), key, r)
    {
        json_t *pr = json_object_get(r, "predicted");
        double ps = num_in(pr, "standin_share"), ms = num_in(r, "standin_share");
        if (!st.tol_ok || !json_is_true(json_object_get(r, "quiet")) || !isfinite(ps) || !isfinite(ms))
            continue;
        if (fabs(ms - ps) <= st.tol + 1e-12)
            continue;
        if (json_array_size(out) == 13)
            break;
        json_array_append_new(out, json_string(key));
    }
    json_object_set_new(design, "predicted",
                        json_pack("{s:b, s:i, s:i, s:i, s:i, s:b, s:o}", "any", st.any_key, "with", st.with, "none",
                                  st.none, "quiet", st.quiet, "within", st.within, "tol_ok", st.tol_ok, "outside",
                                  out));
    /* the odds of a flood of the list "flood_odds": its own entry and an outside observation */
    const char *oa[2];
    rd_list("flood_odds", oa, NULL, 2);
    json_t *odds = rd_at(root, "/odds"), *od = json_object();
    long i = find_odds(odds, oa[0], 0), o = find_odds(odds, oa[0], 1);
    char t[32];
    json_object_set_new(od, "arm", json_string(oa[0]));
    json_object_set_new(od, "is_list", json_boolean(json_is_array(odds)));
    if (i >= 0) {
        snprintf(t, sizeof t, "%ld", i);
        json_object_set_new(od, "own", json_string(t));
    }
    if (o >= 0) {
        snprintf(t, sizeof t, "%ld", o);
        json_object_set_new(od, "outside", json_string(t));
    }
    json_object_set_new(design, "odds", od);
    /* the twin's score (only with a `twin` object): whether its Brier score
     * is below both references, and each calibration bin's mean p inside
     * its exact interval (null for an empty bin) */
    json_t *tw = rd_at(root, "/twin");
    if (json_is_object(tw)) {
        double b = num_in(tw, "brier"), yn = num_in(tw, "brier_yes_no"), bo = num_in(tw, "brier_odds");
        json_t *d = json_object(), *inside = json_array(), *bin;
        json_object_set_new(d, "better",
                            isfinite(b) && isfinite(yn) && isfinite(bo) ? json_boolean(b < yn && b < bo) : json_null());
        size_t k;
        json_array_foreach(json_object_get(tw, "calibration"), k, bin)
        {
            json_t *cp = json_object_get(bin, "cp95");
            double m = num_in(bin, "mean_p"), lo = json_number_value(json_array_get(cp, 0)),
                   hi = json_number_value(json_array_get(cp, 1));
            json_array_append_new(inside, isfinite(m) && json_array_size(cp) == 2 ? json_boolean(lo <= m && m <= hi)
                                                                                   : json_null());
        }
        json_object_set_new(d, "inside", inside);
        json_object_set_new(design, "twin", d);
    }
}
