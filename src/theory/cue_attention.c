/* cue_attention.c — the attention of entity words on their cue word in the
 * earlier copies, against the other words on the cue's side (see
 * cue_attention.h). */
#include "theory/cue_attention.h"

#include <stdlib.h>
#include <string.h>

int cue_attention_init(CueAttention *c, int n_layers, int n_heads, SrError *err)
{
    memset(c, 0, sizeof *c);
    if (n_layers < 1 || n_heads < 1)
        return sr_fail(err, "cue attention: need at least one layer and head (got %d, %d)", n_layers, n_heads);
    size_t cells = (size_t)n_layers * n_heads;
    c->cue_sum = calloc(cells, sizeof(double));
    c->non_cue_sum = calloc(cells, sizeof(double));
    c->n_queries = calloc((size_t)n_layers, sizeof(int64_t));
    c->n_non_cue = calloc((size_t)n_layers, sizeof(int64_t));
    if (!c->cue_sum || !c->non_cue_sum || !c->n_queries || !c->n_non_cue) {
        cue_attention_free(c);
        return sr_fail(err, "cue attention: out of memory");
    }
    c->n_layers = n_layers;
    c->n_heads = n_heads;
    return 0;
}

void cue_attention_free(CueAttention *c)
{
    free(c->cue_sum);
    free(c->non_cue_sum);
    free(c->n_queries);
    free(c->n_non_cue);
    memset(c, 0, sizeof *c);
}

double cue_attention_word_share(const float *row, const RepeatLayout *lay, const int *word_start, int j)
{
    double share = 0.0;
    for (int copy = 0; copy < lay->k - 1; copy++)
        for (int p = word_start[j]; p < word_start[j + 1]; p++) share += row[lay->copy_start[copy] + p];
    return share;
}

/* The mean share of the words on the cue's side of query word w, the cue
 * excepted, into *out; 0 when there is no such word (1 otherwise). */
static int non_cue_share(const float *row, const RepeatLayout *lay, const int *word_start, int n_words, int w,
                         int cue, double *out)
{
    int from = cue > w ? w + 1 : 0, to = cue > w ? n_words : w, n = 0;
    double sum = 0.0;
    for (int j = from; j < to; j++) {
        if (j == cue) continue;
        sum += cue_attention_word_share(row, lay, word_start, j);
        n++;
    }
    *out = n ? sum / n : 0.0;
    return n > 0;
}

void cue_attention_add_layer(CueAttention *c, int layer, const float *att, int stride, const RepeatLayout *lay,
                             const int *word_start, const int *cue, int n_words)
{
    for (int w = 0; w < n_words; w++) {
        if (cue[w] < 0) continue;
        int has_other = 0;
        for (int h = 0; h < c->n_heads; h++) {
            const float *row = att + ((size_t)h * stride + lay->last_rows[word_start[w]]) * stride;
            size_t cell = (size_t)layer * c->n_heads + h;
            c->cue_sum[cell] += cue_attention_word_share(row, lay, word_start, cue[w]);
            double other;
            has_other = non_cue_share(row, lay, word_start, n_words, w, cue[w], &other);
            c->non_cue_sum[cell] += other;
        }
        c->n_queries[layer]++;
        c->n_non_cue[layer] += has_other;
    }
}

double cue_attention_cue_mean(const CueAttention *c, int layer, int head)
{
    int64_t n = c->n_queries[layer];
    return n ? c->cue_sum[(size_t)layer * c->n_heads + head] / (double)n : 0.0;
}

double cue_attention_non_cue_mean(const CueAttention *c, int layer, int head)
{
    int64_t n = c->n_non_cue[layer];
    return n ? c->non_cue_sum[(size_t)layer * c->n_heads + head] / (double)n : 0.0;
}
