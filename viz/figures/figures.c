/* figures.c — dispatch from a figure's kind to its data, painter and numbers. */
#include "figures/figures.h"

#include <string.h>

static const char *const NAMES[FIGURE_COUNT] = {"mask", "proportion", "attention", "layers", "exit",
                                                "flow", "repo-z", "repo-repeat", "repo-range", "repo-needle"};

int figure_kind_parse(const char *name, FigureKind *out)
{
    for (int i = 0; i < FIGURE_COUNT; i++)
        if (strcmp(name, NAMES[i]) == 0) {
            *out = (FigureKind)i;
            return 0;
        }
    return -1;
}

const char *figure_kind_name(FigureKind kind)
{
    return kind >= 0 && kind < FIGURE_COUNT ? NAMES[kind] : "?";
}

const char *figure_kind_list(void)
{
    return "mask, proportion, attention, layers, exit, flow, repo-z, repo-repeat, repo-range, repo-needle";
}

FigureMeta *figure_meta(Figure *f)
{
    switch (f->kind) {
    case FIGURE_MASK: return &f->mask.meta;
    case FIGURE_PROPORTION: return &f->proportion.meta;
    case FIGURE_ATTENTION: return &f->attention.meta;
    case FIGURE_LAYERS: return &f->layers.meta;
    case FIGURE_EXIT: return &f->exit.meta;
    case FIGURE_REPO_Z:
    case FIGURE_REPO_REPEAT: return &f->repo_z.meta;
    case FIGURE_REPO_RANGE: return &f->repo_range.meta;
    case FIGURE_REPO_NEEDLE: return &f->repo_needle.meta;
    default: return &f->flow.meta;
    }
}

int figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    switch (f->kind) {
    case FIGURE_MASK: return paint_mask(cr, &f->mask, w, h);
    case FIGURE_PROPORTION: return paint_proportion(cr, &f->proportion, w, h);
    case FIGURE_ATTENTION:
        return f->overview ? paint_attention_overview(cr, &f->attention, w, h)
                           : paint_attention(cr, &f->attention, w, h);
    case FIGURE_LAYERS: return paint_layers(cr, &f->layers, w, h);
    case FIGURE_EXIT: return paint_exit(cr, &f->exit, w, h);
    case FIGURE_REPO_Z: return paint_repo_z(cr, &f->repo_z, w, h);
    case FIGURE_REPO_REPEAT: return paint_repo_repeat(cr, &f->repo_z, w, h);
    case FIGURE_REPO_RANGE: return paint_repo_range(cr, &f->repo_range, w, h);
    case FIGURE_REPO_NEEDLE: return paint_repo_needle(cr, &f->repo_needle, w, h);
    default: return paint_flow(cr, &f->flow, w, h);
    }
}

void figure_write_numbers(const Figure *f, FILE *out)
{
    switch (f->kind) {
    case FIGURE_MASK: mask_data_write_csv(&f->mask, out); break;
    case FIGURE_PROPORTION: proportion_data_write_csv(&f->proportion, out); break;
    case FIGURE_ATTENTION: attention_data_write_csv(&f->attention, out, f->overview); break;
    case FIGURE_LAYERS: layers_data_write_csv(&f->layers, out); break;
    case FIGURE_EXIT: exit_data_write_csv(&f->exit, out); break;
    case FIGURE_REPO_Z:
    case FIGURE_REPO_REPEAT: repo_z_data_write_csv(&f->repo_z, out); break;
    case FIGURE_REPO_RANGE: repo_range_data_write_csv(&f->repo_range, out); break;
    case FIGURE_REPO_NEEDLE: repo_needle_data_write_csv(&f->repo_needle, out); break;
    default: flow_data_write_csv(&f->flow, out); break;
    }
}

void figure_default_size(const Figure *f, double *w, double *h)
{
    *w = 1600;
    *h = 1000;
    if (f->kind == FIGURE_MASK) *w = 1500, *h = 1150;
    if (f->kind == FIGURE_ATTENTION) *w = 1500, *h = f->overview ? 1200 : 1300;
}

void figure_free(Figure *f)
{
    switch (f->kind) {
    case FIGURE_MASK: mask_data_free(&f->mask); break;
    case FIGURE_PROPORTION: proportion_data_free(&f->proportion); break;
    case FIGURE_ATTENTION: attention_data_free(&f->attention); break;
    case FIGURE_LAYERS: layers_data_free(&f->layers); break;
    case FIGURE_EXIT: exit_data_free(&f->exit); break;
    case FIGURE_REPO_Z:
    case FIGURE_REPO_REPEAT: repo_z_data_free(&f->repo_z); break;
    case FIGURE_REPO_RANGE: repo_range_data_free(&f->repo_range); break;
    case FIGURE_REPO_NEEDLE: repo_needle_data_free(&f->repo_needle); break;
    default: flow_data_free(&f->flow); break;
    }
}
