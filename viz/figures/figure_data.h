/* figure_data.h — one figure of any kind: its kind and the data of that
 * kind. The table of figures (figures.h) says what each kind is called and
 * how it is loaded, painted, written as numbers and released. */
#ifndef SEQREP_VIZ_FIGURE_DATA_H
#define SEQREP_VIZ_FIGURE_DATA_H

#include "attention/attention_data.h"
#include "mask/mask_data.h"
#include "mask/proportion_data.h"
#include "repo/repo_needle_data.h"
#include "repo/repo_range_data.h"
#include "repo/repo_z_data.h"
#include "results/exit_data.h"
#include "results/flow_data.h"
#include "results/heads_data.h"
#include "results/layers_data.h"
#include "series/timeline_data.h"

/* The figures, in the order of the table (and of `seqrep plot --help`). */
typedef enum {
    FIGURE_MASK = 0, FIGURE_PROPORTION = 1, FIGURE_ATTENTION = 2, FIGURE_LAYERS = 3,
    FIGURE_EXIT = 4, FIGURE_FLOW = 5, FIGURE_REPO_Z = 6, FIGURE_REPO_REPEAT = 7,
    FIGURE_REPO_RANGE = 8, FIGURE_REPO_NEEDLE = 9, FIGURE_HEADS = 10, FIGURE_TIMELINE = 11,
    FIGURE_COUNT = 12
} FigureKind;

/* One figure: the kind says which member holds the data. */
typedef struct {
    FigureKind kind;
    int overview;              /* attention: draw the layer x head grid */
    MaskData mask;
    ProportionData proportion;
    AttentionData attention;
    LayersData layers;
    ExitData exit;
    FlowData flow;
    RepoZData repo_z;          /* repo-z and repo-repeat */
    RepoRangeData repo_range;
    RepoNeedleData repo_needle;
    HeadsData heads;
    TimelineData timeline;
} Figure;

#endif
