/* figure_view.h — a figure as a view of `seqrep explore`: what the explorer
 * shows of it, the keys it answers, and how its data is had for the state
 * on screen (ViewContext). The views of every row of the table of figures
 * (figure_row.h) are the explorer's views, in table order.
 *
 * A view's data comes one of two ways. Most views write the `seqrep plot`
 * options of the frame (command), and the explorer loads the figure from
 * those very words, as `seqrep plot` would: the frame and the printed plot
 * command draw the same figure. Views of the model's forward on the
 * sentence (attention, the RePo positions) take their data from the forward
 * the explorer's worker computed (derive), and say when it is not ready. */
#ifndef SEQREP_VIZ_FIGURE_VIEW_H
#define SEQREP_VIZ_FIGURE_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "attention/attention_data.h"
#include "base/status.h"
#include "draw/figure.h"
#include "figure_row/explorer_sources.h"
#include "figure_row/plot_words.h"
#include "repeat/repeat.h"

/* The forward on screen: the worker's run of the model on one sentence
 * repeated r times, owned by the explorer. */
typedef struct {
    AttentionData attention;     /* every layer's maps (made ready on demand) and z */
    uint8_t *last_copy_visible;  /* (n_visible, T, T) attention.visible under the b filter */
} ViewForward;

/* What a view reads of the explorer: its sources and the state on screen. */
typedef struct {
    const ExplorerSources *src;  /* what explore was started on                  */
    /* the model */
    int n_layers, n_heads;
    int repo_from;               /* its first RePo layer, -1 without RePo         */
    const char *checksum;        /* of the checkpoint, for captions               */
    long long seed;              /* its training seed, -1 if unknown              */
    const char *snapshot;        /* --series: "step 50" (or "epoch 3"), else NULL */
    /* the sentence on screen, repeated */
    int sentence, n_tokens;      /* which one, and its tokens                     */
    int r, r_max;                /* repetitions, and the most that fit            */
    RepeatBos bos;
    RepeatSep sep;
    const char *const *labels;   /* (T) its repeated pieces' labels, or NULL      */
    /* the map on screen */
    int layer, head, last_head;  /* head -1: the mean; last_head: the last one    */
    AttentionScale scale;
    int last_copy_only;          /* the b filter                                  */
    /* the forward: the worker's run on forward_sentence at forward_r (they lag
     * the state while the next one is computed) */
    const ViewForward *forward;  /* NULL while computed                           */
    int forward_sentence, forward_r;
    const char *forward_text, *forward_source; /* that sentence, where it came from */
} ViewContext;

/* Which layers a view shows. */
typedef enum {
    VIEW_NO_LAYER = 0,   /* none: <left> <right> go to the home view           */
    VIEW_ANY_LAYER = 1,  /* every layer                                         */
    VIEW_REPO_LAYERS = 2 /* the layers with RePo positions (the model has them) */
} ViewLayers;

/* What a view is on the guided walk (<space>). */
typedef enum {
    TOUR_NONE = 0,   /* not a stop                                              */
    TOUR_START = 1,  /* the first stop, and where the walk comes back to        */
    TOUR_LAYERS = 2, /* a stop per layer, from layer 0, mean over heads         */
    TOUR_STOP = 3,   /* a stop with its own words                               */
    TOUR_RESULT = 4  /* a stop when its data is loaded ("the NAME plot of ...") */
} ViewTour;

/* What derive says. */
enum { VIEW_READY = 0, VIEW_COMPUTING = 1 };

typedef struct {
    const char *name;         /* explore --view NAME, and in messages             */
    /* its keys */
    char key;                 /* the key that shows it (0: none of its own)       */
    const char *again;        /* the view its key shows when pressed on it, when
                                 that one can be shown (NULL: it stays)           */
    const char *help;         /* its key's line in explore --help and ?, for a key
                                 the explorer's own key list does not name        */
    int home;                 /* keys of layers and heads lead here from views
                                 without them; clicks on a grid open maps here    */
    ViewLayers layers;
    int heads;                /* <up> <down> pick a head on it                    */
    const char *one_head;     /* it shows one head, never the mean: why           */
    int needs_copies;         /* it compares copies: r >= 1                       */
    int pins;                 /* a click pins the query row under the mouse       */
    int panels;               /* a layer x head grid: clicks open maps, R roles   */
    ViewTour tour;
    const char *tour_text;    /* TOUR_START (%d: the copies), _LAYERS, _STOP      */
    /* when it cannot be shown */
    const char *needs;        /* "no NAME view: " and this                        */
    const char *view_needs;   /* "--view NAME " and this                          */
    const char *source;       /* the explore option of the file it is drawn from
                                 ("layers", ...): it is on when that was given
                                 (NULL: it needs none; VIEW_REPO_LAYERS views
                                 need a RePo model)                               */
    int optional;             /* found, not asked for: when its data does not
                                 load, it is off (the key says why), no error     */
    /* its data */
    void (*command)(PlotWords *w, const ViewContext *c); /* plot's options of the frame */
    int (*derive)(void *data, const ViewContext *c, SrError *err); /* NULL: loaded from
                                 the command; else VIEW_READY, VIEW_COMPUTING or -1 */
    int borrows;              /* derived data holds the forward's arrays: it is
                                 forgotten, not freed                              */
    /* under the mouse (NULL: nothing to hover) */
    int (*under_mouse)(cairo_t *cr, const void *data, double w, double h, double x, double y, int *query,
                       int *key);
    void (*tooltip)(const void *data, const ViewContext *c, int query, int key, char *out, size_t cap);
    /* its cells under the mouse as a grid drawn w x h (NULL: not a grid), for
     * the page of explore --html: the n x n cells of side *cell from the top
     * left of *grid, cell (query, key) at row query and column key */
    void (*cell_grid)(cairo_t *cr, const void *data, double w, double h, FigureRect *grid, double *cell, int *n);
    const AttentionData *(*maps)(const void *data); /* for pins, grids, roles (NULL: none) */
} FigureView;

#endif
