/* figure_row.h — one row of the table of figures (figures/figures.h): all
 * that `seqrep plot`, the explorer and their saves need to know of a figure,
 * as data. A figure is its data/painter pair (X_data, paint_X in its room)
 * and one row, kept with the few functions the row points at in its figure
 * file (figures/X_figure.c).
 *
 * The row's data is the pair's own struct (MaskData, ...), data_size bytes
 * with its FigureMeta at meta_offset; its options are a struct of the
 * figure file's own, options_size bytes, that the row's option list fills
 * from the command line (figures/figure_options.h) before load reads it. */
#ifndef SEQREP_VIZ_FIGURE_ROW_H
#define SEQREP_VIZ_FIGURE_ROW_H

#include <stddef.h>
#include <stdio.h>

#include <cairo.h>
#include <cJSON.h>

#include "base/status.h"
#include "figure_row/figure_view.h"
#include "options/args.h"

/* The default size of most figures (FigureRow.width, height 0). */
#define FIGURE_WIDTH 1600
#define FIGURE_HEIGHT 1000

/* One option of `seqrep plot` a figure takes (besides --out, --size,
 * --theme, --font, --title and --caption, which choose the look). */
typedef struct {
    const char *name;   /* without "--"                                            */
    ArgType type;       /* ARG_STRING (a const char *), ARG_INT or ARG_FLAG (an int) */
    size_t offset;      /* where its value goes in the row's options (offsetof)    */
    int min_int;        /* ARG_INT: the smallest value taken                       */
    const char *help;   /* its line in `seqrep plot --help`; NULL when the option
                           is another row's too and that row gives the line: plot
                           lists every option once, where it is first given a line */
    int input;          /* a file the figure reads, which --out may not overwrite:
                           the order in which --out is checked (1 first); 0: none  */
} FigureOption;

typedef struct {
    const char *name;               /* `seqrep plot NAME`                          */
    /* its options */
    const FigureOption *options;
    int n_options;
    size_t options_size;            /* the figure file's struct of option values   */
    const void *defaults;           /* its values before the command line's        */
    /* its data */
    size_t data_size, meta_offset;  /* the pair's data struct and its FigureMeta   */
    /* Load data from options, recording its inputs in the manifest and a
     * model's training seed in *seed. 0 or -1 with err (data may be partly
     * filled: free releases it). */
    int (*load)(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err);
    /* Draw data on cr, w x h (the painter contract of draw/figure.h). 0 or -1. */
    int (*paint)(cairo_t *cr, const void *data, double w, double h);
    /* Write the numbers behind data as CSV. */
    void (*write_csv)(const void *data, FILE *out);
    /* Release what data holds. */
    void (*free)(void *data);
    double width, height;           /* default size: pixels (PNG) or points (SVG,
                                       PDF); 0: FIGURE_WIDTH, FIGURE_HEIGHT         */
    double (*height_of)(const void *data); /* when the height depends on the data; NULL: height */
    /* its views in the explorer (figure_view.h) */
    const FigureView *views;
    int n_views;
} FigureRow;

#endif
