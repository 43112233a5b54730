/* result_figures.c — the layers, exit, flow and heads figures in the table
 * of figures. */
#include "figures/result_figures.h"

#include <stdlib.h>
#include <string.h>

#include "figures/figure_manifest.h"
#include "results/file_list.h"
#include "results/paint_exit.h"
#include "results/paint_flow.h"
#include "results/paint_heads.h"
#include "results/paint_layers.h"

int layers_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    if (!q->results) return sr_fail(err, "layers needs --results FILE[,FILE...] (probe CSVs)");
    const char *paths[FILE_LIST_MAX], *base[FILE_LIST_MAX];
    char *list = NULL, *base_list = NULL;
    int n = file_list_split(q->results, &list, paths, FILE_LIST_MAX);
    int n_base = q->baselines ? file_list_split(q->baselines, &base_list, base, FILE_LIST_MAX) : 0;
    const char *split = q->split ? q->split : "test";
    int rc;
    if (n < 0 || n_base < 0) rc = sr_fail(err, "out of memory");
    else if (n == 0) rc = sr_fail(err, "--results: no file given");
    else rc = layers_data_load(&f->layers, paths, n, split, base, n_base, err);
    if (rc == 0) {
        figure_manifest_inputs(manifest, "results", paths, n);
        if (n_base) figure_manifest_inputs(manifest, "baselines", base, n_base);
        cJSON_AddStringToObject(manifest, "split", split);
    }
    free(list);
    free(base_list);
    return rc;
}

int layers_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_layers(cr, &f->layers, w, h);
}

void layers_figure_write_csv(const Figure *f, FILE *out)
{
    layers_data_write_csv(&f->layers, out);
}

void layers_figure_free(Figure *f)
{
    layers_data_free(&f->layers);
}

FigureMeta *layers_figure_meta(Figure *f)
{
    return &f->layers.meta;
}

int exit_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    const char *cost = q->cost ? q->cost : "flops";
    if (strcmp(cost, "flops") != 0 && strcmp(cost, "seconds") != 0)
        return sr_fail(err, "--cost must be flops or seconds, got '%s'", cost);
    if (!q->results) return sr_fail(err, "exit needs --results FILE[,FILE...] (finetune or sweep CSVs)");
    const char *paths[FILE_LIST_MAX], *split = q->split ? q->split : "test";
    char *list = NULL;
    int n = file_list_split(q->results, &list, paths, FILE_LIST_MAX), rc;
    if (n < 0) rc = sr_fail(err, "out of memory");
    else if (n == 0) rc = sr_fail(err, "--results: no file given");
    else rc = exit_data_load(&f->exit, paths, n, cost, split, q->dataset, err);
    if (rc == 0) {
        figure_manifest_inputs(manifest, "results", paths, n);
        if (q->dataset) cJSON_AddStringToObject(manifest, "dataset", q->dataset);
        cJSON_AddStringToObject(manifest, "cost", cost);
        cJSON_AddStringToObject(manifest, "split", split);
    }
    free(list);
    return rc;
}

int exit_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_exit(cr, &f->exit, w, h);
}

void exit_figure_write_csv(const Figure *f, FILE *out)
{
    exit_data_write_csv(&f->exit, out);
}

void exit_figure_free(Figure *f)
{
    exit_data_free(&f->exit);
}

FigureMeta *exit_figure_meta(Figure *f)
{
    return &f->exit.meta;
}

int flow_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    int head;
    if (!q->results) return sr_fail(err, "flow needs --results FILE (from seqrep attnflow --out)");
    if (figure_request_head(q->head ? q->head : "mean", FIGURE_HEAD_MAX, &head))
        return sr_fail(err, "--head must be a head number or mean, got '%s'", q->head);
    if (flow_data_load(&f->flow, q->results, head, err)) return -1;
    figure_manifest_input(manifest, "results", q->results);
    figure_manifest_head(manifest, head);
    return 0;
}

int flow_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_flow(cr, &f->flow, w, h);
}

void flow_figure_write_csv(const Figure *f, FILE *out)
{
    flow_data_write_csv(&f->flow, out);
}

void flow_figure_free(Figure *f)
{
    flow_data_free(&f->flow);
}

FigureMeta *flow_figure_meta(Figure *f)
{
    return &f->flow.meta;
}

int heads_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    HeadScore scores[HEAD_N_SCORES] = {HEAD_COPY, HEAD_INDUCTION, HEAD_PREVIOUS, HEAD_SINK, HEAD_OWN_COPY};
    int n_scores = HEAD_N_SCORES;
    if (!q->results) return sr_fail(err, "heads needs --results FILE (from seqrep heads --out)");
    if (q->scores && head_scores_parse(q->scores, scores, &n_scores, err)) return -1;
    /* the manifest of seqrep heads beside the file names model, r and input */
    figure_manifest_input(manifest, "results", q->results);
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(manifest, "results_manifest");
    if (heads_data_load(&f->heads, q->results, scores, n_scores, input, err)) return -1;
    cJSON *names = cJSON_AddArrayToObject(manifest, "scores");
    for (int i = 0; i < n_scores; i++) cJSON_AddItemToArray(names, cJSON_CreateString(head_score_name(scores[i])));
    return 0;
}

int heads_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_heads(cr, &f->heads, w, h);
}

void heads_figure_write_csv(const Figure *f, FILE *out)
{
    heads_data_write_csv(&f->heads, out);
}

void heads_figure_free(Figure *f)
{
    heads_data_free(&f->heads);
}

FigureMeta *heads_figure_meta(Figure *f)
{
    return &f->heads.meta;
}
