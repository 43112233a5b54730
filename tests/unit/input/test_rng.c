/* test_rng.c — the shared random number generator: reference values,
 * determinism, ranges and distribution sanity. */
#include "test_util.h"

#include <string.h>

#include "base/rng.h"

/* splitmix64 from state 0 gives the published first output 0xE220A8397B1DCDAF. */
static void test_splitmix64_reference_value(void **state)
{
    (void)state;
    uint64_t s = 0;
    assert_true(rng_splitmix64(&s) == 0xE220A8397B1DCDAFULL);
    assert_true(s == 0x9E3779B97F4A7C15ULL);
}

/* rng_seed fills the state with four consecutive splitmix64 outputs. */
static void test_seed_uses_splitmix64(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 12345);
    uint64_t s = 12345;
    for (int i = 0; i < 4; i++) assert_true(rng.s[i] == rng_splitmix64(&s));
}

/* xoshiro256** from a hand-set state: the first output is
 * rotl(s1 * 5, 7) * 9, computed here independently. */
static void test_xoshiro_first_output(void **state)
{
    (void)state;
    Rng rng = {{1, 2, 3, 4}};
    uint64_t x = 2 * 5;
    uint64_t expected = ((x << 7) | (x >> 57)) * 9;
    assert_true(rng_u64(&rng) == expected);
    /* the state moved as the algorithm says: s2 ^= s0, s3 ^= s1, s1 ^= s2, s0 ^= s3, ... */
    uint64_t s0 = 1, s1 = 2, s2 = 3, s3 = 4, t = s1 << 17;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = (s3 << 45) | (s3 >> 19);
    assert_true(rng.s[0] == s0 && rng.s[1] == s1 && rng.s[2] == s2 && rng.s[3] == s3);
}

/* Same seed, same stream; different seeds, different streams. */
static void test_determinism(void **state)
{
    (void)state;
    Rng a, b, c;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    rng_seed(&c, 43);
    int differs = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rng_u64(&a);
        assert_true(x == rng_u64(&b));
        differs += x != rng_u64(&c);
    }
    assert_true(differs > 990);

    /* a copied state continues identically */
    Rng d = a;
    for (int i = 0; i < 100; i++) assert_true(rng_u32(&a) == rng_u32(&d));
}

/* rng_u32 is the high half of the 64-bit output. */
static void test_u32_is_high_half(void **state)
{
    (void)state;
    Rng a, b;
    rng_seed(&a, 7);
    rng_seed(&b, 7);
    for (int i = 0; i < 100; i++) assert_true(rng_u32(&a) == (uint32_t)(rng_u64(&b) >> 32));
}

/* Uniform floats lie in [0, 1) with mean 1/2 and variance 1/12. */
static void test_uniform_range_and_moments(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 1);
    const int n = 200000;
    double sum = 0, sum2 = 0;
    float lo = 1, hi = 0;
    for (int i = 0; i < n; i++) {
        float u = rng_uniform(&rng);
        assert_true(u >= 0.0f && u < 1.0f);
        if (u < lo) lo = u;
        if (u > hi) hi = u;
        sum += u;
        sum2 += (double)u * u;
    }
    double mean = sum / n, var = sum2 / n - mean * mean;
    assert_true(fabs(mean - 0.5) < 0.005);
    assert_true(fabs(var - 1.0 / 12.0) < 0.002);
    assert_true(lo < 0.001f && hi > 0.999f);
}

/* Normals: mean 0, variance 1, symmetric, about 68.3% within one sigma,
 * finite always. */
static void test_normal_moments(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 2024);
    const int n = 200000;
    double sum = 0, sum2 = 0, sum3 = 0, sum4 = 0;
    int within_one = 0;
    for (int i = 0; i < n; i++) {
        double x = rng_normal(&rng);
        assert_true(isfinite(x));
        sum += x;
        sum2 += x * x;
        sum3 += x * x * x;
        sum4 += x * x * x * x;
        within_one += fabs(x) < 1.0;
    }
    double mean = sum / n, var = sum2 / n - mean * mean;
    assert_true(fabs(mean) < 0.01);           /* std error 0.0022 */
    assert_true(fabs(var - 1.0) < 0.02);      /* std error 0.0032 */
    assert_true(fabs(sum3 / n) < 0.05);       /* skewness 0 */
    assert_true(fabs(sum4 / n - 3.0) < 0.1);  /* kurtosis 3 */
    double frac = (double)within_one / n;
    assert_true(fabs(frac - 0.6827) < 0.005);
}

/* rng_below stays in range, is roughly flat over its buckets, handles n = 1,
 * n = 0 and n near 2^32. */
static void test_below(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 99);
    enum { BUCKETS = 10, DRAWS = 100000 };
    int counts[BUCKETS] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint32_t r = rng_below(&rng, BUCKETS);
        assert_true(r < BUCKETS);
        counts[r]++;
    }
    /* chi-square with 9 degrees of freedom: 99.9% quantile is 27.9 */
    double chi2 = 0, expected = (double)DRAWS / BUCKETS;
    for (int b = 0; b < BUCKETS; b++)
        chi2 += (counts[b] - expected) * (counts[b] - expected) / expected;
    assert_true(chi2 < 27.9);

    for (int i = 0; i < 100; i++) assert_int_equal(rng_below(&rng, 1), 0);
    assert_int_equal(rng_below(&rng, 0), 0);

    /* n = 3e9: the rejection zone is large (2^32 mod n = 1294967296);
     * results stay below n and both halves are hit. */
    uint32_t big = 3000000000u;
    int upper = 0;
    for (int i = 0; i < 10000; i++) {
        uint32_t r = rng_below(&rng, big);
        assert_true(r < big);
        upper += r >= big / 2;
    }
    assert_true(upper > 4700 && upper < 5300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix64_reference_value),
        cmocka_unit_test(test_seed_uses_splitmix64),
        cmocka_unit_test(test_xoshiro_first_output),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_u32_is_high_half),
        cmocka_unit_test(test_uniform_range_and_moments),
        cmocka_unit_test(test_normal_moments),
        cmocka_unit_test(test_below),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
