/* flow_data.c — the flow figure's data from an attnflow CSV. */
#include <stdlib.h>
#include <string.h>

#include "results/flow_data.h"
#include "results/results_csv.h"

/* The optional columns names[0..n) of t (rows i with layer[i] and hd[i]),
 * each a share in 0..1, into out[c] (n_layers, allocated here), for d->head
 * or the mean over heads. 1 when read, 0 when the file lacks one of them
 * (out untouched), -1 with err. */
static int read_optional(const FlowData *d, const CsvTable *t, const char *path, const int *layer, const int *hd,
                         const char *const *names, int n, double **out, SrError *err)
{
    int col[FLOW_N_CATEGORIES];
    for (int c = 0; c < n; c++)
        if ((col[c] = csv_column(t, names[c])) < 0) return 0;
    for (int c = 0; c < n; c++)
        if (!(out[c] = calloc((size_t)d->n_layers, sizeof *out[c]))) return sr_fail(err, "%s: out of memory", path);
    double weight = d->head >= 0 ? 1.0 : 1.0 / d->n_heads;
    for (int i = 0; i < t->n_rows; i++)
        for (int c = 0; c < n; c++) {
            double v;
            if (csv_number(t, i, col[c], &v, err)) return -1;
            if (v < -1e-6 || v > 1 + 1e-6)
                return sr_fail(err, "%s:%d: column '%s': share %g is outside 0..1", path, t->line[i], names[c], v);
            if (d->head < 0 || hd[i] == d->head) out[c][layer[i]] += weight * v;
        }
    return 1;
}

/* The optional columns of t: cue and non_cue, the chance levels of the
 * categories (into d->chance, by layer then category) and of the cue
 * columns. 0, or -1 with err. */
static int read_optional_columns(FlowData *d, const CsvTable *t, const char *path, const int *layer, const int *hd,
                                 SrError *err)
{
    static const char *const cues[2] = {"cue", "non_cue"}, *const cue_chance[2] = {"cue_chance", "non_cue_chance"};
    char names[FLOW_N_CATEGORIES][48];
    const char *chance_names[FLOW_N_CATEGORIES];
    double *by_category[FLOW_N_CATEGORIES] = {0}, *cue_out[2] = {0}, *cue_chance_out[2] = {0};
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
        snprintf(names[c], sizeof names[c], "%s_chance", attnflow_category_name(c));
        chance_names[c] = names[c];
    }
    int got = read_optional(d, t, path, layer, hd, cues, 2, cue_out, err);
    d->cue = cue_out[0];
    d->non_cue = cue_out[1];
    d->has_cues = got == 1;
    if (got >= 0) got = read_optional(d, t, path, layer, hd, chance_names, FLOW_N_CATEGORIES, by_category, err);
    d->has_chance = got == 1;
    if (got == 1 && !(d->chance = malloc(sizeof(double) * (size_t)d->n_layers * FLOW_N_CATEGORIES)))
        got = sr_fail(err, "%s: out of memory", path);
    for (int l = 0; d->chance && l < d->n_layers; l++)
        for (int c = 0; c < FLOW_N_CATEGORIES; c++) d->chance[l * FLOW_N_CATEGORIES + c] = by_category[c][l];
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) free(by_category[c]);
    if (got >= 0 && d->has_cues && d->has_chance)
        got = read_optional(d, t, path, layer, hd, cue_chance, 2, cue_chance_out, err);
    d->cue_chance = cue_chance_out[0];
    d->non_cue_chance = cue_chance_out[1];
    return got < 0 ? -1 : 0;
}

/* Read the rows of t (its columns cols at idx): each row's layer and head
 * into layer[] and hd[], its shares, each in 0..1, into values (n_rows x
 * FLOW_N_CATEGORIES), and the layers and heads they span into *n_layers and
 * *n_heads. 0 or -1 with err naming the file and line. */
static int read_rows(const CsvTable *t, const char *path, const char *const *cols, const int *idx, int *layer,
                     int *hd, double *values, int *n_layers, int *n_heads, SrError *err)
{
    int rc = 0;
    for (int i = 0; i < t->n_rows && rc == 0; i++) {
        rc = csv_int(t, i, idx[0], &layer[i], err) || csv_int(t, i, idx[1], &hd[i], err);
        for (int c = 0; c < FLOW_N_CATEGORIES && rc == 0; c++) {
            double v;
            rc = csv_number(t, i, idx[2 + c], &v, err);
            if (rc == 0 && (v < -1e-6 || v > 1 + 1e-6))
                rc = sr_fail(err, "%s:%d: column '%s': share %g is outside 0..1", path, t->line[i], cols[2 + c], v);
            if (rc == 0) values[(size_t)i * FLOW_N_CATEGORIES + c] = v;
        }
        if (rc == 0 && (layer[i] < 0 || hd[i] < 0 || layer[i] > 4096 || hd[i] > 4096))
            rc = sr_fail(err, "%s:%d: layer or head out of range", path, t->line[i]);
        if (rc == 0 && layer[i] + 1 > *n_layers) *n_layers = layer[i] + 1;
        if (rc == 0 && hd[i] + 1 > *n_heads) *n_heads = hd[i] + 1;
    }
    return rc;
}

/* d->share: the shares of the rows of head `head` (-1: the mean over the
 * n_heads heads), per layer, each (layer, head) pair appearing once. 0 or -1. */
static int sum_shares(FlowData *d, const CsvTable *t, const char *path, const int *layer, const int *hd,
                      const double *values, int head, SrError *err)
{
    int n_heads = d->n_heads, rc = 0;
    d->share = calloc((size_t)d->n_layers * FLOW_N_CATEGORIES, sizeof *d->share);
    int *seen = calloc((size_t)d->n_layers * n_heads, sizeof *seen);
    if (!d->share || !seen) rc = sr_fail(err, "%s: out of memory", path);
    for (int i = 0; i < t->n_rows && rc == 0; i++) {
        if (seen[layer[i] * n_heads + hd[i]]++) {
            rc = sr_fail(err, "%s:%d: layer %d, head %d appears twice", path, t->line[i], layer[i], hd[i]);
            break;
        }
        if (head >= 0 && hd[i] != head) continue;
        double weight = head >= 0 ? 1.0 : 1.0 / n_heads;
        for (int c = 0; c < FLOW_N_CATEGORIES; c++)
            d->share[layer[i] * FLOW_N_CATEGORIES + c] += weight * values[(size_t)i * FLOW_N_CATEGORIES + c];
    }
    free(seen);
    return rc;
}

/* d's title and caption: the head drawn (or the mean) and the file. */
static void describe(FlowData *d, int head, const char *path)
{
    snprintf(d->meta.title, sizeof d->meta.title, "Where last-copy tokens attend, layer by layer");
    char which[48];
    if (head >= 0) snprintf(which, sizeof which, "head %d of %d", head, d->n_heads);
    else snprintf(which, sizeof which, "mean over %d heads", d->n_heads);
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "Flow: mean share of the attention of last-copy word tokens per category of key, %s, "
             "from %s (seqrep attnflow; its manifest names the model, data, r and mask). "
             "\"earlier right\" = words to the right of the token's own word, in earlier copies.%s",
             which, path,
             d->has_chance ? " Thin outlined bar: the shares of a uniform head (each query's weight spread evenly "
                             "over the keys its mask lets it see) on the same sentences: chance." : "");
}

int flow_data_load(FlowData *d, const char *path, int head, SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    const char *cols[2 + FLOW_N_CATEGORIES] = {"layer", "head"};
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) cols[2 + c] = attnflow_category_name(c);
    int idx[2 + FLOW_N_CATEGORIES];
    int rc = csv_require(&t, cols, 2 + FLOW_N_CATEGORIES, idx, err);
    int *layer = NULL, *hd = NULL;
    double *values = NULL;
    if (rc == 0) {
        layer = malloc(sizeof(int) * (size_t)t.n_rows);
        hd = malloc(sizeof(int) * (size_t)t.n_rows);
        values = malloc(sizeof(double) * (size_t)t.n_rows * FLOW_N_CATEGORIES);
        if (!layer || !hd || !values) rc = sr_fail(err, "%s: out of memory", path);
    }
    int n_layers = 0, n_heads = 0;
    if (rc == 0) rc = read_rows(&t, path, cols, idx, layer, hd, values, &n_layers, &n_heads, err);
    if (rc == 0 && t.n_rows != n_layers * n_heads)
        rc = sr_fail(err, "%s: %d rows, expected one per (layer, head) pair: %d layers x %d heads", path,
                     t.n_rows, n_layers, n_heads);
    if (rc == 0 && (head < -1 || head >= n_heads))
        rc = sr_fail(err, "%s: head %d out of range 0..%d", path, head, n_heads - 1);
    if (rc == 0) {
        d->n_layers = n_layers;
        d->n_heads = n_heads;
        d->head = head;
        rc = sum_shares(d, &t, path, layer, hd, values, head, err);
    }
    if (rc == 0) rc = read_optional_columns(d, &t, path, layer, hd, err);
    free(layer);
    free(hd);
    free(values);
    if (rc == 0) describe(d, head, path);
    else flow_data_free(d);
    csv_free(&t);
    return rc ? -1 : 0;
}

void flow_data_free(FlowData *d)
{
    free(d->share);
    free(d->cue);
    free(d->non_cue);
    free(d->chance);
    free(d->cue_chance);
    free(d->non_cue_chance);
    d->share = d->cue = d->non_cue = d->chance = d->cue_chance = d->non_cue_chance = NULL;
    d->n_layers = d->has_cues = d->has_chance = 0;
}

void flow_data_write_csv(const FlowData *d, FILE *out)
{
    fprintf(out, "layer,head");
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) fprintf(out, ",%s", attnflow_category_name(c));
    for (int c = 0; d->has_chance && c < FLOW_N_CATEGORIES; c++) fprintf(out, ",%s_chance", attnflow_category_name(c));
    if (d->has_cues) fprintf(out, ",cue,non_cue%s", d->has_chance ? ",cue_chance,non_cue_chance" : "");
    fprintf(out, "\n");
    for (int l = 0; l < d->n_layers; l++) {
        if (d->head >= 0) fprintf(out, "%d,%d", l, d->head);
        else fprintf(out, "%d,mean", l);
        for (int c = 0; c < FLOW_N_CATEGORIES; c++) fprintf(out, ",%.6f", d->share[l * FLOW_N_CATEGORIES + c]);
        for (int c = 0; d->has_chance && c < FLOW_N_CATEGORIES; c++)
            fprintf(out, ",%.6f", d->chance[l * FLOW_N_CATEGORIES + c]);
        if (d->has_cues) fprintf(out, ",%.6f,%.6f", d->cue[l], d->non_cue[l]);
        if (d->has_cues && d->has_chance) fprintf(out, ",%.6f,%.6f", d->cue_chance[l], d->non_cue_chance[l]);
        fprintf(out, "\n");
    }
}
