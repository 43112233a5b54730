/* figures.h — the table of figures: one row per figure (figure_row/figure_row.h),
 * the built-in rows (figures.c's list, in the order of `seqrep plot --help`,
 * each row in its figure file X_figure.c beside the pair it draws) and any
 * row a program adds (a test's figure). `seqrep plot`, the explorer's views
 * and their saves reach every figure through it and name none.
 *
 * A figure (Figure) is a row and that row's data. */
#ifndef SEQREP_VIZ_FIGURES_H
#define SEQREP_VIZ_FIGURES_H

#include <stddef.h>
#include <stdio.h>

#include <cairo.h>

#include "draw/figure.h"
#include "figure_row/figure_row.h"

/* The most rows the table holds, built-in and added. */
#define FIGURE_MAX_ROWS 24

/* The rows: how many, row i (0 .. count-1), the row called name (NULL when
 * none is). */
int figure_count(void);
const FigureRow *figure_at(int i);
const FigureRow *figure_find(const char *name);

/* Add a row after the others: its figure can be plotted, and its views are
 * the explorer's, from then on. 0, or -1 with err when the table is full or
 * a figure or view of that name is in it. */
int figures_register(const FigureRow *row, SrError *err);

/* The names of all figures joined by ", " into out (cap bytes), for
 * messages and the usage line. */
void figure_names(char *out, size_t cap);

/* The views of every row, in table order: how many, view i and its row,
 * and the number of the view called name (-1 when none is). */
int figure_view_count(void);
const FigureView *figure_view(int i);
const FigureRow *figure_view_row(int i);
int figure_view_find(const char *name);

/* One figure: a row and its data (row->data_size bytes, owned). */
typedef struct {
    const FigureRow *row;
    void *data;
} Figure;

/* A figure of row with its data zeroed. 0, or -1 with err when out of memory. */
int figure_new(Figure *f, const FigureRow *row, SrError *err);

/* Release f's data (what it holds, then the data itself); f is then empty. */
void figure_free(Figure *f);

/* The meta (style, title, caption) of f's data. */
FigureMeta *figure_meta(const Figure *f);

/* Draw f on cr, w x h, with its row's painter. 0 or -1. */
int figure_paint(cairo_t *cr, const Figure *f, double w, double h);

/* Write the numbers behind f as CSV. */
void figure_write_numbers(const Figure *f, FILE *out);

/* The default size of f (pixels / points). */
void figure_default_size(const Figure *f, double *w, double *h);

#endif
