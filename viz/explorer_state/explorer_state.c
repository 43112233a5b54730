/* explorer_state.c — the explorer's view state: its first values, the
 * largest r that fits, the names of the views, what the mouse changes (the
 * hovered cell, the pinned token) and what the views read of it. Pure: no
 * SDL, no model. */
#include "explorer_state/explorer_state.h"

#include <math.h>
#include <string.h>

#include "draw/figure.h"
#include "figures/figures.h"

const char *explorer_view_name(int v)
{
    const FigureView *view = figure_view(v);
    return view ? view->name : "?";
}

int explorer_view_named(const char *name)
{
    return figure_view_find(name);
}

int explorer_home_view(void)
{
    for (int v = 0; v < figure_view_count(); v++)
        if (figure_view(v)->home) return v;
    return 0;
}

/* Largest r whose input of n tokens fits max_T (0 if even r = 0 does not). */
static int r_max_for(int n, int max_T, RepeatBos bos, RepeatSep sep)
{
    int r = 0;
    while (repeat_length(n, r + 1, bos, sep) <= max_T && r < 1000) r++;
    return r;
}

int explorer_r_max(const ExplorerState *s)
{
    int n = s->n_tokens ? s->n_tokens[s->sentence] : 1;
    return r_max_for(n, s->max_T, s->bos, s->sep);
}

void explorer_state_init(ExplorerState *s, int n_layers, int n_heads, int n_sentences,
                         const int *n_tokens, int max_T, RepeatBos bos, RepeatSep sep)
{
    memset(s, 0, sizeof *s);
    s->n_layers = n_layers;
    s->n_heads = n_heads;
    s->repo_from = -1;
    s->n_sentences = n_sentences;
    s->n_tokens = n_tokens;
    s->max_T = max_T;
    s->bos = bos;
    s->sep = sep;
    s->n_views = figure_view_count() < EXPLORER_MAX_VIEWS ? figure_view_count() : EXPLORER_MAX_VIEWS;
    for (int v = 0; v < s->n_views; v++) /* on without files or a RePo model */
        s->available[v] = !figure_view(v)->source && figure_view(v)->layers != VIEW_REPO_LAYERS;
    s->view = explorer_home_view();
    s->layer = n_layers - 1;
    s->head = -1;
    s->last_head = 0;
    s->r = explorer_r_max(s) >= 1 ? 1 : 0;
    s->scale = s->linear_scale = SCALE_FIXED;
    s->theme = THEME_LIGHT;
    s->pinned = -1;
    s->hover_query = s->hover_key = -1;
}

int explorer_set_hover(ExplorerState *s, int query, int key)
{
    if (query < 0 || key < 0) query = key = -1;
    if (query == s->hover_query && key == s->hover_key) return 0;
    s->hover_query = query;
    s->hover_key = key;
    return EXPLORER_REDRAW;
}

int explorer_click(ExplorerState *s, int query)
{
    s->pinned = (query < 0 || query == s->pinned) ? -1 : query;
    return EXPLORER_REDRAW;
}

double explorer_text_size(double w, double h)
{
    return figure_font_size(TEXT_SMALL, fmax(figure_unit(w, h), figure_unit(1280, 720)));
}

int explorer_figure_width(const ExplorerState *s, int w, int h)
{
    if (s->pinned < 0 || !figure_view(s->view)->pins) return w;
    /* the pinned panel: lines of 30 characters of monospace (0.6 em each),
     * its padding, the gaps; a longer token's panel goes where it covers least */
    int strip = (int)ceil((30 * 0.6 + 1.2) * explorer_text_size(w, h) + 16);
    return w - strip > w / 2 ? w - strip : w / 2;
}

int explorer_figure_height(const ExplorerState *s, int w, int h)
{
    if (!s->message[0]) return h;
    int strip = (int)ceil(2.55 * explorer_text_size(w, h) + 8); /* one line, its padding, the gap */
    return h - strip > h / 2 ? h - strip : h / 2;
}

void explorer_view_context(ViewContext *c, const ExplorerState *s, const ExplorerSources *src,
                           int forward_sentence, int forward_r)
{
    *c = (ViewContext){
        .src = src,
        .n_layers = s->n_layers,
        .n_heads = s->n_heads,
        .repo_from = s->repo_from,
        .checksum = "?",
        .seed = -1,
        .sentence = s->sentence,
        .n_tokens = s->n_tokens ? s->n_tokens[s->sentence] : 1,
        .r = s->r,
        .r_max = explorer_r_max(s),
        .bos = s->bos,
        .sep = s->sep,
        .layer = s->layer,
        .head = s->head,
        .last_head = s->last_head,
        .scale = s->scale,
        .last_copy_only = s->last_copy_only,
        .forward_sentence = forward_sentence,
        .forward_r = forward_r,
    };
}
