/* paint_heads.c — the painter of the heads figure: a layer x head grid per
 * score, side by side, with one colour bar; a dot in the corner of each cell
 * at or below its layer's chance level when the data has them. */
#include <math.h>
#include <stdio.h>

#include "draw/axes.h"
#include "draw/colourbar.h"
#include "results/paint_heads.h"

/* Gap between the panels beside their tick labels, and the largest cell. */
#define HEADS_PANEL_GAP 36.0
#define HEADS_MAX_CELL 170.0

/* What the layout measures in the figure's fonts at scale u. */
typedef struct {
    double layer_ticks;  /* the widest layer number, its tick and gap          */
    double right;        /* the colour bar with ticks and title, or its key     */
    double widest_title; /* the widest panel title                              */
    double bar_title;    /* the colour bar's title, which runs along the bar    */
    double value;        /* "0.00" in the font of the values                    */
} HeadsMeasures;

static const char *const BAR_TITLE = "mean attention";

static void measure(cairo_t *cr, const HeadsData *d, double u, HeadsMeasures *m)
{
    const FigureStyle *s = &d->meta.style;
    char buf[16];
    cairo_save(cr);
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 0);
    snprintf(buf, sizeof buf, "%d", d->n_layers - 1);
    m->layer_ticks = figure_text_width(cr, buf) + 14 * u;
    double bar = 40 * u + 20 * u + figure_text_width(cr, "0.75") + 1.6 * figure_font_size(TEXT_LABEL, u);
    double key = 40 * u + 10 * u +
                 fmax(figure_text_width(cr, "best head"), d->has_chance ? figure_text_width(cr, "at or below chance") : 0);
    m->right = 40 * u + fmax(bar, key);
    figure_font(cr, s, figure_font_size(TEXT_LABEL, u), 1);
    m->widest_title = 0;
    for (int p = 0; p < d->n_scores; p++)
        m->widest_title = fmax(m->widest_title, figure_text_width(cr, head_score_label(d->scores[p])));
    figure_font(cr, s, figure_font_size(TEXT_LABEL, u), 0);
    m->bar_title = figure_text_width(cr, BAR_TITLE);
    figure_font(cr, s, figure_font_size(TEXT_SMALL, u), 1);
    m->value = figure_text_width(cr, "0.00");
    cairo_restore(cr);
}

void heads_layout(cairo_t *cr, const HeadsData *d, double w, double h, HeadsLayout *out)
{
    double u = figure_unit(w, h), tick = figure_font_size(TEXT_TICK, u), label = figure_font_size(TEXT_LABEL, u);
    FigureRect c;
    figure_content_rect(cr, &d->meta, w, h, &c);
    HeadsMeasures m;
    measure(cr, d, u, &m);
    double left = m.layer_ticks + 1.5 * label, gap = m.layer_ticks + HEADS_PANEL_GAP * u;
    double top = 1.5 * label + 16 * u, bottom = 1.4 * tick + 10 * u + 1.5 * label;
    int P = d->n_scores;
    double room_h = c.h - top - bottom, room_w = c.w - left - m.right;
    double cell = fmin((room_w - (P - 1) * gap) / (P * d->n_heads), room_h / d->n_layers);
    /* when the titles would run into each other, gaps of (title - grid) set
     * them apart if that leaves room for the grids */
    double title = m.widest_title + 20 * u, grid_w = room_w - (P - 1) * title;
    if (P > 1 && cell * d->n_heads + gap < title && grid_w > 4 * d->n_heads) {
        cell = fmin(grid_w / d->n_heads, room_h / d->n_layers);
        gap = fmax(gap, title - cell * d->n_heads);
    }
    out->cell = fmax(2, fmin(cell, HEADS_MAX_CELL * u));
    double gw = out->cell * d->n_heads;
    double gh = out->cell * d->n_layers;
    double x0 = c.x + (c.w - (left + P * gw + (P - 1) * gap + m.right)) / 2 + left;
    double y0 = round(c.y + top + (room_h - gh) / 2);
    for (int p = 0; p < P; p++)
        out->panel[p] = (FigureRect){.x = round(x0 + p * (gw + gap)), .y = y0, .w = gw, .h = gh};
    /* the colour bar top-aligned with the grids, as long as its title at
     * least, the key of the outline under it */
    double keys = (d->has_chance ? 140 : 80) * u; /* the keys under the bar */
    double bar_h = fmax(fmin(fmax(gh - 80 * u, fmax(150 * u, m.bar_title + 20 * u)), room_h - keys), 20 * u);
    FigureRect last = out->panel[P - 1];
    out->colourbar = (FigureRect){.x = round(last.x + gw + 40 * u), .y = y0, .w = round(40 * u), .h = round(bar_h)};
    out->best_swatch = (FigureRect){.x = out->colourbar.x, .y = y0 + bar_h + 30 * u, .w = 40 * u, .h = 40 * u};
    out->chance_swatch = out->best_swatch;
    out->chance_swatch.y += 60 * u;
    /* values in the cells only where "0.00" fits with a margin */
    double font = figure_font_size(TEXT_SMALL, u);
    out->value_font = m.value + 10 * u <= out->cell && 1.3 * font <= out->cell ? font : 0;
}

FigureRect heads_cell(const HeadsLayout *L, int p, int layer, int head)
{
    const FigureRect *g = &L->panel[p];
    double x0 = round(g->x + head * L->cell), x1 = round(g->x + (head + 1) * L->cell);
    double y0 = round(g->y + layer * L->cell), y1 = round(g->y + (layer + 1) * L->cell);
    return (FigureRect){.x = x0, .y = y0, .w = x1 - x0, .h = y1 - y0};
}

Rgb heads_best_colour(void)
{
    return palette_okabe_ito(OKABE_VERMILLION);
}

/* Ticks every step-th of n, the step leaving `need` device units per label. */
static int thin_ticks(int n, double cell, double need, double *ticks)
{
    int step = (int)ceil(need / cell - 1e-9), count = 0;
    if (step < 1) step = 1;
    for (int i = 0; i < n && count < AXES_MAX_TICKS; i += step) ticks[count++] = i;
    return count;
}

/* The axes of panel p: heads across, layers down (layer 0 on top), every
 * label that fits; "layer" only beside the first panel. */
static void draw_panel_axes(cairo_t *cr, const HeadsData *d, const HeadsLayout *L, int p, double u)
{
    Axes a;
    axes_init(&a, -0.5, d->n_heads - 0.5, -0.5, d->n_layers - 0.5, 1, 1, "head", p == 0 ? "layer" : NULL);
    a.y_down = 1;
    a.area = L->panel[p];
    double tick = figure_font_size(TEXT_TICK, u);
    figure_font(cr, &d->meta.style, tick, 0);
    char widest[16];
    snprintf(widest, sizeof widest, "%d", d->n_heads - 1);
    a.n_xticks = thin_ticks(d->n_heads, L->cell, figure_text_width(cr, widest) + 12 * u, a.xticks);
    a.n_yticks = thin_ticks(d->n_layers, L->cell, 1.2 * tick, a.yticks);
    axes_draw(&a, cr, &d->meta.style, u);
}

/* The dot of a cell at or below chance: in the top left corner of r, in
 * the colour that reads on the cell's own. */
static void draw_chance_dot(cairo_t *cr, FigureRect r, Rgb on, double u)
{
    double radius = fmax(1.5, fmin(6 * u, fmin(r.w, r.h) / 8));
    rgb_set(cr, rgb_text_on(on));
    cairo_arc(cr, r.x + 2.2 * radius, r.y + 2.2 * radius, radius, 0, 2 * FIGURE_PI);
    cairo_fill(cr);
}

/* The cells of panel p with their values, thin lines between them, a frame,
 * the dots of the cells at or below chance and the outline of the best
 * head. */
static void draw_panel_cells(cairo_t *cr, const HeadsData *d, const HeadsLayout *L, int p, double u)
{
    const FigureStyle *s = &d->meta.style;
    char buf[16];
    cairo_save(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    for (int l = 0; l < d->n_layers; l++)
        for (int h = 0; h < d->n_heads; h++) {
            FigureRect r = heads_cell(L, p, l, h);
            rgb_set(cr, colormap_viridis(heads_value(d, p, l, h)));
            cairo_rectangle(cr, r.x, r.y, r.w, r.h);
            cairo_fill(cr);
        }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
    FigureRect g = L->panel[p];
    if (L->cell >= 8) { /* thin lines between the cells keep the grid readable */
        rgb_set(cr, figure_background(s));
        cairo_set_line_width(cr, fmax(1, 1.5 * u));
        for (int h = 1; h < d->n_heads; h++) {
            double x = heads_cell(L, p, 0, h).x;
            cairo_move_to(cr, x, g.y);
            cairo_line_to(cr, x, g.y + g.h);
        }
        for (int l = 1; l < d->n_layers; l++) {
            double y = heads_cell(L, p, l, 0).y;
            cairo_move_to(cr, g.x, y);
            cairo_line_to(cr, g.x + g.w, y);
        }
        cairo_stroke(cr);
    }
    if (L->value_font > 0) {
        figure_font(cr, s, L->value_font, 1);
        for (int l = 0; l < d->n_layers; l++)
            for (int h = 0; h < d->n_heads; h++) {
                FigureRect r = heads_cell(L, p, l, h);
                double v = heads_value(d, p, l, h);
                snprintf(buf, sizeof buf, "%.2f", v);
                rgb_set(cr, rgb_text_on(colormap_viridis(v)));
                figure_text(cr, buf, r.x + r.w / 2, r.y + r.h / 2, 0.5, 0.5);
            }
    }
    for (int l = 0; l < d->n_layers; l++)
        for (int h = 0; h < d->n_heads; h++)
            if (heads_at_chance(d, p, l, h))
                draw_chance_dot(cr, heads_cell(L, p, l, h), colormap_viridis(heads_value(d, p, l, h)), u);
    double lw = 1.5 * u; /* the frame lies outside the grid */
    rgb_set(cr, figure_foreground(s));
    cairo_set_line_width(cr, lw);
    cairo_rectangle(cr, g.x - lw / 2, g.y - lw / 2, g.w + lw, g.h + lw);
    cairo_stroke(cr);
    FigureRect b = heads_cell(L, p, d->best_layer[p], d->best_head[p]);
    double best_w = fmax(1, fmin(5 * u, fmin(b.w, b.h) / 4)); /* inside the cell, away from its neighbours */
    rgb_set(cr, heads_best_colour());
    cairo_set_line_width(cr, best_w);
    cairo_rectangle(cr, b.x + best_w / 2, b.y + best_w / 2, b.w - best_w, b.h - best_w);
    cairo_stroke(cr);
    figure_font(cr, s, figure_font_size(TEXT_LABEL, u), 1);
    rgb_set(cr, figure_foreground(s));
    figure_text(cr, head_score_label(d->scores[p]), g.x + g.w / 2, g.y - 8 * u, 0.5, 1);
    cairo_restore(cr);
}

/* The shared colour bar (0 to 1 in quarters) and the key of the outline. */
static void draw_colourbar(cairo_t *cr, const HeadsData *d, const HeadsLayout *L, double u)
{
    const FigureStyle *s = &d->meta.style;
    ColourbarTick ticks[5];
    for (int i = 0; i < 5; i++) {
        ticks[i].pos = 0.25 * i;
        snprintf(ticks[i].text, sizeof ticks[i].text, "%g", 0.25 * i);
    }
    colourbar_draw(cr, s, u, L->colourbar, ticks, 5, BAR_TITLE);
    FigureRect k = L->best_swatch;
    double lw = 5 * u;
    cairo_save(cr);
    rgb_set(cr, heads_best_colour());
    cairo_set_line_width(cr, lw);
    cairo_rectangle(cr, k.x + lw / 2, k.y + lw / 2, k.w - lw, k.h - lw);
    cairo_stroke(cr);
    rgb_set(cr, figure_foreground(s));
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 0);
    figure_text(cr, "best head", k.x + k.w + 10 * u, k.y + k.h / 2, 0, 0.5);
    if (d->has_chance) {
        FigureRect c = L->chance_swatch;
        rgb_set(cr, colormap_viridis(0));
        cairo_rectangle(cr, c.x, c.y, c.w, c.h);
        cairo_fill(cr);
        draw_chance_dot(cr, c, colormap_viridis(0), u);
        rgb_set(cr, figure_foreground(s));
        figure_text(cr, "at or below chance", c.x + c.w + 10 * u, c.y + c.h / 2, 0, 0.5);
    }
    cairo_restore(cr);
}

int paint_heads(cairo_t *cr, const HeadsData *d, double w, double h)
{
    HeadsLayout L;
    heads_layout(cr, d, w, h, &L);
    double u = figure_begin(cr, &d->meta, w, h, NULL);
    for (int p = 0; p < d->n_scores; p++) {
        draw_panel_axes(cr, d, &L, p, u);
        draw_panel_cells(cr, d, &L, p, u);
    }
    draw_colourbar(cr, d, &L, u);
    return figure_finish(cr);
}
