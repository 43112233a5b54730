/* finetune.c — the labelling head, its training loop and evaluation (see finetune.h). */
#include "train/finetune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "base/rng.h"
#include "engine/adamw.h"
#include "engine/ops.h"

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
    return c;
}

void finetune_result_free(FinetuneResult *res)
{
    free(res->epochs);
    free(res->test_pred);
    memset(res, 0, sizeof *res);
}

void label_head_free(LabelHead *h)
{
    free(h->W), free(h->b), free(h->gW), free(h->gb), free(h->m1), free(h->m2);
    free(h->x), free(h->xn), free(h->rstd), free(h->keep), free(h->xd), free(h->logits);
    free(h->dxd), free(h->dxn), free(h->dx), free(h->dhidden), free(h->losses), free(h->targets);
    memset(h, 0, sizeof *h);
}

int label_head_create(LabelHead *h, int C, int K, int max_words, int max_batch, int max_T,
                      Rng *rng)
{
    memset(h, 0, sizeof *h);
    h->C = C, h->K = K, h->max_words = max_words;
    size_t wc = (size_t)max_words * C;
    h->W = malloc(sizeof(float) * (size_t)K * C);
    h->b = calloc((size_t)K, sizeof(float));
    h->gW = calloc((size_t)K * C, sizeof(float));
    h->gb = calloc((size_t)K, sizeof(float));
    h->m1 = calloc((size_t)K * C + K, sizeof(float));
    h->m2 = calloc((size_t)K * C + K, sizeof(float));
    h->x = malloc(sizeof(float) * wc), h->xn = malloc(sizeof(float) * wc);
    h->rstd = malloc(sizeof(float) * (size_t)max_words);
    h->keep = malloc(sizeof(float) * wc), h->xd = malloc(sizeof(float) * wc);
    h->logits = malloc(sizeof(float) * (size_t)max_words * K);
    h->dxd = malloc(sizeof(float) * wc), h->dxn = malloc(sizeof(float) * wc);
    h->dx = malloc(sizeof(float) * wc);
    h->dhidden = malloc(sizeof(float) * (size_t)max_batch * max_T * C);
    h->losses = malloc(sizeof(float) * (size_t)max_words);
    h->targets = malloc(sizeof(int) * (size_t)max_words);
    if (!h->W || !h->b || !h->gW || !h->gb || !h->m1 || !h->m2 || !h->x || !h->xn || !h->rstd ||
        !h->keep || !h->xd || !h->logits || !h->dxd || !h->dxn || !h->dx || !h->dhidden ||
        !h->losses || !h->targets) {
        label_head_free(h);
        return -1;
    }
    for (size_t i = 0; i < (size_t)K * C; i++) h->W[i] = 0.02f * rng_normal(rng);
    return 0;
}

void label_head_forward(LabelHead *h, const Model *m, const ReadoutBatch *b, const float *hidden,
                         float dropout, Rng *rng)
{
    int n = b->n_words, C = h->C, K = h->K;
    readout_gather(b, hidden, C, READ_LAST_COPY, h->x);
    rmsnorm_forward(h->xn, h->rstd, h->x, m->p.lnfw, m->cfg.norm_eps, n, C);
    if (rng && dropout > 0.0f) {
        float scale = 1.0f / (1.0f - dropout);
        for (size_t i = 0; i < (size_t)n * C; i++) {
            h->keep[i] = rng_uniform(rng) < dropout ? 0.0f : scale;
            h->xd[i] = h->xn[i] * h->keep[i];
        }
    } else {
        for (size_t i = 0; i < (size_t)n * C; i++) h->keep[i] = 1.0f;
        memcpy(h->xd, h->xn, sizeof(float) * (size_t)n * C);
    }
    matmul_forward(h->logits, h->xd, h->W, n, C, K);
    for (int w = 0; w < n; w++)
        for (int k = 0; k < K; k++) h->logits[(size_t)w * K + k] += h->b[k];
}

float label_head_backward(LabelHead *h, Model *m, const ReadoutBatch *b)
{
    int n = b->n_words, C = h->C, K = h->K;
    int counted = crossentropy_forward(h->losses, h->logits, h->logits, h->targets, -1, n, K);
    double sum = 0.0;
    for (int w = 0; w < n; w++) sum += h->losses[w];
    float loss = counted ? (float)(sum / counted) : 0.0f;
    crossentropy_backward(h->logits, h->logits, h->targets, -1, counted ? 1.0f / counted : 0.0f,
                          n, K);
    memset(h->gW, 0, sizeof(float) * (size_t)K * C);
    memset(h->gb, 0, sizeof(float) * (size_t)K);
    memset(h->dxd, 0, sizeof(float) * (size_t)n * C);
    matmul_backward(h->dxd, h->gW, h->logits, h->xd, h->W, n, C, K);
    for (int w = 0; w < n; w++)
        for (int k = 0; k < K; k++) h->gb[k] += h->logits[(size_t)w * K + k];
    for (size_t i = 0; i < (size_t)n * C; i++) h->dxn[i] = h->dxd[i] * h->keep[i];
    memset(h->dx, 0, sizeof(float) * (size_t)n * C);
    rmsnorm_backward(h->dx, m->g.lnfw, h->dxn, h->x, m->p.lnfw, h->rstd, n, C);
    memset(h->dhidden, 0, sizeof(float) * (size_t)b->B * b->T * C);
    for (int w = 0; w < n; w++)
        memcpy(h->dhidden + (size_t)b->last_rows[w] * C, h->dx + (size_t)w * C,
               sizeof(float) * (size_t)C);
    return loss;
}

/* AdamW update of the head (decay on W only), same hyper-parameters as the model. */
static void head_step(LabelHead *h, const AdamWConfig *opt, float lr, int step)
{
    size_t nW = (size_t)h->K * h->C, n = nW + h->K;
    float bc1 = 1.0f - powf(opt->beta1, (float)step), bc2 = 1.0f - powf(opt->beta2, (float)step);
    for (size_t i = 0; i < n; i++) {
        float *p = i < nW ? &h->W[i] : &h->b[i - nW];
        float g = i < nW ? h->gW[i] : h->gb[i - nW];
        float wd = i < nW ? opt->weight_decay : 0.0f;
        h->m1[i] = opt->beta1 * h->m1[i] + (1.0f - opt->beta1) * g;
        h->m2[i] = opt->beta2 * h->m2[i] + (1.0f - opt->beta2) * g * g;
        *p -= lr * ((h->m1[i] / bc1) / (sqrtf(h->m2[i] / bc2) + opt->eps) + wd * *p);
    }
}

/* Label every word of a split (no dropout): pred (n_words) tag ids. */
static int predict_split(Model *m, LabelHead *h, const LabelledSplit *split, ReadoutLayout lay,
                         const MaskKind *plan, int L, int batch, int *pred, SrError *err)
{
    const PiecedData *pd = split->pieces;
    ReadoutBatch b = {0};
    int *order = malloc(sizeof(int) * (size_t)(pd->n_sents > 0 ? pd->n_sents : 1));
    if (!order) return sr_fail(err, "out of memory");
    for (int s = 0; s < pd->n_sents; s++) order[s] = s;
    int rc = 0;
    for (int s0 = 0; s0 < pd->n_sents && rc == 0; s0 += batch) {
        int n = pd->n_sents - s0 < batch ? pd->n_sents - s0 : batch;
        rc = readout_batch_build(&b, pd, order + s0, n, lay, m->max_T, err);
        ModelInput in = readout_model_input(&b, plan, L);
        if (rc == 0) rc = model_forward(m, &in, err);
        if (rc) break;
        label_head_forward(h, m, &b, model_hidden(m, L), 0.0f, NULL);
        long w0 = pd->word_start[s0];
        for (int w = 0; w < b.n_words; w++) {
            const float *row = h->logits + (size_t)w * h->K;
            int best = 0;
            for (int k = 1; k < h->K; k++)
                if (row[k] > row[best]) best = k;
            pred[w0 + w] = best;
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

int finetune_run(Model *m, const LabelSet *ls, const LabelledSplit *train,
                 const LabelledSplit *dev, const LabelledSplit *test, const FinetuneConfig *cfg,
                 FinetuneResult *res, SrError *err)
{
    memset(res, 0, sizeof *res);
    const int N = m->cfg.n_layers, C = m->cfg.d_model;
    int L = cfg->exit_layer ? cfg->exit_layer : N;
    if (L < 1 || L > N) return sr_fail(err, "exit layer %d is outside 1..%d", L, N);
    if (cfg->epochs < 1) return sr_fail(err, "epochs must be >= 1 (got %d)", cfg->epochs);
    if (cfg->batch < 1 || cfg->batch > m->max_batch)
        return sr_fail(err, "batch %d is outside 1..%d (the model's buffers)", cfg->batch,
                       m->max_batch);
    if (!(cfg->dropout >= 0.0f && cfg->dropout < 1.0f))
        return sr_fail(err, "dropout must be in [0, 1), got %g", cfg->dropout);
    if (train->pieces->n_sents < 1) return sr_fail(err, "no training sentences");
    MaskKind *plan = malloc(sizeof(MaskKind) * (size_t)N);
    if (!plan) return sr_fail(err, "out of memory");
    if (method_plan(cfg->method, cfg->r, plan, N, err)) {
        free(plan);
        return -1;
    }
    ReadoutLayout lay = {cfg->r, cfg->bos, cfg->sep};
    const LabelledSplit *splits[3] = {train, dev, test};
    int max_words = 1;
    for (int i = 0; i < 3; i++) {
        if (readout_check_fits(splits[i]->pieces, lay, m->max_T, err)) {
            free(plan);
            return -1;
        }
        int w = max_batch_words(splits[i]->pieces, cfg->batch);
        if (w > max_words) max_words = w;
    }
    if (!m->m1 && adamw_create(m, err)) {
        free(plan);
        return -1;
    }

    Rng init_rng, order_rng, drop_rng;
    rng_seed(&init_rng, cfg->seed * 3 + 1);
    rng_seed(&order_rng, cfg->seed * 3 + 2);
    rng_seed(&drop_rng, cfg->seed * 3 + 3);
    LabelHead h;
    const PiecedData *tp = train->pieces;
    res->epochs = calloc((size_t)cfg->epochs, sizeof *res->epochs);
    res->test_pred = malloc(sizeof(int) * (size_t)(test->pieces->n_words + 1));
    int *order = malloc(sizeof(int) * (size_t)tp->n_sents);
    int *dev_pred = malloc(sizeof(int) * (size_t)(dev->pieces->n_words + 1));
    int *test_pred = malloc(sizeof(int) * (size_t)(test->pieces->n_words + 1));
    if (label_head_create(&h, C, ls->n, max_words, m->max_batch, m->max_T, &init_rng)) {
        free(plan), free(order), free(dev_pred), free(test_pred);
        finetune_result_free(res);
        return sr_fail(err, "out of memory");
    }
    if (!res->epochs || !res->test_pred || !order || !dev_pred || !test_pred) {
        label_head_free(&h);
        free(plan), free(order), free(dev_pred), free(test_pred);
        finetune_result_free(res);
        return sr_fail(err, "out of memory");
    }
    for (int s = 0; s < tp->n_sents; s++) order[s] = s;

    AdamWConfig opt = adamw_defaults();
    opt.weight_decay = cfg->weight_decay;
    int steps_per_epoch = (tp->n_sents + cfg->batch - 1) / cfg->batch;
    int total = steps_per_epoch * cfg->epochs, warmup = total / 10, step = 0;
    ReadoutBatch b = {0};
    int rc = 0;
    res->n_epochs = cfg->epochs;
    res->exit_layer = L;
    res->best_epoch = 0;
    for (int epoch = 1; epoch <= cfg->epochs && rc == 0; epoch++) {
        for (int i = tp->n_sents - 1; i > 0; i--) { /* Fisher-Yates */
            int j = (int)rng_below(&order_rng, (uint32_t)(i + 1));
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        double start = progress_now(), loss_sum = 0.0;
        long epoch_tokens = 0;
        for (int s0 = 0; s0 < tp->n_sents; s0 += cfg->batch) {
            int n = tp->n_sents - s0 < cfg->batch ? tp->n_sents - s0 : cfg->batch;
            if ((rc = readout_batch_build(&b, tp, order + s0, n, lay, m->max_T, err))) break;
            for (int i = 0, w = 0; i < n; i++) {
                long first = tp->word_start[b.sent[i]];
                for (int k = 0; k < tp->sents[b.sent[i]].n_words; k++)
                    h.targets[w++] = train->labels[first + k];
            }
            ModelInput in = readout_model_input(&b, plan, L);
            if ((rc = model_forward(m, &in, err))) break;
            label_head_forward(&h, m, &b, model_hidden(m, L), cfg->dropout, &drop_rng);
            model_zero_grad(m);
            loss_sum += label_head_backward(&h, m, &b);
            model_backward_hidden(m, h.dhidden);
            step++;
            float lr = lr_schedule(step, warmup, total, cfg->lr, 0.0f);
            adamw_step(m, &opt, lr, step);
            head_step(&h, &opt, lr, step);
            epoch_tokens += b.tokens;
        }
        if (rc) break;
        FinetuneEpoch *e = &res->epochs[epoch - 1];
        e->seconds = progress_now() - start;
        e->train_loss = loss_sum / steps_per_epoch;
        res->train_tokens += epoch_tokens;
        res->train_seconds += e->seconds;
        rc = predict_split(m, &h, dev, lay, plan, L, cfg->batch, dev_pred, err);
        if (rc == 0) rc = predict_split(m, &h, test, lay, plan, L, cfg->batch, test_pred, err);
        if (rc == 0) rc = labels_score(ls, dev->data, dev_pred, &e->dev, err);
        if (rc == 0) rc = labels_score(ls, test->data, test_pred, &e->test, err);
        if (rc) break;
        if (res->best_epoch == 0 || e->dev.f1 > res->dev.f1) {
            res->best_epoch = epoch;
            res->dev = e->dev;
            res->test = e->test;
            memcpy(res->test_pred, test_pred, sizeof(int) * (size_t)test->pieces->n_words);
        }
        if (cfg->log)
            fprintf(cfg->log, "epoch %d/%d  loss %.4f  dev F1 %.2f  test F1 %.2f  %.0f tok/s\n",
                    epoch, cfg->epochs, e->train_loss, e->dev.f1, e->test.f1,
                    e->seconds > 0 ? epoch_tokens / e->seconds : 0.0);
    }
    readout_batch_free(&b);
    label_head_free(&h);
    free(plan), free(order), free(dev_pred), free(test_pred);
    if (rc) finetune_result_free(res);
    return rc;
}
