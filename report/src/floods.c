/* floods.c: floods and rare events: the 450/s section, predicted against measured, the odds.  The contract is in floods.h. */
#include "floods.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

enum { MAXR = 64, MAXP = 4096 };

#define EN "\xe2\x80\x93"

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

/* the run carries the field (a value or null): the verifier exports it */
static int run_has(json_t *root, const char *run, const char *key)
{
    return json_object_get(rd_at(root, "/runs/%s", run), key) != NULL;
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
        return "450 a second, second by second: the round with the most stand-ins and the calmest";
    if (c->n && !c->flooded)
        return "450 a second, second by second: no round flooded; the most stand-ins and the calmest";
    return "450 a second, second by second: a round that flooded and the calmest";
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
    if (!json_is_boolean(f)) {
        snprintf(out, n, "%s, round %d: flood not exported, %s stand-ins", c->arm, r, sh);
    } else if (json_is_true(f)) {
        fmt_num(run_num(root, run, "flood_from_s"), "int", from, sizeof from);
        snprintf(out, n, "%s, round %d: flooded from %s s%s, %s stand-ins", c->arm, r, from,
                 json_is_true(d) ? " and drained" : json_is_false(d) ? " to the end" : "", sh);
    } else {
        snprintf(out, n, "%s, round %d: no flood, %s stand-ins", c->arm, r, sh);
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
    const char *labels[5] = {"requests", "lookups sent", "stand-ins", "busy slots", "in line"};
    int share = share_exported(root, c);
    if (share) {
        keys[2] = "standin_share";
        labels[2] = "stand-ins, share";
    }
    fg_begin(fg_path(figdir, "flood"), 1100, 900);
    fg_title(flood_title(c));
    if (!c->n) {
        fg_panel(0.05, 0.95, 0.1, 0.85, 0, 1, 0, 1);
        fg_text(0.5, 0.5, 0.5, 1.2, FG_GREY, "retries at 450/s (H4-r2, H4-r2b, H4-r2bj): not measured");
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
                    fg_text(from + xmax * 0.015, yt * 0.12, 0, 0.85, FG_PURPLE, "flood from %s s", t);
                }
            }
        }
    }
    fg_panel(left, right, 0.0, 0.04, 0, 1, 0, 1);
    char leg[400];
    snprintf(leg, sizeof leg, "red: %s (two retries)%s%s%s; purple: the flood's first second; dashed: the store's 16 slots%s",
             c->arm, c->base[0] ? "; grey: " : "", c->base, c->base[0] ? " (no retries), same round" : "",
             share ? ", half the requests" : "");
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
    static const char *const names[8] = {"no limit", "limit, error", "limit, stand-in", "deadline",
                                         "passed down", "retries", "asking twice", "other"};
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
    fg_title("Predicted before measuring against measured: one dot per run");
    const char *empty = st.any_key ? "no run has a prediction" : "predicted figures not exported";
    double y0 = 0.30, y1 = 0.86, minpos;

    /* stand-in share, linear */
    double top = extent(root, "standin_share", &minpos);
    top = fg_nice_top(top > 0 ? top * 1.08 : 0.01);
    fg_panel(0.09, 0.46, y0, y1, 0, top, 0, top);
    fg_linaxis_y(top, "pct", 0.85);
    fg_linaxis_x(0, top, lin_step(top), "pct", "", 0.85);
    fg_frame();
    fg_mtext("t", 0.8, 0.5, 0.5, 1.0, FG_BLACK, "stand-in share");
    fg_mtext("l", 5.0, 0.5, 0.5, 0.9, FG_BLACK, "measured");
    fg_mtext("b", 3.0, 0.5, 0.5, 0.9, FG_BLACK, "predicted (the simulation, before measuring)");
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
    fg_mtext("t", 0.8, 0.5, 0.5, 1.0, FG_BLACK, "slowest 1 in 100 (p99, log)");
    fg_mtext("b", 3.0, 0.5, 0.5, 0.9, FG_BLACK, "predicted (the simulation, before measuring)");
    diagonal(dlo, dhi);
    dots(root, "p99_ms", 1, dlo, dhi);
    if (!st.with)
        fg_text((dlo + dhi) / 2.0, (dlo + dhi) / 2.0, 0.5, 1.0, FG_GREY, "%s", empty);

    family_legend(root, 0.135, 0.175);
    fg_panel(0.05, 0.97, 0.0, 0.12, 0, 1, 0, 1);
    fg_text(0.5, 0.62, 0.5, 0.85, FG_BLACK,
            "%d runs with a prediction, one dot each; dashed grey: the diagonal, predicted = measured", st.with);
    char tol[64], line[300];
    fmt_num(st.tol, "pp", tol, sizeof tol);
    if (st.tol_ok)
        snprintf(line, sizeof line,
                 "dashed blue: the tolerance for a quiet machine, %s either side: %d of %d quiet runs within it", tol,
                 st.within, st.quiet);
    else
        snprintf(line, sizeof line, "the stand-in share's tolerance for a quiet machine: tolerance not stated");
    fg_text(0.5, 0.2, 0.5, 0.85, FG_DARK, "%s", line);
    return fg_finish(figdir, "predicted");
}

int fl_figures(json_t *root, const char *figdir, const fl_choice *c)
{
    int rc = fig_flood(root, figdir, c);
    rc |= fig_predicted(root, figdir);
    return rc;
}

/* ------------------------------------------------------------ the 450/s section */

/* a run's field in format kind, or "not exported" when the run lacks it */
static void val(page *p, json_t *root, const char *kind, const char *run, const char *key)
{
    if (run_has(root, run, key))
        pg_v(p, kind, "/runs/%s/%s", run, key);
    else
        pg_t(p, "not exported");
}

/* "yes, from 1 s" / "no" / "not exported" for a flood at base (a run's
 * path, or its prediction's) */
static void flood_words(page *p, json_t *root, const char *base)
{
    json_t *f = rd_at(root, "%s/flooded", base);
    if (!json_is_boolean(f)) {
        pg_t(p, "not exported");
        return;
    }
    pg_v(p, "yn", "%s/flooded", base);
    if (json_is_true(f)) {
        pg_t(p, ", from ");
        pg_v(p, "int", "%s/flood_from_s", base);
        pg_t(p, " s");
    }
}

/* the prediction of a run: 1 when it has one (an object), else the words */
static int has_prediction(page *p, json_t *root, const char *run)
{
    json_t *pr = rd_at(root, "/runs/%s/predicted", run);
    if (json_is_object(pr))
        return 1;
    pg_t(p, run_has(root, run, "predicted") ? "no prediction" : "not exported");
    return 0;
}

/* one sentence on a drawn round: its flood, line, freezes, false timeouts, prediction */
static void say_round(page *p, json_t *root, const char *arm, int r, const char *which)
{
    char run[96], base[120];
    snprintf(run, sizeof run, "%s-r%d", arm, r);
    pg_t(p, " %s (round ", which);
    pg_v(p, "int", "/runs/%s/round", run);
    pg_t(p, ")");
    json_t *f = rd_at(root, "/runs/%s/flooded", run), *d = rd_at(root, "/runs/%s/drained", run);
    if (json_is_true(f)) {
        pg_t(p, " flooded from second ");
        pg_v(p, "int", "/runs/%s/flood_from_s", run);
        pg_t(p, "%s", json_is_true(d)    ? " and drained before the run ended"
                      : json_is_false(d) ? " and lasted to the end of the run"
                                         : "");
    } else {
        pg_t(p, " did not flood");
    }
    if (run_has(root, run, "longest_line") && run_has(root, run, "freezes") && run_has(root, run, "freeze_share") &&
        run_has(root, run, "false_timeouts")) {
        pg_t(p, "; its longest line was ");
        val(p, root, "int", run, "longest_line");
        pg_t(p, " lookups; it drew ");
        val(p, root, "int", run, "freezes");
        pg_t(p, " freezes (");
        val(p, root, "pct", run, "freeze_share");
        pg_t(p, " of the lookups the store received) and gave up on ");
        val(p, root, "int", run, "false_timeouts");
        pg_t(p, " lookups slow from queueing, not frozen (false timeouts).");
    } else {
        pg_t(p, "; its longest line, freezes and false timeouts: not exported.");
    }
    pg_t(p, " The simulation had predicted ");
    if (has_prediction(p, root, run)) {
        snprintf(base, sizeof base, "/runs/%s/predicted", run);
        json_t *pf = rd_at(root, "%s/flooded", base);
        if (json_is_true(pf)) {
            pg_t(p, "a flood from second ");
            pg_v(p, "int", "%s/flood_from_s", base);
        } else if (json_is_false(pf)) {
            pg_t(p, "no flood");
        } else {
            pg_t(p, "a flood or none: not exported");
        }
        pg_t(p, " and ");
        pg_v(p, "pct", "%s/standin_share", base);
        pg_t(p, " stand-ins");
    }
    pg_t(p, ".");
}

static void flood_table(page *p, json_t *root)
{
    pg_h(p, 3, "flood-rounds", "The 450/s rounds, predicted and measured");
    pg_p_begin(p, NULL);
    pg_t(p, "Every run of every arm at 450 a second whose store does not fail. Predicted: the simulation's "
            "figures for the same round (same arrivals and dice), written before the first timed run. A "
            "freeze is a lookup whose drawn wait was a second or more; a false timeout is a lookup given up on "
            "although its own wait was shorter than the time waited (queueing, not a freeze). \"Not exported\": "
            "the verifier did not write the field.");
    pg_p_end(p);
    const char *h[] = {"run",          "flood, predicted",  "flood, measured", "drained",      "stand-ins, predicted",
                       "stand-ins, measured", "freezes (share)", "false timeouts", "longest line"};
    tb_begin(p, "floods", 9, h);
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    for (size_t i = 0; i < na; i++) {
        const char *a = arms[i].name;
        if (!is_450(a))
            continue;
        int rounds[MAXR];
        size_t nr = arm_runs(root, a, rounds, MAXR);
        if (!nr) {
            tb_row(p);
            tb_th(p, "%s", a);
            tb_td_span(p, 8, "l");
            pg_nm(p);
            tb_td_end(p);
            continue;
        }
        for (size_t k = 0; k < nr; k++) {
            char run[96], base[120];
            snprintf(run, sizeof run, "%s-r%d", a, rounds[k]);
            tb_row(p);
            tb_th(p, "%s%s", run, json_is_false(rd_at(root, "/runs/%s/quiet", run)) ? " (disturbed)" : "");
            tb_td_begin(p, "l");
            snprintf(base, sizeof base, "/runs/%s/predicted", run);
            if (has_prediction(p, root, run))
                flood_words(p, root, base);
            tb_td_end(p);
            tb_td_begin(p, "l");
            snprintf(base, sizeof base, "/runs/%s", run);
            flood_words(p, root, base);
            tb_td_end(p);
            tb_td_begin(p, "l");
            json_t *d = rd_at(root, "/runs/%s/drained", run);
            if (json_is_boolean(d))
                pg_v(p, "yn", "/runs/%s/drained", run);
            else
                pg_t(p, run_has(root, run, "drained") ? "no flood" : "not exported");
            tb_td_end(p);
            tb_td_begin(p, NULL);
            if (has_prediction(p, root, run))
                pg_v(p, "pct", "/runs/%s/predicted/standin_share", run);
            tb_td_end(p);
            tb_td_begin(p, NULL);
            pg_v(p, "pct", "/runs/%s/standin_share", run);
            tb_td_end(p);
            tb_td_begin(p, NULL);
            val(p, root, "int", run, "freezes");
            if (run_has(root, run, "freeze_share")) {
                pg_t(p, " (");
                pg_v(p, "pct", "/runs/%s/freeze_share", run);
                pg_t(p, ")");
            }
            tb_td_end(p);
            tb_td_begin(p, NULL);
            val(p, root, "int", run, "false_timeouts");
            tb_td_end(p);
            tb_td_begin(p, NULL);
            val(p, root, "int", run, "longest_line");
            tb_td_end(p);
        }
    }
    rd_arms_free(arms);
    tb_end(p);
}

int fl_section(page *p, json_t *root, const fl_choice *c)
{
    pg_h(p, 2, "flood", "Retries at 450 a second");
    pg_p_begin(p, NULL);
    pg_t(p, "At 450 requests a second the store is near its limit. A retry after a timeout is one more lookup; "
            "when several freezes hold slots at once, lookups wait in line, the wait passes 25 ms, the service "
            "asks again, and the line grows. A round floods when three seconds in a row (all of a shorter run) "
            "are missed: over half of the requests scheduled in each got a stand-in or an error. A flood that "
            "starts late hardly moves the whole run's share of stand-ins, so the round is judged second by "
            "second. The figure shows the retry arm's flooded round, with the second its flood began, and its "
            "calmest round.");
    pg_p_end(p);
    if (pg_figure(p, "flood", flood_title(c),
                  "Per second of the run: requests scheduled, lookups the service sent, stand-in answers (as a "
                  "share of the second's requests when the verifier exports it, with half the requests dashed), "
                  "the mean number of busy slots (of 16) and the mean number of lookups waiting in line. Red: two "
                  "retries; grey: the same round without retries; purple: the first second of the flood."))
        return -1;
    pg_p_begin(p, NULL);
    if (!c->n) {
        pg_t(p, "Retries at 450/s: ");
        pg_nm(p);
        pg_t(p, ".");
        pg_p_end(p);
        flood_table(p, root);
        return 0;
    }
    pg_t(p, "%s: stand-ins ", c->arm);
    pg_range(p, "pct", c->arm, "standin_share");
    pg_t(p, " (median, lowest to highest round) and ");
    pg_range(p, "x", c->arm, "lookups_per_request");
    pg_t(p, " lookups per request");
    if (c->base[0]) {
        pg_t(p, "; without retries (%s) stand-ins ", c->base);
        pg_range(p, "pct", c->base, "standin_share");
    }
    pg_t(p, ".");
    if (!c->exported) {
        pg_t(p, " Whether a round flooded, when, its freezes, false timeouts and longest line: not exported (this "
                "verified.json's runs carry no flooded); the rounds drawn are the ones with the most and the "
                "fewest stand-ins.");
    } else {
        if (!c->flooded)
            pg_t(p, " No quiet round of %s flooded; the first round drawn has the most stand-ins.", c->arm);
        say_round(p, root, c->arm, c->round[0], c->flooded ? "The flooded round" : "That round");
        if (c->n == 2)
            say_round(p, root, c->arm, c->round[1], "The calmest round");
    }
    pg_p_end(p);
    flood_table(p, root);
    return 0;
}

/* ------------------------------------------------------------ predicted */

/* the runs outside the tolerance, named with both shares (at most 12) */
static void outside(page *p, json_t *root, double tol)
{
    int n = 0;
    const char *key;
    json_t *r;
    json_object_foreach(rd_at(root, "/runs"), key, r)
    {
        json_t *pr = json_object_get(r, "predicted");
        double ps = num_in(pr, "standin_share"), ms = num_in(r, "standin_share");
        if (!json_is_true(json_object_get(r, "quiet")) || !isfinite(ps) || !isfinite(ms))
            continue;
        if (fabs(ms - ps) <= tol + 1e-12)
            continue;
        if (n++ == 12) {
            pg_t(p, "; and more");
            break;
        }
        pg_t(p, "%s%s: predicted ", n > 1 ? "; " : " Outside it: ", key);
        pg_v(p, "pct", "/runs/%s/predicted/standin_share", key);
        pg_t(p, ", measured ");
        pg_v(p, "pct", "/runs/%s/standin_share", key);
    }
    if (n)
        pg_t(p, ".");
}

int fl_predicted(page *p, json_t *root)
{
    pg_h(p, 2, "predicted", "Predicted before measuring");
    pg_p_begin(p, NULL);
    pg_t(p, "The simulation runs the same arrivals, dice and policy code as the measured runs. Before the first "
            "timed run it simulated every run of the schedule, and the prediction's fingerprint went into the "
            "preregistration. Each dot below is one run: the simulation's figure across, the measured one up; "
            "on the diagonal the two agree.");
    pg_p_end(p);
    if (pg_figure(p, "predicted", "Predicted before measuring against measured: one dot per run",
                  "Left: the share of requests that got a stand-in; right: the slowest 1 in 100 (log scale). "
                  "Coloured by the arm's policy; disturbed runs in grey."))
        return -1;
    pstats st;
    predicted_stats(root, &st);
    pg_p_begin(p, NULL);
    if (!st.any_key) {
        pg_t(p, "Predicted figures: not exported (this verified.json's runs carry no predicted).");
    } else {
        pg_t(p, "%d run%s a prediction%s", st.with, st.with == 1 ? " has" : "s have", st.none ? "" : ".");
        if (st.none)
            pg_t(p, "; for %d the prediction has no entry.", st.none);
        if (!st.tol_ok) {
            pg_t(p, " Of them, %d quiet runs have both stand-in shares; the tolerance DESIGN 5.8 allows a quiet "
                    "machine is not exported (checks.prediction.standin_share_tolerance): tolerance not stated, "
                    "so the page does not count how many agree.", st.quiet);
        } else {
            pg_t(p, " Of the %d quiet runs with both stand-in shares, %d have a measured share within ", st.quiet,
                 st.within);
            pg_v(p, "pp", "/checks/prediction/standin_share_tolerance");
            pg_t(p, " of the predicted one, the tolerance DESIGN 5.8 allows a quiet machine.");
            outside(p, root, st.tol);
        }
    }
    pg_p_end(p);
    return 0;
}

/* ------------------------------------------------------------ odds */

static void event_words(page *p, size_t i, const char *ev)
{
    if (ev && !strcmp(ev, "flooded"))
        pg_t(p, "a flood");
    else if (ev && !strcmp(ev, "p99_over_1s"))
        pg_t(p, "the slowest one in a hundred over a second");
    else
        pg_v(p, "str", "/odds/%zu/event", i);
}

/* "290 of 1,000 seeds: 29.0% (26.2%–31.9%)" */
static void say_sim(page *p, size_t i)
{
    pg_v(p, "int", "/odds/%zu/sim_k", i);
    pg_t(p, " of ");
    pg_v(p, "int", "/odds/%zu/sim_n", i);
    pg_t(p, " seeds: ");
    pg_v(p, "pct", "/odds/%zu/sim_share", i);
    pg_t(p, " (");
    pg_v(p, "pct", "/odds/%zu/sim_wilson95/0", i);
    pg_t(p, EN);
    pg_v(p, "pct", "/odds/%zu/sim_wilson95/1", i);
    pg_t(p, ")");
}

/* "1 of 5 rounds (round 4; exact 95%: 0.505%–71.6%)"; in a table, where
 * the head says 95% and a cell holds no digit of its own, "exact:" */
static void say_measured(page *p, json_t *root, size_t i, int in_table)
{
    json_t *o = rd_at(root, "/odds/%zu", i);
    if (!json_is_number(json_object_get(o, "n")) || json_number_value(json_object_get(o, "n")) == 0) {
        pg_nm(p);
        return;
    }
    pg_v(p, "int", "/odds/%zu/k", i);
    pg_t(p, " of ");
    pg_v(p, "int", "/odds/%zu/n", i);
    pg_t(p, " rounds (");
    json_t *rr = json_object_get(o, "rounds");
    if (json_array_size(rr)) {
        pg_t(p, "round%s ", json_array_size(rr) > 1 ? "s" : "");
        for (size_t k = 0; k < json_array_size(rr); k++) {
            if (k)
                pg_t(p, ", ");
            pg_v(p, "int", "/odds/%zu/rounds/%zu", i, k);
        }
        pg_t(p, "; ");
    }
    pg_t(p, "%s", in_table ? "exact: " : "exact 95%: ");
    pg_v(p, "pct", "/odds/%zu/cp95/0", i);
    pg_t(p, EN);
    pg_v(p, "pct", "/odds/%zu/cp95/1", i);
    pg_t(p, ")");
}

static void say_agree(page *p, json_t *root, size_t i)
{
    json_t *a = rd_at(root, "/odds/%zu/agree", i);
    if (json_is_boolean(a)) {
        pg_v(p, "yn", "/odds/%zu/agree", i);
    } else if (json_object_get(rd_at(root, "/odds/%zu", i), "source") &&
               json_is_number(rd_at(root, "/odds/%zu/seconds", i))) {
        /* an outside observation of rounds of another length than the simulation's */
        pg_t(p, "not comparable (its rounds: ");
        pg_v(p, "s", "/odds/%zu/seconds", i);
        pg_t(p, " s)");
    } else {
        pg_nm(p);
    }
}

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

static void flood_odds_sentence(page *p, json_t *root, json_t *odds)
{
    const char *arm[2];
    rd_list("flood_odds", arm, NULL, 2);
    long i = find_odds(odds, arm[0], 0), o = find_odds(odds, arm[0], 1);
    pg_p_begin(p, NULL);
    if (i < 0) {
        pg_t(p, "The odds of a flood at 450/s with two retries at once (%s): not exported.", arm[0]);
        pg_p_end(p);
        return;
    }
    pg_t(p, "At 450 a second with two retries at once (%s), the simulation flooded on ", arm[0]);
    pg_v(p, "int", "/odds/%ld/sim_k", i);
    pg_t(p, " of ");
    pg_v(p, "int", "/odds/%ld/sim_n", i);
    pg_t(p, " seeds");
    if (json_is_number(rd_at(root, "/odds/%ld/seconds", i))) {
        pg_t(p, " of ");
        pg_v(p, "s", "/odds/%ld/seconds", i);
        pg_t(p, " s");
    }
    pg_t(p, ", a chance per round of ");
    pg_v(p, "pct", "/odds/%ld/sim_share", i);
    pg_t(p, " (Wilson 95%%: ");
    pg_v(p, "pct", "/odds/%ld/sim_wilson95/0", i);
    pg_t(p, EN);
    pg_v(p, "pct", "/odds/%ld/sim_wilson95/1", i);
    pg_t(p, "). This study measured ");
    say_measured(p, root, (size_t)i, 0);
    json_t *ag = rd_at(root, "/odds/%ld/agree", i);
    pg_t(p, "%s", json_is_true(ag)    ? ": the intervals overlap, an ordinary outcome of the simulated chance."
                  : json_is_false(ag) ? ": the intervals do not overlap, the measured rounds disagree with the "
                                        "simulated chance."
                                      : ".");
    if (o >= 0) {
        pg_t(p, " The timeouts lesson saw ");
        pg_v(p, "int", "/odds/%ld/k", o);
        pg_t(p, " of ");
        pg_v(p, "int", "/odds/%ld/n", o);
        pg_t(p, " (exact 95%%: ");
        pg_v(p, "pct", "/odds/%ld/cp95/0", o);
        pg_t(p, EN);
        pg_v(p, "pct", "/odds/%ld/cp95/1", o);
        json_t *oa = rd_at(root, "/odds/%ld/agree", o);
        int other_length = json_is_null(oa) && json_is_number(rd_at(root, "/odds/%ld/seconds", o)) &&
                           json_is_number(rd_at(root, "/odds/%ld/seconds", i));
        pg_t(p, "%s", json_is_true(oa)    ? "), which agrees with it too"
                      : json_is_false(oa) ? "), which does not agree with it"
                                          : ")");
        if (other_length) {
            /* a quick study simulates short rounds: a chance per 4 s round says nothing of 30 s rounds */
            pg_t(p, " in rounds of ");
            pg_v(p, "s", "/odds/%ld/seconds", o);
            pg_t(p, " s, which cannot be set against a chance per round of ");
            pg_v(p, "s", "/odds/%ld/seconds", i);
            pg_t(p, " s: run the floods profile (make floods) for the comparison.");
        } else {
            pg_t(p, ": with so few rounds, a handful of floods and one flood are both ordinary.");
        }
    }
    pg_p_end(p);
}

void fl_odds(page *p, json_t *root)
{
    pg_h(p, 2, "odds", "Rare events and their odds");
    pg_p_begin(p, NULL);
    pg_t(p, "A rare event is stated with two intervals: the simulation's chance per round over many seeds (a "
            "Wilson 95%% interval) and the measured rounds, k of n quiet rounds (an exact Clopper" EN "Pearson 95%% "
            "interval). They agree when the intervals overlap. With few rounds the exact interval is wide, so "
            "the measured count alone cannot tell a chance near one in three from one near two in three. The "
            "timeouts lesson's own count stands in the same table as an outside observation.");
    pg_p_end(p);
    json_t *odds = rd_at(root, "/odds");
    if (!json_is_array(odds)) {
        pg_p_begin(p, "note");
        pg_t(p, "The odds: not exported (this verified.json has no odds list).");
        pg_p_end(p);
        return;
    }
    flood_odds_sentence(p, root, odds);
    const char *h[] = {"arm", "event", "simulated: seeds with it, chance per round (Wilson 95%)",
                       "measured: rounds with it (exact 95%)", "agree"};
    tb_begin(p, "odds", 5, h);
    for (size_t i = 0; i < json_array_size(odds); i++) {
        json_t *o = json_array_get(odds, i);
        const char *arm = json_string_value(json_object_get(o, "arm"));
        const char *src = json_string_value(json_object_get(o, "source"));
        tb_row(p);
        if (src)
            tb_th(p, "%s (%s, outside observation)", arm ? arm : "?", src);
        else
            tb_th(p, "%s", arm ? arm : "?");
        tb_td_begin(p, "l");
        event_words(p, i, json_string_value(json_object_get(o, "event")));
        tb_td_end(p);
        tb_td_begin(p, NULL);
        say_sim(p, i);
        tb_td_end(p);
        tb_td_begin(p, NULL);
        say_measured(p, root, i, 1);
        tb_td_end(p);
        tb_td_begin(p, "l");
        say_agree(p, root, i);
        tb_td_end(p);
    }
    tb_end(p);
}
