/* layers_figure.c — the layers figure's row: probe F1 per layer, per r
 * (results/paint_layers.h), from probe CSVs with fine-tune or sweep CSVs as
 * references; and its view in the explorer, from --layers (p). */
#include <stddef.h>
#include <stdlib.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_row.h"
#include "figure_row/file_list.h"
#include "results/paint_layers.h"

/* The options of `seqrep plot layers`. */
typedef struct {
    const char *results, *split, *baselines;
} LayersOptions;

static const FigureOption OPTIONS[] = {
    {.name = "results", .type = ARG_STRING, .offset = offsetof(LayersOptions, results), .input = 1,
     .help = "proportion: blocks CSV; layers: probe CSV(s), comma-separated; exit: finetune/sweep CSV(s); flow: "
             "attnflow CSV; repo-z, repo-repeat: z CSV (repo-positions, repo-eval --figures) instead of --model; "
             "repo-range, repo-needle: repo-eval --figures CSV; heads: the CSV of seqrep heads"},
    {.name = "split", .type = ARG_STRING, .offset = offsetof(LayersOptions, split),
     .help = "layers, exit, timeline --what probe: the split to draw (default test)"},
    {.name = "baselines", .type = ARG_STRING, .offset = offsetof(LayersOptions, baselines), .input = 2,
     .help = "layers: finetune/sweep CSV(s), comma-separated, drawn as horizontal references"},
};

/* layers: --results (probe CSVs), --baselines, --split. */
static int layers_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const LayersOptions *o = options;
    (void)seed;
    if (!o->results) return sr_fail(err, "layers needs --results FILE[,FILE...] (probe CSVs)");
    const char *paths[FILE_LIST_MAX], *base[FILE_LIST_MAX];
    char *list = NULL, *base_list = NULL;
    int n = file_list_split(o->results, &list, paths, FILE_LIST_MAX);
    int n_base = o->baselines ? file_list_split(o->baselines, &base_list, base, FILE_LIST_MAX) : 0;
    const char *split = o->split ? o->split : "test";
    int rc;
    if (n < 0 || n_base < 0) rc = sr_fail(err, "out of memory");
    else if (n == 0) rc = sr_fail(err, "--results: no file given");
    else rc = layers_data_load(data, paths, n, split, base, n_base, err);
    if (rc == 0) {
        figure_manifest_inputs(manifest, "results", paths, n);
        if (n_base) figure_manifest_inputs(manifest, "baselines", base, n_base);
        cJSON_AddStringToObject(manifest, "split", split);
    }
    free(list);
    free(base_list);
    return rc;
}

/* Draw F1 per layer (LayersData). */
static int layers_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_layers(cr, data, w, h);
}

/* The numbers behind the layers figure as CSV. */
static void layers_csv(const void *data, FILE *out)
{
    layers_data_write_csv(data, out);
}

/* Release what the data of the layers figure holds. */
static void layers_free(void *data)
{
    layers_data_free(data);
}


/* The view's plot options: the files of --layers and --baselines, --split. */
static void layers_command(PlotWords *w, const ViewContext *c)
{
    plot_words_option(w, "--results", c->src->layers);
    if (c->src->baselines) plot_words_option(w, "--baselines", c->src->baselines);
    if (c->src->split) plot_words_option(w, "--split", c->src->split);
}

static const FigureView VIEWS[] = {{
    .name = "layers",
    .key = 'p',
    .tour = TOUR_RESULT,
    .needs = "start the explorer with --layers FILE.csv",
    .view_needs = "needs --layers FILE",
    .source = "layers",
    .command = layers_command,
}};

const FigureRow LAYERS_FIGURE = {
    .name = "layers",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(LayersOptions),
    .data_size = sizeof(LayersData),
    .meta_offset = offsetof(LayersData, meta),
    .load = layers_load,
    .paint = layers_paint,
    .write_csv = layers_csv,
    .free = layers_free,
    .views = VIEWS,
    .n_views = 1,
};
