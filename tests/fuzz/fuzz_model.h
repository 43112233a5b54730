/* fuzz_model.h — the small model the adapter harness checks files against
 * and make_seeds.c writes seed checkpoints, states and adapters for: fixed
 * config, parameters from a fixed pattern, so its checksum never changes. */
#ifndef SEQREP_FUZZ_MODEL_H
#define SEQREP_FUZZ_MODEL_H

#include "engine/model.h"

/* Two layers of width 8; vocab_size 10 (the six specials and four words). */
static const ModelConfig FUZZ_BASE_CONFIG = {
    .vocab_size = 10, .d_model = 8, .n_layers = 2, .n_heads = 2, .d_ff = 16,
    .max_seq_len = 8, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1,
};

/* The four words after the specials. */
static const char *const FUZZ_BASE_VOCAB[10] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>",
                                                "<mask>", "the", "cat", "##s", "sat"};

/* Create m from cfg (batch 1 x length 4) with parameters k -> (k % 17 - 8) / 16. */
static inline int fuzz_model_create(Model *m, const ModelConfig *cfg, SrError *err)
{
    if (model_create(m, cfg, 1, cfg->max_seq_len < 4 ? cfg->max_seq_len : 4, err)) return -1;
    for (size_t k = 0; k < m->n_params; k++) m->params[k] = (float)((int)(k % 17) - 8) / 16.0f;
    return 0;
}

#endif
