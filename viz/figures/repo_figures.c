/* repo_figures.c — the RePo figures in the table of figures. */
#include "figures/repo_figures.h"

#include <stdlib.h>

#include "figures/figure_manifest.h"
#include "repo/paint_repo_needle.h"
#include "repo/paint_repo_range.h"
#include "repo/paint_repo_z.h"
#include "repo/repo_z_attention.h"

/* z of `head` computed here: --model run on the sentence, repeated --r
 * times. */
static int z_from_model(Figure *f, const FigureRequest *q, const char *name, int head, cJSON *manifest,
                        long long *seed, SrError *err)
{
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions positions;
    int r = 1;
    if (!q->model)
        return sr_fail(err, "%s needs --results FILE (a z CSV) or --model FILE with --text or --data", name);
    if (!q->text == !q->data) return sr_fail(err, "--model needs either --text \"a sentence\" or --data FILE.conll");
    if (figure_request_repeat(q, "per-copy", &bos, &sep, err)) return -1;
    if (figure_request_copy_positions(q, &positions, err)) return -1;
    if (q->r && figure_request_one_r(q->r, &r))
        return sr_fail(err, "--r must be one repetition count >= 0, got '%s'", q->r);
    char *text, source[400], described[1200];
    if (figure_request_sentence(q, &text, source, sizeof source, err)) return -1;
    AttentionData a;
    int rc = attention_data_from_model(&a, q->model, q->adapter, text, r, &bos, q->bos != NULL, sep, positions,
                                       q->mask, seed, err);
    if (rc == 0) {
        repo_z_source(described, sizeof described, q->model, q->adapter, text, source, r, bos, sep, q->mask);
        rc = repo_z_data_from_attention(&f->repo_z, &a, q->layer, head, described, err);
        attention_data_free(&a);
    }
    if (rc == 0) figure_manifest_model_run(manifest, q, text, r, bos, sep, positions);
    free(text);
    return rc ? -1 : 0;
}

/* The z of repo-z or repo-repeat (called name in messages): from a z CSV
 * (--results) or from --model on a sentence, not both; --head a number. */
static int load_z(Figure *f, const FigureRequest *q, const char *name, cJSON *manifest, long long *seed,
                  SrError *err)
{
    int head = 0;
    if (q->head && (figure_request_head(q->head, FIGURE_HEAD_MAX, &head) || head < 0))
        return sr_fail(err, "--head must be a head number for %s (z is one position per head), got '%s'", name,
                       q->head);
    if (!q->results) return z_from_model(f, q, name, head, manifest, seed, err);
    if (q->model || q->adapter || q->text || q->data || q->r || q->bos || q->sep || q->mask || q->copy_positions)
        return sr_fail(err, "%s takes either --results FILE (a z CSV) or --model with a sentence, not both", name);
    if (repo_z_data_load(&f->repo_z, q->results, q->layer, head, err)) return -1;
    figure_manifest_input(manifest, "results", q->results);
    return 0;
}

/* Record the layer and head the z figure draws. */
static void add_z_choice(cJSON *manifest, const RepoZData *d)
{
    cJSON_AddNumberToObject(manifest, "layer", d->layer);
    cJSON_AddNumberToObject(manifest, "head", d->head);
}

int repo_z_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    if (load_z(f, q, "repo-z", manifest, seed, err)) return -1;
    add_z_choice(manifest, &f->repo_z);
    return 0;
}

int repo_repeat_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    if (load_z(f, q, "repo-repeat", manifest, seed, err)) return -1;
    if (f->repo_z.n_copies < 2)
        return sr_fail(err, "repo-repeat compares the copies of a repeated input: %s",
                       q->results ? "this z CSV has one copy (run repo-positions with --r 1 or more)"
                                  : "give --r 1 or more");
    add_z_choice(manifest, &f->repo_z);
    return 0;
}

int repo_z_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_repo_z(cr, &f->repo_z, w, h);
}

int repo_repeat_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_repo_repeat(cr, &f->repo_z, w, h);
}

void repo_z_figure_write_csv(const Figure *f, FILE *out)
{
    repo_z_data_write_csv(&f->repo_z, out);
}

void repo_z_figure_free(Figure *f)
{
    repo_z_data_free(&f->repo_z);
}

FigureMeta *repo_z_figure_meta(Figure *f)
{
    return &f->repo_z.meta;
}

/* The --results a repo-eval figure needs: fails naming the figure and the
 * file of repo-eval --figures DIR it reads. */
static int need_results(const FigureRequest *q, const char *name, const char *file, SrError *err)
{
    if (q->results) return 0;
    return sr_fail(err, "%s needs --results FILE (from seqrep repo-eval --figures DIR: %s)", name, file);
}

int repo_range_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    if (need_results(q, "repo-range", "TASK-range.csv", err)) return -1;
    if (repo_range_data_load(&f->repo_range, q->results, err)) return -1;
    figure_manifest_input(manifest, "results", q->results);
    return 0;
}

int repo_range_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_repo_range(cr, &f->repo_range, w, h);
}

void repo_range_figure_write_csv(const Figure *f, FILE *out)
{
    repo_range_data_write_csv(&f->repo_range, out);
}

void repo_range_figure_free(Figure *f)
{
    repo_range_data_free(&f->repo_range);
}

FigureMeta *repo_range_figure_meta(Figure *f)
{
    return &f->repo_range.meta;
}

int repo_needle_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    if (need_results(q, "repo-needle", "TASK-attention.csv", err)) return -1;
    if (repo_needle_data_load(&f->repo_needle, q->results, q->length, err)) return -1;
    figure_manifest_input(manifest, "results", q->results);
    cJSON_AddNumberToObject(manifest, "length", f->repo_needle.length);
    return 0;
}

int repo_needle_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_repo_needle(cr, &f->repo_needle, w, h);
}

void repo_needle_figure_write_csv(const Figure *f, FILE *out)
{
    repo_needle_data_write_csv(&f->repo_needle, out);
}

void repo_needle_figure_free(Figure *f)
{
    repo_needle_data_free(&f->repo_needle);
}

FigureMeta *repo_needle_figure_meta(Figure *f)
{
    return &f->repo_needle.meta;
}
