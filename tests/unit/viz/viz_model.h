/* viz_model.h — a tiny random model for the tests of the explorer
 * (test_explorer.c, test_figure_table.c): 2 layers, 2 heads, 32 positions,
 * a 9-word vocabulary ("the red fox" and the specials). Each test binary is
 * one translation unit, so the definition lives here. */
#ifndef SEQREP_TEST_VIZ_MODEL_H
#define SEQREP_TEST_VIZ_MODEL_H

#include "test_util.h"

#include "engine/model.h"
#include "formats/checkpoint.h"

/* Save the tiny model, seed 7, to path. */
static inline void save_tiny_model(const char *path)
{
    ModelConfig c = {.vocab_size = 9, .d_model = 16, .n_layers = 2, .n_heads = 2, .d_ff = 24,
                     .max_seq_len = 32, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    Model m;
    SrError err;
    assert_int_equal(model_create(&m, &c, 1, 4, &err), 0);
    model_init_weights(&m, 7);
    const char *words[9] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", "the", "red", "fox"};
    assert_int_equal(checkpoint_save(path, &m, words, 9, "{\"seed\": 7}", &err), 0);
    model_free(&m);
}

#endif
