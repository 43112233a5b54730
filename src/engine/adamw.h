/* adamw.h — the optimiser: AdamW with decoupled weight decay and bias
 * correction, gradient clipping by global norm, and the learning-rate
 * schedule (linear warm-up, then cosine decay). */
#ifndef SEQREP_ADAMW_H
#define SEQREP_ADAMW_H

#include "engine/model.h"

/* The update of one parameter p from its bias-corrected moments mhat and
 * vhat, written as it is rounded (float, left to right):
 *   ADAMW_DECOUPLED  p -= lr * (mhat / (sqrt(vhat) + eps) + wd * p)
 *                    AdamW with decoupled weight decay: the models, the
 *                    labelling heads and the LoRA adapters
 *   ADAM_PLAIN       p -= lr * mhat / (sqrt(vhat) + eps)
 *                    Adam with no decay (wd is not used; a penalty such as
 *                    the probes' L2 is in the gradient): the linear probes */
typedef enum { ADAMW_DECOUPLED = 0, ADAM_PLAIN = 1 } AdamForm;

typedef struct {
    float beta1, beta2, eps;
    float weight_decay;   /* applied to matrices and embeddings, never to norm weights or biases */
    float grad_clip;      /* clip the global gradient norm to this; <= 0 disables */
    AdamForm form;        /* how a parameter is updated (above) */
} AdamWConfig;

/* Defaults: beta1 0.9, beta2 0.95, eps 1e-8, weight decay 0.1, clip 1.0,
 * ADAMW_DECOUPLED. */
AdamWConfig adamw_defaults(void);

/* Allocate (zeroed) first and second moments m->m1, m->m2 (n_params each). */
int adamw_create(Model *m, SrError *err);

/* Global L2 norm of all parameter gradients (each shared tensor counted once). */
float model_grad_norm(const Model *m);

/* One update at learning rate lr; step is 1-based (for bias correction).
 * Clips gradients first and returns the global norm measured before clipping;
 * when that norm is not finite (a NaN or an infinity among the gradients)
 * nothing is updated, and the caller should stop. */
float adamw_step(Model *m, const AdamWConfig *cfg, float lr, int step);

/* The update of one tensor of n floats p (cfg->form: AdamW or plain Adam),
 * gradients g (multiplied by clip first), moments m1, m2, decoupled decay
 * wd, at 1-based step: what adamw_step does to each parameter tensor, for
 * buffers outside a Model (a labelling head, a probe). */
void adamw_update_tensor(const AdamWConfig *cfg, float *p, const float *g, float *m1, float *m2,
                         long n, float clip, float lr, float wd, int step);

/* The same update for LoRA adapters alone (the base model frozen): their
 * gradients are clipped by their own global norm, A and B are decayed.
 * Returns the norm before clipping (not finite: nothing updated). */
float adamw_step_lora(struct Lora *lo, const AdamWConfig *cfg, float lr, int step);

/* Learning rate at 1-based step: linear from lr_max/warmup up to lr_max over
 * `warmup` steps, then cosine from lr_max down to lr_min at step `total`. */
float lr_schedule(int step, int warmup, int total, float lr_max, float lr_min);

#endif
