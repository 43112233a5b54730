/* paint_attention.c — one attention map with token labels, copy boundaries
 * and a colour bar; the map and colour-bar helpers both attention painters use. */
#include <math.h>
#include <stdlib.h>

#include "attention/paint_attention.h"
#include "draw/axes.h"
#include "draw/colourbar.h"
#include "draw/hatch.h"
#include "draw/layout_boxes.h"

/* Above this many tokens a map is drawn as one scaled image instead of one
 * rectangle per cell (keeps SVG and PDF files small). */
#define ATTENTION_RECT_LIMIT 64

/* Colour of one cell. */
static Rgb cell_colour(const AttentionData *d, int layer, int head, int q, int k, double lo, double hi)
{
    if (!attention_visible(d, layer, q, k)) return figure_masked(&d->meta.style); /* hatched later if masked */
    return colormap_viridis(attention_colour_position(d, attention_value(d, layer, head, q, k), lo, hi));
}

void attention_draw_map(cairo_t *cr, const AttentionData *d, int layer, int head, double lo,
                        double hi, FigureRect rect, double line_width, double unit)
{
    int T = d->T;
    double cs = rect.w / T;
    layout_boxes_add(cr, BOX_HEATMAP, rect.x, rect.y, rect.w, rect.h, "attention map");
    cairo_save(cr);
    if (T <= ATTENTION_RECT_LIMIT) {
        /* cell edges on whole device units, shared by neighbours: no seams */
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
        for (int q = 0; q < T; q++) {
            double y0 = round(rect.y + q * cs), y1 = round(rect.y + (q + 1) * cs);
            for (int k = 0; k < T; k++) {
                double x0 = round(rect.x + k * cs), x1 = round(rect.x + (k + 1) * cs);
                rgb_set(cr, cell_colour(d, layer, head, q, k, lo, hi));
                cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
                cairo_fill(cr);
            }
        }
    } else {
        /* one pixel a cell, or, when the cells are smaller than the map's
         * units, one pixel a unit showing the cell under its corner (what
         * nearest-neighbour scaling of the whole map would show) */
        int n = T <= ceil(rect.w) ? T : (int)ceil(rect.w);
        cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, n, n);
        unsigned char *px = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        if (px) {
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    int q = (int)((long)i * T / n), k = (int)((long)j * T / n);
                    unsigned char b[3];
                    rgb_to_bytes(cell_colour(d, layer, head, q, k, lo, hi), b);
                    unsigned int word = 0xff000000u | (unsigned)b[0] << 16 | (unsigned)b[1] << 8 | b[2];
                    ((unsigned int *)(void *)(px + (size_t)i * stride))[j] = word;
                }
            cairo_surface_mark_dirty(img);
            cairo_rectangle(cr, rect.x, rect.y, rect.w, rect.h);
            cairo_clip(cr);
            cairo_translate(cr, rect.x, rect.y);
            cairo_scale(cr, rect.w / n, rect.w / n);
            cairo_set_source_surface(cr, img, 0, 0);
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
            cairo_paint(cr);
        }
        cairo_surface_destroy(img);
    }
    cairo_restore(cr);
    figure_hatch_cells(cr, &d->meta.style, attention_visible_map(d, layer), T, ATTENTION_MASKED, rect,
                       unit); /* the masked cells */
    if (line_width > 0 && d->k > 1) {
        /* copy boundaries: a dark line under a light one shows on every colour */
        cairo_save(cr);
        for (int pass = 0; pass < 2; pass++) {
            cairo_set_source_rgb(cr, pass ? 1 : 0, pass ? 1 : 0, pass ? 1 : 0);
            cairo_set_line_width(cr, pass ? line_width : 2.2 * line_width);
            for (int c = 0; c < d->k - 1; c++) {
                double p = d->boundary[c] * cs;
                cairo_move_to(cr, rect.x + p, rect.y);
                cairo_line_to(cr, rect.x + p, rect.y + rect.h);
                cairo_move_to(cr, rect.x, rect.y + p);
                cairo_line_to(cr, rect.x + rect.w, rect.y + p);
            }
            cairo_stroke(cr);
        }
        cairo_restore(cr);
    }
}

/* Tick values of the colour bar for d's scale and range lo..hi; returns n. */
static int colourbar_ticks(const AttentionData *d, double lo, double hi, double *ticks)
{
    if (d->scale == SCALE_LOG) {
        int n = 0;
        for (double e = ceil(lo - 1e-9); e <= hi + 1e-9; e += 1) ticks[n++] = pow(10.0, e);
        return n;
    }
    if (d->scale == SCALE_FIXED) {
        for (int i = 0; i <= 4; i++) ticks[i] = 0.25 * i;
        return 5;
    }
    return axes_nice_ticks(lo, hi, 4, 0, ticks);
}

void attention_draw_colourbar(cairo_t *cr, const AttentionData *d, double unit, FigureRect bar,
                              FigureRect swatch, double lo, double hi, const char *label,
                              int relative)
{
    const FigureStyle *s = &d->meta.style;
    double values[AXES_MAX_TICKS];
    ColourbarTick ticks[AXES_MAX_TICKS];
    int n = relative ? 2 : colourbar_ticks(d, lo, hi, values), kept = 0;
    if (relative) values[0] = lo, values[1] = hi;
    for (int i = 0; i < n; i++) {
        double pos = relative ? (i == 0 ? 0 : 1) : attention_colour_position(d, values[i], lo, hi);
        if (pos < -1e-9 || pos > 1 + 1e-9) continue;
        ticks[kept].pos = pos;
        if (relative) snprintf(ticks[kept].text, sizeof ticks[kept].text, "%s", i == 0 ? "min" : "max");
        else snprintf(ticks[kept].text, sizeof ticks[kept].text, "%g", values[i]);
        kept++;
    }
    colourbar_draw(cr, s, unit, bar, ticks, kept, label);
    /* the masked swatch */
    cairo_save(cr);
    layout_boxes_open(cr, BOX_LEGEND, swatch.x, swatch.y, swatch.w, swatch.h, "masked swatch");
    cairo_set_line_width(cr, 1.5 * unit);
    rgb_set(cr, figure_masked(s));
    cairo_rectangle(cr, swatch.x, swatch.y, swatch.w, swatch.h);
    cairo_fill_preserve(cr);
    figure_hatch_path(cr, s, unit);
    cairo_rectangle(cr, swatch.x, swatch.y, swatch.w, swatch.h);
    rgb_set(cr, figure_foreground(s));
    cairo_stroke(cr);
    figure_font(cr, s, figure_font_size(TEXT_TICK, unit), 0);
    figure_text(cr, "masked", swatch.x + swatch.w + 10 * unit, swatch.y + swatch.h / 2, 0, 0.5);
    layout_boxes_close(cr, 1); /* the swatch with its label */
    cairo_restore(cr);
}

/* Width of the colour-bar panel (bar, ticks, rotated label) at scale u. */
static double colourbar_panel_width(cairo_t *cr, const FigureStyle *s, double u)
{
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 0);
    double ticks = figure_text_width(cr, "0.001") > figure_text_width(cr, "masked")
                       ? figure_text_width(cr, "0.001")
                       : figure_text_width(cr, "masked");
    return 40 * u + 12 * u + ticks + 1.6 * figure_font_size(TEXT_LABEL, u);
}

/* Widest token label in the current font (at most 14 characters are drawn). */
static double widest_token(cairo_t *cr, const AttentionData *d)
{
    double widest = 0;
    char buf[64];
    for (int t = 0; t < d->T; t++) {
        snprintf(buf, sizeof buf, "%.14s", d->tokens[t]);
        double w = figure_text_width(cr, buf);
        if (w > widest) widest = w;
    }
    return widest;
}

void attention_layout(cairo_t *cr, const AttentionData *d, double w, double h, AttentionLayout *out)
{
    const FigureStyle *s = &d->meta.style;
    double u = figure_unit(w, h);
    FigureRect c;
    figure_content_rect(cr, &d->meta, w, h, &c);
    cairo_save(cr);
    double panel = colourbar_panel_width(cr, s, u) + 40 * u;
    double font = figure_font_size(TEXT_SMALL, u);
    figure_font(cr, s, font, 0);
    double labels = widest_token(cr, d);
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 1);
    double corner = fmax(figure_text_width(cr, "query \xe2\x86\x93"), 2.6 * figure_font_size(TEXT_TICK, u));
    labels = fmax(labels, corner) + 12 * u;
    cairo_restore(cr);
    double side = fmin(c.w - panel - labels, c.h - labels);
    if (side < 10) side = 10;
    out->cell = side / d->T;
    /* labels keep their size (the text floor); when rows are too thin for
     * them, only every step-th is drawn */
    int step = (int)ceil(1.1 * font / out->cell - 1e-9);
    out->label_step = step < 1 ? 1 : step;
    out->label_font = font;
    double x0 = c.x + (c.w - (labels + side + panel)) / 2;
    out->map = (FigureRect){.x = x0 + labels, .y = c.y + labels + (c.h - labels - side) / 2, .w = side, .h = side};
    attention_place_colourbar(out->map, side * 0.75, u, &out->colourbar, &out->masked_swatch);
}

void attention_place_colourbar(FigureRect maps, double bar_h, double unit, FigureRect *bar, FigureRect *swatch)
{
    /* whole pixels, so the end colours fill whole rows */
    *bar = (FigureRect){.x = round(maps.x + maps.w + 40 * unit),
                        .y = round(maps.y),
                        .w = round(40 * unit),
                        .h = round(bar_h)};
    *swatch = (FigureRect){.x = bar->x, .y = maps.y + maps.h - 40 * unit, .w = 40 * unit, .h = 40 * unit};
}

int attention_cell_at(const AttentionLayout *l, const AttentionData *d, double x, double y,
                      int *query, int *key)
{
    if (!figure_rect_contains(&l->map, x, y)) return 0;
    int col = (int)((x - l->map.x) / l->cell), row = (int)((y - l->map.y) / l->cell);
    if (row < 0 || col < 0 || row >= d->T || col >= d->T) return 0;
    *query = row;
    *key = col;
    return 1;
}

/* The colour-bar label for d's scale. */
static const char *colourbar_label(const AttentionData *d)
{
    switch (d->scale) {
    case SCALE_LOG: return "attention probability (log scale)";
    case SCALE_PER_HEAD: return "attention probability (this map's range)";
    default: return "attention probability";
    }
}

/* "every 3rd label" under the colour bar when only every label_step-th
 * token is labelled, in the labels' size and the muted colour. */
static void thinned_note(cairo_t *cr, const FigureStyle *s, const AttentionLayout *L)
{
    int n = L->label_step;
    const char *suffix = n % 10 == 2 && n % 100 != 12 ? "nd" : n % 10 == 3 && n % 100 != 13 ? "rd" : "th";
    if (n % 10 == 1 && n % 100 != 11) suffix = "st";
    char note[48];
    snprintf(note, sizeof note, "every %d%s label", n, suffix);
    rgb_set(cr, figure_muted(s));
    figure_text(cr, note, L->colourbar.x, L->colourbar.y + L->colourbar.h + 0.8 * L->label_font, 0, 0);
}

int paint_attention(cairo_t *cr, const AttentionData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    AttentionLayout L;
    attention_layout(cr, d, w, h, &L);
    double u = figure_begin(cr, &d->meta, w, h, NULL);
    double lo, hi;
    attention_range(d, d->layer, d->head, &lo, &hi);
    attention_draw_map(cr, d, d->layer, d->head, lo, hi, L.map, L.cell >= 6 * u ? 2.5 * u : 1.5 * u, u);
    rgb_set(cr, figure_foreground(s));
    cairo_set_line_width(cr, 1.5 * u);
    cairo_rectangle(cr, L.map.x, L.map.y, L.map.w, L.map.h);
    cairo_stroke(cr);

    /* token labels, every label_step-th; specials in the muted colour. Rows
     * thinner than the labels push them off the map by half the difference,
     * so the first row's and the first column's labels miss in the corner. */
    figure_font(cr, s, L.label_font, 0);
    double off = 6 * u + fmax(0, (L.label_font - L.cell) / 2);
    char buf[64];
    for (int t = 0; t < d->T; t += L.label_step) {
        snprintf(buf, sizeof buf, "%.14s", d->tokens[t]);
        rgb_set(cr, d->copy[t] < 0 ? figure_muted(s) : figure_foreground(s));
        double mid = (t + 0.5) * L.cell;
        figure_text(cr, buf, L.map.x - off, L.map.y + mid, 1, 0.5);
        figure_text_rotated(cr, buf, L.map.x + mid, L.map.y - off, 0, 0.5, -FIGURE_PI / 2);
    }
    if (L.label_step > 1) thinned_note(cr, s, &L);
    /* the corner says which axis is which */
    rgb_set(cr, figure_muted(s));
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 1);
    figure_text(cr, "query \xe2\x86\x93", L.map.x - off, L.map.y - off - 1.3 * figure_font_size(TEXT_TICK, u), 1, 1);
    figure_text(cr, "key \xe2\x86\x92", L.map.x - off, L.map.y - off, 1, 1);

    attention_draw_colourbar(cr, d, u, L.colourbar, L.masked_swatch, lo, hi, colourbar_label(d), 0);
    return figure_finish(cr);
}
