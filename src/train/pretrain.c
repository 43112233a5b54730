/* pretrain.c — the pre-training loop (causal or masked LM), its batch
 * source over a token stream, and the held-out loss. */
#include "train/pretrain.h"

#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "engine/adamw.h"
#include "text/words.h"

void pretrain_mlm_corrupt(Rng *rng, int *ids, int *targets, long n, int vocab_size)
{
    for (long i = 0; i < n; i++) {
        targets[i] = -1;
        if (rng_uniform(rng) >= 0.15f) continue;
        targets[i] = ids[i];
        float u = rng_uniform(rng);
        if (u < 0.8f) ids[i] = TOK_MASK;
        else if (u < 0.9f) ids[i] = TOK_N_SPECIAL + (int)rng_below(rng, (uint32_t)(vocab_size - TOK_N_SPECIAL));
    }
}

void pretrain_stream_batch(void *stream, Rng *rng, int step, int B, int T, int *ids, int *targets)
{
    (void)step;
    const PretrainStream *s = stream;
    long span = s->hi - s->lo - T; /* window start in [lo, lo + span) so that T+1 tokens fit */
    for (int b = 0; b < B; b++) {
        long start = s->lo + (long)rng_below(rng, (uint32_t)span);
        memcpy(ids + (size_t)b * T, s->ids + start, (size_t)T * sizeof(int));
        memcpy(targets + (size_t)b * T, s->ids + start + 1, (size_t)T * sizeof(int));
    }
}

/* The mask plan (n_layers) of an objective: causal everywhere, or
 * bidirectional everywhere for mlm. NULL when out of memory. */
static MaskKind *objective_mask_plan(PretrainObjective objective, int n_layers)
{
    MaskKind *plan = calloc((size_t)n_layers, sizeof(MaskKind));
    if (!plan) return NULL;
    for (int l = 0; l < n_layers; l++)
        plan[l] = objective == PRETRAIN_MLM ? MASK_BIDIRECTIONAL : MASK_CAUSAL;
    return plan;
}

/* The ModelInput of B x T ids under mask plan and positions pos (may be NULL). */
static ModelInput batch_input(int B, int T, const int *ids, const MaskKind *plan,
                              const PretrainPositions *pos)
{
    ModelInput in = {.B = B, .T = T, .ids = ids, .mask = plan, .want_logits = 1};
    if (pos) {
        in.pos_kind = pos->pos_kind;
        in.positions = pos->positions;
    }
    return in;
}

/* One optimiser step on the batch ids/targets (B, T): forward, loss,
 * backward, AdamW at the step's learning rate. *loss and *lr get the step's. */
static int train_step(Model *m, const PretrainConfig *c, const AdamWConfig *opt, int step,
                      const ModelInput *in, const int *targets, float *loss, float *lr,
                      SrError *err)
{
    if (model_forward(m, in, err)) return -1;
    *loss = model_lm_loss(m, targets, -1);
    model_zero_grad(m);
    model_backward(m, targets, -1);
    *lr = lr_schedule(step, c->warmup, c->steps, c->lr, c->min_lr);
    adamw_step(m, opt, *lr, step);
    return 0;
}

int pretrain_run(Model *m, const PretrainConfig *c, const PretrainPositions *pos,
                 PretrainBatchFn next, void *source, FILE *log, PretrainResult *out, SrError *err)
{
    int B = c->batch, T = c->seq_len, mlm = c->objective == PRETRAIN_MLM;
    *out = (PretrainResult){0};
    if (adamw_create(m, err)) return -1;
    int *ids = malloc((size_t)B * T * sizeof(int)), *targets = malloc((size_t)B * T * sizeof(int));
    MaskKind *plan = objective_mask_plan(c->objective, m->cfg.n_layers);
    int rc = ids && targets && plan ? 0 : sr_fail(err, "out of memory");
    Rng rng;
    rng_seed(&rng, c->seed * 2654435761ULL + 17);
    AdamWConfig opt = adamw_defaults();
    opt.weight_decay = c->weight_decay;
    opt.grad_clip = c->clip;
    Progress prog;
    double start = progress_now();
    if (log) progress_start(&prog, log, c->steps, c->progress_every > 0 ? c->progress_every : 1);
    for (int step = 1; step <= c->steps && rc == 0; step++) {
        next(source, &rng, step, B, T, ids, targets);
        if (mlm) { /* the window itself is the target, before corruption */
            memcpy(targets, ids, (size_t)B * T * sizeof(int));
            pretrain_mlm_corrupt(&rng, ids, targets, (long)B * T, m->cfg.vocab_size);
        }
        ModelInput in = batch_input(B, T, ids, plan, pos);
        float lr = 0.0f;
        rc = train_step(m, c, &opt, step, &in, targets, &out->final_loss, &lr, err);
        if (rc == 0 && log) progress_update(&prog, step, out->final_loss, lr, (long)B * T);
    }
    out->seconds = progress_now() - start;
    if (log && rc == 0) progress_finish(&prog, out->final_loss);
    free(ids);
    free(targets);
    free(plan);
    return rc;
}

int pretrain_eval_loss(Model *m, const PretrainConfig *c, const PretrainPositions *pos,
                       const int *stream, long lo, long hi, int max_batches, float *loss,
                       SrError *err)
{
    int B = c->batch, T = c->seq_len, mlm = c->objective == PRETRAIN_MLM;
    *loss = -1.0f;
    int *ids = malloc((size_t)B * T * sizeof(int)), *targets = malloc((size_t)B * T * sizeof(int));
    MaskKind *plan = objective_mask_plan(c->objective, m->cfg.n_layers);
    int rc = ids && targets && plan ? 0 : sr_fail(err, "out of memory");
    Rng rng;
    rng_seed(&rng, 12345); /* the same corruption for every evaluation */
    double sum = 0.0;
    int batches = 0;
    for (long at = lo; rc == 0 && batches < max_batches;) {
        int rows = 0;
        for (; rows < B && at + T + 1 <= hi; rows++, at += T) {
            memcpy(ids + (size_t)rows * T, stream + at, (size_t)T * sizeof(int));
            memcpy(targets + (size_t)rows * T, stream + at + 1, (size_t)T * sizeof(int));
        }
        if (rows == 0) break;
        if (mlm) pretrain_mlm_corrupt(&rng, ids, targets, (long)rows * T, m->cfg.vocab_size);
        ModelInput in = batch_input(rows, T, ids, plan, pos);
        rc = model_forward(m, &in, err);
        if (rc == 0) sum += model_lm_loss(m, targets, -1);
        batches++;
    }
    if (rc == 0 && batches) *loss = (float)(sum / batches);
    free(ids);
    free(targets);
    free(plan);
    return rc;
}
