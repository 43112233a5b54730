/* probe.h — linear probes: how much of a labelling task can be read off the
 * frozen hidden states of one layer.
 *
 * A probe is multinomial logistic regression (a softmax over the tags) on
 * standardised features: every feature is shifted and scaled by the mean and
 * standard deviation measured on the training words, then
 *     p(tag | x) = softmax(W x_std + b),  W (K, C), b (K)
 * trained by mini-batch Adam on the mean cross-entropy plus l2/2 |W|^2, for a
 * fixed number of epochs, starting from W = 0. The word order of every epoch
 * comes from the seed, so a probe is the same bit for bit on every run.
 *
 * Features are the raw residual stream (model_hidden) with NO final RMSNorm:
 * the standardisation already puts every layer on the same scale. */
#ifndef SEQREP_PROBE_H
#define SEQREP_PROBE_H

#include "base/status.h"
#include "data/dataset.h"
#include "label/labels.h"
#include "label/metrics.h"

typedef struct {
    int epochs;                /* passes over the training words (default 10) */
    int batch;                 /* words per update (default 64) */
    float lr;                  /* Adam step size (default 1e-2) */
    float l2;                  /* L2 penalty on W (default 1e-4) */
    unsigned long long seed;   /* word order */
} ProbeConfig;

/* 10 epochs, batch 64, lr 1e-2, l2 1e-4, seed 1. */
ProbeConfig probe_defaults(void);

typedef struct {
    int C, K;
    float *mean;     /* (C) feature means on the training words */
    float *inv_std;  /* (C) 1 / standard deviation (1 for a constant feature) */
    float *W;        /* (K, C) */
    float *b;        /* (K) */
} Probe;

/* Train a probe on X (n, C) with tags y (n, each in 0..K-1). */
int probe_train(Probe *p, const float *X, const int *y, long n, int C, int K,
                const ProbeConfig *cfg, SrError *err);

/* Most probable tag of each row of X (n, C) into pred (n). */
void probe_predict(const Probe *p, const float *X, long n, int *pred);

/* Mean cross-entropy of the probe on X (n, C) against y (n). */
double probe_loss(const Probe *p, const float *X, const int *y, long n);

/* Release a probe's arrays; *p becomes empty. */
void probe_free(Probe *p);

/* Features of one split for every layer: x (n_layers, n_words, C) with the
 * words in data's order, their tag ids y (n_words; only the training split
 * needs them) and the data set itself (gold tags for scoring). */
typedef struct {
    const float *x;
    const int *y;
    long n_words;
    const Dataset *data;
} ProbeSplit;

/* Train one probe per layer on train and score it on dev and test (strict
 * span F1 against the gold tags of dev->data and test->data): dev_scores and
 * test_scores get n_layers entries; test_pred (may be NULL) gets the
 * predicted tag ids of test, (n_layers, test->n_words). Layers are trained in
 * parallel (OpenMP); results do not depend on the number of threads. */
int probe_layers(const ProbeSplit *train, const ProbeSplit *dev, const ProbeSplit *test,
                 int n_layers, int C, const LabelSet *ls, const ProbeConfig *cfg,
                 SpanScores *dev_scores, SpanScores *test_scores, int *test_pred, SrError *err);

#endif
