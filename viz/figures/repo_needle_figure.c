/* repo_needle_figure.c — the repo-needle figure's row: the attention on the
 * needle and next to it, per layer (repo/paint_repo_needle.h), from a
 * `seqrep repo-eval --figures` CSV; and its view in the explorer, from
 * --repo-needle (n). */
#include <stddef.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_row.h"
#include "repo/paint_repo_needle.h"

/* The options of `seqrep plot repo-needle`. */
typedef struct {
    const char *results;
    int length;
} RepoNeedleOptions;

static const FigureOption OPTIONS[] = {
    {.name = "results", .type = ARG_STRING, .offset = offsetof(RepoNeedleOptions, results)},
    {.name = "length", .type = ARG_INT, .offset = offsetof(RepoNeedleOptions, length), .min_int = 1,
     .help = "repo-needle: the context length to draw (default the longest)"},
};

/* repo-needle: --results (TASK-attention.csv of repo-eval --figures), --length. */
static int needle_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const RepoNeedleOptions *o = options;
    RepoNeedleData *d = data;
    (void)seed;
    if (!o->results)
        return sr_fail(err,
                       "repo-needle needs --results FILE (from seqrep repo-eval --figures DIR: TASK-attention.csv)");
    if (repo_needle_data_load(d, o->results, o->length, err)) return -1;
    figure_manifest_input(manifest, "results", o->results);
    cJSON_AddNumberToObject(manifest, "length", d->length);
    return 0;
}

/* Draw the attention on the needle (RepoNeedleData). */
static int needle_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_repo_needle(cr, data, w, h);
}

/* The numbers behind the repo-needle figure as CSV. */
static void needle_csv(const void *data, FILE *out)
{
    repo_needle_data_write_csv(data, out);
}

/* Release what the data of the repo-needle figure holds. */
static void needle_free(void *data)
{
    repo_needle_data_free(data);
}


/* The view's plot options: the file of --repo-needle. */
static void needle_command(PlotWords *w, const ViewContext *c)
{
    plot_words_option(w, "--results", c->src->repo_needle);
}

static const FigureView VIEWS[] = {{
    .name = "repo-needle",
    .key = 'n',
    .tour = TOUR_RESULT,
    .needs = "start the explorer with --repo-needle FILE.csv",
    .view_needs = "needs --repo-needle FILE",
    .source = "repo-needle",
    .command = needle_command,
}};

const FigureRow REPO_NEEDLE_FIGURE = {
    .name = "repo-needle",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(RepoNeedleOptions),
    .data_size = sizeof(RepoNeedleData),
    .meta_offset = offsetof(RepoNeedleData, meta),
    .load = needle_load,
    .paint = needle_paint,
    .write_csv = needle_csv,
    .free = needle_free,
    .views = VIEWS,
    .n_views = 1,
};
