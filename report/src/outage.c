/* outage.c: the section "The store goes down" and its timeline figure.  The contract is in outage.h. */
#include "outage.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

/* the arms of the timeline, one panel each (arm-lists.tsv's "timeline") */
static const char *TL[OT_MAXTIMELINE + 1];
static int NTL;

static void timeline(void)
{
    if (!NTL)
        NTL = (int)rd_list("timeline", TL, NULL, OT_MAXTIMELINE + 1);
}

/* the per-second series the timeline draws, in drawing order */
/* (their legend's words: figure-words.tsv's outage.<key>) */
static const struct {
    const char *key;
    int col;
} SERIES[] = {
    {"arrivals", FG_GREY}, {"lookups_sent", FG_PURPLE}, {"live", FG_GREEN}, {"standins", FG_BLUE}, {"errors", FG_RED},
};
#define NSERIES (sizeof SERIES / sizeof SERIES[0])

enum { MAXR = 64, MAXS = 600 };

static int has_round(json_t *root, const char *arm, int r)
{
    int rounds[MAXR];
    size_t n = rd_rounds(root, arm, rounds, MAXR);
    for (size_t k = 0; k < n; k++)
        if (rounds[k] == r)
            return 1;
    return 0;
}

int ot_round(json_t *root, const char *arm)
{
    int rounds[MAXR], any[MAXR];
    timeline();
    size_t n = rd_rounds(root, arm, rounds, MAXR);
    /* the lowest round every timeline arm with quiet rounds has: the same dice in every panel */
    for (size_t k = 0; k < n; k++) {
        int all = 1;
        for (int a = 0; a < NTL; a++)
            if (rd_rounds(root, TL[a], any, MAXR) && !has_round(root, TL[a], rounds[k]))
                all = 0;
        if (all)
            return rounds[k];
    }
    return n ? rounds[0] : 0;
}

/* the window's words for the arm's fault (figure-words.tsv: outage.window.<fault>, else the down one) */
static const char *window_words(const char *arm)
{
    const char *f = rd_arm_fault(arm);
    if (!strcmp(f, "reset"))
        return rd_word("outage.window.reset");
    if (!strcmp(f, "hang"))
        return rd_word("outage.window.hang");
    return rd_word("outage.window.down");
}

/* ------------------------------------------------------------ figure */

/* one value of a run's second s, NAN when missing */
static double ps_num(json_t *root, const char *run, size_t s, const char *key)
{
    double v;
    return rd_num(root, &v, "/runs/%s/per_second/%zu/%s", run, s, key) ? NAN : v;
}

/* the breaker's states in its band, in the order of BAND_KEYS (their words) */
enum { BAND_CLOSED, BAND_OPEN, BAND_HALF, NBAND };
static const char *const BAND_KEYS[NBAND] = {"outage.band.closed", "outage.band.open", "outage.band.half"};
static const int BAND_COLS[NBAND] = {FG_GRID, FG_ORANGE, FG_PINK};

/* an arm with a circuit breaker (the arms file's brk_cool_ms) */
static int has_breaker(const char *arm)
{
    return atoi(rd_arm_col(arm, "brk_cool_ms")) > 0;
}

static int band_state(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "closed"))
        return BAND_CLOSED;
    if (!strcmp(s, "open"))
        return BAND_OPEN;
    if (!strcmp(s, "half_open"))
        return BAND_HALF;
    return -1;
}

/* the breaker's state along the run as a band from y0 to y1 (world units),
 * from extra.runs.<run>.breaker (report/README.md): closed before its first
 * change; a change of an unknown state is drawn grey.  A stretch too short
 * to see (a half-open spell of a few ms) is drawn 4 pixels wide.  Without
 * the list the band says that the changes were not exported. */
static void band(json_t *root, const char *run, int nmax, double y0, double y1)
{
    json_t *ch = rd_at(root, "/extra/runs/%s/breaker", run);
    if (!json_is_array(ch)) {
        fg_color(FG_LIGHTGREY);
        fg_rect(0, y0, nmax, y1);
        fg_text(nmax / 2.0, (y0 + y1) / 2 - (y1 - y0) * 0.3, 0.5, 0.8, FG_GREY, "%s", rd_word("band.1"));
        return;
    }
    double minw = nmax * 4.0 / 870, from = 0;
    int state = BAND_CLOSED;
    for (size_t i = 0; i <= json_array_size(ch); i++) {
        json_t *e = json_array_get(ch, i);
        double t = e ? json_number_value(json_object_get(e, "t_ms")) / 1e3 : nmax;
        double a = fmax(0, fmin(from, nmax)), b = fmax(0, fmin(t, nmax));
        if (state != BAND_CLOSED && a < nmax && b - a < minw)
            b = fmin(a + minw, nmax);
        if (b > a) {
            fg_color(state < 0 ? FG_GREY : BAND_COLS[state]);
            fg_rect(a, y0, b, y1);
        }
        if (!e)
            break;
        state = band_state(json_string_value(json_object_get(e, "state")));
        from = t;
    }
}

static void panel(json_t *root, int a, double y0, double y1, int nmax, double top)
{
    const char *arm = TL[a];
    char words[200], head[400], run[96];
    rd_arm_words(arm, words, sizeof words);
    int r = ot_round(root, arm);
    snprintf(run, sizeof run, "%s-r%d", arm, r);
    json_t *ps = rd_at(root, "/runs/%s/per_second", run);
    fg_panel(0.1, 0.97, y0, y1, 0, nmax, 0, top);
    if (!rd_measured(root, arm) || !r || !json_is_array(ps)) {
        snprintf(head, sizeof head, "%s: %s", arm, words);
        fg_frame();
        fg_mtext("t", 0.6, 0.0, 0.0, 0.95, FG_BLACK, head);
        fg_text(nmax / 2.0, top / 2, 0.5, 1.1, FG_GREY, "%s",
                rd_measured(root, arm) ? rd_word("panel.2") : rd_word("panel.1"));
        return;
    }
    snprintf(head, sizeof head, "%s, round %d: %s", arm, r, words);
    /* the window, shaded first so that the lines run over it */
    double from, to;
    if (!rd_num(root, &from, "/runs/%s/win_from_ms", run)) {
        if (rd_num(root, &to, "/runs/%s/win_to_ms", run))
            to = nmax * 1e3;
        fg_color(FG_LIGHTGREY);
        fg_rect(from / 1e3, 0, fmin(to / 1e3, nmax), top);
        fg_text((from / 1e3 + fmin(to / 1e3, nmax)) / 2, top * (has_breaker(arm) ? 0.8 : 0.9), 0.5, 0.8, FG_GREY,
                "%s", window_words(arm));
    }
    if (has_breaker(arm))
        band(root, run, nmax, top * 0.88, top);
    fg_linaxis_y_n(top, NULL, 0.8, 4);
    double step = nmax > 20 ? 5 : nmax > 8 ? 2 : 1;
    fg_color(FG_GRID);
    for (double x = step; x < nmax; x += step)
        fg_line(x, 0, x, top);
    fg_frame();
    fg_mtext("t", 0.6, 0.0, 0.0, 0.95, FG_BLACK, head);
    int n = (int)(json_array_size(ps) < MAXS ? json_array_size(ps) : MAXS);
    double y[MAXS];
    for (size_t k = 0; k < NSERIES; k++) {
        for (int s = 0; s < n; s++)
            y[s] = ps_num(root, run, (size_t)s, SERIES[k].key);
        fg_steps(n, y, SERIES[k].col, k == 0 ? 6 : 1.8);
    }
}

int ot_figure(json_t *root, const char *figdir)
{
    /* one time axis and one count axis for every panel, so that they compare */
    int nmax = 1;
    double ymax = 0;
    timeline();
    for (int a = 0; a < NTL; a++) {
        char run[96];
        snprintf(run, sizeof run, "%s-r%d", TL[a], ot_round(root, TL[a]));
        json_t *ps = rd_at(root, "/runs/%s/per_second", run);
        size_t n = json_array_size(ps) < MAXS ? json_array_size(ps) : MAXS;
        if ((int)n > nmax)
            nmax = (int)n;
        for (size_t s = 0; s < n; s++)
            for (size_t k = 0; k < NSERIES; k++) {
                double v = ps_num(root, run, s, SERIES[k].key);
                if (isfinite(v))
                    ymax = fmax(ymax, v);
            }
    }
    double top = fg_nice_top(ymax > 0 ? ymax * 1.1 : 1);
    int W = 1000, H = 220 + NTL * 190;
    char path[4200];
    snprintf(path, sizeof path, "%s/outage.svg", figdir);
    fg_begin(path, W, H);
    fg_title(rd_word("outage"));
    double t = 1 - 75.0 / H, b = 150.0 / H, gap = 38.0 / H;
    double ph = (t - b - (NTL - 1) * gap) / NTL;
    for (int a = 0; a < NTL; a++) {
        double y1 = t - a * (ph + gap);
        panel(root, a, y1 - ph, y1, nmax, top);
        fg_mtext("l", 4.6, 0.5, 0.5, 0.85, FG_BLACK, rd_word("figure.1"));
    }
    fg_panel(0.1, 0.97, b, b + ph, 0, nmax, 0, top);
    fg_linaxis_x(0, nmax, nmax > 20 ? 5 : nmax > 8 ? 2 : 1, NULL, " s", 0.85);
    fg_mtext("b", 2.8, 0.5, 0.5, 0.9, FG_BLACK, rd_word("figure.2"));
    const char *names[NSERIES];
    int cols[NSERIES];
    for (size_t k = 0; k < NSERIES; k++) {
        char key[64];
        snprintf(key, sizeof key, "outage.%s", SERIES[k].key);
        names[k] = rd_word(key);
        cols[k] = SERIES[k].col;
    }
    fg_legend(0.1, 0.97, 50.0 / H, 85.0 / H, (int)NSERIES, names, cols, NULL, 0.85);
    const char *band_names[NBAND];
    for (int k = 0; k < NBAND; k++)
        band_names[k] = rd_word(BAND_KEYS[k]);
    fg_legend(0.1, 0.6, 10.0 / H, 45.0 / H, NBAND, band_names, BAND_COLS, NULL, 0.85);
    if (fg_end()) {
        fprintf(stderr, "report: cannot write the figure %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ section */

void ot_design(json_t *root, json_t *design)
{
    json_t *d = json_object();
    timeline();
    for (int a = 0; a < NTL; a++) {
        int r = ot_round(root, TL[a]);
        if (rd_measured(root, TL[a]) && r && rd_at(root, "/runs/%s-r%d", TL[a], r))
            json_object_set_new(d, TL[a], json_integer(r));
    }
    json_object_set_new(design, "outage_drawn", d);
}
