/* explorer_views.c — the data behind the explorer's views: the attention
 * maps the worker computes, the mask, the flow of the head on screen and the
 * z figure taken from the maps, and the figure prepared for the painter as
 * `seqrep plot` would set it up. */
#include "explorer/explorer_views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explorer/explorer_frame.h"
#include "explorer/explorer_roles_paint.h"
#include "label/readout.h"
#include "repo/repo_z_attention.h"

void explorer_drop_attention(Explorer *e)
{
    if (e->has_repo_z) {
        repo_z_data_free(&e->fig.repo_z);
        e->has_repo_z = 0;
    }
    if (e->has_roles) {
        explorer_roles_free(&e->roles);
        e->has_roles = 0;
    }
    if (!e->has_attention) return;
    e->fig.attention.visible = e->visible_all;
    attention_data_free(&e->fig.attention);
    free(e->visible_last);
    e->visible_all = e->visible_last = NULL;
    e->has_attention = 0;
}

void explorer_request_maps(Explorer *e)
{
    int s = e->st.sentence;
    e->compute_error[0] = 0;
    if (explorer_worker_request(e->worker, e->in.ids[s], e->in.n_tokens[s], s, e->st.r))
        snprintf(e->compute_error, sizeof e->compute_error, "out of memory");
}

void explorer_take_maps(Explorer *e)
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
    size_t cells = (size_t)d.n_visible * d.T * d.T;
    uint8_t *last = malloc(cells ? cells : 1);
    if (!last) {
        attention_data_free(&d);
        snprintf(e->compute_error, sizeof e->compute_error, "out of memory");
        return;
    }
    explorer_drop_attention(e);
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
    if (mask_data_build(&e->fig.mask, e->in.n_tokens[s], e->st.r, e->st.bos, e->st.sep, 0, &err)) return -1;
    if (repeat_build_ids(e->in.ids[s], e->in.n_tokens[s], e->st.r, e->st.bos, e->st.sep,
                         readout_repeat_ids(&e->in.tok), 0, &e->mask_layout, &err)) {
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
    if (flow_data_load(&d, e->src.flow, e->st.head, &err)) {
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
    repo_z_source(source, sizeof source, e->src.model, e->src.adapter, e->in.texts[e->shown_sentence],
                  e->in.sources[e->shown_sentence], e->shown_r, s->bos, s->sep, e->src.mask);
    if (repo_z_data_from_attention(&e->fig.repo_z, &e->fig.attention, s->layer, head, source, &err)) {
        snprintf(e->compute_error, sizeof e->compute_error, "%s", err.msg);
        return -1;
    }
    e->has_repo_z = 1;
    e->repo_z_layer = s->layer;
    e->repo_z_head = head;
    return 0;
}

/* Ask the maps' thread for the layer on screen (every layer for the
 * overview): 0 when they are ready, -1 while they are computed
 * (maps_computing) or when they cannot be (compute_error). */
static int want_maps(Explorer *e, AttentionData *d, int overview)
{
    SrError err;
    int ready = overview ? attention_maps_want_all(d->maps, &err) : attention_maps_want(d->maps, d->layer, &err);
    e->maps_computing = ready == 0;
    if (ready < 0) snprintf(e->compute_error, sizeof e->compute_error, "%s", err.msg);
    return ready == 1 ? 0 : -1;
}

/* e->shown = the figure of row `name` on data. */
static void show(Explorer *e, const char *name, void *data)
{
    e->shown = (Figure){.row = figure_find(name), .data = data};
}

int explorer_prepare_figure(Explorer *e)
{
    const ExplorerState *s = &e->st;
    ExplorerData *f = &e->fig;
    int overview = s->view == VIEW_OVERVIEW;
    e->maps_computing = 0;
    switch (s->view) {
    case VIEW_MASK:
        if (update_mask(e)) return -1;
        show(e, "mask", &f->mask);
        break;
    case VIEW_ATTENTION:
    case VIEW_OVERVIEW: {
        if (!e->has_attention) return -1;
        AttentionData *d = &f->attention;
        d->overview = overview;
        show(e, "attention", d);
        d->layer = s->layer < d->n_layers ? s->layer : d->n_layers - 1;
        d->head = s->head < d->n_heads ? s->head : -1;
        d->scale = s->scale;
        d->visible = s->last_copy_only ? e->visible_last : e->visible_all;
        explorer_describe_attention(d, overview, e->src.model, e->src.adapter, &e->in, e->shown_sentence,
                                    e->shown_r, s->bos, s->sep, e->src.mask);
        if (e->series.n) { /* --series: the snapshot in the title */
            size_t used = strlen(d->meta.title);
            snprintf(d->meta.title + used, sizeof d->meta.title - used, ", %s %d", e->series.epochs ? "epoch" : "step",
                     e->series.e[s->snapshot].step);
        }
        if (want_maps(e, d, overview)) return -1;
        break;
    }
    case VIEW_LAYERS: show(e, "layers", &f->layers); break;
    case VIEW_EXIT: show(e, "exit", &f->exit); break;
    case VIEW_REPO_Z:
    case VIEW_REPO_REPEAT:
        if (update_repo_z(e)) return -1;
        show(e, s->view == VIEW_REPO_Z ? "repo-z" : "repo-repeat", &f->repo_z);
        break;
    case VIEW_REPO_RANGE: show(e, "repo-range", &f->repo_range); break;
    case VIEW_REPO_NEEDLE: show(e, "repo-needle", &f->repo_needle); break;
    case VIEW_FLOW:
        update_flow(e);
        show(e, "flow", &f->flow);
        break;
    default: return -1; /* no view of that number: nothing to draw */
    }
    FigureMeta *meta = figure_meta(&e->shown);
    meta->style.theme = s->theme;
    snprintf(meta->style.font, sizeof meta->style.font, "%s",
             e->src.font ? e->src.font : FIGURE_DEFAULT_FONT);
    return 0;
}

const ExplorerRoles *explorer_shown_roles(Explorer *e)
{
    if (!e->st.show_roles || e->st.view != VIEW_OVERVIEW || !e->has_attention) return NULL;
    if (e->has_roles) return &e->roles;
    SrError err;
    if (attention_maps_want_all(e->fig.attention.maps, &err) != 1) return NULL; /* the scores read every layer */
    if (explorer_roles_compute(&e->roles, &e->fig.attention, e->in.n_tokens[e->shown_sentence], e->shown_r,
                               e->st.bos, e->st.sep, &err)) {
        snprintf(e->compute_error, sizeof e->compute_error, "%s", err.msg);
        return NULL;
    }
    e->has_roles = 1;
    return &e->roles;
}

AttentionOverviewRoom explorer_overview_room(Explorer *e, cairo_t *cr, double w, double h)
{
    const ExplorerRoles *roles = explorer_shown_roles(e);
    if (!roles) return (AttentionOverviewRoom){.below = 0, .side = 0};
    return explorer_roles_room(cr, &e->fig.attention, roles, w, h);
}

int explorer_paint_view(Explorer *e, cairo_t *cr, double w, double h)
{
    layout_boxes_clear(&e->figure_boxes);
    FigureStyle style = figure_meta_default().style;
    style.theme = e->st.theme;
    rgb_set(cr, figure_background(&style)); /* the whole surface: the strips of the status line and pin too */
    cairo_paint(cr);
    if (explorer_prepare_figure(e) == 0) { /* recording where it draws what, for the overlays */
        LayoutBoxes *before = layout_boxes_of(cr);
        layout_boxes_attach(cr, &e->figure_boxes);
        int rc = explorer_paint_figure(cr, &e->shown, explorer_shown_roles(e), w, h);
        layout_boxes_attach(cr, before);
        if (before && layout_boxes_append(before, &e->figure_boxes)) return -1;
        return rc;
    }
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}
