/* quiet.c: the "Quiet runs" section and the disturbed-run figures.  The contract is in quiet.h. */
#include "quiet.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fig.h"
#include "fmt.h"
#include "rdata.h"

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
            fg_text(s + 0.5, ymid, 0.5, 0.75, FG_GREY, "%s", rd_word("no_reading.1"));
}

/* a limit line: its rule, the key of its words (figure-words.tsv), its colour */
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
        snprintf(lab, sizeof lab, "%s: %s", rd_word(lims[k].words), t);
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
    static const lim_def lims[2] = {{"late_max_max_ms", "quiet.lim.late_max", FG_RED},
                                    {"late_p99_max_ms", "quiet.lim.late_p99", FG_GREY}};
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
        snprintf(lab, sizeof lab, "%s: %s ms", rd_word(lims[k].words), t);
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
    snprintf(title, sizeof title, "%s, %s", run ? run : "?", rd_word("disturbed_svg"));
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
    static const lim_def steal_lims[2] = {{"steal_second_max", "quiet.lim.second", FG_RED},
                                          {"steal_run_max", "quiet.lim.run", FG_GREY}};
    static const lim_def foreign_lims[1] = {{"foreign_second_max", "quiet.lim.second", FG_RED}};
    double y1 = top;
    share_panel(root, y1 - ph, y1, N, steal, steal_lims, 2, rd_word("quiet.steal"));
    char head[700];
    snprintf(head, sizeof head, "%s %s", rd_word("quiet.broken"), broke[0] ? broke : rd_word("quiet.none_listed"));
    fg_mtext("t", 0.8, 0.0, 0.0, 0.9, FG_BLACK, head);
    y1 -= ph + gap;
    late_panel(root, y1 - ph, y1, N, late, rd_word("quiet.late"));
    if (has_foreign) {
        y1 -= ph + gap;
        share_panel(root, y1 - ph, y1, N, foreign, foreign_lims, 1, rd_word("quiet.foreign"));
    }
    fg_linaxis_x(0, N, N > 20 ? 5 : N > 8 ? 2 : 1, NULL, " s", 0.85);
    fg_mtext("b", 3.0, 0.5, 0.5, 0.9, FG_BLACK,
             rd_word("one.1"));
    if (!n) {
        fg_panel(0.12, 0.97, bot, top, 0, 1, 0, 1);
        fg_text(0.5, 0.5, 0.5, 1.1, FG_GREY, "%s", rd_word("one.2"));
    }
    if (fg_end()) {
        fprintf(stderr, "report: cannot write the figure %s: %s\n", path, strerror(errno));
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

void qt_design(json_t *root, json_t *design)
{
    json_t *left = json_array(), *figs = json_array();
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    for (size_t i = 0; i < na; i++)
        if (arms[i].measured && json_array_size(rd_at(root, "/arms/%s/rounds_disturbed", arms[i].name)))
            json_array_append_new(left, json_string(arms[i].name));
    rd_arms_free(arms);
    for (size_t i = 0; i < n_figs(root); i++) {
        char name[160];
        qt_fig_name(root, i, name, sizeof name);
        const char *run = rd_str(root, "/extra/quiet/disturbed/%zu/run", i);
        json_t *f = json_pack("{s:s}", "name", name);
        if (run)
            json_object_set_new(f, "run", json_string(run));
        json_array_append_new(figs, f);
    }
    int foreign = 0;
    const char *run;
    json_t *e;
    json_object_foreach(rd_at(root, "/runs"), run, e)
    {
        foreign |= json_object_get(e, "foreign_second_max") != NULL;
    }
    json_object_set_new(design, "quiet_left_out", left);
    json_object_set_new(design, "quiet_figs", figs);
    json_object_set_new(design, "quiet_foreign", json_boolean(foreign));
    at_design(root, design);
}

/* ------------------------------------------------------------ attempts */

static int cmp_att(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strcmp(json_string_value(json_object_get(x, "run")), json_string_value(json_object_get(y, "run")));
    return c ? c : (int)(json_integer_value(json_object_get(x, "attempt")) -
                         json_integer_value(json_object_get(y, "attempt")));
}

/* the run <arm>-r<round> an attempt "<run>-a<N>" belongs to, from its
 * figures (arm, round) or else its name; its N from `attempt` or the name */
static void att_run(const char *key, json_t *e, char *run, size_t rl, json_int_t *n)
{
    const char *arm = json_string_value(json_object_get(e, "arm"));
    json_t *round = json_object_get(e, "round"), *att = json_object_get(e, "attempt");
    const char *dash = strrchr(key, '-');
    if (arm && json_is_integer(round))
        snprintf(run, rl, "%s-r%lld", arm, (long long)json_integer_value(round));
    else
        snprintf(run, rl, "%.*s", dash ? (int)(dash - key) : (int)strlen(key), key);
    *n = json_is_integer(att) ? json_integer_value(att) : dash && dash[1] == 'a' ? atoll(dash + 2) : 0;
}

void at_design(json_t *root, json_t *design)
{
    json_t *att = rd_at(root, "/attempts"), *list = json_array(), *runs = json_object(), *rules = json_array();
    const char *key;
    json_t *e;
    size_t n = json_object_size(att), k = 0;
    json_t **v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        exit(1);
    json_object_foreach(att, key, e)
    {
        char run[256];
        json_int_t a;
        att_run(key, e, run, sizeof run, &a);
        v[k++] = json_pack("{s:s,s:s,s:I}", "name", key, "run", run, "attempt", (json_int_t)a);
        json_object_set_new(runs, run, json_true());
        json_t *r;
        size_t i;
        json_array_foreach(json_object_get(e, "quiet_rules"), i, r)
        {
            int seen = 0;
            for (size_t j = 0; j < json_array_size(rules) && !seen; j++)
                seen = json_equal(json_array_get(rules, j), r);
            if (!seen && json_is_string(r))
                json_array_append(rules, r);
        }
    }
    qsort(v, k, sizeof *v, cmp_att);
    for (size_t i = 0; i < k; i++)
        json_array_append_new(list, v[i]);
    free(v);
    char num[32];
    json_object_set_new(design, "attempts", list);
    snprintf(num, sizeof num, "%zu", k);
    json_object_set_new(design, "attempts_n", json_string(num));
    snprintf(num, sizeof num, "%zu", json_object_size(runs));
    json_object_set_new(design, "attempts_runs", json_string(num));
    json_object_set_new(design, "attempts_one_run", json_boolean(json_object_size(runs) == 1));
    json_object_set_new(design, "attempts_rules", rules);
    json_decref(runs);
}
