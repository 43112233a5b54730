/* repo_z_figure.c — the rows of the two figures of the positions z a RePo
 * model computes (repo/paint_repo_z.h): repo-z, z against the token index,
 * and repo-repeat, z per copy of a repeated sentence; from a z CSV or from
 * --model run on a sentence. Their views in the explorer take z from the
 * forward the worker computed, for the layer and head on screen (z, and z
 * again). */
#include <stddef.h>
#include <stdlib.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_request.h"
#include "figure_row/figure_row.h"
#include "repo/paint_repo_z.h"
#include "repo/repo_z_attention.h"

/* The options of `seqrep plot repo-z` and `repo-repeat`. */
typedef struct {
    FigureModelRun run;
    const char *results;
} RepoZOptions;

static const RepoZOptions DEFAULTS = {.run = {.layer = -1}};

static const FigureOption OPTIONS[] = {
    {.name = "r", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.r)},
    {.name = "bos", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.bos)},
    {.name = "sep", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.sep)},
    {.name = "copy-positions", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.copy_positions)},
    {.name = "model", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.model)},
    {.name = "adapter", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.adapter)},
    {.name = "text", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.text)},
    {.name = "data", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.data)},
    {.name = "sentence", .type = ARG_INT, .offset = offsetof(RepoZOptions, run.sentence)},
    {.name = "mask", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.mask)},
    {.name = "layer", .type = ARG_INT, .offset = offsetof(RepoZOptions, run.layer)},
    {.name = "head", .type = ARG_STRING, .offset = offsetof(RepoZOptions, run.head)},
    {.name = "results", .type = ARG_STRING, .offset = offsetof(RepoZOptions, results)},
};

/* z of `head` computed here: --model run on the sentence, repeated --r
 * times (the figure called name in messages). */
static int z_from_model(RepoZData *d, const FigureModelRun *run, const char *name, int head, cJSON *manifest,
                        long long *seed, SrError *err)
{
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions positions;
    int r = 1;
    if (!run->model)
        return sr_fail(err, "%s needs --results FILE (a z CSV) or --model FILE with --text or --data", name);
    if (!run->text == !run->data) return sr_fail(err, "--model needs either --text \"a sentence\" or --data FILE.conll");
    if (figure_request_repeat(run->bos, run->sep, "per-copy", &bos, &sep, err)) return -1;
    if (figure_request_copy_positions(run->copy_positions, &positions, err)) return -1;
    if (run->r && figure_request_one_r(run->r, &r))
        return sr_fail(err, "--r must be one repetition count >= 0, got '%s'", run->r);
    char *text, source[400], described[1200];
    if (figure_request_sentence(run, &text, source, sizeof source, err)) return -1;
    AttentionData a;
    int rc = attention_data_from_model(&a, run->model, run->adapter, text, r, &bos, run->bos != NULL, sep, positions,
                                       run->mask, NULL, seed, err);
    if (rc == 0) {
        repo_z_source(described, sizeof described, run->model, run->adapter, text, source, r, bos, sep, run->mask);
        rc = repo_z_data_from_attention(d, &a, run->layer, head, described, err);
        attention_data_free(&a);
    }
    if (rc == 0) figure_manifest_model_run(manifest, run, text, r, bos, sep, positions);
    free(text);
    return rc ? -1 : 0;
}

/* The z of repo-z or repo-repeat (called name in messages): from a z CSV
 * (--results) or from --model on a sentence, not both; --head a number;
 * the layer and head drawn recorded. */
static int load_z(RepoZData *d, const RepoZOptions *o, const char *name, cJSON *manifest, long long *seed,
                  SrError *err)
{
    const FigureModelRun *run = &o->run;
    int head = 0;
    if (run->head && (figure_request_head(run->head, FIGURE_HEAD_MAX, &head) || head < 0))
        return sr_fail(err, "--head must be a head number for %s (z is one position per head), got '%s'", name,
                       run->head);
    if (!o->results) {
        if (z_from_model(d, run, name, head, manifest, seed, err)) return -1;
    } else if (run->model || run->adapter || run->text || run->data || run->r || run->bos || run->sep || run->mask ||
               run->copy_positions) {
        return sr_fail(err, "%s takes either --results FILE (a z CSV) or --model with a sentence, not both", name);
    } else {
        if (repo_z_data_load(d, o->results, run->layer, head, err)) return -1;
        figure_manifest_input(manifest, "results", o->results);
    }
    return 0;
}

/* Record the layer and head the z figure draws. */
static void add_z_choice(cJSON *manifest, const RepoZData *d)
{
    cJSON_AddNumberToObject(manifest, "layer", d->layer);
    cJSON_AddNumberToObject(manifest, "head", d->head);
}

/* repo-z: z of --layer and --head. */
static int load_repo_z(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    if (load_z(data, options, "repo-z", manifest, seed, err)) return -1;
    add_z_choice(manifest, data);
    return 0;
}

/* repo-repeat: the same z, of a repeated input (two copies or more). */
static int load_repo_repeat(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    const RepoZOptions *o = options;
    RepoZData *d = data;
    if (load_z(d, o, "repo-repeat", manifest, seed, err)) return -1;
    if (d->n_copies < 2)
        return sr_fail(err, "repo-repeat compares the copies of a repeated input: %s",
                       o->results ? "this z CSV has one copy (run repo-positions with --r 1 or more)"
                                  : "give --r 1 or more");
    add_z_choice(manifest, d);
    return 0;
}

/* Draw z per token (RepoZData). */
static int paint_z(cairo_t *cr, const void *data, double w, double h)
{
    return paint_repo_z(cr, data, w, h);
}

/* Draw z per copy (RepoZData). */
static int paint_repeat(cairo_t *cr, const void *data, double w, double h)
{
    return paint_repo_repeat(cr, data, w, h);
}

/* The numbers behind a z figure as CSV. */
static void z_csv(const void *data, FILE *out)
{
    repo_z_data_write_csv(data, out);
}

/* Release what the data of a z figure holds. */
static void z_free(void *data)
{
    repo_z_data_free(data);
}

/* The views' plot options: the model run of the forward on screen, the
 * layer and the head (the last one when the mean is on). */
static void z_command(PlotWords *w, const ViewContext *c)
{
    plot_words_model_run(w, c->src, c->forward_sentence, c->forward_r, c->bos, c->sep);
    plot_words_int(w, "--layer", c->layer);
    plot_words_int(w, "--head", c->head >= 0 ? c->head : c->last_head);
}

/* data (a RepoZData) = z of the layer and head on screen, from the forward,
 * described as `seqrep plot repo-z --model` describes it. */
static int z_derive(void *data, const ViewContext *c, SrError *err)
{
    if (!c->forward) return VIEW_COMPUTING;
    char source[1200];
    const ExplorerSources *src = c->src;
    repo_z_source(source, sizeof source, src->model, src->adapter, c->forward_text, c->forward_source, c->forward_r,
                  c->bos, c->sep, src->mask);
    int head = c->head >= 0 ? c->head : c->last_head;
    return repo_z_data_from_attention(data, &c->forward->attention, c->layer, head, source, err) ? -1 : VIEW_READY;
}

/* The point under (x, y) of the z figure drawn w x h, as query and key. */
static int z_point(cairo_t *cr, const void *data, double w, double h, double x, double y, int *query, int *key)
{
    *query = *key = repo_z_point_at(cr, data, w, h, x, y);
    return *query >= 0;
}

/* The hover text of point `query`. */
static void z_tooltip_of(const void *data, const ViewContext *c, int query, int key, char *out, size_t cap)
{
    (void)c;
    (void)key;
    repo_z_tooltip(data, query, out, cap);
}

static const FigureView Z_VIEWS[] = {{
    .name = "repo-z",
    .key = 'z',
    .again = "repo-repeat",
    .layers = VIEW_REPO_LAYERS,
    .heads = 1,
    .one_head = "z is one position per head",
    .tour = TOUR_RESULT,
    .needs = "the model has no RePo weights (train-lm --positions repo)",
    .command = z_command,
    .derive = z_derive,
    .under_mouse = z_point,
    .tooltip = z_tooltip_of,
}};

static const FigureView REPEAT_VIEWS[] = {{
    .name = "repo-repeat",
    .key = 'z',
    .again = "repo-z",
    .layers = VIEW_REPO_LAYERS,
    .heads = 1,
    .one_head = "z is one position per head",
    .needs_copies = 1,
    .tour = TOUR_RESULT,
    .needs = "the model has no RePo weights (train-lm --positions repo)",
    .command = z_command,
    .derive = z_derive,
}};

const FigureRow REPO_Z_FIGURE = {
    .name = "repo-z",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(RepoZOptions),
    .defaults = &DEFAULTS,
    .data_size = sizeof(RepoZData),
    .meta_offset = offsetof(RepoZData, meta),
    .load = load_repo_z,
    .paint = paint_z,
    .write_csv = z_csv,
    .free = z_free,
    .width = 1600,
    .height = 1000,
    .views = Z_VIEWS,
    .n_views = 1,
};

const FigureRow REPO_REPEAT_FIGURE = {
    .name = "repo-repeat",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(RepoZOptions),
    .defaults = &DEFAULTS,
    .data_size = sizeof(RepoZData),
    .meta_offset = offsetof(RepoZData, meta),
    .load = load_repo_repeat,
    .paint = paint_repeat,
    .write_csv = z_csv,
    .free = z_free,
    .width = 1600,
    .height = 1000,
    .views = REPEAT_VIEWS,
    .n_views = 1,
};
