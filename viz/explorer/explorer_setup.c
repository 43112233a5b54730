/* explorer_setup.c — the explorer opened without a window: the series of
 * --series, the model's vocabulary and the sentences, the views of the table
 * of figures that can be shown with the data of files given to explore
 * loaded as `seqrep plot` loads them, and the first view (sentence, r,
 * layer, head, scale, view), checked against the model. */
#include "explorer/explorer_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explorer/explorer_views.h"
#include "figure_row/figure_request.h"
#include "label/readout.h"

/* --series: every snapshot of a pre-training's series is a model of the
 * first one's shape and vocabulary (an epoch series shares its base; its
 * adapters are checked against it when loaded). 0, or -1 with err naming
 * the file. */
static int check_series(const SnapshotList *l, SrError *err)
{
    if (l->epochs) return 0;
    CheckpointInfo first, other;
    if (checkpoint_read_info(l->e[0].model, &first, err)) return -1;
    int rc = 0;
    for (int i = 1; i < l->n && rc == 0; i++) {
        if (checkpoint_read_info(l->e[i].model, &other, err)) {
            rc = -1;
            break;
        }
        const ModelConfig *a = &first.cfg, *b = &other.cfg;
        if (a->n_layers != b->n_layers || a->n_heads != b->n_heads || a->d_model != b->d_model ||
            a->vocab_size != b->vocab_size)
            rc = sr_fail(err, "%s: %d layers, %d heads, width %d, vocabulary %d, but %s has %d, %d, %d, %d "
                              "(a snapshot of another model?)",
                         l->e[i].model, b->n_layers, b->n_heads, b->d_model, b->vocab_size, l->e[0].model,
                         a->n_layers, a->n_heads, a->d_model, a->vocab_size);
        checkpoint_info_free(&other);
    }
    checkpoint_info_free(&first);
    return rc;
}

/* 1 if view v can be had from what explore was started on: the file it is
 * drawn from was given, the model has RePo layers for a view of them. */
static int view_applies(const Explorer *e, int v)
{
    const FigureView *view = figure_view(v);
    if (view->source) return explorer_source(&e->src, view->source) != NULL;
    return view->layers != VIEW_REPO_LAYERS || e->in.info.cfg.repo;
}

/* Load the data of the views drawn from files given to explore, as plot
 * loads them: a file that does not load is an error, but for a view found
 * rather than asked for (optional), which is then off, saying why. 0 or -1. */
static int load_views(Explorer *e, SrError *err)
{
    for (int v = 0; v < e->st.n_views; v++) {
        const FigureView *view = figure_view(v);
        if (!view->source || view->derive || !view_applies(e, v)) continue;
        SrError why;
        if (explorer_load_view(e, v, &why) == 0) continue;
        if (!view->optional) return sr_fail(err, "%s", why.msg);
        e->unavailable[v] = strdup(why.msg);
    }
    return 0;
}

/* The first view, from --view (and the state's layer and head for it). 0 or -1. */
static int initial_view(Explorer *e, SrError *err)
{
    const ExplorerOptions *o = e->o;
    ExplorerState *s = &e->st;
    const FigureView *view = figure_view(o->view);
    for (int v = 0; v < s->n_views; v++) {
        s->available[v] = view_applies(e, v) && !e->unavailable[v];
        s->unavailable[v] = e->unavailable[v];
    }
    if (!s->available[o->view]) {
        if (view->layers == VIEW_REPO_LAYERS)
            return sr_fail(err, "--view %s: %s has no RePo weights (train-lm --positions repo)", view->name,
                           e->src.model);
        if (e->unavailable[o->view]) return sr_fail(err, "--view %s: %s", view->name, e->unavailable[o->view]);
        return sr_fail(err, "--view %s %s", view->name, view->view_needs);
    }
    if (view->needs_copies && s->r == 0) return sr_fail(err, "--view %s needs --r 1 or more", view->name);
    if (view->layers == VIEW_REPO_LAYERS && o->layer >= 0 && o->layer < s->repo_from)
        return sr_fail(err, "--layer %d has no learned positions (RePo layers %d..%d)", o->layer, s->repo_from,
                       s->n_layers - 1);
    if (view->one_head && s->head < 0) s->head = s->last_head;
    s->view = o->view;
    return 0;
}

/* Set up the state from the options: sentence, r, layer, head, scale,
 * theme, then the view. 0 or -1. */
static int initial_state(Explorer *e, int max_T, SrError *err)
{
    const ExplorerOptions *o = e->o;
    ExplorerState *s = &e->st;
    const ModelConfig *c = &e->in.info.cfg;
    RepeatBos bos;
    if (readout_choose_bos(&e->in.tok, o->bos_given ? repeat_bos_name(o->bos) : NULL, o->bos, o->sep, &bos, err))
        return -1;
    explorer_state_init(s, c->n_layers, c->n_heads, e->in.n_sentences, e->in.n_tokens, max_T, bos, o->sep);
    s->n_snapshots = e->series.n;
    s->snapshot = e->series.n - 1;
    s->repo_from = c->repo ? c->repo_from : -1;
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
    return initial_view(e, err);
}

int explorer_open(Explorer *e, const ExplorerOptions *o, SrError *err)
{
    e->o = o;
    e->src = o->src;
    e->pieces.sentence = -1;
    if (e->src.series) {
        if (snapshot_series_list(e->src.series, &e->series, err) || check_series(&e->series, err)) return -1;
        e->src.model = e->series.e[e->series.n - 1].model; /* the last snapshot first */
        e->src.adapter = e->series.e[e->series.n - 1].adapter;
    }
    if (explorer_input_load(&e->in, &e->src, err)) return -1;
    if (e->src.text) figure_request_warn_unknown("explore", e->src.model, e->in.n_unknown[0], e->in.n_tokens[0]);
    int max_T = explorer_max_T(e);
    const ModelConfig *c = &e->in.info.cfg;
    /* a first state, for the words of the views of files, before the options' checks */
    explorer_state_init(&e->st, c->n_layers, c->n_heads, e->in.n_sentences, e->in.n_tokens, max_T, o->bos, o->sep);
    if (load_views(e, err)) return -1;
    return initial_state(e, max_T, err);
}

int explorer_max_T(const Explorer *e)
{
    int model = e->in.info.cfg.max_seq_len;
    return model < ATTENTION_MAX_T ? model : ATTENTION_MAX_T;
}

void explorer_close(Explorer *e)
{
    explorer_drop_attention(e); /* before the weights its maps are computed from */
    explorer_worker_stop(e->worker);
    e->worker = NULL;
    explorer_free_views(e);
    for (int v = 0; v < EXPLORER_MAX_VIEWS; v++) free(e->unavailable[v]);
    snapshot_list_free(&e->series);
    explorer_input_free(&e->in);
}
