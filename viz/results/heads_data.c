/* heads_data.c — the heads figure's data from a `seqrep heads` CSV and its
 * manifest. */
#include "results/heads_data.h"

#include <stdlib.h>
#include <string.h>

#include "base/csv.h"
#include "base/text_append.h"
#include "results/results_csv.h"

/* The largest layer or head number a file may hold. */
#define HEADS_MAX_INDEX 1023

static const char *const SCORE_LABELS[HEAD_N_SCORES] = {"copy", "induction", "previous token", "sink",
                                                        "own copy"};
/* What each score measures, for the caption. */
static const char *const SCORE_MEANINGS[HEAD_N_SCORES] = {
    "copy = to the same piece in the copy before",
    "induction = to the piece after the same piece in the copy before",
    "previous token = to the position just before", "sink = to the first position",
    "own copy = inside the last copy"};

const char *head_score_label(HeadScore s)
{
    return s >= 0 && s < HEAD_N_SCORES ? SCORE_LABELS[s] : "?";
}

void head_scores_list(char *out, size_t cap)
{
    size_t used = 0;
    if (cap) out[0] = 0;
    for (int i = 0; i < HEAD_N_SCORES && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", head_score_name((HeadScore)i));
}

int head_scores_parse(const char *list, HeadScore *out, int *n, SrError *err)
{
    char names[128];
    head_scores_list(names, sizeof names);
    *n = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0) return sr_fail(err, "--scores: an empty name in '%s' (scores: %s)", list, names);
        int found = -1;
        for (int s = 0; s < HEAD_N_SCORES && found < 0; s++)
            if (strlen(head_score_name((HeadScore)s)) == len && strncmp(p, head_score_name((HeadScore)s), len) == 0) found = s;
        if (found < 0)
            return sr_fail(err, "--scores: unknown score '%.*s' (scores: %s)", (int)(len < 40 ? len : 40), p, names);
        for (int i = 0; i < *n; i++)
            if (out[i] == (HeadScore)found) return sr_fail(err, "--scores: '%s' given twice", head_score_name((HeadScore)found));
        out[(*n)++] = (HeadScore)found;
        p += len;
        if (!*p) return 0;
    }
}

double heads_value(const HeadsData *d, int p, int layer, int head)
{
    return d->value[((size_t)p * d->n_layers + layer) * d->n_heads + head];
}

/* Read layer, head (into layer[i], head[i]) and the scores (into values,
 * (n_rows, n_scores)) of every row of t; idx holds the columns layer, head
 * and the scores. Fails on a field that is no number or out of range. */
static int read_rows(const CsvTable *t, const int *idx, int n_scores, int *layer, int *head, double *values,
                     SrError *err)
{
    for (int i = 0; i < t->n_rows; i++) {
        long l, h;
        if (csv_file_long(t, i, idx[0], 0, HEADS_MAX_INDEX, &l, err) ||
            csv_file_long(t, i, idx[1], 0, HEADS_MAX_INDEX, &h, err))
            return -1;
        layer[i] = (int)l;
        head[i] = (int)h;
        for (int s = 0; s < n_scores; s++) {
            double v;
            if (csv_number(t, i, idx[2 + s], &v, err)) return -1;
            if (v < 0 || v > 1)
                return sr_fail(err, "%s:%d: column '%s': %g is outside 0..1", t->path, t->line[i],
                               t->header[idx[2 + s]], v);
            values[(size_t)i * n_scores + s] = v;
        }
    }
    return 0;
}

/* Place the rows into d->value (n_layers x n_heads from the largest
 * numbers), failing on a pair seen twice or one missing. */
static int fill_grid(HeadsData *d, const CsvTable *t, const int *layer, const int *head, const double *values,
                     SrError *err)
{
    for (int i = 0; i < t->n_rows; i++) {
        if (layer[i] + 1 > d->n_layers) d->n_layers = layer[i] + 1;
        if (head[i] + 1 > d->n_heads) d->n_heads = head[i] + 1;
    }
    size_t cells = (size_t)d->n_layers * d->n_heads;
    int *row_of = malloc(sizeof(int) * cells), rc = 0; /* the row of each cell, -1 for none */
    if (!row_of) return sr_fail(err, "%s: out of memory", t->path);
    for (size_t cell = 0; cell < cells; cell++) row_of[cell] = -1;
    for (int i = 0; i < t->n_rows && rc == 0; i++) {
        size_t cell = (size_t)layer[i] * d->n_heads + head[i];
        if (row_of[cell] >= 0)
            rc = sr_fail(err, "%s:%d: layer %d, head %d appears twice (first on line %d)", t->path, t->line[i],
                         layer[i], head[i], t->line[row_of[cell]]);
        row_of[cell] = i;
    }
    for (size_t cell = 0; cell < cells && rc == 0; cell++)
        if (row_of[cell] < 0)
            rc = sr_fail(err, "%s: layer %d, head %d is missing (%d layers x %d heads in the file)", t->path,
                         (int)(cell / d->n_heads), (int)(cell % d->n_heads), d->n_layers, d->n_heads);
    if (rc == 0 && !(d->value = malloc(sizeof(double) * cells * d->n_scores)))
        rc = sr_fail(err, "%s: out of memory", t->path);
    for (size_t cell = 0; cell < cells && rc == 0; cell++)
        for (int s = 0; s < d->n_scores; s++)
            d->value[s * cells + cell] = values[(size_t)row_of[cell] * d->n_scores + s];
    free(row_of);
    return rc;
}

/* The chance levels of the scores drawn, when t has every one of their
 * columns (SCORE_chance), into d->chance per panel and layer: the mean over
 * the layer's rows (the same value on each). 0, or -1 with err. */
static int read_chance(HeadsData *d, const CsvTable *t, const int *layer, SrError *err)
{
    int col[HEAD_N_SCORES];
    char name[48];
    for (int p = 0; p < d->n_scores; p++) {
        snprintf(name, sizeof name, "%s_chance", head_score_name(d->scores[p]));
        if ((col[p] = csv_column(t, name)) < 0) return 0;
    }
    d->chance = calloc((size_t)d->n_scores * d->n_layers, sizeof *d->chance);
    if (!d->chance) return sr_fail(err, "%s: out of memory", t->path);
    for (int i = 0; i < t->n_rows; i++)
        for (int p = 0; p < d->n_scores; p++) {
            double v;
            if (csv_number(t, i, col[p], &v, err)) return -1;
            if (v < 0 || v > 1)
                return sr_fail(err, "%s:%d: column '%s': %g is outside 0..1", t->path, t->line[i], t->header[col[p]], v);
            d->chance[(size_t)p * d->n_layers + layer[i]] += v / d->n_heads;
        }
    d->has_chance = 1;
    return 0;
}

int heads_at_chance(const HeadsData *d, int p, int layer, int head)
{
    return d->has_chance && heads_value(d, p, layer, head) <= d->chance[(size_t)p * d->n_layers + layer] + 1e-9;
}

/* The best head of every panel: the highest value, the first in (layer,
 * head) order on a tie. */
static void find_best(HeadsData *d)
{
    for (int p = 0; p < d->n_scores; p++) {
        d->best_layer[p] = d->best_head[p] = 0;
        for (int l = 0; l < d->n_layers; l++)
            for (int h = 0; h < d->n_heads; h++)
                if (heads_value(d, p, l, h) > heads_value(d, p, d->best_layer[p], d->best_head[p])) {
                    d->best_layer[p] = l;
                    d->best_head[p] = h;
                }
    }
}

/* What the manifest of `seqrep heads` says of the run: model, r, input. */
static void append_run(char *buf, size_t cap, size_t *used, const cJSON *m)
{
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(m, "model");
    const cJSON *adapter = cJSON_GetObjectItemCaseSensitive(m, "adapter");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "r");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(m, "data");
    const cJSON *random = cJSON_GetObjectItemCaseSensitive(m, "random_pieces");
    text_append(buf, cap, used, " Model %s", cJSON_IsString(model) ? model->valuestring : "(not in the manifest)");
    if (cJSON_IsString(adapter)) text_append(buf, cap, used, " with the adapter %s", adapter->valuestring);
    if (cJSON_IsNumber(r)) text_append(buf, cap, used, ", r = %g", r->valuedouble);
    if (cJSON_IsString(data)) text_append(buf, cap, used, ", input: the sentences of %s.", data->valuestring);
    else if (cJSON_IsNumber(random)) {
        text_append(buf, cap, used, ", input: random sequences of %g pieces", random->valuedouble);
        const cJSON *icl = cJSON_GetObjectItemCaseSensitive(m, "icl_score");
        const cJSON *first = cJSON_GetObjectItemCaseSensitive(m, "loss_first_copy");
        const cJSON *last = cJSON_GetObjectItemCaseSensitive(m, "loss_last_copy");
        if (cJSON_IsNumber(icl) && cJSON_IsNumber(first) && cJSON_IsNumber(last))
            text_append(buf, cap, used, " (in-context learning score %.3f: loss %.3f on the first copy, %.3f on the last)",
                   icl->valuedouble, first->valuedouble, last->valuedouble);
        text_append(buf, cap, used, ".");
    } else {
        text_append(buf, cap, used, ", input not in the manifest.");
    }
}

/* Title and caption: what the cells are, the run, the best heads, the file. */
static void write_meta(HeadsData *d, const char *path, const cJSON *manifest)
{
    snprintf(d->meta.title, sizeof d->meta.title, "Head roles: where each attention head looks");
    char *c = d->meta.caption;
    size_t cap = sizeof d->meta.caption, used = 0;
    text_append(c, cap, &used, "Mean attention of the queries of the last copy, per layer (rows) and head (columns), "
                          "on a fixed 0-1 scale:");
    for (int p = 0; p < d->n_scores; p++)
        text_append(c, cap, &used, "%s %s", p ? ";" : "", SCORE_MEANINGS[d->scores[p]]);
    text_append(c, cap, &used, ". Outlined: the best head of each score (");
    for (int p = 0; p < d->n_scores; p++)
        text_append(c, cap, &used, "%s%s layer %d head %d, %.2f", p ? "; " : "", SCORE_LABELS[d->scores[p]],
               d->best_layer[p], d->best_head[p], heads_value(d, p, d->best_layer[p], d->best_head[p]));
    text_append(c, cap, &used, ").");
    if (d->has_chance)
        text_append(c, cap, &used, " A dot in a cell's corner: at or below chance, the score of a uniform head (each "
                                   "query's weight spread evenly over the keys its mask lets it see) in that layer.");
    if (manifest) append_run(c, cap, &used, manifest);
    else text_append(c, cap, &used, " No manifest beside the file: model, r and input unknown.");
    text_append(c, cap, &used, " From %s (seqrep heads).", path);
}

int heads_data_load(HeadsData *d, const char *path, const HeadScore *scores, int n_scores, const cJSON *manifest,
                    SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    if (n_scores < 1 || n_scores > HEAD_N_SCORES) return sr_fail(err, "heads: %d scores asked for", n_scores);
    d->n_scores = n_scores;
    memcpy(d->scores, scores, sizeof *scores * (size_t)n_scores);
    CsvTable t;
    if (csv_read(path, &t, err)) return -1;
    const char *cols[2 + HEAD_N_SCORES] = {"layer", "head"};
    for (int s = 0; s < n_scores; s++) cols[2 + s] = head_score_name(scores[s]);
    int idx[2 + HEAD_N_SCORES];
    int *layer = malloc(sizeof(int) * (size_t)t.n_rows), *head = malloc(sizeof(int) * (size_t)t.n_rows);
    double *values = malloc(sizeof(double) * (size_t)t.n_rows * n_scores);
    int rc = csv_require(&t, cols, 2 + n_scores, idx, err);
    if (rc == 0 && (!layer || !head || !values)) rc = sr_fail(err, "%s: out of memory", path);
    if (rc == 0) rc = read_rows(&t, idx, n_scores, layer, head, values, err);
    if (rc == 0) rc = fill_grid(d, &t, layer, head, values, err);
    if (rc == 0) rc = read_chance(d, &t, layer, err);
    free(layer);
    free(head);
    free(values);
    csv_free(&t);
    if (rc) {
        heads_data_free(d);
        return -1;
    }
    find_best(d);
    write_meta(d, path, manifest);
    return 0;
}

void heads_data_free(HeadsData *d)
{
    free(d->value);
    free(d->chance);
    d->value = d->chance = NULL;
    d->n_layers = d->n_heads = d->has_chance = 0;
}

void heads_data_write_csv(const HeadsData *d, FILE *out)
{
    fprintf(out, "score,layer,head,value,best%s\n", d->has_chance ? ",chance,at_chance" : "");
    for (int p = 0; p < d->n_scores; p++)
        for (int l = 0; l < d->n_layers; l++)
            for (int h = 0; h < d->n_heads; h++) {
                fprintf(out, "%s,%d,%d,%.6f,%d", head_score_name(d->scores[p]), l, h, heads_value(d, p, l, h),
                        l == d->best_layer[p] && h == d->best_head[p]);
                if (d->has_chance)
                    fprintf(out, ",%.6f,%d", d->chance[(size_t)p * d->n_layers + l], heads_at_chance(d, p, l, h));
                fprintf(out, "\n");
            }
}
