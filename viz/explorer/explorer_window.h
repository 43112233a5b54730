/* explorer_window.h — the state of the explorer's open window, shared by the
 * files that make it up: explorer.c (events, rendering, the run), and its
 * parts explorer_views.c, explorer_setup.c, explorer_hover.c,
 * explorer_overlays.c and explorer_save.c. Only those files include it. */
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
#include "figures/figures.h"
#include "mask/mask_data.h"
#include "repo/repo_needle_data.h"
#include "repo/repo_range_data.h"
#include "repo/repo_z_data.h"
#include "results/exit_data.h"
#include "results/flow_data.h"
#include "results/layers_data.h"
#include "repeat/repeat.h"
#include "runs/snapshot_series.h"

/* The data of every view. */
typedef struct {
    MaskData mask;
    AttentionData attention;
    LayersData layers;
    ExitData exit;
    FlowData flow;
    RepoZData repo_z;
    RepoRangeData repo_range;
    RepoNeedleData repo_needle;
} ExplorerData;

typedef struct {
    const ExplorerOptions *o;
    ExplorerSources src;        /* o->src, with --series: the shown snapshot's model */
    SnapshotList series;        /* --series: its snapshots (n 0 without)           */
    ExplorerState st;
    ExplorerInput in;
    ExplorerData fig;           /* data of every view                             */
    Figure shown;               /* the view's figure: its row and fig's member    */
    int has_attention;          /* fig.attention holds maps                       */
    int shown_sentence, shown_r;/* what fig.attention was computed for            */
    uint8_t *visible_all;       /* (L, T, T) the attention data's own mask        */
    uint8_t *visible_last;      /* (L, T, T) the `b` filter of it                 */
    int has_mask, mask_sentence, mask_r;  /* what fig.mask was built for          */
    RepeatLayout mask_layout;   /* its token layout, for hover labels             */
    int has_layers, has_exit, has_flow, flow_head;
    int has_repo_z, has_repo_range, has_repo_needle;  /* fig.repo_* hold data     */
    int repo_z_layer, repo_z_head;  /* what fig.repo_z was taken for (from fig.attention) */
    ExplorerRoles roles;        /* head roles of fig.attention, when has_roles    */
    int has_roles;
    char compute_error[700];    /* the last failed recompute, "" if none          */
    int maps_computing;         /* the view waits for the maps' thread            */
    ExplorerWorker *worker;

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
