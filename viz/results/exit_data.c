/* exit_data.c — early-exit points from a fine-tune/sweep CSV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/exit_data.h"
#include "results/results_csv.h"

/* Order points by method, r, exit. */
static int compare_points(const void *pa, const void *pb)
{
    const ExitPoint *a = pa, *b = pb;
    int c = strcmp(a->method, b->method);
    if (c) return c;
    if (a->r != b->r) return a->r < b->r ? -1 : 1;
    if (a->exit != b->exit) return a->exit < b->exit ? -1 : 1;
    return 0;
}

void exit_mark_pareto(ExitPoint *p, int n)
{
    for (int i = 0; i < n; i++) {
        p[i].pareto = 1;
        for (int j = 0; j < n && p[i].pareto; j++) {
            if (j == i) continue;
            int no_worse = p[j].rel_cost <= p[i].rel_cost && p[j].f1 >= p[i].f1;
            int better = p[j].rel_cost < p[i].rel_cost || p[j].f1 > p[i].f1;
            if (no_worse && better) p[i].pareto = 0;
        }
    }
}

/* Check the dataset column of a sweep CSV: with `dataset` given, *keep is
 * its column (rows of other datasets are skipped); without, the file must
 * hold one dataset (*keep = -1). 0 or -1. */
static int dataset_filter(const CsvTable *t, const char *path, const char *dataset, int *keep, SrError *err)
{
    int col = csv_column(t, "dataset");
    *keep = -1;
    if (col < 0) return dataset ? sr_fail(err, "%s: no dataset column to pick '%s' from", path, dataset) : 0;
    int found = 0;
    for (int i = 0; i < t->n_rows; i++) {
        const char *name = csv_cell(t, i, col);
        if (dataset) found |= strcmp(name, dataset) == 0;
        else if (strcmp(name, csv_cell(t, 0, col)) != 0)
            return sr_fail(err, "%s:%d: rows of datasets '%s' and '%s': choose one with --dataset", path,
                           t->line[i], csv_cell(t, 0, col), name);
    }
    if (dataset && !found) return sr_fail(err, "%s: no rows of dataset '%s'", path, dataset);
    *keep = dataset ? col : -1;
    return 0;
}

/* Append the rows of `split` from one file to raw[*n..]; *cap grows. The
 * file is a fine-tune CSV (one row per split: columns split and f1) or a
 * sweep CSV (one row per run: columns dev_f1 and test_f1, and dataset). */
static int read_exit_file(const char *path, const char *cost_column, const char *split, const char *dataset,
                          ExitPoint **raw, int *n, int *cap, SrError *err)
{
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    char wide_f1[48];
    snprintf(wide_f1, sizeof wide_f1, "%s_f1", split);
    int wide = csv_column(&t, "split") < 0 && csv_column(&t, wide_f1) >= 0;
    const char *cols[] = {"method", "r", "exit", wide ? wide_f1 : "split", wide ? wide_f1 : "f1", cost_column};
    int idx[6], keep = -1, rc = csv_require(&t, cols, 6, idx, err);
    if (rc == 0 && wide) rc = dataset_filter(&t, path, dataset, &keep, err);
    else if (rc == 0 && dataset) rc = sr_fail(err, "%s: --dataset picks rows of a sweep CSV; this is a fine-tune CSV", path);
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        if (!wide && strcmp(csv_cell(&t, i, idx[3]), split) != 0) continue;
        if (keep >= 0 && strcmp(csv_cell(&t, i, keep), dataset) != 0) continue;
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            ExitPoint *grown = realloc(*raw, sizeof *grown * (size_t)*cap);
            if (!grown) {
                rc = sr_fail(err, "%s: out of memory", path);
                break;
            }
            *raw = grown;
        }
        ExitPoint *p = &(*raw)[*n];
        memset(p, 0, sizeof *p);
        snprintf(p->method, sizeof p->method, "%s", csv_cell(&t, i, idx[0]));
        if (csv_int(&t, i, idx[1], &p->r, err) || csv_int(&t, i, idx[2], &p->exit, err) ||
            csv_number(&t, i, idx[4], &p->f1, err) || csv_number(&t, i, idx[5], &p->cost, err)) {
            rc = -1;
        } else if (p->cost <= 0 || p->r < 0 || p->f1 < 0 || p->f1 > 100) {
            rc = sr_fail(err, "%s:%d: %s must be positive, r >= 0 and f1 a percentage", path, t.line[i],
                         cost_column);
        } else {
            (*n)++;
        }
    }
    csv_free(&t);
    return rc ? -1 : 0;
}

/* d->points = raw[0..n) (sorted) with the rows that differ only in seed
 * averaged: mean cost and F1, the F1's sample std, the seeds counted. 0 or
 * -1 when out of memory. */
static int average_seeds(ExitData *d, const ExitPoint *raw, int n)
{
    d->points = calloc((size_t)n, sizeof *d->points);
    if (!d->points) return -1;
    for (int i = 0; i < n;) {
        int j = i;
        double cost = 0, f1 = 0, sq = 0;
        while (j < n && compare_points(&raw[i], &raw[j]) == 0) {
            cost += raw[j].cost;
            f1 += raw[j].f1;
            j++;
        }
        int m = j - i;
        ExitPoint *p = &d->points[d->n_points++];
        *p = raw[i];
        p->cost = cost / m;
        p->f1 = f1 / m;
        for (int k = i; k < j; k++) sq += (raw[k].f1 - p->f1) * (raw[k].f1 - p->f1);
        p->f1_std = m > 1 ? sqrt(sq / (m - 1)) : 0;
        p->n_seeds = m;
        i = j;
    }
    return 0;
}

/* The series of d's points (method and r), their deepest exits, and the
 * reference: the causal decoder at full depth when it is there (smallest r,
 * then method causal, then the most costly); every point's cost relative to
 * it, and the Pareto front. */
static void mark_series(ExitData *d)
{
    int ref = -1;
    for (int i = 0; i < d->n_points; i++) {
        ExitPoint *p = &d->points[i];
        int new_series = i == 0 || strcmp(p->method, p[-1].method) != 0 || p->r != p[-1].r;
        if (new_series && i > 0) d->n_series++;
        p->series = d->n_series;
        p->deepest = i + 1 == d->n_points || strcmp(p->method, p[1].method) != 0 || p->r != p[1].r;
        if (p->deepest) {
            const ExitPoint *q = ref >= 0 ? &d->points[ref] : NULL;
            int causal = strcmp(p->method, "causal") == 0, q_causal = q && strcmp(q->method, "causal") == 0;
            if (!q || p->r < q->r || (p->r == q->r && causal > q_causal) ||
                (p->r == q->r && causal == q_causal && p->cost > q->cost))
                ref = i;
        }
    }
    d->n_series++;
    d->reference = ref;
    for (int i = 0; i < d->n_points; i++) d->points[i].rel_cost = d->points[i].cost / d->points[ref].cost;
    exit_mark_pareto(d->points, d->n_points);
}

int exit_data_load(ExitData *d, const char *const *paths, int n_paths, const char *cost_column,
                   const char *split, const char *dataset, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    snprintf(d->cost_column, sizeof d->cost_column, "%s", cost_column);
    snprintf(d->split, sizeof d->split, "%s", split);
    if (n_paths < 1) return sr_fail(err, "exit figure: no result files given");
    ExitPoint *raw = NULL;
    int n = 0, cap = 0, rc = 0;
    for (int i = 0; i < n_paths && rc == 0; i++)
        rc = read_exit_file(paths[i], cost_column, split, dataset, &raw, &n, &cap, err);
    if (rc == 0 && n == 0) rc = sr_fail(err, "%s: no rows with split '%s'", paths[0], split);
    if (rc) {
        free(raw);
        return -1;
    }
    const char *path = paths[0];
    /* average rows that differ only in seed */
    qsort(raw, (size_t)n, sizeof *raw, compare_points);
    rc = average_seeds(d, raw, n);
    free(raw);
    if (rc) return sr_fail(err, "%s: out of memory", path);
    mark_series(d);
    const ExitPoint *rp = &d->points[d->reference];
    snprintf(d->meta.title, sizeof d->meta.title, "Early exit: F1 against cost");
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "Exit: span F1 (%s split) of every (method, r, exit layer) against its %s relative to "
             "the full-depth %s model with r = %d (exit %d, F1 %.1f); mean over seeds; ringed points "
             "and the step line form the Pareto front. From %s%s.",
             split, strcmp(cost_column, "flops") == 0 ? "FLOPs" : "measured seconds", rp->method, rp->r,
             rp->exit, rp->f1, path, n_paths > 1 ? " and more files" : "");
    return 0;
}

void exit_data_free(ExitData *d)
{
    free(d->points);
    d->points = NULL;
    d->n_points = 0;
}

void exit_data_write_csv(const ExitData *d, FILE *out)
{
    fprintf(out, "method,r,exit,%s,relative_cost,f1,f1_std,n_seeds,pareto\n", d->cost_column);
    for (int i = 0; i < d->n_points; i++) {
        const ExitPoint *p = &d->points[i];
        fprintf(out, "%s,%d,%d,%.9g,%.6g,%.6g,%.6g,%d,%d\n", p->method, p->r, p->exit, p->cost, p->rel_cost,
                p->f1, p->f1_std, p->n_seeds, p->pareto);
    }
}
