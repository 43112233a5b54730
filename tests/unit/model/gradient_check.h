/* gradient_check.h — finite-difference checks of the ops' backwards, shared by
 * test_ops.c and test_ops_rules.c: central differences of a scalar loss
 * L = sum(out * R) for a fixed random R (R is then exactly dL/dout). */
#ifndef SEQREP_TEST_GRADIENT_CHECK_H
#define SEQREP_TEST_GRADIENT_CHECK_H

#include "test_util.h"

#include <stdlib.h>

/* Finite-difference step and tolerances shared by all gradient checks. */
#define GRAD_EPS 1e-2f
#define GRAD_RTOL 1e-2
#define GRAD_FLOOR 1e-2

typedef double (*LossFn)(void *ctx);

/* sum_i out[i] * r[i], accumulated in double. */
static inline double weighted_sum(const float *out, const float *r, long n)
{
    double sum = 0.0;
    for (long i = 0; i < n; i++) sum += (double)out[i] * (double)r[i];
    return sum;
}

/* Compare the analytic gradient grad (n) of loss(ctx) with respect to x (n)
 * against central differences on every element; x is restored afterwards. */
static inline void check_gradient(const char *what, LossFn loss, void *ctx, float *x, const float *grad,
                           long n)
{
    for (long i = 0; i < n; i++) {
        float saved = x[i];
        float up = saved + GRAD_EPS, down = saved - GRAD_EPS;
        x[i] = up;
        double loss_up = loss(ctx);
        x[i] = down;
        double loss_down = loss(ctx);
        x[i] = saved;
        double numeric = (loss_up - loss_down) / ((double)up - (double)down);
        if (test_rel_diff(grad[i], numeric, GRAD_FLOOR) > GRAD_RTOL) {
            print_error("%s[%ld]: analytic %.7g, numeric %.7g\n", what, i, (double)grad[i],
                        numeric);
            fail();
        }
    }
}

/* A zeroed float buffer of n elements (the test fails if allocation fails). */
static inline float *zeros(long n)
{
    float *p = calloc((size_t)n, sizeof(float));
    assert_non_null(p);
    return p;
}

/* A buffer of n uniform floats in [-scale, scale). */
static inline float *randoms(long n, unsigned long long *state, float scale)
{
    float *p = zeros(n);
    test_fill_random(p, n, state, scale);
    return p;
}

#endif
