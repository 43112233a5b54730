/* repo_z_data.c — the data of the z figures (repo-z, repo-repeat) read from
 * a z CSV: z per token of one layer and head, its quartiles and the values
 * clipped to the 1.5 IQR fences, and the numbers written back as CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repo/repo_z_data.h"
#include "results/results_csv.h"

/* qsort comparison of doubles, ascending. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void repo_quartiles(const double *v, int n, double *q1, double *q3)
{
    double *s = malloc(sizeof(double) * (size_t)n);
    if (!s) {
        *q1 = *q3 = v[0];
        return;
    }
    memcpy(s, v, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    double at[2] = {0.25 * (n - 1), 0.75 * (n - 1)}, *out[2] = {q1, q3};
    for (int k = 0; k < 2; k++) {
        int i = (int)floor(at[k]);
        double f = at[k] - i;
        *out[k] = i + 1 < n ? s[i] * (1.0 - f) + s[i + 1] * f : s[i];
    }
    free(s);
}

void repo_z_data_free(RepoZData *d)
{
    if (d->token)
        for (int i = 0; i < d->n; i++) free(d->token[i]);
    free(d->token);
    free(d->index);
    free(d->z);
    free(d->shown);
    free(d->copy);
    free(d->word);
    memset(d, 0, sizeof *d);
}

int repo_z_data_alloc(RepoZData *d, int n, int layer, int head)
{
    d->n = n;
    d->layer = layer;
    d->head = head;
    d->index = malloc(sizeof(int) * (size_t)n);
    d->copy = malloc(sizeof(int) * (size_t)n);
    d->word = malloc(sizeof(int) * (size_t)n);
    d->z = malloc(sizeof(double) * (size_t)n);
    d->shown = malloc(sizeof(double) * (size_t)n);
    d->token = calloc((size_t)n, sizeof(char *));
    return d->index && d->copy && d->word && d->z && d->shown && d->token ? 0 : -1;
}

/* One kept row of the z CSV, for sorting by index. */
typedef struct {
    int index, copy, word, row;
    double z;
} ZRow;

static int cmp_zrow(const void *a, const void *b)
{
    const ZRow *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

int repo_z_data_load(RepoZData *d, const char *path, int layer, int head, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    static const char *const cols[] = {"layer", "head", "index", "token", "copy", "word", "z"};
    int c[7];
    ZRow *rows = malloc(sizeof(ZRow) * (size_t)t.n_rows);
    int rc = rows ? csv_require(&t, cols, 7, c, err) : sr_fail(err, "%s: out of memory", path);
    int lmin = 0, lmax = -1, hmin = 0, hmax = -1, n = 0;
    for (int i = 0; i < t.n_rows && rc == 0; i++) { /* ranges first, for -1 and messages */
        int l, h;
        if (csv_int(&t, i, c[0], &l, err) || csv_int(&t, i, c[1], &h, err)) rc = -1;
        else {
            if (lmax < 0 || l < lmin) lmin = l;
            if (l > lmax) lmax = l;
            if (hmax < 0 || h < hmin) hmin = h;
            if (h > hmax) hmax = h;
        }
    }
    if (rc == 0 && layer < 0) layer = lmax;
    for (int i = 0; i < t.n_rows && rc == 0; i++) {
        int l, h;
        ZRow r = {.row = i};
        if (csv_int(&t, i, c[0], &l, err) || csv_int(&t, i, c[1], &h, err)) rc = -1;
        else if (l != layer || h != head) continue;
        else if (csv_int(&t, i, c[2], &r.index, err) || csv_int(&t, i, c[4], &r.copy, err) ||
                 csv_int(&t, i, c[5], &r.word, err) || csv_number(&t, i, c[6], &r.z, err))
            rc = -1;
        else rows[n++] = r;
    }
    if (rc == 0 && n == 0)
        rc = sr_fail(err, "%s: no rows for layer %d, head %d (layers %d..%d, heads %d..%d)", path,
                     layer, head, lmin, lmax, hmin, hmax);
    if (rc == 0) {
        qsort(rows, (size_t)n, sizeof(ZRow), cmp_zrow);
        if (repo_z_data_alloc(d, n, layer, head)) rc = sr_fail(err, "%s: out of memory", path);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        d->index[i] = rows[i].index;
        d->copy[i] = rows[i].copy;
        d->word[i] = rows[i].word;
        d->z[i] = rows[i].z;
        d->token[i] = strdup(csv_cell(&t, rows[i].row, c[3]));
        if (!d->token[i]) rc = sr_fail(err, "%s: out of memory", path);
        if (rows[i].copy + 1 > d->n_copies) d->n_copies = rows[i].copy + 1;
    }
    free(rows);
    csv_free(&t);
    if (rc) {
        repo_z_data_free(d);
        return -1;
    }
    repo_z_data_finish(d, path);
    return 0;
}

void repo_z_data_finish(RepoZData *d, const char *source)
{
    int n = d->n;
    d->n_clipped = 0;
    repo_quartiles(d->z, n, &d->q1, &d->q3);
    double iqr = d->q3 - d->q1;
    d->lo_fence = d->q1 - 1.5 * iqr;
    d->hi_fence = d->q3 + 1.5 * iqr;
    for (int i = 0; i < n; i++) {
        double v = d->z[i];
        d->shown[i] = v < d->lo_fence ? d->lo_fence : v > d->hi_fence ? d->hi_fence : v;
        d->n_clipped += d->shown[i] != v;
    }
    snprintf(d->meta.title, sizeof d->meta.title, "RePo positions z, layer %d, head %d", d->layer, d->head);
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "z of each of the %d tokens of %s%s. Values beyond 1.5 IQR of the quartiles "
             "(fences %.3g and %.3g) are clipped to the fence: %d point%s, drawn as hollow "
             "triangles.", n, source, d->n_copies >= 2 ? " (an input repeated, coloured by copy)" : "",
             d->lo_fence, d->hi_fence, d->n_clipped, d->n_clipped == 1 ? "" : "s");
}

void repo_z_data_write_csv(const RepoZData *d, FILE *out)
{
    fprintf(out, "index,token,copy,word,z,shown,clipped\n");
    for (int i = 0; i < d->n; i++) {
        const char *tok = d->token[i];
        fprintf(out, "%d,", d->index[i]);
        if (strpbrk(tok, ",\"")) {
            fputc('"', out);
            for (const char *p = tok; *p; p++) {
                if (*p == '"') fputc('"', out);
                fputc(*p, out);
            }
            fputc('"', out);
        } else {
            fputs(tok, out);
        }
        fprintf(out, ",%d,%d,%.6g,%.6g,%d\n", d->copy[i], d->word[i], d->z[i], d->shown[i],
                d->shown[i] != d->z[i]);
    }
}

void repo_z_tooltip(const RepoZData *d, int i, char *out, size_t cap)
{
    if (i < 0 || i >= d->n) {
        if (cap) out[0] = 0;
        return;
    }
    char where[48];
    if (d->copy[i] >= 0) snprintf(where, sizeof where, "copy %d, word %d", d->copy[i] + 1, d->word[i]);
    else snprintf(where, sizeof where, "no copy");
    int len = snprintf(out, cap, "token %d '%.30s' (%s)\nz = %.4g", d->index[i], d->token[i], where, d->z[i]);
    if (d->shown[i] != d->z[i] && len >= 0 && (size_t)len < cap)
        snprintf(out + len, cap - (size_t)len, " (drawn at the fence %.4g)", d->shown[i]);
}
