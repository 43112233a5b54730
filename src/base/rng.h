/* rng.h — the one random number generator of seqrep.
 *
 * xoshiro256** (Blackman & Vigna) seeded by expanding a 64-bit seed with
 * splitmix64. Everything is integer arithmetic except rng_normal, so a seed
 * gives the same stream of integers and uniforms on every platform. The
 * state is a plain value: copy it to fork a stream, no global state. */
#ifndef SEQREP_RNG_H
#define SEQREP_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];  /* xoshiro256** state, never all zero after rng_seed */
} Rng;

/* One step of splitmix64: advances *state and returns the next 64-bit output.
 * Used to expand seeds; also handy as a tiny hash of a counter. */
uint64_t rng_splitmix64(uint64_t *state);

/* Seed the generator: the four state words are four splitmix64 outputs
 * starting from `seed` (any value, 0 included). */
void rng_seed(Rng *rng, uint64_t seed);

/* Next 64 random bits. */
uint64_t rng_u64(Rng *rng);

/* Next 32 random bits (the high half of rng_u64, the better half). */
uint32_t rng_u32(Rng *rng);

/* Uniform float in [0, 1): 24 random bits times 2^-24, so every value is
 * exactly representable and 1.0 is never returned. */
float rng_uniform(Rng *rng);

/* Standard normal float (mean 0, variance 1) by Box–Muller; consumes two
 * 64-bit draws per call and returns the cosine branch. */
float rng_normal(Rng *rng);

/* Uniform integer in [0, n), without modulo bias (rejection of the few
 * lowest 32-bit values that would favour small results). n == 0 returns 0. */
uint32_t rng_below(Rng *rng, uint32_t n);

#endif
