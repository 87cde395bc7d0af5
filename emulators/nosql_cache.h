/*
 * nosql_cache.h - the store's cache of stand pages (MarkLogic's list and
 * compressed tree caches, reduced to one): which 4 KiB pages of which stand
 * are in memory, so a query reads from the drive only what it misses.
 *
 * Set-associative, 8 ways a set, random replacement: a lookup reads the 8
 * keys of one set, an insert overwrites one of them. Keys are atomic words,
 * so any thread may look up and insert without a lock; two threads inserting
 * at once may both win a way (a duplicate that ages out) - an approximation
 * of LRU that costs nothing on the query path. Stand ids are never reused,
 * so pages of a merged-away stand simply stop being hit.
 */
#ifndef APPIO_NOSQL_CACHE_H
#define APPIO_NOSQL_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "appio/rand.h"

#define NOSQL_CACHE_PAGE 4096
#define NOSQL_CACHE_WAYS 8

struct nosql_cache {
	uint64_t nsets;         /* 0: no cache */
	_Atomic uint64_t *keys; /* nsets * WAYS; 0 = empty */
};

/* A cache of @bytes (rounded down to whole sets; under one set: none). */
void nosql_cache_init(struct nosql_cache *c, uint64_t bytes);
void nosql_cache_release(struct nosql_cache *c);

/* Is page @page of stand @stand cached? */
bool nosql_cache_lookup(const struct nosql_cache *c, uint32_t stand, uint64_t page);

/* Cache it (after reading it), evicting a random way of its set. */
void nosql_cache_insert(struct nosql_cache *c, uint32_t stand, uint64_t page, struct rng *r);

#endif
