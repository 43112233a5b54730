/* heads_figure.c — the heads figure's row: the role scores of every
 * attention head, a layer x head grid per score (results/paint_heads.h),
 * from the CSV of `seqrep heads` and the manifest beside it; and its view
 * in the explorer, from --heads (H). */
#include <stddef.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_row.h"
#include "results/paint_heads.h"

/* The options of `seqrep plot heads`. */
typedef struct {
    const char *results, *scores;
} HeadsOptions;

static const FigureOption OPTIONS[] = {
    {.name = "results", .type = ARG_STRING, .offset = offsetof(HeadsOptions, results)},
    {.name = "scores", .type = ARG_STRING, .offset = offsetof(HeadsOptions, scores),
     .help = "heads: the scores to draw, one panel each in the order given: a comma list of copy, induction, "
             "previous, sink, own_copy (default all five)"},
};

/* heads: --results (a CSV of seqrep heads), --scores. */
static int heads_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const HeadsOptions *o = options;
    HeadScore scores[HEAD_N_SCORES] = {HEAD_COPY, HEAD_INDUCTION, HEAD_PREVIOUS, HEAD_SINK, HEAD_OWN_COPY};
    int n_scores = HEAD_N_SCORES;
    (void)seed;
    if (!o->results) return sr_fail(err, "heads needs --results FILE (from seqrep heads --out)");
    if (o->scores && head_scores_parse(o->scores, scores, &n_scores, err)) return -1;
    /* the manifest of seqrep heads beside the file names model, r and input */
    figure_manifest_input(manifest, "results", o->results);
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(manifest, "results_manifest");
    if (heads_data_load(data, o->results, scores, n_scores, input, err)) return -1;
    cJSON *names = cJSON_AddArrayToObject(manifest, "scores");
    for (int i = 0; i < n_scores; i++) cJSON_AddItemToArray(names, cJSON_CreateString(head_score_name(scores[i])));
    return 0;
}

/* Draw the grids of scores (HeadsData). */
static int heads_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_heads(cr, data, w, h);
}

/* The numbers behind the heads figure as CSV. */
static void heads_csv(const void *data, FILE *out)
{
    heads_data_write_csv(data, out);
}

/* Release what the data of the heads figure holds. */
static void heads_free(void *data)
{
    heads_data_free(data);
}


/* The view's plot options: the file of --heads. */
static void heads_command(PlotWords *w, const ViewContext *c)
{
    plot_words_option(w, "--results", c->src->heads);
}

static const FigureView VIEWS[] = {{
    .name = "heads",
    .key = 'H',
    .help = "role scores of every head (explore --heads FILE.csv)",
    .tour = TOUR_RESULT,
    .needs = "start the explorer with --heads FILE.csv",
    .view_needs = "needs --heads FILE",
    .source = "heads",
    .command = heads_command,
}};

const FigureRow HEADS_FIGURE = {
    .name = "heads",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(HeadsOptions),
    .data_size = sizeof(HeadsData),
    .meta_offset = offsetof(HeadsData, meta),
    .load = heads_load,
    .paint = heads_paint,
    .write_csv = heads_csv,
    .free = heads_free,
    .width = 2400,
    .height = 1000,
    .views = VIEWS,
    .n_views = 1,
};
