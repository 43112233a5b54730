/* attention_figure.c — the attention figure's row: the attention of a model
 * on one repeated sentence, one map (attention/paint_attention.h) or the
 * layer x head overview (paint_attention_overview.h), the maps it draws
 * computed by the loader; and its two views in the explorer, the map of the
 * layer and head on screen (the home view) and the overview (o), both taken
 * from the forward the explorer's worker computed. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/paint_attention.h"
#include "attention/paint_attention_overview.h"
#include "figure_row/figure_manifest.h"
#include "figure_row/figure_request.h"
#include "figure_row/figure_row.h"
#include "runs/manifest.h"

/* The options of `seqrep plot attention`. */
typedef struct {
    FigureModelRun run;
    int overview, last_copy_only;
    const char *scale;
    const char *ablate_heads; /* --ablate-heads L.H,... (engine/head_scale.h head_plan_parse) */
} AttentionOptions;

static const AttentionOptions DEFAULTS = {.run = {.layer = -1}};

static const FigureOption OPTIONS[] = {
    {.name = "r", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.r)},
    {.name = "bos", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.bos)},
    {.name = "sep", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.sep)},
    {.name = "copy-positions", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.copy_positions),
     .help = "run | restart | induction: positions run on across copies, restart at 0 in each, or put a "
             "later copy's piece i where the first copy's piece i + 1 is (default run)"},
    {.name = "model", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.model), .input = 3,
     .help = "attention, repo-z, repo-repeat: checkpoint (.safetensors) or (attention) Hugging Face model folder"},
    {.name = "adapter", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.adapter), .input = 4,
     .help = "attention, repo-z, repo-repeat: file of finetune --save whose LoRA adapters are merged into --model "
             "(its head is not used)"},
    {.name = "text", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.text),
     .help = "attention, repo-z, repo-repeat: the sentence"},
    {.name = "data", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.data), .input = 5,
     .help = "attention, repo-z, repo-repeat: a CoNLL file to take the sentence from"},
    {.name = "sentence", .type = ARG_INT, .offset = offsetof(AttentionOptions, run.sentence),
     .help = "attention, repo-z, repo-repeat: index of the sentence in --data (default 0)"},
    {.name = "mask", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.mask),
     .help = "attention, repo-z, repo-repeat: mask plan causal | middle | full | layer list (default causal)"},
    {.name = "layer", .type = ARG_INT, .offset = offsetof(AttentionOptions, run.layer),
     .help = "attention, repo-z, repo-repeat: layer to draw (default the last)"},
    {.name = "head", .type = ARG_STRING, .offset = offsetof(AttentionOptions, run.head),
     .help = "attention, flow: head number or mean (default mean); repo-z, repo-repeat: head number (default 0)"},
    {.name = "overview", .type = ARG_FLAG, .offset = offsetof(AttentionOptions, overview),
     .help = "attention: the layer x head grid"},
    {.name = "last-copy-only", .type = ARG_FLAG, .offset = offsetof(AttentionOptions, last_copy_only),
     .help = "attention: only what the last copy sends into earlier copies (explorer key b)"},
    {.name = "scale", .type = ARG_STRING, .offset = offsetof(AttentionOptions, scale),
     .help = "attention: fixed (0..1) | per-head | log (default fixed)"},
    {.name = "ablate-heads", .type = ARG_STRING, .offset = offsetof(AttentionOptions, ablate_heads),
     .help = "attention: L.H[,L.H...]: take head H of layer L away (its output zeroed before o_proj; "
             "default none)"},
};

/* The map to draw and its scale, from --scale, --head and --r. 0 or -1. */
static int read_choices(const AttentionOptions *o, AttentionScale *scale, int *head, int *r, SrError *err)
{
    if (attention_scale_parse(o->scale ? o->scale : "fixed", scale))
        return sr_fail(err, "--scale must be fixed, per-head or log, got '%s'", o->scale);
    if (figure_request_head(o->run.head ? o->run.head : "mean", FIGURE_HEAD_MAX, head))
        return sr_fail(err, "--head must be a head number or mean, got '%s'", o->run.head);
    if (o->run.r && figure_request_one_r(o->run.r, r))
        return sr_fail(err, "--r must be one repetition count >= 0 for attention, got '%s'", o->run.r);
    return 0;
}

/* Record the map drawn: layer, head, scale and whether it is the overview. */
static void add_map(cJSON *manifest, const AttentionData *d)
{
    cJSON_AddNumberToObject(manifest, "layer", d->layer);
    figure_manifest_head(manifest, d->head);
    cJSON_AddStringToObject(manifest, "scale", attention_scale_name(d->scale));
    cJSON_AddBoolToObject(manifest, "overview", d->overview);
}

/* Record the heads taken away (NULL: none), and say so in the caption. */
static void add_ablated(cJSON *manifest, AttentionData *d, const char *ablate_heads)
{
    cJSON_AddStringToObject(manifest, "ablate_heads", ablate_heads ? ablate_heads : "none");
    if (!ablate_heads) return;
    size_t used = strlen(d->meta.caption);
    snprintf(d->meta.caption + used, sizeof d->meta.caption - used,
             " Heads taken away (output zeroed before o_proj): %.200s.", ablate_heads);
}

/* Run --model on the sentence repeated r times and select the map of
 * --layer and head, on the scale, with the `b` filter of --last-copy-only;
 * the maps drawn (the layer, or every layer for the overview) computed
 * here. 0 or -1. */
static int run_model(AttentionData *d, const AttentionOptions *o, const char *text, int r, int head,
                     AttentionScale scale, RepeatBos *bos, RepeatSep sep, RepeatPositions positions, long long *seed,
                     SrError *err)
{
    const FigureModelRun *run = &o->run;
    if (attention_data_from_model(d, run->model, run->adapter, text, r, bos, run->bos != NULL, sep, positions,
                                  run->mask, o->ablate_heads, seed, err))
        return -1;
    d->overview = o->overview;
    d->scale = scale;
    if (attention_select(d, run->layer >= 0 ? run->layer : d->n_layers - 1, head, err)) return -1;
    if (o->last_copy_only) attention_last_copy_visible(d, d->visible); /* the explorer's `b` filter */
    return d->overview ? attention_maps_compute_all(d->maps, err) : attention_maps_compute(d->maps, d->layer, err);
}

/* attention: --model with --text or --data, --r, --bos, --sep, --mask,
 * --copy-positions, --layer, --head, --scale, --overview, --last-copy-only. */
static int attention_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const AttentionOptions *o = options;
    AttentionData *d = data;
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions positions;
    AttentionScale scale;
    int r = 1, head;
    if (figure_request_repeat(o->run.bos, o->run.sep, "per-copy", &bos, &sep, err)) return -1;
    if (figure_request_copy_positions(o->run.copy_positions, &positions, err)) return -1;
    if (read_choices(o, &scale, &head, &r, err)) return -1;
    if (!o->run.model) return sr_fail(err, "attention needs --model FILE");
    if (!o->run.text == !o->run.data)
        return sr_fail(err, "attention needs either --text \"a sentence\" or --data FILE.conll");
    char *text, source[400], checksum[17];
    if (figure_request_sentence(&o->run, &text, source, sizeof source, err)) return -1;
    if (run_model(d, o, text, r, head, scale, &bos, sep, positions, seed, err)) {
        free(text);
        return -1;
    }
    if (model_checksum(o->run.model, checksum, err) != 0) snprintf(checksum, sizeof checksum, "?");
    attention_data_describe(d, d->overview, o->run.model, o->run.adapter, checksum, *seed, text, source, r, bos, sep,
                            o->run.mask);
    figure_manifest_model_run(manifest, &o->run, text, r, bos, sep, positions);
    add_map(manifest, d);
    add_ablated(manifest, d, o->ablate_heads);
    free(text);
    int n_unknown, n_first;
    attention_data_unknown(d, &n_unknown, &n_first);
    figure_request_warn_unknown("plot", o->run.model, n_unknown, n_first);
    return 0;
}

/* Draw the map, or the overview (AttentionData). */
static int attention_paint(cairo_t *cr, const void *data, double w, double h)
{
    const AttentionData *d = data;
    return d->overview ? paint_attention_overview(cr, d, w, h) : paint_attention(cr, d, w, h);
}

/* The numbers behind it as CSV: the map, or every map of the overview. */
static void attention_csv(const void *data, FILE *out)
{
    const AttentionData *d = data;
    attention_data_write_csv(d, out, d->overview);
}

/* Release what the data of the attention figure holds. */
static void attention_free(void *data)
{
    attention_data_free(data);
}

/* The default height: the overview's is smaller. */
static double attention_height(const void *data)
{
    const AttentionData *d = data;
    return d->overview ? 1200 : 1300;
}

/* The plot options of a view of the forward on screen: [--overview], the
 * model run, the layer, the head, the scale and the `b` filter. */
static void attention_command(PlotWords *w, const ViewContext *c, int overview)
{
    if (overview) plot_words_add(w, "--overview");
    plot_words_model_run(w, c->src, c->forward_sentence, c->forward_r, c->bos, c->sep);
    plot_words_int(w, "--layer", c->layer); /* the overview frames this map */
    if (c->head >= 0) plot_words_int(w, "--head", c->head);
    else plot_words_option(w, "--head", "mean");
    plot_words_option(w, "--scale", attention_scale_name(c->scale));
    if (c->last_copy_only) plot_words_add(w, "--last-copy-only");
}

/* The one map's plot options. */
static void map_command(PlotWords *w, const ViewContext *c)
{
    attention_command(w, c, 0);
}

/* The overview's plot options. */
static void overview_command(PlotWords *w, const ViewContext *c)
{
    attention_command(w, c, 1);
}

/* data (an AttentionData) = the forward's maps, borrowed, with the map, scale
 * and filter on screen and the words of `seqrep plot attention`; ready when
 * the maps it draws are (the maps' thread computes them meanwhile). */
static int attention_derive(void *data, const ViewContext *c, int overview, SrError *err)
{
    if (!c->forward) return VIEW_COMPUTING;
    AttentionData *d = data;
    *d = c->forward->attention;
    d->overview = overview;
    d->layer = c->layer < d->n_layers ? c->layer : d->n_layers - 1;
    d->head = c->head < d->n_heads ? c->head : -1;
    d->scale = c->scale;
    d->visible = c->last_copy_only ? c->forward->last_copy_visible : c->forward->attention.visible;
    attention_data_describe(d, overview, c->src->model, c->src->adapter, c->checksum, c->seed, c->forward_text,
                            c->forward_source, c->forward_r, c->bos, c->sep, c->src->mask);
    if (c->snapshot) { /* --series: the snapshot in the title */
        size_t used = strlen(d->meta.title);
        snprintf(d->meta.title + used, sizeof d->meta.title - used, ", %s", c->snapshot);
    }
    int ready = overview ? attention_maps_want_all(d->maps, err) : attention_maps_want(d->maps, d->layer, err);
    return ready < 0 ? -1 : ready ? VIEW_READY : VIEW_COMPUTING;
}

/* The one map's data. */
static int map_derive(void *data, const ViewContext *c, SrError *err)
{
    return attention_derive(data, c, 0, err);
}

/* The overview's data. */
static int overview_derive(void *data, const ViewContext *c, SrError *err)
{
    return attention_derive(data, c, 1, err);
}

/* The cell under (x, y) of the map drawn w x h: 1 and (*query, *key), or 0. */
static int attention_cell(cairo_t *cr, const void *data, double w, double h, double x, double y, int *query, int *key)
{
    AttentionLayout L;
    attention_layout(cr, data, w, h, &L);
    return attention_cell_at(&L, data, x, y, query, key);
}

/* The T x T cells of the map drawn w x h: their rectangle and side. */
static void attention_grid(cairo_t *cr, const void *data, double w, double h, FigureRect *grid, double *cell, int *n)
{
    AttentionLayout L;
    attention_layout(cr, data, w, h, &L);
    *grid = L.map;
    *cell = L.cell;
    *n = ((const AttentionData *)data)->T;
}

/* The hover text of cell (query, key) of the map drawn. */
static void attention_tooltip_of(const void *data, const ViewContext *c, int query, int key, char *out, size_t cap)
{
    const AttentionData *d = data;
    (void)c;
    attention_tooltip(d, d->layer, d->head, query, key, out, cap);
}

/* The maps a view shows: its data. */
static const AttentionData *attention_maps_of(const void *data)
{
    return data;
}

static const FigureView VIEWS[] = {
    {
        .name = "attention",
        .home = 1,
        .layers = VIEW_ANY_LAYER,
        .heads = 1,
        .pins = 1,
        .tour = TOUR_LAYERS,
        .tour_text = "tour: what layer 0 attends to, mean over heads; <space> goes deeper",
        .command = map_command,
        .derive = map_derive,
        .borrows = 1,
        .under_mouse = attention_cell,
        .tooltip = attention_tooltip_of,
        .cell_grid = attention_grid,
        .maps = attention_maps_of,
    },
    {
        .name = "overview",
        .key = 'o',
        .again = "attention",
        .layers = VIEW_ANY_LAYER,
        .heads = 1,
        .panels = 1,
        .tour = TOUR_STOP,
        .tour_text = "tour: every layer and head at once",
        .command = overview_command,
        .derive = overview_derive,
        .borrows = 1,
        .maps = attention_maps_of,
    },
};

const FigureRow ATTENTION_FIGURE = {
    .name = "attention",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(AttentionOptions),
    .defaults = &DEFAULTS,
    .data_size = sizeof(AttentionData),
    .meta_offset = offsetof(AttentionData, meta),
    .load = attention_load,
    .paint = attention_paint,
    .write_csv = attention_csv,
    .free = attention_free,
    .width = 1500,
    .height = 1300,
    .height_of = attention_height,
    .views = VIEWS,
    .n_views = ARGS_COUNT(VIEWS),
};
