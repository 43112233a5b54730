/* proportion_figure.c — the proportion figure's row: the share of full
 * blocks against r (mask/paint_proportion.h), counted from --n and an --r
 * list or read from a `seqrep blocks` CSV, and its view in the explorer:
 * the sentence on screen at r = 1 .. the most that fit, at most
 * PROPORTION_VIEW_R (B). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_request.h"
#include "figure_row/figure_row.h"
#include "mask/paint_proportion.h"

/* The largest r of the explorer's view. */
#define PROPORTION_VIEW_R 8

/* The options of `seqrep plot proportion` (their lines are mask's and layers'). */
typedef struct {
    int n;
    const char *r, *bos, *sep, *results;
} ProportionOptions;

static const FigureOption OPTIONS[] = {
    {.name = "n", .type = ARG_INT, .offset = offsetof(ProportionOptions, n), .min_int = 1},
    {.name = "r", .type = ARG_STRING, .offset = offsetof(ProportionOptions, r)},
    {.name = "bos", .type = ARG_STRING, .offset = offsetof(ProportionOptions, bos)},
    {.name = "sep", .type = ARG_STRING, .offset = offsetof(ProportionOptions, sep)},
    {.name = "results", .type = ARG_STRING, .offset = offsetof(ProportionOptions, results)},
};

/* proportion counted here: --n, --r LIST, --bos, --sep. */
static int count(ProportionData *d, const ProportionOptions *o, cJSON *manifest, SrError *err)
{
    RepeatBos bos;
    RepeatSep sep;
    if (o->n < 1 || !o->r) return sr_fail(err, "proportion needs --results FILE, or --n N and --r LIST");
    if (figure_request_repeat(o->bos, o->sep, "none", &bos, &sep, err)) return -1;
    int *values, n_values;
    if (repeat_parse_r_list(o->r, &values, &n_values, err)) return -1;
    int rc = proportion_data_count(d, o->n, values, n_values, bos, sep, err);
    free(values);
    if (rc) return -1;
    cJSON_AddNumberToObject(manifest, "n", o->n);
    cJSON_AddStringToObject(manifest, "r", o->r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    return 0;
}

/* proportion: --results FILE (a seqrep blocks CSV), or counted from --n and --r. */
static int proportion_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const ProportionOptions *o = options;
    (void)seed;
    if (!o->results) return count(data, o, manifest, err);
    if (o->n || o->r || o->bos || o->sep)
        return sr_fail(err, "proportion takes either --results FILE or --n and --r, not both");
    if (proportion_data_load(data, o->results, err)) return -1;
    figure_manifest_input(manifest, "results", o->results);
    return 0;
}

/* Draw the share of full blocks (ProportionData). */
static int proportion_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_proportion(cr, data, w, h);
}

/* The numbers behind the proportion figure as CSV. */
static void proportion_csv(const void *data, FILE *out)
{
    proportion_data_write_csv(data, out);
}

/* Release what the data of the proportion figure holds. */
static void proportion_free(void *data)
{
    proportion_data_free(data);
}

/* The view's plot options: the sentence on screen at r = 1 .. the most
 * that fit (at least 1, at most PROPORTION_VIEW_R: blocks are counted, not
 * run), its bos and sep. From r = 1: the label of r = 0's point, "0%", would
 * stand across the plot area's edge. */
static void proportion_command(PlotWords *w, const ViewContext *c)
{
    char r[32];
    int r_max = c->r_max < 1 ? 1 : c->r_max < PROPORTION_VIEW_R ? c->r_max : PROPORTION_VIEW_R;
    snprintf(r, sizeof r, "1..%d", r_max);
    plot_words_int(w, "--n", c->n_tokens);
    plot_words_option(w, "--r", r);
    plot_words_option(w, "--bos", repeat_bos_name(c->bos));
    plot_words_option(w, "--sep", repeat_sep_name(c->sep));
}

static const FigureView VIEWS[] = {{
    .name = "proportion",
    .key = 'B',
    .help = "share of full blocks against r (this sentence)",
    .command = proportion_command,
}};

const FigureRow PROPORTION_FIGURE = {
    .name = "proportion",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(ProportionOptions),
    .data_size = sizeof(ProportionData),
    .meta_offset = offsetof(ProportionData, meta),
    .load = proportion_load,
    .paint = proportion_paint,
    .write_csv = proportion_csv,
    .free = proportion_free,
    .views = VIEWS,
    .n_views = 1,
};
