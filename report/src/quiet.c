/* quiet.c: the "Quiet runs" section and the disturbed-run figures.  The contract is in quiet.h. */
#include "quiet.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

/* The rules of pipeline/RESULTS.md's table "Quiet runs", in its order: the
 * figure of `runs` each one judges, and how figure and limit print.  A rule
 * the verifier lists but this table lacks is printed by its name alone. */
typedef struct {
    const char *rule;
    const char *words;   /* what it looks at: plain words, no digits (table cells) */
    const char *fig;     /* runs.<run>.<fig> and extra.quiet.disturbed[i].<fig> */
    const char *kind;    /* the figure's format (fmt.h) */
    const char *lkind;   /* the limit's format */
    int below;           /* 1: disturbed when the figure is below the limit */
} rule_def;

static const rule_def RULES[] = {
    {"steal_run_max", "the machine's steal over the run", "steal_share", "pct", "pct", 0},
    {"steal_second_max", "the machine's steal in its worst second", "steal_second_max", "pct", "pct", 0},
    {"late_p99_max_ms", "the tester's lateness, the slowest one in a hundred", "late_p99_us", "us_ms", "ms", 0},
    {"late_max_max_ms", "the tester's largest lateness", "late_max_us", "us_ms", "ms", 0},
    {"other_idle_min", "how idle the cores the run was not pinned to were", "other_idle_share", "pct", "pct", 1},
    {"foreign_second_max", "the measured cores' time used by others, in the worst second", "foreign_second_max",
     "pct", "pct", 0},
};
#define NRULES (sizeof RULES / sizeof RULES[0])

static const rule_def *rule_of(const char *name)
{
    for (size_t k = 0; name && k < NRULES; k++)
        if (!strcmp(RULES[k].rule, name))
            return &RULES[k];
    return NULL;
}

/* the index of rule `name` in extra.quiet.rules, or -1 */
static int limit_index(json_t *root, const char *name)
{
    json_t *rules = rd_at(root, "/extra/quiet/rules");
    for (size_t k = 0; name && k < json_array_size(rules); k++) {
        const char *r = json_string_value(json_object_get(json_array_get(rules, k), "rule"));
        if (r && !strcmp(r, name))
            return (int)k;
    }
    return -1;
}

static double limit_of(json_t *root, const char *name)
{
    double v;
    int k = limit_index(root, name);
    return k >= 0 && !rd_num(root, &v, "/extra/quiet/rules/%d/limit", k) ? v : NAN;
}

static int is_ms(const char *kind)
{
    return !strcmp(kind, "ms") || !strcmp(kind, "us_ms");
}

void qt_fig_name(json_t *root, size_t i, char *out, size_t n)
{
    const char *run = rd_str(root, "/extra/quiet/disturbed/%zu/run", i);
    char safe[128];
    size_t o = 0;
    for (const char *s = run ? run : "run"; *s && o + 1 < sizeof safe; s++)
        safe[o++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-'
                    ? *s
                    : '_';
    safe[o] = 0;
    snprintf(out, n, "disturbed-%s", safe);
}

static size_t n_figs(json_t *root)
{
    size_t n = json_array_size(rd_at(root, "/extra/quiet/disturbed"));
    return n < QT_MAX_FIGS ? n : QT_MAX_FIGS;
}

/* ------------------------------------------------------------ figures */

/* one value of a disturbed run's second s: the verifier's series first, then
 * runs.<run>.per_second (which may carry more, e.g. foreign_share) */
static double ps_num(json_t *root, size_t i, const char *run, size_t s, const char *key)
{
    json_t *v = json_object_get(rd_at(root, "/extra/quiet/disturbed/%zu/per_second/%zu", i, s), key);
    if (!v && run)
        v = rd_at(root, "/runs/%s/per_second/%zu/%s", run, s, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* a limit across the panel, labelled above its right end, or (left) below
 * its left end, so that two limits close together keep their labels apart;
 * below the line too when it runs along the panel's top */
static void limit_line(int n, double y, double ylo, double yhi, int col, int left, const char *label)
{
    fg_color(col);
    fg_width(1.5);
    fg_dash(1);
    fg_line(0, y, n, y);
    fg_dash(0);
    fg_width(1);
    double dy = (yhi - ylo) * 0.075;
    int below = left || y + 1.5 * dy > yhi;
    fg_text(left ? n * 0.005 : n * 0.995, below ? y - dy : y + dy, left ? 0 : 1, 0.8, col, "%s", label);
}

static void no_reading(int n, const double *y, double ymid)
{
    for (int s = 0; s < n; s++)
        if (!isfinite(y[s]))
            fg_text(s + 0.5, ymid, 0.5, 0.75, FG_GREY, "no reading");
}

typedef struct {
    const char *rule, *words;
    int col;
} lim_def;

/* a share per second (steal, foreign) on a linear axis, with its limits */
static void share_panel(json_t *root, double y0, double y1, int n, const double *v, const lim_def *lims, int nl,
                        const char *label)
{
    double top = 0;
    for (int s = 0; s < n; s++)
        if (isfinite(v[s]))
            top = fmax(top, v[s]);
    for (int k = 0; k < nl; k++) {
        double l = limit_of(root, lims[k].rule);
        if (isfinite(l))
            top = fmax(top, l);
    }
    /* a share axis stops at 100% unless a value passes it */
    double cap = top <= 1 ? 1 : INFINITY;
    top = fmin(fg_nice_top(fmax(top * 1.15, 0.01)), cap);
    fg_panel(0.12, 0.97, y0, y1, 0, n, 0, top);
    fg_linaxis_y_n(top, "pct", 0.85, 4);
    fg_frame();
    fg_mtext("l", 6.2, 0.5, 0.5, 0.9, FG_BLACK, label);
    for (int k = 0; k < nl; k++) {
        double l = limit_of(root, lims[k].rule);
        if (!isfinite(l))
            continue;
        char t[64], lab[200];
        fmt_num(l, "pct", t, sizeof t);
        snprintf(lab, sizeof lab, "%s: %s", lims[k].words, t);
        limit_line(n, l, 0, top, lims[k].col, k % 2, lab);
    }
    fg_steps(n, v, FG_RED, 2);
    no_reading(n, v, top / 2);
}

static const char *ms_label(int e)
{
    static const char *const l[] = {"0.01 ms", "0.1 ms", "1 ms", "10 ms", "100 ms", "1 s", "10 s"};
    return e >= -2 && e <= 4 ? l[e + 2] : NULL;
}

/* the tester's largest lateness per second (ms, log axis), with its limits */
static void late_panel(json_t *root, double y0, double y1, int n, const double *ms, const char *label)
{
    static const lim_def lims[2] = {{"late_max_max_ms", "limit on the largest", FG_RED},
                                    {"late_p99_max_ms", "limit on the slowest 1 in 100, over the run", FG_GREY}};
    double lo = INFINITY, hi = -INFINITY;
    for (int s = 0; s < n; s++)
        if (isfinite(ms[s]) && ms[s] > 0) {
            lo = fmin(lo, ms[s]);
            hi = fmax(hi, ms[s]);
        }
    for (int k = 0; k < 2; k++) {
        double l = limit_of(root, lims[k].rule);
        if (isfinite(l) && l > 0) {
            lo = fmin(lo, l);
            hi = fmax(hi, l);
        }
    }
    int elo = isfinite(lo) ? (int)floor(log10(lo / 2)) : -1, ehi = isfinite(hi) ? (int)ceil(log10(hi * 1.5)) : 2;
    if (elo < -2)
        elo = -2;
    if (elo > 3)
        elo = 3;
    if (ehi > 4)
        ehi = 4;
    if (ehi <= elo)
        ehi = elo + 1;
    fg_panel(0.12, 0.97, y0, y1, 0, n, elo, ehi);
    fg_logaxis_y(elo, ehi, ms_label, 0.85);
    fg_frame();
    fg_mtext("l", 6.2, 0.5, 0.5, 0.9, FG_BLACK, label);
    for (int k = 0; k < 2; k++) {
        double l = limit_of(root, lims[k].rule);
        if (!(isfinite(l) && l > 0))
            continue;
        char t[64], lab[200];
        fmt_num(l, "ms", t, sizeof t);
        snprintf(lab, sizeof lab, "%s: %s ms", lims[k].words, t);
        limit_line(n, fmin(fmax(log10(l), elo), ehi), elo, ehi, lims[k].col, k % 2, lab);
    }
    double y[600] = {0};
    for (int s = 0; s < n; s++)
        y[s] = isfinite(ms[s]) ? log10(fmax(ms[s], pow(10, elo))) : NAN;
    fg_steps(n, y, FG_RED, 2);
    no_reading(n, y, (elo + ehi) / 2.0);
}

/* figure of extra.quiet.disturbed[i] */
static int fig_one(json_t *root, const char *figdir, size_t i)
{
    enum { MAXS = 600 };
    const char *run = rd_str(root, "/extra/quiet/disturbed/%zu/run", i);
    json_t *ps = rd_at(root, "/extra/quiet/disturbed/%zu/per_second", i);
    int n = (int)(json_array_size(ps) < MAXS ? json_array_size(ps) : MAXS);
    double steal[MAXS], late[MAXS], foreign[MAXS];
    int has_foreign = 0;
    for (int s = 0; s < n; s++) {
        steal[s] = ps_num(root, i, run, (size_t)s, "steal_share");
        late[s] = ps_num(root, i, run, (size_t)s, "late_max_us") / 1e3;
        foreign[s] = ps_num(root, i, run, (size_t)s, "foreign_share");
        has_foreign |= isfinite(foreign[s]);
    }
    int np = has_foreign ? 3 : 2, N = n ? n : 1;
    int W = 1000, H = 170 + np * 190;
    char name[160], path[4400];
    qt_fig_name(root, i, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s.svg", figdir, name);
    fg_begin(path, W, H);
    char title[256];
    snprintf(title, sizeof title, "%s, a disturbed run: the machine and the tester, second by second", run ? run : "?");
    fg_title(title);
    double top = 1 - 100.0 / H, bot = 70.0 / H, gap = 28.0 / H;
    double ph = (top - bot - (np - 1) * gap) / np;
    char broke[512] = "";
    json_t *rules = rd_at(root, "/extra/quiet/disturbed/%zu/rules", i);
    for (size_t k = 0; k < json_array_size(rules); k++) {
        const char *r = json_string_value(json_array_get(rules, k));
        size_t l = strlen(broke);
        snprintf(broke + l, sizeof broke - l, "%s%s", k ? ", " : "", r ? r : "?");
    }
    static const lim_def steal_lims[2] = {{"steal_second_max", "limit in any one second", FG_RED},
                                          {"steal_run_max", "limit over the whole run", FG_GREY}};
    static const lim_def foreign_lims[1] = {{"foreign_second_max", "limit in any one second", FG_RED}};
    double y1 = top;
    share_panel(root, y1 - ph, y1, N, steal, steal_lims, 2, "steal, whole machine");
    char head[700];
    snprintf(head, sizeof head, "rules broken: %s", broke[0] ? broke : "none listed");
    fg_mtext("t", 0.8, 0.0, 0.0, 0.9, FG_BLACK, head);
    y1 -= ph + gap;
    late_panel(root, y1 - ph, y1, N, late, "tester's largest lateness");
    if (has_foreign) {
        y1 -= ph + gap;
        share_panel(root, y1 - ph, y1, N, foreign, foreign_lims, 1, "measured cores: others' share");
    }
    fg_linaxis_x(0, N, N > 20 ? 5 : N > 8 ? 2 : 1, NULL, " s", 0.85);
    fg_mtext("b", 3.0, 0.5, 0.5, 0.9, FG_BLACK,
             "seconds from the run's start; red: each second's value; dashed: the limits of a quiet run");
    if (!n) {
        fg_panel(0.12, 0.97, bot, top, 0, 1, 0, 1);
        fg_text(0.5, 0.5, 0.5, 1.1, FG_GREY, "no second recorded");
    }
    if (fg_end()) {
        fprintf(stderr, "report: cannot write the figure %s\n", path);
        return -1;
    }
    return 0;
}

int qt_figures(json_t *root, const char *figdir)
{
    int rc = 0;
    for (size_t i = 0; i < n_figs(root); i++)
        rc |= fig_one(root, figdir, i);
    return rc;
}

/* ------------------------------------------------------------ section */

static void rules_table(page *p, json_t *root)
{
    const char *h[] = {"rule", "what it looks at", "a run is disturbed when it is", "limit"};
    tb_begin(p, NULL, 4, h);
    json_t *rules = rd_at(root, "/extra/quiet/rules");
    for (size_t k = 0; k < json_array_size(rules); k++) {
        const rule_def *d = rule_of(rd_str(root, "/extra/quiet/rules/%zu/rule", k));
        tb_row(p);
        tb_td_begin(p, "l nw");
        pg_v(p, "str", "/extra/quiet/rules/%zu/rule", k);
        tb_td_end(p);
        tb_td_begin(p, "l");
        pg_t(p, "%s", d ? d->words : "(a rule this page does not know)");
        tb_td_end(p);
        tb_td_begin(p, "l");
        pg_t(p, "%s", d ? (d->below ? "below the limit" : "above the limit") : "");
        tb_td_end(p);
        tb_td_begin(p, NULL);
        pg_v(p, d ? d->lkind : "x", "/extra/quiet/rules/%zu/limit", k);
        if (d && is_ms(d->lkind))
            pg_t(p, " ms");
        tb_td_end(p);
    }
    tb_end(p);
}

/* one broken rule of extra.quiet.disturbed[i], in words, figure and limit */
static void say_broken(page *p, json_t *root, size_t i, size_t k)
{
    const char *name = rd_str(root, "/extra/quiet/disturbed/%zu/rules/%zu", i, k);
    const char *run = rd_str(root, "/extra/quiet/disturbed/%zu/run", i);
    const rule_def *d = rule_of(name);
    int li = limit_index(root, name);
    if (d)
        pg_t(p, "%s (", d->words);
    pg_v(p, "str", "/extra/quiet/disturbed/%zu/rules/%zu", i, k);
    if (d) {
        pg_t(p, "): ");
        /* the figure as the verifier exported it with the list, else the run's */
        if (json_object_get(rd_at(root, "/extra/quiet/disturbed/%zu", i), d->fig) || !run)
            pg_v(p, d->kind, "/extra/quiet/disturbed/%zu/%s", i, d->fig);
        else
            pg_v(p, d->kind, "/runs/%s/%s", run, d->fig);
        if (is_ms(d->kind))
            pg_t(p, " ms");
        pg_t(p, ", %s its limit of ", d->below ? "below" : "above");
    } else {
        pg_t(p, ", limit ");
    }
    if (li >= 0) {
        pg_v(p, d ? d->lkind : "x", "/extra/quiet/rules/%d/limit", li);
        if (d && is_ms(d->lkind))
            pg_t(p, " ms");
    } else {
        pg_nm(p);
    }
}

static void disturbed_table(page *p, json_t *root)
{
    const char *h[] = {"run", "arm", "round", "rules broken: the run's figure and the limit"};
    tb_begin(p, "disturbed", 4, h);
    json_t *list = rd_at(root, "/extra/quiet/disturbed");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *run = rd_str(root, "/extra/quiet/disturbed/%zu/run", i);
        tb_row(p);
        tb_th(p, "%s", run ? run : "?");
        tb_td_begin(p, "l nw");
        pg_v(p, "str", "/extra/quiet/disturbed/%zu/arm", i);
        tb_td_end(p);
        tb_td_begin(p, NULL);
        pg_v(p, "int", "/extra/quiet/disturbed/%zu/round", i);
        tb_td_end(p);
        tb_td_begin(p, "l");
        json_t *rules = rd_at(root, "/extra/quiet/disturbed/%zu/rules", i);
        for (size_t k = 0; k < json_array_size(rules); k++) {
            if (k)
                pg_t(p, "; ");
            say_broken(p, root, i, k);
        }
        tb_td_end(p);
    }
    tb_end(p);
}

/* the arms whose medians leave disturbed rounds out; 0 when none */
static int arms_left_out(page *p, json_t *root)
{
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    int any = 0;
    for (size_t i = 0; i < na; i++) {
        const char *a = arms[i].name;
        json_t *dist = rd_at(root, "/arms/%s/rounds_disturbed", a);
        if (!arms[i].measured || !json_array_size(dist))
            continue;
        if (!any++) {
            pg_p_begin(p, NULL);
            pg_t(p, "These arms' medians, ranges and totals, and the verdicts and guesses about them, leave their "
                    "disturbed rounds out:");
            pg_p_end(p);
            pg_ul_begin(p);
        }
        pg_li_begin(p);
        json_t *rr = rd_at(root, "/arms/%s/rounds", a);
        pg_t(p, "%s: over %s ", a, json_array_size(rr) == 1 ? "round" : "rounds");
        for (size_t k = 0; k < json_array_size(rr); k++) {
            if (k)
                pg_t(p, ", ");
            pg_v(p, "int", "/arms/%s/rounds/%zu", a, k);
        }
        if (!json_array_size(rr))
            pg_t(p, "no round at all (every run disturbed: no median)");
        pg_t(p, "; left out, disturbed: %s ", json_array_size(dist) == 1 ? "round" : "rounds");
        for (size_t k = 0; k < json_array_size(dist); k++) {
            if (k)
                pg_t(p, ", ");
            pg_v(p, "int", "/arms/%s/rounds_disturbed/%zu", a, k);
        }
        pg_li_end(p);
    }
    if (any)
        pg_ul_end(p);
    rd_arms_free(arms);
    return any;
}

static void runs_table(page *p, json_t *root)
{
    json_t *runs = rd_at(root, "/runs");
    const char *run;
    json_t *e;
    int foreign = 0;
    json_object_foreach(runs, run, e) foreign |= json_object_get(e, "foreign_second_max") != NULL;
    const char *h[] = {"run", "quiet", "rules broken", "steal over the run", "steal, worst second",
                       "other cores idle", "tester late, p99 (ms)", "tester late, max (ms)",
                       "others on the measured cores, worst second"};
    static const char *const f[][2] = {{"steal_share", "pct"},      {"steal_second_max", "pct"},
                                       {"other_idle_share", "pct"}, {"late_p99_us", "us_ms"},
                                       {"late_max_us", "us_ms"},    {"foreign_second_max", "pct"}};
    int nf = foreign ? 6 : 5;
    tb_begin(p, "quiet", 3 + nf, h);
    json_object_foreach(runs, run, e)
    {
        tb_row(p);
        tb_th(p, "%s", run);
        tb_td_begin(p, NULL);
        pg_v(p, "tf", "/runs/%s/quiet", run);
        tb_td_end(p);
        tb_td_begin(p, "l");
        json_t *qr = json_object_get(e, "quiet_rules");
        for (size_t k = 0; k < json_array_size(qr); k++) {
            if (k)
                pg_t(p, ", ");
            pg_v(p, "str", "/runs/%s/quiet_rules/%zu", run, k);
        }
        tb_td_end(p);
        for (int k = 0; k < nf; k++) {
            tb_td_begin(p, NULL);
            pg_v(p, f[k][1], "/runs/%s/%s", run, f[k][0]);
            tb_td_end(p);
        }
    }
    tb_end(p);
}

int qt_section(page *p, json_t *root)
{
    pg_h(p, 2, "quiet", "Quiet runs");
    if (!json_is_object(rd_at(root, "/extra/quiet"))) {
        pg_p_begin(p, "note");
        pg_t(p, "This verified.json does not judge runs quiet or disturbed: it was written by an older verifier. "
                "Run `make factcheck` again.");
        pg_p_end(p);
        return 0;
    }
    pg_p_begin(p, NULL);
    pg_t(p, "The idle gate looks at the machine before a run. During the run the tester also read the machine's "
            "counters once a second (how much time went to other machines, steal; how idle the cores the run was "
            "not pinned to were) and timed its own lateness. A run is quiet when it breaks none of the rules "
            "below, registered with the guesses before any timed run. Only quiet runs count in the arms' "
            "medians, the verdicts and the guesses; a disturbed run keeps its figures in the tables of runs.");
    pg_p_end(p);
    rules_table(p, root);
    size_t nd = json_array_size(rd_at(root, "/extra/quiet/disturbed"));
    pg_p_begin(p, NULL);
    pg_t(p, "All ");
    pg_v(p, "int", "/extra/quiet/runs");
    pg_t(p, " runs were judged by these rules: ");
    pg_v(p, "int", "/extra/quiet/quiet_runs");
    pg_t(p, " were quiet and ");
    pg_v(p, "int", "/extra/quiet/disturbed_runs");
    pg_t(p, " disturbed");
    if (!nd)
        pg_t(p, ", so every run was quiet and every round counts.");
    else
        pg_t(p, ". The disturbed runs:");
    pg_p_end(p);
    if (nd) {
        disturbed_table(p, root);
        arms_left_out(p, root);
        pg_p_begin(p, NULL);
        pg_t(p, "Below, for each disturbed run, the machine's steal and the tester's largest lateness in each "
                "second of the run, against the limits.");
        if (nd > QT_MAX_FIGS) {
            pg_t(p, " Only the first twelve of the ");
            pg_v(p, "int", "/extra/quiet/disturbed_runs");
            pg_t(p, " disturbed runs are drawn; the others are in the table above.");
        }
        pg_p_end(p);
        for (size_t i = 0; i < n_figs(root); i++) {
            char name[160], title[256];
            qt_fig_name(root, i, name, sizeof name);
            const char *run = rd_str(root, "/extra/quiet/disturbed/%zu/run", i);
            snprintf(title, sizeof title, "%s, a disturbed run, second by second", run ? run : "?");
            if (pg_figure(p, name, title,
                          "Top: the share of the whole machine's time stolen by other machines in each second. "
                          "Below: the tester's largest lateness (sent minus scheduled) among the requests "
                          "scheduled in that second, on a log scale. When the verifier exports it, a third panel "
                          "shows the share of the measured cores' time used by processes other than the run's. "
                          "Dashed: the limits of a quiet run."))
                return -1;
        }
    }
    pg_h(p, 3, "quiet-runs", "Each run's quiet figures");
    runs_table(p, root);
    pg_p_begin(p, NULL);
    pg_t(p, "Steal: the share of the machine's time the hypervisor gave to other machines. Other cores idle: how "
            "idle the cores the run was not pinned to were (it can pass 100%% by a little: both sides are counted "
            "in ticks). A figure the run could not measure prints as a dash and breaks no rule.");
    pg_p_end(p);
    return 0;
}
