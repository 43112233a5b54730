/* mask_figure.c — the mask figure's row: the kn x kn causal mask over a
 * sentence of --n tokens repeated --r times (mask/paint_mask.h), and its
 * view in the explorer, the mask over the sentence on screen (m). */
#include <stddef.h>

#include "figure_row/figure_request.h"
#include "figure_row/figure_row.h"
#include "mask/paint_mask.h"

/* The options of `seqrep plot mask`. */
typedef struct {
    int n, window;
    const char *r, *bos, *sep;
} MaskOptions;

static const FigureOption OPTIONS[] = {
    {.name = "n", .type = ARG_INT, .offset = offsetof(MaskOptions, n), .min_int = 1,
     .help = "mask, proportion: tokens in the sentence"},
    {.name = "window", .type = ARG_INT, .offset = offsetof(MaskOptions, window), .min_int = 1,
     .help = "mask: a sliding window of N keys"},
    {.name = "r", .type = ARG_STRING, .offset = offsetof(MaskOptions, r),
     .help = "mask, attention, repo-z, repo-repeat: repetitions R; proportion: a list such as 0..8"},
    {.name = "bos", .type = ARG_STRING, .offset = offsetof(MaskOptions, bos),
     .help = "none | once | per-copy (mask, proportion: none; attention: per-copy, none when the tokenizer adds "
             "no BOS)"},
    {.name = "sep", .type = ARG_STRING, .offset = offsetof(MaskOptions, sep), .help = "none | token (default none)"},
};

/* mask: --n, one --r, --bos (default none), --sep, --window. */
static int mask_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const MaskOptions *o = options;
    MaskData *d = data;
    RepeatBos bos;
    RepeatSep sep;
    int r;
    (void)seed;
    if (o->n < 1 || !o->r) return sr_fail(err, "mask needs --n N and --r R");
    if (figure_request_one_r(o->r, &r))
        return sr_fail(err, "--r must be one repetition count >= 0 for mask, got '%s'", o->r);
    if (figure_request_repeat(o->bos, o->sep, "none", &bos, &sep, err)) return -1;
    if (mask_data_build(d, o->n, r, bos, sep, o->window, err)) return -1;
    cJSON_AddNumberToObject(manifest, "n", o->n);
    cJSON_AddNumberToObject(manifest, "r", r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    if (o->window) cJSON_AddNumberToObject(manifest, "window", o->window);
    cJSON_AddNumberToObject(manifest, "full_share", share_value(d->full_share));
    return 0;
}

/* Draw the mask (MaskData). */
static int mask_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_mask(cr, data, w, h);
}

/* The numbers behind the mask as CSV. */
static void mask_csv(const void *data, FILE *out)
{
    mask_data_write_csv(data, out);
}

/* Release what the data of the mask holds. */
static void mask_free(void *data)
{
    mask_data_free(data);
}

/* The view's plot options: the sentence on screen, its r, bos and sep. */
static void mask_command(PlotWords *w, const ViewContext *c)
{
    plot_words_int(w, "--n", c->n_tokens);
    plot_words_int(w, "--r", c->r);
    plot_words_option(w, "--bos", repeat_bos_name(c->bos));
    plot_words_option(w, "--sep", repeat_sep_name(c->sep));
}

/* The cell under (x, y) of the mask drawn w x h: 1 and (*query, *key), or 0. */
static int mask_cell(cairo_t *cr, const void *data, double w, double h, double x, double y, int *query, int *key)
{
    MaskLayout L;
    mask_layout(cr, data, w, h, &L);
    return mask_cell_at(&L, data, x, y, query, key);
}

/* The T x T cells of the mask drawn w x h: their rectangle and side. */
static void mask_grid(cairo_t *cr, const void *data, double w, double h, FigureRect *grid, double *cell, int *n)
{
    MaskLayout L;
    mask_layout(cr, data, w, h, &L);
    *grid = L.grid;
    *cell = L.cell;
    *n = ((const MaskData *)data)->T;
}

/* The hover text of cell (query, key), the tokens named by their labels. */
static void mask_tooltip_of(const void *data, const ViewContext *c, int query, int key, char *out, size_t cap)
{
    mask_tooltip(data, c->labels, query, key, out, cap);
}

static const FigureView VIEWS[] = {{
    .name = "mask",
    .key = 'm',
    .again = "attention",
    .tour = TOUR_START,
    .tour_text = "tour: the causal mask over k = %d copies; full blocks let the last copy see everything",
    .command = mask_command,
    .under_mouse = mask_cell,
    .tooltip = mask_tooltip_of,
    .cell_grid = mask_grid,
}};

const FigureRow MASK_FIGURE = {
    .name = "mask",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(MaskOptions),
    .data_size = sizeof(MaskData),
    .meta_offset = offsetof(MaskData, meta),
    .load = mask_load,
    .paint = mask_paint,
    .write_csv = mask_csv,
    .free = mask_free,
    .width = 1500,
    .height = 1150,
    .views = VIEWS,
    .n_views = 1,
};
