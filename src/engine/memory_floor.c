/* memory_floor.c — the computed memory floor of a training step (see memory_floor.h). */
#include "engine/memory_floor.h"

MemoryFloor memory_floor_training(const ModelConfig *c, int B, int T, size_t n_trained, int n_run,
                                  int with_lm_head)
{
    size_t sizes[MODEL_N_PARAM_TENSORS];
    model_param_sizes(c, sizes);
    double n_params = 0.0;
    for (int i = 0; i < MODEL_N_PARAM_TENSORS; i++) n_params += (double)sizes[i];
    int L = n_run > 0 && n_run < c->n_layers ? n_run : c->n_layers;
    double C = c->d_model, F = c->d_ff, Q = model_q_dim(c), K = model_kv_dim(c);
    double tokens = (double)B * T;
    double per_token_layer = C + 2 * C + 2 + (Q + 2 * K) + Q + C + 2 * F + F;
    double visible_pairs = (double)T * (T + 1) / 2.0;
    double per_layer = tokens * per_token_layer + (double)B * c->n_heads * visible_pairs;
    double exit_rows = tokens * (C + (with_lm_head ? C + c->vocab_size : 0.0));
    double widest = 2 * F > Q + 2 * K ? 2 * F : Q + 2 * K;

    MemoryFloor f;
    f.weights = 4.0 * n_params;
    f.trained = 4.0 * 3.0 * (double)n_trained;
    f.activations = 4.0 * (L * per_layer + exit_rows);
    f.gradient = 4.0 * tokens * (C + widest);
    f.total = f.weights + f.trained + f.activations + f.gradient;
    return f;
}

MemoryFloor memory_floor_of_model(const Model *m, size_t n_trained, int n_run, int with_lm_head)
{
    MemoryFloor f = memory_floor_training(&m->cfg, m->max_batch, m->max_T, n_trained, n_run,
                                          with_lm_head);
    if (m->stored) {
        double in_params = (double)m->n_params, kept = (double)model_param_count(&m->cfg) - in_params;
        f.weights = 4.0 * in_params + (double)stored_bytes(m->stored->type) * kept;
        f.total = f.weights + f.trained + f.activations + f.gradient;
    }
    return f;
}
