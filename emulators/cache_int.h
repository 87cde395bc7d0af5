/*
 * cache_int.h - what the flash-cache emulator's files share. cache_index.c
 * is its bookkeeping: the RAM LRU, the large-object engine's regions and the
 * small-object engine's buckets, without locks or I/O, so that a unit test
 * drives the same code (tests/unit/test_cache.c); cache_stats.c its figures
 * per point. The model is described at the top of cache.c.
 *
 * Keys are numbers in [0, nkeys); what the cache knows about each lives in
 * flat arrays indexed by key (struct cache_keys), so nothing is allocated
 * per operation. Each array is written under one lock in cache.c, named on
 * its field; these functions take none.
 */
#ifndef APPIO_CACHE_INT_H
#define APPIO_CACHE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CACHE_NIL        UINT32_MAX
#define CACHE_BUCKET     4096u  /* a BigHash bucket: read and written whole */
#define CACHE_BUCKET_HDR 24u    /* bucket header: checksum, generation, entry count */
#define CACHE_ENTRY_HDR  16u    /* per item in a bucket: key hash, sizes */
#define CACHE_SLOT_ALIGN 512u   /* BlockCache's allocation alignment within a region */
#define CACHE_ITEM_HDR   32u    /* per item in a region: its entry descriptor */

/* Per-key state, one element per key in every array. */
struct cache_keys {
	uint32_t n;
	uint32_t *size;                 /* value bytes (fixed per key); read-only after set-up */
	uint32_t *prev, *next;          /* RAM LRU links (shard lock) */
	uint8_t *in_ram;                /* (shard lock) */
	uint8_t *in_bc;                 /* a BlockCache copy is indexed (shard lock) */
	uint8_t *seen;                  /* offered to the flash before: reject-first (shard lock) */
	uint32_t *bc_region, *bc_off, *bc_gen;  /* where that copy is (shard lock) */
	uint32_t *bh_prev, *bh_next;    /* bucket links, oldest first (bucket lock) */
	uint8_t *in_bh;                 /* in its BigHash bucket (bucket lock) */
};

/* Allocate every array for @n keys, all empty; sizes left 0. Frees with cache_keys_release(). */
void cache_keys_init(struct cache_keys *k, uint32_t n);
void cache_keys_release(struct cache_keys *k);

/* A 64-bit mix of @key: which bucket, which size, which shard. */
static inline uint64_t cache_hash(uint64_t key)
{
	uint64_t z = key + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- RAM cache: an LRU of whole items, bounded by their bytes ---- */

/* The RAM cache is CACHE_SHARDS LRUs, each a share of --ram-size; a key's is by its hash. */
#define CACHE_SHARDS 64

static inline unsigned cache_shard(uint32_t key)
{
	return (unsigned)(cache_hash(key) % CACHE_SHARDS);
}

struct cache_lru {
	uint32_t head, tail;            /* most and least recently used */
	uint64_t bytes, cap;
	uint64_t items;
};

void cache_lru_init(struct cache_lru *l, uint64_t cap);

/* If @key is in @l, make it the most recent and return true. */
bool cache_lru_touch(struct cache_lru *l, struct cache_keys *k, uint32_t key);

/* Put @key (its size from k->size) in front; if already in, just move it. */
void cache_lru_insert(struct cache_lru *l, struct cache_keys *k, uint32_t key);

/* While @l holds more than its capacity: take the least recent key out into *@key, true. */
bool cache_lru_evict(struct cache_lru *l, struct cache_keys *k, uint32_t *key);

/* ---- BlockCache: items appended into regions, regions evicted whole ---- */

enum cache_region_state { REGION_FREE, REGION_FILLING, REGION_SEALED, REGION_CLEAN };
enum cache_eviction { EVICT_FIFO, EVICT_LRU };

struct cache_region {
	uint32_t gen;                   /* +1 at eviction: index entries of before are stale */
	uint8_t state;                  /* enum cache_region_state */
	uint64_t stamp;                 /* sealed (FIFO) or last read (LRU), a logical clock */
};

struct cache_bc {
	uint32_t nregions, region_size;
	int policy;                     /* enum cache_eviction */
	struct cache_region *r;         /* nregions, owned */
	uint32_t cur, fill;             /* region being filled (CACHE_NIL: none), bytes used */
	uint32_t next_free;             /* regions never used yet start here (the first pass) */
	uint64_t clock;
	uint64_t evicted;               /* regions evicted so far */
};

/* Where an item went. */
struct cache_slot {
	uint32_t region, off, gen, len;
	uint32_t sealed;                /* a region this allocation filled: write it (or CACHE_NIL) */
	bool evicted;                   /* a region was evicted to make room */
};

void cache_bc_init(struct cache_bc *bc, uint32_t nregions, uint32_t region_size, int policy);
void cache_bc_release(struct cache_bc *bc);

/* Bytes an item of @size takes in a region: descriptor included, aligned. */
static inline uint32_t cache_bc_slot_len(uint32_t size)
{
	return (size + CACHE_ITEM_HDR + CACHE_SLOT_ALIGN - 1) / CACHE_SLOT_ALIGN * CACHE_SLOT_ALIGN;
}

/*
 * Place an item of @size bytes: in the region being filled, or, when it does
 * not fit, seal that region (s->sealed: the caller writes it whole, then
 * calls cache_bc_written) and fill a new one: a never-used region, else one
 * evicted by the policy (FIFO: sealed longest ago; LRU: read longest ago).
 * Returns 0, or -EAGAIN when every other region is still being written (the
 * insert is dropped), -E2BIG when the item is larger than a region.
 */
int cache_bc_alloc(struct cache_bc *bc, uint32_t size, struct cache_slot *s);

/* The region @region has been written: it may now be evicted. */
void cache_bc_written(struct cache_bc *bc, uint32_t region);

/*
 * Is an item indexed at (@region, @gen) still there? *@in_mem tells whether
 * its region is still in memory (being filled or written: a read costs no
 * I/O). With @use (a read), a region on flash becomes the most recent for LRU.
 */
bool cache_bc_lookup(struct cache_bc *bc, uint32_t region, uint32_t gen, bool use, bool *in_mem);

/* ---- BigHash: 4 KiB buckets of small items, each bucket a FIFO ---- */

struct cache_bh {
	uint32_t nbuckets;
	uint32_t *head, *tail;          /* oldest and newest key of each bucket, owned */
	uint16_t *used;                 /* payload bytes of each bucket, owned */
};

void cache_bh_init(struct cache_bh *bh, uint32_t nbuckets);
void cache_bh_release(struct cache_bh *bh);

static inline uint32_t cache_bh_bucket(const struct cache_bh *bh, uint32_t key)
{
	return (uint32_t)((cache_hash(key) >> 16) % bh->nbuckets);
}

/* Bytes an item of @size takes in a bucket. */
static inline uint32_t cache_bh_entry(uint32_t size)
{
	return size + CACHE_ENTRY_HDR;
}

/*
 * The modify step of a bucket's read-modify-write: drop @key's old copy,
 * evict the oldest items until it fits, append it. Returns the number of
 * items evicted. The item must fit an empty bucket.
 */
unsigned cache_bh_insert(struct cache_bh *bh, struct cache_keys *k, uint32_t key);

/* Take @key out of its bucket (no-op if absent). */
void cache_bh_remove(struct cache_bh *bh, struct cache_keys *k, uint32_t key);

/* ---- results (cache_stats.c) ---- */

/* The emulator's counters, in the order of its counter names. */
enum { C_GETS, C_SETS, C_RAM_HITS, C_FLASH_HITS, C_MISSES, C_INSERTED, C_DRIVE_WRITTEN,
       C_DRIVE_READ, C_REGIONS_WRITTEN, C_REGIONS_EVICTED, C_REJECTS, C_BH_EVICTIONS,
       C_ALLOC_FAILS, C_FLASH_INSERTS };

struct emu_run;
struct point_result;
struct result;

/*
 * emu_ops.point_end: the point's hit ratios and write amplification into the
 * result's info (cache.ram_hit_pct, cache.flash_hit_pct, cache.hit_pct,
 * cache.write_amplification; cache.N.... for point N > 1). *@npoints counts
 * the points ended so far. Main thread.
 */
void cache_point_end(struct emu_run *run, const struct point_result *p, unsigned *npoints);

/* emu_ops.summary: the same figures and the drive's read and write rates, a line per point. */
void cache_summary(const void *opts, const struct result *res, FILE *f);

#endif
