/* layers_data.c — probe F1 per layer from probe CSVs, baselines from a
 * fine-tune/sweep CSV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/layers_data.h"
#include "results/results_csv.h"

/* One value read from a file: the group it belongs to and the F1. */
typedef struct {
    int r, copy, layer;
    double f1;
} ProbeValue;

/* Order values by r, copy, layer. */
static int compare_values(const void *pa, const void *pb)
{
    const ProbeValue *a = pa, *b = pb;
    if (a->r != b->r) return a->r < b->r ? -1 : 1;
    if (a->copy != b->copy) return a->copy < b->copy ? -1 : 1;
    if (a->layer != b->layer) return a->layer < b->layer ? -1 : 1;
    return 0;
}

/* Append the rows of `split` of one probe file to *values. */
static int read_probe_file(const char *path, const char *split, ProbeValue **values, int *n, int *cap,
                           SrError *err)
{
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[] = {"r", "layer", "copy", "split", "f1"};
    int idx[5], rc = csv_require(&t, cols, 5, idx, err);
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        if (strcmp(csv_cell(&t, i, idx[3]), split) != 0) continue;
        ProbeValue v;
        const char *copy = csv_cell(&t, i, idx[2]);
        if (csv_int(&t, i, idx[0], &v.r, err) || csv_int(&t, i, idx[1], &v.layer, err) ||
            csv_number(&t, i, idx[4], &v.f1, err)) {
            rc = -1;
            break;
        }
        if (strcmp(copy, "last") == 0) v.copy = COPY_LAST;
        else if (strcmp(copy, "first") == 0) v.copy = COPY_FIRST;
        else {
            rc = sr_fail(err, "%s:%d: copy must be last or first, got '%s'", path, t.line[i], copy);
            break;
        }
        if (v.r < 0 || v.layer < 0 || v.f1 < 0 || v.f1 > 100) {
            rc = sr_fail(err, "%s:%d: r, layer or f1 out of range (f1 is a percentage)", path, t.line[i]);
            break;
        }
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 256;
            ProbeValue *grown = realloc(*values, sizeof *grown * (size_t)*cap);
            if (!grown) {
                rc = sr_fail(err, "%s: out of memory", path);
                break;
            }
            *values = grown;
        }
        (*values)[(*n)++] = v;
    }
    csv_free(&t);
    return rc ? -1 : 0;
}

/* Group sorted values into series of mean and std per layer. */
static int build_series(LayersData *d, const ProbeValue *v, int n, SrError *err)
{
    d->series = calloc((size_t)n, sizeof *d->series);
    if (!d->series) return sr_fail(err, "layers figure: out of memory");
    for (int i = 0; i < n;) {
        LayersSeries *s = &d->series[d->n_series++];
        s->r = v[i].r;
        s->copy = v[i].copy;
        int end = i;
        while (end < n && v[end].r == s->r && v[end].copy == (int)s->copy) end++;
        s->layer = malloc(sizeof(int) * (size_t)(end - i));
        s->mean = malloc(sizeof(double) * (size_t)(end - i));
        s->std = malloc(sizeof(double) * (size_t)(end - i));
        s->n_seeds = malloc(sizeof(int) * (size_t)(end - i));
        if (!s->layer || !s->mean || !s->std || !s->n_seeds) return sr_fail(err, "layers figure: out of memory");
        for (int j = i; j < end;) {
            int k = j;
            double sum = 0, sq = 0;
            while (k < end && v[k].layer == v[j].layer) sum += v[k++].f1;
            int m = k - j;
            double mean = sum / m;
            for (int q = j; q < k; q++) sq += (v[q].f1 - mean) * (v[q].f1 - mean);
            s->layer[s->n] = v[j].layer;
            s->mean[s->n] = mean;
            s->std[s->n] = m > 1 ? sqrt(sq / (m - 1)) : 0;
            s->n_seeds[s->n] = m;
            s->n++;
            j = k;
        }
        i = end;
    }
    return 0;
}

/* A (method, r, exit) row group of the baseline file. */
typedef struct {
    char method[48];
    int r, exit;
    double f1;
} BaselineValue;

/* Append the rows of `split` of one baseline file to *v. */
static int read_baseline_file(const char *path, const char *split, BaselineValue **v, int *n, int *cap,
                              SrError *err)
{
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[] = {"method", "r", "exit", "split", "f1"};
    int idx[5], rc = csv_require(&t, cols, 5, idx, err);
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        if (strcmp(csv_cell(&t, i, idx[3]), split) != 0) continue;
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            BaselineValue *grown = realloc(*v, sizeof *grown * (size_t)*cap);
            if (!grown) {
                rc = sr_fail(err, "%s: out of memory", path);
                break;
            }
            *v = grown;
        }
        BaselineValue *b = &(*v)[*n];
        snprintf(b->method, sizeof b->method, "%s", csv_cell(&t, i, idx[0]));
        if (csv_int(&t, i, idx[1], &b->r, err) || csv_int(&t, i, idx[2], &b->exit, err) ||
            csv_number(&t, i, idx[4], &b->f1, err))
            rc = -1;
        else (*n)++;
    }
    csv_free(&t);
    return rc ? -1 : 0;
}

/* Read the baselines: per (method, r), the mean F1 of the deepest exit. */
static int read_baselines(LayersData *d, const char *const *paths, int n_paths, const char *split,
                          SrError *err)
{
    BaselineValue *v = NULL;
    int n = 0, cap = 0, rc = 0;
    for (int i = 0; i < n_paths && rc == 0; i++) rc = read_baseline_file(paths[i], split, &v, &n, &cap, err);
    if (rc == 0 && n == 0) rc = sr_fail(err, "%s: no rows with split '%s'", paths[0], split);
    if (rc == 0) {
        d->baselines = calloc((size_t)n, sizeof *d->baselines);
        if (!d->baselines) rc = sr_fail(err, "%s: out of memory", paths[0]);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        int first = 1, deepest = v[i].exit;
        for (int j = 0; j < n; j++) {
            if (strcmp(v[j].method, v[i].method) != 0 || v[j].r != v[i].r) continue;
            if (j < i) first = 0;
            if (v[j].exit > deepest) deepest = v[j].exit;
        }
        if (!first) continue;
        double sum = 0;
        int m = 0;
        for (int j = 0; j < n; j++)
            if (strcmp(v[j].method, v[i].method) == 0 && v[j].r == v[i].r && v[j].exit == deepest) {
                sum += v[j].f1;
                m++;
            }
        LayersBaseline *b = &d->baselines[d->n_baselines++];
        snprintf(b->label, sizeof b->label, "fine-tuned %s, r = %d", v[i].method, v[i].r);
        b->f1 = sum / m;
    }
    free(v);
    return rc ? -1 : 0;
}

int layers_data_load(LayersData *d, const char *const *paths, int n_paths, const char *split,
                     const char *const *baseline_paths, int n_baseline_paths, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    snprintf(d->split, sizeof d->split, "%s", split);
    ProbeValue *values = NULL;
    int n = 0, cap = 0, rc = 0;
    if (n_paths < 1) return sr_fail(err, "layers figure: no probe results given");
    for (int i = 0; i < n_paths && rc == 0; i++)
        rc = read_probe_file(paths[i], split, &values, &n, &cap, err);
    if (rc == 0 && n == 0)
        rc = sr_fail(err, "%s: no rows with split '%s'", paths[0], split);
    if (rc == 0) {
        qsort(values, (size_t)n, sizeof *values, compare_values);
        rc = build_series(d, values, n, err);
    }
    free(values);
    if (rc == 0 && n_baseline_paths > 0) rc = read_baselines(d, baseline_paths, n_baseline_paths, split, err);
    if (rc) {
        layers_data_free(d);
        return -1;
    }
    int most_seeds = 1;
    for (int i = 0; i < d->n_series; i++)
        for (int j = 0; j < d->series[i].n; j++)
            if (d->series[i].n_seeds[j] > most_seeds) most_seeds = d->series[i].n_seeds[j];
    snprintf(d->meta.title, sizeof d->meta.title, "Probe F1 layer by layer, for each r");
    int len = snprintf(d->meta.caption, sizeof d->meta.caption,
                       "Layers: span F1 (%s split) of a linear probe on each layer's hidden states, read "
                       "from the last copy (solid) and the first copy (dashed); ", split);
    if (most_seeds > 1)
        len += snprintf(d->meta.caption + len, sizeof d->meta.caption - len,
                        "mean over up to %d seeds, band = +-1 std; ", most_seeds);
    else
        len += snprintf(d->meta.caption + len, sizeof d->meta.caption - len, "one seed; ");
    len += snprintf(d->meta.caption + len, sizeof d->meta.caption - len, "from %s%s", paths[0],
                    n_paths > 1 ? " and more files" : "");
    if (n_baseline_paths > 0 && len < (int)sizeof d->meta.caption)
        snprintf(d->meta.caption + len, sizeof d->meta.caption - len,
                 "; baselines (horizontal): fine-tuned F1 at the deepest exit from %s%s", baseline_paths[0],
                 n_baseline_paths > 1 ? " and more files" : "");
    return 0;
}

void layers_data_free(LayersData *d)
{
    for (int i = 0; i < d->n_series; i++) {
        free(d->series[i].layer);
        free(d->series[i].mean);
        free(d->series[i].std);
        free(d->series[i].n_seeds);
    }
    free(d->series);
    free(d->baselines);
    d->series = NULL;
    d->baselines = NULL;
    d->n_series = d->n_baselines = 0;
}

void layers_data_write_csv(const LayersData *d, FILE *out)
{
    fprintf(out, "kind,label,r,copy,layer,mean_f1,std_f1,n_seeds\n");
    for (int i = 0; i < d->n_series; i++) {
        const LayersSeries *s = &d->series[i];
        const char *copy = s->copy == COPY_LAST ? "last" : "first";
        for (int j = 0; j < s->n; j++)
            fprintf(out, "probe,r = %d %s copy,%d,%s,%d,%.6g,%.6g,%d\n", s->r, copy, s->r, copy,
                    s->layer[j], s->mean[j], s->std[j], s->n_seeds[j]);
    }
    for (int i = 0; i < d->n_baselines; i++)
        fprintf(out, "baseline,\"%s\",,,,%.6g,,\n", d->baselines[i].label, d->baselines[i].f1);
}
