/*
 * cache.c - a hybrid DRAM + flash object cache at the I/O level, in the
 * style of CacheLib and its flash engine Navy (Berg et al., "The CacheLib
 * Caching Engine: Design and Experiences at Scale", OSDI 2020, and
 * CacheLib's "Navy" architecture documentation): the drive of a caching
 * tier, driven by a cache rather than a database.
 *
 *  - RAM cache: an LRU of whole items bounded by --ram-size (value bytes).
 *    A get that finds its key there does no I/O. Items it evicts are offered
 *    to the flash, unless their flash copy is still valid ("clean").
 *  - Admission: --admission probability:P admits an offered item with
 *    probability P; reject-first admits a key only the second time it is
 *    offered (CacheLib's RejectFirst policy, without its time window).
 *  - Small items (value <= --small-object-max) go to BigHash: --bighash-pct
 *    of the flash in 4 KiB buckets, a key hashing to one bucket. An insert
 *    reads the bucket, drops the key's old copy and the oldest items until
 *    it fits, and writes the bucket back (read-modify-write: 4 KiB written
 *    per small item, the engine's write amplification). A get of a key the
 *    bucket's in-memory Bloom filter admits reads the bucket (our filter is
 *    exact: no false-positive reads).
 *  - Large items go to BlockCache: the rest of the flash cut into regions of
 *    --region-size. Items are appended to the region being filled (in
 *    memory), each with a 32-byte descriptor, aligned to 512 bytes; a full
 *    region is written in one sequential write of the whole region, and
 *    when none is free a whole region is evicted, least recently read first
 *    (--region-eviction lru, Navy's default) or oldest sealed first (fifo,
 *    which makes the writes one sequential stream, pass after pass); its items
 *    drop out of the index at once (a generation number, nothing read). A
 *    get reads the item's blocks from the drive, or from memory while its
 *    region has not been written yet.
 *  - A flash hit puts the item back in the RAM cache. A get that misses is
 *    followed by a set of the same key (look-aside: the client fetched it
 *    from the backing store). A set puts the item in RAM and drops its
 *    flash copy from the index.
 *
 * Keys are --keys numbers drawn from --dist (zipf:THETA by default); a
 * key's value size is fixed, drawn once from the --value-size split by the
 * key's hash. The get and set latencies are what a client sees: the RAM
 * lookup, the flash read if any. Inserting RAM evictions into the flash is
 * asynchronous in CacheLib (Navy's job queue), so here the same worker does
 * it after recording the operation: it costs throughput, not the latency of
 * the operation that caused it.
 *
 * Locks (the hot path allocates nothing and prints nothing): the key space is
 * split into CACHE_SHARDS shards by key hash, each a mutex over its RAM LRU
 * and its keys' index entries, held for a few list operations; the region
 * table has one mutex, held while an item is placed or looked up (a few
 * instructions, never across I/O); BigHash buckets are guarded by
 * CACHE_BUCKET_LOCKS striped mutexes held across a bucket's read-modify-write,
 * as Navy's bucket locks are. No lock is held across I/O except a bucket's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/dist.h"
#include "appio/emulator.h"
#include "cache_int.h"

#define CACHE_BUCKET_LOCKS 256
#define EVICT_BATCH        32   /* RAM victims taken out per shard lock */

struct cache_opts {
	uint64_t ram_size, region_size, small_object_max, keys;
	unsigned bighash_pct, get_pct;
	int region_eviction;
	struct opt_dist dist;
	struct opt_split value_size;
	const char *admission;
};

enum { CLS_GET, CLS_SET, CLS_ITEM_READ, CLS_BUCKET_READ, CLS_BUCKET_WRITE, CLS_REGION_WRITE };

struct shard {
	alignas(64) pthread_mutex_t lock;
	struct cache_lru lru;
};

struct bucket_lock {
	alignas(64) pthread_mutex_t lock;
};

struct cache_run {
	struct cache_keys keys;
	struct shard shards[CACHE_SHARDS];
	struct bucket_lock blocks[CACHE_BUCKET_LOCKS];
	alignas(64) pthread_mutex_t bc_lock;
	struct cache_bc bc;
	struct cache_bh bh;
	struct dist dist;
	uint64_t bc_base;               /* BlockCache's first byte on the target (BigHash is first) */
	uint32_t small_max;             /* values up to this go to BigHash (0: no BigHash) */
	uint32_t lbs;
	double admit_p;                 /* probability, or < 0 for reject-first */
	bool locks;                     /* the mutexes are initialised */
	unsigned npoints;               /* points ended (cache_point_end) */
};

static const char *const eviction_names[] = { "fifo", "lru", NULL };

#define O(field) offsetof(struct cache_opts, field)
static const struct opt_def cache_opt_table[] = {
	{ "ram-size", OPT_SIZE, O(ram_size), "64M",
	  "RAM cache: value bytes its LRU holds (modelled, not allocated)", .max = 1ULL << 44 },
	{ "region-size", OPT_SIZE, O(region_size), "16M",
	  "BlockCache region: written whole, evicted whole", .min = 64 * 1024, .max = 256ULL << 20 },
	{ "region-eviction", OPT_ENUM, O(region_eviction), "lru",
	  "which region BlockCache evicts: sealed longest ago (fifo) or read longest ago (lru)",
	  .choices = eviction_names },
	{ "small-object-max", OPT_SIZE, O(small_object_max), "2048",
	  "values up to this size go to BigHash's 4 KiB buckets (0: none)",
	  .max = CACHE_BUCKET - CACHE_BUCKET_HDR - CACHE_ENTRY_HDR },
	{ "bighash-pct", OPT_PCT, O(bighash_pct), "10", "percent of the flash given to BigHash" },
	{ "keys", OPT_UINT, O(keys), "1000000", "key space", .min = 1, .max = 1000000000 },
	{ "dist", OPT_DIST, O(dist), "zipf:0.9",
	  "key popularity: zipf:THETA, pareto:H, normal:SIGMA or uniform" },
	{ "value-size", OPT_SPLIT, O(value_size), "256/35:1k/25:4k/15:32k/15:256k/10",
	  "value size, or a mix SIZE/PCT:SIZE/PCT... summing to 100 (a key keeps its size)" },
	{ "get-pct", OPT_PCT, O(get_pct), "90", "percent of operations that are gets (the rest sets)" },
	{ "admission", OPT_STR, O(admission), "probability:1",
	  "which RAM evictions the flash takes: probability:P (0 < P <= 1) or reject-first" },
	OPT_END,
};
#undef O

/* --- lookups --- */

static struct shard *shard_of(struct cache_run *cr, uint32_t key)
{
	return &cr->shards[cache_shard(key)];
}

static pthread_mutex_t *bucket_lock(struct cache_run *cr, uint32_t b)
{
	return &cr->blocks[b % CACHE_BUCKET_LOCKS].lock;
}

static bool is_small(const struct cache_run *cr, uint32_t key)
{
	return cr->keys.size[key] <= cr->small_max;
}

/* BigHash takes the start of the flash. */
static uint64_t bucket_off(uint32_t b)
{
	return (uint64_t)b * CACHE_BUCKET;
}

static int io(struct emu_worker *w, unsigned cls, unsigned op, uint32_t len, uint64_t off)
{
	int64_t got = emu_io(w, cls, op, w->run->target->fd, emu_buf(w, 0), len, off);

	if (got < 0)
		return (int)got;        /* emu_io has stopped the point with the message */
	if (got != len)
		return emu_fail(w, -EIO, "short %s of %u bytes at offset %llu", io_op_name(op), len,
				(unsigned long long)off);
	emu_count(w, op == IO_WRITE ? C_DRIVE_WRITTEN : C_DRIVE_READ, len);
	return 0;
}

/* Read an item of BlockCache: the blocks covering its slot. */
static int read_item(struct emu_worker *w, uint32_t region, uint32_t off, uint32_t len)
{
	struct cache_run *cr = w->run->priv;
	uint64_t start = cr->bc_base + (uint64_t)region * cr->bc.region_size + off;
	uint64_t first = start / cr->lbs * cr->lbs, end = (start + len + cr->lbs - 1) / cr->lbs * cr->lbs;

	return io(w, CLS_ITEM_READ, IO_READ, (uint32_t)(end - first), first);
}

/* A BigHash get: 1 found, 0 not, or -errno. */
static int bighash_get(struct emu_worker *w, uint32_t key)
{
	struct cache_run *cr = w->run->priv;
	uint32_t b = cache_bh_bucket(&cr->bh, key);
	pthread_mutex_t *l = bucket_lock(cr, b);
	int rc = 0;

	pthread_mutex_lock(l);
	if (cr->keys.in_bh[key])
		rc = io(w, CLS_BUCKET_READ, IO_READ, CACHE_BUCKET, bucket_off(b));
	else
		rc = -ENOENT;
	pthread_mutex_unlock(l);
	return rc == -ENOENT ? 0 : rc ? rc : 1;
}

/* A BlockCache get: 1 found, 0 not, or -errno. */
static int blockcache_get(struct emu_worker *w, uint32_t key)
{
	struct cache_run *cr = w->run->priv;
	struct shard *s = shard_of(cr, key);
	uint32_t region, off, gen;
	bool in_mem = false, valid = false;

	pthread_mutex_lock(&s->lock);
	bool indexed = cr->keys.in_bc[key];
	region = cr->keys.bc_region[key];
	off = cr->keys.bc_off[key];
	gen = cr->keys.bc_gen[key];
	pthread_mutex_unlock(&s->lock);
	if (!indexed)
		return 0;
	pthread_mutex_lock(&cr->bc_lock);
	valid = cache_bc_lookup(&cr->bc, region, gen, true, &in_mem);
	pthread_mutex_unlock(&cr->bc_lock);
	if (!valid)
		return 0;
	if (in_mem)
		return 1;
	int rc = read_item(w, region, off, cache_bc_slot_len(cr->keys.size[key]));
	return rc ? rc : 1;
}

/* --- inserting into the flash (what RAM evicts) --- */

/* Is @key's flash copy still valid (nothing to write)? */
static bool flash_clean(struct cache_run *cr, uint32_t key)
{
	bool clean = false, in_mem;

	if (is_small(cr, key)) {
		pthread_mutex_t *l = bucket_lock(cr, cache_bh_bucket(&cr->bh, key));
		pthread_mutex_lock(l);
		clean = cr->keys.in_bh[key];
		pthread_mutex_unlock(l);
		return clean;
	}
	struct shard *s = shard_of(cr, key);
	pthread_mutex_lock(&s->lock);
	bool indexed = cr->keys.in_bc[key];
	uint32_t region = cr->keys.bc_region[key], gen = cr->keys.bc_gen[key];
	pthread_mutex_unlock(&s->lock);
	if (indexed) {
		pthread_mutex_lock(&cr->bc_lock);
		clean = cache_bc_lookup(&cr->bc, region, gen, false, &in_mem);
		pthread_mutex_unlock(&cr->bc_lock);
	}
	return clean;
}

static bool admit(struct emu_worker *w, uint32_t key)
{
	struct cache_run *cr = w->run->priv;

	if (cr->admit_p >= 0)
		return cr->admit_p >= 1 || rng_double(&w->rng) < cr->admit_p;
	struct shard *s = shard_of(cr, key);
	pthread_mutex_lock(&s->lock);
	bool seen = cr->keys.seen[key];
	cr->keys.seen[key] = 1;
	pthread_mutex_unlock(&s->lock);
	return seen;
}

/* Read-modify-write of the key's bucket, under its lock as in Navy. */
static int bighash_insert(struct emu_worker *w, uint32_t key)
{
	struct cache_run *cr = w->run->priv;
	uint32_t b = cache_bh_bucket(&cr->bh, key);
	pthread_mutex_t *l = bucket_lock(cr, b);

	pthread_mutex_lock(l);
	int rc = io(w, CLS_BUCKET_READ, IO_READ, CACHE_BUCKET, bucket_off(b));
	if (!rc) {
		emu_count(w, C_BH_EVICTIONS, cache_bh_insert(&cr->bh, &cr->keys, key));
		emu_fill(w, emu_buf(w, 0), CACHE_BUCKET);
		rc = io(w, CLS_BUCKET_WRITE, IO_WRITE, CACHE_BUCKET, bucket_off(b));
	}
	pthread_mutex_unlock(l);
	return rc;
}

/* Write a sealed region whole, in one sequential write. */
static int write_region(struct emu_worker *w, uint32_t region)
{
	struct cache_run *cr = w->run->priv;
	uint32_t len = cr->bc.region_size;

	emu_fill(w, emu_buf(w, 0), len);
	int rc = io(w, CLS_REGION_WRITE, IO_WRITE, len, cr->bc_base + (uint64_t)region * len);
	pthread_mutex_lock(&cr->bc_lock);
	cache_bc_written(&cr->bc, region);      /* evictable again, even after a failed write */
	pthread_mutex_unlock(&cr->bc_lock);
	if (!rc)
		emu_count(w, C_REGIONS_WRITTEN, 1);
	return rc;
}

static int blockcache_insert(struct emu_worker *w, uint32_t key)
{
	struct cache_run *cr = w->run->priv;
	struct cache_slot slot;

	pthread_mutex_lock(&cr->bc_lock);
	int rc = cache_bc_alloc(&cr->bc, cr->keys.size[key], &slot);
	pthread_mutex_unlock(&cr->bc_lock);
	emu_count(w, C_REGIONS_EVICTED, slot.evicted);
	if (!rc) {
		struct shard *s = shard_of(cr, key);
		pthread_mutex_lock(&s->lock);
		cr->keys.in_bc[key] = 1;
		cr->keys.bc_region[key] = slot.region;
		cr->keys.bc_off[key] = slot.off;
		cr->keys.bc_gen[key] = slot.gen;
		pthread_mutex_unlock(&s->lock);
	} else {
		emu_count(w, C_ALLOC_FAILS, 1);         /* every region in flight: dropped */
	}
	if (slot.sealed != CACHE_NIL)
		return write_region(w, slot.sealed);
	return 0;
}

static int flash_insert(struct emu_worker *w, uint32_t key)
{
	struct cache_run *cr = w->run->priv;

	if (flash_clean(cr, key))
		return 0;
	if (!admit(w, key)) {
		emu_count(w, C_REJECTS, 1);
		return 0;
	}
	emu_count(w, C_INSERTED, cr->keys.size[key]);
	emu_count(w, C_FLASH_INSERTS, 1);
	return is_small(cr, key) ? bighash_insert(w, key) : blockcache_insert(w, key);
}

/* --- RAM --- */

/*
 * Put @key in RAM (dropping its flash copy with @invalidate: a new value),
 * record the operation, then hand what RAM evicts to the flash.
 */
static int ram_insert(struct emu_worker *w, uint32_t key, bool invalidate, unsigned cls, uint64_t t0)
{
	struct cache_run *cr = w->run->priv;
	struct shard *s = shard_of(cr, key);
	uint32_t victims[EVICT_BATCH];
	unsigned n;
	bool first = true;
	int rc = 0;

	if (invalidate && is_small(cr, key)) {
		pthread_mutex_t *l = bucket_lock(cr, cache_bh_bucket(&cr->bh, key));
		pthread_mutex_lock(l);
		cache_bh_remove(&cr->bh, &cr->keys, key);
		pthread_mutex_unlock(l);
	}
	do {
		n = 0;
		pthread_mutex_lock(&s->lock);
		if (first) {
			if (invalidate)
				cr->keys.in_bc[key] = 0;
			cache_lru_insert(&s->lru, &cr->keys, key);
		}
		while (n < EVICT_BATCH && cache_lru_evict(&s->lru, &cr->keys, &victims[n]))
			n++;
		pthread_mutex_unlock(&s->lock);
		if (first)
			emu_record(w, cls, t0, cr->keys.size[key]);
		first = false;
		for (unsigned i = 0; i < n && !rc; i++)
			rc = flash_insert(w, victims[i]);
	} while (n == EVICT_BATCH && !rc);
	return rc;
}

/* A set that began at @t0 (the request's start; a miss's fill: its own). */
static int do_set(struct emu_worker *w, uint32_t key, uint64_t t0)
{
	emu_count(w, C_SETS, 1);
	return ram_insert(w, key, true, CLS_SET, t0);
}

static int do_get(struct emu_worker *w, uint32_t key, uint64_t t0)
{
	struct cache_run *cr = w->run->priv;
	struct shard *s = shard_of(cr, key);

	emu_count(w, C_GETS, 1);
	pthread_mutex_lock(&s->lock);
	bool hit = cache_lru_touch(&s->lru, &cr->keys, key);
	pthread_mutex_unlock(&s->lock);
	if (hit) {
		emu_count(w, C_RAM_HITS, 1);
		emu_record(w, CLS_GET, t0, cr->keys.size[key]);
		return 0;
	}
	int rc = is_small(cr, key) ? bighash_get(w, key) : blockcache_get(w, key);
	if (rc < 0)
		return rc;
	if (rc) {
		emu_count(w, C_FLASH_HITS, 1);
		return ram_insert(w, key, false, CLS_GET, t0);  /* promoted: back in RAM */
	}
	emu_count(w, C_MISSES, 1);
	emu_record(w, CLS_GET, t0, 0);
	return do_set(w, key, emu_now());               /* look-aside: fetched elsewhere, set */
}

static int cache_step(struct emu_worker *w)
{
	struct cache_run *cr = w->run->priv;
	const struct cache_opts *o = w->run->opts;
	uint32_t key = (uint32_t)dist_next(&cr->dist, &w->rng);
	uint64_t t0 = emu_step_start(w);

	if (rng_below(&w->rng, 100) < o->get_pct)
		return do_get(w, key, t0);
	return do_set(w, key, t0);
}

/* --- setup --- */

static int parse_admission(const char *s, double *p, char *err, size_t errlen)
{
	char *end;

	if (!strcmp(s, "reject-first")) {
		*p = -1;
		return 0;
	}
	if (!strncmp(s, "probability:", 12)) {
		*p = strtod(s + 12, &end);
		if (end != s + 12 && !*end && *p > 0 && *p <= 1)
			return 0;
	}
	snprintf(err, errlen, "--admission: '%s' is not probability:P (0 < P <= 1) or reject-first", s);
	return -EINVAL;
}

/* Each key's value size: the split's entry its hash falls in. */
static void assign_sizes(struct cache_run *cr, const struct opt_split *sp)
{
	for (uint32_t k = 0; k < cr->keys.n; k++) {
		unsigned x = (unsigned)(cache_hash(k) % 100), i = 0;
		while (i + 1 < sp->n && x >= sp->pct[i])
			x -= sp->pct[i++];
		cr->keys.size[k] = sp->bs[i];
	}
}

static int check_opts(const struct cache_opts *o, struct cache_run *cr, const struct target *t,
		      char *err, size_t errlen)
{
	uint32_t max_large = 0;
	int rc = parse_admission(o->admission, &cr->admit_p, err, errlen);

	if (rc)
		return rc;
	cr->lbs = t->lbs ? t->lbs : 512;
	if (o->region_size % cr->lbs || CACHE_BUCKET % cr->lbs) {
		snprintf(err, errlen, "--region-size: %llu bytes is not a multiple of the logical block "
			 "size of '%s' (%u bytes)", (unsigned long long)o->region_size, t->path, cr->lbs);
		return -EINVAL;
	}
	cr->small_max = o->bighash_pct ? (uint32_t)o->small_object_max : 0;
	for (unsigned i = 0; i < o->value_size.n; i++) {
		uint32_t v = o->value_size.bs[i];
		if (!v || (v > cr->small_max && v > o->region_size - CACHE_ITEM_HDR)) {
			snprintf(err, errlen, "--value-size: %u bytes does not fit a %llu-byte region "
				 "(a value is 1 byte up to the region size less 32)", v,
				 (unsigned long long)o->region_size);
			return -EINVAL;
		}
		if (v > cr->small_max && v > max_large)
			max_large = v;
	}
	uint64_t bh_bytes = t->size * o->bighash_pct / 100 / CACHE_BUCKET * CACHE_BUCKET;
	uint64_t regions = (t->size - bh_bytes) / o->region_size;
	if ((max_large && regions < 2) || (cr->small_max && bh_bytes < CACHE_BUCKET)) {
		snprintf(err, errlen, "--size: %llu bytes of flash hold %llu region(s) of %llu bytes and "
			 "%llu bucket(s): at least 2 regions and 1 bucket are needed (a larger --size, a "
			 "smaller --region-size or another --bighash-pct)", (unsigned long long)t->size,
			 (unsigned long long)regions, (unsigned long long)o->region_size,
			 (unsigned long long)(bh_bytes / CACHE_BUCKET));
		return -EINVAL;
	}
	/* about 50 bytes of index per key */
	if (o->keys * 50 > opt_phys_mem() / 2) {
		snprintf(err, errlen, "--keys: %llu keys need %.1fG of index, more than half of this "
			 "machine's memory", (unsigned long long)o->keys, (double)o->keys * 50 / (1 << 30));
		return -EINVAL;
	}
	if (dist_init(&cr->dist, &o->dist, o->keys)) {
		snprintf(err, errlen, "--dist: invalid distribution parameter");
		return -EINVAL;
	}
	cr->bc_base = bh_bytes;
	cache_bh_init(&cr->bh, (uint32_t)(bh_bytes / CACHE_BUCKET));
	cache_bc_init(&cr->bc, (uint32_t)(regions > UINT32_MAX - 1 ? UINT32_MAX - 1 : regions),
		      (uint32_t)o->region_size, o->region_eviction);
	return 0;
}

static void cache_teardown(struct emu_run *run)
{
	struct cache_run *cr = run->priv;

	if (cr->locks) {
		for (unsigned i = 0; i < CACHE_SHARDS; i++)
			pthread_mutex_destroy(&cr->shards[i].lock);
		for (unsigned i = 0; i < CACHE_BUCKET_LOCKS; i++)
			pthread_mutex_destroy(&cr->blocks[i].lock);
		pthread_mutex_destroy(&cr->bc_lock);
		cr->locks = false;
	}
	cache_keys_release(&cr->keys);
	cache_bc_release(&cr->bc);
	cache_bh_release(&cr->bh);
}

static int cache_setup(struct emu_run *run, char *err, size_t errlen)
{
	const struct cache_opts *o = run->opts;
	struct cache_run *cr = run->priv;
	int rc = check_opts(o, cr, run->target, err, errlen);

	if (rc) {
		cache_teardown(run);
		return rc;
	}
	cache_keys_init(&cr->keys, (uint32_t)o->keys);
	assign_sizes(cr, &o->value_size);
	for (unsigned i = 0; i < CACHE_SHARDS; i++) {
		pthread_mutex_init(&cr->shards[i].lock, NULL);
		cache_lru_init(&cr->shards[i].lru, o->ram_size / CACHE_SHARDS);
	}
	for (unsigned i = 0; i < CACHE_BUCKET_LOCKS; i++)
		pthread_mutex_init(&cr->blocks[i].lock, NULL);
	pthread_mutex_init(&cr->bc_lock, NULL);
	cr->locks = true;
	run->max_io = o->region_size > CACHE_BUCKET ? (uint32_t)o->region_size : CACHE_BUCKET;
	run->headline = "get";
	return 0;
}

static void cache_point_end_run(struct emu_run *run, const struct point_result *p)
{
	cache_point_end(run, p, &((struct cache_run *)run->priv)->npoints);
}

const struct emu_ops emu_cache = {
	.name = "cache",
	.desc = "hybrid DRAM + flash object cache (CacheLib/Navy): RAM LRU, regions, 4 KiB buckets",
	.flags = EMU_TOTAL | EMU_WRITES | EMU_RATE,
	.opts = cache_opt_table,
	.opts_size = sizeof(struct cache_opts),
	.run_priv_size = sizeof(struct cache_run),
	.classes = (const char *const[]){ "get", "set", "item_read", "bucket_read", "bucket_write",
					  "region_write", NULL },
	.counters = (const char *const[]){ "gets", "sets", "ram_hits", "flash_hits", "misses",
		"bytes_inserted", "drive_bytes_written", "drive_bytes_read", "regions_written",
		"regions_evicted", "admission_rejects", "bighash_evictions", "alloc_fails", "flash_inserts",
		NULL },
	.suite_review_args = "--threads 4,16,64 --time 300 --ramp 60 --size 32G --ram-size 512M "
			     "--keys 20000000 --engine sync",
	.suite_quick_args = "--threads 2,8 --time 5 --size 256M --ram-size 8M --region-size 4M "
			    "--keys 200000 --engine sync",
	.setup = cache_setup,
	.step = cache_step,
	.teardown = cache_teardown,
	.point_end = cache_point_end_run,
	.summary = cache_summary,
};
