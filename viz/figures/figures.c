/* figures.c — the table of figures: the built-in rows, each defined in its
 * figure file, the rows added to them, their views, and a figure's data
 * handled through its row. */
#include "figures/figures.h"

#include <stdlib.h>
#include <string.h>

/* The built-in rows, in the order of `seqrep plot --help`. A new figure is
 * its data/painter pair, its figure file with the row, and a line here. */
extern const FigureRow MASK_FIGURE, PROPORTION_FIGURE, ATTENTION_FIGURE, LAYERS_FIGURE, EXIT_FIGURE, FLOW_FIGURE,
    REPO_Z_FIGURE, REPO_REPEAT_FIGURE, REPO_RANGE_FIGURE, REPO_NEEDLE_FIGURE, HEADS_FIGURE, TIMELINE_FIGURE;
static const FigureRow *const BUILT_IN[] = {
    &MASK_FIGURE,   &PROPORTION_FIGURE,  &ATTENTION_FIGURE,   &LAYERS_FIGURE,      &EXIT_FIGURE,  &FLOW_FIGURE,
    &REPO_Z_FIGURE, &REPO_REPEAT_FIGURE, &REPO_RANGE_FIGURE,  &REPO_NEEDLE_FIGURE, &HEADS_FIGURE, &TIMELINE_FIGURE,
};
enum { N_BUILT_IN = (int)(sizeof BUILT_IN / sizeof BUILT_IN[0]) };

/* The rows added by figures_register, after the built-in ones. */
static const FigureRow *added[FIGURE_MAX_ROWS];
static int n_added;

int figure_count(void)
{
    return N_BUILT_IN + n_added;
}

const FigureRow *figure_at(int i)
{
    if (i < 0 || i >= figure_count()) return NULL;
    return i < N_BUILT_IN ? BUILT_IN[i] : added[i - N_BUILT_IN];
}

const FigureRow *figure_find(const char *name)
{
    for (int i = 0; i < figure_count(); i++)
        if (strcmp(figure_at(i)->name, name) == 0) return figure_at(i);
    return NULL;
}

int figures_register(const FigureRow *row, SrError *err)
{
    if (figure_count() >= FIGURE_MAX_ROWS) return sr_fail(err, "the table of figures holds %d rows", FIGURE_MAX_ROWS);
    if (figure_find(row->name)) return sr_fail(err, "a figure called '%s' is in the table", row->name);
    for (int v = 0; v < row->n_views; v++)
        if (figure_view_find(row->views[v].name) >= 0)
            return sr_fail(err, "a view called '%s' is in the table", row->views[v].name);
    added[n_added++] = row;
    return 0;
}

void figure_names(char *out, size_t cap)
{
    size_t used = 0;
    if (cap) out[0] = 0;
    for (int i = 0; i < figure_count() && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", figure_at(i)->name);
}

int figure_view_count(void)
{
    int n = 0;
    for (int i = 0; i < figure_count(); i++) n += figure_at(i)->n_views;
    return n;
}

/* The row of view number v and the view's place in it (*at); NULL when
 * there is no view v. */
static const FigureRow *row_of_view(int v, int *at)
{
    for (int i = 0; i < figure_count() && v >= 0; i++) {
        const FigureRow *row = figure_at(i);
        if (v < row->n_views) {
            *at = v;
            return row;
        }
        v -= row->n_views;
    }
    return NULL;
}

const FigureView *figure_view(int i)
{
    int at;
    const FigureRow *row = row_of_view(i, &at);
    return row ? &row->views[at] : NULL;
}

const FigureRow *figure_view_row(int i)
{
    int at;
    return row_of_view(i, &at);
}

int figure_view_find(const char *name)
{
    for (int i = 0; i < figure_view_count(); i++)
        if (strcmp(figure_view(i)->name, name) == 0) return i;
    return -1;
}

int figure_new(Figure *f, const FigureRow *row, SrError *err)
{
    f->row = row;
    f->data = calloc(1, row->data_size);
    return f->data ? 0 : sr_fail(err, "out of memory");
}

void figure_free(Figure *f)
{
    if (f->data) f->row->free(f->data);
    free(f->data);
    f->data = NULL;
}

FigureMeta *figure_meta(const Figure *f)
{
    return (FigureMeta *)((char *)f->data + f->row->meta_offset);
}

int figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return f->row->paint(cr, f->data, w, h);
}

void figure_write_numbers(const Figure *f, FILE *out)
{
    f->row->write_csv(f->data, out);
}

void figure_default_size(const Figure *f, double *w, double *h)
{
    *w = f->row->width ? f->row->width : FIGURE_WIDTH;
    *h = f->row->height_of ? f->row->height_of(f->data) : f->row->height ? f->row->height : FIGURE_HEIGHT;
}
