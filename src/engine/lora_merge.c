/* lora_merge.c — W += (alpha / rank) B A for every adapter (see lora_merge.h). */
#include "engine/lora_merge.h"

/* The (C, C) weight adapter target t of layer l adapts, inside m's parameters. */
static float *target_weight(Model *m, int l, LoraTarget t)
{
    size_t C = (size_t)m->cfg.d_model;
    if (t == LORA_O) return m->p.wo + (size_t)l * C * C;
    return m->p.wqkv + (size_t)l * 3 * C * C + (size_t)t * C * C;
}

int lora_merge(Model *m, const Lora *lo, SrError *err)
{
    const int C = m->cfg.d_model, R = lo->cfg.rank;
    if (lo->n_layers != m->cfg.n_layers || lo->d_model != C)
        return sr_fail(err, "adapters for %d layers of width %d do not fit a model of %d layers of "
                            "width %d", lo->n_layers, lo->d_model, m->cfg.n_layers, C);
    if (model_forward_only(&m->cfg))
        return sr_fail(err, "adapters on a model with grouped-query attention, biases, q/k norms "
                            "or scaled RoPE: not supported yet");
    const float s = lo->cfg.alpha / (float)R;
    for (int l = 0; l < lo->n_layers; l++)
        for (int t = 0; t < LORA_N_TARGETS; t++) {
            const float *a = lora_a(lo, l, (LoraTarget)t, 0), *b = lora_b(lo, l, (LoraTarget)t, 0);
            if (!a) continue;
            float *w = target_weight(m, l, (LoraTarget)t);
            for (int i = 0; i < C; i++)
                for (int j = 0; j < C; j++) {
                    double ba = 0.0; /* (B A)[i][j], summed over the rank */
                    for (int r = 0; r < R; r++) ba += (double)b[(size_t)i * R + r] * a[(size_t)r * C + j];
                    w[(size_t)i * C + j] += s * (float)ba;
                }
        }
    return 0;
}
