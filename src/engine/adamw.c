/* adamw.c — AdamW, global-norm clipping and the learning-rate schedule. */
#include "engine/adamw.h"

#include "engine/lora.h"
#include "engine/ops/ops.h"

#include <math.h>
#include <stdlib.h>

AdamWConfig adamw_defaults(void)
{
    return (AdamWConfig){.beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f, .weight_decay = 0.1f,
                         .grad_clip = 1.0f, .form = ADAMW_DECOUPLED};
}

int adamw_create(Model *m, SrError *err)
{
    free(m->m1);
    free(m->m2);
    m->m1 = calloc(m->n_params, sizeof(float));
    m->m2 = calloc(m->n_params, sizeof(float));
    if (!m->m1 || !m->m2) return sr_fail(err, "out of memory for optimiser moments");
    return 0;
}

float model_grad_norm(const Model *m)
{
    /* a tied LM head has no storage of its own, so every gradient is counted once */
    return l2_norm(m->grads, m->n_params); /* reproducible: see ops_l2norm.c */
}

/* The update of adamw_update_tensor with its bias corrections bc1, bc2
 * given, as an orphaned worksharing loop: called inside a parallel region,
 * the team shares the n floats and goes on without waiting (nowait); called
 * outside one, the calling thread does them all. Each float's update reads
 * only its own p, g, m1 and m2, so the split changes no result. */
static void update_floats(const AdamWConfig *cfg, float *p, const float *g, float *m1, float *m2,
                          long n, float clip, float lr, float wd, float bc1, float bc2)
{
#pragma omp for schedule(static) nowait
    for (long i = 0; i < n; i++) {
        float gi = g[i] * clip;
        m1[i] = cfg->beta1 * m1[i] + (1.0f - cfg->beta1) * gi;
        m2[i] = cfg->beta2 * m2[i] + (1.0f - cfg->beta2) * gi * gi;
        float mhat = m1[i] / bc1, vhat = m2[i] / bc2;
        if (cfg->form == ADAM_PLAIN) p[i] -= lr * mhat / (sqrtf(vhat) + cfg->eps);
        else p[i] -= lr * (mhat / (sqrtf(vhat) + cfg->eps) + wd * p[i]);
    }
}

void adamw_update_tensor(const AdamWConfig *cfg, float *p, const float *g, float *m1, float *m2,
                          long n, float clip, float lr, float wd, int step)
{
    float bc1 = 1.0f - powf(cfg->beta1, (float)step);
    float bc2 = 1.0f - powf(cfg->beta2, (float)step);
#pragma omp parallel
    update_floats(cfg, p, g, m1, m2, n, clip, lr, wd, bc1, bc2);
}

/* The factor gradients are scaled by when their global norm exceeds the clip. */
static float clip_factor(const AdamWConfig *cfg, float norm)
{
    return (cfg->grad_clip > 0.0f && norm > cfg->grad_clip) ? cfg->grad_clip / norm : 1.0f;
}

float adamw_step(Model *m, const AdamWConfig *cfg, float lr, int step)
{
    float norm = model_grad_norm(m);
    if (!isfinite(norm)) return norm; /* a NaN or an infinity would spread to every weight */
    float clip = clip_factor(cfg, norm);
    float bc1 = 1.0f - powf(cfg->beta1, (float)step);
    float bc2 = 1.0f - powf(cfg->beta2, (float)step);
#pragma omp parallel /* one region for every tensor: no barrier between them */
    {
        size_t start = 0;
        for (int id = 0; id < PARAM_COUNT; id++) {
            size_t n = param_floats(&m->cfg, (ParamId)id, 0);
            /* no decay for norms and biases */
            float wd = param_spec((ParamId)id)->decay ? cfg->weight_decay : 0.0f;
            update_floats(cfg, m->params + start, m->grads + start, m->m1 + start, m->m2 + start,
                          (long)n, clip, lr, wd, bc1, bc2);
            start += n;
        }
    }
    return norm;
}

float adamw_step_lora(Lora *lo, const AdamWConfig *cfg, float lr, int step)
{
    float norm = l2_norm(lo->grads, lo->n_params);
    if (!isfinite(norm)) return norm;
    adamw_update_tensor(cfg, lo->params, lo->grads, lo->m1, lo->m2, (long)lo->n_params,
                  clip_factor(cfg, norm), lr, cfg->weight_decay, step);
    return norm;
}

float lr_schedule(int step, int warmup, int total, float lr_max, float lr_min)
{
    if (warmup > 0 && step <= warmup) return lr_max * (float)step / (float)warmup;
    if (step >= total) return lr_min;
    double progress = (double)(step - warmup) / (double)(total - warmup);
    return lr_min + 0.5f * (lr_max - lr_min) * (float)(1.0 + cos(3.14159265358979323846 * progress));
}
