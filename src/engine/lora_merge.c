/* lora_merge.c — W += (alpha / rank) B A for every adapter (see lora_merge.h). */
#include "engine/lora_merge.h"

/* The (out, in) weight adapter target t of layer l adapts, inside m's
 * parameters: rows [0,Q), [Q,Q+K) or [Q+K,Q+2K) of wqkv[l], or wo[l]. */
static float *target_weight(Model *m, int l, LoraTarget t)
{
    size_t C = (size_t)m->cfg.d_model, Q = model_q_dim(&m->cfg), K = model_kv_dim(&m->cfg);
    if (t == LORA_O) return m->p.wo + (size_t)l * C * Q;
    size_t row = t == LORA_Q ? 0 : t == LORA_K ? Q : Q + K;
    return m->p.wqkv + (size_t)l * (Q + 2 * K) * C + row * C;
}

int lora_merge(Model *m, const Lora *lo, SrError *err)
{
    const int C = m->cfg.d_model, R = lo->cfg.rank;
    if (lo->n_layers != m->cfg.n_layers || lo->d_model != C || lo->q_dim != model_q_dim(&m->cfg) ||
        lo->kv_dim != model_kv_dim(&m->cfg))
        return sr_fail(err, "adapters for %d layers of width %d do not fit a model of %d layers "
                            "of width %d (query width %d, key/value width %d; the adapters': %d, "
                            "%d)", lo->n_layers, lo->d_model, m->cfg.n_layers, C,
                       model_q_dim(&m->cfg), model_kv_dim(&m->cfg), lo->q_dim, lo->kv_dim);
    if (m->matrices)
        return sr_fail(err, "adapters cannot be merged into weights kept as stored (BF16 or F16); "
                       "load the model widened to float32 for that");
    const float s = lo->cfg.alpha / (float)R;
    for (int l = 0; l < lo->n_layers; l++)
        for (int t = 0; t < LORA_N_TARGETS; t++) {
            const float *a = lora_a(lo, l, (LoraTarget)t, 0), *b = lora_b(lo, l, (LoraTarget)t, 0);
            if (!a) continue;
            float *w = target_weight(m, l, (LoraTarget)t);
            int in = lora_in_dim(lo, (LoraTarget)t), out = lora_out_dim(lo, (LoraTarget)t);
            for (int i = 0; i < out; i++)
                for (int j = 0; j < in; j++) {
                    double ba = 0.0; /* (B A)[i][j], summed over the rank */
                    for (int r = 0; r < R; r++) ba += (double)b[(size_t)i * R + r] * a[(size_t)r * in + j];
                    w[(size_t)i * in + j] += s * (float)ba;
                }
        }
    return 0;
}
