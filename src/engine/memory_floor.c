/* memory_floor.c — the computed memory floor of a training step (see memory_floor.h). */
#include "engine/memory_floor.h"

/* Floats one layer's working slabs hold per token (tensors.h's list, the
 * attention probabilities aside: counted per pair). */
static double slab_floats_per_token(const ModelConfig *c)
{
    double floats = 0.0;
    for (int id = 0; id < SLAB_COUNT; id++)
        if (id != SLAB_ATT) floats += (double)slab_width(c, (SlabId)id, 1);
    return floats;
}

/* Bytes per token of one layer's LoRA saved inputs (keep: 1 byte, xdrop: 4
 * bytes a value of each target's input; u: its rank) and the adapters'
 * scratch per token (tmp: the widest width; du: the rank), into *scratch. */
static double lora_bytes_per_token(const ModelConfig *c, const LoraConfig *lc, double *scratch)
{
    double Q = model_q_dim(c), C = c->d_model, K = model_kv_dim(c), bytes = 0.0;
    for (int t = 0; t < LORA_N_TARGETS; t++)
        if (lc->targets & (1u << t)) bytes += 5.0 * (t == LORA_O ? Q : C) + 4.0 * lc->rank;
    double widest = C > Q ? C : Q;
    *scratch = 4.0 * ((widest > K ? widest : K) + lc->rank);
    return bytes;
}

/* Floats per token of the backward's scratch (model_buffers.c's
 * GradActViews, the real positions' gradient aside), the attention
 * probabilities' gradient aside. */
static double gradient_floats_per_token(const ModelConfig *c)
{
    Dims d = tensor_dims(c, 1);
    double floats = 3.0 * d.C + d.W + d.Q + d.K + d.Q + 3.0 * d.F;
    if (c->repo) floats += (double)d.H + 3.0 * d.P;
    if (c->family.qk_norm) floats += (double)(d.Q + d.K);
    if (c->family.post_norms) floats += (double)d.C;
    return floats;
}

MemoryFloor memory_floor_training(const ModelConfig *c, int matrix_bytes, const FloorRun *run)
{
    int L = run->n_run > 0 && run->n_run < c->n_layers ? run->n_run : c->n_layers;
    int kept = run->recompute ? 1 : L;
    Dims d = tensor_dims(c, 1);
    double tokens = (double)run->B * run->T, pairs = tokens * run->T * (double)d.H;
    double in_params = (double)model_param_count(c), matrices = 0.0;
    for (int id = 0; id < PARAM_COUNT; id++)
        if (param_spec((ParamId)id)->matrix) matrices += (double)param_floats(c, (ParamId)id, 0);
    in_params -= matrices;

    /* per token: every layer's input and the top residual, RoPE and RePo positions */
    double stream = (L + 1.0) * d.C + d.H + (c->repo ? (double)L * d.H : 0.0) +
                    (d.KVH != d.H ? (double)d.KVH : 0.0);
    double head = run->with_lm_head
                      ? d.C + 2.0 + d.V * (c->family.logit_softcap > 0.0f ? 2.0 : 1.0) : 0.0;
    double lora_scratch = 0.0;
    double lora = run->lora ? lora_bytes_per_token(c, run->lora, &lora_scratch) : 0.0;

    MemoryFloor f;
    f.process = run->process;
    f.weights = 4.0 * in_params + (double)matrix_bytes * matrices + 4.0 * (double)run->n_outside;
    f.trained = 4.0 * 3.0 * (double)run->n_trained;
    f.activations = 4.0 * (tokens * (stream + head + kept * slab_floats_per_token(c)) + kept * pairs);
    f.adapters = run->lora ? tokens * (kept * lora + lora_scratch) : 0.0;
    double grad_pairs = run->sees_all ? pairs : tokens * (run->T + 1.0) / 2.0 * (double)d.H;
    f.gradient = 4.0 * (tokens * (gradient_floats_per_token(c) + (run->with_lm_head ? 0.0 : d.C)) +
                        grad_pairs);
    f.total = f.process + f.weights + f.trained + f.activations + f.adapters + f.gradient;
    return f;
}

MemoryFloor memory_floor_of_model(const Model *m, const FloorRun *run)
{
    int bytes = m->matrices ? (int)m->matrices->value_bytes : 4;
    return memory_floor_training(&m->cfg, bytes, run);
}
