/* attention_figure.c — the attention figure in the table of figures. */
#include "figures/attention_figure.h"

#include <stdlib.h>

#include "attention/paint_attention.h"
#include "attention/paint_attention_overview.h"
#include "figures/figure_manifest.h"
#include "runs/manifest.h"

/* The map to draw and its scale, from --scale, --head and --r. 0 or -1. */
static int read_choices(const FigureRequest *q, AttentionScale *scale, int *head, int *r, SrError *err)
{
    if (attention_scale_parse(q->scale ? q->scale : "fixed", scale))
        return sr_fail(err, "--scale must be fixed, per-head or log, got '%s'", q->scale);
    if (figure_request_head(q->head ? q->head : "mean", FIGURE_HEAD_MAX, head))
        return sr_fail(err, "--head must be a head number or mean, got '%s'", q->head);
    if (q->r && figure_request_one_r(q->r, r))
        return sr_fail(err, "--r must be one repetition count >= 0 for attention, got '%s'", q->r);
    return 0;
}

/* Record the map drawn: layer, head, scale and whether it is the overview. */
static void add_map(cJSON *manifest, const Figure *f)
{
    const AttentionData *d = &f->attention;
    cJSON_AddNumberToObject(manifest, "layer", d->layer);
    figure_manifest_head(manifest, d->head);
    cJSON_AddStringToObject(manifest, "scale", attention_scale_name(d->scale));
    cJSON_AddBoolToObject(manifest, "overview", f->overview);
}

int attention_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions positions;
    AttentionScale scale;
    int r = 1, head;
    f->overview = q->overview;
    if (figure_request_repeat(q, "per-copy", &bos, &sep, err)) return -1;
    if (figure_request_copy_positions(q, &positions, err)) return -1;
    if (read_choices(q, &scale, &head, &r, err)) return -1;
    if (!q->model) return sr_fail(err, "attention needs --model FILE");
    if (!q->text == !q->data)
        return sr_fail(err, "attention needs either --text \"a sentence\" or --data FILE.conll");
    char *text, source[400];
    if (figure_request_sentence(q, &text, source, sizeof source, err)) return -1;
    AttentionData *d = &f->attention;
    int rc = attention_data_from_model(d, q->model, q->adapter, text, r, &bos, q->bos != NULL, sep, positions,
                                       q->mask, seed, err);
    if (rc == 0) {
        int layer = q->layer >= 0 ? q->layer : d->n_layers - 1;
        rc = attention_select(d, layer, head, err);
    }
    /* the maps the painter and the numbers read, computed here */
    if (rc == 0)
        rc = f->overview ? attention_maps_compute_all(d->maps, err) : attention_maps_compute(d->maps, d->layer, err);
    /* the explorer's `b` filter, so its saved frame and this figure agree */
    if (rc == 0 && q->last_copy_only) attention_last_copy_visible(d, d->visible);
    if (rc) {
        free(text);
        return -1;
    }
    d->scale = scale;
    char checksum[17];
    if (model_checksum(q->model, checksum, err) != 0) snprintf(checksum, sizeof checksum, "?");
    attention_data_describe(d, f->overview, q->model, q->adapter, checksum, *seed, text, source, r, bos, sep,
                            q->mask);
    figure_manifest_model_run(manifest, q, text, r, bos, sep, positions);
    add_map(manifest, f);
    free(text);
    return 0;
}

void attention_figure_warn_unknown(const Figure *f, const char *command, const char *model)
{
    int n_unknown, n_first;
    attention_data_unknown(&f->attention, &n_unknown, &n_first);
    figure_request_warn_unknown(command, model, n_unknown, n_first);
}

int attention_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return f->overview ? paint_attention_overview(cr, &f->attention, w, h)
                       : paint_attention(cr, &f->attention, w, h);
}

void attention_figure_write_csv(const Figure *f, FILE *out)
{
    attention_data_write_csv(&f->attention, out, f->overview);
}

void attention_figure_free(Figure *f)
{
    attention_data_free(&f->attention);
}

FigureMeta *attention_figure_meta(Figure *f)
{
    return &f->attention.meta;
}
