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

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The bits of a float as an int32 and back (memcpy: no aliasing games). */
static inline int32_t float_bits(float x)
{
    int32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static inline float bits_float(int32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* e^x in float32; relative error at most 8.1e-8 (about one ulp) against
 * double-precision exp over [-87.3, 88.3] (measured on 2 million evenly
 * spaced points; libm's expf: 6e-8).
 * Method as in Cephes expf: n = round(x / ln 2), r = x - n ln 2 with ln 2
 * split in two parts so that n ln 2 is subtracted without rounding error
 * (|r| <= ln2 / 2), e^r = 1 + r + r^2 p(r) with a degree-5 polynomial p, and
 * e^x = e^r 2^n with 2^n built from its exponent bits.
 * Edges: results below 2^-126 that need n < -126 are 0 (libm returns
 * subnormals down to 1.4e-45), x above 88.38 gives +inf (libm: above 88.72),
 * +-inf give +inf and 0, NaN stays NaN. All range handling is integer
 * arithmetic on the bits: the compiler does not turn float comparisons into
 * vector selects unless built with -fno-trapping-math, and the loops calling
 * this must vectorise either way. */
static inline float fast_expf(float x)
{
    const float log2e = 1.44269504088896341f;
    const float ln2_hi = 0.693359375f;      /* exact in 9 bits, so n * ln2_hi is exact */
    const float ln2_lo = -2.12194440e-4f;    /* ln 2 - ln2_hi */
    const float round_magic = 12582912.0f;   /* 1.5 * 2^23: adding it rounds to an integer */
    const int32_t limit_bits = 0x42c80000;   /* 100.0f */
    const int32_t inf_bits = 0x7f800000;
    /* |x| > 100 (infinities included, NaN not) becomes +-100: e^x is 0 or
     * +inf either way, and n below stays small */
    int32_t bits = float_bits(x), abs_bits = bits & INT32_MAX;
    int32_t beyond = (abs_bits > limit_bits) & (abs_bits <= inf_bits);
    x = bits_float(beyond ? (bits & INT32_MIN) | limit_bits : bits);
    float shifted = x * log2e + round_magic;  /* round_magic + n, n = round(x log2 e) */
    float n = shifted - round_magic;
    float r = (x - n * ln2_hi) - n * ln2_lo;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float er = (p * (r * r) + r) + 1.0f;
    /* n as an integer, read from the low bits of `shifted` (|n| <= 145 here) */
    int32_t e = float_bits(shifted) - float_bits(round_magic);
    e = e < -127 ? -127 : e;  /* 2^-127 as built below is +0: underflow to 0 */
    e = e > 128 ? 128 : e;    /* 2^128 is +inf: overflow */
    return er * bits_float((e + 127) * (1 << 23));
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

/* max of x (n); -inf when n = 0, and NaNs are skipped. Exact whatever the
 * order; kept in lanes so that it vectorises (which needs -fno-trapping-math:
 * the compiler does not otherwise turn a float comparison into a vector
 * select). */
static inline float lane_max(const float *x, int n)
{
    float acc[SIMD_LANES];
    for (int j = 0; j < SIMD_LANES; j++) acc[j] = -INFINITY;
    int i = 0;
    for (; i + SIMD_LANES <= n; i += SIMD_LANES)
        for (int j = 0; j < SIMD_LANES; j++) acc[j] = x[i + j] > acc[j] ? x[i + j] : acc[j];
    for (int j = 0; i < n; i++, j++) acc[j] = x[i] > acc[j] ? x[i] : acc[j];
    float m = acc[0];
    for (int j = 1; j < SIMD_LANES; j++) m = acc[j] > m ? acc[j] : m;
    return m;
}

#endif
