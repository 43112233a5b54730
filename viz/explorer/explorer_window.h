/* explorer_window.h — the state of the explorer's open window, shared by the
 * files that make it up: explorer.c (events, rendering, the run), and its
 * parts explorer_views.c, explorer_setup.c, explorer_overlays.c and
 * explorer_save.c, and the page of explore --html (viz/page/explorer_page.c,
 * explorer_page_walk.c), which opens the explorer without a window. Only
 * those files include it. */
#ifndef SEQREP_VIZ_EXPLORER_WINDOW_H
#define SEQREP_VIZ_EXPLORER_WINDOW_H

#include <stdint.h>

#include <SDL.h>
#include <cairo.h>

#include "draw/layout_boxes.h"
#include "explorer/explorer_input.h"
#include "explorer/explorer_options.h"
#include "explorer/explorer_worker.h"
#include "explorer_state/explorer_frame_times.h"
#include "explorer_state/explorer_roles.h"
#include "explorer_state/explorer_state.h"
#include "figure_row/figure_view.h"
#include "figure_row/plot_words.h"
#include "figures/figures.h"
#include "repeat/repeat.h"
#include "runs/snapshot_series.h"
#include "window/sdl_calls.h"

/* The data of one view in the window: its figure, and the plot words it
 * was loaded or derived for (its data is had again when they change). */
typedef struct {
    Figure fig;                 /* fig.data NULL until had                        */
    PlotWords words;
    int ready;                  /* fig holds the data of words                    */
    int failed;                 /* words could not be had: not tried again        */
    int borrowed;               /* fig.data holds the forward's arrays: forgotten,
                                   not freed (FigureView.borrows)                 */
} ExplorerSlot;

/* The labels of the pieces of the sentence on screen, repeated. */
typedef struct {
    int sentence, r;            /* what they are of (-1: none yet)                */
    RepeatBos bos;
    RepeatSep sep;
    int T;
    char **label;               /* (T) owned                                      */
} ExplorerPieces;

typedef struct {
    const ExplorerOptions *o;
    ExplorerSources src;        /* o->src, with --series: the shown snapshot's model */
    SnapshotList series;        /* --series: its snapshots (n 0 without)           */
    ExplorerState st;
    ExplorerInput in;
    ViewForward forward;        /* the worker's last result, when has_forward      */
    int has_forward;
    int shown_sentence, shown_r;/* what the forward was computed for              */
    char snapshot[48];          /* --series: "step 50" of the shown snapshot       */
    ExplorerPieces pieces;      /* for the hover texts of the views                */
    ExplorerSlot slot[EXPLORER_MAX_VIEWS]; /* the data of each view                */
    char *unavailable[EXPLORER_MAX_VIEWS]; /* why an optional view is off (owned)  */
    ExplorerRoles roles;        /* head roles of the forward, when has_roles       */
    int has_roles;
    char compute_error[700];    /* the last failed recompute, "" if none          */
    int maps_computing;         /* the view waits for the maps' thread            */
    ExplorerWorker *worker;

    SdlCalls sdl;               /* SDL2's functions, loaded when the window opens */
    SDL_Window *window;
    Uint32 wake_event;          /* pushed by the worker after each result         */
    cairo_surface_t *figure;    /* the painter's drawing, window-sized ARGB32     */
    cairo_surface_t *frame;     /* figure + overlays, what the window shows       */
    LayoutBoxes figure_boxes;   /* what the figure layer drew where: the overlays avoid it */
    int width, height;
    int figure_height;          /* the figure layer's figure: height less the status line's strip */
    int figure_width;           /* and width less the pinned panel's strip                       */
    int figure_stale;           /* repaint the figure layer before showing        */
    int figure_drawn;           /* the figure layer holds a view's drawing        */
    int frame_stale;            /* redraw the overlays and show                   */
    int mouse_x, mouse_y, mouse_in;
    FrameTimes times;           /* --frame-times: the frames drawn so far         */
    int key_to_answer;          /* the last key pressed whose frame is not yet drawn, or -1 */
} Explorer;

#endif
