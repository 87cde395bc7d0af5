/*
 * nosql_cache.c - set-associative page cache (see nosql_cache.h).
 */
#include <stdlib.h>

#include "nosql_cache.h"
#include "appio/xalloc.h"

static uint64_t key_of(uint32_t stand, uint64_t page)
{
	return ((uint64_t)stand << 40 | (page & ((1ULL << 40) - 1))) + 1;
}

static uint64_t set_of(const struct nosql_cache *c, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	return (uint64_t)(((unsigned __int128)(h ^ h >> 29) * c->nsets) >> 64);
}

void nosql_cache_init(struct nosql_cache *c, uint64_t bytes)
{
	c->nsets = bytes / NOSQL_CACHE_PAGE / NOSQL_CACHE_WAYS;
	c->keys = c->nsets ? xaligned(64, c->nsets * NOSQL_CACHE_WAYS * sizeof(*c->keys)) : NULL;
}

void nosql_cache_release(struct nosql_cache *c)
{
	free(c->keys);
	c->keys = NULL;
	c->nsets = 0;
}

bool nosql_cache_lookup(const struct nosql_cache *c, uint32_t stand, uint64_t page)
{
	if (!c->nsets)
		return false;
	uint64_t key = key_of(stand, page);
	const _Atomic uint64_t *set = c->keys + set_of(c, key) * NOSQL_CACHE_WAYS;
	for (unsigned i = 0; i < NOSQL_CACHE_WAYS; i++)
		if (atomic_load_explicit(&set[i], memory_order_relaxed) == key)
			return true;
	return false;
}

void nosql_cache_insert(struct nosql_cache *c, uint32_t stand, uint64_t page, struct rng *r)
{
	if (!c->nsets)
		return;
	uint64_t key = key_of(stand, page);
	_Atomic uint64_t *set = c->keys + set_of(c, key) * NOSQL_CACHE_WAYS;
	unsigned victim = (unsigned)rng_below(r, NOSQL_CACHE_WAYS);
	for (unsigned i = 0; i < NOSQL_CACHE_WAYS; i++) {
		if (!atomic_load_explicit(&set[i], memory_order_relaxed)) {
			victim = i;     /* an empty way first */
			break;
		}
	}
	atomic_store_explicit(&set[victim], key, memory_order_relaxed);
}
