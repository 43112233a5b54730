/* figure.c — style, sizes, text and the title/caption frame of the figures. */
#include "draw/figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cairo-ft.h>
#include <fontconfig/fontconfig.h>

#include "draw/layout_boxes.h"

FigureMeta figure_meta_default(void)
{
    FigureMeta m;
    memset(&m, 0, sizeof m);
    m.style.theme = THEME_LIGHT;
    snprintf(m.style.font, sizeof m.style.font, "%s", FIGURE_DEFAULT_FONT);
    return m;
}

int figure_theme_parse(const char *text, FigureTheme *out)
{
    if (strcmp(text, "light") == 0) *out = THEME_LIGHT;
    else if (strcmp(text, "dark") == 0) *out = THEME_DARK;
    else return -1;
    return 0;
}

/* Ask cairo (through fontconfig and FreeType) which family it actually uses
 * for `family` and compare the names. */
int figure_check_font(const char *family, SrError *err)
{
    if (!family || !*family) return sr_fail(err, "font: empty font name");
    cairo_font_face_t *face =
        cairo_toy_font_face_create(family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_matrix_t size, identity;
    cairo_matrix_init_scale(&size, 12, 12);
    cairo_matrix_init_identity(&identity);
    cairo_font_options_t *opt = cairo_font_options_create();
    cairo_scaled_font_t *scaled = cairo_scaled_font_create(face, &size, &identity, opt);
    char found[128] = "";
    int status = cairo_scaled_font_status(scaled);
    if (status == CAIRO_STATUS_SUCCESS && cairo_scaled_font_get_type(scaled) == CAIRO_FONT_TYPE_FT) {
        FT_Face ft = cairo_ft_scaled_font_lock_face(scaled);
        if (ft && ft->family_name) snprintf(found, sizeof found, "%s", ft->family_name);
        cairo_ft_scaled_font_unlock_face(scaled);
    }
    cairo_scaled_font_destroy(scaled);
    cairo_font_options_destroy(opt);
    cairo_font_face_destroy(face);
    if (status != CAIRO_STATUS_SUCCESS)
        return sr_fail(err, "font '%s': %s", family, cairo_status_to_string(status));
    if (!*found)
        return sr_fail(err, "font '%s' is not installed (no font file found; Debian: fonts-dejavu-core)",
                       family);
    if (strcasecmp(found, family) != 0)
        return sr_fail(err, "font '%s' is not installed (fontconfig falls back to '%s')", family, found);
    return 0;
}

void figure_fonts_release(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}

Rgb figure_background(const FigureStyle *s)
{
    return s->theme == THEME_DARK ? rgb_bytes(24, 26, 31) : rgb_bytes(255, 255, 255);
}

Rgb figure_foreground(const FigureStyle *s)
{
    return s->theme == THEME_DARK ? rgb_bytes(235, 235, 235) : rgb_bytes(20, 20, 20);
}

Rgb figure_muted(const FigureStyle *s)
{
    return s->theme == THEME_DARK ? rgb_bytes(175, 175, 175) : rgb_bytes(80, 80, 80);
}

Rgb figure_grid(const FigureStyle *s)
{
    return s->theme == THEME_DARK ? rgb_bytes(62, 65, 72) : rgb_bytes(225, 225, 225);
}

Rgb figure_masked(const FigureStyle *s)
{
    /* a neutral grey: no viridis entry and no Okabe-Ito colour is grey */
    return s->theme == THEME_DARK ? rgb_bytes(92, 92, 92) : rgb_bytes(200, 200, 200);
}

Rgb figure_hatch(const FigureStyle *s)
{
    /* 0.2 from the masked grey in luminance, either side of it */
    return s->theme == THEME_DARK ? rgb_bytes(150, 150, 150) : rgb_bytes(140, 140, 140);
}

double figure_unit(double w, double h)
{
    double u = (w < h ? w : h) / 1000.0;
    if (u > w / 1300.0) u = w / 1300.0;
    return u > 0.05 ? u : 0.05;
}

/* Sizes in figure units of TEXT_TITLE, LABEL, TICK, CAPTION and SMALL. */
double figure_font_size(TextRole role, double unit)
{
    static const double size[] = {38, 30, 26, FIGURE_SMALLEST_TEXT, FIGURE_SMALLEST_TEXT};
    return size[role] * unit;
}

/* The smallest size figure_font() was asked for since the last reset. */
static double smallest_font_asked = HUGE_VAL;

void figure_font_smallest_reset(void)
{
    smallest_font_asked = HUGE_VAL;
}

double figure_font_smallest(void)
{
    return smallest_font_asked;
}

void figure_font(cairo_t *cr, const FigureStyle *s, double size, int bold)
{
    if (size < smallest_font_asked) smallest_font_asked = size;
    cairo_select_font_face(cr, s->font, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double figure_text_width(cairo_t *cr, const char *text)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    return e.x_advance;
}

void figure_text_rotated(cairo_t *cr, const char *text, double x, double y, double ax,
                         double ay, double angle)
{
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    double width = figure_text_width(cr, text);
    double box = fe.ascent + fe.descent;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    cairo_move_to(cr, -ax * width, -ay * box + fe.ascent);
    cairo_show_text(cr, text);
    if (layout_boxes_of(cr) && *text) { /* the ink of the text, for the overlap check */
        cairo_text_extents_t ink;
        cairo_text_extents(cr, text, &ink);
        LayoutBoxes *b = layout_boxes_of(cr);
        layout_boxes_add(cr, b->text_kind, -ax * width + ink.x_bearing, -ay * box + fe.ascent + ink.y_bearing,
                         ink.width, ink.height, text);
    }
    cairo_restore(cr);
}

void figure_text(cairo_t *cr, const char *text, double x, double y, double ax, double ay)
{
    figure_text_rotated(cr, text, x, y, ax, ay, 0.0);
}

int figure_text_wrapped(cairo_t *cr, const char *text, double x, double y, double max_width,
                        double lh, int draw)
{
    char line[1024];
    size_t len = strlen(text), pos = 0;
    int n_lines = 0;
    while (pos < len) {
        while (pos < len && text[pos] == ' ') pos++;
        if (pos >= len) break;
        /* take words while the line fits; always at least one word */
        size_t end = pos, best = 0;
        while (end < len) {
            size_t next = end;
            while (next < len && text[next] == ' ') next++;
            while (next < len && text[next] != ' ' && text[next] != '\n') next++;
            size_t n = next - pos < sizeof line - 1 ? next - pos : sizeof line - 1;
            memcpy(line, text + pos, n);
            line[n] = 0;
            if (best && figure_text_width(cr, line) > max_width) break;
            best = n;
            end = next;
            if (end < len && text[end] == '\n') break;
        }
        memcpy(line, text + pos, best);
        line[best] = 0;
        if (draw) figure_text(cr, line, x, y + n_lines * lh, 0, 0);
        n_lines++;
        pos = end;
        if (pos < len && text[pos] == '\n') pos++;
    }
    return n_lines;
}

/* Title and caption placement shared by figure_content_rect and figure_frame:
 * the caption's top y and line height, and the content rectangle. */
static void frame_layout(cairo_t *cr, const FigureMeta *meta, double w, double h,
                         double *caption_y, double *caption_lh, FigureRect *content)
{
    const FigureStyle *s = &meta->style;
    double u = figure_unit(w, h), margin = 24 * u;
    double top = margin, bottom = h - margin;
    if (meta->title[0]) top += 1.35 * figure_font_size(TEXT_TITLE, u);
    *caption_lh = 0;
    *caption_y = bottom;
    if (meta->caption[0]) {
        double size = figure_font_size(TEXT_CAPTION, u), lh = 1.3 * size;
        cairo_save(cr);
        figure_font(cr, s, size, 0);
        int n = figure_text_wrapped(cr, meta->caption, margin, 0, w - 2 * margin, lh, 0);
        cairo_restore(cr);
        *caption_y = bottom - n * lh;
        *caption_lh = lh;
        bottom = *caption_y - 0.6 * size;
    }
    content->x = margin;
    content->y = top;
    content->w = w - 2 * margin > 1 ? w - 2 * margin : 1;
    content->h = bottom - top > 1 ? bottom - top : 1;
}

void figure_content_rect(cairo_t *cr, const FigureMeta *meta, double w, double h,
                         FigureRect *content)
{
    double y, lh;
    frame_layout(cr, meta, w, h, &y, &lh, content);
}

void figure_frame(cairo_t *cr, const FigureMeta *meta, double w, double h, FigureRect *content)
{
    const FigureStyle *s = &meta->style;
    double u = figure_unit(w, h), margin = 24 * u, caption_y, lh;
    frame_layout(cr, meta, w, h, &caption_y, &lh, content);
    rgb_set(cr, figure_background(s));
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    if (meta->title[0]) {
        /* a title wider than the figure is set smaller (down to half size) to fit */
        double size = figure_font_size(TEXT_TITLE, u), room = w - 2 * margin;
        rgb_set(cr, figure_foreground(s));
        figure_font(cr, s, size, 1);
        double width = figure_text_width(cr, meta->title);
        if (width > room && room > 0) figure_font(cr, s, fmax(0.5, room / width) * size, 1);
        BoxKind before = layout_boxes_text_kind(cr, BOX_TITLE);
        figure_text(cr, meta->title, w / 2, margin, 0.5, 0);
        layout_boxes_text_kind(cr, before);
    }
    if (meta->caption[0]) {
        rgb_set(cr, figure_muted(s));
        figure_font(cr, s, figure_font_size(TEXT_CAPTION, u), 0);
        BoxKind before = layout_boxes_text_kind(cr, BOX_CAPTION);
        figure_text_wrapped(cr, meta->caption, margin, caption_y, w - 2 * margin, lh, 1);
        layout_boxes_text_kind(cr, before);
    }
}

double figure_begin(cairo_t *cr, const FigureMeta *meta, double w, double h, FigureRect *content)
{
    FigureRect placed;
    cairo_save(cr);
    figure_frame(cr, meta, w, h, content ? content : &placed);
    return figure_unit(w, h);
}

int figure_rect_contains(const FigureRect *r, double x, double y)
{
    return x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h;
}

int figure_finish(cairo_t *cr)
{
    cairo_restore(cr);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}
