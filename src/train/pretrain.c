/* pretrain.c — the pre-training loop (causal or masked LM), its batch
 * source over a token stream, and the held-out loss. */
#include "train/pretrain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/job/progress.h"
#include "engine/adamw.h"
#include "formats/finite.h"
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

void pretrain_stream_window(const PretrainStream *s, Rng *rng, int T, int *ids, int *targets)
{
    long span = s->hi - s->lo - T; /* window start in [lo, lo + span) so that T+1 tokens fit */
    long start = s->lo + (long)rng_below(rng, (uint32_t)span);
    memcpy(ids, s->ids + start, (size_t)T * sizeof(int));
    memcpy(targets, s->ids + start + 1, (size_t)T * sizeof(int));
}

void pretrain_stream_batch(void *stream, Rng *rng, int step, int B, int T, int *ids, int *targets)
{
    (void)step;
    for (int b = 0; b < B; b++)
        pretrain_stream_window(stream, rng, T, ids + (size_t)b * T, targets + (size_t)b * T);
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
 * backward, AdamW at the step's learning rate. *loss and *lr get the step's.
 * A loss, gradient norm or weight that is not finite stops it: -1 with err
 * naming the step and the quantity, and *diverged = 1. */
static int train_step(Model *m, const PretrainConfig *c, const AdamWConfig *opt, int step,
                      const ModelInput *in, const int *targets, float *loss, float *lr,
                      int *diverged, SrError *err)
{
    if (model_forward(m, in, err)) return -1;
    *loss = model_lm_loss(m, targets, -1);
    *lr = lr_schedule(step, c->warmup, c->steps, c->lr, c->min_lr);
    *diverged = 1;
    if (!isfinite(*loss))
        return sr_fail(err, "step %d/%d: the loss is %s; training diverged", step, c->steps,
                       finite_name(*loss));
    model_zero_grad(m);
    model_backward(m, targets, -1);
    float norm = adamw_step(m, opt, *lr, step);
    if (!isfinite(norm))
        return sr_fail(err, "step %d/%d: the gradient norm is %s (loss %g); training diverged",
                       step, c->steps, finite_name(norm), (double)*loss);
    long bad = finite_first_bad(m->params, m->n_params);
    if (bad >= 0)
        return sr_fail(err, "step %d/%d: weight %ld of %zu became %s in the update (loss %g); "
                       "training diverged", step, c->steps, bad, m->n_params,
                       finite_name(m->params[bad]), (double)*loss);
    *diverged = 0;
    return 0;
}

/* The state a run starts from: the saved one, or step 0 with the rng of c->seed. */
static PretrainState start_state(const PretrainConfig *c, const PretrainSaving *saving)
{
    if (saving && saving->from) return *saving->from;
    PretrainState st = {0};
    rng_seed(&st.rng, c->seed * 2654435761ULL + 17);
    return st;
}

/* Whether a save follows step (of total): every saving->every steps, after
 * the last, or when the run is being stopped. */
static int save_due(const PretrainSaving *saving, int step, int total, int stopping)
{
    if (!saving || saving->every < 1 || !saving->save) return 0;
    return step % saving->every == 0 || step == total || stopping;
}

/* The moments of a run: new (zeroed), or the saved ones already in m. */
static int ready_moments(Model *m, const PretrainConfig *c, const PretrainState *st,
                         int resuming, SrError *err)
{
    if (!resuming) return adamw_create(m, err);
    if (!m->m1 || !m->m2) return sr_fail(err, "resuming needs the saved AdamW moments");
    if (st->step < 0 || st->step > c->steps)
        return sr_fail(err, "the saved run is at step %d, outside 0..%d steps", st->step, c->steps);
    return 0;
}

int pretrain_run(Model *m, const PretrainConfig *c, const PretrainPositions *pos,
                 PretrainBatchFn next, void *source, FILE *log, PretrainResult *out, SrError *err)
{
    return pretrain_run_saving(m, c, pos, next, source, NULL, log, out, err);
}

int pretrain_run_saving(Model *m, const PretrainConfig *c, const PretrainPositions *pos,
                        PretrainBatchFn next, void *source, const PretrainSaving *saving,
                        FILE *log, PretrainResult *out, SrError *err)
{
    int B = c->batch, T = c->seq_len, mlm = c->objective == PRETRAIN_MLM;
    PretrainState st = start_state(c, saving);
    *out = (PretrainResult){.final_loss = st.loss, .steps_done = st.step};
    if (ready_moments(m, c, &st, saving && saving->from, err)) return -1;
    int *ids = malloc((size_t)B * T * sizeof(int)), *targets = malloc((size_t)B * T * sizeof(int));
    MaskKind *plan = objective_mask_plan(c->objective, m->cfg.n_layers);
    int rc = ids && targets && plan ? 0 : sr_fail(err, "out of memory");
    AdamWConfig opt = adamw_defaults();
    opt.weight_decay = c->weight_decay;
    opt.grad_clip = c->clip;
    Progress prog;
    double start = progress_now();
    if (log) progress_start(&prog, log, c->steps, c->progress_every > 0 ? c->progress_every : 1);
    if (log) progress_skip(&prog, st.step);
    int stopping = 0;
    while (st.step < c->steps && rc == 0 && !stopping) {
        int step = st.step + 1;
        next(source, &st.rng, step, B, T, ids, targets);
        if (mlm) { /* the window itself is the target, before corruption */
            memcpy(targets, ids, (size_t)B * T * sizeof(int));
            pretrain_mlm_corrupt(&st.rng, ids, targets, (long)B * T, m->cfg.vocab_size);
        }
        ModelInput in = batch_input(B, T, ids, plan, pos);
        float lr = 0.0f;
        int diverged = 0;
        rc = train_step(m, c, &opt, step, &in, targets, &st.loss, &lr, &diverged, err);
        if (diverged) {
            out->diverged_at = step;
            out->diverged_lr = lr;
        }
        if (rc) break;
        st.step = step;
        *out = (PretrainResult){.final_loss = st.loss, .steps_done = step};
        if (log) progress_update(&prog, step, st.loss, lr, (long)B * T);
        stopping = saving && saving->stop && *saving->stop;
        if (saving && saving->after_step) rc = saving->after_step(saving->ctx, m, &st, err);
        if (rc == 0 && save_due(saving, step, c->steps, stopping)) {
            rc = saving->save(saving->ctx, m, &st, err);
            if (rc == 0 && log) progress_note(&prog, "saved at step %d/%d", step, c->steps);
        }
    }
    out->seconds = progress_now() - start;
    if (log && rc == 0 && !stopping) progress_finish(&prog, out->final_loss);
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
