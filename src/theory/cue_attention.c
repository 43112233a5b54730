/* cue_attention.c — the attention of entity words on their cue word in the
 * earlier copies, against the other words on the cue's side (see
 * cue_attention.h). */
#include "theory/cue_attention.h"

#include <stddef.h>

/* The columns' names in the CSV. */
static const char *const COLUMN_NAMES[CUE_N_COLUMNS] = {"cue", "non_cue"};
/* ... and of their chance levels (a uniform head's shares). */
static const char *const CHANCE_NAMES[CUE_N_COLUMNS] = {"cue_chance", "non_cue_chance"};

int cue_attention_init(CueAttention *c, int n_layers, int n_heads, SrError *err)
{
    return head_table_init(c, "cue attention", n_layers, n_heads, CUE_N_COLUMNS, COLUMN_NAMES, err);
}

int cue_attention_chance_init(CueAttention *c, int n_layers, SrError *err)
{
    return head_table_init(c, "cue attention", n_layers, 1, CUE_N_COLUMNS, CHANCE_NAMES, err);
}

void cue_attention_free(CueAttention *c)
{
    head_table_free(c);
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
        for (int h = 0; h < c->n_heads; h++) {
            const float *row = att + ((size_t)h * stride + lay->last_rows[word_start[w]]) * stride;
            double share[CUE_N_COLUMNS];
            int counted[CUE_N_COLUMNS] = {1, 0};
            share[CUE_SHARE] = cue_attention_word_share(row, lay, word_start, cue[w]);
            counted[NON_CUE_SHARE] = non_cue_share(row, lay, word_start, n_words, w, cue[w], &share[NON_CUE_SHARE]);
            head_table_add(c, layer, h, share, counted);
        }
    }
}

double cue_attention_cue_mean(const CueAttention *c, int layer, int head)
{
    return head_table_mean(c, layer, head, CUE_SHARE);
}

double cue_attention_non_cue_mean(const CueAttention *c, int layer, int head)
{
    return head_table_mean(c, layer, head, NON_CUE_SHARE);
}

int64_t cue_attention_queries(const CueAttention *c, int layer)
{
    return head_table_count(c, layer, 0, CUE_SHARE);
}

int64_t cue_attention_non_cue_queries(const CueAttention *c, int layer)
{
    return head_table_count(c, layer, 0, NON_CUE_SHARE);
}
