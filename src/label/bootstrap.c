/* bootstrap.c — paired bootstrap of a span micro-F1 difference over test
 * sentences and seeds (see bootstrap.h). */
#include "label/bootstrap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

double bootstrap_f1(const SpanCounts *c, const int *weight, int n)
{
    SpanCounts sum = {0};
    for (int s = 0; s < n; s++) {
        long w = weight ? weight[s] : 1;
        sum.tp += w * c[s].tp;
        sum.n_pred += w * c[s].n_pred;
        sum.n_gold += w * c[s].n_gold;
    }
    return span_scores(sum).f1;
}

void bootstrap_draw(unsigned long long seed, long b, int stream, int n, int *weight)
{
    uint64_t state = (uint64_t)seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(2 * b + stream + 1));
    Rng rng;
    rng_seed(&rng, rng_splitmix64(&state));
    memset(weight, 0, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) weight[rng_below(&rng, (uint32_t)n)]++;
}

int bootstrap_run_f1(const SpanCounts *const *runs, int n_runs, int n_sents, int samples,
                     unsigned long long seed, double *f1, SrError *err)
{
    if (n_sents < 1 || n_runs < 1 || samples < 1)
        return sr_fail(err, "bootstrap needs sentences, runs and samples (got %d, %d, %d)",
                       n_sents, n_runs, samples);
    int *weight = malloc(sizeof(int) * (size_t)n_sents);
    if (!weight) return sr_fail(err, "out of memory");
    for (int b = 0; b < samples; b++) {
        bootstrap_draw(seed, b, 0, n_sents, weight);
        for (int k = 0; k < n_runs; k++)
            f1[(size_t)b * (size_t)n_runs + (size_t)k] = bootstrap_f1(runs[k], weight, n_sents);
    }
    free(weight);
    return 0;
}

/* qsort order of doubles: ascending. */
static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The p-quantile (0..1) of sorted[0..n), linear between order statistics. */
static double quantile(const double *sorted, int n, double p)
{
    double pos = p * (double)(n - 1);
    int i = (int)floor(pos);
    if (i + 1 >= n) return sorted[n - 1];
    return sorted[i] + (sorted[i + 1] - sorted[i]) * (pos - (double)i);
}

/* The interval of mean over the m pairs of (A - B) - (C - D), each term the
 * F1 of run idx[t][j] (t = A, B, C, D; a NULL list counts 0): f1_a the
 * mean of A - B on the whole test set, f1_b that of C - D, the pairs drawn
 * from stream 1 of seed. */
static int paired_contrast(const double *f1, const double *full, int n_runs, int samples,
                           const int *const idx[4], int m, unsigned long long seed,
                           BootstrapDiff *out, SrError *err)
{
    if (m < 1 || samples < 1) return sr_fail(err, "bootstrap needs a seed pair and a sample");
    double *stat = malloc(sizeof(double) * (size_t)samples);
    int *weight = malloc(sizeof(int) * (size_t)m);
    if (!stat || !weight) {
        free(stat);
        free(weight);
        return sr_fail(err, "out of memory");
    }
    static const double sign[4] = {1, -1, -1, 1};
    out->f1_a = out->f1_b = 0;
    for (int j = 0; j < m; j++)
        for (int t = 0; t < 4; t++) {
            double v = idx[t] ? full[idx[t][j]] / m : 0;
            if (t < 2) out->f1_a += sign[t] * v;
            else out->f1_b -= sign[t] * v;
        }
    out->diff = out->f1_a - out->f1_b;
    for (int s = 0; s < samples; s++) {
        bootstrap_draw(seed, s, 1, m, weight);
        const double *row = f1 + (size_t)s * (size_t)n_runs;
        double sum = 0;
        for (int j = 0; j < m; j++) {
            double term = 0;
            for (int t = 0; t < 4; t++)
                if (idx[t]) term += sign[t] * row[idx[t][j]];
            sum += weight[j] * term;
        }
        stat[s] = sum / m;
    }
    qsort(stat, (size_t)samples, sizeof *stat, compare_doubles);
    out->lo = quantile(stat, samples, 0.025);
    out->hi = quantile(stat, samples, 0.975);
    free(stat);
    free(weight);
    return 0;
}

int bootstrap_paired_diff(const double *f1, const double *full, int n_runs, int samples,
                          const int *a, const int *b, int m, unsigned long long seed,
                          BootstrapDiff *out, SrError *err)
{
    const int *const idx[4] = {a, NULL, b, NULL};
    return paired_contrast(f1, full, n_runs, samples, idx, m, seed, out, err);
}

int bootstrap_paired_gap(const double *f1, const double *full, int n_runs, int samples,
                         const int *a, const int *b, const int *c, const int *d, int m,
                         unsigned long long seed, BootstrapDiff *out, SrError *err)
{
    const int *const idx[4] = {a, b, c, d};
    return paired_contrast(f1, full, n_runs, samples, idx, m, seed, out, err);
}

int bootstrap_compare(const SpanCounts *const *a, const SpanCounts *const *b, int m, int n,
                      int samples, unsigned long long seed, BootstrapDiff *out, SrError *err)
{
    if (m < 1) return sr_fail(err, "bootstrap needs a seed pair");
    const SpanCounts **runs = malloc(sizeof *runs * 2 * (size_t)m);
    int *ia = malloc(sizeof(int) * 2 * (size_t)m), *ib = ia ? ia + m : NULL;
    double *full = malloc(sizeof(double) * 2 * (size_t)m);
    double *f1 = malloc(sizeof(double) * 2 * (size_t)m * (size_t)(samples > 0 ? samples : 1));
    int rc = runs && ia && full && f1 ? 0 : sr_fail(err, "out of memory");
    for (int j = 0; j < m && rc == 0; j++) {
        runs[j] = a[j];
        runs[m + j] = b[j];
        ia[j] = j;
        ib[j] = m + j;
    }
    for (int k = 0; k < 2 * m && rc == 0; k++) full[k] = bootstrap_f1(runs[k], NULL, n);
    if (rc == 0) rc = bootstrap_run_f1(runs, 2 * m, n, samples, seed, f1, err);
    if (rc == 0) rc = bootstrap_paired_diff(f1, full, 2 * m, samples, ia, ib, m, seed, out, err);
    free(runs);
    free(ia);
    free(full);
    free(f1);
    return rc;
}
