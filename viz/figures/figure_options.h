/* figure_options.h — the options of `seqrep plot` that choose a figure's
 * data, gathered from every row of the table into one option table (in the
 * order of --help, each option once, where a row first gives it a line),
 * and the values given put into one row's options. `seqrep plot` parses its
 * command line with that table; the explorer loads a view's figure from the
 * view's plot words through the same table. */
#ifndef SEQREP_VIZ_FIGURE_OPTIONS_H
#define SEQREP_VIZ_FIGURE_OPTIONS_H

#include <cJSON.h>

#include "figure_row/plot_words.h"
#include "figures/figures.h"
#include "options/args.h"

/* The most options the table holds, a command's own included. */
#define FIGURE_MAX_OPTIONS 64

/* A command's own options first (spec[0 .. n_common)), then every row's,
 * their values kept here. */
typedef struct {
    ArgSpec spec[FIGURE_MAX_OPTIONS];
    int n, n_common;
    const char *text[FIGURE_MAX_OPTIONS];  /* the values of ARG_STRING rows  */
    int number[FIGURE_MAX_OPTIONS];        /* ARG_INT and ARG_FLAG rows      */
    int input[FIGURE_MAX_OPTIONS];         /* FigureOption.input of each row */
} FigureOptionTable;

/* Fill t with common[0 .. n_common) and then the options of every row. 0,
 * or -1 with err when they are more than FIGURE_MAX_OPTIONS or two rows give
 * one option different types. */
int figure_options_gather(FigureOptionTable *t, const ArgSpec *common, int n_common, SrError *err);

/* 1 if row takes the option `name` (one of its own; without "--"), else 0. */
int figure_takes_option(const FigureRow *row, const char *name);

/* The first option of the rows given on the command line that row does not
 * take, or NULL. */
const ArgSpec *figure_options_foreign(const FigureOptionTable *t, const FigureRow *row);

/* The value given to the file option that --out is checked against in
 * place `order` (1, 2, ...: FigureOption.input), or NULL when it was not
 * given; *more is 0 past the last such option. */
const char *figure_options_input(const FigureOptionTable *t, int order, int *more);

/* Row's options (a new struct of row->options_size bytes, caller frees):
 * its defaults, then the values given. NULL with err when out of memory. */
void *figure_options_fill(const FigureOptionTable *t, const FigureRow *row, SrError *err);

/* Load a figure of row from words (the options after `seqrep plot NAME`, as
 * a view writes them), parsed as `seqrep plot` parses them, its inputs
 * recorded in manifest (NULL: dropped). f is a new figure of row, to be
 * freed with figure_free whatever the result. 0, or -1 with err. */
int figure_load_words(Figure *f, const FigureRow *row, const PlotWords *words, cJSON *manifest, SrError *err);

#endif
