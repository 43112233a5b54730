/* explorer.c — the explorer's window: SDL2 events in, painter frames out.
 *
 * Each frame is drawn in two layers. The figure layer is the painter's
 * drawing of the current view (figures.h) on a cairo image surface the size
 * of the window; it is repainted only when the view changes. The overlay
 * layer (hover tooltip, pinned token, key help, status line, "computing")
 * is drawn over a copy of it whenever the mouse moves. The result is copied
 * to the window surface. Saving (s, v) paints the figure layer again on an
 * export target of the same size, so the file is exactly what the painter
 * drew on screen; <shot> in a script saves the window with its overlays. */
#include "explorer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "export.h"
#include "figures.h"

/* The font of the overlays (monospace help, tooltips). */
#define OVERLAY_FONT "DejaVu Sans Mono"

typedef struct {
    const ExplorerOptions *o;
    ExplorerState st;
    ExplorerInput in;
    Figure fig;                 /* data of every view; fig.kind is the one shown  */
    int has_attention;          /* fig.attention holds maps                       */
    int shown_sentence, shown_r;/* what fig.attention was computed for            */
    uint8_t *visible_all;       /* (L, T, T) the attention data's own mask        */
    uint8_t *visible_last;      /* (L, T, T) the `b` filter of it                 */
    int has_mask, mask_sentence, mask_r;  /* what fig.mask was built for          */
    RepeatLayout mask_layout;   /* its token layout, for hover labels             */
    int has_layers, has_exit, has_flow, flow_head;
    int has_repo_z, has_repo_range, has_repo_needle;  /* fig.repo_* hold data     */
    int repo_z_layer, repo_z_head;  /* what fig.repo_z was taken for (from fig.attention) */
    char compute_error[700];    /* the last failed recompute, "" if none          */
    ExplorerWorker *worker;

    SDL_Window *window;
    Uint32 wake_event;          /* pushed by the worker after each result         */
    cairo_surface_t *figure;    /* the painter's drawing, window-sized ARGB32     */
    cairo_surface_t *frame;     /* figure + overlays, what the window shows       */
    int width, height;
    int figure_stale;           /* repaint the figure layer before showing        */
    int frame_stale;            /* redraw the overlays and show                   */
    int mouse_x, mouse_y, mouse_in;
} Explorer;

/* ---- the data behind the views ---------------------------------------------------- */

/* Called on the worker thread: wake the event loop. */
static void wake_event_loop(void *arg)
{
    Explorer *e = arg;
    SDL_Event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = e->wake_event;
    SDL_PushEvent(&ev);
}

/* Release the attention maps (their own mask pointer restored first) and
 * the z figure taken from them. */
static void drop_attention(Explorer *e)
{
    if (e->has_repo_z) {
        repo_z_data_free(&e->fig.repo_z);
        e->has_repo_z = 0;
    }
    if (!e->has_attention) return;
    e->fig.attention.visible = e->visible_all;
    attention_data_free(&e->fig.attention);
    free(e->visible_last);
    e->visible_all = e->visible_last = NULL;
    e->has_attention = 0;
}

/* Ask the worker for the maps of the state's sentence and r. */
static void request_maps(Explorer *e)
{
    int s = e->st.sentence;
    e->compute_error[0] = 0;
    if (explorer_worker_request(e->worker, e->in.ids[s], e->in.n_tokens[s], s, e->st.r))
        snprintf(e->compute_error, sizeof e->compute_error, "out of memory");
}

/* Take a finished result from the worker, if there is one. */
static void take_maps(Explorer *e)
{
    AttentionData d;
    int sentence, r;
    SrError err;
    int got = explorer_worker_take(e->worker, &d, &sentence, &r, &err);
    if (got == 0) return;
    e->figure_stale = e->frame_stale = 1;
    if (got < 0) {
        snprintf(e->compute_error, sizeof e->compute_error, "sentence %d, r = %d: %s", sentence, r, err.msg);
        return;
    }
    size_t cells = (size_t)d.n_layers * d.T * d.T;
    uint8_t *last = malloc(cells ? cells : 1);
    if (!last) {
        attention_data_free(&d);
        snprintf(e->compute_error, sizeof e->compute_error, "out of memory");
        return;
    }
    drop_attention(e);
    attention_last_copy_visible(&d, last);
    e->fig.attention = d;
    e->visible_all = d.visible;
    e->visible_last = last;
    e->has_attention = 1;
    e->shown_sentence = sentence;
    e->shown_r = r;
    if (e->st.pinned >= d.T) e->st.pinned = -1;
}

/* Make fig.mask match the state's sentence and r. 0 or -1. */
static int update_mask(Explorer *e)
{
    if (e->has_mask && e->mask_sentence == e->st.sentence && e->mask_r == e->st.r) return 0;
    if (e->has_mask) {
        mask_data_free(&e->fig.mask);
        repeat_free(&e->mask_layout);
        e->has_mask = 0;
    }
    int s = e->st.sentence;
    SrError err;
    if (mask_data_build(&e->fig.mask, e->in.n_tokens[s], e->st.r, e->st.bos, e->st.sep, &err)) return -1;
    if (repeat_build(e->in.ids[s], e->in.n_tokens[s], e->st.r, e->st.bos, e->st.sep, 0, &e->mask_layout,
                     &err)) {
        mask_data_free(&e->fig.mask);
        return -1;
    }
    e->has_mask = 1;
    e->mask_sentence = s;
    e->mask_r = e->st.r;
    return 0;
}

/* Make fig.flow show the state's head (the flow file is read per head). */
static void update_flow(Explorer *e)
{
    if (e->flow_head == e->st.head) return;
    FlowData d;
    SrError err;
    if (flow_data_load(&d, e->o->src.flow, e->st.head, &err)) {
        snprintf(e->st.message, sizeof e->st.message, "%s", err.msg);
        return;
    }
    flow_data_free(&e->fig.flow);
    e->fig.flow = d;
    e->flow_head = e->st.head;
}

/* Make fig.repo_z the positions z of the state's layer and head, from the
 * forward behind the attention maps on screen, described as `seqrep plot
 * repo-z --model` describes it (taken again only when the maps, layer or head
 * change). 0, or -1 while the maps are computed or when the forward has no z
 * there (the status line says why). */
static int update_repo_z(Explorer *e)
{
    const ExplorerState *s = &e->st;
    int head = s->head >= 0 ? s->head : s->last_head;
    if (e->has_repo_z && e->repo_z_layer == s->layer && e->repo_z_head == head) return 0;
    if (e->has_repo_z) {
        repo_z_data_free(&e->fig.repo_z);
        e->has_repo_z = 0;
    }
    if (!e->has_attention) return -1;
    char source[1200];
    SrError err;
    repo_z_source(source, sizeof source, e->o->src.model, e->in.texts[e->shown_sentence],
                  e->in.sources[e->shown_sentence], e->shown_r, s->bos, s->sep, e->o->src.mask);
    if (repo_z_data_from_attention(&e->fig.repo_z, &e->fig.attention, s->layer, head, source, &err)) {
        snprintf(e->compute_error, sizeof e->compute_error, "%s", err.msg);
        return -1;
    }
    e->has_repo_z = 1;
    e->repo_z_layer = s->layer;
    e->repo_z_head = head;
    return 0;
}

/* Point fig at the view of the state, with its style, title and caption as
 * `seqrep plot` would set them. Returns 0, or -1 when the view has nothing
 * to draw yet (maps still computing). */
static int prepare_figure(Explorer *e)
{
    const ExplorerState *s = &e->st;
    Figure *f = &e->fig;
    f->overview = s->view == VIEW_OVERVIEW;
    switch (s->view) {
    case VIEW_MASK:
        if (update_mask(e)) return -1;
        f->kind = FIGURE_MASK;
        break;
    case VIEW_ATTENTION:
    case VIEW_OVERVIEW: {
        if (!e->has_attention) return -1;
        AttentionData *d = &f->attention;
        f->kind = FIGURE_ATTENTION;
        d->layer = s->layer < d->n_layers ? s->layer : d->n_layers - 1;
        d->head = s->head < d->n_heads ? s->head : -1;
        d->scale = s->scale;
        d->visible = s->last_copy_only ? e->visible_last : e->visible_all;
        explorer_describe_attention(d, f->overview, e->o->src.model, &e->in, e->shown_sentence,
                                    e->shown_r, s->bos, s->sep, e->o->src.mask);
        break;
    }
    case VIEW_LAYERS: f->kind = FIGURE_LAYERS; break;
    case VIEW_EXIT: f->kind = FIGURE_EXIT; break;
    case VIEW_REPO_Z:
    case VIEW_REPO_REPEAT:
        if (update_repo_z(e)) return -1;
        f->kind = s->view == VIEW_REPO_Z ? FIGURE_REPO_Z : FIGURE_REPO_REPEAT;
        break;
    case VIEW_REPO_RANGE: f->kind = FIGURE_REPO_RANGE; break;
    case VIEW_REPO_NEEDLE: f->kind = FIGURE_REPO_NEEDLE; break;
    default:
        update_flow(e);
        f->kind = FIGURE_FLOW;
        break;
    }
    FigureMeta *meta = figure_meta(f);
    meta->style.theme = s->theme;
    snprintf(meta->style.font, sizeof meta->style.font, "%s",
             e->o->src.font ? e->o->src.font : FIGURE_DEFAULT_FONT);
    return 0;
}

/* Draw the current view on cr (w x h): the painter, or an empty page with
 * the theme's background while the maps are computed. 0 or -1. */
static int paint_view(Explorer *e, cairo_t *cr, double w, double h)
{
    if (prepare_figure(e) == 0) return figure_paint(cr, &e->fig, w, h);
    FigureStyle style = figure_meta_default().style;
    style.theme = e->st.theme;
    rgb_set(cr, figure_background(&style));
    cairo_paint(cr);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

/* ---- saving and the command line ------------------------------------------------ */

/* Save the figure layer of the current view as PNG or SVG (ext) into the
 * save directory under a new name. 0 or -1. */
static int save_view(Explorer *e, const char *ext, SrError *err)
{
    char path[4200];
    if (prepare_figure(e)) return sr_fail(err, "nothing to save yet: the maps are being computed");
    if (explorer_save_path(e->o->save_dir, "", ext, path, sizeof path, err)) return -1;
    ExportTarget t;
    if (export_open(&t, path, e->width, e->height, err)) return -1;
    if (figure_paint(export_context(&t), &e->fig, t.width, t.height)) {
        export_abort(&t);
        return sr_fail(err, "%s: drawing failed", path);
    }
    if (export_close(&t, err)) return -1;
    fprintf(stderr, "wrote %s\n", path);
    snprintf(e->st.message, sizeof e->st.message, "saved %.580s", path);
    return 0;
}

/* Save the window as seen, overlays included (<shot>). 0 or -1. */
static int save_window(Explorer *e, SrError *err)
{
    char path[4200];
    if (explorer_save_path(e->o->save_dir, "-window", "png", path, sizeof path, err)) return -1;
    ExportTarget t;
    if (export_open(&t, path, e->width, e->height, err)) return -1;
    cairo_t *cr = export_context(&t);
    cairo_set_source_surface(cr, e->frame, 0, 0);
    cairo_paint(cr);
    if (export_close(&t, err)) return -1;
    fprintf(stderr, "wrote %s\n", path);
    return 0;
}

/* Print the `seqrep plot` command of the current view to stdout. */
static void print_command(Explorer *e)
{
    char line[8192], out_path[4200];
    SrError err;
    const char *dir = e->o->save_dir;
    if (strcmp(dir, ".") == 0) snprintf(out_path, sizeof out_path, "view.png");
    else snprintf(out_path, sizeof out_path, "%s/view.png", dir);
    if (explorer_command_line(&e->st, &e->o->src, e->shown_sentence, e->shown_r, e->width, e->height,
                              out_path, line, sizeof line, &err)) {
        snprintf(e->st.message, sizeof e->st.message, "%s", err.msg);
        return;
    }
    printf("%s\n", line);
    fflush(stdout);
    snprintf(e->st.message, sizeof e->st.message, "printed the plot command on the terminal");
}

/* ---- what is under the mouse ---------------------------------------------------- */

/* The panel of the overview at (x, y): 1 and (*layer, *head; -1 = mean), or 0.
 * Mirrors the panel placement of paint_attention_overview.c. */
static int overview_panel_at(cairo_t *cr, const AttentionData *d, double w, double h, double x,
                             double y, int *layer, int *head)
{
    AttentionOverviewLayout L;
    attention_overview_layout(cr, d, w, h, &L);
    for (int l = 0; l < d->n_layers; l++)
        for (int col = 0; col < L.n_cols; col++) {
            double extra = d->n_heads > 1 && col == d->n_heads ? 2 * L.gap : 0;
            FigureRect r = {L.grid.x + col * (L.panel + L.gap) + extra, L.grid.y + l * (L.panel + L.gap),
                            L.panel, L.panel};
            if (!figure_rect_contains(&r, x, y)) continue;
            *layer = l;
            *head = col < d->n_heads && d->n_heads > 1 ? col : (d->n_heads == 1 ? 0 : -1);
            return 1;
        }
    return 0;
}

/* Update the state's hover cell from the mouse (attention and mask views;
 * the token under the mouse in the z view). */
static void update_hover(Explorer *e, cairo_t *cr)
{
    int q = -1, k = -1;
    if (e->mouse_in && prepare_figure(e) == 0) {
        if (e->st.view == VIEW_ATTENTION) {
            AttentionLayout L;
            attention_layout(cr, &e->fig.attention, e->width, e->height, &L);
            if (!attention_cell_at(&L, &e->fig.attention, e->mouse_x, e->mouse_y, &q, &k)) q = k = -1;
        } else if (e->st.view == VIEW_MASK) {
            MaskLayout L;
            mask_layout(cr, &e->fig.mask, e->width, e->height, &L);
            if (!mask_cell_at(&L, &e->fig.mask, e->mouse_x, e->mouse_y, &q, &k)) q = k = -1;
        } else if (e->st.view == VIEW_REPO_Z) { /* a point: the token, as query and key */
            q = k = repo_z_point_at(cr, &e->fig.repo_z, e->width, e->height, e->mouse_x, e->mouse_y);
        }
    }
    explorer_set_hover(&e->st, q, k);
}

/* ---- overlays ---------------------------------------------------------------------- */

/* A style for overlay text in the window's theme. */
static FigureStyle overlay_style(const Explorer *e, int monospace)
{
    FigureStyle s = figure_meta_default().style;
    s.theme = e->st.theme;
    if (monospace) snprintf(s.font, sizeof s.font, "%s", OVERLAY_FONT);
    return s;
}

/* Draw multi-line text in a rounded box. The box is placed with its corner
 * at (x, y) (ax, ay: 0 = left/top edge there, 1 = right/bottom) and kept
 * inside the window. */
static void text_box(Explorer *e, cairo_t *cr, const char *text, double x, double y, double ax, double ay,
                     double size, int monospace)
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
    double pad = 0.6 * size, lh = 1.35 * size;
    double bw = widest + 2 * pad, bh = n * lh + 2 * pad;
    double bx = x - ax * bw, by = y - ay * bh;
    if (bx + bw > e->width - 4) bx = e->width - 4 - bw;
    if (by + bh > e->height - 4) by = e->height - 4 - bh;
    if (bx < 4) bx = 4;
    if (by < 4) by = 4;
    Rgb bg = figure_background(&s), fg = figure_foreground(&s);
    cairo_set_source_rgba(cr, bg.r, bg.g, bg.b, 0.93);
    cairo_rectangle(cr, bx, by, bw, bh);
    cairo_fill_preserve(cr);
    rgb_set(cr, fg);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    for (int i = 0; i < n; i++) figure_text(cr, lines[i], bx + pad, by + pad + i * lh, 0, 0);
}

/* Outline the pinned token's row and column on the attention map, and list
 * where it attends most in the current map. */
static void draw_pinned(Explorer *e, cairo_t *cr, double size)
{
    const AttentionData *d = &e->fig.attention;
    int q = e->st.pinned;
    if (q < 0 || q >= d->T) return;
    AttentionLayout L;
    attention_layout(cr, d, e->width, e->height, &L);
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
    FigureRect content; /* below the title, so both stay readable */
    figure_content_rect(cr, &d->meta, e->width, e->height, &content);
    text_box(e, cr, text, e->width - 8, content.y, 1, 0, size, 1);
}

/* The hover text of the mask view's cell (q, k) into out. */
static void mask_tooltip(const Explorer *e, int q, int k, char *out, size_t cap)
{
    const MaskData *m = &e->fig.mask;
    const RepeatLayout *lay = &e->mask_layout;
    char tq[80], tk[80];
    int pos[2] = {q, k};
    char *dst[2] = {tq, tk};
    for (int i = 0; i < 2; i++) {
        int t = pos[i];
        const char *word = tokenizer_word(&e->in.tok, lay->ids[t]);
        if (lay->copy[t] >= 0) snprintf(dst[i], 80, "%d '%.30s' (copy %d)", t, word ? word : "?", lay->copy[t] + 1);
        else snprintf(dst[i], 80, "%d '%.30s' (no copy)", t, word ? word : "?");
    }
    int visible = m->visible[(size_t)q * m->T + k];
    const char *block = "";
    if (m->copy[q] >= 0 && m->copy[k] >= 0) block = block_kind_name(m->blocks[m->copy[q] * m->k + m->copy[k]]);
    snprintf(out, cap, "query %s\nkey %s\n%s%s%s%s", tq, tk, visible ? "visible" : "masked",
             *block ? " (" : "", block, *block ? " block)" : "");
}

/* Draw the overlays of the current frame on cr. */
static void draw_overlays(Explorer *e, cairo_t *cr)
{
    double size = 13;
    char text[1200];
    int ready = prepare_figure(e) == 0;
    if (ready && e->st.view == VIEW_ATTENTION) draw_pinned(e, cr, size);
    if (ready && e->st.hover_query >= 0 && e->mouse_in) {
        if (e->st.view == VIEW_ATTENTION)
            explorer_attention_tooltip(&e->fig.attention, e->fig.attention.layer, e->fig.attention.head,
                                       e->st.hover_query, e->st.hover_key, text, sizeof text);
        else if (e->st.view == VIEW_REPO_Z)
            explorer_z_tooltip(&e->fig.repo_z, e->st.hover_query, text, sizeof text);
        else
            mask_tooltip(e, e->st.hover_query, e->st.hover_key, text, sizeof text);
        text_box(e, cr, text, e->mouse_x + 16, e->mouse_y + 16, 0, 0, size, 1);
    }
    if (ready && e->st.view == VIEW_OVERVIEW && e->mouse_in) {
        int l, h;
        if (overview_panel_at(cr, &e->fig.attention, e->width, e->height, e->mouse_x, e->mouse_y, &l, &h)) {
            if (h >= 0) snprintf(text, sizeof text, "layer %d, head %d\nclick: open this map", l, h);
            else snprintf(text, sizeof text, "layer %d, mean over heads\nclick: open this map", l);
            text_box(e, cr, text, e->mouse_x + 16, e->mouse_y + 16, 0, 0, size, 1);
        }
    }
    int computing = explorer_worker_pending(e->worker);
    int needs_maps = e->st.view == VIEW_ATTENTION || e->st.view == VIEW_OVERVIEW ||
                     e->st.view == VIEW_REPO_Z || e->st.view == VIEW_REPO_REPEAT;
    if (computing) {
        snprintf(text, sizeof text, "computing sentence %d, r = %d ...", e->st.sentence, e->st.r);
        text_box(e, cr, text, e->width - 8, 8, 1, 0, size, 0);
    } else if (e->compute_error[0] && needs_maps) {
        text_box(e, cr, e->compute_error, e->width / 2.0, e->height / 2.0, 0.5, 0.5, size, 0);
    }
    if (e->st.message[0]) text_box(e, cr, e->st.message, 8, 8, 0, 0, size, 0);
    if (e->st.show_help) text_box(e, cr, explorer_help_text(), e->width / 2.0, e->height / 2.0, 0.5, 0.5, 1.3 * size, 1);
}

/* ---- the window ---------------------------------------------------------------------- */

/* (Re)create the two layers for a w x h window. 0 or -1. */
static int resize_layers(Explorer *e, int w, int h)
{
    if (e->figure && e->width == w && e->height == h) return 0;
    if (e->figure) cairo_surface_destroy(e->figure);
    if (e->frame) cairo_surface_destroy(e->frame);
    e->figure = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    e->frame = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    e->width = w;
    e->height = h;
    e->figure_stale = e->frame_stale = 1;
    return cairo_surface_status(e->figure) == CAIRO_STATUS_SUCCESS &&
                   cairo_surface_status(e->frame) == CAIRO_STATUS_SUCCESS
               ? 0
               : -1;
}

/* Bring the window up to date: repaint what is stale and show it. 0 or -1. */
static int render(Explorer *e, SrError *err)
{
    SDL_Surface *win = SDL_GetWindowSurface(e->window);
    if (!win) return sr_fail(err, "window surface: %s", SDL_GetError());
    if (resize_layers(e, win->w, win->h)) return sr_fail(err, "cannot allocate a %dx%d frame", win->w, win->h);
    if (e->figure_stale) {
        cairo_t *cr = cairo_create(e->figure);
        int rc = paint_view(e, cr, e->width, e->height);
        cairo_destroy(cr);
        if (rc) return sr_fail(err, "drawing the %s view failed", explorer_view_name(e->st.view));
        e->figure_stale = 0;
        e->frame_stale = 1;
    }
    if (!e->frame_stale) return 0;
    cairo_t *cr = cairo_create(e->frame);
    update_hover(e, cr);
    cairo_set_source_surface(cr, e->figure, 0, 0);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    draw_overlays(e, cr);
    cairo_destroy(cr);
    cairo_surface_flush(e->frame);
    SDL_Surface *src = SDL_CreateRGBSurfaceWithFormatFrom(
        cairo_image_surface_get_data(e->frame), e->width, e->height, 32,
        cairo_image_surface_get_stride(e->frame), SDL_PIXELFORMAT_ARGB8888);
    if (!src) return sr_fail(err, "frame: %s", SDL_GetError());
    SDL_SetSurfaceBlendMode(src, SDL_BLENDMODE_NONE);
    int rc = SDL_BlitSurface(src, NULL, win, NULL);
    SDL_FreeSurface(src);
    if (rc || SDL_UpdateWindowSurface(e->window)) return sr_fail(err, "window update: %s", SDL_GetError());
    e->frame_stale = 0;
    return 0;
}

/* Act on one key; returns 1 to quit, 0 to go on, -1 (err) when a save
 * failed in a script. */
static int handle_key(Explorer *e, int key, SrError *err)
{
    int bits = explorer_apply_key(&e->st, key);
    e->frame_stale = 1;
    if (bits & EXPLORER_REDRAW) e->figure_stale = 1;
    if (bits & EXPLORER_RECOMPUTE) request_maps(e);
    if (bits & (EXPLORER_SAVE_PNG | EXPLORER_SAVE_SVG)) {
        SrError save_err;
        if (save_view(e, (bits & EXPLORER_SAVE_PNG) ? "png" : "svg", &save_err)) {
            snprintf(e->st.message, sizeof e->st.message, "%s", save_err.msg);
            if (e->o->script) return sr_fail(err, "%s", save_err.msg);
        }
    }
    if (bits & EXPLORER_PRINT_COMMAND) print_command(e);
    return (bits & EXPLORER_QUIT) ? 1 : 0;
}

/* A mouse click at (x, y): pin the query row under it (attention view), or
 * open the map under it (overview). */
static void handle_click(Explorer *e, int x, int y)
{
    e->mouse_x = x;
    e->mouse_y = y;
    e->mouse_in = 1;
    e->frame_stale = 1;
    if (prepare_figure(e)) return;
    cairo_t *cr = cairo_create(e->frame);
    if (e->st.view == VIEW_ATTENTION) {
        AttentionLayout L;
        int q, k;
        attention_layout(cr, &e->fig.attention, e->width, e->height, &L);
        explorer_click(&e->st, attention_cell_at(&L, &e->fig.attention, x, y, &q, &k) ? q : -1);
    } else if (e->st.view == VIEW_OVERVIEW) {
        int l, h;
        if (overview_panel_at(cr, &e->fig.attention, e->width, e->height, x, y, &l, &h)) {
            e->st.layer = l;
            e->st.head = h;
            if (h >= 0) e->st.last_head = h;
            e->st.view = VIEW_ATTENTION;
            e->figure_stale = 1;
        }
    }
    cairo_destroy(cr);
}

/* The explorer key of an SDL key press, or 0 (characters come as text input). */
static int special_key(SDL_Keycode sym)
{
    switch (sym) {
    case SDLK_LEFT: return EXPLORER_KEY_LEFT;
    case SDLK_RIGHT: return EXPLORER_KEY_RIGHT;
    case SDLK_UP: return EXPLORER_KEY_UP;
    case SDLK_DOWN: return EXPLORER_KEY_DOWN;
    case SDLK_PAGEUP: return EXPLORER_KEY_PGUP;
    case SDLK_PAGEDOWN: return EXPLORER_KEY_PGDN;
    case SDLK_HOME: return EXPLORER_KEY_HOME;
    case SDLK_END: return EXPLORER_KEY_END;
    case SDLK_ESCAPE: return EXPLORER_KEY_ESC;
    default: return 0;
    }
}

/* Handle one SDL event; returns 1 to quit, 0 to go on, -1 on a failure. */
static int handle_event(Explorer *e, const SDL_Event *ev, SrError *err)
{
    if (ev->type == e->wake_event) {
        take_maps(e);
        return 0;
    }
    switch (ev->type) {
    case SDL_QUIT: return 1;
    case SDL_KEYDOWN: {
        int key = special_key(ev->key.keysym.sym);
        return key ? handle_key(e, key, err) : 0;
    }
    case SDL_TEXTINPUT: {
        unsigned char c = (unsigned char)ev->text.text[0];
        if (c >= 32 && c <= 126 && ev->text.text[1] == 0) return handle_key(e, c, err);
        return 0;
    }
    case SDL_MOUSEMOTION:
        e->mouse_x = ev->motion.x;
        e->mouse_y = ev->motion.y;
        e->mouse_in = 1;
        e->frame_stale = 1;
        return 0;
    case SDL_MOUSEBUTTONDOWN:
        if (ev->button.button == SDL_BUTTON_LEFT) handle_click(e, ev->button.x, ev->button.y);
        return 0;
    case SDL_WINDOWEVENT:
        if (ev->window.event == SDL_WINDOWEVENT_LEAVE) {
            e->mouse_in = 0;
            e->frame_stale = 1;
        } else if (ev->window.event == SDL_WINDOWEVENT_SIZE_CHANGED ||
                   ev->window.event == SDL_WINDOWEVENT_EXPOSED) {
            e->figure_stale = e->frame_stale = 1;
        }
        return 0;
    default: return 0;
    }
}

/* Play one script event; returns 1 to quit, 0 to go on, -1 on a failure. */
static int play(Explorer *e, const ScriptEvent *ev, SrError *err)
{
    switch (ev->kind) {
    case SCRIPT_KEY: return handle_key(e, ev->key, err);
    case SCRIPT_HOVER:
        e->mouse_x = ev->x;
        e->mouse_y = ev->y;
        e->mouse_in = 1;
        e->frame_stale = 1;
        return 0;
    case SCRIPT_CLICK: handle_click(e, ev->x, ev->y); return 0;
    case SCRIPT_SHOT: return save_window(e, err) ? -1 : 0;
    case SCRIPT_RESIZE:
        SDL_SetWindowSize(e->window, ev->x, ev->y);
        e->figure_stale = e->frame_stale = 1;
        return 0;
    }
    return 0;
}

/* The most result files one option may list. */
#define EXPLORER_MAX_FILES 256

/* Split a comma-separated list of files into paths[0..n) pointing into a
 * new copy (*storage, caller frees). Returns n, or -1 when out of memory. */
static int split_files(const char *list, char **storage, const char **paths)
{
    *storage = malloc(strlen(list) + 1);
    if (!*storage) return -1;
    memcpy(*storage, list, strlen(list) + 1);
    int n = 0;
    char *save = NULL;
    for (char *p = strtok_r(*storage, ",", &save); p && n < EXPLORER_MAX_FILES; p = strtok_r(NULL, ",", &save))
        paths[n++] = p;
    return n;
}

/* Load the results the optional views draw, as `seqrep plot` reads them. 0 or -1. */
static int load_results(Explorer *e, SrError *err)
{
    const ExplorerSources *src = &e->o->src;
    const char *split = src->split ? src->split : "test";
    const char *paths[EXPLORER_MAX_FILES], *base[EXPLORER_MAX_FILES];
    char *list = NULL, *base_list = NULL;
    int rc = 0;
    if (src->layers) {
        int n = split_files(src->layers, &list, paths);
        int n_base = src->baselines ? split_files(src->baselines, &base_list, base) : 0;
        if (n < 0 || n_base < 0) rc = sr_fail(err, "out of memory");
        else if (n == 0) rc = sr_fail(err, "--layers: no file given");
        else rc = layers_data_load(&e->fig.layers, paths, n, split, base, n_base, err);
        free(list);
        free(base_list);
        list = NULL;
        if (rc) return -1;
        e->has_layers = 1;
    }
    if (src->exit) {
        int n = split_files(src->exit, &list, paths);
        if (n < 0) rc = sr_fail(err, "out of memory");
        else if (n == 0) rc = sr_fail(err, "--exit: no file given");
        else rc = exit_data_load(&e->fig.exit, paths, n, src->cost ? src->cost : "flops", split, src->dataset, err);
        free(list);
        if (rc) return -1;
        e->has_exit = 1;
    }
    if (src->flow) {
        if (flow_data_load(&e->fig.flow, src->flow, -1, err)) return -1;
        e->has_flow = 1;
        e->flow_head = -1;
    }
    if (src->repo_range) {
        if (repo_range_data_load(&e->fig.repo_range, src->repo_range, err)) return -1;
        e->has_repo_range = 1;
    }
    if (src->repo_needle) {
        if (repo_needle_data_load(&e->fig.repo_needle, src->repo_needle, 0, err)) return -1;
        e->has_repo_needle = 1;
    }
    return 0;
}

/* Set up the state from the options: sentence, r, layer, head, scale, view. */
static int initial_state(Explorer *e, int max_T, SrError *err)
{
    const ExplorerOptions *o = e->o;
    ExplorerState *s = &e->st;
    const ModelConfig *c = &e->in.info.cfg;
    explorer_state_init(s, c->n_layers, c->n_heads, e->in.n_sentences, e->in.n_tokens, max_T, o->bos, o->sep);
    s->has_results[VIEW_LAYERS] = e->has_layers;
    s->has_results[VIEW_EXIT] = e->has_exit;
    s->has_results[VIEW_FLOW] = e->has_flow;
    s->has_results[VIEW_REPO_Z] = s->has_results[VIEW_REPO_REPEAT] = c->repo;
    s->repo_from = c->repo ? c->repo_from : -1;
    s->has_results[VIEW_REPO_RANGE] = e->has_repo_range;
    s->has_results[VIEW_REPO_NEEDLE] = e->has_repo_needle;
    if (o->sentence < 0 || o->sentence >= e->in.n_sentences)
        return sr_fail(err, "--sentence %d out of range 0..%d", o->sentence, e->in.n_sentences - 1);
    s->sentence = o->sentence;
    if (s->n_tokens[s->sentence] > max_T || repeat_length(s->n_tokens[s->sentence], 0, s->bos, s->sep) > max_T)
        return sr_fail(err, "sentence %d has %d tokens; the model takes at most %d positions", s->sentence,
                       s->n_tokens[s->sentence], max_T);
    int r_max = explorer_r_max(s);
    if (o->r >= 0 && o->r > r_max)
        return sr_fail(err, "--r %d does not fit: sentence %d has %d tokens and the model %d positions (r <= %d)",
                       o->r, s->sentence, s->n_tokens[s->sentence], max_T, r_max);
    s->r = o->r >= 0 ? o->r : (r_max >= 1 ? 1 : 0);
    if (o->layer >= c->n_layers) return sr_fail(err, "--layer %d out of range 0..%d", o->layer, c->n_layers - 1);
    if (o->head >= c->n_heads) return sr_fail(err, "--head %d out of range 0..%d", o->head, c->n_heads - 1);
    s->layer = o->layer >= 0 ? o->layer : c->n_layers - 1;
    s->head = o->head;
    if (o->head >= 0) s->last_head = o->head;
    s->scale = s->linear_scale = o->scale;
    if (o->scale == SCALE_LOG) s->linear_scale = SCALE_FIXED;
    s->theme = o->theme;
    if (!s->has_results[o->view]) {
        if (o->view == VIEW_REPO_Z || o->view == VIEW_REPO_REPEAT)
            return sr_fail(err, "--view %s: %s has no RePo weights (train-lm --positions repo)",
                           explorer_view_name(o->view), o->src.model);
        return sr_fail(err, "--view %s needs --%s FILE", explorer_view_name(o->view), explorer_view_name(o->view));
    }
    if (o->view == VIEW_REPO_REPEAT && s->r == 0)
        return sr_fail(err, "--view repo-repeat needs --r 1 or more");
    if (o->view == VIEW_REPO_Z || o->view == VIEW_REPO_REPEAT) {
        if (o->layer >= 0 && o->layer < s->repo_from)
            return sr_fail(err, "--layer %d has no learned positions (RePo layers %d..%d)", o->layer, s->repo_from,
                           c->n_layers - 1);
        if (s->head < 0) s->head = s->last_head;
    }
    s->view = o->view;
    return 0;
}

/* Release everything e holds. */
static void explorer_free(Explorer *e)
{
    explorer_worker_stop(e->worker);
    drop_attention(e);
    if (e->has_mask) {
        mask_data_free(&e->fig.mask);
        repeat_free(&e->mask_layout);
    }
    if (e->has_layers) layers_data_free(&e->fig.layers);
    if (e->has_exit) exit_data_free(&e->fig.exit);
    if (e->has_flow) flow_data_free(&e->fig.flow);
    if (e->has_repo_range) repo_range_data_free(&e->fig.repo_range);
    if (e->has_repo_needle) repo_needle_data_free(&e->fig.repo_needle);
    if (e->figure) cairo_surface_destroy(e->figure);
    if (e->frame) cairo_surface_destroy(e->frame);
    if (e->window) SDL_DestroyWindow(e->window);
    explorer_input_free(&e->in);
}

/* The event loop: interactive, or replaying the script one event per frame
 * (each event waits until the maps it needs are computed and shown). */
static int event_loop(Explorer *e, const ScriptEvent *script, int n_script, SrError *err)
{
    int next = 0;
    for (;;) {
        SDL_Event ev;
        int waited = 0;
        while (waited ? SDL_PollEvent(&ev) : SDL_WaitEventTimeout(&ev, script ? 5 : 250)) {
            waited = 1;
            int rc = handle_event(e, &ev, err);
            if (rc) return rc < 0 ? -1 : 0;
        }
        take_maps(e);
        if (explorer_worker_pending(e->worker)) e->frame_stale = 1; /* keep the badge */
        if (render(e, err)) return -1;
        if (!script || explorer_worker_pending(e->worker)) continue;
        take_maps(e); /* a result published since the look above */
        if (render(e, err)) return -1;
        if (next == n_script) return 0;
        int rc = play(e, &script[next++], err);
        if (rc) return rc < 0 ? -1 : 0;
    }
}

int explorer_run(const ExplorerOptions *o, SrError *err)
{
    Explorer *e = calloc(1, sizeof *e);
    if (!e) return sr_fail(err, "out of memory");
    e->o = o;
    ScriptEvent *script = NULL;
    int n_script = 0, rc = -1, sdl_up = 0;
    if (o->script && explorer_script_parse(o->script, &script, &n_script, err)) goto done;
    if (explorer_input_load(&e->in, &o->src, err)) goto done;
    int max_T = e->in.info.cfg.max_seq_len < ATTENTION_MAX_T ? e->in.info.cfg.max_seq_len : ATTENTION_MAX_T;
    if (load_results(e, err) || initial_state(e, max_T, err)) goto done;

    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        sr_fail(err, "cannot open a window: %s (no display? try SDL_VIDEODRIVER=dummy or xvfb-run)",
                SDL_GetError());
        goto done;
    }
    sdl_up = 1;
    e->wake_event = SDL_RegisterEvents(1);
    if (e->wake_event == (Uint32)-1) {
        sr_fail(err, "SDL: no user events left");
        goto done;
    }
    if (explorer_worker_start(&e->worker, o->src.model, &e->in.tok, o->src.mask, o->bos, o->sep, max_T, 0,
                              wake_event_loop, e, err))
        goto done;
    e->window = SDL_CreateWindow("seqrep explore", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                 o->width, o->height, SDL_WINDOW_RESIZABLE);
    if (!e->window) {
        sr_fail(err, "cannot open a window: %s", SDL_GetError());
        goto done;
    }
    SDL_StartTextInput();
    request_maps(e);
    rc = event_loop(e, script, n_script, err);
done:
    explorer_free(e);
    if (sdl_up) SDL_Quit();
    free(script);
    free(e);
    return rc;
}
