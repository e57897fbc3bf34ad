/* fig: a thin layer over PLplot for the report's SVG figures.
 *
 * Contract: fg_begin opens one figure (PLplot's "svg" device) of w x h
 * points at path; fg_end closes it (plend) and tidies the file: indentation
 * collapsed, width and height in pixels, so it both opens alone and inlines
 * in HTML.  One figure at a time.  Drawing is in the world coordinates of
 * the current panel (fg_panel: a box in page fractions, then its window).
 * Log axes are drawn by the caller in log10 units with fg_logaxis.  Colours
 * are indexes of the report's palette (FG_*).  Text goes through PLplot's
 * text, UTF-8.  fg_end returns 0, or -1 when the file could not be tidied.
 */
#ifndef FIG_H
#define FIG_H

enum {
    FG_WHITE = 0, FG_BLACK, FG_GRID, FG_GREY, FG_BLUE, FG_ORANGE, FG_GREEN, FG_RED, FG_PURPLE, FG_DARK,
    FG_LIGHTBLUE, FG_TEAL, FG_BROWN, FG_PINK, FG_OLIVE, FG_LIGHTGREY, FG_NCOL
};

void fg_begin(const char *path, int w, int h);
int fg_end(void);

/* the panel: page fractions x0..x1, y0..y1 (0 at the bottom), world window */
void fg_panel(double x0, double x1, double y0, double y1, double wx0, double wx1, double wy0, double wy1);
void fg_color(int c);
void fg_width(double w);
void fg_dash(int on);
/* a dotted line (short marks, long gaps) until fg_dotted(0) or fg_dash */
void fg_dotted(int on);
void fg_line(double x0, double y0, double x1, double y1);
void fg_polyline(int n, const double *x, const double *y);
void fg_rect(double x0, double y0, double x1, double y1);   /* filled */
void fg_dot(double x, double y, double size);
/* an open circle (its outline only) of the same size as fg_dot's */
void fg_ring(double x, double y, double size);
/* a filled polygon of n corners in colour c at opacity alpha (0..1: a
 * light band that lets what is under it show); the current colour is c after */
void fg_fill_alpha(int n, const double *x, const double *y, int c, double alpha);
/* text at world (x, y); just 0 left, 0.5 centre, 1 right; size relative to default */
void fg_text(double x, double y, double just, double size, int color, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* vertical text (reading upwards) */
void fg_vtext(double x, double y, double just, double size, int color, const char *text);
/* text relative to the panel: side "t" "b" "l" "r" (PLplot's plmtex) */
void fg_mtext(const char *side, double disp, double pos, double just, double size, int color, const char *text);
/* the figure's title, centred at the top of the page */
void fg_title(const char *text);
void fg_frame(void);   /* the panel's box */

/* a log axis: decades from lo to hi (log10 units), grid lines across the
 * panel, labels from label(decade exponent) */
typedef const char *(*fg_labeler)(int exponent);
void fg_logaxis_x(int lo, int hi, fg_labeler label, double size);
void fg_logaxis_y(int lo, int hi, fg_labeler label, double size);
/* a linear y axis with about 5 (or nsteps) round steps from 0 to top;
 * labels are %g of the value, or of the percentage when kind is "pct" */
void fg_linaxis_y(double top, const char *kind, double size);
void fg_linaxis_y_n(double top, const char *kind, double size, int nsteps);
/* a linear x axis from lo to hi every step, labels as above plus suffix */
void fg_linaxis_x(double lo, double hi, double step, const char *kind, const char *suffix, double size);
/* a row of n coloured squares with names, in the page box x0..x1, y0..y1
 * (grey[k] set: the name is greyed, e.g. not measured; grey may be NULL) */
void fg_legend(double x0, double x1, double y0, double y1, int n, const char *const *names, const int *colors,
               const int *grey, double size);

/* a step per second (x = 0 .. n), broken where a second has no value (not
 * finite), in colour col and line width w */
void fg_steps(int n, const double *y, int col, double w);
/* figdir/name.svg (a static buffer: use it before the next call) */
const char *fg_path(const char *figdir, const char *name);
/* fg_end, naming the figure on stderr when it fails: 0 or -1 */
int fg_finish(const char *figdir, const char *name);

/* a round number at or above v for an axis top */
double fg_nice_top(double v);

/* the colour of an arm's policy family (rdata.h) */
int fg_family_color(int family);

#endif
