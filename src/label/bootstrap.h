/* bootstrap.h — paired bootstrap intervals for a difference of span
 * micro-F1 between two configurations, each fine-tuned with the same seeds.
 *
 * A run is known by its span counts per test sentence (metrics.h: tp,
 * n_pred, n_gold), so its micro-F1 on any multiset of test sentences is
 * span_scores of the summed counts; on the whole test set once each, that is
 * the F1 the run reported. One bootstrap sample b
 *   - draws n test sentences with replacement (the same draw for every run),
 *   - draws m of the m seed pairs with replacement (pairs stay together),
 *   - recomputes the F1 of each drawn run on the drawn sentences, and
 *   - takes mean over the drawn pairs of F1(A) - F1(B).
 * The 2.5th and 97.5th percentiles of that statistic over the samples
 * (linear between order statistics) are the 95% interval. Sample b draws
 * from its own two streams of the seed (sentences, pairs), so its draw does
 * not depend on which or how many runs and pairs are computed with it. */
#ifndef SEQREP_BOOTSTRAP_H
#define SEQREP_BOOTSTRAP_H

#include "base/status.h"
#include "label/metrics.h"

/* Micro-F1 in percent of the sentences c[0..n), sentence s counted weight[s]
 * times (weight NULL: each once): span_scores of the weighted sums. */
double bootstrap_f1(const SpanCounts *c, const int *weight, int n);

/* The draw of sample b: weight[i] (i < n) = how often item i comes up in n
 * draws with replacement from the stream (seed, b, stream): stream 0 for the
 * sentences, 1 for the seed pairs. */
void bootstrap_draw(unsigned long long seed, long b, int stream, int n, int *weight);

/* The F1 of every run on every sample: f1[b * n_runs + k] is run k's micro-F1
 * on sentence draw b (b < samples); runs[k] holds its n_sents sentences'
 * counts (the same test set for all). */
int bootstrap_run_f1(const SpanCounts *const *runs, int n_runs, int n_sents, int samples,
                     unsigned long long seed, double *f1, SrError *err);

/* A difference A - B and its interval. */
typedef struct {
    double f1_a, f1_b;  /* mean over the pairs of the whole-test-set F1, percent */
    double diff;        /* f1_a - f1_b */
    double lo, hi;      /* 2.5th and 97.5th percentiles of the resampled difference */
} BootstrapDiff;

/* The paired interval from bootstrap_run_f1's table f1 (samples x n_runs):
 * pair j < m is runs a[j] and b[j] (one seed), full[k] run k's F1 on the
 * whole test set; the pairs are drawn from stream 1 of seed. */
int bootstrap_paired_diff(const double *f1, const double *full, int n_runs, int samples,
                          const int *a, const int *b, int m, unsigned long long seed,
                          BootstrapDiff *out, SrError *err);

/* A difference of two differences, (A - B) - (C - D), from the same table:
 * pair j < m is runs a[j], b[j], c[j], d[j] (one seed), drawn together as
 * bootstrap_paired_diff draws its pairs; out->f1_a is the mean of A - B on
 * the whole test set, out->f1_b that of C - D, out->diff their difference. */
int bootstrap_paired_gap(const double *f1, const double *full, int n_runs, int samples,
                         const int *a, const int *b, const int *c, const int *d, int m,
                         unsigned long long seed, BootstrapDiff *out, SrError *err);

/* Both steps for one pair of configurations: a[j], b[j] (j < m) are the
 * per-sentence counts (n sentences) of seed j's runs of A and B. */
int bootstrap_compare(const SpanCounts *const *a, const SpanCounts *const *b, int m, int n,
                      int samples, unsigned long long seed, BootstrapDiff *out, SrError *err);

#endif
