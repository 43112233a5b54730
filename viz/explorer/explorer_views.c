/* explorer_views.c — the data behind the explorer's views, one slot per view
 * of the table of figures: the forward the worker computes (the attention
 * maps, with their `b` filter), what the views read of the window
 * (ViewContext), and the data of the view on screen, had again whenever the
 * plot words the view writes for the frame change: loaded from those words
 * as `seqrep plot` loads them, or taken from the forward. */
#include "explorer/explorer_views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explorer/explorer_roles_paint.h"
#include "figures/figure_options.h"
#include "label/readout.h"

/* Release what slot holds and mark it empty (its words stay). */
static void release_slot(ExplorerSlot *slot)
{
    if (slot->borrowed) free(slot->fig.data); /* the forward's arrays are not its */
    else if (slot->fig.data) figure_free(&slot->fig);
    slot->fig.data = NULL;
    slot->ready = slot->failed = slot->borrowed = 0;
}

void explorer_drop_attention(Explorer *e)
{
    for (int v = 0; v < e->st.n_views; v++)
        if (figure_view(v)->derive) release_slot(&e->slot[v]); /* they read the forward */
    if (e->has_roles) {
        explorer_roles_free(&e->roles);
        e->has_roles = 0;
    }
    if (!e->has_forward) return;
    attention_data_free(&e->forward.attention);
    free(e->forward.last_copy_visible);
    e->forward.last_copy_visible = NULL;
    e->has_forward = 0;
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
    e->forward = (ViewForward){.attention = d, .last_copy_visible = last};
    e->has_forward = 1;
    e->shown_sentence = sentence;
    e->shown_r = r;
    if (e->st.pinned >= d.T) e->st.pinned = -1;
}

/* Make e->pieces the labels of the state's sentence repeated r times, as
 * the vocabulary names them. 0 or -1 (out of memory, or it does not fit). */
static int update_pieces(Explorer *e)
{
    ExplorerPieces *p = &e->pieces;
    int s = e->st.sentence;
    if (p->label && p->sentence == s && p->r == e->st.r && p->bos == e->st.bos && p->sep == e->st.sep) return 0;
    for (int t = 0; p->label && t < p->T; t++) free(p->label[t]);
    free(p->label);
    *p = (ExplorerPieces){.sentence = -1, .r = -1};
    RepeatLayout lay;
    SrError err;
    if (repeat_build_ids(e->in.ids[s], e->in.n_tokens[s], e->st.r, e->st.bos, e->st.sep,
                         readout_repeat_ids(&e->in.tok), 0, &lay, &err))
        return -1;
    p->label = calloc((size_t)lay.T, sizeof *p->label);
    for (int t = 0; p->label && t < lay.T; t++) {
        char piece[64];
        const char *word = e->in.tok.hf ? tokenizer_piece_label(&e->in.tok, lay.ids[t], piece, sizeof piece)
                                        : tokenizer_word(&e->in.tok, lay.ids[t]);
        p->label[t] = strdup(word ? word : "?");
    }
    p->T = p->label ? lay.T : 0;
    p->sentence = s;
    p->r = e->st.r;
    p->bos = e->st.bos;
    p->sep = e->st.sep;
    repeat_free(&lay);
    return p->label ? 0 : -1;
}

void explorer_context(Explorer *e, ViewContext *c)
{
    explorer_view_context(c, &e->st, &e->src, e->shown_sentence, e->shown_r);
    c->checksum = e->in.checksum;
    c->seed = e->in.seed;
    if (e->series.n) { /* --series: the snapshot in the attention titles */
        snprintf(e->snapshot, sizeof e->snapshot, "%s %d", e->series.epochs ? "epoch" : "step",
                 e->series.e[e->st.snapshot].step);
        c->snapshot = e->snapshot;
    }
    c->labels = update_pieces(e) == 0 ? (const char *const *)e->pieces.label : NULL;
    c->forward = e->has_forward ? &e->forward : NULL;
    c->forward_text = e->in.texts[e->shown_sentence];
    c->forward_source = e->in.sources[e->shown_sentence];
}

/* Put words into slot, as what its data is of (the old ones freed). */
static void keep_words(ExplorerSlot *slot, PlotWords *words)
{
    plot_words_free(&slot->words);
    slot->words = *words;
    plot_words_init(words);
}

/* Give view v's slot the data of words for c: taken from the forward, or
 * loaded as `seqrep plot` loads words (when that fails, the message says
 * why and what was shown stays). 0, or -1 when there is nothing to draw. */
static int have_data(Explorer *e, int v, const ViewContext *c, PlotWords *words)
{
    const FigureView *view = figure_view(v);
    ExplorerSlot *slot = &e->slot[v];
    SrError err;
    if (!view->derive) {
        Figure fresh;
        int rc = figure_load_words(&fresh, figure_view_row(v), words, NULL, &err);
        keep_words(slot, words);
        if (rc) { /* a message, and the view as it was */
            figure_free(&fresh);
            snprintf(e->st.message, sizeof e->st.message, "%s", err.msg);
            slot->failed = !slot->fig.data;
            return slot->fig.data ? 0 : -1;
        }
        release_slot(slot);
        slot->fig = fresh;
        slot->ready = 1;
        return 0;
    }
    release_slot(slot);
    if (figure_new(&slot->fig, figure_view_row(v), &err)) return -1;
    slot->borrowed = view->borrows;
    int rc = view->derive(slot->fig.data, c, &err);
    e->maps_computing = rc == VIEW_COMPUTING;
    if (rc == VIEW_COMPUTING) return -1;
    keep_words(slot, words);
    slot->ready = rc == VIEW_READY;
    slot->failed = !slot->ready;
    if (rc < 0) snprintf(e->compute_error, sizeof e->compute_error, "%s", err.msg);
    return slot->ready ? 0 : -1;
}

int explorer_prepare_figure(Explorer *e)
{
    int v = e->st.view;
    const FigureView *view = figure_view(v);
    ExplorerSlot *slot = &e->slot[v];
    ViewContext c;
    explorer_context(e, &c);
    e->maps_computing = 0;
    if (view->derive && !c.forward) return -1; /* the worker computes it */
    PlotWords words;
    plot_words_init(&words);
    view->command(&words, &c);
    int same = plot_words_equal(&words, &slot->words);
    int rc = same && slot->ready ? 0 : same && slot->failed ? -1 : have_data(e, v, &c, &words);
    plot_words_free(&words);
    if (rc) return -1;
    FigureMeta *meta = figure_meta(&slot->fig);
    meta->style.theme = e->st.theme;
    snprintf(meta->style.font, sizeof meta->style.font, "%s", e->src.font ? e->src.font : FIGURE_DEFAULT_FONT);
    return 0;
}

const Figure *explorer_shown_figure(const Explorer *e)
{
    return &e->slot[e->st.view].fig;
}

const AttentionData *explorer_shown_maps(const Explorer *e)
{
    const FigureView *view = figure_view(e->st.view);
    const ExplorerSlot *slot = &e->slot[e->st.view];
    return view->maps && slot->ready ? view->maps(slot->fig.data) : NULL;
}

int explorer_load_view(Explorer *e, int v, SrError *err)
{
    ViewContext c;
    explorer_context(e, &c);
    PlotWords words;
    plot_words_init(&words);
    figure_view(v)->command(&words, &c);
    ExplorerSlot *slot = &e->slot[v];
    release_slot(slot);
    int rc = figure_load_words(&slot->fig, figure_view_row(v), &words, NULL, err);
    keep_words(slot, &words);
    if (rc) release_slot(slot);
    slot->ready = rc == 0;
    return rc;
}

void explorer_free_views(Explorer *e)
{
    for (int v = 0; v < EXPLORER_MAX_VIEWS; v++) {
        release_slot(&e->slot[v]);
        plot_words_free(&e->slot[v].words);
    }
    for (int t = 0; e->pieces.label && t < e->pieces.T; t++) free(e->pieces.label[t]);
    free(e->pieces.label);
    e->pieces.label = NULL;
}

const ExplorerRoles *explorer_shown_roles(Explorer *e)
{
    if (!e->st.show_roles || !figure_view(e->st.view)->panels || !e->has_forward) return NULL;
    if (e->has_roles) return &e->roles;
    SrError err;
    const AttentionData *d = &e->forward.attention;
    if (attention_maps_want_all(d->maps, &err) != 1) return NULL; /* the scores read every layer */
    if (explorer_roles_compute(&e->roles, d, e->in.n_tokens[e->shown_sentence], e->shown_r, e->st.bos, e->st.sep,
                               &err)) {
        snprintf(e->compute_error, sizeof e->compute_error, "%s", err.msg);
        return NULL;
    }
    e->has_roles = 1;
    return &e->roles;
}

AttentionOverviewRoom explorer_overview_room(Explorer *e, cairo_t *cr, double w, double h)
{
    const ExplorerRoles *roles = explorer_shown_roles(e);
    const AttentionData *maps = explorer_shown_maps(e);
    if (!roles || !maps) return (AttentionOverviewRoom){.below = 0, .side = 0};
    return explorer_roles_room(cr, maps, roles, w, h);
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
        int rc = explorer_paint_figure(cr, explorer_shown_figure(e), explorer_shown_maps(e), explorer_shown_roles(e),
                                       w, h);
        layout_boxes_attach(cr, before);
        if (before && layout_boxes_append(before, &e->figure_boxes)) return -1;
        return rc;
    }
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}
