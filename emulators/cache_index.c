/*
 * cache_index.c - what the flash cache knows, without I/O or locks: the RAM
 * LRU, the BlockCache region table and the BigHash buckets (cache_int.h).
 * Every operation is O(1) except choosing a region to evict, a scan of the
 * region table once per region filled (thousands of items).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "cache_int.h"

static uint32_t *nil_array(uint32_t n)
{
	uint32_t *a = xmalloc((size_t)(n ? n : 1) * sizeof(*a));

	memset(a, 0xff, (size_t)(n ? n : 1) * sizeof(*a));
	return a;
}

void cache_keys_init(struct cache_keys *k, uint32_t n)
{
	memset(k, 0, sizeof(*k));
	k->n = n;
	k->size = xcalloc(n ? n : 1, sizeof(*k->size));
	k->prev = nil_array(n);
	k->next = nil_array(n);
	k->bh_prev = nil_array(n);
	k->bh_next = nil_array(n);
	k->in_ram = xcalloc(n ? n : 1, 1);
	k->in_bc = xcalloc(n ? n : 1, 1);
	k->in_bh = xcalloc(n ? n : 1, 1);
	k->seen = xcalloc(n ? n : 1, 1);
	k->bc_region = xcalloc(n ? n : 1, sizeof(uint32_t));
	k->bc_off = xcalloc(n ? n : 1, sizeof(uint32_t));
	k->bc_gen = xcalloc(n ? n : 1, sizeof(uint32_t));
}

void cache_keys_release(struct cache_keys *k)
{
	void *arrays[] = { k->size, k->prev, k->next, k->bh_prev, k->bh_next, k->in_ram, k->in_bc,
			   k->in_bh, k->seen, k->bc_region, k->bc_off, k->bc_gen };
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		free(arrays[i]);
	memset(k, 0, sizeof(*k));
}

/* ---- RAM LRU ---- */

void cache_lru_init(struct cache_lru *l, uint64_t cap)
{
	*l = (struct cache_lru){ .head = CACHE_NIL, .tail = CACHE_NIL, .cap = cap };
}

static void lru_unlink(struct cache_lru *l, struct cache_keys *k, uint32_t key)
{
	uint32_t p = k->prev[key], n = k->next[key];

	if (p != CACHE_NIL)
		k->next[p] = n;
	else
		l->head = n;
	if (n != CACHE_NIL)
		k->prev[n] = p;
	else
		l->tail = p;
	k->prev[key] = k->next[key] = CACHE_NIL;
}

static void lru_push_front(struct cache_lru *l, struct cache_keys *k, uint32_t key)
{
	k->prev[key] = CACHE_NIL;
	k->next[key] = l->head;
	if (l->head != CACHE_NIL)
		k->prev[l->head] = key;
	else
		l->tail = key;
	l->head = key;
}

bool cache_lru_touch(struct cache_lru *l, struct cache_keys *k, uint32_t key)
{
	if (!k->in_ram[key])
		return false;
	if (l->head != key) {
		lru_unlink(l, k, key);
		lru_push_front(l, k, key);
	}
	return true;
}

void cache_lru_insert(struct cache_lru *l, struct cache_keys *k, uint32_t key)
{
	if (cache_lru_touch(l, k, key))
		return;
	lru_push_front(l, k, key);
	k->in_ram[key] = 1;
	l->bytes += k->size[key];
	l->items++;
}

bool cache_lru_evict(struct cache_lru *l, struct cache_keys *k, uint32_t *key)
{
	if (l->bytes <= l->cap || l->tail == CACHE_NIL)
		return false;
	*key = l->tail;
	lru_unlink(l, k, *key);
	k->in_ram[*key] = 0;
	l->bytes -= k->size[*key];
	l->items--;
	return true;
}

/* ---- BlockCache regions ---- */

void cache_bc_init(struct cache_bc *bc, uint32_t nregions, uint32_t region_size, int policy)
{
	*bc = (struct cache_bc){ .nregions = nregions, .region_size = region_size, .policy = policy,
				 .cur = CACHE_NIL };
	bc->r = xcalloc(nregions ? nregions : 1, sizeof(*bc->r));
}

void cache_bc_release(struct cache_bc *bc)
{
	free(bc->r);
	bc->r = NULL;
}

/* The clean region with the smallest stamp: sealed longest ago (FIFO) or read longest ago (LRU). */
static uint32_t pick_victim(const struct cache_bc *bc)
{
	uint32_t best = CACHE_NIL;

	for (uint32_t i = 0; i < bc->nregions; i++)
		if (bc->r[i].state == REGION_CLEAN && (best == CACHE_NIL || bc->r[i].stamp < bc->r[best].stamp))
			best = i;
	return best;
}

static int new_region(struct cache_bc *bc, bool *evicted)
{
	uint32_t id;

	if (bc->next_free < bc->nregions) {
		id = bc->next_free++;
	} else {
		id = pick_victim(bc);
		if (id == CACHE_NIL)
			return -EAGAIN;
		bc->r[id].gen++;        /* every item indexed in it is gone at once */
		bc->evicted++;
		*evicted = true;
	}
	bc->r[id].state = REGION_FILLING;
	bc->r[id].stamp = ++bc->clock;
	bc->cur = id;
	bc->fill = 0;
	return 0;
}

int cache_bc_alloc(struct cache_bc *bc, uint32_t size, struct cache_slot *s)
{
	uint32_t len = cache_bc_slot_len(size);

	s->sealed = CACHE_NIL;
	s->evicted = false;
	if (len > bc->region_size)
		return -E2BIG;
	if (bc->cur == CACHE_NIL || bc->fill + len > bc->region_size) {
		if (bc->cur != CACHE_NIL) {
			bc->r[bc->cur].state = REGION_SEALED;
			bc->r[bc->cur].stamp = ++bc->clock;
			s->sealed = bc->cur;
			bc->cur = CACHE_NIL;
		}
		int rc = new_region(bc, &s->evicted);
		if (rc)
			return rc;
	}
	s->region = bc->cur;
	s->off = bc->fill;
	s->gen = bc->r[bc->cur].gen;
	s->len = len;
	bc->fill += len;
	return 0;
}

void cache_bc_written(struct cache_bc *bc, uint32_t region)
{
	if (bc->r[region].state == REGION_SEALED)
		bc->r[region].state = REGION_CLEAN;
}

bool cache_bc_lookup(struct cache_bc *bc, uint32_t region, uint32_t gen, bool use, bool *in_mem)
{
	struct cache_region *r = &bc->r[region];

	if (r->gen != gen || r->state == REGION_FREE)
		return false;
	*in_mem = r->state != REGION_CLEAN;
	if (use && bc->policy == EVICT_LRU && r->state == REGION_CLEAN)
		r->stamp = ++bc->clock;
	return true;
}

/* ---- BigHash buckets ---- */

void cache_bh_init(struct cache_bh *bh, uint32_t nbuckets)
{
	bh->nbuckets = nbuckets;
	bh->head = nil_array(nbuckets);
	bh->tail = nil_array(nbuckets);
	bh->used = xcalloc(nbuckets ? nbuckets : 1, sizeof(*bh->used));
}

void cache_bh_release(struct cache_bh *bh)
{
	free(bh->head);
	free(bh->tail);
	free(bh->used);
	memset(bh, 0, sizeof(*bh));
}

static void bh_unlink(struct cache_bh *bh, struct cache_keys *k, uint32_t b, uint32_t key)
{
	uint32_t p = k->bh_prev[key], n = k->bh_next[key];

	if (p != CACHE_NIL)
		k->bh_next[p] = n;
	else
		bh->head[b] = n;
	if (n != CACHE_NIL)
		k->bh_prev[n] = p;
	else
		bh->tail[b] = p;
	k->bh_prev[key] = k->bh_next[key] = CACHE_NIL;
	k->in_bh[key] = 0;
	bh->used[b] = (uint16_t)(bh->used[b] - cache_bh_entry(k->size[key]));
}

void cache_bh_remove(struct cache_bh *bh, struct cache_keys *k, uint32_t key)
{
	if (k->in_bh[key])
		bh_unlink(bh, k, cache_bh_bucket(bh, key), key);
}

unsigned cache_bh_insert(struct cache_bh *bh, struct cache_keys *k, uint32_t key)
{
	uint32_t b = cache_bh_bucket(bh, key), need = cache_bh_entry(k->size[key]);
	unsigned evicted = 0;

	cache_bh_remove(bh, k, key);
	while (bh->used[b] + need > CACHE_BUCKET - CACHE_BUCKET_HDR && bh->head[b] != CACHE_NIL) {
		bh_unlink(bh, k, b, bh->head[b]);
		evicted++;
	}
	k->bh_prev[key] = bh->tail[b];
	k->bh_next[key] = CACHE_NIL;
	if (bh->tail[b] != CACHE_NIL)
		k->bh_next[bh->tail[b]] = key;
	else
		bh->head[b] = key;
	bh->tail[b] = key;
	k->in_bh[key] = 1;
	bh->used[b] = (uint16_t)(bh->used[b] + need);
	return evicted;
}
