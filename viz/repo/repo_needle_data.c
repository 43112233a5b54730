/* repo_needle_data.c — the data of the repo-needle figure read from an
 * attention CSV at one context length: attention per needle token and per
 * nearby token, per method and layer, and the numbers written back as CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repo/repo_needle_data.h"
#include "results/results_csv.h"

void repo_needle_data_free(RepoNeedleData *d)
{
    free(d->needle);
    free(d->near);
    memset(d, 0, sizeof *d);
}

/* The columns of an attention CSV, in the order of the indices c[]. */
enum { COL_METHOD, COL_LAYER, COL_LENGTH, COL_NEEDLE_MASS, COL_NEAR_MASS, COL_NEEDLE_TOKENS, COL_NEAR_TOKENS,
       N_COLS };

/* Check every row's length and layer are integers and set d->length: the
 * length asked for (> 0), else the longest in the file. 0 or -1. */
static int choose_length(RepoNeedleData *d, const CsvTable *t, const int *c, int length, SrError *err)
{
    int longest = 0;
    for (int i = 0; i < t->n_rows; i++) {
        int len, l;
        if (csv_int(t, i, c[COL_LENGTH], &len, err) || csv_int(t, i, c[COL_LAYER], &l, err)) return -1;
        if (len > longest) longest = len;
    }
    d->length = length > 0 ? length : longest;
    return 0;
}

/* The methods (in file order) and the number of layers of the rows at
 * d->length. 0 or -1 ("no rows at length 50", a layer out of range, too
 * many methods). */
static int find_methods_and_layers(RepoNeedleData *d, const CsvTable *t, const int *c, const char *path,
                                   SrError *err)
{
    int rc = 0;
    for (int i = 0; i < t->n_rows && rc == 0; i++) {
        int len, l;
        csv_int(t, i, c[COL_LENGTH], &len, err);
        csv_int(t, i, c[COL_LAYER], &l, err);
        if (len != d->length) continue;
        if (l < 0 || l > 1000)
            rc = sr_fail(err, "%s:%d: layer %d is out of range", path, t->line[i], l);
        else if (l + 1 > d->n_layers) d->n_layers = l + 1;
        const char *m = csv_cell(t, i, c[COL_METHOD]);
        int found = 0;
        for (int k = 0; k < d->n_methods; k++) found |= strcmp(d->method[k], m) == 0;
        if (rc == 0 && !found) {
            if (d->n_methods == REPO_FIGURE_MAX_METHODS)
                rc = sr_fail(err, "%s: more than %d methods", path, REPO_FIGURE_MAX_METHODS);
            else snprintf(d->method[d->n_methods++], sizeof d->method[0], "%s", m);
        }
    }
    if (rc == 0 && d->n_methods == 0)
        rc = sr_fail(err, "%s: no rows at length %d", path, d->length);
    return rc;
}

/* The (method, layer) cells of needle and near, all NaN until read. 0 or -1. */
static int alloc_cells(RepoNeedleData *d, const char *path, SrError *err)
{
    size_t cells = (size_t)d->n_methods * d->n_layers;
    d->needle = malloc(sizeof(double) * cells);
    d->near = malloc(sizeof(double) * cells);
    if (!d->needle || !d->near) return sr_fail(err, "%s: out of memory", path);
    for (size_t k = 0; k < cells; k++) d->needle[k] = d->near[k] = NAN;
    return 0;
}

/* Fill each cell from its row at d->length, per token; every (method,
 * layer) must appear once. 0 or -1. */
static int read_cells(RepoNeedleData *d, const CsvTable *t, const int *c, const char *path, SrError *err)
{
    size_t cells = (size_t)d->n_methods * d->n_layers;
    int counted = 0;
    for (int i = 0; i < t->n_rows; i++) {
        int len, l;
        double on, near, on_tokens, near_tokens;
        csv_int(t, i, c[COL_LENGTH], &len, err);
        if (len != d->length) continue;
        if (csv_int(t, i, c[COL_LAYER], &l, err) || csv_number(t, i, c[COL_NEEDLE_MASS], &on, err) ||
            csv_number(t, i, c[COL_NEAR_MASS], &near, err) ||
            csv_number(t, i, c[COL_NEEDLE_TOKENS], &on_tokens, err) ||
            csv_number(t, i, c[COL_NEAR_TOKENS], &near_tokens, err))
            return -1;
        int m = 0;
        while (strcmp(d->method[m], csv_cell(t, i, c[COL_METHOD])) != 0) m++;
        size_t k = (size_t)m * d->n_layers + l;
        if (!isnan(d->needle[k]))
            return sr_fail(err, "%s:%d: method %s, layer %d at length %d appears twice", path, t->line[i],
                           d->method[m], l, len);
        d->needle[k] = on_tokens > 0 ? on / on_tokens : 0.0;
        d->near[k] = near_tokens > 0 ? near / near_tokens : 0.0;
        d->needle_tokens = on_tokens;
        d->near_tokens = near_tokens;
        counted++;
    }
    if ((size_t)counted != cells)
        return sr_fail(err, "%s: %d of the %zu (method, layer) pairs at length %d are missing", path,
                       (int)(cells - counted), cells, d->length);
    return 0;
}

int repo_needle_data_load(RepoNeedleData *d, const char *path, int length, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[N_COLS] = {"method", "layer", "length", "needle_mass", "near_mass",
                                             "needle_tokens", "near_tokens"};
    int c[N_COLS], rc = csv_require(&t, cols, N_COLS, c, err);
    if (rc == 0) rc = choose_length(d, &t, c, length, err);
    if (rc == 0) rc = find_methods_and_layers(d, &t, c, path, err);
    if (rc == 0) rc = alloc_cells(d, path, err);
    if (rc == 0) rc = read_cells(d, &t, c, path, err);
    csv_free(&t);
    if (rc) {
        repo_needle_data_free(d);
        return -1;
    }
    snprintf(d->meta.title, sizeof d->meta.title,
             "Attention on the needle and next to it, context of %d tokens", d->length);
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "Attention probability per token that the query's last token pays to the needle "
             "(%.0f tokens, solid) and to the tokens next to it (%.1f on average, hatched), mean "
             "over heads and inputs, per layer, from %s.", d->needle_tokens, d->near_tokens, path);
    return 0;
}

void repo_needle_data_write_csv(const RepoNeedleData *d, FILE *out)
{
    fprintf(out, "method,layer,needle_per_token,near_per_token\n");
    for (int m = 0; m < d->n_methods; m++)
        for (int l = 0; l < d->n_layers; l++) {
            size_t k = (size_t)m * d->n_layers + l;
            fprintf(out, "%s,%d,%.6g,%.6g\n", d->method[m], l, d->needle[k], d->near[k]);
        }
}
