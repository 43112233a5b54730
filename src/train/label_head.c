/* label_head.c — the labelling head, forward, backward and update (label_head.h). */
#include "train/label_head.h"

#include <stdlib.h>
#include <string.h>

#include "engine/ops/ops.h"

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

void label_head_zero_grad(LabelHead *h)
{
    memset(h->gW, 0, sizeof(float) * (size_t)h->K * h->C);
    memset(h->gb, 0, sizeof(float) * (size_t)h->K);
}

float label_head_backward(LabelHead *h, Model *m, const ReadoutBatch *b, float weight)
{
    int n = b->n_words, C = h->C, K = h->K;
    int counted = crossentropy_forward(h->losses, h->logits, h->logits, h->targets, -1, n, K);
    double sum = 0.0;
    for (int w = 0; w < n; w++) sum += h->losses[w];
    float loss = counted ? (float)(sum / counted) : 0.0f;
    crossentropy_backward(h->logits, h->logits, h->targets, -1,
                          counted ? weight * (1.0f / counted) : 0.0f, n, K);
    memset(h->dxd, 0, sizeof(float) * (size_t)n * C);
    matmul_backward(h->dxd, h->gW, h->logits, h->xd, h->W, n, C, K);
    for (int w = 0; w < n; w++)
        for (int k = 0; k < K; k++) h->gb[k] += h->logits[(size_t)w * K + k];
    for (size_t i = 0; i < (size_t)n * C; i++) h->dxn[i] = h->dxd[i] * h->keep[i];
    memset(h->dx, 0, sizeof(float) * (size_t)n * C);
    rmsnorm_backward(h->dx, m->frozen_base ? NULL : m->g.lnfw, h->dxn, h->x, m->p.lnfw, h->rstd,
                     n, C);
    memset(h->dhidden, 0, sizeof(float) * (size_t)b->B * b->T * C);
    for (int w = 0; w < n; w++)
        memcpy(h->dhidden + (size_t)b->last_rows[w] * C, h->dx + (size_t)w * C,
               sizeof(float) * (size_t)C);
    return loss;
}

void label_head_step(LabelHead *h, const AdamWConfig *opt, float lr, int step)
{
    size_t nW = (size_t)h->K * h->C;
    adamw_update_tensor(opt, h->W, h->gW, h->m1, h->m2, (long)nW, 1.0f, lr, opt->weight_decay, step);
    adamw_update_tensor(opt, h->b, h->gb, h->m1 + nW, h->m2 + nW, h->K, 1.0f, lr, 0.0f, step);
}
