/* flow_figure.c — the flow figure's row: where last-copy attention goes,
 * per layer (results/paint_flow.h), from an attnflow CSV; and its view in
 * the explorer, from --flow, for the head on screen (f). */
#include <stddef.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_request.h"
#include "figure_row/figure_row.h"
#include "results/paint_flow.h"

/* The options of `seqrep plot flow`. */
typedef struct {
    const char *results, *head;
} FlowOptions;

static const FigureOption OPTIONS[] = {
    {.name = "results", .type = ARG_STRING, .offset = offsetof(FlowOptions, results)},
    {.name = "head", .type = ARG_STRING, .offset = offsetof(FlowOptions, head)},
};

/* flow: --results (an attnflow CSV), --head (a number or mean). */
static int flow_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const FlowOptions *o = options;
    int head;
    (void)seed;
    if (!o->results) return sr_fail(err, "flow needs --results FILE (from seqrep attnflow --out)");
    if (figure_request_head(o->head ? o->head : "mean", FIGURE_HEAD_MAX, &head))
        return sr_fail(err, "--head must be a head number or mean, got '%s'", o->head);
    if (flow_data_load(data, o->results, head, err)) return -1;
    figure_manifest_input(manifest, "results", o->results);
    figure_manifest_head(manifest, head);
    return 0;
}

/* Draw the shares per layer (FlowData). */
static int flow_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_flow(cr, data, w, h);
}

/* The numbers behind the flow figure as CSV. */
static void flow_csv(const void *data, FILE *out)
{
    flow_data_write_csv(data, out);
}

/* Release what the data of the flow figure holds. */
static void flow_free(void *data)
{
    flow_data_free(data);
}


/* The view's plot options: the file of --flow, the head on screen. */
static void flow_command(PlotWords *w, const ViewContext *c)
{
    plot_words_option(w, "--results", c->src->flow);
    if (c->head >= 0) plot_words_int(w, "--head", c->head);
    else plot_words_option(w, "--head", "mean");
}

static const FigureView VIEWS[] = {{
    .name = "flow",
    .key = 'f',
    .heads = 1,
    .tour = TOUR_RESULT,
    .needs = "start the explorer with --flow FILE.csv",
    .view_needs = "needs --flow FILE",
    .source = "flow",
    .command = flow_command,
}};

const FigureRow FLOW_FIGURE = {
    .name = "flow",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(FlowOptions),
    .data_size = sizeof(FlowData),
    .meta_offset = offsetof(FlowData, meta),
    .load = flow_load,
    .paint = flow_paint,
    .write_csv = flow_csv,
    .free = flow_free,
    .views = VIEWS,
    .n_views = 1,
};
