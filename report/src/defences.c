/* defences.c: the section "The defences" and its figures (storm, retry450, bulkhead).  The contract is in defences.h. */
#include "defences.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

enum { MAXR = 64, MAXS = 600 };

/* the groups the figures draw, each with its colours and legend words */
static const char *const STORM[3] = {"H3-r4x-down", "H3-r4xf-down", "H3-r4xe-down"};
static const int STORM_COL[3] = {FG_RED, FG_BLUE, FG_GREEN};
static const char *const STORM_WORDS[3] = {"no jitter", "full jitter", "equal jitter"};

/* H4-fb25 last: the grey reference, drawn first */
static const char *const R450[5] = {"H4-r2", "H4-r2bud", "H4-r2dl", "H4-hedge", "H4-fb25"};
static const int R450_COL[5] = {FG_RED, FG_BLUE, FG_TEAL, FG_GREEN, FG_GREY};
static const char *const R450_WORDS[5] = {"two retries at once", "under a retry budget", "deadline passed down",
                                          "asking twice", "one try, stand-in"};

static const char *const BULK[2] = {"H3-pool-hang", "H3-bulk-hang"};

static const char *const BREAKERS[8] = {"H3-brk-down",   "H3-brk-hang",   "H3-brk-reset", "H3-brk-never",
                                        "H3-brkw-down",  "H3-brkr2-down", "H3-brkr2-hang", "H4-brkr2"};

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
        snprintf(names[i], 96, "%s: %s", arms[i], grey[i] ? "not measured" : words[i]);
        ptr[i] = names[i];
    }
}

/* ------------------------------------------------------------ storm.svg */

static int fig_storm(json_t *root, const char *figdir)
{
    int W = 1000, H = 470;
    fg_begin(fg_path(figdir, "storm"), W, H);
    fg_title("Capped backoff: the store's lookups per 100 ms in the second after the window");
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
    fg_mtext("l", 4.2, 0.5, 0.5, 0.9, FG_BLACK, "lookups per 100 ms");
    fg_mtext("b", 2.8, 0.5, 0.5, 0.85, FG_BLACK,
             "from the window's end; bars: each 100 ms; dashed: the run's mean per 100 ms before the window");
    char head[300];
    if (!nd)
        snprintf(head, sizeof head, "no round drawn");
    else if (same_round(root, STORM, 3, NULL))
        snprintf(head, sizeof head, "round %d", df_round(root, STORM, 3, drawn[0] ? 0 : drawn[1] ? 1 : 2, NULL));
    else
        snprintf(head, sizeof head, "each arm's lowest quiet round (no round in common)");
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
        fg_text(500, top / 2, 0.5, 1.1, FG_GREY, "%s", "capped backoff with the store down: not measured");
    char names[3][96];
    const char *ptr[3];
    int grey[3];
    legend_names(root, 3, STORM, STORM_WORDS, names, ptr, grey);
    for (int i = 0; i < 3; i++)
        if (!grey[i] && !drawn[i]) {
            snprintf(names[i], 96, "%s: no such second", STORM[i]);
            grey[i] = 1;
        }
    fg_legend(0.09, 0.97, 0.02, 0.09, 3, ptr, STORM_COL, grey, 0.85);
    return fg_finish(figdir, "storm");
}

/* ------------------------------------------------------------ retry450.svg */

static int fig_retry450(json_t *root, const char *figdir)
{
    static const char *const keys[2] = {"standins", "lookups_sent"};
    static const char *const heads[2] = {"stand-ins (requests scheduled in that second)", "lookups sent"};
    int W = 1100, H = 720;
    fg_begin(fg_path(figdir, "retry450"), W, H);
    fg_title("450 a second: retries with the budget, with the deadline passed down, and asking twice, beside r2");
    char run[5][96];
    int nsec = 1, drawn[5], nd = 0;
    double ymax[2] = {0, 0};
    for (int i = 0; i < 5; i++) {
        int r = df_round(root, R450, 5, i, "H4-r2");
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
            r0 = df_round(root, R450, 5, i, "H4-r2");
    if (!nd)
        snprintf(head, sizeof head, "no round drawn");
    else if (same_round(root, R450, 5, "H4-r2"))
        snprintf(head, sizeof head, "round %d, every arm", r0);
    else
        snprintf(head, sizeof head, "each arm's lowest quiet round (no round in common)");
    double step = nsec > 20 ? 5 : nsec > 8 ? 2 : 1;
    for (int k = 0; k < 2; k++) {
        double top = fg_nice_top(ymax[k] > 5 ? ymax[k] * 1.08 : 5);
        double y1 = k == 0 ? 0.86 : 0.49, y0 = y1 - 0.31;
        fg_panel(0.09, 0.97, y0, y1, 0, nsec, 0, top);
        fg_linaxis_y_n(top, "int", 0.85, 4);
        fg_color(FG_GRID);
        for (double x = step; x < nsec; x += step)
            fg_line(x, 0, x, top);
        fg_frame();
        fg_mtext("t", 0.6, 0.0, 0.0, 0.9, FG_BLACK, heads[k]);
        if (k == 0)
            fg_mtext("t", 0.6, 1.0, 1.0, 0.9, FG_BLACK, head);
        fg_mtext("l", 4.2, 0.5, 0.5, 0.9, FG_BLACK, "per second");
        if (k == 1) {
            fg_linaxis_x(0, nsec, step, NULL, " s", 0.85);
            fg_mtext("b", 2.8, 0.5, 0.5, 0.85, FG_BLACK, "seconds from the run's start");
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
            fg_text(nsec / 2.0, top / 2, 0.5, 1.1, FG_GREY, "%s", "retries at 450/s: not measured");
    }
    char names[5][96];
    const char *ptr[5];
    int grey[5];
    legend_names(root, 5, R450, R450_WORDS, names, ptr, grey);
    fg_legend(0.09, 0.97, 0.07, 0.11, 3, ptr, R450_COL, grey, 0.85);
    fg_legend(0.09, 0.65, 0.01, 0.05, 2, ptr + 3, R450_COL + 3, grey + 3, 0.85);
    return fg_finish(figdir, "retry450");
}

/* ------------------------------------------------------------ bulkhead.svg */

static void bulk_bars(json_t *root, const char *const figs[2], const int cols[2], const char *kind, double top)
{
    for (int a = 0; a < 2; a++) {
        fg_mtext("b", 1.3, (a + 0.5) / 2, 0.5, 0.9, FG_BLACK, BULK[a]);
        if (!rd_measured(root, BULK[a])) {
            fg_text(a + 0.5, top * 0.45, 0.5, 0.9, FG_GREY, "%s", "not measured");
            continue;
        }
        for (int f = 0; f < 2; f++) {
            double x = a + 0.3 + f * 0.4, med = arm_stat(root, BULK[a], figs[f], "median");
            if (!isfinite(med)) {
                fg_vtext(x, top * 0.03, 0, 0.8, FG_GREY, "not measured");
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
    fg_title("The bulkhead: the healthy store's requests while the other store hangs");
    fg_panel(0.08, 0.47, 0.24, 0.82, 0, 2, 0, 1.1);
    fg_linaxis_y(1.0, "pct", 0.85);
    fg_frame();
    fg_mtext("t", 0.8, 0.5, 0.5, 0.95, FG_BLACK, "answered live, requests in the window");
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
    fg_mtext("t", 0.8, 0.5, 0.5, 0.95, FG_BLACK, "the healthy store's slowest 1 in 100 (ms)");
    bulk_bars(root, p99, p99_col, "ms", top);
    static const char *const names[3] = {"the hung store's requests", "the healthy store's requests, in the window",
                                         "the healthy store's requests, whole run"};
    static const int cols[3] = {FG_ORANGE, FG_GREEN, FG_LIGHTBLUE};
    fg_legend(0.08, 0.97, 0.09, 0.14, 3, names, cols, NULL, 0.85);
    fg_panel(0.08, 0.97, 0.0, 0.07, 0, 1, 0, 1);
    fg_text(0.5, 0.45, 0.5, 0.85, FG_BLACK, "%s",
            "H3-pool-hang: one limit of 16 lookups in flight for both stores; H3-bulk-hang: 8 for each; "
            "bar: median over rounds, whisker: lowest to highest round");
    return fg_finish(figdir, "bulkhead");
}

int df_figures(json_t *root, const char *figdir)
{
    int rc = 0;
    rc |= fig_storm(root, figdir);
    rc |= fig_retry450(root, figdir);
    rc |= fig_bulkhead(root, figdir);
    return rc;
}

/* ------------------------------------------------------------ section helpers */

/* "median (lowest–highest)" of arms.<arm>.<fig>; "not measured" when the
 * arm or the figure is missing or null */
static void rng(page *p, json_t *root, const char *kind, const char *arm, const char *fig)
{
    if (!rd_measured(root, arm) || !json_is_object(rd_at(root, "/arms/%s/%s", arm, fig))) {
        pg_nm(p);
        return;
    }
    pg_range(p, kind, arm, fig);
    if (!strcmp(kind, "ms"))
        pg_t(p, " ms");
}

/* a run's figure (runs.<run>.<path>), "not measured" when missing or null */
static void runv(page *p, json_t *root, const char *kind, const char *run, const char *path)
{
    if (!json_is_number(rd_at(root, "/runs/%s/%s", run, path))) {
        pg_nm(p);
        return;
    }
    pg_v(p, kind, "/runs/%s/%s", run, path);
    if (!strcmp(kind, "ms"))
        pg_t(p, " ms");
}

/* the index in verdicts of a against b on fig when it has rounds, else -1 */
static int verdict_at(json_t *root, const char *a, const char *b, const char *fig)
{
    json_t *vs = rd_at(root, "/verdicts");
    for (size_t i = 0; i < json_array_size(vs); i++) {
        json_t *v = json_array_get(vs, i);
        const char *va = json_string_value(json_object_get(v, "a")), *vb = json_string_value(json_object_get(v, "b"));
        const char *vf = json_string_value(json_object_get(v, "figure"));
        if (va && vb && vf && !strcmp(va, a) && !strcmp(vb, b) && !strcmp(vf, fig))
            return json_array_size(json_object_get(v, "rounds")) ? (int)i : -1;
    }
    return -1;
}

typedef struct {
    const char *a, *b, *fig;
} cmp;

/* " The study's verdicts ...: A against B on FIG: V, D; ..." for those of
 * the n comparisons the study has a verdict on; nothing when none */
static void verdicts(page *p, json_t *root, const cmp *c, int n)
{
    int said = 0;
    for (int k = 0; k < n; k++) {
        int i = verdict_at(root, c[k].a, c[k].b, c[k].fig);
        if (i < 0)
            continue;
        pg_t(p, said ? "; " : " The study's verdicts, over the rounds both arms have: ");
        pg_t(p, "%s against %s on ", c[k].a, c[k].b);
        pg_code(p, c[k].fig);
        pg_t(p, ": ");
        pg_v(p, "str", "/verdicts/%d/verdict", i);
        if (json_is_string(rd_at(root, "/verdicts/%d/direction", i))) {
            pg_t(p, ", ");
            pg_v(p, "str", "/verdicts/%d/direction", i);
        }
        said++;
    }
    if (said)
        pg_t(p, ".");
}

/* ------------------------------------------------------------ the breaker */

static void breaker_table(page *p, json_t *root)
{
    const char *h[] = {"arm",
                       "what it does",
                       "times opened",
                       "changes of state",
                       "ms open",
                       "ms half open",
                       "ms closed",
                       "lookups per request in the window",
                       "first live answer after the window, ms",
                       "slowest one in a hundred, ms"};
    static const char *const f[][2] = {{"brk_opened", "int"},      {"brk_transitions", "int"},
                                       {"brk_open_ms", "ms"},      {"brk_half_ms", "ms"},
                                       {"brk_closed_ms", "ms"},    {"during_lookups_per_request", "x"},
                                       {"first_live_after_ms", "ms"}, {"p99_ms", "ms"}};
    tb_begin(p, "breakers", 10, h);
    for (int i = 0; i < 8; i++) {
        const char *a = BREAKERS[i];
        char words[200];
        rd_arm_words(a, words, sizeof words);
        tb_row(p);
        tb_th(p, "%s", a);
        tb_th(p, "%s", words);
        if (!rd_measured(root, a)) {
            tb_td_span(p, 8, "l");
            pg_nm(p);
            tb_td_end(p);
            continue;
        }
        for (int k = 0; k < 8; k++) {
            tb_td_begin(p, NULL);
            if (json_is_object(rd_at(root, "/arms/%s/%s", a, f[k][0])))
                pg_range(p, f[k][1], a, f[k][0]);
            else
                pg_nm(p);
            tb_td_end(p);
        }
    }
    tb_end(p);
}

/* "LABEL (ARM) value" items of one figure, joined by "; " */
static void items(page *p, json_t *root, const char *kind, const char *fig, int n, const char *const (*it)[2])
{
    for (int i = 0; i < n; i++) {
        pg_t(p, "%s%s (%s) ", i ? "; " : "", it[i][1], it[i][0]);
        rng(p, root, kind, it[i][0], fig);
    }
}

#define NITEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define VERDICTS(p, root, c) verdicts((p), (root), (c), NITEMS(c))

static void breaker_part(page *p, json_t *root)
{
    static const char *const window[][2] = {
        {"H3-brk-down", "the breaker in front of the 25 ms stand-in"},
        {"H3-brkr2-down", "in front of two retries"},
        {"H3-brkw-down", "opening on a failure share of the last 20 results instead of five failures in a row"},
        {"H3-r2-down", "two retries without it"},
        {"H3-fb25-down", "the plain stand-in"}};
    static const cmp vwindow[] = {{"H3-brk-down", "H3-r2-down", "during_lookups_per_request"},
                                  {"H3-brkr2-down", "H3-r2-down", "during_lookups_per_request"},
                                  {"H3-brkw-down", "H3-brk-down", "during_lookups_per_request"}};
    static const char *const back[][2] = {{"H3-brk-down", "with the breaker"},
                                          {"H3-fb25-down", "with the plain stand-in"}};
    static const char *const reset[][2] = {{"H3-brk-reset", "with the breaker"},
                                           {"H3-fb25-reset", "with the plain stand-in"}};
    static const cmp vback[] = {{"H3-brk-down", "H3-fb25-down", "first_live_after_ms"},
                                {"H3-brk-down", "H3-fb25-down", "recovered_s"},
                                {"H3-brk-reset", "H3-fb25-reset", "first_live_after_ms"}};
    static const char *const hang[][2] = {{"H3-brk-hang", "with the breaker"},
                                          {"H3-fb25-hang", "the plain stand-in"},
                                          {"H3-brkr2-hang", "the breaker in front of two retries"},
                                          {"H3-r2-hang", "two retries without it"}};
    static const char *const flood[][2] = {{"H4-brkr2", "the breaker in front of two retries"},
                                           {"H4-r2", "two retries without it"}};
    static const cmp vother[] = {{"H3-brk-never", "H3-fb25-never", "lookups_per_request"},
                                 {"H3-brk-hang", "H3-fb25-hang", "p99_ms"},
                                 {"H3-brkr2-hang", "H3-r2-hang", "p99_ms"},
                                 {"H4-brkr2", "H4-r2", "lookups_per_request"}};
    pg_h(p, 3, "defences-breaker", "The circuit breaker");
    pg_p_begin(p, NULL);
    pg_t(p, "Store down: lookups sent per request scheduled in the window, median over rounds (lowest to highest "
            "round): ");
    items(p, root, "x", "during_lookups_per_request", NITEMS(window), window);
    pg_t(p, ".");
    VERDICTS(p, root, vwindow);
    pg_p_end(p);

    pg_p_begin(p, NULL);
    pg_t(p, "The breaker learns that the store is back only from a probe after its cooldown. The first live "
            "answer after the window's end: ");
    items(p, root, "ms", "first_live_after_ms", NITEMS(back), back);
    pg_t(p, ". Whole seconds after it until under 1 in 100 requests were not live: ");
    items(p, root, "int", "recovered_s", NITEMS(back), back);
    pg_t(p, ". After a reset, where the cooldown comes on top of reconnecting, the first live answer: ");
    items(p, root, "ms", "first_live_after_ms", NITEMS(reset), reset);
    pg_t(p, ".");
    VERDICTS(p, root, vback);
    pg_p_end(p);

    pg_p_begin(p, NULL);
    pg_t(p, "A store that never comes back (H3-brk-never), median over rounds: the breaker opened ");
    rng(p, root, "int", "H3-brk-never", "brk_opened");
    pg_t(p, " times, was open ");
    rng(p, root, "ms", "H3-brk-never", "brk_open_ms");
    pg_t(p, " and half open ");
    rng(p, root, "ms", "H3-brk-never", "brk_half_ms");
    pg_t(p, "; lookups per request ");
    rng(p, root, "x", "H3-brk-never", "lookups_per_request");
    pg_t(p, ", against ");
    rng(p, root, "x", "H3-fb25-never", "lookups_per_request");
    pg_t(p, " for the plain stand-in (H3-fb25-never). A breaker that keeps probing opens again once a cooldown; "
            "one stuck open would not. A store that hangs, the slowest 1 in 100: ");
    items(p, root, "ms", "p99_ms", NITEMS(hang), hang);
    pg_t(p, ". At 450/s with a store that does not fail, lookups per request: ");
    items(p, root, "x", "lookups_per_request", NITEMS(flood), flood);
    pg_t(p, ".");
    VERDICTS(p, root, vother);
    pg_p_end(p);

    pg_p_begin(p, NULL);
    pg_t(p, "Every breaker arm: how often it opened and how long it spent in each state (recomputed by the "
            "verifier from its changes of state), median over rounds with the lowest and highest round in "
            "brackets.");
    pg_p_end(p);
    breaker_table(p, root);
}

/* ------------------------------------------------------------ capped backoff */

static int backoff_part(page *p, json_t *root)
{
    static const char *const storm[][2] = {{"H3-r4x-down", "no jitter"},
                                           {"H3-r4xf-down", "full jitter"},
                                           {"H3-r4xe-down", "equal jitter"}};
    static const char *const slow[][2] = {{"H3-r4x-down", "no jitter"},
                                          {"H3-r4xf-down", "full jitter"},
                                          {"H3-r2-down", "two retries at once"}};
    static const char *const flood[][2] = {{"H4-r4xf", "full jitter"}, {"H4-r2", "two retries at once"}};
    static const cmp v[] = {{"H3-r4xf-down", "H3-r4x-down", "recovery_lookups_100ms_max"},
                            {"H3-r4xe-down", "H3-r4x-down", "recovery_lookups_100ms_max"},
                            {"H3-r4x-down", "H3-r2-down", "p99_ms"},
                            {"H4-r4xf", "H4-r2", "lookups_per_request"}};
    pg_h(p, 3, "defences-backoff", "Capped backoff and the storm at recovery");
    pg_p_begin(p, NULL);
    pg_t(p, "Four retries after pauses of 10 ms doubling up to at most 40 ms: the same pauses for every request "
            "(no jitter), a pause drawn between zero and that (full jitter), or between half of it and all of it "
            "(equal jitter). The fear is a storm when the store comes back: every request that waited out the "
            "window retrying at once.");
    pg_p_end(p);
    if (pg_figure(p, "storm", "Capped backoff: the store's lookups per 100 ms in the second after the window",
                  "The lookups the store received in each 100 ms of the second after a down window ends, in one "
                  "round of each arm; dashed, the same run's mean per 100 ms before the window."))
        return -1;
    pg_p_begin(p, NULL);
    pg_t(p, "In the rounds drawn, the busiest 100 ms after the window against the mean 100 ms before it: ");
    for (int i = 0; i < 3; i++) {
        int r = df_round(root, STORM, 3, i, NULL);
        char run[96];
        snprintf(run, sizeof run, "%s-r%d", STORM[i], r);
        pg_t(p, "%s%s (%s", i ? "; " : "", STORM_WORDS[i], STORM[i]);
        if (!r) {
            pg_t(p, ") ");
            pg_nm(p);
            continue;
        }
        pg_t(p, ", round %d) ", r);
        runv(p, root, "int", run, "recovery_lookups_100ms_max");
        pg_t(p, " against ");
        runv(p, root, "s", run, "before_lookups_100ms");
    }
    pg_t(p, ". Over the rounds (median, lowest to highest), the busiest 100 ms after the window: ");
    items(p, root, "int", "recovery_lookups_100ms_max", NITEMS(storm), storm);
    pg_t(p, "; the mean 100 ms before it: ");
    items(p, root, "s", "before_lookups_100ms", NITEMS(storm), storm);
    pg_t(p, ". The pauses cost time with the store down, the slowest 1 in 100: ");
    items(p, root, "ms", "p99_ms", NITEMS(slow), slow);
    pg_t(p, ". At 450/s, lookups per request: ");
    items(p, root, "x", "lookups_per_request", NITEMS(flood), flood);
    pg_t(p, ".");
    VERDICTS(p, root, v);
    pg_p_end(p);
    return 0;
}

/* ------------------------------------------------------------ 450/s */

static int flood_part(page *p, json_t *root)
{
    static const char *const flood[][2] = {{"H4-r2", "two retries at once"},
                                           {"H4-r2bud", "under the budget"},
                                           {"H4-r2dl", "with the deadline passed down"},
                                           {"H4-hedge", "asking twice"},
                                           {"H4-fb25", "one try"}};
    static const char *const tail[][2] = {{"H4-hedge", "asking twice"}, {"H4-fb25", "one try"}};
    static const char *const down[][2] = {{"H3-r2bud-down", "under the budget"},
                                          {"H3-r2-down", "retries without it"}};
    static const cmp v[] = {{"H4-r2bud", "H4-r2", "lookups_per_request"},
                            {"H4-r2bud", "H4-r2", "standin_share"},
                            {"H4-r2dl", "H4-r2", "standin_share"},
                            {"H4-r2dl", "H4-r2", "lookups_per_request"},
                            {"H4-hedge", "H4-fb25", "p99_ms"},
                            {"H4-hedge", "H3-hedge", "lookups_per_request"},
                            {"H3-r2bud-down", "H3-r2-down", "during_lookups_per_request"}};
    pg_h(p, 3, "defences-450", "Retries at 450 a second: a budget, the deadline passed down, asking twice");
    pg_p_begin(p, NULL);
    pg_t(p, "At 450 a second two retries at once can tip the store over (Retries at 450 a second, above). Three "
            "ways to keep the retries: under a budget (a retry only while retries over the last second stay "
            "within 10 in 100 requests plus 10; a refused retry gives the stand-in), inside one 75 ms deadline "
            "passed down to the store (which drops what nobody waits for any more), or a second lookup after "
            "10 ms instead of a retry after 25 ms.");
    pg_p_end(p);
    if (pg_figure(p, "retry450", "450 a second: retries with the budget, with the deadline passed down, and "
                  "asking twice, beside r2",
                  "Per second of one round, the same for every arm when they share one: stand-ins among the "
                  "requests scheduled in that second, and lookups the service sent. Grey: one try with the "
                  "stand-in (H4-fb25)."))
        return -1;
    pg_p_begin(p, NULL);
    int shared = same_round(root, R450, 5, "H4-r2");
    for (int i = 0; i < 4; i++) {
        int r = df_round(root, R450, 5, i, "H4-r2");
        char run[96];
        snprintf(run, sizeof run, "%s-r%d", R450[i], r);
        if (i == 0 && shared && r)
            pg_t(p, "In round %d (the round the arms share in which two retries gave the most stand-ins), "
                    "stand-ins and lookups per request: ", r);
        else if (i == 0)
            pg_t(p, "In each arm's lowest quiet round, stand-ins and lookups per request: ");
        pg_t(p, "%s%s (%s", i ? "; " : "", R450_WORDS[i], R450[i]);
        if (!r) {
            pg_t(p, ") ");
            pg_nm(p);
            continue;
        }
        if (!shared)
            pg_t(p, ", round %d", r);
        pg_t(p, ") ");
        runv(p, root, "pct", run, "standin_share");
        pg_t(p, " and ");
        runv(p, root, "x", run, "lookups_per_request");
        if (i == 1) {
            pg_t(p, ", with ");
            runv(p, root, "int", run, "budget_refused");
            pg_t(p, " retries refused by the budget and ");
            runv(p, root, "int", run, "budget_over");
            pg_t(p, " let through over it");
        }
    }
    pg_t(p, ".");
    pg_p_end(p);

    pg_p_begin(p, NULL);
    pg_t(p, "Over the rounds (median, lowest to highest), stand-ins: ");
    items(p, root, "pct", "standin_share", NITEMS(flood), flood);
    pg_t(p, ". Lookups per request: ");
    items(p, root, "x", "lookups_per_request", NITEMS(flood), flood);
    pg_t(p, ". Retries the budget refused, per round: ");
    rng(p, root, "int", "H4-r2bud", "budget_refused");
    pg_t(p, ". The slowest 1 in 100: ");
    items(p, root, "ms", "p99_ms", NITEMS(tail), tail);
    pg_t(p, ". With the store down, lookups per request in the window: ");
    items(p, root, "x", "during_lookups_per_request", NITEMS(down), down);
    pg_t(p, ".");
    VERDICTS(p, root, v);
    pg_p_end(p);
    return 0;
}

/* ------------------------------------------------------------ the bulkhead */

static void bulkhead_table(page *p, json_t *root)
{
    const char *h[] = {"run",
                       "hung store: requests in the window",
                       "hung store: live",
                       "hung store: slowest one in a hundred",
                       "healthy store: requests in the window",
                       "healthy store: live",
                       "healthy store: slowest one in a hundred",
                       "healthy store, whole run: slowest one in a hundred",
                       "lookups refused by a full compartment"};
    static const char *const f[][2] = {{"store1_during_requests", "int"}, {"store1_during_live_share", "pct"},
                                       {"store1_during_p99_ms", "ms"},   {"store2_during_requests", "int"},
                                       {"store2_during_live_share", "pct"}, {"store2_during_p99_ms", "ms"},
                                       {"store2_p99_ms", "ms"},          {"inflight_refused", "int"}};
    tb_begin(p, "bulkhead", 9, h);
    for (int a = 0; a < 2; a++) {
        int rounds[MAXR];
        size_t n = rd_rounds(root, BULK[a], rounds, MAXR);
        if (!n) {
            tb_row(p);
            tb_th(p, "%s", BULK[a]);
            tb_td_span(p, 8, "l");
            if (rd_measured(root, BULK[a]))
                pg_t(p, "no quiet round");
            else
                pg_nm(p);
            tb_td_end(p);
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            char run[96];
            snprintf(run, sizeof run, "%s-r%d", BULK[a], rounds[k]);
            tb_row(p);
            tb_th(p, "%s", run);
            for (int i = 0; i < 8; i++) {
                tb_td_begin(p, NULL);
                runv(p, root, f[i][1], run, f[i][0]);
                tb_td_end(p);
            }
        }
    }
    tb_end(p);
}

static int bulkhead_part(page *p, json_t *root)
{
    static const char *const both[][2] = {{"H3-pool-hang", "without the bulkhead"},
                                          {"H3-bulk-hang", "with it"}};
    static const cmp v[] = {{"H3-bulk-hang", "H3-pool-hang", "store2_during_live_share"},
                            {"H3-bulk-hang", "H3-pool-hang", "store2_during_p99_ms"}};
    pg_h(p, 3, "defences-bulkhead", "The bulkhead");
    pg_p_begin(p, NULL);
    pg_t(p, "A bulkhead keeps one slow dependency from using up what the others need. Here half the rows ask a "
            "second, healthy store while the first hangs through the window; each try waits up to 250 ms. "
            "Without a bulkhead (H3-pool-hang) both stores share one limit of 16 lookups in flight, which the "
            "hung store's tries fill; with it (H3-bulk-hang) each store has 8. A lookup refused by a full "
            "compartment gets the stand-in at once.");
    pg_p_end(p);
    if (pg_figure(p, "bulkhead", "The bulkhead: the healthy store's requests while the other store hangs",
                  "Left: the share of the requests scheduled in the window answered live, the hung store's and the "
                  "healthy store's; right: the healthy store's slowest 1 in 100, in the window and over the whole "
                  "run."))
        return -1;
    pg_p_begin(p, NULL);
    pg_t(p, "The healthy store's requests scheduled in the window, median over rounds (lowest to highest round), "
            "answered live: ");
    items(p, root, "pct", "store2_during_live_share", 2, both);
    pg_t(p, "; their slowest 1 in 100: ");
    items(p, root, "ms", "store2_during_p99_ms", 2, both);
    pg_t(p, "; over the whole run: ");
    items(p, root, "ms", "store2_p99_ms", 2, both);
    pg_t(p, ". The hung store's requests in the window, answered live: ");
    items(p, root, "pct", "store1_during_live_share", 2, both);
    pg_t(p, ". Lookups refused by a full compartment: ");
    items(p, root, "int", "inflight_refused", 2, both);
    pg_t(p, ".");
    VERDICTS(p, root, v);
    pg_p_end(p);
    pg_p_begin(p, NULL);
    pg_t(p, "Round by round (the quiet rounds), each store's requests scheduled in the window:");
    pg_p_end(p);
    bulkhead_table(p, root);
    return 0;
}

static void hedge_part(page *p, json_t *root)
{
    static const char *const lt[][2] = {{"L3-ahedge", "adaptive"}, {"L3-hedge", "fixed"}};
    static const char *const fr[][2] = {{"H3-ahedge", "adaptive"}, {"H3-hedge", "fixed"}};
    static const cmp vh[] = {{"L3-ahedge", "L3-hedge", "p99_ms"},
                             {"L3-ahedge", "L3-hedge", "lookups_per_request"},
                             {"H3-ahedge", "H3-hedge", "p99_ms"}};
    static const cmp vt[] = {{"H3-t23", "H3-dl", "p99_ms"}};
    pg_h(p, 3, "defences-hedge", "The adaptive hedge, and a plain 23 ms limit against the deadline");
    pg_p_begin(p, NULL);
    pg_t(p, "The adaptive hedge asks again after the p95 of the last 1,000 lookups that answered, instead of a "
            "fixed 10 ms. The slowest 1 in 100 on the long tail: ");
    items(p, root, "ms", "p99_ms", 2, lt);
    pg_t(p, "; lookups per request: ");
    items(p, root, "x", "lookups_per_request", 2, lt);
    pg_t(p, ". With freezes, the slowest 1 in 100: ");
    items(p, root, "ms", "p99_ms", 2, fr);
    pg_t(p, ".");
    VERDICTS(p, root, vh);
    pg_p_end(p);
    pg_p_begin(p, NULL);
    pg_t(p, "The fair contest the first lesson left out: the deadline keeps 2 ms of its 25 for scoring, so its "
            "lookup gets 23 ms. A plain 23 ms limit with an error (H3-t23): the slowest 1 in 100 ");
    rng(p, root, "ms", "H3-t23", "p99_ms");
    pg_t(p, ", errors ");
    rng(p, root, "pct", "H3-t23", "error_share");
    pg_t(p, ". The deadline with the stand-in (H3-dl): ");
    rng(p, root, "ms", "H3-dl", "p99_ms");
    pg_t(p, ", stand-ins ");
    rng(p, root, "pct", "H3-dl", "standin_share");
    pg_t(p, ".");
    VERDICTS(p, root, vt);
    pg_p_end(p);
}

int df_section(page *p, json_t *root)
{
    pg_h(p, 2, "defences", "The defences");
    pg_p_begin(p, NULL);
    pg_t(p, "The outage lesson recommends defences that look across requests. Each is an arm here, measured "
            "against the arm it defends. Before a lookup goes out it passes three gates, in this order: the "
            "retry budget (retries only), its store's compartment (a limit of lookups in flight) and the circuit "
            "breaker. A lookup a gate refuses is not sent, and its request gets the stand-in at once. A figure "
            "or arm this study lacks is said to be not measured.");
    pg_p_end(p);
    breaker_part(p, root);
    if (backoff_part(p, root))
        return -1;
    if (flood_part(p, root))
        return -1;
    if (bulkhead_part(p, root))
        return -1;
    hedge_part(p, root);
    return 0;
}
