/* probe.c — softmax probes on standardised features (see probe.h). */
#include "label/probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "engine/adamw.h"

ProbeConfig probe_defaults(void)
{
    return (ProbeConfig){.epochs = 10, .batch = 64, .lr = 1e-2f, .l2 = 1e-4f, .seed = 1};
}

/* The probes' optimiser: Adam (beta1 0.9, beta2 0.999, eps 1e-8), no clipping
 * and no decay of its own (the L2 penalty is in the gradient). */
static AdamWConfig probe_adam(void)
{
    return (AdamWConfig){.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.0f,
                         .grad_clip = 0.0f, .form = ADAM_PLAIN};
}

void probe_free(Probe *p)
{
    free(p->mean);
    free(p->inv_std);
    free(p->W);
    free(p->b);
    memset(p, 0, sizeof *p);
}

/* Mean and 1/std of each column of X (n, C), in double for stability. */
static void standardise_fit(Probe *p, const float *X, long n)
{
    int C = p->C;
    for (int c = 0; c < C; c++) {
        double sum = 0.0, sum2 = 0.0;
        for (long i = 0; i < n; i++) sum += X[(size_t)i * C + c];
        double mean = n > 0 ? sum / (double)n : 0.0;
        for (long i = 0; i < n; i++) {
            double d = X[(size_t)i * C + c] - mean;
            sum2 += d * d;
        }
        double sd = n > 0 ? sqrt(sum2 / (double)n) : 0.0;
        p->mean[c] = (float)mean;
        p->inv_std[c] = sd > 1e-6 ? (float)(1.0 / sd) : 1.0f;
    }
}

/* logits (K) = W standardise(x) + b for one row x (C); xs (C) gets the
 * standardised row. */
static void row_logits(const Probe *p, const float *x, float *xs, float *logits)
{
    int C = p->C, K = p->K;
    for (int c = 0; c < C; c++) xs[c] = (x[c] - p->mean[c]) * p->inv_std[c];
    for (int k = 0; k < K; k++) {
        const float *w = p->W + (size_t)k * C;
        float s = p->b[k];
        for (int c = 0; c < C; c++) s += w[c] * xs[c];
        logits[k] = s;
    }
}

/* In-place softmax of v (K); returns log of the normaliser's max-shifted sum
 * plus the max, i.e. logsumexp(v) before the softmax. */
static float softmax_inplace(float *v, int K)
{
    float mx = v[0];
    for (int k = 1; k < K; k++)
        if (v[k] > mx) mx = v[k];
    double sum = 0.0;
    for (int k = 0; k < K; k++) {
        v[k] = expf(v[k] - mx);
        sum += v[k];
    }
    for (int k = 0; k < K; k++) v[k] = (float)(v[k] / sum);
    return mx + (float)log(sum);
}

int probe_train(Probe *p, const float *X, const int *y, long n, int C, int K,
                const ProbeConfig *cfg, SrError *err)
{
    memset(p, 0, sizeof *p);
    if (n < 1 || C < 1 || K < 1) return sr_fail(err, "probe: nothing to train on (n = %ld)", n);
    p->C = C;
    p->K = K;
    p->mean = malloc(sizeof(float) * (size_t)C);
    p->inv_std = malloc(sizeof(float) * (size_t)C);
    p->W = calloc((size_t)K * C, sizeof(float));
    p->b = calloc((size_t)K, sizeof(float));
    size_t n_par = (size_t)K * C + K;
    float *grad = calloc(n_par, sizeof(float));
    float *m1 = calloc(n_par, sizeof(float)), *m2 = calloc(n_par, sizeof(float));
    float *xs = malloc(sizeof(float) * (size_t)C), *prob = malloc(sizeof(float) * (size_t)K);
    long *order = malloc(sizeof(long) * (size_t)n);
    if (!p->mean || !p->inv_std || !p->W || !p->b || !grad || !m1 || !m2 || !xs || !prob ||
        !order) {
        free(grad), free(m1), free(m2), free(xs), free(prob), free(order);
        probe_free(p);
        return sr_fail(err, "probe: out of memory");
    }
    standardise_fit(p, X, n);
    for (long i = 0; i < n; i++) order[i] = i;
    Rng rng;
    rng_seed(&rng, cfg->seed);
    const AdamWConfig adam = probe_adam();
    int batch = cfg->batch > 0 ? cfg->batch : 64, step = 0;
    float *gW = grad, *gb = grad + (size_t)K * C;
    for (int epoch = 0; epoch < cfg->epochs; epoch++) {
        for (long i = n - 1; i > 0; i--) { /* Fisher-Yates with the seeded stream */
            long j = (long)rng_below(&rng, (uint32_t)(i + 1));
            long t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (long start = 0; start < n; start += batch) {
            long end = start + batch < n ? start + batch : n;
            float scale = 1.0f / (float)(end - start);
            memset(grad, 0, sizeof(float) * n_par);
            for (long q = start; q < end; q++) {
                long i = order[q];
                row_logits(p, X + (size_t)i * C, xs, prob);
                softmax_inplace(prob, K);
                prob[y[i]] -= 1.0f; /* d loss / d logits */
                for (int k = 0; k < K; k++) {
                    float d = prob[k] * scale;
                    float *g = gW + (size_t)k * C;
                    for (int c = 0; c < C; c++) g[c] += d * xs[c];
                    gb[k] += d;
                }
            }
            for (size_t j = 0; j < (size_t)K * C; j++) gW[j] += cfg->l2 * p->W[j];
            step++;
            size_t nW = (size_t)K * C;
            adamw_update_tensor(&adam, p->W, gW, m1, m2, (long)nW, 1.0f, cfg->lr, 0.0f, step);
            adamw_update_tensor(&adam, p->b, gb, m1 + nW, m2 + nW, K, 1.0f, cfg->lr, 0.0f, step);
        }
    }
    free(grad), free(m1), free(m2), free(xs), free(prob), free(order);
    return 0;
}

void probe_predict(const Probe *p, const float *X, long n, int *pred)
{
    float *xs = malloc(sizeof(float) * (size_t)p->C), *logits = malloc(sizeof(float) * (size_t)p->K);
    if (!xs || !logits) { /* cannot happen for sane sizes; predict "O" rather than crash */
        for (long i = 0; i < n; i++) pred[i] = 0;
        free(xs), free(logits);
        return;
    }
    for (long i = 0; i < n; i++) {
        row_logits(p, X + (size_t)i * p->C, xs, logits);
        int best = 0;
        for (int k = 1; k < p->K; k++)
            if (logits[k] > logits[best]) best = k;
        pred[i] = best;
    }
    free(xs), free(logits);
}

double probe_loss(const Probe *p, const float *X, const int *y, long n)
{
    float *xs = malloc(sizeof(float) * (size_t)p->C), *logits = malloc(sizeof(float) * (size_t)p->K);
    double sum = 0.0;
    if (xs && logits)
        for (long i = 0; i < n; i++) {
            row_logits(p, X + (size_t)i * p->C, xs, logits);
            float target = logits[y[i]];
            sum += softmax_inplace(logits, p->K) - target;
        }
    free(xs), free(logits);
    return n > 0 ? sum / (double)n : 0.0;
}

int probe_layers(const ProbeSplit *train, const ProbeSplit *dev, const ProbeSplit *test,
                 int n_layers, int C, const LabelSet *ls, const ProbeConfig *cfg,
                 SpanScores *dev_scores, SpanScores *test_scores, int *test_pred, SrError *err)
{
    int failed = 0;
    SrError first_err = {{0}};
#pragma omp parallel for schedule(dynamic, 1)
    for (int l = 0; l < n_layers; l++) {
        SrError e;
        Probe p;
        int rc = probe_train(&p, train->x + (size_t)l * train->n_words * C, train->y,
                             train->n_words, C, ls->n, cfg, &e);
        int *dev_pred = malloc(sizeof(int) * (size_t)(dev->n_words > 0 ? dev->n_words : 1));
        int *own_test = malloc(sizeof(int) * (size_t)(test->n_words > 0 ? test->n_words : 1));
        if (rc == 0 && (!dev_pred || !own_test)) rc = sr_fail(&e, "probe: out of memory");
        if (rc == 0) {
            probe_predict(&p, dev->x + (size_t)l * dev->n_words * C, dev->n_words, dev_pred);
            probe_predict(&p, test->x + (size_t)l * test->n_words * C, test->n_words, own_test);
            rc = labels_score(ls, dev->data, dev_pred, &dev_scores[l], &e);
            if (rc == 0) rc = labels_score(ls, test->data, own_test, &test_scores[l], &e);
            if (rc == 0 && test_pred)
                memcpy(test_pred + (size_t)l * test->n_words, own_test,
                       sizeof(int) * (size_t)test->n_words);
        }
        probe_free(&p);
        free(dev_pred);
        free(own_test);
        if (rc) {
#pragma omp critical
            {
                if (!failed) first_err = e;
                failed = 1;
            }
        }
    }
    if (failed) {
        if (err) *err = first_err;
        return -1;
    }
    return 0;
}
