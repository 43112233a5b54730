/* random_model.h — the small models with large random weights the engine
 * tests run (attention far from uniform, gradients large enough to check):
 * every parameter uniform in [-0.5, 0.5), norm weights 1 + 0.3 times that. */
#ifndef SEQREP_TEST_RANDOM_MODEL_H
#define SEQREP_TEST_RANDOM_MODEL_H

#include "test_util.h"

#include "engine/model.h"

/* Create m for c and batches up to B x T, with the weights above drawn from
 * seed. */
static inline void test_random_model(Model *m, const ModelConfig *c, int B, int T,
                                     unsigned long long seed)
{
    SrError err;
    assert_int_equal(model_create(m, c, B, T, &err), 0);
    unsigned long long st = seed;
    test_fill_random(m->params, (long)m->n_params, &st, 0.5f);
    for (int i = 0; i < c->n_layers * c->d_model; i++) m->p.ln1w[i] = 1.0f + 0.3f * m->p.ln1w[i];
    for (int i = 0; i < c->n_layers * c->d_model; i++) m->p.ln2w[i] = 1.0f + 0.3f * m->p.ln2w[i];
    for (int i = 0; i < c->d_model; i++) m->p.lnfw[i] = 1.0f + 0.3f * m->p.lnfw[i];
}

#endif
