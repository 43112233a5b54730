/* explorer_state.h — the explorer's view state: which view the window
 * shows (one of the views of the table of figures, figures/figures.h), the
 * sentence, r, layer, head, scale and theme, the token under the mouse and
 * the pinned one. Pure: no SDL, no model, so it is unit-tested. The keys
 * that change it are in explorer_keys.h. */
#ifndef SEQREP_VIZ_EXPLORER_STATE_H
#define SEQREP_VIZ_EXPLORER_STATE_H

#include "attention/attention_data.h"
#include "draw/figure.h"
#include "figure_row/figure_view.h"
#include "repeat/repeat.h"

/* The most views the window knows (those of the table when the state is made). */
#define EXPLORER_MAX_VIEWS 32

/* The name of view v of the table ("mask", "attention", "overview", ...:
 * the `seqrep plot` figure it draws, or for the attention figure's two
 * views "attention" and "overview"); "?" for no view. */
const char *explorer_view_name(int v);

/* The number of the view called name, -1 when there is none. */
int explorer_view_named(const char *name);

/* The home view: the one keys of layers and heads lead to from views
 * without them, and the first view (attention). */
int explorer_home_view(void);

/* What the caller must do after a key (bits, combined with |). */
enum {
    EXPLORER_REDRAW = 1,         /* the frame changed                          */
    EXPLORER_RECOMPUTE = 2,      /* sentence or r changed: run the model again */
    EXPLORER_SAVE_PNG = 4,
    EXPLORER_SAVE_SVG = 8,
    EXPLORER_PRINT_COMMAND = 16,
    EXPLORER_QUIT = 32,
    EXPLORER_RELOAD = 64         /* snapshot changed: load its model, run again */
};

typedef struct {
    /* what is loaded; set once by the caller */
    int n_layers, n_heads;     /* of the model                                 */
    int repo_from;             /* its first RePo layer, -1 when it has none     */
    int n_sentences;           /* sentences to page through (1 for --text)     */
    const int *n_tokens;       /* (n_sentences) tokens of each sentence        */
    int max_T;                 /* longest repeated input allowed (model, figure) */
    RepeatBos bos;
    RepeatSep sep;
    int n_views;               /* the views of the table                       */
    int available[EXPLORER_MAX_VIEWS]; /* 1 where the view's data can be had   */
    const char *unavailable[EXPLORER_MAX_VIEWS]; /* why not, when not its needs
                                  (the caller keeps the text), else NULL       */
    int n_snapshots;           /* of --series (0 without one)                  */

    /* the view */
    int snapshot;              /* --series: 0 .. n_snapshots-1 ([ and ])        */
    int view;                  /* 0 .. n_views-1                               */
    int sentence;              /* 0 .. n_sentences-1                           */
    int r;                     /* repetitions, 0 .. explorer_r_max()           */
    int layer;                 /* 0 .. n_layers-1                              */
    int head;                  /* 0 .. n_heads-1, or -1 for the mean           */
    int last_head;             /* head to return to when the mean is left      */
    AttentionScale scale;      /* SCALE_FIXED or SCALE_LOG (l), or per-head    */
    AttentionScale linear_scale; /* the non-log scale l returns to             */
    int last_copy_only;        /* b: only last copy -> earlier copies          */
    int show_roles;            /* R: head roles marked on the overview         */
    FigureTheme theme;
    int pinned;                /* pinned token (query row), -1 = none          */
    int hover_query, hover_key;/* cell under the mouse, -1 = none              */
    int show_help;
    char message[600];         /* status line after the last key ("" = none)   */
} ExplorerState;

/* A state for a model of n_layers x n_heads and sentences of n_tokens[0..n):
 * the home view (attention) of the last layer, mean over heads, r = 1 when
 * it fits (else 0), fixed scale, light theme, no RePo layers; the views of
 * the table available that need nothing (mask, attention, overview, ...:
 * set available[] and repo_from for the others). */
void explorer_state_init(ExplorerState *s, int n_layers, int n_heads, int n_sentences,
                         const int *n_tokens, int max_T, RepeatBos bos, RepeatSep sep);

/* Largest r whose repeated input of the current sentence fits max_T. */
int explorer_r_max(const ExplorerState *s);

/* The text size of the explorer's overlays in a w x h window, in pixels:
 * the figures' smallest text at that size, and never less than at
 * 1280 x 720 (18 px), so the help and the tooltips read when projected. */
double explorer_text_size(double w, double h);

/* The width of the figure in a w x h window: all of it, but for the strip
 * at the right the pinned token's panel stands in when a token is pinned on
 * a view that pins tokens (the attention map), so that it covers nothing of
 * the figure. */
int explorer_figure_width(const ExplorerState *s, int w, int h);

/* The height of the figure in a w x h window: all of it, but for the strip
 * at the bottom the status line (s->message) stands in when there is one,
 * so that it covers nothing of the figure. */
int explorer_figure_height(const ExplorerState *s, int w, int h);

/* Move hover to cell (query, key), -1 for none; returns EXPLORER_REDRAW if
 * it changed. */
int explorer_set_hover(ExplorerState *s, int query, int key);

/* A click on query row `query`: pin it, or unpin when it is already pinned
 * (query -1 unpins). Returns EXPLORER_REDRAW. */
int explorer_click(ExplorerState *s, int query);

/* What the views read of the state (figure_view.h): the sentence, r, map
 * and model sizes of s, the sources src, and the forward's sentence and r
 * (they lag the state while the next forward is computed); no forward, no
 * texts, no labels, checksum "?" and seed -1 (the window adds those). */
void explorer_view_context(ViewContext *c, const ExplorerState *s, const ExplorerSources *src,
                           int forward_sentence, int forward_r);

#endif
