/* ops_crossentropy.c — softmax cross-entropy of logits against target ids,
 * skipping positions whose target is the ignore label; and the soft cap
 * Gemma 2 puts on the logits before it. */
#include "engine/ops/ops.h"

#include <math.h>
#include <stddef.h>

#include "engine/ops/simd_math.h"

/* probs (N, V) = softmax(logits (N, V)) (max-subtracted; probs may alias
 * logits); losses (N) = -log probs[target], 0 where targets[n] == ignore.
 * Returns the number of non-ignored rows. Each row is three vectorised passes:
 * max, exponentials, scaling (the sum runs in fixed lanes, see simd_math.h). */
int crossentropy_forward(float *losses, float *probs, const float *logits, const int *targets,
                         int ignore, int N, int V)
{
    int counted = 0;
#pragma omp parallel for schedule(static) reduction(+ : counted)
    for (int n = 0; n < N; n++) {
        const float *z = logits + (size_t)n * V;
        float *p = probs + (size_t)n * V;
        int target = targets[n];
        int is_counted = target != ignore;
        float maxv = lane_max(z, V);
        /* Read the target logit before an in-place softmax overwrites it. */
        float target_shifted = is_counted ? z[target] - maxv : 0.0f;
        for (int i = 0; i < V; i++) p[i] = fast_expf(z[i] - maxv);
        float sum = lane_sum(p, V);
        float inv_sum = 1.0f / sum;
        for (int i = 0; i < V; i++) p[i] *= inv_sum;
        /* -log softmax computed as log(sum) - shifted logit: finite even when
         * the probability underflows. */
        losses[n] = is_counted ? logf(sum) - target_shifted : 0.0f;
        counted += is_counted;
    }
    return counted;
}

/* dlogits (N, V) = scale * (probs - onehot(target)) on counted rows, 0 on
 * ignored rows (assigned, not accumulated; dlogits may alias probs). */
void crossentropy_backward(float *dlogits, const float *probs, const int *targets, int ignore,
                           float scale, int N, int V)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *p = probs + (size_t)n * V;
        float *d = dlogits + (size_t)n * V;
        int target = targets[n];
        if (target == ignore) {
            for (int i = 0; i < V; i++) d[i] = 0.0f;
            continue;
        }
        for (int i = 0; i < V; i++) d[i] = scale * p[i];
        d[target] -= scale;
    }
}

/* The soft cap of Gemma 2's final logits, applied before the softmax. */
/* x (n) = cap * tanh(x / cap), in place. */
void softcap_forward(float *x, float cap, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) x[i] = cap * tanhf(x[i] / cap);
}

/* dx (n) *= 1 - (y / cap)^2, the derivative of the cap at its output y (n). */
void softcap_backward(float *dx, const float *y, float cap, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        float t = y[i] / cap;
        dx[i] *= 1.0f - t * t;
    }
}
