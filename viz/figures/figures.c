/* figures.c — the table of figures, one row per figure, and the functions
 * that read it. */
#include "figures/figures.h"

#include <string.h>

#include "figures/attention_figure.h"
#include "figures/mask_figures.h"
#include "figures/repo_figures.h"
#include "figures/result_figures.h"
#include "figures/timeline_figure.h"

/* The options every figure takes. */
static const char *const COMMON_OPTIONS = "out size theme font title caption";

static const FigureRow ROWS[FIGURE_COUNT] = {
    [FIGURE_MASK] = {
        .name = "mask",
        .options = "n r bos sep window",
        .load = mask_figure_load,
        .paint = mask_figure_paint,
        .write_csv = mask_figure_write_csv,
        .free = mask_figure_free,
        .meta = mask_figure_meta,
        .width = 1500,
        .height = 1150,
    },
    [FIGURE_PROPORTION] = {
        .name = "proportion",
        .options = "n r bos sep results",
        .load = proportion_figure_load,
        .paint = proportion_figure_paint,
        .write_csv = proportion_figure_write_csv,
        .free = proportion_figure_free,
        .meta = proportion_figure_meta,
        .width = 1600,
        .height = 1000,
    },
    [FIGURE_ATTENTION] = {
        .name = "attention",
        .options = "r bos sep copy-positions model adapter text data sentence mask layer head overview "
                   "last-copy-only scale",
        .load = attention_figure_load,
        .paint = attention_figure_paint,
        .write_csv = attention_figure_write_csv,
        .free = attention_figure_free,
        .meta = attention_figure_meta,
        .width = 1500,
        .height = 1300,
        .overview_height = 1200,
    },
    [FIGURE_LAYERS] = {
        .name = "layers",
        .options = "results split baselines",
        .load = layers_figure_load,
        .paint = layers_figure_paint,
        .write_csv = layers_figure_write_csv,
        .free = layers_figure_free,
        .meta = layers_figure_meta,
        .width = 1600,
        .height = 1000,
    },
    [FIGURE_EXIT] = {
        .name = "exit",
        .options = "results split cost dataset",
        .load = exit_figure_load,
        .paint = exit_figure_paint,
        .write_csv = exit_figure_write_csv,
        .free = exit_figure_free,
        .meta = exit_figure_meta,
        .width = 1600,
        .height = 1000,
    },
    [FIGURE_FLOW] = {
        .name = "flow",
        .options = "results head",
        .load = flow_figure_load,
        .paint = flow_figure_paint,
        .write_csv = flow_figure_write_csv,
        .free = flow_figure_free,
        .meta = flow_figure_meta,
        .width = 1600,
        .height = 1000,
    },
    [FIGURE_REPO_Z] = {
        .name = "repo-z",
        .options = "r bos sep copy-positions model adapter text data sentence mask layer head results",
        .load = repo_z_figure_load,
        .paint = repo_z_figure_paint,
        .write_csv = repo_z_figure_write_csv,
        .free = repo_z_figure_free,
        .meta = repo_z_figure_meta,
        .width = 1600,
        .height = 1000,
    },
    [FIGURE_REPO_REPEAT] = {
        .name = "repo-repeat",
        .options = "r bos sep copy-positions model adapter text data sentence mask layer head results",
        .load = repo_repeat_figure_load,
        .paint = repo_repeat_figure_paint,
        .write_csv = repo_z_figure_write_csv,
        .free = repo_z_figure_free,
        .meta = repo_z_figure_meta,
        .width = 1600,
        .height = 1000,
    },
    [FIGURE_REPO_RANGE] = {
        .name = "repo-range",
        .options = "results",
        .load = repo_range_figure_load,
        .paint = repo_range_figure_paint,
        .write_csv = repo_range_figure_write_csv,
        .free = repo_range_figure_free,
        .meta = repo_range_figure_meta,
        .width = 1600,
        .height = 1000,
    },
    [FIGURE_REPO_NEEDLE] = {
        .name = "repo-needle",
        .options = "results length",
        .load = repo_needle_figure_load,
        .paint = repo_needle_figure_paint,
        .write_csv = repo_needle_figure_write_csv,
        .free = repo_needle_figure_free,
        .meta = repo_needle_figure_meta,
        .width = 1600,
        .height = 1000,
    },
    [FIGURE_HEADS] = {
        .name = "heads",
        .options = "results scores",
        .load = heads_figure_load,
        .paint = heads_figure_paint,
        .write_csv = heads_figure_write_csv,
        .free = heads_figure_free,
        .meta = heads_figure_meta,
        .width = 2400,
        .height = 1000,
    },
    [FIGURE_TIMELINE] = {
        .name = "timeline",
        .options = "series what measure score top split",
        .load = timeline_figure_load,
        .paint = timeline_figure_paint,
        .write_csv = timeline_figure_write_csv,
        .free = timeline_figure_free,
        .meta = timeline_figure_meta,
        .width = 1600,
        .height = 1100,
    },
};

const FigureRow *figure_row(FigureKind kind)
{
    return kind >= 0 && kind < FIGURE_COUNT ? &ROWS[kind] : NULL;
}

int figure_kind_parse(const char *name, FigureKind *out)
{
    for (int i = 0; i < FIGURE_COUNT; i++)
        if (strcmp(name, ROWS[i].name) == 0) {
            *out = (FigureKind)i;
            return 0;
        }
    return -1;
}

const char *figure_kind_name(FigureKind kind)
{
    const FigureRow *row = figure_row(kind);
    return row ? row->name : "?";
}

void figure_kind_list(char *out, size_t cap)
{
    size_t used = 0;
    if (cap) out[0] = 0;
    for (int i = 0; i < FIGURE_COUNT && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", ROWS[i].name);
}

/* 1 if the space-separated list holds the word `name`. */
static int list_has(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t word = strcspn(p, " ");
        if (word == len && strncmp(p, name, len) == 0) return 1;
        p += word;
        p += strspn(p, " ");
    }
    return 0;
}

int figure_takes_option(FigureKind kind, const char *name)
{
    const FigureRow *row = figure_row(kind);
    return row && (list_has(COMMON_OPTIONS, name) || list_has(row->options, name));
}

int figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    const FigureRow *row = figure_row(f->kind);
    if (!row) return sr_fail(err, "unknown figure kind %d", (int)f->kind);
    return row->load(f, q, manifest, seed, err);
}

FigureMeta *figure_meta(Figure *f)
{
    const FigureRow *row = figure_row(f->kind);
    return row ? row->meta(f) : NULL;
}

int figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    const FigureRow *row = figure_row(f->kind);
    return row ? row->paint(cr, f, w, h) : -1;
}

void figure_write_numbers(const Figure *f, FILE *out)
{
    const FigureRow *row = figure_row(f->kind);
    if (row) row->write_csv(f, out);
}

void figure_default_size(const Figure *f, double *w, double *h)
{
    const FigureRow *row = figure_row(f->kind);
    *w = *h = 0;
    if (!row) return;
    *w = row->width;
    *h = f->overview && row->overview_height > 0 ? row->overview_height : row->height;
}

void figure_free(Figure *f)
{
    const FigureRow *row = figure_row(f->kind);
    if (row) row->free(f);
}
