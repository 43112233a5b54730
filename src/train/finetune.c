/* finetune.c — the labelling head's training loop and evaluation (see finetune.h). */
#include "train/finetune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/job/progress.h"
#include "base/rng.h"
#include "engine/adamw.h"
#include "formats/finite.h"

FinetuneConfig finetune_defaults(void)
{
    FinetuneConfig c = {0};
    c.method = METHOD_CAUSAL;
    c.r = 0;
    c.exit_layer = 0;
    c.epochs = 8;
    c.lr = 2e-3f;
    c.batch = 8;
    c.seed = 1;
    c.dropout = 0.1f;
    c.weight_decay = 0.01f;
    c.bos = REPEAT_BOS_PER_COPY;
    c.sep = REPEAT_SEP_NONE;
    c.adapter = ADAPTER_NONE;
    /* the paper's adapters, which --recipe paper keeps: rank 16, alpha 16,
     * dropout 0.1 on q, k, v and o */
    c.lora = (LoraConfig){.rank = 16, .alpha = 16.0f, .dropout = 0.1f,
                          .targets = (1u << LORA_N_TARGETS) - 1};
    c.grad_accum = 1;
    c.start = NULL;
    return c;
}

void trained_weights_free(TrainedWeights *w)
{
    free(w->W), free(w->b), free(w->lora_w);
    memset(w, 0, sizeof *w);
}

void finetune_result_free(FinetuneResult *res)
{
    free(res->epochs);
    free(res->test_pred);
    trained_weights_free(&res->best);
    memset(res, 0, sizeof *res);
}

/* Label every word of a split (no dropout) under the mask and head plans:
 * pred (n_words) tag ids. */
static int predict_split(Model *m, LabelHead *h, const LabelledSplit *split, ReadoutLayout lay,
                         const MaskKind *plan, const float *head_scale, int L, int batch, int *pred,
                         SrError *err)
{
    const PiecedData *pd = split->pieces;
    ReadoutBatch b = {0};
    int *order = malloc(sizeof(int) * (size_t)(pd->n_sents > 0 ? pd->n_sents : 1));
    if (!order) return sr_fail(err, "out of memory");
    for (int s = 0; s < pd->n_sents; s++) order[s] = s;
    int rc = readout_sort_by_length(pd, lay, order, pd->n_sents, err);
    for (int s0 = 0; s0 < pd->n_sents && rc == 0; s0 += batch) {
        int n = pd->n_sents - s0 < batch ? pd->n_sents - s0 : batch;
        rc = readout_batch_build(&b, pd, order + s0, n, lay, m->max_T, err);
        ModelInput in = readout_model_input(&b, plan, head_scale, L);
        if (rc == 0) rc = model_forward(m, &in, err);
        if (rc) break;
        label_head_forward(h, m, &b, model_hidden(m, L), 0.0f, NULL);
        for (int i = 0; i < b.B; i++) {
            int sent = b.sent[i];
            for (int k = 0; k < pd->sents[sent].n_words; k++) {
                const float *row = h->logits + (size_t)(b.word_start[i] + k) * h->K;
                int best = 0;
                for (int j = 1; j < h->K; j++)
                    if (row[j] > row[best]) best = j;
                pred[pd->word_start[sent] + k] = best;
            }
        }
    }
    readout_batch_free(&b);
    free(order);
    return rc;
}

/* Most words one batch of `batch` sentences of pd can hold. */
static int max_batch_words(const PiecedData *pd, int batch)
{
    int longest = 0;
    for (int s = 0; s < pd->n_sents; s++)
        if (pd->sents[s].n_words > longest) longest = pd->sents[s].n_words;
    return longest * batch;
}

/* Everything one fine-tuning run holds besides the model and the result. */
typedef struct {
    const FinetuneConfig *cfg;
    const LabelledSplit *train;
    MaskKind *plan;            /* (N) the method's mask plan */
    ReadoutLayout lay;
    int L;                     /* exit layer */
    LabelHead h;
    Lora lo;
    int has_lora;
    Rng order_rng, drop_rng;
    AdamWConfig opt;
    int *order;                /* (train sentences) this epoch's order */
    int *dev_pred, *test_pred; /* (words of the split) */
    ReadoutBatch b;
    int step, warmup, total, updates_per_epoch;
} Trainer;

/* Check the settings against the model and the training split. */
static int check_config(const Model *m, const FinetuneConfig *cfg, const LabelledSplit *train,
                        SrError *err)
{
    const int N = m->cfg.n_layers;
    int L = cfg->exit_layer ? cfg->exit_layer : N;
    if (L < 1 || L > N) return sr_fail(err, "exit layer %d is outside 1..%d", L, N);
    if (cfg->epochs < 1) return sr_fail(err, "epochs must be >= 1 (got %d)", cfg->epochs);
    if (cfg->batch < 1 || cfg->batch > m->max_batch)
        return sr_fail(err, "batch %d is outside 1..%d (the model's buffers)", cfg->batch,
                       m->max_batch);
    if (cfg->grad_accum < 1)
        return sr_fail(err, "grad-accum must be >= 1 (got %d)", cfg->grad_accum);
    if (!(cfg->dropout >= 0.0f && cfg->dropout < 1.0f))
        return sr_fail(err, "dropout must be in [0, 1), got %g", cfg->dropout);
    if (cfg->adapter == ADAPTER_LORA && lora_config_check(&cfg->lora, m->cfg.d_model, err))
        return -1;
    if (train->pieces->n_sents < 1) return sr_fail(err, "no training sentences");
    return 0;
}

/* Copy the starting weights cfg->start into the head (and adapters). */
static int load_start(Trainer *t, SrError *err)
{
    const TrainedWeights *w = t->cfg->start;
    size_t n_lora = t->has_lora ? t->lo.n_params : 0;
    if (w->K != t->h.K || w->C != t->h.C)
        return sr_fail(err, "the starting head is %d x %d, this task needs %d x %d", w->K, w->C,
                       t->h.K, t->h.C);
    if (w->n_lora != n_lora)
        return sr_fail(err, "the starting weights hold %zu adapter floats, this run %zu", w->n_lora,
                       n_lora);
    memcpy(t->h.W, w->W, sizeof(float) * (size_t)w->K * w->C);
    memcpy(t->h.b, w->b, sizeof(float) * (size_t)w->K);
    if (n_lora) memcpy(t->lo.params, w->lora_w, sizeof(float) * n_lora);
    return 0;
}

/* Allocate the best-epoch copy of the trained weights in res. */
static int alloc_best(const Trainer *t, FinetuneResult *res)
{
    TrainedWeights *w = &res->best;
    w->K = t->h.K, w->C = t->h.C;
    w->W = malloc(sizeof(float) * (size_t)w->K * w->C);
    w->b = malloc(sizeof(float) * (size_t)w->K);
    if (t->has_lora) {
        w->lora = t->lo.cfg;
        w->n_lora = t->lo.n_params;
        w->lora_w = malloc(sizeof(float) * w->n_lora);
    }
    return w->W && w->b && (!t->has_lora || w->lora_w) ? 0 : -1;
}

/* Release what trainer_open made and take the adapters off m (the base's
 * gradients stay freed until a full fine-tuning run asks for them). */
static void trainer_close(Trainer *t, Model *m)
{
    readout_batch_free(&t->b);
    label_head_free(&t->h);
    if (t->has_lora) lora_free(&t->lo);
    m->lora = NULL;
    m->frozen_base = 0;
    free(t->plan), free(t->order), free(t->dev_pred), free(t->test_pred);
    memset(t, 0, sizeof *t);
}

/* Everything a run needs: the plan, the head, the adapters (hooked into m
 * with the base frozen), the optimiser and the schedule, res's buffers. */
static int trainer_open(Trainer *t, Model *m, const LabelSet *ls, const LabelledSplit *splits[3],
                        const FinetuneConfig *cfg, FinetuneResult *res, SrError *err)
{
    memset(t, 0, sizeof *t);
    const int N = m->cfg.n_layers, C = m->cfg.d_model;
    t->cfg = cfg, t->train = splits[0];
    t->L = cfg->exit_layer ? cfg->exit_layer : N;
    t->lay = (ReadoutLayout){.r = cfg->r, .bos = cfg->bos, .sep = cfg->sep,
                             .copy_positions = cfg->copy_positions};
    t->plan = malloc(sizeof(MaskKind) * (size_t)N);
    if (!t->plan) return sr_fail(err, "out of memory");
    if (method_plan(cfg->method, cfg->r, t->plan, N, err)) return -1;
    int max_words = 1;
    for (int i = 0; i < 3; i++) {
        if (readout_check_fits(splits[i]->pieces, t->lay, m->max_T, err)) return -1;
        int w = max_batch_words(splits[i]->pieces, cfg->batch);
        if (w > max_words) max_words = w;
    }
    t->has_lora = cfg->adapter == ADAPTER_LORA;
    /* full fine-tuning needs the base's gradients (a LoRA run before freed them) */
    if (!t->has_lora && (model_freeze_base(m, 0, err) || (!m->m1 && adamw_create(m, err))))
        return -1;
    if (t->has_lora) {
        if (lora_create_dims(&t->lo, &cfg->lora, N, C, model_q_dim(&m->cfg), model_kv_dim(&m->cfg),
                             m->max_batch * m->max_T, cfg->seed * 3 + 1 + (1ULL << 40), err)) {
            t->has_lora = 0;
            return -1;
        }
        /* a model that recomputes its layers in the backward (model_set_recompute):
         * the adapters keep one layer's inputs too */
        if (m->recompute && lora_set_recompute(&t->lo, 1, err)) return -1;
        m->lora = &t->lo;
        model_freeze_base(m, 1, err); /* frees the base's gradients; cannot fail */
    }
    Rng init_rng;
    rng_seed(&init_rng, cfg->seed * 3 + 1);
    rng_seed(&t->order_rng, cfg->seed * 3 + 2);
    rng_seed(&t->drop_rng, cfg->seed * 3 + 3);
    const PiecedData *tp = splits[0]->pieces;
    res->epochs = calloc((size_t)cfg->epochs, sizeof *res->epochs);
    res->test_pred = malloc(sizeof(int) * (size_t)(splits[2]->pieces->n_words + 1));
    t->order = malloc(sizeof(int) * (size_t)tp->n_sents);
    t->dev_pred = malloc(sizeof(int) * (size_t)(splits[1]->pieces->n_words + 1));
    t->test_pred = malloc(sizeof(int) * (size_t)(splits[2]->pieces->n_words + 1));
    if (label_head_create(&t->h, C, ls->n, max_words, m->max_batch, m->max_T, &init_rng) ||
        !res->epochs || !res->test_pred || !t->order || !t->dev_pred || !t->test_pred ||
        alloc_best(t, res))
        return sr_fail(err, "out of memory");
    if (cfg->start && load_start(t, err)) return -1;
    for (int s = 0; s < tp->n_sents; s++) t->order[s] = s;
    t->opt = adamw_defaults();
    t->opt.weight_decay = cfg->weight_decay;
    int per_update = cfg->batch * cfg->grad_accum;
    t->updates_per_epoch = (tp->n_sents + per_update - 1) / per_update;
    t->total = t->updates_per_epoch * cfg->epochs;
    t->warmup = t->total / 10;
    return 0;
}

/* Zero the gradients of everything trained. */
static void zero_grads(Trainer *t, Model *m)
{
    if (t->has_lora) lora_zero_grad(&t->lo);
    else model_zero_grad(m);
    label_head_zero_grad(&t->h);
}

/* Forward and backward of the n sentences order[s0..s0+n), the backward
 * weighted by `weight`; the gradients are added to. *loss: the batch's mean
 * loss; *tokens += its tokens. */
static int accumulate_batch(Trainer *t, Model *m, int s0, int n, float weight, double *loss,
                            long *tokens, SrError *err)
{
    const LabelledSplit *train = t->train;
    const PiecedData *tp = train->pieces;
    ReadoutBatch *b = &t->b;
    if (readout_batch_build(b, tp, t->order + s0, n, t->lay, m->max_T, err)) return -1;
    for (int i = 0, w = 0; i < n; i++) {
        long first = tp->word_start[b->sent[i]];
        for (int k = 0; k < tp->sents[b->sent[i]].n_words; k++)
            t->h.targets[w++] = train->labels[first + k];
    }
    ModelInput in = readout_model_input(b, t->plan, t->cfg->head_scale, t->L);
    if (model_forward(m, &in, err)) return -1;
    label_head_forward(&t->h, m, b, model_hidden(m, t->L), t->cfg->dropout, &t->drop_rng);
    *loss = label_head_backward(&t->h, m, b, weight);
    model_backward_hidden(m, t->h.dhidden);
    *tokens += b->tokens;
    return 0;
}

/* Scale the gradients of the adapters and the head so that their joint
 * global norm is at most max_norm (<= 0: no clipping). */
static void clip_adapters_and_head(Lora *lo, LabelHead *h, float max_norm)
{
    size_t nW = (size_t)h->K * h->C;
    double sum = 0.0;
    for (size_t i = 0; i < lo->n_params; i++) sum += (double)lo->grads[i] * lo->grads[i];
    for (size_t i = 0; i < nW; i++) sum += (double)h->gW[i] * h->gW[i];
    for (int k = 0; k < h->K; k++) sum += (double)h->gb[k] * h->gb[k];
    float norm = (float)sqrt(sum);
    if (!(max_norm > 0.0f && norm > max_norm)) return;
    float scale = max_norm / norm;
    for (size_t i = 0; i < lo->n_params; i++) lo->grads[i] *= scale;
    for (size_t i = 0; i < nW; i++) h->gW[i] *= scale;
    for (int k = 0; k < h->K; k++) h->gb[k] *= scale;
}

/* One optimiser update of everything trained, at the next step's rate. 0,
 * or -1 (err naming the update) when the gradients are not finite: nothing
 * is then updated. */
static int update(Trainer *t, Model *m, SrError *err)
{
    t->step++;
    float lr = lr_schedule(t->step, t->warmup, t->total, t->cfg->lr, 0.0f), norm;
    if (t->has_lora) {
        clip_adapters_and_head(&t->lo, &t->h, t->opt.grad_clip);
        AdamWConfig unclipped = t->opt;
        unclipped.grad_clip = 0.0f;
        norm = adamw_step_lora(&t->lo, &unclipped, lr, t->step);
    } else {
        norm = adamw_step(m, &t->opt, lr, t->step);
    }
    if (!isfinite(norm))
        return sr_fail(err, "update %d: the gradient norm is %s; training diverged at learning "
                       "rate %g (try a lower --lr)", t->step, finite_name(norm), (double)lr);
    label_head_step(&t->h, &t->opt, lr, t->step);
    return 0;
}

/* Words of the sentences order[s0..s0+n) of the training split. */
static long words_of(const Trainer *t, int s0, int n)
{
    long words = 0;
    for (int i = 0; i < n; i++) words += t->train->pieces->sents[t->order[s0 + i]].n_words;
    return words;
}

/* One epoch: shuffle, then updates of grad_accum batches each. e gets the
 * mean loss (over updates) and the seconds; *tokens the tokens fed. */
static int train_epoch(Trainer *t, Model *m, FinetuneEpoch *e, long *tokens, SrError *err)
{
    const PiecedData *tp = t->train->pieces;
    const int batch = t->cfg->batch, per_update = batch * t->cfg->grad_accum;
    for (int i = tp->n_sents - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)rng_below(&t->order_rng, (uint32_t)(i + 1));
        int tmp = t->order[i];
        t->order[i] = t->order[j];
        t->order[j] = tmp;
    }
    /* with accumulation, the sentences of one update are cut into batches of
     * similar length: the same summed gradient with less padding */
    if (t->cfg->grad_accum > 1)
        for (int g0 = 0; g0 < tp->n_sents; g0 += per_update) {
            int g_n = tp->n_sents - g0 < per_update ? tp->n_sents - g0 : per_update;
            if (readout_sort_by_length(tp, t->lay, t->order + g0, g_n, err)) return -1;
        }
    if (t->has_lora) t->lo.training = 1;
    double start = progress_now(), loss_sum = 0.0;
    *tokens = 0;
    for (int g0 = 0; g0 < tp->n_sents; g0 += per_update) {
        int g_n = tp->n_sents - g0 < per_update ? tp->n_sents - g0 : per_update;
        long g_words = words_of(t, g0, g_n);
        zero_grads(t, m);
        for (int s0 = g0; s0 < g0 + g_n; s0 += batch) {
            int n = g0 + g_n - s0 < batch ? g0 + g_n - s0 : batch;
            long words = words_of(t, s0, n);
            float weight = g_words > 0 ? (float)words / (float)g_words : 1.0f;
            double loss;
            if (accumulate_batch(t, m, s0, n, weight, &loss, tokens, err)) return -1;
            if (!isfinite(loss))
                return sr_fail(err, "update %d: the training loss is %s; training diverged "
                               "(try a lower --lr)", t->step + 1, finite_name((float)loss));
            loss_sum += weight * loss;
        }
        if (update(t, m, err)) return -1;
    }
    if (t->has_lora) t->lo.training = 0;
    e->seconds = progress_now() - start;
    e->train_loss = loss_sum / t->updates_per_epoch;
    return 0;
}

/* Label dev and test, score them into e, and keep the epoch in res if its
 * dev F1 is the best so far (the earliest on ties). */
static int evaluate_epoch(Trainer *t, Model *m, const LabelSet *ls, const LabelledSplit *dev,
                          const LabelledSplit *test, int epoch, FinetuneResult *res, SrError *err)
{
    FinetuneEpoch *e = &res->epochs[epoch - 1];
    int batch = t->cfg->batch;
    if (predict_split(m, &t->h, dev, t->lay, t->plan, t->cfg->head_scale, t->L, batch, t->dev_pred, err) ||
        predict_split(m, &t->h, test, t->lay, t->plan, t->cfg->head_scale, t->L, batch, t->test_pred, err) ||
        labels_score(ls, dev->data, t->dev_pred, &e->dev, err) ||
        labels_score(ls, test->data, t->test_pred, &e->test, err))
        return -1;
    if (res->best_epoch != 0 && !(e->dev.f1 > res->dev.f1)) return 0;
    res->best_epoch = epoch;
    res->dev = e->dev;
    res->test = e->test;
    memcpy(res->test_pred, t->test_pred, sizeof(int) * (size_t)test->pieces->n_words);
    TrainedWeights *w = &res->best;
    memcpy(w->W, t->h.W, sizeof(float) * (size_t)w->K * w->C);
    memcpy(w->b, t->h.b, sizeof(float) * (size_t)w->K);
    if (w->n_lora) memcpy(w->lora_w, t->lo.params, sizeof(float) * w->n_lora);
    return 0;
}

/* Hand the run's current head (and adapters) and the scores e of epoch to
 * cfg->on_epoch; at epoch 0 (e NULL) dev and test are scored first. */
static int report_epoch(Trainer *t, Model *m, const LabelSet *ls, const LabelledSplit *dev,
                        const LabelledSplit *test, int epoch, const FinetuneEpoch *e, SrError *err)
{
    FinetuneEpoch start = {.train_loss = NAN};
    if (!e) {
        int batch = t->cfg->batch;
        if (predict_split(m, &t->h, dev, t->lay, t->plan, t->cfg->head_scale, t->L, batch, t->dev_pred, err) ||
            predict_split(m, &t->h, test, t->lay, t->plan, t->cfg->head_scale, t->L, batch, t->test_pred, err) ||
            labels_score(ls, dev->data, t->dev_pred, &start.dev, err) ||
            labels_score(ls, test->data, t->test_pred, &start.test, err))
            return -1;
        e = &start;
    }
    TrainedWeights now = {.K = t->h.K, .C = t->h.C, .W = t->h.W, .b = t->h.b};
    if (t->has_lora) now.lora = t->lo.cfg, now.n_lora = t->lo.n_params, now.lora_w = t->lo.params;
    return t->cfg->on_epoch(t->cfg->on_epoch_ctx, epoch, m, &now, e, err);
}

int finetune_run(Model *m, const LabelSet *ls, const LabelledSplit *train,
                 const LabelledSplit *dev, const LabelledSplit *test, const FinetuneConfig *cfg,
                 FinetuneResult *res, SrError *err)
{
    memset(res, 0, sizeof *res);
    if (check_config(m, cfg, train, err)) return -1;
    const LabelledSplit *splits[3] = {train, dev, test};
    Trainer t;
    int rc = trainer_open(&t, m, ls, splits, cfg, res, err);
    res->n_epochs = cfg->epochs;
    res->exit_layer = t.L;
    if (rc == 0 && cfg->on_epoch) rc = report_epoch(&t, m, ls, dev, test, 0, NULL, err);
    for (int epoch = 1; epoch <= cfg->epochs && rc == 0; epoch++) {
        FinetuneEpoch *e = &res->epochs[epoch - 1];
        long epoch_tokens = 0;
        rc = train_epoch(&t, m, e, &epoch_tokens, err);
        if (rc == 0) rc = evaluate_epoch(&t, m, ls, dev, test, epoch, res, err);
        if (rc == 0 && cfg->on_epoch) rc = report_epoch(&t, m, ls, dev, test, epoch, e, err);
        if (rc) break;
        res->train_tokens += epoch_tokens;
        res->train_seconds += e->seconds;
        if (cfg->log)
            fprintf(cfg->log, "epoch %d/%d  loss %.4f  dev F1 %.2f  test F1 %.2f  %.0f tok/s\n",
                    epoch, cfg->epochs, e->train_loss, e->dev.f1, e->test.f1,
                    e->seconds > 0 ? epoch_tokens / e->seconds : 0.0);
    }
    trainer_close(&t, m);
    if (rc) finetune_result_free(res);
    return rc;
}
