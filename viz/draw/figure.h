/* figure.h — what every figure shares: the style (theme, font), the title
 * and caption, the scale of text and lines, and the text drawing.
 *
 * A painter is a pure function of its data:
 *
 *     int paint_NAME(cairo_t *cr, const NameData *d, double w, double h);
 *
 * It draws the whole figure, background included, into the rectangle
 * (0, 0)-(w, h) of cr's user space, leaves cr's state as it found it
 * (cairo_save / cairo_restore) and returns 0, or -1 when cairo reports an
 * error on cr. The same call serves every export (export.h: PNG, SVG, PDF)
 * and the interactive window, which calls it once per frame with a context
 * on the window's surface. Every NameData starts with a FigureMeta.
 *
 * Sizes scale with the figure: figure_unit(w, h) is 1 for a 1600 x 1000
 * figure, and fonts and lines are multiples of it, large enough to read when
 * projected in a lecture hall. */
#ifndef SEQREP_VIZ_FIGURE_H
#define SEQREP_VIZ_FIGURE_H

#include <cairo.h>

#include "base/status.h"
#include "draw/colormap.h"

typedef enum { THEME_LIGHT = 0, THEME_DARK = 1 } FigureTheme;

/* The font family used when none is asked for (Debian fonts-dejavu-core). */
#define FIGURE_DEFAULT_FONT "DejaVu Sans"

/* pi, for angles (math.h only defines M_PI outside strict C11). */
#define FIGURE_PI 3.14159265358979323846

typedef struct {
    FigureTheme theme;
    char font[64];  /* font family for cairo's text API */
} FigureStyle;

/* What every figure's data begins with: style, a title drawn on top and a
 * self-describing caption (model, data, layer, head, r, seed) drawn at the
 * bottom, wrapped to the figure's width. */
typedef struct {
    FigureStyle style;
    char title[200];
    char caption[1024];
} FigureMeta;

/* Light theme with the default font; empty title and caption. */
FigureMeta figure_meta_default(void);

/* Parse "light" | "dark"; 0 or -1. */
int figure_theme_parse(const char *text, FigureTheme *out);

/* Check that fontconfig resolves `family` to that very family (not to a
 * fallback), so text is drawn as asked: 0, or -1 with "font 'X' is not
 * installed (fontconfig falls back to 'Y')". */
int figure_check_font(const char *family, SrError *err);

/* Free cairo's and fontconfig's caches of fonts (cairo_debug_reset_static_data,
 * FcFini) as a command that drew ends, when no cairo object is left: a leak
 * checker then sees only what seqrep leaves (fontconfig keeps its caches
 * to the process's end otherwise, and ASan matching those blocks to a
 * suppression took 0.15 s of every seqrep plot). Both start again when text
 * is drawn after. */
void figure_fonts_release(void);

/* ---- colours of the theme ------------------------------------------------ */

Rgb figure_background(const FigureStyle *s);  /* page                         */
Rgb figure_foreground(const FigureStyle *s);  /* text, axes, outlines         */
Rgb figure_muted(const FigureStyle *s);       /* caption text, grid lines     */
Rgb figure_grid(const FigureStyle *s);        /* light grid lines             */
Rgb figure_masked(const FigureStyle *s);      /* a masked cell: its own grey  */
Rgb figure_hatch(const FigureStyle *s);       /* the lines across masked cells */

/* ---- sizes ----------------------------------------------------------------- */

/* The scale of a w x h figure: min(w, h) / 1000, at most w / 1300. */
double figure_unit(double w, double h);

typedef enum {
    TEXT_TITLE = 0,   /* the figure's title               */
    TEXT_LABEL = 1,   /* axis labels                      */
    TEXT_TICK = 2,    /* tick labels, legend entries      */
    TEXT_CAPTION = 3, /* the caption                      */
    TEXT_SMALL = 4    /* dense labels (tokens, cell text) */
} TextRole;

/* The smallest text of any figure, in figure units: at the scale of a
 * 1280 x 720 figure (unit 0.72) it is 18 px, the least that reads when
 * projected in a lab. TEXT_CAPTION and TEXT_SMALL are this size; no painter
 * shrinks text below it (dense labels are thinned out instead). */
#define FIGURE_SMALLEST_TEXT 25.0

/* Font size in device units of a text role at scale unit. */
double figure_font_size(TextRole role, double unit);

/* ---- text -------------------------------------------------------------- */

/* Select the style's font at `size` (bold if asked). Every text of the
 * figures and of the explorer's overlays is set through here, so it also
 * records the smallest size asked for (see figure_font_smallest). */
void figure_font(cairo_t *cr, const FigureStyle *s, double size, int bold);

/* The check the tests use for the text floor: figure_font_smallest() is the
 * smallest size figure_font() was asked for since the last
 * figure_font_smallest_reset() (HUGE_VAL when none). figure_font() does not
 * know the figure's unit, so a test draws a figure of known size and compares
 * this with FIGURE_SMALLEST_TEXT * figure_unit(w, h). Process-wide, not for
 * use from several threads at once. */
void figure_font_smallest_reset(void);
double figure_font_smallest(void);

/* Width of text in the current font. */
double figure_text_width(cairo_t *cr, const char *text);

/* Draw text with its anchor at (x, y): ax = 0 left, 0.5 centre, 1 right;
 * ay = 0 top, 0.5 middle, 1 bottom of the font's ascent + descent box (so
 * labels of one row line up whatever their letters). Current source colour. */
void figure_text(cairo_t *cr, const char *text, double x, double y, double ax, double ay);

/* The same, rotated by `angle` radians about the anchor (e.g. -pi/2 for a
 * y-axis label reading upwards). */
void figure_text_rotated(cairo_t *cr, const char *text, double x, double y, double ax,
                         double ay, double angle);

/* Lines the text needs when wrapped at spaces to max_width in the current
 * font; if draw, draws them left-aligned from top y at x with line height lh. */
int figure_text_wrapped(cairo_t *cr, const char *text, double x, double y, double max_width,
                        double lh, int draw);

/* ---- the frame ------------------------------------------------------------ */

typedef struct {
    double x, y, w, h;
} FigureRect;

/* The rectangle of a w x h figure left for the plot once the title (top)
 * and the caption (bottom) of meta are placed; measures text, draws nothing. */
void figure_content_rect(cairo_t *cr, const FigureMeta *meta, double w, double h,
                         FigureRect *content);

/* Paint the background, the title and the caption of meta on a w x h figure
 * and return in *content the rectangle left for the plot. */
void figure_frame(cairo_t *cr, const FigureMeta *meta, double w, double h, FigureRect *content);

/* What every painter starts with: save cr, paint the frame of meta on a
 * w x h figure, and return the figure's scale unit (figure_unit) with the
 * rectangle left for the plot in *content (NULL: a painter that placed its
 * plot with a layout of its own). Pair with figure_finish. */
double figure_begin(cairo_t *cr, const FigureMeta *meta, double w, double h, FigureRect *content);

/* 1 if (x, y) lies in r. */
int figure_rect_contains(const FigureRect *r, double x, double y);

/* Shared tail of a painter: restore cr and turn its status into 0 / -1. */
int figure_finish(cairo_t *cr);

#endif
