/* memory_floor.c — the computed memory floor of a training step (see memory_floor.h). */
#include "engine/memory_floor.h"

/* Floats a layer keeps per token for its backward: its input (the residual
 * stream, C) and the working slabs every model has (tensors.h), attention
 * aside (counted per visible pair). */
static double layer_floats_per_token(const ModelConfig *c, int T)
{
    double floats = c->d_model;
    for (int id = 0; id < SLAB_COUNT; id++) {
        const SlabSpec *s = slab_spec((SlabId)id);
        if (s->has == HAS_ALWAYS && id != SLAB_ATT) floats += (double)slab_width(c, (SlabId)id, T);
    }
    return floats;
}

MemoryFloor memory_floor_training(const ModelConfig *c, int B, int T, size_t n_trained, int n_run,
                                  int with_lm_head)
{
    double n_params = (double)model_param_count(c);
    int L = n_run > 0 && n_run < c->n_layers ? n_run : c->n_layers;
    double C = c->d_model, F = c->d_ff, Q = model_q_dim(c), K = model_kv_dim(c);
    double tokens = (double)B * T;
    double visible_pairs = (double)T * (T + 1) / 2.0;
    double per_layer =
        tokens * layer_floats_per_token(c, T) + (double)B * c->n_heads * visible_pairs;
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
    if (m->matrices) {
        double in_params = (double)m->n_params, kept = (double)model_param_count(&m->cfg) - in_params;
        f.weights = 4.0 * in_params + (double)m->matrices->value_bytes * kept;
        f.total = f.weights + f.trained + f.activations + f.gradient;
    }
    return f;
}
