/* exit_figure.c — the exit figure's row: F1 against the relative cost of
 * early exit, with its Pareto front (results/paint_exit.h), from fine-tune
 * or sweep CSVs; and its view in the explorer, from --exit (e). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_row.h"
#include "figure_row/file_list.h"
#include "results/paint_exit.h"

/* The options of `seqrep plot exit`. */
typedef struct {
    const char *results, *split, *cost, *dataset;
} ExitOptions;

static const FigureOption OPTIONS[] = {
    {.name = "results", .type = ARG_STRING, .offset = offsetof(ExitOptions, results)},
    {.name = "split", .type = ARG_STRING, .offset = offsetof(ExitOptions, split)},
    {.name = "cost", .type = ARG_STRING, .offset = offsetof(ExitOptions, cost),
     .help = "exit: flops | seconds (default flops)"},
    {.name = "dataset", .type = ARG_STRING, .offset = offsetof(ExitOptions, dataset),
     .help = "exit: the dataset of a sweep CSV"},
};

/* exit: --results (fine-tune or sweep CSVs), --cost, --split, --dataset. */
static int exit_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const ExitOptions *o = options;
    (void)seed;
    const char *cost = o->cost ? o->cost : "flops";
    if (strcmp(cost, "flops") != 0 && strcmp(cost, "seconds") != 0)
        return sr_fail(err, "--cost must be flops or seconds, got '%s'", cost);
    if (!o->results) return sr_fail(err, "exit needs --results FILE[,FILE...] (finetune or sweep CSVs)");
    const char *paths[FILE_LIST_MAX], *split = o->split ? o->split : "test";
    char *list = NULL;
    int n = file_list_split(o->results, &list, paths, FILE_LIST_MAX), rc;
    if (n < 0) rc = sr_fail(err, "out of memory");
    else if (n == 0) rc = sr_fail(err, "--results: no file given");
    else rc = exit_data_load(data, paths, n, cost, split, o->dataset, err);
    if (rc == 0) {
        figure_manifest_inputs(manifest, "results", paths, n);
        if (o->dataset) cJSON_AddStringToObject(manifest, "dataset", o->dataset);
        cJSON_AddStringToObject(manifest, "cost", cost);
        cJSON_AddStringToObject(manifest, "split", split);
    }
    free(list);
    return rc;
}

/* Draw F1 against cost (ExitData). */
static int exit_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_exit(cr, data, w, h);
}

/* The numbers behind the exit figure as CSV. */
static void exit_csv(const void *data, FILE *out)
{
    exit_data_write_csv(data, out);
}

/* Release what the data of the exit figure holds. */
static void exit_free(void *data)
{
    exit_data_free(data);
}


/* The view's plot options: the files of --exit, --dataset, --cost, --split. */
static void exit_command(PlotWords *w, const ViewContext *c)
{
    plot_words_option(w, "--results", c->src->exit);
    if (c->src->dataset) plot_words_option(w, "--dataset", c->src->dataset);
    if (c->src->cost) plot_words_option(w, "--cost", c->src->cost);
    if (c->src->split) plot_words_option(w, "--split", c->src->split);
}

static const FigureView VIEWS[] = {{
    .name = "exit",
    .key = 'e',
    .tour = TOUR_RESULT,
    .needs = "start the explorer with --exit FILE.csv",
    .view_needs = "needs --exit FILE",
    .source = "exit",
    .command = exit_command,
}};

const FigureRow EXIT_FIGURE = {
    .name = "exit",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(ExitOptions),
    .data_size = sizeof(ExitData),
    .meta_offset = offsetof(ExitData, meta),
    .load = exit_load,
    .paint = exit_paint,
    .write_csv = exit_csv,
    .free = exit_free,
    .views = VIEWS,
    .n_views = 1,
};
