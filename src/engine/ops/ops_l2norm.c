/* ops_l2norm.c — the L2 norm of a gradient, as float: (float)sqrt(s) where s
 * is the sum of g[i]^2 in double, added one after another in index order.
 *
 * That serial sum is what fixes the result, and it is slow: each add waits
 * for the one before (about 5 ms for the base model's 7.4 million
 * gradients, with the other threads idle). The float result is however
 * found without it in almost every step: every square is exact in double
 * (24-bit significands give at most 48 bits), so the serial sum and any
 * other order of summation of these n non-negative terms both lie within
 * gamma = (n - 1) u / (1 - (n - 1) u) of the exact sum S, relatively
 * (u = 2^-53; Higham, Accuracy and Stability of Numerical Algorithms, 4.2).
 * A sum taken by every thread in 8 lanes, s', therefore puts the serial sum
 * in [s' (1 - 4 n u), s' (1 + 4 n u)] (2 gamma and the rounding of the two
 * ends themselves fit in 4 n u). sqrt and the rounding to float never
 * decrease, so when both ends give the same float, the serial sum gives it
 * too, bit for bit. Otherwise (the interval straddles a float's rounding
 * boundary: a few steps in a hundred) or when s' is not finite, the serial
 * sum is taken after all. */
#include "engine/ops/ops.h"

#include <math.h>

#include "engine/ops/simd_math.h"
#include "engine/ops/thread_team.h"

/* The sum of g[i]^2 (n) in double, one add after another in index order. */
static double sum_squares_serial(const float *g, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) sum += (double)g[i] * g[i];
    return sum;
}

/* The sum of g[i]^2 (n) in double by every thread of the team, each on its
 * own contiguous part in SIMD_LANES lanes; its order differs from the serial
 * sum's (its rounding error has the same bound). */
static double sum_squares_lanes(const float *g, size_t n)
{
    double total = 0.0;
#pragma omp parallel reduction(+ : total)
    {
        size_t lo, hi;
        team_part(n, &lo, &hi);
        size_t i = lo;
        double acc[SIMD_LANES] = {0};
        for (; i + SIMD_LANES <= hi; i += SIMD_LANES)
            for (int j = 0; j < SIMD_LANES; j++) acc[j] += (double)g[i + j] * g[i + j];
        for (; i < hi; i++) acc[0] += (double)g[i] * g[i];
        for (int j = 0; j < SIMD_LANES; j++) total += acc[j];
    }
    return total;
}

/* (float)sqrt of the serial sum of g[i]^2 (n) in double: the lanes' sum
 * when its error bound decides the float, else the serial sum itself. */
float l2_norm(const float *g, size_t n)
{
    double lanes = sum_squares_lanes(g, n);
    if (isfinite(lanes)) {
        double margin = 4.0 * (double)n * 0x1p-53;
        float low = (float)sqrt(lanes * (1.0 - margin)), high = (float)sqrt(lanes * (1.0 + margin));
        if (low == high) return low;
    }
    return (float)sqrt(sum_squares_serial(g, n));
}
