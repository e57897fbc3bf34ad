/* fig.c: a thin layer over PLplot: one SVG at a time, panels, log axes, text, legends.  The contract is in fig.h. */
#include "fig.h"

#include <errno.h>
#include <math.h>
#include <plplot.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

static char g_path[4096];
static double g_wx0, g_wx1, g_wy0, g_wy1;
static double g_vx0, g_vx1, g_vy0, g_vy1;
static int g_w, g_h;
static double g_k = 1;   /* PLplot's text grows with width + height: this keeps it the same size */

static void chr(double scale)
{
    plschr(0, scale * g_k);
}

static const int palette[FG_NCOL][3] = {
    {255, 255, 255}, {26, 26, 26},   {226, 226, 226}, {140, 140, 140}, {31, 119, 180}, {230, 133, 30},
    {44, 160, 44},   {214, 39, 40},  {123, 79, 160},  {68, 68, 68},    {158, 202, 225}, {23, 150, 160},
    {140, 86, 75},   {227, 119, 194}, {128, 128, 0},  {245, 245, 245},
};

void fg_begin(const char *path, int w, int h)
{
    snprintf(g_path, sizeof g_path, "%s", path);
    g_w = w;
    g_h = h;
    g_k = 1450.0 / (w + h);
    /* the palette and one spare entry (white until fg_fill_alpha sets it) */
    PLINT r[FG_NCOL + 1], g[FG_NCOL + 1], b[FG_NCOL + 1];
    for (int i = 0; i <= FG_NCOL; i++) {
        r[i] = palette[i < FG_NCOL ? i : 0][0];
        g[i] = palette[i < FG_NCOL ? i : 0][1];
        b[i] = palette[i < FG_NCOL ? i : 0][2];
    }
    plsdev("svg");
    plsfnam(path);
    plspage(0, 0, w, h, 0, 0);
    plscmap0(r, g, b, FG_NCOL + 1);
    plinit();
    pladv(0);
    chr(0.78);
    plwidth(1);
}

/* every id="X" becomes id="PRE-X" and every url(#X) url(#PRE-X); frees s */
static char *prefix_ids(char *s, const char *pre)
{
    size_t n = 0, pl = strlen(pre);
    for (const char *p = s; (p = strstr(p, "id=\"")); p += 4)
        n++;
    for (const char *p = s; (p = strstr(p, "url(#")); p += 5)
        n++;
    char *o = malloc(strlen(s) + n * pl + 1);
    if (!o)
        return s;
    char *w = o;
    for (const char *p = s; *p;) {
        if (!strncmp(p, "id=\"", 4) && (p == s || p[-1] == ' ')) {
            memcpy(w, p, 4);
            w += 4;
            p += 4;
            memcpy(w, pre, pl);
            w += pl;
        } else if (!strncmp(p, "url(#", 5)) {
            memcpy(w, p, 5);
            w += 5;
            p += 5;
            memcpy(w, pre, pl);
            w += pl;
        } else {
            *w++ = *p++;
        }
    }
    *w = 0;
    free(s);
    return o;
}

/* collapse the writer's indentation and give width/height in pixels */
static int tidy(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *in = malloc((size_t)n + 1), *out = malloc((size_t)n + 1);
    if (!in || !out || fread(in, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(in);
        free(out);
        return -1;
    }
    fclose(f);
    in[n] = 0;
    size_t o = 0;
    for (long i = 0; i < n; i++) {
        if (in[i] == '\n') {
            long k = i + 1;
            while (k < n && in[k] == ' ')
                k++;
            /* inside a tag, a newline and indentation become one space */
            if (k < n && in[k] != '<' && in[k] != '>' && in[k] != '/')
                out[o++] = ' ';
            else if (k < n && in[k] == '<')
                out[o++] = '\n';
            i = k - 1;
            continue;
        }
        out[o++] = in[i];
    }
    out[o] = 0;
    /* ids unique per figure, so that figures inlined in one page keep their own clip paths */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char pre[128];
    size_t bl = strcspn(base, ".");
    snprintf(pre, sizeof pre, "%.*s-", (int)(bl < 100 ? bl : 100), base);
    out = prefix_ids(out, pre);
    /* width="800pt" -> width="800" (the viewBox is in the same units) */
    for (char *p = strstr(out, "pt\""); p && p < out + 400; p = strstr(p, "pt\""))
        memmove(p, p + 2, strlen(p + 2) + 1);
    f = fopen(path, "wb");
    int rc = f && fputs(out, f) >= 0 ? 0 : -1;
    if (f && fclose(f))
        rc = -1;
    free(in);
    free(out);
    return rc;
}

int fg_end(void)
{
    plend();
    return tidy(g_path);
}

void fg_panel(double x0, double x1, double y0, double y1, double wx0, double wx1, double wy0, double wy1)
{
    plvpor(x0, x1, y0, y1);
    plwind(wx0, wx1, wy0, wy1);
    g_vx0 = x0;
    g_vx1 = x1;
    g_vy0 = y0;
    g_vy1 = y1;
    g_wx0 = wx0;
    g_wx1 = wx1;
    g_wy0 = wy0;
    g_wy1 = wy1;
}

void fg_color(int c)
{
    plcol0(c);
}

void fg_width(double w)
{
    plwidth(w);
}

void fg_dash(int on)
{
    pllsty(on ? 3 : 1);
}

void fg_dotted(int on)
{
    if (!on) {
        pllsty(1);
        return;
    }
    PLINT mark = 600, space = 1800;
    plstyl(1, &mark, &space);
}

void fg_line(double x0, double y0, double x1, double y1)
{
    PLFLT x[2] = {x0, x1}, y[2] = {y0, y1};
    plline(2, x, y);
}

void fg_polyline(int n, const double *x, const double *y)
{
    if (n >= 2)
        plline(n, x, y);
}

void fg_rect(double x0, double y0, double x1, double y1)
{
    PLFLT x[4] = {x0, x1, x1, x0}, y[4] = {y0, y0, y1, y1};
    plfill(4, x, y);
}

void fg_dot(double x, double y, double size)
{
    /* a filled circle of radius size * 3.5 points, round on the page */
    double r = size * 3.5;
    double rx = r / ((g_vx1 - g_vx0) * g_w) * (g_wx1 - g_wx0);
    double ry = r / ((g_vy1 - g_vy0) * g_h) * (g_wy1 - g_wy0);
    PLFLT px[16], py[16];
    for (int i = 0; i < 16; i++) {
        px[i] = x + rx * cos(i * M_PI / 8);
        py[i] = y + ry * sin(i * M_PI / 8);
    }
    plfill(16, px, py);
}

void fg_ring(double x, double y, double size)
{
    double r = size * 3.5;
    double rx = r / ((g_vx1 - g_vx0) * g_w) * (g_wx1 - g_wx0);
    double ry = r / ((g_vy1 - g_vy0) * g_h) * (g_wy1 - g_wy0);
    PLFLT px[17], py[17];
    for (int i = 0; i <= 16; i++) {
        px[i] = x + rx * cos(i * M_PI / 8);
        py[i] = y + ry * sin(i * M_PI / 8);
    }
    plline(17, px, py);
}

void fg_fill_alpha(int n, const double *x, const double *y, int c, double alpha)
{
    if (n < 3 || c < 0 || c >= FG_NCOL)
        return;
    /* the spare entry after the palette, set to c's colour with the opacity */
    plscol0a(FG_NCOL, palette[c][0], palette[c][1], palette[c][2], alpha);
    plcol0(FG_NCOL);
    plfill(n, x, y);
    plcol0(c);
}

void fg_text(double x, double y, double just, double size, int color, const char *fmt, ...)
{
    char t[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    chr(size * 0.78);
    plcol0(color);
    plptex(x, y, 1, 0, just, t);
    chr(0.78);
}

void fg_vtext(double x, double y, double just, double size, int color, const char *text)
{
    chr(size * 0.78);
    plcol0(color);
    plptex(x, y, 0, 1, just, text);
    chr(0.78);
}

void fg_mtext(const char *side, double disp, double pos, double just, double size, int color, const char *text)
{
    chr(size * 0.78);
    plcol0(color);
    plmtex(side, disp, pos, just, text);
    chr(0.78);
}

void fg_title(const char *text)
{
    plvpor(0, 1, 0, 1);
    plwind(0, 1, 0, 1);
    /* long titles shrink to fit the width (about 1.1 points per character and point of width) */
    double size = 1.15, fit = g_w / 12.5;
    if ((double)strlen(text) > fit)
        size *= fit / (double)strlen(text);
    chr(size);
    plcol0(FG_BLACK);
    plptex(0.5, 1 - 32.0 / g_h, 1, 0, 0.5, text);
    chr(0.78);
}

void fg_frame(void)
{
    plcol0(FG_GREY);
    plwidth(1);
    plbox("bc", 0, 0, "bc", 0, 0);
}

void fg_logaxis_x(int lo, int hi, fg_labeler label, double size)
{
    for (int e = lo; e <= hi; e++) {
        plcol0(FG_GRID);
        plwidth(1);
        fg_line(e, g_wy0, e, g_wy1);
        for (int m = 2; m <= 9 && e < hi; m++) {
            double x = e + log10(m);
            plcol0(FG_LIGHTGREY);
            fg_line(x, g_wy0, x, g_wy1);
        }
        const char *t = label(e);
        if (t)
            fg_mtext("b", 1.4, (e - g_wx0) / (g_wx1 - g_wx0), 0.5, size, FG_BLACK, t);
    }
}

void fg_logaxis_y(int lo, int hi, fg_labeler label, double size)
{
    for (int e = lo; e <= hi; e++) {
        plcol0(FG_GRID);
        plwidth(1);
        fg_line(g_wx0, e, g_wx1, e);
        const char *t = label(e);
        if (t)
            fg_mtext("lv", 0.6, (e - g_wy0) / (g_wy1 - g_wy0), 1.0, size, FG_BLACK, t);
    }
}

double fg_nice_top(double v)
{
    if (!(v > 0))
        return 1;
    double e = pow(10, floor(log10(v)));
    static const double steps[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * e >= v * 0.9999)
            return steps[i] * e;
    return 10 * e;
}

static double nice_step(double top, int n)
{
    double raw = top / n;
    double e = pow(10, floor(log10(raw)));
    double m = raw / e;
    double st = m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10;
    return st * e;
}

/* an axis label: %g of the value, of the percentage for "pct" */
static void axis_label(double v, const char *kind, char *t, size_t n)
{
    if (fabs(v) < 1e-12)
        v = 0;
    if (kind && !strcmp(kind, "pct"))
        snprintf(t, n, "%.6g%%", v * 100);
    else
        snprintf(t, n, "%.6g", v);
}

void fg_linaxis_y(double top, const char *kind, double size)
{
    fg_linaxis_y_n(top, kind, size, 5);
}

void fg_linaxis_y_n(double top, const char *kind, double size, int nsteps)
{
    double step = nice_step(top, nsteps);
    for (int i = 0; i * step <= top * 1.0001; i++) {
        double y = i * step;
        plcol0(FG_GRID);
        plwidth(1);
        fg_line(g_wx0, y, g_wx1, y);
        char t[64];
        axis_label(y, kind, t, sizeof t);
        fg_mtext("lv", 0.6, (y - g_wy0) / (g_wy1 - g_wy0), 1.0, size, FG_BLACK, t);
    }
}

void fg_linaxis_x(double lo, double hi, double step, const char *kind, const char *suffix, double size)
{
    for (int i = 0; lo + i * step <= hi + 1e-9 * (hi - lo); i++) {
        double x = lo + i * step;
        plcol0(FG_GRID);
        plwidth(1);
        fg_line(x, g_wy0, x, g_wy1);
        char t[64], u[80];
        axis_label(x, kind, t, sizeof t);
        snprintf(u, sizeof u, "%s%s", t, suffix);
        fg_mtext("b", 1.4, (x - g_wx0) / (g_wx1 - g_wx0), 0.5, size, FG_BLACK, u);
    }
}

void fg_legend(double x0, double x1, double y0, double y1, int n, const char *const *names, const int *colors,
               const int *grey, double size)
{
    fg_panel(x0, x1, y0, y1, 0, n, 0, 1);
    for (int k = 0; k < n; k++) {
        fg_color(colors[k]);
        fg_rect(k + 0.0, 0.3, k + 0.06, 0.7);
        fg_text(k + 0.09, 0.5, 0, size, grey && grey[k] ? FG_GREY : FG_BLACK, "%s", names[k]);
    }
}

int fg_family_color(int family)
{
    static const int c[8] = {FG_DARK, FG_ORANGE, FG_BLUE, FG_TEAL, FG_PURPLE, FG_RED, FG_GREEN, FG_BROWN};
    return family >= 0 && family < 8 ? c[family] : FG_BROWN;
}

void fg_steps(int n, const double *y, int col, double w)
{
    fg_color(col);
    fg_width(w);
    for (int s = 0; s < n; s++) {
        if (!isfinite(y[s]))
            continue;
        fg_line(s, y[s], s + 1, y[s]);
        if (s > 0 && isfinite(y[s - 1]))
            fg_line(s, y[s - 1], s, y[s]);
    }
    fg_width(1);
}

const char *fg_path(const char *figdir, const char *name)
{
    static char p[4200];
    snprintf(p, sizeof p, "%s/%s.svg", figdir, name);
    return p;
}

int fg_finish(const char *figdir, const char *name)
{
    if (fg_end()) {
        fprintf(stderr, "report: cannot write the figure %s: %s\n", fg_path(figdir, name), strerror(errno));
        return -1;
    }
    return 0;
}
