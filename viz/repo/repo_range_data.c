/* repo_range_data.c — the data of the repo-range figure read from a range
 * CSV (rows of method repo): z range per RePo layer and context length, and
 * the numbers written back as CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repo/repo_range_data.h"
#include "results/results_csv.h"

void repo_range_data_free(RepoRangeData *d)
{
    free(d->layer);
    free(d->length);
    free(d->range);
    free(d->range_max);
    free(d->index_range);
    memset(d, 0, sizeof *d);
}

/* Insert v into the sorted set list[0..*n) (capacity cap); its index or -1. */
static int sorted_insert(int *list, int *n, int cap, int v)
{
    int i = 0;
    while (i < *n && list[i] < v) i++;
    if (i < *n && list[i] == v) return i;
    if (*n == cap) return -1;
    memmove(list + i + 1, list + i, sizeof(int) * (size_t)(*n - i));
    list[i] = v;
    (*n)++;
    return i;
}

/* Index of v in the sorted list[0..n), or -1. */
static int sorted_find(const int *list, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (list[i] == v) return i;
    return -1;
}

int repo_range_data_load(RepoRangeData *d, const char *path, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[] = {"method", "layer", "length", "z_range_mean", "z_range_max",
                                       "index_range"};
    int c[6];
    int rc = csv_require(&t, cols, 6, c, err);
    d->layer = malloc(sizeof(int) * (size_t)t.n_rows);
    d->length = malloc(sizeof(int) * (size_t)t.n_rows);
    if (rc == 0 && (!d->layer || !d->length)) rc = sr_fail(err, "%s: out of memory", path);
    for (int i = 0; i < t.n_rows && rc == 0; i++) { /* the layers and lengths present */
        int l, len;
        if (strcmp(csv_cell(&t, i, c[0]), "repo") != 0) continue;
        if (csv_int(&t, i, c[1], &l, err) || csv_int(&t, i, c[2], &len, err)) rc = -1;
        else {
            sorted_insert(d->layer, &d->n_layers, t.n_rows, l);
            sorted_insert(d->length, &d->n_lengths, t.n_rows, len);
        }
    }
    if (rc == 0 && d->n_layers == 0) rc = sr_fail(err, "%s: no rows of method repo", path);
    size_t cells = (size_t)d->n_layers * d->n_lengths;
    if (rc == 0) {
        d->range = malloc(sizeof(double) * cells);
        d->range_max = malloc(sizeof(double) * cells);
        d->index_range = malloc(sizeof(int) * (size_t)d->n_lengths);
        if (!d->range || !d->range_max || !d->index_range) rc = sr_fail(err, "%s: out of memory", path);
    }
    for (size_t k = 0; k < cells && rc == 0; k++) d->range[k] = d->range_max[k] = NAN;
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        int l, len, index_range;
        double mean, most;
        if (strcmp(csv_cell(&t, i, c[0]), "repo") != 0) continue;
        if (csv_int(&t, i, c[1], &l, err) || csv_int(&t, i, c[2], &len, err) ||
            csv_number(&t, i, c[3], &mean, err) || csv_number(&t, i, c[4], &most, err) ||
            csv_int(&t, i, c[5], &index_range, err)) {
            rc = -1;
            break;
        }
        int li = sorted_find(d->layer, d->n_layers, l), ti = sorted_find(d->length, d->n_lengths, len);
        size_t k = (size_t)li * d->n_lengths + ti;
        if (!isnan(d->range[k])) {
            rc = sr_fail(err, "%s:%d: layer %d at length %d appears twice", path, t.line[i], l, len);
            break;
        }
        d->range[k] = mean;
        d->range_max[k] = most;
        d->index_range[ti] = index_range;
    }
    csv_free(&t);
    if (rc) {
        repo_range_data_free(d);
        return -1;
    }
    snprintf(d->meta.title, sizeof d->meta.title, "Range of the RePo positions against context length");
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "max z - min z over the tokens of one input, mean over inputs and heads (solid) and "
             "the largest head (dotted), per RePo layer, from %s. RoPE spreads the same tokens "
             "over the token index, a range of length - 1.", path);
    return 0;
}

void repo_range_data_write_csv(const RepoRangeData *d, FILE *out)
{
    fprintf(out, "layer,length,z_range_mean,z_range_max,index_range\n");
    for (int l = 0; l < d->n_layers; l++)
        for (int t = 0; t < d->n_lengths; t++) {
            size_t k = (size_t)l * d->n_lengths + t;
            fprintf(out, "%d,%d,%.6g,%.6g,%d\n", d->layer[l], d->length[t], d->range[k],
                    d->range_max[k], d->index_range[t]);
        }
}
