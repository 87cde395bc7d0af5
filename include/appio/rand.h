/*
 * rand.h - the PRNG every random choice in appio draws from.
 *
 * xoshiro256** (Blackman & Vigna): 256 bits of state, period 2^256 - 1, passes
 * BigCrush, about 1 ns a draw. Each purpose (offsets, sizes, read/write mix,
 * buffer fill, ...) gets its own stream, seeded from the run's one printed seed
 * and a stream number, so changing one choice does not shift the others.
 *
 * All functions are inline and thread-compatible: a struct rng belongs to one
 * thread.
 */
#ifndef APPIO_RAND_H
#define APPIO_RAND_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* splitmix64: expands a seed into well-mixed state words. */
static inline uint64_t rng_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Seed stream number @stream of the run seeded with @seed. */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
	for (int i = 0; i < 4; i++)
		r->s[i] = rng_splitmix(&x);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Next 64 uniformly distributed bits. */
static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/*
 * Uniform integer in [0, n), n > 0. Lemire's multiply-shift: no division; the
 * bias is below n / 2^64, far under anything measurable here.
 */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double rng_double(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
