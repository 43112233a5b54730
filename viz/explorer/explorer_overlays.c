/* explorer_overlays.c — what is under the mouse (the cell or point a view
 * answers for, the panel of a grid of maps) and what the explorer draws over
 * the painter's figure: the hover tooltip, the pinned token and where it
 * attends, the grid's panel under the mouse, "computing", errors, the status
 * line and the key help. Saved figures never contain them; <shot> does. */
#include "explorer/explorer_overlays.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/paint_attention.h"
#include "attention/paint_attention_overview.h"
#include "explorer/explorer_views.h"
#include "explorer_state/explorer_keys.h"

/* The font of the overlays (monospace help, tooltips). */
#define OVERLAY_FONT "DejaVu Sans Mono"

/* A style for overlay text in the window's theme. */
static FigureStyle overlay_style(const Explorer *e, int monospace)
{
    FigureStyle s = figure_meta_default().style;
    s.theme = e->st.theme;
    if (monospace) snprintf(s.font, sizeof s.font, "%s", OVERLAY_FONT);
    return s;
}

/* Where an overlay would like to stand: its corner at (x, y), with ax, ay
 * saying which corner (0 = left/top edge there, 1 = right/bottom). */
typedef struct {
    double x, y, ax, ay;
} OverlayWish;

/* What the overlays of one frame are placed against: the figure's boxes and
 * the overlays placed so far, the point under the mouse (negative: none). */
typedef struct {
    LayoutBoxes placed;
    double avoid_x, avoid_y;
} OverlayRoom;

/* Draw multi-line text in a box of `kind`, placed by layout_boxes_place at
 * the first of the n wishes that covers nothing it should not in room (the
 * help stands at wish[0]), kept inside the window, and recorded in room and
 * in cr's recorder. */
static void text_box(Explorer *e, cairo_t *cr, OverlayRoom *room, BoxKind kind, const char *text,
                     const OverlayWish *wish, int n_wish, double size, int monospace)
{
    FigureStyle s = overlay_style(e, monospace);
    figure_font(cr, &s, size, 0);
    char lines[24][200];
    int n = 0;
    double widest = 0;
    for (const char *p = text; *p && n < 24;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= sizeof lines[0]) len = sizeof lines[0] - 1;
        memcpy(lines[n], p, len);
        lines[n][len] = 0;
        double w = figure_text_width(cr, lines[n]);
        if (w > widest) widest = w;
        n++;
        p = end ? end + 1 : p + len;
    }
    double fit = fmin((e->width - 8) / (widest + 1.2 * size), (e->height - 8) / (n * 1.35 * size + 1.2 * size));
    if (kind == BOX_HELP && fit < 1) { /* the help shrinks to fit the window, down to the overlays' size */
        double least = explorer_overlay_text_size(e->width, e->height), smaller = fmax(least, fit * size);
        widest *= smaller / size;
        size = smaller;
        figure_font(cr, &s, size, 0);
    }
    double pad = 0.6 * size, lh = 1.35 * size;
    double bw = widest + 2 * pad, bh = n * lh + 2 * pad;
    BoxRect corners[4];
    for (int i = 0; i < n_wish && i < 4; i++)
        corners[i] = (BoxRect){.x = wish[i].x - wish[i].ax * bw, .y = wish[i].y - wish[i].ay * bh, .w = bw, .h = bh};
    BoxRect at = layout_boxes_place(&room->placed, kind, bw, bh, e->width, e->height, corners,
                                    kind == BOX_HELP ? 1 : (n_wish < 4 ? n_wish : 4), room->avoid_x, room->avoid_y,
                                    kind == BOX_HOVER || kind == BOX_HELP);
    double bx = at.x, by = at.y;
    layout_boxes_push(&room->placed, kind, at, text);
    layout_boxes_open(cr, kind, bx, by, bw, bh, NULL);
    Rgb bg = figure_background(&s), fg = figure_foreground(&s);
    cairo_set_source_rgba(cr, bg.r, bg.g, bg.b, 0.93);
    cairo_rectangle(cr, bx, by, bw, bh);
    cairo_fill_preserve(cr);
    rgb_set(cr, fg);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    for (int i = 0; i < n; i++) figure_text(cr, lines[i], bx + pad, by + pad + i * lh, 0, 0);
    layout_boxes_close(cr, 0);
}

/* Outline the pinned token's row and column on the attention map, and list
 * where it attends most in the current map. */
static void draw_pinned(Explorer *e, cairo_t *cr, OverlayRoom *room, double size)
{
    const AttentionData *d = explorer_shown_maps(e);
    int q = e->st.pinned;
    if (!d || q < 0 || q >= d->T) return;
    AttentionLayout L;
    int fw = explorer_figure_width(&e->st, e->width, e->height);
    attention_layout(cr, d, fw, explorer_figure_height(&e->st, e->width, e->height), &L);
    Rgb pin = palette_okabe_ito(OKABE_VERMILLION);
    cairo_save(cr);
    rgb_set(cr, pin);
    cairo_set_line_width(cr, 2);
    cairo_rectangle(cr, L.map.x, L.map.y + q * L.cell, L.map.w, L.cell);
    cairo_rectangle(cr, L.map.x + q * L.cell, L.map.y, L.cell, L.map.h);
    cairo_stroke(cr);
    cairo_restore(cr);
    /* the five keys it attends to most */
    int best[5], n_best = 0;
    for (int k = 0; k < d->T; k++) {
        if (!attention_visible(d, d->layer, q, k)) continue;
        double v = attention_value(d, d->layer, d->head, q, k);
        int at = n_best < 5 ? n_best++ : 5;
        while (at > 0 && attention_value(d, d->layer, d->head, q, best[at - 1]) < v) {
            if (at < 5) best[at] = best[at - 1];
            at--;
        }
        if (at < 5) best[at] = k;
    }
    char text[800];
    int len = snprintf(text, sizeof text, "pinned %d '%.30s'%s", q, d->tokens[q], n_best ? ", attends to:" : "");
    for (int i = 0; i < n_best && len < (int)sizeof text - 80; i++) {
        int k = best[i];
        char copy[16];
        if (d->copy[k] >= 0) snprintf(copy, sizeof copy, "copy %d", d->copy[k] + 1);
        else snprintf(copy, sizeof copy, "special");
        len += snprintf(text + len, sizeof text - (size_t)len, "\n  %.4f  %d '%.20s' (%s)",
                        attention_value(d, d->layer, d->head, q, k), k, d->tokens[k], copy);
    }
    /* in its strip right of the figure (explorer_figure_width), level with
     * the map's top, else wherever nothing is covered */
    OverlayWish wish[3] = {{.x = fw + 8, .y = L.map.y, .ax = 0, .ay = 0},
                           {.x = e->width - 8, .y = L.map.y, .ax = 1, .ay = 0},
                           {.x = 8, .y = e->height - 8, .ax = 0, .ay = 1}};
    text_box(e, cr, room, BOX_PANEL, text, wish, 3, size, 1);
}

/* The text size of the overlays in a w x h window: the figures' smallest
 * text at that size, and never less than at 1280 x 720 (18 px), so the help
 * and the tooltips read when the window is projected. */
double explorer_overlay_text_size(double w, double h)
{
    return explorer_text_size(w, h);
}

/* The four places around the mouse a hover box may stand, right and below first. */
static void around_mouse(const Explorer *e, OverlayWish wish[4])
{
    for (int i = 0; i < 4; i++)
        wish[i] = (OverlayWish){.x = e->mouse_x + (i % 2 ? -16 : 16), .y = e->mouse_y + (i < 2 ? 16 : -16),
                                .ax = i % 2, .ay = i < 2 ? 0 : 1};
}

int explorer_overview_panel_at(cairo_t *cr, const AttentionData *d, AttentionOverviewRoom room, double w,
                               double h, double x, double y, int *layer, int *head)
{
    AttentionOverviewLayout L;
    attention_overview_layout_room(cr, d, w, h, room, &L);
    for (int l = 0; l < d->n_layers; l++)
        for (int col = 0; col < L.n_cols; col++) {
            FigureRect r = attention_overview_panel(&L, d, l, col);
            if (!figure_rect_contains(&r, x, y)) continue;
            *layer = l;
            *head = col < d->n_heads && d->n_heads > 1 ? col : (d->n_heads == 1 ? 0 : -1);
            return 1;
        }
    return 0;
}

void explorer_update_hover(Explorer *e, cairo_t *cr)
{
    int q = -1, k = -1, fh = explorer_figure_height(&e->st, e->width, e->height);
    int fw = explorer_figure_width(&e->st, e->width, e->height);
    const FigureView *view = figure_view(e->st.view);
    if (e->mouse_in && view->under_mouse && explorer_prepare_figure(e) == 0 &&
        !view->under_mouse(cr, explorer_shown_figure(e)->data, fw, fh, e->mouse_x, e->mouse_y, &q, &k))
        q = k = -1;
    explorer_set_hover(&e->st, q, k);
}

/* The hover box of the grid panel under the mouse, if any: its layer and
 * head, with the head roles when they are shown (text: scratch of cap bytes). */
static void draw_panel_hover(Explorer *e, cairo_t *cr, OverlayRoom *room, double size, char *text, size_t cap)
{
    const AttentionData *maps = explorer_shown_maps(e);
    if (!figure_view(e->st.view)->panels || !maps) return;
    OverlayWish wish[4];
    around_mouse(e, wish);
    int l, h;
    const ExplorerRoles *roles = explorer_shown_roles(e);
    int fh = explorer_figure_height(&e->st, e->width, e->height);
    AttentionOverviewRoom overview = explorer_overview_room(e, cr, e->width, fh);
    if (!explorer_overview_panel_at(cr, maps, overview, e->width, fh, e->mouse_x, e->mouse_y, &l, &h)) return;
    if (h >= 0 && roles) explorer_roles_tooltip(roles, l, h, text, cap);
    else if (h >= 0) snprintf(text, cap, "layer %d, head %d\nclick: open this map", l, h);
    else snprintf(text, cap, "layer %d, mean over heads\nclick: open this map", l);
    text_box(e, cr, room, BOX_HOVER, text, wish, 4, size, 1);
}

/* The hover box of the view under the mouse, if any (text: scratch of cap bytes). */
static void draw_hover(Explorer *e, cairo_t *cr, OverlayRoom *room, double size, char *text, size_t cap)
{
    const FigureView *view = figure_view(e->st.view);
    if (e->st.hover_query >= 0 && view->tooltip) {
        OverlayWish wish[4];
        around_mouse(e, wish);
        ViewContext c;
        explorer_context(e, &c);
        view->tooltip(explorer_shown_figure(e)->data, &c, e->st.hover_query, e->st.hover_key, text, cap);
        text_box(e, cr, room, BOX_HOVER, text, wish, 4, size, 1);
    }
    draw_panel_hover(e, cr, room, size, text, cap);
}

void explorer_draw_overlays(Explorer *e, cairo_t *cr)
{
    double size = explorer_overlay_text_size(e->width, e->height), w = e->width, h = e->height;
    char text[1200];
    OverlayRoom room = {.avoid_x = -1, .avoid_y = -1};
    layout_boxes_init(&room.placed);
    layout_boxes_append(&room.placed, &e->figure_boxes);
    int ready = explorer_prepare_figure(e) == 0;
    OverlayWish corners[4] = {{.x = 8, .y = 8, .ax = 0, .ay = 0}, {.x = w - 8, .y = 8, .ax = 1, .ay = 0},
                              {.x = 8, .y = h - 8, .ax = 0, .ay = 1}, {.x = w - 8, .y = h - 8, .ax = 1, .ay = 1}};
    if (e->st.message[0]) /* in its strip below the figure (explorer_figure_height) */
        text_box(e, cr, &room, BOX_BANNER, e->st.message, corners + 2, 2, size, 0);
    int computing = explorer_worker_pending(e->worker) || e->maps_computing;
    int needs_maps = figure_view(e->st.view)->derive != NULL; /* a view of the forward */
    if (computing) {
        snprintf(text, sizeof text, "computing sentence %d, r = %d ...", e->st.sentence, e->st.r);
        OverlayWish right[2] = {corners[1], corners[3]};
        text_box(e, cr, &room, BOX_BANNER, text, right, 2, size, 0);
    } else if (e->compute_error[0] && needs_maps) {
        OverlayWish centre = {.x = w / 2, .y = h / 2, .ax = 0.5, .ay = 0.5};
        text_box(e, cr, &room, BOX_BANNER, e->compute_error, &centre, 1, size, 0);
    }
    if (ready && figure_view(e->st.view)->pins) draw_pinned(e, cr, &room, size);
    if (ready && e->mouse_in) {
        room.avoid_x = e->mouse_x;
        room.avoid_y = e->mouse_y;
        draw_hover(e, cr, &room, size, text, sizeof text);
    }
    OverlayWish centre = {.x = w / 2, .y = h / 2, .ax = 0.5, .ay = 0.5};
    if (e->st.show_help) text_box(e, cr, &room, BOX_HELP, explorer_help_text(), &centre, 1, 1.3 * size, 1);
    layout_boxes_free(&room.placed);
}
