/* outage.c: the section "The store goes down" and its timeline figure.  The contract is in outage.h. */
#include "outage.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

const char *const OT_TIMELINE[OT_NTIMELINE] = {"H3-none-down", "H3-fb25-down", "H3-r2-down", "H3-brk-down",
                                               "H3-fb25-reset"};

/* the per-second series the timeline draws, in drawing order */
static const struct {
    const char *key, *name;
    int col;
} SERIES[] = {
    {"arrivals", "requests scheduled", FG_GREY},
    {"lookups_sent", "lookups tried", FG_PURPLE},
    {"live", "live answers", FG_GREEN},
    {"standins", "stand-ins", FG_BLUE},
    {"errors", "errors or no answer", FG_RED},
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
    size_t n = rd_rounds(root, arm, rounds, MAXR);
    /* the lowest round every timeline arm with quiet rounds has: the same dice in every panel */
    for (size_t k = 0; k < n; k++) {
        int all = 1;
        for (int a = 0; a < OT_NTIMELINE; a++)
            if (rd_rounds(root, OT_TIMELINE[a], any, MAXR) && !has_round(root, OT_TIMELINE[a], rounds[k]))
                all = 0;
        if (all)
            return rounds[k];
    }
    return n ? rounds[0] : 0;
}

static const char *window_words(const char *arm)
{
    const char *f = rd_arm_fault(arm);
    if (!strcmp(f, "reset"))
        return "store closed, refusing";
    if (!strcmp(f, "hang"))
        return "store hangs";
    return "store down";
}

/* ------------------------------------------------------------ figure */

/* one value of a run's second s, NAN when missing */
static double ps_num(json_t *root, const char *run, size_t s, const char *key)
{
    double v;
    return rd_num(root, &v, "/runs/%s/per_second/%zu/%s", run, s, key) ? NAN : v;
}

/* the breaker's states in its band, in the order of BAND_NAMES */
enum { BAND_CLOSED, BAND_OPEN, BAND_HALF, NBAND };
static const char *const BAND_NAMES[NBAND] = {"breaker closed", "breaker open", "breaker half open"};
static const int BAND_COLS[NBAND] = {FG_GRID, FG_ORANGE, FG_PINK};

static int has_breaker(const char *arm)
{
    return strstr(arm, "-brk") != NULL;
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
        fg_text(nmax / 2.0, (y0 + y1) / 2 - (y1 - y0) * 0.3, 0.5, 0.8, FG_GREY, "breaker changes not exported");
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
    const char *arm = OT_TIMELINE[a];
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
                rd_measured(root, arm) ? "no quiet round" : "not measured");
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
    for (int a = 0; a < OT_NTIMELINE; a++) {
        char run[96];
        snprintf(run, sizeof run, "%s-r%d", OT_TIMELINE[a], ot_round(root, OT_TIMELINE[a]));
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
    int W = 1000, H = 220 + OT_NTIMELINE * 190;
    char path[4200];
    snprintf(path, sizeof path, "%s/outage.svg", figdir);
    fg_begin(path, W, H);
    fg_title("The store goes down: each second of one round");
    double t = 1 - 75.0 / H, b = 150.0 / H, gap = 38.0 / H;
    double ph = (t - b - (OT_NTIMELINE - 1) * gap) / OT_NTIMELINE;
    for (int a = 0; a < OT_NTIMELINE; a++) {
        double y1 = t - a * (ph + gap);
        panel(root, a, y1 - ph, y1, nmax, top);
        fg_mtext("l", 4.6, 0.5, 0.5, 0.85, FG_BLACK, "per second");
    }
    fg_panel(0.1, 0.97, b, b + ph, 0, nmax, 0, top);
    fg_linaxis_x(0, nmax, nmax > 20 ? 5 : nmax > 8 ? 2 : 1, NULL, " s", 0.85);
    fg_mtext("b", 2.8, 0.5, 0.5, 0.9, FG_BLACK, "seconds from the run's start; shaded: the fault window");
    const char *names[NSERIES];
    int cols[NSERIES];
    for (size_t k = 0; k < NSERIES; k++) {
        names[k] = SERIES[k].name;
        cols[k] = SERIES[k].col;
    }
    fg_legend(0.1, 0.97, 50.0 / H, 85.0 / H, (int)NSERIES, names, cols, NULL, 0.85);
    fg_legend(0.1, 0.6, 10.0 / H, 45.0 / H, NBAND, BAND_NAMES, BAND_COLS, NULL, 0.85);
    if (fg_end()) {
        fprintf(stderr, "report: cannot write the figure %s\n", path);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ section */

/* "median (lowest–highest)" of an arm's figure; a dash when no round has
 * it; "not measured" */
static void say_range(page *p, json_t *root, const char *kind, const char *arm, const char *fig)
{
    if (!rd_measured(root, arm)) {
        pg_nm(p);
    } else if (json_is_object(rd_at(root, "/arms/%s/%s", arm, fig))) {
        pg_range(p, kind, arm, fig);
        if (!strcmp(kind, "ms"))
            pg_t(p, " ms");
    } else {
        pg_v(p, kind, "/arms/%s/%s", arm, fig);
    }
}

/* the study's verdict on a b fig (its list of comparisons), when it has one */
static void say_verdict(page *p, json_t *root, const char *a, const char *b, const char *fig)
{
    json_t *vs = rd_at(root, "/verdicts");
    for (size_t i = 0; i < json_array_size(vs); i++) {
        json_t *v = json_array_get(vs, i);
        const char *va = json_string_value(json_object_get(v, "a")), *vb = json_string_value(json_object_get(v, "b"));
        const char *vf = json_string_value(json_object_get(v, "figure"));
        if (!va || !vb || !vf || strcmp(va, a) || strcmp(vb, b) || strcmp(vf, fig))
            continue;
        if (!json_array_size(json_object_get(v, "rounds")))
            return;
        pg_t(p, " (the verdict over the rounds both have: ");
        pg_v(p, "str", "/verdicts/%zu/verdict", i);
        if (json_is_string(json_object_get(v, "direction"))) {
            pg_t(p, ", ");
            pg_v(p, "str", "/verdicts/%zu/direction", i);
        }
        pg_t(p, ")");
        return;
    }
}

/* the drawn run of arm: its round, 0 (and "ARM: not measured.") when there is none */
static int drawn(page *p, json_t *root, const char *arm)
{
    int r = ot_round(root, arm);
    if (!rd_measured(root, arm) || !r || !rd_at(root, "/runs/%s-r%d", arm, r)) {
        pg_t(p, " %s: ", arm);
        pg_nm(p);
        pg_t(p, ".");
        return 0;
    }
    return r;
}

static void down_text(page *p, json_t *root)
{
    static const struct {
        const char *arm, *words, *fig, *what;
    } D[3] = {{"H3-none-down", "Without a limit or a stand-in", "during_errors", "got an error"},
              {"H3-fb25-down", "With the 25 ms stand-in", "during_standins", "got the stand-in"},
              {"H3-r2-down", "With two retries at once and the stand-in", "during_standins", "got the stand-in"}};
    pg_p_begin(p, NULL);
    pg_t(p, "Store down, in the rounds drawn, counting the requests scheduled in the window.");
    for (int i = 0; i < 3; i++) {
        int r = drawn(p, root, D[i].arm);
        if (!r)
            continue;
        pg_t(p, " %s (%s, round %d), ", D[i].words, D[i].arm, r);
        pg_v(p, "int", "/runs/%s-r%d/%s", D[i].arm, r, D[i].fig);
        pg_t(p, " of ");
        pg_v(p, "int", "/runs/%s-r%d/during_requests", D[i].arm, r);
        pg_t(p, " %s and ", D[i].what);
        pg_v(p, "int", "/runs/%s-r%d/during_lost", D[i].arm, r);
        pg_t(p, " no answer at all.");
    }
    pg_p_end(p);

    pg_p_begin(p, NULL);
    pg_t(p, "How much retries multiply the load on a store that is down: lookups sent per request scheduled in the "
            "window, median over rounds (lowest to highest round), ");
    say_range(p, root, "x", "H3-r2-down", "during_lookups_per_request");
    pg_t(p, " with two retries at once (H3-r2-down), ");
    say_range(p, root, "x", "H3-r2bj-down", "during_lookups_per_request");
    pg_t(p, " with random pauses (H3-r2bj-down), against ");
    say_range(p, root, "x", "H3-fb25-down", "during_lookups_per_request");
    pg_t(p, " for the plain stand-in (H3-fb25-down)");
    say_verdict(p, root, "H3-r2-down", "H3-fb25-down", "during_lookups_per_request");
    pg_t(p, ". The store answers unavailable at once, so in the window each retry follows at once too: it adds "
            "load on the store and, while the store stays down, can only fail again.");
    pg_p_end(p);

    pg_p_begin(p, NULL);
    pg_t(p, "Recovery: the first live answer came ");
    say_range(p, root, "ms", "H3-fb25-down", "first_live_after_ms");
    pg_t(p, " after the window's end with the stand-in and ");
    say_range(p, root, "ms", "H3-r2-down", "first_live_after_ms");
    pg_t(p, " with retries (the connections were kept). Whole seconds after the window's end before a second "
            "in which under 1 in 100 requests were not answered live: ");
    say_range(p, root, "int", "H3-fb25-down", "recovered_s");
    pg_t(p, " and ");
    say_range(p, root, "int", "H3-r2-down", "recovered_s");
    pg_t(p, " (a dash: no such second before the run ended; freezes alone can keep a second above that line, "
            "as a frozen lookup gets a stand-in too).");
    pg_p_end(p);
}

/* the breaker's panel in words: its drawn run's window and its changes */
static void breaker_text(page *p, json_t *root)
{
    pg_p_begin(p, NULL);
    pg_t(p, "With a circuit breaker in front of the 25 ms stand-in (five failures in a row open it for 250 ms, "
            "then three probes decide), the band at the top of its panel is the breaker's state.");
    int r = drawn(p, root, "H3-brk-down");
    if (r) {
        char run[96];
        snprintf(run, sizeof run, "H3-brk-down-r%d", r);
        pg_t(p, " In the round drawn (H3-brk-down, round %d) ", r);
        pg_v(p, "int", "/runs/%s/during_standins", run);
        pg_t(p, " of ");
        pg_v(p, "int", "/runs/%s/during_requests", run);
        pg_t(p, " requests in the window got the stand-in and ");
        pg_v(p, "int", "/runs/%s/during_lost", run);
        pg_t(p, " no answer at all; it sent ");
        pg_v(p, "int", "/runs/%s/during_lookups", run);
        pg_t(p, " lookups in the window and refused ");
        pg_v(p, "int", "/runs/%s/lookup_ends/O", run);
        pg_t(p, " in the whole run. It opened ");
        pg_v(p, "int", "/runs/%s/brk_opened", run);
        pg_t(p, " times, went half open ");
        pg_v(p, "int", "/runs/%s/brk_half_opened", run);
        pg_t(p, " times and closed ");
        pg_v(p, "int", "/runs/%s/brk_closed", run);
        pg_t(p, " times; it was open ");
        pg_v(p, "ms", "/runs/%s/brk_open_ms", run);
        pg_t(p, " ms, half open ");
        pg_v(p, "ms", "/runs/%s/brk_half_ms", run);
        pg_t(p, " ms and closed ");
        pg_v(p, "ms", "/runs/%s/brk_closed_ms", run);
        pg_t(p, " ms of the run, with ");
        pg_v(p, "int", "/runs/%s/brk_illegal", run);
        pg_t(p, " changes its state machine does not allow.");
        if (!json_is_array(rd_at(root, "/extra/runs/%s/breaker", run)))
            pg_t(p, " The verifier does not export its changes one by one (extra.runs.<run>.breaker), so the "
                    "panel says so instead of drawing the band; the totals above are verified.");
    }
    pg_p_end(p);
}

static void reset_text(page *p, json_t *root)
{
    pg_p_begin(p, NULL);
    pg_t(p, "Store reset: at the window's start the store closed every connection and refused new ones until its "
            "end. The service answered what was waiting with the stand-in at once, and kept trying to reconnect, "
            "with pauses drawn at random and growing up to 1 s.");
    int r = drawn(p, root, "H3-fb25-reset");
    if (r) {
        pg_t(p, " In the round drawn (H3-fb25-reset, round %d) it lost ", r);
        pg_v(p, "int", "/runs/H3-fb25-reset-r%d/conn_lost", r);
        pg_t(p, " connections, was refused ");
        pg_v(p, "int", "/runs/H3-fb25-reset-r%d/conn_failed", r);
        pg_t(p, " times and connected again ");
        pg_v(p, "int", "/runs/H3-fb25-reset-r%d/conn_regained", r);
        pg_t(p, " times, with ");
        pg_v(p, "int", "/runs/H3-fb25-reset-r%d/reconnect_wait_over", r);
        pg_t(p, " pauses outside the backoff's bounds. Its lookups tried in the window could not be sent (no "
                "connection): the figure counts them as tried.");
    }
    pg_t(p, " The first live answer came ");
    say_range(p, root, "ms", "H3-fb25-reset", "first_live_after_ms");
    pg_t(p, " after the window's end, against ");
    say_range(p, root, "ms", "H3-fb25-down", "first_live_after_ms");
    pg_t(p, " when the store kept its connections (H3-fb25-down)");
    say_verdict(p, root, "H3-fb25-reset", "H3-fb25-down", "first_live_after_ms");
    pg_t(p, ".");
    pg_p_end(p);
}

/* every arm whose store fails: the design's, then any other the study has */
static void arms_table(page *p, json_t *root)
{
    pg_p_begin(p, NULL);
    pg_t(p, "Every arm whose store fails. Each cell is the median over the arm's quiet rounds with the lowest and "
            "highest round in brackets; requests lost are those that got no answer at all, which must be none "
            "for an arm with a stand-in, in every scenario. A dash: the figure does not apply (no window, or a "
            "window lasting to the end of the run).");
    pg_p_end(p);
    const char *h[] = {"arm",
                       "what it does",
                       "requests lost",
                       "lookups per request in the window",
                       "first live answer after the window",
                       "seconds until under one in a hundred not live",
                       "stand-ins",
                       "errors",
                       "lookups per request",
                       "slowest one in a hundred"};
    tb_begin(p, "outage", 10, h);
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    for (size_t i = 0; i < na; i++) {
        const char *a = arms[i].name;
        if (!strcmp(rd_arm_fault(a), "none"))
            continue;
        char words[200];
        rd_arm_words(a, words, sizeof words);
        tb_row(p);
        tb_th(p, "%s", a);
        tb_th(p, "%s", words);
        if (!arms[i].measured) {
            tb_td_span(p, 8, "l");
            pg_nm(p);
            tb_td_end(p);
            continue;
        }
        static const char *const f[][2] = {{"lost", "int"},
                                           {"during_lookups_per_request", "x"},
                                           {"first_live_after_ms", "ms"},
                                           {"recovered_s", "int"},
                                           {"standin_share", "pct"},
                                           {"error_share", "pct"},
                                           {"lookups_per_request", "x"},
                                           {"p99_ms", "ms"}};
        for (int k = 0; k < 8; k++) {
            tb_td_begin(p, NULL);
            say_range(p, root, f[k][1], a, f[k][0]);
            tb_td_end(p);
        }
    }
    tb_end(p);
    rd_arms_free(arms);
}

static void transient_text(page *p, json_t *root)
{
    pg_h(p, 3, "transient", "Retry only transient errors");
    pg_p_begin(p, NULL);
    pg_t(p, "An error that may pass (unavailable, a connection refused or lost, a try's timeout) is worth another "
            "try; one that will not (not found: the row is missing, and will still be missing a moment later) "
            "is not, and goes straight to the stand-in. With missing rows (2 in 100, the same rows in every "
            "round), two retries (H3-r2-missing) sent ");
    say_range(p, root, "x", "H3-r2-missing", "lookups_per_request");
    pg_t(p, " lookups per request against ");
    say_range(p, root, "x", "H3-fb25-missing", "lookups_per_request");
    pg_t(p, " for the plain stand-in (H3-fb25-missing)");
    say_verdict(p, root, "H3-r2-missing", "H3-fb25-missing", "lookups_per_request");
    pg_t(p, "; requests that tried again after a not found: ");
    say_range(p, root, "int", "H3-r2-missing", "retried_permanent");
    pg_t(p, ". Stand-ins: ");
    say_range(p, root, "pct", "H3-r2-missing", "standin_share");
    pg_t(p, " with retries against ");
    say_range(p, root, "pct", "H3-fb25-missing", "standin_share");
    pg_t(p, " without");
    say_verdict(p, root, "H3-r2-missing", "H3-fb25-missing", "standin_share");
    pg_t(p, ": the retries can only rescue the lookups that froze, never the rows that are missing.");
    pg_p_end(p);
}

int ot_section(page *p, json_t *root)
{
    pg_h(p, 2, "outage", "The store goes down");
    pg_p_begin(p, NULL);
    pg_t(p, "The second lesson is about a store that fails rather than one that is slow. In these arms the store "
            "fails as its scenario says, the same way for every arm of a round: down (every lookup answered "
            "unavailable at once, in the middle third of the run), hang (lookups taken and not answered until "
            "the window ends), reset (every connection closed at the window's start, new ones refused until its "
            "end), never (down from the first third to the end of the run), flaky (5 in 100 lookups answered "
            "unavailable, throughout) and missing (2 in 100 rows not found). The scenario ends the arm's name. "
            "The service keeps answering: a request waiting on a lost connection, or arriving while there is "
            "none, gets the arm's fallback at once.");
    pg_p_end(p);
    if (pg_figure(p, "outage", "The store goes down: each second of one round",
                  "Per second of the run: requests scheduled, lookups the service tried (counting those it could "
                  "not send for want of a connection), and how the requests scheduled in that second were "
                  "answered: live, with a stand-in, or with an error or not at all. Shaded: the fault window. "
                  "From the top: no limit, the 25 ms stand-in, two retries and the circuit breaker with the store "
                  "down (the band at the breaker's panel's top: closed, open, half open, from its changes of "
                  "state); the 25 ms stand-in with the store resetting its connections."))
        return -1;
    down_text(p, root);
    breaker_text(p, root);
    reset_text(p, root);
    arms_table(p, root);
    transient_text(p, root);
    return 0;
}
