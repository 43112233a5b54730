/* test_ops_stored.c — the products on weights kept as stored (BF16, F16;
 * src/engine/serving/ops_stored.h) against the plain float32 products of ops.h on
 * the same weights widened: exactly the same numbers are multiplied, so the
 * results agree to sgemm's rounding; odd shapes, a strided output, more
 * rows of W than one block, every thread count, the AVX-512 BF16 kernel
 * and the widening path; the conversions by hand. */
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops/ops.h"
#include "engine/serving/matmul_bf16.h"
#include "engine/serving/ops_stored.h"

/* bfloat16 of x by truncation (exact when widened back: what is compared). */
static uint16_t to_bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint16_t)(u >> 16);
}

/* |a - b| <= 1e-4 (1 + |b|) for n values (sums of up to 1,200 products,
 * rounded in another order than sgemm's). */
static void assert_close(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(a[i] - b[i]) <= 1e-4f * (1.0f + fabsf(b[i]))))
            fail_msg("element %zu: %.8g vs %.8g", i, (double)a[i], (double)b[i]);
}

/* One shape: forward into a strided output and backward against the float32
 * ops on the widened weights, for `threads` threads. */
static void check_shape(int N, int C, int OC, int threads)
{
    unsigned long long rng = 7 + (unsigned long long)(N * 131 + C * 7 + OC);
    size_t nw = (size_t)OC * C;
    float *wf = malloc(nw * sizeof(float)), *x = malloc((size_t)N * C * sizeof(float));
    uint16_t *wb = malloc(nw * sizeof(uint16_t));
    test_fill_random(wf, (long)nw, &rng, 1.0f);
    test_fill_random(x, (long)N * C, &rng, 1.0f);
    for (size_t i = 0; i < nw; i++) wb[i] = to_bf16(wf[i]);
    stored_widen(wf, wb, STORED_BF16, nw); /* the exact values the stored path sees */
    int stride = OC + 3;
    float *want = calloc((size_t)N * OC, sizeof(float)), *got = calloc((size_t)N * stride, sizeof(float));
    float *scratch = malloc(stored_scratch_floats(C > OC ? C : OC, threads) * sizeof(float));
    matmul_forward(want, x, wf, N, C, OC);
    stored_matmul_forward(got, stride, x, wb, STORED_BF16, N, C, OC, scratch, threads);
    for (int n = 0; n < N; n++) assert_close(got + (size_t)n * stride, want + (size_t)n * OC, (size_t)OC);
    float *dwant = calloc((size_t)N * C, sizeof(float)), *dgot = calloc((size_t)N * C, sizeof(float));
    test_fill_random(dwant, (long)N * C, &rng, 1.0f); /* backward accumulates: start equal */
    memcpy(dgot, dwant, (size_t)N * C * sizeof(float));
    for (int n = 0; n < N; n++) /* dout = the forward's output, strided */
        memcpy(want + (size_t)n * OC, got + (size_t)n * stride, (size_t)OC * sizeof(float));
    matmul_backward(dwant, NULL, want, x, wf, N, C, OC);
    stored_matmul_backward(dgot, got, stride, wb, STORED_BF16, N, C, OC, scratch, threads);
    assert_close(dgot, dwant, (size_t)N * C);
    free(wf), free(x), free(wb), free(want), free(got), free(scratch), free(dwant), free(dgot);
}

/* Both BF16 paths (the AVX-512 BF16 kernel where the build has it, and the
 * widening one) on shapes that cut the kernel's 12-row tiles, 32-row panels
 * and 256-row blocks, odd C included. */
static void test_products_against_float32(void **state)
{
    (void)state;
    static const int shapes[][3] = {{1, 7, 5},     {3, 16, 300},  {9, 1200, 33},
                                    {40, 64, 1000}, {2, 3, 1},     {13, 1201, 70},
                                    {25, 33, 290}};
    for (int kernel = 1; kernel >= 0; kernel--) {
        stored_bf16_kernel_set(kernel);
        assert_int_equal(stored_bf16_kernel_used(), kernel && matmul_bf16_compiled());
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int threads = 1; threads <= 3; threads++)
                check_shape(shapes[s][0], shapes[s][1], shapes[s][2], threads);
    }
}

/* F16 by hand: 1, -2, the smallest subnormal, the largest finite, infinity, NaN. */
static void test_f16_values(void **state)
{
    (void)state;
    assert_true(stored_f16_to_f32(0x3c00) == 1.0f);
    assert_true(stored_f16_to_f32(0xc000) == -2.0f);
    assert_true(stored_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
    assert_true(stored_f16_to_f32(0x7bff) == 65504.0f);
    assert_true(isinf(stored_f16_to_f32(0x7c00)));
    assert_true(isnan(stored_f16_to_f32(0x7e00)));
    assert_true(stored_bf16_to_f32(0x3f80) == 1.0f);
    uint16_t h[3] = {0x3c00, 0x0001, 0xc000};
    float out[3];
    stored_widen(out, h, STORED_F16, 3);
    assert_true(out[0] == 1.0f && out[1] == ldexpf(1.0f, -24) && out[2] == -2.0f);
}

/* The embedding rows widened; the same bits for 1 and 2 threads in the products. */
static void test_embedding_and_threads(void **state)
{
    (void)state;
    uint16_t w[6] = {0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0}; /* 1 .. 6 */
    int ids[2] = {2, 0};
    float out[4];
    stored_embedding(out, ids, w, STORED_BF16, 2, 2);
    assert_true(out[0] == 5.0f && out[1] == 6.0f && out[2] == 1.0f && out[3] == 2.0f);
    enum { N = 5, C = 300, OC = 700 };
    unsigned long long rng = 3;
    float *f = malloc((size_t)OC * C * sizeof(float)), *x = malloc((size_t)N * C * sizeof(float));
    uint16_t *b = malloc((size_t)OC * C * sizeof(uint16_t));
    test_fill_random(f, (long)OC * C, &rng, 1.0f);
    test_fill_random(x, (long)N * C, &rng, 1.0f);
    for (long i = 0; i < (long)OC * C; i++) b[i] = to_bf16(f[i]);
    float *y1 = malloc(N * OC * sizeof(float)), *y2 = malloc(N * OC * sizeof(float));
    float *scratch = malloc(stored_scratch_floats(C, 2) * sizeof(float));
    stored_matmul_forward(y1, OC, x, b, STORED_BF16, N, C, OC, scratch, 2);
    stored_matmul_forward(y2, OC, x, b, STORED_BF16, N, C, OC, scratch, 2);
    assert_memory_equal(y1, y2, N * OC * sizeof(float));
    free(f), free(x), free(b), free(y1), free(y2), free(scratch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_products_against_float32),
        cmocka_unit_test(test_f16_values),
        cmocka_unit_test(test_embedding_and_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
