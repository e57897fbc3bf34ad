/* defences.c: the section "The defences" and its figures (storm, retry450, bulkhead).  The contract is in defences.h. */
#include "defences.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

enum { MAXR = 64, MAXS = 600 };

/* the groups the figures draw (arm-lists.tsv: storm, r450, bulk), each
 * with its colours here and its legend words there */
static const char *STORM[4], *STORM_WORDS[4];
static const int STORM_COL[3] = {FG_RED, FG_BLUE, FG_GREEN};

/* the last of r450 is the grey reference, drawn first; its first arm's
 * most stand-ins choose the round */
static const char *R450[6], *R450_WORDS[6];
static const int R450_COL[5] = {FG_RED, FG_BLUE, FG_TEAL, FG_GREEN, FG_GREY};

static const char *BULK[3];

static void groups(void)
{
    if (STORM[0])
        return;
    rd_list("storm", STORM, STORM_WORDS, 4);
    rd_list("r450", R450, R450_WORDS, 6);
    rd_list("bulk", BULK, NULL, 3);
}

/* ------------------------------------------------------------ rounds */

static int has_round(json_t *root, const char *arm, int r)
{
    int rounds[MAXR];
    size_t n = rd_rounds(root, arm, rounds, MAXR);
    for (size_t k = 0; k < n; k++)
        if (rounds[k] == r)
            return 1;
    return 0;
}

int df_round(json_t *root, const char *const *arms, int n, int i, const char *worst)
{
    int rounds[MAXR];
    size_t nr = rd_rounds(root, arms[i], rounds, MAXR);
    if (!nr)
        return 0;
    int best = 0, any[MAXR];
    double bv = -1;
    for (size_t k = 0; k < nr; k++) {
        /* a round every arm of the group with quiet rounds has: the same dice for all */
        int all = 1;
        for (int a = 0; a < n; a++)
            if (rd_rounds(root, arms[a], any, MAXR) && !has_round(root, arms[a], rounds[k]))
                all = 0;
        if (!all)
            continue;
        double v = 0;
        if (worst && rd_num(root, &v, "/runs/%s-r%d/standin_share", worst, rounds[k]))
            v = 0;
        if (!best || v > bv) {
            best = rounds[k];
            bv = v;
        }
    }
    return best ? best : rounds[0];
}

/* 1 when every measured arm of the group with a quiet round is drawn in the same round */
static int same_round(json_t *root, const char *const *arms, int n, const char *worst)
{
    int r0 = 0;
    for (int i = 0; i < n; i++) {
        int r = df_round(root, arms, n, i, worst);
        if (!r)
            continue;
        if (r0 && r != r0)
            return 0;
        r0 = r;
    }
    return 1;
}

/* ------------------------------------------------------------ figure helpers */

static double num_at(json_t *root, const char *path)
{
    double v;
    return rd_num(root, &v, "%s", path) ? NAN : v;
}

static double arm_stat(json_t *root, const char *arm, const char *fig, const char *which)
{
    char path[300];
    snprintf(path, sizeof path, "/arms/%s/%s/%s", arm, fig, which);
    return num_at(root, path);
}

/* a second's value of a run, NAN when missing */
static double ps_num(json_t *root, const char *run, size_t s, const char *key)
{
    double v;
    return rd_num(root, &v, "/runs/%s/per_second/%zu/%s", run, s, key) ? NAN : v;
}

/* a bar from 0 to med with a whisker from lo to hi */
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

/* legend names: "ARM: words", or "ARM: not measured" */
static void legend_names(json_t *root, int n, const char *const *arms, const char *const *words, char names[][96],
                         const char **ptr, int *grey)
{
    for (int i = 0; i < n; i++) {
        grey[i] = !rd_measured(root, arms[i]);
        snprintf(names[i], 96, "%s: %s", arms[i], grey[i] ? rd_word("df.nm") : words[i]);
        ptr[i] = names[i];
    }
}

/* ------------------------------------------------------------ storm.svg */

static int fig_storm(json_t *root, const char *figdir)
{
    int W = 1000, H = 470;
    fg_begin(fg_path(figdir, "storm"), W, H);
    fg_title(rd_word("storm"));
    char run[3][96];
    double v[3][10], before[3], top = 0;
    int drawn[3], nd = 0;
    for (int i = 0; i < 3; i++) {
        int r = df_round(root, STORM, 3, i, NULL);
        snprintf(run[i], sizeof run[i], "%s-r%d", STORM[i], r);
        drawn[i] = r && json_is_array(rd_at(root, "/runs/%s/recovery_lookups_100ms", run[i]));
        nd += drawn[i];
        for (int k = 0; k < 10; k++) {
            double x;
            v[i][k] = drawn[i] && !rd_num(root, &x, "/runs/%s/recovery_lookups_100ms/%d", run[i], k) ? x : NAN;
            if (isfinite(v[i][k]))
                top = fmax(top, v[i][k]);
        }
        before[i] = drawn[i] && !rd_num(root, &before[i], "/runs/%s/before_lookups_100ms", run[i]) ? before[i] : NAN;
        if (isfinite(before[i]))
            top = fmax(top, before[i]);
    }
    top = fg_nice_top(top > 0 ? top * 1.12 : 1);
    fg_panel(0.09, 0.97, 0.24, 0.84, 0, 1000, 0, top);
    fg_linaxis_y(top, NULL, 0.85);
    fg_linaxis_x(0, 1000, 100, NULL, " ms", 0.85);
    fg_frame();
    fg_mtext("l", 4.2, 0.5, 0.5, 0.9, FG_BLACK, rd_word("storm.1"));
    fg_mtext("b", 2.8, 0.5, 0.5, 0.85, FG_BLACK,
             rd_word("storm.2"));
    char head[300];
    if (!nd)
        snprintf(head, sizeof head, "%s", rd_word("df.no_round"));
    else if (same_round(root, STORM, 3, NULL))
        snprintf(head, sizeof head, "%s %d", rd_word("df.round"),
                 df_round(root, STORM, 3, drawn[0] ? 0 : drawn[1] ? 1 : 2, NULL));
    else
        snprintf(head, sizeof head, "%s", rd_word("df.each_lowest"));
    fg_mtext("t", 0.6, 0.0, 0.0, 0.9, FG_BLACK, head);
    for (int i = 0; i < 3; i++) {
        if (!drawn[i])
            continue;
        for (int k = 0; k < 10; k++)
            if (isfinite(v[i][k]))
                bar(k * 100 + 20 + i * 25 + 10, 10, v[i][k], NAN, NAN, STORM_COL[i]);
        if (isfinite(before[i])) {
            fg_color(STORM_COL[i]);
            fg_dash(1);
            fg_width(1.5);
            fg_line(0, before[i], 1000, before[i]);
            fg_dash(0);
            fg_width(1);
        }
    }
    if (!nd)
        fg_text(500, top / 2, 0.5, 1.1, FG_GREY, "%s", rd_word("storm.3"));
    char names[3][96];
    const char *ptr[3];
    int grey[3];
    legend_names(root, 3, STORM, STORM_WORDS, names, ptr, grey);
    for (int i = 0; i < 3; i++)
        if (!grey[i] && !drawn[i]) {
            snprintf(names[i], 96, "%s: %s", STORM[i], rd_word("df.no_second"));
            grey[i] = 1;
        }
    fg_legend(0.09, 0.97, 0.02, 0.09, 3, ptr, STORM_COL, grey, 0.85);
    return fg_finish(figdir, "storm");
}

/* ------------------------------------------------------------ retry450.svg */

static int fig_retry450(json_t *root, const char *figdir)
{
    static const char *const keys[2] = {"standins", "lookups_sent"};
    const char *heads[2] = {rd_word("retry450.standins"), rd_word("retry450.lookups")};
    int W = 1100, H = 720;
    fg_begin(fg_path(figdir, "retry450"), W, H);
    fg_title(rd_word("retry450"));
    char run[5][96];
    int nsec = 1, drawn[5], nd = 0;
    double ymax[2] = {0, 0};
    for (int i = 0; i < 5; i++) {
        int r = df_round(root, R450, 5, i, R450[0]);
        snprintf(run[i], sizeof run[i], "%s-r%d", R450[i], r);
        json_t *ps = rd_at(root, "/runs/%s/per_second", run[i]);
        drawn[i] = r && json_is_array(ps);
        if (!drawn[i])
            continue;
        nd += i < 4;
        size_t n = json_array_size(ps) < MAXS ? json_array_size(ps) : MAXS;
        if ((int)n > nsec)
            nsec = (int)n;
        for (size_t s = 0; s < n; s++)
            for (int k = 0; k < 2; k++) {
                double v = ps_num(root, run[i], s, keys[k]);
                if (isfinite(v))
                    ymax[k] = fmax(ymax[k], v);
            }
    }
    char head[300];
    int r0 = 0;
    for (int i = 0; i < 5 && !r0; i++)
        if (drawn[i])
            r0 = df_round(root, R450, 5, i, R450[0]);
    if (!nd)
        snprintf(head, sizeof head, "%s", rd_word("df.no_round"));
    else if (same_round(root, R450, 5, R450[0]))
        snprintf(head, sizeof head, "%s %d, %s", rd_word("df.round"), r0, rd_word("df.every_arm"));
    else
        snprintf(head, sizeof head, "%s", rd_word("df.each_lowest"));
    double step = nsec > 20 ? 5 : nsec > 8 ? 2 : 1;
    for (int k = 0; k < 2; k++) {
        double top = fg_nice_top(ymax[k] > 5 ? ymax[k] * 1.08 : 5);
        double y1 = k == 0 ? 0.86 : 0.49, y0 = y1 - 0.31;
        fg_panel(0.10, 0.97, y0, y1, 0, nsec, 0, top);
        fg_linaxis_y_n(top, "int", 0.85, 4);
        fg_color(FG_GRID);
        for (double x = step; x < nsec; x += step)
            fg_line(x, 0, x, top);
        fg_frame();
        fg_mtext("t", 0.6, 0.0, 0.0, 0.9, FG_BLACK, heads[k]);
        if (k == 0)
            fg_mtext("t", 0.6, 1.0, 1.0, 0.9, FG_BLACK, head);
        /* 5.4 lines out: a flood's lookups reach 1000 a second, whose tick
         * label is four digits wide (at 4.2 lines it ran into this one) */
        fg_mtext("l", 5.4, 0.5, 0.5, 0.9, FG_BLACK, rd_word("retry450.1"));
        if (k == 1) {
            fg_linaxis_x(0, nsec, step, NULL, " s", 0.85);
            fg_mtext("b", 2.8, 0.5, 0.5, 0.85, FG_BLACK, rd_word("retry450.2"));
        }
        /* the reference without retries first (grey, wide), then the four */
        for (int i = 4; i >= 0; i--) {
            if (!drawn[i])
                continue;
            double y[MAXS];
            for (int s = 0; s < nsec; s++)
                y[s] = ps_num(root, run[i], (size_t)s, keys[k]);
            fg_steps(nsec, y, R450_COL[i], i == 4 ? 5 : 2);
        }
        if (!nd)
            fg_text(nsec / 2.0, top / 2, 0.5, 1.1, FG_GREY, "%s", rd_word("retry450.3"));
    }
    char names[5][96];
    const char *ptr[5];
    int grey[5];
    legend_names(root, 5, R450, R450_WORDS, names, ptr, grey);
    fg_legend(0.10, 0.97, 0.07, 0.11, 3, ptr, R450_COL, grey, 0.85);
    fg_legend(0.10, 0.65, 0.01, 0.05, 2, ptr + 3, R450_COL + 3, grey + 3, 0.85);
    return fg_finish(figdir, "retry450");
}

/* ------------------------------------------------------------ bulkhead.svg */

static void bulk_bars(json_t *root, const char *const figs[2], const int cols[2], const char *kind, double top)
{
    for (int a = 0; a < 2; a++) {
        fg_mtext("b", 1.3, (a + 0.5) / 2, 0.5, 0.9, FG_BLACK, BULK[a]);
        if (!rd_measured(root, BULK[a])) {
            fg_text(a + 0.5, top * 0.45, 0.5, 0.9, FG_GREY, "%s", rd_word("bulk_bars.1"));
            continue;
        }
        for (int f = 0; f < 2; f++) {
            double x = a + 0.3 + f * 0.4, med = arm_stat(root, BULK[a], figs[f], "median");
            if (!isfinite(med)) {
                fg_vtext(x, top * 0.03, 0, 0.8, FG_GREY, rd_word("bulk_bars.2"));
                continue;
            }
            double hi = arm_stat(root, BULK[a], figs[f], "max");
            bar(x, 0.12, med, arm_stat(root, BULK[a], figs[f], "min"), hi, cols[f]);
            char t[64];
            fmt_num(med, kind, t, sizeof t);
            fg_text(x, (isfinite(hi) ? hi : med) + top * 0.035, 0.5, 0.85, FG_BLACK, "%s", t);
        }
    }
}

static int fig_bulkhead(json_t *root, const char *figdir)
{
    static const char *const live[2] = {"store1_during_live_share", "store2_during_live_share"};
    static const char *const p99[2] = {"store2_during_p99_ms", "store2_p99_ms"};
    static const int live_col[2] = {FG_ORANGE, FG_GREEN}, p99_col[2] = {FG_GREEN, FG_LIGHTBLUE};
    int W = 1000, H = 500;
    fg_begin(fg_path(figdir, "bulkhead"), W, H);
    fg_title(rd_word("bulkhead"));
    fg_panel(0.08, 0.47, 0.24, 0.82, 0, 2, 0, 1.1);
    fg_linaxis_y(1.0, "pct", 0.85);
    fg_frame();
    fg_mtext("t", 0.8, 0.5, 0.5, 0.95, FG_BLACK, rd_word("bulkhead.1"));
    bulk_bars(root, live, live_col, "pct", 1.1);
    double top = 0;
    for (int a = 0; a < 2; a++)
        for (int f = 0; f < 2; f++) {
            double v = arm_stat(root, BULK[a], p99[f], "max");
            if (isfinite(v))
                top = fmax(top, v);
        }
    top = fg_nice_top(top > 0 ? top * 1.15 : 1);
    fg_panel(0.57, 0.97, 0.24, 0.82, 0, 2, 0, top);
    fg_linaxis_y(top, NULL, 0.85);
    fg_frame();
    fg_mtext("t", 0.8, 0.5, 0.5, 0.95, FG_BLACK, rd_word("bulkhead.2"));
    bulk_bars(root, p99, p99_col, "ms", top);
    const char *names[3] = {rd_word("bulkhead.hung"), rd_word("bulkhead.healthy_window"), rd_word("bulkhead.healthy_run")};
    static const int cols[3] = {FG_ORANGE, FG_GREEN, FG_LIGHTBLUE};
    fg_legend(0.08, 0.97, 0.09, 0.14, 3, names, cols, NULL, 0.85);
    fg_panel(0.08, 0.97, 0.0, 0.07, 0, 1, 0, 1);
    fg_text(0.5, 0.45, 0.5, 0.85, FG_BLACK, "%s: %s; %s: %s; %s", BULK[0], rd_word("bulkhead.pool"), BULK[1],
            rd_word("bulkhead.bulk"), rd_word("bulkhead.bars"));
    return fg_finish(figdir, "bulkhead");
}

int df_figures(json_t *root, const char *figdir)
{
    int rc = 0;
    groups();
    rc |= fig_storm(root, figdir);
    rc |= fig_retry450(root, figdir);
    rc |= fig_bulkhead(root, figdir);
    return rc;
}

/* ------------------------------------------------------------ section */

/* the round drawn of each arm of a group: {"ARM": round} (arms with none left out) */
static json_t *drawn(json_t *root, const char *const *arms, int n, const char *worst)
{
    json_t *d = json_object();
    for (int i = 0; i < n; i++) {
        int r = df_round(root, arms, n, i, worst);
        if (r)
            json_object_set_new(d, arms[i], json_integer(r));
    }
    return d;
}

void df_design(json_t *root, json_t *design)
{
    groups();
    json_object_set_new(design, "df_storm", drawn(root, STORM, 3, NULL));
    json_object_set_new(design, "df_r450", drawn(root, R450, 5, R450[0]));
    json_object_set_new(design, "df_r450_shared", json_boolean(same_round(root, R450, 5, R450[0])));
}
