/* repo_range_figure.c — the repo-range figure's row: max z - min z per
 * layer against the context length (repo/paint_repo_range.h), from a
 * `seqrep repo-eval --figures` CSV; and its view in the explorer, from
 * --repo-range (g). */
#include <stddef.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_row.h"
#include "repo/paint_repo_range.h"

/* The options of `seqrep plot repo-range`. */
typedef struct {
    const char *results;
} RepoRangeOptions;

static const FigureOption OPTIONS[] = {
    {.name = "results", .type = ARG_STRING, .offset = offsetof(RepoRangeOptions, results)},
};

/* repo-range: --results (TASK-range.csv of repo-eval --figures). */
static int range_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const RepoRangeOptions *o = options;
    (void)seed;
    if (!o->results)
        return sr_fail(err, "repo-range needs --results FILE (from seqrep repo-eval --figures DIR: TASK-range.csv)");
    if (repo_range_data_load(data, o->results, err)) return -1;
    figure_manifest_input(manifest, "results", o->results);
    return 0;
}

/* Draw the z range per layer (RepoRangeData). */
static int range_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_repo_range(cr, data, w, h);
}

/* The numbers behind the repo-range figure as CSV. */
static void range_csv(const void *data, FILE *out)
{
    repo_range_data_write_csv(data, out);
}

/* Release what the data of the repo-range figure holds. */
static void range_free(void *data)
{
    repo_range_data_free(data);
}


/* The view's plot options: the file of --repo-range. */
static void range_command(PlotWords *w, const ViewContext *c)
{
    plot_words_option(w, "--results", c->src->repo_range);
}

static const FigureView VIEWS[] = {{
    .name = "repo-range",
    .key = 'g',
    .tour = TOUR_RESULT,
    .needs = "start the explorer with --repo-range FILE.csv",
    .view_needs = "needs --repo-range FILE",
    .source = "repo-range",
    .command = range_command,
}};

const FigureRow REPO_RANGE_FIGURE = {
    .name = "repo-range",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(RepoRangeOptions),
    .data_size = sizeof(RepoRangeData),
    .meta_offset = offsetof(RepoRangeData, meta),
    .load = range_load,
    .paint = range_paint,
    .write_csv = range_csv,
    .free = range_free,
    .views = VIEWS,
    .n_views = 1,
};
