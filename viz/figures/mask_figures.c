/* mask_figures.c — the mask and proportion figures in the table of figures. */
#include "figures/mask_figures.h"

#include <stdlib.h>

#include "figures/figure_manifest.h"
#include "mask/paint_mask.h"
#include "mask/paint_proportion.h"

int mask_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    RepeatBos bos;
    RepeatSep sep;
    int r;
    if (q->n < 1 || !q->r) return sr_fail(err, "mask needs --n N and --r R");
    if (figure_request_one_r(q->r, &r))
        return sr_fail(err, "--r must be one repetition count >= 0 for mask, got '%s'", q->r);
    if (figure_request_repeat(q, "none", &bos, &sep, err)) return -1;
    if (mask_data_build(&f->mask, q->n, r, bos, sep, q->window, err)) return -1;
    cJSON_AddNumberToObject(manifest, "n", q->n);
    cJSON_AddNumberToObject(manifest, "r", r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    if (q->window) cJSON_AddNumberToObject(manifest, "window", q->window);
    cJSON_AddNumberToObject(manifest, "full_share", share_value(f->mask.full_share));
    return 0;
}

int mask_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_mask(cr, &f->mask, w, h);
}

void mask_figure_write_csv(const Figure *f, FILE *out)
{
    mask_data_write_csv(&f->mask, out);
}

void mask_figure_free(Figure *f)
{
    mask_data_free(&f->mask);
}

FigureMeta *mask_figure_meta(Figure *f)
{
    return &f->mask.meta;
}

/* proportion counted here: --n, --r LIST, --bos, --sep. */
static int count_proportion(Figure *f, const FigureRequest *q, cJSON *manifest, SrError *err)
{
    RepeatBos bos;
    RepeatSep sep;
    if (q->n < 1 || !q->r) return sr_fail(err, "proportion needs --results FILE, or --n N and --r LIST");
    if (figure_request_repeat(q, "none", &bos, &sep, err)) return -1;
    int *values, n_values;
    if (repeat_parse_r_list(q->r, &values, &n_values, err)) return -1;
    int rc = proportion_data_count(&f->proportion, q->n, values, n_values, bos, sep, err);
    free(values);
    if (rc) return -1;
    cJSON_AddNumberToObject(manifest, "n", q->n);
    cJSON_AddStringToObject(manifest, "r", q->r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    return 0;
}

int proportion_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    if (!q->results) return count_proportion(f, q, manifest, err);
    if (q->n || q->r || q->bos || q->sep)
        return sr_fail(err, "proportion takes either --results FILE or --n and --r, not both");
    if (proportion_data_load(&f->proportion, q->results, err)) return -1;
    figure_manifest_input(manifest, "results", q->results);
    return 0;
}

int proportion_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_proportion(cr, &f->proportion, w, h);
}

void proportion_figure_write_csv(const Figure *f, FILE *out)
{
    proportion_data_write_csv(&f->proportion, out);
}

void proportion_figure_free(Figure *f)
{
    proportion_data_free(&f->proportion);
}

FigureMeta *proportion_figure_meta(Figure *f)
{
    return &f->proportion.meta;
}
