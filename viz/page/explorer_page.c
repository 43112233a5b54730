/* explorer_page.c — `seqrep explore --html OUT.html`: the explorer opened
 * without a window, its states walked (explorer_page_walk.c), each frame
 * drawn once by its row's painter at --size and kept as PNG bytes, exactly
 * what `seqrep plot` writes for the frame's command, and the page written
 * from the template of viz/page with all of it as JSON. */
#include "page/explorer_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw/export.h"
#include "page/explorer_page_walk.h"
#include "explorer/explorer_roles_paint.h"
#include "explorer/explorer_setup.h"
#include "explorer/explorer_views.h"
#include "explorer_state/explorer_keys.h"
#include "page/page_write.h"

/* Wait a little for the worker or the maps' thread. */
static void nap(void)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 2000000};
    nanosleep(&ts, NULL);
}

/* The worker reports on its own thread; the page polls instead. */
static void no_notify(void *arg)
{
    (void)arg;
}

/* Have the forward of snapshot `snapshot` at r on e: its model loaded (a
 * new worker when the snapshot changes) and the sentence run. 0 or -1. */
static int have_forward(Explorer *e, int snapshot, int r, int *loaded, SrError *err)
{
    if (!e->worker || *loaded != snapshot) {
        explorer_drop_attention(e);
        explorer_worker_stop(e->worker);
        e->worker = NULL;
        if (e->series.n) {
            e->src.model = e->series.e[snapshot].model;
            e->src.adapter = e->series.e[snapshot].adapter;
        }
        if (explorer_worker_start(&e->worker, e->src.model, e->src.adapter, &e->in.tok, e->src.mask, e->st.bos,
                                  e->o->sep, e->src.copy_positions, explorer_max_T(e), 0, no_notify, e, err))
            return -1;
        *loaded = snapshot;
    } else if (e->has_forward && e->shown_r == r && e->shown_sentence == e->st.sentence) {
        return 0;
    }
    explorer_request_maps(e);
    while (!e->compute_error[0] && !(e->has_forward && e->shown_r == r)) {
        if (explorer_worker_pending(e->worker)) nap();
        explorer_take_maps(e);
    }
    return e->compute_error[0] ? sr_fail(err, "%s", e->compute_error) : 0;
}

/* The figure of the state on e, ready to paint (the maps' thread done,
 * the head roles computed when shown). 0 or -1 with err. */
static int have_figure(Explorer *e, SrError *err)
{
    while (explorer_prepare_figure(e)) {
        if (!e->maps_computing) {
            const char *why = e->compute_error[0] ? e->compute_error : e->st.message;
            return sr_fail(err, "the %s view: %s", explorer_view_name(e->st.view), why[0] ? why : "nothing to draw");
        }
        nap();
    }
    while (e->st.show_roles && figure_view(e->st.view)->panels && !explorer_shown_roles(e)) {
        if (e->compute_error[0]) return sr_fail(err, "head roles: %s", e->compute_error);
        nap();
    }
    return 0;
}

/* The painter's drawing of the state on e at w x h, as PNG bytes (*png,
 * *n; the caller frees) — the pixels `seqrep plot` writes for its command
 * (as RGB when all are opaque, as the figures are: a smaller page).
 * 0 or -1. */
static int draw_png(Explorer *e, cairo_surface_t *image, unsigned char **png, size_t *n)
{
    cairo_t *cr = cairo_create(image);
    int w = cairo_image_surface_get_width(image), h = cairo_image_surface_get_height(image);
    int rc = explorer_paint_figure(cr, explorer_shown_figure(e), explorer_shown_maps(e), explorer_shown_roles(e), w, h);
    cairo_destroy(cr);
    char *bytes = NULL;
    FILE *f = rc ? NULL : open_memstream(&bytes, n);
    if (!f) return -1;
    rc = export_png_stream(f, image, 1);
    if (fclose(f) || rc) {
        free(bytes);
        return -1;
    }
    *png = (unsigned char *)bytes;
    return 0;
}

/* The grid of the view on screen and the hover text of each of its cells,
 * each line numbered in lines: "grid" [x, y, cell, n] and "tips" (n x n
 * lists of line numbers) into frame. 0 or -1 (out of memory). */
static int add_hover(Explorer *e, cairo_surface_t *image, StringTable *lines, cJSON *frame)
{
    const FigureView *view = figure_view(e->st.view);
    if (!view->cell_grid || !view->tooltip) return 0;
    const void *data = explorer_shown_figure(e)->data;
    ViewContext c;
    explorer_context(e, &c);
    FigureRect grid;
    double cell;
    int n;
    cairo_t *cr = cairo_create(image);
    view->cell_grid(cr, data, cairo_image_surface_get_width(image), cairo_image_surface_get_height(image), &grid,
                    &cell, &n);
    cairo_destroy(cr);
    double g[4] = {grid.x, grid.y, cell, n};
    cJSON_AddItemToObject(frame, "grid", cJSON_CreateDoubleArray(g, 4));
    cJSON *tips = cJSON_AddArrayToObject(frame, "tips");
    for (int q = 0; q < n; q++)
        for (int k = 0; k < n; k++) {
            char text[1024];
            int ids[8], n_ids = 0;
            view->tooltip(data, &c, q, k, text, sizeof text);
            for (char *line = strtok(text, "\n"); line && n_ids < 8; line = strtok(NULL, "\n")) {
                ids[n_ids] = string_table_add(lines, line, strlen(line));
                if (ids[n_ids++] < 0) return -1;
            }
            cJSON_AddItemToArray(tips, cJSON_CreateIntArray(ids, n_ids));
        }
    return 0;
}

/* Where state s is, in words, for the page's status line. */
static void describe_state(const Explorer *e, const ExplorerState *s, char *out, size_t cap)
{
    const FigureView *view = figure_view(s->view);
    size_t used = (size_t)snprintf(out, cap, "%s", view->name);
    if (view->layers != VIEW_NO_LAYER) used += (size_t)snprintf(out + used, cap - used, ", layer %d", s->layer);
    if (view->heads && s->head >= 0) used += (size_t)snprintf(out + used, cap - used, ", head %d", s->head);
    else if (view->heads) used += (size_t)snprintf(out + used, cap - used, ", mean over heads");
    if (s->show_roles && view->panels) used += (size_t)snprintf(out + used, cap - used, ", head roles");
    used += (size_t)snprintf(out + used, cap - used, ", r = %d", s->r);
    if (e->series.n && used < cap)
        snprintf(out + used, cap - used, ", %s %d (%d of %d)", e->series.epochs ? "epoch" : "step",
                 e->series.e[s->snapshot].step, s->snapshot + 1, e->series.n);
}

/* Draw frame f of the walk (in the state first showing it) into a JSON
 * object: its image, plot command, place and hover. NULL with err. */
static cJSON *draw_frame(Explorer *e, const PageWalk *w, int f, StringTable *lines, int *loaded, SrError *err)
{
    const ExplorerState *s = &w->states[w->frame_state[f]];
    e->st = *s;
    if (have_forward(e, s->snapshot, s->r, loaded, err)) return NULL;
    if (have_figure(e, err)) return NULL;
    cairo_surface_t *image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, e->o->width, e->o->height);
    unsigned char *png = NULL;
    size_t n = 0;
    cJSON *frame = cJSON_CreateObject();
    char *uri = NULL, where[300];
    if (draw_png(e, image, &png, &n) == 0 && (uri = page_png_uri(png, n)) != NULL && frame &&
        add_hover(e, image, lines, frame) == 0) {
        char command[8192]; /* the frame's name: its plot command, " +roles" when they are drawn */
        snprintf(command, sizeof command, "%s", w->frame_names.strings[f]);
        char *roles = strstr(command, " +roles");
        if (roles) *roles = 0;
        describe_state(e, s, where, sizeof where);
        cJSON_AddStringToObject(frame, "png", uri);
        cJSON_AddStringToObject(frame, "command", command);
        cJSON_AddBoolToObject(frame, "roles", roles != NULL);
        cJSON_AddStringToObject(frame, "where", where);
        cJSON_AddBoolToObject(frame, "pins", figure_view(s->view)->pins);
    } else {
        cJSON_Delete(frame);
        frame = NULL;
        sr_fail(err, "the %s view: drawing or encoding failed", explorer_view_name(s->view));
    }
    free(uri);
    free(png);
    cairo_surface_destroy(image);
    return frame;
}

/* The states as JSON: per state its frame ("f"), where each key leads
 * ("n", -1: not exported) and what it says ("m", a message number, -1). */
static cJSON *states_json(const PageWalk *w)
{
    cJSON *states = cJSON_CreateArray();
    for (int i = 0; states && i < w->n; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "f", w->frame[i]);
        cJSON_AddItemToObject(s, "n", cJSON_CreateIntArray(w->next + (size_t)i * PAGE_MAX_KEYS, w->n_keys));
        cJSON_AddItemToObject(s, "m", cJSON_CreateIntArray(w->message + (size_t)i * PAGE_MAX_KEYS, w->n_keys));
        cJSON_AddItemToArray(states, s);
    }
    return states;
}

/* The page's data but for its frames: keys, states, messages, help. */
static cJSON *page_data(const Explorer *e, const PageWalk *w)
{
    cJSON *d = cJSON_CreateObject();
    char title[700];
    snprintf(title, sizeof title, "seqrep explore: %.300s%s", e->src.series ? e->src.series : e->o->src.model,
             e->src.adapter ? " + adapter" : "");
    cJSON_AddStringToObject(d, "title", title);
    cJSON_AddStringToObject(d, "text", e->in.texts[w->first.sentence]);
    cJSON_AddNumberToObject(d, "width", e->o->width);
    cJSON_AddNumberToObject(d, "height", e->o->height);
    cJSON *keys = cJSON_AddArrayToObject(d, "keys");
    for (int k = 0; k < w->n_keys; k++) cJSON_AddItemToArray(keys, cJSON_CreateString(w->keys[k].name));
    cJSON_AddItemToObject(d, "states", states_json(w));
    cJSON_AddItemToObject(d, "messages",
                          cJSON_CreateStringArray((const char *const *)w->messages.strings, w->messages.n));
    cJSON_AddStringToObject(d, "help", explorer_help_text());
    return d;
}

/* A monotonic clock, in seconds. */
static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The progress line: frames drawn of n, and the time left at this pace. */
static void progress(int done, int n, double started)
{
    double left = (seconds_now() - started) / done * (n - done);
    fprintf(stderr, "\rexplore --html: %d of %d frames, ETA %d:%02d ", done, n, (int)left / 60, (int)left % 60);
}

/* Draw every frame of the walk into d's "frames", grouped by snapshot and
 * r (one forward each), with the hover lines in d's "lines". 0 or -1. */
static int add_frames(Explorer *e, const PageWalk *w, cJSON *d, SrError *err)
{
    int n = w->frame_names.n, done = 0, loaded = -1, rc = 0;
    double started = seconds_now();
    cJSON **frames = calloc((size_t)n + 1, sizeof *frames);
    StringTable lines = {0};
    if (!frames) return sr_fail(err, "out of memory");
    int n_snap = e->series.n ? e->series.n : 1;
    for (int snap = 0; snap < n_snap && rc == 0; snap++)
        for (int r = 0; r <= explorer_r_max(&w->first) && rc == 0; r++)
            for (int f = 0; f < n && rc == 0; f++) {
                const ExplorerState *s = &w->states[w->frame_state[f]];
                if (s->snapshot != (e->series.n ? snap : s->snapshot) || s->r != r) continue;
                frames[f] = draw_frame(e, w, f, &lines, &loaded, err);
                rc = frames[f] ? 0 : -1;
                if (++done % 10 == 0 || done == n) progress(done, n, started);
            }
    fprintf(stderr, "\n");
    cJSON *list = cJSON_AddArrayToObject(d, "frames");
    for (int f = 0; f < n; f++) {
        if (!frames[f] && rc == 0) rc = sr_fail(err, "frame %d was not drawn", f);
        if (frames[f]) cJSON_AddItemToArray(list, frames[f]);
    }
    cJSON_AddItemToObject(d, "lines", cJSON_CreateStringArray((const char *const *)lines.strings, lines.n));
    string_table_free(&lines);
    free(frames);
    return rc;
}

/* The r of --html-r fit the sentence and hold the first r. 0 or -1 with err. */
static int check_html_r(const Explorer *e, SrError *err)
{
    const ExplorerOptions *o = e->o;
    int first = o->n_html_r == 0;
    for (int i = 0; i < o->n_html_r; i++) {
        if (o->html_r[i] > explorer_r_max(&e->st))
            return sr_fail(err, "--html-r %d does not fit: the sentence and the model allow r <= %d", o->html_r[i],
                           explorer_r_max(&e->st));
        first |= o->html_r[i] == e->st.r;
    }
    return first ? 0 : sr_fail(err, "--html-r must hold the first r (--r %d)", e->st.r);
}

int explorer_write_page(const ExplorerOptions *o, SrError *err)
{
    Explorer *e = calloc(1, sizeof *e);
    if (!e) return sr_fail(err, "out of memory");
    layout_boxes_init(&e->figure_boxes);
    PageWalk w;
    memset(&w, 0, sizeof w);
    cJSON *d = NULL;
    int rc = -1;
    if (explorer_open(e, o, err) || check_html_r(e, err) || page_walk(&w, e, err)) goto done;
    fprintf(stderr, "explore --html: %d states, %d frames, %d keys\n", w.n, w.frame_names.n, w.n_keys);
    d = page_data(e, &w);
    if (!d) {
        sr_fail(err, "out of memory");
        goto done;
    }
    if (add_frames(e, &w, d, err) || page_write(o->html, d, err)) goto done;
    fprintf(stderr, "wrote %s\n", o->html);
    rc = 0;
done:
    cJSON_Delete(d);
    page_walk_free(&w);
    explorer_close(e);
    layout_boxes_free(&e->figure_boxes);
    free(e);
    return rc;
}
