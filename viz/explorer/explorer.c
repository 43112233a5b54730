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
#include "explorer/explorer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "explorer/explorer_overlays.h"
#include "explorer/explorer_save.h"
#include "explorer/explorer_setup.h"
#include "explorer/explorer_views.h"
#include "explorer/explorer_window.h"
#include "explorer_state/explorer_keys.h"
#include "explorer_state/explorer_script.h"
#include "explorer_state/explorer_script_file.h"

/* Called on the worker thread: wake the event loop. */
static void wake_event_loop(void *arg)
{
    Explorer *e = arg;
    SDL_Event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = e->wake_event;
    e->sdl.PushEvent(&ev);
}

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
    e->figure_drawn = 0;
    return cairo_surface_status(e->figure) == CAIRO_STATUS_SUCCESS &&
                   cairo_surface_status(e->frame) == CAIRO_STATUS_SUCCESS
               ? 0
               : -1;
}

/* Bring the window up to date: repaint what is stale and show it. 0 or -1. */
static int render(Explorer *e, SrError *err)
{
    SDL_Surface *win = e->sdl.GetWindowSurface(e->window);
    if (!win) return sr_fail(err, "window surface: %s", e->sdl.GetError());
    if (resize_layers(e, win->w, win->h)) return sr_fail(err, "cannot allocate a %dx%d frame", win->w, win->h);
    if (e->figure_height != explorer_figure_height(&e->st, e->width, e->height) ||
        e->figure_width != explorer_figure_width(&e->st, e->width, e->height))
        e->figure_stale = 1; /* the status line's strip or the pinned panel's came or went */
    /* while the maps of the view are computed, the last drawing stays */
    if (e->figure_stale && !(explorer_prepare_figure(e) && e->maps_computing && e->figure_drawn)) {
        cairo_t *cr = cairo_create(e->figure);
        e->figure_height = explorer_figure_height(&e->st, e->width, e->height);
        e->figure_width = explorer_figure_width(&e->st, e->width, e->height);
        int rc = explorer_paint_view(e, cr, e->figure_width, e->figure_height);
        cairo_destroy(cr);
        if (rc) return sr_fail(err, "drawing the %s view failed", explorer_view_name(e->st.view));
        e->figure_stale = e->maps_computing; /* painted again when they are ready */
        e->figure_drawn = !e->maps_computing;
        e->frame_stale = 1;
    }
    if (!e->frame_stale) return 0;
    cairo_t *cr = cairo_create(e->frame);
    explorer_update_hover(e, cr);
    cairo_set_source_surface(cr, e->figure, 0, 0);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    explorer_draw_overlays(e, cr);
    cairo_destroy(cr);
    cairo_surface_flush(e->frame);
    SDL_Surface *src = e->sdl.CreateRGBSurfaceWithFormatFrom(
        cairo_image_surface_get_data(e->frame), e->width, e->height, 32,
        cairo_image_surface_get_stride(e->frame), SDL_PIXELFORMAT_ARGB8888);
    if (!src) return sr_fail(err, "frame: %s", e->sdl.GetError());
    e->sdl.SetSurfaceBlendMode(src, SDL_BLENDMODE_NONE);
    int rc = e->sdl.UpperBlit(src, NULL, win, NULL);
    e->sdl.FreeSurface(src);
    if (rc || e->sdl.UpdateWindowSurface(e->window)) return sr_fail(err, "window update: %s", e->sdl.GetError());
    e->frame_stale = 0;
    return 0;
}

/* render, timed into e->times when --frame-times is on and the frame is
 * drawn (something was stale). 0 or -1. */
static int render_timed(Explorer *e, SrError *err)
{
    if (!e->o->frame_times || !(e->figure_stale || e->frame_stale)) return render(e, err);
    double began = frame_times_now();
    if (render(e, err)) return -1;
    int answer = e->maps_computing ? -1 : e->key_to_answer; /* a key's answer draws its view */
    if (frame_times_add(&e->times, began, answer)) return sr_fail(err, "%s: out of memory", e->o->frame_times);
    if (answer >= 0) e->key_to_answer = -1;
    return 0;
}

/* The window's title: the model (and adapter), with --series the snapshot's step. */
static void set_window_title(Explorer *e)
{
    char title[700], step[64] = "";
    if (e->series.n)
        snprintf(step, sizeof step, " (%s %d, %d of %d)", e->series.epochs ? "epoch" : "step",
                 e->series.e[e->st.snapshot].step, e->st.snapshot + 1, e->series.n);
    snprintf(title, sizeof title, "seqrep explore: %.250s%s%.250s%s", e->src.model, e->src.adapter ? " + adapter " : "",
             e->src.adapter ? e->src.adapter : "", step);
    if (e->window) e->sdl.SetWindowTitle(e->window, title);
}

/* --series: load the model of snapshot st.snapshot and run the shown sentence
 * on it; the view stays as it is. When it cannot be loaded the last one
 * stays and the status line says why. */
static void load_snapshot(Explorer *e, int from)
{
    const SnapshotEntry *s = &e->series.e[e->st.snapshot];
    ExplorerWorker *w = NULL;
    SrError err;
    int max_T = explorer_worker_max_T(e->worker);
    if (explorer_worker_start(&w, s->model, s->adapter, &e->in.tok, e->src.mask, e->st.bos, e->o->sep,
                              e->src.copy_positions, max_T, 0, wake_event_loop, e, &err)) {
        snprintf(e->st.message, sizeof e->st.message, "%.500s", err.msg);
        e->st.snapshot = from;
        return;
    }
    explorer_drop_attention(e); /* its maps are computed from the old worker's weights */
    explorer_worker_stop(e->worker);
    e->worker = w;
    e->src.model = s->model;
    e->src.adapter = s->adapter;
    set_window_title(e);
    snprintf(e->st.message, sizeof e->st.message, "%s %d (%d of %d)", e->series.epochs ? "epoch" : "step", s->step,
             e->st.snapshot + 1, e->series.n);
    explorer_request_maps(e);
}

/* Act on one key; returns 1 to quit, 0 to go on, -1 (err) when a save
 * failed in a script. */
static int handle_key(Explorer *e, int key, SrError *err)
{
    int from = e->st.snapshot;
    int bits = explorer_apply_key(&e->st, key);
    e->frame_stale = 1;
    e->key_to_answer = key;
    if (bits & EXPLORER_RELOAD) load_snapshot(e, from);
    if (bits & EXPLORER_REDRAW) e->figure_stale = 1;
    if (bits & EXPLORER_RECOMPUTE) explorer_request_maps(e);
    if (bits & (EXPLORER_SAVE_PNG | EXPLORER_SAVE_SVG)) {
        SrError save_err;
        if (explorer_save_view(e, (bits & EXPLORER_SAVE_PNG) ? "png" : "svg", &save_err)) {
            snprintf(e->st.message, sizeof e->st.message, "%s", save_err.msg);
            if (e->o->script || e->o->script_file) return sr_fail(err, "%s", save_err.msg);
        }
    }
    if (bits & EXPLORER_PRINT_COMMAND) explorer_print_command(e);
    return (bits & EXPLORER_QUIT) ? 1 : 0;
}

/* A mouse click at (x, y): pin the query row under it (a view that pins
 * tokens), or open the map under it (a grid of maps, in the home view). */
static void handle_click(Explorer *e, int x, int y)
{
    e->mouse_x = x;
    e->mouse_y = y;
    e->mouse_in = 1;
    e->frame_stale = 1;
    int fh = explorer_figure_height(&e->st, e->width, e->height), fw = explorer_figure_width(&e->st, e->width, e->height);
    if (explorer_prepare_figure(e)) return;
    const FigureView *view = figure_view(e->st.view);
    const AttentionData *maps = explorer_shown_maps(e);
    cairo_t *cr = cairo_create(e->frame);
    int q, k, l, h;
    if (view->pins) {
        explorer_click(&e->st, view->under_mouse(cr, explorer_shown_figure(e)->data, fw, fh, x, y, &q, &k) ? q : -1);
    } else if (view->panels && maps) {
        AttentionOverviewRoom room = explorer_overview_room(e, cr, fw, fh);
        if (explorer_overview_panel_at(cr, maps, room, fw, fh, x, y, &l, &h)) {
            e->st.layer = l;
            e->st.head = h;
            if (h >= 0) e->st.last_head = h;
            e->st.view = explorer_home_view();
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
        explorer_take_maps(e);
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
    case SCRIPT_SHOT: return explorer_save_window(e, err) ? -1 : 0;
    case SCRIPT_RESIZE:
        e->sdl.SetWindowSize(e->window, ev->x, ev->y);
        e->figure_stale = e->frame_stale = 1;
        return 0;
    case SCRIPT_WAIT: e->sdl.Delay((Uint32)ev->x); return 0;
    }
    return 0;
}

/* Release everything e holds. */
static void explorer_free(Explorer *e)
{
    explorer_close(e); /* the forward's maps before the weights they are computed from */
    if (e->figure) cairo_surface_destroy(e->figure);
    if (e->frame) cairo_surface_destroy(e->frame);
    layout_boxes_free(&e->figure_boxes);
    if (e->window) e->sdl.DestroyWindow(e->window);
}

/* The event loop: interactive, or replaying the script one event per frame
 * (each event waits until the maps it needs are computed and shown). */
static int event_loop(Explorer *e, const ScriptEvent *script, int n_script, SrError *err)
{
    int next = 0, scripted = e->o->script || e->o->script_file; /* even with no events */
    for (;;) {
        SDL_Event ev;
        int waited = 0;
        while (waited ? e->sdl.PollEvent(&ev) : e->sdl.WaitEventTimeout(&ev, scripted ? 5 : 250)) {
            waited = 1;
            int rc = handle_event(e, &ev, err);
            if (rc) return rc < 0 ? -1 : 0;
        }
        explorer_take_maps(e);
        if (explorer_worker_pending(e->worker)) e->frame_stale = 1; /* keep the badge */
        if (render_timed(e, err)) return -1;
        if (!scripted || explorer_worker_pending(e->worker) || e->maps_computing) continue;
        explorer_take_maps(e); /* a result published since the look above */
        if (render_timed(e, err)) return -1;
        explorer_prepare_figure(e); /* the view on screen asked for, even when nothing redrew */
        if (e->maps_computing) continue;
        if (next == n_script) return 0;
        int rc = play(e, &script[next++], err);
        if (rc) return rc < 0 ? -1 : 0;
    }
}

int explorer_run(const ExplorerOptions *o, SrError *err)
{
    Explorer *e = calloc(1, sizeof *e);
    if (!e) return sr_fail(err, "out of memory");
    layout_boxes_init(&e->figure_boxes);
    ScriptEvent *script = NULL;
    int n_script = 0, rc = -1, sdl_up = 0;
    frame_times_start(&e->times);
    e->key_to_answer = -1;
    if (o->script && explorer_script_parse(o->script, &script, &n_script, err)) goto done;
    if (o->script_file && explorer_script_read_file(o->script_file, &script, &n_script, err)) goto done;
    if (explorer_open(e, o, err)) goto done;
    int max_T = explorer_max_T(e);

    if (sdl_calls_load(&e->sdl, err)) goto done;
    if (e->sdl.Init(SDL_INIT_VIDEO) != 0) {
        sr_fail(err, "cannot open a window: %s (no display? try SDL_VIDEODRIVER=dummy or xvfb-run)",
                e->sdl.GetError());
        goto done;
    }
    sdl_up = 1;
    e->wake_event = e->sdl.RegisterEvents(1);
    if (e->wake_event == (Uint32)-1) {
        sr_fail(err, "SDL: no user events left");
        goto done;
    }
    if (explorer_worker_start(&e->worker, e->src.model, e->src.adapter, &e->in.tok, e->src.mask, e->st.bos, o->sep,
                              e->src.copy_positions, max_T, 0,
                              wake_event_loop, e, err))
        goto done;
    if (e->src.adapter && !e->st.message[0] && !e->series.n)
        snprintf(e->st.message, sizeof e->st.message, "adapter %.400s: its LoRA adapters are merged into the model",
                 e->src.adapter);
    e->window = e->sdl.CreateWindow("seqrep explore", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                 o->width, o->height, SDL_WINDOW_RESIZABLE);
    if (!e->window) {
        sr_fail(err, "cannot open a window: %s", e->sdl.GetError());
        goto done;
    }
    set_window_title(e);
    e->sdl.StartTextInput();
    explorer_request_maps(e);
    rc = event_loop(e, script, n_script, err);
    if (rc == 0 && o->frame_times) rc = frame_times_write(&e->times, o->frame_times, err);
done:
    frame_times_free(&e->times);
    explorer_free(e);
    if (sdl_up) e->sdl.Quit();
    sdl_calls_unload(&e->sdl);
    free(script);
    free(e);
    return rc;
}
