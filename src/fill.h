/*
 * fill.h - write-buffer contents that neither compress nor deduplicate.
 *
 * Drives that compress or deduplicate would be flattered by zeros or by the
 * same block written again, so every write carries fresh data. Filling a
 * whole buffer with random bytes per write would cost more than the I/O on
 * fast devices; instead a buffer is filled with random bytes once
 * (fill_random) and before each write fill_refresh() replaces the first
 * 8 bytes of every 512-byte sector with a new random word: the rest of the
 * sector stays random (incompressible) and no sector repeats (not
 * deduplicable at any granularity of 512 bytes or more). Cost: one PRNG
 * draw per 512 bytes.
 */
#ifndef APPIO_FILL_H
#define APPIO_FILL_H

#include <stddef.h>
#include <stdint.h>

#include "appio/rand.h"

#define FILL_SECTOR 512

/* Fill @len bytes at @buf with random bytes (set-up time). */
void fill_random(struct rng *r, void *buf, size_t len);

/* Make @len bytes at @buf new: a fresh random word at the start of each sector. Hot path. */
static inline void fill_refresh(struct rng *r, void *buf, size_t len)
{
	for (size_t off = 0; off + 8 <= len; off += FILL_SECTOR) {
		uint64_t v = rng_next(r);
		__builtin_memcpy((char *)buf + off, &v, sizeof(v));
	}
}

#endif
