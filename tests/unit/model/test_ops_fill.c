/* test_ops_fill.c — the ops that cut the training step's work outside the
 * matrix products without changing a bit: buffers zeroed and copied by
 * every thread (fill_zero, fill_zero3, fill_copy: the bytes of memset and
 * memcpy), with 1, 2 and 3 threads. */
#include "test_util.h"
#include "gradient_check.h"

#include <stdlib.h>
#include <string.h>

#include "engine/ops/ops.h"
#include "engine/threads.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
