/* random_model.h — the small models with large random weights the engine
 * tests run (attention far from uniform, gradients large enough to check):
 * every parameter uniform in [-0.5, 0.5), norm weights 1 + 0.3 times that
 * (test_random_model), or in [-scale, scale) for wider models whose
 * attention the same weights would make one-hot (test_random_model_scaled). */
#ifndef SEQREP_TEST_RANDOM_MODEL_H
#define SEQREP_TEST_RANDOM_MODEL_H

#include "test_util.h"

#include "engine/model.h"

/* Create m for c and batches up to B x T, every parameter uniform in
 * [-scale, scale), norm weights 1 + 0.15 / scale times that, drawn from seed. */
static inline void test_random_model_scaled(Model *m, const ModelConfig *c, int B, int T,
                                            unsigned long long seed, float scale)
{
    SrError err;
    assert_int_equal(model_create(m, c, B, T, &err), 0);
    unsigned long long st = seed;
    test_fill_random(m->params, (long)m->n_params, &st, scale);
    float k = 0.3f * (0.5f / scale);
    for (int i = 0; i < c->n_layers * c->d_model; i++) m->p.ln1w[i] = 1.0f + k * m->p.ln1w[i];
    for (int i = 0; i < c->n_layers * c->d_model; i++) m->p.ln2w[i] = 1.0f + k * m->p.ln2w[i];
    for (int i = 0; i < c->d_model; i++) m->p.lnfw[i] = 1.0f + k * m->p.lnfw[i];
}

/* Create m for c and batches up to B x T, with the weights above drawn from
 * seed (scale 0.5). */
static inline void test_random_model(Model *m, const ModelConfig *c, int B, int T,
                                     unsigned long long seed)
{
    test_random_model_scaled(m, c, B, T, seed, 0.5f);
}

#endif
