/* test_ops_fill.c — the ops that cut the training step's work outside the
 * matrix products without changing a bit: buffers zeroed and copied by
 * every thread (fill_zero, fill_zero3, fill_copy: the bytes of memset and
 * memcpy) and the L2 norm of a gradient (l2_norm: the float of the serial
 * double sum, bit for bit), with 1, 2 and 3 threads. */
#include "test_util.h"
#include "gradient_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops/ops.h"
#include "engine/threads.h"

/* The norm as it was computed before l2_norm: the serial double sum. */
static float norm_serial(const float *g, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) sum += (double)g[i] * g[i];
    return (float)sqrt(sum);
}

/* Zeroing and copying give memset's and memcpy's bytes for lengths that do
 * and do not split evenly between the threads, 0 included. */
static void test_fill(void **state)
{
    (void)state;
    static const size_t lengths[] = {0, 1, 2, 3, 7, 1000, 4099};
    int saved = threads_count();
    unsigned long long rng = 3;
    for (int threads = 1; threads <= 3; threads++) {
        threads_set(threads);
        for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
            size_t n = lengths[k];
            float *src = randoms((long)n + 1, &rng, 1.0f), *a = randoms((long)n + 1, &rng, 1.0f);
            float *b = randoms((long)n + 1, &rng, 1.0f), *c = randoms((long)n + 1, &rng, 1.0f);
            float *want = zeros((long)n + 1);
            float guard = a[n];
            fill_zero(a, n);
            assert_memory_equal(a, want, n * sizeof(float));
            assert_true(a[n] == guard); /* nothing written past n */
            fill_zero3(b, n, NULL, 5, c, n / 2);
            assert_memory_equal(b, want, n * sizeof(float));
            assert_memory_equal(c, want, n / 2 * sizeof(float));
            fill_copy(a, src, n);
            assert_memory_equal(a, src, n * sizeof(float));
            free(src), free(a), free(b), free(c), free(want);
        }
    }
    threads_set(saved);
}

/* l2_norm equals the serial sum's float on vectors of many lengths and
 * scales (tiny, huge, zero, a few large entries among small ones), and on
 * one whose norm sits so close to the midpoint between two floats that the
 * parallel sum cannot decide it: {1, 2^-12, 2^-12, 0 x 100} has sum
 * 1 + 2^-23, whose square root is within 2^-48 of 1 + 2^-24, the midpoint
 * of 1 and the next float (the serial sum is then taken). */
static void test_l2_norm(void **state)
{
    (void)state;
    int saved = threads_count();
    unsigned long long rng = 5;
    float *g = zeros(300000);
    for (int threads = 1; threads <= 3; threads++) {
        threads_set(threads);
        for (int trial = 0; trial < 60; trial++) {
            size_t n = trial % 3 == 0 ? (size_t)trial : 1000 + (size_t)trial * 4900;
            float scale = powf(10.0f, (float)(trial % 13) - 9.0f);
            test_fill_random(g, (long)n, &rng, scale);
            for (size_t i = 0; i < n; i += 97) g[i] *= 1000.0f;
            float want = norm_serial(g, n), got = l2_norm(g, n);
            assert_memory_equal(&got, &want, sizeof got);
        }
        memset(g, 0, 103 * sizeof(float));
        g[0] = 1.0f, g[1] = 0x1p-12f, g[2] = 0x1p-12f;
        float want = norm_serial(g, 103), got = l2_norm(g, 103);
        assert_memory_equal(&got, &want, sizeof got);
        assert_true(l2_norm(g, 0) == 0.0f);
        g[5] = INFINITY;
        assert_true(isinf(l2_norm(g, 103)));
        g[5] = NAN;
        assert_true(isnan(l2_norm(g, 103)));
    }
    threads_set(saved);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_l2_norm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
