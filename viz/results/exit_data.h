/* exit_data.h — the numbers of figure 5, what early exit buys.
 *
 * Input: fine-tune CSVs (columns method, r, exit, split, f1) or sweep CSVs
 * (method, r, exit, dev_f1, test_f1, dataset: one dataset, or the one
 * chosen), each with a cost column, "flops" or "seconds" (seed optional:
 * rows that differ only in seed are averaged). Every (method, r, exit) is a point at
 *   relative cost = cost / cost of the reference
 * where the reference is the deepest exit of r = 0 (or of the smallest r in
 * the file; of method causal when several methods run r = 0), against its
 * F1. The Pareto front is the points no other point is at most as costly
 * and at least as good as, one of them strictly. Painted by paint_exit.h. */
#ifndef SEQREP_VIZ_EXIT_DATA_H
#define SEQREP_VIZ_EXIT_DATA_H

#include <stdio.h>

#include "draw/figure.h"

typedef struct {
    char method[48];
    int r, exit;
    double cost;       /* mean cost over seeds, in the file's unit  */
    double rel_cost;   /* cost / reference cost                     */
    double f1, f1_std; /* mean and sample std over seeds, percent   */
    int n_seeds;
    int series;        /* index of its (method, r) series           */
    int pareto;        /* 1 if on the Pareto front                  */
    int deepest;       /* 1 if the deepest exit of its series       */
} ExitPoint;

typedef struct {
    FigureMeta meta;
    char cost_column[16];  /* "flops" or "seconds" */
    char split[32];
    int n_points;
    ExitPoint *points;     /* sorted by series, then exit */
    int n_series;
    int reference;         /* index of the reference point */
} ExitData;

/* Load and summarise the CSVs paths[0..n_paths) (e.g. one per fine-tune run;
 * rows of `split` only; of a sweep CSV, the rows of `dataset`, NULL when it
 * holds one); cost_column is "flops" or "seconds". 0 or -1: "sweep.csv:
 * missing column 'flops'", "sweep.csv:9: rows of datasets 'a' and 'b':
 * choose one with --dataset", ... */
int exit_data_load(ExitData *d, const char *const *paths, int n_paths, const char *cost_column,
                   const char *split, const char *dataset, SrError *err);
void exit_data_free(ExitData *d);

/* Mark the Pareto front of the points (lower cost, higher F1 is better). */
void exit_mark_pareto(ExitPoint *p, int n);

/* CSV of the drawn numbers: method,r,exit,cost,relative_cost,f1,f1_std,n_seeds,pareto. */
void exit_data_write_csv(const ExitData *d, FILE *out);

#endif
