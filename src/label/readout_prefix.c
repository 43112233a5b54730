/* readout_prefix.c — every r's features from one pass of the longest
 * repetition (see readout_prefix.h). */
#include "label/readout_prefix.h"

#include <stdlib.h>
#include <string.h>

int readout_prefix_applies(const MaskKind *mask, int n_layers)
{
    for (int l = 0; mask && l < n_layers; l++)
        if (mask[l] != MASK_CAUSAL) return 0;
    return 1;
}

/* Copy the rows (B, T_small flat indices) of the small batch's words from the
 * hidden states (B, T_big, C) of the big batch, whose rows hold the same
 * sentences in the same order, to their places in out (pd->n_words, C). */
static void gather_prefix(const ReadoutBatch *small, const ReadoutBatch *big, const PiecedData *pd,
                          const float *hidden, int C, const int *rows, float *out)
{
    for (int i = 0; i < small->B; i++) {
        int s = small->sent[i];
        for (int k = 0; k < pd->sents[s].n_words; k++) {
            int row = rows[small->word_start[i] + k];
            size_t big_row = (size_t)(row / small->T) * big->T + row % small->T;
            memcpy(out + (size_t)(pd->word_start[s] + k) * C, hidden + big_row * C,
                   sizeof(float) * (size_t)C);
        }
    }
}

int readout_collect_prefixes(Model *m, const PiecedData *pd, ReadoutLayout lay, const int *r_values,
                             int n_r, const MaskKind *mask, const float *head_scale, int batch_size,
                             float *const *last, float *first, SrError *err)
{
    const int C = m->cfg.d_model, L = m->cfg.n_layers;
    if (!readout_prefix_applies(mask, L))
        return sr_fail(err, "one pass for every r needs a causal mask in every layer");
    ReadoutLayout big_lay = lay;
    big_lay.r = 0;
    for (int ri = 0; ri < n_r; ri++)
        if (r_values[ri] > big_lay.r) big_lay.r = r_values[ri];
    ReadoutBatch big = {0}, small = {0};
    int *order = malloc(sizeof(int) * (size_t)(pd->n_sents > 0 ? pd->n_sents : 1));
    if (!order) return sr_fail(err, "out of memory");
    for (int s = 0; s < pd->n_sents; s++) order[s] = s;
    int rc = readout_sort_by_length(pd, big_lay, order, pd->n_sents, err);
    for (int s0 = 0; s0 < pd->n_sents && rc == 0; s0 += batch_size) {
        int n = pd->n_sents - s0 < batch_size ? pd->n_sents - s0 : batch_size;
        rc = readout_batch_build(&big, pd, order + s0, n, big_lay, m->max_T, err);
        ModelInput in = readout_model_input(&big, mask, head_scale, 0);
        if (rc == 0) rc = model_forward(m, &in, err);
        for (int ri = 0; ri < n_r && rc == 0; ri++) {
            ReadoutLayout r_lay = lay;
            r_lay.r = r_values[ri];
            rc = readout_batch_build(&small, pd, order + s0, n, r_lay, 0, err);
            for (int l = 0; l <= L && rc == 0; l++) {
                const float *hidden = model_hidden(m, l);
                gather_prefix(&small, &big, pd, hidden, C, small.last_rows,
                              last[ri] + (size_t)l * pd->n_words * C);
                if (first && ri == 0)
                    gather_prefix(&small, &big, pd, hidden, C, small.first_rows,
                                  first + (size_t)l * pd->n_words * C);
            }
        }
    }
    readout_batch_free(&big);
    readout_batch_free(&small);
    free(order);
    return rc;
}
