/* figures.c: the report's figures drawn from verified.json, and the choices they share with the tables.  The contract is in figures.h. */
#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

#define MAXR 64

#define MAXLIST 64

static double stat_of(json_t *root, const char *arm, const char *fig, const char *which)
{
    double v;
    return rd_num(root, &v, "/arms/%s/%s/%s", arm, fig, which) ? NAN : v;
}

static double run_num(json_t *root, const char *arm, int round, const char *fig)
{
    double v;
    return rd_num(root, &v, "/runs/%s-r%d/%s", arm, round, fig) ? NAN : v;
}

static const char *ms_label(int e)
{
    static const char *const l[] = {"0.01 ms", "0.1 ms", "1 ms", "10 ms", "100 ms", "1 s", "10 s"};
    return e >= -2 && e <= 4 ? l[e + 2] : NULL;
}

static const char *share_label(int e)
{
    static const char *const l[] = {"1 in 10,000", "1 in 1,000", "1 in 100", "1 in 10", "all"};
    return e >= -4 && e <= 0 ? l[e + 4] : NULL;
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ------------------------------------------------------------ choices */

void fg_choose(json_t *root, fg_choice *c)
{
    memset(c, 0, sizeof *c);
    const char *first[MAXLIST], *down[2];
    rd_list("frozen", first, NULL, MAXLIST);
    rd_list("frozen_down", down, NULL, 2);
    int round = 0, j = -1;
    for (int i = 0; first[i] && !c->nfrozen; i++) {
        int rounds[MAXR];
        size_t n = rd_rounds(root, first[i], rounds, MAXR);
        for (size_t k = 0; k < n; k++) {
            json_t *fe = rd_at(root, "/extra/runs/%s-r%d/frozen_example", first[i], rounds[k]);
            if (json_is_object(fe)) {
                snprintf(c->frozen_run[0], sizeof c->frozen_run[0], "%s-r%d", first[i], rounds[k]);
                c->nfrozen = 1;
                round = rounds[k];
                j = (int)json_integer_value(json_object_get(fe, "j"));
                break;
            }
        }
    }
    /* the same lookup (same round, same dice) with the deadline passed down */
    if (c->nfrozen) {
        json_t *fe = rd_at(root, "/extra/runs/%s-r%d/frozen_example", down[0], round);
        if (json_is_object(fe) && json_integer_value(json_object_get(fe, "j")) == j) {
            snprintf(c->frozen_run[1], sizeof c->frozen_run[1], "%s-r%d", down[0], round);
            c->nfrozen = 2;
        }
    }
}

/* ------------------------------------------------------------ 1. dials */

/* The widths of a character of an arm's name (text size 1.0) and of its
 * description (0.9), in px of the figure, at their widest (measured in
 * Chromium, the report's test: 8.2 and 6.45 px for the widest names and
 * descriptions of the published study; the column is as wide as its
 * longest text, so that a name never runs into its description nor a
 * description under the plot). */
#define DIALS_NAME_PX 8.6
#define DIALS_WORDS_PX 6.7
#define DIALS_GAP_PX 16.0
#define DIALS_PLOT_PX 430.0
#define DIALS_VALUE_PX 110.0

int fig_dials(json_t *root, const char *figdir)
{
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    size_t rows = 0, name_len = 8, words_len = 20;
    for (size_t i = 0; i < na; i++)
        if (!rd_arm_closed(arms[i].name)) {
            rows++;
            char words[160];
            rd_arm_words(arms[i].name, words, sizeof words);
            name_len = strlen(arms[i].name) > name_len ? strlen(arms[i].name) : name_len;
            words_len = strlen(words) > words_len ? strlen(words) : words_len;
        }
    /* the columns left to right: name, description, the plot, the value */
    double name_px = 10 + DIALS_NAME_PX * (double)name_len + DIALS_GAP_PX,
           words_px = DIALS_WORDS_PX * (double)words_len + DIALS_GAP_PX;
    int W = (int)ceil(name_px + words_px + DIALS_PLOT_PX + DIALS_VALUE_PX), H = 130 + (int)rows * 27;
    double top = 1 - 70.0 / H, bot = 75.0 / H;
    double xw = (name_px) / W, xp0 = (name_px + words_px) / W, xp1 = xp0 + DIALS_PLOT_PX / W;
    fg_begin(fg_path(figdir, "dials"), W, H);
    fg_title(rd_word("dials"));
    double xhi = log10(3000);
    fg_panel(xp0, xp1, bot, top, 0, xhi, 0, (double)rows);
    fg_logaxis_x(0, 3, ms_label, 1.0);
    fg_color(FG_GRID);
    fg_line(xhi, 0, xhi, (double)rows);
    fg_mtext("b", 1.4, 1.0, 0.5, 1.0, FG_BLACK, "3 s");
    fg_mtext("b", 3.0, 0.5, 0.5, 0.95, FG_BLACK, rd_word("dials.1"));
    fg_mtext("b", 4.3, 0.5, 0.5, 0.95, FG_BLACK, rd_word("dials.2"));
    size_t r = 0;
    for (size_t i = 0; i < na; i++) {
        const char *a = arms[i].name;
        if (rd_arm_closed(a))
            continue;
        double y = (double)rows - (double)r - 0.5;
        r++;
        fg_panel(xp0, xp1, bot, top, 0, xhi, 0, (double)rows);
        fg_color(FG_GRID);
        fg_width(5);
        fg_line(0, y, xhi, y);
        fg_width(1);
        int col = fg_family_color(rd_arm_family(a));
        if (arms[i].measured) {
            double med = stat_of(root, a, "p99_ms", "median"), lo = stat_of(root, a, "p99_ms", "min"),
                   hi = stat_of(root, a, "p99_ms", "max");
            if (isfinite(med)) {
                fg_color(col);
                fg_width(5);
                fg_line(log10(clampd(lo, 1, 3000)), y, log10(clampd(hi, 1, 3000)), y);
                fg_width(1);
                fg_dot(log10(clampd(med, 1, 3000)), y, 1.5);
                char t[64];
                fmt_num(med, "ms", t, sizeof t);
                fg_panel(xp1 + 0.005, 1.0, bot, top, 0, 1, 0, (double)rows);
                fg_text(0.02, y - 0.18, 0, 1.0, FG_BLACK, "%s ms", t);
            } else {
                fg_panel(xp1 + 0.005, 1.0, bot, top, 0, 1, 0, (double)rows);
                fg_text(0.02, y - 0.18, 0, 1.0, FG_GREY, "%s", rd_word("dials.3"));
            }
        } else {
            fg_text(0.05, y - 0.18, 0, 0.95, FG_GREY, "%s", rd_word("dials.4"));
        }
        char words[160];
        rd_arm_words(a, words, sizeof words);
        fg_panel(10.0 / W, xw, bot, top, 0, 1, 0, (double)rows);
        fg_text(0.0, y - 0.18, 0, 1.0, arms[i].measured ? FG_BLACK : FG_GREY, "%s", a);
        fg_panel(xw, xp0, bot, top, 0, 1, 0, (double)rows);
        fg_text(0.0, y - 0.18, 0, 0.9, FG_GREY, "%s", words);
    }
    rd_arms_free(arms);
    return fg_finish(figdir, "dials");
}

/* ------------------------------------------------------------ 2. exceed */

/* the colour of the i-th arm of the list "exceed" */
static int exceed_color(int i)
{
    static const int cols[] = {FG_GREEN, FG_BROWN, FG_DARK, FG_ORANGE, FG_BLUE};
    return i < (int)(sizeof cols / sizeof cols[0]) ? cols[i] : FG_PINK;
}

int fig_exceed(json_t *root, const char *figdir)
{
    int W = 1000, H = 560;
    fg_begin(fg_path(figdir, "exceed"), W, H);
    fg_title(rd_word("exceed"));
    json_t *grid = rd_at(root, "/extra/exceed_grid_ms");
    size_t ng = json_array_size(grid);
    double xlo = -1, xhi = log10(3000);
    fg_panel(0.12, 0.70, 0.13, 0.88, xlo, xhi, -4, 0);
    fg_logaxis_x(-1, 3, ms_label, 1.0);
    fg_logaxis_y(-4, 0, share_label, 1.0);
    fg_mtext("b", 3.0, 0.5, 0.5, 1.0, FG_BLACK, rd_word("exceed.1"));
    fg_color(FG_GREY);
    fg_dash(1);
    fg_line(xlo, -2, xhi, -2);
    fg_dash(0);
    double lx[2], ly[2];
    int li = 0;
    const char *exceed_arms[MAXLIST];
    rd_list("exceed", exceed_arms, NULL, MAXLIST);
    for (int i = 0; exceed_arms[i]; i++) {
        const char *a = exceed_arms[i];
        int rounds[MAXR];
        size_t nr = rd_rounds(root, a, rounds, MAXR);
        int col = exceed_color(i);
        for (size_t k = 0; k < nr; k++) {
            json_t *ex = rd_at(root, "/extra/runs/%s-r%d/exceed", a, rounds[k]);
            size_t n = json_array_size(ex) < ng ? json_array_size(ex) : ng;
            double *x = calloc(n + 1, sizeof *x), *y = calloc(n + 1, sizeof *y);
            int m = 0;
            for (size_t g = 0; g < n; g++) {
                double gx = json_number_value(json_array_get(grid, g));
                double s = json_number_value(json_array_get(ex, g));
                x[m] = log10(gx);
                if (s <= 0) {
                    y[m++] = -4;
                    break;
                }
                y[m++] = clampd(log10(s), -4, 0);
            }
            fg_color(col);
            fg_width(2);
            fg_polyline(m, x, y);
            fg_width(1);
            free(x);
            free(y);
        }
        /* legend */
        fg_panel(0.72, 0.99, 0.13, 0.88, 0, 1, 0, 10);
        double yy = 9.3 - li * 1.25;
        li++;
        char words[160];
        rd_arm_words(a, words, sizeof words);
        if (nr) {
            lx[0] = 0.0;
            lx[1] = 0.1;
            ly[0] = ly[1] = yy + 0.12;
            fg_color(col);
            fg_width(3);
            fg_polyline(2, lx, ly);
            fg_width(1);
        }
        fg_text(0.13, yy, 0, 1.0, nr ? FG_BLACK : FG_GREY, "%s%s", a, nr ? "" : rd_word("exceed.2"));
        fg_text(0.13, yy - 0.5, 0, 0.85, FG_GREY, "%s", words);
        fg_panel(0.12, 0.70, 0.13, 0.88, xlo, xhi, -4, 0);
    }
    fg_panel(0.72, 0.99, 0.13, 0.88, 0, 1, 0, 10);
    fg_text(0.0, 2.6, 0, 0.85, FG_GREY, "%s", rd_word("exceed.3"));
    fg_text(0.0, 2.1, 0, 0.85, FG_GREY, "%s", rd_word("exceed.4"));
    fg_text(0.0, 1.6, 0, 0.85, FG_GREY, "%s", rd_word("exceed.5"));
    fg_text(0.0, 1.1, 0, 0.85, FG_GREY, "%s", rd_word("exceed.6"));
    fg_panel(0.12, 0.70, 0.13, 0.88, xlo, xhi, -4, 0);
    fg_text(xlo + 0.04, -1.85, 0, 0.85, FG_GREY, "%s", rd_word("exceed.7"));
    return fg_finish(figdir, "exceed");
}

/* ------------------------------------------------------------ bars helper */

/* a bar with a whisker: x centre, half width w, median, min, max */
static void bar(double x, double w, double med, double lo, double hi, int col)
{
    fg_color(col);
    fg_rect(x - w, 0, x + w, med);
    if (isfinite(lo) && isfinite(hi)) {
        fg_color(FG_BLACK);
        fg_line(x, lo, x, hi);
        fg_line(x - w * 0.35, lo, x + w * 0.35, lo);
        fg_line(x - w * 0.35, hi, x + w * 0.35, hi);
    }
}

/* ------------------------------------------------------------ 3. errors */

int fig_errors(json_t *root, const char *figdir)
{
    int W = 900, H = 470;
    fg_begin(fg_path(figdir, "errors"), W, H);
    fg_title(rd_word("errors"));
    int n = 0;
    double top = 0;
    const char *fig_limit_arms[MAXLIST];
    rd_list("limits", fig_limit_arms, NULL, MAXLIST);
    for (; fig_limit_arms[n]; n++) {
        double v = stat_of(root, fig_limit_arms[n], "error_share", "max");
        if (isfinite(v) && v > top)
            top = v;
    }
    top = fg_nice_top(top > 0 ? top * 1.2 : 0.01);
    fg_panel(0.11, 0.97, 0.2, 0.86, 0, n, 0, top);
    fg_linaxis_y(top, "pct", 1.0);
    fg_mtext("l", 6.2, 0.5, 0.5, 1.0, FG_BLACK, rd_word("errors.1"));
    for (int i = 0; i < n; i++) {
        const char *a = fig_limit_arms[i];
        double x = i + 0.5;
        int t = 0;
        t = atoi(rd_arm_col(a, "try_ms")); /* the limit, from the arms file */
        char lab[160];
        snprintf(lab, sizeof lab, "%d %s (%s)", t, rd_word("errors.limit"), a);
        fg_mtext("b", 1.5, x / n, 0.5, 1.0, FG_BLACK, lab);
        if (!rd_measured(root, a)) {
            fg_text(x, top * 0.05, 0.5, 1.0, FG_GREY, "%s", rd_word("errors.2"));
            continue;
        }
        double med = stat_of(root, a, "error_share", "median");
        bar(x, 0.28, med, stat_of(root, a, "error_share", "min"), stat_of(root, a, "error_share", "max"),
            FG_ORANGE);
        char v[64], p[64];
        fmt_num(med, "pct", v, sizeof v);
        double hi = stat_of(root, a, "error_share", "max");
        fg_text(x, (isfinite(hi) ? hi : med) + top * 0.045, 0.5, 1.05, FG_BLACK, "%s", v);
        fmt_num(stat_of(root, a, "p99_ms", "median"), "ms", p, sizeof p);
        char sub[96];
        snprintf(sub, sizeof sub, "%s %s ms", rd_word("errors.p99"), p);
        fg_mtext("b", 3.0, x / n, 0.5, 0.85, FG_GREY, sub);
    }
    fg_mtext("b", 5.2, 0.5, 0.5, 0.85, FG_GREY, rd_word("errors.3"));
    return fg_finish(figdir, "errors");
}

/* ------------------------------------------------------------ 4. frozen lookup */

static void span(double y, double a_ns, double b_ns, int col, double xlo)
{
    if (!isfinite(a_ns) || !isfinite(b_ns))
        return;
    double a = a_ns / 1e6, b = b_ns / 1e6;
    double xa = a > 0 ? log10(a) : xlo, xb = b > 0 ? log10(b) : xlo;
    if (xa < xlo)
        xa = xlo;
    if (xb < xa)
        xb = xa;
    fg_color(col);
    fg_rect(xa, y - 0.28, xb, y + 0.28);
}

static double fe_ns(json_t *fe, const char *k)
{
    json_t *v = json_object_get(fe, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void frozen_panel(json_t *root, const char *run, double y0, double y1)
{
    json_t *fe = rd_at(root, "/extra/runs/%s/frozen_example", run);
    double xlo = -2, xhi = log10(3000);
    const char *rows[5] = {rd_word("frozen.row1"), rd_word("frozen.row2"), rd_word("frozen.row3"),
                           rd_word("frozen.row4"), rd_word("frozen.row5")};
    fg_panel(0.30, 0.88, y0, y1, xlo, xhi, 0, 5);
    fg_logaxis_x(-2, 3, ms_label, 0.95);
    const char *arm = rd_str(root, "/runs/%s/arm", run);
    char words[160];
    rd_arm_words(arm ? arm : run, words, sizeof words);
    char head[400], pl[64];
    fmt_num(fe_ns(fe, "planned_ns"), "ns_ms", pl, sizeof pl);
    snprintf(head, sizeof head, "%s (%s): %s %lld, %s %s ms", run, words, rd_word("frozen.request"),
             (long long)fe_ns(fe, "j"), rd_word("frozen.drew"), pl);
    fg_mtext("t", 0.8, -0.48, 0.0, 0.95, FG_BLACK, head);
    double v[5][2] = {
        {fe_ns(fe, "sched_ns"), fe_ns(fe, "answer_ns")},
        {fe_ns(fe, "service_arrive_ns"), fe_ns(fe, "service_answer_ns")},
        {fe_ns(fe, "lookup_sent_ns"), fe_ns(fe, "service_gave_up_ns")},
        {fe_ns(fe, "store_arrive_ns"), fe_ns(fe, "store_start_ns")},
        {fe_ns(fe, "store_start_ns"), fe_ns(fe, "store_end_ns")},
    };
    static const int cols[5] = {FG_DARK, FG_BLUE, FG_LIGHTBLUE, FG_ORANGE, FG_RED};
    for (int i = 0; i < 5; i++) {
        double y = 4.5 - i;
        span(y, v[i][0], v[i][1], cols[i], xlo);
        if (isfinite(v[i][1])) {
            char t[64];
            fmt_num(v[i][1], "ns_ms", t, sizeof t);
            double xe = v[i][1] > 0 ? log10(v[i][1] / 1e6) : xlo;
            /* the labels may run past the axis: a wider panel, same scale */
            double wide = xlo + (xhi - xlo) * (0.99 - 0.30) / (0.88 - 0.30);
            fg_panel(0.30, 0.99, y0, y1, xlo, wide, 0, 5);
            fg_text(clampd(xe, xlo, xhi) + 0.03, y - 0.12, 0, 0.85, FG_BLACK, "%s ms", t);
        }
        fg_panel(0.01, 0.295, y0, y1, 0, 1, 0, 5);
        fg_text(1.0, y - 0.12, 1, 0.95, FG_BLACK, "%s", rows[i]);
        fg_panel(0.30, 0.88, y0, y1, xlo, xhi, 0, 5);
    }
    double ans = fe_ns(fe, "answer_ns");
    if (isfinite(ans) && ans > 0) {
        fg_color(FG_GREY);
        fg_dash(1);
        fg_line(log10(ans / 1e6), 0, log10(ans / 1e6), 5);
        fg_dash(0);
    }
}

int fig_frozen(json_t *root, const char *figdir, const fg_choice *c)
{
    int W = 1000, H = c->nfrozen == 2 ? 640 : 380;
    fg_begin(fg_path(figdir, "frozen"), W, H);
    fg_title(rd_word("frozen"));
    if (!c->nfrozen) {
        fg_panel(0.05, 0.95, 0.1, 0.85, 0, 1, 0, 1);
        fg_text(0.5, 0.5, 0.5, 1.2, FG_GREY, "%s", rd_word("frozen.1"));
        return fg_finish(figdir, "frozen");
    }
    double b = 70.0 / H, gap = 95.0 / H, top = 1 - 95.0 / H;
    if (c->nfrozen == 1) {
        frozen_panel(root, c->frozen_run[0], b, top);
    } else {
        double mid = (top + b) / 2;
        frozen_panel(root, c->frozen_run[0], mid + gap / 2, top);
        frozen_panel(root, c->frozen_run[1], b, mid - gap / 2);
    }
    fg_panel(0.30, 0.88, b, top, 0, 1, 0, 1);
    fg_mtext("b", 3.0, 0.5, 0.5, 0.9, FG_GREY, rd_word("frozen.axis"));
    return fg_finish(figdir, "frozen");
}

/* ------------------------------------------------------------ 5. split */

int fig_split(json_t *root, const char *figdir)
{
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    size_t rows = 0;
    double top = 0;
    for (size_t i = 0; i < na; i++) {
        if (!arms[i].measured || rd_arm_closed(arms[i].name))
            continue;
        rows++;
        double n, lk, df, er;
        if (!rd_num(root, &n, "/arms/%s/n_total", arms[i].name) && n > 0 &&
            !rd_num(root, &lk, "/arms/%s/last_known_total", arms[i].name) &&
            !rd_num(root, &df, "/arms/%s/default_total", arms[i].name) &&
            !rd_num(root, &er, "/arms/%s/error_total", arms[i].name))
            top = fmax(top, (lk + df + er) / n);
    }
    top = fg_nice_top(top > 0 ? top * 1.05 : 0.01);
    int W = 1000, H = 150 + (int)(rows > 3 ? rows : 3) * 27; /* room even with no row */
    double y0 = 70.0 / H, y1 = 1 - 110.0 / H;
    fg_begin(fg_path(figdir, "split"), W, H);
    fg_title(rd_word("split"));
    int R = rows ? (int)rows : 1;
    fg_panel(0.17, 0.76, y0, y1, 0, top, 0, R);
    fg_linaxis_x(0, top, top / 5, "pct", "", 1.0);
    fg_mtext("b", 3.0, 0.5, 0.5, 1.0, FG_BLACK, rd_word("split.1"));
    const char *names[3] = {rd_word("split.last_known"), rd_word("split.default"), rd_word("split.error")};
    static const int cols[3] = {FG_BLUE, FG_PURPLE, FG_ORANGE};
    fg_legend(0.17, 0.76, y1 + 10.0 / H, y1 + 40.0 / H, 3, names, cols, NULL, 0.95);
    if (!rows) {
        fg_panel(0.17, 0.76, y0, y1, 0, 1, 0, 1);
        fg_text(0.5, 0.5, 0.5, 1.1, FG_GREY, "%s", rd_word("split.2"));
    }
    size_t r = 0;
    for (size_t i = 0; i < na; i++) {
        const char *a = arms[i].name;
        if (!arms[i].measured || rd_arm_closed(a))
            continue;
        double y = R - (double)r - 0.5;
        r++;
        double n = 0, v[3] = {0, 0, 0}, live = 0;
        rd_num(root, &n, "/arms/%s/n_total", a);
        rd_num(root, &v[0], "/arms/%s/last_known_total", a);
        rd_num(root, &v[1], "/arms/%s/default_total", a);
        rd_num(root, &v[2], "/arms/%s/error_total", a);
        rd_num(root, &live, "/arms/%s/live_total", a);
        fg_panel(0.17, 0.76, y0, y1, 0, top, 0, R);
        double x = 0;
        for (int k = 0; k < 3 && n > 0; k++) {
            double w = v[k] / n;
            if (w > 0) {
                fg_color(cols[k]);
                fg_rect(x, y - 0.32, fmin(x + w, top), y + 0.32);
            }
            x += w;
        }
        fg_panel(0.01, 0.165, y0, y1, 0, 1, 0, R);
        fg_text(1.0, y - 0.18, 1, 1.0, FG_BLACK, "%s", a);
        fg_panel(0.77, 1.0, y0, y1, 0, 1, 0, R);
        char t1[64], t2[64];
        fmt_num(live, "int", t1, sizeof t1);
        fmt_num(n, "int", t2, sizeof t2);
        fg_text(0.0, y - 0.18, 0, 0.9, FG_GREY, "%s %s %s %s", rd_word("split.live"), t1, rd_word("split.of"), t2);
    }
    rd_arms_free(arms);
    return fg_finish(figdir, "split");
}

/* ------------------------------------------------------------ 6. slots */

int fig_slots(json_t *root, const char *figdir)
{
    const char *arms[4], *words[4];
    rd_list("slots", arms, words, 4);
    static const int cols[3] = {FG_LIGHTBLUE, FG_BLUE, FG_PURPLE};
    int all[MAXR], nall = 0;
    double top = 0;
    for (int i = 0; i < 3; i++) {
        int rr[MAXR];
        size_t n = rd_rounds(root, arms[i], rr, MAXR);
        for (size_t k = 0; k < n; k++) {
            int seen = 0;
            for (int q = 0; q < nall; q++)
                seen |= all[q] == rr[k];
            if (!seen && nall < MAXR)
                all[nall++] = rr[k];
            double v = run_num(root, arms[i], rr[k], "slot_ms_per_lookup");
            if (isfinite(v))
                top = fmax(top, v);
        }
    }
    for (int i = 1; i < nall; i++)
        for (int k = i; k > 0 && all[k - 1] > all[k]; k--) {
            int t = all[k];
            all[k] = all[k - 1];
            all[k - 1] = t;
        }
    int W = 900, H = 480;
    fg_begin(fg_path(figdir, "slots"), W, H);
    fg_title(rd_word("slots"));
    top = fg_nice_top(top > 0 ? top * 1.15 : 1);
    int G = nall ? nall : 1;
    fg_panel(0.1, 0.97, 0.24, 0.86, 0, G, 0, top);
    fg_linaxis_y(top, "ms", 1.0);
    fg_mtext("l", 4.5, 0.5, 0.5, 1.0, FG_BLACK, rd_word("slots.1"));
    if (!nall)
        fg_text(G / 2.0, top / 2, 0.5, 1.1, FG_GREY, "%s", rd_word("slots.2"));
    for (int g = 0; g < nall; g++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%s %d", rd_word("slots.round"), all[g]);
        fg_mtext("b", 1.4, (g + 0.5) / G, 0.5, 1.0, FG_BLACK, lab);
        for (int i = 0; i < 3; i++) {
            double x = g + 0.2 + 0.3 * i + 0.0;
            double v = run_num(root, arms[i], all[g], "slot_ms_per_lookup");
            if (!isfinite(v)) {
                fg_vtext(x, top * 0.03, 0, 0.8, FG_GREY, rd_word("slots.3"));
                continue;
            }
            fg_color(cols[i]);
            fg_rect(x - 0.12, 0, x + 0.12, v);
            char t[64];
            fmt_num(v, "ms", t, sizeof t);
            fg_text(x, v + top * 0.035, 0.5, 0.85, FG_BLACK, "%s", t);
        }
    }
    int grey[3];
    for (int i = 0; i < 3; i++)
        grey[i] = !rd_measured(root, arms[i]);
    fg_legend(0.1, 0.97, 0.02, 0.12, 3, words, cols, grey, 0.9);
    return fg_finish(figdir, "slots");
}

/* ------------------------------------------------------------ 8. hedge */

int fig_hedge(json_t *root, const char *figdir)
{
    const char *arms[5];
    rd_list("hedge", arms, NULL, 5);
    static const char *const figs[2] = {"p99_ms", "lookups_per_request"};
    const char *titles[2] = {rd_word("hedge.p99"), rd_word("hedge.lookups")};
    int W = 1000, H = 470;
    fg_begin(fg_path(figdir, "hedge"), W, H);
    fg_title(rd_word("hedge"));
    for (int p = 0; p < 2; p++) {
        double top = 0;
        for (int i = 0; i < 4; i++) {
            double v = stat_of(root, arms[i], figs[p], "max");
            if (isfinite(v))
                top = fmax(top, v);
        }
        top = fg_nice_top(top > 0 ? top * 1.15 : 1);
        double x0 = p == 0 ? 0.08 : 0.57, x1 = p == 0 ? 0.47 : 0.97;
        fg_panel(x0, x1, 0.22, 0.84, 0, 4, 0, top);
        fg_linaxis_y(top, p == 0 ? "ms" : "x", 0.9);
        fg_mtext("t", 0.8, 0.5, 0.5, 1.0, FG_BLACK, titles[p]);
        for (int i = 0; i < 4; i++) {
            double x = i + 0.5 + (i % 2 ? -0.1 : 0.1);
            int col = i % 2 ? FG_GREEN : FG_BLUE;
            fg_mtext("b", 1.3, x / 4, 0.5, 0.85, FG_BLACK, arms[i]);
            if (!rd_measured(root, arms[i])) {
                fg_vtext(x, top * 0.03, 0, 0.8, FG_GREY, rd_word("hedge.1"));
                continue;
            }
            double med = stat_of(root, arms[i], figs[p], "median");
            bar(x, 0.3, med, stat_of(root, arms[i], figs[p], "min"), stat_of(root, arms[i], figs[p], "max"), col);
            char t[64];
            fmt_num(med, p == 0 ? "ms" : "x", t, sizeof t);
            double hi = stat_of(root, arms[i], figs[p], "max");
            fg_text(x, (isfinite(hi) ? hi : med) + top * 0.04, 0.5, 0.85, FG_BLACK, "%s", t);
        }
        fg_mtext("b", 2.8, 0.25, 0.5, 0.85, FG_GREY, rd_word("hedge.2"));
        fg_mtext("b", 2.8, 0.75, 0.5, 0.85, FG_GREY, rd_word("hedge.3"));
    }
    fg_panel(0.08, 0.97, 0.0, 0.08, 0, 1, 0, 1);
    fg_text(0.5, 0.3, 0.5, 0.85, FG_BLACK,
            "%s", rd_word("hedge.4"));
    return fg_finish(figdir, "hedge");
}

/* ------------------------------------------------------------ 9. steps */

int fig_steps(json_t *root, const char *figdir)
{
    static const char *const keys[5] = {"late_ms", "to_service_ms", "lookups_ms", "score_answer_ms", "back_ms"};
    const char *names[5] = {rd_word("steps.late"), rd_word("steps.to_service"), rd_word("steps.lookups"),
                            rd_word("steps.score"), rd_word("steps.back")};
    static const int cols[5] = {FG_GREY, FG_OLIVE, FG_BLUE, FG_ORANGE, FG_PINK};
    char runs[256][96];
    int nr = 0;
    double top = 0;
    const char *fig_steps_arms[MAXLIST];
    rd_list("steps", fig_steps_arms, NULL, MAXLIST);
    for (int i = 0; fig_steps_arms[i]; i++) {
        int rr[MAXR];
        size_t n = rd_rounds(root, fig_steps_arms[i], rr, MAXR);
        for (size_t k = 0; k < n && nr < 256; k++) {
            snprintf(runs[nr], sizeof runs[nr], "%s-r%d", fig_steps_arms[i], rr[k]);
            double v;
            if (!rd_num(root, &v, "/extra/runs/%s/slowest_steps/latency_ms", runs[nr]))
                top = fmax(top, v);
            nr++;
        }
    }
    int W = 1000, H = 150 + (nr > 3 ? nr : 3) * 24; /* room for the "not measured" panel */
    double y0 = 70.0 / H, y1 = 1 - 110.0 / H;
    fg_begin(fg_path(figdir, "steps"), W, H);
    fg_title(rd_word("steps"));
    top = fg_nice_top(top > 0 ? top * 1.05 : 1);
    int R = nr ? nr : 1;
    fg_panel(0.15, 0.86, y0, y1, 0, top, 0, R);
    double step = fg_nice_top(top / 5);
    fg_linaxis_x(0, top, step, NULL, " ms", 0.95);
    fg_mtext("b", 3.0, 0.5, 0.5, 0.95, FG_BLACK, rd_word("steps.axis"));
    fg_legend(0.15, 0.86, y1 + 10.0 / H, y1 + 40.0 / H, 5, names, cols, NULL, 0.85);
    if (!nr) {
        fg_panel(0.15, 0.86, y0, y1, 0, 1, 0, 1);
        fg_text(0.5, 0.5, 0.5, 1.1, FG_GREY, "%s", rd_word("steps.1"));
    }
    for (int r = 0; r < nr; r++) {
        double y = R - r - 0.5;
        fg_panel(0.15, 0.86, y0, y1, 0, top, 0, R);
        double x = 0;
        for (int k = 0; k < 5; k++) {
            double v;
            if (rd_num(root, &v, "/extra/runs/%s/slowest_steps/%s", runs[r], keys[k]) || v <= 0)
                continue;
            fg_color(cols[k]);
            fg_rect(x, y - 0.32, fmin(x + v, top), y + 0.32);
            x += v;
        }
        fg_panel(0.01, 0.145, y0, y1, 0, 1, 0, R);
        fg_text(1.0, y - 0.18, 1, 0.9, FG_BLACK, "%s", runs[r]);
        double lat;
        fg_panel(0.865, 1.0, y0, y1, 0, 1, 0, R);
        if (!rd_num(root, &lat, "/extra/runs/%s/slowest_steps/latency_ms", runs[r])) {
            char t[64];
            fmt_num(lat, "ms", t, sizeof t);
            fg_text(0.0, y - 0.18, 0, 0.9, FG_BLACK, "%s ms", t);
        }
    }
    return fg_finish(figdir, "steps");
}

/* ------------------------------------------------------------ 10. AP */

int fig_ap_ready(json_t *root)
{
    json_t *arms = rd_at(root, "/ap/copied_from_ap_json/arms");
    return json_is_true(rd_at(root, "/ap/checked")) && json_is_object(arms) && json_object_size(arms) > 0;
}

/* the change in AP of each kind per chosen arm: the mean over the model
 * seeds and its 95% interval (copied from ap.json), and seed 1 (recomputed
 * by the verifier); values drawn in percentage points of AP */
int fig_ap(json_t *root, const char *figdir)
{
    json_t *arms = rd_at(root, "/ap/copied_from_ap_json/arms");
    static const char *const kinds[3] = {"last_known", "default", "none"};
    const char *kn[3] = {rd_word("ap.last_known"), rd_word("ap.default"), rd_word("ap.none")};
    static const int cols[3] = {FG_BLUE, FG_PURPLE, FG_ORANGE};
    size_t na = json_object_size(arms);
    double lo = 0, hi = 0;
    const char *key;
    json_t *a;
    json_object_foreach(arms, key, a)
    {
        for (int k = 0; k < 3; k++) {
            json_t *ci = rd_at(a, "/kinds/%s/ci95", kinds[k]);
            double c;
            if (!rd_num(a, &c, "/kinds/%s/change", kinds[k])) {
                lo = fmin(lo, 100 * c);
                hi = fmax(hi, 100 * c);
            }
            if (!rd_num(root, &c, "/ap/arms/%s/kinds/%s/change_default_seed", key, kinds[k])) {
                lo = fmin(lo, 100 * c);
                hi = fmax(hi, 100 * c);
            }
            if (json_array_size(ci) == 2) {
                lo = fmin(lo, 100 * json_number_value(json_array_get(ci, 0)));
                hi = fmax(hi, 100 * json_number_value(json_array_get(ci, 1)));
            }
        }
    }
    double pad = (hi - lo) * 0.08 + 1e-3;
    lo -= pad;
    hi += pad;
    int W = 1000, H = 190 + (int)(na ? na : 1) * 90;
    double y0 = 125.0 / H, y1 = 1 - 60.0 / H;
    fg_begin(fg_path(figdir, "ap"), W, H);
    fg_title(rd_word("ap"));
    int R = na ? (int)na : 1;
    fg_panel(0.30, 0.97, y0, y1, lo, hi, 0, R);
    fg_frame();
    {
        double step = fg_nice_top((hi - lo) / 6);
        double first = ceil(lo / step) * step;
        for (double v = first; v <= hi; v += step) {
            char t[64];
            snprintf(t, sizeof t, "%+.*f", step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3, fabs(v) < step * 1e-6 ? 0.0 : v);
            fg_color(FG_GRID);
            fg_line(v, 0, v, R);
            fg_mtext("b", 1.4, (v - lo) / (hi - lo), 0.5, 0.9, FG_BLACK, t);
        }
    }
    fg_color(FG_BLACK);
    fg_line(0, 0, 0, R);
    fg_mtext("b", 3.0, 0.5, 0.5, 1.0, FG_BLACK, rd_word("ap.1"));
    fg_mtext("b", 5.2, 0.5, 0.5, 0.85, FG_DARK, rd_word("ap.dots"));
    fg_mtext("b", 6.6, 0.5, 0.5, 0.85, FG_DARK,
             rd_word("ap.2"));
    int r = 0;
    json_object_foreach(arms, key, a)
    {
        double yb = R - r - 1;
        r++;
        for (int k = 0; k < 3; k++) {
            double y = yb + 0.75 - k * 0.25;
            fg_panel(0.30, 0.97, y0, y1, lo, hi, 0, R);
            json_t *ci = rd_at(a, "/kinds/%s/ci95", kinds[k]);
            double c;
            if (json_array_size(ci) == 2) {
                fg_color(cols[k]);
                fg_width(3);
                fg_line(100 * json_number_value(json_array_get(ci, 0)), y,
                        100 * json_number_value(json_array_get(ci, 1)), y);
                fg_width(1);
            }
            if (!rd_num(a, &c, "/kinds/%s/change", kinds[k])) {
                fg_color(cols[k]);
                fg_dot(100 * c, y, 1.3);
            }
            if (!rd_num(root, &c, "/ap/arms/%s/kinds/%s/change_default_seed", key, kinds[k])) {
                fg_color(FG_BLACK);
                fg_width(2);
                fg_line(100 * c, y - 0.08, 100 * c, y + 0.08);
                fg_width(1);
            }
            fg_panel(0.01, 0.29, y0, y1, 0, 1, 0, R);
            fg_text(1.0, y - 0.06, 1, 0.8, cols[k], "%s", kn[k]);
        }
        fg_panel(0.01, 0.29, y0, y1, 0, 1, 0, R);
        fg_text(0.0, yb + 0.9, 0, 0.95, FG_BLACK, "%s", key);
        double sh;
        if (!rd_num(root, &sh, "/ap/arms/%s/standin_rows_share", key)) {
            char t[64];
            fmt_num(sh, "pct", t, sizeof t);
            fg_text(1.0, yb + 0.9, 1, 0.75, FG_DARK, "%s %s %s", rd_word("ap.rows1"), t, rd_word("ap.rows2"));
        }
    }
    return fg_finish(figdir, "ap");
}
