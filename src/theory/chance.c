/* chance.c — the attention of a uniform head and the chance levels it gives
 * (see chance.h). */
#include "theory/chance.h"

#include <stdlib.h>
#include <string.h>

void chance_uniform_head(float *att, int stride, int T, MaskKind kind, int window)
{
    for (int t = 0; t < T; t++) {
        float *row = att + (size_t)t * stride;
        int start, end;
        mask_key_range(kind, window, t, T, &start, &end);
        memset(row, 0, sizeof(float) * (size_t)stride);
        for (int s = start; s < end; s++) row[s] = 1.0f / (float)(end - start);
    }
}

int chance_add_layers(const ModelConfig *cfg, const MaskKind *plan, const RepeatLayout *lay, ChanceAdd add,
                      void *ctx, SrError *err)
{
    int T = lay->T;
    float *att = malloc(sizeof(float) * (size_t)T * (size_t)T);
    if (!att) return sr_fail(err, "chance levels: out of memory for %d x %d keys", T, T);
    MaskKind kind = MASK_CAUSAL;
    int window = 0;
    for (int l = 0; l < cfg->n_layers; l++) {
        MaskKind k = plan ? plan[l] : MASK_CAUSAL;
        int w = model_layer_window(cfg, l);
        /* the same rule as the layer before: its uniform head is already there */
        if (l == 0 || k != kind || w != window) chance_uniform_head(att, T, T, k, w);
        kind = k;
        window = w;
        add(ctx, l, att, T, lay);
    }
    free(att);
    return 0;
}
