/* explorer_state.h — the explorer's view state: which figure the window
 * shows (the views), the sentence, r, layer, head, scale and theme, the
 * token under the mouse and the pinned one. Pure: no SDL, no model, so it
 * is unit-tested. The keys that change it are in explorer_keys.h. */
#ifndef SEQREP_VIZ_EXPLORER_STATE_H
#define SEQREP_VIZ_EXPLORER_STATE_H

#include "attention/attention_data.h"
#include "draw/figure.h"
#include "repeat/repeat.h"

/* The views: which figure the window shows. */
typedef enum {
    VIEW_MASK = 0,       /* paint_mask: the causal mask over the repeated sentence */
    VIEW_ATTENTION = 1,  /* paint_attention: one layer, one head or the mean       */
    VIEW_OVERVIEW = 2,   /* paint_attention_overview: layer x head grid            */
    VIEW_LAYERS = 3,     /* paint_layers: probe F1 per layer (needs --layers)      */
    VIEW_EXIT = 4,       /* paint_exit: F1 against cost (needs --exit)             */
    VIEW_FLOW = 5,       /* paint_flow: attention flow per layer (needs --flow)    */
    VIEW_REPO_Z = 6,     /* paint_repo_z: z per token (needs a RePo model)         */
    VIEW_REPO_REPEAT = 7,/* paint_repo_repeat: z per copy (RePo model, r >= 1)     */
    VIEW_REPO_RANGE = 8, /* paint_repo_range: z range per layer (--repo-range)     */
    VIEW_REPO_NEEDLE = 9,/* paint_repo_needle: attention on the needle (--repo-needle) */
    VIEW_COUNT = 10
} ExplorerView;

/* Name of a view: "mask", "attention", "overview", "layers", "exit", "flow",
 * "repo-z", "repo-repeat", "repo-range", "repo-needle" (the names of the
 * `seqrep plot` figures they draw, except the two attention views). */
const char *explorer_view_name(ExplorerView v);

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
    int has_results[VIEW_COUNT]; /* 1 where the view's data is loaded           */
    int n_snapshots;           /* of --series (0 without one)                  */

    /* the view */
    int snapshot;              /* --series: 0 .. n_snapshots-1 ([ and ])        */
    ExplorerView view;
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
 * attention view of the last layer, mean over heads, r = 1 when it fits
 * (else 0), fixed scale, light theme, no RePo layers (set repo_from and
 * has_results[VIEW_REPO_Z], [VIEW_REPO_REPEAT] for a RePo model). */
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
 * the attention map, so that it covers nothing of the figure. */
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

#endif
