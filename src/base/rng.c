/* rng.c — splitmix64 seeding, xoshiro256** stream, uniforms and normals. */
#include "base/rng.h"

#include <math.h>

/* Rotate the 64-bit word x left by k bits (0 < k < 64). */
static uint64_t rotate_left(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_splitmix64(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void rng_seed(Rng *rng, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; i++) rng->s[i] = rng_splitmix64(&state);
    /* splitmix64 is a bijection of its counter, so four consecutive outputs
     * cannot all be zero; xoshiro's only forbidden state is avoided. */
}

uint64_t rng_u64(Rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotate_left(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotate_left(s[3], 45);
    return result;
}

uint32_t rng_u32(Rng *rng)
{
    return (uint32_t)(rng_u64(rng) >> 32);
}

float rng_uniform(Rng *rng)
{
    return (float)(rng_u32(rng) >> 8) * (1.0f / 16777216.0f);
}

float rng_normal(Rng *rng)
{
    /* u1 in (0, 1] so log(u1) is finite; u2 in [0, 1). 53-bit doubles. */
    double u1 = (double)((rng_u64(rng) >> 11) + 1) * (1.0 / 9007199254740992.0);
    double u2 = (double)(rng_u64(rng) >> 11) * (1.0 / 9007199254740992.0);
    const double two_pi = 6.283185307179586476925286766559;
    return (float)(sqrt(-2.0 * log(u1)) * cos(two_pi * u2));
}

uint32_t rng_below(Rng *rng, uint32_t n)
{
    if (n == 0) return 0;
    /* 2^32 mod n: draws below this threshold would make r % n favour the
     * smallest residues, so they are redrawn. */
    uint32_t threshold = (uint32_t)(0u - n) % n;
    for (;;) {
        uint32_t r = rng_u32(rng);
        if (r >= threshold) return r % n;
    }
}
