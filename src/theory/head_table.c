/* head_table.c — running means per layer, head and column (see head_table.h). */
#include "theory/head_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first cell of (layer, head): its column 0. */
static size_t cell(const HeadTable *t, int layer, int head)
{
    return ((size_t)layer * t->n_heads + head) * t->n_columns;
}

int head_table_init(HeadTable *t, const char *what, int n_layers, int n_heads, int n_columns,
                    const char *const *names, SrError *err)
{
    memset(t, 0, sizeof *t);
    if (n_layers < 1 || n_heads < 1)
        return sr_fail(err, "%s: need at least one layer and head (got %d, %d)", what, n_layers, n_heads);
    size_t cells = (size_t)n_layers * n_heads * n_columns;
    t->sum = calloc(cells, sizeof(double));
    t->count = calloc(cells, sizeof(int64_t));
    if (!t->sum || !t->count) {
        head_table_free(t);
        return sr_fail(err, "%s: out of memory", what);
    }
    t->n_layers = n_layers;
    t->n_heads = n_heads;
    t->n_columns = n_columns;
    t->names = names;
    return 0;
}

void head_table_free(HeadTable *t)
{
    free(t->sum);
    free(t->count);
    memset(t, 0, sizeof *t);
}

void head_table_add(HeadTable *t, int layer, int head, const double *values, const int *counted)
{
    size_t at = cell(t, layer, head);
    for (int c = 0; c < t->n_columns; c++) {
        t->sum[at + c] += values[c];
        t->count[at + c] += counted ? counted[c] : 1;
    }
}

double head_table_mean(const HeadTable *t, int layer, int head, int c)
{
    size_t at = cell(t, layer, head) + c;
    return t->count[at] ? t->sum[at] / (double)t->count[at] : 0.0;
}

int64_t head_table_count(const HeadTable *t, int layer, int head, int c)
{
    return t->count[cell(t, layer, head) + c];
}

void head_table_best(const HeadTable *t, int c, int *layer, int *head)
{
    *layer = 0;
    *head = 0;
    double best = head_table_mean(t, 0, 0, c);
    for (int l = 0; l < t->n_layers; l++)
        for (int h = 0; h < t->n_heads; h++) {
            double v = head_table_mean(t, l, h, c);
            if (v > best) {
                best = v;
                *layer = l;
                *head = h;
            }
        }
}

char *head_table_csv(const HeadTable *const *tables, int n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return NULL;
    fprintf(mem, "layer,head");
    for (int k = 0; k < n; k++)
        for (int c = 0; c < tables[k]->n_columns; c++) fprintf(mem, ",%s", tables[k]->names[c]);
    fprintf(mem, "\n");
    for (int l = 0; l < tables[0]->n_layers; l++)
        for (int h = 0; h < tables[0]->n_heads; h++) {
            fprintf(mem, "%d,%d", l, h);
            for (int k = 0; k < n; k++)
                for (int c = 0; c < tables[k]->n_columns; c++)
                    fprintf(mem, ",%.6f", head_table_mean(tables[k], l, tables[k]->n_heads == 1 ? 0 : h, c));
            fprintf(mem, "\n");
        }
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
