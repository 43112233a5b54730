/* paint_mask.c — the painter of the mask figure. */
#include <math.h>
#include <stdio.h>

#include "draw/hatch.h"
#include "draw/layout_boxes.h"
#include "draw/legend.h"
#include "mask/paint_mask.h"

Rgb mask_block_colour(BlockKind kind)
{
    switch (kind) {
    case BLOCK_FULL: return palette_okabe_ito(OKABE_BLUE);
    case BLOCK_CAUSAL: return palette_okabe_ito(OKABE_ORANGE);
    case BLOCK_MASKED: return rgb_bytes(200, 200, 200);
    default: return palette_okabe_ito(OKABE_PURPLE);
    }
}

Rgb mask_special_colour(void)
{
    return palette_okabe_ito(OKABE_GREEN);
}

/* The legend entries of d (specials only when the layout has any); returns n. */
static int legend_entries(const MaskData *d, LegendEntry *e)
{
    int n = 0;
    e[n++] = legend_patch("full block (sees a whole copy)", mask_block_colour(BLOCK_FULL), 0);
    e[n++] = legend_patch("causal block (diagonal)", mask_block_colour(BLOCK_CAUSAL), 0);
    if (d->n_other) e[n++] = legend_patch("other pattern", mask_block_colour(BLOCK_OTHER), 0);
    if (d->T > d->k * d->n) e[n++] = legend_patch("<bos> / <sep> row or column", mask_special_colour(), 0);
    e[n++] = legend_hatch("masked", figure_masked(&d->meta.style), 1);
    return n;
}

/* The summary lines printed under the legend into lines[5][96]; returns n. */
static int summary_lines(const MaskData *d, char lines[5][96])
{
    Share counted = share_reduce(d->full_share), closed = share_reduce(d->full_share_closed);
    int n = 0;
    snprintf(lines[n++], 96, "k = %d copies, n = %d, T = %d", d->k, d->n, d->T);
    snprintf(lines[n++], 96, "blocks: %lld full, %lld causal, %lld masked", (long long)d->n_full,
             (long long)d->n_causal, (long long)d->n_masked);
    if (d->window) { /* the window's own figure: what it leaves of the right context */
        long long all = d->k > 1 ? (long long)d->n * (d->n - 1) / 2 : 0;
        snprintf(lines[n++], 96, "sliding window: the last %d keys", d->window);
        snprintf(lines[n++], 96, "last copy's right context seen:");
        snprintf(lines[n++], 96, "  %lld of %lld pairs (%.0f%%)", (long long)d->last_right_seen, all,
                 all ? 100.0 * (double)d->last_right_seen / (double)all : 0.0);
        return n;
    }
    snprintf(lines[n++], 96, "full share = full / (full + causal)");
    snprintf(lines[n++], 96, "  counted %lld/%lld = %.1f%%", (long long)d->n_full,
             (long long)(d->n_full + d->n_causal), 100.0 * share_value(d->full_share));
    snprintf(lines[n++], 96, "  (k-1)/(k+1) = %lld/%lld %s", (long long)closed.num, (long long)closed.den,
             share_equal(counted, closed) ? "(equal)" : "(DIFFERS)");
    return n;
}

/* Label of copy c for the axes: "copy c+1", or just the number if narrow. */
static void copy_label(char *buf, size_t cap, int c, int narrow)
{
    if (narrow) snprintf(buf, cap, "%d", c + 1);
    else snprintf(buf, cap, "copy %d", c + 1);
}

void mask_layout(cairo_t *cr, const MaskData *d, double w, double h, MaskLayout *out)
{
    const FigureStyle *s = &d->meta.style;
    double u = figure_unit(w, h);
    figure_content_rect(cr, &d->meta, w, h, &out->content);
    FigureRect c = out->content;
    cairo_save(cr);
    LegendEntry e[6];
    int n_e = legend_entries(d, e);
    double lw, lh;
    legend_size(cr, s, u, e, n_e, &lw, &lh);
    char lines[5][96];
    int n_lines = summary_lines(d, lines);
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 0);
    double panel = lw;
    for (int i = 0; i < n_lines; i++) {
        double tw = figure_text_width(cr, lines[i]) + 24 * u;
        if (tw > panel) panel = tw;
    }
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 0);
    double label_w = figure_text_width(cr, "copy 00") + 12 * u;
    double label_h = 1.4 * figure_font_size(TEXT_TICK, u);
    double axis_title = 1.5 * figure_font_size(TEXT_LABEL, u);
    cairo_restore(cr);
    double avail_w = c.w - panel - 40 * u - label_w - axis_title;
    double avail_h = c.h - label_h - axis_title;
    double side = avail_w < avail_h ? avail_w : avail_h;
    if (side < 10) side = 10;
    out->cell = side / d->T;
    double block_w = side + panel + 40 * u + label_w + axis_title;
    double x0 = c.x + (c.w - block_w) / 2;
    double y0 = c.y + (c.h - (side + label_h + axis_title)) / 2;
    out->grid = (FigureRect){.x = x0 + axis_title + label_w, .y = y0 + axis_title + label_h, .w = side, .h = side};
    out->legend_x = out->grid.x + side + 40 * u;
    out->legend_y = out->grid.y;
}

int mask_cell_at(const MaskLayout *l, const MaskData *d, double x, double y, int *query, int *key)
{
    if (!figure_rect_contains(&l->grid, x, y)) return 0;
    int col = (int)((x - l->grid.x) / l->cell), row = (int)((y - l->grid.y) / l->cell);
    if (row < 0 || col < 0 || row >= d->T || col >= d->T) return 0;
    *query = row;
    *key = col;
    return 1;
}

/* Colour of cell (row, col): masked grey, special green or the block's colour. */
static Rgb cell_colour(const MaskData *d, int row, int col)
{
    if (!d->visible[(size_t)row * d->T + col]) return figure_masked(&d->meta.style);
    if (d->copy[row] < 0 || d->copy[col] < 0) return mask_special_colour();
    return mask_block_colour(d->blocks[d->copy[row] * d->k + d->copy[col]]);
}

/* The cells, as runs of equal colour along each row, with edges on whole
 * device units shared by neighbours (no seams), and the masked cells
 * hatched. */
static void draw_cells(cairo_t *cr, const MaskData *d, double u, const FigureRect *g, double cs)
{
    layout_boxes_add(cr, BOX_HEATMAP, g->x, g->y, g->w, g->h, "mask");
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    for (int row = 0; row < d->T; row++) {
        int start = 0;
        for (int col = 1; col <= d->T; col++) {
            Rgb a = cell_colour(d, row, start);
            if (col < d->T) {
                Rgb b = cell_colour(d, row, col);
                if (a.r == b.r && a.g == b.g && a.b == b.b) continue;
            }
            double x0 = round(g->x + start * cs), x1 = round(g->x + col * cs);
            double y0 = round(g->y + row * cs), y1 = round(g->y + (row + 1) * cs);
            rgb_set(cr, a);
            cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
            cairo_fill(cr);
            start = col;
        }
    }
    figure_hatch_cells(cr, &d->meta.style, d->visible, d->T, 0, *g, u);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
}

/* Thin separators between cells when cells are large enough to count, the
 * block outlines (thinner when cells are small, so <bos>/<sep> cells between
 * blocks stay visible) and the grid's frame. */
static void draw_lines(cairo_t *cr, const MaskData *d, double u, const FigureRect *g, double cs)
{
    const FigureStyle *s = &d->meta.style;
    if (cs >= 9 * u) {
        rgb_set(cr, figure_background(s));
        cairo_set_line_width(cr, fmax(1.0, 1.2 * u));
        for (int i = 1; i < d->T; i++) {
            cairo_move_to(cr, g->x + i * cs, g->y);
            cairo_line_to(cr, g->x + i * cs, g->y + g->h);
            cairo_move_to(cr, g->x, g->y + i * cs);
            cairo_line_to(cr, g->x + g->w, g->y + i * cs);
        }
        cairo_stroke(cr);
    }
    rgb_set(cr, figure_foreground(s));
    cairo_set_line_width(cr, fmin(3.5 * u, fmax(1.0, 0.45 * cs)));
    for (int q = 0; q < d->k; q++)
        for (int c = 0; c < d->k; c++)
            cairo_rectangle(cr, g->x + d->copy_start[c] * cs, g->y + d->copy_start[q] * cs, d->n * cs,
                            d->n * cs);
    cairo_stroke(cr);
    cairo_set_line_width(cr, 1.5 * u);
    cairo_rectangle(cr, g->x, g->y, g->w, g->h);
    cairo_stroke(cr);
}

/* The copy labels on both axes and the axis titles. */
static void draw_axis_labels(cairo_t *cr, const MaskData *d, double u, const FigureRect *g, double cs)
{
    const FigureStyle *s = &d->meta.style;
    double tick = figure_font_size(TEXT_TICK, u), label = figure_font_size(TEXT_LABEL, u);
    figure_font(cr, s, tick, 0);
    int narrow = figure_text_width(cr, "copy 00") > d->n * cs;
    char buf[32];
    for (int c = 0; c < d->k; c++) {
        double mid = (d->copy_start[c] + d->n / 2.0) * cs;
        copy_label(buf, sizeof buf, c, narrow);
        if (narrow && d->k > 12 && c % 2) continue;
        figure_text(cr, buf, g->x + mid, g->y - 6 * u, 0.5, 1);
        figure_text(cr, buf, g->x - 8 * u, g->y + mid, 1, 0.5);
    }
    figure_font(cr, s, label, 1);
    figure_text(cr, "key (attended to)", g->x + g->w / 2, g->y - 1.4 * tick - 6 * u, 0.5, 1);
    figure_font(cr, s, tick, 0);
    double row_labels = figure_text_width(cr, "copy 00") + 12 * u;
    figure_font(cr, s, label, 1);
    figure_text_rotated(cr, "query (attending)", g->x - row_labels - 0.75 * label, g->y + g->h / 2,
                        0.5, 0.5, -FIGURE_PI / 2);
}

/* The legend and, under it, the block counts. */
static void draw_legend(cairo_t *cr, const MaskData *d, double u, const MaskLayout *L)
{
    const FigureStyle *s = &d->meta.style;
    double tick = figure_font_size(TEXT_TICK, u);
    LegendEntry e[6];
    int n_e = legend_entries(d, e);
    double lw, lh;
    legend_size(cr, s, u, e, n_e, &lw, &lh);
    legend_draw(cr, s, u, e, n_e, L->legend_x, L->legend_y);
    char lines[5][96];
    int n_lines = summary_lines(d, lines);
    rgb_set(cr, figure_foreground(s));
    figure_font(cr, s, tick, 0);
    double y = L->legend_y + lh + 1.2 * tick;
    for (int i = 0; i < n_lines; i++) {
        figure_font(cr, s, tick, i == 3);
        figure_text(cr, lines[i], L->legend_x, y + i * 1.45 * tick, 0, 0);
    }
}

int paint_mask(cairo_t *cr, const MaskData *d, double w, double h)
{
    MaskLayout L;
    mask_layout(cr, d, w, h, &L);
    double u = figure_begin(cr, &d->meta, w, h, NULL);
    draw_cells(cr, d, u, &L.grid, L.cell);
    draw_lines(cr, d, u, &L.grid, L.cell);
    draw_axis_labels(cr, d, u, &L.grid, L.cell);
    draw_legend(cr, d, u, &L);
    return figure_finish(cr);
}
