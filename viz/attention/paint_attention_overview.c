/* paint_attention_overview.c — every layer and head of one sentence at once:
 * a layer x head grid of small attention maps, the mean over heads in an
 * extra column, one shared colour bar. The selected map is framed. Room asked
 * for by a caller (a strip under each panel, a column at the right) stays
 * empty; with none the layout's sums are the same numbers to the bit. */
#include <math.h>
#include <stdio.h>

#include "attention/paint_attention.h"
#include "attention/paint_attention_overview.h"

void attention_overview_layout(cairo_t *cr, const AttentionData *d, double w, double h,
                               AttentionOverviewLayout *out)
{
    attention_overview_layout_room(cr, d, w, h, (AttentionOverviewRoom){.below = 0, .side = 0}, out);
}

void attention_overview_layout_room(cairo_t *cr, const AttentionData *d, double w, double h,
                                    AttentionOverviewRoom room, AttentionOverviewLayout *out)
{
    const FigureStyle *s = &d->meta.style;
    double u = figure_unit(w, h);
    FigureRect c;
    figure_content_rect(cr, &d->meta, w, h, &c);
    cairo_save(cr);
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 0);
    double left = figure_text_width(cr, "layer 00") + 14 * u;
    double top = 1.5 * figure_font_size(TEXT_TICK, u);
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 0);
    double panel_w = 40 * u + 12 * u + figure_text_width(cr, "masked") + 1.6 * figure_font_size(TEXT_LABEL, u) + 40 * u;
    cairo_restore(cr);
    out->n_cols = d->n_heads > 1 ? d->n_heads + 1 : 1;
    out->gap = 10 * u;
    double extra_gap = d->n_heads > 1 ? 2 * out->gap : 0; /* sets the mean column apart */
    out->below = room.below;
    /* room {0, 0} subtracts and adds zeros: the same doubles as without room */
    double pw = (c.w - left - panel_w - room.side - extra_gap - (out->n_cols - 1) * out->gap) / out->n_cols;
    double ph = (c.h - top - d->n_layers * room.below - (d->n_layers - 1) * out->gap) / d->n_layers;
    out->panel = fmax(4, fmin(pw, ph));
    double grid_w = out->n_cols * out->panel + (out->n_cols - 1) * out->gap + extra_gap;
    double grid_h = d->n_layers * out->panel + (d->n_layers - 1) * out->gap + d->n_layers * room.below;
    double x0 = c.x + (c.w - (left + grid_w + panel_w + room.side)) / 2;
    out->grid = (FigureRect){.x = x0 + left, .y = c.y + top + (c.h - top - grid_h) / 2, .w = grid_w, .h = grid_h};
    attention_place_colourbar(out->grid, fmax(grid_h * 0.7, 40 * u), u, &out->colourbar, &out->masked_swatch);
    out->side = (FigureRect){.x = x0 + left + grid_w + panel_w,
                             .y = out->grid.y,
                             .w = room.side,
                             .h = c.y + c.h - out->grid.y};
}

FigureRect attention_overview_panel(const AttentionOverviewLayout *L, const AttentionData *d, int layer, int col)
{
    double extra = d->n_heads > 1 && col == d->n_heads ? 2 * L->gap : 0;
    return (FigureRect){.x = L->grid.x + col * (L->panel + L->gap) + extra,
                        .y = L->grid.y + layer * (L->panel + L->gap + L->below),
                        .w = L->panel,
                        .h = L->panel};
}

int paint_attention_overview(cairo_t *cr, const AttentionData *d, double w, double h)
{
    return paint_attention_overview_room(cr, d, w, h, (AttentionOverviewRoom){.below = 0, .side = 0});
}

int paint_attention_overview_room(cairo_t *cr, const AttentionData *d, double w, double h,
                                  AttentionOverviewRoom room)
{
    const FigureStyle *s = &d->meta.style;
    AttentionOverviewLayout L;
    attention_overview_layout_room(cr, d, w, h, room, &L);
    double u = figure_begin(cr, &d->meta, w, h, NULL);
    double font = figure_font_size(TEXT_TICK, u);
    char buf[32];
    for (int l = 0; l < d->n_layers; l++)
        for (int col = 0; col < L.n_cols; col++) {
            int head = col < d->n_heads ? col : -1;
            if (d->n_heads == 1) head = 0;
            double lo, hi;
            attention_range(d, l, head, &lo, &hi);
            FigureRect r = attention_overview_panel(&L, d, l, col);
            attention_draw_map(cr, d, l, head, lo, hi, r, L.panel > 120 * u ? 1.5 * u : 0.8 * u, u);
            int selected = l == d->layer && (head == d->head || (d->n_heads == 1 && d->head <= 0));
            rgb_set(cr, selected ? palette_okabe_ito(OKABE_VERMILLION) : figure_foreground(s));
            cairo_set_line_width(cr, selected ? 5 * u : 1 * u);
            cairo_rectangle(cr, r.x, r.y, r.w, r.h);
            cairo_stroke(cr);
        }
    rgb_set(cr, figure_foreground(s));
    figure_font(cr, s, font, 0);
    for (int l = 0; l < d->n_layers; l++) {
        FigureRect r = attention_overview_panel(&L, d, l, 0);
        snprintf(buf, sizeof buf, "layer %d", l);
        figure_text(cr, buf, r.x - 10 * u, r.y + r.h / 2, 1, 0.5);
    }
    for (int col = 0; col < L.n_cols; col++) {
        FigureRect r = attention_overview_panel(&L, d, 0, col);
        if (d->n_heads > 1 && col == d->n_heads) snprintf(buf, sizeof buf, "mean");
        else snprintf(buf, sizeof buf, L.panel > 90 * u ? "head %d" : "%d", col);
        figure_font(cr, s, font, col == d->n_heads);
        figure_text(cr, buf, r.x + r.w / 2, r.y - 6 * u, 0.5, 1);
    }
    const char *label = d->scale == SCALE_LOG        ? "attention probability (log scale)"
                        : d->scale == SCALE_PER_HEAD ? "attention (each map's own range)"
                                                     : "attention probability";
    double lo, hi;
    attention_range(d, d->layer, d->head, &lo, &hi);
    if (d->scale == SCALE_PER_HEAD) lo = 0, hi = 1;
    attention_draw_colourbar(cr, d, u, L.colourbar, L.masked_swatch, lo, hi, label,
                             d->scale == SCALE_PER_HEAD);
    return figure_finish(cr);
}
